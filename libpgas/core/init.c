// SPDX-License-Identifier: MIT
/* init.c - joining and leaving a job, attaching the segment, job queries. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "layer.h"
#include "bootstrap.h"

_Static_assert(sizeof(struct pgas_ctrl_page) <= PGAS_MIN_PAGE_SIZE, "control page fits a page");
_Static_assert(sizeof(struct pgas_mbox_slot) == PGAS_SLOT_SIZE, "a slot is 64 bytes");
_Static_assert(sizeof(struct pgas_notify_entry) == 16, "a notification is 16 bytes");
_Static_assert(sizeof(struct pgas_barrier_round) == PGAS_CACHELINE, "a barrier round per line");

_Static_assert(offsetof(struct pgas_kern_page, peers_gone) % 8 == 0 &&
	       offsetof(struct pgas_kern_page, peers_left) ==
	       offsetof(struct pgas_kern_page, peers_gone) + 4,
	       "pgas__g.gone reads peers_gone and peers_left as one word");

/* pgas__g.gone's target where no kernel page says who left: stays 0. */
static const uint64_t nobody_gone;
/* pgas__g.gone's target where peers may sleep: never 0. */
static const uint64_t always_slow = 1;

uint32_t *pgas__leavers_word;

struct pgas__state pgas__g = { .send_block = PGAS__BLOCK_DETACHED, .gone = &nobody_gone };
struct pgas__job pgas__job;
static bool finalized;		/* pgas_exit(0) ran its finalize */
static bool hooked;		/* exit_hook registered */
static bool forked_child;	/* a fork of the rank: not a member of the job */

bool pgas__forked(void)
{
	return forked_child;
}
static void exit_hook(int status, void *arg);
static void global_exit_hook(void);
/* The first atfork child handler of the process's libraries that write
 * (registered in pgas_init): the conduit unshares first, so that this
 * flag, in the program's data, is not written into the parent too. */
static void forked(void)
{
	struct pgas_conduit *c = &pgas__job.conduit;

	if (c->ops && c->ops->forked)
		c->ops->forked(c);
	forked_child = true;
}

PGAS__COLD int pgas__not_attached(const char *call)
{
	return pgas__err(PGAS_ERR_STATE, call,
			 pgas__job.initialised ? "called before pgas_attach"
					       : "called before pgas_init");
}

int pgas__check_rank(const char *call, unsigned rank)
{
	int rc = pgas__check_attached(call);

	if (!rc && rank >= pgas__g.nranks)
		rc = pgas__err(PGAS_ERR_RANK, call, "rank %u out of range (job has %u ranks)",
			       rank, pgas__g.nranks);
	return rc;
}

int pgas_init(int *argc, char ***argv)
{
	char msg[320] = "";
	bool sleepers;
	int rc;

	(void)argc;
	(void)argv;
	if (pgas__job.initialised)
		return pgas__err(PGAS_ERR_STATE, "pgas_init", "called twice");
	rc = pgas__config_load(msg, sizeof(msg));
	if (rc)
		return pgas__err(rc, "pgas_init", "%s", msg);
	if (pgas__cfg.unknown_env == PGAS_UNKNOWN_FAIL && pgas__config_unknown(false, msg, sizeof(msg)))
		return pgas__err(PGAS_ERR_INVAL, "pgas_init", "%s (PGAS_UNKNOWN_ENV=fail)", msg);

	struct pgas_conduit *c = &pgas__job.conduit;

	c->geo.mbox_slots = pgas__cfg.mbox_slots;
	c->geo.notify_entries = pgas__cfg.notify_entries;
	c->geo.bounce_bufs = pgas__cfg.bounce_bufs;
	c->geo.bounce_size = (uint32_t)PGAS__ALIGN_UP(pgas__cfg.max_medium, PGAS_CACHELINE);
	c->ops = pgas_conduit_choose(&c->kind);
	if (!c->ops)
		return pgas__err(PGAS_ERR_INVAL, "pgas_init", "no conduit of this build is usable here");
	/* Before any conduit: ranks configured apart fail here, every one of them. */
	rc = pgas__config_agree(c->kind, &sleepers, msg, sizeof(msg));
	if (rc)
		return pgas__err(rc, "pgas_init", "%s", msg);
	rc = c->ops->open(c, msg, sizeof(msg));
	if (rc) {
		pgas_conduit_close(c);
		return pgas__err(rc, "pgas_init", "%s conduit: %s", c->ops->name, msg);
	}
	pgas__job.initialised = true;
	if (pgas__level < 0)
		pgas__level = PGAS_THREAD_SINGLE;	/* pgas_init, not pgas_init_thread */
	pgas__err_set_rank((int)c->rank);
	pgas__g.rank = c->rank;
	if (!hooked && on_exit(exit_hook, NULL) == 0 && pthread_atfork(NULL, NULL, forked) == 0)
		hooked = true;
	global_exit_hook();
	pgas__wait_setup();
	if (sleepers)
		pgas__g.wake = 1;	/* a peer may sleep: ring its doorbell */
	if (pgas__cfg.verbose_env && c->rank == 0)
		pgas__config_print(stderr);
	/* Misspelt or removed knobs: rank 0 tells (the ranks share one environment). */
	if (pgas__cfg.unknown_env == PGAS_UNKNOWN_WARN && c->rank == 0)
		(void)pgas__config_unknown(true, msg, sizeof(msg));
	return PGAS_OK;
}

