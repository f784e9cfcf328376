/* SPDX-License-Identifier: MIT */
/*
 * wait - shmem_barrier_all, shmem_sync_all and the point-to-point waits
 * and tests (wait_until / test, _all / _any / _some and the _vector forms)
 * for every point-to-point type, with signed comparisons that only a
 * signed reading gets right.  Run it in every wait mode (PGAS_WAIT_MODE).
 */
#include <time.h>
#include "stap.h"

static int me, n, right, left;

/*
 * Per type: (1) the left neighbour sets my ivar after I started waiting:
 * wait_until returns with the value there, test said 0 before; (2) PE 0
 * holds one slot per PE, each PE sets its own later: wait_until_all sees
 * them all, _any one of them, _some at least one, with status masks;
 * the vector forms compare slot i with i + 1.
 */
#define TEST_P2P(T, N)									\
static void p2p_##N(void)								\
{											\
	T *iv = shmem_calloc(1, sizeof(T)), *slots = shmem_calloc((size_t)n, sizeof(T));\
	int *status = calloc((size_t)n, sizeof(int));					\
	size_t *idx = calloc((size_t)n, sizeof(size_t));				\
	T *vals = calloc((size_t)n, sizeof(T));					\
											\
	T_EQ(shmem_##N##_test(iv, SHMEM_CMP_NE, 0), 0);					\
	T_EQ(shmem_##N##_test(iv, SHMEM_CMP_EQ, 0), 1);					\
	shmem_barrier_all();								\
	shmem_##N##_p(iv, (T)(me + 3), right);	/* my right waits for it */	\
	shmem_##N##_wait_until(iv, SHMEM_CMP_GE, (T)3);					\
	T_EQ(*iv, left + 3);								\
	T_EQ(shmem_##N##_test(iv, SHMEM_CMP_EQ, (T)(left + 3)), 1);			\
	shmem_barrier_all();								\
	shmem_##N##_p(iv, (T)0, right);							\
	shmem_##N##_wait(iv, (T)(left + 3));	/* 1.4: until it is not */		\
	T_EQ(*iv, 0);									\
	shmem_barrier_all();								\
	/* slots at PE 0 */								\
	if (me == 0) {									\
		T_EQ(shmem_##N##_test_any(slots, (size_t)n, NULL, SHMEM_CMP_EQ, 1), SIZE_MAX);\
		T_EQ(shmem_##N##_test_some(slots, (size_t)n, idx, NULL, SHMEM_CMP_EQ, 1), 0);\
		T_EQ(shmem_##N##_test_all(slots, (size_t)n, NULL, SHMEM_CMP_EQ, 1), 0);\
	}										\
	shmem_barrier_all();								\
	shmem_##N##_atomic_set_or_p(&slots[me], (T)1, 0);				\
	if (me == 0) {									\
		size_t i = shmem_##N##_wait_until_any(slots, (size_t)n, NULL, SHMEM_CMP_EQ, 1);\
		T_CHECK(i < (size_t)n, "any: %zu", i);					\
		size_t c = shmem_##N##_wait_until_some(slots, (size_t)n, idx, NULL,	\
						       SHMEM_CMP_EQ, 1);		\
		T_CHECK(c >= 1 && c <= (size_t)n, "some: %zu", c);			\
		for (size_t k = 0; k < c; k++)						\
			T_CHECK(idx[k] < (size_t)n && slots[idx[k]] == 1, "some idx %zu", idx[k]);\
		shmem_##N##_wait_until_all(slots, (size_t)n, NULL, SHMEM_CMP_EQ, 1);	\
		for (int p = 0; p < n; p++)						\
			T_EQ(slots[p], 1);						\
		T_EQ(shmem_##N##_test_all(slots, (size_t)n, NULL, SHMEM_CMP_EQ, 1), 1);\
		/* _any is fair (1.5): n tests and n waits give each slot twice */	\
		memset(idx, 0, (size_t)n * sizeof(size_t));				\
		for (int p = 0; p < 2 * n; p++) {					\
			size_t a = p % 2 ? shmem_##N##_test_any(slots, (size_t)n, NULL,	\
								SHMEM_CMP_EQ, 1)	\
					 : shmem_##N##_wait_until_any(slots, (size_t)n,\
								      NULL, SHMEM_CMP_EQ, 1);\
			T_CHECK(a < (size_t)n, "any: %zu", a);				\
			idx[a < (size_t)n ? a : 0]++;					\
		}									\
		for (int p = 0; p < n; p++)						\
			T_CHECK(idx[p] == 2, "any: slot %d returned %zu times of %d", p,	\
				idx[p], 2 * n);						\
		T_EQ(shmem_##N##_test_some(slots, (size_t)n, idx, NULL, SHMEM_CMP_EQ, 1), n);\
		for (int p = 0; p < n; p++)						\
			T_EQ(idx[p], p);						\
		/* status: all but the last left out */				\
		for (int p = 0; p < n - 1; p++)						\
			status[p] = 1;							\
		T_EQ(shmem_##N##_test_any(slots, (size_t)n, status, SHMEM_CMP_EQ, 1), n - 1);\
		T_EQ(shmem_##N##_wait_until_any(slots, (size_t)n, status, SHMEM_CMP_EQ, 1), n - 1);\
		status[n - 1] = 1;	/* everything left out */			\
		T_EQ(shmem_##N##_wait_until_any(slots, (size_t)n, status, SHMEM_CMP_EQ, 1),\
		     SIZE_MAX);								\
		T_EQ(shmem_##N##_wait_until_some(slots, (size_t)n, idx, status,	\
						 SHMEM_CMP_EQ, 1), 0);			\
		shmem_##N##_wait_until_all(slots, (size_t)n, status, SHMEM_CMP_EQ, 7);	\
		T_EQ(shmem_##N##_test_all(slots, (size_t)n, status, SHMEM_CMP_EQ, 7), 1);\
		memset(status, 0, (size_t)n * sizeof(int));				\
		/* vector: slot p against p + 1 */					\
		for (int p = 0; p < n; p++)						\
			vals[p] = (T)(p + 1);						\
		T_EQ(shmem_##N##_test_all_vector(slots, (size_t)n, NULL, SHMEM_CMP_LE,	\
						 vals), 1);				\
		T_EQ(shmem_##N##_test_all_vector(slots, (size_t)n, NULL, SHMEM_CMP_EQ,	\
						 vals), n == 1);			\
		T_EQ(shmem_##N##_test_any_vector(slots, (size_t)n, NULL, SHMEM_CMP_EQ,	\
						 vals), 0);				\
		T_EQ(shmem_##N##_test_some_vector(slots, (size_t)n, idx, NULL,		\
						  SHMEM_CMP_LT, vals), n - 1);		\
		shmem_##N##_wait_until_all_vector(slots, (size_t)n, NULL, SHMEM_CMP_LE,	\
						  vals);			\
		T_EQ(shmem_##N##_wait_until_any_vector(slots, (size_t)n, NULL,		\
						       SHMEM_CMP_EQ, vals), 0);		\
		T_EQ(shmem_##N##_wait_until_some_vector(slots, (size_t)n, idx, NULL,	\
							SHMEM_CMP_LE, vals), n);	\
		T_EQ(shmem_##N##_test_any_vector(slots, (size_t)n, NULL, SHMEM_CMP_EQ,	\
						 vals), 0);				\
	}										\
	shmem_barrier_all();								\
	/* Signed types: -1 is below 0; unsigned ones: the largest value. */		\
	*iv = (T)-1;									\
	T_EQ(shmem_##N##_test(iv, SHMEM_CMP_LT, (T)0), (T)-1 < (T)1);			\
	T_EQ(shmem_##N##_test(iv, SHMEM_CMP_GT, (T)1), !((T)-1 < (T)1));		\
	T_EQ(shmem_##N##_test(iv, SHMEM_CMP_GE, (T)-1), 1);				\
	T_EQ(shmem_##N##_test(iv, SHMEM_CMP_LE, (T)-2), 0);				\
	T_EQ(shmem_##N##_test(iv, SHMEM_CMP_NE, (T)-1), 0);				\
	shmem_barrier_all();								\
	free(vals);									\
	free(idx);									\
	free(status);									\
	shmem_free(slots);								\
	shmem_free(iv);									\
}

/* A slot is set with p (every type has it); the vector waits above read
 * it. */
#define shmem_short_atomic_set_or_p shmem_short_p
#define shmem_int_atomic_set_or_p shmem_int_p
#define shmem_long_atomic_set_or_p shmem_long_p
#define shmem_longlong_atomic_set_or_p shmem_longlong_p
#define shmem_ushort_atomic_set_or_p shmem_ushort_p
#define shmem_uint_atomic_set_or_p shmem_uint_p
#define shmem_ulong_atomic_set_or_p shmem_ulong_p
#define shmem_ulonglong_atomic_set_or_p shmem_ulonglong_p
#define shmem_int32_atomic_set_or_p shmem_int32_p
#define shmem_int64_atomic_set_or_p shmem_int64_p
#define shmem_uint32_atomic_set_or_p shmem_uint32_p
#define shmem_uint64_atomic_set_or_p shmem_uint64_p
#define shmem_size_atomic_set_or_p shmem_size_p
#define shmem_ptrdiff_atomic_set_or_p shmem_ptrdiff_p
SHMEM__P2P_TYPES(TEST_P2P)

int main(void)
{
	shmem_init();
	st_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	right = (me + 1) % n;
	left = (me + n - 1) % n;

	/* barrier_all completes the puts before it: data is there after. */
	{
		long *a = shmem_calloc((size_t)n, sizeof(long));
		size_t bad = 0;

		for (int r = 1; r <= 100; r++) {
			for (int p = 0; p < n; p++)
				shmem_long_p(&a[me], (long)r * 100 + me, p);
			shmem_barrier_all();
			for (int p = 0; p < n; p++)
				bad += a[p] != (long)r * 100 + p;
			shmem_barrier_all();
		}
		T_EQ(bad, 0);
		/* sync_all after a quiet: the same. */
		for (int r = 1; r <= 100; r++) {
			for (int p = 0; p < n; p++)
				shmem_long_put_nbi(&a[me], &(long){ -r * 100 - me }, 1, p);
			shmem_quiet();
			shmem_sync_all();
			for (int p = 0; p < n; p++)
				bad += a[p] != -(long)r * 100 - p;
			shmem_sync_all();
		}
		T_EQ(bad, 0);
		shmem_barrier_all();
		shmem_free(a);
	}
	st_case("shmem_barrier_all and quiet + shmem_sync_all: 100 rounds of all-to-all puts");

#define RUN_P2P(T, N) p2p_##N();
	SHMEM__P2P_TYPES(RUN_P2P)
	st_case("wait_until/test (+ _all/_any/_some, _vector, status, 1.4 wait) of the 14 types");

	/* The generic names. */
	{
		int *w = shmem_calloc(1, sizeof(int));

		shmem_barrier_all();
		shmem_p(w, me + 1, right);
		shmem_wait_until(w, SHMEM_CMP_EQ, left + 1);
		T_EQ(shmem_test(w, SHMEM_CMP_EQ, left + 1), 1);
		shmem_barrier_all();
		shmem_free(w);
	}
	st_case("C11 generic shmem_wait_until / shmem_test");

	/*
	 * The spec's shmem_test_any example (1.5): each PE sets its flag at
	 * every PE and takes them as they come, leaving out those it took; then
	 * the same without leaving any out: repeated calls must still give
	 * every flag (the lowest alone for 10 s is a failure).
	 */
	{
		int *flags = shmem_calloc((size_t)n, sizeof(int));
		int *status = calloc((size_t)n, sizeof(int));
		int *got = calloc((size_t)n, sizeof(int));
		int ncompleted = 0, seen = 0;
		size_t completed_idx;

		for (int i = 0; i < n; i++)
			shmem_atomic_set(&flags[me], 1, i);
		while (ncompleted < n) {
			completed_idx = shmem_test_any(flags, (size_t)n, status, SHMEM_CMP_EQ, 1);
			if (completed_idx != SIZE_MAX) {
				ncompleted++;
				status[completed_idx] = 1;
			}
		}
		T_EQ(shmem_test_any(flags, (size_t)n, status, SHMEM_CMP_EQ, 1), SIZE_MAX);
		for (time_t end = time(NULL) + 10; seen < n && time(NULL) < end;) {
			completed_idx = shmem_test_any(flags, (size_t)n, NULL, SHMEM_CMP_EQ, 1);
			if (completed_idx < (size_t)n && !got[completed_idx]++)
				seen++;
		}
		T_EQ(seen, n);
		shmem_barrier_all();
		free(got);
		free(status);
		shmem_free(flags);
	}
	st_case("the spec's shmem_test_any example; repeated test_any gives every flag");
	return st_done();
}
