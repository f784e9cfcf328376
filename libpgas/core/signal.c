// SPDX-License-Identifier: MIT
/*
 * signal.c - puts with a signal, and waits on local memory (pgas_signal.h).
 *
 * A signal is an atomic store or add (release) on the target's mapped word
 * after the copy.  Waking a target that sleeps is pgas__rma_gone()'s job in
 * the block wait mode (rma.c): pgas__rma_check() sends every transfer there
 * then, so waits need no polling of their own for what a put, a signal or
 * an atomic changes.
 */
#include <stdint.h>
#include "internal.h"

static int put_with_signal(const char *call, pgas_handle_t *handle, bool want_handle,
			   unsigned rank, void *dst, const void *src, size_t nbytes,
			   uint64_t *sig_addr, uint64_t signal, int sig_op)
{
	char *d, *s;
	int rc = pgas__check_rank(call, rank);

	if (rc)
		return rc;
	if (want_handle && !handle)
		return pgas__err(PGAS_ERR_INVAL, call, "handle is NULL");
	if (sig_op != PGAS_SIGNAL_SET && sig_op != PGAS_SIGNAL_ADD)
		return pgas__err(PGAS_ERR_INVAL, call,
				 "sig_op %d (PGAS_SIGNAL_SET or PGAS_SIGNAL_ADD)", sig_op);
	if (!pgas__rank_mapped(rank)) {
		/* The remote path (rma_ref.c): the data, then the signal, on
		 * one ring; checked here with the target's bounds. */
		if (!pgas__ref_takes(rank, sig_addr, sizeof(*sig_addr)))
			return pgas__rma_fail(call, rank, sig_addr, sizeof(*sig_addr));
		if ((uintptr_t)sig_addr & (sizeof(*sig_addr) - 1))
			return pgas__err(PGAS_ERR_INVAL, call, "sig_addr %p is not 8-byte aligned",
					 (void *)sig_addr);
		if (!pgas__ref_takes(rank, dst, nbytes) || (!src && nbytes))
			return pgas__rma_fail(call, rank, dst, nbytes);
		if (nbytes && (char *)sig_addr + sizeof(*sig_addr) > (char *)dst &&
		    (char *)sig_addr < (char *)dst + nbytes)
			return pgas__err(PGAS_ERR_INVAL, call,
					 "sig_addr %p lies inside the destination [%p, +%zu)",
					 (void *)sig_addr, dst, nbytes);
		return pgas__ref_put_signal(call, want_handle ? handle : NULL, rank, dst, src,
					    nbytes, sig_addr, signal, sig_op);
	}
	if (!pgas__map(rank, sig_addr, sizeof(*sig_addr), &s))
		return pgas__rma_fail(call, rank, sig_addr, sizeof(*sig_addr));
	if ((uintptr_t)s & (sizeof(*sig_addr) - 1))
		return pgas__err(PGAS_ERR_INVAL, call, "sig_addr %p is not 8-byte aligned",
				 (void *)sig_addr);
	if (!pgas__map(rank, dst, nbytes, &d) || (!src && nbytes))
		return pgas__rma_fail(call, rank, dst, nbytes);
	if (nbytes && s + sizeof(*sig_addr) > d && s < d + nbytes)
		return pgas__err(PGAS_ERR_INVAL, call,
				 "sig_addr %p lies inside the destination [%p, +%zu)",
				 (void *)sig_addr, dst, nbytes);
	pgas__copy(d, src, nbytes);
	if (sig_op == PGAS_SIGNAL_SET)
		atomic_store_explicit((_Atomic uint64_t *)s, signal, memory_order_release);
	else
		atomic_fetch_add_explicit((_Atomic uint64_t *)s, signal, memory_order_release);
	if (handle)
		*handle = PGAS_HANDLE_DONE;
	return pgas__rma_check(call, rank);
}

int pgas_put_with_signal(unsigned rank, void *dst, const void *src, size_t nbytes,
			 uint64_t *sig_addr, uint64_t signal, int sig_op)
{
	return pgas__ev_ok(put_with_signal("pgas_put_with_signal", NULL, false, rank, dst, src,
					   nbytes, sig_addr, signal, sig_op),
			   PGAS__EV_PUT_SIGNAL, rank, nbytes);
}

int pgas_put_with_signal_nb(pgas_handle_t *handle, unsigned rank, void *dst, const void *src,
			    size_t nbytes, uint64_t *sig_addr, uint64_t signal, int sig_op)
{
	return pgas__ev_ok(put_with_signal("pgas_put_with_signal_nb", handle, true, rank, dst,
					   src, nbytes, sig_addr, signal, sig_op),
			   PGAS__EV_PUT_SIGNAL, rank, nbytes);
}

