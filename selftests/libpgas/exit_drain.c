// SPDX-License-Identifier: MIT
/*
 * exit_drain - pgas_exit(0) right after a flood between two ranks that rank
 * 0 never talks to: rank 1 sends N requests to rank 2 (each answered with
 * a reply) and every rank calls pgas_exit(0) at once.  The exit must drain:
 * rank 2 handles all N requests and rank 1 gets all N replies before they
 * end (each prints "ok"/"not ok" from an atexit handler, after pgas_exit,
 * and a rank that lost any ends with 3).
 * Over ofi with PGAS_OFI_AM=fabric (rings that are proxies) the exit's
 * test of quiescence read the proxies and ended with most of them lost,
 * rc 0.
 *
 *   pgasrun -n 3 exit_drain [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "pgas.h"

enum { H_REQ = 1, H_REP };

static int count = 2000;
static volatile int handled, replied;

static void on_req(pgas_token_t tok, void *buf, size_t n, const uint32_t *args, unsigned nargs)
{
	(void)buf; (void)n; (void)args; (void)nargs;
	handled++;
	pgas_am_reply_short(tok, H_REP, NULL, 0);
}

static void on_rep(pgas_token_t tok, void *buf, size_t n, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)n; (void)args; (void)nargs;
	replied++;
}

/* After pgas_exit (atexit): what arrived; a rank that lost any ends with 3. */
static void judge(const char *what, int got)
{
	printf("%s - %s %d of %d before it ended\n", got == count ? "ok" : "not ok", what, got,
	       count);
	fflush(stdout);
	if (got != count)
		_exit(3);
}

static void judge_target(void)
{
	judge("rank 2 handled", handled);
}

static void judge_sender(void)
{
	judge("rank 1 got replies:", replied);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { { H_REQ, on_req }, { H_REP, on_rep } };

	if (pgas_init(&argc, &argv) || pgas_attach(table, 2, 1 << 16))
		return 2;
	if (argc > 1)
		count = atoi(argv[1]);
	if (pgas_nranks() < 3) {
		printf("not ok - exit_drain needs 3 ranks\n");
		return 1;
	}
	if (pgas_rank() == 2)
		atexit(judge_target);
	if (pgas_rank() == 1)
		atexit(judge_sender);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (pgas_rank() == 1)
		for (int i = 0; i < count; i++)
			if (pgas_am_request_short(2, H_REQ, NULL, 0))
				return 1;
	pgas_exit(0);
	return 0;
}
