// SPDX-License-Identifier: MIT
/*
 * shmem_gups - OpenSHMEM (Open MPI's oshmem) peer of bench/gups.c: HPCC
 * RandomAccess by the same rules (bench/gups.c's header): a table of 2^LOG2
 * 64-bit words from shmem_malloc, spread evenly over a power-of-two PE
 * count, Table[i] = i, 4 x 2^LOG2 updates from HPCC's stream (PE p starts at
 * HPCC_starts(4 * p * L)), each a non-fetching shmem_uint64_atomic_xor on the
 * owner's word, a shmem_quiet every 1024 updates (the look-ahead), then the
 * verification: each PE replays the whole global stream onto its own part
 * and counts the entries that are not their index (must be 0: atomics).
 *
 *   oshrun -n N shmem_gups [LOG2]     (default 22)
 *
 * PE 0 prints "RESULT gupsN.oshmem GUPS GUP/s" and the error count, before
 * shmem_finalize (known to crash at exit in some builds: bench.sh keeps
 * results printed before a bad exit).  Exit 1 if verification failed.
 */
#define _GNU_SOURCE
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "../bench.h"
#include "../hpcc_random.h"

#define LOOKAHEAD 1024

static long long errs;	/* symmetric: this PE's error count */

int main(int argc, char **argv)
{
	unsigned logTS = argc > 1 ? (unsigned)atoi(argv[1]) : 22, logL = 0;
	uint64_t TS = 1ull << logTS, L, *table, ran, total = 0;
	int me, np, fail = 0;
	double t0, t;

	shmem_init();
	me = shmem_my_pe();
	np = shmem_n_pes();
	if ((np & (np - 1)) || TS < (uint64_t)np) {
		if (me == 0)
			fprintf(stderr, "shmem_gups: PEs (%d) must be a power of two <= table\n", np);
		shmem_global_exit(2);
	}
	L = TS / (uint64_t)np;
	while ((1ull << logL) < L)
		logL++;
	table = shmem_malloc(L * sizeof(*table));
	if (!table)
		shmem_global_exit(2);
	for (uint64_t i = 0; i < L; i++)
		table[i] = (uint64_t)me * L + i;
	ran = hpcc_starts((int64_t)(4 * (uint64_t)me * L));
	shmem_barrier_all();
	t0 = bench_now();
	for (uint64_t i = 0; i < 4 * L; i++) {
		ran = hpcc_next(ran);
		uint64_t g = ran & (TS - 1);
		shmem_uint64_atomic_xor(&table[g & (L - 1)], ran, (int)(g >> logL));
		if ((i & (LOOKAHEAD - 1)) == LOOKAHEAD - 1)
			shmem_quiet();
	}
	shmem_quiet();
	shmem_barrier_all();
	t = bench_now() - t0;
	/* Verification: the whole stream again, this PE's part. */
	ran = hpcc_starts(0);
	for (uint64_t i = 0; i < 4 * TS; i++) {
		ran = hpcc_next(ran);
		if (((ran & (TS - 1)) >> logL) == (uint64_t)me)
			table[ran & (L - 1)] ^= ran;
	}
	errs = 0;
	for (uint64_t i = 0; i < L; i++)
		errs += table[i] != (uint64_t)me * L + i;
	shmem_barrier_all();
	if (me == 0) {
		char name[64];

		for (int p = 0; p < np; p++)
			total += (uint64_t)shmem_longlong_g(&errs, p);
		printf("# shmem_gups: %d PEs, table 2^%u words, %.3f s, %llu errors (%s)\n", np,
		       logTS, t, (unsigned long long)total, total ? "FAILED" : "passed");
		printf("RESULT gups%d.oshmem.table %llu words\n", np, (unsigned long long)TS);
		snprintf(name, sizeof(name), "gups%d.oshmem", np);
		bench_result(name, (double)(4 * TS) / t * 1e-9, "GUP/s");
		snprintf(name, sizeof(name), "gups%d.oshmem.errors", np);
		bench_result(name, (double)total, "errors");
		fail = total != 0;
	}
	shmem_barrier_all();
	shmem_free(table);
	shmem_finalize();
	return fail;
}
