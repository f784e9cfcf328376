// SPDX-License-Identifier: MIT
/*
 * rev_ep_barrier_deadlock - review reproducer (issue 11 endpoints).
 *
 * One thread per rank (PGAS_THREAD_SINGLE), as pgas.h allows: rank 0
 * sends K Short requests from its extra endpoint E0 to rank 1's primary,
 * then enters pgas_barrier; rank 1 waits (pgas_block_until) until it has
 * served the K requests, then enters the barrier.  Rank 1's handler
 * answers each with a Medium reply large enough to need a bounce buffer in
 * E0's region; the PGAS_BOUNCE_BUFS (8) buffers of rank 1 there are freed
 * only when E0 is polled.  Rank 1's 9th handler waits for a buffer; rank
 * 0's barrier wait polls only the primary, never E0 -- so rank 1 never
 * reaches the barrier and rank 0 never leaves it.  Without endpoints (the same program with
 * E0 replaced by the primary) it completes, since the barrier's wait polls
 * where the replies arrive.
 *
 *   timeout 30 pgasrun -n 2 rev_ep_barrier_deadlock       (ep: hangs)
 *   timeout 30 pgasrun -n 2 rev_ep_barrier_deadlock prim  (control: ok)
 *
 * Expected: "ok" and exit 0 (a rank's waits make progress on the
 * endpoints the waiting thread owns, or at least on all endpoints of the
 * rank below MULTIPLE, where the thread is the rank's only one).
 * Observed: hang (rc 124).
 */
#include <stdio.h>
#include <string.h>
#include "pgas.h"

enum { H_REQ = 1, H_REP };
#define K 32
static char big[16384];
static int replies, handled;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)b; (void)n; (void)a; (void)na;
	size_t len = pgas_am_max_medium() < sizeof(big) ? pgas_am_max_medium() : sizeof(big);
	int rc = pgas_am_reply_medium(t, H_REP, big, len, NULL, 0);

	if (rc)
		fprintf(stderr, "# reply: %s\n", pgas_strerror(rc));
	handled++;
}

static void h_rep(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	replies++;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req }, { H_REP, h_rep } };
	pgas_ep_t ep;
	int prim, rc;

	if (pgas_init(&argc, &argv) || pgas_attach(tab, 2, 1 << 20) || pgas_nranks() != 2)
		return 2;
	prim = argc > 1 && !strcmp(argv[1], "prim");
	if ((rc = pgas_ep_create(&ep, 0)))
		return 2;
	fprintf(stderr, "# rank %u: medium %zu bytes, inline up to %zu\n", pgas_rank(),
		pgas_am_max_medium(), pgas_am_medium_inline_max(0));
	if (pgas_rank() == 0)
		for (int i = 0; i < K; i++) {
			rc = prim ? pgas_am_request_short(1, H_REQ, NULL, 0)
				  : pgas_ep_am_request_short(ep, 1, H_REQ, NULL, 0);
			if (rc)
				return 2;
		}
	if (pgas_rank() == 1)	/* serves the requests, then joins the barrier */
		pgas_block_until(handled == K);
	rc = pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	fprintf(stderr, "# rank %u: barrier rc %d\n", pgas_rank(), rc);
	if (pgas_rank() == 0) {
		if (prim)
			pgas_block_until(replies == K);
		else
			pgas_ep_block_until(ep, replies == K);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (pgas_rank() == 0)
		printf("ok - %d replies (%s)\n", replies, prim ? "primary" : "extra endpoint");
	pgas_ep_destroy(ep);
	pgas_exit(0);
}
