// SPDX-License-Identifier: MIT
/*
 * boot_allgather - the boot layer alone (bootstrap.h), under pgasrun or a
 * PMIx launcher, on one host or several (scripts/check-multihost.sh):
 *
 *   boot_allgather [ROUNDS]
 *
 * 1. ROUNDS all-gathers of a 64-byte card (rank, round, hostname): every
 *    rank's card in its place, every round;
 * 2. descriptors: each rank sends a memfd holding "rank R" (the odd ranks
 *    in round 3: none); a rank must get one from exactly the ranks of its
 *    own host (same hostname) that sent one, each with the right content,
 *    and -1 from every other (another host's rank has no descriptor to
 *    give: the PMIx boot passes them through a per-host socket only);
 * 3. pgas_boot_host_of/same_host/nhosts agree with the hostnames;
 * 4. the PMIx boot's waits call the function of pgas_boot_set_poll;
 * 5. the time per all-gather (rank 0, a "#" line);
 * 6. pgas_boot_host_share: each host's leader's bytes and descriptor reach
 *    every rank of its host (how a PMIx job gets pgas.ko's job);
 * 7. under pgasrun, ranks of an older libpgas beside this one's: the odd
 *    ranks speak the protocol by hand without PGAS_BOOT_TAKES_BATCH and
 *    must get one message per packet, each descriptor with its message,
 *    while the even ones get packets of PGAS_BOOT_BATCH;
 * 8. packets (each rank, on a socketpair): messages and descriptors in
 *    their places; a packet whose HAS_FD flags and descriptors disagree is
 *    refused (-EPROTO) with every descriptor it carried closed.
 * Rank 0 prints the TAP lines for the job (each check is all-gathered).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "bootstrap.h"

struct card {
	uint32_t rank, round;
	char host[56];
};

static unsigned rank, nranks;
static unsigned long polls;	/* pgas_boot_set_poll's function ran */

static void count_poll(void *arg)
{
	*(unsigned long *)arg += 1;
}
static char msg[320];

static void die(const char *what)
{
	fprintf(stderr, "boot_allgather: rank %u: %s: %s\n", rank, what, msg);
	exit(1);
}

/* Every rank's verdict; rank 0 prints one TAP line. */
static int report(int num, int good, const char *what)
{
	uint32_t mine = (uint32_t)good, *all = calloc(nranks, sizeof(*all));
	int bad = -1;

	if (!all || pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, sizeof(msg)))
		die("verdict exchange");
	for (unsigned r = 0; r < nranks && bad < 0; r++)
		if (!all[r])
			bad = (int)r;
	if (rank == 0) {
		if (bad < 0)
			printf("ok %d - %s (%u ranks)\n", num, what, nranks);
		else
			printf("not ok %d - %s: rank %d disagrees\n", num, what, bad);
		fflush(stdout);
	}
	free(all);
	return bad < 0;
}

static int fd_round(const struct card *cards, bool odd_none)
{
	char text[32];
	int fd = -1, *fds = calloc(nranks, sizeof(*fds)), good = 1;
	struct card mine, *all = calloc(nranks, sizeof(*all));
	bool sends = !(odd_none && (rank & 1));

	if (!fds || !all)
		die("calloc");
	snprintf(text, sizeof(text), "rank %u", rank);
	if (sends) {
		fd = memfd_create("boot-test", MFD_CLOEXEC);
		if (fd < 0 || write(fd, text, strlen(text) + 1) != (ssize_t)strlen(text) + 1)
			die("memfd");
	}
	mine = cards[rank];
	if (pgas_boot_allgather(&mine, sizeof(mine), fd, all, fds, msg, sizeof(msg)))
		die("descriptor all-gather");
	for (unsigned r = 0; r < nranks; r++) {
		bool want = !strcmp(cards[r].host, cards[rank].host) && !(odd_none && (r & 1));
		char got[32] = "";

		if (want != (fds[r] >= 0)) {
			fprintf(stderr, "rank %u (%s): from rank %u (%s) %s a descriptor\n", rank,
				cards[rank].host, r, cards[r].host, want ? "expected" : "did not expect");
			good = 0;
		}
		if (fds[r] >= 0) {
			snprintf(text, sizeof(text), "rank %u", r);
			if (pread(fds[r], got, sizeof(got), 0) <= 0 || strcmp(got, text)) {
				fprintf(stderr, "rank %u: rank %u's descriptor holds \"%.31s\"\n", rank,
					r, got);
				good = 0;
			}
			close(fds[r]);
		}
	}
	if (fd >= 0)
		close(fd);
	free(fds);
	free(all);
	return good;
}

/*
 * pgas_boot_host_share: each host's leader (its lowest rank by hostname)
 * shares "leader L" and a memfd holding it; every rank of its host must
 * get both, and only the leader must say it leads.
 */
