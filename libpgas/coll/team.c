// SPDX-License-Identifier: MIT
/*
 * team.c - teams: the job's team, splitting by colour and key, rank
 * translation, destruction, and each rank's pool of team regions.
 *
 * A split allocates the new team's region from every member's own pool
 * (first fit, this process's bookkeeping only) and tells the other members
 * its offset; the owner clears it, and the parent's barrier orders that
 * before any signal (coll.h, "Reuse").  A destroyed team's structure is
 * kept, dead, for a while, so that a stale handle is refused rather than
 * taken for a newer team that malloc put at the same address.
 */
#include <stdlib.h>
#include "coll.h"

#define TEAM_MAGIC 0x7ea3c011u
#define TEAM_DEAD 0xdeadc011u
#define DEAD_KEPT 1024		/* destroyed teams remembered */

struct pgas_team pgas__team_all;
struct pgas_team *pgas__live_teams;
static struct pgas_team *dead[DEAD_KEPT];
static unsigned dead_next;

/* ---- the pool: regions of my library area, one per team I am in ---------------- */

/* Allocated regions, sorted by offset. */
static struct pool_ext {
	uint64_t off, len;
} *pool_used;
static unsigned pool_n, pool_cap;

/* First fit; UINT64_MAX when the pool has no room. */
static uint64_t pool_alloc(size_t len)
{
	uint64_t at = 0, size = pgas__cfg.coll_pool;
	unsigned i;

	for (i = 0; i < pool_n; i++) {
		if (pool_used[i].off - at >= len)
			break;
		at = pool_used[i].off + pool_used[i].len;
	}
	if (i == pool_n && (at > size || size - at < len))
		return UINT64_MAX;
	if (pool_n == pool_cap) {
		unsigned cap = pool_cap ? 2 * pool_cap : 16;
		struct pool_ext *p = realloc(pool_used, cap * sizeof(*p));

		if (!p)
			return UINT64_MAX;
		pool_used = p;
		pool_cap = cap;
	}
	memmove(pool_used + i + 1, pool_used + i, (pool_n - i) * sizeof(*pool_used));
	pool_used[i] = (struct pool_ext){ at, len };
	pool_n++;
	return at;
}

static void pool_free(uint64_t off)
{
	for (unsigned i = 0; i < pool_n; i++) {
		if (pool_used[i].off == off) {
			memmove(pool_used + i, pool_used + i + 1,
				(pool_n - i - 1) * sizeof(*pool_used));
			pool_n--;
			return;
		}
	}
}

static size_t pool_free_bytes(void)
{
	size_t used = 0;

	for (unsigned i = 0; i < pool_n; i++)
		used += pool_used[i].len;
	return pgas__cfg.coll_pool - used;
}

/* ---- a team's structure ----------------------------------------------------------- */

static void team_free(struct pgas_team *t)
{
	free(t->members);
	free(t->job_to_team);
	free(t->sig_sent);
	free(t->area);
	free(t->ref_key);
	free(t->hgroup);
	free(t->hlead);
	free(t->kids);
	free(t->eager_snap);
	pgas__coll_op_free_all(t);
}

static void live_unlink(struct pgas_team *t)
{
	for (struct pgas_team **pp = &pgas__live_teams; *pp; pp = &(*pp)->next_live) {
		if (*pp == t) {
			*pp = t->next_live;
			return;
		}
	}
}

/* Kept dead: a stale handle finds TEAM_DEAD, never a newer team. */
static void team_bury(struct pgas_team *t)
{
	live_unlink(t);
	team_free(t);
	*t = (struct pgas_team){ .magic = TEAM_DEAD };
	free(dead[dead_next]);
	dead[dead_next] = t;
	dead_next = (dead_next + 1) % DEAD_KEPT;
}

void pgas__team_region_clear(struct pgas_team *t)
{
	char *mine = t->area[t->rank];

	memset(mine, 0, PGAS__REGION_CTL(t->size));
	for (uint64_t s = 0; t->eager_slot && s < PGAS__EAGER_SLOTS; s++)
		*(uint64_t *)coll_eager(t, t->rank, s) = 0;
}

