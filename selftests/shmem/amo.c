/* SPDX-License-Identifier: MIT */
/*
 * amo - OpenSHMEM atomics: every standard AMO type (fetch, set, swap,
 * compare_swap, fetch_inc, inc, fetch_add, add, and their _nbi fetching
 * forms), the bitwise ones, the extended float/double ones, the 1.3 names
 * and the generic ones, with exact totals under contention at PE 0.
 *
 *   amo [-k ITERS]
 */
#define _GNU_SOURCE
#include <unistd.h>
#include "stap.h"

static int me, n, K = 200;

/*
 * Per type: every PE hammers PE 0's words.  w[0]: fetch_inc / inc /
 * fetch_inc_nbi, each fetched value seen once (their sum is exact);
 * w[1]: add and fetch_add of (me + 1); w[2]: a compare_swap increment
 * loop; w[3]: set/fetch/swap chain checked locally at the end.
 */
#define TEST_AMO(T, N, B)								\
static void test_##N(void)								\
{											\
	T *w = shmem_calloc(4, sizeof(T));						\
	long long *tk = calloc((size_t)K, sizeof(long long)), nt = 0;		\
	T f;										\
											\
	shmem_barrier_all();								\
	for (int i = 0; i < K; i++) {							\
		switch (i % 3) {							\
		case 0: tk[nt++] = 1 + (long long)shmem_##N##_atomic_fetch_inc(&w[0], 0);\
			break;								\
		case 1: shmem_##N##_atomic_fetch_inc_nbi(&f, &w[0], 0);			\
			shmem_quiet(); tk[nt++] = 1 + (long long)f; break;		\
		default: shmem_##N##_atomic_inc(&w[0], 0); break;			\
		}									\
		if (i % 2)								\
			shmem_##N##_atomic_add(&w[1], (T)(me + 1), 0);			\
		else if (i % 4)								\
			(void)shmem_##N##_atomic_fetch_add(&w[1], (T)(me + 1), 0);	\
		else {									\
			shmem_##N##_atomic_fetch_add_nbi(&f, &w[1], (T)(me + 1), 0);	\
			shmem_quiet();							\
		}									\
		for (T old = shmem_##N##_atomic_fetch(&w[2], 0);;) {			\
			T seen;								\
			if (i % 2)							\
				seen = shmem_##N##_atomic_compare_swap(&w[2], old,	\
								       (T)(old + 1), 0);	\
			else {								\
				shmem_##N##_atomic_compare_swap_nbi(&seen, &w[2], old,	\
								    (T)(old + 1), 0);	\
				shmem_quiet();						\
			}								\
			if (seen == old)						\
				break;							\
			old = seen;							\
		}									\
	}										\
	shmem_barrier_all();								\
	if (me == 0) {									\
		long long tot = (long long)n * K;					\
		T_EQ(w[0], tot);							\
		T_EQ(w[1], (long long)K * n * (n + 1) / 2);				\
		T_EQ(w[2], tot);							\
	}										\
	/* The fetched tickets (+1), gathered at PE 0: each below n*K, none	\
	 * twice. */									\
	{										\
		long long *all = shmem_calloc((size_t)n * K, sizeof(long long));	\
		shmem_longlong_put(all + (size_t)me * K, tk, (size_t)K, 0);		\
		shmem_barrier_all();							\
		if (me == 0) {								\
			char *seen = calloc((size_t)n * K, 1);				\
			long long bad = 0, cnt = 0;					\
			for (long long x = 0; x < (long long)n * K; x++) {		\
				long long t = all[x];					\
				if (!t)							\
					continue;					\
				cnt++;							\
				if (t < 1 || t > (long long)n * K || seen[t - 1]++)	\
					bad++;						\
			}								\
			T_EQ(bad, 0);							\
			T_EQ(cnt, (long long)n * (K - K / 3));				\
			free(seen);							\
		}									\
		shmem_barrier_all();							\
		shmem_free(all);							\
		free(tk);								\
	}										\
	/* set / fetch / swap at the right neighbour */				\
	{										\
		int right = (me + 1) % n;						\
		T got;									\
		shmem_##N##_atomic_set(&w[3], (T)(me + 5), right);			\
		shmem_barrier_all();							\
		T_EQ(w[3], ((me + n - 1) % n) + 5);					\
		shmem_barrier_all();							\
		got = shmem_##N##_atomic_fetch(&w[3], right);				\
		T_EQ(got, me + 5);							\
		shmem_barrier_all();							\
		got = shmem_##N##_atomic_swap(&w[3], (T)(me + 9), right);		\
		T_EQ(got, me + 5);							\
		shmem_barrier_all();							\
		shmem_##N##_atomic_swap_nbi(&got, &w[3], (T)1, right);			\
		shmem_##N##_atomic_fetch_nbi(&f, &w[3], right);				\
		shmem_quiet();								\
		T_EQ(got, me + 9);							\
		T_EQ(f, 1);								\
	}										\
	shmem_barrier_all();								\
	shmem_free(w);									\
}
SHMEM__AMO_TYPES(TEST_AMO)

