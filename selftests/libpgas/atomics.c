// SPDX-License-Identifier: MIT
/*
 * atomics - remote atomics in atomic domains (pgas_atomic.h), every rank
 * at once on the same words: exact sums of every integer type (wrapping
 * too), fetched values that are all distinct, a compare-and-swap lock
 * guarding a plain read-modify-write, min/max/mult, float and double
 * arithmetic with exactly representable values, bitwise operations, swap,
 * set and get; the _nb and _nbi forms; and every misuse refused by name.
 */
#include "tap.h"

static unsigned K = 2000;	/* operations per rank per word (argv[1]: fewer in a slow VM) */

static unsigned me, n;

/* Word i of rank r's segment (in r's address space). */
static void *word(unsigned r, unsigned i)
{
	return (char *)pgas_segment_addr(r) + 64 * (size_t)i;
}

static void test_integers(void)
{
	pgas_ad_t a32, a64, ai32, ai64;
	unsigned ops = PGAS_AOP_ADD | PGAS_AOP_FADD | PGAS_AOP_SUB | PGAS_AOP_FINC |
		       PGAS_AOP_DEC | PGAS_AOP_GET | PGAS_AOP_SET;
	unsigned char *seen = calloc((size_t)n * K, 1);
	bool distinct = true, ok = true;

	T_EQ(pgas_ad_create(&a32, PGAS_DT_U32, ops, 0), 0);
	T_EQ(pgas_ad_create(&a64, PGAS_DT_U64, ops, 0), 0);
	T_EQ(pgas_ad_create(&ai32, PGAS_DT_I32, ops, 0), 0);
	T_EQ(pgas_ad_create(&ai64, PGAS_DT_I64, ops, 0), 0);
	if (me == 0) {
		T_EQ(pgas_ad_op_u32(a32, NULL, 0, word(0, 0), PGAS_AOP_SET, 0, 0, 0), 0);
		T_EQ(pgas_ad_op_u64(a64, NULL, 0, word(0, 1), PGAS_AOP_SET, 0, 0, 0), 0);
		T_EQ(pgas_ad_op_i32(ai32, NULL, 0, word(0, 2), PGAS_AOP_SET, INT32_MAX, 0, 0), 0);
		T_EQ(pgas_ad_op_i64(ai64, NULL, 0, word(0, 3), PGAS_AOP_SET, 0, 0, 0), 0);
	}
	pgas_barrier(1, 0);
	for (unsigned i = 0; i < K; i++) {
		uint64_t old = 0;
		uint32_t o32;

		/* Fetch-and-increment: every ticket 0 .. n*K-1 exactly once. */
		ok &= pgas_ad_op_u64(a64, &old, 0, word(0, 1), PGAS_AOP_FINC, 0, 0, 0) == 0;
		if (old < (uint64_t)n * K)
			seen[old] = 1;
		else
			distinct = false;
		ok &= pgas_ad_op_u32(a32, &o32, 0, word(0, 0), PGAS_AOP_FADD, 3, 0,
				     PGAS_AOP_ACQ | PGAS_AOP_REL) == 0;
		ok &= pgas_ad_op_u32(a32, NULL, 0, word(0, 0), PGAS_AOP_SUB, 1, 0, 0) == 0;
		/* Signed: wraps past INT32_MAX like two's complement. */
		ok &= pgas_ad_op_i32(ai32, NULL, 0, word(0, 2), PGAS_AOP_ADD, 1, 0, 0) == 0;
		ok &= pgas_ad_op_i64(ai64, NULL, 0, word(0, 3), PGAS_AOP_DEC, 0, 0, 0) == 0;
	}
	T_CHECK(ok, "an operation failed: %s", pgas_last_error());
	pgas_barrier(2, 0);
	/* Each rank's tickets: gather who saw which through rank 0's words. */
	{
		uint64_t v64 = 0;
		uint32_t v32 = 0;
		int32_t i32 = 0;
		int64_t i64 = 0;

		T_EQ(pgas_ad_op_u64(a64, &v64, 0, word(0, 1), PGAS_AOP_GET, 0, 0, PGAS_AOP_ACQ), 0);
		T_EQ(pgas_ad_op_u32(a32, &v32, 0, word(0, 0), PGAS_AOP_GET, 0, 0, 0), 0);
		T_EQ(pgas_ad_op_i32(ai32, &i32, 0, word(0, 2), PGAS_AOP_GET, 0, 0, 0), 0);
		T_EQ(pgas_ad_op_i64(ai64, &i64, 0, word(0, 3), PGAS_AOP_GET, 0, 0, 0), 0);
		T_EQ(v64, (uint64_t)n * K);
		T_EQ(v32, 2u * n * K);
		T_EQ(i32, (int32_t)((uint32_t)INT32_MAX + (uint32_t)(n * K)));
		T_EQ(i64, -(int64_t)n * K);
	}
	T_CHECK(distinct, "a fetched ticket out of range");
	/* Every ticket fetched exactly once: each rank's tickets into rank 0's
	 * byte map, with OR (a second fetch of one ticket would show twice). */
	{
		pgas_ad_t orad;
		uint32_t *map = (uint32_t *)word(0, 100);	/* n*K bits, up to 2000 bytes */
		bool twice = false;

		T_EQ(pgas_ad_create(&orad, PGAS_DT_U32, PGAS_AOP_FOR | PGAS_AOP_GET, 0), 0);
		for (unsigned t = 0; t < n * K; t++) {
			uint32_t old = 0;

			if (!seen[t])
				continue;
			T_EQ(pgas_ad_op_u32(orad, &old, 0, map + t / 32, PGAS_AOP_FOR, 1u << (t % 32),
					    0, 0), 0);
			twice |= (old >> (t % 32)) & 1;
		}
		pgas_barrier(3, 0);
		if (me == 0)
			for (unsigned t = 0; t < n * K; t++)
				if (!((map[t / 32] >> (t % 32)) & 1)) {
					T_CHECK(0, "ticket %u never fetched", t);
					break;
				}
		T_CHECK(!twice, "a ticket was fetched twice");
		pgas_ad_destroy(orad);
	}
	pgas_barrier(4, 0);
	pgas_ad_destroy(a32);
	pgas_ad_destroy(a64);
	pgas_ad_destroy(ai32);
	pgas_ad_destroy(ai64);
	free(seen);
	t_case("integers: %u ranks x %u fetch-inc/fetch-add/sub/add/dec on one word each: exact, "
	       "every ticket once, signed wrap", n, K);
}

