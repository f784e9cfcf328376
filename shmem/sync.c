/* SPDX-License-Identifier: MIT */
/*
 * sync.c - shmem_barrier_all, shmem_sync_all and the point-to-point
 * waits and tests.  32- and 64-bit words wait in pgas_wait_until_* and
 * pgas_test_* (which sleep in the block wait mode until a put, signal or
 * atomic to this PE arrives); libpgas has no 16-bit waits, so short and
 * unsigned short poll in pgas_block_until (in the block wait mode: naps).
 */
#include <string.h>
#include "shmem_internal.h"

void shmem_barrier_all(void)
{
	shmem__need_init("shmem_barrier_all");
	SHMEM__CHECK("shmem_barrier_all", pgas_quiet());
	SHMEM__CHECK("shmem_barrier_all", pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS));
}

void shmem_sync_all(void)
{
	shmem__need_init("shmem_sync_all");
	SHMEM__CHECK("shmem_sync_all", pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS));
}

/* What a wait waits for. */
enum { WM_ONE, WM_ALL, WM_ANY, WM_SOME };

static inline void check_cmp(const char *call, int cmp)
{
	if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
		shmem__fatal(call, "unknown comparison %d", cmp);
}

/* The comparison cmp of x with v, given whether x < v and x == v. */
static int holds(int cmp, int lt, int eq)
{
	switch (cmp) {
	case SHMEM_CMP_EQ: return eq;
	case SHMEM_CMP_NE: return !eq;
	case SHMEM_CMP_GT: return !lt && !eq;
	case SHMEM_CMP_GE: return !lt;
	case SHMEM_CMP_LT: return lt;
	default: return lt || eq;
	}
}

/* ---- 16-bit words: the same contract, in this layer --------------------------- */

static int cmp16(const void *w, int sgn, int cmp, const void *values, size_t i, int vector)
{
	long long x, v;
	const unsigned char *vp = (const unsigned char *)values + (vector ? i * 2 : 0);
	uint16_t u, uv;

	u = __atomic_load_n((const uint16_t *)w + i, __ATOMIC_ACQUIRE);
	memcpy(&uv, vp, 2);
	x = sgn ? (long long)(int16_t)u : (long long)u;
	v = sgn ? (long long)(int16_t)uv : (long long)uv;
	return holds(cmp, x < v, x == v);
}

/* One pass: ONE/ALL: 1 when it holds; ANY: the index or SIZE_MAX; SOME:
 * the count (indices filled). */
/* ANY starts at 'start' and goes round (libpgas's fairness, pgas_signal.h);
 * the others start at 0. */
static size_t pass16(const void *w, int sgn, size_t n, const int *status, int cmp,
		     const void *values, int vector, int kind, size_t *indices, size_t start)
{
	size_t cnt = 0;

	for (size_t j = 0, i = start; j < n; j++, i = i + 1 == n ? 0 : i + 1) {
		if (status && status[i])
			continue;
		if (cmp16(w, sgn, cmp, values, i, vector)) {
			if (kind == WM_ANY) {
				pgas__any_returned(w, i);
				return i;
			}
			if (kind == WM_SOME)
				indices[cnt] = i;
			cnt++;
		} else if (kind == WM_ALL || kind == WM_ONE) {
			return 0;
		}
	}
	if (kind == WM_ANY)
		return SIZE_MAX;
	if (kind == WM_SOME)
		return cnt;
	return 1;
}

static int left_in(size_t n, const int *status)
{
	for (size_t i = 0; i < n; i++)
		if (!status || !status[i])
			return 1;
	return 0;
}

/* As pgas's waits: returns 0/1 for a test, 0 for a wait; *out
 * and *count as pgas's. */
static int wait16(const char *call, const void *ivars, int sgn, size_t n, const int *status,
		  int cmp, const void *values, int vector, int kind, int test, size_t *out,
		  size_t *count)
{
	size_t r, start;

	shmem__need_init(call);
	check_cmp(call, cmp);
	if (!ivars && n)
		shmem__fatal(call, "ivars is NULL");
	if (((uintptr_t)ivars & 1))
		shmem__fatal(call, "ivars %p is not aligned", ivars);
	if (kind != WM_ONE && !left_in(n, status)) {	/* nothing to wait for */
		if (kind == WM_ANY)
			*out = SIZE_MAX;
		if (kind == WM_SOME)
			*count = 0;
		return kind == WM_ALL && test;	/* test_all: holds; the rest: none */
	}
	start = kind == WM_ANY ? pgas__any_start(ivars, n) : 0;
	for (;;) {
		r = pass16(ivars, sgn, n, status, cmp, values, vector, kind, out, start);
		if (kind == WM_ANY ? r != SIZE_MAX : r != 0)
			break;
		if (test) {
			if (kind == WM_ANY)
				*out = SIZE_MAX;
			if (kind == WM_SOME)
				*count = 0;
			return 0;
		}
		/* Poll once (handlers run), then look again. */
		{
			int polled = 0;

			pgas_block_until(polled++ > 0);
		}
	}
	if (kind == WM_ANY)
		*out = r;
	if (kind == WM_SOME)
		*count = r;
	return test ? 1 : 0;
}

