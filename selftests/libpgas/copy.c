// SPDX-License-Identifier: MIT
/*
 * copy - the copy under every put, get and AM payload (pgas__copy, and its
 * long form in core/copy.c, which copies backward with aligned vector
 * stores when source and destination are not mutually aligned): every
 * pair of offsets in a cache line, the sizes around each of its edges
 * (the out-of-line threshold, the 32-byte tail, the 128-byte loop, the
 * memcpy limit), overlapping buffers moved as memmove moves them, and the
 * same through pgas_put/pgas_get between ranks.  Guard bytes around every
 * destination catch a byte written outside it.  A seeded random sweep
 * prints its seed (PGAS_TEST_SEED replays it).
 */
#include <stdint.h>
#include <time.h>
#include "tap.h"

#define GUARD 64
#define BIG ((size_t)4 << 20)	/* core/copy.c COPY_BACKWARD_MAX */

static unsigned me, n;
static unsigned char *src, *dst, *ref;

/* Copies len bytes from src + so to dst + dof; checks them and the guards. */
static int copy_ok(size_t so, size_t dof, size_t len)
{
	memset(dst, 0xA5, dof + len + 2 * GUARD);
	pgas__copy(dst + GUARD + dof, src + so, len);
	if (memcmp(dst + GUARD + dof, src + so, len))
		return 0;
	for (size_t i = 0; i < GUARD + dof; i++)
		if (dst[i] != 0xA5)
			return 0;
	for (size_t i = 0; i < GUARD; i++)
		if (dst[GUARD + dof + len + i] != 0xA5)
			return 0;
	return 1;
}

static void test_offsets(void)
{
	static const size_t lens[] = { PGAS__COPY_LONG - 1, PGAS__COPY_LONG,
				       PGAS__COPY_LONG + 1, PGAS__COPY_LONG + 31,
				       PGAS__COPY_LONG + 32 + 128 + 7, 4096 + 77 };
	unsigned bad = 0;

	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (size_t so = 0; so < 64; so++)
			for (size_t dof = 0; dof < 64; dof++)
				if (!copy_ok(so, dof, lens[l]) && bad++ < 5)
					T_CHECK(0, "len %zu src+%zu dst+%zu", lens[l], so, dof);
	t_case("copy: %zu sizes around the long copy's edges x every source and destination offset in a line",
	       sizeof(lens) / sizeof(lens[0]));
}

static void test_limits(void)
{
	static const size_t lens[] = { BIG - 1, BIG, BIG + 1, BIG + 4096 + 3 };
	static const size_t offs[][2] = { { 0, 0 }, { 0, 8 }, { 8, 0 }, { 3, 60 }, { 16, 48 } };

	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
			T_CHECK(copy_ok(offs[o][0], offs[o][1], lens[l]), "len %zu src+%zu dst+%zu",
				lens[l], offs[o][0], offs[o][1]);
	t_case("copy: around the size where memcpy takes over again (%zu bytes)", BIG);
}

/* Overlapping buffers end as memmove leaves them (memcpy's would not). */
static void test_overlap(void)
{
	enum { LEN = 3 * PGAS__COPY_LONG + 5 };
	/* Near 0 and near the length: the overlap test's edges (at +-LEN
	 * the buffers only touch, and memcpy's order would do). */
	static const long shifts[] = { 1, 8, 31, 32, 64, 100, 4096, LEN - 1, LEN, LEN + 1,
				       -1, -8, -33, -64, -4095, -(LEN - 1), -LEN, -(LEN + 1) };
	const size_t len = LEN, base = 8192;

	for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		memcpy(dst, src, 3 * base + len);
		memcpy(ref, src, 3 * base + len);
		memmove(ref + base + shifts[i], ref + base, len);
		pgas__copy(dst + base + shifts[i], dst + base, len);
		T_CHECK(!memcmp(dst, ref, 3 * base + len), "shift %ld", shifts[i]);
	}
	t_case("copy: overlapping buffers, %zu shifts either way, end as memmove leaves them",
	       sizeof(shifts) / sizeof(shifts[0]));
}

static uint64_t seed_from_env(void)
{
	const char *env = getenv("PGAS_TEST_SEED");

	return env ? strtoull(env, NULL, 0) : 0x5eed0000u + (uint64_t)time(NULL) % 100000;
}

static void test_random(uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 3000; i++) {
		size_t len, so, dof;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		len = PGAS__COPY_LONG - 64 + (x >> 33) % (1u << 17);
		so = (x >> 20) % 4096;
		dof = (x >> 8) % 4096;
		T_CHECK(copy_ok(so, dof, len), "seed %llu draw %d: len %zu src+%zu dst+%zu",
			(unsigned long long)seed, i, len, so, dof);
	}
	t_case("copy: 3000 random sizes and page offsets (seed %llu)", (unsigned long long)seed);
}

/* The same through the API: a put and a get at every offset pair of interest. */
static void test_rma(void)
{
	static const size_t lens[] = { 4096, 65536 + 5, 300000 };
	static const size_t offs[] = { 0, 1, 8, 16, 31, 32, 48, 63 };
	unsigned to = (me + 1) % n;
	char *peer = (char *)pgas_segment_addr(to) + (size_t)me * (BIG / 8);

	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (size_t a = 0; a < sizeof(offs) / sizeof(offs[0]); a++)
			for (size_t b = 0; b < sizeof(offs) / sizeof(offs[0]); b++) {
				size_t len = lens[l];

				T_EQ(pgas_put(to, peer + offs[b], src + offs[a], len), 0);
				memset(dst, 0xA5, len + 2 * GUARD);
				T_EQ(pgas_get(dst + GUARD + offs[a], to, peer + offs[b], len), 0);
				T_CHECK(!memcmp(dst + GUARD + offs[a], src + offs[a], len) &&
						dst[GUARD + offs[a] - 1] == 0xA5 &&
						dst[GUARD + offs[a] + len] == 0xA5,
					"len %zu local+%zu remote+%zu", len, offs[a], offs[b]);
			}
	t_case("copy: put and get between ranks, 3 sizes x 8 x 8 offsets");
}

int main(int argc, char **argv)
{
	uint64_t seed = seed_from_env();

	if (pgas_init(&argc, &argv))
		return 1;
	n = pgas_nranks();
	me = pgas_rank();
	if (n > 8 || t_attach(NULL, 0, BIG))
		return 1;
	if (me == 0)
		printf("# copy: seed %llu (PGAS_TEST_SEED to replay)\n", (unsigned long long)seed);
	src = malloc(2 * BIG + 8192);
	dst = malloc(2 * BIG + 8192);
	ref = malloc(2 * BIG + 8192);
	if (!src || !dst || !ref)
		return 1;
	t_fill(src, 2 * BIG + 8192, 42 + me);
	test_offsets();
	test_limits();
	test_overlap();
	test_random(seed);
	test_rma();
	free(src);
	free(dst);
	free(ref);
	t_done();
}
