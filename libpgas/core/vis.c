// SPDX-License-Identifier: MIT
/*
 * vis.c - non-contiguous RMA (pgas_vis.h): strided, indexed and vector
 * put/get in their blocking, _nb and _nbi forms, and pgas_iput/iget.
 *
 * Every call is described once (struct vis_call: its name, direction and
 * form), checked in full, then copied by one walker and finished by the
 * same steps as pgas_put/pgas_get (pgas_fast.h): a get's acquire fence
 * before the copy, a put's release fence after it, the handle, and the
 * gone-peer check.  The walkers hand each contiguous run to a sink that
 * joins runs adjacent on both sides, so a run is one memcpy from the
 * source straight into the mapped target: nothing is packed.
 *
 * Addresses being walked are uintptr_t: a negative stride or the step
 * back at the end of a dimension is unsigned arithmetic, defined where
 * pointer arithmetic outside an object would not be.
 */
#include "internal.h"

enum vis_form { VIS_BLOCKING, VIS_NB, VIS_NBI };

struct vis_call {
	const char *call;
	unsigned char get;	/* the remote side is the source */
	unsigned char form;	/* enum vis_form */
	pgas_handle_t *handle;	/* VIS_NB */
};

/* Each thread's count of memcpy calls in its last transfer (tests read it). */
_Thread_local size_t pgas__vis_last_runs;

/* ---- the copy ------------------------------------------------------------ */

/*
 * The pending contiguous run: grows while the next one follows it on both
 * sides.  To a rank not mapped here (ref), each run is a transfer of the
 * remote path (rma_ref.c), all in one batch; rc: the first that failed.
 */
struct vis_sink {
	uintptr_t d, s;
	size_t n, runs, bytes;
	struct pgas__ref_batch *ref;
	unsigned rank;
	int get;
	int rc;
};

static void sink_flush(struct vis_sink *k)
{
	if (!k->n)
		return;
	if (k->ref) {
		if (!k->rc)
			k->rc = pgas__ref_batch_add(k->ref, k->get, k->rank,
						    (void *)(k->get ? k->s : k->d),
						    (void *)(k->get ? k->d : k->s), k->n);
	} else {
		pgas__copy((void *)k->d, (const void *)k->s, k->n);
	}
	k->runs++;
	k->bytes += k->n;
	k->n = 0;
}

static inline void sink_add(struct vis_sink *k, uintptr_t d, uintptr_t s, size_t n)
{
	if (k->n && d == k->d + k->n && s == k->s + k->n) {
		k->n += n;
		return;
	}
	sink_flush(k);
	k->d = d;
	k->s = s;
	k->n = n;
}

/*
 * The remote side's translation: the mapping here, or for a rank not
 * mapped here the address itself once it is inside the rank's segment or
 * region (its runs then go to the remote path).
 */
static int vis_map(unsigned rank, uintptr_t addr, size_t n, char **out)
{
	if (pgas__rank_mapped(rank))
		return pgas__map(rank, (void *)addr, n, out);
	*out = (char *)addr;
	return pgas__ref_in_bounds(rank, (void *)addr, n);
}

/* Rank's segment as an error names it, mapped here or not. */
static void seg_of(unsigned rank, char **seg, size_t *size)
{
	char *reg;
	size_t reg_size;

	pgas__ref_bounds(rank, seg, size, &reg, &reg_size);
}

/* Before the copy: a batch of the remote path for a rank not mapped here. */
static int vis_remote(const struct vis_call *c, unsigned rank, struct vis_sink *k)
{
	int rc = PGAS_OK;

	if (pgas__rank_mapped(rank))
		return PGAS_OK;
	k->rank = rank;
	k->get = c->get;
	k->ref = pgas__ref_batch_start(&pgas__g, c->call, c->get, c->form, rank, &rc);
	return rc;
}

/* Before the checks pass: rank and, for _nb, the handle. */
static int vis_begin(const struct vis_call *c, unsigned rank)
{
	int rc = pgas__check_rank(c->call, rank);

	if (!rc && c->form == VIS_NB && !c->handle)
		rc = pgas__err(PGAS_ERR_INVAL, c->call, "handle is NULL");
	return rc;
}

