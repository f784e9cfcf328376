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
 *                  doorbell; one page (the running kernel's page size).
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
 *  published anything bumps ctrl->doorbell (seq_cst) and, if ctrl->sleeping
 *  (seq_cst) is set, wakes the owner.  The owner reads the bell, checks its
 *  condition, sets sleeping (seq_cst), and sleeps only if the bell has not
 *  moved; it clears sleeping when it wakes.
 *   shm:     FUTEX_WAIT / FUTEX_WAKE on the doorbell word.
 *   pgas.ko: a futex cannot live in a PFN mapping.  The owner poll()s its
 *            endpoint's fd for POLLIN, which is reported while sleeping is
 *            0; a producer calls PGAS_IOC_WAKE(the endpoint's eid: the
 *            owner's rank, or an extra's eid) on its own endpoint's fd,
 *            which clears that endpoint's sleeping and wakes its pollers.
 *            pgas.ko does the same to every live endpoint when a peer
 *            departs.  A producer that finds sleeping clear makes no
 *            system call.
 *   ofi, block mode with a wait fd: the owner of a primary sets sleeping
 *            to PGAS_SLEEPING_CONDUIT and poll()s the completion queue's
 *            fd and its eventfd; a producer that finds that value writes
 *            the owner's eventfd (same-host ranks hold each other's).
 */
#ifndef _UAPI_PGAS_ABI_H
#define _UAPI_PGAS_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PGAS_ABI_MAGIC		0x50474153u	/* "PGAS" */
#define PGAS_SLEEPING_CONDUIT	2u	/* ctrl->sleeping: asleep on the conduit's fds */
/* 2: pgas.ko's own fields in the kernel page; 3: the page size at run time */
#define PGAS_ABI_VERSION	3u

#define PGAS_CACHELINE		64
/*
 * No page size is fixed: ring objects are aligned to the running kernel's
 * (4, 16 or 64 KiB), which RINGS_CREATE reports (user space also has
 * sysconf(_SC_PAGESIZE)).  The control and kernel page structs fit the
 * smallest.
 */
#define PGAS_MIN_PAGE_SIZE	4096

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
};

struct pgas_mbox_slot {
	__u8 payload[PGAS_SLOT_PAYLOAD];
	__u64 status;
};

/* Body trailer of PGAS_MSG_LONG: where the payload was written. */
struct pgas_long_ref {
	__u64 addr;		/* in the target's address space */
	__u64 nbytes;
};

/* Body trailer of PGAS_MSG_MEDIUM_BOUNCE. */
struct pgas_bounce_ref {
	__u32 index;		/* buffer index within the source's set */
	__u32 nbytes;
};

/* ---- RMA notification ring -------------------------------------------- */

/*
 * 16-byte notification.  'status' is written last with RELEASE and carries
 * lap (bits 0..15), src (16..31), kind (32..39); size and tag come first.
 */
enum pgas_notify_kind {
	PGAS_NOTIFY_REQUESTER = 1,	/* my source buffer is free / get landed */
	PGAS_NOTIFY_COMPLETER = 2,	/* data arrived in my memory */
	PGAS_NOTIFY_PEER_GONE = 3,	/* src left (size 0) or died (size 1): see below */
};

struct pgas_notify_entry {
	__u32 size;
	__u32 tag;
	__u64 status;
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
	__u64 tail;		/* producers: fetch-add */
	__u8 pad0[PGAS_CACHELINE - 8];
	__u64 head;		/* owner: release store */
	__u8 pad1[PGAS_CACHELINE - 8];
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
	__u64 flag[2];	/* by epoch parity */
	__u8 pad[PGAS_CACHELINE - 16];
};

