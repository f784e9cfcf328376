// SPDX-License-Identifier: MIT
/*
 * barrier.c - split-phase dissemination barrier on control-page flags.
 *
 * In round k rank r stores its accumulated (id, flags) into the flag of
 * rank (r + 2^k) mod n and waits for the one from (r - 2^k) mod n; after
 * ceil(log2 n) rounds every rank has heard, transitively, from every rank.
 * Each flag has one writer; flags are double-buffered by epoch parity
 * because a rank can be at most one barrier ahead of any peer.  Named ids
 * travel with the flags, so a mismatch seen anywhere reaches every rank.
 */
#include "internal.h"

static unsigned nrounds(unsigned n)
{
	unsigned r = 0;

	while ((1u << r) < n)
		r++;
	return r;
}

/*
 * The epoch as a flag word carries it: 1, 2, ... 2^30 - 1, 1, ... — never 0
 * (a flag never written) and never equal to the value two barriers earlier
 * in the same parity slot.  Parity comes from the 64-bit counter, so it
 * alternates forever.
 */
static uint32_t next_wire_epoch(uint32_t w)
{
	return w >= 0x3fffffffu ? 1 : w + 1;
}

/* Folds an incoming (flags, id) into the accumulated state. */
static void combine(uint32_t flags, uint32_t id)
{
	struct pgas__job *j = &pgas__job;

	if (flags & PGAS_BFLAG_MISMATCH)
		j->barrier_acc_flags |= PGAS_BFLAG_MISMATCH;
	if (!(flags & PGAS_BFLAG_NAMED))
		return;
	if (!(j->barrier_acc_flags & PGAS_BFLAG_NAMED)) {
		j->barrier_acc_flags |= PGAS_BFLAG_NAMED;
		j->barrier_acc_id = id;
	} else if (j->barrier_acc_id != id) {
		j->barrier_acc_flags |= PGAS_BFLAG_MISMATCH;
	}
}

/*
 * Round k's target's control page where this rank maps it, or NULL where
 * the round travels as a control message (ctl.c): computed once, at
 * attach, so that a round costs a load instead of a division.
 */
static struct pgas_ctrl_page *round_ctrl[PGAS_BARRIER_ROUNDS];

static unsigned round_to(unsigned k)
{
	return (unsigned)(((uint64_t)pgas__g.rank + (1ull << k)) % pgas__g.nranks);
}

/* A round to a rank this one does not map: its word by message. */
/*
 * A round whose message found the target's ring full: sent again before
 * anything else of the barrier advances (a wait for room inside the send
 * would run handlers, and one that calls pgas_exit(0) would leave the
 * round unsent, the barrier stuck for the others).
 */
static bool unsent;
static unsigned unsent_k;
static uint64_t unsent_word;

static PGAS__COLD void send_remote(unsigned k)
{
	struct pgas__job *j = &pgas__job;

	unsent_k = k;
	unsent_word = PGAS_BARRIER_WORD(j->barrier_wire, j->barrier_acc_flags, j->barrier_acc_id);
	unsent = pgas__ctl_barrier(round_to(k), k, (unsigned)(j->barrier_epoch & 1),
				   unsent_word) != PGAS_OK;
}

/* False while a round's message is still unsent. */
static PGAS__COLD bool resend(void)
{
	unsent = pgas__ctl_barrier(round_to(unsent_k), unsent_k,
				   (unsigned)(pgas__job.barrier_epoch & 1), unsent_word) != PGAS_OK;
	return !unsent;
}

static void send_round(unsigned k)
{
	struct pgas__job *j = &pgas__job;
	struct pgas_ctrl_page *ctrl = round_ctrl[k];

	if (PGAS__UNLIKELY(!ctrl)) {
		send_remote(k);
		return;
	}
	atomic_store_explicit((_Atomic uint64_t *)&ctrl->barrier[k].flag[j->barrier_epoch & 1],
			      PGAS_BARRIER_WORD(j->barrier_wire, j->barrier_acc_flags,
						j->barrier_acc_id),
			      memory_order_release);
	if (pgas__g.wake)
		pgas__ring_doorbell(ctrl);
}

