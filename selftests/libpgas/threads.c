// SPDX-License-Identifier: MIT
/*
 * threads - libpgas from many threads of every rank at once.
 *
 *   pgasrun -n N threads [-t THREADS] [-i ITERS] [-l multiple|serialized]
 *
 * Levels: pgas_init_thread's answers and refusals.  Then every thread of
 * every rank, at once (under one mutex per rank at SERIALIZED): AM Short,
 * Medium (inline and through bounce buffers) and Long requests to every
 * rank, each answered; blocking and value puts and gets into lines only it
 * writes; signalling puts, whose notifications any thread may take; polls;
 * and (MULTIPLE) a collective of a team of its own while thread 0 runs the
 * job's barrier.  Every handler checks its payload and the sequence number
 * of its (rank, thread) stream, so a message lost, doubled, reordered or
 * corrupted is counted, and the totals are compared exactly at the end.
 * Last, the rules that belong to a thread: one thread holding a
 * handler-safe lock or inside a handler does not stop another from
 * sending and polling.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include "tap.h"

#define MAX_T 16
#define MAX_RANKS 16
#define WINDOW 16		/* iterations a thread may have unanswered per target */
#define SLOT 256		/* RMA lines per (source rank, thread) */
#define LONG_MAX_BYTES 1024	/* Long areas per (source rank, thread, iteration % WINDOW) */

enum { H_SHORT = 1, H_MED, H_LONG, H_ACK, H_MED_ACK, H_HOLD, H_PING, H_PONG, H_SPIN };

static unsigned me, n, nthreads = 4, iters = 200;
static int level = PGAS_THREAD_MULTIPLE;
static pthread_mutex_t serial = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint bad;			/* failed checks, any thread */
/* Next sequence number expected per kind, source rank and thread (handlers
 * run one at a time per rank, under libpgas's progress lock). */
static unsigned expect[3][MAX_RANKS][MAX_T];
static atomic_uint acks[MAX_T];		/* replies received per thread */
static atomic_uint acks_from[MAX_T][MAX_RANKS];	/* ... and per target: in order */
static atomic_uint notes;		/* notifications taken, any thread */
static unsigned note_count[MAX_RANKS][MAX_T];
static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER;
#define LONG_AREA ((size_t)MAX_RANKS * MAX_T * SLOT)	/* segment offset of the Long areas */
/* Per thread, a broadcast's source and destination in the segment: large
 * enough for the remote path's rendezvous (coll_ref.c), which then reads
 * under the progress lock at MULTIPLE. */
#define BIG 40000
#define BIG_AREA (LONG_AREA + (size_t)MAX_RANKS * MAX_T * WINDOW * LONG_MAX_BYTES)
static pgas_team_t teams[MAX_T];

#define FAIL(...) do { fprintf(stderr, "# rank %u: " __VA_ARGS__); fprintf(stderr, "\n"); \
		       atomic_fetch_add(&bad, 1); } while (0)

/* SERIALIZED: the application orders the calls. */
static void enter(void)
{
	if (level == PGAS_THREAD_SERIALIZED)
		pthread_mutex_lock(&serial);
}

static void leave(void)
{
	if (level == PGAS_THREAD_SERIALIZED)
		pthread_mutex_unlock(&serial);
}

static uint64_t seed_of(unsigned kind, unsigned src, unsigned t, unsigned seq)
{
	return ((uint64_t)kind << 56) ^ ((uint64_t)src << 40) ^ ((uint64_t)t << 32) ^ seq;
}

/* Medium sizes: both sides of the inline limit, and the maximum. */
static size_t med_len(unsigned seq)
{
	size_t max = pgas_am_max_medium(), in = pgas_am_medium_inline_max(2);
	size_t sizes[] = { 0, 1, in, in + 1, max / 2, max };

	return sizes[seq % 6] > max ? max : sizes[seq % 6];
}

