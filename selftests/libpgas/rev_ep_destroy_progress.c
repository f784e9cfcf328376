// SPDX-License-Identifier: MIT
/*
 * rev_ep_destroy_progress - review reproducer (issue 21, item 10).
 *
 * pgas_ep_destroy of a PGAS_EP_PROGRESS endpoint while the library's
 * progress thread runs: the thread polls the flagged endpoints under the
 * endpoints' lock, and destroy looked at the endpoint's poller before it
 * took that lock, so it failed at random with PGAS_ERR_STATE "endpoint N is
 * being polled (by another thread)" (31-164 of 255 at one rank), and the
 * endpoint stayed alive.  The program cannot keep the library's own thread
 * away: every destroy must succeed.  Each endpoint gets a few requests
 * first, so that the progress thread is running its handlers when it goes.
 *
 *   PGAS_EP_MAX=256 pgasrun -n 1 rev_ep_destroy_progress   (expected: "ok")
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>
#include "pgas.h"

enum { H_REQ = 1, NREQ = 4 };
static unsigned handled;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	__atomic_add_fetch(&handled, 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req } };
	unsigned made = 0, failed = 0, max;
	int provided;

	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, &provided) ||
	    pgas_attach(tab, 1, 1 << 20) || pgas_progress_thread_start())
		return 2;
	max = pgas_ep_max() / pgas_nranks() - 1;	/* every extra the rank may create */
	for (unsigned i = 0; i < max; i++) {
		pgas_ep_t ep;
		unsigned want = __atomic_load_n(&handled, __ATOMIC_ACQUIRE) + NREQ;
		int rc = pgas_ep_create(&ep, PGAS_EP_PROGRESS);

		if (rc == PGAS_ERR_RESOURCE)
			break;	/* the job's (or PGAS_EP_MAX's) limit */
		if (rc) {
			printf("not ok - pgas_ep_create %u: %s\n", i, pgas_last_error());
			return 1;
		}
		made++;
		for (unsigned k = 0; k < NREQ; k++)
			if (pgas_am_request_short(pgas_ep_index(ep), H_REQ, NULL, 0))
				return 2;
		/* Destroyed while its handlers run, or right after. */
		if (i & 1)
			while (__atomic_load_n(&handled, __ATOMIC_ACQUIRE) < want - NREQ / 2)
				;
		rc = pgas_ep_destroy(ep);
		if (rc) {
			if (failed++ < 3)
				printf("# destroy %u: %s\n", i, pgas_last_error());
			continue;
		}
	}
	pgas_progress_thread_stop();
	printf("# %u endpoints created and destroyed with the progress thread running, %u destroys failed\n",
	       made, failed);
	if (made < 16 || failed) {
		printf("not ok - %u of %u destroys failed (%u made)\n", failed, made, made);
		pgas_exit(1);
	}
	printf("ok - every destroy of a PGAS_EP_PROGRESS endpoint succeeded\n");
	pgas_exit(0);
}
