// SPDX-License-Identifier: MIT
/*
 * coll.c - the engine of the collectives: checking a call, its handle, its
 * synchronisation flags, chunking and staging of local-mode buffers, and
 * progress.  The algorithms proper are in coll_alg.c.
 *
 * A call runs as a coroutine (op_step) that the progress engine resumes:
 *   debug check -> IN barrier -> for each chunk: [collect owed acks,
 *   stage in, publish addresses] -> algorithm -> stage out -> collect owed
 *   acks -> OUT barrier.
 * Chunks split every block at the same byte offsets, so a collective over
 * a chunk is the collective itself restricted to those bytes.
 */
#include <stdlib.h>
#include "coll.h"

#define TUNE_AREA ((size_t)64 << 10)	/* rank 0's copy of the tuning table */

static struct pgas_team *active_teams;

size_t pgas__eager_slot_bytes(size_t stage)
{
	/* An eighth of the stage, in 16 slots of whole lines. */
	size_t b = stage / 8 / PGAS__EAGER_SLOTS / 64 * 64;

	return b < PGAS__EAGER_MAX ? b : PGAS__EAGER_MAX;
}

static size_t job_region_bytes(unsigned nranks)
{
	return PGAS__ALIGN_UP(pgas__region_bytes(nranks, pgas__cfg.coll_stage), 4096);
}

/* The collectives' part of every rank's library area (core/layer.h). */
static size_t coll_area_bytes(unsigned nranks)
{
	return TUNE_AREA + job_region_bytes(nranks) + PGAS__ALIGN_UP(pgas__cfg.coll_pool, 4096);
}

/* That part of job rank r, as this process maps it. */
char *pgas__coll_area(unsigned r)
{
	return pgas__layer_area(&pgas__coll_layer, r);
}

char *pgas__coll_job_region(unsigned r)
{
	return pgas__coll_area(r) + TUNE_AREA;
}

char *pgas__coll_pool(unsigned r)
{
	return pgas__coll_job_region(r) + job_region_bytes(pgas__g.nranks);
}

/*
 * phase 0: before attach's barrier (rank 0 loads the tuning file);
 * phase 1: after it (everyone shares it and builds the job's team).
 */
static int coll_attach(int phase, char *msg, size_t len)
{
	int rc;

	if (phase == 0) {
		pgas__coll_ref_init();	/* before anyone may send to this rank */
		if (pgas__g.rank == 0)	/* errors too go to the area: all fail alike */
			pgas__tune_load(pgas__coll_area(0), TUNE_AREA);
		return PGAS_OK;
	}
	if (!pgas__coll_mapped(0)) {
		/* Rank 0's area is out of reach: read the same file (PGAS_COLL_TUNING
		 * is rank 0's value everywhere), so that all fail alike too. */
		void *area = malloc(TUNE_AREA);

		if (!area) {
			snprintf(msg, len, "no memory for the tuning table");
			return PGAS_ERR_NOMEM;
		}
		pgas__tune_load(area, TUNE_AREA);
		rc = pgas__tune_share(area, msg, len);
		free(area);
	} else {
		rc = pgas__tune_share(pgas__coll_area(0), msg, len);
	}
	return rc ? rc : pgas__team_setup_all(msg, len);
}

/* ---- members that left the job ------------------------------------------------- */

/*
 * pgas_exit(0): in every team, tell the members how many calls I finished
 * (they fail later ones with PGAS_ERR_GONE instead of waiting for me), and
 * drop my outstanding calls: nobody will wait for them here.
 */
static void coll_leave(void)
{
	for (struct pgas_team *t = pgas__live_teams; t; t = t->next_live) {
		uint64_t done = t->head ? t->head->seq - 1 : t->seq - t->light;

		atomic_store_explicit((_Atomic uint64_t *)&coll_hdr(t, t->rank)->left, done + 1,
				      memory_order_release);
		if (t->ref)	/* members that cannot read it are told */
			pgas__coll_ref_leave(t, done + 1);
	}
	active_teams = NULL;
	pgas__set_pending(PGAS__PENDING_COLL, 0);
}

/* The first member that left before call seq of t, or -1. */
static int member_gone(struct pgas_team *t, uint64_t seq)
{
	if (PGAS__LIKELY(!pgas__leavers()))
		return -1;
	for (unsigned i = 0; i < t->size; i++) {
		uint64_t left;

		if (i == t->rank || !pgas__rank_leaving(t->members[i]))
			continue;
		if (pgas__rank_how(t->members[i]) == PGAS__LEFT_DIED)
			return (int)i;	/* it told nothing: gone from every call */
		if (pgas__coll_mapped(t->members[i]))
			left = atomic_load_explicit((_Atomic uint64_t *)&coll_hdr(t, i)->left,
						    memory_order_acquire);
		else
			left = pgas__coll_ref_left(t, i);
		if (left && left - 1 < seq)
			return (int)i;
	}
	return -1;
}

int pgas__team_gone(struct pgas_team *t, const char *call, uint64_t seq)
{
	int i = member_gone(t, seq);

	if (i < 0)
		return PGAS_OK;
	return pgas__err(PGAS_ERR_GONE, call,
			 "team rank %d (job rank %u) has left the job (%s) before call %llu "
			 "on this team of %u", i, t->members[i], pgas__left_how(t->members[i]),
			 (unsigned long long)seq, t->size);
}

/* ---- owed acks ------------------------------------------------------------------ */

/*
 * Have the acks from every member reached need[member]?  The shared
 * counters are read only where the last value read falls short.
 */
