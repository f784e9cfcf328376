// SPDX-License-Identifier: MIT
/*
 * rev_ge_fork - review reproducer: pgas_global_exit called by a process
 * that a rank forked.  The child still holds the rank's bootstrap socket,
 * so pgasrun takes the call as the rank's own and signals every rank
 * except that one (tools/pgasrun.c global_exit: r != from): the parent
 * rank, which did not call it, goes on running (here it prints and exits
 * 42) until the 2 s grace period's SIGKILL.  Expected: the whole job ends
 * with the code (every rank), or the child alone ends (pgas_exit treats a
 * forked child as no member of the job).
 *
 *   pgasrun -n 2 -t 60 rev_ge_fork      (expected: no "still running" line)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pgas.h"

int main(int argc, char **argv)
{
	if (pgas_init(&argc, &argv) || pgas_attach(NULL, 0, 4096))
		return 1;
	if (pgas_rank() == 0) {
		pid_t c = fork();

		if (c == 0) {
			usleep(100000);
			pgas_global_exit(5);
		}
		waitpid(c, NULL, 0);
		usleep(500000);		/* pgasrun has handled the call by now */
		fprintf(stderr, "rank 0: still running 0.5 s after the job's global exit\n");
		fflush(stderr);
		_exit(42);
	}
	for (;;)
		pause();		/* the others: ended by the global exit */
}
