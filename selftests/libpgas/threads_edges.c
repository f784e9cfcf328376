// SPDX-License-Identifier: MIT
/*
 * threads_edges - the edges of the thread levels, from an adversarial review:
 * each case failed (or hung) on the first version and passes now.
 *
 *   pgasrun -n N threads_edges -c CASE [-t THREADS] [-k COUNT] [-p]
 *
 * Cases (each prints one TAP line per rank 0 check; a hang is reported by a
 * watchdog, "not ok ... HANG", exit 3):
 *   hsl_notify  MULTIPLE: thread H holds HSL X; a handler run by a polling
 *   hsl_barrier thread waits for X; H then calls pgas_notify_poll /
 *   hsl_signal  pgas_barrier_try / pgas_put_signal / pgas_team_barrier_nb.
 *   hsl_coll    The first should return at once, the others be refused with
 *               PGAS_ERR_STATE (as at SINGLE).
 *   ser_hsl     SERIALIZED: thread A holds HSL X; thread B takes and
 *               releases HSL Y; A's request must still be refused.
 *   pt_race     MULTIPLE: -t threads call pgas_progress_thread_start at once,
 *               -k rounds: exactly one may succeed per round.
 *   pt_stop_self pgas_progress_thread_stop inside a handler that the progress
 *               thread runs: pthread_join(self) fails (EDEADLK, ignored),
 *               stop returns 0, and a start after it leaves two running.
 *   exit_atexit -n 2: rank 0 registers an atexit handler, starts a progress
 *               thread and calls exit(0) while rank 1 sends requests: no
 *               handler may run during that teardown (pgas.h: the start
 *               registers a stop that runs before the earlier handlers).
 *   exit_flood  MULTIPLE: progress thread on every rank, -t threads per rank
 *               flood every rank for 0.1 s, then odd ranks pgas_exit(0), even
 *               ranks exit(0), progress threads still running: exit 0.
 *   latency     -k round trips rank 0 -> 1 (pgas_block_until on the pong);
 *               -p: a progress thread on every rank; -t W: W-1 more threads
 *               per rank waiting in pgas_block_until (block mode: one sleeps
 *               on the doorbell, the others nap).  Prints the mean in us.
 *               -d MS: rank 1 answers MS ms after the ping arrives (its
 *               main thread polls; rank 0's waits outlast the spin phase,
 *               so the mean is MS + how late rank 0 sees the answer);
 *               also prints how long after the pong's handler ran (in
 *               whichever thread) the waiting thread saw it; -l LEVEL: 0..3.
 *
 * Commands used in the review (build/bin/pgasrun, PGAS_ERROR_MODE=quiet):
 *   -n 1 threads_edges -c hsl_barrier            (and hsl_notify, hsl_signal, hsl_coll)
 *   -n 2 threads_edges -c ser_hsl
 *   -n 1 threads_edges -c pt_race -t 4 -k 200    (TSan: build/tsan/tests/...)
 *   -n 1 threads_edges -c pt_stop_self
 *   -n 2 threads_edges -c exit_atexit
 *   PGAS_WAIT_MODE=block -n 2 threads_edges -c latency -k 100 -d 10 -t 4   (vs -t 1 -l 0)
 *   teams       MULTIPLE: -t threads per rank, each with a team of its own,
 *               split it, reduce in both, destroy, -k times, at once.
 *   exit_pt     MULTIPLE: progress thread on every rank, then rank 1's
 *               request makes rank 0 call pgas_exit(0) inside its handler
 *               (run by the progress thread); the others return from main.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

enum { H_NOP = 1, H_TAKE, H_PING, H_PONG, H_DONE, H_EXIT, H_PING_LATE, H_STOP };

static unsigned me, n;
static pgas_hsl_t X = PGAS_HSL_INITIALIZER, Y = PGAS_HSL_INITIALIZER;
static atomic_int in_handler, handler_done, phase, stop_poll;
static atomic_uint nops;
static _Atomic uint64_t pongs;
static atomic_int done;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static atomic_int in_teardown;
static atomic_uint during_teardown;
static void h_nop(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	atomic_fetch_add(&nops, 1);
	if (atomic_load(&in_teardown))
		atomic_fetch_add(&during_teardown, 1);
}

/* Waits for the HSL that another thread of this rank holds. */
static void h_take(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	atomic_store(&in_handler, 1);
	pgas_hsl_lock(&X);
	pgas_hsl_unlock(&X);
	atomic_store(&handler_done, 1);
}