static bool acks_reached(struct pgas_team *t, const uint64_t *need)
{
	for (unsigned i = 0; i < t->size; i++) {
		if (t->ack_cache[i] >= need[i])
			continue;
		t->ack_cache[i] = atomic_load_explicit((_Atomic uint64_t *)coll_ack(t, t->rank, i),
						       memory_order_acquire);
		if (t->ack_cache[i] < need[i])
			return false;
	}
	return true;
}

/* Every ack counted so far (owed ones included) has arrived. */
bool pgas__acks_collected(struct pgas_team *t)
{
	return acks_reached(t, t->ack_seen);
}

/* ---- roles: which members hold a source / destination, and of how many blocks -- */

/* Blocks in team rank r's source (dst false) or destination (dst true). */
static unsigned blocks_of(const struct pgas__coll_op *op, unsigned r, bool dst)
{
	unsigned n = op->team->size;
	bool root = r == op->root;

	switch (op->kind) {
	case PGAS_COLL_BARRIER:
		return 0;
	case PGAS_COLL_BROADCAST:
		return dst ? 1 : root;
	case PGAS_COLL_SCATTER:
		return dst ? 1 : root ? n : 0;
	case PGAS_COLL_GATHER:
		return !dst ? 1 : root ? n : 0;
	case PGAS_COLL_REDUCE:
		return dst ? root : 1;
	case PGAS_COLL_GATHER_ALL:
		return dst ? n : 1;
	case PGAS_COLL_EXCHANGE:
		return n;
	default:
		return 1;
	}
}

#define src_blocks_of(op, r) blocks_of(op, r, false)
#define dst_blocks_of(op, r) blocks_of(op, r, true)

/* ---- chunks ------------------------------------------------------------------------ */


/* Peers read only sources (never a destination or temp) in these. */
static bool eager_fits(const struct pgas__coll_op *op)
{
	const pgas_coll_choice_t *ch = &op->ch;

	if (op->single || op->nbytes * op->src_blocks + sizeof(uint64_t) > op->team->eager_slot)
		return false;
	switch (op->kind) {
	case PGAS_COLL_BROADCAST:
	case PGAS_COLL_SCATTER:
	case PGAS_COLL_GATHER:
	case PGAS_COLL_REDUCE:
		return ch->alg == ALG_TREE && ch->geom == GEOM_FLAT &&
		       (ch->xfer == XFER_GET || op->kind == PGAS_COLL_REDUCE);
	case PGAS_COLL_GATHER_ALL:
	case PGAS_COLL_EXCHANGE:
		return ch->alg == ALG_FLAT && ch->xfer == XFER_GET;
	case PGAS_COLL_REDUCE_ALL:
	case PGAS_COLL_SCAN:
		return ch->alg == ALG_FLAT;
	default:
		return false;
	}
}

/* May the eager slot of op be written?  Once its last readers acked. */
static bool eager_slot_free(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;

	return acks_reached(t, t->eager_snap + (op->seq % PGAS__EAGER_SLOTS) * t->size);
}

/* Chunk size every member computes alike; 0 if one element does not fit. */
static size_t chunk_size(struct pgas__coll_op *op)
{
	unsigned n = op->team->size;
	size_t per = pgas__coll_temp_need(op->kind, &op->ch, n, 1);
	size_t stage = op->team->stage_len, room = stage - stage / 8 - 256;
	size_t chunk, quantum;

	if (!op->single)
		per += (op->kind == PGAS_COLL_SCATTER || op->kind == PGAS_COLL_GATHER ? n + 1 :
			op->kind == PGAS_COLL_EXCHANGE || op->kind == PGAS_COLL_GATHER_ALL ? 2 * n : 2);
	if (per == 0 || op->nbytes <= room / per)
		return op->nbytes;
	chunk = room / per / op->elem * op->elem;
	quantum = 64 * op->elem;	/* whole cache lines when there is room */
	if (chunk >= quantum)
		chunk -= chunk % quantum;
	return chunk;
}

static bool in_my_segment(const void *p, size_t n)
{
	char *dummy;

	return pgas__ep_map_seg(&pgas__g, pgas__g.rank, p, n, &dummy);
}

/* Copies n blocks of len bytes between buffers of different strides. */
static void copy_blocks(char *dst, size_t dst_stride, const char *src, size_t src_stride,
			unsigned n, size_t len)
{
	for (unsigned b = 0; b < n; b++)
		pgas__copy(dst + b * dst_stride, src + b * src_stride, len);
}

