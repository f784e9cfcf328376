// SPDX-License-Identifier: MIT
/*
 * rev_wait_local - review reproducer: pgas_wait_until_u64 on a word of
 * this rank that a thread of this rank sets (FUNNELED: the thread does not
 * call libpgas) must return once the thread sets it, whatever the other
 * ranks do.  Here every other rank has already called pgas_exit(0); the
 * "abandoned wait" check of wait.c (check_abandoned) then ends rank 0 with
 * "waiting for what no rank can provide" although its own thread is about
 * to provide it.
 *
 *   pgasrun -n 2 -t 60 rev_wait_local        (exit 0 and "ok" expected)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "pgas.h"

static uint64_t flag;

static void *setter(void *arg)
{
	(void)arg;
	usleep(200000);
	__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	pthread_t th;

	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_FUNNELED, &provided) ||
	    pgas_attach(NULL, 0, 4096))
		return 1;
	if (pgas_rank() != 0)
		pgas_exit(0);		/* the others leave at once */
	usleep(100000);			/* ... and have left by now */
	pthread_create(&th, NULL, setter, NULL);
	if (pgas_wait_until_u64(&flag, PGAS_CMP_EQ, 1)) {
		printf("not ok - pgas_wait_until_u64 failed\n");
		return 1;
	}
	pthread_join(th, NULL);
	printf("ok - rank 0 saw its own thread's store\n");
	pgas_exit(0);
}