int pgas_put_with_signal_nbi(unsigned rank, void *dst, const void *src, size_t nbytes,
			     uint64_t *sig_addr, uint64_t signal, int sig_op)
{
	return pgas__ev_ok(put_with_signal("pgas_put_with_signal_nbi", NULL, false, rank, dst,
					   src, nbytes, sig_addr, signal, sig_op),
			   PGAS__EV_PUT_SIGNAL, rank, nbytes);
}

int pgas_signal_fetch(const uint64_t *sig_addr, uint64_t *value)
{
	static const char call[] = "pgas_signal_fetch";

	if (!sig_addr || ((uintptr_t)sig_addr & 7))
		return pgas__err(PGAS_ERR_INVAL, call, "sig_addr %p (must be 8-byte aligned)",
				 (const void *)sig_addr);
	if (!value)
		return pgas__err(PGAS_ERR_INVAL, call, "value is NULL");
	*value = atomic_load_explicit((_Atomic uint64_t *)sig_addr, memory_order_acquire);
	return PGAS_OK;
}

/* ---- waits on local memory ------------------------------------------------ */

struct memwait {
	const char *ivars;
	size_t size;		/* of one word */
	unsigned dt;
	size_t n;
	const int *status;
	int cmp;
	const char *values;
	int vector;
	int kind;
	size_t *out;
	size_t *count;
	size_t start;		/* ANY: the first word scanned (pgas__any_start) */
};

/* -1, 0, 1 as the word at p compares with the value at v (acquire load). */
static int compare(unsigned dt, const void *p, const void *v)
{
	switch (dt) {
	case PGAS_DT_I32: {
		int32_t a = atomic_load_explicit((_Atomic int32_t *)p, memory_order_acquire);
		int32_t b = *(const int32_t *)v;

		return (a > b) - (a < b);
	}
	case PGAS_DT_U32: {
		uint32_t a = atomic_load_explicit((_Atomic uint32_t *)p, memory_order_acquire);
		uint32_t b = *(const uint32_t *)v;

		return (a > b) - (a < b);
	}
	case PGAS_DT_I64: {
		int64_t a = atomic_load_explicit((_Atomic int64_t *)p, memory_order_acquire);
		int64_t b = *(const int64_t *)v;

		return (a > b) - (a < b);
	}
	default: {
		uint64_t a = atomic_load_explicit((_Atomic uint64_t *)p, memory_order_acquire);
		uint64_t b = *(const uint64_t *)v;

		return (a > b) - (a < b);
	}
	}
}

static bool holds(const struct memwait *m, size_t i)
{
	int c = compare(m->dt, m->ivars + i * m->size,
			m->vector ? m->values + i * m->size : m->values);

	switch (m->cmp) {
	case PGAS_CMP_EQ: return c == 0;
	case PGAS_CMP_NE: return c != 0;
	case PGAS_CMP_GT: return c > 0;
	case PGAS_CMP_GE: return c >= 0;
	case PGAS_CMP_LT: return c < 0;
	default: return c <= 0;	/* PGAS_CMP_LE */
	}
}

/*
 * The _any forms' fairness (OpenSHMEM 1.5: a series of calls eventually
 * returns every index whose condition holds).  Each thread remembers, for
 * the last ANY_TURNS arrays it waited on (by address), the word after the
 * one its last _any call returned there, and the next call's scan starts
 * there: round robin, so of words that keep holding each is returned
 * within n calls.  An array not remembered starts at a pseudo-random word
 * (splitmix64 of a per-thread counter), so that a thread cycling through
 * more arrays than that is still fair, with probability 1.  Per thread,
 * so no lock and no shared write.
 */
#define ANY_TURNS 8
static _Thread_local struct any_turn {
	const void *ivars;
	size_t next;
} any_turns[ANY_TURNS];
static _Thread_local unsigned any_victim;
static _Thread_local uint64_t any_seed;