/* Sets up the effective buffers of the chunk at op->off and publishes them. */
static void chunk_begin(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	unsigned me = t->rank, sb = op->my_sb, db = op->my_db;
	char *stage = coll_stage(t, me);
	size_t dst_off = PGAS__ALIGN_UP((op->single ? 0 : op->src_blocks) * op->chunk, 64);
	size_t temp_off = PGAS__ALIGN_UP(dst_off + (op->single ? 0 : op->dst_blocks) * op->chunk, 64);

	op->c = op->nbytes - op->off < op->chunk ? op->nbytes - op->off : op->chunk;
	op->temp = stage + temp_off;
	op->src_eff = op->dst_eff = NULL;
	if (op->single) {
		const void *s = op->lsrc ? op->lsrc[me] : (sb ? op->usrc : NULL);
		void *d = op->ldst ? op->ldst[me] : (db ? op->udst : NULL);
		intptr_t delta = pgas__g.peers[pgas__g.rank].seg_delta;

		op->src_eff = s ? (char *)s + delta + op->off : NULL;
		op->dst_eff = d ? (char *)d + delta + op->off : NULL;
		op->src_stride = op->dst_stride = op->nbytes;
	} else if (op->eager) {
		op->src_eff = pgas__eager_data(op, me);
		op->src_stride = op->c;
		copy_blocks(op->src_eff, op->c, op->usrc, op->nbytes, sb, op->c);
		if (sb)	/* the "ready" signal of every reader */
			atomic_store_explicit((_Atomic uint64_t *)pgas__eager_stamp(op, me), op->seq,
					      memory_order_release);
		op->dst_eff = db ? op->udst : NULL;
		op->dst_stride = op->nbytes;
	} else {
		bool src_staged = sb && !in_my_segment(op->usrc, sb * op->nbytes);

		op->dst_staged = db && !in_my_segment(op->udst, db * op->nbytes);
		if (src_staged) {
			op->src_eff = stage;
			op->src_stride = op->c;
			copy_blocks(op->src_eff, op->c, op->usrc + op->off, op->nbytes, sb, op->c);
		} else if (sb) {
			op->src_eff = op->usrc + op->off;
			op->src_stride = op->nbytes;
		}
		if (op->dst_staged) {
			op->dst_eff = stage + dst_off;
			op->dst_stride = op->c;
		} else if (db) {
			op->dst_eff = op->udst + op->off;
			op->dst_stride = op->nbytes;
		}
		/* Read by peers after a signal of this call (release). */
		struct pgas__coll_hdr *h = coll_hdr(t, me);
		char *base = seg_base(pgas__g.rank);

		h->src_off = op->src_eff ? (uint64_t)(op->src_eff - base) : 0;
		h->src_stride = op->src_stride;
		h->dst_off = op->dst_eff ? (uint64_t)(op->dst_eff - base) : 0;
		h->dst_stride = op->dst_stride;
	}
	op->pc_sub = 0;
	op->bcast_from_dst = 0;
	op->seg = op->ch.seg ? op->ch.seg / op->elem * op->elem : op->c;
	if (op->seg == 0)
		op->seg = op->elem;
	if (op->ch.alg == ALG_TREE)
		pgas__tree_build(op, op->kind == PGAS_COLL_REDUCE_ALL ? 0 : op->root);
}

static void chunk_end(struct pgas__coll_op *op)
{
	if (!op->single && op->dst_staged && !op->root_keeps)
		copy_blocks(op->udst + op->off, op->nbytes, op->dst_eff, op->c, op->my_db, op->c);
}

/* ---- debug: every member compares its call with every other's ---------------------- */

static void debug_publish(struct pgas__coll_op *op)
{
	struct pgas__coll_desc *d = coll_desc(op->team, op->team->rank, op->seq);

	*d = (struct pgas__coll_desc){ .seq = op->seq, .kind = (uint32_t)op->kind,
				       .root = op->root, .flags = op->flags,
				       .type = (uint32_t)op->type, .op = (uint32_t)op->rop,
				       .single = op->single, .nbytes = op->nbytes, .choice = op->ch };
}

/* Compares my description with team rank r's (o). */
static int debug_compare_one(struct pgas__coll_op *op, unsigned r, const struct pgas__coll_desc *o)
{
	struct pgas_team *t = op->team;
	const struct pgas__coll_desc *me = coll_desc(t, t->rank, op->seq);
	static const char *const what[] = { "operation", "root", "flags", "type", "op",
					    "address mode", "size", "algorithm" };

	{
		uint64_t mine[8] = { me->kind, me->root, me->flags, me->type, me->op, me->single,
				     me->nbytes, 0 };
		uint64_t theirs[8] = { o->kind, o->root, o->flags, o->type, o->op, o->single,
				       o->nbytes, 0 };

		mine[7] = memcmp(&me->choice, &o->choice, sizeof(me->choice)) != 0;
		for (unsigned f = 0; f < 8; f++)
			if (mine[f] != theirs[f])
				return pgas__err(PGAS_ERR_INVAL, op->call,
						 "call %llu on this team: team rank %u passed %s %llu, "
						 "team rank %u passed %llu (PGAS_COLL_DEBUG)",
						 (unsigned long long)op->seq, t->rank, what[f],
						 (unsigned long long)mine[f], r,
						 (unsigned long long)theirs[f]);
	}
	return PGAS_OK;
}

static int debug_compare(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	int rc = PGAS_OK;

	for (unsigned r = 0; r < t->size && !rc; r++)
		rc = debug_compare_one(op, r, coll_desc(t, r, op->seq));
	return rc;
}

/* The same by messages: everyone sends its description to everyone. */
static int debug_exchange(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank;
	uint32_t tag = PGAS__REF_TAG(REF_T_DEBUG, 0);
	struct pgas__coll_desc d;

	CO_BEGIN(op->pc_bar);
	for (op->i = 1; op->i < n; op->i++)
		CO_WAIT(op->pc_bar, pgas__coll_ref_send(op, (me + op->i) % n, tag,
						   coll_desc(t, me, op->seq), sizeof(d)));
	for (op->i = 0; op->i < n; op->i++) {
		if (op->i == me)
			continue;
		CO_WAIT(op->pc_bar, (op->ref_msg = pgas__coll_ref_take(op, op->i, tag)));
		memset(&d, 0, sizeof(d));
		memcpy(&d, op->ref_msg->data, op->ref_msg->len < sizeof(d) ? op->ref_msg->len :
		       sizeof(d));
		free(op->ref_msg);
		op->ref_msg = NULL;
		if (!op->rc)
			op->rc = debug_compare_one(op, op->i, &d);
	}
	CO_END(op->pc_bar);
}

/* ---- the call's coroutine ------------------------------------------------------------ */

static const char *single_addr(const struct pgas__coll_op *op, unsigned r, bool dst);

/* The team barrier of op (phase: which of op's barriers, for the reference one). */
static int barrier_step(struct pgas__coll_op *op, unsigned phase)
{
	if (PGAS__UNLIKELY(op->team->choice[PGAS_COLL_BARRIER][0].alg >= ALG_REF))
		return op->team->choice[PGAS_COLL_BARRIER][0].alg == ALG_HIER ?
		       pgas__coll_hier_barrier(op, &op->pc_bar, phase) :
		       pgas__coll_ref_barrier(op, &op->pc_bar, phase);
	return pgas__co_barrier(op, &op->pc_bar);
}

