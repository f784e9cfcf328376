/* SPDX-License-Identifier: MIT */
/*
 * pgas.h - libpgas public API: active messages, one-sided put/get, barriers;
 * teams and collectives in pgas_coll.h, remote atomics in pgas_atomic.h,
 * strided, indexed and vector put/get in pgas_vis.h.
 *
 * Every call returns 0 (PGAS_OK) or a negative PGAS_ERR_* code; on failure
 * the message naming the call and the offending value is available from
 * pgas_last_error() and, unless PGAS_ERROR_MODE=quiet, printed to stderr
 * (PGAS_ERROR_MODE=abort aborts instead).
 *
 * Threads: as pgas_init_thread() provided (PGAS_THREAD_SINGLE with
 * pgas_init); see "threads" below.
 *
 * Completion and ordering of RMA (put/get/memset):
 *  - Local completion: the source buffer of a put may be reused, and the
 *    destination of a get holds the data.
 *  - Remote completion: the data is in the target's memory and visible to
 *    any rank that synchronises with the initiator afterwards (barrier, an
 *    AM sent after the completion, a put issued after the completion).
 *  - Blocking calls return remotely complete.  Non-blocking calls (_nb with
 *    an explicit handle, _nbi with the implicit one) are complete after the
 *    matching sync.  On conduits that copy in the calling thread (shm, and
 *    pgas.ko below its offload threshold) they complete before returning
 *    and their handle is PGAS_HANDLE_DONE; code must not rely on that.
 *  - No ordering between two outstanding non-blocking operations.  An AM
 *    sent after a put completed is delivered after the put's data.
 *  - AM Long: the payload is in the target's segment before the handler
 *    runs.  AM LongAsync: the same; the source buffer may be reused only
 *    after the call returns (which is when the copy is done here).
 */
#ifndef PGAS_H
#define PGAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PGAS_VERSION_MAJOR 0
#define PGAS_VERSION_MINOR 1

/* ---- errors -------------------------------------------------------------- */

enum pgas_err {
	PGAS_OK = 0,
	PGAS_ERR_INVAL = -1,		/* bad argument */
	PGAS_ERR_RANK = -2,		/* rank out of range */
	PGAS_ERR_BOUNDS = -3,		/* outside a segment */
	PGAS_ERR_HANDLER = -4,		/* bad or unregistered handler index */
	PGAS_ERR_STATE = -5,		/* call not allowed now */
	PGAS_ERR_NOMEM = -6,
	PGAS_ERR_SYS = -7,		/* system call failed */
	PGAS_ERR_NOT_READY = -8,	/* try: not complete yet */
	PGAS_ERR_BARRIER_MISMATCH = -9,
	PGAS_ERR_SIZE = -10,		/* size over a limit */
	PGAS_ERR_GONE = -11,		/* a rank or endpoint it needs has left */
	PGAS_ERR_RESOURCE = -12,	/* no endpoint left to create */
};

const char *pgas_strerror(int err);
/* Message of the most recent failure of this thread ("" if none). */
const char *pgas_last_error(void);

/* ---- job ----------------------------------------------------------------- */

typedef struct pgas_token *pgas_token_t;

/*
 * AM handler.  args: nargs 32-bit arguments.  buf/nbytes: Medium payload
 * (valid until the handler returns, 8-byte aligned) or Long payload (in
 * this rank's segment); NULL/0 for Short.
 */
typedef void (*pgas_handler_fn)(pgas_token_t token, void *buf, size_t nbytes,
				const uint32_t *args, unsigned nargs);

typedef struct {
	unsigned index;			/* 1..PGAS_MAX_HANDLERS-1; 0 is reserved */
	pgas_handler_fn fn;
} pgas_handler_entry_t;

#define PGAS_MAX_HANDLERS 256
#define PGAS_AM_MAX_ARGS 16

typedef struct {
	void *addr;			/* in the owner's address space */
	size_t size;
} pgas_seginfo_t;

/* Joins the job (pgasrun's or a one-rank job without pgasrun). */
int pgas_init(int *argc, char ***argv);

