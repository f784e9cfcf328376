// SPDX-License-Identifier: MIT
/*
 * ctl.c - the core's control protocols for ranks it does not map
 * (PGAS_MAP_PEERS=none; later, a conduit's remote peers).
 *
 * Where every rank maps every other, the barrier, the exit and the
 * quiescence test load and store into the peers' control and rank-state
 * pages (barrier.c, init.c, am.c).  Where some peer is not mapped
 * (pgas__ctl_msgs), the same facts travel as AM Short messages of handler
 * index 0, which no user can register or send (check_am refuses it, and the
 * inline request finds handlers[0] NULL and goes out of line).  args[0] is
 * PGAS__CTL_LIBH (PGAS__LIBH_CTL in its top byte: am.c dispatches on it; the collectives have
 * another), args[1] the operation; every message is one slot.  Requests leave on the request
 * ring and are never sent from a handler; answers are replies.
 *
 *  BARRIER k, parity, word: what barrier.c would have stored into the
 *      target's barrier[k].flag[parity]; the handler stores it into this
 *      rank's own control page, where advance() reads it as always.
 *  LEAVE how, barriers, unanswered, busy: a rank's announcement (what it
 *      would have written into its rank-state page), to every other rank;
 *      received, it counts in pgas__leavers() and answers pgas__rank_*().
 *  BUSY_DONE: the leaver's barrier in flight completed (barrier_busy 0).
 *  FIN_DONE (to rank 0), FIN_GO (from rank 0), FIN_GONE (to rank 0): the
 *      last steps of pgas_exit(0) (init.c).
 *  IDLE_Q wave / IDLE_A wave, clean: the quiescence test (pgas__ctl_idle).
 *  DIR_Q seq, kind, x / DIR_A seq, v1, v2: a question about the target's
 *      endpoint directory, which only its owner reads (pgas__ctl_ask);
 *      both on the reply channel, so that a handler may ask.
 *
 * Order: a rank's messages to one target travel in one ring and are
 * handled in the order they were sent, so LEAVE follows every request its
 * sender made before leaving, and BUSY_DONE follows its LEAVE.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "bootstrap.h"

bool pgas__ctl_msgs;
struct pgas__fate *pgas__fates;
static uint32_t leavers;	/* ranks whose LEAVE arrived, and this one once it left */
static uint32_t fin_done, fin_go, fin_gone;

enum {
	CTL_BARRIER = 1,
	CTL_LEAVE,
	CTL_BUSY_DONE,
	CTL_FIN_DONE,
	CTL_FIN_GO,
	CTL_FIN_GONE,
	CTL_IDLE_Q,
	CTL_IDLE_A,
	CTL_DIR_Q,
	CTL_DIR_A,
};

/* ---- quiescence (pgas__am_job_idle where peers are not mapped) ----------- */

/*
 * Each rank answers a coordinator's query with one bit, 'clean': none of
 * its rings (its primary's and its live endpoints', request and reply)
 * holds a user message reserved and not yet handled (the slots from the
 * published head to the tail: a published slot of handler 0 is a control
 * message and does not count; an unpublished one does), and it has handled
 * no user message since its previous answer to the same coordinator (the
 * published heads minus the control slots it handled did not move).  A
 * wave is complete when every rank answered; the coordinator's own bit is
 * taken when it sends the wave.  Idle: a complete wave, after an earlier
 * one, with every bit clean.
 *
 * Why exact: let t_i be rank i's answer in the earlier wave and s_i in the
 * last; every t_i precedes every s_i (the waves do not overlap).  A user
 * message in flight at any moment T between them (reserved, not handled)
 * is either still in its target's ring at s_k (the target is not clean) or
 * was handled in (t_k, s_k] (the target is not clean either).  A handler
 * running at T has its slot past the published head: the same.  Ranks that
 * have left send user messages only from handlers, so once every other
 * rank has left (the only case in which a wait relies on the answer)
 * nothing can start one again.
 */
