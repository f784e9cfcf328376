/* SPDX-License-Identifier: MIT */
/*
 * pgas_atomic.h - remote atomics in atomic domains (included by pgas.h).
 *
 * As GASNet-EX's gex_AD_Create: a domain names one data type and the set
 * of operations the program will apply to locations through it, up front,
 * so that a conduit can choose one way (CPU atomics here; NIC atomics or
 * active messages on a network) and keep every access to a location
 * coherent.  Rule: the locations a program updates through a domain are
 * accessed only through domains of the same type (not by puts or plain
 * stores) while it does.
 *
 * On shm and pgas.ko every peer's segment is mapped: an operation is one
 * CPU atomic (or a compare-and-swap loop for min, max, mult and the
 * floating-point ones) on the target's memory, truly one-sided.  Every
 * operation completes before the call returns: the _nb form gives
 * PGAS_HANDLE_DONE and the _nbi form leaves nothing for a sync to wait
 * for; code must not rely on that (as for RMA, pgas.h).
 *
 *   pgas_ad_op_TYPE(ad, &result, rank, addr, op, operand1, operand2, flags)
 *   pgas_ad_op_nb_TYPE(&handle, ad, &result, rank, ...)
 *   pgas_ad_op_nbi_TYPE(ad, &result, rank, ...)
 *
 * TYPE: i32 u32 i64 u64 flt dbl.  result: the value before the operation
 * (fetching ops; NULL allowed for the others).  operand1: the operand of
 * set, swap, add, sub, min, max, mult, and, or, xor; the value compared by
 * CAS and FCAS, whose operand2 is the value stored when they are equal.
 * Integers wrap (two's complement); and/or/xor are for integers only.
 * flags: PGAS_AOP_ACQ and/or PGAS_AOP_REL order the caller's other memory
 * accesses after / before it, as C11's acquire and release; the default is
 * relaxed.  An address must be aligned to the type's size.
 */
#ifndef PGAS_ATOMIC_H
#define PGAS_ATOMIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	PGAS_DT_I32 = 1, PGAS_DT_U32, PGAS_DT_I64, PGAS_DT_U64, PGAS_DT_FLT, PGAS_DT_DBL,
} pgas_dt_t;

/* One bit each: a domain's set is their OR.  F...: fetches the old value. */
enum pgas_aop {
	PGAS_AOP_GET = 1u << 0,
	PGAS_AOP_SET = 1u << 1,
	PGAS_AOP_SWAP = 1u << 2,	/* fetching set */
	PGAS_AOP_CAS = 1u << 3,
	PGAS_AOP_FCAS = 1u << 4,
	PGAS_AOP_ADD = 1u << 5,
	PGAS_AOP_FADD = 1u << 6,
	PGAS_AOP_SUB = 1u << 7,
	PGAS_AOP_FSUB = 1u << 8,
	PGAS_AOP_INC = 1u << 9,
	PGAS_AOP_FINC = 1u << 10,
	PGAS_AOP_DEC = 1u << 11,
	PGAS_AOP_FDEC = 1u << 12,
	PGAS_AOP_MIN = 1u << 13,
	PGAS_AOP_FMIN = 1u << 14,
	PGAS_AOP_MAX = 1u << 15,
	PGAS_AOP_FMAX = 1u << 16,
	PGAS_AOP_MULT = 1u << 17,
	PGAS_AOP_FMULT = 1u << 18,
	PGAS_AOP_AND = 1u << 19,
	PGAS_AOP_FAND = 1u << 20,
	PGAS_AOP_OR = 1u << 21,
	PGAS_AOP_FOR = 1u << 22,
	PGAS_AOP_XOR = 1u << 23,
	PGAS_AOP_FXOR = 1u << 24,
};
#define PGAS__AOP_ALL ((1u << 25) - 1)
#define PGAS__AOP_FETCHING (PGAS_AOP_GET | PGAS_AOP_SWAP | PGAS_AOP_FCAS | PGAS_AOP_FADD |     \
			    PGAS_AOP_FSUB | PGAS_AOP_FINC | PGAS_AOP_FDEC | PGAS_AOP_FMIN |     \
			    PGAS_AOP_FMAX | PGAS_AOP_FMULT | PGAS_AOP_FAND | PGAS_AOP_FOR |     \
			    PGAS_AOP_FXOR)
