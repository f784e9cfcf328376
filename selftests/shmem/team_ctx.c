/* SPDX-License-Identifier: MIT */
/*
 * team_ctx - contexts of a team (shmem_team_create_ctx): their RMA and AMO
 * calls take the team's PE numbers; shmem_ctx_get_team; a context of the
 * world or of SHMEM_TEAM_SHARED numbers PEs as the world does (SHARED is
 * this PE alone with PGAS_MAP_PEERS=none: its own numbering); an invalid
 * team gives no context, and quiet, fence and destroy of SHMEM_CTX_INVALID
 * do nothing; the team's destruction takes its contexts along.
 * Exact at any PE count; the teams: the even world PEs (stride 2) and the
 * PEs from 1 (an offset).
 *
 *   team_ctx [-m range|gone]	misuse at 2 PEs: a team PE out of range; a
 *				context used after its team was destroyed
 */
#define _GNU_SOURCE
#include <unistd.h>
#include "stap.h"

static int me, n;

/* Every member puts its world PE to the next member (team numbering) and
 * adds 1 at team PE 0, through a context of team t; checks both. */
static void ring(shmem_team_t t, int start, int stride, long opts)
{
	long *x = shmem_calloc(2, sizeof(long));
	shmem_ctx_t ctx = SHMEM_CTX_INVALID;
	shmem_team_t back = SHMEM_TEAM_INVALID;

	if (t != SHMEM_TEAM_INVALID) {
		int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);

		T_EQ(shmem_team_create_ctx(t, opts, &ctx), 0);
		T_EQ(shmem_ctx_get_team(ctx, &back), 0);
		T_CHECK(back == t, "ctx_get_team gave another team");
		shmem_ctx_long_p(ctx, &x[0], me, (tme + 1) % tn);
		shmem_ctx_long_atomic_add(ctx, &x[1], 1, 0);
		shmem_ctx_quiet(ctx);
		shmem_team_sync(t);
		T_EQ(x[0], start + stride * ((tme + tn - 1) % tn));
		if (tme == 0)
			T_EQ(x[1], tn);
		T_EQ(shmem_ctx_long_g(ctx, &x[0], tme), x[0]);
		shmem_ctx_destroy(ctx);
	}
	shmem_barrier_all();
	shmem_free(x);
}

int main(int argc, char **argv)
{
	const char *misuse = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "m:")) != -1) {
		if (opt != 'm')
			return 2;
		misuse = optarg;
	}
	shmem_init();
	st_init();
	me = shmem_my_pe();
	n = shmem_n_pes();

	shmem_team_t even = SHMEM_TEAM_INVALID, tail = SHMEM_TEAM_INVALID;

	T_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even), 0);
	if (n > 1)
		T_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, n - 1, NULL, 0, &tail), 0);

	if (misuse) {
		shmem_ctx_t ctx;

		if (me == 0 && shmem_team_create_ctx(even, 0, &ctx) == 0) {
			if (!strcmp(misuse, "range"))
				shmem_ctx_long_p(ctx, &st_counter[0], 0, (n + 1) / 2);
			shmem_team_destroy(even);	/* a team of one here: PE 0 only */
			(void)shmem_ctx_long_g(ctx, &st_counter[0], 0);
		}
		sleep(10);	/* PE 0 ends the job first */
		return 0;
	}

	ring(even, 0, 2, 0);
	ring(even, 0, 2, SHMEM_CTX_PRIVATE);
	ring(tail, 1, 1, SHMEM_CTX_SERIALIZED);
	st_case("team contexts take team PEs: the even PEs, the PEs from 1; ctx_get_team");

	{
		shmem_ctx_t c = SHMEM_CTX_INVALID;
		shmem_team_t t = SHMEM_TEAM_INVALID;
		long *x = shmem_calloc(1, sizeof(long));

		/* SHMEM_TEAM_SHARED is this host's PEs (stap.h st_shared): the
		 * world on shm and pgas.ko, this PE alone with PGAS_MAP_PEERS=none. */
		int ns = shmem_team_n_pes(SHMEM_TEAM_SHARED), sme = shmem_team_my_pe(SHMEM_TEAM_SHARED);

		T_EQ(ns, st_shared_pe(-1));
		T_EQ(shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &c), 0);
		T_EQ(shmem_ctx_get_team(c, &t), 0);
		if (ns == n)
			T_CHECK(t == SHMEM_TEAM_WORLD, "a SHARED context's team is the world's (the same PEs)");
		else
			T_CHECK(t == SHMEM_TEAM_SHARED, "a SHARED context's team");
		shmem_ctx_long_p(c, x, me, (sme + 1) % ns);	/* SHARED's numbering */
		shmem_ctx_quiet(c);
		shmem_barrier_all();
		T_EQ(*x, shmem_team_translate_pe(SHMEM_TEAM_SHARED, (sme + ns - 1) % ns, SHMEM_TEAM_WORLD));
		shmem_ctx_destroy(c);
		T_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t), 0);
		T_CHECK(t == SHMEM_TEAM_WORLD, "the default context's team");
		T_CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID,
			"SHMEM_CTX_INVALID has no team");
		T_CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0 &&
			c == SHMEM_CTX_INVALID, "a context of SHMEM_TEAM_INVALID");
		shmem_barrier_all();
		shmem_free(x);
	}
	st_case("contexts of SHMEM_TEAM_SHARED and the default context: world PEs; invalid team");

	/*
	 * As the spec's shmem_team_context example: a PE outside the team gets
	 * SHMEM_CTX_INVALID and quiets, fences and destroys it like the
	 * members' contexts: no operation (1.5), not the end of the job.
	 */
	{
		shmem_ctx_t c = SHMEM_CTX_INVALID;
		long *x = shmem_calloc(1, sizeof(long));
		int in = tail != SHMEM_TEAM_INVALID;

		T_EQ(shmem_team_create_ctx(tail, 0, &c) != 0, !in);
		T_CHECK((c == SHMEM_CTX_INVALID) == !in, "a context only for the team's members");
		if (c != SHMEM_CTX_INVALID)
			shmem_ctx_long_p(c, x, 5, 0);	/* team PE 0: world PE 1 */
		shmem_ctx_fence(c);
		shmem_ctx_quiet(c);
		shmem_ctx_destroy(c);
		shmem_barrier_all();
		T_EQ(*x, me == 1 ? 5 : 0);
		shmem_ctx_quiet(SHMEM_CTX_INVALID);
		shmem_ctx_fence(SHMEM_CTX_INVALID);
		shmem_barrier_all();
		shmem_free(x);
	}
	st_case("quiet, fence and destroy of SHMEM_CTX_INVALID (a PE outside the team's): no operation");

	/* Destroying a team destroys its contexts (after completing them). */
	{
		shmem_team_t t = SHMEM_TEAM_INVALID;
		shmem_ctx_t c = SHMEM_CTX_INVALID;
		long *x = shmem_calloc(1, sizeof(long));

		T_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t), 0);
		T_EQ(shmem_team_create_ctx(t, 0, &c), 0);
		shmem_ctx_long_put_nbi(c, x, (long[]){ 7 }, 1, (me + 1) % n);
		shmem_team_destroy(t);	/* completes the put */
		shmem_barrier_all();
		T_EQ(*x, 7);
		shmem_free(x);
	}
	st_case("shmem_team_destroy completes and destroys the team's contexts");
	if (even != SHMEM_TEAM_INVALID)
		shmem_team_destroy(even);
	if (tail != SHMEM_TEAM_INVALID)
		shmem_team_destroy(tail);
	return st_done();
}
