// SPDX-License-Identifier: MIT
/*
 * atomic_bench - remote atomics through an atomic domain (pgas_atomic.h),
 * each beside its limit measured in the same job: the bare CPU atomic
 * (__atomic_fetch_add, __atomic_compare_exchange_n) on the very word the
 * libpgas call reaches, through this process's mapping of the owner's
 * segment (pgas__xlate: the MAP_SHARED mapping the call itself uses), with
 * the same access pattern, so the same cache-line situation.
 *
 *   pgasrun -n N atomic_bench [section...]   sections: lat pingpong tput
 *                                            contended (default all)
 *
 * lat (N >= 2): rank 0 issues blocking fetching ops to a word of rank 1;
 *   the other ranks wait in a barrier.  Nobody else touches the line, so
 *   it stays in rank 0's cache: this is the cost of the call on a hot line
 *   (pgas.atomic.{fadd_u64,fadd_i64,cas}_lat against
 *   limit.atomic.{fadd,cas}_lat, ns/op).  CAS: each compare-and-swap
 *   succeeds (it compares with the value the previous one returned).
 * pingpong (N >= 2): line bouncing, the realistic remote case: ranks 0 and
 *   1 take turns on a word of rank 1 (the owner takes part, through the
 *   domain too), so every operation finds the line in the other core's
 *   cache.  fadd: wait (atomic get) until the word is 2i+me, then fetch-add
 *   1; cas: retry a CAS from 2i+me to 2i+me+1 until it succeeds.  Reported
 *   per round trip (two operations, two line transfers), ns, against the
 *   same with bare CPU atomics.
 * tput: every rank issues to a word (its own line) of rank (me+1) % N:
 *   uncontended throughput of non-fetching add and of fetch-add, summed
 *   over the ranks (Mops/s): .add_tput.N, .fadd_tput.N.
 * contended: every rank hits one word of rank 0: .add_contended.N,
 *   .fadd_contended.N (Mops/s, all ranks together).
 *
 * Times are the median of BENCH_REPS repetitions (throughput: barrier to
 * barrier on rank 0, all ranks' operations).  Rank 0 prints
 * "RESULT name value unit".
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "pgas.h"
#include "bench.h"

#define REPS 7		/* median of these */

static unsigned me, n;
static unsigned scale = 1;	/* PGAS_BENCH_SCALE divides the iteration counts */
static pgas_ad_t adu, adi;	/* uint64 and int64 domains */

static uint64_t iters_of(uint64_t k)
{
	return k / scale ? k / scale : 1;
}

static void sync_all(void)
{
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
}

/* Word w (one per cache line) in rank r's segment, as r's address. */
static uint64_t *word_of(unsigned r, unsigned w)
{
	return (uint64_t *)((char *)pgas_segment_addr(r) + 4096 + (size_t)w * 128);
}

/* The same word through this process's mapping of r's segment. */
static uint64_t *raw_of(unsigned r, unsigned w)
{
	return (uint64_t *)pgas__xlate(r, word_of(r, w), 8);
}

static void reset(unsigned r, unsigned w)
{
	if (me == r)
		__atomic_store_n(raw_of(r, w), 0, __ATOMIC_SEQ_CST);
	sync_all();
}

static volatile uint64_t sink;

#define MAX_KINDS 5	/* of the latency and ping-pong sections */

/*
 * REPS runs of each of the kinds on word 0 of rank 1, interleaved so that a
 * disturbance hits every kind alike: once(kind, iters) by the ranks below
 * ranks, the others waiting in the barrier; the medians reported in ns.
 */
static void run_on_word1(int kinds, const char *const *names, double (*once)(int, uint64_t),
			 uint64_t iters, unsigned ranks)
{
	double t[MAX_KINDS][REPS];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < kinds; k++) {
			reset(1, 0);
			t[k][rep] = me < ranks ? once(k, iters) : 0;
			sync_all();
		}
	for (int k = 0; k < kinds; k++) {
		double m = bench_median(t[k], REPS);

		if (me == 0)
			bench_result(names[k], m * 1e9, "ns");
	}
}

/* ---- latency: rank 0 -> a word of rank 1, the line stays hot ---------- */