#define PGAS__AOP_BITWISE (PGAS_AOP_AND | PGAS_AOP_FAND | PGAS_AOP_OR | PGAS_AOP_FOR |         \
			   PGAS_AOP_XOR | PGAS_AOP_FXOR)

/* Flags of an operation. */
#define PGAS_AOP_ACQ 1u		/* acquire: later accesses stay after it */
#define PGAS_AOP_REL 2u		/* release: earlier accesses complete before it */

/*
 * key: the magic, the type and the set of operations in one word, so that
 * the inline checks of a live domain, of the call's type and of the
 * operation are one load (on a hot line every load between two locked
 * instructions counts).
 */
struct pgas__ad {
	uint64_t key;		/* PGAS__AD_KEY(dt, ops) while live */
};
typedef struct pgas__ad *pgas_ad_t;
#define PGAS__AD_MAGIC 0x70616400u	/* "pad", and the type in the low byte */
#define PGAS__AD_TAG(dt) (PGAS__AD_MAGIC | (uint32_t)(dt))
#define PGAS__AD_KEY(dt, ops) (PGAS__AD_TAG(dt) | (uint64_t)(ops) << 32)

/*
 * Creates a domain of type dt for the operations in ops (a set of
 * PGAS_AOP_*; bitwise ones on integer types only).  flags: 0.  Local: each
 * rank creates the domains it uses.  After pgas_attach.
 */
int pgas_ad_create(pgas_ad_t *ad, pgas_dt_t dt, unsigned ops, unsigned flags);
/* Operations through it are refused afterwards (PGAS_ERR_STATE). */
int pgas_ad_destroy(pgas_ad_t ad);

/*
 * The error of a refused call (never PGAS_OK).  has_result: the result
 * pointer was not NULL.  Not the pointer itself: a caller's variable whose
 * address reaches a function lives in memory, and every operation would
 * store its result there and the caller load it back.
 */
int pgas__ad_fail(const char *call, pgas_ad_t ad, unsigned dt, int has_result,
		  unsigned rank, const void *addr, unsigned op, unsigned flags);

/* The same, telling the compiler that it is not 0: code that tests the
 * call's return before it reads the result gets no maybe-uninitialized
 * warning. */
static inline __attribute__((always_inline))
int pgas__ad_refuse(const char *call, pgas_ad_t ad, unsigned dt, int has_result,
		    unsigned rank, const void *addr, unsigned op, unsigned flags)
{
	int rc = pgas__ad_fail(call, ad, dt, has_result, rank, addr, op, flags);

	if (rc == 0)
		__builtin_unreachable();
	return rc;
}

/*
 * A miss of an operation's inline checks, with every operand (built on
 * the cold path only): the remote path (core/rma_ref.c: the target runs
 * the operation on its memory) where rank is valid but not mapped here,
 * else pgas__ad_fail's error.  The old value comes back in registers
 * (struct pgas__val_ret), not through the result pointer.  a and b: the
 * operands' bits (a 4-byte type's in the low half).
 */
struct pgas__ad_miss_args {
	const char *call;
	pgas_ad_t ad;
	unsigned dt;
	int has_result;
	unsigned rank;
	unsigned op;
	const void *addr;
	unsigned flags;
	uint64_t a, b;
};
struct pgas__val_ret pgas__ad_miss(const struct pgas__ad_miss_args *x);

/* A load can be neither release nor acq_rel in C11: the nearest legal. */
static inline int pgas__aorder_load(int mo)
{
	return mo == __ATOMIC_RELEASE || mo == __ATOMIC_ACQ_REL ? __ATOMIC_SEQ_CST : mo;
}

static inline int pgas__aorder_store(int mo)
{
	return mo == __ATOMIC_ACQUIRE || mo == __ATOMIC_ACQ_REL ? __ATOMIC_SEQ_CST : mo;
}

