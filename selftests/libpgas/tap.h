/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a TAP harness for multi-rank libpgas tests.
 *
 * Checks run on every rank; t_case() is collective: each rank puts its
 * failure count into a harness page at the end of rank 0's segment, and
 * rank 0 prints one "ok"/"not ok" line for the case.  t_done() prints the
 * plan.  Failed checks print "# rank R: file:line: ..." to stderr.
 */
#ifndef PGAS_TAP_H
#define PGAS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pgas.h"

#define T_PAGE 4096

static unsigned t_failed_here, t_cases, t_cases_failed;
static size_t t_seg_usable;

__attribute__((format(printf, 4, 5)))
static inline void t_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# rank %u: %s:%d: check failed: %s %s\n", pgas_rank(), file, line,
		expr, msg);
	t_failed_here++;
}

#define T_CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			t_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);	\
	} while (0)
#define T_EQ(a, b)							\
	do {								\
		long long t_a_ = (long long)(a), t_b_ = (long long)(b);	\
		if (t_a_ != t_b_)					\
			t_fail(__FILE__, __LINE__, #a " == " #b,	\
			       "(%lld != %lld)", t_a_, t_b_);		\
	} while (0)

/* Attaches with room for the harness page after the test's own segsize. */
static inline int t_attach(const pgas_handler_entry_t *table, size_t count, size_t segsize)
{
	int rc = pgas_attach(table, count, segsize + T_PAGE);

	t_seg_usable = segsize;
	return rc;
}

static inline uint64_t *t_slot(unsigned rank)
{
	return (uint64_t *)((char *)pgas_segment_addr(0) + pgas_segment_size(0) - T_PAGE) + rank;
}

/* Collective: reports one test case. */
static inline void t_case(const char *fmt, ...)
{
	unsigned me = pgas_rank(), n = pgas_nranks();
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	/* Peers out of reach (PGAS_MAP_PEERS=none): a rank that failed
	 * passes PGAS_BARRIERFLAG_MISMATCH, which every rank's barrier
	 * reports (the harness needs no RMA, which the control paths' runs
	 * do not test).  Else its count goes to rank 0's harness page. */
	bool remote = n > 1 && !pgas_ptr(me ? 0 : 1, pgas_segment_addr(me ? 0 : 1));
	uint64_t sum = 0;
	int rc;

	if (!remote && pgas_put_val(0, t_slot(me), t_failed_here, 8))
		t_failed_here++;
	rc = pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS |
			     (remote && t_failed_here ? PGAS_BARRIERFLAG_MISMATCH : 0));
	if (remote && rc == PGAS_ERR_BARRIER_MISMATCH)
		sum = 1;
	else if (rc)
		fprintf(stderr, "# rank %u: harness barrier failed\n", me);
	t_failed_here = 0;
	t_cases++;
	if (me == 0) {
		for (unsigned r = 0; !remote && r < n && r < T_PAGE / 8; r++)
			sum += *t_slot(r);
		if (sum)
			t_cases_failed++;
		printf("%s %u - %s [%u ranks]%s\n", sum ? "not ok" : "ok", t_cases, name, n,
		       sum ? " (see stderr)" : "");
		fflush(stdout);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
}

static inline void t_done(void)
{
	if (pgas_rank() == 0) {
		printf("1..%u\n", t_cases);
		fflush(stdout);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	pgas_exit(0);
}

/* Deterministic bytes: a function of (seed, position). */
static inline unsigned char t_byte(uint64_t seed, size_t i)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;

	x ^= x >> 31;
	x *= 0x94D049BB133111EBull;
	return (unsigned char)(x >> 56);
}

static inline void t_fill(void *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		((unsigned char *)buf)[i] = t_byte(seed, i);
}

/* Index of the first byte that differs from t_fill(seed), or n. */
static inline size_t t_verify(const void *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)buf)[i] != t_byte(seed, i))
			return i;
	return n;
}

/* xorshift PRNG for random traffic. */
static inline uint64_t t_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif /* PGAS_TAP_H */
