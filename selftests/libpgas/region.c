// SPDX-License-Identifier: MIT
/*
 * region - pgas_segment_register: a second segment of memory the process
 * already has (here a page-aligned .bss array with initialised .data after
 * it, the shape of a program's data), reached with the owner's addresses
 * by put/get (blocking, nb, nbi, val), atomics, signals, strided puts and
 * pgas_ptr; its contents survive the registration; and the misuse errors:
 * before attach, unaligned, empty, overlapping the segment, twice.
 * Run with PGAS_ERROR_MODE=quiet.
 *
 *   pgasrun -n N region
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "pgas_atomic.h"
#include "pgas_signal.h"
#include "pgas_vis.h"

#define PAGE 4096
#define RLEN (16 * PAGE)

/* The registered range: .bss, page-aligned, plus values set before. */
static unsigned char area[RLEN] __attribute__((aligned(PAGE)));

#define T_ERR(call, code, ...)							\
	do {									\
		int rc_ = (call);						\
		const char *want_[] = { __VA_ARGS__ };				\
		T_CHECK(rc_ == (code), "%s returned %d (%s), expected %d", #call, rc_,	\
			pgas_strerror(rc_), (code));				\
		for (size_t i_ = 0; i_ < sizeof(want_) / sizeof(want_[0]); i_++)	\
			T_CHECK(strstr(pgas_last_error(), want_[i_]),		\
				"message \"%s\" lacks \"%s\"", pgas_last_error(), want_[i_]); \
	} while (0)

static unsigned me, n;
static pgas_seginfo_t *info;

/* Rank r's address of offset off in its region. */
static void *at(unsigned r, size_t off)
{
	return (char *)info[r].addr + off;
}

