// SPDX-License-Identifier: MIT
/*
 * am.c - active messages over the VELO mailboxes of pgas_abi.h.
 *
 * A message body is [args, padded to 8 bytes][trailer][payload], cut into
 * 56-byte slot payloads; k slots are reserved at once (one fetch-add), so a
 * message is contiguous in the ring and the owner handles it as a unit.
 * Medium payloads whose body would exceed PGAS_AM_PACKET_MAX go through a
 * bounce buffer in the target instead (one copy in, handler reads in place).
 *
 * Flow control: requests and replies have separate rings.  A sender waiting
 * for ring space or a bounce buffer polls its own rings meanwhile: both
 * when it sends a request, only the reply ring when it sends a reply from a
 * handler.  Reply handlers cannot send, so draining reply rings always makes
 * progress and no cycle of waits can form.
 */
#include <stdlib.h>
#include "internal.h"
#include "layer.h"

static size_t args_end(unsigned type, unsigned nargs)
{
	/* Short bodies stop at the args; others align what follows to 8. */
	return type == PGAS_MSG_SHORT ? (size_t)nargs * 4
				      : PGAS__ALIGN_UP((size_t)nargs * 4, 8);
}

/* Longest body a message can have: a Medium packet, or 16 args + a trailer. */
static size_t body_limit(void)
{
	size_t control = (size_t)PGAS_AM_MAX_ARGS * 4 + sizeof(struct pgas_long_ref);

	return pgas__cfg.packet_max > control ? pgas__cfg.packet_max : control;
}

int pgas__am_ep_setup(struct pgas__state *ep, const struct pgas_conduit_ep *ring)
{
	const struct pgas_conduit *c = &pgas__job.conduit;

	ep->mbox_mask = c->geo.mbox_slots - 1;
	ep->mbox_shift = (uint32_t)__builtin_ctz(c->geo.mbox_slots);
	ep->my_ctrl = ring->ctrl;
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++) {
		struct pgas__inbox *in = &ep->inbox[ch];

		ep->priv->body_buf[ch] = aligned_alloc(PGAS_CACHELINE,
				PGAS__ALIGN_UP(body_limit(), PGAS_CACHELINE));
		if (!ep->priv->body_buf[ch])
			return PGAS_ERR_NOMEM;
		in->slots = ring->mbox[ch];
		in->head = 0;
		in->lap = pgas__ep_lap(ep, 0);
		in->next = &in->slots[0];
	}
	return PGAS_OK;
}

void pgas__am_ep_teardown(struct pgas__state *ep)
{
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++) {
		free(ep->priv->body_buf[ch]);
		ep->priv->body_buf[ch] = NULL;
	}
}

/* ---- the library's own messages (internal.h, pgas__am_lib_medium) ------- */

/* The remote data path's codes have 0 in args[0]'s top byte (rma_ref.c). */
pgas_handler_fn pgas__lib_handlers[PGAS__LIBH_N] = { [PGAS__LIBH_RMA] = pgas__ref_handler };
static int medium_send(struct pgas__state *ep, const char *call, unsigned chan, unsigned eid,
		       unsigned handler, const void *buf, size_t nbytes, const uint32_t *args,
		       unsigned nargs, bool imm);
static int sent(int rc, unsigned chan, unsigned kind, unsigned handler, unsigned eid, size_t n);

/* Handler 0: the library's own, args[0] >> 24 names which (its whole args). */
static void lib_dispatch(pgas_token_t tok, void *buf, size_t nbytes, const uint32_t *args,
			 unsigned nargs)
{
	unsigned which = nargs ? args[0] >> 24 : PGAS__LIBH_N;

	if (which >= PGAS__LIBH_N || !pgas__lib_handlers[which])
		pgas__fatal("bad library message from rank %u: %u args, handler %u", tok->src,
			    nargs, which);
	pgas__lib_handlers[which](tok, buf, nbytes, args, nargs);
}

int pgas__am_lib_medium(unsigned rank, unsigned libh, const void *buf, size_t nbytes,
			const uint32_t *args, unsigned nargs, bool imm)
{
	static const char call[] = "pgas (library message)";
	uint32_t a[PGAS_AM_MAX_ARGS];

	if (nargs + 1 > PGAS_AM_MAX_ARGS || nbytes > pgas__cfg.max_medium || rank >= pgas__g.nranks)
		return pgas__err(PGAS_ERR_INVAL, call, "rank %u, %u args, %zu bytes", rank, nargs,
				 nbytes);
	if (pgas__self.handler_depth)
		return pgas__err(PGAS_ERR_STATE, call, "called from a handler");
	a[0] = libh << 24;
	if (nargs)
		memcpy(a + 1, args, nargs * sizeof(*a));
	return sent(medium_send(&pgas__g, call, PGAS_CHAN_REQUEST, rank, 0, buf, nbytes, a,
				nargs + 1, imm), PGAS_CHAN_REQUEST, 1, 0, rank, nbytes);
}

int pgas__am_setup(void)
{
	struct pgas_conduit *c = &pgas__job.conduit;

	pgas__g.priv = &pgas__ep0_priv;
	pgas__ep0_priv.magic = PGAS__EP_MAGIC;
	pgas__g.status_src = PGAS_STATUS(0, c->rank, 0, 0, 0, 0);
	if (pgas__am_ep_setup(&pgas__g, &c->eps[c->rank]))
		return pgas__err(PGAS_ERR_NOMEM, "pgas_attach", "no memory for AM buffers");
	return PGAS_OK;
}

void pgas__am_teardown(void)
{
	if (pgas__g.priv)
		pgas__am_ep_teardown(&pgas__g);
}

unsigned pgas__wait_chanmask(void)
{
	if (pgas__self.hsl_held || !pgas__job.attached)
		return 0;
	return pgas__self.handler_depth ? PGAS__CHANMASK_REPLY : PGAS__CHANMASK_ALL;
}

static const char *chan_call(unsigned chan)
{
	return chan == PGAS_CHAN_REQUEST ? "pgas_am_request_short" : "pgas_am_reply";
}

