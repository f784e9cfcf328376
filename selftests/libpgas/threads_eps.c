// SPDX-License-Identifier: MIT
/*
 * threads_eps - per-thread communication endpoints (issue 11).
 *
 *   pgasrun -n N threads_eps [-t THREADS] [-i ITERS] [-r ROUNDS] [-s SEED]
 *                            [-c all | CASE[,CASE...]]
 *
 * PGAS_THREAD_MULTIPLE.  Each case is collective and prints one TAP line
 * (tap.h); the seed (random unless -s) is printed first.  Endpoint ids are
 * never reused, so the cases share the rank's PGAS_EP_MAX: the program sets
 * PGAS_EP_MAX=96 in its environment unless it is set (every rank the same).
 *
 * traffic   each of THREADS threads creates an endpoint (in thread order,
 *           so that creation index base + t is thread t's); every rank
 *           learns the others' eids with pgas_ep_lookup while they are
 *           being created (spinning on PGAS_ERR_NOT_READY, 30 s at most).
 *           Thread t of rank r pairs with thread t of rank (r+1)%N (one
 *           rank: thread (t+1)%THREADS of its own), and all threads at once
 *           send ITERS iterations of: an AM Short, a Medium (0, 1, the
 *           inline limit, one past it, half and all of pgas_am_max_medium,
 *           or a random size: inline and bounce buffers), a Long or
 *           LongAsync (random size, checksummed in the target's segment);
 *           each answered from its handler by a reply of its own kind (the
 *           Long's into the requester's segment).  Every handler checks
 *           that it runs in the thread that polls the endpoint the message
 *           was sent to, that pgas_token_ep / pgas_token_rank name the
 *           sender (for a reply: the endpoint the request went to), the
 *           per-pair per-kind sequence (nothing lost, doubled or
 *           reordered) and the payload.  Then RMA into the thread's own
 *           4 KiB area of the partner rank's segment: put, get, put_nbi /
 *           get_nbi with wait/try_syncnbi_{puts,gets,all}, put_nb / get_nb,
 *           put_val / get_val (1, 2, 4, 8 bytes), pgas_ep_quiet; read back
 *           and checked each iteration, and the final contents checked by
 *           the owner after the main thread's barrier.  Each thread polls
 *           only its own endpoint.  Counts compared exactly.
 * progress  the same traffic, but the workers never poll: one dedicated
 *           thread loops pgas_ep_poll over every endpoint (and the primary),
 *           so every handler runs there.
 * churn     THREADS threads per rank create an endpoint, use it (requests
 *           to the next rank's anchor endpoint, whose replies come back to
 *           it) and destroy it, ROUNDS times, while one anchor thread per
 *           rank sends Shorts and Mediums to whichever endpoints of the
 *           next rank are live (found with pgas_ep_count/pgas_ep_lookup).
 *           A send to an endpoint destroyed meanwhile returns 0 (pgas.h: an
 *           inline request may be dropped) or PGAS_ERR_GONE, never another
 *           error or a hang; what each endpoint handled is, per kind, a
 *           prefix of what was sent to it, at least what its thread waited
 *           for and at most what the anchor sent with rc 0.  A destroyed
 *           endpoint's lookup and locate say PGAS_ERR_GONE (the eid kept).
 * misuse    pgas_ep_create before attach (PGAS_ERR_STATE), NULL arguments,
 *           bad flags, destroying the primary (PGAS_ERR_STATE), bad ranks
 *           / indices / eids (PGAS_ERR_RANK), a request to a destroyed
 *           endpoint; requests from a handler (its own case),
 *           and the limit: the rank's last endpoint is created, the one
 *           past PGAS_EP_MAX is PGAS_ERR_RESOURCE.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define MAX_T 16
#define MAX_RANKS 16
#define WINDOW 8		/* iterations a thread may have unanswered */
#define AREA 4096		/* RMA area per writer thread */
#define LINE 64
#define LONG_MAX_B 4096		/* Long slot (per thread and iteration % WINDOW) */
#define MAX_EIDS (MAX_RANKS * 256)
#define LOOKUP_S 30.0		/* how long a lookup may say NOT_READY */
#define WAIT_S 120.0		/* how long any wait of a case may take */

/* Segment layout (after which tap.h's page). */
#define OFF_RMA 0
#define OFF_LREQ (OFF_RMA + (size_t)MAX_T * AREA)
#define OFF_LREP (OFF_LREQ + (size_t)MAX_T * WINDOW * LONG_MAX_B)
#define OFF_CHURN (OFF_LREP + (size_t)MAX_T * WINDOW * LONG_MAX_B)
#define OFF_SEED (OFF_CHURN + (size_t)MAX_EIDS * 8)
#define SEG_BYTES (OFF_SEED + 64)

/* Inside an RMA area: put/get, nbi, nb and value lines. */
#define A_PUT 0
#define A_NBI 1024
#define A_NB 2048
#define A_VAL 3072
#define PART 1024

enum { H_SHORT = 1, H_MED, H_LONG, H_SHORT_REP, H_MED_REP, H_LONG_REP, H_CQ, H_CR, H_CS,
       H_TRY, H_NOP };
enum { K_SHORT, K_MED, K_LONG, NK };

static unsigned me, n, nthreads = 4, iters = 300, rounds = 6;
static uint64_t seed;
static atomic_uint bad;
static atomic_int aborted;	/* a wait timed out: every wait gives up */
static size_t med_max, med_in_req, med_in_rep;

#define FAIL(...) do { fprintf(stderr, "# rank %u: ", me); fprintf(stderr, __VA_ARGS__); \
		       fprintf(stderr, "\n"); atomic_fetch_add(&bad, 1); } while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* False (and the case aborted) once t_end has passed. */
static bool in_time(double t_end, const char *what)
{
	if (atomic_load_explicit(&aborted, memory_order_relaxed))
		return false;
	if (now() > t_end) {
		if (!atomic_exchange(&aborted, 1))
			FAIL("timed out waiting for %s", what);
		return false;
	}
	return true;
}

static uint64_t pseed(unsigned kind, unsigned eid, unsigned seq)
{
	return seed ^ ((uint64_t)kind << 56) ^ ((uint64_t)eid << 32) ^ seq;
}

/* Spins on pgas_ep_lookup while NOT_READY: the eid, or -1 (reported). */
static long lookup_wait(unsigned rank, unsigned idx)
{
	double t_end = now() + LOOKUP_S;
	unsigned eid = ~0u;
	int rc;

	while ((rc = pgas_ep_lookup(rank, idx, &eid)) == PGAS_ERR_NOT_READY) {
		if (now() > t_end) {
			FAIL("pgas_ep_lookup(rank %u, %u) still NOT_READY after %.0f s", rank, idx,
			     LOOKUP_S);
			atomic_store(&aborted, 1);
			return -1;
		}
		sched_yield();
	}
	if (rc) {
		FAIL("pgas_ep_lookup(rank %u, %u): %s", rank, idx, pgas_strerror(rc));
		return -1;
	}
	return eid;
}

