// SPDX-License-Identifier: MIT
/*
 * threads_alone - a rank whose every peer has left (pgas_exit(0)) goes on
 * with threads of its own (issue 21, items 11 and 12).
 *
 *   pgasrun -n N threads_alone [-l single|funneled|multiple] [-t WAITERS]
 *                              [-s SENDERS] [-k MESSAGES] [-d MS] [-e]
 *
 * Every rank but 0 attaches, meets the others in a barrier and leaves.
 * Rank 0:
 *   multiple (default)  a progress thread; WAITERS threads wait on a flag
 *       each, half in pgas_block_until, half in pgas_ep_block_until on an
 *       endpoint of their own; SENDERS threads, each with a
 *       PGAS_EP_PROGRESS endpoint, send MESSAGES Shorts and Mediums (some
 *       through bounce buffers) to the primary and to the next sender's
 *       endpoint, which only the progress thread polls (with 16-slot
 *       mailboxes they wait for ring and bounce space); once every message
 *       was handled, and MS ms later (default 200), the main thread sets
 *       the flags: every waiter must return.  Another thread of the rank
 *       may still set what a wait waits for, so no wait of a user's
 *       condition may end the rank as abandoned (it did: exit 70), nor
 *       may a send that waits for room in this rank's own rings or bounce
 *       buffers (PGAS_BOUNCE_BUFS=1: a sender waits for the handler of the
 *       last bounce Medium, which the progress thread runs; it ended the
 *       rank with 70 once that handler had consumed its slots).  Under
 *       TSan this is also the races' test: waiters and senders run the
 *       abandoned-wait check at once while the progress thread handles.
 *   funneled  the main thread waits in pgas_block_until (-e: in
 *       pgas_ep_block_until) on a flag that a thread which never calls
 *       libpgas sets after MS ms: must return.
 *   single    the main thread waits on a flag nobody sets: the wait is
 *       abandoned and ends the rank (exit 70, "waiting for what no rank
 *       can provide"); the check-native tier expects exactly that.
 * Prints "ok"/"not ok" lines; exit 0 when every check held.
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

enum { H_MSG = 1, MAXT = 16 };

static unsigned nwait = 4, nsend = 3, nmsg = 300, delay_ms = 200;
static int on_ep;
static _Atomic unsigned handled, failed;
static _Atomic int flags[MAXT];
static pgas_ep_t send_ep[MAXT];
static unsigned send_eid[MAXT];
static _Atomic unsigned returned, senders_ready;

static void h_msg(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	const unsigned char *p = b;

	(void)t;
	/* The payload is the message's number, repeated. */
	if (na != 1 || (n && (p[0] != (unsigned char)a[0] || p[n - 1] != (unsigned char)a[0])))
		atomic_fetch_add(&failed, 1);
	/* A bounce buffer's handler takes its time: the senders that wait
	 * for that buffer, or for room behind it, wait for a handler that
	 * runs in another thread, which no ring shows as in flight once it
	 * consumed its slots. */
	if (n > 1000)
		usleep(200);
	atomic_fetch_add(&handled, 1);
}

