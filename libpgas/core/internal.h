/* SPDX-License-Identifier: MIT */
/* internal.h - what the .c files of libpgas share; not installed. */
#ifndef PGAS_INTERNAL_H
#define PGAS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include "pgas.h"
#include "conduit.h"
#include "boot.h"

/*
 * A buffer in a shared ring that another process frees (a target gives a
 * bounce buffer back by a store TSan never sees): the thread that hands it
 * over releases it for TSan, the one that claims it again acquires it, so
 * that the two users of one buffer are ordered as they are in fact.
 */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define PGAS__XPROC_RELEASE(p) __tsan_release((void *)(p))
#define PGAS__XPROC_ACQUIRE(p) __tsan_acquire((void *)(p))
#else
#define PGAS__XPROC_RELEASE(p) ((void)(p))
#define PGAS__XPROC_ACQUIRE(p) ((void)(p))
#endif

/* ---- state shared by the .c files ---------------------------------------- */

/* Reasons in pgas__g.send_block. */
#define PGAS__BLOCK_DETACHED	1u
#define PGAS__BLOCK_HANDLER	2u
#define PGAS__BLOCK_HSL		4u
/* PGAS_THREAD_MULTIPLE: every send and poll goes out of line, where the
 * calling thread's own state (pgas__self) decides.  At the lower levels
 * HANDLER and HSL mirror the state of the one thread calling at a time. */
#define PGAS__BLOCK_SHARED	8u

struct pgas_token {
	unsigned src;		/* the sender's eid */
	unsigned chan;		/* channel the message arrived on */
	bool replied;
	struct pgas_bounce_hdr *bounce;	/* the Medium's bounce buffer, or NULL */
	struct pgas__state *ep;	/* the endpoint it arrived on (replies leave from it) */
	struct pgas__peer *from;	/* the sender's reply entry (its state says if live) */
};

/* What an endpoint keeps off the fast path (pgas__state.priv). */
struct pgas__ep_priv {
	uint32_t magic;			/* PGAS__EP_MAGIC while it lives */
	unsigned index;			/* creation order in this rank: 0 = primary */
	unsigned flags;			/* pgas_ep_create's */
	/* Reassembly buffers of multi-slot messages, one per channel. */
	unsigned char *body_buf[PGAS_NCHAN];
	/* The message a handler runs for, per channel (NULL when none). */
	struct pgas_token *handling[PGAS_NCHAN];
	/* Extras: who polls it now (a thread's pgas__self, or NULL); the
	 * primary uses the progress lock instead. */
	void *poller;
	struct pgas__peer *rpeers;	/* extras: the table replies use, or NULL */
	struct pgas_conduit_xep xep;	/* extras: its rings as the conduit made them */
	/* Extras: its own fabric endpoint (ops->fep_open), where its remote
	 * RMA posts and completes; NULL: the conduit's shared one. */
	void *fep;
};
#define PGAS__EP_MAGIC 0x70657031u	/* "pep1" */
extern struct pgas__ep_priv pgas__ep0_priv;

static inline bool pgas__is_primary(const struct pgas__state *ep)
{
	return ep == &pgas__g;
}

struct pgas__job {
	bool initialised;
	bool attached;
	struct pgas_conduit conduit;
	/* Barrier state (barrier.c). */
	uint64_t barrier_epoch;		/* barriers notified so far */
	uint32_t barrier_wire;		/* its epoch as flags carry it */
	unsigned barrier_rounds;
	int barrier_phase;	/* 0 idle, 1 notified */
	uint32_t barrier_id;
	unsigned barrier_flags;
	unsigned barrier_round;
	uint32_t barrier_acc_flags;
	uint32_t barrier_acc_id;
	bool barrier_result_ready;
	int barrier_result;
	/* Notification ring consumer state. */
	uint64_t notify_head;
	uint64_t gone_head;		/* next peer-gone event of the kernel page (kmod) */
	uint64_t gone_seen;		/* events folded into rank_gone (kmod) */
	unsigned char *rank_gone;	/* per rank: 0, or 1 + died, from those events */
	bool gone_lost;			/* events were overwritten unread: rank_gone is partial */
	uint32_t died_seen;		/* conduit.peers_died when last folded (ctl.c) */
	bool leaving;		/* in pgas_exit(0): announced, draining */
	/* Per rank: 1 where this process loads and stores into the rank's
	 * segment and library area (its own rank always); 0 where every
	 * operation on it must take the remote path (conduit ops, AM). */
	unsigned char *mapped;
	/* What pgas__g.gone reads where nobody sleeps (see pgas_fast.h). */
	const uint64_t *gone_word;
	int wait_mode;		/* resolved: never PGAS_WAIT_AUTO */
	unsigned spin_limit;	/* resolved: shorter when oversubscribed */
};

