/* SPDX-License-Identifier: MIT */
/*
 * The NAS Parallel Benchmarks' pseudo-random generator (NPB 3, "randlc"):
 * x(k+1) = a * x(k) mod 2^46, each number returned as x * 2^-46 in (0, 1).
 * NPB computes it in double arithmetic, exactly; the same integers here.
 * Header-only: each application includes it once.
 */
#ifndef NPB_RAND_H
#define NPB_RAND_H

#include <stdint.h>

#define NPB_MOD46 ((UINT64_C(1) << 46) - 1)
#define NPB_A UINT64_C(1220703125)	/* 5^13 */

static inline uint64_t npb_mul46(uint64_t a, uint64_t x)
{
	return (uint64_t)(((unsigned __int128)a * x) & NPB_MOD46);
}

/* a^n mod 2^46: the multiplier that jumps a stream n numbers ahead. */
static inline uint64_t npb_pow46(uint64_t a, uint64_t n)
{
	uint64_t r = 1;

	for (; n; n >>= 1, a = npb_mul46(a, a))
		if (n & 1)
			r = npb_mul46(r, a);
	return r;
}

/* NPB's vranlc: n numbers of the stream after *x into y; *x advances. */
static inline void npb_vranlc(uint64_t n, uint64_t *x, uint64_t a, double *y)
{
	const double r46 = 1.0 / (double)(UINT64_C(1) << 46);
	uint64_t v = *x;

	for (uint64_t i = 0; i < n; i++) {
		v = npb_mul46(a, v);
		y[i] = (double)v * r46;
	}
	*x = v;
}

#endif