int pgas__team_hosts(struct pgas_team *t)
{
	unsigned n = t->size, g = 0;

	t->hgroups = 1;
	if (!t->ref || !pgas__host_leader)
		return PGAS_OK;
	t->hgroup = malloc(n * sizeof(*t->hgroup));
	t->hlead = malloc(n * sizeof(*t->hlead));
	if (!t->hgroup || !t->hlead)
		return PGAS_ERR_NOMEM;
	for (unsigned i = 0; i < n; i++) {
		unsigned h = 0, l = pgas__host_leader[t->members[i]];

		while (h < g && pgas__host_leader[t->members[t->hlead[h]]] != l)
			h++;
		if (h == g)
			t->hlead[g++] = i;
		t->hgroup[i] = h;
	}
	/* One group, or one member per group: the flat algorithms are the same. */
	if (g > 1 && g < n) {
		t->hgroups = g;
		return PGAS_OK;
	}
	free(t->hgroup);
	free(t->hlead);
	t->hgroup = t->hlead = NULL;
	return PGAS_OK;
}

/* base[i]: team rank i's region as this process maps it; keys[i]: the
 * team's key at team rank i (coll.h); ref: the reference algorithms only. */
static int team_init(struct pgas_team *t, unsigned size, unsigned rank, const unsigned *members,
		     char *const *base, const uint64_t *keys, bool ref, size_t stage)
{
	unsigned nranks = pgas__g.nranks;

	*t = (struct pgas_team){ .size = size, .rank = rank, .stage_len = stage,
				 .eager_slot = pgas__eager_slot_bytes(stage) };
	t->region_len = pgas__region_bytes(size, stage);
	t->members = malloc(size * sizeof(*t->members));
	t->job_to_team = malloc(nranks * sizeof(*t->job_to_team));
	t->sig_sent = calloc(5 * (size_t)size, sizeof(uint64_t));
	t->area = malloc(size * sizeof(*t->area));
	t->ref_key = malloc(size * sizeof(*t->ref_key));
	t->kids = malloc(size * sizeof(*t->kids));
	t->eager_snap = calloc(PGAS__EAGER_SLOTS * (size_t)size, sizeof(uint64_t));
	if (!t->members || !t->job_to_team || !t->sig_sent || !t->area || !t->kids ||
	    !t->eager_snap || !t->ref_key) {
		team_free(t);
		return PGAS_ERR_NOMEM;
	}
	t->sig_seen = t->sig_sent + size;
	t->ack_sent = t->sig_seen + size;
	t->ack_seen = t->ack_sent + size;
	t->ack_cache = t->ack_seen + size;
	for (unsigned r = 0; r < nranks; r++)
		t->job_to_team[r] = -1;
	for (unsigned i = 0; i < size; i++) {
		t->members[i] = members[i];
		t->job_to_team[members[i]] = (int)i;
		t->area[i] = base[i];
		t->ref_key[i] = keys[i];
	}
	t->ref = ref;
	if (pgas__team_hosts(t)) {
		team_free(t);
		return PGAS_ERR_NOMEM;
	}
	/* My part: nobody signals in it before the caller's barrier. */
	pgas__team_region_clear(t);
	pgas__tune_team(t);
	t->tree_key = ~0ull;
	t->magic = TEAM_MAGIC;
	t->next_live = pgas__live_teams;
	pgas__live_teams = t;
	return PGAS_OK;
}

int pgas__team_setup_all(char *msg, size_t len)
{
	unsigned n = pgas__g.nranks;
	unsigned *ids = malloc(n * sizeof(*ids));
	char **base = malloc(n * sizeof(*base));
	uint64_t *keys = calloc(n, sizeof(*keys));	/* the job's team: key 0 */
	int rc = PGAS_ERR_NOMEM;
	bool ref = false;

	if (ids && base && keys) {
		for (unsigned r = 0; r < n; r++) {
			ids[r] = r;
			/* An address only where mapped (nobody uses the others). */
			base[r] = pgas__coll_mapped(r) ? pgas__coll_job_region(r) : NULL;
			ref |= !pgas__coll_mapped(r);
		}
		base[pgas__g.rank] = pgas__coll_job_region(pgas__g.rank);
		rc = team_init(&pgas__team_all, n, pgas__g.rank, ids, base, keys, ref,
			       pgas__cfg.coll_stage);
	}
	free(ids);
	free(base);
	free(keys);
	if (rc) {
		snprintf(msg, len, "no memory for the job's team");
		return rc;
	}
	/* Everyone's region is clear before the first collective signals. */
	return pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
}

