// SPDX-License-Identifier: MIT
/*
 * wait.c - how a rank idles while it waits: spin, yield, or block.
 *
 * Every wait loop calls pgas__wait_step(), which polls the AM rings the
 * caller may poll, then idles according to the wait mode.  Blocking sleeps
 * on the doorbell word of the rank's own control page and follows the
 * protocol of pgas_abi.h: read the bell, let the caller check its
 * condition once more, announce 'sleeping', sleep only if the bell has not
 * moved.  Over shm the sleep is a shared futex on the doorbell; over
 * pgas.ko (whose PFN mappings a futex refuses with EFAULT) it is poll() on
 * the endpoint's fd, and a producer wakes the owner with PGAS_IOC_WAKE.
 * Over a conduit that sleeps on its wait object (ofi: the CQ's fd and an
 * eventfd, c->sleeps), the primary's owner announces PGAS_SLEEPING_CONDUIT
 * and the conduit sleeps (ops->sleep); a producer that finds that value
 * wakes it through ops->wake.
 * Producers ring only when the job's wait mode can sleep (pgas__g.wake),
 * and make a system call only when the owner announced it sleeps, so the
 * spinning fast path never pays for it.  Sleeps are bounded because some
 * conditions (a flag set by a put) ring no bell: 1 ms, doubling up to
 * 8 ms while no bell ends them (a wake-up a millisecond costs
 * a sleeping rank several percent of a cpu on a slow machine).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"
#include "layer.h"
#include "bootstrap.h"

#define PGAS__NAP_MAX_SHIFT 3	/* 1 ms << 3: naps of at most 8 ms */

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

/* pgas.ko's endpoint fd to sleep and wake on, or -1 (shm: futexes). */
static int wait_fd(void)
{
	return pgas__job.conduit.ops->wait_fd(&pgas__job.conduit);
}

/* PGAS_SPIN_LIMIT=0 (auto): polls before giving the cpu away, and soon. */
#define SPIN_DEFAULT 2000
#define SPIN_SOON 20

void pgas__wait_setup(void)
{
	int mode = pgas__cfg.wait_mode;

	pgas__job.spin_limit = pgas__cfg.spin_limit ? pgas__cfg.spin_limit : SPIN_DEFAULT;
	if (mode == PGAS_WAIT_AUTO) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		mode = cpus > 0 && pgas__job.conduit.nranks > (unsigned)cpus ? PGAS_WAIT_YIELD
									      : PGAS_WAIT_SPIN;
		/*
		 * Oversubscribed, the rank we wait for needs our cpu: give it
		 * away soon.  Measured, 4 ranks on 2 cores, team barrier: block
		 * 93 us, yield after 2000 polls 72 us, yield after 20 polls 13 us
		 * (Open MPI 12 us); futex wake-ups cost more than they save.
		 */
		if (mode == PGAS_WAIT_YIELD && !pgas__cfg.spin_limit)
			pgas__job.spin_limit = SPIN_SOON;
	}
	pgas__job.wait_mode = mode;
	pgas__g.wake = mode == PGAS_WAIT_BLOCK;
}

/*
 * The conduit's progress runs at every wait step (PGAS__PENDING_CONDUIT).
 * A fabric's is a syscall or more (tcp polls its sockets): 2000 of them
 * before giving the cpu away took ~50 ms per barrier over ofi, yield mode,
 * 3 ranks on 2 cores.  Yield (or nap) soon instead, as auto does.
 */
void pgas__wait_fabric(void)
{
	if (pgas__job.wait_mode != PGAS_WAIT_SPIN && !pgas__cfg.spin_limit &&
	    pgas__job.spin_limit > SPIN_SOON)
		pgas__job.spin_limit = SPIN_SOON;
}

