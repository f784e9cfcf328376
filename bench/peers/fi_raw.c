// SPDX-License-Identifier: MIT
/*
 * fi_raw - raw libfabric on 2 ranks, the baseline of the multi-host
 * benchmark (scripts/bench-multihost.sh): the same provider and endpoint
 * setup as the ofi conduit (FI_EP_RDM, FI_MSG | FI_RMA, the conduit's MR
 * modes; FI_PROVIDER chooses), and the measurements of pgas_bench's
 * lat/bw/rate sections done with bare libfabric calls:
 *
 *   raw.pingpong8_rtt     fi_inject 8 B / receive completion, round trip
 *   raw.put8_call         fi_write 8 B + its completion (local: tcp;ofi_rxm
 *                         reports it once the data is on the socket)
 *   raw.put8_dc_call      fi_writemsg 8 B with FI_DELIVERY_COMPLETE + its
 *                         completion: the data is at the target, what a
 *                         blocking pgas_put promises (the conduit's flag)
 *   raw.get8_call         fi_read 8 B + its completion (a blocking get)
 *   raw.put8_pingpong     ping-pong of 8-byte fi_writes, the flag polled in
 *                         local memory while reading the CQ (progress)
 *   raw.get8_pingpong     ping-pong polled by fi_reads of the peer's flag
 *   raw.put_bw.S/get_bw.S fi_write/fi_read of S bytes back to back, then
 *                         every completion and a message exchange with the
 *                         target (as put_nbi + sync: the data is there)
 *   raw.msg_rate          one-way 8-byte fi_injects, receives reposted
 *
 * The two ranks find each other through files in a directory both see
 * (argv[1]; the bed's hosts share the file system): rank (PMIX_RANK, as
 * mpirun sets it) writes its address, segment base and key, then reads
 * the other's.  Every wait is bounded (FI_RAW_TIMEOUT seconds, 60).
 * Iteration counts are divided by PGAS_BENCH_SCALE, as pgas_bench's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "../bench.h"

#define MAXSZ ((size_t)4 << 20)
#define NRECV 64

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_ep *ep;
static struct fid_mr *mr;
static void *desc;
static fi_addr_t peer;
static uint64_t peer_base, peer_key;
static char *mem;		/* [0, 4 KiB): flags; then the message buffers; then 4 MiB */
static unsigned me, scale = 1;
static double deadline;
static struct fi_context rctx[NRECV];

#define FLAG(i) ((volatile uint64_t *)(mem + 64 * (i)))
#define RBUF(i) (mem + 4096 + 64 * (i))
#define DATA (mem + 8192)

static void die(const char *what, long rc)
{
	fprintf(stderr, "fi_raw[%u]: %s: %s (%ld)\n", me, what,
		rc < 0 ? fi_strerror((int)-rc) : strerror(errno), rc);
	exit(1);
}

#define CHECK(call) do { long rc_ = (long)(call); if (rc_) die(#call, rc_); } while (0)

static uint64_t iters_of(uint64_t n) { return n / scale ? n / scale : 1; }

static void check_time(const char *what)
{
	if (bench_now() > deadline) {
		fprintf(stderr, "fi_raw[%u]: timed out waiting for %s\n", me, what);
		exit(1);
	}
}

/* Reads the CQ once: the number of completions (recv ones repost). */
static unsigned progress(unsigned *recvs)
{
	struct fi_cq_entry e[16];
	ssize_t n = fi_cq_read(cq, e, 16);

	if (n == -FI_EAGAIN)
		return 0;
	if (n < 0) {
		struct fi_cq_err_entry err = { 0 };

		fi_cq_readerr(cq, &err, 0);
		fprintf(stderr, "fi_raw[%u]: completion error: %s\n", me,
			fi_strerror(err.err));
		exit(1);
	}
	for (ssize_t i = 0; i < n; i++) {
		struct fi_context *c = e[i].op_context;

		if (c >= rctx && c < rctx + NRECV) {
			ssize_t rc;

			(*recvs)++;
			while ((rc = fi_recv(ep, RBUF(c - rctx), 64, desc, FI_ADDR_UNSPEC, c)) ==
			       -FI_EAGAIN)
				;
			if (rc)
				die("fi_recv", rc);
		}
	}
	return (unsigned)n;
}

