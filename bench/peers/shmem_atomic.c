// SPDX-License-Identifier: MIT
/*
 * shmem_atomic - OpenSHMEM (Open MPI's oshmem) peer of bench/atomic_bench:
 * the same patterns on a symmetric long.
 *
 *   oshrun -n N shmem_atomic [section...]   lat pingpong tput contended
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bench.h"

#define REPS 7
#define W(i) (words + (i) * 16)	/* one word per 128 bytes */

static long words[16 * 16];
static int me, n;
static volatile long sink;

static void reset(int pe, int wi)
{
	shmem_barrier_all();
	if (me == pe)
		shmem_atomic_set(W(wi), 0, pe);
	shmem_quiet();
	shmem_barrier_all();
}

static void lat_section(void)
{
	const long iters = 100000;
	double t[2][REPS];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			reset(1, 0);
			t[k][rep] = 0;
			if (me == 0) {
				long acc = 0, cur = 0;
				double t0 = bench_now();

				for (long i = 0; i < iters; i++) {
					if (k == 0)
						acc += shmem_atomic_fetch_add(W(0), 1, 1);
					else
						cur = shmem_atomic_compare_swap(W(0), cur, cur + 1, 1) + 1;
				}
				t[k][rep] = (bench_now() - t0) / iters;
				sink = acc + cur;
			}
		}
	if (me == 0) {
		bench_result("oshmem.atomic.fadd_lat", bench_median(t[0], REPS) * 1e9, "ns");
		bench_result("oshmem.atomic.cas_lat", bench_median(t[1], REPS) * 1e9, "ns");
	}
}

static void pingpong_section(void)
{
	const long iters = 2000;
	double t[2][REPS];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			reset(1, 0);
			t[k][rep] = 0;
			if (me < 2) {
				double t0 = bench_now();

				for (long i = 0; i < iters; i++) {
					long turn = 2 * i + me;

					if (k == 0) {
						/* the owner waits on its own word */
						if (me == 1)
							shmem_long_wait_until(W(0), SHMEM_CMP_EQ, turn);
						else
							while (shmem_atomic_fetch(W(0), 1) != turn)
								;
						shmem_atomic_fetch_add(W(0), 1, 1);
					} else {
						/* An owner retrying compare_swap on its own word
						 * never lets PE 0's through here (it hung): it
						 * waits for its turn first. */
						if (me == 1)
							shmem_long_wait_until(W(0), SHMEM_CMP_EQ, turn);
						while (shmem_atomic_compare_swap(W(0), turn, turn + 1, 1) != turn)
							;
					}
				}
				t[k][rep] = (bench_now() - t0) / iters;
			}
			if (getenv("SHMEM_ATOMIC_DEBUG"))
				fprintf(stderr, "pe %d rep %d kind %d done\n", me, rep, k);
		}
	if (me == 0) {
		bench_result("oshmem.atomic.fadd_pingpong", bench_median(t[0], REPS) * 1e9, "ns");
		bench_result("oshmem.atomic.cas_pingpong", bench_median(t[1], REPS) * 1e9, "ns");
	}
}

static void tput_section(int contended)
{
	const long iters = contended ? 200000 / n : 200000;
	int pe = contended ? 0 : (me + 1) % n, wi = contended ? 0 : me;
	double t[2][REPS];
	char name[80];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < 2; k++) {
			long acc = 0;
			double t0;

			reset(pe, wi);
			t0 = bench_now();
			for (long i = 0; i < iters; i++) {
				if (k == 0)
					shmem_atomic_add(W(wi), 1, pe);
				else
					acc += shmem_atomic_fetch_add(W(wi), 1, pe);
			}
			shmem_quiet();
			shmem_barrier_all();
			t[k][rep] = (double)iters * n / (bench_now() - t0) / 1e6;
			sink = acc;
		}
	if (me == 0) {
		snprintf(name, sizeof(name), "oshmem.atomic.add_%s.%d", contended ? "contended" : "tput", n);
		bench_result(name, bench_median(t[0], REPS), "Mops/s");
		snprintf(name, sizeof(name), "oshmem.atomic.fadd_%s.%d", contended ? "contended" : "tput", n);
		bench_result(name, bench_median(t[1], REPS), "Mops/s");
	}
}

int main(int argc, char **argv)
{
	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	if (n > 16)
		shmem_global_exit(2);
	if (n >= 2 && bench_want(argc, argv, 1, "lat"))
		lat_section();
	if (n >= 2 && bench_want(argc, argv, 1, "pingpong"))
		pingpong_section();
	if (bench_want(argc, argv, 1, "tput"))
		tput_section(0);
	if (bench_want(argc, argv, 1, "contended"))
		tput_section(1);
	fflush(stdout);
	shmem_barrier_all();
	shmem_finalize();
	return 0;
}
