/* SPDX-License-Identifier: MIT */
/*
 * compat - what older and other programs call: the 1.2 allocation names,
 * the deprecated long forms of shmem_wait_until / shmem_wait, the cache
 * routines (no effect), start_pes/_my_pe/_num_pes; shmem_info_get_name
 * into a buffer just long enough; a value returned by
 * shmem_signal_wait_until that satisfies the wait while the signal keeps
 * changing.  Valid C99 and C++ as well as C11: check-native builds it
 * each way.
 */
#include "stap.h"
#include <shmemx.h>

#define ROUNDS 2000

int main(void)
{
	start_pes(0);
	st_init();
	int me = _my_pe(), n = _num_pes();

	T_CHECK(me == shmem_my_pe() && n == shmem_n_pes(), "_my_pe/_num_pes");
	{
		long *a = (long *)shmalloc(4 * sizeof(long));
		long *b = (long *)shmemalign(4096, sizeof(long));

		T_CHECK(a && b && ((uintptr_t)b & 4095) == 0, "shmalloc %p shmemalign %p", (void *)a,
			(void *)b);
		a[3] = 42;
		a = (long *)shrealloc(a, 64 * sizeof(long));
		T_CHECK(a && a[3] == 42, "shrealloc kept the contents");
		shfree(b);
		shfree(a);
	}
	st_case("shmalloc / shmemalign / shrealloc / shfree");

	{
		long *w = (long *)shmem_calloc(2, sizeof(long));

		shmem_set_cache_inv();
		shmem_set_cache_line_inv(w);
		shmem_clear_cache_inv();
		shmem_clear_cache_line_inv(w);
		shmem_udcflush();
		shmem_udcflush_line(w);
		shmem_barrier_all();
		shmem_long_p(&w[0], 5, (me + 1) % n);
		shmem_long_p(&w[1], 9, (me + 1) % n);
		shmem_wait_until(&w[0], SHMEM_CMP_EQ, 5);
		shmem_wait(&w[1], 0);		/* until it is not 0 */
		T_CHECK(w[0] == 5 && w[1] == 9, "w = %ld %ld", w[0], w[1]);
		shmem_barrier_all();
		shmem_free(w);
	}
	st_case("cache routines; the deprecated long shmem_wait_until and shmem_wait");

	{
		char name[sizeof(SHMEM_VENDOR_STRING) + 8];

		memset(name, 'x', sizeof(name));
		shmem_info_get_name(name);
		T_CHECK(!strcmp(name, SHMEM_VENDOR_STRING), "name %s", name);
		/* nothing written past the terminator: the buffer may be short */
		T_CHECK(name[sizeof(SHMEM_VENDOR_STRING)] == 'x', "wrote past the name");
	}
	st_case("shmem_info_get_name writes the name and its terminator only");

	/*
	 * PE 0 sets PE 1's signal to 5 and back to 0 until PE 1 has waited
	 * ROUNDS times for "not 0": each wait must return a value that is not
	 * 0 (a second read after the wait could see the 0 again).  PE 0 reads
	 * done after each store, so the signal stays 5 about as long as 0:
	 * where that read is a round trip through the fabric (an atomic
	 * domain of the ofi conduit, on its own rank too) and the two stores
	 * were back to back, PE 1 almost never saw the 5 (62 s, CI).
	 */
	{
		uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
		int *done = (int *)shmem_calloc(1, sizeof(int));
		unsigned bad = 0;

		shmem_barrier_all();
		if (n >= 2 && me == 0) {
			while (!shmem_int_atomic_fetch(done, 0)) {
				shmem_putmem_signal(sig, sig, 0, sig, 5, SHMEM_SIGNAL_SET, 1);
				if (shmem_int_atomic_fetch(done, 0))
					break;
				shmem_putmem_signal(sig, sig, 0, sig, 0, SHMEM_SIGNAL_SET, 1);
			}
		} else if (n >= 2 && me == 1) {
			for (int i = 0; i < ROUNDS; i++)
				bad += shmem_signal_wait_until(sig, SHMEM_CMP_NE, 0) == 0;
			shmem_int_atomic_set(done, 1, 0);
		}
		T_CHECK(bad == 0, "signal_wait_until(NE 0) returned 0 in %u of %d waits", bad, ROUNDS);
		shmem_barrier_all();
		shmem_free(done);
		shmem_free(sig);
	}
	st_case("shmem_signal_wait_until returns a value that satisfies the wait");

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
	/* Other implementations' C11 names: the deprecated AMO generics on
	 * every AMO type, shmem_sync(team) beside the 1.4 shmem_sync, the
	 * bitwise reductions of signed types. */
	{
		unsigned int *u = (unsigned int *)shmem_calloc(2, sizeof(unsigned int));
		short *s = (short *)shmem_calloc(2, sizeof(short));
		long *ps = (long *)shmem_calloc(SHMEM_BARRIER_SYNC_SIZE, sizeof(long));

		for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
			ps[i] = SHMEM_SYNC_VALUE;
		shmem_barrier_all();
		shmem_add(&u[0], 2u, 0);
		shmem_inc(&u[0], 0);
		(void)shmem_finc(&u[1], 0);
		shmem_sync(SHMEM_TEAM_WORLD);
		shmem_sync(0, 0, n, ps);
		if (me == 0) {
			T_EQ(shmem_fetch(&u[0], 0), 3u * n);
			T_EQ(shmem_cswap(&u[1], (unsigned int)n, 7u, 0), (unsigned int)n);
			T_EQ(shmem_swap(&u[1], 9u, 0), 7u);
		}
		s[0] = (short)(-1 ^ (1 << me % 15));	/* and: every PE clears its bit */
		T_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, &s[1], &s[0], 1), 0);
		short want = -1;
		for (int p = 0; p < n; p++)
			want &= (short)(-1 ^ (1 << p % 15));
		T_EQ(s[1], want);
		shmem_barrier_all();
		shmem_free(ps);
		shmem_free(s);
		shmem_free(u);
	}
	T_CHECK(shmemx_wtime() > 0, "shmemx_wtime");
	st_case("C11: deprecated AMO generics on unsigned int, shmem_sync(team) and (1.4), signed bitwise reduce; shmemx_wtime");
#endif
	return st_done();
}
