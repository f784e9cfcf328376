// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_ioctl - kselftest-style tests of /dev/pgas0 (TAP on stdout).
 *
 * Every ioctl with valid and garbage input gets its exact errno; mappings
 * are checked for bounds, cookies and job isolation; deregistration revokes
 * a peer's mapping (it then reads zeros); RLIMIT_MEMLOCK is enforced; a SIGKILLed
 * endpoint releases its pins and its peers are told; all counters return
 * to zero.  Run as root (it drops to uid 65534 in children).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgas_abi.h"
#include "pgas_layout.h"

#define DEV "/dev/pgas0"
#define SYS "/sys/class/misc/pgas0/"

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

/* ioctl returning -errno, so expectations read as exact errnos. */
static int ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

#define EXPECT(call, want)							\
	do {									\
		int got_ = (call);						\
		result(got_ == (want), "%s = %d (%s), want %d", #call, got_,	\
		       got_ ? strerror(-got_) : "ok", (want));			\
	} while (0)

static long sysfs(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), SYS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int open_dev(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("Bail out! open %s: %s\n", DEV, strerror(errno));
		exit(1);
	}
	return fd;
}

static struct pgas_ioc_job_create create_job(int fd, unsigned int nranks)
{
	struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = nranks };

	if (ioc(fd, PGAS_IOC_JOB_CREATE, &c))
		printf("# JOB_CREATE(%u) failed: %s\n", nranks, strerror(errno));
	return c;
}

static int join(int fd, const struct pgas_ioc_job_create *job, unsigned int vpid)
{
	struct pgas_ioc_job_join j = {
		.size = sizeof(j), .job_id = job->job_id, .vpid = vpid, .key = job->key,
	};

	return ioc(fd, PGAS_IOC_JOB_JOIN, &j);
}

static struct pgas_ioc_rings rings_arg(void)
{
	struct pgas_ioc_rings r = {
		.size = sizeof(r), .mbox_slots = 64, .notify_entries = 64,
		.bounce_bufs = 2, .bounce_size = 1024,
	};

	return r;
}

/* The sysfs counters that return to where they were when a test is done. */
struct counters {
	long endpoints, jobs, pinned_pages, ring_bytes;
};

static struct counters counters_now(void)
{
	struct counters c = {
		sysfs("endpoints"), sysfs("jobs"), sysfs("pinned_pages"), sysfs("ring_bytes"),
	};

	return c;
}

static void expect_counters(struct counters c0, const char *what)
{
	struct counters c = counters_now();

	result(!memcmp(&c, &c0, sizeof(c)),
	       "%s: endpoints %ld->%ld, jobs %ld->%ld, pinned_pages %ld->%ld, ring_bytes %ld->%ld",
	       what, c0.endpoints, c.endpoints, c0.jobs, c.jobs, c0.pinned_pages,
	       c.pinned_pages, c0.ring_bytes, c.ring_bytes);
}

/* REG of n fresh anonymous pages in this process. */
static int reg_pages(int fd, int n)
{
	char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
				    .addr = (uintptr_t)p, .len = (size_t)n * 4096 };

	return ioc(fd, PGAS_IOC_REG, &reg);
}

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Reads one byte; returns the signal it raised, or 0. */
static int touch(volatile const char *p)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_bus, old_segv;
	int sig;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig)
		(void)*p;
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

/* touch() in a child process; returns the signal it got (or 0). */
static int child_touch(volatile const char *p)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		(void)*p;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void test_job_create(void)
{
	int fd = open_dev();
	struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = 0 };
	char big[256];

	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, &c), -EINVAL);
	c.nranks = PGAS_MAX_ENDPOINTS + 1;
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, &c), -EINVAL);
	c.nranks = 2;
	c.flags = 1;
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, &c), -EINVAL);
	c.flags = 0;
	c.size = 4;
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, &c), -EINVAL);
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, (void *)16), -EFAULT);
	/* A larger struct is fine while its extra bytes are zero. */
	memset(big, 0, sizeof(big));
	c.size = sizeof(big);
	memcpy(big, &c, sizeof(c));
	big[200] = 1;
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, big), -E2BIG);
	EXPECT(ioc(fd, _IO(PGAS_IOC_MAGIC, 99), NULL), -ENOTTY);
	EXPECT(ioc(fd, _IO('x', 1), NULL), -ENOTTY);
	/* The whole command is matched: direction, type, number and size. */
	EXPECT(ioc(fd, _IO(PGAS_IOC_MAGIC, 1), &c), -ENOTTY);
	EXPECT(ioc(fd, _IOR(PGAS_IOC_MAGIC, 1, struct pgas_ioc_job_create), &c), -ENOTTY);
	EXPECT(ioc(fd, _IOW(PGAS_IOC_MAGIC, 1, struct pgas_ioc_job_create), &c), -ENOTTY);
	EXPECT(ioc(fd, _IOWR(PGAS_IOC_MAGIC, 1, big), big), -ENOTTY);
	EXPECT(ioc(fd, _IOWR(PGAS_IOC_MAGIC, 4, struct pgas_ioc_job_create), &c), -ENOTTY);
	EXPECT(ioc(fd, _IOW(PGAS_IOC_MAGIC, 5, struct pgas_ioc_reg), &c), -ENOTTY);
	EXPECT(ioc(fd, _IOWR('x', 1, struct pgas_ioc_job_create), &c), -ENOTTY);
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE + (1u << _IOC_SIZESHIFT), &c), -ENOTTY);
	{
		/* A size over a page is refused before any byte past it is read. */
		char *page2 = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct pgas_ioc_job_create *c2 = (void *)page2;

		*c2 = c;
		c2->size = 4097;
		EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, c2), -E2BIG);	/* zeros: was ok */
		c2->size = 0xffffffffu;
		EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, c2), -E2BIG);	/* was a 4 GiB scan */
		munmap(page2 + 4096, 4096);	/* a hole after the first page */
		c2->size = 8192;
		EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, c2), -E2BIG);	/* not EFAULT */
		munmap(page2, 3 * 4096);
	}
	big[200] = 0;
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, big), 0);
	memcpy(&c, big, sizeof(c));
	c.size = sizeof(c);
	result(c.job_id > 0 && c.key != 0, "job id %u and a non-zero key", c.job_id);
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, &c), -EBUSY);
	result(sysfs("jobs") == 1, "sysfs jobs = 1 (%ld)", sysfs("jobs"));
	close(fd);
	result(sysfs("jobs") == 0, "closing the launcher's file ends the job");
}

static void test_join(void)
{
	int lfd = open_dev(), a = open_dev(), b = open_dev(), c = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	struct pgas_ioc_job_join j = { .size = sizeof(j), .job_id = job.job_id, .key = job.key };

	j.key = job.key ^ 1;
	EXPECT(ioc(a, PGAS_IOC_JOB_JOIN, &j), -EACCES);
	j.key = job.key;
	j.job_id = job.job_id + 1000;
	EXPECT(ioc(a, PGAS_IOC_JOB_JOIN, &j), -ENOENT);
	j.job_id = job.job_id;
	j.vpid = 2;
	EXPECT(ioc(a, PGAS_IOC_JOB_JOIN, &j), -EINVAL);
	j.vpid = 0;
	j.pad = 7;
	EXPECT(ioc(a, PGAS_IOC_JOB_JOIN, &j), -EINVAL);
	j.pad = 0;
	EXPECT(ioc(a, PGAS_IOC_JOB_JOIN, &j), 0);
	result(j.nranks == 2 && j.vpid == 0, "join returns nranks 2, vpid 0");
	EXPECT(join(b, &job, 0), -EBUSY);
	EXPECT(join(a, &job, 1), -EBUSY);
	EXPECT(ioc(lfd, PGAS_IOC_JOB_JOIN, &j), -EBUSY);
	EXPECT(join(b, &job, 1), 0);
	EXPECT(join(c, &job, 1), -EBUSY);
	result(sysfs("endpoints") == 2, "sysfs endpoints = 2");
	close(b);
	EXPECT(join(c, &job, 1), 0);	/* a vpid is free again once its file is gone */
	close(a);
	close(c);
	close(lfd);
	result(sysfs("endpoints") == 0 && sysfs("jobs") == 0, "all endpoints and jobs gone");
}