void pgas__ring_doorbell(struct pgas_ctrl_page *ctrl)
{
	/* seq_cst: pairs with the owner's 'sleeping' store (Dekker). */
	atomic_fetch_add_explicit((_Atomic uint32_t *)&ctrl->doorbell, 1, memory_order_seq_cst);
	uint32_t sleeping = atomic_load_explicit((_Atomic uint32_t *)&ctrl->sleeping,
						 memory_order_seq_cst);

	if (sleeping == PGAS_SLEEPING_CONDUIT && pgas__job.conduit.ops->wake) {
		pgas__job.conduit.ops->wake(&pgas__job.conduit, ctrl->rank);
	} else if (sleeping) {
		int fd = wait_fd();

		if (fd >= 0) {
			struct pgas_ioc_wake wk = { .size = sizeof(wk), .vpid = ctrl->rank };

			ioctl(fd, PGAS_IOC_WAKE, &wk);	/* a peer gone: nobody to wake */
		} else {
			futex(&ctrl->doorbell, FUTEX_WAKE, INT_MAX, NULL);
		}
	}
}


long long pgas__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The leaver that left inside the handler of a request of mine without
 * replying (it will never reply), or nranks. */
static unsigned owes_me(void)
{
	/* Mapped: rank 0's page counts such leavers; with none, no scan (it
	 * reads every rank's page: from every waiting rank of a large job,
	 * n * n page-table entries to make, most of its end). */
	if (!pgas__fates && !atomic_load_explicit((_Atomic uint32_t *)&pgas__rank_state(0)->owers,
						  memory_order_acquire))
		return pgas__g.nranks;
	for (unsigned r = 0; r < pgas__g.nranks; r++)
		if (r != pgas__g.rank && pgas__rank_unanswered(r) == pgas__g.rank + 1)
			return r;
	return pgas__g.nranks;
}

/*
 * A wait that can never end, checked after the spin phase once some rank
 * has left.  Every other rank has left the job (pgas_exit(0)), no message
 * is in flight and no leaver still runs the rounds of a barrier this rank
 * waits in: nothing any rank
 * does can change what this wait waits for.  Seen twice in a row (so that a
 * collective or a barrier that fails with PGAS_ERR_GONE on its own does that
 * first), it ends this rank, naming why.  The same when a leaver left inside
 * the handler of a request of this rank without replying, and nothing has
 * been in flight for a second since: the reply this rank most likely waits
 * for will never come (the second lets puts of live ranks, which no
 * counter sees, end a wait for something else).
 */
static void check_abandoned(struct pgas__waiter *w)
{
	/* Per thread: every waiting thread may check at once. */
	static _Thread_local long long owed_since;
	unsigned n = pgas__g.nranks, owed_by = n;
	bool alone = pgas__leavers() + 1 >= n;

	if (pgas__job.leaving || !pgas__job.attached)
		goto busy;
	if (!alone && (owed_by = owes_me()) == n)
		goto busy;
	/*
	 * Without mapped peers the test is waves of messages (ctl.c), taken
	 * afresh for this wait (this rank may have sent requests since the
	 * last verdict) and answered over several calls: stuck is 2 while
	 * they run.
	 */
	if (pgas__ctl_msgs && !w->stuck) {
		pgas__ctl_idle_restart();
		w->stuck = 2;
		return;
	}
	if (!pgas__am_job_idle()) {
		if (pgas__ctl_msgs)
			return;
		goto busy;
	}
	/* In a barrier of my own: a leaver that notified it runs its rounds. */
	for (unsigned r = 0; (pgas__pending() & PGAS__PENDING_BARRIER) && r < n; r++)
		if (r != pgas__g.rank && pgas__rank_barrier_busy(r))
			goto busy;
	if (!w->stuck || w->stuck == 2) {
		w->stuck = 1;
		owed_since = pgas__now_ms();
		return;
	}
	if (!alone && pgas__now_ms() - owed_since < 1000)
		return;
	if (owed_by == n)
		owed_by = owes_me();
	if (owed_by < n)
		pgas__fatal("waiting for what no rank can provide: rank %u left the job inside the handler of a request from this rank, without replying, and %s",
			    owed_by, alone ? "every other rank has left too" : "no message is in flight");
	pgas__fatal("waiting for what no rank can provide: every other rank has left the job "
		    "(pgas_exit) and no message is in flight");
busy:
	w->stuck = 0;
}

/*
 * pgas.ko counts peers of the job that died, on a page only it writes (a
 * peer cannot fake a death): waiting on them is futile.
 */
