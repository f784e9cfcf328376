/* SPDX-License-Identifier: MIT */
/*
 * team - OpenSHMEM 1.5 teams: the predefined teams, split_strided with odd
 * strides and nested, split_2d (every xrange up to n + 1), translate_pe
 * across teams, get_config, team_sync, team_ptr, destroy and create again
 * (a new team never sees the old one's data; the old handle is refused),
 * arguments that make every PE's split fail, back-to-back collectives on
 * different teams.  Exact at any PE count.  The refused calls print their
 * "shmem: PE p: <call>: ..." lines on stderr, as they should.
 */
#include "stap.h"

static int me, n;

/* Every PE: the sum of the world PE numbers of team t, through a reduction
 * on t (exact). */
static long team_sum(shmem_team_t t)
{
	static long *v;

	if (!v)
		v = shmem_calloc(2, sizeof(long));	/* first call: on WORLD, every PE */
	v[0] = me;
	T_EQ(shmem_long_sum_reduce(t, &v[1], &v[0], 1), 0);
	return v[1];
}

static void test_predefined(void)
{
	long *x = shmem_calloc(1, sizeof(long));
	shmem_team_config_t cfg = { .num_contexts = 99 };

	T_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
	T_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
	/* SHMEM_TEAM_SHARED: the PEs shmem_ptr reaches, those of this host
	 * (stap.h st_shared: every PE on one host, a pseudo-host's with
	 * PGAS_FAKE_HOSTS, this PE alone with PGAS_MAP_PEERS=none). */
	int cnt = st_shared_pe(-1), first = st_shared_pe(0);
	long shared_sum = 0;

	for (int p = 0; p < n; p++)
		shared_sum += st_shared(p) ? p : 0;
#define IN_SH(p) st_shared(p)
	int sh = IN_SH((me + 1) % n);	/* the neighbour is a SHARED PE */

	T_EQ(shmem_team_my_pe(SHMEM_TEAM_SHARED), st_shared_index(me));
	T_EQ(shmem_team_n_pes(SHMEM_TEAM_SHARED), cnt);
	T_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
	T_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
	T_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
	T_EQ(cfg.num_contexts, 0);
	T_CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &cfg) != 0, "invalid team");
	for (int p = -1; p <= n; p++) {
		int want = p >= 0 && p < n ? p : -1;

		T_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED),
		     want >= 0 ? st_shared_index(p) : -1);
		T_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, p, SHMEM_TEAM_WORLD),
		     p >= 0 ? st_shared_pe(p) : -1);
		T_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, p, SHMEM_TEAM_WORLD), -1);
		T_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_INVALID), -1);
	}
	T_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
	T_EQ(shmem_team_sync(SHMEM_TEAM_SHARED), 0);
	T_CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0, "sync on SHMEM_TEAM_INVALID");
	T_CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, x, me) == x, "own address");
	T_CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, x, n) == NULL, "PE n");
	T_CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, x, 0) == NULL, "invalid team");
	long *r = shmem_team_ptr(SHMEM_TEAM_SHARED, x,
				 shmem_team_translate_pe(SHMEM_TEAM_WORLD, (me + 1) % n,
							 SHMEM_TEAM_SHARED));

	/* Not a SHARED PE: no pointer (a world PE through WORLD neither),
	 * the store goes by a put. */
	T_CHECK((r != NULL) == (sh || n == 1), "the neighbour is %sreachable", r ? "" : "not ");
	T_CHECK((shmem_team_ptr(SHMEM_TEAM_WORLD, x, (me + 1) % n) != NULL) == (sh || n == 1),
		"the neighbour through WORLD");
	T_CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, x, 0) == (first == me ? x : shmem_ptr(x, first)),
		"SHARED PE 0");
	if (r)
		*r = 1000 + me;
	else
		shmem_long_p(x, 1000 + me, (me + 1) % n);
	shmem_barrier_all();
	T_EQ(*x, 1000 + (me + n - 1) % n);
	T_EQ(team_sum(SHMEM_TEAM_WORLD), (long)n * (n - 1) / 2);
	T_EQ(team_sum(SHMEM_TEAM_SHARED), shared_sum);
