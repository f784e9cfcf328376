/* SPDX-License-Identifier: MIT */
/*
 * rma - OpenSHMEM RMA: typed put/get/p/g/iput/iget and their _nbi forms for
 * every standard RMA type, putSIZE/getSIZE, putmem/getmem (large, unaligned),
 * put-with-signal, fence and quiet, the C11 generic names.  Each PE writes
 * its right neighbour and reads its left one; every value is exact.
 */
#include "stap.h"

#define NE 16

static int me, n, right, left;

/* The value element i of PE p holds: small integers, exact in every type. */
#define VAL(T, p, i) ((T)((p) * 7 + (i) + 1))

#define TEST_TYPE(T, N)									\
static void test_##N(void)								\
{											\
	T *a = shmem_malloc(4 * NE * sizeof(T)), *b = a + NE, *c = a + 2 * NE,	\
	  *d = a + 3 * NE;								\
	T src[NE], got[NE], st[2 * NE];							\
											\
	for (int i = 0; i < NE; i++) {							\
		src[i] = VAL(T, me, i);							\
		a[i] = b[i] = c[i] = d[i] = (T)0;					\
	}										\
	shmem_barrier_all();								\
	/* put to the right; put_nbi (+ quiet); p element by element */		\
	shmem_##N##_put(a, src, NE, right);						\
	shmem_##N##_put_nbi(b, src, NE, right);					\
	for (int i = 0; i < NE; i++)							\
		shmem_##N##_p(&c[i], VAL(T, me, i), right);				\
	shmem_quiet();									\
	shmem_barrier_all();								\
	for (int i = 0; i < NE; i++) {							\
		T_CHECK(a[i] == VAL(T, left, i), #N "_put [%d]", i);			\
		T_CHECK(b[i] == VAL(T, left, i), #N "_put_nbi [%d]", i);		\
		T_CHECK(c[i] == VAL(T, left, i), #N "_p [%d]", i);			\
	}										\
	/* get from the left (it holds its own values in d now) */			\
	for (int i = 0; i < NE; i++)							\
		d[i] = VAL(T, me, i);							\
	shmem_barrier_all();								\
	memset(got, 0, sizeof(got));							\
	shmem_##N##_get(got, d, NE, left);						\
	for (int i = 0; i < NE; i++)							\
		T_CHECK(got[i] == VAL(T, left, i), #N "_get [%d]", i);		\
	memset(got, 0, sizeof(got));							\
	shmem_##N##_get_nbi(got, d, NE, right);					\
	shmem_quiet();									\
	for (int i = 0; i < NE; i++) {							\
		T_CHECK(got[i] == VAL(T, right, i), #N "_get_nbi [%d]", i);		\
		T_CHECK(shmem_##N##_g(&d[i], right) == VAL(T, right, i), #N "_g [%d]", i);\
	}										\
	/* iput: every 2nd source element to every 3rd target slot (5 of them) */	\
	shmem_barrier_all();								\
	for (int i = 0; i < NE; i++)							\
		a[i] = (T)0;								\
	shmem_barrier_all();								\
	shmem_##N##_iput(a, src, 3, 2, 5, right);					\
	shmem_barrier_all();								\
	for (int i = 0; i < NE; i++)							\
		T_CHECK(a[i] == (i % 3 == 0 && i / 3 < 5 ? VAL(T, left, i / 3 * 2) : (T)0),\
			#N "_iput [%d]", i);						\
	/* iget: every 3rd element of d at the left into every 2nd of st */		\
	memset(st, 0, sizeof(st));							\
	shmem_##N##_iget(st, d, 2, 3, 5, left);					\
	for (int i = 0; i < 2 * NE; i++)						\
		T_CHECK(st[i] == (i % 2 == 0 && i / 2 < 5 ? VAL(T, left, i / 2 * 3) : (T)0),\
			#N "_iget [%d]", i);						\
	shmem_barrier_all();								\
	shmem_free(a);									\
}
SHMEM__RMA_TYPES(TEST_TYPE)

#define SIZED(S)									\
static void test_size##S(void)								\
{											\
	enum { B = S / 8, K = 9 };							\
	unsigned char *a = shmem_calloc(4 * K, B), src[K * B], got[4 * K * B];	\
											\
	st_fill(src, sizeof(src), 100 + (uint64_t)me);					\
	shmem_barrier_all();								\
	shmem_put##S(a, src, K, right);							\
	shmem_put##S##_nbi(a + K * B, src, K, right);					\
	shmem_iput##S(a + 2 * K * B, src, 2, 1, 4, right); /* src 0..3 to 0,2,4,6 */	\
	shmem_quiet();									\
	shmem_barrier_all();								\
	T_EQ(st_verify(a, K * B, 100 + (uint64_t)left), K * B);			\
	T_EQ(st_verify(a + K * B, K * B, 100 + (uint64_t)left), K * B);		\
	{										\
		unsigned char want[K * B];						\
		st_fill(want, sizeof(want), 100 + (uint64_t)left);			\
		for (int e = 0; e < 8; e++)						\
			T_CHECK(!memcmp(a + 2 * K * B + e * B,				\
					e % 2 ? (unsigned char[B]){ 0 } : want + e / 2 * B, B),\
				"iput%d element %d", S, e);				\
	}										\
	memset(got, 0, sizeof(got));							\
	shmem_get##S(got, a, K, right);	/* right holds my pattern */			\
	T_EQ(st_verify(got, K * B, 100 + (uint64_t)me), K * B);			\
	memset(got, 0, sizeof(got));							\
	shmem_get##S##_nbi(got, a + K * B, K, right);					\
	shmem_quiet();									\
	T_EQ(st_verify(got, K * B, 100 + (uint64_t)me), K * B);			\
	memset(got, 0, sizeof(got));							\
	shmem_iget##S(got, a + 2 * K * B, 1, 2, 4, right); /* 0,2,4,6 to 0..3 */	\
	T_EQ(st_verify(got, 4 * B, 100 + (uint64_t)me), 4 * B);			\
	shmem_barrier_all();								\
	shmem_free(a);									\
}
SIZED(8)
SIZED(16)
SIZED(32)
SIZED(64)
SIZED(128)

int main(void)
{
	shmem_init();
	st_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	right = (me + 1) % n;
	left = (me + n - 1) % n;

#define RUN_TYPE(T, N) test_##N();
	SHMEM__RMA_TYPES(RUN_TYPE)
	st_case("typed put/get/p/g/iput/iget (+ _nbi) for the 24 standard RMA types");

	test_size8();
	test_size16();
	test_size32();
	test_size64();
	test_size128();
	st_case("shmem_put/get/iput/iget{8,16,32,64,128} (+ _nbi)");

	/* Large and unaligned: 1 MiB + 3 at an odd offset, both ways. */
	{
		size_t len = (1u << 20) + 3;
		char *a = shmem_malloc(len + 16), *buf = malloc(len);

		st_fill(buf, len, 500 + (uint64_t)me);
		shmem_putmem(a + 5, buf, len, right);
		shmem_barrier_all();
		T_EQ(st_verify(a + 5, len, 500 + (uint64_t)left), len);
		memset(buf, 0, len);
		shmem_getmem(buf, a + 5, len, left);	/* left holds left-left's */
		T_EQ(st_verify(buf, len, 500 + (uint64_t)((left + n - 1) % n)), len);
		memset(buf, 0, len);
		shmem_getmem_nbi(buf, a + 5, len, right);	/* right holds mine */
		shmem_quiet();
		T_EQ(st_verify(buf, len, 500 + (uint64_t)me), len);
		shmem_barrier_all();
		st_fill(buf, len, 900 + (uint64_t)me);
		shmem_putmem_nbi(a + 1, buf, len, right);
		shmem_putmem(a, buf, 0, right);		/* 0 bytes: nothing */
		/* 0 bytes at no address at all: nothing, not an error */
		shmem_putmem(NULL, NULL, 0, right);
		shmem_getmem_nbi(NULL, NULL, 0, right);
		shmem_long_put(NULL, NULL, 0, right);
		shmem_int_iget(NULL, NULL, 1, 1, 0, right);
		shmem_putmem_signal(NULL, NULL, 0, (uint64_t *)(void *)a + 1, 0, SHMEM_SIGNAL_ADD, right);
		shmem_quiet();
		shmem_barrier_all();
		T_EQ(st_verify(a + 1, len, 900 + (uint64_t)left), len);
		shmem_barrier_all();
		free(buf);
		shmem_free(a);
	}
	st_case("shmem_putmem/getmem (+ _nbi): 1 MiB + 3 at odd offsets; 0 bytes, also at NULL");

	/*
	 * Fence and ordering: 200 rounds of data then a flag (put after a
	 * fence), the right neighbour waits for the flag and finds the data.
	 */
	{
		long *data = shmem_calloc(200, sizeof(long));
		int *flag = shmem_calloc(1, sizeof(int));
		size_t late = 0;

		for (int r = 1; r <= 200; r++) {
			long v = (long)r * 1000 + me;

			shmem_long_put(&data[r - 1], &v, 1, right);
			shmem_fence();
			shmem_int_p(flag, r, right);
			shmem_int_wait_until(flag, SHMEM_CMP_GE, r);
			if (data[r - 1] != (long)r * 1000 + left)
				late++;
		}
		T_EQ(late, 0);
		shmem_barrier_all();
		shmem_free(flag);
		shmem_free(data);
	}
	st_case("shmem_fence: data put before the fence is there when the flag is");

	/* Put with signal: every PE sends 64 ints and adds 1 to PE 0's signal. */
	{
		int *box = shmem_calloc((size_t)n * 64, sizeof(int));
		uint64_t *sig = shmem_calloc(2, sizeof(uint64_t));
		int src[64];

		for (int i = 0; i < 64; i++)
			src[i] = me * 64 + i;
		shmem_barrier_all();
		if (me % 2)
			shmem_int_put_signal(box + me * 64, src, 64, sig, 1, SHMEM_SIGNAL_ADD, 0);
		else
			shmem_int_put_signal_nbi(box + me * 64, src, 64, sig, 1, SHMEM_SIGNAL_ADD, 0);
		shmem_putmem_signal(box, box, 0, sig + 1, 7, SHMEM_SIGNAL_SET, right);
		/* the sized forms: 64 and 32 bits, the same word (4 bytes of 0 then
		 * 8 bytes of the same value at the right neighbour's box end) */
		shmem_put64_signal(box + n * 64 - 2, src, 0, sig + 1, 0, SHMEM_SIGNAL_ADD, right);
		shmem_put32_signal_nbi(box + n * 64 - 1, src, 0, sig + 1, 0, SHMEM_SIGNAL_ADD,
				       right);
		if (me == 0) {
			uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)n);
			T_EQ(v, n);
			for (int i = 0; i < n * 64; i++)
				T_CHECK(box[i] == i, "box[%d] = %d", i, box[i]);
		}
		shmem_signal_wait_until(sig + 1, SHMEM_CMP_EQ, 7);
		T_EQ(shmem_signal_fetch(sig + 1), 7);
		shmem_quiet();
		shmem_barrier_all();
		shmem_free(sig);
		shmem_free(box);
	}
	st_case("put_signal (+ _nbi), SIGNAL_ADD from every PE and SIGNAL_SET; signal_fetch");

	/* The C11 generic names pick the typed calls. */
	{
		double *x = shmem_calloc(4, sizeof(double));
		unsigned short *u = shmem_calloc(4, sizeof(unsigned short));
		double dv[4] = { 1.5, -2.25, 3.0, 1e300 };
		unsigned short us = 65535;

		shmem_barrier_all();
		shmem_put(x, dv, 4, right);
		shmem_p(u, us, right);
		shmem_barrier_all();
		T_CHECK(x[0] == 1.5 && x[1] == -2.25 && x[3] == 1e300, "generic put of doubles");
		T_EQ(u[0], 65535);
		T_CHECK(shmem_g(&x[1], left) == -2.25, "generic g");
		shmem_barrier_all();
		shmem_free(u);
		shmem_free(x);
	}
	st_case("C11 generic shmem_put / shmem_p / shmem_g");
	return st_done();
}
