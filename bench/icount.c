// SPDX-License-Identifier: MIT
/*
 * icount - the critical paths wrapped in non-inlined functions so that
 * valgrind --tool=callgrind can count their instructions per call
 * (scripts/bench.py divides each function's inclusive count by its calls).
 * The count includes the wrapper's own call/return (2 instructions).
 *
 *   pgasrun -n 2 valgrind --tool=callgrind build/bench/icount
 */
#include <stdlib.h>
#include "pgas.h"

#define CALLS 1000
#define NOINLINE __attribute__((noinline))

enum { H_SINK = 1 };
static volatile unsigned sunk;
static uint64_t *remote;
static uint32_t arg = 7;
static pgas_ad_t ad;

static void h_sink(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	sunk++;
}

NOINLINE int ic_put_nbi8(uint64_t v)
{
	return pgas_put_nbi(1, remote, &v, 8);
}

NOINLINE int ic_sync_nbi_puts(void)
{
	return pgas_wait_syncnbi_puts();
}

NOINLINE int ic_get_nbi8(uint64_t *v)
{
	return pgas_get_nbi(v, 1, remote, 8);
}

NOINLINE int ic_am_short(void)
{
	return pgas_am_request_short(1, H_SINK, &arg, 1);
}

NOINLINE int ic_poll_idle(void)
{
	return pgas_poll();
}

/* A non-fetching 64-bit atomic add (issue 12 asks for its count). */
NOINLINE int ic_atomic_add(void)
{
	return pgas_ad_op_u64(ad, NULL, 1, remote + 1, PGAS_AOP_ADD, 3, 0, 0);
}

/* Quiet: everything issued is complete (issue 12 asks for its count). */
NOINLINE int ic_quiet(void)
{
	return pgas_quiet();
}

NOINLINE int ic_barrier_notify(void)
{
	return pgas_barrier_notify(0, PGAS_BARRIERFLAG_ANONYMOUS);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { { H_SINK, h_sink } };
	uint64_t v = 0;

	if (pgas_init(&argc, &argv) || pgas_attach(table, 1, 1 << 16))
		return 1;
	if (pgas_nranks() != 2)
		pgas_exit(2);
	remote = pgas_segment_addr(1);
	if (pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_ADD, 0))
		return 1;
	if (pgas_rank() == 0) {
		for (int i = 0; i < CALLS; i++) {
			ic_put_nbi8((uint64_t)i);
			ic_sync_nbi_puts();
			ic_get_nbi8(&v);
			ic_poll_idle();
			ic_atomic_add();
			ic_quiet();
		}
		/* Batches smaller than a ring, so no send waits for space. */
		for (int i = 0; i < CALLS; i += 100) {
			for (int j = 0; j < 100; j++)
				ic_am_short();
			pgas_barrier(1, 0);
		}
	} else {
		for (int i = 0; i < CALLS; i += 100) {
			pgas_block_until(sunk == (unsigned)i + 100);
			pgas_barrier(1, 0);
		}
	}
	for (int i = 0; i < CALLS; i++) {
		ic_barrier_notify();
		pgas_barrier_wait(0, PGAS_BARRIERFLAG_ANONYMOUS);
	}
	pgas_exit(v == 12345);
}