static unsigned recvs;	/* receive completions so far */
static unsigned expect;	/* messages the peer has sent by now, in program order */
static unsigned long txdone;	/* write/read completions so far */
static unsigned long posted;	/* writes/reads posted so far */

static void wait_recvs(unsigned n, const char *what)
{
	deadline = bench_now() + 60;
	while (recvs < n) {
		unsigned before = recvs, c = progress(&recvs);

		txdone += c - (recvs - before);
		check_time(what);
	}
}

static void wait_tx(unsigned long n, const char *what)
{
	deadline = bench_now() + 60;
	while (txdone < n) {
		unsigned before = recvs, c = progress(&recvs);

		txdone += c - (recvs - before);
		check_time(what);
	}
}

static void send8(uint64_t v)
{
	ssize_t rc;

	while ((rc = fi_inject(ep, &v, 8, peer)) == -FI_EAGAIN) {
		unsigned before = recvs, c = progress(&recvs);

		txdone += c - (recvs - before);
	}
	if (rc)
		die("fi_inject", rc);
}

/* Both ranks here: one message each way. */
static void barrier(void)
{
	send8(0);
	wait_recvs(++expect, "the barrier");
}

static void post_flags(int write, void *buf, size_t s, uint64_t off, uint64_t flags)
{
	ssize_t rc;

	for (;;) {
		if (flags) {
			struct iovec iov = { buf, s };
			struct fi_rma_iov riov = { peer_base + off, s, peer_key };
			struct fi_msg_rma m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
						.addr = peer, .rma_iov = &riov,
						.rma_iov_count = 1 };

			rc = fi_writemsg(ep, &m, FI_COMPLETION | flags);
		} else {
			rc = write ? fi_write(ep, buf, s, desc, peer, peer_base + off, peer_key,
					      NULL)
				   : fi_read(ep, buf, s, desc, peer, peer_base + off, peer_key,
					     NULL);
		}
		if (rc != -FI_EAGAIN)
			break;
		unsigned before = recvs, c = progress(&recvs);

		txdone += c - (recvs - before);
	}
	if (rc)
		die(write ? "fi_write" : "fi_read", rc);
	posted++;
}

static void post(int write, void *buf, size_t s, uint64_t off)
{
	post_flags(write, buf, s, off, 0);
}

static void exchange(const char *dir)
{
	char path[4096], tmp[4200], addr[256];
	size_t len = sizeof(addr);
	uint64_t base = info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)mem : 0;
	FILE *f;

	CHECK(fi_getname(&ep->fid, addr, &len));
	snprintf(path, sizeof(path), "%s/addr.%u", dir, me);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fwrite(&len, sizeof(len), 1, f) != 1 || fwrite(addr, len, 1, f) != 1 ||
	    fwrite(&base, 8, 1, f) != 1 || fwrite(&(uint64_t){ fi_mr_key(mr) }, 8, 1, f) != 1 ||
	    fclose(f) || rename(tmp, path))
		die(path, -1);
	snprintf(path, sizeof(path), "%s/addr.%u", dir, 1 - me);
	deadline = bench_now() + 60;
	while (!(f = fopen(path, "r"))) {
		check_time(path);
		usleep(10000);
	}
	if (fread(&len, sizeof(len), 1, f) != 1 || len > sizeof(addr) ||
	    fread(addr, len, 1, f) != 1 || fread(&peer_base, 8, 1, f) != 1 ||
	    fread(&peer_key, 8, 1, f) != 1)
		die(path, -1);
	fclose(f);
	if (fi_av_insert(av, addr, 1, &peer, 0, NULL) != 1)
		die("fi_av_insert", -FI_EINVAL);
}

