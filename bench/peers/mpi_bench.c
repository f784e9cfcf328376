// SPDX-License-Identifier: MIT
/*
 * mpi_bench - the MPI peers (built once with Open MPI's and once with
 * MPICH's mpicc): 8-byte ping-pong, MPI_Put/MPI_Get + MPI_Win_flush,
 * MPI_Barrier, and put/get bandwidth, on 2 ranks.  Prints
 * "RESULT <prefix>.<name> <value> <unit>" lines from rank 0.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bench.h"

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "mpi";
	int me, n, iters = 100000;
	char name[96], label[64];
	double best, t0, t;
	uint64_t word = 0;
	char *base;
	MPI_Win win;
	size_t max = (size_t)4 << 20;
	char *buf;

	MPI_Init(&argc, &argv);
	iters = (int)bench_scaled((unsigned long)iters, 10);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	buf = malloc(max);
	memset(buf, 1, max);

#define REPORT(label, value, unit)					\
	do {								\
		snprintf(name, sizeof(name), "%s.%s", prefix, label);	\
		if (me == 0)						\
			bench_result(name, value, unit);		\
	} while (0)

	/* 8-byte ping-pong */
	best = 1e9;
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = bench_now();
		for (int i = 0; i < iters; i++) {
			if (me == 0) {
				MPI_Send(&word, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(&word, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(&word, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(&word, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
		}
		t = (bench_now() - t0) / iters;
		best = t < best ? t : best;
	}
	REPORT("pingpong8_rtt", best * 1e6, "us");

	/* barrier */
	best = 1e9;
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = bench_now();
		for (int i = 0; i < iters; i++)
			MPI_Barrier(MPI_COMM_WORLD);
		t = (bench_now() - t0) / iters;
		best = t < best ? t : best;
	}
	REPORT("barrier", best * 1e6, "us");

	/* one-sided: a window of 4 MiB, passive target */
	MPI_Win_allocate((MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	MPI_Win_lock_all(0, win);
	for (int get = 0; get < 2; get++) {
		best = 1e9;
		for (int rep = 0; rep < BENCH_REPS; rep++) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = bench_now();
			if (me == 0)
				for (int i = 0; i < iters; i++) {
					if (get)
						MPI_Get(&word, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
					else
						MPI_Put(&word, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
					MPI_Win_flush(1, win);
				}
			t = (bench_now() - t0) / iters;
			best = t < best ? t : best;
		}
		REPORT(get ? "get8_flush" : "put8_flush", best * 1e6, "us");
	}
	for (size_t s = 8; s <= max; s *= 2) {
		int it = (int)(((size_t)128 << 20) / s > 100000 ? 100000 : ((size_t)128 << 20) / s);
		double bp = 1e9, bg = 1e9;

		it = (int)bench_scaled((unsigned long)it, 10);
		for (int rep = 0; rep < BENCH_REPS; rep++) {
			MPI_Barrier(MPI_COMM_WORLD);
			if (me == 0) {
				t0 = bench_now();
				for (int i = 0; i < it; i++)
					MPI_Put(buf, (int)s, MPI_BYTE, 1, 0, (int)s, MPI_BYTE, win);
				MPI_Win_flush(1, win);
				t = bench_now() - t0;
				bp = t < bp ? t : bp;
				t0 = bench_now();
				for (int i = 0; i < it; i++)
					MPI_Get(buf, (int)s, MPI_BYTE, 1, 0, (int)s, MPI_BYTE, win);
				MPI_Win_flush(1, win);
				t = bench_now() - t0;
				bg = t < bg ? t : bg;
			}
		}
		snprintf(label, sizeof(label), "put_bw.%zu", s);
		REPORT(label, (double)s * it / bp / 1e6, "MB/s");
		snprintf(label, sizeof(label), "get_bw.%zu", s);
		REPORT(label, (double)s * it / bg / 1e6, "MB/s");
	}
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	free(buf);
	MPI_Finalize();
	return 0;
}
