#!/bin/bash
# make bench: libpgas, the physical limits and the peers, on 2 ranks, in one
# run.  Writes build/bench/results.txt (raw RESULT lines), report.txt (the
# table), report.json and the plots (*.svg, scripts/plot_bench.py).  A peer
# that cannot be built or run is reported as skipped, never estimated.
#
# Rounds: the latency, bandwidth and collective measurements of libpgas,
# our OpenSHMEM and every peer run BENCH_ROUNDS times (default 3), libpgas
# first in odd rounds and the peers first in even ones; each round measures
# the limits again.  The report gives the median [min-max] of the rounds,
# and every ratio as the median of its ratios within a round.  Ranks are
# pinned to cores of their own where there are enough (scripts/pinned).
set -u
cd "$(dirname "$0")/.."
B=build
OUT=$B/bench
mkdir -p "$OUT/peers"
raw=$OUT/results.txt
[ "${1:-}" = gups ] && raw=$OUT/gups-results.txt	# the GUPS section alone (below)
[ "${1:-}" = threads ] && raw=$OUT/threads-results.txt	# the threads section alone (below)
[ "${1:-}" = shmem ] && raw=$OUT/shmem-results.txt	# the OpenSHMEM layer alone (below)
[ "${1:-}" = core ] && raw=$OUT/core-results.txt	# the rounds and the counts alone (below)
[ "${1:-}" = startup ] && raw=$OUT/startup-results.txt	# the start-up section alone (below)
: >"$raw"
[ "${1:-}" = threads ] ||	# the threads section needs no peers
	scripts/deps.sh bench || echo "bench: could not install the peers; their columns will say skipped" >&2
make -s all || exit 1

note() { echo "NOTE $*" >>"$raw"; echo "bench: $*" >&2; }
ROUNDS=${BENCH_ROUNDS:-3}
PIN=scripts/pinned	# rank r on core r where there are enough cores
# The report names the machine its figures come from.
note "machine: $(uname -n), $(nproc) cpus ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)), kernel $(uname -r)"
# run LABEL PREFIX_REWRITE CMD...: appends RESULT lines (optionally renamed).
run() {
	local label=$1 rename=$2
	shift 2
	echo "bench: $label" >&2
	if ! "$@" >"$OUT/last.out" 2>"$OUT/last.err"; then
		grep -q RESULT "$OUT/last.out" || { note "$label: failed: $(tail -n 3 "$OUT/last.err" | tr '\n' ' ')"; return; }
		note "$label: non-zero exit ignored (results were printed before it)"
	fi
	grep '^RESULT ' "$OUT/last.out" | sed "s/^RESULT pgas\./RESULT $rename./" >>"$raw"
}

