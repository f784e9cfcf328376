// SPDX-License-Identifier: MIT
/*
 * pgas-tune - offline tuning of the collectives, and their benchmark.
 *
 *   pgasrun -n N pgas-tune -o FILE [kinds...]   sweep, write a tuning file
 *   pgasrun -n N pgas-tune --bench [kinds...]   RESULT lines for make bench
 *   pgasrun -n N pgas-tune --bench --choice ...  the choice in force only
 *
 * For every collective (or the ones named), every size from 8 B to 4 MiB
 * (x8 steps) and every algorithm the library declares for N ranks, it
 * times back-to-back calls (local mode, buffers in the segment, MYSYNC)
 * and keeps the slowest rank's time, best of 3 repetitions.  -o keeps
 * the fastest algorithm per size: the file gets one line per (operation,
 * N, size) and keeps the lines of other rank counts it already had.
 * --bench prints every algorithm's time and the time of the choice in
 * force (tuning file, model or environment), labelled "tuner"; --choice
 * leaves the other algorithms out (a slow fabric: bench-multihost.sh).
 * PGAS_BENCH_SCALE divides the repetitions (never below 1), as in the
 * benchmark programs.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pgas.h"

#define MAXSIZE ((size_t)4 << 20)
#define NSIZES 8
static const size_t sizes[NSIZES] = { 8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20 };

static unsigned me, n;
static char *src, *dst;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int one(int kind, size_t nb)
{
	pgas_team_t t = pgas_team_all();
	unsigned f = PGAS_COLL_MYSYNC;
	size_t cnt = nb / 8 ? nb / 8 : 1;

	switch (kind) {
	case PGAS_COLL_BARRIER: return pgas_team_barrier(t);
	case PGAS_COLL_BROADCAST: return pgas_broadcast(t, 0, dst, src, nb, f);
	case PGAS_COLL_SCATTER: return pgas_scatter(t, 0, dst, src, nb, f);
	case PGAS_COLL_GATHER: return pgas_gather(t, 0, dst, src, nb, f);
	case PGAS_COLL_GATHER_ALL: return pgas_gather_all(t, dst, src, nb, f);
	case PGAS_COLL_EXCHANGE: return pgas_exchange(t, dst, src, nb, f);
	case PGAS_COLL_REDUCE:
		return pgas_reduce(t, 0, dst, src, cnt, PGAS_DOUBLE, PGAS_OP_SUM, f);
	case PGAS_COLL_REDUCE_ALL:
		return pgas_reduce_all(t, dst, src, cnt, PGAS_DOUBLE, PGAS_OP_SUM, f);
	case PGAS_COLL_SCAN:
		return pgas_scan(t, dst, src, cnt, PGAS_DOUBLE, PGAS_OP_SUM, f);
	}
	return -1;
}

/* Seconds per call on the slowest rank; best of 3. */
static double measure(int kind, size_t nb)
{
	unsigned reps = nb >= (1 << 20) ? 8 : nb >= 32768 ? 50 : 400;
	double best = 1e30;

	if (n > 2 && nb >= (1 << 20))
		reps = 4;
	if (getenv("PGAS_BENCH_SCALE")) {
		unsigned s = (unsigned)strtoul(getenv("PGAS_BENCH_SCALE"), NULL, 0);

		reps = s > 1 ? (reps / s ? reps / s : 1) : reps;
	}
	for (int w = 0; w < 3; w++)
		if (one(kind, nb))
			pgas_exit(3);
	for (int rep = 0; rep < 3; rep++) {
		double t0, t, worst;

		pgas_team_barrier(pgas_team_all());
		t0 = now();
		for (unsigned i = 0; i < reps; i++)
			one(kind, nb);
		t = (now() - t0) / reps;
		pgas_reduce_all(pgas_team_all(), &worst, &t, 1, PGAS_DOUBLE, PGAS_OP_MAX,
				PGAS_COLL_MYSYNC);
		best = worst < best ? worst : best;
	}
	return best;
}

static void result(const char *kind, const char *alg, size_t nb, double sec)
{
	if (me == 0) {
		printf("RESULT coll%u.%s.%s.%zu %.6g us\n", n, kind, alg, nb, sec * 1e6);
		fflush(stdout);
	}
}

struct line {
	char kind[32];
	unsigned nranks;
	unsigned long long min;
	char spec[64];
};

