// SPDX-License-Identifier: MIT
/*
 * ep.c - endpoints beyond a rank's primary (pgas.h, "endpoints").
 *
 * An endpoint is a struct pgas__state of its own: its rings (made by the
 * conduit's ep_open), inbox, handler table, nbi counters and a table of
 * every eid it may send to, whose entries carry its sender caches.  Nothing
 * of it is written by another endpoint's thread on the fast path.
 *
 * Addressing: eids 0..nranks-1 are the primaries, the others are created
 * by the ranks over the job's life (the conduit says which number; eids
 * are never reused).  Each rank lists its endpoints, in creation order, in
 * its rank-state page (written by it only): that directory is how any rank
 * learns who owns an eid and whether it still lives, without a job-wide
 * step.  An endpoint meets an eid lazily: its table entry starts with a
 * dummy ring whose credit cache sends the first request out of line
 * (pgas__mbox_wait_space), which resolves the eid here; the conduit maps
 * the eid's rings once per process (the domain's table below) and each
 * endpoint copies the mapping into its own entry.
 *
 * Replies leave an extra endpoint from a second table (priv->rpeers) that
 * only its poller writes, so that a progress thread's replies never write
 * an entry that the endpoint's sending thread reads.
 *
 * Lock order: ep_lock (this file) is taken with nothing else held but,
 * at MULTIPLE, the progress lock; the conduit's ep ops run under it.
 */
#include <pthread.h>
#include <stdlib.h>
#include "internal.h"

struct pgas__ep_priv pgas__ep0_priv;

/* What this process knows of an eid beyond the primaries. */
struct eid_info {
	unsigned char state;		/* PGAS__PEER_*, written under ep_lock */
	unsigned owner;
	struct pgas_conduit_xep xep;	/* mapped here when LIVE (not one of mine) */
	bool mine;
};

static pthread_mutex_t ep_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local unsigned ep_lock_depth;	/* this thread's holds: recursive */

static void ep_lock_take(void)
{
	if (!ep_lock_depth++)
		pthread_mutex_lock(&ep_lock);
}

static void ep_lock_give(void)
{
	if (!--ep_lock_depth)
		pthread_mutex_unlock(&ep_lock);
}
static struct eid_info *eids;		/* [ntargets - nranks] */
static struct pgas__state **mine;	/* this rank's live extras, [ntargets / nranks] */
static unsigned nmine;
static unsigned nprogress;		/* of them PGAS_EP_PROGRESS (atomic reads) */
/* The poller of an endpoint that pgas_ep_destroy takes away. */
static const char destroying;
int pgas__ep_tables_setup(void)
{
	unsigned n = pgas__g.ntargets - pgas__g.nranks;

	if (!n)
		return PGAS_OK;
	eids = calloc(n, sizeof(*eids));
	mine = calloc(pgas__g.ntargets / pgas__g.nranks, sizeof(*mine));
	return eids && mine ? PGAS_OK : PGAS_ERR_NOMEM;
}

/*
 * Endpoints a rank may create over its life, its primary included:
 * PGAS_EP_MAX, or its share of the job's eids where the job has fewer
 * (pgas.ko's job is sized by the launcher's PGAS_EP_MAX, and hands its
 * eids out first come).
 */
static unsigned per_rank_max(void)
{
	unsigned share = pgas__g.ntargets / pgas__g.nranks;

	return share < pgas__cfg.ep_max ? share : pgas__cfg.ep_max;
}

int pgas__check_ep(const char *call, const struct pgas__state *ep)
{
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!ep)
		return pgas__err(PGAS_ERR_INVAL, call, "endpoint is NULL");
	if (!ep->priv || ep->priv->magic != PGAS__EP_MAGIC)
		return pgas__err(PGAS_ERR_INVAL, call, "%p is not a live endpoint", (const void *)ep);
	return PGAS_OK;
}