/* A failed compare-and-swap is a load, no stronger than the success order. */
static inline int pgas__aorder_fail(int mo)
{
	return mo == __ATOMIC_ACQ_REL || mo == __ATOMIC_ACQUIRE ? __ATOMIC_ACQUIRE
								 : __ATOMIC_RELAXED;
}

/* pgas__ad_fail's flags: the _nb call's handle pointer was NULL. */
#define PGAS__AOP_NOHANDLE 0x80000000u

/*
 * One typed operation on local memory p (the target's segment as mapped
 * here).  T: the C type; U: the unsigned integer of its size (the bits a
 * compare-and-swap loop exchanges); FL: 1 for float and double.
 */
#define PGAS__AD_APPLY(T, U, FL)							\
static inline __attribute__((always_inline))						\
T pgas__ad_apply_##T(T *p, unsigned op, T a, T b, int mo)				\
{											\
	U *w = (U *)p, old, new_;							\
	T o, n;										\
											\
	switch (op) {									\
	case PGAS_AOP_GET: {								\
		U v = __atomic_load_n(w, pgas__aorder_load(mo));			\
		memcpy(&o, &v, sizeof(o));						\
		return o;								\
	}										\
	case PGAS_AOP_SET:								\
		memcpy(&new_, &a, sizeof(a));						\
		__atomic_store_n(w, new_, pgas__aorder_store(mo));			\
		return a;								\
	case PGAS_AOP_SWAP:								\
		memcpy(&new_, &a, sizeof(a));						\
		old = __atomic_exchange_n(w, new_, mo);				\
		memcpy(&o, &old, sizeof(o));						\
		return o;								\
	case PGAS_AOP_CAS:								\
	case PGAS_AOP_FCAS:								\
		memcpy(&old, &a, sizeof(a));						\
		memcpy(&new_, &b, sizeof(b));						\
		__atomic_compare_exchange_n(w, &old, new_, 0, mo,			\
					    pgas__aorder_fail(mo));			\
		memcpy(&o, &old, sizeof(o));						\
		return o;								\
	}										\
	if (!FL) {									\
		U ua = (U)a;	/* integers: the same bits, modulo 2^n */		\
		switch (op) {								\
		case PGAS_AOP_ADD: case PGAS_AOP_FADD:					\
			old = __atomic_fetch_add(w, ua, mo); goto fetched;		\
		case PGAS_AOP_SUB: case PGAS_AOP_FSUB:					\
			old = __atomic_fetch_sub(w, ua, mo); goto fetched;		\
		case PGAS_AOP_INC: case PGAS_AOP_FINC:					\
			old = __atomic_fetch_add(w, (U)1, mo); goto fetched;		\
		case PGAS_AOP_DEC: case PGAS_AOP_FDEC:					\
			old = __atomic_fetch_sub(w, (U)1, mo); goto fetched;		\
		default:	/* and, or, xor: the loop (see atomic.c) */	\
			break;								\
		}									\
	}										\
	/* min, max, mult, and floating-point arithmetic: a CAS loop. */		\
	old = __atomic_load_n(w, __ATOMIC_RELAXED);					\
	do {										\
		memcpy(&o, &old, sizeof(o));						\
		switch (op) {								\
		case PGAS_AOP_ADD: case PGAS_AOP_FADD: n = (T)(o + a); break;		\
		case PGAS_AOP_SUB: case PGAS_AOP_FSUB: n = (T)(o - a); break;		\
		case PGAS_AOP_INC: case PGAS_AOP_FINC: n = (T)(o + 1); break;		\
		case PGAS_AOP_DEC: case PGAS_AOP_FDEC: n = (T)(o - 1); break;		\
		case PGAS_AOP_MIN: case PGAS_AOP_FMIN: n = a < o ? a : o; break;	\
		case PGAS_AOP_MAX: case PGAS_AOP_FMAX: n = a > o ? a : o; break;	\
		case PGAS_AOP_AND: case PGAS_AOP_FAND: n = (T)((U)o & (U)a); break;	\
		case PGAS_AOP_OR: case PGAS_AOP_FOR: n = (T)((U)o | (U)a); break;	\
		case PGAS_AOP_XOR: case PGAS_AOP_FXOR: n = (T)((U)o ^ (U)a); break;	\
		default: /* MULT, FMULT */						\
			n = FL ? (T)(o * a) : (T)((U)o * (U)a); break;			\
		}									\
		memcpy(&new_, &n, sizeof(n));						\
	} while (!__atomic_compare_exchange_n(w, &old, new_, 1, mo, pgas__aorder_fail(mo)));\
fetched:										\
	memcpy(&o, &old, sizeof(o));							\
	return o;									\
}

