// SPDX-License-Identifier: MIT
/*
 * known - OpenSHMEM traffic known exactly, for the profiling interface's
 * test (scripts/check-native.sh): built with SHMEM_NO_INLINE (the inline
 * fast paths step aside, so that every call reaches a routine a profiling
 * library can wrap) and run under the counting library of mkcount.sh,
 * which must report, on every PE, the calls and bytes of EXPECTED below.
 * Exits nonzero if a result is wrong.
 */
#define SHMEM_NO_INLINE
#include <shmem.h>
#include <stdio.h>

/* Printed by "known --expected", compared with the profile line by line. */
static const char EXPECTED[] =
	"shmem_barrier_all 4 0\n"
	"shmem_broadcast64 2 0\n"
	"shmem_finalize 1 0\n"
	"shmem_free 1 0\n"
	"shmem_getmem 5 120\n"
	"shmem_init 1 0\n"
	"shmem_long_atomic_fetch_add 3 0\n"
	"shmem_long_g 2 0\n"
	"shmem_long_p 7 0\n"
	"shmem_malloc 1 0\n"
	"shmem_my_pe 1 0\n"
	"shmem_n_pes 1 0\n"
	"shmem_putmem 10 1000\n"
	"shmem_putmem_nbi 4 256\n"
	"shmem_quiet 2 0\n";

static long psync[SHMEM_BCAST_SYNC_SIZE];
static long target[16];

int main(int argc, char **argv)
{
	char buf[100] = { 0 };
	long *heap, v = 0;
	int me, n, bad = 0;

	(void)argv;
	if (argc > 1) {
		fputs(EXPECTED, stdout);
		return 0;
	}
	for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
		psync[i] = SHMEM_SYNC_VALUE;
	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	heap = shmem_malloc(64 * sizeof(long));
	shmem_barrier_all();
	for (int i = 0; i < 10; i++)
		shmem_putmem(heap, buf, 100, (me + 1) % n);
	for (int i = 0; i < 4; i++)
		shmem_putmem_nbi(heap + 16, buf, 64, (me + 1) % n);
	shmem_quiet();
	for (int i = 0; i < 7; i++)
		shmem_long_p(&target[i], me + i, (me + 1) % n);
	shmem_quiet();
	shmem_barrier_all();
	for (int i = 0; i < 5; i++)
		shmem_getmem(buf, heap, 24, (me + 1) % n);
	for (int i = 0; i < 2; i++)
		v += shmem_long_g(&target[0], (me + 1) % n);
	/* target[0] of the next PE: put there by me, as me + 0 */
	bad += v != 2L * me;
	for (int i = 0; i < 3; i++)
		(void)shmem_long_atomic_fetch_add(&target[15], 1, (me + 1) % n);
	shmem_barrier_all();
	bad += target[15] != 3;
	for (int i = 0; i < 2; i++)
		shmem_broadcast64(heap + 32, heap, 4, 0, 0, 0, n, psync);
	shmem_barrier_all();
	shmem_free(heap);
	shmem_finalize();
	if (bad)
		fprintf(stderr, "known: PE %d: %d wrong results\n", me, bad);
	return bad != 0;
}
