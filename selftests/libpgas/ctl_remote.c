// SPDX-License-Identifier: MIT
/*
 * ctl_remote - the control paths where peers are not mapped (issue 22;
 * run with PGAS_MAP_PEERS=none, and passes mapped too): no RMA at all.
 *
 *   pgasrun -n N ctl_remote              endpoints (below), then barriers
 *   pgasrun -n N ctl_remote killexit V   rank V SIGKILLs itself while the
 *                                        others wait in pgas_exit(0)
 *   pgasrun -n N ctl_remote killbar V    rank V SIGKILLs itself while the
 *                                        others wait in pgas_barrier
 *
 * Endpoints: every rank creates two and destroys its first; every other
 * rank then finds them through pgas_ep_count / pgas_ep_lookup /
 * pgas_ep_locate (answered by their owner where it is not mapped): the
 * destroyed one is PGAS_ERR_GONE with its eid kept, the live one is found,
 * an AM Short to the destroyed one is PGAS_ERR_GONE, to the live one it is
 * handled.  The kill modes must end with pgasrun naming the victim (137),
 * never a hang (scripts/check-native.sh judges them).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define H_HIT 1

static unsigned me, n;
static volatile unsigned hits;

static void h_hit(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	__atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED);
}

static void test_eps(void)
{
	pgas_ep_t a = NULL, b = NULL;
	unsigned ea = ~0u, eb = ~0u;
	uint32_t arg = 7;

	T_EQ(pgas_ep_create(&a, 0), 0);
	T_EQ(pgas_ep_create(&b, 0), 0);
	if (a)
		ea = pgas_ep_index(a);
	if (b)
		eb = pgas_ep_index(b);
	T_EQ(pgas_ep_destroy(a), 0);
	T_EQ(pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS), 0);
	for (unsigned r = 0; r < n; r++) {
		unsigned cnt = 0, e1 = ~0u, e2 = ~0u, owner = ~0u, idx = ~0u;

		if (r == me)
			continue;
		T_EQ(pgas_ep_count(r, &cnt), 0);
		T_EQ(cnt, 3);
		T_EQ(pgas_ep_lookup(r, 1, &e1), PGAS_ERR_GONE);
		T_EQ(pgas_ep_lookup(r, 2, &e2), 0);
		T_CHECK(e1 != ~0u && e2 != ~0u && e1 != e2, "(eids %u %u)", e1, e2);
		T_EQ(pgas_ep_locate(e1, &owner, &idx), PGAS_ERR_GONE);
		T_EQ(pgas_ep_locate(e2, &owner, &idx), 0);
		T_EQ(owner, r);
		T_EQ(idx, 2);
		T_EQ(pgas_am_request_short(e1, H_HIT, &arg, 1), PGAS_ERR_GONE);
		T_EQ(pgas_am_request_short(e2, H_HIT, &arg, 1), 0);
	}
	/* Every other rank sent one to b: poll it until they arrived. */
	if (b) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			pgas_ep_poll(b);
			pgas_poll();
			clock_gettime(CLOCK_MONOTONIC, &t1);
		} while (__atomic_load_n(&hits, __ATOMIC_RELAXED) < n - 1 &&
			 t1.tv_sec - t0.tv_sec < 30);
	}
	T_EQ(hits, n - 1);
	T_EQ(pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS), 0);
	T_EQ(pgas_ep_destroy(b), 0);
	(void)ea;
	(void)eb;
	t_case("endpoints of every other rank: count, lookup, locate; the destroyed one GONE, the live one reached");
}

static void test_barriers(void)
{
	for (unsigned i = 0; i < 200; i++) {
		T_EQ(pgas_barrier(i, 0), 0);
		T_EQ(pgas_barrier_notify(i, PGAS_BARRIERFLAG_ANONYMOUS), 0);
		while (pgas_barrier_try(i, PGAS_BARRIERFLAG_ANONYMOUS) == PGAS_ERR_NOT_READY)
			;
	}
	T_EQ(pgas_barrier(me == 0 ? 1 : 2, 0), n > 1 ? PGAS_ERR_BARRIER_MISMATCH : 0);
	t_case("200 named, split-phase and try barriers; a mismatch seen");
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { { H_HIT, h_hit } };
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned victim;

	if (pgas_init(&argc, &argv))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (t_attach(table, 1, 4096))
		return 1;
	victim = argc > 2 ? (unsigned)atoi(argv[2]) % n : n - 1;
	if (!strcmp(mode, "killexit") || !strcmp(mode, "killbar")) {
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		if (me == victim) {
			usleep(200000);
			raise(SIGKILL);
		}
		if (!strcmp(mode, "killbar"))
			pgas_barrier(1, 0);
		pgas_exit(0);
	}
	test_eps();
	test_barriers();
	t_done();
}
