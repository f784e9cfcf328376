#!/bin/bash
# The applications' benchmark (issue 25, docs/apps.md): NAS FT's three
# variants, the stencil and the integer sort, each over libpgas, our
# OpenSHMEM, Open MPI, MPICH and Open MPI's oshmem (running comm_shmem.c
# unchanged).  FT: classes BENCH_FT_CLASSES (default "W A"; B needs about
# 2.5 GiB a rank count); the stencil: 2048 x 2048, 300 steps; the sort:
# class A, 10 sorts.  At 1 and 2 ranks (and 4 where there are 4 cpus: a
# rank that busy-polls never shares a cpu here), in BENCH_ROUNDS rounds
# (default 3) whose order alternates.  Every run must verify; one that does
# not is a NOTE, never a figure.  make bench calls it; it also runs alone:
#
#   scripts/bench_apps.sh [RAW]   appends RESULT/NOTE lines to RAW (default
#                                 build/bench/apps.txt, emptied first);
#                                 writes apps-report.txt and apps.svg
#
# RESULT ft.IMPL.CLASS.VARIANT.N, stencil.IMPL.N, isort.IMPL.N: the run's
# time (us, as every time of the report); ftcomm.*: what initiating and
# completing FT's transfers cost inside it (the paper's Figure 9), per
# process; ftalone.*: the same transfers without the FFTs between them.
set -u
cd "$(dirname "$0")/.." || exit 1
B=build
OUT=$B/bench
mkdir -p "$OUT/peers"
raw=${1:-$OUT/apps.txt}
[ -n "${1:-}" ] || : >"$raw"
make -s all || exit 1
note() { echo "NOTE $*" >>"$raw"; echo "bench: $*" >&2; }
PIN=scripts/pinned
read -r -a FFTW <<<"$(pkg-config --libs fftw3 2>/dev/null) -lm"
apps=(stencil isort)
[ -x $B/apps/ft ] && apps=(ft stencil isort)
[ -x $B/apps/ft ] || note "NAS FT: skipped (not built: FFTW missing, scripts/deps.sh test)"

# Each implementation's launcher, and its program of each application.
impls=(libpgas shmem)
declare -A launch prog
launch[libpgas]="$B/bin/pgasrun -t 900 -n"
# The symmetric heap of the largest run (FT class A at 1 rank: 512 MiB;
# B: 2 GiB), for our OpenSHMEM and oshmem alike (Open MPI 4.1's oshmem
# reads SHMEM_SYMMETRIC_HEAP_SIZE, not the standard's SHMEM_SYMMETRIC_SIZE).
heap=1G
case " ${BENCH_FT_CLASSES:-W A} " in *" B "*) heap=3G ;; esac
launch[shmem]="env SHMEM_SYMMETRIC_SIZE=$heap $B/bin/oshrun -t 900 -n"
for a in "${apps[@]}"; do
	prog[libpgas.$a]=$B/apps/$a
	prog[shmem.$a]=$B/apps/$a-shmem
done
if [ -x $B/apps/stencil-mpi ]; then
	impls+=(openmpi)
	launch[openmpi]="timeout 900 mpirun --allow-run-as-root --oversubscribe --bind-to none -n"
	for a in "${apps[@]}"; do
		prog[openmpi.$a]=$B/apps/$a-mpi
	done
else
	note "applications over Open MPI: skipped (mpicc missing)"
fi
# peer IMPL COMM CC...: the applications built by another library's
# compiler, with apps/common/comm_COMM.c.
peer() {
	local i=$1 comm=$2 a
	shift 2
	for a in "${apps[@]}"; do
		"$@" -o "$OUT/peers/$a-$i" "apps/$a/$a.c" "apps/common/comm_$comm.c" \
			"${FFTW[@]}" 2>"$OUT/last.err" || return 1
		prog[$i.$a]=$OUT/peers/$a-$i
	done
}
if command -v mpicc.mpich >/dev/null && peer mpich mpi mpicc.mpich -std=c11 -O2; then
	impls+=(mpich)
	launch[mpich]="timeout 900 mpiexec.mpich -n"
else
	note "applications over MPICH: skipped (mpicc.mpich missing or did not build)"
