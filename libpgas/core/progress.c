// SPDX-License-Identifier: MIT
/*
 * progress.c - the progress thread (pgas.h): a thread that polls this rank
 * while the application's threads compute.
 *
 * It is an ordinary MULTIPLE poller: each step tries the progress lock,
 * runs what arrived, and idles in the job's wait mode (block: asleep on the
 * doorbell, which every sender rings).  Stopping it rings its own doorbell
 * so that a sleeping one notices at once.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include "internal.h"

static struct {
	pthread_t thread;
	bool running;		/* started, not yet joined (the caller's side) */
	int stop;		/* set (release) by stop, read by the thread */
} pt;

static void *loop(void *arg)
{
	struct pgas__waiter w = PGAS__WAITER_INIT;

	(void)arg;
	w.poller = 1;
	while (!__atomic_load_n(&pt.stop, __ATOMIC_ACQUIRE))
		pgas__wait_step(&w);
	return NULL;
}

int pgas_progress_thread_start(void)
{
	static const char call[] = "pgas_progress_thread_start";
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!pgas__mt())
		return pgas__err(PGAS_ERR_STATE, call,
				 "needs PGAS_THREAD_MULTIPLE (pgas_init_thread provided %d)",
				 pgas__level);
	if (pgas__job.leaving)
		return pgas__err(PGAS_ERR_STATE, call, "called after pgas_exit");
	if (pt.running)
		return pgas__err(PGAS_ERR_STATE, call, "a progress thread is running already");
	__atomic_store_n(&pt.stop, 0, __ATOMIC_RELAXED);
	rc = pthread_create(&pt.thread, NULL, loop, NULL);
	if (rc)
		return pgas__err(PGAS_ERR_SYS, call, "pthread_create: %s", strerror(rc));
	pt.running = true;
	return PGAS_OK;
}

int pgas__progress_thread_end(void)
{
	if (!pt.running)
		return 0;
	__atomic_store_n(&pt.stop, 1, __ATOMIC_RELEASE);
	pgas__ring_doorbell(pgas__g.my_ctrl);	/* wake it if it sleeps */
	pthread_join(pt.thread, NULL);
	pt.running = false;
	return 1;
}

int pgas_progress_thread_stop(void)
{
	static const char call[] = "pgas_progress_thread_stop";

	if (!pgas__job.attached)
		return pgas__check_attached(call);
	if (!pgas__progress_thread_end())
		return pgas__err(PGAS_ERR_STATE, call, "no progress thread is running");
	return PGAS_OK;
}
