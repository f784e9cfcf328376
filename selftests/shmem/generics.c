/* SPDX-License-Identifier: MIT */
/*
 * generics - every C11 generic name of OpenSHMEM 1.5, called once per
 * type of the spec's table for its family (spec_types.h, written from the
 * spec): RMA (with and without a context), the standard, extended and
 * bitwise AMOs (and their _nbi forms), the point-to-point waits and tests,
 * the team collectives and the reductions.  A type that a generic lacks
 * does not compile; each call's result is checked, so a generic that picks
 * the wrong function is caught too.  Any PE count; RMA and AMOs target the
 * PE itself.
 */
#include "stap.h"
#include "spec_types.h"

static int me, n;

#define SAME(T, a, b, what) T_CHECK((a) == (b), "%s: %s", #T, what)

#define RMA(T, N)									\
static void rma_##N(void)								\
{											\
	T *d = shmem_calloc(8, sizeof(T)), s[4] = { 1, 2, 3, 4 }, g[4] = { 0 };	\
	uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));				\
	shmem_ctx_t c = SHMEM_CTX_DEFAULT;						\
											\
	shmem_put(d, s, 4, me);								\
	shmem_put(c, d + 4, s, 4, me);							\
	shmem_quiet();									\
	shmem_get(g, d, 2, me);								\
	shmem_get(c, g + 2, d + 6, 2, me);						\
	SAME(T, g[0] + g[3], (T)5, "put/get");						\
	shmem_put_nbi(d, s + 1, 1, me);							\
	shmem_put_nbi(c, d + 1, s + 2, 1, me);						\
	shmem_quiet();									\
	shmem_get_nbi(g, d, 1, me);							\
	shmem_get_nbi(c, g + 1, d + 1, 1, me);						\
	shmem_quiet();									\
	SAME(T, g[0] + g[1], (T)5, "put_nbi/get_nbi");					\
	shmem_p(d, (T)7, me);								\
	shmem_p(c, d + 1, (T)8, me);							\
	shmem_quiet();									\
	SAME(T, shmem_g(d, me) + shmem_g(c, d + 1, me), (T)15, "p/g");			\
	shmem_iput(d, s, 2, 1, 2, me);		/* d[0] = 1, d[2] = 2 */		\
	shmem_iput(c, d + 4, s + 2, 2, 1, 2, me);	/* d[4] = 3, d[6] = 4 */	\
	shmem_quiet();									\
	shmem_iget(g, d, 1, 2, 2, me);		/* 1, 2 */				\
	shmem_iget(c, g + 2, d + 4, 1, 2, 2, me);	/* 3, 4 */			\
	SAME(T, g[1] + g[2], (T)5, "iput/iget");					\
	shmem_put_signal(d, s, 1, sig, 1, SHMEM_SIGNAL_SET, me);			\
	shmem_put_signal(c, d, s, 1, sig, 2, SHMEM_SIGNAL_ADD, me);			\
	shmem_put_signal_nbi(d, s, 1, sig, 4, SHMEM_SIGNAL_ADD, me);			\
	shmem_put_signal_nbi(c, d, s, 1, sig, 8, SHMEM_SIGNAL_ADD, me);		\
	shmem_quiet();									\
	SAME(T, shmem_signal_fetch(sig), 15u, "put_signal(_nbi)");			\
	shmem_barrier_all();								\
	shmem_free(sig);								\
	shmem_free(d);									\
}
SPEC_RMA_TYPES(RMA)

