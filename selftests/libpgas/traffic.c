// SPDX-License-Identifier: MIT
/*
 * traffic - load that fills every mailbox many times over.
 *
 * storm:  every rank sends MSGS requests (Short, Medium inline and bounce,
 *         Long) to random ranks, itself included; every handler checks the
 *         payload and replies.  Exact counts per (source, target) pair are
 *         compared at the end.  Run with PGAS_MBOX_SLOTS=16 to make the
 *         rings full all the time.
 * mixed:  random puts, gets and AMs; each put is followed by an AM whose
 *         handler checks the put's bytes (put-then-AM ordering), each get
 *         reads back bytes the getter wrote earlier.
 */
#include "tap.h"

enum { H_REQ = 1, H_ACK, H_CHECK };

#define MAXR 64
#define SLICE 4096		/* per (target, source) slice for the mixed test */

static unsigned me, n;
static unsigned recv_from[MAXR];	/* requests received from each rank */
static volatile unsigned acks;
static unsigned bad;
static uint64_t sent_to[MAXR];

static void h_req(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	unsigned src;
	uint64_t seed;

	pgas_token_rank(tok, &src);
	if (nargs < 3)
		bad++;
	seed = args[0] | (uint64_t)args[1] << 32;
	if (args[2] != nb || (nb && t_verify(buf, nb, seed) != nb))
		bad++;
	recv_from[src]++;
	pgas_am_reply_short(tok, H_ACK, args, 1);
}

static void h_ack(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)args; (void)nargs;
	acks++;
}

/* args: seed lo, seed hi, length, offset in my segment that was put. */
static void h_check(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
		    unsigned nargs)
{
	uint64_t seed = args[0] | (uint64_t)args[1] << 32;
	const char *p = (const char *)pgas_segment_addr(me) + args[3];

	(void)buf; (void)nb;
	if (nargs != 4 || t_verify(p, args[2], seed) != args[2])
		bad++;
	pgas_am_reply_short(tok, H_ACK, args, 1);
}

static void storm(unsigned msgs)
{
	static unsigned char buf[8192];
	size_t inl = pgas_am_medium_inline_max(3), maxm = pgas_am_max_medium();
	uint64_t rng = 0x1234567ull + me * 7919ull;
	uint64_t *counts;

	acks = 0;
	for (unsigned i = 0; i < msgs; i++) {
		unsigned d = (unsigned)(t_rand(&rng) % n), kind = (unsigned)(t_rand(&rng) % 4);
		uint64_t seed = t_rand(&rng);
		size_t len = kind == 0 ? 0 : kind == 1 ? t_rand(&rng) % (inl + 1) :
			     kind == 2 ? inl + 1 + t_rand(&rng) % (maxm - inl) :
			     t_rand(&rng) % sizeof(buf);
		uint32_t args[3] = { (uint32_t)seed, (uint32_t)(seed >> 32), (uint32_t)len };
		char *dst = (char *)pgas_segment_addr(d) + (size_t)me * sizeof(buf);
		int rc;

		t_fill(buf, len, seed);
		if (kind == 0)
			rc = pgas_am_request_short(d, H_REQ, args, 3);
		else if (kind == 3)
			rc = pgas_am_request_long(d, H_REQ, buf, len, dst, args, 3);
		else
			rc = pgas_am_request_medium(d, H_REQ, buf, len, args, 3);
		T_EQ(rc, 0);
		sent_to[d]++;
		/* A Long reuses the slice: wait for its handler before the next. */
		if (kind == 3)
			pgas_block_until(acks == i + 1);
	}
	pgas_block_until(acks == msgs);
	pgas_barrier(1, 0);
	/* Publish what I sent to whom; every target compares with what it saw. */
	counts = (uint64_t *)pgas_segment_addr(me) + (size_t)n * sizeof(buf) / 8;
	for (unsigned d = 0; d < n; d++)
		T_EQ(pgas_put(d, (uint64_t *)pgas_segment_addr(d) +
				  (size_t)n * sizeof(buf) / 8 + me, &sent_to[d], 8), 0);
	pgas_barrier(2, 0);
	for (unsigned s = 0; s < n; s++)
		T_CHECK(counts[s] == recv_from[s], "rank %u sent me %llu, I handled %u", s,
			(unsigned long long)counts[s], recv_from[s]);
	T_EQ(acks, msgs);
	T_EQ(bad, 0);
	t_case("AM storm: %u requests per rank, all kinds, random targets, replies counted", msgs);
	memset(recv_from, 0, sizeof(recv_from));
	memset(sent_to, 0, sizeof(sent_to));
}

static void mixed(unsigned ops)
{
	static unsigned char buf[SLICE], back[SLICE];
	uint64_t rng = 0xabcdefull + me * 104729ull;
	uint64_t last_seed[MAXR] = { 0 };
	size_t last_len[MAXR] = { 0 };
	size_t base = (size_t)n * 8192 + 4096;	/* after the storm's areas */

	acks = 0;
	for (unsigned i = 0; i < ops; i++) {
		unsigned d = (unsigned)(t_rand(&rng) % n);
		size_t off = base + ((size_t)d * n + me) * SLICE;
		char *remote = (char *)pgas_segment_addr(d) + off;

		switch (t_rand(&rng) % 3) {
		case 0: {	/* put, then an AM that checks it */
			uint64_t seed = t_rand(&rng);
			size_t len = t_rand(&rng) % SLICE;
			uint32_t args[4] = { (uint32_t)seed, (uint32_t)(seed >> 32),
					     (uint32_t)len, (uint32_t)off };
			unsigned before = acks;

			t_fill(buf, len, seed);
			T_EQ(i & 1 ? pgas_put(d, remote, buf, len)
				   : (pgas_put_nbi(d, remote, buf, len) ?: pgas_wait_syncnbi_puts()), 0);
			T_EQ(pgas_am_request_short(d, H_CHECK, args, 4), 0);
			pgas_block_until(acks == before + 1);
			last_seed[d] = seed;
			last_len[d] = len;
			break;
		}
		case 1:		/* get back what I put there last */
			T_EQ(pgas_get(back, d, remote, last_len[d]), 0);
			T_CHECK(t_verify(back, last_len[d], last_seed[d]) == last_len[d],
				"get of %zu bytes from rank %u", last_len[d], d);
			break;
		default: {	/* a Medium request with random payload */
			uint64_t seed = t_rand(&rng);
			size_t len = t_rand(&rng) % (pgas_am_max_medium() + 1);
			uint32_t args[3] = { (uint32_t)seed, (uint32_t)(seed >> 32), (uint32_t)len };
			unsigned before = acks;

			t_fill(buf, len > SLICE ? SLICE : len, seed);
			if (len > SLICE)
				len = SLICE;
			args[2] = (uint32_t)len;
			T_EQ(pgas_am_request_medium(d, H_REQ, buf, len, args, 3), 0);
			pgas_block_until(acks == before + 1);
		}
		}
	}
	pgas_barrier(3, 0);
	T_EQ(bad, 0);
	t_case("mixed random put/get/AM traffic, %u ops per rank, checksummed", ops);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		{ H_REQ, h_req }, { H_ACK, h_ack }, { H_CHECK, h_check },
	};
	unsigned msgs = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 20000;

	if (pgas_init(&argc, &argv))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (n > MAXR ||
	    t_attach(table, 3, (size_t)n * 8192 + 4096 + (size_t)n * n * SLICE))
		return 1;
	storm(msgs);
	mixed(msgs / 4);
	t_done();
}
