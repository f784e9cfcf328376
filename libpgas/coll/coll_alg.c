// SPDX-License-Identifier: MIT
/*
 * coll_alg.c - the algorithms of the collectives, for one chunk of a call.
 *
 * Each is a coroutine (coll.h) over the call's effective buffers: every
 * member's source and destination as this process maps them (peer_src,
 * peer_dst), which the engine (coll.c) set up from the lists (single
 * mode) or from the addresses members published (local mode).  Data moves
 * by one of two means:
 *  - put (signalling put): the holder of the data copies it into the
 *    receiver's buffer and raises the receiver's sig counter; when the
 *    receiver's buffer may not be written yet, it first waits for the
 *    receiver's ack (clear to send);
 *  - get (rendezvous): the holder raises the receiver's sig counter ("my
 *    data is ready"); the receiver copies it and acks ("done reading").
 * Acks a rank does not need at once are owed (owe_ack) and collected by the
 * engine before the buffers can change.
 *
 * Trees are built on ranks relative to the root: flat (root -> all),
 * k-nomial (subtrees are contiguous rank ranges, so scatter and gather can
 * forward whole ranges) and k-ary (heap order).
 */
#include "coll.h"

/* ---- signals ----------------------------------------------------------------- */

/* n signals at once: the counter is a running total. */
static inline void sig_raw(struct pgas__coll_op *op, unsigned to, uint64_t n)
{
	struct pgas_team *t = op->team;

	pgas__coll_signal(t, to, &t->sig_sent[to], coll_sig(t, to, t->rank), n);
}

/* "My source is ready": in an eager call the slot's stamp already says so. */
static inline void sig_to(struct pgas__coll_op *op, unsigned to, uint64_t n)
{
	if (!op->eager)
		sig_raw(op, to, n);
}

static inline void ack_to(struct pgas__coll_op *op, unsigned to)
{
	struct pgas_team *t = op->team;

	pgas__coll_signal(t, to, &t->ack_sent[to], coll_ack(t, to, t->rank), 1);
}

static inline bool reached(uint64_t *counter, uint64_t want)
{
	return atomic_load_explicit((_Atomic uint64_t *)counter, memory_order_acquire) >= want;
}

/* Waits for the next signal / ack from team rank i.  i is evaluated again
 * on resumption: it must depend on op fields only, never on locals. */
#define CO_WAIT_SIG_RAW(pc, t, i)						\
	do {									\
		CO_WAIT(pc, reached(coll_sig(t, (t)->rank, i), (t)->sig_seen[i] + 1)); \
		(t)->sig_seen[i]++;						\
	} while (0)
/* In an eager call: the stamp of team rank i's slot (data and flag in one line). */
#define CO_WAIT_SIG(pc, t, i)							\
	do {									\
		CO_WAIT(pc, op->eager ? reached(pgas__eager_stamp(op, i), op->seq)	\
				      : reached(coll_sig(t, (t)->rank, i), (t)->sig_seen[i] + 1)); \
		if (!op->eager)							\
			(t)->sig_seen[i]++;					\
	} while (0)
#define CO_WAIT_ACK(pc, t, i)							\
	do {									\
		CO_WAIT(pc, reached(coll_ack(t, (t)->rank, i), (t)->ack_seen[i] + 1)); \
		(t)->ack_seen[i]++;						\
	} while (0)

/* An ack to come that this rank need not wait for now (pgas__acks_collected). */
static inline void owe_ack(struct pgas__coll_op *op, unsigned from)
{
	op->team->ack_seen[from]++;
}

/* Must a put into team rank i's user buffer wait for its clear to send? */
static inline bool needs_cts(const struct pgas__coll_op *op)
{
	return !op->single || !(op->flags & PGAS_COLL_IN_NOSYNC);
}

/* ---- effective buffers ------------------------------------------------------- */