int pgas_attach(const pgas_handler_entry_t *table, size_t count, size_t segsize)
{
	static const char call[] = "pgas_attach";
	struct pgas_conduit *c = &pgas__job.conduit;
	char msg[320] = "";
	int rc;

	if (!pgas__job.initialised)
		return pgas__err(PGAS_ERR_STATE, call, "called before pgas_init");
	if (pgas__job.attached)
		return pgas__err(PGAS_ERR_STATE, call, "called twice");
	if (!table && count)
		return pgas__err(PGAS_ERR_INVAL, call, "handler table is NULL but count is %zu", count);
	for (size_t i = 0; i < count; i++) {
		unsigned idx = table[i].index;

		if (idx == 0 || idx >= PGAS_MAX_HANDLERS)
			return pgas__err(PGAS_ERR_HANDLER, call,
					 "table[%zu].index = %u (must be 1..%d; 0 is reserved)",
					 i, idx, PGAS_MAX_HANDLERS - 1);
		if (!table[i].fn)
			return pgas__err(PGAS_ERR_HANDLER, call, "table[%zu] (index %u) has no function",
					 i, idx);
		for (size_t j = 0; j < i; j++)
			if (table[j].index == idx)
				return pgas__err(PGAS_ERR_HANDLER, call,
						 "handler index %u registered twice (table[%zu] and table[%zu])",
						 idx, j, i);
	}
	if (segsize == 0)
		segsize = pgas__cfg.segment_size;
	if (segsize > ((size_t)1 << 40))
		return pgas__err(PGAS_ERR_SIZE, call, "segment size %zu over the 1 TiB limit", segsize);
	segsize = PGAS__ALIGN_UP(segsize, (size_t)sysconf(_SC_PAGESIZE));

	/* The library's area (rank state, the layers' parts) sits behind the user's part. */
	size_t area = pgas__layers_area_bytes(c->nranks);

	rc = c->ops->attach(c, segsize + area, msg, sizeof(msg));
	if (rc)
		return pgas__err(rc, call, "%s", msg);
	/* Every eid of the job: the ranks' primaries first, the others
	 * unresolved until this endpoint meets them (ep.c). */
	unsigned ntargets = c->max_eids > c->nranks ? c->max_eids : c->nranks;

	pgas__g.peers = pgas__peer_table_new(ntargets, c->nranks);
	if (!pgas__g.peers)
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u peers", ntargets);
	pgas__job.mapped = calloc(c->nranks, 1);
	if (!pgas__job.mapped || pgas__ref_setup())
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u peers", c->nranks);
	for (unsigned r = 0; r < c->nranks; r++) {
		struct pgas__peer *p = &pgas__g.peers[r];
		const struct pgas_conduit_ep *ep = &c->eps[r];

		p->owner = r;
		p->state = PGAS__PEER_LIVE;
		p->seg_remote = (char *)(uintptr_t)ep->seg_remote;
		p->seg_delta = (intptr_t)ep->seg - (intptr_t)ep->seg_remote;
		p->seg_size = ep->seg_size - area;
		pgas__job.mapped[r] = ep->seg &&
				      (r == c->rank || pgas__cfg.map_peers == PGAS_MAP_AUTO);
		if (!pgas__job.mapped[r]) {
			/*
			 * Every inline call on it misses, to the remote path.
			 * Not a size of 0: the check of a constant size n
			 * (pgas__in_segment) is off <= seg_size - n, which
			 * wraps and passes every address when seg_size < n.
			 * The smallest segment at the top page of the address
			 * space, which no user address reaches.
			 */
			p->seg_remote = (char *)(UINTPTR_MAX - (PGAS__MIN_SEGMENT - 1));
			p->seg_delta = 0;
			p->seg_size = PGAS__MIN_SEGMENT;
		}
		p->ctrl = ep->ctrl;
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			p->mbox[ch] = ep->mbox[ch];
		p->notify = ep->notify;
		p->bounce = ep->bounce;
	}
	if (c->kern) {
		pgas__job.rank_gone = calloc(c->nranks, 1);
		if (!pgas__job.rank_gone)
			return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u peers", c->nranks);
		/* peers_gone and peers_left: one 8-byte word (pgas_abi.h). */
		pgas__g.gone = (const uint64_t *)&c->kern->peers_gone;
	}
	pgas__job.gone_word = pgas__g.gone;
	if (pgas__g.wake) {
		/* Peers may sleep: transfers and syncs leave the fast path to
		 * ring them (rma.c: pgas__rma_gone, pgas__sync_pending). */
		pgas__g.gone = &always_slow;
		pgas__g.nbi_puts_pending = 1;
	}
	for (size_t i = 0; i < count; i++)
		pgas__g.handlers[table[i].index] = table[i].fn;
	rc = pgas__am_setup();
	if (rc)
		return rc;
	if (c->remote && c->ops->progress) {	/* proxy rings: polls and waits move them */
		pgas__set_pending(PGAS__PENDING_CONDUIT, 1);
		pgas__wait_fabric();
	}
	pgas__job.attached = true;
	pgas__g.nranks = c->nranks;
	pgas__g.ntargets = ntargets;
	if (pgas__ep_tables_setup())
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u endpoints", ntargets);
	if (pgas__ctl_setup())
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u peers", c->nranks);
	pgas__barrier_setup();
	pgas__g.send_block &= ~PGAS__BLOCK_DETACHED;
	if (pgas__mt())
		pgas__g.send_block |= PGAS__BLOCK_SHARED;
	/* Rank 0 reads the tuning file into its scratch before the barrier. */
	rc = pgas__layers_attach(0, msg, sizeof(msg));
	/* From here on a faster rank's messages may arrive: counted. */
	if (!rc)
		pgas__notes_start(0);
	/* Nobody may send to a rank before its handlers are registered. */
	if (!rc)
		rc = pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (!rc) {
		pgas__leavers_word = pgas__ctl_msgs ? pgas__ctl_leavers_word()
						    : &pgas__rank_state(0)->leavers;
		rc = pgas__layers_attach(1, msg, sizeof(msg));
	}
	if (!rc)	/* from here on, what the program does (not pgas_attach's own) */
		pgas__notes_start(1);
	if (rc && *msg)
		return pgas__err(rc, call, "%s", msg);
	return rc;
}

