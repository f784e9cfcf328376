#!/bin/bash
# Native tier: libpgas over the shm conduit, multi-process via pgasrun.
#
#   scripts/check-native.sh [BUILD_DIR]     (default: build)
#
# Runs every test program at 1, 2, 3, 4 and 8 ranks, the storm with tiny
# mailboxes and in every wait mode, the configuration test, and the
# launcher's failure handling (killed rank, exit code, time limit, signal
# forwarding, no orphans, nothing left in /dev/shm).  Counts TAP lines; a
# run whose exit code is not 0 or whose plan does not match counts as a
# failure.  Ends with "N passed, N failed".
set -u
# Absolute, so that the orphan check below only sees this checkout's ranks.
B=$(cd "${1:-build}" && pwd) || exit 1
RANKS=${PGAS_TEST_RANKS:-"1 2 3 4 8"}
TLIMIT=${PGAS_TEST_TIMEOUT:-300}
RUN="$B/bin/pgasrun"
pass=0
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

export PGAS_ERROR_MODE=quiet

. "$(dirname "$0")/tap.sh"

shm_before=$(ls /dev/shm 2>/dev/null | sort)

for n in $RANKS; do
	for t in rma am errors barrier teams atomics signal vis immediate region remote segsizes copy; do
		run_tap "$t -n $n" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/$t"
	done
	run_tap "traffic -n $n (16-slot mailboxes)" \
		env PGAS_MBOX_SLOTS=16 "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/traffic"
	# Spinning without sched_yield (a system call) needs a cpu per rank;
	# sanitizer runtimes make system calls of their own (shadow memory).
	if [ "$n" -le "$(nproc)" ] && [ "$B" = "$PWD/build" ]; then
		run_tap "nosyscall -n $n" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/nosyscall"
	elif [ "$n" -le "$(nproc)" ]; then
		echo "# nosyscall -n $n not run in $B: the sanitizer runtime makes system calls"
	fi
done
# The remote data path (core/rma_ref.c, issue 22): the data tests again
# with PGAS_MAP_PEERS=none, where every other rank is reached through the
# AM reference protocol only (put/get in chunks, handles, _nbi counts,
# atomics and signals run by the target).  Not in the list: immediate
# (its ranks stop polling while they fill each other's rings, and a put
# over AM needs its target to poll), barrier, teams and the collectives
# (their remote paths are issue 22's other parts).  At the rank counts of
# this run among 2-4: TSan's are 1-3, as for the data tests above (it sees
# inside one process only; a 4th rank adds no thread it can watch, and
# cost ~2x a 3-rank run's CPU: rma 12.5 s against 5.8 under TSan).
for n in 2 3 4; do
	case " $RANKS " in *" $n "*) ;; *) continue ;; esac
	for t in rma am errors atomics signal vis region remote ep_progress copy; do
		run_tap "$t -n $n, PGAS_MAP_PEERS=none" \
			env PGAS_MAP_PEERS=none "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/$t"
	done
	run_tap "traffic -n $n (16-slot mailboxes), PGAS_MAP_PEERS=none" \
		env PGAS_MAP_PEERS=none PGAS_MBOX_SLOTS=16 "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/traffic"
done
# Endpoints whose directory is asked of their owner (ctl.c pgas__ctl_ask):
# the churn case lost an asker's answer to later questions' (2 ranks hung).
for n in 2 3; do
	run_tap "threads_eps -n $n -t 2 -i 100, PGAS_MAP_PEERS=none" \
		env PGAS_MAP_PEERS=none "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/threads_eps" -t 2 -i 100
done
run_tap "rma -n 3, PGAS_MAP_PEERS=none, block mode" \
	env PGAS_MAP_PEERS=none PGAS_WAIT_MODE=block "$RUN" -n 3 -t "$TLIMIT" "$B/tests/rma"
run_tap "remote -n 3, PGAS_MAP_PEERS=none, block mode" \
	env PGAS_MAP_PEERS=none PGAS_WAIT_MODE=block "$RUN" -n 3 -t "$TLIMIT" "$B/tests/remote"
# The OpenSHMEM layer without mapped peers: every conformance program at 2
# and 3 PEs (the sanitizer builds: 2), puts, gets and AMOs by the reference
# protocols, shmem_ptr NULL and SHMEM_TEAM_SHARED this PE alone.
for n in 2 3; do
	[ "$B" = "$PWD/build" ] || [ "$n" -eq 2 ] || continue
	for t in setup heap rma amo wait compat ctx lock ctx_threads team coll team_ctx team_full \
		globals fork generics; do
		run_tap "shmem/$t -np $n, PGAS_MAP_PEERS=none" \
			env PGAS_MAP_PEERS=none "$B/bin/oshrun" -np "$n" -t 60 "$B/tests/shmem/$t"
	done
done

# Threads (PGAS_THREAD_MULTIPLE unless said): every operation from every
# thread of every rank at once, exact counts (selftests/libpgas/threads.c).
# The plain build: 1, 2, 4 and 8 threads at 1 to 4 ranks, SERIALIZED and
# the blocking wait.  The sanitizer builds: 2, 4 and 8 threads of one rank,
# where every message, handler and lock is inside one process and TSan
# sees all of it (between processes it sees no synchronisation: a bounce
# buffer that the peer frees would look raced); ASan also at 2 ranks.
if [ "$B" = "$PWD/build" ]; then
	for n in 1 2 3 4; do
		for t in 1 2 4 8; do
			run_tap "threads -n $n -t $t" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/threads" -t "$t"
		done
	done
	run_tap "threads -n 3 -t 4, SERIALIZED" "$RUN" -n 3 -t "$TLIMIT" "$B/tests/threads" -t 4 -l serialized
	run_tap "threads -n 3 -t 4, block mode" \
		env PGAS_WAIT_MODE=block "$RUN" -n 3 -t "$TLIMIT" "$B/tests/threads" -t 4
else
	for t in 2 4 8; do
		run_tap "threads -n 1 -t $t" "$RUN" -n 1 -t "$TLIMIT" "$B/tests/threads" -t "$t"
	done
	run_tap "threads -n 1 -t 4, SERIALIZED" "$RUN" -n 1 -t "$TLIMIT" "$B/tests/threads" -t 4 -l serialized
	case "$B" in
	*asan*) run_tap "threads -n 2 -t 4" "$RUN" -n 2 -t "$TLIMIT" "$B/tests/threads" -t 4 ;;
	esac
fi

# Endpoints (threads_eps.c, issue 11): a thread per endpoint, every AM kind
# with replies and every RMA form at once, exact counts and data; a progress
# thread polling every endpoint; endpoints created, used and destroyed while
# others send to them; misuse and the PGAS_EP_MAX limit.  The plain build:
# 1, 2, 4 and 8 threads at 1 to 4 ranks (iterations scaled so that each run
# stays within seconds on 2 cores), and the blocking wait.  The sanitizer
# builds: 2 and 4 threads at 2 ranks; TSan also every case at 1 rank, and at
# 2 ranks all but the churn: between processes TSan sees no release of a
# bounce buffer by its receiver, so the next sender's claim of it looks like
# a race with the last (the churn's Mediums from threads of one rank).
if [ "$B" = "$PWD/build" ]; then
	for n in 1 2 3 4; do
		for t in 1 2 4 8; do
			run_tap "threads_eps -n $n -t $t" "$RUN" -n "$n" -t "$TLIMIT" \
				"$B/tests/threads_eps" -t "$t" -i $((1600 / (n * t) + 20))
		done
	done
	run_tap "threads_eps -n 2 -t 4, block mode" \
		env PGAS_WAIT_MODE=block "$RUN" -n 2 -t "$TLIMIT" "$B/tests/threads_eps" -t 4 -i 100
	# The library's progress thread serves PGAS_EP_PROGRESS endpoints
	# whose threads never poll (ep_progress.c; -f 0 fails: nobody polls).
	for n in 1 2 3 4; do
		run_tap "ep_progress -n $n -t 4" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/ep_progress" -t 4
	done
	run_tap "ep_progress -n 2 -t 2, block mode" \
		env PGAS_WAIT_MODE=block "$RUN" -n 2 -t "$TLIMIT" "$B/tests/ep_progress" -t 2 -k 50
else
	run_tap "ep_progress -n 1 -t 4" "$RUN" -n 1 -t "$TLIMIT" "$B/tests/ep_progress" -t 4
	eps_cases=all
	for t in 2 4; do
		case "$B" in *tsan*)
			run_tap "threads_eps -n 1 -t $t" "$RUN" -n 1 -t "$TLIMIT" \
				"$B/tests/threads_eps" -t "$t" -i 60 -r 3 ;;
		esac
		run_tap "threads_eps -n 2 -t $t -c $eps_cases" "$RUN" -n 2 -t "$TLIMIT" \
			"$B/tests/threads_eps" -t "$t" -i 60 -r 3 -c "$eps_cases"
	done
fi

# The edges of the thread levels (threads_edges.c, from an adversarial
# review; each failed or hung on the first version): calls made while
# holding an HSL that a handler in another thread waits for, SERIALIZED
# HSL refusals, racing progress-thread starts, a stop from the progress
# thread itself, exit(0) and pgas_exit(0) with progress threads running,
# teams of their own per thread.  Exit 0 and no "not ok"; the sanitizer
# builds run the one-rank cases.
for c in "1 hsl_barrier" "1 hsl_notify" "2 hsl_signal" "2 hsl_coll" "2 ser_hsl" \
	"1 pt_race -t 4 -k 200" "1 pt_stop_self" "2 exit_atexit" "3 exit_flood -t 3" \
	"3 teams -t 4 -k 10" "3 exit_pt"; do
	set -- $c
	n=$1
	shift
	[ "$B" = "$PWD/build" ] || [ "$n" = 1 ] || continue
	run_clean "threads_edges -n $n -c $*" \
		env PGAS_ERROR_MODE=quiet "$RUN" -n "$n" -t 120 "$B/tests/threads_edges" -c "$@"
done

# pgas_ep_destroy of PGAS_EP_PROGRESS endpoints while the progress thread
# polls them (issue 21): 255 created and destroyed, every destroy succeeds
# (it failed at random with "being polled (by another thread)" before).
run_clean "rev_ep_destroy_progress -n 1: 255 PGAS_EP_PROGRESS endpoints destroyed under the progress thread" \
	env PGAS_EP_MAX=256 "$RUN" -n 1 -t 120 "$B/tests/rev_ep_destroy_progress"

# A rank whose peers have all left (pgas_exit(0)) goes on with threads of
# its own (threads_alone.c, issue 21): above SINGLE a wait on the caller's
# condition (pgas_block_until, pgas_ep_block_until) returns when another
# thread sets it (it ended the rank with 70 before); at SINGLE the same wait
# is abandoned and must still end the rank with 70.  The MULTIPLE case: a
# progress thread, 4 waiters and 3 senders that wait for ring and bounce
# space in 16-slot mailboxes; in the TSan build it is the races' test (the
# abandoned-wait check in every waiting thread at once while the progress
# thread handles, the peek at an endpoint's ring that its poller moves).
# With one bounce buffer the senders wait for a handler that runs in the
# progress thread (or for another sender's claim): room that this rank
# gives back, so not abandoned (it ended the rank with 70).
for n in $RANKS; do
	[ "$n" -ge 2 ] && [ "$n" -le 4 ] || continue
	run_clean "threads_alone -n $n: the others left, 4 waiters, 3 senders, a progress thread" \
		env PGAS_MBOX_SLOTS=16 "$RUN" -n "$n" -t 120 "$B/tests/threads_alone"
	run_clean "threads_alone -n $n, one bounce buffer: senders wait for this rank's handlers" \
		env PGAS_MBOX_SLOTS=16 PGAS_BOUNCE_BUFS=1 "$RUN" -n "$n" -t 120 "$B/tests/threads_alone"
done
if [ "$B" = "$PWD/build" ]; then
	run_clean "threads_alone -n 2, block mode" \
		env PGAS_WAIT_MODE=block PGAS_MBOX_SLOTS=16 "$RUN" -n 2 -t 120 "$B/tests/threads_alone"
	for e in "" -e; do
		run_clean "threads_alone -n 2 -l funneled $e: another thread sets the flag" \
			"$RUN" -n 2 -t 60 "$B/tests/threads_alone" -l funneled $e
		run_exit 70 "waiting for what no rank can provide" \
			"threads_alone -n 2 -l single $e: the abandoned wait ends the rank (70)" \
			"$RUN" -n 2 -t 60 "$B/tests/threads_alone" -l single $e
	done
fi

# Waits on memory in the block wait mode (pgas_signal.h): every case
# with sleeping waiters, then the wake-up itself: a waiter asleep in
# pgas_wait_until_u64 is woken by the signal, put or atomic (median under
# 0.5 ms; the bounded naps alone give 1-8 ms).
run_tap "signal -n 3, block mode" env PGAS_WAIT_MODE=block "$RUN" -n 3 -t "$TLIMIT" "$B/tests/signal"
if [ "$B" = "$PWD/build" ]; then
	run_tap "signal -n 2 -w 21, block mode: woken by the write itself" \
		env PGAS_WAIT_MODE=block "$RUN" -n 2 -t "$TLIMIT" "$B/tests/signal" -w 21
	run_tap "signal -n 2 -w 24 -t 4, block mode, MULTIPLE: napping threads woken too" \
		env PGAS_WAIT_MODE=block "$RUN" -n 2 -t "$TLIMIT" "$B/tests/signal" -w 24 -t 4
fi

# An adversarial review of signals, immediate sends and the global exit
# (each failed before its fix): memset and access-region puts wake a
# sleeping waiter; a local wait at FUNNELED is not ended as abandoned when
# the others have left; a plain Long's copy holds up no message behind it;
# a global exit from a forked child ends its parent rank too.  And of
# endpoints: a request to an endpoint of a rank in pgas_exit(0) is answered.
if [ "$B" = "$PWD/build" ]; then
	for c in "2 block rev_wake memset" "2 block rev_wake region" \
		"2 spin rev_wait_local" "3 spin rev_long_hol 64" "2 spin rev_ep_exit" \
		"2 block rev_ep_exit"; do
		set -- $c
		n=$1 mode=$2 prog=$3
		shift 3
		run_clean "$prog -n $n $* ($mode)" \
			env PGAS_WAIT_MODE="$mode" "$RUN" -n "$n" -t 60 "$B/tests/$prog" "$@"
	done
	# A review of endpoints (issue 11; each failed or hung before its fix):
	# requests from an endpoint's handler refused below MULTIPLE; the exit
	# drain of endpoints (floods, a reply, messages that fit); waits that
	# serve the thread's other endpoints (a barrier, sends to itself); the
	# progress thread serving PGAS_EP_PROGRESS endpoints; a forked child
	# cannot destroy or create the rank's endpoints; a send to a destroyed
	# endpoint of the same process.
	for c in "1 rev_ep_handler_request" "2 rev_ep_exit_flood ep" \
		"2 rev_ep_exit_flood primary" "2 rev_ep_exit_flood reply" \
		"2 rev_ep_exit_flood few" "2 rev_ep_barrier_deadlock" "1 rev_ep_self_wait" \
		"1 rev_ep_self_wait short" "1 rev_ep_progress_thread" "2 rev_ep_fork_destroy" \
		"2 rev_ep_fork_destroy create" "1 rev_ep_destroy_local_send"; do
		set -- $c
		n=$1 prog=$2
		shift 2
		run_clean "$prog -n $n $*" env PGAS_MBOX_SLOTS=16 "$RUN" -n "$n" -t 60 \
			"$B/tests/$prog" "$@"
	done
	# pgas_exit(0) in an endpoint's handler without a reply: the requester
	# ends with 70, naming the leaver (it waited forever before).
	run_exit 70 "inside the handler of a request" \
		"rev_ep_exit_in_handler: a request left unanswered by a leaver ends the requester (70)" \
		"$RUN" -n 2 -t 60 "$B/tests/rev_ep_exit_in_handler"
	out=$("$RUN" -v -n 2 -t 60 "$B/tests/rev_ge_fork" 2>&1)
	rc=$?
	if [ $rc -eq 5 ] && [ "$(echo "$out" | grep -c 'exited with code 5$')" -eq 2 ]; then
		ok "rev_ge_fork: a global exit from a forked child ends every rank with its code"
	else
		notok "rev_ge_fork: exit $rc"
		echo "$out" | tail -n 5 | sed 's/^/    # /'
	fi
