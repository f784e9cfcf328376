// SPDX-License-Identifier: MIT
/*
 * am - active messages between every pair of ranks: Short with 0..16
 * arguments, Medium at every size threshold (inline packets, bounce
 * buffers, the maximum), Long and LongAsync at segment edges, replies of
 * each kind, handler-safe locks in handlers, and the rules of handler
 * context (no requests, one reply, no reply to a reply, no poll).
 */
#include "tap.h"

enum { H_SHORT = 1, H_SHORT_ACK, H_MED, H_MED_ECHO, H_LONG, H_LONG_ECHO, H_RULES, H_RULES_ACK,
       H_UNUSED_BUT_REGISTERED = 200 };

/* Per source rank, for Long payloads; a second set of areas takes echoes. */
#define AREA ((size_t)64 << 10)

static unsigned me, n;
static volatile unsigned acks;
static unsigned bad;		/* checks failed inside handlers */
static pgas_hsl_t lock = PGAS_HSL_INITIALIZER;
static unsigned locked_count;
static int rules[8];
/* Replies refused before the one that goes (each must leave it unsent). */
static int bad_replies[6];
static unsigned char echo_buf[16384];
static size_t echo_len;

static uint32_t arg_of(unsigned src, unsigned dst, unsigned nargs, unsigned i)
{
	return (src * 131u + dst) * 1000003u + nargs * 17u + i;
}

static void h_short(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	unsigned src;
	uint32_t reply[2] = { nargs, 0 };

	pgas_token_rank(tok, &src);
	if (buf || nb)
		bad++;
	for (unsigned i = 0; i < nargs; i++)
		if (args[i] != arg_of(src, me, nargs, i))
			bad++;
	for (unsigned i = 0; i < nargs; i++)
		reply[1] += args[i];
	pgas_hsl_lock(&lock);
	locked_count++;
	pgas_hsl_unlock(&lock);
	pgas_am_reply_short(tok, H_SHORT_ACK, reply, 2);
}

static void h_short_ack(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
			unsigned nargs)
{
	unsigned src;
	uint32_t sum = 0;

	(void)buf; (void)nb;
	pgas_token_rank(tok, &src);
	for (unsigned i = 0; i < args[0]; i++)
		sum += arg_of(me, src, args[0], i);
	if (nargs != 2 || args[1] != sum)
		bad++;
	acks++;
}

/* args: seed lo, seed hi, then filler to exercise the padding. */
static void h_med(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	uint64_t seed = args[0] | (uint64_t)args[1] << 32;

	if (nargs < 2 || t_verify(buf, nb, seed) != nb || ((uintptr_t)buf & 7))
		bad++;
	pgas_am_reply_medium(tok, H_MED_ECHO, buf, nb, args, nargs);
}

static void h_med_echo(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
		       unsigned nargs)
{
	(void)tok; (void)args; (void)nargs;
	memcpy(echo_buf, buf, nb);
	echo_len = nb;
	acks++;
}

/* args: seed lo, seed hi, offset of the echo in the requester's segment. */
static void h_long(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	uint64_t seed = args[0] | (uint64_t)args[1] << 32;
	unsigned src;
	char *mine = pgas_segment_addr(me);

	pgas_token_rank(tok, &src);
	if (nargs != 3 || t_verify(buf, nb, seed) != nb || (char *)buf < mine ||
	    (char *)buf + nb > mine + pgas_segment_size(me))
		bad++;
	pgas_am_reply_long(tok, H_LONG_ECHO, buf, nb, (char *)pgas_segment_addr(src) + args[2],
			   args, nargs);
}

static void h_long_echo(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
			unsigned nargs)
{
	uint64_t seed = args[0] | (uint64_t)args[1] << 32;

	(void)tok;
	if (nargs != 3 || t_verify(buf, nb, seed) != nb ||
	    buf != (char *)pgas_segment_addr(me) + args[2])
		bad++;
	acks++;
}

/* Everything a request handler must not do, then one reply, then a second. */
static void h_rules(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
		    unsigned nargs)
{
	(void)buf; (void)nb; (void)args; (void)nargs;
	rules[0] = pgas_am_request_short(me, H_SHORT, NULL, 0);
	rules[1] = pgas_poll();
	rules[2] = pgas_barrier_notify(0, 0);
	bad_replies[0] = pgas_am_reply_short(tok, 0, NULL, 0);
	bad_replies[1] = pgas_am_reply_short(tok, PGAS_MAX_HANDLERS, NULL, 0);
	bad_replies[2] = pgas_am_reply_short(tok, PGAS_MAX_HANDLERS - 1, NULL, 0);	/* unregistered */
	bad_replies[3] = pgas_am_reply_short(tok, H_RULES_ACK, NULL, 1);
	bad_replies[4] = pgas_am_reply_short(tok, H_RULES_ACK, args, PGAS_AM_MAX_ARGS + 1);
	bad_replies[5] = pgas_am_reply_short(tok, H_RULES_ACK | 0x100u, NULL, 0);
	rules[3] = pgas_am_reply_short(tok, H_RULES_ACK, NULL, 0);
	rules[4] = pgas_am_reply_short(tok, H_RULES_ACK, NULL, 0);
}