static void test_rings_and_mmap(void)
{
	int lfd = open_dev(), a = open_dev(), b = open_dev(), other = open_dev(), olfd = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2), job2 = create_job(olfd, 1);
	struct pgas_ioc_rings r = rings_arg(), bad;
	struct pgas_ctrl_page *ctrl;
	void *m;

	EXPECT(ioc(a, PGAS_IOC_RINGS_CREATE, &r), -EBADFD);
	result(mmap(NULL, 4096, PROT_READ, MAP_SHARED, a, 0) == MAP_FAILED && errno == EBADFD,
	       "mmap before join: EBADFD");
	join(a, &job, 0);
	join(b, &job, 1);
	join(other, &job2, 0);
	bad = r;
	bad.mbox_slots = 100;
	EXPECT(ioc(a, PGAS_IOC_RINGS_CREATE, &bad), -EINVAL);
	bad = r;
	bad.bounce_size = 65;
	EXPECT(ioc(a, PGAS_IOC_RINGS_CREATE, &bad), -EINVAL);
	bad = r;
	bad.notify_entries = 1u << 21;
	EXPECT(ioc(a, PGAS_IOC_RINGS_CREATE, &bad), -EINVAL);
	bad = r;
	bad.bounce_bufs = 64;
	bad.bounce_size = 1u << 20;
	bad.mbox_slots = 32768;
	bad.notify_entries = 1u << 20;
	EXPECT(ioc(a, PGAS_IOC_RINGS_CREATE, &bad), -E2BIG);	/* 276 MiB: was allowed */
	EXPECT(ioc(a, PGAS_IOC_RINGS_CREATE, &r), 0);
	EXPECT(ioc(a, PGAS_IOC_RINGS_CREATE, &r), -EEXIST);
	EXPECT(ioc(b, PGAS_IOC_RINGS_CREATE, &r), 0);
	result(r.region_size > 4096 && r.cookie && !(r.cookie & 4095), "region %llu bytes, cookie %#llx",
	       (unsigned long long)r.region_size, (unsigned long long)r.cookie);

	/* a maps b's rings (same job); the control page says who it is. */
	m = mmap(NULL, r.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, a, (off_t)r.cookie);
	result(m != MAP_FAILED, "peer maps the rings: %s", m == MAP_FAILED ? strerror(errno) : "ok");
	if (m != MAP_FAILED) {
		ctrl = m;
		result(ctrl->magic == PGAS_ABI_MAGIC && ctrl->rank == 1 && ctrl->mbox_slots == 64,
		       "control page: magic, rank 1, 64 slots");
		munmap(m, r.region_size);
	}
	result(mmap(NULL, r.region_size + 4096, PROT_READ, MAP_SHARED, a, (off_t)r.cookie) ==
	       MAP_FAILED && errno == EINVAL, "mmap beyond the object: EINVAL");
	result(mmap(NULL, 4096, PROT_READ, MAP_SHARED, a, (off_t)r.cookie + 4096) ==
	       MAP_FAILED && errno == EINVAL, "mmap at a wrong cookie: EINVAL");
	result(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, a, (off_t)r.cookie) == MAP_FAILED &&
	       errno == EINVAL, "private mmap: EINVAL");
	result(mmap(NULL, 4096, PROT_READ, MAP_SHARED, other, (off_t)r.cookie) == MAP_FAILED &&
	       errno == EACCES, "an endpoint of another job: EACCES");
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, a, (off_t)r.cookie);
	result(m != MAP_FAILED && touch(m) == 0, "mapped page reads");
	result(child_touch(m) == SIGSEGV, "fork does not inherit the mapping (child faults)");
	close(b);	/* the owner goes: its rings are revoked everywhere */
	result(touch(m) == 0 && !((struct pgas_ctrl_page *)m)->magic,
	       "after the owner's file is closed the peer's mapping is revoked (reads zeros)");
	munmap(m, 4096);
	close(a);
	close(other);
	close(lfd);
	close(olfd);
	result(sysfs("ring_bytes") == 0, "ring memory freed (%ld bytes left)", sysfs("ring_bytes"));
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, text, strlen(text));
		close(fd);
	}
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* RINGS_CREATE with a geometry on a fresh endpoint of a fresh job of nranks. */
static int rings_in_job(unsigned int nranks, struct pgas_ioc_rings g)
{
	int lfd = open_dev(), fd = open_dev(), ret;
	struct pgas_ioc_job_create job = create_job(lfd, nranks);

	join(fd, &job, 0);
	ret = ioc(fd, PGAS_IOC_RINGS_CREATE, &g);
	close(fd);
	close(lfd);
	return ret;
}

/*
 * Ring regions: at most 64 MiB an endpoint and 4 GiB a job (nranks times
 * one region); charged to the memory cgroup (a region over memory.max is
 * ENOMEM, where it was allocated regardless) and, without CAP_IPC_LOCK,
 * to the user's RLIMIT_MEMLOCK together with the pins.
 */