/* Runs as many rounds as have arrived; true when the barrier is complete. */
static bool advance(void)
{
	struct pgas__job *j = &pgas__job;
	unsigned rounds = j->barrier_rounds;

	if (PGAS__UNLIKELY(unsent) && !resend())
		return false;
	if (j->barrier_round >= rounds) {
		pgas__set_pending(PGAS__PENDING_BARRIER, 0);
		return true;
	}
	while (j->barrier_round < rounds) {
		uint64_t w = atomic_load_explicit(
			(_Atomic uint64_t *)&pgas__g.my_ctrl->barrier[j->barrier_round]
				.flag[j->barrier_epoch & 1],
			memory_order_acquire);

		if (PGAS_BARRIER_EPOCH(w) != j->barrier_wire)
			return false;
		combine(PGAS_BARRIER_FLAGS(w), PGAS_BARRIER_ID(w));
		if (++j->barrier_round < rounds) {
			send_round(j->barrier_round);
			if (PGAS__UNLIKELY(unsent))
				return false;
		}
	}
	pgas__set_pending(PGAS__PENDING_BARRIER, 0);
	return true;
}

void pgas__barrier_progress(void)
{
	if (pgas__pending() & PGAS__PENDING_BARRIER)
		advance();
}

static inline __attribute__((always_inline)) int check(const char *call, unsigned flags, int want_phase)
{
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (flags & ~(PGAS_BARRIERFLAG_ANONYMOUS | PGAS_BARRIERFLAG_MISMATCH))
		return pgas__err(PGAS_ERR_INVAL, call, "unknown flags %#x", flags);
	rc = pgas__check_thread(call);
	if (rc)
		return rc;
	if (pgas__job.barrier_phase != want_phase)
		return pgas__err(PGAS_ERR_STATE, call,
				 want_phase ? "no pgas_barrier_notify before it"
					    : "previous barrier was notified but not waited for");
	return PGAS_OK;
}

void pgas__barrier_setup(void)
{
	pgas__job.barrier_rounds = nrounds(pgas__g.nranks);
	for (unsigned k = 0; k < pgas__job.barrier_rounds; k++)
		round_ctrl[k] = pgas__rank_mapped(round_to(k)) ? pgas__g.peers[round_to(k)].ctrl
							       : NULL;
}

static int do_notify(uint32_t id, unsigned flags)
{
	struct pgas__job *j = &pgas__job;
	int rc = check("pgas_barrier_notify", flags, 0);

	if (rc)
		return rc;
	j->barrier_phase = 1;
	j->barrier_epoch++;
	j->barrier_wire = next_wire_epoch(j->barrier_wire);
	j->barrier_id = id;
	j->barrier_flags = flags;
	j->barrier_round = 0;
	j->barrier_acc_id = id;
	j->barrier_acc_flags = (flags & PGAS_BARRIERFLAG_ANONYMOUS ? 0 : PGAS_BFLAG_NAMED) |
			       (flags & PGAS_BARRIERFLAG_MISMATCH ? PGAS_BFLAG_MISMATCH : 0);
	if (pgas__g.nranks > 1) {
		pgas__set_pending(PGAS__PENDING_BARRIER, 1);
		send_round(0);
	}
	return PGAS_OK;
}

/*
 * A barrier stuck behind a rank that left: every rank must notify it, and
 * one that left (pgas_exit(0)) before notifying it never will.  A leaver
 * that notified it keeps running its rounds while it drains, so that one
 * completes.  Called only when stuck and some rank has left (one load).
 * The barrier is abandoned: later ones fail the same way.
 */
static int gone(const char *call)
{
	struct pgas__job *j = &pgas__job;

	for (unsigned r = 0; r < pgas__g.nranks; r++) {
		uint64_t b;

		if (r == pgas__g.rank)
			continue;
		if (pgas__ctl_msgs && pgas__peer_gone(r)) {
			unsent = false;
			j->barrier_phase = 0;
			pgas__set_pending(PGAS__PENDING_BARRIER, 0);
			return pgas__err(PGAS_ERR_GONE, call,
					 "rank %u is gone (its process ended or cannot be reached) before barrier %llu",
					 r, (unsigned long long)j->barrier_epoch);
		}
		if (!pgas__rank_leaving(r))
			continue;
		b = pgas__rank_barriers(r);
		if (b >= j->barrier_epoch)
			continue;
		unsent = false;		/* abandoned with it */
		j->barrier_phase = 0;
		pgas__set_pending(PGAS__PENDING_BARRIER, 0);
		return pgas__err(PGAS_ERR_GONE, call,
				 "rank %u has left the job (%s) before barrier %llu",
				 r, pgas__left_how(r), (unsigned long long)j->barrier_epoch);
	}
	return PGAS_OK;
}

