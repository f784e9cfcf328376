// SPDX-License-Identifier: MIT
/*
 * vis - non-contiguous RMA (pgas_vis.h) against a reference: random
 * strided shapes (transposed, padded, interleaved, negative and junk
 * strides, 0 to PGAS_VIS_MAX_STRIDELEVELS levels), random indexed and
 * vector lists, every form (blocking, _nb, _nbi, then their syncs), to
 * this rank and every other; the reference copies element by element.
 * Then the edges: empty transfers, one element, contiguous layouts in one
 * memcpy, footprints that end at the segment's last byte (accepted) or one
 * byte past it, or start one byte below it (refused, nothing written),
 * overflowing extents, lists whose totals differ, and every misuse by name.
 *
 *   vis [-s SEED] [-i TRIALS]     (the seed is printed; -s replays it)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define AREA (16 * 1024)	/* each rank's slot in every segment */
#define MAXL PGAS_VIS_MAX_STRIDELEVELS
#define NTHREADS 4		/* PGAS_THREAD_MULTIPLE case: 1 KiB of my slot each */

/* The library's count of memcpy calls in this thread's last transfer. */
extern _Thread_local size_t pgas__vis_last_runs;

static unsigned me, n;
static uint64_t rng;
static unsigned trials = 240;
static unsigned char img[AREA], loc[AREA], want[AREA], got[AREA];

static size_t rnd(size_t m)	/* 0 .. m-1 */
{
	return m ? (size_t)(t_rand(&rng) % m) : 0;
}

/* My slot in rank r's segment, as r sees it. */
static char *slot(unsigned r)
{
	return (char *)pgas_segment_addr(r) + (size_t)me * AREA;
}

static char *seg_end(unsigned r)
{
	return (char *)pgas_segment_addr(r) + pgas_segment_size(r);
}

/* ---- reference: one element at a time, offsets recomputed from scratch ---- */

static void ref_strided(char *dst, const ptrdiff_t *ds, const char *src, const ptrdiff_t *ss,
			size_t elemsz, const size_t *count, size_t levels)
{
	size_t idx[MAXL] = { 0 }, k;

	for (k = 0; k < levels; k++)
		if (!count[k])
			return;
	for (;;) {
		ptrdiff_t doff = 0, soff = 0;

		for (k = 0; k < levels; k++) {
			doff += (ptrdiff_t)idx[k] * ds[k];
			soff += (ptrdiff_t)idx[k] * ss[k];
		}
		memcpy(dst + doff, src + soff, elemsz);
		for (k = 0; k < levels && ++idx[k] == count[k]; k++)
			idx[k] = 0;
		if (k == levels)
			return;
	}
}

/* Lists as vectors: the source's bytes in order into the destination's regions in order. */
static void ref_lists(size_t dc, const pgas_memvec_t *dl, size_t sc, const pgas_memvec_t *sl)
{
	static unsigned char flat[AREA * 4];
	size_t t = 0, u = 0;

	for (size_t i = 0; i < sc; i++)
		if (sl[i].len) {	/* an empty region's address may be NULL */
			memcpy(flat + t, sl[i].addr, sl[i].len);
			t += sl[i].len;
		}
	for (size_t i = 0; i < dc; i++)
		if (dl[i].len) {
			memcpy(dl[i].addr, flat + u, dl[i].len);
			u += dl[i].len;
		}
}

/* ---- random strided shapes ----------------------------------------------- */

struct shape {
	size_t elemsz, levels, count[MAXL];
	ptrdiff_t ds[MAXL], ss[MAXL];
	size_t doff, soff;	/* base offsets in the destination / source area */
};

/*
 * A layout of the dimensions in a random order, each stride past the span
 * of the ones inside it (plus a random gap: interleaved), of random sign;
 * overlap: zero strides allowed (the source).  Junk strides where the
 * count is 1.  Returns the footprint; *below: how far below the base.
 */
static size_t layout(const struct shape *sh, ptrdiff_t *st, int overlap, size_t *below)
{
	size_t perm[MAXL], span = sh->elemsz, lo = 0, hi = sh->elemsz;

	for (size_t i = 0; i < sh->levels; i++)
		perm[i] = i;
	for (size_t i = sh->levels; i > 1; i--) {
		size_t j = rnd(i), x = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = x;
	}
	for (size_t i = 0; i < sh->levels; i++) {
		size_t d = perm[i], mag = span + (rnd(3) ? 0 : rnd(2 * sh->elemsz + 1));

		if (sh->count[d] == 1) {
			st[d] = (ptrdiff_t)rnd(2000000000) - 1000000000;
			continue;
		}
		if (overlap && !rnd(8))
			mag = 0;
		st[d] = rnd(4) ? (ptrdiff_t)mag : -(ptrdiff_t)mag;
		span += mag * (sh->count[d] - 1);
		if (st[d] < 0)
			lo += mag * (sh->count[d] - 1);
		else
			hi += mag * (sh->count[d] - 1);
	}
	*below = lo;
	return lo + hi;
}

