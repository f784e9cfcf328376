#!/bin/bash
# The Debian packages (debian/): built from a clean copy of the tree with
# dpkg-buildpackage, checked by lintian (no error; each warning named),
# their symbols files checked against the libraries, their contents checked,
# and used unpacked (dpkg-deb -x, nothing installed on this host): a job
# over the shm conduit from the packaged pgasrun and libpgas.so.0, a program
# built against the packaged headers, and an OpenSHMEM program against the
# packaged libshmem.  Then installed for real, used and purged in the VM on
# each stock kernel (scripts/vm/pkg.sh: dkms, udev, the group, a member's
# job over pgas.ko).  Ends with "N passed, N failed".
#
#   scripts/check-deb.sh            DEB_VM=0: without the VM part
set -u
cd "$(dirname "$0")/.." || exit 1
pass=0
fail=0
log=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$work" "$log"' EXIT
. scripts/tap.sh

if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null ||
	! command -v lintian >/dev/null; then
	notok "deb: dpkg-buildpackage, debhelper or lintian missing (scripts/deps.sh deb)"
	echo "$pass passed, $fail failed"
	exit 1
fi
ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
src=$work/pgas-$ver
mkdir -p "$src"
git ls-files -z | xargs -0 cp --parents -t "$src"
t0=$SECONDS
if (cd "$src" && dpkg-buildpackage -us -uc -b -j2) >"$log" 2>&1; then
	ok "deb: dpkg-buildpackage -us -uc -b builds the packages ($((SECONDS - t0)) s)"
else
	notok "deb: dpkg-buildpackage failed: $(tail -n 15 "$log")"
	echo "$pass passed, $fail failed"
	exit 1
fi
# debian/*.symbols must say exactly what the libraries export.  The build
# (dh_makeshlibs) only warns of a new symbol, and a symbol gone whose
# version is the package's own (always, at 0.1) passes there: compared here
# at level 4 against a later version, where both fail.
for p in libpgas0 libpgas-shmem0; do
	if (cd "$src" && dpkg-gensymbols -p"$p" -Pdebian/"$p" -v99 -Idebian/"$p".symbols \
		-O/dev/null -c4) >"$work/sym" 2>&1; then
		ok "deb: debian/$p.symbols lists exactly what its library exports"
	else
		notok "deb: debian/$p.symbols differs from the library (after a new call: dpkg-gensymbols -p$p -Pdebian/$p -v0.1 -O in the built tree): $(grep -E '^[+-]( |#)' "$work/sym" | head -n 6 | tr '\n' ' ')"
	fi
done
pkgs="libpgas0 libpgas-dev pgas-tools pgas-dkms libpgas-shmem0 libpgas-shmem-dev"
for p in $pkgs; do
	f=$(ls "$work/${p}_${ver}"_*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] || { notok "deb: no $p package"; continue; }
	dpkg-deb -c "$f" | awk '{ print $6 }' | sed 's|^\./|/|' >"$work/$p.list"
done
# What each package must hold (a file list per package, one path each).
want() {	# want PKG PATH...: each PATH (a grep -x pattern) in PKG
	local p=$1 miss="" x
	shift
	for x; do
		grep -qx "$x" "$work/$p.list" 2>/dev/null || miss="$miss $x"
	done
	if [ -z "$miss" ]; then
		ok "deb: $p holds what it should ($(wc -l <"$work/$p.list") entries)"
	else
		notok "deb: $p lacks:$miss"
	fi
}
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
want libpgas0 "/usr/lib/$ma/libpgas.so.0"
want libpgas-dev "/usr/include/pgas/pgas.h" "/usr/include/pgas/pgas_fast.h" \
	"/usr/lib/$ma/libpgas.a" "/usr/lib/$ma/libpgas.so" "/usr/lib/$ma/pkgconfig/pgas.pc" \
	"/usr/share/man/man3/pgas_put.3.gz" "/usr/share/man/man7/libpgas.7.gz"
