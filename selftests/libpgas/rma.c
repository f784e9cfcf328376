// SPDX-License-Identifier: MIT
/*
 * rma - put/get in every form between every pair of ranks: sizes around
 * the slot and page thresholds, unaligned offsets, segment edges,
 * register values, memset, explicit and implicit handles, access regions,
 * signalling puts.  Every byte is checked against a deterministic pattern.
 */
#include "tap.h"

#define REGION ((size_t)1 << 20) + 128	/* per source rank, in every segment */

static unsigned me, n;

static char *region(unsigned owner, unsigned src)
{
	return (char *)pgas_segment_addr(owner) + (size_t)src * (REGION);
}

static uint64_t seed_of(unsigned src, unsigned dst, size_t size, size_t off)
{
	return ((uint64_t)src << 48) ^ ((uint64_t)dst << 40) ^ (size << 8) ^ off;
}

static const size_t sizes[] = { 0, 1, 2, 7, 8, 9, 55, 56, 57, 63, 64, 65, 4095, 4096, 4097,
				65536, (size_t)1 << 20 };
static const size_t offsets[] = { 0, 1, 3, 7 };

/* One put flavour, chosen by v: blocking, nb + wait, nbi + sync, nb + try loop. */
static int put_variant(int v, unsigned dst, void *to, const void *from, size_t len)
{
	pgas_handle_t h;
	int rc;

	switch (v % 4) {
	case 0:
		return pgas_put(dst, to, from, len);
	case 1:
		rc = pgas_put_nb(&h, dst, to, from, len);
		return rc ? rc : pgas_wait_syncnb(h);
	case 2:
		rc = pgas_put_nbi(dst, to, from, len);
		return rc ? rc : pgas_wait_syncnbi_puts();
	default:
		rc = pgas_put_nb(&h, dst, to, from, len);
		if (rc)
			return rc;
		/* Not ready while the remote path's ack is on its way. */
		while ((rc = pgas_try_syncnb(h)) == PGAS_ERR_NOT_READY)
			;
		return rc;
	}
}

static int get_variant(int v, void *to, unsigned src, const void *from, size_t len)
{
	pgas_handle_t h;
	int rc;

	switch (v % 3) {
	case 0:
		return pgas_get(to, src, from, len);
	case 1:
		rc = pgas_get_nb(&h, to, src, from, len);
		return rc ? rc : pgas_wait_syncnb(h);
	default:
		rc = pgas_get_nbi(to, src, from, len);
		return rc ? rc : pgas_wait_syncnbi_gets();
	}
}

static void test_sizes(void)
{
	static unsigned char buf[(1 << 20) + 16], back[(1 << 20) + 16];
	int v = 0;

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (size_t oi = 0; oi < sizeof(offsets) / sizeof(offsets[0]); oi++, v++) {
			size_t len = sizes[si], off = offsets[oi];

			/* Every rank puts to every rank (itself included). */
			for (unsigned d = 0; d < n; d++) {
				t_fill(buf, len, seed_of(me, d, len, off));
				T_EQ(put_variant(v + (int)d, d, region(d, me) + off, buf, len), 0);
			}
			pgas_barrier(1, 0);
			/* Verify what each source wrote into my segment. */
			for (unsigned s = 0; s < n; s++) {
				size_t bad = t_verify(region(me, s) + off, len,
						      seed_of(s, me, len, off));

				T_CHECK(bad == len, "size %zu off %zu from rank %u: byte %zu differs",
					len, off, s, bad);
			}
			/* Read my region back from every target. */
			for (unsigned d = 0; d < n; d++) {
				memset(back, 0xEE, len + 16);
				T_EQ(get_variant(v + (int)d, back + 3, d, region(d, me) + off, len), 0);
				T_CHECK(t_verify(back + 3, len, seed_of(me, d, len, off)) == len,
					"get size %zu off %zu from rank %u", len, off, d);
				T_CHECK(back[2] == 0xEE && back[len + 3] == 0xEE,
					"get size %zu wrote outside its destination", len);
			}
			pgas_barrier(2, 0);
		}
	t_case("put/get: %zu sizes x %zu offsets, all pairs, 4 put and 3 get flavours",
	       sizeof(sizes) / sizeof(sizes[0]), sizeof(offsets) / sizeof(offsets[0]));
}

static void test_edges(void)
{
	unsigned d = (me + 1) % n;
	char *base = pgas_segment_addr(d);
	size_t size = pgas_segment_size(d);
	char c = 'x', got = 0;

	/* The very last byte of the segment is inside; one further is not. */
	T_EQ(pgas_put(d, base + size - 1, &c, 1), 0);
	T_EQ(pgas_get(&got, d, base + size - 1, 1), 0);
	T_EQ(got, 'x');
	T_EQ(pgas_put(d, base + size, &c, 0), 0);
	T_EQ(pgas_put(d, base + size, &c, 1), PGAS_ERR_BOUNDS);
	T_EQ(pgas_put(d, base + size - 1, &c, 2), PGAS_ERR_BOUNDS);
	T_EQ(pgas_get(&got, d, base - 1, 1), PGAS_ERR_BOUNDS);
	T_EQ(pgas_put(d, base, &c, size + 1), PGAS_ERR_BOUNDS);
	T_EQ(pgas_put(d, base + 1, &c, SIZE_MAX), PGAS_ERR_BOUNDS);
	T_EQ(pgas_put_nbi(d, base + size, &c, 1), PGAS_ERR_BOUNDS);
	T_EQ(pgas_get_nbi(&got, d, base + size, 1), PGAS_ERR_BOUNDS);
	t_case("segment edges: last byte in, one past out, wrap-around lengths out");
}