static int random_shape(struct shape *sh)
{
	size_t r = rnd(20), dext, sext, dlo, slo, elems = 1;
	static const size_t sizes[] = { 1, 2, 3, 4, 8, 12, 16, 24 };

	sh->elemsz = sizes[rnd(8)];
	sh->levels = r < 2 ? 0 : r < 18 ? 1 + rnd(4) : 5 + rnd(MAXL - 4);
	for (size_t i = 0; i < sh->levels; i++) {
		sh->count[i] = sh->levels > 4 ? 1 + (rnd(10) < 3) : 1 + rnd(12);
		if (!rnd(60))
			sh->count[i] = 0;
		elems *= sh->count[i];
	}
	if (elems * sh->elemsz > AREA / 2)
		return 0;
	dext = layout(sh, sh->ds, 0, &dlo);
	sext = layout(sh, sh->ss, 1, &slo);
	if (dext > AREA || sext > AREA)
		return 0;
	sh->doff = dlo + rnd(AREA - dext + 1);
	sh->soff = slo + rnd(AREA - sext + 1);
	return 1;
}

/* Waits for what form f left outstanding. */
static int sync_form(int f, pgas_handle_t h, int get)
{
	if (f == 1)
		return pgas_wait_syncnb(h);
	if (f == 2)
		return get ? pgas_wait_syncnbi_gets() : pgas_wait_syncnbi_puts();
	return 0;
}

/* One strided transfer with rank t in form f (0 blocking, 1 _nb, 2 _nbi). */
static int do_strided(int get, int f, unsigned t, char *rbase, char *lbase, const struct shape *sh)
{
	pgas_handle_t h = 1;
	int rc;

	if (!get) {
		const ptrdiff_t *ds = sh->ds, *ss = sh->ss;

		rc = f == 0 ? pgas_put_strided(t, rbase, ds, lbase, ss, sh->elemsz, sh->count, sh->levels)
		   : f == 1 ? pgas_put_strided_nb(&h, t, rbase, ds, lbase, ss, sh->elemsz, sh->count,
						  sh->levels)
			    : pgas_put_strided_nbi(t, rbase, ds, lbase, ss, sh->elemsz, sh->count,
						   sh->levels);
	} else {
		/* The remote side is the source: its layout (ss) may overlap;
		 * the local destination's (ds) may not (pgas_vis.h). */
		const ptrdiff_t *ds = sh->ds, *ss = sh->ss;

		rc = f == 0 ? pgas_get_strided(lbase, ds, t, rbase, ss, sh->elemsz, sh->count, sh->levels)
		   : f == 1 ? pgas_get_strided_nb(&h, lbase, ds, t, rbase, ss, sh->elemsz, sh->count,
						  sh->levels)
			    : pgas_get_strided_nbi(lbase, ds, t, rbase, ss, sh->elemsz, sh->count,
						   sh->levels);
	}
	/* A mapped target's transfer is complete at once; one that is not
	 * mapped here (PGAS_MAP_PEERS=none) has a handle to sync. */
	if (!rc && f == 1 && h != PGAS_HANDLE_DONE && pgas_ptr(t, pgas_segment_addr(t)))
		return -100;
	return rc ? rc : sync_form(f, h, get);
}

static void test_random_strided(void)
{
	unsigned done = 0, bad = 0, levels_seen = 0;
	struct shape sh;

	for (unsigned i = 0; i < trials; i++) {
		unsigned t = (me + i) % n;
		int get = (i / n) % 2, f = (int)((i / (2 * n)) % 3), rc;

		while (!random_shape(&sh))
			;
		levels_seen |= 1u << (sh.levels > 4 ? 5 : sh.levels);
		t_fill(img, AREA, t_rand(&rng));
		t_fill(loc, AREA, t_rand(&rng));
		T_EQ(pgas_put(t, slot(t), img, AREA), 0);
		if (!get) {
			/* The remote side has the destination layout (ds), loc the source's. */
			memcpy(want, img, AREA);
			ref_strided((char *)want + sh.doff, sh.ds, (char *)loc + sh.soff, sh.ss,
				    sh.elemsz, sh.count, sh.levels);
			rc = do_strided(0, f, t, slot(t) + sh.doff, (char *)loc + sh.soff, &sh);
			T_EQ(pgas_get(got, t, slot(t), AREA), 0);
		} else {
			/* A get: the remote source has the source layout (ss, which may
			 * overlap), the local destination the destination's (ds, which
			 * may not).  It was the other way round: a get's local elements
			 * could overlap, whose last value the API leaves unspecified, and
			 * reads over the fabric that complete out of order then differed
			 * from the reference (seed 139613284908, ofi, no peer mapped). */
			memcpy(want, loc, AREA);
			ref_strided((char *)want + sh.doff, sh.ds, (char *)img + sh.soff, sh.ss,
				    sh.elemsz, sh.count, sh.levels);
			rc = do_strided(1, f, t, slot(t) + sh.soff, (char *)loc + sh.doff, &sh);
			memcpy(got, loc, AREA);
		}
		if (rc || memcmp(got, want, AREA)) {
			if (bad++ < 3)
				T_CHECK(0, "trial %u (%s form %d to rank %u, elemsz %zu, %zu levels): rc %d %s",
					i, get ? "get" : "put", f, t, sh.elemsz, sh.levels, rc,
					rc ? pgas_last_error() : "data differs from the reference");
		}
		done++;
	}
	T_CHECK(bad == 0, "%u of %u trials failed", bad, done);
	T_CHECK(levels_seen == 0x3f, "level classes seen %#x", levels_seen);
	t_case("strided put/get, %u random shapes per rank (0-4 and up to %d levels, negative, "
	       "zero, junk and interleaved strides), blocking/nb/nbi, to every rank: as the reference",
	       trials, MAXL);
}

