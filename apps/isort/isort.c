// SPDX-License-Identifier: MIT
/*
 * isort - distributed integer sort (in the manner of NAS IS, with uniform
 * keys): N keys drawn uniformly from [0, MAXKEY) by NPB's generator, each
 * rank's share bucketed by destination (rank d owns the keys of the d-th
 * T-th of the range), the counts exchanged, each rank told where its keys
 * go in every destination, the keys put there, and each rank's keys
 * counting-sorted (docs/apps.md).
 *
 * Verified at every iteration, on every rank: its keys in order and in its
 * range (so the whole is sorted), as many keys in all as were drawn, and
 * the same multiset: the sum and a hashed sum of all keys equal before and
 * after.  The receive area is poisoned before each sort, so that a sort
 * whose keys did not arrive cannot pass on the last one's.  The same source over libpgas, our OpenSHMEM and MPI
 * (apps/common/comm.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/comm.h"
#include "../common/npb_rand.h"

const char comm_program[] = "isort";

/* NAS IS's sizes: log2 of the key count and of the key range. */
static const struct { char name; unsigned log_keys, log_max; } classes[] = {
	{ 'S', 16, 11 }, { 'W', 20, 16 }, { 'A', 23, 19 }, { 'B', 25, 21 },
};

struct is {
	uint64_t nkeys, maxkey;
	unsigned me, nranks, iters;
	char cls;
	uint64_t nmine, cap;		/* my keys; room for the received */
	uint32_t *keys, *bucketed, *sorted;
	uint64_t *count;		/* [maxkey / T + 1]: the local counting sort */
	char *area;
	size_t cnt_out, cnt_in, off_out, off_in, recv_off;
	double t_comm;
};

static uint64_t *u64(struct is *s, size_t off)
{
	return (uint64_t *)(s->area + off);
}

/* The first key of rank d's range. */
static uint64_t range_lo(const struct is *s, unsigned d)
{
	return (d * s->maxkey + s->nranks - 1) / s->nranks;
}

static unsigned owner(const struct is *s, uint32_t key)
{
	return (unsigned)(((uint64_t)key * s->nranks) / s->maxkey);
}

/* splitmix64's finaliser: the multiset check's hash. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void timed_exchange(struct is *s, size_t dst, size_t src)
{
	double t = now();

	comm_exchange(dst, src, sizeof(uint64_t));
	s->t_comm += now() - t;
}

/* One sort of my keys into s->sorted; returns how many I hold. */
static uint64_t sort_once(struct is *s)
{
	uint64_t *cnt = u64(s, s->cnt_out), *in = u64(s, s->cnt_in);
	uint64_t *off = u64(s, s->off_out), *at = u64(s, s->off_in);
	uint64_t start[1024], total = 0, lo = range_lo(s, s->me);
	uint32_t *recv = (uint32_t *)(s->area + s->recv_off);
	unsigned T = s->nranks;
	double t;

	/* Bucket by destination. */
	memset(cnt, 0, T * sizeof(*cnt));
	for (uint64_t i = 0; i < s->nmine; i++)
		cnt[owner(s, s->keys[i])]++;
	for (unsigned d = 0, sum = 0; d < T; sum += (unsigned)cnt[d], d++)
		start[d] = sum;
	for (uint64_t i = 0; i < s->nmine; i++)
		s->bucketed[start[owner(s, s->keys[i])]++] = s->keys[i];
	for (unsigned d = 0; d < T; d++)
		start[d] -= cnt[d];
	/* Counts to their destinations; back come where my keys go there. */
	timed_exchange(s, s->cnt_in, s->cnt_out);
	for (unsigned q = 0; q < T; q++) {
		off[q] = total;
		total += in[q];
	}
	if (total > s->cap) {
		char msg[120];

		snprintf(msg, sizeof(msg), "%llu keys for rank %u, room for %llu",
			 (unsigned long long)total, s->me, (unsigned long long)s->cap);
		comm_fail("isort", msg);
	}
	timed_exchange(s, s->off_in, s->off_out);
	t = now();
	for (unsigned q = 0; q < T; q++)	/* the receives, in the senders' order */
		if (q != s->me && in[q])
			comm_expect(q, s->recv_off + off[q] * 4, in[q] * 4);
	for (unsigned k = 1; k <= T; k++) {	/* each rank starts with its right */
		unsigned d = (s->me + k) % T;

		if (d == s->me)
			memcpy(recv + off[d], s->bucketed + start[d], cnt[d] * 4);
		else if (cnt[d])
			comm_put(d, s->recv_off + at[d] * 4, s->bucketed + start[d], cnt[d] * 4);
	}
	comm_complete();
	s->t_comm += now() - t;
	/* Counting sort of my range. */
	uint64_t span = range_lo(s, s->me + 1) - lo;

	memset(s->count, 0, (span + 1) * sizeof(*s->count));
	for (uint64_t i = 0; i < total; i++)
		s->count[recv[i] - lo < span ? recv[i] - lo : span]++;
	for (uint64_t k = 0, j = 0; k <= span; k++)
		for (uint64_t c = s->count[k]; c; c--)
			s->sorted[j++] = (uint32_t)(k < span ? lo + k : UINT32_MAX);	/* out of range */
	return total;
}

