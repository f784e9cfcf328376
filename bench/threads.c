// SPDX-License-Identifier: MIT
/*
 * threads - processes against threads, as the threads paper (Ibrahim &
 * Yelick, communication domains) compares them (issue 11, "Benchmark").
 *
 *   pgasrun -n N threads -m proc          (a) N processes, one thread each
 *   pgasrun -n 1 threads -m ep -t N       (b) one process, N threads, each
 *                                             with an endpoint of its own
 *   pgasrun -n 1 threads -m shared -t N   (c) one process, N threads at
 *                                             PGAS_THREAD_MULTIPLE, all on
 *                                             the primary endpoint
 *
 * Workers pair up, i with i^1 (the last of an odd count, and N = 1: with
 * itself).  Worker i runs on core i % nproc (ranks in (a), threads in (b)
 * and (c)).  Per mode and N, best of 5 (-r):
 *  - am_short_rate: every worker floods its partner with 1-argument AM
 *    Short requests, in batches of 64 (below the ring size) with a poll of
 *    its own endpoint between batches; the partner's handler counts; a
 *    worker's time ends when it has handled its partner's whole flood.
 *    Summed over the workers, messages/s.
 *  - put8_rate: 8-byte put_nbi into a line of its own in the partner's
 *    segment, a wait_syncnbi_puts every 64.  Summed, puts/s.
 *  - am_rtt: a worker's round trip (request, the handler replies, the
 *    reply's handler sets a flag that the worker polls for), both partners
 *    at once; the median of each worker's 20000 (-k), averaged over the
 *    workers.  Nanoseconds.
 * Prints "RESULT threads.MODE.METRIC.N VALUE UNIT", one line per metric.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
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
#define BATCH 64

enum { MODE_PROC, MODE_EP, MODE_SHARED };
enum { H_COUNT = 1, H_PING, H_PONG };

static unsigned workers = 1, me, nranks, reps = 5, rtts = 20000;
static int mode;
static const char *mode_name[] = { "proc", "ep", "shared" };
/* Per worker, a cache line each. */
static struct wstate {
	_Atomic uint64_t got;		/* AM requests handled for this worker */
	_Atomic uint64_t pongs;		/* its round trips' replies */
	pgas_ep_t ep;
	unsigned eid;
	double am, put, rtt;		/* best of the repetitions */
} __attribute__((aligned(64))) ws[MAX_W];
static pthread_barrier_t bar;
static atomic_uint bar_count, bar_gen;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void h_count(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)nargs;
	atomic_fetch_add_explicit(&ws[args[0]].got, 1, memory_order_relaxed);
}

static void h_ping(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)buf; (void)nb;
	pgas_am_reply_short(tok, H_PONG, args, nargs);
}

static void h_pong(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)nargs;
	atomic_store_explicit(&ws[args[0]].pongs, atomic_load_explicit(&ws[args[0]].pongs,
				memory_order_relaxed) + 1, memory_order_release);
}