int pgas__mbox_wait_space(struct pgas__state *ep, unsigned eid, unsigned chan, uint64_t *t,
			  unsigned k)
{
	struct pgas__peer *p = pgas__peer_of(ep, chan, eid);
	uint64_t nslots = (uint64_t)ep->mbox_mask + 1, end;
	struct pgas__waiter w = { .nosleep = 1, .ep = ep };

	if (PGAS__UNLIKELY(__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != PGAS__PEER_LIVE)) {
		/* The ticket was a dummy's: resolve eid and take a real one. */
		int rc = pgas__ep_peer(ep, chan, eid, &p);

		/* Only the inline Short request gets here unchecked. */
		if (rc == PGAS_ERR_GONE)
			return pgas__err(rc, chan_call(chan), "endpoint %u was destroyed", eid);
		if (rc)
			return pgas__err(PGAS_ERR_RANK, chan_call(chan),
				"rank (endpoint) %u out of range (job has %u ranks, no endpoint %u)",
				eid, ep->nranks, eid);
		*t = atomic_fetch_add_explicit((_Atomic uint64_t *)&p->ctrl->mbox[chan].tail, k,
					       memory_order_relaxed);
	}
	end = *t + k;
	/* Room in a ring of this rank's: its own threads give it back. */
	w.local = p->owner == pgas__g.rank;
	for (unsigned n = 0;; n++) {
		uint64_t h = atomic_load_explicit((_Atomic uint64_t *)&p->ctrl->mbox[chan].head,
						  memory_order_acquire);

		/* Release: threads of a MULTIPLE rank share the cache, and what
		 * it says the consumer did happens before their writes. */
		__atomic_store_n(&p->head_seen[chan], h, __ATOMIC_RELEASE);
		if (end <= nslots || h >= end - nslots)
			return PGAS_OK;
		/* An endpoint that was destroyed consumes nothing any more. */
		if (eid >= ep->nranks && !(n & 255) && pgas__ep_peer_closed(ep, eid))
			return pgas__err(PGAS_ERR_GONE, chan_call(chan),
					 "endpoint %u was destroyed", eid);
		pgas__wait_step(&w);
	}
}

/* ---- sending ------------------------------------------------------------- */

struct piece {
	const void *ptr;
	size_t len;
};

static void write_body(const struct pgas__state *ep, struct pgas_mbox_slot *ring, uint64_t t,
		       const struct piece *pieces, unsigned npieces)
{
	size_t pos = 0;

	for (unsigned i = 0; i < npieces; i++) {
		const unsigned char *src = pieces[i].ptr;
		size_t left = pieces[i].len;

		while (left) {
			struct pgas_mbox_slot *s =
				&ring[(t + pos / PGAS_SLOT_PAYLOAD) & ep->mbox_mask];
			size_t off = pos % PGAS_SLOT_PAYLOAD;
			size_t n = PGAS_SLOT_PAYLOAD - off < left ? PGAS_SLOT_PAYLOAD - off : left;

			if (src)
				memcpy(s->payload + off, src, n);
			else
				memset(s->payload + off, 0, n);
			if (src)
				src += n;
			pos += n;
			left -= n;
		}
	}
}

/*
 * PGAS_AM_IMMEDIATE: reserves k slots only if the ring has room for them
 * now (a compare-and-swap on the tail, where a plain send takes its
 * ticket with a fetch-and-add and then waits for the room).
 */
static bool reserve_now(const struct pgas__state *ep, struct pgas__peer *p, unsigned chan,
			unsigned k, uint64_t *t)
{
	_Atomic uint64_t *tail = (_Atomic uint64_t *)&p->ctrl->mbox[chan].tail;
	uint64_t nslots = (uint64_t)ep->mbox_mask + 1;
	uint64_t tl = atomic_load_explicit(tail, memory_order_relaxed);

	for (;;) {
		uint64_t h = __atomic_load_n(&p->head_seen[chan], __ATOMIC_ACQUIRE);

		if (h > tl || tl + k - h > nslots) {
			h = atomic_load_explicit((_Atomic uint64_t *)&p->ctrl->mbox[chan].head,
						 memory_order_acquire);
			__atomic_store_n(&p->head_seen[chan], h, __ATOMIC_RELEASE);
			if (h > tl) {	/* tl is stale: others sent since */
				tl = atomic_load_explicit(tail, memory_order_relaxed);
				continue;
			}
			if (tl + k - h > nslots)
				return false;
		}
		if (atomic_compare_exchange_weak_explicit(tail, &tl, tl + k, memory_order_relaxed,
							  memory_order_relaxed)) {
			*t = tl;
			return true;
		}
	}
}

/* An immediate Long's payload, copied once its slots are held. */
struct long_copy {
	void *dst;
	const void *src;
	size_t n;
};

/*
 * Reserves, writes and publishes one message (see pgas_abi.h); lcopy (or
 * NULL) is copied once the slots are reserved, before the header is
 * published.  PGAS_ERR_NOT_READY, with nothing sent, when imm and the ring
 * is full.
 */
static int am_send(struct pgas__state *ep, unsigned chan, unsigned eid, unsigned type,
		   unsigned handler, const uint32_t *args, unsigned nargs, const void *trailer,
		   size_t tlen, const void *payload, size_t plen, bool imm,
		   const struct long_copy *lcopy)
{
	struct pgas__peer *p = pgas__peer_of(ep, chan, eid);	/* resolved by check_am */
	size_t aend = args_end(type, nargs);
	size_t len = aend + tlen + plen;
	unsigned k = len <= PGAS_SLOT_PAYLOAD ? 1 : (unsigned)((len + PGAS_SLOT_PAYLOAD - 1) /
							       PGAS_SLOT_PAYLOAD);
	struct piece pieces[4] = {
		{ args, (size_t)nargs * 4 },
		{ NULL, aend - (size_t)nargs * 4 },	/* zero padding */
		{ trailer, tlen },
		{ payload, plen },
	};
	struct pgas_mbox_slot *ring = p->mbox[chan];
	uint64_t t;

	if (imm) {
		if (!reserve_now(ep, p, chan, k, &t))
			return PGAS_ERR_NOT_READY;
	} else {
		t = atomic_fetch_add_explicit((_Atomic uint64_t *)&p->ctrl->mbox[chan].tail, k,
					      memory_order_relaxed);
		if (t + k - 1 - __atomic_load_n(&p->head_seen[chan], __ATOMIC_ACQUIRE) >
		    ep->mbox_mask) {
			int rc = pgas__mbox_wait_space(ep, eid, chan, &t, k);

			if (rc)
				return rc;
		}
	}
	if (lcopy)
		pgas__copy(lcopy->dst, lcopy->src, lcopy->n);
	write_body(ep, ring, t, pieces, 4);
	for (unsigned i = 1; i < k; i++)
		atomic_store_explicit((_Atomic uint64_t *)&ring[(t + i) & ep->mbox_mask].status,
				      PGAS_STATUS(pgas__ep_lap(ep, t + i), 0, 0, 0, PGAS_MSG_CONT, 0),
				      memory_order_relaxed);
	atomic_store_explicit((_Atomic uint64_t *)&ring[t & ep->mbox_mask].status,
			      ep->status_src | pgas__ep_lap(ep, t) |
			      PGAS_STATUS(0, 0, len, nargs, type, handler),
			      memory_order_release);
	if (ep->wake)
		pgas__ring_doorbell(p->ctrl);
	return PGAS_OK;
}