static void parse(struct is *s, int argc, char **argv)
{
	const char *cls = NULL;
	char msg[160], *end;

	s->iters = 10;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			if (comm_rank() == 0)
				printf("usage: isort [--class S|W|A|B] [--iters K]\n"
				       "Integer sort of NAS IS's sizes (default S), K times (10), over %s;\n"
				       "exits 0 only when every sort verifies.\n", comm_name);
			comm_finish(0);
		} else if (!strcmp(argv[i], "--class") && i + 1 < argc) {
			cls = argv[++i];
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || argv[i][0] == '-' || v == 0 || v > 1000) {
				snprintf(msg, sizeof(msg), "--iters '%s': a number from 1 to 1000", argv[i]);
				comm_fail("isort", msg);
			}
			s->iters = (unsigned)v;
		} else {
			snprintf(msg, sizeof(msg), "unknown or incomplete argument '%s' (--help)", argv[i]);
			comm_fail("isort", msg);
		}
	}
	s->cls = 0;
	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++)
		if (!cls || (cls[0] == classes[c].name && !cls[1])) {
			s->cls = classes[c].name;
			s->nkeys = 1ull << classes[c].log_keys;
			s->maxkey = 1ull << classes[c].log_max;
			break;
		}
	if (!s->cls) {
		snprintf(msg, sizeof(msg), "--class '%s': one of S, W, A, B", cls);
		comm_fail("isort", msg);
	}
}

