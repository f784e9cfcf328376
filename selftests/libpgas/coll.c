// SPDX-License-Identifier: MIT
/*
 * coll - conformance of teams and collectives.
 *
 * Every operation in every address mode (single; local with buffers in the
 * segment; local with private buffers, which the library stages), every
 * synchronisation mode and every algorithm the selector offers for the
 * team size (radices 2-4, the 8 KiB pipeline segment), at sizes 0, 1,
 * around the pipeline segment and several MiB, with roots other than 0;
 * results are compared with a serial reference computed from the same
 * deterministic inputs.  Then streams of 40 non-blocking calls back to
 * back (ranks run ahead, eager slots wrap, sizes change between streams),
 * sub-teams, concurrent collectives on disjoint teams, non-blocking calls
 * overlapped with computation, every reduction type and operation, a
 * non-commutative user operation, and misuse.  With PGAS_COLL_DEBUG=1 it
 * also checks that members passing different sizes or roots all get an
 * error.
 *
 *   pgasrun -n N build/tests/coll [quick]
 */
#include <errno.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define SRC_OFF 0
#define AREA ((size_t)24 << 20)
#define DST_OFF AREA
#define SEG (2 * AREA)

static unsigned me, n;
static char *priv_src, *priv_dst;
static unsigned ncase;
static bool quick;

enum mode { M_SINGLE, M_LOCAL_SEG, M_LOCAL_PRIV, M_NMODES };
static const char *const mode_names[] = { "single", "local", "local-private" };
static const unsigned syncs[] = {
	PGAS_COLL_NOSYNC, PGAS_COLL_MYSYNC, PGAS_COLL_ALLSYNC,
	PGAS_COLL_IN_NOSYNC | PGAS_COLL_OUT_ALLSYNC,
};

struct team_view {
	pgas_team_t t;
	unsigned size, rank;
	unsigned job[64];
};

static struct team_view view_of(pgas_team_t t)
{
	struct team_view v = { t, pgas_team_size(t), pgas_team_rank(t), { 0 } };

	for (unsigned i = 0; i < v.size; i++)
		pgas_team_to_job(t, i, &v.job[i]);
	return v;
}

static char *seg_at(unsigned job_rank, size_t off)
{
	return (char *)pgas_segment_addr(job_rank) + off;
}

/* ---- reference data -------------------------------------------------------------- */

static uint64_t seed_of(unsigned id, unsigned r, unsigned b)
{
	return (uint64_t)id * 1000003u + r * 1009u + b + 1;
}

static const size_t tsize[] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 16 };

/* Element i of team rank r's source: small values keep float results exact. */
static void elem_val(pgas_type_t ty, pgas_op_t op, unsigned r, size_t i, unsigned id, void *out)
{
	uint64_t x = seed_of(id, r, 0) * 31 + i * 7;
	int64_t v = op == PGAS_OP_PROD ? (int64_t)(x % 3 == 0 ? 2 : 1)
				       : (int64_t)(x % 61) - (ty == PGAS_UINT8 || ty == PGAS_UINT16 ||
							     ty == PGAS_UINT32 || ty == PGAS_UINT64 ? 0 : 20);

	union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
		int64_t i64; uint64_t u64; float f; double d; uint64_t ab[2]; } u;

	switch (ty) {	/* buffers may be unaligned: build, then copy */
	case PGAS_INT8: u.i8 = (int8_t)v; break;
	case PGAS_UINT8: u.u8 = (uint8_t)v; break;
	case PGAS_INT16: u.i16 = (int16_t)v; break;
	case PGAS_UINT16: u.u16 = (uint16_t)v; break;
	case PGAS_INT32: u.i32 = (int32_t)v; break;
	case PGAS_UINT32: u.u32 = (uint32_t)v; break;
	case PGAS_INT64: u.i64 = v * 1000000007ll; break;
	case PGAS_UINT64: u.u64 = (uint64_t)v * 1000000007ull; break;
	case PGAS_FLOAT: u.f = (float)v; break;
	case PGAS_DOUBLE: u.d = (double)v; break;
	default:	/* user: an affine map x -> a*x + b over uint64 */
		u.ab[0] = x % 5 + 1;
		u.ab[1] = x % 11;
	}
	memcpy(out, &u, ty == PGAS_TYPE_USER ? 16 : tsize[ty]);
}

/* Affine composition, applied lower rank first: non-commutative. */
static void affine(void *inout, const void *in, size_t count, void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < count; i++) {
		uint64_t f[2], g[2];

		memcpy(f, (char *)inout + 16 * i, 16);
		memcpy(g, (const char *)in + 16 * i, 16);
		uint64_t h[2] = { g[0] * f[0], g[0] * f[1] + g[1] };	/* g(f(x)) */

		memcpy((char *)inout + 16 * i, h, 16);
	}
}

static pgas_op_t affine_op;

#define RED(T)									\
	do {									\
		T x, y;								\
		memcpy(&x, acc, sizeof(T));					\
		memcpy(&y, in, sizeof(T));					\
		switch (op) {							\
		case PGAS_OP_SUM: x = (T)(x + y); break;			\
		case PGAS_OP_PROD: x = (T)(x * y); break;			\
		case PGAS_OP_MIN: x = y < x ? y : x; break;			\
		case PGAS_OP_MAX: x = y > x ? y : x; break;			\
		}								\
		memcpy(acc, &x, sizeof(T));					\
	} while (0)
#define BITRED(T)								\
	do {									\
		T x, y;								\
		memcpy(&x, acc, sizeof(T));					\
		memcpy(&y, in, sizeof(T));					\
		if (op == PGAS_OP_AND) x &= y;					\
		else if (op == PGAS_OP_OR) x |= y;				\
		else if (op == PGAS_OP_XOR) x ^= y;				\
		else { RED(T); break; }						\
		memcpy(acc, &x, sizeof(T));					\
	} while (0)

/* Serial reference of one element: acc = acc op in. */
static void ref_combine(pgas_type_t ty, pgas_op_t op, void *acc, const void *in)
{
	switch (ty) {
	case PGAS_INT8: BITRED(uint8_t); break;
	case PGAS_UINT8: BITRED(uint8_t); break;
	case PGAS_INT16: BITRED(uint16_t); break;
	case PGAS_UINT16: BITRED(uint16_t); break;
	case PGAS_INT32: BITRED(uint32_t); break;
	case PGAS_UINT32: BITRED(uint32_t); break;
	case PGAS_INT64: BITRED(uint64_t); break;
	case PGAS_UINT64: BITRED(uint64_t); break;
	case PGAS_FLOAT: RED(float); break;
	case PGAS_DOUBLE: RED(double); break;
	default: affine(acc, in, 1, NULL);
	}
}

