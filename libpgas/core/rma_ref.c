// SPDX-License-Identifier: MIT
/*
 * rma_ref.c - the remote data path: put, get, the value forms, memset,
 * atomics, signals and a Long's payload to a rank this process does not
 * map (pgas__rank_mapped() false: PGAS_MAP_PEERS=none, or a conduit
 * without mappings), as a reference protocol over active messages, as
 * GASNet's extended-ref implements its RMA over its core AMs.
 *
 * Messages use AM handler index 0, which no user may register or send to
 * (am.c dispatches it here).  A request carries an operation record's
 * index and generation; the target does the operation on its own memory
 * (after checking it is inside its segment or region) and replies with an
 * acknowledgement, the fetched value, or the data of a get.  Puts travel
 * in chunks of at most pgas_am_max_medium() bytes, each acknowledged; a
 * get asks for each chunk.  Requests from one thread to one rank are
 * handled in order (one ring), so a signal or a Long sent after the data
 * finds it in place.
 *
 * A record ('op') counts its chunks in flight: blocking calls wait for it
 * (polling, pgas__wait_step), an _nb call's handle names it, an _nbi call
 * adds to the endpoint's nbi_puts/gets_pending, which the inline syncs
 * already test, and the last reply takes it off again.  Records live in
 * slabs that are never freed: a handle or a late reply that names a
 * recycled record (another generation) is recognised, never followed.
 *
 * Where the conduit has data operations (ops->rma: the ofi conduit's
 * fi_write/fi_read) and reaches the target's [remote, +n) with them, a
 * put or get (and a batch's runs, and put_with_signal's data) goes over
 * the fabric instead: each fabric operation counts in the record as a
 * chunk would, and its completion (fabric_done, c->rma_done, from the
 * conduit's progress; a write's once the data is visible at the target)
 * takes it off.  Value forms, memset, signals and a Long's payload stay
 * on AM (docs/ofi.md, "The RMA path").
 *
 * Atomics: a domain is a fabric one (atomic.c) where the conduit's amo
 * does every operation it declares; each of its operations, on any rank,
 * is then one ops->amo in a record of its own, completed by
 * c->amo_done with the old value (docs/ofi.md, "Atomics").  The other
 * domains' operations on unmapped ranks are REF_AMO requests.
 */
#include <pthread.h>
#include <stdlib.h>
#include "internal.h"
#include "layer.h"

/* Request and reply codes (args[0] & 0xff). */
enum {
	REF_PUT = 1,	/* payload to addr; ack */
	REF_GET,	/* reply REF_DATA with n bytes at addr */
	REF_PUTVAL,	/* an atomic store of 1-8 bytes; ack */
	REF_GETVAL,	/* an atomic load; ack with the value */
	REF_MEMSET,	/* n bytes of one value at addr; ack */
	REF_AMO,	/* an atomic-domain operation; ack with the old value */
	REF_SIGNAL,	/* store or add to a signal word; ack */
	REF_NOTIFY,	/* a completer notification in the target's ring; ack */
	REF_LONG,	/* a Long's last piece and the Long itself (no reply) */
	REF_ACK,	/* reply: rc, value */
	REF_DATA,	/* reply: a get's chunk, to local */
};
#define REF_NOACK 0x100u	/* no reply (a Long's payload, the reply channel's) */

/* Where an operation's completion goes. */
enum { OP_WAIT, OP_NB, OP_NBI_PUT, OP_NBI_GET };

struct ref_op {
	uint32_t left;		/* replies outstanding, + 1 while issuing (atomic) */
	int rc;			/* first error a target replied (atomic) */
	uint32_t gen;		/* bumped when it is given back */
	uint32_t index;
	unsigned char mode;	/* OP_* */
	bool fabric;		/* some of it went by the conduit's rma */
	const char *call;	/* for the errors of its issue */
	struct pgas__state *ep;	/* _nb, _nbi: whose counter */
	/* _nb, _nbi: the ep counter it holds until complete (nbi_puts_ or
	 * nbi_gets_pending), so that quiet, fence and a release atomic see
	 * explicit-handle operations too (pgas.h); NULL for blocking ones. */
	uint64_t *pending;
	uint64_t value;		/* a value fetched */
	struct ref_op *next_free;
};

#define SLAB_OPS 1024u
#define MAX_SLABS 4096u
static struct ref_op *slabs[MAX_SLABS];
static unsigned nslabs;
static struct ref_op *free_ops;
static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static int nbi_rc;		/* an _nbi operation's error, for the next sync */

#define HANDLE_MAGIC 0xa5ull
#define HANDLE_OF(op) (HANDLE_MAGIC << 56 | (uint64_t)((op)->gen & 0xffffffu) << 32 | (op)->index)

static struct ref_op *op_new(int mode, struct pgas__state *ep, uint64_t *pending,
			     const char *call)
{
	struct ref_op *op;

	pthread_mutex_lock(&ops_lock);
	if (!free_ops) {
		struct ref_op *s = nslabs < MAX_SLABS ? calloc(SLAB_OPS, sizeof(*s)) : NULL;

		if (!s) {
			pthread_mutex_unlock(&ops_lock);
			return NULL;
		}
		for (unsigned i = 0; i < SLAB_OPS; i++) {
			s[i].index = nslabs * SLAB_OPS + i;
			s[i].next_free = i + 1 < SLAB_OPS ? &s[i + 1] : NULL;
		}
		__atomic_store_n(&slabs[nslabs], s, __ATOMIC_RELEASE);
		nslabs++;
		free_ops = s;
	}
	op = free_ops;
	free_ops = op->next_free;
	pthread_mutex_unlock(&ops_lock);
	op->mode = (unsigned char)mode;
	op->fabric = false;
	op->call = call;
	op->ep = ep;
	op->pending = pending;
	op->value = 0;
	__atomic_store_n(&op->rc, 0, __ATOMIC_RELAXED);
	/* Release: a reply handled by another thread reads what is above
	 * after its acquire of left (reply), not through the peer's ring. */
	__atomic_store_n(&op->left, 1, __ATOMIC_RELEASE);
	return op;
}

