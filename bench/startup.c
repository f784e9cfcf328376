// SPDX-License-Identifier: MIT
/*
 * startup - how long a job takes to start, by phase, and what it maps.
 *
 *   pgasrun -n 512 build/bench/startup [segsize]
 *
 * Every rank stamps the start of main, the end of pgas_init, of
 * pgas_attach (a 1 MiB segment unless told) and of the first barrier; rank
 * 0 gathers the stamps with puts and prints, as RESULT lines (bench.h),
 * each phase from the moment the last rank entered it (launch: from
 * PGAS_BENCH_T0, date +%s.%N before pgasrun, or else from the first
 * rank's start), and this process's mappings, resident memory and page
 * tables.  The end (pgas_exit and the exits) is the rest of pgasrun's time.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "pgas.h"

enum { STAMPS = 4 };	/* main, after init, after attach, after the barrier */

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);	/* comparable across processes and with date(1) */
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Lines of /proc/self/maps; VmRSS and VmPTE in KiB. */
static void memory(unsigned long *maps, unsigned long *rss_kib, unsigned long *pte_kib)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	*maps = 0;
	*rss_kib = 0;
	*pte_kib = 0;
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (strchr(line, '\n'))
				(*maps)++;
		fclose(f);
	}
	f = fopen("/proc/self/status", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "VmRSS: %lu", rss_kib) != 1)
				sscanf(line, "VmPTE: %lu", pte_kib);
		fclose(f);
	}
}

static void result(const char *what, unsigned n, double v, const char *unit)
{
	char key[64];

	snprintf(key, sizeof(key), "startup.%s.%u", what, n);
	bench_result(key, v, unit);
}

int main(int argc, char **argv)
{
	double t[STAMPS];
	size_t seg = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20;
	unsigned me, n;
	double *all;

	t[0] = wall_now();
	if (pgas_init(&argc, &argv))
		return 1;
	t[1] = wall_now();
	if (pgas_attach(NULL, 0, seg < 4096 * 8 ? 4096 * 8 : seg))
		return 1;
	t[2] = wall_now();
	pgas_barrier(0, 0);
	t[3] = wall_now();
	me = pgas_rank();
	n = pgas_nranks();
	/* Each rank's stamps into rank 0's segment. */
	all = pgas_segment_addr(0);
	if (pgas_put(0, all + (size_t)me * STAMPS, t, sizeof(t)))
		return 1;
	pgas_barrier(0, 0);
	if (me == 0) {
		const char *t0 = getenv("PGAS_BENCH_T0");	/* date +%s.%N before pgasrun */
		double first = 1e300, last[STAMPS] = { 0 };
		unsigned long maps, rss, pte;

		all = pgas_segment_addr(me);
		for (unsigned r = 0; r < n; r++)
			for (int p = 0; p < STAMPS; p++) {
				double v = all[(size_t)r * STAMPS + p];

				if (v > last[p])
					last[p] = v;
				if (!p && v < first)
					first = v;
			}
		/* Each phase from the moment the last rank entered it. */
		result("launch", n, last[0] - (t0 ? strtod(t0, NULL) : first), "s");
		result("init", n, last[1] - last[0], "s");
		result("attach", n, last[2] - last[1], "s");
		result("barrier", n, last[3] - last[2], "s");
		memory(&maps, &rss, &pte);
		result("maps", n, (double)maps, "mappings");
		result("rss", n, (double)rss, "KiB");
		result("pte", n, (double)pte, "KiB");
	}
	pgas_barrier(0, 0);
	pgas_exit(0);
	return 0;
}
