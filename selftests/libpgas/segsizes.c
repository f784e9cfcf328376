// SPDX-License-Identifier: MIT
/*
 * segsizes - segments of a different size in every rank.  The shm conduit
 * lays the host's segments side by side in one memfd, each at an offset
 * aligned to PGAS_SEGMENT_ALIGN: a wrong offset would make two ranks'
 * segments overlap, or a segment run into its neighbour's.  Each rank asks
 * a size of its own (one of them exactly PGAS_SEGMENT_ALIGN, one a single
 * page more) and fills all of it with its own byte; every rank then reads
 * every rank's first and last bytes and a seeded sample by get and through
 * pgas_ptr, finds each segment's size and alignment as asked, and has a put
 * one byte past the end refused.
 *
 *   pgasrun -n N segsizes [SEED]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"

static unsigned me, n;

/* What rank r asks for, before the harness page t_attach adds. */
static size_t asked(unsigned r)
{
	switch (r % 4) {
	case 0:
		return 3 * T_PAGE;
	case 1:
		return PGAS_SEGMENT_ALIGN - T_PAGE;	/* exactly the alignment, with the page */
	case 2:
		return PGAS_SEGMENT_ALIGN;		/* one page over it */
	default:
		return (size_t)(r + 1) * 5 * T_PAGE + (r % 7) * 1000;
	}
}

static size_t page_up(size_t x)
{
	return (x + T_PAGE - 1) & ~(size_t)(T_PAGE - 1);
}

static unsigned char mark(unsigned r)
{
	return (unsigned char)(0x41 + r % 61);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0;
	unsigned bad_size = 0, bad_bytes = 0, bad_align = 0, bad_bounds = 0;

	if (pgas_init(&argc, &argv))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (!seed)
		seed = 0x5e95e9ull + n;
	if (me == 0)
		printf("# seed %llu (segsizes N SEED replays it)\n", (unsigned long long)seed);
	if (t_attach(NULL, 0, asked(me)))
		return 1;
	/* Everything the harness page leaves: mine, in my byte. */
	memset(pgas_segment_addr(me), mark(me), page_up(asked(me)));
	pgas_barrier(1, 0);
	for (unsigned r = 0; r < n; r++) {
		unsigned char *base = pgas_segment_addr(r), *local = pgas_ptr(r, base);
		size_t size = pgas_segment_size(r), len = page_up(asked(r));
		uint64_t s = seed ^ ((uint64_t)me << 32 | r);
		unsigned char c = 0, one = 1;

		if (size != page_up(asked(r) + T_PAGE)) {
			fprintf(stderr, "rank %u: rank %u's segment has %zu bytes, %zu asked\n", me,
				r, size, page_up(asked(r) + T_PAGE));
			bad_size++;
		}
		if ((uintptr_t)base % PGAS_SEGMENT_ALIGN)
			bad_align++;
		for (unsigned i = 0; i < 66; i++) {
			size_t at = i == 0 ? 0 : i == 1 ? len - 1 : t_rand(&s) % len;

			if (pgas_get(&c, r, base + at, 1) || c != mark(r) ||
			    (local && local[at] != mark(r))) {
				fprintf(stderr, "rank %u: byte %zu of rank %u's segment is 0x%02x "
					"(through pgas_ptr 0x%02x), 0x%02x expected\n", me, at, r, c,
					local ? local[at] : 0, mark(r));
				bad_bytes++;
				break;
			}
		}
		if (pgas_put(r, base + size, &one, 1) != PGAS_ERR_BOUNDS)
			bad_bounds++;
	}
	T_CHECK(!bad_size, "%u segments of a size other than asked", bad_size);
	t_case("segsizes: every segment of the size its rank asked");
	T_CHECK(!bad_bytes, "%u segments with another rank's bytes", bad_bytes);
	t_case("segsizes: each segment holds its own rank's bytes only, first to last");
	T_CHECK(!bad_align, "%u segments not aligned to PGAS_SEGMENT_ALIGN", bad_align);
	t_case("segsizes: every segment aligned to PGAS_SEGMENT_ALIGN");
	T_CHECK(!bad_bounds, "%u puts one byte past a segment not refused", bad_bounds);
	t_case("segsizes: a put one byte past any segment is refused");
	t_done();
}
