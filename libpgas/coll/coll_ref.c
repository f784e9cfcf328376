// SPDX-License-Identifier: MIT
/*
 * coll_ref.c - the reference algorithms of the collectives: every
 * operation and the team barrier without a load or store in a peer's
 * memory, for teams with a member this process does not map
 * (PGAS_MAP_PEERS=none, a remote host), or forced on any team with
 * PGAS_COLL_<KIND>=ref (the test knob of these paths on mapped peers).
 *
 * Data moves in the library's own Medium active messages (core/am.c,
 * handler index 0): the sender sends (fragments of at most
 * pgas_am_max_medium() bytes), the target's handler copies the message into
 * memory of its own, keyed by (team key, call seq, source rank, tag), where
 * the receiving call takes it.  So a message may arrive before its call
 * started (nothing to clear to send) and a call touches no buffer but its
 * own; sends are immediate (a full ring is "wait": the coroutine returns 0
 * and retries), so a coroutine never waits inside a send.
 *
 * The algorithms are flat, one round: a rank sends each peer what it needs
 * and combines what it receives in team-rank order (also right for
 * non-commutative operations).  Costs, n members, B bytes per block:
 *   barrier         dissemination, ceil(log2 n) rounds of 1 empty message
 *   broadcast       root sends n-1 messages of B
 *   scatter/gather  root sends / receives n-1 messages of B
 *   gather_all      n(n-1) messages of B (each rank sends its block to all)
 *   exchange        n(n-1) messages of B (block j to rank j)
 *   reduce          n-1 messages of B to the root, which combines
 *   reduce_all      n(n-1) messages of B; everyone combines every source
 *   scan            n(n-1)/2 messages of B; rank r combines sources 0..r
 * plus one copy into the handler's buffer and one out of it per message.
 *
 * Rendezvous (pgas__coll_ref_run's blocks):
 * a block of at least RDV_MIN bytes, larger than a Medium, that lies in the
 * sender's segment goes as its address and length (REF_T_RDV); the
 * receiver reads it with one get into its destination (a reduction: into a
 * temporary it folds) and answers REF_T_RDONE, for which the sender waits
 * before its call ends, since the block must stay until read.  Eagerly, a
 * block crosses the fabric in Medium fragments (pgas_am_max_medium(), 8 KiB
 * by default) and is copied four times (the sender's proxy, the receive
 * buffer, the handler's buffer, the destination): a 1 MiB broadcast across
 * the bed took 1400 us that way, 420-550 us now (Open MPI's: 270 us).  The
 * get is the one step that may wait (for room in the fabric's queue or a
 * ring; never from a handler or under an HSL: it is deferred there): its
 * wait steps poll, which does not step the collectives again
 * (pgas__coll_progress), and at MULTIPLE lend the progress lock, so other
 * threads may start calls meanwhile (the active list is walked again).
 * The sender waits for every reader of a card it sent, so a root of a
 * broadcast or scatter, or a member of a gather or reduce, no longer ends
 * before its readers as it does eagerly.
 */
#include <stdlib.h>
#include "coll.h"

#define NBUCKETS 256u
static struct pgas__coll_ref_msg *table[NBUCKETS];

static unsigned bucket(uint64_t key, uint64_t seq, uint32_t src, uint32_t tag)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull ^ seq * 0xc2b2ae3d27d4eb4full ^
		     ((uint64_t)src << 32 | tag) * 0x165667b19e3779f9ull;

	return (unsigned)(h >> 56) % NBUCKETS;
}

static struct pgas__coll_ref_msg **find(uint64_t key, uint64_t seq, uint32_t src, uint32_t tag)
{
	struct pgas__coll_ref_msg **pp = &table[bucket(key, seq, src, tag)];

	while (*pp && ((*pp)->key != key || (*pp)->seq != seq || (*pp)->src != src ||
		       (*pp)->tag != tag))
		pp = &(*pp)->next;
	return pp;
}

static uint64_t arg64(const uint32_t *a)
{
	return (uint64_t)a[0] | (uint64_t)a[1] << 32;
}

