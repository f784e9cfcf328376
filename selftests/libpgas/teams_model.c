// SPDX-License-Identifier: MIT
/*
 * teams_model - a seeded random walk through teams and collectives, each
 * result checked against a serial model.
 *
 * Every rank draws the same sequence from one seed: splits of a random
 * live team by random colours and keys, destroys (sometimes with calls
 * still outstanding), and collectives of every kind on random live teams,
 * blocking or not, in every address mode, in place or not, with random
 * roots, sizes, types and operations.  Members run their steps; the model
 * (the same on every rank) knows every team's members in team-rank order
 * and every call's inputs, so each rank checks its own results when a
 * call completes.  Non-blocking calls are waited at random later steps,
 * after their team was destroyed, or when their buffers come round again.
 *
 *   pgasrun -n N build/tests/teams_model [SECONDS]   (default 5; 0 = one pass of 200 steps)
 *   PGAS_MODEL_SEED=S replays a run: every failure prints its seed and step.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include "tap.h"

#define MAXT 12		/* teams alive at once, the job's included */
#define NSLOT 16	/* buffer sets, used round robin by the calls */
#define MAXBLK 2048	/* bytes per block */
#define MAXN 64
#define SLOTB ((size_t)2 * MAXBLK * MAXN)	/* source blocks, then destination blocks */

static unsigned me, n;
static uint64_t seed, rng, step;
static char *priv;
static unsigned failures;

struct mteam {
	bool alive;
	unsigned size;
	unsigned job[MAXN];
	pgas_team_t h;		/* mine, when I am a member */
	int myrank;		/* -1 when I am not */
};
static struct mteam teams[MAXT];

struct call {
	bool pending;
	pgas_coll_handle_t h;
	int kind, mode, team;	/* mode: 0 single, 1 local segment, 2 local private */
	unsigned root, size, myrank, job[MAXN];
	size_t count, es;
	pgas_op_t op;
	bool in_place;
	uint64_t id, step;
	char *dst;
};
static struct call slots[NSLOT];

static uint64_t draw(void)
{
	return t_rand(&rng);
}

static unsigned below(unsigned k)
{
	return k ? (unsigned)(draw() % k) : 0;
}

/* Input element e of team rank r in call id (8-byte elements). */
static int64_t in_val(uint64_t id, unsigned r, size_t e)
{
	uint64_t x = (id * 0x9E3779B97F4A7C15ull) ^ (r * 0xBF58476D1CE4E5B9ull) ^ (e * 1315423911u);

	x ^= x >> 29;
	x *= 0x94D049BB133111EBull;
	return (int64_t)(x >> 40) - (1 << 23);
}

static unsigned blocks(int kind, unsigned size, unsigned r, unsigned root, bool dst)
{
	switch (kind) {
	case PGAS_COLL_BROADCAST: return dst ? 1 : r == root;
	case PGAS_COLL_SCATTER: return dst ? 1 : r == root ? size : 0;
	case PGAS_COLL_GATHER: return dst ? (r == root ? size : 0) : 1;
	case PGAS_COLL_GATHER_ALL: return dst ? size : 1;
	case PGAS_COLL_EXCHANGE: return size;
	case PGAS_COLL_REDUCE: return dst ? r == root : 1;
	default: return 1;
	}
}

static char *slot_base(unsigned rank, unsigned s, int mode)
{
	if (mode == 2)
		return priv + s * SLOTB;
	return (char *)pgas_segment_addr(rank) + s * SLOTB;
}

static int64_t combine(pgas_op_t op, int64_t a, int64_t b)
{
	return op == PGAS_OP_SUM ? (int64_t)((uint64_t)a + (uint64_t)b)
	       : op == PGAS_OP_MAX ? (a > b ? a : b) : a ^ b;
}

/* Element e of block b that team rank r expects (8-byte elements; data
 * kinds move the bytes of the source elements). */
static int64_t expect(const struct call *c, unsigned b, size_t e)
{
	unsigned r = c->myrank, sz = c->size;
	size_t epb = c->count;	/* elements per block */
	int64_t acc;

	switch (c->kind) {
	case PGAS_COLL_BROADCAST: return in_val(c->id, c->root, e);
	case PGAS_COLL_SCATTER: return in_val(c->id, c->root, r * epb + e);
	case PGAS_COLL_GATHER:
	case PGAS_COLL_GATHER_ALL: return in_val(c->id, b, e);
	case PGAS_COLL_EXCHANGE: return in_val(c->id, b, r * epb + e);
	case PGAS_COLL_SCAN: sz = r + 1;	/* fall through */
	default:
		acc = in_val(c->id, 0, e);
		for (unsigned i = 1; i < sz; i++)
			acc = combine(c->op, acc, in_val(c->id, i, e));
		return acc;
	}
}

