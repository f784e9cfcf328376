#!/bin/bash
# pkg-guest.sh: the package part inside the VM (scripts/vm/pkg.sh), as root
# in this machine's Debian overlaid with a tmpfs (scripts/vm/pkg-init).
# Installs the packages of /run/pkgs (dkms builds pgas.ko for the running
# kernel), loads the module through modules-load.d with udevd running,
# checks the node's group, runs a libpgas job and an OpenSHMEM program
# built with the installed oshcc as an unprivileged member of group pgas
# over pgas.ko, refuses a non-member, reads the manual pages, then purges
# the packages and checks that nothing of theirs is left.  Prints TAP lines.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
export P=/run/pkgs
K=$(uname -r)
pass=0
fail=0
log=/tmp/pkg.log
. $P/tap.sh
step() {	# step LABEL CMD...: ok when CMD exits 0, else its output's tail
	local label=$1
	shift
	if "$@" >"$log" 2>&1; then ok "$label"; else notok "$label (exit $?)"; tail -n 25 "$log" | sed 's/^/#   /'; fi
}
as() {	# as USER CMD...: CMD in a login environment of USER
	local u=$1
	shift
	runuser -l "$u" -c "$*"
}
pkgs=$(cd $P && ls ./*.deb | sed 's|^\./||; s|_.*||' | tr '\n' ' ')
echo "# pkgvm: $K, packages: $pkgs"

# The overlay's upper and lower directories must be there to judge by.
if ! mountpoint -q /run/upper || ! mountpoint -q /run/lower; then
	notok "the overlay's upper and lower directories are not bound at /run/upper, /run/lower"
	echo "pkgvm: $pass passed, $fail failed"
	exit 1
fi
# man-db's trigger would index every manual page of the system under TCG
# (minutes); a site's machine does it once, the manual pages work without.
rm -f /var/lib/man-db/auto-update
# A machine running one kernel: dkms builds for it (and for the newest
# kernel with headers, which under TCG would double the minutes).
for d in /lib/modules/*/build; do
	case $d in /lib/modules/"$K"/build) ;; *) rm -f "$d" ;; esac
done
# snapshot NAME: what the overlay's upper directory holds now.
snapshot() { (cd /run/upper && find . | sort) >"/run/snap.$1"; }
# leftovers NAME: what is new in the upper directory since snapshot NAME,
# one line each: a file or link left, a lower file taken away (a whiteout),
# one rewritten that differs (content, link target, mode or owner), a
# directory the system did not have.  The system's own records of what
# happened (dpkg's database and log but its diversions and statoverrides,
# caches, the account files) are not.
leftovers() {
	local e u l
	snapshot now
	comm -13 "/run/snap.$1" /run/snap.now | grep -vE \
		'^\./(var/lib/dpkg/(status|available|info/|triggers/|alternatives/|lock|.*-old$)|var/log/|var/cache/|var/lib/dkms$|etc/(passwd|group|shadow|gshadow|subuid|subgid)-?$|etc/ld\.so\.cache$|etc/\.pwd\.lock$)' |
		while read -r e; do
			u=/run/upper/$e
			l=/run/lower/$e
			if [ -c "$u" ] && [ ! -L "$u" ]; then
				echo "${e#.} (deleted)"
			elif [ -L "$u" ] && [ -L "$l" ]; then
				[ "$(readlink "$u")" = "$(readlink "$l")" ] || echo "${e#.} (link changed)"
			elif [ -f "$u" ] && [ ! -L "$u" ] && [ -f "$l" ] && [ ! -L "$l" ]; then
				# rewritten (depmod's indexes): left only if it differs
				cmp -s "$u" "$l" && [ "$(stat -c %f.%u.%g "$u")" = "$(stat -c %f.%u.%g "$l")" ] ||
					echo "${e#.} (changed)"
			elif [ ! -d "$u" ] || [ -L "$u" ] || [ ! -d "$l" ] || [ -L "$l" ]; then
				echo "${e#.}"
			fi
		done
}
# free PATH NAME: PATH is absent or the alternative NAME's link (as
# libpgas-shmem-dev's postinst decides whether to register oshcc).
free() {
	{ [ ! -e "$1" ] && [ ! -L "$1" ]; } || [ "$(readlink "$1")" = "/etc/alternatives/$2" ]
}
m=/usr/share/man/man1
all_free() {
	free /usr/bin/oshcc oshcc && free /usr/bin/oshc++ oshc++ && free /usr/bin/oshrun oshrun &&
		free $m/oshcc.1.gz oshcc.1.gz && free $m/oshc++.1.gz oshc++.1.gz &&
		free $m/oshrun.1.gz oshrun.1.gz
}
snapshot before
omp=$(readlink /usr/bin/oshcc)	# Open MPI's, where installed
all_free && osh_free=1 || osh_free=

