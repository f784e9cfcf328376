// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_life - kselftest-style tests of an endpoint's life and death
 * (TAP on stdout).
 *
 * An endpoint belongs to the process that joined, not to its file: when
 * that process dies its peers are told at once (PEER_GONE, died) even if a
 * child forked without exec keeps the fd; a clean close or exit(0) is a
 * departure, not a death; and a task of another mm that holds the fd
 * cannot use it (ioctls and mmap: -EACCES).  Block mode's sleep and wake:
 * poll() on the endpoint is readable while its control page's 'sleeping'
 * is 0; PGAS_IOC_WAKE from a peer, or a peer's departure, clears it and
 * wakes the poller.  Run as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgas_abi.h"
#include "pgas_layout.h"

#define DEV "/dev/pgas0"

/*
 * ABI hygiene, checked when this file is built: the uapi header uses the
 * kernel's __u32/__u64 (not <stdint.h>'s types, which differ from them in
 * C: uint64_t is unsigned long on x86_64, __u64 unsigned long long).
 */
_Static_assert(__builtin_types_compatible_p(__typeof__(((struct pgas_ioc_reg *)0)->addr), __u64),
	       "pgas_abi.h uses __u64");
_Static_assert(__builtin_types_compatible_p(__typeof__(((struct pgas_ioc_reg *)0)->size), __u32),
	       "pgas_abi.h uses __u32");
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

static int ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

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
	int fd = open(DEV, O_RDWR);

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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The survivor: rank 0 of a 2-rank job, its ring region mapped. */
struct survivor {
	int lfd, fd;
	struct pgas_ioc_job_create job;
	struct pgas_ioc_rings r;
	struct pgas_ctrl_page *ctrl;
	const struct pgas_kern_page *kp;	/* ABI 2: where pgas.ko tells it */
};

static int survivor_open(struct survivor *s)
{
	s->lfd = open_dev();
	s->fd = open_dev();
	s->job = create_job(s->lfd, 2);
	s->r = rings_arg();
	if (join(s->fd, &s->job, 0) || ioc(s->fd, PGAS_IOC_RINGS_CREATE, &s->r))
		return -1;
	s->ctrl = mmap(NULL, s->r.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
		       (off_t)s->r.cookie);
	if (s->ctrl == MAP_FAILED)
		return -1;
	s->kp = mmap(NULL, 4096, PROT_READ, MAP_SHARED, s->fd, (off_t)s->r.kern_cookie);
	return s->kp == MAP_FAILED ? -1 : 0;
}

static void survivor_close(struct survivor *s)
{
	munmap(s->ctrl, s->r.region_size);
	munmap((void *)s->kp, 4096);
	close(s->fd);
	close(s->lfd);
}

/* Peer-gone event i of the kernel page as a notification status, or 0. */
static unsigned long long gone_status(struct survivor *s, unsigned int i)
{
	if (__atomic_load_n(&s->kp->gone_tail, __ATOMIC_ACQUIRE) <= i)
		return 0;
	return PGAS_NOTIFY_STATUS(1, s->kp->gone[i].vpid, PGAS_NOTIFY_PEER_GONE);
}

/* Waits up to ms for peer-gone event i; its status, or 0. */
static unsigned long long wait_entry(struct survivor *s, unsigned int i, int ms, long long *took)
{
	long long t0 = now_ms();
	unsigned long long st;

	do {
		st = gone_status(s, i);
		if (PGAS_NOTIFY_LAP(st))
			break;
		usleep(1000);
	} while (now_ms() - t0 < ms);
	*took = now_ms() - t0;
	return PGAS_NOTIFY_LAP(st) ? st : 0;
}

static int is_gone(unsigned long long st, unsigned int src)
{
	return PGAS_NOTIFY_KIND(st) == PGAS_NOTIFY_PEER_GONE && PGAS_NOTIFY_SRC(st) == src &&
	       PGAS_NOTIFY_LAP(st) == 1;
}

