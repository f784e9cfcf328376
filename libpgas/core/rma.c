// SPDX-License-Identifier: MIT
/*
 * rma.c - the slow side of put/get: error reports, handles, access regions,
 * memset and the signalling put with its notification ring.
 *
 * To a rank mapped here every transfer is a copy by the initiating thread
 * and is complete when the call returns (its handle PGAS_HANDLE_DONE); to
 * one that is not, the inline calls' misses take the remote path of
 * rma_ref.c, whose _nb handles and _nbi counts the syncs here wait for.
 */
#include <sched.h>
#include <stdlib.h>
#include "internal.h"

int pgas__rma_fail(const char *call, unsigned rank, const void *addr, size_t n)
{
	char *seg, *reg;
	size_t seg_size, reg_size;
	int rc = pgas__check_rank(call, rank);

	if (rc)
		return rc;
	/* Every rank's bounds, mapped here or not (rma_ref.c keeps them). */
	pgas__ref_bounds(rank, &seg, &seg_size, &reg, &reg_size);
	if (pgas__xlate(rank, addr, n) || pgas__ref_takes(rank, addr, n))
		return pgas__err(PGAS_ERR_INVAL, call,
				 "local buffer or handle pointer is NULL (nbytes %zu)", n);
	if (reg_size)
		return pgas__err(PGAS_ERR_BOUNDS, call,
				 "[%p, +%zu) is outside rank %u's segment [%p, +%zu) and region "
				 "[%p, +%zu)", addr, n, rank, (void *)seg, seg_size,
				 (void *)reg, reg_size);
	return pgas__err(PGAS_ERR_BOUNDS, call,
			 "[%p, +%zu) is outside rank %u's segment [%p, +%zu)",
			 addr, n, rank, (void *)seg, seg_size);
}

/* ---- the inline calls' misses (pgas_fast.h) ------------------------------ */

static const char *miss_call(unsigned kind)
{
	static const char *const names[] = {
		"pgas_put", "pgas_get", "pgas_put_nb", "pgas_get_nb",
		"pgas_put_nbi", "pgas_get_nbi", "pgas_put_nbi", "pgas_get_nbi",
	};

	if (kind & PGAS__K_VAL)
		return kind & PGAS__K_GET ? "pgas_get_val" : "pgas_put_val";
	return names[kind & 7];
}

static int miss_form(unsigned kind)
{
	return kind & PGAS__K_NB ? PGAS__REF_NB : kind & PGAS__K_NBI ? PGAS__REF_NBI
								   : PGAS__REF_BLOCKING;
}

/* The buffer and handle a transfer needs were given (NULL is an error). */
static bool miss_args_ok(unsigned kind, size_t n)
{
	return ((kind & PGAS__K_LOCAL) || !n) && (!(kind & PGAS__K_NB) || (kind & PGAS__K_HANDLE));
}

struct pgas__val_ret pgas__rma_miss(struct pgas__state *ep, unsigned kind, unsigned rank,
				    void *remote, void *local, size_t n)
{
	const char *call = miss_call(kind);
	struct pgas__val_ret r = { 0, PGAS_HANDLE_DONE };
	pgas_handle_t h = PGAS_HANDLE_DONE;

	if (miss_args_ok(kind, n) && pgas__ref_takes(rank, remote, n)) {
		r.rc = pgas__ev_ok(pgas__ref_rma(ep, call, kind & PGAS__K_GET, miss_form(kind),
						 kind & PGAS__K_NB ? &h : NULL, rank, remote, local,
						 n), kind & PGAS__K_GET ? PGAS__EV_GET_REMOTE :
				   PGAS__EV_PUT_REMOTE, rank, n);
		r.value = h;
		return r;
	}
	r.rc = pgas__rma_fail(call, rank, remote, n);
	return r;
}