#undef IN_SH
	shmem_barrier_all();
	shmem_free(x);
}

/* The team of parent PEs start + i * stride (i < size); checks every query
 * on it and returns it (or SHMEM_TEAM_INVALID here when not a member). */
static shmem_team_t strided(shmem_team_t parent, int start, int stride, int size)
{
	shmem_team_t t = (shmem_team_t)&n;	/* must be overwritten */
	int pme = shmem_team_my_pe(parent), idx = -1;
	shmem_team_config_t cfg = { .num_contexts = 3 }, got = { 0 };

	for (int i = 0; i < size; i++)
		if (start + i * stride == pme)
			idx = i;
	T_EQ(shmem_team_split_strided(parent, start, stride, size, &cfg,
				      SHMEM_TEAM_NUM_CONTEXTS, &t), 0);
	if (idx < 0) {
		T_CHECK(t == SHMEM_TEAM_INVALID, "PE %d outside (%d, %d, %d) gets INVALID", me,
			start, stride, size);
		return SHMEM_TEAM_INVALID;
	}
	T_CHECK(t != SHMEM_TEAM_INVALID, "member");
	T_EQ(shmem_team_my_pe(t), idx);
	T_EQ(shmem_team_n_pes(t), size);
	T_EQ(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
	T_EQ(got.num_contexts, 3);
	for (int i = -1; i <= size; i++) {
		int ppe = i >= 0 && i < size ? start + i * stride : -1;

		T_EQ(shmem_team_translate_pe(t, i, parent), ppe);
		if (ppe >= 0)
			T_EQ(shmem_team_translate_pe(parent, ppe, t), i);
	}
	return t;
}

/* World PE numbers of a strided team of WORLD, summed. */
static long strided_sum(int start, int stride, int size)
{
	long s = 0;

	for (int i = 0; i < size; i++)
		s += start + i * stride;
	return s;
}

static void test_strided(void)
{
	/* (start, stride, size) that fit n PEs; odd strides among them */
	int specs[][3] = { { 0, 1, n }, { 0, 2, (n + 1) / 2 }, { 1, 2, n / 2 }, { 0, 3, (n + 2) / 3 },
			   { n - 1, 1, 1 }, { n - 1, 7, 1 }, { 1, 1, n - 1 }, { 0, n - 1, 2 },
			   { 1, 3, (n + 1) / 3 }, { 2, 5, (n + 2) / 5 } };

	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		int st = specs[k][0], sd = specs[k][1], sz = specs[k][2];

		if (sz < 1 || st >= n || (sz > 1 && sd < 1))
			continue;	/* does not fit this n: skipped by every PE */
		shmem_team_t t = strided(SHMEM_TEAM_WORLD, st, sd, sz);

		if (t != SHMEM_TEAM_INVALID) {
			T_EQ(shmem_team_sync(t), 0);
			T_EQ(team_sum(t), strided_sum(st, sz > 1 ? sd : 0, sz));
			/* a nested split: every other PE of t, from its PE 1 */
			shmem_team_t u = strided(t, sz > 1 ? 1 : 0, 2, sz > 1 ? sz / 2 : 1);

			if (u != SHMEM_TEAM_INVALID) {
				int tm = shmem_team_my_pe(t);

				/* u's PE i is t's 2i+1 (t's 0 when t has one PE) */
				T_EQ(shmem_team_translate_pe(u, shmem_team_my_pe(u), t), tm);
				T_EQ(shmem_team_translate_pe(u, shmem_team_my_pe(u),
							     SHMEM_TEAM_WORLD), me);
				T_EQ(team_sum(u), sz > 1 ? strided_sum(st + sd, 2 * sd, sz / 2) : st);
				shmem_team_destroy(u);
			}
			shmem_team_destroy(t);
		}
	}
}