/* Rank 1 joins, makes its rings and registers 16 pages; ready is told. */
static int rank_setup(struct survivor *s, int *fd)
{
	struct pgas_ioc_rings r = rings_arg();
	char *seg = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
				    .addr = (uintptr_t)seg, .len = 16 * 4096 };

	*fd = open_dev();
	if (join(*fd, &s->job, 1) || ioc(*fd, PGAS_IOC_RINGS_CREATE, &r) ||
	    ioc(*fd, PGAS_IOC_REG, &reg))
		return -1;
	return 0;
}

/*
 * What a child that inherited the endpoint's fd gets from it, one errno
 * per use: REG, RINGS_CREATE, DEREG, mmap of the survivor's ring region.
 */
static void child_uses(int fd, struct survivor *s, int out)
{
	char *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .addr = (uintptr_t)buf, .len = 4096 };
	struct pgas_ioc_rings r = rings_arg();
	struct pgas_ioc_dereg d = { .size = sizeof(d), .handle = 1 };
	int e[4];
	void *m;

	e[0] = ioc(fd, PGAS_IOC_REG, &reg);
	e[1] = ioc(fd, PGAS_IOC_RINGS_CREATE, &r);
	e[2] = ioc(fd, PGAS_IOC_DEREG, &d);
	m = mmap(NULL, s->r.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)s->r.cookie);
	e[3] = m == MAP_FAILED ? -errno : 0;
	if (write(out, e, sizeof(e)) != sizeof(e))
		_exit(1);
}

/*
 * Rank 1 forks a helper that keeps the fd (no exec), then is SIGKILLed:
 * the survivor is told at once that rank 1 died, its pins are released,
 * and the helper cannot use the fd; its exit later sends nothing more.
 */