/*
 * Rank r's directory entry i (0 = the first extra), or 0 when none yet;
 * *count (if not NULL): its extras.  A rank this one does not map is asked
 * (ctl.c): PGAS_ERR_STATE where no question can leave (in a handler).
 */
static int dir_entry(unsigned r, unsigned i, uint32_t *e, unsigned *count)
{
	struct pgas__rank_state *st;
	unsigned n;

	if (!pgas__rank_mapped(r)) {
		uint32_t v[2];
		int rc = pgas__ctl_ask(NULL, r, PGAS__ASK_ENTRY, i, v);

		if (rc)
			return rc;
		if (count)
			*count = v[0];
		*e = v[1];
		return PGAS_OK;
	}
	st = pgas__rank_state(r);
	n = __atomic_load_n(&st->ep_extras, __ATOMIC_ACQUIRE);
	if (count)
		*count = n;
	*e = i < n ? __atomic_load_n(&st->ep_eid[i], __ATOMIC_ACQUIRE) : 0;
	return PGAS_OK;
}

/*
 * Which rank created eid, and as its i-th endpoint: 1, 0 if none did yet,
 * -1 if a rank that this one does not map could not be asked (an HSL is
 * held: eid_resolve asks the conduit instead).  The directories of mapped
 * ranks are read; the others are asked (ctl.c), and answer from theirs.
 */
static int find_eid(unsigned eid, unsigned *owner, unsigned *idx, bool *closed)
{
	bool unasked = false;

	if (eid < pgas__g.nranks) {
		*owner = eid;
		*idx = 0;
		*closed = false;
		return true;
	}
	for (unsigned r = 0; r < pgas__g.nranks; r++) {
		struct pgas__rank_state *st;
		unsigned n;

		if (!pgas__rank_mapped(r)) {
			uint32_t v[2];

			if (pgas__ctl_ask(NULL, r, PGAS__ASK_FIND, eid, v)) {
				unasked = true;
				continue;
			}
			if (!v[0])
				continue;
			*owner = r;
			*idx = v[0];
			*closed = v[1];
			return 1;
		}
		st = pgas__rank_state(r);
		n = __atomic_load_n(&st->ep_extras, __ATOMIC_ACQUIRE);

		for (unsigned i = 0; i < n; i++) {
			uint32_t e = __atomic_load_n(&st->ep_eid[i], __ATOMIC_ACQUIRE);

			if ((e & ~PGAS__EP_DIR_CLOSED) == eid) {
				*owner = r;
				*idx = i + 1;
				*closed = e & PGAS__EP_DIR_CLOSED;
				return 1;
			}
		}
	}
	return unasked ? -1 : 0;
}

static struct eid_info *eid_resolve(unsigned eid);
struct eid_found;
static struct eid_info *eid_resolved(unsigned eid, const struct eid_found *f);

unsigned pgas__eid_owner(unsigned eid)
{
	unsigned owner, idx;
	bool closed;

	if (eid >= pgas__g.nranks && eid < pgas__g.ntargets &&
	    __atomic_load_n(&eids[eid - pgas__g.nranks].state, __ATOMIC_ACQUIRE))
		return eids[eid - pgas__g.nranks].owner;
	switch (find_eid(eid, &owner, &idx, &closed)) {
	case 1:
		return owner;
	case 0:
		return ~0u;
	}
	/* Not asked (in a handler): the conduit maps it, or says it is not. */
	ep_lock_take();
	owner = eid_resolve(eid)->owner;
	if (eids[eid - pgas__g.nranks].state == PGAS__PEER_UNRESOLVED)
		owner = ~0u;
	ep_lock_give();
	return owner;
}

/* What find_eid said of an eid. */
struct eid_found {
	int found;
	unsigned owner, idx;
	bool closed;
};

/* The domain's record of eid (>= nranks), resolved if it can be; under ep_lock. */
static struct eid_info *eid_resolve(unsigned eid)
{
	struct eid_found f;