static void h_ping(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)b; (void)nb;
	pgas_am_reply_short(t, H_PONG, a, na);
}

/* -d: rank 1 answers delay_ms after the ping arrived, with a request. */
static _Atomic double ping_at;
static atomic_int ping_pending;
static void h_ping_late(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	atomic_store(&ping_at, ts.tv_sec + ts.tv_nsec * 1e-9);
	atomic_store(&ping_pending, 1);
}

static _Atomic double pong_at;	/* when a handler (any thread) counted the last pong */
static void h_pong(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	atomic_store(&pong_at, now_s());
	atomic_fetch_add(&pongs, 1);
}

static void h_done(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	atomic_store(&done, 1);
}

static void h_exit(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	pgas_exit(0);
}

/* Stops the progress thread from a handler that the progress thread runs. */
static int stop_rc = 99;
static pthread_t main_thread;
static atomic_int stop_on_main;
static void h_stop(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	stop_rc = pgas_progress_thread_stop();
	atomic_store(&stop_on_main, pthread_equal(pthread_self(), main_thread));
	atomic_store(&handler_done, 1);
	nap_ms(200);	/* the rest of the handler's work */
}

/* Threads of this process (/proc/self/task). */
static unsigned tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	unsigned k = 0;

	for (struct dirent *e; d && (e = readdir(d));)
		k += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return k;
}

/* Waits (calling no libpgas function) for *w to reach want; else HANG. */
static void watch(atomic_int *w, int want, int secs, const char *what)
{
	for (int ms = 0; ms < secs * 1000; ms++) {
		if (atomic_load(w) >= want)
			return;
		nap_ms(1);
	}
	printf("not ok - HANG (rank %u): %s\n", me, what);
	fflush(stdout);
	_exit(3);
}

/* ---- HSL held by one thread, its handler waiting in another -------------------- */

static const char *hsl_case;
static int hsl_rc;

static void *poller(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_poll))
		pgas_poll();
	return NULL;
}

static void *holder(void *arg)
{
	pgas_notification_t nt;
	pgas_coll_handle_t h;
	uint64_t v = 1;

	(void)arg;
	pgas_hsl_lock(&X);
	atomic_store(&phase, 1);
	while (atomic_load(&phase) != 2)
		sched_yield();
	if (!strcmp(hsl_case, "hsl_notify"))
		hsl_rc = pgas_notify_poll(&nt);
	else if (!strcmp(hsl_case, "hsl_barrier"))
		hsl_rc = pgas_barrier_try(0, PGAS_BARRIERFLAG_ANONYMOUS);
	else if (!strcmp(hsl_case, "hsl_signal"))
		hsl_rc = pgas_put_signal(me, pgas_segment_addr(me), &v, 8, 0);
	else
		hsl_rc = pgas_team_barrier_nb(&h, pgas_team_all());
	atomic_store(&phase, 3);
	pgas_hsl_unlock(&X);
	return NULL;
}

static void hsl_across(const char *name)
{
	pthread_t p, h;
	uint32_t a[1] = { 0 };
	int want = !strcmp(name, "hsl_notify") ? 0 : PGAS_ERR_STATE;

	hsl_case = name;
	pthread_create(&p, NULL, poller, NULL);
	pthread_create(&h, NULL, holder, NULL);
	while (atomic_load(&phase) != 1)
		sched_yield();
	T_EQ(pgas_am_request_short(me, H_TAKE, a, 1), 0);
	watch(&in_handler, 1, 10, "the handler never ran");
	nap_ms(20);	/* the handler spins on X, holding the progress lock */
	atomic_store(&phase, 2);
	watch(&phase, 3, 10, "the HSL holder's call never returned (deadlock)");
	pthread_join(h, NULL);
	watch(&handler_done, 1, 10, "the handler never finished");
	atomic_store(&stop_poll, 1);
	pthread_join(p, NULL);
	T_CHECK(hsl_rc == want, "(%s returned %d, want %d)", name, hsl_rc, want);
	t_case("%s: a call made while holding an HSL that a handler in another thread waits for "
	       "returns (%d)", name, want);
}

/* ---- SERIALIZED: the HSL mirror ------------------------------------------------ */

static pthread_mutex_t serial = PTHREAD_MUTEX_INITIALIZER;
static int ser_rc, ser_rc2;

