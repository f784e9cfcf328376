/* SPDX-License-Identifier: MIT */
/*
 * coll - OpenSHMEM collectives, every value checked against one computed
 * here from the definition:
 *  - 1.5 team collectives for every standard RMA type (broadcast from every
 *    root, collect with a different count per PE, fcollect, alltoall,
 *    alltoalls with strides 2/3) on WORLD and on a strided team, the mem
 *    forms, the generic names;
 *  - 1.5 reductions of every type of each family (and/or/xor, max/min,
 *    sum/prod with the complex types), in place too;
 *  - 1.4 active-set collectives (barrier, broadcast, collect, fcollect,
 *    alltoall(s) 32/64, every *_to_all) over every active set of the job
 *    (logPE_stride 0, 1, 2; subsets that leave PEs out), back to back with
 *    no barrier between, pSync alternating between two arrays and reused
 *    after a barrier, and checked to be unchanged;
 *  - a seeded random sequence of both kinds (-s SEED, -k OPS; the seed is
 *    printed), with messages longer than the layer's chunks.
 */
#include <complex.h>
#include "stap.h"

static int me, n;

#define NE 5

/* Symmetric buffers made once by every PE: a team's members cannot call
 * shmem_malloc (collective over the world) on their own. */
#define POOL_BYTES ((size_t)16 * NE * 8 * (size_t)n + 4096)
static char *pools[4];
#define POOL(k) ((void *)pools[k])

/* Element i of PE p: small integers, exact in every type. */
#define VAL(T, p, i) ((T)(((p) * 7 + (i) * 3 + 1) % 61))

/* ---- 1.5 data collectives, every RMA type ---------------------------------- */

/* Team t's members are world PEs start + i * stride. */
struct tinfo {
	shmem_team_t t;
	int start, stride, size, idx;
};

