// SPDX-License-Identifier: MIT
/*
 * rev_region_wake - review reproducer, block wait mode: a _nbi put made
 * inside an access region, completed by pgas_wait_syncnb on the region's
 * handle, does not wake the target that sleeps in pgas_wait_until_u64 on
 * the word it wrote.  pgas_signal.h promises that _nbi puts ring "at the
 * issuer's next sync or pgas_quiet", but pgas_end_nbi_accessregion hands
 * out PGAS_HANDLE_DONE and pgas_wait_syncnb's fast path rings nobody: the
 * waiter only sees the word at the end of its bounded nap (1-8 ms).
 *
 *   PGAS_WAIT_MODE=block pgasrun -n 2 -t 60 rev_region_wake [MODE]
 *     MODE region (default): put_nbi in a region + pgas_wait_syncnb
 *     MODE syncnbi:          put_nbi + pgas_wait_syncnbi_puts (the control)
 * Rank 1 prints the median delay from the put to its wait's return; the
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
	const char *mode = argc > 1 ? argv[1] : "region";
	uint64_t lat[ROUNDS], prev = 0;
	int bad = 0;

	if (pgas_init(&argc, &argv) || pgas_attach(NULL, 0, 4096))
		return 1;
	uint64_t *word = pgas_segment_addr(1);	/* rank 1's first word */

	if (pgas_rank() == 0) {
		for (int i = 0; i < ROUNDS; i++) {
			uint64_t t;
			pgas_handle_t h;

			usleep(30000);	/* rank 1 is asleep by now */
			t = now_ns();
			if (!strcmp(mode, "region")) {
				pgas_begin_nbi_accessregion();
				pgas_put_nbi(1, word, &t, sizeof(t));
				pgas_end_nbi_accessregion(&h);
				pgas_wait_syncnb(h);
			} else {
				pgas_put_nbi(1, word, &t, sizeof(t));
				pgas_wait_syncnbi_puts();
			}
		}
	} else if (pgas_rank() == 1) {
		for (int i = 0; i < ROUNDS; i++) {
			pgas_wait_until_u64(word, PGAS_CMP_GT, prev);
			prev = __atomic_load_n(word, __ATOMIC_ACQUIRE);
			lat[i] = now_ns() - prev;
		}
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
