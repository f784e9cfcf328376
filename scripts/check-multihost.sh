#!/bin/bash
# Multi-host tier (make check-multihost; a tier of make check):
#
#   scripts/check-multihost.sh [BUILD_DIR]     (default: build)
#
# 0. Launchers without PMIx: a task of srun without --mpi=pmix, of a PMI
#    launcher (the variables alone; MPICH's mpiexec where installed) is
#    refused, naming srun --mpi=pmix; a batch script's or one task's runs.
# 1. PMIx boot on one host: jobs started by Open MPI's mpirun (a PMIx
#    launcher) instead of pgasrun: the boot layer's own test
#    (boot_allgather), the demo, am/rma/barrier/coll over the shm conduit,
#    pgas_global_exit, a rank that ends without finalizing, ranks
#    configured apart, PGAS_VERBOSEENV's boot line.
# 2. The namespace bed (scripts/multihost/bed.sh, root only): 3 "hosts"
#    (network + UTS + mount + IPC namespaces, a bridge in a namespace of its
#    own), mpirun across 2 and 3 of them through bed.sh's agent, libfabric's
#    tcp provider between two (fi_pingpong), the boot layer across hosts,
#    a libpgas job across hosts (shm refuses it, naming ofi; the ofi
#    conduit over libfabric's tcp provider runs the demo and the am, rma,
#    atomics, barrier, coll, signal, remote, ctl_remote, region and
#    shmem/rma tests across
#    h1:1,h2:1 and h1:2,h2:1, the whole OpenSHMEM suite, errors, threads
#    and threads_eps across h1:2,h2:1,h3:1; a rank SIGKILLed on h2 ends the job; with
#    mpirun --enable-recovery, a rank SIGKILLed on h2 and h2's link taken
#    down end h1's waits with PGAS_ERR_GONE naming the lost rank); Slurm
#    in the bed (scripts/multihost/slurm.sh: slurmctld on h1, slurmd on h1
#    and h2, its own config in a temporary directory): srun --mpi=pmix of
#    boot_allgather (block, cyclic), the demo (auto: ofi; one host:
#    mapped), srun without --mpi=pmix refused, am, barrier, hier (cyclic),
#    oshrun --launcher=srun shmem/rma, oshrun inside salloc,
#    global_exit, a rank SIGKILLed on h2 (srun -K; without -K the ofi
#    liveness), the daemons down; then the bed down and nothing left: no
#    namespace, no process, the root namespace's links as before.
# Each part is skipped with a "# SKIP" line naming what is missing
# (scripts/deps.sh multihost installs it).  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
B=$(cd "${1:-build}" && pwd) || exit 1
BED=scripts/multihost/bed.sh
TLIMIT=${BED_TIMEOUT:-60}
pass=0
fail=0
log=$(mktemp)
export BED_NAME=${BED_NAME:-pgasbed$$}
export BED_STATE=/run/$BED_NAME
bed_up=
slurm_dir=
cleanup() {
	[ -n "$slurm_dir" ] && scripts/multihost/slurm.sh down "$slurm_dir" && rm -rf "$slurm_dir"
	[ -n "$bed_up" ] && "$BED" down
	rm -f "$log" "$log.err"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export PGAS_ERROR_MODE=quiet
# An ASan build: libpmix's own allocations that it never frees (5 bytes in
# pmix_rte_init and value_load, measured) are not libpgas's leaks.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/multihost/lsan.supp}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="timeout $TLIMIT mpirun --oversubscribe"

. scripts/tap.sh

# deadwait_check LABEL CMD...: CMD runs "lifecycle deadwait 2 WAIT" with
# PGAS_OFI_TIMEOUT=3 (rank 2 on h2 SIGKILLed 300 ms into h1's wait); both
# h1 ranks must name it with PGAS_ERR_GONE within 6 s, no timeout.
deadwait_check() {
	local label=$1 out rc got ms
	shift
	out=$("$@" 2>&1)
	rc=$?
	got=$(echo "$out" | grep -c "^ok - rank [01]: .*PGAS_ERR_GONE naming rank 2")
	ms=$(echo "$out" | sed -n 's/^# rank 0: waited \([0-9]*\) ms.*/\1/p')
	if [ $rc -ne 124 ] && [ "$got" -eq 2 ] && [ "${ms:-99999}" -lt 6000 ]; then
		ok "$label: PGAS_ERR_GONE naming it after ${ms} ms (PGAS_OFI_TIMEOUT=3, it died 300 ms in)"
	else
		notok "$label: exit $rc, $got of 2 ranks named it, ${ms:-no} ms"
		echo "$out" | grep -v "PMIX ERROR" | tail -n 6 | sed 's/^/    # /'
	fi
}

# ---- 0. Launchers without PMIx ------------------------------------------------
# A task of srun without --mpi=pmix, or of a PMI-1/PMI-2 launcher, would
# run as a job of one rank and end with 0: refused, naming srun --mpi=pmix.
# A batch script's environment (SLURM_PROCID, SLURM_NTASKS and no step) or
# a one-task step runs as one rank.  No launcher needed: the variables.
for e in "SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2|srun --mpi=pmix" \
	 "PMI_RANK=1 PMI_SIZE=2|PMI_RANK, PMI_SIZE; no PMIX_RANK"; do
	vars=${e%%|*}
	out=$(env $vars PGAS_ERROR_MODE=print timeout 20 "$B/examples/demo" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$out" | grep -q "pgas_init: .*${e#*|}" &&
		ok "a task started with $vars and no PMIx: refused, naming '${e#*|}'" || {
		notok "$vars, no PMIx: exit $rc"
		echo "$out" | tail -n 3 | sed 's/^/    # /'
	}
done
for vars in "SLURM_PROCID=0 SLURM_NTASKS=4" "SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1" "PMI_RANK=0 PMI_SIZE=1"; do
	env $vars timeout 20 "$B/examples/demo" 2>&1 | grep -q "over the job = 1," &&
		ok "$vars: one rank" || notok "$vars: not a job of one rank"
done
if command -v mpiexec.mpich >/dev/null; then
	n=$(PGAS_ERROR_MODE=print timeout 20 mpiexec.mpich -n 2 "$B/examples/demo" 2>&1 |
		grep -c "pgas_init: a PMI-1/PMI-2 launcher .* as rank [01] of 2")
	[ "$n" = 2 ] && ok "mpiexec.mpich -n 2 demo (PMI, no PMIx): both ranks refused" ||
		notok "mpiexec.mpich -n 2 demo: $n of 2 refusals"
fi

# ---- 1. PMIx boot on one host --------------------------------------------------

pmix_missing=
command -v mpirun >/dev/null || pmix_missing="mpirun (openmpi-bin)"
pkg-config --exists pmix 2>/dev/null || pmix_missing="$pmix_missing pmix (libpmix-dev)"
if [ -z "$pmix_missing" ] &&
   ! PGAS_VERBOSEENV=1 "$B/examples/demo" 2>&1 | grep -q "PMIx support built"; then
	pmix_missing="a libpgas built with PMIx (rebuild: make all)"
fi
if [ -n "$pmix_missing" ]; then
	skip "PMIx boot: missing $pmix_missing (scripts/deps.sh multihost)"
else
	# Layers (as check-native's): the PMIx boot calls nothing above boot.
	# pgas_fast.h's ABI marker (a data reference in every object that
	# includes pgas.h) is no call.
	o=$B/obj
	if [ -f "$o/libpgas/boot/pmix.o" ]; then
		c=$(comm -12 <(nm -u "$o/libpgas/boot/pmix.o" | awk '{ print $2 }' | sort -u) \
			<(nm -g --defined-only "$o"/libpgas/core/*.o "$o"/libpgas/coll/*.o "$o"/conduit/*.o \
				"$o"/conduit/*/*.o | awk 'NF == 3 { print $3 }' | sort -u) |
			grep -v '^pgas__fast_abi_' | tr '\n' ' ')
		[ -z "$c" ] && ok "layers: nothing in boot/pmix.o calls core, collectives or conduits" ||
			notok "layers: boot/pmix.o calls $c"
	fi
	n=$($MPIRUN -n 2 sh -c 'env | grep -c "^PMIX_RANK=\|^PMIX_NAMESPACE="' 2>&1 | awk "{s += \$1} END {print s}")
	[ "$n" = 4 ] && ok "mpirun serves PMIx to a non-MPI program (PMIX_RANK, PMIX_NAMESPACE)" ||
		notok "mpirun -n 2 sh: $n of 4 PMIx variables"
	for n in 1 2 4; do
		run_tap "boot_allgather -n $n under pgasrun" "$B/bin/pgasrun" -n $n -t "$TLIMIT" \
			"$B/tests/boot_allgather"
	done
	for n in 1 2 4; do
		run_tap "boot_allgather -n $n under mpirun (PMIx)" $MPIRUN -n $n "$B/tests/boot_allgather"
	done
	for n in 2 3 4; do
		out=$($MPIRUN -n $n "$B/examples/demo" 2>&1)
		rc=$?
		got=$(echo "$out" | grep -c "sum of rank+1 over the job = $((n * (n + 1) / 2)),")
		if [ $rc -eq 0 ] && [ "$got" -eq $n ]; then
			ok "mpirun -n $n demo over shm booted by PMIx"
		else
			notok "mpirun -n $n demo: exit $rc, $got of $n sums"
			echo "$out" | tail -n 8 | sed 's/^/    # /'
		fi
	done
	for t in am rma barrier coll; do
		for n in 2 3 4; do
			run_tap "$t -n $n under mpirun (PMIx)" $MPIRUN -n $n "$B/tests/$t"
		done
	done
	run_tap "shmem/rma -n 3 under mpirun (PMIx)" $MPIRUN -n 3 "$B/tests/shmem/rma"
	# NAS FT over MPI (apps/ft/comm_mpi.c: preposted receives, MPI_Isend,
	# MPI_Alltoall) on one host, as libpgas's in check-native.
	if [ -x "$B/apps/ft-mpi" ]; then
		for n in 1 2 4; do
			for v in exchange slabs pencils; do
				run_app "ft-mpi --class S --variant $v -n $n (Open MPI)" \
					$MPIRUN -n $n "$B/apps/ft-mpi" --class S --variant $v
			done
		done
	else
		notok "NAS FT over MPI not built: FFTW or mpicc missing (scripts/deps.sh test, multihost)"
	fi
	for n in 1 3 4; do
		for p in stencil isort; do
			[ -x "$B/apps/$p-mpi" ] &&
				run_app "$p-mpi -n $n (Open MPI)" $MPIRUN -n $n "$B/apps/$p-mpi"
		done
	done
	run_tap "oshrun --launcher=mpirun -np 2 shmem/amo" \
		env OSHRUN_MPIRUN="$MPIRUN" "$B/bin/oshrun" --launcher=mpirun -np 2 "$B/tests/shmem/amo"
	$MPIRUN -n 3 "$B/tests/global_exit" -c 5 -w barrier >/dev/null 2>&1
	rc=$?
	[ $rc -eq 5 ] && ok "global_exit -c 5 under mpirun: PMIx_Abort ends the job with 5" ||
		notok "global_exit -c 5 under mpirun: exit $rc"
	out=$($MPIRUN -n 3 "$B/tests/lifecycle" barrier _exit0 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$out" | grep -q "exiting improperly"; then
		ok "a rank that _exits 0 without finalizing: mpirun reports it (exit $rc)"
	else
		notok "lifecycle barrier _exit0 under mpirun: exit $rc"
		echo "$out" | tail -n 6 | sed 's/^/    # /'
	fi
	out=$(PGAS_ERROR_MODE=print $MPIRUN -n 2 -x PGAS_ERROR_MODE \
		sh -c '[ "$PMIX_RANK" = 1 ] && export PGAS_MBOX_SLOTS=64; exec "$0"' "$B/examples/demo" 2>&1)
	rc=$?
	got=$(echo "$out" | grep -c "PGAS_MBOX_SLOTS differs: rank 0 has 256, rank 1 has 64")
	# One refusal at least: mpirun may end the other rank before it prints
	# its own (each names both values; seen 1 of 2 in a run).
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$got" -ge 1 ] &&
		ok "PGAS_MBOX_SLOTS on rank 1 only: refused, agreed over PMIx ($got of 2 printed)" ||
		notok "ranks configured apart under mpirun: exit $rc, $got of 2 refusals"
	PGAS_VERBOSEENV=1 $MPIRUN -n 2 -x PGAS_VERBOSEENV "$B/examples/demo" 2>&1 |
		grep -q "boot: pmix (.*rank 0 of 2, 2 on this host" &&
		ok "PGAS_VERBOSEENV names the PMIx boot" || notok "PGAS_VERBOSEENV: no PMIx boot line"
	# pgas.ko under mpirun (docs/ofi.md, "pgas.ko under mpirun"): the host's
	# leader makes the job; where it cannot (no device here), every rank
	# fails with its message, and auto takes shm.  The VM tier runs the job
	# over pgas.ko (scripts/vm/mpirun.sh).
	out=$(PGAS_ERROR_MODE=print $MPIRUN -n 3 -x PGAS_ERROR_MODE -x PGAS_CONDUIT=kmod \
		-x PGAS_DEVICE=/nonexistent/pgas0 "$B/examples/demo" 2>&1)
	rc=$?
	got=$(echo "$out" | grep -c "kmod conduit: /nonexistent/pgas0: No such file or directory (creating the job on rank 0, this host's leader)")
	# mpirun may end a rank before it prints (as above): 1 at least.
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$got" -ge 1 ] &&
		ok "PGAS_CONDUIT=kmod under mpirun, no device: refused with the host leader's error ($got of 3 printed)" ||
		notok "PGAS_CONDUIT=kmod under mpirun without a device: exit $rc, $got of 3 refusals"
	# auto: kmod's probe says no without the device (kmod would fail
	# here, as above), ofi's on one host: the job runs, over shm.
	out=$($MPIRUN -n 2 -x PGAS_DEVICE=/nonexistent/pgas0 "$B/examples/demo" 2>&1)
	[ "$(echo "$out" | grep -c "sum of rank+1 over the job = 3,")" = 2 ] &&
		ok "mpirun -n 2, auto without pgas.ko's device: runs (shm)" ||
		notok "mpirun -n 2, auto without pgas.ko's device: $(echo "$out" | tail -n 1)"
fi

# ---- 2. The namespace bed ----------------------------------------------------

bed_missing=
[ "$(id -u)" = 0 ] || bed_missing="root"
for t in ip nsenter unshare; do
	command -v $t >/dev/null || bed_missing="$bed_missing $t"
done
[ -n "$pmix_missing" ] && bed_missing="$bed_missing${bed_missing:+,} $pmix_missing"
if [ -z "$bed_missing" ] && ! ip netns add "$BED_NAME-probe" 2>/dev/null; then
	bed_missing="network namespaces (ip netns add failed)"
else
	ip netns del "$BED_NAME-probe" 2>/dev/null
fi
if [ -n "$bed_missing" ]; then
	skip "namespace bed: missing $bed_missing (scripts/deps.sh multihost)"
else
	links_before=$(ip -o link | awk -F': ' '{print $2}' | sort)
	addrs_before=$(ip -o addr | awk '{print $2, $4}' | sort)
	if bed_up=1 && timeout 60 "$BED" up 3; then
		ok "bed up: 3 hosts"
	else
		notok "bed up 3 failed"
	fi
	[ "$(ip -o link | awk -F': ' '{print $2}' | sort)" = "$links_before" ] &&
	[ "$(ip -o addr | awk '{print $2, $4}' | sort)" = "$addrs_before" ] &&
		ok "the root namespace has no new link or address while the bed is up" ||
		notok "the bed added links or addresses to the root namespace"
	names=$(for h in h1 h2 h3; do timeout 10 "$BED" exec $h hostname; done | paste -sd' ')
	[ "$names" = "h1 h2 h3" ] && ok "each host has its own hostname" ||
		notok "hostnames: '$names'"
	shm=$(for h in h1 h2 h3; do timeout 10 "$BED" exec $h stat -c %d /dev/shm; done | sort -u | wc -l)
	[ "$shm" = 3 ] && [ "$(stat -c %d /dev/shm)" != "$(timeout 10 "$BED" exec h1 stat -c %d /dev/shm)" ] &&
		ok "each host has its own /dev/shm" || notok "/dev/shm shared between hosts"
	for hosts in h1,h2 h1,h2,h3; do
		n=$(echo "$hosts" | tr ',' '\n' | wc -l)
		got=$(timeout $TLIMIT "$BED" run-mpirun --host $hosts -n $n hostname 2>&1 | sort | paste -sd,)
		[ "$got" = "$hosts" ] && ok "mpirun --host $hosts hostname through the bed's agent" ||
			notok "mpirun --host $hosts hostname: '$got'"
	done
	if ! command -v fi_pingpong >/dev/null; then
		skip "fi_pingpong: missing libfabric-bin"
	else
		timeout 30 "$BED" exec h1 env FI_TCP_IFACE=bed0 fi_pingpong -p tcp -e rdm -I 50 -S 4096 \
			>"$log.srv" 2>&1 &
		srv=$!
		rc=1
		for _ in $(seq 1 20); do	# the server may not listen yet
			sleep 0.25
			timeout 30 "$BED" exec h2 env FI_TCP_IFACE=bed0 fi_pingpong -p tcp -e rdm -I 50 \
				-S 4096 "${BED_NET:-10.222.0}.1" >"$log" 2>&1 && { rc=0; break; }
			grep -q -i "refused" "$log" || break
		done
		wait $srv
		src=$?
		if [ $rc -eq 0 ] && [ $src -eq 0 ] && grep -q "^4k" "$log"; then
			ok "fi_pingpong -p tcp (FI_TCP_IFACE=bed0) h2 -> h1: $(grep '^4k' "$log" | awk '{print $7 " us/xfer"}')"
		else
			notok "fi_pingpong h2 -> h1: client $rc, server $src"
			cat "$log" "$log.srv" | tail -n 6 | sed 's/^/    # /'
		fi
		rm -f "$log.srv"
	fi
	run_tap "boot_allgather across h1:2,h2:2 (PMIx, per-host descriptor sockets)" \
		timeout $TLIMIT "$BED" run-mpirun --host h1:2,h2:2 -n 4 "$B/tests/boot_allgather"
	run_tap "boot_allgather across h1:2,h2:1,h3:1" \
		timeout $TLIMIT "$BED" run-mpirun --host h1:2,h2:1,h3:1 -n 4 "$B/tests/boot_allgather"
	# pgas_init's agreement across hosts: rank 1 (on h2) configured apart.
	out=$(PGAS_ERROR_MODE=print timeout $TLIMIT "$BED" run-mpirun --host h1,h2 -n 2 -x PGAS_ERROR_MODE \
		sh -c '[ "$PMIX_RANK" = 1 ] && export PGAS_MBOX_SLOTS=64; exec "$0"' "$B/examples/demo" 2>&1)
	rc=$?
	got=$(echo "$out" | grep -c "PGAS_MBOX_SLOTS differs: rank 0 has 256, rank 1 has 64")
	# Each message names both ranks' values (the exchange across hosts);
	# mpirun may end the second rank before it prints its own (seen once
	# the bed stopped binding every host's rank to core 0).
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$got" -ge 1 ] &&
		ok "PGAS_MBOX_SLOTS on h2's rank only: refused, naming both hosts' values (agreement over PMIx)" ||
		notok "ranks configured apart across hosts: exit $rc, $got of 2 refusals"
	# A libpgas job across hosts over the shm conduit: refused, naming ofi.
	out=$(PGAS_ERROR_MODE=print PGAS_CONDUIT=shm timeout $TLIMIT "$BED" run-mpirun \
		--host h1,h2 -n 2 -x PGAS_ERROR_MODE -x PGAS_CONDUIT "$B/examples/demo" 2>&1)
	rc=$?
	got=$(echo "$out" | grep -c "pgas_init: shm conduit: rank [01] runs on another host.*PGAS_CONDUIT=ofi")
	# Both ranks refuse; mpirun may end the second before it prints.
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$got" -ge 1 ] &&
		! echo "$out" | grep -q "Bad file descriptor" &&
		ok "demo across h1,h2 over shm: refused, naming PGAS_CONDUIT=ofi (exit $rc)" || {
		notok "demo across h1,h2 over shm: exit $rc, $got refusals naming ofi"
		echo "$out" | tail -n 6 | sed 's/^/    # /'
	}
	# ... and over the ofi conduit: libfabric's tcp provider on the bed's
	# links, the ranks of another host remote (proxy rings, no mapping),
	# those of the own host mapped.
	if ! "$B/bin/pgasrun" --version | grep -q '^conduits:.* ofi'; then
		skip "libpgas jobs across hosts: the ofi conduit is not built (libfabric-dev)"
	else
		# PGAS_CONDUIT=auto across hosts: ofi, on a provider that
		# reaches the other host (no FI_PROVIDER: not shm, not loopback).
		out=$(timeout $TLIMIT "$BED" run-mpirun --host h1:2,h2:1 -n 3 -x PGAS_VERBOSEENV=1 \
			"$B/examples/demo" 2>&1)
		rc=$?
		got=$(echo "$out" | grep -c "sum of rank+1 over the job = 6,")
		prov=$(echo "$out" | sed -n 's/^pgas: ofi conduit: provider \([^,]*\), fabric \([^,]*\),.*/\1 on \2/p')
		if [ $rc -eq 0 ] && [ "$got" -eq 3 ] && [ -n "$prov" ] &&
		   ! echo "$prov" | grep -q -e '^shm' -e ' on 127\.'; then
			ok "demo across h1:2,h2:1, PGAS_CONDUIT=auto and no FI_PROVIDER: ofi, $prov"
		else
			notok "demo across h1:2,h2:1 with auto: exit $rc, $got of 3 sums, provider '$prov'"
			echo "$out" | tail -n 8 | sed 's/^/    # /'
		fi
		# oshrun given hosts: mpirun (here the bed's), the variables of
		# PGAS_*, SHMEM_*, FI_* passed on, and auto's ofi.
		run_tap "oshrun -np 3 --host h1:2,h2:1 shmem/amo (mpirun, auto: ofi)" \
			env OSHRUN_MPIRUN="$BED run-mpirun" "$B/bin/oshrun" -np 3 -t $TLIMIT \
			--host h1:2,h2:1 "$B/tests/shmem/amo"
		OFI="-x PGAS_CONDUIT=ofi -x FI_PROVIDER=tcp -x FI_TCP_IFACE=bed0 -x PGAS_ERROR_MODE"
		for hosts in h1:1,h2:1 h1:2,h2:1; do
			n=$(echo "$hosts" | tr ',' '\n' | awk -F: '{ s += $2 } END { print s }')
			out=$(timeout $TLIMIT "$BED" run-mpirun --host $hosts -n $n $OFI \
				"$B/examples/demo" 2>&1)
			rc=$?
			got=$(echo "$out" | grep -c "sum of rank+1 over the job = $((n * (n + 1) / 2)),")
			if [ $rc -eq 0 ] && [ "$got" -eq $n ]; then
				ok "demo across $hosts (ofi, tcp)"
			else
				notok "demo across $hosts (ofi, tcp): exit $rc, $got of $n sums"
				echo "$out" | tail -n 8 | sed 's/^/    # /'
			fi
			for t in am rma atomics barrier coll remote ctl_remote region shmem/rma; do
				run_tap "$t across $hosts (ofi, tcp)" timeout $TLIMIT "$BED" run-mpirun \
					--host $hosts -n $n $OFI "$B/tests/$t"
			done
			# signal's first case expects every segment mapped and the
			# neighbourhood the whole job, or (PGAS_MAP_PEERS=none)
			# neither: across hosts it is neither, so it runs with none.
			run_tap "signal across $hosts (ofi, tcp, PGAS_MAP_PEERS=none)" timeout $TLIMIT \
				"$BED" run-mpirun --host $hosts -n $n $OFI -x PGAS_MAP_PEERS=none \
				"$B/tests/signal"
		done
		# Three hosts, two ranks on h1 (mapped to each other), one on h2
		# and h3: the whole OpenSHMEM suite (team, team_ctx, globals and
		# setup learn each PE's host, stap.h st_shared), endpoints with
		# threads, threads, errors.  threads_eps's progress case is slow
		# across hosts (one progress thread serves the fabric for threads
		# that never poll: 36 s for 20 iterations, measured), hence -i 10.
		for t in setup heap rma amo wait compat ctx lock ctx_threads team coll team_ctx \
			team_full globals fork generics; do
			run_tap "shmem/$t across h1:2,h2:1,h3:1 (ofi, tcp)" \
				timeout $TLIMIT "$BED" run-mpirun --host h1:2,h2:1,h3:1 -n 4 $OFI \
				"$B/tests/shmem/$t"
		done
		for t in errors "threads -t 2" "threads_eps -t 2 -i 10 -r 2"; do
			run_tap "$t across h1:2,h2:1,h3:1 (ofi, tcp)" timeout $TLIMIT \
				"$BED" run-mpirun --host h1:2,h2:1,h3:1 -n 4 $OFI "$B/tests/"$t
		done
		# The applications across hosts (NAS FT: class S, every variant;
		# W and A on two hosts):
		# libpgas and our OpenSHMEM over ofi (tcp), and MPI (Open MPI's
		# tcp), at 2 ranks on two hosts and 4 on three (two of them mapped
		# to each other on h1).
		for hosts in h1:1,h2:1 h1:2,h2:1,h3:1; do
			n=$(echo "$hosts" | tr ',' '\n' | awk -F: '{ s += $2 } END { print s }')
			for p in stencil stencil-shmem stencil-mpi isort isort-shmem isort-mpi; do
				[ -x "$B/apps/$p" ] || continue
				run_app "$p across $hosts" timeout $TLIMIT "$BED" run-mpirun --host $hosts \
					-n $n $OFI "$B/apps/$p"
			done
			for v in exchange slabs pencils; do
				for p in ft ft-shmem ft-mpi; do
					[ -x "$B/apps/$p" ] || continue
					run_app "$p --class S --variant $v across $hosts" timeout $TLIMIT \
						"$BED" run-mpirun --host $hosts -n $n $OFI \
						"$B/apps/$p" --class S --variant $v
				done
			done
		done
		# Classes W and A on two hosts (A: 256 MiB of symmetric heap a PE).
		for c in W A; do
			for v in exchange slabs pencils; do
				for p in ft ft-shmem ft-mpi; do
					[ -x "$B/apps/$p" ] || continue
					run_app "$p --class $c --variant $v across h1:1,h2:1" \
						timeout $((TLIMIT * 2)) "$BED" run-mpirun --host h1:1,h2:1 -n 2 $OFI \
						-x SHMEM_SYMMETRIC_SIZE=600M "$B/apps/$p" --class $c --variant $v
				done
			done
		done
		# A rank SIGKILLed on h2 while the others wait in a barrier: the
		# job ends (mpirun sees the death and ends the rest), never hangs.
		start=$(date +%s)
		out=$(timeout $TLIMIT "$BED" run-mpirun --host h1:2,h2:1 -n 3 $OFI \
			"$B/tests/lifecycle" barrier kill 2 2>&1)
		rc=$?
		took=$(($(date +%s) - start))
		if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -lt 30 ] &&
		   echo "$out" | grep -q "rank 2 with PID [0-9]* on node h2 exited on signal 9"; then
			ok "rank 2 on h2 SIGKILLed while h1's ranks wait in a barrier: the job ends (exit $rc, ${took}s)"
		else
			notok "rank 2 on h2 SIGKILLed in a barrier: exit $rc after ${took}s"
			echo "$out" | tail -n 8 | sed 's/^/    # /'
		fi
		# pgas_global_exit on h2 while h1's ranks wait in a barrier:
		# PMIx_Abort ends every host's ranks, the job with its code.
		timeout $TLIMIT "$BED" run-mpirun --host h1:2,h2:1 -n 3 $OFI "$B/tests/global_exit" \
			-c 5 -w barrier -r 2 >/dev/null 2>&1
		rc=$?
		[ $rc -eq 5 ] && ok "global_exit -c 5 on h2 across h1:2,h2:1 (ofi): the job ends with 5" ||
			notok "global_exit -c 5 on h2 across h1:2,h2:1: exit $rc"
		# Failure across hosts (docs/ofi.md, "Failure"): mpirun told not
		# to end the job (--enable-recovery), the ofi conduit's liveness
		# ends the waits.  Rank 2 on h2 SIGKILLed while h1's ranks wait on
		# it in a barrier, a get: PGAS_ERR_GONE naming it within
		# PGAS_OFI_TIMEOUT=3 of its last word.
		for w in barrier get; do
			deadwait_check "rank 2 SIGKILLed on h2 while h1's ranks wait in $w" \
				timeout $TLIMIT "$BED" run-mpirun --enable-recovery --host h1:2,h2:1 -n 3 \
				$OFI -x PGAS_OFI_TIMEOUT=3 "$B/tests/lifecycle" deadwait 2 $w
		done
		# h2's link taken down while every rank waits in a barrier (rank 2
		# on h2 polls, then waits too): h1's ranks name rank 2 within
		# PGAS_OFI_TIMEOUT=5 (+ 2 s) of the link going down.  Nothing
		# reaches h2 meanwhile (its orted neither): mpirun is ended once
		# the link is back up.
		netout=$(mktemp)
		timeout $TLIMIT "$BED" run-mpirun --enable-recovery --host h1:2,h2:1 -n 3 $OFI \
			-x PGAS_OFI_TIMEOUT=5 "$B/tests/lifecycle" deadwait 2 net >"$netout" 2>&1 &
		mp=$!
		for _ in $(seq 1 100); do
			[ "$(grep -c 'ready$' "$netout")" -ge 3 ] && break
			sleep 0.1
		done
		sleep 1
		"$BED" exec h2 ip link set bed0 down
		down=$(date +%s%N)
		for _ in $(seq 1 100); do
			[ "$(grep -c '^ok - rank [01]: .*PGAS_ERR_GONE naming rank 2' "$netout")" -ge 2 ] && break
			sleep 0.1
		done
		took=$((($(date +%s%N) - down) / 1000000))
		"$BED" exec h2 ip link set bed0 up
		got=$(grep -c '^ok - rank [01]: .*PGAS_ERR_GONE naming rank 2' "$netout")
		kill $mp 2>/dev/null
		wait $mp 2>/dev/null
		if [ "$got" -eq 2 ] && [ $took -lt 7000 ]; then
			ok "h2's link down while h1's ranks wait: PGAS_ERR_GONE naming rank 2 after ${took} ms (PGAS_OFI_TIMEOUT=5)"
		else
			notok "h2's link down: $got of 2 h1 ranks named rank 2 within ${took} ms"
			grep -v "PMIX ERROR" "$netout" | tail -n 6 | sed 's/^/    # /'
		fi
		rm -f "$netout"
	fi
	# ---- Slurm: srun --mpi=pmix across h1 and h2 -------------------------
	# slurmctld on h1, a slurmd on h1 and on h2 (scripts/multihost/slurm.sh:
	# config, state, logs in a temporary directory, auth/none, no munge, no
	# system service); Slurm's own PMIx server (mpi/pmix_v4) boots the jobs.
	slurm_missing=
	for t in slurmctld slurmd srun salloc; do
		command -v $t >/dev/null || slurm_missing="$slurm_missing $t"
	done
	ls /usr/lib/*/slurm*/mpi_pmix.so >/dev/null 2>&1 ||
		slurm_missing="$slurm_missing mpi_pmix.so (slurm-wlm-basic-plugins)"
	"$B/bin/pgasrun" --version | grep -q '^conduits:.* ofi' || slurm_missing="$slurm_missing the ofi conduit"
	if [ -n "$slurm_missing" ]; then
		skip "srun --mpi=pmix: missing$slurm_missing (scripts/deps.sh multihost)"
	else
		slurm_start=$(date +%s%N)
		slurm_dir=$(mktemp -d /tmp/pgas-slurm.XXXXXX)
		SL="scripts/multihost/slurm.sh"
		SRUN="timeout -k 5 $TLIMIT $SL run $slurm_dir srun --mpi=pmix"
		start=$(date +%s%N)
		if timeout 30 "$SL" up "$slurm_dir" 2 2>"$log.err"; then
			ok "Slurm up: slurmctld on h1, slurmd on h1 and h2, both idle after $((($(date +%s%N) - start) / 1000000)) ms"
		else
			notok "Slurm up failed"
			sed 's/^/    # /' "$log.err" | tail -n 12
		fi
		# Block (0,1 on h1) and cyclic (0,2 on h1, 1,3 on h2: a host's
		# ranks not consecutive, which mpirun's lines never make).
		for m in block cyclic; do
			run_tap "boot_allgather under srun --mpi=pmix -N 2 --ntasks-per-node=2 -m $m" \
				$SRUN -N 2 --ntasks-per-node=2 -m $m "$B/tests/boot_allgather"
		done
		# auto across hosts: ofi; the boot line names Slurm's namespace.
		out=$(PGAS_VERBOSEENV=1 $SRUN -N 2 -n 3 "$B/examples/demo" 2>&1)
		rc=$?
		got=$(echo "$out" | grep -c "sum of rank+1 over the job = 6,")
		if [ $rc -eq 0 ] && [ "$got" -eq 3 ] &&
		   echo "$out" | grep -q "boot: pmix (.*namespace slurm\.pmix\.[0-9.]*, rank 0 of 3, 2 on this host" &&
		   echo "$out" | grep -q "^pgas: ofi conduit: provider"; then
			ok "srun -N 2 -n 3 demo, PGAS_CONDUIT=auto: ofi, booted by Slurm's PMIx server"
		else
			notok "srun -N 2 -n 3 demo with auto: exit $rc, $got of 3 sums"
			echo "$out" | grep -v '^  PGAS_' | tail -n 8 | sed 's/^/    # /'
		fi
		out=$(PGAS_VERBOSEENV=1 $SRUN -N 1 -n 3 "$B/examples/demo" 2>&1)
		rc=$?
		got=$(echo "$out" | grep -c "sum of rank+1 over the job = 6,")
		[ $rc -eq 0 ] && [ "$got" -eq 3 ] && echo "$out" | grep -q "boot: pmix (.*rank 0 of 3, 3 on this host" &&
			ok "srun -N 1 -n 3 demo: one host, every peer mapped" ||
			notok "srun -N 1 -n 3 demo: exit $rc, $got of 3 sums"
		# Without --mpi=pmix (this cluster's MpiDefault=none) and with
		# --mpi=pmi2: every task refuses, none runs as a job of one.
		for mpi in "" --mpi=pmi2; do
			out=$(PGAS_ERROR_MODE=print timeout -k 5 $TLIMIT "$SL" run "$slurm_dir" srun $mpi \
				-N 2 -n 2 "$B/examples/demo" 2>&1)
			rc=$?
			got=$(echo "$out" | grep -c "pgas_init: .*\(srun --mpi=pmix\|no PMIX_RANK\)")
			[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$got" = 2 ] &&
				! echo "$out" | grep -q "over the job = 1," &&
				ok "srun ${mpi:-without --mpi} -N 2 -n 2 demo: both tasks refused, naming srun --mpi=pmix" || {
				notok "srun ${mpi:-without --mpi} -N 2 -n 2 demo: exit $rc, $got of 2 refusals"
				echo "$out" | tail -n 4 | sed 's/^/    # /'
			}
		done
		SOFI="env PGAS_CONDUIT=ofi FI_PROVIDER=tcp FI_TCP_IFACE=bed0"
		# (rma: 20-30 s here; its path is shmem/rma's below, and mpirun's
		# lines above run it across hosts.)
		for t in am "barrier 200"; do
			run_tap "$t under srun -N 2 --ntasks-per-node=2 (ofi, tcp)" \
				$SOFI $SRUN -N 2 --ntasks-per-node=2 "$B/tests/"$t
		done
		run_tap "hier under srun -N 2 --ntasks-per-node=2 -m cyclic (ofi, tcp; hosts interleaved)" \
			$SOFI $SRUN -N 2 --ntasks-per-node=2 -m cyclic "$B/tests/hier"
		run_tap "oshrun --launcher=srun -np 4 shmem/rma (srun -N 2, ofi, tcp)" \
			$SOFI OSHRUN_SRUN="$SL run $slurm_dir srun -N 2" "$B/bin/oshrun" --launcher=srun \
			-t $TLIMIT -np 4 "$B/tests/shmem/rma"
		# Inside an allocation of 2 nodes oshrun picks srun itself.
		got=$(timeout -k 5 $TLIMIT "$SL" run "$slurm_dir" salloc -N 2 -n 2 "$B/bin/oshrun" -np 2 \
			sh -c 'echo "$(hostname) $PMIX_NAMESPACE"' 2>/dev/null | sort | paste -sd,)
		echo "$got" | grep -q '^h1 slurm\.pmix\.[0-9.]*,h2 slurm\.pmix\.[0-9.]*$' &&
			ok "salloc -N 2 oshrun -np 2: oshrun picks srun --mpi=pmix" ||
			notok "salloc -N 2 oshrun -np 2: '$got'"
		$SOFI $SRUN -N 2 -n 3 "$B/tests/global_exit" -c 5 -w barrier -r 2 >/dev/null 2>&1
		rc=$?
		[ $rc -eq 5 ] && ok "global_exit -c 5 on h2 under srun (ofi): PMIx_Abort ends the step with 5" ||
			notok "global_exit -c 5 on h2 under srun: exit $rc"
		# A rank SIGKILLed on h2: srun -K ends the step at once ...
		start=$(date +%s)
		out=$($SOFI $SRUN -K -N 2 -n 3 "$B/tests/lifecycle" barrier kill 2 2>&1)
		rc=$?
		took=$(($(date +%s) - start))
		if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -lt 20 ] && echo "$out" | grep -q "h2: task 2: Killed"; then
			ok "rank 2 SIGKILLed on h2, srun -K: the step ends (exit $rc, ${took}s)"
		else
			notok "rank 2 SIGKILLed on h2 under srun -K: exit $rc after ${took}s"
			echo "$out" | tail -n 6 | sed 's/^/    # /'
		fi
		# ... and without -K (Slurm leaves the others running) the ofi
		# conduit's liveness ends h1's waits with PGAS_ERR_GONE.
		deadwait_check "rank 2 SIGKILLed on h2 under srun (no -K), h1's ranks in a barrier" \
			$SOFI PGAS_OFI_TIMEOUT=3 $SRUN -N 2 -n 3 "$B/tests/lifecycle" deadwait 2 barrier
		"$SL" down "$slurm_dir"
		left=$(for h in h1 h2; do ip netns pids "$BED_NAME-$h"; done |
			xargs -r -n 1 sh -c 'cat /proc/$0/comm 2>/dev/null' | grep -c '^slurm')
		[ "$left" = 0 ] && ok "Slurm down: no slurmctld, slurmd or slurmstepd left" ||
			notok "Slurm down left $left daemons"
		rm -rf "$slurm_dir"
		slurm_dir=
		echo "# the Slurm block took $((($(date +%s%N) - slurm_start) / 1000000)) ms"
	fi
	keepers=$(cat "$BED_STATE"/h*.pid 2>/dev/null)
	"$BED" down
	bed_up=
	left=$(ip netns list | grep -c "^$BED_NAME-")
	for _ in $(seq 1 40); do	# killed, and reaped (or a zombie) within 2 s
		alive=0
		for p in $keepers; do
			st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
			[ -n "$st" ] && [ "$st" != Z ] && alive=$((alive + 1))
		done
		[ $alive = 0 ] && break
		sleep 0.05
	done
	[ "$left" = 0 ] && [ "$alive" = 0 ] && [ ! -e "$BED_STATE" ] &&
		ok "bed down: no namespace, no keeper, no state left" ||
		notok "bed down left $left namespaces, $alive keepers"
	[ "$(ip -o link | awk -F': ' '{print $2}' | sort)" = "$links_before" ] &&
		ok "the root namespace's links are as before" || notok "root namespace links changed"
fi

echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