fi

# pgas_global_exit(code): every rank ends with code, 0 included, wherever
# the others are (global_exit.c); a rank that blocks libpgas's signal is
# killed, and the job still ends with code.  /dev/shm is checked at the end.
for c in "1 barrier 5" "3 barrier 0" "3 barrier 3" "4 compute 0" "3 handler 9" "3 thread 0" \
	"3 init 4" "2 blocked 0" "3 block 6" "2 spoof 0"; do
	set -- $c
	n=$1 w=$2 code=$3 want=$1 envs=
	[ "$B" = "$PWD/build" ] || [ "$n" -le 2 ] || continue
	[ "$w" = blocked ] && want=1
	[ "$w" = block ] && w=barrier envs=PGAS_WAIT_MODE=block
	out=$(env $envs "$RUN" -v -n "$n" -t 60 "$B/tests/global_exit" -c "$code" -w "$w" 2>&1)
	rc=$?
	got=$(echo "$out" | grep -c "exited with code $code\$")
	if [ $rc -eq "$code" ] && [ "$got" -eq "$want" ]; then
		ok "global_exit -n $n -w $w $envs: every rank ended with $code"
	else
		notok "global_exit -n $n -w $w $envs: pgasrun exit $rc, $got of $want ranks with $code"
		echo "$out" | tail -n 8 | sed 's/^/    # /'
	fi
done

# Collectives: the conformance program at every rank count from 1 to 8 in
# the plain build (the sanitizer builds at RANKS), then its variants:
# misuse checks of PGAS_COLL_DEBUG, chunked staging through a tiny stage,
# oversubscribed blocking waits, and a tuning file written by pgas-tune.
if [ "$B" = "$PWD/build" ]; then COLL_RANKS="1 2 3 4 5 6 7 8"; else COLL_RANKS=$RANKS; fi
for n in $COLL_RANKS; do
	run_tap "coll -n $n" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/coll"
done
# Teams and collectives against a serial model: random splits, destroys
# and calls for PGAS_MODEL_SECONDS (default 3) per rank count; the seed is
# printed (PGAS_MODEL_SEED=S replays it).
for n in $COLL_RANKS; do
	run_tap "teams_model -n $n (${PGAS_MODEL_SECONDS:-3} s)" \
		"$RUN" -n "$n" -t "$TLIMIT" "$B/tests/teams_model" "${PGAS_MODEL_SECONDS:-3}"
done
run_tap "coll -n 3, PGAS_COLL_DEBUG=1" env PGAS_COLL_DEBUG=1 "$RUN" -n 3 -t "$TLIMIT" "$B/tests/coll"
run_tap "coll -n 3, PGAS_COLL_STAGE=8192 PGAS_COLL_TEAM_STAGE=8192 (chunked staging)" \
	env PGAS_COLL_STAGE=8192 PGAS_COLL_TEAM_STAGE=8192 "$RUN" -n 3 -t "$TLIMIT" "$B/tests/coll"
# A wide team with a small stage, where an eager call would have to be cut
# into chunks (it gave wrong bytes with rc 0; such a call is not eager now).
run_tap "coll -n 64 wide, PGAS_COLL_STAGE=8192 (gather_all of 8-56 B)" \
	env PGAS_COLL_STAGE=8192 "$RUN" -n 64 -t "$TLIMIT" "$B/tests/coll" wide
# The boot relay (bootstrap.h): packets of PGAS_BOOT_BATCH messages with a
# partial last one (150 ranks: 3 packets), and ranks of an older libpgas
# beside them (one message per packet).  Then a job of 256 ranks from start
# to end, which only rank 0's reads of every ring at the exit and one word
# for a barrier's leavers keep to seconds (bench/startup gathers every
# rank's stamps with puts), 300 of them under a soft limit of 256
# descriptors (pgasrun and every rank raise theirs: EMFILE before).
# A host's memfd over RLIMIT_FSIZE: ftruncate raised SIGXFSZ, which ended the
# leader without a word ("killed by signal 25"); refused now, named.
# (The leader says "File too large"; the others name it, and may end first.)
run_exit 1 "the host's ring regions ([0-9]* bytes" \
	"ulimit -f 10000: the host's ring memfd over RLIMIT_FSIZE is refused with a message" \
	env PGAS_ERROR_MODE=print bash -c 'ulimit -f 10000 && exec "$@"' fsize \
	"$RUN" -n 3 -t "$TLIMIT" "$B/examples/demo"
run_exit 0 "^ok - rank 1 got" "exit_drain -n 3: pgas_exit(0) drains a flood between ranks 1 and 2" \
	"$RUN" -n 3 -t "$TLIMIT" "$B/tests/exit_drain"
for n in 1 3 150; do
	[ "$n" -lt 150 ] || [ "$B" = "$PWD/build" ] || continue
	run_tap "boot_allgather -n $n" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/boot_allgather" 5
done
# The peer tables' unresolved entries cost no memory of the rank's own
# (core/peers.c): every table was written whole at attach before.
for n in 3 16; do
	run_tap "peer_table -n $n, PGAS_EP_MAX=64" \
		env PGAS_EP_MAX=64 "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/peer_table"
done
if [ "$B" = "$PWD/build" ]; then
	run_exit 0 "RESULT startup.barrier.300" \
		"startup -n 300, ulimit -Sn 256: a job of 300 ranks starts, gathers and ends" \
		bash -c 'ulimit -Sn 256 && exec "$@"' startup "$RUN" -n 300 -t 120 "$B/bench/startup"
	# Not root: descriptors in flight count per user against the sender's
	# limit (ETOOMANYREFS), which a relay of 150 ranks passes at 512; the
	# sends wait for the receivers (pgasrun failed "Too many references").
	if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
		run_exit 0 "RESULT startup.barrier.150" \
			"startup -n 150 as nobody, ulimit -n 512: the relay waits for receivers" \
			setpriv --reuid=65534 --regid=65534 --clear-groups \
			bash -c 'ulimit -n 512 && exec "$@"' startup "$RUN" -n 150 -t 120 "$B/bench/startup"
	fi
fi
# The reference algorithms (libpgas/coll/coll_ref.c: messages only, no load
# or store in a peer's memory), which a team with a member this rank does
# not map runs: forced on every operation (PGAS_COLL_<KIND>=ref, which also
# overrides the tests' pgas_coll_force), and with the collectives mapping no
# peer (PGAS_COLL_UNMAPPED=1: ref teams, debug descriptors and departures by
# message, bounds from the conduit), over coll, teams, teams_model and the
# OpenSHMEM layer's team and collective tests at 2-4 ranks.
# PGAS_MAP_PEERS=none belongs in this list once the core runs with it.
coll_ref_all="PGAS_COLL_BARRIER=ref PGAS_COLL_BROADCAST=ref PGAS_COLL_SCATTER=ref"
coll_ref_all="$coll_ref_all PGAS_COLL_GATHER=ref PGAS_COLL_GATHER_ALL=ref PGAS_COLL_EXCHANGE=ref"
coll_ref_all="$coll_ref_all PGAS_COLL_REDUCE=ref PGAS_COLL_REDUCE_ALL=ref PGAS_COLL_SCAN=ref"
for mode in "$coll_ref_all" "PGAS_COLL_UNMAPPED=1"; do
	case $mode in *BARRIER=ref*) label="PGAS_COLL_<every kind>=ref" ;; *) label=$mode ;; esac
	for n in 2 3 4; do
		[ "$B" = "$PWD/build" ] || [ "$n" -ne 3 ] || continue	# sanitizers: 2 and 4
		# shellcheck disable=SC2086
		run_tap "coll -n $n, $label" env $mode "$RUN" -n "$n" \
			-t "$TLIMIT" "$B/tests/coll"
		# shellcheck disable=SC2086
		run_tap "teams -n $n, $label" env $mode "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/teams"
		# shellcheck disable=SC2086
		run_tap "teams_model -n $n, $label" env $mode "$RUN" -n "$n" -t "$TLIMIT" \
			"$B/tests/teams_model" "${PGAS_MODEL_SECONDS:-3}"
		for t in team coll team_ctx team_full; do
			# shellcheck disable=SC2086
			run_tap "shmem/$t -np $n, $label" env $mode "$B/bin/oshrun" -np "$n" -t 60 \
				"$B/tests/shmem/$t"
		done
	done
done
run_tap "coll -n 3, PGAS_COLL_UNMAPPED=1 PGAS_COLL_DEBUG=1" \
	env PGAS_COLL_UNMAPPED=1 PGAS_COLL_DEBUG=1 "$RUN" -n 3 -t "$TLIMIT" "$B/tests/coll"
# Threads at MULTIPLE: collectives of several teams at once, their messages
# handled by whichever thread polls.
run_tap "threads -n 2 -t 4, PGAS_COLL_UNMAPPED=1" \
	env PGAS_COLL_UNMAPPED=1 "$RUN" -n 2 -t "$TLIMIT" "$B/tests/threads" -t 4
# The rest checks the launcher and the tuner's plumbing: the plain build is enough.
[ "$B" = "$PWD/build" ] && {
run_tap "coll -n 8 oversubscribed, block mode" \
	env PGAS_WAIT_MODE=block "$RUN" -n 8 -t "$TLIMIT" "$B/tests/coll" quick
tune=$(mktemp)
# The tuner's plumbing, not its timings: every algorithm and size once
# (PGAS_BENCH_SCALE=1000: 1 call per timing, 400 by default; ~10x faster).
if PGAS_BENCH_SCALE=${PGAS_TEST_TUNE_SCALE:-1000} "$RUN" -n 3 -t "$TLIMIT" "$B/bin/pgas-tune" -o "$tune" \
	broadcast reduce_all exchange >/dev/null 2>&1 &&
	[ "$(grep -c '^broadcast 3 ' "$tune")" -eq 8 ] && [ "$(grep -c '^exchange 3 ' "$tune")" -eq 8 ]; then
	ok "pgas-tune -n 3 wrote a tuning file ($(grep -vc '^#' "$tune") entries)"
	run_tap "coll -n 3 with that tuning file" \
		env PGAS_COLL_TUNING="$tune" "$RUN" -n 3 -t "$TLIMIT" "$B/tests/coll" quick
	out=$(PGAS_COLL_TUNING="$tune" PGAS_COLL_VERBOSE=1 "$RUN" -n 3 -t 60 "$B/tests/coll" quick 2>&1 >/dev/null)
	if echo "$out" | grep -q "exchange of .* from the tuning file" &&
		echo "$out" | grep -q "scan of .* from the default model"; then
		ok "PGAS_COLL_VERBOSE names the tuning file and the model as sources"
	else
		notok "PGAS_COLL_VERBOSE: sources not reported"
	fi
	echo "broadcast 3 0 tree:hypercube" >"$tune"
	if PGAS_ERROR_MODE=print PGAS_COLL_TUNING="$tune" "$RUN" -n 3 -t 60 "$B/tests/coll" quick 2>&1 |
		grep -q "pgas_attach: PGAS_COLL_TUNING=.* line 1: .*hypercube"; then
		ok "a bad tuning file fails pgas_attach on every rank, naming the line"
	else
		notok "a bad tuning file was not reported"
	fi
else
	notok "pgas-tune -n 3 did not write a complete tuning file"
fi
rm -f "$tune"
out=$(PGAS_COLL_EXCHANGE=bruck:r3 PGAS_COLL_VERBOSE=1 "$RUN" -n 4 -t 60 "$B/tests/coll" quick 2>&1)
if echo "$out" | grep -q "exchange of .*: bruck:r3:get, from the environment" && ! echo "$out" | grep -q "^not ok"; then
	ok "PGAS_COLL_EXCHANGE=bruck:r3 forces the algorithm"
else
	notok "PGAS_COLL_EXCHANGE did not force the algorithm"
fi
}

# OpenSHMEM (shmem/, docs/shmem.md; issue 13): each conformance program at
# 1-4 PEs under oshrun (-np), built with oshcc; the waits in every wait mode;
# setup at each thread level; shmem_global_exit, a returning
# shmem_finalize and misuse that must end the job with a message; the
# project's OpenSHMEM peer programs build with our oshcc unchanged.
OSHRUN="$B/bin/oshrun"
# The sanitizer builds: the rank counts of RANKS up to 4.
SHMEM_PES="1 2 3 4"
[ "$B" = "$PWD/build" ] || SHMEM_PES=$(for n in $RANKS; do [ "$n" -le 4 ] && echo "$n"; done)
for n in $SHMEM_PES; do
	for t in setup heap rma amo wait compat ctx lock ctx_threads team coll team_ctx team_full globals fork \
		generics; do
		run_tap "shmem/$t -np $n" "$OSHRUN" -np "$n" -t 60 "$B/tests/shmem/$t"
	done
done
for mode in yield block; do
	run_tap "shmem/wait -np 3, PGAS_WAIT_MODE=$mode" \
		env PGAS_WAIT_MODE=$mode "$OSHRUN" -np 3 -t 60 "$B/tests/shmem/wait"
done
for l in single funneled serialized multiple; do
	run_tap "shmem/setup -n 2 -l $l" "$OSHRUN" -n 2 -t 60 "$B/tests/shmem/setup" -l $l
