// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_ctl - kselftest-style tests of pgas.ko's generic netlink control
 * plane, spoken raw (TAP on stdout).
 *
 * A user who is not privileged sees only their own jobs and endpoints in
 * the JOB_GET and EP_GET dumps (root sees all); attributes and header
 * fields the family does not know are refused (strict validation); an
 * endpoint dump that resumes after the job it stopped in went away still
 * lists every endpoint of the next job; extra endpoints (PGAS_JOIN_EXTRA)
 * are dumped with their eid and owner.  Run as root (a child drops to uid
 * 65534).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgas_abi.h"

#define DEV "/dev/pgas0"

static int tests, failures;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%sok %d - ", ok ? "" : "not ", ++tests);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (!ok)
		failures++;
}

static int ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

struct req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[256];
};

static void add_attr(struct req *r, unsigned short type, const void *data, unsigned short len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void init_req(struct req *r, unsigned short family, unsigned char cmd, unsigned short flags)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = family;
	r->n.nlmsg_flags = NLM_F_REQUEST | flags;
	r->n.nlmsg_seq = 1;
	r->g.cmd = cmd;
	r->g.version = 1;
}

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	return fd;
}

/* The attribute type of a message's attributes, or NULL. */
static struct nlattr *attr(struct nlmsghdr *n, unsigned short type)
{
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(n) + GENL_HDRLEN);
	int left = (int)n->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left) {
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		left -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

static unsigned int attr_u32(struct nlmsghdr *n, unsigned short type)
{
	struct nlattr *a = attr(n, type);
	unsigned int v = ~0u;

	if (a)
		memcpy(&v, (char *)a + NLA_HDRLEN, 4);
	return v;
}

static unsigned short family_id(int fd)
{
	static char buf[8192];
	struct req r;
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct nlattr *a;
	unsigned short id = 0;
	int len;

	init_req(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	add_attr(&r, CTRL_ATTR_FAMILY_NAME, PGAS_GENL_NAME, sizeof(PGAS_GENL_NAME));
	if (send(fd, &r, r.n.nlmsg_len, 0) < 0)
		return 0;
	len = (int)recv(fd, buf, sizeof(buf), 0);
	if (len > 0 && NLMSG_OK(n, len) && n->nlmsg_type == GENL_ID_CTRL) {
		a = attr(n, CTRL_ATTR_FAMILY_ID);
		if (a)
			memcpy(&id, (char *)a + NLA_HDRLEN, 2);
	}
	return id;
}

/* Sends r and returns the acknowledgement's error (0, -errno). */
static int request(int fd, struct req *r)
{
	static char buf[8192];
	struct nlmsghdr *n;
	int len;

	if (send(fd, r, r->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		len = (int)recv(fd, buf, sizeof(buf), 0);
		if (len <= 0)
			return -EIO;
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(n))->error;
			if (n->nlmsg_type == NLMSG_DONE)
				return 0;
		}
	}
}

struct seen {
	int n;
	unsigned int job[512], val[512];	/* job id, and uid or vpid */
	unsigned int eid[512], owner[512], eps[512];	/* EID, OWNER, ENDPOINTS (~0: none) */
	int error;
};

/*
 * Reads dump messages into s until NLMSG_DONE, or until one recv() when
 * once is set (the rest of the dump is produced by later recv()s).
 */
static int dump_read(int fd, struct seen *s, unsigned short want_attr, int once, size_t size)
{
	static char buf[32768];	/* the largest part a dump makes */
	struct nlmsghdr *n;
	int len;

	for (;;) {
		len = (int)recv(fd, buf, size, 0);
		if (len <= 0)
			return -1;
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_type == NLMSG_DONE)
				return 1;
			if (n->nlmsg_type == NLMSG_ERROR) {
				s->error = ((struct nlmsgerr *)NLMSG_DATA(n))->error;
				return 1;
			}
			if (s->n < 512) {
				s->job[s->n] = attr_u32(n, PGAS_ATTR_JOB_ID);
				s->val[s->n] = attr_u32(n, want_attr);
				s->eid[s->n] = attr_u32(n, PGAS_ATTR_EID);
				s->owner[s->n] = attr_u32(n, PGAS_ATTR_OWNER);
				s->eps[s->n] = attr_u32(n, PGAS_ATTR_ENDPOINTS);
				s->n++;
			}
		}
		if (once)
			return 0;
	}
}

static int dump(int fd, unsigned short fam, unsigned char cmd, struct seen *s)
{
	struct req r;

	memset(s, 0, sizeof(*s));
	init_req(&r, fam, cmd, NLM_F_DUMP);
	if (send(fd, &r, r.n.nlmsg_len, 0) < 0)
		return -1;
	return dump_read(fd, s, cmd == PGAS_CMD_JOB_GET ? PGAS_ATTR_UID : PGAS_ATTR_VPID, 0, 32768);
}

static int count_job(const struct seen *s, unsigned int job)
{
	int i, c = 0;

	for (i = 0; i < s->n; i++)
		c += s->job[i] == job;
	return c;
}