/* ---- traffic and progress ------------------------------------------------ */

struct tstate {
	unsigned t;
	pgas_ep_t ep;
	unsigned eid;
	unsigned peer_rank, peer_t, peer_eid;	/* where I send */
	unsigned src_rank, src_t, src_eid;	/* who sends to me */
	uint64_t rng;
	_Atomic unsigned got[NK];	/* requests handled, in order */
	_Atomic unsigned rep[NK];	/* replies received, in order */
	unsigned char lbuf[WINDOW][LONG_MAX_B];	/* Long sources (async: kept) */
} __attribute__((aligned(64)));

static struct tstate *ts;
static _Atomic(pgas_ep_t) ep_pub[MAX_T];	/* for the progress thread */
static _Thread_local struct tstate *tl_ts;	/* the endpoint this thread polls */
static int progress_mode;
static atomic_int progress_stop;
static atomic_uint create_turn;
static unsigned case_base;	/* creation index of thread 0's endpoint */
static unsigned eids[MAX_RANKS][MAX_T];

static size_t med_len(struct tstate *s)
{
	size_t sizes[] = { 0, 1, med_in_req, med_in_req + 1, med_max / 2, med_max };
	unsigned c = (unsigned)(t_rand(&s->rng) % 7);

	return c < 6 ? (sizes[c] > med_max ? med_max : sizes[c])
		     : (size_t)(t_rand(&s->rng) % (med_max + 1));
}

static size_t rep_len(unsigned seq)
{
	size_t sizes[] = { 0, 3, med_in_rep, med_in_rep + 1, med_max };
	size_t l = sizes[seq % 5];

	return l > med_max ? med_max : l;
}

/* A request's checks; its kind's sequence advances. */
static struct tstate *req_check(unsigned kind, pgas_token_t tok, const uint32_t *args,
				unsigned nargs)
{
	struct tstate *s = tl_ts;
	unsigned sep = ~0u, srank = ~0u;

	if (!s) {
		FAIL("kind %u: a handler ran in a thread that polls no test endpoint", kind);
		return NULL;
	}
	if (nargs != 5) {
		FAIL("kind %u: nargs %u", kind, nargs);
		return NULL;
	}
	if (pgas_token_ep(tok, &sep) || pgas_token_rank(tok, &srank))
		FAIL("kind %u: token queries failed: %s", kind, pgas_last_error());
	if (args[1] != s->eid)
		FAIL("kind %u: a request for eid %u ran in the thread polling eid %u", kind, args[1],
		     s->eid);
	if (sep != s->src_eid || srank != s->src_rank || args[2] != sep)
		FAIL("kind %u at eid %u: token says eid %u rank %u (args %u), expected eid %u rank %u",
		     kind, s->eid, sep, srank, args[2], s->src_eid, s->src_rank);
	if (args[0] != atomic_load_explicit(&s->got[kind], memory_order_relaxed))
		FAIL("kind %u at eid %u from %u: seq %u, expected %u", kind, s->eid, sep, args[0],
		     atomic_load(&s->got[kind]));
	atomic_store_explicit(&s->got[kind], args[0] + 1, memory_order_relaxed);
	return s;
}

static struct tstate *rep_check(unsigned kind, pgas_token_t tok, const uint32_t *args,
				unsigned nargs)
{
	struct tstate *s = tl_ts;
	unsigned sep = ~0u, srank = ~0u;

	if (!s) {
		FAIL("reply kind %u ran in a thread that polls no test endpoint", kind);
		return NULL;
	}
	if (nargs != 3) {
		FAIL("reply kind %u: nargs %u", kind, nargs);
		return NULL;
	}
	if (pgas_token_ep(tok, &sep) || pgas_token_rank(tok, &srank))
		FAIL("reply kind %u: token queries failed: %s", kind, pgas_last_error());
	if (args[1] != s->eid)
		FAIL("reply kind %u: the reply to eid %u's request arrived at eid %u", kind, args[1],
		     s->eid);
	if (sep != s->peer_eid || srank != s->peer_rank)
		FAIL("reply kind %u at eid %u: token says eid %u rank %u, expected eid %u rank %u",
		     kind, s->eid, sep, srank, s->peer_eid, s->peer_rank);
	if (args[0] != atomic_load_explicit(&s->rep[kind], memory_order_relaxed))
		FAIL("reply kind %u at eid %u: seq %u, expected %u", kind, s->eid, args[0],
		     atomic_load(&s->rep[kind]));
	return s;
}

/* The end of a reply's handler: its slot may be used again (in the progress
 * case the worker, another thread, waits for this). */
static void rep_done(struct tstate *s, unsigned kind, const uint32_t *args)
{
	if (s)
		atomic_store_explicit(&s->rep[kind], args[0] + 1, memory_order_release);
}

static void h_short(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	struct tstate *s = req_check(K_SHORT, tok, args, nargs);
	uint32_t r[3];

	(void)buf;
	if (!s)
		return;
	if (nb || args[4] != (args[0] * 7919u ^ args[2]))
		FAIL("short at eid %u: nb %zu, fifth argument %u", s->eid, nb, args[4]);
	r[0] = args[0];
	r[1] = args[2];
	r[2] = 0;
	if (pgas_am_reply_short(tok, H_SHORT_REP, r, 3))
		FAIL("reply_short: %s", pgas_last_error());
}

static void h_med(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	struct tstate *s = req_check(K_MED, tok, args, nargs);
	unsigned char rbuf[65536];
	uint32_t r[3];
	size_t rl;

	if (!s)
		return;
	if (nb != args[3] || t_verify(buf, nb, pseed(K_MED, args[2], args[0])) != nb)
		FAIL("medium at eid %u seq %u: %zu bytes (sent %u), corrupt", s->eid, args[0], nb,
		     args[3]);
	rl = rep_len(args[0]);
	if (rl > sizeof(rbuf))
		rl = sizeof(rbuf);
	t_fill(rbuf, rl, pseed(K_MED + 8, args[2], args[0]));
	r[0] = args[0];
	r[1] = args[2];
	r[2] = (uint32_t)rl;
	if (pgas_am_reply_medium(tok, H_MED_REP, rbuf, rl, r, 3))
		FAIL("reply_medium: %s", pgas_last_error());
}

/* args[3]: length, args[4]: the requester's thread (its reply slot). */
static void h_long(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	struct tstate *s = req_check(K_LONG, tok, args, nargs);
	unsigned char rbuf[LONG_MAX_B];
	char *dst;
	uint32_t r[3];
	size_t rl;

	if (!s)
		return;
	if (nb != args[3] || t_verify(buf, nb, pseed(K_LONG, args[2], args[0])) != nb)
		FAIL("long at eid %u seq %u: %zu bytes (sent %u), corrupt", s->eid, args[0], nb,
		     args[3]);
	if (args[4] >= MAX_T) {
		FAIL("long: requester thread %u", args[4]);
		return;
	}
	rl = (args[0] * 131u) % LONG_MAX_B;
	t_fill(rbuf, rl, pseed(K_LONG + 8, args[2], args[0]));
	dst = (char *)pgas_segment_addr(s->src_rank) + OFF_LREP +
	      ((size_t)args[4] * WINDOW + args[0] % WINDOW) * LONG_MAX_B;
	r[0] = args[0];
	r[1] = args[2];
	r[2] = (uint32_t)rl;
	if (pgas_am_reply_long(tok, H_LONG_REP, rbuf, rl, dst, r, 3))
		FAIL("reply_long: %s", pgas_last_error());
}