int main(int argc, char **argv)
{
	int early_rc, rc;

	if (pgas_init(&argc, &argv))
		return 1;
	/* Before attach: refused (checked after t_attach, which TAP needs). */
	early_rc = pgas_segment_register(area, RLEN);
	char early_msg[256];

	snprintf(early_msg, sizeof(early_msg), "%s", pgas_last_error());
	for (size_t i = 0; i < RLEN; i++)
		area[i] = (unsigned char)(i * 7 + 3);
	if (t_attach(NULL, 0, PAGE) < 0)
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	T_EQ(early_rc, PGAS_ERR_STATE);
	T_CHECK(strstr(early_msg, "pgas_segment_register"), "message \"%s\"", early_msg);
	t_case("pgas_segment_register before pgas_attach: PGAS_ERR_STATE");

	T_ERR(pgas_segment_register(area + 1, RLEN - PAGE), PGAS_ERR_INVAL,
	      "pgas_segment_register", "page size");
	T_ERR(pgas_segment_register(area, RLEN - 1), PGAS_ERR_INVAL, "pgas_segment_register",
	      "page size");
	T_ERR(pgas_segment_register(area, 0), PGAS_ERR_INVAL, "pgas_segment_register",
	      "len is 0");
	T_ERR(pgas_segment_register(NULL, PAGE), PGAS_ERR_INVAL, "pgas_segment_register",
	      "NULL");
	T_ERR(pgas_segment_register(pgas_segment_addr(me), PAGE), PGAS_ERR_INVAL,
	      "pgas_segment_register", "overlaps");
	T_ERR(pgas_region_info(n, &(pgas_seginfo_t){ 0 }), PGAS_ERR_RANK, "pgas_region_info");
	{
		pgas_seginfo_t none;

		T_EQ(pgas_region_info(0, &none), 0);
		T_CHECK(!none.addr && !none.size, "a region before any registration");
	}
	t_case("pgas_segment_register misuse: unaligned, empty, NULL, overlapping the segment");

	/* Outside any region yet: refused as out of bounds. */
	T_ERR(pgas_put(0, area, "x", 1), PGAS_ERR_BOUNDS, "pgas_put");
	/* Rank n-1 registers nothing: allowed. */
	rc = me == n - 1 && n > 1 ? pgas_segment_register(NULL, 0)
				  : pgas_segment_register(area, RLEN);
	T_EQ(rc, 0);
	info = calloc(n, sizeof(*info));
	for (unsigned r = 0; r < n; r++) {
		T_EQ(pgas_region_info(r, &info[r]), 0);
		if (r == n - 1 && n > 1)
			T_CHECK(!info[r].addr && !info[r].size, "rank %u registered none", r);
		else
			T_CHECK(info[r].size == RLEN, "rank %u: %zu bytes", r, info[r].size);
	}
	T_CHECK(info[me].size == 0 || info[me].addr == area, "my region's address");
	for (size_t i = 0; i < RLEN; i++)
		if (area[i] != (unsigned char)(i * 7 + 3)) {
			T_CHECK(0, "area[%zu] = %u after registration", i, area[i]);
			break;
		}
	t_case("pgas_segment_register: every rank's region, contents kept");

	T_ERR(pgas_segment_register(area, RLEN), PGAS_ERR_STATE, "pgas_segment_register",
	      "twice");
	t_case("pgas_segment_register twice: PGAS_ERR_STATE");

	/* The ranks that registered: 0..m-1 (all of them in a 1-rank job). */
	unsigned m = n > 1 ? n - 1 : 1;
	unsigned right = (me + 1) % m, left = (me + m - 1) % m;
	unsigned char buf[512];

	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me < m) {
		pgas_handle_t h;
		uint64_t v;

		t_fill(buf, sizeof(buf), me);
		T_EQ(pgas_put(right, at(right, 0), buf, 256), 0);
		T_EQ(pgas_put_nbi(right, at(right, 256), buf + 256, 128), 0);
		T_EQ(pgas_put_nb(&h, right, at(right, 384), buf + 384, 128), 0);
		T_EQ(pgas_wait_syncnb(h), 0);
		T_EQ(pgas_put_val(right, at(right, 1024), 0x1122334455667788ull + me, 8), 0);
		T_EQ(pgas_quiet(), 0);
		/* The last byte of the region: in; one past: out. */
		T_EQ(pgas_put(right, at(right, RLEN - 1), "z", 1), 0);
		T_ERR(pgas_put(right, at(right, RLEN - 1), "zz", 2), PGAS_ERR_BOUNDS, "pgas_put",
		      "and region");
		T_ERR(pgas_get(buf, right, at(right, RLEN), 1), PGAS_ERR_BOUNDS, "pgas_get");
		(void)v;
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me < m) {
		unsigned char got[512];
		pgas_handle_t h;
		uint64_t v = 0;

		T_EQ(t_verify(area, 512, left), 512);
		T_EQ(*(uint64_t *)(area + 1024), 0x1122334455667788ull + left);
		T_EQ(area[RLEN - 1], 'z');
		memset(got, 0, sizeof(got));
		T_EQ(pgas_get(got, right, at(right, 0), 256), 0);
		T_EQ(pgas_get_nbi(got + 256, right, at(right, 256), 128), 0);
		T_EQ(pgas_get_nb(&h, got + 384, right, at(right, 384), 128), 0);
		T_EQ(pgas_wait_syncnb(h), 0);
		T_EQ(pgas_quiet(), 0);
		T_EQ(t_verify(got, 512, me), 512);
		T_EQ(pgas_get_val(&v, right, at(right, 1024), 8), 0);
		T_EQ(v, 0x1122334455667788ull + me);
		/* pgas_ptr: shm and pgas.ko map every peer */
		unsigned char *p = pgas_ptr(right, at(right, 0));

		/* (none with PGAS_MAP_PEERS=none: only this rank is reachable) */
		T_CHECK(p != NULL || !pgas_ptr(right, pgas_segment_addr(right)),
			"pgas_ptr of rank %u's region", right);
		if (p)
			T_EQ(t_verify(p, 512, me), 512);
		T_CHECK(pgas_ptr(right, at(right, RLEN)) == NULL, "one past the region");
	}
	t_case("put/get (blocking, nb, nbi, val) and pgas_ptr in the region");

	/* Atomics: every registered rank adds to rank 0's word. */
	pgas_ad_t ad;
	const int K = 100;

	T_EQ(pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_ADD | PGAS_AOP_FADD | PGAS_AOP_GET |
			    PGAS_AOP_SET, 0), 0);
	uint64_t *ctr = at(0, 2048);

	*(uint64_t *)(area + 2048) = 0;
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me < m)
		for (int i = 0; i < K; i++)
			T_EQ(pgas_ad_op_u64(ad, NULL, 0, ctr, PGAS_AOP_ADD, 1, 0, 0), 0);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me < m) {
		uint64_t got = 0;

		T_EQ(pgas_ad_op_u64(ad, &got, 0, ctr, PGAS_AOP_GET, 0, 0, 0), 0);
		T_EQ(got, (uint64_t)K * m);
	}
	t_case("atomics (a domain's add, get) on rank 0's region");

	/* Signals: put with a signal into the right's region, wait on mine. */
	uint64_t *sigw = (uint64_t *)(area + 3072);

	*sigw = 0;
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me < m) {
		t_fill(buf, 256, me + 100);
		T_EQ(pgas_put_with_signal(right, at(right, 4096), buf, 256, at(right, 3072), 5,
					  PGAS_SIGNAL_ADD), 0);
		T_EQ(pgas_wait_until_u64(sigw, PGAS_CMP_EQ, 5), 0);
		T_EQ(t_verify(area + 4096, 256, left + 100), 256);
	}
	t_case("put_with_signal into the region, wait_until on a region word");

	/* A strided put (pgas_vis.h) into the region. */
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me < m) {
		t_fill(buf, 128, me + 200);
		/* 16 elements of 8 bytes: packed here, 16 bytes apart there */
		T_EQ(pgas_iput(right, at(right, 8192), 2, buf, 1, 8, 16), 0);
		T_EQ(pgas_quiet(), 0);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me < m) {
		t_fill(buf, 128, left + 200);
		for (int i = 0; i < 16; i++)
			T_CHECK(!memcmp(area + 8192 + 16 * i, buf + 8 * i, 8), "stride %d", i);
	}
	t_case("strided put into the region");
	free(info);
	t_done();
}