step "dpkg -i: the packages install (pgas-dkms builds pgas.ko for $K)" dpkg -i $P/*.deb
grep -E '^(Building|Installing|Running|depmod|DKMS)' "$log" | head -n 8 | sed 's/^/#   /'
step "dkms status: pgas installed for $K" sh -c "dkms status pgas -k $K | grep -E 'installed'"
step "the group pgas exists (pgas-dkms's postinst)" getent group pgas
step "its members may pin: /etc/security/limits.d/pgas.conf" grep -q "^@pgas.*memlock" /etc/security/limits.d/pgas.conf
mod=$(find "/lib/modules/$K/updates" -name 'pgas.ko*' | head -n 1)
step "pgas.ko for $K under /lib/modules/$K/updates, vermagic $K" \
	sh -c "test -n '$mod' && modinfo -F vermagic '$mod' | grep -q '^$K '"

# As at boot: udevd, then systemd-modules-load reads modules-load.d.
mkdir -p /run/udev
step "systemd-udevd starts" /lib/systemd/systemd-udevd --daemon
step "systemd-modules-load loads pgas (modules-load.d/pgas.conf)" \
	sh -c '/lib/systemd/systemd-modules-load && test -d /sys/module/pgas'
udevadm settle -t 60
step "udev: /dev/pgas0 is root:pgas 0660 (60-pgas.rules)" \
	sh -c 'test "$(stat -c "%U:%G %a" /dev/pgas0)" = "root:pgas 660"'

useradd -m -s /bin/bash -G pgas alice
useradd -m -s /bin/bash bob
cp $P/demo.c $P/rma.c $P/stap.h /home/alice/ && chown alice: /home/alice/*
cp $P/demo.c /home/bob/ && chown bob: /home/bob/demo.c
step "alice's memlock limit comes from it (pam_limits)" sh -c 'test "$(runuser -l alice -c "ulimit -l")" = unlimited'
step "alice builds against the installed libpgas-dev (pkg-config pgas)" \
	as alice 'cc -std=c11 -Wall -Werror -o demo demo.c $(pkg-config --cflags --libs pgas)'
step "alice (group pgas) runs a job over pgas.ko: PGAS_CONDUIT=kmod pgasrun -n 2" \
	as alice 'PGAS_CONDUIT=kmod pgasrun -n 2 -t 300 ./demo | grep -q "rank 1/2: ping 101 -> pong 202"'
step "after the job pgas.ko holds no reference (refcnt 0)" \
	sh -c 'test "$(cat /sys/module/pgas/refcnt)" = 0'
step "alice builds an OpenSHMEM program with the installed oshcc.pgas" \
	as alice 'oshcc.pgas -o rma rma.c'
step "alice runs it with oshrun.pgas -n 2 over pgas.ko (shmem/rma, every case ok)" \
	as alice 'PGAS_CONDUIT=kmod oshrun.pgas -n 2 ./rma >out 2>&1; rc=$?; cat out; test $rc = 0 && grep -qx "1\.\.6" out && ! grep -q "^not ok" out'
step "oshcc links libshmem.so.0 from the package" \
	as alice 'ldd ./rma | grep -E "lib(shmem|pgas)"; ldd ./rma | grep -qE "libshmem.so.0 => (/usr)?/lib/x86_64-linux-gnu/libshmem.so.0"'
step "bob builds the same program" \
	as bob 'cc -std=c11 -o demo demo.c $(pkg-config --cflags --libs pgas)'
step "bob (not in group pgas) is refused /dev/pgas0, with a message naming it" \
	as bob 'PGAS_CONDUIT=kmod pgasrun -n 2 -t 300 ./demo >out 2>&1; rc=$?; cat out; test $rc != 0 && grep -q "/dev/pgas0" out && grep -qi "permission denied" out'
step "bob's job runs over shared memory instead (PGAS_CONDUIT=auto)" \
	as bob 'pgasrun -n 2 -t 300 ./demo | grep -q "rank 1/2: ping 101 -> pong 202"'
if [ -z "$osh_free" ]; then
	step "beside another oshcc (Open MPI's) no alternative is registered, its files stay" sh -c \
		"! update-alternatives --list oshcc 2>/dev/null | grep -q pgas && test '$(readlink /usr/bin/oshcc)' = '$omp'"
else
	step "oshcc is registered as an alternative (update-alternatives)" \
		sh -c 'update-alternatives --list oshcc | grep -qx /usr/bin/oshcc.pgas'
fi
step "man 3 pgas_put, man 1 pgasrun, man 7 libpgas, man 4 pgas, man 8 pgasctl" \
	sh -c 'for p in "3 pgas_put" "1 pgasrun" "7 libpgas" "4 pgas" "8 pgasctl" "1 oshrun.pgas" "1 oshcc.pgas"; do
		MANPAGER=cat MANWIDTH=80 man $p 2>&1 | grep -q "^NAME" || { echo "man $p"; exit 1; }; done'
step "man oshrun: the alternative's page, or the one of an oshrun that is a plain file (Open MPI's)" \
	sh -c 'MANPAGER=cat man 1 oshrun | grep -q "^NAME"'

# Remove: users, module, packages (purge).
userdel -r alice 2>/dev/null
userdel -r bob 2>/dev/null
pkill -x systemd-udevd
step "rmmod pgas" rmmod pgas
step "dpkg --purge: the packages go" dpkg --purge $pkgs
step "nothing of pgas in dkms, /usr/src or /lib/modules" sh -c \
	'! dkms status pgas | grep -q . && ! ls -d /usr/src/pgas-* 2>/dev/null && test -z "$(find /lib/modules -name "pgas.ko*")"'
step "the group pgas goes on purge" sh -c '! getent group pgas'
step "no alternative oshcc is left" sh -c '! update-alternatives --list oshcc 2>/dev/null | grep -q pgas'
left=$(leftovers before)
if [ -z "$left" ]; then
	ok "purge leaves nothing behind and takes nothing away (only dpkg's records, logs and caches)"
else
	notok "after purge: $(echo "$left" | head -n 15 | tr '\n' ' ')"
fi
step "Open MPI's oshcc is as it was ($omp)" sh -c "test '$(readlink /usr/bin/oshcc)' = '$omp'"

# Where no other OpenSHMEM is installed (Open MPI's names taken away here),
# libpgas-shmem-dev makes oshcc, oshc++, oshrun and their pages ours.
rm -f /usr/bin/oshcc /usr/bin/oshc++ /usr/bin/oshrun /usr/share/man/man1/osh{cc,c++,run}.1.gz
snapshot alone
step "dpkg -i without Open MPI's names: libpgas-shmem-dev and what it needs" \
	dpkg -i $P/libpgas0_*.deb $P/libpgas-dev_*.deb $P/pgas-tools_*.deb $P/libpgas-shmem0_*.deb \
	$P/libpgas-shmem-dev_*.deb
step "oshcc, oshc++, oshrun are the alternative oshcc's, pointing at ours" sh -c \
	'for t in oshcc oshc++ oshrun; do test "$(readlink -f /usr/bin/$t)" = /usr/bin/$t.pgas || exit 1; done'
step "man oshrun is ours" sh -c 'MANPAGER=cat MANWIDTH=80 man 1 oshrun | grep -q "pgasrun"'
step "oshcc builds and oshrun runs shmem/rma (shared memory, 2 PEs)" sh -c \
	'cd /tmp && cp $P/rma.c $P/stap.h . && oshcc -o rma rma.c && oshrun -n 2 ./rma >out && grep -qx "1\.\.6" out && ! grep -q "^not ok" out'
# Then another implementation installed over the alternative's links (as
# openmpi-bin's unpacking does: no package owns them): purge keeps its.
ln -sfn opal_wrapper /usr/bin/oshcc
ln -sfn opal_wrapper /usr/bin/oshc++
ln -sfn mpirun.openmpi /usr/bin/oshrun
step "dpkg --purge takes them away again" dpkg --purge libpgas-shmem-dev libpgas-shmem0 pgas-tools libpgas-dev libpgas0
step "links another oshcc put over the alternative's after it stay through purge" sh -c \
	'test "$(readlink /usr/bin/oshcc)" = opal_wrapper && test "$(readlink /usr/bin/oshc++)" = opal_wrapper && test "$(readlink /usr/bin/oshrun)" = mpirun.openmpi'
rm -f /usr/bin/oshcc /usr/bin/oshc++ /usr/bin/oshrun
left=$(leftovers alone)
if [ -z "$left" ]; then
	ok "purge leaves no link of the alternative behind"
else
	notok "after purge: $(echo "$left" | head -n 15 | tr '\n' ' ')"
fi
echo "pkgvm: $pass passed, $fail failed"
