// SPDX-License-Identifier: MIT
/*
 * threads_bench - processes against threads, as the threads paper
 * (Ibrahim & Yelick) compares them.
 *
 *   pgasrun -n N threads_bench -m proc          N processes, one thread each
 *   pgasrun -n 1 threads_bench -m shared -t N   one process, N threads at
 *                                               PGAS_THREAD_MULTIPLE
 *
 * Workers pair up, i with i^1 (one worker: itself).  Per mode and worker
 * count: the AM Short rate (every worker floods its partner with 1-argument
 * requests; the partner's handler counts) and the 8-byte put rate
 * (put_nbi into a line of its own, a sync every 64), both summed over the
 * workers; best of 5.  Prints "RESULT threads.MODE.METRIC.N VALUE msg/s".
 * Endpoints (a thread with rings of its own, the paper's (b)) come next.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pgas.h"

#define MAX_W 64
#define AM_COUNT 200000u
#define PUT_COUNT 2000000u
#define REPS 5

static unsigned workers = 1, me, nranks;
static int shared;
static _Atomic uint64_t got[MAX_W];	/* AM requests handled, per receiving worker */
static pthread_barrier_t bar;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void h_count(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)nargs;
	atomic_fetch_add_explicit(&got[args[0]], 1, memory_order_relaxed);
}

/* Everyone (all threads of all ranks) at one point. */
static void sync_all(void)
{
	if (shared)
		pthread_barrier_wait(&bar);
	else
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
}

/* Worker w's partner: (rank, worker index there). */
static void partner(unsigned w, unsigned *rank, unsigned *pw)
{
	unsigned p = (w ^ 1u) < workers ? w ^ 1u : w;

	*rank = shared ? 0 : p;
	*pw = p;
}

static double best_am[MAX_W], best_put[MAX_W];

static void *worker(void *arg)
{
	unsigned w = (unsigned)(uintptr_t)arg, prank, pw;
	char *line;

	partner(w, &prank, &pw);
	line = (char *)pgas_segment_addr(prank) + (size_t)w * 64;
	best_am[w] = best_put[w] = 1e30;
	for (int rep = 0; rep < REPS; rep++) {
		uint64_t base = atomic_load(&got[w]);
		uint32_t a[1] = { pw };
		uint64_t v = w;
		double t0, t;

		sync_all();
		t0 = now();
		for (unsigned i = 0; i < AM_COUNT; i++)
			pgas_am_request_short(prank, 1, a, 1);
		/* My partner sent me as many: wait until I handled them all. */
		while (atomic_load_explicit(&got[w], memory_order_relaxed) < base + AM_COUNT)
			pgas_poll();
		t = now() - t0;
		if (t < best_am[w])
			best_am[w] = t;
		sync_all();
		t0 = now();
		for (unsigned i = 0; i < PUT_COUNT; i++) {
			pgas_put_nbi(prank, line, &v, 8);
			if (i % 64 == 63)
				pgas_wait_syncnbi_puts();
		}
		pgas_wait_syncnbi_puts();
		t = now() - t0;
		if (t < best_put[w])
			best_put[w] = t;
	}
	sync_all();
	return NULL;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { { 1, h_count } };
	pthread_t th[MAX_W];
	double am = 0, put = 0;
	int opt, provided;

	while ((opt = getopt(argc, argv, "m:t:")) != -1) {
		if (opt == 'm')
			shared = !strcmp(optarg, "shared");
		else if (opt == 't')
			workers = (unsigned)atoi(optarg);
	}
	if (pgas_init_thread(&argc, &argv, shared ? PGAS_THREAD_MULTIPLE : PGAS_THREAD_SINGLE,
			     &provided))
		return 1;
	me = pgas_rank();
	nranks = pgas_nranks();
	if (!shared)
		workers = nranks;
	if (workers < 1 || workers > MAX_W || (shared && nranks != 1)) {
		fprintf(stderr, "threads_bench: -m shared runs on one rank with -t 1..%d\n", MAX_W);
		return 2;
	}
	if (pgas_attach(table, 1, (size_t)MAX_W * 64))
		return 1;
	if (shared) {
		pthread_barrier_init(&bar, NULL, workers);
		for (unsigned w = 0; w < workers; w++)
			pthread_create(&th[w], NULL, worker, (void *)(uintptr_t)w);
		for (unsigned w = 0; w < workers; w++)
			pthread_join(th[w], NULL);
		for (unsigned w = 0; w < workers; w++) {
			am += AM_COUNT / best_am[w];
			put += PUT_COUNT / best_put[w];
		}
	} else {
		uint64_t rates[2], sum[2];

		worker((void *)(uintptr_t)me);
		rates[0] = (uint64_t)(AM_COUNT / best_am[me]);
		rates[1] = (uint64_t)(PUT_COUNT / best_put[me]);
		if (pgas_reduce_all(pgas_team_all(), sum, rates, 2, PGAS_UINT64, PGAS_OP_SUM,
				    PGAS_COLL_MYSYNC))
			return 1;
		am = (double)sum[0];
		put = (double)sum[1];
	}
	if (me == 0) {
		printf("RESULT threads.%s.am_short_rate.%u %.0f msg/s\n",
		       shared ? "shared" : "proc", workers, am);
		printf("RESULT threads.%s.put8_rate.%u %.0f msg/s\n",
		       shared ? "shared" : "proc", workers, put);
	}
	pgas_exit(0);
}
