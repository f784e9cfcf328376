// SPDX-License-Identifier: MIT
/*
 * rev_ep_exit_in_handler - review reproducer (issue 11 endpoints).
 *
 * pgas.h, pgas_exit: a wait "after a leaver left inside the handler of
 * this rank's request without replying, once nothing has been in flight
 * for a second" ends the rank (pgas__fatal, exit 70).  Rank 1's handler
 * of rank 0's request calls pgas_exit(0) without replying; rank 0 waits
 * for the reply.
 *
 *   timeout 30 pgasrun -n 2 rev_ep_exit_in_handler prim  (control: exit 70, ~1 s)
 *   timeout 30 pgasrun -n 2 rev_ep_exit_in_handler       (extra endpoints: hangs)
 *
 * With extra endpoints on both sides the wait never ends: ep_wait_step
 * never calls check_alone/check_abandoned, and pgas__am_abandon_handlers
 * records the unanswered request only for the primary's handling[] (and
 * as token->src + 1, an eid, which owes_me() compares with ranks).
 * Expected: exit 70 naming rank 1, as with primaries.  Observed: hang.
 */
#include <stdio.h>
#include <string.h>
#include "pgas.h"

enum { H_REQ = 1, H_REP };
static volatile int replied;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	pgas_exit(0);		/* leaves without replying */
}

static void h_rep(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	replied = 1;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req }, { H_REP, h_rep } };
	pgas_ep_t ep;
	unsigned e1;
	int prim;

	if (pgas_init(&argc, &argv) || pgas_attach(tab, 2, 1 << 20) || pgas_nranks() != 2)
		return 2;
	prim = argc > 1 && !strcmp(argv[1], "prim");
	if (pgas_ep_create(&ep, 0))
		return 2;
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (pgas_rank() == 1) {
		if (prim)
			pgas_block_until(0);
		else
			pgas_ep_block_until(ep, 0);
	}
	if (prim) {
		pgas_am_request_short(1, H_REQ, NULL, 0);
		pgas_block_until(replied);
	} else {
		if (pgas_ep_lookup(1, 1, &e1))
			return 2;
		pgas_ep_am_request_short(ep, e1, H_REQ, NULL, 0);
		pgas_ep_block_until(ep, replied);
	}
	printf("not ok - a reply came\n");
	return 1;
}
