/* SPDX-License-Identifier: MIT */
/*
 * setup - OpenSHMEM setup and query calls (docs/shmem.md).
 *
 *   setup [-l single|funneled|serialized|multiple]   the TAP cases
 *   setup -x CODE      the last PE calls shmem_global_exit(CODE) while the
 *                      others wait in a barrier: every PE ends with CODE
 *   setup -f           shmem_finalize returns, the program goes on, exit 0
 *   setup -m put|free|pe|overflow|init|...   misuse: the job ends with 1 and a message
 *                      (amo*: shmem.h's inline AMOs: misaligned in the heap,
 *                      a PE out of range, not symmetric, before shmem_init)
 */
#define _GNU_SOURCE
#include <unistd.h>
#include "stap.h"

static int level_of(const char *s)
{
	if (!strcmp(s, "single")) return SHMEM_THREAD_SINGLE;
	if (!strcmp(s, "funneled")) return SHMEM_THREAD_FUNNELED;
	if (!strcmp(s, "serialized")) return SHMEM_THREAD_SERIALIZED;
	if (!strcmp(s, "multiple")) return SHMEM_THREAD_MULTIPLE;
	fprintf(stderr, "unknown level %s\n", s);
	exit(2);
}

int main(int argc, char **argv)
{
	int level = -1, xcode = -1, fin = 0, provided = -1, q = -1;
	const char *misuse = NULL;
	size_t need = 0;	/* -a: shmem_malloc(need) must succeed (SHMEM_SYMMETRIC_SIZE) */
	int opt;

	while ((opt = getopt(argc, argv, "l:x:fm:a:")) != -1) {
		switch (opt) {
		case 'a': need = strtoull(optarg, NULL, 10); break;
		case 'l': level = level_of(optarg); break;
		case 'x': xcode = atoi(optarg); break;
		case 'f': fin = 1; break;
		case 'm': misuse = optarg; break;
		default: return 2;
		}
	}
	if (misuse && !strcmp(misuse, "init")) {
		(void)shmem_my_pe();	/* before shmem_init: fatal */
		return 0;
	}
	if (misuse && !strcmp(misuse, "pinit")) {	/* shmem.h's inline path too */
		static long x;

		shmem_long_p(&x, 1, 0);
		return 0;
	}
	if (misuse && !strcmp(misuse, "amoinit")) {
		static int x;

		shmem_int_atomic_inc(&x, 0);
		return 0;
	}
	if (level >= 0) {
		if (shmem_init_thread(level, &provided) != 0)
			return 3;
	} else {
		shmem_init();
	}
	shmem_init();	/* a second call has no effect */
	st_init();
	int me = shmem_my_pe(), n = shmem_n_pes();

	if (misuse) {
		int local = 0;
		long *obj = shmem_malloc(sizeof(long));

		if (!strcmp(misuse, "pfin")) {	/* the inline path after finalize */
			shmem_finalize();
			shmem_long_p(obj, 1, 0);
			return 0;
		}

		shmem_barrier_all();
		if (me == n - 1) {
			if (!strcmp(misuse, "put"))
				shmem_int_p(&local, 1, 0);	/* not symmetric */
			else if (!strcmp(misuse, "free"))
				shmem_free(obj + 1);		/* never allocated */
			else if (!strcmp(misuse, "pe"))
				shmem_long_p(obj, 1, n);	/* no such PE */
			else if (!strcmp(misuse, "overflow"))	/* bytes wrap to 8 */
				shmem_long_put(obj, obj, SIZE_MAX / 8 + 2, 0);
			else if (!strcmp(misuse, "amoalign"))	/* in the heap, misaligned */
				(void)shmem_long_atomic_fetch_add((long *)((char *)obj + 4), 1, 0);
			else if (!strcmp(misuse, "amope"))
				shmem_int_atomic_add((int *)obj, 1, n);
			else if (!strcmp(misuse, "amolocal"))
				(void)shmem_int_atomic_compare_swap(&local, 0, 1, 0);
		}
		shmem_barrier_all();
		return 0;
	}
	if (need) {
		void *p = shmem_malloc(need);

		T_CHECK(p != NULL, "shmem_malloc(%zu) in a heap of SHMEM_SYMMETRIC_SIZE=%s", need,
			getenv("SHMEM_SYMMETRIC_SIZE"));
		shmem_free(p);
		st_case("the heap holds SHMEM_SYMMETRIC_SIZE bytes (%zu)", need);
		return st_done();
	}
	if (xcode >= 0) {
		shmem_barrier_all();
		if (me == n - 1) {
			usleep(100000);
			shmem_global_exit(xcode);
		}
		shmem_barrier_all();	/* never completes */
		return 99;
	}
	if (fin) {
		shmem_barrier_all();
		shmem_finalize();
		shmem_finalize();	/* a second one has no effect */
		printf("PE %d after shmem_finalize\n", me);
		return 0;
	}

	/* query_thread gives what init_thread provided. */
	shmem_query_thread(&q);
	if (level >= 0) {
		T_EQ(provided, level);	/* libpgas provides every level */
		T_EQ(q, provided);
	} else {
		T_EQ(q, SHMEM_THREAD_SINGLE);
	}
	st_case("shmem_init_thread / shmem_query_thread (requested %d)", level);

	/* Every PE number once: the sum and a bit per PE at PE 0. */
	{
		long *sum = shmem_calloc(2, sizeof(long));

		T_CHECK(me >= 0 && me < n, "me %d of %d", me, n);
		T_EQ(_my_pe(), me);
		T_EQ(_num_pes(), n);
		shmem_long_atomic_add(&sum[0], me, 0);
		if (me < 63)
			shmem_ulong_atomic_or((unsigned long *)&sum[1], 1ul << me, 0);
		shmem_barrier_all();
		if (me == 0) {
			T_EQ(sum[0], (long)n * (n - 1) / 2);
			T_EQ(sum[1], n >= 63 ? sum[1] : (long)((1ul << n) - 1));
		}
		shmem_free(sum);
	}
	st_case("shmem_my_pe / shmem_n_pes: every PE once");

	T_EQ(shmem_pe_accessible(-1), 0);
	T_EQ(shmem_pe_accessible(n), 0);
	for (int p = 0; p < n; p++)
		T_EQ(shmem_pe_accessible(p), 1);
	st_case("shmem_pe_accessible");

	{
		int local = 0;
		char *obj = shmem_malloc(100);

		for (int p = 0; p < n; p++) {
			T_EQ(shmem_addr_accessible(obj, p), 1);
			T_EQ(shmem_addr_accessible(obj + 99, p), 1);
			T_EQ(shmem_addr_accessible(&local, p), 0);
			T_EQ(shmem_addr_accessible(NULL, p), 0);
		}
		T_EQ(shmem_addr_accessible(obj, n), 0);
		T_EQ(shmem_addr_accessible(obj, -1), 0);
		shmem_free(obj);
	}
	st_case("shmem_addr_accessible: heap objects yes, stack and NULL no");

	{
		int major = -1, minor = -1;
		char name[SHMEM_MAX_NAME_LEN];

		shmem_info_get_version(&major, &minor);
		T_EQ(major, 1);
		T_EQ(minor, 5);
		T_EQ(SHMEM_MAJOR_VERSION, 1);
		T_EQ(SHMEM_MINOR_VERSION, 5);
		T_EQ(_SHMEM_MAJOR_VERSION, 1);
		T_EQ(SHMEM_MAX_NAME_LEN, 256);
		memset(name, 'x', sizeof(name));
		shmem_info_get_name(name);
		T_CHECK(memchr(name, 0, sizeof(name)) != NULL, "name not terminated");
		T_CHECK(!strcmp(name, SHMEM_VENDOR_STRING), "name '%.40s'", name);
		T_CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED &&
			SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
			SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE, "thread levels ordered");
	}
	st_case("shmem_info_get_version / get_name and the version constants");

	/* shmem_ptr: a store through it lands in the peer's object. */
	{
		long *obj = shmem_calloc((size_t)n, sizeof(long));
		int local = 0;
		int right = (me + 1) % n;
		long *p = shmem_ptr(obj, right);
		/* Reachable by load/store iff in SHMEM_TEAM_SHARED (none but
		 * this PE with PGAS_MAP_PEERS=none): else NULL, and a put. */
		int shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right, SHMEM_TEAM_SHARED) >= 0;

		T_CHECK((p != NULL) == shared, "shmem_ptr(obj, %d) %p, PE %d %sin SHMEM_TEAM_SHARED",
			right, (void *)p, right, shared ? "" : "not ");
		if (map_none())
			T_CHECK(shared == (right == me), "PGAS_MAP_PEERS=none: PE %d shared", right);
		T_CHECK(shmem_ptr(obj, me) == obj, "own pointer %p vs %p", shmem_ptr(obj, me),
			(void *)obj);
		T_CHECK(shmem_ptr(&local, right) == NULL, "stack address reachable");
		T_CHECK(shmem_ptr(obj, n) == NULL, "PE n reachable");
		shmem_barrier_all();
		if (p)
			p[me] = 1000 + me;
		else
			shmem_long_p(&obj[me], 1000 + me, right);
		shmem_barrier_all();
		int left = (me + n - 1) % n;
		T_EQ(obj[left], 1000 + left);
		for (int i = 0; i < n; i++)
			if (i != left && n > 1)
				T_EQ(obj[i], 0);
		shmem_barrier_all();
		shmem_free(obj);
	}
	st_case("shmem_ptr: stores reach the peer's object; NULL for the stack and bad PEs");

	shmem_pcontrol(1);
	shmem_pcontrol(0, "ignored");
	st_case("shmem_pcontrol is a no-op");
	return st_done();
}