/* ---- random indexed and vector lists -------------------------------------- */

/* Up to maxr regions totalling total bytes, lengths len (0: random, zeros too). */
static size_t make_regions(pgas_memvec_t *v, size_t maxr, size_t total, size_t len, char *base,
			   int disjoint)
{
	size_t c = 0, left = total, at = 0;

	while (left && c < maxr) {
		size_t l = len ? len : (c + 1 == maxr ? left : rnd(left + 1));

		if (!len && !rnd(5))
			l = 0;
		if (l > left)
			l = left;
		if (disjoint) {
			at += rnd(3) ? 0 : rnd(64);
			v[c].addr = base + at;
			at += l;
		} else {
			v[c].addr = base + rnd(AREA - l + 1);
		}
		if (!l && !rnd(2))
			v[c].addr = NULL;	/* never read */
		v[c++].len = l;
		left -= l;
	}
	/* Shuffle: list order is not address order. */
	for (size_t i = c; i > 1; i--) {
		size_t j = rnd(i);
		pgas_memvec_t x = v[i - 1];

		v[i - 1] = v[j];
		v[j] = x;
	}
	return left ? 0 : c;
}

/* Vector lists' addresses relative to one area moved to another. */
static void rebase(pgas_memvec_t *o, const pgas_memvec_t *v, size_t c, const char *from, char *to)
{
	for (size_t i = 0; i < c; i++)
		o[i] = (pgas_memvec_t){ v[i].addr ? to + ((char *)v[i].addr - from) : NULL, v[i].len };
}

static int do_lists(int indexed, int get, int f, unsigned t, size_t dc, const pgas_memvec_t *dl,
		    size_t sc, const pgas_memvec_t *sl)
{
	void *da[64];
	const void *sa[64];
	size_t dlen = dc ? dl[0].len : 0, slen = sc ? sl[0].len : 0;
	pgas_handle_t h = 1;
	int rc;

	for (size_t i = 0; i < dc; i++)
		da[i] = dl[i].addr;
	for (size_t i = 0; i < sc; i++)
		sa[i] = sl[i].addr;
	if (indexed && !get)
		rc = f == 0 ? pgas_put_indexed(t, dc, da, dlen, sc, sa, slen)
		   : f == 1 ? pgas_put_indexed_nb(&h, t, dc, da, dlen, sc, sa, slen)
			    : pgas_put_indexed_nbi(t, dc, da, dlen, sc, sa, slen);
	else if (indexed)
		rc = f == 0 ? pgas_get_indexed(dc, da, dlen, t, sc, sa, slen)
		   : f == 1 ? pgas_get_indexed_nb(&h, dc, da, dlen, t, sc, sa, slen)
			    : pgas_get_indexed_nbi(dc, da, dlen, t, sc, sa, slen);
	else if (!get)
		rc = f == 0 ? pgas_put_vector(t, dc, dl, sc, sl)
		   : f == 1 ? pgas_put_vector_nb(&h, t, dc, dl, sc, sl)
			    : pgas_put_vector_nbi(t, dc, dl, sc, sl);
	else
		rc = f == 0 ? pgas_get_vector(dc, dl, t, sc, sl)
		   : f == 1 ? pgas_get_vector_nb(&h, dc, dl, t, sc, sl)
			    : pgas_get_vector_nbi(dc, dl, t, sc, sl);
	/* A mapped target's transfer is complete at once; one that is not
	 * mapped here (PGAS_MAP_PEERS=none) has a handle to sync. */
	if (!rc && f == 1 && h != PGAS_HANDLE_DONE && pgas_ptr(t, pgas_segment_addr(t)))
		return -100;
	return rc ? rc : sync_form(f, h, get);
}

static void test_random_lists(void)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < trials; i++) {
		unsigned t = (me + i) % n;
		int get = (i / n) % 2, f = (int)((i / (2 * n)) % 3), indexed = i % 2, rc;
		size_t m = 1 + rnd(48), unit = 1 + rnd(40), d1, d2, dc, sc;
		pgas_memvec_t dl[64], sl[64], rdl[64], rsl[64];
		/* The destination is remote for a put, local for a get. */
		char *dst_area = get ? (char *)loc : (char *)want;
		char *src_area = get ? (char *)img : (char *)loc;

		do
			d1 = 1 + rnd(m);
		while (m % d1);
		do
			d2 = 1 + rnd(m);
		while (m % d2);
		if (indexed) {
			dc = make_regions(dl, 64, m * unit, d1 * unit, dst_area, 1);
			sc = make_regions(sl, 64, m * unit, d2 * unit, src_area, 0);
		} else {
			dc = make_regions(dl, 1 + rnd(40), m * unit, 0, dst_area, 1);
			sc = make_regions(sl, 1 + rnd(40), m * unit, 0, src_area, 0);
		}
		if (!dc || !sc)
			continue;
		{	/* disjoint regions must fit the area */
			size_t end = 0;

			for (size_t k = 0; k < dc; k++)
				if (dl[k].addr && (size_t)((char *)dl[k].addr - dst_area) + dl[k].len > end)
					end = (size_t)((char *)dl[k].addr - dst_area) + dl[k].len;
			if (end > AREA)
				continue;
		}
		t_fill(img, AREA, t_rand(&rng));
		t_fill(loc, AREA, t_rand(&rng));
		T_EQ(pgas_put(t, slot(t), img, AREA), 0);
		if (!get) {
			memcpy(want, img, AREA);
			ref_lists(dc, dl, sc, sl);	/* into want, from loc */
			rebase(rdl, dl, dc, (char *)want, slot(t));
			rc = do_lists(indexed, 0, f, t, dc, rdl, sc, sl);
			T_EQ(pgas_get(got, t, slot(t), AREA), 0);
		} else {
			memcpy(want, loc, AREA);
			rebase(rdl, dl, dc, (char *)loc, (char *)want);
			ref_lists(dc, rdl, sc, sl);	/* into want, from img */
			rebase(rsl, sl, sc, (char *)img, slot(t));
			rc = do_lists(indexed, 1, f, t, dc, dl, sc, rsl);
			memcpy(got, loc, AREA);
		}
		if ((rc || memcmp(got, want, AREA)) && bad++ < 3)
			T_CHECK(0, "trial %u (%s %s form %d to rank %u, %zu x %zu regions): rc %d %s", i,
				indexed ? "indexed" : "vector", get ? "get" : "put", f, t, dc, sc, rc,
				rc ? pgas_last_error() : "data differs from the reference");
	}
	T_CHECK(bad == 0, "%u trials failed", bad);
	t_case("indexed and vector put/get, %u random list pairs per rank (shuffled, zero-length "
	       "and NULL empty regions, overlapping sources), blocking/nb/nbi, to every rank: as "
	       "the reference", trials);
}