static void test_ring_limits(void)
{
	struct pgas_ioc_rings libpgas = {	/* libpgas's default geometry */
		.size = sizeof(libpgas), .mbox_slots = 256, .notify_entries = 1024,
		.bounce_bufs = 8, .bounce_size = 8192,
	}, big = rings_arg();
	struct counters c0 = counters_now();
	int pipefd[2], status, r[6] = { 1, 1, 1, 1, 1, 1 };
	const char *cg = "/sys/fs/cgroup/pgas-test";
	pid_t pid;

	EXPECT(rings_in_job(128, libpgas), 0);		/* 16 MiB a rank, 2 GiB a job */
	EXPECT(rings_in_job(256, libpgas), -E2BIG);	/* 34 MiB a rank, 8.5 GiB a job */
	big.bounce_bufs = 16;
	big.bounce_size = 1u << 20;			/* 32 MiB of bounce buffers */
	EXPECT(rings_in_job(2, big), -E2BIG);		/* 64 MiB + 24 KiB */
	EXPECT(rings_in_job(1, big), 0);
	expect_counters(c0, "ring limits");

	/* A memory cgroup of 16 MiB: a 32 MiB region does not fit in it. */
	mkdir("/sys/fs/cgroup", 0755);
	mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir(cg, 0755);
	if (write_file("/sys/fs/cgroup/pgas-test/memory.max", "16777216")) {
		printf("ok %d - # SKIP no memory cgroup: %s\n", ++tests, strerror(errno));
	} else {
		if (pipe(pipefd))
			return;
		pid = fork();
		if (pid == 0) {
			if (write_file("/sys/fs/cgroup/pgas-test/cgroup.procs", "0"))
				_exit(3);
			r[0] = rings_in_job(1, big);
			r[1] = rings_in_job(1, rings_arg());
			if (write(pipefd[1], r, sizeof(r)) < 0)
				_exit(4);
			_exit(0);
		}
		close(pipefd[1]);
		if (read(pipefd[0], r, sizeof(r)) != sizeof(r))
			r[0] = 1;
		close(pipefd[0]);
		waitpid(pid, &status, 0);
		result(r[0] == -ENOMEM && r[1] == 0,
		       "memory.max 16 MiB: a 32 MiB region %d (want ENOMEM), a small one %d",
		       r[0], r[1]);
		expect_counters(c0, "after a region the memory cgroup refused");
	}
	rmdir(cg);

	/* uid 65534, RLIMIT_MEMLOCK 16 pages: rings and pins share it. */
	if (pipe(pipefd))
		return;
	chmod(DEV, 0666);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 16 * 4096, 16 * 4096 };
		struct pgas_ioc_rings g = rings_arg();	/* 6 pages at 1 rank */
		struct pgas_ioc_job_create own;
		int lfd, fd, fd2;

		setrlimit(RLIMIT_MEMLOCK, &rl);
		if (setgid(65534) || setuid(65534))
			_exit(3);
		lfd = open(DEV, O_RDWR);
		own = create_job(lfd, 2);
		fd = open(DEV, O_RDWR);
		fd2 = open(DEV, O_RDWR);
		join(fd, &own, 0);
		join(fd2, &own, 1);
		r[0] = ioc(fd, PGAS_IOC_RINGS_CREATE, &g);	/* 7 pages at 2 ranks */
		r[1] = reg_pages(fd, 10);			/* 17 */
		r[2] = reg_pages(fd, 9);			/* 16 */
		g = rings_arg();
		r[3] = ioc(fd2, PGAS_IOC_RINGS_CREATE, &g);	/* 23 */
		close(fd);					/* frees 16 */
		g = rings_arg();
		r[4] = ioc(fd2, PGAS_IOC_RINGS_CREATE, &g);	/* 7 */
		g = big;
		r[5] = rings_in_job(1, g);			/* 7 + 8197 */
		close(fd2);
		close(lfd);
		if (write(pipefd[1], r, sizeof(r)) < 0)
			_exit(4);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], r, sizeof(r)) != sizeof(r))
		r[0] = 1;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	chmod(DEV, 0660);
	result(r[0] == 0 && r[1] == -ENOMEM && r[2] == 0 && r[3] == -ENOMEM && r[4] == 0 &&
	       r[5] == -ENOMEM,
	       "RLIMIT_MEMLOCK 16 pages shared by rings and pins: rings(7) %d, +reg(10) %d, "
	       "+reg(9) %d, +rings(7) %d, after close rings(7) %d, rings(8197) %d "
	       "(want 0 ENOMEM 0 ENOMEM 0 ENOMEM)", r[0], r[1], r[2], r[3], r[4], r[5]);
	expect_counters(c0, "after the memlock tests");
}

static void test_registration(void)
{
	int lfd = open_dev(), a = open_dev(), b = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	size_t len = 16 * 4096;
	char *seg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
				    .addr = (uintptr_t)seg, .len = len };
	struct pgas_ioc_reg bad;
	struct pgas_ioc_dereg d = { .size = sizeof(d) };
	long pinned0 = sysfs("pinned_pages");
	char *peer;

	EXPECT(ioc(a, PGAS_IOC_REG, &reg), -EBADFD);
	join(a, &job, 0);
	join(b, &job, 1);
	bad = reg;
	bad.addr += 1;
	EXPECT(ioc(a, PGAS_IOC_REG, &bad), -EINVAL);
	bad = reg;
	bad.len = 0;
	EXPECT(ioc(a, PGAS_IOC_REG, &bad), -EINVAL);
	bad = reg;
	bad.len = 100;
	EXPECT(ioc(a, PGAS_IOC_REG, &bad), -EINVAL);
	bad = reg;
	bad.flags = 8;
	EXPECT(ioc(a, PGAS_IOC_REG, &bad), -EINVAL);
	bad = reg;
	bad.len = 1ull << 41;
	EXPECT(ioc(a, PGAS_IOC_REG, &bad), -EINVAL);
	bad = reg;
	bad.addr = 0x1000;	/* nothing mapped there */
	bad.len = 4096;
	EXPECT(ioc(a, PGAS_IOC_REG, &bad), -EFAULT);
	bad = reg;
	bad.addr = ~0xfffull;
	EXPECT(ioc(a, PGAS_IOC_REG, &bad), -EINVAL);
	bad = reg;
	bad.addr = 0xffff800000000000ull;	/* kernel space */
	EXPECT(ioc(a, PGAS_IOC_REG, &bad), -EFAULT);
	result(sysfs("pinned_pages") == pinned0, "failed registrations pin nothing");

	EXPECT(ioc(a, PGAS_IOC_REG, &reg), 0);
	result(sysfs("pinned_pages") == pinned0 + 16, "16 pages pinned");
	strcpy(seg + 4096 * 3 + 5, "written by the owner");
	peer = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, b, (off_t)reg.cookie);
	result(peer != MAP_FAILED, "peer maps the registration");
	if (peer != MAP_FAILED) {
		result(!strcmp(peer + 4096 * 3 + 5, "written by the owner"), "peer reads the owner's bytes");
		strcpy(peer + 4096 * 15, "written by the peer");
		result(!strcmp(seg + 4096 * 15, "written by the peer"), "owner reads the peer's bytes");
	}
	d.handle = reg.handle + 100;
	EXPECT(ioc(a, PGAS_IOC_DEREG, &d), -ENOENT);
	d.handle = 0;
	EXPECT(ioc(a, PGAS_IOC_DEREG, &d), -EINVAL);
	d.handle = reg.handle;
	d.flags = 1;
	EXPECT(ioc(a, PGAS_IOC_DEREG, &d), -EINVAL);
	d.flags = 0;
	EXPECT(ioc(b, PGAS_IOC_DEREG, &d), -ENOENT);	/* not b's registration */
	EXPECT(ioc(a, PGAS_IOC_DEREG, &d), 0);
	EXPECT(ioc(a, PGAS_IOC_DEREG, &d), -ENOENT);	/* double free */
	result(sysfs("pinned_pages") == pinned0, "deregistration unpins");
	if (peer != MAP_FAILED) {
		result(touch(peer) == 0 && !peer[4096 * 3 + 5],
		       "deregistration revokes the peer's mapping (reads zeros)");
		munmap(peer, len);
	}
	result(mmap(NULL, 4096, PROT_READ, MAP_SHARED, b, (off_t)reg.cookie) == MAP_FAILED &&
	       errno == EINVAL, "a deregistered cookie cannot be mapped");

	/* Read-only registrations cannot be mapped writable. */
	reg.flags = 0;
	EXPECT(ioc(a, PGAS_IOC_REG, &reg), 0);
	result(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, b, (off_t)reg.cookie) ==
	       MAP_FAILED && errno == EACCES, "read-only registration mapped writable: EACCES");
	peer = mmap(NULL, len, PROT_READ, MAP_SHARED, b, (off_t)reg.cookie);
	result(peer != MAP_FAILED && mprotect(peer, len, PROT_READ | PROT_WRITE) < 0,
	       "read-only mapping cannot be made writable");
	if (peer != MAP_FAILED)
		munmap(peer, len);
	close(a);	/* releases the registration */
	close(b);
	close(lfd);
	munmap(seg, len);
	result(sysfs("pinned_pages") == pinned0, "closing the owner unpins");
}

