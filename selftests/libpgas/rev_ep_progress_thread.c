// SPDX-License-Identifier: MIT
/*
 * rev_ep_progress_thread - review reproducer / API gap (issue 11).
 *
 * pgas.h: "A progress thread ... polls this rank until stopped, so that
 * handlers run ... while the application's threads compute (Chapel's
 * pattern)".  progress.c's loop runs pgas__wait_step with no endpoint:
 * it polls the primary only, so requests to an extra endpoint of a rank
 * whose threads compute are never handled, although the rank has a
 * progress thread.  (The endpoints section says "a dedicated thread may
 * poll every endpoint", but libpgas's own progress thread does not, and
 * there is no call to register endpoints with it.)
 *
 *   timeout 30 pgasrun -n 1 rev_ep_progress_thread   (expected: "ok")
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "pgas.h"

enum { H_REQ = 1 };
static volatile int handled;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	__atomic_add_fetch(&handled, 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req } };
	int provided, rc;
	pgas_ep_t ep;

	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, &provided) ||
	    pgas_attach(tab, 1, 1 << 20) || pgas_progress_thread_start())
		return 2;
	if ((rc = pgas_ep_create(&ep, PGAS_EP_PROGRESS))) {
		printf("not ok - pgas_ep_create: %s\n", pgas_strerror(rc));
		return 2;
	}
	/* Control: a request to the primary is handled by the progress thread. */
	rc = pgas_am_request_short(pgas_rank(), H_REQ, NULL, 0);
	for (int i = 0; i < 2000 && __atomic_load_n(&handled, __ATOMIC_ACQUIRE) < 1; i++)
		usleep(1000);
	printf("# to the primary: %s\n", handled == 1 ? "handled" : "NOT handled");
	/* The same to the extra endpoint; this thread only computes. */
	rc = pgas_am_request_short(pgas_ep_index(ep), H_REQ, NULL, 0);
	if (rc)
		return 2;
	for (int i = 0; i < 2000 && __atomic_load_n(&handled, __ATOMIC_ACQUIRE) < 2; i++)
		usleep(1000);
	if (handled != 2) {
		printf("not ok - request to an extra endpoint not handled in 2 s with a progress thread running\n");
		pgas_progress_thread_stop();
		while (handled < 2)
			pgas_ep_poll(ep);
		pgas_ep_destroy(ep);
		pgas_exit(1);
	}
	printf("ok - the progress thread served the extra endpoint\n");
	pgas_progress_thread_stop();
	pgas_ep_destroy(ep);
	pgas_exit(0);
}
