/*
 * An endpoint's own fabric endpoint whose connection never comes up (the
 * target is out of file descriptors: check-native runs rank 1 under a low
 * `ulimit -n`): rank 0's puts on fresh endpoints must still complete, on
 * the shared fabric endpoint, not retry forever.  Rank 0 then reads every
 * value back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "tap.h"

enum { NEPS = 8 };

int main(int argc, char **argv)
{
	int provided;
	pgas_ep_t ep[NEPS];
	uint64_t v, back[NEPS];
	unsigned me;

	if (pgas_init_thread(&argc, &argv, PGAS_THREAD_SINGLE, &provided) ||
	    t_attach(NULL, 0, 1u << 20))
		return 1;
	me = pgas_rank();
	if (pgas_nranks() < 2) {
		printf("1..0 # SKIP needs 2 ranks\n");
		pgas_exit(0);
	}
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me == 0) {
		uint64_t *dst = pgas_segment_addr(1);

		for (unsigned i = 0; i < NEPS; i++) {
			v = 1000 + i;
			T_EQ(pgas_ep_create(&ep[i], 0), 0);
			T_EQ(pgas_ep_put(ep[i], 1, dst + i, &v, sizeof(v)), 0);
		}
		T_EQ(pgas_get(back, 1, dst, sizeof(back)), 0);
		for (unsigned i = 0; i < NEPS; i++)
			T_EQ(back[i], 1000 + i);
		for (unsigned i = 0; i < NEPS; i++)
			T_EQ(pgas_ep_destroy(ep[i]), 0);
	}
	t_case("%d endpoints, each a blocking put to a rank whose connections may not come up: "
	       "every put completes, every value read back", NEPS);
	t_done();
}