static void op_free(struct ref_op *op)
{
	__atomic_store_n(&op->gen, op->gen + 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ops_lock);
	op->next_free = free_ops;
	free_ops = op;
	pthread_mutex_unlock(&ops_lock);
}

/* The live record of index/gen, or NULL. */
static struct ref_op *op_find(uint32_t index, uint32_t gen, uint32_t genmask)
{
	struct ref_op *s;

	if (index / SLAB_OPS >= MAX_SLABS)
		return NULL;
	s = __atomic_load_n(&slabs[index / SLAB_OPS], __ATOMIC_ACQUIRE);
	if (!s)
		return NULL;
	s += index % SLAB_OPS;
	return (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) & genmask) == gen ? s : NULL;
}

/* One reference fewer; the last one completes an _nbi operation. */
static void op_put_ref(struct ref_op *op)
{
	/* Read before the decrement: once it is the last, a waiter may give
	 * op back and another thread take it (mode is fixed from op_new on). */
	unsigned char mode = op->mode;
	uint64_t *pending = op->pending;
	int rc;

	if (__atomic_sub_fetch(&op->left, 1, __ATOMIC_ACQ_REL))
		return;
	if (mode != OP_NBI_PUT && mode != OP_NBI_GET) {
		if (pending)	/* _nb: complete; its sync gives it back */
			__atomic_fetch_sub(pending, 1, __ATOMIC_RELEASE);
		return;
	}
	rc = __atomic_load_n(&op->rc, __ATOMIC_RELAXED);
	if (rc)
		__atomic_store_n(&nbi_rc, rc, __ATOMIC_RELAXED);
	__atomic_fetch_sub(pending, 1, __ATOMIC_RELEASE);
	op_free(op);
}

/* ---- what every rank knows of the others' memory -------------------------- */

struct bounds {
	uintptr_t seg, seg_size, reg, reg_size;
};
static struct bounds *bounds;

static void fabric_done(void *ctx, int rc);
static void fabric_amo_done(void *ctx, int rc, uint64_t old);

int pgas__ref_setup(void)
{
	struct pgas_conduit *c = &pgas__job.conduit;
	size_t area = pgas__layers_area_bytes(c->nranks);

	c->rma_done = fabric_done;
	c->amo_done = fabric_amo_done;
	bounds = calloc(c->nranks, sizeof(*bounds));
	if (!bounds)
		return PGAS_ERR_NOMEM;
	for (unsigned r = 0; r < c->nranks; r++) {
		bounds[r].seg = (uintptr_t)c->eps[r].seg_remote;
		bounds[r].seg_size = c->eps[r].seg_size - area;
	}
	return PGAS_OK;
}

void pgas__ref_region(unsigned rank, uint64_t remote, size_t size)
{
	bounds[rank].reg = (uintptr_t)remote;
	bounds[rank].reg_size = size;
}

void pgas__ref_bounds(unsigned rank, char **seg, size_t *seg_size, char **reg, size_t *reg_size)
{
	*seg = (char *)bounds[rank].seg;
	*seg_size = bounds[rank].seg_size;
	*reg = (char *)bounds[rank].reg;
	*reg_size = bounds[rank].reg_size;
}

static bool inside(uintptr_t base, size_t size, const void *addr, size_t n)
{
	uintptr_t off = (uintptr_t)addr - base;

	return size && off <= size && n <= size - off;
}

bool pgas__ref_in_bounds(unsigned rank, const void *addr, size_t n)
{
	const struct bounds *b = &bounds[rank];

	return inside(b->seg, b->seg_size, addr, n) || inside(b->reg, b->reg_size, addr, n);
}

/* Is this a call for the remote path: rank valid and not mapped, [addr, +n) inside? */
bool pgas__ref_takes(unsigned rank, const void *addr, size_t n)
{
	return pgas__job.attached && rank < pgas__g.nranks && !pgas__rank_mapped(rank) &&
	       pgas__ref_in_bounds(rank, addr, n);
}

/* ---- the target's side and the replies ----------------------------------- */

static uint64_t arg64(const uint32_t *a, unsigned i)
{
	return a[i] | (uint64_t)a[i + 1] << 32;
}

static void ack(pgas_token_t token, const uint32_t *req, int rc, uint64_t value)
{
	uint32_t a[6] = { REF_ACK, req[1], req[2], (uint32_t)rc, (uint32_t)value,
			  (uint32_t)(value >> 32) };

	if (!(req[0] & REF_NOACK) && token->chan == PGAS_CHAN_REQUEST &&
	    pgas__am_ref_send(token->ep, PGAS_CHAN_REPLY, token->src, a, 6, NULL, 0, false) == PGAS_OK)
		token->replied = true;
}

static uint64_t load_val(const void *p, size_t n)
{
	switch (n) {
	case 1: return atomic_load_explicit((_Atomic uint8_t *)p, memory_order_acquire);
	case 2: return atomic_load_explicit((_Atomic uint16_t *)p, memory_order_acquire);
	case 4: return atomic_load_explicit((_Atomic uint32_t *)p, memory_order_acquire);
	default: return atomic_load_explicit((_Atomic uint64_t *)p, memory_order_acquire);
	}
}