static void msleep(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void *waiter(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;
	pgas_ep_t ep;

	if (i & 1) {
		if (pgas_ep_create(&ep, 0)) {
			printf("# waiter %u: pgas_ep_create: %s\n", i, pgas_last_error());
			atomic_fetch_add(&failed, 1);
			return NULL;
		}
		pgas_ep_block_until(ep, atomic_load(&flags[i]));
		/* No thread polls it now: its destroy cannot be refused. */
		if (pgas_ep_destroy(ep))
			atomic_fetch_add(&failed, 1);
	} else {
		pgas_block_until(atomic_load(&flags[i]));
	}
	atomic_fetch_add(&returned, 1);
	return NULL;
}

static void *sender(void *arg)
{
	unsigned j = (unsigned)(uintptr_t)arg;
	size_t big = pgas_am_max_medium();
	unsigned char *buf = malloc(big);

	if (!buf)
		abort();
	atomic_fetch_add(&senders_ready, 1);
	while (atomic_load(&senders_ready) < nsend)	/* every endpoint made */
		;
	for (unsigned i = 0; i < nmsg; i++) {
		/* To the primary or the next sender's endpoint; a Short, a
		 * Medium in the ring, one through a bounce buffer. */
		unsigned to = i & 1 ? send_eid[(j + 1) % nsend] : pgas_rank();
		size_t n = i % 3 == 0 ? 0 : i % 3 == 1 ? 200 : big;
		uint32_t a = i;
		int rc;

		memset(buf, (unsigned char)i, n);
		rc = n ? pgas_ep_am_request_medium(send_ep[j], to, H_MSG, buf, n, &a, 1)
		       : pgas_ep_am_request_short(send_ep[j], to, H_MSG, &a, 1);
		if (rc) {
			printf("# sender %u: %s\n", j, pgas_last_error());
			atomic_fetch_add(&failed, 1);
			break;
		}
	}
	free(buf);
	return NULL;
}

static void *setter(void *arg)
{
	(void)arg;
	msleep(delay_ms);
	atomic_store(&flags[0], 1);
	return NULL;
}

static int multiple(void)
{
	pthread_t w[MAXT], s[MAXT];

	for (unsigned j = 0; j < nsend; j++) {
		if (pgas_ep_create(&send_ep[j], PGAS_EP_PROGRESS)) {
			printf("not ok - pgas_ep_create: %s\n", pgas_last_error());
			return 1;
		}
		send_eid[j] = pgas_ep_index(send_ep[j]);
	}
	if (pgas_progress_thread_start()) {
		printf("not ok - pgas_progress_thread_start: %s\n", pgas_last_error());
		return 1;
	}
	for (unsigned i = 0; i < nwait; i++)
		pthread_create(&w[i], NULL, waiter, (void *)(uintptr_t)i);
	for (unsigned j = 0; j < nsend; j++)
		pthread_create(&s[j], NULL, sender, (void *)(uintptr_t)j);
	for (unsigned j = 0; j < nsend; j++)
		pthread_join(s[j], NULL);
	while (atomic_load(&handled) < nsend * nmsg && !atomic_load(&failed))
		msleep(1);
	printf("%s - %u messages from %u threads handled by the progress thread alone\n",
	       atomic_load(&handled) == nsend * nmsg ? "ok" : "not ok", atomic_load(&handled),
	       nsend);
	msleep(delay_ms);
	printf("# %u of %u waiters returned before their flag was set\n", atomic_load(&returned),
	       nwait);
	for (unsigned i = 0; i < nwait; i++)
		atomic_store(&flags[i], 1);
	for (unsigned i = 0; i < nwait; i++)
		pthread_join(w[i], NULL);
	printf("%s - %u waiters (pgas_block_until, pgas_ep_block_until) returned when another thread set their flag\n",
	       atomic_load(&returned) == nwait ? "ok" : "not ok", nwait);
	pgas_progress_thread_stop();
	for (unsigned j = 0; j < nsend; j++)
		if (pgas_ep_destroy(send_ep[j]))
			atomic_fetch_add(&failed, 1);
	return atomic_load(&failed) || atomic_load(&returned) != nwait ||
	       atomic_load(&handled) != nsend * nmsg;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_MSG, h_msg } };
	int level = PGAS_THREAD_MULTIPLE, opt, provided, rc = 0;
	pthread_t th;
	pgas_ep_t ep = NULL;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-l"))
			level = !strcmp(argv[i + 1], "single") ? PGAS_THREAD_SINGLE :
				!strcmp(argv[i + 1], "funneled") ? PGAS_THREAD_FUNNELED :
				PGAS_THREAD_MULTIPLE;
	if (pgas_init_thread(&argc, &argv, level, &provided) || pgas_attach(tab, 1, 0))
		return 2;
	while ((opt = getopt(argc, argv, "l:t:s:k:d:e")) != -1) {
		if (opt == 't')
			nwait = (unsigned)atoi(optarg);
		else if (opt == 's')
			nsend = (unsigned)atoi(optarg);
		else if (opt == 'k')
			nmsg = (unsigned)atoi(optarg);
		else if (opt == 'd')
			delay_ms = (unsigned)atoi(optarg);
		else if (opt == 'e')
			on_ep = 1;
	}
	if (nwait > MAXT || nsend < 1 || nsend > MAXT)
		return 2;
	if (pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS))
		return 2;
	if (pgas_rank() != 0)
		pgas_exit(0);
	if (level == PGAS_THREAD_MULTIPLE) {
		rc = multiple();
	} else {
		if (on_ep && pgas_ep_create(&ep, 0))
			return 2;
		if (level == PGAS_THREAD_FUNNELED)
			pthread_create(&th, NULL, setter, NULL);
		printf("# %s waits on a flag %s\n", on_ep ? "pgas_ep_block_until" : "pgas_block_until",
		       level == PGAS_THREAD_FUNNELED ? "that another thread sets" : "nobody sets");
		fflush(stdout);
		if (on_ep)
			pgas_ep_block_until(ep, atomic_load(&flags[0]));
		else
			pgas_block_until(atomic_load(&flags[0]));
		if (level == PGAS_THREAD_FUNNELED)
			pthread_join(th, NULL);
		printf("%s - the wait returned when another thread set the flag\n",
		       level == PGAS_THREAD_FUNNELED ? "ok" : "not ok");
		rc = level != PGAS_THREAD_FUNNELED;
		if (ep)
			pgas_ep_destroy(ep);
	}
	pgas_exit(rc);
}
