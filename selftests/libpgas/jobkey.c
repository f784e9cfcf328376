// SPDX-License-Identifier: MIT
/*
 * jobkey - the job a process outside it attacks (selftests/ofi/intruder.c;
 * check-native's ofi block runs both, PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none
 * FI_PROVIDER=tcp): every rank writes its pid to DIR/pid.RANK and polls
 * until DIR/done appears (the intruder has sent its messages with a wrong
 * job key), then 100 AM requests go to the next rank and barriers run.
 * Each rank's handler must have counted exactly its 100 (an injected
 * request adds 1000), the barriers must pass; the ofi conduit counts the
 * intruder's messages dropped (its exit line, docs/ofi.md).  Every wait is
 * bounded.  Without DIR it runs the same job with nobody attacking.
 *
 *   jobkey [DIR]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define H_ADD 7
#define NREQ 100

static volatile uint64_t got;

static void h_add(pgas_token_t tok, void *buf, size_t nbytes, const uint32_t *args,
		  unsigned nargs)
{
	(void)tok, (void)buf, (void)nbytes;
	if (nargs == 1)
		__atomic_fetch_add(&got, args[0], __ATOMIC_RELAXED);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Polls for secs, or until cond holds (NULL: the whole time). */
static bool poll_for(double secs, bool (*cond)(const char *), const char *arg)
{
	double t0 = now_s();

	while (now_s() - t0 < secs) {
		if (pgas_poll() < 0)
			return false;
		if (cond && cond(arg))
			return true;
	}
	return !cond;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool all_got(const char *unused)
{
	(void)unused;
	return __atomic_load_n(&got, __ATOMIC_RELAXED) >= NREQ;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t tab[] = { { H_ADD, h_add } };
	const char *dir = argc > 1 ? argv[1] : NULL;
	char path[4096], tmp[4200];
	unsigned me, n;
	bool ok;

	if (pgas_init(NULL, NULL) || t_attach(tab, 1, 1 << 16))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (dir) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/pid.%u", dir, me);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		f = fopen(tmp, "w");
		T_CHECK(f && fprintf(f, "%d\n", (int)getpid()) > 0 && !fclose(f) &&
			!rename(tmp, path), "rank %u: writing %s", me, path);
	}
	pgas_barrier(0, 0);
	if (dir) {
		snprintf(path, sizeof(path), "%s/done", dir);
		T_CHECK(poll_for(30, exists, path), "rank %u: %s did not appear in 30 s", me, path);
		poll_for(0.3, NULL, NULL);	/* what is still on its way arrives */
	}
	t_case("the job ran while a process outside it sent messages to its endpoints");

	for (uint32_t i = 0; i < NREQ && n > 1; i++) {
		uint32_t one = 1;

		T_CHECK(pgas_am_request_short((me + 1) % n, H_ADD, &one, 1) == 0,
			"rank %u: request %u", me, i);
	}
	ok = n < 2 || poll_for(20, all_got, NULL);
	T_CHECK(ok, "rank %u: %llu of %d requests arrived in 20 s", me,
		(unsigned long long)got, NREQ);
	for (unsigned i = 0; i < 20; i++)
		pgas_barrier(0, 0);
	poll_for(0.1, NULL, NULL);
	pgas_barrier(0, 0);
	T_CHECK(n < 2 || got == NREQ, "rank %u: its handler added %llu, not %d (a message from "
		"outside the job was dispatched)", me, (unsigned long long)got, NREQ);
	t_case("the handler ran for the job's %d requests and no other; 21 barriers", NREQ);
	t_done();
	pgas_exit(0);
}
