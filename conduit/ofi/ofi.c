// SPDX-License-Identifier: MIT
/*
 * ofi.c - the libfabric conduit: RDM endpoints, AM through local proxy rings
 * (docs/ofi.md, docs/design-threads-endpoints.md 5.5).
 *
 * This rank's own rings, its segment and every peer this process may map
 * are the shm conduit's (pgas_shm_ops does that part; c->priv is shm's).
 * A rank reached over the fabric ("remote": every other rank with
 * PGAS_MAP_PEERS=none or PGAS_OFI_AM=fabric) gets, in c->eps[] and in the
 * endpoints ep_resolve gives, a PROXY ring region: private memory with the
 * layout of pgas_abi.h, so that the core's inline AM Short and its Medium
 * and reply paths write into it as into any peer's rings.  progress is the
 * proxies' consumer: it ships every published message (and the bounce
 * buffer of a Medium) with fi_inject or fi_send, then gives the slots and
 * the buffer back (the proxy's head: the senders' credits).  On the other
 * side, progress takes what arrives and writes it into the target
 * endpoint's own ring as one more producer (a reservation that succeeds
 * only when the ring has room, as PGAS_AM_IMMEDIATE does), so that the
 * core's handle_one runs it unchanged.  A message whose ring (or bounce
 * buffers) is full waits in a bounded backlog that progress drains; past
 * BACKLOG_COPIES the receive buffers themselves are held, so that the
 * provider's own flow control pushes back on the senders.  Nothing waits
 * or runs a handler in progress.
 *
 * The barrier stores its flags into the partner's control page; for a
 * remote partner that is the proxy's, whose flag words progress forwards
 * (after the AM before them) into the partner's own control page.
 *
 * Setup: fi_getinfo with FI_MSG | FI_RMA (| FI_ATOMIC where the provider
 * has it) on FI_EP_RDM (FI_PROVIDER chooses, as libfabric reads it), the
 * MR modes the provider asks for (FI_MR_LOCAL buffers registered, virtual
 * addresses or offsets, provider keys, endpoint binding); the fabric
 * addresses travel through boot's all-gather, as shm's hello does.  The
 * segment is registered once at attach and every rank's (base, key) is
 * kept for the RMA of a later change.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <sys/uio.h>
#include "../conduit.h"
#include "wire.h"
#include "pgas.h"
#include "bootstrap.h"
#include "boot.h"

extern const struct pgas_conduit_ops pgas_shm_ops;
extern bool pgas_shm_host_only;	/* shm.c: map this host's ranks only */

/*
 * libfabric is loaded when the conduit opens (dlopen), not linked: a
 * program that never uses it does not load it, nor its providers'
 * libraries, whose constructors and destructors would run in every
 * program (system calls at exit: selftests/libpgas/nosyscall.c).  The
 * library's few functions that are not inline calls through its objects'
 * operations come through these pointers.
 */
static struct {
	void *lib;
	int (*getinfo)(uint32_t, const char *, const char *, uint64_t,
		       const struct fi_info *, struct fi_info **);
	void (*freeinfo)(struct fi_info *);
	struct fi_info *(*dupinfo)(const struct fi_info *);
	int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
	const char *(*strerror)(int);
} lf;
#define fi_getinfo lf.getinfo
#define fi_freeinfo lf.freeinfo
#define fi_fabric lf.fabric
#define fi_strerror(e) (lf.strerror ? lf.strerror(e) : "libfabric not loaded")

static int lf_load(char *msg, size_t msglen)
{
	static const char name[] = "libfabric.so.1";

	if (lf.lib)
		return PGAS_OK;
	/* libfabric's psm provider loads libinfinipath, whose constructor
	 * catches SIGSEGV and SIGABRT to write a backtrace file and exit 1:
	 * pgasrun must see a rank that dies die of its signal. */
	setenv("IPATH_NO_BACKTRACE", "1", 0);
	lf.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lf.lib) {
		snprintf(msg, msglen, "cannot load %s: %s", name, dlerror());
		return PGAS_ERR_SYS;
	}
	*(void **)&lf.getinfo = dlsym(lf.lib, "fi_getinfo");
	*(void **)&lf.freeinfo = dlsym(lf.lib, "fi_freeinfo");
	*(void **)&lf.dupinfo = dlsym(lf.lib, "fi_dupinfo");
	*(void **)&lf.fabric = dlsym(lf.lib, "fi_fabric");
	*(void **)&lf.strerror = dlsym(lf.lib, "fi_strerror");
	if (!lf.getinfo || !lf.freeinfo || !lf.dupinfo || !lf.fabric || !lf.strerror) {
		snprintf(msg, msglen, "%s lacks fi_getinfo, fi_freeinfo, fi_dupinfo, fi_fabric or "
			 "fi_strerror", name);
		lf.strerror = NULL;
		return PGAS_ERR_SYS;	/* kept open: it may have started threads */
	}
	return PGAS_OK;
}

#define OFI_VERSION FI_VERSION(1, 9)
#define NRX 64			/* receive buffers posted */
#define NTX 64			/* send buffers for what fi_inject cannot take */
#define BACKLOG_COPIES 4096	/* arrivals copied aside before buffers are held */
#define MAX_ADDR 200		/* bytes of a fabric address we exchange */

/* First in every operation's context: FI_CONTEXT providers write ctx. */
enum { CTX_BUF, CTX_RMA };
struct ctx_head {
	struct fi_context ctx;
	unsigned char kind;	/* CTX_* */
};

struct buf {
	struct ctx_head h;	/* CTX_BUF */
	unsigned char *data;
	bool tx;
	bool posted;		/* rx: posted (else reposted by the next progress) */
	bool held;		/* rx: its message waits in the backlog */
	unsigned rank;		/* tx: whom it was sent to (a failed completion names it) */
	struct buf *next;	/* tx free list */
};

struct backlog {
	struct backlog *next;
	struct buf *held;	/* a receive buffer kept (repost once delivered), or NULL */
	size_t len;
	unsigned char *data;	/* the message (held->data, or a copy after the struct) */
};

/* One proxy: the ring region a remote eid's entry points at. */
struct proxy {
	unsigned eid, owner;
	unsigned char *base;	/* layout.size bytes of private memory */
	struct pgas_conduit_ep ring;
	uint64_t head[PGAS_NCHAN];	/* consumed so far (published to ctrl) */
	uint64_t notify_head;		/* the same, of its notification ring */
	uint64_t bar_sent[PGAS_BARRIER_ROUNDS][2];
};

/*
 * One fabric RMA operation in flight (ops->rma).  A put of up to
 * RMA_INLINE bytes is written from inl (its source may be the caller's
 * stack: the core's by-value puts); under FI_MR_LOCAL a local buffer
 * outside the registered segment and region goes through inl or a bounce
 * buffer, copied back on a get's completion.
 */
#define NRMA 1024		/* operations in flight (writes held until flushed) */
#define RMA_INLINE 64
#define NBOUNCE 16		/* registered bounce buffers (FI_MR_LOCAL) */
#define BOUNCE_SIZE (64u << 10)
struct fep;
struct rma_ctx {
	struct ctx_head h;	/* CTX_RMA */
	struct rma_ctx *next;	/* free list */
	struct fep *fep;	/* posted on that fabric endpoint; NULL: the shared one */
	void *core;		/* c->rma_done's ctx */
	unsigned char *copy;	/* a get's landing place to copy out of, or NULL */
	unsigned char *bounce;	/* the bounce buffer it holds, or NULL */
	void *local;
	size_t n;
	unsigned rank;
	bool get;
	unsigned char amo;	/* an atomic (ops->amo): its value's size, else 0 */
	bool flush;		/* a rank's flush read (struct wrank) */
	bool dc;		/* a write with FI_DELIVERY_COMPLETE where flushed */
	uint64_t seq;		/* a flushed write: its number to its rank; a flush: the last it covers */
	unsigned char inl[RMA_INLINE];	/* an atomic: operand, compare, result */
};

/*
 * Flushed writes (ofi.flushed): a write goes without FI_DELIVERY_COMPLETE
 * (its completion says the data left), and a read of 8 bytes from the
 * rank, ordered behind the writes (FI_ORDER_RAW), says that they are at
 * the target: a write is done (c->rma_done) once its own completion and a
 * later flush's have come.  One flush in flight per rank; one that
 * completes posts the next if writes were posted meanwhile.
 */
struct wrank {
	uint64_t posted;	/* writes posted to the rank */
	uint64_t covered;	/* writes a flush posted so far is behind */
	uint64_t delivered;	/* writes a completed flush is behind */
	struct rma_ctx *sent;	/* writes whose own completion came, not delivered */
	int failed;		/* a flush failed: later writes end with it */
	unsigned dc;		/* delivery-complete writes in flight (a burst's first) */
	bool flushing;		/* its flush read is in flight */
};

/*
 * A pgas endpoint's own fabric endpoint (ops->fep_open; docs/ofi.md,
 * "Fabric endpoints"): an initiator-only fid_ep on the conduit's domain
 * and AV, bound to a CQ of its own, so that the RMA of the threads that
 * drive different endpoints neither waits for the conduit's lock nor
 * completes on another endpoint's queue.  Nobody addresses it: RMA goes
 * to the targets' primary endpoints and their registered memory.
 */
#define NRMA_FEP 128		/* its operations in flight */
struct rma_stats {
	unsigned long writes, reads, eagain, done;
	unsigned long long bytes;
};
struct fep {
	struct fid_ep *ep;
	struct fid_cq *cq;
	/* Only where threads share the endpoint (PGAS_THREAD_MULTIPLE):
	 * posting takes it, progress tries it. */
	pthread_mutex_t lock;
	bool shared;
	struct rma_ctx *ctx, *free;	/* NRMA_FEP contexts */
	struct rma_stats st;
	/* Its connection to a target does not come up (the target's or our
	 * own descriptor limit): since when its posts find the queue full
	 * with nothing in flight (ms, 0: not), and whether it gave up and
	 * posts on the shared endpoint instead (atomic). */
	long long stuck_since;
	bool given_up;
	struct fep *next;	/* ofi.feps: open ones (closed at exit) */
};

/* A rank's registered memory as the fabric addresses it. */
struct rkey {
	uint64_t addr, size;	/* in the owner's address space; size 0: none */
	uint64_t base, key;	/* what fi_write takes: base + (remote - addr), key */
};

static struct {
	struct pgas_conduit *c;
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *buf_mr, *seg_mr;
	void *buf_desc;
	fi_addr_t *addr;	/* [nranks] */
	bool *remote;		/* [nranks]: reached over the fabric */
	struct proxy **proxy;	/* [max_eids]: a remote eid's proxy, or NULL */
	struct proxy **active;	/* the proxies, in creation order */
	unsigned nactive;
	unsigned char *bufs;	/* NRX + NTX buffers of msg_max bytes */
	unsigned rx_down;	/* receive buffers not posted (repost_rx skips when 0) */
	struct buf rx[NRX], tx[NTX], *tx_free;
	size_t msg_max, inject_max;
	struct backlog *bl_head, **bl_tail;
	unsigned bl_copies;
	unsigned long shipped, delivered, backlogged;
	uint64_t job_key;	/* every message's (struct wire): rank 0's random bits */
	unsigned long foreign;	/* arrivals dropped: not this job's key, or malformed */
	struct rkey *rk;	/* [2 * nranks]: rank r's segment at 2r, its region at 2r+1 */
	struct fid_mr *reg_mr;	/* mine */
	void *reg_local;
	size_t reg_len;
	struct rma_ctx *rctx, *rctx_free;	/* NRMA contexts, then a flush one per rank
						 * (registered under mr_local) */
	size_t rctx_len;
	struct wrank *wr;	/* [nranks], where flushed */
	unsigned long wr_open;	/* flushed writes posted, not yet done */
	unsigned long rma_flushes;
	bool flushed;		/* writes delivered by flush reads (struct wrank) */
	struct fid_mr *rctx_mr;
	unsigned char *bounce[NBOUNCE];	/* free ones; NULL: taken */
	unsigned char *bounce_area;
	struct fid_mr *bounce_mr;
	bool mr_local;		/* local buffers need a desc (FI_MR_LOCAL, or PGAS_OFI_RMA=bounce) */
	bool rma_on;		/* ops->rma serves (PGAS_OFI_RMA is not am) */
	bool amo_on;		/* ops->amo serves (c->amo_ops) */
	unsigned long amo_posted;
	uint64_t write_flags;	/* FI_DELIVERY_COMPLETE unless flushed */
	size_t rma_max;		/* the provider's largest message */
	unsigned long rma_writes, rma_reads, rma_bounced, rma_eagain;
	unsigned long long rma_bytes;
	unsigned mbox_shift, notify_shift;
	/* Fabric endpoints of extra endpoints: the open ones (under lock),
	 * how many, the statistics of those closed, completions of the
	 * shared endpoint's RMA; fep_why: why none are opened, or NULL. */
	struct fep *feps;
	unsigned nfep;
	unsigned long fep_opened, fep_refused, fep_given_up, rma_done;
	bool fep_broken;	/* one gave up: no more are opened (atomic) */
	struct rma_stats fep_closed;
	const char *fep_why;
	bool thread_safe;	/* the domain was opened FI_THREAD_SAFE */
	/* Every call into the domain (FI_THREAD_DOMAIN): progress takes it
	 * with a trylock (one thread moves the proxies, the others go on),
	 * a thread posting an RMA waits for it (progress never blocks). */
	pthread_mutex_t lock;
	/* Block mode (ops->sleep): the CQ's wait fd, and every same-host
	 * rank's eventfd (mine at efd[rank], -1 where none) that a producer
	 * writes when it finds PGAS_SLEEPING_CONDUIT on its control page. */
	int cq_fd;
	int *efd;
	unsigned long sleep_woken, sleep_timed, sleep_skipped;
	bool opened;
	bool flushing;		/* at exit: fi_send only (completions say it left) */
	bool flush_failed;	/* a completion failed while flushing */
	bool forked;		/* a forked child: the parent's fabric, not its own */
} ofi = { .bl_tail = &ofi.bl_head, .lock = PTHREAD_MUTEX_INITIALIZER, .cq_fd = -1 };

static int ofi_fail(char *msg, size_t msglen, const char *what, int err)
{
	snprintf(msg, msglen, "%s: %s (provider %s)", what, fi_strerror(err < 0 ? -err : err),
		 ofi.info ? ofi.info->fabric_attr->prov_name : "none yet");
	return PGAS_ERR_SYS;
}

static uint32_t lap_of(uint64_t t)
{
	return (uint32_t)((t >> ofi.mbox_shift) + 1) & 0xffffu;
}

static uint32_t notify_lap_of(uint64_t t)
{
	return (uint32_t)((t >> ofi.notify_shift) + 1) & 0xffffu;
}

static unsigned slots_of(unsigned len)
{
	return len <= PGAS_SLOT_PAYLOAD ? 1 : (len + PGAS_SLOT_PAYLOAD - 1) / PGAS_SLOT_PAYLOAD;
}

static size_t args_end(unsigned type, unsigned nargs)
{
	return type == PGAS_MSG_SHORT ? (size_t)nargs * 4 : PGAS__ALIGN_UP((size_t)nargs * 4, 8);
}

/* eid's proxy, made on first use (the caller serialises: open, or the
 * core's endpoint calls, which it serialises per process). */
