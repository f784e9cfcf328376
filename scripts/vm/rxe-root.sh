#!/bin/bash
# rxe-root.sh KVER ROOT: adds to the VM tier's initramfs at ROOT what the
# soft-RoCE part (scripts/vm/rxe.sh, guest side) needs: Debian's rdma_rxe
# and the RDMA core modules of KVER (scripts/vm/modules.sh); the dynamic
# loader and the shared libraries of libfabric, libibverbs (with the rxe
# provider and its .driver file), librdmacm, iproute2's ip and rdma; and the dynamically linked ofi-enabled
# test programs of build/ (the static ones leave the ofi conduit out).
# Exits non-zero, naming what is missing, when any of it is not there.
set -eu
KVER=$1 ROOT=$2
B=${RXE_BUILD:-build}
die() { echo "rxe-root: $*" >&2; exit 1; }
mkdir -p "$ROOT/rxe/mod" "$ROOT/rxe/bin" "$ROOT/rxe/shmem" "$ROOT/etc/libibverbs.d"
# crc32_generic is no declared dependency: rxe asks the crypto API for
# "crc32" when a link is added, and without a modprobe in the initramfs
# that fails ENOENT ("rdma_rxe: failed to add rxv0").
"$(dirname "$0")/modules.sh" "$KVER" "$ROOT/rxe/mod" veth crc32_generic rdma_rxe rdma_ucm
grep -q rdma_rxe "$ROOT/rxe/mod/order" || die "modprobe finds no rdma_rxe for $KVER"
prov=/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
fab=$(ldconfig -p | awk '$1 == "libfabric.so.1" {print $NF; exit}')
[ -r "$prov" ] || die "no $prov (ibverbs-providers)"
[ -n "$fab" ] || die "no libfabric.so.1 (libfabric1)"
cp /etc/libibverbs.d/rxe.driver "$ROOT/etc/libibverbs.d/"
progs="/usr/bin/ip /usr/bin/rdma /usr/bin/fi_info"
for p in $progs; do
	[ -x "$p" ] || die "no $p (iproute2, libfabric-bin)"
	cp "$p" "$ROOT/rxe/bin/"
done
for t in am rma atomics signal barrier coll; do
	cp "$B/tests/$t" "$ROOT/rxe/bin/" || die "no $B/tests/$t (make tests)"
done
cp "$B/bin/pgasrun" "$ROOT/rxe/bin/" || die "no $B/bin/pgasrun"
for t in rma amo coll; do
	cp "$B/tests/shmem/$t" "$ROOT/rxe/shmem/" || die "no $B/tests/shmem/$t (make shmem)"
done
# Every shared library these need, at its own path (the loader's default
# search finds them), the loader itself included; the build tree's own
# (libshmem.so.0, libpgas.so.0: the OpenSHMEM programs link them, found by
# their rpath) in the loader's default directory, since the tree may be
# under /tmp, which the guest mounts a tmpfs over.
tree=$(cd "$B" && pwd)
for f in $progs "$fab" "$prov" "$ROOT"/rxe/bin/* "$ROOT"/rxe/shmem/*; do
	ldd "$f" 2>/dev/null | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}'
done | sort -u | while read -r lib; do
	case $lib in
	"$tree"/*) to=/usr/lib/x86_64-linux-gnu/$(basename "$lib") ;;
	*) to=$lib ;;
	esac
	mkdir -p "$ROOT$(dirname "$to")"
	cp -L "$lib" "$ROOT$to"
done
for f in "$fab" "$prov"; do
	mkdir -p "$ROOT$(dirname "$f")"
	cp -L "$f" "$ROOT$f"
done