static void h_short_rep(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
			unsigned nargs)
{
	(void)buf; (void)nb;
	rep_done(rep_check(K_SHORT, tok, args, nargs), K_SHORT, args);
}

static void h_med_rep(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
		      unsigned nargs)
{
	struct tstate *s = rep_check(K_MED, tok, args, nargs);

	if (s && (nb != args[2] || t_verify(buf, nb, pseed(K_MED + 8, s->eid, args[0])) != nb))
		FAIL("medium reply at eid %u seq %u: %zu bytes (sent %u), corrupt", s->eid, args[0],
		     nb, args[2]);
	rep_done(s, K_MED, args);
}

static void h_long_rep(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
		       unsigned nargs)
{
	struct tstate *s = rep_check(K_LONG, tok, args, nargs);
	char *want;

	if (!s)
		return;
	want = (char *)pgas_segment_addr(me) + OFF_LREP +
	       ((size_t)s->t * WINDOW + args[0] % WINDOW) * LONG_MAX_B;
	if (nb != args[2] || (nb && buf != want) ||
	    t_verify(buf, nb, pseed(K_LONG + 8, s->eid, args[0])) != nb)
		FAIL("long reply at eid %u seq %u: %zu bytes at %p (sent %u to %p), corrupt", s->eid,
		     args[0], nb, buf, args[2], (void *)want);
	rep_done(s, K_LONG, args);
}

/* One step of a worker's wait: poll my endpoint (not in progress mode). */
static void step(struct tstate *s)
{
	if (progress_mode) {
		sched_yield();
		return;
	}
	int rc = pgas_ep_poll(s->ep);

	if (rc < 0)
		FAIL("pgas_ep_poll(eid %u): %s", s->eid, pgas_strerror(rc));
}

static bool replied(struct tstate *s, unsigned want)
{
	for (int k = 0; k < NK; k++)
		if (atomic_load_explicit(&s->rep[k], memory_order_acquire) < want)
			return false;
	return true;
}

static bool handled(struct tstate *s, unsigned want)
{
	for (int k = 0; k < NK; k++)
		if (atomic_load_explicit(&s->got[k], memory_order_relaxed) < want)
			return false;
	return true;
}

/* The RMA pattern of (writer eid, iteration) in an area. */
static void rma_pattern(unsigned char *buf, unsigned part, unsigned weid, unsigned i)
{
	t_fill(buf, PART, pseed(16 + part, weid, i));
}

static uint64_t val_of(unsigned weid, unsigned i, unsigned k)
{
	uint64_t v = pseed(32 + k, weid, i) * 0x9E3779B97F4A7C15ull;
	unsigned bytes = 1u << k;

	return bytes == 8 ? v : v & ((1ull << (8 * bytes)) - 1);
}

static void rma_iteration(struct tstate *s, unsigned i)
{
	char *area = (char *)pgas_segment_addr(s->peer_rank) + OFF_RMA + (size_t)s->t * AREA;
	unsigned char src[PART], back[PART], back2[PART];
	pgas_handle_t h;
	unsigned r = s->peer_rank;
	int rc = 0;

	/* Blocking put, read back. */
	rma_pattern(src, 0, s->eid, i);
	rc |= pgas_ep_put(s->ep, r, area + A_PUT, src, PART);
	memset(back, 0, PART);
	rc |= pgas_ep_get(s->ep, back, r, area + A_PUT, PART);
	if (rc || memcmp(back, src, PART))
		FAIL("eid %u iteration %u: put/get: rc %d, data %s", s->eid, i, rc,
		     memcmp(back, src, PART) ? "wrong" : "right");
	/* nbi puts in four pieces (lines apart), a get_nbi of the put part. */
	rma_pattern(src, 1, s->eid, i);
	for (unsigned q = 0; q < 4; q++)
		rc |= pgas_ep_put_nbi(s->ep, r, area + A_NBI + q * (PART / 4), src + q * (PART / 4),
				      PART / 4);
	memset(back, 0, PART);
	rc |= pgas_ep_get_nbi(s->ep, back, r, area + A_PUT, PART);
	rc |= pgas_ep_wait_syncnbi_puts(s->ep);
	memset(back2, 0, PART);
	rc |= pgas_ep_get_nbi(s->ep, back2, r, area + A_NBI, PART);
	for (int tries = 0; pgas_ep_try_syncnbi_gets(s->ep) == PGAS_ERR_NOT_READY && tries < 1000;
	     tries++)
		;
	rc |= pgas_ep_wait_syncnbi_all(s->ep);
	if (pgas_ep_try_syncnbi_all(s->ep) || pgas_ep_try_syncnbi_puts(s->ep))
		FAIL("eid %u: try_syncnbi after wait_syncnbi_all not 0", s->eid);
	rma_pattern(src, 0, s->eid, i);
	if (rc || memcmp(back, src, PART))
		FAIL("eid %u iteration %u: get_nbi of the put lines: rc %d, data wrong", s->eid, i, rc);
	rma_pattern(src, 1, s->eid, i);
	if (memcmp(back2, src, PART))
		FAIL("eid %u iteration %u: put_nbi/get_nbi: data wrong", s->eid, i);
	/* Explicit handles. */
	rma_pattern(src, 2, s->eid, i);
	rc = pgas_ep_put_nb(s->ep, &h, r, area + A_NB, src, PART);
	rc |= pgas_wait_syncnb(h);
	memset(back, 0, PART);
	rc |= pgas_ep_get_nb(s->ep, &h, back, r, area + A_NB, PART);
	rc |= pgas_wait_syncnb(h);
	if (rc || memcmp(back, src, PART))
		FAIL("eid %u iteration %u: put_nb/get_nb: rc %d, data wrong", s->eid, i, rc);
	/* Values of 1, 2, 4, 8 bytes, each on a line of its own. */
	for (unsigned k = 0; k < 4; k++) {
		uint64_t v = ~0ull;

		rc = pgas_ep_put_val(s->ep, r, area + A_VAL + k * LINE, val_of(s->eid, i, k), 1u << k);
		rc |= pgas_ep_get_val(s->ep, &v, r, area + A_VAL + k * LINE, 1u << k);
		if (rc || v != val_of(s->eid, i, k))
			FAIL("eid %u iteration %u: put_val/get_val of %u bytes: rc %d, %llx != %llx",
			     s->eid, i, 1u << k, rc, (unsigned long long)v,
			     (unsigned long long)val_of(s->eid, i, k));
	}
	if (pgas_ep_quiet(s->ep))
		FAIL("pgas_ep_quiet: %s", pgas_last_error());
}

