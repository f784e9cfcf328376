// SPDX-License-Identifier: MIT
/*
 * pgasctl - pgas.ko's control plane over generic netlink (libnl-genl-3).
 *
 *   pgasctl list                 NICs and their counters
 *   pgasctl jobs                 jobs: ranks, uid, endpoints joined
 *   pgasctl endpoints            endpoints: registrations, pinned pages, ring bytes
 *                                (jobs and endpoints: the caller's own only,
 *                                unless root or CAP_SYS_ADMIN)
 *   pgasctl create               a new loopback NIC (prints its name)
 *   pgasctl destroy N            removes NIC N
 *   pgasctl monitor [-n COUNT] [-t SECONDS]
 *                                prints endpoint and job deaths as they happen
 *                                (every user's: CAP_SYS_ADMIN only)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pgas_abi.h"

static int family;
static int events_seen;

static void usage(FILE *f)
{
	fprintf(f, "usage: pgasctl list | jobs | endpoints | create | destroy N |\n"
		   "               monitor [-n COUNT] [-t SECONDS]\n");
}

static int die(const char *what, int err)
{
	fprintf(stderr, "pgasctl: %s: %s\n", what, nl_geterror(err));
	return 1;
}

static unsigned long long u64_or_0(struct nlattr **a, int i)
{
	return a[i] ? nla_get_u64(a[i]) : 0;
}

static unsigned u32_or_0(struct nlattr **a, int i)
{
	return a[i] ? nla_get_u32(a[i]) : 0;
}

static int on_message(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *a[PGAS_ATTR_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, a, PGAS_ATTR_MAX, NULL) < 0)
		return NL_SKIP;
	switch (gh->cmd) {
	case PGAS_CMD_NIC_NEW:
		printf("pgas%u\n", u32_or_0(a, PGAS_ATTR_NIC_ID));
		break;
	case PGAS_CMD_NIC_GET:
		printf("%s: endpoints %u jobs %u pinned_pages %llu ring_bytes %llu mmaps %llu peer_gone %llu\n",
		       a[PGAS_ATTR_NIC_NAME] ? nla_get_string(a[PGAS_ATTR_NIC_NAME]) : "?",
		       u32_or_0(a, PGAS_ATTR_ENDPOINTS), u32_or_0(a, PGAS_ATTR_JOBS),
		       u64_or_0(a, PGAS_ATTR_PINNED_PAGES), u64_or_0(a, PGAS_ATTR_RING_BYTES),
		       u64_or_0(a, PGAS_ATTR_MMAPS), u64_or_0(a, PGAS_ATTR_PEER_GONE));
		break;
	case PGAS_CMD_JOB_GET:
		printf("pgas%u job %u: ranks %u uid %u joined %u regs %u pinned_pages %llu "
		       "ring_bytes %llu mmaps %llu peer_gone %llu\n", u32_or_0(a, PGAS_ATTR_NIC_ID),
		       u32_or_0(a, PGAS_ATTR_JOB_ID), u32_or_0(a, PGAS_ATTR_NRANKS),
		       u32_or_0(a, PGAS_ATTR_UID), u32_or_0(a, PGAS_ATTR_ENDPOINTS),
		       u32_or_0(a, PGAS_ATTR_REGS), u64_or_0(a, PGAS_ATTR_PINNED_PAGES),
		       u64_or_0(a, PGAS_ATTR_RING_BYTES), u64_or_0(a, PGAS_ATTR_MMAPS),
		       u64_or_0(a, PGAS_ATTR_PEER_GONE));
		break;
	case PGAS_CMD_EP_GET:
		printf("pgas%u job %u rank %u: regs %u pinned_pages %llu ring_bytes %llu\n",
		       u32_or_0(a, PGAS_ATTR_NIC_ID), u32_or_0(a, PGAS_ATTR_JOB_ID),
		       u32_or_0(a, PGAS_ATTR_VPID), u32_or_0(a, PGAS_ATTR_REGS),
		       u64_or_0(a, PGAS_ATTR_PINNED_PAGES), u64_or_0(a, PGAS_ATTR_RING_BYTES));
		break;
	case PGAS_CMD_EP_DEAD:
		printf("event: pgas%u job %u rank %u gone\n", u32_or_0(a, PGAS_ATTR_NIC_ID),
		       u32_or_0(a, PGAS_ATTR_JOB_ID), u32_or_0(a, PGAS_ATTR_VPID));
		events_seen++;
		break;
	case PGAS_CMD_JOB_DEAD:
		printf("event: pgas%u job %u gone\n", u32_or_0(a, PGAS_ATTR_NIC_ID),
		       u32_or_0(a, PGAS_ATTR_JOB_ID));
		events_seen++;
		break;
	}
	fflush(stdout);
	return NL_OK;
}

/* Sends cmd (a dump when dump is set) with an optional NIC id; prints replies. */
static int request(struct nl_sock *sk, unsigned cmd, int dump, long nic)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg)
		return die("request", -NLE_NOMEM);
	/* A dump ends with NLMSG_DONE; a request with its reply and/or ACK. */
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 dump ? NLM_F_DUMP : NLM_F_ACK, (uint8_t)cmd, PGAS_GENL_VERSION) ||
	    (nic >= 0 && nla_put_u32(msg, PGAS_ATTR_NIC_ID, (uint32_t)nic) < 0)) {
		nlmsg_free(msg);
		return die("request", -NLE_NOMEM);
	}
	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return die("send", err);
	err = nl_recvmsgs_default(sk);
	return err < 0 ? die("request", err) : 0;
}