/* args after the dispatch word: key (2), seq (2), tag, offset (2), total length (2). */
static void ref_handler(pgas_token_t tok, void *buf, size_t nbytes, const uint32_t *args,
			unsigned nargs)
{
	unsigned src = 0;
	uint64_t key, seq, off, len;
	struct pgas__coll_ref_msg **pp, *m;

	pgas_token_rank(tok, &src);
	if (nargs != 10)
		pgas__fatal("collectives: bad message from rank %u (%u args)", src, nargs);
	args++;		/* args[0]: PGAS__LIBH_COLL (core/am.c) */
	key = arg64(args);
	seq = arg64(args + 2);
	off = arg64(args + 5);
	len = arg64(args + 7);
	pp = find(key, seq, src, args[4]);
	m = *pp;
	if (!m) {
		if (len > SIZE_MAX - sizeof(*m) - 16)
			pgas__fatal("collectives: message of %llu bytes from rank %u",
				    (unsigned long long)len, src);
		m = malloc(sizeof(*m) + (size_t)len);
		if (!m)
			pgas__fatal("collectives: no memory for a %llu-byte message from rank %u",
				    (unsigned long long)len, src);
		*m = (struct pgas__coll_ref_msg){ .key = key, .seq = seq, .src = src, .tag = args[4],
					     .len = len };
		*pp = m;
	}
	if (m->len != len || off > len || nbytes > len - off || m->got + nbytes > len)
		pgas__fatal("collectives: bad fragment from rank %u (%zu bytes at %llu of %llu)",
			    src, nbytes, (unsigned long long)off, (unsigned long long)len);
	if (nbytes)
		memcpy(m->data + off, buf, nbytes);
	m->got += nbytes;
}

void pgas__coll_ref_init(void)
{
	pgas__lib_handlers[PGAS__LIBH_COLL] = ref_handler;
}

/* pgas__coll_ref_send's: PGAS_OK once all of it went, PGAS_ERR_NOT_READY
 * (resume later), or the error that stopped it. */
static int ref_send(struct pgas__coll_op *op, unsigned to, uint32_t tag, const void *buf,
		    size_t len)
{
	struct pgas_team *t = op->team;
	size_t max = pgas_am_max_medium();
	uint64_t key = t->ref_key[to];

	if (pgas__self.handler_depth)	/* handlers may not send requests: later */
		return PGAS_ERR_NOT_READY;
	do {
		size_t n = len - op->ref_at < max ? len - op->ref_at : max;
		uint32_t a[9] = { (uint32_t)key, (uint32_t)(key >> 32), (uint32_t)op->seq,
				  (uint32_t)(op->seq >> 32), tag, (uint32_t)op->ref_at,
				  (uint32_t)((uint64_t)op->ref_at >> 32), (uint32_t)len,
				  (uint32_t)((uint64_t)len >> 32) };
		int rc = pgas__am_lib_medium(t->members[to], PGAS__LIBH_COLL,
					     n ? (const char *)buf + op->ref_at : NULL, n, a, 9, true);

		if (rc == PGAS_ERR_NOT_READY)
			return rc;
		if (rc) {
			op->ref_at = 0;
			return rc;
		}
		op->ref_at += n;
	} while (op->ref_at < len);
	op->ref_at = 0;
	return PGAS_OK;
}

bool pgas__coll_ref_send(struct pgas__coll_op *op, unsigned to, uint32_t tag, const void *buf,
		    size_t len)
{
	int rc = ref_send(op, to, tag, buf, len);

	if (rc == PGAS_ERR_NOT_READY)
		return false;
	if (rc && !op->rc)
		op->rc = rc;
	return true;
}

struct pgas__coll_ref_msg *pgas__coll_ref_take(struct pgas__coll_op *op, unsigned from, uint32_t tag)
{
	struct pgas_team *t = op->team;
	struct pgas__coll_ref_msg **pp = find(t->ref_key[t->rank], op->seq, t->members[from], tag);
	struct pgas__coll_ref_msg *m = *pp;

	if (!m || m->got != m->len)
		return NULL;
	*pp = m->next;
	return m;
}

/* ---- pgas_exit ------------------------------------------------------------------- */

void pgas__coll_ref_leave(struct pgas_team *t, uint64_t left)
{
	/* From a handler no request may go: the members learn nothing more
	 * than that this rank left (the core's wait for the abandoned then
	 * ends theirs). */
	if (pgas__self.handler_depth)
		return;
	for (unsigned i = 0; i < t->size; i++) {
		uint64_t key = t->ref_key[i];
		uint32_t a[9] = { (uint32_t)key, (uint32_t)(key >> 32), 0, 0,
				  PGAS__REF_TAG(REF_T_LEFT, 0), 0, 0, sizeof(left), 0 };

		if (i == t->rank || pgas__coll_mapped(t->members[i]))
			continue;
		(void)pgas__am_lib_medium(t->members[i], PGAS__LIBH_COLL, &left, sizeof(left), a,
					  9, false);
	}
}

