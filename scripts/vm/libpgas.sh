#!/bin/sh
# Inside the VM (busybox sh): the libpgas test programs over pgas.ko.
# Every TAP line passes through; each run adds one line for its exit code.
export PGAS_CONDUIT=kmod PGAS_ERROR_MODE=quiet
. /tests/vm-el.sh
run() {	# run LABEL CMD...
	label=$1
	shift
	"$@" >/tmp/run.out 2>/tmp/run.err
	rc=$?
	grep -E '^(ok|not ok) ' /tmp/run.out | sed "s/\$/ [kmod]/"
	if [ $rc -eq 0 ]; then
		echo "ok - $label exits 0"
	else
		echo "not ok - $label exits $rc"
		tail -n 15 /tmp/run.err | sed 's/^/# /'
	fi
	vm_el
}
for n in 1 2 3; do
	for t in rma am errors barrier teams atomics signal vis immediate region copy; do
		run "$t -n $n over pgas.ko" pgasrun -n $n -t 600 /tests/$t
	done
	run "traffic -n $n over pgas.ko (16-slot mailboxes)" \
		env PGAS_MBOX_SLOTS=16 pgasrun -n $n -t 600 /tests/traffic 4000
	[ $n -le "$(nproc)" ] &&
		run "nosyscall -n $n over pgas.ko" pgasrun -n $n -t 600 /tests/nosyscall 5000
done
for n in 2 3; do
	run "forge -n $n over pgas.ko (forged peer deaths)" pgasrun -n $n -t 120 /tests/forge
done
run "barrier -n 4 over pgas.ko, block mode" env PGAS_WAIT_MODE=block pgasrun -n 4 -t 600 /tests/barrier 200
run "blockwait -n 2 over pgas.ko: a blocked rank sleeps (<10% cpu) and wakes" \
	pgasrun -n 2 -t 600 /tests/blockwait
run "signal -n 3 over pgas.ko, block mode (signals, puts, atomics ring sleepers)" \
	env PGAS_WAIT_MODE=block pgasrun -n 3 -t 600 /tests/signal
run "demo over pgas.ko" pgasrun -n 4 -t 600 /tests/demo
# Threads at PGAS_THREAD_MULTIPLE over pgas.ko (exact counts; threads.c).
for n in 1 2; do
	run "threads -n $n -t 4 over pgas.ko" pgasrun -n $n -t 600 /tests/threads -t 4 -i 40
done
run "threads -n 2 -t 2 over pgas.ko, block mode" \
	env PGAS_WAIT_MODE=block pgasrun -n 2 -t 600 /tests/threads -t 2 -i 40
# Endpoints over pgas.ko (threads_eps.c): per-thread endpoints, a progress
# thread, churn, misuse and the PGAS_EP_MAX limit.
for n in 1 2; do
	run "threads_eps -n $n -t 2 over pgas.ko" pgasrun -n $n -t 600 /tests/threads_eps -t 2 -i 30 -r 2
done
run "ep_progress -n 2 -t 2 over pgas.ko" pgasrun -n 2 -t 600 /tests/ep_progress -t 2 -k 50
# OpenSHMEM over pgas.ko (docs/shmem.md): each conformance program at 1-3
# PEs, the waits in the block mode.
for n in 1 2 3; do
	for t in setup heap rma amo wait compat ctx lock ctx_threads team coll team_ctx team_full globals fork; do
		[ -x /tests/shmem_$t ] && run "shmem/$t -n $n over pgas.ko" pgasrun -n $n -t 600 /tests/shmem_$t
	done
done
[ -x /tests/shmem_wait ] && run "shmem/wait -n 2 over pgas.ko, block mode" \
	env PGAS_WAIT_MODE=block pgasrun -n 2 -t 600 /tests/shmem_wait
# NAS FT over pgas.ko (apps/ft): class S of each variant over libpgas and
# our OpenSHMEM at 1, 2 and 4 ranks; ft exits 0 only when its checksums
# verify against NPB's.
for v in exchange slabs pencils; do
	for n in 1 2 4; do
		run "ft --class S --variant $v -n $n over pgas.ko" \
			pgasrun -n $n -t 600 /tests/ft --class S --variant $v
		run "ft-shmem --class S --variant $v -n $n over pgas.ko" \
			pgasrun -n $n -t 600 /tests/ft_shmem --class S --variant $v
	done
done
# The stencil and the integer sort over pgas.ko: 3 ranks (uneven tiles and
# shares), libpgas and OpenSHMEM.
for p in stencil stencil_shmem; do
	run "$p --n 256 --iters 50 -n 3 over pgas.ko" pgasrun -n 3 -t 600 /tests/$p --n 256 --iters 50
done
for p in isort isort_shmem; do
	run "$p -n 3 over pgas.ko" pgasrun -n 3 -t 600 /tests/$p
done
# pgas_global_exit over pgas.ko: every rank ends with the code (0 included).
for c in "3 barrier 0" "3 thread 3" "2 handler 0"; do
	set -- $c
	out=$(pgasrun -v -n "$1" -t 120 /tests/global_exit -c "$3" -w "$2" 2>&1)
	rc=$?
	if [ $rc -eq "$3" ] && [ "$(echo "$out" | grep -c "exited with code $3\$")" -eq "$1" ]; then
		echo "ok - global_exit -n $1 -w $2 over pgas.ko: every rank ended with $3"
	else
		echo "not ok - global_exit -n $1 -w $2 over pgas.ko: exit $rc"
		echo "$out" | tail -n 5 | sed 's/^/# /'
	fi
	vm_el
done
set --
for n in 2 3; do
	run "coll -n $n over pgas.ko (quick)" pgasrun -n $n -t 900 /tests/coll quick
	run "teams_model -n $n over pgas.ko (5 s)" pgasrun -n $n -t 600 /tests/teams_model 5
