// SPDX-License-Identifier: MIT
/*
 * remote - what the remote data path (core/rma_ref.c) must get right
 * beyond the other tests, for ranks not mapped here (check-native runs it
 * with PGAS_MAP_PEERS=none; with auto the same checks hold, done by the
 * copies): an _nb handle that completes only once the target answered,
 * _nbi counts with many operations in flight, transfers larger than
 * pgas_am_max_medium() (chunked), region addresses, a Long larger than a
 * chunk, put_with_signal ordered after its data, and an atomic storm from
 * every rank on one word with a checked total.
 */
#define _GNU_SOURCE	/* usleep */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define H_LONG 1
#define RLEN (64 * 1024)

static unsigned me, n;
static unsigned char area[RLEN] __attribute__((aligned(4096)));
static volatile unsigned longs_ok, longs_bad;

static char *seg(unsigned r, size_t off)
{
	return (char *)pgas_segment_addr(r) + off;
}

static bool mapped(unsigned r)
{
	return pgas_ptr(r, pgas_segment_addr(r)) != NULL;
}

static void h_long(pgas_token_t t, void *buf, size_t nbytes, const uint32_t *args,
		   unsigned nargs)
{
	unsigned src = 0;

	(void)t;
	pgas_token_rank(t, &src);
	if (nargs == 2 && args[0] == 0x4c4f4e47 && nbytes == args[1] &&
	    t_verify(buf, nbytes, 77 + src) == nbytes)
		longs_ok++;
	else
		longs_bad++;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The target does not poll for a while: the handle is not done before it
 * answers.  Rank 1 starts its nap after rank 0 entered the barrier, so a
 * try_syncnb within NAP_MS of that entry (rank 0's clock alone) is
 * certainly before the answer; a rank 0 slowed by load past it checks
 * nothing there (it says so) rather than fail. */
static void test_nb_ack(void)
{
	enum { NAP_MS = 300 };
	unsigned t = (me + 1) % n;
	static unsigned char buf[1000];
	pgas_handle_t h;
	long long t0 = now_ms(), late;
	int rc;

	t_fill(buf, sizeof(buf), 5 + me);
	pgas_barrier(1, 0);
	if (me == 1 % n && n > 1)
		usleep(NAP_MS * 1000);	/* rank 0's put waits for this rank's answer */
	if (me == 0) {
		T_EQ(pgas_put_nb(&h, t, seg(t, 0), buf, sizeof(buf)), 0);
		rc = pgas_try_syncnb(h);
		late = now_ms() - t0;
		if (mapped(t))
			T_EQ(rc, 0);
		else if (late < NAP_MS)
			T_EQ(rc, PGAS_ERR_NOT_READY);
		else
			printf("# try_syncnb %lld ms after the barrier: the target may have "
			       "answered, not checked\n", late);
		if (rc)
			T_EQ(pgas_wait_syncnb(h), 0);
		T_EQ(pgas_wait_syncnb(h), mapped(t) ? 0 : PGAS_ERR_INVAL);	/* synced: gone */
	}
	pgas_barrier(2, 0);
	if (me == t && n > 1)
		T_EQ(t_verify(seg(me, 0), sizeof(buf), 5), sizeof(buf));
	t_case("an _nb put to a rank that does not poll completes only once it answers");
}

/* Many _nbi operations in flight, to every rank, then one sync. */
static void test_nbi_many(void)
{
	enum { K = 2000, SZ = 24 };
	static unsigned char src[K * SZ], back[K * SZ];

	for (unsigned r = 0; r < n; r++) {
		t_fill(src, sizeof(src), 1000 + me * 31 + r);
		for (int i = 0; i < K; i++)
			T_EQ(pgas_put_nbi(r, seg(r, 65536 + (size_t)me * K * SZ + (size_t)i * SZ),
					  src + (size_t)i * SZ, SZ), 0);
		T_EQ(pgas_wait_syncnbi_puts(), 0);
		memset(back, 0, sizeof(back));
		for (int i = 0; i < K; i++)
			T_EQ(pgas_get_nbi(back + (size_t)i * SZ, r,
					  seg(r, 65536 + (size_t)me * K * SZ + (size_t)i * SZ), SZ),
			     0);
		T_EQ(pgas_quiet(), 0);
		T_CHECK(!memcmp(back, src, sizeof(src)), "rank %u: data differs", r);
	}
	T_EQ(pgas_try_syncnbi_all(), 0);
	pgas_barrier(3, 0);
	t_case("%d _nbi puts then %d _nbi gets of %d bytes in flight to every rank, one sync",
	       K, K, SZ);
}

/* Larger than a chunk (pgas_am_max_medium()), every form. */
static void test_chunked(void)
{
	size_t len = 5 * pgas_am_max_medium() + 17, off = 1 << 20;
	unsigned char *buf = malloc(len), *back = malloc(len);
	unsigned t = (me + 1) % n;
	pgas_handle_t h;

	if (!buf || !back)
		abort();
	t_fill(buf, len, 9 + me);
	T_EQ(pgas_put(t, seg(t, off + 3), buf, len), 0);
	memset(back, 0, len);
	T_EQ(pgas_get(back, t, seg(t, off + 3), len), 0);
	T_CHECK(!memcmp(back, buf, len), "blocking %zu bytes", len);
	t_fill(buf, len, 19 + me);
	T_EQ(pgas_put_nb(&h, t, seg(t, off + 1), buf, len), 0);
	T_EQ(pgas_wait_syncnb(h), 0);
	memset(back, 0, len);
	T_EQ(pgas_get_nb(&h, back, t, seg(t, off + 1), len), 0);
	T_EQ(pgas_wait_syncnb(h), 0);
	T_CHECK(!memcmp(back, buf, len), "_nb %zu bytes", len);
	T_EQ(pgas_memset(t, seg(t, off), 0x5a, len), 0);
	T_EQ(pgas_get_nbi(back, t, seg(t, off), len), 0);
	T_EQ(pgas_wait_syncnbi_gets(), 0);
	for (size_t i = 0; i < len; i++)
		if (back[i] != 0x5a) {
			T_CHECK(0, "memset byte %zu", i);
			break;
		}
	/* A Long larger than a chunk, to the next rank: in place when its handler runs. */
	t_fill(buf, len, 77 + me);
	T_EQ(pgas_am_request_long(t, H_LONG, buf, len, seg(t, 3 << 20),
				  (const uint32_t[]){ 0x4c4f4e47, (uint32_t)len }, 2), 0);
	T_EQ(pgas_am_request_long(t, H_LONG, buf, 100, seg(t, (3 << 20) + len),
				  (const uint32_t[]){ 0x4c4f4e47, 100 }, 2), PGAS_OK);
	pgas_block_until(longs_ok + longs_bad == 2);
	T_EQ(longs_bad, 0);
	pgas_barrier(4, 0);
	free(buf);
	free(back);
	t_case("put/get/memset/Long of %zu bytes (more than one pgas_am_max_medium()), "
	       "every form", 5 * pgas_am_max_medium() + 17);
}

static void test_region(void)
{
	unsigned t = (me + 1) % n;
	pgas_seginfo_t ri;
	unsigned char buf[300], back[300];
	uint64_t v = 0;
	pgas_ad_t ad;

	T_EQ(pgas_region_info(t, &ri), 0);
	T_CHECK(ri.addr && ri.size == RLEN, "region of %u: %p +%zu", t, ri.addr, ri.size);
	unsigned char *ra = ri.addr ? ri.addr : area;	/* t's region, in t's address space */

	t_fill(buf, sizeof(buf), 3 + me);
	T_EQ(pgas_put(t, ra + 100, buf, sizeof(buf)), 0);
	T_EQ(pgas_get(back, t, ra + 100, sizeof(back)), 0);
	T_CHECK(!memcmp(back, buf, sizeof(buf)), "region put/get");
	T_EQ(pgas_put_val(t, ra + 8, 0xfeedull + me, 8), 0);
	T_EQ(pgas_get_val(&v, t, ra + 8, 8), 0);
	T_EQ(v, 0xfeedull + me);
	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_FADD | PGAS_AOP_GET, 0), 0);
	pgas_barrier(5, 0);
	T_EQ(pgas_ad_op_u64(ad, NULL, t, ra + 16, PGAS_AOP_FADD, 1, 0, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_ad_op_u64(ad, &v, t, ra + 17, PGAS_AOP_FADD, 1, 0, 0), PGAS_ERR_INVAL);
	T_CHECK(strstr(pgas_last_error(), "not aligned"), "message: %s", pgas_last_error());
	T_EQ(pgas_ad_op_u64(ad, &v, t, ra + 16, PGAS_AOP_FADD, 5, 0, 0), 0);
	pgas_barrier(6, 0);
	T_EQ(pgas_ad_op_u64(ad, &v, me, area + 16, PGAS_AOP_GET, 0, 0, 0), 0);
	T_EQ(v, 5u);
	T_EQ(pgas_put(t, ra + RLEN - 1, "zz", 2), PGAS_ERR_BOUNDS);
	T_CHECK(strstr(pgas_last_error(), "and region"), "message: %s", pgas_last_error());
	pgas_ad_destroy(ad);
	pgas_barrier(7, 0);
	t_case("a registered region's addresses: put/get, values, atomics, bounds");
}

/* put_with_signal: the data is in place when the signal is seen. */
static void test_signal_order(void)
{
	unsigned t = (me + 1) % n, from = (me + n - 1) % n;
	static unsigned char buf[20000];
	uint64_t *sig = (uint64_t *)seg(me, 4 << 20);
	size_t len = sizeof(buf);

	*sig = 0;
	pgas_barrier(8, 0);
	for (uint64_t k = 1; k <= 5; k++) {
		t_fill(buf, len, 100 * k + me);
		T_EQ(pgas_put_with_signal(t, seg(t, (4 << 20) + 64), buf, len,
					  (uint64_t *)seg(t, 4 << 20), 1, PGAS_SIGNAL_ADD), 0);
		T_EQ(pgas_wait_until_u64(sig, PGAS_CMP_GE, k), 0);
		T_EQ(t_verify(seg(me, (4 << 20) + 64), len, 100 * k + from), len);
		pgas_barrier(9, 0);
	}
	t_case("put_with_signal: the signal after its %zu bytes of data, 5 rounds", len);
}

/* Every rank adds to one word of rank 0 (and a CAS loop on another). */
static void test_storm(void)
{
	enum { K = 3000 };
	uint64_t *w = (uint64_t *)seg(0, 5 << 20), old = 0, total = 0;
	pgas_ad_t ad;
	unsigned seen_order = 1;
	uint64_t prev = 0;

	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_FADD | PGAS_AOP_ADD | PGAS_AOP_FCAS |
			    PGAS_AOP_GET | PGAS_AOP_SET, 0), 0);
	if (me == 0) {
		T_EQ(pgas_ad_op_u64(ad, NULL, 0, w, PGAS_AOP_SET, 0, 0, 0), 0);
		T_EQ(pgas_ad_op_u64(ad, NULL, 0, w + 1, PGAS_AOP_SET, 0, 0, 0), 0);
	}
	pgas_barrier(10, 0);
	for (int i = 0; i < K; i++) {
		T_EQ(pgas_ad_op_u64(ad, &old, 0, w, PGAS_AOP_FADD, 1, 0, 0), 0);
		seen_order &= i == 0 || old > prev;
		prev = old;
		if (i % 3 == 0)
			T_EQ(pgas_ad_op_nbi_u64(ad, NULL, 0, w, PGAS_AOP_ADD, 2, 0, 0), 0);
		/* +1 on the second word by compare-and-swap */
		T_EQ(pgas_ad_op_u64(ad, &old, 0, w + 1, PGAS_AOP_GET, 0, 0, 0), 0);
		for (;;) {
			uint64_t got = ~old;

			T_EQ(pgas_ad_op_u64(ad, &got, 0, w + 1, PGAS_AOP_FCAS, old, old + 1, 0), 0);
			if (got == old)
				break;
			old = got;
		}
	}
	T_EQ(pgas_quiet(), 0);
	pgas_barrier(11, 0);
	T_EQ(pgas_ad_op_u64(ad, &total, 0, w, PGAS_AOP_GET, 0, 0, 0), 0);
	T_EQ(total, (uint64_t)n * (K + 2 * ((K + 2) / 3)));
	T_EQ(pgas_ad_op_u64(ad, &total, 0, w + 1, PGAS_AOP_GET, 0, 0, 0), 0);
	T_EQ(total, (uint64_t)n * K);
	T_CHECK(seen_order, "fetched values not increasing");
	pgas_ad_destroy(ad);
	pgas_barrier(12, 0);
	t_case("atomic storm: %u ranks x %d fetch-adds, adds and CAS increments on rank 0's words",
	       n, K);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { { H_LONG, h_long } };

	if (pgas_init(&argc, &argv))
		return 1;
	if (t_attach(table, 1, 8 << 20) < 0)
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	T_EQ(pgas_segment_register(area, RLEN), 0);
	test_nb_ack();
	test_nbi_many();
	test_chunked();
	test_region();
	test_signal_order();
	test_storm();
	t_done();
	return 0;
}