static void *ser_a(void *arg)
{
	uint32_t a[1] = { 0 };

	(void)arg;
	pthread_mutex_lock(&serial);
	pgas_hsl_lock(&X);
	pthread_mutex_unlock(&serial);
	atomic_store(&phase, 1);
	while (atomic_load(&phase) != 2)
		sched_yield();
	pthread_mutex_lock(&serial);
	ser_rc = pgas_am_request_short(me, H_NOP, a, 1);
	ser_rc2 = pgas_am_request_medium(me, H_NOP, a, 4, a, 1);
	pgas_hsl_unlock(&X);
	pthread_mutex_unlock(&serial);
	return NULL;
}

static void *ser_b(void *arg)
{
	(void)arg;
	while (atomic_load(&phase) != 1)
		sched_yield();
	pthread_mutex_lock(&serial);
	pgas_hsl_lock(&Y);
	pgas_hsl_unlock(&Y);
	pthread_mutex_unlock(&serial);
	atomic_store(&phase, 2);
	return NULL;
}

static void ser_hsl(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, ser_a, NULL);
	pthread_create(&b, NULL, ser_b, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	while (pgas_poll() > 0)
		;
	T_CHECK(ser_rc == PGAS_ERR_STATE, "(request_short while holding an HSL: %d)", ser_rc);
	T_CHECK(ser_rc2 == PGAS_ERR_STATE, "(request_medium while holding an HSL: %d)", ser_rc2);
	t_case("ser_hsl: SERIALIZED, another thread's HSL lock/unlock does not lift this "
	       "thread's refusal (short %d, medium %d)", ser_rc, ser_rc2);
}

/* ---- progress thread start from several threads at once ---------------------- */

static pthread_barrier_t pb;
static atomic_int started;

static void *starter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&pb);
	if (pgas_progress_thread_start() == 0)
		atomic_fetch_add(&started, 1);
	return NULL;
}

static void pt_race(unsigned threads, unsigned rounds)
{
	unsigned bad = 0, worst = 0;
	pthread_t th[64];

	pthread_barrier_init(&pb, NULL, threads);
	for (unsigned k = 0; k < rounds; k++) {
		atomic_store(&started, 0);
		for (unsigned t = 0; t < threads; t++)
			pthread_create(&th[t], NULL, starter, NULL);
		for (unsigned t = 0; t < threads; t++)
			pthread_join(th[t], NULL);
		if (atomic_load(&started) != 1)
			bad++;
		if ((unsigned)atomic_load(&started) > worst)
			worst = (unsigned)atomic_load(&started);
		while (pgas_progress_thread_stop() == 0)
			;
	}
	T_CHECK(bad == 0, "(%u of %u rounds started %s progress threads, up to %u)", bad,
		rounds, "several", worst);
	t_case("pt_race: %u threads start a progress thread at once, %u rounds: one each "
	       "(bad rounds %u, up to %u started)", threads, rounds, bad, worst);
}

/* ---- stopping the progress thread from its own handler -------------------------- */

static void pt_stop_self(void)
{
	uint32_t a[1] = { 0 };
	unsigned before = tasks(), after;
	int rc2, rc3;

	T_EQ(pgas_progress_thread_start(), 0);
	T_EQ(pgas_am_request_short(me, H_STOP, a, 1), 0);
	watch(&handler_done, 1, 10, "the progress thread never ran the handler");
	rc2 = pgas_progress_thread_start();	/* "stopped": a new one may start */
	nap_ms(500);
	after = tasks();
	rc3 = pgas_progress_thread_stop();
	nap_ms(100);
	printf("# stop inside the progress thread's handler: rc %d (on main %d); start after "
	       "it %d; threads %u -> %u; stop %d; then %u threads\n", stop_rc,
	       atomic_load(&stop_on_main), rc2, before, after, rc3, tasks());
	T_CHECK(stop_rc != 0 || after == before + 1,
		"(stop returned 0 from the progress thread itself, and %u threads run where one "
		"progress thread should)", after - before);
	t_case("pt_stop_self: pgas_progress_thread_stop inside a handler run by the progress "
	       "thread is refused, or really stops it");
}

/* ---- latency of a blocking wait with several threads ------------------------- */

static void *idle_waiter(void *arg)
{
	(void)arg;
	pgas_block_until(atomic_load(&done));
	return NULL;
}

static int delay_ms;

