// SPDX-License-Identifier: MIT
/*
 * team.c - teams: the job's team, splitting by colour and key, rank
 * translation, destruction.
 *
 * A team owns one scratch slot, the same on every member: a split takes
 * the lowest slot free on every member of the parent (all teams of one
 * split are disjoint, so they can share it).  Each member clears its part
 * of the slot, and the parent's barrier orders that before any signal.
 */
#include <stdlib.h>
#include "coll.h"

#define TEAM_MAGIC 0x7ea3c011u

struct pgas_team pgas__team_all;
static uint64_t slots_used;

static void team_free(struct pgas_team *t)
{
	free(t->members);
	free(t->job_to_team);
	free(t->sig_sent);
	free(t->area);
	free(t->kids);
	free(t->eager_snap);
	while (t->free_ops) {
		struct pgas__coll_op *op = t->free_ops;

		t->free_ops = op->next;
		free(op);
	}
}

static int team_init(struct pgas_team *t, unsigned size, unsigned rank, const unsigned *members,
		     unsigned slot)
{
	unsigned nranks = pgas__g.nranks;

	*t = (struct pgas_team){ .size = size, .rank = rank, .slot = slot };
	t->members = malloc(size * sizeof(*t->members));
	t->job_to_team = malloc(nranks * sizeof(*t->job_to_team));
	t->sig_sent = calloc(5 * (size_t)size, sizeof(uint64_t));
	t->area = malloc(size * sizeof(*t->area));
	t->kids = malloc(size * sizeof(*t->kids));
	t->eager_snap = calloc(PGAS__EAGER_SLOTS * (size_t)size, sizeof(uint64_t));
	if (!t->members || !t->job_to_team || !t->sig_sent || !t->area || !t->kids ||
	    !t->eager_snap) {
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
		t->area[i] = pgas__coll_slot(members[i], slot);
	}
	/* My part of the slot: nobody signals in it before the caller's barrier. */
	memset(t->area[rank], 0, 192 + (size_t)128 * nranks);
	slots_used |= 1ull << slot;
	pgas__tune_team(t);
	t->tree_key = ~0ull;
	t->magic = TEAM_MAGIC;
	return PGAS_OK;
}

int pgas__team_setup_all(char *msg, size_t len)
{
	unsigned n = pgas__g.nranks;
	unsigned *ids = malloc(n * sizeof(*ids));
	int rc;

	if (!ids) {
		snprintf(msg, len, "no memory for the job's team");
		return PGAS_ERR_NOMEM;
	}
	for (unsigned r = 0; r < n; r++)
		ids[r] = r;
	rc = team_init(&pgas__team_all, n, pgas__g.rank, ids, 0);
	free(ids);
	if (rc) {
		snprintf(msg, len, "no memory for the job's team");
		return rc;
	}
	/* Everyone's slot 0 is clear before the first collective signals. */
	return pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
}

int pgas__team_check(const char *call, struct pgas_team *t)
{
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (!t)
		return pgas__err(PGAS_ERR_INVAL, call, "team is NULL");
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
	uint64_t used;		/* slots in use at that member */
};

int pgas_team_split(pgas_team_t parent, int colour, unsigned key, pgas_team_t *out)
{
	static const char call[] = "pgas_team_split";
	struct split_entry mine = { colour, key, slots_used }, *all;
	unsigned n, size = 0, rank = 0, slot;
	unsigned *members;
	uint64_t used = 0;
	struct pgas_team *t = NULL;
	int rc = pgas__team_check(call, parent);

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
	if (!all || !members) {
		free(all);
		free(members);
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u members", n);
	}
	rc = pgas_gather_all(parent, all, &mine, sizeof(mine), PGAS_COLL_MYSYNC);
	if (rc)
		goto out;
	/* Members of my colour, ordered by (key, parent rank): insertion sort. */
	for (unsigned r = 0; r < n; r++) {
		used |= all[r].used;
		if (colour < 0 || all[r].colour != colour)
			continue;
		unsigned at = size++;

		while (at && all[members[at - 1]].key > all[r].key) {
			members[at] = members[at - 1];
			at--;
		}
		members[at] = r;
	}
	slot = used == ~0ull ? 64 : (unsigned)__builtin_ctzll(~used);
	if (slot >= pgas__cfg.coll_teams) {
		rc = pgas__err(PGAS_ERR_NOMEM, call,
			       "all PGAS_COLL_TEAMS=%u team slots are in use on some member",
			       pgas__cfg.coll_teams);
		goto out;
	}
	if (colour >= 0) {
		for (unsigned i = 0; i < size; i++) {
			if (members[i] == parent->rank)
				rank = i;
			members[i] = parent->members[members[i]];	/* to job ranks */
		}
		t = malloc(sizeof(*t));
		if (!t || team_init(t, size, rank, members, slot)) {
			free(t);
			t = NULL;
		}
	}
	/* Everyone (also a failed member) reaches the barrier: no hang. */
	rc = pgas_team_barrier(parent);
	if (!rc && colour >= 0 && !t)
		rc = pgas__err(PGAS_ERR_NOMEM, call, "no memory for a team of %u", size);
	if (rc && t) {
		slots_used &= ~(1ull << t->slot);
		team_free(t);
		free(t);
		t = NULL;
	}
	*out = t;
out:
	free(all);
	free(members);
	return rc;
}

int pgas_team_destroy(pgas_team_t t)
{
	static const char call[] = "pgas_team_destroy";
	struct pgas__waiter w = PGAS__WAITER_INIT;
	int rc = pgas__team_check(call, t);

	if (rc)
		return rc;
	if (t == &pgas__team_all)
		return pgas__err(PGAS_ERR_INVAL, call, "the job's team cannot be destroyed");
	if (t->head)
		return pgas__err(PGAS_ERR_STATE, call, "team has collectives in flight");
	/* Nobody reads my buffers of earlier calls, then nobody signals any more. */
	while (!pgas__acks_collected(t))
		pgas__wait_step(&w);
	rc = pgas_team_barrier(t);
	if (rc)
		return rc;
	t->magic = 0;
	slots_used &= ~(1ull << t->slot);
	team_free(t);
	free(t);
	return PGAS_OK;
}