/*
 * Threads.  pgas_init() is pgas_init_thread(argc, argv, PGAS_THREAD_SINGLE,
 * NULL).  The levels, as OpenSHMEM's shmem_init_thread and MPI's:
 *
 * SINGLE      one thread calls libpgas, ever.
 * FUNNELED    the process may have threads; only the one that called
 *             pgas_init_thread calls libpgas.
 * SERIALIZED  any thread may call, never two at once: the application
 *             orders its calls (a mutex, a join), so that each happens
 *             before the next.  Handler depth, held handler-safe locks and
 *             the access region belong to the thread.
 * MULTIPLE    any thread, any time, with three rules:
 *  - pgas_init_thread and pgas_attach run before any other thread calls.
 *  - the calls of one team (pgas_barrier_* are the job team's) are made by
 *    one thread at a time per rank, in the same order on every member, as
 *    MPI's rule for a communicator.  Different teams run at once in
 *    different threads.
 *  - pgas_exit(0), and exit(0) or return from main after pgas_init, run
 *    when no other thread is inside libpgas or will enter it.
 *
 * provided = min(requested, PGAS_THREAD_MULTIPLE).  One library serves
 * every level; below MULTIPLE the calls cost what they did single-threaded.
 * At MULTIPLE, RMA stays inline and lock-free; AM sends go out of line but
 * take no lock (the mailboxes are multi-producer); what receives (polls,
 * handlers, barrier and collective progress, the notification ring) runs
 * under one lock per process, which a poll only tries.
 *
 * Who runs handlers: a thread that polls (pgas_poll, or any wait inside a
 * call: for ring space, a barrier, a collective, pgas_block_until), inside
 * that call, one thread at a time per rank, in arrival order per channel.
 * A thread inside a handler polls only the reply ring.  Nobody runs
 * handlers unless some thread polls or waits: a rank whose threads only
 * compute should have one that polls.
 */
enum pgas_thread_level {
	PGAS_THREAD_SINGLE = 0,
	PGAS_THREAD_FUNNELED = 1,
	PGAS_THREAD_SERIALIZED = 2,
	PGAS_THREAD_MULTIPLE = 3,
};
/* provided may be NULL.  An unknown requested level is PGAS_ERR_INVAL. */
int pgas_init_thread(int *argc, char ***argv, int requested, int *provided);
/* The level provided; -1 before pgas_init. */
int pgas_query_thread(void);
/*
 * A progress thread (PGAS_THREAD_MULTIPLE, after pgas_attach): a thread of
 * libpgas's that polls this rank (its primary, and its endpoints created
 * with PGAS_EP_PROGRESS) until stopped, so that handlers run and
 * split-phase barriers and collectives advance while the application's
 * threads compute (Chapel's pattern).  It idles in the job's wait mode: in
 * block mode it sleeps until a message rings this rank.  Starting a second
 * one, or stopping it from a handler it runs, is PGAS_ERR_STATE.
 * pgas_exit(0) stops it, and so does exit(0), before the atexit handlers
 * registered before the start run; handlers registered after the start
 * (C++ statics constructed later) run while it still polls: stop it first
 * if they free what handlers use.
 */