static struct proxy *proxy_for(struct pgas_conduit *c, unsigned eid, unsigned owner)
{
	struct proxy *p = ofi.proxy[eid];

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->base = mmap(NULL, c->layout.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p->base == MAP_FAILED) {
		free(p);
		return NULL;
	}
	p->eid = eid;
	p->owner = owner;
	pgas_conduit_set_region(&p->ring, p->base, &c->layout);
	pgas_conduit_init_ctrl(c, p->ring.ctrl, eid);
	ofi.active[ofi.nactive] = p;
	/* Progress (any thread) reads the list: the count last, released. */
	__atomic_store_n(&ofi.nactive, ofi.nactive + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&ofi.proxy[eid], p, __ATOMIC_RELEASE);
	return p;
}

/* ---- liveness: peers that died or cannot be reached (docs/ofi.md, "Failure") ---- */

/*
 * A remote peer is gone once the fabric fails traffic to or from it (a
 * failed completion or send: tcp reports the connection reset of a process
 * that died), once PMIx reports its process ended (pgas_ofi_peer_died, from
 * PMIx's thread), or once it stayed silent for PGAS_OFI_TIMEOUT while this
 * rank polled (pinged after LIVE_PROBE_MS or half of it, and as often
 * again; its progress, in every poll, wait and the progress thread,
 * answers).  Silence counts only while this rank
 * polls: a gap of a quarter of the timeout between two polls starts every
 * peer's clock afresh.  A peer that finished the exit protocol says
 * goodbye before its endpoint closes and is never declared gone.  Gone is
 * never undone; c->peers_died tells the core's waits (conduit.h).
 */
static int read_cq(struct pgas_conduit *c);
static ssize_t send_buf(unsigned char *data, size_t len, unsigned rank, struct buf **tx);
enum { LIVE_OK, LIVE_GONE, LIVE_BYE };
#define LIVE_TICK_MS 100	/* silence is checked at most this often */
/* A silent peer is pinged after min(timeout/2, this), then as often: a
 * ping by fi_send to a process that died fails (tcp: connection refused)
 * and names it within about this, long before the timeout. */
#define LIVE_PROBE_MS 1000

static struct {
	uint8_t *state;		/* [nranks]: LIVE_* */
	long long *heard;	/* [nranks]: ms of the last arrival from it */
	long long *pinged;	/* [nranks]: ms of the last ping sent to it */
	long long now, tick;	/* ms: this progress's, the last check's */
	long long timeout;	/* PGAS_OFI_TIMEOUT in ms; 0: no heartbeat */
	unsigned long pings, pongs;
} live;

static long long live_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);	/* vDSO, no system call */
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void live_launcher_died(unsigned rank, const char *why);

static int live_setup(struct pgas_conduit *c)
{
	live.state = calloc(c->nranks, sizeof(*live.state));
	live.heard = calloc(c->nranks, sizeof(*live.heard));
	live.pinged = calloc(c->nranks, sizeof(*live.pinged));
	if (!live.state || !live.heard || !live.pinged)
		return PGAS_ERR_NOMEM;
	live.timeout = (long long)pgas__cfg.ofi_timeout * 1000;
	pgas_boot_on_peer_died(live_launcher_died);
	live.now = live.tick = live_clock();
	for (unsigned r = 0; r < c->nranks; r++)
		live.heard[r] = live.now;
	return PGAS_OK;
}

static void live_free(void)
{
	free(live.state);
	free(live.heard);
	free(live.pinged);
	live.state = NULL;
	live.heard = live.pinged = NULL;
}

/* Declares rank gone (any thread), once, unless it said goodbye. */
static void live_lost(struct pgas_conduit *c, unsigned rank, const char *why, int err)
{
	uint8_t ok = LIVE_OK;

	if (!live.state || rank >= c->nranks || rank == c->rank ||
	    !__atomic_compare_exchange_n(&live.state[rank], &ok, LIVE_GONE, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return;
	if (pgas__cfg.error_mode != PGAS_ERRMODE_QUIET)
		fprintf(stderr, "pgas[%u]: ofi conduit: rank %u is gone: %s%s%s\n", c->rank, rank,
			why, err ? ": " : "", err ? fi_strerror(err < 0 ? -err : err) : "");
	__atomic_fetch_add(&c->peers_died, 1, __ATOMIC_RELEASE);
}

/* The launcher's report (PMIx; boot's thread). */
static void live_launcher_died(unsigned rank, const char *why)
{
	if (ofi.c && ofi.remote && rank < ofi.c->nranks && ofi.remote[rank])
		live_lost(ofi.c, rank, why, 0);
}

static bool live_gone(unsigned rank)
{
	return live.state && __atomic_load_n(&live.state[rank], __ATOMIC_ACQUIRE) == LIVE_GONE;
}

/* A pong by fi_inject; a ping by fi_send, whose completion reports a
 * failure.  false: not sent (EAGAIN, or no send buffer): try later. */
static bool live_send(unsigned rank, uint16_t kind)
{
	struct wire w = { .key = ofi.job_key, .src_rank = ofi.c->rank, .kind = kind };
	struct buf *tx = ofi.tx_free;
	ssize_t rc;

	if (kind == WIRE_PONG) {
		rc = fi_inject(ofi.ep, &w, sizeof(w), ofi.addr[rank]);
	} else {
		if (!tx)
			return false;
		memcpy(tx->data, &w, sizeof(w));
		tx->rank = rank;
		rc = fi_send(ofi.ep, tx->data, sizeof(w), ofi.buf_desc, ofi.addr[rank], &tx->h.ctx);
		if (!rc)
			ofi.tx_free = tx->next;
	}
	if (rc && rc != -FI_EAGAIN)
		live_lost(ofi.c, rank, kind == WIRE_PING ? "sending it a ping failed" :
			  "sending it a pong failed", (int)rc);
	return !rc;
}

/* An arrival: its sender is heard; true if it was the conduit's own. */
static bool live_rx(struct pgas_conduit *c, const unsigned char *data, size_t len)
{
	struct wire w;

	if (len < sizeof(w))
		return false;	/* deliver() names it */
	memcpy(&w, data, sizeof(w));
	if (w.src_rank >= c->nranks)
		return false;
	live.heard[w.src_rank] = live.now;
	switch (w.kind) {
	case WIRE_PING:
		live.pongs++;
		live_send(w.src_rank, WIRE_PONG);
		return true;
	case WIRE_PONG:
		return true;
	case WIRE_BYE: {
		uint8_t ok = LIVE_OK;

		__atomic_compare_exchange_n(&live.state[w.src_rank], &ok, LIVE_BYE, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
		return true;
	}
	default:
		return false;
	}
}

/* From progress: pings the peers silent for half the timeout, declares
 * those silent for all of it gone. */
static void live_tick(struct pgas_conduit *c)
{
	long long now = live.now, t = live.timeout;
	long long probe = t / 2 < LIVE_PROBE_MS ? t / 2 : LIVE_PROBE_MS;

	if (!t || now - live.tick < LIVE_TICK_MS)
		return;
	if (now - live.tick > t / 4)	/* not polled meanwhile: nothing was heard */
		for (unsigned r = 0; r < c->nranks; r++)
			live.heard[r] = now;
	live.tick = now;
	for (unsigned r = 0; r < c->nranks; r++) {
		long long quiet = now - live.heard[r];

		if (!ofi.remote[r] || __atomic_load_n(&live.state[r], __ATOMIC_RELAXED) != LIVE_OK)
			continue;
		if (quiet >= t) {
			char why[96];

			snprintf(why, sizeof(why), "silent for %lld ms while this rank polled "
				 "(PGAS_OFI_TIMEOUT=%u)", quiet, pgas__cfg.ofi_timeout);
			live_lost(c, r, why, 0);
		} else if (quiet >= probe && now - live.pinged[r] >= probe && live_send(r, WIRE_PING)) {
			live.pinged[r] = now;
			live.pings++;
		}
	}
}

/*
 * At exit, once the job's exit protocol completed (pgas_boot_fini): a
 * goodbye to every remote peer, by fi_send, its completion awaited (handed
 * to the transport, behind everything before it), at most a second.
 */
static void live_bye(struct pgas_conduit *c)
{
	long long t0 = live_clock();
	unsigned next = 0;

	if (!pgas_boot_fini || !live.state)
		return;
	ofi.flushing = true;
	while (live_clock() - t0 < 1000 && !ofi.flush_failed) {
		unsigned nfree = 0;

		while (next < c->nranks && ofi.tx_free) {
			struct wire w = { .key = ofi.job_key, .src_rank = c->rank, .kind = WIRE_BYE };
			struct buf *tx = ofi.tx_free;
			ssize_t rc;

			if (!ofi.remote[next] || live_gone(next)) {
				next++;
				continue;
			}
			memcpy(tx->data, &w, sizeof(w));
			rc = send_buf(tx->data, sizeof(w), next, &tx);
			if (rc == -FI_EAGAIN)
				break;
			next++;
		}
		read_cq(c);
		for (struct buf *b = ofi.tx_free; b; b = b->next)
			nfree++;
		if (next == c->nranks && nfree == NTX)
			break;
	}
	ofi.flushing = false;
}

/* A failed completion: true if it names a peer (now gone) or is a
 * receive's (the sender is unknown: silence will name it). */
static bool live_cq_error(struct pgas_conduit *c, const struct fi_cq_err_entry *err)
{
	struct buf *b = err->op_context;

	if (!b || (b->tx && err->err == FI_ETRUNC))
		return false;
	if (!b->tx) {
		/* Longer than any message of the job: not the job's. */
		if (err->err == FI_ETRUNC)
			ofi.foreign++;
		b->posted = false;	/* reposted by the next progress */
		ofi.rx_down++;
		return true;
	}
	b->next = ofi.tx_free;
	ofi.tx_free = b;
	live_lost(c, b->rank, "a send to it failed", err->err);
	return true;
}

/* fi_inject to a peer: what is sent to a gone one is dropped (0), and a
 * send that fails makes it gone. */
static ssize_t live_inject(const void *data, size_t len, unsigned rank)
{
	ssize_t rc;

	if (live_gone(rank))
		return 0;
	rc = fi_inject(ofi.ep, data, len, ofi.addr[rank]);
	if (rc && rc != -FI_EAGAIN) {
		live_lost(ofi.c, rank, "sending to it failed", (int)rc);
		return 0;
	}
	return rc;
}

static bool ofi_peer_gone(struct pgas_conduit *c, unsigned rank)
{
	return rank < c->nranks && live_gone(rank);
}

/* ---- setup ------------------------------------------------------------------- */

/*
 * Which of fi_getinfo's entries.  A job across hosts cannot use what
 * reaches this host only: libfabric's shm (and sm2) providers, or a
 * tcp/udp fabric on a loopback network, which the list may hold first: the
 * first other entry, unless FI_PROVIDER chose (the user's word).  A job on
 * one host takes, of the first entry's provider, its loopback fabric where
 * it has one and FI_TCP_IFACE does not name an interface: its traffic
 * then stays on lo, not on whatever network interface comes first.
 */
static bool loopback(const struct fi_info *i)
{
	const char *fab = i->fabric_attr->name ? i->fabric_attr->name : "";

	return !strncmp(fab, "127.", 4) || !strcmp(fab, "::1/128");
}

static bool host_local(const struct fi_info *i)
{
	const char *prov = i->fabric_attr->prov_name ? i->fabric_attr->prov_name : "";

	return !strncmp(prov, "shm", 3) || !strncmp(prov, "sm2", 3) || loopback(i);
}

static struct fi_info *pick_info(struct fi_info *info)
{
	struct fi_info **at = &info, *chosen;

	if (!info)
		return NULL;
	if (pgas_boot_nhosts() > 1) {
		while (!getenv("FI_PROVIDER") && *at && host_local(*at))
			at = &(*at)->next;
	} else if (!getenv("FI_TCP_IFACE") && !host_local(info)) {
		while (*at && !(loopback(*at) && info->fabric_attr->prov_name &&
				(*at)->fabric_attr->prov_name &&
				!strcmp((*at)->fabric_attr->prov_name, info->fabric_attr->prov_name)))
			at = &(*at)->next;
		if (!*at)
			at = &info;
	}
	chosen = *at;
	*at = chosen ? chosen->next : NULL;	/* out of the list, which goes back */
	if (chosen)
		chosen->next = NULL;
	if (info)
		fi_freeinfo(info);
	return chosen;
}

/* order: the msg_order asked for (FI_ORDER_RMA_RAW: writes flushed by a read). */
static struct fi_info *get_info(bool atomics, uint64_t order)
{
	struct fi_info *hints = lf.dupinfo(NULL), *info = NULL;	/* fi_allocinfo */

	if (!hints)
		return NULL;
	hints->caps = FI_MSG | FI_RMA | (atomics ? FI_ATOMIC : 0);
	hints->ep_attr->type = FI_EP_RDM;
	hints->mode = FI_CONTEXT;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
				      FI_MR_PROV_KEY | FI_MR_ENDPOINT;
	/* Fabric endpoints used by threads at once (PGAS_OFI_EPS): the
	 * domain's shared parts (rxm's connections, tcp's progress) need the
	 * provider's own locks; else one lock serialises every call. */
	hints->domain_attr->threading = ofi.thread_safe ? FI_THREAD_SAFE : FI_THREAD_DOMAIN;
	hints->tx_attr->msg_order = hints->rx_attr->msg_order = order;
	if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, hints, &info))
		info = NULL;
	fi_freeinfo(hints);
	return pick_info(info);
}

/* Posts a receive buffer: 0, or an error; EAGAIN leaves it to the next progress. */
static int post_rx(struct buf *b)
{
	ssize_t rc = fi_recv(ofi.ep, b->data, ofi.msg_max, ofi.buf_desc, FI_ADDR_UNSPEC, &b->h.ctx);

	if (!rc) {
		b->posted = true;
		ofi.rx_down--;
	}
	return rc == -FI_EAGAIN ? 0 : (int)rc;
}

static void repost_rx(void)
{
	for (unsigned i = 0; ofi.rx_down && i < NRX; i++)
		if (!ofi.rx[i].posted && !ofi.rx[i].held && post_rx(&ofi.rx[i]))
			pgas__fatal("ofi: posting a receive buffer failed");
}

/* PGAS_VERBOSEENV: what the fabric carried, when the process ends. */
static void print_stats(void)
{
	if (ofi.c)
		fprintf(stderr, "pgas[%u]: ofi conduit: %lu messages shipped, %lu delivered, "
			"%lu through the backlog; rma: %lu writes, %lu reads, %llu bytes, "
			"%lu bounced, %lu queue full, %lu flush reads; %lu atomics; block sleeps on the wait fd: "
			"%lu woken, %lu timed out, %lu skipped; %lu foreign dropped\n", ofi.c->rank,
			ofi.shipped, ofi.delivered, ofi.backlogged, ofi.rma_writes, ofi.rma_reads,
			ofi.rma_bytes, ofi.rma_bounced, ofi.rma_eagain, ofi.rma_flushes, ofi.amo_posted, ofi.sleep_woken,
			ofi.sleep_timed, ofi.sleep_skipped, ofi.foreign);
	/* Not in a forked child: ofi.lock may be held by a thread of the
	 * parent's that the child does not have. */
	if (ofi.c && !ofi.forked && (ofi.fep_opened || ofi.fep_refused)) {
		struct rma_stats t = ofi.fep_closed;

		pthread_mutex_lock(&ofi.lock);
		for (struct fep *f = ofi.feps; f; f = f->next) {
			t.writes += f->st.writes;
			t.reads += f->st.reads;
			t.bytes += f->st.bytes;
			t.eagain += f->st.eagain;
			t.done += f->st.done;
		}
		pthread_mutex_unlock(&ofi.lock);
		fprintf(stderr, "pgas[%u]: ofi conduit: fabric endpoints: %lu opened, %lu refused "
			"(shared), %lu gave up; on their own: %lu writes, %lu reads, %llu bytes, %lu queue full, "
			"%lu completions; on the shared endpoint: %lu rma completions\n",
			ofi.c->rank, ofi.fep_opened, ofi.fep_refused, ofi.fep_given_up, t.writes, t.reads, t.bytes,
			t.eagain, t.done, ofi.rma_done);
	}
}

/* At exit: arrivals that were not the job's are worth a line of their own
 * (someone reached this rank's endpoint), unless errors are quiet. */
static void print_foreign(void)
{
	static bool said;

	if (ofi.c && ofi.foreign && !said && pgas__cfg.error_mode != PGAS_ERRMODE_QUIET)
		fprintf(stderr, "pgas[%u]: ofi conduit: %lu arrivals dropped: not this job's key "
			"(a process outside the job reached this rank's endpoint)\n", ofi.c->rank,
			ofi.foreign);
	said = true;
}

/*
 * At exit (after pgas_exit's finalize, registered before it): the fabric
 * objects closed, so that providers release what outlives a process (the
 * shm provider's region in /dev/shm).
 */
static int ofi_progress(struct pgas_conduit *c);

/* Whether a proxy holds something not shipped yet. */
static bool proxy_pending(const struct proxy *p)
{
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
		if (__atomic_load_n(&p->ring.ctrl->mbox[ch].tail, __ATOMIC_ACQUIRE) != p->head[ch])
			return true;
	return __atomic_load_n(&p->ring.ctrl->notify.tail, __ATOMIC_ACQUIRE) != p->notify_head;
}

/*
 * At exit, before the endpoint closes: what the proxies still hold goes
 * out.  The exit protocol's last message (FIN_GONE to rank 0, ctl.c) is
 * sent into a proxy just before the process ends, and nothing polls after
 * it: on one host nothing else moves it.  Sent by fi_send while flushing,
 * and waited for until every send buffer's completion is back (the
 * provider has handed it to its transport, in order behind what went
 * before), at most FLUSH_SECONDS.
 */
#define FLUSH_SECONDS 5
static void flush_proxies(void)
{
	struct timespec t0, t;

	if (!ofi.opened || !ofi.ep || !ofi.c || !__atomic_load_n(&ofi.nactive, __ATOMIC_ACQUIRE))
		return;
	ofi.flushing = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		unsigned nfree = 0;
		bool pending = false;

		ofi_progress(ofi.c);
		for (unsigned i = 0; i < ofi.nactive && !pending; i++)
			pending = proxy_pending(ofi.active[i]);
		for (struct buf *b = ofi.tx_free; b; b = b->next)
			nfree++;
		if ((!pending && nfree == NTX) || ofi.flush_failed)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > FLUSH_SECONDS)
			break;
	}
	ofi.flushing = false;
}

