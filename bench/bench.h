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
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void bench_result(const char *name, double value, const char *unit)
{
	printf("RESULT %s %.6g %s\n", name, value, unit);
	fflush(stdout);
}

/* Best (lowest) of several repetitions: the least disturbed measurement. */
#define BENCH_REPS 5

#endif /* PGAS_BENCH_H */
