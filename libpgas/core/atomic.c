// SPDX-License-Identifier: MIT
/*
 * atomic.c - atomic domains (pgas_atomic.h): creation, and the words of
 * the inline operations' failures.
 *
 * A destroyed domain keeps its memory (marked dead), so that a use after
 * pgas_ad_destroy is reported instead of reading freed memory; programs
 * create few domains, and every domain stays on a list (reachable: not
 * a leak to LeakSanitizer).
 *
 * and, or and xor go through the compare-and-swap loop of pgas_atomic.h,
 * not __atomic_fetch_and/or/xor: in the out-of-line copy of an operation
 * (op not a constant), GCC 12.2 at -O1 and -O2 compiled those builtins to
 * a compare-and-swap that stored the old value back (the atomics test:
 * 7 & 5 stayed 7), with the memory order a variable and also a constant.
 * Not reduced to a small case yet; add, sub, inc and dec compile right
 * (lock xadd) and keep their builtins.
 */
#include <pthread.h>
#include <stdlib.h>
#include "internal.h"

#define AD_DEAD 0x64656164u	/* the key of a destroyed domain */

struct ad_node {
	struct pgas__ad ad;	/* first: the handle points here */
	struct ad_node *next;
};

static struct ad_node *all_domains;
static pthread_mutex_t domains_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const dt_names[] = {
	[PGAS_DT_I32] = "int32", [PGAS_DT_U32] = "uint32", [PGAS_DT_I64] = "int64",
	[PGAS_DT_U64] = "uint64", [PGAS_DT_FLT] = "float", [PGAS_DT_DBL] = "double",
};

static const char *const op_names[] = {
	"GET", "SET", "SWAP", "CAS", "FCAS", "ADD", "FADD", "SUB", "FSUB", "INC", "FINC",
	"DEC", "FDEC", "MIN", "FMIN", "MAX", "FMAX", "MULT", "FMULT", "AND", "FAND", "OR",
	"FOR", "XOR", "FXOR",
};

static const char *op_name(unsigned op)
{
	return op && !(op & (op - 1)) && op <= PGAS__AOP_ALL ? op_names[__builtin_ctz(op)] : NULL;
}

/*
 * A domain created where some rank is not mapped here (pgas__ctl_msgs)
 * carries this bit in its tag: every operation through it misses the
 * inline check, also on a word of a mapped rank (its own).  The target of
 * a remote operation runs it only when it polls (rma_ref.c), so an owner
 * that spins with inline operations on its own word (a lock it shares with
 * remote ranks) would never let the holder's release in; out of line, each
 * local operation polls once after it.  Mapped jobs keep the inline path.
 * Both paths are the CPU's atomics on the owner's memory: they mix.
 */
#define AD_ROUTED 0x100u
_Static_assert(!(PGAS__AD_MAGIC & AD_ROUTED), "the routed bit is not the magic's");

/*
 * A domain created where some rank is not mapped and the conduit's amo
 * does every operation it declares on its type (the same answer on every
 * rank: the conduit agreed it at attach, PGAS_OFI_ATOMIC agreed at init):
 * every operation through it, on any rank, the own included, is the
 * fabric's (rma_ref.c), since a NIC's (or a provider's) atomics are not
 * atomic with the CPU's on the same word.  Instead of AD_ROUTED.
 */
#define AD_FABRIC 0x200u
_Static_assert(!(PGAS__AD_MAGIC & AD_FABRIC), "the fabric bit is not the magic's");

/* The tag as the inline check builds it (the path bits cleared). */
static uint32_t ad_tag(const struct pgas__ad *ad)
{
	return (uint32_t)ad->key & ~(AD_ROUTED | AD_FABRIC);
}

static uint32_t ad_ops(const struct pgas__ad *ad)
{
	return (uint32_t)(ad->key >> 32);
}

/* A live domain: the magic, and a type that pgas_ad_create accepts. */
static bool ad_live(const struct pgas__ad *ad)
{
	unsigned dt = ad_tag(ad) & 0xff;

	return (ad_tag(ad) & ~0xffu) == PGAS__AD_MAGIC && dt >= PGAS_DT_I32 && dt <= PGAS_DT_DBL;
}

static bool is_float(unsigned dt)
{
	return dt == PGAS_DT_FLT || dt == PGAS_DT_DBL;
}

static size_t dt_size(unsigned dt)
{
	return dt == PGAS_DT_I32 || dt == PGAS_DT_U32 || dt == PGAS_DT_FLT ? 4 : 8;
}

