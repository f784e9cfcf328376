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
	/* The program's .data and .bss (setup.c), registered with libpgas. */
	char *data;			/* this PE's, page-aligned; NULL: none */
	size_t data_size;
	char **datas;			/* every PE's, in its own address space */
	pgas_ad_t ad_u32, ad_u64, ad_flt, ad_dbl;
};
extern struct shmem__state shmem__s;

__attribute__((noreturn, format(printf, 2, 3)))
void shmem__fatal(const char *call, const char *fmt, ...);

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
	uintptr_t a = (uintptr_t)addr, b = (uintptr_t)shmem__s.base;

	shmem__need_init(call);
	if (__builtin_expect(pe < 0 || pe >= shmem__s.npes, 0))
		shmem__fatal(call, "PE %d out of range (%d PEs)", pe, shmem__s.npes);
	if (__builtin_expect(a < b || a - b > shmem__s.size || nbytes > shmem__s.size - (a - b), 0))
		return shmem__xlate_data(call, addr, nbytes, pe);
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