uint64_t pgas__coll_ref_left(struct pgas_team *t, unsigned i)
{
	struct pgas__coll_ref_msg *m = *find(t->ref_key[t->rank], 0, t->members[i],
					PGAS__REF_TAG(REF_T_LEFT, 0));
	uint64_t left = 0;

	if (m && m->got == m->len && m->len == sizeof(left))
		memcpy(&left, m->data, sizeof(left));
	return left;
}

/* ---- barrier ----------------------------------------------------------------------- */

/* Dissemination, radix 2: in round d, tell me + d and hear from me - d. */
int pgas__coll_ref_barrier(struct pgas__coll_op *op, int *pc, unsigned phase)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank;

	CO_BEGIN(*pc);
	for (op->bdist = 1; op->bdist < n; op->bdist *= 2) {
		CO_WAIT(*pc, pgas__coll_ref_send(op, (me + op->bdist) % n,
					    PGAS__REF_TAG(phase, op->bdist), NULL, 0));
		CO_WAIT(*pc, (op->ref_msg = pgas__coll_ref_take(op, (me + n - op->bdist) % n,
							   PGAS__REF_TAG(phase, op->bdist))));
		free(op->ref_msg);
		op->ref_msg = NULL;
	}
	CO_END(*pc);
}

/* ---- the operations --------------------------------------------------------------- */

#define DATA PGAS__REF_TAG(REF_T_DATA, 0)
#define RDV PGAS__REF_TAG(REF_T_RDV, 0)
#define RDONE PGAS__REF_TAG(REF_T_RDONE, 0)
#define RDV_MIN ((size_t)32768)

/* May a block of mine at buf go by rendezvous?  Asked once per target, at
 * the send (a region registered meanwhile changes the answer): the cards
 * that went are recorded in op->rdv_sent. */
static bool rdv(const char *buf, size_t len)
{
	return buf && len >= RDV_MIN && len > pgas_am_max_medium() &&
	       pgas__ref_in_bounds(pgas__g.rank, buf, len);
}

/* The team rank op->i places away from me (the send and done loops). */
static unsigned nth(const struct pgas__coll_op *op)
{
	return (op->team->rank + op->i) % op->team->size;
}

/* Do I send to team rank 'to'? */
static bool sends_to(struct pgas__coll_op *op, unsigned to)
{
	unsigned me = op->team->rank;

	switch (op->kind) {
	case PGAS_COLL_BROADCAST:
	case PGAS_COLL_SCATTER:
		return me == op->root;
	case PGAS_COLL_GATHER:
	case PGAS_COLL_REDUCE:
		return to == op->root;
	case PGAS_COLL_SCAN:
		return to > me;
	default:	/* gather_all, exchange, reduce_all */
		return true;
	}
}

/* What team rank 'to' gets from me (NULL with 0 bytes). */
static const char *outgoing(struct pgas__coll_op *op, unsigned to)
{
	if (!op->src_eff)
		return NULL;
	if (op->kind == PGAS_COLL_SCATTER || op->kind == PGAS_COLL_EXCHANGE)
		return op->src_eff + (size_t)to * op->nbytes;
	return op->src_eff;
}

/* Do I hear from team rank 'from'? */
static bool incoming(struct pgas__coll_op *op, unsigned from)
{
	unsigned me = op->team->rank;

	switch (op->kind) {
	case PGAS_COLL_BROADCAST:
	case PGAS_COLL_SCATTER:
		return from == op->root;
	case PGAS_COLL_GATHER:
	case PGAS_COLL_REDUCE:
		return me == op->root;
	case PGAS_COLL_SCAN:
		return from < me;
	default:
		return true;
	}
}

static bool reduction(const struct pgas__coll_op *op)
{
	return op->kind == PGAS_COLL_REDUCE || op->kind == PGAS_COLL_REDUCE_ALL ||
	       op->kind == PGAS_COLL_SCAN;
}