/* After the copy (or none, for an empty transfer): as pgas_put/pgas_get. */
static int vis_finish(const struct vis_call *c, unsigned rank, struct vis_sink *k)
{
	sink_flush(k);
	pgas__vis_last_runs = k->runs;
	if (k->ref)	/* the form's completion: vis_form is PGAS__REF_*'s order */
		return pgas__ref_batch_end(k->ref, c->call, rank, k->rc, c->handle);
	if (c->form == VIS_NB)
		*c->handle = PGAS_HANDLE_DONE;
	if (!c->get && c->form == VIS_BLOCKING)
		PGAS__FENCE(memory_order_release);
	/* A put_nbi to a rank that has gone is discarded without a report. */
	if (!c->get && c->form == VIS_NBI)
		return PGAS_OK;
	return pgas__rma_check_dir(&pgas__g, c->call, rank, c->get ? PGAS__RMA_GET : 0);
}

/* The same, noted for PGAS_STATS and PGAS_TRACE: the call and its bytes. */
static int vis_end(const struct vis_call *c, unsigned rank, struct vis_sink *k)
{
	bool remote = k->ref;
	int rc = vis_finish(c, rank, k);

	return pgas__ev_ok(rc, c->get ? (remote ? PGAS__EV_VIS_GET_REMOTE : PGAS__EV_VIS_GET_MAPPED)
				      : (remote ? PGAS__EV_VIS_PUT_REMOTE : PGAS__EV_VIS_PUT_MAPPED),
			   rank, k->bytes);
}

static void vis_acquire(const struct vis_call *c)
{
	if (c->get && c->form == VIS_BLOCKING)
		PGAS__FENCE(memory_order_acquire);
}

/* ---- strided ------------------------------------------------------------- */

struct strided {
	size_t elemsz, levels;
	const size_t *count;
	uintptr_t addr[2];		/* [0] destination, [1] source */
	const ptrdiff_t *strides[2];
};

static const char *const side_name[2] = { "dst", "src" };

/*
 * How far side's elements reach below and above its base address (above
 * includes the last element's bytes), or PGAS_ERR_SIZE if that overflows.
 */
static int strided_extent(const struct vis_call *c, const struct strided *t, int side,
			  size_t *below, size_t *above)
{
	size_t lo = 0, hi = t->elemsz;

	for (size_t i = 0; i < t->levels; i++) {
		ptrdiff_t st = t->strides[side][i];
		size_t mag = st < 0 ? -(size_t)st : (size_t)st, ext;
		size_t *end = st < 0 ? &lo : &hi;

		if (__builtin_mul_overflow(mag, t->count[i] - 1, &ext) ||
		    __builtin_add_overflow(*end, ext, end))
			return pgas__err(PGAS_ERR_SIZE, c->call,
					 "%sstrides[%zu] = %td over count[%zu] = %zu elements: the extent overflows size_t",
					 side_name[side], i, st, i, t->count[i]);
	}
	if (__builtin_add_overflow(lo, hi, &hi))
		return pgas__err(PGAS_ERR_SIZE, c->call, "the %s footprint overflows size_t",
				 side_name[side]);
	*below = lo;
	*above = hi - lo;
	return PGAS_OK;
}

/*
 * Checks one side's whole footprint: inside rank's segment if it is the
 * remote side (whose address becomes the local mapping's), else not NULL
 * and not wrapping around the address space.
 */