/* Reference algorithms: my own buffers, whole (no stage, no chunks). */
static void ref_begin(struct pgas__coll_op *op)
{
	unsigned me = op->team->rank;

	op->c = op->nbytes;
	op->off = 0;
	op->pc_sub = 0;
	if (op->single) {
		const char *s = single_addr(op, me, false), *d = single_addr(op, me, true);
		intptr_t delta = pgas__g.peers[pgas__g.rank].seg_delta;

		op->src_eff = s ? (char *)s + delta : NULL;
		op->dst_eff = d ? (char *)d + delta : NULL;
	} else {
		op->src_eff = op->my_sb ? op->usrc : NULL;
		op->dst_eff = op->my_db ? op->udst : NULL;
	}
	op->src_stride = op->dst_stride = op->nbytes;
}

static int op_step(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;

	CO_BEGIN(op->pc);
	if (pgas__cfg.coll_debug) {
		debug_publish(op);
		op->pc_bar = 0;
		if (PGAS__UNLIKELY(t->ref)) {	/* nobody reads my descriptor: send it */
			CO_WAIT(op->pc, debug_exchange(op));
		} else {
			CO_WAIT(op->pc, barrier_step(op, REF_T_BAR_DEBUG));
			op->rc = debug_compare(op);
		}
	}
	if (!op->rc && op->kind == PGAS_COLL_BARRIER) {
		op->pc_bar = 0;
		CO_WAIT(op->pc, barrier_step(op, REF_T_BAR));
	}
	if (!op->rc && op->kind != PGAS_COLL_BARRIER) {
		if (op->flags & PGAS_COLL_IN_ALLSYNC) {
			op->pc_bar = 0;
			CO_WAIT(op->pc, barrier_step(op, REF_T_BAR_IN));
		}
		if (PGAS__UNLIKELY(op->ch.alg >= ALG_REF)) {
			ref_begin(op);
			if (op->ch.alg == ALG_HIER)
				CO_WAIT(op->pc, pgas__coll_hier_run(op));
			else
				CO_WAIT(op->pc, pgas__coll_ref_run(op));
			goto out_sync;
		}
		for (op->off = 0; op->off < op->nbytes; op->off += op->chunk) {
			if (op->eager)
				CO_WAIT(op->pc, eager_slot_free(op));
			else if (!op->single || pgas__coll_temp_need(op->kind, &op->ch, t->size, 1))
				CO_WAIT(op->pc, pgas__acks_collected(t));
			chunk_begin(op);
			CO_WAIT(op->pc, pgas__coll_run(op));
			chunk_end(op);
		}
		if (op->eager)	/* readers ack into the slot's snapshot */
			memcpy(t->eager_snap + (op->seq % PGAS__EAGER_SLOTS) * t->size,
			       t->ack_seen, t->size * sizeof(uint64_t));
		else if (!op->single || !(op->flags & PGAS_COLL_OUT_NOSYNC))
			CO_WAIT(op->pc, pgas__acks_collected(t));
out_sync:
		if (op->flags & PGAS_COLL_OUT_ALLSYNC) {
			op->pc_bar = 0;
			CO_WAIT(op->pc, barrier_step(op, REF_T_BAR_OUT));
		}
	}
	CO_END(op->pc);
}

/* ---- progress --------------------------------------------------------------------------- */

void pgas__team_activate(struct pgas_team *t)
{
	if (t->active)
		return;
	t->active = true;
	t->next_active = active_teams;
	active_teams = t;
	pgas__set_pending(PGAS__PENDING_COLL, 1);
}

int pgas__coll_progress(void)
{
	static bool running;
	struct pgas_team **pp = &active_teams;
	int completed = 0;

	/* A step that waits (a rendezvous get for room in the fabric's
	 * queue, coll_ref.c) polls, and a poll progresses the collectives:
	 * the call being stepped is not stepped again inside itself. */
	if (running)
		return 0;
	running = true;
	while (*pp) {
		struct pgas_team *t = *pp;

		while (t->head && op_step(t->head)) {
			t->head->done = true;
			t->head = t->head->next;
			completed++;
		}
		/* Stuck behind a member that left: this call and the later ones fail. */
		while (PGAS__UNLIKELY(t->head && pgas__leavers()) &&
		       pgas__team_gone(t, t->head->call, t->head->seq)) {
			t->head->rc = PGAS_ERR_GONE;
			t->head->done = true;
			t->head = t->head->next;
			completed++;
		}
		if (t->head) {
			pp = &t->next_active;
		} else {
			t->tail = NULL;
			t->active = false;
			/* A step's wait lends the progress lock at MULTIPLE
			 * (coll_ref.c's get): another thread may have put a
			 * team in front of t meanwhile. */
			for (pp = &active_teams; *pp != t; pp = &(*pp)->next_active)
				;
			*pp = t->next_active;
		}
	}
	if (active_teams)
		pgas__set_pending(PGAS__PENDING_COLL, 1);
	else
		pgas__set_pending(PGAS__PENDING_COLL, 0);
	running = false;
	return completed;
}

/* ---- handles -------------------------------------------------------------------------------- */

/* Ops are recycled per team: a call should not pay for malloc and free. */
/* Ops are recycled per team: a call should not pay for malloc and free.
 * Each op the team ever allocated is on all_ops, so that destroying the
 * team frees the released ones and detaches the ones a handle still holds. */
static struct pgas__coll_op *op_alloc(struct pgas_team *t)
{
	struct pgas__coll_op *op = t->free_ops;