	if (eids[eid - pgas__g.nranks].state != PGAS__PEER_UNRESOLVED)
		return &eids[eid - pgas__g.nranks];
	f.found = find_eid(eid, &f.owner, &f.idx, &f.closed);
	return eid_resolved(eid, &f);
}

/* eid_resolve with what find_eid said (asked without ep_lock); under ep_lock. */
static struct eid_info *eid_resolved(unsigned eid, const struct eid_found *f)
{
	struct pgas_conduit *c = &pgas__job.conduit;
	struct eid_info *e = &eids[eid - pgas__g.nranks];
	unsigned owner = f->owner;
	bool closed = f->closed;
	char msg[256] = "";
	int rc;

	if (e->state != PGAS__PEER_UNRESOLVED)
		return e;
	switch (f->found) {
	case 0:
		return e;	/* not created yet */
	case -1:
		/* A rank that could not be asked may own it: the conduit's
		 * resolve names the owner of an endpoint it can map. */
		rc = c->ops->ep_resolve(c, eid, &e->xep, msg, sizeof(msg));
		if (rc == PGAS_OK) {
			e->owner = e->xep.owner;
			__atomic_store_n(&e->state, PGAS__PEER_LIVE, __ATOMIC_RELEASE);
		}
		return e;	/* closed or not created: asked again later */
	}
	e->owner = owner;
	if (closed) {
		__atomic_store_n(&e->state, PGAS__PEER_CLOSED, __ATOMIC_RELEASE);
		return e;
	}
	rc = c->ops->ep_resolve(c, eid, &e->xep, msg, sizeof(msg));
	if (rc == PGAS_ERR_NOT_READY)
		return e;
	if (rc && rc != PGAS_ERR_GONE)
		pgas__fatal("cannot map endpoint %u of rank %u: %s", eid, owner, msg);
	__atomic_store_n(&e->state, rc ? PGAS__PEER_CLOSED : PGAS__PEER_LIVE, __ATOMIC_RELEASE);
	return e;
}

/* Fills entry p for a live endpoint's rings (the segment is its owner's). */
static void fill_entry(struct pgas__peer *p, unsigned owner, const struct pgas_conduit_ep *ring)
{
	const struct pgas__peer *o = &pgas__g.peers[owner];

	p->seg_remote = o->seg_remote;
	p->seg_delta = o->seg_delta;
	p->seg_size = o->seg_size;
	p->ctrl = ring->ctrl;
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++) {
		p->mbox[ch] = ring->mbox[ch];
		p->head_seen[ch] = 0;
		p->bounce_next[ch] = 0;
	}
	p->notify = ring->notify;
	p->bounce = ring->bounce;
	p->notify_head_seen = 0;
	p->owner = owner;
}

int pgas__ep_peer(struct pgas__state *ep, unsigned chan, unsigned eid, struct pgas__peer **out)
{
	struct pgas__peer *p = pgas__peer_of(ep, chan, eid);
	unsigned char st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
	struct eid_info *e;

	*out = p;
	if (st == PGAS__PEER_LIVE)
		return PGAS_OK;
	if (st == PGAS__PEER_CLOSED)
		return PGAS_ERR_GONE;
	if (eid < pgas__g.nranks || eid >= pgas__g.ntargets)
		return PGAS_ERR_NOT_READY;	/* not attached, or no such eid */
	/* Asked before ep_lock: an owner asked by a control message answers
	 * only when polled, maybe by a progress thread that polls under it. */
	e = &eids[eid - pgas__g.nranks];
	if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == PGAS__PEER_UNRESOLVED) {
		struct eid_found f;

		f.found = find_eid(eid, &f.owner, &f.idx, &f.closed);
		ep_lock_take();
		e = eid_resolved(eid, &f);
	} else {
		ep_lock_take();
	}
	if (e->state != PGAS__PEER_UNRESOLVED && p->state == PGAS__PEER_UNRESOLVED) {
		if (e->state == PGAS__PEER_LIVE)
			fill_entry(p, e->owner, &e->xep.ring);
		else
			p->owner = e->owner;
		__atomic_store_n(&p->state, e->state, __ATOMIC_RELEASE);
	}
	st = p->state;
	ep_lock_give();
	return st == PGAS__PEER_LIVE ? PGAS_OK :
	       st == PGAS__PEER_CLOSED ? PGAS_ERR_GONE : PGAS_ERR_NOT_READY;
}