want pgas-tools /usr/bin/pgasrun /usr/bin/pgasctl /usr/bin/pgas-tune \
	/usr/share/man/man1/pgasrun.1.gz /usr/share/man/man8/pgasctl.8.gz
want pgas-dkms "/usr/src/pgas-$ver/dkms.conf" "/usr/src/pgas-$ver/kmod/pgas_main.c" \
	"/usr/src/pgas-$ver/uapi/pgas_abi.h" /lib/udev/rules.d/60-pgas.rules \
	/usr/lib/modules-load.d/pgas.conf /usr/share/man/man4/pgas.4.gz
want libpgas-shmem0 "/usr/lib/$ma/libshmem.so.0"
want libpgas-shmem-dev /usr/include/shmem.h /usr/include/shmemx.h /usr/include/pshmem.h "/usr/lib/$ma/libshmem.a" \
	"/usr/lib/$ma/libshmem.so" "/usr/lib/$ma/pkgconfig/shmem.pc" /usr/bin/oshcc.pgas \
	/usr/bin/oshrun.pgas /usr/share/man/man1/oshcc.pgas.1.gz

# lintian: errors fail the tier; warnings are listed (each has a reason in
# docs/packaging.md or is a defect to mend).
lintian --no-tag-display-limit "$work"/*.changes >"$work/lintian" 2>&1
errs=$(grep -c '^E:' "$work/lintian")
warns=$(grep -c '^W:' "$work/lintian")
if [ "$errs" -eq 0 ]; then
	ok "deb: lintian finds no error ($warns warnings: $(grep '^W:' "$work/lintian" | awk '{ print $3 }' | sort | uniq -c | tr -s ' ' | tr '\n' ';'))"
else
	notok "deb: lintian errors: $(grep '^E:' "$work/lintian" | head -n 8 | tr '\n' ' ')"
fi

# Unpacked, used in place.
root=$work/root
for p in $pkgs; do
	dpkg-deb -x "$work/${p}_${ver}"_*.deb "$root"
done
lib=$root/usr/lib/$ma
if cc -std=c11 -Wall -Werror -I"$root/usr/include/pgas" -o "$work/demo" examples/demo.c \
	-L"$lib" -lpgas 2>"$log" &&
	LD_LIBRARY_PATH=$lib "$root/usr/bin/pgasrun" -n 2 -t 60 "$work/demo" 2>>"$log" |
	grep -q "rank 1/2: ping 101 -> pong 202"; then
	ok "deb: a program built against libpgas-dev runs under the packaged pgasrun and libpgas.so.0"
else
	notok "deb: libpgas-dev + pgas-tools: $(tail -n 5 "$log")"
fi
if cc -std=c11 -Wall -Werror -I"$root/usr/include" -I"$root/usr/include/pgas" -Iselftests/shmem \
	-o "$work/rma" selftests/shmem/rma.c -L"$lib" -lshmem -lpgas 2>"$log" &&
	LD_LIBRARY_PATH=$lib "$root/usr/bin/pgasrun" -n 2 -t 60 "$work/rma" >"$work/out" 2>>"$log" &&
	grep -q '^1\.\.6$' "$work/out" && ! grep -q '^not ok' "$work/out"; then
	ok "deb: an OpenSHMEM program against libpgas-shmem-dev passes (shmem/rma, 2 PEs)"
else
	notok "deb: libpgas-shmem-dev: $(tail -n 5 "$log" "$work/out")"
fi

# Installed, used and purged in the VM on each stock kernel.
if [ "${DEB_VM:-1}" != 0 ]; then
	scripts/vm/pkg.sh "$work" >"$log" 2>&1
	cat "$log"
	line=$(grep -E '^pkgvm: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		notok "deb: the VM part printed no result line"
	else
		pass=$((pass + $(echo "$line" | sed -E 's/^pkgvm: ([0-9]+) passed.*/\1/')))
		fail=$((fail + $(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')))
	fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