struct pgas__val_ret pgas__rma_miss_val(struct pgas__state *ep, unsigned kind, unsigned rank,
					void *remote, uint64_t bits, size_t n)
{
	const char *call = miss_call(kind);
	struct pgas__val_ret r = { 0, PGAS_HANDLE_DONE };
	bool get = kind & PGAS__K_GET;

	if (kind & PGAS__K_VAL) {	/* pgas_put_val, pgas_get_val */
		if ((!get || (kind & PGAS__K_LOCAL)) && PGAS__VAL_OK(remote, n) &&
		    pgas__ref_takes(rank, remote, n))
			r.rc = pgas__ev_ok(pgas__ref_val(call, get, rank, remote, bits, n, &r.value),
					   get ? PGAS__EV_GET_REMOTE : PGAS__EV_PUT_REMOTE, rank, n);
		else
			r.rc = pgas__val_fail(call, rank, remote, n);
		return r;
	}
	/* A put or get of a constant size up to 8 bytes, its bytes by value:
	 * a put's are in the message once issued (an _nb's handle comes
	 * back); a get completes here, into r.value. */
	if (!miss_args_ok(kind, n) || !pgas__ref_takes(rank, remote, n)) {
		r.rc = pgas__rma_fail(call, rank, remote, n);
		return r;
	}
	if (get) {
		r.value = 0;
		r.rc = pgas__ev_ok(pgas__ref_rma(ep, call, 1, PGAS__REF_BLOCKING, NULL, rank, remote,
						 &r.value, n), PGAS__EV_GET_REMOTE, rank, n);
	} else {
		pgas_handle_t h = PGAS_HANDLE_DONE;

		r.rc = pgas__ev_ok(pgas__ref_rma(ep, call, 0, miss_form(kind),
						 kind & PGAS__K_NB ? &h : NULL, rank, remote, &bits,
						 n), PGAS__EV_PUT_REMOTE, rank, n);
		r.value = h;
	}
	return r;
}

/*
 * Folds new events of the kernel page into rank_gone.  False if some were
 * overwritten unread (more than PGAS_GONE_EVENTS departures since the last
 * look): then who left among the ranks not marked is unknown.
 */
static bool fold_gone_events(const struct pgas_kern_page *k)
{
	uint64_t t = atomic_load_explicit((_Atomic uint64_t *)&k->gone_tail, memory_order_acquire);
	uint64_t first = pgas__job.gone_seen, h;
	bool whole = t - first <= PGAS_GONE_EVENTS;

	if (!whole)
		first = t - PGAS_GONE_EVENTS;
	for (h = first; h != t; h++) {
		const struct pgas_gone_event *e = &k->gone[h % PGAS_GONE_EVENTS];
		uint32_t vpid = atomic_load_explicit((_Atomic uint32_t *)&e->vpid,
						     memory_order_relaxed);
		uint32_t died = atomic_load_explicit((_Atomic uint32_t *)&e->died,
						     memory_order_relaxed);

		if (vpid < pgas__g.nranks)
			pgas__job.rank_gone[vpid] = (unsigned char)(1 + !!died);
	}
	/* The slot of event first is rewritten once event first + PGAS_GONE_EVENTS is. */
	PGAS__FENCE(memory_order_acquire);
	if (atomic_load_explicit((_Atomic uint64_t *)&k->gone_tail, memory_order_relaxed) - first >=
	    PGAS_GONE_EVENTS)
		whole = false;
	pgas__job.gone_seen = t;
	return whole;
}

/*
 * pgas__rma_check()'s slow side: some peer has left at the kernel's level;
 * was it rank?  Its memory is gone with it (pgas.ko revoked the mappings to
 * a throwaway page), so what the transfer read is not its data and what it
 * wrote went nowhere.
 */
