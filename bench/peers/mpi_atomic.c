// SPDX-License-Identifier: MIT
/*
 * mpi_atomic - the MPI peers of bench/atomic_bench (built with Open MPI's
 * and MPICH's mpicc): passive-target atomics in a window from
 * MPI_Win_allocate under MPI_Win_lock_all.
 *
 *   mpirun -n N mpi_atomic PREFIX [section...]   lat pingpong tput contended
 *
 * lat: rank 0 -> a word of rank 1, MPI_Fetch_and_op(MPI_SUM) and
 * MPI_Compare_and_swap (each succeeds), each followed by MPI_Win_flush.
 * pingpong: ranks 0 and 1 take turns on a word of rank 1: read with
 * MPI_Fetch_and_op(MPI_NO_OP) + flush until it is 2i+me, then fetch-add +
 * flush; or compare-and-swap + flush retried until it succeeds.  tput:
 * every rank to its own word on rank (me+1) % N; contended: every rank to
 * one word on rank 0: MPI_Accumulate(MPI_SUM) with a flush every 256 and at
 * the end, and MPI_Fetch_and_op + flush; Mops/s of all ranks, barrier to
 * barrier.  Median of 7.  Prints "RESULT PREFIX.atomic.NAME value unit".
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bench.h"

#define REPS 7
#define DISP(i) ((MPI_Aint)(i) * 16)	/* one word per 128 bytes */

static int me, n;
static const char *prefix;
static MPI_Win win;
static uint64_t *base;
static volatile uint64_t sink;

static void report(const char *what, double value, const char *unit)
{
	char name[96];

	snprintf(name, sizeof(name), "%s.atomic.%s", prefix, what);
	if (me == 0)
		bench_result(name, value, unit);
}

static void reset(int r, int wi)
{
	uint64_t zero = 0, old;

	MPI_Barrier(MPI_COMM_WORLD);
	if (me == r) {
		MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, r, DISP(wi), MPI_REPLACE, win);
		MPI_Win_flush(r, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
}

static uint64_t fadd(int r, MPI_Aint d, uint64_t v)
{
	uint64_t old;

	MPI_Fetch_and_op(&v, &old, MPI_UINT64_T, r, d, MPI_SUM, win);
	MPI_Win_flush(r, win);
	return old;
}

static uint64_t fetch(int r, MPI_Aint d)
{
	uint64_t old;

	MPI_Fetch_and_op(NULL, &old, MPI_UINT64_T, r, d, MPI_NO_OP, win);
	MPI_Win_flush(r, win);
	return old;
}

static uint64_t cas(int r, MPI_Aint d, uint64_t cmp, uint64_t v)
{
	uint64_t old;

	MPI_Compare_and_swap(&v, &cmp, &old, MPI_UINT64_T, r, d, win);
	MPI_Win_flush(r, win);
	return old;
}

static void lat_section(void)
{
	const long iters = 100000;
	double t[2][REPS];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			reset(1, 0);
			t[k][rep] = 0;
			if (me == 0) {
				uint64_t acc = 0, cur = 0;
				double t0 = bench_now();

				for (long i = 0; i < iters; i++) {
					if (k == 0)
						acc += fadd(1, DISP(0), 1);
					else
						cur = cas(1, DISP(0), cur, cur + 1) + 1;
				}
				t[k][rep] = (bench_now() - t0) / iters;
				sink = acc + cur;
			}
		}
	report("fadd_lat", bench_median(t[0], REPS) * 1e9, "ns");
	report("cas_lat", bench_median(t[1], REPS) * 1e9, "ns");
}

static void pingpong_section(void)
{
	const long iters = 20000;
	double t[2][REPS];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			reset(1, 0);
			t[k][rep] = 0;
			if (me < 2) {
				double t0 = bench_now();

				for (long i = 0; i < iters; i++) {
					uint64_t turn = 2 * (uint64_t)i + (uint64_t)me;

					if (k == 0) {
						while (fetch(1, DISP(0)) != turn)
							;
						fadd(1, DISP(0), 1);
					} else {
						while (cas(1, DISP(0), turn, turn + 1) != turn)
							;
					}
				}
				t[k][rep] = (bench_now() - t0) / iters;
			}
		}
	report("fadd_pingpong", bench_median(t[0], REPS) * 1e9, "ns");
	report("cas_pingpong", bench_median(t[1], REPS) * 1e9, "ns");
}

static void tput_section(int contended)
{
	const long iters = contended ? 200000 / n : 200000;
	int r = contended ? 0 : (me + 1) % n, wi = contended ? 0 : me;
	double t[2][REPS];
	char name[80];
	uint64_t one = 1;

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			uint64_t acc = 0;
			double t0;

			reset(r, wi);
			t0 = bench_now();
			for (long i = 0; i < iters; i++) {
				if (k == 0) {
					MPI_Accumulate(&one, 1, MPI_UINT64_T, r, DISP(wi), 1,
						       MPI_UINT64_T, MPI_SUM, win);
					if (i % 256 == 255)
						MPI_Win_flush(r, win);
				} else {
					acc += fadd(r, DISP(wi), 1);
				}
			}
			MPI_Win_flush(r, win);
			MPI_Barrier(MPI_COMM_WORLD);
			t[k][rep] = (double)iters * n / (bench_now() - t0) / 1e6;
			sink = acc;
		}
	snprintf(name, sizeof(name), "add_%s.%d", contended ? "contended" : "tput", n);
	report(name, bench_median(t[0], REPS), "Mops/s");
	snprintf(name, sizeof(name), "fadd_%s.%d", contended ? "contended" : "tput", n);
	report(name, bench_median(t[1], REPS), "Mops/s");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	prefix = argc > 1 ? argv[1] : "mpi";
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n > 16)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Win_allocate(16 * 16 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	memset(base, 0, 16 * 16 * 8);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	if (n >= 2 && bench_want(argc, argv, 2, "lat"))
		lat_section();
	if (n >= 2 && bench_want(argc, argv, 2, "pingpong"))
		pingpong_section();
	if (bench_want(argc, argv, 2, "tput"))
		tput_section(0);
	if (bench_want(argc, argv, 2, "contended"))
		tput_section(1);
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