extern struct pgas__job pgas__job;

/* ---- threads (thread.c) --------------------------------------------------- */

/* What belongs to the calling thread: struct pgas__thread, pgas_fast.h. */

/* The level pgas_init_thread provided (enum pgas_thread_level). */
extern int pgas__level;
static inline bool pgas__mt(void)
{
	return PGAS__UNLIKELY(pgas__level == PGAS_THREAD_MULTIPLE);
}

/*
 * The progress lock (PGAS_THREAD_MULTIPLE only): who holds it may consume
 * this rank's rings and run their handlers, advance the barrier and the
 * layers, and change their state.  Recursive, fair (a ticket lock).  A
 * thread that holds it outside any handler lends it to the others while it
 * idles in pgas__wait_step(): what they do meanwhile is what its own wait
 * would have done (see thread.c).  Sends need no lock.
 */
void pgas__plock_acquire(void);
bool pgas__plock_try(void);
void pgas__plock_release(void);
/* Release after a call: the outermost hold polls first (see thread.c). */
void pgas__plock_leave(void);
unsigned pgas__plock_lend(void);	/* before idling: gives every hold up */
void pgas__plock_retake(unsigned holds);

/*
 * Around a call that changes progress state: a no-op below MULTIPLE.  A
 * thread that holds a handler-safe lock only tries the progress lock: its
 * holder may be running a handler that spins on that HSL.  PGAS_OK with the
 * lock held, or PGAS_ERR_STATE naming call.
 */
int pgas__mt_enter_hsl(const char *call);
static inline int pgas__mt_enter(const char *call)
{
	if (!pgas__mt())
		return PGAS_OK;
	if (PGAS__UNLIKELY(pgas__self.hsl_held))
		return pgas__mt_enter_hsl(call);
	pgas__plock_acquire();
	return PGAS_OK;
}

static inline int pgas__mt_leave(int rc)
{
	if (pgas__mt())
		pgas__plock_leave();
	return rc;
}

/* wait.c: wakes the threads that nap (MULTIPLE, block mode; a no-op in the
 * other modes): work was done. */
void pgas__naps_wake(void);
/* progress.c: stops the progress thread if one runs; 1 if one did. */
int pgas__progress_thread_end(void);

/* May this thread wait for replies (not in a handler, no HSL held)? */
static inline bool pgas__may_wait(void)
{
	return !pgas__self.handler_depth && !pgas__self.hsl_held;
}

/* Refusals shared by the calls a handler or a held HSL must not make. */
static inline int pgas__check_thread(const char *call)
{
	if (PGAS__UNLIKELY(pgas__self.handler_depth))
		return pgas__err(PGAS_ERR_STATE, call, "called from a handler");
	if (PGAS__UNLIKELY(pgas__self.hsl_held))
		return pgas__err(PGAS_ERR_STATE, call, "called while holding a handler-safe lock");
	return PGAS_OK;
}

/*
 * pgas__g.pending: the inline poll reads it from any thread at MULTIPLE,
 * while the holder of the progress lock, its only writer, changes it:
 * relaxed atomics (plain moves), so that the race is a defined one.
 */
#define PGAS__PENDING_BARRIER	(1u << 31)	/* barrier.c; the layers' bits are below */
/* The conduit has proxy rings (c->remote): every poll and wait runs its
 * progress op, which ships and delivers what they hold (set at attach). */
#define PGAS__PENDING_CONDUIT	(1u << 30)
/* An extra endpoint's only (ep->pending): some peer is reached by messages
 * (pgas__ctl_msgs), so its polls also serve the primary (pgas__serve_primary). */
