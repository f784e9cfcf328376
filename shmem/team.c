/* SPDX-License-Identifier: MIT */
/*
 * team.c - OpenSHMEM 1.5 teams over libpgas teams.
 *
 * A shmem_team_t points at a struct of this layer holding the libpgas team.
 * SHMEM_TEAM_WORLD is the job's team; SHMEM_TEAM_SHARED the PEs this PE can
 * load and store (the job's team too on shm and pgas.ko, where every PE
 * maps every other; see team_shared_init).  Splits are pgas_team_split
 * over the parent, after one reduction that checks that every parent PE
 * passed the same arguments.  A destroyed team's struct is never freed nor
 * reused: its handle stays refused ("was destroyed") for the rest of the
 * job, so a later team can never be reached through a stale handle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shmem_internal.h"

#define TEAM_LIVE 0x7ea3a11eu
#define TEAM_DEAD 0xdead7ea3u

struct shmem__team shmem__team_world, shmem__team_shared;

/* Every team this PE was given, live or destroyed (handle check). */
static struct shmem__team *teams;

/* t's members' places in it by world PE (-1: not a member), from t->pt. */
static void of_world_init(const char *call, struct shmem__team *t)
{
	t->of_world = malloc((size_t)shmem__s.npes * sizeof(*t->of_world));
	if (!t->of_world)
		shmem__fatal(call, "out of memory");
	for (int w = 0; w < shmem__s.npes; w++)
		t->of_world[w] = -1;
	for (int r = 0; r < t->n_pes; r++) {
		unsigned w;

		SHMEM__CHECK(call, pgas_team_to_job(t->pt, (unsigned)r, &w));
		t->of_world[w] = r;
	}
}

/*
 * SHMEM_TEAM_SHARED: the PEs whose heap this PE can load and store
 * (shmem_ptr non-NULL).  When every PE maps every other (shm and pgas.ko
 * by default), the job's team, as SHMEM_TEAM_WORLD.  Else (PGAS_MAP_PEERS=
 * none, a conduit that reaches some peers by messages only) a split of the
 * job's team, coloured by the lowest PE this PE maps: the PEs of one host
 * map each other.  One MIN reduction decides it, the same on every PE;
 * collective, in shmem_init.
 */
static void team_shared_init(void)
{
	static const char call[] = "shmem_init";
	struct shmem__team *t = &shmem__team_shared;
	long all = 1, every;
	int colour = -1;
	pgas_team_t pt = NULL;

	for (int r = 0; r < shmem__s.npes; r++)
		if (pgas_ptr((unsigned)r, shmem__s.bases[r])) {
			if (colour < 0)
				colour = r;
		} else {
			all = 0;
		}
	if (colour < 0)
		colour = shmem__s.me;	/* not even our own heap: a team of one */
	SHMEM__CHECK(call, pgas_reduce_all(pgas_team_all(), &every, &all, 1, PGAS_INT64,
					   PGAS_OP_MIN, PGAS_COLL_MYSYNC));
	if (every)
		return;
	SHMEM__CHECK(call, pgas_team_split(pgas_team_all(), colour, (unsigned)shmem__s.me, &pt));
	if (!pt)
		shmem__fatal(call, "SHMEM_TEAM_SHARED: no team from the split");
	t->pt = pt;
	t->my_pe = (int)pgas_team_rank(pt);
	t->n_pes = (int)pgas_team_size(pt);
	of_world_init(call, t);
}

void shmem__team_init(void)
{
	struct shmem__team *w[2] = { &shmem__team_world, &shmem__team_shared };

	for (int i = 0; i < 2; i++) {
		memset(w[i], 0, sizeof(*w[i]));
		w[i]->magic = TEAM_LIVE;
		w[i]->pt = pgas_team_all();
		w[i]->my_pe = shmem__s.me;
		w[i]->n_pes = shmem__s.npes;
		w[i]->predefined = 1;
	}
	team_shared_init();
}

/*
 * A handle the layer made: teams are never freed (a destroyed one stays,
 * marked), so its magic can be read at any time; one check, not a walk
 * of every team ever made (that cost grew with each create/destroy: 183
 * us a call after 20000).  A pointer that never was a team is undefined
 * behaviour, as the spec says; here it is caught when its first word is
 * not a team's magic.
 */