static void in_order(unsigned kind, pgas_token_t tok, const uint32_t *args, unsigned nargs)
{
	unsigned src;

	pgas_token_rank(tok, &src);
	if (nargs < 2 || args[0] >= MAX_T || src >= MAX_RANKS) {
		FAIL("kind %u: bad args (nargs %u)", me, kind, nargs);
		return;
	}
	if (expect[kind][src][args[0]] != args[1])
		FAIL("kind %u from rank %u thread %u: seq %u, expected %u", me, kind, src, args[0],
		     args[1], expect[kind][src][args[0]]);
	expect[kind][src][args[0]] = args[1] + 1;
}

static void h_short(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)buf; (void)nb;
	in_order(0, tok, args, nargs);
	if (nargs != 3 || args[2] != args[0] * 7919u + args[1])
		FAIL("short: bad third argument", me);
	if (pgas_am_reply_short(tok, H_ACK, args, 1))
		FAIL("reply_short failed: %s", me, pgas_last_error());
}

static void h_med(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	unsigned src;

	pgas_token_rank(tok, &src);
	in_order(1, tok, args, nargs);
	if (nb != med_len(args[1]) || t_verify(buf, nb, seed_of(1, src, args[0], args[1])) != nb)
		FAIL("medium from rank %u thread %u seq %u: %zu bytes, corrupt", me, src, args[0],
		     args[1], nb);
	/* Answer with a Medium as long as the request's part that fits. */
	if (pgas_am_reply_medium(tok, H_MED_ACK, buf, nb < 512 ? nb : 512, args, 1))
		FAIL("reply_medium failed: %s", me, pgas_last_error());
}

static void h_long(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	unsigned src;

	pgas_token_rank(tok, &src);
	in_order(2, tok, args, nargs);
	if (t_verify(buf, nb, seed_of(2, src, args[0], args[1])) != nb)
		FAIL("long from rank %u thread %u seq %u corrupt", me, src, args[0], args[1]);
	if (pgas_am_reply_short(tok, H_ACK, args, 1))
		FAIL("reply_short failed: %s", me, pgas_last_error());
}

static void h_ack(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	unsigned src;

	(void)buf; (void)nb;
	pgas_token_rank(tok, &src);
	if (nargs < 1 || args[0] >= MAX_T || src >= MAX_RANKS) {
		FAIL("ack: bad args", me);
		return;
	}
	atomic_fetch_add(&acks_from[args[0]][src], 1);
	atomic_fetch_add(&acks[args[0]], 1);
}

static void h_med_ack(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
		      unsigned nargs)
{
	(void)buf;
	(void)nb;
	h_ack(tok, NULL, 0, args, nargs);
}

/* Runs while a thread of the target holds an HSL or runs a handler. */
static atomic_uint held_seen;
static void h_hold(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)args; (void)nargs;
	atomic_fetch_add(&held_seen, 1);
}

/* The progress case: answered by whoever polls, the progress thread here. */
static _Atomic uint64_t pongs;
static void h_ping(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)buf; (void)nb;
	if (pgas_am_reply_short(tok, H_PONG, args, nargs))
		FAIL("reply to a ping: %s", me, pgas_last_error());
}

static void h_pong(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)args; (void)nargs;
	atomic_fetch_add(&pongs, 1);
}

/*
 * The progress case reads a collective's destination before the call is
 * waited for, on purpose (only to see it complete while no application
 * thread polls; the value is checked after pgas_coll_wait): TSan is told
 * to ignore those reads, which race with the library's copy by design.
 */
#if defined(__SANITIZE_THREAD__)
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define EARLY_READS_BEGIN() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define EARLY_READS_END() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#else
#define EARLY_READS_BEGIN() ((void)0)
#define EARLY_READS_END() ((void)0)
#endif

/* Sleeps until *word reaches want or 20 s pass, calling no libpgas function. */
static int await_without_polling(const _Atomic uint64_t *word, uint64_t want)
{
	int seen = 0;

	EARLY_READS_BEGIN();
	for (int ms = 0; ms < 20000 && !seen; ms++) {
		struct timespec ts = { 0, 1000000 };

		seen = atomic_load(word) >= want;
		if (!seen)
			nanosleep(&ts, NULL);
	}
	EARLY_READS_END();
	return seen;
}

