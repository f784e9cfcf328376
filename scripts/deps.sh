#!/bin/bash
# Installs what a target of this project needs from Debian's packages, and
# nothing that is already there.  Run as root (or with sudo available).
#
#   scripts/deps.sh build    compiler and make (the demo and the library)
#   scripts/deps.sh test     + valgrind, pkg-config, man-db and groff (the manual pages' check)
#                              and FFTW (libfftw3-dev: NAS FT, apps/ft)
#   scripts/deps.sh vm       + qemu, busybox-static, Debian's kernel images and headers
#                              (6.1 and 6.12; pahole for 6.12's module BTF), dkms,
#                              sparse (the kmod-style tier), FFTW (NAS FT in the VM)
#   scripts/deps.sh kunit    + linux-source-6.1 and what building a UML kernel needs
#   scripts/deps.sh debugvm  vm + kunit: the debug kernel is built from linux-source-6.1
#   scripts/deps.sh deb      + debhelper, dh-dkms, lintian (the Debian packages' tier)
#                              and udev, adduser, passwd (the packages installed in the VM)
#   scripts/deps.sh bench    + Open MPI, MPICH (peers), valgrind, python3
#   scripts/deps.sh multihost + Open MPI (mpirun: a PMIx launcher), libpmix-dev,
#                              libfabric (fi_pingpong, fi_info), iproute2, util-linux,
#                              Slurm (slurmctld, slurmd, srun, mpi_pmix_v4.so; the
#                              tier runs its own daemons: the system's are left
#                              stopped and disabled)
set -eu
want=(gcc make libc6-dev pkg-config libnl-genl-3-dev)
case "${1:-build}" in
build) ;;
test) want+=(valgrind pkg-config man-db groff-base libfftw3-dev) ;;	# man: the pages' check; FFTW: apps/ft
kunit) want+=(linux-source-6.1 busybox-static python3 flex bison bc xz-utils libelf-dev) ;;
vm) want+=(qemu-system-x86 busybox-static linux-image-amd64 linux-headers-amd64 linux-source-6.1 cpio gzip xz-utils dkms sparse libfftw3-dev
	linux-image-6.12-amd64 linux-headers-6.12-amd64 dwarves) ;;
debugvm) "$0" vm && "$0" kunit; exit ;;
deb) want+=(dpkg-dev debhelper dh-dkms lintian fakeroot udev adduser passwd kmod) ;;	# udev, users: the VM part
bench) want+=(valgrind python3 openmpi-bin libopenmpi-dev mpich libmpich-dev)
	want+=(hpcc) ;;	# GUPS: MPIRandomAccess (scripts/bench.sh gups)
multihost) want+=(openmpi-bin libopenmpi-dev libpmix-dev libfabric-dev libfabric-bin iproute2 util-linux)
	want+=(slurmctld slurmd slurm-client slurm-wlm-basic-plugins) ;;
*) echo "usage: $0 build|test|vm|kunit|debugvm|deb|bench|multihost" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# An index older than a day (or none) is refreshed first.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
	$SUDO apt-get update -qq
fi
# Daemons that these packages would start and enable (munge comes with
# Slurm): none is started (a policy-rc.d for the install, where the
# machine has none) and each is disabled after; tiers start their own.
daemons=()
for d in slurmctld slurmd munge; do
	dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "install ok installed" || daemons+=("$d")
done
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\n# scripts/deps.sh: no service starts during its install\nexit 101\n' |
		$SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy"
fi
rc=0
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || rc=$?
[ -z "$policy" ] || $SUDO rm -f "$policy"
for d in "${daemons[@]}"; do
	dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "install ok installed" || continue
	$SUDO update-rc.d "$d" disable >/dev/null 2>&1 || true
	if command -v deb-systemd-helper >/dev/null; then
		$SUDO deb-systemd-helper disable "$d.service" >/dev/null 2>&1 || true
	fi
done
exit $rc