static void test_killed_with_child(void)
{
	struct survivor s;
	int ready[2], cmd[2], res[2], fd, e[4] = { 1, 1, 1, 1 }, status;
	long pinned0, eps0, gone0;
	unsigned long long st;
	pid_t rank, helper = -1;
	long long took;

	if (survivor_open(&s) || pipe(ready) || pipe(cmd) || pipe(res)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	pinned0 = sysfs("pinned_pages");
	eps0 = sysfs("endpoints");
	gone0 = sysfs("peer_gone");
	rank = fork();
	if (rank == 0) {
		pid_t c;

		if (rank_setup(&s, &fd))
			_exit(1);
		c = fork();
		if (c == 0) {
			char x;

			close(cmd[1]);
			if (read(cmd[0], &x, 1) != 1)
				_exit(2);
			child_uses(fd, &s, res[1]);
			while (read(cmd[0], &x, 1) > 0)
				;
			_exit(0);
		}
		if (write(ready[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	close(cmd[0]);
	close(res[1]);
	if (read(ready[0], &helper, sizeof(helper)) != sizeof(helper)) {
		result(0, "rank 1 set up");
		goto out;
	}
	result(sysfs("pinned_pages") == pinned0 + 16 && sysfs("endpoints") == eps0 + 1,
	       "rank 1 joined and pinned 16 pages; its helper holds the fd");
	kill(rank, SIGKILL);
	waitpid(rank, &status, 0);
	st = wait_entry(&s, 0, 3000, &took);
	result(is_gone(st, 1) && s.kp->gone[0].died == 1 && s.kp->peers_gone == 1 && took < 1000,
	       "rank 1 SIGKILLed, helper alive: the survivor is told it died (status %llx, size %u, peers_gone %u, %lld ms)",
	       st, s.kp->gone[0].died, s.kp->peers_gone, took);
	result(sysfs("pinned_pages") == pinned0 && sysfs("endpoints") == eps0,
	       "its pins and endpoint are gone with it (pinned %ld, endpoints %ld)",
	       sysfs("pinned_pages") - pinned0, sysfs("endpoints") - eps0);

	if (write(cmd[1], "x", 1) != 1 || read(res[0], e, sizeof(e)) != sizeof(e))
		result(0, "the helper reports");
	result(e[0] == -EACCES, "helper's REG on the dead rank's fd: %d, want -EACCES", e[0]);
	result(e[1] == -EACCES, "helper's RINGS_CREATE: %d, want -EACCES", e[1]);
	result(e[2] == -EACCES, "helper's DEREG: %d, want -EACCES", e[2]);
	result(e[3] == -EACCES, "helper's mmap of a peer's ring region: %d, want -EACCES", e[3]);
	close(cmd[1]);
	cmd[1] = -1;
	waitpid(helper, &status, 0);	/* a subreaper's orphan now */
	usleep(100 * 1000);
	st = gone_status(&s, 1);
	result(st == 0 && sysfs("peer_gone") == gone0 + 1 && s.kp->peers_gone == 1,
	       "the helper's exit (the file's release) tells nobody again (status %llx, events %ld)",
	       st, sysfs("peer_gone") - gone0);
out:
	if (cmd[1] >= 0)
		close(cmd[1]);
	close(ready[0]);
	close(res[0]);
	survivor_close(&s);
}

/*
 * Rank 1 forks a helper that keeps the fd, closes its own, and exits with
 * code: 0 is a departure (size 0, peers_gone untouched), anything else a
 * death.
 */
static void test_exit_with_child(int code)
{
	struct survivor s;
	int ready[2], cmd[2], fd, status;
	unsigned long long st;
	pid_t rank, helper = -1;
	long long took;

	if (survivor_open(&s) || pipe(ready) || pipe(cmd)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	rank = fork();
	if (rank == 0) {
		pid_t c;

		if (rank_setup(&s, &fd))
			_exit(100);
		c = fork();
		if (c == 0) {
			char x;

			close(cmd[1]);
			while (read(cmd[0], &x, 1) > 0)
				;
			_exit(0);
		}
		close(fd);
		if (write(ready[1], &c, sizeof(c)) != sizeof(c))
			_exit(100);
		_exit(code);
	}
	close(ready[1]);
	close(cmd[0]);
	if (read(ready[0], &helper, sizeof(helper)) != sizeof(helper))
		helper = -1;
	waitpid(rank, &status, 0);
	st = wait_entry(&s, 0, 3000, &took);
	if (code)
		result(is_gone(st, 1) && s.kp->gone[0].died == 1 && s.kp->peers_gone == 1 &&
		       took < 1000,
		       "rank 1 exits %d, helper holds the fd: a death (status %llx, size %u, peers_gone %u, %lld ms)",
		       code, st, s.kp->gone[0].died, s.kp->peers_gone, took);
	else
		result(is_gone(st, 1) && s.kp->gone[0].died == 0 && s.kp->peers_gone == 0 &&
		       took < 1000,
		       "rank 1 closes and exits 0, helper holds the fd: a departure (status %llx, size %u, peers_gone %u, %lld ms)",
		       st, s.kp->gone[0].died, s.kp->peers_gone, took);
	close(cmd[1]);
	if (helper > 0)
		waitpid(helper, &status, 0);
	close(ready[0]);
	survivor_close(&s);
}

/* The owner closes its fd and lives on: a departure, told at the close. */
static void test_clean_close(void)
{
	struct survivor s;
	int ready[2], fd, status;
	unsigned long long st;
	long long took;
	pid_t rank;
	char x;

	if (survivor_open(&s) || pipe(ready)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	rank = fork();
	if (rank == 0) {
		if (rank_setup(&s, &fd))
			_exit(1);
		close(fd);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &x, 1) != 1)
		x = 0;
	st = wait_entry(&s, 0, 3000, &took);
	result(x == 'x' && is_gone(st, 1) && s.kp->gone[0].died == 0 && s.kp->peers_gone == 0,
	       "rank 1 closes its endpoint and lives on: a departure (status %llx, size %u, peers_gone %u)",
	       st, s.kp->gone[0].died, s.kp->peers_gone);
	kill(rank, SIGKILL);
	waitpid(rank, &status, 0);
	usleep(100 * 1000);
	result(gone_status(&s, 1) == 0 &&
	       s.kp->peers_gone == 0,
	       "its death after the close is not a second event");
	close(ready[0]);
	survivor_close(&s);
}

struct thread_arg {
	int fd;
	int err;
};

static void *thread_dereg(void *p)
{
	struct thread_arg *a = p;
	struct pgas_ioc_dereg d = { .size = sizeof(d), .handle = 12345 };

	a->err = ioc(a->fd, PGAS_IOC_DEREG, &d);
	return NULL;
}

/*
 * The joiner owns the endpoint: its threads may use the fd; a file opened
 * by one process and joined by its child belongs to the child.
 */
static void test_owner_is_the_joiner(void)
{
	struct survivor s;
	struct thread_arg ta;
	struct pgas_ioc_rings r = rings_arg();
	int fd, res[2], cmd[2], e = 1, status;
	pthread_t th;
	pid_t pid;
	void *m;
	char x;

	if (survivor_open(&s) || pipe(res) || pipe(cmd)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	ta.fd = s.fd;
	ta.err = 1;
	if (pthread_create(&th, NULL, thread_dereg, &ta) == 0)
		pthread_join(th, NULL);
	result(ta.err == -ENOENT, "another thread of the owner may use the fd (DEREG: %d, want -ENOENT)",
	       ta.err);

	fd = open_dev();
	pid = fork();
	if (pid == 0) {
		int j = join(fd, &s.job, 1);

		if (write(res[1], &j, sizeof(j)) != sizeof(j))
			_exit(1);
		close(cmd[1]);
		while (read(cmd[0], &x, 1) > 0)
			;
		_exit(0);
	}
	close(cmd[0]);
	if (read(res[0], &e, sizeof(e)) != sizeof(e))
		e = 1;
	result(e == 0, "a child joins with a file its parent opened (%d)", e);
	e = ioc(fd, PGAS_IOC_RINGS_CREATE, &r);
	result(e == -EACCES, "then the parent cannot use it: RINGS_CREATE %d, want -EACCES", e);
	m = mmap(NULL, s.r.region_size, PROT_READ, MAP_SHARED, fd, (off_t)s.r.cookie);
	e = m == MAP_FAILED ? -errno : 0;
	result(e == -EACCES, "nor map through it: %d, want -EACCES", e);
	close(cmd[1]);
	waitpid(pid, &status, 0);
	close(fd);
	close(res[0]);
	close(res[1]);
	survivor_close(&s);
}

static int wake(int fd, unsigned int vpid, unsigned int flags, unsigned int pad)
{
	struct pgas_ioc_wake w = { .size = sizeof(w), .flags = flags, .vpid = vpid, .pad = pad };

	return ioc(fd, PGAS_IOC_WAKE, &w);
}

static int poll_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	return n < 0 ? -errno : n ? p.revents : 0;
}

struct poller {
	int fd;
	int revents;
	long long took;
};

static void *poll_thread(void *p)
{
	struct poller *pl = p;
	long long t0 = now_ms();

	pl->revents = poll_in(pl->fd, 5000);
	pl->took = now_ms() - t0;
	return NULL;
}

/* The owner sleeps in poll() with 'sleeping' set; after ms, fn wakes it. */
static int sleep_and_wake(struct survivor *s, int ms, void (*fn)(void *), void *arg,
			  struct poller *pl)
{
	pthread_t th;

	s->ctrl->sleeping = 1;
	pl->fd = s->fd;
	pl->revents = -1;
	if (pthread_create(&th, NULL, poll_thread, pl))
		return -1;
	usleep(ms * 1000);
	fn(arg);
	pthread_join(th, NULL);
	return 0;
}

static void wake_rank0(void *arg)
{
	wake(*(int *)arg, 0, 0, 0);
}

static void kill_rank(void *arg)
{
	int status;

	kill(*(pid_t *)arg, SIGKILL);
	waitpid(*(pid_t *)arg, &status, 0);
}

/* Block mode over pgas.ko: poll() and PGAS_IOC_WAKE. */
static void test_poll_wake(void)
{
	struct survivor s;
	struct pgas_ioc_rings r = rings_arg();
	struct poller pl;
	int b, fresh, ready[2], res[2], e[2] = { 1, 1 }, status;
	pid_t pid;
	char x;

	if (survivor_open(&s) || pipe(ready) || pipe(res)) {
		result(0, "setup: %s", strerror(errno));
		return;
	}
	b = open_dev();
	fresh = open_dev();
	if (join(b, &s.job, 1) || ioc(b, PGAS_IOC_RINGS_CREATE, &r))
		result(0, "rank 1 joins");
	s.ctrl->sleeping = 0;
	result(poll_in(s.fd, 0) == POLLIN, "poll: readable while 'sleeping' is 0");
	s.ctrl->sleeping = 1;
	result(poll_in(s.fd, 0) == 0, "poll: not readable while 'sleeping' is set");
	result(wake(b, 0, 0, 0) == 0 && s.ctrl->sleeping == 0 && poll_in(s.fd, 0) == POLLIN,
	       "WAKE(0) from rank 1 clears 'sleeping': readable");
	result(wake(b, 2, 0, 0) == -EINVAL, "WAKE of vpid 2 in a 2-rank job: -EINVAL");
	result(wake(b, 0, 1, 0) == -EINVAL, "WAKE with flags: -EINVAL");
	result(wake(b, 0, 0, 1) == -EINVAL, "WAKE with pad: -EINVAL");
	result(wake(fresh, 0, 0, 0) == -EBADFD && (poll_in(fresh, 0) & POLLERR),
	       "a file that has not joined: WAKE -EBADFD, poll POLLERR");

	if (sleep_and_wake(&s, 200, wake_rank0, &b, &pl) == 0)
		result(pl.revents == POLLIN && pl.took >= 150 && pl.took < 1000,
		       "a sleeping owner is woken by a peer's WAKE (revents %x after %lld ms)",
		       pl.revents, pl.took);
	close(b);
	result(wake(s.fd, 1, 0, 0) == -ENOENT, "WAKE of a rank that has left: -ENOENT");

	/* A child holding the survivor's fd can neither poll nor wake with it. */
	pid = fork();
	if (pid == 0) {
		e[0] = poll_in(s.fd, 0);
		e[1] = wake(s.fd, 0, 0, 0);
		if (write(res[1], e, sizeof(e)) != sizeof(e))
			_exit(1);
		_exit(0);
	}
	if (read(res[0], e, sizeof(e)) != sizeof(e))
		e[0] = e[1] = 1;
	waitpid(pid, &status, 0);
	result((e[0] & POLLERR) && e[1] == -EACCES,
	       "another mm: poll POLLERR (%x), WAKE -EACCES (%d)", e[0], e[1]);

	/* A peer's death wakes a sleeping owner, who finds the notification. */
	pid = fork();
	if (pid == 0) {
		int fd;

		if (rank_setup(&s, &fd) || write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(ready[0], &x, 1) == 1 && sleep_and_wake(&s, 200, kill_rank, &pid, &pl) == 0)
		result(pl.revents == POLLIN && pl.took >= 150 && pl.took < 1000 &&
		       is_gone(gone_status(&s, 1), 1),
		       "a sleeping owner is woken by a peer's death (revents %x after %lld ms)",
		       pl.revents, pl.took);
	else
		result(0, "rank 1 set up");
	close(fresh);
	close(ready[0]);
	close(ready[1]);
	close(res[0]);
	close(res[1]);
	survivor_close(&s);
}

/* One of a pair: maps the other's ring region and segment, then waits. */
static void pair_rank(const struct pgas_ioc_job_create *job, unsigned int vpid, int out, int in)
{
	struct pgas_ioc_rings r = rings_arg();
	char *seg = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
				    .addr = (uintptr_t)seg, .len = 16 * 4096 };
	unsigned long long mine[2], theirs[2];
	int fd = open_dev();

	if (join(fd, job, vpid) || ioc(fd, PGAS_IOC_RINGS_CREATE, &r) ||
	    ioc(fd, PGAS_IOC_REG, &reg))
		_exit(1);
	mine[0] = r.cookie;
	mine[1] = reg.cookie;
	if (write(out, mine, sizeof(mine)) != sizeof(mine) ||
	    read(in, theirs, sizeof(theirs)) != sizeof(theirs))
		_exit(1);
	if (mmap(NULL, r.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)theirs[0]) == MAP_FAILED ||
	    mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)theirs[1]) == MAP_FAILED)
		_exit(1);
	if (write(out, "m", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/*
 * Two ranks that map each other's memory die at once, files still held by
 * their mappings: each departure revokes a mapping in the other's mm and
 * may drop that mm's last reference.  (A first version departed inside
 * the mmu_notifier's ->release, whose nested exit_mmap then waited for
 * its own SRCU read section: both stuck in D state.)
 */
static void test_die_together(void)
{
	int round, rounds = 8, ok = 0;

	for (round = 0; round < rounds; round++) {
		int lfd = open_dev(), p0[2], p1[2], q0[2], q1[2], status, done = 0;
		struct pgas_ioc_job_create job = create_job(lfd, 2);
		unsigned long long c0[2], c1[2];
		pid_t a, b;
		long long t0;
		char m0, m1;

		if (pipe(p0) || pipe(p1) || pipe(q0) || pipe(q1))
			break;
		a = fork();
		if (a == 0)
			pair_rank(&job, 0, p0[1], q0[0]);
		b = fork();
		if (b == 0)
			pair_rank(&job, 1, p1[1], q1[0]);
		if (read(p0[0], c0, sizeof(c0)) == sizeof(c0) &&
		    read(p1[0], c1, sizeof(c1)) == sizeof(c1) &&
		    write(q0[1], c1, sizeof(c1)) == sizeof(c1) &&
		    write(q1[1], c0, sizeof(c0)) == sizeof(c0) &&
		    read(p0[0], &m0, 1) == 1 && read(p1[0], &m1, 1) == 1)
			ok++;
		kill(a, SIGKILL);
		kill(b, SIGKILL);
		t0 = now_ms();
		while (done < 2 && now_ms() - t0 < 20000) {
			pid_t w = waitpid(-1, &status, WNOHANG);

			if (w == a || w == b)
				done++;
			else
				usleep(10000);
		}
		close(p0[0]);
		close(p0[1]);
		close(p1[0]);
		close(p1[1]);
		close(q0[0]);
		close(q0[1]);
		close(q1[0]);
		close(q1[1]);
		close(lfd);
		if (done < 2) {
			result(0, "round %d: two ranks mapping each other, killed at once, still not reaped after 20 s (D state?)",
			       round);
			printf("Bail out! ranks stuck in the kernel\n");
			exit(1);
		}
	}
	usleep(200 * 1000);
	result(ok == rounds && sysfs("endpoints") == 0 && sysfs("pinned_pages") == 0,
	       "%d pairs of ranks mapping each other, killed at once: all reaped, nothing left (mapped %d, endpoints %ld, pinned %ld)",
	       rounds, ok, sysfs("endpoints"), sysfs("pinned_pages"));
}

/*
 * Job ids are not reused at once (ABI hygiene): a job made after another
 * was freed gets a new id, so an EP_DEAD/JOB_DEAD event or a dump line
 * about the old id cannot be taken for the new job.
 */
static void test_job_ids_not_reused(void)
{
	unsigned int ids[4];
	int i, fresh = 1;

	for (i = 0; i < 4; i++) {
		int lfd = open_dev();

		ids[i] = create_job(lfd, 1).job_id;
		close(lfd);	/* the job is freed */
	}
	for (i = 1; i < 4; i++)
		if (ids[i] <= ids[i - 1])
			fresh = 0;
	result(fresh && ids[0], "job ids made one after another's death are new: %u %u %u %u",
	       ids[0], ids[1], ids[2], ids[3]);
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

/*
 * Deleting a NIC (pgasctl destroy, netlink NIC_DEL) with a live job revokes
 * it: every endpoint departs as dead, its mappings are revoked and its pins
 * released, and the open files refuse everything with -ENODEV.
 */
static void test_nic_delete_revokes(void)
{
	char dev[64], line[64], cmd[96];
	struct pgas_ioc_job_create job = { .size = sizeof(job), .nranks = 2 };
	struct pgas_ioc_rings r0 = rings_arg(), r1 = rings_arg(), r2 = rings_arg();
	char *seg = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
				    .addr = (uintptr_t)seg, .len = 16 * 4096 };
	struct pgas_ioc_dereg d = { .size = sizeof(d), .handle = 1 };
	struct pgas_ctrl_page *ctrl0 = MAP_FAILED;
	struct pgas_kern_page *kern0 = MAP_FAILED;
	int lfd, a, b, spare, id = -1, e1, e2, e3, e4;
	char *peer_seg = MAP_FAILED;
	FILE *f = popen("pgasctl create", "r");

	if (!f || !fgets(line, sizeof(line), f) || sscanf(line, "pgas%d", &id) != 1) {
		if (f)
			pclose(f);
		result(0, "pgasctl create makes a NIC to delete");
		return;
	}
	pclose(f);
	snprintf(dev, sizeof(dev), "/dev/pgas%d", id);
	lfd = open(dev, O_RDWR);
	a = open(dev, O_RDWR);
	b = open(dev, O_RDWR);
	spare = open(dev, O_RDWR);
	if (lfd < 0 || a < 0 || b < 0 || spare < 0 || ioc(lfd, PGAS_IOC_JOB_CREATE, &job) ||
	    join(a, &job, 0) || ioc(a, PGAS_IOC_RINGS_CREATE, &r0) || join(b, &job, 1) ||
	    ioc(b, PGAS_IOC_RINGS_CREATE, &r1) || ioc(b, PGAS_IOC_REG, &reg)) {
		result(0, "a 2-rank job on %s: %s", dev, strerror(errno));
		return;
	}
	ctrl0 = mmap(NULL, r0.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, a,
		     (off_t)r0.cookie);
	peer_seg = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, a,
			(off_t)reg.cookie);
	kern0 = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, a,
		     (off_t)r0.kern_cookie);
	memset(seg, 0x6b, 16 * 4096);
	result(ctrl0 != MAP_FAILED && peer_seg != MAP_FAILED && peer_seg[5] == 0x6b &&
	       ctrl0->magic == PGAS_ABI_MAGIC && kern0 != MAP_FAILED && kern0->peers_gone == 0,
	       "a job runs on %s: rank 0 maps its rings and rank 1's segment", dev);
	snprintf(cmd, sizeof(cmd), "pgasctl destroy %d", id);
	result(system(cmd) == 0 && access(dev, F_OK) != 0, "%s deleted with the job live", dev);

	/* A revoked mapping faults in a throwaway page (defect 15): zeros. */
	result(peer_seg != MAP_FAILED && touch(peer_seg) == 0 && peer_seg[5] == 0,
	       "rank 0's mapping of rank 1's segment is revoked (reads zeros)");
	result(ctrl0 != MAP_FAILED && touch((char *)ctrl0) == 0 && ctrl0->magic == 0,
	       "rank 0's own ring region is revoked (reads zeros)");
	/* Its kernel page tells it so: libpgas stops waiting instead of hanging. */
	result(kern0 != MAP_FAILED && kern0->peers_gone == PGAS_KERN_REVOKED &&
	       kern0->magic == PGAS_ABI_MAGIC && kern0->rank == 0 && kern0->nranks == 2,
	       "rank 0's kernel page shows it was taken away (peers_gone %#x, magic %#x, rank %u)",
	       kern0 != MAP_FAILED ? kern0->peers_gone : 0, kern0 != MAP_FAILED ? kern0->magic : 0,
	       kern0 != MAP_FAILED ? kern0->rank : 0);
	e1 = ioc(b, PGAS_IOC_REG, &reg);
	e2 = ioc(a, PGAS_IOC_RINGS_CREATE, &r2);
	e3 = ioc(b, PGAS_IOC_DEREG, &d);
	e4 = join(spare, &job, 1);
	result(e1 == -ENODEV && e2 == -ENODEV && e3 == -ENODEV && e4 == -ENODEV,
	       "its endpoints refuse REG %d, RINGS_CREATE %d, DEREG %d; a JOIN %d (want -ENODEV)",
	       e1, e2, e3, e4);
	if (ctrl0 != MAP_FAILED)
		munmap(ctrl0, r0.region_size);
	if (peer_seg != MAP_FAILED)
		munmap(peer_seg, 16 * 4096);
	if (kern0 != MAP_FAILED)
		munmap(kern0, (size_t)sysconf(_SC_PAGESIZE));
	close(a);
	close(b);
	close(spare);
	close(lfd);
	munmap(seg, 16 * 4096);
}

/*
 * The page size is the running kernel's, reported by RINGS_CREATE, and the
 * region is laid out with it; a caller of ABI 2 (48-byte struct) still
 * works and is not told.
 */
static void test_page_size(void)
{
	int lfd = open_dev(), a = open_dev(), b = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	struct pgas_ioc_rings r = rings_arg(), old = rings_arg(), old3 = rings_arg();
	int lfd3 = open_dev(), c = open_dev(), e1, e2, e3;
	struct pgas_ioc_job_create job3 = create_job(lfd3, 1);
	struct pgas_region_layout l;
	long ps = sysconf(_SC_PAGESIZE);

	pgas_region_layout(64, 64, 2, 1024, 2, &l);
	join(a, &job, 0);
	join(b, &job, 1);
	join(c, &job3, 0);
	r.page_size = 12345;
	e1 = ioc(a, PGAS_IOC_RINGS_CREATE, &r);
	result(e1 == 0 && r.page_size == (unsigned int)ps && r.region_size == l.size &&
	       l.notify_off % (unsigned long)ps == 0,
	       "RINGS_CREATE reports the page size %u (sysconf: %ld); region %llu bytes as laid out at it",
	       r.page_size, ps, (unsigned long long)r.region_size);
	old.size = 48;	/* ABI 2's struct: up to kern_cookie */
	old.page_size = 777;
	e2 = ioc(b, PGAS_IOC_RINGS_CREATE, &old);
	result(e2 == 0 && old.page_size == 777 && old.region_size == l.size,
	       "an ABI 2 caller (48-byte struct) gets its rings and nothing past its struct (%d)",
	       e2);
	/* Its layout as pgas.ko made it: the one user space computes. */
	result(e1 == 0 && !memcmp(&r.layout, &l, sizeof(l)) && r.layout.size == r.region_size,
	       "RINGS_CREATE reports the region's layout: ctrl %llu, mbox %llu %llu, notify %llu, bounce %llu, size %llu",
	       (unsigned long long)r.layout.ctrl_off, (unsigned long long)r.layout.mbox_off[0],
	       (unsigned long long)r.layout.mbox_off[1], (unsigned long long)r.layout.notify_off,
	       (unsigned long long)r.layout.bounce_off, (unsigned long long)r.layout.size);
	old3.size = 56;	/* ABI 3's struct: up to page_size and pad */
	old3.layout.size = 999;
	e3 = ioc(c, PGAS_IOC_RINGS_CREATE, &old3);
	result(e3 == 0 && old3.page_size == (unsigned int)ps && old3.layout.size == 999,
	       "a 56-byte RINGS_CREATE gets its rings and no layout (%d, layout.size %llu)", e3,
	       (unsigned long long)old3.layout.size);
	close(c);
	close(lfd3);
	close(a);
	close(b);
	close(lfd);
}

int main(void)
{
	printf("TAP version 13\n");
	/* Orphaned helpers (their parent rank was killed) come back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	test_killed_with_child();
	test_exit_with_child(0);
	test_exit_with_child(3);
	test_clean_close();
	test_owner_is_the_joiner();
	test_poll_wake();
	test_die_together();
	test_job_ids_not_reused();
	test_nic_delete_revokes();
	test_page_size();
	result(sysfs("endpoints") == 0 && sysfs("pinned_pages") == 0 && sysfs("jobs") == 0,
	       "nothing left: endpoints %ld, pinned pages %ld, jobs %ld", sysfs("endpoints"),
	       sysfs("pinned_pages"), sysfs("jobs"));
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