static void *worker(void *arg)
{
	struct tstate *s = arg;
	unsigned char *med = malloc(med_max + 1);
	double t_end;
	long e;
	int rc;

	tl_ts = s;
	/* Create in thread order: creation index case_base + t. */
	while (atomic_load(&create_turn) != s->t)
		sched_yield();
	rc = pgas_ep_create(&s->ep, 0);
	if (!rc)
		s->eid = pgas_ep_index(s->ep);
	atomic_store(&create_turn, s->t + 1);
	if (rc) {
		FAIL("pgas_ep_create in thread %u: %s", s->t, pgas_strerror(rc));
		atomic_store(&aborted, 1);
		free(med);
		return NULL;
	}
	/* Learn my partner's and my source's eids while they are created
	 * (what arrives meanwhile waits in my rings). */
	e = lookup_wait(s->peer_rank, case_base + s->peer_t);
	s->peer_eid = (unsigned)e;
	if (e >= 0)
		e = lookup_wait(s->src_rank, case_base + s->src_t);
	s->src_eid = (unsigned)e;
	if (e < 0) {
		free(med);
		return NULL;
	}
	/* Now the progress thread may run its handlers (they read the above). */
	atomic_store(&ep_pub[s->t], s->ep);
	t_end = now() + WAIT_S;
	for (unsigned i = 0; i < iters && !atomic_load(&aborted); i++) {
		uint32_t a[5] = { i, s->peer_eid, s->eid, 0, i * 7919u ^ s->eid };
		size_t ml = med_len(s), ll = (size_t)(t_rand(&s->rng) % (LONG_MAX_B + 1));
		char *ldst = (char *)pgas_segment_addr(s->peer_rank) + OFF_LREQ +
			     ((size_t)s->t * WINDOW + i % WINDOW) * LONG_MAX_B;

		/* Iteration i - WINDOW answered: its Long slots (the partner's
		 * and my reply slot) and its LongAsync source are free. */
		if (i >= WINDOW) {
			if (i % 2 && !progress_mode)
				pgas_ep_block_until(s->ep, replied(s, i + 1 - WINDOW) ||
						    !in_time(t_end, "replies"));
			else
				while (!replied(s, i + 1 - WINDOW) && in_time(t_end, "replies"))
					step(s);
		}
		if ((rc = pgas_ep_am_request_short(s->ep, s->peer_eid, H_SHORT, a, 5)))
			FAIL("pgas_ep_am_request_short: %s", pgas_strerror(rc));
		t_fill(med, ml, pseed(K_MED, s->eid, i));
		a[3] = (uint32_t)ml;
		a[4] = 0;
		if ((rc = pgas_ep_am_request_medium(s->ep, s->peer_eid, H_MED, med, ml, a, 5)))
			FAIL("pgas_ep_am_request_medium (%zu bytes): %s", ml, pgas_strerror(rc));
		t_fill(s->lbuf[i % WINDOW], ll, pseed(K_LONG, s->eid, i));
		a[3] = (uint32_t)ll;
		a[4] = s->t;
		rc = i % 2 ? pgas_ep_am_request_long_async(s->ep, s->peer_eid, H_LONG,
							   s->lbuf[i % WINDOW], ll, ldst, a, 5)
			   : pgas_ep_am_request_long(s->ep, s->peer_eid, H_LONG, s->lbuf[i % WINDOW],
						     ll, ldst, a, 5);
		if (rc)
			FAIL("pgas_ep_am_request_long%s (%zu bytes): %s", i % 2 ? "_async" : "", ll,
			     pgas_strerror(rc));
		rma_iteration(s, i);
		step(s);
	}
	/* Every reply to me, and every request to me handled. */
	while (!(replied(s, iters) && handled(s, iters)) && in_time(t_end, "the last messages"))
		step(s);
	free(med);
	return NULL;
}

static void *progress_fn(void *arg)
{
	(void)arg;
	while (!atomic_load(&progress_stop)) {
		for (unsigned t = 0; t < nthreads; t++) {
			pgas_ep_t ep = atomic_load(&ep_pub[t]);
			int rc;

			if (!ep)
				continue;
			tl_ts = &ts[t];
			rc = pgas_ep_poll(ep);
			if (rc < 0)
				FAIL("progress thread: pgas_ep_poll(eid %u): %s", ts[t].eid,
				     pgas_strerror(rc));
		}
		tl_ts = NULL;
		pgas_poll();	/* the primary too (nothing should arrive there) */
	}
	return NULL;
}

static void traffic(int with_progress)
{
	pthread_t th[MAX_T], pt;
	unsigned c = 0, src_rank = (me + n - 1) % n;

	progress_mode = with_progress;
	atomic_store(&progress_stop, 0);
	atomic_store(&create_turn, 0);
	atomic_store(&aborted, 0);
	if (pgas_ep_count(me, &c))
		FAIL("pgas_ep_count: %s", pgas_last_error());
	case_base = c;
	ts = aligned_alloc(64, sizeof(*ts) * nthreads);
	memset(ts, 0, sizeof(*ts) * nthreads);
	for (unsigned t = 0; t < nthreads; t++) {
		struct tstate *s = &ts[t];

		s->t = t;
		s->peer_rank = (me + 1) % n;
		s->src_rank = src_rank;
		s->peer_t = n == 1 ? (t + 1) % nthreads : t;
		s->src_t = n == 1 ? (t + nthreads - 1) % nthreads : t;
		s->rng = seed * 2654435761u + me * 977u + t + 1 + (uint64_t)with_progress * 31;
		atomic_store(&ep_pub[t], NULL);
	}
	if (with_progress && pthread_create(&pt, NULL, progress_fn, NULL))
		FAIL("pthread_create failed");
	for (unsigned t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, worker, &ts[t]))
			FAIL("pthread_create failed");
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	if (with_progress) {
		atomic_store(&progress_stop, 1);
		pthread_join(pt, NULL);
	}
	/* The main thread learns every eid; lookup and locate agree. */
	for (unsigned r = 0; r < n && !atomic_load(&aborted); r++)
		for (unsigned t = 0; t < nthreads; t++) {
			long e = lookup_wait(r, case_base + t);
			unsigned lr = ~0u, li = ~0u;

			eids[r][t] = (unsigned)e;
			if (e < 0)
				break;
			T_EQ(pgas_ep_locate((unsigned)e, &lr, &li), 0);
			T_EQ(lr, r);
			T_EQ(li, case_base + t);
			T_CHECK((unsigned)e >= n && (unsigned)e < pgas_ep_max(),
				"(eid %ld of rank %u outside [nranks, pgas_ep_max()))", e, r);
		}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	for (unsigned t = 0; t < nthreads; t++) {
		struct tstate *s = &ts[t];

		for (int k = 0; k < NK; k++) {
			T_EQ(atomic_load(&s->got[k]), iters);
			T_EQ(atomic_load(&s->rep[k]), iters);
		}
		if (!atomic_load(&aborted)) {
			T_EQ(s->eid, eids[me][t]);
			T_EQ(s->peer_eid, eids[s->peer_rank][s->peer_t]);
			T_EQ(s->src_eid, eids[s->src_rank][s->src_t]);
		}
	}
	/* The final contents of the areas written into my segment: writer
	 * slot w is thread w of rank src_rank (at one rank: mine). */
	for (unsigned w = 0; w < nthreads && !atomic_load(&aborted) && iters; w++) {
		const char *area = (const char *)pgas_segment_addr(me) + OFF_RMA + (size_t)w * AREA;
		unsigned weid = eids[src_rank][w];
		unsigned char want[PART];

		for (unsigned part = 0; part < 3; part++) {
			rma_pattern(want, part, weid, iters - 1);
			if (memcmp(area + part * PART, want, PART)) {
				FAIL("area of writer eid %u, part %u: not the last iteration's data",
				     weid, part);
			}
		}
		for (unsigned k = 0; k < 4; k++) {
			uint64_t v = 0;

			memcpy(&v, area + A_VAL + k * LINE, 1u << k);
			if (v != val_of(weid, iters - 1, k)) {
				FAIL("value line %u of writer eid %u: %llx", k, weid,
				     (unsigned long long)v);
			}
		}
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);	/* nobody sends to them any more */
	for (unsigned t = 0; t < nthreads; t++)
		if (ts[t].ep)
			T_EQ(pgas_ep_destroy(ts[t].ep), 0);
	T_EQ(atomic_load(&bad), 0);
	atomic_store(&bad, 0);
	free(ts);
	ts = NULL;
}

