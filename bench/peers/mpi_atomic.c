// SPDX-License-Identifier: MIT
/*
 * mpi_atomic - the MPI peers of bench/atomic_bench (built with Open MPI's
 * and MPICH's mpicc): passive-target atomics in a window from
 * MPI_Win_allocate under MPI_Win_lock_all.
 *
 *   mpirun -n N mpi_atomic PREFIX [section...]   lat pingpong tput contended
 *
 * The sections are atomic_peer.h's, with these operations.
 *
 * lat: rank 0 -> a word of rank 1, MPI_Fetch_and_op(MPI_SUM) and
 * MPI_Compare_and_swap (each succeeds), each followed by MPI_Win_flush.
 * pingpong: ranks 0 and 1 take turns on a word of rank 1: read with
 * MPI_Fetch_and_op(MPI_NO_OP) + flush until it is 2i+me, then fetch-add +
 * flush; or compare-and-swap + flush retried until it succeeds.  tput:
 * every rank to its own word on rank (me+1) % N; contended: every rank to
 * one word on rank 0: MPI_Accumulate(MPI_SUM) with a flush every 256 and at
 * the end, and MPI_Fetch_and_op + flush; Mops/s of all ranks, barrier to
 * barrier.  Median of 7.  Prints "RESULT PREFIX.atomic.NAME value unit".
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "atomic_peer.h"

#define DISP(i) ((MPI_Aint)(i) * 16)	/* one word per 128 bytes */

static MPI_Win win;
static uint64_t *base;

static void peer_reset(int r, int wi)
{
	uint64_t zero = 0, old;

	MPI_Barrier(MPI_COMM_WORLD);
	if (me == r) {
		MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, r, DISP(wi), MPI_REPLACE, win);
		MPI_Win_flush(r, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
}

static uint64_t peer_fadd(int r, int wi, uint64_t v)
{
	uint64_t old;

	MPI_Fetch_and_op(&v, &old, MPI_UINT64_T, r, DISP(wi), MPI_SUM, win);
	MPI_Win_flush(r, win);
	return old;
}

static uint64_t peer_fetch(int r, int wi)
{
	uint64_t old;

	MPI_Fetch_and_op(NULL, &old, MPI_UINT64_T, r, DISP(wi), MPI_NO_OP, win);
	MPI_Win_flush(r, win);
	return old;
}

static uint64_t peer_cas(int r, int wi, uint64_t cmp, uint64_t v)
{
	uint64_t old;

	MPI_Compare_and_swap(&v, &cmp, &old, MPI_UINT64_T, r, DISP(wi), win);
	MPI_Win_flush(r, win);
	return old;
}

/* Both ranks read the word with MPI_Fetch_and_op(MPI_NO_OP). */
static int peer_owner_wait(uint64_t turn)
{
	(void)turn;
	return 0;
}

/* The origin buffer of the accumulates: unchanged until they complete. */
static const uint64_t one = 1;

static void peer_add(int r, int wi, long i)
{
	MPI_Accumulate(&one, 1, MPI_UINT64_T, r, DISP(wi), 1, MPI_UINT64_T, MPI_SUM, win);
	if (i % 256 == 255)
		MPI_Win_flush(r, win);
}

static void peer_complete(int r)
{
	MPI_Win_flush(r, win);
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	prefix = argc > 1 ? argv[1] : "mpi";
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n > 16)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Win_allocate(16 * 16 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	memset(base, 0, 16 * 16 * 8);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	bench_atomic_sections(argc, argv, 2, n, lat_section, pingpong_section, tput_section);
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
