#!/bin/sh
# Inside the debug kernel's VM (busybox sh), run by scripts/vm/init after
# the kselftests (the fuzzer among them: init runs /tests/pgas_fuzz for
# PGAS_FUZZ_SECONDS, from the kernel command line) and the libpgas suite;
# scripts/debugvm/run.sh installs it as /tests/vm-extra.sh.  Prints
# TAP-style lines; the kernel's own reports (lockdep, KASAN, WARN, BUG)
# are judged on the console by scripts/vm/run.sh.
#
#   1. A fault-injection pass: pgas_ioctl and a 2-rank job over pgas.ko with
#      1 in 20 slab, page and user-copy calls of theirs failing (failslab,
#      fail_page_alloc, fail_usercopy with task-filter).  Their own results
#      are not judged, only the kernel's: no report on the console, every
#      counter back to zero once they are gone, and a clean job afterwards.
#   2. Lockdep still on at the end (a report, or an exhausted table, turns
#      it off and would hide every later deadlock).
export PGAS_CONDUIT=kmod PGAS_ERROR_MODE=quiet
counters() {
	for c in endpoints jobs pinned_pages ring_bytes; do
		printf '%s %s ' "$c" "$(cat /sys/class/misc/pgas0/$c)"
	done
}
idle="endpoints 0 jobs 0 pinned_pages 0 ring_bytes 0 "

mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
F=/sys/kernel/debug
if [ -d $F/failslab ] && [ -d $F/fail_page_alloc ] && [ -d $F/fail_usercopy ]; then
	echo "ok - fault injection: failslab, fail_page_alloc, fail_usercopy present"
	# The filter and the quiet first, the probability last: until
	# task-filter is on, every task (this shell's own writes to debugfs
	# included) would get the failures.
	for a in failslab fail_page_alloc fail_usercopy; do
		echo Y >$F/$a/task-filter	# only tasks with make-it-fail
		echo 0 >$F/$a/verbose		# no stack trace per injected failure
		echo 1 >$F/$a/interval
		echo -1 >$F/$a/times
	done
	echo N >$F/failslab/ignore-gfp-wait
	echo N >$F/fail_page_alloc/ignore-gfp-wait
	echo 0 >$F/fail_page_alloc/min-order
	for a in failslab fail_page_alloc fail_usercopy; do
		echo 5 >$F/$a/probability	# percent
	done
	# faulty CMD...: runs CMD (and its children) with failures injected,
	# in a process group of its own, killed whole after 120 s.
	faulty() {
		setsid sh -c 'echo 1 >/proc/self/make-it-fail; exec "$@"' sh "$@" >/dev/null 2>&1 &
		pid=$!
		i=0
		while kill -0 $pid 2>/dev/null && [ $i -lt 1200 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -s KILL -$pid 2>/dev/null
		wait $pid 2>/dev/null
	}
	for round in 1 2 3; do
		faulty /tests/pgas_ioctl
		faulty pgasrun -n 2 -t 60 /tests/rma
	done
	for a in failslab fail_page_alloc fail_usercopy; do
		echo 0 >$F/$a/probability
	done
	i=0
	while [ "$(counters)" != "$idle" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ "$(counters)" = "$idle" ]; then
		echo "ok - after the fault-injection pass: every counter back to zero"
	else
		echo "not ok - after the fault-injection pass: $(counters)"
	fi
	if pgasrun -n 2 -t 300 /tests/rma >/tmp/rma.out 2>&1; then
		echo "ok - a clean rma -n 2 over pgas.ko after the fault-injection pass"
	else
		echo "not ok - rma -n 2 over pgas.ko after the fault-injection pass"
		tail -n 10 /tmp/rma.out | sed 's/^/# /'
	fi
else
	echo "not ok - fault injection: no failslab/fail_page_alloc/fail_usercopy in debugfs"
fi

if grep -qE 'debug_locks: +1$' /proc/lockdep_stats 2>/dev/null; then
	echo "ok - lockdep still on after every test (debug_locks 1)"
else
	echo "not ok - lockdep is off at the end: $(grep debug_locks /proc/lockdep_stats 2>&1)"
fi