done
# SHMEM_SYMMETRIC_SIZE as the spec writes it (decimal, floating point,
# suffixes) and the deprecated SMA_SYMMETRIC_SIZE: the heap holds that much.
for v in 3.1m:3250586 1M:1048576 010M:10485760 SMA=2m:2097152; do
	var=SHMEM_SYMMETRIC_SIZE; val=${v%:*}
	case $val in SMA=*) var=SMA_SYMMETRIC_SIZE; val=${val#SMA=} ;; esac
	run_tap "shmem/setup -np 2, $var=$val" \
		env $var=$val "$OSHRUN" -np 2 -t 60 "$B/tests/shmem/setup" -a "${v#*:}"
done
# The deprecated and other implementations' names, built as C99 and C++ too.
if [ "$B" = "$PWD/build" ]; then
	for std in c99 c++; do
		osh=$B/bin/oshcc lang="-std=c99"
		[ $std = c++ ] && osh=$B/bin/oshc++ lang="-x c++"
		if "$osh" $lang \
			-Wall -Werror -Iselftests/shmem -o "$B/tests/shmem/compat-$std" \
			selftests/shmem/compat.c 2>"$log"; then
			run_tap "shmem/compat built as $std, -np 2" \
				"$OSHRUN" -np 2 -t 60 "$B/tests/shmem/compat-$std"
		else
			notok "shmem/compat does not build as $std: $(head -n 3 "$log")"
		fi
	done
fi
run_tap "shmem/coll -np 3, another seed, 200 operations" \
	"$OSHRUN" -np 3 -t "$TLIMIT" "$B/tests/shmem/coll" -s 987654321 -k 200
run_tap "shmem/coll -np 3, PGAS_WAIT_MODE=block" \
	env PGAS_WAIT_MODE=block "$OSHRUN" -np 3 -t 120 "$B/tests/shmem/coll" -k 50
run_tap "shmem/heap -np 3, another seed, 1000 operations" \
	"$OSHRUN" -np 3 -t "$TLIMIT" "$B/tests/shmem/heap" -s 987654321 -k 1000
out=$("$OSHRUN" -v -np 3 -t 30 "$B/tests/shmem/setup" -x 6 2>&1)
rc=$?
if [ $rc -eq 6 ] && [ "$(echo "$out" | grep -c 'exited with code 6$')" -eq 3 ]; then
	ok "shmem_global_exit(6) from one PE: every PE ends with 6"
else
	notok "shmem_global_exit(6): exit $rc"
	echo "$out" | tail -n 5 | sed 's/^/    # /'
fi
out=$("$OSHRUN" -np 3 -t 30 "$B/tests/shmem/setup" -f 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ "$(echo "$out" | grep -c 'after shmem_finalize$')" -eq 3 ]; then
	ok "shmem_finalize returns on every PE and the job ends with 0"
else
	notok "shmem_finalize: exit $rc"
	echo "$out" | tail -n 5 | sed 's/^/    # /'
fi
# shmem_misuse PROG WHO "MODE:MESSAGE"...: PROG -m MODE at 2 PEs must end
# the job with 1, PE WHO (a grep pattern) printing "shmem: PE WHO: MESSAGE".
shmem_misuse() {
	local prog=$1 who=$2 c m out rc
	shift 2
	for c in "$@"; do
		m=${c%%:*}
		out=$(env $([ "$m" = size ] && echo SHMEM_SYMMETRIC_SIZE=0x10M) \
			"$OSHRUN" -np 2 -t 30 "$B/tests/shmem/$prog" -m "$m" 2>&1)
		rc=$?
		if [ $rc -eq 1 ] && echo "$out" | grep -q "^shmem: PE $who: ${c#*:}"; then
			ok "shmem/$prog misuse '$m' ends the job with 1, naming the call"
		else
			notok "shmem/$prog misuse '$m': exit $rc"
			echo "$out" | tail -n 5 | sed 's/^/    # /'
		fi
	done
}
shmem_misuse setup "-*[0-9]*" \
	"put:shmem_int_p: .* is not symmetric: not in the heap .* nor in the program.s data" \
	"free:shmem_free: .* was not returned by shmem_malloc" \
	"pe:shmem_long_p: PE 2 out of range (2 PEs)" \
	"overflow:shmem_long_put: [0-9]* elements of 8 bytes overflow size_t" \
	"size:shmem_init: SHMEM_SYMMETRIC_SIZE=0x10M is not a size" \
	"init:shmem_my_pe: called before shmem_init" \
	"pinit:shmem_long_p: called before shmem_init" \
	"pfin:shmem_long_p: called after shmem_finalize" \
	"amoalign:shmem_long_atomic_fetch_add: .*aligned" \
	"amope:shmem_int_atomic_add: PE 2 out of range (2 PEs)" \
	"amolocal:shmem_int_atomic_compare_swap: .* is not symmetric" \
	"amoinit:shmem_int_atomic_inc: called before shmem_init"
# A context used after shmem_ctx_destroy (or SHMEM_CTX_INVALID, or
# SHMEM_CTX_DEFAULT destroyed) ends the job naming the call.
shmem_misuse ctx "[0-9]*" \
	"destroyed:shmem_ctx_long_p: the context .* was destroyed" \
	"invalid:shmem_ctx_long_atomic_inc: the context is SHMEM_CTX_INVALID" \
	"default:shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed" \
	"destroy2:shmem_ctx_destroy: the context .* was destroyed"
# A team context's PE out of its team; a context used after its team went.
shmem_misuse team_ctx 0 \
	"range:shmem_ctx_long_p: PE 1 out of range of the context's team (1 PEs)" \
	"gone:shmem_ctx_long_g: the context .* was destroyed"
shmem_misuse lock 1 "clear:shmem_clear_lock: the lock .* is not held"
run_tap "shmem/lock -np 4 -k 2000" "$OSHRUN" -np 4 -t 120 "$B/tests/shmem/lock" -k 2000
shmem_misuse coll "[0-9]*" \
	"notin:shmem_barrier: PE 0 is not in the active set" \
	"root:shmem_broadcast64: PE_root 2 out of range" \
	"teamroot:shmem_long_broadcast: PE_root -1 out of range"
shmem_misuse team "[0-9]*" "world:shmem_team_destroy: SHMEM_TEAM_WORLD cannot be destroyed"
if "$OSHRUN" 2>/dev/null; then notok "oshrun without -np did not fail"; else ok "oshrun without -np fails"; fi
# make bench's report and plots on a made-up run with known answers (rounds,
# medians, ratios within a round, SVG), and the applications' report
# (scripts/apps_report.py): scripts/test_bench_report.py.
if [ "$B" = "$PWD/build" ]; then
	out=$(python3 scripts/test_bench_report.py 2>&1)
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) notok "${line#not ok - }" ;;
		esac
	done <<<"$out"
	if [ $rc -ne 0 ] && ! grep -q "^not ok" <<<"$out"; then
		notok "bench report: scripts/test_bench_report.py failed (exit $rc)"
		tail -n 5 <<<"$out" | sed 's/^/    # /'
	fi
fi
if [ "$B" = "$PWD/build" ]; then
	osh=$(mktemp -d)
	for p in shmem_bench shmem_atomic shmem_gups shmem_coll; do
		if "$B/bin/oshcc" -O2 -o "$osh/$p" "bench/peers/$p.c" 2>"$osh/err"; then
			ok "bench/peers/$p.c builds with oshcc"
		else
			notok "bench/peers/$p.c does not build with oshcc"
			tail -n 5 "$osh/err" | sed 's/^/    # /'
		fi
	done
	# shmem_coll (1.4 active-set collectives, static pSync/pWrk) runs: 33 results
	if [ -x "$osh/shmem_coll" ]; then
		out=$("$OSHRUN" -np 2 -t 300 "$osh/shmem_coll" 2>&1)
		rc=$?
		if [ $rc -eq 0 ] && [ "$(echo "$out" | grep -c '^RESULT oshmem2\.')" -eq 33 ]; then
			ok "bench/peers/shmem_coll.c runs at 2 PEs (33 results)"
		else
			notok "bench/peers/shmem_coll.c at 2 PEs: exit $rc"
			echo "$out" | tail -n 5 | sed 's/^/    # /'
		fi
	fi
	rm -rf "$osh"
fi

# GUPS (bench/gups.c, issue 12): each variant on a 2^14-word table at 1, 2
# and 4 ranks with HPCC's verification (atomic and AM exact, get-modify-put
# within HPCC's 1%: exit 1 otherwise); a table spoiled on purpose (-x) must
# fail it.
for n in 1 2 4; do
	for v in atomic gmp am; do
		out=$("$RUN" -n "$n" -t 60 "$B/bench/gups" -v $v -n 14 2>&1)
		rc=$?
		if [ $rc -eq 0 ] && echo "$out" | grep -q "^# gups $v: .* (passed; "; then
			ok "gups -n $n -v $v (2^14 words): $(echo "$out" | sed -n "s/^# gups $v: [^,]*, \([0-9]* errors\).*/\1/p")"
		else
			notok "gups -n $n -v $v: exit $rc"
			echo "$out" | tail -n 8 | sed 's/^/    # /'
		fi
	done
done
out=$("$RUN" -n 2 -t 60 "$B/bench/gups" -v am -n 14 -x 1 2>&1)
rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "^# gups am: .* 1 errors .*FAILED"; then
	ok "gups -x 1: one spoiled entry fails the verification (exit $rc)"
else
	notok "gups -x 1: a spoiled entry was not caught: exit $rc"
fi

# Medium payloads as multi-slot VELO packets (the default sends them via
# bounce buffers as soon as they exceed one slot).
for n in 2 3; do
	run_tap "am -n $n, Medium as multi-slot packets" \
		env PGAS_AM_PACKET_MAX=952 "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/am"
	run_tap "traffic -n $n, Medium as multi-slot packets, 64-slot mailboxes" \
		env PGAS_AM_PACKET_MAX=1792 PGAS_MBOX_SLOTS=64 "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/traffic" 5000
done
for mode in spin yield block; do
	run_tap "traffic -n 3, PGAS_WAIT_MODE=$mode" \
		env PGAS_WAIT_MODE=$mode PGAS_MBOX_SLOTS=32 "$RUN" -n 3 -t "$TLIMIT" "$B/tests/traffic" 5000
done
run_tap "blockwait -n 2: a blocked rank sleeps (<10% cpu) and wakes" \
	"$RUN" -n 2 -t "$TLIMIT" "$B/tests/blockwait"
run_tap "barrier -n 8 oversubscribed, block mode" \
	env PGAS_WAIT_MODE=block "$RUN" -n 8 -t "$TLIMIT" "$B/tests/barrier" 500
run_tap "config (one rank, no launcher)" "$B/tests/config"

# A PGAS_* variable that libpgas does not know (misspelt, or removed, like
# PGAS_COLL_TEAMS; issue 21): rank 0 warns once, naming the closest known
# name, and the job works; PGAS_UNKNOWN_ENV=fail refuses on every rank,
# ignore is silent.  Known ones never warn: the table's, pgasrun's own,
# and every PGAS_* name that the project's scripts, tests, benchmarks and
# tools set or read (found here, each set to 1 unless the table has it).
unknown_env() {		# EXPECTED_RC WARNINGS PATTERN VAR=VALUE...
	local want_rc=$1 want_n=$2 pat=$3 out rc n
	shift 3
	out=$(env "$@" "$RUN" -n 2 -t 30 "$B/tests/config" job 2>&1 >/dev/null)
	rc=$?
	n=$(echo "$out" | grep -c "$pat")
	# A refusal ends the job: pgasrun may end the other ranks before they
	# print theirs, so one report at least (want_n says how many can come).
	[ "$want_rc" -ne 0 ] && [ "$n" -ge 1 ] && [ "$n" -le "$want_n" ] && n=$want_n
	if [ $rc -eq "$want_rc" ] && [ "$n" -eq "$want_n" ] &&
	   [ "$want_n" -gt 0 -o -z "$(echo "$out" | grep -i "warning")" ]; then
		ok "unknown PGAS_* variables: $* (exit $rc, $want_n reports)"
	else
		notok "unknown PGAS_* variables: $*: exit $rc: $(echo "$out" | head -n 3)"
	fi
}
unknown_env 0 1 "^pgas\[0\]: warning: PGAS_COLL_TEAMS is not a libpgas variable: ignored; did you mean PGAS_COLL_STAGE?" \
	PGAS_COLL_TEAMS=0
unknown_env 0 1 "^pgas\[0\]: warning: PGAS_WAITMODE is not a libpgas variable: ignored; did you mean PGAS_WAIT_MODE?" \
	PGAS_WAITMODE=spin PGAS_WAIT_MODE=spin
unknown_env 0 0 "warning" PGAS_UNKNOWN_ENV=ignore PGAS_WAITMODE=spin
unknown_env 0 0 "warning" PGAS_WAIT_MODE=spin PGAS_COLL_SCAN=chain:get PGAS_TEST_ANYTHING=1
unknown_env 1 2 "pgas_init: PGAS_WAITMODE is not a libpgas variable (did you mean PGAS_WAIT_MODE?)" \
	PGAS_UNKNOWN_ENV=fail PGAS_WAITMODE=spin
table=$(PGAS_VERBOSEENV=2 "$B/tests/config" job 2>&1 >/dev/null | awk '$1 ~ /^PGAS_/ { print $1 }')
theirs=$(grep -rhoE '\bPGAS_[A-Z][A-Z0-9_]*=|\$\{?PGAS_[A-Z][A-Z0-9_]*|(get|set)env\("PGAS_[A-Z][A-Z0-9_]*' \
	scripts selftests bench tools examples Makefile 2>/dev/null | grep -oE 'PGAS_[A-Z0-9_]+' | sort -u |
	grep -vxF -e PGAS_RANK -e PGAS_NRANKS -e PGAS_BOOT_FD -e PGAS_LAUNCHER_PID -e PGAS_JOB_ID \
		-e PGAS_JOB_KEY -e PGAS_COLL_TEAMS -e PGAS_WAITMODE $(printf ' -e %s' $table) |
	sed 's/$/=1/')
unknown_env 0 0 "warning" $theirs
run_tap "forge -n 2 (forged peer deaths)" "$RUN" -n 2 -t "$TLIMIT" "$B/tests/forge"

# Ranks configured apart (issue 10): a variable set on one rank only (rank
# 0 or the last).  Every "agree" variable of the table fails pgas_init on
# every rank, naming it and the values; the others leave a working job.
one_rank='if [ "$PGAS_RANK" = "$1" ]; then export "$2"; fi; shift 2; exec "$@"'
apart_tested=""
apart_refused() {	# NRANKS RANK VAR=VALUE
	local var=${3%%=*} out rc
	apart_tested="$apart_tested $var"
	out=$("$RUN" -n "$1" -t 30 sh -c "$one_rank" sh "$2" "$3" "$B/tests/config" job "$var" 2>"$log")
	rc=$?
	if [ $rc -eq 0 ] && [ "$(echo "$out" | grep -c "refused: pgas_init: $var differs: rank 0 has .*, rank [1-9][0-9]* has .*: set it alike")" -eq "$1" ]; then
		ok "$3 on rank $2 of $1 only: every rank's pgas_init refuses, naming it"
	else
		notok "$3 on rank $2 of $1 only: exit $rc: $out $(tail -n 3 "$log")"
	fi
}
apart_works() {		# NRANKS RANK VAR=VALUE
	apart_tested="$apart_tested ${3%%=*}"
	run_tap "$3 on rank $2 of $1 only: the job works" \
		"$RUN" -n "$1" -t 30 sh -c "$one_rank" sh "$2" "$3" "$B/tests/config" job
}
apart_refused 2 1 PGAS_CONDUIT=kmod
apart_refused 2 0 PGAS_CONDUIT=kmod
apart_refused 2 1 PGAS_MBOX_SLOTS=64
apart_refused 2 0 PGAS_NOTIFY_ENTRIES=256
apart_refused 2 1 PGAS_MAX_MEDIUM=4096
apart_refused 2 0 PGAS_AM_PACKET_MAX=952
apart_refused 2 1 PGAS_BOUNCE_BUFS=4
apart_refused 2 0 PGAS_OFI_AM=fabric
apart_refused 2 1 PGAS_OFI_ATOMIC=am
apart_refused 2 0 PGAS_EP_MAX=4
apart_refused 2 0 PGAS_COLL_STAGE=8192
apart_refused 3 2 PGAS_COLL_STAGE=8192
apart_refused 2 1 PGAS_COLL_POOL=2M
apart_refused 2 0 PGAS_COLL_TEAM_STAGE=64K
apart_refused 2 1 PGAS_COLL_DEBUG=1
apart_refused 2 1 PGAS_MAP_PEERS=none
apart_refused 3 0 PGAS_COLL_DEBUG=1
apart_refused 2 1 PGAS_COLL_UNMAPPED=1
apart_refused 3 2 PGAS_COLL_BARRIER=dissem:r3
apart_refused 2 0 PGAS_COLL_BROADCAST=tree:flat:put:s8192
apart_refused 2 1 PGAS_COLL_SCATTER=tree:flat:get
apart_refused 2 0 PGAS_COLL_GATHER=tree:flat:put
apart_refused 2 1 PGAS_COLL_GATHER_ALL=flat:put
apart_refused 3 0 PGAS_COLL_EXCHANGE=bruck:r2:get
apart_refused 2 1 PGAS_COLL_REDUCE=tree:flat:get:s8192
apart_refused 2 0 PGAS_COLL_REDUCE_ALL=tree:flat:put:s8192
apart_refused 2 1 PGAS_COLL_SCAN=chain:get:s8192
apart_refused 2 1 PGAS_MAP_PEERS=none
apart_refused 2 1 PGAS_HIER=flat
# (auto would resolve to ofi on the rank with pseudo-hosts: a second difference)
PGAS_CONDUIT=shm apart_refused 2 0 PGAS_FAKE_HOSTS=2
apart_works 2 0 PGAS_ERROR_MODE=print
apart_works 2 1 PGAS_OFI_TIMEOUT=5
apart_works 2 0 PGAS_OFI_RMA=am
apart_works 3 2 PGAS_DEVICE=/nonexistent/pgas9
apart_works 3 0 PGAS_WAIT_MODE=block
apart_works 3 2 PGAS_WAIT_MODE=yield
apart_works 2 1 PGAS_SPIN_LIMIT=5
# Statistics and tracing on one rank only (their files in a scratch folder).
apart_dir=$(mktemp -d)
PGAS_STATS_FILE="$apart_dir/s.%r" apart_works 2 1 PGAS_STATS=1
apart_works 3 2 PGAS_STATS_FILE="$apart_dir/t.%r"
PGAS_TRACE_FILE="$apart_dir/t.%r" apart_works 2 0 PGAS_TRACE=31
apart_works 2 1 PGAS_TRACE_FILE="$apart_dir/u.%r"
rm -rf "$apart_dir"
# One rank sleeping on the CQ's fd, the other napping (block mode over ofi).
if "$RUN" --version | grep -q '^conduits:.* ofi'; then
	PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp PGAS_WAIT_MODE=block \
		apart_works 2 1 PGAS_OFI_WAIT_FD=0
