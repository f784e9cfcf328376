/* SPDX-License-Identifier: MIT */
/*
 * conduit.h - the boundary between libpgas and a device.
 *
 * A conduit sets up, for every rank of the job, the rings of pgas_abi.h
 * and the segment, mapped into this process.  Only setup lives behind this
 * boundary; the fast path reads the mapped memory directly.
 */
#ifndef PGAS_CONDUIT_H
#define PGAS_CONDUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "../uapi/pgas_abi.h"
#include "../libpgas/pgas_layout.h"

/*
 * A conduit's kind is its place in PGAS_CONDUIT's choices: 0 is auto, 1..
 * the conduits built in, in conduits.c's order (the one list of them).
 */
enum pgas_conduit_kind {
	PGAS_CONDUIT_AUTO,	/* the first conduit of conduits.c that probes */
};

/* Sizes every rank of a job must agree on (they come from the env table). */
struct pgas_geometry {
	uint32_t mbox_slots;
	uint32_t notify_entries;
	uint32_t bounce_bufs;
	uint32_t bounce_size;
};

/* One rank's resources as mapped in this process. */
struct pgas_conduit_ep {
	struct pgas_ctrl_page *ctrl;
	struct pgas_mbox_slot *mbox[PGAS_NCHAN];
	struct pgas_notify_entry *notify;
	unsigned char *bounce;
	unsigned char *seg;	/* local mapping of the segment */
	uint64_t seg_remote;	/* its address in the owner's process */
	size_t seg_size;
};

/*
 * An endpoint beyond the ranks' primaries (pgas_ep_create), as mapped in
 * this process.  Its eid names it in the job: primaries are eids
 * 0..nranks-1, the others nranks..max_eids-1, never reused.  Its region has
 * the layout of a primary's (bounce areas per source *rank*: the endpoints
 * of a rank share theirs, claimed by compare-and-swap), and its control
 * page's 'rank' is its eid.
 */
struct pgas_conduit_xep {
	unsigned eid;
	unsigned owner;			/* the rank whose process created it */
	struct pgas_conduit_ep ring;	/* ctrl, mbox, notify, bounce (no seg) */
	void *map;			/* what ep_close/ep_unmap unmap, or NULL */
	int fd;				/* kmod, one of mine: its file; else -1 */
};

struct pgas_conduit_ops;

struct pgas_conduit {
	int kind;		/* the conduit actually used: its PGAS_CONDUIT choice */
	const struct pgas_conduit_ops *ops;	/* its operations */
	unsigned rank;
	unsigned nranks;
	struct pgas_geometry geo;
	struct pgas_region_layout layout;
	struct pgas_conduit_ep *eps;	/* [nranks] */
	unsigned max_eids;	/* every eid is below it (open sets it) */
	/* kmod: this rank's kernel page (read-only; what pgas.ko says), else NULL */
	const struct pgas_kern_page *kern;
	/* Some ring of eps[] (or of an endpoint ep_resolve gave) is a local
	 * proxy that only ops->progress moves: the core calls it from its
	 * polls and waits (set by open). */
	bool remote;
	/* Bumped (atomic) by a conduit whose peer_gone has a new rank to
	 * answer for (ofi: a fabric error, silence, PMIx): the core's waits
	 * load it and ask peer_gone of every rank once it moves. */
	uint32_t peers_died;
	/* Set by the core (rma_ref.c) at attach, called by a conduit's
	 * progress when an ops->rma operation ended (rc 0 or a PGAS_ERR_*):
	 * a hook, so that a conduit calls nothing of the core (the layers). */
	void (*rma_done)(void *ctx, int rc);
	/* The same for an ops->amo operation, with the value it fetched. */
	void (*amo_done)(void *ctx, int rc, uint64_t old);
	/* Set by a conduit with ops->amo at attach, the same on every rank:
	 * amo_ops[dt] is the set of PGAS_AOP_* of data type dt (PGAS_DT_*)
	 * that its amo does on any rank's word, the own included. */
	uint32_t amo_ops[8];
	/* Set by open when ops->sleep can sleep on a wait object (block mode). */
	bool sleeps;
	void *priv;
};

/*
 * What a launcher (pgasrun) does for a job before it starts the ranks, when
 * the conduit PGAS_CONDUIT picks has a job_create op: variables for every
 * rank's environment, and a descriptor that holds the job while it is open.
 */
