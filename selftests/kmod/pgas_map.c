// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_map - kselftest-style tests of pgas.ko's mappings (TAP on stdout).
 *
 * Revocation: when the owner of a ring region or registration
 * deregisters, closes or dies, a peer that still maps it must be able to
 * read and write it without dying (it gets a throwaway page of zeros, its
 * own obj's, never another's), and nothing is leaked once it unmaps.
 * Run as root in the VM tier.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgas_abi.h"
#include "pgas_layout.h"

#define DEV "/dev/pgas0"
#define SYS "/sys/class/misc/pgas0/"
#define PG 4096

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

/* Registers len bytes of fresh anonymous memory filled with fill. */
static struct pgas_ioc_reg reg_anon(int fd, size_t len, unsigned int flags, int fill,
				    char **mem)
{
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = flags, .len = len };
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	memset(m, fill, len);
	reg.addr = (uintptr_t)m;
	if (ioc(fd, PGAS_IOC_REG, &reg))
		printf("# REG failed: %s\n", strerror(errno));
	if (mem)
		*mem = m;
	return reg;
}

static int dereg(int fd, unsigned long long handle)
{
	struct pgas_ioc_dereg d = { .size = sizeof(d), .handle = handle };

	return ioc(fd, PGAS_IOC_DEREG, &d);
}

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/*
 * Reads (and, if val >= 0, then writes val to and reads back) one byte;
 * returns the signal that raised, or 0, and the byte read last in *got.
 */
static int poke(volatile char *p, int val, int *got)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_bus, old_segv;
	int sig;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig) {
		*got = (unsigned char)*p;
		if (val >= 0) {
			*p = (char)val;
			*got = (unsigned char)*p;
		}
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

static const char *signame(int sig)
{
	return sig == SIGBUS ? "SIGBUS" : sig == SIGSEGV ? "SIGSEGV" : sig ? "a signal" : "none";
}

/*
 * Every page of a revoked mapping reads (zeros, unless others wrote there)
 * and keeps what is written, without a signal.
 */
static void check_revoked(char *m, size_t len, int writable, int zeros_only, const char *what)
{
	int sig = 0, got = 0, zeros = 1;
	size_t off;

	for (off = 0; off < len && !sig; off += PG) {
		sig = poke(m + off + 100, -1, &got);
		if (got)
			zeros = 0;
	}
	result(!sig && (zeros || !zeros_only), "%s: a revoked mapping reads%s (signal: %s)", what,
	       zeros_only ? " zeros" : "", signame(sig));
	if (writable) {
		sig = poke(m + len - PG + 7, 0x77, &got);
		result(!sig && got == 0x77, "%s: a revoked mapping takes a write (signal: %s, %#x)",
		       what, signame(sig), got);
	} else {
		sig = poke(m + 7, 0x77, &got);
		result(sig == SIGSEGV, "%s: a read-only revoked mapping still refuses a write (%s)",
		       what, signame(sig));
	}
}

/* The counters that must go back to where they were. */
struct counters {
	long endpoints, jobs, pinned, ring_bytes;
};

static struct counters counters(void)
{
	struct counters c = {
		sysfs("endpoints"), sysfs("jobs"), sysfs("pinned_pages"), sysfs("ring_bytes"),
	};

	return c;
}

static void check_counters(const struct counters *c0, const char *what)
{
	struct counters c = counters();

	result(!memcmp(&c, c0, sizeof(c)),
	       "%s: counters back (endpoints %ld, jobs %ld, pinned %ld, ring bytes %ld)", what,
	       c.endpoints, c.jobs, c.pinned, c.ring_bytes);
}

/* Deregistration under a peer's mapping of a registration (both kinds). */
static void test_dereg_harmless(void)
{
	struct counters c0 = counters();
	int lfd = open_dev(), a = open_dev(), b = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	struct pgas_ioc_reg rw, ro;
	size_t len = 8 * PG;
	char *seg_rw, *seg_ro, *m_rw, *m_ro;
	int got = 0;

	join(a, &job, 0);
	join(b, &job, 1);
	rw = reg_anon(a, len, PGAS_REG_WRITE, 0x5a, &seg_rw);
	ro = reg_anon(a, len, 0, 0x3c, &seg_ro);
	m_rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, b, (off_t)rw.cookie);
	m_ro = mmap(NULL, len, PROT_READ, MAP_SHARED, b, (off_t)ro.cookie);
	if (m_rw == MAP_FAILED || m_ro == MAP_FAILED) {
		result(0, "peer maps the registrations: %s", strerror(errno));
		return;
	}
	result(!poke(m_rw + 3 * PG, -1, &got) && got == 0x5a &&
	       !poke(m_ro + 5 * PG, -1, &got) && got == 0x3c, "peer reads the owner's bytes");
	result(!dereg(a, rw.handle) && !dereg(a, ro.handle), "owner deregisters both");
	check_revoked(m_rw, len, 1, 1, "writable registration");
	check_revoked(m_ro, len, 0, 1, "read-only registration");
	result(seg_rw[len - PG + 7] == 0x5a, "a write after revocation never reaches the owner");
	munmap(m_rw, len);
	munmap(m_ro, len);
	close(a);
	close(b);
	close(lfd);
	munmap(seg_rw, len);
	munmap(seg_ro, len);
	check_counters(&c0, "deregistration under a mapping");
}