done
# GUPS (issue 12): every variant on a 2^14-word table over pgas.ko, with
# HPCC's verification (exit 1 if atomic or AM lose an update, or
# get-modify-put more than 1%).
if [ -x /tests/gups ]; then
	for n in 1 2 4; do
		for v in atomic gmp am; do
			run "gups -n $n -v $v over pgas.ko (2^14 words, verified)" \
				pgasrun -n $n -t 300 /tests/gups -v $v -n 14
		done
	done
fi
# Ranks configured apart (issue 10): one variable on one rank only; every
# rank's pgas_init must refuse, naming it (over pgas.ko: the device too).
one_rank='if [ "$PGAS_RANK" = "$1" ]; then export "$2"; fi; shift 2; exec "$@"'
for c in "2 1 PGAS_COLL_STAGE=8192" "3 0 PGAS_MBOX_SLOTS=64" "2 1 PGAS_DEVICE=/dev/pgas9" \
	"2 0 PGAS_CONDUIT=shm"; do
	set -- $c
	out=$(pgasrun -n "$1" -t 300 sh -c "$one_rank" sh "$2" "$3" /tests/config job "${3%%=*}" 2>/tmp/apart.err)
	rc=$?
	if [ $rc -eq 0 ] && [ "$(echo "$out" | grep -c "refused: pgas_init: ${3%%=*} differs: rank 0 has ")" -eq "$1" ]; then
		echo "ok - $3 on rank $2 of $1 only over pgas.ko: every rank refuses, naming it"
	else
		echo "not ok - $3 on rank $2 of $1 only over pgas.ko: exit $rc: $out"
		tail -n 5 /tmp/apart.err | sed 's/^/# /'
	fi
	vm_el
done
set --
run "config job -n 3 over pgas.ko, PGAS_SEGMENT_SIZE=3M on rank 2 only" \
	pgasrun -n 3 -t 300 sh -c "$one_rank" sh 2 PGAS_SEGMENT_SIZE=3M /tests/config job
# Every way a rank can leave at every point (issue 10), over pgas.ko.
vm_now
lc_t=$_vm_now
PGAS_LIFECYCLE_BIN=/tests PGAS_LIFECYCLE_RANKS="2 3" PGAS_LIFECYCLE_TIMEOUT=120 \
	sh /tests/check-lifecycle.sh >/tmp/lifecycle.out 2>&1
vm_since "$lc_t" "check-lifecycle.sh over pgas.ko"
sed -n -E '/^(ok|not ok) /s/$/ [kmod]/p; /^    # /p' /tmp/lifecycle.out
grep -q '^lifecycle: [0-9]* passed, 0 failed' /tmp/lifecycle.out ||
	echo "not ok - check-lifecycle.sh over pgas.ko: $(tail -n 1 /tmp/lifecycle.out)"
# Defect 15 (issue 9): gets from a rank killed mid-job see its data until
# pgas.ko revokes its memory, then PGAS_ERR_GONE naming it; never the
# throwaway page's zeros with rc 0.
out=$(pgasrun -n 3 -t 120 /tests/lifecycle deadget 1 gone 2>/tmp/deadget.err)
rc=$?
if [ $rc -eq 137 ] && [ "$(echo "$out" | grep -c '^ok - rank [02]: .*PGAS_ERR_GONE: pgas_get: rank 1 has left')" -eq 2 ]; then
	echo "ok - gets from a killed rank over pgas.ko: its data, then PGAS_ERR_GONE naming it"
else
	echo "not ok - gets from a killed rank over pgas.ko: exit $rc"
	echo "$out" | grep ok | sed 's/^/# /'
	tail -n 5 /tmp/deadget.err | sed 's/^/# /'
fi
vm_el
# A NIC deleted under a live job (issue 9, defect 14): its ranks are told
# through their kernel pages and end, naming it, instead of waiting forever.
nic=$(pgasctl create)
PGAS_DEVICE=/dev/$nic pgasrun -n 3 -t 30 /tests/lifecycle hang >/tmp/nd.out 2>/tmp/nd.err &
pid=$!
i=0
while [ "$(grep -c 'ready' /tmp/nd.out)" -lt 3 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
t0=$(date +%s)
pgasctl destroy "${nic#pgas}"
wait $pid
rc=$?
took=$(($(date +%s) - t0))
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -lt 20 ] &&
	grep -q "took this rank's endpoint away (/dev/$nic was deleted)" /tmp/nd.err; then
	echo "ok - a NIC deleted under a waiting job: its ranks end in $took s, exit $rc, naming it"
else
	echo "not ok - a NIC deleted under a waiting job: exit $rc after $took s"
	tail -n 5 /tmp/nd.err | sed 's/^/# /'
fi
vm_el
pgasrun -n 3 -t 600 /tests/lifecycle kill 1 >/dev/null 2>/tmp/kill.err
rc=$?
sleep 1
if [ $rc -eq 137 ] && [ "$(cat /sys/class/misc/pgas0/endpoints)" = 0 ] &&
	[ "$(cat /sys/class/misc/pgas0/pinned_pages)" = 0 ] &&
	[ "$(cat /sys/class/misc/pgas0/jobs)" = 0 ]; then
	echo "ok - a rank SIGKILLed mid-job over pgas.ko: job ends 137, no endpoint, job or pin left"
else
	echo "not ok - killed rank over pgas.ko: exit $rc, endpoints $(cat /sys/class/misc/pgas0/endpoints), pinned $(cat /sys/class/misc/pgas0/pinned_pages)"
	sed 's/^/# /' /tmp/kill.err
fi
vm_el
