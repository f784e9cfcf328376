#!/bin/bash
# mpirun-root.sh ROOT: adds to the VM tier's initramfs at ROOT what the
# mpirun part (scripts/vm/mpirun.sh, guest side) needs: Open MPI's mpirun
# (orterun) and orted at their own paths, its components, configuration
# and help texts, OpenPMIx's library and components, the dynamic loader
# and every shared library of these (ldd), and the dynamically linked
# test programs of build/ (MPI_BUILD=dir: another build's; the static
# ones cannot dlopen libpmix).  Exits non-zero, naming what is missing,
# when any of it is not there.
set -eu
ROOT=$1
B=${MPI_BUILD:-build}
die() { echo "mpirun-root: $*" >&2; exit 1; }
ompi=/usr/lib/x86_64-linux-gnu/openmpi
pmix=/usr/lib/x86_64-linux-gnu/pmix2
[ -x /usr/bin/orterun ] && [ -x /usr/bin/orted ] || die "no /usr/bin/orterun, orted (openmpi-bin)"
[ -d "$ompi/lib/openmpi3" ] || die "no $ompi/lib/openmpi3 (Open MPI 4.1's components)"
[ -d "$pmix/lib" ] || die "no $pmix (libpmix2)"
mkdir -p "$ROOT/usr/bin" "$ROOT/mpi" "$ROOT$ompi/lib" "$ROOT$pmix" "$ROOT/etc" "$ROOT/usr/share"
cp /usr/bin/orterun "$ROOT/usr/bin/mpirun"
cp /usr/bin/orted "$ROOT/usr/bin/"
cp -a "$ompi/lib/openmpi3" "$ROOT$ompi/lib/"
cp -a "$pmix/lib" "$ROOT$pmix/"
[ -d /etc/openmpi ] && cp -a /etc/openmpi "$ROOT/etc/"
[ -d /usr/share/openmpi ] && cp -a /usr/share/openmpi "$ROOT/usr/share/"
for t in am barrier rma lifecycle; do
	cp "$B/tests/$t" "$ROOT/mpi/" || die "no $B/tests/$t (make tests)"
done
# libpgas opens libpmix at run time: a program built without PMIx would
# run as N one-rank jobs.
grep -q PMIX_NAMESPACE "$ROOT/mpi/am" || die "$B/tests/am has no PMIx boot (libpmix-dev at build time)"
for f in "$ROOT"/usr/bin/mpirun "$ROOT"/usr/bin/orted "$ROOT$ompi"/lib/openmpi3/*.so \
	"$ROOT$pmix"/lib/libpmix.so.2 "$ROOT$pmix"/lib/pmix/*.so "$ROOT"/mpi/*; do
	ldd "$f" 2>/dev/null | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}'
done | sort -u | while read -r lib; do
	[ -e "$ROOT$lib" ] && continue
	mkdir -p "$ROOT$(dirname "$lib")"
	cp -L "$lib" "$ROOT$lib"
done
# libpgas's dlopen("libpmix.so.2"): where the loader's default search finds it.
cp -L "$pmix/lib/libpmix.so.2" "$ROOT/lib/x86_64-linux-gnu/" 2>/dev/null ||
	{ mkdir -p "$ROOT/lib/x86_64-linux-gnu" && cp -L "$pmix/lib/libpmix.so.2" "$ROOT/lib/x86_64-linux-gnu/"; }
