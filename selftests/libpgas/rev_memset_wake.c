// SPDX-License-Identifier: MIT
/*
 * rev_memset_wake - review reproducer, block wait mode: pgas_memset does
 * not wake the target that sleeps in pgas_wait_until_u64 on the word it
 * sets.  pgas_signal.h lists pgas_memset among the calls that "ring the
 * target's doorbell when it may sleep", but rma.c's pgas_memset ends
 * without pgas__rma_check (which rings, and also reports a gone peer over
 * pgas.ko as every other transfer does): the waiter only sees the word at
 * the end of its bounded nap (1-8 ms).
 *
 *   PGAS_WAIT_MODE=block pgasrun -n 2 -t 60 rev_memset_wake [MODE]
 *     MODE memset (default), or put (pgas_put of the same bytes: the control)
 * Rank 1 prints the median delay from the call to its wait's return; the
 * signal test's bound is 0.5 ms.  Exit 1 when the median is above it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pgas.h"

#define ROUNDS 21

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

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "memset";
	uint64_t lat[ROUNDS], prev = 0, back[ROUNDS];
	int bad = 0;

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
			if (!strcmp(mode, "memset"))
				pgas_memset(1, word, i + 1, sizeof(v));
			else
				pgas_put(1, word, &v, sizeof(v));
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