else
	apart_works 2 1 PGAS_OFI_WAIT_FD=0
fi
# One rank with fabric endpoints of its own, the other sharing its primary's.
if "$RUN" --version | grep -q '^conduits:.* ofi'; then
	PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp apart_works 2 1 PGAS_OFI_EPS=0
else
	apart_works 2 1 PGAS_OFI_EPS=0
fi
apart_works 3 0 PGAS_SEGMENT_SIZE=3M
apart_works 2 1 PGAS_VERBOSEENV=1
apart_works 2 0 PGAS_COLL_VERBOSE=1
apart_works 3 1 PGAS_UNKNOWN_ENV=fail
apart_tune=$(mktemp)
echo "reduce_all 2 0 flat:get" >"$apart_tune"
apart_works 2 0 PGAS_COLL_TUNING="$apart_tune"
apart_works 2 1 PGAS_COLL_TUNING=/nonexistent/tuning
rm -f "$apart_tune"
run_tap "config job -n 3, layout and forcing variables alike on every rank" \
	env PGAS_MBOX_SLOTS=64 PGAS_COLL_STAGE=8192 PGAS_COLL_DEBUG=1 PGAS_COLL_POOL=2M \
	PGAS_COLL_REDUCE_ALL=flat:get PGAS_AM_PACKET_MAX=952 "$RUN" -n 3 -t 30 "$B/tests/config" job
# A real program: the first collective used to hang; now the job ends at once.
for c in "2 0 PGAS_COLL_STAGE=8192" "3 2 PGAS_COLL_DEBUG=1"; do
	set -- $c
	PGAS_ERROR_MODE=print "$RUN" -n "$1" -t 30 sh -c "$one_rank" sh "$2" "$3" "$B/tests/coll" quick \
		>/dev/null 2>"$log"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "pgas_init: ${3%%=*} differs: rank 0 has" "$log"; then
		ok "coll -n $1 with $3 on rank $2 only ends with code $rc, naming ${3%%=*}"
	else
		notok "coll -n $1 with $3 on rank $2 only: exit $rc: $(tail -n 3 "$log")"
	fi
done
set --
# Every row of the table is among the cases above.
untested=$(PGAS_VERBOSEENV=2 "$B/tests/config" job 2>&1 >/dev/null |
	awk '$1 ~ /^PGAS_/ && $2 ~ /^(local|agree|agree-kmod|rank0)$/ { print $1 }' |
	while read -r v; do case " $apart_tested " in *" $v "*) ;; *) echo "$v" ;; esac; done)
if [ -z "$untested" ]; then
	ok "ranks configured apart: every variable of the table is tested"
else
	notok "ranks configured apart: untested variables:" $untested
fi

# ---- the ofi conduit (libfabric; docs/ofi.md) ---------------------------------
# AM over the fabric to every other rank: PGAS_OFI_AM=fabric runs the
# transport on one host while the segments stay mapped (with
# PGAS_MAP_PEERS=none every other rank is remote too, once the core's remote
# paths are in: issue 22).  Both of libfabric's one-host providers: tcp
# (tcp;ofi_rxm over loopback) and shm.  The plain build only (libfabric is
# not built with sanitizers).  Skipped, saying so, where it was not built.
if ! "$RUN" --version | grep -q '^conduits:.* ofi'; then
	echo "# ofi not built (no libfabric found by pkg-config at build time): its cases skipped"
elif [ "$(basename "$B")" = build ]; then
	for prov in tcp shm; do
		for n in 2 3; do
			for t in am traffic barrier immediate rma signal; do
				run_tap "ofi FI_PROVIDER=$prov: $t -n $n, AM over the fabric" \
					env PGAS_CONDUIT=ofi PGAS_OFI_AM=fabric FI_PROVIDER=$prov \
					"$RUN" -n "$n" -t "$TLIMIT" "$B/tests/$t"
			done
		done
		# Open (issue 22, docs/ofi.md "What is left"): the churn case
		# hangs 1 run in 3 or 4 here (a rank goes silent, its peer names
		# it gone after PGAS_OFI_TIMEOUT; seed 5092408457 replays it at
		# times; main at 33923c0 too), so this line leaves it out until
		# it is fixed; churn runs over ofi with PGAS_MAP_PEERS=none below.
		run_tap "ofi FI_PROVIDER=$prov: threads_eps -n 2 -t 2, AM over the fabric (no churn)" \
			env PGAS_CONDUIT=ofi PGAS_OFI_AM=fabric FI_PROVIDER=$prov \
			"$RUN" -n 2 -t "$TLIMIT" "$B/tests/threads_eps" -t 2 -i 100 \
			-c traffic,progress,misuse
		run_tap "ofi FI_PROVIDER=$prov: traffic -n 2, 16-slot mailboxes (backlog)" \
			env PGAS_CONDUIT=ofi PGAS_OFI_AM=fabric FI_PROVIDER=$prov PGAS_MBOX_SLOTS=16 \
			"$RUN" -n 2 -t "$TLIMIT" "$B/tests/traffic"
		# The exit drains a flood between two ranks that rank 0 never
		# talks to: the pages' test of quiescence read the proxy rings
		# (shipped, not handled) and most of it was lost, with rc 0.
		run_exit 0 "^ok - rank 1 got" "ofi FI_PROVIDER=$prov: exit_drain -n 3, AM over the fabric" \
			env PGAS_CONDUIT=ofi PGAS_OFI_AM=fabric FI_PROVIDER=$prov \
			"$RUN" -n 3 -t "$TLIMIT" "$B/tests/exit_drain"
	done
	run_tap "ofi FI_PROVIDER=tcp: am -n 2, block wait mode" \
		env PGAS_CONDUIT=ofi PGAS_OFI_AM=fabric FI_PROVIDER=tcp PGAS_WAIT_MODE=block \
		"$RUN" -n 2 -t "$TLIMIT" "$B/tests/am"
	# Block mode with no peer mapped (docs/ofi.md, "Block wait mode"): the
	# waits sleep on the CQ's wait fd and the rank's eventfd (threads: with
	# its progress thread).  Then blockwait's AM ping-pong, counted: sleeps
	# ended by the fd on both ranks (before, only a nap's timeout ended a
	# sleep the fabric should end), and PGAS_OFI_WAIT_FD=0 naps as before.
	for t in am barrier "threads -t 2"; do
		run_tap "ofi tcp, no peer mapped, block mode: $t -n 2" \
			env PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp PGAS_WAIT_MODE=block \
			"$RUN" -n 2 -t "$TLIMIT" "$B/tests/"$t
	done
	for fd in 1 0; do
		out=$(PGAS_VERBOSEENV=1 PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp \
		      PGAS_OFI_WAIT_FD=$fd "$RUN" -n 2 -t "$TLIMIT" "$B/tests/blockwait" 200 100 2>&1)
		rc=$?
		want="block sleeps on the wait fd: [0-9]\{2,\} woken"	# of 100 round trips
		[ $fd = 0 ] && want="block sleeps on the wait fd: 0 woken, 0 timed out"
		if [ $rc -eq 0 ] && echo "$out" | grep -q "^1\.\.3$" && ! echo "$out" | grep -q "^not ok" &&
		   [ "$(echo "$out" | grep -c "^pgas\[[01]\]: ofi conduit: .*$want")" -eq 2 ]; then
			ok "ofi tcp, no peer mapped: blockwait -n 2, PGAS_OFI_WAIT_FD=$fd: $([ $fd = 1 ] && echo "sleeps end by the CQ's wait fd" || echo "naps on the doorbell") ($(echo "$out" | sed -n 's/^# block mode AM round trip: \([0-9.]* us\).*/\1/p') a round trip)"
		else
			notok "ofi tcp: blockwait, PGAS_OFI_WAIT_FD=$fd: exit $rc: $(echo "$out" | grep -v "^ok\|^  PGAS\|^pgas: " | tail -n 6)"
		fi
	done
	# A rank SIGKILLed while the others wait on it (barrier, get,
	# all-reduce), every peer remote: the ofi conduit's liveness (docs/ofi.md,
	# "Failure") ends their waits with PGAS_ERR_GONE naming it, within
	# PGAS_OFI_TIMEOUT=1 of its last word, inside pgasrun's 2 s between
	# SIGTERM (which they ignore) and SIGKILL.
	for w in barrier get coll; do
		out=$(PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp PGAS_OFI_TIMEOUT=1 \
		      "$RUN" -n 3 -t 30 "$B/tests/lifecycle" deadwait 2 $w 2>&1)
		rc=$?
		got=$(echo "$out" | grep -c "^ok - rank [01]: .*PGAS_ERR_GONE naming rank 2")
		if [ $rc -ne 124 ] && [ "$got" -eq 2 ] && ! echo "$out" | grep -q "^not ok"; then
			ok "ofi: rank 2 SIGKILLed while 0 and 1 wait in $w: PGAS_ERR_GONE naming it ($(echo "$out" | sed -n 's/^# rank 0: waited \([0-9]*\) ms.*/\1/p') ms)"
		else
			notok "ofi: rank 2 SIGKILLed in $w: exit $rc, $got of 2 ranks got PGAS_ERR_GONE naming it"
			echo "$out" | tail -n 4 | sed 's/^/    # /'
		fi
	done
	# RMA over the fabric (fi_write/fi_read with the exchanged keys) to
	# every other rank: PGAS_MAP_PEERS=none.  rma_nopoll: a put's sync means
	# the data is at a target that does not poll; the exit statistics
	# (PGAS_VERBOSEENV=1) show that writes and reads went by the fabric, and
	# PGAS_OFI_RMA=bounce runs the FI_MR_LOCAL path (registered copies).
	# (Over tcp the whole data list runs in the block "the remote path over
	# the fabric" below.)
	for prov in tcp shm; do
		for n in 2 3; do
			[ $prov = tcp ] && continue
			for t in rma vis region remote signal; do
				run_tap "ofi FI_PROVIDER=$prov: $t -n $n, RMA over the fabric" \
					env PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=$prov \
					"$RUN" -n "$n" -t "$TLIMIT" "$B/tests/$t"
			done
		done
		# fabric: a burst's first write delivery complete, the others
		# delivered by a read behind them (docs/ofi.md, "Flushed
		# writes"); flush: every write by a read; dc: none by a read.
		for mode in fabric bounce dc flush; do
			out=$(PGAS_VERBOSEENV=1 PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=$prov \
			      PGAS_OFI_RMA=$mode "$RUN" -n 2 -t "$TLIMIT" "$B/tests/rma_nopoll" 2>&1)
			rc=$?
			want="rma: [1-9][0-9]* writes, [1-9][0-9]* reads, [0-9]* bytes, "
			[ $mode = bounce ] && want="$want[1-9]"
			[ $mode = flush ] && want="$want.* queue full, [1-9][0-9]* flush reads"
			[ $mode = dc ] && want="$want.* queue full, 0 flush reads"
			if [ $rc -eq 0 ] && echo "$out" | grep -q "^1\.\.9$" &&
			   ! echo "$out" | grep -q "^not ok" &&
			   [ "$(echo "$out" | grep -c "^pgas\[[01]\]: ofi conduit: .*$want")" -eq 2 ]; then
				ok "ofi FI_PROVIDER=$prov: rma_nopoll -n 2, PGAS_OFI_RMA=$mode: puts delivered to a target that does not poll, by fi_write/fi_read; quiet, fence and release order them"
			else
				notok "ofi FI_PROVIDER=$prov: rma_nopoll, PGAS_OFI_RMA=$mode: exit $rc: $(echo "$out" | grep -v "^ok\|^  PGAS\|^pgas: " | tail -n 6)"
			fi
		done
	done
	# poll_put: a rank waiting for a remote put with pgas_poll() alone sees
	# it (pgas_poll drives the fabric's progress), both RMA paths.
	for mode in fabric am; do
		run_tap "ofi FI_PROVIDER=tcp: poll_put -n 2, PGAS_OFI_RMA=$mode, yield" \
			env PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp PGAS_OFI_RMA=$mode \
			PGAS_WAIT_MODE=yield "$RUN" -n 2 -t "$TLIMIT" "$B/tests/poll_put"
	done
	out=$(PGAS_ERROR_MODE=print PGAS_CONDUIT=ofi FI_PROVIDER=nonexistent \
	      "$RUN" -n 2 -t 30 "$B/tests/am" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && echo "$out" | grep -q "pgas_init: ofi conduit: no libfabric provider .*FI_PROVIDER=nonexistent"; then
		ok "ofi: a provider that does not exist fails pgas_init, naming FI_PROVIDER"
	else
		notok "ofi: FI_PROVIDER=nonexistent: exit $rc: $(echo "$out" | tail -n 2)"
	fi
	# libfabric's shm provider leaves /dev/shm/PID:0:0 behind when a
	# process dies; a later rank of that pid died of SIGBUS in pgas_init.
	run_tap "ofi FI_PROVIDER=shm: am -n 2 over a dead process's /dev/shm region of each rank's pid" \
		env PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=shm "$RUN" -n 2 -t "$TLIMIT" \
		sh -c 'touch "/dev/shm/$$:0:0"; exec "$0"' "$B/tests/am"
	# The job key (docs/ofi.md, "Who can reach a rank's memory"): a
	# process outside the job (tests/ofi_intruder) finds both ranks'
	# listening tcp ports and sends each 5 rounds of every kind of the
	# conduit's messages with a wrong key (an AM request, a barrier flag,
	# a notification, a ping, a goodbye, a short one, a 1 MiB one); the
	# job must end with its own results (no request of the intruder's
	# dispatched, its barriers unharmed) and each rank count exactly what
	# the provider took from the intruder as dropped.
	if [ -x "$B/tests/ofi_intruder" ]; then
		jkdir=$(mktemp -d)
		PGAS_ERROR_MODE=print PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp \
			"$RUN" -n 2 -t 40 "$B/tests/jobkey" "$jkdir" >"$jkdir/out" 2>&1 &
		jkpid=$!
		for _ in $(seq 100); do
			[ -e "$jkdir/pid.0" ] && [ -e "$jkdir/pid.1" ] && break
			sleep 0.1
		done
		intr=$(FI_PROVIDER=tcp timeout 30 "$B/tests/ofi_intruder" "$jkdir" 2 7 5 2>&1)
		irc=$?
		wait $jkpid
		rc=$?
		out=$(cat "$jkdir/out")
		bad=
		for rk in 0 1; do
			sent=$(echo "$intr" | sed -n "s/^# sent \([0-9]*\) to rank $rk .*/\1/p")
			drop=$(echo "$out" | sed -n "s/^pgas\[$rk\]: ofi conduit: \([0-9]*\) arrivals dropped: not this job's key.*/\1/p")
			[ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$sent" = "$drop" ] ||
				bad="$bad rank $rk: intruder sent ${sent:-?}, dropped ${drop:-none};"
		done
		if [ $irc -eq 0 ] && [ $rc -eq 0 ] && [ -z "$bad" ] && echo "$out" | grep -q "^1\.\.2$" &&
		   ! echo "$out" | grep -q "^not ok"; then
			ok "ofi FI_PROVIDER=tcp: jobkey -n 2: a process outside the job sends every kind of conduit message with a wrong key: none dispatched, all counted dropped"
		else
			notok "ofi FI_PROVIDER=tcp: jobkey: job exit $rc, intruder exit $irc;$bad"
			{ echo "$intr"; echo "$out"; } | grep -v "^ok\|^  PGAS\|^pgas: " | tail -n 8 | sed 's/^/    # /'
		fi
		rm -rf "$jkdir"
	fi
	# A job on one host keeps tcp's traffic on lo (whatever interface
	# fi_getinfo lists first).
	fab=$(PGAS_VERBOSEENV=1 PGAS_CONDUIT=ofi FI_PROVIDER=tcp "$RUN" -n 2 -t 30 \
	      "$B/examples/demo" 2>&1 | sed -n 's/^pgas: ofi conduit: provider tcp;ofi_rxm, fabric \([^,]*\),.*/\1/p')
	case $fab in
	127.*|::1/128) ok "ofi: FI_PROVIDER=tcp on one host takes the loopback fabric ($fab)" ;;
	*) notok "ofi: FI_PROVIDER=tcp on one host took fabric '$fab', not loopback" ;;
	esac
