// SPDX-License-Identifier: MIT
/* The applications' communication over MPI, as the overlap paper's MPI-C
 * versions: the receives preposted (comm_expect), MPI_Isend for each
 * piece, MPI_Waitall; MPI_Alltoall for the exchange (comm.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include "comm.h"

const char comm_name[] = "MPI";
static char *area;
static MPI_Request *reqs;
static size_t nreqs, cap;
/* comm_put_signal's copies of its sources, freed by comm_complete. */
static void **copies;
static size_t ncopies, copies_cap;

void comm_fail(const char *call, const char *what)
{
	int me = -1, up = 0;

	MPI_Initialized(&up);
	if (up)
		MPI_Comm_rank(MPI_COMM_WORLD, &me);
	fprintf(stderr, "%s (rank %d): %s: %s\n", comm_program, me, call, what);
	fflush(stderr);
	if (up)
		MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* MPI counts are ints. */
static int count(size_t n, const char *call)
{
	if (n > INT_MAX)
		comm_fail(call, "a message over INT_MAX bytes");
	return (int)n;
}

static void check(int rc, const char *call)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (rc == MPI_SUCCESS)
		return;
	MPI_Error_string(rc, text, &len);
	comm_fail(call, text);
}

void comm_init(int *argc, char ***argv)
{
	check(MPI_Init(argc, argv), "MPI_Init");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

void *comm_area(size_t bytes)
{
	area = malloc(bytes);
	if (!area)
		comm_fail("malloc", "no memory for the arrays");
	return area;
}

unsigned comm_rank(void)
{
	int r;

	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	return (unsigned)r;
}

unsigned comm_size(void)
{
	int n;

	MPI_Comm_size(MPI_COMM_WORLD, &n);
	return (unsigned)n;
}

static MPI_Request *next_request(void)
{
	if (nreqs == cap) {
		cap = cap ? 2 * cap : 1024;
		reqs = realloc(reqs, cap * sizeof(*reqs));
		if (!reqs)
			comm_fail("realloc", "no memory for the requests");
	}
	return &reqs[nreqs++];
}

/* Pieces are matched in the order they are posted and sent (MPI's
 * non-overtaking rule): one tag serves them all. */
void comm_put(unsigned rank, size_t off, const void *src, size_t n)
{
	(void)off;
	check(MPI_Isend(src, count(n, "MPI_Isend"), MPI_BYTE, (int)rank, 0, MPI_COMM_WORLD, next_request()),
	      "MPI_Isend");
}

void comm_expect(unsigned rank, size_t off, size_t n)
{
	check(MPI_Irecv(area + off, count(n, "MPI_Irecv"), MPI_BYTE, (int)rank, 0, MPI_COMM_WORLD,
			next_request()), "MPI_Irecv");
}

void comm_complete(void)
{
	check(MPI_Waitall((int)nreqs, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
	nreqs = 0;
	while (ncopies)
		free(copies[--ncopies]);
}

/* src may be reused on return: the message is sent from a copy. */
void comm_put_signal(unsigned rank, size_t off, const void *src, size_t n, size_t sig_off)
{
	void *c = malloc(n ? n : 1);

	(void)sig_off;
	if (ncopies == copies_cap) {
		void **more = realloc(copies, 2 * (copies_cap + 32) * sizeof(*copies));

		if (!more)
			comm_fail("realloc", "no memory for a message's copy");
		copies = more;
		copies_cap = 2 * (copies_cap + 32);
	}
	if (!c)
		comm_fail("malloc", "no memory for a message's copy");
	memcpy(c, src, n);
	copies[ncopies++] = c;
	comm_put(rank, off, c, n);
}

void comm_wait_signals(const size_t *sig_offs, unsigned n, uint64_t value)
{
	(void)sig_offs, (void)n, (void)value;
	comm_complete();
}

void comm_exchange(size_t dst_off, size_t src_off, size_t block)
{
	int n = count(block, "MPI_Alltoall");

	check(MPI_Alltoall(area + src_off, n, MPI_BYTE, area + dst_off, n, MPI_BYTE,
			   MPI_COMM_WORLD), "MPI_Alltoall");
}

void comm_sum(double *v, unsigned n)
{
	check(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
	      "MPI_Allreduce");
}

void comm_max(double *v, unsigned n)
{
	check(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
	      "MPI_Allreduce");
}

void comm_sum_u64(uint64_t *v, unsigned n)
{
	check(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
	      "MPI_Allreduce");
}

void comm_barrier(void)
{
	check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

void comm_finish(int rc)
{
	fflush(stdout);
	MPI_Finalize();
	exit(rc);
}
