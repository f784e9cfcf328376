#!/bin/bash
# dkms on the host: add, build and install pgas.ko for the newest installed
# kernel from a clean copy of the module's sources, check the installed
# module, then remove it again.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
KVER=${KVER:-$(ls /lib/modules 2>/dev/null | sort -V | tail -n 1)}
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }
log=$(mktemp)
src=/usr/src/pgas-$VER	# where dkms looks for a module's source

dkms remove "pgas/$VER" --all >/dev/null 2>&1
rm -rf "$src"
mkdir -p "$src"
git ls-files -z dkms.conf Kbuild kmod uapi | xargs -0 cp --parents -t "$src"
step() {	# step LABEL CMD...
	local label=$1
	shift
	if "$@" >"$log" 2>&1; then ok "$label"; else notok "$label"; sed 's/^/    /' "$log" | tail -n 20; fi
}
step "dkms add" dkms add -m pgas -v "$VER"
step "dkms build for $KVER" dkms build "pgas/$VER" -k "$KVER"
step "dkms install for $KVER" dkms install "pgas/$VER" -k "$KVER" --force
mod=$(find "/lib/modules/$KVER/updates" -name 'pgas.ko*' 2>/dev/null | head -n 1)
if [ -n "$mod" ] && modinfo -F vermagic "$mod" | grep -q "^$KVER "; then
	ok "installed $mod with vermagic $KVER"
else
	notok "no pgas.ko for $KVER under /lib/modules/$KVER/updates"
fi
step "dkms remove" dkms remove "pgas/$VER" --all
if [ -z "$(find "/lib/modules/$KVER/updates" -name 'pgas.ko*' 2>/dev/null)" ]; then
	ok "dkms remove takes the module away"
else
	notok "pgas.ko still installed after dkms remove"
fi
rm -rf "$log" "$src"
echo "dkms: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