/* ---- edges ------------------------------------------------------------------ */

static void test_empty_and_one(void)
{
	unsigned t = (me + 1) % n;
	size_t c0[] = { 3, 0, 5 }, c1[] = { 0 };
	ptrdiff_t st[] = { 8, 64, 512 };
	pgas_handle_t h = 1;
	uint64_t one = 0x1122334455667788ull, back = 0;

	t_fill(img, AREA, 7);
	T_EQ(pgas_put(t, slot(t), img, AREA), 0);
	/* Zero counts: no address or stride is looked at. */
	T_EQ(pgas_put_strided(t, NULL, NULL, NULL, NULL, 8, c0, 3), 0);
	T_EQ(pgas_get_strided(NULL, NULL, t, NULL, NULL, 8, c1, 1), 0);
	T_EQ(pgas_put_strided_nb(&h, t, NULL, st, NULL, st, 8, c0, 3), 0);
	T_EQ(h, PGAS_HANDLE_DONE);
	T_EQ(pgas_get_strided_nbi(NULL, NULL, t, NULL, NULL, 8, c0, 3), 0);
	T_EQ(pgas_put_indexed(t, 0, NULL, 8, 0, NULL, 8), 0);
	T_EQ(pgas_put_indexed(t, 2, (void *[]){ slot(t), slot(t) + 8 }, 0, 0, NULL, 4), 0);
	T_EQ(pgas_get_vector(0, NULL, t, 0, NULL), 0);
	T_EQ(pgas_put_vector(t, 1, &(pgas_memvec_t){ NULL, 0 }, 1, &(pgas_memvec_t){ NULL, 0 }), 0);
	T_EQ(pgas_iput(t, NULL, 1, NULL, 1, 4, 0), 0);
	/* Nor an iput/iget's strides, nor its element size. */
	T_EQ(pgas_iput(t, NULL, PTRDIFF_MAX, NULL, PTRDIFF_MIN, 8, 0), 0);
	T_EQ(pgas_iget(NULL, 1, t, NULL, 1, SIZE_MAX, 0), 0);
	T_EQ(pgas_wait_syncnbi_all(), 0);
	T_EQ(pgas_get(got, t, slot(t), AREA), 0);
	T_CHECK(!memcmp(got, img, AREA), "an empty transfer wrote");
	/* One element: stridelevels 0 (count and strides not read), and 1 x 1. */
	T_EQ(pgas_put_strided(t, slot(t) + 8, NULL, &one, NULL, 8, NULL, 0), 0);
	T_EQ(pgas__vis_last_runs, 1);
	T_EQ(pgas_get_strided(&back, (ptrdiff_t[]){ -5 }, t, slot(t) + 8, (ptrdiff_t[]){ 12345 }, 8,
			      (size_t[]){ 1 }, 1), 0);
	T_EQ(back, one);
	/* iput/iget of one element: the strides (here overflowing in bytes) are not used. */
	T_EQ(pgas_iput(t, slot(t) + 8, PTRDIFF_MAX, &one, PTRDIFF_MIN, 8, 1), 0);
	back = 0;
	T_EQ(pgas_iget(&back, -PTRDIFF_MAX, t, slot(t) + 8, PTRDIFF_MAX, 8, 1), 0);
	T_EQ(back, one);
	T_EQ(pgas_get(got, t, slot(t), 24), 0);
	T_CHECK(!memcmp(got, img, 8) && !memcmp(got + 16, img + 16, 8), "neighbours written");
	pgas_barrier(20, 0);
	t_case("empty transfers (a zero count, empty lists, zero-length regions) are no-ops; "
	       "one element at stridelevels 0 and 1");
}