int pgas_progress_thread_start(void);
int pgas_progress_thread_stop(void);
/* Registers handlers and creates this rank's segment (collective). */
int pgas_attach(const pgas_handler_entry_t *table, size_t count, size_t segsize);
/*
 * Leaves the job.
 *
 * pgas_exit(code != 0) ends the whole job at once, like gasnet_exit: the
 * process exits with code, pgasrun names it and ends the others; messages
 * in flight are lost.  So do exit(code != 0), abort(), a signal, and
 * _exit(0) after pgas_init (pgasrun: "exited ... without pgas_exit").
 *
 * pgas_exit(0) is a finalize in the manner of MPI_Finalize and
 * shmem_finalize (every rank does it; the communication that a rank started
 * completes before the job ends), but it is not a barrier that can
 * deadlock: a rank that waits for one that has left fails instead.  The
 * rank (1) completes its own RMA (nbi included: what it put is in the
 * target's memory), (2) gives up its collectives, (3) announces that it
 * leaves, and (4) keeps running handlers, so that requests to it are
 * handled and answered and a flood into its mailbox drains, until every
 * rank of the job has left and no message is in flight anywhere; then the
 * process exits with 0.  Hence, when every rank ends with pgas_exit(0),
 * the job ends with 0 and every message sent before any pgas_exit was
 * delivered and its handler ran.  exit(0) and a return from main after
 * pgas_init do the same (an on_exit hook).
 *
 * While a rank has left, the others keep running:
 *  - a barrier the leaver did not notify before it left, and every later
 *    one, fails with PGAS_ERR_GONE ("rank 2 has left the job (pgas_exit)
 *    before barrier 7") on every rank that waits in it (a split-phase
 *    barrier it notified still completes: it runs its rounds while it
 *    drains);
 *  - a collective of a team the leaver belongs to that it did not finish
 *    fails with PGAS_ERR_GONE naming it (pgas_coll.h);
 *  - AM requests to it are handled and answered, puts and gets to its
 *    segment work: its memory stays until the job ends;
 *  - a rank whose process has ended (killed, or exited without finalizing)
 *    takes its memory with it over pgas.ko: a put, get or get_nbi
 *    aimed at it, and each blocking or _nb/_val variant, returns its data
 *    until pgas.ko has revoked the memory and then fails with
 *    PGAS_ERR_GONE naming it (never another rank's bytes or zeros with
 *    rc 0); a pgas_put_nbi to it is discarded without a report (nobody
 *    can read it).  Over shm its memory stays until the job ends.  Either
 *    way pgasrun then ends the job, and a wait ends the rank (exit 70);
 *  - a wait that can never end because every other rank has left and no
 *    message is in flight ends the rank with a message (pgas__fatal: exit
 *    70), as does a wait after a leaver left inside the handler of this
 *    rank's request without replying, once nothing has been in flight for
 *    a second.  The rule for every wait: one for what only peers provide
 *    (room in another rank's rings or bounce buffers, a barrier, a
 *    collective, a sync) is judged so at every thread level; one for what
 *    a thread of this rank may provide (the caller's own condition in
 *    pgas_block_until, pgas_ep_block_until and pgas_signal.h's memory
 *    waits; room in this rank's own rings and bounce buffers) only at
 *    PGAS_THREAD_SINGLE: above it another thread of the rank may still
 *    provide it, and the wait goes on (forever, if none does).
 * pgas_exit(0) or exit(0) inside a handler: the message counts as handled
 * (its slot and bounce buffer are given back), the request stays
 * unanswered (see above), and the finalize proceeds as outside.
 */
void pgas_exit(int code) __attribute__((noreturn));
/*
 * Ends every rank of the job now, each process with code & 0xff, 0
 * included (OpenSHMEM's shmem_global_exit; pgas_exit(code != 0) ends the
 * others by signal).  Nothing is finalized: messages and transfers in
 * flight are dropped, atexit handlers do not run.  Under pgasrun the other
 * ranks end by a signal of libpgas's (SIGRTMIN + 4, handled from
 * pgas_init: a program must not block it), which makes each _exit(code),
 * and pgasrun ends with code; a rank that blocks it is killed after 2 s.
 * Callable from any thread and from a handler, attached or not.
 */
void pgas_global_exit(int code) __attribute__((noreturn));

unsigned pgas_rank(void);
unsigned pgas_nranks(void);
/*
 * Segment of every rank: info[0..count), count <= pgas_nranks().  Every
 * rank's segment starts at an address (as its owner sees it) aligned to
 * PGAS_SEGMENT_ALIGN, so that an offset aligned up to that much is aligned
 * in every rank (OpenSHMEM's shmem_align).
 */
#define PGAS_SEGMENT_ALIGN ((size_t)32 << 20)
int pgas_seginfo(pgas_seginfo_t *info, unsigned count);
void *pgas_segment_addr(unsigned rank);	/* NULL if out of range */
size_t pgas_segment_size(unsigned rank);