int pgas__team_check(const char *call, struct pgas_team *t)
{
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!t)
		return pgas__err(PGAS_ERR_INVAL, call, "team is NULL");
	if (t->magic == TEAM_DEAD)
		return pgas__err(PGAS_ERR_STATE, call, "team %p was destroyed", (void *)t);
	if (t->magic != TEAM_MAGIC)
		return pgas__err(PGAS_ERR_INVAL, call, "team %p is not a live team", (void *)t);
	return PGAS_OK;
}

pgas_team_t pgas_team_all(void)
{
	return pgas__job.attached ? &pgas__team_all : NULL;
}

unsigned pgas_team_rank(pgas_team_t t)
{
	return t && t->magic == TEAM_MAGIC ? t->rank : 0;
}

unsigned pgas_team_size(pgas_team_t t)
{
	return t && t->magic == TEAM_MAGIC ? t->size : 0;
}

int pgas_team_to_job(pgas_team_t t, unsigned team_rank, unsigned *job_rank)
{
	static const char call[] = "pgas_team_to_job";
	int rc = pgas__team_check(call, t);

	if (rc)
		return rc;
	if (!job_rank)
		return pgas__err(PGAS_ERR_INVAL, call, "job_rank is NULL");
	if (team_rank >= t->size)
		return pgas__err(PGAS_ERR_RANK, call, "team rank %u out of range (team has %u)",
				 team_rank, t->size);
	*job_rank = t->members[team_rank];
	return PGAS_OK;
}

int pgas_team_from_job(pgas_team_t t, unsigned job_rank, unsigned *team_rank)
{
	static const char call[] = "pgas_team_from_job";
	int rc = pgas__team_check(call, t);

	if (rc)
		return rc;
	if (!team_rank)
		return pgas__err(PGAS_ERR_INVAL, call, "team_rank is NULL");
	if (job_rank >= pgas__g.nranks || t->job_to_team[job_rank] < 0)
		return pgas__err(PGAS_ERR_RANK, call, "job rank %u is not a member of the team",
				 job_rank);
	*team_rank = (unsigned)t->job_to_team[job_rank];
	return PGAS_OK;
}

struct split_entry {
	int32_t colour;
	uint32_t key;
};

#define NO_REGION UINT64_MAX

/* The split's second exchange: a member's region, and whether it maps every
 * other member (the team takes the reference algorithms if one does not). */
struct split_region {
	uint64_t off;
	uint64_t unmapped;
};