	if (op) {
		t->free_ops = op->next;
	} else {
		/* Room behind the op for copies of single-mode address lists. */
		op = malloc(sizeof(*op) + 2 * (size_t)t->size * sizeof(void *));
		if (!op)
			return NULL;
		op->all_next = t->all_ops;
		t->all_ops = op;
	}
	t->handles++;
	return op;
}

static void op_release(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;

	if (op->src_copy) {
		free(op->src_copy);
		op->src_copy = NULL;
	}
	/* A call abandoned half-way holds them (the reference algorithms'). */
	if (PGAS__UNLIKELY(op->hall || op->hres || op->ref_msg || op->rdv_sent || op->rdv_tmp))
		pgas__coll_hier_free(op);
	if (!t) {		/* its team was destroyed while the handle was held */
		free(op);
		return;
	}
	t->handles--;
	op->team = NULL;	/* a released op is nobody's handle any more */
	op->next = t->free_ops;
	t->free_ops = op;
}

void pgas__coll_op_free_all(struct pgas_team *t)
{
	struct pgas__coll_op *op = t->all_ops, *next;

	for (; op; op = next) {
		next = op->all_next;
		if (op->team == t)
			op->team = NULL;	/* handle still held: freed by its wait */
		else
			free(op);
	}
	t->all_ops = t->free_ops = NULL;
}

void pgas__team_complete(struct pgas_team *t)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;

	if (t->head)
		pgas__coll_progress();
	while (t->head)
		pgas__wait_step(&w);
}

static int finish(pgas_coll_handle_t h)
{
	int rc = h->rc;

	op_release(h);
	return rc;
}


static int coll_try(pgas_coll_handle_t h)
{
	if (!h)
		return pgas__err(PGAS_ERR_INVAL, "pgas_coll_try", "handle is NULL");
	if (!h->done) {
		if (PGAS__UNLIKELY(pgas__pending() & PGAS__PENDING_CONDUIT))
			pgas__conduit_progress();	/* a try moves the proxy rings too */
		pgas__coll_progress();
		pgas__progress(pgas__wait_chanmask(), 64);
		if (!h->done)
			return PGAS_ERR_NOT_READY;
	}
	return finish(h);
}

static int coll_wait(pgas_coll_handle_t h)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;

	if (!h)
		return pgas__err(PGAS_ERR_INVAL, "pgas_coll_wait", "handle is NULL");
	if (!h->done)
		pgas__coll_progress();
	while (!h->done)
		pgas__wait_step(&w);
	return finish(h);
}

int pgas_coll_try(pgas_coll_handle_t h)
{
	int rc = pgas__mt_enter("pgas_coll_try");

	return rc ? rc : pgas__mt_leave(coll_try(h));
}

int pgas_coll_wait(pgas_coll_handle_t h)
{
	int rc = pgas__mt_enter("pgas_coll_wait");	/* lent while it waits */

	return rc ? rc : pgas__mt_leave(coll_wait(h));
}

