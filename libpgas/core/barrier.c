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
 *
 * Across hosts (pgas__host_leader, see hier_setup) the barrier is
 * hierarchical: the ranks of a group (a host's ranks, mapped to each
 * other) run the dissemination among themselves by stores, the group's
 * leader (its lowest rank) then runs it among the leaders by control
 * messages, and releases its group down a binomial tree.  Flags and ids
 * travel the same way, so named barriers and mismatches keep their meaning.
 */
#include <stdlib.h>
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

/*
 * A round whose message found the target's ring full: sent again before
 * anything else of the barrier advances (a wait for room inside the send
 * would run handlers, and one that calls pgas_exit(0) would leave the
 * round unsent, the barrier stuck for the others).
 */
static bool unsent;
static unsigned unsent_k, unsent_to;
static uint64_t unsent_word;

/* A word to a rank this one does not map, into its flag k: by message. */
static PGAS__COLD void send_msg(unsigned to, unsigned k)
{
	struct pgas__job *j = &pgas__job;

	unsent_k = k;
	unsent_to = to;
	unsent_word = PGAS_BARRIER_WORD(j->barrier_wire, j->barrier_acc_flags, j->barrier_acc_id);
	unsent = pgas__ctl_barrier(to, k, (unsigned)(j->barrier_epoch & 1),
				   unsent_word) != PGAS_OK;
}

/* False while a round's message is still unsent. */
static PGAS__COLD bool resend(void)
{
	unsent = pgas__ctl_barrier(unsent_to, unsent_k,
				   (unsigned)(pgas__job.barrier_epoch & 1), unsent_word) != PGAS_OK;
	return !unsent;
}

/* ---- the hierarchical barrier --------------------------------------------- */

unsigned *pgas__host_leader;
unsigned pgas__host_groups = 1;

/*
 * This rank's schedule: each step sends the accumulated word into flag
 * 'slot' of rank 'to' (mapped: a store into ctrl; else a message), or waits
 * for its own flag 'slot' (to < 0).  Slots: 0..b-1 the leaders' rounds
 * (b = ceil(log2 groups)), b..b+a-1 the group's rounds (a = ceil(log2 of
 * its size)), b+a the release; each has one writer.
 */
struct hstep {
	int to;
	unsigned slot;
	struct pgas_ctrl_page *ctrl;
};
#define HSTEPS_MAX (4 * PGAS_BARRIER_ROUNDS)
static struct hstep hsteps[HSTEPS_MAX];
static bool hier;

static bool hier_run(void);

/* word into flag k of ctrl, in the slot of epoch's parity. */
static inline __attribute__((always_inline))
void put_word(struct pgas_ctrl_page *ctrl, unsigned k, uint64_t epoch, uint64_t word)
{
	atomic_store_explicit((_Atomic uint64_t *)&ctrl->barrier[k].flag[epoch & 1], word,
			      memory_order_release);
	if (PGAS__UNLIKELY(pgas__g.wake))
		pgas__ring_doorbell(ctrl);
}

static inline __attribute__((always_inline))
void store_word(struct pgas_ctrl_page *ctrl, unsigned k)
{
	struct pgas__job *j = &pgas__job;

	put_word(ctrl, k, j->barrier_epoch,
		 PGAS_BARRIER_WORD(j->barrier_wire, j->barrier_acc_flags, j->barrier_acc_id));
}

/* Round k's target is not mapped, or the barrier is hierarchical. */
static PGAS__COLD void send_remote(unsigned k)
{
	if (hier)
		(void)hier_run();
	else
		send_msg(round_to(k), k);
}

/* Runs the steps that can run; true once the barrier is complete. */
static PGAS__COLD bool hier_run(void)
{
	struct pgas__job *j = &pgas__job;

	if (PGAS__UNLIKELY(unsent) && !resend())
		return false;
	while (j->barrier_round < j->barrier_rounds) {
		const struct hstep *s = &hsteps[j->barrier_round];

		if (s->to < 0) {
			uint64_t w = atomic_load_explicit(
				(_Atomic uint64_t *)&pgas__g.my_ctrl->barrier[s->slot]
					.flag[j->barrier_epoch & 1], memory_order_acquire);

			if (PGAS_BARRIER_EPOCH(w) != j->barrier_wire)
				return false;
			combine(PGAS_BARRIER_FLAGS(w), PGAS_BARRIER_ID(w));
			j->barrier_round++;
			continue;
		}
		j->barrier_round++;
		if (s->ctrl) {
			store_word(s->ctrl, s->slot);
		} else {
			send_msg((unsigned)s->to, s->slot);
			if (unsent)
				return false;
		}
	}
	pgas__set_pending(PGAS__PENDING_BARRIER, 0);
	return true;
}