static void test_2d(void)
{
	for (int xr = 1; xr <= n + 1; xr++) {
		shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
		shmem_team_config_t c = { .num_contexts = 2 }, got = { 0 };
		int x_r = xr > n ? n : xr, x = me % x_r, y = me / x_r;
		int row = n - y * x_r < x_r ? n - y * x_r : x_r, col = (n - x + x_r - 1) / x_r;
		long rs = 0, cs = 0;

		T_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, &c, SHMEM_TEAM_NUM_CONTEXTS, &xt,
					 NULL, 0, &yt), 0);
		T_CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID, "both teams");
		T_EQ(shmem_team_my_pe(xt), x);
		T_EQ(shmem_team_n_pes(xt), row);
		T_EQ(shmem_team_my_pe(yt), y);
		T_EQ(shmem_team_n_pes(yt), col);
		T_EQ(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
		T_EQ(got.num_contexts, 2);
		T_EQ(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
		T_EQ(got.num_contexts, 0);
		for (int i = 0; i < row; i++) {
			rs += y * x_r + i;
			T_EQ(shmem_team_translate_pe(xt, i, SHMEM_TEAM_WORLD), y * x_r + i);
			/* row PE i -> its column team: it is there only if in my column */
			T_EQ(shmem_team_translate_pe(xt, i, yt), i == x ? y : -1);
		}
		for (int j = 0; j < col; j++) {
			cs += j * x_r + x;
			T_EQ(shmem_team_translate_pe(yt, j, SHMEM_TEAM_WORLD), j * x_r + x);
		}
		/* back to back on the two teams, then the world */
		T_EQ(team_sum(xt), rs);
		T_EQ(team_sum(yt), cs);
		T_EQ(team_sum(SHMEM_TEAM_WORLD), (long)n * (n - 1) / 2);
		T_EQ(team_sum(yt), cs);
		shmem_team_destroy(xt);
		shmem_team_destroy(yt);
	}
}

/*
 * Destroy, then split again, many times: each new team's results are its
 * own (never a destroyed team's), and the old handle is refused (-1 /
 * nonzero; the layer prints why on stderr).
 */
static void test_recreate(void)
{
	long *v = shmem_calloc(4, sizeof(long));
	shmem_team_t old = SHMEM_TEAM_INVALID;

	for (int it = 0; it < 40; it++) {
		int st = it % 2 && n > 1 ? 1 : 0, sz = n - st;
		shmem_team_t t = strided(SHMEM_TEAM_WORLD, st, 1, sz);

		if (old != SHMEM_TEAM_INVALID && it < 6) {	/* (each refusal prints) */
			T_EQ(shmem_team_my_pe(old), -1);
			T_EQ(shmem_team_n_pes(old), -1);
			T_CHECK(shmem_team_sync(old) != 0, "sync on a destroyed team");
			T_EQ(shmem_team_translate_pe(old, 0, SHMEM_TEAM_WORLD), -1);
			T_CHECK(shmem_long_sum_reduce(old, &v[1], &v[0], 1) != 0,
				"reduce on a destroyed team");
		}
		if (t != SHMEM_TEAM_INVALID) {
			T_CHECK(t != old, "a new handle");
			v[0] = me * 100 + it;
			v[1] = -1;
			T_EQ(shmem_long_sum_reduce(t, &v[1], &v[0], 1), 0);
			T_EQ(v[1], strided_sum(st, 1, sz) * 100 + (long)sz * it);
			v[2] = it * 1000 + me;
			T_EQ(shmem_long_broadcast(t, &v[3], &v[2], 1, sz - 1), 0);
			T_EQ(v[3], it * 1000 + n - 1);
			shmem_team_destroy(t);
		}
		old = t;
		shmem_barrier_all();
	}
	shmem_barrier_all();
	shmem_free(v);
}

