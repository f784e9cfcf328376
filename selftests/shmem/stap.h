/* SPDX-License-Identifier: MIT */
/*
 * stap.h - a TAP harness for OpenSHMEM tests, written with OpenSHMEM
 * calls only (as selftests/libpgas/tap.h is with libpgas's).
 *
 * Checks run on every PE; st_case() is collective: each PE adds its
 * failure count to a symmetric counter on PE 0, and PE 0 prints one
 * "ok"/"not ok" line.  st_done() prints the plan and finalizes.  Failed
 * checks print "# PE p: file:line: ..." on stderr.
 */
#ifndef SHMEM_STAP_H
#define SHMEM_STAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shmem.h>

static unsigned st_failed_here, st_cases, st_cases_failed;

/* The job runs with PGAS_MAP_PEERS=none: no other PE is load/store
 * reachable (shmem_ptr NULL, SHMEM_TEAM_SHARED this PE alone). */
static inline int map_none(void)
{
	const char *v = getenv("PGAS_MAP_PEERS");

	return v && !strcmp(v, "none");
}
static long *st_counter;	/* symmetric: PE 0's sums the failures */

__attribute__((format(printf, 4, 5)))
static inline void st_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# PE %d: %s:%d: check failed: %s %s\n", shmem_my_pe(), file, line, expr,
		msg);
	st_failed_here++;
}

#define T_CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			st_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);\
	} while (0)
#define T_EQ(a, b)							\
	do {								\
		long long t_a_ = (long long)(a), t_b_ = (long long)(b);	\
		if (t_a_ != t_b_)					\
			st_fail(__FILE__, __LINE__, #a " == " #b,	\
				"(%lld != %lld)", t_a_, t_b_);		\
	} while (0)

/*
 * Which PEs share memory with which (SHMEM_TEAM_SHARED, shmem_ptr): those
 * of one host, by hostname (a job across hosts: mpirun, srun), or with
 * PGAS_FAKE_HOSTS=h of one pseudo-host (libpgas/boot/bootstrap.c puts PE
 * p on p * h / n); with PGAS_MAP_PEERS=none each PE alone.  st_init
 * learns every PE's host: st_host[p] is an index, the same for one host.
 */
static int *st_host;

static inline void st_hosts_init(int n)
{
	char *name = (char *)shmem_calloc(1, 64), theirs[64];
	const char *fh = getenv("PGAS_FAKE_HOSTS");
	int fake = fh ? atoi(fh) : 0;

	st_host = (int *)calloc((size_t)n, sizeof(int));
	if (!name || !st_host) {
		fprintf(stderr, "# harness: no memory for %d PEs' hosts\n", n);
		shmem_global_exit(2);
	}
	{	/* the UTS namespace's name (gethostname is not C11) */
		FILE *f = fopen("/proc/sys/kernel/hostname", "r");

		if (f) {
			if (!fgets(name, 64, f))
				name[0] = 0;
			fclose(f);
		}
	}
	shmem_barrier_all();
	for (int p = 0; p < n; p++) {
		if (fake > 0) {
			st_host[p] = (int)((long)p * (fake > n ? n : fake) / n);
			continue;
		}
		shmem_getmem(theirs, name, sizeof(theirs), p);
		st_host[p] = p;		/* a host's first PE names it */
		for (int q = 0; q < p; q++)
			if (st_host[q] == q) {
				char first[64];

				shmem_getmem(first, name, sizeof(first), q);
				if (!strcmp(first, theirs)) {
					st_host[p] = q;
					break;
				}
			}
	}
	shmem_barrier_all();
	shmem_free(name);
}

/* Is PE p in my SHMEM_TEAM_SHARED? */
static inline int st_shared(int p)
{
	int me = shmem_my_pe();

	if (p < 0 || p >= shmem_n_pes())
		return 0;
	return map_none() ? p == me : st_host[p] == st_host[me];
}

/* PE p's number in SHMEM_TEAM_SHARED (world order), or -1. */
static inline int st_shared_index(int p)
{
	int i = 0;

	if (!st_shared(p))
		return -1;
	for (int q = 0; q < p; q++)
		i += st_shared(q);
	return i;
}

/* The world PE of SHARED's PE i, or -1; st_shared_pe(-1) is their count. */
static inline int st_shared_pe(int i)
{
	int k = 0;

	for (int p = 0; p < shmem_n_pes(); p++)
		if (st_shared(p) && k++ == i)
			return p;
	return i < 0 ? k : -1;
}

/* After shmem_init (collective). */
static inline void st_init(void)
{
	st_counter = (long *)shmem_calloc(1, sizeof(long));
	if (!st_counter) {
		fprintf(stderr, "# harness: shmem_calloc failed\n");
		shmem_global_exit(2);
	}
	st_hosts_init(shmem_n_pes());
}

static inline void st_case(const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (st_failed_here)
		shmem_long_atomic_add(st_counter, (long)st_failed_here, 0);
	st_failed_here = 0;
	shmem_barrier_all();
	st_cases++;
	if (shmem_my_pe() == 0) {
		long sum = shmem_long_atomic_fetch(st_counter, 0);

		st_cases_failed += sum != 0;
		printf("%s %u - %s [%d PEs]%s\n", sum ? "not ok" : "ok", st_cases, name,
		       shmem_n_pes(), sum ? " (see stderr)" : "");
		fflush(stdout);
		shmem_long_atomic_set(st_counter, 0, 0);
	}
	shmem_barrier_all();
}

static inline int st_done(void)
{
	if (shmem_my_pe() == 0) {
		printf("1..%u\n", st_cases);
		fflush(stdout);
	}
	shmem_free(st_counter);
	shmem_finalize();
	/* Nonzero where a case failed (PE 0) or a check after the last one. */
	return st_cases_failed || st_failed_here;
}

/* Deterministic bytes: a function of (seed, position). */
static inline unsigned char st_byte(uint64_t seed, size_t i)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;

	x ^= x >> 31;
	x *= 0x94D049BB133111EBull;
	return (unsigned char)(x >> 56);
}

static inline void st_fill(void *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		((unsigned char *)buf)[i] = st_byte(seed, i);
}

/* Index of the first byte that differs from st_fill(seed), or n. */
static inline size_t st_verify(const void *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)buf)[i] != st_byte(seed, i))
			return i;
	return n;
}

#endif /* SHMEM_STAP_H */