/* A lock by compare-and-swap on rank n-1 guards a plain get-add-put. */
static void test_cas_lock(void)
{
	pgas_ad_t ad;
	unsigned last = n - 1;
	uint64_t *lock = word(last, 20), *count = word(last, 21);
	bool ok = true;

	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_FCAS | PGAS_AOP_SET, 0), 0);
	if (me == last)
		*count = 0;
	pgas_barrier(5, 0);
	for (unsigned i = 0; i < K / 4; i++) {
		uint64_t old = 1, c = 0;

		while (old != 0)
			ok &= pgas_ad_op_u64(ad, &old, last, lock, PGAS_AOP_FCAS, 0, me + 1,
					     PGAS_AOP_ACQ) == 0;
		ok &= pgas_get(&c, last, count, 8) == 0;
		c++;
		ok &= pgas_put(last, count, &c, 8) == 0;
		ok &= pgas_ad_op_u64(ad, NULL, last, lock, PGAS_AOP_SET, 0, 0, PGAS_AOP_REL) == 0;
	}
	T_CHECK(ok, "an operation failed: %s", pgas_last_error());
	pgas_barrier(6, 0);
	if (me == last)
		T_EQ(*count, (uint64_t)n * (K / 4));
	pgas_ad_destroy(ad);
	t_case("compare-and-swap lock (acquire/release) around get-add-put: %u increments, none lost",
	       n * (K / 4));
}

