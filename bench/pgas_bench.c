// SPDX-License-Identifier: MIT
/*
 * pgas_bench - libpgas on 2 ranks, and the physical limits measured in the
 * same job:
 *
 *   limit.cacheline_rtt   two processes bouncing one shared cache line
 *   limit.store8/load8    a plain 8-byte store (load) + release (acquire)
 *                         fence through the same mapping pgas_put uses
 *   limit.memcpy_bw.S     memcpy of S bytes into the bytes a put writes
 *   limit.memcpy_get_bw.S memcpy of the get's own buffers (segment to malloc)
 *   limit.barrier_raw     a 2-rank barrier of raw stores, one line each way
 *
 *   pgas_bench [section...]   sections: lat am bw rate barrier (default all);
 *                             call and pingpong: lat's two parts without the limits
 *
 * Rank 0 reports; values are the best of BENCH_REPS repetitions.  With rank 1
 * on another host (the ofi conduit, scripts/bench-multihost.sh) the limits
 * that need its segment mapped are left out, and a rank waiting for a put
 * waits in pgas_block_until (the fabric delivers it in progress).  PGAS_BENCH_SCALE divides the
 * iteration counts (the bandwidth section's too).
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "pgas.h"
#include "bench.h"
#include "selftests/libpgas/pingpong.h"

enum { H_SINK = H_PONG + 1, H_MED, H_MED_PONG, H_LONG };

static unsigned me;
static unsigned scale = 1;	/* PGAS_BENCH_SCALE: divide iteration counts (emulated cpus) */

/* Time since t0 per iteration, kept in *best when it beats it. */
static void keep_best(double *best, double t0, double iters)
{
	double t = (bench_now() - t0) / iters;

	if (t < *best)
		*best = t;
}

static uint64_t iters_of(uint64_t n)
{
	return n / scale ? n / scale : 1;
}
static volatile unsigned sunk;

static void h_sink(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	sunk++;
}

static void h_med(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)a; (void)na;
	pgas_am_reply_medium(t, H_MED_PONG, b, n, NULL, 0);
}

static void h_long(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	unsigned src;

	(void)a; (void)na;
	pgas_token_rank(t, &src);
	pgas_am_reply_long(t, H_PONG, b, n, pgas_segment_addr(src), NULL, 0);
}

/* ---- the physical limit ---------------------------------------------------- */

/* Rank 0 and rank 1 bounce a counter in one line of rank 1's segment. */
static void limit_cacheline(void)
{
	/* Each rank reaches the line through its own mapping of rank 1's segment. */
	_Atomic uint64_t *mine = (_Atomic uint64_t *)pgas__xlate(
		1, (char *)pgas_segment_addr(1) + 8192, 8);
	const uint64_t iters = iters_of(200000);
	double best = 1e9;

	if (!mine)	/* rank 1 on another host (ofi): no line to share */
		return;
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0;

		atomic_store(mine, 0);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		t0 = bench_now();
		for (uint64_t i = 0; i < iters; i++) {
			if (me == 0) {
				atomic_store_explicit(mine, 2 * i + 1, memory_order_release);
				while (atomic_load_explicit(mine, memory_order_acquire) != 2 * i + 2)
					;
			} else {
				while (atomic_load_explicit(mine, memory_order_acquire) != 2 * i + 1)
					;
				atomic_store_explicit(mine, 2 * i + 2, memory_order_release);
			}
		}
		keep_best(&best, t0, (double)iters);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	}
	if (me == 0)
		bench_result("limit.cacheline_rtt", best * 1e6, "us");
}

/* ---- latency of 8-byte put/get -------------------------------------------- */

