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
#include "shmem.h"

struct shmem__state {
	int initialised;		/* shmem_init ran (and no finalize yet) */
	int finalised;
	int me, npes;
	char *base;			/* this PE's segment (the symmetric heap) */
	size_t size;
	char **bases;			/* every PE's segment, in its own address space */
	size_t *sizes;
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

/*
 * The address at pe of the symmetric object at addr (nbytes from it, 0
 * allowed): its offset in this PE's heap, at the same offset in pe's.
 */
static inline void *shmem__xlate(const char *call, const void *addr, size_t nbytes, int pe)
{
	uintptr_t a = (uintptr_t)addr, b = (uintptr_t)shmem__s.base;

	shmem__need_init(call);
	if (__builtin_expect(pe < 0 || pe >= shmem__s.npes, 0))
		shmem__fatal(call, "PE %d out of range (%d PEs)", pe, shmem__s.npes);
	if (__builtin_expect(a < b || a - b > shmem__s.size || nbytes > shmem__s.size - (a - b), 0))
		shmem__fatal(call, "%p (%zu bytes) is not in the symmetric heap [%p, +%zu)",
			     addr, nbytes, (void *)shmem__s.base, shmem__s.size);
	return shmem__s.bases[pe] + (a - b);
}

/* A libpgas call failed: fatal, with libpgas's message. */
#define SHMEM__CHECK(call, expr)							\
	do {										\
		int shmem__rc = (expr);							\
		if (__builtin_expect(shmem__rc < 0, 0))					\
			shmem__fatal(call, "%s (%s)", pgas_last_error(),		\
				     pgas_strerror(shmem__rc));				\
	} while (0)

#endif /* SHMEM_INTERNAL_H */