typedef float pgas__flt;
typedef double pgas__dbl;
PGAS__AD_APPLY(int32_t, uint32_t, 0)
PGAS__AD_APPLY(uint32_t, uint32_t, 0)
PGAS__AD_APPLY(int64_t, uint64_t, 0)
PGAS__AD_APPLY(uint64_t, uint64_t, 0)
PGAS__AD_APPLY(pgas__flt, uint32_t, 1)
PGAS__AD_APPLY(pgas__dbl, uint64_t, 1)

/*
 * May operation op (one PGAS_AOP_* bit) with flags run inline on ad, whose
 * type is dt, the result wanted (has_result) or not?  Else the miss path
 * decides (the remote path, a fabric domain's) and reports.  With the
 * translation of the address, the inline calls' checks; the part after
 * them is pgas__ad_at_* below, which a layer that translates by itself
 * calls directly (the OpenSHMEM layer's AMOs, shmem.h).
 */
static inline __attribute__((always_inline))
int pgas__ad_inline(pgas_ad_t ad, unsigned dt, unsigned op, unsigned flags, int has_result)
{
	uint64_t k;

	return ad && (uint32_t)(k = ad->key) == PGAS__AD_TAG(dt) && !(op & (op - 1)) &&
	       ((k >> 32) & op) && !(flags & ~(PGAS_AOP_ACQ | PGAS_AOP_REL)) &&
	       !((flags & PGAS_AOP_REL) && pgas__puts_in_flight(&pgas__g)) &&
	       (has_result || !(op & PGAS__AOP_FETCHING));
}

/*
 * The blocking, _nb and _nbi calls of one type.  always_inline: with the
 * operation a constant at the call site the whole call folds to the checks
 * and one instruction; left to its heuristics GCC 12 -O2 keeps one
 * out-of-line copy of pgas__ad_op_u64 (the operation a switch) as soon as a
 * file calls it in a few places, which doubled the cost of a fetch-add in
 * bench/atomic_bench (6.0 against 3.0 ns).
 */
