// SPDX-License-Identifier: MIT
/*
 * ep_fabric.c - endpoints with fabric endpoints of their own (the ofi
 * conduit, docs/ofi.md "Fabric endpoints"): each thread drives its own
 * pgas endpoint, whose remote RMA posts and completes on that endpoint's
 * fid_ep and CQ only.  Run with PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none (on
 * other conduits it checks the same results, by other paths).
 *
 *  1. traffic: T threads, an endpoint each, put/get of every form to the
 *     next rank, each checked; its syncs progress its own queue only.
 *  2. destroy in flight: each thread issues 64 KiB _nbi puts and destroys
 *     its endpoint without a sync: pgas_ep_destroy drains them before it
 *     closes the fabric endpoint, and the target finds every byte.
 *  3. (3 ranks or more) rank 0's thread A waits in a blocking get from
 *     rank 1, which makes no library call until rank 0 says (through a
 *     page in /dev/shm) that thread B's puts to rank 2 on its own endpoint
 *     and their sync completed: B's operations neither complete on A's
 *     queue nor wait behind A's wait (a B that did would end only after
 *     rank 1's 120 s bound, after A: the check fails).
 *
 * check-native also reads the PGAS_VERBOSEENV statistics: the extra
 * endpoints' RMA completed on their own queues, none on the shared one.
 *
 * ep_fabric [-t threads] [-i iterations] [-s seed]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define MAXT 8
#define SLOT (64u << 10)	/* per thread in case 1 */
#define DPUTS 8			/* case 2: _nbi puts of SLOT bytes per thread */

static unsigned nthreads = 4, iters = 50;
static uint64_t seed;
static char *seg;		/* my segment (the same offsets everywhere) */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Case 1's region of thread t, case 2's after it. */
static char *area1(char *base, unsigned t)
{
	return base + (size_t)t * SLOT;
}

static char *area2(char *base, unsigned t)
{
	return base + (size_t)MAXT * SLOT + (size_t)t * DPUTS * SLOT;
}

static void *traffic(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, me = pgas_rank(), n = pgas_nranks();
	unsigned peer = (me + 1) % n;
	char *dst = area1(pgas_segment_addr(peer), t);
	static _Thread_local unsigned char src[SLOT], back[SLOT];
	pgas_ep_t ep;

	T_EQ(pgas_ep_create(&ep, 0), PGAS_OK);
	for (unsigned i = 0; i < iters; i++) {
		size_t len = (size_t)1 << (3 + (i % 14));	/* 8 B .. 64 KiB */
		uint64_t s = seed + me * 1000003u + t * 10007u + i;
		pgas_handle_t h;

		if (len > SLOT)
			len = SLOT;
		t_fill(src, len, s);
		switch (i % 3) {
		case 0:
			T_EQ(pgas_ep_put_nbi(ep, peer, dst, src, len), PGAS_OK);
			T_EQ(pgas_ep_wait_syncnbi_puts(ep), PGAS_OK);
			T_EQ(pgas_ep_get_nbi(ep, back, peer, dst, len), PGAS_OK);
			T_EQ(pgas_ep_wait_syncnbi_gets(ep), PGAS_OK);
			break;
		case 1:
			T_EQ(pgas_ep_put_nb(ep, &h, peer, dst, src, len), PGAS_OK);
			T_EQ(pgas_wait_syncnb(h), PGAS_OK);
			T_EQ(pgas_ep_get_nb(ep, &h, back, peer, dst, len), PGAS_OK);
			T_EQ(pgas_wait_syncnb(h), PGAS_OK);
			break;
		default:
			T_EQ(pgas_ep_put(ep, peer, dst, src, len), PGAS_OK);
			T_EQ(pgas_ep_get(ep, back, peer, dst, len), PGAS_OK);
			break;
		}
		T_EQ(t_verify(back, len, s), len);
	}
	T_EQ(pgas_ep_quiet(ep), PGAS_OK);
	T_EQ(pgas_ep_destroy(ep), PGAS_OK);
	return NULL;
}

static void *destroy_in_flight(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, me = pgas_rank(), n = pgas_nranks();
	unsigned peer = (me + 1) % n;
	char *dst = area2(pgas_segment_addr(peer), t);
	unsigned char *src = malloc((size_t)DPUTS * SLOT);
	pgas_ep_t ep;

	T_CHECK(src, "malloc");
	if (!src)
		return NULL;
	t_fill(src, (size_t)DPUTS * SLOT, seed + 77 + me * 131u + t);
	T_EQ(pgas_ep_create(&ep, 0), PGAS_OK);
	for (unsigned k = 0; k < DPUTS; k++)
		T_EQ(pgas_ep_put_nbi(ep, peer, dst + (size_t)k * SLOT, src + (size_t)k * SLOT,
				     SLOT), PGAS_OK);
	/* No sync: destroy completes them before its fabric endpoint closes
	 * (the source buffer is freed only after it returns). */
	T_EQ(pgas_ep_destroy(ep), PGAS_OK);
	free(src);
	return NULL;
}

