// SPDX-License-Identifier: MIT
/*
 * peer_table - what a rank's table of peer entries costs (core/peers.c):
 * one entry per eid of the job, nranks * PGAS_EP_MAX of them, but only the
 * primaries' entries and those this rank resolves are its own memory; the
 * unresolved ones share one template.  Before, every entry was written at
 * attach: at 64 ranks and PGAS_EP_MAX 64, 512 KiB per rank (2 MiB at 1024
 * ranks and the default 16, in every rank).
 *
 * Checks the table's own (anonymous) memory (/proc/self/smaps) at attach, then after
 * every rank created an endpoint and sent a request to every other rank's
 * (each resolves an entry of the sender's table and a reply entry of the
 * receiver's), and that the requests and replies all arrived.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <fcntl.h>
#include <unistd.h>
#include "tap.h"

enum { H_PING = 1, H_PONG };
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

static unsigned me, n;
static volatile unsigned pings, pongs;

static void h_ping(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned na)
{
	(void)buf; (void)nb; (void)args; (void)na;
	pings++;
	pgas_am_reply_short(tok, H_PONG, NULL, 0);
}

static void h_pong(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned na)
{
	(void)tok; (void)buf; (void)nb; (void)args; (void)na;
	pongs++;
}

/*
 * KiB of this process's own memory in [lo, hi): the Anonymous pages of each
 * mapping that overlaps it (/proc/self/smaps), at most the overlap (a
 * mapping may reach past the table, merged with a neighbour).  A template
 * page only read is the memfd's page-cache page (not anonymous, though
 * smaps calls it Private_Dirty where one mapping maps it: a memfd's pages
 * are always dirty); a page of entries written, or copied on write, is.
 */
static size_t dirty_kib(uintptr_t lo, uintptr_t hi)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	size_t sum = 0, cap = 0;
	bool in = false;

	if (!f)
		return (size_t)-1;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t a, b;
		size_t kb;

		/* A mapping's first line starts with its range; its fields
		 * ("Private_Dirty:   8 kB") with a capital letter. */
		if (isxdigit((unsigned char)line[0]) && !isupper((unsigned char)line[0]) &&
		    sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2) {
			in = a < hi && b > lo;
			cap = in ? ((b < hi ? b : hi) - (a > lo ? a : lo)) / 1024 : 0;
		} else if (in && sscanf(line, "Anonymous: %zu kB", &kb) == 1) {
			sum += kb < cap ? kb : cap;
		}
	}
	fclose(f);
	return sum;
}

static size_t table_dirty(const struct pgas__state *ep)
{
	uintptr_t lo = (uintptr_t)ep->peers;

	return dirty_kib(lo, lo + (uintptr_t)ep->ntargets * sizeof(struct pgas__peer));
}

/* The template's descriptor (/proc/self/fd), or -1. */
static int template_fd(void)
{
	for (int fd = 0; fd < 1024; fd++) {
		char path[64], target[256];
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		k = readlink(path, target, sizeof(target) - 1);
		if (k > 0) {
			target[k] = '\0';
			if (strstr(target, "pgas-peers"))
				return fd;
		}
	}
	return -1;
}

/*
 * The template cannot change under the tables (sealed), and an endpoint
 * made after its descriptor was closed and its number reused by another
 * file does not map that file: it still meets every other rank's.
 */
static void test_template(void)
{
	int fd = template_fd(), other;
	pgas_ep_t ep;
	unsigned eid;

	T_CHECK(fd > 2, "the template's descriptor: %d", fd);
	if (fd > 2) {
		T_CHECK(pwrite(fd, "x", 1, 0) < 0, "a write into the template was let through");
		T_CHECK(ftruncate(fd, 0) < 0, "the template could be truncated");
		/* Its number reused for another file. */
		other = open("/dev/zero", O_RDONLY);
		T_CHECK(other >= 0 && dup2(other, fd) == fd, "dup2");
		close(other);
	}
	pings = pongs = 0;
	pgas_barrier(4, 0);
	T_EQ(pgas_ep_create(&ep, 0), 0);
	pgas_barrier(5, 0);
	for (unsigned r = 0; r < n; r++)
		if (r != me) {
			T_EQ(pgas_ep_lookup(r, 2, &eid), 0);
			T_EQ(pgas_ep_am_request_short(ep, eid, H_PING, NULL, 0), 0);
		}
	while (pongs < n - 1 || pings < n - 1)
		pgas_ep_poll(ep);
	pgas_barrier(6, 0);
	T_EQ(pgas_ep_destroy(ep), 0);
	if (fd > 2)
		close(fd);
	t_case("peer table: the template is sealed, and a descriptor reused by another file is not mapped");
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { { H_PING, h_ping }, { H_PONG, h_pong } };
	size_t own, page = (size_t)sysconf(_SC_PAGESIZE) / 1024, limit;
	pgas_ep_t ep;
	unsigned *eids;

	if (pgas_init(&argc, &argv))
		return 1;
	n = pgas_nranks();
	me = pgas_rank();
	if (t_attach(table, 2, 4096))
		return 1;
	/* The primaries' entries, a page of unresolved ones after them, and
	 * a page of slack (a page-aligned table). */
	own = ((size_t)n * sizeof(struct pgas__peer) + 1023) / 1024;
	limit = own + 2 * page;
	T_CHECK(table_dirty(&pgas__g) <= limit,
		"%u ranks, %u eids: %zu KiB of the table written at attach (at most %zu: %zu KiB of primaries)",
		n, pgas__g.ntargets, table_dirty(&pgas__g), limit, own);
	t_case("peer table at attach: the primaries' entries only (%u eids, %zu KiB of them)",
	       pgas__g.ntargets, (size_t)pgas__g.ntargets * sizeof(struct pgas__peer) / 1024);

	T_EQ(pgas_ep_create(&ep, 0), 0);
	pgas_barrier(1, 0);
	eids = calloc(n, sizeof(*eids));
	for (unsigned r = 0; r < n; r++)
		T_EQ(pgas_ep_lookup(r, 1, &eids[r]), 0);
	/* Each rank's new endpoint asks every other rank's; the primaries
	 * poll theirs (pgas_ep_poll) until all answered. */
	for (unsigned r = 0; r < n; r++)
		if (r != me)
			T_EQ(pgas_ep_am_request_short(ep, eids[r], H_PING, NULL, 0), 0);
	while (pongs < n - 1 || pings < n - 1)
		pgas_ep_poll(ep);
	pgas_barrier(2, 0);
	/* Each resolved eid costs at most a page of each table it is in. */
	limit = own + 2 * page + (size_t)(n - 1) * page;
	T_CHECK(table_dirty(ep) <= limit && table_dirty(&pgas__g) <= own + 2 * page,
		"after %u requests: the endpoint's table %zu KiB, the primary's %zu KiB (at most %zu, %zu)",
		n - 1, table_dirty(ep), table_dirty(&pgas__g), limit, own + 2 * page);
	T_EQ(pings, n - 1);
	T_EQ(pongs, n - 1);
	t_case("peer table: an endpoint meets every other rank's (%u requests answered), its own pages only",
	       n - 1);
	pgas_barrier(3, 0);
	T_EQ(pgas_ep_destroy(ep), 0);
	free(eids);
	/* A template only where a table has a whole page of unresolved
	 * entries past the primaries'. */
	if (n > 1 && ALIGN_UP((size_t)n * sizeof(struct pgas__peer), page * 1024) <
			     ALIGN_UP((size_t)pgas__g.ntargets * sizeof(struct pgas__peer),
					    page * 1024))
		test_template();
	t_done();
}
