#!/bin/sh
# Inside the VM: pgasctl against pgas.ko's generic netlink family.
check() {	# check LABEL CMD...
	label=$1
	shift
	if "$@" >/tmp/ctl.out 2>&1; then
		echo "ok - $label"
	else
		echo "not ok - $label"
		sed 's/^/# /' /tmp/ctl.out | tail -n 10
	fi
}
check "pgasctl list: pgas0 idle" sh -c 'pgasctl list | grep "^pgas0: endpoints 0 jobs 0 pinned_pages 0"'
check "pgasctl create: pgas1 and /dev/pgas1 appear" sh -c 'pgasctl create | grep -x pgas1 && test -c /dev/pgas1'
check "pgasctl list shows pgas1" sh -c 'pgasctl list | grep "^pgas1: "'
check "pgasctl destroy 1: /dev/pgas1 goes" sh -c 'pgasctl destroy 1 && ! test -e /dev/pgas1'
check "pgasctl destroy 7 (no such NIC) fails" sh -c '! pgasctl destroy 7'
check "pgasctl with a bad command is a usage error" sh -c 'pgasctl frobnicate; test $? -eq 2'

pgasctl monitor -n 3 -t 300 >/tmp/mon.out 2>&1 &
mon=$!
PGAS_CONDUIT=kmod pgasrun -n 2 /tests/lifecycle hang >/tmp/hang.out 2>&1 &
run=$!
i=0
while [ "$(grep -c ready /tmp/hang.out)" != 2 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "pgasctl jobs: the running job, 2 ranks joined" sh -c 'pgasctl jobs | grep "ranks 2 uid 0 joined 2"'
check "pgasctl endpoints: both ranks, one registration each" \
	sh -c 'test "$(pgasctl endpoints | grep -c "regs 1 pinned_pages")" = 2'
# field NAME: the numbers after NAME on the lines of stdin, summed.
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) } END { print s + 0 }'; }
# The job's counters: its endpoints' registrations, pins and rings summed
# (each seen there too), the live mappings of its objects, no departure.
job_counters() {
	j=$(pgasctl jobs | grep "ranks 2 uid 0 joined 2")
	e=$(pgasctl endpoints)
	echo "$j"
	echo "$e"
	[ "$(echo "$j" | field regs)" = 2 ] &&
		[ "$(echo "$j" | field regs)" = "$(echo "$e" | field regs)" ] &&
		[ "$(echo "$j" | field pinned_pages)" -gt 0 ] &&
		[ "$(echo "$j" | field pinned_pages)" = "$(echo "$e" | field pinned_pages)" ] &&
		[ "$(echo "$j" | field ring_bytes)" -gt 0 ] &&
		[ "$(echo "$j" | field ring_bytes)" = "$(echo "$e" | field ring_bytes)" ] &&
		[ "$(echo "$j" | field mmaps)" -gt 0 ] && [ "$(echo "$j" | field peer_gone)" = 0 ]
}
check "pgasctl jobs: the job's counters (regs, pins, rings: its endpoints' summed; mmaps; peer_gone)" \
	job_counters
kill -TERM $run
wait $run
wait $mon
check "pgasctl monitor: both endpoints and the job reported gone" sh -c \
	'grep "rank 0 gone" /tmp/mon.out && grep "rank 1 gone" /tmp/mon.out && grep -E "job [0-9]+ gone" /tmp/mon.out'
check "counters back to zero after the job" sh -c 'pgasctl list | grep "^pgas0: endpoints 0 jobs 0 pinned_pages 0 ring_bytes 0"'
