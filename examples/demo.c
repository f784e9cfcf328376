// SPDX-License-Identifier: MIT
/*
 * demo - a small job: every rank sends an AM Short ping to its right
 * neighbour (which replies), an AM Medium greeting, puts its rank into a
 * table on rank 0, and gets its left neighbour's word; a barrier separates
 * the phases; then all-reductions over the job and over odd/even halves.
 * Each rank prints what it exchanged.
 *
 *   pgasrun -n 4 build/examples/demo
 */
#include <stdio.h>
#include <string.h>
#include "pgas.h"

enum { H_PING = 1, H_PONG, H_GREET };

static volatile unsigned pongs, greeting_from = ~0u;
static char greeting[64];

static void ping(pgas_token_t tok, void *buf, size_t n, const uint32_t *args, unsigned nargs)
{
	uint32_t reply = args[0] * 2;

	(void)buf; (void)n; (void)nargs;
	pgas_am_reply_short(tok, H_PONG, &reply, 1);
}

static void pong(pgas_token_t tok, void *buf, size_t n, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)n; (void)nargs;
	pongs = args[0];
}

static void greet(pgas_token_t tok, void *buf, size_t n, const uint32_t *args, unsigned nargs)
{
	unsigned src;

	(void)args; (void)nargs;
	pgas_token_rank(tok, &src);
	memcpy(greeting, buf, n < sizeof(greeting) ? n : sizeof(greeting) - 1);
	greeting_from = src;
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t handlers[] = {
		{ H_PING, ping }, { H_PONG, pong }, { H_GREET, greet },
	};
	unsigned me, n, right, left;
	uint64_t word, *table;
	char text[48];
	uint32_t arg;

	if (pgas_init(&argc, &argv) || pgas_attach(handlers, 3, 1 << 20))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	right = (me + 1) % n;
	left = (me + n - 1) % n;
	table = pgas_segment_addr(me);

	/* AM Short round trip: the neighbour doubles our number. */
	arg = 100 + me;
	pgas_am_request_short(right, H_PING, &arg, 1);
	pgas_block_until(pongs != 0);

	/* AM Medium: a string to the neighbour. */
	snprintf(text, sizeof(text), "hello from rank %u of %u", me, n);
	pgas_am_request_medium(right, H_GREET, text, strlen(text) + 1, NULL, 0);
	pgas_block_until(greeting_from != ~0u);

	/* Put: my rank squared into slot [me] of rank 0's table. */
	word = (uint64_t)me * me;
	pgas_put(0, (uint64_t *)pgas_segment_addr(0) + me, &word, sizeof(word));
	table[0] = me == 0 ? table[0] : 1000 + me;
	pgas_barrier(1, 0);

	/* Get: the left neighbour's first word. */
	pgas_get(&word, left, pgas_segment_addr(left), sizeof(word));
	printf("rank %u/%u: ping %u -> pong %u; got \"%s\" from rank %u; "
	       "rank %u's first word = %llu\n",
	       me, n, 100 + me, pongs, greeting, greeting_from, left, (unsigned long long)word);
	pgas_barrier(2, 0);
	if (me == 0) {
		printf("rank 0's table after the puts:");
		for (unsigned r = 0; r < n; r++)
			printf(" %llu", (unsigned long long)table[r]);
		printf("\n");
	}
	/* Collectives on the job's team and on odd/even halves. */
	uint64_t mine = me + 1, sum = 0, half_sum = 0;
	pgas_team_t half;

	pgas_reduce_all(pgas_team_all(), &sum, &mine, 1, PGAS_UINT64, PGAS_OP_SUM,
			PGAS_COLL_MYSYNC);
	pgas_team_split(pgas_team_all(), (int)(me % 2), me, &half);
	pgas_reduce_all(half, &half_sum, &mine, 1, PGAS_UINT64, PGAS_OP_SUM, PGAS_COLL_MYSYNC);
	printf("rank %u/%u: sum of rank+1 over the job = %llu, over the %s ranks = %llu\n", me, n,
	       (unsigned long long)sum, me % 2 ? "odd" : "even", (unsigned long long)half_sum);
	pgas_team_destroy(half);
	pgas_exit(0);
}
