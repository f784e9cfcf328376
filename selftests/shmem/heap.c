/* SPDX-License-Identifier: MIT */
/*
 * heap - the symmetric heap: shmem_malloc, calloc, align, realloc, free,
 * malloc_with_hints.  The heap is SHMEM_SYMMETRIC_SIZE = 4 MiB (set here
 * before shmem_init), so that its limits are exact.
 *
 *   heap [-s SEED] [-k OPS]
 */
#define _GNU_SOURCE
#include <unistd.h>
#include "stap.h"

#define HEAP (4u << 20)
/* What is surely free of it with every block freed but the harness's: the
 * heap is at least SHMEM_SYMMETRIC_SIZE (docs/shmem.md). */
#define FREE (HEAP - 64)
/* Surely more than the heap: the segment is SHMEM_SYMMETRIC_SIZE plus what
 * starting the heap 64 KiB-aligned can lose. */
#define TOO_BIG (HEAP + (64u << 10))

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	uint64_t seed = 12345;
	int ops = 400, opt;

	while ((opt = getopt(argc, argv, "s:k:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'k': ops = atoi(optarg); break;
		default: return 2;
		}
	}
	setenv("SHMEM_SYMMETRIC_SIZE", "4M", 1);
	shmem_init();
	st_init();	/* one block of the heap: the harness's counter */
	int me = shmem_my_pe(), n = shmem_n_pes();
	int right = (me + 1) % n, left = (me + n - 1) % n;

	/* Sizes and alignment; a put to the right lands at the same object. */
	{
		size_t sizes[] = { 1, 7, 16, 100, 4096, 65537 };
		char *p[6];

		for (int i = 0; i < 6; i++) {
			p[i] = shmem_malloc(sizes[i]);
			T_CHECK(p[i] != NULL, "malloc(%zu)", sizes[i]);
			T_EQ((uintptr_t)p[i] % 16, 0);
			for (int j = 0; j < i; j++)
				T_CHECK(p[i] + sizes[i] <= p[j] || p[j] + sizes[j] <= p[i],
					"blocks %d and %d overlap", i, j);
		}
		for (int i = 0; i < 6; i++) {
			char buf[65537];

			st_fill(buf, sizes[i], (uint64_t)(me * 10 + i));
			shmem_putmem(p[i], buf, sizes[i], right);
		}
		shmem_barrier_all();
		for (int i = 0; i < 6; i++)
			T_EQ(st_verify(p[i], sizes[i], (uint64_t)(left * 10 + i)), sizes[i]);
		shmem_barrier_all();
		for (int i = 5; i >= 0; i--)
			shmem_free(p[i]);
	}
	st_case("shmem_malloc: sizes 1..65537, 16-byte aligned, disjoint, symmetric");

	{
		size_t al[] = { 1, 8, 64, 128, 4096, 65536 };

		for (int i = 0; i < 6; i++) {
			char *q = shmem_align(al[i], 24);

			T_CHECK(q != NULL, "align(%zu)", al[i]);
			T_EQ((uintptr_t)q % al[i], 0);
			shmem_int_p((int *)q, me, right);
			shmem_barrier_all();
			T_EQ(*(int *)q, left);
			shmem_free(q);
		}
		/* Above a page too: segments start PGAS_SEGMENT_ALIGN-aligned in
		 * every PE, so 1 and 2 MiB alignments are symmetric (this fails
		 * where segments are only page-aligned). */
		for (size_t a = 1u << 20; a <= 2u << 20; a <<= 1) {
			char *m = shmem_align(a, 24);

			T_CHECK(m && (uintptr_t)m % a == 0, "%zu alignment: %p", a, (void *)m);
			if (m) {
				shmem_int_p((int *)m, me, right);
				shmem_barrier_all();
				T_EQ(*(int *)m, left);
			}
			shmem_free(m);
		}
		T_CHECK(shmem_align(3, 8) == NULL, "alignment 3 accepted");
		T_CHECK(shmem_align(0, 8) == NULL, "alignment 0 accepted");
	}
	st_case("shmem_align: 1 .. 2 MiB, symmetric; non-powers of two give NULL");

	{
		/* Dirty a block, free it; calloc gets it back zeroed. */
		char *d = shmem_malloc(10000);

		memset(d, 0xab, 10000);
		shmem_free(d);
		long *z = shmem_calloc(1250, 8);
		T_CHECK(z == (long *)d, "first fit: calloc got %p, not the freed %p", (void *)z,
			(void *)d);
		size_t bad = 0;
		for (int i = 0; i < 1250; i++)
			bad += z[i] != 0;
		T_EQ(bad, 0);
		shmem_free(z);
		T_CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL, "overflowing calloc");
		T_CHECK(shmem_calloc(0, 4) == NULL, "calloc(0, 4)");
	}
	st_case("shmem_calloc: zeroed (a freed dirty block comes back clean); overflow is NULL");

	{
		T_CHECK(shmem_malloc(0) == NULL, "malloc(0)");
		T_CHECK(shmem_malloc(TOO_BIG) == NULL, "more than the segment fitted");
		/* Everything but the harness's block (64 bytes) is free and one block. */
		char *big = shmem_malloc(FREE);
		T_CHECK(big != NULL, "malloc(SHMEM_SYMMETRIC_SIZE - 64) after the frees");
		T_CHECK(shmem_malloc(65536 + 64) == NULL, "more than the heap fitted");
		shmem_free(big);
		/* Many small blocks, freed in a scattered order, coalesce again. */
		char *v[256];
		for (int i = 0; i < 256; i++)
			v[i] = shmem_malloc(1000);
		for (int i = 0; i < 256; i += 2)
			shmem_free(v[i]);
		for (int i = 1; i < 256; i += 2)
			shmem_free(v[i]);
		big = shmem_malloc(FREE);
		T_CHECK(big != NULL, "coalescing: heap - 64 after 256 blocks freed");
		shmem_free(big);
		shmem_free(NULL);
	}
	st_case("limits: malloc(0) and over the heap are NULL; freed blocks coalesce");

	{
		char *a = shmem_malloc(100), *b = shmem_malloc(100);

		st_fill(a, 100, 77);
		char *a2 = shmem_realloc(a, 50);		/* shrinks in place */
		T_CHECK(a2 == a, "shrink moved");
		T_EQ(st_verify(a2, 50, 77), 50);
		a = shmem_realloc(a2, 5000);			/* b is behind it: moves */
		T_CHECK(a != NULL && a != a2, "grow past b did not move");
		T_EQ(st_verify(a, 50, 77), 50);
		shmem_putmem(a + 4000, "tail", 5, right);	/* the new part is symmetric */
		shmem_barrier_all();
		T_CHECK(!memcmp(a + 4000, "tail", 5), "put into the grown block");
		shmem_free(b);
		char *a3 = shmem_realloc(a, 6000);		/* room behind it now: in place */
		T_CHECK(a3 == a, "grow into free space moved");
		T_EQ(st_verify(a3, 50, 77), 50);
		T_CHECK(shmem_realloc(a3, TOO_BIG) == NULL, "realloc over the heap");
		T_EQ(st_verify(a3, 50, 77), 50);		/* the old block stays */
		/* A size whose rounding wraps to 0: NULL, and a3 stays in use
		 * (it was freed while returned, and the next block overlapped). */
		T_CHECK(shmem_realloc(a3, SIZE_MAX - 8) == NULL, "realloc(SIZE_MAX - 8)");
		char *d = shmem_malloc(64);
		T_CHECK(d && (d + 64 <= a3 || d >= a3 + 6000), "malloc %p overlaps %p", (void *)d,
			(void *)a3);
		T_EQ(st_verify(a3, 50, 77), 50);
		shmem_free(d);
		char *c = shmem_realloc(NULL, 64);		/* as malloc */
		T_CHECK(c != NULL, "realloc(NULL)");
		T_CHECK(shmem_realloc(c, 0) == NULL, "realloc(p, 0)");	/* as free */
		shmem_free(a3);
	}
	st_case("shmem_realloc: shrink and grow in place, move with contents, NULL cases");

	{
		void *h = shmem_malloc_with_hints(256, SHMEM_MALLOC_ATOMICS_REMOTE);
		void *h2 = shmem_malloc_with_hints(256, 0);

		T_CHECK(h && h2, "malloc_with_hints");
		*(long *)h = 0;
		shmem_barrier_all();
		shmem_long_atomic_add(h, 1, right);
		shmem_barrier_all();
		T_EQ(shmem_long_atomic_fetch(h, me), 1);
		shmem_free(h2);
		shmem_free(h);
	}
	st_case("shmem_malloc_with_hints");

	/* PEs that disagree: NULL on every PE (PE 0 names it on stderr). */
	if (n > 1) {
		void *m = shmem_malloc(me == n - 1 ? 128 : 64);

		T_CHECK(m == NULL, "mismatched sizes gave %p", m);
		void *ok = shmem_malloc(64);	/* and the heap goes on */
		T_CHECK(ok != NULL, "malloc after a mismatch");
		shmem_free(ok);
	}
	st_case("mismatched malloc sizes: NULL on every PE");

	/*
	 * A random sequence of malloc, align, calloc, realloc and free, the
	 * same on every PE.  After each step every PE writes each live block
	 * of its right neighbour with a pattern of (block, left PE); overlaps
	 * or asymmetric offsets would spoil some.
	 */
	{
		enum { LIVE = 24 };
		char *blk[LIVE] = { 0 };
		size_t len[LIVE] = { 0 };
		uint64_t gen[LIVE] = { 0 }, s = seed, g = 1;
		size_t bad = 0;

		if (me == 0)
			printf("# heap: seed %llu, %d operations\n", (unsigned long long)seed, ops);
		for (int k = 0; k < ops; k++) {
			int i = (int)(rnd(&s) % LIVE), what = (int)(rnd(&s) % 5);
			size_t sz = 1 + rnd(&s) % (rnd(&s) % 4 ? 2000 : 150000);

			if (blk[i] && what < 2) {
				shmem_free(blk[i]);
				blk[i] = NULL;
			} else if (blk[i]) {
				char *r = shmem_realloc(blk[i], sz);
				if (r) {
					size_t keep = sz < len[i] ? sz : len[i];
					/* The kept prefix still holds the last pattern. */
					if (st_verify(r, keep, gen[i] * 64 + (uint64_t)left) != keep) {
						bad++;
						fprintf(stderr, "# PE %d: step %d: realloc of block %d "
							"(%zu -> %zu bytes) lost its contents at %zu\n",
							me, k, i, len[i], sz,
							st_verify(r, keep, gen[i] * 64 + (uint64_t)left));
					}
					blk[i] = r;
					len[i] = sz;
				}
			} else if (what == 4) {
				blk[i] = shmem_align((size_t)1 << (rnd(&s) % 14), sz);
				len[i] = sz;
			} else {
				blk[i] = what == 3 ? shmem_calloc(1, sz) : shmem_malloc(sz);
				len[i] = sz;
			}
			/* Every PE checked the kept prefix before anyone writes anew. */
			shmem_barrier_all();
			if (!blk[i])
				continue;
			gen[i] = g++;
			char *buf = malloc(len[i]);
			st_fill(buf, len[i], gen[i] * 64 + (uint64_t)me);
			shmem_putmem(blk[i], buf, len[i], right);
			free(buf);
			shmem_barrier_all();
			for (int j = 0; j < LIVE; j++)
				if (blk[j] && st_verify(blk[j], len[j], gen[j] * 64 + (uint64_t)left) !=
					      len[j]) {
					bad++;
					fprintf(stderr, "# PE %d: step %d: block %d (%zu bytes) spoiled "
						"at %zu\n", me, k, j, len[j],
						st_verify(blk[j], len[j], gen[j] * 64 + (uint64_t)left));
				}
			shmem_barrier_all();
		}
		T_EQ(bad, 0);
		for (int j = 0; j < LIVE; j++)
			if (blk[j])
				shmem_free(blk[j]);
		char *big = shmem_malloc(FREE);
		T_CHECK(big != NULL, "the heap is whole again");
		shmem_free(big);
	}
	st_case("random malloc/align/calloc/realloc/free sequence: blocks disjoint and symmetric");
	return st_done();
}