static void store_val(void *p, uint64_t v, size_t n)
{
	switch (n) {
	case 1: atomic_store_explicit((_Atomic uint8_t *)p, (uint8_t)v, memory_order_release); break;
	case 2: atomic_store_explicit((_Atomic uint16_t *)p, (uint16_t)v, memory_order_release); break;
	case 4: atomic_store_explicit((_Atomic uint32_t *)p, (uint32_t)v, memory_order_release); break;
	default: atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_release); break;
	}
}

static void reply(pgas_token_t token, const uint32_t *a, unsigned nargs, const void *buf)
{
	struct ref_op *op = op_find(a[1], a[2], ~0u);

	(void)token;
	if (nargs < 6 || !op)
		return;		/* abandoned (its waiter gave up: the target left) */
	(void)__atomic_load_n(&op->left, __ATOMIC_ACQUIRE);	/* op_new's fields */
	if ((a[0] & 0xff) == REF_DATA) {
		pgas__copy((void *)(uintptr_t)arg64(a, 6), buf, a[3]);
	} else {
		if (a[3])
			__atomic_store_n(&op->rc, (int)a[3], __ATOMIC_RELAXED);
		op->value = arg64(a, 4);
	}
	op_put_ref(op);
}

static void long_arrived(pgas_token_t token, const unsigned char *buf, size_t nbytes);

void pgas__ref_handler(pgas_token_t token, void *buf, size_t nbytes, const uint32_t *a,
		       unsigned nargs)
{
	unsigned code = nargs ? a[0] & 0xff : 0;
	void *addr;
	char *p;
	size_t n;
	uint64_t v = 0;
	int rc = PGAS_OK;

	if (code == REF_ACK || code == REF_DATA) {
		reply(token, a, nargs, buf);
		return;
	}
	if (code == REF_LONG) {
		long_arrived(token, buf, nbytes);
		return;
	}
	if (nargs < 6)
		pgas__fatal("bad remote-path message (code %u, %u args)", code, nargs);
	addr = (void *)(uintptr_t)arg64(a, 3);
	n = code == REF_PUT ? nbytes : a[5];
	switch (code) {
	case REF_PUTVAL:
	case REF_GETVAL:
	case REF_SIGNAL:
	case REF_AMO:
		n = code == REF_SIGNAL ? 8 : code == REF_AMO ? ((a[5] & 0xff) <= PGAS_DT_U32 ||
						(a[5] & 0xff) == PGAS_DT_FLT ? 4 : 8) : n;
		break;
	case REF_NOTIFY:
		n = 0;
		break;
	default:
		break;
	}
	if (code != REF_NOTIFY && !pgas__map(pgas__g.rank, addr, n, &p)) {
		ack(token, a, PGAS_ERR_BOUNDS, 0);
		return;
	}
	if ((code == REF_PUTVAL || code == REF_GETVAL || code == REF_SIGNAL || code == REF_AMO) &&
	    (!n || n > 8 || (n & (n - 1)) || ((uintptr_t)p & (n - 1)))) {
		ack(token, a, PGAS_ERR_INVAL, 0);
		return;
	}
	switch (code) {
	case REF_PUT:
		pgas__copy(p, buf, n);
		PGAS__FENCE(memory_order_release);
		break;
	case REF_GET: {
		uint32_t r[8] = { REF_DATA, a[1], a[2], (uint32_t)n, 0, 0, a[6], a[7] };

		PGAS__FENCE(memory_order_acquire);
		if (pgas__am_ref_send(token->ep, PGAS_CHAN_REPLY, token->src, r, 8, p, n, false) ==
		    PGAS_OK)
			token->replied = true;
		return;
	}
	case REF_PUTVAL:
		store_val(p, arg64(a, 6), n);
		break;
	case REF_GETVAL:
		v = load_val(p, n);
		break;
	case REF_MEMSET:
		memset(p, (int)a[6], n);
		PGAS__FENCE(memory_order_release);
		break;
	case REF_AMO:
		v = pgas__ad_exec(a[5] & 0xff, p, a[6], arg64(a, 7), arg64(a, 9), a[5] >> 8);
		break;
	case REF_SIGNAL:
		if (a[5] == PGAS_SIGNAL_SET)
			atomic_store_explicit((_Atomic uint64_t *)p, arg64(a, 6),
					      memory_order_release);
		else
			atomic_fetch_add_explicit((_Atomic uint64_t *)p, arg64(a, 6),
						  memory_order_release);
		break;
	case REF_NOTIFY: {
		unsigned src = pgas__peer_of(token->ep, PGAS_CHAN_REPLY, token->src)->owner;

		pgas__notify_local(src, a[6], a[7]);
		break;
	}
	default:
		pgas__fatal("unknown remote-path request %u", code);
	}
	ack(token, a, rc, v);
}

/* ---- the initiator's side ------------------------------------------------ */

/* Refuses where the reply could not be waited for; else 0.  rank: the
 * target, or ~0u for a sync. */
static int can_wait(const char *call, unsigned rank)
{
	const char *where = pgas__self.handler_depth ? "from a handler" :
			    pgas__self.hsl_held ? "while holding a handler-safe lock" : NULL;

	if (!where)
		return PGAS_OK;
	if (rank == ~0u)
		return pgas__err(PGAS_ERR_STATE, call,
				 "called %s with operations to ranks not mapped here in flight (the remote path needs their replies)",
				 where);
	return pgas__err(PGAS_ERR_STATE, call,
			 "called %s: rank %u is not mapped here and the remote path waits for its reply",
			 where, rank);
}

/* Sends one request of op (args[1..2] filled here): a reply owed. */
static int send_req(struct ref_op *op, unsigned rank, uint32_t *a, unsigned nargs,
		    const void *buf, size_t n)
{
	int rc;

	a[1] = op->index;
	a[2] = op->gen;
	__atomic_fetch_add(&op->left, 1, __ATOMIC_RELAXED);
	rc = pgas__am_ref_send(&pgas__g, PGAS_CHAN_REQUEST, rank, a, nargs, buf, n, false);
	if (rc)
		__atomic_fetch_sub(&op->left, 1, __ATOMIC_RELAXED);
	return rc;
}