static void test_values(void)
{
	static const size_t widths[] = { 1, 2, 4, 8 };
	uint64_t v = 0;

	for (unsigned d = 0; d < n; d++)
		for (unsigned w = 0; w < 4; w++) {
			char *slot = region(d, me) + 64 + 8 * w;
			uint64_t want = (0x0102030405060708ull * (me + 1) + d) &
					(widths[w] == 8 ? ~0ull : (1ull << (8 * widths[w])) - 1);

			T_EQ(pgas_put_val(d, slot, want, widths[w]), 0);
			T_EQ(pgas_get_val(&v, d, slot, widths[w]), 0);
			T_CHECK(v == want, "width %zu to rank %u: %llx != %llx", widths[w], d,
				(unsigned long long)v, (unsigned long long)want);
		}
	pgas_barrier(3, 0);
	T_EQ(pgas_put_val(me, region(me, me) + 1, 1, 2), PGAS_ERR_INVAL);
	T_EQ(pgas_put_val(me, region(me, me), 1, 3), PGAS_ERR_INVAL);
	T_EQ(pgas_get_val(&v, me, region(me, me), 16), PGAS_ERR_INVAL);
	t_case("register-value put/get of 1, 2, 4, 8 bytes; bad widths and alignment");
}

static void test_memset(void)
{
	for (unsigned d = 0; d < n; d++)
		T_EQ(pgas_memset(d, region(d, me) + 5, 0xA0 + (int)me, 4099), 0);
	pgas_barrier(4, 0);
	for (unsigned s = 0; s < n; s++) {
		const unsigned char *p = (const unsigned char *)region(me, s) + 5;
		size_t i;

		for (i = 0; i < 4099 && p[i] == 0xA0 + s; i++)
			;
		T_CHECK(i == 4099, "memset from rank %u: byte %zu", s, i);
	}
	T_EQ(pgas_memset(me, region(me, me), 0, 0), 0);
	T_EQ(pgas_memset(n, region(me, me), 0, 1), PGAS_ERR_RANK);
	pgas_barrier(5, 0);
	t_case("memset into every rank, 4099 bytes at an odd offset");
}

static void test_handles(void)
{
	enum { K = 16 };
	pgas_handle_t hs[K], region_h = 1;
	unsigned char buf[K][100], back[K][100];
	int rc;

	for (unsigned d = 0; d < n; d++) {
		for (int i = 0; i < K; i++) {
			t_fill(buf[i], 100, seed_of(me, d, 100, (size_t)i));
			T_EQ(pgas_put_nb(&hs[i], d, region(d, me) + 1000 + 100 * i, buf[i], 100), 0);
		}
		/* A rank not mapped here (PGAS_MAP_PEERS=none): the handles
		 * complete with the acks, maybe not yet. */
		rc = pgas_try_syncnb_some(hs, K);
		T_CHECK(rc == 0 || (rc == PGAS_ERR_NOT_READY && !pgas_ptr(d, region(d, me))),
			"try_syncnb_some: %d", rc);
		T_EQ(pgas_wait_syncnb_all(hs, K), 0);
		for (int i = 0; i < K; i++)
			T_EQ(pgas_get_nb(&hs[i], back[i], d, region(d, me) + 1000 + 100 * i, 100), 0);
		T_EQ(pgas_wait_syncnb_some(hs, K), 0);
		rc = pgas_try_syncnb_all(hs, K);
		T_CHECK(rc == 0 || (rc == PGAS_ERR_NOT_READY && !pgas_ptr(d, region(d, me))),
			"try_syncnb_all: %d", rc);
		T_EQ(pgas_wait_syncnb_all(hs, K), 0);
		for (int i = 0; i < K; i++)
			T_CHECK(!memcmp(back[i], buf[i], 100), "handle %d to rank %u", i, d);

		T_EQ(pgas_begin_nbi_accessregion(), 0);
		for (int i = 0; i < K; i++)
			T_EQ(pgas_put_nbi(d, region(d, me) + 3000 + 100 * i, buf[K - 1 - i], 100), 0);
		T_EQ(pgas_end_nbi_accessregion(&region_h), 0);
		T_EQ(pgas_wait_syncnb(region_h), 0);
		for (int i = 0; i < K; i++)
			T_EQ(pgas_get_nbi(back[i], d, region(d, me) + 3000 + 100 * i, 100), 0);
		T_EQ(pgas_wait_syncnbi_all(), 0);
		T_EQ(pgas_try_syncnbi_all(), 0);
		T_EQ(pgas_try_syncnbi_puts(), 0);
		T_EQ(pgas_try_syncnbi_gets(), 0);
		for (int i = 0; i < K; i++)
			T_CHECK(!memcmp(back[i], buf[K - 1 - i], 100), "region op %d to rank %u", i, d);
	}
	T_EQ(pgas_wait_syncnb(12345), PGAS_ERR_INVAL);
	T_EQ(pgas_try_syncnb(7), PGAS_ERR_INVAL);
	hs[3] = 99;
	T_EQ(pgas_wait_syncnb_all(hs, K), PGAS_ERR_INVAL);
	T_EQ(pgas_wait_syncnb_all(NULL, 2), PGAS_ERR_INVAL);
	T_EQ(pgas_wait_syncnb_all(NULL, 0), 0);
	T_EQ(pgas_end_nbi_accessregion(&region_h), PGAS_ERR_STATE);
	T_EQ(pgas_begin_nbi_accessregion(), 0);
	T_EQ(pgas_begin_nbi_accessregion(), PGAS_ERR_STATE);
	T_EQ(pgas_end_nbi_accessregion(NULL), PGAS_ERR_INVAL);
	T_EQ(pgas_end_nbi_accessregion(&region_h), 0);
	pgas_barrier(6, 0);
	t_case("explicit handles (all/some, wait/try), implicit handles, access regions");
}