int pgas_ad_create(pgas_ad_t *ad, pgas_dt_t dt, unsigned ops, unsigned flags)
{
	static const char call[] = "pgas_ad_create";
	struct ad_node *d;
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!ad)
		return pgas__err(PGAS_ERR_INVAL, call, "ad is NULL");
	*ad = NULL;
	if (dt < PGAS_DT_I32 || dt > PGAS_DT_DBL)
		return pgas__err(PGAS_ERR_INVAL, call, "data type %d (PGAS_DT_I32 .. PGAS_DT_DBL)",
				 (int)dt);
	if (!ops || (ops & ~PGAS__AOP_ALL))
		return pgas__err(PGAS_ERR_INVAL, call, "operations %#x (a set of PGAS_AOP_*)", ops);
	if (is_float(dt) && (ops & PGAS__AOP_BITWISE))
		return pgas__err(PGAS_ERR_INVAL, call,
				 "and, or and xor (%#x) are for integer types, not %s",
				 ops & PGAS__AOP_BITWISE, dt_names[dt]);
	if (flags)
		return pgas__err(PGAS_ERR_INVAL, call, "flags %#x (none are defined)", flags);
	d = malloc(sizeof(*d));
	if (!d)
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for a domain");
	d->ad = (struct pgas__ad){ .key = PGAS__AD_KEY(dt, ops) };
	if (pgas__ctl_msgs)
		d->ad.key |= pgas__ref_amo_fabric(dt, ops) ? AD_FABRIC : AD_ROUTED;
	pthread_mutex_lock(&domains_lock);
	d->next = all_domains;
	all_domains = d;
	pthread_mutex_unlock(&domains_lock);
	*ad = &d->ad;
	return PGAS_OK;
}

/* A domain that is NULL, destroyed or none of ours: its error, else 0. */
static int ad_refuse(const char *call, pgas_ad_t ad)
{
	if (!ad)
		return pgas__err(PGAS_ERR_INVAL, call, "ad is NULL");
	if (ad->key == AD_DEAD)
		return pgas__err(PGAS_ERR_STATE, call, "domain %p was destroyed", (void *)ad);
	if (!ad_live(ad))
		return pgas__err(PGAS_ERR_INVAL, call, "%p is not an atomic domain", (void *)ad);
	return PGAS_OK;
}

int pgas_ad_destroy(pgas_ad_t ad)
{
	int rc = ad_refuse("pgas_ad_destroy", ad);

	if (rc)
		return rc;
	ad->key = AD_DEAD;
	return PGAS_OK;
}

int pgas__ad_fail(const char *call, pgas_ad_t ad, unsigned dt, int has_result,
		  unsigned rank, const void *addr, unsigned op, unsigned flags)
{
	const char *name = op_name(op);
	size_t size = dt_size(dt);
	int rc;

	if (flags & PGAS__AOP_NOHANDLE)
		return pgas__err(PGAS_ERR_INVAL, call, "handle is NULL");
	rc = ad_refuse(call, ad);
	if (rc)
		return rc;
	if (ad_tag(ad) != PGAS__AD_TAG(dt))
		return pgas__err(PGAS_ERR_INVAL, call,
				 "the domain's type is %s, this call's is %s",
				 dt_names[ad_tag(ad) & 0xff], dt_names[dt]);
	if (!name)
		return pgas__err(PGAS_ERR_INVAL, call, "op %#x is not one PGAS_AOP_* operation", op);
	if (!(ad_ops(ad) & op))
		return pgas__err(PGAS_ERR_INVAL, call,
				 "PGAS_AOP_%s was not declared when the domain was created (ops %#x)",
				 name, ad_ops(ad));
	if (flags & ~(PGAS_AOP_ACQ | PGAS_AOP_REL))
		return pgas__err(PGAS_ERR_INVAL, call, "unknown flags %#x",
				 flags & ~(PGAS_AOP_ACQ | PGAS_AOP_REL));
	rc = pgas__check_rank(call, rank);
	if (rc)
		return rc;
	if (!pgas__xlate(rank, addr, size) && !pgas__ref_takes(rank, addr, size))
		return pgas__rma_fail(call, rank, addr, size);
	if ((uintptr_t)addr & (size - 1))
		return pgas__err(PGAS_ERR_INVAL, call, "address %p not aligned to %zu bytes", addr,
				 size);
	if (!has_result && (op & PGAS__AOP_FETCHING))
		return pgas__err(PGAS_ERR_INVAL, call, "result is NULL for fetching PGAS_AOP_%s",
				 name);
	return pgas__err(PGAS_ERR_INVAL, call, "bad arguments");
}

/*
 * pgas_atomic.h's miss: an operation of a fabric domain, on any rank,
 * goes by the conduit's amo; one that passes every check but the
 * translation, on a rank not mapped here, goes to the target (rma_ref.c),
 * which runs it with pgas__ad_exec on its memory.
 */
