// SPDX-License-Identifier: MIT
/*
 * hier - the hierarchical barrier and collectives against the flat ones
 * (issue 22), for a job across hosts: run it with
 *   PGAS_CONDUIT=ofi FI_PROVIDER=tcp PGAS_FAKE_HOSTS=2 pgasrun -n 5 hier [SEED]
 * (it passes on one host too, where both forms are the mapped ones).
 *
 * Teams: the job's; one without job rank 1 (spans the hosts, uneven
 * groups); the same ranks in reverse key order (leaders are the lowest
 * team ranks, not job ranks); one of every other rank (one member per
 * host: no hierarchy); one per host (never across hosts).  For each, every
 * operation with a hierarchical form, at three sizes and two roots, runs
 * once forced "ref" (flat) and once "hier" on seeded data (doubles whose
 * sums depend on the order of the additions, int64 sums, bytes), and every
 * rank compares the two results bitwise; reduce_all's result is then
 * gathered (flat) and must be the same on every rank.  Barriers: named,
 * mismatched and split-phase ones on the job's team, and team barriers
 * forced hier.  The seed prints on the first line.
 *
 *   hier bench [ITERS]   latency of pgas_barrier and of an 8-byte double
 *                        reduce_all, forced ref and hier, rank 0 prints us
 *                        per call (PGAS_HIER=flat: the flat job barrier)
 */
#define _GNU_SOURCE
#include <time.h>
#include "tap.h"

#define SEG (4u << 20)
#define BMAX 4096u

static unsigned me, n;
static uint64_t seed;
static char *src, *dref, *dhier, *all;

static const char *kind_name(int k)
{
	return pgas_coll_kind_name((enum pgas_coll_kind)k);
}

/* Fills my source: doubles of varied magnitude (the order of a sum shows), or bytes. */
static void fill(size_t bytes, unsigned salt, int dbl)
{
	if (dbl) {
		uint64_t x = seed ^ (me * 0x9E3779B97F4A7C15ull) ^ salt;

		for (size_t i = 0; i < bytes / 8; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			((double *)src)[i] = (double)(int64_t)(x >> 11) *
					     (x & 1 ? 1e-9 : 1e7) / (1 + (x >> 60));
		}
	} else {
		t_fill(src, bytes, seed + me * 131 + salt);
	}
}

static int run(pgas_team_t t, int kind, unsigned root, void *dst, size_t B, int type)
{
	unsigned f = PGAS_COLL_ALLSYNC;
	pgas_type_t ty = type ? PGAS_DOUBLE : PGAS_INT64;

	switch (kind) {
	case PGAS_COLL_BROADCAST: return pgas_broadcast(t, root, dst, src, B, f);
	case PGAS_COLL_SCATTER: return pgas_scatter(t, root, dst, src, B, f);
	case PGAS_COLL_GATHER: return pgas_gather(t, root, dst, src, B, f);
	case PGAS_COLL_GATHER_ALL: return pgas_gather_all(t, dst, src, B, f);
	case PGAS_COLL_EXCHANGE: return pgas_exchange(t, dst, src, B, f);
	case PGAS_COLL_REDUCE: return pgas_reduce(t, root, dst, src, B / 8, ty, PGAS_OP_SUM, f);
	default: return pgas_reduce_all(t, dst, src, B / 8, ty, PGAS_OP_SUM, f);
	}
}

/* Bytes of my result. */
static size_t out_bytes(int kind, unsigned size, unsigned rank, unsigned root, size_t B)
{
	switch (kind) {
	case PGAS_COLL_GATHER: return rank == root ? size * B : 0;
	case PGAS_COLL_REDUCE: return rank == root ? B : 0;
	case PGAS_COLL_GATHER_ALL:
	case PGAS_COLL_EXCHANGE: return size * B;
	default: return B;
	}
}

