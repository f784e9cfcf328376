// SPDX-License-Identifier: MIT
/*
 * signal - ordering (pgas_fence, pgas_quiet), pgas_ptr, puts with a signal
 * and waits on local memory (pgas_signal.h), at any rank count.
 *
 *   pgasrun -n N signal [-w ROUNDS [-t THREADS]]
 *
 * -w: only the wake-up case (run in the block wait mode): rank 1 sleeps in
 * pgas_wait_until_u64 while rank 0 waits 30 ms and then signals it (a
 * signal, a put_val or an atomic set, in turn), ROUNDS
 * times (and sends nothing else for 20 ms); the median delay between the
 * signal and the waiter's return must be below 0.5 ms (bounded naps alone:
 * 1-8 ms).  -t: at PGAS_THREAD_MULTIPLE, THREADS threads of rank 1 wait,
 * each on its own word (one sleeps on the doorbell, the others nap).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define K 500			/* messages per sender */
#define MSG 48			/* bytes per message */

static unsigned me, n;

/* Layout of every rank's segment (offsets into it). */
#define OFF_SIG 0			/* 8 signal words, one line each */
#define OFF_WORDS 4096			/* the words waits test */
#define OFF_DATA 8192			/* K messages from the left neighbour */
#define SEG (OFF_DATA + K * MSG + 4096)

static char *at(unsigned r, size_t off)
{
	return (char *)pgas_segment_addr(r) + off;
}