static void test_signal(void)
{
	/* More signals than the ring holds: senders must wait, without deadlock. */
	const unsigned per_peer = 1500;
	unsigned got = 0, from[64] = { 0 };
	uint32_t next_tag[64] = { 0 };
	bool tags_ok = true, data_ok = true;
	uint64_t word;

	for (unsigned i = 0; i < per_peer; i++) {
		for (unsigned d = 0; d < n; d++) {
			word = ((uint64_t)me << 32) | i;
			T_EQ(pgas_put_signal(d, region(d, me) + 4000, &word, 8, i), 0);
		}
		for (pgas_notification_t nt; pgas_notify_poll(&nt) == 1; got++) {
			tags_ok &= nt.kind == PGAS_NOTIFY_COMPLETER && nt.size == 8 &&
				   nt.src < n && nt.tag == next_tag[nt.src]++;
			from[nt.src]++;
		}
	}
	while (got < per_peer * n) {
		pgas_notification_t nt;
		int rc = pgas_notify_poll(&nt);

		T_CHECK(rc >= 0, "notify_poll failed: %d", rc);
		if (rc == 1) {
			tags_ok &= nt.kind == PGAS_NOTIFY_COMPLETER && nt.size == 8 &&
				   nt.src < n && nt.tag == next_tag[nt.src]++;
			from[nt.src]++;
			got++;
		}
		pgas_poll();
	}
	for (unsigned s = 0; s < n; s++) {
		T_EQ(from[s], per_peer);
		memcpy(&word, region(me, s) + 4000, 8);
		data_ok &= word == (((uint64_t)s << 32) | (per_peer - 1));
	}
	T_CHECK(tags_ok, "notifications out of order or malformed");
	T_CHECK(data_ok, "signalled data missing");
	pgas_barrier(7, 0);
	t_case("signalling put: %u notifications per pair, in order, ring wraps", per_peer);
}

/*
 * Signals past the ring's size into a rank that waits in a barrier and
 * takes its notifications only after it: the barrier's wait must make
 * room (a sender blocked on the full ring never reaches the barrier).
 */
static void test_signal_into_barrier(void)
{
	const unsigned per_sender = 3 * 1024 + 7;	/* PGAS_NOTIFY_ENTRIES is 1024 */
	unsigned got = 0, from[64] = { 0 };
	uint64_t word = me;
	bool ok = true;

	if (me != 0)
		for (unsigned i = 0; i < per_sender && ok; i++)
			ok = pgas_put_signal(0, region(0, me) + 4008, &word, 8, i) == 0;
	T_CHECK(ok, "put_signal failed: %s", pgas_last_error());
	T_EQ(pgas_barrier(8, 0), 0);
	if (me == 0) {
		pgas_notification_t nt;

		while (pgas_notify_poll(&nt) == 1) {
			ok &= nt.src < n && nt.tag == from[nt.src];
			from[nt.src]++;
			got++;
		}
		T_EQ(got, per_sender * (n - 1));
		T_CHECK(ok, "notifications out of order");
	}
	pgas_barrier(9, 0);
	t_case("signals past the ring into a rank waiting in a barrier: all %u kept, in order",
	       per_sender);
}

int main(int argc, char **argv)
{
	if (pgas_init(&argc, &argv))
		return 1;
	n = pgas_nranks();
	me = pgas_rank();
	if (n > 64 || t_attach(NULL, 0, (size_t)n * (REGION)))
		return 1;
	test_sizes();
	test_edges();
	test_values();
	test_memset();
	test_handles();
	test_signal();
	test_signal_into_barrier();
	t_done();
}
