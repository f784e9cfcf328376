#!/bin/bash
# dkms on the host: add pgas.ko from a clean copy of the module's sources,
# build and install it for every installed kernel that has headers (as
# dkms autoinstall does on a kernel upgrade; Debian 12's 6.1 and 6.12 must
# both be there: scripts/deps.sh vm), check each installed module's
# vermagic, then remove it again.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
pass=0
fail=0
. scripts/tap.sh
log=$(mktemp)
src=/usr/src/pgas-$VER	# where dkms looks for a module's source

kvers=
for d in /lib/modules/*; do
	[ -f "$d/build/Makefile" ] && kvers+=" ${d##*/}"
done
for series in 6.1 6.12; do
	case " $kvers" in
	*" $series".*) ;;
	*) notok "no $series kernel headers in /lib/modules (scripts/deps.sh vm installs them)" ;;
	esac
done

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
for k in $kvers; do
	step "dkms build for $k" dkms build "pgas/$VER" -k "$k"
	step "dkms install for $k" dkms install "pgas/$VER" -k "$k" --force
	mod=$(find "/lib/modules/$k/updates" -name 'pgas.ko*' 2>/dev/null | head -n 1)
	if [ -n "$mod" ] && modinfo -F vermagic "$mod" | grep -q "^$k "; then
		ok "installed $mod with vermagic $k"
	else
		notok "no pgas.ko for $k under /lib/modules/$k/updates"
	fi
done
step "dkms remove" dkms remove "pgas/$VER" --all
for k in $kvers; do
	if [ -z "$(find "/lib/modules/$k/updates" -name 'pgas.ko*' 2>/dev/null)" ]; then
		ok "dkms remove takes the module away for $k"
	else
		notok "pgas.ko still installed for $k after dkms remove"
	fi
done
rm -rf "$log" "$src"
echo "dkms: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