/* min / max on signed types need signed compares */
static void ref_combine_signed(pgas_type_t ty, pgas_op_t op, void *acc, const void *in)
{
	if (op != PGAS_OP_MIN && op != PGAS_OP_MAX) {
		ref_combine(ty, op, acc, in);
		return;
	}
	switch (ty) {
	case PGAS_INT8: RED(int8_t); break;
	case PGAS_INT16: RED(int16_t); break;
	case PGAS_INT32: RED(int32_t); break;
	case PGAS_INT64: RED(int64_t); break;
	default: ref_combine(ty, op, acc, in);
	}
}

/* ---- one case ------------------------------------------------------------------------ */

struct ccase {
	int kind;
	enum mode mode;
	unsigned flags, root;
	size_t count;			/* bytes, or elements */
	pgas_type_t type;
	pgas_op_t op;
	unsigned misalign;
	const char *spec;		/* NULL: the tuner's choice */
	bool root_in_place;		/* broadcast: the root passes dst == src */
};

static bool is_red(int kind)
{
	return kind == PGAS_COLL_REDUCE || kind == PGAS_COLL_REDUCE_ALL || kind == PGAS_COLL_SCAN;
}

static unsigned src_blocks(int kind, const struct team_view *v, unsigned r, unsigned root)
{
	if (kind == PGAS_COLL_BROADCAST)
		return r == root;
	if (kind == PGAS_COLL_SCATTER)
		return r == root ? v->size : 0;
	return kind == PGAS_COLL_EXCHANGE ? v->size : 1;
}

static unsigned dst_blocks(int kind, const struct team_view *v, unsigned r, unsigned root)
{
	if (kind == PGAS_COLL_GATHER)
		return r == root ? v->size : 0;
	if (kind == PGAS_COLL_REDUCE)
		return r == root;
	return kind == PGAS_COLL_EXCHANGE || kind == PGAS_COLL_GATHER_ALL ? v->size : 1;
}

/* Fills team rank r's source block b (as it would be) into buf. */
static void make_src(const struct ccase *c, unsigned r, unsigned b, size_t nb, unsigned id,
		     char *buf)
{
	if (!is_red(c->kind)) {
		t_fill(buf, nb, seed_of(id, r, b));
		return;
	}
	size_t es = c->type == PGAS_TYPE_USER ? 16 : tsize[c->type];

	for (size_t i = 0; i < c->count; i++)
		elem_val(c->type, c->op, r, i, id, buf + i * es);
}

static int call(const struct ccase *c, struct team_view *v, pgas_coll_handle_t *h, char *dst,
		const char *src, void **dl, const void **sl)
{
	pgas_team_t t = v->t;
	size_t k = c->count;
	unsigned f = c->flags, root = c->root;
	bool s = c->mode == M_SINGLE;

#define CALL(name, ...) (h ? pgas_##name##_nb(h, __VA_ARGS__) : pgas_##name(__VA_ARGS__))
	switch (c->kind) {
	case PGAS_COLL_BROADCAST:
		return s ? CALL(broadcast_single, t, root, dl, sl[root], k, f)
			 : CALL(broadcast, t, root, dst, src, k, f);
	case PGAS_COLL_SCATTER:
		return s ? CALL(scatter_single, t, root, dl, sl[root], k, f)
			 : CALL(scatter, t, root, dst, src, k, f);
	case PGAS_COLL_GATHER:
		return s ? CALL(gather_single, t, root, dl[root], sl, k, f)
			 : CALL(gather, t, root, dst, src, k, f);
	case PGAS_COLL_GATHER_ALL:
		return s ? CALL(gather_all_single, t, dl, sl, k, f) : CALL(gather_all, t, dst, src, k, f);
	case PGAS_COLL_EXCHANGE:
		return s ? CALL(exchange_single, t, dl, sl, k, f) : CALL(exchange, t, dst, src, k, f);
	case PGAS_COLL_REDUCE:
		return s ? CALL(reduce_single, t, root, dl[root], sl, k, c->type, c->op, f)
			 : CALL(reduce, t, root, dst, src, k, c->type, c->op, f);
	case PGAS_COLL_REDUCE_ALL:
		return s ? CALL(reduce_all_single, t, dl, sl, k, c->type, c->op, f)
			 : CALL(reduce_all, t, dst, src, k, c->type, c->op, f);
	case PGAS_COLL_SCAN:
		return s ? CALL(scan_single, t, dl, sl, k, c->type, c->op, f)
			 : CALL(scan, t, dst, src, k, c->type, c->op, f);
	}
#undef CALL
	return -100;
}

/* Checks my destination against the serial reference; returns mismatches. */
static unsigned verify(const struct ccase *c, struct team_view *v, const char *dst, size_t nb,
		       unsigned id)
{
	unsigned bad = 0, me_t = v->rank, nd = dst_blocks(c->kind, v, me_t, c->root);

	if (!is_red(c->kind)) {
		for (unsigned b = 0; b < nd; b++) {
			unsigned from = 0, blk = 0;

			switch (c->kind) {
			case PGAS_COLL_BROADCAST: from = c->root; blk = 0; break;
			case PGAS_COLL_SCATTER: from = c->root; blk = me_t; break;
			case PGAS_COLL_GATHER:
			case PGAS_COLL_GATHER_ALL: from = b; blk = 0; break;
			case PGAS_COLL_EXCHANGE: from = b; blk = me_t; break;
			}
			size_t at = t_verify(dst + b * nb, nb, seed_of(id, from, blk));

			if (at != nb && bad++ < 3)
				fprintf(stderr, "# rank %u: block %u byte %zu of %zu differs\n", me,
					b, at, nb);
		}
		return bad;
	}
	if (!nd)
		return 0;
	size_t es = c->type == PGAS_TYPE_USER ? 16 : tsize[c->type];
	unsigned last = c->kind == PGAS_COLL_SCAN ? me_t : v->size - 1;
	char acc[16], in[16];

	for (size_t i = 0; i < c->count; i++) {
		elem_val(c->type, c->op, 0, i, id, acc);
		for (unsigned r = 1; r <= last; r++) {
			elem_val(c->type, c->op, r, i, id, in);
			ref_combine_signed(c->type, c->op, acc, in);
		}
		if (memcmp(acc, dst + i * es, es) && bad++ < 3)
			fprintf(stderr, "# rank %u: element %zu differs\n", me, i);
	}
	return bad;
}