static int known(const struct shmem__team *t)
{
	return t == &shmem__team_world || t == &shmem__team_shared ||
	       t->magic == TEAM_LIVE || t->magic == TEAM_DEAD;
}

/*
 * The live team behind handle t, or NULL: SHMEM_TEAM_INVALID quietly (the
 * spec's error returns); a destroyed or unknown handle with a message
 * naming call, since using one is a program error worth seeing.
 */
struct shmem__team *shmem__team_get(const char *call, shmem_team_t t)
{
	shmem__need_init(call);
	if (t == SHMEM_TEAM_INVALID)
		return NULL;
	if (!known(t)) {
		fprintf(stderr, "shmem: PE %d: %s: %p is not a team handle\n", shmem__s.me, call,
			(void *)t);
		return NULL;
	}
	if (t->magic != TEAM_LIVE) {
		fprintf(stderr, "shmem: PE %d: %s: team %p was destroyed\n", shmem__s.me, call,
			(void *)t);
		return NULL;
	}
	return t;
}

int shmem_team_my_pe(shmem_team_t team)
{
	struct shmem__team *t = shmem__team_get("shmem_team_my_pe", team);

	return t ? t->my_pe : -1;
}

int shmem_team_n_pes(shmem_team_t team)
{
	struct shmem__team *t = shmem__team_get("shmem_team_n_pes", team);

	return t ? t->n_pes : -1;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
	struct shmem__team *t = shmem__team_get("shmem_team_get_config", team);

	if (!t)
		return -1;
	if (!config && config_mask)
		shmem__fatal("shmem_team_get_config", "config is NULL");
	if (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS)
		shmem__fatal("shmem_team_get_config", "unknown config_mask bits %#lx",
			     config_mask & ~SHMEM_TEAM_NUM_CONTEXTS);
	if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
		config->num_contexts = t->config.num_contexts;
	return 0;
}

/* The world PE of team PE pe of t, or -1 when pe is not one. */
int shmem__team_world_pe(const struct shmem__team *t, int pe)
{
	unsigned job;

	if (pe < 0 || pe >= t->n_pes || pgas_team_to_job(t->pt, (unsigned)pe, &job) < 0)
		return -1;
	return (int)job;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
	struct shmem__team *s = shmem__team_get("shmem_team_translate_pe", src_team);
	struct shmem__team *d = shmem__team_get("shmem_team_translate_pe", dest_team);
	int w;

	if (!s || !d || (w = shmem__team_world_pe(s, src_pe)) < 0)
		return -1;
	/* A map, not pgas_team_from_job, which prints for a non-member. */
	return d->of_world ? d->of_world[w] : w;
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
	struct shmem__team *t = shmem__team_get("shmem_team_ptr", team);
	int w;

	if (!t || (w = shmem__team_world_pe(t, pe)) < 0)
		return NULL;
	return shmem_ptr(dest, w);
}

int shmem_team_sync(shmem_team_t team)
{
	struct shmem__team *t = shmem__team_get("shmem_team_sync", team);

	if (!t)
		return -1;
	SHMEM__CHECK("shmem_team_sync", pgas_team_barrier(t->pt));
	return 0;
}

/*
 * Every parent PE passed the same vals[0..n)?  One MAX reduction of the
 * values and of their complements over the parent: equal everywhere iff
 * max == -min for every value.  Collective; the same answer on every PE.
 */
static int same_args(const char *call, struct shmem__team *parent, const long *vals, int n)
{
	long v[16], m[16];

	for (int i = 0; i < n; i++) {
		v[i] = vals[i];
		v[n + i] = ~vals[i];
	}
	SHMEM__CHECK(call, pgas_reduce_all(parent->pt, m, v, (size_t)(2 * n), PGAS_INT64,
					   PGAS_OP_MAX, PGAS_COLL_MYSYNC));
	for (int i = 0; i < n; i++)
		if (m[i] != ~m[n + i]) {
			if (parent->my_pe == 0)
				fprintf(stderr, "shmem: PE %d: %s: argument %d differs between "
					"the parent team's PEs\n", shmem__s.me, call, i + 1);
			return 0;
		}
	return 1;
}