/* Team rank i's effective source (dst false) or destination, as I map it. */
static char *peer_buf(struct pgas__coll_op *op, unsigned i, bool dst)
{
	struct pgas_team *t = op->team;
	const void *p;

	if (i == t->rank)
		return dst ? op->dst_eff : op->src_eff;
	if (op->eager && !dst)
		return pgas__eager_data(op, i);
	if (!op->single) {
		uint64_t *off = dst ? &coll_hdr(t, i)->dst_off : &coll_hdr(t, i)->src_off;

		return seg_base(t->members[i]) +
		       atomic_load_explicit((_Atomic uint64_t *)off, memory_order_relaxed);
	}
	if (dst)
		p = op->ldst ? op->ldst[i] : op->udst;
	else
		p = op->lsrc ? op->lsrc[i] : op->usrc;
	return (char *)p + pgas__g.peers[t->members[i]].seg_delta + op->off;
}

static size_t buf_stride(struct pgas__coll_op *op, unsigned i, bool dst)
{
	if (i == op->team->rank)
		return dst ? op->dst_stride : op->src_stride;
	if (op->eager && !dst)
		return op->c;
	if (!op->single)
		return dst ? coll_hdr(op->team, i)->dst_stride : coll_hdr(op->team, i)->src_stride;
	return op->nbytes;
}

#define peer_src(op, i) peer_buf(op, i, false)
#define peer_dst(op, i) peer_buf(op, i, true)
#define src_stride(op, i) buf_stride(op, i, false)
#define dst_stride(op, i) buf_stride(op, i, true)

/* Temporary blocks of team rank i: the same offset in every stage. */
static char *peer_temp(struct pgas__coll_op *op, unsigned i)
{
	return coll_stage(op->team, i) + (op->temp - coll_stage(op->team, op->team->rank));
}

/* Bytes in pipeline segment s of the chunk (the last one may be short). */
static inline size_t seg_len(const struct pgas__coll_op *op, unsigned s)
{
	size_t at = (size_t)s * op->seg;

	return op->c - at < op->seg ? op->c - at : op->seg;
}

static inline void copy(void *dst, const void *src, size_t n)
{
	if (dst != src)
		pgas__copy(dst, src, n);
}

/* ---- trees ------------------------------------------------------------------- */

/* k^j of the lowest non-zero base-k digit of v > 0. */
static unsigned knomial_low(unsigned v, unsigned k)
{
	unsigned p = 1;

	while (v % (p * k) == 0)
		p *= k;
	return p;
}

static unsigned radix_of(const struct pgas__coll_op *op)
{
	if (op->ch.geom == GEOM_FLAT || op->ch.radix < 2)
		return op->team->size > 2 ? op->team->size : 2;
	return op->ch.radix;
}

/* Ranks in the subtree of relative rank v (k-nomial and flat trees). */
static unsigned subtree(const struct pgas__coll_op *op, unsigned v)
{
	unsigned n = op->team->size;

	if (v == 0)
		return n;
	if (op->ch.geom == GEOM_FLAT)
		return 1;
	unsigned low = knomial_low(v, radix_of(op));

	return low < n - v ? low : n - v;
}

/* v, r and red_root are team ranks (below n): one subtraction, no division. */
static unsigned to_abs(const struct pgas__coll_op *op, unsigned v)
{
	unsigned n = op->team->size, a = v + op->red_root;

	return a >= n ? a - n : a;
}

static unsigned to_rel(const struct pgas__coll_op *op, unsigned r)
{
	unsigned n = op->team->size;

	return r >= op->red_root ? r - op->red_root : r + n - op->red_root;
}

/* Parent and children (team ranks) of this rank in op's tree rooted at root. */
void pgas__tree_build(struct pgas__coll_op *op, unsigned root)
{
	unsigned n = op->team->size, k = radix_of(op);
	unsigned v;

	struct pgas_team *t = op->team;
	uint64_t key = (uint64_t)root << 32 | (uint64_t)op->ch.geom << 24 | k;

	op->red_root = root;
	if (t->tree_key == key) {	/* the same tree as the last call's */
		op->nkids = t->nkids;
		op->parent = t->parent;
		return;
	}
	v = to_rel(op, op->team->rank);
	op->nkids = 0;
	op->parent = -1;
	if (op->ch.geom == GEOM_KARY) {
		if (v)
			op->parent = (int)to_abs(op, (v - 1) / k);
		for (unsigned c = k * v + 1; c <= k * v + k && c < n; c++)
			op->kids[op->nkids++] = to_abs(op, c);
		goto done;
	}
	/* k-nomial (flat = one level of radix n): farthest subtrees first. */
	unsigned top = v ? knomial_low(v, k) : 1;

	if (v) {
		op->parent = (int)to_abs(op, v - (v / top % k) * top);
	} else {
		while ((uint64_t)top * k < n)
			top *= k;
		top *= k;
	}
	for (unsigned p = top / k; p >= 1; p /= k) {
		for (unsigned d = 1; d < k; d++)
			if ((uint64_t)v + (uint64_t)d * p < n)
				op->kids[op->nkids++] = to_abs(op, v + d * p);
		if (p == 1)
			break;
	}
done:
	t->tree_key = key;
	t->nkids = op->nkids;
	t->parent = op->parent;
}