/* As uid 65534: another uid cannot join; RLIMIT_MEMLOCK binds registrations. */
static void test_uid_and_memlock(void)
{
	int lfd = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	int status, pipefd[2];
	char line[512];
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return;
	chmod(DEV, 0666);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 4 * 4096, 4 * 4096 };
		int fd, lfd2, r1, r2;
		struct pgas_ioc_job_create own;
		char *seg = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
					    .addr = (uintptr_t)seg, .len = 8 * 4096 };

		setrlimit(RLIMIT_MEMLOCK, &rl);
		if (setgid(65534) || setuid(65534))
			_exit(3);
		fd = open(DEV, O_RDWR);
		r1 = join(fd, &job, 0);
		lfd2 = open(DEV, O_RDWR);
		own = create_job(lfd2, 1);
		close(fd);
		fd = open(DEV, O_RDWR);
		join(fd, &own, 0);
		r2 = ioc(fd, PGAS_IOC_REG, &reg);
		reg.len = 4 * 4096;
		n = snprintf(line, sizeof(line), "%d %d %d\n", r1, r2, ioc(fd, PGAS_IOC_REG, &reg));
		if (write(pipefd[1], line, (size_t)n) < 0)
			_exit(4);
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = 0;
	waitpid(pid, &status, 0);
	chmod(DEV, 0660);
	{
		int r1 = 1, r2 = 1, r3 = 1;

		sscanf(line, "%d %d %d", &r1, &r2, &r3);
		result(r1 == -EPERM, "another uid joining root's job: EPERM (%d)", r1);
		result(r2 == -ENOMEM, "registering 8 pages with RLIMIT_MEMLOCK of 4: ENOMEM (%d)", r2);
		result(r3 == 0, "registering 4 pages within the limit: ok (%d)", r3);
	}
	close(pipefd[0]);
	close(lfd);
}

static int send_fd(int sock, int fd, int val)
{
	char buf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &val, .iov_len = sizeof(val) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		msg.msg_control = buf;
		msg.msg_controllen = sizeof(buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, 0) == sizeof(val) ? 0 : -1;
}

/* Receives val and, if one came with it, a file descriptor (else -1). */
static int recv_fd(int sock, int *val)
{
	char buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = val, .iov_len = sizeof(*val) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = buf, .msg_controllen = sizeof(buf) };
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(sock, &msg, 0) != sizeof(*val))
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * One user, RLIMIT_MEMLOCK of 16 pages, pins that outlive the process
 * that made them: children register 8 pages each and exit while the
 * endpoint's file lives on, (a) inherited by fork without exec, (b) a
 * child's own endpoint passed back with SCM_RIGHTS.  Six rounds of each;
 * pinned pages must never exceed 16 in total (the old module let every
 * round pin: the charge died with each child's mm), every refusal must
 * be ENOMEM, or EACCES where the child is not the process that joined the
 * endpoint (fork without exec: an endpoint serves its owner only), and
 * once the files are closed the user can pin 16 pages again.
 * Runs as uid 65534; prints "rounds ok refused other maxpinned after".
 */
static void memlock_holder(int variant, int report)
{
	struct rlimit rl = { 16 * 4096, 16 * 4096 };
	int lfd, fd = -1, held[8], sv[2], i, ok = 0, refused = 0, other = 0, n;
	long pinned0 = sysfs("pinned_pages"), max = 0, after;
	struct pgas_ioc_job_create job;
	char line[128];

	setrlimit(RLIMIT_MEMLOCK, &rl);
	if (setgid(65534) || setuid(65534))
		_exit(3);
	lfd = open(DEV, O_RDWR);
	job = create_job(lfd, 8);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		_exit(4);
	if (variant == 0) {
		fd = open(DEV, O_RDWR);
		join(fd, &job, 7);
	}
	for (i = 0; i < 6; i++) {
		int ret = 1, status;
		pid_t pid = fork();

		if (pid == 0) {
			int cfd = fd;

			if (variant == 1) {
				cfd = open(DEV, O_RDWR);
				join(cfd, &job, (unsigned int)i);
			}
			ret = reg_pages(cfd, 8);
			send_fd(sv[1], variant == 1 ? cfd : -1, ret);
			_exit(0);	/* the registering process is gone */
		}
		held[i] = recv_fd(sv[0], &ret);
		waitpid(pid, &status, 0);
		if (!ret)
			ok++;
		else if (ret == -ENOMEM || ret == -EACCES)
			refused++;
		else
			other++;
		if (sysfs("pinned_pages") - pinned0 > max)
			max = sysfs("pinned_pages") - pinned0;
	}
	for (i = 0; i < 6; i++)
		if (held[i] >= 0)
			close(held[i]);
	if (fd >= 0)
		close(fd);
	/* Everything closed: the user's charge is back to 0. */
	fd = open(DEV, O_RDWR);
	join(fd, &job, 7);
	after = reg_pages(fd, 16);
	close(fd);
	close(lfd);
	n = snprintf(line, sizeof(line), "%d %d %d %ld %ld\n", ok, refused, other, max, after);
	if (write(report, line, (size_t)n) < 0)
		_exit(5);
	_exit(0);
}

/*
 * Two live processes of one user, each on its own endpoint: the limit is
 * the user's, so with 16 pages the second one's 10 pages are ENOMEM (the
 * old per-mm charge gave each process 16); once the first has exited, 10
 * pages fit again.  Prints "first second after".
 */
static void memlock_two_processes(int report)
{
	struct rlimit rl = { 16 * 4096, 16 * 4096 };
	int lfd, fd, sync[2], back[2], r[3] = { 1, 1, 1 }, n, status;
	struct pgas_ioc_job_create job;
	char line[64], c = 0;
	pid_t pid;

	setrlimit(RLIMIT_MEMLOCK, &rl);
	if (setgid(65534) || setuid(65534) || pipe(sync) || pipe(back))
		_exit(3);
	lfd = open(DEV, O_RDWR);
	job = create_job(lfd, 2);
	pid = fork();
	if (pid == 0) {
		int cfd = open(DEV, O_RDWR);

		join(cfd, &job, 1);
		r[0] = reg_pages(cfd, 10);
		if (write(back[1], &r[0], sizeof(r[0])) < 0 || read(sync[0], &c, 1) < 0)
			_exit(1);
		_exit(0);	/* its endpoint and pins go with it */
	}
	if (read(back[0], &r[0], sizeof(r[0])) != sizeof(r[0]))
		r[0] = 1;
	fd = open(DEV, O_RDWR);
	join(fd, &job, 0);
	r[1] = reg_pages(fd, 10);
	if (write(sync[1], &c, 1) < 0)
		_exit(4);
	waitpid(pid, &status, 0);
	r[2] = reg_pages(fd, 10);
	close(fd);
	close(lfd);
	n = snprintf(line, sizeof(line), "%d %d %d\n", r[0], r[1], r[2]);
	if (write(report, line, (size_t)n) < 0)
		_exit(5);
	_exit(0);
}

static void test_memlock_outlives_process(void)
{
	static const char *const name[] = { "fork without exec", "SCM_RIGHTS" };
	int variant;

	chmod(DEV, 0666);
	for (variant = 0; variant < 2; variant++) {
		int pipefd[2], status, ok = -1, refused = -1, other = -1;
		long max = -1, after = -1;
		char line[128];
		ssize_t n;
		pid_t pid;

		if (pipe(pipefd))
			break;
		pid = fork();
		if (pid == 0) {
			close(pipefd[0]);
			memlock_holder(variant, pipefd[1]);
		}
		close(pipefd[1]);
		n = read(pipefd[0], line, sizeof(line) - 1);
		line[n > 0 ? n : 0] = 0;
		close(pipefd[0]);
		waitpid(pid, &status, 0);
		sscanf(line, "%d %d %d %ld %ld", &ok, &refused, &other, &max, &after);
		result(max <= 16 && other == 0 && ok + refused == 6,
		       "RLIMIT_MEMLOCK 16 pages, pins outliving their process (%s): at most "
		       "%ld pages pinned (want <= 16), %d of 6 rounds pinned, %d refused, %d other",
		       name[variant], max, ok, refused, other);
		result(after == 0, "after the files are closed the user pins 16 pages again (%ld)",
		       after);
	}
	{
		int pipefd[2], status, r[3] = { 1, 1, 1 };
		char line[64];
		ssize_t n;
		pid_t pid;

		if (!pipe(pipefd)) {
			pid = fork();
			if (pid == 0) {
				close(pipefd[0]);
				memlock_two_processes(pipefd[1]);
			}
			close(pipefd[1]);
			n = read(pipefd[0], line, sizeof(line) - 1);
			line[n > 0 ? n : 0] = 0;
			close(pipefd[0]);
			waitpid(pid, &status, 0);
			sscanf(line, "%d %d %d", &r[0], &r[1], &r[2]);
			result(r[0] == 0 && r[1] == -ENOMEM && r[2] == 0,
			       "RLIMIT_MEMLOCK 16 pages is the user's: 10 pages in one process %d, "
			       "10 more in another %d (want ENOMEM), again after the first "
			       "exited %d", r[0], r[1], r[2]);
		}
	}
	chmod(DEV, 0660);
}

/* A SIGKILLed endpoint: pins released, the peer told, nothing leaks. */
static void test_killed_endpoint(void)
{
	int lfd = open_dev(), a = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	struct pgas_ioc_rings r = rings_arg();
	long pinned0 = sysfs("pinned_pages"), gone0 = sysfs("peer_gone");
	int ready[2], status;
	struct pgas_ctrl_page *ctrl;
	struct pgas_notify_entry *ring;
	struct pgas_region_layout l;
	char *seg_map = MAP_FAILED;
	unsigned long long cookie = 0;
	pid_t pid;

	join(a, &job, 0);
	ioc(a, PGAS_IOC_RINGS_CREATE, &r);
	ctrl = mmap(NULL, r.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, a, (off_t)r.cookie);
	if (pipe(ready))
		return;
	pid = fork();
	if (pid == 0) {
		int fd = open_dev();
		char *seg = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
					    .addr = (uintptr_t)seg, .len = 64 * 4096 };
		struct pgas_ioc_rings r2 = rings_arg();

		join(fd, &job, 1);
		ioc(fd, PGAS_IOC_RINGS_CREATE, &r2);
		ioc(fd, PGAS_IOC_REG, &reg);
		memset(seg, 0x5a, 64 * 4096);
		if (write(ready[1], &reg.cookie, sizeof(reg.cookie)) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &cookie, sizeof(cookie)) != sizeof(cookie))
		cookie = 0;
	seg_map = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, a, (off_t)cookie);
	result(seg_map != MAP_FAILED && seg_map[4096 * 63] == 0x5a, "peer's segment mapped");
	result(sysfs("pinned_pages") == pinned0 + 64, "64 pages pinned by the child");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	result(sysfs("pinned_pages") == pinned0, "killed endpoint's pages unpinned (%ld)",
	       sysfs("pinned_pages"));
	result(sysfs("peer_gone") == gone0 + 1, "one peer-gone event");
	if (ctrl != MAP_FAILED) {
		/* ABI 2: on the kernel page, nothing in the peer-writable ring. */
		const struct pgas_kern_page *kp = mmap(NULL, 4096, PROT_READ, MAP_SHARED, a,
						       (off_t)r.kern_cookie);

		pgas_region_layout(64, 64, 2, 1024, 2, &l);
		ring = (struct pgas_notify_entry *)((char *)ctrl + l.notify_off);
		result(kp != MAP_FAILED && kp->peers_gone == 1 && kp->gone_tail == 1 &&
		       kp->gone[0].vpid == 1 && kp->gone[0].died == 1 && !ring[0].status,
		       "the survivor's kernel page says rank 1 died");
		if (kp != MAP_FAILED)
			munmap((void *)kp, 4096);
		munmap(ctrl, r.region_size);
	}
	if (seg_map != MAP_FAILED) {
		result(touch(seg_map) == 0 && !seg_map[4096 * 63],
		       "the dead rank's segment is revoked (reads zeros)");
		munmap(seg_map, 64 * 4096);
	}
	close(ready[0]);
	close(a);
	close(lfd);
}