struct idle_state {
	uint64_t last_handled;	/* what this rank answered a coordinator last */
	bool answered;
};
static struct idle_state *answers;	/* [nranks]: per coordinator */
uint64_t pgas__ctl_handled;		/* control slots handled by this rank's primary */
static unsigned asking;	/* questions (DIR_Q) whose answer is awaited: not idle */
static pthread_mutex_t wave_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t wave;			/* the coordinator's current wave, 0: none yet */
static unsigned wave_answers, wave_dirty;
static bool wave_sent;			/* and not yet complete */
static unsigned wave_next;		/* the next rank to send it to */
static bool my_clean_at_send;
static unsigned wave_leavers;		/* pgas__leavers() when it was sent */
static bool prev_complete;		/* a wave completed before it */
static unsigned prev_leavers;		/* pgas__leavers() when that one was sent */
static bool verdict;			/* of the last two complete waves */
static unsigned verdict_leavers;
static bool wave_stale;			/* the one in flight was sent before a restart */

void pgas__ctl_idle_restart(void)
{
	if (pthread_mutex_trylock(&wave_lock))
		return;
	verdict = false;
	prev_complete = false;
	wave_stale = wave_sent;
	pthread_mutex_unlock(&wave_lock);
}

/* Scans one ring from its published head: false on a user slot. */
static bool ring_clean(const struct pgas__state *ep, const struct pgas_ctrl_page *ctrl,
		       const struct pgas_mbox_slot *slots, unsigned ch, uint64_t *head)
{
	uint64_t h = atomic_load_explicit((_Atomic uint64_t *)&ctrl->mbox[ch].head,
					  memory_order_acquire);
	uint64_t t = atomic_load_explicit((_Atomic uint64_t *)&ctrl->mbox[ch].tail,
					  memory_order_acquire);

	*head += h;
	for (; h < t; h++) {
		uint64_t s = atomic_load_explicit(
			(_Atomic uint64_t *)&slots[h & ep->mbox_mask].status, memory_order_acquire);

		if ((s & 0xffffu) != pgas__ep_lap(ep, h) || PGAS_STATUS_HANDLER(s) != 0 ||
		    PGAS_STATUS_TYPE(s) != PGAS_MSG_SHORT)
			return false;
	}
	return true;
}

/*
 * This rank's bit for coordinator c; 'current' is 1 when called from the
 * handler of the query (its slot is handled but not yet published).
 */
static bool my_clean(unsigned c, unsigned current)
{
	struct pgas__state *list[256];
	unsigned n = pgas__eps_mine(list, 256);
	uint64_t heads = 0;
	bool clean = true;

	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
		clean &= ring_clean(&pgas__g, pgas__g.my_ctrl, pgas__g.inbox[ch].slots, ch, &heads);
	for (unsigned i = 0; i < n; i++)
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			clean &= ring_clean(list[i], list[i]->my_ctrl, list[i]->inbox[ch].slots, ch,
					    &heads);
	/* User slots handled: published heads less the control slots. */
	heads = heads + current - __atomic_load_n(&pgas__ctl_handled, __ATOMIC_ACQUIRE);
	if (!answers[c].answered || answers[c].last_handled != heads)
		clean = false;
	answers[c].answered = true;
	answers[c].last_handled = heads;
	return clean;
}

/*
 * Sends op's message (args[0] is the operation) on chan from ep to eid;
 * imm: PGAS_ERR_NOT_READY with nothing reserved where the ring is full.
 */
static int send_ctl(struct pgas__state *ep, unsigned chan, unsigned eid, const uint32_t *args,
		    unsigned nargs, bool imm)
{
	uint32_t a[PGAS_SLOT_PAYLOAD / 4] = { PGAS__CTL_LIBH };

	memcpy(a + 1, args, nargs * sizeof(*a));
	return pgas__am_ctl_send(ep, chan, eid, a, nargs + 1, imm);
}

/* A request that holds no slot while it waits for room: a handler that
 * runs meanwhile may call pgas_exit(0), which never comes back, and a slot
 * reserved and never written would stop the target's ring for good. */
static int try_req(unsigned to, const uint32_t *args, unsigned nargs)
{
	return send_ctl(&pgas__g, PGAS_CHAN_REQUEST, to, args, nargs, true);
}

static int send_req(unsigned to, const uint32_t *args, unsigned nargs)
{
	struct pgas__waiter w = { .nosleep = 1 };
	int rc;

	while ((rc = try_req(to, args, nargs)) == PGAS_ERR_NOT_READY)
		pgas__wait_step(&w);
	return rc;
}