bool pgas__ep_peer_closed(struct pgas__state *ep, unsigned eid)
{
	struct pgas_conduit *c = &pgas__job.conduit;
	struct eid_info *e;
	unsigned owner, idx;
	bool closed;
	int found;

	if (eid < pgas__g.nranks)
		return false;
	e = &eids[eid - pgas__g.nranks];
	if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == PGAS__PEER_LIVE && !e->mine &&
	    !pgas__rank_mapped(e->owner)) {
		/* Its owner is asked; in a handler, the conduit that mapped it. */
		uint32_t v[2];

		if (!pgas__ctl_ask(ep, e->owner, PGAS__ASK_FIND, eid, v))
			return v[0] && v[1];
		return c->ops->ep_closed(c, &e->xep);
	}
	found = find_eid(eid, &owner, &idx, &closed);
	return found == 1 && closed;
}

/* An endpoint's table of targets: the primaries' entries as the primary
 * has them (its caches start cold), every other eid unresolved. */
static struct pgas__peer *new_table(void)
{
	struct pgas__peer *t = pgas__peer_table_new(pgas__g.ntargets, pgas__g.nranks);

	if (!t)
		return NULL;
	for (unsigned i = 0; i < pgas__g.nranks; i++) {
		pgas__peer_unresolved(&t[i]);
		fill_entry(&t[i], i, &(struct pgas_conduit_ep){
			.ctrl = pgas__g.peers[i].ctrl,
			.mbox = { pgas__g.peers[i].mbox[0], pgas__g.peers[i].mbox[1] },
			.notify = pgas__g.peers[i].notify,
			.bounce = pgas__g.peers[i].bounce });
		t[i].state = PGAS__PEER_LIVE;
	}
	return t;
}

static void free_ep(struct pgas__state *ep)
{
	if (!ep)
		return;
	if (ep->priv) {
		pgas__peer_table_free(ep->priv->rpeers, pgas__g.ntargets);
		free(ep->priv);
	}
	pgas__peer_table_free(ep->peers, pgas__g.ntargets);
	free(ep);
}