/*
 * A second segment: memory this process already has at addr (page-aligned,
 * len a multiple of the page size), such as a program's .data and .bss,
 * becomes reachable by every RMA, atomic, signal and pgas_ptr call
 * addressed with the owner's address, as the segment is (the collectives
 * in local mode take buffers anywhere: they stage those outside the
 * segment, these too; single mode needs segment addresses).  Collective,
 * after pgas_attach,
 * once per job (one region per rank: PGAS_MAX_REGIONS); a rank with
 * nothing to register passes NULL, 0.  The range keeps its address and
 * contents, but on the shm conduit its pages are replaced by shared ones
 * (a copy is mapped over them), so no other thread may touch it during
 * the call; a child forked afterwards gets it privately (copy-on-write
 * of what is there, before the child's own code runs).  On
 * pgas.ko the pages are pinned (they count against RLIMIT_MEMLOCK).
 * PGAS_ERR_INVAL: unaligned, empty with a non-NULL addr, or overlapping a
 * rank's own segment; PGAS_ERR_SIZE: over 16 TiB; PGAS_ERR_STATE: before
 * pgas_attach, a second time, or a conduit that cannot.  These return at
 * once, before the collective part: every rank must pass valid arguments.
 * A failure of one rank's registration (PGAS_ERR_SYS, PGAS_ERR_NOMEM:
 * RLIMIT_MEMLOCK on pgas.ko) fails every rank's call.
 */
#define PGAS_MAX_REGIONS 1
int pgas_segment_register(void *addr, size_t len);
/* Rank's registered region (addr as its owner sees it); {NULL, 0} for none. */
int pgas_region_info(unsigned rank, pgas_seginfo_t *info);

/*
 * Who shares this rank's host and memory (GASNet-EX's
 * gex_System_QueryNbrhdInfo and QueryHostInfo; OpenSHMEM's
 * SHMEM_TEAM_SHARED).  The neighbourhood: the ranks whose segments
 * pgas_ptr reaches from here.  The host: the ranks on this machine.
 * *members: their ranks in increasing order, library memory valid until
 * the process ends; *size: how many; *index: this rank's position among
 * them.  Any of the three may be NULL.  After pgas_attach.  On shm and
 * pgas.ko a job runs on one host and every rank is reachable, so both are
 * the whole job; a conduit that spans hosts will make them differ.
 */
int pgas_query_nbrhd(const unsigned **members, unsigned *size, unsigned *index);
int pgas_query_host(const unsigned **members, unsigned *size, unsigned *index);

/* Configuration: the env table (PGAS_VERBOSEENV=1 prints it at init). */
void pgas_print_config(void *file /* FILE * */);

/* ---- active messages ----------------------------------------------------- */

size_t pgas_am_max_medium(void);
/* Largest Medium payload, with nargs args, carried inline in VELO packets;
 * larger ones go through a bounce buffer (PGAS_AM_PACKET_MAX). */
size_t pgas_am_medium_inline_max(unsigned nargs);
size_t pgas_am_max_long(unsigned rank);
int pgas_token_rank(pgas_token_t token, unsigned *rank);

/*
 * OR'ed into the handler argument of any request or reply call: send only
 * if the target's ring (and, for a Medium through a bounce buffer, the
 * buffer) has room now, else return PGAS_ERR_NOT_READY at once, with
 * nothing sent and no error reported (GASNet-EX's GEX_FLAG_IMMEDIATE).
 * Without it a call waits for the room, polling as pgas.h says.  RMA needs
 * no such flag here: puts, gets, signals and atomics never wait for a ring
 * on shm and pgas.ko (pgas_put_signal's notification, which can, has none).
 */
#define PGAS_AM_IMMEDIATE 0x10000u

static inline int pgas_am_request_short(unsigned rank, unsigned handler,
					const uint32_t *args, unsigned nargs);
int pgas_am_request_medium(unsigned rank, unsigned handler,
			   const void *buf, size_t nbytes,
			   const uint32_t *args, unsigned nargs);
