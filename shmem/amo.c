/* SPDX-License-Identifier: MIT */
/*
 * amo.c - OpenSHMEM atomic memory operations on libpgas atomic domains
 * (made at shmem_init): every integer type of 4 bytes goes through one
 * u32 domain, of 8 bytes through one u64 domain (two's complement: the
 * bits of a signed and an unsigned add are the same), float and double
 * through their own.  On shm and pgas.ko each is one CPU atomic on the
 * peer's memory; the _nbi forms complete before they return (code must
 * not rely on it: shmem_quiet completes them).  Each has its context
 * form; atomic domains have no endpoint form, so every context's AMOs go
 * on the primary (and its shmem_ctx_quiet quiets the primary too).
 */
#include <string.h>
#include "shmem_internal.h"

/* One operation on an integer of size 4 or 8; returns the old value's bits.
 * Atomic domains have no endpoint form: a context's AMOs go on the primary. */
static inline __attribute__((always_inline))
uint64_t amo_int(shmem_ctx_t ctx, const char *call, const void *dest, size_t size, unsigned op,
		 uint64_t a, uint64_t b, int pe)
{
	void *d;

	shmem__ctx_prim(call, ctx);
	pe = shmem__ctx_pe(call, ctx, pe);
	d = shmem__xlate(call, dest, size, pe);
	if (size == 4) {
		uint32_t r = 0;

		SHMEM__CHECK(call, pgas_ad_op_u32(shmem__s.ad_u32, &r, (unsigned)pe, d, op,
						  (uint32_t)a, (uint32_t)b, 0));
		return r;
	} else {
		uint64_t r = 0;

		SHMEM__CHECK(call, pgas_ad_op_u64(shmem__s.ad_u64, &r, (unsigned)pe, d, op, a, b, 0));
		return r;
	}
}

#define TO_BITS(T, v) ({ uint64_t b_ = 0; T v_ = (v); memcpy(&b_, &v_, sizeof(T)); b_; })
#define FROM_BITS(T, bits) ({ T v_; uint64_t b_ = (bits); memcpy(&v_, &b_, sizeof(T)); v_; })

/* In the bodies of SHMEM__DEF_*: ctx, call, pe and the target d. */
#define AMO_I(T, d, op, a, b)								\
	FROM_BITS(T, amo_int(ctx, call, d, sizeof(T), op, TO_BITS(T, a), TO_BITS(T, b), pe))

/* fetch, set, swap (and their nbi forms) for integer types. */
#define SHMEM__AMO_FSS_INT(T, N)							\
SHMEM__DEF_R(T, N##_atomic_fetch, (const T *source, int pe),				\
	     AMO_I(T, source, PGAS_AOP_GET, 0, 0))					\
SHMEM__DEF_V(N##_atomic_set, (T *dest, T value, int pe),				\
	     (void)AMO_I(T, dest, PGAS_AOP_SET, value, 0))				\
SHMEM__DEF_R(T, N##_atomic_swap, (T *dest, T value, int pe),				\
	     AMO_I(T, dest, PGAS_AOP_SWAP, value, 0))					\
SHMEM__DEF_V(N##_atomic_fetch_nbi, (T *fetch, const T *source, int pe),		\
	     *fetch = AMO_I(T, source, PGAS_AOP_GET, 0, 0))				\
SHMEM__DEF_V(N##_atomic_swap_nbi, (T *fetch, T *dest, T value, int pe),		\
	     *fetch = AMO_I(T, dest, PGAS_AOP_SWAP, value, 0))

#define SHMEM__AMO_STD_INT(T, N, B)							\
SHMEM__AMO_FSS_INT(T, N)								\
SHMEM__DEF_R(T, N##_atomic_compare_swap, (T *dest, T cond, T value, int pe),		\
	     AMO_I(T, dest, PGAS_AOP_FCAS, cond, value))				\
SHMEM__DEF_R(T, N##_atomic_fetch_inc, (T *dest, int pe),				\
	     AMO_I(T, dest, PGAS_AOP_FINC, 0, 0))					\
SHMEM__DEF_V(N##_atomic_inc, (T *dest, int pe),					\
	     (void)AMO_I(T, dest, PGAS_AOP_INC, 0, 0))					\
SHMEM__DEF_R(T, N##_atomic_fetch_add, (T *dest, T value, int pe),			\
	     AMO_I(T, dest, PGAS_AOP_FADD, value, 0))					\
SHMEM__DEF_V(N##_atomic_add, (T *dest, T value, int pe),				\
	     (void)AMO_I(T, dest, PGAS_AOP_ADD, value, 0))				\
SHMEM__DEF_V(N##_atomic_compare_swap_nbi, (T *fetch, T *dest, T cond, T value, int pe),\
	     *fetch = AMO_I(T, dest, PGAS_AOP_FCAS, cond, value))			\
SHMEM__DEF_V(N##_atomic_fetch_inc_nbi, (T *fetch, T *dest, int pe),			\
	     *fetch = AMO_I(T, dest, PGAS_AOP_FINC, 0, 0))				\
SHMEM__DEF_V(N##_atomic_fetch_add_nbi, (T *fetch, T *dest, T value, int pe),		\
	     *fetch = AMO_I(T, dest, PGAS_AOP_FADD, value, 0))
SHMEM__AMO_TYPES(SHMEM__AMO_STD_INT)

#define SHMEM__AMO_BIT(T, N)								\
SHMEM__DEF_R(T, N##_atomic_fetch_and, (T *dest, T value, int pe),			\
	     AMO_I(T, dest, PGAS_AOP_FAND, value, 0))					\
SHMEM__DEF_V(N##_atomic_and, (T *dest, T value, int pe),				\
	     (void)AMO_I(T, dest, PGAS_AOP_AND, value, 0))				\