# ---- GUPS (issue 12) ------------------------------------------------------------
# HPCC RandomAccess at 2 and 4 ranks on one table of 2^GUPS_LOG2 64-bit words
# (default 22): libpgas's three variants (bench/gups.c: atomic, gmp, am),
# Debian's hpcc (MPIRandomAccess over Open MPI) with the HPL order N that
# gives it the same table, and an OpenSHMEM GUPS over oshmem
# (bench/peers/shmem_gups.c).  `scripts/bench.sh gups` runs this section alone
# (into build/bench/gups-results.txt, gups-report.txt and gups-report.json).
gups_section() {
	local log2=${GUPS_LOG2:-22} n N P Q dir f
	# HPCC's table: the largest power of two of 64-bit words not above the
	# memory of the HPL matrix (N*N words over all ranks); N*N = 1.5 * 2^log2
	# lands between 2^log2 and 2^(log2+1).  hpcc's own report is checked.
	N=$(awk -v m="$log2" 'BEGIN { printf "%d", sqrt(1.5 * 2 ^ m) }')
	for n in 2 4; do
		run "libpgas GUPS, $n ranks" pgas $B/bin/pgasrun -n $n -t 900 $B/bench/gups -n "$log2"
		if command -v hpcc >/dev/null && command -v mpirun.openmpi >/dev/null; then
			P=1; Q=$n
			[ $n -eq 4 ] && P=2 && Q=2
			dir=$(mktemp -d)
			cat >"$dir/hpccinf.txt" <<-EOF
			HPLinpack benchmark input file
			Innovative Computing Laboratory, University of Tennessee
			HPL.out      output file name (if any)
			8            device out (6=stdout,7=stderr,file)
			1            # of problems sizes (N)
			$N         Ns
			1            # of NBs
			80           NBs
			0            PMAP process mapping (0=Row-,1=Column-major)
			1            # of process grids (P x Q)
			$P            Ps
			$Q            Qs
			16.0         threshold
			1            # of panel fact
			2            PFACTs (0=left, 1=Crout, 2=Right)
			1            # of recursive stopping criterium
			4            NBMINs (>= 1)
			1            # of panels in recursion
			2            NDIVs
			1            # of recursive panel fact.
			1            RFACTs (0=left, 1=Crout, 2=Right)
			1            # of broadcast
			1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
			1            # of lookahead depth
			1            DEPTHs (>=0)
			2            SWAP (0=bin-exch,1=long,2=mix)
			64           swapping threshold
			0            L1 in (0=transposed,1=no-transposed) form
			0            U  in (0=transposed,1=no-transposed) form
			1            Equilibration (0=no,1=yes)
			8            memory alignment in double (> 0)
			##### This line (no. 32) is ignored (it serves as a separator). ######
			0                      		Number of additional problem sizes for PTRANS
			1200 10000 30000        	values of N
			0                       	number of additional blocking sizes for PTRANS
			40 9 8 13 13 20 16 32 64       	values of NB
			EOF
			echo "bench: hpcc (MPIRandomAccess), $n ranks, N=$N" >&2
			f=$dir/hpccoutf.txt
			if (cd "$dir" && timeout 900 mpirun.openmpi --oversubscribe -n $n hpcc >hpcc.out 2>&1) &&
				grep -q '^MPIRandomAccess_GUPs=' "$f"; then
				awk -F= -v n=$n -v m="$log2" '
					/^MPIRandomAccess_N=/ { t = $2 }
					/^MPIRandomAccess_GUPs=/ { g = $2 }
					/^MPIRandomAccess_Errors=/ { e = $2 }
					/^MPIRandomAccess_ExeUpdates=/ { u = $2 }
					END {
						printf "RESULT gups%d.hpcc %s GUP/s\n", n, g
						printf "RESULT gups%d.hpcc.table %s words\n", n, t
						printf "RESULT gups%d.hpcc.errors %s errors\n", n, e
						if (t != 2 ^ m) printf "NOTE hpcc %d ranks: table %s words, not 2^%d\n", n, t, m
						if (u < 4 * t) printf "NOTE hpcc %d ranks: time bound: %s updates of %d\n", n, u, 4 * t
					}' "$f" >>"$raw"
				cp "$f" "$OUT/peers/hpccoutf.$n.txt"
			else
				note "hpcc $n ranks: failed: $(tail -n 3 "$dir/hpcc.out" | tr '\n' ' ')"
			fi
			rm -rf "$dir"
		else
			note "hpcc $n ranks: skipped (hpcc or mpirun.openmpi missing)"
		fi
		if command -v oshcc >/dev/null &&
			oshcc -O2 -o "$OUT/peers/shmem_gups" bench/peers/shmem_gups.c 2>"$OUT/last.err"; then
			UCX_TLS=sm,self run "OpenSHMEM GUPS, $n ranks" oshmem \
				timeout 900 oshrun --oversubscribe -n $n "$OUT/peers/shmem_gups" "$log2"
		else
			note "OpenSHMEM GUPS: skipped (oshcc missing or did not build)"
		fi
	done
}
if [ "${1:-}" = gups ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	gups_section
	rm -f "$OUT/last.out" "$OUT/last.err"
	python3 scripts/bench_report.py "$raw" "$OUT/gups-report.txt" "$OUT/gups-report.json" &&
		sed -n '/^gups /p; /^notes:/,$p' "$OUT/gups-report.txt"
	exit
fi
# ---- end GUPS ---------------------------------------------------------------------

# ---- threads (issue 11): the threads paper's comparison (bench/threads.c) ----
# On N cores (workers pinned to cores 0..N-1), N = 1, 2, 4, ... up to nproc
# (and nproc itself): (a) N processes of one thread, (b) one process of N
# threads each with an endpoint of its own, (c) one process of N threads at
# PGAS_THREAD_MULTIPLE on the primary.  AM Short rate, 8-byte put rate and
# AM round trip, best of 5.  `scripts/bench.sh threads` runs this section
# alone (into build/bench/threads-results.txt and threads-report.txt).
threads_section() {
	local n ns= c=$(nproc)
	for n in 1 2 4 8 16 32 64; do
		[ "$n" -le "$c" ] && ns="$ns $n"
	done
	case " $ns " in *" $c "*) ;; *) [ "$c" -le 64 ] && ns="$ns $c" ;; esac
	for n in $ns; do
		run "threads: (a) $n processes" threads $B/bin/pgasrun -n "$n" -t 600 $B/bench/threads -m proc
		run "threads: (b) $n threads, an endpoint each" threads \
			$B/bin/pgasrun -n 1 -t 600 $B/bench/threads -m ep -t "$n"
		run "threads: (c) $n threads on the primary" threads \
			$B/bin/pgasrun -n 1 -t 600 $B/bench/threads -m shared -t "$n"
	done
}
if [ "${1:-}" = threads ]; then
	export PGAS_WAIT_MODE=spin
	threads_section
	rm -f "$OUT/last.out" "$OUT/last.err"
	python3 scripts/bench_report.py "$raw" "$OUT/threads-report.txt" "$OUT/threads-report.json" &&
		sed -n '/^threads /p; /^notes:/,$p' "$OUT/threads-report.txt"
	python3 scripts/plot_threads.py "$raw" "$OUT/threads.svg" "$(nproc) cpus, $(uname -n)"
	exit