#define PGAS__AD_CALLS(sfx, T, DT)							\
static inline __attribute__((always_inline))						\
int pgas__ad_miss_##sfx(const char *call, pgas_ad_t ad, T *result, unsigned rank,	\
			void *addr, unsigned op, T a, T b, unsigned flags)		\
{											\
	struct pgas__ad_miss_args x = { call, ad, (DT), !!result, rank, op, addr,	\
					flags, 0, 0 };					\
	struct pgas__val_ret r;								\
											\
	if (sizeof(T) == 4) {								\
		uint32_t u[2];								\
											\
		memcpy(&u[0], &a, 4);							\
		memcpy(&u[1], &b, 4);							\
		x.a = u[0];								\
		x.b = u[1];								\
	} else {									\
		memcpy(&x.a, &a, sizeof(T));						\
		memcpy(&x.b, &b, sizeof(T));						\
	}										\
	r = pgas__ad_miss(&x);								\
	if (!r.rc && result) {								\
		if (sizeof(T) == 4) {							\
			uint32_t u = (uint32_t)r.value;					\
											\
			memcpy(result, &u, 4);						\
		} else {								\
			memcpy(result, &r.value, sizeof(T));				\
		}									\
	}										\
	return (int)r.rc;								\
}											\
static inline __attribute__((always_inline))						\
int pgas__ad_at_##sfx(const char *call, T *result, unsigned rank, char *p,		\
		      unsigned op, T a, T b, unsigned flags)				\
{											\
	T o;										\
											\
	PGAS__NOTE(PGAS__NOTE_AMO, rank, sizeof(T));					\
	/* Constant orders only: GCC 12 expands a fetch-op whose order is	\
	 * not a constant as a compare-and-swap loop that loses the operand. */	\
	switch (flags) {								\
	case 0: o = pgas__ad_apply_##T((T *)p, op, a, b, __ATOMIC_RELAXED); break;	\
	case PGAS_AOP_ACQ: o = pgas__ad_apply_##T((T *)p, op, a, b, __ATOMIC_ACQUIRE); break;\
	case PGAS_AOP_REL: o = pgas__ad_apply_##T((T *)p, op, a, b, __ATOMIC_RELEASE); break;\
	default: o = pgas__ad_apply_##T((T *)p, op, a, b, __ATOMIC_ACQ_REL); break;	\
	}										\
	if (result)									\
		*result = o;								\
	return pgas__rma_check(call, rank);						\
}											\
static inline __attribute__((always_inline))						\
int pgas__ad_op_##sfx(const char *call, pgas_ad_t ad, T *result,		\
				    unsigned rank, void *addr, unsigned op, T a, T b,	\
				    unsigned flags)					\
{											\
	char *p;									\
											\
	if (PGAS__UNLIKELY(!pgas__ad_inline(ad, (DT), op, flags, !!result) ||		\
			   !pgas__map(rank, addr, sizeof(T), &p) ||			\
			   ((uintptr_t)p & (sizeof(T) - 1))))				\
		return pgas__ad_miss_##sfx(call, ad, result, rank, addr, op, a, b, flags);	\
	return pgas__ad_at_##sfx(call, result, rank, p, op, a, b, flags);		\
}											\
static inline __attribute__((always_inline))						\
int pgas_ad_op_##sfx(pgas_ad_t ad, T *result, unsigned rank, void *addr,	\
				   unsigned op, T operand1, T operand2, unsigned flags)	\
{											\
	return pgas__ad_op_##sfx("pgas_ad_op_" #sfx, ad, result, rank, addr, op,	\
				 operand1, operand2, flags);				\
}											\
static inline __attribute__((always_inline))						\
int pgas_ad_op_nb_##sfx(pgas_handle_t *handle, pgas_ad_t ad, T *result,	\
				      unsigned rank, void *addr, unsigned op,		\
				      T operand1, T operand2, unsigned flags)		\
{											\
	if (PGAS__UNLIKELY(!handle))							\
		return pgas__ad_refuse("pgas_ad_op_nb_" #sfx, ad, (DT), !!result, rank,	\
				     addr, op, flags | PGAS__AOP_NOHANDLE);		\
	*handle = PGAS_HANDLE_DONE;							\
	return pgas__ad_op_##sfx("pgas_ad_op_nb_" #sfx, ad, result, rank, addr, op,	\
				 operand1, operand2, flags);				\
}											\
static inline __attribute__((always_inline))						\
int pgas_ad_op_nbi_##sfx(pgas_ad_t ad, T *result, unsigned rank,		\
				       void *addr, unsigned op, T operand1, T operand2,	\
				       unsigned flags)					\
{											\
	return pgas__ad_op_##sfx("pgas_ad_op_nbi_" #sfx, ad, result, rank, addr, op,	\
				 operand1, operand2, flags);				\
}

PGAS__AD_CALLS(i32, int32_t, PGAS_DT_I32)
PGAS__AD_CALLS(u32, uint32_t, PGAS_DT_U32)
PGAS__AD_CALLS(i64, int64_t, PGAS_DT_I64)
PGAS__AD_CALLS(u64, uint64_t, PGAS_DT_U64)
PGAS__AD_CALLS(flt, pgas__flt, PGAS_DT_FLT)
PGAS__AD_CALLS(dbl, pgas__dbl, PGAS_DT_DBL)
#undef PGAS__AD_CALLS
#undef PGAS__AD_APPLY

#ifdef __cplusplus
}
#endif

#endif /* PGAS_ATOMIC_H */
