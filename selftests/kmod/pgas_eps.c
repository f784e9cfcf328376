// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_eps - kselftest-style tests of extra endpoints (TAP on stdout).
 *
 * A job created with max_eps > nranks has room for extra endpoints: the
 * process that owns rank r joins a fresh file with PGAS_JOIN_EXTRA and gets
 * the job's next eid (from nranks, in order, never reused; -ENOSPC past
 * max_eps; -EPERM from any other process; -EMFILE past the module
 * parameter max_eps_per_mm).  An extra has rings without a kernel page,
 * which a peer finds with PGAS_IOC_EP_INFO and maps; WAKE names it by eid;
 * REG and DEREG are the rank's only (-EOPNOTSUPP).  Its departure (close,
 * or its process's death) is an event {eid, PGAS_GONE_CLOSED} on the
 * ranks' kernel pages that counts no rank (eps_closed, not peers_gone or
 * peers_left).  Old-size structs keep working.  Run as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgas_abi.h"

#define DEV "/dev/pgas0"
#define SYS "/sys/class/misc/pgas0/"
#define PARAM "/sys/module/pgas/parameters/max_eps_per_mm"

_Static_assert(sizeof(struct pgas_ioc_job_create) == 32, "JOB_CREATE grew to 32 bytes");
_Static_assert(sizeof(struct pgas_ioc_job_join) == 40, "JOB_JOIN grew to 40 bytes");
_Static_assert(offsetof(struct pgas_ioc_job_join, eid) == PGAS_IOC_JOB_JOIN_SIZE_VER0,
	       "eid follows the first version");
_Static_assert(offsetof(struct pgas_ioc_job_create, max_eps) == PGAS_IOC_JOB_CREATE_SIZE_VER0,
	       "max_eps follows the first version");
_Static_assert(sizeof(struct pgas_ioc_ep_info) == 88, "EP_INFO is 88 bytes");
_Static_assert(offsetof(struct pgas_kern_page, eps_closed) ==
	       offsetof(struct pgas_kern_page, peers_left) + 4 &&
	       offsetof(struct pgas_kern_page, gone_tail) == 64,
	       "eps_closed took padding: the kernel page's layout is unchanged");

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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* JOB_CREATE(nranks, max_eps) on lfd: 0 or -errno; *c is the reply. */
static int create(int lfd, unsigned int nranks, unsigned int max_eps,
		  struct pgas_ioc_job_create *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->nranks = nranks;
	c->max_eps = max_eps;
	return ioc(lfd, PGAS_IOC_JOB_CREATE, c);
}

/* JOB_JOIN (40-byte struct) with flags; *eid (if given) is the reply's. */
static int join(int fd, const struct pgas_ioc_job_create *job, unsigned int vpid,
		unsigned int flags, unsigned int *eid)
{
	struct pgas_ioc_job_join j = {
		.size = sizeof(j), .flags = flags, .job_id = job->job_id, .vpid = vpid,
		.key = job->key,
	};
	int ret = ioc(fd, PGAS_IOC_JOB_JOIN, &j);

	if (eid)
		*eid = ret ? ~0u : j.eid;
	return ret;
}

/* A fresh file joined as an extra of rank vpid: its fd, or -errno. */
static int extra(const struct pgas_ioc_job_create *job, unsigned int vpid, unsigned int *eid)
{
	int fd = open_dev(), ret = join(fd, job, vpid, PGAS_JOIN_EXTRA, eid);

	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static struct pgas_ioc_rings rings_arg(void)
{
	struct pgas_ioc_rings r = {
		.size = sizeof(r), .mbox_slots = 64, .notify_entries = 64,
		.bounce_bufs = 2, .bounce_size = 1024,
	};

	return r;
}

static int rings(int fd, struct pgas_ioc_rings *r)
{
	*r = rings_arg();
	return ioc(fd, PGAS_IOC_RINGS_CREATE, r);
}

static int ep_info(int fd, unsigned int eid, struct pgas_ioc_ep_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->eid = eid;
	return ioc(fd, PGAS_IOC_EP_INFO, info);
}

static int wake(int fd, unsigned int eid)
{
	struct pgas_ioc_wake w = { .size = sizeof(w), .vpid = eid };

	return ioc(fd, PGAS_IOC_WAKE, &w);
}

static int reg_pages(int fd, int n)
{
	char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
				    .addr = (uintptr_t)p, .len = (size_t)n * 4096 };

	return ioc(fd, PGAS_IOC_REG, &reg);
}

static void *map(int fd, size_t len, unsigned long long cookie, int prot)
{
	void *m = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)cookie);

	return m == MAP_FAILED ? NULL : m;
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

/* Waits up to ms for the kernel page's gone_tail to reach n. */
static int wait_tail(const struct pgas_kern_page *kp, unsigned long long n, int ms)
{
	long long t0 = now_ms();

	while (__atomic_load_n(&kp->gone_tail, __ATOMIC_ACQUIRE) < n) {
		if (now_ms() - t0 > ms)
			return -1;
		usleep(1000);
	}
	return 0;
}

/* How many of the page's events are {vpid, died}. */
static int events(const struct pgas_kern_page *kp, unsigned int vpid, unsigned int died)
{
	unsigned long long i, t = __atomic_load_n(&kp->gone_tail, __ATOMIC_ACQUIRE);
	int n = 0;

	for (i = 0; i < t && i < PGAS_GONE_EVENTS; i++)
		n += kp->gone[i].vpid == vpid && kp->gone[i].died == died;
	return n;
}

/* ---- tests --------------------------------------------------------------------- */

/* JOB_CREATE's max_eps, and the old 24-byte struct. */
static void test_create(void)
{
	struct pgas_ioc_job_create c;
	int fd = open_dev(), ret;

	EXPECT(create(fd, 2, 1, &c), -EINVAL);		/* fewer than nranks */
	EXPECT(create(fd, 2, PGAS_MAX_ENDPOINTS + 1, &c), -EINVAL);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.nranks = 2;
	c.pad = 1;
	EXPECT(ioc(fd, PGAS_IOC_JOB_CREATE, &c), -EINVAL);
	EXPECT(create(fd, 2, PGAS_MAX_ENDPOINTS, &c), 0);
	close(fd);

	/* A 24-byte caller: a job without extras. */
	fd = open_dev();
	memset(&c, 0, sizeof(c));
	c.size = PGAS_IOC_JOB_CREATE_SIZE_VER0;
	c.nranks = 1;
	c.max_eps = 5;	/* past its struct: not read */
	ret = ioc(fd, PGAS_IOC_JOB_CREATE, &c);
	{
		int a = open_dev(), e;
		struct pgas_ioc_job_join old = {
			.size = PGAS_IOC_JOB_JOIN_SIZE_VER0, .job_id = c.job_id, .key = c.key,
			.eid = 77,
		};
		int j = ioc(a, PGAS_IOC_JOB_JOIN, &old);

		result(ret == 0 && j == 0 && old.nranks == 1 && old.eid == 77,
		       "24-byte JOB_CREATE and 32-byte JOB_JOIN still work (%d, %d; eid untouched: %u)",
		       ret, j, old.eid);
		e = extra(&c, 0, NULL);
		result(e == -ENOSPC, "a job created without max_eps has no room for extras: %d, want -ENOSPC",
		       e);
		if (e >= 0)
			close(e);
		close(a);
	}
	close(fd);
}