/* The owner of a ring region closes its file under a peer's mapping. */
static void test_close_harmless(void)
{
	struct counters c0 = counters();
	int lfd = open_dev(), a = open_dev(), b = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	struct pgas_ioc_rings r = rings_arg();
	struct pgas_ctrl_page *ctrl;
	int got = 0;

	join(a, &job, 0);
	join(b, &job, 1);
	ioc(b, PGAS_IOC_RINGS_CREATE, &r);
	ctrl = mmap(NULL, r.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, a, (off_t)r.cookie);
	if (ctrl == MAP_FAILED) {
		result(0, "peer maps the rings: %s", strerror(errno));
		return;
	}
	result(!poke((char *)&ctrl->magic, -1, &got) && ctrl->rank == 1, "peer reads the control page");
	close(b);
	check_revoked((char *)ctrl, r.region_size, 1, 1, "ring region of a closed endpoint");
	munmap(ctrl, r.region_size);
	close(a);
	close(lfd);
	check_counters(&c0, "closed owner");
}

/*
 * A SIGKILLed owner: its segment and rings, mapped here, are revoked under
 * a child that reads and writes them in a loop the whole time; the child
 * must live through it.
 */
static void test_death_harmless(void)
{
	struct counters c0 = counters();
	int lfd = open_dev(), a = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 3);
	unsigned long long cookies[3] = { 0, 0, 0 };
	int ready[2], go[2], status = 0, status2 = 0;
	size_t len = 16 * PG;
	char *seg, *rings;
	atomic_int *stop = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				-1, 0);
	pid_t owner, user;

	join(a, &job, 0);
	if (pipe(ready))
		return;
	owner = fork();
	if (owner == 0) {
		int fd = open_dev();
		struct pgas_ioc_rings r = rings_arg();
		struct pgas_ioc_reg reg;

		join(fd, &job, 1);
		ioc(fd, PGAS_IOC_RINGS_CREATE, &r);
		reg = reg_anon(fd, len, PGAS_REG_WRITE, 0x11, NULL);
		cookies[0] = reg.cookie;
		cookies[1] = r.cookie;
		cookies[2] = r.region_size;
		if (write(ready[1], cookies, sizeof(cookies)) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], cookies, sizeof(cookies)) != sizeof(cookies)) {
		result(0, "owner ready");
		return;
	}
	seg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, a, (off_t)cookies[0]);
	rings = mmap(NULL, cookies[2], PROT_READ | PROT_WRITE, MAP_SHARED, a, (off_t)cookies[1]);
	if (seg == MAP_FAILED || rings == MAP_FAILED) {
		result(0, "peer maps the owner's segment and rings: %s", strerror(errno));
		kill(owner, SIGKILL);
		waitpid(owner, &status, 0);
		return;
	}
	result(seg[5 * PG] == 0x11, "peer reads the owner's segment");
	if (pipe(go))
		return;
	/* An endpoint of its own (one belongs to the process that joined). */
	user = fork();
	if (user == 0) {
		volatile char *s, *rr;
		int fd = open_dev();
		long left;
		char c;
		size_t i;

		if (join(fd, &job, 2))
			_exit(4);
		s = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)cookies[0]);
		rr = mmap(NULL, cookies[2], PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			  (off_t)cookies[1]);
		if (s == MAP_FAILED || rr == MAP_FAILED)
			_exit(2);
		if (write(go[1], "g", 1) < 0)
			_exit(3);
		/* No handler: SIGBUS kills it, and the parent sees that. */
		for (i = 0, left = -1; left; i++) {
			if (left > 0)
				left--;
			else if (atomic_load(stop))
				left = 100000;	/* a while longer after the death */
			c = s[(i * 577) % len];
			s[(i * 1031) % len] = (char)(c + 1);
			c = rr[(i * 331) % cookies[2]];
			rr[(i * 4099) % cookies[2]] = (char)(c + 1);
		}
		_exit(0);
	}
	close(go[1]);
	if (read(go[0], &status, 1) != 1)
		result(0, "the user maps the owner's memory");
	usleep(20 * 1000);
	kill(owner, SIGKILL);
	waitpid(owner, &status, 0);
	atomic_store(stop, 1);
	waitpid(user, &status2, 0);
	result(WIFEXITED(status2) && WEXITSTATUS(status2) == 0,
	       "a process reading and writing a dying owner's memory lives (status %#x)", status2);
	check_revoked(seg, len, 1, 0, "segment of a killed owner");
	check_revoked(rings, cookies[2], 1, 0, "rings of a killed owner");
	munmap(seg, len);
	munmap(rings, cookies[2]);
	close(ready[0]);
	close(go[0]);
	close(a);
	close(lfd);
	munmap(stop, PG);
	check_counters(&c0, "killed owner");
}