static void test_minmax_mult_bits(void)
{
	pgas_ad_t ad, sad;
	int64_t *mn = word(0, 30), *mx = word(0, 31);
	uint64_t *ml = word(0, 32), *bits = word(0, 33), *x = word(0, 34);
	bool ok = true;

	T_EQ(pgas_ad_create(&sad, PGAS_DT_I64, PGAS_AOP_MIN | PGAS_AOP_FMAX | PGAS_AOP_SET |
			    PGAS_AOP_GET, 0), 0);
	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_MULT | PGAS_AOP_OR | PGAS_AOP_FXOR |
			    PGAS_AOP_AND | PGAS_AOP_SET | PGAS_AOP_SWAP | PGAS_AOP_GET, 0), 0);
	if (me == 0) {
		*mn = 0;
		*mx = 0;
		*ml = 1;
		*bits = 0;
		*x = 0;
	}
	pgas_barrier(7, 0);
	for (unsigned i = 0; i < K; i++) {
		int64_t v = (int64_t)(me * K + i) * (i % 2 ? 1 : -1), old;

		ok &= pgas_ad_op_i64(sad, NULL, 0, mn, PGAS_AOP_MIN, v, 0, 0) == 0;
		ok &= pgas_ad_op_i64(sad, &old, 0, mx, PGAS_AOP_FMAX, v, 0, 0) == 0;
		if (i < 3)
			ok &= pgas_ad_op_u64(ad, NULL, 0, ml, PGAS_AOP_MULT, 3, 0, 0) == 0;
		ok &= pgas_ad_op_u64(ad, &(uint64_t){ 0 }, 0, x, PGAS_AOP_FXOR, 1ull << (me % 64), 0,
				     0) == 0;
	}
	ok &= pgas_ad_op_u64(ad, NULL, 0, bits, PGAS_AOP_OR, 1ull << (me % 64), 0, 0) == 0;
	T_CHECK(ok, "an operation failed: %s", pgas_last_error());
	pgas_barrier(8, 0);
	if (me == 0) {
		uint64_t b = 0, want = 1;

		for (unsigned r = 0; r < n; r++)
			b |= 1ull << (r % 64);
		for (unsigned r = 0; r < 3 * n; r++)
			want *= 3;
		T_EQ(*mn, -(int64_t)((n - 1) * K + K - 2));
		T_EQ(*mx, (int64_t)((n - 1) * K + K - 1));
		T_EQ(*ml, want);
		T_EQ(*bits, b);
		T_EQ(*x, 0);	/* every rank toggled its bit an even number of times */
		uint64_t old = 0;

		T_EQ(pgas_ad_op_u64(ad, &old, 0, bits, PGAS_AOP_SWAP, 7, 0, 0), 0);
		T_EQ(old, b);
		T_EQ(pgas_ad_op_u64(ad, NULL, 0, bits, PGAS_AOP_AND, 5, 0, 0), 0);
		T_EQ(pgas_ad_op_u64(ad, &old, 0, bits, PGAS_AOP_GET, 0, 0, 0), 0);
		T_EQ(old, 5);
	}
	pgas_barrier(9, 0);
	pgas_ad_destroy(ad);
	pgas_ad_destroy(sad);
	t_case("min/max (signed), mult, or, xor, and, swap, get under contention: exact");
}

