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

int pgas__am_setup(void)
{
	struct pgas_conduit *c = &pgas__job.conduit;

	pgas__g.mbox_mask = c->geo.mbox_slots - 1;
	pgas__g.mbox_shift = (uint32_t)__builtin_ctz(c->geo.mbox_slots);
	pgas__g.status_src = PGAS_STATUS(0, c->rank, 0, 0, 0, 0);
	pgas__g.my_ctrl = c->eps[c->rank].ctrl;
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++) {
		struct pgas__inbox *in = &pgas__g.inbox[ch];

		pgas__job.body_buf[ch] = aligned_alloc(PGAS_CACHELINE,
				PGAS__ALIGN_UP(body_limit(), PGAS_CACHELINE));
		if (!pgas__job.body_buf[ch])
			return pgas__err(PGAS_ERR_NOMEM, "pgas_attach", "no memory for AM buffers");
		in->slots = c->eps[c->rank].mbox[ch];
		in->head = 0;
		in->lap = pgas__lap(0);
		in->next = &in->slots[0];
	}
	return PGAS_OK;
}

void pgas__am_teardown(void)
{
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++) {
		free(pgas__job.body_buf[ch]);
		pgas__job.body_buf[ch] = NULL;
	}
}

unsigned pgas__wait_chanmask(void)
{
	if (pgas__self.hsl_held || !pgas__job.attached)
		return 0;
	return pgas__self.handler_depth ? PGAS__CHANMASK_REPLY : PGAS__CHANMASK_ALL;
}

void pgas__mbox_wait_space(unsigned rank, unsigned chan, uint64_t end)
{
	struct pgas__peer *p = &pgas__g.peers[rank];
	uint64_t nslots = (uint64_t)pgas__g.mbox_mask + 1;
	struct pgas__waiter w = { .nosleep = 1 };

	for (;;) {
		uint64_t h = atomic_load_explicit((_Atomic uint64_t *)&p->ctrl->mbox[chan].head,
						  memory_order_acquire);

		/* Relaxed atomic: threads of a MULTIPLE rank share the cache. */
		__atomic_store_n(&p->head_seen[chan], h, __ATOMIC_RELAXED);
		if (end <= nslots || h >= end - nslots)
			return;
		pgas__wait_step(&w);
	}
}

/* ---- sending ------------------------------------------------------------- */

struct piece {
	const void *ptr;
	size_t len;
};

