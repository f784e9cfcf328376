// SPDX-License-Identifier: MIT
/*
 * rma_remote - put and get to a rank this process does not map (run it
 * with PGAS_MAP_PEERS=none, e.g. over the ofi conduit; docs/ofi.md "The
 * RMA path"): blocking latency of 8 bytes, and bandwidth 8 B..4 MiB as a
 * stream of _nbi operations and one sync (1 MiB in flight at most per
 * sync window of 64 operations).  pgas_bench's own sections use the
 * mapping of the peer for their limits, which an unmapped peer lacks.
 * Also the latency of a fetch-add of 8 bytes on rank 1's word and on the
 * own one through an atomic domain (PGAS_OFI_ATOMIC=fabric: fi_atomic
 * both, am: an AM to rank 1 and a CPU atomic here; docs/ofi.md
 * "Atomics"); "rma_remote amo" measures only those.
 * Rank 0 reports the best of BENCH_REPS; PGAS_BENCH_SCALE divides counts.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "pgas.h"

static unsigned scale = 1;

static double lat(int get, unsigned iters)
{
	uint64_t *remote = (uint64_t *)pgas_segment_addr(1), v = 0;
	double best = 1e9;

	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0 = bench_now(), t;

		for (uint64_t i = 0; i < iters; i++)
			if (get)
				pgas_get(&v, 1, remote, 8);
			else
				pgas_put(1, remote, &i, 8);
		t = (bench_now() - t0) / iters;
		best = t < best ? t : best;
	}
	return best * 1e6;
}

/* A fetch-add of 8 bytes on rank's first word, blocking. */
static double amo_lat(unsigned rank, unsigned iters)
{
	uint64_t *w = (uint64_t *)pgas_segment_addr(rank) + 8, old = 0;
	double best = 1e9;
	pgas_ad_t ad;

	if (pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_FADD, 0))
		return -1;
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0 = bench_now(), t;

		for (uint64_t i = 0; i < iters; i++)
			if (pgas_ad_op_u64(ad, &old, rank, w, PGAS_AOP_FADD, 1, 0, 0))
				return -1;
		t = (bench_now() - t0) / iters;
		best = t < best ? t : best;
	}
	pgas_ad_destroy(ad);
	return best * 1e6;
}

static double bw(int get, unsigned char *buf, size_t s)
{
	char *remote = pgas_segment_addr(1);
	size_t iters = ((size_t)64 << 20) / s / scale, window = 64;
	double best = 1e9;

	iters = iters > 20000 / scale ? 20000 / scale : iters < 8 ? 8 : iters;
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0 = bench_now(), t;

		for (size_t i = 0; i < iters; i++) {
			if (get)
				pgas_get_nbi(buf, 1, remote, s);
			else
				pgas_put_nbi(1, remote, buf, s);
			if (i % window == window - 1 || s * (i % window + 1) >= (1u << 20)) {
				if (get)
					pgas_wait_syncnbi_gets();
				else
					pgas_wait_syncnbi_puts();
			}
		}
		if (get)
			pgas_wait_syncnbi_gets();
		else
			pgas_wait_syncnbi_puts();
		t = bench_now() - t0;
		best = t < best ? t : best;
	}
	return (double)s * iters / best / 1e6;
}

int main(int argc, char **argv)
{
	size_t max = (size_t)4 << 20;
	unsigned char *buf;
	char name[64];

	if (getenv("PGAS_BENCH_SCALE"))
		scale = (unsigned)strtoul(getenv("PGAS_BENCH_SCALE"), NULL, 0) ?: 1;
	if (pgas_init(&argc, &argv) || pgas_attach(NULL, 0, 2 * max))
		return 1;
	if (pgas_nranks() != 2) {
		if (pgas_rank() == 0)
			fprintf(stderr, "rma_remote: run with pgasrun -n 2\n");
		pgas_exit(2);
	}
	buf = malloc(max);
	if (!buf)
		return 1;
	memset(buf, 1, max);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (pgas_rank() == 0) {
		bench_result("remote.fadd8_lat", amo_lat(1, 20000 / scale), "us");
		bench_result("remote.fadd8_self_lat", amo_lat(0, 20000 / scale), "us");
	}
	if (pgas_rank() == 0 && !(argc > 1 && !strcmp(argv[1], "amo"))) {
		bench_result("remote.put8_lat", lat(0, 20000 / scale), "us");
		bench_result("remote.get8_lat", lat(1, 20000 / scale), "us");
		static const size_t sizes[] = { 8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20 };

		for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t s = sizes[i];
			snprintf(name, sizeof(name), "remote.put_bw.%zu", s);
			bench_result(name, bw(0, buf, s), "MB/s");
			snprintf(name, sizeof(name), "remote.get_bw.%zu", s);
			bench_result(name, bw(1, buf, s), "MB/s");
		}
	}
	pgas_barrier(1, PGAS_BARRIERFLAG_ANONYMOUS);
	free(buf);
	pgas_exit(0);
}