static struct shmem__team *team_new(const char *call, pgas_team_t pt,
				    const shmem_team_config_t *config, long mask)
{
	struct shmem__team *t = calloc(1, sizeof(*t));

	if (!t)
		shmem__fatal(call, "out of memory");
	t->magic = TEAM_LIVE;
	t->pt = pt;
	t->my_pe = (int)pgas_team_rank(pt);
	t->n_pes = (int)pgas_team_size(pt);
	if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
		t->config.num_contexts = config->num_contexts;
	of_world_init(call, t);
	t->all_next = teams;
	teams = t;
	return t;
}

/* Members with colour >= 0 form a team ordered by key; the rest get
 * SHMEM_TEAM_INVALID.  Collective over parent.  A split libpgas refuses
 * (no memory for the team: on every member alike) is the spec's nonzero. */
static int split(const char *call, struct shmem__team *parent, int colour, unsigned key,
		 const shmem_team_config_t *config, long mask, shmem_team_t *out)
{
	pgas_team_t pt = NULL;
	int rc = pgas_team_split(parent->pt, colour < 0 ? PGAS_TEAM_NO_COLOUR : colour, key, &pt);

	if (rc < 0) {
		fprintf(stderr, "shmem: PE %d: %s: %s (%s)\n", shmem__s.me, call, pgas_last_error(),
			pgas_strerror(rc));
		*out = SHMEM_TEAM_INVALID;
		return -1;
	}
	*out = pt ? team_new(call, pt, config, mask) : SHMEM_TEAM_INVALID;
	return 0;
}

static int check_config(const char *call, const shmem_team_config_t *config, long mask)
{
	if (mask & ~SHMEM_TEAM_NUM_CONTEXTS) {
		fprintf(stderr, "shmem: PE %d: %s: unknown config_mask bits %#lx\n", shmem__s.me,
			call, mask & ~SHMEM_TEAM_NUM_CONTEXTS);
		return 0;
	}
	if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && (!config || config->num_contexts < 0)) {
		fprintf(stderr, "shmem: PE %d: %s: num_contexts %d\n", shmem__s.me, call,
			config ? config->num_contexts : -1);
		return 0;
	}
	return 1;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
			     const shmem_team_config_t *config, long config_mask,
			     shmem_team_t *new_team)
{
	static const char call[] = "shmem_team_split_strided";
	struct shmem__team *p;
	int idx = -1, first = -1, rc;

	if (!new_team)
		shmem__fatal(call, "new_team is NULL");
	*new_team = SHMEM_TEAM_INVALID;
	if (!(p = shmem__team_get(call, parent_team)))
		return -1;
	/* Members: start + i * stride, i < size, all in the parent and distinct
	 * (stride >= 1; any stride when size is 1). */
	if (size < 1 || size > p->n_pes || start < 0 || start >= p->n_pes ||
	    (size > 1 && (stride < 1 ||
			  (long long)start + (long long)(size - 1) * stride >= p->n_pes)) ||
	    !check_config(call, config, config_mask)) {
		fprintf(stderr, "shmem: PE %d: %s: start %d, stride %d, size %d do not fit a "
			"parent team of %d PEs\n", shmem__s.me, call, start, stride, size, p->n_pes);
		first = -2;	/* still in the split (it is collective): no team */
	}
	for (int i = 0; first == -1 && i < size; i++)
		if (start + i * (size > 1 ? stride : 0) == p->my_pe) {
			idx = i;
			first = start;
		}
	/*
	 * The PEs need not pass the same triplet (a PE may ask for a team of
	 * itself while another asks for another): the members that name the
	 * same first PE form a team, and then check that they all passed the
	 * same triplet and that it holds them all, else none of them keeps it.
	 */
	rc = split(call, p, first >= 0 ? first : -1, idx >= 0 ? (unsigned)idx : 0, config,
		   config_mask, new_team);
	if (rc || *new_team == SHMEM_TEAM_INVALID)
		return rc || first == -2 ? -1 : 0;
	long v[6] = { start, stride, size, -(long)start, -(long)stride, -(long)size }, m[6];

	SHMEM__CHECK(call, pgas_reduce_all((*new_team)->pt, m, v, 6, PGAS_INT64, PGAS_OP_MAX,
					   PGAS_COLL_MYSYNC));
	if (m[0] != -m[3] || m[1] != -m[4] || m[2] != -m[5] || (*new_team)->n_pes != size ||
	    (*new_team)->my_pe != idx) {
		if ((*new_team)->my_pe == 0)
			fprintf(stderr, "shmem: PE %d: %s: the PEs of the team starting at parent PE "
				"%d passed different triplets (start %d, stride %d, size %d here)\n",
				shmem__s.me, call, start, start, stride, size);
		shmem_team_destroy(*new_team);
		*new_team = SHMEM_TEAM_INVALID;
		return -1;
	}
	return 0;
}