/*
 * Advances this rank's waves (at most one in flight) and returns the
 * verdict of the last two complete ones: a wave in flight makes no call
 * wait.  A verdict counts only while no rank has left since the first of
 * its two waves was sent: a rank that had not left may have sent a
 * request meanwhile.  Nor does one from before the caller's wait began
 * (pgas__ctl_idle_restart): this rank may have sent requests since.
 * Within that wait, once the caller's condition holds (every rank, or
 * every other rank, has left) a true verdict stays true: nothing can send
 * a user message again.
 */
bool pgas__ctl_idle(void)
{
	unsigned n = pgas__g.nranks, left = pgas__leavers();
	bool idle;

	/* Requests cannot leave from a handler, or without polling. */
	if (!pgas__may_wait())
		return false;
	/* At MULTIPLE only the primary's poller: its count of handled control
	 * slots and its published heads then move together. */
	if (pgas__mt() && !pgas__self.plock_depth)
		return false;
	if (pthread_mutex_trylock(&wave_lock))
		return false;
	if (wave_sent && __atomic_load_n(&wave_answers, __ATOMIC_ACQUIRE) == n - 1) {
		verdict = prev_complete && prev_leavers == wave_leavers && my_clean_at_send &&
			  !__atomic_load_n(&wave_dirty, __ATOMIC_ACQUIRE) && !wave_stale;
		verdict_leavers = prev_leavers;
		prev_complete = !wave_stale;
		wave_stale = false;
		prev_leavers = wave_leavers;
		wave_sent = false;
	}
	idle = verdict && verdict_leavers == left && !__atomic_load_n(&asking, __ATOMIC_SEQ_CST);
	if (!wave_sent) {
		__atomic_store_n(&wave_answers, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&wave_dirty, 0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&wave, 1, __ATOMIC_RELEASE);
		wave_leavers = left;
		my_clean_at_send = my_clean(pgas__g.rank, 0);
		wave_sent = true;
		wave_next = 0;
	}
	/* Without waiting for room (see try_req): the rest at the next call. */
	for (; wave_next < n; wave_next++) {
		uint32_t args[2] = { CTL_IDLE_Q, wave };

		if (wave_next != pgas__g.rank && try_req(wave_next, args, 2))
			break;
	}
	pthread_mutex_unlock(&wave_lock);
	return idle;
}

/* ---- questions to a rank about its endpoints (ep.c) -------------------------- */

/*
 * A question's slot is seq % ASK_SLOTS, held by its asker until it has
 * read the answer: an answer fills only the slot that still waits for it.
 * (A slot taken by seq alone was refilled by later questions' answers
 * while an asker that had not yet looked, e.g. one descheduled in a
 * handler, still waited for its own, which it then never saw.)
 */
#define ASK_SLOTS 64
static struct {
	uint32_t want;		/* the asker's seq while it waits; 0: free */
	uint32_t seq;		/* == want once answered */
	uint32_t v[2];
} asked[ASK_SLOTS];
static uint32_t ask_seq;

/* The owner's side: what its own directory (its rank-state page) says. */
static void dir_answer(uint32_t kind, uint32_t x, uint32_t v[2])
{
	const struct pgas__rank_state *st = pgas__rank_state(pgas__g.rank);
	unsigned n = __atomic_load_n(&st->ep_extras, __ATOMIC_ACQUIRE);

	v[0] = v[1] = 0;
	if (kind == PGAS__ASK_ENTRY) {
		v[0] = n;
		v[1] = x < n ? __atomic_load_n(&st->ep_eid[x], __ATOMIC_ACQUIRE) : 0;
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		uint32_t e = __atomic_load_n(&st->ep_eid[i], __ATOMIC_ACQUIRE);

		if ((e & ~PGAS__EP_DIR_CLOSED) == x) {
			v[0] = i + 1;
			v[1] = !!(e & PGAS__EP_DIR_CLOSED);
			return;
		}
	}
}