static size_t chunk(void)
{
	return pgas__cfg.max_medium;
}

/*
 * A fabric operation's completion (ctx: its record's index and
 * generation, so that one abandoned meanwhile is not followed); old: an
 * atomic's fetched value, or NULL.
 */
static void fabric_end(void *ctx, int rc, const uint64_t *old)
{
	uint64_t id = (uintptr_t)ctx;
	struct ref_op *op = op_find((uint32_t)id, (uint32_t)(id >> 32), ~0u);

	if (!op)
		return;		/* abandoned: its target left */
	(void)__atomic_load_n(&op->left, __ATOMIC_ACQUIRE);	/* op_new's fields */
	if (rc)
		__atomic_store_n(&op->rc, rc, __ATOMIC_RELAXED);
	if (old)
		op->value = *old;
	op_put_ref(op);
}

static void fabric_done(void *ctx, int rc)
{
	fabric_end(ctx, rc, NULL);
}

static void fabric_amo_done(void *ctx, int rc, uint64_t old)
{
	fabric_end(ctx, rc, &old);
}

static void *op_ctx(const struct ref_op *op)
{
	return (void *)(uintptr_t)((uint64_t)op->gen << 32 | op->index);
}

/* PGAS_ERR_GONE (said) when rank has left the job or died, else PGAS_OK. */
static int target_left(const char *call, unsigned rank)
{
	int rc;

	if (pgas__job.rank_gone && (rc = pgas__rma_gone(call, rank)) != PGAS_OK)
		return rc;
	if (PGAS__UNLIKELY(pgas__leavers()) && pgas__rank_leaving(rank))
		return pgas__err(PGAS_ERR_GONE, call,
				 "rank %u has left the job: the operation did not complete", rank);
	return PGAS_OK;
}

/*
 * The fabric's queue was full: a wait step (its progress reads the
 * completions that make room, and runs handlers a peer may wait for)
 * before the caller posts again; PGAS_ERR_GONE (said) once in a while if
 * rank left, since a full queue towards a rank that died may never drain.
 */
static int queue_full(struct ref_op *op, unsigned rank, unsigned *full, struct pgas__waiter *w)
{
	int rc;

	if (!(++*full & 255) && (rc = target_left(op->call, rank)) != PGAS_OK)
		return rc;
	pgas__wait_step_for(w, op->ep);
	return PGAS_OK;
}

/* [remote, +n) by the conduit's rma: one reference per fabric operation. */
static int issue_fabric(struct ref_op *op, int get, unsigned rank, uintptr_t remote,
			char *local, size_t n)
{
	struct pgas_conduit *c = &pgas__job.conduit;
	struct pgas__waiter w = PGAS__WAITER_INIT;
	void *ctx = op_ctx(op);
	size_t off = 0;
	unsigned full = 0;
	char msg[160];
	int rc;

	op->fabric = true;
	while (off < n) {
		ssize_t k;

		__atomic_fetch_add(&op->left, 1, __ATOMIC_RELAXED);
		k = c->ops->rma(c, op->ep ? op->ep->priv->fep : NULL, get, rank, remote + off, local + off, n - off, ctx, msg,
				sizeof(msg));
		if (k > 0) {
			off += (size_t)k;
			continue;
		}
		__atomic_fetch_sub(&op->left, 1, __ATOMIC_RELAXED);
		if (k < 0)
			return pgas__err((int)k, op->call, "%s to rank %u [%#llx, +%zu): %s",
					 get ? "a fabric read" : "a fabric write", rank,
					 (unsigned long long)(remote + off), n - off, msg);
		if ((rc = queue_full(op, rank, &full, &w)))
			return rc;
	}
	return PGAS_OK;
}

/* Issues put or get chunks of [remote, +n) into op. */
static int issue_rma(struct ref_op *op, int get, unsigned rank, void *remote, void *local,
		     size_t n)
{
	struct pgas_conduit *c = &pgas__job.conduit;
	size_t off = 0;

	if (c->ops->rma && c->ops->rma_reach(c, rank, (uintptr_t)remote, n))
		return issue_fabric(op, get, rank, (uintptr_t)remote, local, n);

	do {
		size_t k = n - off < chunk() ? n - off : chunk();
		uintptr_t r = (uintptr_t)remote + off, l = (uintptr_t)local + off;
		uint32_t a[8] = { get ? REF_GET : REF_PUT, 0, 0, (uint32_t)r, (uint32_t)(r >> 32),
				  (uint32_t)k, (uint32_t)l, (uint32_t)(l >> 32) };
		int rc = send_req(op, rank, a, 8, get ? NULL : (const void *)l, get ? 0 : k);

		if (rc)
			return rc;
		off += k;
	} while (off < n);
	return PGAS_OK;
}

/* Waits until op has at most 'until' references: PGAS_OK, or PGAS_ERR_GONE
 * if rank left meanwhile (the caller abandons op). */
static int op_wait_left(struct ref_op *op, const char *call, unsigned rank, uint32_t until)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;
	int rc;

	for (unsigned i = 1; __atomic_load_n(&op->left, __ATOMIC_ACQUIRE) > until; i++) {
		/* A target that left will not reply: abandon op (a late
		 * reply finds another generation). */
		if (!(i & 255) && (rc = target_left(call, rank)) != PGAS_OK)
			return rc;
		pgas__wait_step_for(&w, op->ep);
	}
	return PGAS_OK;
}

