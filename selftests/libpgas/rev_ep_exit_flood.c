// SPDX-License-Identifier: MIT
/*
 * rev_ep_exit_flood - review reproducer (issue 11 endpoints).
 *
 * pgas.h, pgas_exit(0): the leaving rank "keeps running handlers, so that
 * requests to it are handled and answered and a flood into its mailbox
 * drains, until every rank of the job has left and no message is in
 * flight anywhere"; and a wait that can never end ends the rank with
 * exit 70.  With extra endpoints neither holds: finalize drains and counts
 * only the primaries' rings, and a wait on an extra endpoint
 * (ep_wait_step) never runs check_alone/check_abandoned.
 *
 * Rank 1 creates an endpoint E1, publishes it (barrier) and calls
 * pgas_exit(0) at once.  Rank 0 then sends N Short requests to E1:
 *
 *   mode ep       from its own extra endpoint E0 (pgas_ep_am_request_short)
 *   mode primary  from the primary (pgas_am_request_short to E1's eid)
 *   mode reply    E0 sends ONE request to E1 and waits for its reply
 *   mode few      E0 sends 3 requests (they fit in E1's ring) and exits
 *
 *   PGAS_MBOX_SLOTS=16 timeout 60 pgasrun -n 2 rev_ep_exit_flood ep
 *   PGAS_MBOX_SLOTS=16 timeout 60 pgasrun -n 2 rev_ep_exit_flood primary
 *   timeout 60 pgasrun -n 2 rev_ep_exit_flood reply
 *   timeout 60 pgasrun -n 2 rev_ep_exit_flood few
 *
 * Expected: rank 1's finalize runs E1's handlers (N handled; rank 1's
 * atexit check prints "ok") and the job ends with 0 -- or, if draining
 * extras is not promised, the sender fails (PGAS_ERR_GONE) or the rank
 * ends with pgas__fatal (exit 70) as pgas.h says for a wait that can
 * never end.  Never a hang, never rc 0 with messages dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pgas.h"

enum { H_REQ = 1, H_REP };
#define N 1000
static volatile int handled, replied;
static int nsent;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)b; (void)n; (void)a; (void)na;
	handled++;
	pgas_am_reply_short(t, H_REP, NULL, 0);
}

static void h_rep(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	replied++;
}

static void check_rank1(void)
{
	if (handled != nsent) {
		printf("not ok - rank 1 left with %d of %d requests to its extra endpoint handled\n",
		       handled, nsent);
		fflush(stdout);
		_exit(1);
	}
	printf("ok - rank 1 handled all %d requests\n", nsent);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req }, { H_REP, h_rep } };
	const char *mode = argc > 1 ? argv[1] : "ep";
	pgas_ep_t ep;
	unsigned e1;
	int rc;

	if (pgas_init(&argc, &argv) || pgas_attach(tab, 2, 1 << 20))
		return 2;
	mode = argc > 1 ? argv[1] : "ep";
	if (pgas_nranks() != 2)
		return 2;
	if ((rc = pgas_ep_create(&ep, 0))) {
		printf("not ok - pgas_ep_create: %s\n", pgas_strerror(rc));
		return 2;
	}
	nsent = !strcmp(mode, "reply") ? 1 : !strcmp(mode, "few") ? 3 : N;
	if (pgas_rank() == 1)
		atexit(check_rank1);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (pgas_rank() == 1)
		pgas_exit(0);		/* never polls E1 itself */
	sleep(1);			/* rank 1 is in its finalize */
	if (pgas_ep_lookup(1, 1, &e1)) {
		printf("not ok - lookup\n");
		return 2;
	}
	fprintf(stderr, "# rank 0: sending %d request(s) to eid %u (mode %s)\n", nsent, e1, mode);
	for (int i = 0; i < nsent; i++) {
		rc = strcmp(mode, "primary") ? pgas_ep_am_request_short(ep, e1, H_REQ, NULL, 0)
					     : pgas_am_request_short(e1, H_REQ, NULL, 0);
		if (rc) {
			fprintf(stderr, "# rank 0: request %d: %s\n", i, pgas_strerror(rc));
			break;
		}
	}
	if (!strcmp(mode, "reply"))
		pgas_ep_block_until(ep, replied == 1);
	fprintf(stderr, "# rank 0: done sending, calling pgas_exit(0)\n");
	pgas_exit(0);
}