/* Bitwise: each PE owns bit (me % width); or sets, xor toggles, and clears. */
#define TEST_BIT(T, N)									\
static void bit_##N(void)								\
{											\
	T *w = shmem_calloc(2, sizeof(T)), all = 0, f;					\
	int bits = (int)sizeof(T) * 8;							\
											\
	for (int p = 0; p < n; p++)							\
		all |= (T)1 << (p % bits);						\
	shmem_barrier_all();								\
	T mine = (T)1 << (me % bits);							\
	if (me % 2)									\
		shmem_##N##_atomic_or(&w[0], mine, 0);					\
	else										\
		(void)shmem_##N##_atomic_fetch_or(&w[0], mine, 0);			\
	shmem_##N##_atomic_fetch_xor_nbi(&f, &w[1], mine, 0);				\
	shmem_quiet();									\
	shmem_barrier_all();								\
	if (me == 0) {									\
		T_EQ(w[0], all);							\
		T_EQ(w[1], all);							\
	}										\
	shmem_barrier_all();								\
	if (me % 2)									\
		shmem_##N##_atomic_and(&w[0], (T)~mine, 0);				\
	else										\
		shmem_##N##_atomic_fetch_and_nbi(&f, &w[0], (T)~mine, 0);		\
	if (me % 2)									\
		shmem_##N##_atomic_xor(&w[1], mine, 0);					\
	else										\
		(void)shmem_##N##_atomic_fetch_xor(&w[1], mine, 0);			\
	shmem_##N##_atomic_fetch_or_nbi(&f, &w[0], 0, 0);				\
	shmem_##N##_atomic_fetch_and(&w[0], (T)~(T)0, 0);				\
	shmem_quiet();									\
	shmem_barrier_all();								\
	if (me == 0) {									\
		T_EQ(w[0], 0);								\
		T_EQ(w[1], 0);								\
	}										\
	shmem_barrier_all();								\
	shmem_free(w);									\
}
TEST_BIT(unsigned int, uint)
TEST_BIT(unsigned long, ulong)
TEST_BIT(unsigned long long, ulonglong)
TEST_BIT(int32_t, int32)
TEST_BIT(int64_t, int64)
TEST_BIT(uint32_t, uint32)
TEST_BIT(uint64_t, uint64)

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "k:")) != -1)
		if (opt == 'k')
			K = atoi(opt == 'k' ? optarg : "0");
	shmem_init();
	st_init();
	me = shmem_my_pe();
	n = shmem_n_pes();