/*
 * Lock order: REG/DEREG (accounting, pinning, revocation, and faults on
 * the argument itself, which lives in a page dropped before every call)
 * in one thread, mmap/munmap in another and JOIN/RINGS_CREATE in a third,
 * all on one file.  ->mmap runs under mmap_lock; if it waited for a lock
 * an ioctl holds while it takes mmap_lock, the threads would end in D
 * state, unkillable.  The stress runs in a child that a watchdog reports
 * instead of waiting for it forever.
 */
struct stress {
	int fd;
	atomic_int stop;
	unsigned long long rings_cookie;
	atomic_ullong reg_cookie;
	char *seg;			/* 4 pages, registered and deregistered */
	char *args;			/* one shared page: the ioctl arguments */
	atomic_long regs, maps, others;
	atomic_int errors;
};

static void drop_page(void *p)
{
	madvise(p, 4096, MADV_DONTNEED);	/* shared: the next access faults */
}

static void *stress_reg(void *p)
{
	struct stress *s = p;
	struct pgas_ioc_reg *reg = (struct pgas_ioc_reg *)s->args;
	struct pgas_ioc_dereg *d = (struct pgas_ioc_dereg *)(s->args + 256);

	while (!atomic_load(&s->stop)) {
		reg->size = sizeof(*reg);
		reg->flags = PGAS_REG_WRITE;
		reg->addr = (uintptr_t)s->seg;
		reg->len = 4 * 4096;
		drop_page(s->args);
		if (ioc(s->fd, PGAS_IOC_REG, reg)) {
			atomic_fetch_add(&s->errors, 1);
			continue;
		}
		atomic_store(&s->reg_cookie, reg->cookie);
		d->size = sizeof(*d);
		d->flags = 0;
		d->handle = reg->handle;
		drop_page(s->args);
		if (ioc(s->fd, PGAS_IOC_DEREG, d))
			atomic_fetch_add(&s->errors, 1);
		atomic_fetch_add(&s->regs, 1);
	}
	return NULL;
}

static void *stress_mmap(void *p)
{
	struct stress *s = p;
	void *m;

	while (!atomic_load(&s->stop)) {
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
			 (off_t)s->rings_cookie);
		if (m == MAP_FAILED) {
			atomic_fetch_add(&s->errors, 1);
			continue;
		}
		munmap(m, 4096);
		/* The registration may be gone already: EINVAL or ENXIO. */
		m = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
			 (off_t)atomic_load(&s->reg_cookie));
		if (m != MAP_FAILED)
			munmap(m, 4 * 4096);
		else if (errno != EINVAL && errno != ENXIO)
			atomic_fetch_add(&s->errors, 1);
		atomic_fetch_add(&s->maps, 1);
	}
	return NULL;
}