/* dst: address in rank's segment, as that rank sees it. */
int pgas_am_request_long(unsigned rank, unsigned handler,
			 const void *buf, size_t nbytes, void *dst,
			 const uint32_t *args, unsigned nargs);
int pgas_am_request_long_async(unsigned rank, unsigned handler,
			       const void *buf, size_t nbytes, void *dst,
			       const uint32_t *args, unsigned nargs);

/* From a request handler only, at most once per request. */
int pgas_am_reply_short(pgas_token_t token, unsigned handler,
			const uint32_t *args, unsigned nargs);
int pgas_am_reply_medium(pgas_token_t token, unsigned handler,
			 const void *buf, size_t nbytes,
			 const uint32_t *args, unsigned nargs);
int pgas_am_reply_long(pgas_token_t token, unsigned handler,
		       const void *buf, size_t nbytes, void *dst,
		       const uint32_t *args, unsigned nargs);

/* Runs pending handlers; returns how many ran (>= 0) or an error. */
static inline int pgas_poll(void);

/* Polls (spin, yield or block per PGAS_WAIT_MODE) until cond is true.
 * Abandoned (every other rank left): ends the rank at PGAS_THREAD_SINGLE
 * only (pgas_exit says the rule), as pgas_ep_block_until does. */
#define pgas_block_until(cond)						\
	do {								\
		struct pgas__waiter pgas__w = PGAS__WAITER_USER;	\
		while (!(cond))						\
			pgas__wait_step(&pgas__w);			\
	} while (0)

/* ---- endpoints ----------------------------------------------------------- */

/*
 * Endpoints (GASNet-EX's gex_EP_t, OpenSHMEM's contexts): a rank may create
 * more endpoints beside its primary one, each with its own mailboxes,
 * implicit-handle (nbi) state and handler table, and hand one to each
 * thread: threads on different endpoints share no ring, no counter and no
 * written cache line on their fast paths (pgas_ep_* below inline as the
 * primary's calls do).  PGAS_EP_PRIMARY is the endpoint that every call
 * without "_ep_" uses: today's programs are programs of the primary.
 *
 * Addressing.  RMA names a rank: the endpoints of a rank share its one
 * segment (registered once).  AM names an endpoint index (eid), unique in
 * the job and never reused: a rank's primary's eid is the rank, so every
 * AM call without "_ep_" sends from primary to primary.  pgas_ep_lookup
 * turns (rank, i-th endpoint the rank created) into the eid; a request's
 * handler learns the sender's eid from pgas_token_ep and replies to it.
 * Sending to an endpoint that was destroyed fails with PGAS_ERR_GONE where
 * the sender can tell (a wait for its ring space or bounce buffer, an
 * out-of-line send); an inline one-slot request may be dropped silently.
 *
 * Threads.  Sends and syncs on one endpoint (pgas_ep_put*, pgas_ep_get*,
 * pgas_ep_am_request_*, pgas_ep_wait_sync*) come from one thread at a time
 * (OpenSHMEM's SHMEM_CTX_PRIVATE or SERIALIZED contexts): no lock is taken.
 * Polls of an endpoint (pgas_ep_poll, and the waits inside calls on it)
 * may come from any thread: one at a time runs its handlers, another that
 * polls meanwhile returns 0 at once.  Below MULTIPLE every wait (in any
 * call, on any endpoint) also polls all of the rank's endpoints, since the
 * one calling thread owns them all; at MULTIPLE a wait polls its own
 * endpoint, and each endpoint needs a thread that polls it (its own, a
 * dedicated one, or the progress thread with PGAS_EP_PROGRESS).  A dedicated thread may poll every
 * endpoint while others send on them (Chapel's pattern).  More than one
 * thread calling libpgas needs pgas_init_thread's SERIALIZED or MULTIPLE;
 * at MULTIPLE the primary stays shared as that level says, and extra
 * endpoints keep their lock-free inline paths.
 *
 * Handlers.  An endpoint's handler table is a copy of pgas_attach's, taken
 * at creation.  Its handlers run in the thread that polls it, inside that
 * poll; they may reply (the reply leaves from the endpoint the request
 * arrived on) but not send requests on any endpoint.
 *
 * Limits.  A rank creates at most K - 1 endpoints over its life, K =
 * PGAS_EP_MAX or pgas_ep_max() / nranks if smaller (eids are not reused:
 * destroying one does not give its slot back), and every eid is below
 * pgas_ep_max(): nranks * PGAS_EP_MAX, where over pgas.ko the launcher's
 * PGAS_EP_MAX sizes the job.
 *
 * pgas_exit(0) drains the rank's endpoints with its primary (what was sent
 * to them is handled); a forked child of the rank may not create or
 * destroy endpoints (PGAS_ERR_STATE).
 *
 * Not yet on extra endpoints: put_signal/notifications, atomics domains,
 * non-contiguous RMA, memset and access regions (the primary's calls do
 * them; an extra endpoint's thread may call them at MULTIPLE).
 */
