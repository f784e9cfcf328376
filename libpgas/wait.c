// SPDX-License-Identifier: MIT
/*
 * wait.c - how a rank idles while it waits: spin, yield, or block.
 *
 * Every wait loop calls pgas__wait_step(), which polls the AM rings the
 * caller may poll, then idles according to the wait mode.  Blocking sleeps
 * on the doorbell word of the rank's own control page (a shared futex) and
 * follows the protocol of pgas_abi.h: read the bell, let the caller check
 * its condition once more, announce 'sleeping', sleep only if the bell has
 * not moved.  Producers ring only when the job's wait mode can sleep
 * (pgas__g.wake), so the spinning fast path never pays for it.  Sleeps are
 * bounded (1 ms) because some conditions (a flag set by a put) ring no bell.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

void pgas__wait_setup(void)
{
	int mode = pgas__cfg.wait_mode;

	pgas__job.spin_limit = pgas__cfg.spin_limit;
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
		if (mode == PGAS_WAIT_YIELD && !getenv("PGAS_SPIN_LIMIT"))
			pgas__job.spin_limit = 20;
	}
	pgas__job.wait_mode = mode;
	pgas__g.wake = mode == PGAS_WAIT_BLOCK;
}

void pgas__ring_doorbell(struct pgas_ctrl_page *ctrl)
{
	/* seq_cst: pairs with the owner's 'sleeping' store (Dekker). */
	atomic_fetch_add_explicit((_Atomic uint32_t *)&ctrl->doorbell, 1, memory_order_seq_cst);
	if (atomic_load_explicit((_Atomic uint32_t *)&ctrl->sleeping, memory_order_seq_cst))
		futex(&ctrl->doorbell, FUTEX_WAKE, INT_MAX, NULL);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

void pgas__wait_step(struct pgas__waiter *w)
{
	struct pgas_ctrl_page *ctrl = pgas__g.my_ctrl;
	unsigned mask = pgas__wait_chanmask();

	/* pgas.ko counts peers of the job that died: waiting on them is futile. */
	if (PGAS__UNLIKELY(ctrl && atomic_load_explicit((_Atomic uint32_t *)&ctrl->peers_gone,
							memory_order_relaxed)))
		pgas__fatal("%u peer endpoint(s) of this job died; ending this rank instead of waiting",
			    ctrl->peers_gone);
	if (!pgas__job.handler_depth) {
		pgas__barrier_progress();
		if (pgas__g.coll_pending && pgas__coll_progress() > 0) {
			w->spins = 0;
			return;
		}
	}
	if (mask && pgas__msgs_waiting() && pgas__progress(mask, 64) > 0) {
		w->spins = 0;
		w->armed = 0;
		return;
	}
	if (pgas__job.wait_mode == PGAS_WAIT_SPIN || ++w->spins < pgas__job.spin_limit) {
		cpu_relax();
		return;
	}
	if (pgas__job.wait_mode == PGAS_WAIT_YIELD || w->nosleep || !ctrl) {
		sched_yield();
		return;
	}
	if (!w->armed) {
		w->bell = atomic_load_explicit((_Atomic uint32_t *)&ctrl->doorbell,
					       memory_order_seq_cst);
		w->armed = 1;
		return;		/* the caller checks its condition once more */
	}
	atomic_store_explicit((_Atomic uint32_t *)&ctrl->sleeping, 1, memory_order_seq_cst);
	if (atomic_load_explicit((_Atomic uint32_t *)&ctrl->doorbell, memory_order_seq_cst) ==
	    w->bell) {
		struct timespec ts = { 0, 1000000 };

		futex(&ctrl->doorbell, FUTEX_WAIT, w->bell, &ts);
	}
	atomic_store_explicit((_Atomic uint32_t *)&ctrl->sleeping, 0, memory_order_relaxed);
	w->armed = 0;
}