/*
 * The throwaway page is the obj's own: what is written to one revoked
 * mapping never shows in another obj's, nor another job's.
 */
static void test_dummy_private(void)
{
	int l1 = open_dev(), l2 = open_dev(), a1 = open_dev(), b1 = open_dev();
	int a2 = open_dev(), b2 = open_dev();
	struct pgas_ioc_job_create j1 = create_job(l1, 2), j2 = create_job(l2, 2);
	struct pgas_ioc_reg r1, r1b, r2;
	char *m1, *m1b, *m2;
	int got = 0, sig;

	join(a1, &j1, 0);
	join(b1, &j1, 1);
	join(a2, &j2, 0);
	join(b2, &j2, 1);
	r1 = reg_anon(a1, PG, PGAS_REG_WRITE, 1, NULL);
	r1b = reg_anon(a1, PG, PGAS_REG_WRITE, 1, NULL);
	r2 = reg_anon(a2, PG, PGAS_REG_WRITE, 2, NULL);
	m1 = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, b1, (off_t)r1.cookie);
	m1b = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, b1, (off_t)r1b.cookie);
	m2 = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, b2, (off_t)r2.cookie);
	if (m1 == MAP_FAILED || m1b == MAP_FAILED || m2 == MAP_FAILED) {
		result(0, "maps for the privacy test: %s", strerror(errno));
		return;
	}
	dereg(a1, r1.handle);
	dereg(a1, r1b.handle);
	dereg(a2, r2.handle);
	sig = poke(m1 + 64, 0xab, &got);
	result(!sig && got == 0xab, "job 1 writes its revoked mapping");
	sig = poke(m1b + 64, -1, &got);
	result(!sig && got == 0, "another obj's revoked mapping does not see it (%#x)", got);
	sig = poke(m2 + 64, -1, &got);
	result(!sig && got == 0, "another job's revoked mapping does not see it (%#x)", got);
	munmap(m1, PG);
	munmap(m1b, PG);
	munmap(m2, PG);
	close(a1);
	close(b1);
	close(a2);
	close(b2);
	close(l1);
	close(l2);
}

