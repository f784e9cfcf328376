/* SPDX-License-Identifier: MIT */
/*
 * lock - shmem_set_lock / shmem_test_lock / shmem_clear_lock: every PE
 * increments a counter at PE 0 with a get and a put under the lock (the
 * total is exact only if the lock excludes and clear_lock makes the put
 * visible to the next holder); test_lock on a held and a free lock; a
 * chain of holders where each checks, under the lock, the last holder's
 * nbi puts (completed by clear_lock's quiet); two locks at once.
 *   -k K  rounds per PE (default 200)
 *   -m clear  shmem_clear_lock of a free lock, which must end the job (exit 1)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>
#include "stap.h"

static int me, n, K = 200;

static void test_counter(long *lock, long *counter)
{
	for (int i = 0; i < K; i++) {
		shmem_set_lock(lock);
		long v = shmem_long_g(counter, 0);

		shmem_long_p(counter, v + 1, 0);
		shmem_clear_lock(lock);
	}
	shmem_barrier_all();
	if (me == 0)
		T_EQ(*counter, (long)n * K);
	shmem_barrier_all();
	st_case("%d PEs x %d get+put increments under shmem_set_lock: exact total", n, K);
}

static void test_test_lock(long *lock, long *counter)
{
	*counter = 0;
	shmem_barrier_all();
	if (me == 0)
		T_EQ(shmem_test_lock(lock), 0);	/* free: taken */
	shmem_barrier_all();
	if (me != 0)
		T_EQ(shmem_test_lock(lock), 1);	/* held by PE 0 */
	shmem_barrier_all();
	if (me == 0)
		shmem_clear_lock(lock);
	shmem_barrier_all();
	/* Everyone takes it by test_lock alone, once. */
	while (shmem_test_lock(lock))
		;
	shmem_long_p(counter, shmem_long_g(counter, 0) + 1, 0);
	shmem_clear_lock(lock);
	shmem_barrier_all();
	if (me == 0)
		T_EQ(*counter, n);
	shmem_barrier_all();
	/* Mixed: set_lock and test_lock on one lock. */
	for (int i = 0; i < K; i++) {
		if (i & 1)
			shmem_set_lock(lock);
		else
			while (shmem_test_lock(lock))
				;
		shmem_long_p(counter, shmem_long_g(counter, 0) + 1, 0);
		shmem_clear_lock(lock);
	}
	shmem_barrier_all();
	if (me == 0)
		T_EQ(*counter, n + (long)n * K);
	shmem_barrier_all();
	st_case("test_lock: 0 on a free lock, 1 on a held one; test_lock and set_lock mixed: exact");
}

/* Each holder checks the last holder's data (nbi puts to the last PE and
 * a record at PE 0), then leaves its own, nbi, for clear_lock to complete. */
static void test_visibility(long *lock)
{
	enum { D = 4096 };
	unsigned char *buf = shmem_calloc(1, D), *mine = malloc(D), *got = malloc(D);
	long *last = shmem_calloc(2, sizeof(long));
	int bad = 0;

	for (int i = 0; i < K; i++) {
		long seed = (long)me * 100000 + i + 1, l;

		shmem_set_lock(lock);
		l = shmem_long_g(&last[0], 0);
		if (l) {
			shmem_getmem(got, buf, D, n - 1);
			bad += st_verify(got, D, (uint64_t)l) != D;
		}
		st_fill(mine, D, (uint64_t)seed);
		shmem_putmem_nbi(buf, mine, D, n - 1);
		shmem_long_put_nbi(&last[0], &seed, 1, 0);
		shmem_long_atomic_inc(&last[1], 0);
		shmem_clear_lock(lock);
	}
	T_EQ(bad, 0);
	shmem_barrier_all();
	if (me == 0)
		T_EQ(last[1], (long)n * K);
	shmem_barrier_all();
	shmem_free(last);
	shmem_free(buf);
	free(mine);
	free(got);
	st_case("lock + put_nbi + clear_lock: the next holder sees the whole put (%d holds)", n * K);
}

/* Two locks held at once, taken in one order: each guards its counter. */
static void test_two(long *locks, long *counters)
{
	counters[0] = counters[1] = 0;
	shmem_barrier_all();
	for (int i = 0; i < K; i++) {
		shmem_set_lock(&locks[0]);
		shmem_set_lock(&locks[1]);
		shmem_long_p(&counters[0], shmem_long_g(&counters[0], 0) + 1, 0);
		shmem_clear_lock(&locks[1]);
		shmem_long_p(&counters[1], shmem_long_g(&counters[1], 0) + 2, 0);
		shmem_clear_lock(&locks[0]);
	}
	shmem_barrier_all();
	if (me == 0) {
		T_EQ(counters[0], (long)n * K);
		T_EQ(counters[1], 2L * n * K);
	}
	shmem_barrier_all();
	st_case("two locks nested: both counters exact");
}

int main(int argc, char **argv)
{
	int opt, mis = 0;

	while ((opt = getopt(argc, argv, "k:m:")) != -1)
		if (opt == 'k')
			K = atoi(optarg);
		else if (opt == 'm')
			mis = 1;
	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	st_init();
	long *locks = shmem_calloc(4, sizeof(long)), *counters = shmem_calloc(2, sizeof(long));

	if (mis) {
		if (me == n - 1)
			shmem_clear_lock(&locks[3]);
		shmem_barrier_all();
		fprintf(stderr, "# clear_lock of a free lock was not caught\n");
		shmem_global_exit(4);
	}

	test_counter(&locks[0], &counters[0]);
	test_test_lock(&locks[0], &counters[0]);
	test_visibility(&locks[1]);
	test_two(&locks[2], counters);
	shmem_free(counters);
	shmem_free(locks);
	return st_done();
}