fi
# ---- end threads ----

# ---- start-up (issue 23): a job of N ranks from pgasrun's start to its end ----
# bench/startup's phases, each from the moment the last rank entered it
# (launch: pgasrun's start to the last rank's main), the end (pgas_exit and
# the exits: the rest of pgasrun's time) and the whole, at
# BENCH_STARTUP_RANKS ranks (default "64 256 1024"; shm, 1 MiB segments);
# rank 0's mappings, resident memory and page tables.  `scripts/bench.sh
# startup` runs this section alone (into build/bench/startup-results.txt
# and startup-report.txt).
startup_section() {
	local n t0 t1
	for n in ${BENCH_STARTUP_RANKS:-64 256 1024}; do
		echo "bench: start-up, $n ranks" >&2
		t0=$(date +%s.%N)
		if ! PGAS_BENCH_T0=$t0 $B/bin/pgasrun -n "$n" -t 600 $B/bench/startup \
			>"$OUT/last.out" 2>"$OUT/last.err"; then
			note "start-up, $n ranks: failed: $(tail -n 2 "$OUT/last.err" | tr '\n' ' ')"
			continue
		fi
		t1=$(date +%s.%N)
		grep '^RESULT ' "$OUT/last.out" >>"$raw"
		awk -v t="$(echo "$t1 - $t0" | bc)" -v n="$n" '
			/^RESULT startup\.(launch|init|attach|barrier)\./ { sum += $3 }
			END {
				printf "RESULT startup.total.%d %.6g s\n", n, t
				printf "RESULT startup.end.%d %.6g s\n", n, t - sum
			}' "$OUT/last.out" >>"$raw"
	done
}
if [ "${1:-}" = startup ]; then
	startup_section
	rm -f "$OUT/last.out" "$OUT/last.err"
	python3 scripts/bench_report.py "$raw" "$OUT/startup-report.txt" "$OUT/startup-report.json" &&
		sed -n '/^start-up/p; /^notes:/,$p' "$OUT/startup-report.txt"
	exit
fi
# ---- end start-up ----