#define PGAS__PENDING_PRIMARY	(1u << 29)
static inline unsigned pgas__pending(void)
{
	return __atomic_load_n(&pgas__g.pending, __ATOMIC_RELAXED);
}

static inline void pgas__set_pending(unsigned bit, int on)
{
	unsigned w = pgas__pending();

	__atomic_store_n(&pgas__g.pending, on ? w | bit : w & ~bit, __ATOMIC_RELAXED);
}

/* The conduit's progress, where PGAS__PENDING_CONDUIT says it has one. */
static inline int pgas__conduit_progress(void)
{
	struct pgas_conduit *c = &pgas__job.conduit;

	return c->ops->progress(c);
}

/* Reads ep's own fabric endpoint's completions (ops->fep_progress): its
 * remote RMA completes only there.  The primary has none. */
static inline int pgas__fep_progress(const struct pgas__state *ep)
{
	struct pgas_conduit *c = &pgas__job.conduit;
	void *f = ep && ep->priv ? ep->priv->fep : NULL;

	return f ? c->ops->fep_progress(c, f) : 0;
}

/* am.c */
int pgas__am_setup(void);
/*
 * The library's own active messages: handler index 0 on the wire; the top
 * byte of args[0] names one of pgas__lib_handlers, which gets all the args
 * (the remote data path, index 0, sends its codes as they are; a layer sets
 * its entry before attach's barrier).  pgas__am_lib_medium: a Medium
 * request to rank's primary with args[0] = libh << 24 before args; imm:
 * PGAS_ERR_NOT_READY, with nothing sent, when the ring (or a bounce buffer)
 * is full.  Not from a handler.
 */
enum { PGAS__LIBH_RMA, PGAS__LIBH_COLL, PGAS__LIBH_CTL, PGAS__LIBH_N = 8 };
extern pgas_handler_fn pgas__lib_handlers[PGAS__LIBH_N];
int pgas__am_lib_medium(unsigned rank, unsigned libh, const void *buf, size_t nbytes,
			const uint32_t *args, unsigned nargs, bool imm);
void pgas__am_teardown(void);
/* An endpoint's message state (inbox, body buffers) from its rings. */
int pgas__am_ep_setup(struct pgas__state *ep, const struct pgas_conduit_ep *ring);
void pgas__am_ep_teardown(struct pgas__state *ep);
/* What pgas_poll does once it may: barrier, layers, both rings. */
int pgas__poll_locked(void);
/* Runs up to 'budget' messages of ep's channels in chan_mask; returns count. */
int pgas__ep_progress(struct pgas__state *ep, unsigned chan_mask, int budget);
int pgas__progress(unsigned chan_mask, int budget);	/* the primary's */
/* An extra endpoint's poll, if no other thread polls it: runs its handlers. */
int pgas__ep_poll_try(struct pgas__state *ep, unsigned chan_mask);

/*
 * Waits for room for k slots from ticket *t in eid's ring chan: 0, with
 * *t the ticket to write at (another one if eid was not resolved yet), or
 * an error it reported (eid unknown or closed).  A ticket of a revoked
 * mapping (pgas.ko) can be any value, so none could stand for a failure.
 */
int pgas__mbox_wait_space(struct pgas__state *ep, unsigned eid, unsigned chan, uint64_t *t,
			  unsigned k);

/* ep.c */
int pgas__ep_tables_setup(void);	/* at attach, once ntargets is known */
/* The entry that sends on chan from ep to eid use (replies of an extra
 * endpoint have a table of their own: its poller's). */
static inline struct pgas__peer *pgas__peer_of(struct pgas__state *ep, unsigned chan,
					       unsigned eid)
{
	if (chan == PGAS_CHAN_REPLY && ep->priv->rpeers)
		return &ep->priv->rpeers[eid];
	return &ep->peers[eid];
}
/* That entry, resolved (mapped) if it was not: 0, PGAS_ERR_NOT_READY (not
 * created yet, or no such eid) or PGAS_ERR_GONE (closed; owner is set). */
