/* SPDX-License-Identifier: MIT */
/*
 * shmem.h - OpenSHMEM 1.5 over libpgas (docs/shmem.md says what is
 * implemented and what is not yet).
 *
 * A thin layer: the symmetric heap lives in this PE's libpgas segment, a
 * symmetric address is translated for a peer by its offset in the segment,
 * RMA is pgas_put/pgas_get, AMOs are pgas_ad_op_* on atomic domains made at
 * shmem_init, waits are pgas_wait_until_*, barriers pgas_barrier.  The
 * layer uses libpgas's public API only.
 *
 * Errors: the spec leaves them undefined; here a call given what it cannot
 * do (a non-symmetric address, a PE out of range, a call before shmem_init)
 * prints "shmem: <call>: <why>" on stderr and ends the whole job with exit
 * code 1 (pgas_global_exit).  Collective allocations that PEs call with
 * different sizes return NULL on every PE with a message from PE 0.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants (OpenSHMEM 1.5, section 6 / 9) ------------------------------ */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "libpgas OpenSHMEM"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Comparison operators of the waits (the values are libpgas's). */
#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_GE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_LE 6
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 1
#define SHMEM_SIGNAL_ADD 2

/* shmem_malloc_with_hints: accepted, no effect yet. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* pSync / pWrk sizes of the 1.4 active-set collectives.  This layer
 * synchronises them through a scratch area of its own (docs/shmem.md): it
 * reads no pSync or pWrk and writes none, so every size works; these are
 * what programs declare. */
#define SHMEM_SYNC_VALUE 0L
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define SHMEM_BCAST_SYNC_SIZE 64
#define SHMEM_REDUCE_SYNC_SIZE 64
#define SHMEM_BARRIER_SYNC_SIZE 64
#define SHMEM_COLLECT_SYNC_SIZE 64
#define SHMEM_ALLTOALL_SYNC_SIZE 64
#define SHMEM_ALLTOALLS_SYNC_SIZE 64
#define SHMEM_SYNC_SIZE 64
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 64
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- setup, exit and query ------------------------------------------------- */

void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
#if defined(__GNUC__) || defined(__clang__)
void shmem_global_exit(int status) __attribute__((noreturn));
#else
void shmem_global_exit(int status);
#endif
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_pcontrol(const int level, ...);

/* Deprecated (1.2) names, still in many programs. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* Cache management (deprecated; the spec keeps them): no effect here, the
 * memory is coherent. */
void shmem_set_cache_inv(void);
void shmem_set_cache_line_inv(void *dest);
void shmem_clear_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

/* ---- symmetric heap -------------------------------------------------------- */

void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);

/* ---- type tables ------------------------------------------------------------ */

/* Standard RMA types (1.5 table 5): X(TYPE, TYPENAME). */
#define SHMEM__RMA_TYPES(X)							\
	X(float, float) X(double, double) X(long double, longdouble)		\
	X(char, char) X(signed char, schar) X(short, short) X(int, int)		\
	X(long, long) X(long long, longlong) X(unsigned char, uchar)		\
	X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)	\
	X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)	\
	X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)			\
	X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)		\
	X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Standard AMO types (table 6; also the bitwise ones where B is 1). */
#define SHMEM__AMO_TYPES(X)							\
	X(int, int, 0) X(long, long, 0) X(long long, longlong, 0)		\
	X(unsigned int, uint, 1) X(unsigned long, ulong, 1)			\
	X(unsigned long long, ulonglong, 1) X(int32_t, int32, 1)		\
	X(int64_t, int64, 1) X(uint32_t, uint32, 1) X(uint64_t, uint64, 1)	\
	X(size_t, size, 0) X(ptrdiff_t, ptrdiff, 0)
/* Extended AMO types beyond the standard ones: fetch, set, swap only. */
#define SHMEM__EXT_AMO_TYPES(X) X(float, float, 0) X(double, double, 0)

/* Point-to-point synchronization types (table 9). */
#define SHMEM__P2P_TYPES(X)							\
	X(short, short) X(int, int) X(long, long) X(long long, longlong)	\
	X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)	\
	X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)	\
	X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)			\
	X(ptrdiff_t, ptrdiff)

/* ---- contexts ------------------------------------------------------------- */

/* A context: an ordering and completion domain of its own (docs/shmem.md,
 * "Contexts").  The handle is opaque; SHMEM_CTX_INVALID is NULL. */
typedef struct shmem__ctx *shmem_ctx_t;
extern struct shmem__ctx shmem__ctx_default;
#define SHMEM_CTX_DEFAULT (&shmem__ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);

/* shmem_NAME(args) and its context form shmem_ctx_NAME(ctx, args). */
#define SHMEM__D2(R, NAME, ...)								\
R shmem_##NAME(__VA_ARGS__);								\
R shmem_ctx_##NAME(shmem_ctx_t ctx, __VA_ARGS__);

/* ---- RMA ------------------------------------------------------------------- */

