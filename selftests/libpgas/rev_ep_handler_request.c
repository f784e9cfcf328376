// SPDX-License-Identifier: MIT
/*
 * rev_ep_handler_request - review reproducer (issue 11 endpoints).
 *
 * pgas.h: an endpoint's handlers "may reply ... but not send requests on
 * any endpoint", and a request from a handler fails with PGAS_ERR_STATE.
 * Below PGAS_THREAD_MULTIPLE the primary's inline pgas_am_request_short
 * refuses only when pgas__g.send_block has PGAS__BLOCK_HANDLER, which
 * progress_ep() sets only while the *primary* runs handlers (mirror = 0
 * for an extra endpoint).  So from inside an extra endpoint's handler a
 * primary request goes out inline with rc 0.
 *
 *   pgasrun -n 1 rev_ep_handler_request    (expected: "ok", exit 0)
 */
#include <stdio.h>
#include <stdlib.h>
#include "pgas.h"

enum { H_REQ = 1, H_NESTED };
static int nested_rc = 12345, ran, nested_ran;

static void h_nested(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	nested_ran++;
}

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	ran++;
	/* A request from a handler, on the primary: must be refused. */
	nested_rc = pgas_am_request_short(pgas_rank(), H_NESTED, NULL, 0);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req }, { H_NESTED, h_nested } };
	pgas_ep_t ep;
	int rc;

	if (pgas_init(&argc, &argv) || pgas_attach(tab, 2, 1 << 20))
		return 2;
	if ((rc = pgas_ep_create(&ep, 0))) {
		printf("not ok - pgas_ep_create: %s\n", pgas_strerror(rc));
		return 2;
	}
	/* The primary asks the extra endpoint; its handler runs in ep_poll. */
	rc = pgas_am_request_short(pgas_ep_index(ep), H_REQ, NULL, 0);
	if (rc) {
		printf("not ok - request to the extra endpoint: %s\n", pgas_strerror(rc));
		return 2;
	}
	while (!ran)
		pgas_ep_poll(ep);
	for (int i = 0; i < 1000; i++)
		pgas_poll();
	if (nested_rc != PGAS_ERR_STATE) {
		printf("not ok - pgas_am_request_short from an extra endpoint's handler returned %d (%s), "
		       "expected PGAS_ERR_STATE; the request was %s\n",
		       nested_rc, pgas_strerror(nested_rc), nested_ran ? "delivered" : "not delivered");
		return 1;
	}
	printf("ok - request from an extra endpoint's handler refused\n");
	pgas_ep_destroy(ep);
	pgas_exit(0);
}