static int rma_gone(const char *call, unsigned rank)
{
	const struct pgas_kern_page *k = pgas__job.conduit.kern;
	long long t0 = 0;
	uint64_t counted;
	bool whole;

	if (!k || !pgas__job.rank_gone)
		return PGAS_OK;
	if (k->peers_gone == PGAS_KERN_REVOKED)
		return pgas__err(PGAS_ERR_GONE, call,
				 "pgas.ko took this rank's endpoint away (%s was deleted): rank %u is out of reach",
				 pgas__cfg.device, rank);
	for (;;) {
		counted = (uint64_t)atomic_load_explicit((_Atomic uint32_t *)&k->peers_gone,
							 memory_order_acquire) +
			  atomic_load_explicit((_Atomic uint32_t *)&k->peers_left,
					       memory_order_acquire);
		pgas__job.gone_lost |= !fold_gone_events(k);
		whole = !pgas__job.gone_lost;
		if (pgas__job.rank_gone[rank])
			return pgas__err(PGAS_ERR_GONE, call,
					 "rank %u has left the job (%s): its memory is gone, the transfer did not happen",
					 rank, pgas__job.rank_gone[rank] == 2 ? "it died" :
					 "its process ended");
		if (!whole)
			break;
		/* Every counted departure has its event: rank is not among them. */
		if (pgas__job.gone_seen >= counted)
			return PGAS_OK;
		/* One under way (counted, memory being revoked): its event follows. */
		if (!t0)
			t0 = pgas__now_ms();
		else if (pgas__now_ms() - t0 > 1000)
			break;
		sched_yield();
	}
	return pgas__err(PGAS_ERR_GONE, call,
			 "rank %u may have left the job: %u peers died and %u left, and pgas.ko's page does not say who",
			 rank, k->peers_gone, k->peers_left);
}

/*
 * The record of who left has a lock of its own: a put from a thread that
 * holds a handler-safe lock lands here, and must not wait for the progress
 * lock (its holder may be spinning on that HSL in a handler).
 */
int pgas__rma_gone(const char *call, unsigned rank)
{
	static int busy;
	bool get = rank & PGAS__RMA_GET;
	int rc;

	rank &= ~PGAS__RMA_GET;
	if (pgas__g.wake) {
		/* Block mode (pgas__g.gone, pgas_signal.h): the target may
		 * sleep in a wait on the word this transfer changed. */
		if (!get && rank < pgas__g.nranks)
			pgas__ring_doorbell(pgas__g.peers[rank].ctrl);
		if (!atomic_load_explicit((_Atomic uint64_t *)pgas__job.gone_word,
					  memory_order_relaxed))
			return PGAS_OK;
	}
	if (!pgas__mt())
		return rma_gone(call, rank);
	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	rc = rma_gone(call, rank);
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	return rc;
}

int pgas__val_fail(const char *call, unsigned rank, const void *addr, size_t n)
{
	if (n != 1 && n != 2 && n != 4 && n != 8)
		return pgas__err(PGAS_ERR_INVAL, call, "nbytes %zu (must be 1, 2, 4 or 8)", n);
	if ((pgas__xlate(rank, addr, n) || pgas__ref_takes(rank, addr, n)) &&
	    ((uintptr_t)addr & (n - 1)))
		return pgas__err(PGAS_ERR_INVAL, call, "address %p not aligned to %zu", addr, n);
	return pgas__rma_fail(call, rank, addr, n);
}

int pgas__sync_pending(struct pgas__state *ep, const char *call, int what, int block)
{
	int rc;

	if (!what)	/* an explicit handle other than PGAS_HANDLE_DONE */
		return pgas__err(PGAS_ERR_INVAL, call, "not a handle of this job");
	/* The remote path's _nbi operations in flight (rma_ref.c). */
	rc = pgas__ref_sync_nbi(ep, call, what, block);
	if (rc)
		return rc;
	if ((what & PGAS__NBI_PUTS) && pgas__g.wake) {
		/*
		 * Block mode keeps nbi_puts_pending set: the _nbi puts since the
		 * last sync may have changed a word a peer sleeps on.  Only the
		 * peers asleep are rung: the puts' stores, this fence, then the
		 * load of 'sleeping', against the sleeper's store of 'sleeping',
		 * then its check of the word (wait.c: a memory wait's recheck).
		 * Other waits (pgas_block_until on such a word) fall back to
		 * their bounded naps.
		 */
		PGAS__FENCE(memory_order_seq_cst);
		for (unsigned r = 0; r < pgas__g.nranks; r++)
			if (atomic_load_explicit((_Atomic uint32_t *)&pgas__g.peers[r].ctrl->sleeping,
						 memory_order_relaxed))
				pgas__ring_doorbell(pgas__g.peers[r].ctrl);
		return PGAS_OK;
	}
	PGAS__FENCE(memory_order_seq_cst);
	return PGAS_OK;
}