static void fep_free(struct fep *f);

static void close_fabric(void)
{
	struct fid_mr *mrs[] = { ofi.seg_mr, ofi.buf_mr, ofi.reg_mr, ofi.rctx_mr, ofi.bounce_mr };

	/* A forked child's exit: the endpoint, CQ and sockets are its
	 * parent's, which goes on using them (docs/ofi.md, "Fork"). */
	if (ofi.forked)
		return;
	flush_proxies();
	if (ofi.opened && ofi.ep && ofi.c)
		live_bye(ofi.c);
	print_foreign();
	/*
	 * verbs;ofi_rxm (libfabric 1.17) crashed in fi_close of the endpoint
	 * just after a peer had closed its own (SIGSEGV at NULL + 8: rxm's
	 * close flushes its MSG CQ and handles a receive of a connection it
	 * has shut down; 2 of 14 and 3 of 7 exits of barrier, signal, coll at 2
	 * ranks in the VM tier's rxe part).  Nothing of verbs outlives the
	 * process (the kernel destroys its QPs and registrations with the
	 * uverbs file): at exit it is left to the kernel.
	 */
	if (ofi.info && ofi.info->fabric_attr->prov_name &&
	    strstr(ofi.info->fabric_attr->prov_name, "verbs"))
		return;
	while (ofi.feps) {
		struct fep *f = ofi.feps;

		ofi.feps = f->next;
		fep_free(f);
	}
	if (ofi.ep)
		fi_close(&ofi.ep->fid);
	for (unsigned i = 0; i < sizeof(mrs) / sizeof(mrs[0]); i++)
		if (mrs[i])
			fi_close(&mrs[i]->fid);
	if (ofi.av)
		fi_close(&ofi.av->fid);
	if (ofi.cq)
		fi_close(&ofi.cq->fid);
	if (ofi.domain)
		fi_close(&ofi.domain->fid);
	if (ofi.fabric)
		fi_close(&ofi.fabric->fid);
	ofi.ep = NULL;
	ofi.seg_mr = ofi.buf_mr = ofi.reg_mr = ofi.rctx_mr = ofi.bounce_mr = NULL;
	ofi.av = NULL;
	ofi.cq = NULL;
	ofi.domain = NULL;
	ofi.fabric = NULL;
}

/*
 * libfabric's shm provider names its region after the process
 * ("/dev/shm/PID:0:0") and leaves it behind when the process dies; a later
 * process that gets the same pid then dies of SIGBUS (an empty file) or
 * fails in fi_endpoint (measured, libfabric 1.17).  Before this process
 * opens its endpoint nothing alive can own its pid's name (the ranks of a
 * host share one pid namespace): a file there is stale.
 */
static void shm_stale_region(void)
{
	const char *prov = ofi.info->fabric_attr->prov_name;
	char name[64];

	if (!prov || strncmp(prov, "shm", 3))
		return;
	snprintf(name, sizeof(name), "/dev/shm/%d:0:0", (int)getpid());
	(void)unlink(name);
}

/* 64 random bits (the job key, memory keys). */
static uint64_t random64(void)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);	/* no getrandom: weaker, still per process */
		r = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
	}
	return r;
}

static int cq_open(struct fi_cq_attr *attr);

static int ofi_open(struct pgas_conduit *c, char *msg, size_t msglen)
{
	struct {
		uint64_t key;	/* rank 0's: the job key */
		uint32_t len;
		unsigned char addr[MAX_ADDR];
	} mine = { 0 }, *all = NULL;
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_MSG, .size = 4 * (NRX + NTX) };
	struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };
	size_t alen = sizeof(mine.addr);
	const char *what = NULL;
	bool any = false;
	int rc, efd = -1;

	/* My rings; every peer's of this host, mapped (the others' have no
	 * memfd to map: they are remote whatever PGAS_MAP_PEERS says). */
	pgas_shm_host_only = true;
	rc = pgas_shm_ops.open(c, msg, msglen);
	/*
	 * ofi_rxm sizes the CQ of its connections for FI_UNIVERSE_SIZE peers
	 * (default 256): (rx_size + tx_size) * 256 entries, more than a
	 * soft-RoCE device takes (rxe's max_cqe is 32767: fi_enable
	 * failed EINVAL, "Unable to create verbs CQ", in the VM tier's rxe
	 * part).  A job knows its size: its ranks and one more (a rank's
	 * connection to itself), unless the user says otherwise.  Set before
	 * libfabric is loaded: it reads the variable once.
	 */
	if (!rc) {
		char n[16];

		snprintf(n, sizeof(n), "%u", c->nranks + 1);
		setenv("FI_UNIVERSE_SIZE", n, 0);
		rc = lf_load(msg, msglen);
	}
	if (rc)
		return rc;
	ofi.c = c;
	ofi.mbox_shift = (unsigned)__builtin_ctz(c->geo.mbox_slots);
	ofi.notify_shift = (unsigned)__builtin_ctz(c->geo.notify_entries);
	ofi.addr = calloc(c->nranks, sizeof(*ofi.addr));
	ofi.remote = calloc(c->nranks, sizeof(*ofi.remote));
	ofi.proxy = calloc(c->max_eids, sizeof(*ofi.proxy));
	ofi.active = calloc(c->max_eids, sizeof(*ofi.active));
	ofi.rk = calloc(2 * (size_t)c->nranks, sizeof(*ofi.rk));
	all = calloc(c->nranks, sizeof(*all));
	if (!ofi.addr || !ofi.remote || !ofi.proxy || !ofi.active || !ofi.rk || !all) {
		free(all);
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		return PGAS_ERR_NOMEM;
	}

	atexit(close_fabric);	/* before pgas_init registers its finalize: runs after it */
	for (int safe = pgas__cfg.ofi_eps > 0; !ofi.info && safe >= 0; safe--) {
		ofi.thread_safe = safe;
		ofi.info = get_info(true, FI_ORDER_SAS | FI_ORDER_RMA_RAW);
		if (!ofi.info)
			ofi.info = get_info(true, FI_ORDER_SAS);
		if (!ofi.info)
			ofi.info = get_info(false, FI_ORDER_SAS | FI_ORDER_RMA_RAW);
		if (!ofi.info)
			ofi.info = get_info(false, FI_ORDER_SAS);
		if (!ofi.info)
			ofi.info = get_info(false, 0);
	}
	if (!ofi.info) {
		free(all);
		snprintf(msg, msglen, "no libfabric provider offers FI_EP_RDM with FI_MSG | FI_RMA%s%s%s",
			 getenv("FI_PROVIDER") ? " among FI_PROVIDER=" : "",
			 getenv("FI_PROVIDER") ? getenv("FI_PROVIDER") : "",
			 !getenv("FI_PROVIDER") && pgas_boot_nhosts() > 1 ?
			 " that reaches other hosts (not shm, not loopback)" : "");
		return PGAS_ERR_SYS;
	}
	shm_stale_region();
	/* Each step named: "fi_enable" is where ofi_rxm opens its MSG CQ. */
	if ((what = "fi_fabric", rc = fi_fabric(ofi.info->fabric_attr, &ofi.fabric, NULL)) ||
	    (what = "fi_domain", rc = fi_domain(ofi.fabric, ofi.info, &ofi.domain, NULL)) ||
	    (what = "fi_cq_open", rc = cq_open(&cq_attr)) ||
	    (what = "fi_av_open", rc = fi_av_open(ofi.domain, &av_attr, &ofi.av, NULL)) ||
	    (what = "fi_endpoint", rc = fi_endpoint(ofi.domain, ofi.info, &ofi.ep, NULL)) ||
	    (what = "fi_ep_bind", rc = fi_ep_bind(ofi.ep, &ofi.cq->fid, FI_TRANSMIT | FI_RECV)) ||
	    (rc = fi_ep_bind(ofi.ep, &ofi.av->fid, 0)) ||
	    (what = "fi_enable", rc = fi_enable(ofi.ep)) ||
	    (what = "fi_getname", rc = fi_getname(&ofi.ep->fid, mine.addr, &alen))) {
		char step[64];

		free(all);
		snprintf(step, sizeof(step), "opening the fabric endpoint (%s)", what);
		return ofi_fail(msg, msglen, step, rc);
	}
	mine.len = (uint32_t)alen;

	/* Buffers: the largest message is a header, a body, a bounce buffer. */
	ofi.msg_max = PGAS__ALIGN_UP(sizeof(struct wire) + PGAS_STATUS_MAX_LEN + 1 +
				     c->geo.bounce_size, PGAS_CACHELINE);
	ofi.inject_max = ofi.info->tx_attr->inject_size;
	ofi.bufs = mmap(NULL, (NRX + NTX) * ofi.msg_max, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ofi.bufs == MAP_FAILED) {
		ofi.bufs = NULL;
		free(all);
		snprintf(msg, msglen, "out of memory for the fabric buffers");
		return PGAS_ERR_NOMEM;
	}
	if (ofi.info->domain_attr->mr_mode & FI_MR_LOCAL) {
		rc = fi_mr_reg(ofi.domain, ofi.bufs, (NRX + NTX) * ofi.msg_max,
			       FI_SEND | FI_RECV, 0, 0, 0, &ofi.buf_mr, NULL);
		if (rc) {
			free(all);
			return ofi_fail(msg, msglen, "registering the fabric buffers", rc);
		}
		ofi.buf_desc = fi_mr_desc(ofi.buf_mr);
	}
	for (unsigned i = 0; i < NTX; i++) {
		ofi.tx[i].data = ofi.bufs + (NRX + i) * ofi.msg_max;
		ofi.tx[i].tx = true;
		ofi.tx[i].next = ofi.tx_free;
		ofi.tx_free = &ofi.tx[i];
	}
	ofi.rx_down = NRX;
	for (unsigned i = 0; i < NRX; i++) {
		ofi.rx[i].data = ofi.bufs + i * ofi.msg_max;
		rc = post_rx(&ofi.rx[i]);
		if (rc) {
			free(all);
			return ofi_fail(msg, msglen, "posting receive buffers", rc);
		}
	}

	/*
	 * Block mode with a CQ wait fd: an eventfd of this rank that the
	 * producers of this host write when it sleeps on it (ofi_wake).  It
	 * travels with the addresses (the exchange passes descriptors between
	 * the ranks of a host); every rank takes the others' (the wait mode
	 * is a rank's own, ringing is the job's).
	 */
	ofi.efd = malloc(c->nranks * sizeof(*ofi.efd));
	if (!ofi.efd) {
		free(all);
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		return PGAS_ERR_NOMEM;
	}
	for (unsigned r = 0; r < c->nranks; r++)
		ofi.efd[r] = -1;	/* a failed open's close closes none */
	if (ofi.cq_fd >= 0 && (efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		free(all);
		snprintf(msg, msglen, "eventfd: %s", strerror(errno));
		return PGAS_ERR_SYS;
	}
	/* Every rank's address, through the launcher (as shm's hello), and
	 * the job key: rank 0's random bits, which only the job's processes
	 * (the launcher's private channel) see. */
	if (c->rank == 0)
		mine.key = random64();
	rc = pgas_boot_allgather(&mine, sizeof(mine), efd, all, ofi.efd, msg, msglen);
	if (!rc)
		ofi.job_key = all[0].key;
	if (efd >= 0)
		close(efd);	/* efd[rank] is mine, passed back */
	for (unsigned r = 0; r < c->nranks; r++)
		if (ofi.efd[r] >= 0)
			(void)fcntl(ofi.efd[r], F_SETFD, FD_CLOEXEC);
	c->sleeps = !rc && ofi.efd[c->rank] >= 0;
	for (unsigned r = 0; !rc && r < c->nranks; r++) {
		int n = fi_av_insert(ofi.av, all[r].addr, 1, &ofi.addr[r], 0, NULL);

		if (n != 1 || all[r].len > MAX_ADDR)
			rc = ofi_fail(msg, msglen, "inserting a peer's address", n < 0 ? n : -FI_EINVAL);
	}
	free(all);
	if (rc)
		return rc;

	/* Which ranks the fabric serves: proxies stand in for their rings. */
	for (unsigned r = 0; r < c->nranks; r++) {
		struct proxy *p;

		if (r == c->rank || (pgas__cfg.map_peers != PGAS_MAP_NONE && !pgas__cfg.ofi_am &&
				     pgas_boot_same_host(r)))
			continue;
		p = proxy_for(c, r, r);
		if (!p) {
			snprintf(msg, msglen, "out of memory for a proxy ring");
			return PGAS_ERR_NOMEM;
		}
		ofi.remote[r] = true;
		c->eps[r].ctrl = p->ring.ctrl;
		for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
			c->eps[r].mbox[ch] = p->ring.mbox[ch];
		c->eps[r].notify = p->ring.notify;
		c->eps[r].bounce = p->ring.bounce;
		any = true;
	}
	c->remote = any;
	if (live_setup(c)) {
		snprintf(msg, msglen, "out of memory for %u ranks' liveness", c->nranks);
		return PGAS_ERR_NOMEM;
	}
	ofi.opened = true;
	if (pgas__cfg.verbose_env && any)
		atexit(print_stats);
	return PGAS_OK;
}