int pgas__ep_peer(struct pgas__state *ep, unsigned chan, unsigned eid, struct pgas__peer **out);
/* The rank that owns eid (created it), or ~0u if none did yet. */
unsigned pgas__eid_owner(unsigned eid);
/* Has the endpoint behind a live entry been closed since?  (wait loops) */
bool pgas__ep_peer_closed(struct pgas__state *ep, unsigned eid);
/* peers.c: fills an unresolved entry (sends to it leave the fast path). */
void pgas__peer_unresolved(struct pgas__peer *p);
/* A table of ntargets entries: [0, nranks) zero for the caller to fill,
 * the others unresolved (whole pages of them shared, copy on write). */
struct pgas__peer *pgas__peer_table_new(unsigned ntargets, unsigned nranks);
void pgas__peer_table_free(struct pgas__peer *t, unsigned ntargets);
/* Polls every live extra endpoint of this rank (the drain of pgas_exit),
 * or (progress_only) those created with PGAS_EP_PROGRESS. */
int pgas__eps_poll_mine(bool progress_only, unsigned chan_mask);
/* A snapshot of this rank's live extra endpoints (at most max); how many. */
unsigned pgas__eps_mine(struct pgas__state **list, unsigned max);
/* init.c: this process is a fork of the rank, not a member of the job. */
bool pgas__forked(void);
/* The primary's entries of every live extra endpoint of the job, resolved,
 * into list (at most max); how many. */
unsigned pgas__eps_job(struct pgas__peer **list, unsigned max);
/* Checks ep for a call: a live endpoint of this process. */
int pgas__check_ep(const char *call, const struct pgas__state *ep);
#define PGAS__CHANMASK_ALL ((1u << PGAS_CHAN_REQUEST) | (1u << PGAS_CHAN_REPLY))
#define PGAS__CHANMASK_REPLY (1u << PGAS_CHAN_REPLY)
/* Which channels a thread may poll while it waits in its current state. */
unsigned pgas__wait_chanmask(void);

/* barrier.c: runs the rounds of a notified barrier that have arrived. */
void pgas__barrier_advance(void);
/* Inline: a poll pays a load, not a call, where no barrier is notified. */
static inline void pgas__barrier_progress(void)
{
	if (pgas__pending() & PGAS__PENDING_BARRIER)
		pgas__barrier_advance();
}
void pgas__barrier_setup(void);	/* once nranks is known */


/*
 * The first page of every rank's library area (behind its segment, mapped
 * by every rank on both conduits): written by its owner only, read by the
 * peers.  Plain libpgas memory: pgas.ko never looks at it.
 */
struct pgas__rank_state {
	uint32_t leaving;	/* set (release) by pgas_exit(0) once it announces:
				 * a PGAS__LEFT_* value */
	uint32_t leavers;	/* rank 0's only: ranks that announced (atomic add) */
	uint64_t barriers;	/* barriers this rank notified before it left */
	uint32_t unanswered;	/* 1 + the rank whose request it left unanswered
				 * (pgas_exit(0) inside that request's handler), or 0 */
	uint32_t barrier_busy;	/* it left in a barrier it notified, still running */
	/* Rank 0's only, the last steps of pgas_exit(0) (init.c): */
	uint32_t fin_done;	/* ranks that saw the job quiescent (atomic add) */
	uint32_t fin_gone;	/* ranks other than 0 that will touch no peer again */
	uint32_t job_idle;	/* set (release) once rank 0 saw every rank leave and
				 * nothing in flight: the others' drain ends */
	uint32_t owers;		/* rank 0's only: leavers that left a request of some
				 * rank unanswered (atomic add; wait.c's owes_me) */
	uint64_t left_min_inv;	/* rank 0's only: ~(least 'barriers' of the ranks that
				 * left), 0 while none has: one word tells a waiter
				 * whether some leaver missed its barrier (barrier.c) */
	uint64_t reserved[3];
	/* Its endpoints beyond the primary, in creation order (ep.c): the
	 * count is stored (release) after the entry; a destroyed one's entry
	 * gets PGAS__EP_DIR_CLOSED. */
	uint32_t ep_extras;
	uint32_t ep_eid[256];
};
#define PGAS__EP_DIR_CLOSED 0x80000000u
_Static_assert(sizeof(struct pgas__rank_state) <= 4096, "rank state fits its page");
/* Job rank r's state page, as this process maps it (after attach). */
struct pgas__rank_state *pgas__rank_state(unsigned job_rank);