static unsigned add_step(unsigned n, int to, unsigned slot)
{
	hsteps[n].to = to;
	hsteps[n].slot = slot;
	hsteps[n].ctrl = to >= 0 && pgas__rank_mapped((unsigned)to) ? pgas__g.peers[to].ctrl : NULL;
	return n + 1;
}

/*
 * Groups: with PGAS_MAP_PEERS=none every rank is its own (the flat
 * barrier is then the same thing); a host whose ranks are not all mapped
 * to this one would break the stores: flat.  Every rank decides alike
 * (the hosts and the knobs are the job's).
 */
static void hier_setup(void)
{
	unsigned n = pgas__g.nranks, me = pgas__g.rank, *lead, *mem, *leaders;
	unsigned g = 0, i = 0, H = 0, li = 0, maxg = 0, a, b, ns = 0;

	hier = false;
	free(pgas__host_leader);
	pgas__host_leader = NULL;
	pgas__host_groups = 1;
	if (!pgas__ctl_msgs || pgas__cfg.hier || pgas__cfg.map_peers == PGAS_MAP_NONE ||
	    pgas_boot_nhosts() < 2)
		return;
	for (unsigned r = 0; r < n; r++)
		if (pgas_boot_same_host(r) && !pgas__rank_mapped(r))
			return;
	lead = calloc(n, sizeof(*lead));
	mem = calloc(n, sizeof(*mem));
	leaders = calloc(n, sizeof(*leaders));
	if (!lead || !mem || !leaders)
		goto out;
	for (unsigned r = 0; r < n; r++) {
		unsigned q = 0, size = 0;

		while (pgas_boot_host_of(q) != pgas_boot_host_of(r))
			q++;
		lead[r] = q;
		if (q == r)
			leaders[H++] = r;
		for (unsigned x = q; x < n; x++)
			size += pgas_boot_host_of(x) == pgas_boot_host_of(r);
		if (size > maxg)
			maxg = size;
	}
	for (unsigned r = 0; r < n; r++) {
		if (lead[r] != lead[me])
			continue;
		if (r == me)
			i = g;
		mem[g++] = r;
	}
	for (unsigned h = 0; h < H; h++)
		if (leaders[h] == lead[me])
			li = h;
	b = nrounds(H);
	a = nrounds(g);
	if (maxg < 2 || b + nrounds(maxg) + 1 > PGAS_BARRIER_ROUNDS)
		goto out;	/* no group to gain from, or too many rounds: flat */
	for (unsigned k = 0; k < a; k++) {
		ns = add_step(ns, (int)mem[(i + (1u << k)) % g], b + k);
		ns = add_step(ns, -1, b + k);
	}
	if (i == 0) {
		for (unsigned k = 0; k < b; k++) {
			ns = add_step(ns, (int)leaders[(li + (1u << k)) % H], k);
			ns = add_step(ns, -1, k);
		}
	} else {
		ns = add_step(ns, -1, b + a);
	}
	/* Binomial release: i's parent is i less its top bit; its children i + 2^k above it. */
	for (unsigned k = 0; k < 32 && i + (1ull << k) < g; k++)
		if ((1u << k) > i)
			ns = add_step(ns, (int)mem[i + (1u << k)], b + a);
	hier = true;
	pgas__job.barrier_rounds = ns;
	pgas__host_leader = lead;
	pgas__host_groups = H;
	lead = NULL;
	/* Into send_remote at notify: the flat path's cost stays as it is. */
	round_ctrl[0] = NULL;
out:
	free(lead);
	free(mem);
	free(leaders);
}

static inline __attribute__((always_inline)) void send_round(unsigned k)
{
	struct pgas_ctrl_page *ctrl = round_ctrl[k];

	if (PGAS__UNLIKELY(!ctrl)) {
		send_remote(k);
		return;
	}
	store_word(ctrl, k);
}

