/* SPDX-License-Identifier: MIT */
/*
 * pgas_fast.h - the inline fast path of libpgas (included by pgas.h).
 *
 * Everything here is loads, stores, memcpy and atomics on memory the conduit
 * mapped: no syscalls, no locks, no function pointers.  Anything unusual
 * (an error, a full ring, a multi-slot message) leaves through an
 * out-of-line pgas__*() call.  Names with a double underscore are not API.
 */
#ifndef PGAS_FAST_H
#define PGAS_FAST_H

#include <stdatomic.h>
#include <string.h>
#include "pgas_abi.h"	/* uapi/ in the tree, beside this file once installed */

#ifdef __cplusplus
extern "C" {
#endif

#define PGAS__LIKELY(x) __builtin_expect(!!(x), 1)
#define PGAS__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PGAS__COLD __attribute__((cold, noinline))

/*
 * A fence.  TSan does not model fences (GCC rejects them under it); there
 * the ordering it checks comes from the acquire/release atomics alone.
 */
#if defined(__SANITIZE_THREAD__)
#define PGAS__FENCE(order) __asm__ __volatile__("" ::: "memory")
#else
#define PGAS__FENCE(order) atomic_thread_fence(order)
#endif

/*
 * An endpoint's count of operations in flight, read by the inline syncs
 * while another thread's operation (or the progress that completes a
 * remote one) changes it.  Under TSan, which sees no fence (above), an
 * acquire load.  Elsewhere a plain read of the aligned word: the same
 * single load as a relaxed atomic one on the targets we build for, which
 * GCC folds into the compare (cmpq $0, mem) where it does not fold an
 * atomic load (one instruction more per sync and quiet, measured).
 */
#if defined(__SANITIZE_THREAD__)
#define PGAS__PENDING(word) __atomic_load_n(&(word), __ATOMIC_ACQUIRE)
#else
#define PGAS__PENDING(word) (word)
#endif

/*
 * The inline fast path's version: the layouts below and what the inline
 * code does with them.  Every translation unit that includes this header
 * refers to a symbol named after it, which the library defines: a program
 * compiled against one fast path fails to link (or to load) with a library
 * built with another, instead of reading the wrong fields.  Bump it with
 * any change to struct pgas__peer, pgas__state, pgas__thread, the waiter,
 * or to what an inline call expects of the library.
 */
#define PGAS__FAST_ABI 3	/* 3: pgas__copy calls pgas__copy_long */
#define PGAS__FAST_RING 3	/* PGAS_ABI_VERSION, without its suffix */
#define PGAS__FAST_SYM__(v, a) pgas__fast_abi_##v##_ring##a
#define PGAS__FAST_SYM_(v, a) PGAS__FAST_SYM__(v, a)
#define PGAS__FAST_SYM PGAS__FAST_SYM_(PGAS__FAST_ABI, PGAS__FAST_RING)
#ifndef __cplusplus
_Static_assert(PGAS__FAST_RING == PGAS_ABI_VERSION, "PGAS__FAST_RING follows the ring ABI");
#endif
extern const unsigned char PGAS__FAST_SYM;
/* Fast path 2 differs only in not calling pgas__copy_long: the library
 * still serves its programs, and says so. */
extern const unsigned char PGAS__FAST_SYM_(2, PGAS__FAST_RING);
static const unsigned char *const pgas__fast_abi_ref __attribute__((used)) = &PGAS__FAST_SYM;

/* One peer endpoint as this process sees it (hot fields first). */
struct pgas__peer {
	char *seg_remote;		/* segment base in the peer's address space */
	intptr_t seg_delta;		/* local mapping minus seg_remote */
	size_t seg_size;
	struct pgas_ctrl_page *ctrl;
	struct pgas_mbox_slot *mbox[PGAS_NCHAN];
	uint64_t head_seen[PGAS_NCHAN];	/* last head read from ctrl (credits) */
	struct pgas_notify_entry *notify;
	unsigned char *bounce;		/* peer's bounce area (for our buffers) */
	uint32_t bounce_next[PGAS_NCHAN];
	uint64_t notify_head_seen;
	unsigned owner;			/* rank that owns this endpoint */
	unsigned char state;		/* PGAS__PEER_*: an eid resolved here? */
	/* The rank's registered region (pgas_segment_register), filled in
	 * the primary's entries only: read on a miss of the segment. */
	uint32_t reg_4k;		/* its size in 4 KiB units; 0: none */
	char *reg_remote;		/* its base in the peer's address space */
	intptr_t reg_delta;		/* local mapping minus reg_remote */
};
#define PGAS__PEER_UNRESOLVED	0	/* ctrl is a dummy; head_seen sends out of line */
#define PGAS__PEER_LIVE		1
#define PGAS__PEER_CLOSED	2
#ifndef __cplusplus
_Static_assert(sizeof(struct pgas__peer) == 128, "a peer entry is 128 bytes");
#endif

/* One of my own rings, as its consumer. */
struct pgas__inbox {
	struct pgas_mbox_slot *slots;
	uint64_t head;			/* next slot to consume */
	uint32_t lap;			/* lap expected at head */
	struct pgas_mbox_slot *next;	/* &slots[head & mask] */
};

/*
 * An endpoint (pgas_ep_t): pgas__g is the rank's primary; pgas_ep_create
 * makes more (core/ep.c).  Only its owner writes it, except where noted.
 */
struct pgas__state {
	/* Hot, read by every inline call. */
	unsigned nranks;		/* 0 until attached: fails rank checks */
	unsigned rank;
	struct pgas__peer *peers;	/* [ntargets], by eid: ranks first */
	unsigned ntargets;		/* every eid is below it: 0 until attached */
	/*
	 * pgas.ko: its kernel page's peers_gone and peers_left as one word,
	 * non-zero once a peer of the job has left at the kernel's level
	 * (died, or its process ended); else a word that stays 0.  Where
	 * peers may sleep (block wait mode): a word that is never 0, so that
	 * every transfer's check leaves the fast path to wake its target.
	 */
	const uint64_t *gone;
	uint64_t status_src;		/* PGAS_STATUS(0, rank, 0, 0, 0, 0) */
	uint32_t mbox_mask;		/* mbox_slots - 1 */
	uint32_t mbox_shift;		/* log2(mbox_slots) */
	/* Non-zero when sends and polls go out of line: not attached, in a
	 * handler, an HSL held, or PGAS_THREAD_MULTIPLE. */
	unsigned send_block;
	unsigned wake;			/* peers may sleep: ring their doorbell */
	/* Work in flight that polls advance: bit 31 a notified barrier, the
	 * others the layers' (core/layer.h).  Written by the one thread that
	 * runs progress (relaxed atomics), read by any. */
	unsigned pending;
	struct pgas__inbox inbox[PGAS_NCHAN];
	struct pgas_ctrl_page *my_ctrl;
	pgas_handler_fn handlers[PGAS_MAX_HANDLERS];
	/* Implicit-handle operations that may still be pending. */
	uint64_t nbi_puts_pending;
	uint64_t nbi_gets_pending;
	struct pgas__ep_priv *priv;	/* the rest (core/internal.h) */
};

extern struct pgas__state pgas__g;

/* What belongs to the calling thread, not the process (core/thread.c).
 * Inline calls on an extra endpoint read it: handlers may not request. */
struct pgas__thread {
	unsigned handler_depth;	/* handlers it is running, nested */
	unsigned hsl_held;	/* handler-safe locks it holds */
	unsigned plock_depth;	/* its holds of the progress lock */
	unsigned char in_region;	/* inside an nbi access region (rma.c) */
};
extern _Thread_local struct pgas__thread pgas__self
	__attribute__((tls_model("initial-exec")));

/* State of one wait loop (see wait.c). */
struct pgas__waiter {
	unsigned spins;
	uint32_t bell;		/* doorbell value read before the last check */
	unsigned char armed;	/* bell is valid: the next step may sleep */
	unsigned char nosleep;	/* waiting on something no doorbell announces */
	unsigned char stuck;	/* the last check found the job had left me alone */
	unsigned char naps;	/* sleeps in a row that no bell ended (block mode) */
	unsigned char poller;	/* a progress thread: waits for nothing, never stuck */
	/* What it waits for a thread of this rank may provide (the caller's
	 * condition in pgas_block_until, room this rank's own handlers or
	 * senders give back): above PGAS_THREAD_SINGLE never abandoned. */
	unsigned char local;
	/* Checks the condition once 'sleeping' is announced (NULL: none),
	 * so that a producer may skip ringing a rank that is not asleep. */
	int (*recheck)(const void *arg);
	const void *recheck_arg;
	struct pgas__state *ep;	/* the endpoint it polls and sleeps on (NULL: primary) */
};
#define PGAS__WAITER_INIT { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
#define PGAS__WAITER_USER { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0 }
void pgas__wait_step(struct pgas__waiter *w);

/*
 * Statistics and tracing (PGAS_STATS, PGAS_TRACE; docs/stats.md).  The
 * library notes what it does out of line by itself.  The inline calls that
 * complete here (on a peer mapped here) note themselves through pgas__note
 * only in a program built with -DPGAS_INSTRUMENT; in any other they are
 * what they always are, and the report says that they were not counted.
 */
#define PGAS__NOTE_PUT		0u
#define PGAS__NOTE_GET		1u
#define PGAS__NOTE_AMO		2u
#define PGAS__NOTE_AM_SHORT	3u	/* a request; rank: the eid */
void pgas__note(unsigned what, unsigned rank, size_t n);
extern int pgas__instrumented;	/* a part of the program was built so */
#ifdef PGAS_INSTRUMENT
#define PGAS__NOTE(what, rank, n) pgas__note((what), (rank), (n))
__attribute__((constructor, used)) static void pgas__instrument_unit(void)
{
	pgas__instrumented = 1;
}
#else
#define PGAS__NOTE(what, rank, n) ((void)0)
#endif

/* Out-of-line helpers, in the library's .c files. */
int pgas__rma_fail(const char *call, unsigned rank, const void *addr, size_t n);
int pgas__am_short_slow(struct pgas__state *ep, unsigned eid, unsigned handler,
			const uint32_t *args, unsigned nargs);
/* The rest of a one-slot request whose ticket t found no room (or a dummy
 * ring): waits for room, writes and publishes it, or fails. */
int pgas__am_short_full(struct pgas__state *ep, unsigned eid, unsigned handler,
			const uint32_t *args, unsigned nargs, uint64_t t);
void pgas__ring_doorbell(struct pgas_ctrl_page *ctrl);
int pgas__poll_slow(struct pgas__state *ep);
int pgas__sync_pending(struct pgas__state *ep, const char *call, int what, int block);
void pgas__fence_wait(struct pgas__state *ep);
int pgas__val_fail(const char *call, unsigned rank, const void *addr, size_t n);
int pgas__rma_gone(const char *call, unsigned rank);
/*
 * A miss of the inline calls below: the remote path (core/rma_ref.c) where
 * rank is valid but not mapped here, else the error.  Every operand goes
 * in registers (six at most), and nothing of the caller's by address that
 * the hit path does not need: a pointer to a caller's variable that
 * reaches a call puts the variable in memory on the hit path too.  So a
 * handle, a fetched value and the data of a put or get of a constant size
 * up to 8 bytes travel by value (a register pair back).
 */
struct pgas__val_ret {
	int64_t rc;
	uint64_t value;		/* the handle, or the bytes fetched */
};
/* kind: what the call is and which of its pointers were not NULL. */
#define PGAS__K_GET	1u	/* a get (else a put) */
#define PGAS__K_NB	2u	/* the _nb form: value is the handle */
#define PGAS__K_NBI	4u	/* the _nbi form */
#define PGAS__K_VAL	8u	/* pgas_put_val / pgas_get_val */
#define PGAS__K_HANDLE	16u	/* the _nb call's handle pointer was not NULL */
#define PGAS__K_LOCAL	32u	/* the local buffer (or value pointer) was not NULL */
struct pgas__val_ret pgas__rma_miss(struct pgas__state *ep, unsigned kind, unsigned rank,
				    void *remote, void *local, size_t n);
struct pgas__val_ret pgas__rma_miss_val(struct pgas__state *ep, unsigned kind, unsigned rank,
					void *remote, uint64_t bits, size_t n);

/* Inlined into the cold branch of a put: src by value when it is small. */
static inline __attribute__((always_inline))
int pgas__put_missed(struct pgas__state *ep, unsigned kind, unsigned rank, void *dst,
		     const void *src, size_t n, pgas_handle_t *handle)
{
	struct pgas__val_ret r;

	if (__builtin_constant_p(n) && n <= 8 && src) {
		uint64_t b = 0;

		memcpy(&b, src, n);
		r = pgas__rma_miss_val(ep, kind | PGAS__K_LOCAL | (handle ? PGAS__K_HANDLE : 0),
				       rank, dst, b, n);
	} else {
		r = pgas__rma_miss(ep, kind | (src ? PGAS__K_LOCAL : 0) |
				   (handle ? PGAS__K_HANDLE : 0), rank, dst, (void *)src, n);
	}
	if (handle)	/* PGAS_HANDLE_DONE on an error: no maybe-uninitialized */
		*handle = r.value;
	return (int)r.rc;
}

/*
 * The same for a get, dst always by address: it would be needed after the
 * call to store a value returned, and a register kept across a call costs
 * the hit path a save and a restore (measured: get_nbi8 22 -> 25).
 */
static inline __attribute__((always_inline))
int pgas__get_missed(struct pgas__state *ep, unsigned kind, void *dst, unsigned rank,
		     const void *src, size_t n, pgas_handle_t *handle)
{
	struct pgas__val_ret r;

	r = pgas__rma_miss(ep, kind | PGAS__K_GET | (dst ? PGAS__K_LOCAL : 0) |
			   (handle ? PGAS__K_HANDLE : 0), rank, (void *)src, dst, n);
	if (handle)	/* PGAS_HANDLE_DONE on an error: no maybe-uninitialized */
		*handle = r.value;
	return (int)r.rc;
}

/* An explicit handle other than PGAS_HANDLE_DONE: wait (block) or test it. */
int pgas__sync_nb(pgas_handle_t handle, const char *call, int block);

/*
 * After a transfer's copy: PGAS_ERR_GONE if rank has left the job at the
 * kernel's level.  pgas.ko publishes a departure (the kernel page's counts
 * and event) before it revokes the mappings of the one that left, so a
 * copy that touched the throwaway page that revocation leaves behind is
 * followed by a load that sees the count: the acquire fence keeps the
 * copy's loads before it, and the revocation's TLB shootdown orders a
 * copy's stores.  One load and a branch while nobody has left.
 */
/* get: PGAS__RMA_GET after a get, which wakes nobody (rma.c). */
#define PGAS__RMA_GET 0x80000000u
static inline int pgas__rma_check_dir(const struct pgas__state *ep, const char *call,
				      unsigned rank, unsigned get)
{
	PGAS__FENCE(memory_order_acquire);
	if (PGAS__UNLIKELY(atomic_load_explicit((_Atomic uint64_t *)ep->gone,
						memory_order_relaxed)))
		return pgas__rma_gone(call, rank | get);
	return PGAS_OK;
}

static inline int pgas__ep_rma_check(const struct pgas__state *ep, const char *call,
				     unsigned rank)
{
	return pgas__rma_check_dir(ep, call, rank, 0);
}

static inline int pgas__ep_rma_check_get(const struct pgas__state *ep, const char *call,
					 unsigned rank)
{
	return pgas__rma_check_dir(ep, call, rank, PGAS__RMA_GET);
}

static inline int pgas__rma_check(const char *call, unsigned rank)
{
	return pgas__ep_rma_check(&pgas__g, call, rank);
}

static inline int pgas__rma_check_get(const char *call, unsigned rank)
{
	return pgas__ep_rma_check_get(&pgas__g, call, rank);
}

/* Every segment is at least this large (pgas_attach rounds up to pages). */
#define PGAS__MIN_SEGMENT 4096

/* Is [off, off+n) inside a segment of p? One compare for small constant n. */
static inline int pgas__in_segment(const struct pgas__peer *p, uintptr_t off, size_t n)
{
	if (__builtin_constant_p(n) && n <= PGAS__MIN_SEGMENT)
		return off <= p->seg_size - n;
	return off <= p->seg_size && n <= p->seg_size - off;
}

/*
 * A miss of the segment: rank's registered region (pgas_segment_register),
 * from the primary's entry (extra endpoints' entries do not carry it).
 * Inline and without a call, so that the callers' hit paths keep their
 * registers (a call here costs the hit path the saves around it).
 */
static inline int pgas__map_region(unsigned rank, const void *addr, size_t n, intptr_t *delta)
{
	const struct pgas__peer *g = &pgas__g.peers[rank];
	uintptr_t off = (uintptr_t)addr - (uintptr_t)g->reg_remote;
	size_t size = (size_t)g->reg_4k << 12;

	if (!size || off > size || n > size - off)
		return 0;
	*delta = g->reg_delta;
	return 1;
}

/*
 * Translates addr (in rank's address space) to this process's mapping of
 * rank's segment into *out; false when rank or [addr, addr+n) is bad.
 * Only the segment (the collectives' staging assumes it).
 */
static inline int pgas__ep_map_seg(const struct pgas__state *ep, unsigned rank,
				   const void *addr, size_t n, char **out)
{
	const struct pgas__peer *p;

	if (PGAS__UNLIKELY(rank >= ep->nranks))
		return 0;
	p = &ep->peers[rank];
	if (PGAS__UNLIKELY(!pgas__in_segment(p, (uintptr_t)addr - (uintptr_t)p->seg_remote, n)))
		return 0;
	*out = (char *)addr + p->seg_delta;
	return 1;
}

/*
 * The same, or in rank's registered region: what every RMA, atomic and
 * signal call accepts.  The hit in the segment is the code above; only a
 * miss looks at the region.
 */
static inline int pgas__ep_map(const struct pgas__state *ep, unsigned rank, const void *addr,
			       size_t n, char **out)
{
	const struct pgas__peer *p;
	intptr_t delta;

	if (PGAS__UNLIKELY(rank >= ep->nranks))
		return 0;
	p = &ep->peers[rank];
	/* One add for both: a merged pointer would cost the hit path a move. */
	if (PGAS__LIKELY(pgas__in_segment(p, (uintptr_t)addr - (uintptr_t)p->seg_remote, n)))
		delta = p->seg_delta;
	else if (!pgas__map_region(rank, addr, n, &delta))
		return 0;
	*out = (char *)addr + delta;
	return 1;
}

static inline int pgas__map(unsigned rank, const void *addr, size_t n, char **out)
{
	return pgas__ep_map(&pgas__g, rank, addr, n, out);
}

/* The same, NULL when bad (for paths where a pointer result reads better). */
static inline char *pgas__xlate(unsigned rank, const void *addr, size_t n)
{
	char *d;

	return pgas__map(rank, addr, n, &d) ? d : NULL;
}

/* ---- RMA ----------------------------------------------------------------- */

/*
 * memcpy, but zero bytes may come with NULL pointers (memcpy's UB), and
 * long copies go out of line (core/copy.c) to a copy that keeps memcpy's
 * best speed whatever the buffers' alignment.  A constant size below
 * PGAS__COPY_LONG costs nothing more.
 */
#define PGAS__COPY_LONG 2048
void pgas__copy_long(void *dst, const void *src, size_t n);	/* n >= PGAS__COPY_LONG */

static inline void pgas__copy(void *dst, const void *src, size_t n)
{
	if (PGAS__UNLIKELY(n >= PGAS__COPY_LONG))
		pgas__copy_long(dst, src, n);
	else if (PGAS__LIKELY(n))
		memcpy(dst, src, n);
}

/*
 * What each call does once its address is translated and checked: d (or
 * s) is this process's mapping of the bytes at rank.  The calls below
 * translate and then do this; a layer that translates once by itself
 * (the OpenSHMEM layer's heap view, shmem.h) calls these directly.
 */
static inline int pgas__ep_put_nbi_at(struct pgas__state *ep, unsigned rank, char *d,
				      const void *src, size_t nbytes)
{
	(void)ep;
	(void)rank;
	PGAS__NOTE(PGAS__NOTE_PUT, rank, nbytes);
	pgas__copy(d, src, nbytes);
	return PGAS_OK;
}

static inline int pgas__ep_get_nbi_at(struct pgas__state *ep, void *dst, unsigned rank,
				      const char *s, size_t nbytes)
{
	PGAS__NOTE(PGAS__NOTE_GET, rank, nbytes);
	pgas__copy(dst, s, nbytes);
	return pgas__ep_rma_check_get(ep, "pgas_get_nbi", rank);
}

static inline int pgas__ep_put_at(struct pgas__state *ep, unsigned rank, char *d,
				  const void *src, size_t nbytes)
{
	PGAS__NOTE(PGAS__NOTE_PUT, rank, nbytes);
	pgas__copy(d, src, nbytes);
	PGAS__FENCE(memory_order_release);
	return pgas__ep_rma_check(ep, "pgas_put", rank);
}

static inline int pgas__ep_get_at(struct pgas__state *ep, void *dst, unsigned rank,
				  const char *s, size_t nbytes)
{
	PGAS__NOTE(PGAS__NOTE_GET, rank, nbytes);
	PGAS__FENCE(memory_order_acquire);
	pgas__copy(dst, s, nbytes);
	return pgas__ep_rma_check_get(ep, "pgas_get", rank);
}

/* d: aligned to nbytes, which is 1, 2, 4 or 8 (PGAS__VAL_OK below). */
static inline int pgas__ep_put_val_at(struct pgas__state *ep, unsigned rank, char *d,
				      uint64_t value, size_t nbytes)
{
	PGAS__NOTE(PGAS__NOTE_PUT, rank, nbytes);
	switch (nbytes) {
	case 1: atomic_store_explicit((_Atomic uint8_t *)d, (uint8_t)value, memory_order_release); break;
	case 2: atomic_store_explicit((_Atomic uint16_t *)d, (uint16_t)value, memory_order_release); break;
	case 4: atomic_store_explicit((_Atomic uint32_t *)d, (uint32_t)value, memory_order_release); break;
	default: atomic_store_explicit((_Atomic uint64_t *)d, value, memory_order_release); break;
	}
	return pgas__ep_rma_check(ep, "pgas_put_val", rank);
}

static inline int pgas__ep_get_val_at(struct pgas__state *ep, uint64_t *value, unsigned rank,
				      const char *s, size_t nbytes)
{
	PGAS__NOTE(PGAS__NOTE_GET, rank, nbytes);
	switch (nbytes) {
	case 1: *value = atomic_load_explicit((_Atomic uint8_t *)s, memory_order_acquire); break;
	case 2: *value = atomic_load_explicit((_Atomic uint16_t *)s, memory_order_acquire); break;
	case 4: *value = atomic_load_explicit((_Atomic uint32_t *)s, memory_order_acquire); break;
	default: *value = atomic_load_explicit((_Atomic uint64_t *)s, memory_order_acquire); break;
	}
	return pgas__ep_rma_check_get(ep, "pgas_get_val", rank);
}

static inline int pgas_ep_put_nbi(struct pgas__state *ep, unsigned rank, void *dst, const void *src, size_t nbytes)
{
	char *d;

	if (PGAS__UNLIKELY(!pgas__ep_map(ep, rank, dst, nbytes, &d) || (!src && nbytes)))
		return pgas__put_missed(ep, PGAS__K_NBI, rank, dst, src, nbytes, NULL);
	return pgas__ep_put_nbi_at(ep, rank, d, src, nbytes);
}

static inline int pgas_put_nbi(unsigned rank, void *dst, const void *src, size_t nbytes)
{
	return pgas_ep_put_nbi(&pgas__g, rank, dst, src, nbytes);
}

static inline int pgas_ep_get_nbi(struct pgas__state *ep, void *dst, unsigned rank, const void *src, size_t nbytes)
{
	char *s;

	if (PGAS__UNLIKELY(!pgas__ep_map(ep, rank, src, nbytes, &s) || (!dst && nbytes)))
		return pgas__get_missed(ep, PGAS__K_NBI, dst, rank, src, nbytes, NULL);
	return pgas__ep_get_nbi_at(ep, dst, rank, s, nbytes);
}

static inline int pgas_get_nbi(void *dst, unsigned rank, const void *src, size_t nbytes)
{
	return pgas_ep_get_nbi(&pgas__g, dst, rank, src, nbytes);
}

static inline int pgas_ep_put(struct pgas__state *ep, unsigned rank, void *dst, const void *src, size_t nbytes)
{
	char *d;

	if (PGAS__UNLIKELY(!pgas__ep_map(ep, rank, dst, nbytes, &d) || (!src && nbytes)))
		return pgas__put_missed(ep, 0, rank, dst, src, nbytes, NULL);
	return pgas__ep_put_at(ep, rank, d, src, nbytes);
}

static inline int pgas_put(unsigned rank, void *dst, const void *src, size_t nbytes)
{
	return pgas_ep_put(&pgas__g, rank, dst, src, nbytes);
}

static inline int pgas_ep_get(struct pgas__state *ep, void *dst, unsigned rank, const void *src, size_t nbytes)
{
	char *s;

	if (PGAS__UNLIKELY(!pgas__ep_map(ep, rank, src, nbytes, &s) || (!dst && nbytes)))
		return pgas__get_missed(ep, 0, dst, rank, src, nbytes, NULL);
	return pgas__ep_get_at(ep, dst, rank, s, nbytes);
}

static inline int pgas_get(void *dst, unsigned rank, const void *src, size_t nbytes)
{
	return pgas_ep_get(&pgas__g, dst, rank, src, nbytes);
}

static inline int pgas_ep_put_nb(struct pgas__state *ep, pgas_handle_t *handle, unsigned rank, void *dst,
			      const void *src, size_t nbytes)
{
	char *d;

	if (PGAS__UNLIKELY(!pgas__ep_map(ep, rank, dst, nbytes, &d) || !handle || (!src && nbytes)))
		return pgas__put_missed(ep, PGAS__K_NB, rank, dst, src, nbytes, handle);
	PGAS__NOTE(PGAS__NOTE_PUT, rank, nbytes);
	pgas__copy(d, src, nbytes);
	*handle = PGAS_HANDLE_DONE;
	return pgas__ep_rma_check(ep, "pgas_put_nb", rank);
}

static inline int pgas_put_nb(pgas_handle_t *handle, unsigned rank, void *dst,
			      const void *src, size_t nbytes)
{
	return pgas_ep_put_nb(&pgas__g, handle, rank, dst, src, nbytes);
}

static inline int pgas_ep_get_nb(struct pgas__state *ep, pgas_handle_t *handle, void *dst, unsigned rank,
			      const void *src, size_t nbytes)
{
	char *s;

	if (PGAS__UNLIKELY(!pgas__ep_map(ep, rank, src, nbytes, &s) || !handle || (!dst && nbytes)))
		return pgas__get_missed(ep, PGAS__K_NB, dst, rank, src, nbytes, handle);
	PGAS__NOTE(PGAS__NOTE_GET, rank, nbytes);
	pgas__copy(dst, s, nbytes);
	*handle = PGAS_HANDLE_DONE;
	return pgas__ep_rma_check_get(ep, "pgas_get_nb", rank);
}

static inline int pgas_get_nb(pgas_handle_t *handle, void *dst, unsigned rank,
			      const void *src, size_t nbytes)
{
	return pgas_ep_get_nb(&pgas__g, handle, dst, rank, src, nbytes);
}

/* Natural alignment and a size of 1, 2, 4 or 8, in one test. */
#define PGAS__VAL_OK(addr, n)						\
	((n) && (n) <= 8 && !((n) & ((n) - 1)) && !((uintptr_t)(addr) & ((n) - 1)))

static inline int pgas_ep_put_val(struct pgas__state *ep, unsigned rank, void *dst, uint64_t value, size_t nbytes)
{
	char *d;

	if (PGAS__UNLIKELY(!pgas__ep_map(ep, rank, dst, nbytes, &d) || !PGAS__VAL_OK(d, nbytes)))
		return (int)pgas__rma_miss_val(ep, PGAS__K_VAL | PGAS__K_LOCAL, rank, dst, value,
					       nbytes).rc;
	return pgas__ep_put_val_at(ep, rank, d, value, nbytes);
}

static inline int pgas_put_val(unsigned rank, void *dst, uint64_t value, size_t nbytes)
{
	return pgas_ep_put_val(&pgas__g, rank, dst, value, nbytes);
}

static inline int pgas_ep_get_val(struct pgas__state *ep, uint64_t *value, unsigned rank, const void *src,
			       size_t nbytes)
{
	char *s;

	if (PGAS__UNLIKELY(!pgas__ep_map(ep, rank, src, nbytes, &s) || !value ||
			   !PGAS__VAL_OK(s, nbytes))) {
		struct pgas__val_ret r = pgas__rma_miss_val(ep, PGAS__K_VAL | PGAS__K_GET |
							    (value ? PGAS__K_LOCAL : 0), rank,
							    (void *)src, 0, nbytes);

		if (!r.rc)
			*value = r.value;
		return (int)r.rc;
	}
	return pgas__ep_get_val_at(ep, value, rank, s, nbytes);
}

static inline int pgas_get_val(uint64_t *value, unsigned rank, const void *src,
			       size_t nbytes)
{
	return pgas_ep_get_val(&pgas__g, value, rank, src, nbytes);
}

/* Values of pgas__sync_pending()'s 'what'. */
#define PGAS__NBI_PUTS 1
#define PGAS__NBI_GETS 2

static inline int pgas_wait_syncnb(pgas_handle_t handle)
{
	if (PGAS__LIKELY(handle == PGAS_HANDLE_DONE)) {
		PGAS__FENCE(memory_order_acq_rel);
		return PGAS_OK;
	}
	return pgas__sync_nb(handle, "pgas_wait_syncnb", 1);
}

static inline int pgas_try_syncnb(pgas_handle_t handle)
{
	if (PGAS__LIKELY(handle == PGAS_HANDLE_DONE)) {
		PGAS__FENCE(memory_order_acq_rel);
		return PGAS_OK;
	}
	return pgas__sync_nb(handle, "pgas_try_syncnb", 0);
}

/* A sync of an endpoint covers the implicit-handle operations issued on it. */
#define PGAS__SYNC_NBI(name, mask, block)				\
	static inline int pgas_ep_##name(struct pgas__state *ep)	\
	{								\
		if (PGAS__LIKELY(!(((mask) & PGAS__NBI_PUTS ? PGAS__PENDING(ep->nbi_puts_pending) : 0) | \
				   ((mask) & PGAS__NBI_GETS ? PGAS__PENDING(ep->nbi_gets_pending) : 0)))) { \
			PGAS__FENCE(memory_order_acq_rel);	\
			return PGAS_OK;					\
		}							\
		return pgas__sync_pending(ep, "pgas_" #name, (mask), (block)); \
	}								\
	static inline int pgas_##name(void)				\
	{								\
		return pgas_ep_##name(&pgas__g);			\
	}
PGAS__SYNC_NBI(wait_syncnbi_puts, PGAS__NBI_PUTS, 1)
PGAS__SYNC_NBI(wait_syncnbi_gets, PGAS__NBI_GETS, 1)
PGAS__SYNC_NBI(wait_syncnbi_all, PGAS__NBI_PUTS | PGAS__NBI_GETS, 1)
PGAS__SYNC_NBI(try_syncnbi_puts, PGAS__NBI_PUTS, 0)
PGAS__SYNC_NBI(try_syncnbi_gets, PGAS__NBI_GETS, 0)
PGAS__SYNC_NBI(try_syncnbi_all, PGAS__NBI_PUTS | PGAS__NBI_GETS, 0)
#undef PGAS__SYNC_NBI

/* What an endpoint's nbi_puts_pending reads with none in flight: block
 * mode keeps it at 1, so that syncs leave the fast path to ring sleepers. */
static inline uint64_t pgas__puts_base(void)
{
	return pgas__g.wake != 0;
}

/* Puts of ep in flight on the remote path. */
static inline int pgas__puts_in_flight(const struct pgas__state *ep)
{
	return PGAS__PENDING(ep->nbi_puts_pending) > pgas__puts_base();
}

static inline void pgas_ep_fence(struct pgas__state *ep)
{
	if (PGAS__UNLIKELY(pgas__puts_in_flight(ep)))
		pgas__fence_wait(ep);	/* they complete first (rma_ref.c) */
	PGAS__FENCE(memory_order_release);
}

static inline void pgas_fence(void)
{
	pgas_ep_fence(&pgas__g);
}

static inline int pgas_ep_quiet(struct pgas__state *ep)
{
	if (PGAS__LIKELY(!(PGAS__PENDING(ep->nbi_puts_pending) |
			   PGAS__PENDING(ep->nbi_gets_pending)))) {
		PGAS__FENCE(memory_order_seq_cst);
		return PGAS_OK;
	}
	return pgas__sync_pending(ep, "pgas_quiet", PGAS__NBI_PUTS | PGAS__NBI_GETS, 1);
}

static inline int pgas_quiet(void)
{
	return pgas_ep_quiet(&pgas__g);
}

static inline void *pgas_ptr(unsigned rank, const void *addr)
{
	return pgas__xlate(rank, addr, 1);
}

/* ---- active messages ----------------------------------------------------- */

/* Lap number stored in a status word for ring ticket t. */
static inline uint32_t pgas__ep_lap(const struct pgas__state *ep, uint64_t t)
{
	return (uint32_t)((t >> ep->mbox_shift) + 1) & 0xffffu;
}

static inline uint32_t pgas__lap(uint64_t t)
{
	return pgas__ep_lap(&pgas__g, t);
}

/*
 * A checked one-slot request (up to 14 arguments): reserve, write, publish
 * (see pgas_abi.h).  Inline below PGAS_THREAD_MULTIPLE (shared 0: one
 * thread reads the credit cache, a plain load that can be an operand); the
 * out-of-line path sends with it from any thread (shared 1: the cache,
 * which other threads write, is read as a relaxed atomic).  An eid this
 * endpoint has not resolved yet has a dummy ring and a credit cache that
 * sends every request to pgas__mbox_wait_space, which resolves it.
 */
/* Writes and publishes a one-slot request at ticket t of p's request ring. */
static inline void pgas__am_short_write(const struct pgas__state *ep,
					const struct pgas__peer *p, unsigned chan, uint64_t t,
					unsigned handler, const uint32_t *args,
					unsigned nargs)
{
	struct pgas_mbox_slot *slot = &p->mbox[chan][t & ep->mbox_mask];

	for (unsigned i = 0; i < nargs; i++)	/* args may be NULL when nargs is 0 */
		((uint32_t *)slot->payload)[i] = args[i];
	atomic_store_explicit((_Atomic uint64_t *)&slot->status,
			      ep->status_src | pgas__ep_lap(ep, t) |
			      PGAS_STATUS(0, 0, nargs * 4, nargs, PGAS_MSG_SHORT, handler),
			      memory_order_release);
	if (PGAS__UNLIKELY(ep->wake))
		pgas__ring_doorbell(p->ctrl);
}

/*
 * The fast path of a one-slot Short, request or reply: takes a ticket of
 * p's ring chan and, when the credit cache shows room, writes the slot and
 * returns 1; otherwise returns 0 with the ticket in *t, for the caller to
 * wait for room.
 */
static inline int pgas__am_short_try(const struct pgas__state *ep, struct pgas__peer *p,
				      unsigned chan, unsigned handler, const uint32_t *args,
				      unsigned nargs, int shared, uint64_t *t)
{
	uint64_t seen;

	*t = atomic_fetch_add_explicit((_Atomic uint64_t *)&p->ctrl->mbox[chan].tail, 1,
				       memory_order_relaxed);
	/* Acquire: pairs with the release store of the cache, so that the
	 * consumer's reads of the slot's last lap happen before this write. */
	seen = shared ? atomic_load_explicit((_Atomic uint64_t *)&p->head_seen[chan],
					     memory_order_acquire)
		      : p->head_seen[chan];
	if (PGAS__UNLIKELY(*t - seen > ep->mbox_mask))
		return 0;
	pgas__am_short_write(ep, p, chan, *t, handler, args, nargs);
	return 1;
}

static inline int pgas__am_short_send(struct pgas__state *ep, unsigned eid, unsigned handler,
				      const uint32_t *args, unsigned nargs, int shared)
{
	uint64_t t;

	if (PGAS__UNLIKELY(!pgas__am_short_try(ep, &ep->peers[eid], PGAS_CHAN_REQUEST, handler,
					       args, nargs, shared, &t)))	/* waits, then sends */
		return pgas__am_short_full(ep, eid, handler, args, nargs, t);
	return PGAS_OK;
}

/* AM Short request: one slot inline, otherwise the out-of-line path. */
static inline int pgas_ep_am_request_short(struct pgas__state *ep, unsigned eid,
					   unsigned handler, const uint32_t *args,
					   unsigned nargs)
{
	/* The primary mirrors its thread's state in send_block; an extra
	 * endpoint's sender reads its own (the check folds away for the
	 * primary, whose address is a constant). */
	if (PGAS__UNLIKELY(eid >= ep->ntargets || handler >= PGAS_MAX_HANDLERS ||
			   !ep->handlers[handler] || nargs > PGAS_SLOT_PAYLOAD / 4 ||
			   (!args && nargs) || ep->send_block ||
			   (ep != &pgas__g && (pgas__self.handler_depth | pgas__self.hsl_held))))
		return pgas__am_short_slow(ep, eid, handler, args, nargs);
	PGAS__NOTE(PGAS__NOTE_AM_SHORT, eid, nargs * 4u);
	return pgas__am_short_send(ep, eid, handler, args, nargs, 0);
}

static inline int pgas_am_request_short(unsigned rank, unsigned handler,
					const uint32_t *args, unsigned nargs)
{
	return pgas_ep_am_request_short(&pgas__g, rank, handler, args, nargs);
}

/*
 * Is a message waiting in either of ep's rings?  (Only once attached.)  A
 * hint, read without the poller's place: its poller (another thread at
 * MULTIPLE, the progress thread on a PGAS_EP_PROGRESS endpoint) may be
 * moving next and lap meanwhile, so both are atomics (relaxed: plain loads
 * and stores on the machines we build for).  A stale pair only makes the
 * caller poll for nothing, or see the message at its next look.
 */
static inline int pgas__inbox_waiting(const struct pgas__inbox *in)
{
	const struct pgas_mbox_slot *next = __atomic_load_n(&in->next, __ATOMIC_RELAXED);

	return (atomic_load_explicit((_Atomic uint64_t *)&next->status, memory_order_relaxed) &
		0xffffu) == __atomic_load_n(&in->lap, __ATOMIC_RELAXED);
}

static inline int pgas__ep_msgs_waiting(const struct pgas__state *ep)
{
	return pgas__inbox_waiting(&ep->inbox[PGAS_CHAN_REQUEST]) ||
	       pgas__inbox_waiting(&ep->inbox[PGAS_CHAN_REPLY]);
}

static inline int pgas__msgs_waiting(void)
{
	return pgas__ep_msgs_waiting(&pgas__g);
}

/* Runs handlers if a message waits in either of ep's rings. */
static inline int pgas_ep_poll(struct pgas__state *ep)
{
	/* Relaxed: at PGAS_THREAD_MULTIPLE another thread may be changing
	 * 'pending' (send_block then routes every poll out of line, where a
	 * lock decides who polls).  An extra endpoint's pending and
	 * send_block stay 0: its slow path takes its poll lock. */
	if (PGAS__LIKELY((atomic_load_explicit((_Atomic unsigned *)&ep->pending,
					       memory_order_relaxed) | ep->send_block) == 0 &&
			 !pgas__ep_msgs_waiting(ep)))
		return 0;
	return pgas__poll_slow(ep);
}

static inline int pgas_poll(void)
{
	return pgas_ep_poll(&pgas__g);
}

/* Polls ep (spin, yield or block per PGAS_WAIT_MODE) until cond is true. */
#define pgas_ep_block_until(ep_, cond)					\
	do {								\
		struct pgas__waiter pgas__w = PGAS__WAITER_USER;	\
		pgas__w.ep = (ep_);					\
		while (!(cond))						\
			pgas__wait_step(&pgas__w);			\
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* PGAS_FAST_H */