static int team_split(pgas_team_t parent, int colour, unsigned key, pgas_team_t *out)
{
	static const char call[] = "pgas_team_split";
	struct split_entry mine = { colour, key }, *all = NULL;
	unsigned n, size = 0, rank = 0;
	unsigned *members = NULL;
	uint64_t my_off = NO_REGION, *keys = NULL;
	struct split_region my_reg = { NO_REGION, 0 }, *offs = NULL;
	bool ref = false;
	char **base = NULL;
	size_t stage = pgas__cfg.coll_team_stage;
	struct pgas_team *t = NULL;
	int rc = pgas__team_check(call, parent), bad = -1;

	if (rc)
		return rc;
	if (!out)
		return pgas__err(PGAS_ERR_INVAL, call, "team pointer is NULL");
	*out = NULL;
	if (colour < 0 && colour != PGAS_TEAM_NO_COLOUR)
		return pgas__err(PGAS_ERR_INVAL, call, "colour %d (must be >= 0 or "
				 "PGAS_TEAM_NO_COLOUR)", colour);
	n = parent->size;
	all = malloc(n * sizeof(*all));
	members = malloc(n * sizeof(*members));
	offs = malloc(n * sizeof(*offs));
	base = malloc(n * sizeof(*base));
	keys = malloc(n * sizeof(*keys));
	if (!all || !members || !offs || !base || !keys) {
		free(all);
		free(members);
		free(offs);
		free(base);
		free(keys);
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u members", n);
	}
	rc = pgas_gather_all(parent, all, &mine, sizeof(mine), PGAS_COLL_MYSYNC);
	if (rc)
		goto out;
	/* Members of my colour, ordered by (key, parent rank): insertion sort. */
	for (unsigned r = 0; colour >= 0 && r < n; r++) {
		if (all[r].colour != colour)
			continue;
		unsigned at = size++;

		while (at && all[members[at - 1]].key > all[r].key) {
			members[at] = members[at - 1];
			at--;
		}
		members[at] = r;
	}
	/* My region from my pool; every member learns every member's. */
	if (colour >= 0)
		my_off = pool_alloc(pgas__region_bytes(size, stage));
	my_reg.off = my_off;
	for (unsigned i = 0; i < size; i++)
		my_reg.unmapped |= !pgas__coll_mapped(parent->members[members[i]]);
	rc = pgas_gather_all(parent, offs, &my_reg, sizeof(my_reg), PGAS_COLL_MYSYNC);
	if (rc)
		goto out;
	if (colour >= 0) {
		for (unsigned i = 0; i < size; i++) {
			unsigned pr = members[i];

			if (pr == parent->rank)
				rank = i;
			if (offs[pr].off == NO_REGION && bad < 0)
				bad = (int)i;
			ref |= offs[pr].unmapped != 0;
			members[i] = parent->members[pr];	/* to job ranks */
			/* An address only where mapped (nobody uses the others). */
			base[i] = pgas__coll_mapped(members[i]) ?
				  pgas__coll_pool(members[i]) + offs[pr].off : NULL;
			keys[i] = offs[pr].off + 1;	/* 0 is the job's team */
		}
		t = bad < 0 ? malloc(sizeof(*t)) : NULL;
		if (t && team_init(t, size, rank, members, base, keys, ref, stage)) {
			free(t);
			t = NULL;
		}
	}
	/* Everyone (also a failed member) reaches the barrier: no hang. */
	rc = pgas_team_barrier(parent);
	if (!rc && colour >= 0 && bad >= 0)
		rc = pgas__err(PGAS_ERR_NOMEM, call,
			       "team rank %u (job rank %u) of the new team of %u has no room for "
			       "its %zu-byte region in its PGAS_COLL_POOL=%zu (this rank has %zu bytes free)",
			       (unsigned)bad, members[bad], size, pgas__region_bytes(size, stage),
			       pgas__cfg.coll_pool, pool_free_bytes());
	else if (!rc && colour >= 0 && !t)
		rc = pgas__err(PGAS_ERR_NOMEM, call, "no memory for a team of %u", size);
	if (rc && t) {
		live_unlink(t);
		team_free(t);
		free(t);
		t = NULL;
	}
	*out = t;
out:
	if (!t && my_off != NO_REGION)
		pool_free(my_off);
	if (t)
		t->pool_off = my_off;
	free(all);
	free(members);
	free(offs);
	free(base);
	free(keys);
	return rc;
}

static int team_destroy(pgas_team_t t)
{
	static const char call[] = "pgas_team_destroy";
	struct pgas__waiter w = PGAS__WAITER_INIT;
	int rc = pgas__team_check(call, t);

	if (rc)
		return rc;
	if (t == &pgas__team_all)
		return pgas__err(PGAS_ERR_INVAL, call, "the job's team cannot be destroyed");
	rc = pgas__check_thread(call);
	if (rc)
		return rc;
	/* Calls still outstanding complete first (every member made them too). */
	pgas__team_complete(t);
	/* Nobody reads my buffers of earlier calls, then nobody signals any more. */
	while (!pgas__acks_collected(t)) {
		/* A member that left in the middle of a call owes acks forever. */
		if (PGAS__UNLIKELY(pgas__leavers()) && (rc = pgas__team_gone(t, call, t->seq)))
			return rc;
		pgas__wait_step(&w);
	}
	rc = pgas_team_barrier(t);
	if (rc)
		return rc;
	pool_free(t->pool_off);
	team_bury(t);
	return PGAS_OK;
}

/* At MULTIPLE under the progress lock (lent while they wait). */
int pgas_team_split(pgas_team_t parent, int colour, unsigned key, pgas_team_t *out)
{
	int rc = pgas__mt_enter("pgas_team_split");

	return rc ? rc : pgas__mt_leave(team_split(parent, colour, key, out));
}

int pgas_team_destroy(pgas_team_t t)
{
	int rc = pgas__mt_enter("pgas_team_destroy");

	return rc ? rc : pgas__mt_leave(team_destroy(t));
}