static void check(struct call *c, int rc)
{
	unsigned nd = blocks(c->kind, c->size, c->myrank, c->root, true), bad = 0;
	static const char *const mode[] = { "single", "local", "local-private" };

	if (rc) {
		fprintf(stderr, "# rank %u: seed %llu step %llu: %s returned %d: %s\n", me,
			(unsigned long long)seed, (unsigned long long)c->step,
			pgas_coll_kind_name(c->kind), rc, pgas_last_error());
		failures++;
		return;
	}
	if (c->kind == PGAS_COLL_BARRIER)
		return;
	for (unsigned b = 0; b < nd && !bad; b++)
		for (size_t e = 0; e < c->count; e++) {
			int64_t got, want = expect(c, b, e);

			memcpy(&got, c->dst + (b * c->count + e) * 8, 8);
			if (got != want) {
				fprintf(stderr, "# rank %u: seed %llu step %llu: %s (%s%s, team of %u, "
					"root %u, %zu elements) block %u element %zu: %lld, want %lld\n",
					me, (unsigned long long)seed, (unsigned long long)c->step,
					pgas_coll_kind_name(c->kind), mode[c->mode],
					c->in_place ? ", in place" : "", c->size, c->root, c->count, b,
					e, (long long)got, (long long)want);
				bad = 1;
				break;
			}
		}
	failures += bad;
}

static void complete(struct call *c)
{
	if (!c->pending)
		return;
	c->pending = false;
	check(c, pgas_coll_wait(c->h));
}

/* ---- steps ---------------------------------------------------------------------- */

static int free_team(void)
{
	for (int i = 1; i < MAXT; i++)
		if (!teams[i].alive)
			return i;
	return -1;
}

static int random_live(bool job_too)
{
	int live[MAXT], k = 0;

	for (int i = job_too ? 0 : 1; i < MAXT; i++)
		if (teams[i].alive)
			live[k++] = i;
	return k ? live[below((unsigned)k)] : -1;
}

static void step_split(void)
{
	int p = random_live(true), colour[MAXN];
	unsigned key[MAXN], ncol = 1 + below(3);
	struct mteam *pt = &teams[p];
	int mine = -1;

	for (unsigned i = 0; i < pt->size; i++) {
		colour[i] = below(8) == 0 ? PGAS_TEAM_NO_COLOUR : (int)below(ncol);
		key[i] = below(4);
	}
	/* Room for every colour's team, decided alike everywhere. */
	unsigned room = 0;

	for (int i = 1; i < MAXT; i++)
		room += !teams[i].alive;
	if (room < ncol)
		return;
	int id[3];

	for (unsigned c = 0; c < ncol; c++) {
		id[c] = free_team();
		teams[id[c]] = (struct mteam){ .alive = true, .myrank = -1 };
	}
	for (unsigned c = 0; c < ncol; c++) {
		struct mteam *t = &teams[id[c]];

		for (unsigned k = 0; k < 4; k++)		/* by key, then parent rank */
			for (unsigned i = 0; i < pt->size; i++)
				if (colour[i] == (int)c && key[i] == k) {
					if (pt->job[i] == me)
						t->myrank = (int)t->size;
					t->job[t->size++] = pt->job[i];
				}
		if (!t->size)
			t->alive = false;
	}
	if (pt->myrank < 0)
		return;
	pgas_team_t h = NULL;
	int rc = pgas_team_split(pt->h, colour[pt->myrank], key[pt->myrank], &h);

	if (rc)
		check(&(struct call){ .kind = PGAS_COLL_BARRIER, .step = step }, rc);
	if (colour[pt->myrank] >= 0)
		mine = id[colour[pt->myrank]];
	if (mine >= 0) {
		teams[mine].h = h;
		if (!h || pgas_team_size(h) != teams[mine].size ||
		    (int)pgas_team_rank(h) != teams[mine].myrank) {
			fprintf(stderr, "# rank %u: seed %llu step %llu: split gave size %u rank %u, "
				"model %u %d\n", me, (unsigned long long)seed,
				(unsigned long long)step, pgas_team_size(h), pgas_team_rank(h),
				teams[mine].size, teams[mine].myrank);
			failures++;
		}
	} else if (h) {
		fprintf(stderr, "# rank %u: step %llu: no colour but got a team\n", me,
			(unsigned long long)step);
		failures++;
	}
}

