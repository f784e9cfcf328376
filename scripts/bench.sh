#!/bin/bash
# make bench: libpgas, the physical limits and the peers, on 2 ranks, in one
# run.  Writes build/bench/results.txt (raw RESULT lines), report.txt (the
# table) and report.json.  A peer that cannot be built or run is reported as
# skipped, never estimated.
set -u
cd "$(dirname "$0")/.."
B=build
OUT=$B/bench
mkdir -p "$OUT/peers"
raw=$OUT/results.txt
: >"$raw"
scripts/deps.sh bench || echo "bench: could not install the peers; their columns will say skipped" >&2
make -s all || exit 1

note() { echo "NOTE $*" >>"$raw"; echo "bench: $*" >&2; }
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

export PGAS_WAIT_MODE=spin
run "libpgas (defaults)" pgas $B/bin/pgasrun -n 2 -t 600 $B/bench/pgas_bench
# AM Medium through each path, to choose PGAS_AM_PACKET_MAX.
PGAS_AM_PACKET_MAX=56 run "libpgas, Medium via bounce buffers" pgas_bounce \
	$B/bin/pgasrun -n 2 -t 600 $B/bench/pgas_bench am rate
PGAS_MBOX_SLOTS=512 PGAS_AM_PACKET_MAX=8232 run "libpgas, Medium via VELO packets" pgas_packets \
	$B/bin/pgasrun -n 2 -t 600 $B/bench/pgas_bench am rate
unset PGAS_WAIT_MODE

# Collectives: pgas-tune writes the tuning file, then every algorithm and
# the tuner's choice (that file) are measured again, on 2 and 4 ranks.
rm -f "$OUT/tuning.txt"
for n in 2 4; do
	$B/bin/pgasrun -n $n -t 900 $B/bin/pgas-tune -o "$OUT/tuning.txt" >/dev/null 2>"$OUT/last.err" ||
		note "pgas-tune -n $n failed: $(tail -n 1 "$OUT/last.err")"
	PGAS_COLL_TUNING=$OUT/tuning.txt run "libpgas collectives, $n ranks" coll \
		$B/bin/pgasrun -n $n -t 900 $B/bin/pgas-tune --bench
done

# Instruction counts of the critical paths (deterministic).
if command -v valgrind >/dev/null; then
	scripts/icount.sh "$B" | while read -r fn n; do
		echo "RESULT icount.$fn $n instr" >>"$raw"
	done
else
	note "instruction counts: skipped (valgrind missing)"
fi

# Peers.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if command -v mpicc.openmpi >/dev/null &&
	mpicc.openmpi -O2 -o "$OUT/peers/mpi_openmpi" bench/peers/mpi_bench.c 2>"$OUT/last.err"; then
	run "Open MPI" openmpi mpirun.openmpi --oversubscribe -n 2 "$OUT/peers/mpi_openmpi" openmpi
else
	note "Open MPI: skipped (not installed or did not build)"
fi
if command -v mpicc.mpich >/dev/null &&
	mpicc.mpich -O2 -o "$OUT/peers/mpi_mpich" bench/peers/mpi_bench.c 2>"$OUT/last.err"; then
	run "MPICH" mpich mpirun.mpich -n 2 "$OUT/peers/mpi_mpich" mpich
else
	note "MPICH: skipped (not installed or did not build)"
fi
for n in 2 4; do
	if [ -x "$OUT/peers/mpi_openmpi" ] && mpicc.openmpi -O2 -o "$OUT/peers/coll_openmpi" bench/peers/mpi_coll.c 2>"$OUT/last.err"; then
		run "Open MPI collectives, $n ranks" openmpi mpirun.openmpi --oversubscribe -n $n "$OUT/peers/coll_openmpi" openmpi
	fi
	if [ -x "$OUT/peers/mpi_mpich" ] && mpicc.mpich -O2 -o "$OUT/peers/coll_mpich" bench/peers/mpi_coll.c 2>"$OUT/last.err"; then
		run "MPICH collectives, $n ranks" mpich mpirun.mpich -n $n "$OUT/peers/coll_mpich" mpich
	fi
	if command -v oshcc >/dev/null && oshcc -O2 -o "$OUT/peers/coll_shmem" bench/peers/shmem_coll.c 2>"$OUT/last.err"; then
		UCX_TLS=sm,self run "OpenSHMEM collectives, $n ranks" oshmem \
			timeout 600 oshrun --oversubscribe -n $n "$OUT/peers/coll_shmem"
	fi
done
if command -v oshcc >/dev/null &&
	oshcc -O2 -o "$OUT/peers/shmem" bench/peers/shmem_bench.c 2>"$OUT/last.err"; then
	UCX_TLS=sm,self run "OpenSHMEM (oshmem)" oshmem \
		timeout 300 oshrun --oversubscribe -n 2 "$OUT/peers/shmem"
else
	note "OpenSHMEM: skipped (oshcc missing or did not build)"
fi
# ---- atomics (issue 12): libpgas, the limit and the peers; runs alone too ----
scripts/bench_atomics.sh "$raw" || note "atomics: scripts/bench_atomics.sh failed"
# ---- end atomics ----
# Processes against threads (the threads paper's comparison; bench/threads_bench.c):
# N ranks of one thread, and one rank of N threads at PGAS_THREAD_MULTIPLE.
for n in $(seq 1 "$(nproc)"); do
	run "threads: $n processes" threads $B/bin/pgasrun -n "$n" -t 600 $B/bench/threads_bench -m proc
	run "threads: $n threads of one process" threads \
		$B/bin/pgasrun -n 1 -t 600 $B/bench/threads_bench -m shared -t "$n"
done
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