typedef struct pgas__state *pgas_ep_t;
#define PGAS_EP_PRIMARY (&pgas__g)

/* After pgas_attach, not collective.  PGAS_ERR_RESOURCE when the rank or
 * the job has no endpoint left.  flags: 0 or PGAS_EP_PROGRESS. */
int pgas_ep_create(pgas_ep_t *ep, unsigned flags);
/*
 * The library's progress thread (pgas_progress_thread_start) polls this
 * endpoint too, as it polls the primary: the endpoint's own thread may
 * then send and compute without ever polling (Chapel's pattern).  Which
 * endpoints carry the flag is the progress thread's polling mask.  In the
 * block wait mode it sleeps on the primary's doorbell: a message to such
 * an endpoint is handled within its nap (1-8 ms), or at once if anything
 * rings the primary.
 */
#define PGAS_EP_PROGRESS 1u
/* Local.  No thread may use ep during or after the call; messages that
 * arrive for it later are dropped.  Its _nb and _nbi operations still in
 * flight to ranks reached through a network complete first (their handles
 * still need their sync; an _nbi error is left for the next sync of the
 * primary's).  It waits for the library's progress
 * thread to leave ep (which it polls under the endpoints' lock, taken
 * here first); PGAS_ERR_STATE if a handler of ep calls it, or while
 * another thread of the program polls ep (pgas_ep_poll, a wait on it). */
int pgas_ep_destroy(pgas_ep_t ep);
/* ep's eid (the primary's: this rank). */
unsigned pgas_ep_index(pgas_ep_t ep);
/* Every eid of the job is below it (after pgas_attach). */
unsigned pgas_ep_max(void);
/* Endpoints rank has created so far, its primary and destroyed ones
 * included (creation order i = 0 .. count - 1). */
int pgas_ep_count(unsigned rank, unsigned *count);
/* The eid of the i-th endpoint rank created (0: its primary).
 * PGAS_ERR_NOT_READY: not created yet; PGAS_ERR_GONE: destroyed (*eid is
 * still set). */
int pgas_ep_lookup(unsigned rank, unsigned i, unsigned *eid);
/* The rank that created eid, and its creation index there (either pointer
 * may be NULL).  PGAS_ERR_NOT_READY: not created yet; PGAS_ERR_GONE:
 * destroyed (both still set). */
int pgas_ep_locate(unsigned eid, unsigned *rank, unsigned *i);
/* The eid a message came from (pgas_token_rank: the rank that owns it). */
int pgas_token_ep(pgas_token_t token, unsigned *eid);

/*
 * Every call of the primary has an endpoint form with ep first:
 * RMA (rank-addressed), in pgas_fast.h:
 *   pgas_ep_put, pgas_ep_get, pgas_ep_put_nb, pgas_ep_get_nb, pgas_ep_put_nbi,
 *   pgas_ep_get_nbi, pgas_ep_put_val, pgas_ep_get_val,
 *   pgas_ep_wait_syncnbi_{puts,gets,all}, pgas_ep_try_syncnbi_{puts,gets,all},
 *   pgas_ep_quiet, pgas_ep_fence (a sync or fence covers the operations issued
 *   on that endpoint);
 * AM (eid-addressed): pgas_ep_am_request_short (inline) and the three below;
 * progress: pgas_ep_poll, pgas_ep_block_until.
 */