static void setup(void)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT, .size = 4096 };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	uint64_t mode;

	hints->caps = FI_MSG | FI_RMA;
	hints->ep_attr->type = FI_EP_RDM;
	hints->mode = FI_CONTEXT;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
				      FI_MR_PROV_KEY | FI_MR_ENDPOINT;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	CHECK(fi_getinfo(FI_VERSION(1, 11), NULL, NULL, 0, hints, &info));
	fi_freeinfo(hints);
	CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
	CHECK(fi_domain(fabric, info, &domain, NULL));
	CHECK(fi_cq_open(domain, &cqa, &cq, NULL));
	CHECK(fi_av_open(domain, &ava, &av, NULL));
	CHECK(fi_endpoint(domain, info, &ep, NULL));
	CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
	CHECK(fi_ep_bind(ep, &av->fid, 0));
	CHECK(fi_enable(ep));
	if (posix_memalign((void **)&mem, 4096, 8192 + MAXSZ))
		die("posix_memalign", -FI_ENOMEM);
	memset(mem, 0, 8192 + MAXSZ);
	mode = info->domain_attr->mr_mode;
	CHECK(fi_mr_reg(domain, mem, 8192 + MAXSZ, FI_SEND | FI_RECV | FI_READ | FI_WRITE |
			FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 1, 0, &mr, NULL));
	if (mode & FI_MR_ENDPOINT) {
		CHECK(fi_mr_bind(mr, &ep->fid, 0));
		CHECK(fi_mr_enable(mr));
	}
	desc = fi_mr_desc(mr);
	for (unsigned i = 0; i < NRECV; i++)
		CHECK(fi_recv(ep, RBUF(i), 64, desc, FI_ADDR_UNSPEC, &rctx[i]));
	if (me == 0)
		fprintf(stderr, "fi_raw: provider %s, fabric %s, domain %s\n",
			info->fabric_attr->prov_name, info->fabric_attr->name,
			info->domain_attr->name);
}

static double keep(double best, double t0, double n)
{
	double t = (bench_now() - t0) / n;

	return t < best ? t : best;
}

static void latency(void)
{
	uint64_t iters = iters_of(200000);
	double best[6] = { 1e9, 1e9, 1e9, 1e9, 1e9, 1e9 };

	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0;

		/* send/recv ping-pong */
		barrier();
		t0 = bench_now();
		for (uint64_t i = 0; i < iters; i++) {
			if (me == 0) {
				send8(i);
				wait_recvs(++expect, "a pong");
			} else {
				wait_recvs(++expect, "a ping");
				send8(i);
			}
		}
		best[0] = keep(best[0], t0, (double)iters);
		/* blocking write and read, rank 0 only */
		barrier();
		if (me == 0) {
			t0 = bench_now();
			for (uint64_t i = 0; i < iters; i++) {
				post(1, DATA, 8, 8192);
				wait_tx(posted, "a write");
			}
			best[1] = keep(best[1], t0, (double)iters);
			t0 = bench_now();
			for (uint64_t i = 0; i < iters; i++) {
				post_flags(1, DATA, 8, 8192, FI_DELIVERY_COMPLETE);
				wait_tx(posted, "a delivered write");
			}
			best[5] = keep(best[5], t0, (double)iters);
			t0 = bench_now();
			for (uint64_t i = 0; i < iters; i++) {
				post(0, DATA, 8, 8192);
				wait_tx(posted, "a read");
			}
			best[2] = keep(best[2], t0, (double)iters);
		}
		barrier();
		/* ping-pong of writes: each writes the other's flag 1, polls its own */
		*FLAG(1) = 0;
		*FLAG(2) = 0;
		barrier();
		t0 = bench_now();
		for (uint64_t i = 1; i <= iters; i++)
			for (int step = 0; step < 2; step++) {
				if ((step == 0) == (me == 0)) {
					*FLAG(2) = i;
					post(1, (void *)FLAG(2), 8, 64);
				} else {
					deadline = bench_now() + 60;
					while (__atomic_load_n(FLAG(1), __ATOMIC_ACQUIRE) != i) {
						unsigned before = recvs, c = progress(&recvs);

						txdone += c - (recvs - before);
						check_time("a written flag");
					}
				}
			}
		wait_tx(posted, "the writes");
		best[3] = keep(best[3], t0, (double)iters);
		/* ping-pong polled by reads: each stores its own flag 1, reads the other's */
		*FLAG(1) = 0;
		barrier();
		t0 = bench_now();
		for (uint64_t i = 1; i <= iters; i++)
			for (int step = 0; step < 2; step++) {
				if ((step == 0) == (me == 0)) {
					__atomic_store_n(FLAG(1), i, __ATOMIC_RELEASE);
				} else {
					deadline = bench_now() + 60;
					do {
						post(0, (void *)FLAG(3), 8, 64);
						wait_tx(posted, "a read flag");
						check_time("a read flag");
					} while (*FLAG(3) != i);
				}
			}
		best[4] = keep(best[4], t0, (double)iters);
		barrier();
	}
	if (me == 0) {
		bench_result("raw.pingpong8_rtt", best[0] * 1e6, "us");
		bench_result("raw.put8_call", best[1] * 1e6, "us");
		bench_result("raw.put8_dc_call", best[5] * 1e6, "us");
		bench_result("raw.get8_call", best[2] * 1e6, "us");
		bench_result("raw.put8_pingpong", best[3] * 1e6, "us");
		bench_result("raw.get8_pingpong", best[4] * 1e6, "us");
	}
}