/* A handler that waits for the HSL another thread holds. */
static pgas_hsl_t hsl;
static atomic_int in_spin;
static void h_spin(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)args; (void)nargs;
	atomic_store(&in_spin, 1);
	pgas_hsl_lock(&hsl);
	pgas_hsl_unlock(&hsl);
	atomic_store(&in_spin, 2);
}

static void take_notes(void)
{
	pgas_notification_t nt;
	int got;

	for (;;) {
		enter();
		got = pgas_notify_poll(&nt);
		leave();
		if (got <= 0)
			break;
		if (nt.src >= n || nt.tag >= MAX_T || nt.size != 8) {
			FAIL("notification src %u tag %u size %u", me, nt.src, nt.tag, nt.size);
			continue;
		}
		pthread_mutex_lock(&note_lock);
		note_count[nt.src][nt.tag]++;
		pthread_mutex_unlock(&note_lock);
		atomic_fetch_add(&notes, 1);
	}
}

static void poll_once(void)
{
	enter();
	if (pgas_poll() < 0)
		FAIL("pgas_poll: %s", me, pgas_last_error());
	leave();
	take_notes();
}

/* Waits for *count to reach want, polling (and taking notifications). */
static void wait_acks(atomic_uint *count, unsigned want)
{
	while (atomic_load(count) < want) {
		poll_once();
		if (level == PGAS_THREAD_SERIALIZED)
			sched_yield();
	}
}

/* Line i of an area in rank r's segment, in r's address space. */
static char *line_of(unsigned r, size_t area, size_t i, size_t size)
{
	return (char *)pgas_segment_addr(r) + area + i * size;
}

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, sent = 0;
	unsigned char med[16384], lbuf[LONG_MAX_BYTES], rbuf[SLOT];

	for (unsigned i = 0; i < iters; i++) {
		for (unsigned r = 0; r < n; r++) {
			uint32_t args[3] = { t, i, t * 7919u + i };
			size_t ml = med_len(i), ll = (i * 37u) % LONG_MAX_BYTES;
			char *line = line_of(r, 0, (size_t)me * MAX_T + t, SLOT);
			uint64_t v;
			int rc;

			/* Iteration i - WINDOW to r answered: its Long area is free. */
			if (i >= WINDOW)
				wait_acks(&acks_from[t][r], 3 * (i + 1 - WINDOW));

			enter();
			rc = pgas_am_request_short(r, H_SHORT, args, 3);
			leave();
			if (rc)
				FAIL("request_short: %s", me, pgas_last_error());
			t_fill(med, ml, seed_of(1, me, t, i));
			enter();
			rc = pgas_am_request_medium(r, H_MED, med, ml, args, 2);
			leave();
			if (rc)
				FAIL("request_medium: %s", me, pgas_last_error());
			t_fill(lbuf, ll, seed_of(2, me, t, i));
			enter();
			rc = pgas_am_request_long(r, H_LONG, lbuf, ll,
						  line_of(r, LONG_AREA, ((size_t)me * MAX_T + t) * WINDOW + i % WINDOW,
							  LONG_MAX_BYTES), args, 2);
			leave();
			if (rc)
				FAIL("request_long: %s", me, pgas_last_error());
			sent += 3;
			/* RMA into my line of rank r: put, get back, value forms. */
			t_fill(rbuf, SLOT - 8, seed_of(3, r, t, i));
			enter();
			rc = pgas_put(r, line, rbuf, SLOT - 8);
			leave();
			memset(rbuf, 0, sizeof(rbuf));
			enter();
			rc |= pgas_get(rbuf, r, line, SLOT - 8);
			rc |= pgas_put_val(r, line + SLOT - 8, seed_of(4, me, t, i), 8);
			rc |= pgas_get_val(&v, r, line + SLOT - 8, 8);
			leave();
			if (rc || t_verify(rbuf, SLOT - 8, seed_of(3, r, t, i)) != SLOT - 8 ||
			    v != seed_of(4, me, t, i))
				FAIL("RMA with rank %u thread %u iteration %u: rc %d, data wrong", me, r,
				     t, i, rc);
			/* A signalling put to the next rank: tag = my thread. */
			if (r == (me + 1) % n) {
				enter();
				rc = pgas_put_signal(r, line, &v, 8, t);
				leave();
				if (rc)
					FAIL("put_signal: %s", me, pgas_last_error());
			}
		}
		/* MULTIPLE: a collective of my own team (thread 0: the job's). */
		if (level == PGAS_THREAD_MULTIPLE && i % 16 == 0) {
			uint64_t x = me + 1 + t + i, sum = 0, want = 0;

			for (unsigned r = 0; r < n; r++)
				want += r + 1 + t + i;
			if (t == 0) {
				if (pgas_barrier(i, 0))
					FAIL("job barrier: %s", me, pgas_last_error());
			}
			if (pgas_reduce_all(teams[t], &sum, &x, 1, PGAS_UINT64, PGAS_OP_SUM,
					    PGAS_COLL_MYSYNC))
				FAIL("reduce_all of thread %u: %s", me, t, pgas_last_error());
			else if (sum != want)
				FAIL("reduce_all of thread %u iteration %u: %llu, expected %llu", me, t,
				     i, (unsigned long long)sum, (unsigned long long)want);
			char *src = line_of(me, BIG_AREA, 2 * t, BIG);
			char *dst = src + BIG;
			unsigned root = (i / 16) % n;

			if (me == root)
				t_fill(src, BIG, seed_of(5, root, t, i));
			memset(dst, 0, BIG);
			if (pgas_broadcast(teams[t], root, dst, src, BIG, PGAS_COLL_MYSYNC))
				FAIL("broadcast of thread %u: %s", me, t, pgas_last_error());
			else if (t_verify(dst, BIG, seed_of(5, root, t, i)) != BIG)
				FAIL("broadcast of %d bytes from %u, thread %u iteration %u: byte %zu "
				     "differs", me, BIG, root, t, i,
				     t_verify(dst, BIG, seed_of(5, root, t, i)));
		}
	}
	wait_acks(&acks[t], sent);
	return NULL;
}