static void check_kern(void)
{
	const struct pgas_kern_page *kern = pgas__job.conduit.kern;

	if (PGAS__UNLIKELY(kern && atomic_load_explicit((_Atomic uint32_t *)&kern->peers_gone,
							memory_order_relaxed))) {
		if (kern->peers_gone == PGAS_KERN_REVOKED)
			pgas__fatal("pgas.ko took this rank's endpoint away (%s was deleted): no peer can be reached; ending this rank",
				    pgas__cfg.device);
		pgas_boot_tell(PGAS_BOOT_PEER_DIED);	/* pgasrun: name the dead one */
		pgas__fatal("%u peer endpoint(s) of this job died; ending this rank instead of waiting",
			    kern->peers_gone);
	}
}

/* Polls what this thread may poll; true if that did something. */
/* The conduit's proxy rings move (manual progress: every wait runs it). */
static void conduit_progress(struct pgas__waiter *w)
{
	if (PGAS__UNLIKELY(pgas__pending() & PGAS__PENDING_CONDUIT) &&
	    pgas__conduit_progress() > 0) {
		w->spins = 0;
		w->armed = 0;
		w->stuck = 0;
		w->naps = 0;
	}
}

static bool progress(struct pgas__waiter *w)
{
	unsigned mask = pgas__wait_chanmask();

	conduit_progress(w);
	check_kern();
	pgas__check_died();
	if (!pgas__self.handler_depth) {
		pgas__barrier_progress();
		if ((pgas__pending() & ~PGAS__PENDING_BARRIER) && pgas__layers_progress() > 0) {
			w->spins = 0;
			w->stuck = 0;
			return true;
		}
	}
	if (pgas__job.attached)
		pgas__notify_room();
	/*
	 * The progress thread serves the endpoints flagged PGAS_EP_PROGRESS;
	 * below MULTIPLE the one thread that calls serves them all (a wait in
	 * a call of the primary, or of one endpoint, may wait for another).
	 */
	if (pgas__job.attached && (w->poller || !pgas__mt()) &&
	    pgas__eps_poll_mine(w->poller, mask) > 0) {
		w->spins = 0;
		w->armed = 0;
		w->naps = 0;
		return true;
	}
	if (mask && pgas__msgs_waiting()) {
		uint64_t ctl = pgas__ctl_handled;
		int k = pgas__progress(mask, 64);

		/* The core's control messages (ctl.c) are not what anyone
		 * waits for: a wait that only they end stays a wait (else the
		 * quiescence test's own answers would keep it from ever being
		 * judged abandoned). */
		if (k <= 0 || (uint64_t)k == pgas__ctl_handled - ctl)
			return false;
		w->spins = 0;
		w->armed = 0;
		w->stuck = 0;
		w->naps = 0;
		return true;
	}
	return false;
}

/* Still in the spin phase (or between two checks while spinning)? */
static bool spinning(struct pgas__waiter *w)
{
	if (++w->spins < pgas__job.spin_limit ||
	    (pgas__job.wait_mode == PGAS_WAIT_SPIN && (w->spins & 1023))) {
		pgas__cpu_relax();
		return true;
	}
	return false;
}

/* Past the spin phase (or every 1024 spins): has the job left me alone? */
static void check_alone(struct pgas__waiter *w)
{
	/* pgas.h's rule: a wait for what a thread of this rank may provide
	 * (the caller's condition, room in this rank's own rings or bounce
	 * buffers) is never abandoned where another thread may (above SINGLE). */
	if (PGAS__UNLIKELY(pgas__leavers()) && !w->poller &&
	    !(w->local && pgas__level > PGAS_THREAD_SINGLE))
		check_abandoned(w);
	else
		w->stuck = 0;
}