/*
 * Validation shared by every AM call; chan tells request from reply.
 * *handler loses its PGAS_AM_IMMEDIATE bit, which *imm receives.
 */
static int check_am(struct pgas__state *ep, const char *call, unsigned chan, unsigned eid,
		    unsigned *handler_, const uint32_t *args, unsigned nargs, bool *imm)
{
	unsigned handler = *handler_ & ~PGAS_AM_IMMEDIATE;
	struct pgas__peer *p;
	int rc = pgas__check_ep(call, ep);

	*imm = *handler_ & PGAS_AM_IMMEDIATE;
	*handler_ = handler;
	if (rc)
		return rc;
	/* A rank's primary's eid is the rank: a bad one is named as a rank. */
	if (eid >= ep->ntargets || (eid >= ep->nranks && pgas__eid_owner(eid) == ~0u))
		return pgas__err(PGAS_ERR_RANK, call,
				 "rank (endpoint) %u out of range (job has %u ranks, no endpoint %u)",
				 eid, ep->nranks, eid);
	rc = pgas__ep_peer(ep, chan, eid, &p);
	if (rc)
		return pgas__err(rc, call, "endpoint %u was destroyed", eid);
	if (handler == 0 || handler >= PGAS_MAX_HANDLERS)
		return pgas__err(PGAS_ERR_HANDLER, call,
				 "handler index %u out of range 1..%d (0 is reserved)",
				 handler, PGAS_MAX_HANDLERS - 1);
	if (!ep->handlers[handler])
		return pgas__err(PGAS_ERR_HANDLER, call, "handler index %u is not registered",
				 handler);
	if (nargs > PGAS_AM_MAX_ARGS)
		return pgas__err(PGAS_ERR_INVAL, call, "nargs %u > %d", nargs, PGAS_AM_MAX_ARGS);
	if (!args && nargs)
		return pgas__err(PGAS_ERR_INVAL, call, "args is NULL but nargs is %u", nargs);
	if (chan == PGAS_CHAN_REQUEST) {
		if (pgas__self.handler_depth)
			return pgas__err(PGAS_ERR_STATE, call,
					 "called from a handler (handlers may only reply)");
		if (pgas__self.hsl_held)
			return pgas__err(PGAS_ERR_STATE, call,
					 "called while holding a handler-safe lock");
	}
	return PGAS_OK;
}

/* PGAS_STATS, PGAS_TRACE: a message sent, when rc is 0 (kind: 0 Short,
 * 1 Medium, 2 Long; handler 0: the library's own). */
/* The event of a message for a user's handler: from the Short request's
 * (base), Short, Medium, Long (kind 0-2) by request and reply (internal.h). */
static enum pgas__ev am_ev(enum pgas__ev base, unsigned kind, unsigned chan)
{
	return (enum pgas__ev)(base + 2 * kind + (chan == PGAS_CHAN_REPLY));
}

static int sent(int rc, unsigned chan, unsigned kind, unsigned handler, unsigned eid, size_t n)
{
	if (PGAS__UNLIKELY(pgas__notes_on) && rc == PGAS_OK)
		pgas__ev(handler ? am_ev(PGAS__EV_AM_SHORT_REQ, kind, chan) : PGAS__EV_AM_LIB_SENT,
			 eid, n);
	return rc;
}

int pgas__am_ctl_send(struct pgas__state *ep, unsigned chan, unsigned eid, const uint32_t *args,
		      unsigned nargs, bool imm)
{
	return sent(am_send(ep, chan, eid, PGAS_MSG_SHORT, 0, args, nargs, NULL, 0, NULL, 0, imm,
			    NULL), chan, 0, 0, eid, nargs * 4u);
}

/* The one-slot Short at ticket t of ring chan, once it has room. */
static int short_wait_write(struct pgas__state *ep, unsigned chan, unsigned eid,
			    unsigned handler, const uint32_t *args, unsigned nargs, uint64_t t)
{
	int rc = pgas__mbox_wait_space(ep, eid, chan, &t, 1);

	if (rc)
		return rc;
	/* Resolved now, if it was not. */
	pgas__am_short_write(ep, pgas__peer_of(ep, chan, eid), chan, t, handler, args, nargs);
	return PGAS_OK;
}

int pgas__am_short_full(struct pgas__state *ep, unsigned eid, unsigned handler,
			const uint32_t *args, unsigned nargs, uint64_t t)
{
	return short_wait_write(ep, PGAS_CHAN_REQUEST, eid, handler, args, nargs, t);
}

int pgas__am_short_slow(struct pgas__state *ep, unsigned eid, unsigned handler,
			const uint32_t *args, unsigned nargs)
{
	bool imm;
	int rc = check_am(ep, ep == &pgas__g ? "pgas_am_request_short" :
			  "pgas_ep_am_request_short", PGAS_CHAN_REQUEST, eid, &handler, args,
			  nargs, &imm);

	if (rc)
		return rc;
	if (nargs <= PGAS_SLOT_PAYLOAD / 4 && !imm)	/* one slot: as the inline call sends */
		rc = pgas__am_short_send(ep, eid, handler, args, nargs, 1);
	else
		rc = am_send(ep, PGAS_CHAN_REQUEST, eid, PGAS_MSG_SHORT, handler, args, nargs,
			     NULL, 0, NULL, 0, imm, NULL);
	return sent(rc, PGAS_CHAN_REQUEST, 0, handler, eid, nargs * 4u);
}

