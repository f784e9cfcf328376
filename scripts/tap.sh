# shellcheck shell=bash
# tap.sh - the counting helpers of the test tiers (sourced): a tier sets
# pass=0 fail=0 and log (a temporary file), then counts with these and
# ends with "N passed, N failed".
#
# Every ok/not ok line is followed by "# N.N s": the seconds since the
# previous one (or since tap.sh was sourced), so a CI log says where a
# tier's time goes: scripts/tap-times.sh LOG lists the slowest lines.

# _tap_t: the previous line's time in microseconds (bash 5's EPOCHREALTIME,
# with either decimal separator; date where there is none).  No fork.
_tap_now() {
	local t=${EPOCHREALTIME:-}
	[ -n "$t" ] || t=$(date +%s.%6N)
	t=${t/,/.}
	_tap_nowv=$((10#${t%.*} * 1000000 + 10#${t#*.}))
}
_tap_now
_tap_t=$_tap_nowv
_tap_el() {
	_tap_now
	local d=$(((_tap_nowv - _tap_t) / 100000))
	_tap_t=$_tap_nowv
	echo "# $((d / 10)).$((d % 10)) s"
}

ok() { pass=$((pass + 1)); echo "ok - $*"; _tap_el; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; _tap_el; }
skip() { echo "ok - # SKIP $*"; _tap_el; }

# run_tap LABEL CMD...: runs a TAP-printing job and counts its lines; a job
# whose exit code is not 0 or whose plan does not match is one failure more.
run_tap() {
	local label=$1 rc p f plan
	shift
	"$@" >"$log" 2>"$log.err"
	rc=$?
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | tail -n 1)
	sed 's/^/    /' "$log" | grep -v -e '^    ok ' -e '^    1\.\.' || true
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] || [ -z "$plan" ] || [ "$plan" -ne $((p + f)) ]; then
		notok "$label: exit code $rc, plan '${plan:-none}', $((p + f)) results"
		sed 's/^/    # /' "$log.err" | tail -n 20
	elif [ "$f" -ne 0 ]; then
		# Counted above, case by case; the label says so too.
		echo "not ok - $label ($f of $((p + f)) cases failed)"
		_tap_el
		sed 's/^/    # /' "$log.err" | grep -F 'check failed' | tail -n 20
	else
		echo "ok - $label ($p cases)"
		_tap_el
	fi
	rm -f "$log.err"
}

# run_clean LABEL CMD...: a job that passes by exit code 0 with no "not ok"
# line in its output (stdout and stderr), whose last lines show otherwise.
run_clean() {
	local label=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && ! echo "$out" | grep -q '^not ok'; then
		ok "$label"
	else
		notok "$label: exit $rc"
		echo "$out" | tail -n 8 | sed 's/^/    # /'
	fi
}

# run_app LABEL CMD...: an application's run (apps/) that must exit 0 and
# print "Verification = SUCCESSFUL"; NAS FT's (an "Iterations" line) also a
# checksum line for every iteration of its class.
run_app() {
	local label=$1 out rc iters want
	shift
	out=$("$@" 2>&1)
	rc=$?
	iters=$(echo "$out" | grep -c '^ T = *[0-9]* *Checksum = ')
	want=$(echo "$out" | sed -n 's/^ Iterations *= *\([0-9]*\)$/\1/p')
	if [ $rc -eq 0 ] && [ "$iters" = "${want:-0}" ] &&
	   echo "$out" | grep -q '^ Verification *= *SUCCESSFUL$'; then
		ok "$label: verified, $(echo "$out" | sed -n 's/^ Time in seconds *= *//p') s"
	else
		notok "$label: exit $rc${want:+, $iters of $want checksums}, not verified"
		echo "$out" | tail -n 8 | sed 's/^/    # /'
	fi
}

# run_exit CODE PATTERN LABEL CMD...: a job that must end with CODE and
# print a line matching PATTERN (a grep pattern), whose last lines show
# otherwise.
run_exit() {
	local code=$1 pat=$2 label=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq "$code" ] && echo "$out" | grep -q "$pat"; then
		ok "$label"
	else
		notok "$label: exit $rc"
		echo "$out" | tail -n 5 | sed 's/^/    # /'
	fi
}
