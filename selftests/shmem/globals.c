/* SPDX-License-Identifier: MIT */
/*
 * globals - the program's .data and .bss as symmetric objects: put, get,
 * p, g, iput, iget, nbi, AMOs, put_signal and wait_until on initialised
 * .data arrays (their values survive shmem_init), .bss arrays, a static
 * local, and a .bss array of several MiB, with exact results at any
 * number of PEs; shmem_addr_accessible and shmem_ptr say yes for them.
 */
#define _GNU_SOURCE
#include "stap.h"

#define N 64
#define BIG ((size_t)6 << 20)	/* several MiB of .bss */

/* .data: initialised, and the values must be kept by shmem_init. */
long dat[N] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static int dat_int[4] = { -1, -2, -3, -4 };
static double dat_dbl[2] = { 0.5, 1.5 };
/* .bss */
static long bss[N];
static long amo_ctr;
static int amo_int;
static uint64_t sig;
static unsigned char big[BIG];

static int me, n;

/* A static local lives in .data or .bss too. */
static long *local_counter(void)
{
	static long counter;

	return &counter;
}

static void test_initial(void)
{
	/* Before anything is written: the initialisers survived the remap. */
	T_EQ(dat[0], 1);
	T_EQ(dat[7], 8);
	T_EQ(dat[8], 0);
	T_EQ(dat_int[3], -4);
	T_CHECK(dat_dbl[1] == 1.5, "dat_dbl[1] = %g", dat_dbl[1]);
	T_EQ(bss[0], 0);
	T_EQ(big[BIG - 1], 0);
	T_CHECK(shmem_addr_accessible(dat, (me + 1) % n), "dat");
	T_CHECK(shmem_addr_accessible(&bss[N - 1], (me + 1) % n), "bss");
	T_CHECK(shmem_addr_accessible(local_counter(), 0), "static local");
	T_CHECK(shmem_addr_accessible(&big[BIG - 1], n - 1), "big");
	{
		long onstack;

		T_CHECK(!shmem_addr_accessible(&onstack, 0), "a stack variable");
	}
	/* shmem_ptr reaches the .data of a PE on this host (stap.h
	 * st_shared: every PE on shm and pgas.ko); another's is NULL (with
	 * PGAS_MAP_PEERS=none, or across hosts), a get reaches it. */
	long *p = shmem_ptr(&dat[1], (me + 1) % n);

	T_CHECK((p != NULL) == st_shared((me + 1) % n), "shmem_ptr %p", (void *)p);
	T_EQ(shmem_long_g(&dat[1], (me + 1) % n), 2);
	if (p)
		T_EQ(*p, 2);
	st_case("initialised .data kept; accessible and shmem_ptr");
}

static void test_rma(void)
{
	int right = (me + 1) % n, left = (me + n - 1) % n;
	long src[N], got[N];

	for (int i = 0; i < N; i++)
		src[i] = (long)me * 1000 + i;
	shmem_barrier_all();
	/* put into the right's .data, get back the left's .bss */
	shmem_long_put(dat, src, N, right);
	shmem_long_put(bss, src, N, right);
	shmem_barrier_all();
	for (int i = 0; i < N; i++) {
		T_EQ(dat[i], (long)left * 1000 + i);
		T_EQ(bss[i], (long)left * 1000 + i);
	}
	shmem_long_get(got, bss, N, right);
	for (int i = 0; i < N; i++)
		T_EQ(got[i], (long)me * 1000 + i);	/* right got mine */
	st_case("put/get of .data and .bss arrays");

	shmem_barrier_all();
	shmem_int_p(&dat_int[2], 100 + me, right);
	shmem_double_p(&dat_dbl[0], 2.0 * me, right);
	shmem_barrier_all();
	T_EQ(dat_int[2], 100 + left);
	T_CHECK(dat_dbl[0] == 2.0 * left, "%g", dat_dbl[0]);
	T_EQ(shmem_int_g(&dat_int[2], right), 100 + me);
	T_EQ(shmem_int_g(&dat_int[0], right), -1);
	st_case("p/g on .data");

	/* iput: every other element, into the right's bss; iget back. */
	shmem_barrier_all();
	for (int i = 0; i < N; i++)
		bss[i] = -1;
	shmem_barrier_all();
	shmem_long_iput(bss, src, 2, 1, N / 2, right);
	shmem_barrier_all();
	for (int i = 0; i < N; i++)
		T_EQ(bss[i], i % 2 ? -1 : (long)left * 1000 + i / 2);
	shmem_long_iget(got, bss, 1, 2, N / 2, right);
	for (int i = 0; i < N / 2; i++)
		T_EQ(got[i], (long)me * 1000 + i);
	st_case("iput/iget on .bss");

	/* nbi into the big array, at its far end and start, then quiet */
	shmem_barrier_all();
	unsigned char *buf = malloc(1 << 16);

	st_fill(buf, 1 << 16, (uint64_t)me + 7);
	shmem_putmem_nbi(&big[BIG - (1 << 16)], buf, 1 << 16, right);
	shmem_putmem_nbi(&big[0], buf, 4096, right);
	shmem_quiet();
	shmem_barrier_all();
	T_EQ(st_verify(&big[BIG - (1 << 16)], 1 << 16, (uint64_t)left + 7), 1 << 16);
	T_EQ(st_verify(&big[0], 4096, (uint64_t)left + 7), 4096);
	memset(buf, 0, 1 << 16);
	shmem_getmem_nbi(buf, &big[BIG - (1 << 16)], 1 << 16, right);
	shmem_quiet();
	T_EQ(st_verify(buf, 1 << 16, (uint64_t)me + 7), 1 << 16);
	free(buf);
	st_case("putmem_nbi/getmem_nbi on a %zu MiB .bss array", BIG >> 20);
}

