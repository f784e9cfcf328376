// SPDX-License-Identifier: MIT
/*
 * rev_wake - review reproducers, block wait mode: a write that does not
 * wake the target that sleeps in pgas_wait_until_u64 on the word it sets.
 * pgas_signal.h promises that such writes "ring the target's doorbell when
 * it may sleep" (_nbi puts "at the issuer's next sync or pgas_quiet"); a
 * write that does not leaves the waiter to see the word only at the end of
 * its bounded nap (1-8 ms).
 *
 *   PGAS_WAIT_MODE=block pgasrun -n 2 -t 60 rev_wake MODE
 *     memset   pgas_memset: rma.c's pgas_memset ended without
 *              pgas__rma_check (which rings, and also reports a gone peer
 *              over pgas.ko as every other transfer does)
 *     put      pgas_put of the same bytes (the control for memset)
 *     region   pgas_put_nbi inside an access region, completed by
 *              pgas_wait_syncnb on the region's handle:
 *              pgas_end_nbi_accessregion handed out PGAS_HANDLE_DONE and
 *              pgas_wait_syncnb's fast path rang nobody
 *     syncnbi  pgas_put_nbi + pgas_wait_syncnbi_puts (the control for region)
 *
 * Rank 1 prints the median delay from the call to its wait's return; the
 * signal test's bound is 0.5 ms.  Exit 1 when the median is above it, 2 on
 * an unknown MODE.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pgas.h"

#define ROUNDS 21

enum { M_MEMSET, M_PUT, M_REGION, M_SYNCNBI };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Rank 0: the word of rank 1 becomes v, the bytes all c, in this mode. */
static void write_word(int m, uint64_t *word, int c, uint64_t *v)
{
	pgas_handle_t h;

	switch (m) {
	case M_MEMSET:
		pgas_memset(1, word, c, sizeof(*v));
		break;
	case M_PUT:
		pgas_put(1, word, v, sizeof(*v));
		break;
	case M_REGION:
		pgas_begin_nbi_accessregion();
		pgas_put_nbi(1, word, v, sizeof(*v));
		pgas_end_nbi_accessregion(&h);
		pgas_wait_syncnb(h);
		break;
	case M_SYNCNBI:
		pgas_put_nbi(1, word, v, sizeof(*v));
		pgas_wait_syncnbi_puts();
		break;
	}
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "memset", "put", "region", "syncnbi" };
	const char *mode = argc > 1 ? argv[1] : "";
	uint64_t lat[ROUNDS], prev = 0, back[ROUNDS];
	int bad = 0, m = 0;

	while (m < 4 && strcmp(mode, modes[m]))
		m++;
	if (m == 4) {
		fprintf(stderr, "usage: rev_wake memset|put|region|syncnbi\n");
		return 2;
	}
	if (pgas_init(&argc, &argv) || pgas_attach(NULL, 0, 4096))
		return 1;
	uint64_t *word = pgas_segment_addr(1);			/* rank 1's first word */
	uint64_t *sent = (uint64_t *)pgas_segment_addr(0) + 8;	/* rank 0's send times */

	if (pgas_rank() == 0) {
		for (int i = 0; i < ROUNDS; i++) {
			uint64_t v;

			usleep(30000);	/* rank 1 is asleep by now */
			memset(&v, i + 1, sizeof(v));
			sent[i] = now_ns();
			write_word(m, word, i + 1, &v);
		}
	} else if (pgas_rank() == 1) {
		for (int i = 0; i < ROUNDS; i++) {
			pgas_wait_until_u64(word, PGAS_CMP_NE, prev);
			back[i] = now_ns();
			prev = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		}
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (pgas_rank() == 1) {
		uint64_t s[ROUNDS];

		pgas_get(s, 0, sent, sizeof(s));
		for (int i = 0; i < ROUNDS; i++)
			lat[i] = back[i] - s[i];
		qsort(lat, ROUNDS, sizeof(lat[0]), cmp_u64);
		printf("%s: median delay %.3f ms, max %.3f ms (bound 0.5 ms)\n", mode,
		       lat[ROUNDS / 2] / 1e6, lat[ROUNDS - 1] / 1e6);
		fflush(stdout);
		bad = lat[ROUNDS / 2] > 500000;
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (bad)
		_exit(1);
	pgas_exit(0);
}
