/* SPDX-License-Identifier: MIT */
/*
 * ctx_threads - contexts at SHMEM_THREAD_MULTIPLE: T threads per PE, each
 * with a SHMEM_CTX_PRIVATE context of its own, put (p, put, put_nbi) and
 * add to their own slots at the right neighbour and fetch-add a counter
 * at PE 0 through a context they all share (options 0: the thread-safe
 * primary); then every thread creates and destroys contexts at once
 * (past the endpoint budget: the shared fallback).  Every value is exact.
 * Meant to run clean under TSan and ASan too.
 *   -t T  threads per PE (default 4, at most 12)    -i R  rounds (default 200)
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "stap.h"

#define TMAX 12
#define BLK 8

static int me, n, right, T = 4, R = 200;
static long *slots;	/* [T][R]: p by thread t of the left PE */
static long *blocks;	/* [T][BLK]: put and put_nbi by thread t of the left */
static long *sums;	/* [T]: atomic adds by thread t of the left */
static long *shared_ctr;	/* at PE 0: fetch_inc through the shared context */
static shmem_ctx_t shared;

struct arg {
	int t;
	int fails;		/* this thread's failed checks (the harness is not thread-safe) */
	long tickets_bad;
};

static void *worker(void *p)
{
	struct arg *a = p;
	int t = a->t;
	shmem_ctx_t ctx;
	long blk[BLK];

	if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
		a->fails++;
		return NULL;
	}
	for (int i = 0; i < R; i++) {
		long tk;

		shmem_ctx_long_p(ctx, &slots[t * R + i], (long)me * 1000000 + t * 1000 + i, right);
		shmem_ctx_long_atomic_add(ctx, &sums[t], i + 1, right);
		for (int j = 0; j < BLK; j++)
			blk[j] = (long)me * 1000 + t * 100 + j + i;
		if (i & 1) {	/* the fence orders it before the next round's put */
			shmem_ctx_long_put_nbi(ctx, &blocks[t * BLK], blk, BLK, right);
			shmem_ctx_fence(ctx);
		} else
			shmem_ctx_long_put(ctx, &blocks[t * BLK], blk, BLK, right);
		tk = shmem_ctx_long_atomic_fetch_inc(shared, shared_ctr, 0);
		if (tk < 0 || tk >= (long)n * T * R)
			a->tickets_bad++;
		if (i % 50 == 49)
			shmem_ctx_quiet(ctx);
	}
	shmem_ctx_quiet(ctx);
	shmem_ctx_destroy(ctx);
	return NULL;
}

/* Every thread creates and destroys contexts at once. */
static void *churn(void *p)
{
	struct arg *a = p;

	for (int i = 0; i < 10; i++) {
		shmem_ctx_t c;

		if (shmem_ctx_create(i & 1 ? SHMEM_CTX_PRIVATE : SHMEM_CTX_SERIALIZED, &c)) {
			a->fails++;
			continue;
		}
		shmem_ctx_long_atomic_inc(c, &sums[a->t], right);
		shmem_ctx_long_p(c, &slots[a->t * R], i, right);
		shmem_ctx_destroy(c);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *), struct arg *args)
{
	pthread_t th[TMAX];

	for (int t = 0; t < T; t++) {
		args[t] = (struct arg){ .t = t };
		if (pthread_create(&th[t], NULL, fn, &args[t])) {
			fprintf(stderr, "# pthread_create failed\n");
			shmem_global_exit(2);
		}
	}
	for (int t = 0; t < T; t++)
		pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
	struct arg args[TMAX];
	int opt, prov = -1, fails = 0;
	long bad = 0;

	while ((opt = getopt(argc, argv, "t:i:")) != -1) {
		if (opt == 't')
			T = atoi(optarg);
		else if (opt == 'i')
			R = atoi(optarg);
	}
	if (T < 1 || T > TMAX || R < 1)
		return 2;
	shmem_init_thread(SHMEM_THREAD_MULTIPLE, &prov);
	me = shmem_my_pe();
	n = shmem_n_pes();
	right = (me + 1) % n;
	st_init();
	T_EQ(prov, SHMEM_THREAD_MULTIPLE);
	slots = shmem_calloc((size_t)T * R, sizeof(long));
	blocks = shmem_calloc((size_t)T * BLK, sizeof(long));
	sums = shmem_calloc((size_t)T, sizeof(long));
	shared_ctr = shmem_calloc(1, sizeof(long));
	T_EQ(shmem_ctx_create(0, &shared), 0);
	st_case("init_thread(MULTIPLE) and a shared context");

	run_threads(worker, args);
	for (int t = 0; t < T; t++) {
		fails += args[t].fails;
		bad += args[t].tickets_bad;
	}
	T_EQ(fails, 0);
	T_EQ(bad, 0);
	shmem_ctx_quiet(shared);
	shmem_barrier_all();
	{
		int left = (me + n - 1) % n;

		for (int t = 0; t < T; t++) {
			for (int i = 0; i < R; i++)
				if (slots[t * R + i] != (long)left * 1000000 + t * 1000 + i) {
					T_EQ(slots[t * R + i], (long)left * 1000000 + t * 1000 + i);
					break;
				}
			T_EQ(sums[t], (long)R * (R + 1) / 2);
			for (int j = 0; j < BLK; j++)
				T_EQ(blocks[t * BLK + j], (long)left * 1000 + t * 100 + j + R - 1);
		}
		if (me == 0)
			T_EQ(*shared_ctr, (long)n * T * R);
	}
	shmem_barrier_all();
	st_case("%d threads x %d rounds, each on a private context: p/put/put_nbi/add exact, shared-context tickets exact",
		T, R);

	memset(sums, 0, (size_t)T * sizeof(long));
	shmem_barrier_all();
	run_threads(churn, args);
	fails = 0;
	for (int t = 0; t < T; t++)
		fails += args[t].fails;
	T_EQ(fails, 0);
	shmem_barrier_all();
	for (int t = 0; t < T; t++)
		T_EQ(sums[t], 10);
	shmem_barrier_all();
	st_case("%d threads creating and destroying 10 contexts each at once: all created, adds exact", T);

	shmem_ctx_destroy(shared);
	shmem_free(shared_ctr);
	shmem_free(sums);
	shmem_free(blocks);
	shmem_free(slots);
	return st_done();
}