struct pgas_ctrl_page {
	__u32 magic;		/* PGAS_ABI_MAGIC */
	__u32 version;	/* PGAS_ABI_VERSION */
	__u32 rank;		/* the region's endpoint number in the job: its eid */
	__u32 mbox_slots;	/* slots per mailbox ring (power of two) */
	__u32 notify_entries;	/* entries of the notification ring */
	__u32 bounce_bufs;	/* bounce buffers per source and channel */
	__u32 bounce_size;	/* bytes of one bounce buffer's data */
	__u32 pad0;
	__u8 pad1[PGAS_CACHELINE - 32];

	struct pgas_ring_ctrl mbox[PGAS_NCHAN];
	struct pgas_ring_ctrl notify;

	/* Wake-up: producers bump doorbell; owner sets sleeping before a wait. */
	__u32 doorbell;
	__u32 sleeping;
	__u32 reserved0;	/* ABI 1: peers_gone, now in struct pgas_kern_page */
	__u8 pad2[PGAS_CACHELINE - 12];

	struct pgas_barrier_round barrier[PGAS_BARRIER_ROUNDS];
};

/*
 * pgas.ko: an endpoint's kernel page.  Every endpoint of the job maps a
 * ring region read-write (peers produce into it), so nothing there can be
 * trusted to come from pgas.ko; what pgas.ko writes lives on this page,
 * which every endpoint of the job, its owner included, can map, but never
 * writable (at PGAS_IOC_RINGS_CREATE's kern_cookie; a writable mmap fails
 * with EACCES).  The identity and geometry fields are also in the ring region's
 * control page for the shm conduit; there, peers can overwrite them.
 *
 * Peers that left the job: for each, pgas.ko bumps peers_gone if it died
 * (killed by a signal or exited non-zero) or peers_left if it left
 * cleanly (closed its endpoint, exited 0) before it revokes the leaver's
 * memory, and after that writes an event gone[gone_tail % PGAS_GONE_EVENTS]
 * and publishes gone_tail + 1 with a RELEASE store.  So a copy from a
 * peer's mapping that read the throwaway page of a revoked one is followed
 * by a load of the counts that sees the bump; while peers_gone + peers_left
 * exceeds gone_tail, a departure is under way and its event will follow.
 * The owner reads events with ACQUIRE on gone_tail and a head of its own;
 * one more than PGAS_GONE_EVENTS behind has lost the oldest (the counters
 * stay exact).
 *
 * peers_gone and peers_left count ranks (primary endpoints) only.  The
 * departure of an extra endpoint (PGAS_JOIN_EXTRA) is an event with died
 * = PGAS_GONE_CLOSED and vpid = its eid, written after its rings were
 * revoked, on the kernel page of every live rank (its owner's included),
 * with neither rank count touched: a one-word check of peers_gone and
 * peers_left does not fire for it.  eps_closed counts those events: it is
 * bumped before the event is written and gone_tail published (RELEASE),
 * so a reader that ACQUIREs gone_tail finds every closed event it covers
 * counted.  So gone_tail <= peers_gone + peers_left + eps_closed, and
 * while it is less a rank's departure is under way.  (eps_closed was
 * padding, 0, before extras existed.)
 * pgas.ko writes no
 * PGAS_NOTIFY_PEER_GONE into notification rings: an entry of that kind
 * there was forged by a peer.
 */
#define PGAS_GONE_EVENTS	480

/*
 * peers_gone of a kernel page whose endpoint pgas.ko takes away from a
 * living owner (its NIC is deleted): written before any endpoint of the
 * job departs (no count changes it after), and kept by the copy of the
 * last page that the revoked mapping then shows, so the owner stops
 * waiting for peers it can no longer reach and can say why.
 */
#define PGAS_KERN_REVOKED	0xffffffffu

struct pgas_gone_event {
	__u32 vpid;		/* the endpoint that left: a rank, or an extra's eid */
	__u32 died;		/* 1: died, 0: left cleanly, PGAS_GONE_CLOSED */
};

