// SPDX-License-Identifier: MIT
/*
 * lifecycle - a job for the launcher tests (scripts/check-native.sh):
 *
 *   lifecycle ok            AM and barrier traffic, then a clean exit
 *   lifecycle kill R        rank R SIGKILLs itself mid-traffic; the others
 *                           keep waiting for it in barriers (pgasrun must
 *                           end them)
 *   lifecycle exit R CODE   rank R exits with CODE mid-traffic
 *   lifecycle hang          rank 0 never enters the barrier the others wait in
 *
 * Prints "lifecycle: rank R ready" on every rank once attached.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pgas.h"
#include "pingpong.h"


int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { PINGPONG_HANDLERS };
	const char *mode = argc > 1 ? argv[1] : "ok";
	unsigned victim = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	int code = argc > 3 ? atoi(argv[3]) : 0;
	unsigned me, n;

	if (pgas_init(&argc, &argv) || pgas_attach(table, 2, 1 << 16))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	printf("lifecycle: rank %u ready\n", me);
	fflush(stdout);
	if (!strcmp(mode, "hang")) {
		if (me == 0)
			for (;;)
				pause();
		pgas_barrier(1, 0);
		pgas_exit(1);	/* not reached */
	}
	for (unsigned i = 0; i < 1000; i++) {
		if (i == 200 && me == victim) {
			if (!strcmp(mode, "kill"))
				raise(SIGKILL);
			if (!strcmp(mode, "exit"))
				pgas_exit(code);
		}
		pgas_am_request_short((me + 1) % n, H_PING, NULL, 0);
		pgas_block_until(pongs == i + 1);
		pgas_barrier(i, 0);
	}
	pgas_exit(0);
}
