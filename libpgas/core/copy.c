// SPDX-License-Identifier: MIT
/*
 * copy.c - copies of PGAS__COPY_LONG bytes and more: pgas__copy (pgas_fast.h) sends
 * them here, so that puts, gets and AM payloads move at memcpy's best speed
 * whatever the alignment of the user's buffer.
 *
 * Why not memcpy alone.  From about 2 KiB, glibc 2.36 (Debian 12) copies with
 * rep movsb.  On AMD Zen that runs at a twentieth of its usual speed when the
 * destination's offset in its page lies 1-63 bytes past the source's, and
 * its forward vector loop stalls on the same pairs: each load meets a store
 * just made to the same page offset (4K aliasing).  A get from a segment
 * (page aligned) into malloc's memory (16 bytes into a page) is such a pair:
 * measured here, 8 KiB: 3.5 GB/s at a distance of 8, 48 GB/s at 16, against
 * 100 GB/s for aligned buffers (glibc bug 30994; 2.39 stopped using rep movsb
 * on those cores).
 *
 * So where the two are not mutually aligned to a cache line, this copies
 * backward with 32-byte stores aligned to the destination: no load follows
 * a store to its page offset, and no store splits a line.  Mutually aligned
 * copies and large ones (past the caches, where memcpy picks its streaming
 * stores) stay with memcpy.  Overlapping buffers, which memcpy leaves
 * undefined, are moved as memmove does.
 */
#include <stdint.h>
#include <string.h>

#include "pgas.h"

/* Past this, the copy is bound by memory and memcpy chooses its stores. */
#define COPY_BACKWARD_MAX ((size_t)4 << 20)

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void copy_backward_avx2(unsigned char *d,
							       const unsigned char *s,
							       size_t n)
{
	/* The last 32 bytes, unaligned; then aligned stores downward. */
	__m256i last = _mm256_loadu_si256((const __m256i *)(s + n - 32));
	size_t i = n - ((uintptr_t)(d + n) & 31);

	while (i >= 128) {
		__m256i a, b, c, e;

		i -= 128;
		a = _mm256_loadu_si256((const __m256i *)(s + i + 96));
		b = _mm256_loadu_si256((const __m256i *)(s + i + 64));
		c = _mm256_loadu_si256((const __m256i *)(s + i + 32));
		e = _mm256_loadu_si256((const __m256i *)(s + i));
		_mm256_store_si256((__m256i *)(d + i + 96), a);
		_mm256_store_si256((__m256i *)(d + i + 64), b);
		_mm256_store_si256((__m256i *)(d + i + 32), c);
		_mm256_store_si256((__m256i *)(d + i), e);
	}
	while (i >= 32) {
		i -= 32;
		_mm256_store_si256((__m256i *)(d + i), _mm256_loadu_si256((const __m256i *)(s + i)));
	}
	_mm256_storeu_si256((__m256i *)(d + n - 32), last);
	memcpy(d, s, i);	/* under 32 bytes at the start */
}

static int copy_backward(void *dst, const void *src, size_t n)
{
	if (n > COPY_BACKWARD_MAX || !(((uintptr_t)dst - (uintptr_t)src) & 63) ||
	    !__builtin_cpu_supports("avx2"))
		return 0;
	copy_backward_avx2(dst, src, n);
	return 1;
}
#else
static int copy_backward(void *dst, const void *src, size_t n)
{
	(void)dst;
	(void)src;
	(void)n;
	return 0;
}
#endif

/* n >= PGAS__COPY_LONG (the backward copy's tail needs 32 bytes at least). */
void pgas__copy_long(void *dst, const void *src, size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;

	if (d - s < n || s - d < n)
		memmove(dst, src, n);
	else if (!copy_backward(dst, src, n))
		memcpy(dst, src, n);
}
