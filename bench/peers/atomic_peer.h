/* SPDX-License-Identifier: MIT */
/*
 * atomic_peer.h - the sections of bench/atomic_bench as its peers run them
 * (mpi_atomic.c, shmem_atomic.c): the same patterns, iteration counts and
 * result names, each peer giving its own operations.  Plain C11 on top of
 * bench.h; the peer defines, after including this:
 *
 *   peer_reset(r, wi)        word wi of rank r set to 0, between barriers
 *   peer_fadd(r, wi, v)      fetch-add, complete on return: the old value
 *   peer_fetch(r, wi)        atomic read, complete on return
 *   peer_cas(r, wi, c, v)    compare-and-swap, complete on return: the old value
 *   peer_owner_wait(turn)    pingpong: 1 where this rank, the word's owner
 *                            (rank 1), has waited for the word to be turn by
 *                            its own means; 0 where it reads it with peer_fetch
 *   peer_add(r, wi, i)       the i-th non-fetching add of a run to word wi of r
 *   peer_complete(r)         the adds to r complete, then a barrier
 *
 * and sets me, n and prefix (results "RESULT PREFIX.atomic.NAME value unit",
 * from rank 0).  PEER_PINGPONG_ITERS is the number of ping-pong rounds
 * (20000 unless the peer says); PEER_DEBUG_ENV, where defined, names an
 * environment variable that has each rank say when a ping-pong run ends.
 * Median of REPS (7).
 */
#ifndef PGAS_BENCH_ATOMIC_PEER_H
#define PGAS_BENCH_ATOMIC_PEER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "../bench.h"

#define REPS 7
#ifndef PEER_PINGPONG_ITERS
#define PEER_PINGPONG_ITERS 20000
#endif

static int me, n;
static const char *prefix;
static volatile uint64_t sink;

static void peer_reset(int r, int wi);
static uint64_t peer_fadd(int r, int wi, uint64_t v);
static uint64_t peer_fetch(int r, int wi);
static uint64_t peer_cas(int r, int wi, uint64_t cmp, uint64_t v);
static int peer_owner_wait(uint64_t turn);
static void peer_add(int r, int wi, long i);
static void peer_complete(int r);

static void report(const char *what, double value, const char *unit)
{
	char name[96];

	snprintf(name, sizeof(name), "%s.atomic.%s", prefix, what);
	if (me == 0)
		bench_result(name, value, unit);
}

/* lat: rank 0 -> a word of rank 1, fetch-add and compare-and-swap (each succeeds). */
static void lat_section(void)
{
	const long iters = 100000;
	double t[2][REPS];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			peer_reset(1, 0);
			t[k][rep] = 0;
			if (me == 0) {
				uint64_t acc = 0, cur = 0;
				double t0 = bench_now();

				for (long i = 0; i < iters; i++) {
					if (k == 0)
						acc += peer_fadd(1, 0, 1);
					else
						cur = peer_cas(1, 0, cur, cur + 1) + 1;
				}
				t[k][rep] = (bench_now() - t0) / iters;
				sink = acc + cur;
			}
		}
	report("fadd_lat", bench_median(t[0], REPS) * 1e9, "ns");
	report("cas_lat", bench_median(t[1], REPS) * 1e9, "ns");
}

/* pingpong: ranks 0 and 1 take turns on a word of rank 1, 2i + me its turn. */
static void pingpong_section(void)
{
	const long iters = PEER_PINGPONG_ITERS;
	double t[2][REPS];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			peer_reset(1, 0);
			t[k][rep] = 0;
			if (me < 2) {
				double t0 = bench_now();

				for (long i = 0; i < iters; i++) {
					uint64_t turn = 2 * (uint64_t)i + (uint64_t)me;

					if (k == 0) {
						if (!peer_owner_wait(turn))
							while (peer_fetch(1, 0) != turn)
								;
						peer_fadd(1, 0, 1);
					} else {
						peer_owner_wait(turn);
						while (peer_cas(1, 0, turn, turn + 1) != turn)
							;
					}
				}
				t[k][rep] = (bench_now() - t0) / iters;
			}
#ifdef PEER_DEBUG_ENV
			if (getenv(PEER_DEBUG_ENV))
				fprintf(stderr, "pe %d rep %d kind %d done\n", me, rep, k);
#endif
		}
	report("fadd_pingpong", bench_median(t[0], REPS) * 1e9, "ns");
	report("cas_pingpong", bench_median(t[1], REPS) * 1e9, "ns");
}

/*
 * tput: every rank to its own word on rank (me+1) % n; contended: every
 * rank to one word of rank 0.  Non-fetching add and fetch-add, Mops/s of
 * all ranks, barrier to barrier.
 */
static void tput_section(int contended)
{
	const long iters = contended ? 200000 / n : 200000;
	int r = contended ? 0 : (me + 1) % n, wi = contended ? 0 : me;
	double t[2][REPS];
	char name[80];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			uint64_t acc = 0;
			double t0;

			peer_reset(r, wi);
			t0 = bench_now();
			for (long i = 0; i < iters; i++) {
				if (k == 0)
					peer_add(r, wi, i);
				else
					acc += peer_fadd(r, wi, 1);
			}
			peer_complete(r);
			t[k][rep] = (double)iters * n / (bench_now() - t0) / 1e6;
			sink = acc;
		}
	snprintf(name, sizeof(name), "add_%s.%d", contended ? "contended" : "tput", n);
	report(name, bench_median(t[0], REPS), "Mops/s");
	snprintf(name, sizeof(name), "fadd_%s.%d", contended ? "contended" : "tput", n);
	report(name, bench_median(t[1], REPS), "Mops/s");
}

#endif /* PGAS_BENCH_ATOMIC_PEER_H */
