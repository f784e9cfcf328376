/* SPDX-License-Identifier: MIT */
/*
 * team_full - splits that libpgas refuses on some PEs only: PE 0's team
 * pool (PGAS_COLL_POOL, small here) is filled with teams of PE 0 alone,
 * then shmem_team_split_2d over the world: PE 0's row cannot be made.
 * Every PE must get nonzero and SHMEM_TEAM_INVALID for both teams, and
 * none may be left waiting in a split the others skipped (it hung).  With
 * the pool emptied again the same split works.
 */
#define _GNU_SOURCE
#include "stap.h"

#define MAXT 4096

int main(void)
{
	static shmem_team_t mine[MAXT];
	int k = 0;

	setenv("PGAS_COLL_POOL", "262144", 1);
	shmem_init();
	st_init();
	int me = shmem_my_pe(), n = shmem_n_pes();
	int *fail = shmem_calloc(2, sizeof(int));

	for (; k < MAXT; k++) {
		fail[0] = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0,
						   &mine[k]) != 0;
		shmem_int_max_reduce(SHMEM_TEAM_WORLD, &fail[1], &fail[0], 1);
		if (fail[1])
			break;
	}
	T_CHECK(k > 0 && k < MAXT, "PE 0's pool held %d one-PE teams", k);
	st_case("PE 0's team pool filled (%s)", "teams of PE 0 alone");

	shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
	int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y);

	T_CHECK(rc != 0, "split_2d with PE 0's pool full: rc %d", rc);
	T_CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "both teams INVALID");
	shmem_barrier_all();	/* nobody is left in a split */
	st_case("split_2d refused on PE 0's row: nonzero and INVALID on every PE, no hang");

	if (me == 0)
		for (int i = 0; i < k; i++)
			shmem_team_destroy(mine[i]);
	rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y);
	T_EQ(rc, 0);
	T_CHECK(x != SHMEM_TEAM_INVALID && y != SHMEM_TEAM_INVALID, "both teams made");
	if (!rc) {
		T_EQ(shmem_team_n_pes(x), n == 1 ? 1 : (me / 2 < n / 2 ? 2 : n % 2));
		shmem_team_destroy(x);
		shmem_team_destroy(y);
	}
	st_case("with the pool emptied, the same split_2d works");
	shmem_free(fail);
	return st_done();
}
