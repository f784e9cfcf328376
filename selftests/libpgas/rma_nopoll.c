// SPDX-License-Identifier: MIT
/*
 * rma_nopoll - a put's completion means the data is at the target, also
 * when the target does not poll (the ofi conduit's fabric writes,
 * docs/ofi.md "The RMA path"; check-native runs it with
 * PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none).  The target sleeps without any
 * call into the library until the initiator says, through a file of this
 * host (not through the library), that its put or sync returned; the data
 * must be there at that moment.  If the initiator's put cannot complete
 * until the target polls (manual progress), the target polls after
 * NOPOLL_MS and the check is the same.  Then local buffers of every kind
 * (stack, heap, segment, region; small and large, over the bounce buffers'
 * size) in both directions, blocking, _nb and _nbi.  One host only.
 *
 * Ordering on the remote path (pgas.h): pgas_quiet completes _nb puts too,
 * an atomic with PGAS_AOP_REL (on the own rank) completes the puts before
 * it, and pgas_fence keeps a put_with_signal's signal (a message that
 * waits in the conduit until a progress ships it) before a later fabric
 * write (which goes out in its call).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define NOPOLL_MS 1500
#define BIG (1u << 20)
#define RLEN (256 * 1024)

static unsigned me, n;
static volatile uint64_t *oob;	/* [0]: the round whose put returned */
static pgas_ad_t ad;		/* PGAS_AOP_SET on u64 */
static unsigned char region[RLEN] __attribute__((aligned(4096)));

static char *seg(unsigned r, size_t off)
{
	return (char *)pgas_segment_addr(r) + off;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The target's side of round 'round': no library call until the flag (or NOPOLL_MS). */
static void target_waits(uint64_t round, size_t len, uint64_t seed, const char *what)
{
	double t0 = now_ms();
	bool seen = false;

	while (!seen && now_ms() - t0 < NOPOLL_MS) {
		seen = __atomic_load_n(&oob[0], __ATOMIC_ACQUIRE) >= round;
		if (!seen)
			usleep(1000);
	}
	if (seen) {	/* the initiator's call returned while this rank never polled */
		T_EQ(t_verify(seg(me, 0), len, seed), len);
		printf("# %s: returned after %.0f ms while the target did not poll\n", what,
		       now_ms() - t0);
	} else {	/* manual progress: it waits for this rank */
		while (__atomic_load_n(&oob[0], __ATOMIC_ACQUIRE) < round)
			pgas_poll();
		T_EQ(t_verify(seg(me, 0), len, seed), len);
		printf("# %s: waited for the target to poll (%.0f ms)\n", what, now_ms() - t0);
	}
}

static void test_nopoll(int form, uint64_t round, const char *what)
{
	static unsigned char buf[BIG];
	pgas_handle_t h = PGAS_HANDLE_DONE;

	pgas_barrier(1, 0);
	if (me == 1) {
		target_waits(round, BIG, round, what);
	} else if (me == 0) {
		t_fill(buf, BIG, round);
		if (form == 0) {
			T_EQ(pgas_put(1, seg(1, 0), buf, BIG), 0);
		} else if (form == 1) {
			T_EQ(pgas_put_nb(&h, 1, seg(1, 0), buf, BIG), 0);
			T_EQ(pgas_wait_syncnb(h), 0);
			h = PGAS_HANDLE_DONE;
		} else if (form == 2) {
			T_EQ(pgas_put_nbi(1, seg(1, 0), buf, BIG), 0);
			T_EQ(pgas_wait_syncnbi_puts(), 0);
		} else if (form == 3) {
			T_EQ(pgas_put_nb(&h, 1, seg(1, 0), buf, BIG), 0);
			T_EQ(pgas_quiet(), 0);
		} else if (form == 5) {
			/* An endpoint made meanwhile has nothing in flight (it
			 * once copied the primary's count: its quiet hung). */
			pgas_ep_t ep;

			T_EQ(pgas_put_nb(&h, 1, seg(1, 0), buf, BIG), 0);
			T_EQ(pgas_ep_create(&ep, 0), 0);
			T_EQ(pgas_ep_quiet(ep), 0);
			T_EQ(pgas_ep_destroy(ep), 0);
			T_EQ(pgas_wait_syncnb(h), 0);
			h = PGAS_HANDLE_DONE;
		} else {
			T_EQ(pgas_put_nbi(1, seg(1, 0), buf, BIG), 0);
			T_EQ(pgas_ad_op_u64(ad, NULL, 0, seg(0, 2 * BIG - 64), PGAS_AOP_SET, round, 0,
					    PGAS_AOP_REL), 0);
		}
		__atomic_store_n(&oob[0], round, __ATOMIC_RELEASE);
		T_EQ(pgas_wait_syncnb(h), 0);
		T_EQ(pgas_wait_syncnbi_puts(), 0);
	}
	pgas_barrier(2, 0);
	t_case("%s to a target that does not poll: the data is there when it returns", what);
}

/*
 * pgas_fence between a put_with_signal_nb (its signal a message of the
 * conduit's, shipped by a later progress) and an _nbi put (a fabric write,
 * out in its call), after which the initiator makes no library call for a
 * while: the target, polling, must not see the put before the signal.
 */
static void test_fence(uint64_t round)
{
	static unsigned char data[64];
	static uint64_t later;
	uint64_t *sig = (uint64_t *)seg(1, 2 * BIG - 128), *word = (uint64_t *)seg(1, 2 * BIG - 192);
	pgas_handle_t h;

	pgas_barrier(7, 0);
	if (me == 1) {
		double t0 = now_ms();

		while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != round && now_ms() - t0 < 10000)
			pgas_poll();
		T_EQ(__atomic_load_n(word, __ATOMIC_ACQUIRE), round);
		T_EQ(__atomic_load_n(sig, __ATOMIC_ACQUIRE), round);
	} else if (me == 0) {
		t_fill(data, sizeof(data), round);
		later = round;
		T_EQ(pgas_put_with_signal_nb(&h, 1, seg(1, 0), data, sizeof(data), sig, round,
					     PGAS_SIGNAL_SET), 0);
		pgas_fence();
		T_EQ(pgas_put_nbi(1, word, &later, sizeof(later)), 0);
		usleep(300 * 1000);	/* no progress here meanwhile */
		T_EQ(pgas_wait_syncnb(h), 0);
		T_EQ(pgas_wait_syncnbi_puts(), 0);
	}
	pgas_barrier(8, 0);
	t_case("pgas_fence: a put_with_signal's signal is seen before a later put");
}