/*
 * A key for a registration whose key this process picks (the provider
 * does not: no FI_MR_PROV_KEY): random, so that nobody outside the job
 * who reaches this endpoint can guess the key of the segment (a key of
 * 1 + rank was one guess away from writing into any rank's memory).
 * Masked to the provider's key size; a clash is retried (mr_reg).
 */
static uint64_t mr_fresh_key(void)
{
	size_t size = ofi.info->domain_attr->mr_key_size;
	uint64_t key = random64();

	if (size && size < sizeof(key))
		key &= (1ull << (8 * size)) - 1;
	return key;
}

/*
 * Registers [p, +len) with access (bound to the endpoint under
 * FI_MR_ENDPOINT), under a fresh random key where the provider does not
 * choose it.  0, or a libfabric error.
 */
static int mr_reg(void *p, size_t len, uint64_t access, struct fid_mr **mr)
{
	bool prov_key = ofi.info->domain_attr->mr_mode & FI_MR_PROV_KEY;
	int rc;

	for (int tries = 0;; tries++) {
		rc = fi_mr_reg(ofi.domain, p, len, access, 0, prov_key ? 0 : mr_fresh_key(), 0,
			       mr, NULL);
		if (rc != -FI_ENOKEY || prov_key || tries == 16)
			break;
	}
	if (!rc && (ofi.info->domain_attr->mr_mode & FI_MR_ENDPOINT) &&
	    !(rc = fi_mr_bind(*mr, &ofi.ep->fid, 0)))
		rc = fi_mr_enable(*mr);
	if (rc && *mr) {
		fi_close(&(*mr)->fid);
		*mr = NULL;
	}
	return rc;
}

#define MR_RMA (FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE)

/* Every rank's key for [addr, +size) of its memory: rk[2r + which]. */
static int exchange_keys(struct pgas_conduit *c, unsigned which, void *addr, size_t size,
			 struct fid_mr *mr, char *msg, size_t msglen)
{
	struct rkey mine = { 0 }, *all = calloc(c->nranks, sizeof(*all));
	int rc;

	if (!all) {
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		return PGAS_ERR_NOMEM;
	}
	if (mr) {
		mine.addr = (uintptr_t)addr;
		mine.size = size;
		/* Offsets (FI_MR_SCALABLE-style) unless FI_MR_VIRT_ADDR. */
		mine.base = ofi.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? mine.addr : 0;
		mine.key = fi_mr_key(mr);
	}
	rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
	for (unsigned r = 0; !rc && r < c->nranks; r++)
		ofi.rk[2 * r + which] = all[r];
	free(all);
	return rc;
}

/*
 * Whether a read's completion says that the writes posted before it to
 * the same rank are at the target: the read goes after them
 * (FI_ORDER_RMA_RAW) and sees their data (max_order_raw_size covers the
 * largest write: shm says so when asked).  tcp (alone or under ofi_rxm)
 * says the first only, with max_order_raw_size 0, but its target takes a
 * connection's operations off one socket in order and receives a write's
 * data into memory before it reads the next header, so a read behind
 * writes on it finds them placed.
 */
static bool flush_ordered(void)
{
	const struct fi_info *i = ofi.info;

	if (!(i->tx_attr->msg_order & (FI_ORDER_RMA_RAW | FI_ORDER_RAW)))
		return false;
	return i->ep_attr->max_order_raw_size >= ofi.rma_max ||
	       !strncmp(i->fabric_attr->prov_name, "tcp", 3);
}

/*
 * What the RMA path needs besides the keys: the operation contexts and,
 * where local buffers need a desc (FI_MR_LOCAL, or PGAS_OFI_RMA=bounce),
 * their registration and the bounce buffers'.  Bounce buffers rather than
 * registering the caller's memory on the fly: a registration costs system
 * calls and pins pages for each new buffer (a cache of them must also
 * learn when memory is unmapped, which libfabric's own monitor does only
 * for some providers); a copy of at most 64 KiB per operation is cheap
 * beside a fabric round trip, and the segment and region, registered
 * once, need none.
 */