static void compare_team(pgas_team_t t, const char *name)
{
	static const int kinds[] = { PGAS_COLL_BROADCAST, PGAS_COLL_SCATTER, PGAS_COLL_GATHER,
				     PGAS_COLL_GATHER_ALL, PGAS_COLL_EXCHANGE, PGAS_COLL_REDUCE,
				     PGAS_COLL_REDUCE_ALL };
	static const size_t sizes[] = { 8, 512, BMAX };
	unsigned size = 0, rank = 0, salt = 0;
	char spec[64];

	if (!t)
		return;
	rank = pgas_team_rank(t);
	size = pgas_team_size(t);
	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		int kind = kinds[k], red = kind == PGAS_COLL_REDUCE || kind == PGAS_COLL_REDUCE_ALL;

		for (unsigned s = 0; s < 3; s++)
			for (unsigned rt = 0; rt < 2; rt++)
				for (int dbl = 0; dbl <= red; dbl++) {
					size_t B = sizes[s], ob;
					unsigned root = rt ? size - 1 : 0;

					fill(size * B, ++salt, red ? dbl : 0);
					ob = out_bytes(kind, size, rank, root, B);
					memset(dref, 0x5a, size * B);
					memset(dhier, 0xa5, size * B);
					T_EQ(pgas_coll_force(t, kind, "ref"), 0);
					T_EQ(run(t, kind, root, dref, B, red && dbl), 0);
					T_EQ(pgas_coll_force(t, kind, "hier"), 0);
					T_EQ(pgas_coll_describe(t, kind, B, spec, sizeof(spec)), 0);
					T_EQ(run(t, kind, root, dhier, B, red && dbl), 0);
					T_CHECK(!memcmp(dref, dhier, ob),
						"%s on %s: %zu B, root %u, %s: hier (%s) differs from ref",
						kind_name(kind), name, B, root,
						dbl ? "double" : red ? "int64" : "bytes", spec);
					if (kind != PGAS_COLL_REDUCE_ALL)
						continue;
					/* The same bits on every rank. */
					T_EQ(pgas_coll_force(t, PGAS_COLL_GATHER_ALL, "ref"), 0);
					T_EQ(pgas_gather_all(t, all, dhier, B, PGAS_COLL_ALLSYNC), 0);
					for (unsigned r = 0; r < size; r++)
						T_CHECK(!memcmp(all + r * B, dhier, B),
							"reduce_all on %s: team rank %u's result differs "
							"from team rank %u's", name, r, rank);
				}
		T_EQ(pgas_coll_force(t, kind, NULL), 0);
	}
	T_EQ(pgas_coll_force(t, PGAS_COLL_GATHER_ALL, NULL), 0);
	T_EQ(pgas_coll_force(t, PGAS_COLL_BARRIER, "hier"), 0);
	for (int i = 0; i < 50; i++)
		T_EQ(pgas_team_barrier(t), 0);
	T_EQ(pgas_coll_force(t, PGAS_COLL_BARRIER, NULL), 0);
}

static void test_teams(void)
{
	pgas_team_t no1 = NULL, rev = NULL, odd = NULL, host = NULL;
	const char *fh = getenv("PGAS_FAKE_HOSTS");
	unsigned hosts = fh ? (unsigned)atoi(fh) : 1;

	hosts = hosts > n ? n : hosts ? hosts : 1;
	compare_team(pgas_team_all(), "the job's team");
	t_case("flat and hierarchical collectives agree bitwise on the job's team");
	T_EQ(pgas_team_split(pgas_team_all(), me == 1 && n > 2 ? PGAS_TEAM_NO_COLOUR : 0, me,
			     &no1), 0);
	compare_team(no1, "the team without rank 1");
	T_EQ(pgas_team_split(pgas_team_all(), me == 1 && n > 2 ? PGAS_TEAM_NO_COLOUR : 0, n - me,
			     &rev), 0);
	compare_team(rev, "the team without rank 1, reversed");
	t_case("... on teams across the hosts, uneven, in job and in reverse order");
	T_EQ(pgas_team_split(pgas_team_all(), (int)(me % 2), me, &odd), 0);
	compare_team(odd, "every other rank");
	T_EQ(pgas_team_split(pgas_team_all(), (int)((uint64_t)me * hosts / n), me, &host), 0);
	compare_team(host, "one pseudo-host's ranks");
	t_case("... on a team of every other rank and on teams within one host");
	if (no1)
		T_EQ(pgas_team_destroy(no1), 0);
	if (rev)
		T_EQ(pgas_team_destroy(rev), 0);
	T_EQ(pgas_team_destroy(odd), 0);
	T_EQ(pgas_team_destroy(host), 0);
}

