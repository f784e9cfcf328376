#!/bin/bash
# Instructions per call of the critical paths (bench/icount.c, and the
# OpenSHMEM layer's in bench/shmem/icount.c, under callgrind, 2 ranks over
# shm; deterministic): prints "NAME COUNT" per line.
#
#   scripts/icount.sh [BUILD_DIR]       (default: build)
#
# scripts/bench.sh reports them; scripts/check-native.sh holds them to
# bench/icount.baseline, which no change may exceed.
set -u
B=$(cd "${1:-build}" && pwd) || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# count PROGRAM: its ic_* functions' inclusive instructions per call, on rank 0.
count() {
	rm -f "$out"/callgrind.*
	"$B/bin/pgasrun" -n 2 -t 600 valgrind --tool=callgrind \
		--callgrind-out-file="$out/callgrind.%q{PGAS_RANK}" "$1" >/dev/null 2>&1 || exit 1
	callgrind_annotate --inclusive=yes "$out/callgrind.0" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) .*=> .*:\(ic_[a-z_0-9]*\) (\([0-9,]*\)x)$/\1 \2 \3/p' |
		tr -d , | while read -r ir fn calls; do
			echo "${fn#ic_} $(awk "BEGIN{print $ir/$calls}")"
		done
}
count "$B/bench/icount"
count "$B/bench/shmem_icount"
