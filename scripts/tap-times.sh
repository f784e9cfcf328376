#!/bin/bash
# tap-times.sh [-n N] [LOG...]: the N (default 20) slowest result lines of a
# tier's output (stdin or LOG files: a CI log of make check), from the
# "# N.N s" line that follows each ok/not ok line (scripts/tap.sh; the VM
# tiers' guest prints the same), slowest first, then the sum of all.
n=20
[ "${1:-}" = -n ] && { n=$2; shift 2; }
awk '/^ *(ok|not ok) / { l = $0; sub(/^ +/, "", l); next }
     /^ *# [0-9]+\.[0-9] s$/ && l != "" { printf "%8.1f  %s\n", $2, l; sum += $2; l = "" }
     END { printf "%8.1f  (sum of all timed lines)\n", sum > "/dev/stderr" }' "$@" |
	sort -rn | head -n "$n"
