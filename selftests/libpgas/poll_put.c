// SPDX-License-Identifier: MIT
/*
 * poll_put - a rank that waits for a remote put's arrival by spinning on
 * pgas_poll() alone sees it: pgas_poll drives the conduit's progress (the
 * ofi conduit's fabric: check-native runs it with PGAS_CONDUIT=ofi
 * PGAS_MAP_PEERS=none, fabric RMA and RMA over messages).  Ranks 0 and 1
 * ping-pong a counter by blocking puts, each waiting with pgas_poll() only,
 * bounded: a wait that does not end in 20 s fails instead of hanging.
 */
#define _GNU_SOURCE
#include <time.h>
#include "tap.h"

#define ROUNDS 200

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Spins on pgas_poll() until *flag reaches want: true, or false after 20 s. */
static bool poll_until(volatile uint64_t *flag, uint64_t want)
{
	double t0 = now_s();

	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < want) {
		if (pgas_poll() < 0 || now_s() - t0 > 20)
			return false;
	}
	return true;
}

int main(void)
{
	unsigned me, n;
	volatile uint64_t *flag;
	bool ok = true;
	double t0;

	if (pgas_init(NULL, NULL) || t_attach(NULL, 0, 1 << 20))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	flag = pgas_segment_addr(me);
	*flag = 0;
	pgas_barrier(0, 0);
	t0 = now_s();
	if (n > 1 && me < 2) {
		for (uint64_t i = 1; ok && i <= ROUNDS; i++) {
			uint64_t v = i;

			if (me == 1 && !(ok = poll_until(flag, i)))
				break;
			if (pgas_put(!me, pgas_segment_addr(!me), &v, sizeof(v)))
				ok = false;
			else if (me == 0 && !(ok = poll_until(flag, i)))
				T_CHECK(0, "round %llu: waited 20 s on pgas_poll() for a put of rank 1",
					(unsigned long long)i);
		}
		T_CHECK(ok, "rank %u: the ping-pong did not finish", me);
		if (ok && me == 0)
			printf("# %d round trips, pgas_poll() waits: %.1f us each\n", ROUNDS,
			       (now_s() - t0) * 1e6 / ROUNDS);
	}
	t_case("a rank spinning on pgas_poll() alone sees a remote put arrive");
	t_done();
	pgas_exit(0);
}