/*
 * died of an extra endpoint's event (PGAS_IOC_JOB_JOIN, PGAS_JOIN_EXTRA):
 * vpid is its eid (>= nranks), and it is gone however it went (its file
 * closed, its rank's endpoint departed, or its owner's process ended: in
 * the last two the rank has an event of its own, after this one unless
 * the extra was already going).  It bumps eps_closed, never peers_gone or
 * peers_left.
 */
#define PGAS_GONE_CLOSED	2u

struct pgas_kern_page {
	__u32 magic;		/* PGAS_ABI_MAGIC */
	__u32 version;	/* PGAS_ABI_VERSION */
	__u32 rank;		/* owner's endpoint number in the job */
	__u32 nranks;	/* endpoints of the job */
	__u32 mbox_slots;	/* the ring region's geometry */
	__u32 notify_entries;
	__u32 bounce_bufs;
	__u32 bounce_size;
	__u32 peers_gone;	/* peers that died; bumped before the event */
	__u32 peers_left;	/* peers that left cleanly; bumped before the event */
	__u32 eps_closed;	/* extra endpoints gone: events with PGAS_GONE_CLOSED */
	__u8 pad0[PGAS_CACHELINE - 44];
	__u64 gone_tail;	/* events written (RELEASE) */
	__u8 pad1[PGAS_CACHELINE - 8];
	struct pgas_gone_event gone[PGAS_GONE_EVENTS];
};

/* Header of one bounce buffer; its data follows at the next cache line. */
struct pgas_bounce_hdr {
	__u32 busy;		/* 1 while owned by the source */
	__u8 pad[PGAS_CACHELINE - 4];
};

/* ---- one endpoint's ring region ------------------------------------------- */

/*
 * A ring region is: control page, request ring, reply ring, notification
 * ring, bounce area (nranks sources x PGAS_NCHAN x bounce_bufs buffers of
 * PGAS_CACHELINE + bounce_size bytes), each object aligned to the page size
 * of the running kernel.  pgas.ko (kmod/pgas.h) and user space
 * (libpgas/pgas_layout.h) compute it the same way; RINGS_CREATE reports
 * the size and the page size it used.
 */
struct pgas_region_layout {
	__u64 ctrl_off;
	__u64 mbox_off[PGAS_NCHAN];
	__u64 notify_off;
	__u64 bounce_off;
	__u64 size;		/* whole region, page aligned */
};

/* ---- pgas.ko: ioctls on /dev/pgasN ---------------------------------------- */

/*
 * Every ioctl struct starts with its own size: the kernel accepts any size
 * from the first version's up to its own, zero-extends shorter ones and
 * rejects longer ones whose extra bytes are not zero (-E2BIG).  All fields
 * are naturally aligned and the structs have no implicit padding.
 *
 * Sequence (libpgas's kmod conduit):
 *   launcher: open, JOB_CREATE(nranks) -> job_id, key; keeps the file open
 *   rank r:   open, JOB_JOIN(job_id, key, vpid r), RINGS_CREATE(geometry)
 *             -> ring cookie; REG(segment) -> segment cookie; exchange
 *             cookies out of band; mmap(peer's cookie) for every peer.
 * Only endpoints of the same job may map each other's objects; joining a
 * job needs its key and the creator's uid (or CAP_SYS_ADMIN).
 *
 * Extra endpoints (one per thread, say): a job created with max_eps >
 * nranks has room for max_eps - nranks of them.  The process that owns
 * rank r opens a fresh file and calls JOB_JOIN(job_id, key, vpid r,
 * PGAS_JOIN_EXTRA) -> eid; the file is then one more endpoint of that
 * process, numbered eid, with every per-file ioctl of a rank's
 * (RINGS_CREATE, WAKE, EP_INFO, poll(), mmap) but REG and DEREG: the
 * rank's registrations serve all its endpoints.  Endpoint numbers (eids)
 * are job-wide: a rank's own (primary) endpoint is eid r; extras are
 * issued in order from nranks and never reused.  A peer learns of an
 * extra by its eid (out of band, or a status word's src) and maps its ring
 * region by the cookie PGAS_IOC_EP_INFO returns.  Extras change no ring
 * layout and no status word: the ABI is still PGAS_ABI_VERSION 3, and
 * every struct that grew for them grew by size, as before.
 */
