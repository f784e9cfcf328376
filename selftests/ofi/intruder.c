// SPDX-License-Identifier: MIT
/*
 * intruder - a process outside a pgas job that reaches its ranks' fabric
 * endpoints (docs/ofi.md, "Who can reach a rank's memory"): it opens its
 * own libfabric endpoint (FI_PROVIDER, tcp;ofi_rxm), finds each rank's
 * listening tcp port (the rank's pid from DIR/pid.R, its sockets in
 * /proc/PID/fd, their listening ports in /proc/net/tcp{,6}: any local user
 * can scan for them) and sends it the ofi conduit's own messages (conduit/
 * ofi/wire.h), well formed but with a wrong job key: an AM request to
 * HANDLER that adds 1000, a barrier flag, a notification, a ping, a
 * goodbye, a message shorter than a header and one longer than any of the
 * job's.  ROUNDS times each; then it writes DIR/done and prints
 * "# sent N to rank R" per rank.  The job (selftests/libpgas/jobkey.c)
 * must end with its own results and count them dropped.
 *
 *   intruder DIR NRANKS HANDLER ROUNDS [am]
 *
 * With "am", the AM requests only (what a conduit that reads no key
 * dispatches; the other kinds end it or its barriers).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include "pgas_abi.h"
#include "wire.h"

#define BIG (1u << 20)	/* longer than any conduit message (header, body, bounce) */

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_av *av;
static unsigned char *big;
static int am_only;

static void die(const char *what, int rc)
{
	fprintf(stderr, "intruder: %s: %s\n", what, rc ? fi_strerror(-rc) : "failed");
	exit(2);
}

#define CHECK(x) do { int rc_ = (int)(x); if (rc_) die(#x, rc_); } while (0)

static void setup(void)
{
	struct fi_info *hints = fi_allocinfo(), *info;
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT, .size = 1024 };
	struct fi_av_attr ava = { .type = FI_AV_UNSPEC };

	hints->caps = FI_MSG;
	hints->ep_attr->type = FI_EP_RDM;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
				      FI_MR_PROV_KEY | FI_MR_ENDPOINT;
	CHECK(fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info));
	fi_freeinfo(hints);
	CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
	CHECK(fi_domain(fabric, info, &domain, NULL));
	CHECK(fi_cq_open(domain, &cqa, &cq, NULL));
	CHECK(fi_av_open(domain, &ava, &av, NULL));
	CHECK(fi_endpoint(domain, info, &ep, NULL));
	CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
	CHECK(fi_ep_bind(ep, &av->fid, 0));
	CHECK(fi_enable(ep));
	if (info->domain_attr->mr_mode & FI_MR_LOCAL)
		die("a provider that needs FI_MR_LOCAL (use FI_PROVIDER=tcp)", 0);
	fprintf(stderr, "# intruder: provider %s\n", info->fabric_attr->prov_name);
	fi_freeinfo(info);
	big = calloc(1, BIG);
	if (!big)
		die("calloc", -FI_ENOMEM);
}

/* The listening tcp ports of pid's sockets (IPv4 loopback or any). */
static unsigned listen_ports(int pid, unsigned *port, unsigned max)
{
	unsigned long inode[256];
	unsigned ni = 0, np = 0;
	char path[64], line[512];
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && ni < 256) {
		char lk[320], target[64];
		ssize_t n;

		snprintf(lk, sizeof(lk), "/proc/%d/fd/%s", pid, d->d_name);
		n = readlink(lk, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = 0;
			if (sscanf(target, "socket:[%lu]", &inode[ni]) == 1)
				ni++;
		}
	}
	closedir(dir);
	f = fopen("/proc/net/tcp", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && np < max) {
		unsigned addr, lport, state;
		unsigned long ino;

		if (sscanf(line, " %*u: %x:%x %*x:%*x %x %*s %*s %*s %*u %*u %lu", &addr, &lport,
			   &state, &ino) != 4 || state != 0x0a)
			continue;
		for (unsigned i = 0; i < ni; i++)
			if (inode[i] == ino)
				port[np++] = lport;
	}
	fclose(f);
	return np;
}