int pgas_ep_create(pgas_ep_t *out, unsigned flags)
{
	static const char call[] = "pgas_ep_create";
	struct pgas_conduit *c = &pgas__job.conduit;
	struct pgas__rank_state *me;
	struct pgas__state *ep = NULL;
	struct pgas__ep_priv *x;
	char msg[256] = "";
	unsigned n;
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!out)
		return pgas__err(PGAS_ERR_INVAL, call, "ep is NULL");
	if (flags & ~PGAS_EP_PROGRESS)
		return pgas__err(PGAS_ERR_INVAL, call, "flags %#x (known: PGAS_EP_PROGRESS %#x)",
				 flags, PGAS_EP_PROGRESS);
	rc = pgas__check_thread(call);
	if (rc)
		return rc;
	if (pgas__forked())
		return pgas__err(PGAS_ERR_STATE, call,
				 "called in a forked child of the rank (not a member of the job)");
	if (!c->ops->ep_open || pgas__g.ntargets == pgas__g.nranks)
		return pgas__err(PGAS_ERR_RESOURCE, call,
				 "the %s conduit provides no endpoints beyond the primary here",
				 c->ops->name);
	me = pgas__rank_state(pgas__g.rank);
	ep_lock_take();
	n = me->ep_extras;
	if (n + 1 >= per_rank_max()) {
		ep_lock_give();
		return pgas__err(PGAS_ERR_RESOURCE, call,
				 "this rank has created %u endpoints (its primary included): its limit is %u (PGAS_EP_MAX %u, pgas_ep_max() %u for %u ranks)",
				 n + 1, per_rank_max(), pgas__cfg.ep_max, pgas__g.ntargets,
				 pgas__g.nranks);
	}
	ep = aligned_alloc(PGAS_CACHELINE, PGAS__ALIGN_UP(sizeof(*ep), PGAS_CACHELINE));
	x = calloc(1, sizeof(*x));
	if (ep) {
		memset(ep, 0, sizeof(*ep));
		ep->priv = x;
		ep->peers = new_table();
	}
	if (x) {
		x->xep.fd = -1;
		x->rpeers = new_table();
	}
	if (!ep || !x || !ep->peers || !x->rpeers) {
		rc = pgas__err(PGAS_ERR_NOMEM, call, "no memory for an endpoint");
		goto fail;
	}
	rc = c->ops->ep_open(c, &x->xep, msg, sizeof(msg));
	if (rc) {
		rc = pgas__err(rc, call, "%s", msg);
		goto fail;
	}
	x->index = n + 1;
	x->flags = flags;
	ep->nranks = pgas__g.nranks;
	ep->rank = pgas__g.rank;
	ep->ntargets = pgas__g.ntargets;
	ep->gone = pgas__g.gone;
	ep->wake = pgas__g.wake;
	ep->status_src = PGAS_STATUS(0, x->xep.eid, 0, 0, 0, 0);
	/* None in flight yet (the primary's count is its own). */
	ep->nbi_puts_pending = pgas__puts_base();
	/* Its polls leave the fast path to move the conduit's proxy rings. */
	ep->pending = (pgas__pending() & PGAS__PENDING_CONDUIT) |
		      (pgas__ctl_msgs ? PGAS__PENDING_PRIMARY : 0);
	memcpy(ep->handlers, pgas__g.handlers, sizeof(ep->handlers));
	if (pgas__am_ep_setup(ep, &x->xep.ring)) {
		c->ops->ep_close(c, &x->xep);
		rc = pgas__err(PGAS_ERR_NOMEM, call, "no memory for AM buffers");
		goto fail;
	}
	/* A fabric endpoint of its own for its remote RMA, where the conduit
	 * gives one (docs/ofi.md, "Fabric endpoints"); else the shared one. */
	if (c->ops->fep_open) {
		msg[0] = 0;
		x->fep = c->ops->fep_open(c, pgas__mt(), msg, sizeof(msg));
		if (!x->fep && msg[0] && pgas__cfg.verbose_env)
			fprintf(stderr, "pgas[%u]: endpoint %u shares the primary's fabric endpoint: %s\n",
				pgas__g.rank, x->xep.eid, msg);
	}
	/* This process knows its own rings: no mapping of them again. */
	eids[x->xep.eid - pgas__g.nranks].owner = pgas__g.rank;
	eids[x->xep.eid - pgas__g.nranks].xep = x->xep;
	eids[x->xep.eid - pgas__g.nranks].mine = true;
	__atomic_store_n(&eids[x->xep.eid - pgas__g.nranks].state, PGAS__PEER_LIVE,
			 __ATOMIC_RELEASE);
	x->magic = PGAS__EP_MAGIC;
	__atomic_store_n(&nmine, nmine + 1, __ATOMIC_RELAXED);
	mine[nmine - 1] = ep;
	if (flags & PGAS_EP_PROGRESS)
		__atomic_fetch_add(&nprogress, 1, __ATOMIC_RELAXED);
	/* Published: peers find it from now on. */
	__atomic_store_n(&me->ep_eid[n], x->xep.eid, __ATOMIC_RELEASE);
	__atomic_store_n(&me->ep_extras, n + 1, __ATOMIC_RELEASE);
	ep_lock_give();
	*out = ep;
	return PGAS_OK;
