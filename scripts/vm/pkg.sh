#!/bin/bash
# pkg.sh DEBDIR: the package part of the deb tier (scripts/check-deb.sh).
# Boots each of Debian's stock kernels (6.1 and 6.12; KVER=release for one)
# under qemu (TCG) with this machine's own root, read-only over 9p, as the
# guest's Debian (scripts/vm/pkg-init overlays a tmpfs), and there installs
# the packages of DEBDIR, uses them as a site would and purges them
# (scripts/vm/pkg-guest.sh).  Prints the guest's TAP lines and ends with
# "pkgvm: N passed, N failed".  VM_OUT=dir for the consoles (build/pkgvm).
set -u
DEBS=$(cd "${1:?usage: pkg.sh DEBDIR}" && pwd) || exit 1
cd "$(dirname "$0")/../.." || exit 1
OUT=${VM_OUT:-build/pkgvm}
BAD='WARNING:|BUG:|Oops|Kernel panic|general protection fault|Call Trace'
pass=0
failn=0
notok() { echo "not ok - pkgvm: $*"; failn=$((failn + 1)); }

kvers=${KVER:-}
if [ -z "$kvers" ]; then
	for d in /lib/modules/*; do
		k=${d##*/}
		[ -r "/boot/vmlinuz-$k" ] && [ -f "$d/build/Makefile" ] && kvers+=" $k"
	done
	for series in 6.1 6.12; do
		case " $kvers" in
		*" $series".*) ;;
		*) notok "no $series kernel (image and headers; scripts/deps.sh vm)" ;;
		esac
	done
fi
command -v qemu-system-x86_64 >/dev/null || notok "qemu-system-x86_64 missing (scripts/deps.sh vm)"
[ -x /bin/busybox ] || notok "busybox-static missing (scripts/deps.sh vm)"
[ "$failn" -eq 0 ] || { echo "pkgvm: $pass passed, $failn failed"; exit 1; }

# What the guest reads from the second share: the packages and its script.
share=$OUT/share
rm -rf "$share"
mkdir -p "$share"
cp "$DEBS"/*.deb scripts/vm/pkg-guest.sh scripts/tap.sh examples/demo.c \
	selftests/shmem/rma.c selftests/shmem/stap.h "$share/"
rm -f "$share"/*-dbgsym_*.deb
for k in $kvers; do
	o=$OUT/$k
	root=$o/root
	rm -rf "$root"
	mkdir -p "$root"/{bin,proc,sys,dev,mod}
	cp /bin/busybox "$root/bin/"
	for a in sh mount insmod mkdir ln chroot echo sync poweroff; do
		ln -s busybox "$root/bin/$a"
	done
	ln -s bin "$root/sbin"
	cp scripts/vm/pkg-init "$root/init"
	if ! msg=$(scripts/vm/modules.sh "$k" "$root/mod" virtio_pci 9pnet_virtio 9p overlay 2>&1); then
		notok "$k: $msg"
		continue
	fi
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$o/initramfs.gz"
	echo "# pkgvm: Debian's $k"
	t0=$SECONDS
	# -m 3072: the overlay's tmpfs takes dkms's build of pgas.ko.
	timeout "${VM_TIMEOUT:-1500}" qemu-system-x86_64 -machine q35 -accel tcg -smp 2 -m 3072 \
		-kernel "/boot/vmlinuz-$k" -initrd "$o/initramfs.gz" \
		-append "console=ttyS0 panic_on_warn=1 oops=panic panic=-1 loglevel=4 tsc=reliable rdinit=/init" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$(cd "$share" && pwd),mount_tag=pkgs,security_model=none,readonly=on" \
		-nographic -no-reboot </dev/null >"$o/console.log" 2>&1
	rc=$?
	tr -d '\r' <"$o/console.log" >"$o/console.txt"
	grep -E '^(ok|not ok|#)' "$o/console.txt" | grep -v '^# [0-9.]* s$' || true
	p=$(grep -c '^ok ' "$o/console.txt")
	f=$(grep -c '^not ok ' "$o/console.txt")
	pass=$((pass + p))
	failn=$((failn + f))
	# The guest's own count, against the lines read here: a line that a
	# kernel message or another writer broke on the console is not lost.
	said=$(sed -n -E 's/^pkgvm: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$o/console.txt" | tail -n 1)
	if [ -n "$said" ] && [ "$said" != "$p $f" ]; then
		notok "$k: the guest counted $said (passed, failed), the console shows $p $f"
	fi
	if grep -qE "$BAD" "$o/console.txt"; then
		notok "$k: kernel warning/oops on the console: $(grep -E -m 3 "$BAD" "$o/console.txt" | tr '\n' ' ')"
	fi
	if ! grep -qE '^pkgvm: [0-9]+ passed' "$o/console.txt"; then
		notok "$k: the guest did not finish (qemu exit $rc after $((SECONDS - t0)) s); console tail: $(tail -n 15 "$o/console.txt")"
	else
		echo "# pkgvm: $k took $((SECONDS - t0)) s"
	fi
done
echo "pkgvm: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