static int monitor(struct nl_sock *sk, int count, int seconds)
{
	int grp = genl_ctrl_resolve_grp(sk, PGAS_GENL_NAME, PGAS_GENL_MCGRP_EVENTS), err;
	time_t end = seconds > 0 ? time(NULL) + seconds : 0;

	if (grp < 0)
		return die("event group", grp);
	nl_socket_disable_seq_check(sk);
	err = nl_socket_add_membership(sk, grp);
	if (err < 0)
		return die("joining the event group (it needs CAP_SYS_ADMIN)", err);
	printf("monitoring pgas.ko events\n");
	fflush(stdout);
	while (count <= 0 || events_seen < count) {
		struct pollfd p = { .fd = nl_socket_get_fd(sk), .events = POLLIN };
		int left = end ? (int)(end - time(NULL)) : -1;

		if (end && left <= 0)
			break;
		if (poll(&p, 1, end ? left * 1000 : -1) > 0) {
			err = nl_recvmsgs_default(sk);
			if (err < 0)
				return die("receiving events", err);
		}
	}
	return count > 0 && events_seen < count ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct nl_sock *sk;
	const char *cmd = argc > 1 ? argv[1] : "list";
	int rc, err;

	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	/* A usage error is one (2) whether or not pgas.ko is there. */
	if (strcmp(cmd, "list") && strcmp(cmd, "jobs") && strcmp(cmd, "endpoints") &&
	    strcmp(cmd, "create") && strcmp(cmd, "monitor") &&
	    (strcmp(cmd, "destroy") || argc != 3)) {
		usage(stderr);
		return 2;
	}
	sk = nl_socket_alloc();
	if (!sk)
		return die("socket", -NLE_NOMEM);
	err = genl_connect(sk);
	if (err < 0)
		return die("connecting to generic netlink", err);
	family = genl_ctrl_resolve(sk, PGAS_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "pgasctl: no generic netlink family '%s': is pgas.ko loaded?\n",
			PGAS_GENL_NAME);
		return 1;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_message, NULL);
	if (!strcmp(cmd, "list"))
		rc = request(sk, PGAS_CMD_NIC_GET, 1, -1);
	else if (!strcmp(cmd, "jobs"))
		rc = request(sk, PGAS_CMD_JOB_GET, 1, -1);
	else if (!strcmp(cmd, "endpoints"))
		rc = request(sk, PGAS_CMD_EP_GET, 1, -1);
	else if (!strcmp(cmd, "create"))
		rc = request(sk, PGAS_CMD_NIC_NEW, 0, -1);
	else if (!strcmp(cmd, "destroy") && argc == 3) {
		char *end;
		long id = strtol(argv[2], &end, 10);

		if (*end || id < 0 || id > 0xffff) {
			fprintf(stderr, "pgasctl: destroy %s: expected a NIC number\n", argv[2]);
			rc = 2;
		} else {
			rc = request(sk, PGAS_CMD_NIC_DEL, 0, id);
		}
	} else if (!strcmp(cmd, "monitor")) {
		int count = 0, seconds = 0;

		for (int i = 2; i + 1 < argc; i += 2) {
			if (!strcmp(argv[i], "-n"))
				count = atoi(argv[i + 1]);
			else if (!strcmp(argv[i], "-t"))
				seconds = atoi(argv[i + 1]);
		}
		rc = monitor(sk, count, seconds);
	} else {
		usage(stderr);
		rc = 2;
	}
	nl_socket_free(sk);
	return rc;
}