#define PGAS_IOC_MAGIC		0xE7

struct pgas_ioc_job_create {
	__u32 size;		/* sizeof(struct pgas_ioc_job_create) */
	__u32 flags;		/* 0 */
	__u32 nranks;	/* in: ranks of the job, 1..PGAS_MAX_ENDPOINTS */
	__u32 job_id;	/* out */
	__u64 key;		/* out: the secret peers join with */
	/*
	 * Size 32: endpoints the job may ever have, ranks and extras, i.e.
	 * eids 0..max_eps-1.  0 means nranks (no extras; what a 24-byte
	 * caller gets); else nranks..PGAS_MAX_ENDPOINTS.
	 */
	__u32 max_eps;	/* in */
	__u32 pad;		/* 0 */
};

#define PGAS_IOC_JOB_CREATE_SIZE_VER0	24	/* without max_eps */

/*
 * PGAS_IOC_JOB_CREATE errors:
 *   EINVAL  flags or pad, nranks 0 or over PGAS_MAX_ENDPOINTS, max_eps
 *           neither 0 nor in nranks..PGAS_MAX_ENDPOINTS
 *   EBUSY   the file has a role (a job or an endpoint) already
 *   ENODEV  the NIC was deleted
 */

#define PGAS_JOIN_EXTRA		1u	/* one more endpoint of rank vpid's process */

struct pgas_ioc_job_join {
	__u32 size;
	__u32 flags;		/* 0 or PGAS_JOIN_EXTRA */
	__u32 job_id;
	__u32 vpid;		/* in: the rank asked for (or whose extra), 0..nranks-1 */
	__u64 key;
	__u32 nranks;	/* out */
	__u32 pad;		/* 0 */
	/* Size 40: */
	__u32 eid;		/* out: the endpoint's number (== vpid for a rank) */
	__u32 pad1;		/* 0 */
};

#define PGAS_IOC_JOB_JOIN_SIZE_VER0	32	/* without eid */
#define PGAS_IOC_JOB_JOIN_SIZE_VER1	40	/* with eid: PGAS_JOIN_EXTRA needs it */

/*
 * PGAS_IOC_JOB_JOIN: without flags the file becomes rank vpid; with
 * PGAS_JOIN_EXTRA it becomes a new endpoint of the process that owns rank
 * vpid, which must be the caller's (the same mm: any of its threads), with
 * the job's next eid.  Errors, in the order they are checked:
 *   EINVAL  unknown flags, pad or pad1, or PGAS_JOIN_EXTRA in a struct
 *           shorter than PGAS_IOC_JOB_JOIN_SIZE_VER1 (40)
 *   EBUSY   the file has a role already
 *   ENOENT  no such job
 *   EACCES  the key is wrong
 *   EPERM   the caller's euid is not the job creator's (and it has no
 *           CAP_SYS_ADMIN)
 *   EINVAL  vpid >= nranks
 *   EBUSY   without flags: rank vpid is taken
 *   ENODEV  the NIC was deleted
 *   EPERM   PGAS_JOIN_EXTRA: rank vpid has no live endpoint (none
 *           joined, or it is departing), or the caller is not of its
 *           process
 *   ENOSPC  PGAS_JOIN_EXTRA: the job has issued its max_eps eids
 *   EMFILE  PGAS_JOIN_EXTRA: the caller's process has max_eps_per_mm live
 *           extras, over all jobs (a module parameter, default 256)
 * Nobody is told of a new extra: peers ask PGAS_IOC_EP_INFO about the
 * eids they are given.  An extra lives no longer than its rank's
 * endpoint: when that departs (its file released, its process gone), its
 * extras depart first, and their files then answer ENODEV.
 */

