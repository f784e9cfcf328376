// SPDX-License-Identifier: MIT
/*
 * shmem_coll - OpenSHMEM (oshmem) peer of the collective benchmark:
 * shmem_broadcast64, shmem_fcollect64 (gather-to-all), shmem_alltoall64,
 * shmem_double_sum_to_all (all-reduce) and shmem_barrier_all.  The 1.4
 * active-set API wants pSync arrays that are not reused before every PE
 * is done with them, so each call is followed by shmem_barrier_all; the
 * barrier's own time, measured alone, is subtracted.  Printed before
 * shmem_finalize, which crashes in this build.
 */
#define _GNU_SOURCE
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include "../bench.h"

#define MAXSIZE ((size_t)4 << 20)
static const size_t sizes[] = { 8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20 };
static long psync[SHMEM_BCAST_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ?
		  SHMEM_BCAST_SYNC_SIZE + SHMEM_REDUCE_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE :
		  SHMEM_ALLTOALL_SYNC_SIZE + SHMEM_REDUCE_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE];
static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + (MAXSIZE / 8) / 2 + 1];
static char *src, *dst;
static int n;

static void one(int kind, size_t nb)
{
	size_t cnt = nb / 8 ? nb / 8 : 1;

	switch (kind) {
	case 0: break;
	case 1: shmem_broadcast64(dst, src, cnt, 0, 0, 0, n, psync); break;
	case 4: shmem_fcollect64(dst, src, cnt, 0, 0, n, psync); break;
	case 5: shmem_alltoall64(dst, src, cnt, 0, 0, n, psync); break;
	case 7: shmem_double_sum_to_all((double *)dst, (double *)src, (int)cnt, 0, 0, n, pwrk,
					psync); break;
	}
	shmem_barrier_all();
}

static double measure(int kind, size_t nb, unsigned reps)
{
	static double worst, t;
	double best = 1e30;

	reps = (unsigned)bench_scaled(reps, 1);
	for (int wu = 0; wu < 3; wu++)
		one(kind, nb);
	for (int rep = 0; rep < 3; rep++) {
		double t0 = bench_now();

		for (unsigned i = 0; i < reps; i++)
			one(kind, nb);
		t = (bench_now() - t0) / reps;
		shmem_barrier_all();
		shmem_double_max_to_all(&worst, &t, 1, 0, 0, n, pwrk, psync);
		shmem_barrier_all();
		best = worst < best ? worst : best;
	}
	return best;
}

int main(void)
{
	static const char *const names[] = { "barrier", "broadcast", "", "", "gather_all",
					     "exchange", "", "reduce_all" };
	static const int kinds[] = { 1, 4, 5, 7 };
	int me;

	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	for (size_t i = 0; i < sizeof(psync) / sizeof(psync[0]); i++)
		psync[i] = SHMEM_SYNC_VALUE;
	src = shmem_malloc((size_t)n * MAXSIZE);
	dst = shmem_malloc((size_t)n * MAXSIZE);
	memset(src, 1, (size_t)n * MAXSIZE);
	memset(dst, 2, (size_t)n * MAXSIZE);
	shmem_barrier_all();
	double bar = measure(0, 0, 400);

	if (me == 0)
		printf("RESULT oshmem%d.barrier.0 %.6g us\n", n, bar * 1e6);
	for (unsigned k = 0; k < 4; k++)
		for (unsigned z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t nb = sizes[z];
			unsigned reps = nb >= (1 << 20) ? 4 : nb >= 32768 ? 50 : 400;
			double t = measure(kinds[k], nb, reps) - bar;

			if (me == 0) {
				printf("RESULT oshmem%d.%s.%zu %.6g us\n", n, names[kinds[k]], nb,
				       t * 1e6);
				fflush(stdout);
			}
		}
	shmem_finalize();
	return 0;
}