fi
# Open MPI's oshcc (not ours: build/bin is not on PATH here).
if command -v oshcc >/dev/null &&
   peer oshmem shmem oshcc -std=c11 -O2 -DCOMM_SHMEM_NAME='"OpenSHMEM (oshmem)"'; then
	impls+=(oshmem)
	launch[oshmem]="timeout 900 oshrun --allow-run-as-root --oversubscribe --bind-to none -x SHMEM_SYMMETRIC_HEAP_SIZE=$heap -n"
else
	note "applications over oshmem: skipped (Open MPI's oshcc missing or did not build)"
fi

ranks="1 2"
[ "$(nproc)" -ge 4 ] && ranks="1 2 4"
[ "$(nproc)" -ge 4 ] || note "applications at 4 ranks: not measured ($(nproc) cpus: ranks that poll would share them)"
note "applications: $(nproc) cpus, ranks pinned where there are enough; FT classes ${BENCH_FT_CLASSES:-W A}"

# app_run IMPL APP N NAME ARGS...: one run's RESULT lines, or a NOTE.
app_run() {
	local i=$1 a=$2 n=$3 name=$4
	shift 4
	echo "bench: $a $name" >&2
	local rc=0
	# shellcheck disable=SC2086 # the launch lines are words
	${launch[$i]} "$n" $PIN "${prog[$i.$a]}" "$@" >"$OUT/last.out" 2>"$OUT/last.err" || rc=$?
	# oshmem (Debian's Open MPI 4.1) ends every job with a SIGSEGV in its
	# finalize, after the program's report (a hello world too): a run that
	# verified and then failed counts, with a note.
	[ $rc -ne 0 ] && grep -q '^ Verification *= *SUCCESSFUL$' "$OUT/last.out" &&
		note "$a $name: exit $rc after a verified report (counted)"
	if grep -q '^ Verification *= *SUCCESSFUL$' "$OUT/last.out"; then
		awk -v a="$a" -v n="$name" '
			/^ Time in seconds *=/ { printf "RESULT %s.%s %.6g us\n", a, n, $NF * 1e6 }
			/^ Comm initiation *=/ { c += $NF }
			/^ Comm completion *=/ { c += $NF }
			/^ Comm alone *=/ { printf "RESULT %salone.%s %.6g us\n", a, n, $NF * 1e6 }
			END { if (a == "ft") printf "RESULT ftcomm.%s %.6g us\n", n, c * 1e6 }' \
			"$OUT/last.out" >>"$raw"
	else
		note "$a $name: failed or did not verify: $(tail -n 2 "$OUT/last.err" "$OUT/last.out" | tr '\n' ' ')"
	fi
}

ROUNDS=${BENCH_ROUNDS:-3}
for r in $(seq 1 "$ROUNDS"); do
	echo "ROUND $r" >>"$raw"
	order=("${impls[@]}")
	[ $((r % 2)) -eq 0 ] && mapfile -t order < <(printf '%s\n' "${impls[@]}" | tac)
	for n in $ranks; do
		for i in "${order[@]}"; do
			[ -n "${prog[$i.stencil]:-}" ] &&
				app_run "$i" stencil "$n" "$i.$n" --n 2048 --iters 300
			[ -n "${prog[$i.isort]:-}" ] &&
				app_run "$i" isort "$n" "$i.$n" --class A --iters 10
		done
		[ -x $B/apps/ft ] || continue
		for c in ${BENCH_FT_CLASSES:-W A}; do
			for v in exchange slabs pencils; do
				for i in "${order[@]}"; do
					[ -n "${prog[$i.ft]:-}" ] &&
						app_run "$i" ft "$n" "$i.$c.$v.$n" --class "$c" --variant "$v"
				done
			done
		done
	done
done
echo "ROUND 0" >>"$raw"
rm -f "$OUT/last.out" "$OUT/last.err"
python3 scripts/apps_report.py "$raw" "$OUT/apps-report.txt" "$OUT/apps.svg" "$(uname -n), $(nproc) cpus, $ROUNDS rounds" &&
	{ [ -n "${1:-}" ] || cat "$OUT/apps-report.txt"; }