/* Contiguous layouts are one memcpy; others one per run. */
static void test_runs(void)
{
	unsigned t = (me + n - 1) % n;
	static unsigned char src[AREA];
	size_t c3[] = { 5, 6, 7 }, cj[] = { 1, 5, 1, 6, 1, 7, 1 }, c2[] = { 16, 10 }, c1[] = { 100 };
	ptrdiff_t s3[] = { 4, 20, 120 }, sj[] = { -99, 4, 7, 20, 0, 120, 1 << 30 };
	ptrdiff_t pad[] = { 8, 256 }, dense[] = { 8, 128 }, rev[] = { -4 }, fwd[] = { 4 };
	ptrdiff_t even[] = { 16 }, half[] = { 8 };
	void *da[4];
	const void *sa[4];
	int ok = 1;
	pgas_handle_t h = 1;

	t_fill(src, AREA, 11);
	T_EQ(pgas_put_strided(t, slot(t), s3, src, s3, 4, c3, 3), 0);
	T_EQ(pgas__vis_last_runs, 1);
	T_EQ(pgas_get(got, t, slot(t), 840), 0);
	ok &= !memcmp(got, src, 840);
	T_EQ(pgas_get_strided_nb(&h, loc, sj, t, slot(t), sj, 4, cj, 7), 0);
	T_EQ(pgas__vis_last_runs, 1);
	T_EQ(pgas_wait_syncnb(h), 0);	/* a rank not mapped here: not yet done */
	ok &= !memcmp(loc, src, 840);
	T_EQ(pgas_put_strided(t, slot(t), pad, src, dense, 8, c2, 2), 0);
	T_EQ(pgas__vis_last_runs, 10);
	T_EQ(pgas_iget(loc, 1, t, slot(t), 1, 8, 16), 0);
	T_EQ(pgas__vis_last_runs, 1);
	ok &= !memcmp(loc, src, 128);
	/* Reversed: a negative stride, one element a run. */
	T_EQ(pgas_put_strided(t, slot(t) + 396, rev, src, fwd, 4, c1, 1), 0);
	T_EQ(pgas__vis_last_runs, 100);
	T_EQ(pgas_get(got, t, slot(t), 400), 0);
	for (int i = 0; i < 100; i++)
		ok &= !memcmp(got + 4 * i, src + 4 * (99 - i), 4);
	/* Interleaved: even elements, then odd ones, from two halves. */
	T_EQ(pgas_put_strided(t, slot(t), even, src, half, 8, (size_t[]){ 50 }, 1), 0);
	T_EQ(pgas_put_strided_nbi(t, slot(t) + 8, even, src + 400, half, 8, (size_t[]){ 50 }, 1), 0);
	T_EQ(pgas_wait_syncnbi_puts(), 0);
	T_EQ(pgas__vis_last_runs, 50);
	T_EQ(pgas_get(got, t, slot(t), 800), 0);
	for (int i = 0; i < 100; i++)
		ok &= !memcmp(got + 8 * i, src + (i % 2 ? 400 : 0) + 8 * (i / 2), 8);
	/* Regions adjacent on both sides, in list order: one run. */
	for (int i = 0; i < 4; i++) {
		da[i] = slot(t) + 32 * i;
		sa[i] = src + 1000 + 32 * i;
	}
	T_EQ(pgas_put_indexed(t, 4, da, 32, 4, sa, 32), 0);
	T_EQ(pgas__vis_last_runs, 1);
	T_EQ(pgas_put_indexed(t, 2, (void *[]){ slot(t), slot(t) + 64 }, 64, 4, sa, 32), 0);
	T_EQ(pgas__vis_last_runs, 1);
	T_EQ(pgas_get(got, t, slot(t), 128), 0);
	ok &= !memcmp(got, src + 1000, 128);
	/* PGAS_VIS_MAX_STRIDELEVELS levels, 2 or 1 elements each, random layouts. */
	{
		struct shape sh = { .elemsz = 2, .levels = MAXL };
		size_t below_d, below_s;

		for (size_t i = 0; i < MAXL; i++)
			sh.count[i] = 1 + (i % 2 == 0 || i == MAXL - 1);
		while (layout(&sh, sh.ds, 0, &below_d) > AREA || layout(&sh, sh.ss, 1, &below_s) > AREA)
			;
		t_fill(img, AREA, 12);
		T_EQ(pgas_put(t, slot(t), img, AREA), 0);
		memcpy(want, img, AREA);
		ref_strided((char *)want + below_d, sh.ds, (char *)src + below_s, sh.ss, 2, sh.count,
			    MAXL);
		T_EQ(pgas_put_strided(t, slot(t) + below_d, sh.ds, src + below_s, sh.ss, 2, sh.count,
				      MAXL), 0);
		T_EQ(pgas_get(got, t, slot(t), AREA), 0);
		ok &= !memcmp(got, want, AREA);
	}
	T_CHECK(ok, "data differs");
	pgas_barrier(21, 0);
	t_case("contiguous strided (3-d, junk strides on count-1 dimensions), iget and adjacent "
	       "indexed regions: one memcpy; padded rows, reversed and interleaved: one per run; "
	       "%d levels", MAXL);
}

/*
 * At the ends of rank t's segment: footprints that end at its last byte or
 * start at its first are accepted; one byte further is PGAS_ERR_BOUNDS and
 * nothing is written (nor read into a get's destination).
 */
