/* SPDX-License-Identifier: MIT */
/*
 * shmem_internal.h - state shared by the files of the OpenSHMEM layer.
 * Only libpgas's public API (pgas.h and what it includes) is used.
 */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "pgas.h"
#define SHMEM__LIBRARY	/* the library's own functions, not shmem.h's inline ones */
#include "shmem.h"

struct shmem__state {
	int initialised;		/* shmem_init ran (and no finalize yet) */
	int finalised;
	int me, npes;
	char *base;			/* this PE's segment (the symmetric heap) */
	size_t size;
	char **bases;			/* every PE's segment, in its own address space */
	size_t *sizes;
	/* The program's .data and .bss (setup.c), registered with libpgas. */
	char *data;			/* this PE's, page-aligned; NULL: none */
	size_t data_size;
	char **datas;			/* every PE's, in its own address space */
	pgas_ad_t ad_u32, ad_u64, ad_flt, ad_dbl;
	size_t coll_off;		/* the active-set collectives' scratch (coll.c): */
	size_t coll_len;		/* at coll_off in every heap, past the allocator's */
};
extern struct shmem__state shmem__s;

__attribute__((noreturn, format(printf, 2, 3)))
void shmem__fatal(const char *call, const char *fmt, ...);

/* A team (team.c): what a shmem_team_t points at. */
struct shmem__team {
	unsigned magic;			/* live or destroyed */
	int predefined;			/* SHMEM_TEAM_WORLD / SHARED */
	pgas_team_t pt;
	int my_pe, n_pes;
	shmem_team_config_t config;
	int *of_world;			/* world PE -> team PE or -1 (NULL: identity) */
	struct shmem__team *all_next;	/* every team made here, destroyed ones too */
};
/* The live team of handle t, or NULL (invalid, destroyed: with a message). */
struct shmem__team *shmem__team_get(const char *call, shmem_team_t t);
/* The world PE of t's PE pe, or -1. */
int shmem__team_world_pe(const struct shmem__team *t, int pe);

/* Bytes of symmetric scratch the active-set collectives need at npes. */
size_t shmem__coll_scratch(int npes);
/* At init, once the heap is known (local, before init's barrier). */
void shmem__coll_init(void);
void shmem__team_init(void);

/* The job must be initialised: else fatal, naming call. */
static inline void shmem__need_init(const char *call)
{
	if (__builtin_expect(!shmem__s.initialised, 0))
		shmem__fatal(call, "called %s", shmem__s.finalised ? "after shmem_finalize"
								    : "before shmem_init");
}

/* Not in the heap: in the program's data (by offset from each PE's data
 * start: with PIE and ASLR they differ), else fatal (setup.c). */
void *shmem__xlate_data(const char *call, const void *addr, size_t nbytes, int pe);

/*
 * The address at pe of the symmetric object at addr (nbytes from it, 0
 * allowed): its offset in this PE's heap, at the same offset in pe's.
 */
static inline void *shmem__xlate(const char *call, const void *addr, size_t nbytes, int pe)
{
	char *r;

	shmem__need_init(call);
	if (__builtin_expect(pe < 0 || pe >= shmem__s.npes, 0))
		shmem__fatal(call, "PE %d out of range (%d PEs)", pe, shmem__s.npes);
	r = shmem__i_at(addr, nbytes, pe);	/* shmem.h: the inline paths' too */
	if (__builtin_expect(!r, 0))
		return shmem__xlate_data(call, addr, nbytes, pe);
	return r;
}

/*
 * A context (ctx.c): put/get go on ep, its own endpoint or the primary
 * (shared); atomics, signals and strided RMA have no endpoint form in
 * libpgas, so they go on the primary and mark prim_used for the
 * context's next quiet.  A destroyed context stays allocated, marked
 * dead, so that a later use is caught rather than misdirected.
 */
#define SHMEM__CTX_LIVE 0x5c7a11feu
#define SHMEM__CTX_DEAD 0xdeadc7a0u
struct shmem__ctx {
	unsigned magic;
	int prim_used;			/* primary operations since its last quiet */
	pgas_ep_t ep;			/* PGAS_EP_PRIMARY when shared */
	long options;
	struct shmem__ctx *next;	/* the live list (finalize destroys them) */
	struct shmem__team *team;	/* shmem_team_create_ctx's; NULL: the world */
	int *to_world;			/* its PEs as world PEs (NULL: the same) */
	int team_n;
};
/*
 * SHMEM_CTX_DEFAULT and SHMEM_TEAM_WORLD / _SHARED are the addresses of
 * shmem__ctx_default, shmem__team_world and shmem__team_shared: a program
 * linked against libshmem.so holds its own copy of each (a copy
 * relocation), as large as the type was when the program was linked.  So
 * these types may change but never grow without a new SHMEM__FAST_ABI (old
 * programs then fail to link) and soname.
 */
