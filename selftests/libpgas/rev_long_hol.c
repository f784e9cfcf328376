// SPDX-License-Identifier: MIT
/*
 * rev_long_hol - review reproducer: since PGAS_AM_IMMEDIATE, a Long's
 * payload is copied after its ring slots are reserved (am.c am_send's
 * lcopy), for plain (non-immediate) Longs too.  The target handles its
 * ring in order, so while a sender copies a large payload every message
 * that later senders put behind its reserved slot waits for the whole
 * copy (head-of-line blocking); before, the copy came first and the slot
 * was reserved only when the message was ready.
 *
 *   pgasrun -n 3 -t 60 rev_long_hol [MiB]      (default 64)
 * Rank 1 sends a Long of MiB to rank 0; rank 2, 2 ms after rank 1 began,
 * sends rank 0 a Short request and waits for its reply.  Rank 0 records
 * which handler ran first.  Expected (nothing ties the two messages): the
 * Short, sent while the Long's payload is still being copied, is handled
 * without waiting for that copy.  Exit 1 if the Long's handler ran first.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pgas.h"

enum { H_LONG = 10, H_PING, H_PONG };

static volatile int order_long, order_ping, seq, pong;

static void h_long(pgas_token_t t, void *buf, size_t nbytes, const uint32_t *a, unsigned na)
{
	(void)t; (void)buf; (void)nbytes; (void)a; (void)na;
	order_long = ++seq;
}

static void h_ping(pgas_token_t t, void *buf, size_t nbytes, const uint32_t *a, unsigned na)
{
	(void)buf; (void)nbytes; (void)a; (void)na;
	order_ping = ++seq;
	pgas_am_reply_short(t, H_PONG, NULL, 0);
}

static void h_pong(pgas_token_t t, void *buf, size_t nbytes, const uint32_t *a, unsigned na)
{
	(void)t; (void)buf; (void)nbytes; (void)a; (void)na;
	pong = 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	pgas_handler_entry_t tab[] = { { H_LONG, h_long }, { H_PING, h_ping }, { H_PONG, h_pong } };
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64, len = mib << 20;
	unsigned me;
	int bad = 0;

	if (pgas_init(&argc, &argv) || pgas_attach(tab, 3, len + 4096))
		return 1;
	me = pgas_rank();
	uint64_t *go = (uint64_t *)pgas_segment_addr(2);	/* rank 2's first word */
	char *dst = (char *)pgas_segment_addr(0) + 4096;

	if (me == 1) {
		char *buf = malloc(len);

		memset(buf, 7, len);
		pgas_put_val(2, go, 1, 8);
		double t0 = now_ms();
		pgas_am_request_long(0, H_LONG, buf, len, dst, NULL, 0);
		printf("# rank 1: Long of %zu MiB sent in %.1f ms\n", mib, now_ms() - t0);
	} else if (me == 2) {
		pgas_wait_until_u64(go, PGAS_CMP_EQ, 1);
		usleep(2000);		/* rank 1 is inside its copy */
		double t0 = now_ms();
		pgas_am_request_short(0, H_PING, NULL, 0);
		while (!pong)
			pgas_poll();
		printf("# rank 2: Short's round trip %.1f ms\n", now_ms() - t0);
	}
	fflush(stdout);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me == 0) {
		pgas_block_until(order_long && order_ping);	/* a barrier drains nothing */
		bad = order_long < order_ping;
		printf("%s - the Short sent during the Long's copy was handled %s it\n",
		       bad ? "not ok" : "ok", bad ? "after" : "before");
		fflush(stdout);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (bad)
		_exit(1);
	pgas_exit(0);
}