/* ---- barrier ------------------------------------------------------------------ */

/* Dissemination with radix k: ceil(log_k n) rounds of k-1 signals. */
int pgas__co_barrier(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank;
	unsigned k = op->team->choice[PGAS_COLL_BARRIER][0].radix;

	if (k < 2)
		k = 2;
	CO_BEGIN(*pc);
	for (op->bdist = 1; op->bdist < n; op->bdist *= k) {
		for (unsigned d = 1; d < k && (uint64_t)d * op->bdist < n; d++)
			sig_raw(op, (me + d * op->bdist) % n, 1);
		for (op->bd = 1; op->bd < k && (uint64_t)op->bd * op->bdist < n; op->bd++)
			CO_WAIT_SIG_RAW(*pc, t, (me + n - op->bd * op->bdist % n) % n);
	}
	CO_END(*pc);
}

/* ---- broadcast ------------------------------------------------------------------ */

static char *bcast_root_buf(struct pgas__coll_op *op)
{
	return op->bcast_from_dst ? peer_dst(op, op->red_root) : peer_src(op, op->red_root);
}

static int co_bcast(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned me = t->rank;
	bool root = me == op->red_root;
	size_t seg = op->seg, len;

	CO_BEGIN(*pc);
	op->nseg = (unsigned)((op->c + seg - 1) / seg);
	if (op->ch.xfer == XFER_PUT) {
		if (!root && needs_cts(op))
			ack_to(op, (unsigned)op->parent);
		for (op->s = 0; op->s < op->nseg; op->s++) {
			if (!root)
				CO_WAIT_SIG(*pc, t, (unsigned)op->parent);
			for (op->i = 0; op->i < op->nkids; op->i++) {
				if (op->s == 0 && needs_cts(op))
					CO_WAIT_ACK(*pc, t, op->kids[op->i]);
				len = seg_len(op, op->s);
				copy(peer_dst(op, op->kids[op->i]) + (size_t)op->s * seg,
				     (root ? bcast_root_buf(op) : op->dst_eff) + (size_t)op->s * seg, len);
				sig_to(op, op->kids[op->i], 1);
			}
		}
	} else {
		if (root) {
			for (unsigned i = 0; i < op->nkids; i++)
				sig_to(op, op->kids[i], op->nseg);
		} else {
			for (op->s = 0; op->s < op->nseg; op->s++) {
				CO_WAIT_SIG(*pc, t, (unsigned)op->parent);
				len = seg_len(op, op->s);
				copy(op->dst_eff + (size_t)op->s * seg,
				     ((unsigned)op->parent == op->red_root ? bcast_root_buf(op)
					: peer_dst(op, (unsigned)op->parent)) + (size_t)op->s * seg, len);
				for (unsigned i = 0; i < op->nkids; i++)
					sig_to(op, op->kids[i], 1);
			}
			ack_to(op, (unsigned)op->parent);
		}
		for (unsigned i = 0; i < op->nkids; i++)
			owe_ack(op, op->kids[i]);
	}
	if (root && !op->root_keeps)
		copy(op->dst_eff, bcast_root_buf(op), op->c);
	CO_END(*pc);
}

/* ---- scatter and gather (k-nomial or flat trees over contiguous ranges) --------- */