int pgas__ctl_ask(struct pgas__state *ep, unsigned r, unsigned kind, uint32_t x, uint32_t out[2])
{
	struct pgas__waiter w = PGAS__WAITER_INIT;
	uint32_t seq, args[4];
	int rc;

	/*
	 * On the reply channel, both ways: a handler may ask (the question
	 * waits only for room in the target's reply ring, which every rank
	 * drains in every wait, and the answer is a reply handled by a poll
	 * of the reply ring, which a handler may do).  Not while holding an
	 * HSL, where nothing is polled.
	 */
	if (pgas__self.hsl_held)
		return PGAS_ERR_STATE;
	/* A free slot (64 questions in flight at once: the others' answers free theirs). */
	for (;;) {
		uint32_t none = 0;

		seq = __atomic_add_fetch(&ask_seq, 1, __ATOMIC_RELAXED);
		if (seq && __atomic_compare_exchange_n(&asked[seq % ASK_SLOTS].want, &none, seq,
						       false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
		if (!(seq % ASK_SLOTS))
			pgas__wait_step_for(&w, ep);
	}
	args[0] = CTL_DIR_Q;
	args[1] = seq;
	args[2] = kind;
	args[3] = x;
	/* The question and its answer are messages in flight: a wait for
	 * them is not abandoned (pgas__ctl_idle says "busy" meanwhile). */
	__atomic_fetch_add(&asking, 1, __ATOMIC_SEQ_CST);
	while ((rc = send_ctl(&pgas__g, PGAS_CHAN_REPLY, r, args, 4, true)) == PGAS_ERR_NOT_READY)
		pgas__wait_step_for(&w, ep);
	while (!rc && __atomic_load_n(&asked[seq % ASK_SLOTS].seq, __ATOMIC_ACQUIRE) != seq) {
		pgas__wait_step_for(&w, ep);
		if (!(++w.spins & 1023))
			pgas__ctl_check_gone("asks it about its endpoints");
	}
	__atomic_fetch_sub(&asking, 1, __ATOMIC_SEQ_CST);
	if (!rc) {
		out[0] = asked[seq % ASK_SLOTS].v[0];
		out[1] = asked[seq % ASK_SLOTS].v[1];
	}
	__atomic_store_n(&asked[seq % ASK_SLOTS].want, 0, __ATOMIC_RELEASE);
	return rc;
}

/* ---- the handler ------------------------------------------------------------ */

static void set_word(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
}

static void ctl_handler(pgas_token_t tok, void *buf, size_t nbytes, const uint32_t *args,
			unsigned nargs)
{
	unsigned src;
	struct pgas__fate *f;

	(void)buf;
	(void)nbytes;
	if (nargs < 1 || pgas_token_rank(tok, &src) || src >= pgas__g.nranks || !pgas__fates)
		pgas__fatal("bad control message (%u arguments)", nargs);
	__atomic_fetch_add(&pgas__ctl_handled, 1, __ATOMIC_RELEASE);
	f = &pgas__fates[src];
	switch (args[0]) {
	case CTL_BARRIER:
		if (nargs != 5 || args[1] >= PGAS_BARRIER_ROUNDS || args[2] > 1)
			break;
		atomic_store_explicit(
			(_Atomic uint64_t *)&pgas__g.my_ctrl->barrier[args[1]].flag[args[2]],
			args[3] | (uint64_t)args[4] << 32, memory_order_release);
		return;
	case CTL_LEAVE:
		if (nargs != 6)
			break;
		f->barriers = args[2] | (uint64_t)args[3] << 32;
		f->unanswered = args[4];
		set_word(&f->barrier_busy, args[5]);
		if (!__atomic_exchange_n(&f->leaving, args[1] ? args[1] : PGAS__LEFT_EXIT,
					 __ATOMIC_SEQ_CST))
			__atomic_fetch_add(&leavers, 1, __ATOMIC_SEQ_CST);
		return;
	case CTL_BUSY_DONE:
		set_word(&f->barrier_busy, 0);
		return;
	case CTL_FIN_DONE:
		__atomic_fetch_add(&fin_done, 1, __ATOMIC_SEQ_CST);
		return;
	case CTL_FIN_GO:
		set_word(&fin_go, 1);
		return;
	case CTL_FIN_GONE:
		__atomic_fetch_add(&fin_gone, 1, __ATOMIC_SEQ_CST);
		return;
	case CTL_IDLE_Q: {
		uint32_t a[3] = { CTL_IDLE_A, nargs > 1 ? args[1] : 0, 0 };

		if (nargs != 2)
			break;
		a[2] = my_clean(src, 1);
		if (send_ctl(tok->ep, PGAS_CHAN_REPLY, tok->src, a, 3, false) == PGAS_OK)
			tok->replied = true;
		return;
	}
	case CTL_DIR_Q: {
		uint32_t a[4] = { CTL_DIR_A, 0, 0, 0 };

		if (nargs != 4)
			break;
		a[1] = args[1];
		dir_answer(args[2], args[3], a + 2);
		if (send_ctl(tok->ep, PGAS_CHAN_REPLY, tok->src, a, 4, false) == PGAS_OK)
			tok->replied = true;
		return;
	}
	case CTL_DIR_A:
		if (nargs != 4)
			break;
		/* Only into the slot that waits for it (a late one finds none). */
		if (__atomic_load_n(&asked[args[1] % ASK_SLOTS].want, __ATOMIC_ACQUIRE) != args[1])
			return;
		asked[args[1] % ASK_SLOTS].v[0] = args[2];
		asked[args[1] % ASK_SLOTS].v[1] = args[3];
		__atomic_store_n(&asked[args[1] % ASK_SLOTS].seq, args[1], __ATOMIC_RELEASE);
		return;
	case CTL_IDLE_A:
		if (nargs != 3)
			break;
		/* An answer to an older wave (none is left unanswered) is ignored. */
		if (args[1] == __atomic_load_n(&wave, __ATOMIC_ACQUIRE)) {
			if (!args[2])
				__atomic_store_n(&wave_dirty, 1, __ATOMIC_RELEASE);
			__atomic_fetch_add(&wave_answers, 1, __ATOMIC_RELEASE);
		}
		return;
	default:
		break;
	}
	pgas__fatal("bad control message %u (%u arguments) from rank %u", args[0], nargs, src);
}

/* The control messages' part of handler index 0 (am.c's lib_dispatch picks
 * it by args[0]'s top byte). */
static void dispatch(pgas_token_t tok, void *buf, size_t nbytes, const uint32_t *args,
		     unsigned nargs)
{
	if (!nargs || args[0] != PGAS__CTL_LIBH)
		pgas__fatal("bad library message from endpoint %u: %u arguments, kind %u",
			    tok->src, nargs, nargs ? args[0] : 0);
	ctl_handler(tok, buf, nbytes, args + 1, nargs - 1);
}

/* ---- the senders ------------------------------------------------------------ */

int pgas__ctl_setup(void)
{
	unsigned n = pgas__g.nranks;

	/* Also where every segment is mapped but some ring is a proxy that the
	 * fabric moves (ofi, PGAS_OFI_AM=fabric): a proxy's head counts what
	 * was shipped, not handled, and no rank sees the rings between two
	 * others, so the pages' quiescence test ended jobs with messages in
	 * flight (rc 0, requests never handled). */
	pgas__ctl_msgs = pgas__job.conduit.remote;
	for (unsigned r = 0; r < n; r++)
		if (!pgas__rank_mapped(r))
			pgas__ctl_msgs = true;
	if (!pgas__ctl_msgs)
		return PGAS_OK;
	pgas__fates = calloc(n, sizeof(*pgas__fates));
	answers = calloc(n, sizeof(*answers));
	if (!pgas__fates || !answers)
		return PGAS_ERR_NOMEM;
	pgas__lib_handlers[PGAS__LIBH_CTL] = dispatch;
	return PGAS_OK;
}

uint32_t *pgas__ctl_leavers_word(void)
{
	return &leavers;
}

int pgas__ctl_barrier(unsigned to, unsigned k, unsigned parity, uint64_t word)
{
	uint32_t args[5] = { CTL_BARRIER, k, parity, (uint32_t)word, (uint32_t)(word >> 32) };
	int rc = try_req(to, args, 5);

	if (rc && rc != PGAS_ERR_NOT_READY)
		pgas__fatal("barrier: cannot reach rank %u (error %d)", to, rc);
	return rc;
}

/* Every other rank: a request each. */
static void to_all(const uint32_t *args, unsigned nargs)
{
	for (unsigned r = 0; r < pgas__g.nranks; r++)
		if (r != pgas__g.rank)
			(void)send_req(r, args, nargs);
}

void pgas__ctl_leave(unsigned how, uint64_t barriers, unsigned unanswered, unsigned busy)
{
	struct pgas__fate *me = &pgas__fates[pgas__g.rank];
	uint32_t args[6] = { CTL_LEAVE, how, (uint32_t)barriers, (uint32_t)(barriers >> 32),
			     unanswered, busy };

	me->barriers = barriers;
	me->unanswered = unanswered;
	me->barrier_busy = busy;
	__atomic_store_n(&me->leaving, how, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&leavers, 1, __ATOMIC_SEQ_CST);
	to_all(args, 6);
}

void pgas__ctl_busy_done(void)
{
	uint32_t args[1] = { CTL_BUSY_DONE };

	__atomic_store_n(&pgas__fates[pgas__g.rank].barrier_busy, 0, __ATOMIC_RELEASE);
	to_all(args, 1);
}

/*
 * The conduit's peers_died moved (pgas__check_died, from every wait step):
 * each rank it now says died counts as a leaver that notified no barrier,
 * owes nothing and is in no collective, so that every wait on it (barrier
 * rounds, rma_ref operations, collectives, exit) fails with PGAS_ERR_GONE
 * naming it, as for a rank that left.  One that announced its leaving
 * keeps what it announced.  Any thread; the folding is idempotent.
 */
void pgas__ctl_note_died(void)
{
	struct pgas_conduit *c = &pgas__job.conduit;
	uint32_t seen = __atomic_load_n(&c->peers_died, __ATOMIC_ACQUIRE);

	if (!pgas__fates || !c->ops->peer_gone)
		return;		/* before attach: folded once the fates exist */
	for (unsigned r = 0; r < pgas__g.nranks; r++) {
		uint32_t none = 0;

		if (r == pgas__g.rank || !c->ops->peer_gone(c, r))
			continue;
		if (__atomic_compare_exchange_n(&pgas__fates[r].leaving, &none, PGAS__LEFT_DIED,
						false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			__atomic_fetch_add(&leavers, 1, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&pgas__job.died_seen, seen, __ATOMIC_RELAXED);
	pgas__naps_wake();	/* a napping waiter re-checks */
}

/* A peer that the conduit says is gone ends this rank, naming it. */
void pgas__ctl_check_gone(const char *what)
{
	struct pgas_conduit *c = &pgas__job.conduit;

	if (!c->ops->peer_gone)
		return;
	for (unsigned r = 0; r < pgas__g.nranks; r++)
		if (r != pgas__g.rank && c->ops->peer_gone(c, r)) {
			pgas_boot_tell(PGAS_BOOT_PEER_DIED);
			pgas__fatal("rank %u is gone (its process ended or cannot be reached) while this rank %s",
				    r, what);
		}
}

static void wait_word(uint32_t *word, uint32_t want, const char *what)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;

	while (__atomic_load_n(word, __ATOMIC_SEQ_CST) < want) {
		pgas__wait_step(&w);
		if (!(++w.spins & 1023))
			pgas__ctl_check_gone(what);
	}
}

/*
 * The last steps of pgas_exit(0), by message: every rank tells rank 0 that
 * it saw the job quiescent (FIN_DONE) and polls, answering the others'
 * queries, until rank 0 has heard from all (FIN_GO); then it tells rank 0
 * that it will send nothing more (FIN_GONE) and may end.  Rank 0, whose
 * rings receive the last messages, ends last.
 */
void pgas__ctl_finish(void)
{
	unsigned n = pgas__g.nranks;
	uint32_t args[1];

	if (pgas__g.rank != 0) {
		args[0] = CTL_FIN_DONE;
		(void)send_req(0, args, 1);
		wait_word(&fin_go, 1, "waits in pgas_exit for the others to leave");
		args[0] = CTL_FIN_GONE;
		(void)send_req(0, args, 1);
		return;
	}
	wait_word(&fin_done, n - 1, "waits in pgas_exit for the others to leave");
	args[0] = CTL_FIN_GO;
	to_all(args, 1);
	wait_word(&fin_gone, n - 1, "waits in pgas_exit for the others to end");
}