/* Sends len bytes of data to a (fi_send, its completion awaited): 1 if sent. */
static int send_one(fi_addr_t a, const void *data, size_t len)
{
	struct fi_cq_err_entry err;
	struct fi_context ctx;
	struct timespec t0, t;
	ssize_t rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		rc = fi_send(ep, data, len, NULL, a, &ctx);
		if (rc == -FI_EAGAIN)
			fi_cq_read(cq, NULL, 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (rc == -FI_EAGAIN && t.tv_sec - t0.tv_sec < 5);
	if (rc)
		return 0;
	for (;;) {
		struct fi_cq_entry e;
		ssize_t got = fi_cq_read(cq, &e, 1);

		if (got == 1)
			return 1;
		if (got == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			fi_cq_readerr(cq, &err, 0);
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 5)
			return 0;
	}
}

/* One round of every kind of the conduit's messages to rank r (as if from
 * rank src), wrong key: how many the provider took. */
static unsigned attack(fi_addr_t a, unsigned r, unsigned src, unsigned handler, uint64_t key)
{
	struct {
		struct wire w;
		uint32_t args[2];
	} am = { .w = { .key = key, .eid = r, .src_rank = src, .chan = PGAS_CHAN_REQUEST,
			.kind = WIRE_AM,
			.status = PGAS_STATUS(0, src, 4, 1, PGAS_MSG_SHORT, handler) },
		 .args = { 1000 } };
	struct wire_word bar = { .h = { .key = key, .eid = r, .src_rank = src, .extra = 0,
					.kind = WIRE_BARRIER },
				 .word = ~0ull >> 1 };
	struct wire_word note = { .h = { .key = key, .eid = r, .src_rank = src,
					 .kind = WIRE_NOTIFY,
					 .status = PGAS_STATUS(0, src, 0, 0, 0, 0) },
				  .word = 8 | (uint64_t)77 << 32 };
	struct wire ping = { .key = key, .src_rank = src, .kind = WIRE_PING };
	struct wire bye = { .key = key, .src_rank = src, .kind = WIRE_BYE };
	unsigned n = 0;

	n += send_one(a, &am, sizeof(am.w) + 4);
	if (am_only)
		return n;
	n += send_one(a, &bar, sizeof(bar));
	n += send_one(a, &note, sizeof(note));
	n += send_one(a, &ping, sizeof(ping));
	n += send_one(a, &bye, sizeof(bye));
	n += send_one(a, &key, 8);	/* shorter than a header */
	memcpy(big, &am, sizeof(am));
	n += send_one(a, big, BIG);	/* longer than any receive buffer */
	return n;
}

int main(int argc, char **argv)
{
	unsigned nranks, handler, rounds;
	char path[4096];
	uint64_t key;
	FILE *f;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: intruder DIR NRANKS HANDLER ROUNDS [am]\n");
		return 2;
	}
	nranks = (unsigned)atoi(argv[2]);
	handler = (unsigned)atoi(argv[3]);
	rounds = (unsigned)atoi(argv[4]);
	am_only = argc == 6 && !strcmp(argv[5], "am");
	setup();
	key = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	for (unsigned r = 0; r < nranks; r++) {
		unsigned port[8], np, sent = 0;
		int pid = 0;

		snprintf(path, sizeof(path), "%s/pid.%u", argv[1], r);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%d", &pid) != 1) {
			fprintf(stderr, "intruder: no pid in %s\n", path);
			return 2;
		}
		fclose(f);
		np = listen_ports(pid, port, 8);
		if (!np) {
			fprintf(stderr, "intruder: rank %u (pid %d) listens on no IPv4 tcp port\n", r,
				pid);
			return 2;
		}
		for (unsigned i = 0; i < np; i++) {
			struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port[i]),
						   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
			fi_addr_t a;

			if (fi_av_insert(av, &sin, 1, &a, 0, NULL) != 1)
				die("fi_av_insert", -FI_EINVAL);
			for (unsigned k = 0; k < rounds; k++)
				sent += attack(a, r, (r + 1) % nranks, handler, key);
		}
		printf("# sent %u to rank %u (pid %d, %u port%s)\n", sent, r, pid, np,
		       np == 1 ? "" : "s");
	}
	fflush(stdout);
	snprintf(path, sizeof(path), "%s/done", argv[1]);
	f = fopen(path, "w");
	if (!f)
		die("writing DIR/done", 0);
	fclose(f);
	fi_close(&ep->fid);
	fi_close(&av->fid);
	fi_close(&cq->fid);
	fi_close(&domain->fid);
	fi_close(&fabric->fid);
	return 0;
}