/*
 * Waits for op's replies, then gives it back: PGAS_OK, the target's error,
 * or PGAS_ERR_GONE if rank left meanwhile (op is then abandoned: a late
 * reply finds another generation).
 */
static int op_wait(struct ref_op *op, const char *call, unsigned rank, uint64_t *value)
{
	int rc;

	op_put_ref(op);
	rc = op_wait_left(op, call, rank, 0);
	if (rc) {
		op_free(op);
		return rc;
	}
	rc = __atomic_load_n(&op->rc, __ATOMIC_RELAXED);
	if (value)
		*value = op->value;
	op_free(op);
	if (rc == PGAS_ERR_GONE)	/* the conduit lost it (docs/ofi.md, "Failure") */
		return pgas__err(rc, call, "rank %u is gone: the operation did not complete", rank);
	if (rc)
		return pgas__err(rc, call, "rank %u refused the operation (error %d)", rank, rc);
	return PGAS_OK;
}

/*
 * Before a signal or notification that follows a put's data: the data's
 * fabric writes completed (delivered), since an AM on the target's ring
 * is not ordered behind fi_write (tcp;ofi_rxm).  PGAS_OK, or the error
 * that stops the signal.
 */
static int data_delivered(struct ref_op *op, const char *call, unsigned rank)
{
	int rc;

	if (!op->fabric)
		return PGAS_OK;	/* AM: the signal follows on the same ring */
	rc = op_wait_left(op, call, rank, 1);
	if (!rc && (rc = __atomic_load_n(&op->rc, __ATOMIC_RELAXED)))
		rc = pgas__err(rc, call, "rank %u refused the data (error %d): no signal sent",
			       rank, rc);
	return rc;
}

/* put_with_signal's and put_signal's body: the data, delivered, then the request a. */
static int data_then_req(struct ref_op *op, const char *call, unsigned rank, void *dst,
			 const void *src, size_t n, uint32_t a[8])
{
	int rc = n ? issue_rma(op, 0, rank, dst, (void *)src, n) : PGAS_OK;

	if (!rc)
		rc = data_delivered(op, call, rank);
	return rc ? rc : send_req(op, rank, a, 8, NULL, 0);
}

/* The end of an operation issued into op, by its form. */
static int op_finish(struct ref_op *op, const char *call, unsigned rank, int issued,
		     pgas_handle_t *handle)
{
	if (issued) {
		/* Nothing more will be sent: wait for what was, holding the
		 * issue's reference (so no reply ends op, whatever its mode),
		 * then give it back here (also when rank left: abandoned). */
		(void)op_wait_left(op, call, rank, 1);
		if (op->pending)
			__atomic_fetch_sub(op->pending, 1, __ATOMIC_RELEASE);
		op_free(op);
		return issued;
	}
	switch (op->mode) {
	case OP_NB:
		*handle = HANDLE_OF(op);
		op_put_ref(op);
		return PGAS_OK;
	case OP_NBI_PUT:
	case OP_NBI_GET:
		op_put_ref(op);	/* the last reply gives it back */
		return PGAS_OK;
	default:
		return op_wait(op, call, rank, NULL);
	}
}

/* A record for an operation to rank (get: it reads, so an _nb one counts
 * with ep's gets), or NULL with *rc: can_wait's refusal or no memory. */
static struct ref_op *op_start(const char *call, unsigned rank, int mode, bool get,
			       struct pgas__state *ep, int *rc)
{
	uint64_t *pending = NULL;
	struct ref_op *op;

	if ((*rc = can_wait(call, rank)))
		return NULL;
	/* Everything a reply reads is set in op_new, before its release of
	 * left: the request reaches the reply's thread through another
	 * process's ring, which gives the race detector no order. */
	if (mode != OP_WAIT)
		pending = mode == OP_NBI_GET || (mode == OP_NB && get) ? &ep->nbi_gets_pending
								       : &ep->nbi_puts_pending;
	op = op_new(mode, ep, pending, call);
	if (!op) {
		*rc = pgas__err(PGAS_ERR_NOMEM, call, "no memory for an operation record");
		return NULL;
	}
	if (pending)
		__atomic_fetch_add(pending, 1, __ATOMIC_RELAXED);
	*rc = PGAS_OK;
	return op;
}

int pgas__ref_rma(struct pgas__state *ep, const char *call, int get, int form,
		  pgas_handle_t *handle, unsigned rank, void *remote, void *local, size_t n)
{
	int mode = form == PGAS__REF_NB ? OP_NB : form == PGAS__REF_NBI ?
		   (get ? OP_NBI_GET : OP_NBI_PUT) : OP_WAIT;
	struct ref_op *op;
	int rc;

	if (!n) {
		if (!(rc = can_wait(call, rank)) && handle)
			*handle = PGAS_HANDLE_DONE;
		return rc;
	}
	op = op_start(call, rank, mode, get, ep, &rc);
	if (!op)
		return rc;
	rc = issue_rma(op, get, rank, remote, local, n);
	return op_finish(op, call, rank, rc, handle);
}

/* A batch (vis.c): runs issued into one record, finished once. */
struct pgas__ref_batch *pgas__ref_batch_start(struct pgas__state *ep, const char *call, int get,
					      int form, unsigned rank, int *rc)
{
	int mode = form == PGAS__REF_NB ? OP_NB : form == PGAS__REF_NBI ?
		   (get ? OP_NBI_GET : OP_NBI_PUT) : OP_WAIT;

	return (struct pgas__ref_batch *)op_start(call, rank, mode, get, ep, rc);
}

int pgas__ref_batch_add(struct pgas__ref_batch *b, int get, unsigned rank, void *remote,
			void *local, size_t n)
{
	return n ? issue_rma((struct ref_op *)b, get, rank, remote, local, n) : PGAS_OK;
}