/* Where block u (relative) sits at relative rank v during a scatter / gather. */
static char *block_at(struct pgas__coll_op *op, unsigned v, unsigned u, bool gather)
{
	unsigned a = to_abs(op, v);

	if (v == 0)
		return gather ? peer_dst(op, a) + (size_t)to_abs(op, u) * dst_stride(op, a)
			      : peer_src(op, a) + (size_t)to_abs(op, u) * src_stride(op, a);
	if (subtree(op, v) > 1)
		return peer_temp(op, a) + (size_t)(u - v) * op->c;
	return gather ? peer_src(op, a) : peer_dst(op, a);
}

static void move_range(struct pgas__coll_op *op, unsigned from, unsigned to, unsigned first,
		       bool gather)
{
	unsigned end = first + subtree(op, first);

	for (unsigned u = first; u < end; u++)
		copy(block_at(op, to, u, gather), block_at(op, from, u, gather), op->c);
}

static int co_scatter(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned v = to_rel(op, t->rank);
	unsigned w;

	CO_BEGIN(*pc);
	if (op->ch.xfer == XFER_PUT) {
		if (v && (subtree(op, v) > 1 || needs_cts(op)))
			ack_to(op, (unsigned)op->parent);
		if (v)
			CO_WAIT_SIG(*pc, t, (unsigned)op->parent);
		for (op->i = 0; op->i < op->nkids; op->i++) {
			w = to_rel(op, op->kids[op->i]);
			if (subtree(op, w) > 1 || needs_cts(op))
				CO_WAIT_ACK(*pc, t, op->kids[op->i]);
			move_range(op, v, to_rel(op, op->kids[op->i]), to_rel(op, op->kids[op->i]),
				   false);
			sig_to(op, op->kids[op->i], 1);
		}
	} else {
		if (v) {
			CO_WAIT_SIG(*pc, t, (unsigned)op->parent);
			move_range(op, to_rel(op, (unsigned)op->parent), v, v, false);
			ack_to(op, (unsigned)op->parent);
		}
		for (unsigned i = 0; i < op->nkids; i++) {
			sig_to(op, op->kids[i], 1);
			owe_ack(op, op->kids[i]);
		}
	}
	if (v == 0 || subtree(op, v) > 1)
		copy(op->dst_eff, block_at(op, v, v, false), op->c);
	CO_END(*pc);
}

static int co_gather(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned v = to_rel(op, t->rank);
	unsigned p;

	CO_BEGIN(*pc);
	if (v == 0 || subtree(op, v) > 1)
		copy(block_at(op, v, v, true), op->src_eff, op->c);
	if (op->ch.xfer == XFER_PUT) {
		for (unsigned i = 0; i < op->nkids; i++)
			if (v || needs_cts(op))
				ack_to(op, op->kids[i]);
		for (op->i = 0; op->i < op->nkids; op->i++)
			CO_WAIT_SIG(*pc, t, op->kids[op->i]);
		if (v) {
			p = to_rel(op, (unsigned)op->parent);
			if (p || needs_cts(op))
				CO_WAIT_ACK(*pc, t, (unsigned)op->parent);
			move_range(op, v, to_rel(op, (unsigned)op->parent), v, true);
			sig_to(op, (unsigned)op->parent, 1);
		}
	} else {
		for (op->i = 0; op->i < op->nkids; op->i++) {
			CO_WAIT_SIG(*pc, t, op->kids[op->i]);
			move_range(op, to_rel(op, op->kids[op->i]), v, to_rel(op, op->kids[op->i]),
				   true);
			ack_to(op, op->kids[op->i]);
		}
		if (v) {
			sig_to(op, (unsigned)op->parent, 1);
			owe_ack(op, (unsigned)op->parent);
		}
	}
	CO_END(*pc);
}

/* ---- reductions ----------------------------------------------------------------- */

static size_t elems(const struct pgas__coll_op *op, size_t bytes)
{
	return bytes / op->elem;
}

/* Does relative rank v have children in op's tree? */
static bool has_kids(const struct pgas__coll_op *op, unsigned v)
{
	if (op->ch.geom == GEOM_KARY)
		return (uint64_t)v * radix_of(op) + 1 < op->team->size;
	return subtree(op, v) > 1;
}