struct pgas__val_ret pgas__ad_miss(const struct pgas__ad_miss_args *x)
{
	struct pgas__val_ret r = { 0, 0 };
	size_t size = dt_size(x->dt);
	const struct pgas__ad *ad = x->ad;
	char *p;
	/* An address misaligned is named by pgas__ad_fail. */
	bool valid = ad && ad_tag(ad) == PGAS__AD_TAG(x->dt) && op_name(x->op) &&
		     (ad_ops(ad) & x->op) && !(x->flags & ~(PGAS_AOP_ACQ | PGAS_AOP_REL)) &&
		     (x->has_result || !(x->op & PGAS__AOP_FETCHING)) &&
		     !((uintptr_t)x->addr & (size - 1));

	/* Release: this rank's puts in flight to ranks not mapped here
	 * complete first (pgas_fence's rule, rma_ref.c); a handler cannot
	 * wait for their replies, and releases as the CPU path does. */
	if (valid && (x->flags & PGAS_AOP_REL) && pgas__puts_in_flight(&pgas__g) &&
	    pgas__may_wait() &&
	    (r.rc = pgas__ref_drain(&pgas__g, x->call, PGAS__NBI_PUTS)))
		return r;
	if (valid && (ad->key & AD_FABRIC) && pgas__job.attached && x->rank < pgas__g.nranks &&
	    pgas__ref_in_bounds(x->rank, x->addr, size)) {
		r.rc = pgas__ev_ok(pgas__ref_amo_by_fabric(x->call, x->rank, (void *)x->addr, x->dt,
							   x->op, x->a, x->b, &r.value),
				   PGAS__EV_AMO_REMOTE, x->rank, size);
		return r;
	}
	if (valid && pgas__ref_takes(x->rank, x->addr, size)) {
		r.rc = pgas__ev_ok(pgas__ref_amo(x->call, x->rank, (void *)x->addr, x->dt, x->op,
						 x->flags, x->a, x->b, &r.value),
				   PGAS__EV_AMO_REMOTE, x->rank, size);
		return r;
	}
	/* A mapped rank: a routed domain's, or one that came here to release. */
	if (valid && pgas__map(x->rank, x->addr, size, &p) && !((uintptr_t)p & (size - 1))) {
		r.value = pgas__ad_exec(x->dt, p, x->op, x->a, x->b, x->flags);
		r.rc = pgas__ev_ok(pgas__rma_check(x->call, x->rank), PGAS__EV_AMO_MAPPED, x->rank,
				   size);
		if ((ad->key & AD_ROUTED) && pgas__may_wait())
			(void)pgas_poll();	/* serve the remote ranks' operations */
		return r;
	}
	r.rc = pgas__ad_fail(x->call, x->ad, x->dt, x->has_result, x->rank, x->addr, x->op,
			     x->flags);
	return r;
}

/* The operation at constant orders (see pgas_atomic.h's PGAS__AD_CALLS). */
#define AD_EXEC(T, p, op, a, b, flags, out)						\
	do {										\
		switch (flags) {							\
		case 0: out = pgas__ad_apply_##T(p, op, a, b, __ATOMIC_RELAXED); break;	\
		case PGAS_AOP_ACQ: out = pgas__ad_apply_##T(p, op, a, b, __ATOMIC_ACQUIRE); break; \
		case PGAS_AOP_REL: out = pgas__ad_apply_##T(p, op, a, b, __ATOMIC_RELEASE); break; \
		default: out = pgas__ad_apply_##T(p, op, a, b, __ATOMIC_ACQ_REL); break;	\
		}									\
	} while (0)

/* The target's side: the same code as a mapped peer's inline operation. */
uint64_t pgas__ad_exec(unsigned dt, void *p, unsigned op, uint64_t a, uint64_t b,
		       unsigned flags)
{
	uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b, o32;
	uint64_t o64;

	switch (dt) {
	case PGAS_DT_I32: {
		int32_t o;

		AD_EXEC(int32_t, (int32_t *)p, op, (int32_t)a32, (int32_t)b32, flags, o);
		return (uint32_t)o;
	}
	case PGAS_DT_U32: {
		uint32_t o;

		AD_EXEC(uint32_t, (uint32_t *)p, op, a32, b32, flags, o);
		return o;
	}
	case PGAS_DT_I64: {
		int64_t o;

		AD_EXEC(int64_t, (int64_t *)p, op, (int64_t)a, (int64_t)b, flags, o);
		return (uint64_t)o;
	}
	case PGAS_DT_U64: {
		uint64_t o;

		AD_EXEC(uint64_t, (uint64_t *)p, op, a, b, flags, o);
		return o;
	}
	case PGAS_DT_FLT: {
		float fa, fb, o;

		memcpy(&fa, &a32, 4);
		memcpy(&fb, &b32, 4);
		AD_EXEC(pgas__flt, (float *)p, op, fa, fb, flags, o);
		memcpy(&o32, &o, 4);
		return o32;
	}
	default: {
		double da, db, o;

		memcpy(&da, &a, 8);
		memcpy(&db, &b, 8);
		AD_EXEC(pgas__dbl, (double *)p, op, da, db, flags, o);
		memcpy(&o64, &o, 8);
		return o64;
	}
	}
}