struct pgas_ioc_rings {
	__u32 size;
	__u32 flags;		/* 0 */
	__u32 mbox_slots;	/* power of two, 16..32768 */
	__u32 notify_entries;	/* power of two, 16..2^20 */
	__u32 bounce_bufs;	/* 1..64 */
	__u32 bounce_size;	/* multiple of 64, 64..2^20 */
	__u64 region_size;	/* out: bytes to map */
	__u64 cookie;	/* out: mmap offset of the region */
	/* ABI 2 (size 48): */
	__u64 kern_cookie;	/* out: of the kernel page (read-only) */
	/* ABI 3 (size 56): */
	__u32 page_size;	/* out: the page size of the layout */
	__u32 pad;		/* 0 */
	/*
	 * Size 104: the region as pgas.ko laid it out (as io_uring reports its
	 * rings' offsets): user space maps by these, not by a layout of its
	 * own.  Every endpoint of the job with this geometry has the same.
	 */
	struct pgas_region_layout layout;	/* out */
};

#define PGAS_IOC_RINGS_SIZE_VER0	40	/* without kern_cookie */

/*
 * PGAS_IOC_RINGS_CREATE works the same on a rank's endpoint and on an
 * extra, whose region has the same layout but no kernel page (kern_cookie
 * 0: what pgas.ko says of departures is on its rank's page).  Errors:
 *   EBADFD  the file has not joined a job
 *   EINVAL  flags, or a field outside its range above
 *   E2BIG   the region (pgas_region_layout() for the job's nranks) is
 *           over 64 MiB, or nranks regions are over 4 GiB (a job's rings
 *           grow with nranks^2: libpgas's default geometry fits 180
 *           ranks), or the job's regions, extras' included, would be
 *           over 4 GiB with this one (each counts from its creation until
 *           it is freed, after its endpoint's departure and its last
 *           mapping)
 *   EEXIST  this endpoint has its rings already
 *   ENOMEM  over RLIMIT_MEMLOCK (without CAP_IPC_LOCK the region counts
 *           against it with the user's pins, see PGAS_IOC_REG), or the
 *           memory (charged to the caller's memory cgroup) is not there
 */

#define PGAS_REG_WRITE		1u	/* peers may write (segments) */

/*
 * PGAS_IOC_REG pins [addr, addr + len) for the job's endpoints to map.
 * Errors, in the order they are checked (nothing is allocated or pinned
 * before the limits have passed):
 *   EINVAL  unknown flags, len 0, addr or len not page aligned,
 *           len > 2^40, or addr + len wraps
 *   EFAULT  the range is not in user space
 *   ENOMEM  more pages than the machine has, or over RLIMIT_MEMLOCK:
 *           without CAP_IPC_LOCK, everything the calling user has pinned
 *           or holds as rings through pgas.ko (user_struct->locked_vm,
 *           shared with io_uring) counts against the caller's limit until
 *           it is unpinned or freed, whichever process holds the file then
 *   ENOSPC  the endpoint has 65536 registrations already
 *   EFAULT  part of the range is not mapped (or not writable for
 *           PGAS_REG_WRITE)
 *   EOPNOTSUPP  part of the range is backed by a file other than shmem
 *           (memfd, tmpfs, shared anonymous) or hugetlbfs: page-cache
 *           pages of such files have writeback and must not be pinned
 *           long-term, writable or not.  Private mappings of a file are
 *           accepted only where their pages are anonymous copies (written
 *           before, or by PGAS_REG_WRITE, which writes them).  A shared
 *           file mapping is refused before anything is pinned.
 * A failed REG leaves nothing pinned, charged or counted.
 * PGAS_IOC_DEREG: EINVAL for handle 0 or flags, ENOENT for a handle that
 * is not (or no longer) one of this endpoint's registrations.
 * Both are EOPNOTSUPP on an extra endpoint: a process registers through
 * its rank's endpoint, once for all its endpoints.
 */