static atomic_int a_started;
static double a_done, b_done;
/* Shared by the ranks of this host outside the library: rank 0 says when
 * B is done, so that rank 1 stays silent until then. */
static volatile _Atomic int *oob;

static void *long_wait_a(void *arg)
{
	pgas_ep_t ep;
	uint64_t v = 0;

	(void)arg;
	T_EQ(pgas_ep_create(&ep, 0), PGAS_OK);
	atomic_store(&a_started, 1);
	/* Rank 1 makes no call for 2 s: this get waits for its progress. */
	T_EQ(pgas_ep_get(ep, &v, 1, pgas_segment_addr(1), 8), PGAS_OK);
	a_done = now();
	T_EQ(pgas_ep_destroy(ep), PGAS_OK);
	return NULL;
}

static void *short_b(void *arg)
{
	char *dst = area1(pgas_segment_addr(2), 0);
	uint64_t v[64];
	pgas_ep_t ep;

	(void)arg;
	T_EQ(pgas_ep_create(&ep, 0), PGAS_OK);
	while (!atomic_load(&a_started))
		usleep(1000);
	usleep(50000);		/* A is inside its wait */
	for (unsigned k = 0; k < 64; k++) {
		v[k] = seed + k;
		T_EQ(pgas_ep_put_nbi(ep, 2, dst + 8 * k, &v[k], 8), PGAS_OK);
	}
	T_EQ(pgas_ep_wait_syncnbi_puts(ep), PGAS_OK);
	b_done = now();
	atomic_store(oob, 1);	/* rank 1 may poll again */
	T_EQ(pgas_ep_destroy(ep), PGAS_OK);
	return NULL;
}

static void run_threads(void *(*fn)(void *))
{
	pthread_t th[MAXT];

	for (unsigned t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, fn, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
	int provided = 0, opt;
	unsigned me, n, from;

	seed = (uint64_t)time(NULL);
	while ((opt = getopt(argc, argv, "t:i:s:")) != -1) {
		if (opt == 't')
			nthreads = (unsigned)atoi(optarg);
		else if (opt == 'i')
			iters = (unsigned)atoi(optarg);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
	}
	if (nthreads < 1 || nthreads > MAXT)
		nthreads = 4;
	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_MULTIPLE, &provided) ||
	    provided != PGAS_THREAD_MULTIPLE ||
	    t_attach(NULL, 0, (size_t)MAXT * SLOT * (1 + DPUTS)))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	seg = pgas_segment_addr(me);
	if (me == 0)
		printf("# seed %llu (-s to replay)\n", (unsigned long long)seed);

	if (n > 1)
		run_threads(traffic);
	t_case("traffic: %u threads, an endpoint each, put/get of every form to the next rank, "
	       "8 B-64 KiB, read back", nthreads);

	if (n > 1)
		run_threads(destroy_in_flight);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	from = (me + n - 1) % n;
	for (unsigned t = 0; n > 1 && t < nthreads; t++)
		T_EQ(t_verify(area2(seg, t), (size_t)DPUTS * SLOT, seed + 77 + from * 131u + t),
		     (size_t)DPUTS * SLOT);
	t_case("destroy in flight: %u x 64 KiB _nbi puts per endpoint, pgas_ep_destroy without "
	       "a sync: every byte at the target", DPUTS);

	if (n >= 3) {
		/* pgasrun (the ranks' parent) names the page: this host only. */
		char path[64];
		int fd;
		double t0;

		snprintf(path, sizeof(path), "/dev/shm/pgas-ep-fabric-%d", (int)getppid());
		fd = open(path, O_RDWR | O_CREAT, 0600);
		T_CHECK(fd >= 0 && !ftruncate(fd, 4096), "%s", path);
		oob = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		T_CHECK(oob != MAP_FAILED, "mmap");
		if (fd >= 0)
			close(fd);
		pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
		if (me == 0)
			unlink(path);
		t0 = now();
		if (me == 0) {
			pthread_t a, b;

			pthread_create(&a, NULL, long_wait_a, NULL);
			pthread_create(&b, NULL, short_b, NULL);
			pthread_join(b, NULL);
			pthread_join(a, NULL);
			T_CHECK(b_done < a_done, "B's sync ended %.3f s after start, A's get %.3f s: "
				"B waited for A", b_done - t0, a_done - t0);
		} else if (me == 1) {
			/* No library call: rank 0's get waits until B is done. */
			while (!atomic_load(oob) && now() - t0 < 120)
				usleep(1000);
			usleep(100000);
		}
	}
	t_case("a long wait on one endpoint (a get from a rank that does not poll until the other "
	       "is done) does not hold back another endpoint's puts and sync%s",
	       n >= 3 ? "" : " (skipped: needs 3 ranks)");
	t_done();
	return 0;
}