/* ---- churn --------------------------------------------------------------- */

/* What one incarnation of a churned endpoint saw (its thread's own). */
struct inc {
	unsigned eid, anchor_in, anchor_out;
	_Atomic unsigned got[2];	/* from the anchor, per kind, in order */
	_Atomic unsigned replies;
};
static _Thread_local struct inc *tl_inc;
static _Thread_local int tl_anchor;	/* this thread polls the anchor */
static unsigned anchor_eid_of[MAX_RANKS];
static unsigned anchor_eid;
static pgas_ep_t anchor_ep;
static unsigned churn_base;	/* creation index of the anchors */
static _Atomic unsigned ch_handled[MAX_EIDS];	/* per churned eid of mine */
static _Atomic unsigned ch_rounds;
static uint64_t ch_sent_ok[MAX_EIDS];	/* the anchor's sends with rc 0, by eid */
static unsigned ch_gone;		/* the anchor's sends that said GONE */
#define CH_REQS 4			/* requests per round, each answered */
#define CH_MIN 3			/* anchor messages a round waits for */

/* From the previous rank's anchor to a live endpoint of mine. */
static void h_cs(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	struct inc *in = tl_inc;
	unsigned sep = ~0u, k;

	if (!in || nargs != 4) {
		FAIL("anchor message outside a churned endpoint's poll (nargs %u)", nargs);
		return;
	}
	pgas_token_ep(tok, &sep);
	k = args[3] ? 1 : 0;
	if (args[1] != in->eid || sep != in->anchor_in)
		FAIL("anchor message for eid %u from %u ran at eid %u (anchor %u)", args[1], sep,
		     in->eid, in->anchor_in);
	if (args[0] != atomic_load(&in->got[k]))
		FAIL("anchor message kind %u at eid %u: seq %u, expected %u (not a prefix)", k,
		     in->eid, args[0], atomic_load(&in->got[k]));
	if (k && (nb != args[2] || t_verify(buf, nb, pseed(99, in->eid, args[0])) != nb))
		FAIL("anchor medium at eid %u seq %u: %zu bytes, corrupt", in->eid, args[0], nb);
	atomic_store(&in->got[k], args[0] + 1);
}

/* A churned endpoint's request at the next rank's anchor: answered. */
static void h_cq(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	unsigned sep = ~0u, srank = ~0u, lr = ~0u, li = ~0u;
	uint32_t r[2];

	if (!tl_anchor || nargs != 3) {
		FAIL("churn request outside the anchor's poll (nargs %u)", nargs);
		return;
	}
	pgas_token_ep(tok, &sep);
	pgas_token_rank(tok, &srank);
	if (args[1] != anchor_eid || srank != (me + n - 1) % n || sep != args[2])
		FAIL("churn request for %u from eid %u rank %u (says %u) at anchor %u", args[1], sep,
		     srank, args[2], anchor_eid);
	/* Live: its lookup by eid says so (it waits for this reply). */
	if (pgas_ep_locate(sep, &lr, &li) || lr != srank || li <= churn_base)
		FAIL("pgas_ep_locate(%u) of a live requester: rank %u index %u: %s", sep, lr, li,
		     pgas_last_error());
	if (nb && t_verify(buf, nb, pseed(98, sep, args[0])) != nb)
		FAIL("churn medium from eid %u corrupt", sep);
	r[0] = args[0];
	r[1] = sep;
	if (pgas_am_reply_short(tok, H_CR, r, 2))
		FAIL("churn reply: %s", pgas_last_error());
}

static void h_cr(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	struct inc *in = tl_inc;
	unsigned sep = ~0u;

	(void)buf; (void)nb;
	if (!in || nargs != 2) {
		FAIL("churn reply outside a churned endpoint's poll");
		return;
	}
	pgas_token_ep(tok, &sep);
	if (args[1] != in->eid || sep != in->anchor_out)
		FAIL("churn reply for eid %u from %u arrived at eid %u (anchor %u)", args[1], sep,
		     in->eid, in->anchor_out);
	atomic_fetch_add(&in->replies, 1);
}