static void test_barrier(void)
{
	int rc;

	for (unsigned i = 0; i < 200; i++)
		T_EQ(pgas_barrier(i, 0), 0);
	/* A mismatch anywhere reaches every rank, hosts or not. */
	rc = pgas_barrier(me == n - 1 ? 7 : 8, 0);
	T_EQ(rc, n > 1 ? PGAS_ERR_BARRIER_MISMATCH : 0);
	rc = pgas_barrier(9, me == 0 ? PGAS_BARRIERFLAG_MISMATCH : 0);
	T_EQ(rc, PGAS_ERR_BARRIER_MISMATCH);
	rc = pgas_barrier(10, me % 2 ? PGAS_BARRIERFLAG_ANONYMOUS : 0);
	T_EQ(rc, 0);
	/* Split phase: notify, try until it completes. */
	for (unsigned i = 0; i < 20; i++) {
		T_EQ(pgas_barrier_notify(100 + i, 0), 0);
		while ((rc = pgas_barrier_try(100 + i, 0)) == PGAS_ERR_NOT_READY)
			;
		T_EQ(rc, 0);
	}
	t_case("hierarchical barrier: named, mismatched, anonymous, split phase");
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void bench(unsigned iters)
{
	static const char *const specs[] = { "ref", "hier" };
	double t0;

	for (unsigned i = 0; i < 100; i++)
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	t0 = now_us();
	for (unsigned i = 0; i < iters; i++)
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me == 0)
		printf("# pgas_barrier: %.2f us (PGAS_HIER=%s)\n", (now_us() - t0) / iters,
		       getenv("PGAS_HIER") ? getenv("PGAS_HIER") : "auto");
	for (unsigned s = 0; s < 2; s++) {
		pgas_team_t t = pgas_team_all();

		pgas_coll_force(t, PGAS_COLL_REDUCE_ALL, specs[s]);
		pgas_coll_force(t, PGAS_COLL_BARRIER, specs[s]);
		for (unsigned i = 0; i < 100; i++)
			pgas_reduce_all(t, dref, src, 1, PGAS_DOUBLE, PGAS_OP_SUM, PGAS_COLL_NOSYNC);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		t0 = now_us();
		for (unsigned i = 0; i < iters; i++)
			pgas_reduce_all(t, dref, src, 1, PGAS_DOUBLE, PGAS_OP_SUM, PGAS_COLL_NOSYNC);
		if (me == 0)
			printf("# reduce_all 8 B: %.2f us (%s)\n", (now_us() - t0) / iters, specs[s]);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		t0 = now_us();
		for (unsigned i = 0; i < iters; i++)
			pgas_team_barrier(t);
		if (me == 0)
			printf("# team barrier: %.2f us (%s)\n", (now_us() - t0) / iters, specs[s]);
		pgas_coll_force(t, PGAS_COLL_REDUCE_ALL, NULL);
		pgas_coll_force(t, PGAS_COLL_BARRIER, NULL);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (pgas_init(&argc, &argv) || t_attach(NULL, 0, SEG))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	seed = argc > 1 && strcmp(argv[1], "bench") ? strtoull(argv[1], NULL, 0)
						  : (uint64_t)time(NULL);
	/* Every rank the same seed: rank 0's, broadcast (flat). */
	src = (char *)pgas_segment_addr(me);
	*(uint64_t *)src = seed;
	if (pgas_broadcast(pgas_team_all(), 0, src + 8, src, 8, PGAS_COLL_ALLSYNC))
		return 1;
	memcpy(&seed, src + 8, 8);
	if (me == 0)
		printf("# seed %llu\n", (unsigned long long)seed);
	dref = src + 8 * BMAX;
	dhier = dref + 8 * BMAX;
	all = dhier + 8 * BMAX;
	if (argc > 1 && !strcmp(argv[1], "bench")) {
		bench(argc > 2 ? (unsigned)atoi(argv[2]) : 2000);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		pgas_exit(0);
	}
	test_barrier();
	test_teams();
	t_done();
}