/* ---- leaving: pgas_exit(0), exit(0), return from main (see pgas.h) ------------ */

const char *pgas__left_how(unsigned r)
{
	switch (pgas__rank_how(r)) {
	case PGAS__LEFT_RETURN:
		return "exit(0) or return from main";
	case PGAS__LEFT_HANDLER:
		return "pgas_exit(0) or exit(0) inside a handler";
	case PGAS__LEFT_DIED:
		return "its process ended or its host cannot be reached, as the conduit says";
	default:
		return "pgas_exit";
	}
}

static void wait_count(uint32_t *word, uint32_t want)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;

	while (atomic_load_explicit((_Atomic uint32_t *)word, memory_order_seq_cst) < want)
		pgas__wait_step(&w);
}

/*
 * Steps 3 to 5 of leave_job where some peer is not mapped (ctl.c): the
 * announcement is a LEAVE message to every other rank, the drain's test of
 * quiescence a wave of queries (pgas__ctl_idle), barrier_busy's end a
 * BUSY_DONE message, and fin_done / fin_gone messages to rank 0, which
 * ends last (pgas__ctl_finish).  The guarantees are those of the pages.
 */
static void leave_by_messages(unsigned how, unsigned owed)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;
	unsigned n = pgas__g.nranks;
	bool busy = pgas__pending() & PGAS__PENDING_BARRIER;

	/* The messages ring the peers' doorbells where they may sleep. */
	pgas__ctl_leave(how, pgas__job.barrier_epoch, owed, busy);
	while (pgas__leavers() < n || !pgas__am_job_idle()) {
		pgas__eps_poll_mine(false, PGAS__CHANMASK_ALL);
		pgas__wait_step(&w);
		if (PGAS__UNLIKELY(busy) && !(pgas__pending() & PGAS__PENDING_BARRIER)) {
			busy = false;
			pgas__ctl_busy_done();
		}
		if (!(++w.spins & 1023))
			pgas__ctl_check_gone("waits in pgas_exit for the others to leave");
	}
	pgas__set_pending(PGAS__PENDING_BARRIER, 0);
	pgas__ctl_finish();
}