int pgas_wait_syncnb_all(pgas_handle_t *handles, size_t count)
{
	return pgas__sync_many("pgas_wait_syncnb_all", handles, count, 0, 1);
}

int pgas_try_syncnb_all(pgas_handle_t *handles, size_t count)
{
	return pgas__sync_many("pgas_try_syncnb_all", handles, count, 0, 0);
}

int pgas_wait_syncnb_some(pgas_handle_t *handles, size_t count)
{
	return pgas__sync_many("pgas_wait_syncnb_some", handles, count, 1, 1);
}

int pgas_try_syncnb_some(pgas_handle_t *handles, size_t count)
{
	return pgas__sync_many("pgas_try_syncnb_some", handles, count, 1, 0);
}

int pgas_begin_nbi_accessregion(void)
{
	static const char call[] = "pgas_begin_nbi_accessregion";
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (pgas__self.in_region)
		return pgas__err(PGAS_ERR_STATE, call, "already inside an access region");
	pgas__self.in_region = true;
	return PGAS_OK;
}

int pgas_end_nbi_accessregion(pgas_handle_t *handle)
{
	static const char call[] = "pgas_end_nbi_accessregion";
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!handle)
		return pgas__err(PGAS_ERR_INVAL, call, "handle is NULL");
	if (!pgas__self.in_region)
		return pgas__err(PGAS_ERR_STATE, call, "no access region is open");
	pgas__self.in_region = false;
	*handle = PGAS_HANDLE_DONE;
	/* The region's handle is DONE: its _nbi operations to ranks not mapped
	 * here complete now.  Block mode: its _nbi puts wake their targets now,
	 * since that handle syncs without leaving the fast path. */
	if (pgas__g.wake || pgas__g.nbi_gets_pending || pgas__g.nbi_puts_pending)
		return pgas__sync_pending(&pgas__g, call, PGAS__NBI_PUTS | PGAS__NBI_GETS, 1);
	return PGAS_OK;
}

int pgas_memset(unsigned rank, void *dst, int byte, size_t nbytes)
{
	char *d = pgas__xlate(rank, dst, nbytes);

	if (!d && pgas__ref_takes(rank, dst, nbytes))
		return pgas__ref_memset("pgas_memset", rank, dst, byte, nbytes);
	if (!d)
		return pgas__rma_fail("pgas_memset", rank, dst, nbytes);
	memset(d, byte, nbytes);
	PGAS__FENCE(memory_order_release);
	return pgas__rma_check("pgas_memset", rank);
}

/* ---- signalling put and the notification ring --------------------------- */

static uint32_t notify_lap(uint64_t t)
{
	return (uint32_t)((t / pgas__job.conduit.geo.notify_entries) + 1) & 0xffffu;
}

/*
 * Notifications taken out of my ring while I waited for room in a peer's:
 * two ranks signalling each other with full rings would otherwise wait
 * for each other forever.  pgas_notify_poll() serves these first.
 */
static struct {
	pgas_notification_t *q;
	size_t head, tail, cap;
} backlog;

/*
 * Takes the next notification out of my ring: 1, or 0 if none.  Peers
 * write this ring, and pgas.ko never does (pgas_abi.h): a PEER_GONE entry
 * in it is forged, and dropped.
 */
static int take_own(pgas_notification_t *out)
{
	uint64_t entries = pgas__job.conduit.geo.notify_entries;

	for (;;) {
		uint64_t h = pgas__job.notify_head;
		struct pgas_notify_entry *e = &pgas__g.peers[pgas__g.rank].notify[h & (entries - 1)];
		uint64_t s = atomic_load_explicit((_Atomic uint64_t *)&e->status,
						  memory_order_acquire);

		if (PGAS_NOTIFY_LAP(s) != notify_lap(h))
			return 0;
		out->src = PGAS_NOTIFY_SRC(s);
		out->kind = PGAS_NOTIFY_KIND(s);
		out->size = e->size;
		out->tag = e->tag;
		pgas__job.notify_head = h + 1;
		atomic_store_explicit((_Atomic uint64_t *)&pgas__g.my_ctrl->notify.head, h + 1,
				      memory_order_release);
		if (out->kind != PGAS_NOTIFY_PEER_GONE)
			return 1;
	}
}