/* Eids: a rank's is its vpid; extras' in order from nranks, never reused. */
static void test_eids(void)
{
	struct pgas_ioc_job_create job;
	unsigned int e0 = ~0u, e1 = ~0u, eid[5];
	int lfd = open_dev(), r0 = open_dev(), r1 = open_dev(), x[5], i, mono = 1, busy;
	long eps0 = sysfs("endpoints");
	struct pgas_ioc_job_join j;

	if (create(lfd, 2, 6, &job)) {
		result(0, "JOB_CREATE(2 ranks, max_eps 6): %s", strerror(errno));
		close(lfd);
		close(r0);
		close(r1);
		return;
	}
	i = join(r0, &job, 0, 0, &e0);
	busy = join(r1, &job, 1, 0, &e1);
	result(i == 0 && busy == 0 && e0 == 0 && e1 == 1,
	       "a rank's JOB_JOIN returns eid = vpid (%u, %u)", e0, e1);
	for (i = 0; i < 4; i++) {
		x[i] = extra(&job, i == 2 ? 1 : 0, &eid[i]);	/* rank 0's, and one of rank 1's */
		if (x[i] < 0 || eid[i] != (unsigned int)(2 + i))
			mono = 0;
	}
	result(mono, "4 extras get eids %u %u %u %u (want 2 3 4 5: in order from nranks)",
	       eid[0], eid[1], eid[2], eid[3]);
	x[4] = extra(&job, 0, &eid[4]);
	result(x[4] == -ENOSPC, "a 5th extra past max_eps 6: %d, want -ENOSPC", x[4]);
	result(sysfs("endpoints") == eps0 + 6, "sysfs endpoints counts extras (+%ld, want +6)",
	       sysfs("endpoints") - eps0);
	if (x[1] >= 0)
		close(x[1]);
	x[1] = -1;
	i = extra(&job, 0, NULL);
	result(i == -ENOSPC, "closing an extra frees no eid (never reused): %d, want -ENOSPC", i);
	if (i >= 0)
		close(i);

	/* Arguments. */
	busy = x[0] >= 0 ? join(x[0], &job, 0, PGAS_JOIN_EXTRA, NULL) : 1;
	result(busy == -EBUSY, "JOIN_EXTRA on a file that has a role: %d, want -EBUSY", busy);
	i = open_dev();
	EXPECT(join(i, &job, 2, PGAS_JOIN_EXTRA, NULL), -EINVAL);
	EXPECT(join(i, &job, 0, PGAS_JOIN_EXTRA | 2, NULL), -EINVAL);
	memset(&j, 0, sizeof(j));
	j.size = sizeof(j);
	j.flags = PGAS_JOIN_EXTRA;
	j.job_id = job.job_id;
	j.key = job.key;
	j.pad1 = 1;
	EXPECT(ioc(i, PGAS_IOC_JOB_JOIN, &j), -EINVAL);
	j.pad1 = 0;
	j.size = PGAS_IOC_JOB_JOIN_SIZE_VER0;	/* no room for the eid */
	EXPECT(ioc(i, PGAS_IOC_JOB_JOIN, &j), -EINVAL);
	j.size = sizeof(j);
	j.key ^= 1;
	EXPECT(ioc(i, PGAS_IOC_JOB_JOIN, &j), -EACCES);
	j.key ^= 1;
	j.job_id += 1000;
	EXPECT(ioc(i, PGAS_IOC_JOB_JOIN, &j), -ENOENT);
	close(i);
	for (i = 0; i < 4; i++)
		if (x[i] >= 0)
			close(x[i]);
	close(r0);
	close(r1);
	close(lfd);
	result(sysfs("endpoints") == eps0, "all gone (endpoints %ld, want %ld)", sysfs("endpoints"),
	       eps0);
}

