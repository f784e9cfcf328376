// SPDX-License-Identifier: MIT
/*
 * atomics_mix - one word of rank 0 updated at once by every thread of
 * every rank, rank 0's own threads included, through two domains of its
 * type (fetch-add of random amounts, increments, and a compare-and-swap
 * loop that adds): the final value is exact and every fetched value is
 * below it.  Where some rank is not mapped the ofi conduit may do a
 * domain's operations by fi_atomic (the provider's atomics, in tcp;ofi_rxm
 * a read-modify-write by the target's progress): a domain that let rank
 * 0's own operations be CPU atomics meanwhile would lose updates here
 * (docs/ofi.md, "Atomics").  Seeded: the seed is printed; -s SEED
 * repeats a run.
 *
 *   atomics_mix [-t threads] [-i iterations] [-s seed]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

static unsigned me, n, nthreads = 3, iters = 400;
static uint64_t seed;
static pgas_ad_t fadd, incs;
static uint64_t *word, *total;	/* rank 0's */
static uint64_t added[16];	/* per thread of this rank */
static bool failed[16];

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	uint64_t s = seed ^ ((uint64_t)me << 32 | (t + 1)) * 0x9E3779B97F4A7C15ull, sum = 0;
	bool ok = true;

	for (unsigned i = 0; i < iters && ok; i++) {
		uint64_t r = t_rand(&s), old = 0, v = 1 + r % 7;

		switch (r >> 61) {
		case 0:	/* compare-and-swap loop */
			ok &= pgas_ad_op_u64(fadd, &old, 0, word, PGAS_AOP_GET, 0, 0, 0) == 0;
			for (;;) {
				uint64_t seen = 0;

				ok &= pgas_ad_op_u64(fadd, &seen, 0, word, PGAS_AOP_FCAS, old,
						     old + v, 0) == 0;
				if (!ok || seen == old)
					break;
				old = seen;
			}
			break;
		case 1:
		case 2:	/* increments, through the other domain */
			ok &= pgas_ad_op_u64(incs, &old, 0, word, PGAS_AOP_FINC, 0, 0, 0) == 0;
			v = 1;
			break;
		case 3:
			ok &= pgas_ad_op_u64(incs, NULL, 0, word, PGAS_AOP_INC, 0, 0, 0) == 0;
			v = 1;
			break;
		default:
			ok &= pgas_ad_op_u64(fadd, &old, 0, word, PGAS_AOP_FADD, v, 0,
					     (unsigned)(r & 3)) == 0;
			break;
		}
		sum += v;
	}
	added[t] = sum;
	failed[t] = !ok;
	return NULL;
}

int main(int argc, char **argv)
{
	int provided = -1, opt;
	pthread_t th[16];
	uint64_t mine = 0, final = 0, want = 0;

	seed = (uint64_t)time(NULL) * 2654435761u + (uint64_t)getpid();
	while ((opt = getopt(argc, argv, "t:i:s:")) != -1) {
		if (opt == 't')
			nthreads = (unsigned)atoi(optarg);
		else if (opt == 'i')
			iters = (unsigned)atoi(optarg);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
	}
	if (!nthreads || nthreads > 16)
		return 2;
	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, &provided) ||
	    provided != PGAS_THREAD_MULTIPLE || t_attach(NULL, 0, 1 << 16)) {
		fprintf(stderr, "init: %s\n", pgas_last_error());
		return 1;
	}
	me = pgas_rank();
	n = pgas_nranks();
	/* Every rank runs rank 0's seed: one number to repeat the run. */
	{
		uint64_t s0 = seed;

		T_EQ(pgas_broadcast(pgas_team_all(), 0, &seed, &s0, sizeof(seed),
				    PGAS_COLL_MYSYNC), 0);
	}
	if (me == 0)
		printf("# seed %#llx (-s to repeat), %u threads x %u operations per rank\n",
		       (unsigned long long)seed, nthreads, iters);
	word = pgas_segment_addr(0);
	total = word + 8;	/* another line */
	T_EQ(pgas_ad_create(&fadd, PGAS_DT_U64, PGAS_AOP_GET | PGAS_AOP_SET | PGAS_AOP_FADD |
			    PGAS_AOP_FCAS | PGAS_AOP_ADD, 0), 0);
	T_EQ(pgas_ad_create(&incs, PGAS_DT_U64, PGAS_AOP_INC | PGAS_AOP_FINC, 0), 0);
	if (me == 0) {
		T_EQ(pgas_ad_op_u64(fadd, NULL, 0, word, PGAS_AOP_SET, 0, 0, 0), 0);
		T_EQ(pgas_ad_op_u64(fadd, NULL, 0, total, PGAS_AOP_SET, 0, 0, 0), 0);
	}
	pgas_barrier(1, 0);
	for (unsigned t = 0; t < nthreads; t++)
		T_EQ(pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t), 0);
	for (unsigned t = 0; t < nthreads; t++) {
		pthread_join(th[t], NULL);
		T_CHECK(!failed[t], "thread %u: an operation failed: %s", t, pgas_last_error());
		mine += added[t];
	}
	T_EQ(pgas_ad_op_u64(fadd, NULL, 0, total, PGAS_AOP_ADD, mine, 0, PGAS_AOP_REL), 0);
	pgas_barrier(2, 0);
	T_EQ(pgas_ad_op_u64(fadd, &final, 0, word, PGAS_AOP_GET, 0, 0, PGAS_AOP_ACQ), 0);
	T_EQ(pgas_ad_op_u64(fadd, &want, 0, total, PGAS_AOP_GET, 0, 0, PGAS_AOP_ACQ), 0);
	T_CHECK(final == want && want, "rank 0's word is %llu, the ranks added %llu (seed %#llx)",
		(unsigned long long)final, (unsigned long long)want, (unsigned long long)seed);
	t_case("%u threads per rank, rank 0's own too: fetch-add, inc and CAS-add on one word of "
	       "rank 0 through two domains: exact", nthreads);
	pgas_ad_destroy(fadd);
	pgas_ad_destroy(incs);
	t_done();
	return 0;
}