static void test_floats(void)
{
	pgas_ad_t fd, dd;
	float *f = word(0, 40), *fm = word(0, 41);
	double *d = word(0, 42), *dm = word(0, 43);
	bool ok = true;

	T_EQ(pgas_ad_create(&fd, PGAS_DT_FLT, PGAS_AOP_ADD | PGAS_AOP_FMAX | PGAS_AOP_SET |
			    PGAS_AOP_GET, 0), 0);
	T_EQ(pgas_ad_create(&dd, PGAS_DT_DBL, PGAS_AOP_FADD | PGAS_AOP_SUB | PGAS_AOP_MIN |
			    PGAS_AOP_MULT | PGAS_AOP_FCAS | PGAS_AOP_GET, 0), 0);
	if (me == 0) {
		*f = 0;
		*fm = -1e30f;
		*d = 0;
		*dm = 1e300;
	}
	pgas_barrier(10, 0);
	for (unsigned i = 0; i < K; i++) {
		double old;

		/* Halves and quarters: every partial sum is exact. */
		ok &= pgas_ad_op_flt(fd, NULL, 0, f, PGAS_AOP_ADD, 0.5f, 0, 0) == 0;
		ok &= pgas_ad_op_flt(fd, &(float){ 0 }, 0, fm, PGAS_AOP_FMAX, (float)(me * K + i),
				     0, 0) == 0;
		ok &= pgas_ad_op_dbl(dd, &old, 0, d, PGAS_AOP_FADD, 0.75, 0, 0) == 0;
		ok &= pgas_ad_op_dbl(dd, NULL, 0, d, PGAS_AOP_SUB, 0.25, 0, 0) == 0;
		ok &= pgas_ad_op_dbl(dd, NULL, 0, dm, PGAS_AOP_MIN, -(double)(me * K + i), 0, 0) == 0;
	}
	T_CHECK(ok, "an operation failed: %s", pgas_last_error());
	pgas_barrier(11, 0);
	if (me == 0) {
		double old = 0;

		T_CHECK(*f == 0.5f * n * K, "float sum %g, expected %g", (double)*f, 0.5 * n * K);
		T_CHECK(*fm == (float)((n - 1) * K + K - 1), "float max %g", (double)*fm);
		T_CHECK(*d == 0.5 * n * K, "double sum %g, expected %g", *d, 0.5 * n * K);
		T_CHECK(*dm == -(double)((n - 1) * K + K - 1), "double min %g", *dm);
		/* FCAS compares bit patterns of the value: a match stores. */
		T_EQ(pgas_ad_op_dbl(dd, &old, 0, d, PGAS_AOP_FCAS, 0.5 * n * K, 2.5, 0), 0);
		T_CHECK(old == 0.5 * n * K && *d == 2.5, "FCAS: old %g, now %g", old, *d);
		T_EQ(pgas_ad_op_dbl(dd, &old, 0, d, PGAS_AOP_FCAS, 1.0, 9.0, 0), 0);
		T_CHECK(old == 2.5 && *d == 2.5, "failed FCAS stored: old %g, now %g", old, *d);
		T_EQ(pgas_ad_op_dbl(dd, NULL, 0, d, PGAS_AOP_MULT, 4.0, 0, 0), 0);
		T_CHECK(*d == 10.0, "mult: %g", *d);
	}
	pgas_barrier(12, 0);
	pgas_ad_destroy(fd);
	pgas_ad_destroy(dd);
	t_case("float and double: add, sub, max, min, mult, compare-and-swap: exact");
}

static void test_forms(void)
{
	pgas_ad_t ad;
	uint64_t *w = word(0, 50), old = 0;
	pgas_handle_t h = 1;

	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_ADD | PGAS_AOP_FADD | PGAS_AOP_GET, 0), 0);
	if (me == 0)
		*w = 0;
	pgas_barrier(13, 0);
	T_EQ(pgas_ad_op_nb_u64(&h, ad, &old, 0, w, PGAS_AOP_FADD, 1, 0, 0), 0);
	T_EQ(pgas_wait_syncnb(h), 0);
	for (int i = 0; i < 10; i++)
		T_EQ(pgas_ad_op_nbi_u64(ad, NULL, 0, w, PGAS_AOP_ADD, 2, 0, 0), 0);
	T_EQ(pgas_wait_syncnbi_all(), 0);
	pgas_barrier(14, 0);
	if (me == 0)
		T_EQ(*w, 21u * n);
	pgas_barrier(15, 0);
	pgas_ad_destroy(ad);
	t_case("explicit-handle and implicit-handle forms complete by their syncs");
}