/*
 * Revocation vs munmap, mremap and faults: mapper processes, two threads
 * each, map the owner's current registration, touch every page (read and
 * write), split it (munmap of a middle page), move a part (mremap), shrink
 * it, touch again and unmap, in a loop, while the owner deregisters and
 * registers again under them.  A mapper has no SIGBUS/SIGSEGV handler: it
 * must live, and the kernel must not oops, warn or leak.
 */
#define STRESS_PAGES	64
#define STRESS_MAPPERS	2

struct stress_shared {
	atomic_int stop;
	atomic_ullong cookie;		/* of the current registration, or 0 */
	atomic_long maps, refused, touches, regs, errors;
};

struct stress_thread {
	struct stress_shared *sh;
	int fd;
	unsigned int seed;
};

static void stress_touch(volatile char *m, size_t len, struct stress_shared *sh)
{
	size_t off;

	for (off = 0; off < len; off += PG) {
		char c = m[off + 8];

		m[off + 16] = (char)(c + 1);
	}
	atomic_fetch_add(&sh->touches, 1);
}

static void *stress_mapper_thread(void *p)
{
	struct stress_thread *t = p;
	struct stress_shared *sh = t->sh;
	size_t len = STRESS_PAGES * PG;

	while (!atomic_load(&sh->stop)) {
		unsigned long long cookie = atomic_load(&sh->cookie);
		char *m, *moved, *res;

		if (!cookie) {
			usleep(100);
			continue;
		}
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, (off_t)cookie);
		if (m == MAP_FAILED) {
			atomic_fetch_add(&sh->refused, 1);	/* gone already */
			continue;
		}
		atomic_fetch_add(&sh->maps, 1);
		stress_touch(m, len, sh);
		switch (rand_r(&t->seed) % 3) {
		case 0:		/* split: a hole in the middle */
			munmap(m + len / 2, PG);
			stress_touch(m, len / 2, sh);
			stress_touch(m + len / 2 + PG, len / 2 - PG, sh);
			/* Only what is ours: the other thread may map into a hole. */
			munmap(m, len / 2);
			munmap(m + len / 2 + PG, len / 2 - PG);
			break;
		case 1:		/* move the first half onto a place of our own */
			res = mmap(NULL, len / 2, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			moved = res == MAP_FAILED ? MAP_FAILED :
				mremap(m, len / 2, len / 2, MREMAP_MAYMOVE | MREMAP_FIXED, res);
			if (moved == MAP_FAILED) {
				atomic_fetch_add(&sh->errors, 1);
				if (res != MAP_FAILED)
					munmap(res, len / 2);
				munmap(m, len);
				break;
			}
			stress_touch(moved, len / 2, sh);
			munmap(moved, len / 2);
			/* Only what is ours: the other thread may map into the hole. */
			stress_touch(m + len / 2, len / 2, sh);
			munmap(m + len / 2, len / 2);
			break;
		default:	/* shrink in place, then unmap */
			if (mremap(m, len, PG, 0) == MAP_FAILED) {
				atomic_fetch_add(&sh->errors, 1);
				munmap(m, len);
				break;
			}
			stress_touch(m, PG, sh);
			munmap(m, PG);
			break;
		}
	}
	return NULL;
}

static void stress_mapper(const struct pgas_ioc_job_create *job, unsigned int vpid,
			  struct stress_shared *sh)
{
	struct stress_thread t[2];
	pthread_t th[2];
	int fd = open_dev(), i;