int pgas_ep_am_request_medium(pgas_ep_t ep, unsigned eid, unsigned handler,
			      const void *buf, size_t nbytes,
			      const uint32_t *args, unsigned nargs);
/* dst: in the segment of the rank that owns eid. */
int pgas_ep_am_request_long(pgas_ep_t ep, unsigned eid, unsigned handler,
			    const void *buf, size_t nbytes, void *dst,
			    const uint32_t *args, unsigned nargs);
int pgas_ep_am_request_long_async(pgas_ep_t ep, unsigned eid, unsigned handler,
				  const void *buf, size_t nbytes, void *dst,
				  const uint32_t *args, unsigned nargs);

/* ---- handler-safe locks ------------------------------------------------------ */

/*
 * A lock that may be taken inside handlers.  While a thread holds one it
 * must not send requests or poll (those calls fail with PGAS_ERR_STATE):
 * a handler run by that poll could wait for the same lock forever.  The
 * rule is the holding thread's: other threads go on.  At
 * PGAS_THREAD_MULTIPLE, while another thread runs this rank's handlers,
 * the holder's barrier, collective, team and signalling calls fail with
 * PGAS_ERR_STATE and pgas_notify_poll finds nothing (a handler may be
 * waiting for that lock); RMA and replies are not affected.
 */
typedef struct {
	int locked;
} pgas_hsl_t;
#define PGAS_HSL_INITIALIZER { 0 }
int pgas_hsl_init(pgas_hsl_t *lock);
int pgas_hsl_destroy(pgas_hsl_t *lock);
int pgas_hsl_lock(pgas_hsl_t *lock);
int pgas_hsl_unlock(pgas_hsl_t *lock);
/* 0 = taken, PGAS_ERR_NOT_READY = held by someone else. */
int pgas_hsl_trylock(pgas_hsl_t *lock);

/* ---- one-sided RMA ------------------------------------------------------- */

typedef uint64_t pgas_handle_t;
#define PGAS_HANDLE_DONE ((pgas_handle_t)0)

static inline int pgas_put(unsigned rank, void *dst, const void *src, size_t nbytes);
static inline int pgas_get(void *dst, unsigned rank, const void *src, size_t nbytes);
static inline int pgas_put_nb(pgas_handle_t *handle, unsigned rank, void *dst,
			      const void *src, size_t nbytes);
static inline int pgas_get_nb(pgas_handle_t *handle, void *dst, unsigned rank,
			      const void *src, size_t nbytes);
static inline int pgas_put_nbi(unsigned rank, void *dst, const void *src, size_t nbytes);
static inline int pgas_get_nbi(void *dst, unsigned rank, const void *src, size_t nbytes);

/* Register-value forms: nbytes is 1, 2, 4 or 8; dst/src naturally aligned. */
static inline int pgas_put_val(unsigned rank, void *dst, uint64_t value, size_t nbytes);
static inline int pgas_get_val(uint64_t *value, unsigned rank, const void *src,
			       size_t nbytes);
int pgas_memset(unsigned rank, void *dst, int byte, size_t nbytes);

/* Explicit handles: wait = block, try = PGAS_ERR_NOT_READY if pending. */
static inline int pgas_wait_syncnb(pgas_handle_t handle);
static inline int pgas_try_syncnb(pgas_handle_t handle);
/* all: every handle; some: at least one (completed ones become DONE). */
int pgas_wait_syncnb_all(pgas_handle_t *handles, size_t count);
int pgas_try_syncnb_all(pgas_handle_t *handles, size_t count);
int pgas_wait_syncnb_some(pgas_handle_t *handles, size_t count);
int pgas_try_syncnb_some(pgas_handle_t *handles, size_t count);