/* Runs as many rounds as have arrived; true when the barrier is complete. */
static bool advance(void)
{
	struct pgas__job *j = &pgas__job;
	unsigned rounds = j->barrier_rounds;

	if (PGAS__UNLIKELY(hier))
		return hier_run();
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

void pgas__barrier_advance(void)
{
	advance();
}

/* The error of a call that check() below refuses (cold: the checks'
 * hit path keeps no register across a call). */
static PGAS__COLD int refused(const char *call, unsigned flags, int want_phase)
{
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (flags & ~(PGAS_BARRIERFLAG_ANONYMOUS | PGAS_BARRIERFLAG_MISMATCH))
		return pgas__err(PGAS_ERR_INVAL, call, "unknown flags %#x", flags);
	rc = pgas__check_thread(call);
	if (rc)
		return rc;
	/* Only check() calls it, on one of the conditions above. */
	return pgas__err(PGAS_ERR_STATE, call,
			 want_phase ? "no pgas_barrier_notify before it"
				    : "previous barrier was notified but not waited for");
}

static inline __attribute__((always_inline)) int check(const char *call, unsigned flags, int want_phase)
{
	int rc;

	if (PGAS__LIKELY(pgas__job.attached &&
			 !(flags & ~(PGAS_BARRIERFLAG_ANONYMOUS | PGAS_BARRIERFLAG_MISMATCH)) &&
			 !pgas__self.handler_depth && !pgas__self.hsl_held &&
			 pgas__job.barrier_phase == want_phase))
		return PGAS_OK;
	rc = refused(call, flags, want_phase);
	if (rc == PGAS_OK)	/* never: nothing of the caller's lives across it */
		__builtin_unreachable();
	return rc;
}

void pgas__barrier_setup(void)
{
	pgas__job.barrier_rounds = nrounds(pgas__g.nranks);
	for (unsigned k = 0; k < pgas__job.barrier_rounds; k++)
		round_ctrl[k] = pgas__rank_mapped(round_to(k)) ? pgas__g.peers[round_to(k)].ctrl
							       : NULL;
	hier_setup();
}

static int do_notify(uint32_t id, unsigned flags)
{
	struct pgas__job *j = &pgas__job;
	int rc = check("pgas_barrier_notify", flags, 0);
	/* The new state from locals: stores to the job's fields are not
	 * read back (the relaxed atomic store of pending would reload them). */
	uint32_t wire = next_wire_epoch(j->barrier_wire);
	uint64_t epoch = j->barrier_epoch + 1;
	uint32_t acc = (flags & PGAS_BARRIERFLAG_ANONYMOUS ? 0 : PGAS_BFLAG_NAMED) |
		       (flags & PGAS_BARRIERFLAG_MISMATCH ? PGAS_BFLAG_MISMATCH : 0);
	struct pgas_ctrl_page *ctrl = round_ctrl[0];

	if (rc)
		return rc;
	j->barrier_phase = 1;
	j->barrier_epoch = epoch;
	j->barrier_wire = wire;
	j->barrier_id = id;
	j->barrier_flags = flags;
	j->barrier_round = 0;
	j->barrier_acc_id = id;
	j->barrier_acc_flags = acc;
	if (pgas__g.nranks > 1) {
		pgas__set_pending(PGAS__PENDING_BARRIER, 1);
		if (PGAS__UNLIKELY(!ctrl)) {
			send_remote(0);
			return PGAS_OK;
		}
		put_word(ctrl, 0, epoch, PGAS_BARRIER_WORD(wire, acc, id));
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

	/* Mapped: rank 0's page says whether any leaver missed this barrier;
	 * the scan, which touches every rank's page, only names it. */
	if (!pgas__ctl_msgs) {
		uint64_t inv = atomic_load_explicit(
			(_Atomic uint64_t *)&pgas__rank_state(0)->left_min_inv,
			memory_order_acquire);

		if (!inv || ~inv >= j->barrier_epoch)
			return PGAS_OK;
	}
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

/*
 * Before the general wait: a short spin on the round's flag alone, left
 * as soon as a message waits for this rank (the general wait serves it)
 * and bounded (SPIN_ON_FLAG pauses, 6 us on this AMD EPYC, longer where a
 * pause is longer), so that nothing
 * this rank owes others waits long.  The general wait step polls every
 * ring, the conduit and the layers between two looks at the flag; on 2
 * ranks that made a barrier 1.6-2x the same stores made raw (bench/
 * pgas_bench.c limit.barrier_raw), now 1.0-1.2x.
 */
#define SPIN_ON_FLAG 256

static bool spin_on_flag(void)
{
	/* Not where other work is pending (a conduit's proxy rings, a
	 * layer's or a collective's progress): the general wait serves it. */
	if (PGAS__UNLIKELY(hier || unsent || pgas__job.wait_mode != PGAS_WAIT_SPIN ||
			   (pgas__pending() & ~PGAS__PENDING_BARRIER)))
		return false;
	for (unsigned i = 0; i < SPIN_ON_FLAG && !pgas__msgs_waiting(); i++) {
		pgas__cpu_relax();
		if (advance())
			return true;
	}
	return false;
}

static int do_wait(uint32_t id, unsigned flags)
{
	static const char call[] = "pgas_barrier_wait";
	int rc = check(call, flags, 1);

	if (rc)
		return rc;
	if (!advance() && !spin_on_flag()) {
		struct pgas__waiter w = PGAS__WAITER_INIT;

		do {
			if ((PGAS__UNLIKELY(pgas__leavers()) ||
			     (pgas__ctl_msgs && !(w.spins & 1023))) && (rc = gone(call)) != 0)
				return rc;
			pgas__wait_step(&w);
		} while (!advance());
	}
	return pgas__ev_ok(finish(call, id, flags), PGAS__EV_BARRIER, pgas__g.rank, 0);
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
	return pgas__ev_ok(finish(call, id, flags), PGAS__EV_BARRIER, pgas__g.rank, 0);
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
