// SPDX-License-Identifier: MIT
/*
 * rev_ep_self_wait - review reproducer / API gap (issue 11).
 *
 * One thread owns two endpoints (the primary and an extra E, as a
 * runtime that maps OpenSHMEM contexts or GASNet-EX EPs of one thread
 * onto them).  The primary sends Mediums that need a bounce buffer to E.
 * The bounce buffers of a source rank in E's region are PGAS_BOUNCE_BUFS;
 * once they are all held by messages waiting in E's ring, the next send
 * waits (medium(): the CAS loop with w.ep = primary), and that wait polls
 * only the primary -- never E, which holds the buffers.  The thread hangs
 * in its own send.  GASNet-EX's waits (and gasnet_AMPoll) progress every
 * EP of the client; here only the sending endpoint (and below MULTIPLE
 * the primary).  Same with Shorts once E's ring is full ("short" mode).
 *
 *   timeout 20 pgasrun -n 1 rev_ep_self_wait          (bounce buffers)
 *   timeout 20 pgasrun -n 1 rev_ep_self_wait short    (ring slots)
 *
 * Expected: the send completes (a wait in a call polls the calling
 * thread's other endpoints, or at least the target endpoint when it is the
 * process's own), "ok", exit 0.  Observed: hang (timeout, rc 124).
 */
#include <stdio.h>
#include <string.h>
#include "pgas.h"

enum { H_REQ = 1 };
static int handled;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	handled++;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req } };
	static char buf[60000];
	pgas_ep_t ep;
	int shorts, rc, n = 64;
	size_t len;

	if (pgas_init(&argc, &argv) || pgas_attach(tab, 1, 1 << 20))
		return 2;
	shorts = argc > 1 && !strcmp(argv[1], "short");
	if ((rc = pgas_ep_create(&ep, 0)))
		return 2;
	len = pgas_am_max_medium();
	if (len > sizeof(buf))
		len = sizeof(buf);
	if (shorts)
		n = 4096;
	for (int i = 0; i < n; i++) {
		rc = shorts ? pgas_am_request_short(pgas_ep_index(ep), H_REQ, NULL, 0)
			    : pgas_am_request_medium(pgas_ep_index(ep), H_REQ, buf, len, NULL, 0);
		if (rc) {
			printf("not ok - send %d: %s\n", i, pgas_strerror(rc));
			return 1;
		}
		if (i % 16 == 0)
			fprintf(stderr, "# sent %d\n", i + 1);
	}
	while (handled < n)
		pgas_ep_poll(ep);
	printf("ok - %d sends to this thread's own endpoint\n", n);
	pgas_ep_destroy(ep);
	pgas_exit(0);
}