/* The pages that hold [p, p + len). */
static void protect(char *p, size_t len, int prot)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p & ~(pg - 1);

	if (mprotect((void *)a, ((uintptr_t)p + len - a + pg - 1) & ~(pg - 1), prot))
		T_CHECK(0, "mprotect %p: %s", (void *)a, strerror(errno));
}

/* Runs one case on team v; returns the number of problems on this rank. */
static unsigned run(const struct ccase *c, struct team_view *v, bool nb)
{
	unsigned id = ++ncase, me_t = v->rank, root = c->root;
	size_t es = is_red(c->kind) ? (c->type == PGAS_TYPE_USER ? 16 : tsize[c->type]) : 1;
	size_t blk = c->count * es;
	unsigned ns = src_blocks(c->kind, v, me_t, root), nd = dst_blocks(c->kind, v, me_t, root);
	char *src, *dst;
	void *dl[64];
	const void *sl[64];
	unsigned bad = 0;
	int rc;

	if (c->mode == M_LOCAL_PRIV) {
		src = priv_src + c->misalign;
		dst = priv_dst + c->misalign;
	} else {
		src = seg_at(me, SRC_OFF + c->misalign);
		dst = seg_at(me, DST_OFF + c->misalign);
	}
	for (unsigned i = 0; i < v->size; i++) {
		sl[i] = seg_at(v->job[i], SRC_OFF + c->misalign);
		dl[i] = seg_at(v->job[i], DST_OFF + c->misalign);
	}
	for (unsigned b = 0; b < ns; b++)
		make_src(c, me_t, b, blk, id, src + b * blk);
	if (c->root_in_place && me_t == root) {	/* its bytes must stay */
		dst = src;
		memset(dst + blk, 0xee, 64);
		/* Private: read-only for the call, so that a write kills the rank. */
		if (c->mode == M_LOCAL_PRIV && blk)
			protect(src, blk, PROT_READ);
	} else {
		memset(dst, 0xee, nd * blk + 64);
	}
	if (c->spec && (rc = pgas_coll_force(v->t, c->kind, c->spec)))
		return 1;
	/* Everyone's source is ready before anyone may read it (NOSYNC). */
	pgas_team_barrier(v->t);
	if (nb) {
		pgas_coll_handle_t h;

		rc = call(c, v, &h, dst, src, dl, sl);
		if (!rc)
			rc = pgas_coll_wait(h);
	} else {
		rc = call(c, v, NULL, dst, src, dl, sl);
	}
	if (c->root_in_place && me_t == root && c->mode == M_LOCAL_PRIV && blk)
		protect(src, blk, PROT_READ | PROT_WRITE);
	/* NOSYNC: others may still be writing into my destination. */
	pgas_team_barrier(v->t);
	if (rc) {
		fprintf(stderr, "# rank %u: %s returned %d: %s\n", me,
			pgas_coll_kind_name(c->kind), rc, pgas_last_error());
		bad++;
	} else {
		bad += verify(c, v, dst, blk, id);
		if ((unsigned char)dst[nd * blk] != 0xee) {
			fprintf(stderr, "# rank %u: wrote past the destination\n", me);
			bad++;
		}
	}
	if (c->spec)
		pgas_coll_force(v->t, c->kind, NULL);
	if (bad)
		fprintf(stderr, "# rank %u: case %u: %s %s flags 0x%x root %u%s count %zu spec %s\n",
			me, id, pgas_coll_kind_name(c->kind), mode_names[c->mode], c->flags, root,
			c->root_in_place ? " (dst == src)" : "", c->count,
			c->spec ? c->spec : "(tuner)");
	return bad;
}

/* ---- the matrix ------------------------------------------------------------------------ */

static bool skip_spec(const char *s)
{
	/* One segment size (the smallest pipelines most) and radices 2-4
	 * (8 differs from flat only above 8 ranks). */
	return strstr(s, ":s65536") || strstr(s, ":s1048576") || strstr(s, ":r8");
}

/*
 * Whether spec runs the reference algorithm on the job's team where an
 * earlier spec of this kind already did: with PGAS_COLL_<KIND>=ref or a
 * member not mapped (PGAS_COLL_UNMAPPED=1) every spec is forced to "ref",
 * so the matrix would run that one algorithm once per candidate's name,
 * the same code again.  Once each is enough (roots, modes, syncs and sizes
 * still vary over its cases).  *seen: "ref" ran already.
 */
static bool ref_again(int kind, const char *spec, bool *seen)
{
	pgas_team_t all = pgas_team_all();
	char got[48] = "";
	bool ref;

	if (pgas_coll_force(all, (enum pgas_coll_kind)kind, spec))
		return false;	/* the case itself reports the refusal */
	ref = !pgas_coll_describe(all, (enum pgas_coll_kind)kind, 8193, got, sizeof(got)) &&
	      !strcmp(got, "ref");
	pgas_coll_force(all, (enum pgas_coll_kind)kind, NULL);
	if (!ref)
		return false;
	if (*seen)
		return true;
	*seen = true;
	return false;
}

static void matrix(int kind)
{
	static char specs[128][48];
	struct team_view v = view_of(pgas_team_all());
	unsigned ns = pgas_coll_candidates(kind, n, specs, 128);
	const size_t sizes[] = { 0, 1, 8191, 8192, 8193, 20011 };
	unsigned i = 0;
	bool ref_seen = false;

	for (unsigned a = 0; a < ns && a < 128; a++) {
		if (skip_spec(specs[a]) || ref_again(kind, specs[a], &ref_seen))
			continue;
		unsigned bad = 0;

		for (unsigned m = 0; m < M_NMODES; m++) {
			for (unsigned s = 0; s < 4; s++, i++) {
				struct ccase c = { kind, m, syncs[s], (i + 1) % n, 8193,
						   PGAS_INT32, PGAS_OP_SUM, i % 3, specs[a], false };

				if (is_red(kind))
					c.count = 2049;	/* elements: 8196 bytes */
				bad += run(&c, &v, i % 2);
			}
			/* The root in place (dst == src): its bytes stay, every
			 * other member gets them (the light path, eager, staged). */
			for (unsigned z = 0; kind == PGAS_COLL_BROADCAST && m != M_SINGLE && z < 3;
			     z++, i++) {
				struct ccase c = { kind, m, PGAS_COLL_MYSYNC, i % n,
						   (size_t[]){ 8, 1000, 20011 }[z], PGAS_INT32,
						   PGAS_OP_SUM, i % 3, specs[a], true };

				bad += run(&c, &v, i % 2);
			}
			if (quick)
				continue;
			for (unsigned z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++, i++) {
				struct ccase c = { kind, m, PGAS_COLL_MYSYNC, (i + 1) % n, sizes[z],
						   PGAS_INT32, PGAS_OP_SUM, i % 3, specs[a], false };

				if (is_red(kind))
					c.count = sizes[z] / 4 + (sizes[z] % 4 != 0);
				bad += run(&c, &v, i % 2);
			}
		}
		T_EQ(bad, 0);
		t_case("%s %s: every mode and sync, sizes 0..20011, roots vary",
		       pgas_coll_kind_name(kind), specs[a]);
	}
}