/*
 * The next peer-gone event from pgas.ko's kernel page (kmod only): 1, or 0
 * if none.  Events too old to be on the page any more are skipped.
 */
static int take_gone(pgas_notification_t *out)
{
	const struct pgas_kern_page *k = pgas__job.conduit.kern;
	uint64_t h = pgas__job.gone_head, t;
	struct pgas_gone_event e;

	if (!k)
		return 0;
	t = atomic_load_explicit((_Atomic uint64_t *)&k->gone_tail, memory_order_acquire);
	if (t - h > PGAS_GONE_EVENTS)
		h = t - PGAS_GONE_EVENTS;
	if (h == t)
		return 0;
	e.vpid = atomic_load_explicit((_Atomic uint32_t *)&k->gone[h % PGAS_GONE_EVENTS].vpid,
				      memory_order_relaxed);
	e.died = atomic_load_explicit((_Atomic uint32_t *)&k->gone[h % PGAS_GONE_EVENTS].died,
				      memory_order_relaxed);
	PGAS__FENCE(memory_order_acquire);
	/* Overwritten while read (we were a whole page behind): take a newer one. */
	t = atomic_load_explicit((_Atomic uint64_t *)&k->gone_tail, memory_order_relaxed);
	if (t - h > PGAS_GONE_EVENTS) {
		pgas__job.gone_head = t - PGAS_GONE_EVENTS;
		return take_gone(out);
	}
	pgas__job.gone_head = h + 1;
	out->src = e.vpid;
	out->kind = PGAS_NOTIFY_PEER_GONE;
	out->size = e.died;
	out->tag = e.vpid;
	return 1;
}

static void drain_own_ring(void)
{
	pgas_notification_t nt;

	while (take_own(&nt)) {
		if (backlog.tail - backlog.head == backlog.cap) {
			size_t cap = backlog.cap ? 2 * backlog.cap : 256;
			pgas_notification_t *q = malloc(cap * sizeof(*q));

			if (!q)
				pgas__fatal("no memory to keep %zu notifications", cap);
			for (size_t i = backlog.head; i < backlog.tail; i++)
				q[i - backlog.head] = backlog.q[i % backlog.cap];
			free(backlog.q);
			backlog.q = q;
			backlog.tail -= backlog.head;
			backlog.head = 0;
			backlog.cap = cap;
		}
		backlog.q[backlog.tail++ % backlog.cap] = nt;
	}
}

static int put_signal(unsigned rank, void *dst, const void *src, size_t nbytes, uint32_t tag)
{
	static const char call[] = "pgas_put_signal";
	uint64_t entries = pgas__job.conduit.geo.notify_entries;
	struct pgas__peer *p;
	struct pgas_notify_entry *e;
	uint64_t t;
	char *d = pgas__xlate(rank, dst, nbytes);
	bool remote = !d && pgas__ref_takes(rank, dst, nbytes);

	if ((!d && !remote) || (!src && nbytes))
		return pgas__rma_fail(call, rank, dst, nbytes);
	if (nbytes > UINT32_MAX)
		return pgas__err(PGAS_ERR_SIZE, call, "nbytes %zu does not fit a notification",
				 nbytes);
	if (pgas__self.hsl_held)
		return pgas__err(PGAS_ERR_STATE, call, "called while holding a handler-safe lock");
	if (remote)	/* the data, then the notification: the target writes it */
		return pgas__ref_notify(call, rank, dst, src, nbytes, tag);
	pgas__copy(d, src, nbytes);
	p = &pgas__g.peers[rank];
	t = atomic_fetch_add_explicit((_Atomic uint64_t *)&p->ctrl->notify.tail, 1,
				      memory_order_relaxed);
	if (t - p->notify_head_seen >= entries) {
		struct pgas__waiter w = { .nosleep = 1 };

		for (;;) {
			p->notify_head_seen = atomic_load_explicit(
				(_Atomic uint64_t *)&p->ctrl->notify.head, memory_order_acquire);
			if (t - p->notify_head_seen < entries)
				break;
			drain_own_ring();
			pgas__wait_step(&w);
		}
	}
	e = &p->notify[t & (entries - 1)];
	e->size = (uint32_t)nbytes;
	e->tag = tag;
	atomic_store_explicit((_Atomic uint64_t *)&e->status,
			      PGAS_NOTIFY_STATUS(notify_lap(t), pgas__g.rank, PGAS_NOTIFY_COMPLETER),
			      memory_order_release);
	if (pgas__g.wake)
		pgas__ring_doorbell(p->ctrl);
	return PGAS_OK;
}