/*
 * Whether every rank has left and nothing is in flight.  Rank 0 alone
 * reads every ring (pgas__am_job_idle touches each rank's control and
 * state pages: in every rank, that would be n * n page-table entries to
 * make and tear down, most of the time of a large job's end) and tells
 * the others in job_idle.  Quiescence after every rank left is final (no
 * request can be sent any more), so rank 0's verdict holds for all.
 */
static bool job_quiescent(struct pgas__rank_state *r0)
{
	if (pgas__g.rank != 0)
		return atomic_load_explicit((_Atomic uint32_t *)&r0->job_idle,
					    memory_order_acquire) != 0;
	if (pgas__leavers() < pgas__g.nranks || !pgas__am_job_idle())
		return false;
	atomic_store_explicit((_Atomic uint32_t *)&r0->job_idle, 1, memory_order_seq_cst);
	for (unsigned r = 1; pgas__g.wake && r < pgas__g.nranks; r++)
		pgas__ring_doorbell(pgas__g.peers[r].ctrl);
	return true;
}

/* The finalize of an attached rank; returns when it may end. */
static void leave_job(unsigned how)
{
	struct pgas__rank_state *me = pgas__rank_state(pgas__g.rank);
	struct pgas__rank_state *r0;	/* where rank 0 is mapped only */
	struct pgas__waiter w = PGAS__WAITER_INIT;
	unsigned n = pgas__g.nranks, owed = 0;

	/* 1. My RMA is complete (each transfer is a copy that the call made)
	 *    and visible before the announcement below. */
	pgas_wait_syncnbi_all();
	/* Called inside a handler: its message counts as handled; inside a
	 * handler-safe lock: released, so that this rank can drain. */
	if (pgas__self.handler_depth) {
		owed = pgas__am_abandon_handlers();
		how = PGAS__LEFT_HANDLER;
	}
	pgas__self.hsl_held = 0;
	pgas__g.send_block &= ~PGAS__BLOCK_HSL;
	/* 2. The layers (collectives: how far I went in each team; mine are abandoned). */
	pgas__layers_leave();
	/* 3. Announce: pgasrun first (so that it can name me when a rank fails
	 *    because of it), then the peers. */
	atomic_store_explicit((_Atomic uint64_t *)&me->barriers, pgas__job.barrier_epoch,
			      memory_order_relaxed);
	atomic_store_explicit((_Atomic uint32_t *)&me->unanswered, owed, memory_order_relaxed);
	atomic_store_explicit((_Atomic uint32_t *)&me->barrier_busy, !!(pgas__pending() & PGAS__PENDING_BARRIER),
			      memory_order_relaxed);
	pgas_boot_tell(PGAS_BOOT_LEAVING);
	pgas__job.leaving = true;
	if (pgas__ctl_msgs) {
		leave_by_messages(how, owed);
		return;
	}
	r0 = pgas__rank_state(0);
	atomic_store_explicit((_Atomic uint32_t *)&me->leaving, how, memory_order_seq_cst);
	{	/* Before I count as a leaver: a waiter that counts me sees them. */
		_Atomic uint64_t *inv = (_Atomic uint64_t *)&r0->left_min_inv;
		uint64_t mine = ~pgas__job.barrier_epoch, cur = atomic_load(inv);

		while (cur < mine && !atomic_compare_exchange_weak(inv, &cur, mine))
			;
		if (owed)
			atomic_fetch_add((_Atomic uint32_t *)&r0->owers, 1);
	}
	atomic_fetch_add_explicit((_Atomic uint32_t *)&r0->leavers, 1, memory_order_seq_cst);
	for (unsigned r = 0; pgas__g.wake && r < n; r++)
		if (r != pgas__g.rank)
			pgas__ring_doorbell(pgas__g.peers[r].ctrl);
	/* 4. Drain: run handlers (replies to requests, a split-phase barrier I
	 *    notified) until every rank has left and nothing is in flight. */
	while (!job_quiescent(r0)) {
		pgas__eps_poll_mine(false, PGAS__CHANMASK_ALL);	/* requests to my endpoints are answered */
		pgas__wait_step(&w);
		if (PGAS__UNLIKELY(me->barrier_busy) && !(pgas__pending() & PGAS__PENDING_BARRIER))
			atomic_store_explicit((_Atomic uint32_t *)&me->barrier_busy, 0,
					      memory_order_release);
	}
	pgas__set_pending(PGAS__PENDING_BARRIER, 0);
	/* 5. Out in order: after fin_done reaches n nobody reads a peer's
	 *    rings; rank 0, whose page the others read last, ends last (pgas.ko
	 *    revokes a rank's pages from its peers when it ends). */
	atomic_fetch_add_explicit((_Atomic uint32_t *)&r0->fin_done, 1, memory_order_seq_cst);
	wait_count(&r0->fin_done, n);
	if (pgas__g.rank != 0)
		atomic_fetch_add_explicit((_Atomic uint32_t *)&r0->fin_gone, 1, memory_order_seq_cst);
	else
		wait_count(&r0->fin_gone, n - 1);
}