static uint64_t *sig(unsigned r, unsigned i)
{
	return (uint64_t *)at(r, OFF_SIG + 64 * i);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void test_ptr(void)
{
	char *seg = at(me, 0);
	const char *mp = getenv("PGAS_MAP_PEERS");
	bool none = mp && !strcmp(mp, "none");	/* only this rank is reachable */
	/* PGAS_FAKE_HOSTS=h: the ranks of this pseudo-host only (bootstrap.c). */
	const char *fh = getenv("PGAS_FAKE_HOSTS");
	unsigned hosts = fh ? (unsigned)atoi(fh) : 0, mapped = 0, my_idx = 0;

	hosts = hosts > n ? n : hosts ? hosts : 1;
#define HOST_OF(r) ((unsigned)((uint64_t)(r) * hosts / n))
#define MAPPED(r) ((r) == me || (!none && HOST_OF(r) == HOST_OF(me)))
	for (unsigned r = 0; r < n; r++) {
		char *p = pgas_ptr(r, at(r, OFF_WORDS + 8 * me));

		if (r == me)
			my_idx = mapped;
		mapped += MAPPED(r);
		if (!MAPPED(r)) {
			T_CHECK(p == NULL, "pgas_ptr(%u) with PGAS_MAP_PEERS=none", r);
			T_EQ(pgas_put_val(r, at(r, OFF_WORDS + 8 * me), 1000 + me, 8), 0);
			continue;
		}
		T_CHECK(p != NULL, "pgas_ptr(%u) NULL", r);
		if (p)
			*(uint64_t *)p = 1000 + me;	/* word 'me' of every rank */
		T_CHECK(pgas_ptr(r, at(r, pgas_segment_size(r))) == NULL, "one past the end of %u", r);
		T_CHECK(pgas_ptr(r, at(r, 0) - 1) == NULL, "one before %u's segment", r);
	}
	pgas_barrier(2, 0);
	T_CHECK(pgas_ptr(me, seg) == seg, "own segment: itself");
	T_CHECK(pgas_ptr(n, seg) == NULL, "rank n");
	T_CHECK(pgas_ptr(~0u, seg) == NULL, "rank ~0");
	for (unsigned r = 0; r < n && r < 64; r++)
		T_EQ(((uint64_t *)at(me, OFF_WORDS))[r], 1000 + r);
	for (int host = 0; host < 2; host++) {
		const unsigned *m = NULL;
		unsigned size = 0, idx = ~0u;

		T_EQ((host ? pgas_query_host : pgas_query_nbrhd)(&m, &size, &idx), 0);
		T_EQ(size, mapped);
		T_EQ(idx, my_idx);
		for (unsigned r = 0, k = 0; m && r < n && k < size; r++)
			if (MAPPED(r))
				T_EQ(m[k++], r);
		T_EQ((host ? pgas_query_host : pgas_query_nbrhd)(NULL, NULL, NULL), 0);
	}
#undef HOST_OF
#undef MAPPED
	t_case("pgas_ptr: a load/store pointer to every rank's segment, NULL outside it; "
	       "the neighbourhood and host are the whole job (its pseudo-host with PGAS_FAKE_HOSTS)");
}

/* Puts then a flag, ordered by pgas_fence; the receiver checks the data
 * once it sees each flag value. */
static void test_fence(void)
{
	unsigned right = (me + 1) % n, left = (me + n - 1) % n;
	uint64_t *flag = sig(me, 0), v;
	bool ok = true;

	*flag = 0;
	pgas_barrier(3, 0);
	for (unsigned i = 1; i <= K; i++) {
		uint64_t d[MSG / 8];

		for (unsigned j = 0; j < MSG / 8; j++)
			d[j] = (uint64_t)i << 32 | j;
		ok &= pgas_put_nbi(right, at(right, OFF_DATA), d, MSG) == 0;
		pgas_fence();
		ok &= pgas_put_val(right, sig(right, 0), i, 8) == 0;
		/* Wait for the left neighbour's i-th flag and check its data. */
		T_EQ(pgas_wait_until_u64(flag, PGAS_CMP_GE, i), 0);
		v = atomic_load_explicit((_Atomic uint64_t *)flag, memory_order_acquire);
		for (unsigned j = 0; j < MSG / 8 && v == i; j++)
			ok &= ((uint64_t *)at(me, OFF_DATA))[j] >> 32 >= i;
		pgas_barrier(3, 0);	/* the next put may overwrite the data */
	}
	T_CHECK(ok, "a flag seen before the data it follows (from %u)", left);
	T_EQ(pgas_quiet(), 0);
	t_case("pgas_fence: %u puts then a flag, each seen only with its data", K);
}

/* Every rank sends K messages with a signal add to its right neighbour;
 * when the count reaches i, messages 0..i-1 are all there. */
static void test_signal_add(void)
{
	unsigned right = (me + 1) % n;
	uint64_t v = 0;
	bool ok = true;
	pgas_handle_t h;

	*sig(me, 1) = 0;
	pgas_barrier(4, 0);
	for (unsigned i = 0; i < K; i++) {
		char d[MSG];
		int rc;

		t_fill(d, MSG, 7000 + (uint64_t)me * K + i);
		if (i % 3 == 0)
			rc = pgas_put_with_signal(right, at(right, OFF_DATA + i * MSG), d, MSG,
						  sig(right, 1), 1, PGAS_SIGNAL_ADD);
		else if (i % 3 == 1)
			rc = pgas_put_with_signal_nbi(right, at(right, OFF_DATA + i * MSG), d, MSG,
						      sig(right, 1), 1, PGAS_SIGNAL_ADD);
		else
			rc = pgas_put_with_signal_nb(&h, right, at(right, OFF_DATA + i * MSG), d,
						     MSG, sig(right, 1), 1, PGAS_SIGNAL_ADD) ||
			     pgas_wait_syncnb(h);
		ok &= rc == 0;
		/* What arrived so far from the left is complete. */
		T_EQ(pgas_signal_fetch(sig(me, 1), &v), 0);
		for (unsigned j = 0; j < v; j++)
			ok &= t_verify(at(me, OFF_DATA + j * MSG), MSG,
				       7000 + (uint64_t)((me + n - 1) % n) * K + j) == MSG;
	}
	T_EQ(pgas_wait_syncnbi_puts(), 0);
	T_EQ(pgas_wait_until_u64(sig(me, 1), PGAS_CMP_EQ, K), 0);
	for (unsigned j = 0; j < K; j++)
		ok &= t_verify(at(me, OFF_DATA + j * MSG), MSG,
			       7000 + (uint64_t)((me + n - 1) % n) * K + j) == MSG;
	T_CHECK(ok, "data missing behind its signal");
	t_case("pgas_put_with_signal ADD (blocking, nb, nbi): %u messages, each complete "
	       "once counted", K);

	/* Every rank adds to one word of rank 0, and sets its own slot. */
	if (me == 0)
		*sig(0, 2) = 0;
	pgas_barrier(4, 0);
	for (unsigned i = 0; i < K; i++)
		ok &= pgas_put_with_signal(0, at(0, OFF_WORDS + 8 * me), &i, 0, sig(0, 2), me + 1,
					   PGAS_SIGNAL_ADD) == 0;
	uint64_t last = 0xabc0000000000000ull | me;

	ok &= pgas_put_with_signal(0, at(0, OFF_DATA), NULL, 0, sig(0, 3 + me % 4), last,
				   PGAS_SIGNAL_SET) == 0;
	pgas_barrier(4, 0);
	if (me == 0) {
		T_EQ(*sig(0, 2), (uint64_t)K * n * (n + 1) / 2);
		for (unsigned s = 0; s < 4 && s < n; s++)
			T_CHECK((*sig(0, 3 + s) & ~0xffffull) == 0xabc0000000000000ull &&
				(*sig(0, 3 + s) & 0xffff) % 4 == s, "SET lost: %llx",
				(unsigned long long)*sig(0, 3 + s));
	}
	T_CHECK(ok, "a call failed");
	t_case("pgas_put_with_signal: every rank adds to one word (exact sum), SET of zero bytes");
}

/* Waits and tests on local words, written by the left neighbour. */
static void test_waits(void)
{
	unsigned right = (me + 1) % n;
	uint64_t *w = (uint64_t *)at(me, OFF_WORDS);
	int32_t *s32 = (int32_t *)at(me, OFF_WORDS + 512);
	int status[8] = { 0 };
	size_t idx = 0, cnt = 0, ids[8];
	uint64_t vals[8];

	memset(w, 0, 8 * 8);
	memset(s32, 0, 4 * 8);
	pgas_barrier(5, 0);
	/* Before anything arrives. */
	T_EQ(pgas_test_u64(&w[0], PGAS_CMP_NE, 0), 0);
	T_EQ(pgas_test_any_u64(w, 8, NULL, PGAS_CMP_GT, 0, &idx), 0);
	T_EQ(pgas_test_some_u64(w, 8, ids, &cnt, NULL, PGAS_CMP_GT, 0), 0);
	T_EQ(pgas_test_all_u64(w, 8, NULL, PGAS_CMP_EQ, 0), 1);
	pgas_barrier(5, 0);
	/* The neighbour sets word 5 to 9, then words 2 and 6, then all. */
	uint64_t nine = 9, all[8] = { 1, 2, 3, 4, 9, 6, 7, 8 };

	T_EQ(pgas_put_with_signal(right, at(right, OFF_DATA), NULL, 0,
				  (uint64_t *)at(right, OFF_WORDS) + 5, nine, PGAS_SIGNAL_SET), 0);
	T_EQ(pgas_wait_until_any_u64(w, 8, NULL, PGAS_CMP_NE, 0, &idx), 0);
	T_EQ(idx, 5);
	T_EQ(pgas_test_any_u64(w, 8, NULL, PGAS_CMP_EQ, 9, &idx), 1);
	T_EQ(idx, 5);
	pgas_barrier(5, 0);
	T_EQ(pgas_put_val(right, (uint64_t *)at(right, OFF_WORDS) + 2, 5, 8), 0);
	T_EQ(pgas_put_val(right, (uint64_t *)at(right, OFF_WORDS) + 6, 5, 8), 0);
	status[5] = 1;	/* leave word 5 out */
	/* 2 and 6 land one after the other; a wait that returns at once does
	 * not poll, and over AM (PGAS_MAP_PEERS=none) the second needs it. */
	do {
		T_EQ(pgas_wait_until_some_u64(w, 8, ids, &cnt, status, PGAS_CMP_GE, 5), 0);
		if (cnt == 1)
			pgas_poll();
	} while (cnt == 1);
	T_EQ(cnt, 2);
	T_EQ(ids[0], 2);
	T_EQ(ids[1], 6);
	pgas_barrier(5, 0);
	T_EQ(pgas_put(right, at(right, OFF_WORDS), all, sizeof(all)), 0);
	for (unsigned i = 0; i < 8; i++)
		vals[i] = i + 1;
	vals[4] = 9;
	T_EQ(pgas_wait_until_all_vector_u64(w, 8, NULL, PGAS_CMP_EQ, vals), 0);
	T_EQ(pgas_wait_until_all_u64(w, 8, NULL, PGAS_CMP_GT, 0), 0);
	T_EQ(pgas_test_all_u64(w, 8, NULL, PGAS_CMP_LE, 9), 1);
	T_EQ(pgas_test_all_u64(w, 8, NULL, PGAS_CMP_LT, 9), 0);
	vals[3] = 100;
	T_EQ(pgas_test_any_vector_u64(w, 8, NULL, PGAS_CMP_GT, vals, &idx), 0);
	T_EQ(pgas_test_some_vector_u64(w, 8, ids, &cnt, NULL, PGAS_CMP_LT, vals), 1);
	T_EQ(cnt, 1);
	T_EQ(ids[0], 3);
	T_EQ(pgas_wait_until_some_vector_u64(w, 8, ids, &cnt, NULL, PGAS_CMP_NE, vals), 0);
	T_EQ(cnt, 1);
	T_EQ(pgas_wait_until_any_vector_u64(w, 8, NULL, PGAS_CMP_EQ, vals, &idx), 0);
	T_CHECK(idx < 8 && idx != 3 && w[idx] == vals[idx], "any_vector gave word %zu", idx);
	/* Signed 32-bit words, every comparison. */
	int32_t m5 = -5;

	T_EQ(pgas_put_val(right, (int32_t *)at(right, OFF_WORDS + 512) + 1, (uint32_t)m5, 4), 0);
	T_EQ(pgas_wait_until_i32(&s32[1], PGAS_CMP_LT, 0), 0);
	T_EQ(pgas_test_i32(&s32[1], PGAS_CMP_LE, -5), 1);
	T_EQ(pgas_test_i32(&s32[1], PGAS_CMP_GE, -5), 1);
	T_EQ(pgas_test_i32(&s32[1], PGAS_CMP_GT, -6), 1);
	T_EQ(pgas_test_i32(&s32[1], PGAS_CMP_EQ, -5), 1);
	T_EQ(pgas_test_i32(&s32[1], PGAS_CMP_NE, -5), 0);
	T_EQ(pgas_test_u32((uint32_t *)&s32[1], PGAS_CMP_GT, 0x7fffffffu), 1);
	T_EQ(pgas_test_i64((int64_t *)&w[0], PGAS_CMP_EQ, 1), 1);
	/* Nothing to wait for: at once. */
	for (unsigned i = 0; i < 8; i++)
		status[i] = 1;
	T_EQ(pgas_wait_until_any_u64(w, 8, status, PGAS_CMP_EQ, 12345, &idx), 0);
	T_EQ(idx, SIZE_MAX);
	T_EQ(pgas_wait_until_some_u64(w, 8, ids, &cnt, status, PGAS_CMP_EQ, 12345), 0);
	T_EQ(cnt, 0);
	T_EQ(pgas_wait_until_all_u64(w, 8, status, PGAS_CMP_EQ, 12345), 0);
	T_EQ(pgas_wait_until_all_u64(NULL, 0, NULL, PGAS_CMP_EQ, 1), 0);
	T_EQ(pgas_wait_until_any_u64(NULL, 0, NULL, PGAS_CMP_EQ, 1, &idx), 0);
	T_EQ(idx, SIZE_MAX);
	pgas_barrier(5, 0);
	t_case("wait_until / test: one word, all, any, some, vector, status, signed, every cmp");
}

/*
 * The fairness of _any (pgas_signal.h; OpenSHMEM 1.5: a series of calls
 * eventually returns every index that holds): with every word holding,
 * successive calls on one array go round it (0, 1, ..., 7, 0, ...), masked
 * words left out, other arrays' calls in between change nothing; a thread
 * cycling through more arrays than it remembers still gets every index.
 * Then across ranks: every rank sets its flag at every rank, and each waits
 * with wait_until_any, never masking, until it has seen every rank's flag
 * (it would return the lowest flag forever before).
 */
static void test_any_fair(void)
{
	uint64_t *w = (uint64_t *)at(me, OFF_WORDS + 1024), vals[8];
	uint32_t *u = (uint32_t *)at(me, OFF_WORDS + 1536);
	uint64_t *flags = (uint64_t *)at(me, OFF_WORDS + 2048);
	int status[8] = { 0 };
	size_t idx = 0, first = 0, seen;
	unsigned count[8] = { 0 }, hits[10][4] = { { 0 } }, got[64] = { 0 };
	static uint64_t many[10][4];
	unsigned nf = n < 64 ? n : 64;	/* flags: ranks 0..nf-1 */

	for (unsigned i = 0; i < 8; i++) {
		w[i] = 1;
		u[i] = 7;
		vals[i] = 1;
	}
	T_EQ(pgas_test_any_u64(w, 8, NULL, PGAS_CMP_EQ, 1, &first), 1);
	for (unsigned k = 1; k <= 16; k++) {
		T_EQ(pgas_test_any_u64(w, 8, NULL, PGAS_CMP_EQ, 1, &idx), 1);
		T_EQ(idx, (first + k) % 8);
		/* Another array's calls in between: its own turn. */
		T_EQ(pgas_wait_until_any_u32(u, 3, NULL, PGAS_CMP_EQ, 7, &seen), 0);
		count[seen]++;
	}
	T_CHECK(count[0] >= 5 && count[1] >= 5 && count[2] >= 5,
		"u32 any over 3 words: %u %u %u of 16", count[0], count[1], count[2]);
	/* Masked words are skipped, the rest taken in turn; the vector form too. */
	status[1] = status[4] = status[5] = 1;
	memset(count, 0, sizeof(count));
	for (unsigned k = 0; k < 10; k++) {
		T_EQ(pgas_wait_until_any_vector_u64(w, 8, status, PGAS_CMP_EQ, vals, &idx), 0);
		T_CHECK(idx < 8 && !status[idx], "any gave masked word %zu", idx);
		count[idx < 8 ? idx : 0]++;
	}
	T_CHECK(count[0] == 2 && count[2] == 2 && count[3] == 2 && count[6] == 2 && count[7] == 2,
		"5 words, 10 calls: %u %u %u %u %u", count[0], count[2], count[3], count[6],
		count[7]);
	/* More arrays than a thread remembers (10 of 4 words, in turn). */
	for (unsigned a = 0; a < 10; a++)
		for (unsigned i = 0; i < 4; i++)
			many[a][i] = 1;
	for (unsigned k = 0; k < 100; k++)
		for (unsigned a = 0; a < 10; a++) {
			T_EQ(pgas_test_any_u64(many[a], 4, NULL, PGAS_CMP_EQ, 1, &idx), 1);
			hits[a][idx < 4 ? idx : 0]++;
		}
	for (unsigned a = 0; a < 10; a++)
		T_CHECK(hits[a][0] && hits[a][1] && hits[a][2] && hits[a][3],
			"cycling arrays: array %u: %u %u %u %u", a, hits[a][0], hits[a][1],
			hits[a][2], hits[a][3]);
	pgas_barrier(5, 0);
	/* Across ranks. */
	memset(flags, 0, 8 * nf);
	pgas_barrier(5, 0);
	for (unsigned r = 0; r < n && me < nf; r++)
		T_EQ(pgas_put_val(r, &((uint64_t *)at(r, OFF_WORDS + 2048))[me], 1, 8), 0);
	seen = 0;
	/* Until every flag is seen; the lowest alone for 10 s is a failure. */
	for (double end = now_us() + 10e6; seen < nf && now_us() < end;) {
		T_EQ(pgas_wait_until_any_u64(flags, nf, NULL, PGAS_CMP_EQ, 1, &idx), 0);
		if (idx >= nf)
			break;
		if (!got[idx]++)
			seen++;
	}
	T_CHECK(seen == nf, "wait_until_any saw %zu of %u ranks' flags", seen, nf);
	pgas_barrier(5, 0);
	t_case("_any is fair: successive calls go round the words that hold (masks, vector, "
	       "other arrays between, more arrays than remembered); every rank's flag seen");
}

static void test_misuse(void)
{
	uint64_t *w = (uint64_t *)at(me, OFF_WORDS), v;
	unsigned right = (me + 1) % n;
	size_t idx, cnt, ids[2];
	pgas_handle_t h;
	char b[8] = { 0 };

	T_EQ(pgas_test_u64(NULL, PGAS_CMP_EQ, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_test_u64((uint64_t *)((char *)w + 4), PGAS_CMP_EQ, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_test_u64(w, 0, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_test_u64(w, PGAS_CMP_LE + 1, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_wait_until_u64(w, -1, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_test_any_u64(w, 2, NULL, PGAS_CMP_EQ, 0, NULL), PGAS_ERR_INVAL);
	T_EQ(pgas_test_some_u64(w, 2, NULL, &cnt, NULL, PGAS_CMP_EQ, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_test_some_u64(w, 2, ids, NULL, NULL, PGAS_CMP_EQ, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_test_all_vector_u64(w, 2, NULL, PGAS_CMP_EQ, NULL), PGAS_ERR_INVAL);
	T_EQ(pgas_test_any_u64(NULL, 3, NULL, PGAS_CMP_EQ, 0, &idx), PGAS_ERR_INVAL);
	T_EQ(pgas_signal_fetch(NULL, &v), PGAS_ERR_INVAL);
	T_EQ(pgas_signal_fetch((uint64_t *)((char *)w + 1), &v), PGAS_ERR_INVAL);
	T_EQ(pgas_signal_fetch(w, NULL), PGAS_ERR_INVAL);
	T_EQ(pgas_put_with_signal(right, at(right, OFF_DATA), b, 8, sig(right, 0), 1, 0),
	     PGAS_ERR_INVAL);
	T_EQ(pgas_put_with_signal(right, at(right, OFF_DATA), b, 8, sig(right, 0), 1, 3),
	     PGAS_ERR_INVAL);
	T_EQ(pgas_put_with_signal(right, at(right, OFF_DATA), b, 8,
				  (uint64_t *)((char *)sig(right, 0) + 4), 1, PGAS_SIGNAL_SET),
	     PGAS_ERR_INVAL);
	T_EQ(pgas_put_with_signal(right, at(right, OFF_DATA), b, 8, (uint64_t *)b, 1,
				  PGAS_SIGNAL_SET), PGAS_ERR_BOUNDS);
	T_EQ(pgas_put_with_signal(right, at(right, OFF_DATA), b, 8,
				  (uint64_t *)at(right, OFF_DATA), 1, PGAS_SIGNAL_SET),
	     PGAS_ERR_INVAL);	/* the signal inside the data */
	T_EQ(pgas_put_with_signal(n, at(right, OFF_DATA), b, 8, sig(right, 0), 1,
				  PGAS_SIGNAL_SET), PGAS_ERR_RANK);
	T_EQ(pgas_put_with_signal(right, at(right, pgas_segment_size(right) - 4), b, 8,
				  sig(right, 0), 1, PGAS_SIGNAL_SET), PGAS_ERR_BOUNDS);
	T_EQ(pgas_put_with_signal(right, at(right, OFF_DATA), NULL, 8, sig(right, 0), 1,
				  PGAS_SIGNAL_SET), PGAS_ERR_INVAL);
	T_EQ(pgas_put_with_signal_nb(NULL, right, at(right, OFF_DATA), b, 8, sig(right, 0), 1,
				     PGAS_SIGNAL_SET), PGAS_ERR_INVAL);
	(void)h;
	pgas_barrier(6, 0);
	t_case("misuse refused by name: NULL/misaligned words, cmp, sig_op, signal outside "
	       "the segment or inside the data, rank, bounds, NULL handle");
}

/* Block mode: a sleeping waiter is woken by the signal itself. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int wake_test(unsigned rounds)
{
	uint64_t *w = sig(me, 7);
	double d[64];
	pgas_ad_t ad;

	if (rounds > 64)
		rounds = 64;
	if (pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_SET, 0))
		return 1;
	*w = 0;
	pgas_barrier(8, 0);
	for (unsigned i = 1; i <= rounds; i++) {
		if (me == 0) {
			usleep(30000);
			double t0 = now_us();

			/* A signal, a put, an atomic: each rings a sleeper. */
			pgas_put_nbi(1, at(1, OFF_DATA), &t0, sizeof(t0));	/* rings nobody */
			if (i % 3 == 0)
				pgas_put_with_signal(1, at(1, OFF_DATA), &t0, sizeof(t0),
						     sig(1, 7), i, PGAS_SIGNAL_SET);
			else if (i % 3 == 1)
				pgas_put_val(1, sig(1, 7), i, 8);
			else
				pgas_ad_op_u64(ad, NULL, 1, sig(1, 7), PGAS_AOP_SET, i, 0, 0);
			usleep(20000);	/* no message (the barrier's) wakes it */
		} else if (me == 1) {
			pgas_wait_until_u64(w, PGAS_CMP_GE, i);
			d[i - 1] = (now_us() - *(double *)at(1, OFF_DATA)) / 1000.0;
		}
		pgas_barrier(8, 0);
	}
	if (me == 1) {
		qsort(d, rounds, sizeof(d[0]), cmp_double);
		printf("# wake-up delay: median %.3f ms, max %.3f ms over %u rounds\n",
		       d[rounds / 2], d[rounds - 1], rounds);
		T_CHECK(d[rounds / 2] < 0.5, "median wake-up %.3f ms: woken by naps (1-8 ms), "
			"not by the signal", d[rounds / 2]);
	}
	t_case("block mode: a waiter asleep in pgas_wait_until_u64 is woken by the signal");
	t_done();
	return 0;
}

/*
 * The same at PGAS_THREAD_MULTIPLE with -t T waiting threads on rank 1,
 * thread j on word j: one sleeps on the doorbell, the others nap; the
 * write rings the bell, and the sleeper wakes the nappers.
 */
#define MT_MAX 8
static unsigned mt_threads, mt_rounds;
static double mt_delay[64];

static void *mt_waiter(void *arg)
{
	unsigned j = (unsigned)(uintptr_t)arg;
	uint64_t *w = (uint64_t *)at(1, OFF_WORDS) + j;
	double *t0 = (double *)at(1, OFF_DATA) + j;

	for (unsigned i = 1; i <= mt_rounds; i++)
		if (i % mt_threads == j) {
			pgas_wait_until_u64(w, PGAS_CMP_GE, i);
			mt_delay[i - 1] = (now_us() - *t0) / 1000.0;
		}
	return NULL;
}

static int wake_test_mt(void)
{
	pthread_t th[MT_MAX];

	memset(at(me, OFF_WORDS), 0, 8 * MT_MAX);
	pgas_barrier(9, 0);
	if (me == 1)
		for (unsigned j = 0; j < mt_threads; j++)
			pthread_create(&th[j], NULL, mt_waiter, (void *)(uintptr_t)j);
	if (me == 0) {
		usleep(50000);	/* the waiters are asleep */
		for (unsigned i = 1; i <= mt_rounds; i++) {
			unsigned j = i % mt_threads;
			double t0;

			usleep(30000);
			t0 = now_us();
			pgas_put_nbi(1, (double *)at(1, OFF_DATA) + j, &t0, sizeof(t0));
			pgas_put_with_signal(1, at(1, OFF_DATA + 4096), NULL, 0,
					     (uint64_t *)at(1, OFF_WORDS) + j, i, PGAS_SIGNAL_SET);
		}
	}
	if (me == 1) {
		for (unsigned j = 0; j < mt_threads; j++)
			pthread_join(th[j], NULL);
		qsort(mt_delay, mt_rounds, sizeof(double), cmp_double);
		printf("# %u threads: wake-up delay median %.3f ms, max %.3f ms over %u rounds\n",
		       mt_threads, mt_delay[mt_rounds / 2], mt_delay[mt_rounds - 1], mt_rounds);
		T_CHECK(mt_delay[mt_rounds / 2] < 0.5, "median wake-up %.3f ms: nappers not woken "
			"by the sleeper", mt_delay[mt_rounds / 2]);
	}
	t_case("block mode, MULTIPLE: %u threads asleep in waits, each woken by its signal",
	       mt_threads);
	t_done();
	return 0;
}

int main(int argc, char **argv)
{
	int opt;
	unsigned wake_rounds = 0;

	for (int i = 1; i < argc - 1; i++)	/* -t T: before init, for the level */
		if (!strcmp(argv[i], "-t"))
			mt_threads = (unsigned)atoi(argv[i + 1]);
	if (mt_threads > MT_MAX)
		mt_threads = MT_MAX;
	if (pgas_init_thread(&argc, &argv, mt_threads ? PGAS_THREAD_MULTIPLE : PGAS_THREAD_SINGLE,
			     NULL))
		return 1;
	T_CHECK(pgas_ptr(0, &opt) == NULL, "pgas_ptr before attach");
	T_CHECK(pgas_query_nbrhd(NULL, NULL, NULL) == PGAS_ERR_STATE, "query before attach");
	if (t_attach(NULL, 0, SEG))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	while ((opt = getopt(argc, argv, "w:t:")) != -1)
		if (opt == 'w')
			wake_rounds = (unsigned)atoi(optarg);
	if (wake_rounds && mt_threads) {
		mt_rounds = wake_rounds > 64 ? 64 : wake_rounds;
		return n >= 2 ? wake_test_mt() : 2;
	}
	if (wake_rounds)
		return n >= 2 ? wake_test(wake_rounds) : 2;
	test_ptr();
	test_fence();
	test_signal_add();
	test_waits();
	test_any_fair();
	test_misuse();
	t_done();
	return 0;
}