static int host_share(const struct card *cards)
{
	char text[32] = "", got[32] = "", in[32] = "";
	unsigned lead = 0;
	int fd = -1, gotfd = -1, good = 1;

	while (strcmp(cards[lead].host, cards[rank].host))
		lead++;
	if (pgas_boot_host_leader() != (lead == rank)) {
		fprintf(stderr, "rank %u: pgas_boot_host_leader() says %d, rank %u leads\n", rank,
			pgas_boot_host_leader(), lead);
		good = 0;
	}
	snprintf(text, sizeof(text), "leader %u", rank);
	if (lead == rank) {
		fd = memfd_create("boot-share", MFD_CLOEXEC);
		if (fd < 0 || write(fd, text, sizeof(text)) != (ssize_t)sizeof(text))
			die("memfd");
	}
	if (pgas_boot_host_share(text, sizeof(text), fd, got, &gotfd, msg, sizeof(msg)))
		die("pgas_boot_host_share");
	snprintf(text, sizeof(text), "leader %u", lead);
	if (strcmp(got, text) || gotfd < 0 || pread(gotfd, in, sizeof(in), 0) <= 0 ||
	    strcmp(in, text)) {
		fprintf(stderr, "rank %u: shared \"%.31s\", descriptor %d holding \"%.31s\", "
			"expected \"%s\" in both\n", rank, got, gotfd, in, text);
		good = 0;
	}
	if (fd >= 0)
		close(fd);
	if (gotfd >= 0)
		close(gotfd);
	return good;
}

/* A memfd holding "rank R", its size the test's mark. */
static int rank_memfd(unsigned r)
{
	char text[32];
	int fd = memfd_create("boot-test", MFD_CLOEXEC);

	snprintf(text, sizeof(text), "rank %u", r);
	if (fd < 0 || write(fd, text, strlen(text) + 1) != (ssize_t)strlen(text) + 1)
		die("memfd");
	return fd;
}

static bool holds_rank(int fd, unsigned r)
{
	char text[32], got[32] = "";

	snprintf(text, sizeof(text), "rank %u", r);
	return fd >= 0 && pread(fd, got, sizeof(got) - 1, 0) > 0 && !strcmp(got, text);
}

/* 7: an older rank's all-gather, by hand: one message per packet. */
static int legacy_round(const char *bootfd)
{
	int sock = atoi(bootfd), fd = rank_memfd(rank), good = 1;
	struct pgas_boot_msg m = { .magic = PGAS_BOOT_MAGIC, .len = 4,
				   .has_fd = PGAS_BOOT_HAS_FD };
	bool *seen = calloc(nranks, sizeof(*seen));

	if (!seen)
		die("calloc");
	m.src = rank;
	memcpy(m.blob, &rank, 4);
	if (pgas_boot_send(sock, &m, fd) < 0)
		die("legacy send");
	close(fd);
	for (unsigned got = 0; got < nranks; got++) {
		struct pgas_boot_msg in[2];
		int fds[2], n = pgas_boot_recv_batch(sock, in, 2, fds);
		uint32_t who;

		if (n != 1) {
			fprintf(stderr, "rank %u (older protocol): a packet of %d messages\n", rank, n);
			good = 0;
			for (int i = 0; i < n; i++)
				if (fds[i] >= 0)
					close(fds[i]);
			break;
		}
		memcpy(&who, in[0].blob, 4);
		if (in[0].src >= nranks || who != in[0].src || seen[in[0].src] ||
		    !holds_rank(fds[0], in[0].src)) {
			fprintf(stderr, "rank %u (older protocol): message of rank %u (says %u) "
				"with descriptor %d\n", rank, in[0].src, who, fds[0]);
			good = 0;
		} else {
			seen[in[0].src] = true;
		}
		if (fds[0] >= 0)
			close(fds[0]);
	}
	free(seen);
	return good;
}

static int mixed_round(void)
{
	const char *bootfd = getenv("PGAS_BOOT_FD");
	uint32_t *all;
	int *fds, good = 1, fd;

	if (!bootfd || nranks == 1)	/* PMIx, or no relay */
		return 1;
	if (rank & 1)
		return legacy_round(bootfd);
	all = calloc(nranks, sizeof(*all));
	fds = calloc(nranks, sizeof(*fds));
	if (!all || !fds)
		die("calloc");
	fd = rank_memfd(rank);
	if (pgas_boot_allgather(&rank, 4, fd, all, fds, msg, sizeof(msg)))
		die("mixed all-gather");
	close(fd);
	for (unsigned r = 0; r < nranks; r++) {
		if (all[r] != r || !holds_rank(fds[r], r)) {
			fprintf(stderr, "rank %u: beside older ranks, slot %u holds %u, descriptor %d\n",
				rank, r, all[r], fds[r]);
			good = 0;
		}
		if (fds[r] >= 0)
			close(fds[r]);
	}
	free(all);
	free(fds);
	return good;
}