static void h_rules_ack(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args,
			unsigned nargs)
{
	(void)buf; (void)nb; (void)args; (void)nargs;
	rules[5] = pgas_am_reply_short(tok, H_RULES_ACK, NULL, 0);
	rules[6] = pgas_am_request_medium(me, H_MED, "x", 1, NULL, 0);
	acks++;
}

static void wait_acks(unsigned want)
{
	pgas_block_until(acks >= want);
}

static void test_short(void)
{
	uint32_t args[PGAS_AM_MAX_ARGS];
	unsigned want = 0;

	acks = 0;
	for (unsigned nargs = 0; nargs <= PGAS_AM_MAX_ARGS; nargs++)
		for (unsigned d = 0; d < n; d++) {
			for (unsigned i = 0; i < nargs; i++)
				args[i] = arg_of(me, d, nargs, i);
			T_EQ(pgas_am_request_short(d, H_SHORT, args, nargs), 0);
			want++;
		}
	wait_acks(want);
	pgas_barrier(1, 0);
	T_EQ(acks, want);
	T_EQ(locked_count, want);
	T_EQ(bad, 0);
	t_case("AM Short with 0..16 args to every rank, replies checked, HSL in handlers");
}

static void medium_roundtrip(unsigned d, size_t size, unsigned nargs)
{
	static unsigned char buf[16384];
	uint64_t seed = ((uint64_t)me << 40) ^ ((uint64_t)d << 32) ^ size ^ ((uint64_t)nargs << 20);
	uint32_t args[PGAS_AM_MAX_ARGS] = { (uint32_t)seed, (uint32_t)(seed >> 32) };
	unsigned before = acks;

	t_fill(buf, size, seed);
	T_EQ(pgas_am_request_medium(d, H_MED, buf, size, args, nargs), 0);
	wait_acks(before + 1);
	T_CHECK(echo_len == size && t_verify(echo_buf, size, seed) == size,
		"medium echo of %zu bytes (nargs %u) from rank %u", size, nargs, d);
}

static void test_medium(void)
{
	size_t max = pgas_am_max_medium();
	unsigned nargs_list[] = { 2, 3, 16 };

	acks = 0;
	for (unsigned a = 0; a < 3; a++) {
		unsigned nargs = nargs_list[a];
		size_t inl = pgas_am_medium_inline_max(nargs);
		size_t sizes[] = { 0, 1, 7, 8, 9, 55, 56, 57, 111, 112, 113, inl - 1, inl, inl + 1,
				   max - 1, max };

		for (unsigned d = 0; d < n; d++)
			for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
				if (sizes[s] <= max)	/* inl - 1 wraps when nothing fits inline */
					medium_roundtrip(d, sizes[s], nargs);
	}
	T_EQ(pgas_am_request_medium(me, H_MED, echo_buf, max + 1, NULL, 0), PGAS_ERR_SIZE);
	pgas_barrier(2, 0);
	T_EQ(bad, 0);
	t_case("AM Medium request+reply: 0, 1, slot and inline thresholds +-1, max (%zu), max+1",
	       pgas_am_max_medium());
}

static void long_roundtrip(unsigned d, size_t size, size_t off, int async)
{
	static unsigned char buf[AREA];
	uint64_t seed = ((uint64_t)me << 40) ^ ((uint64_t)d << 32) ^ size ^ off;
	uint32_t args[3] = { (uint32_t)seed, (uint32_t)(seed >> 32),
			     (uint32_t)((size_t)(n + d) * AREA + AREA - size) };
	char *dst = (char *)pgas_segment_addr(d) + off;
	unsigned before = acks;

	t_fill(buf, size, seed);
	if (async)
		T_EQ(pgas_am_request_long_async(d, H_LONG, buf, size, dst, args, 3), 0);
	else
		T_EQ(pgas_am_request_long(d, H_LONG, buf, size, dst, args, 3), 0);
	wait_acks(before + 1);
}