/* How a rank left (struct pgas__rank_state.leaving). */
#define PGAS__LEFT_EXIT		1u	/* pgas_exit(0) */
#define PGAS__LEFT_RETURN	2u	/* exit(0) or return from main */
#define PGAS__LEFT_HANDLER	3u	/* either of them inside a handler */
#define PGAS__LEFT_DIED		4u	/* its conduit says it died (peer_gone): no LEAVE came */

/* How many ranks announced that they leave (one load: cheap to poll). */
extern uint32_t *pgas__leavers_word;	/* &rank_state(0)->leavers, once attached */
static inline unsigned pgas__leavers(void)
{
	return pgas__leavers_word ? atomic_load_explicit((_Atomic uint32_t *)pgas__leavers_word,
							 memory_order_acquire) : 0;
}

/*
 * ctl.c: where some peer is not mapped (pgas__ctl_msgs), what the ranks
 * would have written into their rank-state pages travels as control
 * messages (AM Short of handler index 0): a rank's announcement lands in
 * pgas__fates[rank] of every other rank, and the words below read it from
 * there instead of the page.
 */
struct pgas__fate {
	uint32_t leaving;	/* as struct pgas__rank_state's */
	uint32_t unanswered;
	uint32_t barrier_busy;
	uint64_t barriers;
};
extern bool pgas__ctl_msgs;
extern struct pgas__fate *pgas__fates;	/* [nranks] where pgas__ctl_msgs, else NULL */
extern uint64_t pgas__ctl_handled;	/* control messages the primary handled */
#define PGAS__CTL_LIBH ((uint32_t)PGAS__LIBH_CTL << 24)	/* args[0] of the core's control messages */
int pgas__ctl_setup(void);		/* at attach, once the ranks' mapping is known */
uint32_t *pgas__ctl_leavers_word(void);
int pgas__ctl_barrier(unsigned to, unsigned k, unsigned parity, uint64_t word);
void pgas__ctl_leave(unsigned how, uint64_t barriers, unsigned unanswered, unsigned busy);
void pgas__ctl_busy_done(void);
void pgas__ctl_finish(void);
bool pgas__ctl_idle(void);
void pgas__ctl_idle_restart(void);	/* a wait begins: verdicts from before do not count */
/*
 * Asks rank r (by message, and waits for the answer) about its endpoint
 * directory: PGAS__ASK_ENTRY x: out[0] its extras, out[1] entry x (0 if
 * none); PGAS__ASK_FIND eid: out[0] 1 + its index among r's extras (0: not
 * r's), out[1] whether it is closed.  PGAS_ERR_STATE while holding an HSL
 * (nothing is polled then).
 */
#define PGAS__ASK_ENTRY 0u
#define PGAS__ASK_FIND 1u
int pgas__ctl_ask(struct pgas__state *ep, unsigned r, unsigned kind, uint32_t x, uint32_t out[2]);
/*
 * A step of a wait whose answer arrives at the primary (pgas__wait_step
 * polls it) made on behalf of ep: an extra endpoint is polled too.  Its
 * owner may be the only thread that polls it (at MULTIPLE), and a peer's
 * thread that waits for room in its ring may be the one that has to answer
 * this rank: without this the two would wait for each other.
 */
void pgas__wait_step_for(struct pgas__waiter *w, struct pgas__state *ep);
/*
 * Where some peer is reached by messages (pgas__ctl_msgs), what remote
 * ranks ask of this one (RMA by reference protocols, control) arrives at
 * the primary: a poll or wait of an extra endpoint polls it too when no
 * other thread does (a program whose threads poll only their endpoints
 * would otherwise never answer).  Nothing where every peer is mapped.
 */
int pgas__serve_primary(void);
void pgas__ctl_check_gone(const char *what);
/* am.c: an AM Short of handler 0, one slot; imm: PGAS_ERR_NOT_READY, with
 * nothing reserved, when the ring is full. */
int pgas__am_ctl_send(struct pgas__state *ep, unsigned chan, unsigned eid, const uint32_t *args,
		      unsigned nargs, bool imm);
/* ctl.c: a barrier round's message; PGAS_ERR_NOT_READY: the ring is full,
 * nothing was sent (barrier.c sends it again as it advances). */