static int rma_setup(struct pgas_conduit *c, char *msg, size_t msglen)
{
	int rc;

	ofi.rma_on = pgas__cfg.ofi_rma != 1;
	ofi.mr_local = (ofi.info->domain_attr->mr_mode & FI_MR_LOCAL) || pgas__cfg.ofi_rma == 2;
	ofi.rma_max = ofi.info->ep_attr->max_msg_size;
	if (!ofi.rma_max || ofi.rma_max > (1u << 30))
		ofi.rma_max = 1u << 30;
	/*
	 * A write completes (c->rma_done) once its data is visible at the
	 * target: by FI_DELIVERY_COMPLETE on each (PGAS_OFI_RMA=dc, a fabric
	 * endpoint's writes, atomics, or a provider that does not order a
	 * read behind writes of any size), or flushed: a read behind them
	 * (struct wrank).  Delivery completion costs tcp;ofi_rxm an
	 * acknowledgement per write, which the target sends from its
	 * progress: 2-5x the time of a stream of small puts.
	 */
	ofi.flushed = ofi.rma_on && pgas__cfg.ofi_rma != 3 && flush_ordered();
	ofi.write_flags = FI_DELIVERY_COMPLETE;
	/* Why extra endpoints share the primary's fabric endpoint, if they do. */
	ofi.fep_why = !c->remote ? NULL :	/* nothing to say: no RMA over the fabric */
		      !pgas__cfg.ofi_eps ? "PGAS_OFI_EPS=0" :
		      !ofi.thread_safe ? "the provider does not offer FI_THREAD_SAFE" :
		      !ofi.rma_on ? "PGAS_OFI_RMA=am: RMA goes by AM" :
		      ofi.mr_local ? "local buffers need the shared endpoint's registrations "
				     "(FI_MR_LOCAL or PGAS_OFI_RMA=bounce)" :
		      /* Its completions would not wake a sleeper: waits nap
		       * on the shared CQ's wait fd and the doorbell. */
		      ofi.cq_fd >= 0 ? "block mode sleeps on the shared completion queue's "
				       "wait fd (PGAS_WAIT_MODE=block)" :
		      (ofi.info->domain_attr->mr_mode & FI_MR_ENDPOINT) ?
		      "registrations are bound to one endpoint (FI_MR_ENDPOINT)" : NULL;
	if (!c->remote)
		ofi.fep_why = "";	/* no rank is reached over the fabric: nothing to say */
	if ((!ofi.rma_on && !ofi.amo_on) || !c->remote)
		return PGAS_OK;
	ofi.rctx_len = (NRMA + (size_t)c->nranks) * sizeof(*ofi.rctx);
	ofi.rctx = mmap(NULL, ofi.rctx_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ofi.wr = ofi.flushed ? calloc(c->nranks, sizeof(*ofi.wr)) : NULL;
	if (ofi.rctx == MAP_FAILED || (ofi.flushed && !ofi.wr)) {
		if (ofi.rctx != MAP_FAILED)
			munmap(ofi.rctx, ofi.rctx_len);
		ofi.rctx = NULL;
		snprintf(msg, msglen, "out of memory for RMA contexts");
		return PGAS_ERR_NOMEM;
	}
	for (unsigned i = 0; i < NRMA + c->nranks; i++)
		ofi.rctx[i].h.kind = CTX_RMA;
	for (unsigned r = 0; r < c->nranks; r++) {
		ofi.rctx[NRMA + r].flush = true;
		ofi.rctx[NRMA + r].rank = r;
	}
	for (unsigned i = 0; i < NRMA; i++) {
		ofi.rctx[i].next = ofi.rctx_free;
		ofi.rctx_free = &ofi.rctx[i];
	}
	if (!ofi.mr_local)
		return PGAS_OK;
	ofi.bounce_area = mmap(NULL, (size_t)NBOUNCE * BOUNCE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ofi.bounce_area == MAP_FAILED) {
		ofi.bounce_area = NULL;
		snprintf(msg, msglen, "out of memory for RMA bounce buffers");
		return PGAS_ERR_NOMEM;
	}
	for (unsigned i = 0; i < NBOUNCE; i++)
		ofi.bounce[i] = ofi.bounce_area + (size_t)i * BOUNCE_SIZE;
	if ((rc = mr_reg(ofi.rctx, ofi.rctx_len, FI_READ | FI_WRITE, &ofi.rctx_mr)) ||
	    (rc = mr_reg(ofi.bounce_area, (size_t)NBOUNCE * BOUNCE_SIZE, FI_READ | FI_WRITE,
			 &ofi.bounce_mr)))
		return ofi_fail(msg, msglen, "registering the RMA bounce buffers (fi_mr_reg)", rc);
	return PGAS_OK;
}

static int amo_setup(struct pgas_conduit *c, char *msg, size_t msglen);

static int ofi_attach(struct pgas_conduit *c, size_t segsize, char *msg, size_t msglen)
{
	uint64_t mode = ofi.info->domain_attr->mr_mode;
	void *seg;
	int rc = pgas_shm_ops.attach(c, segsize, msg, msglen);

	if (rc)
		return rc;
	seg = c->eps[c->rank].seg;
	rc = mr_reg(seg, segsize, MR_RMA, &ofi.seg_mr);
	if (rc)
		return ofi_fail(msg, msglen, "registering the segment (fi_mr_reg)", rc);
	rc = exchange_keys(c, 0, seg, segsize, ofi.seg_mr, msg, msglen);
	if (!rc)
		rc = amo_setup(c, msg, msglen);
	if (!rc)
		rc = rma_setup(c, msg, msglen);
	if (!rc && pgas__cfg.verbose_env && c->rank == 0)
		fprintf(stderr, "pgas: ofi conduit: provider %s, fabric %s, MR mode%s%s%s%s%s, "
			"inject %zu bytes, %s\n", ofi.info->fabric_attr->prov_name,
			ofi.info->fabric_attr->name, mode & FI_MR_LOCAL ? " local" : "",
			mode & FI_MR_VIRT_ADDR ? " virt_addr" : " offsets",
			mode & FI_MR_PROV_KEY ? " prov_key" : "",
			mode & FI_MR_ALLOCATED ? " allocated" : "",
			mode & FI_MR_ENDPOINT ? " endpoint" : "", ofi.inject_max,
			ofi.info->caps & FI_ATOMIC ? "atomics" : "no atomics");
	if (!rc && pgas__cfg.verbose_env && c->rank == 0)
		fprintf(stderr, "pgas: ofi conduit: RMA %s, local buffers %s, largest %zu bytes\n",
			!ofi.rma_on ? "by AM" : ofi.flushed ?
			"by fi_write/fi_read (writes delivered by a read behind them)" :
			"by fi_write/fi_read (delivery complete)",
			ofi.mr_local ? "registered or bounced" : "as they are", ofi.rma_max);
	if (!rc && pgas__cfg.verbose_env && c->rank == 0)
		fprintf(stderr, "pgas: ofi conduit: atomics by fi_atomic for %#x %#x %#x %#x %#x %#x "
			"(PGAS_AOP_* of int32 .. double; the rest by AM)\n", c->amo_ops[1],
			c->amo_ops[2], c->amo_ops[3], c->amo_ops[4], c->amo_ops[5], c->amo_ops[6]);
	return rc;
}

static void ofi_close(struct pgas_conduit *c)
{
	close_fabric();
	if (ofi.info)
		fi_freeinfo(ofi.info);
	ofi.info = NULL;
	for (unsigned i = 0; i < ofi.nactive; i++) {
		munmap(ofi.active[i]->base, c->layout.size);
		free(ofi.active[i]);
	}
	ofi.nactive = 0;
	while (ofi.bl_head) {
		struct backlog *b = ofi.bl_head;

		ofi.bl_head = b->next;
		free(b);
	}
	ofi.bl_tail = &ofi.bl_head;
	if (ofi.bufs)
		munmap(ofi.bufs, (NRX + NTX) * ofi.msg_max);
	ofi.bufs = NULL;
	free(ofi.addr);
	free(ofi.remote);
	free(ofi.proxy);
	free(ofi.active);
	free(ofi.rk);
	if (ofi.rctx)
		munmap(ofi.rctx, ofi.rctx_len);
	free(ofi.wr);
	ofi.wr = NULL;
	ofi.wr_open = 0;
	if (ofi.bounce_area)
		munmap(ofi.bounce_area, (size_t)NBOUNCE * BOUNCE_SIZE);
	ofi.rctx = ofi.rctx_free = NULL;
	ofi.bounce_area = NULL;
	ofi.addr = NULL;
	ofi.remote = NULL;
	ofi.proxy = ofi.active = NULL;
	ofi.rk = NULL;
	ofi.opened = false;
	c->sleeps = false;
	ofi.cq_fd = -1;		/* closed with the CQ */
	for (unsigned r = 0; ofi.efd && r < c->nranks; r++)
		if (ofi.efd[r] >= 0)
			close(ofi.efd[r]);
	free(ofi.efd);
	ofi.efd = NULL;
	live_free();
	pgas_shm_ops.close(c);
}

/* ---- sending: the proxies' consumer -------------------------------------------- */

/* Sends len bytes of b (a tx buffer, or a stack copy for inject): 0, or -FI_EAGAIN. */
static ssize_t send_buf(unsigned char *data, size_t len, unsigned rank, struct buf **tx)
{
	ssize_t rc;

	if (len <= ofi.inject_max && !ofi.flushing)
		return live_inject(data, len, rank);
	if (live_gone(rank))
		return 0;	/* dropped */
	(*tx)->rank = rank;
	rc = fi_send(ofi.ep, data, len, ofi.buf_desc, ofi.addr[rank], &(*tx)->h.ctx);
	if (!rc) {
		ofi.tx_free = (*tx)->next;
		*tx = NULL;
	} else if (rc != -FI_EAGAIN) {
		live_lost(ofi.c, rank, "fi_send to it failed", (int)rc);
		return 0;
	}
	return rc;
}

/* Ships the published messages of one proxy ring; false once the fabric
 * refused one (EAGAIN: the next progress retries it). */
static bool ship_ring(struct pgas_conduit *c, struct proxy *p, unsigned ch, int *n)
{
	struct pgas_mbox_slot *ring = p->ring.mbox[ch];
	uint32_t mask = c->geo.mbox_slots - 1;

	for (;;) {
		uint64_t h = p->head[ch];
		struct pgas_mbox_slot *s = &ring[h & mask];
		uint64_t st = __atomic_load_n(&s->status, __ATOMIC_ACQUIRE);
		unsigned len, k, type, nargs;
		struct pgas_bounce_hdr *bh = NULL;
		struct wire w = { 0 };
		struct buf *tx = ofi.tx_free;
		unsigned char *out;
		size_t at;
		ssize_t rc;

		if ((st & 0xffffu) != lap_of(h))
			return true;	/* nothing more published */
		len = PGAS_STATUS_LEN(st);
		k = slots_of(len);
		type = PGAS_STATUS_TYPE(st);
		nargs = PGAS_STATUS_NARGS(st);
		if (!tx)
			return false;	/* completions give buffers back */
		out = tx->data;
		w.key = ofi.job_key;
		w.status = st & ~0xffffull;
		w.eid = p->eid;
		w.src_rank = c->rank;
		w.chan = (uint16_t)ch;
		w.kind = WIRE_AM;
		at = sizeof(w);
		for (unsigned i = 0; i < k; i++) {
			size_t off = (size_t)i * PGAS_SLOT_PAYLOAD;
			size_t m = len - off < PGAS_SLOT_PAYLOAD ? len - off : PGAS_SLOT_PAYLOAD;

			memcpy(out + at + off, ring[(h + i) & mask].payload, m);
		}
		if (type == PGAS_MSG_MEDIUM_BOUNCE) {
			struct pgas_bounce_ref ref;

			memcpy(&ref, out + at + args_end(type, nargs), sizeof(ref));
			if (ref.index >= c->geo.bounce_bufs || ref.nbytes > c->geo.bounce_size)
				pgas__fatal("ofi: bad bounce reference %u/%u in a proxy ring",
					    ref.index, ref.nbytes);
			bh = (struct pgas_bounce_hdr *)pgas_bounce_buf(p->ring.bounce, &c->geo,
								       c->rank, ch, ref.index);
			memcpy(out + at + len, (unsigned char *)bh + PGAS_CACHELINE, ref.nbytes);
			w.extra = ref.nbytes;
		}
		memcpy(out, &w, sizeof(w));
		rc = send_buf(out, at + len + w.extra, p->owner, &tx);
		if (rc == -FI_EAGAIN)
			return false;	/* the next progress retries it */
		if (rc)
			pgas__fatal("ofi: sending to rank %u: %s", p->owner, fi_strerror((int)-rc));
		/* Shipped: the bounce buffer and the slots go back to the senders. */
		if (bh)
			__atomic_store_n(&bh->busy, 0, __ATOMIC_RELEASE);
		p->head[ch] = h + k;
		__atomic_store_n(&p->ring.ctrl->mbox[ch].head, h + k, __ATOMIC_RELEASE);
		ofi.shipped++;
		(*n)++;
	}
}

static int read_cq(struct pgas_conduit *c);
struct rma_ctx;
static void rma_complete(struct rma_ctx *x, const struct fi_cq_err_entry *err);
static void flush_all(void);
#define FLAG_TRIES 10000

/* Ships the notifications (pgas_put_signal) published in a proxy's ring:
 * the signal's data went before them (a mapped peer's, or the RMA that
 * serves an unmapped one). */
static bool ship_notify(struct pgas_conduit *c, struct proxy *p, int *n)
{
	uint32_t mask = c->geo.notify_entries - 1;

	for (;;) {
		uint64_t h = p->notify_head;
		struct pgas_notify_entry *e = &p->ring.notify[h & mask];
		uint64_t st = __atomic_load_n(&e->status, __ATOMIC_ACQUIRE);
		struct wire_word w = { .h = { .key = ofi.job_key, .eid = p->eid,
					      .src_rank = c->rank, .kind = WIRE_NOTIFY } };
		ssize_t rc;

		if (PGAS_NOTIFY_LAP(st) != notify_lap_of(h))
			return true;
		w.h.status = st & ~0xffffull;
		w.word = (uint64_t)e->size | (uint64_t)e->tag << 32;
		rc = live_inject(&w, sizeof(w), p->owner);
		if (rc == -FI_EAGAIN)
			return false;
		if (rc)
			pgas__fatal("ofi: sending a notification to rank %u: %s", p->owner,
				    fi_strerror((int)-rc));
		p->notify_head = h + 1;
		__atomic_store_n(&p->ring.ctrl->notify.head, h + 1, __ATOMIC_RELEASE);
		(*n)++;
	}
}

/* Forwards the barrier flags stored into a rank's proxy since the last time. */
static void ship_barrier(struct pgas_conduit *c, struct proxy *p, int *n)
{
	for (unsigned k = 0; k < PGAS_BARRIER_ROUNDS; k++)
		for (unsigned j = 0; j < 2; j++) {
			uint64_t v = __atomic_load_n(&p->ring.ctrl->barrier[k].flag[j],
						     __ATOMIC_ACQUIRE);
			struct wire_word w;
			ssize_t rc;

			if (v == p->bar_sent[k][j])
				continue;	/* every progress scans: keep it cheap */
			w = (struct wire_word){ .h = { .key = ofi.job_key, .eid = p->eid,
						       .src_rank = c->rank, .extra = k * 2 + j,
						       .kind = WIRE_BARRIER },
						.word = v };
			/* The barrier may complete here and its caller stop
			 * polling: a few tries while the provider connects. */
			for (unsigned tries = 0;; tries++) {
				rc = live_inject(&w, sizeof(w), p->owner);
				if (rc != -FI_EAGAIN || tries == FLAG_TRIES)
					break;
				*n += read_cq(c);
			}
			if (rc == -FI_EAGAIN)
				return;
			if (rc)
				pgas__fatal("ofi: sending a barrier flag to rank %u: %s", p->owner,
					    fi_strerror((int)-rc));
			p->bar_sent[k][j] = v;
			(*n)++;
		}
}

/* ---- receiving: one more producer of my rings ---------------------------------- */

static void ofi_wake(struct pgas_conduit *c, unsigned rank);

static void ring_bell(struct pgas_ctrl_page *ctrl)
{
	uint32_t sleeping;

	__atomic_fetch_add(&ctrl->doorbell, 1, __ATOMIC_SEQ_CST);
	sleeping = __atomic_load_n(&ctrl->sleeping, __ATOMIC_SEQ_CST);
	if (sleeping == PGAS_SLEEPING_CONDUIT)
		ofi_wake(ofi.c, ctrl->rank);	/* another thread of mine sleeps on the fds */
	else if (sleeping)
		syscall(SYS_futex, &ctrl->doorbell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Reserves k slots of a ring only if it has room now. */
static bool reserve(struct pgas_ring_ctrl *rc, uint64_t nslots, unsigned k, uint64_t *t)
{
	uint64_t tl = __atomic_load_n(&rc->tail, __ATOMIC_RELAXED);

	for (;;) {
		uint64_t h = __atomic_load_n(&rc->head, __ATOMIC_ACQUIRE);

		if (h > tl) {	/* tl is stale */
			tl = __atomic_load_n(&rc->tail, __ATOMIC_RELAXED);
			continue;
		}
		if (tl + k - h > nslots)
			return false;
		if (__atomic_compare_exchange_n(&rc->tail, &tl, tl + k, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			*t = tl;
			return true;
		}
	}
}

enum { DELIVERED, BLOCKED };

/* Writes an arrival into its ring (or barrier flag); BLOCKED when no room. */
static int deliver(struct pgas_conduit *c, unsigned char *data, size_t len)
{
	struct wire w;
	struct pgas_conduit_xep x;
	const struct pgas_conduit_ep *ring;
	unsigned char *body = data + sizeof(w);
	unsigned mlen, k, type, nargs, bidx = 0;
	uint32_t mask = c->geo.mbox_slots - 1;
	struct pgas_bounce_hdr *bh = NULL;
	char msg[160];
	uint64_t t, word = 0;

	if (len < sizeof(w))
		pgas__fatal("ofi: a message of %zu bytes", len);
	memcpy(&w, data, sizeof(w));
	if (w.kind == WIRE_BARRIER || w.kind == WIRE_NOTIFY) {
		if (len < sizeof(struct wire_word))
			pgas__fatal("ofi: a %s of %zu bytes from rank %u", w.kind == WIRE_BARRIER ?
				    "barrier flag" : "notification", len, w.src_rank);
		memcpy(&word, body, sizeof(word));
	}
	if (w.kind == WIRE_BARRIER) {
		struct pgas_ctrl_page *ctrl = c->eps[c->rank].ctrl;

		if (w.extra >= PGAS_BARRIER_ROUNDS * 2)
			pgas__fatal("ofi: bad barrier round %u from rank %u", w.extra, w.src_rank);
		__atomic_store_n(&ctrl->barrier[w.extra / 2].flag[w.extra % 2], word,
				 __ATOMIC_RELEASE);
		ring_bell(ctrl);
		return DELIVERED;
	}
	if (w.kind == WIRE_NOTIFY) {
		struct pgas_ctrl_page *ctrl = c->eps[c->rank].ctrl;
		struct pgas_notify_entry *e;

		if (!reserve(&ctrl->notify, c->geo.notify_entries, 1, &t))
			return BLOCKED;
		e = &c->eps[c->rank].notify[t & (c->geo.notify_entries - 1)];
		e->size = (uint32_t)word;
		e->tag = (uint32_t)(word >> 32);
		__atomic_store_n(&e->status, w.status | notify_lap_of(t), __ATOMIC_RELEASE);
		ring_bell(ctrl);
		return DELIVERED;
	}
	mlen = PGAS_STATUS_LEN(w.status);
	type = PGAS_STATUS_TYPE(w.status);
	nargs = PGAS_STATUS_NARGS(w.status);
	if (w.kind != WIRE_AM || w.chan >= PGAS_NCHAN || w.src_rank >= c->nranks ||
	    sizeof(w) + mlen + w.extra > len || w.extra > c->geo.bounce_size)
		pgas__fatal("ofi: a bad message (kind %u, chan %u, from rank %u, %zu bytes)",
			    w.kind, w.chan, w.src_rank, len);
	if (w.eid == c->rank) {
		ring = &c->eps[c->rank];
	} else if (w.eid >= c->nranks && w.eid < c->max_eids &&
		   pgas_shm_ops.ep_resolve(c, w.eid, &x, msg, sizeof(msg)) == 0 &&
		   x.owner == c->rank) {
		ring = &x.ring;
	} else {
		return DELIVERED;	/* an endpoint of mine closed since: nobody reads it */
	}
	k = slots_of(mlen);
	if (type == PGAS_MSG_MEDIUM_BOUNCE) {
		struct pgas_bounce_ref ref;

		for (bidx = 0; bidx < c->geo.bounce_bufs; bidx++) {
			uint32_t free_ = 0;

			bh = (struct pgas_bounce_hdr *)pgas_bounce_buf(ring->bounce, &c->geo,
								       w.src_rank, w.chan, bidx);
			if (__atomic_compare_exchange_n(&bh->busy, &free_, 1, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				break;
		}
		if (bidx == c->geo.bounce_bufs)
			return BLOCKED;
		memcpy(&ref, body + args_end(type, nargs), sizeof(ref));
		ref.index = bidx;
		memcpy(body + args_end(type, nargs), &ref, sizeof(ref));
	}
	if (!reserve(&ring->ctrl->mbox[w.chan], c->geo.mbox_slots, k, &t)) {
		if (bh)
			__atomic_store_n(&bh->busy, 0, __ATOMIC_RELEASE);
		return BLOCKED;
	}
	if (bh)
		memcpy((unsigned char *)bh + PGAS_CACHELINE, body + mlen, w.extra);
	for (unsigned i = 0; i < k; i++) {
		size_t off = (size_t)i * PGAS_SLOT_PAYLOAD;
		size_t m = mlen - off < PGAS_SLOT_PAYLOAD ? mlen - off : PGAS_SLOT_PAYLOAD;
		struct pgas_mbox_slot *s = &ring->mbox[w.chan][(t + i) & mask];

		memcpy(s->payload, body + off, m);
		if (i)
			__atomic_store_n(&s->status, PGAS_STATUS(lap_of(t + i), 0, 0, 0,
								 PGAS_MSG_CONT, 0), __ATOMIC_RELAXED);
	}
	__atomic_store_n(&ring->mbox[w.chan][t & mask].status, w.status | lap_of(t),
			 __ATOMIC_RELEASE);
	ring_bell(ring->ctrl);
	ofi.delivered++;
	return DELIVERED;
}

/* Keeps an arrival for later: a copy, or (past the bound) rx itself. */
static void backlog_add(unsigned char *data, size_t len, struct buf *rx)
{
	struct backlog *b;

	if (ofi.bl_copies < BACKLOG_COPIES && (b = malloc(sizeof(*b) + len))) {
		b->data = (unsigned char *)(b + 1);
		memcpy(b->data, data, len);
		b->held = NULL;
		ofi.bl_copies++;
	} else {
		/* Bounded: the receive buffer itself waits, not reposted, and
		 * the provider holds back what follows. */
		b = malloc(sizeof(*b));
		if (!b)
			pgas__fatal("ofi: out of memory for the backlog");
		b->data = data;
		b->held = rx;
		rx->held = true;
	}
	b->len = len;
	b->next = NULL;
	*ofi.bl_tail = b;
	ofi.bl_tail = &b->next;
	ofi.backlogged++;
}

/* Delivers what the backlog holds, in order per ring (a barrier flag only
 * once everything before it is delivered). */
static int backlog_drain(struct pgas_conduit *c)
{
	struct backlog **pp = &ofi.bl_head, *b;
	struct { uint32_t eid, chan; } blocked[8];
	unsigned nblocked = 0;
	bool all = true;
	int n = 0;

	while ((b = *pp)) {
		struct wire w;
		bool skip = false;

		memcpy(&w, b->data, sizeof(w));
		if (w.kind != WIRE_AM) {
			skip = !all;	/* flags and notifications: in order */
		} else {
			for (unsigned i = 0; i < nblocked; i++)
				if (blocked[i].eid == w.eid && blocked[i].chan == w.chan)
					skip = true;
		}
		if (skip || deliver(c, b->data, b->len) == BLOCKED) {
			all = false;
			if (w.kind == WIRE_AM && !skip) {
				if (nblocked == 8)
					break;
				blocked[nblocked].eid = w.eid;
				blocked[nblocked++].chan = w.chan;
			}
			pp = &b->next;
			continue;
		}
		*pp = b->next;
		if (ofi.bl_tail == &b->next)
			ofi.bl_tail = pp;
		if (b->held)
			b->held->held = false;	/* reposted below */
		else
			ofi.bl_copies--;
		free(b);
		n++;
	}
	return n;
}

/*
 * Whether an arrival carries the job key (first in its header): any other
 * (a process outside the job that reached the endpoint, a stale peer of an
 * earlier job whose address this one reuses) is counted and dropped before
 * anything else of it is read, so it is neither dispatched nor named a bad
 * message of the job.
 */
static bool from_job(const unsigned char *data, size_t len)
{
	uint64_t key;

	if (len >= sizeof(struct wire)) {
		memcpy(&key, data, sizeof(key));
		if (key == ofi.job_key)
			return true;
	}
	ofi.foreign++;
	return false;
}

static int read_cq(struct pgas_conduit *c)
{
	struct fi_cq_msg_entry e[16];
	int n = 0;

	for (;;) {
		ssize_t got = fi_cq_read(ofi.cq, e, 16);

		if (got == -FI_EAGAIN)
			return n;
		if (got == -FI_EAVAIL) {
			struct fi_cq_err_entry err = { 0 };

			fi_cq_readerr(ofi.cq, &err, 0);
			if (err.op_context &&
			    ((struct ctx_head *)err.op_context)->kind == CTX_RMA) {
				rma_complete(err.op_context, &err);
				continue;
			}
			if (ofi.flushing) {	/* at exit: a peer ended; no exit from atexit */
				ofi.flush_failed = true;
				return n;
			}
			if (live_cq_error(c, &err))
				continue;
			pgas__fatal("ofi: a fabric operation failed: %s (%s)",
				    fi_strerror(err.err),
				    fi_cq_strerror(ofi.cq, err.prov_errno, err.err_data, NULL, 0));
		}
		if (got < 0)
			pgas__fatal("ofi: reading the completion queue: %s", fi_strerror((int)-got));
		for (ssize_t i = 0; i < got; i++) {
			struct ctx_head *h = e[i].op_context;
			struct buf *b = (struct buf *)h;

			if (!h)
				continue;
			if (h->kind == CTX_RMA) {
				rma_complete((struct rma_ctx *)h, NULL);
				n++;
				continue;
			}
			if (b->tx) {
				b->next = ofi.tx_free;
				ofi.tx_free = b;
				continue;
			}
			b->posted = false;
			ofi.rx_down++;
			/* Behind what waits already, or it could pass it. */
			if (!from_job(b->data, e[i].len))
				;	/* dropped unread */
			else if (live_rx(c, b->data, e[i].len))
				n++;
			else if (ofi.bl_head || deliver(c, b->data, e[i].len) == BLOCKED)
				backlog_add(b->data, e[i].len, b);
			else
				n++;
			if (!b->held && post_rx(b))
				pgas__fatal("ofi: posting a receive buffer failed");
		}
		/* A short batch drained the queue: another read would only poll
		 * the provider's sockets again (and its signal pipe) before
		 * the caller handles what came; the next progress reads on. */
		if (got < (ssize_t)(sizeof(e) / sizeof(e[0])))
			return n;
	}
}

/* Ships every proxy's published messages, notifications and barrier
 * flags; false if one was left for lack of a send buffer or queue room. */
static bool ship_all(struct pgas_conduit *c, int *n)
{
	bool all = true;

	for (unsigned i = 0, na = __atomic_load_n(&ofi.nactive, __ATOMIC_ACQUIRE); i < na; i++) {
		struct proxy *p = ofi.active[i];
		bool done = ship_ring(c, p, PGAS_CHAN_REPLY, n) &&
			    ship_ring(c, p, PGAS_CHAN_REQUEST, n) && ship_notify(c, p, n);

		/* A barrier flag after the messages stored before it. */
		if (done && p->eid < c->nranks)
			ship_barrier(c, p, n);
		all &= done;
	}
	return all;
}

/* ofi_progress with the domain's lock held. */
static int progress_locked(struct pgas_conduit *c)
{
	int n = 0;

	live.now = live_clock();
	if (ofi.bl_head)
		n += backlog_drain(c);
	repost_rx();
	/*
	 * Ship first: a message published since the last progress (a request
	 * just sent, the reply a handler just made) goes out before the CQ
	 * read, which costs a poll of the provider's sockets.  Again after it
	 * only when a send buffer was missing (its completion frees one).
	 */
	if (!ship_all(c, &n)) {
		n += read_cq(c);
		ship_all(c, &n);
	} else {
		n += read_cq(c);
	}
	/* Writes posted since the last flush: a read behind them. */
	if (ofi.wr_open)
		flush_all();
	if (ofi.bl_head)
		n += backlog_drain(c);
	live_tick(c);
	return n;
}

static int ofi_progress(struct pgas_conduit *c)
{
	int n;

	if (pthread_mutex_trylock(&ofi.lock))
		return 0;	/* another thread moves them */
	n = progress_locked(c);
	pthread_mutex_unlock(&ofi.lock);
	return n;
}

/* ---- endpoints: shm's, with proxies for the remote ones ------------------------- */

static int ofi_ep_resolve(struct pgas_conduit *c, unsigned eid, struct pgas_conduit_xep *x,
			  char *msg, size_t msglen)
{
	struct proxy *p;
	unsigned k = c->max_eids / c->nranks - 1, owner;
	int rc;

	if (eid < c->nranks || eid >= c->max_eids || !k) {
		snprintf(msg, msglen, "endpoint %u out of range", eid);
		return PGAS_ERR_NOT_READY;
	}
	owner = (eid - c->nranks) / k;	/* shm's numbering: slot s of rank r's slab */
	if (!pgas_boot_same_host(owner)) {
		/* Another host's: nothing here says whether it lives (the core
		 * asked its owner first, ep.c); a proxy stands in for it. */
		x->eid = eid;
		x->owner = owner;
		x->map = NULL;
		x->fd = -1;
	} else {
		rc = pgas_shm_ops.ep_resolve(c, eid, x, msg, msglen);
		if (rc || !ofi.remote[x->owner])
			return rc;
	}
	p = proxy_for(c, eid, x->owner);
	if (!p) {
		snprintf(msg, msglen, "out of memory for a proxy ring");
		return PGAS_ERR_NOMEM;
	}
	x->ring = p->ring;
	return PGAS_OK;
}

static bool ofi_ep_closed(struct pgas_conduit *c, const struct pgas_conduit_xep *x)
{
	struct pgas_conduit_xep real;
	char msg[64];

	if (!ofi.remote[x->owner])
		return pgas_shm_ops.ep_closed(c, x);
	if (!pgas_boot_same_host(x->owner))
		return false;	/* its owner's slab is on its host: the core asks the owner */
	/* Its owner's slab says (one host; a multi-host job asks its owner). */
	return pgas_shm_ops.ep_resolve(c, x->eid, &real, msg, sizeof(msg)) == PGAS_ERR_GONE;
}

static int ofi_ep_open(struct pgas_conduit *c, struct pgas_conduit_xep *x, char *msg,
		       size_t msglen)
{
	return pgas_shm_ops.ep_open(c, x, msg, msglen);
}

static void ofi_ep_close(struct pgas_conduit *c, struct pgas_conduit_xep *x)
{
	pgas_shm_ops.ep_close(c, x);
}

static void ofi_ep_unmap(struct pgas_conduit *c, struct pgas_conduit_xep *x)
{
	pgas_shm_ops.ep_unmap(c, x);
}

/* shm's region, registered for the fabric (where that fails, RMA to it
 * stays on AM: the others see no key). */
static int ofi_region(struct pgas_conduit *c, void *addr, size_t len,
		      struct pgas_conduit_region *out, char *msg, size_t msglen)
{
	int rc = pgas_shm_ops.region(c, addr, len, out, msg, msglen);

	if (rc)
		return rc;
	if (len && (ofi.rma_on || ofi.amo_on) &&
	    mr_reg(addr, len, MR_RMA, &ofi.reg_mr))
		ofi.reg_mr = NULL;
	ofi.reg_local = ofi.reg_mr ? addr : NULL;
	ofi.reg_len = ofi.reg_mr ? len : 0;
	return exchange_keys(c, 1, addr, len, ofi.reg_mr, msg, msglen);
}

/* ---- RMA over the fabric (ops->rma) ------------------------------------------- */

/* The key that covers rank's [remote, +n), or NULL. */
static const struct rkey *rkey_of(unsigned rank, uint64_t remote, size_t n)
{
	for (unsigned i = 0; i < 2; i++) {
		const struct rkey *k = &ofi.rk[2 * rank + i];
		uint64_t off = remote - k->addr;

		if (k->size && off <= k->size && n <= k->size - off)
			return k;
	}
	return NULL;
}

static bool ofi_rma_reach(struct pgas_conduit *c, unsigned rank, uint64_t remote, size_t n)
{
	return ofi.rma_on && ofi.rctx && rank < c->nranks && ofi.remote[rank] &&
	       rkey_of(rank, remote, n);
}

static bool inside(const void *base, size_t size, const void *p, size_t n)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)base;

	return base && off <= size && n <= size - off;
}

/* A local buffer's desc where registered memory holds it: true with *desc. */
static bool local_desc(const struct pgas_conduit *c, const void *p, size_t n, void **desc)
{
	const struct pgas_conduit_ep *me = &c->eps[c->rank];

	if (ofi.seg_mr && inside(me->seg, me->seg_size, p, n))
		*desc = fi_mr_desc(ofi.seg_mr);
	else if (ofi.reg_mr && inside(ofi.reg_local, ofi.reg_len, p, n))
		*desc = fi_mr_desc(ofi.reg_mr);
	else
		return false;
	return true;
}

/* Gives x's bounce buffer back (x itself stays where it is). */
static void bounce_free(struct rma_ctx *x)
{
	for (unsigned i = 0; x->bounce && i < NBOUNCE; i++)
		if (!ofi.bounce[i]) {
			ofi.bounce[i] = x->bounce;
			break;
		}
	x->bounce = NULL;
}

/* A completed operation's context back on its endpoint's free list. */
static void rma_free(struct rma_ctx *x)
{
	struct rma_ctx **freep = x->fep ? &x->fep->free : &ofi.rctx_free;

	bounce_free(x);
	x->next = *freep;
	*freep = x;
}

/* x, the free list's first, was posted: off the list, with what its
 * completion needs (the lock held). */
static void ctx_posted(struct rma_ctx *x, void *core, void *local, size_t n, unsigned rank,
		       bool get, unsigned char amo)
{
	struct rma_ctx **freep = x->fep ? &x->fep->free : &ofi.rctx_free;

	*freep = x->next;
	x->seq = 0;
	x->dc = false;
	x->core = core;
	x->local = local;
	x->n = n;
	x->rank = rank;
	x->get = get;
	x->amo = amo;
}

/* A completion error that says the peer's end went away. */
static bool rma_peer_lost(int err)
{
	return err == FI_ECANCELED || err == FI_ENOTCONN || err == FI_ECONNRESET ||
	       err == FI_ECONNREFUSED || err == FI_ECONNABORTED || err == FI_EHOSTUNREACH ||
	       err == FI_ETIMEDOUT;
}

/* x's end with rc: a get's copy out, the core's completion. */
static void rma_end(struct rma_ctx *x, int rc)
{
	void *core = x->core;

	if (!rc && x->copy)
		memcpy(x->local, x->copy, x->n);	/* a get through inl or a bounce buffer */
	if (x->amo) {
		uint64_t old = 0;
		uint32_t o32;

		if (x->amo == 4) {
			memcpy(&o32, x->inl + 16, 4);
			old = o32;
		} else {
			memcpy(&old, x->inl + 16, 8);
		}
		rma_free(x);
		ofi.c->amo_done(core, rc, old);
		return;
	}
	if (x->seq)
		ofi.wr_open--;
	if (x->dc)
		ofi.wr[x->rank].dc--;
	if (x->fep)
		x->fep->st.done++;
	else
		ofi.rma_done++;
	rma_free(x);
	ofi.c->rma_done(core, rc);
}

/* The rc of a failed operation to rank (err: its completion's error). */
static int rma_error(struct fid_cq *cq, unsigned rank, const char *what, bool read, size_t n,
		     const struct fi_cq_err_entry *err)
{
	/* The call's error names the rank; the provider's reason here. */
	int rc = err->err == FI_EACCES || err->err == FI_EINVAL ? PGAS_ERR_BOUNDS : PGAS_ERR_SYS;

	/* The connection to it is gone (a SIGKILLed peer's socket is
	 * refused at once): the peer is, as for a failed send. */
	if (rma_peer_lost(err->err)) {
		live_lost(ofi.c, rank, read ? "a fabric read from it failed" :
			  "a fabric write to it failed", err->err);
		rc = PGAS_ERR_GONE;
	}
	if (pgas__cfg.error_mode != 1)	/* PGAS_ERROR_MODE=quiet */
		fprintf(stderr, "pgas[%u]: ofi: %s of %zu bytes to rank %u failed: %s (%s)\n",
			ofi.c->rank, what, n, rank, fi_strerror(err->err),
			fi_cq_strerror(cq, err->prov_errno, err->err_data, NULL, 0));
	return rc;
}

/* Ends rank's held writes that a flush is behind (all of them with rc). */
static void flush_end_writes(struct wrank *w, int rc)
{
	for (struct rma_ctx **pp = &w->sent, *x; (x = *pp);) {
		if (rc || x->seq <= w->delivered) {
			*pp = x->next;
			rma_end(x, rc);
		} else {
			pp = &x->next;
		}
	}
}

/* Posts rank's flush read, behind every write posted to it so far, unless
 * one is in flight (the lock held); -FI_EAGAIN: the next progress does. */
static void flush_post(unsigned rank)
{
	struct wrank *w = &ofi.wr[rank];
	struct rma_ctx *f = &ofi.rctx[NRMA + rank];
	const struct rkey *k = ofi.rk[2 * rank].size >= 8 ? &ofi.rk[2 * rank] : &ofi.rk[2 * rank + 1];
	void *desc = ofi.rctx_mr ? fi_mr_desc(ofi.rctx_mr) : NULL;
	struct iovec iov = { f->inl, 8 };
	struct fi_rma_iov riov = { k->base, 8, k->key };
	struct fi_msg_rma m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
				.addr = ofi.addr[rank], .rma_iov = &riov, .rma_iov_count = 1,
				.context = &f->h.ctx };
	ssize_t rc;

	if (w->flushing || w->failed || w->posted == w->covered)
		return;
	rc = fi_readmsg(ofi.ep, &m, FI_COMPLETION);
	if (rc == -FI_EAGAIN)
		return;
	if (rc) {
		if (pgas__cfg.error_mode != 1)
			fprintf(stderr, "pgas[%u]: ofi: the read behind writes to rank %u: "
				"fi_readmsg: %s\n", ofi.c->rank, rank, fi_strerror((int)-rc));
		w->failed = PGAS_ERR_SYS;
		flush_end_writes(w, w->failed);
		return;
	}
	w->flushing = true;
	f->seq = w->covered = w->posted;
	ofi.rma_flushes++;
}

/* Every rank's flush where writes wait for one (the lock held). */
static void flush_all(void)
{
	for (unsigned r = 0; ofi.wr_open && r < ofi.c->nranks; r++)
		if (ofi.wr[r].posted != ofi.wr[r].covered)
			flush_post(r);
}

/* A flush read's completion: the writes before it are at the target. */
static void flush_done(struct rma_ctx *f, const struct fi_cq_err_entry *err)
{
	struct wrank *w = &ofi.wr[f->rank];
	int rc = PGAS_OK;

	w->flushing = false;
	if (err)
		rc = w->failed = rma_error(ofi.cq, f->rank, "fi_read (behind writes)", true, 8,
						   err);
	else
		w->delivered = f->seq;
	flush_end_writes(w, rc);
	flush_post(f->rank);	/* writes posted since */
}

/* From read_cq (the lock held): x's completion, or its error entry. */
static void rma_complete(struct rma_ctx *x, const struct fi_cq_err_entry *err)
{
	int rc = PGAS_OK;

	if (x->flush) {
		flush_done(x, err);
		return;
	}
	if (err) {
		rc = rma_error(x->fep ? x->fep->cq : ofi.cq, x->rank,
			       x->amo ? "fi_atomic" : x->get ? "fi_read" : "fi_write", x->get, x->n,
			       err);
	} else if (x->seq) {
		/* A flushed write: done once a flush is behind it. */
		struct wrank *w = &ofi.wr[x->rank];

		rc = w->failed;
		if (!rc && x->seq > w->delivered) {
			x->next = w->sent;
			w->sent = x;
			return;
		}
	}
	rma_end(x, rc);
}

static int fep_read(struct fep *f);

/* Operations of f posted and not completed (its lock held where it has one). */
static unsigned long fep_in_flight(const struct fep *f)
{
	return f->st.writes + f->st.reads - f->st.done;
}

/*
 * f could not post (failed: a post's error, else its queue full) with
 * nothing of its own in flight, so its connection is not coming up: it
 * gives up at once on an error, else after PGAS_OFI_TIMEOUT (30 s if 0) of
 * full queues, the time a silent peer gets (a target that cannot accept the
 * connection would leave the caller retrying forever; a target computing
 * without progress only delays it), and the endpoint's RMA goes on the shared fabric endpoint
 * from then on, as where none was opened.  1: given up.
 */
static int fep_give_up(struct fep *f, int failed)
{
	long long now;

	if (fep_in_flight(f)) {
		f->stuck_since = 0;
		return 0;
	}
	now = live_clock();
	if (!failed && !f->stuck_since)
		f->stuck_since = now;
	/* After one gave up, a stuck one gives up at once: the limit that
	 * stopped the first stops the others. */
	if (!failed && now - f->stuck_since < (live.timeout ? live.timeout : 30000) &&
	    !__atomic_load_n(&ofi.fep_broken, __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&ofi.fep_broken, true, __ATOMIC_RELAXED);
	__atomic_store_n(&f->given_up, true, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ofi.fep_given_up, 1, __ATOMIC_RELAXED);
	if (pgas__cfg.verbose_env)
		fprintf(stderr, "pgas[%u]: ofi conduit: an endpoint's own fabric endpoint "
			"could not reach a target (%s); its RMA goes on the shared one\n",
			ofi.c->rank, failed ? "its post failed" : "no connection within PGAS_OFI_TIMEOUT");
	return 1;
}

/*
 * ops->rma: one fi_writemsg/fi_readmsg of up to n bytes (docs/ofi.md), on
 * fep's fabric endpoint (its contexts, its lock only where threads share
 * it) or the shared one (the conduit's lock).
 */
static ssize_t ofi_rma(struct pgas_conduit *c, void *fep, int get, unsigned rank,
		       uint64_t remote, void *local, size_t n, void *core, char *msg,
		       size_t msglen)
{
	struct fep *f = fep && !__atomic_load_n(&((struct fep *)fep)->given_up, __ATOMIC_RELAXED) ?
			fep : NULL;
	pthread_mutex_t *lock = !f ? &ofi.lock : f->shared ? &f->lock : NULL;
	struct rma_stats *st = f ? &f->st : NULL;
	size_t len = n < ofi.rma_max ? n : ofi.rma_max;
	const struct rkey *k = ofi_rma_reach(c, rank, remote, len) ? rkey_of(rank, remote, len)
								   : NULL;
	void *desc = NULL, *buf = local;
	struct rma_ctx *x;
	struct iovec iov;
	struct fi_rma_iov riov;
	struct fi_msg_rma m;
	bool dc = true;
	ssize_t rc;

	if (!k) {
		snprintf(msg, msglen, "no memory registered by rank %u covers it", rank);
		return PGAS_ERR_BOUNDS;
	}
	if (live_gone(rank)) {	/* its queue may never drain */
		snprintf(msg, msglen, "rank %u is gone (docs/ofi.md, \"Failure\")", rank);
		return PGAS_ERR_GONE;
	}
	if (lock)
		pthread_mutex_lock(lock);
	x = f ? f->free : ofi.rctx_free;
	if (!x)
		goto full;
	x->copy = NULL;
	if (ofi.mr_local && local_desc(c, local, len, &desc)) {
		/* in place (a fabric endpoint of its own has no FI_MR_LOCAL) */
	} else if (len <= RMA_INLINE) {
		/* Copied: a by-value put's source is its caller's stack. */
		buf = x->inl;
		desc = ofi.rctx_mr ? fi_mr_desc(ofi.rctx_mr) : NULL;
	} else if (ofi.mr_local) {
		for (unsigned i = 0; i < NBOUNCE && !x->bounce; i++) {
			x->bounce = ofi.bounce[i];
			ofi.bounce[i] = NULL;
		}
		if (!x->bounce)
			goto full;
		len = len < BOUNCE_SIZE ? len : BOUNCE_SIZE;
		buf = x->bounce;
		desc = fi_mr_desc(ofi.bounce_mr);
		ofi.rma_bounced++;
	}
	if (buf != local) {
		if (get)
			x->copy = buf;
		else
			memcpy(buf, local, len);
	}
	iov = (struct iovec){ buf, len };
	riov = (struct fi_rma_iov){ k->base + (remote - k->addr), len, k->key };
	m = (struct fi_msg_rma){ .msg_iov = &iov, .desc = &desc, .iov_count = 1,
				 .addr = ofi.addr[rank], .rma_iov = &riov, .rma_iov_count = 1,
				 .context = &x->h.ctx };
	/*
	 * Flushed writes (the shared endpoint only: a read on it is not
	 * ordered behind another endpoint's writes): the first write to a
	 * rank with none in flight still goes delivery complete, so that a
	 * lone (blocking) put costs one round trip, as before; a write and a
	 * read behind it took a blocking put of 8 bytes 4x as long
	 * (84 against 17 us in the bed).
	 */
	if (!get && !f && ofi.flushed) {
		const struct wrank *w = &ofi.wr[rank];

		dc = !w->dc && w->posted == w->delivered && !w->flushing &&
		     pgas__cfg.ofi_rma != 4;	/* flush: every write flushed (tests) */
	}
	rc = get ? fi_readmsg(f ? f->ep : ofi.ep, &m, FI_COMPLETION)
		 : fi_writemsg(f ? f->ep : ofi.ep, &m,
			       FI_COMPLETION | (dc ? ofi.write_flags : 0));
	/* x is taken off the free list only once posted. */
	if (rc == -FI_EAGAIN) {
		bounce_free(x);
		goto full;
	}
	if (rc && f && fep_give_up(f, 1)) {
		/* Its own connection failed (EMFILE, say): the shared one. */
		bounce_free(x);
		if (lock)
			pthread_mutex_unlock(lock);
		return ofi_rma(c, NULL, get, rank, remote, local, n, core, msg, msglen);
	}
	if (rc) {
		bounce_free(x);
		if (lock)
			pthread_mutex_unlock(lock);
		snprintf(msg, msglen, "%s: %s (provider %s)", get ? "fi_readmsg" : "fi_writemsg",
			 fi_strerror((int)-rc), ofi.info->fabric_attr->prov_name);
		return PGAS_ERR_SYS;
	}
	ctx_posted(x, core, local, len, rank, get, 0);
	if (st) {
		f->stuck_since = 0;
		st->writes += !get;
		st->reads += !!get;
		st->bytes += len;
	} else {
		ofi.rma_writes += !get;
		ofi.rma_reads += !!get;
		ofi.rma_bytes += len;
		if (!get && ofi.flushed) {
			struct wrank *w = &ofi.wr[rank];

			if (dc) {
				x->dc = true;
				w->dc++;
			} else {
				x->seq = ++w->posted;
				ofi.wr_open++;
			}
			/* A long stream without progress: a flush midway, so
			 * that contexts come back before they run out. */
			if (w->posted - w->covered >= NRMA / 2)
				flush_post(rank);
		}
	}
	if (lock)
		pthread_mutex_unlock(lock);
	return (ssize_t)len;
full:
	/* No context, bounce buffer or queue entry: completions make room. */
	if (st) {
		st->eagain++;
		fep_read(f);
		if (fep_give_up(f, 0)) {
			if (lock)
				pthread_mutex_unlock(lock);
			return ofi_rma(c, NULL, get, rank, remote, local, n, core, msg, msglen);
		}
	} else {
		ofi.rma_eagain++;
		read_cq(c);
		flush_all();
	}
	if (lock)
		pthread_mutex_unlock(lock);
	return 0;
}

/* ---- fabric endpoints of extra endpoints (ops->fep_*) -------------------------- */

/* f's completions (its lock held where it has one): how many. */
static int fep_read(struct fep *f)
{
	struct fi_cq_msg_entry e[16];
	int n = 0;

	for (;;) {
		ssize_t got = fi_cq_read(f->cq, e, 16);

		if (got == -FI_EAGAIN)
			return n;
		if (got == -FI_EAVAIL) {
			struct fi_cq_err_entry err = { 0 };

			fi_cq_readerr(f->cq, &err, 0);
			if (err.op_context &&
			    ((struct ctx_head *)err.op_context)->kind == CTX_RMA) {
				rma_complete(err.op_context, &err);
				n++;
				continue;
			}
			pgas__fatal("ofi: an endpoint's own fabric operation failed: %s (%s)",
				    fi_strerror(err.err),
				    fi_cq_strerror(f->cq, err.prov_errno, err.err_data, NULL, 0));
		}
		if (got < 0)
			pgas__fatal("ofi: reading an endpoint's own completion queue: %s",
				    fi_strerror((int)-got));
		for (ssize_t i = 0; i < got; i++)
			if (e[i].op_context) {
				rma_complete(e[i].op_context, NULL);
				n++;
			}
		if (got < (ssize_t)(sizeof(e) / sizeof(e[0])))
			return n;
	}
}

static int ofi_fep_progress(struct pgas_conduit *c, void *fep)
{
	struct fep *f = fep;
	int n;

	(void)c;
	/* Nothing in flight, nothing to read: an idle endpoint's CQ read
	 * would drive the provider (system calls) on every wait step. */
	if (!f->shared)
		return fep_in_flight(f) ? fep_read(f) : 0;
	if (pthread_mutex_trylock(&f->lock))
		return 0;	/* another thread reads it */
	n = fep_in_flight(f) ? fep_read(f) : 0;
	pthread_mutex_unlock(&f->lock);
	return n;
}

static void fep_free(struct fep *f)
{
	if (f->ep)
		fi_close(&f->ep->fid);
	if (f->cq)
		fi_close(&f->cq->fid);
	pthread_mutex_destroy(&f->lock);
	free(f->ctx);
	free(f);
}

static void *ofi_fep_open(struct pgas_conduit *c, bool shared, char *msg, size_t msglen)
{
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_MSG, .size = 2 * NRMA_FEP };
	const char *what = NULL;
	struct fep *f;
	int rc;

	(void)c;
	if (ofi.fep_why || ofi.forked || __atomic_load_n(&ofi.fep_broken, __ATOMIC_RELAXED)) {
		snprintf(msg, msglen, "%s", ofi.forked ? "a forked child" :
			 ofi.fep_why ? ofi.fep_why :
			 "an earlier one of this process could not reach a target");
		__atomic_fetch_add(&ofi.fep_refused, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	pthread_mutex_lock(&ofi.lock);
	if (ofi.nfep >= pgas__cfg.ofi_eps) {
		__atomic_fetch_add(&ofi.fep_refused, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&ofi.lock);
		snprintf(msg, msglen, "this process has opened PGAS_OFI_EPS=%u fabric endpoints "
			 "(raise it for more)", pgas__cfg.ofi_eps);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f)
		f->ctx = calloc(NRMA_FEP, sizeof(*f->ctx));
	if (!f || !f->ctx) {
		pthread_mutex_unlock(&ofi.lock);
		free(f);
		snprintf(msg, msglen, "out of memory for a fabric endpoint");
		return NULL;
	}
	pthread_mutex_init(&f->lock, NULL);
	f->shared = shared;
	for (unsigned i = 0; i < NRMA_FEP; i++) {
		f->ctx[i].h.kind = CTX_RMA;
		f->ctx[i].fep = f;
		f->ctx[i].next = f->free;
		f->free = &f->ctx[i];
	}
	/* The caps of the shared one (FI_MSG's receive side unused: nobody
	 * knows its address, so nothing arrives at it). */
	if ((what = "fi_cq_open", rc = fi_cq_open(ofi.domain, &attr, &f->cq, NULL)) ||
	    (what = "fi_endpoint", rc = fi_endpoint(ofi.domain, ofi.info, &f->ep, NULL)) ||
	    (what = "fi_ep_bind", rc = fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV)) ||
	    (rc = fi_ep_bind(f->ep, &ofi.av->fid, 0)) ||
	    (what = "fi_enable", rc = fi_enable(f->ep))) {
		__atomic_fetch_add(&ofi.fep_refused, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&ofi.lock);
		fep_free(f);
		snprintf(msg, msglen, "opening a fabric endpoint (%s): %s", what,
			 fi_strerror(rc < 0 ? -rc : rc));
		return NULL;
	}
	f->next = ofi.feps;
	ofi.feps = f;
	ofi.nfep++;
	ofi.fep_opened++;
	pthread_mutex_unlock(&ofi.lock);
	return f;
}

static void ofi_fep_close(struct pgas_conduit *c, void *fep)
{
	struct fep *f = fep, **at;

	(void)c;
	pthread_mutex_lock(&ofi.lock);
	for (at = &ofi.feps; *at && *at != f; at = &(*at)->next)
		;
	if (*at)
		*at = f->next;
	ofi.nfep--;
	ofi.fep_closed.writes += f->st.writes;
	ofi.fep_closed.reads += f->st.reads;
	ofi.fep_closed.bytes += f->st.bytes;
	ofi.fep_closed.eagain += f->st.eagain;
	ofi.fep_closed.done += f->st.done;
	pthread_mutex_unlock(&ofi.lock);
	if (!ofi.forked)
		fep_free(f);
}

/* ---- atomics over the fabric (ops->amo) --------------------------------------- */

/*
 * An atomic-domain operation as libfabric's (docs/ofi.md, "Atomics").
 * Integer sums, products and bits go as the unsigned type of the size:
 * two's complement gives the same bits, without a provider's signed
 * overflow; min and max compare in the domain's own type.  get, set,
 * swap and compare-and-swap move and compare bits (unsigned of the size,
 * floats too): a float compare would take -0 for +0 and never match a
 * NaN, where the CPU's compare-and-swap compares bits.  sub is a sum with
 * the negated operand (integers modulo 2^n; IEEE defines x - y as
 * x + (-y)), inc and dec sums with 1 and -1 of the type.
 */
enum { AMO_PLAIN, AMO_FETCH, AMO_COMPARE };
struct amo_map {
	enum fi_datatype dt;
	enum fi_op op;
	int call;		/* AMO_* */
};

static bool amo_map(unsigned dt, unsigned op, struct amo_map *m)
{
	static const enum fi_datatype own[] = {
		[PGAS_DT_I32] = FI_INT32, [PGAS_DT_U32] = FI_UINT32, [PGAS_DT_I64] = FI_INT64,
		[PGAS_DT_U64] = FI_UINT64, [PGAS_DT_FLT] = FI_FLOAT, [PGAS_DT_DBL] = FI_DOUBLE,
	};
	bool fl = dt == PGAS_DT_FLT || dt == PGAS_DT_DBL;
	enum fi_datatype bits = dt == PGAS_DT_I32 || dt == PGAS_DT_U32 || dt == PGAS_DT_FLT ?
				FI_UINT32 : FI_UINT64;
	bool fetch = op & PGAS__AOP_FETCHING;

	if (dt < PGAS_DT_I32 || dt > PGAS_DT_DBL)
		return false;
	*m = (struct amo_map){ fl ? own[dt] : bits, FI_SUM, fetch ? AMO_FETCH : AMO_PLAIN };
	switch (op) {
	case PGAS_AOP_GET: m->dt = bits; m->op = FI_ATOMIC_READ; break;
	case PGAS_AOP_SET: case PGAS_AOP_SWAP: m->dt = bits; m->op = FI_ATOMIC_WRITE; break;
	case PGAS_AOP_CAS: case PGAS_AOP_FCAS:
		*m = (struct amo_map){ bits, FI_CSWAP, AMO_COMPARE };
		break;
	case PGAS_AOP_ADD: case PGAS_AOP_FADD: case PGAS_AOP_SUB: case PGAS_AOP_FSUB:
	case PGAS_AOP_INC: case PGAS_AOP_FINC: case PGAS_AOP_DEC: case PGAS_AOP_FDEC:
		break;
	case PGAS_AOP_MIN: case PGAS_AOP_FMIN: m->dt = own[dt]; m->op = FI_MIN; break;
	case PGAS_AOP_MAX: case PGAS_AOP_FMAX: m->dt = own[dt]; m->op = FI_MAX; break;
	case PGAS_AOP_MULT: case PGAS_AOP_FMULT: m->op = FI_PROD; break;
	case PGAS_AOP_AND: case PGAS_AOP_FAND: m->op = FI_BAND; break;
	case PGAS_AOP_OR: case PGAS_AOP_FOR: m->op = FI_BOR; break;
	case PGAS_AOP_XOR: case PGAS_AOP_FXOR: m->op = FI_BXOR; break;
	default: return false;
	}
	return !(fl && (op & PGAS__AOP_BITWISE));
}

/* Whether the provider does m on this endpoint. */
static bool amo_valid(const struct amo_map *m)
{
	size_t count = 0;
	int rc = m->call == AMO_COMPARE ? fi_compare_atomicvalid(ofi.ep, m->dt, m->op, &count) :
		 m->call == AMO_FETCH ? fi_fetch_atomicvalid(ofi.ep, m->dt, m->op, &count) :
		 fi_atomicvalid(ofi.ep, m->dt, m->op, &count);

	return !rc && count >= 1;
}

/*
 * c->amo_ops: what the provider does (fi_*atomicvalid) where the
 * provider has FI_ATOMIC, PGAS_OFI_ATOMIC=fabric and some rank is reached
 * over the fabric, ANDed over every rank (a domain's choice must be the
 * same everywhere).  Collective: every rank exchanges, also with nothing.
 */
static int amo_setup(struct pgas_conduit *c, char *msg, size_t msglen)
{
	struct amo_ops { uint32_t ops[8]; } mine = { { 0 } }, *all;
	const char *prov = ofi.info->fabric_attr->prov_name ? ofi.info->fabric_attr->prov_name : "";
	/* Not libfabric 1.17's shm provider: with two processes updating
	 * words of one target (u32 and u64 words 64 bytes apart, or two u64
	 * words) its atomics lost and doubled updates and fetched garbage
	 * (selftests/libpgas/atomics, test 1); alone on one word they were
	 * right.  Its domains stay on AM (docs/ofi.md, "Atomics"). */
	bool on = !pgas__cfg.ofi_atomic && (ofi.info->caps & FI_ATOMIC) && c->remote &&
		  strncmp(prov, "shm", 3);
	int rc;

	for (unsigned dt = PGAS_DT_I32; on && dt <= PGAS_DT_DBL; dt++)
		for (unsigned op = 1; op & PGAS__AOP_ALL; op <<= 1) {
			struct amo_map m;

			if (amo_map(dt, op, &m) && amo_valid(&m))
				mine.ops[dt] |= op;
		}
	all = calloc(c->nranks, sizeof(*all));
	if (!all) {
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		return PGAS_ERR_NOMEM;
	}
	rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
	for (unsigned dt = 0; dt < 8; dt++) {
		c->amo_ops[dt] = rc ? 0 : mine.ops[dt];
		for (unsigned r = 0; !rc && r < c->nranks; r++)
			c->amo_ops[dt] &= all[r].ops[dt];
		ofi.amo_on |= c->amo_ops[dt] != 0;
	}
	free(all);
	return rc;
}

/* The operand the fabric's operation takes for op's (see amo_map). */
static uint64_t amo_operand(unsigned dt, unsigned op, uint64_t a)
{
	bool fl = dt == PGAS_DT_FLT || dt == PGAS_DT_DBL, four = dt == PGAS_DT_I32 ||
		  dt == PGAS_DT_U32 || dt == PGAS_DT_FLT;
	uint64_t sign = four ? 1ull << 31 : 1ull << 63;

	switch (op) {
	case PGAS_AOP_SUB: case PGAS_AOP_FSUB:
		return fl ? a ^ sign : 0 - a;	/* the sign bit; two's complement */
	case PGAS_AOP_INC: case PGAS_AOP_FINC:
		return !fl ? 1 : four ? 0x3f800000u : 0x3ff0000000000000ull;	/* 1.0 */
	case PGAS_AOP_DEC: case PGAS_AOP_FDEC:
		return !fl ? ~0ull : four ? 0xbf800000u : 0xbff0000000000000ull;	/* -1.0 */
	default:
		return a;
	}
}

static int ofi_amo(struct pgas_conduit *c, unsigned rank, uint64_t remote, unsigned dt,
		   unsigned op, uint64_t a, uint64_t b, void *core, char *msg, size_t msglen)
{
	size_t size = dt == PGAS_DT_I32 || dt == PGAS_DT_U32 || dt == PGAS_DT_FLT ? 4 : 8;
	const struct rkey *k = rank < c->nranks ? rkey_of(rank, remote, size) : NULL;
	void *desc = NULL;
	struct amo_map m;
	struct rma_ctx *x;
	struct fi_ioc src, cmp, res;
	struct fi_rma_ioc rioc;
	struct fi_msg_atomic am;
	uint64_t v;
	ssize_t rc;

	if (!ofi.amo_on || !ofi.rctx || !(c->amo_ops[dt & 7] & op) || !amo_map(dt, op, &m)) {
		snprintf(msg, msglen, "the fabric does not do PGAS_AOP %#x on type %u", op, dt);
		return PGAS_ERR_INVAL;
	}
	if (!k) {
		snprintf(msg, msglen, "no memory registered by rank %u covers it", rank);
		return PGAS_ERR_BOUNDS;
	}
	if (live_gone(rank)) {
		snprintf(msg, msglen, "rank %u is gone (docs/ofi.md, \"Failure\")", rank);
		return PGAS_ERR_GONE;
	}
	pthread_mutex_lock(&ofi.lock);
	x = ofi.rctx_free;
	if (!x) {
		ofi.rma_eagain++;
		read_cq(c);
		pthread_mutex_unlock(&ofi.lock);
		return 0;
	}
	/* Operand, compare and result in the context: registered memory
	 * under FI_MR_LOCAL. */
	v = m.call == AMO_COMPARE ? b : amo_operand(dt, op, a);
	memcpy(x->inl, &v, 8);
	memcpy(x->inl + 8, &a, 8);
	if (size == 4) {
		uint32_t v32 = (uint32_t)v, a32 = (uint32_t)a;

		memcpy(x->inl, &v32, 4);
		memcpy(x->inl + 8, &a32, 4);
	}
	memset(x->inl + 16, 0, 8);
	desc = ofi.rctx_mr ? fi_mr_desc(ofi.rctx_mr) : NULL;
	src = (struct fi_ioc){ x->inl, 1 };
	cmp = (struct fi_ioc){ x->inl + 8, 1 };
	res = (struct fi_ioc){ x->inl + 16, 1 };
	rioc = (struct fi_rma_ioc){ k->base + (remote - k->addr), 1, k->key };
	am = (struct fi_msg_atomic){ .msg_iov = &src, .desc = &desc, .iov_count = 1,
				     .addr = ofi.addr[rank], .rma_iov = &rioc, .rma_iov_count = 1,
				     .datatype = m.dt, .op = m.op, .context = &x->h.ctx };
	/* A fetching one completes with its value, so done at the target;
	 * the others once done there (delivery complete), as the blocking
	 * call promises. */
	rc = m.call == AMO_COMPARE ? fi_compare_atomicmsg(ofi.ep, &am, &cmp, &desc, 1, &res, &desc,
							   1, FI_COMPLETION) :
	     m.call == AMO_FETCH ? fi_fetch_atomicmsg(ofi.ep, &am, &res, &desc, 1, FI_COMPLETION) :
	     fi_atomicmsg(ofi.ep, &am, FI_COMPLETION | ofi.write_flags);
	if (rc == -FI_EAGAIN) {
		ofi.rma_eagain++;
		read_cq(c);
		pthread_mutex_unlock(&ofi.lock);
		return 0;
	}
	if (rc) {
		pthread_mutex_unlock(&ofi.lock);
		snprintf(msg, msglen, "%s: %s (provider %s)",
			 m.call == AMO_COMPARE ? "fi_compare_atomicmsg" :
			 m.call == AMO_FETCH ? "fi_fetch_atomicmsg" : "fi_atomicmsg",
			 fi_strerror((int)-rc), ofi.info->fabric_attr->prov_name);
		return PGAS_ERR_SYS;
	}
	x->copy = NULL;
	ctx_posted(x, core, NULL, size, rank, m.call != AMO_PLAIN, (unsigned char)size);
	ofi.amo_posted++;
	pthread_mutex_unlock(&ofi.lock);
	return 1;
}

/* After shm's: the flag may live in the registered region (a static
 * OpenSHMEM program's data), shared with the parent until shm makes it
 * private; set before, it told the parent's exit to skip its bye too. */
static void ofi_forked(struct pgas_conduit *c)
{
	pgas_shm_ops.forked(c);
	ofi.forked = true;
	c->sleeps = false;	/* the parent's CQ, eventfd and control page */
}

static int ofi_wait_fd(const struct pgas_conduit *c)
{
	(void)c;
	return -1;	/* futexes on the doorbell, or ofi_sleep's fds (c->sleeps) */
}

static void ofi_wake(struct pgas_conduit *c, unsigned rank)
{
	static const uint64_t one = 1;

	/* A rank whose eventfd this process lacks cannot have announced
	 * PGAS_SLEEPING_CONDUIT on a page this process maps. */
	if (rank < c->nranks && ofi.efd && ofi.efd[rank] >= 0)
		(void)!write(ofi.efd[rank], &one, sizeof(one));	/* EAGAIN: it is set */
}

/*
 * Block mode: sleeps on the CQ's wait fd and this rank's eventfd (the core
 * announced PGAS_SLEEPING_CONDUIT and found its bell unmoved).  libfabric
 * requires fi_trywait before blocking on the fd (it says whether
 * completions are waiting, and rearms the wait object); it and the reads
 * of the proxies need the domain, so a thread that cannot take it (another
 * progresses, and its deliveries write the eventfd) sleeps on the eventfd
 * alone.  Bounded by ts like every sleep (puts ring no bell; liveness).
 */
static int ofi_sleep(struct pgas_conduit *c, const struct timespec *ts)
{
	struct pollfd pfd[2] = { { .fd = ofi.efd[c->rank], .events = POLLIN },
				 { .fd = ofi.cq_fd, .events = POLLIN } };
	nfds_t n = 1;
	uint64_t v;
	int rc;

	if (!pthread_mutex_trylock(&ofi.lock)) {
		/* Twice: what is pending (another thread's message published
		 * into a proxy, completions) is progressed here first, and
		 * what that delivers to me rings my eventfd. */
		for (int k = 0; k < 2 && n == 1; k++) {
			struct fid *f = &ofi.cq->fid;
			bool busy = false;

			/* What progress would do at once: a receive to repost,
			 * a message to ship.  (The backlog waits for room that
			 * its consumers make: the bounded sleep, as before.) */
			for (unsigned i = 0; ofi.rx_down && !busy && i < NRX; i++)
				busy = !ofi.rx[i].posted && !ofi.rx[i].held;
			for (unsigned i = 0, na = __atomic_load_n(&ofi.nactive, __ATOMIC_ACQUIRE);
			     !busy && i < na; i++)
				busy = proxy_pending(ofi.active[i]);
			if (!busy && fi_trywait(ofi.fabric, &f, 1) == FI_SUCCESS)
				n = 2;
			else if (!k)
				progress_locked(c);
		}
		pthread_mutex_unlock(&ofi.lock);
		if (n == 1) {
			ofi.sleep_skipped++;
			return -1;	/* something to progress first */
		}
	}
	rc = ppoll(pfd, n, ts, NULL);
	(void)!read(pfd[0].fd, &v, sizeof(v));	/* nonblocking: clears a wake */
	if (rc > 0)
		ofi.sleep_woken++;
	else
		ofi.sleep_timed++;
	return rc > 0;
}

/*
 * Block mode (PGAS_WAIT_MODE=block only: elsewhere a wait object costs
 * the provider a signal per completion): the CQ with a wait fd where the
 * provider gives one, else as before (naps on the doorbell).
 */
static int cq_open(struct fi_cq_attr *attr)
{
	if (pgas__cfg.wait_mode == PGAS_WAIT_BLOCK && pgas__cfg.ofi_wait_fd) {
		attr->wait_obj = FI_WAIT_FD;
		if (fi_cq_open(ofi.domain, attr, &ofi.cq, NULL) == 0 &&
		    fi_control(&ofi.cq->fid, FI_GETWAIT, &ofi.cq_fd) == 0 && ofi.cq_fd >= 0)
			return 0;
		if (ofi.cq)
			fi_close(&ofi.cq->fid);
		ofi.cq = NULL;
		ofi.cq_fd = -1;
	}
	attr->wait_obj = FI_WAIT_NONE;
	return fi_cq_open(ofi.domain, attr, &ofi.cq, NULL);
}


/*
 * auto: a job whose launcher reports ranks on more than one host (PMIx's
 * hosts; pgasrun's jobs are on one).  On one host shm is the better
 * transport.  Joining the boot layer here is what pgas_init does next
 * anyway (it is idempotent); a join that fails says no, and pgas_init
 * reports its error.
 */
static bool ofi_probe(void)
{
	unsigned rank, nranks;
	char msg[160];

	return pgas_boot_join(&rank, &nranks, msg, sizeof(msg)) == PGAS_OK &&
	       pgas_boot_nhosts() > 1;
}

const struct pgas_conduit_ops pgas_ofi_ops = {
	.name = "ofi",
	.probe = ofi_probe,
	.open = ofi_open,
	.attach = ofi_attach,
	.close = ofi_close,
	.region = ofi_region,
	.forked = ofi_forked,
	.wait_fd = ofi_wait_fd,
	.sleep = ofi_sleep,
	.wake = ofi_wake,
	.ep_open = ofi_ep_open,
	.ep_close = ofi_ep_close,
	.ep_resolve = ofi_ep_resolve,
	.ep_closed = ofi_ep_closed,
	.ep_unmap = ofi_ep_unmap,
	.peer_gone = ofi_peer_gone,
	.progress = ofi_progress,
	.rma_reach = ofi_rma_reach,
	.rma = ofi_rma,
	.amo = ofi_amo,
	.fep_open = ofi_fep_open,
	.fep_close = ofi_fep_close,
	.fep_progress = ofi_fep_progress,
};