static struct pgas_ioc_job_create create_job(int fd, unsigned int nranks)
{
	struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = nranks };

	if (ioc(fd, PGAS_IOC_JOB_CREATE, &c))
		printf("# JOB_CREATE(%u): %s\n", nranks, strerror(errno));
	return c;
}

static int join(int fd, const struct pgas_ioc_job_create *job, unsigned int vpid)
{
	struct pgas_ioc_job_join j = {
		.size = sizeof(j), .job_id = job->job_id, .vpid = vpid, .key = job->key,
	};

	return ioc(fd, PGAS_IOC_JOB_JOIN, &j);
}

/* Only the requester's own jobs, unless it is privileged. */
static void test_visibility(int nl, unsigned short fam)
{
	int lfd = open(DEV, O_RDWR), efd = open(DEV, O_RDWR), ready[2], res[2], status;
	struct pgas_ioc_job_create mine = create_job(lfd, 1);
	unsigned int theirs = 0, got[6] = { 0 };
	struct seen s;
	pid_t pid;
	char x;

	join(efd, &mine, 0);
	chmod(DEV, 0666);
	if (pipe(ready) || pipe(res))
		return;
	pid = fork();
	if (pid == 0) {
		struct pgas_ioc_job_create job;
		int l, e, fd;

		close(ready[1]);
		if (setgid(65534) || setuid(65534))
			_exit(1);
		l = open(DEV, O_RDWR);
		e = open(DEV, O_RDWR);
		job = create_job(l, 1);
		if (l < 0 || e < 0 || join(e, &job, 0))
			_exit(1);
		fd = nl_open();
		got[0] = job.job_id;
		dump(fd, fam, PGAS_CMD_JOB_GET, &s);
		got[1] = (unsigned int)s.n;
		got[2] = (unsigned int)count_job(&s, job.job_id);
		got[3] = (unsigned int)count_job(&s, mine.job_id);
		dump(fd, fam, PGAS_CMD_EP_GET, &s);
		got[4] = (unsigned int)count_job(&s, job.job_id);
		got[5] = (unsigned int)count_job(&s, mine.job_id);
		if (write(res[1], got, sizeof(got)) != sizeof(got))
			_exit(1);
		if (read(ready[0], &x, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[0]);
	if (read(res[0], got, sizeof(got)) != sizeof(got))
		memset(got, 0xff, sizeof(got));
	theirs = got[0];
	result(got[2] == 1 && got[3] == 0 && got[1] == 1,
	       "uid 65534 dumps jobs: its own (%u), not root's (%u); %u in all",
	       got[2], got[3], got[1]);
	result(got[4] == 1 && got[5] == 0,
	       "uid 65534 dumps endpoints: its own (%u), not root's (%u)", got[4], got[5]);
	dump(nl, fam, PGAS_CMD_JOB_GET, &s);
	result(count_job(&s, theirs) == 1 && count_job(&s, mine.job_id) == 1,
	       "root dumps every user's jobs");
	close(ready[1]);
	waitpid(pid, &status, 0);
	chmod(DEV, 0660);
	close(res[0]);
	close(res[1]);
	close(efd);
	close(lfd);
}

/* Strict validation: unknown attributes and header bits are refused. */
static void test_strict(int nl, unsigned short fam)
{
	unsigned int v = 99, bogus = 7;
	struct req r;
	int e;

	init_req(&r, fam, PGAS_CMD_NIC_DEL, NLM_F_ACK);
	add_attr(&r, PGAS_ATTR_NIC_ID, &v, 4);
	e = request(nl, &r);
	result(e == -ENODEV, "NIC_DEL of NIC 99: %d, want -ENODEV", e);
	init_req(&r, fam, PGAS_CMD_NIC_DEL, NLM_F_ACK);
	add_attr(&r, PGAS_ATTR_NIC_ID, &v, 4);
	add_attr(&r, PGAS_ATTR_JOB_ID, &bogus, 4);
	e = request(nl, &r);
	result(e == -EINVAL, "NIC_DEL with an attribute its policy does not have (JOB_ID): %d, want -EINVAL",
	       e);
	init_req(&r, fam, PGAS_CMD_NIC_DEL, NLM_F_ACK);
	add_attr(&r, PGAS_ATTR_NIC_ID, &v, 4);
	add_attr(&r, PGAS_ATTR_MAX + 5, &bogus, 4);
	e = request(nl, &r);
	result(e == -EINVAL, "NIC_DEL with an attribute the family does not have: %d, want -EINVAL", e);
	init_req(&r, fam, PGAS_CMD_NIC_DEL, NLM_F_ACK);
	v = 99;
	add_attr(&r, PGAS_ATTR_NIC_ID, &v, 2);
	e = request(nl, &r);
	result(e == -EINVAL, "NIC_DEL with a 2-byte NIC_ID: %d, want -EINVAL", e);
	init_req(&r, fam, PGAS_CMD_NIC_DEL, NLM_F_ACK);
	r.g.reserved = 1;
	add_attr(&r, PGAS_ATTR_NIC_ID, &v, 4);
	e = request(nl, &r);
	result(e == -EINVAL, "NIC_DEL with the header's reserved field set: %d, want -EINVAL", e);
}

/*
 * An endpoint dump stopped inside job J resumes after J went away: every
 * endpoint of the next job K is still listed (the vpid cursor belonged to
 * J, not to K).
 */
static void test_resume(int nl, unsigned short fam)
{
	enum { NJ = 150, NK = 8 };
	int jl = open(DEV, O_RDWR), kl = open(DEV, O_RDWR), jfd[NJ], kfd[NK], i, done;
	int fd = nl_open();	/* fresh: its first dump part is a small one */
	struct pgas_ioc_job_create j = create_job(jl, NJ), k = create_job(kl, NK);
	struct seen s;
	struct req r;

	for (i = 0; i < NJ; i++) {
		jfd[i] = open(DEV, O_RDWR);
		join(jfd[i], &j, i);
	}
	for (i = 0; i < NK; i++) {
		kfd[i] = open(DEV, O_RDWR);
		join(kfd[i], &k, i);
	}
	memset(&s, 0, sizeof(s));
	init_req(&r, fam, PGAS_CMD_EP_GET, NLM_F_DUMP);
	if (send(fd, &r, r.n.nlmsg_len, 0) < 0)
		return;
	/*
	 * Parts of at most 4 KiB (a fresh socket read with 4 KiB): netlink
	 * makes the next part as it hands one out, so part 2 is made now and
	 * part 3, after J has gone, from the cursor.
	 */
	done = dump_read(fd, &s, PGAS_ATTR_VPID, 1, 4096);
	result(!done && count_job(&s, j.job_id) > 0 && count_job(&s, j.job_id) < NJ,
	       "the first part of the dump stops inside job %u (%d of its %d endpoints)",
	       j.job_id, count_job(&s, j.job_id), NJ);
	for (i = 0; i < NJ; i++)
		close(jfd[i]);
	close(jl);	/* job J is gone */
	if (!done)
		dump_read(fd, &s, PGAS_ATTR_VPID, 0, 4096);
	result(count_job(&s, k.job_id) == NK && k.job_id > j.job_id,
	       "resumed after job %u went away: all %d endpoints of job %u listed (%d)",
	       j.job_id, NK, k.job_id, count_job(&s, k.job_id));
	for (i = 0; i < NK; i++)
		close(kfd[i]);
	close(kl);
	close(fd);
	(void)nl;
}

/*
 * Extra endpoints are dumped too: VPID and EID are the endpoint's number,
 * OWNER the rank of its process; the job's ENDPOINTS counts them.
 */
static void test_extras(int nl, unsigned short fam)
{
	struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = 2, .max_eps = 4 };
	struct pgas_ioc_job_join j = { .size = sizeof(j) };
	int lfd = open(DEV, O_RDWR), fds[3], i, ok = 1, found = 0;
	const unsigned int want[3] = { 0, 2, 3 };
	struct seen s;

	if (ioc(lfd, PGAS_IOC_JOB_CREATE, &c)) {
		result(0, "JOB_CREATE with max_eps: %s", strerror(errno));
		close(lfd);
		return;
	}
	for (i = 0; i < 3; i++) {
		fds[i] = open(DEV, O_RDWR);
		j.job_id = c.job_id;
		j.key = c.key;
		j.vpid = 0;
		j.flags = i ? PGAS_JOIN_EXTRA : 0;
		if (ioc(fds[i], PGAS_IOC_JOB_JOIN, &j))
			ok = 0;
	}
	dump(nl, fam, PGAS_CMD_EP_GET, &s);
	for (i = 0; i < s.n; i++) {
		if (s.job[i] != c.job_id)
			continue;
		/* In eid order: the rank, then its extras. */
		if (found >= 3 || s.eid[i] != want[found] || s.val[i] != want[found] ||
		    s.owner[i] != 0)
			ok = 0;
		found++;
	}
	result(ok && found == 3,
	       "EP_GET dumps rank 0 and its two extras: %d endpoints, EID 0 2 3, VPID = EID, OWNER 0",
	       found);
	dump(nl, fam, PGAS_CMD_JOB_GET, &s);
	for (i = 0, found = -1; i < s.n; i++)
		if (s.job[i] == c.job_id)
			found = (int)s.eps[i];
	result(found == 3, "JOB_GET counts them: ENDPOINTS %d, want 3", found);
	for (i = 0; i < 3; i++)
		close(fds[i]);
	close(lfd);
}

int main(void)
{
	int nl = nl_open();
	unsigned short fam = nl >= 0 ? family_id(nl) : 0;

	printf("TAP version 13\n");
	if (!fam) {
		printf("Bail out! no generic netlink family %s\n", PGAS_GENL_NAME);
		return 1;
	}
	test_visibility(nl, fam);
	test_strict(nl, fam);
	test_resume(nl, fam);
	test_extras(nl, fam);
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