/* Has job rank r announced that it leaves?  Acquire: what it wrote before
 * announcing (e.g. how far it got in each team) is visible after. */
static inline bool pgas__rank_leaving(unsigned r)
{
	if (pgas__fates)
		return __atomic_load_n(&pgas__fates[r].leaving, __ATOMIC_ACQUIRE) != 0;
	return atomic_load_explicit((_Atomic uint32_t *)&pgas__rank_state(r)->leaving,
				    memory_order_acquire) != 0;
}

/* How r left (PGAS__LEFT_*, 0 if it has not). */
static inline unsigned pgas__rank_how(unsigned r)
{
	if (pgas__fates)
		return __atomic_load_n(&pgas__fates[r].leaving, __ATOMIC_ACQUIRE);
	return atomic_load_explicit((_Atomic uint32_t *)&pgas__rank_state(r)->leaving,
				    memory_order_acquire);
}

/* Barriers r notified before it left (once pgas__rank_leaving(r)). */
static inline uint64_t pgas__rank_barriers(unsigned r)
{
	if (pgas__fates)
		return __atomic_load_n(&pgas__fates[r].barriers, __ATOMIC_RELAXED);
	return atomic_load_explicit((_Atomic uint64_t *)&pgas__rank_state(r)->barriers,
				    memory_order_relaxed);
}

/* 1 + the rank whose request r left unanswered, or 0. */
static inline unsigned pgas__rank_unanswered(unsigned r)
{
	if (pgas__fates)
		return __atomic_load_n(&pgas__fates[r].unanswered, __ATOMIC_RELAXED);
	return atomic_load_explicit((_Atomic uint32_t *)&pgas__rank_state(r)->unanswered,
				    memory_order_relaxed);
}

/* Did r leave in a barrier it notified, still running? */
static inline bool pgas__rank_barrier_busy(unsigned r)
{
	if (pgas__fates)
		return __atomic_load_n(&pgas__fates[r].barrier_busy, __ATOMIC_ACQUIRE) != 0;
	return atomic_load_explicit((_Atomic uint32_t *)&pgas__rank_state(r)->barrier_busy,
				    memory_order_acquire) != 0;
}

/* Has r's process ended, as the conduit knows it (conduit op peer_gone)? */
static inline bool pgas__peer_gone(unsigned r)
{
	struct pgas_conduit *c = &pgas__job.conduit;

	return c->ops->peer_gone && c->ops->peer_gone(c, r);
}

/* ctl.c: the ranks the conduit newly says died count as leavers. */
void pgas__ctl_note_died(void);
static inline void pgas__check_died(void)
{
	const struct pgas_conduit *c = &pgas__job.conduit;

	if (PGAS__UNLIKELY(__atomic_load_n(&c->peers_died, __ATOMIC_ACQUIRE) !=
			   __atomic_load_n(&pgas__job.died_seen, __ATOMIC_RELAXED)))
		pgas__ctl_note_died();
}

/* rma.c: makes room in my notification ring if it is half full. */
void pgas__notify_room(void);

/* wait.c */
/* Between two polls of a spin (a hint to the cpu; the wait modes' spin). */
static inline void pgas__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

long long pgas__now_ms(void);	/* CLOCK_MONOTONIC */
void pgas__wait_setup(void);
void pgas__wait_fabric(void);

/* init.c: what pgas_exit(0) announced ("pgas_exit", "exit(0)", ...). */
const char *pgas__left_how(unsigned job_rank);
/* am.c: pgas_exit(0) inside a handler: the messages being handled count as
 * handled (their slots and bounce buffers are given back); returns 1 + the
 * rank of an unanswered request among them, or 0. */
unsigned pgas__am_abandon_handlers(void);
/* Is no message in flight in the job?  (am.c tells why it is exact once
 * every rank, or every other rank, has left.) */
bool pgas__am_job_idle(void);

/*
 * barrier.c: the job's hosts as the hierarchical barrier and collectives
 * see them: NULL where the job is one group (every peer mapped) or the
 * hierarchy is off (PGAS_HIER=flat, PGAS_MAP_PEERS=none: every rank its
 * own group); else pgas__host_leader[r] is the lowest rank of r's group,
 * the ranks of r's host mapped to each other.
 */