/* Where block i (what i sent, or my own share) goes in my destination. */
static char *landing(struct pgas__coll_op *op, unsigned i)
{
	switch (op->kind) {
	case PGAS_COLL_GATHER:
	case PGAS_COLL_GATHER_ALL:
	case PGAS_COLL_EXCHANGE:
		return op->dst_eff + (size_t)i * op->nbytes;
	default:
		return op->dst_eff;
	}
}

/* Is there a share of mine that stays with me? */
static bool keeps_own(struct pgas__coll_op *op)
{
	switch (op->kind) {
	case PGAS_COLL_BROADCAST:
	case PGAS_COLL_GATHER:
	case PGAS_COLL_REDUCE:
	case PGAS_COLL_SCATTER:
		return op->team->rank == op->root;
	default:
		return true;
	}
}

/* Folds block i (data) into my destination, in rank order: the first one is copied. */
static void fold(struct pgas__coll_op *op, const char *data, bool first)
{
	size_t count = op->nbytes / op->elem;

	if (first)
		memcpy(op->dst_eff, data, op->nbytes);
	else
		pgas__reduce(op->dst_eff, op->dst_eff, data, count, op->type, op->rop);
}

static void place(struct pgas__coll_op *op, unsigned i, const char *data)
{
	if (!op->nbytes)
		return;
	if (reduction(op))
		fold(op, data, i == 0);
	else if (landing(op, i) != data)
		memcpy(landing(op, i), data, op->nbytes);
}

/* Sends my block to team rank to: eagerly, or its address (rendezvous);
 * a card that went is recorded, and its reader's RDONE awaited. */
static bool send_block(struct pgas__coll_op *op, unsigned to)
{
	const char *buf = outgoing(op, to);
	uint64_t card[2] = { (uint64_t)(uintptr_t)buf, op->nbytes };
	int rc;

	if (rdv(buf, op->nbytes) && !op->rdv_sent)
		op->rdv_sent = calloc(op->team->size, 1);	/* none: eagerly */
	if (!op->rdv_sent || !rdv(buf, op->nbytes))
		return pgas__coll_ref_send(op, to, DATA, buf, op->nbytes);
	rc = ref_send(op, to, RDV, card, sizeof(card));
	if (rc == PGAS_ERR_NOT_READY)
		return false;
	if (rc && !op->rc)
		op->rc = rc;
	op->rdv_sent[to] = !rc;
	return true;
}

/* A block from team rank from, as it came: eagerly or as a rendezvous card. */
static struct pgas__coll_ref_msg *take_block(struct pgas__coll_op *op, unsigned from)
{
	struct pgas__coll_ref_msg *m = pgas__coll_ref_take(op, from, DATA);

	return m ? m : pgas__coll_ref_take(op, from, RDV);
}

static bool block_len_ok(struct pgas__coll_op *op, uint64_t len)
{
	if (len != op->nbytes && !op->rc)
		op->rc = pgas__err(PGAS_ERR_INVAL, op->call,
				   "call %llu on this team: team rank %u sent %llu bytes, "
				   "team rank %u expected %zu (do the members pass the same "
				   "size? PGAS_COLL_DEBUG=1 tells)",
				   (unsigned long long)op->seq, op->i, (unsigned long long)len,
				   op->team->rank, op->nbytes);
	return !op->rc;
}

/*
 * Reads the block of a rendezvous card (op->ref_msg from team rank op->i)
 * and places it; resumable: true once done or failed (op->rc).  Whatever
 * happens, the sender is told it is done (the caller's RDONE).
 */