static void lat_put_get(void)
{
	const uint64_t iters = iters_of(2000000);
	uint64_t *remote = (uint64_t *)pgas_segment_addr(1) + 2048;
	_Atomic uint64_t *direct = (_Atomic uint64_t *)pgas__xlate(1, remote, 8);
	double best[6] = { 1e9, 1e9, 1e9, 1e9, 1e9, 1e9 };
	uint64_t v = 0, acc = 0;

	if (me != 0)
		return;
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0 = bench_now(), t;

		for (uint64_t i = 0; i < iters; i++)
			pgas_put(1, remote, &i, 8);
		t = (bench_now() - t0) / (double)iters;
		best[0] = t < best[0] ? t : best[0];
		t0 = bench_now();
		for (uint64_t i = 0; direct && i < iters; i++) {
			atomic_store_explicit(direct, i, memory_order_relaxed);
			PGAS__FENCE(memory_order_release);
		}
		t = (bench_now() - t0) / (double)iters;
		best[1] = t < best[1] ? t : best[1];
		t0 = bench_now();
		for (uint64_t i = 0; i < iters; i++) {
			pgas_get(&v, 1, remote, 8);
			acc += v;
		}
		t = (bench_now() - t0) / (double)iters;
		best[2] = t < best[2] ? t : best[2];
		t0 = bench_now();
		for (uint64_t i = 0; direct && i < iters; i++) {
			PGAS__FENCE(memory_order_acquire);
			acc += atomic_load_explicit(direct, memory_order_relaxed);
		}
		t = (bench_now() - t0) / (double)iters;
		best[3] = t < best[3] ? t : best[3];
		/* What OpenSHMEM's p + quiet and g are, in libpgas's calls (the
		 * layer's overhead is measured against these: bench/peers/shmem_bench.c). */
		t0 = bench_now();
		for (uint64_t i = 0; i < iters; i++) {
			pgas_put_val(1, remote, i, 8);
			pgas_quiet();
		}
		t = (bench_now() - t0) / (double)iters;
		best[4] = t < best[4] ? t : best[4];
		t0 = bench_now();
		for (uint64_t i = 0; i < iters; i++) {
			pgas_get_val(&v, 1, remote, 8);
			acc += v;
		}
		t = (bench_now() - t0) / (double)iters;
		best[5] = t < best[5] ? t : best[5];
	}
	if (acc == 42)	/* keep the loads */
		printf("#\n");
	bench_result("pgas.put8_call", best[0] * 1e9, "ns");
	if (direct)
		bench_result("limit.store8_call", best[1] * 1e9, "ns");
	bench_result("pgas.get8_call", best[2] * 1e9, "ns");
	bench_result("pgas.put8_val_quiet", best[4] * 1e9, "ns");
	bench_result("pgas.get8_val", best[5] * 1e9, "ns");
	if (direct)
		bench_result("limit.load8_call", best[3] * 1e9, "ns");
}

/*
 * Ping-pongs on two flags, one in each rank's segment; how a rank writes
 * the peer's flag and reads its own is the variant:
 *   0 limit.store_pingpong  raw store through the mapping / raw local load
 *   1 pgas.put8_pingpong    pgas_put / raw local load
 *   2 limit.load_pingpong   raw local store / raw load through the mapping
 *   3 pgas.get8_pingpong    raw local store / pgas_get of the peer's flag
 * In 2 and 3 each rank polls the peer's flag remotely.
 */
static double pingpong(int variant)
{
	const uint64_t iters = iters_of(200000);
	unsigned peer = 1 - me;
	uint64_t *mine = (uint64_t *)pgas_segment_addr(me) + 4096;
	uint64_t *theirs = (uint64_t *)pgas_segment_addr(peer) + 4096;
	_Atomic uint64_t *theirs_mapped = (_Atomic uint64_t *)pgas__xlate(peer, theirs, 8);
	double best = 1e9;

	if (!theirs_mapped && (variant == 0 || variant == 2))
		return 0;	/* the peer on another host (ofi): no raw stores or loads */
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0;

		__atomic_store_n(mine, 0, __ATOMIC_RELEASE);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		t0 = bench_now();
		for (uint64_t i = 1; i <= iters; i++) {
			/* rank 0 sends first; rank 1 answers */
			for (int step = 0; step < 2; step++) {
				if ((step == 0) == (me == 0)) {		/* send i */
					if (variant == 0)
						atomic_store_explicit(theirs_mapped, i, memory_order_release);
					else if (variant == 1)
						pgas_put(peer, theirs, &i, 8);
					else
						__atomic_store_n(mine, i, __ATOMIC_RELEASE);
				} else {				/* wait for i */
					uint64_t v = 0;

					if (variant == 2)
						while (atomic_load_explicit(theirs_mapped, memory_order_acquire) != i)
							;
					else if (variant == 3)
						do
							pgas_get(&v, peer, theirs, 8);
						while (v != i);
					else if (theirs_mapped)
						while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) != i)
							;
					else	/* a put over the fabric lands in this rank's progress */
						pgas_block_until(__atomic_load_n(mine, __ATOMIC_ACQUIRE) == i);
				}
			}
		}
		keep_best(&best, t0, (double)iters);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	}
	return best * 1e6;
}

static void lat_pingpongs(void)
{
	static const char *const names[] = { "limit.store_pingpong", "pgas.put8_pingpong",
					     "limit.load_pingpong", "pgas.get8_pingpong" };

	for (int v = 0; v < 4; v++) {
		double t = pingpong(v);

		if (me == 0 && t > 0)
			bench_result(names[v], t, "us");
	}
}

/* ---- AM round trips ------------------------------------------------------- */