struct pgas_conduit_job {
	char env[2][64];	/* NAME=value, or "" */
	int fd;			/* held by the launcher until the job ends, or -1 */
	char what[64];		/* for pgasrun -v: "pgas.ko job 3", or "" */
};

/* Every rank's mappings made by a conduit (conduit/maps.c). */
struct pgas_conduit_maps {
	void **region;		/* [nranks] ring regions, layout.size bytes each */
	void **seg;		/* [nranks] segments */
	size_t *seg_len;	/* [nranks] their mapped lengths */
	void **xreg;		/* [nranks] peers' registered regions (region op) */
	size_t *xreg_len;
	/* One mapping each of the host's ring regions and segments (shm), which
	 * region[] and seg[] point into: released whole, not per rank. */
	void *host_rings, *host_segs;
	size_t host_rings_len, host_segs_len;
};

struct pgas_conduit;
struct pgas_conduit_segment;
struct pgas_conduit_region;
/*
 * The region op's common part: checks the exchanged all[] (a failed
 * rank's addr is PGAS_CONDUIT_REGION_FAILED) and maps every peer's from
 * fds[r] at offset all[r].cookie (fds NULL: fd, the same for all).
 */
int pgas_conduit_map_regions(struct pgas_conduit *c, struct pgas_conduit_maps *m,
			     const struct pgas_conduit_segment *all, const int *fds, int fd,
			     void *mine, struct pgas_conduit_region *out, char *msg,
			     size_t msglen);

/*
 * mmap(NULL, len, RW, flags, fd, 0) at an address aligned to
 * PGAS_SEGMENT_ALIGN (pgas.h): a rank's own segment, so that an offset
 * aligned that much is aligned in every rank (OpenSHMEM's shmem_align).
 * Costs address space only: the slack around it is unmapped again.
 */
void *pgas_conduit_map_aligned(size_t len, int flags, int fd);

/* 0, or -1 when out of memory. */
int pgas_conduit_maps_init(struct pgas_conduit_maps *m, unsigned nranks);
/* Unmaps whatever was mapped and frees the arrays. */
void pgas_conduit_maps_release(struct pgas_conduit_maps *m, unsigned nranks, size_t region_len);

struct pgas_conduit;
struct pgas_conduit_segment;
/*
 * Records rank r's segment as its owner described it: mine is this rank's
 * own mapping; a peer's is mapped from fd at offset off.  0, or an error
 * with msg filled.
 */
int pgas_conduit_map_segment(struct pgas_conduit *c, struct pgas_conduit_maps *m, unsigned r,
			     const struct pgas_conduit_segment *s, void *mine, int fd, off_t off,
			     char *msg, size_t msglen);

/* The layout of pgas_abi.h for a geometry. */
static inline void pgas_geometry_layout(const struct pgas_geometry *geo, unsigned nranks,
					struct pgas_region_layout *out)
{
	pgas_region_layout(geo->mbox_slots, geo->notify_entries, geo->bounce_bufs,
			   geo->bounce_size, nranks, out);
}

/* Bounce buffer of 'src' on channel 'chan', index i, inside an area. */
static inline unsigned char *pgas_bounce_buf(unsigned char *area,
					     const struct pgas_geometry *geo,
					     unsigned src, unsigned chan,
					     unsigned i)
{
	size_t one = PGAS_CACHELINE + (size_t)geo->bounce_size;

	return area + ((size_t)(src * PGAS_NCHAN + chan) * geo->bounce_bufs + i) * one;
}

/* Points ep at the objects of a ring region mapped at base. */
static inline void pgas_conduit_set_region(struct pgas_conduit_ep *ep, unsigned char *base,
					   const struct pgas_region_layout *l)
{
	ep->ctrl = (struct pgas_ctrl_page *)(base + l->ctrl_off);
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
		ep->mbox[ch] = (struct pgas_mbox_slot *)(base + l->mbox_off[ch]);
	ep->notify = (struct pgas_notify_entry *)(base + l->notify_off);
	ep->bounce = base + l->bounce_off;
}

/*
 * Fills the control page of a ring region for endpoint eid, as pgas.ko
 * does for its own: the shm conduit's regions and the ofi conduit's proxies.
 */
