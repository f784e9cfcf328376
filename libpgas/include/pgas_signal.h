/* SPDX-License-Identifier: MIT */
/*
 * pgas_signal.h - puts with a signal, and waits on local memory (included
 * by pgas.h).  As OpenSHMEM 1.5's shmem_put_signal, shmem_signal_fetch,
 * shmem_wait_until{,_all,_any,_some}{,_vector} and shmem_test*.
 *
 * pgas_put_with_signal(rank, dst, src, nbytes, sig_addr, signal, sig_op)
 * copies nbytes to dst at rank, then updates the 64-bit word sig_addr at
 * rank (an 8-byte aligned address of its segment) with signal:
 * PGAS_SIGNAL_SET stores it, PGAS_SIGNAL_ADD adds it atomically.  Whoever
 * sees the new signal value (a load with acquire, pgas_signal_fetch, a
 * wait below) sees the data: the update is a release.  Signal updates are
 * atomic with respect to each other and to atomic-domain operations of
 * type u64 on the same word.  _nb and _nbi complete as the RMA calls do.
 *
 * Waits and tests on local memory: the word(s) of this rank's memory that
 * peers update with puts, signals or atomics.  cmp: PGAS_CMP_*; the word is
 * read with acquire, signed for i32 and i64.  Waits poll this rank as
 * pgas_block_until does (handlers run), and in the block wait mode sleep
 * until a put, signal, atomic or active message to this rank arrives:
 * pgas_put_with_signal, atomics, pgas_put, pgas_put_nb, pgas_put_val and
 * pgas_memset ring the target's doorbell when it may sleep; _nbi puts at
 * the issuer's next sync or pgas_quiet.  Where the job never sleeps
 * (spin and yield modes) none of them costs anything for it.
 *   status (may be NULL): status[i] != 0 leaves ivars[i] out.
 *   _vector forms compare ivars[i] with values[i].
 *   pgas_wait_until_TYPE            one word                     PGAS_OK
 *   pgas_test_TYPE                  1 if it holds, else 0
 *   pgas_wait_until_all_TYPE        every word left in           PGAS_OK
 *   pgas_wait_until_any_TYPE        one word: *index             PGAS_OK
 *   pgas_wait_until_some_TYPE       every word that holds when
 *                                   one does: indices[0..*count) PGAS_OK
 *   pgas_test_all/any/some_TYPE     as above without waiting: 1 if the wait
 *                                   would have returned, else 0
 * With nothing left in (n 0, or every status set) all holds at once, any
 * gives *index SIZE_MAX and some *count 0, at once (as OpenSHMEM).
 Fairness of _any (OpenSHMEM 1.5: a series of calls eventually returns
 * every index whose condition holds): a thread's _any call on ivars scans
 * from the word after the one its last _any call on the same ivars
 * returned, round, so a thread that calls again and again returns each
 * word that keeps holding within n calls (all set: 0, 1, ..., n-1, 0, ...).
 * A thread remembers its last 8 arrays; another array's scan starts at a
 * pseudo-random word (still fair, with probability 1).  _some returns the
 * indices in increasing order.
 * Errors (< 0): NULL or misaligned words, an unknown cmp.
 * At PGAS_THREAD_SINGLE only peers can end a wait, so one that every
 * other rank has abandoned (all left, nothing in flight) ends the rank
 * with a message, as pgas_block_until does; at the other levels a thread
 * of this process may still write the word, and the wait goes on.
 */
#ifndef PGAS_SIGNAL_H
#define PGAS_SIGNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pgas_cmp {
	PGAS_CMP_EQ = 1, PGAS_CMP_NE, PGAS_CMP_GT, PGAS_CMP_GE, PGAS_CMP_LT, PGAS_CMP_LE,
};

enum pgas_signal_op {
	PGAS_SIGNAL_SET = 1,
	PGAS_SIGNAL_ADD = 2,
};

int pgas_put_with_signal(unsigned rank, void *dst, const void *src, size_t nbytes,
			 uint64_t *sig_addr, uint64_t signal, int sig_op);
int pgas_put_with_signal_nb(pgas_handle_t *handle, unsigned rank, void *dst, const void *src,
			    size_t nbytes, uint64_t *sig_addr, uint64_t signal, int sig_op);
int pgas_put_with_signal_nbi(unsigned rank, void *dst, const void *src, size_t nbytes,
			     uint64_t *sig_addr, uint64_t signal, int sig_op);
/* *value = the local signal word's value, read with acquire. */
int pgas_signal_fetch(const uint64_t *sig_addr, uint64_t *value);

/* What a wait waits for (pgas__wait_mem's 'kind'). */
#define PGAS__WM_ONE 0
#define PGAS__WM_ALL 1
#define PGAS__WM_ANY 2
#define PGAS__WM_SOME 3
/*
 * The one implementation of every wait and test below.  values: one value
 * (vector 0) or n.  out: ANY's index, SOME's indices; count: SOME's count.
 * Returns PGAS_OK (wait), 1 or 0 (test), or an error naming call.
 */
int pgas__wait_mem(const char *call, const void *ivars, unsigned dt, size_t n,
		   const int *status, int cmp, const void *values, int vector, int kind,
		   int test, size_t *out, size_t *count);
/*
 * The _any fairness above, for a layer's own scans (OpenSHMEM's 16-bit
 * words): the first index in [0, n) to look at for ivars, and what a
 * scan returned (the calling thread's memory of ivars).
 */
size_t pgas__any_start(const void *ivars, size_t n);
void pgas__any_returned(const void *ivars, size_t index);