fi

# ---- the remote path over the fabric: the data tests with no peer mapped ----
# PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none: every other rank is reached through
# libfabric (issue 22: "the ofi conduit on one host, with no peer mapped,
# must pass the whole native tier"), so every data op's remote path runs
# over the fabric under the tests of the mapped one: the libpgas programs at
# 2 and 3 ranks and every OpenSHMEM program at 2 PEs over tcp (on lo), a
# core set over libfabric's shm provider; the sanitizer builds a core set at
# 2 ranks (libfabric itself is not instrumented).  Not here: immediate (its
# ranks stop polling while they fill each other's rings), the lifecycle and
# rev_ cases (the none control block below runs them over shm).
if "$RUN" --version | grep -q '^conduits:.* ofi'; then
	OFI_NONE="PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none"
	if [ "$(basename "$B")" = build ]; then
		for n in 2 3; do
			for t in rma am errors barrier teams atomics signal vis region remote traffic \
				coll ctl_remote ep_progress blockwait teams_model copy; do
				run_tap "ofi tcp, no peer mapped: $t -n $n" \
					env $OFI_NONE FI_PROVIDER=tcp "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/$t"
			done
			[ "$n" = 2 ] && run_tap "ofi tcp, no peer mapped: threads_eps -n 2 -t 2" \
				env $OFI_NONE FI_PROVIDER=tcp "$RUN" -n 2 -t "$TLIMIT" \
				"$B/tests/threads_eps" -t 2 -i 100
			run_clean "ofi tcp, no peer mapped: threads_alone -n $n" \
				env $OFI_NONE FI_PROVIDER=tcp PGAS_MBOX_SLOTS=16 "$RUN" -n "$n" -t 120 \
				"$B/tests/threads_alone"
			run_tap "ofi tcp, no peer mapped: threads -n $n -t 2" \
				env $OFI_NONE FI_PROVIDER=tcp "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/threads" -t 2
		done
		for t in setup heap rma amo wait compat ctx lock ctx_threads team coll team_ctx team_full \
			globals fork generics; do
			run_tap "ofi tcp, no peer mapped: shmem/$t -np 2, PGAS_OFI_ATOMIC=fabric" \
				env $OFI_NONE FI_PROVIDER=tcp PGAS_OFI_ATOMIC=fabric "$B/bin/oshrun" -np 2 -t 120 \
				"$B/tests/shmem/$t"
		done
		# A forked child's exit once closed its parent's fabric endpoint
		# (docs/ofi.md, "Fork"); with am, 3 ranks: a child's mark that
		# reached its parent would silence the parent's bye (exit 70).
		run_tap "ofi tcp, no peer mapped: shmem/fork -np 3, PGAS_OFI_ATOMIC=am" \
			env $OFI_NONE FI_PROVIDER=tcp PGAS_OFI_ATOMIC=am "$B/bin/oshrun" -np 3 -t 120 \
			"$B/tests/shmem/fork"
		set -- am atomics coll	# and the ofi block's shm runs
	else
		set -- rma am atomics signal coll
	fi
	for t in "$@"; do
		for prov in tcp shm; do
			[ "$prov" = tcp ] && [ "$(basename "$B")" = build ] && continue	# above
			run_tap "ofi $prov, no peer mapped: $t -n 2" \
				env $OFI_NONE FI_PROVIDER=$prov "$RUN" -n 2 -t "$TLIMIT" "$B/tests/$t"
		done
	done
fi

# ---- fabric endpoints of extra endpoints (issue 22, docs/ofi.md "Fabric endpoints")
# Each pgas endpoint gets a fid_ep and CQ of its own: ep_fabric's threads
# (an endpoint each) put and get to the next rank, destroy endpoints with
# puts in flight, and one endpoint's puts complete while another waits on
# a rank that does not poll.  From the exit statistics: every rank opened
# fabric endpoints and no RMA completed on the shared one.  With
# PGAS_OFI_EPS=1 the endpoints beyond one share the primary's (said under
# PGAS_VERBOSEENV) and the results are the same.  The sanitizer builds run
# the first line (TSan: the threads on their own queues).
if "$RUN" --version | grep -q '^conduits:.* ofi'; then
	fep_check() {	# name, want refused (0/1), env...
		name=$1 refused=$2
		shift 2
		out=$(env PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp PGAS_VERBOSEENV=1 "$@" \
		      "$RUN" -n 3 -t "$TLIMIT" "$B/tests/ep_fabric" -t 3 -i 20 2>&1)
		rc=$?
		own=$(echo "$out" | grep -c "^pgas\[[0-2]\]: ofi conduit: fabric endpoints: [1-9][0-9]* opened, $([ "$refused" = 1 ] && echo "[1-9][0-9]*" || echo 0) refused.*on the shared endpoint: $([ "$refused" = 1 ] && echo "[0-9]*" || echo 0) rma completions")
		said=$(echo "$out" | grep -c "shares the primary's fabric endpoint: this process has opened PGAS_OFI_EPS=1")
		if [ $rc -eq 0 ] && echo "$out" | grep -q "^1\.\.3$" && ! echo "$out" | grep -q "^not ok" &&
		   [ "$own" -eq 3 ] && { [ "$refused" = 0 ] || [ "$said" -gt 0 ]; }; then
			ok "$name"
		else
			notok "$name: exit $rc, plan lines $(echo "$out" | grep -c '^1\.\.3$'), $(echo "$out" | grep -c '^not ok') not ok, $own of 3 ranks' statistics as wanted, $said said: $(echo "$out" | grep '^not ok\|ThreadSanitizer\|^# ' | head -n 4) $(echo "$out" | grep -v "^ok\|^  PGAS\|^pgas: \|^  " | tail -n 6)"
		fi
	}
	fep_check "ofi tcp, no peer mapped: ep_fabric -n 3 -t 3: each endpoint's RMA on its own fabric endpoint, none on the shared one" 0
	[ "$(basename "$B")" = build ] &&
		fep_check "ofi tcp, no peer mapped: ep_fabric -n 3 -t 3, PGAS_OFI_EPS=1: the endpoints beyond it share the primary's, said" 1 PGAS_OFI_EPS=1
	# A target out of file descriptors (rank 1 under ulimit -n 18) never
	# accepts a new endpoint's connection: its puts go on the shared one
	# after PGAS_OFI_TIMEOUT (they retried forever before).
	[ "$(basename "$B")" = build ] &&
		run_tap "ofi tcp, no peer mapped: ep_stuck -n 2, the target out of descriptors: an endpoint that cannot connect falls back to the shared one" \
			env PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp PGAS_OFI_TIMEOUT=5 "$RUN" -n 2 -t 120 \
			sh -c '[ "$PGAS_RANK" = 1 ] && ulimit -n 18; exec "$0"' "$B/tests/ep_stuck"
fi

# ---- atomics over the fabric (issue 22, docs/ofi.md "Atomics") -----------------
# A domain whose type and operations the provider does is a fabric domain:
# every operation through it, on any rank, the own and mapped ones too, is
# an fi_atomic (the exit statistics count them), never a CPU atomic that
# would mix with the provider's on a word; PGAS_OFI_ATOMIC=am keeps every
# domain on AM and CPU atomics.  atomics_mix: every thread of every rank on
# one word of rank 0 (seeded, the seed printed), exact.  Rank 0 (and, with
# pseudo-hosts, rank 1, which maps rank 0) must have posted at least its
# own operations with fabric, none with am.  tcp only: libfabric 1.17's shm
# provider lost updates here, its domains stay on AM.  The plain build, ~40 s.
if "$RUN" --version | grep -q '^conduits:.* ofi' && [ "$(basename "$B")" = build ]; then
	amo_check() {	# name, rank whose count is checked, minimum (0: none), command...
		name=$1 rk=$2 min=$3
		shift 3
		out=$(PGAS_VERBOSEENV=1 "$@" 2>&1)
		rc=$?
		# (the statistics line goes on after the atomics: block sleeps, foreign)
		cnt=$(echo "$out" | sed -n "s/^pgas\[$rk\]: ofi conduit: .*; \([0-9]*\) atomics\(;.*\)\{0,1\}\$/\1/p")
		enough=$([ -n "$cnt" ] && echo $((min ? cnt >= min : cnt == 0)))
		if [ $rc -eq 0 ] && echo "$out" | grep -q "^1\.\.[1-9]" &&
		   ! echo "$out" | grep -q "^not ok" && [ "$enough" = 1 ]; then
			ok "$name (rank $rk: $cnt fabric atomics)"
		else
			notok "$name: exit $rc, rank $rk posted '$cnt' fabric atomics (want $([ "$min" -gt 0 ] && echo ">= $min" || echo 0)): $(echo "$out" | grep -v "^ok\|^  PGAS\|^pgas: " | tail -n 6)"
		fi
	}
	for mode in fabric am; do
		min=1000
		[ $mode = am ] && min=0
		amo_check "ofi tcp, no peer mapped, PGAS_OFI_ATOMIC=$mode: atomics -n 3" 0 $min \
			env PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp PGAS_OFI_ATOMIC=$mode \
			"$RUN" -n 3 -t "$TLIMIT" "$B/tests/atomics"
		amo_check "ofi tcp, no peer mapped, PGAS_OFI_ATOMIC=$mode: atomics_mix -n 3, 3 threads each, rank 0's own word" \
			0 $((min * 9 / 10)) \
			env PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp PGAS_OFI_ATOMIC=$mode \
			"$RUN" -n 3 -t "$TLIMIT" "$B/tests/atomics_mix" -t 3 -i 300
	done
	amo_check "ofi tcp, 2 pseudo-hosts: atomics_mix -n 4, 2 threads each: rank 1 maps rank 0 and still uses the fabric" \
		1 600 env PGAS_CONDUIT=ofi FI_PROVIDER=tcp PGAS_FAKE_HOSTS=2 \
		"$RUN" -n 4 -t "$TLIMIT" "$B/tests/atomics_mix" -t 2 -i 300
fi

# ---- across hosts on one: PGAS_FAKE_HOSTS (issue 22, the hierarchy) -----------
# Pseudo-hosts of consecutive ranks: the ofi conduit maps a pseudo-host's
# ranks and reaches the others over the fabric (tcp on loopback).  hier
# compares the hierarchical barrier and collectives with the flat ones
# bitwise (2 and 3 hosts, an uneven 5 on 2); teams and the OpenSHMEM teams
# on them; a rank that leaves before a hierarchical barrier, a member and
# a host's leader, is PGAS_ERR_GONE, named.  The plain build only, ~50 s.
if "$RUN" --version | grep -q '^conduits:.* ofi' && [ "$(basename "$B")" = build ]; then
	for c in "2 4" "2 5" "3 6"; do
		set -- $c
		run_tap "hier -n $2, $1 pseudo-hosts: hierarchical = flat" \
			env PGAS_CONDUIT=ofi FI_PROVIDER=tcp PGAS_FAKE_HOSTS=$1 \
			"$RUN" -n "$2" -t "$TLIMIT" "$B/tests/hier"
	done
	run_tap "teams -n 5, 2 pseudo-hosts" env PGAS_CONDUIT=ofi FI_PROVIDER=tcp PGAS_FAKE_HOSTS=2 \
		"$RUN" -n 5 -t "$TLIMIT" "$B/tests/teams"
	# Each pseudo-host's segments side by side in its own memfd (shm.c).
	run_tap "segsizes -n 7, 3 pseudo-hosts" env PGAS_CONDUIT=ofi FI_PROVIDER=tcp PGAS_FAKE_HOSTS=3 \
		"$RUN" -n 7 -t "$TLIMIT" "$B/tests/segsizes"
	run_tap "shmem team -n 4, 2 pseudo-hosts" \
		env PGAS_CONDUIT=ofi FI_PROVIDER=tcp PGAS_FAKE_HOSTS=2 \
		"$B/bin/oshrun" -n 4 -t "$TLIMIT" "$B/tests/shmem/team"
	for v in 1 2; do
		run_exit 4 "PGAS_ERR_GONE naming rank $v" \
			"lifecycle barrier exit0 $v -n 4, 2 pseudo-hosts: the others' hierarchical barrier names it" \
			env PGAS_CONDUIT=ofi FI_PROVIDER=tcp PGAS_FAKE_HOSTS=2 \
			"$RUN" -n 4 -t 60 "$B/tests/lifecycle" barrier exit0 $v
	done
fi

# ---- launcher behaviour -------------------------------------------------------

lc="$B/tests/lifecycle"
start=$(date +%s)
"$RUN" -n 4 -t 60 "$lc" kill 2 >/dev/null 2>"$log"
rc=$?
took=$(($(date +%s) - start))
if [ $rc -eq 137 ] && grep -q "rank 2 (pid [0-9]*) was killed by signal 9" "$log" && [ $took -lt 30 ]; then
	ok "SIGKILLed rank: pgasrun names rank 2 and signal 9, exits 137 in ${took}s"
else
	notok "SIGKILLed rank: exit $rc after ${took}s: $(cat "$log")"
fi

