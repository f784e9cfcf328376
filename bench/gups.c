// SPDX-License-Identifier: MIT
/*
 * gups - RandomAccess (GUPS) by the HPC Challenge rules, over libpgas.
 *
 *   pgasrun -n N gups [-v atomic|gmp|am|all] [-n LOG2] [-u F] [-s SEED] [-b WORDS]
 *
 * The rules followed (HPCC 1.5's RandomAccess, MPIRandomAccess):
 *  - one table of 2^LOG2 64-bit words in all (default 2^22), spread evenly:
 *    rank r holds global indices [r*L, (r+1)*L), L = 2^LOG2 / N, so N must
 *    be a power of two (HPCC's own fast path needs that too);
 *  - Table[i] = i to start; F * 2^LOG2 updates in all (F = 4, HPCC's
 *    NUPDATE), F * L from each rank;
 *  - the updates are HPCC's stream: POLY 7, PERIOD 1317624576693539401,
 *    ran = (ran << 1) ^ ((int64_t)ran < 0 ? POLY : 0), rank r starting at
 *    HPCC_starts(SEED + F * r * L) (SEED 0: HPCC's), so that the ranks'
 *    streams are the global stream cut in N pieces; each one does
 *    Table[ran & (2^LOG2 - 1)] ^= ran;
 *  - look-ahead: at most 1024 updates of a rank generated and not yet
 *    applied (MPIRandomAccess's MAX_TOTAL_PENDING_UPDATES);
 *  - verification: every rank walks the whole global stream again and
 *    applies the updates aimed at its own part (xor is its own inverse),
 *    then counts the entries that are not their index.  HPCC passes a run
 *    with at most 1% of the table wrong; the atomic and AM variants here
 *    must be exact (0), get-modify-put may lose a few updates to races.
 *
 * Variants (-v, default all, one after the other on a fresh table):
 *  atomic  a non-fetching 64-bit xor through an atomic domain on the
 *          owner's word (pgas_ad_op_u64, complete on return: look-ahead 1);
 *  gmp     pgas_get_val then pgas_put_val of the word (races allowed);
 *  am      updates bucketed by owner and sent as AM Medium payloads of up to
 *          WORDS 64-bit values (-b, default 256); the handler xors them into
 *          the local table and acknowledges with a reply; own updates are
 *          applied at once.  Buffered + sent-but-unacknowledged updates stay
 *          at most 1024 (stricter than HPCC, which counts only the buffered
 *          ones); every message is acknowledged before the closing barrier.
 *
 * -x N spoils N entries of rank 0's part after the timed pass, so that a
 * test can see the verification fail.
 *
 * Rank 0 prints "RESULT gupsN.pgas_VARIANT GUPS GUP/s" (N = ranks), the
 * error count as "RESULT gupsN.pgas_VARIANT.errors E errors" and the table
 * size as "RESULT gupsN.pgas.table WORDS words"; the exit code is 1 if a variant
 * fails verification.  Time: from a barrier to the barrier after the last
 * update, as HPCC's (its wall clock on rank 0).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pgas.h"
#include "bench.h"
#include "hpcc_random.h"

#define LOOKAHEAD 1024u		/* HPCC's MAX_TOTAL_PENDING_UPDATES */

enum { H_UPD = 1, H_ACK };

static unsigned me, nranks, logL;
static uint64_t L, TS;		/* words per rank, words in all */
static uint64_t *table;		/* this rank's part, at the start of its segment */
static uint64_t **tables;	/* every rank's part, as this rank addresses it */
static uint64_t *errslot;	/* rank 0's segment: one error count per rank */
static volatile uint64_t inflight;	/* AM: updates sent and not acknowledged */

static void h_upd(pgas_token_t t, void *buf, size_t n, const uint32_t *a, unsigned na)
{
	const uint64_t *v = buf;
	size_t k, words = n / 8;
	uint32_t w = (uint32_t)words;

	(void)a; (void)na;
	for (k = 0; k < words; k++)
		table[v[k] & (L - 1)] ^= v[k];
	pgas_am_reply_short(t, H_ACK, &w, 1);
}

static void h_ack(pgas_token_t t, void *buf, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)buf; (void)n; (void)na;
	inflight -= a[0];
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "gups rank %u: %s: %s (%s)\n", me, what, pgas_strerror(rc), pgas_last_error());
	pgas_exit(2);
}