static bool rdv_read(struct pgas__coll_op *op)
{
	unsigned rank = op->team->members[op->i];
	uint64_t card[2];
	char *to;
	int rc;

	if (!op->rdv_busy) {
		/* A handler's poll or a held HSL: not a get that may wait; later. */
		if (!pgas__may_wait())
			return false;
		if (op->ref_msg->len != sizeof(card)) {
			if (!op->rc)
				op->rc = pgas__err(PGAS_ERR_INVAL, op->call,
						   "call %llu: a rendezvous card of %llu bytes from team rank %u",
						   (unsigned long long)op->seq,
						   (unsigned long long)op->ref_msg->len, op->i);
			return true;
		}
		memcpy(card, op->ref_msg->data, sizeof(card));
		if (!block_len_ok(op, card[1]))
			return true;
		to = reduction(op) ? (op->rdv_tmp = malloc(op->nbytes)) : landing(op, op->i);
		if (!to) {
			op->rc = pgas__err(PGAS_ERR_NOMEM, op->call,
					   "no memory for a %zu-byte block of team rank %u", op->nbytes,
					   op->i);
			return true;
		}
		rc = pgas_get_nb(&op->rdv_h, to, rank, (void *)(uintptr_t)card[0], op->nbytes);
		if (rc) {
			op->rc = rc;
			free(op->rdv_tmp);
			op->rdv_tmp = NULL;
			return true;
		}
		op->rdv_busy = true;
	}
	rc = pgas_try_syncnb(op->rdv_h);
	if (rc == PGAS_ERR_NOT_READY)
		return false;
	op->rdv_busy = false;
	if (rc && !op->rc)
		op->rc = rc;
	if (!op->rc && reduction(op))
		place(op, op->i, op->rdv_tmp);
	free(op->rdv_tmp);
	op->rdv_tmp = NULL;
	return true;
}

int pgas__coll_ref_run(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank;

	CO_BEGIN(op->pc_sub);
	/* Everything I send, peers from me + 1 on (they do not all start with one). */
	for (op->i = 1; op->i < n; op->i++)
		if (sends_to(op, nth(op)))
			CO_WAIT(op->pc_sub, send_block(op, nth(op)));
	/* Everything I receive, in rank order (my own share in its place). */
	for (op->i = 0; op->i < n; op->i++) {
		if (op->i == me) {
			if (keeps_own(op))
				place(op, me, outgoing(op, me));
			continue;
		}
		if (!incoming(op, op->i))
			continue;
		CO_WAIT(op->pc_sub, (op->ref_msg = take_block(op, op->i)));
		if (op->ref_msg->tag == RDV) {
			CO_WAIT(op->pc_sub, rdv_read(op));
			CO_WAIT(op->pc_sub, pgas__coll_ref_send(op, op->i, RDONE, NULL, 0));
		} else if (block_len_ok(op, op->ref_msg->len)) {
			place(op, op->i, op->ref_msg->data);
		}
		free(op->ref_msg);
		op->ref_msg = NULL;
	}
	/* My rendezvous blocks stay until their readers are done with them,
	 * failed call or not (a reader that left ends it: pgas__team_gone). */
	for (op->i = 1; op->rdv_sent && op->i < n; op->i++) {
		if (!op->rdv_sent[nth(op)])
			continue;
		CO_WAIT(op->pc_sub, (op->ref_msg = pgas__coll_ref_take(op, nth(op), RDONE)));
		free(op->ref_msg);
		op->ref_msg = NULL;
	}
	free(op->rdv_sent);
	op->rdv_sent = NULL;
	CO_END(op->pc_sub);
}

/* ---- hierarchical forms (ALG_HIER) -------------------------------------------------- */

/*
 * For a team whose members span hosts (t->hgroups > 1): the members of a
 * group (a host's ranks, mapped to each other) talk to their leader (the
 * group's lowest team rank) only, the leaders to each other across hosts.
 * Three steps, each over the library's AM like the flat forms (inside a
 * host they travel through shared-memory rings):
 *   up     every member sends its contribution (what it gives: its block,
 *          or its n blocks for exchange and scatter) to its leader;
 *   across each leader sends every other leader that needs them its
 *          group's contributions, or the parts of them that leader's group
 *          needs (exchange, scatter): one message per pair of hosts;
 *   down   each leader builds every member's result and sends it.
 * A leader thus holds every contribution the results need, indexed by team
 * rank, and builds each result exactly as the flat form does: reductions
 * fold the n blocks in team-rank order 0, 1, ..., n-1 (the first copied),
 * the same operations in the same order, so every rank's result is bitwise
 * the flat one's (floats included) and the same on every rank.
 */
#define UP PGAS__REF_TAG(REF_T_UP, 0)
#define ACROSS PGAS__REF_TAG(REF_T_X, 0)
#define DOWN PGAS__REF_TAG(REF_T_DOWN, 0)

static unsigned leader_of(const struct pgas_team *t, unsigned i)
{
	return t->hlead[t->hgroup[i]];
}

static bool blocked(const struct pgas__coll_op *op)	/* contribution: n blocks */
{
	return op->kind == PGAS_COLL_EXCHANGE || op->kind == PGAS_COLL_SCATTER;
}