struct pgas_ioc_reg {
	__u32 size;
	__u32 flags;		/* PGAS_REG_* */
	__u64 addr;		/* page aligned */
	__u64 len;		/* page multiple, > 0 */
	__u64 handle;	/* out: for PGAS_IOC_DEREG */
	__u64 cookie;	/* out: mmap offset for the job's endpoints */
};

struct pgas_ioc_dereg {
	__u32 size;
	__u32 flags;		/* 0 */
	__u64 handle;
};

/*
 * Wakes endpoint vpid of the caller's job (see "Doorbell" above): a rank
 * or an extra, by its eid.  Errors: EINVAL for flags, pad, or vpid >=
 * max_eps; ENOENT for an endpoint that is not live (not issued or joined
 * yet, or gone) or has no rings.
 */
struct pgas_ioc_wake {
	__u32 size;
	__u32 flags;		/* 0 */
	__u32 vpid;		/* an eid: 0..max_eps-1 */
	__u32 pad;		/* 0 */
};

/* pgas_ioc_ep_info.state */
#define PGAS_EP_STATE_NONE	0u	/* a rank that has not joined */
#define PGAS_EP_STATE_LIVE	1u
#define PGAS_EP_STATE_CLOSED	2u	/* departed (a rank may join again) */

/*
 * PGAS_IOC_EP_INFO: what the job's table says of endpoint eid.  Any
 * endpoint of the job (rank or extra) may ask, as a peer does before it
 * maps an extra it was told of.  owner is the rank whose process the
 * endpoint belongs to (== eid for a rank; for a closed extra, the rank it
 * belonged to).  A live endpoint with rings reports them as RINGS_CREATE
 * did (cookie, region_size, layout); otherwise they are 0.
 * Ordering: an endpoint's rings are published in the job's table (under
 * its lock) after the region is complete, and EP_INFO reads them there: a
 * cookie it returns maps the whole region.  The answer is a snapshot: the
 * endpoint may depart right after, and then the mapping is revoked (it
 * maps a throwaway page) and its event follows on the ranks' kernel pages.
 * Errors: EBADFD  the file has not joined;  EACCES  the file is another
 * process's endpoint;  EINVAL  flags or pad;  ENOENT  an eid not issued
 * (>= max_eps, or an extra's eid not handed out yet);  ENODEV  the
 * caller's own endpoint has departed.
 */
struct pgas_ioc_ep_info {
	__u32 size;
	__u32 flags;		/* 0 */
	__u32 eid;		/* in */
	__u32 owner;	/* out: the rank of its process */
	__u32 state;	/* out: PGAS_EP_STATE_* */
	__u32 pad;		/* 0 */
	__u64 region_size;	/* out: 0 without rings */
	__u64 cookie;	/* out: mmap offset of its ring region; 0 without */
	struct pgas_region_layout layout;	/* out */
};

/* Commands keep the first version's size (the struct's size field says which). */
#define PGAS_IOC_JOB_CREATE	_IOC(_IOC_READ | _IOC_WRITE, PGAS_IOC_MAGIC, 1,	\
				     PGAS_IOC_JOB_CREATE_SIZE_VER0)
#define PGAS_IOC_JOB_JOIN	_IOC(_IOC_READ | _IOC_WRITE, PGAS_IOC_MAGIC, 2,	\
				     PGAS_IOC_JOB_JOIN_SIZE_VER0)
#define PGAS_IOC_RINGS_CREATE	_IOC(_IOC_READ | _IOC_WRITE, PGAS_IOC_MAGIC, 3,	\
				     PGAS_IOC_RINGS_SIZE_VER0)