static void step_destroy(void)
{
	int i = random_live(false);
	bool wait_first = below(2);

	if (i < 0)
		return;
	if (teams[i].myrank >= 0) {
		for (unsigned s = 0; wait_first && s < NSLOT; s++)
			if (slots[s].pending && slots[s].team == i)
				complete(&slots[s]);
		int rc = pgas_team_destroy(teams[i].h);

		if (rc)
			check(&(struct call){ .kind = PGAS_COLL_BARRIER, .step = step }, rc);
	}
	teams[i].alive = false;
	for (unsigned s = 0; s < NSLOT; s++)	/* their handles stay valid: the model forgets */
		if (slots[s].team == i)
			slots[s].team = -1;
}

static int start(struct call *c, char *src, char *dst, void **dl, const void **sl, unsigned fl)
{
	pgas_team_t t = teams[c->team].h;
	pgas_coll_handle_t *h = &c->h;
	size_t nb = c->count * 8;

	if (c->mode == 0) {
		switch (c->kind) {
		case PGAS_COLL_BROADCAST: return pgas_broadcast_single_nb(h, t, c->root, dl, sl[c->root], nb, fl);
		case PGAS_COLL_SCATTER: return pgas_scatter_single_nb(h, t, c->root, dl, sl[c->root], nb, fl);
		case PGAS_COLL_GATHER: return pgas_gather_single_nb(h, t, c->root, dl[c->root], sl, nb, fl);
		case PGAS_COLL_GATHER_ALL: return pgas_gather_all_single_nb(h, t, dl, sl, nb, fl);
		case PGAS_COLL_EXCHANGE: return pgas_exchange_single_nb(h, t, dl, sl, nb, fl);
		case PGAS_COLL_REDUCE: return pgas_reduce_single_nb(h, t, c->root, dl[c->root], sl, c->count, PGAS_INT64, c->op, fl);
		case PGAS_COLL_REDUCE_ALL: return pgas_reduce_all_single_nb(h, t, dl, sl, c->count, PGAS_INT64, c->op, fl);
		case PGAS_COLL_SCAN: return pgas_scan_single_nb(h, t, dl, sl, c->count, PGAS_INT64, c->op, fl);
		default: return pgas_team_barrier_nb(h, t);
		}
	}
	switch (c->kind) {
	case PGAS_COLL_BROADCAST: return pgas_broadcast_nb(h, t, c->root, dst, src, nb, fl);
	case PGAS_COLL_SCATTER: return pgas_scatter_nb(h, t, c->root, dst, src, nb, fl);
	case PGAS_COLL_GATHER: return pgas_gather_nb(h, t, c->root, dst, src, nb, fl);
	case PGAS_COLL_GATHER_ALL: return pgas_gather_all_nb(h, t, dst, src, nb, fl);
	case PGAS_COLL_EXCHANGE: return pgas_exchange_nb(h, t, dst, src, nb, fl);
	case PGAS_COLL_REDUCE: return pgas_reduce_nb(h, t, c->root, dst, src, c->count, PGAS_INT64, c->op, fl);
	case PGAS_COLL_REDUCE_ALL: return pgas_reduce_all_nb(h, t, dst, src, c->count, PGAS_INT64, c->op, fl);
	case PGAS_COLL_SCAN: return pgas_scan_nb(h, t, dst, src, c->count, PGAS_INT64, c->op, fl);
	default: return pgas_team_barrier_nb(h, t);
	}
}

