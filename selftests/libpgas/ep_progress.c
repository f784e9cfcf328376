// SPDX-License-Identifier: MIT
/*
 * ep_progress - the library's progress thread serves the endpoints created
 * with PGAS_EP_PROGRESS (Chapel's pattern): worker threads, each with an
 * endpoint of its own, send requests to the endpoint of the same thread
 * of the next rank and then wait for every reply without ever calling
 * libpgas; nobody but the progress thread polls.  Without the flag
 * (-f 0) nothing answers and the run fails after its time limit.
 *
 *   pgasrun -n N ep_progress [-t THREADS] [-k REQUESTS] [-f FLAGS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "pgas.h"
#include "pgas_coll.h"

#define H_REQ 1
#define H_REP 2
#define MAXT 16

static unsigned nthreads = 4, nreq = 200, flags = PGAS_EP_PROGRESS, me, n;
static pgas_ep_t eps[MAXT];
static _Atomic unsigned replies[MAXT], requests[MAXT];
static _Atomic int failed;

static void h_req(pgas_token_t tok, void *buf, size_t nb, const uint32_t *a, unsigned na)
{
	(void)buf; (void)nb; (void)na;
	atomic_fetch_add(&requests[a[0]], 1);
	if (pgas_am_reply_short(tok, H_REP, a, 2))
		atomic_store(&failed, 1);
}

static void h_rep(pgas_token_t tok, void *buf, size_t nb, const uint32_t *a, unsigned na)
{
	(void)tok; (void)buf; (void)nb; (void)na;
	/* The reply comes to the endpoint the request left from. */
	if (a[1] != pgas_ep_index(eps[a[0]]))
		atomic_store(&failed, 1);
	atomic_fetch_add(&replies[a[0]], 1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, peer, eid;
	double t0 = now();

	while (pgas_ep_lookup((me + 1) % n, 1 + t, &peer))	/* created in thread order */
		if (now() - t0 > 20) {
			fprintf(stderr, "# rank %u thread %u: the peer endpoint never appeared\n", me, t);
			atomic_store(&failed, 1);
			return NULL;
		}
	eid = pgas_ep_index(eps[t]);
	for (unsigned i = 0; i < nreq; i++) {
		uint32_t a[2] = { t, eid };

		if (pgas_ep_am_request_short(eps[t], peer, H_REQ, a, 2)) {
			fprintf(stderr, "# rank %u thread %u: %s\n", me, t, pgas_last_error());
			atomic_store(&failed, 1);
			return NULL;
		}
	}
	/* No poll: the progress thread runs the replies' handlers. */
	while (atomic_load(&replies[t]) < nreq)
		if (now() - t0 > 20) {
			fprintf(stderr, "# rank %u thread %u: %u of %u replies after 20 s\n", me, t,
				atomic_load(&replies[t]), nreq);
			atomic_store(&failed, 1);
			return NULL;
		}
	return NULL;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req }, { H_REP, h_rep } };
	pthread_t th[MAXT];
	int opt, prov;

	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, &prov) ||
	    pgas_attach(tab, 2, 0))
		return 1;
	while ((opt = getopt(argc, argv, "t:k:f:")) != -1) {
		if (opt == 't')
			nthreads = (unsigned)atoi(optarg);
		else if (opt == 'k')
			nreq = (unsigned)atoi(optarg);
		else if (opt == 'f')
			flags = (unsigned)atoi(optarg);
	}
	if (nthreads < 1 || nthreads > MAXT)
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (me == 0)
		printf("1..1\n");	/* one plan and one line for the job */
	for (unsigned t = 0; t < nthreads; t++)
		if (pgas_ep_create(&eps[t], flags)) {
			fprintf(stderr, "# rank %u: pgas_ep_create: %s\n", me, pgas_last_error());
			return 1;
		}
	if (pgas_progress_thread_start())
		return 1;
	for (unsigned t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	/* Every request of the previous rank's threads arrived once. */
	while (!atomic_load(&failed)) {
		unsigned t = 0;

		while (t < nthreads && atomic_load(&requests[t]) == nreq)
			t++;
		if (t == nthreads)
			break;
		usleep(1000);
	}
	pgas_progress_thread_stop();
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	for (unsigned t = 0; t < nthreads; t++)
		pgas_ep_destroy(eps[t]);
	{
		/* Every rank's verdict, reported once by rank 0. */
		int64_t bad = atomic_load(&failed), all = 0;

		if (pgas_reduce_all(pgas_team_all(), &all, &bad, 1, PGAS_INT64, PGAS_OP_SUM,
				    PGAS_COLL_ALLSYNC))
			all = 1;
		if (me == 0)
			printf("%s 1 - %u threads x %u requests answered by the progress thread alone [%u ranks]\n",
			       all ? "not ok" : "ok", nthreads, nreq, n);
	}
	pgas_exit(0);
}