static void finalize(unsigned how)
{
	if (finalized || !pgas__job.initialised || forked_child)
		return;
	finalized = true;
	fflush(stdout);
	fflush(stderr);
	if (pgas__job.attached) {
		pgas__progress_thread_end();
		(void)pgas__mt_enter("pgas_exit");	/* kept: the process ends */
		pgas__notes_stop();
		leave_job(how);
		pgas__notes_report();
	}
	else
		pgas_boot_tell(PGAS_BOOT_LEAVING);
	/* pgasrun counts an exit with 0 as a failure without this. */
	pgas_boot_tell(PGAS_BOOT_FINI);
}

/* exit(0) and return from main after pgas_init: the same as pgas_exit(0). */
static void exit_hook(int status, void *arg)
{
	(void)arg;
	if (status == 0)
		finalize(PGAS__LEFT_RETURN);
}

/* pgasrun's pid (PGAS_LAUNCHER_PID), or 0 without it. */
static pid_t launcher_pid;

/* Another rank's pgas_global_exit, relayed by pgasrun (bootstrap.h): only
 * pgasrun's queued signal counts, not another process's. */
static void on_global_exit(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_QUEUE && launcher_pid && si->si_pid == launcher_pid &&
	    PGAS_BOOT_EXIT_IS(si->si_value.sival_int))
		_exit(si->si_value.sival_int & 0xff);
}

static void global_exit_hook(void)
{
	struct sigaction sa = { .sa_sigaction = on_global_exit, .sa_flags = SA_SIGINFO };
	const char *l = getenv(PGAS_ENV_LAUNCHER);

	launcher_pid = l ? (pid_t)atol(l) : 0;

	sigfillset(&sa.sa_mask);
	sigaction(PGAS_BOOT_EXIT_SIGNAL, &sa, NULL);
}

