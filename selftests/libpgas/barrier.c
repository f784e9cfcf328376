// SPDX-License-Identifier: MIT
/*
 * barrier - split-phase barriers: ordering of the data they separate,
 * named/anonymous matching, mismatch detection on every rank, try, and
 * progress of AMs while a rank waits in one.
 */
#include "tap.h"
#include "pingpong.h"

static unsigned me, n;

static void test_ordering(unsigned iters)
{
	uint32_t *slots = pgas_segment_addr(me);
	unsigned wrong = 0;

	for (uint32_t i = 1; i <= iters; i++) {
		for (unsigned d = 0; d < n; d++)
			pgas_put_val(d, (uint32_t *)pgas_segment_addr(d) + me, i, 4);
		T_EQ(pgas_barrier(i, 0), 0);
		for (unsigned s = 0; s < n; s++)
			wrong += __atomic_load_n(&slots[s], __ATOMIC_ACQUIRE) != i;
		/* second barrier: nobody overwrites before everyone has looked */
		T_EQ(pgas_barrier(~i, 0), 0);
	}
	T_EQ(wrong, 0);
	t_case("%u barriers: every rank sees every put issued before each one", iters);
}

static void test_matching(void)
{
	int rc;

	/* Rank 0 names the barrier, the rest are anonymous: a match. */
	rc = pgas_barrier(77, me == 0 ? 0 : PGAS_BARRIERFLAG_ANONYMOUS);
	T_EQ(rc, 0);
	T_EQ(pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS), 0);
	/* Different names on different ranks: every rank sees the mismatch. */
	if (n > 1) {
		rc = pgas_barrier(me == n - 1 ? 2 : 1, 0);
		T_EQ(rc, PGAS_ERR_BARRIER_MISMATCH);
	}
	/* One rank forces a mismatch. */
	rc = pgas_barrier(3, me == 0 ? PGAS_BARRIERFLAG_MISMATCH : 0);
	T_EQ(rc, PGAS_ERR_BARRIER_MISMATCH);
	/* wait() with an id other than notify()'s. */
	T_EQ(pgas_barrier_notify(4, 0), 0);
	T_EQ(pgas_barrier_wait(5, 0), PGAS_ERR_BARRIER_MISMATCH);
	T_EQ(pgas_barrier(6, 0), 0);
	t_case("named/anonymous match; differing names and forced mismatch seen by all ranks");
}

static void test_split_phase(void)
{
	unsigned tries = 0;
	int rc;

	T_EQ(pgas_barrier_notify(9, 0), 0);
	/* The last rank arrives late; the others must see NOT_READY meanwhile. */
	if (n > 1 && me == n - 1) {
		for (volatile unsigned spin = 0; spin < 2000000; spin++)
			;
	}
	while ((rc = pgas_barrier_try(9, 0)) == PGAS_ERR_NOT_READY)
		tries++;
	T_EQ(rc, 0);
	T_EQ(pgas_barrier(10, 0), 0);
	t_case("split phase: notify, try until done, then wait-free reuse");
}

static void test_progress(void)
{
	/* Rank 0 needs rank 1's handler while rank 1 sits in barrier_wait. */
	pongs = 0;
	if (me == 0)
		for (unsigned d = 0; d < n; d++) {
			T_EQ(pgas_am_request_short(d, H_PING, NULL, 0), 0);
			pgas_block_until(pongs == d + 1);
		}
	T_EQ(pgas_barrier(11, 0), 0);
	if (me == 0)
		T_EQ(pongs, n);
	t_case("AM handlers run while ranks wait in a barrier");
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { PINGPONG_HANDLERS };

	if (pgas_init(&argc, &argv))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (t_attach(table, 2, 4096))
		return 1;
	test_ordering(argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 2000);
	test_matching();
	test_split_phase();
	test_progress();
	t_done();
}