static void pin(unsigned core)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(core % (unsigned)(ncpu > 0 ? ncpu : 1), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Everyone (all threads of all ranks) at one point. */
static void sync_all(void)
{
	if (mode == MODE_PROC)
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	else
		pthread_barrier_wait(&bar);
}

/* The threads of the process at one point, polling ep meanwhile (a
 * partner may still wait for my answer). */
static void poll_barrier(pgas_ep_t ep)
{
	unsigned g = atomic_load(&bar_gen);

	if (atomic_fetch_add(&bar_count, 1) == workers - 1) {
		atomic_store(&bar_count, 0);
		atomic_fetch_add(&bar_gen, 1);
	} else {
		while (atomic_load(&bar_gen) == g)
			pgas_ep_poll(ep);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void *worker(void *arg)
{
	unsigned w = (unsigned)(uintptr_t)arg, pw = (w ^ 1u) < workers ? w ^ 1u : w;
	unsigned prank = mode == MODE_PROC ? pw : 0, peid;
	struct wstate *s = &ws[w];
	double *lat = malloc(sizeof(double) * rtts);
	char *line;
	pgas_ep_t ep;

	pin(w);
	if (mode == MODE_EP) {
		if (pgas_ep_create(&s->ep, 0)) {
			fprintf(stderr, "threads: pgas_ep_create: %s\n", pgas_last_error());
			exit(1);
		}
		s->eid = pgas_ep_index(s->ep);
	} else {
		s->ep = PGAS_EP_PRIMARY;
		s->eid = mode == MODE_PROC ? me : 0;
	}
	ep = s->ep;
	sync_all();	/* every endpoint exists */
	peid = mode == MODE_EP ? ws[pw].eid : prank;
	line = (char *)pgas_segment_addr(prank) + (size_t)w * 64;
	s->am = s->put = s->rtt = 1e30;
	for (unsigned rep = 0; rep < reps; rep++) {
		uint64_t base = atomic_load(&s->got), v = w;
		uint32_t a[1] = { pw };
		double t0, t;

		sync_all();
		t0 = now();
		for (unsigned i = 0; i < AM_COUNT; i += BATCH) {
			for (unsigned j = 0; j < BATCH && i + j < AM_COUNT; j++)
				pgas_ep_am_request_short(ep, peid, H_COUNT, a, 1);
			pgas_ep_poll(ep);
		}
		/* My partner sent me as many: wait until they are handled. */
		while (atomic_load_explicit(&s->got, memory_order_relaxed) < base + AM_COUNT)
			pgas_ep_poll(ep);
		t = now() - t0;
		if (t < s->am)
			s->am = t;
		sync_all();
		t0 = now();
		for (unsigned i = 0; i < PUT_COUNT; i++) {
			pgas_ep_put_nbi(ep, prank, line, &v, 8);
			if (i % 64 == 63)
				pgas_ep_wait_syncnbi_puts(ep);
		}
		pgas_ep_wait_syncnbi_puts(ep);
		t = now() - t0;
		if (t < s->put)
			s->put = t;
		sync_all();
		a[0] = w;
		for (unsigned k = 0; k < rtts; k++) {
			uint64_t want = atomic_load_explicit(&s->pongs, memory_order_relaxed) + 1;

			t0 = now();
			pgas_ep_am_request_short(ep, peid, H_PING, a, 1);
			while (atomic_load_explicit(&s->pongs, memory_order_acquire) < want)
				pgas_ep_poll(ep);
			lat[k] = now() - t0;
		}
		/* Stay to answer my partner's pings. */
		if (mode == MODE_PROC)
			pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		else
			poll_barrier(ep);
		qsort(lat, rtts, sizeof(double), cmp_double);
		if (lat[rtts / 2] < s->rtt)
			s->rtt = lat[rtts / 2];
	}
	free(lat);
	return NULL;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		{ H_COUNT, h_count }, { H_PING, h_ping }, { H_PONG, h_pong },
	};
	pthread_t th[MAX_W];
	double am = 0, put = 0, rtt = 0;
	int opt, provided;

	while ((opt = getopt(argc, argv, "m:t:r:k:")) != -1) {
		if (opt == 'm')
			mode = !strcmp(optarg, "shared") ? MODE_SHARED
			       : !strcmp(optarg, "ep")   ? MODE_EP
			       : !strcmp(optarg, "proc") ? MODE_PROC : -1;
		else if (opt == 't')
			workers = (unsigned)atoi(optarg);
		else if (opt == 'r')
			reps = (unsigned)atoi(optarg);
		else if (opt == 'k')
			rtts = (unsigned)atoi(optarg);
	}
	if (mode < 0 || reps < 1 || rtts < 1) {
		fprintf(stderr, "threads: -m proc|ep|shared [-t N] [-r REPS] [-k ROUND_TRIPS]\n");
		return 2;
	}
	if (pgas_init_thread(&argc, &argv,
			     mode == MODE_SHARED ? PGAS_THREAD_MULTIPLE
			     : mode == MODE_EP   ? PGAS_THREAD_MULTIPLE : PGAS_THREAD_SINGLE,
			     &provided))
		return 1;
	me = pgas_rank();
	nranks = pgas_nranks();
	if (mode == MODE_PROC)
		workers = nranks;
	if (workers < 1 || workers > MAX_W || (mode != MODE_PROC && nranks != 1)) {
		fprintf(stderr, "threads: -m ep and -m shared run on one rank with -t 1..%d\n",
			MAX_W);
		return 2;
	}
	if (pgas_attach(table, 3, (size_t)MAX_W * 64))
		return 1;
	if (mode == MODE_PROC) {
		double v[3], sum[3];

		worker((void *)(uintptr_t)me);
		v[0] = AM_COUNT / ws[me].am;
		v[1] = PUT_COUNT / ws[me].put;
		v[2] = ws[me].rtt;
		if (pgas_reduce_all(pgas_team_all(), sum, v, 3, PGAS_DOUBLE, PGAS_OP_SUM,
				    PGAS_COLL_MYSYNC))
			return 1;
		am = sum[0];
		put = sum[1];
		rtt = sum[2] / workers;
	} else {
		pthread_barrier_init(&bar, NULL, workers);
		for (unsigned w = 0; w < workers; w++)
			pthread_create(&th[w], NULL, worker, (void *)(uintptr_t)w);
		for (unsigned w = 0; w < workers; w++)
			pthread_join(th[w], NULL);
		for (unsigned w = 0; w < workers; w++) {
			am += AM_COUNT / ws[w].am;
			put += PUT_COUNT / ws[w].put;
			rtt += ws[w].rtt / workers;
			if (mode == MODE_EP)
				pgas_ep_destroy(ws[w].ep);
		}
	}
	if (me == 0) {
		printf("RESULT threads.%s.am_short_rate.%u %.0f msg/s\n", mode_name[mode], workers, am);
		printf("RESULT threads.%s.put8_rate.%u %.0f msg/s\n", mode_name[mode], workers, put);
		printf("RESULT threads.%s.am_rtt.%u %.1f ns\n", mode_name[mode], workers, rtt * 1e9);
		fflush(stdout);
	}
	pgas_exit(0);
}