static int strided_side(const struct vis_call *c, unsigned rank, struct strided *t, int side)
{
	uintptr_t base = t->addr[side], lo;
	size_t below = 0, above = 0;
	char *mapped;
	int rc;

	if (t->levels && !t->strides[side])
		return pgas__err(PGAS_ERR_INVAL, c->call, "%sstrides is NULL (stridelevels %zu)",
				 side_name[side], t->levels);
	rc = strided_extent(c, t, side, &below, &above);
	if (rc)
		return rc;
	lo = base - below;
	if (side == c->get) {	/* the remote side */
		char *seg;
		size_t seg_size;

		seg_of(rank, &seg, &seg_size);
		if (base < below || !vis_map(rank, lo, below + above, &mapped))
			return pgas__err(PGAS_ERR_BOUNDS, c->call,
					 "%s's elements span [%p, +%zu) (%s %p), outside rank %u's segment [%p, +%zu): nothing copied",
					 side_name[side], (void *)lo, below + above, side_name[side],
					 (void *)base, rank, (void *)seg, seg_size);
		t->addr[side] = (uintptr_t)mapped + below;
	} else if (!base) {
		return pgas__err(PGAS_ERR_INVAL, c->call, "%s is NULL with a non-empty transfer",
				 side_name[side]);
	} else if (base < below || lo + (below + above) < lo) {
		return pgas__err(PGAS_ERR_INVAL, c->call,
				 "%s's elements span [%p, +%zu) (%s %p): around the end of the address space",
				 side_name[side], (void *)lo, below + above, side_name[side],
				 (void *)base);
	}
	return PGAS_OK;
}

/* The elements' total bytes (0: nothing to do), or PGAS_ERR_SIZE. */
static int strided_total(const struct vis_call *c, const struct strided *t, size_t *total)
{
	size_t n = t->elemsz;

	for (size_t i = 0; i < t->levels; i++)
		if (!t->count[i]) {
			*total = 0;
			return PGAS_OK;
		}
	for (size_t i = 0; i < t->levels; i++)
		if (__builtin_mul_overflow(n, t->count[i], &n))
			return pgas__err(PGAS_ERR_SIZE, c->call,
					 "elemsz %zu times count[0..%zu] overflows size_t", t->elemsz,
					 i);
	*total = n;
	return PGAS_OK;
}

/*
 * Walks the index space, dimension 0 fastest, after dropping dimensions of
 * one element and merging a dimension into the next where the next one's
 * strides are this one's times its count on both sides; dimension 0 with
 * both strides equal to the element size becomes the contiguous run.  A
 * contiguous array is one run.
 */
static void strided_copy(const struct strided *t, struct vis_sink *k)
{
	size_t cnt[PGAS_VIS_MAX_STRIDELEVELS], idx[PGAS_VIS_MAX_STRIDELEVELS] = { 0 };
	uintptr_t st[2][PGAS_VIS_MAX_STRIDELEVELS], back[2][PGAS_VIS_MAX_STRIDELEVELS];
	uintptr_t a[2] = { t->addr[0], t->addr[1] };
	size_t nd = 0, run = t->elemsz, k0 = 0;

	for (size_t i = 0; i < t->levels; i++) {
		ptrdiff_t merged[2];

		if (t->count[i] == 1)
			continue;
		if (nd && !__builtin_mul_overflow((ptrdiff_t)st[0][nd - 1], (ptrdiff_t)cnt[nd - 1],
						  &merged[0]) &&
		    !__builtin_mul_overflow((ptrdiff_t)st[1][nd - 1], (ptrdiff_t)cnt[nd - 1],
					    &merged[1]) &&
		    merged[0] == t->strides[0][i] && merged[1] == t->strides[1][i]) {
			cnt[nd - 1] *= t->count[i];	/* fits: the total did */
			continue;
		}
		cnt[nd] = t->count[i];
		st[0][nd] = (uintptr_t)t->strides[0][i];
		st[1][nd] = (uintptr_t)t->strides[1][i];
		nd++;
	}
	if (nd && st[0][0] == run && st[1][0] == run) {
		run *= cnt[0];
		k0 = 1;
	}
	for (size_t i = k0; i < nd; i++)
		for (int s = 0; s < 2; s++)
			back[s][i] = st[s][i] * (cnt[i] - 1);
	for (;;) {
		size_t i = k0;

		sink_add(k, a[0], a[1], run);
		while (i < nd && ++idx[i] == cnt[i]) {
			idx[i] = 0;
			a[0] -= back[0][i];
			a[1] -= back[1][i];
			i++;
		}
		if (i == nd)
			return;
		a[0] += st[0][i];
		a[1] += st[1][i];
	}
}