static unsigned open_fds(void)
{
	unsigned n = 0;

	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* 8: packets on a socketpair. */
static int packets(void)
{
	struct pgas_boot_msg out[3], in[PGAS_BOOT_BATCH];
	const struct pgas_boot_msg *p[3] = { &out[0], &out[1], &out[2] };
	int sv[2], fds[3], got[PGAS_BOOT_BATCH], n, good = 1;
	unsigned before;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	memset(out, 0, sizeof(out));
	for (unsigned i = 0; i < 3; i++) {
		out[i].magic = PGAS_BOOT_MAGIC;
		out[i].src = i;
		out[i].has_fd = i != 1 ? PGAS_BOOT_HAS_FD : 0;
		fds[i] = i != 1 ? rank_memfd(i) : -1;
	}
	n = pgas_boot_send_batch(sv[0], p, fds, 3) ? -1 :
	    pgas_boot_recv_batch(sv[1], in, PGAS_BOOT_BATCH, got);
	if (n != 3 || !holds_rank(got[0], 0) || got[1] != -1 || !holds_rank(got[2], 2)) {
		fprintf(stderr, "rank %u: a packet of 3 came as %d, descriptors %d %d %d\n", rank,
			n, got[0], got[1], got[2]);
		good = 0;
	}
	for (int i = 0; i < (n > 0 ? n : 0); i++)
		if (got[i] >= 0)
			close(got[i]);
	/* The middle one claims a descriptor that does not come. */
	out[1].has_fd = PGAS_BOOT_HAS_FD;
	before = open_fds();
	n = pgas_boot_send_batch(sv[0], p, fds, 3) ? -1 :
	    pgas_boot_recv_batch(sv[1], in, PGAS_BOOT_BATCH, got);
	if (n != -EPROTO || open_fds() != before) {
		fprintf(stderr, "rank %u: a packet with 3 HAS_FD and 2 descriptors: %d, %u "
			"descriptors open, %u before\n", rank, n, open_fds(), before);
		good = 0;
	}
	close(fds[0]);
	close(fds[2]);
	close(sv[0]);
	close(sv[1]);
	return good;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 50, nhosts = 0;
	struct card mine, *all;
	struct timespec a, b;
	int good = 1;

	if (pgas_boot_join(&rank, &nranks, msg, sizeof(msg)))
		die("join");
	all = calloc(nranks, sizeof(*all));
	if (!all)
		die("calloc");
	if (rank == 0)
		printf("1..8\n");
	pgas_boot_set_poll(count_poll, &polls);
	memset(&mine, 0, sizeof(mine));
	mine.rank = rank;
	gethostname(mine.host, sizeof(mine.host) - 1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned i = 0; i < rounds; i++) {
		mine.round = i;
		if (pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, sizeof(msg)))
			die("all-gather");
		for (unsigned r = 0; r < nranks; r++)
			if (all[r].rank != r || all[r].round != i) {
				fprintf(stderr, "rank %u: round %u: slot %u holds rank %u round %u\n",
					rank, i, r, all[r].rank, all[r].round);
				good = 0;
			}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	for (unsigned r = 0; r < nranks; r++) {
		unsigned q;

		for (q = 0; q < r && strcmp(all[q].host, all[r].host); q++)
			;
		nhosts += q == r;
	}
	report(1, good, "all-gathers of every rank's card");
	good = pgas_boot_nhosts() == nhosts;
	for (unsigned r = 0; r < nranks; r++) {
		bool same = !strcmp(all[r].host, all[rank].host);

		for (unsigned q = 0; q < nranks; q++)
			if ((pgas_boot_host_of(q) == pgas_boot_host_of(r)) !=
			    !strcmp(all[q].host, all[r].host))
				good = 0;
		if (pgas_boot_same_host(r) != same || pgas_boot_host_of(r) >= nhosts)
			good = 0;
	}
	if (!good)
		fprintf(stderr, "rank %u: pgas_boot_nhosts %u (%u hostnames), host_of or "
			"same_host disagree with the hostnames\n", rank, pgas_boot_nhosts(), nhosts);
	report(2, good, "pgas_boot_host_of/same_host/nhosts match the hostnames");
	report(3, fd_round(all, false), "descriptors from this host's ranks only");
	report(4, fd_round(all, true), "descriptors from this host's even ranks only");
	{
		char how[320];

		/* PMIx's fences wait by calling it; pgasrun's relay blocks. */
		pgas_boot_describe(how, sizeof(how));
		pgas_boot_set_poll(NULL, NULL);
		report(5, strncmp(how, "pmix", 4) || nranks == 1 || polls > 0,
		       "the boot's waits call pgas_boot_set_poll's function (PMIx)");
	}
	report(6, host_share(all), "pgas_boot_host_share: the host leader's bytes and descriptor");
	report(7, mixed_round(), "pgasrun relays to ranks of an older libpgas one message at a time");
	report(8, packets(), "packets: descriptors in place, a disagreeing packet refused and closed");
	if (rank == 0)
		printf("# %u ranks on %u hosts: %.1f us per all-gather of %zu bytes\n", nranks,
		       nhosts, ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 /
		       (rounds ? rounds : 1), sizeof(mine));
	fflush(stdout);
	free(all);
	pgas_boot_tell(PGAS_BOOT_LEAVING);
	pgas_boot_tell(PGAS_BOOT_FINI);
	return 0;
}