static void edges_to(unsigned t)
{
	size_t cnt[] = { 4, 3 }, fp = 128 * 2 + 16 * 3 + 8;	/* footprint 312 bytes */
	ptrdiff_t up[] = { 16, 128 }, down[] = { -16, -128 }, dense[] = { 8, 32 };
	char *end = seg_end(t), *start = pgas_segment_addr(t);
	static unsigned char src[1024], tail[1024], head[1024], chk[1024];
	pgas_memvec_t dv[2], sv[1] = { { src, 24 } };
	pgas_handle_t h = 7;

	t_fill(src, sizeof(src), 100 + me);
	t_fill(tail, sizeof(tail), 200 + t);
	t_fill(head, sizeof(head), 300 + t);
	T_EQ(pgas_put(t, end - 1024, tail, 1024), 0);
	T_EQ(pgas_put(t, start, head, 1024), 0);
	/* Ends at the last byte: accepted. */
	ref_strided((char *)tail + 1024 - fp, up, (char *)src, dense, 8, cnt, 2);
	T_EQ(pgas_put_strided(t, end - fp, up, src, dense, 8, cnt, 2), 0);
	/* One byte past, in every form and call: refused, nothing written. */
	T_EQ(pgas_put_strided(t, end - fp + 1, up, src + 512, dense, 8, cnt, 2), PGAS_ERR_BOUNDS);
	T_CHECK(strstr(pgas_last_error(), "pgas_put_strided: dst's elements span"), "%s",
		pgas_last_error());
	T_EQ(pgas_put_strided_nb(&h, t, end - fp + 1, up, src + 512, dense, 8, cnt, 2),
	     PGAS_ERR_BOUNDS);
	T_EQ(h, 7);
	T_EQ(pgas_put_strided_nbi(t, end - fp + 1, up, src + 512, dense, 8, cnt, 2),
	     PGAS_ERR_BOUNDS);
	/* iput: 18 elements of 4 bytes, 2 elements apart: 8 x 17 + 4 = 140 bytes. */
	T_EQ(pgas_iput(t, end - 140 + 1, 2, src, 1, 4, 18), PGAS_ERR_BOUNDS);
	T_EQ(pgas_iput(t, end - 140, 2, src, 1, 4, 18), 0);	/* ends at the last byte */
	ref_strided((char *)tail + 1024 - 140, (ptrdiff_t[]){ 8 }, (char *)src,
		    (ptrdiff_t[]){ 4 }, 4, (size_t[]){ 18 }, 1);
	/* A list whose last region passes the end: the first one is not written either. */
	dv[0] = (pgas_memvec_t){ end - 512, 16 };
	dv[1] = (pgas_memvec_t){ end - 7, 8 };
	T_EQ(pgas_put_vector(t, 2, dv, 1, sv), PGAS_ERR_BOUNDS);
	T_CHECK(strstr(pgas_last_error(), "dstlist[1]"), "%s", pgas_last_error());
	T_EQ(pgas_put_indexed(t, 2, (void *[]){ end - 512, end - 7 }, 8, 1, (const void *[]){ src },
			      16), PGAS_ERR_BOUNDS);
	T_EQ(pgas_get(chk, t, end - 1024, 1024), 0);
	T_CHECK(!memcmp(chk, tail, 1024), "the segment's end differs from the reference");
	/* Negative strides: the lowest element at the first byte, then one below. */
	ref_strided((char *)head + fp - 8, down, (char *)src, dense, 8, cnt, 2);
	T_EQ(pgas_put_strided(t, start + fp - 8, down, src, dense, 8, cnt, 2), 0);
	T_EQ(pgas_put_strided(t, start + fp - 9, down, src + 512, dense, 8, cnt, 2),
	     PGAS_ERR_BOUNDS);
	T_EQ(pgas_get(chk, t, start, 1024), 0);
	T_CHECK(!memcmp(chk, head, 1024), "the segment's start differs from the reference");
	/* Gets: the same footprints as sources. */
	memset(loc, 0x5a, 1024);
	memset(want, 0x5a, 1024);
	ref_strided((char *)want, dense, (char *)tail + 1024 - fp, up, 8, cnt, 2);
	T_EQ(pgas_get_strided(loc, dense, t, end - fp, up, 8, cnt, 2), 0);
	T_EQ(pgas_get_strided_nb(&h, loc + 512, dense, t, end - fp + 1, up, 8, cnt, 2),
	     PGAS_ERR_BOUNDS);
	T_EQ(pgas_get_strided(loc + 512, dense, t, start + fp - 9, down, 8, cnt, 2),
	     PGAS_ERR_BOUNDS);
	T_EQ(pgas_get_vector(1, sv, t, 2, dv), PGAS_ERR_BOUNDS);
	T_CHECK(strstr(pgas_last_error(), "pgas_get_vector: srclist[1]"), "%s", pgas_last_error());
	T_EQ(pgas_iget(loc + 512, 1, t, end - 3, 1, 4, 1), PGAS_ERR_BOUNDS);
	T_CHECK(!memcmp(loc, want, 1024), "a get's destination differs (refused gets wrote?)");
}

static void test_segment_edges(void)
{
	/* Round k: rank me works on rank me+k's segment, the only one that does. */
	for (unsigned k = 0; k < n; k++) {
		edges_to((me + k) % n);
		pgas_barrier(30 + k, 0);
	}
	t_case("footprints at the segment's ends: the last / first byte accepted, one byte "
	       "further refused (PGAS_ERR_BOUNDS, nothing written or read), every rank's segment");
}

