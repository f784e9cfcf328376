#!/bin/bash
# The applications' benchmark (issue 25, docs/apps.md): NAS FT's three
# variants over libpgas, our OpenSHMEM, Open MPI, MPICH and Open MPI's
# oshmem (running comm_shmem.c unchanged), classes BENCH_FT_CLASSES
# (default "W A"; B needs about 2.5 GiB a rank count), at 1 and 2 ranks
# (and 4 where there are 4 cpus: a rank that busy-polls never shares a
# cpu here), in BENCH_ROUNDS rounds (default 3) whose order alternates.
# Every run must verify; one that does not is a NOTE, never a figure.
# make bench calls it; it also runs alone:
#
#   scripts/bench_apps.sh [RAW]   appends RESULT/NOTE lines to RAW (default
#                                 build/bench/apps.txt, emptied first);
#                                 writes apps-report.txt and apps.svg
#
# RESULT ft.IMPL.CLASS.VARIANT.N: the benchmark's time (us, as every time
# of the report); ftcomm.*: what initiating and completing the transfers
# cost inside it (the paper's Figure 9), per process; ftalone.*: the same
# transfers without the FFTs between them.
set -u
cd "$(dirname "$0")/.." || exit 1
B=build
OUT=$B/bench
mkdir -p "$OUT/peers"
raw=${1:-$OUT/apps.txt}
[ -n "${1:-}" ] || : >"$raw"
make -s all || exit 1
note() { echo "NOTE $*" >>"$raw"; echo "bench: $*" >&2; }
[ -x $B/apps/ft ] || { note "NAS FT: skipped (not built: FFTW missing, scripts/deps.sh test)"; exit 0; }
PIN=scripts/pinned
read -r -a FFTW <<<"$(pkg-config --libs fftw3) -lm"

# IMPL LAUNCHER...: the launch of each implementation (the program after).
impls=(libpgas shmem)
declare -A launch prog
launch[libpgas]="$B/bin/pgasrun -t 900 -n"
prog[libpgas]="$PIN $B/apps/ft"
launch[shmem]="$B/bin/oshrun -t 900 -n"
prog[shmem]="$PIN $B/apps/ft-shmem"
MPIRUN="timeout 900 mpirun --allow-run-as-root --oversubscribe --bind-to none -n"
if [ -x $B/apps/ft-mpi ]; then
	impls+=(openmpi)
	launch[openmpi]=$MPIRUN
	prog[openmpi]="$PIN $B/apps/ft-mpi"
else
	note "NAS FT over Open MPI: skipped (mpicc missing)"
fi
if command -v mpicc.mpich >/dev/null &&
   mpicc.mpich -std=c11 -O2 -o "$OUT/peers/ft-mpich" apps/ft/ft.c apps/common/comm_mpi.c \
	"${FFTW[@]}" 2>"$OUT/last.err"; then
	impls+=(mpich)
	launch[mpich]="timeout 900 mpiexec.mpich -n"
	prog[mpich]="$PIN $OUT/peers/ft-mpich"
else
	note "NAS FT over MPICH: skipped (mpicc.mpich missing or did not build)"
fi
# Open MPI's oshcc (not ours: build/bin is not on PATH here).
if command -v oshcc >/dev/null &&
   oshcc -std=c11 -O2 -DCOMM_SHMEM_NAME='"OpenSHMEM (oshmem)"' -o "$OUT/peers/ft-oshmem" \
	apps/ft/ft.c apps/common/comm_shmem.c "${FFTW[@]}" 2>"$OUT/last.err"; then
	impls+=(oshmem)
	launch[oshmem]="timeout 900 oshrun --allow-run-as-root --oversubscribe --bind-to none -n"
	prog[oshmem]="$PIN $OUT/peers/ft-oshmem"
else
	note "NAS FT over oshmem: skipped (Open MPI's oshcc missing or did not build)"
fi

ranks="1 2"
[ "$(nproc)" -ge 4 ] && ranks="1 2 4"
[ "$(nproc)" -ge 4 ] || note "NAS FT at 4 ranks: not measured ($(nproc) cpus: ranks that poll would share them)"
note "NAS FT: $(nproc) cpus, ranks pinned where there are enough; classes ${BENCH_FT_CLASSES:-W A}"

# ft_run IMPL CLASS VARIANT N: one run's RESULT lines, or a NOTE.
ft_run() {
	local i=$1 c=$2 v=$3 n=$4 name=$1.$2.$3.$4
	echo "bench: ft $name" >&2
	# shellcheck disable=SC2086 # the launch lines are words
	if ${launch[$i]} "$n" ${prog[$i]} --class "$c" --variant "$v" >"$OUT/last.out" 2>"$OUT/last.err" &&
	   grep -q '^ Verification *= *SUCCESSFUL$' "$OUT/last.out"; then
		awk -v n="$name" '
			/^ Time in seconds =/ { printf "RESULT ft.%s %.6g us\n", n, $5 * 1e6 }
			/^ Comm initiation =/ { c += $4 }
			/^ Comm completion =/ { c += $4 }
			/^ Comm alone      =/ { printf "RESULT ftalone.%s %.6g us\n", n, $4 * 1e6 }
			END { printf "RESULT ftcomm.%s %.6g us\n", n, c * 1e6 }' "$OUT/last.out" >>"$raw"
	else
		note "ft $name: failed or did not verify: $(tail -n 2 "$OUT/last.err" "$OUT/last.out" | tr '\n' ' ')"
	fi
}

ROUNDS=${BENCH_ROUNDS:-3}
for r in $(seq 1 "$ROUNDS"); do
	echo "ROUND $r" >>"$raw"
	order=("${impls[@]}")
	[ $((r % 2)) -eq 0 ] && mapfile -t order < <(printf '%s\n' "${impls[@]}" | tac)
	for c in ${BENCH_FT_CLASSES:-W A}; do
		for n in $ranks; do
			for v in exchange slabs pencils; do
				for i in "${order[@]}"; do
					ft_run "$i" "$c" "$v" "$n"
				done
			done
		done
	done
done
echo "ROUND 0" >>"$raw"
rm -f "$OUT/last.out" "$OUT/last.err"
python3 scripts/apps_report.py "$raw" "$OUT/apps-report.txt" "$OUT/apps.svg" "$(uname -n), $(nproc) cpus, $ROUNDS rounds" &&
	{ [ -n "${1:-}" ] || cat "$OUT/apps-report.txt"; }