/* Partial result of team rank a in a reduce tree. */
static char *partial(struct pgas__coll_op *op, unsigned a)
{
	if (a == op->red_root)
		return peer_dst(op, a);
	if (has_kids(op, to_rel(op, a)))
		return peer_temp(op, a);
	return peer_src(op, a);
}

/* Tree reduce of commutative operations, pipelined by segments. */
static int co_reduce_tree(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned me = t->rank;
	size_t seg = op->seg, at, len;
	char *out;

	CO_BEGIN(*pc);
	op->nseg = (unsigned)((op->c + seg - 1) / seg);
	if (me == op->red_root && !op->nkids) {
		copy(op->dst_eff, op->src_eff, op->c);
	} else if (!op->nkids) {
		sig_to(op, (unsigned)op->parent, op->nseg);
		owe_ack(op, (unsigned)op->parent);
	} else {
		for (op->s = 0; op->s < op->nseg; op->s++) {
			for (op->i = 0; op->i < op->nkids; op->i++)
				CO_WAIT_SIG(*pc, t, op->kids[op->i]);
			at = (size_t)op->s * seg;
			len = seg_len(op, op->s);
			out = partial(op, me) + at;
			for (unsigned i = 0; i < op->nkids; i++)
				pgas__reduce(out, i ? out : op->src_eff + at,
					     partial(op, op->kids[i]) + at, elems(op, len),
					     op->type, op->rop);
			if (me != op->red_root)
				sig_to(op, (unsigned)op->parent, 1);
		}
		for (unsigned i = 0; i < op->nkids; i++)
			ack_to(op, op->kids[i]);
		if (me != op->red_root)
			owe_ack(op, (unsigned)op->parent);
	}
	CO_END(*pc);
}

/* Combines the sources of team ranks 0..last in rank order into out. */
static void combine_range(struct pgas__coll_op *op, char *out, unsigned last)
{
	if (last == 0) {
		copy(out, peer_src(op, 0), op->c);
		return;
	}
	for (unsigned i = 1; i <= last; i++)
		pgas__reduce(out, i > 1 ? out : peer_src(op, 0), peer_src(op, i),
			     elems(op, op->c), op->type, op->rop);
}

/* Flat reduce: the root reads every source, combining in rank order. */
static int co_reduce_flat(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank, root = op->red_root;

	CO_BEGIN(*pc);
	if (me != root) {
		sig_to(op, root, 1);
		owe_ack(op, root);
	} else {
		for (op->i = 0; op->i < n; op->i++)
			if (op->i != me)
				CO_WAIT_SIG(*pc, t, op->i);
		combine_range(op, op->dst_eff, n - 1);
		for (unsigned i = 0; i < n; i++)
			if (i != me)
				ack_to(op, i);
	}
	CO_END(*pc);
}

static int co_reduce(struct pgas__coll_op *op, int *pc)
{
	if (op->ch.geom == GEOM_FLAT || !op->commutative)
		return co_reduce_flat(op, pc);
	return co_reduce_tree(op, pc);
}

/* Flat all-pairs: everyone signals everyone (or the ranks above it, for
 * scan), then reads the sources it needs in rank order. */
static int co_allpairs_reduce(struct pgas__coll_op *op, int *pc, bool scan)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank;
	unsigned last = scan ? me : n - 1;

	CO_BEGIN(*pc);
	for (unsigned i = scan ? me + 1 : 0; i < n; i++)
		if (i != me) {
			sig_to(op, i, 1);
			owe_ack(op, i);
		}
	for (op->i = 0; op->i <= last; op->i++)
		if (op->i != me)
			CO_WAIT_SIG(*pc, t, op->i);
	combine_range(op, op->dst_eff, last);
	for (unsigned i = 0; i <= last; i++)
		if (i != me)
			ack_to(op, i);
	CO_END(*pc);
}

