// SPDX-License-Identifier: MIT
/*
 * progress.c - the progress thread (pgas.h): a thread that polls this rank
 * while the application's threads compute.
 *
 * It is an ordinary MULTIPLE poller: each step tries the progress lock,
 * runs what arrived, and idles in the job's wait mode (block: asleep on the
 * doorbell, which every sender rings).  Stopping it rings its own doorbell
 * so that a sleeping one notices at once.  Each thread has its own stop
 * flag, so that a start right after a stop cannot revive the old thread;
 * start and stop may race from any threads (a mutex), but the progress
 * thread cannot stop itself (it would join itself).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include "internal.h"

struct pthr {
	pthread_t thread;
	int stop;		/* set (release) by whoever stops it */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pthr *running;	/* under lock */
static bool exit_hooked;	/* under lock */

static void *loop(void *arg)
{
	struct pthr *t = arg;
	struct pgas__waiter w = PGAS__WAITER_INIT;

	w.poller = 1;
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
		pgas__wait_step(&w);
	return NULL;
}

/* exit(0) runs the atexit handlers registered after the start before this
 * one, and libpgas's own hook after it: handlers stop running here. */
static void stop_at_exit(void)
{
	pgas__progress_thread_end();
}

int pgas_progress_thread_start(void)
{
	static const char call[] = "pgas_progress_thread_start";
	struct pthr *t;
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!pgas__mt())
		return pgas__err(PGAS_ERR_STATE, call,
				 "needs PGAS_THREAD_MULTIPLE (pgas_init_thread provided %d)",
				 pgas__level);
	if (pgas__job.leaving)
		return pgas__err(PGAS_ERR_STATE, call, "called after pgas_exit");
	t = calloc(1, sizeof(*t));
	if (!t)
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for a progress thread");
	pthread_mutex_lock(&lock);
	if (running) {
		pthread_mutex_unlock(&lock);
		free(t);
		return pgas__err(PGAS_ERR_STATE, call, "a progress thread is running already");
	}
	rc = pthread_create(&t->thread, NULL, loop, t);
	if (rc) {
		pthread_mutex_unlock(&lock);
		free(t);
		return pgas__err(PGAS_ERR_SYS, call, "pthread_create: %s", strerror(rc));
	}
	running = t;
	if (!exit_hooked && atexit(stop_at_exit) == 0)
		exit_hooked = true;
	pthread_mutex_unlock(&lock);
	return PGAS_OK;
}

/* Stops it (0: none ran, 1: stopped, -1: called from it, which cannot
 * join itself: then it is only told to stop, as the process ends). */
static int end(bool from_itself_ok)
{
	struct pthr *t;

	pthread_mutex_lock(&lock);
	t = running;
	if (!t) {
		pthread_mutex_unlock(&lock);
		return 0;
	}
	if (pthread_equal(t->thread, pthread_self())) {
		if (from_itself_ok) {
			__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
			running = NULL;
		}
		pthread_mutex_unlock(&lock);
		return -1;
	}
	running = NULL;
	pthread_mutex_unlock(&lock);
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	pgas__ring_doorbell(pgas__g.my_ctrl);	/* wake it if it sleeps */
	pgas__naps_wake();			/* ... or naps */
	pthread_join(t->thread, NULL);
	free(t);
	return 1;
}

int pgas__progress_thread_end(void)
{
	return end(true) != 0;
}

int pgas_progress_thread_stop(void)
{
	static const char call[] = "pgas_progress_thread_stop";

	if (!pgas__job.attached)
		return pgas__check_attached(call);
	switch (end(false)) {
	case 0:
		return pgas__err(PGAS_ERR_STATE, call, "no progress thread is running");
	case -1:
		return pgas__err(PGAS_ERR_STATE, call,
				 "called from the progress thread (from a handler it runs)");
	default:
		return PGAS_OK;
	}
}
