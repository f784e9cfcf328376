#!/bin/bash
# Kernel code hygiene: pgas.ko builds without a warning (W=1, -Werror)
# against Debian's 6.1 headers, and checkpatch.pl from Debian's
# linux-source-6.1 finds nothing in kmod/ and uapi/.
set -u
cd "$(dirname "$0")/.."
KVER=${KVER:-$(ls /lib/modules 2>/dev/null | sort -V | tail -n 1)}
SRC=${PGAS_KSRC:-/usr/src/linux-source-6.1}
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }

if [ ! -x "$SRC/scripts/checkpatch.pl" ] && [ -f /usr/src/linux-source-6.1.tar.xz ]; then
	tar -C /usr/src -xf /usr/src/linux-source-6.1.tar.xz
fi

log=$(mktemp)
make -s -C "/lib/modules/$KVER/build" M="$PWD/kmod" W=1 KCFLAGS=-Werror clean >/dev/null 2>&1
if make -C "/lib/modules/$KVER/build" M="$PWD/kmod" W=1 KCFLAGS=-Werror modules >"$log" 2>&1 &&
	! grep -qi "warning" "$log"; then
	ok "pgas.ko builds warning-free (W=1 -Werror) against $KVER"
else
	notok "pgas.ko build against $KVER:"; sed 's/^/    /' "$log" | tail -n 30
fi
if [ -x "$SRC/scripts/checkpatch.pl" ]; then
	for f in kmod/*.[ch] kmod/tests/*.[ch] uapi/pgas_abi.h; do
		[ -f "$f" ] || continue
		case "$f" in *.mod.c) continue ;; esac
		if "$SRC/scripts/checkpatch.pl" --no-tree --strict -q -f "$f" >"$log" 2>&1; then
			ok "checkpatch --strict: $f"
		else
			notok "checkpatch --strict: $f"; sed 's/^/    /' "$log" | head -n 30
		fi
	done
else
	notok "checkpatch.pl not found under $SRC (scripts/deps.sh vm installs linux-source-6.1)"
fi
rm -f "$log"
echo "kmod-style: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
