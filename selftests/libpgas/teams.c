// SPDX-License-Identifier: MIT
/*
 * teams - team lifecycle: reuse after destroy, destroy with calls
 * outstanding, stale handles, in-place collectives, hundreds of live teams
 * and an exhausted pool.
 *
 *   pgasrun -n N build/tests/teams
 */
#include "tap.h"

#define SEG ((size_t)4 << 20)

static unsigned me, n;

static int64_t *seg64(size_t off)
{
	return (int64_t *)((char *)pgas_segment_addr(me) + off);
}

/* The independent suite's case: the first call of the new team was wrong. */
static void reuse_after_destroy(void)
{
	for (unsigned round = 0; round < 5; round++) {
		pgas_team_t t = NULL, all = NULL;
		int64_t v = 50 + me + round, out = 0;

		T_EQ(pgas_team_split(pgas_team_all(), (int)(me % 2), me, &t), 0);
		T_EQ(pgas_reduce_all(t, &out, &v, 1, PGAS_INT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC), 0);
		T_EQ(pgas_team_destroy(t), 0);
		T_EQ(pgas_team_split(pgas_team_all(), 0, me, &all), 0);
		v = 1;
		out = 0;
		T_EQ(pgas_reduce_all(all, &out, &v, 1, PGAS_INT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC), 0);
		T_EQ(out, n);
		T_EQ(pgas_team_destroy(all), 0);
	}
	t_case("reduce_all on a new team after an odd/even team was destroyed");
}

/*
 * Destroy with a call outstanding: the call completes first, its handle
 * stays valid for one wait, and other teams' calls are right afterwards.
 */
static void destroy_outstanding(void)
{
	pgas_team_t t = NULL, u = NULL;
	pgas_coll_handle_t h[3] = { NULL, NULL, NULL };
	int64_t v = me + 1, out[3] = { 0, 0, 0 }, b = 0;

	T_EQ(pgas_team_split(pgas_team_all(), 0, me, &t), 0);
	T_EQ(pgas_reduce_all_nb(&h[0], t, &out[0], &v, 1, PGAS_INT64, PGAS_OP_SUM,
				PGAS_COLL_MYSYNC), 0);
	T_EQ(pgas_reduce_all_nb(&h[1], t, &out[1], &v, 1, PGAS_INT64, PGAS_OP_MAX,
				PGAS_COLL_MYSYNC), 0);
	T_EQ(pgas_team_destroy(t), 0);
	/* The dead team refuses every use. */
	T_EQ(pgas_team_barrier(t), PGAS_ERR_STATE);
	T_EQ(pgas_reduce_all(t, &out[2], &v, 1, PGAS_INT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC),
	     PGAS_ERR_STATE);
	T_EQ(pgas_team_destroy(t), PGAS_ERR_STATE);
	/* A new team, likely at the same address, is not the dead one. */
	T_EQ(pgas_team_split(pgas_team_all(), 0, n - me, &u), 0);
	T_CHECK(u != t, "a new team got the dead team's handle");
	T_EQ(pgas_reduce_all_nb(&h[2], u, &out[2], &v, 1, PGAS_INT64, PGAS_OP_SUM,
				PGAS_COLL_MYSYNC), 0);
	T_EQ(pgas_broadcast(pgas_team_all(), 0, &b, &v, sizeof(b), PGAS_COLL_MYSYNC), 0);
	T_EQ(b, 1);
	T_EQ(pgas_coll_wait_all(h, 3), 0);
	T_EQ(out[0], (int64_t)n * (n + 1) / 2);
	T_EQ(out[1], n);
	T_EQ(out[2], (int64_t)n * (n + 1) / 2);
	T_EQ(pgas_team_destroy(u), 0);
	t_case("destroy with calls outstanding completes them; a dead team is refused");
}