#define SHMEM__RMA_DECL(T, N)								\
SHMEM__D2(void, N##_put, T *dest, const T *source, size_t nelems, int pe)		\
SHMEM__D2(void, N##_get, T *dest, const T *source, size_t nelems, int pe)		\
SHMEM__D2(void, N##_put_nbi, T *dest, const T *source, size_t nelems, int pe)		\
SHMEM__D2(void, N##_get_nbi, T *dest, const T *source, size_t nelems, int pe)		\
SHMEM__D2(void, N##_p, T *dest, T value, int pe)					\
SHMEM__D2(T, N##_g, const T *source, int pe)						\
SHMEM__D2(void, N##_iput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,	\
	  size_t nelems, int pe)							\
SHMEM__D2(void, N##_iget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,	\
	  size_t nelems, int pe)							\
SHMEM__D2(void, N##_put_signal, T *dest, const T *source, size_t nelems,		\
	  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)			\
SHMEM__D2(void, N##_put_signal_nbi, T *dest, const T *source, size_t nelems,		\
	  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
SHMEM__RMA_TYPES(SHMEM__RMA_DECL)
#undef SHMEM__RMA_DECL

#define SHMEM__SIZE_DECL(S)								\
SHMEM__D2(void, put##S, void *dest, const void *source, size_t nelems, int pe)		\
SHMEM__D2(void, get##S, void *dest, const void *source, size_t nelems, int pe)		\
SHMEM__D2(void, put##S##_nbi, void *dest, const void *source, size_t nelems, int pe)	\
SHMEM__D2(void, get##S##_nbi, void *dest, const void *source, size_t nelems, int pe)	\
SHMEM__D2(void, iput##S, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,	\
	  size_t nelems, int pe)							\
SHMEM__D2(void, iget##S, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,	\
	  size_t nelems, int pe)							\
SHMEM__D2(void, put##S##_signal, void *dest, const void *source, size_t nelems,		\
	  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)			\
SHMEM__D2(void, put##S##_signal_nbi, void *dest, const void *source, size_t nelems,	\
	  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
SHMEM__SIZE_DECL(8)
SHMEM__SIZE_DECL(16)
SHMEM__SIZE_DECL(32)
SHMEM__SIZE_DECL(64)
SHMEM__SIZE_DECL(128)
#undef SHMEM__SIZE_DECL

SHMEM__D2(void, putmem, void *dest, const void *source, size_t nelems, int pe)
SHMEM__D2(void, getmem, void *dest, const void *source, size_t nelems, int pe)
SHMEM__D2(void, putmem_nbi, void *dest, const void *source, size_t nelems, int pe)
SHMEM__D2(void, getmem_nbi, void *dest, const void *source, size_t nelems, int pe)

SHMEM__D2(void, putmem_signal, void *dest, const void *source, size_t nelems,
	  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
SHMEM__D2(void, putmem_signal_nbi, void *dest, const void *source, size_t nelems,
	  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- memory ordering ---------------------------------------------------------- */

void shmem_fence(void);
void shmem_quiet(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ---- AMOs ------------------------------------------------------------------- */

#define SHMEM__AMO_FSS_DECL(T, N, B)							\
SHMEM__D2(T, N##_atomic_fetch, const T *source, int pe)				\
SHMEM__D2(void, N##_atomic_set, T *dest, T value, int pe)				\
SHMEM__D2(T, N##_atomic_swap, T *dest, T value, int pe)				\
SHMEM__D2(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe)		\
SHMEM__D2(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe)
#define SHMEM__AMO_STD_DECL(T, N, B)							\
SHMEM__AMO_FSS_DECL(T, N, B)								\
SHMEM__D2(T, N##_atomic_compare_swap, T *dest, T cond, T value, int pe)		\
SHMEM__D2(T, N##_atomic_fetch_inc, T *dest, int pe)					\
SHMEM__D2(void, N##_atomic_inc, T *dest, int pe)					\
SHMEM__D2(T, N##_atomic_fetch_add, T *dest, T value, int pe)				\
SHMEM__D2(void, N##_atomic_add, T *dest, T value, int pe)				\
SHMEM__D2(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value, int pe)\
SHMEM__D2(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe)			\
SHMEM__D2(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe)
#define SHMEM__AMO_BIT_DECL(T, N)							\
SHMEM__D2(T, N##_atomic_fetch_and, T *dest, T value, int pe)				\
SHMEM__D2(void, N##_atomic_and, T *dest, T value, int pe)				\
SHMEM__D2(T, N##_atomic_fetch_or, T *dest, T value, int pe)				\
SHMEM__D2(void, N##_atomic_or, T *dest, T value, int pe)				\
SHMEM__D2(T, N##_atomic_fetch_xor, T *dest, T value, int pe)				\
SHMEM__D2(void, N##_atomic_xor, T *dest, T value, int pe)				\
SHMEM__D2(void, N##_atomic_fetch_and_nbi, T *fetch, T *dest, T value, int pe)		\
SHMEM__D2(void, N##_atomic_fetch_or_nbi, T *fetch, T *dest, T value, int pe)		\
SHMEM__D2(void, N##_atomic_fetch_xor_nbi, T *fetch, T *dest, T value, int pe)
/* Bitwise AMOs: the types of table 7 (unsigned and fixed-width). */
SHMEM__AMO_TYPES(SHMEM__AMO_STD_DECL)
SHMEM__EXT_AMO_TYPES(SHMEM__AMO_FSS_DECL)
SHMEM__AMO_BIT_DECL(unsigned int, uint)
SHMEM__AMO_BIT_DECL(unsigned long, ulong)
SHMEM__AMO_BIT_DECL(unsigned long long, ulonglong)
SHMEM__AMO_BIT_DECL(int32_t, int32)
SHMEM__AMO_BIT_DECL(int64_t, int64)
SHMEM__AMO_BIT_DECL(uint32_t, uint32)
SHMEM__AMO_BIT_DECL(uint64_t, uint64)

/* Deprecated (1.3) AMO names. */
#define SHMEM__AMO_OLD_DECL(T, N)							\
T shmem_##N##_fetch(const T *source, int pe);						\
void shmem_##N##_set(T *dest, T value, int pe);					\
T shmem_##N##_swap(T *dest, T value, int pe);
#define SHMEM__AMO_OLD_STD_DECL(T, N)							\
SHMEM__AMO_OLD_DECL(T, N)								\
T shmem_##N##_cswap(T *dest, T cond, T value, int pe);				\
T shmem_##N##_finc(T *dest, int pe);							\
void shmem_##N##_inc(T *dest, int pe);						\
T shmem_##N##_fadd(T *dest, T value, int pe);						\
void shmem_##N##_add(T *dest, T value, int pe);
SHMEM__AMO_OLD_STD_DECL(int, int)
SHMEM__AMO_OLD_STD_DECL(long, long)
SHMEM__AMO_OLD_STD_DECL(long long, longlong)
SHMEM__AMO_OLD_DECL(float, float)
SHMEM__AMO_OLD_DECL(double, double)
#undef SHMEM__AMO_OLD_DECL
#undef SHMEM__AMO_OLD_STD_DECL

/* ---- barriers and point-to-point synchronization -------------------------------- */

void shmem_barrier_all(void);
void shmem_sync_all(void);

#define SHMEM__P2P_DECL(T, N)								\
void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);				\
void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,	\
				T cmp_value);						\
size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,\
				  T cmp_value);						\
size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,		\
				   const int *status, int cmp, T cmp_value);		\
void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,	\
				       int cmp, T *cmp_values);				\
size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,	\
					 int cmp, T *cmp_values);			\
size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,	\
					  const int *status, int cmp, T *cmp_values);	\
int shmem_##N##_test(T *ivar, int cmp, T cmp_value);					\
int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,		\
			 T cmp_value);							\
size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,	\
			    T cmp_value);						\
size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,		\
			     const int *status, int cmp, T cmp_value);			\
int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,	\
				T *cmp_values);						\
size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,	\
				   int cmp, T *cmp_values);				\
size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,	\
				    const int *status, int cmp, T *cmp_values);	\
void shmem_##N##_wait(T *ivar, T cmp_value);
SHMEM__P2P_TYPES(SHMEM__P2P_DECL)
#undef SHMEM__P2P_DECL
/* Deprecated forms on long (C11 programs get the generic shmem_wait_until). */
void shmem_wait_until(long *ivar, int cmp, long cmp_value);
void shmem_wait(long *ivar, long cmp_value);

/* ---- distributed locks ----------------------------------------------------------- */

/* lock: a symmetric long, 0 on every PE before first use (PE 0's copy
 * holds a ticket lock).  test_lock: 0 when it took the lock, else 1. */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- teams (shmem/team.c) ---------------------------------------------------- */

/* A team handle: a pointer to the layer's private state.  A handle stays
 * refused (not reused) once its team is destroyed. */
typedef struct shmem__team *shmem_team_t;
extern struct shmem__team shmem__team_world, shmem__team_shared;
#define SHMEM_TEAM_WORLD (&shmem__team_world)
#define SHMEM_TEAM_SHARED (&shmem__team_shared)	/* the PEs shmem_ptr reaches from here */
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

typedef struct {
	int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
			     const shmem_team_config_t *config, long config_mask,
			     shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
			const shmem_team_config_t *xaxis_config, long xaxis_mask,
			shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
			long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
int shmem_team_sync(shmem_team_t team);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
/* A context whose RMA and AMO calls take PEs of team; it is destroyed with
 * the team. */
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- collectives (shmem/coll.c) ----------------------------------------------- */

/* Reduction types (1.5's reduction table): X(TYPE, TYPENAME) per operation family. */
/* The bitwise reductions: 1.5's unsigned and fixed-size types, and the
 * signed short, int, long and long long of the 1.4 *_to_all (as other
 * implementations give them, and their generic names reach them). */
#define SHMEM__REDUCE_BIT_TYPES(X)							\
	X(short, short) X(int, int) X(long, long) X(long long, longlong)		\
	X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)	\
	X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)	\
	X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)	\
	X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEM__REDUCE_CMP_TYPES(X)							\
	X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)	\
	X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar)		\
	X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)		\
	X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)		\
	X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)	\
	X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(float, float)	\
	X(double, double) X(long double, longdouble)
#define SHMEM__REDUCE_ARITH_TYPES(X)							\
	SHMEM__REDUCE_CMP_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

/* 1.4 *_to_all types. */
#define SHMEM__TOALL_BIT_TYPES(X)							\
	X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM__TOALL_CMP_TYPES(X)							\
	SHMEM__TOALL_BIT_TYPES(X) X(float, float) X(double, double)			\
	X(long double, longdouble)
#define SHMEM__TOALL_ARITH_TYPES(X)							\
	SHMEM__TOALL_CMP_TYPES(X) X(float _Complex, complexf) X(double _Complex, complexd)

/* Team collectives (1.5): 0 on success, nonzero for an invalid team. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
		       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
		       ptrdiff_t sst, size_t nelems);

#define SHMEM__COLL_DECL(T, N)								\
int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,	\
			  int PE_root);							\
int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);	\
int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);	\
int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);	\
int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,	\
			  ptrdiff_t sst, size_t nelems);
SHMEM__RMA_TYPES(SHMEM__COLL_DECL)
#undef SHMEM__COLL_DECL

#define SHMEM__RED_DECL1(T, N, OP)							\
int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEM__RED_AND(T, N) SHMEM__RED_DECL1(T, N, and)
#define SHMEM__RED_OR(T, N) SHMEM__RED_DECL1(T, N, or)
#define SHMEM__RED_XOR(T, N) SHMEM__RED_DECL1(T, N, xor)
#define SHMEM__RED_MAX(T, N) SHMEM__RED_DECL1(T, N, max)
#define SHMEM__RED_MIN(T, N) SHMEM__RED_DECL1(T, N, min)
#define SHMEM__RED_SUM(T, N) SHMEM__RED_DECL1(T, N, sum)
#define SHMEM__RED_PROD(T, N) SHMEM__RED_DECL1(T, N, prod)
SHMEM__REDUCE_BIT_TYPES(SHMEM__RED_AND)
SHMEM__REDUCE_BIT_TYPES(SHMEM__RED_OR)
SHMEM__REDUCE_BIT_TYPES(SHMEM__RED_XOR)
SHMEM__REDUCE_CMP_TYPES(SHMEM__RED_MAX)
SHMEM__REDUCE_CMP_TYPES(SHMEM__RED_MIN)
SHMEM__REDUCE_ARITH_TYPES(SHMEM__RED_SUM)
SHMEM__REDUCE_ARITH_TYPES(SHMEM__RED_PROD)
#undef SHMEM__RED_AND
#undef SHMEM__RED_OR
#undef SHMEM__RED_XOR
#undef SHMEM__RED_MAX
#undef SHMEM__RED_MIN
#undef SHMEM__RED_SUM
#undef SHMEM__RED_PROD
#undef SHMEM__RED_DECL1

/* Active-set collectives (1.4): every PE of the set PE_start + i <<
 * logPE_stride (i < PE_size) calls them; pSync / pWrk are not touched. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHMEM__AS_DECL(S)								\
void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root,	\
			int PE_start, int logPE_stride, int PE_size, long *pSync);	\
void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start,	\
		      int logPE_stride, int PE_size, long *pSync);			\
void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start,	\
		       int logPE_stride, int PE_size, long *pSync);			\
void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start,	\
		       int logPE_stride, int PE_size, long *pSync);			\
void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,	\
			size_t nelems, int PE_start, int logPE_stride, int PE_size,	\
			long *pSync);
SHMEM__AS_DECL(32)
SHMEM__AS_DECL(64)
#undef SHMEM__AS_DECL

#define SHMEM__TOALL_DECL1(T, N, OP)							\
void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,	\
			       int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define SHMEM__TOALL_AND(T, N) SHMEM__TOALL_DECL1(T, N, and)
#define SHMEM__TOALL_OR(T, N) SHMEM__TOALL_DECL1(T, N, or)
#define SHMEM__TOALL_XOR(T, N) SHMEM__TOALL_DECL1(T, N, xor)
#define SHMEM__TOALL_MAX(T, N) SHMEM__TOALL_DECL1(T, N, max)
#define SHMEM__TOALL_MIN(T, N) SHMEM__TOALL_DECL1(T, N, min)
#define SHMEM__TOALL_SUM(T, N) SHMEM__TOALL_DECL1(T, N, sum)
#define SHMEM__TOALL_PROD(T, N) SHMEM__TOALL_DECL1(T, N, prod)
SHMEM__TOALL_BIT_TYPES(SHMEM__TOALL_AND)
SHMEM__TOALL_BIT_TYPES(SHMEM__TOALL_OR)
SHMEM__TOALL_BIT_TYPES(SHMEM__TOALL_XOR)
SHMEM__TOALL_CMP_TYPES(SHMEM__TOALL_MAX)
SHMEM__TOALL_CMP_TYPES(SHMEM__TOALL_MIN)
SHMEM__TOALL_ARITH_TYPES(SHMEM__TOALL_SUM)
SHMEM__TOALL_ARITH_TYPES(SHMEM__TOALL_PROD)
#undef SHMEM__TOALL_AND
#undef SHMEM__TOALL_OR
#undef SHMEM__TOALL_XOR
#undef SHMEM__TOALL_MAX
#undef SHMEM__TOALL_MIN
#undef SHMEM__TOALL_SUM
#undef SHMEM__TOALL_PROD
#undef SHMEM__TOALL_DECL1

/* ---- C11 type-generic interfaces ------------------------------------------------- */

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
/*
 * The standard C types only: int8_t etc. are the same types as some of
 * them, and _Generic takes each type once.  Each RMA and AMO name takes an
 * optional context first (1.5): shmem_put(dest, src, n, pe) or
 * shmem_put(ctx, dest, src, n, pe).  The argument count picks the form
 * (SHMEM__G's K is the count without ctx); the type of the first
 * pointer after the context picks the function.
 */
#define SHMEM__RMA_FN(P, F, x)								\
	_Generic(*(x),									\
		float: P##float_##F, double: P##double_##F,				\
		long double: P##longdouble_##F, char: P##char_##F,			\
		signed char: P##schar_##F, short: P##short_##F,				\
		int: P##int_##F, long: P##long_##F,					\
		long long: P##longlong_##F, unsigned char: P##uchar_##F,		\
		unsigned short: P##ushort_##F, unsigned int: P##uint_##F,		\
		unsigned long: P##ulong_##F,						\
		unsigned long long: P##ulonglong_##F)
#define SHMEM__AMO_FN(P, F, x)								\
	_Generic(*(x),									\
		int: P##int_##F, long: P##long_##F,					\
		long long: P##longlong_##F, unsigned int: P##uint_##F,			\
		unsigned long: P##ulong_##F,						\
		unsigned long long: P##ulonglong_##F)
#define SHMEM__EXT_FN(P, F, x)								\
	_Generic(*(x),									\
		float: P##float_##F, double: P##double_##F,				\
		int: P##int_##F, long: P##long_##F,					\
		long long: P##longlong_##F, unsigned int: P##uint_##F,			\
		unsigned long: P##ulong_##F,						\
		unsigned long long: P##ulonglong_##F)
/* The bitwise types: int32_t and int64_t are int and long (LP64). */
#define SHMEM__BIT_FN(P, F, x)								\
	_Generic(*(x),									\
		int: P##int32_##F, long: P##int64_##F,					\
		unsigned int: P##uint_##F, unsigned long: P##ulong_##F,		\
		unsigned long long: P##ulonglong_##F)

#define SHMEM__FIRST(x, ...) x
#define SHMEM__CAT(a, b) SHMEM__CAT_(a, b)
#define SHMEM__CAT_(a, b) a##b
#define SHMEM__NARG(...) SHMEM__NARG_(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SHMEM__NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, n, ...) n
/* Without a context, and with one. */
#define SHMEM__GX(SEL, F, ...) SHMEM__##SEL##_FN(shmem_, F, SHMEM__FIRST(__VA_ARGS__, 0))(__VA_ARGS__)
#define SHMEM__GC(SEL, F, ctx, ...)							\
	SHMEM__##SEL##_FN(shmem_ctx_, F, SHMEM__FIRST(__VA_ARGS__, 0))(ctx, __VA_ARGS__)
#define SHMEM__W_2_2 SHMEM__GX
#define SHMEM__W_2_3 SHMEM__GC
#define SHMEM__W_3_3 SHMEM__GX
#define SHMEM__W_3_4 SHMEM__GC
#define SHMEM__W_4_4 SHMEM__GX
#define SHMEM__W_4_5 SHMEM__GC
#define SHMEM__W_5_5 SHMEM__GX
#define SHMEM__W_5_6 SHMEM__GC
#define SHMEM__W_6_6 SHMEM__GX
#define SHMEM__W_6_7 SHMEM__GC
#define SHMEM__W_7_7 SHMEM__GX
#define SHMEM__W_7_8 SHMEM__GC
#define SHMEM__G(SEL, F, K, ...)							\
	SHMEM__CAT(SHMEM__W_##K##_, SHMEM__NARG(__VA_ARGS__))(SEL, F, __VA_ARGS__)

#define shmem_put(...) SHMEM__G(RMA, put, 4, __VA_ARGS__)
#define shmem_get(...) SHMEM__G(RMA, get, 4, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEM__G(RMA, put_nbi, 4, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEM__G(RMA, get_nbi, 4, __VA_ARGS__)
#define shmem_p(...) SHMEM__G(RMA, p, 3, __VA_ARGS__)
#define shmem_g(...) SHMEM__G(RMA, g, 2, __VA_ARGS__)
#define shmem_iput(...) SHMEM__G(RMA, iput, 6, __VA_ARGS__)
#define shmem_iget(...) SHMEM__G(RMA, iget, 6, __VA_ARGS__)
#define shmem_put_signal(...) SHMEM__G(RMA, put_signal, 7, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMEM__G(RMA, put_signal_nbi, 7, __VA_ARGS__)

#define shmem_atomic_fetch(...) SHMEM__G(EXT, atomic_fetch, 2, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEM__G(EXT, atomic_set, 3, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEM__G(EXT, atomic_swap, 3, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SHMEM__G(EXT, atomic_fetch_nbi, 3, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SHMEM__G(EXT, atomic_swap_nbi, 4, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) SHMEM__G(AMO, atomic_compare_swap, 4, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEM__G(AMO, atomic_fetch_inc, 2, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEM__G(AMO, atomic_inc, 2, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMEM__G(AMO, atomic_fetch_add, 3, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEM__G(AMO, atomic_add, 3, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) SHMEM__G(AMO, atomic_compare_swap_nbi, 5, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) SHMEM__G(AMO, atomic_fetch_inc_nbi, 3, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) SHMEM__G(AMO, atomic_fetch_add_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMEM__G(BIT, atomic_fetch_and, 3, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEM__G(BIT, atomic_and, 3, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEM__G(BIT, atomic_fetch_or, 3, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEM__G(BIT, atomic_or, 3, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEM__G(BIT, atomic_fetch_xor, 3, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEM__G(BIT, atomic_xor, 3, __VA_ARGS__)

/* The deprecated 1.3 generic names: the 1.4 atomic calls (no context), for
 * every type those take. */
#define shmem_add(...) SHMEM__GX(AMO, atomic_add, __VA_ARGS__)
#define shmem_fadd(...) SHMEM__GX(AMO, atomic_fetch_add, __VA_ARGS__)
#define shmem_inc(...) SHMEM__GX(AMO, atomic_inc, __VA_ARGS__)
#define shmem_finc(...) SHMEM__GX(AMO, atomic_fetch_inc, __VA_ARGS__)
#define shmem_cswap(...) SHMEM__GX(AMO, atomic_compare_swap, __VA_ARGS__)
#define shmem_fetch(...) SHMEM__GX(EXT, atomic_fetch, __VA_ARGS__)
#define shmem_set(...) SHMEM__GX(EXT, atomic_set, __VA_ARGS__)
#define shmem_swap(...) SHMEM__GX(EXT, atomic_swap, __VA_ARGS__)

/* shmem_sync: the team form (1.5) or the 1.4 active-set one, by the
 * number of arguments. */
#define SHMEM__SYNC_1 shmem_team_sync
#define SHMEM__SYNC_4 (shmem_sync)
#define shmem_sync(...) SHMEM__CAT(SHMEM__SYNC_, SHMEM__NARG(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) SHMEM__G(BIT, atomic_fetch_and_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) SHMEM__G(BIT, atomic_fetch_or_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) SHMEM__G(BIT, atomic_fetch_xor_nbi, 4, __VA_ARGS__)

#define SHMEM__GEN_P2P(F, ivars, ...)							\
	_Generic(*(ivars),								\
		short: shmem_short_##F, int: shmem_int_##F, long: shmem_long_##F,	\
		long long: shmem_longlong_##F, unsigned short: shmem_ushort_##F,	\
		unsigned int: shmem_uint_##F, unsigned long: shmem_ulong_##F,		\
		unsigned long long: shmem_ulonglong_##F)(ivars, __VA_ARGS__)
#define shmem_wait_until(ivar, ...) SHMEM__GEN_P2P(wait_until, ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...) SHMEM__GEN_P2P(wait_until_all, ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) SHMEM__GEN_P2P(wait_until_any, ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) SHMEM__GEN_P2P(wait_until_some, ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) SHMEM__GEN_P2P(wait_until_all_vector, ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) SHMEM__GEN_P2P(wait_until_any_vector, ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) SHMEM__GEN_P2P(wait_until_some_vector, ivars, __VA_ARGS__)
#define shmem_test(ivar, ...) SHMEM__GEN_P2P(test, ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...) SHMEM__GEN_P2P(test_all, ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) SHMEM__GEN_P2P(test_any, ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SHMEM__GEN_P2P(test_some, ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...) SHMEM__GEN_P2P(test_all_vector, ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...) SHMEM__GEN_P2P(test_any_vector, ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...) SHMEM__GEN_P2P(test_some_vector, ivars, __VA_ARGS__)
/* Collectives: the standard C types (and the complex ones for sum / prod). */
#define SHMEM__GEN_COLL(F, team, dest, ...)						\
	_Generic(*(dest),								\
		float: shmem_float_##F, double: shmem_double_##F,			\
		long double: shmem_longdouble_##F, char: shmem_char_##F,		\
		signed char: shmem_schar_##F, short: shmem_short_##F,			\
		int: shmem_int_##F, long: shmem_long_##F,				\
		long long: shmem_longlong_##F, unsigned char: shmem_uchar_##F,		\
		unsigned short: shmem_ushort_##F, unsigned int: shmem_uint_##F,	\
		unsigned long: shmem_ulong_##F,						\
		unsigned long long: shmem_ulonglong_##F)(team, dest, __VA_ARGS__)
#define shmem_broadcast(team, dest, ...) SHMEM__GEN_COLL(broadcast, team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) SHMEM__GEN_COLL(collect, team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) SHMEM__GEN_COLL(fcollect, team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) SHMEM__GEN_COLL(alltoall, team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) SHMEM__GEN_COLL(alltoalls, team, dest, __VA_ARGS__)
/* The bitwise ones: 1.5's table lists int8_t (signed char here), the
 * other fixed-width types and the unsigned ones; no plain signed char. */
#define SHMEM__GEN_RED_BIT(F, team, dest, ...)						\
	_Generic(*(dest),								\
		signed char: shmem_int8_##F,						\
		short: shmem_short_##F, int: shmem_int_##F, long: shmem_long_##F,	\
		long long: shmem_longlong_##F,						\
		unsigned char: shmem_uchar_##F, unsigned short: shmem_ushort_##F,	\
		unsigned int: shmem_uint_##F, unsigned long: shmem_ulong_##F,		\
		unsigned long long: shmem_ulonglong_##F)(team, dest, __VA_ARGS__)
#define SHMEM__GEN_RED_CMP(F, team, dest, ...)						\
	_Generic(*(dest),								\
		char: shmem_char_##F, signed char: shmem_schar_##F,			\
		short: shmem_short_##F, int: shmem_int_##F, long: shmem_long_##F,	\
		long long: shmem_longlong_##F, unsigned char: shmem_uchar_##F,		\
		unsigned short: shmem_ushort_##F, unsigned int: shmem_uint_##F,	\
		unsigned long: shmem_ulong_##F,						\
		unsigned long long: shmem_ulonglong_##F, float: shmem_float_##F,	\
		double: shmem_double_##F,						\
		long double: shmem_longdouble_##F)(team, dest, __VA_ARGS__)
#define SHMEM__GEN_RED_ARITH(F, team, dest, ...)					\
	_Generic(*(dest),								\
		char: shmem_char_##F, signed char: shmem_schar_##F,			\
		short: shmem_short_##F, int: shmem_int_##F, long: shmem_long_##F,	\
		long long: shmem_longlong_##F, unsigned char: shmem_uchar_##F,		\
		unsigned short: shmem_ushort_##F, unsigned int: shmem_uint_##F,	\
		unsigned long: shmem_ulong_##F,						\
		unsigned long long: shmem_ulonglong_##F, float: shmem_float_##F,	\
		double: shmem_double_##F, long double: shmem_longdouble_##F,		\
		float _Complex: shmem_complexf_##F,					\
		double _Complex: shmem_complexd_##F)(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...) SHMEM__GEN_RED_BIT(and_reduce, team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...) SHMEM__GEN_RED_BIT(or_reduce, team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...) SHMEM__GEN_RED_BIT(xor_reduce, team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...) SHMEM__GEN_RED_CMP(max_reduce, team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...) SHMEM__GEN_RED_CMP(min_reduce, team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...) SHMEM__GEN_RED_ARITH(sum_reduce, team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...) SHMEM__GEN_RED_ARITH(prod_reduce, team, dest, __VA_ARGS__)
#endif

/* ---- inline fast paths (C11; docs/shmem.md "Fast paths") ---------------------- */

/*
 * For C11 programs the small, frequent calls on the default context are
 * static inline here: p, g, put, get and their nbi forms of every RMA
 * type, putmem/getmem (+ nbi) and quiet.  Each does what libpgas's own
 * inline call does plus a range check against this PE's heap (then its
 * program data); every other case (a bad PE or address, before
 * shmem_init, an error) calls the library's function, which does it all
 * and reports.
 * The names are macros for the inline functions, so the generic names
 * reach them too; &shmem_long_p is the inline one's address.  Define
 * SHMEM_NO_INLINE before including shmem.h for the library's functions.
 */
/* This PE's heap and where every PE's is, as libpgas addresses it (set by
 * shmem_init, cleared by shmem_finalize: npes 0 sends every call out of
 * line).  For the inline fast paths below; not an interface. */
struct shmem__heap_view {
	char *base;
	size_t size;
	char *const *bases;
	int npes;
	char *data;		/* the program's .data/.bss (size 0: not symmetric) */
	size_t data_size;
	char *const *datas;
	struct pgas__ad *ad_u32, *ad_u64;	/* the AMOs' domains of 4 and 8 bytes */
	/* Every PE's heap and data as this process maps them (NULL: not
	 * mapped here, a peer on another host: the library's path). */
	char *const *maps;
	char *const *dmaps;
};
extern struct shmem__heap_view shmem__hv;
/* The heap is never smaller (shmem_init refuses one): a range check of a
 * constant size up to this is one compare. */
#define SHMEM__HEAP_MIN 64
/* The inline paths' guard (as pgas_fast.h's): a program built against
 * another heap view fails to link.  Bump with struct shmem__heap_view. */
#define SHMEM__FAST_ABI 3
#define SHMEM__FAST_SYM__(v) shmem__fast_abi_##v
#define SHMEM__FAST_SYM_(v) SHMEM__FAST_SYM__(v)
#define SHMEM__FAST_SYM SHMEM__FAST_SYM_(SHMEM__FAST_ABI)
extern const unsigned char SHMEM__FAST_SYM;
static const unsigned char *const shmem__fast_abi_ref __attribute__((used)) = &SHMEM__FAST_SYM;

#if defined(SHMEM__LIBRARY) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
				!defined(__cplusplus) && !defined(SHMEM_NO_INLINE))
/*
 * The one translation of a symmetric address, shared by the inline paths
 * below and the library's (shmem_internal.h): [addr, addr+n) in this PE's
 * heap or program data, pe a PE.  shmem__i_at: the same object's address
 * at pe, as libpgas takes it; shmem__i_local: where this process maps it,
 * for the inline calls, which hand it to libpgas's calls of a translated
 * address (pgas__ep_*_at) instead of translating a second time.  NULL
 * when the address or pe is bad, or (local) pe is not mapped here.
 */
static inline char *shmem__i_off(const void *addr, size_t n, int pe, uintptr_t *off,
				 char *const **at, char *const **local)
{
	uintptr_t o = (uintptr_t)addr - (uintptr_t)shmem__hv.base;

	if (__builtin_expect((unsigned)pe >= (unsigned)shmem__hv.npes, 0))
		return (char *)0;
	if (__builtin_expect(__builtin_constant_p(n) && n <= SHMEM__HEAP_MIN ?
			     o <= shmem__hv.size - n : o < shmem__hv.size && n <= shmem__hv.size - o,
			     1)) {
		*at = shmem__hv.bases;
		*local = shmem__hv.maps;
	} else {
		o = (uintptr_t)addr - (uintptr_t)shmem__hv.data;
		if (o >= shmem__hv.data_size || n > shmem__hv.data_size - o)
			return (char *)0;
		*at = shmem__hv.datas;
		*local = shmem__hv.dmaps;
	}
	*off = o;
	return (char *)1;
}

static inline char *shmem__i_at(const void *addr, size_t n, int pe)
{
	char *const *at, *const *local;
	uintptr_t o;

	if (!shmem__i_off(addr, n, pe, &o, &at, &local))
		return (char *)0;
	return at[pe] + o;
}

static inline __attribute__((always_inline))
char *shmem__i_local(const void *addr, size_t n, int pe)
{
	char *const *at, *const *local;
	char *m;
	uintptr_t o;

	if (!shmem__i_off(addr, n, pe, &o, &at, &local))
		return (char *)0;
	m = local[pe];
	return __builtin_expect(m != 0, 1) ? m + o : (char *)0;
}
#endif

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus) && \
	!defined(SHMEM__LIBRARY) && !defined(SHMEM_NO_INLINE)
#include <string.h>
#include <pgas.h>	/* libpgas's public API: its inline RMA */

/*
 * An error of libpgas's call after the inline checks passed (the target
 * gone): reported as the library's calls report it (amo.c), never by
 * trying the operation a second time in the library.
 */
void shmem__i_fail(const char *call, int rc) __attribute__((noreturn, cold));

/* Contiguous RMA done inline (1), or left to the library (0), which
 * checks and reports what the inline checks refused. */
static inline __attribute__((always_inline))
int shmem__i_put(const char *call, void *dest, const void *source, size_t n, int pe, int nbi)
{
	char *r = shmem__i_local(dest, n, pe);
	int rc;

	if (!r || (!source && n))
		return 0;
	rc = nbi ? pgas__ep_put_nbi_at(&pgas__g, (unsigned)pe, r, source, n)
		 : pgas__ep_put_at(&pgas__g, (unsigned)pe, r, source, n);
	/* Zero bytes touched nothing: no error, as the library's call. */
	if (__builtin_expect(rc < 0, 0) && n)
		shmem__i_fail(call, rc);
	return 1;
}

static inline __attribute__((always_inline))
int shmem__i_get(const char *call, void *dest, const void *source, size_t n, int pe, int nbi)
{
	char *r = shmem__i_local(source, n, pe);
	int rc;

	if (!r || (!dest && n))
		return 0;
	rc = nbi ? pgas__ep_get_nbi_at(&pgas__g, dest, (unsigned)pe, r, n)
		 : pgas__ep_get_at(&pgas__g, dest, (unsigned)pe, r, n);
	if (__builtin_expect(rc < 0, 0) && n)
		shmem__i_fail(call, rc);
	return 1;
}

#define SHMEM__INL_XFER(NAME, T, DIR, NBI, ES)						\
static inline void shmem__i_##NAME(T *dest, const T *source, size_t nelems, int pe)	\
{											\
	if (__builtin_expect(nelems <= SIZE_MAX / (ES) &&				\
			     shmem__i_##DIR("shmem_" #NAME, dest, source, nelems * (ES),	\
					    pe, NBI), 1))				\
		return;									\
	shmem_##NAME(dest, source, nelems, pe);						\
}
#define SHMEM__INL_RMA(T, N)								\
static inline void shmem__i_##N##_p(T *dest, T value, int pe)				\
{											\
	char *r = sizeof(T) <= 8 && !((uintptr_t)dest & (sizeof(T) - 1)) ?		\
		  shmem__i_local(dest, sizeof(T), pe) : (char *)0;			\
	uint64_t v = 0;									\
	int rc;										\
											\
	if (__builtin_expect(r != 0, 1)) {						\
		memcpy(&v, &value, sizeof(T) <= 8 ? sizeof(T) : 8);			\
		rc = pgas__ep_put_val_at(&pgas__g, (unsigned)pe, r, v,			\
					 sizeof(T) <= 8 ? sizeof(T) : 8);		\
		if (__builtin_expect(rc < 0, 0))					\
			shmem__i_fail("shmem_" #N "_p", rc);				\
		return;									\
	}										\
	shmem_##N##_p(dest, value, pe);							\
}											\
static inline T shmem__i_##N##_g(const T *source, int pe)				\
{											\
	const char *s = sizeof(T) <= 8 && !((uintptr_t)source & (sizeof(T) - 1)) ?	\
			shmem__i_local(source, sizeof(T), pe) : (char *)0;		\
	uint64_t v = 0;									\
	int rc;										\
	T r;										\
											\
	if (__builtin_expect(s != 0, 1)) {						\
		rc = pgas__ep_get_val_at(&pgas__g, &v, (unsigned)pe, s,			\
					 sizeof(T) <= 8 ? sizeof(T) : 8);		\
		if (__builtin_expect(rc < 0, 0))					\
			shmem__i_fail("shmem_" #N "_g", rc);				\
		memcpy(&r, &v, sizeof(T) <= 8 ? sizeof(T) : 8);			\
		return r;								\
	}										\
	return shmem_##N##_g(source, pe);						\
}											\
SHMEM__INL_XFER(N##_put, T, put, 0, sizeof(T))						\
SHMEM__INL_XFER(N##_get, T, get, 0, sizeof(T))						\
SHMEM__INL_XFER(N##_put_nbi, T, put, 1, sizeof(T))					\
SHMEM__INL_XFER(N##_get_nbi, T, get, 1, sizeof(T))
SHMEM__RMA_TYPES(SHMEM__INL_RMA)
SHMEM__INL_XFER(putmem, void, put, 0, 1)
SHMEM__INL_XFER(getmem, void, get, 0, 1)
SHMEM__INL_XFER(putmem_nbi, void, put, 1, 1)
SHMEM__INL_XFER(getmem_nbi, void, get, 1, 1)
#undef SHMEM__INL_RMA
#undef SHMEM__INL_XFER

/*
 * AMOs of the default context on the standard AMO types (integers of 4
 * and 8 bytes): libpgas's inline atomic on amo.c's domain of their size,
 * after the heap check, their _nbi forms (complete at return, as the
 * library's), and the bitwise ones of their types.  Whatever the checks
 * refuse (a misaligned address, a PE not mapped here, a domain whose
 * operations go through the fabric) is the library's call; an error after
 * them (the target gone) is reported by shmem__i_fail as the library
 * reports it, so an operation is never tried twice; the context forms
 * and float/double stay in the library.
 */
static inline __attribute__((always_inline))
int shmem__i_amo(const char *call, const void *dest, size_t size, unsigned op, uint64_t a,
		 uint64_t b, int pe, uint64_t *old)
{
	char *r = shmem__i_local(dest, size, pe);
	int rc;

	if (__builtin_expect(!r || ((uintptr_t)r & (size - 1)), 0))
		return 0;
	/* A PE passed the check: shmem_init made both domains before. */
	if (!shmem__hv.ad_u32 || !shmem__hv.ad_u64)
		__builtin_unreachable();
	if (size == 4) {
		uint32_t v = 0;

		if (__builtin_expect(!pgas__ad_inline(shmem__hv.ad_u32, PGAS_DT_U32, op, 0, 1), 0))
			return 0;
		rc = pgas__ad_at_u32("pgas_ad_op_u32", &v, (unsigned)pe, r, op, (uint32_t)a,
				     (uint32_t)b, 0);
		*old = v;
	} else {
		if (__builtin_expect(!pgas__ad_inline(shmem__hv.ad_u64, PGAS_DT_U64, op, 0, 1), 0))
			return 0;
		rc = pgas__ad_at_u64("pgas_ad_op_u64", old, (unsigned)pe, r, op, a, b, 0);
	}
	if (__builtin_expect(rc < 0, 0))
		shmem__i_fail(call, rc);
	return 1;
}

/* The old value's bits as T (4 bytes: the low half). */
#define SHMEM__I_OLD(T, o) (sizeof(T) == 4 ? (T)(uint32_t)(o) : (T)(o))
#define SHMEM__INL_AMO(T, N, B)								\
static inline T shmem__i_##N##_atomic_fetch(const T *source, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch", source, sizeof(T),	\
					  PGAS_AOP_GET, (uint64_t)(0), (uint64_t)(0), pe, &o_), 1))	\
		return SHMEM__I_OLD(T, o_);						\
	return shmem_##N##_atomic_fetch(source, pe);					\
}											\
static inline void shmem__i_##N##_atomic_set(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(!shmem__i_amo("shmem_" #N "_atomic_set", dest, sizeof(T),	\
					   PGAS_AOP_SET, (uint64_t)(value), (uint64_t)(0), pe, &o_), 0))	\
		shmem_##N##_atomic_set(dest, value, pe);					\
}											\
static inline T shmem__i_##N##_atomic_swap(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_swap", dest, sizeof(T),	\
					  PGAS_AOP_SWAP, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		return SHMEM__I_OLD(T, o_);						\
	return shmem_##N##_atomic_swap(dest, value, pe);					\
}											\
static inline T shmem__i_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_compare_swap", dest, sizeof(T),	\
					  PGAS_AOP_FCAS, (uint64_t)(cond), (uint64_t)(value), pe, &o_), 1))	\
		return SHMEM__I_OLD(T, o_);						\
	return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);					\
}											\
static inline T shmem__i_##N##_atomic_fetch_inc(T *dest, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_inc", dest, sizeof(T),	\
					  PGAS_AOP_FINC, (uint64_t)(0), (uint64_t)(0), pe, &o_), 1))	\
		return SHMEM__I_OLD(T, o_);						\
	return shmem_##N##_atomic_fetch_inc(dest, pe);					\
}											\
static inline void shmem__i_##N##_atomic_inc(T *dest, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(!shmem__i_amo("shmem_" #N "_atomic_inc", dest, sizeof(T),	\
					   PGAS_AOP_INC, (uint64_t)(0), (uint64_t)(0), pe, &o_), 0))	\
		shmem_##N##_atomic_inc(dest, pe);					\
}											\
static inline T shmem__i_##N##_atomic_fetch_add(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_add", dest, sizeof(T),	\
					  PGAS_AOP_FADD, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		return SHMEM__I_OLD(T, o_);						\
	return shmem_##N##_atomic_fetch_add(dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_add(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(!shmem__i_amo("shmem_" #N "_atomic_add", dest, sizeof(T),	\
					   PGAS_AOP_ADD, (uint64_t)(value), (uint64_t)(0), pe, &o_), 0))	\
		shmem_##N##_atomic_add(dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_nbi", source, sizeof(T),	\
					  PGAS_AOP_GET, (uint64_t)(0), (uint64_t)(0), pe, &o_), 1))	\
		*fetch = SHMEM__I_OLD(T, o_);						\
	else										\
		shmem_##N##_atomic_fetch_nbi(fetch, source, pe);					\
}											\
static inline void shmem__i_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_swap_nbi", dest, sizeof(T),	\
					  PGAS_AOP_SWAP, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		*fetch = SHMEM__I_OLD(T, o_);						\
	else										\
		shmem_##N##_atomic_swap_nbi(fetch, dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_compare_swap_nbi", dest, sizeof(T),	\
					  PGAS_AOP_FCAS, (uint64_t)(cond), (uint64_t)(value), pe, &o_), 1))	\
		*fetch = SHMEM__I_OLD(T, o_);						\
	else										\
		shmem_##N##_atomic_compare_swap_nbi(fetch, dest, cond, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_inc_nbi", dest, sizeof(T),	\
					  PGAS_AOP_FINC, (uint64_t)(0), (uint64_t)(0), pe, &o_), 1))	\
		*fetch = SHMEM__I_OLD(T, o_);						\
	else										\
		shmem_##N##_atomic_fetch_inc_nbi(fetch, dest, pe);					\
}											\
static inline void shmem__i_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_add_nbi", dest, sizeof(T),	\
					  PGAS_AOP_FADD, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		*fetch = SHMEM__I_OLD(T, o_);						\
	else										\
		shmem_##N##_atomic_fetch_add_nbi(fetch, dest, value, pe);					\
}
SHMEM__AMO_TYPES(SHMEM__INL_AMO)
#define SHMEM__INL_AMO_BIT(T, N)								\
static inline T shmem__i_##N##_atomic_fetch_and(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_and", dest, sizeof(T),	\
					  PGAS_AOP_FAND, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		return SHMEM__I_OLD(T, o_);						\
	return shmem_##N##_atomic_fetch_and(dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_and(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(!shmem__i_amo("shmem_" #N "_atomic_and", dest, sizeof(T),	\
					   PGAS_AOP_AND, (uint64_t)(value), (uint64_t)(0), pe, &o_), 0))	\
		shmem_##N##_atomic_and(dest, value, pe);					\
}											\
static inline T shmem__i_##N##_atomic_fetch_or(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_or", dest, sizeof(T),	\
					  PGAS_AOP_FOR, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		return SHMEM__I_OLD(T, o_);						\
	return shmem_##N##_atomic_fetch_or(dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_or(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(!shmem__i_amo("shmem_" #N "_atomic_or", dest, sizeof(T),	\
					   PGAS_AOP_OR, (uint64_t)(value), (uint64_t)(0), pe, &o_), 0))	\
		shmem_##N##_atomic_or(dest, value, pe);					\
}											\
static inline T shmem__i_##N##_atomic_fetch_xor(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_xor", dest, sizeof(T),	\
					  PGAS_AOP_FXOR, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		return SHMEM__I_OLD(T, o_);						\
	return shmem_##N##_atomic_fetch_xor(dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_xor(T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(!shmem__i_amo("shmem_" #N "_atomic_xor", dest, sizeof(T),	\
					   PGAS_AOP_XOR, (uint64_t)(value), (uint64_t)(0), pe, &o_), 0))	\
		shmem_##N##_atomic_xor(dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_fetch_and_nbi(T *fetch, T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_and_nbi", dest, sizeof(T),	\
					  PGAS_AOP_FAND, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		*fetch = SHMEM__I_OLD(T, o_);						\
	else										\
		shmem_##N##_atomic_fetch_and_nbi(fetch, dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_fetch_or_nbi(T *fetch, T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_or_nbi", dest, sizeof(T),	\
					  PGAS_AOP_FOR, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		*fetch = SHMEM__I_OLD(T, o_);						\
	else										\
		shmem_##N##_atomic_fetch_or_nbi(fetch, dest, value, pe);					\
}											\
static inline void shmem__i_##N##_atomic_fetch_xor_nbi(T *fetch, T *dest, T value, int pe)	\
{											\
	uint64_t o_ = 0;								\
											\
	if (__builtin_expect(shmem__i_amo("shmem_" #N "_atomic_fetch_xor_nbi", dest, sizeof(T),	\
					  PGAS_AOP_FXOR, (uint64_t)(value), (uint64_t)(0), pe, &o_), 1))	\
		*fetch = SHMEM__I_OLD(T, o_);						\
	else										\
		shmem_##N##_atomic_fetch_xor_nbi(fetch, dest, value, pe);					\
}
SHMEM__INL_AMO_BIT(unsigned int, uint)
SHMEM__INL_AMO_BIT(unsigned long, ulong)
SHMEM__INL_AMO_BIT(unsigned long long, ulonglong)
SHMEM__INL_AMO_BIT(int32_t, int32)
SHMEM__INL_AMO_BIT(int64_t, int64)
SHMEM__INL_AMO_BIT(uint32_t, uint32)
SHMEM__INL_AMO_BIT(uint64_t, uint64)
#undef SHMEM__INL_AMO
#undef SHMEM__INL_AMO_BIT
#undef SHMEM__I_OLD