/* Result of a completed barrier, for do_wait(id, flags). */
static int finish(const char *call, uint32_t id, unsigned flags)
{
	struct pgas__job *j = &pgas__job;
	bool anon = flags & PGAS_BARRIERFLAG_ANONYMOUS;

	/* A flag stored into a proxy ring's control page leaves with the
	 * conduit's progress: before the caller stops polling. */
	if (PGAS__UNLIKELY(pgas__pending() & PGAS__PENDING_CONDUIT))
		pgas__conduit_progress();
	j->barrier_phase = 0;
	if (anon != !!(j->barrier_flags & PGAS_BARRIERFLAG_ANONYMOUS) ||
	    (!anon && id != j->barrier_id))
		return pgas__err(PGAS_ERR_BARRIER_MISMATCH, call,
				 "id %#x / flags %#x differ from notify's id %#x / flags %#x",
				 id, flags, j->barrier_id, j->barrier_flags);
	if ((j->barrier_acc_flags & PGAS_BFLAG_MISMATCH) || (flags & PGAS_BARRIERFLAG_MISMATCH))
		return pgas__err(PGAS_ERR_BARRIER_MISMATCH, call,
				 "barrier %llu: named ids differ between ranks or a rank passed PGAS_BARRIERFLAG_MISMATCH",
				 (unsigned long long)j->barrier_epoch);
	return PGAS_OK;
}

static int do_wait(uint32_t id, unsigned flags)
{
	static const char call[] = "pgas_barrier_wait";
	int rc = check(call, flags, 1);

	if (rc)
		return rc;
	if (!advance()) {
		struct pgas__waiter w = PGAS__WAITER_INIT;

		do {
			if ((PGAS__UNLIKELY(pgas__leavers()) ||
			     (pgas__ctl_msgs && !(w.spins & 1023))) && (rc = gone(call)) != 0)
				return rc;
			pgas__wait_step(&w);
		} while (!advance());
	}
	return finish(call, id, flags);
}

static int do_try(uint32_t id, unsigned flags)
{
	static const char call[] = "pgas_barrier_try";
	int rc = check(call, flags, 1);

	if (rc)
		return rc;
	if (PGAS__UNLIKELY(pgas__pending() & PGAS__PENDING_CONDUIT))
		pgas__conduit_progress();	/* a try moves the proxy rings too */
	pgas__progress(PGAS__CHANMASK_ALL, 64);
	if (!advance())
		return PGAS__UNLIKELY(pgas__leavers()) && (rc = gone(call)) != 0 ? rc
									   : PGAS_ERR_NOT_READY;
	return finish(call, id, flags);
}

/*
 * At MULTIPLE under the progress lock, which waits lend (thread.c); out of
 * line, so that below MULTIPLE a call pays one compare for it.
 */
static PGAS__COLD int locked(const char *call, int (*fn)(uint32_t, unsigned), uint32_t id,
			     unsigned flags)
{
	int rc = pgas__mt_enter(call);

	return rc ? rc : pgas__mt_leave(fn(id, flags));
}

static int notify_wait(uint32_t id, unsigned flags)
{
	int rc = do_notify(id, flags);

	return rc ? rc : do_wait(id, flags);
}

int pgas_barrier_notify(uint32_t id, unsigned flags)
{
	return pgas__mt() ? locked("pgas_barrier_notify", do_notify, id, flags) : do_notify(id, flags);
}

int pgas_barrier_wait(uint32_t id, unsigned flags)
{
	return pgas__mt() ? locked("pgas_barrier_wait", do_wait, id, flags) : do_wait(id, flags);
}

int pgas_barrier_try(uint32_t id, unsigned flags)
{
	return pgas__mt() ? locked("pgas_barrier_try", do_try, id, flags) : do_try(id, flags);
}

int pgas_barrier(uint32_t id, unsigned flags)
{
	return pgas__mt() ? locked("pgas_barrier", notify_wait, id, flags) : notify_wait(id, flags);
}