static void *stress_other(void *p)
{
	struct stress *s = p;
	struct pgas_ioc_job_join *j = (struct pgas_ioc_job_join *)(s->args + 1024);
	struct pgas_ioc_rings *r = (struct pgas_ioc_rings *)(s->args + 2048);

	while (!atomic_load(&s->stop)) {
		*j = (struct pgas_ioc_job_join){ .size = sizeof(*j) };
		*r = rings_arg();
		drop_page(s->args);
		if (ioc(s->fd, PGAS_IOC_JOB_JOIN, j) != -EBUSY)
			atomic_fetch_add(&s->errors, 1);
		drop_page(s->args);
		if (ioc(s->fd, PGAS_IOC_RINGS_CREATE, r) != -EEXIST)
			atomic_fetch_add(&s->errors, 1);
		atomic_fetch_add(&s->others, 1);
	}
	return NULL;
}

static void stress_child(int report, int seconds)
{
	int lfd = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 1);
	struct pgas_ioc_rings r = rings_arg();
	struct stress s = { .fd = open_dev() };
	pthread_t t[3];
	char line[128];
	int n;

	s.seg = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s.args = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (join(s.fd, &job, 0) || ioc(s.fd, PGAS_IOC_RINGS_CREATE, &r))
		_exit(2);
	s.rings_cookie = r.cookie;
	pthread_create(&t[0], NULL, stress_reg, &s);
	pthread_create(&t[1], NULL, stress_mmap, &s);
	pthread_create(&t[2], NULL, stress_other, &s);
	sleep(seconds);
	atomic_store(&s.stop, 1);
	for (n = 0; n < 3; n++)
		pthread_join(t[n], NULL);
	close(s.fd);
	close(lfd);
	n = snprintf(line, sizeof(line), "%ld %ld %ld %d\n", atomic_load(&s.regs),
		     atomic_load(&s.maps), atomic_load(&s.others), atomic_load(&s.errors));
	if (write(report, line, (size_t)n) < 0)
		_exit(3);
	_exit(0);
}

/* Prints each thread's state and kernel stack (a hung child's D state). */
static void dump_threads(pid_t pid)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd),
		 "for t in /proc/%d/task/*; do grep -h State: $t/status; cat $t/stack; done"
		 " 2>&1 | sed 's/^/# /'", (int)pid);
	fflush(stdout);
	if (system(cmd))
		printf("# no task state for %d\n", (int)pid);
}

static void test_lock_order(void)
{
	int seconds = 4, pipefd[2], status = 0, i;
	long regs = 0, maps = 0, others = 0;
	int errors = -1, done = 0;
	char line[128];
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		stress_child(pipefd[1], seconds);
	}
	close(pipefd[1]);
	/* The watchdog: a deadlock fails the test instead of hanging the VM. */
	for (i = 0; i < (seconds + 60) * 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			done = 1;
			break;
		}
		usleep(100 * 1000);
	}
	if (!done) {
		result(0, "REG/DEREG vs mmap/munmap vs JOIN/RINGS on one file: "
		       "threads still stuck %d s after the stop (deadlock)", 60);
		dump_threads(pid);
		close(pipefd[0]);
		return;	/* unkillable in D state: leave it */
	}
	n = read(pipefd[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = 0;
	close(pipefd[0]);
	sscanf(line, "%ld %ld %ld %d", &regs, &maps, &others, &errors);
	result(WIFEXITED(status) && WEXITSTATUS(status) == 0 && errors == 0 && regs > 0 &&
	       maps > 0 && others > 0,
	       "REG/DEREG vs mmap/munmap vs JOIN/RINGS on one file for %d s: no deadlock "
	       "(%ld regs, %ld maps, %ld others, %d errors, status %#x)", seconds, regs, maps,
	       others, errors, status);
	result(sysfs("pinned_pages") == 0 && sysfs("endpoints") == 0,
	       "after the stress: nothing pinned, no endpoint");
}

/* REG of len bytes at p with flags; deregistered again on success. */
static int reg_mem(int fd, void *p, size_t len, unsigned int flags)
{
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = flags,
				    .addr = (uintptr_t)p, .len = len };
	struct pgas_ioc_dereg d = { .size = sizeof(d) };
	int ret = ioc(fd, PGAS_IOC_REG, &reg);

	d.handle = reg.handle;
	if (!ret)
		ioc(fd, PGAS_IOC_DEREG, &d);
	return ret;
}

/* A file of len bytes (filled in) at path, mapped with flags; NULL if not. */
static void *map_file(const char *path, size_t len, int flags)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *p;

	if (fd < 0 || ftruncate(fd, (off_t)len))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0x11, len);
	return p;
}

/*
 * A read-only pin of an untouched private file mapping: a plain read-only
 * pin on 6.1 gets the file's page-cache pages, which pgas.ko refuses;
 * pgas.ko now pins such a mapping as a write would fault it (see
 * test_reg_zero_page), so anonymous copies, which are fine.  Either is
 * right; what must
 * never happen is a pin of the file's own pages, which would show as the
 * mapping following a later write to the file.
 */
static void test_reg_private_readonly(int a, int fd, const char *p, size_t len)
{
	const char x = 0x5a;
	int ret = reg_mem(a, (void *)p, len, 0);

	if (ret == -EOPNOTSUPP) {
		result(1, "read-only REG of a private ramfs mapping: -EOPNOTSUPP (page-cache pages)");
		return;
	}
	EXPECT(ret, 0);
	result(pwrite(fd, &x, 1, 0) == 1 && p[0] != x,
	       "read-only REG of a private ramfs mapping: 0, and what it pinned are copies (p[0] %#x after the file's write of %#x)",
	       p[0], x);
}

/*
 * Only memory without writeback may be pinned for peers: anonymous, shmem
 * (memfd, tmpfs, shared anonymous) and hugetlb.  A file of another
 * filesystem (ramfs here: the VM has no disk; any page-cache file is
 * refused the same way) is EOPNOTSUPP, writable or not; its private
 * mapping only once written (then its pages are anonymous copies).
 */