static double am_rtt(unsigned handler, size_t size, unsigned iters, int kind)
{
	static unsigned char buf[1 << 16];
	double best = 1e9;

	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0;

		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		pongs = 0;
		t0 = bench_now();
		if (me == 0) {
			for (unsigned i = 0; i < iters; i++) {
				uint32_t arg = i;

				if (kind == 0)
					pgas_am_request_short(1, handler, &arg, 1);
				else if (kind == 1)
					pgas_am_request_medium(1, handler, buf, size, NULL, 0);
				else
					pgas_am_request_long(1, handler, buf, size,
							     pgas_segment_addr(1), NULL, 0);
				pgas_block_until(pongs == i + 1);
			}
			keep_best(&best, t0, iters);
		}
		pgas_barrier(1, PGAS_BARRIERFLAG_ANONYMOUS);	/* rank 1 serves while waiting */
	}
	return best * 1e6;
}

static void am_section(void)
{
	static const size_t med[] = { 8, 56, 256, 512, 952, 1024, 2048, 4096, 8192 };
	static const size_t lng[] = { 8, 4096, 65536 };
	char name[64];
	double v;

	v = am_rtt(H_PING, 0, (unsigned)iters_of(200000), 0);
	if (me == 0)
		bench_result("pgas.am_short_rtt", v, "us");
	for (unsigned i = 0; i < sizeof(med) / sizeof(med[0]); i++) {
		if (med[i] > pgas_am_max_medium())
			continue;
		v = am_rtt(H_MED, med[i], (unsigned)iters_of(50000), 1);
		snprintf(name, sizeof(name), "pgas.am_medium_rtt.%zu", med[i]);
		if (me == 0)
			bench_result(name, v, "us");
	}
	for (unsigned i = 0; i < sizeof(lng) / sizeof(lng[0]); i++) {
		v = am_rtt(H_LONG, lng[i], (unsigned)iters_of(20000), 2);
		snprintf(name, sizeof(name), "pgas.am_long_rtt.%zu", lng[i]);
		if (me == 0)
			bench_result(name, v, "us");
	}
}

/* ---- bandwidth -------------------------------------------------------------- */

/* Seconds for iters memcpy calls of s bytes (NULL dst or src: not measured). */
static double memcpy_loop(void *dst, const void *src, size_t s, size_t iters)
{
	double t0 = bench_now();

	for (size_t i = 0; dst && src && i < iters; i++) {
		memcpy(dst, src, s);
		__asm__ __volatile__("" ::: "memory");
	}
	return bench_now() - t0;
}

static void bw_result(const char *what, size_t s, size_t iters, double best)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.%zu", what, s);
	bench_result(name, (double)s * iters / best / 1e6, "MB/s");
}

static void bw_section(void)
{
	static unsigned char *src, *dst;
	size_t max = (size_t)4 << 20;

	src = malloc(max);
	dst = malloc(max);
	memset(src, 1, max);
	memset(dst, 2, max);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me == 0) {
		char *remote = pgas_segment_addr(1);
		/* The limit copies into the very bytes the put writes. */
		char *same_dst = pgas__xlate(1, remote, max);

		for (size_t s = 8; s <= max; s *= 2) {
			size_t iters = ((size_t)256 << 20) / s > 2000000 ? 2000000 : ((size_t)256 << 20) / s;
			double bp = 1e9, bg = 1e9, bm = 1e9, bmg = 1e9, t0, t;

			iters /= scale;
			if (iters < 20)
				iters = 20;
			for (int rep = 0; rep < BENCH_REPS; rep++) {
				t0 = bench_now();
				for (size_t i = 0; i < iters; i++)
					pgas_put_nbi(1, remote, src, s);
				pgas_wait_syncnbi_puts();
				t = bench_now() - t0;
				bp = t < bp ? t : bp;
				t0 = bench_now();
				for (size_t i = 0; i < iters; i++)
					pgas_get_nbi(dst, 1, remote, s);
				pgas_wait_syncnbi_gets();
				t = bench_now() - t0;
				bg = t < bg ? t : bg;
				t = memcpy_loop(same_dst, src, s, iters);
				bm = t < bm ? t : bm;
				/* memcpy of the get's own buffers: what the user's memcpy gets. */
				t = memcpy_loop(dst, same_dst, s, iters);
				bmg = t < bmg ? t : bmg;
			}
			bw_result("pgas.put_bw", s, iters, bp);
			bw_result("pgas.get_bw", s, iters, bg);
			if (same_dst) {
				bw_result("limit.memcpy_bw", s, iters, bm);
				bw_result("limit.memcpy_get_bw", s, iters, bmg);
			}
		}
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	free(src);
	free(dst);
}

