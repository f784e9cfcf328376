/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - OpenSHMEM contexts over libpgas endpoints, and fence/quiet.
 *
 * A context that one thread at a time uses (SHMEM_CTX_PRIVATE or
 * SERIALIZED, or any context below SHMEM_THREAD_MULTIPLE) gets an
 * endpoint of its own, so that its puts, gets and quiet touch nothing of
 * another thread's.  One that threads may use at once shares the primary,
 * which is thread-safe at MULTIPLE.  libpgas never reuses an endpoint
 * (a rank creates at most pgas_ep_max()/nranks - 1 in its life), so when
 * the budget is spent a context shares the primary instead: correct, only
 * not separate (its quiet then also waits for the primary's operations).
 */
#include <pthread.h>
#include <stdlib.h>
#include "shmem_internal.h"

struct shmem__ctx shmem__ctx_default = {
	.magic = SHMEM__CTX_LIVE,
	.ep = PGAS_EP_PRIMARY,
};

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmem__ctx *ctx_live;	/* under ctx_lock */
static struct shmem__ctx *ctx_dead;	/* under ctx_lock: kept to catch later use */
static int ep_spent;			/* under ctx_lock: no endpoint left, ever */

void shmem__ctx_bad(const char *call, shmem_ctx_t ctx)
{
	if (!ctx)
		shmem__fatal(call, "the context is SHMEM_CTX_INVALID");
	if (ctx->magic == SHMEM__CTX_DEAD)
		shmem__fatal(call, "the context %p was destroyed", (void *)ctx);
	shmem__fatal(call, "%p is not a context", (void *)ctx);
}

/* An endpoint of this rank's own, or the primary when none is left. */
static pgas_ep_t new_ep(const char *call)
{
	pgas_ep_t ep = PGAS_EP_PRIMARY;
	unsigned made = 0;
	int rc;

	if (ep_spent)
		return PGAS_EP_PRIMARY;
	/* Ask only where one can be had: a refusal prints libpgas's message. */
	if (pgas_ep_count((unsigned)shmem__s.me, &made) == 0 &&
	    made >= pgas_ep_max() / (unsigned)shmem__s.npes) {
		ep_spent = 1;
		return PGAS_EP_PRIMARY;
	}
	rc = pgas_ep_create(&ep, 0);
	if (rc == PGAS_ERR_RESOURCE) {
		ep_spent = 1;
		return PGAS_EP_PRIMARY;
	}
	SHMEM__CHECK(call, rc);
	return ep;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
	static const char call[] = "shmem_ctx_create";
	const long known = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
	struct shmem__ctx *c;

	shmem__need_init(call);
	if (!ctx)
		shmem__fatal(call, "ctx is NULL");
	*ctx = SHMEM_CTX_INVALID;
	if (options & ~known)
		shmem__fatal(call, "unknown options %#lx", (unsigned long)(options & ~known));
	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;	/* the spec's failure: ctx stays SHMEM_CTX_INVALID */
	c->options = options;
	c->ep = PGAS_EP_PRIMARY;
	pthread_mutex_lock(&ctx_lock);
	/* Threads may use it at once: the primary, thread-safe at MULTIPLE. */
	if (pgas_query_thread() < PGAS_THREAD_MULTIPLE ||
	    (options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED)))
		c->ep = new_ep(call);
	c->magic = SHMEM__CTX_LIVE;
	c->next = ctx_live;
	ctx_live = c;
	pthread_mutex_unlock(&ctx_lock);
	*ctx = c;
	return 0;
}

static inline __attribute__((always_inline))
void ctx_quiet(const char *call, shmem_ctx_t ctx)
{
	pgas_ep_t ep = shmem__ctx_ep(call, ctx);

	if (ep == PGAS_EP_PRIMARY) {
		SHMEM__CHECK(call, pgas_quiet());
		return;
	}
	SHMEM__CHECK(call, pgas_ep_quiet(ep));
	if (ctx->prim_used) {	/* its AMOs, signals, iput/iget */
		SHMEM__CHECK(call, pgas_quiet());
		ctx->prim_used = 0;
	}
}

