// SPDX-License-Identifier: MIT
/*
 * ep_put - threads of rank 0, an endpoint each, putting into rank 1 (the
 * ofi conduit's fabric endpoints, docs/ofi.md "Fabric endpoints"):
 *
 *   PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none pgasrun -n 2 ep_put -t T [-k puts]
 *
 * Each of rank 0's T threads creates an endpoint and puts 8 bytes into a
 * line of its own in rank 1's segment: put8_rate: put_nbi with a
 * wait_syncnbi_puts every 64, summed over the threads (puts/s); put8_lat:
 * blocking puts, the median over the threads of each one's mean (us).
 * Rank 1 waits in a barrier (its progress serves the writes).  Compare
 * PGAS_OFI_EPS=0 (every endpoint on the shared fabric endpoint).
 * Prints "RESULT ep_put.METRIC.T VALUE UNIT".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "pgas.h"

#define MAX_T 16

static unsigned nthreads = 1, count = 20000;
static pthread_barrier_t bar;
static double rate_t[MAX_T], lat_t[MAX_T];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	char *dst = (char *)pgas_segment_addr(1) + 64 * t;
	uint64_t v = t;
	pgas_ep_t ep;
	double t0;

	if (pgas_ep_create(&ep, 0))
		exit(1);
	pthread_barrier_wait(&bar);
	t0 = now();
	for (unsigned i = 0; i < count; i++) {
		if (pgas_ep_put_nbi(ep, 1, dst, &v, 8))
			exit(1);
		if ((i & 63) == 63 && pgas_ep_wait_syncnbi_puts(ep))
			exit(1);
	}
	if (pgas_ep_wait_syncnbi_puts(ep))
		exit(1);
	rate_t[t] = count / (now() - t0);
	pthread_barrier_wait(&bar);
	t0 = now();
	for (unsigned i = 0; i < count / 8; i++)
		if (pgas_ep_put(ep, 1, dst, &v, 8))
			exit(1);
	lat_t[t] = (now() - t0) / (count / 8) * 1e6;
	pgas_ep_destroy(ep);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int provided, opt;
	pthread_t th[MAX_T];

	while ((opt = getopt(argc, argv, "t:k:")) != -1) {
		if (opt == 't')
			nthreads = (unsigned)atoi(optarg);
		else if (opt == 'k')
			count = (unsigned)atoi(optarg);
	}
	if (nthreads < 1 || nthreads > MAX_T)
		nthreads = 1;
	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, &provided) ||
	    provided != PGAS_THREAD_MULTIPLE || pgas_attach(NULL, 0, 1u << 20) ||
	    pgas_nranks() < 2)
		return 1;
	if (pgas_rank() == 0) {
		double sum = 0;

		pthread_barrier_init(&bar, NULL, nthreads);
		for (unsigned t = 0; t < nthreads; t++)
			pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
		for (unsigned t = 0; t < nthreads; t++)
			pthread_join(th[t], NULL);
		for (unsigned t = 0; t < nthreads; t++)
			sum += rate_t[t];
		qsort(lat_t, nthreads, sizeof(double), cmp);
		printf("RESULT ep_put.put8_rate.%u %.0f puts/s\n", nthreads, sum);
		printf("RESULT ep_put.put8_lat.%u %.1f us\n", nthreads, lat_t[nthreads / 2]);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	pgas_exit(0);
	return 0;
}