static int strided(const struct vis_call *c, unsigned rank, void *dst,
		   const ptrdiff_t *dststrides, const void *src, const ptrdiff_t *srcstrides,
		   size_t elemsz, const size_t *count, size_t stridelevels)
{
	struct strided t = { elemsz, stridelevels, count, { (uintptr_t)dst, (uintptr_t)src },
			     { dststrides, srcstrides } };
	struct vis_sink k = { 0 };
	size_t total = 0;
	int rc = vis_begin(c, rank);

	if (rc)
		return rc;
	if (stridelevels > PGAS_VIS_MAX_STRIDELEVELS)
		return pgas__err(PGAS_ERR_INVAL, c->call, "stridelevels %zu (at most %d)",
				 stridelevels, PGAS_VIS_MAX_STRIDELEVELS);
	if (!elemsz)
		return pgas__err(PGAS_ERR_INVAL, c->call, "elemsz is 0");
	if (stridelevels && !count)
		return pgas__err(PGAS_ERR_INVAL, c->call, "count is NULL (stridelevels %zu)",
				 stridelevels);
	rc = strided_total(c, &t, &total);
	if (!rc && total)
		rc = strided_side(c, rank, &t, 0);
	if (!rc && total)
		rc = strided_side(c, rank, &t, 1);
	if (rc)
		return rc;
	vis_acquire(c);
	if (total && (rc = vis_remote(c, rank, &k)))
		return rc;
	if (total)
		strided_copy(&t, &k);
	return vis_end(c, rank, &k);
}

/* ---- indexed and vector -------------------------------------------------- */

/* A list of regions: a vector's, or an indexed one's (len each). */
struct vis_list {
	size_t count;
	const pgas_memvec_t *vec;
	const void *const *addrs;
	size_t len;
	const char *name;	/* "dstlist" or "srclist" */
};

static size_t region(const struct vis_list *l, size_t i, uintptr_t *addr)
{
	if (l->vec) {
		*addr = (uintptr_t)l->vec[i].addr;
		return l->vec[i].len;
	}
	*addr = (uintptr_t)l->addrs[i];
	return l->len;
}

/*
 * Checks every region of one side and counts its bytes into *total: each
 * inside rank's segment if it is the remote side, else not NULL.
 */
static int list_side(const struct vis_call *c, unsigned rank, const struct vis_list *l,
		     int remote, size_t *total)
{
	char *mapped, *seg;
	size_t seg_size;

	seg_of(rank, &seg, &seg_size);
	*total = 0;
	if (l->count && !l->vec && !l->addrs)
		return pgas__err(PGAS_ERR_INVAL, c->call, "%s is NULL with %zu regions", l->name,
				 l->count);
	for (size_t i = 0; i < l->count; i++) {
		uintptr_t a;
		size_t n = region(l, i, &a);

		if (!n)
			continue;
		if (__builtin_add_overflow(*total, n, total))
			return pgas__err(PGAS_ERR_SIZE, c->call,
					 "%s's lengths overflow size_t at region %zu", l->name, i);
		if (remote && !vis_map(rank, a, n, &mapped))
			return pgas__err(PGAS_ERR_BOUNDS, c->call,
					 "%s[%zu] = [%p, +%zu) is outside rank %u's segment [%p, +%zu): nothing copied",
					 l->name, i, (void *)a, n, rank, (void *)seg, seg_size);
		if (!remote && !a)
			return pgas__err(PGAS_ERR_INVAL, c->call, "%s[%zu] is NULL (%zu bytes)",
					 l->name, i, n);
	}
	return PGAS_OK;
}

/*
 * Fills the destination's regions in order with the source's bytes in
 * order.  The lists are read again here, after list_side: a list that a
 * destination region overlaps (or that another thread changes) may hold
 * other entries by now, so each remote region is mapped again (one compare)
 * and neither list is read past its count.  A list that changed stops the
 * copy with PGAS_ERR_INVAL (what was copied stays): never a byte outside
 * the segment.
 */