/* Only the process that owns the rank: -EPERM for every other. */
static void test_owner_only(void)
{
	struct pgas_ioc_job_create job;
	int lfd = open_dev(), r0 = open_dev(), res[2], cmd[2], status, got[2] = { 1, 1 }, e;
	unsigned int eid;
	pid_t pid;
	char c;

	if (create(lfd, 3, 8, &job) || join(r0, &job, 0, 0, NULL) || pipe(res) || pipe(cmd)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		int r1 = open_dev();

		/* Another mm: not rank 0's process, though it may join rank 1. */
		got[0] = extra(&job, 0, NULL);
		got[1] = join(r1, &job, 1, 0, NULL);
		if (write(res[1], got, sizeof(got)) != sizeof(got))
			_exit(1);
		if (read(cmd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(res[0], got, sizeof(got)) != sizeof(got))
		got[0] = got[1] = 1;
	result(got[0] == -EPERM, "a forked child's JOIN_EXTRA for its parent's rank: %d, want -EPERM",
	       got[0]);
	e = extra(&job, 1, NULL);
	result(got[1] == 0 && e == -EPERM,
	       "the parent's JOIN_EXTRA for the child's rank 1: %d, want -EPERM", e);
	if (e >= 0)
		close(e);
	e = extra(&job, 2, NULL);
	result(e == -EPERM, "JOIN_EXTRA for a rank nobody joined: %d, want -EPERM", e);
	if (e >= 0)
		close(e);
	e = extra(&job, 0, &eid);
	result(e >= 0 && eid == 3, "the rank's own process may (eid %u, want 3)", eid);
	if (e >= 0)
		close(e);
	if (write(cmd[1], "x", 1) != 1)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(r0);	/* rank 0 leaves: nobody's extras can join for it now */
	e = extra(&job, 0, NULL);
	result(e == -EPERM, "JOIN_EXTRA for a rank that left: %d, want -EPERM", e);
	if (e >= 0)
		close(e);
	close(res[0]);
	close(res[1]);
	close(cmd[0]);
	close(cmd[1]);
	close(lfd);
}

static int write_param(const char *v)
{
	int fd = open(PARAM, O_WRONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, v, strlen(v));
		close(fd);
	}
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

/*
 * Sets max_eps_per_mm to v, its old value in old (for write_param()): 0,
 * or -1 after a SKIP line if it cannot be set.
 */
static int set_param(const char *v, char *old, size_t n)
{
	FILE *f = fopen(PARAM, "r");
	int ok = f && fgets(old, (int)n, f) && !write_param(v);

	if (f)
		fclose(f);
	if (ok)
		return 0;
	printf("ok %d - # SKIP %s is not writable\n", ++tests, PARAM);
	return -1;
}

/* max_eps_per_mm: live extras of one process, over all its jobs. */
static void test_per_mm_limit(void)
{
	struct pgas_ioc_job_create job, job2;
	int lfd, lfd2, r0, r2, a, b, c, d;
	char old[32] = "256\n";

	if (set_param("2", old, sizeof(old)))
		return;
	lfd = open_dev();
	lfd2 = open_dev();
	r0 = open_dev();
	r2 = open_dev();
	create(lfd, 1, 16, &job);
	create(lfd2, 1, 16, &job2);
	join(r0, &job, 0, 0, NULL);
	join(r2, &job2, 0, 0, NULL);
	a = extra(&job, 0, NULL);
	b = extra(&job, 0, NULL);
	c = extra(&job, 0, NULL);
	d = extra(&job2, 0, NULL);
	result(a >= 0 && b >= 0 && c == -EMFILE && d == -EMFILE,
	       "max_eps_per_mm 2: two extras, then -EMFILE in this job (%d) and in another (%d)",
	       c, d);
	if (a >= 0)
		close(a);
	c = extra(&job2, 0, NULL);
	result(c >= 0, "one closed: the process may have one more (%d)", c);
	if (b >= 0)
		close(b);
	if (c >= 0)
		close(c);
	write_param(old);
	close(r0);
	close(r2);
	close(lfd);
	close(lfd2);
}

/*
 * An extra's rings: no kernel page; a peer of another process finds them
 * with EP_INFO and maps them, and reads what the extra's owner wrote;
 * EP_INFO's states; closing the extra revokes the peer's mapping.
 */
static void test_rings_and_info(void)
{
	struct pgas_ioc_job_create job;
	struct pgas_ioc_rings r0r, xr;
	struct pgas_ioc_ep_info info;
	int lfd = open_dev(), r0 = open_dev(), x = -1, res[2], cmd[2], status, e;
	unsigned int eid = ~0u;
	struct pgas_ctrl_page *ctrl = NULL;
	struct {
		int info, state, owner, same, map, rank, hello, enoent, busy;
	} got = { 1, 0, 0, 0, 1, 0, 0, 0, 0 };
	pid_t pid;
	char c;

	memset(&xr, 0, sizeof(xr));
	if (create(lfd, 2, 4, &job) || join(r0, &job, 0, 0, NULL) || pipe(res) || pipe(cmd)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	EXPECT(ep_info(r0, 1, &info), 0);
	result(info.state == PGAS_EP_STATE_NONE && info.owner == 1 && !info.cookie,
	       "EP_INFO of a rank not joined: state %u (none), owner %u", info.state, info.owner);
	EXPECT(ep_info(r0, 2, &info), -ENOENT);	/* no extra yet */
	EXPECT(ep_info(r0, 4, &info), -ENOENT);	/* past max_eps */
	x = extra(&job, 0, &eid);
	rings(r0, &r0r);
	e = x >= 0 ? rings(x, &xr) : x;
	result(e == 0 && xr.kern_cookie == 0 && xr.cookie && xr.region_size == r0r.region_size &&
	       xr.layout.size == xr.region_size,
	       "RINGS_CREATE on an extra: %d, no kernel page (kern_cookie %#llx), region %llu bytes as a rank's",
	       e, (unsigned long long)xr.kern_cookie, (unsigned long long)xr.region_size);
	if (!e)
		ctrl = map(x, xr.region_size, xr.cookie, PROT_READ | PROT_WRITE);
	if (ctrl)
		strcpy((char *)ctrl + xr.layout.mbox_off[0], "hello from an extra");
	EXPECT(ep_info(r0, eid, &info), 0);
	result(info.state == PGAS_EP_STATE_LIVE && info.owner == 0 && info.cookie == xr.cookie &&
	       info.region_size == xr.region_size &&
	       !memcmp(&info.layout, &xr.layout, sizeof(info.layout)),
	       "EP_INFO of the extra: live, owner 0, its cookie, size and layout");
	EXPECT(x >= 0 ? ep_info(x, 0, &info) : x, 0);	/* an extra may ask too */
	result(info.state == PGAS_EP_STATE_LIVE && info.cookie == r0r.cookie,
	       "EP_INFO through an extra: rank 0 live with its cookie");
	info.flags = 1;
	EXPECT(x >= 0 ? ioc(x, PGAS_IOC_EP_INFO, &info) : x, -EINVAL);
	info.flags = 0;
	info.size = 8;
	EXPECT(ioc(r0, PGAS_IOC_EP_INFO, &info), -EINVAL);
	e = open_dev();
	EXPECT(ep_info(e, 0, &info), -EBADFD);
	close(e);

	pid = fork();
	if (pid == 0) {	/* rank 1, another process */
		struct pgas_ioc_ep_info in;
		struct pgas_ctrl_page *m;
		int r1;

		if (x >= 0)
			close(x);	/* its close in the parent must release the file */
		r1 = open_dev();
		if (join(r1, &job, 1, 0, NULL))
			_exit(1);
		got.info = ep_info(r1, eid, &in);
		got.state = in.state == PGAS_EP_STATE_LIVE;
		got.owner = in.owner == 0;
		got.same = in.cookie == xr.cookie && in.region_size == xr.region_size;
		m = map(r1, in.region_size, in.cookie, PROT_READ | PROT_WRITE);
		got.map = m ? 0 : -errno;
		if (m) {
			got.rank = m->rank == eid && m->magic == PGAS_ABI_MAGIC;
			got.hello = !strcmp((char *)m + in.layout.mbox_off[0],
					    "hello from an extra");
			strcpy((char *)m + in.layout.notify_off, "a peer wrote this");
		}
		got.enoent = ep_info(r1, 3, &in) == -ENOENT;
		got.busy = join(r1, &job, 0, PGAS_JOIN_EXTRA, NULL) == -EBUSY;
		if (write(res[1], &got, sizeof(got)) != sizeof(got))
			_exit(1);
		if (read(cmd[0], &c, 1) != 1)
			_exit(1);
		/* The extra has closed: the mapping reads the throwaway page. */
		got.hello = m && touch((char *)m) == 0 && m->magic == 0;
		if (write(res[1], &got, sizeof(got)) != sizeof(got))
			_exit(1);
		if (read(cmd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(res[0], &got, sizeof(got)) != sizeof(got))
		got.info = 1;
	result(got.info == 0 && got.state && got.owner && got.same,
	       "a peer process's EP_INFO(%u): %d, live %d, owner 0 %d, cookie and size %d", eid,
	       got.info, got.state, got.owner, got.same);
	result(got.map == 0 && got.rank && got.hello,
	       "the peer maps the extra's region by that cookie (%d): control page eid %d, reads what its owner wrote %d",
	       got.map, got.rank, got.hello);
	result(ctrl && !strcmp((char *)ctrl + xr.layout.notify_off, "a peer wrote this"),
	       "and the extra's owner reads what the peer wrote");
	result(got.enoent && got.busy, "the peer: EP_INFO of an eid not issued -ENOENT (%d), JOIN on its joined file -EBUSY (%d)",
	       got.enoent, got.busy);
	EXPECT(ep_info(r0, 1, &info), 0);
	result(info.state == PGAS_EP_STATE_LIVE && info.owner == 1,
	       "EP_INFO of rank 1 once it joined: state %u (live)", info.state);

	if (ctrl)
		munmap(ctrl, xr.region_size);
	if (x >= 0)
		close(x);
	EXPECT(ep_info(r0, eid, &info), 0);
	result(info.state == PGAS_EP_STATE_CLOSED && info.owner == 0 && !info.cookie &&
	       !info.region_size, "EP_INFO of the closed extra: state %u (closed), owner %u, no cookie",
	       info.state, info.owner);
	if (write(cmd[1], "x", 1) != 1 || read(res[0], &got, sizeof(got)) != sizeof(got))
		got.hello = 0;
	result(got.hello, "the peer's mapping of the closed extra's region is revoked (reads zeros)");
	if (write(cmd[1], "x", 1) != 1)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(res[0]);
	close(res[1]);
	close(cmd[0]);
	close(cmd[1]);
	close(r0);
	close(lfd);
}

struct poller {
	int fd;
	int revents;
	long long took;
};

static void *poll_thread(void *p)
{
	struct poller *pl = p;
	struct pollfd pfd = { .fd = pl->fd, .events = POLLIN };
	long long t0 = now_ms();
	int n = poll(&pfd, 1, 5000);

	pl->revents = n < 0 ? -errno : n ? pfd.revents : 0;
	pl->took = now_ms() - t0;
	return NULL;
}

/* WAKE by eid: a poll() sleeping on an extra's file is woken. */
static void test_wake(void)
{
	struct pgas_ioc_job_create job;
	struct pgas_ioc_rings r0r, xr;
	struct pgas_ctrl_page *ctrl = NULL;
	int lfd = open_dev(), r0 = open_dev(), x = -1, y = -1;
	unsigned int eid = ~0u, eidy = ~0u;
	struct poller pl = { .revents = -1 };
	pthread_t th;

	if (create(lfd, 1, 8, &job) || join(r0, &job, 0, 0, NULL) || rings(r0, &r0r)) {
		result(0, "setup: %s", strerror(errno));
		close(lfd);
		close(r0);
		return;
	}
	x = extra(&job, 0, &eid);
	y = extra(&job, 0, &eidy);
	if (x >= 0 && !rings(x, &xr))
		ctrl = map(x, xr.region_size, xr.cookie, PROT_READ | PROT_WRITE);
	if (!ctrl) {
		result(0, "an extra with rings, mapped (%d)", x);
	} else {
		ctrl->sleeping = 1;
		pl.fd = x;
		if (pthread_create(&th, NULL, poll_thread, &pl) == 0) {
			usleep(200 * 1000);
			EXPECT(wake(r0, eid), 0);
			pthread_join(th, NULL);
		}
		result(pl.revents == POLLIN && pl.took >= 150 && pl.took < 1000 &&
		       ctrl->sleeping == 0,
		       "a poll() sleeping on extra %u is woken by WAKE(%u) from its rank (revents %x after %lld ms)",
		       eid, eid, pl.revents, pl.took);
		ctrl->sleeping = 1;
		EXPECT(wake(y, eid), 0);	/* from another extra */
		result(ctrl->sleeping == 0, "WAKE(%u) from an extra clears it too", eid);
	}
	EXPECT(y >= 0 ? wake(y, 0) : y, 0);
	EXPECT(wake(r0, eidy), -ENOENT);	/* no rings */
	EXPECT(wake(r0, eidy + 1), -ENOENT);	/* not issued */
	EXPECT(wake(r0, 8), -EINVAL);		/* past max_eps */
	if (ctrl)
		munmap(ctrl, xr.region_size);
	if (x >= 0)
		close(x);
	EXPECT(wake(r0, eid), -ENOENT);	/* closed */
	if (y >= 0)
		close(y);
	close(r0);
	close(lfd);
}

/*
 * A departure wakes its own pollers (issue 21, item 4): a thread asleep in
 * poll() on an extra's file while another thread closes the rank's file
 * (which departs the extra) returns at once with POLLHUP | POLLERR, not
 * at its timeout; so does every later poll() of the departed file.
 */
static void test_departure_wakes_poller(void)
{
	struct pgas_ioc_job_create job;
	struct pgas_ioc_rings r0r, xr;
	struct pgas_ctrl_page *ctrl = NULL;
	int lfd = open_dev(), r0 = open_dev(), x = -1;
	struct poller pl = { .revents = -1 };
	unsigned int eid = ~0u;
	struct pollfd pfd;
	pthread_t th;
	int n;

	if (create(lfd, 1, 4, &job) || join(r0, &job, 0, 0, NULL) || rings(r0, &r0r)) {
		result(0, "setup: %s", strerror(errno));
		goto out;
	}
	x = extra(&job, 0, &eid);
	if (x >= 0 && !rings(x, &xr))
		ctrl = map(x, xr.region_size, xr.cookie, PROT_READ | PROT_WRITE);
	if (!ctrl) {
		result(0, "an extra with rings, mapped (%d)", x);
		goto out;
	}
	ctrl->sleeping = 1;
	munmap(ctrl, xr.region_size);	/* revoked by the departure: not touched again */
	pl.fd = x;
	if (pthread_create(&th, NULL, poll_thread, &pl)) {
		result(0, "pthread_create");
		goto out;
	}
	usleep(200 * 1000);
	close(r0);			/* the rank departs, and extra eid with it */
	r0 = -1;
	pthread_join(th, NULL);
	result(pl.revents > 0 && (pl.revents & POLLHUP) && (pl.revents & POLLERR) &&
	       pl.took < 1500,
	       "a poll() asleep on extra %u returns when its rank's file is closed (revents %x after %lld ms, want POLLHUP|POLLERR at once, not the 5000 ms timeout)",
	       eid, pl.revents, pl.took);
	pfd = (struct pollfd){ .fd = x, .events = POLLIN };
	n = poll(&pfd, 1, 0);
	result(n == 1 && (pfd.revents & (POLLHUP | POLLERR)) == (POLLHUP | POLLERR),
	       "and a later poll() of the departed extra says POLLHUP|POLLERR (revents %x)",
	       pfd.revents);
out:
	if (x >= 0)
		close(x);
	if (r0 >= 0)
		close(r0);
	close(lfd);
}

/* An extra's file, in another process's hands, is inert; REG and DEREG are the rank's. */
static void test_extra_limits(void)
{
	struct pgas_ioc_job_create job;
	struct pgas_ioc_dereg d = { .size = sizeof(d), .handle = 1 };
	int lfd = open_dev(), r0 = open_dev(), x, res[2], status, got[3] = { 1, 1, 1 };
	struct pgas_ioc_ep_info info;
	struct pgas_ioc_rings r;
	pid_t pid;

	if (create(lfd, 1, 2, &job) || join(r0, &job, 0, 0, NULL) || pipe(res)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	x = extra(&job, 0, NULL);
	EXPECT(x >= 0 ? reg_pages(x, 1) : x, -EOPNOTSUPP);
	EXPECT(x >= 0 ? ioc(x, PGAS_IOC_DEREG, &d) : x, -EOPNOTSUPP);
	EXPECT(reg_pages(r0, 1), 0);	/* the rank's registration serves its extras */
	pid = fork();
	if (pid == 0) {
		struct pollfd p = { .fd = x, .events = POLLIN };

		got[0] = rings(x, &r);
		got[1] = ep_info(x, 0, &info);
		got[2] = poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
		if (write(res[1], got, sizeof(got)) != sizeof(got))
			_exit(1);
		_exit(0);
	}
	if (read(res[0], got, sizeof(got)) != sizeof(got))
		got[0] = 1;
	waitpid(pid, &status, 0);
	result(got[0] == -EACCES && got[1] == -EACCES && got[2] == 1,
	       "a forked child with the extra's fd: RINGS_CREATE %d, EP_INFO %d (want -EACCES), poll POLLERR %d",
	       got[0], got[1], got[2]);
	if (x >= 0)
		close(x);
	close(res[0]);
	close(res[1]);
	close(r0);
	close(lfd);
}

/*
 * Closing an extra: an event {eid, PGAS_GONE_CLOSED} on every rank's
 * kernel page, eps_closed bumped, peers_gone and peers_left not (one word
 * that libpgas checks after every transfer).
 */
static void test_close_event(void)
{
	struct pgas_ioc_job_create job;
	struct pgas_ioc_rings r0r, r1r, xr;
	const struct pgas_kern_page *k0 = NULL, *k1 = NULL;
	int lfd = open_dev(), r0 = open_dev(), r1 = open_dev(), x;
	unsigned int eid = ~0u;
	long gone0 = sysfs("peer_gone");

	if (create(lfd, 2, 3, &job) || join(r0, &job, 0, 0, NULL) || join(r1, &job, 1, 0, NULL) ||
	    rings(r0, &r0r) || rings(r1, &r1r)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	k0 = map(r0, 4096, r0r.kern_cookie, PROT_READ);
	k1 = map(r0, 4096, r1r.kern_cookie, PROT_READ);
	x = extra(&job, 1, &eid);
	if (x >= 0)
		rings(x, &xr);
	if (x >= 0)
		close(x);
	result(k0 && k1 && !wait_tail(k0, 1, 2000) && !wait_tail(k1, 1, 2000),
	       "closing extra %u: an event on both ranks' kernel pages", eid);
	if (k0 && k1) {
		result(k0->gone[0].vpid == eid && k0->gone[0].died == PGAS_GONE_CLOSED &&
		       k1->gone[0].vpid == eid && k1->gone[0].died == PGAS_GONE_CLOSED,
		       "the event is {eid %u, died %u} (want {%u, %u})", k0->gone[0].vpid,
		       k0->gone[0].died, eid, PGAS_GONE_CLOSED);
		unsigned long long word;

		memcpy(&word, &k0->peers_gone, sizeof(word));
		result(k0->peers_gone == 0 && k0->peers_left == 0 && k1->peers_gone == 0 &&
		       k1->peers_left == 0 && word == 0,
		       "no rank is counted: peers_gone %u, peers_left %u (the one-word check stays 0)",
		       k0->peers_gone, k0->peers_left);
		result(k0->eps_closed == 1 && k1->eps_closed == 1 && k0->gone_tail == 1,
		       "eps_closed %u, gone_tail %llu", k0->eps_closed,
		       (unsigned long long)k0->gone_tail);
	}
	result(sysfs("peer_gone") == gone0 + 2, "sysfs peer_gone: +%ld (two pages told)",
	       sysfs("peer_gone") - gone0);
	/* A rank leaving still counts (and is told after the extra). */
	close(r1);
	result(k0 && !wait_tail(k0, 2, 2000) && k0->peers_left == 1 && k0->gone[1].vpid == 1 &&
	       k0->gone[1].died == 0, "rank 1 leaving afterwards is a rank's departure (peers_left %u)",
	       k0 ? k0->peers_left : 0);
	if (k0)
		munmap((void *)k0, 4096);
	if (k1)
		munmap((void *)k1, 4096);
	close(r0);
	close(lfd);
}

/*
 * SIGKILL of a process with a rank and two extras: all three depart; the
 * survivor is told the rank died once and the extras closed; nothing
 * (endpoints, pins, ring bytes) is left.
 */
static void test_killed_owner(void)
{
	struct pgas_ioc_job_create job;
	struct pgas_ioc_rings r0r;
	const struct pgas_kern_page *kp = NULL;
	int lfd = open_dev(), r0 = open_dev(), ready[2], status, i, mapped = 1;
	long eps0, pinned0, rb0;
	unsigned int eids[3] = { ~0u, ~0u, ~0u };
	struct pgas_ioc_ep_info info[2];
	size_t len[2] = { 0, 0 };
	char *m[2] = { NULL, NULL };
	long long t0;
	pid_t pid;

	if (create(lfd, 2, 8, &job) || join(r0, &job, 0, 0, NULL) || rings(r0, &r0r) ||
	    pipe(ready)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	kp = map(r0, 4096, r0r.kern_cookie, PROT_READ);
	eps0 = sysfs("endpoints");
	pinned0 = sysfs("pinned_pages");
	rb0 = sysfs("ring_bytes");
	pid = fork();
	if (pid == 0) {
		struct pgas_ioc_rings r;
		int r1 = open_dev(), x, k;

		if (join(r1, &job, 1, 0, NULL) || rings(r1, &r) || reg_pages(r1, 16))
			_exit(1);
		eids[0] = 1;
		for (k = 1; k < 3; k++) {
			x = extra(&job, 1, &eids[k]);
			if (x < 0 || rings(x, &r))
				_exit(1);
		}
		if (write(ready[1], eids, sizeof(eids)) != sizeof(eids))
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], eids, sizeof(eids)) != sizeof(eids)) {
		result(0, "rank 1 and its two extras set up");
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		goto out;
	}
	result(sysfs("endpoints") == eps0 + 3 && sysfs("pinned_pages") == pinned0 + 16,
	       "rank 1 joined with extras %u and %u, pinned 16 pages", eids[1], eids[2]);
	/* The survivor maps the extras' regions, as a peer sending to them would. */
	for (i = 0; i < 2; i++) {
		if (ep_info(r0, eids[i + 1], &info[i]) ||
		    !(m[i] = map(r0, info[i].region_size, info[i].cookie, PROT_READ)))
			mapped = 0;
		else
			len[i] = info[i].region_size;
	}
	result(mapped && ((struct pgas_ctrl_page *)m[0])->rank == eids[1] &&
	       ((struct pgas_ctrl_page *)m[1])->rank == eids[2],
	       "the survivor maps both extras' regions by EP_INFO");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	result(kp && !wait_tail(kp, 3, 5000), "three events on the survivor's kernel page (tail %llu)",
	       kp ? (unsigned long long)kp->gone_tail : 0);
	if (kp) {
		result(kp->peers_gone == 1 && kp->peers_left == 0 && events(kp, 1, 1) == 1,
		       "the rank died once: peers_gone %u, peers_left %u, event {1, died} x%d",
		       kp->peers_gone, kp->peers_left, events(kp, 1, 1));
		result(events(kp, eids[1], PGAS_GONE_CLOSED) == 1 &&
		       events(kp, eids[2], PGAS_GONE_CLOSED) == 1 && kp->eps_closed == 2,
		       "its extras closed: {%u, %u} x%d, {%u, %u} x%d, eps_closed %u", eids[1],
		       PGAS_GONE_CLOSED, events(kp, eids[1], PGAS_GONE_CLOSED), eids[2],
		       PGAS_GONE_CLOSED, events(kp, eids[2], PGAS_GONE_CLOSED), kp->eps_closed);
	}
	/* Each departure ends with its count: wait for the last. */
	for (t0 = now_ms(); sysfs("endpoints") != eps0 && now_ms() - t0 < 2000;)
		usleep(1000);
	result(sysfs("endpoints") == eps0 && sysfs("pinned_pages") == pinned0,
	       "all three endpoints and the pins are gone (endpoints %+ld, pinned %+ld)",
	       sysfs("endpoints") - eps0, sysfs("pinned_pages") - pinned0);
	result(m[0] && m[1] && touch(m[0]) == 0 && touch(m[1]) == 0 &&
	       ((struct pgas_ctrl_page *)m[0])->magic == 0 && ((struct pgas_ctrl_page *)m[1])->magic == 0,
	       "the survivor's mappings of the extras are revoked (zeros, no signal)");
	for (i = 0; i < 2; i++) {
		EXPECT(ep_info(r0, eids[i + 1], &info[i]), 0);
		result(info[i].state == PGAS_EP_STATE_CLOSED && info[i].owner == 1,
		       "EP_INFO(%u) after the death: state %u (closed), owner %u", eids[i + 1],
		       info[i].state, info[i].owner);
		if (m[i])
			munmap(m[i], len[i]);
	}
	result(sysfs("ring_bytes") == rb0, "no ring bytes left once unmapped (%+ld)",
	       sysfs("ring_bytes") - rb0);
out:
	if (kp)
		munmap((void *)kp, 4096);
	close(ready[0]);
	close(r0);
	close(lfd);
}

/*
 * A rank's endpoint that departs while its process lives (its file
 * closed) takes its extras with it, first: they are closed in the table
 * (EP_INFO) before the rank, their files answer -ENODEV, their closed
 * events come before the rank's own on a peer's kernel page, and a new
 * endpoint of that rank finds none of them live.
 */
static void test_rank_close_departs_extras(void)
{
	struct pgas_ioc_job_create job;
	struct pgas_ioc_rings r1r, xr;
	struct pgas_ioc_ep_info info;
	const struct pgas_kern_page *k1 = NULL;
	int lfd = open_dev(), r0 = open_dev(), r1 = open_dev(), x = -1, y = -1, again = -1;
	unsigned int ex = ~0u, ey = ~0u;
	long eps0 = sysfs("endpoints");

	if (create(lfd, 2, 4, &job) || join(r0, &job, 0, 0, NULL) || join(r1, &job, 1, 0, NULL) ||
	    rings(r1, &r1r)) {
		result(0, "setup: %s", strerror(errno));
		goto out;
	}
	k1 = map(r1, 4096, r1r.kern_cookie, PROT_READ);
	x = extra(&job, 0, &ex);
	y = extra(&job, 0, &ey);
	if (x >= 0)
		rings(x, &xr);
	result(k1 && x >= 0 && y >= 0, "rank 0 with extras %u and %u, rank 1's kernel page mapped",
	       ex, ey);
	close(r0);
	r0 = -1;
	EXPECT(ep_info(r1, ex, &info), 0);
	result(info.state == PGAS_EP_STATE_CLOSED && info.owner == 0 && !info.cookie,
	       "rank 0's file closed: its extra %u is closed too (state %u, want %u)", ex,
	       info.state, PGAS_EP_STATE_CLOSED);
	EXPECT(ep_info(r1, ey, &info), 0);
	result(info.state == PGAS_EP_STATE_CLOSED, "and so is %u (state %u)", ey, info.state);
	EXPECT(wake(r1, ex), -ENOENT);
	EXPECT(x >= 0 ? wake(x, 1) : x, -ENODEV);
	EXPECT(y >= 0 ? ep_info(y, 1, &info) : y, -ENODEV);
	result(sysfs("endpoints") == eps0 + 1, "one endpoint left (%+ld, want +1)",
	       sysfs("endpoints") - eps0);
	if (k1) {
		result(!wait_tail(k1, 3, 2000) && k1->gone[0].vpid == ex &&
		       k1->gone[0].died == PGAS_GONE_CLOSED && k1->gone[1].vpid == ey &&
		       k1->gone[1].died == PGAS_GONE_CLOSED && k1->gone[2].vpid == 0 &&
		       k1->gone[2].died == 0 && k1->eps_closed == 2 && k1->peers_left == 1,
		       "rank 1 is told {%u, closed}, {%u, closed}, then {0, left} (tail %llu: {%u, %u} {%u, %u} {%u, %u})",
		       ex, ey, (unsigned long long)k1->gone_tail, k1->gone[0].vpid,
		       k1->gone[0].died, k1->gone[1].vpid, k1->gone[1].died, k1->gone[2].vpid,
		       k1->gone[2].died);
	}
	again = open_dev();
	EXPECT(join(again, &job, 0, 0, NULL), 0);
	EXPECT(ep_info(again, ex, &info), 0);
	result(info.state == PGAS_EP_STATE_CLOSED,
	       "rank 0 joined again: the old extra is not shown as its (state %u)", info.state);
out:
	if (k1)
		munmap((void *)k1, 4096);
	if (x >= 0)
		close(x);
	if (y >= 0)
		close(y);
	if (again >= 0)
		close(again);
	if (r0 >= 0)
		close(r0);
	close(r1);
	close(lfd);
	result(sysfs("endpoints") == eps0, "all gone (endpoints %+ld)", sysfs("endpoints") - eps0);
}

/* REG of n fresh pages filled with fill: the reply, and the memory in *mem. */
static struct pgas_ioc_reg reg_fill(int fd, int n, int fill, char **mem)
{
	char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
				    .addr = (uintptr_t)p, .len = (size_t)n * 4096 };

	memset(p, fill, (size_t)n * 4096);
	if (ioc(fd, PGAS_IOC_REG, &reg))
		reg.cookie = 0;
	*mem = p;
	return reg;
}

/*
 * Issue 21, 1: an extra that departed with its rank (the rank's file was
 * closed, the extra's is open) maps nothing: mmap through its file is
 * -ENODEV, for what the job had and for what a peer registers later; what
 * it mapped before is revoked (reads zeros, takes writes that never reach
 * the peer) while the peer's own mapping of the same memory goes on
 * working; and cookies do not follow each other in sequence.
 */
static void test_departed_maps_nothing(void)
{
	struct pgas_ioc_job_create job, other;
	struct pgas_ioc_reg seg, seg2, seg3, oseg;
	char *mem = NULL, *mem2 = NULL, *mem3 = NULL, *omem = NULL, *m;
	volatile char *mx = NULL, *mlive = NULL, *mo = NULL;
	int lfd = open_dev(), r0 = open_dev(), r1 = open_dev(), o0 = open_dev(), lfd2 = open_dev(), x = -1, got = 0, sig;
	struct rusage ru0, ru1;
	long long d1, d2;

	if (create(lfd, 2, 4, &job) || join(r0, &job, 0, 0, NULL) || join(r1, &job, 1, 0, NULL)) {
		result(0, "setup: %s", strerror(errno));
		goto out;
	}
	seg = reg_fill(r1, 4, 0x11, &mem);
	x = extra(&job, 0, NULL);
	if (x >= 0)
		mx = map(x, 4 * 4096, seg.cookie, PROT_READ | PROT_WRITE);
	mlive = map(r1, 4 * 4096, seg.cookie, PROT_READ | PROT_WRITE);
	sig = mx ? touch(mx + 4096) : -1;
	if (!sig)
		mx[4096] = 0x22;
	result(seg.cookie && mx && mlive && !sig && mem[4096] == 0x22,
	       "an extra of rank 0 maps rank 1's segment and writes it");
	if (!seg.cookie || !mx || !mlive)
		goto out;
	/*
	 * Faulted in before the departure, rank 1's mapping and another job's
	 * fault no more after it: the departure zaps its file's mappings
	 * only (it zapped the whole NIC's: any user could make every job
	 * fault its pages in again, once a departure).
	 */
	(void)mlive[0];		/* maps all four (fault-around) */
	if (create(lfd2, 1, 1, &other) || join(o0, &other, 0, 0, NULL))
		result(0, "setup of a second job: %s", strerror(errno));
	oseg = reg_fill(o0, 1, 0x77, &omem);
	mo = oseg.cookie ? map(o0, 4096, oseg.cookie, PROT_READ) : NULL;
	got = mo ? mo[0] : 0;
	close(r0);	/* rank 0 departs, and its extra with it */
	r0 = -1;
	getrusage(RUSAGE_THREAD, &ru0);
	got += mlive[0] + mlive[4096] + (mo ? mo[0] : 0);
	getrusage(RUSAGE_THREAD, &ru1);
	result(mo && ru1.ru_minflt == ru0.ru_minflt,
	       "a departure zaps only its file's mappings: rank 1's and another job's fault %ld times (sum %d)",
	       ru1.ru_minflt - ru0.ru_minflt, got);
	got = 0;
	EXPECT(wake(x, 1), -ENODEV);
	m = map(x, 4 * 4096, seg.cookie, PROT_READ | PROT_WRITE);
	result(!m && errno == ENODEV, "departed: mmap of the segment through its file: %s",
	       m ? "mapped" : strerror(errno));
	if (m)
		munmap(m, 4 * 4096);
	m = map(x, 4096, seg.cookie, PROT_READ);
	result(!m && errno == ENODEV, "departed: read-only too: %s", m ? "mapped" : strerror(errno));
	if (m)
		munmap(m, 4096);
	/* A read that faults is reported; the writes after it fault no more. */
	sig = touch(mx + 2 * 4096 + 5);
	if (!sig) {
		got = mx[2 * 4096 + 5];
		mx[2 * 4096 + 5] = 0x33;
	}
	result(!sig && got == 0 && mx[2 * 4096 + 5] == 0x33 && mem[2 * 4096 + 5] == 0x11,
	       "departed: its old mapping is revoked: reads %#x, a write (signal %d) never reaches rank 1 (%#x)",
	       got, sig, (unsigned char)mem[2 * 4096 + 5]);
	sig = touch(mlive + 3 * 4096);
	if (!sig) {
		got = mlive[3 * 4096];
		mlive[3 * 4096] = 0x44;
	}
	result(!sig && got == 0x11 && mem[3 * 4096] == 0x44,
	       "rank 1's own mapping of it still reads and writes its memory (signal %d, %#x)",
	       sig, got);
	seg2 = reg_fill(r1, 1, 0x55, &mem2);
	seg3 = reg_fill(r1, 1, 0x66, &mem3);
	m = seg2.cookie ? map(x, 4096, seg2.cookie, PROT_READ | PROT_WRITE) : NULL;
	result(seg2.cookie && !m && errno == ENODEV,
	       "departed: a segment registered after it: %s", m ? "mapped" : strerror(errno));
	if (m)
		munmap(m, 4096);
	d1 = (long long)(seg2.cookie - seg.cookie);
	d2 = (long long)(seg3.cookie - seg2.cookie);
	result(seg3.cookie && d1 != d2 && d1 != (4 + 1) * 4096 && d2 != 2 * 4096,
	       "cookies are not in sequence (%+lld, %+lld pages)", d1 / 4096, d2 / 4096);
out:
	{
		void *maps[] = { (void *)mx, (void *)mlive, mem, mem2, mem3, (void *)mo, omem };
		size_t lens[] = { 4 * 4096, 4 * 4096, 4 * 4096, 4096, 4096, 4096, 4096 };
		int fds[] = { x, r0, r1, o0, lfd2, lfd }, i;

		for (i = 0; i < 7; i++)
			if (maps[i])
				munmap(maps[i], lens[i]);
		for (i = 0; i < 6; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
}

/*
 * Issue 21, 3: departed extras kept by a mapping through their files
 * (the job, the endpoint, the file, the revoked kernel page's copy) count
 * against max_eps_per_mm until the mapping goes, so that rounds of job +
 * rank + extra, a mapping of the rank's kernel page through the extra,
 * all closed, keep at most that many jobs.  Bounded: the limit set to 16,
 * 200 rounds.
 */
#define KEPT_LIMIT 16
#define KEPT_ROUNDS 200

static void test_departed_extras_bounded(void)
{
	static void *maps[KEPT_ROUNDS];
	struct pgas_ioc_job_create job;
	struct pgas_ioc_rings r;
	char old[32] = "256\n", lim[16];
	long jobs0 = sysfs("jobs"), mmaps0 = sysfs("mmaps"), jobs, mmaps;
	int i, kept = 0, refused = 0, other = 0, lfd, r0, x;

	snprintf(lim, sizeof(lim), "%d", KEPT_LIMIT);
	if (set_param(lim, old, sizeof(old)))
		return;
	for (i = 0; i < KEPT_ROUNDS; i++) {
		lfd = open_dev();
		r0 = open_dev();
		x = -1;
		if (create(lfd, 1, 2, &job) || join(r0, &job, 0, 0, NULL) || rings(r0, &r)) {
			other++;
		} else {
			x = extra(&job, 0, NULL);
			if (x == -EMFILE)
				refused++;
			else if (x < 0)
				other++;
			else if ((maps[kept] = map(x, 4096, r.kern_cookie, PROT_READ)))
				kept++;
			else
				other++;
		}
		if (x >= 0)
			close(x);
		close(r0);
		close(lfd);
	}
	jobs = sysfs("jobs") - jobs0;
	mmaps = sysfs("mmaps") - mmaps0;
	result(!other && kept <= KEPT_LIMIT && refused == KEPT_ROUNDS - kept,
	       "%d rounds: %d departed extras kept by a mapping, then -EMFILE (%d; %d other failures)",
	       KEPT_ROUNDS, kept, refused, other);
	result(jobs <= KEPT_LIMIT && mmaps <= KEPT_LIMIT,
	       "what they keep is bounded: jobs %+ld, mmaps %+ld (limit %d)", jobs, mmaps,
	       KEPT_LIMIT);
	for (i = 0; i < kept; i++)
		munmap(maps[i], 4096);
	x = -1;
	lfd = open_dev();
	r0 = open_dev();
	if (!create(lfd, 1, 2, &job) && !join(r0, &job, 0, 0, NULL))
		x = extra(&job, 0, NULL);
	result(x >= 0 && sysfs("jobs") == jobs0 + 1 && sysfs("mmaps") == mmaps0,
	       "unmapped: all freed (jobs %+ld, mmaps %+ld), extras may join again (%d)",
	       sysfs("jobs") - jobs0, sysfs("mmaps") - mmaps0, x);
	if (x >= 0)
		close(x);
	close(r0);
	close(lfd);
	write_param(old);
}

#define RACE_EXTRAS 12

struct closer {
	int fds[RACE_EXTRAS];
	volatile int *go;
};

static void *close_thread(void *p)
{
	struct closer *c = p;
	int i;

	while (!*c->go)
		;
	for (i = RACE_EXTRAS - 1; i >= 0; i--)	/* against the rank's walk */
		close(c->fds[i]);
	return NULL;
}

/*
 * A rank's file and its extras' files closed at once, by two threads: the
 * rank's departure takes each extra, or waits for one that the other
 * thread's close is departing.  Every round ends with each extra closed
 * once, the rank left once, and nothing left over (the debug VM tier runs
 * it under lockdep and KASAN).
 */
static void test_close_race(void)
{
	int round, bad = 0, rounds = 60;
	long eps0 = sysfs("endpoints"), rb0 = sysfs("ring_bytes");
	unsigned long long tail = 0;
	unsigned int closed = 0, left = 0;

	for (round = 0; round < rounds && !bad; round++) {
		struct pgas_ioc_job_create job;
		struct pgas_ioc_rings r1r, xr;
		const struct pgas_kern_page *k1;
		int lfd = open_dev(), r0 = open_dev(), r1 = open_dev(), i, go = 0;
		struct closer c = { .go = &go };
		pthread_t th;

		if (create(lfd, 2, 2 + RACE_EXTRAS, &job) || join(r0, &job, 0, 0, NULL) ||
		    join(r1, &job, 1, 0, NULL) || rings(r1, &r1r) ||
		    !(k1 = map(r1, 4096, r1r.kern_cookie, PROT_READ))) {
			bad = 1;
			break;
		}
		for (i = 0; i < RACE_EXTRAS; i++) {
			c.fds[i] = extra(&job, 0, NULL);
			if (c.fds[i] < 0 || (i % 4 == 0 && rings(c.fds[i], &xr)))
				bad = 1;
		}
		if (bad || pthread_create(&th, NULL, close_thread, &c)) {
			bad = 1;
			break;
		}
		usleep(round % 7 * 50);
		go = 1;
		if (round % 2)
			usleep(round % 5 * 20);
		close(r0);
		pthread_join(th, NULL);
		if (wait_tail(k1, RACE_EXTRAS + 1, 2000))
			bad = 1;
		tail = k1->gone_tail;
		closed = k1->eps_closed;
		left = k1->peers_left;
		if (tail != RACE_EXTRAS + 1 || closed != RACE_EXTRAS || left != 1 ||
		    k1->peers_gone != 0 || events(k1, 0, 0) != 1)
			bad = 1;
		munmap((void *)k1, 4096);
		close(r1);
		close(lfd);
	}
	result(!bad, "%d rounds of a rank and its %d extras closed at once by two threads: each told once (last: tail %llu, eps_closed %u, peers_left %u)",
	       round, RACE_EXTRAS, tail, closed, left);
	result(sysfs("endpoints") == eps0 && sysfs("ring_bytes") == rb0,
	       "and nothing is left (endpoints %+ld, ring bytes %+ld)", sysfs("endpoints") - eps0,
	       sysfs("ring_bytes") - rb0);
}

/* PGAS_JOIN_EXTRA needs the whole 40-byte struct: a shorter one cannot take the eid. */
static void test_join_sizes(void)
{
	struct pgas_ioc_job_create job;
	struct pgas_ioc_job_join j;
	int lfd = open_dev(), r0 = open_dev(), f = open_dev();
	unsigned int size;

	if (create(lfd, 1, 3, &job) || join(r0, &job, 0, 0, NULL)) {
		result(0, "setup: %s", strerror(errno));
		goto out;
	}
	for (size = PGAS_IOC_JOB_JOIN_SIZE_VER0; size < PGAS_IOC_JOB_JOIN_SIZE_VER1; size += 4) {
		memset(&j, 0, sizeof(j));
		j.size = size;
		j.flags = PGAS_JOIN_EXTRA;
		j.job_id = job.job_id;
		j.key = job.key;
		EXPECT(ioc(f, PGAS_IOC_JOB_JOIN, &j), -EINVAL);
	}
	j.size = PGAS_IOC_JOB_JOIN_SIZE_VER1;
	EXPECT(ioc(f, PGAS_IOC_JOB_JOIN, &j), 0);
	result(j.eid == 1, "a 40-byte JOIN_EXTRA gets eid %u (want 1: no eid was taken before)",
	       j.eid);
out:
	close(f);
	close(r0);
	close(lfd);
}

/* The new command is matched whole, like the others. */
static void test_commands(void)
{
	int lfd = open_dev(), r0 = open_dev();
	struct pgas_ioc_job_create job;
	char big[256];

	create(lfd, 1, 2, &job);
	join(r0, &job, 0, 0, NULL);
	memset(big, 0, sizeof(big));
	((struct pgas_ioc_ep_info *)big)->size = sizeof(big);
	EXPECT(ioc(r0, PGAS_IOC_EP_INFO, big), 0);	/* a zero tail */
	big[200] = 1;
	EXPECT(ioc(r0, PGAS_IOC_EP_INFO, big), -E2BIG);
	EXPECT(ioc(r0, _IOW(PGAS_IOC_MAGIC, 7, struct pgas_ioc_ep_info), big), -ENOTTY);
	EXPECT(ioc(r0, _IOWR(PGAS_IOC_MAGIC, 7, struct pgas_ioc_wake), big), -ENOTTY);
	EXPECT(ioc(r0, _IOWR(PGAS_IOC_MAGIC, 1, struct pgas_ioc_job_create), big), -ENOTTY);
	EXPECT(ioc(r0, _IOWR(PGAS_IOC_MAGIC, 2, struct pgas_ioc_job_join), big), -ENOTTY);
	close(r0);
	close(lfd);
}

int main(void)
{
	printf("TAP version 13\n");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_IGN);	/* a child that failed early does not kill us */
	test_create();
	test_eids();
	test_owner_only();
	test_per_mm_limit();
	test_rings_and_info();
	test_wake();
	test_departure_wakes_poller();
	test_extra_limits();
	test_close_event();
	test_killed_owner();
	test_rank_close_departs_extras();
	test_close_race();
	test_departed_maps_nothing();
	test_departed_extras_bounded();
	test_join_sizes();
	test_commands();
	result(sysfs("endpoints") == 0 && sysfs("pinned_pages") == 0 && sysfs("jobs") == 0 &&
	       sysfs("ring_bytes") == 0,
	       "nothing left: endpoints %ld, pinned pages %ld, jobs %ld, ring bytes %ld",
	       sysfs("endpoints"), sysfs("pinned_pages"), sysfs("jobs"), sysfs("ring_bytes"));
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