size_t pgas__any_start(const void *ivars, size_t n)
{
	uint64_t z;

	if (!n)
		return 0;
	for (unsigned t = 0; t < ANY_TURNS; t++)
		if (any_turns[t].ivars == ivars)
			return any_turns[t].next % n;
	z = (any_seed += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (size_t)((z ^ (z >> 31)) % n);
}

void pgas__any_returned(const void *ivars, size_t index)
{
	struct any_turn *t = NULL;

	for (unsigned i = 0; i < ANY_TURNS && !t; i++)
		if (any_turns[i].ivars == ivars)
			t = &any_turns[i];
	if (!t)
		t = &any_turns[any_victim++ % ANY_TURNS];
	t->ivars = ivars;
	t->next = index + 1;
}

/* One pass: true when the wait is over (its results written).  ANY scans
 * from m->start round; the others from 0. */
static bool scan(const struct memwait *m)
{
	size_t live = 0, hits = 0;

	for (size_t j = 0, i = m->start; j < m->n; j++, i = i + 1 == m->n ? 0 : i + 1) {
		if (m->status && m->status[i])
			continue;
		live++;
		if (!holds(m, i)) {
			if (m->kind == PGAS__WM_ALL || m->kind == PGAS__WM_ONE)
				return false;
			continue;
		}
		if (m->kind == PGAS__WM_ANY) {
			*m->out = i;
			pgas__any_returned(m->ivars, i);
			return true;
		}
		if (m->kind == PGAS__WM_SOME)
			m->out[hits] = i;
		hits++;
	}
	if (m->kind == PGAS__WM_ANY) {
		if (live)
			return false;
		*m->out = SIZE_MAX;	/* nothing to wait for */
		return true;
	}
	if (m->kind == PGAS__WM_SOME) {
		if (live && !hits)
			return false;
		*m->count = hits;
	}
	return true;
}

static int recheck(const void *m)
{
	return scan(m);
}

static size_t dt_size(unsigned dt)
{
	return dt == PGAS_DT_I32 || dt == PGAS_DT_U32 ? 4 : 8;
}

int pgas__wait_mem(const char *call, const void *ivars, unsigned dt, size_t n,
		   const int *status, int cmp, const void *values, int vector, int kind,
		   int test, size_t *out, size_t *count)
{
	struct memwait m = {
		.ivars = ivars, .size = dt_size(dt), .dt = dt, .n = n, .status = status,
		.cmp = cmp, .values = values, .vector = vector, .kind = kind, .out = out,
		.count = count,
	};
	struct pgas__waiter w = PGAS__WAITER_INIT;

	if (cmp < PGAS_CMP_EQ || cmp > PGAS_CMP_LE)
		return pgas__err(PGAS_ERR_INVAL, call, "cmp %d (must be a PGAS_CMP_*)", cmp);
	if (!ivars && n)
		return pgas__err(PGAS_ERR_INVAL, call, "ivars is NULL but n is %zu", n);
	if ((uintptr_t)ivars & (m.size - 1))
		return pgas__err(PGAS_ERR_INVAL, call, "ivars %p is not %zu-byte aligned",
				 ivars, m.size);
	if (vector && !values && n)
		return pgas__err(PGAS_ERR_INVAL, call, "values is NULL but n is %zu", n);
	if ((kind == PGAS__WM_ANY || kind == PGAS__WM_SOME) && !out)
		return pgas__err(PGAS_ERR_INVAL, call, "%s is NULL",
				 kind == PGAS__WM_ANY ? "index" : "indices");
	if (kind == PGAS__WM_SOME && !count)
		return pgas__err(PGAS_ERR_INVAL, call, "count is NULL");
	if (n > SIZE_MAX / m.size)
		return pgas__err(PGAS_ERR_INVAL, call, "n %zu words do not fit memory", n);
	if (kind == PGAS__WM_ANY)
		m.start = pgas__any_start(ivars, n);
	if (test) {
		/* Progress as a wait's first step would make it, without idling. */
		if (pgas__may_wait() && pgas__job.attached)
			(void)pgas_poll();
		return scan(&m);
	}
	/*
	 * Above PGAS_THREAD_SINGLE a thread of this process may be the writer
	 * (a compute thread's flag): the wait is not ended as abandoned when
	 * every other rank has left (wait.c, check_abandoned), as a wait for
	 * what only peers can do is.
	 */
	w.poller = pgas__level > PGAS_THREAD_SINGLE;
	w.recheck = recheck;
	w.recheck_arg = &m;
	/* A wait is a poll, even one that holds at once (GASNet's rule): where
	 * some rank is not mapped, its puts into my words need my handlers,
	 * and a caller that loops on waits that hold would never run them. */
	if (pgas__ctl_msgs && pgas__may_wait())
		(void)pgas_poll();
	while (!scan(&m))
		pgas__wait_step(&w);
	return PGAS_OK;
}