static bool rooted_in(const struct pgas__coll_op *op)	/* only the root gets a result */
{
	return op->kind == PGAS_COLL_GATHER || op->kind == PGAS_COLL_REDUCE;
}

static size_t contrib_bytes(const struct pgas__coll_op *op)
{
	return blocked(op) ? (size_t)op->team->size * op->nbytes : op->nbytes;
}

static size_t result_bytes(const struct pgas__coll_op *op)
{
	switch (op->kind) {
	case PGAS_COLL_GATHER:
	case PGAS_COLL_GATHER_ALL:
	case PGAS_COLL_EXCHANGE:
		return (size_t)op->team->size * op->nbytes;
	default:
		return op->nbytes;
	}
}

static bool gives(const struct pgas__coll_op *op, unsigned i)
{
	return (op->kind != PGAS_COLL_BROADCAST && op->kind != PGAS_COLL_SCATTER) ||
	       i == op->root;
}

/* Does group h give anything?  Does its leader need the others' part? */
static bool group_gives(const struct pgas__coll_op *op, unsigned h)
{
	return (op->kind != PGAS_COLL_BROADCAST && op->kind != PGAS_COLL_SCATTER) ||
	       op->team->hgroup[op->root] == h;
}

static bool group_needs(const struct pgas__coll_op *op, unsigned h)
{
	return !rooted_in(op) || op->team->hgroup[op->root] == h;
}

/* Does member j get its result from its leader (down)? */
static bool gets_down(const struct pgas__coll_op *op, unsigned j)
{
	if (j == leader_of(op->team, j))
		return false;
	if (rooted_in(op))
		return j == op->root;
	if (op->kind == PGAS_COLL_BROADCAST || op->kind == PGAS_COLL_SCATTER)
		return j != op->root;	/* the root keeps its own */
	return true;
}

/* Group h's part of the contributions of my group: packed into out; its bytes. */
static size_t pack(const struct pgas__coll_op *op, unsigned h, char *out)
{
	const struct pgas_team *t = op->team;
	unsigned mine = t->hgroup[t->rank];
	size_t B = op->nbytes, S = contrib_bytes(op), at = 0;

	for (unsigned i = 0; i < t->size; i++) {
		if (t->hgroup[i] != mine || !gives(op, i))
			continue;
		if (!blocked(op)) {
			memcpy(out + at, op->hall + i * S, B);
			at += B;
			continue;
		}
		for (unsigned j = 0; j < t->size; j++)
			if (t->hgroup[j] == h) {
				memcpy(out + at, op->hall + i * S + j * B, B);
				at += B;
			}
	}
	return at;
}

/* Bytes of pack(h) for my group (unpack: group h's for mine, swapped). */
static size_t packed_bytes(const struct pgas__coll_op *op, unsigned from, unsigned to)
{
	const struct pgas_team *t = op->team;
	size_t givers = 0, takers = 0;

	for (unsigned i = 0; i < t->size; i++) {
		givers += t->hgroup[i] == from && gives(op, i);
		takers += t->hgroup[i] == to;
	}
	return givers * op->nbytes * (blocked(op) ? takers : 1);
}

static void unpack(struct pgas__coll_op *op, unsigned h, const char *in)
{
	const struct pgas_team *t = op->team;
	unsigned mine = t->hgroup[t->rank];
	size_t B = op->nbytes, S = contrib_bytes(op);

	for (unsigned i = 0; i < t->size; i++) {
		if (t->hgroup[i] != h || !gives(op, i))
			continue;
		if (!blocked(op)) {
			memcpy(op->hall + i * S, in, B);
			in += B;
			continue;
		}
		for (unsigned j = 0; j < t->size; j++)
			if (t->hgroup[j] == mine) {
				memcpy(op->hall + i * S + j * B, in, B);
				in += B;
			}
	}
}