/* Scan along a chain, pipelined by segments: r adds its source to r-1's result. */
static int co_scan_chain(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank;
	size_t seg = op->seg, at, len;

	CO_BEGIN(*pc);
	op->nseg = (unsigned)((op->c + seg - 1) / seg);
	for (op->s = 0; op->s < op->nseg; op->s++) {
		if (me)
			CO_WAIT_SIG(*pc, t, me - 1);
		at = (size_t)op->s * seg;
		len = seg_len(op, op->s);
		if (me) {
			pgas__reduce(op->dst_eff + at, peer_dst(op, me - 1) + at, op->src_eff + at,
				     elems(op, len), op->type, op->rop);
		} else {
			copy(op->dst_eff + at, op->src_eff + at, len);
		}
		if (me + 1 < n)
			sig_to(op, me + 1, 1);
	}
	if (me)
		ack_to(op, me - 1);
	if (me + 1 < n)
		owe_ack(op, me + 1);
	CO_END(*pc);
}

/* ---- gather-to-all and exchange ---------------------------------------------------- */

/* Flat all-pairs for blocks: put = I write my blocks into everyone,
 * get = I read everyone's blocks.  Peers are visited from me+1 on, so the
 * ranks do not all hit the same one first. */
static int co_allpairs_blocks(struct pgas__coll_op *op, int *pc, bool exchange)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank, p;

	CO_BEGIN(*pc);
	copy(op->dst_eff + (size_t)me * op->dst_stride,
	     op->src_eff + (exchange ? (size_t)me * op->src_stride : 0), op->c);
	if (op->ch.xfer == XFER_PUT) {
		if (needs_cts(op))
			for (unsigned i = 1; i < n; i++)
				ack_to(op, (me + i) % n);
		for (op->i = 1; op->i < n; op->i++) {
			if (needs_cts(op))
				CO_WAIT_ACK(*pc, t, (me + op->i) % n);
			p = (me + op->i) % n;
			copy(peer_dst(op, p) + (size_t)me * dst_stride(op, p),
			     op->src_eff + (exchange ? (size_t)p * op->src_stride : 0), op->c);
			sig_to(op, p, 1);
		}
		for (op->i = 1; op->i < n; op->i++)
			CO_WAIT_SIG(*pc, t, (me + op->i) % n);
	} else {
		for (unsigned i = 1; i < n; i++) {
			sig_to(op, (me + i) % n, 1);
			owe_ack(op, (me + i) % n);
		}
		for (op->i = 1; op->i < n; op->i++) {
			CO_WAIT_SIG(*pc, t, (me + n - op->i) % n);
			p = (me + n - op->i) % n;
			copy(op->dst_eff + (size_t)p * op->dst_stride,
			     peer_src(op, p) + (exchange ? (size_t)me * src_stride(op, p) : 0), op->c);
			ack_to(op, p);
		}
	}
	CO_END(*pc);
}

/*
 * Bruck gather-to-all with radix k, in the destinations themselves: in the
 * round of distance dist, rank r holds the blocks of r..r+dist-1 and reads
 * from r + d*dist (d < k) that rank's first min(dist, n - d*dist) blocks.
 * Readers read a prefix the owner no longer writes, so no copy is staged.
 */
static int co_bruck_gather_all(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank, k = op->ch.radix, p, cnt;

	CO_BEGIN(*pc);
	copy(op->dst_eff + (size_t)me * op->dst_stride, op->src_eff, op->c);
	for (op->dist = 1; op->dist < n; op->dist *= k) {
		for (unsigned d = 1; d < k && (uint64_t)d * op->dist < n; d++) {
			sig_to(op, (me + n - d * op->dist % n) % n, 1);
			owe_ack(op, (me + n - d * op->dist % n) % n);
		}
		for (op->d = 1; op->d < k && (uint64_t)op->d * op->dist < n; op->d++) {
			CO_WAIT_SIG(*pc, t, (me + op->d * op->dist) % n);
			p = (me + op->d * op->dist) % n;
			cnt = n - op->d * op->dist < op->dist ? n - op->d * op->dist : op->dist;
			for (unsigned b = 0; b < cnt; b++)
				copy(op->dst_eff + (size_t)((p + b) % n) * op->dst_stride,
				     peer_dst(op, p) + (size_t)((p + b) % n) * dst_stride(op, p),
				     op->c);
			ack_to(op, p);
		}
	}
	CO_END(*pc);
}

