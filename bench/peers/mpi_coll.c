// SPDX-License-Identifier: MIT
/*
 * mpi_coll - the MPI peers of the collective benchmark (built with Open
 * MPI's and with MPICH's mpicc): MPI_Barrier, Bcast, Scatter, Gather,
 * Allgather, Alltoall, Reduce, Allreduce and Scan over the sizes of
 * pgas-tune --bench, timed the same way (back-to-back calls, slowest
 * rank, best of 3).  Prints "RESULT <prefix><n>.<operation>.<size>" lines.
 *
 *   mpi_coll [prefix [operation...]]   the operations named (all by default)
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bench.h"

#define MAXSIZE ((size_t)4 << 20)
static const size_t sizes[] = { 8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20 };
static char *src, *dst;

static void one(int kind, size_t nb)
{
	MPI_Comm w = MPI_COMM_WORLD;
	int cnt = (int)(nb / 8 ? nb / 8 : 1), b = (int)nb;

	switch (kind) {
	case 0: MPI_Barrier(w); break;
	case 1: MPI_Bcast(dst, b, MPI_BYTE, 0, w); break;
	case 2: MPI_Scatter(src, b, MPI_BYTE, dst, b, MPI_BYTE, 0, w); break;
	case 3: MPI_Gather(src, b, MPI_BYTE, dst, b, MPI_BYTE, 0, w); break;
	case 4: MPI_Allgather(src, b, MPI_BYTE, dst, b, MPI_BYTE, w); break;
	case 5: MPI_Alltoall(src, b, MPI_BYTE, dst, b, MPI_BYTE, w); break;
	case 6: MPI_Reduce(src, dst, cnt, MPI_DOUBLE, MPI_SUM, 0, w); break;
	case 7: MPI_Allreduce(src, dst, cnt, MPI_DOUBLE, MPI_SUM, w); break;
	case 8: MPI_Scan(src, dst, cnt, MPI_DOUBLE, MPI_SUM, w); break;
	}
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "barrier", "broadcast", "scatter", "gather",
					     "gather_all", "exchange", "reduce", "reduce_all",
					     "scan" };
	const char *prefix = argc > 1 ? argv[1] : "mpi";
	int me, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	src = malloc((size_t)n * MAXSIZE);
	dst = malloc((size_t)n * MAXSIZE);
	if (!src || !dst)
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(src, 1, (size_t)n * MAXSIZE);
	memset(dst, 2, (size_t)n * MAXSIZE);
	for (int k = 0; k < 9; k++)
		for (unsigned z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t nb = k ? sizes[z] : 0;
			unsigned reps = nb >= (1 << 20) ? (n > 2 ? 4 : 8) : nb >= 32768 ? 50 : 400;
			double best = 1e30;

			if (!k && z)
				break;
			if (!bench_want(argc, argv, 2, names[k]))
				break;
			reps = (unsigned)bench_scaled(reps, 1);
			for (int wu = 0; wu < 3; wu++)
				one(k, nb);
			for (int rep = 0; rep < 3; rep++) {
				double t0, t, worst;

				MPI_Barrier(MPI_COMM_WORLD);
				t0 = bench_now();
				for (unsigned i = 0; i < reps; i++)
					one(k, nb);
				t = (bench_now() - t0) / reps;
				MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
				best = worst < best ? worst : best;
			}
			if (me == 0) {
				printf("RESULT %s%d.%s.%zu %.6g us\n", prefix, n, names[k], nb,
				       best * 1e6);
				fflush(stdout);
			}
		}
	MPI_Finalize();
	return 0;
}