_Static_assert(sizeof(struct shmem__ctx) <= 56 && sizeof(struct shmem__team) <= 48,
	       "struct shmem__ctx or shmem__team grew: programs hold copies of the "
	       "predefined ones (bump SHMEM__FAST_ABI and the soname)");

/* Closes (quiets, destroys) every live context of team t. */
void shmem__ctx_team_gone(const char *call, struct shmem__team *t);

__attribute__((noreturn))
void shmem__ctx_bad(const char *call, shmem_ctx_t ctx);

/* ctx's endpoint for put/get: fatal, naming call, if ctx is not live. */
static inline __attribute__((always_inline))
pgas_ep_t shmem__ctx_ep(const char *call, shmem_ctx_t ctx)
{
	/* The calls without a context fold to the primary's constant, so
	 * libpgas's inline paths are the primary's (pgas_put's) exactly. */
	if (ctx == SHMEM_CTX_DEFAULT)
		return PGAS_EP_PRIMARY;
	if (__builtin_expect(!ctx || ctx->magic != SHMEM__CTX_LIVE, 0))
		shmem__ctx_bad(call, ctx);
	return ctx->ep;
}

/*
 * The world PE of pe, a PE of ctx's team: a context made by
 * shmem_team_create_ctx numbers the PEs as its team does.  Folds to pe for
 * SHMEM_CTX_DEFAULT and costs a test for the other contexts of the world.
 */
static inline __attribute__((always_inline))
int shmem__ctx_pe(const char *call, shmem_ctx_t ctx, int pe)
{
	if (ctx == SHMEM_CTX_DEFAULT || __builtin_expect(!ctx->to_world, 1))
		return pe;
	if (__builtin_expect(pe < 0 || pe >= ctx->team_n, 0))
		shmem__fatal(call, "PE %d out of range of the context's team (%d PEs)", pe,
			     ctx->team_n);
	return ctx->to_world[pe];
}

/* An operation that only the primary has, issued through ctx. */
static inline __attribute__((always_inline))
void shmem__ctx_prim(const char *call, shmem_ctx_t ctx)
{
	if (shmem__ctx_ep(call, ctx) != PGAS_EP_PRIMARY && !ctx->prim_used)
		ctx->prim_used = 1;
}

/*
 * Defines shmem_ctx_NAME(ctx, PARAMS) and shmem_NAME(PARAMS), the same on
 * SHMEM_CTX_DEFAULT; the body (the macro's last arguments) sees ctx, call
 * (the function's own name, for errors) and the parameters.  flatten: with
 * two forms of every call a file outgrows GCC's inlining budget, and
 * libpgas's inline paths would be called out of line.
 */
#define SHMEM__FLAT __attribute__((flatten))
#define SHMEM__UNPAREN(...) __VA_ARGS__
#define SHMEM__DEF_V(NAME, PARAMS, ...)							\
SHMEM__FLAT void shmem_ctx_##NAME(shmem_ctx_t ctx, SHMEM__UNPAREN PARAMS)		\
{											\
	static const char call[] = "shmem_ctx_" #NAME;					\
	__VA_ARGS__;									\
}											\
SHMEM__FLAT void shmem_##NAME(SHMEM__UNPAREN PARAMS)					\
{											\
	static const char call[] = "shmem_" #NAME;					\
	const shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;					\
	__VA_ARGS__;									\
}
#define SHMEM__DEF_R(R, NAME, PARAMS, ...)						\
SHMEM__FLAT R shmem_ctx_##NAME(shmem_ctx_t ctx, SHMEM__UNPAREN PARAMS)		\
{											\
	static const char call[] = "shmem_ctx_" #NAME;					\
	return __VA_ARGS__;								\
}											\
SHMEM__FLAT R shmem_##NAME(SHMEM__UNPAREN PARAMS)					\
{											\
	static const char call[] = "shmem_" #NAME;					\
	const shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;					\
	return __VA_ARGS__;								\
}

/* At shmem_finalize: quiets and destroys the contexts still live. */
void shmem__ctx_finalize(void);

/* A libpgas call failed: fatal, with libpgas's message. */
#define SHMEM__CHECK(call, expr)							\
	do {										\
		int shmem__rc = (expr);							\
		if (__builtin_expect(shmem__rc < 0, 0))					\
			shmem__fatal(call, "%s (%s)", pgas_last_error(),		\
				     pgas_strerror(shmem__rc));				\
	} while (0)

#endif /* SHMEM_INTERNAL_H */