static int list_copy(const struct vis_call *c, unsigned rank, const struct vis_list *l,
		     size_t total, struct vis_sink *k)
{
	size_t at[2] = { 0, 0 }, off[2] = { 0, 0 }, len[2] = { 0, 0 };
	uintptr_t a[2] = { 0, 0 };

	while (total) {
		size_t n;

		for (int s = 0; s < 2; s++)
			while (off[s] == len[s]) {
				char *mapped;

				if (at[s] == l[s].count)
					goto changed;
				len[s] = region(&l[s], at[s]++, &a[s]);
				off[s] = 0;
				if (!len[s])
					continue;
				if (s == c->get) {
					if (!vis_map(rank, a[s], len[s], &mapped))
						goto changed;
					a[s] = (uintptr_t)mapped;
				} else if (!a[s]) {
					goto changed;
				}
			}
		n = len[0] - off[0] < len[1] - off[1] ? len[0] - off[0] : len[1] - off[1];
		sink_add(k, a[0] + off[0], a[1] + off[1], n);
		off[0] += n;
		off[1] += n;
		total -= n;
	}
	return PGAS_OK;
changed:
	sink_flush(k);
	return pgas__err(PGAS_ERR_INVAL, c->call,
			 "the lists changed during the call (does a destination region overlap one?): "
			 "stopped with %zu bytes left to copy", total);
}

/* l[0]: the destination's regions, l[1]: the source's. */
static int lists(const struct vis_call *c, unsigned rank, const struct vis_list *l)
{
	size_t total[2];
	struct vis_sink k = { 0 };
	int rc = vis_begin(c, rank);

	for (int s = 0; s < 2 && !rc; s++)
		rc = list_side(c, rank, &l[s], s == c->get, &total[s]);
	if (rc)
		return rc;
	if (total[0] != total[1])
		return pgas__err(PGAS_ERR_INVAL, c->call,
				 "dstlist holds %zu bytes, srclist %zu: they must be equal", total[0],
				 total[1]);
	vis_acquire(c);
	if (total[0] && (rc = vis_remote(c, rank, &k)))
		return rc;
	rc = list_copy(c, rank, l, total[0], &k);
	if (rc && k.ref)	/* what was issued completes first */
		(void)pgas__ref_batch_end(k.ref, c->call, rank, rc, NULL);
	if (rc)
		return rc;
	return vis_end(c, rank, &k);
}

static int indexed(const struct vis_call *c, unsigned rank, size_t dstcount,
		   void *const *dstlist, size_t dstlen, size_t srccount,
		   const void *const *srclist, size_t srclen)
{
	const struct vis_list l[2] = {
		{ dstcount, NULL, (const void *const *)dstlist, dstlen, "dstlist" },
		{ srccount, NULL, srclist, srclen, "srclist" },
	};

	return lists(c, rank, l);
}

static int vector(const struct vis_call *c, unsigned rank, size_t dstcount,
		  const pgas_memvec_t *dstlist, size_t srccount, const pgas_memvec_t *srclist)
{
	const struct vis_list l[2] = {
		{ dstcount, dstlist, NULL, 0, "dstlist" },
		{ srccount, srclist, NULL, 0, "srclist" },
	};

	return lists(c, rank, l);
}

/* ---- the API: each call's three forms over one implementation ------------- */