/* Quiets and closes c; ctx_lock held.  The struct stays, dead, on ctx_dead. */
static void ctx_close(const char *call, struct shmem__ctx *c)
{
	struct shmem__ctx **pp;

	ctx_quiet(call, c);
	if (c->ep != PGAS_EP_PRIMARY)
		SHMEM__CHECK(call, pgas_ep_destroy(c->ep));
	c->ep = PGAS_EP_PRIMARY;
	c->magic = SHMEM__CTX_DEAD;
	free(c->to_world);
	c->to_world = NULL;
	for (pp = &ctx_live; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	c->next = ctx_dead;
	ctx_dead = c;
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
	static const char call[] = "shmem_ctx_destroy";

	if (ctx == SHMEM_CTX_INVALID)
		return;	/* as the spec says */
	shmem__need_init(call);
	if (ctx == SHMEM_CTX_DEFAULT)
		shmem__fatal(call, "SHMEM_CTX_DEFAULT cannot be destroyed");
	(void)shmem__ctx_ep(call, ctx);
	pthread_mutex_lock(&ctx_lock);
	ctx_close(call, ctx);
	pthread_mutex_unlock(&ctx_lock);
}

void shmem__ctx_finalize(void)
{
	pthread_mutex_lock(&ctx_lock);
	while (ctx_live)
		ctx_close("shmem_finalize", ctx_live);
	pthread_mutex_unlock(&ctx_lock);
}

/* The context's endpoint: its puts to remote PEs in flight complete first
 * (pgas.h); those of other contexts are ordered by their own fence. */
static inline __attribute__((always_inline))
void ctx_fence(const char *call, shmem_ctx_t ctx)
{
	pgas_ep_t ep = shmem__ctx_ep(call, ctx);

	if (ep == PGAS_EP_PRIMARY)
		pgas_fence();
	else
		pgas_ep_fence(ep);
}

/*
 * 1.5: quiet and fence on SHMEM_CTX_INVALID perform no operation (a PE
 * outside a team gets it from shmem_team_create_ctx and may quiet it), as
 * shmem_ctx_destroy; RMA and AMO on it are undefined, and end the job
 * (shmem__ctx_bad).
 */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
	if (ctx == SHMEM_CTX_INVALID)
		return;
	ctx_fence("shmem_ctx_fence", ctx);
}

void shmem_fence(void)
{
	ctx_fence("shmem_fence", SHMEM_CTX_DEFAULT);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
	if (ctx == SHMEM_CTX_INVALID)
		return;
	ctx_quiet("shmem_ctx_quiet", ctx);
}

void shmem_quiet(void)
{
	ctx_quiet("shmem_quiet", SHMEM_CTX_DEFAULT);
}

/* ---- contexts of a team ---------------------------------------------------- */

/*
 * A context whose PE arguments are PEs of team (1.5): as shmem_ctx_create,
 * with the team's PEs translated to the world's once, here.  Nonzero (and
 * SHMEM_CTX_INVALID) for an invalid or destroyed team.
 */
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
	static const char call[] = "shmem_team_create_ctx";
	struct shmem__team *t;
	int *map = NULL;

	shmem__need_init(call);
	if (!ctx)
		shmem__fatal(call, "ctx is NULL");
	*ctx = SHMEM_CTX_INVALID;
	if (!(t = shmem__team_get(call, team)))
		return 1;
	if (t->of_world) {	/* not the job's PEs in job order */
		map = malloc((size_t)t->n_pes * sizeof(*map));
		if (!map)
			return 1;
		for (int i = 0; i < t->n_pes; i++)
			map[i] = shmem__team_world_pe(t, i);
	}
	if (shmem_ctx_create(options, ctx)) {
		free(map);
		return 1;
	}
	/* SHMEM_TEAM_SHARED as the job's team: the world's context. */
	(*ctx)->team = t->predefined && !t->of_world ? NULL : t;
	(*ctx)->to_world = map;
	(*ctx)->team_n = t->n_pes;
	return 0;
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
	static const char call[] = "shmem_ctx_get_team";

	shmem__need_init(call);
	if (!team)
		shmem__fatal(call, "team is NULL");
	*team = SHMEM_TEAM_INVALID;
	if (ctx == SHMEM_CTX_INVALID)
		return 1;
	(void)shmem__ctx_ep(call, ctx);	/* a destroyed context is fatal */
	*team = ctx == SHMEM_CTX_DEFAULT || !ctx->team ? SHMEM_TEAM_WORLD : (shmem_team_t)ctx->team;
	return 0;
}

/* shmem_team_destroy: the team's contexts go with it (quieted first). */
void shmem__ctx_team_gone(const char *call, struct shmem__team *t)
{
	struct shmem__ctx *c, *next;

	pthread_mutex_lock(&ctx_lock);
	for (c = ctx_live; c; c = next) {
		next = c->next;
		if (c->team == t)
			ctx_close(call, c);
	}
	pthread_mutex_unlock(&ctx_lock);
}