extern unsigned *pgas__host_leader;
extern unsigned pgas__host_groups;	/* groups of the job (1 without hierarchy) */

/* Does this process load and store into job rank r's segment and state page? */
static inline bool pgas__rank_mapped(unsigned r)
{
	return pgas__job.mapped[r];
}

/*
 * rma_ref.c: the remote data path, for ranks this process does not map
 * (pgas__rank_mapped() false): a reference protocol over AM handler 0.
 */
#define PGAS__REF_BLOCKING	0
#define PGAS__REF_NB		1
#define PGAS__REF_NBI		2
struct pgas__ref_batch;
int pgas__ref_setup(void);	/* at attach: every rank's segment bounds */
void pgas__ref_region(unsigned rank, uint64_t remote, size_t size);
/* rank's segment and region in its address space (seg_size: its user part). */
void pgas__ref_bounds(unsigned rank, char **seg, size_t *seg_size, char **reg, size_t *reg_size);
bool pgas__ref_in_bounds(unsigned rank, const void *addr, size_t n);
/* A valid rank not mapped here, and [addr, +n) inside its segment or region. */
bool pgas__ref_takes(unsigned rank, const void *addr, size_t n);
void pgas__ref_handler(pgas_token_t token, void *buf, size_t nbytes, const uint32_t *args,
		       unsigned nargs);
/* get: 0 put, 1 get; form: PGAS__REF_*; handle: PGAS__REF_NB's. */
int pgas__ref_rma(struct pgas__state *ep, const char *call, int get, int form,
		  pgas_handle_t *handle, unsigned rank, void *remote, void *local, size_t n);
struct pgas__ref_batch *pgas__ref_batch_start(struct pgas__state *ep, const char *call, int get,
					      int form, unsigned rank, int *rc);
int pgas__ref_batch_add(struct pgas__ref_batch *b, int get, unsigned rank, void *remote,
			void *local, size_t n);
/* issued: the error that stopped the issue, or 0. */
int pgas__ref_batch_end(struct pgas__ref_batch *b, const char *call, unsigned rank, int issued,
			pgas_handle_t *handle);
int pgas__ref_val(const char *call, int get, unsigned rank, void *remote, uint64_t value,
		  size_t n, uint64_t *out);
int pgas__ref_memset(const char *call, unsigned rank, void *dst, int byte, size_t n);
int pgas__ref_amo(const char *call, unsigned rank, void *addr, unsigned dt, unsigned op,
		  unsigned flags, uint64_t x, uint64_t y, uint64_t *old);
/* Whether a domain of dt for ops is a fabric one: the conduit's amo does them all. */
bool pgas__ref_amo_fabric(unsigned dt, unsigned ops);
/* A fabric domain's operation, on any rank (mapped, the own too). */
int pgas__ref_amo_by_fabric(const char *call, unsigned rank, void *addr, unsigned dt,
			    unsigned aop, uint64_t x, uint64_t y, uint64_t *old);
int pgas__ref_put_signal(const char *call, pgas_handle_t *handle, unsigned rank, void *dst,
			 const void *src, size_t n, uint64_t *sig_addr, uint64_t signal,
			 int sig_op);
int pgas__ref_notify(const char *call, unsigned rank, void *dst, const void *src, size_t n,
		     uint32_t tag);
/* A Long (request or reply) to an endpoint of a rank not mapped here. */
int pgas__ref_long(struct pgas__state *ep, const char *call, unsigned chan, unsigned eid,
		   unsigned rank, unsigned handler, const void *buf, size_t n, void *dst,
		   const uint32_t *args, unsigned nargs, bool imm);
int pgas__ref_sync_nbi(struct pgas__state *ep, const char *call, int what, int block);
int pgas__ref_drain(struct pgas__state *ep, const char *call, int what);
int pgas__sync_many(const char *call, pgas_handle_t *handles, size_t count, int some,
		    int block);
/* am.c: a message of handler 0 from ep to eid on chan, as a Medium. */
int pgas__am_ref_send(struct pgas__state *ep, unsigned chan, unsigned eid, const uint32_t *args,
		      unsigned nargs, const void *buf, size_t nbytes, bool imm);
