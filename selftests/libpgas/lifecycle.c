// SPDX-License-Identifier: MIT
/*
 * lifecycle - ranks leaving a job, for scripts/check-lifecycle.sh and the
 * launcher tests of scripts/check-native.sh.
 *
 *   lifecycle POINT HOW [VICTIM] [COUNT]
 *
 * Rank VICTIM (default: the last) leaves the job HOW at POINT:
 *   HOW:    exit0 (pgas_exit(0)), return (from main; exit(0) inside a
 *           handler), exit3 (exit(3)), abort, kill (SIGKILL itself),
 *           _exit0 (_exit(0): no finalize)
 *   POINT:  barrier  others wait for it in pgas_barrier
 *           coll     others wait for it in pgas_team_barrier and then
 *                    pgas_reduce_all on pgas_team_all()
 *           flood    every rank sends COUNT (default 2000) AM requests to
 *                    its right neighbour and leaves at once, HOW for the
 *                    victim (half-way through for the abnormal ways),
 *                    pgas_exit(0) for the others; each rank counts what it
 *                    received and checks it at its exit
 *           handler  ping/pong ring of COUNT (default 40) rounds; the
 *                    victim leaves inside the handler of the 10th ping
 *           rma      every rank puts (nbi, no sync) a block into every
 *                    other's segment; the victim leaves at once, the others
 *                    wait for it in pgas_barrier, then check its blocks
 * A rank whose wait fails with PGAS_ERR_GONE prints "ok - rank R: CALL:
 * PGAS_ERR_GONE naming rank V" (or "not ok - ..." if the error is another
 * or names another rank) and leaves with pgas_exit(4).  Wrong data or a
 * wrong count prints "not ok - ..." and exits 5.
 *
 * The launcher tests' modes:
 *   lifecycle ok            AM and barrier traffic, then a clean exit
 *   lifecycle kill R        rank R SIGKILLs itself mid-traffic
 *   lifecycle exit R CODE   rank R exits with CODE mid-traffic
 *   lifecycle hang          rank 0 never enters the barrier the others wait in
 *   lifecycle peerdied      rank 0 ends at once as pgas.ko's report of a peer's
 *                           death makes it (PGAS_BOOT_PEER_DIED, exit 70);
 *                           rank 1, that peer, is SIGKILLed 300 ms later:
 *                           pgasrun must name rank 1, the cause
 *   lifecycle deadwait R WHAT  rank R SIGKILLs itself 300 ms after a barrier
 *                           while the others (SIGTERM ignored) wait on it in
 *                           WHAT: barrier (pgas_barrier), get (pgas_get from
 *                           it until one fails) or coll (pgas_reduce_all);
 *                           net: R does not die but polls 4 s (its host's
 *                           link is taken down meanwhile), then waits too:
 *                           PGAS_ERR_GONE naming R must end the wait; each
 *                           prints how long it waited ("# waited N ms")
 *   lifecycle deadget R [gone]  the others get from rank R after it killed
 *                           itself: its data or PGAS_ERR_GONE, never other
 *                           bytes with rc 0 (see deadget())
 * Every rank prints "lifecycle: rank R ready" once attached.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"
#include "pingpong.h"
#include "bootstrap.h"	/* peerdied: the notice by hand */

#define H_COUNT 3
#define H_TRAP 4		/* a ping whose handler the victim leaves in */
#define BLOCK 4096		/* rma: bytes each rank puts into each other */
#define RETURN_FROM_MAIN 1000	/* leave(): main returns 0 */

static unsigned me, n, victim, count;
static const char *how;
static volatile uint64_t received;
static int check_received;	/* flood: check the count at exit */

static void h_count(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)nb; (void)a; (void)na;
	received++;
}

/* Leaves the job the way 'how' says; returns only for "return". */
static int leave(void)
{
	printf("lifecycle: rank %u leaves: %s\n", me, how);
	fflush(stdout);
	if (!strcmp(how, "exit0"))
		pgas_exit(0);
	if (!strcmp(how, "return"))
		return RETURN_FROM_MAIN;
	if (!strcmp(how, "exit3"))
		exit(3);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "kill"))
		raise(SIGKILL);
	if (!strcmp(how, "_exit0"))
		_exit(0);
	fprintf(stderr, "lifecycle: unknown way to leave '%s'\n", how);
	_exit(2);
}