int pgas__ref_batch_end(struct pgas__ref_batch *b, const char *call, unsigned rank, int issued,
			pgas_handle_t *handle)
{
	return op_finish((struct ref_op *)b, call, rank, issued, handle);
}

/* One request whose reply ends a blocking call: its value in *value. */
static int one(const char *call, unsigned rank, uint32_t *a, unsigned nargs, const void *buf,
	       size_t n, uint64_t *value)
{
	struct ref_op *op;
	int rc;

	op = op_start(call, rank, OP_WAIT, false, &pgas__g, &rc);
	if (!op)
		return rc;
	rc = send_req(op, rank, a, nargs, buf, n);
	if (rc) {
		op_put_ref(op);
		op_free(op);
		return rc;
	}
	return op_wait(op, call, rank, value);
}

int pgas__ref_val(const char *call, int get, unsigned rank, void *remote, uint64_t value,
		  size_t n, uint64_t *out)
{
	uintptr_t r = (uintptr_t)remote;
	uint32_t a[8] = { get ? REF_GETVAL : REF_PUTVAL, 0, 0, (uint32_t)r, (uint32_t)(r >> 32),
			  (uint32_t)n, (uint32_t)value, (uint32_t)(value >> 32) };

	return one(call, rank, a, 8, NULL, 0, out);
}

int pgas__ref_memset(const char *call, unsigned rank, void *dst, int byte, size_t n)
{
	size_t off = 0;
	int rc = PGAS_OK;

	/* One request per chunk: a target's handler should not run for long. */
	while (!rc && off < n) {
		size_t k = n - off < chunk() ? n - off : chunk();
		uintptr_t r = (uintptr_t)dst + off;
		uint32_t a[7] = { REF_MEMSET, 0, 0, (uint32_t)r, (uint32_t)(r >> 32), (uint32_t)k,
				  (uint32_t)(unsigned char)byte };

		rc = one(call, rank, a, 7, NULL, 0, NULL);
		off += k;
	}
	return rc;
}

int pgas__ref_amo(const char *call, unsigned rank, void *addr, unsigned dt, unsigned op,
		  unsigned flags, uint64_t x, uint64_t y, uint64_t *old)
{
	uintptr_t r = (uintptr_t)addr;
	uint32_t a[11] = { REF_AMO, 0, 0, (uint32_t)r, (uint32_t)(r >> 32), dt | flags << 8, op,
			   (uint32_t)x, (uint32_t)(x >> 32), (uint32_t)y, (uint32_t)(y >> 32) };

	return one(call, rank, a, 11, NULL, 0, old);
}

/* Whether a domain of type dt for ops is a fabric one (atomic.c). */
bool pgas__ref_amo_fabric(unsigned dt, unsigned ops)
{
	const struct pgas_conduit *c = &pgas__job.conduit;

	return c->ops && c->ops->amo && dt < 8 && (c->amo_ops[dt] & ops) == ops;
}

/* One operation of a fabric domain, on any rank (the own too): ops->amo. */
int pgas__ref_amo_by_fabric(const char *call, unsigned rank, void *addr, unsigned dt,
			    unsigned aop, uint64_t x, uint64_t y, uint64_t *old)
{
	struct pgas_conduit *c = &pgas__job.conduit;
	struct pgas__waiter w = PGAS__WAITER_INIT;
	struct ref_op *op;
	unsigned full = 0;
	char msg[160];
	int rc, k;

	op = op_start(call, rank, OP_WAIT, false, &pgas__g, &rc);
	if (!op)
		return rc;
	op->fabric = true;
	for (;;) {
		__atomic_fetch_add(&op->left, 1, __ATOMIC_RELAXED);
		k = c->ops->amo(c, rank, (uintptr_t)addr, dt, aop, x, y, op_ctx(op), msg,
				sizeof(msg));
		if (k > 0)
			break;
		__atomic_fetch_sub(&op->left, 1, __ATOMIC_RELAXED);
		if (k < 0)
			rc = pgas__err(k, call, "a fabric atomic on rank %u at %p: %s", rank, addr,
				       msg);
		else
			rc = queue_full(op, rank, &full, &w);
		if (rc) {
			op_put_ref(op);
			op_free(op);
			return rc;
		}
	}
	return op_wait(op, call, rank, old);
}

/* The data, then the signal on the same ring: ordered at the target. */
int pgas__ref_put_signal(const char *call, pgas_handle_t *handle, unsigned rank, void *dst,
			 const void *src, size_t n, uint64_t *sig_addr, uint64_t signal,
			 int sig_op)
{
	uintptr_t r = (uintptr_t)sig_addr;
	uint32_t a[8] = { REF_SIGNAL, 0, 0, (uint32_t)r, (uint32_t)(r >> 32), (uint32_t)sig_op,
			  (uint32_t)signal, (uint32_t)(signal >> 32) };
	struct ref_op *op;
	int rc;

	op = op_start(call, rank, handle ? OP_NB : OP_WAIT, false, &pgas__g, &rc);
	if (!op)
		return rc;
	rc = data_then_req(op, call, rank, dst, src, n, a);
	return op_finish(op, call, rank, rc, handle);
}

/* pgas_put_signal: the data, then a completer notification. */
int pgas__ref_notify(const char *call, unsigned rank, void *dst, const void *src, size_t n,
		     uint32_t tag)
{
	uint32_t a[8] = { REF_NOTIFY, 0, 0, 0, 0, 0, (uint32_t)n, tag };
	struct ref_op *op;
	int rc;

	op = op_start(call, rank, OP_WAIT, false, &pgas__g, &rc);
	if (!op)
		return rc;
	rc = data_then_req(op, call, rank, dst, src, n, a);
	return op_finish(op, call, rank, rc, NULL);
}