/* Every operation of the default context is the primary's. */
static inline void shmem__i_quiet(void)
{
	if (__builtin_expect(shmem__hv.npes == 0 || pgas_quiet() != 0, 0))
		shmem_quiet();
}

#define shmem_float_p shmem__i_float_p
#define shmem_float_g shmem__i_float_g
#define shmem_float_put shmem__i_float_put
#define shmem_float_get shmem__i_float_get
#define shmem_float_put_nbi shmem__i_float_put_nbi
#define shmem_float_get_nbi shmem__i_float_get_nbi
#define shmem_double_p shmem__i_double_p
#define shmem_double_g shmem__i_double_g
#define shmem_double_put shmem__i_double_put
#define shmem_double_get shmem__i_double_get
#define shmem_double_put_nbi shmem__i_double_put_nbi
#define shmem_double_get_nbi shmem__i_double_get_nbi
#define shmem_longdouble_p shmem__i_longdouble_p
#define shmem_longdouble_g shmem__i_longdouble_g
#define shmem_longdouble_put shmem__i_longdouble_put
#define shmem_longdouble_get shmem__i_longdouble_get
#define shmem_longdouble_put_nbi shmem__i_longdouble_put_nbi
#define shmem_longdouble_get_nbi shmem__i_longdouble_get_nbi
#define shmem_char_p shmem__i_char_p
#define shmem_char_g shmem__i_char_g
#define shmem_char_put shmem__i_char_put
#define shmem_char_get shmem__i_char_get
#define shmem_char_put_nbi shmem__i_char_put_nbi
#define shmem_char_get_nbi shmem__i_char_get_nbi
#define shmem_schar_p shmem__i_schar_p
#define shmem_schar_g shmem__i_schar_g
#define shmem_schar_put shmem__i_schar_put
#define shmem_schar_get shmem__i_schar_get
#define shmem_schar_put_nbi shmem__i_schar_put_nbi
#define shmem_schar_get_nbi shmem__i_schar_get_nbi
#define shmem_short_p shmem__i_short_p
#define shmem_short_g shmem__i_short_g
#define shmem_short_put shmem__i_short_put
#define shmem_short_get shmem__i_short_get
#define shmem_short_put_nbi shmem__i_short_put_nbi
#define shmem_short_get_nbi shmem__i_short_get_nbi
#define shmem_int_p shmem__i_int_p
#define shmem_int_g shmem__i_int_g
#define shmem_int_put shmem__i_int_put
#define shmem_int_get shmem__i_int_get
#define shmem_int_put_nbi shmem__i_int_put_nbi
#define shmem_int_get_nbi shmem__i_int_get_nbi
#define shmem_long_p shmem__i_long_p
#define shmem_long_g shmem__i_long_g
#define shmem_long_put shmem__i_long_put
#define shmem_long_get shmem__i_long_get
#define shmem_long_put_nbi shmem__i_long_put_nbi
#define shmem_long_get_nbi shmem__i_long_get_nbi
#define shmem_longlong_p shmem__i_longlong_p
#define shmem_longlong_g shmem__i_longlong_g
#define shmem_longlong_put shmem__i_longlong_put
#define shmem_longlong_get shmem__i_longlong_get
#define shmem_longlong_put_nbi shmem__i_longlong_put_nbi
#define shmem_longlong_get_nbi shmem__i_longlong_get_nbi
#define shmem_uchar_p shmem__i_uchar_p
#define shmem_uchar_g shmem__i_uchar_g
#define shmem_uchar_put shmem__i_uchar_put
#define shmem_uchar_get shmem__i_uchar_get
#define shmem_uchar_put_nbi shmem__i_uchar_put_nbi
#define shmem_uchar_get_nbi shmem__i_uchar_get_nbi
#define shmem_ushort_p shmem__i_ushort_p
#define shmem_ushort_g shmem__i_ushort_g
#define shmem_ushort_put shmem__i_ushort_put
#define shmem_ushort_get shmem__i_ushort_get
#define shmem_ushort_put_nbi shmem__i_ushort_put_nbi
#define shmem_ushort_get_nbi shmem__i_ushort_get_nbi
#define shmem_uint_p shmem__i_uint_p
#define shmem_uint_g shmem__i_uint_g
#define shmem_uint_put shmem__i_uint_put
#define shmem_uint_get shmem__i_uint_get
#define shmem_uint_put_nbi shmem__i_uint_put_nbi
#define shmem_uint_get_nbi shmem__i_uint_get_nbi
#define shmem_ulong_p shmem__i_ulong_p
#define shmem_ulong_g shmem__i_ulong_g
#define shmem_ulong_put shmem__i_ulong_put
#define shmem_ulong_get shmem__i_ulong_get
#define shmem_ulong_put_nbi shmem__i_ulong_put_nbi
#define shmem_ulong_get_nbi shmem__i_ulong_get_nbi
#define shmem_ulonglong_p shmem__i_ulonglong_p
#define shmem_ulonglong_g shmem__i_ulonglong_g
#define shmem_ulonglong_put shmem__i_ulonglong_put
#define shmem_ulonglong_get shmem__i_ulonglong_get
#define shmem_ulonglong_put_nbi shmem__i_ulonglong_put_nbi
#define shmem_ulonglong_get_nbi shmem__i_ulonglong_get_nbi
#define shmem_int8_p shmem__i_int8_p
#define shmem_int8_g shmem__i_int8_g
#define shmem_int8_put shmem__i_int8_put
#define shmem_int8_get shmem__i_int8_get
#define shmem_int8_put_nbi shmem__i_int8_put_nbi
#define shmem_int8_get_nbi shmem__i_int8_get_nbi
#define shmem_int16_p shmem__i_int16_p
#define shmem_int16_g shmem__i_int16_g
#define shmem_int16_put shmem__i_int16_put
#define shmem_int16_get shmem__i_int16_get
#define shmem_int16_put_nbi shmem__i_int16_put_nbi
#define shmem_int16_get_nbi shmem__i_int16_get_nbi
#define shmem_int32_p shmem__i_int32_p
#define shmem_int32_g shmem__i_int32_g
#define shmem_int32_put shmem__i_int32_put
#define shmem_int32_get shmem__i_int32_get
#define shmem_int32_put_nbi shmem__i_int32_put_nbi
#define shmem_int32_get_nbi shmem__i_int32_get_nbi
#define shmem_int64_p shmem__i_int64_p
#define shmem_int64_g shmem__i_int64_g
#define shmem_int64_put shmem__i_int64_put
#define shmem_int64_get shmem__i_int64_get
#define shmem_int64_put_nbi shmem__i_int64_put_nbi
#define shmem_int64_get_nbi shmem__i_int64_get_nbi
#define shmem_uint8_p shmem__i_uint8_p
#define shmem_uint8_g shmem__i_uint8_g
#define shmem_uint8_put shmem__i_uint8_put
#define shmem_uint8_get shmem__i_uint8_get
#define shmem_uint8_put_nbi shmem__i_uint8_put_nbi
#define shmem_uint8_get_nbi shmem__i_uint8_get_nbi
#define shmem_uint16_p shmem__i_uint16_p
#define shmem_uint16_g shmem__i_uint16_g
#define shmem_uint16_put shmem__i_uint16_put
#define shmem_uint16_get shmem__i_uint16_get
#define shmem_uint16_put_nbi shmem__i_uint16_put_nbi
#define shmem_uint16_get_nbi shmem__i_uint16_get_nbi
#define shmem_uint32_p shmem__i_uint32_p
#define shmem_uint32_g shmem__i_uint32_g
#define shmem_uint32_put shmem__i_uint32_put
#define shmem_uint32_get shmem__i_uint32_get
#define shmem_uint32_put_nbi shmem__i_uint32_put_nbi
#define shmem_uint32_get_nbi shmem__i_uint32_get_nbi
#define shmem_uint64_p shmem__i_uint64_p
#define shmem_uint64_g shmem__i_uint64_g
#define shmem_uint64_put shmem__i_uint64_put
#define shmem_uint64_get shmem__i_uint64_get
#define shmem_uint64_put_nbi shmem__i_uint64_put_nbi
#define shmem_uint64_get_nbi shmem__i_uint64_get_nbi
#define shmem_size_p shmem__i_size_p
#define shmem_size_g shmem__i_size_g
#define shmem_size_put shmem__i_size_put
#define shmem_size_get shmem__i_size_get
#define shmem_size_put_nbi shmem__i_size_put_nbi
#define shmem_size_get_nbi shmem__i_size_get_nbi
#define shmem_ptrdiff_p shmem__i_ptrdiff_p
#define shmem_ptrdiff_g shmem__i_ptrdiff_g
#define shmem_ptrdiff_put shmem__i_ptrdiff_put
#define shmem_ptrdiff_get shmem__i_ptrdiff_get
#define shmem_ptrdiff_put_nbi shmem__i_ptrdiff_put_nbi
#define shmem_ptrdiff_get_nbi shmem__i_ptrdiff_get_nbi
#define shmem_putmem shmem__i_putmem
#define shmem_getmem shmem__i_getmem
#define shmem_putmem_nbi shmem__i_putmem_nbi
#define shmem_getmem_nbi shmem__i_getmem_nbi
#define shmem_quiet shmem__i_quiet
#define shmem_int_atomic_fetch shmem__i_int_atomic_fetch
#define shmem_int_atomic_set shmem__i_int_atomic_set
#define shmem_int_atomic_swap shmem__i_int_atomic_swap
#define shmem_int_atomic_compare_swap shmem__i_int_atomic_compare_swap
#define shmem_int_atomic_fetch_inc shmem__i_int_atomic_fetch_inc
#define shmem_int_atomic_inc shmem__i_int_atomic_inc
#define shmem_int_atomic_fetch_add shmem__i_int_atomic_fetch_add
#define shmem_int_atomic_add shmem__i_int_atomic_add
#define shmem_long_atomic_fetch shmem__i_long_atomic_fetch
#define shmem_long_atomic_set shmem__i_long_atomic_set
#define shmem_long_atomic_swap shmem__i_long_atomic_swap
#define shmem_long_atomic_compare_swap shmem__i_long_atomic_compare_swap
#define shmem_long_atomic_fetch_inc shmem__i_long_atomic_fetch_inc
#define shmem_long_atomic_inc shmem__i_long_atomic_inc
#define shmem_long_atomic_fetch_add shmem__i_long_atomic_fetch_add
#define shmem_long_atomic_add shmem__i_long_atomic_add
#define shmem_longlong_atomic_fetch shmem__i_longlong_atomic_fetch
#define shmem_longlong_atomic_set shmem__i_longlong_atomic_set
#define shmem_longlong_atomic_swap shmem__i_longlong_atomic_swap
#define shmem_longlong_atomic_compare_swap shmem__i_longlong_atomic_compare_swap
#define shmem_longlong_atomic_fetch_inc shmem__i_longlong_atomic_fetch_inc
#define shmem_longlong_atomic_inc shmem__i_longlong_atomic_inc
#define shmem_longlong_atomic_fetch_add shmem__i_longlong_atomic_fetch_add
#define shmem_longlong_atomic_add shmem__i_longlong_atomic_add
#define shmem_uint_atomic_fetch shmem__i_uint_atomic_fetch
#define shmem_uint_atomic_set shmem__i_uint_atomic_set
#define shmem_uint_atomic_swap shmem__i_uint_atomic_swap
#define shmem_uint_atomic_compare_swap shmem__i_uint_atomic_compare_swap
#define shmem_uint_atomic_fetch_inc shmem__i_uint_atomic_fetch_inc
#define shmem_uint_atomic_inc shmem__i_uint_atomic_inc
#define shmem_uint_atomic_fetch_add shmem__i_uint_atomic_fetch_add
#define shmem_uint_atomic_add shmem__i_uint_atomic_add
#define shmem_ulong_atomic_fetch shmem__i_ulong_atomic_fetch
#define shmem_ulong_atomic_set shmem__i_ulong_atomic_set
#define shmem_ulong_atomic_swap shmem__i_ulong_atomic_swap
#define shmem_ulong_atomic_compare_swap shmem__i_ulong_atomic_compare_swap
#define shmem_ulong_atomic_fetch_inc shmem__i_ulong_atomic_fetch_inc
#define shmem_ulong_atomic_inc shmem__i_ulong_atomic_inc
#define shmem_ulong_atomic_fetch_add shmem__i_ulong_atomic_fetch_add
#define shmem_ulong_atomic_add shmem__i_ulong_atomic_add
#define shmem_ulonglong_atomic_fetch shmem__i_ulonglong_atomic_fetch
#define shmem_ulonglong_atomic_set shmem__i_ulonglong_atomic_set
#define shmem_ulonglong_atomic_swap shmem__i_ulonglong_atomic_swap
#define shmem_ulonglong_atomic_compare_swap shmem__i_ulonglong_atomic_compare_swap
#define shmem_ulonglong_atomic_fetch_inc shmem__i_ulonglong_atomic_fetch_inc
#define shmem_ulonglong_atomic_inc shmem__i_ulonglong_atomic_inc
#define shmem_ulonglong_atomic_fetch_add shmem__i_ulonglong_atomic_fetch_add
#define shmem_ulonglong_atomic_add shmem__i_ulonglong_atomic_add
#define shmem_int32_atomic_fetch shmem__i_int32_atomic_fetch
#define shmem_int32_atomic_set shmem__i_int32_atomic_set
#define shmem_int32_atomic_swap shmem__i_int32_atomic_swap
#define shmem_int32_atomic_compare_swap shmem__i_int32_atomic_compare_swap
#define shmem_int32_atomic_fetch_inc shmem__i_int32_atomic_fetch_inc
#define shmem_int32_atomic_inc shmem__i_int32_atomic_inc
#define shmem_int32_atomic_fetch_add shmem__i_int32_atomic_fetch_add
#define shmem_int32_atomic_add shmem__i_int32_atomic_add
#define shmem_int64_atomic_fetch shmem__i_int64_atomic_fetch
#define shmem_int64_atomic_set shmem__i_int64_atomic_set
#define shmem_int64_atomic_swap shmem__i_int64_atomic_swap
#define shmem_int64_atomic_compare_swap shmem__i_int64_atomic_compare_swap
#define shmem_int64_atomic_fetch_inc shmem__i_int64_atomic_fetch_inc
#define shmem_int64_atomic_inc shmem__i_int64_atomic_inc
#define shmem_int64_atomic_fetch_add shmem__i_int64_atomic_fetch_add
#define shmem_int64_atomic_add shmem__i_int64_atomic_add
#define shmem_uint32_atomic_fetch shmem__i_uint32_atomic_fetch
#define shmem_uint32_atomic_set shmem__i_uint32_atomic_set
#define shmem_uint32_atomic_swap shmem__i_uint32_atomic_swap
#define shmem_uint32_atomic_compare_swap shmem__i_uint32_atomic_compare_swap
#define shmem_uint32_atomic_fetch_inc shmem__i_uint32_atomic_fetch_inc
#define shmem_uint32_atomic_inc shmem__i_uint32_atomic_inc
#define shmem_uint32_atomic_fetch_add shmem__i_uint32_atomic_fetch_add
#define shmem_uint32_atomic_add shmem__i_uint32_atomic_add
#define shmem_uint64_atomic_fetch shmem__i_uint64_atomic_fetch
#define shmem_uint64_atomic_set shmem__i_uint64_atomic_set
#define shmem_uint64_atomic_swap shmem__i_uint64_atomic_swap
#define shmem_uint64_atomic_compare_swap shmem__i_uint64_atomic_compare_swap
#define shmem_uint64_atomic_fetch_inc shmem__i_uint64_atomic_fetch_inc
#define shmem_uint64_atomic_inc shmem__i_uint64_atomic_inc
#define shmem_uint64_atomic_fetch_add shmem__i_uint64_atomic_fetch_add
#define shmem_uint64_atomic_add shmem__i_uint64_atomic_add
#define shmem_size_atomic_fetch shmem__i_size_atomic_fetch
#define shmem_size_atomic_set shmem__i_size_atomic_set
#define shmem_size_atomic_swap shmem__i_size_atomic_swap
#define shmem_size_atomic_compare_swap shmem__i_size_atomic_compare_swap
#define shmem_size_atomic_fetch_inc shmem__i_size_atomic_fetch_inc
#define shmem_size_atomic_inc shmem__i_size_atomic_inc
#define shmem_size_atomic_fetch_add shmem__i_size_atomic_fetch_add
#define shmem_size_atomic_add shmem__i_size_atomic_add
#define shmem_ptrdiff_atomic_fetch shmem__i_ptrdiff_atomic_fetch
#define shmem_ptrdiff_atomic_set shmem__i_ptrdiff_atomic_set
#define shmem_ptrdiff_atomic_swap shmem__i_ptrdiff_atomic_swap
#define shmem_ptrdiff_atomic_compare_swap shmem__i_ptrdiff_atomic_compare_swap
#define shmem_ptrdiff_atomic_fetch_inc shmem__i_ptrdiff_atomic_fetch_inc
#define shmem_ptrdiff_atomic_inc shmem__i_ptrdiff_atomic_inc
#define shmem_ptrdiff_atomic_fetch_add shmem__i_ptrdiff_atomic_fetch_add
#define shmem_ptrdiff_atomic_add shmem__i_ptrdiff_atomic_add
#define shmem_int_atomic_fetch_nbi shmem__i_int_atomic_fetch_nbi
#define shmem_int_atomic_swap_nbi shmem__i_int_atomic_swap_nbi
#define shmem_int_atomic_compare_swap_nbi shmem__i_int_atomic_compare_swap_nbi
#define shmem_int_atomic_fetch_inc_nbi shmem__i_int_atomic_fetch_inc_nbi
#define shmem_int_atomic_fetch_add_nbi shmem__i_int_atomic_fetch_add_nbi
#define shmem_long_atomic_fetch_nbi shmem__i_long_atomic_fetch_nbi
#define shmem_long_atomic_swap_nbi shmem__i_long_atomic_swap_nbi
#define shmem_long_atomic_compare_swap_nbi shmem__i_long_atomic_compare_swap_nbi
#define shmem_long_atomic_fetch_inc_nbi shmem__i_long_atomic_fetch_inc_nbi
#define shmem_long_atomic_fetch_add_nbi shmem__i_long_atomic_fetch_add_nbi
#define shmem_longlong_atomic_fetch_nbi shmem__i_longlong_atomic_fetch_nbi
#define shmem_longlong_atomic_swap_nbi shmem__i_longlong_atomic_swap_nbi
#define shmem_longlong_atomic_compare_swap_nbi shmem__i_longlong_atomic_compare_swap_nbi
#define shmem_longlong_atomic_fetch_inc_nbi shmem__i_longlong_atomic_fetch_inc_nbi
#define shmem_longlong_atomic_fetch_add_nbi shmem__i_longlong_atomic_fetch_add_nbi
#define shmem_uint_atomic_fetch_nbi shmem__i_uint_atomic_fetch_nbi
#define shmem_uint_atomic_swap_nbi shmem__i_uint_atomic_swap_nbi
#define shmem_uint_atomic_compare_swap_nbi shmem__i_uint_atomic_compare_swap_nbi
#define shmem_uint_atomic_fetch_inc_nbi shmem__i_uint_atomic_fetch_inc_nbi
#define shmem_uint_atomic_fetch_add_nbi shmem__i_uint_atomic_fetch_add_nbi
#define shmem_ulong_atomic_fetch_nbi shmem__i_ulong_atomic_fetch_nbi
#define shmem_ulong_atomic_swap_nbi shmem__i_ulong_atomic_swap_nbi
#define shmem_ulong_atomic_compare_swap_nbi shmem__i_ulong_atomic_compare_swap_nbi
#define shmem_ulong_atomic_fetch_inc_nbi shmem__i_ulong_atomic_fetch_inc_nbi
#define shmem_ulong_atomic_fetch_add_nbi shmem__i_ulong_atomic_fetch_add_nbi
#define shmem_ulonglong_atomic_fetch_nbi shmem__i_ulonglong_atomic_fetch_nbi
#define shmem_ulonglong_atomic_swap_nbi shmem__i_ulonglong_atomic_swap_nbi
#define shmem_ulonglong_atomic_compare_swap_nbi shmem__i_ulonglong_atomic_compare_swap_nbi
#define shmem_ulonglong_atomic_fetch_inc_nbi shmem__i_ulonglong_atomic_fetch_inc_nbi
#define shmem_ulonglong_atomic_fetch_add_nbi shmem__i_ulonglong_atomic_fetch_add_nbi
#define shmem_int32_atomic_fetch_nbi shmem__i_int32_atomic_fetch_nbi
#define shmem_int32_atomic_swap_nbi shmem__i_int32_atomic_swap_nbi
#define shmem_int32_atomic_compare_swap_nbi shmem__i_int32_atomic_compare_swap_nbi
#define shmem_int32_atomic_fetch_inc_nbi shmem__i_int32_atomic_fetch_inc_nbi
#define shmem_int32_atomic_fetch_add_nbi shmem__i_int32_atomic_fetch_add_nbi
#define shmem_int64_atomic_fetch_nbi shmem__i_int64_atomic_fetch_nbi
#define shmem_int64_atomic_swap_nbi shmem__i_int64_atomic_swap_nbi
#define shmem_int64_atomic_compare_swap_nbi shmem__i_int64_atomic_compare_swap_nbi
#define shmem_int64_atomic_fetch_inc_nbi shmem__i_int64_atomic_fetch_inc_nbi
#define shmem_int64_atomic_fetch_add_nbi shmem__i_int64_atomic_fetch_add_nbi
#define shmem_uint32_atomic_fetch_nbi shmem__i_uint32_atomic_fetch_nbi
#define shmem_uint32_atomic_swap_nbi shmem__i_uint32_atomic_swap_nbi
#define shmem_uint32_atomic_compare_swap_nbi shmem__i_uint32_atomic_compare_swap_nbi
#define shmem_uint32_atomic_fetch_inc_nbi shmem__i_uint32_atomic_fetch_inc_nbi
#define shmem_uint32_atomic_fetch_add_nbi shmem__i_uint32_atomic_fetch_add_nbi
#define shmem_uint64_atomic_fetch_nbi shmem__i_uint64_atomic_fetch_nbi
#define shmem_uint64_atomic_swap_nbi shmem__i_uint64_atomic_swap_nbi
#define shmem_uint64_atomic_compare_swap_nbi shmem__i_uint64_atomic_compare_swap_nbi
#define shmem_uint64_atomic_fetch_inc_nbi shmem__i_uint64_atomic_fetch_inc_nbi
#define shmem_uint64_atomic_fetch_add_nbi shmem__i_uint64_atomic_fetch_add_nbi
#define shmem_size_atomic_fetch_nbi shmem__i_size_atomic_fetch_nbi
#define shmem_size_atomic_swap_nbi shmem__i_size_atomic_swap_nbi
#define shmem_size_atomic_compare_swap_nbi shmem__i_size_atomic_compare_swap_nbi
#define shmem_size_atomic_fetch_inc_nbi shmem__i_size_atomic_fetch_inc_nbi
#define shmem_size_atomic_fetch_add_nbi shmem__i_size_atomic_fetch_add_nbi
#define shmem_ptrdiff_atomic_fetch_nbi shmem__i_ptrdiff_atomic_fetch_nbi
#define shmem_ptrdiff_atomic_swap_nbi shmem__i_ptrdiff_atomic_swap_nbi
#define shmem_ptrdiff_atomic_compare_swap_nbi shmem__i_ptrdiff_atomic_compare_swap_nbi
#define shmem_ptrdiff_atomic_fetch_inc_nbi shmem__i_ptrdiff_atomic_fetch_inc_nbi
#define shmem_ptrdiff_atomic_fetch_add_nbi shmem__i_ptrdiff_atomic_fetch_add_nbi
#define shmem_uint_atomic_fetch_and shmem__i_uint_atomic_fetch_and
#define shmem_uint_atomic_and shmem__i_uint_atomic_and
#define shmem_uint_atomic_fetch_or shmem__i_uint_atomic_fetch_or
#define shmem_uint_atomic_or shmem__i_uint_atomic_or
#define shmem_uint_atomic_fetch_xor shmem__i_uint_atomic_fetch_xor
#define shmem_uint_atomic_xor shmem__i_uint_atomic_xor
#define shmem_uint_atomic_fetch_and_nbi shmem__i_uint_atomic_fetch_and_nbi
#define shmem_uint_atomic_fetch_or_nbi shmem__i_uint_atomic_fetch_or_nbi
#define shmem_uint_atomic_fetch_xor_nbi shmem__i_uint_atomic_fetch_xor_nbi
#define shmem_ulong_atomic_fetch_and shmem__i_ulong_atomic_fetch_and
#define shmem_ulong_atomic_and shmem__i_ulong_atomic_and
#define shmem_ulong_atomic_fetch_or shmem__i_ulong_atomic_fetch_or
#define shmem_ulong_atomic_or shmem__i_ulong_atomic_or
#define shmem_ulong_atomic_fetch_xor shmem__i_ulong_atomic_fetch_xor
#define shmem_ulong_atomic_xor shmem__i_ulong_atomic_xor
#define shmem_ulong_atomic_fetch_and_nbi shmem__i_ulong_atomic_fetch_and_nbi
#define shmem_ulong_atomic_fetch_or_nbi shmem__i_ulong_atomic_fetch_or_nbi
#define shmem_ulong_atomic_fetch_xor_nbi shmem__i_ulong_atomic_fetch_xor_nbi
#define shmem_ulonglong_atomic_fetch_and shmem__i_ulonglong_atomic_fetch_and
#define shmem_ulonglong_atomic_and shmem__i_ulonglong_atomic_and
#define shmem_ulonglong_atomic_fetch_or shmem__i_ulonglong_atomic_fetch_or
#define shmem_ulonglong_atomic_or shmem__i_ulonglong_atomic_or
#define shmem_ulonglong_atomic_fetch_xor shmem__i_ulonglong_atomic_fetch_xor
#define shmem_ulonglong_atomic_xor shmem__i_ulonglong_atomic_xor
#define shmem_ulonglong_atomic_fetch_and_nbi shmem__i_ulonglong_atomic_fetch_and_nbi
#define shmem_ulonglong_atomic_fetch_or_nbi shmem__i_ulonglong_atomic_fetch_or_nbi
#define shmem_ulonglong_atomic_fetch_xor_nbi shmem__i_ulonglong_atomic_fetch_xor_nbi
#define shmem_int32_atomic_fetch_and shmem__i_int32_atomic_fetch_and
#define shmem_int32_atomic_and shmem__i_int32_atomic_and
#define shmem_int32_atomic_fetch_or shmem__i_int32_atomic_fetch_or
#define shmem_int32_atomic_or shmem__i_int32_atomic_or
#define shmem_int32_atomic_fetch_xor shmem__i_int32_atomic_fetch_xor
#define shmem_int32_atomic_xor shmem__i_int32_atomic_xor
#define shmem_int32_atomic_fetch_and_nbi shmem__i_int32_atomic_fetch_and_nbi
#define shmem_int32_atomic_fetch_or_nbi shmem__i_int32_atomic_fetch_or_nbi
#define shmem_int32_atomic_fetch_xor_nbi shmem__i_int32_atomic_fetch_xor_nbi
#define shmem_int64_atomic_fetch_and shmem__i_int64_atomic_fetch_and
#define shmem_int64_atomic_and shmem__i_int64_atomic_and
#define shmem_int64_atomic_fetch_or shmem__i_int64_atomic_fetch_or
#define shmem_int64_atomic_or shmem__i_int64_atomic_or
#define shmem_int64_atomic_fetch_xor shmem__i_int64_atomic_fetch_xor
#define shmem_int64_atomic_xor shmem__i_int64_atomic_xor
#define shmem_int64_atomic_fetch_and_nbi shmem__i_int64_atomic_fetch_and_nbi
#define shmem_int64_atomic_fetch_or_nbi shmem__i_int64_atomic_fetch_or_nbi
#define shmem_int64_atomic_fetch_xor_nbi shmem__i_int64_atomic_fetch_xor_nbi
#define shmem_uint32_atomic_fetch_and shmem__i_uint32_atomic_fetch_and
#define shmem_uint32_atomic_and shmem__i_uint32_atomic_and
#define shmem_uint32_atomic_fetch_or shmem__i_uint32_atomic_fetch_or
#define shmem_uint32_atomic_or shmem__i_uint32_atomic_or
#define shmem_uint32_atomic_fetch_xor shmem__i_uint32_atomic_fetch_xor
#define shmem_uint32_atomic_xor shmem__i_uint32_atomic_xor
#define shmem_uint32_atomic_fetch_and_nbi shmem__i_uint32_atomic_fetch_and_nbi
#define shmem_uint32_atomic_fetch_or_nbi shmem__i_uint32_atomic_fetch_or_nbi
#define shmem_uint32_atomic_fetch_xor_nbi shmem__i_uint32_atomic_fetch_xor_nbi
#define shmem_uint64_atomic_fetch_and shmem__i_uint64_atomic_fetch_and
#define shmem_uint64_atomic_and shmem__i_uint64_atomic_and
#define shmem_uint64_atomic_fetch_or shmem__i_uint64_atomic_fetch_or
#define shmem_uint64_atomic_or shmem__i_uint64_atomic_or
#define shmem_uint64_atomic_fetch_xor shmem__i_uint64_atomic_fetch_xor
#define shmem_uint64_atomic_xor shmem__i_uint64_atomic_xor
#define shmem_uint64_atomic_fetch_and_nbi shmem__i_uint64_atomic_fetch_and_nbi
#define shmem_uint64_atomic_fetch_or_nbi shmem__i_uint64_atomic_fetch_or_nbi
#define shmem_uint64_atomic_fetch_xor_nbi shmem__i_uint64_atomic_fetch_xor_nbi
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_H */