static int medium_send(struct pgas__state *ep, const char *call, unsigned chan, unsigned eid,
		       unsigned handler, const void *buf, size_t nbytes, const uint32_t *args,
		       unsigned nargs, bool imm);

static int medium(struct pgas__state *ep, const char *call, unsigned chan, unsigned eid,
		  unsigned handler, const void *buf, size_t nbytes, const uint32_t *args,
		  unsigned nargs)
{
	bool imm;
	int rc = check_am(ep, call, chan, eid, &handler, args, nargs, &imm);

	if (rc)
		return rc;
	if (!buf && nbytes)
		return pgas__err(PGAS_ERR_INVAL, call, "buf is NULL but nbytes is %zu", nbytes);
	if (nbytes > pgas__cfg.max_medium)
		return pgas__err(PGAS_ERR_SIZE, call, "nbytes %zu > pgas_am_max_medium() = %u",
				 nbytes, pgas__cfg.max_medium);
	return sent(medium_send(ep, call, chan, eid, handler, buf, nbytes, args, nargs, imm), chan,
		    1, handler, eid, nbytes);
}

/*
 * The remote data path's messages (rma_ref.c): handler 0, which no user
 * may register or send to, between primaries; a Medium (its bounce buffer
 * when large).  Checked by the caller.
 */
int pgas__am_ref_send(struct pgas__state *ep, unsigned chan, unsigned eid, const uint32_t *args,
		      unsigned nargs, const void *buf, size_t nbytes, bool imm)
{
	return sent(medium_send(ep, "pgas (remote path)", chan, eid, 0, buf, nbytes, args, nargs,
				imm), chan, 1, 0, eid, nbytes);
}

static int medium_send(struct pgas__state *ep, const char *call, unsigned chan, unsigned eid,
		       unsigned handler, const void *buf, size_t nbytes, const uint32_t *args,
		       unsigned nargs, bool imm)
{
	struct pgas__peer *p;
	const struct pgas_geometry *geo = &pgas__job.conduit.geo;
	struct pgas_bounce_ref ref;
	struct pgas_bounce_hdr *bh;
	unsigned char *bb;
	int rc;

	if (args_end(PGAS_MSG_MEDIUM, nargs) + nbytes <= pgas__cfg.packet_max)
		return am_send(ep, chan, eid, PGAS_MSG_MEDIUM, handler, args, nargs, NULL, 0, buf,
			       nbytes, imm, NULL);
	p = pgas__peer_of(ep, chan, eid);
	/* Threads of a MULTIPLE rank, and the endpoints of a rank, share the
	 * rank's buffers in a target: the cursor is a counter, and a buffer is
	 * claimed 0 -> 1 (the target frees it). */
	ref.index = __atomic_fetch_add(&p->bounce_next[chan], 1, __ATOMIC_RELAXED) %
		    geo->bounce_bufs;
	ref.nbytes = (uint32_t)nbytes;
	bb = pgas_bounce_buf(p->bounce, geo, pgas__g.rank, chan, ref.index);
	bh = (struct pgas_bounce_hdr *)bb;
	/* Threads of this rank claim and free the buffers of its own rings. */
	for (struct pgas__waiter w = { .nosleep = 1, .local = p->owner == pgas__g.rank, .ep = ep };;
	     w.spins++) {
		uint32_t free_ = 0;

		if (atomic_compare_exchange_strong_explicit((_Atomic uint32_t *)&bh->busy, &free_,
							    1, memory_order_acquire,
							    memory_order_relaxed)) {
			PGAS__XPROC_ACQUIRE(&bh->busy);
			break;
		}
		if (imm)
			return PGAS_ERR_NOT_READY;
		if (eid >= ep->nranks && !(w.spins & 255) && pgas__ep_peer_closed(ep, eid))
			return pgas__err(PGAS_ERR_GONE, call, "endpoint %u was destroyed", eid);
		pgas__wait_step(&w);
	}
	pgas__copy(bb + PGAS_CACHELINE, buf, nbytes);
	PGAS__XPROC_RELEASE(&bh->busy);
	rc = am_send(ep, chan, eid, PGAS_MSG_MEDIUM_BOUNCE, handler, args, nargs, &ref,
		     sizeof(ref), NULL, 0, imm, NULL);
	if (rc)		/* not sent: the buffer is ours to give back */
		atomic_store_explicit((_Atomic uint32_t *)&bh->busy, 0, memory_order_release);
	return rc;
}

static int long_(struct pgas__state *ep, const char *call, unsigned chan, unsigned eid,
		 unsigned handler, const void *buf, size_t nbytes, void *dst,
		 const uint32_t *args, unsigned nargs)
{
	struct pgas_long_ref ref = { (uint64_t)(uintptr_t)dst, nbytes };
	char *d;
	bool imm;
	int rc = check_am(ep, call, chan, eid, &handler, args, nargs, &imm);
	unsigned rank;

	if (rc)
		return rc;
	if (!buf && nbytes)
		return pgas__err(PGAS_ERR_INVAL, call, "buf is NULL but nbytes is %zu", nbytes);
	rank = pgas__peer_of(ep, chan, eid)->owner;	/* the payload goes to its owner's segment */
	if (!pgas__rank_mapped(rank))	/* the payload travels in messages (rma_ref.c) */
		return sent(pgas__ref_long(ep, call, chan, eid, rank, handler, buf, nbytes, dst,
					   args, nargs, imm), chan, 2, handler, eid, nbytes);
	if (!pgas__ep_map(ep, rank, dst, nbytes, &d))
		return pgas__rma_fail(call, rank, dst, nbytes);
	/* An immediate Long: am_send copies the payload once it holds the
	 * slots (a refused one writes nothing).  A plain one copies first, so
	 * that its reserved slots do not hold the target's ring (and every
	 * message behind them) for the copy.  am_send's release store orders
	 * the payload before the header. */
	if (!imm)
		pgas__copy(d, buf, nbytes);
	return sent(am_send(ep, chan, eid, PGAS_MSG_LONG, handler, args, nargs, &ref, sizeof(ref),
			    NULL, 0, imm, imm ? &(const struct long_copy){ d, buf, nbytes } : NULL),
		    chan, 2, handler, eid, nbytes);
}