/* Every kind of local buffer, both ways, around the copy thresholds. */
static void test_buffers(void)
{
	static const size_t sizes[] = { 1, 8, 63, 64, 65, 4096, 65535, 65536, 65537, 300000 };
	unsigned t = (me + 1) % n;
	unsigned char stack[128];
	unsigned char *heap = malloc(300000), *mine = (unsigned char *)seg(me, 512 * 1024);
	uint64_t v;

	T_CHECK(heap != NULL, "malloc");
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t len = sizes[s];
		unsigned char *locals[3] = { heap, mine, region };

		for (unsigned k = 0; k < 4; k++) {
			unsigned char *l = k < 3 ? locals[k] : stack;
			uint64_t seed = 1000 * s + 10 * k + me;
			pgas_handle_t h;

			if (k == 3 && len > sizeof(stack))
				continue;
			if (k == 2 && len > RLEN)
				continue;
			t_fill(l, len, seed);
			if (s & 1) {
				T_EQ(pgas_put_nb(&h, t, seg(t, 4096), l, len), 0);
				T_EQ(pgas_wait_syncnb(h), 0);
			} else {
				T_EQ(pgas_put(t, seg(t, 4096), l, len), 0);
			}
			memset(l, 0, len);
			if (s & 1) {
				T_EQ(pgas_get_nbi(l, t, seg(t, 4096), len), 0);
				T_EQ(pgas_wait_syncnbi_gets(), 0);
			} else {
				T_EQ(pgas_get(l, t, seg(t, 4096), len), 0);
			}
			T_EQ(t_verify(l, len, seed), len);
		}
	}
	/* By value: the source is the library's stack. */
	v = 0x0102030405060708ull ^ me;
	T_EQ(pgas_put_nbi(t, seg(t, 64), &v, 8), 0);
	v = 0;
	T_EQ(pgas_wait_syncnbi_puts(), 0);
	T_EQ(pgas_get(&v, t, seg(t, 64), 8), 0);
	T_EQ(v, 0x0102030405060708ull ^ me);
	free(heap);
	pgas_barrier(3, 0);
	t_case("local buffers on the stack, heap, segment and region, 1 B to 300 kB, both ways");
}

/* Into the target's registered region, from its segment. */
static void test_region(void)
{
	unsigned t = (me + 1) % n;
	unsigned char *src = (unsigned char *)seg(me, 256 * 1024), *ra;
	pgas_seginfo_t ri;

	T_EQ(pgas_region_info(t, &ri), 0);
	ra = ri.addr ? ri.addr : region;	/* t's region, in t's address space */
	t_fill(src, RLEN, 55 + me);
	pgas_barrier(4, 0);
	T_EQ(pgas_put(t, ra, src, RLEN), 0);
	pgas_barrier(5, 0);
	T_EQ(t_verify(region, RLEN, 55 + (me + n - 1) % n), RLEN);
	memset(src, 0, RLEN);
	T_EQ(pgas_get(src, t, ra, RLEN), 0);
	T_EQ(t_verify(src, RLEN, 55 + me), RLEN);
	pgas_barrier(6, 0);
	t_case("put and get into a rank's registered region");
}

int main(void)
{
	char path[64];
	int fd;

	if (pgas_init(NULL, NULL) || t_attach(NULL, 0, 2 * BIG))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (pgas_segment_register(region, RLEN) || pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_SET, 0))
		return 1;
	/* pgasrun (the ranks' parent) names the file: this host only. */
	snprintf(path, sizeof(path), "/dev/shm/pgas-rma-nopoll-%d", (int)getppid());
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, 4096))
		return 1;
	oob = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (oob == MAP_FAILED)
		return 1;
	pgas_barrier(0, 0);
	if (me == 0)
		unlink(path);
	if (n > 1) {
		test_nopoll(0, 1, "a blocking put");
		test_nopoll(1, 2, "an _nb put and its sync");
		test_nopoll(2, 3, "an _nbi put and its sync");
		test_nopoll(3, 4, "an _nb put and pgas_quiet");
		test_nopoll(4, 5, "an _nbi put and an own-rank atomic with PGAS_AOP_REL");
		test_nopoll(5, 7, "an _nb put, an endpoint created, its quiet, the put's sync");
		test_fence(6);
		test_buffers();
		test_region();
	}
	t_done();
	pgas_exit(0);
}
