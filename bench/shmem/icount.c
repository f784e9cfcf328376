// SPDX-License-Identifier: MIT
/*
 * shmem_icount - the OpenSHMEM layer's inline calls (shmem.h) wrapped in
 * non-inlined functions for callgrind, as bench/icount.c does libpgas's,
 * beside the libpgas calls that do the same work (issue 23: the layer
 * costs nothing over libpgas).  2 PEs; PE 0 targets PE 1's heap, and
 * PE 1's program data for the _data lines.
 *
 *   oshrun -np 2 valgrind --tool=callgrind build/bench/shmem_icount
 */
#include <shmem.h>

#define CALLS 1000
#define NOINLINE __attribute__((noinline))

static long *heap;		/* shmem_malloc'd: the symmetric heap */
static long data[8];		/* the program's data: symmetric too */
static uint64_t *seg;		/* the same heap word as libpgas addresses it at PE 1 */
static pgas_ad_t ad;

NOINLINE void ic_shmem_p8(long v) { shmem_long_p(heap, v, 1); }
NOINLINE long ic_shmem_g8(void) { return shmem_long_g(heap, 1); }
NOINLINE void ic_shmem_p8_data(long v) { shmem_long_p(data, v, 1); }
NOINLINE long ic_shmem_g8_data(void) { return shmem_long_g(data, 1); }
NOINLINE void ic_shmem_put8(const long *v) { shmem_long_put(heap + 1, v, 1, 1); }
NOINLINE void ic_shmem_get8(long *v) { shmem_long_get(v, heap + 1, 1, 1); }
NOINLINE void ic_shmem_put8_nbi(const long *v) { shmem_long_put_nbi(heap + 2, v, 1, 1); }
NOINLINE void ic_shmem_get8_nbi(long *v) { shmem_long_get_nbi(v, heap + 2, 1, 1); }
NOINLINE long ic_shmem_fadd(void) { return shmem_long_atomic_fetch_add(heap + 3, 1, 1); }
NOINLINE void ic_shmem_add(void) { shmem_long_atomic_add(heap + 3, 1, 1); }
NOINLINE long ic_shmem_cswap(long v) { return shmem_long_atomic_compare_swap(heap + 4, v, v + 1, 1); }
NOINLINE void ic_shmem_quiet(void) { shmem_quiet(); }

/* libpgas doing the same, on the same words. */
NOINLINE int ic_pgas_put_val8(uint64_t v) { return pgas_put_val(1, seg, v, 8); }
NOINLINE uint64_t ic_pgas_get_val8(void)
{
	uint64_t v = 0;

	pgas_get_val(&v, 1, seg, 8);
	return v;
}
NOINLINE int ic_pgas_put8(const uint64_t *v) { return pgas_put(1, seg + 1, v, 8); }
NOINLINE int ic_pgas_get8(uint64_t *v) { return pgas_get(v, 1, seg + 1, 8); }
NOINLINE uint64_t ic_pgas_fadd(void)
{
	uint64_t o = 0;

	pgas_ad_op_u64(ad, &o, 1, seg + 3, PGAS_AOP_FADD, 1, 0, 0);
	return o;
}

int main(void)
{
	long v = 0, acc = 0;

	shmem_init();
	heap = shmem_malloc(8 * sizeof(long));
	if (!heap || shmem_n_pes() != 2 ||
	    pgas_ad_create(&ad, PGAS_DT_U64, PGAS_AOP_FADD, 0))
		shmem_global_exit(1);
	/* PE 1's heap as libpgas addresses it: its own address of it. */
	data[7] = (long)(uintptr_t)heap;
	shmem_barrier_all();
	seg = (uint64_t *)(uintptr_t)shmem_long_g(&data[7], 1);
	if (shmem_my_pe() == 0) {
		for (int i = 0; i < CALLS; i++) {
			ic_shmem_p8(i);
			acc += ic_shmem_g8();
			ic_shmem_p8_data(i);
			acc += ic_shmem_g8_data();
			ic_shmem_put8(&acc);
			ic_shmem_get8(&v);
			ic_shmem_put8_nbi(&acc);
			ic_shmem_get8_nbi(&v);
			ic_shmem_quiet();
			acc += ic_shmem_fadd();
			ic_shmem_add();
			acc += ic_shmem_cswap(v);
			ic_pgas_put_val8((uint64_t)i);
			acc += (long)ic_pgas_get_val8();
			ic_pgas_put8((uint64_t *)&acc);
			ic_pgas_get8((uint64_t *)&v);
			acc += (long)ic_pgas_fadd();
		}
	}
	shmem_barrier_all();
	/* The heap word PE 0 wrote last through each path is the same word. */
	if (shmem_my_pe() == 1 && heap[0] != CALLS - 1)
		shmem_global_exit(1);
	shmem_finalize();
	return acc == 42;
}
