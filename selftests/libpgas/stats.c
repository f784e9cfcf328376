// SPDX-License-Identifier: MIT
/*
 * stats - libpgas traffic known exactly, for PGAS_STATS and PGAS_TRACE
 * (scripts/check-native.sh, docs/stats.md).  Built with PGAS_INSTRUMENT
 * (stats_plain.c: without), so that its inline calls note themselves.
 * Every rank does the same to its right neighbour (and so receives the
 * same from its left one): puts and gets of every size class, put_val,
 * fetch-adds, AM Short requests answered by Short replies, Mediums, a
 * Long, barriers and broadcasts.  Checks what arrived (exit 1 if wrong).
 *
 *   stats --expected [mapped|remote]    prints what PGAS_STATS must report
 *                                       on every rank (at 2 ranks or more)
 *   stats --fail                        rank 1 ends with pgas_exit(3) after
 *                                       its traffic (a trace must keep it)
 */
#ifndef STATS_PLAIN
#define PGAS_INSTRUMENT
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pgas.h"
#include "pgas_atomic.h"
#include "pgas_coll.h"
#include "pgas_signal.h"
#include "pgas_vis.h"

enum { H_REQ = 1, H_REP, H_MED, H_LONG };

static volatile unsigned replies, mediums, longs, requests;
static unsigned bad;

static void h_req(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	uint32_t r = args[0] + args[1];

	(void)buf; (void)nb;
	bad += nargs != 2;
	requests++;
	pgas_am_reply_short(tok, H_REP, &r, 1);
}

static void h_rep(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb;
	bad += nargs != 1 || args[0] != 2 * replies + 1;
	replies++;
}

static void h_med(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)args; (void)nargs;
	bad += nb != 100 || ((unsigned char *)buf)[99] != 'm';
	mediums++;
}

static void h_long(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)args; (void)nargs;
	bad += nb != 1000 || ((unsigned char *)buf)[999] != 'l';
	longs++;
}

/* What each rank's report holds: the same on every rank of 2 or more.
 * The library's own messages and the wait steps vary and are not here. */
static void print_expected(const char *path)
{
	int remote = !strcmp(path, "remote"), inl = 1;
	const char *p = remote ? "remote" : "mapped";

#ifdef STATS_PLAIN
	inl = 0;
#endif
	/* put: 7 x 8 B (put_val), 4 x 64 B (nbi), 10 x 100 B, 1 x 80000 B */
	if (inl || remote)
		printf("put.%s 22 81312\nput.%s.le8 7 56\nput.%s.le64 4 256\nput.%s.le512 10 1000\n"
		       "put.%s.gt64k 1 80000\n", p, p, p, p, p);
	/* get: 5 x 24 B, 2 x 5000 B */
	if (inl || remote)
		printf("get.%s 7 10120\nget.%s.le64 5 120\nget.%s.le64k 2 10000\n", p, p, p);
	if (inl || remote)
		printf("amo.%s 3 24\n", p);
	printf("put_signal 2 400\n");
	/* 2 iput of 8 x 8 B, 1 iget of 4 x 16 B: library calls, any build */
	printf("vis.put.%s 2 128\nvis.get.%s 1 64\n", p, p);
	if (inl)
		printf("am.short.request 6 48\n");
	printf("am.short.reply 6 24\n");
	printf("am.medium.request 2 200\n");
	printf("am.long.request 1 1000\n");
	printf("am.received.short.request 6 48\n");
	printf("am.received.short.reply 6 24\n");
	printf("am.received.medium.request 2 200\n");
	printf("am.received.long.request 1 1000\n");
	printf("barrier 4 0\n");
	printf("coll.broadcast.%s 2 0\n", remote ? "ref" : "tree");
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		{ H_REQ, h_req }, { H_REP, h_rep }, { H_MED, h_med }, { H_LONG, h_long },
	};
	static char buf[80000], med[100], lng[1000];
	uint64_t v = 0, bc[8] = { 0 };
	unsigned me, n, right;
	char *seg;
	pgas_ad_t ad;
	int64_t old;
	int rc = 0, fail = argc > 1 && !strcmp(argv[1], "--fail");

	if (argc > 2 && !strcmp(argv[1], "--expected")) {
		print_expected(argv[2]);
		return 0;
	}
	if (pgas_init(&argc, &argv) || pgas_attach(table, 4, 1 << 20))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	right = (me + 1) % n;
	seg = pgas_segment_addr(right);
	memset(med, 'm', sizeof(med));
	memset(lng, 'l', sizeof(lng));
	rc |= pgas_ad_create(&ad, PGAS_DT_I64, PGAS_AOP_FADD, 0);
	rc |= pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);			/* barrier 1 */
	for (int i = 0; i < 7; i++)
		rc |= pgas_put_val(right, seg + 8 * i, (uint64_t)i, 8);
	for (int i = 0; i < 4; i++)
		rc |= pgas_put_nbi(right, seg + 64, buf, 64);
	for (int i = 0; i < 10; i++)
		rc |= pgas_put(right, seg + 128, buf, 100);
	rc |= pgas_put(right, seg + 4096, buf, sizeof(buf));
	rc |= pgas_wait_syncnbi_all();
	for (int i = 0; i < 5; i++)
		rc |= pgas_get(buf, right, seg + 256, 24);
	for (int i = 0; i < 2; i++)
		rc |= pgas_get_nbi(buf, right, seg + 4096, 5000);
	rc |= pgas_wait_syncnbi_all();
	for (int i = 0; i < 3; i++)
		rc |= pgas_ad_op_i64(ad, &old, right, seg + 90000, PGAS_AOP_FADD, 1, 0, 0);
	for (int i = 0; i < 2; i++)
		rc |= pgas_put_with_signal(right, seg + 100000, buf, 200, (uint64_t *)(seg + 100800),
					   1, PGAS_SIGNAL_ADD);
	for (int i = 0; i < 2; i++)
		rc |= pgas_iput(right, seg + 300000, 2, buf, 1, 8, 8);
	rc |= pgas_iget(buf, 1, right, seg + 300000, 3, 16, 4);
	for (uint32_t i = 0; i < 6; i++) {
		uint32_t args[2] = { i, i + 1 };

		rc |= pgas_am_request_short(right, H_REQ, args, 2);
	}
	for (int i = 0; i < 2; i++)
		rc |= pgas_am_request_medium(right, H_MED, med, sizeof(med), NULL, 0);
	rc |= pgas_am_request_long(right, H_LONG, lng, sizeof(lng), seg + 200000, NULL, 0);
	pgas_block_until(replies == 6 && requests == 6 && mediums == 2 && longs == 1);
	if (fail && me == 1)
		pgas_exit(3);
	rc |= pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);			/* barrier 2 */
	for (int i = 0; i < 2; i++)
		rc |= pgas_broadcast(pgas_team_all(), 0, bc, bc, sizeof(bc), PGAS_COLL_MYSYNC);
	rc |= pgas_barrier_notify(0, PGAS_BARRIERFLAG_ANONYMOUS);		/* barrier 3 */
	rc |= pgas_barrier_wait(0, PGAS_BARRIERFLAG_ANONYMOUS);
	/* The left neighbour's fetch-adds, read as memory (no call). */
	v = *(volatile uint64_t *)((char *)pgas_segment_addr(me) + 90000);
	bad += v != 3;
	rc |= pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);			/* barrier 4 */
	if (rc || bad) {
		fprintf(stderr, "stats: rank %u: rc %d, %u wrong\n", me, rc, bad);
		return 1;
	}
	pgas_exit(0);
}