static void test_long(void)
{
	size_t sizes[] = { 0, 1, 55, 56, 57, 4097, AREA };

	acks = 0;
	for (unsigned d = 0; d < n; d++)
		for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			/* at the start of my area, and flush with its end */
			long_roundtrip(d, sizes[s], (size_t)me * AREA, (int)s & 1);
			long_roundtrip(d, sizes[s], (size_t)me * AREA + AREA - sizes[s], !(s & 1));
		}
	{
		char *end = (char *)pgas_segment_addr(me) + pgas_segment_size(me);

		T_EQ(pgas_am_request_long(me, H_LONG, echo_buf, 2, end - 1, NULL, 0),
		     PGAS_ERR_BOUNDS);
		T_EQ(pgas_am_request_long_async(me, H_LONG, echo_buf, 1, end, NULL, 0),
		     PGAS_ERR_BOUNDS);
	}
	pgas_barrier(3, 0);
	T_EQ(bad, 0);
	t_case("AM Long and LongAsync request+reply: 0..64 KiB, flush with area ends, out of segment");
}

static void test_rules(void)
{
	acks = 0;
	memset(rules, 0x55, sizeof(rules));
	memset(bad_replies, 0x55, sizeof(bad_replies));
	pgas_barrier(6, 0);	/* nobody runs h_rules here before the reset */
	T_EQ(pgas_am_request_short((me + 1) % n, H_RULES, NULL, 0), 0);
	wait_acks(1);
	pgas_barrier(4, 0);
	T_EQ(rules[0], PGAS_ERR_STATE);		/* request from a handler */
	T_EQ(rules[1], PGAS_ERR_STATE);		/* poll from a handler */
	T_EQ(rules[2], PGAS_ERR_STATE);		/* barrier from a handler */
	T_EQ(bad_replies[0], PGAS_ERR_HANDLER);	/* handler 0, the library's */
	T_EQ(bad_replies[1], PGAS_ERR_HANDLER);	/* past the table */
	T_EQ(bad_replies[2], PGAS_ERR_HANDLER);	/* not registered */
	T_EQ(bad_replies[3], PGAS_ERR_INVAL);	/* NULL args, 1 of them */
	T_EQ(bad_replies[4], PGAS_ERR_INVAL);	/* too many args */
	T_EQ(bad_replies[5], PGAS_ERR_HANDLER);	/* an index with a high bit */
	T_EQ(rules[3], 0);			/* the one reply */
	T_EQ(rules[4], PGAS_ERR_STATE);		/* a second reply */
	T_EQ(rules[5], PGAS_ERR_STATE);		/* reply to a reply */
	T_EQ(rules[6], PGAS_ERR_STATE);		/* request from a reply handler */
	T_EQ(pgas_am_reply_short(NULL, H_SHORT, NULL, 0), PGAS_ERR_INVAL);
	T_EQ(pgas_hsl_lock(&lock), 0);
	T_EQ(pgas_am_request_short(me, H_SHORT, NULL, 0), PGAS_ERR_STATE);
	T_EQ(pgas_poll(), PGAS_ERR_STATE);
	T_EQ(pgas_hsl_lock(&lock), PGAS_ERR_STATE);
	T_EQ(pgas_hsl_trylock(&lock), PGAS_ERR_STATE);
	T_EQ(pgas_hsl_destroy(&lock), PGAS_ERR_STATE);
	T_EQ(pgas_hsl_unlock(&lock), 0);
	T_EQ(pgas_hsl_unlock(&lock), PGAS_ERR_STATE);
	T_EQ(pgas_hsl_trylock(&lock), 0);
	T_EQ(pgas_hsl_unlock(&lock), 0);
	T_EQ(pgas_hsl_destroy(&lock), 0);
	T_EQ(pgas_hsl_init(&lock), 0);
	T_EQ(pgas_hsl_lock(NULL), PGAS_ERR_INVAL);
	T_EQ(pgas_poll() >= 0, 1);
	pgas_barrier(5, 0);
	t_case("handler context: no request/poll/barrier, one reply, none to a reply; HSL rules");
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		{ H_SHORT, h_short }, { H_SHORT_ACK, h_short_ack }, { H_MED, h_med },
		{ H_MED_ECHO, h_med_echo }, { H_LONG, h_long }, { H_LONG_ECHO, h_long_echo },
		{ H_RULES, h_rules }, { H_RULES_ACK, h_rules_ack },
		{ H_UNUSED_BUT_REGISTERED, h_short },
	};

	if (pgas_init(&argc, &argv))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (t_attach(table, sizeof(table) / sizeof(table[0]), 2 * (size_t)n * AREA))
		return 1;
	test_short();
	test_medium();
	/* "nolong": without the cases that need RMA into the peers. */
	if (argc < 2 || strcmp(argv[1], "nolong"))
		test_long();
	test_rules();
	t_done();
}