/* Member j's result into out, from the contributions (a reduction: once, by j == ~0u). */
static void result_for(struct pgas__coll_op *op, unsigned j, char *out)
{
	unsigned n = op->team->size;
	size_t B = op->nbytes, S = contrib_bytes(op);

	if (!B)
		return;
	switch (op->kind) {
	case PGAS_COLL_BROADCAST:
		memcpy(out, op->hall + op->root * S, B);
		return;
	case PGAS_COLL_SCATTER:
		memcpy(out, op->hall + op->root * S + j * B, B);
		return;
	case PGAS_COLL_GATHER:
	case PGAS_COLL_GATHER_ALL:
		memcpy(out, op->hall, n * B);
		return;
	case PGAS_COLL_EXCHANGE:
		for (unsigned i = 0; i < n; i++)
			memcpy(out + i * B, op->hall + i * S + j * B, B);
		return;
	default:	/* reduce, reduce_all: team-rank order, as fold() */
		memcpy(out, op->hall, B);
		for (unsigned i = 1; i < n; i++)
			pgas__reduce(out, out, op->hall + i * S, B / op->elem, op->type, op->rop);
		return;
	}
}

void pgas__coll_hier_free(struct pgas__coll_op *op)
{
	free(op->hall);
	free(op->hres);
	op->hall = op->hres = NULL;
	/* A call abandoned half-way (a member left): what it held.  A
	 * rendezvous read still in flight may yet write into its temporary:
	 * kept (its record ends with the conduit's failure of the read). */
	free(op->ref_msg);
	op->ref_msg = NULL;
	free(op->rdv_sent);
	op->rdv_sent = NULL;
	if (!op->rdv_busy)
		free(op->rdv_tmp);
	op->rdv_tmp = NULL;
}

/* A message's length must be what this member expects (else: the sizes differ). */
static bool hier_len_ok(struct pgas__coll_op *op, unsigned from, size_t want)
{
	if (op->ref_msg->len == want)
		return true;
	if (!op->rc)
		op->rc = pgas__err(PGAS_ERR_INVAL, op->call,
				   "call %llu on this team: team rank %u sent %llu bytes, team rank "
				   "%u expected %zu (do the members pass the same size? "
				   "PGAS_COLL_DEBUG=1 tells)", (unsigned long long)op->seq, from,
				   (unsigned long long)op->ref_msg->len, op->team->rank, want);
	return false;
}

static void drop_msg(struct pgas__coll_op *op)
{
	free(op->ref_msg);
	op->ref_msg = NULL;
}