void pgas_global_exit(int code)
{
	struct timespec ms = { 0, 1000000 };

	fflush(stdout);
	fflush(stderr);
	pgas_boot_tell_exit(code & 0xff);
	/* pgasrun queues the exit signal to this rank after every other
	 * (tools/pgasrun.c): its handler _exits here once theirs are pending,
	 * so that no peer reads this rank's death on pgas.ko's kernel page
	 * before its own signal, and ends with 70 instead of code.  Bounded:
	 * no launcher, a forked caller or a blocked signal waits 1 s. */
	for (int i = 0; launcher_pid && i < 1000; i++)
		nanosleep(&ms, NULL);
	_exit(code & 0xff);
}

void pgas_exit(int code)
{
	fflush(stdout);
	fflush(stderr);
	if (code != 0)
		_exit(code);	/* pgasrun ends the other ranks */
	finalize(PGAS__LEFT_EXIT);
	/* The process ends: its mappings and endpoint go with it (unmapping
	 * them first would only cost system calls). */
	exit(0);
}

unsigned pgas_rank(void)
{
	return pgas__job.conduit.rank;
}

unsigned pgas_nranks(void)
{
	return pgas__job.initialised ? pgas__job.conduit.nranks : 0;
}

int pgas_seginfo(pgas_seginfo_t *info, unsigned count)
{
	int rc = pgas__check_attached("pgas_seginfo");

	if (rc)
		return rc;
	if (!info && count)
		return pgas__err(PGAS_ERR_INVAL, "pgas_seginfo", "info is NULL, count %u", count);
	if (count > pgas__g.nranks)
		return pgas__err(PGAS_ERR_INVAL, "pgas_seginfo", "count %u > %u ranks",
				 count, pgas__g.nranks);
	for (unsigned r = 0; r < count; r++)
		info[r].size = pgas_segment_size(r);
	for (unsigned r = 0; r < count; r++)
		info[r].addr = pgas_segment_addr(r);
	return PGAS_OK;
}

void *pgas_segment_addr(unsigned rank)
{
	char *seg = NULL, *reg;
	size_t size, reg_size;

	/* Every rank's, mapped here or not (rma_ref.c keeps them). */
	if (rank < pgas__g.nranks)
		pgas__ref_bounds(rank, &seg, &size, &reg, &reg_size);
	return seg;
}

size_t pgas_segment_size(unsigned rank)
{
	char *seg, *reg;
	size_t size = 0, reg_size;

	/* A rank not mapped here has an entry of size 0: its bounds instead. */
	if (rank < pgas__g.nranks)
		pgas__ref_bounds(rank, &seg, &size, &reg, &reg_size);
	return size;
}

/*
 * The neighbourhood, computed from reachability (pgas_ptr), so that a
 * conduit with unmapped peers shrinks it without a change here.  The host
 * is the same set while every conduit is one host's.
 */
static int query_nbrhd(const char *call, const unsigned **members, unsigned *size,
		       unsigned *index)
{
	static unsigned *list, count, mine;
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!__atomic_load_n(&list, __ATOMIC_ACQUIRE)) {
		unsigned *l = malloc(pgas__g.nranks * sizeof(*l)), k = 0, at = 0;

		if (!l)
			return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u ranks",
					 pgas__g.nranks);
		for (unsigned r = 0; r < pgas__g.nranks; r++)
			if (pgas__rank_mapped(r)) {
				if (r == pgas__g.rank)
					at = k;
				l[k++] = r;
			}
		count = k;
		mine = at;
		if (!__atomic_compare_exchange_n(&list, &(unsigned *){ NULL }, l, 0,
						 __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
			free(l);	/* another thread's, the same */
	}
	if (members)
		*members = list;
	if (size)
		*size = count;
	if (index)
		*index = mine;
	return PGAS_OK;
}

int pgas_query_nbrhd(const unsigned **members, unsigned *size, unsigned *index)
{
	return query_nbrhd("pgas_query_nbrhd", members, size, index);
}

int pgas_query_host(const unsigned **members, unsigned *size, unsigned *index)
{
	return query_nbrhd("pgas_query_host", members, size, index);
}