/*
 * Every algorithm on a team whose region was used before: a smaller team
 * (odd and even ranks) runs the same call with other data first and is
 * destroyed; the new team of every rank, in reversed order, takes the same
 * pool memory, and its first calls must see none of the old team's stamps,
 * counters or data.
 */
static void reused(int kind)
{
	static char specs[128][48];
	unsigned ns = pgas_coll_candidates(kind, n, specs, 128), bad = 0, cases = 0;
	const size_t sizes[] = { 8, 1000, 8193 };
	bool ref_seen = false;

	for (unsigned a = 0; a < ns && a < 128; a++) {
		if (skip_spec(specs[a]) || ref_again(kind, specs[a], &ref_seen))
			continue;
		for (unsigned z = 0; z < 3; z++) {
			for (unsigned m = 0; m < M_NMODES; m++, cases++) {
				pgas_team_t half = NULL, all = NULL;
				struct ccase c = { kind, m, PGAS_COLL_MYSYNC, 0, sizes[z], PGAS_INT64,
						   PGAS_OP_SUM, 0, NULL, false };

				if (is_red(kind))
					c.count = sizes[z] / 8 + 1;
				if (pgas_team_split(pgas_team_all(), (int)(me % 2), me, &half)) {
					bad++;
					continue;
				}
				struct team_view hv = view_of(half);

				bad += run(&c, &hv, m == 1);
				bad += pgas_team_destroy(half) != 0;
				if (pgas_team_split(pgas_team_all(), 0, n - me, &all)) {
					bad++;
					continue;
				}
				struct team_view av = view_of(all);

				c.spec = specs[a];
				c.root = n - 1;
				bad += run(&c, &av, m == 2);
				bad += pgas_team_destroy(all) != 0;
			}
		}
	}
	T_EQ(bad, 0);
	t_case("%s on a new team in a destroyed team's memory, every algorithm (%u cases)",
	       pgas_coll_kind_name(kind), cases);
}

/* Several MiB through the tuner's choice and through staging. */
static void big(int kind)
{
	struct team_view v = view_of(pgas_team_all());
	size_t per = kind == PGAS_COLL_BROADCAST || is_red(kind) ? ((size_t)3 << 20) + 5
		     : n <= 4 ? ((size_t)1 << 20) + 3 : ((size_t)256 << 10) + 3;
	unsigned bad = 0;

	for (unsigned m = 0; m < M_NMODES; m++) {
		struct ccase c = { kind, m, PGAS_COLL_MYSYNC, n - 1, per, PGAS_DOUBLE, PGAS_OP_SUM,
				   1, NULL, false };

		if (is_red(kind))
			c.count = per / 8;
		bad += run(&c, &v, m == 1);
		if (kind == PGAS_COLL_BROADCAST && m != M_SINGLE) {	/* the root in place */
			c.root_in_place = true;
			bad += run(&c, &v, m == 0);
		}
	}
	T_EQ(bad, 0);
	t_case("%s of %zu bytes per block, every address mode, tuner's choice",
	       pgas_coll_kind_name(kind), per);
}

static void types_and_ops(void)
{
	struct team_view v = view_of(pgas_team_all());
	const char *algs[3][3] = { { "tree:flat", "tree:knomial:r2:s64", "tree:kary:r2" },
				   { "flat", "tree:knomial:r3:put:s128", "tree:kary:r2:get" },
				   { "flat", "chain:s64", "chain:s8192" } };
	const int kinds[3] = { PGAS_COLL_REDUCE, PGAS_COLL_REDUCE_ALL, PGAS_COLL_SCAN };
	unsigned bad = 0;

	for (unsigned ty = 0; ty < PGAS_TYPE_USER; ty++)
		for (int op = 0; op < PGAS__NBUILTIN_OPS; op++) {
			if (op >= PGAS_OP_AND && (ty == PGAS_FLOAT || ty == PGAS_DOUBLE))
				continue;
			for (unsigned k = 0; k < 3; k++) {
				struct ccase c = { kinds[k], (ty + op) % M_NMODES, PGAS_COLL_MYSYNC,
						   (ty + 1) % n, 37, ty, op, (ty + op) % 3,
						   algs[k][(ty + op) % 3], false };

				bad += run(&c, &v, op % 2);
			}
		}
	T_EQ(bad, 0);
	t_case("reduce, reduce_all, scan: every type x every built-in op");
	bad = 0;
	for (unsigned k = 0; k < 3; k++)
		for (unsigned a = 0; a < 3; a++) {
			struct ccase c = { kinds[k], a, PGAS_COLL_MYSYNC, n / 2, 301, PGAS_TYPE_USER,
					   affine_op, a, algs[k][a], false };

			bad += run(&c, &v, a == 1);
		}
	T_EQ(bad, 0);
	t_case("non-commutative user operation combines in rank order (every algorithm)");
}

/* ---- teams -------------------------------------------------------------------------- */