/* In place: every local-mode collective with overlapping source and destination. */
static void in_place(bool private)
{
	size_t cnt = 4097;
	int64_t *buf = private ? malloc(cnt * n * sizeof(int64_t)) : seg64(0);
	pgas_team_t all = pgas_team_all();
	unsigned bad = 0;

	if (!buf) {
		T_CHECK(0, "no memory");
		return;
	}
	/* reduce_all, scan, reduce (root 1 % n) with dst == src */
	for (int kind = 0; kind < 3; kind++) {
		for (size_t i = 0; i < cnt; i++)
			buf[i] = (int64_t)(me + 1) * (int64_t)(i + 1);
		unsigned root = 1 % n;
		int rc = kind == 0 ? pgas_reduce_all(all, buf, buf, cnt, PGAS_INT64, PGAS_OP_SUM,
						     PGAS_COLL_MYSYNC)
			 : kind == 1 ? pgas_scan(all, buf, buf, cnt, PGAS_INT64, PGAS_OP_SUM,
						 PGAS_COLL_MYSYNC)
				     : pgas_reduce(all, root, buf, buf, cnt, PGAS_INT64, PGAS_OP_SUM,
						   PGAS_COLL_MYSYNC);
		int64_t k = kind == 1 ? (int64_t)(me + 1) * (me + 2) / 2 : (int64_t)n * (n + 1) / 2;

		T_EQ(rc, 0);
		if (kind == 2 && me != root)
			continue;
		for (size_t i = 0; i < cnt; i++)
			if (buf[i] != k * (int64_t)(i + 1)) {
				bad++;
				fprintf(stderr, "# rank %u: in-place kind %d element %zu: %lld\n", me,
					kind, i, (long long)buf[i]);
				break;
			}
	}
	/* gather_all with my contribution already at my block; exchange dst == src */
	size_t blk = 1000;

	for (size_t i = 0; i < blk; i++)
		buf[me * blk + i] = (int64_t)(me * 100000 + i);
	T_EQ(pgas_gather_all(all, buf, buf + me * blk, blk * 8, PGAS_COLL_MYSYNC), 0);
	for (unsigned r = 0; r < n; r++)
		for (size_t i = 0; i < blk; i++)
			if (buf[r * blk + i] != (int64_t)(r * 100000 + i)) {
				bad++;
				fprintf(stderr, "# rank %u: in-place gather_all block %u\n", me, r);
				r = n;
				break;
			}
	for (unsigned r = 0; r < n; r++)
		for (size_t i = 0; i < blk; i++)
			buf[r * blk + i] = (int64_t)(me * 1000000 + r * 1000 + i);
	T_EQ(pgas_exchange(all, buf, buf, blk * 8, PGAS_COLL_MYSYNC), 0);
	for (unsigned r = 0; r < n; r++)
		for (size_t i = 0; i < blk; i++)
			if (buf[r * blk + i] != (int64_t)(r * 1000000 + me * 1000 + i)) {
				bad++;
				fprintf(stderr, "# rank %u: in-place exchange block %u\n", me, r);
				r = n;
				break;
			}
	/* broadcast with dst == src at the root */
	for (size_t i = 0; i < blk; i++)
		buf[i] = me == 0 ? (int64_t)(7 * i) : -1;
	T_EQ(pgas_broadcast(all, 0, buf, buf, blk * 8, PGAS_COLL_MYSYNC), 0);
	for (size_t i = 0; i < blk; i++)
		if (buf[i] != (int64_t)(7 * i)) {
			bad++;
			break;
		}
	T_EQ(bad, 0);
	if (private)
		free(buf);
	t_case("in place (%s buffers): reduce_all, scan, reduce, gather_all, exchange, broadcast",
	       private ? "private" : "segment");
}

/* Single mode refuses overlap, on every member alike. */
static void single_overlap(void)
{
	void *dl[64];
	const void *sl[64];
	int64_t *dst0 = seg64(0);

	for (unsigned r = 0; r < n; r++) {
		dl[r] = (char *)pgas_segment_addr(r);
		sl[r] = (char *)pgas_segment_addr(r) + (r == n - 1 ? 8 : 65536);
	}
	T_EQ(pgas_reduce_all_single(pgas_team_all(), dl, sl, 4, PGAS_INT64, PGAS_OP_SUM,
				    PGAS_COLL_MYSYNC), PGAS_ERR_INVAL);
	T_CHECK(strstr(pgas_last_error(), "overlap") != NULL, "message: %s", pgas_last_error());
	sl[n - 1] = (char *)pgas_segment_addr(n - 1) + 65536;
	dst0[0] = 0;
	for (unsigned r = 0; r < n; r++)
		((int64_t *)((char *)pgas_segment_addr(me) + 65536))[r] = 1;
	T_EQ(pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS), 0);
	T_EQ(pgas_reduce_all_single(pgas_team_all(), dl, sl, 4, PGAS_INT64, PGAS_OP_SUM,
				    PGAS_COLL_ALLSYNC), 0);
	T_EQ(dst0[0], n);
	t_case("single mode refuses overlapping source and destination");
}