/* Sleeps on my doorbell, as pgas_abi.h says (block mode). */
static void sleep_on_bell(struct pgas__waiter *w, struct pgas_ctrl_page *ctrl, int fd)
{
	/* My primary's bell, with a conduit that sleeps on its wait object. */
	bool conduit = pgas__job.conduit.sleeps && ctrl == pgas__g.my_ctrl;
	bool woke = false;

	if (w->armed != 1) {
		w->bell = atomic_load_explicit((_Atomic uint32_t *)&ctrl->doorbell,
					       memory_order_seq_cst);
		w->armed = 1;
		return;		/* the caller checks its condition once more */
	}
	atomic_store_explicit((_Atomic uint32_t *)&ctrl->sleeping,
			      conduit ? PGAS_SLEEPING_CONDUIT : 1, memory_order_seq_cst);
	/* After announcing: a producer that saw 'sleeping' 0 skipped the bell
	 * (pgas__sync_pending), so its write is visible to this check. */
	PGAS__FENCE(memory_order_seq_cst);
	if ((!w->recheck || !w->recheck(w->recheck_arg)) &&
	    atomic_load_explicit((_Atomic uint32_t *)&ctrl->doorbell, memory_order_seq_cst) ==
	    w->bell) {
		struct timespec ts = { 0, 1000000L << w->naps };

		if (conduit) {
			/* The fabric's wait fd and the bell's eventfd (ofi):
			 * an arrival ends the sleep as a bell does. */
			woke = pgas__job.conduit.ops->sleep(&pgas__job.conduit, &ts) != 0;
		} else if (fd >= 0) {
			/* Readable once a wake cleared 'sleeping' (pgas.ko). */
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			ppoll(&pfd, 1, &ts, NULL);
		} else {
			futex(&ctrl->doorbell, FUTEX_WAIT, w->bell, &ts);
		}
	}
	atomic_store_explicit((_Atomic uint32_t *)&ctrl->sleeping, 0, memory_order_relaxed);
	w->armed = 0;
	/* Woken by a bell: sleep short again; by the clock: sleep longer. */
	if (woke || atomic_load_explicit((_Atomic uint32_t *)&ctrl->doorbell,
					 memory_order_relaxed) != w->bell)
		w->naps = 0;
	else if (w->naps < PGAS__NAP_MAX_SHIFT)
		w->naps++;
}

/* Idles once past the spin phase, in the job's wait mode. */
static void idle(struct pgas__waiter *w)
{
	struct pgas_ctrl_page *ctrl = pgas__g.my_ctrl;

	if (pgas__job.wait_mode == PGAS_WAIT_SPIN) {
		pgas__cpu_relax();
		return;
	}
	if (pgas__job.wait_mode == PGAS_WAIT_YIELD || w->nosleep || !ctrl) {
		sched_yield();
		return;
	}
	sleep_on_bell(w, ctrl, wait_fd());
}

/*
 * PGAS_THREAD_MULTIPLE: my doorbell announces one sleeper ('sleeping' is a
 * flag, and two sleepers would clear it under each other), so one thread
 * at a time sleeps on it.  The others nap on a word of this process that
 * any thread bumps, and wakes them on, when its polling did something (a
 * handler ran, a barrier or collective advanced): what they wait for may
 * be done.  The same protocol as the doorbell's: read the word and let the
 * caller check once more, announce the nap, nap only if the word has not
 * moved (Dekker, seq_cst).  Naps stay bounded (1-8 ms) for conditions that
 * no poll announces (a flag set by a peer's put).
 */
static uint32_t bell_taken, nap_word, nappers;

void pgas__naps_wake(void)
{
	if (pgas__job.wait_mode != PGAS_WAIT_BLOCK)
		return;		/* only the block mode naps */
	__atomic_fetch_add(&nap_word, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&nappers, __ATOMIC_SEQ_CST))
		futex(&nap_word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

static void nap(struct pgas__waiter *w)
{
	struct timespec ts = { 0, 1000000L << w->naps };

	if (w->armed != 2) {
		w->bell = __atomic_load_n(&nap_word, __ATOMIC_SEQ_CST);
		w->armed = 2;
		return;		/* the caller checks its condition once more */
	}
	__atomic_fetch_add(&nappers, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&nap_word, __ATOMIC_SEQ_CST) == w->bell)
		futex(&nap_word, FUTEX_WAIT_PRIVATE, w->bell, &ts);
	__atomic_fetch_sub(&nappers, 1, __ATOMIC_SEQ_CST);
	w->armed = 0;
	if (__atomic_load_n(&nap_word, __ATOMIC_RELAXED) != w->bell)
		w->naps = 0;
	else if (w->naps < PGAS__NAP_MAX_SHIFT)
		w->naps++;
}