#define PGAS_IOC_REG		_IOWR(PGAS_IOC_MAGIC, 4, struct pgas_ioc_reg)
#define PGAS_IOC_DEREG		_IOW(PGAS_IOC_MAGIC, 5, struct pgas_ioc_dereg)
#define PGAS_IOC_WAKE		_IOW(PGAS_IOC_MAGIC, 6, struct pgas_ioc_wake)
#define PGAS_IOC_EP_INFO	_IOWR(PGAS_IOC_MAGIC, 7, struct pgas_ioc_ep_info)

/*
 * mmap: the offset is a cookie returned above (a multiple of the page
 * size, unique per device for its lifetime); the length at most the
 * object's size.  Ring regions and segments are mapped shared, read-write;
 * kernel pages shared, read-only.
 */

/* ---- pgas.ko: generic netlink control plane ------------------------------- */

/*
 * Family PGAS_GENL_NAME, version PGAS_GENL_VERSION.  NIC_NEW and NIC_DEL
 * need CAP_NET_ADMIN; the GETs are dumps (one message per object).  The
 * multicast group PGAS_GENL_MCGRP_EVENTS carries EP_DEAD (an endpoint's
 * file was released: its process exited or was killed) and JOB_DEAD.
 * Endpoints are ranks and extras (PGAS_JOIN_EXTRA): VPID and EID are the
 * endpoint's number (its rank for a rank, its eid for an extra), OWNER the
 * rank of its process (== VPID for a rank).  Attributes are only added.
 */
#define PGAS_GENL_NAME		"pgas"
#define PGAS_GENL_VERSION	1
#define PGAS_GENL_MCGRP_EVENTS	"events"

enum pgas_genl_cmd {
	PGAS_CMD_UNSPEC,
	PGAS_CMD_NIC_NEW,	/* -> NIC_ID */
	PGAS_CMD_NIC_DEL,	/* NIC_ID */
	PGAS_CMD_NIC_GET,	/* dump: NIC_ID, NIC_NAME, counters */
	/*
	 * dump: NIC_ID, JOB_ID, NRANKS, UID, ENDPOINTS; its counters: REGS and
	 * PINNED_PAGES (its live endpoints'), RING_BYTES, MMAPS, PEER_GONE
	 */
	PGAS_CMD_JOB_GET,
	/* dump: NIC_ID, JOB_ID, VPID, REGS, PINNED_PAGES, RING_BYTES, EID, OWNER */
	PGAS_CMD_EP_GET,
	PGAS_CMD_EP_DEAD,	/* event: NIC_ID, JOB_ID, VPID, EID, OWNER */
	PGAS_CMD_JOB_DEAD,	/* event: NIC_ID, JOB_ID */
	__PGAS_CMD_MAX,
};

#define PGAS_CMD_MAX (__PGAS_CMD_MAX - 1)

enum pgas_genl_attr {
	PGAS_ATTR_UNSPEC,
	PGAS_ATTR_PAD,
	PGAS_ATTR_NIC_ID,	/* u32 */
	PGAS_ATTR_NIC_NAME,	/* string */
	PGAS_ATTR_JOB_ID,	/* u32 */
	PGAS_ATTR_NRANKS,	/* u32 */
	PGAS_ATTR_UID,		/* u32 */
	PGAS_ATTR_VPID,		/* u32 */
	PGAS_ATTR_ENDPOINTS,	/* u32 */
	PGAS_ATTR_JOBS,		/* u32 */
	PGAS_ATTR_REGS,		/* u32 */
	PGAS_ATTR_PINNED_PAGES,	/* u64 */
	PGAS_ATTR_RING_BYTES,	/* u64 */
	PGAS_ATTR_MMAPS,	/* u64 */
	PGAS_ATTR_PEER_GONE,	/* u64 */
	PGAS_ATTR_EID,		/* u32: the endpoint's number in the job */
	PGAS_ATTR_OWNER,	/* u32: the rank whose process owns it */
	__PGAS_ATTR_MAX,
};

#define PGAS_ATTR_MAX (__PGAS_ATTR_MAX - 1)

#endif /* _UAPI_PGAS_ABI_H */