/* rma.c: a completer notification from src into my own ring (its owner). */
void pgas__notify_local(unsigned src, uint32_t size, uint32_t tag);
/* atomic.c: one atomic-domain operation on local memory p; the old value. */
uint64_t pgas__ad_exec(unsigned dt, void *p, unsigned op, uint64_t a, uint64_t b,
		       unsigned flags);

/* Checks that the job is attached; returns an error naming call if not
 * (inline: a load and a branch on the calls' paths, the error cold). */
int pgas__not_attached(const char *call);
static inline int pgas__check_attached(const char *call)
{
	int rc;

	if (PGAS__LIKELY(pgas__job.attached))
		return PGAS_OK;
	rc = pgas__not_attached(call);
	if (rc == PGAS_OK)	/* never: the callers' error paths need keep nothing */
		__builtin_unreachable();
	return rc;
}
/* The same, and that rank is a rank of the job. */
int pgas__check_rank(const char *call, unsigned rank);

/* ---- statistics and tracing (stats.c, docs/stats.md) --------------------- */

/* What PGAS_STATS counts and PGAS_TRACE writes, noted out of line. */
enum pgas__ev {
	PGAS__EV_PUT_MAPPED, PGAS__EV_GET_MAPPED,	/* the first four: by size too */
	PGAS__EV_PUT_REMOTE, PGAS__EV_GET_REMOTE,
	PGAS__EV_AMO_MAPPED, PGAS__EV_AMO_REMOTE,
	PGAS__EV_PUT_SIGNAL,
	/* Strided, vector and indexed calls (pgas_vis.h): bytes, all runs'. */
	PGAS__EV_VIS_PUT_MAPPED, PGAS__EV_VIS_GET_MAPPED,
	PGAS__EV_VIS_PUT_REMOTE, PGAS__EV_VIS_GET_REMOTE,
	/* Messages for a user's handler, sent (bytes: the payload) ...
	 * (in this order: am.c's am_ev counts on it) */
	PGAS__EV_AM_SHORT_REQ, PGAS__EV_AM_SHORT_REP,
	PGAS__EV_AM_MEDIUM_REQ, PGAS__EV_AM_MEDIUM_REP,
	PGAS__EV_AM_LONG_REQ, PGAS__EV_AM_LONG_REP,
	PGAS__EV_AM_LIB_SENT,		/* ... and the library's own (handler 0) */
	PGAS__EV_RECV_SHORT_REQ, PGAS__EV_RECV_SHORT_REP,	/* handled here */
	PGAS__EV_RECV_MEDIUM_REQ, PGAS__EV_RECV_MEDIUM_REP,
	PGAS__EV_RECV_LONG_REQ, PGAS__EV_RECV_LONG_REP,
	PGAS__EV_RECV_LIB,
	PGAS__EV_WAIT,			/* a wait step: bytes are its nanoseconds */
	PGAS__EV_BARRIER,
	PGAS__EV_N
};
extern bool pgas__notes_on;	/* PGAS_STATS or PGAS_TRACE */
void pgas__ev(enum pgas__ev e, unsigned rank, size_t n);
#define PGAS__EV(e, rank, n)						\
	do {								\
		if (PGAS__UNLIKELY(pgas__notes_on))			\
			pgas__ev((e), (rank), (n));			\
	} while (0)
/* rc, and e noted when rc is PGAS_OK. */
static inline int pgas__ev_ok(int rc, enum pgas__ev e, unsigned rank, size_t n)
{
	if (PGAS__UNLIKELY(pgas__notes_on) && rc == PGAS_OK)
		pgas__ev(e, rank, n);
	return rc;
}
/* For a layer's own counters (the collectives'): whether this rank counts
 * what it does now, and one trace line (cls: PGAS_TRACE's bit). */
bool pgas__notes_mine(void);
#define PGAS__TRACE_COLL 16u
void pgas__trace_event(unsigned cls, const char *name, unsigned rank, size_t n);
uint64_t pgas__wait_clock(void);
void pgas__ev_wait(uint64_t started);
void pgas__notes_start(int mine);	/* 0: at the attach barrier; 1: attach done */
void pgas__notes_stop(void);	/* the rank's exit starts */
void pgas__notes_report(void);	/* at the rank's end */

#endif /* PGAS_INTERNAL_H */