enum { L_PGAS_FADD_U64, L_PGAS_FADD_I64, L_PGAS_CAS, L_RAW_FADD, L_RAW_CAS, L_KINDS };
_Static_assert(L_KINDS <= MAX_KINDS, "MAX_KINDS");

static double lat_once(int kind, uint64_t iters)
{
	uint64_t *w = word_of(1, 0), *raw = raw_of(1, 0), acc = 0, r = 0, cur = 0;
	int64_t ri = 0, acci = 0;
	double t0;

	t0 = bench_now();
	switch (kind) {
	case L_PGAS_FADD_U64:
		for (uint64_t i = 0; i < iters; i++) {
			pgas_ad_op_u64(adu, &r, 1, w, PGAS_AOP_FADD, 1, 0, 0);
			acc += r;
		}
		break;
	case L_PGAS_FADD_I64:
		for (uint64_t i = 0; i < iters; i++) {
			pgas_ad_op_i64(adi, &ri, 1, w, PGAS_AOP_FADD, 1, 0, 0);
			acci += ri;
		}
		acc = (uint64_t)acci;
		break;
	case L_PGAS_CAS:
		cur = __atomic_load_n(raw, __ATOMIC_RELAXED);
		for (uint64_t i = 0; i < iters; i++) {
			pgas_ad_op_u64(adu, &r, 1, w, PGAS_AOP_FCAS, cur, cur + 1, 0);
			cur = r + 1;
		}
		acc = cur;
		break;
	case L_RAW_FADD:
		for (uint64_t i = 0; i < iters; i++)
			acc += __atomic_fetch_add(raw, 1, __ATOMIC_RELAXED);
		break;
	case L_RAW_CAS:
		cur = __atomic_load_n(raw, __ATOMIC_RELAXED);
		for (uint64_t i = 0; i < iters; i++) {
			r = cur;
			__atomic_compare_exchange_n(raw, &r, cur + 1, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			cur = r + 1;	/* success: r stays cur */
		}
		acc = cur;
		break;
	}
	sink = acc;
	return (bench_now() - t0) / (double)iters;
}

static void lat_section(void)
{
	static const char *const names[L_KINDS] = {
		"pgas.atomic.fadd_u64_lat", "pgas.atomic.fadd_i64_lat", "pgas.atomic.cas_lat",
		"limit.atomic.fadd_lat", "limit.atomic.cas_lat",
	};

	run_on_word1(L_KINDS, names, lat_once, iters_of(2000000), 1);
}

/* ---- line bouncing: ranks 0 and 1 take turns on a word of rank 1 ------- */

enum { P_PGAS_FADD, P_RAW_FADD, P_PGAS_CAS, P_RAW_CAS, P_KINDS };
_Static_assert(P_KINDS <= MAX_KINDS, "MAX_KINDS");

static double pingpong_once(int kind, uint64_t iters)
{
	uint64_t *w = word_of(1, 0), *raw = raw_of(1, 0), r = 0, acc = 0;
	double t0;

	t0 = bench_now();
	for (uint64_t i = 0; i < iters; i++) {
		uint64_t turn = 2 * i + me;

		switch (kind) {
		case P_PGAS_FADD:
			do
				pgas_ad_op_u64(adu, &r, 1, w, PGAS_AOP_GET, 0, 0, PGAS_AOP_ACQ);
			while (r != turn);
			pgas_ad_op_u64(adu, &r, 1, w, PGAS_AOP_FADD, 1, 0, PGAS_AOP_REL);
			acc += r;
			break;
		case P_RAW_FADD:
			while (__atomic_load_n(raw, __ATOMIC_ACQUIRE) != turn)
				;
			acc += __atomic_fetch_add(raw, 1, __ATOMIC_RELEASE);
			break;
		case P_PGAS_CAS:
			do
				pgas_ad_op_u64(adu, &r, 1, w, PGAS_AOP_FCAS, turn, turn + 1,
					       PGAS_AOP_ACQ | PGAS_AOP_REL);
			while (r != turn);
			break;
		case P_RAW_CAS:
			do
				r = turn;
			while (!__atomic_compare_exchange_n(raw, &r, turn + 1, 0, __ATOMIC_ACQ_REL,
							    __ATOMIC_ACQUIRE));
			break;
		}
	}
	sink = acc;
	return (bench_now() - t0) / (double)iters;
}

static void pingpong_section(void)
{
	static const char *const names[P_KINDS] = {
		"pgas.atomic.fadd_pingpong", "limit.atomic.fadd_pingpong",
		"pgas.atomic.cas_pingpong", "limit.atomic.cas_pingpong",
	};

	run_on_word1(P_KINDS, names, pingpong_once, iters_of(200000), 2);
}

/* ---- throughput: uncontended (next rank's word) and contended (rank 0) -- */

enum { T_PGAS_ADD, T_RAW_ADD, T_PGAS_FADD, T_RAW_FADD, T_KINDS };

static double tput_once(int kind, unsigned target, unsigned wi, uint64_t iters)
{
	uint64_t *w = word_of(target, wi), *raw = raw_of(target, wi), r = 0, acc = 0;
	double t0;

	sync_all();
	t0 = bench_now();
	switch (kind) {
	case T_PGAS_ADD:
		for (uint64_t i = 0; i < iters; i++)
			pgas_ad_op_u64(adu, NULL, target, w, PGAS_AOP_ADD, 1, 0, 0);
		break;
	case T_RAW_ADD:
		for (uint64_t i = 0; i < iters; i++)
			__atomic_fetch_add(raw, 1, __ATOMIC_RELAXED);	/* lock add */
		break;
	case T_PGAS_FADD:
		for (uint64_t i = 0; i < iters; i++) {
			pgas_ad_op_u64(adu, &r, target, w, PGAS_AOP_FADD, 1, 0, 0);
			acc += r;
		}
		break;
	case T_RAW_FADD:
		for (uint64_t i = 0; i < iters; i++)
			acc += __atomic_fetch_add(raw, 1, __ATOMIC_RELAXED);
		break;
	}
	sink = acc;
	sync_all();
	/* All ranks' operations, barrier to barrier, per second. */
	return (double)iters * n / (bench_now() - t0) / 1e6;
}

static void tput_section(int contended)
{
	static const char *const names[T_KINDS] = { "pgas.atomic.%s.%u", "limit.atomic.%s.%u",
						    "pgas.atomic.f%s.%u", "limit.atomic.f%s.%u" };
	const uint64_t iters = iters_of(contended ? 500000 : 4000000);
	/* Uncontended: rank me's own line in the next rank's segment. */
	unsigned target = contended ? 0 : (me + 1) % n, wi = contended ? 0 : me;
	double t[T_KINDS][REPS];
	char name[80];

	for (int rep = 0; rep < REPS; rep++)
		for (int k = 0; k < T_KINDS; k++) {
			reset(target, wi);
			t[k][rep] = tput_once(k, target, wi, iters);
		}
	for (int k = 0; k < T_KINDS; k++) {
		double m;

		/* the median of rates: the median time */
		m = bench_median(t[k], REPS);
		snprintf(name, sizeof(name), names[k], contended ? "add_contended" : "add_tput", n);
		if (me == 0)
			bench_result(name, m, "Mops/s");
	}
}

int main(int argc, char **argv)
{
	if (getenv("PGAS_BENCH_SCALE"))
		scale = (unsigned)strtoul(getenv("PGAS_BENCH_SCALE"), NULL, 0) ?: 1;
	if (pgas_init(&argc, &argv) || pgas_attach(NULL, 0, (size_t)1 << 20))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (n > 16) {
		if (me == 0)
			fprintf(stderr, "atomic_bench: at most 16 ranks\n");
		pgas_exit(2);
	}
	if (pgas_ad_create(&adu, PGAS_DT_U64,
			   PGAS_AOP_GET | PGAS_AOP_ADD | PGAS_AOP_FADD | PGAS_AOP_FCAS, 0) ||
	    pgas_ad_create(&adi, PGAS_DT_I64, PGAS_AOP_FADD, 0))
		pgas_exit(1);
	bench_atomic_sections(argc, argv, 1, (int)n, lat_section, pingpong_section, tput_section);
	sync_all();
	pgas_ad_destroy(adu);
	pgas_ad_destroy(adi);
	pgas_exit(0);
}