/*
 * A notification from src into my own ring, by its owner (the remote
 * path's target, in a handler): room is made by moving what waits into
 * the backlog, as a sender waiting for room in a peer's ring does.
 */
void pgas__notify_local(unsigned src, uint32_t size, uint32_t tag)
{
	uint64_t entries = pgas__job.conduit.geo.notify_entries;
	struct pgas__peer *p = &pgas__g.peers[pgas__g.rank];
	struct pgas_notify_entry *e;
	uint64_t t = atomic_fetch_add_explicit((_Atomic uint64_t *)&p->ctrl->notify.tail, 1,
					       memory_order_relaxed);

	while (t - atomic_load_explicit((_Atomic uint64_t *)&p->ctrl->notify.head,
					memory_order_acquire) >= entries) {
		drain_own_ring();
		sched_yield();
	}
	e = &p->notify[t & (entries - 1)];
	e->size = size;
	e->tag = tag;
	atomic_store_explicit((_Atomic uint64_t *)&e->status,
			      PGAS_NOTIFY_STATUS(notify_lap(t), src, PGAS_NOTIFY_COMPLETER),
			      memory_order_release);
}

static int notify_poll(pgas_notification_t *out)
{
	static const char call[] = "pgas_notify_poll";
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!out)
		return pgas__err(PGAS_ERR_INVAL, call, "out is NULL");
	if (PGAS__UNLIKELY(pgas__pending() & PGAS__PENDING_CONDUIT))
		pgas__conduit_progress();	/* notifications that arrived over the fabric */
	if (backlog.head != backlog.tail) {
		*out = backlog.q[backlog.head++ % backlog.cap];
		return 1;
	}
	return take_gone(out) || take_own(out);
}

/* At MULTIPLE: the notification ring's consumer side (mine, drained while
 * waiting for room in a peer's) is progress state. */
/*
 * Every library wait makes room in my ring once it is half full: a sender
 * blocked on it would otherwise never reach the barrier or collective this
 * rank waits in, and both would wait forever.  What it takes out waits in
 * the backlog for pgas_notify_poll(), in order (16 bytes each).
 */
void pgas__notify_room(void)
{
	uint64_t entries = pgas__job.conduit.geo.notify_entries;
	uint64_t tail = atomic_load_explicit((_Atomic uint64_t *)&pgas__g.my_ctrl->notify.tail,
					     memory_order_relaxed);

	if (tail - pgas__job.notify_head >= entries / 2)
		drain_own_ring();
}

int pgas_put_signal(unsigned rank, void *dst, const void *src, size_t nbytes, uint32_t tag)
{
	int rc = pgas__mt_enter("pgas_put_signal");

	return rc ? rc : pgas__ev_ok(pgas__mt_leave(put_signal(rank, dst, src, nbytes, tag)),
				     PGAS__EV_PUT_SIGNAL, rank, nbytes);
}

int pgas_notify_poll(pgas_notification_t *out)
{
	/* Holding an HSL while another thread runs handlers: nothing now. */
	if (pgas__mt() && pgas__self.hsl_held && !pgas__plock_try())
		return 0;
	if (pgas__mt() && !pgas__self.hsl_held)
		pgas__plock_acquire();
	return pgas__mt_leave(notify_poll(out));
}