static void run_workers(void *(*fn)(void *))
{
	pthread_t th[MAX_T];

	for (unsigned t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, fn, (void *)(uintptr_t)t))
			FAIL("pthread_create failed", me);
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
}

/* The traffic case: every operation from every thread at once. */
static void traffic(void)
{
	unsigned want_notes = nthreads * iters;	/* from rank me-1, each thread, each iteration */

	run_workers(worker);
	/* Notifications still in my ring: take them (any thread could). */
	while (atomic_load(&notes) < want_notes) {
		take_notes();
		pgas_poll();
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	for (unsigned k = 0; k < 3; k++)
		for (unsigned r = 0; r < n; r++)
			for (unsigned t = 0; t < nthreads; t++)
				T_EQ(expect[k][r][t], iters);
	for (unsigned t = 0; t < nthreads; t++)
		T_EQ(atomic_load(&acks[t]), 3 * n * iters);
	T_EQ(atomic_load(&notes), want_notes);
	for (unsigned t = 0; t < nthreads; t++)
		T_EQ(note_count[(me + n - 1) % n][t], iters);
	T_EQ(atomic_load(&bad), 0);
	atomic_store(&bad, 0);
}

/*
 * Thread rules: while thread A holds a handler-safe lock, thread B still
 * sends and polls; A's own request is refused.  (Before the thread state
 * was per thread, B's calls were refused too.)
 */
static atomic_int phase;

static void *holder(void *arg)
{
	uint32_t a[2] = { 0, 0 };

	(void)arg;
	if (pgas_hsl_lock(&hsl))
		FAIL("hsl_lock: %s", me, pgas_last_error());
	if (pgas_am_request_short(me, H_HOLD, a, 2) != PGAS_ERR_STATE)
		FAIL("a request while holding an HSL was not refused", me);
	if (pgas_poll() != PGAS_ERR_STATE)
		FAIL("a poll while holding an HSL was not refused", me);
	atomic_store(&phase, 1);
	while (atomic_load(&phase) != 2)
		sched_yield();
	/* The other thread now runs a handler that waits for my HSL: calls
	 * that need the progress lock are refused instead of waiting forever. */
	while (atomic_load(&in_spin) != 1)
		sched_yield();
	{
		pgas_notification_t nt;
		uint64_t w = 0;

		if (pgas_barrier(1, 0) != PGAS_ERR_STATE)
			FAIL("a barrier while holding an HSL was not refused", me);
		if (pgas_put_signal(me, pgas_segment_addr(me), &w, 8, 0) != PGAS_ERR_STATE)
			FAIL("a signalling put while holding an HSL was not refused", me);
		if (pgas_notify_poll(&nt) < 0)
			FAIL("notify_poll while holding an HSL: %s", me, pgas_last_error());
		if (pgas_team_barrier(pgas_team_all()) != PGAS_ERR_STATE)
			FAIL("a team barrier while holding an HSL was not refused", me);
	}
	pgas_hsl_unlock(&hsl);
	return NULL;
}

static void *other(void *arg)
{
	uint32_t a[2] = { 1, 0 };
	unsigned before = atomic_load(&held_seen);
	int rc;

	(void)arg;
	while (atomic_load(&phase) != 1)
		sched_yield();
	rc = pgas_am_request_short((me + 1) % n, H_HOLD, a, 2);
	if (rc)
		FAIL("another thread's request while one holds an HSL: %s", me, pgas_last_error());
	rc = pgas_am_request_short(me, H_HOLD, a, 2);
	if (rc)
		FAIL("another thread's request to itself: %s", me, pgas_last_error());
	while (!rc && atomic_load(&held_seen) == before)
		if (pgas_poll() < 0) {
			FAIL("another thread's poll while one holds an HSL: %s", me,
			     pgas_last_error());
			break;
		}
	atomic_store(&phase, 2);
	/* Run a handler that waits for the holder's HSL (polling holds the
	 * progress lock while it runs). */
	rc = pgas_am_request_short(me, H_SPIN, a, 0);
	while (!rc && atomic_load(&in_spin) != 2)
		pgas_poll();
	return NULL;
}

static void thread_rules(void)
{
	pthread_t a, b;

	atomic_store(&phase, 0);
	atomic_store(&in_spin, 0);
	pgas_hsl_init(&hsl);
	pthread_create(&a, NULL, holder, NULL);
	pthread_create(&b, NULL, other, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	/* Everyone's H_HOLD from its neighbour has run before we compare. */
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	while (atomic_load(&held_seen) < 2)
		pgas_poll();
	T_EQ(atomic_load(&held_seen), 2);
	T_EQ(atomic_load(&bad), 0);
	atomic_store(&bad, 0);
}

/*
 * A progress thread runs this rank's handlers and advances its collectives
 * while no application thread calls libpgas at all: pings answered, a
 * non-blocking reduction completed, on every rank.
 */
static void progress_thread(void)
{
	static _Atomic uint64_t sum;
	uint64_t x = me + 1, want = (uint64_t)n * (n + 1) / 2;
	pgas_coll_handle_t h;
	uint32_t a[1] = { me };
	int rc = pgas_progress_thread_start();

	T_EQ(rc, 0);
	T_EQ(pgas_progress_thread_start(), PGAS_ERR_STATE);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);	/* every rank has one */
	for (unsigned r = 0; r < n; r++)
		for (int k = 0; k < 10; k++)
			if (pgas_am_request_short(r, H_PING, a, 1))
				FAIL("ping: %s", me, pgas_last_error());
	T_CHECK(await_without_polling(&pongs, 10 * n), "(only %llu of %u pongs without polling)",
		(unsigned long long)atomic_load(&pongs), 10 * n);
	if (pgas_reduce_all_nb(&h, pgas_team_all(), (uint64_t *)&sum, &x, 1, PGAS_UINT64,
			       PGAS_OP_SUM, PGAS_COLL_MYSYNC)) {
		FAIL("reduce_all_nb: %s", me, pgas_last_error());
	} else {
		T_CHECK(await_without_polling(&sum, want),
			"(the reduction did not complete without polling: %llu)",
			(unsigned long long)atomic_load(&sum));
		T_EQ(pgas_coll_wait(h), 0);
		T_EQ(atomic_load(&sum), want);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);	/* nobody pings any more */
	T_EQ(pgas_progress_thread_stop(), 0);
	T_EQ(pgas_progress_thread_stop(), PGAS_ERR_STATE);
	T_EQ(atomic_load(&bad), 0);
	atomic_store(&bad, 0);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		{ H_SHORT, h_short }, { H_MED, h_med }, { H_LONG, h_long },
		{ H_ACK, h_ack }, { H_MED_ACK, h_med_ack }, { H_HOLD, h_hold },
		{ H_PING, h_ping }, { H_PONG, h_pong }, { H_SPIN, h_spin },
	};
	int provided = -1, opt, rc;
	size_t area = BIG_AREA + (size_t)MAX_T * 2 * BIG;

	while ((opt = getopt(argc, argv, "t:i:l:")) != -1) {
		if (opt == 't')
			nthreads = (unsigned)atoi(optarg);
		else if (opt == 'i')
			iters = (unsigned)atoi(optarg);
		else if (opt == 'l')
			level = !strcmp(optarg, "serialized") ? PGAS_THREAD_SERIALIZED
							       : PGAS_THREAD_MULTIPLE;
	}
	if (nthreads < 1 || nthreads > MAX_T) {
		fprintf(stderr, "threads: -t 1..%d\n", MAX_T);
		return 2;
	}
	/* Levels: refusals first (they leave the library uninitialised). */
	rc = pgas_init_thread(&argc, &argv, 7, &provided);
	if (rc != PGAS_ERR_INVAL || provided != -1 || pgas_query_thread() != -1) {
		fprintf(stderr, "pgas_init_thread(level 7): rc %d provided %d\n", rc, provided);
		return 1;
	}
	if (pgas_init_thread(&argc, &argv, level, &provided) || provided != level ||
	    pgas_query_thread() != level) {
		fprintf(stderr, "pgas_init_thread(%d): provided %d: %s\n", level, provided,
			pgas_last_error());
		return 1;
	}
	rc = pgas_init_thread(&argc, &argv, level, &provided);
	me = pgas_rank();
	n = pgas_nranks();
	if (n > MAX_RANKS)
		return 2;
	if (t_attach(table, sizeof(table) / sizeof(table[0]), area))
		return 1;
	T_EQ(rc, PGAS_ERR_STATE);
	t_case("levels: an unknown level refused, %s provided, a second init refused",
	       level == PGAS_THREAD_MULTIPLE ? "MULTIPLE" : "SERIALIZED");

	teams[0] = pgas_team_all();
	for (unsigned t = 1; t < nthreads; t++)
		if (pgas_team_split(pgas_team_all(), 0, me, &teams[t]))
			FAIL("team_split: %s", me, pgas_last_error());
	traffic();
	t_case("%u threads x %u iterations: AM Short/Medium/Long with replies, RMA, signals, "
	       "polls%s: exact counts and data", nthreads, iters,
	       level == PGAS_THREAD_MULTIPLE ? ", a team's collectives per thread" : "");
	if (level == PGAS_THREAD_MULTIPLE) {
		thread_rules();
		t_case("an HSL held by one thread refuses its requests and polls, not another's; "
		       "while a handler waits for it, barriers and signals are refused, not hung");
		progress_thread();
		t_case("a progress thread answers pings and completes a reduction while no "
		       "application thread polls; a second start and stop are refused");
	} else {
		T_EQ(pgas_progress_thread_start(), PGAS_ERR_STATE);
		t_case("SERIALIZED: pgas_progress_thread_start refused");
	}
	for (unsigned t = 1; t < nthreads; t++)
		pgas_team_destroy(teams[t]);
	t_done();
	return 0;
}