	if (join(fd, job, vpid))
		_exit(2);
	for (i = 0; i < 2; i++) {
		t[i] = (struct stress_thread){ .sh = sh, .fd = fd, .seed = vpid * 7 + i };
		pthread_create(&th[i], NULL, stress_mapper_thread, &t[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	close(fd);
	_exit(0);
}

static void test_revoke_stress(void)
{
	struct counters c0 = counters();
	long mmaps0 = sysfs("mmaps");
	int lfd = open_dev(), a = open_dev(), i, status, dead = 0, seconds = 4;
	struct pgas_ioc_job_create job = create_job(lfd, 1 + STRESS_MAPPERS);
	struct stress_shared *sh = mmap(NULL, PG, PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	size_t len = STRESS_PAGES * PG;
	char *seg[2];
	pid_t pid[STRESS_MAPPERS];
	struct timespec t0, now;
	long errors = 0;

	join(a, &job, 0);
	seg[0] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	seg[1] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(seg[0], 1, len);
	memset(seg[1], 2, len);
	for (i = 0; i < STRESS_MAPPERS; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			stress_mapper(&job, 1 + i, sh);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
					    .len = len };

		reg.addr = (uintptr_t)seg[atomic_load(&sh->regs) & 1];
		if (ioc(a, PGAS_IOC_REG, &reg)) {
			errors++;
			break;
		}
		atomic_store(&sh->cookie, reg.cookie);
		usleep(1000 + rand() % 4000);	/* let them map it */
		atomic_store(&sh->cookie, 0);
		if (dereg(a, reg.handle))
			errors++;
		atomic_fetch_add(&sh->regs, 1);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec < seconds);
	atomic_store(&sh->stop, 1);
	for (i = 0; i < STRESS_MAPPERS; i++) {
		waitpid(pid[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# mapper %d: %s %d\n", i, WIFSIGNALED(status) ? "killed by signal" :
			       "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			dead++;
		}
	}
	errors += atomic_load(&sh->errors);	/* the owner's ioctls, the mappers' mremaps */
	result(!dead && !errors && atomic_load(&sh->maps) > 0 && atomic_load(&sh->regs) > 0,
	       "revocation vs mmap/munmap/mremap/faults for %d s: %d of %d mappers died, "
	       "%ld registrations, %ld maps (%ld refused), %ld touches, %ld errors", seconds,
	       dead, STRESS_MAPPERS, atomic_load(&sh->regs), atomic_load(&sh->maps),
	       atomic_load(&sh->refused), atomic_load(&sh->touches), errors);
	close(a);
	close(lfd);
	munmap(seg[0], len);
	munmap(seg[1], len);
	munmap(sh, PG);
	check_counters(&c0, "after the stress");
	result(sysfs("mmaps") == mmaps0, "live mappings back to %ld (%ld)", mmaps0, sysfs("mmaps"));
}

/*
 * What pgas.ko writes lives on a kernel page that nobody can map writable;
 * what peers forge in the ring region (the ABI 1 peers_gone word, a
 * PEER_GONE notification) does not reach it.  An ABI 1 caller (a 40-byte
 * RINGS_CREATE) still gets its rings.
 */
static void test_kernel_page(void)
{
	struct counters c0 = counters();
	int lfd = open_dev(), a = open_dev(), b = open_dev(), c = open_dev();
	struct pgas_ioc_job_create job = create_job(lfd, 4);
	struct pgas_ioc_rings r = rings_arg(), r1 = rings_arg();
	int ready[2];
	char joined[1];
	pid_t pid;
	const struct pgas_kern_page *kp_a, *kp_b;
	struct pgas_region_layout l;
	struct pgas_ctrl_page *ctrl;
	struct pgas_notify_entry *ring;
	void *m;
	int got = 0, sig;

	join(a, &job, 0);
	join(b, &job, 1);
	join(c, &job, 2);
	ioc(b, PGAS_IOC_RINGS_CREATE, &r);
	result(r.kern_cookie && r.kern_cookie != r.cookie && !(r.kern_cookie & 4095),
	       "RINGS_CREATE returns a kernel page cookie (%#llx)", (unsigned long long)r.kern_cookie);
	m = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, a, (off_t)r.kern_cookie);
	result(m == MAP_FAILED && errno == EACCES, "a peer maps the kernel page writable: EACCES (%s)",
	       m == MAP_FAILED ? strerror(errno) : "mapped");
	if (m != MAP_FAILED)
		munmap(m, PG);
	m = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, b, (off_t)r.kern_cookie);
	result(m == MAP_FAILED && errno == EACCES, "its owner maps it writable: EACCES (%s)",
	       m == MAP_FAILED ? strerror(errno) : "mapped");
	if (m != MAP_FAILED)
		munmap(m, PG);
	m = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, a, (off_t)r.kern_cookie);
	result(m == MAP_FAILED && errno == EINVAL, "two pages of a one-page kernel page: EINVAL");
	kp_a = mmap(NULL, PG, PROT_READ, MAP_SHARED, a, (off_t)r.kern_cookie);
	kp_b = mmap(NULL, PG, PROT_READ, MAP_SHARED, b, (off_t)r.kern_cookie);
	ctrl = mmap(NULL, r.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, a, (off_t)r.cookie);
	if (kp_a == MAP_FAILED || kp_b == MAP_FAILED || ctrl == MAP_FAILED) {
		result(0, "mapping the kernel page read-only and the rings: %s", strerror(errno));
		close(a);
		close(b);
		close(c);
		close(lfd);
		return;
	}
	result(kp_a->magic == PGAS_ABI_MAGIC && kp_a->version == PGAS_ABI_VERSION &&
	       kp_a->rank == 1 && kp_a->nranks == 4 && kp_a->mbox_slots == 64 &&
	       kp_a->notify_entries == 64 && kp_a->bounce_size == 1024,
	       "kernel page: magic, ABI %u, rank 1 of 4, geometry", kp_a->version);
	result(mprotect((void *)kp_a, PG, PROT_READ | PROT_WRITE) < 0 && errno == EACCES,
	       "the read-only mapping cannot be made writable");
	sig = poke((char *)&kp_a->peers_gone, 1, &got);
	result(sig == SIGSEGV && kp_a->peers_gone == 0, "a write to peers_gone faults (%s)",
	       signame(sig));

	/* a forges in b's ring region what ABI 1 had pgas.ko write there. */
	*(volatile uint32_t *)((char *)ctrl + offsetof(struct pgas_ctrl_page, sleeping) + 4) = 1;
	pgas_region_layout(64, 64, 2, 1024, 4, &l);
	ring = (struct pgas_notify_entry *)((char *)ctrl + l.notify_off);
	ring[0].size = 1;
	ring[0].tag = 2;
	ring[0].status = PGAS_NOTIFY_STATUS(1, 2, PGAS_NOTIFY_PEER_GONE);
	ctrl->notify.tail = 1;
	result(kp_b->peers_gone == 0 && kp_b->peers_left == 0 && kp_b->gone_tail == 0,
	       "forgeries in the ring region leave the kernel page alone");

	/* Real departures: c leaves cleanly, then a dies (its file closed by exit). */
	close(c);
	result(kp_b->peers_left == 1 && kp_b->peers_gone == 0 && kp_b->gone_tail == 1 &&
	       kp_b->gone[0].vpid == 2 && kp_b->gone[0].died == 0,
	       "a clean departure: peers_left 1, event (2, left)");
	munmap((void *)kp_a, PG);
	munmap(ctrl, r.region_size);
	if (pipe(ready) == 0) {
		pid = fork();
		if (pid == 0) {
			int d = open_dev();

			if (join(d, &job, 3) || write(ready[1], "j", 1) != 1)
				_exit(1);
			_exit(9);	/* exits non-zero: a death */
		}
		close(ready[1]);
		got = read(ready[0], joined, 1) == 1;
		waitpid(pid, NULL, 0);
		close(ready[0]);
	}
	result(got && kp_b->peers_gone == 1 && kp_b->gone_tail == 2 &&
	       kp_b->gone[1].vpid == 3 && kp_b->gone[1].died == 1,
	       "a death: peers_gone 1, event (3, died) (%u, %llu)", kp_b->peers_gone,
	       (unsigned long long)kp_b->gone_tail);
	close(a);
	munmap((void *)kp_b, PG);

	/* ABI 1's RINGS_CREATE (40 bytes, no kern_cookie) still works. */
	c = open_dev();
	join(c, &job, 2);
	r1.size = PGAS_IOC_RINGS_SIZE_VER0;
	r1.kern_cookie = 0x1234;	/* beyond the caller's size: neither read nor written */
	result(!ioc(c, PGAS_IOC_RINGS_CREATE, &r1) && r1.cookie && r1.kern_cookie == 0x1234,
	       "a 40-byte (ABI 1) RINGS_CREATE gets its rings and no kernel page cookie");
	close(c);
	close(b);
	close(lfd);
	check_counters(&c0, "kernel page");
}

/* A line of /proc/meminfo, in kB; -1 if it is not there. */
static long meminfo_kb(const char *name)
{
	char line[128];
	size_t n = strlen(name);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * Issue 21, 2: DEREG gives the kernel memory of a registration back at
 * once, however long a peer keeps a page of it mapped: only the obj (a
 * small stub) stays.  Rounds of REG 16 MiB, a peer maps one page of it,
 * DEREG: the 32 KiB page array (a large kmalloc, in SUnreclaim, never in
 * KASAN's quarantine) was kept with the mm until the mapping went; the
 * bound is a quarter of that a round.
 */
#define DEREG_ROUNDS 1000
#define DEREG_LEN (16 << 20)

static void test_dereg_frees_at_once(void)
{
	static void *maps[DEREG_ROUNDS];
	struct counters c0 = counters();
	int lfd = open_dev(), a = open_dev(), b = open_dev(), i, n = 0, bad = 0;
	struct pgas_ioc_job_create job = create_job(lfd, 2);
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE, .len = DEREG_LEN };
	char *mem = mmap(NULL, DEREG_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	long kb0, kb, per_round, array = DEREG_LEN / PG * sizeof(void *);

	join(a, &job, 0);
	join(b, &job, 1);
	memset(mem, 1, DEREG_LEN);
	kb0 = meminfo_kb("SUnreclaim");
	for (i = 0; i < DEREG_ROUNDS && !bad; i++) {
		reg.addr = (uintptr_t)mem;
		if (ioc(a, PGAS_IOC_REG, &reg)) {
			bad = errno;
			break;
		}
		maps[n] = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, b, (off_t)reg.cookie);
		if (maps[n] == MAP_FAILED)
			bad = errno;
		else
			n++;
		if (dereg(a, reg.handle))
			bad = errno;
	}
	kb = meminfo_kb("SUnreclaim");
	per_round = n ? (kb - kb0) * 1024 / n : 0;
	result(!bad && n == DEREG_ROUNDS, "%d rounds of REG %d MiB, a peer maps a page, DEREG (%s)",
	       n, DEREG_LEN >> 20, bad ? strerror(bad) : "ok");
	result(kb0 >= 0 && per_round < array / 4,
	       "DEREG gives the memory back under the mappings: %ld bytes a round (SUnreclaim %+ld kB; a page array is %ld)",
	       per_round, kb - kb0, array);
	for (i = 0; i < n; i++)
		munmap(maps[i], PG);
	close(a);
	close(b);
	close(lfd);
	munmap(mem, DEREG_LEN);
	check_counters(&c0, "rounds of DEREG under a mapping");
}

int main(void)
{
	struct counters c0;

	printf("TAP version 13\n");
	c0 = counters();
	test_dereg_harmless();
	test_close_harmless();
	test_death_harmless();
	test_dummy_private();
	test_revoke_stress();
	test_kernel_page();
	test_dereg_frees_at_once();
	check_counters(&c0, "pgas_map");
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