static void h_trap(pgas_token_t t, void *b, size_t nb, const uint32_t *a, unsigned na)
{
	if (me == victim) {
		if (!strcmp(how, "return"))	/* no return from main in a handler */
			exit(0);
		leave();
	}
	h_ping(t, b, nb, a, na);
}

/* A wait the victim's departure ended: must be PGAS_ERR_GONE naming it. */
static void gone(const char *call, int rc)
{
	char want[64], want_team[64];
	const char *msg = pgas_last_error();

	snprintf(want, sizeof(want), "rank %u has left the job", victim);
	snprintf(want_team, sizeof(want_team), "(job rank %u) has left the job", victim);
	if (rc == PGAS_ERR_GONE && strstr(how, "kill") && !strstr(msg, want))
		snprintf(want, sizeof(want), "rank %u is gone", victim);	/* the conduit's word */
	if (rc == PGAS_ERR_GONE && (strstr(msg, want) || strstr(msg, want_team)))
		printf("ok - rank %u: %s: PGAS_ERR_GONE naming rank %u (%s)\n", me, call, victim,
		       msg);
	else
		printf("not ok - rank %u: %s returned %d (%s): '%s'\n", me, call, rc,
		       pgas_strerror(rc), msg);
	fflush(stdout);
}

static void at_exit_check(int status, void *arg)
{
	(void)arg;
	if (!check_received || status != 0)
		return;
	if (received == count) {
		printf("ok - rank %u: received %u of %u requests\n", me, count, count);
		fflush(stdout);
		return;
	}
	printf("not ok - rank %u: received %llu of %u requests\n", me,
	       (unsigned long long)received, count);
	fflush(stdout);
	_exit(5);
}

static int point_barrier(void)
{
	int rc;

	pgas_barrier(1, 0);
	if (me == victim)
		return leave();
	rc = pgas_barrier(2, 0);
	gone("pgas_barrier", rc);
	pgas_exit(4);
}

static int point_coll(void)
{
	uint64_t one = 1, sum = 0;
	int rc;

	rc = pgas_reduce_all(pgas_team_all(), &sum, &one, 1, PGAS_UINT64, PGAS_OP_SUM,
			     PGAS_COLL_ALLSYNC);
	if (rc || sum != n) {
		printf("not ok - rank %u: reduce_all before the departure: rc %d, sum %llu\n", me,
		       rc, (unsigned long long)sum);
		exit(5);
	}
	if (me == victim)
		return leave();
	gone("pgas_team_barrier", pgas_team_barrier(pgas_team_all()));
	gone("pgas_reduce_all",
	     pgas_reduce_all(pgas_team_all(), &sum, &one, 1, PGAS_UINT64, PGAS_OP_SUM,
			     PGAS_COLL_ALLSYNC));
	pgas_exit(4);
}

static int point_flood(void)
{
	bool clean = !strcmp(how, "exit0") || !strcmp(how, "return");
	uint32_t arg = me;

	pgas_barrier(1, 0);
	check_received = 1;
	for (unsigned i = 0; i < count; i++) {
		if (me == victim && !clean && i == count / 2)
			return leave();
		if (pgas_am_request_short((me + 1) % n, H_COUNT, &arg, 1)) {
			printf("not ok - rank %u: request %u failed: %s\n", me, i, pgas_last_error());
			exit(5);
		}
	}
	if (me == victim)
		return leave();
	pgas_exit(0);
}

static int point_handler(void)
{
	for (unsigned i = 0; i < count; i++) {
		pgas_am_request_short((me + 1) % n, i == 10 ? H_TRAP : H_PING, NULL, 0);
		pgas_block_until(pongs == i + 1);
	}
	gone("pgas_barrier", pgas_barrier(2, 0));
	pgas_exit(4);
}