static void mt_idle(struct pgas__waiter *w)
{
	if (pgas__job.wait_mode != PGAS_WAIT_BLOCK || w->nosleep || !pgas__g.my_ctrl) {
		idle(w);
		return;
	}
	if (!__atomic_exchange_n(&bell_taken, 1, __ATOMIC_ACQUIRE)) {
		bool slept = w->armed == 1;

		sleep_on_bell(w, pgas__g.my_ctrl, wait_fd());
		__atomic_store_n(&bell_taken, 0, __ATOMIC_RELEASE);
		/* A bell ended the sleep: a put, signal or atomic may have
		 * changed what a napper waits for. */
		if (slept && !w->naps)
			pgas__naps_wake();
		return;
	}
	nap(w);
}

/*
 * A wait step at MULTIPLE (thread.c has the rule): polling needs the
 * progress lock; a thread that holds it outside any handler lends it while
 * it idles, and one that does not hold it only tries for it.
 */
static void mt_wait_step(struct pgas__waiter *w)
{
	unsigned holds = pgas__self.plock_depth;
	bool held = holds || pgas__plock_try();

	if (held && progress(w)) {
		if (!holds)
			pgas__plock_release();
		pgas__naps_wake();	/* what a napper waits for may be done */
		return;
	}
	if (spinning(w)) {
		if (held && !holds)
			pgas__plock_release();
		return;
	}
	if (held)
		check_alone(w);
	if (held && !holds)
		pgas__plock_release();
	if (holds && pgas__self.handler_depth) {
		mt_idle(w);	/* a handler keeps the lock: it alone runs them */
		return;
	}
	holds = pgas__plock_lend();
	mt_idle(w);
	pgas__plock_retake(holds);
}

/*
 * A wait on an extra endpoint (w->ep): it polls that endpoint (unless
 * another thread does) and, below MULTIPLE, where its thread is the rank's
 * only one, the primary too; in block mode it sleeps on the endpoint's own
 * doorbell, which senders to it ring.  Its sender may be waiting for this
 * rank's primary at MULTIPLE: some other thread polls that one.
 */
static void ep_wait_step(struct pgas__waiter *w)
{
	struct pgas__state *ep = w->ep;
	unsigned mask = pgas__wait_chanmask();

	if (pgas__mt())
		conduit_progress(w);	/* below MULTIPLE, progress(w) runs it */
	if (pgas__fep_progress(ep) > 0) {	/* its own fabric completions */
		w->spins = 0;
		w->armed = 0;
		w->naps = 0;
	}
	if ((mask && pgas__ep_msgs_waiting(ep) && pgas__ep_poll_try(ep, mask) > 0) ||
	    (pgas__mt() && pgas__serve_primary() > 0)) {
		w->spins = 0;
		w->armed = 0;
		w->naps = 0;
		return;
	}
	if (!pgas__mt() && progress(w))
		return;
	check_kern();
	pgas__check_died();
	if (spinning(w))
		return;
	check_alone(w);
	if (pgas__job.wait_mode == PGAS_WAIT_BLOCK && !w->nosleep)
		sleep_on_bell(w, ep->my_ctrl, ep->priv->xep.fd);
	else if (pgas__job.wait_mode == PGAS_WAIT_SPIN)
		pgas__cpu_relax();
	else
		sched_yield();
}

void pgas__wait_step_for(struct pgas__waiter *w, struct pgas__state *ep)
{
	unsigned mask = pgas__wait_chanmask();

	if (ep && !pgas__is_primary(ep) && mask && pgas__ep_msgs_waiting(ep))
		(void)pgas__ep_poll_try(ep, mask);
	/* Its remote RMA completes on its own fabric endpoint only (ep_wait_step
	 * reads w->ep's). */
	if (ep && ep != w->ep && pgas__fep_progress(ep) > 0)
		w->spins = 0;
	pgas__wait_step(w);
}

static void wait_step(struct pgas__waiter *w)
{
	if (w->ep && !pgas__is_primary(w->ep)) {
		ep_wait_step(w);
		return;
	}
	if (pgas__mt()) {
		mt_wait_step(w);
		return;
	}
	if (progress(w) || spinning(w))
		return;
	check_alone(w);
	idle(w);
}

void pgas__wait_step(struct pgas__waiter *w)
{
	uint64_t t;

	if (PGAS__LIKELY(!pgas__notes_on)) {
		wait_step(w);
		return;
	}
	t = pgas__wait_clock();	/* PGAS_STATS: the time waits take */
	wait_step(w);
	pgas__ev_wait(t);
}