int pgas_ep_am_request_medium(pgas_ep_t ep, unsigned eid, unsigned handler, const void *buf,
			      size_t nbytes, const uint32_t *args, unsigned nargs)
{
	return medium(ep, pgas__is_primary(ep) ? "pgas_am_request_medium" :
		      "pgas_ep_am_request_medium", PGAS_CHAN_REQUEST, eid, handler, buf, nbytes,
		      args, nargs);
}

int pgas_ep_am_request_long(pgas_ep_t ep, unsigned eid, unsigned handler, const void *buf,
			    size_t nbytes, void *dst, const uint32_t *args, unsigned nargs)
{
	return long_(ep, pgas__is_primary(ep) ? "pgas_am_request_long" : "pgas_ep_am_request_long",
		     PGAS_CHAN_REQUEST, eid, handler, buf, nbytes, dst, args, nargs);
}

int pgas_ep_am_request_long_async(pgas_ep_t ep, unsigned eid, unsigned handler,
				  const void *buf, size_t nbytes, void *dst,
				  const uint32_t *args, unsigned nargs)
{
	return long_(ep, pgas__is_primary(ep) ? "pgas_am_request_long_async" :
		     "pgas_ep_am_request_long_async", PGAS_CHAN_REQUEST, eid, handler, buf,
		     nbytes, dst, args, nargs);
}

int pgas_am_request_medium(unsigned rank, unsigned handler, const void *buf, size_t nbytes,
			   const uint32_t *args, unsigned nargs)
{
	return pgas_ep_am_request_medium(&pgas__g, rank, handler, buf, nbytes, args, nargs);
}

int pgas_am_request_long(unsigned rank, unsigned handler, const void *buf, size_t nbytes,
			 void *dst, const uint32_t *args, unsigned nargs)
{
	return pgas_ep_am_request_long(&pgas__g, rank, handler, buf, nbytes, dst, args, nargs);
}

int pgas_am_request_long_async(unsigned rank, unsigned handler, const void *buf,
			       size_t nbytes, void *dst, const uint32_t *args, unsigned nargs)
{
	return pgas_ep_am_request_long_async(&pgas__g, rank, handler, buf, nbytes, dst, args,
					     nargs);
}

/* Checks a reply token; on success marks it used. */
static int take_token(const char *call, pgas_token_t token)
{
	if (!token)
		return pgas__err(PGAS_ERR_INVAL, call, "token is NULL");
	if (!pgas__self.handler_depth)
		return pgas__err(PGAS_ERR_STATE, call, "called outside a handler");
	if (token->chan != PGAS_CHAN_REQUEST)
		return pgas__err(PGAS_ERR_STATE, call,
				 "called from a reply handler (replies cannot be answered)");
	if (token->replied)
		return pgas__err(PGAS_ERR_STATE, call,
				 "second reply to the same request from endpoint %u", token->src);
	return PGAS_OK;
}

/*
 * The common reply: a Short of one slot, from a handler of a request, to
 * a live sender, with a registered handler.  It goes as the inline request
 * goes (a ticket, the slot, its status); every check the general path makes
 * holds by then (the token's endpoint polls, so it lives; its sender was
 * resolved when the request was taken).  The general path took 190
 * instructions more (check_am, am_send's pieces).
 */
static inline bool reply_short_plain(pgas_token_t token, unsigned handler,
				     const uint32_t *args, unsigned nargs)
{
	return token && token->from && token->chan == PGAS_CHAN_REQUEST && !token->replied &&
	       pgas__self.handler_depth && handler - 1u < PGAS_MAX_HANDLERS - 1u &&
	       token->ep->handlers[handler] && nargs <= PGAS_SLOT_PAYLOAD / 4 &&
	       (args || !nargs) &&
	       __atomic_load_n(&token->from->state, __ATOMIC_ACQUIRE) == PGAS__PEER_LIVE;
}

static int reply_short_send(pgas_token_t token, unsigned handler, const uint32_t *args,
			    unsigned nargs)
{
	uint64_t t;

	if (PGAS__UNLIKELY(!pgas__am_short_try(token->ep, token->from, PGAS_CHAN_REPLY, handler,
					       args, nargs, 1, &t))) {
		int rc = short_wait_write(token->ep, PGAS_CHAN_REPLY, token->src, handler, args,
					  nargs, t);

		if (rc)
			return rc;
	}
	token->replied = true;
	return PGAS_OK;
}

int pgas_am_reply_short(pgas_token_t token, unsigned handler, const uint32_t *args,
			unsigned nargs)
{
	static const char call[] = "pgas_am_reply_short";
	int rc;
	bool imm;

	if (PGAS__LIKELY(reply_short_plain(token, handler, args, nargs)))
		return sent(reply_short_send(token, handler, args, nargs), PGAS_CHAN_REPLY, 0,
			    handler, token->src, nargs * 4u);
	rc = take_token(call, token);

	if (!rc)
		rc = check_am(token->ep, call, PGAS_CHAN_REPLY, token->src, &handler, args, nargs,
			      &imm);
	if (!rc)
		rc = sent(am_send(token->ep, PGAS_CHAN_REPLY, token->src, PGAS_MSG_SHORT, handler,
				  args, nargs, NULL, 0, NULL, 0, imm, NULL), PGAS_CHAN_REPLY, 0,
			  handler, token->src, nargs * 4u);
	if (!rc)
		token->replied = true;
	return rc;
}

int pgas_am_reply_medium(pgas_token_t token, unsigned handler, const void *buf,
			 size_t nbytes, const uint32_t *args, unsigned nargs)
{
	static const char call[] = "pgas_am_reply_medium";
	int rc = take_token(call, token);

	if (!rc)
		rc = medium(token->ep, call, PGAS_CHAN_REPLY, token->src, handler, buf, nbytes,
			    args, nargs);
	if (!rc)
		token->replied = true;
	return rc;
}

int pgas_am_reply_long(pgas_token_t token, unsigned handler, const void *buf, size_t nbytes,
		       void *dst, const uint32_t *args, unsigned nargs)
{
	static const char call[] = "pgas_am_reply_long";
	int rc = take_token(call, token);

	if (!rc)
		rc = long_(token->ep, call, PGAS_CHAN_REPLY, token->src, handler, buf, nbytes, dst,
			   args, nargs);
	if (!rc)
		token->replied = true;
	return rc;
}