static void run_atomic(uint64_t ran, uint64_t count)
{
	pgas_ad_t ad;
	int rc = pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_XOR, 0);

	if (rc)
		die("pgas_ad_create", rc);
	for (uint64_t i = 0; i < count; i++) {
		ran = hpcc_next(ran);
		uint64_t g = ran & (TS - 1);
		rc = pgas_ad_op_u64(ad, NULL, (unsigned)(g >> logL), &tables[g >> logL][g & (L - 1)],
				    PGAS_AOP_XOR, ran, 0, 0);
		if (PGAS__UNLIKELY(rc))
			die("pgas_ad_op_u64", rc);
	}
	pgas_ad_destroy(ad);
}

static void run_gmp(uint64_t ran, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v = 0, g, *p;
		unsigned o;
		int rc;

		ran = hpcc_next(ran);
		g = ran & (TS - 1);
		o = (unsigned)(g >> logL);
		p = &tables[o][g & (L - 1)];
		rc = pgas_get_val(&v, o, p, 8);
		if (PGAS__UNLIKELY(rc))
			die("pgas_get_val", rc);
		rc = pgas_put_val(o, p, v ^ ran, 8);
		if (PGAS__UNLIKELY(rc))
			die("pgas_put_val", rc);
	}
}

static uint64_t **bucket;	/* bucket[r]: up to cap updates for rank r */
static unsigned *fill;
static unsigned cap = 256;

static void send_bucket(unsigned r)
{
	int rc;

	inflight += fill[r];
	rc = pgas_am_request_medium(r, H_UPD, bucket[r], (size_t)fill[r] * 8, NULL, 0);
	if (rc)
		die("pgas_am_request_medium", rc);
	fill[r] = 0;
}

static void run_am(uint64_t ran, uint64_t count)
{
	unsigned buffered = 0, r;

	for (uint64_t i = 0; i < count; i++) {
		ran = hpcc_next(ran);
		r = (unsigned)((ran & (TS - 1)) >> logL);
		if (r == me) {
			table[ran & (L - 1)] ^= ran;
			continue;
		}
		bucket[r][fill[r]++] = ran;
		buffered++;
		if (fill[r] == cap) {
			buffered -= fill[r];
			send_bucket(r);
		}
		/* The look-ahead: generated but not applied stays < 1024. */
		while (buffered + inflight >= LOOKAHEAD) {
			if (buffered) {
				unsigned big = 0;

				for (unsigned k = 1; k < nranks; k++)
					if (fill[k] > fill[big])
						big = k;
				buffered -= fill[big];
				send_bucket(big);
			} else {	/* polls in the job's wait mode */
				pgas_block_until(buffered + inflight < LOOKAHEAD);
			}
		}
	}
	for (r = 0; r < nranks; r++)
		if (fill[r])
			send_bucket(r);
	pgas_block_until(inflight == 0);
}

/* Walks the whole global stream, applying this rank's updates, and
 * returns how many of its entries are not their index. */
static uint64_t verify(uint64_t seed, uint64_t factor)
{
	uint64_t ran = hpcc_starts((int64_t)seed), errors = 0;

	for (uint64_t i = 0; i < factor * TS; i++) {
		ran = hpcc_next(ran);
		if (((ran & (TS - 1)) >> logL) == me)
			table[ran & (L - 1)] ^= ran;
	}
	for (uint64_t i = 0; i < L; i++)
		if (table[i] != (uint64_t)me * L + i)
			errors++;
	return errors;
}

static int usage(void)
{
	fprintf(stderr, "usage: gups [-v atomic|gmp|am|all] [-n LOG2_TABLE_WORDS] [-u FACTOR] "
		"[-s SEED] [-b BUCKET_WORDS] [-x CORRUPT]\n");
	return 2;
}