static void test_reg_memory_kinds(void)
{
	const size_t len = 4 * 4096;
	long pinned0 = sysfs("pinned_pages");
	int lfd = open_dev(), a = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 1);
	const char *dir = "/tmp/pgas-ramfs";
	char *p, *anon, *shared, *mfd_map, *hp;
	int mfd;

	join(a, &job, 0);
	anon = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	EXPECT(reg_mem(a, anon, len, PGAS_REG_WRITE), 0);
	EXPECT(reg_mem(a, anon, len, 0), 0);	/* read-only, never touched */
	shared = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	EXPECT(reg_mem(a, shared, len, PGAS_REG_WRITE), 0);
	mfd = memfd_create("pgas", 0);
	mfd_map = mfd >= 0 && !ftruncate(mfd, len) ?
		  mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0) : MAP_FAILED;
	result(mfd_map != MAP_FAILED, "memfd mapped");
	if (mfd_map != MAP_FAILED) {
		EXPECT(reg_mem(a, mfd_map, len, PGAS_REG_WRITE), 0);
		munmap(mfd_map, len);
	}
	if (mfd >= 0)
		close(mfd);
	p = map_file("/dev/shm/pgas-reg", len, MAP_SHARED);	/* tmpfs */
	result(p != NULL, "tmpfs file mapped");
	if (p) {
		EXPECT(reg_mem(a, p, len, PGAS_REG_WRITE), 0);
		munmap(p, len);
	}
	unlink("/dev/shm/pgas-reg");

	mkdir(dir, 0700);
	if (mount("ramfs", dir, "ramfs", 0, NULL)) {
		result(0, "mount ramfs on %s: %s", dir, strerror(errno));
	} else {
		p = map_file("/tmp/pgas-ramfs/f", len, MAP_SHARED);
		result(p != NULL, "ramfs file mapped shared");
		if (p) {
			EXPECT(reg_mem(a, p, len, PGAS_REG_WRITE), -EOPNOTSUPP);
			EXPECT(reg_mem(a, p, len, 0), -EOPNOTSUPP);
			munmap(p, len);
		}
		/* Anonymous pages followed by the file's: the whole range is refused. */
		p = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		mfd = open("/tmp/pgas-ramfs/f", O_RDWR);
		if (p != MAP_FAILED && mfd >= 0 &&
		    mmap(p + len, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mfd, 0) !=
		    MAP_FAILED) {
			memset(p, 1, len);
			EXPECT(reg_mem(a, p, 2 * len, PGAS_REG_WRITE), -EOPNOTSUPP);
			result(sysfs("pinned_pages") == pinned0,
			       "the anonymous half is unpinned again");
			munmap(p, 2 * len);
		}
		if (mfd >= 0)
			close(mfd);
		p = map_file("/tmp/pgas-ramfs/g", len, MAP_PRIVATE);
		result(p != NULL, "ramfs file mapped private");
		if (p) {
			EXPECT(reg_mem(a, p, len, PGAS_REG_WRITE), 0);	/* written: copies */
			munmap(p, len);
			/* Read-only and untouched: the file's own pages. */
			mfd = open("/tmp/pgas-ramfs/g", O_RDWR);
			p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, mfd, 0);
			if (p != MAP_FAILED)
				test_reg_private_readonly(a, mfd, p, len);
			close(mfd);
			if (p != MAP_FAILED)
				munmap(p, len);
		}
		umount2(dir, MNT_DETACH);
	}
	rmdir(dir);

	/* hugetlb, if the VM can find two huge pages. */
	system("echo 2 > /proc/sys/vm/nr_hugepages");
	hp = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (hp == MAP_FAILED) {
		printf("ok %d - # SKIP hugetlb: %s\n", ++tests, strerror(errno));
	} else {
		hp[0] = 1;
		EXPECT(reg_mem(a, hp, 2 << 20, PGAS_REG_WRITE), 0);
		munmap(hp, 2 << 20);
	}
	system("echo 0 > /proc/sys/vm/nr_hugepages");
	munmap(anon, len);
	munmap(shared, len);
	close(a);
	close(lfd);
	result(sysfs("pinned_pages") == pinned0, "memory kinds: nothing left pinned (%ld)",
	       sysfs("pinned_pages") - pinned0);
}

/* KPF_* of /proc/kpageflags (linux/kernel-page-flags.h). */
#define KPF_THP_BIT		22
#define KPF_ZERO_PAGE_BIT	24

/*
 * How many of the n pages at p are the zero page (4 KiB or huge), and how
 * many of those the huge one, from /proc/self/pagemap and /proc/kpageflags
 * (root); -1 if they cannot be read.
 */
static int zero_pages(const char *p, size_t n, int *huge)
{
	int pm = open("/proc/self/pagemap", O_RDONLY), kf = open("/proc/kpageflags", O_RDONLY);
	int zero = 0;
	size_t i;

	*huge = 0;
	for (i = 0; pm >= 0 && kf >= 0 && i < n; i++) {
		unsigned long long e, f;

		if (pread(pm, &e, 8, (off_t)((uintptr_t)p / 4096 + i) * 8) != 8) {
			zero = -1;
			break;
		}
		if (!(e >> 63))
			continue;	/* not present */
		if (pread(kf, &f, 8, (off_t)(e & ((1ULL << 55) - 1)) * 8) != 8) {
			zero = -1;
			break;
		}
		if (f >> KPF_ZERO_PAGE_BIT & 1) {
			zero++;
			*huge += f >> KPF_THP_BIT & 1;
		}
	}
	if (pm < 0 || kf < 0)
		zero = -1;
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return zero;
}

/*
 * Read-only REG of anonymous memory that was only read (issue 21, item 5):
 * its pages are the zero page, the huge one under THP.  No registration
 * pins either: it registers (6.1 refused the huge zero page with
 * EOPNOTSUPP), as often as asked, and the pages it pinned are the
 * process's own, so a write the process makes afterwards is what a peer
 * reads (a pinned zero page would stay zero for the peer).  With
 * MADV_HUGEPAGE (THP may be "madvise" or "always"), MADV_NOHUGEPAGE, and
 * mprotect'ed read-only (the pin faults in private pages all the same).
 */
static void test_reg_zero_page(void)
{
	static const struct {
		int advice, prot;
		const char *name;
	} kinds[] = {
		{ MADV_HUGEPAGE, PROT_READ | PROT_WRITE, "MADV_HUGEPAGE" },
		{ MADV_NOHUGEPAGE, PROT_READ | PROT_WRITE, "MADV_NOHUGEPAGE" },
		{ MADV_NOHUGEPAGE, PROT_READ, "PROT_READ" },
	};
	const size_t len = 4 << 20, huge = 2 << 20, n = len / 4096;
	const int nregs = 16;
	long pinned0 = sysfs("pinned_pages");
	int lfd = open_dev(), a = open_dev(), b = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	char thp[128] = "?";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	size_t k, i;

	if (f) {
		if (!fgets(thp, sizeof(thp), f))
			strcpy(thp, "?");
		thp[strcspn(thp, "\n")] = 0;
		fclose(f);
	}
	join(a, &job, 0);
	join(b, &job, 1);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct pgas_ioc_reg reg[16];
		char *raw = mmap(NULL, len + huge, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *m = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
		volatile const char *v = (volatile const char *)m;
		int zero0, huge0, zero1, huge1, ok = 0, bad = 0, err = 0;
		char *peer = MAP_FAILED;

		if (raw == MAP_FAILED) {
			result(0, "%s: mmap: %s", kinds[k].name, strerror(errno));
			continue;
		}
		madvise(m, len, kinds[k].advice);
		for (i = 0; i < n; i++)
			(void)v[i * 4096];	/* read faults: the zero page */
		mprotect(m, len, kinds[k].prot);
		zero0 = zero_pages(m, n, &huge0);
		result(zero0 == (int)n && (kinds[k].advice != MADV_HUGEPAGE || strstr(thp, "[never]") ||
					   huge0 == (int)n),
		       "%s: 4 MiB read, never written: %d of %zu pages are the zero page, %d the huge one (THP %s)",
		       kinds[k].name, zero0, n, huge0, thp);
		for (i = 0; i < (size_t)nregs; i++) {
			reg[i] = (struct pgas_ioc_reg){ .size = sizeof(reg[i]), .addr = (uintptr_t)m,
							.len = len };
			err = ioc(a, PGAS_IOC_REG, &reg[i]);
			if (err)
				break;
			ok++;
		}
		zero1 = zero_pages(m, n, &huge1);
		result(ok == nregs && zero1 == 0,
		       "%s: read-only REG %d times: %d succeeded (last %d), and %d pages are still the zero page (%d huge; want 0: pinned are its own pages)",
		       kinds[k].name, nregs, ok, err, zero1, huge1);
		if (ok)
			peer = mmap(NULL, len, PROT_READ, MAP_SHARED, b, (off_t)reg[ok - 1].cookie);
		mprotect(m, len, PROT_READ | PROT_WRITE);
		for (i = 0; i < n; i++)
			m[i * 4096 + 7] = (char)(i | 1);
		for (i = 0; peer != MAP_FAILED && i < n; i++)
			bad += peer[i * 4096 + 7] != (char)(i | 1);
		result(peer != MAP_FAILED && !bad,
		       "%s: a peer reads what the owner wrote after registering (%d of %zu pages stale)",
		       kinds[k].name, bad, n);
		if (peer != MAP_FAILED)
			munmap(peer, len);
		for (i = 0; i < (size_t)ok; i++) {
			struct pgas_ioc_dereg d = { .size = sizeof(d), .handle = reg[i].handle };

			EXPECT(ioc(a, PGAS_IOC_DEREG, &d), 0);
		}
		munmap(raw, len + huge);
	}
	close(a);
	close(b);
	close(lfd);
	result(sysfs("pinned_pages") == pinned0, "zero page: nothing left pinned (%ld)",
	       sysfs("pinned_pages") - pinned0);
}

