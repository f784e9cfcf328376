// SPDX-License-Identifier: MIT
/*
 * shmem_atomic - OpenSHMEM (Open MPI's oshmem) peer of bench/atomic_bench:
 * the same patterns on a symmetric long.
 *
 *   oshrun -n N shmem_atomic [section...]   lat pingpong tput contended
 *
 * The sections are atomic_peer.h's, with these operations.
 *
 * lat: PE 0 -> a word of PE 1, shmem_atomic_fetch_add / _compare_swap
 * (each CAS succeeds), others in shmem_barrier_all.  pingpong: PEs 0 and 1
 * take turns on a word of PE 1 (PE 0: shmem_atomic_fetch until it is 2i,
 * PE 1 (the owner): shmem_long_wait_until 2i+1; then fetch-add; or CAS
 * retried until it succeeds, the owner waiting for its turn first: an
 * owner spinning on compare_swap to itself livelocked oshmem 4.1).  tput: every PE to its own
 * word on PE (me+1) % N; contended: every PE to one word on PE 0;
 * shmem_atomic_add (a shmem_quiet at the end, timed) and
 * shmem_atomic_fetch_add, Mops/s of all PEs, barrier to barrier.  Median of
 * 7.  Results are printed before shmem_finalize (known to crash here).
 */
#define _GNU_SOURCE
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define PEER_PINGPONG_ITERS 2000
#define PEER_DEBUG_ENV "SHMEM_ATOMIC_DEBUG"
#include "atomic_peer.h"

#define W(i) (words + (i) * 16)	/* one word per 128 bytes */

static long words[16 * 16];

static void peer_reset(int pe, int wi)
{
	shmem_barrier_all();
	if (me == pe)
		shmem_atomic_set(W(wi), 0, pe);
	shmem_quiet();
	shmem_barrier_all();
}

static uint64_t peer_fadd(int pe, int wi, uint64_t v)
{
	return (uint64_t)shmem_atomic_fetch_add(W(wi), (long)v, pe);
}

static uint64_t peer_fetch(int pe, int wi)
{
	return (uint64_t)shmem_atomic_fetch(W(wi), pe);
}

static uint64_t peer_cas(int pe, int wi, uint64_t cmp, uint64_t v)
{
	return (uint64_t)shmem_atomic_compare_swap(W(wi), (long)cmp, (long)v, pe);
}

/*
 * The owner (PE 1) waits on its own word, for fetch-add and before its
 * compare_swap alike: an owner retrying compare_swap on its own word never
 * lets PE 0's through (it hung).
 */
static int peer_owner_wait(uint64_t turn)
{
	if (me != 1)
		return 0;
	shmem_long_wait_until(W(0), SHMEM_CMP_EQ, (long)turn);
	return 1;
}

static void peer_add(int pe, int wi, long i)
{
	(void)i;
	shmem_atomic_add(W(wi), 1, pe);
}

static void peer_complete(int pe)
{
	(void)pe;
	shmem_quiet();
	shmem_barrier_all();
}

int main(int argc, char **argv)
{
	shmem_init();
	prefix = "oshmem";
	me = shmem_my_pe();
	n = shmem_n_pes();
	if (n > 16)
		shmem_global_exit(2);
	bench_atomic_sections(argc, argv, 1, n, lat_section, pingpong_section, tput_section);
	fflush(stdout);
	shmem_barrier_all();
	shmem_finalize();
	return 0;
}
