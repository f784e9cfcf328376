// SPDX-License-Identifier: MIT
/*
 * immediate - PGAS_AM_IMMEDIATE: an AM call refuses with PGAS_ERR_NOT_READY,
 * sending nothing, when the target's ring (or a bounce buffer) is full,
 * instead of waiting; what it accepted arrives exactly once.  Every rank
 * sends to its right neighbour (itself at one rank) while nobody polls.
 */
#include <string.h>
#include "tap.h"

#define H_COUNT 1
#define H_PING 2
#define H_PONG 3

static unsigned me, n, right, left;
static volatile unsigned handled, pongs;
static size_t med_bytes;

static void h_count(pgas_token_t t, void *buf, size_t nbytes, const uint32_t *args,
		    unsigned nargs)
{
	(void)t; (void)buf; (void)nbytes; (void)args; (void)nargs;
	handled++;
}

static void h_ping(pgas_token_t t, void *buf, size_t nbytes, const uint32_t *args,
		   unsigned nargs)
{
	(void)buf; (void)nbytes; (void)nargs;
	if (pgas_am_reply_short(t, H_PONG | PGAS_AM_IMMEDIATE, args, 1))
		pgas_am_reply_short(t, H_PONG, args, 1);	/* the ring was full: wait */
}

static void h_pong(pgas_token_t t, void *buf, size_t nbytes, const uint32_t *args,
		   unsigned nargs)
{
	(void)t; (void)buf; (void)nbytes; (void)args; (void)nargs;
	pongs++;
}

/* Word i of rank r's segment. */
static uint64_t *word(unsigned r, unsigned i)
{
	return (uint64_t *)pgas_segment_addr(r) + i;
}

/* Sends with send() until it refuses; returns how many it accepted. */
static unsigned fill(int kind, unsigned limit, bool *bad_rc)
{
	static const uint32_t args[2] = { 1, 2 };
	static char payload[65536];
	unsigned k;

	for (k = 0; k < limit; k++) {
		int rc;

		if (kind == 0)
			rc = pgas_am_request_short(right, H_COUNT | PGAS_AM_IMMEDIATE, args, 2);
		else
			rc = pgas_am_request_medium(right, H_COUNT | PGAS_AM_IMMEDIATE, payload,
						    med_bytes, args, 2);
		if (rc == PGAS_ERR_NOT_READY)
			break;
		if (rc) {
			*bad_rc = true;
			break;
		}
	}
	return k;
}

/*
 * Tells every rank that this one got here, then waits until all have
 * (this epoch or a later one: a rank that saw everyone may already have
 * written the next epoch over this one), without polling (a barrier polls: a rank that finished early would
 * drain its left neighbour's ring while that one still fills it).
 */
static void all_sent(void)
{
	static uint64_t epoch;

	epoch++;
	for (unsigned r = 0; r < n; r++)
		T_EQ(pgas_put_val(r, word(r, 8 + me), epoch, 8), 0);
	for (unsigned q = 0; q < n; q++)
		while (atomic_load_explicit((_Atomic uint64_t *)word(me, 8 + q),
					    memory_order_acquire) < epoch)
			;
}

/* Everyone fills, then a barrier drains; each checks it got what its left
 * neighbour says it sent. */
static void fill_case(int kind, unsigned lo, unsigned hi, const char *what)
{
	bool bad = false;
	unsigned sent, before = handled;
	uint64_t left_sent = 0;

	pgas_barrier(1, 0);
	all_sent();	/* from here on nobody polls until every rank filled */
	sent = fill(kind, 100000, &bad);
	*word(me, 0) = sent;
	all_sent();
	pgas_barrier(2, 0);	/* polls: the rings drain */
	T_EQ(pgas_get_val(&left_sent, left, word(left, 0), 8), 0);
	pgas_block_until(handled - before == left_sent);
	pgas_barrier(2, 0);	/* every ring drained */
	T_CHECK(!bad, "a call failed with an error other than NOT_READY");
	T_CHECK(sent >= lo && sent <= hi, "accepted %u, expected %u..%u", sent, lo, hi);
	/* Room again once drained. */
	T_EQ(fill(kind, 1, &bad), 1);
	pgas_barrier(3, 0);
	pgas_block_until(handled - before == left_sent + 1);
	t_case("%s: %u accepted while nobody polled (%u..%u), then NOT_READY; "
	       "every accepted one handled once", what, sent, lo, hi);
}

static void long_case(void)
{
	static const uint32_t arg = 5;
	char buf[256];
	bool bad = false;
	unsigned sent, before = handled;
	int rc;

	memset(buf, 0xab, sizeof(buf));
	memset(word(me, 64), 0, sizeof(buf));
	pgas_barrier(4, 0);
	all_sent();
	sent = fill(0, 100000, &bad);
	/* The ring is full: a Long is refused and its payload not written. */
	rc = pgas_am_request_long(right, H_COUNT | PGAS_AM_IMMEDIATE, buf, sizeof(buf),
				  word(right, 64), &arg, 1);
	T_EQ(rc, PGAS_ERR_NOT_READY);
	unsigned char *there = pgas_ptr(right, word(right, 64));

	/* (Not reachable here with PGAS_MAP_PEERS=none: not checked then.) */
	T_CHECK(!pgas_ptr(right, word(right, 0)) || (there && there[0] == 0 && there[255] == 0),
		"a refused Long wrote its payload");
	*word(me, 0) = sent;
	all_sent();
	pgas_barrier(5, 0);
	uint64_t left_sent = 0;

	T_EQ(pgas_get_val(&left_sent, left, word(left, 0), 8), 0);
	pgas_block_until(handled - before == left_sent);
	pgas_barrier(5, 0);	/* every ring drained */
	T_EQ(pgas_am_request_long(right, H_COUNT | PGAS_AM_IMMEDIATE, buf, sizeof(buf),
				  word(right, 64), &arg, 1), 0);
	pgas_barrier(6, 0);
	T_CHECK(((unsigned char *)word(me, 64))[255] == 0xab, "the accepted Long's payload");
	t_case("Long with PGAS_AM_IMMEDIATE: refused on a full ring without writing its "
	       "payload, sent once there is room");
}

static void reply_case(void)
{
	uint32_t a = 1;
	unsigned before = pongs;

	pgas_barrier(7, 0);
	for (unsigned i = 0; i < 50; i++)
		T_EQ(pgas_am_request_short(right, H_PING, &a, 1), 0);
	pgas_block_until(pongs - before == 50);
	pgas_barrier(7, 0);
	t_case("replies with PGAS_AM_IMMEDIATE (a handler falls back to waiting when refused)");
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = {
		{ H_COUNT, h_count }, { H_PING, h_ping }, { H_PONG, h_pong },
	};
	size_t slots;

	if (pgas_init(&argc, &argv) || t_attach(table, 3, 1 << 16))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	right = (me + 1) % n;
	left = (me + n - 1) % n;
	slots = strtoul(getenv("PGAS_MBOX_SLOTS") ? getenv("PGAS_MBOX_SLOTS") : "256", NULL, 0);
	/* One-slot shorts: a ring's worth, less what the harness's barrier
	 * may still have in it. */
	fill_case(0, (unsigned)slots - 8, (unsigned)slots, "AM Short, one slot each");
	/* A Medium just over the packet limit: through a bounce buffer. */
	med_bytes = pgas_am_medium_inline_max(2) + 1;
	if (med_bytes <= pgas_am_max_medium())
		fill_case(1, 1, (unsigned)slots, "AM Medium through bounce buffers");
	long_case();
	reply_case();
	t_done();
	return 0;
}