static void *churner(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, pr = (me + 1) % n;
	unsigned char *med = malloc(med_max + 1);
	struct inc in;

	(void)t;
	for (unsigned round = 0; round < rounds && !atomic_load(&aborted); round++) {
		double t_end = now() + WAIT_S;
		unsigned idx = ~0u, lrank = ~0u, eid2 = ~0u;
		pgas_ep_t ep;
		int rc = pgas_ep_create(&ep, 0);

		if (rc) {
			FAIL("churn: pgas_ep_create: %s", pgas_strerror(rc));
			atomic_store(&aborted, 1);
			break;
		}
		memset(&in, 0, sizeof(in));
		in.eid = pgas_ep_index(ep);
		in.anchor_in = anchor_eid_of[(me + n - 1) % n];
		in.anchor_out = anchor_eid_of[pr];
		tl_inc = &in;
		/* Use it: requests to the next rank's anchor, answered here. */
		for (unsigned q = 0; q <= CH_REQS; q++) {
			uint32_t a[3] = { q, in.anchor_out, in.eid };
			size_t ml = q == CH_REQS ? med_max : 0;

			if (q == CH_REQS) {
				t_fill(med, ml, pseed(98, in.eid, q));
				rc = pgas_ep_am_request_medium(ep, in.anchor_out, H_CQ, med, ml, a, 3);
			} else {
				rc = pgas_ep_am_request_short(ep, in.anchor_out, H_CQ, a, 3);
			}
			if (rc)
				FAIL("churn request from eid %u: %s", in.eid, pgas_strerror(rc));
		}
		while ((atomic_load(&in.replies) < CH_REQS + 1 ||
			atomic_load(&in.got[0]) + atomic_load(&in.got[1]) < CH_MIN) &&
		       in_time(t_end, "a churned endpoint's replies and anchor messages")) {
			rc = pgas_ep_poll(ep);
			if (rc < 0)
				FAIL("pgas_ep_poll(churned eid %u): %s", in.eid, pgas_strerror(rc));
		}
		if (atomic_load(&in.replies) != CH_REQS + 1)
			FAIL("churned eid %u: %u replies of %u", in.eid, atomic_load(&in.replies),
			     CH_REQS + 1);
		if (pgas_ep_locate(in.eid, &lrank, &idx) || lrank != me)
			FAIL("pgas_ep_locate(%u) of my live endpoint: %s", in.eid, pgas_last_error());
		rc = pgas_ep_destroy(ep);
		tl_inc = NULL;
		if (rc)
			FAIL("pgas_ep_destroy(churned eid %u): %s", in.eid, pgas_strerror(rc));
		if (in.eid < MAX_EIDS)
			atomic_store(&ch_handled[in.eid],
				     atomic_load(&in.got[0]) + atomic_load(&in.got[1]));
		rc = pgas_ep_lookup(me, idx, &eid2);
		if (rc != PGAS_ERR_GONE || eid2 != in.eid)
			FAIL("pgas_ep_lookup of destroyed eid %u (index %u): %s, eid %u", in.eid, idx,
			     pgas_strerror(rc), eid2);
		rc = pgas_ep_locate(in.eid, &lrank, &idx);
		if (rc != PGAS_ERR_GONE)
			FAIL("pgas_ep_locate of destroyed eid %u: %s", in.eid, pgas_strerror(rc));
		atomic_fetch_add(&ch_rounds, 1);
	}
	free(med);
	return NULL;
}

/* Every churned endpoint of rank r was created and is gone. */
static bool churn_over(unsigned r, unsigned char *gone)
{
	unsigned c = 0, want = churn_base + 1 + nthreads * rounds;

	if (pgas_ep_count(r, &c) || c < want)
		return false;
	for (unsigned i = churn_base + 1; i < want; i++)
		if (!gone[i]) {
			unsigned e;

			if (pgas_ep_lookup(r, i, &e) != PGAS_ERR_GONE)
				return false;
			gone[i] = 1;
		}
	return true;
}

static void *anchor(void *arg)
{
	unsigned pr = (me + 1) % n, prev = (me + n - 1) % n;
	unsigned char *gone_next = calloc(1024, 1), *gone_prev = calloc(1024, 1);
	unsigned char *med = malloc(med_max + 1);
	unsigned *seq = calloc(MAX_EIDS * 2, sizeof(unsigned));
	double t_end = now() + 2 * WAIT_S;
	bool over_next = false, over_prev = false;

	(void)arg;
	tl_anchor = 1;
	while (!(over_next && over_prev) && in_time(t_end, "the churn to end")) {
		unsigned c = 0;

		if (pgas_ep_poll(anchor_ep) < 0)
			FAIL("pgas_ep_poll(anchor): %s", pgas_last_error());
		if (!over_next)
			over_next = churn_over(pr, gone_next);
		if (!over_prev)
			over_prev = churn_over(prev, gone_prev);
		if (pgas_ep_count(pr, &c))
			FAIL("pgas_ep_count(%u): %s", pr, pgas_last_error());
		for (unsigned i = churn_base + 1; i < c && i < 1024; i++) {
			unsigned e = ~0u;
			int rc = pgas_ep_lookup(pr, i, &e);

			if (rc == PGAS_ERR_NOT_READY || rc == PGAS_ERR_GONE)
				continue;
			if (rc || e >= MAX_EIDS) {
				FAIL("pgas_ep_lookup(%u, %u): %s (eid %u)", pr, i, pgas_strerror(rc), e);
				continue;
			}
			/* A live endpoint (maybe not for long): two Shorts, a Medium. */
			for (unsigned k = 0; k < 3; k++) {
				unsigned kind = k == 2, s = seq[e * 2 + kind];
				uint32_t a[4] = { s, e, 0, kind };
				size_t ml = 0;

				if (kind) {
					ml = s % 2 ? med_max : (s * 7) % (med_in_req + 1);
					a[2] = (uint32_t)ml;
					t_fill(med, ml, pseed(99, e, s));
					rc = pgas_ep_am_request_medium(anchor_ep, e, H_CS, med, ml, a, 4);
				} else {
					rc = pgas_ep_am_request_short(anchor_ep, e, H_CS, a, 4);
				}
				if (rc == 0) {
					seq[e * 2 + kind] = s + 1;
					ch_sent_ok[e]++;
				} else if (rc == PGAS_ERR_GONE) {
					ch_gone++;
					break;
				} else {
					FAIL("anchor's send to eid %u (index %u): rc %d, %s (%s)", e, i,
					     rc, pgas_strerror(rc), pgas_last_error());
					break;
				}
			}
		}
	}
	free(gone_next);
	free(gone_prev);
	free(med);
	free(seq);
	return NULL;
}