#define TEST_COLL(T, N)									\
static void coll_##N(const struct tinfo *ti)						\
{											\
	int sz = ti->size, ix = ti->idx;						\
	T *src = POOL(0);			\
	T *dst = POOL(1);			\
	size_t tot = 0, off = 0;							\
											\
	/* broadcast from every root; the root's dest too (1.5) */			\
	for (int root = 0; root < sz; root++) {						\
		for (int i = 0; i < NE; i++) {						\
			src[i] = VAL(T, ix + root, i);					\
			dst[i] = (T)0;							\
		}									\
		T_EQ(shmem_##N##_broadcast(ti->t, dst, src, NE, root), 0);		\
		for (int i = 0; i < NE; i++)						\
			T_CHECK(dst[i] == VAL(T, 2 * root, i), #N " broadcast root %d [%d]",	\
				root, i);						\
	}										\
	/* collect: team PE j gives j % 3 + 1 elements */				\
	for (int i = 0; i < ix % 3 + 1; i++)						\
		src[i] = VAL(T, ix, i);							\
	T_EQ(shmem_##N##_collect(ti->t, dst, src, (size_t)(ix % 3 + 1)), 0);		\
	for (int j = 0; j < sz; j++)							\
		tot += (size_t)(j % 3 + 1);						\
	for (int j = 0; j < sz; j++)							\
		for (int i = 0; i < j % 3 + 1; i++, off++)				\
			T_CHECK(dst[off] == VAL(T, j, i), #N " collect [%zu]", off);	\
	(void)tot;									\
	/* fcollect */									\
	for (int i = 0; i < NE; i++)							\
		src[i] = VAL(T, ix, i);							\
	T_EQ(shmem_##N##_fcollect(ti->t, dst, src, NE), 0);				\
	for (int j = 0; j < sz; j++)							\
		for (int i = 0; i < NE; i++)						\
			T_CHECK(dst[j * NE + i] == VAL(T, j, i), #N " fcollect");	\
	/* alltoall: block j of team PE p holds VAL(p * sz + j) */			\
	for (int j = 0; j < sz; j++)							\
		for (int i = 0; i < NE; i++)						\
			src[j * NE + i] = VAL(T, ix * sz + j, i);			\
	T_EQ(shmem_##N##_alltoall(ti->t, dst, src, NE), 0);				\
	for (int p = 0; p < sz; p++)							\
		for (int i = 0; i < NE; i++)						\
			T_CHECK(dst[p * NE + i] == VAL(T, p * sz + ix, i), #N " alltoall");	\
	/* alltoalls: sst 3 over the source, dst 2 over dest; the rest untouched */	\
	for (size_t e = 0; e < (size_t)sz * NE * 3; e++)				\
		src[e] = (T)0;								\
	for (size_t e = 0; e < (size_t)sz * NE * 2 * 3; e++)				\
		dst[e] = (T)99;								\
	for (int j = 0; j < sz; j++)							\
		for (int i = 0; i < NE; i++)						\
			src[(j * NE + i) * 3] = VAL(T, ix * sz + j, i);			\
	T_EQ(shmem_##N##_alltoalls(ti->t, dst, src, 2, 3, NE), 0);			\
	for (int p = 0; p < sz; p++)							\
		for (int i = 0; i < NE; i++) {						\
			T_CHECK(dst[(p * NE + i) * 2] == VAL(T, p * sz + ix, i),		\
				#N " alltoalls");					\
			T_CHECK(dst[(p * NE + i) * 2 + 1] == (T)99, #N " alltoalls gap");	\
		}									\
	shmem_team_sync(ti->t);								\
}
SHMEM__RMA_TYPES(TEST_COLL)

static void test_coll(const struct tinfo *ti)
{
#define CALL(T, N) coll_##N(ti);
	SHMEM__RMA_TYPES(CALL)
#undef CALL
}

/* The mem forms and the generic names on one type. */
static void test_mem_generic(const struct tinfo *ti)
{
	int sz = ti->size, ix = ti->idx;
	char *s = POOL(0), *d = POOL(1);
	long *ls = POOL(2), *ld = POOL(3);

	for (int i = 0; i < 64; i++)
		s[i] = (char)(ix * 13 + i);
	T_EQ(shmem_broadcastmem(ti->t, d, s, 13, sz - 1), 0);
	for (int i = 0; i < 13; i++)
		T_EQ(d[i], (char)((sz - 1) * 13 + i));
	T_EQ(shmem_fcollectmem(ti->t, d, s, 13), 0);
	for (int i = 0; i < 13 * sz; i++)
		T_EQ(d[i], (char)i);
	T_EQ(shmem_collectmem(ti->t, d, s, (size_t)(ix % 13)), 0);	/* PE j: j % 13 bytes */
	for (int j = 0, o = 0; j < sz; j++)
		for (int i = 0; i < j % 13; i++, o++)
			T_EQ(d[o], (char)(j * 13 + i));
	for (int j = 0; j < sz; j++)
		for (int i = 0; i < 3; i++)
			s[j * 3 + i] = (char)(ix * 100 + j * 3 + i);
	T_EQ(shmem_alltoallmem(ti->t, d, s, 3), 0);
	for (int p = 0; p < sz; p++)
		for (int i = 0; i < 3; i++)
			T_EQ(d[p * 3 + i], (char)(p * 100 + ix * 3 + i));
	memset(d, 7, 64 * (size_t)sz);
	T_EQ(shmem_alltoallsmem(ti->t, d, s, 2, 1, 3), 0);
	for (int p = 0; p < sz; p++)
		for (int i = 0; i < 3; i++) {
			T_EQ(d[(p * 3 + i) * 2], (char)(p * 100 + ix * 3 + i));
			T_EQ(d[(p * 3 + i) * 2 + 1], 7);
		}
	ls[0] = 40 + ix;
	T_EQ(shmem_broadcast(ti->t, ld, ls, 1, 0), 0);
	T_EQ(ld[0], 40);
	T_EQ(shmem_fcollect(ti->t, ld, ls, 1), 0);
	for (int p = 0; p < sz; p++)
		T_EQ(ld[p], 40 + p);
	T_EQ(shmem_collect(ti->t, ld, ls, 1), 0);
	T_EQ(ld[sz - 1], 40 + sz - 1);
	for (int p = 0; p < sz; p++)
		ls[p] = ix * 10 + p;
	T_EQ(shmem_alltoall(ti->t, ld, ls, 1), 0);
	for (int p = 0; p < sz; p++)
		T_EQ(ld[p], p * 10 + ix);
	T_EQ(shmem_alltoalls(ti->t, ld, ls, 1, 1, 1), 0);
	T_EQ(ld[0], ix);
	ls[0] = ix + 1;
	T_EQ(shmem_sum_reduce(ti->t, ld, ls, 1), 0);
	T_EQ(ld[0], (long)sz * (sz + 1) / 2);
	T_EQ(shmem_max_reduce(ti->t, ld, ls, 1), 0);
	T_EQ(ld[0], sz);
	T_EQ(shmem_min_reduce(ti->t, ld, ls, 1), 0);
	T_EQ(ld[0], 1);
	T_EQ(shmem_prod_reduce(ti->t, ld, ls, 1), 0);
	{
		long f = 1;

		for (int p = 1; p <= sz; p++)
			f *= p;
		T_EQ(ld[0], f);
	}
	unsigned long *us = (unsigned long *)ls, *ud = (unsigned long *)ld;

	us[0] = 1ul << ix;
	T_EQ(shmem_or_reduce(ti->t, ud, us, 1), 0);
	T_EQ(ud[0], (1ul << sz) - 1);
	T_EQ(shmem_xor_reduce(ti->t, ud, us, 1), 0);
	T_EQ(ud[0], (1ul << sz) - 1);
	us[0] = ~(1ul << ix);
	T_EQ(shmem_and_reduce(ti->t, ud, us, 1), 0);
	T_CHECK(ud[0] == ~((1ul << sz) - 1), "and");
	shmem_team_sync(ti->t);
}

/* ---- reductions: every type of every family -------------------------------- */

#define RV_BIT(T, p, i) ((T)((((p) + (i)) % 5 == 0 ? 0x5a : 0) | (1 << (((p) + (i)) % 7))))
#define RV_CMP(T, p, i) ((T)((T)(((p) * 5 + (i) * 3) % 11) - (T)5))
/* Products stay small at any PE count: PEs past 3 give 1. */
#define RV_ARI(T, p, i) ((T)((p) < 4 ? ((p) + (i)) % 3 + 1 : 1))

#define OPX_and(x, y) ((x) & (y))
#define OPX_or(x, y) ((x) | (y))
#define OPX_xor(x, y) ((x) ^ (y))
#define OPX_max(x, y) ((x) > (y) ? (x) : (y))
#define OPX_min(x, y) ((x) < (y) ? (x) : (y))
#define OPX_sum(x, y) ((x) + (y))
#define OPX_prod(x, y) ((x) * (y))

/* Team PE p's element i is RV(p, i); expected: the operation over p in
 * order, in T; then again in place. */
#define TEST_RED(T, N, OP, RV)								\
static void red_##N##_##OP(const struct tinfo *ti)					\
{											\
	T *b = POOL(0), want[NE];				\
											\
	for (int i = 0; i < NE; i++) {							\
		want[i] = RV(T, 0, i);							\
		for (int p = 1; p < ti->size; p++)					\
			want[i] = (T)OPX_##OP(want[i], RV(T, p, i));			\
		b[i] = RV(T, ti->idx, i);						\
		b[NE + i] = (T)0;							\
	}										\
	T_EQ(shmem_##N##_##OP##_reduce(ti->t, b + NE, b, NE), 0);			\
	for (int i = 0; i < NE; i++)							\
		T_CHECK(b[NE + i] == want[i], #N "_" #OP "_reduce [%d]", i);		\
	T_EQ(shmem_##N##_##OP##_reduce(ti->t, b, b, NE), 0);				\
	for (int i = 0; i < NE; i++)							\
		T_CHECK(b[i] == want[i], #N "_" #OP "_reduce in place [%d]", i);	\
	shmem_team_sync(ti->t);								\
}
#define R_AND(T, N) TEST_RED(T, N, and, RV_BIT)
#define R_OR(T, N) TEST_RED(T, N, or, RV_BIT)
#define R_XOR(T, N) TEST_RED(T, N, xor, RV_BIT)
#define R_MAX(T, N) TEST_RED(T, N, max, RV_CMP)
#define R_MIN(T, N) TEST_RED(T, N, min, RV_CMP)
#define R_SUM(T, N) TEST_RED(T, N, sum, RV_ARI)
#define R_PROD(T, N) TEST_RED(T, N, prod, RV_ARI)
SHMEM__REDUCE_BIT_TYPES(R_AND)
SHMEM__REDUCE_BIT_TYPES(R_OR)
SHMEM__REDUCE_BIT_TYPES(R_XOR)
SHMEM__REDUCE_CMP_TYPES(R_MAX)
SHMEM__REDUCE_CMP_TYPES(R_MIN)
SHMEM__REDUCE_ARITH_TYPES(R_SUM)
SHMEM__REDUCE_ARITH_TYPES(R_PROD)

static void test_red(const struct tinfo *ti)
{
#define C_AND(T, N) red_##N##_and(ti);
#define C_OR(T, N) red_##N##_or(ti);
#define C_XOR(T, N) red_##N##_xor(ti);
#define C_MAX(T, N) red_##N##_max(ti);
#define C_MIN(T, N) red_##N##_min(ti);
#define C_SUM(T, N) red_##N##_sum(ti);
#define C_PROD(T, N) red_##N##_prod(ti);
	SHMEM__REDUCE_BIT_TYPES(C_AND)
	SHMEM__REDUCE_BIT_TYPES(C_OR)
	SHMEM__REDUCE_BIT_TYPES(C_XOR)
	SHMEM__REDUCE_CMP_TYPES(C_MAX)
	SHMEM__REDUCE_CMP_TYPES(C_MIN)
	SHMEM__REDUCE_ARITH_TYPES(C_SUM)
	SHMEM__REDUCE_ARITH_TYPES(C_PROD)
}

/* A complex value that only complex arithmetic gets right. */
static void test_complex(const struct tinfo *ti)
{
	double _Complex *z = POOL(0), want = 1;

	z[0] = (ti->idx + 1) + 1.0 * I;
	for (int p = 0; p < ti->size; p++)
		want *= (p + 1) + 1.0 * I;
	T_EQ(shmem_complexd_prod_reduce(ti->t, &z[1], &z[0], 1), 0);
	T_CHECK(z[1] == want, "complexd prod %g%+gi", creal(z[1]), cimag(z[1]));
	shmem_team_sync(ti->t);
}

/* ---- 1.4 active sets -------------------------------------------------------- */

static long *psA, *psB;	/* two pSync arrays (alternated) */

static void psync_ok(const long *ps, const char *what)
{
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		if (ps[i] != SHMEM_SYNC_VALUE) {
			T_CHECK(ps[i] == SHMEM_SYNC_VALUE, "%s: pSync[%d] restored", what, i);
			return;
		}
}

#define TOALL_RED(T, N, OP, RV)								\
static void toall_##N##_##OP(int st, int lg, int sz, int ix, long *ps)			\
{											\
	static T *src, *dst, *wrk;							\
	T want[NE];									\
											\
	if (!src) {		/* symmetric, as the spec asks (never freed) */	\
		src = shmem_malloc(sizeof(T) * NE);					\
		dst = shmem_malloc(sizeof(T) * NE);					\
		wrk = shmem_malloc(sizeof(T) * SHMEM_REDUCE_MIN_WRKDATA_SIZE);		\
	}										\
	if (ix < 0)									\
		return;									\
	for (int i = 0; i < NE; i++) {							\
		want[i] = RV(T, 0, i);							\
		for (int p = 1; p < sz; p++)						\
			want[i] = (T)OPX_##OP(want[i], RV(T, p, i));			\
		src[i] = RV(T, ix, i);							\
	}										\
	shmem_##N##_##OP##_to_all(dst, src, NE, st, lg, sz, wrk, ps);			\
	for (int i = 0; i < NE; i++)							\
		T_CHECK(dst[i] == want[i], #N "_" #OP "_to_all (%d,%d,%d) [%d]", st, lg,	\
			sz, i);								\
	shmem_##N##_##OP##_to_all(src, src, NE, st, lg, sz, wrk, ps);			\
	for (int i = 0; i < NE; i++)							\
		T_CHECK(src[i] == want[i], #N "_" #OP "_to_all in place [%d]", i);	\
	psync_ok(ps, #N "_" #OP "_to_all");						\
}
#define TA_AND(T, N) TOALL_RED(T, N, and, RV_BIT)
#define TA_OR(T, N) TOALL_RED(T, N, or, RV_BIT)
#define TA_XOR(T, N) TOALL_RED(T, N, xor, RV_BIT)
#define TA_MAX(T, N) TOALL_RED(T, N, max, RV_CMP)
#define TA_MIN(T, N) TOALL_RED(T, N, min, RV_CMP)
#define TA_SUM(T, N) TOALL_RED(T, N, sum, RV_ARI)
#define TA_PROD(T, N) TOALL_RED(T, N, prod, RV_ARI)
SHMEM__TOALL_BIT_TYPES(TA_AND)
SHMEM__TOALL_BIT_TYPES(TA_OR)
SHMEM__TOALL_BIT_TYPES(TA_XOR)
SHMEM__TOALL_CMP_TYPES(TA_MAX)
SHMEM__TOALL_CMP_TYPES(TA_MIN)
SHMEM__TOALL_ARITH_TYPES(TA_SUM)
SHMEM__TOALL_ARITH_TYPES(TA_PROD)

/* Every *_to_all; ix < 0: only the (collective) allocations. */
static void toall_all(int st, int lg, int sz, int ix, long *ps)
{
#define D_AND(T, N) toall_##N##_and(st, lg, sz, ix, ps);
#define D_OR(T, N) toall_##N##_or(st, lg, sz, ix, ps);
#define D_XOR(T, N) toall_##N##_xor(st, lg, sz, ix, ps);
#define D_MAX(T, N) toall_##N##_max(st, lg, sz, ix, ps);
#define D_MIN(T, N) toall_##N##_min(st, lg, sz, ix, ps);
#define D_SUM(T, N) toall_##N##_sum(st, lg, sz, ix, ps);
#define D_PROD(T, N) toall_##N##_prod(st, lg, sz, ix, ps);
	SHMEM__TOALL_BIT_TYPES(D_AND)
	SHMEM__TOALL_BIT_TYPES(D_OR)
	SHMEM__TOALL_BIT_TYPES(D_XOR)
	SHMEM__TOALL_CMP_TYPES(D_MAX)
	SHMEM__TOALL_CMP_TYPES(D_MIN)
	SHMEM__TOALL_ARITH_TYPES(D_SUM)
	SHMEM__TOALL_ARITH_TYPES(D_PROD)
}

#define AS_SIZED(S, T)									\
static void as_##S(int st, int lg, int sz, int ix, long *ps, T *src, T *dst)		\
{											\
	/* broadcast from every root; the root's dest stays as it was (1.4) */	\
	for (int r = 0; r < sz; r++) {							\
		for (int i = 0; i < NE; i++) {						\
			src[i] = VAL(T, ix + 10 * r, i);				\
			dst[i] = (T)77;							\
		}									\
		shmem_broadcast##S(dst, src, NE, r, st, lg, sz, ps);			\
		for (int i = 0; i < NE; i++)						\
			T_CHECK(dst[i] == (ix == r ? (T)77 : VAL(T, 11 * r, i)),		\
				"broadcast" #S " (%d,%d,%d) root %d [%d]", st, lg, sz, r, i);\
		psync_ok(ps, "broadcast" #S);						\
		ps = ps == psA ? psB : psA;	/* alternate */				\
	}										\
	/* collect: member j gives j % 3 + 1 elements */				\
	for (int i = 0; i < ix % 3 + 1; i++)						\
		src[i] = VAL(T, ix, i);							\
	shmem_collect##S(dst, src, (size_t)(ix % 3 + 1), st, lg, sz, ps);		\
	for (int j = 0, o = 0; j < sz; j++)						\
		for (int i = 0; i < j % 3 + 1; i++, o++)				\
			T_CHECK(dst[o] == VAL(T, j, i), "collect" #S " [%d]", o);	\
	psync_ok(ps, "collect" #S);							\
	for (int i = 0; i < NE; i++)							\
		src[i] = VAL(T, ix, i);							\
	shmem_fcollect##S(dst, src, NE, st, lg, sz, ps);				\
	for (int j = 0; j < sz; j++)							\
		for (int i = 0; i < NE; i++)						\
			T_CHECK(dst[j * NE + i] == VAL(T, j, i), "fcollect" #S);	\
	psync_ok(ps, "fcollect" #S);							\
	for (int j = 0; j < sz; j++)							\
		for (int i = 0; i < NE; i++)						\
			src[j * NE + i] = VAL(T, ix * sz + j, i);			\
	shmem_alltoall##S(dst, src, NE, st, lg, sz, ps);				\
	for (int p = 0; p < sz; p++)							\
		for (int i = 0; i < NE; i++)						\
			T_CHECK(dst[p * NE + i] == VAL(T, p * sz + ix, i), "alltoall" #S);\
	psync_ok(ps, "alltoall" #S);							\
	for (int e = 0; e < sz * NE * 3; e++)						\
		src[e] = (T)0;								\
	for (int e = 0; e < sz * NE * 2 * 3; e++)					\
		dst[e] = (T)99;								\
	for (int j = 0; j < sz; j++)							\
		for (int i = 0; i < NE; i++)						\
			src[(j * NE + i) * 3] = VAL(T, ix * sz + j, i);			\
	shmem_alltoalls##S(dst, src, 2, 3, NE, st, lg, sz, ps);			\
	for (int p = 0; p < sz; p++)							\
		for (int i = 0; i < NE; i++) {						\
			T_CHECK(dst[(p * NE + i) * 2] == VAL(T, p * sz + ix, i),		\
				"alltoalls" #S);					\
			T_CHECK(dst[(p * NE + i) * 2 + 1] == (T)99, "alltoalls" #S " gap");\
		}									\
	psync_ok(ps, "alltoalls" #S);							\
}
AS_SIZED(32, uint32_t)
AS_SIZED(64, uint64_t)

/* Every active set of the job, back to back with no barrier between: each
 * PE runs the collectives of the sets it is in. */
static void test_active_sets(void)
{
	uint32_t *s32 = shmem_malloc(4 * NE * 6 * (size_t)n), *d32 = shmem_malloc(4 * NE * 6 * (size_t)n);
	uint64_t *s64 = shmem_malloc(8 * NE * 6 * (size_t)n), *d64 = shmem_malloc(8 * NE * 6 * (size_t)n);
	long *flag = shmem_calloc((size_t)n, sizeof(long));
	int sets = 0;

	toall_all(0, 0, 1, -1, psA);	/* the allocations, on every PE */
	shmem_barrier_all();
	for (int lg = 0; lg <= 2; lg++)
		for (int st = 0; st < n; st++)
			for (int sz = 1; st + ((sz - 1) << lg) < n; sz++) {
				int step = 1 << lg, ix = -1;

				if (me >= st && (me - st) % step == 0 && (me - st) / step < sz)
					ix = (me - st) / step;
				sets++;
				if (ix < 0)
					continue;
				as_32(st, lg, sz, ix, psA, s32, d32);
				as_64(st, lg, sz, ix, psB, s64, d64);
				toall_all(st, lg, sz, ix, sets % 2 ? psA : psB);
				/* barrier: puts before it are complete after it */
				int nxt = st + ((ix + 1) % sz) * step;

				shmem_long_p(&flag[me], sets * 1000 + me, nxt);
				shmem_barrier(st, lg, sz, psA);
				int prv = st + ((ix + sz - 1) % sz) * step;

				/* prv may be in a later set already: >= */
				T_CHECK(flag[prv] >= sets * 1000 + prv && flag[prv] % 1000 == prv,
					"barrier (%d,%d,%d): %ld from PE %d", st, lg, sz, flag[prv],
					prv);
				psync_ok(psA, "barrier");
				shmem_sync(st, lg, sz, psA);	/* the same pSync again */
				psync_ok(psA, "sync");
			}
	shmem_barrier_all();
	/* the same pSync after a barrier_all, on the whole job */
	shmem_barrier(0, 0, n, psA);
	shmem_barrier(0, 0, n, psA);
	psync_ok(psA, "barrier");
	(void)sets;
	shmem_free(s32);
	shmem_free(d32);
	shmem_free(s64);
	shmem_free(d64);
	shmem_free(flag);
}

/* ---- seeded random sequence -------------------------------------------------- */

static uint64_t rng;

static unsigned rnd(unsigned m)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rng >> 33) % m);
}

/* Every PE draws the same sequence (same seed), so they agree on every
 * operation, team, active set and size.  Sizes up to 40000 longs (320 KB:
 * many of the layer's chunks). */
static void test_random(uint64_t seed, unsigned ops)
{
	enum { MAXE = 40000 };
	long *src = shmem_malloc(sizeof(long) * MAXE * (size_t)n);
	long *dst = shmem_malloc(sizeof(long) * MAXE * (size_t)n);

	rng = seed;
	for (unsigned k = 0; k < ops; k++) {
		unsigned op = rnd(6), big = rnd(4) == 0;
		size_t ne = big ? 1 + rnd(MAXE) : rnd(9);
		int lg = (int)rnd(2), step = 1 << lg, st = (int)rnd((unsigned)n);
		int maxsz = (n - 1 - st) / step + 1, sz = 1 + (int)rnd((unsigned)maxsz);
		int ix = me >= st && (me - st) % step == 0 && (me - st) / step < sz ?
			 (me - st) / step : -1;
		int root = (int)rnd((unsigned)sz);
		uint64_t tag = seed + k;

		if (op >= 3) {	/* on the whole job, as a team op */
			ix = me;
			sz = n;
			root = (int)rnd((unsigned)n);
		}
		if (ix < 0)
			continue;
		if (op == 0 || op == 3) {
			for (size_t i = 0; i < ne; i++)
				src[i] = (long)(tag * 31 + (uint64_t)ix * 7 + i);
			if (op == 0)
				shmem_broadcast64(dst, src, ne, root, st, lg, sz, psA);
			else
				T_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, ne, root), 0);
			if (ix != root || op == 3)
				for (size_t i = 0; i < ne; i++)
					if (dst[i] != (long)(tag * 31 + (uint64_t)root * 7 + i)) {
						T_CHECK(0, "op %u broadcast [%zu] seed %llu k %u", op,
							i, (unsigned long long)seed, k);
						break;
					}
		} else if (op == 1 || op == 4) {
			for (size_t i = 0; i < ne; i++)
				src[i] = (long)(tag + (uint64_t)ix * 1000003 + i);
			if (op == 1)
				shmem_fcollect64(dst, src, ne, st, lg, sz, psB);
			else
				T_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, ne), 0);
			for (int p = 0; p < sz; p++)
				for (size_t i = 0; i < ne; i++)
					if (dst[(size_t)p * ne + i] !=
					    (long)(tag + (uint64_t)p * 1000003 + i)) {
						T_CHECK(0, "op %u fcollect p %d [%zu] seed %llu k %u",
							op, p, i, (unsigned long long)seed, k);
						p = sz;
						break;
					}
		} else {
			ne = ne / (size_t)n + 1;
			for (int j = 0; j < sz; j++)
				for (size_t i = 0; i < ne; i++)
					src[(size_t)j * ne + i] = (long)(tag + (uint64_t)ix * 7919 +
									(uint64_t)j * 104729 + i);
			if (op == 2)
				shmem_alltoall64(dst, src, ne, st, lg, sz, psA);
			else
				T_EQ(shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, ne), 0);
			for (int p = 0; p < sz; p++)
				for (size_t i = 0; i < ne; i++)
					if (dst[(size_t)p * ne + i] !=
					    (long)(tag + (uint64_t)p * 7919 + (uint64_t)ix * 104729 + i)) {
						T_CHECK(0, "op %u alltoall p %d [%zu] seed %llu k %u",
							op, p, i, (unsigned long long)seed, k);
						p = sz;
						break;
					}
		}
	}
	shmem_barrier_all();
	psync_ok(psA, "random");
	psync_ok(psB, "random");
	shmem_free(src);
	shmem_free(dst);
}

int main(int argc, char **argv)
{
	uint64_t seed = 0x5eed;
	unsigned ops = 300;
	struct tinfo w, s;

	const char *misuse = NULL;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-m"))
			misuse = argv[i + 1];
		else if (!strcmp(argv[i], "-s"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "-k"))
			ops = (unsigned)strtoul(argv[i + 1], NULL, 0);
	}
	shmem_init();
	st_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	for (int k = 0; k < 4; k++)
		pools[k] = shmem_calloc(1, POOL_BYTES);
	psA = shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
	psB = shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		psA[i] = psB[i] = SHMEM_SYNC_VALUE;
	shmem_barrier_all();
	/* -m: misuse that must end the job with 1 and a message naming the call
	 * (scripts/check-native.sh): a PE outside the active set it calls on;
	 * a root outside it; a team collective's root outside the team. */
	if (misuse && !strcmp(misuse, "notin"))
		shmem_barrier(1, 0, n - 1, psA);	/* PE 0 is not in it */
	if (misuse && !strcmp(misuse, "root"))
		shmem_broadcast64(pools[1], pools[0], 1, n, 0, 0, n, psA);
	if (misuse && !strcmp(misuse, "teamroot"))
		shmem_long_broadcast(SHMEM_TEAM_WORLD, POOL(1), POOL(0), 1, -1);
	w = (struct tinfo){ SHMEM_TEAM_WORLD, 0, 1, n, me };
	/* a strided team: world PEs n-1, n-4, ... is not expressible (stride
	 * > 0), so: 1, 4, 7, ... (or PE 0 alone at one PE) */
	s.start = n > 1 ? 1 : 0;
	s.stride = 3;
	s.size = n > 1 ? (n - 2) / 3 + 1 : 1;
	s.idx = me >= s.start && (me - s.start) % 3 == 0 ? (me - s.start) / 3 : -1;
	T_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, s.start, s.stride, s.size, NULL, 0, &s.t),
	     0);
	test_coll(&w);
	st_case("team collectives, every RMA type, on WORLD");
	if (s.idx >= 0)
		test_coll(&s);
	st_case("team collectives, every RMA type, on a stride-3 team");
	test_mem_generic(&w);
	if (s.idx >= 0)
		test_mem_generic(&s);
	st_case("the mem forms and the generic names");
	test_red(&w);
	test_complex(&w);
	st_case("reductions of every type and family on WORLD, in place too");
	if (s.idx >= 0) {
		test_red(&s);
		test_complex(&s);
	}
	st_case("reductions of every type and family on a stride-3 team");
	test_active_sets();
	st_case("active sets: every (start, logPE_stride 0-2, size), back to back, pSync kept");
	if (me == 0) {
		printf("# random: -s %llu -k %u\n", (unsigned long long)seed, ops);
		fflush(stdout);
	}
	test_random(seed, ops);
	st_case("random sequence of team and active-set collectives (seed %llu)",
		(unsigned long long)seed);
	if (s.t != SHMEM_TEAM_INVALID)
		shmem_team_destroy(s.t);
	return st_done();
}