static void test_amo(void)
{
	const int K = 100;

	shmem_barrier_all();
	for (int i = 0; i < K; i++) {
		shmem_long_atomic_inc(&amo_ctr, 0);
		shmem_int_atomic_add(&amo_int, me + 1, 0);
		shmem_long_atomic_add(local_counter(), 2, 0);
	}
	long prev = shmem_long_atomic_fetch_add(&dat[N - 1], 1, (me + 1) % n);

	(void)prev;
	shmem_barrier_all();
	if (me == 0) {
		T_EQ(amo_ctr, (long)K * n);
		T_EQ(amo_int, K * n * (n + 1) / 2);
		T_EQ(*local_counter(), 2L * K * n);
	}
	T_EQ(shmem_long_atomic_fetch(&amo_ctr, 0), (long)K * n);
	/* compare_swap and swap on .data */
	shmem_barrier_all();
	if (me == 0)
		shmem_int_atomic_set(&dat_int[1], 0, n - 1);
	shmem_barrier_all();
	int won = shmem_int_atomic_compare_swap(&dat_int[1], 0, me + 1, n - 1) == 0;
	long wins = 0;

	shmem_barrier_all();
	wins = shmem_long_atomic_fetch_add(&amo_ctr, won, 0);
	(void)wins;
	shmem_barrier_all();
	if (me == 0)
		T_EQ(amo_ctr, (long)K * n + 1);	/* exactly one compare_swap won */
	T_CHECK(shmem_int_atomic_fetch(&dat_int[1], n - 1) >= 1, "a winner");
	st_case("AMOs on .bss, .data and a static local at PE 0");
}

static void test_signal(void)
{
	int right = (me + 1) % n, left = (me + n - 1) % n;
	long src[N];

	for (int i = 0; i < N; i++)
		src[i] = (long)me * 7 + i;
	shmem_barrier_all();
	sig = 0;
	shmem_barrier_all();
	shmem_long_put_signal(bss, src, N, &sig, 1, SHMEM_SIGNAL_SET, right);
	shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
	for (int i = 0; i < N; i++)
		T_EQ(bss[i], (long)left * 7 + i);
	st_case("put_signal into .bss, signal_wait_until on a .bss word");

	/* wait_until on a .data word that the left neighbour sets */
	shmem_barrier_all();
	shmem_long_atomic_set(&dat[3], 0, me);
	shmem_barrier_all();
	shmem_long_atomic_set(&dat[3], 40 + me, right);
	shmem_long_wait_until(&dat[3], SHMEM_CMP_EQ, 40 + left);
	T_EQ(dat[3], 40 + left);
	st_case("wait_until on a .data word");
}

int main(void)
{
	/* Written before shmem_init: kept by it (shm remaps the pages). */
	dat[9] = 99;
	bss[5] = 55;
	shmem_init();
	st_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	T_EQ(dat[9], 99);
	T_EQ(bss[5], 55);
	st_case("values written before shmem_init kept");
	test_initial();
	test_rma();
	test_amo();
	test_signal();
	return st_done();
}
