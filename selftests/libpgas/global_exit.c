// SPDX-License-Identifier: MIT
/*
 * global_exit - pgas_global_exit(code) ends every rank with code.
 *
 *   pgasrun -v -n N global_exit -c CODE -w WHERE [-r RANK]
 *
 * Rank RANK (default N-1) calls pgas_global_exit(CODE) 0.1 s after the
 * others began to wait where WHERE says; no other rank may return from its
 * wait (exit 99 if one does).  The driver (scripts/check-native.sh) checks
 * that pgasrun ends with CODE and that every rank exited with CODE.
 *   barrier   the others wait in pgas_barrier (block mode: asleep)
 *   compute   the others spin without calling libpgas
 *   handler   RANK calls it inside the handler of rank 0's request
 *   thread    RANK calls it from a second thread (MULTIPLE) while its
 *             main thread polls
 *   init      RANK calls it after pgas_init, before pgas_attach (the
 *             others wait in pgas_attach's exchange)
 *   blocked   the others block libpgas's signal: killed after 2 s, and
 *             pgasrun still ends with CODE
 *   spoof     first a process other than pgasrun queues libpgas's signal,
 *             with a valid value (code 77), to RANK: ignored
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pgas.h"

static int code = 3;
static unsigned caller;

static void h_exit(pgas_token_t t, void *buf, size_t nbytes, const uint32_t *args,
		   unsigned nargs)
{
	(void)t; (void)buf; (void)nbytes; (void)args; (void)nargs;
	pgas_global_exit(code);
}

static void *in_thread(void *arg)
{
	(void)arg;
	usleep(100000);
	pgas_global_exit(code);
}

int main(int argc, char **argv)
{
	pgas_handler_entry_t table[] = { { 1, h_exit } };
	const char *where = "barrier";
	volatile unsigned long spin = 0;
	int opt, provided;
	unsigned me, n;

	while ((opt = getopt(argc, argv, "c:w:r:")) != -1) {
		switch (opt) {
		case 'c': code = atoi(optarg); break;
		case 'w': where = optarg; break;
		case 'r': caller = (unsigned)atoi(optarg); caller |= 0x80000000u; break;
		default: fprintf(stderr, "usage: global_exit -c CODE -w WHERE [-r RANK]\n"); return 2;
		}
	}
	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, &provided))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	caller = caller & 0x80000000u ? caller & ~0x80000000u : n - 1;
	if (!strcmp(where, "blocked") && me != caller) {
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGRTMIN + 4);
		sigprocmask(SIG_BLOCK, &s, NULL);
	}
	if (!strcmp(where, "init") && me == caller) {
		usleep(100000);
		pgas_global_exit(code);
	}
	if (pgas_attach(table, 1, 4096))
		return 1;
	if (me == caller) {
		pthread_t th;

		if (!strcmp(where, "thread")) {
			pthread_create(&th, NULL, in_thread, NULL);
			for (;;)
				pgas_poll();
		}
		if (!strcmp(where, "handler")) {
			for (;;)	/* until rank 0's request */
				pgas_poll();
		}
		if (!strcmp(where, "spoof")) {
			pid_t self = getpid(), kid = fork();

			if (kid == 0) {
				union sigval v = { .sival_int = 0x7e0000 | 77 };

				sigqueue(self, SIGRTMIN + 4, v);
				_exit(0);
			}
			waitpid(kid, NULL, 0);
		}
		usleep(100000);
		pgas_global_exit(code);
	}
	if (!strcmp(where, "handler") && me == 0)
		pgas_am_request_short(caller, 1, NULL, 0);
	if (!strcmp(where, "compute")) {
		for (;;)
			spin++;
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	fprintf(stderr, "rank %u: returned from its wait\n", me);
	return 99;
}
