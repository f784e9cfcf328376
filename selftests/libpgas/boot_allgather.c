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
 *    every rank of its host (how a PMIx job gets pgas.ko's job).
 * Rank 0 prints the TAP lines for the job (each check is all-gathered).
 */
#define _GNU_SOURCE
#include <stdbool.h>
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
		printf("1..6\n");
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