static int point_rma(void)
{
	unsigned char *seg = pgas_segment_addr(me), buf[BLOCK];
	int rc;

	pgas_barrier(1, 0);
	t_fill(buf, BLOCK, me);
	for (unsigned r = 0; r < n; r++)
		if (r != me &&
		    pgas_put_nbi(r, (char *)pgas_segment_addr(r) + (size_t)me * BLOCK, buf, BLOCK)) {
			printf("not ok - rank %u: put to rank %u: %s\n", me, r, pgas_last_error());
			exit(5);
		}
	if (me == victim)
		return leave();
	pgas_wait_syncnbi_puts();
	rc = pgas_barrier(2, 0);
	gone("pgas_barrier", rc);
	if (t_verify(seg + (size_t)victim * BLOCK, BLOCK, victim) == BLOCK)
		printf("ok - rank %u: rank %u's nbi put arrived before it left\n", me, victim);
	else
		printf("not ok - rank %u: rank %u's nbi put is not in this segment\n", me, victim);
	fflush(stdout);
	pgas_exit(4);
}

/*
 * deadget R [gone]: rank R fills its segment and SIGKILLs itself; the others
 * get from it for 1.5 s (inside pgasrun's 2 s between SIGTERM and SIGKILL).
 * A get may return its data (the memory is still there) or fail with
 * PGAS_ERR_GONE; it must never return rc 0 with other bytes (pgas.ko's
 * throwaway page reads zeros).  With "gone" (pgas.ko, which revokes the
 * dead rank's memory), PGAS_ERR_GONE must come, naming R.
 */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void deadget(unsigned who, int want_gone)
{
	unsigned char *seg = pgas_segment_addr(me), buf[BLOCK];
	unsigned long good = 0, bad = 0;
	long long t0;
	_Atomic uint64_t *past = (_Atomic uint64_t *)(seg + BLOCK);	/* [n]: past the barrier */
	int rc = 0;

	t_fill(seg, BLOCK, 77 + me);
	for (unsigned r = 0; r < n; r++)
		atomic_store(&past[r], 0);
	signal(SIGTERM, SIG_IGN);
	pgas_barrier(1, 0);
	/*
	 * It dies once every other rank is out of the barrier: one still in it
	 * would end itself over the death (pgas.ko's report), not get from it.
	 */
	if (me == who) {
		unsigned got;

		do {
			got = 0;
			for (unsigned i = 0; i < n; i++)
				got += atomic_load(&past[i]) != 0;
			if (got < n - 1)
				sched_yield();
		} while (got < n - 1);
		raise(SIGKILL);
	} else {
		uint64_t one = 1;

		pgas_put(who, (char *)pgas_segment_addr(who) + BLOCK + (size_t)me * 8, &one, 8);
	}
	for (t0 = now_ms(); now_ms() - t0 < 1500;) {
		rc = pgas_get(buf, who, pgas_segment_addr(who), BLOCK);
		if (rc)
			break;
		if (t_verify(buf, BLOCK, 77 + who) == BLOCK)
			good++;
		else
			bad++;
	}
	if (bad)
		printf("not ok - rank %u: %lu gets from dead rank %u returned rc 0 and bytes not its own (%lu right)\n",
		       me, bad, who, good);
	else if (rc && (rc != PGAS_ERR_GONE || !strstr(pgas_last_error(), "rank ")))
		printf("not ok - rank %u: get from dead rank %u: %d, %s\n", me, who, rc,
		       pgas_last_error());
	else if (rc)
		printf("ok - rank %u: gets from dead rank %u: %lu returned its data, then PGAS_ERR_GONE: %s\n",
		       me, who, good, pgas_last_error());
	else if (want_gone)
		printf("not ok - rank %u: %lu gets from dead rank %u returned its data for 1.5 s; want PGAS_ERR_GONE\n",
		       me, good, who);
	else
		printf("ok - rank %u: %lu gets from dead rank %u returned its data\n", me, good, who);
	fflush(stdout);
	for (;;)
		pause();
}

