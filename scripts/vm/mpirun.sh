#!/bin/sh
# Inside the VM (busybox sh): libpgas jobs started by Open MPI's mpirun
# (the PMIx boot) over pgas.ko: the host's leader rank makes the pgas.ko
# job, the others get it through the boot's host socket (docs/libpgas.md).
# scripts/vm/mpirun-root.sh put mpirun, its libraries and the dynamic
# programs (/mpi) into the initramfs.  pgasctl tells that the jobs were
# pgas.ko's and that none is left behind.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HOME=/tmp
export PATH=/usr/bin:$PATH
# No ssh here: ORTE's isolated launcher (else "plm_rsh_agent: ssh : rsh
# ... could not be found"), no binding; a host name (the initramfs has
# none: ORTE refuses the node name "(none)"), and lo up for its own TCP.
MPIRUN="timeout 120 mpirun --oversubscribe --mca plm isolated --bind-to none -x PGAS_CONDUIT=kmod -x PGAS_ERROR_MODE=quiet"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
[ "$(hostname)" = "(none)" ] && hostname vm
idle() {	# idle LABEL: pgas0 has no job, endpoint, pinned page or ring left
	if pgasctl list | grep -q "^pgas0: endpoints 0 jobs 0 pinned_pages 0 ring_bytes 0"; then
		echo "ok - $1: no pgas.ko job left"
	else
		echo "not ok - $1: pgas.ko still holds $(pgasctl list | grep '^pgas0')"
		pgasctl jobs | sed 's/^/# /'
	fi
}
# am at 2 ranks, barrier and rma at 2 and 3 (a minute or so under TCG);
# pgasctl monitor sees every rank's endpoint and the job go (so the job
# was pgas.ko's, not shm's).
for n in 2 3; do
	for t in am barrier rma; do
		[ $n = 3 ] && [ $t = am ] && continue
		pgasctl monitor -n $((n + 1)) -t 150 >/tmp/mon.out 2>&1 &
		mon=$!
		sleep 0.2
		$MPIRUN -n $n /mpi/$t >/tmp/mpi.out 2>&1
		rc=$?
		# Its events come as the job ends: 5 s for the last, not its -t.
		i=0
		while kill -0 $mon 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill $mon 2>/dev/null
		wait $mon
		gone=$(grep -c "rank [0-9]* gone" /tmp/mon.out)
		if [ $rc -eq 0 ] && ! grep -q "^not ok" /tmp/mpi.out && [ "$gone" -eq $n ] &&
		   grep -qE "job [0-9]+ gone" /tmp/mon.out; then
			echo "ok - mpirun -n $n $t over pgas.ko ($(grep -c '^ok' /tmp/mpi.out) ok lines, $n endpoints and the job gone)"
		else
			echo "not ok - mpirun -n $n $t over pgas.ko: exit $rc, $gone of $n endpoints gone"
			grep -v "^ok" /tmp/mpi.out | tail -n 15 | sed 's/^/# /'
			sed 's/^/# monitor: /' /tmp/mon.out | tail -n 5
		fi
	done
	idle "mpirun -n $n: the jobs above"
done
# A running job: one pgas.ko job of 3 ranks, every rank joined.
$MPIRUN -n 3 /mpi/lifecycle hang >/tmp/hang.out 2>&1 &
run=$!
i=0
while [ "$(grep -c ready /tmp/hang.out)" != 3 ] && [ $i -lt 900 ]; do
	sleep 0.1
	i=$((i + 1))
done
if pgasctl jobs | grep -q "ranks 3 uid 0 joined 3" && [ "$(pgasctl jobs | grep -c ranks)" = 1 ]; then
	echo "ok - mpirun -n 3: one pgas.ko job, 3 ranks joined"
else
	echo "not ok - mpirun -n 3: pgasctl jobs says"
	pgasctl jobs | sed 's/^/# /'
	tail -n 10 /tmp/hang.out | sed 's/^/# /'
fi
# The key went through the host's socket only: no process's environment
# holds it (another job's rank cannot read it there; pgas.ko's JOIN wants
# the key and the creator's euid: kselftests pgas_ioctl).
if grep -l PGAS_JOB_KEY /proc/[0-9]*/environ 2>/dev/null | grep -q .; then
	echo "not ok - mpirun -n 3: the job's key is in an environment: $(grep -l PGAS_JOB_KEY /proc/[0-9]*/environ)"
else
	echo "ok - mpirun -n 3: the job's key is in no process's environment"
fi
kill -TERM $run
wait $run
sleep 1
idle "mpirun ended by SIGTERM"
# A rank SIGKILLed while the others wait on it in a barrier (mpirun told
# to let them run on): pgas.ko's departure event ends their waits as under
# pgasrun (wait.c, check_kern: the rank ends, "N peer endpoint(s) of this
# job died"; PGAS_ERR_GONE where a wait asks peer_gone first).  Rank 0,
# the host's leader that made the job, among them: the others hold the
# job too, and nothing is left after.
for v in 2 0; do
	start=$(date +%s)
	$MPIRUN --enable-recovery -n 3 -x PGAS_ERROR_MODE=print /mpi/lifecycle deadwait $v barrier \
		>/tmp/dead.out 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	got=$(grep -cE "PGAS_ERR_GONE naming rank $v|fatal: [0-9]+ peer endpoint\(s\) of this job died" /tmp/dead.out)
	if [ $rc -ne 124 ] && [ "$got" -eq 2 ] && ! grep -q "^not ok" /tmp/dead.out; then
		echo "ok - mpirun -n 3, rank $v SIGKILLed in a barrier: both others end on pgas.ko's report (${took}s)"
	else
		echo "not ok - mpirun -n 3, rank $v SIGKILLed in a barrier: exit $rc, $got of 2 ended on it"
		tail -n 15 /tmp/dead.out | sed 's/^/# /'
	fi
	sleep 1
	idle "rank $v SIGKILLed under mpirun"
done