#define RUN_AMO(T, N, B) test_##N();
	SHMEM__AMO_TYPES(RUN_AMO)
	st_case("standard AMOs of the 12 types: exact totals of %d inc/add/CAS per PE at PE 0", K);

	bit_uint();
	bit_ulong();
	bit_ulonglong();
	bit_int32();
	bit_int64();
	bit_uint32();
	bit_uint64();
	st_case("bitwise AMOs (and/or/xor, fetching, nbi) of the 7 types");

	/* Extended: float and double fetch/set/swap, exact values. */
	{
		float *fl = shmem_calloc(1, sizeof(float));
		double *db = shmem_calloc(1, sizeof(double));
		int right = (me + 1) % n, left = (me + n - 1) % n;
		float ff;
		double dd;

		shmem_float_atomic_set(fl, 0.5f + (float)me, right);
		shmem_double_atomic_set(db, -1.25 - me, right);
		shmem_barrier_all();
		T_CHECK(*fl == 0.5f + (float)left, "float set: %g", *fl);
		T_CHECK(*db == -1.25 - left, "double set: %g", *db);
		shmem_barrier_all();
		T_CHECK(shmem_float_atomic_fetch(fl, right) == 0.5f + (float)me, "float fetch");
		T_CHECK(shmem_double_atomic_fetch(db, right) == -1.25 - me, "double fetch");
		shmem_barrier_all();
		T_CHECK(shmem_float_atomic_swap(fl, 3.0f, right) == 0.5f + (float)me, "float swap");
		T_CHECK(shmem_double_atomic_swap(db, 1e100, right) == -1.25 - me, "double swap");
		shmem_barrier_all();
		shmem_float_atomic_swap_nbi(&ff, fl, 0.0f, right);
		shmem_double_atomic_fetch_nbi(&dd, db, right);
		shmem_quiet();
		T_CHECK(ff == 3.0f && dd == 1e100, "nbi: %g %g", ff, dd);
		shmem_barrier_all();
		shmem_free(db);
		shmem_free(fl);
	}
	st_case("extended AMOs: float and double fetch/set/swap (+ _nbi)");

	/* The deprecated 1.3 names and the C11 generic ones, on PE 0's words. */
	{
		long *l = shmem_calloc(5, sizeof(long));
		int *i = shmem_calloc(3, sizeof(int));
		unsigned long *u = shmem_calloc(1, sizeof(unsigned long));
		int32_t *b32 = shmem_calloc(2, sizeof(int32_t));
		int64_t *b64 = shmem_calloc(1, sizeof(int64_t));
		double *d = shmem_calloc((size_t)n, sizeof(double));

		b32[1] = -1;

		shmem_barrier_all();
		shmem_long_inc(&l[0], 0);
		(void)shmem_long_finc(&l[0], 0);
		shmem_long_add(&l[1], 2, 0);
		(void)shmem_long_fadd(&l[1], 3, 0);
		while (1) {
			long o = shmem_long_fetch(&l[2], 0);
			if (shmem_long_cswap(&l[2], o, o + 1, 0) == o)
				break;
		}
		shmem_int_set(&i[0], 42, 0);
		(void)shmem_int_swap(&i[1], 7, 0);
		shmem_atomic_inc(&l[3], 0);
		(void)shmem_atomic_fetch_add(&l[3], 10L, 0);
		shmem_atomic_or(u, 1ul << (me % 64), 0);
		/* the bitwise generics take int32_t and int64_t too */
		(void)shmem_atomic_fetch_or(&b32[0], (int32_t)1 << (me % 31), 0);
		shmem_atomic_xor(&b64[0], (int64_t)1 << (me % 63), 0);
		shmem_atomic_and(&b32[1], ~((int32_t)1 << (me % 31)), 0);
		/* the 1.3 generic names */
		shmem_add(&l[4], 3L, 0);
		shmem_inc(&l[4], 0);
		(void)shmem_fadd(&i[2], 2, 0);
		(void)shmem_finc(&i[2], 0);
		shmem_set(&d[me], (double)me + 0.5, 0);
		shmem_barrier_all();
		if (me == 0) {
			unsigned long all = 0;
			for (int p = 0; p < n; p++)
				all |= 1ul << (p % 64);
			T_EQ(l[0], 2 * n);
			T_EQ(l[1], 5 * n);
			T_EQ(l[2], n);
			T_EQ(l[3], 11 * n);
			T_EQ(i[0], 42);
			T_EQ(i[1], 7);
			T_EQ(shmem_atomic_fetch(&i[1], 0), 7);
			T_EQ(*u, all);
			int32_t o32 = 0;
			int64_t o64 = 0;
			for (int p = 0; p < n; p++) {
				o32 |= (int32_t)1 << (p % 31);
				o64 ^= (int64_t)1 << (p % 63);
			}
			T_EQ(b32[0], o32);
			T_EQ(b64[0], o64);
			T_EQ(b32[1], ~o32);
			T_EQ(l[4], 4 * n);
			T_EQ(i[2], 3 * n);
			for (int p = 0; p < n; p++)
				T_CHECK(shmem_swap(&d[p], 0.0, 0) == p + 0.5, "d[%d]", p);
			T_CHECK(shmem_fetch(&d[0], 0) == 0.0, "shmem_fetch");
			T_CHECK(shmem_cswap(&l[4], 4L * n, 1L, 0) == 4L * n && l[4] == 1, "shmem_cswap");
		}
		shmem_barrier_all();
		shmem_free(d);
		shmem_free(b64);
		shmem_free(b32);
		shmem_free(u);
		shmem_free(i);
		shmem_free(l);
	}
	st_case("1.3 names (inc, finc, add, fadd, cswap, fetch, set, swap), C11 generics (bitwise on int32_t/int64_t, the 1.3 generic names)");

	/* int and unsigned int on one word share a domain: mixed adds are exact. */
	{
		int *w = shmem_calloc(1, sizeof(int));

		shmem_barrier_all();
		for (int k = 0; k < K; k++) {
			if (k % 2)
				shmem_int_atomic_add(w, -1, 0);
			else
				shmem_uint_atomic_add((unsigned int *)w, 3u, 0);
		}
		shmem_barrier_all();
		if (me == 0)
			T_EQ(*w, n * (K / 2) * 3 - n * (K / 2));
		shmem_barrier_all();
		shmem_free(w);
	}
	st_case("signed and unsigned AMOs on one word stay atomic");
	return st_done();
}