static void latency(unsigned threads, unsigned count, int pt)
{
	pthread_t th[64];
	uint32_t a[1] = { 0 };
	double t0, t1, gap = 0, gap_max = 0;

	/* -d: the other ranks answer late (they poll every delay_ms), so that
	 * rank 0's waits outlast the spin phase; its own threads as asked. */
	if (pt && (!delay_ms || me == 0))
		T_EQ(pgas_progress_thread_start(), 0);
	for (unsigned t = 1; t < threads && (!delay_ms || me == 0); t++)
		pthread_create(&th[t], NULL, idle_waiter, NULL);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (delay_ms && me != 0)
		while (!atomic_load(&done)) {
			pgas_poll();
			if (atomic_load(&ping_pending) && now_s() - atomic_load(&ping_at) >= delay_ms * 1e-3) {
				atomic_store(&ping_pending, 0);
				pgas_am_request_short(0, H_PONG, a, 1);
			}
		}
	if (me == 0) {
		t0 = now_s();
		for (unsigned i = 0; i < count; i++) {
			pgas_am_request_short(1 % n, delay_ms ? H_PING_LATE : H_PING, a, 1);
			pgas_block_until(atomic_load(&pongs) >= i + 1);
			/* How long after the handler ran this thread saw it. */
			double g = now_s() - atomic_load(&pong_at);

			gap += g;
			gap_max = g > gap_max ? g : gap_max;
		}
		t1 = now_s();
		printf("# latency: %u round trips, %u threads/rank%s, peer delay %d ms, %s: %.1f us each\n", count,
		       threads, pt ? " + progress thread" : "", delay_ms,
		       getenv("PGAS_WAIT_MODE") ? getenv("PGAS_WAIT_MODE") : "auto",
		       (t1 - t0) / count * 1e6);
		printf("# latency: the waiting thread saw the pong %.1f us after its handler ran "
		       "(mean), %.1f us (max)\n", gap / count * 1e6, gap_max * 1e6);
		for (unsigned r = 0; r < n; r++)
			pgas_am_request_short(r, H_DONE, a, 1);
	}
	pgas_block_until(atomic_load(&done));
	for (unsigned t = 1; t < threads && (!delay_ms || me == 0); t++)
		pthread_join(th[t], NULL);
	if (pt && (!delay_ms || me == 0))
		T_EQ(pgas_progress_thread_stop(), 0);
	t_case("latency (%u threads%s)", threads, pt ? ", progress thread" : "");
}

/* ---- teams from several threads at once ----------------------------------------- */

static pgas_team_t mine[64];
static unsigned rounds_k;
static atomic_uint team_bad;

static void *team_worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;

	for (unsigned k = 0; k < rounds_k; k++) {
		pgas_team_t sub = NULL;
		uint64_t x = me + 1 + k, s = 0, want = 0, ws = 0;
		int rc = pgas_team_split(mine[t], (int)(me % 2), me, &sub);

		if (rc) {
			fprintf(stderr, "# rank %u thread %u: split: %s\n", me, t, pgas_last_error());
			atomic_fetch_add(&team_bad, 1);
			break;
		}
		for (unsigned r = 0; r < n; r++) {
			want += r + 1 + k;
			if (r % 2 == me % 2)
				ws += r + 1 + k;
		}
		if (pgas_reduce_all(sub, &s, &x, 1, PGAS_UINT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC) ||
		    s != ws) {
			fprintf(stderr, "# rank %u thread %u round %u: sub reduce %llu want %llu\n",
				me, t, k, (unsigned long long)s, (unsigned long long)ws);
			atomic_fetch_add(&team_bad, 1);
		}
		s = 0;
		if (pgas_reduce_all(mine[t], &s, &x, 1, PGAS_UINT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC) ||
		    s != want) {
			fprintf(stderr, "# rank %u thread %u round %u: reduce %llu want %llu\n", me,
				t, k, (unsigned long long)s, (unsigned long long)want);
			atomic_fetch_add(&team_bad, 1);
		}
		if (t == 0 && pgas_barrier(k, 0))
			atomic_fetch_add(&team_bad, 1);
		if (pgas_team_destroy(sub)) {
			fprintf(stderr, "# rank %u thread %u: destroy: %s\n", me, t, pgas_last_error());
			atomic_fetch_add(&team_bad, 1);
		}
	}
	return NULL;
}