int pgas_token_rank(pgas_token_t token, unsigned *rank)
{
	if (!token || !rank)
		return pgas__err(PGAS_ERR_INVAL, "pgas_token_rank", "%s is NULL",
				 token ? "rank" : "token");
	*rank = pgas__peer_of(token->ep, PGAS_CHAN_REPLY, token->src)->owner;
	return PGAS_OK;
}

int pgas_token_ep(pgas_token_t token, unsigned *eid)
{
	if (!token || !eid)
		return pgas__err(PGAS_ERR_INVAL, "pgas_token_ep", "%s is NULL",
				 token ? "eid" : "token");
	*eid = token->src;
	return PGAS_OK;
}

size_t pgas_am_max_medium(void)
{
	return pgas__cfg.max_medium;
}

size_t pgas_am_medium_inline_max(unsigned nargs)
{
	size_t aend = args_end(PGAS_MSG_MEDIUM, nargs > PGAS_AM_MAX_ARGS ? PGAS_AM_MAX_ARGS : nargs);
	size_t max = pgas__cfg.packet_max > aend ? pgas__cfg.packet_max - aend : 0;

	return max < pgas__cfg.max_medium ? max : pgas__cfg.max_medium;
}

size_t pgas_am_max_long(unsigned rank)
{
	return pgas_segment_size(rank);
}

/* ---- receiving ----------------------------------------------------------- */

/*
 * The sender's reply entry: its owner (for the bounce area and the token)
 * and its rings (for the reply), resolved if this endpoint has not met it.
 */
static inline __attribute__((always_inline)) struct pgas__peer *
sender_of(struct pgas__state *ep, unsigned src)
{
	struct pgas__peer *from = pgas__peer_of(ep, PGAS_CHAN_REPLY, src);

	if (PGAS__UNLIKELY(__atomic_load_n(&from->state, __ATOMIC_ACQUIRE) != PGAS__PEER_LIVE) &&
	    pgas__ep_peer(ep, PGAS_CHAN_REPLY, src, &from) && from->owner >= ep->nranks)
		pgas__fatal("message from endpoint %u, which no rank created", src);
	return from;
}

/* Consumes the message's k slots, runs its handler, gives the slots back. */
static inline __attribute__((always_inline)) void
run_handler(struct pgas__state *ep, unsigned chan, struct pgas_token *tok, unsigned k,
	    pgas_handler_fn fn, void *buf, size_t nbytes, const unsigned char *body, unsigned nargs)
{
	struct pgas__inbox *in = &ep->inbox[chan];

	/*
	 * Consumed here before the handler runs, published to the senders
	 * after it: a handler that calls pgas_exit(0) never returns, and the
	 * finalize then publishes it (pgas__am_abandon_handlers).
	 */
	/* Atomics: other threads peek at them (pgas__ep_msgs_waiting) and
	 * count my head (pgas__am_job_idle) without the poller's place. */
	__atomic_store_n(&in->head, in->head + k, __ATOMIC_RELEASE);
	__atomic_store_n(&in->lap, pgas__ep_lap(ep, in->head), __ATOMIC_RELAXED);
	__atomic_store_n(&in->next, &in->slots[in->head & ep->mbox_mask], __ATOMIC_RELAXED);
	ep->priv->handling[chan] = tok;
	fn(tok, buf, nbytes, (const uint32_t *)body, nargs);
	ep->priv->handling[chan] = NULL;

	if (tok->bounce)
		atomic_store_explicit((_Atomic uint32_t *)&tok->bounce->busy, 0, memory_order_release);
	atomic_store_explicit((_Atomic uint64_t *)&ep->my_ctrl->mbox[chan].head, in->head,
			      memory_order_release);
}

/* PGAS_STATS, PGAS_TRACE: a message handled here (handler 0: the library's). */
static void received(unsigned chan, unsigned type, unsigned handler, unsigned src, size_t n)
{
	unsigned kind = type == PGAS_MSG_SHORT ? 0 : type == PGAS_MSG_LONG ? 2 : 1;

	pgas__ev(handler ? am_ev(PGAS__EV_RECV_SHORT_REQ, kind, chan) : PGAS__EV_RECV_LIB, src, n);
}

/* Handles the message at the head of ep's ring 'chan' (its status s). */
static int handle_one(struct pgas__state *ep, unsigned chan, uint64_t s)
{
	struct pgas__inbox *in = &ep->inbox[chan];
	struct pgas_token tok = { PGAS_STATUS_SRC(s), chan, false, NULL, ep, NULL };
	struct pgas__peer *from;
	unsigned type, len, nargs, handler, k;
	pgas_handler_fn fn;
	unsigned char *body;
	void *buf = NULL;
	size_t nbytes = 0, aend;

	type = PGAS_STATUS_TYPE(s);
	len = PGAS_STATUS_LEN(s);
	nargs = PGAS_STATUS_NARGS(s);
	handler = PGAS_STATUS_HANDLER(s);
	k = len <= PGAS_SLOT_PAYLOAD ? 1 : (len + PGAS_SLOT_PAYLOAD - 1) / PGAS_SLOT_PAYLOAD;
	aend = args_end(type, nargs);
	/* Handler 0: the library's own (the remote data path, the collectives), never a user's. */
	fn = handler ? ep->handlers[handler] : lib_dispatch;
	if (k == 1) {
		body = in->next->payload;
	} else {
		if (len > body_limit())
			pgas__fatal("message of %u bytes from rank %u exceeds the %zu-byte limit",
				    len, tok.src, body_limit());
		body = ep->priv->body_buf[chan];
		for (unsigned i = 0; i < k; i++) {
			size_t off = (size_t)i * PGAS_SLOT_PAYLOAD;
			size_t n = len - off < PGAS_SLOT_PAYLOAD ? len - off : PGAS_SLOT_PAYLOAD;

			memcpy(body + off, in->slots[(in->head + i) & ep->mbox_mask].payload, n);
		}
	}
	if (tok.src >= ep->ntargets || !fn || nargs > PGAS_AM_MAX_ARGS || aend > len)
		pgas__fatal("bad message on %s ring: src %u handler %u nargs %u len %u",
			    chan ? "reply" : "request", tok.src, handler, nargs, len);
	from = sender_of(ep, tok.src);
	tok.from = from;
	switch (type) {
	case PGAS_MSG_SHORT:
		break;
	case PGAS_MSG_MEDIUM:
		buf = body + aend;
		nbytes = len - aend;
		break;
	case PGAS_MSG_MEDIUM_BOUNCE: {
		struct pgas_bounce_ref ref;
		const struct pgas_geometry *geo = &pgas__job.conduit.geo;

		memcpy(&ref, body + aend, sizeof(ref));
		if (ref.index >= geo->bounce_bufs || ref.nbytes > geo->bounce_size)
			pgas__fatal("bad bounce reference %u/%u from rank %u", ref.index,
				    ref.nbytes, tok.src);
		tok.bounce = (struct pgas_bounce_hdr *)pgas_bounce_buf(
				ep->priv == &pgas__ep0_priv ? pgas__g.peers[pgas__g.rank].bounce :
				ep->priv->xep.ring.bounce, geo, from->owner, chan, ref.index);
		buf = (unsigned char *)tok.bounce + PGAS_CACHELINE;
		nbytes = ref.nbytes;
		break;
	}
	case PGAS_MSG_LONG: {
		struct pgas_long_ref ref;

		memcpy(&ref, body + aend, sizeof(ref));
		buf = (void *)(uintptr_t)ref.addr;
		nbytes = (size_t)ref.nbytes;
		break;
	}
	default:
		pgas__fatal("unknown message type %u from rank %u", type, tok.src);
	}
	if (PGAS__UNLIKELY(pgas__notes_on))
		received(chan, type, handler, tok.src, type == PGAS_MSG_SHORT ? nargs * 4u : nbytes);
	run_handler(ep, chan, &tok, k, fn, buf, nbytes, body, nargs);
	return 1;
}