static void write_body(struct pgas_mbox_slot *ring, uint64_t t,
		       const struct piece *pieces, unsigned npieces)
{
	size_t pos = 0;

	for (unsigned i = 0; i < npieces; i++) {
		const unsigned char *src = pieces[i].ptr;
		size_t left = pieces[i].len;

		while (left) {
			struct pgas_mbox_slot *s =
				&ring[(t + pos / PGAS_SLOT_PAYLOAD) & pgas__g.mbox_mask];
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
static bool reserve_now(struct pgas__peer *p, unsigned chan, unsigned k, uint64_t *t)
{
	_Atomic uint64_t *tail = (_Atomic uint64_t *)&p->ctrl->mbox[chan].tail;
	uint64_t nslots = (uint64_t)pgas__g.mbox_mask + 1;
	uint64_t tl = atomic_load_explicit(tail, memory_order_relaxed);

	for (;;) {
		uint64_t h = __atomic_load_n(&p->head_seen[chan], __ATOMIC_RELAXED);

		if (h > tl || tl + k - h > nslots) {
			h = atomic_load_explicit((_Atomic uint64_t *)&p->ctrl->mbox[chan].head,
						 memory_order_acquire);
			__atomic_store_n(&p->head_seen[chan], h, __ATOMIC_RELAXED);
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
static int am_send(unsigned chan, unsigned rank, unsigned type, unsigned handler,
		   const uint32_t *args, unsigned nargs, const void *trailer, size_t tlen,
		   const void *payload, size_t plen, bool imm, const struct long_copy *lcopy)
{
	struct pgas__peer *p = &pgas__g.peers[rank];
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
		if (!reserve_now(p, chan, k, &t))
			return PGAS_ERR_NOT_READY;
	} else {
		t = atomic_fetch_add_explicit((_Atomic uint64_t *)&p->ctrl->mbox[chan].tail, k,
					      memory_order_relaxed);
		if (t + k - 1 - __atomic_load_n(&p->head_seen[chan], __ATOMIC_RELAXED) >
		    pgas__g.mbox_mask)
			pgas__mbox_wait_space(rank, chan, t + k);
	}
	if (lcopy)
		pgas__copy(lcopy->dst, lcopy->src, lcopy->n);
	write_body(ring, t, pieces, 4);
	for (unsigned i = 1; i < k; i++)
		atomic_store_explicit((_Atomic uint64_t *)&ring[(t + i) & pgas__g.mbox_mask].status,
				      PGAS_STATUS(pgas__lap(t + i), 0, 0, 0, PGAS_MSG_CONT, 0),
				      memory_order_relaxed);
	atomic_store_explicit((_Atomic uint64_t *)&ring[t & pgas__g.mbox_mask].status,
			      pgas__g.status_src | pgas__lap(t) |
			      PGAS_STATUS(0, 0, len, nargs, type, handler),
			      memory_order_release);
	if (pgas__g.wake)
		pgas__ring_doorbell(p->ctrl);
	return PGAS_OK;
}

/*
 * Validation shared by every AM call; chan tells request from reply.
 * *handler loses its PGAS_AM_IMMEDIATE bit, which *imm receives.
 */
static int check_am(const char *call, unsigned chan, unsigned rank, unsigned *handler_,
		    const uint32_t *args, unsigned nargs, bool *imm)
{
	int rc = pgas__check_rank(call, rank);
	unsigned handler = *handler_ & ~PGAS_AM_IMMEDIATE;

	*imm = *handler_ & PGAS_AM_IMMEDIATE;
	*handler_ = handler;
	if (rc)
		return rc;
	if (handler == 0 || handler >= PGAS_MAX_HANDLERS)
		return pgas__err(PGAS_ERR_HANDLER, call,
				 "handler index %u out of range 1..%d (0 is reserved)",
				 handler, PGAS_MAX_HANDLERS - 1);
	if (!pgas__g.handlers[handler])
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

int pgas__am_short_slow(unsigned rank, unsigned handler, const uint32_t *args, unsigned nargs)
{
	bool imm;
	int rc = check_am("pgas_am_request_short", PGAS_CHAN_REQUEST, rank, &handler, args, nargs,
			  &imm);

	if (rc)
		return rc;
	if (nargs <= PGAS_SLOT_PAYLOAD / 4 && !imm) {	/* one slot: as the inline call sends */
		pgas__am_short_send(rank, handler, args, nargs, 1);
		return PGAS_OK;
	}
	return am_send(PGAS_CHAN_REQUEST, rank, PGAS_MSG_SHORT, handler, args, nargs, NULL, 0,
		       NULL, 0, imm, NULL);
}

static int medium(const char *call, unsigned chan, unsigned rank, unsigned handler,
		  const void *buf, size_t nbytes, const uint32_t *args, unsigned nargs)
{
	struct pgas__peer *p;
	const struct pgas_geometry *geo = &pgas__job.conduit.geo;
	struct pgas_bounce_ref ref;
	struct pgas_bounce_hdr *bh;
	unsigned char *bb;
	bool imm;
	int rc = check_am(call, chan, rank, &handler, args, nargs, &imm);

	if (rc)
		return rc;
	if (!buf && nbytes)
		return pgas__err(PGAS_ERR_INVAL, call, "buf is NULL but nbytes is %zu", nbytes);
	if (nbytes > pgas__cfg.max_medium)
		return pgas__err(PGAS_ERR_SIZE, call, "nbytes %zu > pgas_am_max_medium() = %u",
				 nbytes, pgas__cfg.max_medium);
	if (args_end(PGAS_MSG_MEDIUM, nargs) + nbytes <= pgas__cfg.packet_max)
		return am_send(chan, rank, PGAS_MSG_MEDIUM, handler, args, nargs, NULL, 0, buf,
			       nbytes, imm, NULL);
	p = &pgas__g.peers[rank];
	/* Threads of a MULTIPLE rank may send at once: the cursor is a
	 * counter, and a buffer is claimed 0 -> 1 (the target frees it). */
	ref.index = __atomic_fetch_add(&p->bounce_next[chan], 1, __ATOMIC_RELAXED) %
		    geo->bounce_bufs;
	ref.nbytes = (uint32_t)nbytes;
	bb = pgas_bounce_buf(p->bounce, geo, pgas__g.rank, chan, ref.index);
	bh = (struct pgas_bounce_hdr *)bb;
	for (struct pgas__waiter w = { .nosleep = 1 };;) {
		uint32_t free_ = 0;

		if (atomic_compare_exchange_strong_explicit((_Atomic uint32_t *)&bh->busy, &free_,
							    1, memory_order_acquire,
							    memory_order_relaxed))
			break;
		if (imm)
			return PGAS_ERR_NOT_READY;
		pgas__wait_step(&w);
	}
	pgas__copy(bb + PGAS_CACHELINE, buf, nbytes);
	rc = am_send(chan, rank, PGAS_MSG_MEDIUM_BOUNCE, handler, args, nargs, &ref, sizeof(ref),
		     NULL, 0, imm, NULL);
	if (rc)		/* not sent: the buffer is ours to give back */
		atomic_store_explicit((_Atomic uint32_t *)&bh->busy, 0, memory_order_release);
	return rc;
}

static int long_(const char *call, unsigned chan, unsigned rank, unsigned handler,
		 const void *buf, size_t nbytes, void *dst, const uint32_t *args,
		 unsigned nargs)
{
	struct pgas_long_ref ref = { (uint64_t)(uintptr_t)dst, nbytes };
	char *d;
	bool imm;
	int rc = check_am(call, chan, rank, &handler, args, nargs, &imm);

	if (rc)
		return rc;
	if (!buf && nbytes)
		return pgas__err(PGAS_ERR_INVAL, call, "buf is NULL but nbytes is %zu", nbytes);
	d = pgas__xlate(rank, dst, nbytes);
	if (!d)
		return pgas__rma_fail(call, rank, dst, nbytes);
	/* An immediate Long: am_send copies the payload once it holds the
	 * slots (a refused one writes nothing).  A plain one copies first, so
	 * that its reserved slots do not hold the target's ring (and every
	 * message behind them) for the copy.  am_send's release store orders
	 * the payload before the header. */
	if (!imm)
		pgas__copy(d, buf, nbytes);
	return am_send(chan, rank, PGAS_MSG_LONG, handler, args, nargs, &ref, sizeof(ref), NULL,
		       0, imm, imm ? &(const struct long_copy){ d, buf, nbytes } : NULL);
}

int pgas_am_request_medium(unsigned rank, unsigned handler, const void *buf, size_t nbytes,
			   const uint32_t *args, unsigned nargs)
{
	return medium("pgas_am_request_medium", PGAS_CHAN_REQUEST, rank, handler, buf, nbytes,
		      args, nargs);
}

int pgas_am_request_long(unsigned rank, unsigned handler, const void *buf, size_t nbytes,
			 void *dst, const uint32_t *args, unsigned nargs)
{
	return long_("pgas_am_request_long", PGAS_CHAN_REQUEST, rank, handler, buf, nbytes, dst,
		     args, nargs);
}

int pgas_am_request_long_async(unsigned rank, unsigned handler, const void *buf,
			       size_t nbytes, void *dst, const uint32_t *args, unsigned nargs)
{
	return long_("pgas_am_request_long_async", PGAS_CHAN_REQUEST, rank, handler, buf, nbytes,
		     dst, args, nargs);
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
				 "second reply to the same request from rank %u", token->src);
	return PGAS_OK;
}

int pgas_am_reply_short(pgas_token_t token, unsigned handler, const uint32_t *args,
			unsigned nargs)
{
	static const char call[] = "pgas_am_reply_short";
	int rc = take_token(call, token);
	bool imm;

	if (!rc)
		rc = check_am(call, PGAS_CHAN_REPLY, token->src, &handler, args, nargs, &imm);
	if (!rc)
		rc = am_send(PGAS_CHAN_REPLY, token->src, PGAS_MSG_SHORT, handler, args, nargs,
			     NULL, 0, NULL, 0, imm, NULL);
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
		rc = medium(call, PGAS_CHAN_REPLY, token->src, handler, buf, nbytes, args, nargs);
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
		rc = long_(call, PGAS_CHAN_REPLY, token->src, handler, buf, nbytes, dst, args,
			   nargs);
	if (!rc)
		token->replied = true;
	return rc;
}

int pgas_token_rank(pgas_token_t token, unsigned *rank)
{
	if (!token || !rank)
		return pgas__err(PGAS_ERR_INVAL, "pgas_token_rank", "%s is NULL",
				 token ? "rank" : "token");
	*rank = token->src;
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

/* Handles the message at the head of my ring 'chan'; 0 if there is none. */
static int handle_one(unsigned chan)
{
	struct pgas__inbox *in = &pgas__g.inbox[chan];
	uint64_t s = atomic_load_explicit((_Atomic uint64_t *)&in->next->status,
					  memory_order_acquire);
	struct pgas_token tok = { PGAS_STATUS_SRC(s), chan, false, NULL };
	unsigned type, len, nargs, handler, k;
	pgas_handler_fn fn;
	unsigned char *body;
	void *buf = NULL;
	size_t nbytes = 0, aend;

	if ((s & 0xffffu) != in->lap)
		return 0;
	type = PGAS_STATUS_TYPE(s);
	len = PGAS_STATUS_LEN(s);
	nargs = PGAS_STATUS_NARGS(s);
	handler = PGAS_STATUS_HANDLER(s);
	k = len <= PGAS_SLOT_PAYLOAD ? 1 : (len + PGAS_SLOT_PAYLOAD - 1) / PGAS_SLOT_PAYLOAD;
	aend = args_end(type, nargs);
	fn = pgas__g.handlers[handler];
	if (k == 1) {
		body = in->next->payload;
	} else {
		if (len > body_limit())
			pgas__fatal("message of %u bytes from rank %u exceeds the %zu-byte limit",
				    len, tok.src, body_limit());
		body = pgas__job.body_buf[chan];
		for (unsigned i = 0; i < k; i++) {
			size_t off = (size_t)i * PGAS_SLOT_PAYLOAD;
			size_t n = len - off < PGAS_SLOT_PAYLOAD ? len - off : PGAS_SLOT_PAYLOAD;

			memcpy(body + off, in->slots[(in->head + i) & pgas__g.mbox_mask].payload, n);
		}
	}
	if (tok.src >= pgas__g.nranks || !fn || nargs > PGAS_AM_MAX_ARGS || aend > len)
		pgas__fatal("bad message on %s ring: src %u handler %u nargs %u len %u",
			    chan ? "reply" : "request", tok.src, handler, nargs, len);
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
				pgas__g.peers[pgas__g.rank].bounce, geo, tok.src, chan, ref.index);
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

	/*
	 * Consumed here before the handler runs, published to the senders
	 * after it: a handler that calls pgas_exit(0) never returns, and the
	 * finalize then publishes it (pgas__am_abandon_handlers).
	 */
	in->head += k;
	in->lap = pgas__lap(in->head);
	in->next = &in->slots[in->head & pgas__g.mbox_mask];
	pgas__job.handling[chan] = &tok;
	fn(&tok, buf, nbytes, (const uint32_t *)body, nargs);
	pgas__job.handling[chan] = NULL;

	if (tok.bounce)
		atomic_store_explicit((_Atomic uint32_t *)&tok.bounce->busy, 0, memory_order_release);
	atomic_store_explicit((_Atomic uint64_t *)&pgas__g.my_ctrl->mbox[chan].head, in->head,
			      memory_order_release);
	return 1;
}

unsigned pgas__am_abandon_handlers(void)
{
	unsigned owed = 0;

	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++) {
		struct pgas_token *tok = pgas__job.handling[ch];

		if (!tok)
			continue;
		if (ch == PGAS_CHAN_REQUEST && !tok->replied)
			owed = tok->src + 1;
		if (tok->bounce)
			atomic_store_explicit((_Atomic uint32_t *)&tok->bounce->busy, 0,
					      memory_order_release);
		pgas__job.handling[ch] = NULL;
		atomic_store_explicit((_Atomic uint64_t *)&pgas__g.my_ctrl->mbox[ch].head,
				      pgas__g.inbox[ch].head, memory_order_seq_cst);
	}
	pgas__self.handler_depth = 0;
	pgas__g.send_block &= ~PGAS__BLOCK_HANDLER;
	return owed;
}

/*
 * Nothing in flight anywhere: the sum of every ring's head (slots whose
 * handler completed; mine as I consumed them), read first, equals the sum of
 * every tail (slots reserved by senders), read after.  Each head is at most
 * its tail, and heads and tails only grow, so equal sums mean every ring was
 * empty at the moment the last head was read.  Once every rank has left (or
 * every other one, for a rank that only waits), no request can be sent any
 * more and replies come only from handlers of requests: none can follow.
 */
bool pgas__am_job_idle(void)
{
	uint64_t heads = 0, tails = 0;

	for (unsigned r = 0; r < pgas__g.nranks; r++)
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			heads += r == pgas__g.rank ? pgas__g.inbox[ch].head :
				 atomic_load_explicit(
					(_Atomic uint64_t *)&pgas__g.peers[r].ctrl->mbox[ch].head,
					memory_order_seq_cst);
	for (unsigned r = 0; r < pgas__g.nranks; r++)
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			tails += atomic_load_explicit(
				(_Atomic uint64_t *)&pgas__g.peers[r].ctrl->mbox[ch].tail,
				memory_order_seq_cst);
	return heads == tails;
}

/*
 * Runs up to budget messages.  The caller holds the progress lock at
 * MULTIPLE.  The thread counts as in a handler for the whole batch (no
 * code of the user's runs between two of its handlers): below MULTIPLE
 * its mirror in send_block is set once per batch, not per message.
 */
int pgas__progress(unsigned chan_mask, int budget)
{
	struct pgas__thread *me = &pgas__self;
	unsigned mirror = pgas__mt() ? 0 : PGAS__BLOCK_HANDLER;
	int n = 0;

	if (!me->handler_depth++ && mirror)
		pgas__g.send_block |= mirror;
	/* Replies first: they complete work and free the peers' credits. */
	if (chan_mask & PGAS__CHANMASK_REPLY)
		while (n < budget && handle_one(PGAS_CHAN_REPLY))
			n++;
	if (chan_mask & (1u << PGAS_CHAN_REQUEST))
		while (n < budget && handle_one(PGAS_CHAN_REQUEST))
			n++;
	if (!--me->handler_depth && mirror)
		pgas__g.send_block &= ~mirror;
	return n;
}

int pgas__poll_locked(void)
{
	pgas__barrier_progress();
	if (pgas__pending() & ~PGAS__PENDING_BARRIER)
		pgas__layers_progress();
	return pgas__progress(PGAS__CHANMASK_ALL, 64);
}

int pgas__poll_slow(void)
{
	static const char call[] = "pgas_poll";
	int rc;

	if (!pgas__job.attached)
		return pgas__check_attached(call);
	rc = pgas__check_thread(call);
	if (rc)
		return rc;
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