static inline void pgas_conduit_init_ctrl(const struct pgas_conduit *c,
					  struct pgas_ctrl_page *ctrl, unsigned eid)
{
	ctrl->version = PGAS_ABI_VERSION;
	ctrl->rank = eid;
	ctrl->mbox_slots = c->geo.mbox_slots;
	ctrl->notify_entries = c->geo.notify_entries;
	ctrl->bounce_bufs = c->geo.bounce_bufs;
	ctrl->bounce_size = c->geo.bounce_size;
	/* Last: a peer that reads the magic finds the rest. */
	__atomic_store_n(&ctrl->magic, PGAS_ABI_MAGIC, __ATOMIC_RELEASE);
}

/* What ranks check of each other at open: the same ABI and geometry. */
struct pgas_conduit_hello {
	uint32_t magic;
	uint32_t version;
	struct pgas_geometry geo;
	uint64_t cookie;	/* kmod: mmap offset of the ring region */
	uint64_t size;		/* kmod: its size */
};

#include <stdio.h>
#include <string.h>

/* Checks a peer's hello against mine: 0, or PGAS_ERR_INVAL with msg. */
static inline int pgas_conduit_check_hello(const struct pgas_conduit_hello *theirs,
					   const struct pgas_conduit_hello *mine, unsigned rank,
					   char *msg, size_t msglen)
{
	if (theirs->magic == mine->magic && theirs->version == mine->version &&
	    !memcmp(&theirs->geo, &mine->geo, sizeof(mine->geo)))
		return 0;
	/* pgas_init compared the variables first: this is another build. */
	snprintf(msg, msglen,
		 "rank %u runs another libpgas build: ABI %08x v%u, rings %u/%u/%u/%u "
		 "(slots/notifications/bounce buffers/bytes) vs %08x v%u, %u/%u/%u/%u here",
		 rank, theirs->magic, theirs->version, theirs->geo.mbox_slots,
		 theirs->geo.notify_entries, theirs->geo.bounce_bufs, theirs->geo.bounce_size,
		 mine->magic, mine->version, mine->geo.mbox_slots, mine->geo.notify_entries,
		 mine->geo.bounce_bufs, mine->geo.bounce_size);
	return -1;	/* PGAS_ERR_INVAL */
}

/* What ranks tell each other at attach. */
struct pgas_conduit_segment {
	uint64_t addr;		/* in the owner's address space */
	uint64_t size;
	uint64_t cookie;	/* kmod: mmap offset of the registration */
};

/* A rank's registered region (pgas_segment_register), as region returns it. */
struct pgas_conduit_region {
	uint64_t remote;	/* in the owner's address space */
	size_t size;		/* 0: the rank registered none */
	unsigned char *local;	/* this process's mapping of it */
};

/* The exchange's address of a rank whose registration failed. */
#define PGAS_CONDUIT_REGION_FAILED UINT64_MAX