fail:
	ep_lock_give();
	free_ep(ep);
	if (!ep && x) {
		pgas__peer_table_free(x->rpeers, pgas__g.ntargets);
		free(x);
	}
	return rc;
}

int pgas_ep_destroy(pgas_ep_t ep)
{
	static const char call[] = "pgas_ep_destroy";
	struct pgas_conduit *c = &pgas__job.conduit;
	struct pgas__rank_state *me;
	struct pgas__ep_priv *x;
	void *none = NULL;
	int rc = pgas__check_ep(call, ep);

	if (rc)
		return rc;
	if (pgas__is_primary(ep))
		return pgas__err(PGAS_ERR_STATE, call, "the primary endpoint lives as long as the job");
	if (pgas__forked())
		return pgas__err(PGAS_ERR_STATE, call,
				 "called in a forked child of the rank (not a member of the job)");
	/* Its operations in flight on the remote path complete first: their
	 * records count on this endpoint (rma_ref.c). */
	rc = pgas__ref_drain(ep, call, PGAS__NBI_PUTS | PGAS__NBI_GETS);
	if (rc)
		return rc;
	x = ep->priv;
	me = pgas__rank_state(pgas__g.rank);
	/*
	 * The lock first: the progress thread (and a memory wait at MULTIPLE)
	 * polls the PGAS_EP_PROGRESS endpoints under it, so once it is held
	 * none of the library's pollers is inside this endpoint.  Then the
	 * poller's place is taken, so that no poll starts on it; a poller
	 * still there is the caller's handler or another thread of the
	 * program's (pgas_ep_poll, a wait on the endpoint): refused.
	 */
	ep_lock_take();
	if (!__atomic_compare_exchange_n(&x->poller, &none, (void *)&destroying, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		ep_lock_give();
		return pgas__err(PGAS_ERR_STATE, call, "endpoint %u is being polled (%s)",
				 x->xep.eid, none == &pgas__self ? "from its own handler"
								: "by another thread");
	}
	x->magic = 0;
	/* Closed for everyone before its rings go: a sender that waits for
	 * room in them sees it and fails instead of waiting forever. */
	__atomic_store_n(&me->ep_eid[x->index - 1], x->xep.eid | PGAS__EP_DIR_CLOSED,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&eids[x->xep.eid - pgas__g.nranks].state, PGAS__PEER_CLOSED,
			 __ATOMIC_RELEASE);
	c->ops->ep_close(c, &x->xep);
	/* Drained above, and no poller is inside it (ep lock, poller's place). */
	if (x->fep)
		c->ops->fep_close(c, x->fep);
	x->fep = NULL;
	for (unsigned i = 0; i < nmine; i++)
		if (mine[i] == ep) {
			mine[i] = mine[nmine - 1];
			__atomic_store_n(&nmine, nmine - 1, __ATOMIC_RELAXED);
			break;
		}
	if (x->flags & PGAS_EP_PROGRESS)
		__atomic_fetch_sub(&nprogress, 1, __ATOMIC_RELAXED);
	ep_lock_give();
	pgas__am_ep_teardown(ep);
	free_ep(ep);
	return PGAS_OK;
}

unsigned pgas_ep_index(pgas_ep_t ep)
{
	if (pgas__check_ep("pgas_ep_index", ep))
		return ~0u;
	return PGAS_STATUS_SRC(ep->status_src);
}

unsigned pgas_ep_max(void)
{
	return pgas__g.ntargets;
}

int pgas_ep_count(unsigned rank, unsigned *count)
{
	static const char call[] = "pgas_ep_count";
	int rc = pgas__check_rank(call, rank);

	if (rc)
		return rc;
	if (!count)
		return pgas__err(PGAS_ERR_INVAL, call, "count is NULL");
	{
		uint32_t e;
		unsigned n;

		rc = dir_entry(rank, 0, &e, &n);
		if (rc)
			return pgas__err(rc, call, "rank %u is not mapped and cannot be asked while an HSL is held",
					 rank);
		*count = 1 + n;
	}
	return PGAS_OK;
}

int pgas_ep_lookup(unsigned rank, unsigned i, unsigned *eid)
{
	static const char call[] = "pgas_ep_lookup";
	uint32_t e;
	int rc = pgas__check_rank(call, rank);

	if (rc)
		return rc;
	if (!eid)
		return pgas__err(PGAS_ERR_INVAL, call, "eid is NULL");
	if (i >= per_rank_max())
		return pgas__err(PGAS_ERR_INVAL, call, "index %u: a rank has at most %u endpoints",
				 i, per_rank_max());
	if (i == 0) {
		*eid = rank;
		return PGAS_OK;
	}
	rc = dir_entry(rank, i - 1, &e, NULL);
	if (rc)
		return pgas__err(rc, call, "rank %u is not mapped and cannot be asked while an HSL is held",
				 rank);
	if (!e)
		return PGAS_ERR_NOT_READY;	/* not an error: ask again */
	*eid = e & ~PGAS__EP_DIR_CLOSED;
	return e & PGAS__EP_DIR_CLOSED ? PGAS_ERR_GONE : PGAS_OK;
}

int pgas_ep_locate(unsigned eid, unsigned *rank, unsigned *i)
{
	static const char call[] = "pgas_ep_locate";
	unsigned r, idx;
	bool closed;
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (eid >= pgas__g.ntargets)
		return pgas__err(PGAS_ERR_RANK, call, "endpoint %u out of range (pgas_ep_max() = %u)",
				 eid, pgas__g.ntargets);
	switch (find_eid(eid, &r, &idx, &closed)) {
	case 0:
		return PGAS_ERR_NOT_READY;
	case -1:
		return pgas__err(PGAS_ERR_STATE, call,
				 "endpoint %u: its owner may be a rank that is not mapped, which cannot be asked while an HSL is held",
				 eid);
	}
	if (rank)
		*rank = r;
	if (i)
		*i = idx;
	return closed ? PGAS_ERR_GONE : PGAS_OK;
}

/*
 * Polls under ep_lock, which pgas_ep_destroy takes (so no endpoint goes
 * while it is polled here) and a handler's first meeting with an eid takes
 * too: recursive for this thread (ep_owner).
 */
int pgas__eps_poll_mine(bool progress_only, unsigned chan_mask)
{
	int n = 0;

	if (!__atomic_load_n(progress_only ? &nprogress : &nmine, __ATOMIC_RELAXED) || !chan_mask)
		return 0;
	ep_lock_take();
	for (unsigned i = 0; i < nmine; i++)
		if (!progress_only || (mine[i]->priv->flags & PGAS_EP_PROGRESS))
			n += pgas__fep_progress(mine[i]) + pgas__ep_poll_try(mine[i], chan_mask);
	ep_lock_give();
	return n;
}

unsigned pgas__eps_mine(struct pgas__state **list, unsigned max)
{
	unsigned k;

	ep_lock_take();
	k = nmine < max ? nmine : max;
	for (unsigned i = 0; i < k; i++)
		list[i] = mine[i];
	ep_lock_give();
	return k;
}

unsigned pgas__eps_job(struct pgas__peer **list, unsigned max)
{
	unsigned k = 0;

	for (unsigned r = 0; r < pgas__g.nranks; r++) {
		struct pgas__rank_state *st = pgas__rank_state(r);
		unsigned m = __atomic_load_n(&st->ep_extras, __ATOMIC_ACQUIRE);

		for (unsigned i = 0; i < m && k < max; i++) {
			uint32_t e = __atomic_load_n(&st->ep_eid[i], __ATOMIC_ACQUIRE);
			struct pgas__peer *p;

			if (!(e & PGAS__EP_DIR_CLOSED) &&
			    !pgas__ep_peer(&pgas__g, PGAS_CHAN_REQUEST, e, &p))
				list[k++] = p;
		}
	}
	return k;
}