/*
 * The common message, a Short of one slot for a user's handler whose
 * status is what a sender writes (length nargs * 4): the general decoding
 * left out, and a function of few registers.  Anything else, the general
 * path judges.
 */
static int handle_short(struct pgas__state *ep, unsigned chan, uint64_t s)
{
	struct pgas_token tok = { PGAS_STATUS_SRC(s), chan, false, NULL, ep, NULL };
	unsigned nargs = PGAS_STATUS_NARGS(s);
	pgas_handler_fn fn = ep->handlers[PGAS_STATUS_HANDLER(s)];

	/* 15 and 16 args take two slots: the general path. */
	if (PGAS__UNLIKELY(tok.src >= ep->ntargets || !fn || nargs > PGAS_SLOT_PAYLOAD / 4 ||
			   PGAS_STATUS_LEN(s) != nargs * 4))
		return handle_one(ep, chan, s);
	tok.from = sender_of(ep, tok.src);
	if (PGAS__UNLIKELY(pgas__notes_on))
		received(chan, PGAS_MSG_SHORT, 1, tok.src, nargs * 4u);
	run_handler(ep, chan, &tok, 1, fn, NULL, 0, ep->inbox[chan].next->payload, nargs);
	return 1;
}

/* Handles the message at the head of ep's ring 'chan'; 0 if there is none. */
static inline __attribute__((always_inline)) int handle_next(struct pgas__state *ep,
							    unsigned chan)
{
	struct pgas__inbox *in = &ep->inbox[chan];
	uint64_t s;

	/* An empty ring is seen before any call: a call's entry and exit cost
	 * more than the look (twice per message handled, 90 instructions). */
	if (!pgas__inbox_waiting(in))
		return 0;
	s = atomic_load_explicit((_Atomic uint64_t *)&in->next->status, memory_order_acquire);
	if ((s & 0xffffu) != in->lap)
		return 0;
	if (PGAS_STATUS_TYPE(s) == PGAS_MSG_SHORT && PGAS_STATUS_HANDLER(s))
		return handle_short(ep, chan, s);
	return handle_one(ep, chan, s);
}

/* One endpoint's part of it; *owed: 1 + the requester's rank, if any. */
static void abandon_ep(struct pgas__state *ep, unsigned *owed)
{
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++) {
		struct pgas_token *tok = ep->priv->handling[ch];

		if (!tok)
			continue;
		if (ch == PGAS_CHAN_REQUEST && !tok->replied)	/* src is an eid */
			*owed = pgas__peer_of(ep, PGAS_CHAN_REPLY, tok->src)->owner + 1;
		if (tok->bounce)
			atomic_store_explicit((_Atomic uint32_t *)&tok->bounce->busy, 0,
					      memory_order_release);
		ep->priv->handling[ch] = NULL;
		atomic_store_explicit((_Atomic uint64_t *)&ep->my_ctrl->mbox[ch].head,
				      ep->inbox[ch].head, memory_order_seq_cst);
	}
}

unsigned pgas__am_abandon_handlers(void)
{
	struct pgas__state *list[256];
	unsigned owed = 0, n = pgas__eps_mine(list, 256);

	abandon_ep(&pgas__g, &owed);
	for (unsigned i = 0; i < n; i++)	/* pgas_exit(0) in an endpoint's handler */
		abandon_ep(list[i], &owed);
	pgas__self.handler_depth = 0;
	pgas__g.send_block &= ~PGAS__BLOCK_HANDLER;
	return owed;
}

/*
 * Nothing in flight anywhere: the sum of every ring's head (slots whose
 * handler completed; mine as I consumed them, below), read first, equals the sum of
 * every tail (slots reserved by senders), read after.  Each head is at most
 * its tail, and heads and tails only grow, so equal sums mean every ring was
 * empty at the moment the last head was read.  Once every rank has left (or
 * every other one, for a rank that only waits), no request can be sent any
 * more and replies come only from handlers of requests: none can follow.
 */