/*
 * An endpoint has at most PGAS_MAX_REGS (65536) registrations: one page
 * registered that often, then ENOSPC with nothing more pinned; a freed
 * handle is reused; every counter returns when the file is closed.
 */
static void test_reg_handles(void)
{
	struct counters c0 = counters_now();
	int lfd = open_dev(), a = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 1);
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .addr = (uintptr_t)page, .len = 4096 };
	struct pgas_ioc_dereg d = { .size = sizeof(d) };
	int i, ret = 0;

	join(a, &job, 0);
	page[0] = 1;
	for (i = 0; i < 65536 && !ret; i++)
		ret = ioc(a, PGAS_IOC_REG, &reg);
	result(!ret && i == 65536, "65536 registrations of one endpoint (%d, %s)", i, strerror(-ret));
	EXPECT(ioc(a, PGAS_IOC_REG, &reg), -ENOSPC);
	result(sysfs("pinned_pages") == c0.pinned_pages + 65536,
	       "the refused one pinned nothing (%ld pages)", sysfs("pinned_pages") - c0.pinned_pages);
	d.handle = 77;
	EXPECT(ioc(a, PGAS_IOC_DEREG, &d), 0);
	EXPECT(ioc(a, PGAS_IOC_REG, &reg), 0);
	result(reg.handle == 77, "a freed handle is reused (%llu)", (unsigned long long)reg.handle);
	close(a);
	close(lfd);
	munmap(page, 4096);
	expect_counters(c0, "after 65537 registrations and their endpoint's end");
}

/* REG's result for [addr, addr + len) on an endpoint of its own job. */
static int reg_range(int fd, unsigned long long addr, unsigned long long len)
{
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
				    .addr = addr, .len = len };
	int ret = ioc(fd, PGAS_IOC_REG, &reg);
	struct pgas_ioc_dereg d = { .size = sizeof(d), .handle = reg.handle };

	if (!ret)
		ioc(fd, PGAS_IOC_DEREG, &d);
	return ret;
}

/*
 * The exact boundaries of REG's length and address.  A length of 2^40
 * once reached kvmalloc_node()'s size WARN (a panic with panic_on_warn)
 * and 2^40 - 4096 an allocation of 2 GiB before any limit was checked.
 * Runs last: on a module with that defect the VM dies here.
 */
static void test_reg_bounds(void)
{
	const unsigned long long tib = 1ull << 40;
	int lfd = open_dev(), a = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 1);
	/*
	 * 4 pages followed by 64 MiB of PROT_NONE (GUP stops at the fifth
	 * page), low enough that addr + 1 TiB is still user space.
	 */
	char *res = mmap((void *)(1ull << 32), (64 << 20) + 4 * 4096, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	char *seg = mmap(res, 4 * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	unsigned long long s = (uintptr_t)seg;
	long pinned0 = sysfs("pinned_pages");
	int pipefd[2], status, r[4] = { 1, 1, 1, 1 };
	pid_t pid;

	join(a, &job, 0);
	EXPECT(reg_range(a, s, 4 * 4096), 0);
	EXPECT(reg_range(a, s, 0), -EINVAL);
	EXPECT(reg_range(a, s + 1, 4096), -EINVAL);
	EXPECT(reg_range(a, s, 4096 + 1), -EINVAL);
	EXPECT(reg_range(a, s, 4095), -EINVAL);
	EXPECT(reg_range(a, s, ~0ull), -EINVAL);			/* ULONG_MAX */
	EXPECT(reg_range(a, s, ~0xfffull), -EINVAL);			/* aligned, > 1 TiB */
	EXPECT(reg_range(a, s, tib + 4096), -EINVAL);			/* just over */
	EXPECT(reg_range(a, ~0xfffull, 2 * 4096), -EINVAL);		/* addr + len wraps */
	EXPECT(reg_range(a, ~0xfffull - 4096, 2 * 4096), -EINVAL);	/* ends at 2^64 */
	EXPECT(reg_range(a, 0x7ffffffff000ull, tib), -EFAULT);		/* past user space */
	/* Within the ABI's bound but more than the machine has: ENOMEM at once. */
	EXPECT(reg_range(a, s, tib), -ENOMEM);				/* was a WARN */
	EXPECT(reg_range(a, s, tib - 4096), -ENOMEM);			/* was 2 GiB first */
	/* Within memory but not mapped: EFAULT, nothing left pinned. */
	EXPECT(reg_range(a, s, 64ull << 20), -EFAULT);
	result(sysfs("pinned_pages") == pinned0, "boundary registrations pin nothing (%ld)",
	       sysfs("pinned_pages") - pinned0);

	/* Unprivileged, RLIMIT_MEMLOCK of 16 pages: the limit decides first. */
	if (pipe(pipefd))
		return;
	chmod(DEV, 0666);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 16 * 4096, 16 * 4096 };
		struct pgas_ioc_job_create own;
		int fd, lfd2;

		setrlimit(RLIMIT_MEMLOCK, &rl);
		if (setgid(65534) || setuid(65534))
			_exit(3);
		lfd2 = open(DEV, O_RDWR);
		own = create_job(lfd2, 1);
		fd = open(DEV, O_RDWR);
		join(fd, &own, 0);
		r[0] = reg_range(fd, s, tib);
		r[1] = reg_range(fd, s, tib - 4096);
		r[2] = reg_range(fd, s, 17 * 4096);
		r[3] = reg_range(fd, s, 4 * 4096);
		if (write(pipefd[1], r, sizeof(r)) < 0)
			_exit(4);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], r, sizeof(r)) != sizeof(r))
		r[0] = 1;
	waitpid(pid, &status, 0);
	chmod(DEV, 0660);
	close(pipefd[0]);
	result(r[0] == -ENOMEM && r[1] == -ENOMEM && r[2] == -ENOMEM && r[3] == 0,
	       "RLIMIT_MEMLOCK 16 pages: 2^40 %d, 2^40-4096 %d, 17 pages %d, 4 pages %d "
	       "(want ENOMEM x3, ok)", r[0], r[1], r[2], r[3]);
	munmap(res, (64 << 20) + 4 * 4096);
	close(a);
	close(lfd);
}

int main(void)
{
	printf("TAP version 13\n");
	test_job_create();
	test_join();
	test_rings_and_mmap();
	test_ring_limits();
	test_registration();
	test_uid_and_memlock();
	test_memlock_outlives_process();
	test_killed_endpoint();
	test_lock_order();
	test_reg_handles();
	test_reg_memory_kinds();
	test_reg_zero_page();
	test_reg_bounds();
	result(sysfs("endpoints") == 0 && sysfs("jobs") == 0 && sysfs("pinned_pages") == 0 &&
	       sysfs("ring_bytes") == 0, "every counter back to zero");
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
