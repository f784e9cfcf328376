// SPDX-License-Identifier: MIT
/*
 * rev_ep_destroy_local_send - review reproducer (issue 11, pgas.ko).
 *
 * pgas.h: "Sending to an endpoint that was destroyed fails with
 * PGAS_ERR_GONE where the sender can tell ...; an inline one-slot request
 * may be dropped silently."  Here the sender is another endpoint (and the
 * primary) of the same process.  ep.c gives the process's other endpoints
 * the destroyed one's own mapping (eids[].xep = x->xep, "this process
 * knows its own rings: no mapping of them again"), and kmod_ep_close
 * munmap()s that mapping: the senders' table entries stay LIVE and point
 * into unmapped memory, so over pgas.ko the next send is a SIGSEGV.  (On
 * shm the slab stays mapped, so this passes there.)
 *
 *   timeout 30 pgasrun -n 1 rev_ep_destroy_local_send                    (shm)
 *   PGAS_CONDUIT=kmod timeout 30 pgasrun -n 1 rev_ep_destroy_local_send  (pgas.ko)
 *
 * Expected: every send after the destroy returns 0 or PGAS_ERR_GONE,
 * "ok", exit 0.  Predicted over pgas.ko (not run: no pgas.ko here):
 * SIGSEGV in the first send after pgas_ep_destroy.
 */
#include <stdio.h>
#include "pgas.h"

enum { H_REQ = 1 };
static int handled;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	handled++;
}

static int ok_rc(int rc)
{
	return rc == 0 || rc == PGAS_ERR_GONE;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req } };
	static char buf[32768];
	pgas_ep_t a, b;
	unsigned eb;
	int rc, bad = 0;

	if (pgas_init(&argc, &argv) || pgas_attach(tab, 1, 1 << 20))
		return 2;
	if (pgas_ep_create(&a, 0) || pgas_ep_create(&b, 0))
		return 2;
	eb = pgas_ep_index(b);
	/* Both senders meet b while it lives. */
	if (pgas_ep_am_request_short(a, eb, H_REQ, NULL, 0) ||
	    pgas_am_request_short(eb, H_REQ, NULL, 0))
		return 2;
	while (handled < 2)
		pgas_ep_poll(b);
	if (pgas_ep_destroy(b))
		return 2;
	fprintf(stderr, "# endpoint %u destroyed; sending to it again\n", eb);
	for (int i = 0; i < 600; i++) {
		rc = pgas_ep_am_request_short(a, eb, H_REQ, NULL, 0);
		if (!ok_rc(rc)) {
			fprintf(stderr, "# ep short %d: %s\n", i, pgas_strerror(rc));
			bad++;
			break;
		}
		if (rc)
			break;
	}
	for (int i = 0; i < 600; i++) {
		rc = pgas_am_request_short(eb, H_REQ, NULL, 0);
		if (!ok_rc(rc)) {
			fprintf(stderr, "# primary short %d: %s\n", i, pgas_strerror(rc));
			bad++;
			break;
		}
		if (rc)
			break;
	}
	rc = pgas_ep_am_request_medium(a, eb, H_REQ, buf, sizeof(buf) < pgas_am_max_medium() ?
				       sizeof(buf) : pgas_am_max_medium(), NULL, 0);
	if (!ok_rc(rc)) {
		fprintf(stderr, "# medium: %s\n", pgas_strerror(rc));
		bad++;
	}
	printf("%s - sends to a destroyed endpoint of this process\n", bad ? "not ok" : "ok");
	pgas_ep_destroy(a);
	pgas_exit(bad);
}