/*
 * A Long to (an endpoint of) a rank not mapped here: its payload in
 * messages on the ring the Long goes on, the last of them carrying the
 * Long itself (its handler, args, destination), whose handler the target
 * runs once that piece is in place.  With PGAS_AM_IMMEDIATE only that
 * last message is immediate: a payload of more than one chunk may wait
 * for room for the chunks before it.
 */
struct long_hdr {
	uint32_t handler, nargs;
	uint64_t dst, n, off;	/* the whole payload, and where this piece goes */
};

int pgas__ref_long(struct pgas__state *ep, const char *call, unsigned chan, unsigned eid,
		   unsigned rank, unsigned handler, const void *buf, size_t n, void *dst,
		   const uint32_t *args, unsigned nargs, bool imm)
{
	size_t head = PGAS__ALIGN_UP(sizeof(struct long_hdr) + (size_t)nargs * 4, 8);
	size_t room = chunk() - head, last = n > room ? n - room : 0, off = 0;
	uint32_t a[6] = { REF_LONG | REF_NOACK, 0, 0, 0, 0, 0 };
	struct long_hdr h = { handler, nargs, (uintptr_t)dst, n, last };
	unsigned char small[512], *msg;
	int rc;

	if (!pgas__ref_in_bounds(rank, dst, n))
		return pgas__rma_fail(call, rank, dst, n);
	while (off < last) {
		size_t k = last - off < chunk() ? last - off : chunk();
		uintptr_t r = (uintptr_t)dst + off;
		uint32_t c[6] = { REF_PUT | REF_NOACK, 0, 0, (uint32_t)r, (uint32_t)(r >> 32),
				  (uint32_t)k };

		rc = pgas__am_ref_send(ep, chan, eid, c, 6, (const char *)buf + off, k, false);
		if (rc)
			return rc;
		off += k;
	}
	msg = head + (n - last) <= sizeof(small) ? small : malloc(head + (n - last));
	if (!msg)
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for a message of %zu bytes",
				 head + (n - last));
	memset(msg, 0, head);
	memcpy(msg, &h, sizeof(h));
	pgas__copy(msg + sizeof(h), args, (size_t)nargs * 4);
	pgas__copy(msg + head, (const char *)buf + last, n - last);
	rc = pgas__am_ref_send(ep, chan, eid, a, 6, msg, head + (n - last), imm);
	if (msg != small)
		free(msg);
	return rc;
}

/* The target's side of it: the last piece, then the user's handler. */
static void long_arrived(pgas_token_t token, const unsigned char *buf, size_t nbytes)
{
	struct long_hdr h;
	uint32_t args[PGAS_AM_MAX_ARGS];
	size_t head;
	pgas_handler_fn fn;
	char *p;

	if (nbytes < sizeof(h))
		pgas__fatal("bad remote-path Long (%zu bytes)", nbytes);
	memcpy(&h, buf, sizeof(h));
	head = PGAS__ALIGN_UP(sizeof(h) + (size_t)h.nargs * 4, 8);
	fn = h.handler && h.handler < PGAS_MAX_HANDLERS ? token->ep->handlers[h.handler] : NULL;
	if (h.nargs > PGAS_AM_MAX_ARGS || head > nbytes || h.off + (nbytes - head) != h.n || !fn ||
	    !pgas__map(pgas__g.rank, (void *)(uintptr_t)h.dst, h.n, &p))
		pgas__fatal("bad remote-path Long: handler %u, %u args, [%#llx, +%llu)", h.handler,
			    h.nargs, (unsigned long long)h.dst, (unsigned long long)h.n);
	memcpy(args, buf + sizeof(h), (size_t)h.nargs * 4);
	pgas__copy(p + h.off, buf + head, nbytes - head);
	PGAS__EV(token->chan == PGAS_CHAN_REPLY ? PGAS__EV_RECV_LONG_REP : PGAS__EV_RECV_LONG_REQ,
		 token->src, h.n);
	fn(token, h.n ? p : (void *)(uintptr_t)h.dst, h.n, args, h.nargs);
}

/* ---- explicit handles ---------------------------------------------------- */

/* 1: done (given back), 0: pending, < 0: not a handle of this job. */
static int handle_test(pgas_handle_t h, int *rc)
{
	struct ref_op *op;

	*rc = PGAS_OK;
	if (h == PGAS_HANDLE_DONE)
		return 1;
	if (h >> 56 != HANDLE_MAGIC)
		return -1;
	op = op_find((uint32_t)h, (uint32_t)(h >> 32) & 0xffffffu, 0xffffffu);
	if (!op || op->mode != OP_NB)
		return -1;
	if (__atomic_load_n(&op->left, __ATOMIC_ACQUIRE))
		return 0;
	*rc = __atomic_load_n(&op->rc, __ATOMIC_RELAXED);
	op_free(op);
	return 1;
}

static int bad_handle(const char *call, pgas_handle_t h)
{
	return pgas__err(PGAS_ERR_INVAL, call, "%#llx is not a handle of this job (or was synced)",
			 (unsigned long long)h);
}

static int handle_rc(const char *call, int rc)
{
	return rc ? pgas__err(rc, call, "a target refused the operation (error %d)", rc)
		  : PGAS_OK;
}