static void teams(void)
{
	pgas_team_t half, rev, none;
	unsigned tr = 0, jr = 0;

	/* Odd and even ranks, keys reversing the order. */
	T_EQ(pgas_team_split(pgas_team_all(), (int)(me % 2), n - me, &half), 0);
	T_CHECK(half != NULL, "split gave no team");
	if (!half)
		return;
	T_EQ(pgas_team_size(half), (n + (me % 2 ? 0 : 1)) / 2);
	T_EQ(pgas_team_rank(half), (pgas_team_size(half) - 1) - me / 2);
	for (unsigned i = 0; i < pgas_team_size(half); i++) {
		T_EQ(pgas_team_to_job(half, i, &jr), 0);
		T_EQ(jr % 2, me % 2);
		T_EQ(pgas_team_from_job(half, jr, &tr), 0);
		T_EQ(tr, i);
	}
	if ((me ^ 1) < n)
		T_EQ(pgas_team_from_job(half, me ^ 1, &tr), PGAS_ERR_RANK);
	T_EQ(pgas_team_to_job(half, pgas_team_size(half), &jr), PGAS_ERR_RANK);
	t_case("split by colour and key; rank translation both ways");

	struct team_view v = view_of(half);
	unsigned bad = 0;
	const int kinds[] = { PGAS_COLL_BROADCAST, PGAS_COLL_GATHER_ALL, PGAS_COLL_EXCHANGE,
			      PGAS_COLL_REDUCE_ALL, PGAS_COLL_SCAN, PGAS_COLL_SCATTER };

	for (unsigned k = 0; k < 6; k++)
		for (unsigned m = 0; m < M_NMODES; m++) {
			struct ccase c = { kinds[k], m, syncs[m], v.size - 1, 4099, PGAS_INT64,
					   PGAS_OP_MAX, m, NULL, false };

			if (is_red(kinds[k]))
				c.count = 513;
			bad += run(&c, &v, m == 2);
		}
	T_EQ(bad, 0);
	t_case("collectives on sub-teams of odd and even ranks");

	/* Concurrent: both halves run non-blocking collectives at once, and
	 * each rank also keeps one on the whole job in flight. */
	bad = 0;
	for (unsigned iter = 0; iter < 20; iter++) {
		uint64_t mine[2] = { me + iter, me * 3 + iter }, sum[2] = { 0 }, all[64];
		pgas_coll_handle_t h[2];

		T_EQ(pgas_reduce_all_nb(&h[0], half, sum, mine, 2, PGAS_UINT64, PGAS_OP_SUM,
					PGAS_COLL_MYSYNC), 0);
		T_EQ(pgas_gather_all_nb(&h[1], pgas_team_all(), all, &mine[0], 8,
					PGAS_COLL_MYSYNC), 0);
		T_EQ(pgas_coll_wait_all(h, 2), 0);
		uint64_t want[2] = { 0, 0 };

		for (unsigned r = me % 2; r < n; r += 2) {
			want[0] += r + iter;
			want[1] += r * 3 + iter;
		}
		bad += sum[0] != want[0] || sum[1] != want[1];
		for (unsigned r = 0; r < n; r++)
			bad += all[r] != r + iter;
	}
	T_EQ(bad, 0);
	t_case("concurrent non-blocking collectives on disjoint teams and the job");

	/* Nested split, NO_COLOUR, destroy, slots freed again. */
	T_EQ(pgas_team_split(half, me == 0 ? PGAS_TEAM_NO_COLOUR : 7, me, &none), 0);
	T_CHECK((me == 0) == (none == NULL), "NO_COLOUR rank got a team or a member did not");
	if (none) {
		T_EQ(pgas_team_barrier(none), 0);
		T_EQ(pgas_team_destroy(none), 0);
	}
	T_EQ(pgas_team_destroy(half), 0);
	for (unsigned i = 0; i < 30; i++) {
		T_EQ(pgas_team_split(pgas_team_all(), 0, n - me, &rev), 0);
		T_EQ(pgas_team_rank(rev), n - 1 - me);
		T_EQ(pgas_team_destroy(rev), 0);
	}
	T_EQ(pgas_team_destroy(pgas_team_all()), PGAS_ERR_INVAL);
	t_case("nested split, PGAS_TEAM_NO_COLOUR, destroy, 30 split/destroy cycles");
}

/* ---- streams: back-to-back calls, no barrier between, ranks run ahead ---------- */

static void stream(void)
{
	struct team_view v = view_of(pgas_team_all());
	const int kinds[] = { PGAS_COLL_BROADCAST, PGAS_COLL_GATHER, PGAS_COLL_GATHER_ALL,
			      PGAS_COLL_EXCHANGE, PGAS_COLL_REDUCE_ALL, PGAS_COLL_SCAN };
	const size_t sizes[] = { 8, 1000, 70000 };	/* eager, eager, staged/in place */
	const unsigned calls = 40;

	for (unsigned k = 0; k < 6; k++) {
		unsigned bad = 0;

		for (unsigned z = 0; z < 3; z++)
			for (unsigned m = 0; m < M_NMODES; m++) {
				size_t blk = sizes[z], per = blk * n;	/* room for n blocks */
				unsigned flags = m == M_SINGLE ? PGAS_COLL_NOSYNC : PGAS_COLL_MYSYNC;
				char *srcb = m == M_LOCAL_PRIV ? priv_src : seg_at(me, SRC_OFF);
				char *dstb = m == M_LOCAL_PRIV ? priv_dst : seg_at(me, DST_OFF);
				unsigned id0 = ncase + 1, root = (k + z) % n;
				pgas_coll_handle_t h[40];
				struct ccase c = { kinds[k], m, flags, root, blk, PGAS_UINT64,
						   PGAS_OP_SUM, 0, NULL, false };

				if (is_red(kinds[k]))
					c.count = blk / 8;
				if (per * calls > AREA)
					continue;
				for (unsigned i = 0; i < calls; i++)
					for (unsigned b = 0; b < src_blocks(kinds[k], &v, me, root); b++)
						make_src(&c, me, b, blk, id0 + i, srcb + i * per + b * blk);
				memset(dstb, 0xee, per * calls);
				pgas_team_barrier(v.t);
				for (unsigned i = 0; i < calls; i++) {
					void *dl[64];
					const void *sl[64];

					for (unsigned r = 0; r < n; r++) {
						sl[r] = seg_at(r, SRC_OFF + i * per);
						dl[r] = seg_at(r, DST_OFF + i * per);
					}
					if (call(&c, &v, &h[i], dstb + i * per, srcb + i * per, dl, sl))
						bad++;
				}
				if (pgas_coll_wait_all(h, calls))
					bad++;
				pgas_team_barrier(v.t);
				for (unsigned i = 0; i < calls; i++) {
					unsigned e = verify(&c, &v, dstb + i * per, blk, id0 + i);

					if (e)
						fprintf(stderr, "# rank %u: %s %s %zu B, call %u of %u\n",
							me, pgas_coll_kind_name(kinds[k]), mode_names[m],
							blk, i, calls);
					bad += e;
				}
				ncase += calls;
			}
		T_EQ(bad, 0);
		t_case("%s: 40 non-blocking calls back to back per mode and size, checked after",
		       pgas_coll_kind_name(kinds[k]));
	}
}

/* ---- the light path met by the engine ------------------------------------------------- */

/*
 * A small blocking call runs on the light path (libpgas/coll/coll_light.c)
 * where its rank has nothing of the team in flight, and queued on the
 * engine where it has.  Here every rank picks at random (seeded per rank;
 * the seed prints, PGAS_TEST_SEED=S replays) whether each call blocks or
 * is left in flight for a while, so that light and engine members meet in
 * the same calls: every kind, sizes 0 to the eager limit, roots that move,
 * a non-commutative user operation, in-place calls, 48 calls per stream
 * (the 16 eager slots wrap three times), no barrier between calls; every
 * result is checked after.  On the job's team, on a team in reversed rank
 * order (team ranks are not job ranks) and on the odd and even ranks' teams.
 */