/*
 * Parent PE p is at x = p % xrange, y = p / xrange: the x-axis team is its
 * row (same y, ordered by x), the y-axis team its column.  Every parent PE
 * gets both.  An xrange above the parent's size is the parent's size.
 */
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
			const shmem_team_config_t *xaxis_config, long xaxis_mask,
			shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
			long yaxis_mask, shmem_team_t *yaxis_team)
{
	static const char call[] = "shmem_team_split_2d";
	struct shmem__team *p;
	long args[3] = { xrange, xaxis_mask, yaxis_mask };
	int bad = 0, x, y;

	if (!xaxis_team || !yaxis_team)
		shmem__fatal(call, "%s is NULL", xaxis_team ? "yaxis_team" : "xaxis_team");
	*xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
	if (!(p = shmem__team_get(call, parent_team)))
		return -1;
	if (xrange < 1 || !check_config(call, xaxis_config, xaxis_mask) ||
	    !check_config(call, yaxis_config, yaxis_mask))
		bad = 1;
	if (!same_args(call, p, args, 3))
		return -1;
	if (bad) {
		if (p->my_pe == 0)
			fprintf(stderr, "shmem: PE %d: %s: xrange %d (must be >= 1)\n",
				shmem__s.me, call, xrange);
		return -1;
	}
	if (xrange > p->n_pes)
		xrange = p->n_pes;
	x = p->my_pe % xrange;
	y = p->my_pe / xrange;
	/*
	 * Both splits on every PE (each is collective over the parent), then
	 * one reduction: a split libpgas refuses fails only its own row or
	 * column, and a PE that returned early would leave the others in the
	 * next split.  If any failed, every PE destroys what it got (each such
	 * team is whole: its members all see the failure) and fails.
	 */
	long f = split(call, p, y, (unsigned)x, xaxis_config, xaxis_mask, xaxis_team) != 0;

	f |= split(call, p, x, (unsigned)y, yaxis_config, yaxis_mask, yaxis_team) != 0;
	long any = f;

	SHMEM__CHECK(call, pgas_reduce_all(p->pt, &any, &f, 1, PGAS_INT64, PGAS_OP_MAX,
					   PGAS_COLL_MYSYNC));
	if (!any)
		return 0;
	if (*xaxis_team != SHMEM_TEAM_INVALID)
		shmem_team_destroy(*xaxis_team);
	if (*yaxis_team != SHMEM_TEAM_INVALID)
		shmem_team_destroy(*yaxis_team);
	*xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
	return -1;
}

void shmem_team_destroy(shmem_team_t team)
{
	static const char call[] = "shmem_team_destroy";
	struct shmem__team *t;

	shmem__need_init(call);
	if (team == SHMEM_TEAM_INVALID)
		return;		/* what a non-member got from a split */
	if (!(t = shmem__team_get(call, team)))
		shmem__fatal(call, "not a live team");
	if (t->predefined)
		shmem__fatal(call, "%s cannot be destroyed",
			     t == &shmem__team_world ? "SHMEM_TEAM_WORLD" : "SHMEM_TEAM_SHARED");
	shmem__ctx_team_gone(call, t);
	SHMEM__CHECK(call, pgas_quiet());
	SHMEM__CHECK(call, pgas_team_destroy(t->pt));
	/* Kept, marked: the handle is refused from now on, never reused. */
	t->magic = TEAM_DEAD;
	t->pt = NULL;
	free(t->of_world);
	t->of_world = NULL;
}
