// SPDX-License-Identifier: MIT
/*
 * stats.c - what a rank did: PGAS_STATS counts it and prints the counts at
 * exit; PGAS_TRACE writes a line per event as it happens (docs/stats.md).
 *
 * The library notes what it does out of line itself, behind one branch on
 * pgas__notes_on (never on the inline fast paths).  The inline calls that
 * complete here, on a mapped peer, note themselves only in a program built
 * with -DPGAS_INSTRUMENT (pgas_fast.h: pgas__note); the report says
 * whether the program was.  Counters are relaxed atomics: threads.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "layer.h"

bool pgas__notes_on;
int pgas__instrumented;

static const char *const ev_names[PGAS__EV_N] = {
	[PGAS__EV_PUT_MAPPED] = "put.mapped",
	[PGAS__EV_GET_MAPPED] = "get.mapped",
	[PGAS__EV_PUT_REMOTE] = "put.remote",
	[PGAS__EV_GET_REMOTE] = "get.remote",
	[PGAS__EV_AMO_MAPPED] = "amo.mapped",
	[PGAS__EV_AMO_REMOTE] = "amo.remote",
	[PGAS__EV_PUT_SIGNAL] = "put_signal",
	[PGAS__EV_VIS_PUT_MAPPED] = "vis.put.mapped",
	[PGAS__EV_VIS_GET_MAPPED] = "vis.get.mapped",
	[PGAS__EV_VIS_PUT_REMOTE] = "vis.put.remote",
	[PGAS__EV_VIS_GET_REMOTE] = "vis.get.remote",
	[PGAS__EV_AM_SHORT_REQ] = "am.short.request",
	[PGAS__EV_AM_SHORT_REP] = "am.short.reply",
	[PGAS__EV_AM_MEDIUM_REQ] = "am.medium.request",
	[PGAS__EV_AM_MEDIUM_REP] = "am.medium.reply",
	[PGAS__EV_AM_LONG_REQ] = "am.long.request",
	[PGAS__EV_AM_LONG_REP] = "am.long.reply",
	[PGAS__EV_AM_LIB_SENT] = "am.library.sent",
	[PGAS__EV_RECV_SHORT_REQ] = "am.received.short.request",
	[PGAS__EV_RECV_SHORT_REP] = "am.received.short.reply",
	[PGAS__EV_RECV_MEDIUM_REQ] = "am.received.medium.request",
	[PGAS__EV_RECV_MEDIUM_REP] = "am.received.medium.reply",
	[PGAS__EV_RECV_LONG_REQ] = "am.received.long.request",
	[PGAS__EV_RECV_LONG_REP] = "am.received.long.reply",
	[PGAS__EV_RECV_LIB] = "am.library.received",
	[PGAS__EV_WAIT] = "wait",
	[PGAS__EV_BARRIER] = "barrier",
};

/* PGAS_TRACE's mask bit of each event. */
#define T_RMA	1u
#define T_AMO	2u
#define T_AM	4u
#define T_WAIT	8u
#define T_COLL	PGAS__TRACE_COLL
static unsigned ev_class(enum pgas__ev e)
{
	if (e <= PGAS__EV_GET_REMOTE || (e >= PGAS__EV_PUT_SIGNAL && e <= PGAS__EV_VIS_GET_REMOTE))
		return T_RMA;
	if (e <= PGAS__EV_AMO_REMOTE)
		return T_AMO;
	if (e <= PGAS__EV_RECV_LIB)
		return T_AM;
	return e == PGAS__EV_WAIT ? T_WAIT : T_COLL;
}

struct counter {
	_Atomic uint64_t calls, bytes;
};

/* Size classes of put and get: up to 8, 64, 512 bytes, 4 and 64 KiB, more. */
#define NSIZES 6
static const char *const size_names[NSIZES] = { "le8", "le64", "le512", "le4k", "le64k", "gt64k" };

static struct {
	struct counter ev[PGAS__EV_N];
	struct counter rma[4][NSIZES];	/* put/get x mapped/remote, by size */
} st;

/*
 * From pgas_attach's barrier on (pgas__notes_start(0)), messages that
 * faster ranks send are handled here, and counted; what this rank does
 * itself counts from the end of pgas_attach (pgas__notes_start(1)) to the
 * start of its exit (pgas__notes_stop: the exit's drain waits for others).
 */
static bool counting_mine, waits_stopped;

static bool is_received(enum pgas__ev e)
{
	return e >= PGAS__EV_RECV_SHORT_REQ && e <= PGAS__EV_RECV_LIB;
}

static FILE *trace;
static struct timespec t0;

static unsigned size_class(size_t n)
{
	static const size_t limit[NSIZES - 1] = { 8, 64, 512, 4096, 65536 };
	unsigned c = 0;

	while (c < NSIZES - 1 && n > limit[c])
		c++;
	return c;
}

static uint64_t since_start_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t.tv_nsec -
	       (uint64_t)t0.tv_nsec;
}

static void add(struct counter *c, size_t n)
{
	atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->bytes, n, memory_order_relaxed);
}

/* "%r" in a file name: the rank. */
static FILE *open_for_rank(const char *pattern)
{
	char path[PGAS__CFG_STR + 16];
	size_t o = 0;

	for (const char *p = pattern; *p && o < sizeof(path) - 12; p++) {
		if (p[0] == '%' && p[1] == 'r') {
			o += (size_t)snprintf(path + o, sizeof(path) - o, "%u", pgas__g.rank);
			p++;
		} else {
			path[o++] = *p;
		}
	}
	path[o] = 0;
	return fopen(path, "w");
}

