// SPDX-License-Identifier: MIT
/*
 * rev_ep_fork_destroy - review reproducer (issue 11 endpoints, fork).
 *
 * A forked child of a rank is "not a member of the job" (init.c:
 * forked_child), but pgas_ep_destroy and pgas_ep_create do not check it,
 * and what they write is shared with the parent: the rank-state page's
 * directory (MAP_SHARED) and, on shm, the ring slab memfd (MADV_REMOVE of
 * the slot's pages).  So a child that destroys an endpoint it inherited
 * (a C++ destructor, an atexit cleanup of a runtime) destroys the
 * parent's endpoint for the whole job: the directory says closed, peers'
 * sends fail with PGAS_ERR_GONE, and messages in its ring are zeroed.
 *
 *   timeout 30 pgasrun -n 2 rev_ep_fork_destroy          (destroy in child)
 *   timeout 30 pgasrun -n 2 rev_ep_fork_destroy create   (create in child)
 *
 * create: the child's pgas_ep_create publishes an eid in the shared
 * directory from its copy of the slab cursor; the parent's next create
 * then gets the same shm slot, i.e. the same eid, as the child's entry.
 *
 * Expected: the child's calls are refused (PGAS_ERR_STATE) or stay
 * local; the parent's endpoint keeps working ("ok", exit 0).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pgas.h"

enum { H_REQ = 1 };
static volatile int handled;

static void h_req(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	handled++;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_REQ, h_req } };
	pgas_ep_t ep, ep2;
	unsigned e0 = 0, e_other = 0, cnt = 0;
	int create, rc, bad = 0, lk;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pgas_init(&argc, &argv) || pgas_attach(tab, 1, 1 << 20) || pgas_nranks() != 2)
		return 2;
	create = argc > 1 && !strcmp(argv[1], "create");
	if (pgas_rank() == 0) {
		if (pgas_ep_create(&ep, 0))
			return 2;
		pid_t c = fork();

		if (c == 0) {
			if (create) {
				rc = pgas_ep_create(&ep2, 0);
				fprintf(stderr, "# child: pgas_ep_create rc %d (eid %u)\n", rc,
					rc ? 0 : pgas_ep_index(ep2));
			} else {
				rc = pgas_ep_destroy(ep);
				fprintf(stderr, "# child: pgas_ep_destroy rc %d\n", rc);
			}
			_exit(0);
		}
		waitpid(c, NULL, 0);
		if (create) {
			rc = pgas_ep_create(&ep2, 0);
			if (rc) {
				printf("not ok - parent's second pgas_ep_create: %s\n", pgas_strerror(rc));
				bad++;
			} else {
				pgas_ep_count(0, &cnt);
				for (unsigned i = 1; i < cnt; i++) {
					unsigned e;

					pgas_ep_lookup(0, i, &e);
					fprintf(stderr, "# rank 0 directory: index %u -> eid %u\n", i, e);
					if (i < cnt - 1 && e == pgas_ep_index(ep2))
						e_other = e;
				}
				if (cnt != 3 || e_other) {
					printf("not ok - after a child's create the parent's endpoint count is %u and its new eid %u %s\n",
					       cnt, pgas_ep_index(ep2),
					       e_other ? "is the child's eid too" : "");
					bad++;
				}
			}
		}
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (pgas_rank() == 1 && !create) {
		lk = pgas_ep_lookup(0, 1, &e0);
		rc = pgas_am_request_short(e0, H_REQ, NULL, 0);
		if (lk || rc) {
			printf("not ok - rank 0's endpoint (eid %u), destroyed only in a forked child, is gone for rank 1: lookup %s, request %s\n",
			       e0, pgas_strerror(lk), pgas_strerror(rc));
			bad++;
		}
		uint32_t v = bad;
		pgas_put(0, pgas_segment_addr(0), &v, 4);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (pgas_rank() == 0 && !create) {
		uint32_t v = *(volatile uint32_t *)pgas_segment_addr(0);

		if (!v) {
			for (int i = 0; i < 100000 && !handled; i++)
				pgas_ep_poll(ep);
			if (!handled) {
				printf("not ok - the request to rank 0's endpoint was lost\n");
				bad++;
			}
		} else {
			bad++;
		}
	}
	if (!bad && pgas_rank() == 0)
		printf("ok - the parent's endpoints are unaffected by its child\n");
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	pgas_exit(bad ? 1 : 0);
}
