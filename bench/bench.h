/* SPDX-License-Identifier: MIT */
/*
 * bench.h - timing and reporting shared by the benchmark programs.
 * Every result is one line "RESULT <name> <value> <unit>" on stdout, which
 * scripts/bench.py gathers into the table and the JSON report.
 */
#ifndef PGAS_BENCH_H
#define PGAS_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What the library's spin waits do between polls (core/wait.c cpu_relax). */
static inline void bench_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static inline void bench_result(const char *name, double value, const char *unit)
{
	printf("RESULT %s %.6g %s\n", name, value, unit);
	fflush(stdout);
}

/*
 * Best (lowest) of several repetitions: the least disturbed measurement.
 * PGAS_BENCH_REPS (default 5) sets how many: on a loaded machine, more and
 * shorter repetitions (with PGAS_BENCH_SCALE) let the best miss the bursts
 * of other work (scripts/bench-multihost.sh, both libpgas and its peers).
 */
static inline int bench_reps(void)
{
	static int reps;

	if (!reps) {
		const char *e = getenv("PGAS_BENCH_REPS");
		long v = e ? strtol(e, NULL, 10) : 5;

		reps = v < 1 ? 1 : v > 1000 ? 1000 : (int)v;
	}
	return reps;
}
#define BENCH_REPS bench_reps()

/*
 * PGAS_BENCH_SCALE divides iteration counts (1 when unset): the peers take
 * it as pgas_bench does, so that a run over a slow fabric
 * (scripts/bench-multihost.sh) stays short.  Never below min.
 */
static inline unsigned long bench_scaled(unsigned long n, unsigned long min)
{
	const char *e = getenv("PGAS_BENCH_SCALE");
	unsigned long s = e ? strtoul(e, NULL, 0) : 1;

	n /= s ? s : 1;
	return n < min ? min : n;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..k-1] (sorts v). */
static inline double bench_median(double *v, int k)
{
	qsort(v, (size_t)k, sizeof(*v), bench_cmp_double);
	return v[k / 2];
}

/*
 * Section selection: the sections named in argv[first..argc-1], all of them
 * when none is named.
 */
static inline int bench_want(int argc, char **argv, int first, const char *section)
{
	if (argc <= first)
		return 1;
	for (int i = first; i < argc; i++)
		if (!strcmp(argv[i], section))
			return 1;
	return 0;
}

/*
 * The sections of bench/atomic_bench and its peers, in order, those named
 * in argv[first..] (all by default): lat and pingpong take two ranks.
 */
static inline void bench_atomic_sections(int argc, char **argv, int first, int nranks,
					 void (*lat)(void), void (*pingpong)(void),
					 void (*tput)(int contended))
{
	if (nranks >= 2 && bench_want(argc, argv, first, "lat"))
		lat();
	if (nranks >= 2 && bench_want(argc, argv, first, "pingpong"))
		pingpong();
	if (bench_want(argc, argv, first, "tput"))
		tput(0);
	if (bench_want(argc, argv, first, "contended"))
		tput(1);
}

#endif /* PGAS_BENCH_H */