int pgas__coll_hier_run(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank, mine = t->hgroup[me], lead = t->hlead[mine];
	size_t S = contrib_bytes(op), R = result_bytes(op);

	CO_BEGIN(op->pc_sub);
	if (me != lead) {
		if (gives(op, me))
			CO_WAIT(op->pc_sub, pgas__coll_ref_send(op, lead, UP, op->src_eff, S));
		if ((op->kind == PGAS_COLL_BROADCAST || op->kind == PGAS_COLL_SCATTER) &&
		    me == op->root && op->nbytes) {	/* keeps its own, as the flat form */
			const char *own = op->src_eff + (op->kind == PGAS_COLL_SCATTER ?
							 me * op->nbytes : 0);

			if (own != op->dst_eff)
				memcpy(op->dst_eff, own, op->nbytes);
		}
		if (gets_down(op, me)) {
			CO_WAIT(op->pc_sub, (op->ref_msg = pgas__coll_ref_take(op, lead, DOWN)));
			if (hier_len_ok(op, lead, R) && R)
				memcpy(op->dst_eff, op->ref_msg->data, R);
			drop_msg(op);
		}
		op->pc_sub = -1;	/* as CO_END */
		return 1;
	}
	/* The leader. */
	{
		size_t big = 0;

		for (unsigned h = 0; h < t->hgroups; h++)
			if (packed_bytes(op, mine, h) > big)
				big = packed_bytes(op, mine, h);
		op->hall = malloc(n * S + 1);
		op->hres = malloc((big > R ? big : R) + 1);
		if (!op->hall || !op->hres)
			pgas__fatal("collectives: no memory for a %zu-byte hierarchical step",
				    n * S + big + R);
	}
	if (gives(op, me) && S)
		memcpy(op->hall + me * S, op->src_eff, S);
	for (op->i = 0; op->i < n; op->i++) {
		if (op->i == me || t->hgroup[op->i] != mine || !gives(op, op->i))
			continue;
		CO_WAIT(op->pc_sub, (op->ref_msg = pgas__coll_ref_take(op, op->i, UP)));
		if (hier_len_ok(op, op->i, S) && S)
			memcpy(op->hall + op->i * S, op->ref_msg->data, S);
		drop_msg(op);
	}
	/* Across: groups after mine first, as the flat form's peers (they do not all start with one). */
	for (op->hg = 1; op->hg < t->hgroups; op->hg++) {
		if (!group_gives(op, mine) || !group_needs(op, (mine + op->hg) % t->hgroups))
			continue;
		(void)pack(op, (mine + op->hg) % t->hgroups, op->hres);
		CO_WAIT(op->pc_sub, pgas__coll_ref_send(op, t->hlead[(mine + op->hg) % t->hgroups],
							ACROSS, op->hres,
							packed_bytes(op, mine, (mine + op->hg) %
									      t->hgroups)));
	}
	for (op->hg = 0; op->hg < t->hgroups; op->hg++) {
		if (op->hg == mine || !group_gives(op, op->hg) || !group_needs(op, mine))
			continue;
		CO_WAIT(op->pc_sub, (op->ref_msg = pgas__coll_ref_take(op, t->hlead[op->hg], ACROSS)));
		if (hier_len_ok(op, t->hlead[op->hg], packed_bytes(op, op->hg, mine)) && !op->rc)
			unpack(op, op->hg, op->ref_msg->data);
		drop_msg(op);
	}
	/* Down.  A reduction's result is the same for all: built once. */
	if (!op->rc && (op->kind == PGAS_COLL_REDUCE || op->kind == PGAS_COLL_REDUCE_ALL) &&
	    group_needs(op, mine))
		result_for(op, ~0u, op->hres);
	for (op->i = 0; op->i < n; op->i++) {
		if (t->hgroup[op->i] != mine || !gets_down(op, op->i))
			continue;
		if (op->kind != PGAS_COLL_REDUCE && op->kind != PGAS_COLL_REDUCE_ALL && !op->rc)
			result_for(op, op->i, op->hres);
		CO_WAIT(op->pc_sub, pgas__coll_ref_send(op, op->i, DOWN, op->hres, R));
	}
	if (!op->rc && (!rooted_in(op) || op->root == me) && R && !op->root_keeps) {
		if (op->kind == PGAS_COLL_REDUCE || op->kind == PGAS_COLL_REDUCE_ALL)
			memcpy(op->dst_eff, op->hres, R);
		else
			result_for(op, me, op->dst_eff);
	}
	pgas__coll_hier_free(op);
	CO_END(op->pc_sub);
}

/* Members to their leader, dissemination among the leaders, leader to members. */
int pgas__coll_hier_barrier(struct pgas__coll_op *op, int *pc, unsigned phase)
{
	struct pgas_team *t = op->team;
	unsigned n = t->size, me = t->rank, G = t->hgroups, mine = t->hgroup[me];
	unsigned lead = t->hlead[mine];

	CO_BEGIN(*pc);
	if (me != lead) {
		CO_WAIT(*pc, pgas__coll_ref_send(op, lead, PGAS__REF_TAG(phase, 1u << 22), NULL, 0));
		CO_WAIT(*pc, (op->ref_msg = pgas__coll_ref_take(op, lead,
								PGAS__REF_TAG(phase, 1u << 23))));
		drop_msg(op);
		*pc = -1;	/* as CO_END */
		return 1;
	}
	for (op->bd = 0; op->bd < n; op->bd++) {
		if (op->bd == me || t->hgroup[op->bd] != mine)
			continue;
		CO_WAIT(*pc, (op->ref_msg = pgas__coll_ref_take(op, op->bd,
								PGAS__REF_TAG(phase, 1u << 22))));
		drop_msg(op);
	}
	for (op->bdist = 1; op->bdist < G; op->bdist *= 2) {
		CO_WAIT(*pc, pgas__coll_ref_send(op, t->hlead[(mine + op->bdist) % G],
						 PGAS__REF_TAG(phase, op->bdist), NULL, 0));
		CO_WAIT(*pc, (op->ref_msg = pgas__coll_ref_take(op, t->hlead[(mine + G - op->bdist) % G],
								PGAS__REF_TAG(phase, op->bdist))));
		drop_msg(op);
	}
	for (op->bd = 0; op->bd < n; op->bd++) {
		if (op->bd == me || t->hgroup[op->bd] != mine)
			continue;
		CO_WAIT(*pc, pgas__coll_ref_send(op, op->bd, PGAS__REF_TAG(phase, 1u << 23), NULL, 0));
	}
	CO_END(*pc);
}