static void test_bad_args(void)
{
	shmem_team_t t = (shmem_team_t)&n, u = (shmem_team_t)&n;
	int bad[][3] = { { 0, 1, 0 }, { 0, 0, 2 }, { n, 1, 1 }, { -1, 1, 1 }, { 0, 1, n + 1 },
			 { 1, 1, n }, { 0, -1, 2 }, { 0, 2, n } };

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		if (k == 7 && n == 1)
			continue;	/* (0, 2, 1) is valid */
		t = (shmem_team_t)&n;
		T_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, bad[k][0], bad[k][1],
						 bad[k][2], NULL, 0, &t) != 0,
			"(%d, %d, %d) refused", bad[k][0], bad[k][1], bad[k][2]);
		T_CHECK(t == SHMEM_TEAM_INVALID, "and INVALID");
	}
	T_CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0,
		"invalid parent");
	T_CHECK(t == SHMEM_TEAM_INVALID, "INVALID");
	T_CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &t, NULL, 0, &u) != 0,
		"xrange 0");
	T_CHECK(t == SHMEM_TEAM_INVALID && u == SHMEM_TEAM_INVALID, "both INVALID");
	shmem_team_destroy(SHMEM_TEAM_INVALID);	/* no effect */
	/* Triplets may differ between PEs: each PE a team of itself. */
	T_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, me, 1, 1, NULL, 0, &t), 0);
	T_CHECK(t != SHMEM_TEAM_INVALID && shmem_team_n_pes(t) == 1 && shmem_team_my_pe(t) == 0,
		"a team of PE %d alone", me);
	T_EQ(shmem_team_translate_pe(t, 0, SHMEM_TEAM_WORLD), me);
	shmem_team_destroy(t);
	/* ... but the PEs of one team must agree: PE 0 asks for all, the
	 * others for all but the last; none keeps a team (the last PE is in
	 * none by its own triplet: 0 and INVALID, as for any non-member). */
	if (n > 1) {
		int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, me ? n - 1 : n, NULL, 0,
						  &t);

		T_CHECK(me == n - 1 ? rc == 0 : rc != 0, "triplets that disagree: rc %d", rc);
		T_CHECK(t == SHMEM_TEAM_INVALID, "and INVALID");
	}
	/* the job goes on: a good split after the bad ones */
	t = strided(SHMEM_TEAM_WORLD, 0, 1, n);
	T_EQ(team_sum(t), (long)n * (n - 1) / 2);
	shmem_team_destroy(t);
}

/* Evens and odds (disjoint), WORLD, and the 2-D teams interleaved. */
static void test_back_to_back(void)
{
	shmem_team_t ev = strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2);
	shmem_team_t od = n > 1 ? strided(SHMEM_TEAM_WORLD, 1, 2, n / 2) : SHMEM_TEAM_INVALID;
	shmem_team_t mine = me % 2 ? od : ev;
	long want = me % 2 ? strided_sum(1, 2, n / 2) : strided_sum(0, 2, (n + 1) / 2);
	int *src = shmem_malloc(4 * sizeof(int)), *dst = shmem_malloc(4 * (size_t)n * sizeof(int));

	for (int r = 0; r < 30; r++) {
		T_EQ(team_sum(mine), want);
		src[0] = r * 10 + me;
		T_EQ(shmem_int_fcollect(SHMEM_TEAM_WORLD, dst, src, 1), 0);
		for (int p = 0; p < n; p++)
			T_EQ(dst[p], r * 10 + p);
		T_EQ(shmem_int_broadcast(mine, dst, src, 1, 0), 0);
		T_EQ(dst[0], r * 10 + (me % 2));
		T_EQ(shmem_team_sync(mine), 0);
	}
	shmem_barrier_all();
	shmem_team_destroy(mine);
	shmem_free(src);
	shmem_free(dst);
}

int main(int argc, char **argv)
{
	shmem_init();
	st_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	/* -m world: destroying SHMEM_TEAM_WORLD must end the job with 1 */
	if (argc > 2 && !strcmp(argv[1], "-m") && !strcmp(argv[2], "world"))
		shmem_team_destroy(SHMEM_TEAM_WORLD);
	test_predefined();
	st_case("predefined teams: my_pe, n_pes, config, translate, sync, ptr");
	test_strided();
	st_case("split_strided: odd strides, single PEs, nested splits, translate_pe");
	test_2d();
	st_case("split_2d: xrange 1..n+1, rows and columns, translate between them");
	test_recreate();
	st_case("destroy then split again (40 times): fresh results, old handle refused");
	test_bad_args();
	st_case("bad split arguments: nonzero and INVALID on every PE, the job goes on; per-PE triplets");
	test_back_to_back();
	st_case("back-to-back collectives on disjoint teams and WORLD");
	return st_done();
}
