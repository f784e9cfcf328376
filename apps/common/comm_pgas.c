// SPDX-License-Identifier: MIT
/* The applications' communication over libpgas: non-blocking puts, quiet
 * + barrier, puts with signals, the job team's exchange and reductions
 * (comm.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgas.h"
#include "comm.h"

const char comm_name[] = "libpgas";
static char *area;
/*
 * COMM_PROGRESS (docs/apps.md, "Progress"): what moves the transfers while
 * the application computes, where a network does (on one host a put is
 * done in its call): "none" (the library's calls only), "poll" (a
 * pgas_poll after each put), "thread" (libpgas's progress thread).
 */
static enum { PROG_NONE, PROG_POLL, PROG_THREAD } progress;

void comm_fail(const char *call, const char *what)
{
	fprintf(stderr, "%s (rank %u): %s: %s\n", comm_program, pgas_rank(), call, what);
	fflush(stderr);
	pgas_global_exit(1);
}

static void check(int rc, const char *call)
{
	if (rc < 0)
		comm_fail(call, pgas_strerror(rc));
}

void comm_init(int *argc, char ***argv)
{
	const char *p = getenv("COMM_PROGRESS");
	int provided;

	if (p && !strcmp(p, "poll"))
		progress = PROG_POLL;
	else if (p && !strcmp(p, "thread"))
		progress = PROG_THREAD;
	else if (p && *p && strcmp(p, "none")) {
		fprintf(stderr, "%s: COMM_PROGRESS '%s': one of none, poll, thread\n",
			comm_program, p);
		exit(2);
	}
	if (progress == PROG_THREAD) {
		check(pgas_init_thread(argc, argv, PGAS_THREAD_MULTIPLE, &provided),
		      "pgas_init_thread");
		if (provided != PGAS_THREAD_MULTIPLE)
			comm_fail("pgas_init_thread", "PGAS_THREAD_MULTIPLE not provided");
	} else {
		check(pgas_init(argc, argv), "pgas_init");
	}
}

void *comm_area(size_t bytes)
{
	check(pgas_attach(NULL, 0, bytes), "pgas_attach");
	area = pgas_segment_addr(pgas_rank());
	if (progress == PROG_THREAD)
		check(pgas_progress_thread_start(), "pgas_progress_thread_start");
	return area;
}

unsigned comm_rank(void)
{
	return pgas_rank();
}

unsigned comm_size(void)
{
	return pgas_nranks();
}

void comm_put(unsigned rank, size_t off, const void *src, size_t n)
{
	/* The peer's segment starts where ours does, as libpgas addresses it. */
	check(pgas_put_nbi(rank, (char *)pgas_segment_addr(rank) + off, src, n), "pgas_put_nbi");
	if (progress == PROG_POLL)
		check(pgas_poll(), "pgas_poll");
}

void comm_expect(unsigned rank, size_t off, size_t n)
{
	(void)rank, (void)off, (void)n;
}

void comm_complete(void)
{
	check(pgas_quiet(), "pgas_quiet");
	comm_barrier();
}

void comm_put_signal(unsigned rank, size_t off, const void *src, size_t n, size_t sig_off)
{
	char *base = pgas_segment_addr(rank);

	check(pgas_put_with_signal(rank, base + off, src, n, (uint64_t *)(base + sig_off), 1,
				   PGAS_SIGNAL_ADD), "pgas_put_with_signal");
}

void comm_wait_signals(const size_t *sig_offs, unsigned n, uint64_t value)
{
	for (unsigned i = 0; i < n; i++)
		check(pgas_wait_until_u64((const uint64_t *)(area + sig_offs[i]), PGAS_CMP_GE, value),
		      "pgas_wait_until_u64");
}

void comm_exchange(size_t dst_off, size_t src_off, size_t block)
{
	check(pgas_exchange(pgas_team_all(), area + dst_off, area + src_off, block,
			    PGAS_COLL_MYSYNC), "pgas_exchange");
}

static void reduce(void *v, unsigned n, pgas_type_t type, pgas_op_t op)
{
	check(pgas_reduce_all(pgas_team_all(), v, v, n, type, op, PGAS_COLL_MYSYNC),
	      "pgas_reduce_all");
}

void comm_sum(double *v, unsigned n)
{
	reduce(v, n, PGAS_DOUBLE, PGAS_OP_SUM);
}

void comm_max(double *v, unsigned n)
{
	reduce(v, n, PGAS_DOUBLE, PGAS_OP_MAX);
}

void comm_sum_u64(uint64_t *v, unsigned n)
{
	reduce(v, n, PGAS_UINT64, PGAS_OP_SUM);
}

void comm_barrier(void)
{
	check(pgas_team_barrier(pgas_team_all()), "pgas_team_barrier");
}

/* Every rank calls it: a barrier first, so that a rank ending with rc != 0
 * (which ends the job) cuts no other rank's report short. */
void comm_finish(int rc)
{
	fflush(stdout);
	if (rc)
		comm_barrier();
	pgas_exit(rc);
}