# ---- OpenSHMEM over libpgas (issue 13) ------------------------------------------
# The project's OpenSHMEM peer programs (bench/peers/shmem_*.c), unchanged,
# built with our oshcc and run by our oshrun: their RESULT names say
# "oshmem", renamed here to "pshmem" (our layer), so that the report sets
# them against libpgas's own calls (the layer's overhead) and against Open
# MPI's oshmem measured in the same run.  `scripts/bench.sh shmem` runs this
# section alone (into build/bench/shmem-results.txt, shmem-report.txt).
shmem_build() {
	local p osh=$B/bin/oshcc
	for p in shmem_bench shmem_coll shmem_atomic shmem_gups; do
		"$osh" -O2 -o "$OUT/peers/our_$p" bench/peers/$p.c 2>"$OUT/last.err" ||
			note "OpenSHMEM over libpgas: $p did not build: $(head -n 2 "$OUT/last.err" | tr '\n' ' ')"
	done
}
run1() {	# label x cmd...: like run, renaming oshmem -> pshmem
	local all=$raw
	raw=$OUT/pshmem.tmp
	: >"$raw"
	run "$@"
	sed 's/^RESULT \(gups[0-9]*\.\)\{0,1\}oshmem/RESULT \1pshmem/' "$raw" >>"$all"
	rm -f "$raw"
	raw=$all
}
# The layer's latency and collectives, against libpgas's in the same round:
# latency at 2 PEs spinning (as libpgas's own pgas_bench); the collectives
# in the default wait mode (4 PEs spinning on 2 cores starve each other).
shmem_round() {
	local n
	[ -x "$OUT/peers/our_shmem_bench" ] && run1 "OpenSHMEM over libpgas" x \
		env PGAS_WAIT_MODE=spin $B/bin/oshrun -np 2 -t 300 $PIN "$OUT/peers/our_shmem_bench"
	for n in 2 4; do
		[ -x "$OUT/peers/our_shmem_coll" ] && run1 "OpenSHMEM over libpgas, collectives, $n PEs" x \
			$B/bin/oshrun -np $n -t 600 $PIN "$OUT/peers/our_shmem_coll"
	done
}
# Its atomics and GUPS, once.
shmem_section() {
	local n
	for n in 2 4; do
		[ -x "$OUT/peers/our_shmem_atomic" ] && run1 "OpenSHMEM over libpgas, atomics, $n PEs" x \
			$B/bin/oshrun -np $n -t 600 "$OUT/peers/our_shmem_atomic" $([ $n = 4 ] && echo contended)
		[ -x "$OUT/peers/our_shmem_gups" ] && run1 "OpenSHMEM over libpgas, GUPS, $n PEs" x \
			$B/bin/oshrun -np $n -t 900 "$OUT/peers/our_shmem_gups" "${GUPS_LOG2:-22}"
	done
}
if [ "${1:-}" = shmem ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	rm -f "$OUT/peers/shmem"	# never an earlier run's
	command -v oshcc >/dev/null &&	# Open MPI's oshmem, the same rounds
		oshcc -O2 -o "$OUT/peers/shmem" bench/peers/shmem_bench.c 2>"$OUT/last.err" ||
		note "OpenSHMEM (oshmem): skipped (oshcc missing or did not build)"
	shmem_build
	for r in $(seq 1 "$ROUNDS"); do
		echo "ROUND $r" >>"$raw"
		PGAS_WAIT_MODE=spin run "libpgas (defaults), round $r" pgas $B/bin/pgasrun -n 2 -t 600 \
			$PIN $B/bench/pgas_bench
		[ -x "$OUT/peers/shmem" ] && UCX_TLS=sm,self run "OpenSHMEM (oshmem), round $r" oshmem \
			timeout 300 oshrun --oversubscribe -n 2 $PIN "$OUT/peers/shmem"
		shmem_round
	done
	echo "ROUND 0" >>"$raw"
	shmem_section
	rm -f "$OUT/last.out" "$OUT/last.err"
	python3 scripts/bench_report.py "$raw" "$OUT/shmem-report.txt" "$OUT/shmem-report.json" &&
		grep -i 'shmem\|notes:' "$OUT/shmem-report.txt"
	exit
fi
# ---- end OpenSHMEM ----

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The peers' programs, built once.
command -v mpicc.openmpi >/dev/null &&
	mpicc.openmpi -O2 -o "$OUT/peers/mpi_openmpi" bench/peers/mpi_bench.c 2>"$OUT/last.err" &&
	mpicc.openmpi -O2 -o "$OUT/peers/coll_openmpi" bench/peers/mpi_coll.c 2>>"$OUT/last.err" ||
	{ rm -f "$OUT/peers/mpi_openmpi"; note "Open MPI: skipped (not installed or did not build)"; }
command -v mpicc.mpich >/dev/null &&
	mpicc.mpich -O2 -o "$OUT/peers/mpi_mpich" bench/peers/mpi_bench.c 2>"$OUT/last.err" &&
	mpicc.mpich -O2 -o "$OUT/peers/coll_mpich" bench/peers/mpi_coll.c 2>>"$OUT/last.err" ||
	{ rm -f "$OUT/peers/mpi_mpich"; note "MPICH: skipped (not installed or did not build)"; }
command -v oshcc >/dev/null &&
	oshcc -O2 -o "$OUT/peers/shmem" bench/peers/shmem_bench.c 2>"$OUT/last.err" &&
	oshcc -O2 -o "$OUT/peers/coll_shmem" bench/peers/shmem_coll.c 2>>"$OUT/last.err" ||
	{ rm -f "$OUT/peers/shmem"; note "OpenSHMEM: skipped (oshcc missing or did not build)"; }
shmem_build

# Collectives: pgas-tune writes the tuning file once; every round measures
# every algorithm and the tuner's choice (that file) on 2 and 4 ranks.
rm -f "$OUT/tuning.txt"
for n in 2 4; do
	$B/bin/pgasrun -n $n -t 900 $PIN $B/bin/pgas-tune -o "$OUT/tuning.txt" >/dev/null 2>"$OUT/last.err" ||
		note "pgas-tune -n $n failed: $(tail -n 1 "$OUT/last.err")"
done

libpgas_round() {
	local n
	PGAS_WAIT_MODE=spin run "libpgas (defaults), round $r" pgas $B/bin/pgasrun -n 2 -t 600 \
		$PIN $B/bench/pgas_bench
	# AM Medium through each path, to choose PGAS_AM_PACKET_MAX.
	PGAS_WAIT_MODE=spin PGAS_AM_PACKET_MAX=56 run "libpgas, Medium via bounce buffers" pgas_bounce \
		$B/bin/pgasrun -n 2 -t 600 $PIN $B/bench/pgas_bench am rate
	PGAS_WAIT_MODE=spin PGAS_MBOX_SLOTS=512 PGAS_AM_PACKET_MAX=8232 \
		run "libpgas, Medium via VELO packets" pgas_packets \
		$B/bin/pgasrun -n 2 -t 600 $PIN $B/bench/pgas_bench am rate
	for n in 2 4; do
		PGAS_COLL_TUNING=$OUT/tuning.txt run "libpgas collectives, $n ranks" coll \
			$B/bin/pgasrun -n $n -t 900 $PIN $B/bin/pgas-tune --bench
	done
	shmem_round	# our OpenSHMEM, against libpgas's calls of this round
}
peers_round() {
	local n
	[ -x "$OUT/peers/mpi_openmpi" ] && run "Open MPI, round $r" openmpi \
		mpirun.openmpi --oversubscribe -n 2 $PIN "$OUT/peers/mpi_openmpi" openmpi
	[ -x "$OUT/peers/mpi_mpich" ] && run "MPICH, round $r" mpich \
		mpirun.mpich -n 2 $PIN "$OUT/peers/mpi_mpich" mpich
	[ -x "$OUT/peers/shmem" ] && UCX_TLS=sm,self run "OpenSHMEM (oshmem), round $r" oshmem \
		timeout 300 oshrun --oversubscribe -n 2 $PIN "$OUT/peers/shmem"
	for n in 2 4; do
		[ -x "$OUT/peers/mpi_openmpi" ] && run "Open MPI collectives, $n ranks" openmpi \
			mpirun.openmpi --oversubscribe -n $n $PIN "$OUT/peers/coll_openmpi" openmpi
		# MPICH's ranks spin (no yield): more of them than cores measures the
		# scheduler, not MPICH.
		if [ -x "$OUT/peers/mpi_mpich" ] && [ "$n" -gt "$(nproc)" ]; then
			[ "$r" = 1 ] && note "MPICH collectives, $n ranks: not measured ($n spinning ranks on $(nproc) cores)"
		elif [ -x "$OUT/peers/mpi_mpich" ]; then
			run "MPICH collectives, $n ranks" mpich mpirun.mpich -n $n $PIN "$OUT/peers/coll_mpich" mpich
		fi
		[ -x "$OUT/peers/shmem" ] && UCX_TLS=sm,self run "OpenSHMEM collectives, $n ranks" oshmem \
			timeout 600 oshrun --oversubscribe -n $n $PIN "$OUT/peers/coll_shmem"
	done
}
for r in $(seq 1 "$ROUNDS"); do	# libpgas first in odd rounds, the peers in even ones
	echo "ROUND $r" >>"$raw"
	if [ $((r % 2)) = 1 ]; then
		libpgas_round
		peers_round
	else
		peers_round
		libpgas_round
	fi
done
echo "ROUND 0" >>"$raw"	# what follows is measured once

# Instruction counts of the critical paths (deterministic).
if command -v valgrind >/dev/null; then
	scripts/icount.sh "$B" | while read -r fn n; do
		echo "RESULT icount.$fn $n instr" >>"$raw"
	done
else
	note "instruction counts: skipped (valgrind missing)"
fi
# `scripts/bench.sh core`: the rounds and the counts only (a few minutes),
# into core-results.txt, core-report.txt, core-report.json and the plots.
if [ "${1:-}" = core ]; then
	rm -f "$OUT/last.out" "$OUT/last.err"
	python3 scripts/bench_report.py "$raw" "$OUT/core-report.txt" "$OUT/core-report.json" &&
		cat "$OUT/core-report.txt"
	python3 scripts/plot_bench.py "$raw" "$OUT" "$(uname -n), $(nproc) cpus, $ROUNDS rounds" ||
		echo "bench: no plots" >&2
	exit
fi
gups_section	# GUPS (issue 12): libpgas, hpcc and oshmem at 2 and 4 ranks
shmem_section	# our OpenSHMEM's atomics and GUPS (issue 13)
# ---- atomics (issue 12): libpgas, the limit and the peers; runs alone too ----
scripts/bench_atomics.sh "$raw" || note "atomics: scripts/bench_atomics.sh failed"
# ---- end atomics ----
threads_section	# processes against threads (issue 11)
startup_section	# a job of 64-1024 ranks from start to end (issue 23)
# NAS FT (issue 25): its own rounds, report (apps-report.txt) and plot
# (apps.svg); runs alone too (scripts/bench_apps.sh).
scripts/bench_apps.sh "$raw" || note "NAS FT: scripts/bench_apps.sh failed"
python3 scripts/plot_threads.py "$raw" "$OUT/threads.svg" "$(nproc) cpus" ||
	note "threads: no plot"
# pgas.ko against shm, in one VM boot (TCG: only the ratio means anything).
if [ -x scripts/vm/run.sh ] && scripts/deps.sh vm >/dev/null 2>&1; then
	echo "bench: VM, kmod vs shm" >&2
	VM_MODE=bench scripts/vm/run.sh >"$OUT/vm.out" 2>"$OUT/vm.err" &&
		grep '^RESULT ' "$OUT/vm.out" >>"$raw" ||
		note "VM kmod/shm: skipped ($(tail -n 1 "$OUT/vm.err"))"
else
	note "VM kmod/shm: skipped (qemu or Debian's kernel missing)"
fi
rm -f "$OUT/last.out" "$OUT/last.err"
python3 scripts/bench_report.py "$raw" "$OUT/report.txt" "$OUT/report.json" && cat "$OUT/report.txt"
python3 scripts/plot_bench.py "$raw" "$OUT" "$(uname -n), $(nproc) cpus, $ROUNDS rounds" ||
	echo "bench: no plots" >&2