/*
 * A conduit's operations, all off the fast path (which loads and stores
 * through the mappings that open and attach make).  0 or a negative
 * PGAS_ERR_* with msg filled.
 *  probe:   whether PGAS_CONDUIT=auto should pick it here.
 *  open:    joins the job, maps every rank's ring region (c->eps[].ctrl etc).
 *  attach:  creates this rank's segment of segsize bytes and maps every
 *           rank's (c->eps[].seg etc); collective.
 *  region:  makes [addr, addr+len) (page-aligned memory of this process,
 *           or NULL, 0) reachable by the peers at the same addresses and
 *           fills out[nranks] with every rank's; collective, after attach,
 *           once.  Fails on every rank when it fails on one.
 *  forked:  in a forked child, before anything else of the child runs:
 *           stops sharing with the parent what the child must not write
 *           (may be NULL: nothing to do).
 *  close:   unmaps everything; also after a failed open.
 *  wait_fd: an fd to poll() for a wake-up and to PGAS_IOC_WAKE peers on,
 *           or -1: waits sleep on the doorbell's futex.
 * Block mode on the conduit's wait object (optional, NULL: the doorbell's
 * futex or wait_fd; used only where open set c->sleeps):
 *  sleep:   the core's sleep on this rank's primary doorbell, after it
 *           announced 'sleeping' = PGAS_SLEEPING_CONDUIT and found the bell
 *           unmoved: sleeps until what the fabric brings, a wake, or *ts.
 *           1: woken (an arrival or a wake), 0: the time ran out, -1: did
 *           not sleep (the fabric has something to progress).
 *  wake:    a producer found PGAS_SLEEPING_CONDUIT on the control page of
 *           rank (a primary: this process's or a mapped one's): wakes it.
 * Endpoints beyond the primaries (after attach; any thread, the core
 * serialises the calls of one process):
 *  ep_open:    a new endpoint of this rank: x->eid, x->owner, x->ring
 *              mapped and its control page filled; peers may send to it
 *              as soon as this returns.  PGAS_ERR_RESOURCE when this rank
 *              or the job has no eid left.
 *  ep_close:   closes one of mine: peers see it closed, its eid is never
 *              reused, and its rings here are memory that nobody reads
 *              (still mapped: a thread of this process may still be
 *              sending to it).
 *  ep_resolve: maps any rank's endpoint eid (nranks <= eid < max_eids):
 *              0 with x filled; PGAS_ERR_NOT_READY when not created (yet);
 *              PGAS_ERR_GONE when closed.
 *  ep_closed:  whether a resolved endpoint has been closed since (called
 *              from wait loops: cheap, or at least not blocking).
 *  ep_unmap:   undoes ep_resolve (x is another rank's, or mine resolved).
 * Peers (after attach; any thread; cheap, called from wait loops):
 *  peer_gone:  whether rank died (ended other than through pgas_exit),
 *              from what the conduit sees itself, without mapping the rank
 *              (kmod: pgas.ko's departure events on the kernel page; shm:
 *              NULL, pgasrun ends the job when a rank dies; ofi: a fabric
 *              error, PMIx's report or PGAS_OFI_TIMEOUT of silence, with
 *              c->peers_died bumped).  NULL: never.
 * Optional (NULL: none):
 *  job_create: the launcher's side, before any rank starts (see struct
 *              pgas_conduit_job); the configuration is loaded.
 *  progress:   moves what the conduit's proxy rings hold (c->remote):
 *              ships what local senders published there, delivers what
 *              arrived into this process's rings; never blocks and never
 *              runs a handler.  Called from any thread (it serialises
 *              itself); returns how much it did.
 * Data operations for peers that are not load/store reachable (libfabric,
 * docs/design-threads-endpoints.md 5.5; mapped peers keep the inline path).
 * Optional (NULL: the core's AM reference protocol, rma_ref.c):
 *  rma_reach:  whether rma can reach rank's [remote, +n) (a key covers it).
 *  rma:        posts on fep (fep_open's, or NULL: the conduit's own) one
 *              write (get: read) of up to n bytes between local
 *              (any memory of this process; a put's source is read until
 *              the completion) and rank's remote: the bytes posted (> 0),
 *              whose completion c->rma_done(ctx, rc) reports
 *              later from progress (a put's once the data is visible at
 *              the target); 0 when the fabric's queue is full (progress,
 *              then again); or a negative PGAS_ERR_* with msg.  Any thread.
 *  amo:        posts one atomic of atomic-domain type dt (PGAS_DT_*) and
 *              operation op (one PGAS_AOP_* of c->amo_ops[dt]) with
 *              operands a, b (a 4-byte type's in the low half) on any
 *              rank's word at remote (its own and mapped ones too: a
 *              domain's words are all updated by the fabric, never mixed
 *              with CPU atomics): 1 when posted, whose completion
 *              c->amo_done(ctx, rc, old) reports later from progress
 *              (once the operation is done at the target); 0 when the
 *              queue is full; or a negative PGAS_ERR_* with msg.
 * Fabric endpoints of extra endpoints (optional, NULL: every endpoint's
 * rma goes through the conduit's one; docs/ofi.md, "Fabric endpoints"):
 *  fep_open:     an initiator-only fabric endpoint and completion queue for
 *                one endpoint of this rank (pgas_ep_create), whose rma
 *                operations then post and complete there, moved only by
 *                fep_progress; shared: more than one thread may use it at
 *                once (PGAS_THREAD_MULTIPLE), so it serialises itself.
 *                NULL (msg says why) where it gets none: it shares the
 *                conduit's.
 *  fep_close:    closes it; nothing of it is in flight (the core drained).
 *  fep_progress: reads its completions (c->rma_done); how many.  Never
 *                blocks: another thread inside it makes it return 0.
 */