/* A few hundred teams alive at once, each working. */
static void many_teams(void)
{
	enum { NT = 300 };
	pgas_team_t *t = calloc(NT, sizeof(*t));
	unsigned made = 0, bad = 0;

	if (!t) {
		T_CHECK(0, "no memory");
		return;
	}
	for (unsigned i = 0; i < NT; i++) {
		/* Every third team is a half; the others are every rank. */
		int colour = i % 3 == 0 ? (int)(me % 2) : 0;

		if (pgas_team_split(pgas_team_all(), colour, (me * 7 + i) % n, &t[i])) {
			bad++;
			break;
		}
		made++;
	}
	for (unsigned i = 0; i < made; i++) {
		int64_t v = i, out = -1;
		unsigned sz = pgas_team_size(t[i]);

		if (pgas_reduce_all(t[i], &out, &v, 1, PGAS_INT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC) ||
		    out != (int64_t)i * sz)
			bad++;
	}
	for (unsigned i = made; i-- > 0;)	/* interleaved with new ones below */
		if (i % 2 && pgas_team_destroy(t[i]))
			bad++;
	for (unsigned i = 1; i < made; i += 2)
		if (pgas_team_split(pgas_team_all(), 0, me, &t[i]))
			bad++;
	for (unsigned i = 0; i < made; i++) {
		int64_t v = 1, out = 0;

		if (pgas_reduce_all(t[i], &out, &v, 1, PGAS_INT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC) ||
		    out != (int64_t)pgas_team_size(t[i]))
			bad++;
	}
	for (unsigned i = 0; i < made; i++)
		if (pgas_team_destroy(t[i]))
			bad++;
	T_EQ(made, NT);
	T_EQ(bad, 0);
	free(t);
	t_case("%d teams alive at once; half destroyed and made again", NT);
}

/*
 * An exhausted pool: the split fails on every member of the team that does
 * not fit (naming PGAS_COLL_POOL), hangs nobody, and works again once
 * teams are destroyed.
 */
static void pool_exhausted(void)
{
	enum { MAX = 4096 };
	pgas_team_t *t = calloc(MAX, sizeof(*t));
	unsigned made = 0;
	int rc = 0;

	if (!t) {
		T_CHECK(0, "no memory");
		return;
	}
	while (made < MAX && !(rc = pgas_team_split(pgas_team_all(), 0, me, &t[made])))
		made++;
	T_EQ(rc, PGAS_ERR_NOMEM);
	T_CHECK(strstr(pgas_last_error(), "PGAS_COLL_POOL") != NULL, "message: %s",
		pgas_last_error());
	T_CHECK(t[made] == NULL, "a failed split returned a team");
	T_CHECK(made > 0 && made < MAX, "made %u teams", made);
	if (made) {
		T_EQ(pgas_team_destroy(t[made - 1]), 0);
		T_EQ(pgas_team_split(pgas_team_all(), 0, me, &t[made - 1]), 0);
		T_EQ(pgas_team_barrier(t[made - 1]), 0);
	}
	for (unsigned i = 0; i < made; i++)
		T_EQ(pgas_team_destroy(t[i]), 0);
	free(t);
	t_case("pool exhausted: the split fails alike on every member, then works again");
}

int main(int argc, char **argv)
{
	if (pgas_init(&argc, &argv) || t_attach(NULL, 0, SEG))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	reuse_after_destroy();
	destroy_outstanding();
	in_place(false);
	in_place(true);
	single_overlap();
	many_teams();
	pool_exhausted();
	t_done();
}