/* ---- message rate and barrier ---------------------------------------------- */

/* One-way AM rate: Short when size is 0, else Medium of size bytes. */
static void one_way_rate(const char *name, size_t size, unsigned msgs)
{
	static unsigned char buf[8192];
	double best = 1e9;

	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0;

		sunk = 0;
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		t0 = bench_now();
		if (me == 0)
			for (unsigned i = 0; i < msgs; i++) {
				if (size)
					pgas_am_request_medium(1, H_SINK, buf, size, NULL, 0);
				else
					pgas_am_request_short(1, H_SINK, NULL, 0);
			}
		else
			pgas_block_until(sunk == msgs);
		pgas_barrier(1, PGAS_BARRIERFLAG_ANONYMOUS);
		keep_best(&best, t0, 1);
	}
	if (me == 0)
		bench_result(name, msgs / best / 1e6, "Mmsg/s");
}

static void rate_section(void)
{
	one_way_rate("pgas.am_short_rate", 0, (unsigned)iters_of(2000000));
	one_way_rate("pgas.am_medium_rate.256", 256, (unsigned)iters_of(200000));
	one_way_rate("pgas.am_medium_rate.1024", 1024, (unsigned)iters_of(200000));
}

/*
 * The barrier's limit: the same pattern with raw stores, each rank storing
 * a count into a word of the peer's segment and spinning on its own (one
 * line each way, as pgas_barrier on 2 ranks).  With pause in the spin
 * (as the library's waits do) and without: the faster is the limit.  Its
 * repetitions alternate with pgas_barrier's, because this VM's vCPUs move
 * between placements within minutes and the ratio must compare like with like.
 */
static double raw_barrier(unsigned iters, int relax)
{
	static uint64_t seq;
	unsigned peer = 1 - me;
	_Atomic uint64_t *mine = (_Atomic uint64_t *)((uint64_t *)pgas_segment_addr(me) + 4096 + 16);
	_Atomic uint64_t *theirs = (_Atomic uint64_t *)pgas__xlate(
		peer, (uint64_t *)pgas_segment_addr(peer) + 4096 + 16, 8);
	double t0;

	if (!theirs)	/* the peer on another host (ofi): no raw stores */
		return 1e9;
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	t0 = bench_now();
	for (unsigned i = 0; i < iters; i++) {
		seq++;
		atomic_store_explicit(theirs, seq, memory_order_release);
		while (atomic_load_explicit(mine, memory_order_acquire) < seq)
			if (relax)
				bench_relax();
	}
	return (bench_now() - t0) / iters;
}

static void barrier_section(void)
{
	const unsigned iters = (unsigned)iters_of(500000);
	double best = 1e9, raw = 1e9;

	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0, t;

		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		t0 = bench_now();
		for (unsigned i = 0; i < iters; i++)
			pgas_barrier(i, 0);
		keep_best(&best, t0, iters);
		for (int relax = 0; relax < 2 && pgas_nranks() == 2; relax++) {
			t = raw_barrier(iters, relax);
			raw = t < raw ? t : raw;
		}
	}
	if (me == 0)
		bench_result("pgas.barrier", best * 1e6, "us");
	if (me == 0 && raw < 1e9)
		bench_result("limit.barrier_raw", raw * 1e6, "us");
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		PINGPONG_HANDLERS, { H_SINK, h_sink },
		{ H_MED, h_med }, { H_MED_PONG, h_pong }, { H_LONG, h_long },
	};

	if (getenv("PGAS_BENCH_SCALE"))
		scale = (unsigned)strtoul(getenv("PGAS_BENCH_SCALE"), NULL, 0) ?: 1;
	if (pgas_init(&argc, &argv) || pgas_attach(table, 6, (size_t)8 << 20))
		return 1;
	me = pgas_rank();
	if (pgas_nranks() != 2) {
		if (me == 0)
			fprintf(stderr, "pgas_bench: run with pgasrun -n 2\n");
		pgas_exit(2);
	}
	if (bench_want(argc, argv, 1, "lat")) {
		limit_cacheline();
		lat_put_get();
		lat_pingpongs();
	} else {	/* lat's parts alone (bench-multihost.sh runs them apart) */
		if (bench_want(argc, argv, 1, "call"))
			lat_put_get();
		if (bench_want(argc, argv, 1, "pingpong"))
			lat_pingpongs();
	}
	if (bench_want(argc, argv, 1, "am"))
		am_section();
	if (bench_want(argc, argv, 1, "bw"))
		bw_section();
	if (bench_want(argc, argv, 1, "rate"))
		rate_section();
	if (bench_want(argc, argv, 1, "barrier"))
		barrier_section();
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	pgas_exit(0);
}