int pgas_coll_wait_all(pgas_coll_handle_t *handles, size_t count)
{
	int rc = PGAS_OK, r;

	if (!handles && count)
		return pgas__err(PGAS_ERR_INVAL, "pgas_coll_wait_all", "handles is NULL, count %zu",
				 count);
	for (size_t i = 0; i < count; i++) {
		r = pgas_coll_wait(handles[i]);
		handles[i] = NULL;
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/* ---- starting a call -------------------------------------------------------------------------- */

struct call_args {
	int kind;
	unsigned root;
	bool single, rooted;
	const void *src;
	void *dst;
	const void *const *lsrc;
	void *const *ldst;
	size_t count;			/* bytes, or elements for reductions */
	pgas_type_t type;
	pgas_op_t op;
	bool reduction;
	unsigned flags;
};

static int check_flags(const char *call, unsigned flags)
{
	unsigned in = flags & 0x0fu, out = flags & 0xf0u;

	if (flags & ~0x77u)
		return pgas__err(PGAS_ERR_INVAL, call, "unknown flags 0x%x", flags & ~0x77u);
	if (!in || (in & (in - 1)) || !out || (out & (out - 1)))
		return pgas__err(PGAS_ERR_INVAL, call,
				 "flags 0x%x: need exactly one PGAS_COLL_IN_* and one PGAS_COLL_OUT_*",
				 flags);
	return PGAS_OK;
}

/*
 * Single mode, where pgas__ep_map_seg said no: a rank the core does not map
 * has no segment in its peer entry, so [p, p + len) is checked against the
 * conduit's bounds (its segment less the library's area behind it).
 */
static __attribute__((noinline, cold)) bool in_unmapped_segment(unsigned r, const void *p,
								  size_t len)
{
	const struct pgas_conduit_ep *ep = &pgas__job.conduit.eps[r];
	size_t user = ep->seg_size - pgas__layers_area_bytes(pgas__g.nranks);
	uintptr_t off = (uintptr_t)p - (uintptr_t)ep->seg_remote;

	return !pgas__rank_mapped(r) && off <= user && len <= user - off;
}

/* Single mode: every listed address must lie in its owner's segment. */
static int check_list(const char *call, struct pgas_team *t, const char *name,
		      const void *const *list, size_t len)
{
	if (!list)
		return pgas__err(PGAS_ERR_INVAL, call, "%s list is NULL", name);
	for (unsigned i = 0; i < t->size; i++) {
		if (!list[i] && len)
			return pgas__err(PGAS_ERR_INVAL, call, "%s[%u] is NULL", name, i);
		if (len && !pgas__ep_map_seg(&pgas__g, t->members[i], list[i], len, &(char *){ 0 }) &&
		    !in_unmapped_segment(t->members[i], list[i], len))
			return pgas__err(PGAS_ERR_BOUNDS, call,
					 "%s[%u] = %p + %zu bytes is outside team rank %u's segment",
					 name, i, list[i], len, i);
	}
	return PGAS_OK;
}

/* check_one's miss: an unmapped owner's bounds, or the error (out of line). */
static __attribute__((noinline, cold)) int outside_one(const char *call, struct pgas_team *t,
							const char *name, const void *p,
							size_t len, unsigned owner)
{
	if (in_unmapped_segment(t->members[owner], p, len))
		return PGAS_OK;
	return pgas__err(PGAS_ERR_BOUNDS, call,
			 "%s = %p + %zu bytes is outside team rank %u's segment", name, p,
			 len, owner);
}

static int check_one(const char *call, struct pgas_team *t, const char *name, const void *p,
		     size_t len, unsigned owner, bool single)
{
	if (!len)
		return PGAS_OK;
	if (!p)
		return pgas__err(PGAS_ERR_INVAL, call, "%s is NULL (%zu bytes)", name, len);
	if (single && !pgas__ep_map_seg(&pgas__g, t->members[owner], p, len, &(char *){ 0 }))
		return outside_one(call, t, name, p, len, owner);
	return PGAS_OK;
}

static bool overlap(const char *a, size_t na, const char *b, size_t nb)
{
	return na && nb && a < b + nb && b < a + na;
}

/*
 * Local mode in place: when my source and destination overlap, the source
 * is read once, at the call, into memory of the call's own; the call then
 * runs as if the user had passed that copy.
 */
static int take_in_place_source(const char *call, struct pgas__coll_op *op)
{
	size_t ns = op->nbytes * op->my_sb, nd = op->nbytes * op->my_db;

	/* A broadcast's root with dst == src has its result already: no copy
	 * of the source, and nothing writes its dst (see root_keeps). */
	op->root_keeps = op->kind == PGAS_COLL_BROADCAST && op->team->rank == op->root &&
			 op->usrc == op->udst && ns;
	if (op->root_keeps)
		return PGAS_OK;
	if (!overlap(op->usrc, ns, op->udst, nd))
		return PGAS_OK;
	op->src_copy = malloc(ns);
	if (!op->src_copy)
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for a copy of the in-place "
				 "source (%zu bytes)", ns);
	memcpy(op->src_copy, op->usrc, ns);
	op->usrc = op->src_copy;
	return PGAS_OK;
}

/* Single mode: the address of team rank r's source (dst false) or destination. */
static const char *single_addr(const struct pgas__coll_op *op, unsigned r, bool dst)
{
	if (dst)
		return op->ldst ? op->ldst[r] : (blocks_of(op, r, true) ? op->udst : NULL);
	return op->lsrc ? op->lsrc[r] : (blocks_of(op, r, false) ? op->usrc : NULL);
}

/*
 * Single mode cannot run in place: peers read a member's source where the
 * lists say while others write its destination.  Refused, on every member
 * alike (every member checks every member's entries).
 */
static int check_single_overlap(const char *call, struct pgas__coll_op *op)
{
	for (unsigned r = 0; r < op->team->size; r++) {
		size_t ns = op->nbytes * blocks_of(op, r, false);
		size_t nd = op->nbytes * blocks_of(op, r, true);
		const char *s = single_addr(op, r, false), *d = single_addr(op, r, true);

		if (s && d && overlap(s, ns, d, nd))
			return pgas__err(PGAS_ERR_INVAL, call,
					 "team rank %u's source %p (%zu bytes) and destination %p "
					 "(%zu bytes) overlap: single mode cannot run in place (the "
					 "local-mode call can)", r, (const void *)s, ns, (const void *)d,
					 nd);
	}
	return PGAS_OK;
}

/*
 * May a blocking call run on the light path (coll_light.c)?  When the
 * engine would run it eagerly in one chunk, with nothing of the team's in
 * flight before it, and no other thread can start one while it waits.
 */
static bool light_fits(const struct pgas__coll_op *op)
{
	const struct pgas_team *t = op->team;

	return op->eager && !t->head && !t->active &&
	       !(op->flags & (PGAS_COLL_IN_ALLSYNC | PGAS_COLL_OUT_ALLSYNC)) &&
	       !pgas__cfg.coll_debug && !pgas__mt();
}

/* block: the blocking call, which may run on the light path (*h NULL then). */
static int start_locked(pgas_coll_handle_t *h, const char *call, pgas_team_t team,
			const struct call_args *a, bool block)
{
	struct pgas__coll_op *op;
	bool commutative = true;
	size_t elem = 1, nbytes, nb;
	unsigned n;
	int rc;

	if (h)
		*h = NULL;
	rc = pgas__team_check(call, team);
	if (rc)
		return rc;
	if (!h)
		return pgas__err(PGAS_ERR_INVAL, call, "handle pointer is NULL");
	n = team->size;
	if (a->kind != PGAS_COLL_BARRIER && (rc = check_flags(call, a->flags)))
		return rc;
	if (a->rooted && a->root >= n)
		return pgas__err(PGAS_ERR_RANK, call, "root %u out of range (team has %u ranks)",
				 a->root, n);
	if (a->reduction) {
		rc = pgas__op_check(call, a->type, a->op, &commutative);
		if (rc)
			return rc;
		elem = pgas__type_size(a->type, a->op);
	}
	if (a->count > (SIZE_MAX >> 1) / elem / n)
		return pgas__err(PGAS_ERR_SIZE, call, "%zu elements of %zu bytes overflow", a->count,
				 elem);
	nbytes = a->count * elem;
	op = op_alloc(team);
	if (!op)
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for a collective");
	*op = (struct pgas__coll_op){ .team = team, .all_next = op->all_next,
				      .call = call, .kind = a->kind,
				      .single = a->single, .flags = a->flags, .root = a->root,
				      .nbytes = nbytes, .elem = elem, .type = a->type, .rop = a->op,
				      .commutative = commutative, .usrc = (char *)a->src,
				      .udst = a->dst, .lsrc = a->lsrc, .ldst = a->ldst,
				      .kids = team->kids };
	/* Buffers: the largest role fixes the chunking, mine are checked. */
	/* The root's role is the largest where roles differ. */
	op->src_blocks = src_blocks_of(op, op->root);
	op->dst_blocks = dst_blocks_of(op, op->root);
	op->my_sb = team->rank == op->root ? op->src_blocks : src_blocks_of(op, team->rank);
	op->my_db = team->rank == op->root ? op->dst_blocks : dst_blocks_of(op, team->rank);
	nb = nbytes;
	if (a->single) {
		/* The caller may reuse its lists once the call returned. */
		void **copy = (void **)(op + 1);

		if (a->lsrc) {
			memcpy(copy, a->lsrc, n * sizeof(void *));
			op->lsrc = (const void *const *)copy;
		}
		if (a->ldst) {
			memcpy(copy + n, a->ldst, n * sizeof(void *));
			op->ldst = (void *const *)(copy + n);
		}
	}
	if (a->single) {
		rc = a->lsrc ? check_list(call, team, "src", a->lsrc, nb * op->src_blocks)
			     : check_one(call, team, "src", a->src, nb * op->src_blocks, a->root,
					 true);
		if (!rc)
			rc = a->ldst ? check_list(call, team, "dst", (const void *const *)a->ldst,
						  nb * op->dst_blocks)
				     : check_one(call, team, "dst", a->dst, nb * op->dst_blocks,
						 a->root, true);
		if (!rc)
			rc = check_single_overlap(call, op);
	} else {
		rc = check_one(call, team, "src", a->src, nb * op->my_sb, team->rank, false);
		if (!rc)
			rc = check_one(call, team, "dst", a->dst, nb * op->my_db, team->rank, false);
		if (!rc)
			rc = take_in_place_source(call, op);
	}
	if (!rc)
		rc = pgas__check_thread(call);
	if (rc) {
		op_release(op);
		return rc;
	}
	if (a->kind == PGAS_COLL_BARRIER && PGAS__UNLIKELY(pgas__notes_on))
		pgas__ev_coll(PGAS_COLL_BARRIER, team->choice[PGAS_COLL_BARRIER][0].alg);
	if (a->kind != PGAS_COLL_BARRIER) {
		pgas__choose(op);
		/* The reference algorithms stage nothing: one chunk. */
		op->chunk = op->ch.alg >= ALG_REF ? nbytes : chunk_size(op);
		/* One chunk only: the eager copy does not cut the source at a
		 * chunk's offset (a wide team with a small stage would chunk). */
		op->eager = op->chunk == nbytes && eager_fits(op);
		if (nbytes && !op->chunk) {
			op_release(op);
			return pgas__err(PGAS_ERR_SIZE, call,
					 "%s=%zu cannot stage one %zu-byte element per block for %u "
					 "ranks", team == &pgas__team_all ? "PGAS_COLL_STAGE" :
					 "PGAS_COLL_TEAM_STAGE", team->stage_len, elem, n);
		}
	}
	op->seq = ++team->seq;
	if (block && light_fits(op)) {
		/* As the engine's start below: other teams' calls advance too. */
		if (pgas__pending() & PGAS__PENDING_COLL)
			pgas__coll_progress();
		team->light = true;
		rc = pgas__coll_light(op);
		team->light = false;
		op_release(op);
		return rc;
	}
	if (team->tail)
		team->tail->next = op;
	else
		team->head = op;
	team->tail = op;
	pgas__team_activate(team);
	*h = op;
	/* Do what can be done at once: often all of it. */
	pgas__coll_progress();
	return PGAS_OK;
}

/* At MULTIPLE under the progress lock: teams and their calls are progress state. */
static int start(pgas_coll_handle_t *h, const char *call, pgas_team_t team,
		 const struct call_args *a, bool block)
{
	int rc = pgas__mt_enter(call);

	if (rc) {
		if (h)
			*h = NULL;
		return rc;
	}
	return pgas__mt_leave(start_locked(h, call, team, a, block));
}

/* A blocking call: waits for the handle, unless the light path ran it. */
static int blocking(int rc, pgas_coll_handle_t *h)
{
	return rc || !*h ? rc : pgas_coll_wait(*h);
}

/* ---- the API -------------------------------------------------------------------------------- */

int pgas_team_barrier_nb(pgas_coll_handle_t *h, pgas_team_t team)
{
	struct call_args a = { .kind = PGAS_COLL_BARRIER };

	return start(h, "pgas_team_barrier_nb", team, &a, false);
}

int pgas_team_barrier(pgas_team_t team)
{
	pgas_coll_handle_t h;
	struct call_args a = { .kind = PGAS_COLL_BARRIER };

	return blocking(start(&h, "pgas_team_barrier", team, &a, true), &h);
}

/* Defines pgas_NAME (blocking) and pgas_NAME_nb from one argument filler. */
#define COLL_DEF(name, params, ...)						\
	int pgas_##name##_nb(pgas_coll_handle_t *h, PGAS__UNPAREN params)	\
	{									\
		struct call_args a = { __VA_ARGS__ };				\
		return start(h, "pgas_" #name "_nb", team, &a, false);		\
	}									\
	int pgas_##name(PGAS__UNPAREN params)					\
	{									\
		pgas_coll_handle_t h;						\
		struct call_args a = { __VA_ARGS__ };				\
		return blocking(start(&h, "pgas_" #name, team, &a, true), &h);	\
	}
#define PGAS__UNPAREN(...) __VA_ARGS__

COLL_DEF(broadcast, (pgas_team_t team, unsigned root, void *dst, const void *src,
		     size_t nbytes, unsigned flags),
	 .kind = PGAS_COLL_BROADCAST, .rooted = true, .root = root, .dst = dst, .src = src,
	 .count = nbytes, .flags = flags)
COLL_DEF(scatter, (pgas_team_t team, unsigned root, void *dst, const void *src,
		   size_t nbytes, unsigned flags),
	 .kind = PGAS_COLL_SCATTER, .rooted = true, .root = root, .dst = dst, .src = src,
	 .count = nbytes, .flags = flags)
COLL_DEF(gather, (pgas_team_t team, unsigned root, void *dst, const void *src,
		  size_t nbytes, unsigned flags),
	 .kind = PGAS_COLL_GATHER, .rooted = true, .root = root, .dst = dst, .src = src,
	 .count = nbytes, .flags = flags)
COLL_DEF(gather_all, (pgas_team_t team, void *dst, const void *src, size_t nbytes,
		      unsigned flags),
	 .kind = PGAS_COLL_GATHER_ALL, .dst = dst, .src = src, .count = nbytes, .flags = flags)
COLL_DEF(exchange, (pgas_team_t team, void *dst, const void *src, size_t nbytes,
		    unsigned flags),
	 .kind = PGAS_COLL_EXCHANGE, .dst = dst, .src = src, .count = nbytes, .flags = flags)
COLL_DEF(reduce, (pgas_team_t team, unsigned root, void *dst, const void *src, size_t count,
		  pgas_type_t type, pgas_op_t op, unsigned flags),
	 .kind = PGAS_COLL_REDUCE, .rooted = true, .root = root, .dst = dst, .src = src,
	 .count = count, .reduction = true, .type = type, .op = op, .flags = flags)
COLL_DEF(reduce_all, (pgas_team_t team, void *dst, const void *src, size_t count,
		      pgas_type_t type, pgas_op_t op, unsigned flags),
	 .kind = PGAS_COLL_REDUCE_ALL, .dst = dst, .src = src, .count = count,
	 .reduction = true, .type = type, .op = op, .flags = flags)
COLL_DEF(scan, (pgas_team_t team, void *dst, const void *src, size_t count,
		pgas_type_t type, pgas_op_t op, unsigned flags),
	 .kind = PGAS_COLL_SCAN, .dst = dst, .src = src, .count = count,
	 .reduction = true, .type = type, .op = op, .flags = flags)

COLL_DEF(broadcast_single, (pgas_team_t team, unsigned root, void *const dst[],
			    const void *src, size_t nbytes, unsigned flags),
	 .kind = PGAS_COLL_BROADCAST, .single = true, .rooted = true, .root = root,
	 .ldst = dst, .src = src, .count = nbytes, .flags = flags)
COLL_DEF(scatter_single, (pgas_team_t team, unsigned root, void *const dst[],
			  const void *src, size_t nbytes, unsigned flags),
	 .kind = PGAS_COLL_SCATTER, .single = true, .rooted = true, .root = root,
	 .ldst = dst, .src = src, .count = nbytes, .flags = flags)
COLL_DEF(gather_single, (pgas_team_t team, unsigned root, void *dst,
			 const void *const src[], size_t nbytes, unsigned flags),
	 .kind = PGAS_COLL_GATHER, .single = true, .rooted = true, .root = root,
	 .dst = dst, .lsrc = src, .count = nbytes, .flags = flags)
COLL_DEF(gather_all_single, (pgas_team_t team, void *const dst[], const void *const src[],
			     size_t nbytes, unsigned flags),
	 .kind = PGAS_COLL_GATHER_ALL, .single = true, .ldst = dst, .lsrc = src,
	 .count = nbytes, .flags = flags)
COLL_DEF(exchange_single, (pgas_team_t team, void *const dst[], const void *const src[],
			   size_t nbytes, unsigned flags),
	 .kind = PGAS_COLL_EXCHANGE, .single = true, .ldst = dst, .lsrc = src,
	 .count = nbytes, .flags = flags)
COLL_DEF(reduce_single, (pgas_team_t team, unsigned root, void *dst, const void *const src[],
			 size_t count, pgas_type_t type, pgas_op_t op, unsigned flags),
	 .kind = PGAS_COLL_REDUCE, .single = true, .rooted = true, .root = root, .dst = dst,
	 .lsrc = src, .count = count, .reduction = true, .type = type, .op = op,
	 .flags = flags)
COLL_DEF(reduce_all_single, (pgas_team_t team, void *const dst[], const void *const src[],
			     size_t count, pgas_type_t type, pgas_op_t op, unsigned flags),
	 .kind = PGAS_COLL_REDUCE_ALL, .single = true, .ldst = dst, .lsrc = src,
	 .count = count, .reduction = true, .type = type, .op = op, .flags = flags)
COLL_DEF(scan_single, (pgas_team_t team, void *const dst[], const void *const src[],
		       size_t count, pgas_type_t type, pgas_op_t op, unsigned flags),
	 .kind = PGAS_COLL_SCAN, .single = true, .ldst = dst, .lsrc = src, .count = count,
	 .reduction = true, .type = type, .op = op, .flags = flags)

const struct pgas__layer pgas__coll_layer = {
	.name = "collectives",
	.pending_bit = PGAS__PENDING_COLL,
	.area_bytes = coll_area_bytes,
	.attach = coll_attach,
	.progress = pgas__coll_progress,
	.leave = coll_leave,
	.report = pgas__coll_report,
};