"$RUN" -n 3 -t 60 "$lc" exit 1 7 >/dev/null 2>"$log"
rc=$?
if [ $rc -eq 7 ] && grep -q "rank 1 (pid [0-9]*) exited with code 7" "$log"; then
	ok "rank exiting with code 7 ends the job with code 7"
else
	notok "exit code propagation: exit $rc: $(cat "$log")"
fi

# A rank that ends because pgas.ko reported a peer's death may be reaped
# first: pgasrun names the dead peer, not the consequence.
"$RUN" -n 3 -t 60 "$lc" peerdied >/dev/null 2>"$log"
rc=$?
if [ $rc -eq 137 ] && grep -q "^pgasrun: rank 1 (pid [0-9]*) was killed by signal 9" "$log" &&
	! grep -q "rank 0 (pid [0-9]*) exited with code 70" "$log"; then
	ok "a rank ending over a peer's death: pgasrun names the dead peer (rank 1, signal 9)"
else
	notok "peer death named: exit $rc: $(cat "$log")"
fi

# Gets from a rank that was killed: its data, never other bytes with rc 0.
out=$("$RUN" -n 3 -t 60 "$lc" deadget 1 2>"$log")
rc=$?
if [ $rc -eq 137 ] && [ "$(echo "$out" | grep -c '^ok - rank [02]: .*gets from dead rank 1')" -eq 2 ]; then
	ok "gets from a killed rank return its data or PGAS_ERR_GONE, never other bytes"
else
	notok "gets from a killed rank: exit $rc: $(echo "$out" | grep ok) $(tail -n 3 "$log")"
fi

"$RUN" -n 3 -t 2 "$lc" hang >/dev/null 2>"$log"
rc=$?
if [ $rc -eq 124 ] && grep -q "time limit of 2 s" "$log"; then
	ok "time limit: a hung job is ended with exit code 124"
else
	notok "time limit: exit $rc: $(cat "$log")"
fi

"$RUN" -n 3 "$lc" hang >"$log.out" 2>"$log" &
runpid=$!
for _ in $(seq 100); do
	[ "$(grep -c ready "$log.out" 2>/dev/null)" = 3 ] && break
	sleep 0.1
done
kill -TERM $runpid
wait $runpid
rc=$?
if [ $rc -eq 143 ] && grep -q "passing it to the ranks" "$log"; then
	ok "SIGTERM to pgasrun is forwarded; job ends with 143"
else
	notok "signal forwarding: exit $rc: $(cat "$log")"
fi
rm -f "$log.out"

"$RUN" -n 3 -t 60 "$lc" ok >/dev/null 2>"$log"
rc=$?
if [ $rc -eq 0 ]; then ok "clean job exits 0"; else notok "clean job: exit $rc: $(cat "$log")"; fi

"$RUN" -n 0 "$lc" >/dev/null 2>&1
rc1=$?
"$RUN" -n 2 /nonexistent/program >/dev/null 2>"$log"
rc2=$?
if [ $rc1 -eq 2 ] && [ $rc2 -eq 127 ] && grep -q "cannot run /nonexistent/program" "$log"; then
	ok "bad -n is a usage error (2); a missing program exits 127 with its name"
else
	notok "launcher argument errors: $rc1 $rc2 $(cat "$log")"
fi