static void test_misuse(void)
{
	pgas_ad_t ad, dead, fd;
	uint64_t v, *w = word(me, 60);
	struct pgas__ad fake = { 0x12345678u | (uint64_t)PGAS_AOP_ADD << 32 };	/* not a domain */
	pgas_ad_t bad = &fake;

	T_EQ(pgas_ad_create(NULL, PGAS_DT_U64, PGAS_AOP_ADD, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_create(&ad, (pgas_dt_t)9, PGAS_AOP_ADD, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, 0, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, 1u << 30, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_create(&ad, PGAS_DT_DBL, PGAS_AOP_XOR, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_ADD, 1), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_ADD | PGAS_AOP_FADD, 0), 0);
	T_EQ(pgas_ad_create(&fd, PGAS_DT_FLT, PGAS_AOP_ADD, 0), 0);
	T_EQ(pgas_ad_create(&dead, PGAS_DT_U64, PGAS_AOP_ADD, 0), 0);
	T_EQ(pgas_ad_destroy(dead), 0);
	T_EQ(pgas_ad_destroy(dead), PGAS_ERR_STATE);
	/* Not declared, not one op, wrong type's call, bad flags. */
	T_EQ(pgas_ad_op_u64(ad, &v, me, w, PGAS_AOP_SWAP, 1, 0, 0), PGAS_ERR_INVAL);
	T_CHECK(strstr(pgas_last_error(), "PGAS_AOP_SWAP was not declared"), "%s", pgas_last_error());
	T_EQ(pgas_ad_op_u64(ad, &v, me, w, PGAS_AOP_ADD | PGAS_AOP_FADD, 1, 0, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_op_i64(ad, NULL, me, w, PGAS_AOP_ADD, 1, 0, 0), PGAS_ERR_INVAL);
	T_CHECK(strstr(pgas_last_error(), "type is uint64"), "%s", pgas_last_error());
	T_EQ(pgas_ad_op_u64(ad, NULL, me, w, PGAS_AOP_ADD, 1, 0, 4), PGAS_ERR_INVAL);
	/* Destroyed, not a domain, NULL. */
	T_EQ(pgas_ad_op_u64(dead, NULL, me, w, PGAS_AOP_ADD, 1, 0, 0), PGAS_ERR_STATE);
	T_EQ(pgas_ad_op_u64(bad, NULL, me, w, PGAS_AOP_ADD, 1, 0, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_op_u64(NULL, NULL, me, w, PGAS_AOP_ADD, 1, 0, 0), PGAS_ERR_INVAL);
	/* Where: a rank out of range, outside the segment, unaligned. */
	T_EQ(pgas_ad_op_u64(ad, NULL, n, w, PGAS_AOP_ADD, 1, 0, 0), PGAS_ERR_RANK);
	T_EQ(pgas_ad_op_u64(ad, NULL, me, &v, PGAS_AOP_ADD, 1, 0, 0), PGAS_ERR_BOUNDS);
	T_EQ(pgas_ad_op_u64(ad, NULL, me, (char *)w + 4, PGAS_AOP_ADD, 1, 0, 0), PGAS_ERR_INVAL);
	T_CHECK(strstr(pgas_last_error(), "not aligned"), "%s", pgas_last_error());
	T_EQ(pgas_ad_op_flt(fd, NULL, me, (char *)w + 2, PGAS_AOP_ADD, 1, 0, 0), PGAS_ERR_INVAL);
	/* A fetching op without a result; an _nb call without a handle. */
	T_EQ(pgas_ad_op_u64(ad, NULL, me, w, PGAS_AOP_FADD, 1, 0, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_op_nb_u64(NULL, ad, &v, me, w, PGAS_AOP_FADD, 1, 0, 0), PGAS_ERR_INVAL);
	pgas_ad_destroy(ad);
	pgas_ad_destroy(fd);
	t_case("misuse refused by name: type, ops, flags, destroyed or foreign domain, rank, "
	       "bounds, alignment, missing result or handle");
}

int main(int argc, char **argv)
{
	if (pgas_init(&argc, &argv))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (argc > 1)	/* even, >= 4: the sums and the lock's K / 4 stay exact */
		K = (unsigned)strtoul(argv[1], NULL, 0) & ~3u;
	if (K < 4 || K > 2000) {
		fprintf(stderr, "atomics: operations per rank %u: 4 to 2000\n", K);
		return 1;
	}
	if (t_attach(NULL, 0, 64 * 4096))
		return 1;
	test_integers();
	test_cas_lock();
	test_minmax_mult_bits();
	test_floats();
	test_forms();
	test_misuse();
	t_done();
}