/* ---- the typed calls ---------------------------------------------------------- */

/*
 * The public pgas waits of one type (pgas_signal.h), picked by form:
 * returns what pgas's call returns (PGAS_OK for a wait, 1 or 0 for a
 * test, < 0 for an error).
 */
#define PW(SFX, T)									\
static int pw_##SFX(const void *iv, size_t n, const int *st, int cmp,			\
		    const void *vals, int vec, int kind, int test, size_t *out,		\
		    size_t *cnt)							\
{											\
	const T *x = iv, *vs = vals;							\
											\
	switch (kind) {									\
	case WM_ONE:									\
		return test ? pgas_test_##SFX(x, cmp, *vs) : pgas_wait_until_##SFX(x, cmp, *vs);\
	case WM_ALL:									\
		if (vec)								\
			return test ? pgas_test_all_vector_##SFX(x, n, st, cmp, vs)	\
				    : pgas_wait_until_all_vector_##SFX(x, n, st, cmp, vs);\
		return test ? pgas_test_all_##SFX(x, n, st, cmp, *vs)			\
			    : pgas_wait_until_all_##SFX(x, n, st, cmp, *vs);		\
	case WM_ANY:									\
		if (vec)								\
			return test ? pgas_test_any_vector_##SFX(x, n, st, cmp, vs, out)	\
				    : pgas_wait_until_any_vector_##SFX(x, n, st, cmp, vs, out);\
		return test ? pgas_test_any_##SFX(x, n, st, cmp, *vs, out)		\
			    : pgas_wait_until_any_##SFX(x, n, st, cmp, *vs, out);	\
	default:									\
		if (vec)								\
			return test ? pgas_test_some_vector_##SFX(x, n, out, cnt, st, cmp, vs)\
				    : pgas_wait_until_some_vector_##SFX(x, n, out, cnt, st,	\
									 cmp, vs);		\
		return test ? pgas_test_some_##SFX(x, n, out, cnt, st, cmp, *vs)	\
			    : pgas_wait_until_some_##SFX(x, n, out, cnt, st, cmp, *vs);	\
	}										\
}
PW(i32, int32_t)
PW(u32, uint32_t)
PW(i64, int64_t)
PW(u64, uint64_t)

/* Dispatches on the size and signedness of the ivars' type. */
#define T_SIGNED(T) ((T)-1 < (T)1)
static inline int do_wait(const char *call, const void *ivars, size_t size, int sgn, size_t n,
			  const int *status, int cmp, const void *values, int vector, int kind,
			  int test, size_t *out, size_t *count)
{
	int rc;

	if (size == 2)
		return wait16(call, ivars, sgn, n, status, cmp, values, vector, kind, test, out,
			      count);
	shmem__need_init(call);
	check_cmp(call, cmp);
	if (size == 4)
		rc = (sgn ? pw_i32 : pw_u32)(ivars, n, status, cmp, values, vector, kind, test,
					     out, count);
	else
		rc = (sgn ? pw_i64 : pw_u64)(ivars, n, status, cmp, values, vector, kind, test,
					     out, count);
	SHMEM__CHECK(call, rc);
	return rc;
}

#define W(T, call, iv, n, st, cmp, vals, vec, kind, test, out, cnt)			\
	do_wait(call, iv, sizeof(T), T_SIGNED(T), n, st, cmp, vals, vec, kind, test, out, cnt)