int main(int argc, char **argv)
{
	pgas_handler_entry_t handlers[] = { { H_UPD, h_upd }, { H_ACK, h_ack } };
	static const char *const names[] = { "atomic", "gmp", "am" };
	unsigned logTS = 22, which = 7, failed = 0;
	uint64_t factor = 4, seed = 0, corrupt = 0;
	int c, rc;

	if ((rc = pgas_init(&argc, &argv)))
		die("pgas_init", rc);
	me = pgas_rank();
	nranks = pgas_nranks();
	while ((c = getopt(argc, argv, "v:n:u:s:b:x:")) != -1) {
		switch (c) {
		case 'v':
			if (!strcmp(optarg, "all"))
				which = 7;
			else if (!strcmp(optarg, "atomic"))
				which = 1;
			else if (!strcmp(optarg, "gmp"))
				which = 2;
			else if (!strcmp(optarg, "am"))
				which = 4;
			else
				return usage();
			break;
		case 'n': logTS = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'u': factor = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'b': cap = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'x': corrupt = strtoull(optarg, NULL, 0); break;
		default: return usage();
		}
	}
	if (nranks & (nranks - 1)) {
		if (me == 0)
			fprintf(stderr, "gups: the number of ranks (%u) must be a power of two\n", nranks);
		return 2;
	}
	TS = 1ull << logTS;
	if (logTS > 40 || TS < nranks || factor == 0 || cap == 0 || cap > LOOKAHEAD ||
	    (size_t)cap * 8 > pgas_am_max_medium())
		return usage();
	L = TS / nranks;
	for (logL = 0; (1ull << logL) < L; logL++)
		;
	if ((rc = pgas_attach(handlers, 2, (size_t)L * 8 + 4096)))
		die("pgas_attach", rc);
	table = pgas_segment_addr(me);
	errslot = (uint64_t *)((char *)pgas_segment_addr(0) + (size_t)L * 8);
	tables = calloc(nranks, sizeof(*tables));
	bucket = calloc(nranks, sizeof(*bucket));
	fill = calloc(nranks, sizeof(*fill));
	if (!tables || !bucket || !fill)
		die("calloc", PGAS_ERR_NOMEM);
	for (unsigned r = 0; r < nranks; r++) {
		tables[r] = pgas_segment_addr(r);
		if (!(bucket[r] = malloc((size_t)cap * 8)))
			die("malloc", PGAS_ERR_NOMEM);
	}
	if (me == 0) {
		printf("# gups: %u ranks, table 2^%u = %llu words (%llu per rank), %llu updates, "
		       "look-ahead %u, AM bucket %u words\n", nranks, logTS, (unsigned long long)TS,
		       (unsigned long long)L, (unsigned long long)(factor * TS), LOOKAHEAD, cap);
		printf("RESULT gups%u.pgas.table %llu words\n", nranks, (unsigned long long)TS);
	}

	for (unsigned v = 0; v < 3; v++) {
		if (!(which & (1u << v)))
			continue;
		uint64_t start = hpcc_starts((int64_t)(seed + factor * me * L)), errors = 0;
		double t0 = 0, t;

		for (uint64_t i = 0; i < L; i++)
			table[i] = (uint64_t)me * L + i;
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		if (me == 0)
			t0 = bench_now();
		if (v == 0)
			run_atomic(start, factor * L);
		else if (v == 1)
			run_gmp(start, factor * L);
		else
			run_am(start, factor * L);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		t = bench_now() - t0;
		/* -x N: N entries of rank 0's part go wrong (tests the check). */
		for (uint64_t i = 0; me == 0 && i < corrupt && i < L; i++)
			table[i] ^= 1;
		/* Verification (untimed). */
		errors = verify(seed, factor);
		if ((rc = pgas_put_val(0, &errslot[me], errors, 8)))
			die("pgas_put_val", rc);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		if (me == 0) {
			char name[64];
			int ok;

			errors = 0;
			for (unsigned r = 0; r < nranks; r++)
				errors += errslot[r];
			ok = v == 1 ? errors <= TS / 100 : errors == 0;
			printf("# gups %s: %.3f s, %llu errors of %llu (%s; tolerance %s)\n", names[v], t,
			       (unsigned long long)errors, (unsigned long long)TS, ok ? "passed" : "FAILED",
			       v == 1 ? "1%" : "exact");
			snprintf(name, sizeof(name), "gups%u.pgas_%s", nranks, names[v]);
			bench_result(name, (double)(factor * TS) / t * 1e-9, "GUP/s");
			snprintf(name, sizeof(name), "gups%u.pgas_%s.errors", nranks, names[v]);
			bench_result(name, (double)errors, "errors");
			failed += !ok;
		}
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	}
	fflush(stdout);
	pgas_exit(failed ? 1 : 0);
}