/*
 * As pgas_bench's bw section: the same sizes and counts (divided by the
 * scale).  A write's completion may come when the provider has handed the
 * data to the socket (tcp;ofi_rxm: 4 GB/s at 64 KiB, more than the link
 * carries): the time ends after a message exchange with the target, which
 * arrives behind the writes on the same connection (put + sync: remote).
 */
static void bandwidth(void)
{
	char name[64];

	barrier();
	for (size_t s = 8; s <= MAXSZ; s *= 2) {
		size_t iters = ((size_t)256 << 20) / s > 2000000 ? 2000000 : ((size_t)256 << 20) / s;
		double bw[2] = { 1e9, 1e9 };

		iters = iters / scale;
		if (iters < 20)
			iters = 20;
		for (int rep = 0; rep < BENCH_REPS; rep++)
			for (int get = 0; get < 2; get++) {
				double t0 = bench_now();

				if (me == 0) {
					for (size_t i = 0; i < iters; i++)
						post(!get, DATA, s, 8192);
					wait_tx(posted, "the transfers");
				}
				barrier();
				bw[get] = keep(bw[get], t0, 1);
			}
		if (me == 0) {
			snprintf(name, sizeof(name), "raw.put_bw.%zu", s);
			bench_result(name, (double)s * iters / bw[0] / 1e6, "MB/s");
			snprintf(name, sizeof(name), "raw.get_bw.%zu", s);
			bench_result(name, (double)s * iters / bw[1] / 1e6, "MB/s");
		}
	}
	barrier();
}

static void rate(void)
{
	unsigned msgs = (unsigned)iters_of(2000000);
	double best = 1e9;

	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0;

		barrier();
		t0 = bench_now();
		if (me == 0)
			for (unsigned i = 0; i < msgs; i++)
				send8(i);
		else
			wait_recvs(expect += msgs, "the messages");
		barrier();
		best = keep(best, t0, 1);
	}
	if (me == 0)
		bench_result("raw.msg_rate", msgs / best / 1e6, "Mmsg/s");
}

int main(int argc, char **argv)
{
	const char *r = getenv("PMIX_RANK");

	if (argc < 2 || !r) {
		fprintf(stderr, "usage: mpirun -n 2 fi_raw DIR [lat|bw|rate...] (DIR seen by both)\n");
		return 2;
	}
	me = (unsigned)atoi(r);
	if (me > 1) {
		fprintf(stderr, "fi_raw: 2 ranks, not rank %u\n", me);
		return 2;
	}
	if (getenv("PGAS_BENCH_SCALE"))
		scale = (unsigned)strtoul(getenv("PGAS_BENCH_SCALE"), NULL, 0) ?: 1;
	setup();
	exchange(argv[1]);
	barrier();
	if (bench_want(argc, argv, 2, "lat"))
		latency();
	if (bench_want(argc, argv, 2, "bw"))
		bandwidth();
	if (bench_want(argc, argv, 2, "rate"))
		rate();
	barrier();
	/* The last message may still sit in this side's queue: progress a while. */
	deadline = bench_now() + 0.2;
	while (bench_now() < deadline)
		progress(&recvs);
	fi_close(&ep->fid);
	fi_close(&mr->fid);
	fi_close(&av->fid);
	fi_close(&cq->fid);
	fi_close(&domain->fid);
	fi_close(&fabric->fid);
	fi_freeinfo(info);
	return 0;
}