/* deadwait R WHAT (see the top): a wait on a rank that died must end. */
static void deadwait(unsigned who, const char *what)
{
	unsigned char buf[64];
	uint64_t one = 1, sum = 0;
	long long t0;
	const char *call = "pgas_barrier";
	int rc;

	signal(SIGTERM, SIG_IGN);	/* the launcher's: the wait must end first */
	victim = who;
	how = "kill";
	pgas_barrier(1, 0);
	if (me == who && !strcmp(what, "net")) {
		/* Alive, polling for 4 s (the test takes its host's link down
		 * meanwhile), then in the barrier the others wait in. */
		for (t0 = now_ms(); now_ms() - t0 < 4000;)
			pgas_poll();
		what = "barrier";
	} else if (me == who) {
		usleep(300 * 1000);
		raise(SIGKILL);
	}
	t0 = now_ms();
	if (!strcmp(what, "get")) {
		call = "pgas_get";
		while (!(rc = pgas_get(buf, who, pgas_segment_addr(who), sizeof(buf))))
			;
	} else if (!strcmp(what, "coll")) {
		call = "pgas_reduce_all";
		rc = pgas_reduce_all(pgas_team_all(), &sum, &one, 1, PGAS_UINT64, PGAS_OP_SUM,
				     PGAS_COLL_ALLSYNC);
	} else {
		rc = pgas_barrier(2, 0);
	}
	if (me == who)	/* net: the others are gone for it too */
		printf("# rank %u: %s returned %d: %s\n", me, call, rc, pgas_last_error());
	else
		gone(call, rc);
	printf("# rank %u: waited %lld ms in %s\n", me, now_ms() - t0, call);
	fflush(stdout);
	_exit(4);
}

/* The launcher tests' job (modes ok, kill, exit, hang). */
static void launcher_modes(const char *mode, int argc, char **argv)
{
	unsigned who = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	int code = argc > 3 ? atoi(argv[3]) : 0;

	if (!strcmp(mode, "peerdied")) {
		if (me == 0) {
			pgas_boot_tell(PGAS_BOOT_PEER_DIED);
			_exit(70);
		}
		if (me == 1) {
			usleep(300 * 1000);
			raise(SIGKILL);
		}
		for (;;)
			pause();
	}
	if (!strcmp(mode, "deadget"))
		deadget(who, argc > 3 && !strcmp(argv[3], "gone"));
	if (!strcmp(mode, "deadwait"))
		deadwait(who, argc > 3 ? argv[3] : "barrier");
	if (!strcmp(mode, "hang")) {
		if (me == 0)
			for (;;)
				pause();
		pgas_barrier(1, 0);
		pgas_exit(1);	/* not reached */
	}
	for (unsigned i = 0; i < 1000; i++) {
		if (i == 200 && me == who) {
			if (!strcmp(mode, "kill"))
				raise(SIGKILL);
			if (!strcmp(mode, "exit"))
				pgas_exit(code);
		}
		pgas_am_request_short((me + 1) % n, H_PING, NULL, 0);
		pgas_block_until(pongs == i + 1);
		pgas_barrier(i, 0);
	}
	pgas_exit(0);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		PINGPONG_HANDLERS, { H_COUNT, h_count }, { H_TRAP, h_trap },
	};
	const char *point = argc > 1 ? argv[1] : "ok";
	int rc;

	/* Before pgas_init: runs after the library's own exit hook. */
	on_exit(at_exit_check, NULL);
	if (pgas_init(&argc, &argv))
		return 1;
	/* Before attach: handlers may run in its barrier. */
	me = pgas_rank();
	n = pgas_nranks();
	how = argc > 2 ? argv[2] : "exit0";
	victim = argc > 3 ? (unsigned)atoi(argv[3]) : n - 1;
	count = argc > 4 ? (unsigned)atoi(argv[4]) : !strcmp(point, "flood") ? 2000 : 40;
	if (t_attach(table, 4, (size_t)BLOCK * 8))
		return 1;
	printf("lifecycle: rank %u ready\n", me);
	fflush(stdout);
	if (!strcmp(point, "ok") || !strcmp(point, "kill") || !strcmp(point, "exit") ||
	    !strcmp(point, "hang") || !strcmp(point, "peerdied") || !strcmp(point, "deadget") ||
	    !strcmp(point, "deadwait"))
		launcher_modes(point, argc, argv);
	if (n < 2 || victim >= n || n > 8) {
		fprintf(stderr, "lifecycle: needs 2..8 ranks and a victim among them\n");
		return 2;
	}
	if (!strcmp(point, "barrier"))
		rc = point_barrier();
	else if (!strcmp(point, "coll"))
		rc = point_coll();
	else if (!strcmp(point, "flood"))
		rc = point_flood();
	else if (!strcmp(point, "handler"))
		rc = point_handler();
	else if (!strcmp(point, "rma"))
		rc = point_rma();
	else {
		fprintf(stderr, "lifecycle: unknown point '%s'\n", point);
		return 2;
	}
	return rc == RETURN_FROM_MAIN ? 0 : 1;
}
