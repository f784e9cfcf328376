/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * pgas_abi.h - the ring ABI shared by pgas.ko, the shm conduit and libpgas.
 *
 * Both conduits expose exactly these layouts, so the inline fast path of
 * libpgas is the same whichever conduit set the rings up.
 *
 * Objects of one endpoint (one rank of a job):
 *
 *   control page   struct pgas_ctrl_page: ring controls, barrier flags,
 *                  doorbell; one 4 KiB page.
 *   VELO mailboxes two rings of 64-byte slots (struct pgas_mbox_slot):
 *                  PGAS_CHAN_REQUEST and PGAS_CHAN_REPLY.  A reply never
 *                  waits behind requests because it has a ring of its own.
 *   notification   ring of 16-byte entries (struct pgas_notify_entry).
 *   bounce area    per-source buffers for AM Medium payloads too large to
 *                  travel as VELO packets (struct pgas_bounce_hdr + data).
 *   segment        the RMA target memory.
 *
 * Memory ordering (the whole protocol, producer side then consumer side):
 *
 *  Mailbox ring (multi-producer, single-consumer):
 *   1. A producer reserves k consecutive slots with an atomic fetch-add of k
 *      on ctrl->tail; the returned value t is its ticket.
 *   2. It waits until load_acquire(ctrl->head) >= t + k - nslots, i.e. the
 *      owner has consumed the slots' previous lap.
 *   3. It writes payload and status of slots t+1 .. t+k-1 (relaxed), then
 *      the payload of slot t, then the status word of slot t with a RELEASE
 *      store.  The status word of the first slot is always written last.
 *   4. The owner polls status of slot (head mod nslots) with ACQUIRE loads;
 *      the message is present when PGAS_STATUS_LAP(status) equals the lap
 *      of head (head / nslots + 1, modulo 2^16).  Using a lap number rather
 *      than zeroing a slot means no ABA on wrap and no extra store.
 *   5. After the message has been handled the owner publishes
 *      head + k with a RELEASE store; only then may producers reuse the slots.
 *
 *  Notification ring: same protocol, entries of 16 bytes, always k = 1.
 *
 *  Bounce buffers: the source owns a buffer while its 'busy' word is 1; it
 *  writes the payload, then sends the VELO header that names the buffer (the
 *  header's release store orders the payload).  The owner of the area
 *  clears 'busy' with a RELEASE store after the handler returned; the source
 *  reads it with ACQUIRE.
 *
 *  Barrier flags: each flag word has a single writer (the partner of a
 *  round), which stores epoch, id and flags in one RELEASE store; the reader
 *  loads it with ACQUIRE.
 *
 *  Doorbell: only used when the job's wait mode can sleep.  A producer that
 *  published anything bumps ctrl->doorbell and, if ctrl->sleeping is set,
 *  wakes the owner (futex on the doorbell word for shm, the same word via
 *  poll() on the device for pgas.ko).
 */
#ifndef _UAPI_PGAS_ABI_H
#define _UAPI_PGAS_ABI_H

#ifdef __KERNEL__
#include <linux/types.h>
#define PGAS_U64 __u64
#define PGAS_U32 __u32
#define PGAS_U16 __u16
#define PGAS_U8  __u8
#else
#include <stdint.h>
#define PGAS_U64 uint64_t
#define PGAS_U32 uint32_t
#define PGAS_U16 uint16_t
#define PGAS_U8  uint8_t
#endif

#define PGAS_ABI_MAGIC		0x50474153u	/* "PGAS" */
#define PGAS_ABI_VERSION	1u

#define PGAS_CACHELINE		64
#define PGAS_PAGE_SIZE		4096

/* ---- VELO mailbox ------------------------------------------------------ */

#define PGAS_SLOT_SIZE		64
#define PGAS_SLOT_PAYLOAD	56

enum pgas_chan {
	PGAS_CHAN_REQUEST = 0,
	PGAS_CHAN_REPLY = 1,
	PGAS_NCHAN = 2,
};

/*
 * Status word of a slot (written last, see above):
 *   bits  0..15  lap      (head / nslots + 1) mod 2^16; 0 = never written
 *   bits 16..31  src      source endpoint (rank within the job)
 *   bits 32..45  len      body bytes of the whole message (all its slots)
 *   bits 46..50  nargs    AM arguments (0..16)
 *   bits 51..55  type     enum pgas_msg_type
 *   bits 56..63  handler  AM handler index
 * Continuation slots of a multi-slot message carry their own lap and
 * type PGAS_MSG_CONT; their other fields are zero.
 */
#define PGAS_STATUS_LAP(s)	((unsigned int)((s) & 0xffffu))
#define PGAS_STATUS_SRC(s)	((unsigned int)(((s) >> 16) & 0xffffu))
#define PGAS_STATUS_LEN(s)	((unsigned int)(((s) >> 32) & 0x3fffu))
#define PGAS_STATUS_NARGS(s)	((unsigned int)(((s) >> 46) & 0x1fu))
#define PGAS_STATUS_TYPE(s)	((unsigned int)(((s) >> 51) & 0x1fu))
#define PGAS_STATUS_HANDLER(s)	((unsigned int)(((s) >> 56) & 0xffu))
#define PGAS_STATUS(lap, src, len, nargs, type, handler)		\
	(((unsigned long long)((lap) & 0xffffu)) |				\
	 ((unsigned long long)((src) & 0xffffu) << 16) |				\
	 ((unsigned long long)((len) & 0x3fffu) << 32) |				\
	 ((unsigned long long)((nargs) & 0x1fu) << 46) |				\
	 ((unsigned long long)((type) & 0x1fu) << 51) |				\
	 ((unsigned long long)((handler) & 0xffu) << 56))
#define PGAS_STATUS_MAX_LEN	0x3fffu
#define PGAS_MAX_ENDPOINTS	0x10000u

enum pgas_msg_type {
	PGAS_MSG_CONT = 1,	/* continuation slot of a multi-slot message */
	PGAS_MSG_SHORT = 2,	/* body: args */
	PGAS_MSG_MEDIUM = 3,	/* body: args, payload */
	PGAS_MSG_MEDIUM_BOUNCE = 4, /* body: args, struct pgas_bounce_ref */
	PGAS_MSG_LONG = 5,	/* body: args, struct pgas_long_ref */
	PGAS_MSG_PEER_GONE = 6,	/* written by pgas.ko when a peer dies */
};

struct pgas_mbox_slot {
	PGAS_U8 payload[PGAS_SLOT_PAYLOAD];
	PGAS_U64 status;
};

/* Body trailer of PGAS_MSG_LONG: where the payload was written. */
struct pgas_long_ref {
	PGAS_U64 addr;		/* in the target's address space */
	PGAS_U64 nbytes;
};

/* Body trailer of PGAS_MSG_MEDIUM_BOUNCE. */
struct pgas_bounce_ref {
	PGAS_U32 index;		/* buffer index within the source's set */
	PGAS_U32 nbytes;
};

/* ---- RMA notification ring -------------------------------------------- */

/*
 * 16-byte notification.  'status' is written last with RELEASE and carries
 * lap (bits 0..15), src (16..31), kind (32..39); size and tag come first.
 */
enum pgas_notify_kind {
	PGAS_NOTIFY_REQUESTER = 1,	/* my source buffer is free / get landed */
	PGAS_NOTIFY_COMPLETER = 2,	/* data arrived in my memory */
	PGAS_NOTIFY_PEER_GONE = 3,	/* src died; written by pgas.ko */
};

struct pgas_notify_entry {
	PGAS_U32 size;
	PGAS_U32 tag;
	PGAS_U64 status;
};

#define PGAS_NOTIFY_LAP(s)	((unsigned int)((s) & 0xffffu))
#define PGAS_NOTIFY_SRC(s)	((unsigned int)(((s) >> 16) & 0xffffu))
#define PGAS_NOTIFY_KIND(s)	((unsigned int)(((s) >> 32) & 0xffu))
#define PGAS_NOTIFY_STATUS(lap, src, kind)				\
	(((unsigned long long)((lap) & 0xffffu)) |				\
	 ((unsigned long long)((src) & 0xffffu) << 16) |				\
	 ((unsigned long long)((kind) & 0xffu) << 32))

/* ---- control page ------------------------------------------------------ */

/* One ring's indices; tail and head live on separate cache lines. */
struct pgas_ring_ctrl {
	PGAS_U64 tail;		/* producers: fetch-add */
	PGAS_U8 pad0[PGAS_CACHELINE - 8];
	PGAS_U64 head;		/* owner: release store */
	PGAS_U8 pad1[PGAS_CACHELINE - 8];
};

/*
 * Dissemination barrier: one flag word per round and epoch parity, written
 * with ONE 64-bit release store (a reader spinning on the line must not see
 * the line move once per field).  Each round has a cache line of its own:
 * different rounds have different writers.
 *   bits  0..1   flags (PGAS_BFLAG_*)
 *   bits  2..31  epoch (mod 2^30; 0 = never written)
 *   bits 32..63  id
 */
#define PGAS_BARRIER_ROUNDS	16	/* log2(PGAS_MAX_ENDPOINTS) */
#define PGAS_BFLAG_NAMED	1u	/* 'id' is meaningful */
#define PGAS_BFLAG_MISMATCH	2u	/* a mismatch was seen upstream */
#define PGAS_BARRIER_WORD(epoch, flags, id)				\
	(((unsigned long long)(id) << 32) |				\
	 (((unsigned long long)(epoch) & 0x3fffffffu) << 2) |		\
	 ((unsigned long long)(flags) & 3u))
#define PGAS_BARRIER_EPOCH(w)	((unsigned int)(((w) >> 2) & 0x3fffffffu))
#define PGAS_BARRIER_FLAGS(w)	((unsigned int)((w) & 3u))
#define PGAS_BARRIER_ID(w)	((unsigned int)((w) >> 32))

struct pgas_barrier_round {
	PGAS_U64 flag[2];	/* by epoch parity */
	PGAS_U8 pad[PGAS_CACHELINE - 16];
};

struct pgas_ctrl_page {
	PGAS_U32 magic;		/* PGAS_ABI_MAGIC */
	PGAS_U32 version;	/* PGAS_ABI_VERSION */
	PGAS_U32 rank;		/* owner's endpoint number in the job */
	PGAS_U32 mbox_slots;	/* slots per mailbox ring (power of two) */
	PGAS_U32 notify_entries;	/* entries of the notification ring */
	PGAS_U32 bounce_bufs;	/* bounce buffers per source and channel */
	PGAS_U32 bounce_size;	/* bytes of one bounce buffer's data */
	PGAS_U32 pad0;
	PGAS_U8 pad1[PGAS_CACHELINE - 32];

	struct pgas_ring_ctrl mbox[PGAS_NCHAN];
	struct pgas_ring_ctrl notify;

	/* Wake-up: producers bump doorbell; owner sets sleeping before a wait. */
	PGAS_U32 doorbell;
	PGAS_U32 sleeping;
	PGAS_U8 pad2[PGAS_CACHELINE - 8];

	struct pgas_barrier_round barrier[PGAS_BARRIER_ROUNDS];
};

/* Header of one bounce buffer; its data follows at the next cache line. */
struct pgas_bounce_hdr {
	PGAS_U32 busy;		/* 1 while owned by the source */
	PGAS_U8 pad[PGAS_CACHELINE - 4];
};

#undef PGAS_U64
#undef PGAS_U32
#undef PGAS_U16
#undef PGAS_U8

#endif /* _UAPI_PGAS_ABI_H */