/* Rank 0: writes the winners for n, keeping other rank counts' lines. */
static int write_file(const char *path, struct line *mine, unsigned count)
{
	struct line *old = NULL;
	unsigned nold = 0, cap = 0;
	char buf[256];
	FILE *f = fopen(path, "r");

	if (f) {
		while (fgets(buf, sizeof(buf), f)) {
			struct line l;

			if (buf[0] == '#' || sscanf(buf, "%31s %u %llu %63s", l.kind, &l.nranks,
						    &l.min, l.spec) != 4 || l.nranks == n)
				continue;
			if (nold == cap) {
				cap = cap ? 2 * cap : 64;
				old = realloc(old, cap * sizeof(*old));
				if (!old)
					return -1;
			}
			old[nold++] = l;
		}
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		free(old);
		return -1;
	}
	fprintf(f, "# libpgas collective tuning file (pgas-tune); PGAS_COLL_TUNING=%s\n"
		"# operation nranks min_bytes algorithm\n", path);
	for (unsigned i = 0; i < nold; i++)
		fprintf(f, "%s %u %llu %s\n", old[i].kind, old[i].nranks, old[i].min, old[i].spec);
	for (unsigned i = 0; i < count; i++)
		fprintf(f, "%s %u %llu %s\n", mine[i].kind, mine[i].nranks, mine[i].min,
			mine[i].spec);
	free(old);
	return fclose(f);
}

int main(int argc, char **argv)
{
	static char specs[256][48];
	static struct line lines[PGAS_COLL_NKINDS * NSIZES];
	const char *out = NULL;
	bool bench = false, choice = false, want[PGAS_COLL_NKINDS] = { false }, any = false;
	unsigned nlines = 0;

	if (pgas_init(&argc, &argv))
		return 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--bench")) {
			bench = true;
		} else if (!strcmp(argv[i], "--choice")) {
			choice = true;
		} else {
			int k;

			for (k = 0; k < PGAS_COLL_NKINDS; k++)
				if (!strcmp(argv[i], pgas_coll_kind_name(k)))
					break;
			if (k == PGAS_COLL_NKINDS) {
				fprintf(stderr, "usage: pgasrun -n N %s -o FILE | --bench [operation...]\n"
					"unknown operation '%s'\n", argv[0], argv[i]);
				return 2;
			}
			want[k] = any = true;
		}
	}
	if (choice && (out || !bench)) {	/* a tuning file needs every algorithm's time */
		fprintf(stderr, "%s: --choice goes with --bench, not -o\n", argv[0]);
		return 2;
	}
	if (!out && !bench) {
		fprintf(stderr, "usage: pgasrun -n N %s -o FILE | --bench [operation...]\n", argv[0]);
		return 2;
	}
	n = pgas_nranks();
	if (pgas_attach(NULL, 0, 2 * (size_t)n * MAXSIZE + 4096))
		return 1;
	me = pgas_rank();
	src = pgas_segment_addr(me);
	dst = src + (size_t)n * MAXSIZE;
	memset(src, 1, (size_t)n * MAXSIZE);
	memset(dst, 2, (size_t)n * MAXSIZE);

	for (int k = 0; k < PGAS_COLL_NKINDS; k++) {
		const char *kn = pgas_coll_kind_name(k);
		unsigned ns = pgas_coll_candidates(k, n, specs, 256);

		if (any && !want[k])
			continue;
		for (unsigned z = 0; z < NSIZES; z++) {
			size_t nb = k == PGAS_COLL_BARRIER ? 0 : sizes[z];
			double best = 1e30, t;
			unsigned besti = 0;

			if (k == PGAS_COLL_BARRIER && z)
				break;
			for (unsigned a = 0; !(bench && choice) && a < ns && a < 256; a++) {
				if (pgas_coll_force(pgas_team_all(), k, specs[a]))
					return 1;
				t = measure(k, nb);
				if (t < best) {
					best = t;
					besti = a;
				}
				if (bench)
					result(kn, specs[a], nb, t);
			}
			pgas_coll_force(pgas_team_all(), k, NULL);
			if (bench) {
				char chosen[64];

				pgas_coll_describe(pgas_team_all(), k, nb, chosen, sizeof(chosen));
				result(kn, "tuner", nb, measure(k, nb));
				if (me == 0)
					printf("CHOICE coll%u.%s.%zu %s\n", n, kn, nb, chosen);
			}
			struct line *l = &lines[nlines++];

			snprintf(l->kind, sizeof(l->kind), "%s", kn);
			l->nranks = n;
			l->min = z ? sizes[z - 1] + 1 : 0;	/* from above the previous size */
			snprintf(l->spec, sizeof(l->spec), "%s", specs[besti]);
		}
	}
	if (out && me == 0 && write_file(out, lines, nlines))
		pgas_exit(1);
	pgas_team_barrier(pgas_team_all());
	pgas_exit(0);
}