/* Implicit handle: every _nbi put / get issued so far. */
static inline int pgas_wait_syncnbi_puts(void);
static inline int pgas_wait_syncnbi_gets(void);
static inline int pgas_wait_syncnbi_all(void);
static inline int pgas_try_syncnbi_puts(void);
static inline int pgas_try_syncnbi_gets(void);
static inline int pgas_try_syncnbi_all(void);

/* Access region: the _nbi operations between begin and end get one handle. */
int pgas_begin_nbi_accessregion(void);
int pgas_end_nbi_accessregion(pgas_handle_t *handle);

/*
 * Ordering, as OpenSHMEM 1.5's shmem_fence and shmem_quiet.
 *
 * pgas_fence: of the puts (any form), memsets, signals and atomic-domain
 * operations the calling thread issued to one rank, those before the fence
 * are visible at that rank before any it issues after the fence.  Nothing
 * is waited for where every rank is mapped; with puts to ranks reached
 * through a network in flight, they complete first (a conduit's messages
 * and its fabric writes take different paths) -- except in a handler or
 * under a handler-safe lock, which cannot wait for replies: there it (and
 * an atomic with PGAS_AOP_REL) orders the stores to mapped ranks only.
 * pgas_quiet: every put, get and atomic this rank issued before it, by any
 * thread and in any form (blocking, _nb, _nbi), is complete: puts and
 * atomics are visible to every thread of every rank, gets have their data.
 * (The _nbi syncs therefore also wait for _nb operations in flight to ranks
 * reached through a network; their handles still need their own sync.)
 * It is pgas_wait_syncnbi_all() with a full fence, so a load after it (a
 * flag of a peer's) is not ordered before the stores of the puts before it.
 * In the block wait mode it also wakes the peers that sleep, so that the
 * words their waits test see the puts (see pgas_wait_until_u64).
 *
 * On shm and pgas.ko every transfer is complete when its call returns:
 * pgas_fence is a release fence (no instruction on x86), pgas_quiet a full
 * fence.  Code must not rely on that: a network conduit will need them.
 */
static inline void pgas_fence(void);
static inline int pgas_quiet(void);

/*
 * A pointer through which this thread can load and store the memory of
 * rank at addr (an address in rank's segment, in rank's address space), or
 * NULL when rank's memory is not load/store reachable from here, rank is
 * out of range or addr is outside its segment (as OpenSHMEM's shmem_ptr).
 * Every rank of a job on shm or pgas.ko is reachable.  The pointer is valid
 * while rank is in the job; the rules of pgas_atomic.h still apply to
 * words updated through atomic domains.
 */
static inline void *pgas_ptr(unsigned rank, const void *addr);

/* Signalling put: put, then a completer notification in rank's ring. */
int pgas_put_signal(unsigned rank, void *dst, const void *src, size_t nbytes,
		    uint32_t tag);
typedef struct {
	unsigned src;		/* rank that wrote the notification */
	unsigned kind;		/* enum pgas_notify_kind of pgas_abi.h */
	uint32_t size;
	uint32_t tag;
} pgas_notification_t;
/* 1 = one notification taken, 0 = none pending, < 0 error. */
int pgas_notify_poll(pgas_notification_t *out);

/* ---- barrier ------------------------------------------------------------- */

#define PGAS_BARRIERFLAG_ANONYMOUS 1u	/* matches any id */
#define PGAS_BARRIERFLAG_MISMATCH 2u	/* force a mismatch */

int pgas_barrier_notify(uint32_t id, unsigned flags);
/* PGAS_ERR_BARRIER_MISMATCH if named ids differed or a rank forced it. */
int pgas_barrier_wait(uint32_t id, unsigned flags);
/* As wait, or PGAS_ERR_NOT_READY without blocking. */
int pgas_barrier_try(uint32_t id, unsigned flags);
int pgas_barrier(uint32_t id, unsigned flags);

#ifdef __cplusplus
}
#endif

#include "pgas_fast.h"
#include "pgas_atomic.h"
#include "pgas_signal.h"
#include "pgas_vis.h"
#include "pgas_coll.h"

#endif /* PGAS_H */