static void churn(void)
{
	pthread_t th[MAX_T], at;
	uint64_t *table = (uint64_t *)((char *)pgas_segment_addr(me) + OFF_CHURN);
	unsigned c = 0, pr = (me + 1) % n, want;
	unsigned per_rank = pgas_ep_max() / n;
	int rc;

	atomic_store(&aborted, 0);
	atomic_store(&ch_rounds, 0);
	memset(ch_sent_ok, 0, sizeof(ch_sent_ok));
	ch_gone = 0;
	memset(table, 0, (size_t)MAX_EIDS * 8);
	pgas_ep_count(me, &c);
	churn_base = c;
	/* Leave 4 for the misuse case. */
	if (per_rank < c + 1 + nthreads + 4 || per_rank > 1024) {
		FAIL("churn: PGAS_EP_MAX %u leaves no room for %u churners after %u endpoints",
		     per_rank, nthreads, c);
		return;
	}
	if (c + 1 + nthreads * rounds + 4 > per_rank)
		rounds = (per_rank - c - 5) / nthreads;
	want = churn_base + 1 + nthreads * rounds;
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);	/* everyone's table is zero */
	rc = pgas_ep_create(&anchor_ep, 0);
	T_EQ(rc, 0);
	if (rc)
		return;
	anchor_eid = pgas_ep_index(anchor_ep);
	for (unsigned r = 0; r < n; r++) {
		long e = lookup_wait(r, churn_base);

		anchor_eid_of[r] = (unsigned)e;
		if (e < 0)
			return;
	}
	T_EQ(anchor_eid_of[me], anchor_eid);
	if (pthread_create(&at, NULL, anchor, NULL))
		FAIL("pthread_create failed");
	for (unsigned t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, churner, (void *)(uintptr_t)t))
			FAIL("pthread_create failed");
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	pthread_join(at, NULL);
	T_EQ(atomic_load(&ch_rounds), nthreads * rounds);
	pgas_ep_count(me, &c);
	T_EQ(c, want);
	/* Tell the next rank what its endpoints were sent with rc 0. */
	for (unsigned i = churn_base + 1; i < want && !atomic_load(&aborted); i++) {
		unsigned e = ~0u;

		if (pgas_ep_lookup(pr, i, &e) != PGAS_ERR_GONE || e >= MAX_EIDS) {
			FAIL("pgas_ep_lookup(%u, %u) after the churn: not GONE (eid %u)", pr, i, e);
			continue;
		}
		if (pgas_put_val(pr, (char *)pgas_segment_addr(pr) + OFF_CHURN + (size_t)e * 8,
				 ch_sent_ok[e], 8))
			FAIL("put_val: %s", pgas_last_error());
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	for (unsigned i = churn_base + 1; i < want && !atomic_load(&aborted); i++) {
		unsigned e = ~0u;

		pgas_ep_lookup(me, i, &e);
		if (e >= MAX_EIDS)
			continue;
		T_CHECK(atomic_load(&ch_handled[e]) >= CH_MIN && atomic_load(&ch_handled[e]) <= table[e],
			"(eid %u handled %u anchor messages, %llu sent with rc 0)", e,
			atomic_load(&ch_handled[e]), (unsigned long long)table[e]);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);	/* no anchor sends any more */
	T_EQ(pgas_ep_destroy(anchor_ep), 0);
	printf("# rank %u: churn: %u rounds x %u threads, the anchor's sends: %u said GONE\n", me,
	       rounds, nthreads, ch_gone);
	T_EQ(atomic_load(&bad), 0);
	atomic_store(&bad, 0);
}

/* ---- misuse -------------------------------------------------------------- */

static _Atomic int try_rc[4] = { 1, 1, 1, 1 };
static void h_try(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	pgas_ep_t other = (pgas_ep_t)(uintptr_t)(((uint64_t)args[1] << 32) | args[0]);
	uint32_t a[1] = { 0 };

	(void)buf; (void)nb; (void)nargs;
	atomic_store(&try_rc[0], pgas_ep_am_request_short(other, args[2], H_NOP, a, 1));
	atomic_store(&try_rc[1], pgas_ep_am_request_medium(other, args[2], H_NOP, a, 4, a, 1));
	atomic_store(&try_rc[2], pgas_am_request_short(me, H_NOP, a, 1));
	atomic_store(&try_rc[3], pgas_token_ep(tok, NULL));
}

static _Atomic unsigned nops;
static void h_nop(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)args; (void)nargs;
	atomic_fetch_add(&nops, 1);
}