static void test_refusals(void)
{
	unsigned t = (me + 1) % n;
	char *d = slot(t);
	size_t c2[] = { 2, 2 }, big[] = { SIZE_MAX / 2 + 1, 2 }, c4[] = { 4 }, c17[MAXL + 1];
	ptrdiff_t s2[] = { 8, 16 }, huge[] = { PTRDIFF_MAX }, low[] = { PTRDIFF_MIN };
	pgas_memvec_t v2[] = { { d, 8 }, { d + 8, 8 } }, v3[] = { { loc, 8 }, { loc, 8 }, { loc, 1 } };
	pgas_memvec_t vbig[] = { { loc, SIZE_MAX / 2 + 1 }, { loc, SIZE_MAX / 2 + 1 } };
	const void *sl[3] = { loc, loc + 8, loc + 16 };
	int ok = 1;

#define REFUSED(call, code, words)							\
	do {										\
		int rc_ = (call);							\
		if (rc_ != (code) || !strstr(pgas_last_error(), words)) {		\
			T_CHECK(0, "%s: rc %d, message '%s'", #call, rc_, pgas_last_error()); \
			ok = 0;								\
		}									\
	} while (0)

	for (size_t i = 0; i <= MAXL; i++)
		c17[i] = 1;
	t_fill(img, AREA, 42);
	T_EQ(pgas_put(t, d, img, AREA), 0);
	REFUSED(pgas_put_strided(n, d, s2, loc, s2, 8, c2, 2), PGAS_ERR_RANK,
		"pgas_put_strided: rank");
	REFUSED(pgas_get_indexed_nbi(1, (void *[]){ loc }, 8, n + 5, 1, sl, 8), PGAS_ERR_RANK,
		"pgas_get_indexed_nbi: rank");
	REFUSED(pgas_iput(n, d, PTRDIFF_MAX, loc, 1, 8, 2), PGAS_ERR_RANK, "pgas_iput: rank");
	REFUSED(pgas_put_strided(t, d, s2, NULL, s2, 8, c2, 2), PGAS_ERR_INVAL,
		"pgas_put_strided: src is NULL");
	REFUSED(pgas_get_strided(NULL, s2, t, d, s2, 8, c2, 2), PGAS_ERR_INVAL,
		"pgas_get_strided: dst is NULL");
	REFUSED(pgas_put_strided(t, d, s2, loc, s2, 0, c2, 2), PGAS_ERR_INVAL, "elemsz is 0");
	REFUSED(pgas_iget(loc, 1, t, d, 1, 0, 5), PGAS_ERR_INVAL, "pgas_iget: elemsz is 0");
	REFUSED(pgas_put_strided(t, d, NULL, loc, NULL, 1, c17, MAXL + 1), PGAS_ERR_INVAL,
		"stridelevels 17 (at most 16)");
	REFUSED(pgas_put_strided(t, d, s2, loc, s2, 8, NULL, 2), PGAS_ERR_INVAL, "count is NULL");
	REFUSED(pgas_put_strided(t, d, NULL, loc, s2, 8, c2, 2), PGAS_ERR_INVAL,
		"dststrides is NULL");
	REFUSED(pgas_put_strided_nb(NULL, t, d, s2, loc, s2, 8, c2, 2), PGAS_ERR_INVAL,
		"pgas_put_strided_nb: handle is NULL");
	REFUSED(pgas_get_vector_nb(NULL, 0, NULL, t, 0, NULL), PGAS_ERR_INVAL,
		"pgas_get_vector_nb: handle is NULL");
	/* Overflows: of the element count, the bytes, a stride's extent (both signs), iput. */
	REFUSED(pgas_put_strided(t, d, s2, loc, s2, 1, big, 2), PGAS_ERR_SIZE, "overflows size_t");
	REFUSED(pgas_put_strided(t, d, s2, loc, s2, SIZE_MAX, c2, 2), PGAS_ERR_SIZE,
		"elemsz 18446744073709551615 times count");
	REFUSED(pgas_put_strided(t, d, huge, loc, s2, 1, c4, 1), PGAS_ERR_SIZE,
		"dststrides[0] = 9223372036854775807 over count[0] = 4");
	REFUSED(pgas_get_strided(loc, s2, t, d, low, 1, c4, 1), PGAS_ERR_SIZE,
		"srcstrides[0] = -9223372036854775808");
	REFUSED(pgas_iput(t, d, PTRDIFF_MAX / 4, loc, 1, 8, 2), PGAS_ERR_SIZE,
		"pgas_iput: dst_stride");
	REFUSED(pgas_put_vector(t, 2, v2, 2, vbig), PGAS_ERR_SIZE,
		"srclist's lengths overflow size_t at region 1");
	REFUSED(pgas_put_indexed(t, 2, (void *[]){ d, d + 8 }, 8, 2, sl, SIZE_MAX / 2 + 1),
		PGAS_ERR_SIZE, "overflow");
	/* Totals that differ; NULL lists and regions. */
	REFUSED(pgas_put_indexed(t, 2, (void *[]){ d, d + 8 }, 8, 3, sl, 8), PGAS_ERR_INVAL,
		"dstlist holds 16 bytes, srclist 24");
	REFUSED(pgas_put_vector(t, 2, v2, 3, v3), PGAS_ERR_INVAL, "dstlist holds 16 bytes, srclist 17");
	REFUSED(pgas_get_vector(3, v3, t, 2, v2), PGAS_ERR_INVAL, "dstlist holds 17 bytes, srclist 16");
	REFUSED(pgas_put_indexed(t, 2, NULL, 8, 2, sl, 8), PGAS_ERR_INVAL,
		"dstlist is NULL with 2 regions");
	REFUSED(pgas_put_vector(t, 2, v2, 2, (pgas_memvec_t[]){ { loc, 8 }, { NULL, 8 } }),
		PGAS_ERR_INVAL, "srclist[1] is NULL");
	T_EQ(pgas_get(got, t, d, AREA), 0);
	T_CHECK(!memcmp(got, img, AREA), "a refused call wrote");
	/* (After the check above: at one rank my slot is the target's area.)
	 * A put_vector to myself whose first region overwrites the rest of dstlist
	 * (after the check): the new last entry, outside my segment, is not written. */
	{
		static uint64_t victim = 1;
		char *S = slot(me);
		pgas_memvec_t *dl = (pgas_memvec_t *)S, evil[2] = { { S + 100, 8 }, { &victim, 8 } };
		unsigned char sb[48];

		dl[0] = (pgas_memvec_t){ S + 16, 32 };
		dl[1] = (pgas_memvec_t){ S + 100, 8 };
		dl[2] = (pgas_memvec_t){ S + 200, 8 };
		memcpy(sb, evil, 32);
		memset(sb + 32, 0x66, 16);
		REFUSED(pgas_put_vector(me, 3, dl, 1, &(pgas_memvec_t){ sb, 48 }), PGAS_ERR_INVAL,
			"pgas_put_vector: the lists changed during the call");
		T_EQ(victim, 1);
	}
#undef REFUSED
	T_CHECK(ok, "see above");
	pgas_barrier(50, 0);
	t_case("refused by name, nothing written: rank, NULL with counts, elemsz 0, stridelevels "
	       "over %d, NULL count/strides/handle, overflowing extents and totals, list totals "
	       "that differ, a list overwritten by its own copy", MAXL);
}

/*
 * At PGAS_THREAD_MULTIPLE, threads of a rank at once: iput/iget and vector
 * round trips to every rank in areas of their own, each thread's run count
 * and refusal message its own.
 */
static void *thread_main(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, bad = 0;
	unsigned char s[256], g[256];

	for (unsigned k = 0; k < 100; k++) {
		unsigned t = (me + k + id) % n;
		char *d = slot(t) + 1024 * id;
		pgas_memvec_t dv[2] = { { d + 600, 100 }, { d + 800, 156 } }, gv = { g, 256 };

		t_fill(s, sizeof(s), 1000u * id + k);
		bad += pgas_iput(t, d, 2, s, 1, 4, 64) != 0;	/* 8 x 63 + 4 = 508 bytes */
		bad += pgas__vis_last_runs != 64;
		bad += pgas_iget(g, 1, t, d, 2, 4, 64) != 0 || memcmp(g, s, 256);
		bad += pgas_put_vector_nbi(t, 2, dv, 1, &(pgas_memvec_t){ s, 256 }) != 0 ||
		       pgas_wait_syncnbi_puts() != 0;
		bad += pgas__vis_last_runs != 2;
		bad += pgas_get_vector(1, &gv, t, 2, dv) != 0 || memcmp(g, s, 256);
		bad += pgas_put_strided_nb(NULL, t, d, NULL, s, NULL, 1, NULL, 0) != PGAS_ERR_INVAL ||
		       !strstr(pgas_last_error(), "pgas_put_strided_nb: handle is NULL");
	}
	return (void *)(uintptr_t)bad;
}

static void test_threads(void)
{
	pthread_t th[NTHREADS];
	uintptr_t bad = 0;

	for (unsigned i = 0; i < NTHREADS; i++)
		T_EQ(pthread_create(&th[i], NULL, thread_main, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < NTHREADS; i++) {
		void *r = NULL;

		pthread_join(th[i], &r);
		bad += (uintptr_t)r;
	}
	T_EQ(bad, 0);
	pgas_barrier(60, 0);
	t_case("PGAS_THREAD_MULTIPLE: %d threads a rank at once, iput/iget and vector round trips "
	       "to every rank, run counts and refusals per thread", NTHREADS);
}

int main(int argc, char **argv)
{
	uint64_t seed = 0;
	int opt;

	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, NULL))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	while ((opt = getopt(argc, argv, "s:i:")) != -1) {
		if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 'i')
			trials = (unsigned)strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (t_attach(NULL, 0, (size_t)n * AREA))
		return 1;
	/* Rank 0's seed (from the clock unless -s) for every rank. */
	if (me == 0) {
		if (!seed)
			seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
		*(uint64_t *)pgas_segment_addr(0) = seed;
		printf("# seed %llu (replay: -s %llu)\n", (unsigned long long)seed,
		       (unsigned long long)seed);
		fflush(stdout);
	}
	pgas_barrier(1, 0);
	T_EQ(pgas_get(&seed, 0, pgas_segment_addr(0), 8), 0);
	pgas_barrier(2, 0);
	rng = seed * 0x9E3779B97F4A7C15ull + me + 1;
	test_random_strided();
	test_random_lists();
	test_empty_and_one();
	test_runs();
	test_segment_edges();
	test_refusals();
	test_threads();
	t_done();
}