/*
 * Bruck exchange with radix k.  W (my temp, n blocks) starts as my source
 * rotated by my rank; in round (dist, d) I read from r - d*dist the blocks
 * whose base-k digit at dist is d into T, ack, wait until my own reader
 * r + d*dist has read the same blocks of mine, and only then store T into
 * W.  At the end W[i] came from rank r - i.
 */
static int co_bruck_exchange(struct pgas__coll_op *op, int *pc)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank, k = op->ch.radix, q, m;
	char *w = op->temp, *tt = op->temp + (size_t)n * op->c;

	CO_BEGIN(*pc);
	for (unsigned i = 0; i < n; i++)
		copy(w + (size_t)i * op->c, op->src_eff + (size_t)((me + i) % n) * op->src_stride,
		     op->c);
	for (op->dist = 1; op->dist < n; op->dist *= k) {
		for (op->d = 1; op->d < k && (uint64_t)op->d * op->dist < n; op->d++) {
			sig_to(op, (me + op->d * op->dist) % n, 1);
			CO_WAIT_SIG(*pc, t, (me + n - op->d * op->dist % n) % n);
			q = (me + n - op->d * op->dist % n) % n;
			m = 0;
			for (unsigned b = 0; b < n; b++)
				if (b / op->dist % k == op->d)
					copy(tt + (size_t)m++ * op->c, peer_temp(op, q) + (size_t)b * op->c,
					     op->c);
			ack_to(op, q);
			CO_WAIT_ACK(*pc, t, (me + op->d * op->dist) % n);
			m = 0;
			for (unsigned b = 0; b < n; b++)
				if (b / op->dist % k == op->d)
					copy(w + (size_t)b * op->c, tt + (size_t)m++ * op->c, op->c);
		}
	}
	for (unsigned i = 0; i < n; i++)
		copy(op->dst_eff + (size_t)((me + n - i) % n) * op->dst_stride, w + (size_t)i * op->c,
		     op->c);
	CO_END(*pc);
}

/* ---- dispatch ------------------------------------------------------------------------ */

size_t pgas__coll_temp_need(int kind, const pgas_coll_choice_t *ch, unsigned n, size_t c)
{
	switch (kind) {
	case PGAS_COLL_SCATTER:
	case PGAS_COLL_GATHER:
		return ch->geom == GEOM_KNOMIAL ? (size_t)n * c : 0;
	case PGAS_COLL_REDUCE:
	case PGAS_COLL_REDUCE_ALL:
		return ch->alg == ALG_TREE && ch->geom != GEOM_FLAT ? c : 0;
	case PGAS_COLL_EXCHANGE:
		return ch->alg == ALG_BRUCK ? 2 * (size_t)n * c : 0;
	default:
		return 0;
	}
}

int pgas__coll_run(struct pgas__coll_op *op)
{
	int *pc = &op->pc_sub;

	switch (op->kind) {
	case PGAS_COLL_BROADCAST:
		return co_bcast(op, pc);
	case PGAS_COLL_SCATTER:
		return co_scatter(op, pc);
	case PGAS_COLL_GATHER:
		return co_gather(op, pc);
	case PGAS_COLL_GATHER_ALL:
		if (op->ch.alg == ALG_BRUCK)
			return co_bruck_gather_all(op, pc);
		return co_allpairs_blocks(op, pc, false);
	case PGAS_COLL_EXCHANGE:
		if (op->ch.alg == ALG_BRUCK)
			return co_bruck_exchange(op, pc);
		return co_allpairs_blocks(op, pc, true);
	case PGAS_COLL_REDUCE:
		return co_reduce(op, pc);
	case PGAS_COLL_REDUCE_ALL:
		if (op->ch.alg == ALG_FLAT || !op->commutative)
			return co_allpairs_reduce(op, pc, false);
		/* Tree: reduce to rank 0, then broadcast its result. */
		if (!op->bcast_from_dst) {
			if (!co_reduce_tree(op, pc))
				return 0;
			op->bcast_from_dst = 1;
			*pc = 0;
		}
		return co_bcast(op, pc);
	case PGAS_COLL_SCAN:
		if (op->ch.alg == ALG_CHAIN)
			return co_scan_chain(op, pc);
		return co_allpairs_reduce(op, pc, true);
	default:
		return 1;
	}
}
