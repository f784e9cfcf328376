// SPDX-License-Identifier: MIT
/*
 * coll_reduce.c - reduction kernels: built-in operations over the integer
 * and floating types, and user operations.
 *
 * Kernels read and write through 1-byte-aligned types, so user buffers
 * need no alignment; on x86-64 that costs nothing and the loops vectorise.
 * Integer sums and products wrap (computed unsigned), as in C for
 * unsigned types and as every MPI does in practice for signed ones.
 */
#include "coll.h"

#define MAX_USER_OPS 64

struct user_op {
	pgas_reduce_fn fn;
	void *ctx;
	size_t elem;
	bool commutative;
};

static struct user_op user_ops[MAX_USER_OPS];
static unsigned n_user_ops;

static const size_t type_sizes[] = {
	[PGAS_INT8] = 1, [PGAS_UINT8] = 1, [PGAS_INT16] = 2, [PGAS_UINT16] = 2,
	[PGAS_INT32] = 4, [PGAS_UINT32] = 4, [PGAS_INT64] = 8, [PGAS_UINT64] = 8,
	[PGAS_FLOAT] = 4, [PGAS_DOUBLE] = 8,
};

int pgas_op_create(pgas_op_t *op, pgas_reduce_fn fn, size_t elem_size, unsigned flags,
		   void *ctx)
{
	static const char call[] = "pgas_op_create";

	if (!op)
		return pgas__err(PGAS_ERR_INVAL, call, "op is NULL");
	if (!fn)
		return pgas__err(PGAS_ERR_INVAL, call, "fn is NULL");
	if (elem_size == 0 || elem_size > 4096)
		return pgas__err(PGAS_ERR_INVAL, call, "elem_size %zu (must be 1..4096)", elem_size);
	if (flags & ~PGAS_OP_COMMUTATIVE)
		return pgas__err(PGAS_ERR_INVAL, call, "unknown flags 0x%x", flags);
	if (n_user_ops == MAX_USER_OPS)
		return pgas__err(PGAS_ERR_NOMEM, call, "all %d user operations are in use",
				 MAX_USER_OPS);
	user_ops[n_user_ops] = (struct user_op){ fn, ctx, elem_size,
						  flags & PGAS_OP_COMMUTATIVE };
	*op = PGAS__NBUILTIN_OPS + (int)n_user_ops++;
	return PGAS_OK;
}

size_t pgas__type_size(pgas_type_t type, pgas_op_t op)
{
	if (type == PGAS_TYPE_USER)
		return user_ops[op - PGAS__NBUILTIN_OPS].elem;
	return type_sizes[type];
}

int pgas__op_check(const char *call, pgas_type_t type, pgas_op_t op, bool *commutative)
{
	bool user = op >= PGAS__NBUILTIN_OPS;

	if ((unsigned)type >= PGAS__NTYPES)
		return pgas__err(PGAS_ERR_INVAL, call, "type %d is not a pgas_type_t", (int)type);
	if (op < 0 || op >= PGAS__NBUILTIN_OPS + (int)n_user_ops)
		return pgas__err(PGAS_ERR_INVAL, call, "op %d is neither built in nor created", op);
	if (user != (type == PGAS_TYPE_USER))
		return pgas__err(PGAS_ERR_INVAL, call,
				 user ? "user op %d needs type PGAS_TYPE_USER, got %d"
				      : "built-in op %d cannot reduce PGAS_TYPE_USER (type %d)",
				 op, (int)type);
	if ((op == PGAS_OP_AND || op == PGAS_OP_OR || op == PGAS_OP_XOR) &&
	    (type == PGAS_FLOAT || type == PGAS_DOUBLE))
		return pgas__err(PGAS_ERR_INVAL, call, "bitwise op %d on floating type %d", op,
				 (int)type);
	*commutative = user ? user_ops[op - PGAS__NBUILTIN_OPS].commutative : true;
	return PGAS_OK;
}

#define LOOP(T, EXPR)								\
	do {									\
		typedef T __attribute__((aligned(1), may_alias)) ut;		\
		ut *o = out;							\
		const ut *x = a, *y = b;					\
		for (size_t i = 0; i < count; i++)				\
			o[i] = (T)(EXPR);					\
	} while (0)

#define ARITH(T, U)								\
	do {									\
		switch (op) {							\
		case PGAS_OP_SUM: LOOP(T, (U)x[i] + (U)y[i]); return;		\
		case PGAS_OP_PROD: LOOP(T, (U)x[i] * (U)y[i]); return;		\
		case PGAS_OP_MIN: LOOP(T, y[i] < x[i] ? y[i] : x[i]); return;	\
		case PGAS_OP_MAX: LOOP(T, y[i] > x[i] ? y[i] : x[i]); return;	\
		}								\
	} while (0)

#define BITS(T, U)								\
	do {									\
		ARITH(T, U);							\
		switch (op) {							\
		case PGAS_OP_AND: LOOP(T, x[i] & y[i]); return;			\
		case PGAS_OP_OR: LOOP(T, x[i] | y[i]); return;			\
		case PGAS_OP_XOR: LOOP(T, x[i] ^ y[i]); return;			\
		}								\
	} while (0)

void pgas__reduce(void *out, const void *a, const void *b, size_t count, pgas_type_t type,
		  pgas_op_t op)
{
	if (op >= PGAS__NBUILTIN_OPS) {
		const struct user_op *u = &user_ops[op - PGAS__NBUILTIN_OPS];

		if (out != a)
			memcpy(out, a, count * u->elem);
		u->fn(out, b, count, u->ctx);
		return;
	}
	switch (type) {
	case PGAS_INT8: BITS(int8_t, uint32_t); break;
	case PGAS_UINT8: BITS(uint8_t, uint32_t); break;
	case PGAS_INT16: BITS(int16_t, uint32_t); break;
	case PGAS_UINT16: BITS(uint16_t, uint32_t); break;
	case PGAS_INT32: BITS(int32_t, uint32_t); break;
	case PGAS_UINT32: BITS(uint32_t, uint32_t); break;
	case PGAS_INT64: BITS(int64_t, uint64_t); break;
	case PGAS_UINT64: BITS(uint64_t, uint64_t); break;
	case PGAS_FLOAT: ARITH(float, float); break;
	case PGAS_DOUBLE: ARITH(double, double); break;
	default: break;
	}
}
