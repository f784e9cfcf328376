// SPDX-License-Identifier: MIT
/*
 * typed - a profiling library written in C against <pshmem.h>, as tools
 * write their wrappers: each routine with its prototype, calling its
 * pshmem_ name.  Built with -Wall -Wextra -Werror, so every declaration of
 * pshmem.h must agree with shmem.h's (a wrong type does not compile).
 * Counts the calls of a few routines of prof/known.c and writes them at
 * exit to $PROF_DIR/typed.$PGAS_RANK, as "NAME CALLS BYTES" lines
 * (scripts/check-native.sh compares them with known's expected lines).
 */
#include <pshmem.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long n_put, b_put, n_p, n_fadd, n_barrier;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
	n_put++;
	b_put += nelems;
	pshmem_putmem(dest, source, nelems, pe);
}

void shmem_long_p(long *dest, long value, int pe)
{
	n_p++;
	pshmem_long_p(dest, value, pe);
}

long shmem_long_atomic_fetch_add(long *dest, long value, int pe)
{
	n_fadd++;
	return pshmem_long_atomic_fetch_add(dest, value, pe);
}

void shmem_barrier_all(void)
{
	n_barrier++;
	pshmem_barrier_all();
}

__attribute__((destructor)) static void report(void)
{
	const char *dir = getenv("PROF_DIR"), *rank = getenv("PGAS_RANK");
	char path[4096];
	FILE *f;

	if (!dir || !rank)
		return;
	snprintf(path, sizeof(path), "%s/typed.%s", dir, rank);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "shmem_barrier_all %lu 0\n", n_barrier);
	fprintf(f, "shmem_long_atomic_fetch_add %lu 0\n", n_fadd);
	fprintf(f, "shmem_long_p %lu 0\n", n_p);
	fprintf(f, "shmem_putmem %lu %lu\n", n_put, b_put);
	fclose(f);
}