bool pgas__am_job_idle(void)
{
	uint64_t heads = 0, tails = 0;
	struct pgas__peer **xs = NULL;
	unsigned nx = 0;
	/* My rings' heads as consumed where this thread runs the primary's
	 * handlers (below MULTIPLE, or it holds the progress lock): a handler
	 * it runs waits for nothing it consumed.  Else as published: a
	 * handler that runs in another thread is still in flight. */
	bool consumer = !pgas__mt() || pgas__self.plock_depth;

	if (pgas__ctl_msgs)	/* peers not mapped: by messages (ctl.c) */
		return pgas__ctl_idle();
	/* Extra endpoints count too, the same list for heads and tails (one
	 * created or destroyed since only makes the sums differ: not idle);
	 * the list is the caller's, as several threads may check at once. */
	if (pgas__g.ntargets > pgas__g.nranks) {
		xs = malloc(pgas__g.ntargets * sizeof(*xs));
		if (!xs)
			return false;
		nx = pgas__eps_job(xs, pgas__g.ntargets);
	}
	for (unsigned r = 0; r < pgas__g.nranks; r++)
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			heads += r == pgas__g.rank && consumer ?
				 __atomic_load_n(&pgas__g.inbox[ch].head, __ATOMIC_ACQUIRE) :
				 atomic_load_explicit(
					(_Atomic uint64_t *)&pgas__g.peers[r].ctrl->mbox[ch].head,
					memory_order_seq_cst);
	for (unsigned i = 0; i < nx; i++)
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			heads += atomic_load_explicit((_Atomic uint64_t *)&xs[i]->ctrl->mbox[ch].head,
						      memory_order_seq_cst);
	for (unsigned r = 0; r < pgas__g.nranks; r++)
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			tails += atomic_load_explicit(
				(_Atomic uint64_t *)&pgas__g.peers[r].ctrl->mbox[ch].tail,
				memory_order_seq_cst);
	for (unsigned i = 0; i < nx; i++)
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			tails += atomic_load_explicit((_Atomic uint64_t *)&xs[i]->ctrl->mbox[ch].tail,
						      memory_order_seq_cst);
	free(xs);
	return heads == tails;
}

/*
 * Runs up to budget messages.  The caller holds the progress lock at
 * MULTIPLE.  The thread counts as in a handler for the whole batch (no
 * code of the user's runs between two of its handlers): below MULTIPLE
 * its mirror in send_block is set once per batch, not per message.
 */
static inline __attribute__((always_inline)) int progress_ep(struct pgas__state *ep,
							    unsigned chan_mask, int budget)
{
	struct pgas__thread *me = &pgas__self;
	/*
	 * Below MULTIPLE the primary's send_block mirrors the calling thread's
	 * state, whichever endpoint's handlers it runs (the primary's inline
	 * calls read no TLS).  An extra endpoint's send_block stays 0: its
	 * sender may be another thread than its poller; its inline request
	 * reads the thread's handler depth itself.
	 */
	unsigned mirror = pgas__mt() ? 0 : PGAS__BLOCK_HANDLER;
	int n = 0;

	if (!me->handler_depth++ && mirror)
		pgas__g.send_block |= mirror;
	/* Replies first: they complete work and free the peers' credits. */
	if (chan_mask & PGAS__CHANMASK_REPLY)
		while (n < budget && handle_next(ep, PGAS_CHAN_REPLY))
			n++;
	if (chan_mask & (1u << PGAS_CHAN_REQUEST))
		while (n < budget && handle_next(ep, PGAS_CHAN_REQUEST))
			n++;
	if (!--me->handler_depth && mirror)
		pgas__g.send_block &= ~mirror;
	return n;
}

int pgas__ep_progress(struct pgas__state *ep, unsigned chan_mask, int budget)
{
	return progress_ep(ep, chan_mask, budget);
}

/* The primary's, with its address folded in (barrier_notify's count). */
int pgas__progress(unsigned chan_mask, int budget)
{
	return progress_ep(&pgas__g, chan_mask, budget);
}

int pgas__ep_poll_try(struct pgas__state *ep, unsigned chan_mask)
{
	struct pgas__ep_priv *x = ep->priv;
	void *me = &pgas__self, *none = NULL;
	int n;

	if (__atomic_load_n(&x->poller, __ATOMIC_RELAXED) == me)	/* from its handler */
		return pgas__ep_msgs_waiting(ep) ? pgas__ep_progress(ep, chan_mask, 64) : 0;
	if (!__atomic_compare_exchange_n(&x->poller, &none, me, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return 0;	/* another thread polls it */
	n = pgas__ep_progress(ep, chan_mask, 64);
	__atomic_store_n(&x->poller, NULL, __ATOMIC_RELEASE);
	return n;
}

int pgas__poll_locked(void)
{
	if (PGAS__UNLIKELY(pgas__pending() & PGAS__PENDING_CONDUIT))
		pgas__conduit_progress();
	pgas__barrier_progress();
	if (pgas__pending() & ~PGAS__PENDING_BARRIER)
		pgas__layers_progress();
	return progress_ep(&pgas__g, PGAS__CHANMASK_ALL, 64);
}

int pgas__serve_primary(void)
{
	unsigned mask = pgas__wait_chanmask();
	int n;

	if (!pgas__ctl_msgs || !mask || !pgas__msgs_waiting())
		return 0;
	if (!pgas__mt())
		return pgas__progress(mask, 64);
	if (!pgas__plock_try())
		return 0;	/* another thread polls it */
	n = pgas__progress(mask, 64);
	pgas__plock_release();
	return n;
}

int pgas__poll_slow(struct pgas__state *ep)
{
	static const char call[] = "pgas_poll";
	int rc;

	if (!pgas__job.attached)
		return pgas__check_attached(call);
	rc = pgas__check_thread(call);
	if (rc)
		return rc;
	if (!pgas__is_primary(ep)) {
		if (PGAS__UNLIKELY(pgas__pending() & PGAS__PENDING_CONDUIT))
			pgas__conduit_progress();	/* what arrives for ep, too */
		rc = pgas__check_ep("pgas_ep_poll", ep);
		if (rc)
			return rc;
		pgas__fep_progress(ep);
		rc = pgas__ep_poll_try(ep, PGAS__CHANMASK_ALL);
		if (ep->pending & PGAS__PENDING_PRIMARY)
			(void)pgas__serve_primary();
		return rc;
	}
	if (!pgas__mt())
		return pgas__poll_locked();
	/* Another thread is making progress: nothing for this one to do. */
	if (!pgas__plock_try())
		return 0;
	rc = pgas__poll_locked();
	pgas__plock_release();
	if (rc > 0)
		pgas__naps_wake();	/* a thread napping may wait for it */
	return rc;
}