# The usual conventions (issue 24): --help on stdout with the exit codes,
# mpirun's -np and --np=N, "--" before the program, whose own options
# (even -np) are left alone; an option that means something else here
# (--host) is refused, named, with exit 2; oshrun's --help and --version.
out=$("$RUN" --help 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^usage: pgasrun' <<<"$out" && grep -q '^Exit status' <<<"$out" &&
	grep -q -- '-np N' <<<"$out"; then
	ok "pgasrun --help: usage, options and exit codes on stdout, exit 0"
else
	notok "pgasrun --help: exit $rc: $out"
fi
fails=
for args in "-np 2" "--np=2" "-np=2" "-n 2 --" "--np 2 --oversubscribe --timeout=60 --"; do
	# shellcheck disable=SC2086 # the options are words
	"$RUN" $args "$lc" ok >/dev/null 2>"$log" || fails="$fails [$args: $(head -c 200 "$log")]"
done
# The program's own -np and --: not the launcher's.
out=$("$RUN" -n 1 /bin/echo -np 5 -- -t 2>&1)
[ "$out" = "-np 5 -- -t" ] || fails="$fails [echo's arguments: $out]"
# A time limit is 1 second to a year: "-1" and an overflowing number were
# taken (strtoul) and ended the job at once with 124.
for tl in -1 " 2" 0 9300000000000000; do
	"$RUN" -n 1 -t "$tl" /bin/true >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || fails="$fails [-t '$tl': exit $rc]"
done
if [ -z "$fails" ]; then
	ok "pgasrun takes -np N, -np=N, --np=N, --timeout=S, --oversubscribe and --; a program's own -np is its own; -t -1/0/overflow are usage errors"
else
	notok "pgasrun's mpirun spellings:$fails"
fi
"$RUN" --host a -n 2 "$lc" ok >/dev/null 2>"$log"
rc=$?
if [ $rc -eq 2 ] && grep -q -- "--host" "$log"; then
	ok "pgasrun --host (not its meaning here): refused with its name, exit 2"
else
	notok "pgasrun --host: exit $rc: $(cat "$log")"
fi
# pgasctl's usage errors are 2 with or without pgas.ko (this host has none).
"$B/bin/pgasctl" bogus >/dev/null 2>&1
rc1=$?
"$B/bin/pgasctl" destroy >/dev/null 2>&1
rc2=$?
if [ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && "$B/bin/pgasctl" --help | grep -q '^usage: pgasctl'; then
	ok "pgasctl: an unknown command or a missing NIC number is a usage error (2); --help exits 0"
else
	notok "pgasctl usage errors: exit $rc1 and $rc2"
fi
osh=$B/bin/oshrun
if "$osh" --help | grep -q '^usage: oshrun' && "$osh" --version | grep -q '^oshrun' &&
	"$osh" -np 2 -- "$lc" ok >/dev/null 2>"$log" &&
	[ "$("$osh" -np 1 -- /bin/echo -np x 2>>"$log")" = "-np x" ] &&
	! "$osh" -np 1 -t 0 /bin/true 2>/dev/null && ! "$osh" -np 1 -t '' /bin/true 2>/dev/null; then
	ok "oshrun --help, --version and -- before the program (passed on to pgasrun); -t 0 or '' refused"
else
	notok "oshrun conventions: $(cat "$log")"
fi

# Every way a rank can leave at every point (scripts/check-lifecycle.sh), at
# the ranks of this run among 2, 3 and 8.
lc_ranks=$(for n in $RANKS; do case $n in 2 | 3 | 8) echo -n "$n " ;; esac; done)
if [ -n "$lc_ranks" ]; then
	PGAS_LIFECYCLE_RANKS="$lc_ranks" scripts/check-lifecycle.sh "$B" >"$log" 2>&1
	grep '^not ok' -A12 "$log" | grep -v '^--$' || true
	pass=$((pass + $(grep -c '^ok ' "$log")))
	fail=$((fail + $(grep -c '^not ok ' "$log")))
	grep '^lifecycle: [0-9]* passed' "$log" || notok "check-lifecycle.sh printed no result"
fi

# The control paths without mapped peers (PGAS_MAP_PEERS=none; issue 22,
# core/ctl.c): barriers, the exit, the quiescence test and endpoint lookup
# by control messages, through the same tests in the modes that need no
# RMA into a peer (barrier 0, am nolong, threads_eps misuse, the lifecycle
# points barrier, flood and handler), ctl_remote (endpoints of unmapped
# ranks, a destroyed one GONE; a rank SIGKILLed while the others wait in
# pgas_exit or a barrier: pgasrun names it, never a hang), and the exit
# tests.  The cases that need RMA run with none once the remote data path
# is in (issue 22).
export PGAS_MAP_PEERS=none
for n in $RANKS; do
	[ "$n" -le 4 ] || continue
	run_tap "barrier 0 -n $n (none)" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/barrier" 0
	run_tap "am nolong -n $n (none)" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/am" nolong
	run_tap "ctl_remote -n $n (none)" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/ctl_remote"
	[ "$n" -ge 2 ] || continue
	run_tap "threads_eps -n $n -c misuse (none)" "$RUN" -n "$n" -t "$TLIMIT" \
		"$B/tests/threads_eps" -s 1 -t 2 -c misuse
	run_tap "blockwait -n $n (none)" "$RUN" -n "$n" -t "$TLIMIT" "$B/tests/blockwait"
	for m in killexit killbar; do
		run_exit 137 "rank 1 (pid [0-9]*) was killed by signal 9" \
			"ctl_remote $m -n $n (none): a rank killed while the others wait, named" \
			"$RUN" -n "$n" -t 60 "$B/tests/ctl_remote" $m 1
	done
done
if [ "$B" = "$PWD/build" ]; then
	for c in "2 spin rev_ep_exit" "2 block rev_ep_exit" "2 spin rev_wait_local"; do
		set -- $c
		run_clean "$3 -n $1 ($2, none)" env PGAS_WAIT_MODE="$2" "$RUN" -n "$1" -t 60 "$B/tests/$3"
	done
	for c in "1 rev_ep_handler_request" "2 rev_ep_exit_flood ep" "2 rev_ep_exit_flood primary" \
		"2 rev_ep_exit_flood reply" "2 rev_ep_exit_flood few" "2 rev_ep_barrier_deadlock" \
		"1 rev_ep_self_wait" "2 rev_ep_fork_destroy create" "1 rev_ep_destroy_local_send"; do
		set -- $c
		n=$1 prog=$2
		shift 2
		run_clean "$prog -n $n $* (none)" env PGAS_MBOX_SLOTS=16 "$RUN" -n "$n" -t 60 \
			"$B/tests/$prog" "$@"
	done
	run_exit 70 "inside the handler of a request" \
		"rev_ep_exit_in_handler (none): the requester left unanswered ends (70)" \
		"$RUN" -n 2 -t 60 "$B/tests/rev_ep_exit_in_handler"
	for n in 2 3; do
		run_clean "threads_alone -n $n (none)" env PGAS_MBOX_SLOTS=16 "$RUN" -n "$n" -t 120 \
			"$B/tests/threads_alone"
	done
	for c in "3 barrier 0" "3 barrier 3" "4 compute 0" "3 handler 9" "3 thread 0"; do
		set -- $c
		out=$("$RUN" -v -n "$1" -t 60 "$B/tests/global_exit" -c "$3" -w "$2" 2>&1)
		rc=$?
		got=$(echo "$out" | grep -c "exited with code $3\$")
		if [ $rc -eq "$3" ] && [ "$got" -eq "$1" ]; then
			ok "global_exit -n $1 -w $2 (none): every rank ended with $3"
		else
			notok "global_exit -n $1 -w $2 (none): pgasrun exit $rc, $got of $1 ranks with $3"
		fi
	done
fi
if [ -n "$lc_ranks" ]; then
	PGAS_LIFECYCLE_POINTS="barrier flood handler" PGAS_LIFECYCLE_RANKS="$lc_ranks" \
		scripts/check-lifecycle.sh "$B" >"$log" 2>&1
	grep '^not ok' -A12 "$log" | grep -v '^--$' || true
	pass=$((pass + $(grep -c '^ok ' "$log")))
	fail=$((fail + $(grep -c '^not ok ' "$log")))
	grep '^lifecycle: [0-9]* passed' "$log" | sed 's/$/ (PGAS_MAP_PEERS=none)/' ||
		notok "check-lifecycle.sh (none) printed no result"
fi
unset PGAS_MAP_PEERS

# make install: a program built against the installed tree with pkg-config runs.
inst=$(mktemp -d)
if [ "$B" = "$PWD/build" ] &&
	make -s install DESTDIR="$inst" PREFIX=/usr >/dev/null 2>"$log" &&
	cc -std=c11 -Wall -Werror -o "$inst/demo" examples/demo.c \
		$(PKG_CONFIG_SYSROOT_DIR="$inst" PKG_CONFIG_LIBDIR="$inst/usr/lib/pkgconfig" \
		  pkg-config --cflags pgas) -L"$inst/usr/lib" -l:libpgas.a 2>>"$log" &&
	"$inst/usr/bin/pgasrun" -n 2 -t 60 "$inst/demo" 2>>"$log" | grep -q "rank 1/2: ping 101 -> pong 202"; then
	ok "make install: headers, libraries, pgas.pc and pgasrun build and run the demo"
elif [ "$B" = "$PWD/build" ]; then
	notok "make install: $(cat "$log")"
fi
# ... as a new user writes it, under a prefix outside the compiler's paths:
# #include <pgas/pgas.h> with pkg-config's flags (it gave -I<prefix>/include/pgas
# only, where <pgas/pgas.h> is not found).
if [ "$B" = "$PWD/build" ] && [ -f "$inst/usr/lib/pkgconfig/pgas.pc" ]; then
	printf '#include <pgas/pgas.h>\n#include <pgas.h>\nint main(void) { return (int)pgas_nranks(); }\n' \
		>"$inst/new_user.c"
	if cc -std=c11 -Wall -Werror -o "$inst/new_user" "$inst/new_user.c" \
		$(PKG_CONFIG_SYSROOT_DIR="$inst" PKG_CONFIG_LIBDIR="$inst/usr/lib/pkgconfig" \
		  pkg-config --cflags --libs pgas) 2>"$log" &&
		LD_LIBRARY_PATH="$inst/usr/lib" "$inst/new_user"; then
		ok "make install: #include <pgas/pgas.h> (and <pgas.h>) with pkg-config's flags"
	else
		notok "make install: #include <pgas/pgas.h> with pkg-config's flags: $(head -n 3 "$log")"
	fi
fi
# OpenSHMEM from an installed tree under a prefix of its own: oshcc and
# oshrun build and run a conformance program, and so do pkg-config's shmem
# flags (<shmem.h> in <prefix>/include; libshmem.a over libpgas.a).
if [ "$B" = "$PWD/build" ]; then
	oinst=$(mktemp -d)
	if make -s install PREFIX="$oinst" >/dev/null 2>"$log" &&
		"$oinst/bin/oshcc" -std=c11 -Wall -Werror -Iselftests/shmem -o "$oinst/rma" \
			selftests/shmem/rma.c 2>>"$log" &&
		"$oinst/bin/oshrun" -np 2 -t 60 "$oinst/rma" 2>>"$log" >"$oinst/out" &&
		grep -q '^1\.\.6$' "$oinst/out" && ! grep -q '^not ok' "$oinst/out"; then
		ok "make install PREFIX=...: the installed oshcc and oshrun build and run shmem/rma"
	else
		notok "installed oshcc/oshrun: $(tail -n 3 "$log")"
	fi
	if cc -std=c11 -Wall -Werror -Iselftests/shmem -o "$oinst/amo" selftests/shmem/amo.c \
		$(PKG_CONFIG_LIBDIR="$oinst/lib/pkgconfig" pkg-config --cflags --libs shmem) 2>"$log" &&
		LD_LIBRARY_PATH="$oinst/lib" "$oinst/bin/oshrun" -n 2 -t 60 "$oinst/amo" 2>>"$log" \
			>"$oinst/out" &&
		grep -q '^1\.\.5$' "$oinst/out" && ! grep -q '^not ok' "$oinst/out"; then
		ok "make install PREFIX=...: pkg-config shmem builds shmem/amo, which runs"
	else
		notok "pkg-config shmem: $(tail -n 3 "$log")"
	fi
	# Programs written for other implementations include <shmemx.h> too.
	printf '#include <shmem.h>\n#include <shmemx.h>\nint main(void) { shmem_init(); shmem_finalize(); return !SHMEMX_LIBPGAS; }\n' \
		>"$oinst/x.c"
	if "$oinst/bin/oshcc" -std=c11 -Wall -Werror -o "$oinst/x" "$oinst/x.c" 2>"$log" &&
		"$oinst/bin/oshrun" -np 2 -t 60 "$oinst/x" 2>>"$log"; then
		ok "make install PREFIX=...: <shmemx.h> is installed beside <shmem.h>"
	else
		notok "installed <shmemx.h>: $(tail -n 3 "$log")"
	fi
	rm -rf "$oinst"
fi
# Statistics and tracing (docs/stats.md): a program of known traffic
# (selftests/libpgas/stats.c, built with PGAS_INSTRUMENT; stats_plain
# without) reports with PGAS_STATS exactly what it did on every rank, the
# inline calls only where instrumented, to mapped peers and over the
# remote paths (PGAS_MAP_PEERS=none); PGAS_TRACE writes one line for each
# event the counts count.  The library's own messages and the wait steps
# vary from run to run: present, not compared.
sdir=$(mktemp -d)
for c in "stats 2 mapped" "stats 3 mapped" "stats_plain 2 mapped" "stats 2 remote" \
	"stats_plain 3 remote"; do
	read -r prog n mode <<<"$c"
	rm -f "$sdir"/st.*
	"$B/tests/$prog" --expected "$mode" >"$sdir/want"
	if env PGAS_STATS=1 PGAS_STATS_FILE="$sdir/st.%r" \
		$([ "$mode" = remote ] && echo PGAS_MAP_PEERS=none) \
		"$RUN" -n "$n" -t 60 "$B/tests/$prog" >"$log" 2>&1; then
		bad=
		for r in $(seq 0 $((n - 1))); do
			grep -v -e '^#' -e '^am\.library\.' -e '^wait ' "$sdir/st.$r" 2>/dev/null |
				cmp -s - "$sdir/want" || bad="$bad $r"
			# Whether the inline calls were counted, said in the report.
			grep -q '^# the inline calls .* not counted' "$sdir/st.$r" 2>/dev/null
			[ $? -eq "$([ "$prog" = stats ] && echo 1 || echo 0)" ] || bad="$bad $r(comment)"
		done
		if [ -z "$bad" ]; then
			ok "PGAS_STATS: $prog ($mode, $n ranks) reports its traffic exactly on every rank ($(wc -l <"$sdir/want") counters)"
		else
			notok "PGAS_STATS: $prog ($mode, $n ranks): ranks$bad differ: $(diff "$sdir/want" <(grep -v '^#' "$sdir/st.${bad# }" 2>/dev/null) | head -n 8 | tr '\n' ' ')"
		fi
	else
		notok "PGAS_STATS: $prog ($mode, $n ranks) failed: $(tail -n 4 "$log")"
	fi
done
rm -f "$sdir"/st.* "$sdir"/tr.*
if PGAS_STATS=1 PGAS_STATS_FILE="$sdir/st.%r" PGAS_TRACE=31 PGAS_TRACE_FILE="$sdir/tr.%r" \
	"$RUN" -n 2 -t 60 "$B/tests/stats" >"$log" 2>&1; then
	bad=
	for r in 0 1; do
		# Each event's lines in the trace, against its count; times in order.
		grep -v '^#' "$sdir/tr.$r" | awk '{ print $2 }' | sort | uniq -c |
			awk '{ print $2, $1 }' >"$sdir/traced"
		grep -v -e '^#' -e '^wait ' -e '^put\.mapped\.' -e '^get\.mapped\.' "$sdir/st.$r" |
			awk '{ print $1, $2 }' | sort >"$sdir/counted"
		cmp -s "$sdir/traced" "$sdir/counted" || bad="$bad $r"
		grep -v '^#' "$sdir/tr.$r" | awk 'p > $1 { exit 1 } { p = $1 }' || bad="$bad $r(order)"
		head -n 1 "$sdir/tr.$r" | grep -q "^# pgas trace: rank $r of 2" || bad="$bad $r(header)"
	done
	if [ -z "$bad" ]; then
		ok "PGAS_TRACE=31: each rank's trace has one line per event PGAS_STATS counts, in time order"
	else
		notok "PGAS_TRACE: ranks$bad: $(diff "$sdir/counted" "$sdir/traced" | head -n 6 | tr '\n' ' ')"
	fi
else
	notok "PGAS_TRACE: stats under PGAS_TRACE=31 failed: $(tail -n 4 "$log")"
fi
rm -f "$sdir"/tr.*
if PGAS_TRACE=4 PGAS_TRACE_FILE="$sdir/tr.%r" "$RUN" -n 2 -t 60 "$B/tests/stats" >"$log" 2>&1 &&
	! grep -qv -e '^#' -e ' am\.' "$sdir/tr.0" && grep -q ' am\.short\.request ' "$sdir/tr.0" &&
	[ ! -s "$log" ]; then
	ok "PGAS_TRACE=4 traces AM only; without PGAS_STATS nothing is printed"
else
	notok "PGAS_TRACE=4: $(head -n 3 "$log" "$sdir/tr.0" 2>/dev/null)"
fi
# A job that fails: the trace of the rank that ended with an error keeps
# what it did (line-buffered), its AM sent included.
rm -f "$sdir"/tr.*
PGAS_TRACE=31 PGAS_TRACE_FILE="$sdir/tr.%r" "$RUN" -n 2 -t 60 "$B/tests/stats" --fail >"$log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$(grep -c ' am\.short\.request ' "$sdir/tr.1" 2>/dev/null)" = 6 ]; then
	ok "PGAS_TRACE: a rank that ends with pgas_exit(3) keeps its trace (6 AM requests traced)"
else
	notok "PGAS_TRACE: failing job (exit $rc): $(head -n 3 "$sdir/tr.1" 2>/dev/null)"
fi
run_exit 1 'PGAS_STATS' "PGAS_STATS=2 is refused, naming the variable" \
	env PGAS_STATS=2 "$RUN" -n 1 -t 60 "$B/tests/stats"
rm -rf "$sdir"

# OpenSHMEM's profiling interface (docs/shmem.md, "Profiling"): every
# routine of libshmem (shared and archive) is also pshmem_X, and X is weak.
# A counting library as tools build them (selftests/shmem/prof/mkcount.sh:
# every routine, forwarded to pshmem_X) linked before libshmem sees a
# program of known traffic (prof/known.c, SHMEM_NO_INLINE) exactly, on
# every PE: shared, with the archives, and static.  Under it, the
# conformance programs (all but setup) pass, and it sees each routine they
# reference (all but their failure paths' shmem_global_exit and
# shmem_long_atomic_add) and no other (the layer's own calls stay inside).  oshcc's programs link libshmem.so.
same_all() {	# same_all FILE FILE...: every FILE the same as the first
	local want=$1 f
	shift
	for f; do
		cmp -s "$want" "$f" || return 1
	done
}
if [ "$B" = "$PWD/build" ] && [ -f "$B/lib/libshmem.so" ]; then
	pdir=$(mktemp -d)
	nm -D --defined-only "$B/lib/libshmem.so" | sed 's/@.*//' >"$pdir/dyn"
	nm --defined-only "$B/lib/libshmem.a" 2>/dev/null >"$pdir/arc"
	for lib in dyn arc; do
		awk '$3 ~ /^shmemx?_[a-z0-9]/ { print $2, $3 }' "$pdir/$lib" | sort -u >"$pdir/plain"
		awk '$3 ~ /^pshmemx?_[a-z0-9]/ && $2 == "T" { print substr($3, 2) }' "$pdir/$lib" |
			sort -u >"$pdir/p"
		nplain=$(wc -l <"$pdir/plain")
		strong=$(awk '$1 != "W" { print $2 }' "$pdir/plain" | tr '\n' ' ')
		missing=$(awk '{ print $2 }' "$pdir/plain" | comm -23 - "$pdir/p" | tr '\n' ' ')
		if [ "$nplain" -gt 1000 ] && [ -z "$strong" ] && [ -z "$missing" ]; then
			ok "profiling interface ($lib): $nplain routines, each weak and also pshmem_"
		else
			notok "profiling interface ($lib): $nplain routines; not weak: ${strong:0:200}; no pshmem_: ${missing:0:200}"
		fi
	done
	if [ "$(uname -m)" = x86_64 ] && selftests/shmem/prof/mkcount.sh "$B/lib/libshmem.so" \
		>"$pdir/count.c" 2>"$log" &&
		cc -O2 -fPIC -shared -o "$pdir/libcount.so" "$pdir/count.c" 2>>"$log" &&
		cc -O2 -c -o "$pdir/count.o" "$pdir/count.c" 2>>"$log"; then
		"$B/bin/oshcc" -std=c11 -o "$pdir/known" selftests/shmem/prof/known.c 2>>"$log"
		"$pdir/known" --expected >"$pdir/expected"
		for how in "shared:-L$pdir -Wl,-rpath,$pdir -lcount" "archives:$pdir/count.o" \
			"static:-static $pdir/count.o"; do
			link=${how%%:*}
			# shellcheck disable=SC2086 # the link arguments are words
			if ! OSHCC_LINK=$([ "$link" = shared ] && echo shared || echo archives) \
				"$B/bin/oshcc" -std=c11 -o "$pdir/known-$link" selftests/shmem/prof/known.c \
				${how#*:} >"$log" 2>&1; then
				notok "profiling ($link): known did not build: $(tail -n 2 "$log")"
				continue
			fi
			for n in 1 2 3; do
				rm -f "$pdir"/prof.*
				if PROF_DIR=$pdir "$RUN" -n "$n" -t 60 "$pdir/known-$link" >"$log" 2>&1 &&
					[ "$(ls "$pdir"/prof.* 2>/dev/null | wc -l)" -eq "$n" ] &&
					same_all "$pdir/expected" "$pdir"/prof.*; then
					ok "profiling ($link, $n PEs): the counting library sees known's calls and bytes exactly"
				else
					notok "profiling ($link, $n PEs): $(cat "$log" "$pdir"/prof.* 2>/dev/null | head -c 400)"
				fi
			done
		done
		# A library written against <pshmem.h>, with the routines' types
		# (prof/typed.c; C and C++ see every declaration of pshmem.h).
		rm -f "$pdir"/typed.*
		if "$B/bin/oshcc" -std=c11 -Wall -Wextra -Werror -pedantic -O2 -fPIC -shared \
			-o "$pdir/libtyped.so" selftests/shmem/prof/typed.c >"$log" 2>&1 &&
			echo '#include <pshmem.h>' | "$B/bin/oshc++" -Wall -Wextra -Werror -x c++ \
				-fsyntax-only - >>"$log" 2>&1 &&
			"$B/bin/oshcc" -std=c11 -o "$pdir/known-typed" selftests/shmem/prof/known.c \
				-L"$pdir" -Wl,-rpath,"$pdir" -ltyped >>"$log" 2>&1 &&
			PROF_DIR=$pdir "$RUN" -n 2 -t 60 "$pdir/known-typed" >>"$log" 2>&1 &&
			grep -E '^shmem_(barrier_all|long_atomic_fetch_add|long_p|putmem) ' "$pdir/expected" \
				>"$pdir/typed.want" && [ "$(wc -l <"$pdir/typed.want")" -eq 4 ] &&
			same_all "$pdir/typed.want" "$pdir/typed.0" "$pdir/typed.1"; then
			ok "profiling: a library written against pshmem.h (C11 -Werror, C++) sees known's calls exactly (2 PEs)"
		else
			notok "profiling: pshmem.h: $(tail -n 4 "$log"; cat "$pdir"/typed.* 2>/dev/null | head -c 300)"
		fi
		# Every conformance program but setup (whose routines depend on its
		# command line); team's store to a PE that is not SHARED runs only
		# with PGAS_MAP_PEERS=none: a second run, whose profile joins.
		for t in rma amo coll wait compat ctx ctx_threads fork generics globals heap lock \
			team team_ctx team_full; do
			rm -rf "$pdir"/prof.* "$pdir/none"
			mkdir "$pdir/none"
			if "$B/bin/oshcc" -std=c11 -DSHMEM_NO_INLINE -Iselftests/shmem -o "$pdir/$t" \
				selftests/shmem/$t.c -L"$pdir" -Wl,-rpath,"$pdir" -lcount >"$log" 2>&1 &&
				PROF_DIR=$pdir "$RUN" -n 2 -t 120 "$pdir/$t" >"$pdir/out" 2>>"$log" &&
				grep -q '^1\.\.[0-9]' "$pdir/out" && ! grep -q '^not ok' "$pdir/out" &&
				{ [ "$t" != team ] || { PROF_DIR=$pdir/none PGAS_MAP_PEERS=none "$RUN" -n 2 \
					-t 120 "$pdir/$t" >"$pdir/out" 2>>"$log" &&
					! grep -q '^not ok' "$pdir/out"; }; }; then
				nm -u "$pdir/$t" | awk '{ sub(/@.*/, "", $2); print $2 }' |
					grep -E '^shmemx?_[a-z0-9]' | grep -vxE 'shmem_global_exit|shmem_long_atomic_add' |
					sort -u >"$pdir/ref"
				cat "$pdir"/prof.* "$pdir"/none/prof.* 2>/dev/null | awk '{ print $1 }' |
					sort -u >"$pdir/seen"
				if cmp -s "$pdir/ref" <(comm -12 "$pdir/ref" "$pdir/seen") &&
					[ -z "$(comm -13 "$pdir/ref" "$pdir/seen" | grep -vxE 'shmem_global_exit|shmem_long_atomic_add')" ]; then
					ok "profiling: shmem/$t passes under the counting library, which sees each of its $(wc -l <"$pdir/ref") routines and no other"
				else
					notok "profiling: shmem/$t: not seen: $(comm -23 "$pdir/ref" "$pdir/seen" | head -5 | tr '\n' ' ') seen, not referenced: $(comm -13 "$pdir/ref" "$pdir/seen" | head -5 | tr '\n' ' ')"
				fi
			else
				notok "profiling: shmem/$t under the counting library: $(tail -n 3 "$log" "$pdir/out")"
			fi
		done
	elif [ "$(uname -m)" = x86_64 ]; then
		notok "profiling: the counting library did not build: $(tail -n 3 "$log")"
	else
		echo "# profiling: the counting library's forwarders are x86-64 only"
	fi
	if ldd "$B/tests/shmem/rma" | grep -q 'libshmem\.so\.0 => .*/lib/libshmem\.so\.0'; then
		ok "oshcc links libshmem.so by default (shmem/rma's libraries: libshmem.so.0)"
	else
		notok "oshcc's default link: $(ldd "$B/tests/shmem/rma" | tr '\n' ' ')"
	fi
	rm -rf "$pdir"
fi

# Manual pages (man/, built into $B/man): each renders without a warning
# from man and groff; every public call of the installed headers has its
# section 3 page (or an alias); libpgas(7)'s ENVIRONMENT names every
# variable of the library's table (pgasrun --env); make install puts them
# where man finds them (man -M PREFIX/share/man).
if [ "$B" = "$PWD/build" ]; then
	if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
		notok "manual pages: man or groff missing (scripts/deps.sh test installs them)"
	else
		bad=
		npages=0
		for f in "$B"/man/man[1-8]/*.[1-8]; do
			npages=$((npages + 1))
			w=$(cd "$B/man" && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z \
				"${f#"$B/man/"}" 2>&1 >/dev/null)
			[ -z "$w" ] || bad="$bad [${f#"$B/man/"}: $(head -c 200 <<<"$w")]"
		done
		if [ -z "$bad" ] && [ "$npages" -gt 20 ]; then
			ok "manual pages: $npages render without a warning (man --warnings)"
		else
			notok "manual pages ($npages):$bad"
		fi
		missing=$(grep -ohE '\bpgas_[a-z0-9][a-z0-9_]* *\(' libpgas/include/*.h | tr -d ' (' |
			grep -v '__' | sort -u |
			while read -r fn; do
				grep -qE "^typedef .*\b$fn\b|\(\*$fn\)" libpgas/include/*.h && continue
				[ -f "$B/man/man3/$fn.3" ] || echo "$fn"
			done | tr '\n' ' ')
		if [ -z "$missing" ]; then
			ok "manual pages: every public call of the installed headers has its section 3 page"
		else
			notok "manual pages: no section 3 page for: $missing"
		fi
		env_names=$("$RUN" --env | grep -E '^PGAS_' | sort)
		page_names=$(MANWIDTH=200 man -l "$B/man/man7/libpgas.7" 2>/dev/null |
			sed -n '/^ENVIRONMENT/,/^[A-Z]/p' | grep -oE '^ +PGAS_[A-Z0-9_]+$' | tr -d ' ' | sort)
		if [ -n "$env_names" ] && [ "$env_names" = "$page_names" ]; then
			ok "libpgas(7) lists every variable of the table ($(wc -l <<<"$env_names"))"
		else
			notok "libpgas(7)'s ENVIRONMENT against pgasrun --env: $(diff <(echo "$env_names") <(echo "$page_names") | head -5 | tr '\n' ' ')"
		fi
		minst=$(mktemp -d)
		if make -s install PREFIX="$minst" >/dev/null 2>"$log" &&
			man -M "$minst/share/man" 3 pgas_put 2>>"$log" | grep -q 'pgas_put' &&
			man -M "$minst/share/man" 1 oshrun 2>>"$log" | grep -q 'oshrun' &&
			man -M "$minst/share/man" 7 libpgas 2>>"$log" | grep -q 'PGAS_CONDUIT'; then
			ok "make install: man -M PREFIX/share/man finds pgas_put(3), oshrun(1), libpgas(7)"
		else
			notok "installed manual pages: $(tail -n 3 "$log")"
		fi
		rm -rf "$minst"
	fi
fi

# The shared library: a program linked against it runs, and it exports what
# the installed headers name and nothing else (scripts/export-map.sh).
if [ "$B" = "$PWD/build" ] && [ -f "$inst/usr/lib/libpgas.so.0" ]; then
	if cc -std=c11 -Wall -Werror -o "$inst/demo-so" examples/demo.c -I"$inst/usr/include/pgas" \
		-L"$inst/usr/lib" -lpgas 2>"$log" &&
		LD_LIBRARY_PATH="$inst/usr/lib" "$inst/usr/bin/pgasrun" -n 2 -t 60 "$inst/demo-so" 2>>"$log" |
		grep -q "rank 1/2: ping 101 -> pong 202"; then
		ok "libpgas.so: the demo linked against it runs"
	else
		notok "libpgas.so: the demo linked against it: $(cat "$log")"
	fi
	leaked=$(nm -D --defined-only "$inst/usr/lib/libpgas.so.0" | awk '{ print $3 }' |
		grep -E '^(pgas__(err|cfg|job|fatal|progress|coll_progress)|pgas_(boot|kmod|shm|conduit)_)' || true)
	nexp=$(nm -D --defined-only "$inst/usr/lib/libpgas.so.0" | grep -c ' [TDBR] ')
	if [ -z "$leaked" ]; then
		ok "libpgas.so exports $nexp symbols: no internals beyond what the inline fast path calls"
	else
		notok "libpgas.so exports internals: $leaked"
	fi
fi
rm -rf "$inst"

# Layers (docs/design-threads-endpoints.md, 5.2), from the objects (a
# stray extern counts too): boot calls nothing of the others; the conduits
# call boot only; the core calls nothing of the collectives, which plug in
# through core/layer.h's hooks.
if [ "$B" = "$PWD/build" ]; then
	o=$B/obj
	boot="$o/libpgas/boot/bootstrap.o $o/libpgas/boot/env.o $o/libpgas/boot/error.o"
	conduits="$o/conduit/conduits.o $o/conduit/maps.o $(echo $o/conduit/*/*.o)"
	calls() {	# calls "FROM..." "TO...": what FROM's objects use of TO's
		comm -12 <(nm -u $1 | awk '{ print $2 }' | sort -u) \
			 <(nm -g --defined-only $2 | awk 'NF == 3 { print $3 }' | sort -u) | tr '\n' ' '
	}
	for edge in "boot:$boot:core, collectives and conduits:$o/libpgas/core/*.o $o/libpgas/coll/*.o $conduits" \
		"conduits:$conduits:core and collectives:$o/libpgas/core/*.o $o/libpgas/coll/*.o" \
		"core:$o/libpgas/core/*.o:collectives:$o/libpgas/coll/*.o" \
		"core:$o/libpgas/core/*.o:a conduit but through its ops:$(echo $o/conduit/*/*.o)"; do
		IFS=: read -r from fobjs to tobjs <<<"$edge"
		c=$(calls "$fobjs" "$tobjs")
		if [ -z "$c" ]; then
			ok "layers: nothing in $from calls $to"
		else
			notok "layers: $from calls $to: $c"
		fi
	done
fi

# The inline fast path's ABI guard (pgas_fast.h, PGAS__FAST_ABI): a program
# compiled against another fast path must not link against this library,
# statically or dynamically.
if [ "$B" = "$PWD/build" ]; then
	abi_dir=$(mktemp -d)
	cp libpgas/include/*.h "$abi_dir/"
	sed -i 's/^#define PGAS__FAST_ABI \([0-9]*\)/#define PGAS__FAST_ABI 9\1/' "$abi_dir/pgas_fast.h"
	for lib in "$B/lib/libpgas.a" "-L$B/lib -lpgas"; do
		# shellcheck disable=SC2086 # $lib is one or two words
		if ${CC:-cc} -std=c11 -I"$abi_dir" -Iuapi -o "$abi_dir/demo" examples/demo.c $lib \
			>"$abi_dir/log" 2>&1; then
			notok "fast-path ABI guard: a program built for another fast path linked ($lib)"
		elif grep -q 'pgas__fast_abi_9' "$abi_dir/log"; then
			ok "fast-path ABI guard: another fast path's program does not link ($lib)"
		else
			notok "fast-path ABI guard ($lib): $(head -c 300 "$abi_dir/log")"
		fi
	done
	# Fast path 2 (before pgas__copy_long) is still served: its programs
	# link, statically and dynamically, and run.
	cp libpgas/include/*.h "$abi_dir/"
	sed -i 's/^#define PGAS__FAST_ABI [0-9]*/#define PGAS__FAST_ABI 2/' "$abi_dir/pgas_fast.h"
	ln -sf "$B/lib/libpgas.so" "$abi_dir/libpgas.so.0"	# the soname (make install's link)
	for lib in "$B/lib/libpgas.a" "-L$B/lib -lpgas"; do
		# shellcheck disable=SC2086 # $lib is one or two words
		if ${CC:-cc} -std=c11 -I"$abi_dir" -Iuapi -o "$abi_dir/demo2" examples/demo.c $lib \
			>"$abi_dir/log" 2>&1 &&
			LD_LIBRARY_PATH="$abi_dir" "$RUN" -n 2 -t "$TLIMIT" "$abi_dir/demo2" >>"$abi_dir/log" 2>&1; then
			ok "fast-path ABI guard: a program of fast path 2 still links and runs ($lib)"
		else
			notok "fast-path ABI guard: fast path 2 ($lib): $(head -c 300 "$abi_dir/log")"
		fi
	done
	# The same for shmem.h's inline paths (SHMEM__FAST_ABI).
	cp shmem/include/*.h "$abi_dir/"
	sed -i 's/^#define SHMEM__FAST_ABI \([0-9]*\)/#define SHMEM__FAST_ABI 9\1/' "$abi_dir/shmem.h"
	printf '#include <shmem.h>\nint main(void) { shmem_init(); shmem_finalize(); return 0; }\n' \
		>"$abi_dir/p.c"
	if ${CC:-cc} -std=c11 -I"$abi_dir" -Iuapi -o "$abi_dir/p" "$abi_dir/p.c" \
		"$B/lib/libshmem.a" "$B/lib/libpgas.a" >"$abi_dir/log" 2>&1; then
		notok "shmem fast-path ABI guard: a program built for another heap view linked"
	elif grep -q 'shmem__fast_abi_9' "$abi_dir/log"; then
		ok "shmem fast-path ABI guard: another heap view's program does not link"
	else
		notok "shmem fast-path ABI guard: $(head -c 300 "$abi_dir/log")"
	fi
	rm -rf "$abi_dir"
fi

# NAS FT (apps/ft, docs/apps.md): class S of each variant over libpgas and
# our OpenSHMEM at 1, 2 and 4 ranks (the sanitizer builds: 2), verified
# against NPB's checksums; over the remote paths (PGAS_MAP_PEERS=none);
# class W's pencils at 4 ranks; a bad class, variant or rank count refused.
if [ ! -x "$B/apps/ft" ] || [ ! -x "$B/apps/ft-shmem" ]; then
	notok "NAS FT not built in $B: FFTW missing (scripts/deps.sh test: libfftw3-dev)"
else
	ft_ranks="1 2 4"
	[ "$B" = "$PWD/build" ] || ft_ranks=2
	for n in $ft_ranks; do
		for v in exchange slabs pencils; do
			run_app "ft --class S --variant $v -n $n (libpgas)" \
				"$RUN" -n "$n" -t "$TLIMIT" "$B/apps/ft" --class S --variant $v
			run_app "ft-shmem --class S --variant $v -n $n (OpenSHMEM)" \
				"$B/bin/oshrun" -n "$n" -t "$TLIMIT" "$B/apps/ft-shmem" --class S --variant $v
		done
	done
	if [ "$B" = "$PWD/build" ]; then
		for v in exchange slabs pencils; do
			run_app "ft --class S --variant $v -n 2, PGAS_MAP_PEERS=none (remote paths)" \
				env PGAS_MAP_PEERS=none "$RUN" -n 2 -t "$TLIMIT" "$B/apps/ft" --class S --variant $v
		done
		run_app "ft --class W --variant pencils -n 4" \
			"$RUN" -n 4 -t "$TLIMIT" "$B/apps/ft" --class W --variant pencils
	fi
	run_exit 1 "): ft: --class 'Z': one of S, W, A, B" "ft --class Z: refused, naming it" \
		"$RUN" -n 2 -t "$TLIMIT" "$B/apps/ft" --class Z --variant slabs
	run_exit 1 "ft: --variant 'rows': one of exchange, slabs, pencils" \
		"ft --variant rows: refused, naming it" \
		"$RUN" -n 1 -t "$TLIMIT" "$B/apps/ft" --class S --variant rows
	run_exit 1 "class S (64x64x64) needs a rank count dividing 64 and 64, not 3" \
		"ft --class S at 3 ranks: refused, naming the count" \
		"$RUN" -n 3 -t "$TLIMIT" "$B/apps/ft" --class S --variant pencils
fi

# The stencil and the integer sort (apps/stencil, apps/isort; docs/apps.md)
# over libpgas and our OpenSHMEM at 1 to 4 ranks (the sanitizer builds: 2
# and 3): 3 ranks make uneven tiles and shares, 4 a 2 x 2 grid of tiles
# (halo columns; 257 uneven ones), 9 a 3 x 3 grid; over the remote paths
# at 3; refusals name the value.  Both check their answer exactly enough
# that a run which moves no data fails (docs/apps.md).
app_ranks="1 2 3 4"
[ "$B" = "$PWD/build" ] || app_ranks="2 3"
for n in $app_ranks; do
	run_app "stencil --n 300 --iters 60 -n $n (libpgas)" \
		"$RUN" -n "$n" -t "$TLIMIT" "$B/apps/stencil" --n 300 --iters 60
	run_app "stencil-shmem --n 257 --iters 40 -n $n (OpenSHMEM)" \
		"$B/bin/oshrun" -n "$n" -t "$TLIMIT" "$B/apps/stencil-shmem" --n 257 --iters 40
	run_app "isort --class S -n $n (libpgas)" "$RUN" -n "$n" -t "$TLIMIT" "$B/apps/isort" --class S
	run_app "isort-shmem --class S --iters 4 -n $n (OpenSHMEM)" \
		"$B/bin/oshrun" -n "$n" -t "$TLIMIT" "$B/apps/isort-shmem" --class S --iters 4
done
if [ "$B" = "$PWD/build" ]; then
	run_app "stencil -n 3, PGAS_MAP_PEERS=none (remote paths)" \
		env PGAS_MAP_PEERS=none "$RUN" -n 3 -t "$TLIMIT" "$B/apps/stencil" --n 128 --iters 30
	run_app "isort --class W --iters 2 -n 3, PGAS_MAP_PEERS=none (remote paths)" \
		env PGAS_MAP_PEERS=none "$RUN" -n 3 -t "$TLIMIT" "$B/apps/isort" --class W --iters 2
	run_app "stencil -n 6 (2 x 3 tiles), PGAS_WAIT_MODE=block" \
		env PGAS_WAIT_MODE=block "$RUN" -n 6 -t "$TLIMIT" "$B/apps/stencil" --n 100 --iters 30
	run_app "stencil --n 301 -n 9 (3 x 3 uneven tiles)" \
		"$RUN" -n 9 -t "$TLIMIT" "$B/apps/stencil" --n 301 --iters 40
fi
run_exit 1 "stencil: --n 4 --iters 100000: N from 4, and K at most" \
	"stencil --n 4 --iters 100000: refused (the answer would decay below normal numbers)" \
	"$RUN" -n 1 -t "$TLIMIT" "$B/apps/stencil" --n 4 --iters 100000
run_exit 1 "stencil: --n '0': a number from 1 to 16384" "stencil --n 0: refused, naming it" \
	"$RUN" -n 2 -t "$TLIMIT" "$B/apps/stencil" --n 0
run_exit 1 "isort: --class 'Q': one of S, W, A, B" "isort --class Q: refused, naming it" \
	"$RUN" -n 2 -t "$TLIMIT" "$B/apps/isort" --class Q

# The critical paths' instruction counts (callgrind, deterministic) stay
# within bench/icount.baseline: the plain build only.
if [ "$B" = "$PWD/build" ] && command -v valgrind >/dev/null; then
	counts=$(scripts/icount.sh "$B")
	while read -r fn max; do
		case "$fn" in '#'* | '') continue ;; esac
		n=$(echo "$counts" | awk -v f="$fn" '$1 == f { print $2 }')
		if [ -z "$n" ]; then
			notok "instruction count of $fn: not measured (scripts/icount.sh)"
		elif awk -v n="$n" -v m="$max" 'BEGIN { exit !(n <= m) }'; then
			ok "instruction count of $fn: $n, at most $max"
		else
			notok "instruction count of $fn: $n, over the baseline's $max (bench/icount.baseline)"
		fi
	done <bench/icount.baseline
fi

sleep 0.2
orphans=$(pgrep -f "$B/tests/" || true)
if [ -z "$orphans" ]; then ok "no rank outlived its job"; else notok "orphans: $orphans"; fi
shm_after=$(ls /dev/shm 2>/dev/null | sort)
if [ "$shm_before" = "$shm_after" ]; then
	ok "nothing left in /dev/shm"
else
	notok "/dev/shm changed: $(diff <(echo "$shm_before") <(echo "$shm_after"))"
fi

echo "native ($B): $pass passed, $fail failed"
[ $fail -eq 0 ]
