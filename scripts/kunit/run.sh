#!/bin/bash
# KUnit tier (make check-kunit).  Debian's kernel has no KUnit, so this
# builds a user-mode-linux kernel from Debian's linux-source-6.1 with
# tools/testing/kunit/kunit.py and kmod/tests/kunitconfig (KUnit, modules,
# devtmpfs, tmpfs, hostfs, KUNIT_DEBUGFS), cached outside the repository in
# $PGAS_KUNIT_CACHE (default /var/cache/pgas-kunit; a few minutes cold,
# seconds warm).  The KUnit suites of kmod/tests are built against it as a
# module (ARCH=um), loaded in UML booted on a hostfs root of busybox, and
# judged by their KTAP output.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
SRC=${PGAS_KSRC:-/usr/src/linux-source-6.1}
CACHE=${PGAS_KUNIT_CACHE:-/var/cache/pgas-kunit}
UML=$CACHE/uml
ROOT=$CACHE/root
LOG=build/kunit.log
mkdir -p build "$CACHE"
fail() { echo "not ok - kunit: $*"; echo "kunit: 0 passed, 1 failed"; exit 1; }

if [ ! -x "$SRC/tools/testing/kunit/kunit.py" ]; then
	[ -f /usr/src/linux-source-6.1.tar.xz ] || fail "linux-source-6.1 missing (scripts/deps.sh kunit)"
	tar -C /usr/src -xf /usr/src/linux-source-6.1.tar.xz || fail "unpacking linux-source-6.1"
fi
# Rebuild when the kunitconfig changed (or on the first run).  One builder
# at a time (check-all.sh starts this build early, in the background:
# `scripts/kunit/run.sh build` builds the UML kernel and stops).
exec 9>"$CACHE/.lock"
flock 9
if ! cmp -s kmod/tests/kunitconfig "$UML/.pgas-kunitconfig" || [ ! -x "$UML/linux" ]; then
	echo "# building the UML kernel in $UML (cold: several minutes)"
	rm -f "$UML/.pgas-kunitconfig"
	if ! (cd "$SRC" && python3 tools/testing/kunit/kunit.py build \
		--kunitconfig="$OLDPWD/kmod/tests/kunitconfig" --build_dir="$UML" \
		--jobs="$(nproc)") >"$LOG" 2>&1; then
		tail -n 30 "$LOG"
		fail "building the UML kernel"
	fi
	cp kmod/tests/kunitconfig "$UML/.pgas-kunitconfig"
fi
exec 9>&-
[ "${1:-}" = build ] && exit 0
make -C "$SRC" O="$UML" ARCH=um M="$PWD/kmod/tests" W=1 KCFLAGS=-Werror modules >"$LOG" 2>&1 ||
	{ tail -n 30 "$LOG"; fail "building the KUnit module against UML"; }

rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,proc,sys,dev,tmp}
cp /bin/busybox "$ROOT/bin/" || fail "busybox-static missing (scripts/deps.sh kunit)"
for applet in $(/bin/busybox --list); do
	[ -e "$ROOT/bin/$applet" ] || ln -s busybox "$ROOT/bin/$applet"
done
cp kmod/tests/pgas_kunit.ko "$ROOT/"
cat >"$ROOT/init" <<'INIT'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "kunit-root: loading pgas_kunit.ko"
insmod /pgas_kunit.ko
echo "kunit-root: insmod exit $?"
rmmod pgas_kunit
echo "kunit-root: done"
poweroff -f
INIT
chmod +x "$ROOT/init"

timeout 600 "$UML/linux" mem=256M rootfstype=hostfs rootflags="$ROOT" rw init=/init \
	console=tty0 con0=fd:0,fd:1 con=null </dev/null >"$LOG" 2>&1
tr -d '\r' <"$LOG" >"$LOG.txt"
# Test cases are the indented KTAP results inside each suite.
pass=$(grep -cE '^\s+ok [0-9]+ ' "$LOG.txt")
failn=$(grep -cE '^\s+not ok [0-9]+ ' "$LOG.txt")
suites=$(grep -cE '^ok [0-9]+ pgas_' "$LOG.txt")
grep -E '^\s*(not ok|ok) [0-9]+ |# .*(pass|fail):' "$LOG.txt"
if [ "$suites" -ne 4 ]; then
	echo "not ok - expected 4 passing suites (pgas_ring, pgas_bounds, pgas_lifetimes, pgas_accounting), saw $suites"
	grep -E 'kunit-root|BUG|WARNING|Oops' "$LOG.txt" | head -n 20
	failn=$((failn + 1))
fi
if grep -qE 'BUG:|WARNING:|Oops|Kernel panic' "$LOG.txt"; then
	echo "not ok - kernel warning in the UML log"
	failn=$((failn + 1))
fi
echo "kunit: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
