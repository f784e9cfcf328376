// SPDX-License-Identifier: MIT
/* The applications' communication over OpenSHMEM: shmem_putmem_nbi, quiet
 * + barrier, shmem_putmem_signal, alltoallmem and the reductions of the
 * world team (1.5), or their 1.4 forms where the library is 1.4 (Open MPI's
 * oshmem, which runs this file unchanged in make bench) (comm.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include "comm.h"

#ifdef COMM_SHMEM_NAME
const char comm_name[] = COMM_SHMEM_NAME;
#else
const char comm_name[] = "OpenSHMEM";
#endif
static char *area;
static double *red_src, *red_dst;	/* symmetric: the reductions' buffers */
#define RED_MAX 8
#define SHMEM_IS_15 (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105)
#if !SHMEM_IS_15
/* 1.4's work and synchronisation arrays; a barrier before each collective
 * makes every PE done with the last one that used them. */
static long psync_a2a[SHMEM_ALLTOALL_SYNC_SIZE], psync_red[SHMEM_REDUCE_SYNC_SIZE];
static double pwrk[RED_MAX / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ?
		   RED_MAX / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long long pwrk_ll[RED_MAX / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ?
			 RED_MAX / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE];
#endif

void comm_fail(const char *call, const char *what)
{
	fprintf(stderr, "%s (PE %d): %s: %s\n", comm_program, shmem_my_pe(), call, what);
	fflush(stderr);
	shmem_global_exit(1);
	exit(1);	/* 1.4 does not declare shmem_global_exit noreturn */
}

void comm_init(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	shmem_init();
	red_src = shmem_malloc(2 * RED_MAX * sizeof(double));
	if (!red_src)
		comm_fail("shmem_malloc", "no symmetric memory for the reductions");
	red_dst = red_src + RED_MAX;
#if !SHMEM_IS_15
	for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
		psync_a2a[i] = SHMEM_SYNC_VALUE;
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		psync_red[i] = SHMEM_SYNC_VALUE;
	shmem_barrier_all();
#endif
}

void *comm_area(size_t bytes)
{
	area = shmem_malloc(bytes);
	if (!area)
		comm_fail("shmem_malloc", "the symmetric heap is too small (SHMEM_SYMMETRIC_SIZE)");
	return area;
}

unsigned comm_rank(void)
{
	return (unsigned)shmem_my_pe();
}

unsigned comm_size(void)
{
	return (unsigned)shmem_n_pes();
}

void comm_put(unsigned rank, size_t off, const void *src, size_t n)
{
	shmem_putmem_nbi(area + off, src, n, (int)rank);
}

void comm_expect(unsigned rank, size_t off, size_t n)
{
	(void)rank, (void)off, (void)n;
}

void comm_complete(void)
{
	shmem_quiet();
	shmem_barrier_all();
}

void comm_put_signal(unsigned rank, size_t off, const void *src, size_t n, size_t sig_off)
{
#if SHMEM_IS_15
	shmem_putmem_signal(area + off, src, n, (uint64_t *)(area + sig_off), 1, SHMEM_SIGNAL_ADD,
			    (int)rank);
#else
	/* 1.4: the data, then (ordered by the fence) the count. */
	shmem_putmem(area + off, src, n, (int)rank);
	shmem_fence();
	shmem_long_atomic_add((long *)(area + sig_off), 1, (int)rank);
#endif
}

void comm_wait_signals(const size_t *sig_offs, unsigned n, uint64_t value)
{
	for (unsigned i = 0; i < n; i++)
#if SHMEM_IS_15
		shmem_signal_wait_until((uint64_t *)(area + sig_offs[i]), SHMEM_CMP_GE, value);
#else
		shmem_long_wait_until((long *)(area + sig_offs[i]), SHMEM_CMP_GE, (long)value);
#endif
}

void comm_exchange(size_t dst_off, size_t src_off, size_t block)
{
#if SHMEM_IS_15
	if (shmem_alltoallmem(SHMEM_TEAM_WORLD, area + dst_off, area + src_off, block))
		comm_fail("shmem_alltoallmem", "failed");
#else
	shmem_barrier_all();
	shmem_alltoall64(area + dst_off, area + src_off, block / 8, 0, 0, shmem_n_pes(),
			 psync_a2a);
#endif
}

static void reduce(double *v, unsigned n, int max)
{
	if (n > RED_MAX)
		comm_fail("reduce", "more values than its buffer holds");
#if SHMEM_IS_15
	memcpy(red_src, v, n * sizeof(double));
	if (max ? shmem_double_max_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, n)
		: shmem_double_sum_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, n))
		comm_fail(max ? "shmem_double_max_reduce" : "shmem_double_sum_reduce", "failed");
#else
	shmem_barrier_all();	/* every PE done with the buffers' last use */
	memcpy(red_src, v, n * sizeof(double));
	if (max)
		shmem_double_max_to_all(red_dst, red_src, (int)n, 0, 0, shmem_n_pes(), pwrk, psync_red);
	else
		shmem_double_sum_to_all(red_dst, red_src, (int)n, 0, 0, shmem_n_pes(), pwrk, psync_red);
#endif
	memcpy(v, red_dst, n * sizeof(double));
}

void comm_sum(double *v, unsigned n)
{
	reduce(v, n, 0);
}

void comm_max(double *v, unsigned n)
{
	reduce(v, n, 1);
}

void comm_sum_u64(uint64_t *v, unsigned n)
{
	uint64_t *src = (uint64_t *)red_src, *dst = (uint64_t *)red_dst;

	if (n > RED_MAX)
		comm_fail("reduce", "more values than its buffer holds");
#if SHMEM_IS_15
	memcpy(src, v, n * sizeof(*v));
	if (shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n))
		comm_fail("shmem_uint64_sum_reduce", "failed");
#else
	/* Two's complement: the signed sum's bits are the unsigned sum's. */
	shmem_barrier_all();
	memcpy(src, v, n * sizeof(*v));
	shmem_longlong_sum_to_all((long long *)dst, (long long *)src, (int)n, 0, 0, shmem_n_pes(),
				  pwrk_ll, psync_red);
#endif
	memcpy(v, dst, n * sizeof(*v));
}

void comm_barrier(void)
{
	shmem_barrier_all();
}

void comm_finish(int rc)
{
	fflush(stdout);
	shmem_finalize();
	exit(rc);
}