static void step_coll(void)
{
	static const size_t counts[] = { 0, 1, 3, 16, 100, 255 };
	static const unsigned flags[] = { PGAS_COLL_MYSYNC, PGAS_COLL_ALLSYNC, PGAS_COLL_NOSYNC,
					  PGAS_COLL_IN_ALLSYNC | PGAS_COLL_OUT_MYSYNC };
	static const pgas_op_t ops[] = { PGAS_OP_SUM, PGAS_OP_MAX, PGAS_OP_XOR };
	static uint64_t calls;
	unsigned s = (unsigned)(calls++ % NSLOT);
	struct call *c = &slots[s];
	int ti = random_live(true);
	struct mteam *t = &teams[ti];
	struct call nc = { .team = ti, .kind = (int)below(PGAS_COLL_NKINDS), .size = t->size,
			   .mode = (int)below(3), .op = ops[below(3)], .id = calls * 7919 + seed,
			   .step = step };
	unsigned fl = flags[below(4)], nonblocking = below(3) == 0, inplace = below(3) == 0;

	nc.root = below(t->size);
	nc.count = counts[below(6)];
	if (nc.mode == 0)	/* buffers of other ranks: no NOSYNC across reuse */
		fl = below(2) ? PGAS_COLL_MYSYNC : PGAS_COLL_ALLSYNC;
	complete(c);		/* its buffers come round again */
	if (t->myrank < 0)
		return;
	nc.myrank = (unsigned)t->myrank;
	memcpy(nc.job, t->job, sizeof(nc.job));
	unsigned r = nc.myrank, ns = blocks(nc.kind, nc.size, r, nc.root, false);
	size_t blk = nc.count * 8;
	char *src = slot_base(me, s, nc.mode), *dst = src + SLOTB / 2;
	void *dl[MAXN];
	const void *sl[MAXN];

	/* In place where the local call allows it: overlapping buffers. */
	nc.in_place = nc.mode != 0 && inplace &&
		      (nc.kind == PGAS_COLL_REDUCE_ALL || nc.kind == PGAS_COLL_SCAN ||
		       nc.kind == PGAS_COLL_EXCHANGE || nc.kind == PGAS_COLL_GATHER_ALL ||
		       (nc.kind == PGAS_COLL_BROADCAST && r == nc.root) ||
		       (nc.kind == PGAS_COLL_REDUCE && r == nc.root));
	if (nc.in_place)
		src = nc.kind == PGAS_COLL_GATHER_ALL ? dst + r * blk : dst;
	for (unsigned b = 0; b < ns; b++)
		for (size_t e = 0; e < nc.count; e++) {
			int64_t v = in_val(nc.id, r, b * nc.count + e);

			memcpy(src + (b * nc.count + e) * 8, &v, 8);
		}
	for (unsigned i = 0; i < nc.size; i++) {
		sl[i] = slot_base(t->job[i], s, 1);
		dl[i] = slot_base(t->job[i], s, 1) + SLOTB / 2;
	}
	nc.dst = dst;
	*c = nc;
	int rc = start(c, src, dst, dl, sl, fl);

	if (rc) {
		check(c, rc);
		return;
	}
	c->pending = true;
	if (!nonblocking)
		complete(c);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	const char *env = getenv("PGAS_MODEL_SEED");
	unsigned long long steps_done = 0, splits = 0, destroys = 0;

	if (pgas_init(&argc, &argv) || t_attach(NULL, 0, NSLOT * SLOTB))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	priv = malloc(NSLOT * SLOTB);
	if (!priv || n > MAXN)
		return 1;
	seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)clock();
	if (pgas_broadcast(pgas_team_all(), 0, &seed, &seed, sizeof(seed), PGAS_COLL_MYSYNC))
		return 1;
	rng = seed | 1;
	if (me == 0)
		printf("# seed %llu (PGAS_MODEL_SEED=%llu replays it)\n", (unsigned long long)seed,
		       (unsigned long long)seed);
	teams[0] = (struct mteam){ .alive = true, .size = n, .h = pgas_team_all(), .myrank = (int)me };
	for (unsigned i = 0; i < n; i++)
		teams[0].job[i] = i;
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (step = 1;; step++) {
		unsigned what = below(100);

		if (what < 10) {
			step_split();
			splits++;
		} else if (what < 18) {
			step_destroy();
			destroys++;
		} else {
			step_coll();
		}
		steps_done++;
		if (step % 50)
			continue;
		/* Go on?  Rank 0's clock decides for everyone. */
		int64_t more;

		clock_gettime(CLOCK_MONOTONIC, &now);
		more = (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 < seconds;
		if (seconds <= 0)
			more = step < 200;
		if (pgas_broadcast(pgas_team_all(), 0, &more, &more, sizeof(more), PGAS_COLL_MYSYNC) ||
		    !more)
			break;
	}
	for (unsigned s = 0; s < NSLOT; s++)
		complete(&slots[s]);
	for (int i = 1; i < MAXT; i++)
		if (teams[i].alive && teams[i].myrank >= 0 && pgas_team_destroy(teams[i].h))
			failures++;
	T_EQ(failures, 0);
	t_case("random teams and collectives against the model: seed %llu, %llu steps "
	       "(%llu splits, %llu destroys)", (unsigned long long)seed, steps_done, splits,
	       destroys);
	t_done();
}