#define VIS_ARGS(...) __VA_ARGS__
#define VIS_FORMS(impl, get, name, params, args)					\
	int name(VIS_ARGS params)							\
	{										\
		return impl(&(struct vis_call){ #name, get, VIS_BLOCKING, NULL },	\
			    VIS_ARGS args);						\
	}										\
	int name##_nb(pgas_handle_t *handle, VIS_ARGS params)				\
	{										\
		return impl(&(struct vis_call){ #name "_nb", get, VIS_NB, handle },	\
			    VIS_ARGS args);						\
	}										\
	int name##_nbi(VIS_ARGS params)							\
	{										\
		return impl(&(struct vis_call){ #name "_nbi", get, VIS_NBI, NULL },	\
			    VIS_ARGS args);						\
	}

VIS_FORMS(strided, 0, pgas_put_strided,
	  (unsigned rank, void *dst, const ptrdiff_t dststrides[], const void *src,
	   const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[], size_t stridelevels),
	  (rank, dst, dststrides, src, srcstrides, elemsz, count, stridelevels))
VIS_FORMS(strided, 1, pgas_get_strided,
	  (void *dst, const ptrdiff_t dststrides[], unsigned rank, const void *src,
	   const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[], size_t stridelevels),
	  (rank, dst, dststrides, src, srcstrides, elemsz, count, stridelevels))
VIS_FORMS(indexed, 0, pgas_put_indexed,
	  (unsigned rank, size_t dstcount, void *const dstlist[], size_t dstlen, size_t srccount,
	   const void *const srclist[], size_t srclen),
	  (rank, dstcount, dstlist, dstlen, srccount, srclist, srclen))
VIS_FORMS(indexed, 1, pgas_get_indexed,
	  (size_t dstcount, void *const dstlist[], size_t dstlen, unsigned rank, size_t srccount,
	   const void *const srclist[], size_t srclen),
	  (rank, dstcount, dstlist, dstlen, srccount, srclist, srclen))
VIS_FORMS(vector, 0, pgas_put_vector,
	  (unsigned rank, size_t dstcount, const pgas_memvec_t dstlist[], size_t srccount,
	   const pgas_memvec_t srclist[]),
	  (rank, dstcount, dstlist, srccount, srclist))
VIS_FORMS(vector, 1, pgas_get_vector,
	  (size_t dstcount, const pgas_memvec_t dstlist[], unsigned rank, size_t srccount,
	   const pgas_memvec_t srclist[]),
	  (rank, dstcount, dstlist, srccount, srclist))

/*
 * shmem_iput/iget: one level, strides in elements turned into bytes.  The
 * strides only separate elements: with 0 or 1 element they are not read
 * (as strided's junk strides on a count of 1), and an elemsz over
 * PTRDIFF_MAX with 2 or more is strided's overflowing total.  The rank
 * first, as every call.
 */
static int istrided(const struct vis_call *c, unsigned rank, void *dst, ptrdiff_t dst_stride,
		    const void *src, ptrdiff_t src_stride, size_t elemsz, size_t nelems)
{
	ptrdiff_t ds = 0, ss = 0;
	int rc = vis_begin(c, rank);

	if (rc)
		return rc;
	if (nelems > 1 && elemsz <= PTRDIFF_MAX &&
	    (__builtin_mul_overflow(dst_stride, (ptrdiff_t)elemsz, &ds) ||
	     __builtin_mul_overflow(src_stride, (ptrdiff_t)elemsz, &ss)))
		return pgas__err(PGAS_ERR_SIZE, c->call,
				 "dst_stride %td or src_stride %td elements of %zu bytes overflow ptrdiff_t",
				 dst_stride, src_stride, elemsz);
	return strided(c, rank, dst, &ds, src, &ss, elemsz, &nelems, 1);
}

int pgas_iput(unsigned rank, void *dst, ptrdiff_t dst_stride, const void *src,
	      ptrdiff_t src_stride, size_t elemsz, size_t nelems)
{
	return istrided(&(struct vis_call){ "pgas_iput", 0, VIS_BLOCKING, NULL }, rank, dst,
			dst_stride, src, src_stride, elemsz, nelems);
}

int pgas_iget(void *dst, ptrdiff_t dst_stride, unsigned rank, const void *src,
	      ptrdiff_t src_stride, size_t elemsz, size_t nelems)
{
	return istrided(&(struct vis_call){ "pgas_iget", 1, VIS_BLOCKING, NULL }, rank, dst,
			dst_stride, src, src_stride, elemsz, nelems);
}
