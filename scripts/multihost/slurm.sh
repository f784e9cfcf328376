#!/bin/bash
# slurm.sh - a Slurm cluster of the namespace bed's hosts, for srun --mpi=pmix
# (docs/testing.md, "Slurm in the bed").
#
#   slurm.sh up DIR [N]     slurmctld on h1, a slurmd on each of h1..hN
#                           (default 2; the bed must be up with N hosts),
#                           every file under DIR (config, state, spool,
#                           pid files, logs) but the PMIx server's (TmpFS:
#                           each host's own /dev/shm); waits until the N
#                           nodes are idle
#   slurm.sh down DIR       ends the daemons that `up` started (bounded)
#   slurm.sh run DIR CMD... CMD on h1 with SLURM_CONF naming this cluster
#                           (srun, salloc, sinfo, oshrun ...)
#
# Nothing of the system's is used or changed: no /etc/slurm, no munge
# (AuthType=auth/none and CredType=cred/none, which Slurm 22.05 still
# has), no systemd unit.  The daemons run as root inside the bed's
# namespaces (each slurmd with its host's hostname as NodeName and the
# bed's address as NodeAddr); their ports are the bed's, never the root
# namespace's.  bed.sh down ends whatever is left in the bed.
set -u
SELF=$(readlink -f "$0")
BED=$(dirname "$SELF")/bed.sh
BED_NET=${BED_NET:-10.222.0}

die() { echo "slurm.sh: $*" >&2; exit 1; }

conf() {
	local dir=$1 n=$2 k nodes=
	for k in $(seq 1 "$n"); do nodes=${nodes:+$nodes,}h$k; done
	cat <<-EOF
	ClusterName=pgasbed
	SlurmctldHost=h1($BED_NET.1)
	SlurmUser=root
	SlurmdUser=root
	AuthType=auth/none
	CredType=cred/none
	SlurmctldPort=6817
	SlurmdPort=6818
	StateSaveLocation=$dir/ctld
	SlurmdSpoolDir=$dir/%n
	SlurmctldPidFile=$dir/slurmctld.pid
	SlurmdPidFile=$dir/%n/slurmd.pid
	SlurmctldLogFile=$dir/slurmctld.log
	SlurmdLogFile=$dir/%n/slurmd.log
	TmpFS=/dev/shm
	ProctrackType=proctrack/pgid
	TaskPlugin=task/none
	JobAcctGatherType=jobacct_gather/none
	AccountingStorageType=accounting_storage/none
	JobCompType=jobcomp/none
	SwitchType=switch/none
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core
	SlurmdParameters=config_overrides
	ReturnToService=2
	MpiDefault=none
	MailProg=/bin/true
	SlurmctldTimeout=10
	SlurmdTimeout=10
	MessageTimeout=5
	InactiveLimit=0
	KillWait=2
	EOF
	for k in $(seq 1 "$n"); do
		echo "NodeName=h$k NodeAddr=$BED_NET.$k CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN"
	done
	echo "PartitionName=bed Nodes=$nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
}

up() {
	local dir=$1 n=${2:-2} k idle
	for t in slurmctld slurmd srun sinfo; do
		command -v $t >/dev/null || die "needs $t (slurmctld, slurmd, slurm-client)"
	done
	[ -d "$dir" ] || die "no directory $dir"
	mkdir -p "$dir/ctld" || die "cannot create $dir/ctld"
	for k in $(seq 1 "$n"); do mkdir -p "$dir/h$k" || die "cannot create $dir/h$k"; done
	conf "$dir" "$n" >"$dir/slurm.conf"
	# slurmd 22.05 initializes a cgroup plugin whatever ProctrackType and
	# TaskPlugin say; autodetect fails on a tmpfs /sys/fs/cgroup holding
	# v1 hierarchies without a "systemd" one (this machine's): name v1.
	# It reads cgroup.conf beside slurm.conf.
	printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\n' >"$dir/cgroup.conf"
	export SLURM_CONF=$dir/slurm.conf
	# -D: in the foreground of a process of ours (nsenter execs: its pid
	# is the daemon's).
	setsid "$BED" exec h1 slurmctld -D -f "$SLURM_CONF" </dev/null >"$dir/slurmctld.out" 2>&1 &
	echo $! >"$dir/slurmctld.launcher"
	for k in $(seq 1 "$n"); do
		setsid "$BED" exec "h$k" slurmd -D -N "h$k" -f "$SLURM_CONF" </dev/null \
			>"$dir/h$k/slurmd.out" 2>&1 &
		echo $! >"$dir/h$k/slurmd.launcher"
	done
	# Bounded: 15 s for the controller to answer and the nodes to register.
	for _ in $(seq 1 150); do
		idle=$("$BED" exec h1 sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle$')
		[ "$idle" = "$n" ] && return 0
		sleep 0.1
	done
	echo "slurm.sh: $idle of $n nodes idle after 15 s:" >&2
	"$BED" exec h1 sinfo -N 2>&1 | sed 's/^/    /' >&2
	tail -n 5 "$dir/slurmctld.log" "$dir"/h*/slurmd.log "$dir/slurmctld.out" 2>/dev/null | sed 's/^/    /' >&2
	return 1
}

# The daemons' pids: those of the pid files (the daemons write them) and
# the nsenter launchers (which exec the daemons: the same pids).
down() {
	local dir=$1 pids= f p
	[ -d "$dir" ] || return 0
	for f in "$dir"/slurmctld.pid "$dir"/slurmctld.launcher "$dir"/h*/slurmd.pid "$dir"/h*/slurmd.launcher; do
		p=$(cat "$f" 2>/dev/null) || continue
		case $p in ''|*[!0-9]*) continue ;; esac
		kill -0 "$p" 2>/dev/null && pids="$pids $p"
	done
	[ -n "$pids" ] || return 0
	for sig in TERM KILL; do
		# shellcheck disable=SC2086
		kill -s $sig $pids 2>/dev/null
		for _ in $(seq 1 40); do
			local alive=
			for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
			[ -z "$alive" ] && return 0
			sleep 0.05
		done
	done
	return 0
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
up) [ $# -ge 1 ] || die "up DIR [N]"; up "$@" ;;
down) [ $# -ge 1 ] || die "down DIR"; down "$1" ;;
run)
	[ $# -ge 2 ] || die "run DIR CMD..."
	dir=$1
	shift
	SLURM_CONF=$dir/slurm.conf exec "$BED" exec h1 "$@" ;;
*) sed -n '2,/^$/s/^# \{0,1\}//p' "$SELF" >&2; exit 2 ;;
esac