int pgas__sync_nb(pgas_handle_t h, const char *call, int block)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;
	struct ref_op *op = h >> 56 == HANDLE_MAGIC ?
			    op_find((uint32_t)h, (uint32_t)(h >> 32) & 0xffffffu, 0xffffffu) : NULL;
	struct pgas__state *ep = op ? op->ep : NULL;
	int rc, done;

	for (;;) {
		done = handle_test(h, &rc);
		if (done < 0)
			return bad_handle(call, h);
		if (done)
			break;
		if (!block) {
			pgas__fep_progress(ep);
			if (!pgas__self.hsl_held)
				pgas__wait_step(&(struct pgas__waiter){ .spins = 0, .nosleep = 1 });
			if ((done = handle_test(h, &rc)) < 0)
				return bad_handle(call, h);
			if (!done)
				return PGAS_ERR_NOT_READY;
			break;
		}
		if ((rc = can_wait(call, ~0u)))
			return rc;
		pgas__wait_step_for(&w, ep);
	}
	PGAS__FENCE(memory_order_acq_rel);
	return handle_rc(call, rc);
}

/* A pending handle's endpoint's own fabric completions (its only progress). */
static void handle_progress(pgas_handle_t h)
{
	struct ref_op *op = op_find((uint32_t)h, (uint32_t)(h >> 32) & 0xffffffu, 0xffffffu);
	struct pgas__state *ep = op ? op->ep : NULL;	/* pending: not recycled */

	if (ep && !pgas__is_primary(ep))
		pgas__fep_progress(ep);
}

int pgas__sync_many(const char *call, pgas_handle_t *handles, size_t count, int some, int block)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;
	int first = PGAS_OK;

	if (!handles && count)
		return pgas__err(PGAS_ERR_INVAL, call, "handles is NULL but count is %zu", count);
	for (size_t i = 0; i < count; i++)
		if (handles[i] != PGAS_HANDLE_DONE &&
		    (handles[i] >> 56 != HANDLE_MAGIC ||
		     !op_find((uint32_t)handles[i], (uint32_t)(handles[i] >> 32) & 0xffffffu,
			      0xffffffu)))
			return pgas__err(PGAS_ERR_INVAL, call,
					 "handles[%zu] = %#llx is not a handle of this job", i,
					 (unsigned long long)handles[i]);
	for (;;) {
		size_t pending = 0, completed = 0, live = 0;

		for (size_t i = 0; i < count; i++) {
			int rc, done;

			if (handles[i] == PGAS_HANDLE_DONE)
				continue;
			live++;
			done = handle_test(handles[i], &rc);
			if (done == 1) {
				handles[i] = PGAS_HANDLE_DONE;
				completed++;
				if (rc && !first)
					first = rc;
			} else if (done == 0) {
				pending++;
				handle_progress(handles[i]);
			}
		}
		if (!pending || (some && (completed || !live)))
			break;
		if (!block)
			return first ? handle_rc(call, first) : PGAS_ERR_NOT_READY;
		if ((first = can_wait(call, ~0u)))
			return first;
		pgas__wait_step(&w);
	}
	PGAS__FENCE(memory_order_acq_rel);
	return handle_rc(call, first);
}

/* ---- implicit handles ---------------------------------------------------- */

/* Waits for ep's _nbi (and remote _nb) operations in 'what' (PGAS__NBI_*):
 * PGAS_OK, PGAS_ERR_NOT_READY (!block) or can_wait's refusal.  base: what
 * the counters read with none in flight (block mode keeps puts' at 1). */
static int nbi_wait(struct pgas__state *ep, const char *call, int what, int block)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;
	uint64_t base = pgas__puts_base();
	int rc;

	for (;;) {
		uint64_t puts = __atomic_load_n(&ep->nbi_puts_pending, __ATOMIC_ACQUIRE);
		uint64_t gets = __atomic_load_n(&ep->nbi_gets_pending, __ATOMIC_ACQUIRE);

		if (!((what & PGAS__NBI_PUTS) && puts > base) && !((what & PGAS__NBI_GETS) && gets))
			return PGAS_OK;
		if (!block) {
			pgas__fep_progress(ep);
			if (!pgas__self.hsl_held)
				pgas__wait_step(&(struct pgas__waiter){ .spins = 0, .nosleep = 1 });
			puts = __atomic_load_n(&ep->nbi_puts_pending, __ATOMIC_ACQUIRE);
			gets = __atomic_load_n(&ep->nbi_gets_pending, __ATOMIC_ACQUIRE);
			if (((what & PGAS__NBI_PUTS) && puts > base) ||
			    ((what & PGAS__NBI_GETS) && gets))
				return PGAS_ERR_NOT_READY;
			return PGAS_OK;
		}
		if ((rc = can_wait(call, ~0u)))
			return rc;
		pgas__wait_step_for(&w, ep);
	}
}

/*
 * pgas_fence, and an atomic with PGAS_AOP_REL, while ep has puts on the
 * remote path in flight: they complete first.  The conduit's messages
 * wait in its proxies until a progress ships them while a fabric write
 * goes out in its call, so a later write could pass an earlier message;
 * and a release on a mapped rank must not precede a remote put.  An
 * _nbi operation's error stays for the next sync.
 */
int pgas__ref_drain(struct pgas__state *ep, const char *call, int what)
{
	return nbi_wait(ep, call, what, 1);
}

void pgas__fence_wait(struct pgas__state *ep)
{
	/* A handler cannot wait for replies (pgas.h: a fence there orders
	 * only the mapped ranks' stores). */
	if (pgas__may_wait())
		(void)pgas__ref_drain(ep, "pgas_fence", PGAS__NBI_PUTS);
}

int pgas__ref_sync_nbi(struct pgas__state *ep, const char *call, int what, int block)
{
	int rc = nbi_wait(ep, call, what, block);

	if (rc)
		return rc;
	rc = __atomic_exchange_n(&nbi_rc, 0, __ATOMIC_RELAXED);
	if (rc)
		return pgas__err(rc, call, "a target refused an _nbi operation (error %d)", rc);
	return PGAS_OK;
}