#define AMO(T, N)									\
static void amo_##N(void)								\
{											\
	T *x = shmem_calloc(1, sizeof(T)), f = 0;					\
	shmem_ctx_t c = SHMEM_CTX_DEFAULT;						\
											\
	shmem_atomic_inc(x, me);							\
	shmem_atomic_inc(c, x, me);							\
	SAME(T, shmem_atomic_fetch_inc(x, me) + shmem_atomic_fetch_inc(c, x, me), (T)5,\
	     "inc, fetch_inc");	/* 2 + 3; x = 4 */					\
	shmem_atomic_add(x, (T)1, me);							\
	shmem_atomic_add(c, x, (T)1, me);						\
	SAME(T, shmem_atomic_fetch_add(x, (T)2, me), (T)6, "add, fetch_add");		\
	SAME(T, shmem_atomic_fetch_add(c, x, (T)2, me), (T)8, "fetch_add ctx");	\
	SAME(T, shmem_atomic_compare_swap(x, (T)10, (T)1, me), (T)10, "compare_swap");\
	SAME(T, shmem_atomic_compare_swap(c, x, (T)1, (T)2, me), (T)1, "cswap ctx");	\
	shmem_atomic_fetch_inc_nbi(&f, x, me);						\
	shmem_quiet();									\
	SAME(T, f, (T)2, "fetch_inc_nbi");						\
	shmem_atomic_fetch_inc_nbi(c, &f, x, me);					\
	shmem_quiet();									\
	shmem_atomic_fetch_add_nbi(&f, x, (T)3, me);					\
	shmem_quiet();									\
	SAME(T, f, (T)4, "fetch_add_nbi");						\
	shmem_atomic_fetch_add_nbi(c, &f, x, (T)3, me);				\
	shmem_quiet();									\
	shmem_atomic_compare_swap_nbi(&f, x, (T)10, (T)0, me);				\
	shmem_quiet();									\
	SAME(T, f, (T)10, "compare_swap_nbi");						\
	shmem_atomic_compare_swap_nbi(c, &f, x, (T)0, (T)1, me);			\
	shmem_quiet();									\
	SAME(T, *x, (T)1, "compare_swap_nbi ctx");					\
	shmem_barrier_all();								\
	shmem_free(x);									\
}
SPEC_AMO_TYPES(AMO)

#define EXT(T, N)									\
static void ext_##N(void)								\
{											\
	T *x = shmem_calloc(1, sizeof(T)), f = 0;					\
	shmem_ctx_t c = SHMEM_CTX_DEFAULT;						\
											\
	shmem_atomic_set(x, (T)3, me);							\
	SAME(T, shmem_atomic_fetch(x, me), (T)3, "set, fetch");				\
	shmem_atomic_set(c, x, (T)4, me);						\
	SAME(T, shmem_atomic_fetch(c, x, me), (T)4, "set, fetch ctx");			\
	SAME(T, shmem_atomic_swap(x, (T)5, me), (T)4, "swap");				\
	SAME(T, shmem_atomic_swap(c, x, (T)6, me), (T)5, "swap ctx");			\
	shmem_atomic_fetch_nbi(&f, x, me);						\
	shmem_quiet();									\
	SAME(T, f, (T)6, "fetch_nbi");							\
	shmem_atomic_swap_nbi(&f, x, (T)7, me);						\
	shmem_quiet();									\
	SAME(T, f, (T)6, "swap_nbi");							\
	shmem_atomic_swap_nbi(c, &f, x, (T)8, me);					\
	shmem_quiet();									\
	shmem_atomic_fetch_nbi(c, &f, x, me);						\
	shmem_quiet();									\
	SAME(T, f, (T)8, "swap_nbi, fetch_nbi ctx");					\
	shmem_barrier_all();								\
	shmem_free(x);									\
}
SPEC_EXT_AMO_TYPES(EXT)

#define BIT(T, N)									\
static void bit_##N(void)								\
{											\
	T *x = shmem_calloc(1, sizeof(T)), f = 0;					\
	shmem_ctx_t c = SHMEM_CTX_DEFAULT;						\
											\
	shmem_atomic_or(x, (T)0x3, me);							\
	shmem_atomic_or(c, x, (T)0x4, me);						\
	shmem_atomic_and(x, (T)0xe, me);						\
	shmem_atomic_and(c, x, (T)0xf, me);						\
	shmem_atomic_xor(x, (T)0x10, me);						\
	shmem_atomic_xor(c, x, (T)0x20, me);						\
	SAME(T, *x, (T)0x36, "or, and, xor");						\
	SAME(T, shmem_atomic_fetch_or(x, (T)1, me), (T)0x36, "fetch_or");		\
	SAME(T, shmem_atomic_fetch_and(c, x, (T)0xf, me), (T)0x37, "fetch_and ctx");	\
	SAME(T, shmem_atomic_fetch_xor(x, (T)0xf, me), (T)0x7, "fetch_xor");		\
	SAME(T, shmem_atomic_fetch_or(c, x, (T)0, me) + shmem_atomic_fetch_and(x, (T)~(T)0, me) +\
	     shmem_atomic_fetch_xor(c, x, (T)0, me), (T)0x18, "fetch_* ctx");		\
	shmem_atomic_fetch_or_nbi(&f, x, (T)0x1, me);					\
	shmem_quiet();									\
	SAME(T, f, (T)0x8, "fetch_or_nbi");						\
	shmem_atomic_fetch_and_nbi(c, &f, x, (T)0x1, me);				\
	shmem_quiet();									\
	SAME(T, f, (T)0x9, "fetch_and_nbi");						\
	shmem_atomic_fetch_xor_nbi(&f, x, (T)0x3, me);					\
	shmem_quiet();									\
	shmem_atomic_fetch_or_nbi(c, &f, x, (T)0, me);					\
	shmem_atomic_fetch_and_nbi(&f, x, (T)~(T)0, me);				\
	shmem_atomic_fetch_xor_nbi(c, &f, x, (T)0, me);				\
	shmem_quiet();									\
	SAME(T, f, (T)0x2, "fetch_xor_nbi");						\
	shmem_barrier_all();								\
	shmem_free(x);									\
}
SPEC_BIT_AMO_TYPES(BIT)