void pgas__ev(enum pgas__ev e, unsigned rank, size_t n)
{
	if (!counting_mine && !is_received(e))
		return;
	if (pgas__cfg.stats) {
		add(&st.ev[e], n);
		if (e <= PGAS__EV_GET_REMOTE)
			add(&st.rma[e][size_class(n)], n);
	}
	pgas__trace_event(ev_class(e), ev_names[e], rank, n);
}

void pgas__trace_event(unsigned cls, const char *name, unsigned rank, size_t n)
{
	if (trace && (pgas__cfg.trace & cls))
		fprintf(trace, "%" PRIu64 " %s %u %zu\n", since_start_ns(), name, rank, n);
}

bool pgas__notes_mine(void)
{
	return counting_mine;
}

void pgas__note(unsigned what, unsigned rank, size_t n)
{
	static const enum pgas__ev ev[] = {
		[PGAS__NOTE_PUT] = PGAS__EV_PUT_MAPPED, [PGAS__NOTE_GET] = PGAS__EV_GET_MAPPED,
		[PGAS__NOTE_AMO] = PGAS__EV_AMO_MAPPED, [PGAS__NOTE_AM_SHORT] = PGAS__EV_AM_SHORT_REQ,
	};

	if (pgas__notes_on && what < sizeof(ev) / sizeof(ev[0]))
		pgas__ev(ev[what], rank, n);
}

uint64_t pgas__wait_clock(void)
{
	return since_start_ns();
}

void pgas__ev_wait(uint64_t started)
{
	uint64_t now = since_start_ns();

	if (pgas__cfg.stats && counting_mine && !waits_stopped)
		add(&st.ev[PGAS__EV_WAIT], now - started);
	/* One line per wait step would drown the rest: the steps of a wait
	 * are summed in the counters only. */
}

/* Before a fork: nothing buffered, which the child would write again. */
static void trace_flush(void)
{
	if (trace)
		fflush(trace);
}

void pgas__notes_stop(void)
{
	waits_stopped = true;
}

void pgas__notes_start(int mine)
{
	static bool hooked;

	if (mine) {
		counting_mine = true;
		return;
	}
	pgas__notes_on = pgas__cfg.stats || pgas__cfg.trace;
	if (!pgas__notes_on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pgas__cfg.trace) {
		trace = open_for_rank(pgas__cfg.trace_file);
		if (!trace) {
			fprintf(stderr, "pgas[%u]: PGAS_TRACE: cannot write %s: %s\n", pgas__g.rank,
				pgas__cfg.trace_file, strerror(errno));
		} else {
			/* A line at a time: what a job that fails wrote stays. */
			setvbuf(trace, NULL, _IOLBF, 0);
			if (!hooked)
				hooked = pthread_atfork(trace_flush, NULL, NULL) == 0;
			fprintf(trace, "# pgas trace: rank %u of %u, pid %ld, mask 0x%x: "
				"nanoseconds event rank bytes\n", pgas__g.rank, pgas__g.nranks,
				(long)getpid(), pgas__cfg.trace);
		}
	}
}

static void line(FILE *f, const char *name, const struct counter *c)
{
	uint64_t calls = atomic_load_explicit(&c->calls, memory_order_relaxed);

	if (calls)
		fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", name, calls,
			atomic_load_explicit(&c->bytes, memory_order_relaxed));
}

/* The counters the inline calls to mapped peers feed (and, out of line,
 * only the calls that left the inline path): shown where they are whole. */
static bool inline_fed(int e)
{
	return e == PGAS__EV_PUT_MAPPED || e == PGAS__EV_GET_MAPPED || e == PGAS__EV_AMO_MAPPED ||
	       e == PGAS__EV_AM_SHORT_REQ;
}

/* The report: written at once (one write for a report of a few KiB), so
 * that ranks writing to one stderr do not interleave their lines. */
void pgas__notes_report(void)
{
	char *buf = NULL, name[96];
	size_t len = 0;
	FILE *f;
	int fd = 2;

	if (trace) {
		fclose(trace);
		trace = NULL;
	}
	if (!pgas__cfg.stats)
		return;
	pgas__notes_on = false;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	fprintf(f, "# pgas stats: rank %u of %u, pid %ld, %.6f s; name calls bytes "
		"(wait: steps, nanoseconds)\n", pgas__g.rank, pgas__g.nranks, (long)getpid(),
		(double)since_start_ns() / 1e9);
	if (!pgas__instrumented)
		fprintf(f, "# the inline calls to mapped peers (put/get, AMOs, AM Short requests) "
			"are not counted: build the program with -DPGAS_INSTRUMENT\n");
	for (int e = 0; e < PGAS__EV_N; e++) {
		if (!pgas__instrumented && inline_fed(e))
			continue;
		line(f, ev_names[e], &st.ev[e]);
		for (int s = 0; e <= PGAS__EV_GET_REMOTE && s < NSIZES; s++) {
			snprintf(name, sizeof(name), "%s.%s", ev_names[e], size_names[s]);
			line(f, name, &st.rma[e][s]);
		}
	}
	pgas__layers_report(f);	/* the collectives' */
	fclose(f);
	if (pgas__cfg.stats_file[0]) {
		FILE *out = open_for_rank(pgas__cfg.stats_file);

		if (!out) {
			fprintf(stderr, "pgas[%u]: PGAS_STATS_FILE: cannot write %s: %s\n",
				pgas__g.rank, pgas__cfg.stats_file, strerror(errno));
		} else {
			fwrite(buf, 1, len, out);
			fclose(out);
		}
	} else {
		for (size_t o = 0; o < len;) {
			ssize_t w = write(fd, buf + o, len - o);

			if (w <= 0)
				break;
			o += (size_t)w;
		}
	}
	free(buf);
}
