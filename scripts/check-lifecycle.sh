#!/bin/sh
# Ranks leaving a job: every way a rank can leave at every point, at 2, 3
# and 8 ranks, over the shm conduit (check-native.sh) and over pgas.ko
# (the VM tier runs it with busybox sh: POSIX sh only).
#
#   scripts/check-lifecycle.sh [BUILD_DIR]     (default: build)
#
# PGAS_LIFECYCLE_RANKS (default "2 3 8"), PGAS_LIFECYCLE_POINTS (default
# "barrier coll flood handler rma") and PGAS_LIFECYCLE_TIMEOUT (pgasrun
# -t, default 60) choose; PGAS_LIFECYCLE_BIN=dir takes the lifecycle program
# from dir and pgasrun from the PATH instead of BUILD_DIR/tests and
# BUILD_DIR/bin.
#
# Ways (the last rank leaves): pgas_exit(0), return from main, exit(3),
# abort(), SIGKILL, _exit(0).  Points: before a barrier the others wait in,
# before a collective (team barrier, all-reduce), during an AM flood into
# full 16-slot mailboxes, inside an AM handler, with nbi puts in flight.
# Expected:
#  - pgas_exit(0) / return: the flood ends with 0 and every request
#    delivered (counted by its receiver at exit); elsewhere the waiting ranks
#    get PGAS_ERR_GONE naming the rank that left (the test then exits 4), or,
#    inside a handler at 2 ranks, the requester left alone is ended (70);
#    pgasrun names the rank that had left.
#  - exit(3), abort(), SIGKILL, _exit(0): pgasrun names the rank and exits
#    3, 134, 137 or 1 ("exited with code 0 without pgas_exit").
#  - never a hang: pgasrun -t 60 expiring (124) is a failure.
# Then pgas_exit(0) at every point in every wait mode, at 3 ranks.
# Prints "ok - ..."/"not ok - ..." per run and ends with
# "lifecycle: N passed, N failed".
set -u
if [ -n "${PGAS_LIFECYCLE_BIN:-}" ]; then
	RUN=$(command -v pgasrun) || exit 1
	LC="$PGAS_LIFECYCLE_BIN/lifecycle"
else
	B=$(cd "${1:-build}" && pwd) || exit 1
	RUN="$B/bin/pgasrun"
	LC="$B/tests/lifecycle"
fi
RANKS=${PGAS_LIFECYCLE_RANKS:-"2 3 8"}
TLIMIT=${PGAS_LIFECYCLE_TIMEOUT:-60}
POINTS=${PGAS_LIFECYCLE_POINTS:-"barrier coll flood handler rma"}
pass=0
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
export PGAS_ERROR_MODE=quiet PGAS_MBOX_SLOTS=16

# judge N POINT HOW RC: prints why the run failed, nothing if it passed.
judge() {
	n=$1 point=$2 how=$3 rc=$4 v=$(($1 - 1))
	if [ "$rc" -eq 124 ]; then
		echo "hang: pgasrun's time limit ended it"
		return
	fi
	got=$(grep -m1 '^not ok' "$out")
	if [ -n "$got" ]; then
		echo "$got"
		return
	fi
	case $how in
	exit0 | return)
		if [ "$point" = flood ]; then
			got=$(grep -c '^ok - rank [0-9]*: received' "$out")
			[ "$rc" -eq 0 ] && [ "$got" -eq "$n" ] ||
				echo "exit $rc, $got of $n ranks received every request"
			return
		fi
		if ! grep -q "^pgasrun: rank $v had left the job" "$err"; then
			echo "exit $rc, pgasrun did not name rank $v as gone"
		elif [ "$rc" -eq 4 ]; then
			grep -q "^ok - rank [0-9]*: .*PGAS_ERR_GONE naming rank $v" "$out" ||
				echo "exit 4 but no rank reported PGAS_ERR_GONE naming rank $v"
		elif [ "$rc" -eq 70 ] && [ "$point" = handler ]; then
			grep -q "fatal: .*rank $v left the job inside the handler of a request from this rank" "$err" ||
				echo "exit 70 without naming rank $v"
		else
			echo "exit $rc"
		fi
		;;
	exit3)
		[ "$rc" -eq 3 ] && grep -q "^pgasrun: rank $v (pid [0-9]*) exited with code 3" "$err" ||
			echo "exit $rc"
		;;
	abort)
		[ "$rc" -eq 134 ] && grep -q "^pgasrun: rank $v (pid [0-9]*) was killed by signal 6" "$err" ||
			echo "exit $rc"
		;;
	kill)
		[ "$rc" -eq 137 ] && grep -q "^pgasrun: rank $v (pid [0-9]*) was killed by signal 9" "$err" ||
			echo "exit $rc"
		;;
	_exit0)
		[ "$rc" -eq 1 ] &&
			grep -q "^pgasrun: rank $v (pid [0-9]*) exited with code 0 without pgas_exit" "$err" ||
			echo "exit $rc"
		;;
	esac
}

# one N POINT HOW [ENV=VALUE...]
one() {
	n=$1 point=$2 how=$3 start=$(date +%s)
	shift 3
	# Oversubscribed floods stay short.
	if [ "$point" = flood ]; then count=$((n > 4 ? 1000 : 3000)); else count=40; fi
	env "$@" "$RUN" -n "$n" -t "$TLIMIT" "$LC" "$point" "$how" $((n - 1)) "$count" \
		>"$out" 2>"$err"
	rc=$?
	why=$(judge "$n" "$point" "$how" "$rc")
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		echo "ok - lifecycle -n $n: $how at $point${*:+ ($*)}: exit $rc in $(($(date +%s) - start)) s"
	else
		fail=$((fail + 1))
		echo "not ok - lifecycle -n $n: $how at $point${*:+ ($*)}: $why"
		sed 's/^/    # /' "$out" "$err" | grep -v ' ready$' | tail -n 12
	fi
}

for n in $RANKS; do
	for point in $POINTS; do
		for how in exit0 return exit3 abort kill _exit0; do
			one "$n" "$point" "$how"
		done
	done
done
for mode in spin yield block auto; do
	for point in $POINTS; do
		one 3 "$point" exit0 PGAS_WAIT_MODE=$mode
	done
done
echo "lifecycle: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