static void light_mixed_on(pgas_team_t team, const char *what)
{
	static const int kinds[] = { PGAS_COLL_BROADCAST, PGAS_COLL_SCATTER, PGAS_COLL_GATHER,
				     PGAS_COLL_GATHER_ALL, PGAS_COLL_EXCHANGE, PGAS_COLL_REDUCE,
				     PGAS_COLL_REDUCE_ALL, PGAS_COLL_SCAN };
	enum { CALLS = 48 };
	struct team_view v = view_of(team);
	const size_t sizes[] = { 0, 16, 48, 1024, 2032 };
	const char *env = getenv("PGAS_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	unsigned bad = 0, light = 0, queued = 0, inplace = 0;

	pgas_broadcast(v.t, 0, &seed, &seed, sizeof(seed), PGAS_COLL_MYSYNC);
	if (v.rank == 0)
		printf("# light_mixed %s: seed %llu (PGAS_TEST_SEED to replay)\n", what,
		       (unsigned long long)seed);
	uint64_t rng = seed ^ (0x9e3779b97f4a7c15ull * (me + 1));
	unsigned me_t = v.rank, nt = v.size;
#define RND() (rng = rng * 6364136223846793005ull + 1442695040888963407ull, (unsigned)(rng >> 33))
	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (unsigned z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t blk = sizes[z], per = 2 * blk * nt + 64;
			char *base = seg_at(me, SRC_OFF);
			pgas_coll_handle_t h[CALLS];
			struct ccase c[CALLS];
			char *src[CALLS], *dst[CALLS];
			unsigned np = 0, id0 = ncase + 1;

			for (unsigned i = 0; i < CALLS; i++) {
				/* The same case on every rank: drawn from the shared seed. */
				uint64_t cs = seed + 7919u * (id0 + i);
				bool user = is_red(kinds[k]) && cs % 3 == 0;
				bool in_place = cs % 5 == 0;

				c[i] = (struct ccase){ kinds[k], M_LOCAL_SEG, PGAS_COLL_MYSYNC,
						       (unsigned)(cs / 7 % nt), blk,
						       user ? PGAS_TYPE_USER : PGAS_UINT64,
						       user ? affine_op : PGAS_OP_SUM, 0, NULL, false };
				if (is_red(kinds[k]))
					c[i].count = blk / (user ? 16 : 8);
				dst[i] = base + i * per;
				src[i] = dst[i] + blk * nt;
				memset(dst[i], 0xee, per);
				if (in_place) {	/* the source where the call writes */
					unsigned root = c[i].root;

					src[i] = dst[i];
					if ((kinds[k] == PGAS_COLL_GATHER && me_t == root) ||
					    kinds[k] == PGAS_COLL_GATHER_ALL)
						src[i] = dst[i] + me_t * blk;
					inplace++;
				}
				for (unsigned b = 0; b < src_blocks(kinds[k], &v, me_t, c[i].root); b++)
					make_src(&c[i], me_t, b, blk, id0 + i, src[i] + b * blk);
			}
			pgas_team_barrier(v.t);
			for (unsigned i = 0; i < CALLS; i++) {
				bool block = RND() % 3 != 0;

				if (call(&c[i], &v, block ? NULL : &h[np], dst[i], src[i], NULL, NULL))
					bad++;
				if (block)
					light += np == 0;
				else
					np++;
				queued += block && np;
				if (np && RND() % 4 == 0) {
					bad += pgas_coll_wait_all(h, np) != 0;
					np = 0;
				}
			}
			bad += pgas_coll_wait_all(h, np) != 0;
			pgas_team_barrier(v.t);
			for (unsigned i = 0; i < CALLS; i++) {
				unsigned e = verify(&c[i], &v, dst[i], blk, id0 + i);

				if (e)
					fprintf(stderr, "# rank %u: %s: seed %llu: %s %zu B call %u "
						"root %u%s\n", me, what, (unsigned long long)seed,
						pgas_coll_kind_name(kinds[k]), blk, i, c[i].root,
						src[i] < dst[i] + blk * nt ? " (in place)" : "");
				bad += e;
			}
			ncase += CALLS;
		}
#undef RND
	T_EQ(bad, 0);
	t_case("light path and engine in the same calls, %s: %u blocking with nothing in "
	       "flight, %u behind calls in flight, %u in place, every kind, 0-2032 B", what, light,
	       queued, inplace);
}

static void light_mixed(void)
{
	pgas_team_t rev, half;

	light_mixed_on(pgas_team_all(), "job team");
	T_EQ(pgas_team_split(pgas_team_all(), 0, n - 1 - me, &rev), 0);
	light_mixed_on(rev, "reversed team");
	T_EQ(pgas_team_split(pgas_team_all(), (int)(me % 2), 0, &half), 0);
	light_mixed_on(half, me % 2 ? "odd ranks' team" : "even ranks' team");
	T_EQ(pgas_team_destroy(half), 0);
	T_EQ(pgas_team_destroy(rev), 0);
}

/*
 * A blocking call that runs on the light path still progresses the other
 * teams' calls in flight, as the engine's start does (found by review: rank
 * 0's light calls on a team of its own advanced nothing, and the job
 * team's broadcast that rank 1 waited for never completed).  Rank 1 puts a
 * flag into rank 0 once its broadcast completes; rank 0 makes blocking
 * calls on its one-member team until it sees it (bounded).  Where the job's
 * team runs the reference algorithms (messages), the broadcast needs polls,
 * which no start of a call makes, light or not: not run there.
 */
static void light_progress(void)
{
	pgas_team_t all = pgas_team_all(), solo;
	pgas_coll_handle_t h;
	char *src = seg_at(me, SRC_OFF), *dst = seg_at(me, DST_OFF);
	volatile uint64_t *flag = (volatile uint64_t *)seg_at(me, DST_OFF + AREA - 64);
	uint64_t x = 1, y, one = 1;
	char got[48] = "";
	long i = 0;

	if (n < 2 || pgas_coll_describe(all, PGAS_COLL_BROADCAST, 256 << 10, got, sizeof(got)) ||
	    !strcmp(got, "ref") || !strcmp(got, "hier"))
		return;
	*flag = 0;
	T_EQ(pgas_team_split(all, (int)me, 0, &solo), 0);
	pgas_team_barrier(all);
	T_EQ(pgas_broadcast_nb(&h, all, 1, dst, src, 256 << 10, PGAS_COLL_MYSYNC), 0);
	if (me == 1) {
		T_EQ(pgas_coll_wait(h), 0);
		T_EQ(pgas_put(0, (void *)seg_at(0, DST_OFF + AREA - 64), &one, 8), 0);
	} else if (me == 0) {
		time_t end = time(NULL) + 20;	/* bounded in time: oversubscribed runs */

		for (i = 0; !*flag && (i % 1024 || time(NULL) < end); i++)
			T_EQ(pgas_reduce_all(solo, &y, &x, 1, PGAS_UINT64, PGAS_OP_SUM,
					     PGAS_COLL_MYSYNC), 0);
		T_CHECK(*flag == 1, "rank 0: no flag after %ld blocking calls on its own team", i);
	}
	if (me != 1)
		T_EQ(pgas_coll_wait(h), 0);
	T_EQ(pgas_team_destroy(solo), 0);
	pgas_team_barrier(all);
	t_case("blocking calls on the light path progress another team's call in flight "
	       "(rank 0: %ld calls)", i);
}

/*
 * An eager call that the engine would cut into chunks (a wide team, a
 * small stage) gave wrong bytes with rc 0: the eager copy ignored the
 * chunk's offset (found by review).  Now such a call is not eager.  Run as
 * `coll wide` on 64 ranks with PGAS_COLL_STAGE=8192 (check-native):
 * gather_all by flat get of up to the eager slot's 56 bytes.
 */
static void wide(void)
{
	pgas_team_t all = pgas_team_all();
	char *src = seg_at(me, SRC_OFF), *dst = seg_at(me, DST_OFF);
	unsigned bad = 0;

	T_EQ(pgas_coll_force(all, PGAS_COLL_GATHER_ALL, "flat:get"), 0);
	for (size_t nb = 8; nb <= 56; nb += 8)
		for (int it = 0; it < 3; it++) {
			for (size_t i = 0; i < nb; i++)
				src[i] = (char)(me * 7 + i + it);
			memset(dst, 0, nb * n);
			T_EQ(pgas_gather_all(all, dst, src, nb, PGAS_COLL_MYSYNC), 0);
			for (unsigned p = 0; p < n; p++)
				for (size_t i = 0; i < nb; i++)
					if (dst[p * nb + i] != (char)(p * 7 + i + it) && bad++ < 3)
						fprintf(stderr, "# rank %u: %zu B: block %u byte %zu "
							"wrong\n", me, nb, p, i);
		}
	T_EQ(bad, 0);
	t_case("gather_all (flat get) of 8-56 B on %u ranks, whatever the stage", n);
}

/* ---- overlap ----------------------------------------------------------------------------- */

static void overlap(void)
{
	size_t nb = 64 << 10;
	char *src = seg_at(me, SRC_OFF), *dst = seg_at(me, DST_OFF);
	pgas_coll_handle_t h;
	volatile double x = 1.0;
	unsigned polls = 0, bad = 0;
	int rc;

	for (unsigned b = 0; b < n; b++)
		t_fill(src + b * nb, nb, seed_of(999, me, b));
	pgas_team_barrier(pgas_team_all());
	T_EQ(pgas_exchange_nb(&h, pgas_team_all(), dst, src, nb, PGAS_COLL_MYSYNC), 0);
	/* Compute, polling now and then; never call wait. */
	while ((rc = pgas_coll_try(h)) == PGAS_ERR_NOT_READY) {
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 1e-9;
		pgas_poll();
		polls++;
	}
	T_EQ(rc, 0);
	for (unsigned b = 0; b < n; b++)
		bad += t_verify(dst + b * nb, nb, seed_of(999, b, me)) != nb;
	T_EQ(bad, 0);
	t_case("non-blocking exchange completes while the rank computes and polls (%u polls)",
	       polls);
}

/* ---- misuse -------------------------------------------------------------------------------- */

static void misuse(void)
{
	pgas_team_t all = pgas_team_all();
	char *buf = seg_at(me, SRC_OFF), *dst = seg_at(me, DST_OFF);
	void *dl[64];
	const void *sl[64];
	pgas_op_t op;

	for (unsigned i = 0; i < n; i++) {
		dl[i] = seg_at(i, DST_OFF);
		sl[i] = seg_at(i, SRC_OFF);
	}
	T_EQ(pgas_broadcast(all, 0, NULL, buf, 8, PGAS_COLL_MYSYNC), PGAS_ERR_INVAL);
	T_EQ(pgas_gather_all(all, dst, NULL, 8, PGAS_COLL_MYSYNC), PGAS_ERR_INVAL);
	T_EQ(pgas_broadcast(all, n, dst, buf, 8, PGAS_COLL_MYSYNC), PGAS_ERR_RANK);
	T_EQ(pgas_broadcast(all, 0, dst, buf, 8, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_broadcast(all, 0, dst, buf, 8, PGAS_COLL_IN_NOSYNC | PGAS_COLL_IN_MYSYNC |
			    PGAS_COLL_OUT_MYSYNC), PGAS_ERR_INVAL);
	T_EQ(pgas_broadcast(all, 0, dst, buf, 8, PGAS_COLL_MYSYNC | 0x100), PGAS_ERR_INVAL);
	T_EQ(pgas_broadcast(NULL, 0, dst, buf, 8, PGAS_COLL_MYSYNC), PGAS_ERR_INVAL);
	T_EQ(pgas_reduce_all(all, dst, buf, 4, PGAS_DOUBLE, PGAS_OP_XOR, PGAS_COLL_MYSYNC),
	     PGAS_ERR_INVAL);
	T_EQ(pgas_reduce_all(all, dst, buf, 4, (pgas_type_t)99, PGAS_OP_SUM, PGAS_COLL_MYSYNC),
	     PGAS_ERR_INVAL);
	T_EQ(pgas_reduce_all(all, dst, buf, 4, PGAS_INT32, 999, PGAS_COLL_MYSYNC), PGAS_ERR_INVAL);
	T_EQ(pgas_reduce_all(all, dst, buf, 4, PGAS_INT32, affine_op, PGAS_COLL_MYSYNC),
	     PGAS_ERR_INVAL);
	T_EQ(pgas_reduce_all(all, dst, buf, 4, PGAS_TYPE_USER, PGAS_OP_SUM, PGAS_COLL_MYSYNC),
	     PGAS_ERR_INVAL);
	T_EQ(pgas_reduce_all(all, dst, buf, SIZE_MAX / 2, PGAS_INT64, PGAS_OP_SUM,
			     PGAS_COLL_MYSYNC), PGAS_ERR_SIZE);
	T_EQ(pgas_op_create(&op, NULL, 8, 0, NULL), PGAS_ERR_INVAL);
	T_EQ(pgas_op_create(&op, affine, 0, 0, NULL), PGAS_ERR_INVAL);
	/* Single mode: an address outside its owner's segment. */
	dl[n - 1] = (char *)pgas_segment_addr(n - 1) + pgas_segment_size(n - 1);
	T_EQ(pgas_broadcast_single(all, 0, dl, sl[0], 8, PGAS_COLL_MYSYNC), PGAS_ERR_BOUNDS);
	T_EQ(pgas_gather_all_single(all, dl, NULL, 8, PGAS_COLL_MYSYNC), PGAS_ERR_INVAL);
	T_EQ(pgas_coll_wait(NULL), PGAS_ERR_INVAL);
	pgas_hsl_t lock = PGAS_HSL_INITIALIZER;

	T_EQ(pgas_hsl_lock(&lock), 0);
	T_EQ(pgas_team_barrier(all), PGAS_ERR_STATE);
	T_EQ(pgas_hsl_unlock(&lock), 0);
	T_EQ(pgas_coll_force(all, PGAS_COLL_BROADCAST, "tree:hypercube"), PGAS_ERR_INVAL);
	T_EQ(pgas_coll_force(all, PGAS_COLL_BROADCAST, "bruck:r2"), PGAS_ERR_INVAL);
	T_EQ(pgas_coll_force(all, PGAS_COLL_EXCHANGE, "bruck:r1"), PGAS_ERR_INVAL);
	T_CHECK(strstr(pgas_last_error(), "pgas_coll_force") != NULL, "message: %s",
		pgas_last_error());
	/* Still working afterwards. */
	uint64_t one = 1, total = 0;

	T_EQ(pgas_reduce_all(all, &total, &one, 1, PGAS_UINT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC), 0);
	T_EQ(total, n);
	t_case("misuse: NULL buffers, bad root, flags, types, ops, sizes, lists, specs, HSL held");

	if (!getenv("PGAS_COLL_DEBUG") || n < 2)
		return;
	/* Members disagree: every one of them gets the error. */
	int rc = pgas_broadcast(all, 0, dst, buf, me == n - 1 ? 16 : 8, PGAS_COLL_MYSYNC);

	T_EQ(rc, PGAS_ERR_INVAL);
	T_CHECK(strstr(pgas_last_error(), "size") != NULL, "message: %s", pgas_last_error());
	rc = pgas_reduce(all, me == 0 ? 1 : 0, dst, buf, 4, PGAS_INT32, PGAS_OP_SUM,
			 PGAS_COLL_MYSYNC);
	T_EQ(rc, PGAS_ERR_INVAL);
	T_CHECK(strstr(pgas_last_error(), "root") != NULL, "message: %s", pgas_last_error());
	T_EQ(pgas_reduce_all(all, &total, &one, 1, PGAS_UINT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC), 0);
	T_EQ(total, n);
	t_case("PGAS_COLL_DEBUG: mismatched sizes and roots fail on every member");
}

/*
 * The remote path's rendezvous (coll_ref.c: a block of 32 KiB or more in
 * the sender's segment goes as its address): a member that passes another
 * size fails, alone in a broadcast (the others get the root's bytes) and
 * every member in a gather_all, and no call waits for a reader that never
 * reads; the team works afterwards.  Reference teams only (PGAS_MAP_PEERS=none,
 * PGAS_COLL_UNMAPPED=1, other hosts): mapped algorithms do not check sizes.
 */
static void rendezvous_sizes(void)
{
	pgas_team_t all = pgas_team_all();
	const size_t B = 65536;
	char got[64];
	char *src = seg_at(me, SRC_OFF), *dst = seg_at(me, DST_OFF);
	size_t mine = me == n - 1 ? B + 8 : B;

	/* PGAS_COLL_DEBUG finds the sizes differ before a call runs (misuse). */
	if (n < 3 || getenv("PGAS_COLL_DEBUG") ||
	    pgas_coll_describe(all, PGAS_COLL_BROADCAST, B, got, sizeof(got)) || strcmp(got, "ref"))
		return;
	for (int round = 0; round < 3; round++) {
		t_fill(src, B + 8, 7000 + (uint64_t)round);
		memset(dst, 0, B + 8);
		int rc = pgas_broadcast(all, 0, dst, src, mine, PGAS_COLL_MYSYNC);

		if (me == n - 1) {
			T_EQ(rc, PGAS_ERR_INVAL);
		} else {
			T_EQ(rc, 0);
			T_EQ(t_verify(dst, B, 7000 + (uint64_t)round), B);
		}
		rc = pgas_gather_all(all, dst, src, mine, PGAS_COLL_MYSYNC);
		T_EQ(rc, PGAS_ERR_INVAL);
		/* The sources change at once: a reader still at them would
		 * see it in the next round's check. */
		T_EQ(pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS), 0);
	}
	uint64_t one = 1, total = 0;

	T_EQ(pgas_reduce_all(all, &total, &one, 1, PGAS_UINT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC), 0);
	T_EQ(total, n);
	t_case("rendezvous blocks: a member passing another size fails (broadcast: alone; "
	       "gather_all: all), no call waits for a reader, the team works after");
}

int main(int argc, char **argv)
{
	static const int kinds[] = { PGAS_COLL_BROADCAST, PGAS_COLL_SCATTER, PGAS_COLL_GATHER,
				     PGAS_COLL_GATHER_ALL, PGAS_COLL_EXCHANGE, PGAS_COLL_REDUCE,
				     PGAS_COLL_REDUCE_ALL, PGAS_COLL_SCAN };

	bool wide_only = argc > 1 && !strcmp(argv[1], "wide");

	/* wide: many ranks, little memory each */
	if (pgas_init(&argc, &argv) || t_attach(NULL, 0, wide_only ? DST_OFF + (1 << 20) : SEG))
		return 1;
	quick = argc > 1 && !strcmp(argv[1], "quick");
	me = pgas_rank();
	n = pgas_nranks();
	if (wide_only) {
		wide();
		t_done();
	}
	priv_src = malloc(AREA);
	priv_dst = malloc(AREA);
	if (!priv_src || !priv_dst || pgas_op_create(&affine_op, affine, 16, 0, NULL))
		return 1;

	T_EQ(pgas_team_size(pgas_team_all()), n);
	T_EQ(pgas_team_rank(pgas_team_all()), me);
	for (unsigned i = 0; i < 50; i++)
		T_EQ(pgas_team_barrier(pgas_team_all()), 0);
	t_case("team barrier on the job's team, 50 times");

	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		matrix(kinds[k]);
	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		reused(kinds[k]);
	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		big(kinds[k]);
	types_and_ops();
	stream();
	light_mixed();
	light_progress();
	teams();
	overlap();
	misuse();
	rendezvous_sizes();
	t_done();
}