#define SHMEM__P2P_DEF(T, N)								\
void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)				\
{											\
	W(T, "shmem_" #N "_wait_until", ivar, 1, NULL, cmp, &cmp_value, 0,		\
	  WM_ONE, 0, NULL, NULL);							\
}											\
void shmem_##N##_wait(T *ivar, T cmp_value)						\
{											\
	W(T, "shmem_" #N "_wait", ivar, 1, NULL, SHMEM_CMP_NE, &cmp_value, 0,		\
	  WM_ONE, 0, NULL, NULL);							\
}											\
void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,	\
				T cmp_value)						\
{											\
	W(T, "shmem_" #N "_wait_until_all", ivars, nelems, status, cmp, &cmp_value, 0,	\
	  WM_ALL, 0, NULL, NULL);							\
}											\
size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,	\
				  T cmp_value)						\
{											\
	size_t i = SIZE_MAX;								\
	W(T, "shmem_" #N "_wait_until_any", ivars, nelems, status, cmp, &cmp_value, 0,	\
	  WM_ANY, 0, &i, NULL);							\
	return i;									\
}											\
size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,		\
				   const int *status, int cmp, T cmp_value)		\
{											\
	size_t c = 0;									\
	W(T, "shmem_" #N "_wait_until_some", ivars, nelems, status, cmp, &cmp_value, 0,\
	  WM_SOME, 0, indices, &c);						\
	return c;									\
}											\
void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,	\
				       int cmp, T *cmp_values)				\
{											\
	W(T, "shmem_" #N "_wait_until_all_vector", ivars, nelems, status, cmp,		\
	  cmp_values, 1, WM_ALL, 0, NULL, NULL);					\
}											\
size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,	\
					 int cmp, T *cmp_values)			\
{											\
	size_t i = SIZE_MAX;								\
	W(T, "shmem_" #N "_wait_until_any_vector", ivars, nelems, status, cmp,		\
	  cmp_values, 1, WM_ANY, 0, &i, NULL);					\
	return i;									\
}											\
size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,	\
					  const int *status, int cmp, T *cmp_values)	\
{											\
	size_t c = 0;									\
	W(T, "shmem_" #N "_wait_until_some_vector", ivars, nelems, status, cmp,	\
	  cmp_values, 1, WM_SOME, 0, indices, &c);				\
	return c;									\
}											\
int shmem_##N##_test(T *ivar, int cmp, T cmp_value)					\
{											\
	return W(T, "shmem_" #N "_test", ivar, 1, NULL, cmp, &cmp_value, 0,		\
		 WM_ONE, 1, NULL, NULL);						\
}											\
int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,		\
			 T cmp_value)							\
{											\
	return W(T, "shmem_" #N "_test_all", ivars, nelems, status, cmp, &cmp_value, 0,\
		 WM_ALL, 1, NULL, NULL);						\
}											\
size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,	\
			    T cmp_value)						\
{											\
	size_t i = SIZE_MAX;								\
	if (!W(T, "shmem_" #N "_test_any", ivars, nelems, status, cmp, &cmp_value, 0,	\
	       WM_ANY, 1, &i, NULL))						\
		return SIZE_MAX;							\
	return i;									\
}											\
size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,		\
			     const int *status, int cmp, T cmp_value)			\
{											\
	size_t c = 0;									\
	if (!W(T, "shmem_" #N "_test_some", ivars, nelems, status, cmp, &cmp_value, 0,	\
	       WM_SOME, 1, indices, &c))						\
		return 0;								\
	return c;									\
}											\
int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,	\
				T *cmp_values)						\
{											\
	return W(T, "shmem_" #N "_test_all_vector", ivars, nelems, status, cmp,	\
		 cmp_values, 1, WM_ALL, 1, NULL, NULL);				\
}											\
size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,	\
				   int cmp, T *cmp_values)				\
{											\
	size_t i = SIZE_MAX;								\
	if (!W(T, "shmem_" #N "_test_any_vector", ivars, nelems, status, cmp,		\
	       cmp_values, 1, WM_ANY, 1, &i, NULL))				\
		return SIZE_MAX;							\
	return i;									\
}											\
size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,	\
				    const int *status, int cmp, T *cmp_values)		\
{											\
	size_t c = 0;									\
	if (!W(T, "shmem_" #N "_test_some_vector", ivars, nelems, status, cmp,		\
	       cmp_values, 1, WM_SOME, 1, indices, &c))				\
		return 0;								\
	return c;									\
}
SHMEM__P2P_TYPES(SHMEM__P2P_DEF)

/*
 * Returns a value that satisfied the wait: the word may change again
 * between the wait's test and the read, so the read is tested too and the
 * wait resumes if it no longer holds.
 */
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
	uint64_t v;

	do {
		shmem_uint64_wait_until(sig_addr, cmp, cmp_value);
		SHMEM__CHECK("shmem_signal_wait_until", pgas_signal_fetch(sig_addr, &v));
	} while (!holds(cmp, v < cmp_value, v == cmp_value));
	return v;
}

/* The deprecated C (not generic) forms on long, for C99 and C++ programs. */
void (shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
	shmem_long_wait_until(ivar, cmp, cmp_value);
}

void shmem_wait(long *ivar, long cmp_value)
{
	shmem_long_wait(ivar, cmp_value);
}