#define PGAS__WAITS(sfx, T, DT)								\
static inline int pgas_wait_until_##sfx(const T *ivar, int cmp, T value)		\
{											\
	return pgas__wait_mem("pgas_wait_until_" #sfx, ivar, DT, 1, NULL, cmp, &value,	\
			      0, PGAS__WM_ONE, 0, NULL, NULL);				\
}											\
static inline int pgas_test_##sfx(const T *ivar, int cmp, T value)			\
{											\
	return pgas__wait_mem("pgas_test_" #sfx, ivar, DT, 1, NULL, cmp, &value,	\
			      0, PGAS__WM_ONE, 1, NULL, NULL);				\
}											\
static inline int pgas_wait_until_all_##sfx(const T *ivars, size_t n, const int *status,\
					     int cmp, T value)				\
{											\
	return pgas__wait_mem("pgas_wait_until_all_" #sfx, ivars, DT, n, status, cmp,	\
			      &value, 0, PGAS__WM_ALL, 0, NULL, NULL);			\
}											\
static inline int pgas_wait_until_any_##sfx(const T *ivars, size_t n, const int *status,\
					     int cmp, T value, size_t *index)		\
{											\
	return pgas__wait_mem("pgas_wait_until_any_" #sfx, ivars, DT, n, status, cmp,	\
			      &value, 0, PGAS__WM_ANY, 0, index, NULL);			\
}											\
static inline int pgas_wait_until_some_##sfx(const T *ivars, size_t n, size_t *indices,\
					      size_t *count, const int *status, int cmp,	\
					      T value)					\
{											\
	return pgas__wait_mem("pgas_wait_until_some_" #sfx, ivars, DT, n, status, cmp,	\
			      &value, 0, PGAS__WM_SOME, 0, indices, count);		\
}											\
static inline int pgas_test_all_##sfx(const T *ivars, size_t n, const int *status,	\
				       int cmp, T value)				\
{											\
	return pgas__wait_mem("pgas_test_all_" #sfx, ivars, DT, n, status, cmp, &value,\
			      0, PGAS__WM_ALL, 1, NULL, NULL);				\
}											\
static inline int pgas_test_any_##sfx(const T *ivars, size_t n, const int *status,	\
				       int cmp, T value, size_t *index)			\
{											\
	return pgas__wait_mem("pgas_test_any_" #sfx, ivars, DT, n, status, cmp, &value,\
			      0, PGAS__WM_ANY, 1, index, NULL);				\
}											\
static inline int pgas_test_some_##sfx(const T *ivars, size_t n, size_t *indices,	\
					size_t *count, const int *status, int cmp, T value)\
{											\
	return pgas__wait_mem("pgas_test_some_" #sfx, ivars, DT, n, status, cmp,	\
			      &value, 0, PGAS__WM_SOME, 1, indices, count);		\
}											\
static inline int pgas_wait_until_all_vector_##sfx(const T *ivars, size_t n,		\
						    const int *status, int cmp,	\
						    const T *values)			\
{											\
	return pgas__wait_mem("pgas_wait_until_all_vector_" #sfx, ivars, DT, n, status,\
			      cmp, values, 1, PGAS__WM_ALL, 0, NULL, NULL);		\
}											\
static inline int pgas_wait_until_any_vector_##sfx(const T *ivars, size_t n,		\
						    const int *status, int cmp,	\
						    const T *values, size_t *index)	\
{											\
	return pgas__wait_mem("pgas_wait_until_any_vector_" #sfx, ivars, DT, n, status,\
			      cmp, values, 1, PGAS__WM_ANY, 0, index, NULL);		\
}											\
static inline int pgas_wait_until_some_vector_##sfx(const T *ivars, size_t n,		\
						     size_t *indices, size_t *count,	\
						     const int *status, int cmp,	\
						     const T *values)			\
{											\
	return pgas__wait_mem("pgas_wait_until_some_vector_" #sfx, ivars, DT, n, status,\
			      cmp, values, 1, PGAS__WM_SOME, 0, indices, count);	\
}											\
static inline int pgas_test_all_vector_##sfx(const T *ivars, size_t n,			\
					      const int *status, int cmp, const T *values)\
{											\
	return pgas__wait_mem("pgas_test_all_vector_" #sfx, ivars, DT, n, status, cmp,	\
			      values, 1, PGAS__WM_ALL, 1, NULL, NULL);			\
}											\
static inline int pgas_test_any_vector_##sfx(const T *ivars, size_t n,			\
					      const int *status, int cmp,		\
					      const T *values, size_t *index)		\
{											\
	return pgas__wait_mem("pgas_test_any_vector_" #sfx, ivars, DT, n, status, cmp,	\
			      values, 1, PGAS__WM_ANY, 1, index, NULL);			\
}											\
static inline int pgas_test_some_vector_##sfx(const T *ivars, size_t n,		\
					       size_t *indices, size_t *count,		\
					       const int *status, int cmp,		\
					       const T *values)				\
{											\
	return pgas__wait_mem("pgas_test_some_vector_" #sfx, ivars, DT, n, status, cmp,\
			      values, 1, PGAS__WM_SOME, 1, indices, count);		\
}

PGAS__WAITS(i32, int32_t, PGAS_DT_I32)
PGAS__WAITS(u32, uint32_t, PGAS_DT_U32)
PGAS__WAITS(i64, int64_t, PGAS_DT_I64)
PGAS__WAITS(u64, uint64_t, PGAS_DT_U64)
#undef PGAS__WAITS

#ifdef __cplusplus
}
#endif

#endif /* PGAS_SIGNAL_H */