#define P2P(T, N)									\
static void p2p_##N(void)								\
{											\
	T *iv = shmem_calloc(2, sizeof(T)), v[2] = { 1, 1 };				\
	size_t idx[2];									\
											\
	shmem_atomic_set_or_p(iv, 1);							\
	shmem_wait_until(iv, SHMEM_CMP_EQ, 1);						\
	shmem_wait_until_all(iv, 2, NULL, SHMEM_CMP_EQ, 1);				\
	T_CHECK(shmem_wait_until_any(iv, 2, NULL, SHMEM_CMP_EQ, 1) < 2, #T);		\
	SAME(T, shmem_wait_until_some(iv, 2, idx, NULL, SHMEM_CMP_EQ, 1), 2u, "some");\
	shmem_wait_until_all_vector(iv, 2, NULL, SHMEM_CMP_EQ, v);			\
	T_CHECK(shmem_wait_until_any_vector(iv, 2, NULL, SHMEM_CMP_EQ, v) < 2, #T);	\
	SAME(T, shmem_wait_until_some_vector(iv, 2, idx, NULL, SHMEM_CMP_EQ, v), 2u,	\
	     "some_vector");								\
	SAME(T, shmem_test(iv, SHMEM_CMP_EQ, 1) + shmem_test_all(iv, 2, NULL, SHMEM_CMP_EQ, 1) +\
	     shmem_test_all_vector(iv, 2, NULL, SHMEM_CMP_EQ, v), 3, "test, test_all(_vector)");\
	T_CHECK(shmem_test_any(iv, 2, NULL, SHMEM_CMP_EQ, 1) < 2, #T);			\
	T_CHECK(shmem_test_any_vector(iv, 2, NULL, SHMEM_CMP_EQ, v) < 2, #T);		\
	SAME(T, shmem_test_some(iv, 2, idx, NULL, SHMEM_CMP_EQ, 1) +			\
	     shmem_test_some_vector(iv, 2, idx, NULL, SHMEM_CMP_EQ, v), 4u, "test_some");\
	shmem_barrier_all();								\
	shmem_free(iv);									\
}
/* Both words set to 1 at this PE. */
#define shmem_atomic_set_or_p(iv, x) (iv[0] = iv[1] = (x))
SPEC_P2P_TYPES(P2P)

#define COLL(T, N)									\
static void coll_##N(void)								\
{											\
	T *d = shmem_calloc((size_t)n, sizeof(T)), *s = shmem_calloc((size_t)n, sizeof(T));\
	int bad = 0;									\
											\
	s[0] = (T)(me == 0 ? 5 : 1);							\
	shmem_barrier_all();								\
	T_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, 0), 0);				\
	bad += d[0] != (T)5;								\
	s[0] = (T)(me + 1);								\
	T_EQ(shmem_collect(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	for (int i = 0; i < n; i++)							\
		bad += d[i] != (T)(i + 1);						\
	T_EQ(shmem_fcollect(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	for (int i = 0; i < n; i++)							\
		bad += d[i] != (T)(i + 1);						\
	for (int i = 0; i < n; i++)							\
		s[i] = (T)(me * 10 + i);						\
	shmem_barrier_all();								\
	T_EQ(shmem_alltoall(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	for (int i = 0; i < n; i++)							\
		bad += d[i] != (T)(i * 10 + me);					\
	T_EQ(shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 1, 1), 0);			\
	for (int i = 0; i < n; i++)							\
		bad += d[i] != (T)(i * 10 + me);					\
	T_CHECK(!bad, "%s: %d wrong elements", #T, bad);				\
	shmem_barrier_all();								\
	shmem_free(s);									\
	shmem_free(d);									\
}
SPEC_RMA_TYPES(COLL)

/* Every operation of a reduction family on one element: the PEs give
 * me + 1 (bitwise: 3), so max n, min 1, sum n(n+1)/2, prod 1 with ones. */
#define RED_BIT(T, N)									\
static void red_bit_##N(void)								\
{											\
	T *d = shmem_calloc(1, sizeof(T)), *s = shmem_calloc(1, sizeof(T));		\
											\
	*s = (T)3;									\
	shmem_barrier_all();								\
	T_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	SAME(T, *d, (T)3, "and_reduce");						\
	T_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	SAME(T, *d, (T)3, "or_reduce");							\
	T_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	SAME(T, *d, (T)(n % 2 ? 3 : 0), "xor_reduce");					\
	shmem_barrier_all();								\
	shmem_free(s);									\
	shmem_free(d);									\
}
SPEC_REDUCE_BIT_TYPES(RED_BIT)

#define RED_CMP(T, N)									\
static void red_cmp_##N(void)								\
{											\
	T *d = shmem_calloc(1, sizeof(T)), *s = shmem_calloc(1, sizeof(T));		\
											\
	*s = (T)(me + 1);								\
	shmem_barrier_all();								\
	T_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	SAME(T, *d, (T)n, "max_reduce");						\
	T_EQ(shmem_min_reduce(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	SAME(T, *d, (T)1, "min_reduce");						\
	shmem_barrier_all();								\
	shmem_free(s);									\
	shmem_free(d);									\
}
SPEC_REDUCE_CMP_TYPES(RED_CMP)

#define RED_ARITH(T, N)									\
static void red_arith_##N(void)								\
{											\
	T *d = shmem_calloc(1, sizeof(T)), *s = shmem_calloc(1, sizeof(T));		\
											\
	*s = (T)(me + 1);								\
	shmem_barrier_all();								\
	T_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	SAME(T, *d, (T)(n * (n + 1) / 2), "sum_reduce");				\
	*s = (T)1;									\
	shmem_barrier_all();								\
	T_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, d, s, 1), 0);				\
	SAME(T, *d, (T)1, "prod_reduce");						\
	shmem_barrier_all();								\
	shmem_free(s);									\
	shmem_free(d);									\
}
SPEC_REDUCE_ARITH_TYPES(RED_ARITH)


int main(void)
{
	shmem_init();
	st_init();
	me = shmem_my_pe();
	n = shmem_n_pes();

#define RUN_RMA(T, N) rma_##N();
	SPEC_RMA_TYPES(RUN_RMA)
	st_case("RMA generics (put, get, nbi, p, g, iput, iget, put_signal(_nbi), with and "
		"without a context): the 24 types of the standard RMA table");
#define RUN_AMO(T, N) amo_##N();
	SPEC_AMO_TYPES(RUN_AMO)
	st_case("standard AMO generics (inc, add, their fetch and nbi forms, compare_swap): "
		"the 12 types of its table");
#define RUN_EXT(T, N) ext_##N();
	SPEC_EXT_AMO_TYPES(RUN_EXT)
	st_case("extended AMO generics (fetch, set, swap, nbi): the 14 types of its table");
#define RUN_BIT(T, N) bit_##N();
	SPEC_BIT_AMO_TYPES(RUN_BIT)
	st_case("bitwise AMO generics (and, or, xor, fetch and nbi forms): the 7 types of its table");
#define RUN_P2P(T, N) p2p_##N();
	SPEC_P2P_TYPES(RUN_P2P)
	st_case("wait_until / test generics (_all, _any, _some, _vector): the 14 types of its table");
#define RUN_COLL(T, N) coll_##N();
	SPEC_RMA_TYPES(RUN_COLL)
	st_case("team collective generics (broadcast, collect, fcollect, alltoall(s)): the 24 "
		"RMA types");
#define RUN_RED_BIT(T, N) red_bit_##N();
	SPEC_REDUCE_BIT_TYPES(RUN_RED_BIT)
#define RUN_RED_CMP(T, N) red_cmp_##N();
	SPEC_REDUCE_CMP_TYPES(RUN_RED_CMP)
#define RUN_RED_ARITH(T, N) red_arith_##N();
	SPEC_REDUCE_ARITH_TYPES(RUN_RED_ARITH)
	st_case("reduction generics: and/or/xor, max/min, sum/prod on every type of the "
		"reduction table that lists them (int8_t's and/or/xor too)");
	return st_done();
}
