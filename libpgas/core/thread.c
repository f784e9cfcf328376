// SPDX-License-Identifier: MIT
/*
 * thread.c - thread levels, the state of a thread, and the progress lock.
 *
 * At PGAS_THREAD_MULTIPLE one lock per process, the progress lock, guards
 * what the receiving side changes: my rings' consumer state and the
 * handlers that run from them, the barrier, the layers (collectives), the
 * notification ring and the record of who left.  Sends take no lock: the
 * mailboxes and notification rings are already multi-producer (every rank
 * of the job writes into them), and the little a sender keeps per target
 * (credits seen, the bounce cursor) is atomic.
 *
 * The rule that keeps it deadlock-free: a thread that holds the lock
 * outside any handler (it is in a call such as pgas_barrier_wait) gives it
 * up while it idles in pgas__wait_step() and takes it back before it looks
 * again.  Whatever another thread does with it meanwhile (run handlers,
 * advance the barrier and every active team, start a call of another team)
 * is what the waiting thread's own wait would have done single-threaded,
 * where waits already run all progress re-entrantly.  Inside a handler the
 * lock is kept: only one thread runs a rank's handlers at a time, and
 * nested waits poll the reply ring only, as they always did.
 *
 * A ticket lock, so that a thread that lends the lock for a moment does not
 * take it straight back ahead of the one waiting for it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include "internal.h"

int pgas__level = -1;

_Thread_local struct pgas__thread pgas__self __attribute__((tls_model("initial-exec")));

static struct {
	_Alignas(PGAS_CACHELINE) uint32_t next;	/* tickets handed out */
	uint32_t serving;			/* the ticket that holds it */
	const struct pgas__thread *owner;	/* written by the holder only */
} plock;

static bool mine(void)
{
	return __atomic_load_n(&plock.owner, __ATOMIC_RELAXED) == &pgas__self;
}

static void take(uint32_t ticket)
{
	unsigned spins = 0;

	while (__atomic_load_n(&plock.serving, __ATOMIC_ACQUIRE) != ticket)
		if (++spins % 64 == 0)
			sched_yield();
	__atomic_store_n(&plock.owner, &pgas__self, __ATOMIC_RELAXED);
}

void pgas__plock_acquire(void)
{
	if (pgas__self.plock_depth++ && mine())
		return;
	take(__atomic_fetch_add(&plock.next, 1, __ATOMIC_RELAXED));
}

bool pgas__plock_try(void)
{
	uint32_t s;

	if (pgas__self.plock_depth && mine()) {
		pgas__self.plock_depth++;
		return true;
	}
	s = __atomic_load_n(&plock.serving, __ATOMIC_RELAXED);
	/* Free when no ticket past the one serving was handed out. */
	if (!__atomic_compare_exchange_n(&plock.next, &s, s + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	pgas__self.plock_depth = 1;
	take(s);
	return true;
}

void pgas__plock_release(void)
{
	if (--pgas__self.plock_depth)
		return;
	__atomic_store_n(&plock.owner, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&plock.serving, __atomic_load_n(&plock.serving, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELEASE);
}

int pgas__mt_enter_hsl(const char *call)
{
	if (pgas__plock_try())
		return PGAS_OK;
	return pgas__err(PGAS_ERR_STATE, call,
			 "called while holding a handler-safe lock, while another thread runs this rank's handlers");
}

/*
 * A poll that finds the lock taken returns at once, trusting its holder to
 * make progress; so a holder that took it for something else (a
 * notification, starting a collective) polls before it lets go.  Without
 * this, threads that queue for the lock to take notifications can keep it
 * busy while the ones that would run handlers only ever try it.
 */
void pgas__plock_leave(void)
{
	if (pgas__self.plock_depth == 1 && pgas__may_wait() &&
	    pgas__job.attached)
		pgas__poll_locked();
	pgas__plock_release();
}

unsigned pgas__plock_lend(void)
{
	unsigned holds = pgas__self.plock_depth;

	if (holds) {
		pgas__self.plock_depth = 1;
		pgas__plock_release();
	}
	return holds;
}

void pgas__plock_retake(unsigned holds)
{
	if (!holds)
		return;
	pgas__plock_acquire();
	pgas__self.plock_depth = holds;
}

int pgas_init_thread(int *argc, char ***argv, int requested, int *provided)
{
	int rc;

	if (requested < PGAS_THREAD_SINGLE || requested > PGAS_THREAD_MULTIPLE)
		return pgas__err(PGAS_ERR_INVAL, "pgas_init_thread",
				 "requested level %d (PGAS_THREAD_SINGLE %d .. PGAS_THREAD_MULTIPLE %d)",
				 requested, PGAS_THREAD_SINGLE, PGAS_THREAD_MULTIPLE);
	if (pgas__job.initialised)
		return pgas__err(PGAS_ERR_STATE, "pgas_init_thread", "called twice");
	pgas__level = requested;
	rc = pgas_init(argc, argv);
	if (rc) {
		pgas__level = -1;
		return rc;
	}
	if (provided)
		*provided = pgas__level;
	return PGAS_OK;
}

int pgas_query_thread(void)
{
	return pgas__job.initialised ? pgas__level : -1;
}