struct pgas_conduit_ops {
	const char *name;	/* PGAS_CONDUIT=name */
	bool (*probe)(void);
	int (*open)(struct pgas_conduit *c, char *msg, size_t msglen);
	int (*attach)(struct pgas_conduit *c, size_t segsize, char *msg, size_t msglen);
	void (*close)(struct pgas_conduit *c);
	int (*region)(struct pgas_conduit *c, void *addr, size_t len,
		      struct pgas_conduit_region *out, char *msg, size_t msglen);
	void (*forked)(struct pgas_conduit *c);
	int (*wait_fd)(const struct pgas_conduit *c);
	int (*sleep)(struct pgas_conduit *c, const struct timespec *ts);
	void (*wake)(struct pgas_conduit *c, unsigned rank);
	int (*ep_open)(struct pgas_conduit *c, struct pgas_conduit_xep *x, char *msg,
		       size_t msglen);
	void (*ep_close)(struct pgas_conduit *c, struct pgas_conduit_xep *x);
	int (*ep_resolve)(struct pgas_conduit *c, unsigned eid, struct pgas_conduit_xep *x,
			  char *msg, size_t msglen);
	bool (*ep_closed)(struct pgas_conduit *c, const struct pgas_conduit_xep *x);
	void (*ep_unmap)(struct pgas_conduit *c, struct pgas_conduit_xep *x);
	bool (*peer_gone)(struct pgas_conduit *c, unsigned rank);
	int (*job_create)(unsigned nranks, struct pgas_conduit_job *job, char *msg,
			  size_t msglen);
	int (*progress)(struct pgas_conduit *c);
	bool (*rma_reach)(struct pgas_conduit *c, unsigned rank, uint64_t remote, size_t n);
	ssize_t (*rma)(struct pgas_conduit *c, void *fep, int get, unsigned rank, uint64_t remote,
		       void *local, size_t n, void *ctx, char *msg, size_t msglen);
	int (*amo)(struct pgas_conduit *c, unsigned rank, uint64_t remote, unsigned dt,
		   unsigned op, uint64_t a, uint64_t b, void *ctx, char *msg, size_t msglen);
	void *(*fep_open)(struct pgas_conduit *c, bool shared, char *msg, size_t msglen);
	void (*fep_close)(struct pgas_conduit *c, void *fep);
	int (*fep_progress)(struct pgas_conduit *c, void *fep);
};


/*
 * conduits.c: the conduit PGAS_CONDUIT names (auto: the first that
 * probes), with *kind its choice; NULL when none is usable.
 */
const struct pgas_conduit_ops *pgas_conduit_choose(int *kind);
/*
 * The launcher's side (pgasrun): loads the configuration, picks the
 * conduit as pgas_init will and lets it create the job (job->fd = -1 and
 * empty strings when it has nothing to do).  0, or an error with msg.
 */
int pgas_conduit_job_create(unsigned nranks, struct pgas_conduit_job *job, char *msg,
			    size_t msglen);
/*
 * The rank's side where the launcher made no job (pgas_boot_host_jobs: a
 * PMIx launcher): this host's leader runs o->job_create for the job's
 * nranks and shares the result (its variables, and its descriptor by
 * SCM_RIGHTS) with the ranks of its host through the boot layer
 * (pgas_boot_host_share); a failure there fails every rank of the host
 * with the leader's message.  Collective over the job, called from a
 * conduit's open.  0 with *job filled: job->fd is this rank's own
 * descriptor of the job (every rank of the host holds one, so the job
 * lives until the last of them ends, as under pgasrun's hold), -1 if none.
 */
int pgas_conduit_host_job(const struct pgas_conduit_ops *o, unsigned nranks,
			  struct pgas_conduit_job *job, char *msg, size_t msglen);
/* Of "NAME=value" in job->env: the value, or NULL. */
const char *pgas_conduit_job_env(const struct pgas_conduit_job *job, const char *name);
/* The conduits built in ("kmod shm ofi") and those left out, with why. */
const char *pgas_conduit_list(void);
const char *pgas_conduit_missing(void);

static inline void pgas_conduit_close(struct pgas_conduit *c)
{
	if (c->ops)
		c->ops->close(c);
}

#endif /* PGAS_CONDUIT_H */