int main(int argc, char **argv)
{
	struct is s = { 0 };
	uint64_t first, x, before[2] = { 0, 0 }, check[6];
	double t, tc[2];
	int ok = 1;
	char msg[160];

	comm_init(&argc, &argv);
	s.me = comm_rank();
	s.nranks = comm_size();
	parse(&s, argc, argv);
	if (s.nranks > 1024 || s.nranks > s.maxkey) {
		snprintf(msg, sizeof(msg), "class %c: at most %u ranks, not %u", s.cls,
			 s.maxkey < 1024 ? (unsigned)s.maxkey : 1024, s.nranks);
		comm_fail("isort", msg);
	}
	first = s.nkeys * s.me / s.nranks;
	s.nmine = s.nkeys * (s.me + 1) / s.nranks - first;
	/* Uniform keys leave each rank within a few standard deviations of
	 * its share; a quarter more is far beyond them. */
	s.cap = s.nkeys / s.nranks + s.nkeys / s.nranks / 4 + 1024;
	if (s.cap > s.nkeys)
		s.cap = s.nkeys;
	s.cnt_out = 0;
	s.cnt_in = s.cnt_out + s.nranks * 8;
	s.off_out = s.cnt_in + s.nranks * 8;
	s.off_in = s.off_out + s.nranks * 8;
	s.recv_off = s.off_in + s.nranks * 8;
	s.area = comm_area(s.recv_off + s.cap * 4);
	s.keys = malloc(s.nmine * 4 + 4);
	s.bucketed = malloc(s.nmine * 4 + 4);
	s.sorted = malloc(s.cap * 4 + 4);
	s.count = malloc((s.maxkey / s.nranks + 2) * sizeof(*s.count));
	if (!s.keys || !s.bucketed || !s.sorted || !s.count)
		comm_fail("isort", "no memory for the keys");

	/* My share of NPB's stream, whatever the rank count. */
	{
		double *r = malloc(s.nmine * sizeof(double) + 8);

		if (!r)
			comm_fail("isort", "no memory for the keys");
		x = npb_mul46(314159265, npb_pow46(NPB_A, first));
		npb_vranlc(s.nmine, &x, NPB_A, r);
		for (uint64_t i = 0; i < s.nmine; i++) {
			s.keys[i] = (uint32_t)(r[i] * (double)s.maxkey);
			before[0] += s.keys[i];
			before[1] += mix(s.keys[i]);
		}
		free(r);
	}
	comm_sum_u64(before, 2);
	if (s.me == 0)
		printf("\n isort: %llu keys in [0, %llu) (class %c), %u sorts, %u ranks over %s\n",
		       (unsigned long long)s.nkeys, (unsigned long long)s.maxkey, s.cls, s.iters,
		       s.nranks, comm_name);
	comm_barrier();
	t = 0;
	for (unsigned it = 0; it < s.iters; it++) {
		double ti;

		/* Outside the time: last sort's keys poisoned (out of every
		 * range), so that keys which do not arrive cannot pass for
		 * arrived; peers put only after the exchanges, which I join
		 * after this. */
		memset(s.area + s.recv_off, 0xff, s.cap * 4);
		ti = now();
		uint64_t n = sort_once(&s), lo = range_lo(&s, s.me), hi = range_lo(&s, s.me + 1);

		t += now() - ti;
		/* Checked outside the time: order and range, count, multiset. */
		memset(check, 0, sizeof(check));
		check[0] = n;
		for (uint64_t i = 0; i < n; i++) {
			uint32_t k = s.sorted[i];

			check[1] += k < lo || k >= hi || (i && k < s.sorted[i - 1]);
			check[2] += k;
			check[3] += mix(k);
		}
		comm_sum_u64(check, 4);
		if (check[0] != s.nkeys || check[1] || check[2] != before[0] || check[3] != before[1]) {
			if (s.me == 0)
				printf(" sort %u: %llu of %llu keys, %llu out of order or range, %s\n",
				       it + 1, (unsigned long long)check[0],
				       (unsigned long long)s.nkeys, (unsigned long long)check[1],
				       check[2] == before[0] && check[3] == before[1] ?
				       "the same keys" : "not the keys drawn");
			ok = 0;
		}
	}
	tc[0] = t;
	tc[1] = s.t_comm;
	comm_max(tc, 1);
	comm_sum(&tc[1], 1);
	if (s.me == 0) {
		printf(" Time in seconds  = %22.4f\n", tc[0]);
		printf(" Mkeys/s          = %22.2f\n", 1e-6 * (double)s.nkeys * s.iters / tc[0]);
		printf(" Comm time        = %22.6f\n", tc[1] / s.nranks);
		printf(" Library          = %22s\n", comm_name);
		printf(" Verification     = %22s\n", ok ? "SUCCESSFUL" : "UNSUCCESSFUL");
		fflush(stdout);
	}
	free(s.keys);
	free(s.bucketed);
	free(s.sorted);
	free(s.count);
	comm_finish(ok ? 0 : 1);
}
