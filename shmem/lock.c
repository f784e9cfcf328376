/* SPDX-License-Identifier: MIT */
/*
 * lock.c - shmem_set_lock, shmem_test_lock, shmem_clear_lock: a ticket
 * lock in PE 0's copy of the symmetric long (every PE's copy starts at 0,
 * as the spec requires; only PE 0's is used).  Its high 32 bits are the
 * next ticket, its low 32 bits the ticket being served.  A ticket lock is
 * FIFO, so no PE starves; it takes one remote atomic to enter when free
 * and two to leave.
 */
#include <sched.h>
#include "shmem_internal.h"

#define TICKET ((uint64_t)1 << 32)
#define LOCK_HOME 0

static inline uint64_t lock_op(const char *call, long *lock, unsigned op, uint64_t a,
			       uint64_t b)
{
	void *d = shmem__xlate(call, lock, sizeof(*lock), LOCK_HOME);
	uint64_t r = 0;

	SHMEM__CHECK(call, pgas_ad_op_u64(shmem__s.ad_u64, &r, LOCK_HOME, d, op, a, b, 0));
	return r;
}

static inline int is_free(uint64_t v)
{
	return (uint32_t)(v >> 32) == (uint32_t)v;
}

/* The AMOs are relaxed: what the last holder stored (quieted before it
 * let go) is read only after we saw it let go. */
static inline void acquired(void)
{
#if defined(__SANITIZE_THREAD__)	/* TSan rejects fences (as pgas_fast.h) */
	__asm__ __volatile__("" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void shmem_set_lock(long *lock)
{
	static const char call[] = "shmem_set_lock";
	uint64_t v = lock_op(call, lock, PGAS_AOP_FADD, TICKET, 0);
	uint32_t mine = (uint32_t)(v >> 32);

	for (unsigned spins = 0; (uint32_t)v != mine; spins++) {
		/* Serve the others' messages: on PE 0 the lock word is local,
		 * the reads never wait inside libpgas, and the PEs that reach
		 * it by messages (PGAS_MAP_PEERS=none) need PE 0 to poll. */
		(void)pgas_poll();
		/* Let the holder run (PEs may outnumber the cores). */
		if (spins > 16)
			sched_yield();
		v = lock_op(call, lock, PGAS_AOP_GET, 0, 0);
	}
	acquired();
}

int shmem_test_lock(long *lock)
{
	static const char call[] = "shmem_test_lock";
	uint64_t v = lock_op(call, lock, PGAS_AOP_GET, 0, 0);

	/* Take the next ticket only if it is the one served: never queue. */
	while (is_free(v)) {
		uint64_t o = lock_op(call, lock, PGAS_AOP_FCAS, v, v + TICKET);

		if (o == v) {
			acquired();
			return 0;
		}
		v = o;
	}
	return 1;
}

void shmem_clear_lock(long *lock)
{
	static const char call[] = "shmem_clear_lock";
	uint64_t v;

	/* The critical section's stores are visible before the next holder enters. */
	SHMEM__CHECK(call, pgas_quiet());
	v = lock_op(call, lock, PGAS_AOP_GET, 0, 0);
	if (is_free(v))
		shmem__fatal(call, "the lock %p is not held", (void *)lock);
	/* Only the holder moves the served half: add 1 to it, without a
	 * carry into the ticket half when it wraps. */
	(void)lock_op(call, lock, PGAS_AOP_ADD, (uint32_t)v == UINT32_MAX ? 1 - TICKET : 1, 0);
}