static void misuse(void)
{
	unsigned per_rank = pgas_ep_max() / n, c = 0, e = ~0u, r = ~0u, i = ~0u, gone_eid;
	uint32_t a[2] = { 0, 0 };
	pgas_ep_t ep = NULL, ep2 = NULL;
	char buf[8] = { 0 };
	int rc;

	T_EQ(pgas_ep_max() % n, 0);
	T_EQ(pgas_ep_index(PGAS_EP_PRIMARY), me);
	T_EQ(pgas_ep_create(NULL, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ep_create(&ep, 2), PGAS_ERR_INVAL);
	T_EQ(pgas_ep_create(&ep, 0x80000000u), PGAS_ERR_INVAL);
	T_CHECK(ep == NULL, "(a refused create set the endpoint)");
	T_EQ(pgas_ep_destroy(PGAS_EP_PRIMARY), PGAS_ERR_STATE);
	T_EQ(pgas_ep_destroy(NULL), PGAS_ERR_INVAL);
	/* The primary still works. */
	T_EQ(pgas_put_val(me, pgas_segment_addr(me), 7, 8), 0);
	T_EQ(pgas_ep_lookup(n, 0, &e), PGAS_ERR_RANK);
	T_EQ(pgas_ep_lookup(~0u, 0, &e), PGAS_ERR_RANK);
	T_EQ(pgas_ep_lookup(me, per_rank, &e), PGAS_ERR_INVAL);
	T_EQ(pgas_ep_lookup(me, 0, NULL), PGAS_ERR_INVAL);
	T_EQ(pgas_ep_count(n, &c), PGAS_ERR_RANK);
	T_EQ(pgas_ep_count(me, NULL), PGAS_ERR_INVAL);
	T_EQ(pgas_ep_locate(pgas_ep_max(), &r, &i), PGAS_ERR_RANK);
	for (unsigned k = 0; k < n; k++) {
		T_EQ(pgas_ep_lookup(k, 0, &e), 0);
		T_EQ(e, k);
		T_EQ(pgas_ep_locate(k, &r, &i), 0);
		T_EQ(r, k);
		T_EQ(i, 0);
	}
	T_EQ(pgas_ep_am_request_medium(PGAS_EP_PRIMARY, pgas_ep_max(), H_NOP, buf, 8, a, 1),
	     PGAS_ERR_RANK);
	T_EQ(pgas_ep_am_request_short(PGAS_EP_PRIMARY, pgas_ep_max(), H_NOP, a, 1),
	     PGAS_ERR_RANK);
	T_EQ(pgas_ep_am_request_long(PGAS_EP_PRIMARY, pgas_ep_max(), H_NOP, buf, 8,
				     pgas_segment_addr(me), a, 1), PGAS_ERR_RANK);
	T_EQ(pgas_ep_am_request_medium(NULL, me, H_NOP, buf, 8, a, 1), PGAS_ERR_INVAL);
	T_EQ(pgas_ep_am_request_long(NULL, me, H_NOP, buf, 8, pgas_segment_addr(me), a, 1),
	     PGAS_ERR_INVAL);

	/* A handler may reply, not request (on any endpoint). */
	rc = pgas_ep_create(&ep, 0);
	T_EQ(rc, 0);
	rc |= pgas_ep_create(&ep2, 0);
	T_EQ(rc, 0);
	if (!rc) {
		uintptr_t p = (uintptr_t)ep2;
		uint32_t ta[3] = { (uint32_t)p, (uint32_t)((uint64_t)p >> 32), pgas_ep_index(ep) };
		double t_end = now() + WAIT_S;

		T_EQ(pgas_ep_am_request_short(ep, pgas_ep_index(ep), H_TRY, ta, 3), 0);
		while (atomic_load(&try_rc[3]) == 1 && in_time(t_end, "the H_TRY handler"))
			pgas_ep_poll(ep);
		T_EQ(atomic_load(&try_rc[3]), PGAS_ERR_INVAL);	/* its own case checks the rest */
		/* Destroyed: lookup and locate say GONE; sends to it fail
		 * with GONE or are dropped (pgas.h). */
		pgas_ep_count(me, &c);
		gone_eid = pgas_ep_index(ep2);
		T_EQ(pgas_ep_destroy(ep2), 0);
		e = ~0u;
		T_EQ(pgas_ep_lookup(me, c - 1, &e), PGAS_ERR_GONE);
		T_EQ(e, gone_eid);
		T_EQ(pgas_ep_locate(gone_eid, &r, &i), PGAS_ERR_GONE);
		rc = pgas_ep_am_request_short(ep, gone_eid, H_NOP, a, 1);
		T_CHECK(rc == 0 || rc == PGAS_ERR_GONE, "(a Short to a destroyed endpoint: %d)", rc);
		rc = pgas_ep_am_request_medium(ep, gone_eid, H_NOP, buf, 8, a, 1);
		T_CHECK(rc == 0 || rc == PGAS_ERR_GONE, "(a Medium to a destroyed endpoint: %d)", rc);
		printf("# rank %u: a Medium to a destroyed endpoint: %s\n", me, pgas_strerror(rc));
		rc = pgas_ep_am_request_long(ep, gone_eid, H_NOP, buf, 8, pgas_segment_addr(me), a, 1);
		T_CHECK(rc == 0 || rc == PGAS_ERR_GONE, "(a Long to a destroyed endpoint: %d)", rc);
		T_EQ(pgas_ep_destroy(ep), 0);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	/* The limit: up to per_rank endpoints over the rank's life. */
	pgas_ep_count(me, &c);
	{
		pgas_ep_t *all = calloc(per_rank + 1, sizeof(*all));
		unsigned made = 0;

		for (unsigned k = c; k < per_rank; k++) {
			rc = pgas_ep_create(&all[made], 0);
			if (rc) {
				FAIL("endpoint %u of %u: %s", k, per_rank, pgas_strerror(rc));
				break;
			}
			made++;
		}
		rc = pgas_ep_create(&all[made], 0);
		T_EQ(rc, PGAS_ERR_RESOURCE);
		pgas_ep_count(me, &c);
		T_EQ(c, per_rank);
		for (unsigned k = 0; k < made; k++)
			T_EQ(pgas_ep_destroy(all[k]), 0);
		T_EQ(pgas_ep_create(&ep, 0), PGAS_ERR_RESOURCE);	/* not given back */
		free(all);
	}
	T_EQ(atomic_load(&bad), 0);
	atomic_store(&bad, 0);
}

/* -c: "all" or a comma-separated list of cases. */
static bool wants(const char *which, const char *name)
{
	size_t l = strlen(name);

	if (!strcmp(which, "all"))
		return true;
	for (const char *p = which; (p = strstr(p, name)); p += l)
		if ((p == which || p[-1] == ',') && (p[l] == 0 || p[l] == ','))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		{ H_SHORT, h_short }, { H_MED, h_med }, { H_LONG, h_long },
		{ H_SHORT_REP, h_short_rep }, { H_MED_REP, h_med_rep }, { H_LONG_REP, h_long_rep },
		{ H_CQ, h_cq }, { H_CR, h_cr }, { H_CS, h_cs }, { H_TRY, h_try }, { H_NOP, h_nop },
	};
	const char *which = "all";
	int provided = -1, opt, rc_pre, rc_pre2;
	unsigned c_pre = 0;
	bool seeded = false;
	pgas_ep_t ep = NULL;

	while ((opt = getopt(argc, argv, "t:i:r:s:c:")) != -1) {
		if (opt == 't')
			nthreads = (unsigned)atoi(optarg);
		else if (opt == 'i')
			iters = (unsigned)atoi(optarg);
		else if (opt == 'r')
			rounds = (unsigned)atoi(optarg);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 0), seeded = true;
		else if (opt == 'c')
			which = optarg;
		else
			return 2;
	}
	if (nthreads < 1 || nthreads > MAX_T) {
		fprintf(stderr, "threads_eps: -t 1..%d\n", MAX_T);
		return 2;
	}
	setenv("PGAS_EP_MAX", "96", 0);
	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, &provided) ||
	    provided != PGAS_THREAD_MULTIPLE) {
		fprintf(stderr, "threads_eps: pgas_init_thread: %s\n", pgas_last_error());
		return 1;
	}
	me = pgas_rank();
	n = pgas_nranks();
	if (n > MAX_RANKS)
		return 2;
	/* Before attach: refused. */
	rc_pre = pgas_ep_create(&ep, 0);
	rc_pre2 = pgas_ep_count(me, &c_pre);
	if (t_attach(table, sizeof(table) / sizeof(table[0]), SEG_BYTES))
		return 1;
	med_max = pgas_am_max_medium();
	med_in_req = pgas_am_medium_inline_max(5);
	med_in_rep = pgas_am_medium_inline_max(3);
	/* One seed for the job: rank 0's. */
	if (me == 0) {
		if (!seeded)
			seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
		*(uint64_t *)((char *)pgas_segment_addr(0) + OFF_SEED) = seed;
		printf("# seed %llu (-s to replay)\n", (unsigned long long)seed);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	/* -s: every rank has it (no RMA, for the runs without mapped peers). */
	if (!seeded)
		pgas_get_val(&seed, 0, (char *)pgas_segment_addr(0) + OFF_SEED, 8);

	T_EQ(rc_pre, PGAS_ERR_STATE);
	T_CHECK(ep == NULL, "(a create refused before attach set the endpoint)");
	T_CHECK(rc_pre2 < 0, "(pgas_ep_count before attach: %d)", rc_pre2);
	T_CHECK(pgas_ep_max() == n * (pgas_ep_max() / n) && pgas_ep_max() >= n,
		"(pgas_ep_max() %u)", pgas_ep_max());
	t_case("before attach: pgas_ep_create is PGAS_ERR_STATE; pgas_ep_max() %u", pgas_ep_max());

	if (wants(which, "traffic")) {
		traffic(0);
		t_case("traffic: %u threads x %u iterations, an endpoint each, polled by its thread: "
		       "AM Short/Medium/Long(Async) with replies, RMA of every form; exact", nthreads,
		       iters);
	}
	if (wants(which, "progress")) {
		traffic(1);
		t_case("progress: %u threads x %u iterations that never poll; one progress thread "
		       "polls every endpoint; exact", nthreads, iters);
	}
	if (wants(which, "churn")) {
		churn();
		t_case("churn: %u threads create, use and destroy endpoints (%u rounds) while an "
		       "anchor sends to the live ones", nthreads, rounds);
	}
	if (wants(which, "misuse")) {
		misuse();
		t_case("misuse: NULL, flags, the primary, bad ranks/indices/eids, a destroyed "
		       "endpoint, PGAS_ERR_RESOURCE past PGAS_EP_MAX");
		/* pgas.h: handlers "may reply but not send requests on any endpoint". */
		T_EQ(atomic_load(&try_rc[0]), PGAS_ERR_STATE);
		T_EQ(atomic_load(&try_rc[1]), PGAS_ERR_STATE);
		T_EQ(atomic_load(&try_rc[2]), PGAS_ERR_STATE);
		t_case("a handler's requests are refused: a Short and a Medium on another endpoint, "
		       "a Short on the primary (PGAS_ERR_STATE)");
	}
	t_done();
	return 0;
}
