// SPDX-License-Identifier: MIT
/*
 * hsl.c - handler-safe locks.
 *
 * A test-and-test-and-set spinlock.  The locks a thread holds are kept on a
 * small per-thread stack so that re-locking one's own lock (a certain
 * deadlock) and unlocking a lock one does not hold are reported instead of
 * hanging; while the stack is not empty, requests and polls are refused.
 */
#include "internal.h"

#define HSL_MAX_HELD 16

static _Thread_local pgas_hsl_t *held[HSL_MAX_HELD];

static int find_held(const pgas_hsl_t *lock)
{
	for (unsigned i = 0; i < pgas__job.hsl_held; i++)
		if (held[i] == lock)
			return (int)i;
	return -1;
}

int pgas_hsl_init(pgas_hsl_t *lock)
{
	if (!lock)
		return pgas__err(PGAS_ERR_INVAL, "pgas_hsl_init", "lock is NULL");
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
	return PGAS_OK;
}

int pgas_hsl_destroy(pgas_hsl_t *lock)
{
	if (!lock)
		return pgas__err(PGAS_ERR_INVAL, "pgas_hsl_destroy", "lock is NULL");
	if (__atomic_load_n(&lock->locked, __ATOMIC_ACQUIRE))
		return pgas__err(PGAS_ERR_STATE, "pgas_hsl_destroy", "lock %p is held", (void *)lock);
	return PGAS_OK;
}

static int take(const char *call, pgas_hsl_t *lock, bool spin)
{
	if (!lock)
		return pgas__err(PGAS_ERR_INVAL, call, "lock is NULL");
	if (find_held(lock) >= 0)
		return pgas__err(PGAS_ERR_STATE, call, "lock %p is already held by this thread",
				 (void *)lock);
	if (pgas__job.hsl_held == HSL_MAX_HELD)
		return pgas__err(PGAS_ERR_STATE, call, "more than %d locks held at once",
				 HSL_MAX_HELD);
	while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE)) {
		if (!spin)
			return PGAS_ERR_NOT_READY;
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			;
	}
	held[pgas__job.hsl_held++] = lock;
	pgas__g.send_block |= PGAS__BLOCK_HSL;
	return PGAS_OK;
}

int pgas_hsl_lock(pgas_hsl_t *lock)
{
	return take("pgas_hsl_lock", lock, true);
}

int pgas_hsl_trylock(pgas_hsl_t *lock)
{
	return take("pgas_hsl_trylock", lock, false);
}

int pgas_hsl_unlock(pgas_hsl_t *lock)
{
	int i;

	if (!lock)
		return pgas__err(PGAS_ERR_INVAL, "pgas_hsl_unlock", "lock is NULL");
	i = find_held(lock);
	if (i < 0)
		return pgas__err(PGAS_ERR_STATE, "pgas_hsl_unlock",
				 "lock %p is not held by this thread", (void *)lock);
	held[i] = held[--pgas__job.hsl_held];
	if (!pgas__job.hsl_held)
		pgas__g.send_block &= ~PGAS__BLOCK_HSL;
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
	return PGAS_OK;
}