static void teams(unsigned threads, unsigned k)
{
	pthread_t th[64];

	rounds_k = k;
	mine[0] = pgas_team_all();
	for (unsigned t = 1; t < threads; t++)
		T_EQ(pgas_team_split(pgas_team_all(), 0, me, &mine[t]), 0);
	for (unsigned t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, team_worker, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	T_EQ(atomic_load(&team_bad), 0);
	t_case("teams: %u threads split, reduce and destroy teams of their own, %u rounds",
	       threads, k);
	for (unsigned t = 1; t < threads; t++)
		pgas_team_destroy(mine[t]);
}

/* ---- exit with a progress thread ------------------------------------------------ */

static void exit_pt(void)
{
	uint32_t a[1] = { 0 };

	T_EQ(pgas_progress_thread_start(), 0);
	t_case("exit_pt: progress threads started");
	if (me == 1 % n)
		pgas_am_request_short(0, H_EXIT, a, 1);
	if (me == 0) {
		nap_ms(10000);	/* computing: only the progress thread polls */
		printf("not ok - rank 0 still here 10 s later\n");
		_exit(4);
	}
	/* The others return from main (exit(0)) with their progress thread running. */
	exit(0);
}

/* ---- exit(0) with a progress thread: the application's atexit teardown ---------- */

static void teardown(void)
{
	atomic_store(&in_teardown, 1);
	nap_ms(300);	/* frees what handlers use, say */
	atomic_store(&in_teardown, 0);
	printf("%s - exit_atexit: rank %u: %u handlers ran during an atexit handler of the "
	       "application (exit(0) with a progress thread running)\n",
	       atomic_load(&during_teardown) ? "not ok" : "ok", me, atomic_load(&during_teardown));
	fflush(stdout);
}

static void exit_atexit(void)
{
	uint32_t a[1] = { 0 };

	if (me == 0) {
		atexit(teardown);	/* registered after pgas_init, as C++ statics are */
		T_EQ(pgas_progress_thread_start(), 0);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me == 0)
		exit(0);
	for (double t0 = now_s(); now_s() - t0 < 0.2;)
		if (pgas_am_request_short(0, H_NOP, a, 1))
			break;
	exit(0);
}

/* ---- exit with progress threads while everyone floods everyone ------------------ */

static void *flooder(void *arg)
{
	uint32_t a[1] = { 0 };
	unsigned char buf[4096] = { 0 };

	(void)arg;
	for (double t0 = now_s(); now_s() - t0 < 0.1;)
		for (unsigned r = 0; r < n; r++)
			if (pgas_am_request_short(r, H_NOP, a, 1) ||
			    pgas_am_request_medium(r, H_NOP, buf, sizeof(buf), a, 1))
				return NULL;
	return NULL;
}

static void exit_flood(unsigned threads)
{
	pthread_t th[64];

	T_EQ(pgas_progress_thread_start(), 0);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	for (unsigned t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, flooder, NULL);
	for (unsigned t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	if (me % 2)
		pgas_exit(0);
	exit(0);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		{ H_NOP, h_nop }, { H_TAKE, h_take }, { H_PING, h_ping }, { H_PONG, h_pong },
		{ H_DONE, h_done }, { H_EXIT, h_exit }, { H_PING_LATE, h_ping_late },
		{ H_STOP, h_stop },
	};
	const char *c = "hsl_notify";
	unsigned threads = 4, count = 1000;
	int opt, pt = 0, level = PGAS_THREAD_MULTIPLE, provided;

	while ((opt = getopt(argc, argv, "c:t:k:pl:d:")) != -1) {
		if (opt == 'c')
			c = optarg;
		else if (opt == 't')
			threads = (unsigned)atoi(optarg);
		else if (opt == 'k')
			count = (unsigned)atoi(optarg);
		else if (opt == 'p')
			pt = 1;
		else if (opt == 'l')
			level = atoi(optarg);
		else if (opt == 'd')
			delay_ms = atoi(optarg);
	}
	main_thread = pthread_self();
	if (threads < 1 || threads > 64)
		return 2;
	if (!strcmp(c, "ser_hsl"))
		level = PGAS_THREAD_SERIALIZED;
	if (pgas_init_thread(&argc, &argv, level, &provided) || provided != level)
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (t_attach(table, sizeof(table) / sizeof(table[0]), 1 << 16))
		return 1;
	if (!strncmp(c, "hsl_", 4))
		hsl_across(c);
	else if (!strcmp(c, "ser_hsl"))
		ser_hsl();
	else if (!strcmp(c, "pt_race"))
		pt_race(threads, count);
	else if (!strcmp(c, "latency"))
		latency(threads, count, pt);
	else if (!strcmp(c, "teams"))
		teams(threads, count);
	else if (!strcmp(c, "exit_pt"))
		exit_pt();
	else if (!strcmp(c, "exit_flood"))
		exit_flood(threads);
	else if (!strcmp(c, "exit_atexit"))
		exit_atexit();
	else if (!strcmp(c, "pt_stop_self"))
		pt_stop_self();
	else
		return 2;
	t_done();
	return 0;
}
