/* SPDX-License-Identifier: MIT */
/*
 * ctx - OpenSHMEM contexts: every RMA and AMO family in its shmem_ctx_
 * form on a private context (each PE writes its right neighbour, reads
 * its left one; AMOs into PE 0 with exact totals), ctx_fence and
 * ctx_quiet ordering, SHMEM_CTX_DEFAULT forms, the generic names with and
 * without a context, 100 contexts created and destroyed (past libpgas's
 * endpoint budget: the fallback) and 20 live at once.
 *   -m destroyed|invalid|default  misuse that must end the job (exit 1)
 */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#include "stap.h"

#define NE 16

static int me, n, right, left;
static shmem_ctx_t ctx;

#define VAL(T, p, i) ((T)((p) * 7 + (i) + 1))

#define TEST_RMA(T, N)									\
static void rma_##N(void)								\
{											\
	T *a = shmem_calloc(6 * NE, sizeof(T)), *b = a + NE, *c = a + 2 * NE,		\
	  *d = a + 3 * NE, *e = a + 4 * NE, *f = a + 5 * NE;				\
	uint64_t *sig = shmem_calloc(2, sizeof(uint64_t));				\
	T src[NE], got[NE], st[2 * NE];							\
											\
	for (int i = 0; i < NE; i++) {							\
		src[i] = VAL(T, me, i);							\
		d[i] = VAL(T, me, i);							\
	}										\
	shmem_barrier_all();								\
	shmem_ctx_##N##_put(ctx, a, src, NE, right);					\
	shmem_ctx_##N##_put_nbi(ctx, b, src, NE, right);				\
	for (int i = 0; i < NE; i++)							\
		shmem_ctx_##N##_p(ctx, &c[i], VAL(T, me, i), right);			\
	shmem_ctx_##N##_put_signal(ctx, e, src, NE, &sig[0], 1, SHMEM_SIGNAL_ADD, right);\
	shmem_ctx_##N##_put_signal_nbi(ctx, f, src, NE, &sig[1], 5, SHMEM_SIGNAL_SET,	\
				       right);						\
	shmem_ctx_quiet(ctx);								\
	shmem_barrier_all();								\
	for (int i = 0; i < NE; i++) {							\
		T_CHECK(a[i] == VAL(T, left, i), #N " ctx put [%d]", i);		\
		T_CHECK(b[i] == VAL(T, left, i), #N " ctx put_nbi [%d]", i);		\
		T_CHECK(c[i] == VAL(T, left, i), #N " ctx p [%d]", i);			\
		T_CHECK(e[i] == VAL(T, left, i), #N " ctx put_signal [%d]", i);	\
		T_CHECK(f[i] == VAL(T, left, i), #N " ctx put_signal_nbi [%d]", i);	\
	}										\
	T_EQ(sig[0], 1);								\
	T_EQ(sig[1], 5);								\
	memset(got, 0, sizeof(got));							\
	shmem_ctx_##N##_get(ctx, got, d, NE, left);					\
	for (int i = 0; i < NE; i++)							\
		T_CHECK(got[i] == VAL(T, left, i), #N " ctx get [%d]", i);		\
	memset(got, 0, sizeof(got));							\
	shmem_ctx_##N##_get_nbi(ctx, got, d, NE, right);				\
	shmem_ctx_quiet(ctx);								\
	for (int i = 0; i < NE; i++) {							\
		T_CHECK(got[i] == VAL(T, right, i), #N " ctx get_nbi [%d]", i);	\
		T_CHECK(shmem_ctx_##N##_g(ctx, &d[i], left) == VAL(T, left, i),	\
			#N " ctx g [%d]", i);						\
	}										\
	shmem_barrier_all();								\
	memset(a, 0, NE * sizeof(T));							\
	shmem_barrier_all();								\
	shmem_ctx_##N##_iput(ctx, a, src, 3, 2, 5, right);				\
	shmem_ctx_quiet(ctx);								\
	shmem_barrier_all();								\
	for (int i = 0; i < NE; i++)							\
		T_CHECK(a[i] == (i % 3 == 0 && i / 3 < 5 ? VAL(T, left, i / 3 * 2) : (T)0),\
			#N " ctx iput [%d]", i);					\
	memset(st, 0, sizeof(st));							\
	shmem_ctx_##N##_iget(ctx, st, d, 2, 3, 5, left);				\
	for (int i = 0; i < 2 * NE; i++)						\
		T_CHECK(st[i] == (i % 2 == 0 && i / 2 < 5 ? VAL(T, left, i / 2 * 3) : (T)0),\
			#N " ctx iget [%d]", i);					\
	shmem_barrier_all();								\
	shmem_free(sig);								\
	shmem_free(a);									\
}
SHMEM__RMA_TYPES(TEST_RMA)

static void test_rma(void)
{
#define CALL(T, N) rma_##N();
	SHMEM__RMA_TYPES(CALL)
#undef CALL
	st_case("every typed ctx RMA form (put/get/_nbi/p/g/iput/iget/put_signal[_nbi]), 24 types");
}

/* p[0..len) holds st_fill(seed)'s bytes from off on. */
static int seg_ok(const unsigned char *p, uint64_t seed, size_t off, size_t len)
{
	for (size_t j = 0; j < len; j++)
		if (p[j] != st_byte(seed, off + j))
			return 0;
	return 1;
}

/* SIZE forms: B bytes per element, K elements. */
#define SIZED(S)									\
static void size_##S(unsigned char *r, unsigned char *l)				\
{											\
	enum { B = S / 8, K = 9 };							\
	unsigned char src[B * K], got[B * K], st[B * 2 * K];				\
											\
	st_fill(src, sizeof(src), (uint64_t)me * 100 + S);				\
	memset(r, 0, 4 * B * K);							\
	shmem_barrier_all();								\
	shmem_ctx_put##S(ctx, r, src, K, right);					\
	shmem_ctx_put##S##_nbi(ctx, r + B * K, src, K, right);				\
	shmem_ctx_iput##S(ctx, r + 2 * B * K, src, 2, 1, K, right);			\
	shmem_ctx_quiet(ctx);								\
	shmem_barrier_all();								\
	T_EQ(st_verify(r, B * K, (uint64_t)left * 100 + S), B * K);			\
	T_EQ(st_verify(r + B * K, B * K, (uint64_t)left * 100 + S), B * K);		\
	for (int i = 0; i < K; i++)							\
		T_EQ(seg_ok(r + 2 * B * K + 2 * B * i, (uint64_t)left * 100 + S,	\
			    (size_t)B * i, B), 1);					\
	memcpy(l, src, sizeof(src));							\
	shmem_barrier_all();								\
	memset(got, 0, sizeof(got));							\
	shmem_ctx_get##S(ctx, got, l, K, left);						\
	T_EQ(st_verify(got, sizeof(got), (uint64_t)left * 100 + S), sizeof(got));	\
	memset(got, 0, sizeof(got));							\
	shmem_ctx_get##S##_nbi(ctx, got, l, K, left);					\
	shmem_ctx_quiet(ctx);								\
	T_EQ(st_verify(got, sizeof(got), (uint64_t)left * 100 + S), sizeof(got));	\
	memset(st, 0, sizeof(st));							\
	shmem_ctx_iget##S(ctx, st, l, 2, 1, K, left);					\
	for (int i = 0; i < K; i++)							\
		T_EQ(seg_ok(st + 2 * B * i, (uint64_t)left * 100 + S, (size_t)B * i, B), 1);\
	shmem_barrier_all();								\
}
SIZED(8)
SIZED(16)
SIZED(32)
SIZED(64)
SIZED(128)

static void test_sized(void)
{
	enum { M = 100003 };
	unsigned char *r = shmem_calloc(2, 4096), *l = r + 4096;
	unsigned char *big = shmem_malloc(M + 8), *buf = malloc(M + 8);
	uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));

	size_8(r, l);
	size_16(r, l);
	size_32(r, l);
	size_64(r, l);
	size_128(r, l);
	/* putmem/getmem, odd length and offset */
	st_fill(buf, M, (uint64_t)me + 77);
	shmem_ctx_putmem(ctx, big + 3, buf, M, right);
	shmem_ctx_quiet(ctx);
	shmem_barrier_all();
	T_EQ(st_verify(big + 3, M, (uint64_t)left + 77), M);
	shmem_barrier_all();
	shmem_ctx_putmem_nbi(ctx, big + 1, buf, M, right);
	shmem_ctx_putmem_signal(ctx, r, buf, 8, sig, 3, SHMEM_SIGNAL_ADD, right);
	shmem_ctx_putmem_signal_nbi(ctx, r + 8, buf, 8, sig, 4, SHMEM_SIGNAL_ADD, right);
	shmem_ctx_quiet(ctx);
	shmem_barrier_all();
	T_EQ(st_verify(big + 1, M, (uint64_t)left + 77), M);
	T_EQ(st_verify(r, 8, (uint64_t)left + 77), 8);
	T_EQ(st_verify(r + 8, 8, (uint64_t)left + 77), 8);
	T_EQ(shmem_signal_fetch(sig), 7);
	memset(buf, 0, M);
	shmem_ctx_getmem(ctx, buf, big + 1, M, right);
	T_EQ(st_verify(buf, M, (uint64_t)me + 77), M);
	memset(buf, 0, M);
	shmem_ctx_getmem_nbi(ctx, buf, big + 1, M, left);
	shmem_ctx_quiet(ctx);
	T_EQ(st_verify(buf, M, (uint64_t)((left + n - 1) % n) + 77), M);
	shmem_barrier_all();
	shmem_free(sig);
	shmem_free(big);
	shmem_free(r);
	free(buf);
	st_case("ctx putSIZE/getSIZE/iputSIZE/igetSIZE (_nbi), putmem/getmem (_nbi), putmem_signal");
}

/* Every PE adds into PE 0's words through its context; exact totals. */
#define K_AMO 50
#define TEST_AMO(T, N, B)								\
static void amo_##N(T *w)								\
{											\
	T f;										\
	long long sum = (long long)n * (n + 1) / 2;					\
											\
	for (int i = 0; i < K_AMO; i++) {						\
		T old = shmem_ctx_##N##_atomic_fetch_inc(ctx, &w[0], 0);		\
		T_CHECK((long long)old < (long long)n * K_AMO, #N " ticket");		\
		shmem_ctx_##N##_atomic_inc(ctx, &w[1], 0);				\
		shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx, &f, &w[2], 0);		\
		shmem_ctx_##N##_atomic_add(ctx, &w[3], (T)(me + 1), 0);		\
		(void)shmem_ctx_##N##_atomic_fetch_add(ctx, &w[4], (T)(me + 1), 0);	\
		shmem_ctx_##N##_atomic_fetch_add_nbi(ctx, &f, &w[5], (T)(me + 1), 0);	\
		for (;;) {	/* a CAS increment, blocking and nbi alternately */	\
			T v = shmem_ctx_##N##_atomic_fetch(ctx, &w[6], 0), o;		\
			if (i & 1)							\
				o = shmem_ctx_##N##_atomic_compare_swap(ctx, &w[6], v,	\
									 (T)(v + 1), 0);\
			else {								\
				shmem_ctx_##N##_atomic_compare_swap_nbi(ctx, &o, &w[6], v,\
									 (T)(v + 1), 0);\
				shmem_ctx_quiet(ctx);					\
			}								\
			if (o == v)							\
				break;							\
		}									\
	}										\
	shmem_ctx_##N##_atomic_set(ctx, &w[7 + me], (T)(me + 3), 0);			\
	shmem_ctx_quiet(ctx);								\
	shmem_barrier_all();								\
	if (me == 0) {									\
		for (int j = 0; j < 3; j++)						\
			T_EQ(w[j], n * K_AMO);						\
		for (int j = 3; j < 6; j++)						\
			T_EQ(w[j], sum * K_AMO);					\
		T_EQ(w[6], n * K_AMO);							\
	}										\
	T_EQ(shmem_ctx_##N##_atomic_fetch(ctx, &w[7 + left], 0), left + 3);		\
	shmem_ctx_##N##_atomic_fetch_nbi(ctx, &f, &w[7 + right], 0);			\
	shmem_ctx_quiet(ctx);								\
	T_EQ(f, right + 3);								\
	shmem_barrier_all();								\
	T_EQ(shmem_ctx_##N##_atomic_swap(ctx, &w[7 + me], (T)(me + 40), 0), me + 3);	\
	shmem_ctx_##N##_atomic_swap_nbi(ctx, &f, &w[7 + me], (T)(me + 50), 0);		\
	shmem_ctx_quiet(ctx);								\
	T_EQ(f, me + 40);								\
	shmem_barrier_all();								\
	if (me == 0)									\
		for (int p = 0; p < n; p++)						\
			T_EQ(w[7 + p], p + 50);						\
	shmem_barrier_all();								\
	memset(w, 0, 16 * sizeof(T));							\
	shmem_barrier_all();								\
}
SHMEM__AMO_TYPES(TEST_AMO)

/* Bitwise: each PE sets, toggles and clears its bit at PE 0. */
#define TEST_BIT(T, N)									\
static void bit_##N(T *w)								\
{											\
	T bit = (T)1 << me, f;								\
											\
	shmem_ctx_##N##_atomic_or(ctx, &w[0], bit, 0);					\
	(void)shmem_ctx_##N##_atomic_fetch_or(ctx, &w[1], bit, 0);			\
	shmem_ctx_##N##_atomic_fetch_or_nbi(ctx, &f, &w[2], bit, 0);			\
	shmem_ctx_##N##_atomic_xor(ctx, &w[3], bit, 0);					\
	(void)shmem_ctx_##N##_atomic_fetch_xor(ctx, &w[4], bit, 0);			\
	shmem_ctx_##N##_atomic_fetch_xor_nbi(ctx, &f, &w[5], bit, 0);			\
	shmem_ctx_quiet(ctx);								\
	shmem_barrier_all();								\
	if (me == 0)									\
		for (int j = 0; j < 6; j++)						\
			T_EQ(w[j], ((T)1 << n) - 1);					\
	shmem_barrier_all();								\
	shmem_ctx_##N##_atomic_and(ctx, &w[0], (T)~bit, 0);				\
	(void)shmem_ctx_##N##_atomic_fetch_and(ctx, &w[1], (T)~bit, 0);		\
	shmem_ctx_##N##_atomic_fetch_and_nbi(ctx, &f, &w[2], (T)~bit, 0);		\
	shmem_ctx_quiet(ctx);								\
	shmem_barrier_all();								\
	if (me == 0)									\
		for (int j = 0; j < 3; j++)						\
			T_EQ(w[j], 0);							\
	shmem_barrier_all();								\
	memset(w, 0, 16 * sizeof(T));							\
	shmem_barrier_all();								\
}
TEST_BIT(unsigned int, uint)
TEST_BIT(unsigned long, ulong)
TEST_BIT(unsigned long long, ulonglong)
TEST_BIT(int32_t, int32)
TEST_BIT(int64_t, int64)
TEST_BIT(uint32_t, uint32)
TEST_BIT(uint64_t, uint64)

#define TEST_FP(T, N)									\
static void fp_##N(T *w)								\
{											\
	T f;										\
											\
	shmem_ctx_##N##_atomic_set(ctx, &w[me], (T)me + 0.5, right);			\
	shmem_ctx_quiet(ctx);								\
	shmem_barrier_all();								\
	T_CHECK(w[left] == (T)left + 0.5, #N " ctx set");				\
	shmem_barrier_all();								\
	T_CHECK(shmem_ctx_##N##_atomic_swap(ctx, &w[me], (T)me + 0.25, right) ==	\
		(T)me + 0.5, #N " ctx swap");						\
	shmem_ctx_##N##_atomic_swap_nbi(ctx, &f, &w[me], (T)me + 0.75, right);		\
	shmem_ctx_quiet(ctx);								\
	T_CHECK(f == (T)me + 0.25, #N " ctx swap_nbi");					\
	shmem_ctx_##N##_atomic_fetch_nbi(ctx, &f, &w[me], right);			\
	shmem_ctx_quiet(ctx);								\
	T_CHECK(f == (T)me + 0.75, #N " ctx fetch_nbi");				\
	shmem_barrier_all();								\
	memset(w, 0, 16 * sizeof(T));							\
	shmem_barrier_all();								\
}
TEST_FP(float, float)
TEST_FP(double, double)

static void test_amo(void)
{
	void *w = shmem_calloc(16, 16);

#define CALL(T, N, B) amo_##N(w);
	SHMEM__AMO_TYPES(CALL)
#undef CALL
	st_case("every standard ctx AMO (fetching, non-fetching, nbi, CAS), 12 types: exact totals");
	bit_uint(w);
	bit_ulong(w);
	bit_ulonglong(w);
	bit_int32(w);
	bit_int64(w);
	bit_uint32(w);
	bit_uint64(w);
	st_case("ctx bitwise AMOs (and/or/xor, fetching, nbi), 7 types");
	fp_float(w);
	fp_double(w);
	st_case("ctx extended AMOs on float and double (set, fetch, swap, nbi)");
	shmem_free(w);
}

/* Data through the context, then a flag: the flag's reader sees the data. */
static void test_order(void)
{
	enum { R = 200, D = 64 };
	long *data = shmem_calloc(D + 2, sizeof(long)), *flag = data + D, *ack = data + D + 1;
	long src[D];

	for (int r = 1; r <= R; r++) {
		for (int i = 0; i < D; i++)
			src[i] = (long)r * 1000 + i;
		shmem_ctx_long_put_nbi(ctx, data, src, D, right);
		if (r & 1) {
			shmem_ctx_fence(ctx);
			shmem_ctx_long_p(ctx, flag, r, right);
		} else {	/* quiet, then the flag through the default context */
			shmem_ctx_quiet(ctx);
			shmem_long_atomic_set(flag, r, right);
		}
		shmem_long_wait_until(flag, SHMEM_CMP_GE, r);
		for (int i = 0; i < D; i++)
			if (data[i] != (long)r * 1000 + i) {
				T_EQ(data[i], (long)r * 1000 + i);
				break;
			}
		/* the left may not overwrite data before we read it */
		shmem_long_atomic_set(ack, r, left);
		shmem_long_wait_until(ack, SHMEM_CMP_GE, r);
	}
	shmem_barrier_all();
	shmem_free(data);
	st_case("%d rounds of ctx put_nbi + ctx_fence/ctx_quiet + flag: data there with the flag", R);
}

static void test_default_and_generic(void)
{
	long *x = shmem_calloc(8, sizeof(long));
	double *dd = shmem_calloc(2, sizeof(double));
	unsigned long *u = shmem_calloc(2, sizeof(unsigned long));
	long v[2] = { me + 10, me + 20 }, g[2];

	shmem_ctx_long_put(SHMEM_CTX_DEFAULT, x, v, 2, right);
	shmem_ctx_long_atomic_add(SHMEM_CTX_DEFAULT, &x[2], me + 1, 0);
	shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
	shmem_ctx_fence(SHMEM_CTX_DEFAULT);
	shmem_barrier_all();
	T_EQ(x[0], left + 10);
	T_EQ(x[1], left + 20);
	if (me == 0)
		T_EQ(x[2], (long)n * (n + 1) / 2);
	T_EQ(shmem_ctx_long_g(SHMEM_CTX_DEFAULT, &x[1], left), (left + n - 1) % n + 20);
	shmem_barrier_all();
	st_case("SHMEM_CTX_DEFAULT forms: put, atomic_add, g, quiet, fence");

	/* generics: the same name with a context first and without */
	shmem_put(ctx, &x[3], v, 1, right);
	shmem_put(&x[4], &v[1], 1, right);
	shmem_p(ctx, &x[5], (long)me, right);
	shmem_p(&dd[0], (double)me + 0.5, right);
	shmem_p(ctx, &dd[1], (double)me + 1.5, right);
	shmem_atomic_add(ctx, &x[6], 2L, 0);
	shmem_atomic_add(&x[6], 3L, 0);
	shmem_atomic_or(ctx, &u[0], 1UL << me, 0);
	shmem_atomic_fetch_or(&u[1], 1UL << me, 0);
	shmem_ctx_quiet(ctx);
	shmem_quiet();
	shmem_barrier_all();
	T_EQ(x[3], left + 10);
	T_EQ(x[4], left + 20);
	T_EQ(x[5], left);
	T_CHECK(dd[0] == (double)left + 0.5, "generic p double");
	T_CHECK(dd[1] == (double)left + 1.5, "generic ctx p double");
	if (me == 0) {
		T_EQ(x[6], 5L * n);
		T_EQ(u[0], (1UL << n) - 1);
		T_EQ(u[1], (1UL << n) - 1);
	}
	T_EQ(shmem_g(ctx, &x[4], left), (left + n - 1) % n + 20);
	T_EQ(shmem_g(&x[5], right), me);
	T_EQ(shmem_atomic_fetch(ctx, &x[5], right), me);
	T_EQ(shmem_atomic_fetch(&x[5], right), me);
	memset(g, 0, sizeof(g));
	shmem_get(ctx, g, x, 2, left);
	shmem_get_nbi(g + 1, x + 1, 1, left);
	shmem_quiet();
	T_EQ(g[0], (left + n - 1) % n + 10);
	T_EQ(g[1], (left + n - 1) % n + 20);
	{
		long f = -1;

		shmem_atomic_fetch_inc_nbi(ctx, &f, &x[7], right);
		shmem_ctx_quiet(ctx);
		T_CHECK(f >= 0, "generic ctx fetch_inc_nbi");
		shmem_atomic_fetch_add_nbi(&f, &x[7], 1L, right);
		shmem_quiet();
		T_CHECK(f >= 1, "generic fetch_add_nbi");
	}
	shmem_barrier_all();
	shmem_free(u);
	shmem_free(dd);
	shmem_free(x);
	st_case("generic names with a context first and without (put, p, g, get, AMOs, nbi AMOs)");
}

/* Create/destroy churn past libpgas's endpoint budget, and many live at once. */
static void test_churn(void)
{
	enum { C = 100, L = 20 };
	long *x = shmem_calloc(2, sizeof(long));
	const long opts[4] = { 0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED,
			       SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE };
	shmem_ctx_t live[L];
	int ok = 0;

	for (int i = 0; i < C; i++) {
		shmem_ctx_t c = SHMEM_CTX_INVALID;

		if (shmem_ctx_create(opts[i % 4], &c) == 0 && c != SHMEM_CTX_INVALID &&
		    c != SHMEM_CTX_DEFAULT) {
			shmem_ctx_long_atomic_inc(c, x, right);
			shmem_ctx_long_p(c, &x[1], i, right);	/* on its endpoint */
			ok++;
		}
		shmem_ctx_destroy(c);
	}
	T_EQ(ok, C);
	shmem_barrier_all();
	T_EQ(*x, C);
	shmem_barrier_all();
	*x = 0;
	shmem_barrier_all();
	ok = 0;
	for (int i = 0; i < L; i++)
		ok += shmem_ctx_create(SHMEM_CTX_PRIVATE, &live[i]) == 0;
	T_EQ(ok, L);
	for (int i = 0; i < L; i++)
		shmem_ctx_long_atomic_add(live[i], x, i + 1, right);
	for (int i = 0; i < L; i++)
		shmem_ctx_destroy(live[i]);
	shmem_ctx_destroy(SHMEM_CTX_INVALID);	/* no effect, as the spec says */
	shmem_barrier_all();
	T_EQ(*x, L * (L + 1) / 2);
	shmem_barrier_all();
	shmem_free(x);
	st_case("%d contexts created and destroyed, %d live at once: all created (endpoints, then the shared fallback)",
		C, L);
}

static void misuse(const char *m)
{
	long *x = shmem_calloc(1, sizeof(long));
	shmem_ctx_t c;

	if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &c))
		shmem_global_exit(3);
	shmem_ctx_destroy(c);
	if (me == n - 1) {
		if (!strcmp(m, "destroyed"))
			shmem_ctx_long_p(c, x, 1, 0);
		else if (!strcmp(m, "invalid"))
			shmem_ctx_long_atomic_inc(SHMEM_CTX_INVALID, x, 0);
		else if (!strcmp(m, "default"))
			shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
		else if (!strcmp(m, "destroy2"))
			shmem_ctx_destroy(c);
	}
	shmem_barrier_all();
	fprintf(stderr, "# misuse %s was not caught\n", m);
	shmem_global_exit(4);
}

int main(int argc, char **argv)
{
	int opt;
	const char *mis = NULL;

	while ((opt = getopt(argc, argv, "m:")) != -1)
		if (opt == 'm')
			mis = optarg;
	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	right = (me + 1) % n;
	left = (me + n - 1) % n;
	if (mis)
		misuse(mis);
	st_init();
	T_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
	T_CHECK(ctx != SHMEM_CTX_INVALID && ctx != SHMEM_CTX_DEFAULT, "a new context");
	st_case("shmem_ctx_create(SHMEM_CTX_PRIVATE)");
	test_rma();
	test_sized();
	test_amo();
	test_order();
	test_default_and_generic();
	shmem_ctx_destroy(ctx);
	test_churn();
	return st_done();
}
