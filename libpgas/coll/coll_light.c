// SPDX-License-Identifier: MIT
/*
 * coll_light.c - the light path: a small blocking call that the engine
 * (coll.c) would run eagerly, on a team of mapped members with no call in
 * flight, run straight through instead of as a queued coroutine.
 *
 * It keeps the engine's protocol to the word, so that members that take
 * the light path and members that take the engine (one with a
 * non-blocking call still queued, say) work together:
 *  - a member whose source others read copies it into the call's eager
 *    slot (coll.h) and stamps the slot with the call's seq;
 *  - a reader waits for the stamp, reads, and acks the owner;
 *  - an owner counts the acks it is owed and snapshots them for the slot,
 *    whose next use waits for them (the engine's eager_slot_free).
 * Who reads whom is what coll_alg.c's flat algorithms do with the get
 * transfer (the only eager ones): the root's slot for broadcast and
 * scatter, every member's for gather, reduce, reduce_all, gather_all and
 * exchange (the root, or all), the lower ranks' for scan.  Reductions
 * combine in team-rank order as combine_range does.
 *
 * What it saves is the engine's generality (the handle, the queue, the
 * coroutine, the trees, the chunking): about 1000 instructions per call
 * on each side of a 2-member gather become a few hundred.
 */
#include "coll.h"

/* Waits until *word >= want; PGAS_ERR_GONE if a member left before the call. */
static __attribute__((noinline)) int light_wait(struct pgas__coll_op *op, const uint64_t *word,
						uint64_t want)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;
	int rc;

	while (atomic_load_explicit((_Atomic uint64_t *)word, memory_order_acquire) < want) {
		if (PGAS__UNLIKELY(pgas__leavers()) &&
		    (rc = pgas__team_gone(op->team, op->call, op->seq)))
			return rc;
		pgas__wait_step(&w);
	}
	return PGAS_OK;
}

/* The engine's eager_slot_free, waited for: the slot's last readers acked. */
static int light_slot_free(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	const uint64_t *need = t->eager_snap + (op->seq % PGAS__EAGER_SLOTS) * t->size;
	int rc;

	for (unsigned i = 0; i < t->size; i++) {
		if (t->ack_cache[i] >= need[i])
			continue;
		rc = light_wait(op, coll_ack(t, t->rank, i), need[i]);
		if (rc)
			return rc;
		t->ack_cache[i] = atomic_load_explicit((_Atomic uint64_t *)coll_ack(t, t->rank, i),
						       memory_order_acquire);
	}
	return PGAS_OK;
}

/*
 * Team rank i's slot data, once stamped for this call.  slot: the offset
 * of the call's slot in every member's region (pgas__eager_off, computed once).
 */
static inline int light_read(struct pgas__coll_op *op, unsigned i, size_t slot,
			     const char **data)
{
	const char *at = op->team->area[i] + slot;

	*data = at + sizeof(uint64_t);
	if (PGAS__LIKELY(atomic_load_explicit((_Atomic uint64_t *)at, memory_order_acquire) >=
			 op->seq))
		return PGAS_OK;
	return light_wait(op, (const uint64_t *)at, op->seq);
}

static void light_ack(struct pgas_team *t, unsigned to)
{
	pgas__coll_signal(t, to, &t->ack_sent[to], coll_ack(t, to, t->rank), 1);
}

/* out = sources of team ranks 0..last combined in rank order (combine_range). */
static int light_combine(struct pgas__coll_op *op, unsigned last, size_t slot)
{
	struct pgas_team *t = op->team;
	size_t count = op->nbytes / op->elem;
	const char *src;
	int rc;

	for (unsigned i = 0; i <= last; i++) {
		rc = light_read(op, i, slot, &src);	/* mine is stamped: no wait */
		if (rc)
			return rc;
		if (i == 0)
			pgas__copy(op->udst, src, op->nbytes);
		else
			pgas__reduce(op->udst, op->udst, src, count, op->type, op->rop);
		if (i != t->rank)
			light_ack(t, i);
	}
	return PGAS_OK;
}

/* The call's reads and writes; the slot's snapshot is taken by the caller. */
static int light_run(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank, root = op->root;
	size_t nb = op->nbytes, slot = pgas__eager_off(t, op->seq);
	const char *src;
	int rc;

	rc = light_slot_free(op);
	if (rc)
		return rc;
	if (op->my_sb) {	/* the engine's chunk_begin, eager case */
		pgas__copy(t->area[me] + slot + sizeof(uint64_t), op->usrc, nb * op->my_sb);
		atomic_store_explicit((_Atomic uint64_t *)(t->area[me] + slot), op->seq,
				      memory_order_release);
	}
	switch (op->kind) {
	case PGAS_COLL_BROADCAST:
	case PGAS_COLL_SCATTER:
		if (me == root) {	/* every other member reads my slot */
			src = t->area[me] + slot + sizeof(uint64_t);
			for (unsigned i = 0; i < n; i++)
				if (i != me)
					t->ack_seen[i]++;
		} else {
			rc = light_read(op, root, slot, &src);
			if (rc)
				return rc;
		}
		if (op->kind == PGAS_COLL_SCATTER)
			src += (size_t)me * nb;
		if (!op->root_keeps)
			pgas__copy(op->udst, src, nb);
		if (me != root)
			light_ack(t, root);
		return PGAS_OK;
	case PGAS_COLL_GATHER:
	case PGAS_COLL_REDUCE:
		if (me != root) {	/* the root reads my slot */
			t->ack_seen[root]++;
			return PGAS_OK;
		}
		if (op->kind == PGAS_COLL_REDUCE)
			return light_combine(op, n - 1, slot);
		for (unsigned i = 0; i < n; i++) {
			rc = light_read(op, i, slot, &src);
			if (rc)
				return rc;
			pgas__copy(op->udst + (size_t)i * nb, src, nb);
			if (i != me)
				light_ack(t, i);
		}
		return PGAS_OK;
	case PGAS_COLL_SCAN:
	case PGAS_COLL_REDUCE_ALL:
		for (unsigned i = op->kind == PGAS_COLL_SCAN ? me + 1 : 0; i < n; i++)
			if (i != me)	/* readers of my slot */
				t->ack_seen[i]++;
		return light_combine(op, op->kind == PGAS_COLL_SCAN ? me : n - 1, slot);
	default:	/* gather_all, exchange: everyone reads everyone */
		for (unsigned i = 0; i < n; i++)
			if (i != me)
				t->ack_seen[i]++;
		for (unsigned k = 0; k < n; k++) {	/* from me down, as the engine */
			unsigned p = me >= k ? me - k : me + n - k;

			rc = light_read(op, p, slot, &src);
			if (rc)
				return rc;
			if (op->kind == PGAS_COLL_EXCHANGE)
				src += (size_t)me * nb;
			pgas__copy(op->udst + (size_t)p * nb, src, nb);
			if (p != me)
				light_ack(t, p);
		}
		return PGAS_OK;
	}
}

/*
 * Runs op (set up by coll.c: eager, one chunk, op->seq taken) to its end.
 * A zero-byte call moves nothing, as in the engine, whose chunk loop does
 * not run; either way the slot's snapshot is taken, as there.
 */
int pgas__coll_light(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	int rc = op->nbytes ? light_run(op) : PGAS_OK;

	if (!rc)
		memcpy(t->eager_snap + (op->seq % PGAS__EAGER_SLOTS) * t->size, t->ack_seen,
		       t->size * sizeof(uint64_t));
	return rc;
}