SHMEM__DEF_R(T, N##_atomic_fetch_or, (T *dest, T value, int pe),			\
	     AMO_I(T, dest, PGAS_AOP_FOR, value, 0))					\
SHMEM__DEF_V(N##_atomic_or, (T *dest, T value, int pe),				\
	     (void)AMO_I(T, dest, PGAS_AOP_OR, value, 0))				\
SHMEM__DEF_R(T, N##_atomic_fetch_xor, (T *dest, T value, int pe),			\
	     AMO_I(T, dest, PGAS_AOP_FXOR, value, 0))					\
SHMEM__DEF_V(N##_atomic_xor, (T *dest, T value, int pe),				\
	     (void)AMO_I(T, dest, PGAS_AOP_XOR, value, 0))				\
SHMEM__DEF_V(N##_atomic_fetch_and_nbi, (T *fetch, T *dest, T value, int pe),		\
	     *fetch = AMO_I(T, dest, PGAS_AOP_FAND, value, 0))				\
SHMEM__DEF_V(N##_atomic_fetch_or_nbi, (T *fetch, T *dest, T value, int pe),		\
	     *fetch = AMO_I(T, dest, PGAS_AOP_FOR, value, 0))				\
SHMEM__DEF_V(N##_atomic_fetch_xor_nbi, (T *fetch, T *dest, T value, int pe),		\
	     *fetch = AMO_I(T, dest, PGAS_AOP_FXOR, value, 0))
SHMEM__AMO_BIT(unsigned int, uint)
SHMEM__AMO_BIT(unsigned long, ulong)
SHMEM__AMO_BIT(unsigned long long, ulonglong)
SHMEM__AMO_BIT(int32_t, int32)
SHMEM__AMO_BIT(int64_t, int64)
SHMEM__AMO_BIT(uint32_t, uint32)
SHMEM__AMO_BIT(uint64_t, uint64)

/* Extended AMOs on float and double: fetch, set, swap. */
#define SHMEM__AMO_FSS_FP(T, N, SFX, AD)						\
static inline T amo_##N(shmem_ctx_t ctx, const char *call, const T *dest, unsigned op,	\
			T a, int pe)							\
{											\
	void *d;									\
	T r = 0;									\
											\
	shmem__ctx_prim(call, ctx);							\
	pe = shmem__ctx_pe(call, ctx, pe);						\
	d = shmem__xlate(call, dest, sizeof(T), pe);					\
	SHMEM__CHECK(call, pgas_ad_op_##SFX(shmem__s.AD, &r, (unsigned)pe, d, op, a, 0, 0));\
	return r;									\
}											\
SHMEM__DEF_R(T, N##_atomic_fetch, (const T *source, int pe),				\
	     amo_##N(ctx, call, source, PGAS_AOP_GET, 0, pe))				\
SHMEM__DEF_V(N##_atomic_set, (T *dest, T value, int pe),				\
	     (void)amo_##N(ctx, call, dest, PGAS_AOP_SET, value, pe))			\
SHMEM__DEF_R(T, N##_atomic_swap, (T *dest, T value, int pe),				\
	     amo_##N(ctx, call, dest, PGAS_AOP_SWAP, value, pe))				\
SHMEM__DEF_V(N##_atomic_fetch_nbi, (T *fetch, const T *source, int pe),		\
	     *fetch = amo_##N(ctx, call, source, PGAS_AOP_GET, 0, pe))			\
SHMEM__DEF_V(N##_atomic_swap_nbi, (T *fetch, T *dest, T value, int pe),		\
	     *fetch = amo_##N(ctx, call, dest, PGAS_AOP_SWAP, value, pe))
SHMEM__AMO_FSS_FP(float, float, flt, ad_flt)
SHMEM__AMO_FSS_FP(double, double, dbl, ad_dbl)

/* The deprecated (1.3) names. */
#define SHMEM__AMO_OLD(T, N)								\
T shmem_##N##_fetch(const T *source, int pe)						\
{											\
	return shmem_##N##_atomic_fetch(source, pe);					\
}											\
void shmem_##N##_set(T *dest, T value, int pe)						\
{											\
	shmem_##N##_atomic_set(dest, value, pe);					\
}											\
T shmem_##N##_swap(T *dest, T value, int pe)						\
{											\
	return shmem_##N##_atomic_swap(dest, value, pe);				\
}
#define SHMEM__AMO_OLD_STD(T, N)							\
SHMEM__AMO_OLD(T, N)									\
T shmem_##N##_cswap(T *dest, T cond, T value, int pe)					\
{											\
	return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);		\
}											\
T shmem_##N##_finc(T *dest, int pe)							\
{											\
	return shmem_##N##_atomic_fetch_inc(dest, pe);					\
}											\
void shmem_##N##_inc(T *dest, int pe)							\
{											\
	shmem_##N##_atomic_inc(dest, pe);						\
}											\
T shmem_##N##_fadd(T *dest, T value, int pe)						\
{											\
	return shmem_##N##_atomic_fetch_add(dest, value, pe);				\
}											\
void shmem_##N##_add(T *dest, T value, int pe)						\
{											\
	shmem_##N##_atomic_add(dest, value, pe);					\
}
SHMEM__AMO_OLD_STD(int, int)
SHMEM__AMO_OLD_STD(long, long)
SHMEM__AMO_OLD_STD(long long, longlong)
SHMEM__AMO_OLD(float, float)
SHMEM__AMO_OLD(double, double)

/* shmem.h's inline calls: an error of libpgas's call, reported as the
 * library's own calls report it. */
void shmem__i_fail(const char *call, int rc)
{
	shmem__fatal(call, "%s (%s)", pgas_last_error(), pgas_strerror(rc));
}
