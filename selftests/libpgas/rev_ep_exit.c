// SPDX-License-Identifier: MIT
/*
 * rev_ep_exit - pgas_exit(0) with an endpoint of the rank still alive: a
 * request that a peer sends to that endpoint while the rank drains gets
 * its reply (the drain polls the rank's endpoints, and the job is not
 * idle while their rings hold messages).  Before the drain knew endpoints
 * the peer waited for the reply forever.
 *
 *   pgasrun -n 2 -t 60 rev_ep_exit        (exit 0 and "ok" expected)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>
#include "pgas.h"

static volatile int got;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)b; (void)n; (void)na;
	pgas_am_reply_short(t, 2, a, 1);
}

static void h_rep(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)na; (void)a;
	got++;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { 1, h_req }, { 2, h_rep } };
	pgas_ep_t ep;
	unsigned e;
	uint32_t a = 7;

	if (pgas_init(&argc, &argv) || pgas_attach(tab, 2, 0) || pgas_nranks() != 2)
		return 1;
	if (pgas_ep_create(&ep, 0) || pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS))
		return 1;
	if (pgas_rank() == 1) {
		if (pgas_ep_lookup(0, 1, &e))
			return 1;
		usleep(200000);	/* rank 0 is in pgas_exit(0) by now */
		if (pgas_ep_am_request_short(ep, e, 1, &a, 1))
			return 2;
		pgas_ep_block_until(ep, got == 1);
		printf("ok - rank 1: the reply from rank 0's endpoint came during its exit\n");
	}
	pgas_exit(0);
}
