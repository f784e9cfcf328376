// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_fuzz - a seeded random driver of /dev/pgas0 (TAP on stdout).
 *
 *   pgas_fuzz [SEED [SECONDS]]      or PGAS_FUZZ_SEED, PGAS_FUZZ_SECONDS
 *
 * Prints "pgas_fuzz: seed N" first.  The run is a sequence of episodes,
 * each with a seed of its own derived from (SEED, episode number) and
 * started from a clean state; it stops starting episodes after SECONDS
 * (default 60; time-bounded, not count-bounded, so a slow debug kernel
 * just runs fewer).  An episode is one of:
 *
 *   seq      one process, a random sequence of operations: open/close/dup,
 *            every ioctl with valid, boundary and garbage arguments (sizes
 *            0, min-1, exact, larger with zero and non-zero tails, page,
 *            page+1, 2^32-1; argument pointers NULL, unmapped, read-only,
 *            kernel, straddling into a hole, in a page dropped before the
 *            call), wrong commands, mmap/munmap/mremap/mprotect/madvise of
 *            ring regions and registrations (live, dead and wrong cookies,
 *            offsets, lengths, prots, flags), touching and scribbling over
 *            the mappings (control pages included), REG/DEREG of anonymous,
 *            shared, memfd, file-backed (ramfs), read-only, PROT_NONE,
 *            partially unmapped and huge-page memory, fork (the child uses
 *            the fd), exec (the fd survives into a new image), kill -9 of
 *            children, fds passed over SCM_RIGHTS (kept or dropped in
 *            flight).
 *   race     threads on one fd: REG/DEREG, mmap/munmap/mremap/mprotect,
 *            JOIN/RINGS/garbage ioctls with faulting arguments, touching,
 *            and close/reopen, for a second or so.
 *   members  a job of 2-5 member processes joining, creating rings and
 *            extra endpoints, registering and mapping each other's objects
 *            while the launcher kills members at random moments (mid-join
 *            included), members fork helpers that keep their fd, exit 0
 *            or 1.
 *
 * Extra endpoints (PGAS_JOIN_EXTRA) are in every kind of episode: jobs are
 * created with and without max_eps, JOIN takes the flag at random (for a
 * rank this process owns, mostly), EP_INFO asks about eids valid and not.
 * The model checks that eids come in order from nranks and below max_eps,
 * that a rank's join returns its vpid, that an extra gets no kernel page
 * and no registration, and that a JOIN_EXTRA for a rank this process never
 * joined fails; members check that each extra's departure is an event
 * {eid, PGAS_GONE_CLOSED} on the observer's kernel page.
 *
 * Checks: no operation takes longer than PGAS_FUZZ_HANG_SECONDS (10): a
 * supervisor process watches every task's current operation and fails
 * the run naming the stuck one (with the tasks' kernel stacks); every
 * errno is in the expected set of its operation, and for single-process
 * episodes a model predicts success or failure of REG, DEREG, RINGS and
 * mmap; after every episode (all children reaped, all fds closed) every
 * gauge in /sys/class/misc/pgas0/ (all but the cumulative mmaps and
 * peer_gone), the pinned memory of /proc/meminfo (Mlocked on kernels
 * without a pinned line) and the runner's VmLck are back at their
 * starting values; no kernel WARNING, BUG, KASAN or lockdep report appears
 * in /dev/kmsg (the VM tier also panics on WARN).  Every failure prints
 * the seed, the episode and the last 50 operations of all tasks; rerun one
 * episode with PGAS_FUZZ_SEED=S PGAS_FUZZ_EPISODE=E.  PGAS_FUZZ_VERBOSE=1
 * logs every operation as it starts and again with its result.
 *
 * Cases that only a module with the fix of defect n of issue 9 passes are
 * marked CASE(n) below: a kernel WARN (4), pins escaping RLIMIT_MEMLOCK
 * (2), ~1 GiB ring regions (3), a death reported late or as a departure
 * (6), writable pins of page-cache files (10), SIGBUS on a revoked mapping
 * (15).  All of them are fixed on main and run by default;
 * PGAS_FUZZ_DEFECTS=4,10 runs only the cases of those defects, =none none
 * of them: to run the fuzzer against an older module, or in CI while a
 * newly found defect waits for its fix (scripts/vm/init sets it then,
 * naming the defect).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgas_abi.h"
#include "pgas_layout.h"

#define DEV "/dev/pgas0"
#define SYSDIR "/sys/class/misc/pgas0"
#define PG 4096ULL
/* JOB_CREATE's bytes up to the end of max_eps: a call that long sets it. */
#define CREATE_MAX_EPS_END (offsetof(struct pgas_ioc_job_create, max_eps) + 4)
#define WORKDIR "/tmp/pgas_fuzz.d"

typedef unsigned long long u64;

/* ---- configuration ---------------------------------------------------------- */

static u64 seed;
static int run_seconds = 60;
static long only_episode = -1;
static int hang_seconds = 10;
static int verbose;
static unsigned int defects_on;	/* defects whose cases run (PGAS_FUZZ_DEFECTS) */
static char self_exe[256];
static unsigned long long t_start;	/* ns, for "at N s" in reports */

/* A case that only a module with defect n fixed passes (PGAS_FUZZ_DEFECTS). */
#define CASE(n) (defects_on & (1u << (n)))

/* ---- PRNG (splitmix64): one stream per task, derived from the seed ---------------- */

struct rng {
	u64 s;
};

static u64 rnext(struct rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rnd(struct rng *r, u64 n)
{
	return n ? rnext(r) % n : 0;
}

static int chance(struct rng *r, int pct)
{
	return (int)rnd(r, 100) < pct;
}

static u64 mix(u64 a, u64 b)
{
	struct rng r = { a ^ (b * 0x2545f4914f6cdd1dULL) };

	rnext(&r);
	return rnext(&r);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- shared state: task slots for the watchdog, the op log, the TAP count ---------- */

#define NSLOT 96
#define LOGN 64
#define LOGSHOW 50
#define DESC 200
#define NSEEN 64
#define MAXM 6

struct slot {
	atomic_int tid;			/* 0: free */
	atomic_ullong start;		/* ns of the op in flight; 0: none */
	char desc[DESC];
};

struct logent {
	atomic_ullong seq;
	char text[DESC + 40];
};

struct member_board {			/* what the members of a job publish */
	atomic_ullong rings[MAXM], rsize[MAXM], reg[MAXM], rlen[MAXM];
	atomic_int joined[MAXM];	/* pid of the member that holds the vpid */
	atomic_int helper[MAXM];	/* it forked a helper that keeps its fd */
	atomic_uint extra[MAXM][2];	/* eids of its extra endpoints; 0: none */
};

struct shared {
	atomic_int tapno;
	atomic_int failures;
	atomic_int printing;
	atomic_ullong ops;
	atomic_ullong logseq;
	atomic_int episode;
	atomic_ullong episode_seed;
	atomic_int nseen;
	char seen[NSEEN][128];
	struct slot slots[NSLOT];
	struct logent log[LOGN];
	struct member_board board;
	atomic_int extras;		/* extra endpoints joined, all tasks */
	atomic_int extra_events;	/* their closed events the observers saw */
	atomic_int ep_infos;		/* EP_INFO answers */
	char hang[DESC + 64];		/* the watchdog's verdict, for the runner */
};

static struct shared *sh;
static _Thread_local int myslot = -1;
static _Thread_local u64 mylog;
static _Thread_local const char *mytag = "r";
static _Thread_local struct rng *tl_rng;	/* a racer's own stream */
static _Thread_local int tl_badfd;	/* the op's fd is not open: EBADF is right */
static _Thread_local int tl_shared;	/* its file is shared with another process */

static void out(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (write(1, buf, (size_t)n) < 0)
		_exit(9);
}

/* Output of several lines from one task at a time (bounded wait: a holder may be killed). */
static void print_lock(void)
{
	u64 until = now_ns() + 1000000000ULL;
	int z = 0;

	while (!atomic_compare_exchange_weak(&sh->printing, &z, 1) && now_ns() < until) {
		z = 0;
		sched_yield();
	}
}

static void print_unlock(void)
{
	atomic_store(&sh->printing, 0);
}

static void claim_slot(const char *tag)
{
	int i, z;

	mytag = tag;
	for (i = 0; i < NSLOT; i++) {
		z = 0;
		if (atomic_compare_exchange_strong(&sh->slots[i].tid, &z, (int)gettid())) {
			atomic_store(&sh->slots[i].start, 0);
			myslot = i;
			return;
		}
	}
	myslot = -1;	/* no watchdog for this task: more than NSLOT tasks */
}

static _Thread_local char *argpg;

/*
 * In a child after fork: the slot we inherited is the parent's, and so is
 * the (shared) argument page: a page of our own, or results get mixed up.
 */
static void forget_slot(void)
{
	myslot = -1;
	argpg = NULL;
}

static void release_slot(void)
{
	if (myslot >= 0) {
		atomic_store(&sh->slots[myslot].start, 0);
		atomic_store(&sh->slots[myslot].tid, 0);
		myslot = -1;
	}
}

/* An operation starts: the watchdog times it and the log keeps it. */
static void op_begin(const char *fmt, ...)
{
	char desc[DESC];
	struct logent *e;
	va_list ap;
	u64 seq;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	seq = atomic_fetch_add(&sh->logseq, 1) + 1;
	e = &sh->log[seq % LOGN];
	snprintf(e->text, sizeof(e->text), "e%d %s: %s", atomic_load(&sh->episode), mytag, desc);
	atomic_store(&e->seq, seq);
	mylog = seq;
	if (myslot >= 0) {
		memcpy(sh->slots[myslot].desc, e->text, sizeof(sh->slots[myslot].desc));
		sh->slots[myslot].desc[DESC - 1] = 0;
		atomic_store(&sh->slots[myslot].start, now_ns());
	}
	atomic_fetch_add(&sh->ops, 1);
	if (verbose)
		out("# %s\n", e->text);
}

/* ret: >= 0 a result, < 0 a -errno. */
static long op_end(long ret)
{
	struct logent *e = &sh->log[mylog % LOGN];
	size_t n;

	if (myslot >= 0)
		atomic_store(&sh->slots[myslot].start, 0);
	if (atomic_load(&e->seq) == mylog) {
		n = strlen(e->text);
		if (ret < 0)
			snprintf(e->text + n, sizeof(e->text) - n, " = %s", strerrorname_np((int)-ret) ?
				 strerrorname_np((int)-ret) : "?");
		else
			snprintf(e->text + n, sizeof(e->text) - n, " = %ld", ret);
		/* Again with its result: a replay shows what each operation did. */
		if (verbose)
			out("# %s\n", e->text);
	}
	return ret;
}

static void dump_log(void)
{
	u64 last = atomic_load(&sh->logseq), s;
	struct logent *e;

	out("# last %d operations (all tasks, oldest first):\n", LOGSHOW);
	for (s = last > LOGSHOW ? last - LOGSHOW + 1 : 1; s <= last; s++) {
		e = &sh->log[s % LOGN];
		if (atomic_load(&e->seq) == s)
			out("#   %llu %s\n", s, e->text);
	}
}

/*
 * A failure: one "not ok" per distinct key (the first of each kind is the
 * useful one; the rest are counted), with how to replay it.
 */
static void fail(const char *key, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	int i, n;

	atomic_fetch_add(&sh->failures, 1);
	n = atomic_load(&sh->nseen);
	for (i = 0; i < n && i < NSEEN; i++)
		if (!strncmp(sh->seen[i], key, sizeof(sh->seen[i]) - 1))
			return;
	i = atomic_fetch_add(&sh->nseen, 1);
	if (i < NSEEN)
		snprintf(sh->seen[i], sizeof(sh->seen[i]), "%s", key);
	else if (i > NSEEN + 5)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print_lock();
	out("not ok %d - %s\n", atomic_fetch_add(&sh->tapno, 1) + 1, msg);
	out("# at %.1f s, seed %llu episode %d (episode seed %#llx): rerun it alone with "
	    "PGAS_FUZZ_SEED=%llu PGAS_FUZZ_EPISODE=%d pgas_fuzz\n",
	    (double)(now_ns() - t_start) / 1e9, seed,
	    atomic_load(&sh->episode), atomic_load(&sh->episode_seed), seed,
	    atomic_load(&sh->episode));
	dump_log();
	print_unlock();
}

static void ok(const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	out("ok %d - %s\n", atomic_fetch_add(&sh->tapno, 1) + 1, msg);
}

/* ---- errno sets ---------------------------------------------------------------- */

/*
 * What each operation may fail with.  The sets are those of the ABI
 * (uapi/pgas_abi.h, docs/pgas-kmod.md) plus what the fixes of issue 9 may
 * add: charging rings and pins (ENOMEM, EDQUOT, EAGAIN), refusing
 * file-backed writable pins (EOPNOTSUPP, EACCES), refusing use of an fd from
 * another process (FOREIGN below).
 */
static const int E_NONE[] = { 0 };
static const int E_OPEN[] = { EMFILE, ENFILE, ENOMEM, 0 };
static const int E_CREATE[] = { EINVAL, EBUSY, E2BIG, EFAULT, ENOMEM, ENOSPC, EAGAIN, 0 };
static const int E_JOIN[] = { EINVAL, EBUSY, E2BIG, EFAULT, ENOMEM, ENOENT, EACCES, EPERM,
			      ENOSPC, EMFILE, 0 };
/* ENODEV: an extra whose rank's endpoint departed (it took the extra with it). */
static const int E_RINGS[] = { EINVAL, EBADFD, EEXIST, E2BIG, EFAULT, ENOMEM, ENOSPC, EDQUOT,
			       EAGAIN, EACCES, ENODEV, 0 };
static const int E_REG[] = { EINVAL, EBADFD, EFAULT, ENOMEM, ENOSPC, E2BIG, EAGAIN, EDQUOT,
			     EOPNOTSUPP, EACCES, EPERM, 0 };
static const int E_DEREG[] = { EINVAL, EBADFD, ENOENT, EFAULT, E2BIG, EACCES, EOPNOTSUPP, 0 };
static const int E_WAKE[] = { EINVAL, EBADFD, EACCES, ENODEV, ENOENT, E2BIG, EFAULT, 0 };
static const int E_EPINFO[] = { EINVAL, EBADFD, EACCES, ENODEV, ENOENT, E2BIG, EFAULT, 0 };
static const int E_POLL[] = { ENOMEM, EINTR, 0 };
static const int E_BADCMD[] = { ENOTTY, 0 };
static const int E_MMAP[] = { EINVAL, EACCES, ENXIO, EBADFD, ENOMEM, EPERM, EOVERFLOW, EEXIST,
			      ENODEV, EAGAIN, 0 };
static const int E_MUNMAP[] = { EINVAL, 0 };
static const int E_MREMAP[] = { EFAULT, EINVAL, ENOMEM, EAGAIN, 0 };
static const int E_MPROTECT[] = { EACCES, EINVAL, ENOMEM, 0 };
static const int E_MADVISE[] = { EINVAL, EAGAIN, ENOMEM, EPERM, EACCES, EBADF, ENODEV,
				 EOPNOTSUPP, 0 };
static const int E_FORK[] = { EAGAIN, ENOMEM, 0 };
static const int E_SOCK[] = { EMFILE, ENFILE, ENOMEM, ENOBUFS, EAGAIN, ETOOMANYREFS, 0 };
/* An fd used from another mm (fork, exec, SCM_RIGHTS): defect 6's fix may refuse it. */
static const int E_FOREIGN[] = { EPERM, EACCES, EBADFD, ENXIO, EXDEV, EINVAL, 0 };
/* Racing with a close in another thread. */
static const int E_RACE[] = { EBADF, ENODEV, 0 };

static int in_set(int e, const int *set)
{
	for (; *set; set++)
		if (*set == e)
			return 1;
	return 0;
}

struct world;
#define RNG(w) (tl_rng ? tl_rng : &(w)->rr)
static void check_errno(struct world *w, const char *op, long ret, const int *set);

/* ---- the world of one episode -------------------------------------------------- */

enum role { R_NONE, R_LAUNCHER, R_EP };
enum state { S_DEAD, S_LIVE, S_UNKNOWN };

#define NF 6
#define NJ 16
#define NR 16
#define NMAP 24
#define NB 12
#define NKID 12
#define NDEAD 8

struct fslot {
	int fd;			/* -1: free */
	int fid;		/* the open file (dup'd slots share it) */
	int ro;			/* opened O_RDONLY */
};

struct filerec {		/* per open file: the model */
	int role, job, vpid;
	int extra;		/* joined with PGAS_JOIN_EXTRA: no kernel page, no REG */
	unsigned int eid;	/* its endpoint number (== vpid for a rank) */
	int elsewhere;		/* also held by another process: no predictions */
	int rings;		/* enum state */
	u64 rcookie, rsize;
	u64 kcookie;		/* the kernel page (ABI 2), read-only; 0: not known */
};

struct jobrec {
	int live;
	unsigned int id, nranks;
	u64 key;
	unsigned int max_eps;	/* eids 0..max_eps-1 (nranks: no extras) */
	unsigned int last_eid;	/* the last extra's eid seen, 0: none yet */
	u64 joined;		/* vpids < 64 this process has joined, ever */
};

struct regrec {
	int state;
	int fid;
	u64 handle, cookie, len;
	int writable;
};

struct maprec {
	int live;
	char *addr;
	size_t len;
	int writable;
	int readable;		/* 0 after PROT_NONE or any mprotect: no prediction */
	u64 cookie;		/* of the object: its state says whether touching may fault */
	int fid;		/* mapped through this file, which it keeps open; -1: not known */
};

enum bkind { B_ANON, B_ANON_UNTOUCHED, B_SHARED, B_MEMFD, B_FILE_SHARED, B_FILE_PRIVATE,
	     B_RDONLY, B_NONE, B_HOLE, B_FILE_RO, B_THP, B_NBUF };

struct bufrec {
	char *addr;
	size_t len;
	const char *name;
	int readable, writable;	/* every page, for the model */
	int file_shared;	/* page-cache pages of a MAP_SHARED non-shmem file */
	int file_private;	/* a MAP_PRIVATE mapping of such a file */
	size_t hole;		/* offset of an unmapped page, or 0 */
};

struct world {
	struct rng rr;
	int episode;
	int foreign;		/* a child: every fd was opened by another process */
	int race;		/* threads share it; lock held around the tables */
	int model;		/* predictions on (single process, no foreign files) */
	pthread_mutex_t lock;
	struct fslot f[NF];
	struct filerec file[NF * 4];
	int nfile;
	struct jobrec j[NJ];	/* never reused within an episode: indices name jobs */
	int njobs;
	struct regrec g[NR];
	struct maprec m[NMAP];
	u64 dead_cookies[NDEAD];
	u64 dead_handles[NDEAD];
	int ndead;
	pid_t kids[NKID];
	int nkids;
	u64 deadline;
};

static struct bufrec buf[B_NBUF];
/* argpg: per thread, 4 pages: RW, RW, unmapped, read-only (mprotect'ed around calls). */
static int ramfs_ok;

static void check_errno(struct world *w, const char *op, long ret, const int *set)
{
	int e = (int)-ret;
	char key[128];

	if (ret >= 0 || in_set(e, set) || (tl_badfd && e == EBADF))
		return;
	/* Another process may have joined it first: the endpoint is not ours. */
	if ((w->foreign || tl_shared) && in_set(e, E_FOREIGN))
		return;
	if (w->race && in_set(e, E_RACE))
		return;
	snprintf(key, sizeof(key), "errno %s %d", op, e);
	fail(key, "%s: unexpected errno %d (%s)", op, e, strerrorname_np(e) ?
	     strerrorname_np(e) : "?");
}

/* A prediction of the model did not hold. */
static void mismatch(const char *op, const char *what, long ret)
{
	char key[128];

	snprintf(key, sizeof(key), "model %s %s", op, what);
	fail(key, "%s: %s, got %ld (%s)", op, what, ret,
	     ret < 0 && strerrorname_np((int)-ret) ? strerrorname_np((int)-ret) : "ok");
}

static void wlock(struct world *w)
{
	if (w->race)
		pthread_mutex_lock(&w->lock);
}

static void wunlock(struct world *w)
{
	if (w->race)
		pthread_mutex_unlock(&w->lock);
}

static long sys_ret(long r)
{
	return r < 0 ? -errno : r;
}

/* ---- faults: touching memory that may be revoked or unmapped ---------------------- */

static _Thread_local sigjmp_buf fault_jmp;
static _Thread_local volatile int fault_armed;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char msg[160];
	int n;

	(void)uc;
	if (fault_armed)
		siglongjmp(fault_jmp, sig);
	/* Dying anyway: where and in which task, for whoever reads the log. */
	n = snprintf(msg, sizeof(msg),
		     "# pgas_fuzz: a fault outside touch(): a fuzzer bug (signal %d, code %d, address %p, task %s)\n",
		     sig, si->si_code, si->si_addr, mytag);
	if (n > 0 && write(2, msg, (size_t)n) < 0)
		_exit(99);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_faults(void)
{
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

/* Reads (or writes v at) p; returns the signal it raised, or 0. */
static int touch(volatile char *p, int write_it, char v)
{
	int sig;

	fault_armed = 1;
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig) {
		if (write_it)
			*p = v;
		else
			(void)*p;
	}
	fault_armed = 0;
	return sig;
}

/* ---- sysfs, meminfo, kmsg ------------------------------------------------------ */

#define NCTR 40

struct counters {
	int n;
	char name[NCTR][96];
	long long v[NCTR];
	int gauge[NCTR];
};

static int read_num(const char *path, long long *v)
{
	char b[64], *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	b[n] = 0;
	errno = 0;
	*v = strtoll(b, &end, 10);
	if (errno || end == b)
		return -1;
	while (*end == '\n' || *end == ' ')
		end++;
	return *end ? -1 : 0;
}

/* "Key: value" from a /proc file; -1 if absent. */
static long long proc_field(const char *file, const char *want, char *found, size_t flen)
{
	char line[256], key[64];
	long long v, r = -1;
	FILE *f = fopen(file, "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]: %lld", key, &v) != 2)
			continue;
		if (want[0] == '*' ? !!strstr(key, want + 1) : !strcmp(key, want)) {
			r = v;
			if (found)
				snprintf(found, flen, "%s", key);
			break;
		}
	}
	if (f)
		fclose(f);
	return r;
}

static void add_gauge(struct counters *c, const char *name, long long v)
{
	if (v < 0 || c->n >= NCTR)
		return;
	snprintf(c->name[c->n], sizeof(c->name[0]), "%s", name);
	c->v[c->n] = v;
	c->gauge[c->n++] = 1;
}

/*
 * Every number in the NIC's sysfs directory; all are gauges that must come
 * back except the cumulative event counts.
 */
static void read_counters(struct counters *c)
{
	static const char *const cumulative[] = { "mmaps", "peer_gone", NULL };
	char path[300];
	struct dirent *d;
	DIR *dir = opendir(SYSDIR);
	int i;

	c->n = 0;
	while (dir && (d = readdir(dir)) && c->n < NCTR) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "uevent") || !strcmp(d->d_name, "dev"))
			continue;
		snprintf(path, sizeof(path), SYSDIR "/%s", d->d_name);
		if (read_num(path, &c->v[c->n]))
			continue;
		snprintf(c->name[c->n], sizeof(c->name[0]), "%.60s", d->d_name);
		c->gauge[c->n] = 1;
		for (i = 0; cumulative[i]; i++)
			if (!strcmp(d->d_name, cumulative[i]))
				c->gauge[c->n] = 0;
		c->n++;
	}
	if (dir)
		closedir(dir);
	/* Pinned memory: a meminfo line if the kernel has one (6.1 has not), else Mlocked. */
	{
		char key[64] = "", name[80];
		long long v = proc_field("/proc/meminfo", "*Pin", key, sizeof(key));

		if (v < 0) {
			snprintf(key, sizeof(key), "Mlocked");
			v = proc_field("/proc/meminfo", "Mlocked", NULL, 0);
		}
		snprintf(name, sizeof(name), "meminfo %s", key);
		add_gauge(c, name, v);
	}
	/* What the module charged to this process: locked_vm (VmLck), pinned_vm (VmPin). */
	add_gauge(c, "runner VmLck", proc_field("/proc/self/status", "VmLck", NULL, 0));
	add_gauge(c, "runner VmPin", proc_field("/proc/self/status", "VmPin", NULL, 0));
}

/* Names of gauges that differ from base ("" if none). */
static void diff_counters(const struct counters *base, const struct counters *c, char *msg,
			  size_t len)
{
	size_t off = 0;
	int i, k;

	msg[0] = 0;
	for (i = 0; i < base->n; i++) {
		if (!base->gauge[i])
			continue;
		for (k = 0; k < c->n; k++)
			if (!strcmp(base->name[i], c->name[k]))
				break;
		if (k == c->n) {
			off += (size_t)snprintf(msg + off, len - off, "%s missing; ", base->name[i]);
		} else if (c->v[k] != base->v[i]) {
			off += (size_t)snprintf(msg + off, len - off, "%s = %lld (was %lld); ",
						base->name[i], c->v[k], base->v[i]);
		}
		if (off >= len)
			break;
	}
}

static int kmsg_fd = -1;

/* New kernel log records matching a bad pattern; returns how many. */
static int kmsg_scan(void)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "KASAN", "UBSAN", "possible circular",
		"possible recursive", "lockdep", "INFO: task", "general protection",
		"inconsistent lock", "sleeping function called", "kernel BUG", NULL,
	};
	char rec[2048];
	int hits = 0, i;
	ssize_t n;

	if (kmsg_fd < 0)
		return 0;
	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		for (i = 0; bad[i]; i++)
			if (strstr(rec, bad[i]))
				break;
		if (bad[i] || (hits && hits < 40)) {
			char *msg = strchr(rec, ';');

			if (!hits)
				print_lock();
			out("# kmsg: %s", msg ? msg + 1 : rec);
			hits++;
		}
	}
	if (hits)
		print_unlock();
	return hits;
}

/* ---- argument placement ----------------------------------------------------------- */

enum argplace { A_STACK, A_DROPPED, A_STRADDLE, A_RDONLY, A_NULL, A_UNMAPPED, A_KERNEL, A_NPLACE };

/*
 * Calls ioctl(fd, cmd) with the struct s (len bytes, its size field
 * already set) placed where 'place' says.  Copies the result back.
 */
static long do_ioctl(int fd, unsigned long cmd, void *s, size_t len, int place)
{
	char *p = NULL;
	long ret;

	if (!argpg) {
		argpg = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			     -1, 0);
		if (argpg == MAP_FAILED) {
			argpg = NULL;
			return -ENOMEM;
		}
		munmap(argpg + 2 * PG, PG);
		mprotect(argpg + 3 * PG, PG, PROT_READ);
	}
	switch (place) {
	case A_STACK:
		p = s;
		break;
	case A_DROPPED:	/* a shared page: MADV_DONTNEED makes the kernel fault it back */
		p = argpg + 128;
		len = len < 2 * PG - 128 ? len : 2 * PG - 128;
		memcpy(p, s, len);
		madvise(argpg, PG, MADV_DONTNEED);
		break;
	case A_STRADDLE:	/* ends in the unmapped third page */
		p = argpg + 2 * PG - (len < 16 ? len : 16);
		memcpy(p, s, len < 16 ? len : 16);
		break;
	case A_RDONLY:
		p = argpg + 3 * PG;
		len = len < PG ? len : PG;
		mprotect(p, PG, PROT_READ | PROT_WRITE);
		memcpy(p, s, len);
		mprotect(p, PG, PROT_READ);
		break;
	case A_NULL:
		p = NULL;
		break;
	case A_UNMAPPED:
		p = argpg + 2 * PG;
		break;
	default:
		p = (char *)0xffff888000000000ULL;
		break;
	}
	ret = sys_ret(ioctl(fd, cmd, p));
	if (place == A_DROPPED || place == A_RDONLY)
		memcpy(s, p, len);
	return ret;
}

/* Mostly the stack, sometimes anything else. */
static int pick_place(struct rng *r)
{
	if (chance(r, 75))
		return A_STACK;
	if (chance(r, 50))
		return A_DROPPED;
	return (int)rnd(r, A_NPLACE);
}

/*
 * The size field: mostly exact; else 0, min-1, larger with a zero or a
 * non-zero tail, a page, a page+1, 2^32-1, random.  *tail_nonzero tells the
 * caller to dirty the tail.  Returns the size and how many bytes to pass.
 */
static unsigned int pick_size(struct rng *r, unsigned int exact, size_t *pass, int *tail_nonzero)
{
	static const unsigned int fixed[] = { 0, 4, 7, 8, 4095, 4096, 4097, 8192, 0xffffffffu };
	unsigned int s;

	*tail_nonzero = 0;
	*pass = exact;
	if (chance(r, 85))
		return exact;
	switch (rnd(r, 5)) {
	case 0:
		return exact - 1 - (unsigned int)rnd(r, 4);	/* short */
	case 1:
		s = exact + 8 * (1 + (unsigned int)rnd(r, 8));
		*pass = s;
		*tail_nonzero = chance(r, 50);
		return s;
	case 2:
		s = fixed[rnd(r, sizeof(fixed) / sizeof(fixed[0]))];
		*pass = s > exact && s <= 8192 ? s : exact;
		return s;
	case 3:
		return (unsigned int)rnext(r);
	default:
		return exact + 8;	/* zero tail */
	}
}

/* Sends a struct argument with fuzzed size and placement; *ret the -errno/0. */
#define IOCTL_FUZZ(w, fd, cmd, sp, ret, placep, sizep)					\
	do {										\
		char big_[8200];							\
		size_t pass_;								\
		int tail_;								\
		unsigned int sz_ = pick_size(RNG(w), sizeof(*(sp)), &pass_, &tail_);	\
		(placep) = pick_place(RNG(w));						\
		memset(big_, 0, sizeof(big_));						\
		memcpy(big_, (sp), sizeof(*(sp)));					\
		memcpy(big_, &sz_, 4);							\
		if (pass_ > sizeof(*(sp)) && tail_)					\
			big_[sizeof(*(sp)) + rnd(RNG(w), pass_ - sizeof(*(sp)))] = 1;	\
		(sizep) = sz_;								\
		(ret) = do_ioctl((fd), (cmd), big_, pass_ > sizeof(big_) ? sizeof(big_) : pass_, \
				 (placep));						\
		memcpy((sp), big_, sizeof(*(sp)));					\
	} while (0)

/* Only an exact-size, zero-tail call from a good place is a valid call. */
static int clean_call(unsigned int size, unsigned int exact, int place)
{
	return size == exact && (place == A_STACK || place == A_DROPPED);
}

/* ---- world helpers ------------------------------------------------------------ */

static void world_init(struct world *w, u64 s, int episode)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->rr.s = s;
	w->episode = episode;
	w->model = 1;
	pthread_mutex_init(&w->lock, NULL);
	for (i = 0; i < NF; i++)
		w->f[i].fd = -1;
}

static int pick_fd(struct world *w, int *slot)
{
	int i, k = (int)rnd(RNG(w), NF);

	tl_badfd = 0;
	tl_shared = 0;
	for (i = 0; i < NF; i++) {
		int s = (k + i) % NF;

		if (w->f[s].fd >= 0) {
			*slot = s;
			tl_shared = w->file[w->f[s].fid].elsewhere;
			return w->f[s].fd;
		}
	}
	*slot = -1;
	tl_badfd = 1;
	return chance(RNG(w), 50) ? -1 : 1000;	/* EBADF paths */
}

static struct filerec *file_of(struct world *w, int slot)
{
	return slot >= 0 ? &w->file[w->f[slot].fid] : NULL;
}

static int slot_free(struct world *w)
{
	int i;

	for (i = 0; i < NF; i++)
		if (w->f[i].fd < 0)
			return i;
	return -1;
}

static void add_dead_cookie(struct world *w, u64 c, u64 handle)
{
	w->dead_cookies[w->ndead % NDEAD] = c;
	w->dead_handles[w->ndead % NDEAD] = handle;
	w->ndead++;
}

/* The last fd of a file here was closed: released, unless another process holds it. */
static void file_gone(struct world *w, int fid)
{
	struct filerec *fr = &w->file[fid];
	int i;

	for (i = 0; i < NR; i++) {
		if (w->g[i].state == S_DEAD || w->g[i].fid != fid)
			continue;
		if (fr->elsewhere) {
			w->g[i].state = S_UNKNOWN;
		} else {
			add_dead_cookie(w, w->g[i].cookie, 0);
			w->g[i].state = S_DEAD;
		}
	}
	if (fr->rings == S_LIVE && !fr->elsewhere)
		add_dead_cookie(w, fr->rcookie, 0);
	if (fr->rings == S_LIVE)
		fr->rings = fr->elsewhere ? S_UNKNOWN : S_DEAD;
	if (fr->role == R_LAUNCHER && !fr->elsewhere)
		w->j[fr->job].live = 0;
	/*
	 * A rank's endpoint takes its extras with it when it departs, which
	 * it may do now (or once another holder lets go): no more
	 * predictions about them.
	 */
	if (fr->role == R_EP && !fr->extra)
		for (i = 0; i < w->nfile; i++)
			if (w->file[i].role == R_EP && w->file[i].extra &&
			    w->file[i].job == fr->job && w->file[i].vpid == fr->vpid)
				w->file[i].elsewhere = 1;
}

static int fid_open_elsewhere(struct world *w, int fid, int except)
{
	int i;

	for (i = 0; i < NF; i++)
		if (i != except && w->f[i].fd >= 0 && w->f[i].fid == fid)
			return 1;
	/* A mapping holds its file: the endpoint lives on until it is unmapped. */
	for (i = 0; i < NMAP; i++)
		if (w->m[i].live && w->m[i].fid == fid) {
			w->file[fid].elsewhere = 1;
			return 0;
		}
	return 0;
}

/* ---- operations --------------------------------------------------------------------- */

static void op_open(struct world *w)
{
	int s = slot_free(w), ro = chance(RNG(w), 5), fd;
	long ret;

	if (s < 0)
		return;
	op_begin("open(%s%s)", DEV, ro ? ", O_RDONLY" : "");
	fd = open(DEV, (ro ? O_RDONLY : O_RDWR) | (chance(RNG(w), 50) ? O_CLOEXEC : 0));
	ret = op_end(sys_ret(fd));
	check_errno(w, "open", ret, E_OPEN);
	if (fd < 0)
		return;
	wlock(w);
	if (w->nfile >= NF * 4) {
		wunlock(w);
		close(fd);
		return;
	}
	w->f[s].fd = fd;
	w->f[s].ro = ro;
	w->f[s].fid = w->nfile++;
	memset(&w->file[w->f[s].fid], 0, sizeof(w->file[0]));
	wunlock(w);
}

static void op_close(struct world *w)
{
	int s, fd = pick_fd(w, &s), fid;
	long ret;

	if (s < 0)
		return;
	wlock(w);
	if (w->f[s].fd != fd) {
		wunlock(w);
		return;
	}
	fid = w->f[s].fid;
	w->f[s].fd = -1;
	wunlock(w);
	op_begin("close(fd%d)", fd);
	ret = op_end(sys_ret(close(fd)));
	check_errno(w, "close", ret, E_NONE);
	wlock(w);
	if (!fid_open_elsewhere(w, fid, s))
		file_gone(w, fid);
	wunlock(w);
}

static void op_dup(struct world *w)
{
	int s, fd = pick_fd(w, &s), t = slot_free(w), nfd;

	if (s < 0 || t < 0)
		return;
	op_begin("dup(fd%d)", fd);
	nfd = (int)op_end(sys_ret(fcntl(fd, F_DUPFD_CLOEXEC, 0)));
	if (nfd < 0)
		return;
	wlock(w);
	w->f[t] = w->f[s];
	w->f[t].fd = nfd;
	wunlock(w);
}

static int pick_job(struct world *w)
{
	int i, k = (int)rnd(RNG(w), NJ);

	for (i = 0; i < NJ; i++)
		if (w->j[(k + i) % NJ].live)
			return (k + i) % NJ;
	return -1;
}

static void op_create(struct world *w)
{
	static const unsigned int nr[] = { 0, 1, 2, 3, 4, 8, PGAS_MAX_ENDPOINTS,
					   PGAS_MAX_ENDPOINTS + 1, 0xffffffffu };
	struct pgas_ioc_job_create c = { .size = sizeof(c) };
	int s, fd = pick_fd(w, &s), place, k;
	unsigned int size;
	struct filerec *fr;
	long ret;

	c.nranks = chance(RNG(w), 70) ? 1 + (unsigned int)rnd(RNG(w), 4) :
		   nr[rnd(RNG(w), sizeof(nr) / sizeof(nr[0]))];
	c.flags = chance(RNG(w), 5) ? (unsigned int)rnext(RNG(w)) : 0;
	switch (rnd(RNG(w), 8)) {	/* 0: nranks, no extras */
	case 0:
	case 1:
	case 2:
		break;
	case 3:
	case 4:
	case 5:
		c.max_eps = c.nranks + (unsigned int)rnd(RNG(w), 6);
		break;
	case 6:
		c.max_eps = c.nranks - 1;	/* too few (or 0xffffffff) */
		break;
	default:
		c.max_eps = chance(RNG(w), 50) ? PGAS_MAX_ENDPOINTS + (unsigned int)rnd(RNG(w), 2) :
			    (unsigned int)rnext(RNG(w));
		break;
	}
	if (chance(RNG(w), 3))
		c.pad = 1;
	op_begin("JOB_CREATE(fd%d, nranks %u, max_eps %u, flags %#x, pad %u)", fd, c.nranks,
		 c.max_eps, c.flags, c.pad);
	IOCTL_FUZZ(w, fd, PGAS_IOC_JOB_CREATE, &c, ret, place, size);
	op_end(ret);
	check_errno(w, "JOB_CREATE", ret, E_CREATE);
	/* The kernel reads what the size covers: max_eps from 28 bytes, pad from 32. */
	if (w->model && ret == 0 && (place == A_STACK || place == A_DROPPED) &&
	    ((size >= sizeof(c) && c.pad) ||
	     (size >= CREATE_MAX_EPS_END && c.max_eps &&
	      (c.max_eps < c.nranks || c.max_eps > PGAS_MAX_ENDPOINTS))))
		mismatch("JOB_CREATE", "a bad max_eps or pad: succeeded", ret);
	if (ret)
		return;
	wlock(w);
	fr = file_of(w, s);
	k = w->njobs < NJ ? w->njobs++ : -1;
	if (fr && !fr->elsewhere && fr->role != R_NONE && w->model)
		mismatch("JOB_CREATE", "a second role for one file succeeded", ret);
	if (fr && k < 0)
		fr->elsewhere = 1;	/* untracked job: no predictions about this file */
	if (fr && k >= 0 && place != A_RDONLY) {
		w->j[k].live = 1;
		w->j[k].id = c.job_id;
		w->j[k].key = c.key;
		w->j[k].nranks = c.nranks;
		/* What the kernel read: a shorter struct has no max_eps. */
		w->j[k].max_eps = size >= CREATE_MAX_EPS_END && c.max_eps ? c.max_eps : c.nranks;
		fr->role = R_LAUNCHER;
		fr->job = k;
	}
	(void)size;
	wunlock(w);
}

/* Rank vpid of job k is an endpoint of a file open here. */
static int rank_open_here(struct world *w, int k, int vpid)
{
	int i;

	for (i = 0; i < NF; i++) {
		const struct filerec *o = w->f[i].fd >= 0 ? &w->file[w->f[i].fid] : NULL;

		if (o && o->role == R_EP && !o->extra && o->job == k && o->vpid == vpid)
			return 1;
	}
	return 0;
}

static void op_join(struct world *w)
{
	struct pgas_ioc_job_join a = { .size = sizeof(a) };
	int s, fd = pick_fd(w, &s), k = pick_job(w), place;
	unsigned int size;
	struct filerec *fr;
	long ret;

	if (chance(RNG(w), 30))
		a.flags = PGAS_JOIN_EXTRA;
	if (k >= 0) {
		a.job_id = w->j[k].id;
		a.key = w->j[k].key;
		a.vpid = (unsigned int)rnd(RNG(w), w->j[k].nranks + (chance(RNG(w), 10) ? 2 : 0));
		/* An extra, mostly of a rank this process has joined. */
		for (int v = 0; a.flags && v < 64 && v < (int)w->j[k].nranks && chance(RNG(w), 80);
		     v++)
			if (w->j[k].joined & (1ULL << v)) {
				a.vpid = (unsigned int)v;
				break;
			}
	} else {
		a.job_id = (unsigned int)rnd(RNG(w), 100);
		a.key = rnext(RNG(w));
	}
	if (chance(RNG(w), 5))
		a.key ^= 1ULL << rnd(RNG(w), 64);
	if (chance(RNG(w), 3))
		a.job_id = (unsigned int)rnext(RNG(w));
	if (chance(RNG(w), 3))
		a.flags = (unsigned int)rnext(RNG(w));
	if (chance(RNG(w), 3))
		a.pad = 1;
	if (chance(RNG(w), 3))
		a.pad1 = 1;
	op_begin("JOB_JOIN(fd%d, job %u, vpid %u, flags %#x, pad %u %u)", fd, a.job_id, a.vpid,
		 a.flags, a.pad, a.pad1);
	IOCTL_FUZZ(w, fd, PGAS_IOC_JOB_JOIN, &a, ret, place, size);
	op_end(ret);
	check_errno(w, "JOB_JOIN", ret, E_JOIN);
	wlock(w);
	fr = file_of(w, s);
	if (ret == 0 && (a.flags & PGAS_JOIN_EXTRA) && size < PGAS_IOC_JOB_JOIN_SIZE_VER1 &&
	    (place == A_STACK || place == A_DROPPED))
		mismatch("JOB_JOIN", "PGAS_JOIN_EXTRA in a struct shorter than 40 bytes: succeeded",
			 ret);
	/*
	 * Only the process that joined rank vpid may add extras to it; this
	 * one never did (its children and threads of a race episode are not
	 * the model's).
	 */
	if (ret == 0 && (a.flags & PGAS_JOIN_EXTRA) && k >= 0 && a.vpid < 64 && w->model &&
	    !w->foreign && !w->race && !(w->j[k].joined & (1ULL << a.vpid)))
		mismatch("JOB_JOIN", "PGAS_JOIN_EXTRA for a rank this process never joined: "
			 "succeeded", ret);
	if (ret == 0 && k >= 0 && size >= sizeof(a) && place != A_RDONLY && w->model && !w->race) {
		struct jobrec *j = &w->j[k];

		if (!(a.flags & PGAS_JOIN_EXTRA) && a.eid != a.vpid)
			mismatch("JOB_JOIN", "a rank's eid is not its vpid", (long)a.eid);
		if ((a.flags & PGAS_JOIN_EXTRA) &&
		    (a.eid < j->nranks || a.eid >= j->max_eps || (j->last_eid && a.eid <= j->last_eid)))
			mismatch("JOB_JOIN", "an extra's eid out of order (nranks..max_eps-1, rising)",
				 (long)a.eid);
	}
	if (ret) {
		wunlock(w);
		return;
	}
	if (fr && !fr->elsewhere && fr->role != R_NONE && w->model)
		mismatch("JOB_JOIN", "a second role for one file succeeded", ret);
	if (a.flags & PGAS_JOIN_EXTRA)
		atomic_fetch_add(&sh->extras, 1);
	if (fr && place != A_RDONLY && k >= 0) {
		fr->role = R_EP;
		fr->job = k;
		fr->vpid = (int)a.vpid;
		fr->extra = !!(a.flags & PGAS_JOIN_EXTRA);
		fr->eid = size >= sizeof(a) ? a.eid : a.vpid;
		fr->rings = S_DEAD;
		if (!fr->extra && a.vpid < 64)
			w->j[k].joined |= 1ULL << a.vpid;
		if (fr->extra && size >= sizeof(a) && a.eid > w->j[k].last_eid)
			w->j[k].last_eid = a.eid;
		/*
		 * An extra departs with its rank's endpoint, which lives as
		 * long as its file does.  Unless that file is open here (its
		 * close is seen: file_gone()), another process may hold the
		 * last copy (a child that inherited it, after this one
		 * closed its fd) and let go of it at any time, taking this
		 * extra along: no predictions about it.
		 */
		if (fr->extra && !rank_open_here(w, k, fr->vpid))
			fr->elsewhere = 1;
	}
	(void)size;
	wunlock(w);
}

/* The user-space copy of the kernel's geometry rules (pgas_ring_layout). */
static int rings_valid(const struct pgas_ioc_rings *g)
{
	return !g->flags && g->mbox_slots >= 16 && g->mbox_slots <= 32768 &&
	       !(g->mbox_slots & (g->mbox_slots - 1)) && g->notify_entries >= 16 &&
	       g->notify_entries <= (1u << 20) && !(g->notify_entries & (g->notify_entries - 1)) &&
	       g->bounce_bufs >= 1 && g->bounce_bufs <= 64 && g->bounce_size >= 64 &&
	       g->bounce_size <= (1u << 20) && !(g->bounce_size % 64);
}

/*
 * Ring regions are allocated in full at RINGS_CREATE; main refuses one
 * over 64 MiB (E2BIG).  Before defect 3's fix anything up to 1 GiB was
 * allocated, uncharged, which a 2 GiB VM does not survive a few times
 * over: unless defect 3's cases run, a valid geometry between RING_BUDGET
 * and 1 GiB is shrunk before the call.
 */
#define RING_BUDGET (48ULL << 20)

static void pick_geometry(struct rng *r, struct pgas_ioc_rings *g, unsigned int nranks)
{
	static const unsigned int slots[] = { 0, 8, 15, 16, 17, 32, 64, 100, 1024, 32768, 65536 };
	static const unsigned int notes[] = { 0, 15, 16, 64, 1000, 4096, 1u << 20, 1u << 21 };
	static const unsigned int bufs[] = { 0, 1, 2, 4, 64, 65 };
	static const unsigned int bsz[] = { 0, 63, 64, 65, 128, 1024, 4096, 1u << 20,
					    (1u << 20) + 64 };
	struct pgas_region_layout l;

	memset(g, 0, sizeof(*g));
	g->size = sizeof(*g);
	if (chance(r, 60)) {
		g->mbox_slots = 16u << rnd(r, 4);
		g->notify_entries = 16u << rnd(r, 4);
		g->bounce_bufs = 1 + (unsigned int)rnd(r, 4);
		g->bounce_size = 64u << rnd(r, 5);
	} else {
		g->mbox_slots = chance(r, 90) ? slots[rnd(r, sizeof(slots) / 4)] :
			(unsigned int)rnext(r);
		g->notify_entries = chance(r, 90) ? notes[rnd(r, sizeof(notes) / 4)] :
			(unsigned int)rnext(r);
		g->bounce_bufs = chance(r, 90) ? bufs[rnd(r, sizeof(bufs) / 4)] :
			(unsigned int)rnext(r);
		g->bounce_size = chance(r, 90) ? bsz[rnd(r, sizeof(bsz) / 4)] :
			(unsigned int)rnext(r);
	}
	if (chance(r, 3))
		g->flags = (unsigned int)rnext(r) | 1;
	if (!rings_valid(g) || CASE(3))
		return;
	for (;;) {
		pgas_region_layout(g->mbox_slots, g->notify_entries, g->bounce_bufs,
				   g->bounce_size, nranks ? nranks : 1, &l);
		if (l.size <= RING_BUDGET || l.size > (1ULL << 30))
			return;
		if (g->bounce_size > 64)
			g->bounce_size /= 2;
		else if (g->bounce_bufs > 1)
			g->bounce_bufs /= 2;
		else if (g->notify_entries > 16)
			g->notify_entries /= 2;
		else if (g->mbox_slots > 16)
			g->mbox_slots /= 2;
		else
			return;	/* too many ranks: the kernel's cap decides */
	}
}

static void op_rings(struct world *w)
{
	struct pgas_ioc_rings g;
	int s, fd = pick_fd(w, &s), place;
	unsigned int size, nranks = 1;
	struct filerec *fr = file_of(w, s);
	long ret;

	if (fr && fr->role == R_EP)
		nranks = w->j[fr->job].nranks;
	pick_geometry(RNG(w), &g, nranks);
	op_begin("RINGS_CREATE(fd%d, slots %u, notify %u, bufs %u, bsize %u, flags %#x)", fd,
		 g.mbox_slots, g.notify_entries, g.bounce_bufs, g.bounce_size, g.flags);
	IOCTL_FUZZ(w, fd, PGAS_IOC_RINGS_CREATE, &g, ret, place, size);
	op_end(ret);
	check_errno(w, "RINGS_CREATE", ret, E_RINGS);
	wlock(w);
	fr = file_of(w, s);
	if (w->model && fr && !fr->elsewhere && !w->foreign) {
		int can = fr->role == R_EP && fr->rings == S_DEAD && rings_valid(&g);

		if (ret == 0 && !(fr->role == R_EP && rings_valid(&g)))
			mismatch("RINGS_CREATE", "invalid geometry or no endpoint: succeeded", ret);
		if (ret == 0 && fr->rings == S_LIVE)
			mismatch("RINGS_CREATE", "second rings of an endpoint: succeeded", ret);
		if (can && clean_call(size, sizeof(g), place) && ret && ret != -E2BIG &&
		    ret != -ENOMEM && ret != -EDQUOT && ret != -EAGAIN)
			mismatch("RINGS_CREATE", "valid call on a fresh endpoint: failed", ret);
		if (fr->role != R_EP && clean_call(size, sizeof(g), place) && rings_valid(&g) &&
		    ret != -EBADFD)
			mismatch("RINGS_CREATE", "on a file that is no endpoint: want EBADFD", ret);
		if (ret == 0 && fr->extra && clean_call(size, sizeof(g), place) && g.kern_cookie)
			mismatch("RINGS_CREATE", "an extra endpoint got a kernel page", ret);
	}
	if (ret == 0 && fr && fr->role == R_EP) {
		fr->rings = S_LIVE;
		if (place != A_RDONLY) {
			fr->rcookie = g.cookie;
			fr->rsize = g.region_size;
			fr->kcookie = size >= sizeof(g) ? g.kern_cookie : 0;
		} else {
			fr->rings = S_UNKNOWN;
		}
	} else if (ret == -EFAULT && fr && fr->role == R_EP && fr->rings == S_DEAD) {
		fr->rings = S_UNKNOWN;	/* created, then the copy out failed */
	}
	wunlock(w);
}

/* A registration's address and length: mostly inside a buffer, sometimes anything. */
static void pick_range(struct rng *r, struct pgas_ioc_reg *a, int *bk)
{
	static const u64 lens[] = { 0, 1, PG - 1, PG, PG + 1, 1ULL << 30, (1ULL << 32) + PG,
				    1ULL << 34, (1ULL << 40) + PG, 1ULL << 41, ~0ULL & ~(PG - 1),
				    ~0ULL };
	struct bufrec *b;
	u64 first, n;

	*bk = (int)rnd(r, B_NBUF);
	b = &buf[*bk];
	if (!b->addr) {
		*bk = B_ANON;
		b = &buf[B_ANON];
	}
	first = rnd(r, b->len / PG);
	n = 1 + rnd(r, b->len / PG - first);
	a->addr = (uintptr_t)b->addr + first * PG;
	a->len = n * PG;
	if (chance(r, 80))
		return;
	switch (rnd(r, 8)) {
	case 0:
		a->len = lens[rnd(r, sizeof(lens) / sizeof(lens[0]))];
		break;
	case 1:
		a->addr += 1 + rnd(r, PG - 1);
		break;
	case 2:
		a->addr = chance(r, 50) ? 0 : 0x1000;
		break;
	case 3:
		a->addr = 0xffff888000000000ULL;
		break;
	case 4:
		a->addr = ~(PG - 1);
		break;
	case 5:
		a->len += PG * (1 + rnd(r, 4));	/* past the buffer's end */
		break;
	case 6:
		/*
		 * CASE(4): before defect 4's fix a length of exactly 2^40 reached
		 * kvmalloc_node's size WARN (fatal under panic_on_warn), and 2^40 -
		 * 4096 made the module vmalloc 2 GiB (a warn_alloc stack trace, or
		 * the OOM killer, in a 2 GiB VM) before it checked any limit.
		 */
		if (CASE(4)) {
			/* Low enough for access_ok(): the allocation comes first. */
			a->addr = 1ULL << 32;
			a->len = chance(r, 50) ? 1ULL << 40 : (1ULL << 40) - PG;
			break;
		}
		a->len = 1ULL << (20 + rnd(r, 12));
		break;
	default:
		a->addr = rnext(r) & ~(PG - 1) & ((1ULL << 47) - 1);
		a->len = (rnd(r, 64) + 1) * PG;
		break;
	}
}

/* 1: a clean REG of this must succeed; 0: it must fail; -1: cannot tell. */
static int reg_predict(const struct filerec *fr, const struct bufrec *b,
		       const struct pgas_ioc_reg *a)
{
	u64 start = (uintptr_t)b->addr, end = start + b->len;

	if (fr->role != R_EP || fr->extra || (a->flags & ~PGAS_REG_WRITE) || !a->len || a->len % PG ||
	    a->addr % PG || a->addr + a->len < a->addr || a->len > (1ULL << 40) ||
	    a->addr >= (1ULL << 47) || a->addr < 0x10000)
		return 0;
	if (a->addr < start || a->addr + a->len > end)
		return -1;	/* what lies beyond the buffer is not ours to know */
	if (!b->readable || ((a->flags & PGAS_REG_WRITE) && !b->writable))
		return 0;
	if (b->hole && start + b->hole >= a->addr && start + b->hole < a->addr + a->len)
		return 0;
	return 1;
}

static int reg_slot_free(struct world *w)
{
	int i;

	for (i = 0; i < NR; i++)
		if (w->g[i].state == S_DEAD)
			return i;
	return -1;
}

static void op_reg(struct world *w)
{
	struct pgas_ioc_reg a = { .size = sizeof(a) };
	int s, fd = pick_fd(w, &s), place, bk, k, predict;
	unsigned int size;
	struct filerec *fr;
	struct bufrec *b;
	long ret;

	pick_range(RNG(w), &a, &bk);
	b = &buf[bk];
	a.flags = chance(RNG(w), 70) ? PGAS_REG_WRITE : 0;
	if (chance(RNG(w), 3))
		a.flags = (unsigned int)rnext(RNG(w));
	op_begin("REG(fd%d, %s+%#llx, len %#llx, flags %#x)", fd, b->name,
		 (u64)(a.addr - (uintptr_t)b->addr), a.len, a.flags);
	IOCTL_FUZZ(w, fd, PGAS_IOC_REG, &a, ret, place, size);
	op_end(ret);
	check_errno(w, "REG", ret, E_REG);
	wlock(w);
	fr = file_of(w, s);
	if (w->model && fr && !fr->elsewhere && !w->foreign) {
		predict = reg_predict(fr, b, &a);
		/*
		 * Defect 10: long-term pins of page-cache pages of a file other
		 * than shmem are refused (EOPNOTSUPP; EFAULT where GUP refuses a
		 * writable file range first), read-only too; a private file
		 * mapping only where REG_WRITE makes its pages anonymous copies.
		 */
		if (predict == 1 && b->file_shared)
			predict = CASE(10) ? 0 : -1;
		if (predict == 1 && b->file_private && !(a.flags & PGAS_REG_WRITE))
			predict = -1;	/* depends on which pages were written before */
		if (predict == 0 && ret == 0 && b->file_shared)
			mismatch("REG", "a long-term pin of page-cache pages of a ramfs file "
				 "accepted (defect 10)", ret);
		else if (predict == 0 && ret == 0)
			mismatch("REG", "invalid registration succeeded", ret);
		if (predict == 1 && clean_call(size, sizeof(a), place) && ret &&
		    ret != -ENOMEM && ret != -EDQUOT && ret != -EAGAIN)
			mismatch("REG", "valid registration failed", ret);
	}
	if (ret == 0 && fr) {
		k = reg_slot_free(w);
		if (k >= 0 && place != A_RDONLY) {
			w->g[k].state = S_LIVE;
			w->g[k].fid = w->f[s].fid;
			w->g[k].handle = a.handle;
			w->g[k].cookie = a.cookie;
			w->g[k].len = a.len;
			w->g[k].writable = a.flags & PGAS_REG_WRITE;
		}
	}
	wunlock(w);
}

static void op_dereg(struct world *w)
{
	struct pgas_ioc_dereg d = { .size = sizeof(d) };
	int i, k = -1, s, fd, place, fid = -1;
	unsigned int size;
	struct filerec *fr;
	long ret;

	wlock(w);
	for (i = (int)rnd(RNG(w), NR); i < NR; i++)
		if (w->g[i].state == S_LIVE) {
			k = i;
			break;
		}
	if (k >= 0 && chance(RNG(w), 85)) {
		d.handle = w->g[k].handle;
		fid = w->g[k].fid;
	} else {
		static const u64 h[] = { 0, 1, 2, 0xffffffffULL, 0x100000000ULL, ~0ULL };

		k = -1;
		d.handle = w->ndead && chance(RNG(w), 30) ?
			   w->dead_handles[rnd(RNG(w), w->ndead < NDEAD ? w->ndead : NDEAD)] :
			   h[rnd(RNG(w), sizeof(h) / sizeof(h[0]))];
	}
	wunlock(w);
	fd = pick_fd(w, &s);
	if (fid >= 0 && chance(RNG(w), 85)) {	/* the registration's own file, usually */
		for (i = 0; i < NF; i++)
			if (w->f[i].fd >= 0 && w->f[i].fid == fid) {
				s = i;
				fd = w->f[i].fd;
				tl_badfd = 0;
				tl_shared = w->file[fid].elsewhere;
				break;
			}
	}
	if (chance(RNG(w), 3))
		d.flags = 1;
	op_begin("DEREG(fd%d, handle %#llx, flags %#x)", fd, d.handle, d.flags);
	IOCTL_FUZZ(w, fd, PGAS_IOC_DEREG, &d, ret, place, size);
	op_end(ret);
	check_errno(w, "DEREG", ret, E_DEREG);
	wlock(w);
	fr = file_of(w, s);
	if (w->model && fr && !fr->elsewhere && !w->foreign && clean_call(size, sizeof(d), place)) {
		int mine = k >= 0 && w->g[k].state == S_LIVE && w->g[k].fid == w->f[s].fid;

		if (mine && !d.flags && ret)
			mismatch("DEREG", "deregistering a live handle of this file failed", ret);
		if (!mine && ret == 0 && fr->role == R_EP) {
			/* Only a handle this file registered may go. */
			int known = 0;

			for (i = 0; i < NR; i++)
				if (w->g[i].state != S_DEAD && w->g[i].fid == w->f[s].fid &&
				    w->g[i].handle == d.handle)
					known = 1;
			if (!known)
				mismatch("DEREG", "a handle this file does not own went away", ret);
		}
	}
	if (ret == 0 && fr) {
		for (i = 0; i < NR; i++)
			if (w->g[i].state != S_DEAD && w->g[i].fid == w->f[s].fid &&
			    w->g[i].handle == d.handle) {
				add_dead_cookie(w, w->g[i].cookie, w->g[i].handle);
				w->g[i].state = S_DEAD;
			}
	}
	wunlock(w);
}

/* Any cookie we know of, with its size and writability; or garbage. */
static u64 pick_cookie(struct world *w, u64 *size, int *writable, int *kind, int *job)
{
	int i, k;

	*job = -1;
	*writable = 1;
	*size = 0;
	*kind = 0;	/* 1 live rings, 2 live reg, 3 dead, 0 other */
	switch (rnd(RNG(w), 6)) {
	case 0:
	case 1:
		k = (int)rnd(RNG(w), NF * 4);
		for (i = 0; i < w->nfile; i++) {
			struct filerec *fr = &w->file[(k + i) % w->nfile];

			if (fr->rings == S_LIVE) {
				*size = fr->rsize;
				*kind = fr->elsewhere ? 0 : 1;	/* shared: no prediction */
				*job = fr->job;
				if (fr->kcookie && chance(RNG(w), 30)) {
					/* The kernel page: one page, never writable. */
					*size = PG;
					*writable = 0;
					return fr->kcookie;
				}
				return fr->rcookie;
			}
		}
		break;
	case 2:
	case 3:
		k = (int)rnd(RNG(w), NR);
		for (i = 0; i < NR; i++)
			if (w->g[(k + i) % NR].state == S_LIVE) {
				struct regrec *g = &w->g[(k + i) % NR];

				*size = g->len;
				*writable = g->writable;
				*kind = w->file[g->fid].elsewhere ? 0 : 2;
				*job = w->file[g->fid].job;
				return g->cookie;
			}
		break;
	case 4:
		if (w->ndead) {
			*kind = 3;
			return w->dead_cookies[rnd(RNG(w), w->ndead < NDEAD ? w->ndead : NDEAD)];
		}
		break;
	default:
		break;
	}
	{
		static const u64 bad[] = { 0, PG, 2 * PG, 1ULL << 40, 1ULL << 62, ~0ULL & ~(PG - 1) };

		return chance(RNG(w), 50) ? bad[rnd(RNG(w), sizeof(bad) / sizeof(bad[0]))] :
					   (rnd(RNG(w), 4096) + 1) * PG;
	}
}

static int map_slot_free(struct world *w)
{
	int i;

	for (i = 0; i < NMAP; i++)
		if (!w->m[i].live)
			return i;
	return -1;
}

static void op_mmap(struct world *w)
{
	static const int prots[] = { PROT_READ | PROT_WRITE, PROT_READ, PROT_WRITE, PROT_NONE,
				     PROT_READ | PROT_EXEC };
	int s, fd = pick_fd(w, &s), prot, flags, kind, writable, k, pgoff = 0, ojob;
	u64 size, cookie, len;
	struct filerec *fr;
	void *p;
	long ret;

	wlock(w);
	cookie = pick_cookie(w, &size, &writable, &kind, &ojob);
	wunlock(w);
	len = size ? size : PG;
	if (chance(RNG(w), 25)) {
		switch (rnd(RNG(w), 5)) {
		case 0:
			len = 0;
			break;
		case 1:
			len = PG;
			break;
		case 2:
			len += PG;
			break;
		case 3:
			/*
			 * An offset inside the object: never past its end, where the
			 * next page may be another object's cookie (a kernel page is
			 * one page; cookie + 2 pages was the next rings' cookie, a
			 * valid mapping the model took for an invalid one).
			 */
			if (size >= 2 * PG)
				pgoff = 1 + (int)rnd(RNG(w), size / PG - 1 < 3 ? size / PG - 1 : 3);
			break;
		default:
			len = (rnd(RNG(w), 1024) + 1) * PG;
			break;
		}
	}
	prot = chance(RNG(w), 80) ? (writable ? PROT_READ | PROT_WRITE : PROT_READ) :
	       prots[rnd(RNG(w), sizeof(prots) / sizeof(prots[0]))];
	flags = chance(RNG(w), 90) ? MAP_SHARED : MAP_PRIVATE;
	if (chance(RNG(w), 10))
		flags |= MAP_POPULATE;
	if (chance(RNG(w), 5))
		flags |= MAP_LOCKED;
	op_begin("mmap(fd%d, cookie %#llx%s, len %#llx, prot %d, flags %#x)", fd, cookie,
		 pgoff ? "+pages" : "", len, prot, flags);
	p = mmap(NULL, len, prot, flags, fd, (off_t)(cookie + (u64)pgoff * PG));
	ret = op_end(p == MAP_FAILED ? -errno : 0);
	check_errno(w, "mmap", ret, E_MMAP);
	wlock(w);
	fr = file_of(w, s);
	if (w->model && fr && !fr->elsewhere && !w->foreign && fd >= 0 && !w->f[s].ro) {
		int valid = fr->role == R_EP && (kind == 1 || kind == 2) && (flags & MAP_SHARED) &&
			    !pgoff && len && len <= size && (writable || !(prot & PROT_WRITE)) &&
			    ojob == fr->job;

		if (fr->role != R_EP && ret == 0)
			mismatch("mmap", "on a file that is no endpoint: succeeded", ret);
		if (kind == 3 && ret == 0)
			mismatch("mmap", "a dead cookie: succeeded", ret);
		if ((kind == 1 || kind == 2) && ret == 0 && !valid)
			mismatch("mmap", "invalid mapping of a live object: succeeded", ret);
		/* Defect 7's fix may map a peer's rings read-only only: EACCES for rings. */
		if (valid && ret && ret != -ENOMEM && ret != -EAGAIN &&
		    !(kind == 1 && (prot & PROT_WRITE) && ret == -EACCES))
			mismatch("mmap", "valid mapping of a live object of this job: failed", ret);
	}
	if (p != MAP_FAILED) {
		k = map_slot_free(w);
		if (k < 0) {
			wunlock(w);
			munmap(p, len);
			return;
		}
		w->m[k].live = 1;
		w->m[k].addr = p;
		w->m[k].len = len;
		w->m[k].writable = !!(prot & PROT_WRITE);
		w->m[k].readable = prot != PROT_NONE;
		w->m[k].cookie = cookie;
		w->m[k].fid = s >= 0 ? w->f[s].fid : -1;
	}
	wunlock(w);
}

static int pick_map(struct world *w)
{
	int i, k = (int)rnd(RNG(w), NMAP);

	for (i = 0; i < NMAP; i++)
		if (w->m[(k + i) % NMAP].live)
			return (k + i) % NMAP;
	return -1;
}

static void op_munmap(struct world *w)
{
	int k, whole;
	char *addr;
	size_t len;
	long ret;

	wlock(w);
	k = pick_map(w);
	if (k < 0) {
		wunlock(w);
		return;
	}
	addr = w->m[k].addr;
	len = w->m[k].len;
	whole = len <= PG || chance(RNG(w), 60);
	if (whole) {
		w->m[k].live = 0;
	} else if (chance(RNG(w), 50)) {	/* the first page: the rest stays */
		w->m[k].addr += PG;
		w->m[k].len -= PG;
		len = PG;
	} else {			/* the last page */
		w->m[k].len -= PG;
		addr += w->m[k].len;
		len = PG;
	}
	/* In a race the lock covers the munmap, so nobody touches a reused range. */
	op_begin("munmap(%p, %#zx)", (void *)addr, len);
	ret = op_end(sys_ret(munmap(addr, len)));
	wunlock(w);
	check_errno(w, "munmap", ret, E_MUNMAP);
}

static void op_mremap(struct world *w)
{
	int k, how;
	char *addr, *to = NULL;
	size_t len, nlen;
	void *p;
	long ret;

	wlock(w);
	k = pick_map(w);
	if (k < 0) {
		wunlock(w);
		return;
	}
	addr = w->m[k].addr;
	len = w->m[k].len;
	how = (int)rnd(RNG(w), 3);
	nlen = how == 0 ? len + PG : how == 1 && len > PG ? len - PG : len;
	if (how == 2) {	/* move to a fresh place */
		to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (to == MAP_FAILED) {
			wunlock(w);
			return;
		}
	}
	op_begin("mremap(%p, %#zx -> %#zx%s)", (void *)addr, len, nlen, to ? ", moved" : "");
	p = to ? mremap(addr, len, nlen, MREMAP_MAYMOVE | MREMAP_FIXED, to) :
		 mremap(addr, len, nlen, 0);
	ret = op_end(p == MAP_FAILED ? -errno : 0);
	/*
	 * A failed move may have unmapped the reservation already (MREMAP_FIXED
	 * unmaps the target before it checks the source), and another thread's
	 * mmap may have landed there since: unmapping 'to' now could take that
	 * away (a race episode once died so).  The reservation is left, at
	 * most len bytes of PROT_NONE address space.
	 */
	if (p != MAP_FAILED) {
		w->m[k].addr = p;
		w->m[k].len = nlen;
	}
	wunlock(w);
	check_errno(w, "mremap", ret, E_MREMAP);
}

static void op_mprotect(struct world *w)
{
	static const int prots[] = { PROT_READ | PROT_WRITE, PROT_READ, PROT_NONE,
				     PROT_READ | PROT_EXEC, PROT_WRITE };
	int k, prot = prots[rnd(RNG(w), 5)];
	char *addr;
	size_t len;
	long ret;

	wlock(w);
	k = pick_map(w);
	if (k < 0) {
		wunlock(w);
		return;
	}
	addr = w->m[k].addr;
	len = w->m[k].len;
	if (len > PG && chance(RNG(w), 50))	/* part of it: the VMA splits */
		len = PG * (1 + rnd(RNG(w), len / PG - 1));
	op_begin("mprotect(%p, %#zx, %d)", (void *)addr, len, prot);
	ret = op_end(sys_ret(mprotect(addr, len, prot)));
	if (!ret) {
		w->m[k].writable = len == w->m[k].len && (prot & PROT_WRITE);
		w->m[k].readable = 0;
	}
	wunlock(w);
	check_errno(w, "mprotect", ret, E_MPROTECT);
}

static void op_madvise(struct world *w)
{
	static const int adv[] = { MADV_DONTNEED, MADV_DONTFORK, MADV_DOFORK, MADV_REMOVE,
				   MADV_WILLNEED, MADV_FREE, MADV_COLD, MADV_PAGEOUT };
	int k, a = adv[rnd(RNG(w), sizeof(adv) / sizeof(adv[0]))];
	long ret;

	wlock(w);
	k = pick_map(w);
	if (k < 0) {
		wunlock(w);
		return;
	}
	op_begin("madvise(%p, %#zx, %d)", (void *)w->m[k].addr, w->m[k].len, a);
	ret = op_end(sys_ret(madvise(w->m[k].addr, w->m[k].len, a)));
	wunlock(w);
	check_errno(w, "madvise", ret, E_MADVISE);
}

/*
 * Reads, or writes random bytes, at random offsets of a mapping: rings,
 * control pages (ring indices the kernel reads back) and segments.
 * Revoked mappings may fault (SIGBUS; defect 15 asks for no signal).
 */
/* The state of the object behind a cookie, as far as this process knows. */
static int cookie_state(struct world *w, u64 cookie)
{
	int i;

	for (i = 0; i < w->nfile; i++)
		if (w->file[i].rings != S_DEAD && w->file[i].rcookie == cookie)
			return w->file[i].elsewhere ? S_UNKNOWN : w->file[i].rings;
	for (i = 0; i < NR; i++)
		if (w->g[i].state != S_DEAD && w->g[i].cookie == cookie)
			return w->file[w->g[i].fid].elsewhere ? S_UNKNOWN : w->g[i].state;
	for (i = 0; i < NDEAD && i < w->ndead; i++)
		if (w->dead_cookies[i] == cookie)
			return S_DEAD;
	return S_UNKNOWN;
}

static void op_touch(struct world *w)
{
	int k, wr, sig, n, st;
	size_t off;

	wlock(w);
	k = pick_map(w);
	if (k < 0) {
		wunlock(w);
		return;
	}
	wr = w->m[k].writable && chance(RNG(w), 50);
	n = 1 + (int)rnd(RNG(w), 16);
	off = chance(RNG(w), 50) ? rnd(RNG(w), 512) : rnd(RNG(w), w->m[k].len);
	op_begin("%s(%p+%#zx x%d)", wr ? "scribble" : "touch", (void *)w->m[k].addr, off, n);
	sig = 0;
	while (n-- && !sig) {
		sig = touch(w->m[k].addr + off, wr, (char)rnext(RNG(w)));
		off = (off + 8 * rnd(RNG(w), 64)) % w->m[k].len;
	}
	op_end(sig);
	st = cookie_state(w, w->m[k].cookie);
	if (w->model && !w->foreign && w->m[k].readable && sig) {
		/* A live object's mapping never faults. */
		if (st == S_LIVE)
			fail("touch live", "touch: a mapping of a live object raised signal %d", sig);
		/*
		 * CASE(15): a revoked mapping (its owner deregistered it or
		 * left) must not kill the accessor (SIGBUS before the fix).
		 */
		if (st == S_DEAD && CASE(15))
			fail("touch revoked", "touch: a revoked mapping raised signal %d (defect 15)",
			     sig);
	}
	wunlock(w);
}

/* PGAS_IOC_WAKE of a rank, valid or not. */
static void op_wake(struct world *w)
{
	struct pgas_ioc_wake a = { .size = sizeof(a) };
	int s, fd = pick_fd(w, &s), place;
	unsigned int size;
	long ret;

	a.vpid = chance(RNG(w), 80) ? (unsigned int)rnd(RNG(w), 8) : (unsigned int)rnext(RNG(w));
	if (chance(RNG(w), 3))
		a.flags = (unsigned int)rnext(RNG(w));
	if (chance(RNG(w), 3))
		a.pad = 1;
	op_begin("WAKE(fd%d, vpid %u, flags %#x, pad %u)", fd, a.vpid, a.flags, a.pad);
	IOCTL_FUZZ(w, fd, PGAS_IOC_WAKE, &a, ret, place, size);
	op_end(ret);
	check_errno(w, "WAKE", ret, E_WAKE);
	(void)place;
	(void)size;
}

/* poll() on the file: an endpoint sleeps there; anything else must not hang. */
static void op_poll(struct world *w)
{
	int s, fd = pick_fd(w, &s);
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };
	int ms = chance(RNG(w), 70) ? 0 : (int)rnd(RNG(w), 20);
	long ret;

	op_begin("poll(fd%d, %d ms)", fd, ms);
	ret = op_end(sys_ret(poll(&p, 1, ms)));
	check_errno(w, "poll", ret, E_POLL);
}

/* PGAS_IOC_EP_INFO of an eid, valid or not, with what the model knows of it. */
static void op_ep_info(struct world *w)
{
	struct pgas_ioc_ep_info a = { .size = sizeof(a) };
	int s, fd = pick_fd(w, &s), place, i;
	struct filerec *fr, *other = NULL;
	unsigned int size;
	long ret;

	a.eid = chance(RNG(w), 85) ? (unsigned int)rnd(RNG(w), 10) : (unsigned int)rnext(RNG(w));
	/* Mostly an endpoint this world knows: ranks and extras it joined. */
	if (chance(RNG(w), 60)) {
		int k = (int)rnd(RNG(w), NF);

		for (i = 0; i < NF; i++) {
			int t = (k + i) % NF;

			if (w->f[t].fd >= 0 && w->file[w->f[t].fid].role == R_EP) {
				a.eid = w->file[w->f[t].fid].eid;
				break;
			}
		}
	}
	if (chance(RNG(w), 3))
		a.flags = (unsigned int)rnext(RNG(w));
	if (chance(RNG(w), 3))
		a.pad = 1;
	op_begin("EP_INFO(fd%d, eid %u, flags %#x, pad %u)", fd, a.eid, a.flags, a.pad);
	IOCTL_FUZZ(w, fd, PGAS_IOC_EP_INFO, &a, ret, place, size);
	op_end(ret);
	check_errno(w, "EP_INFO", ret, E_EPINFO);
	if (ret == 0)
		atomic_fetch_add(&sh->ep_infos, 1);
	wlock(w);
	fr = file_of(w, s);
	if (w->model && fr && !fr->elsewhere && !w->foreign && !w->race &&
	    clean_call(size, sizeof(a), place) && fr->role == R_EP && !a.flags && !a.pad) {
		const struct jobrec *j = &w->j[fr->job];

		if (ret == -ENOENT && a.eid < j->nranks)
			mismatch("EP_INFO", "a rank's eid: ENOENT", ret);
		if (ret == 0 && a.eid >= j->max_eps)
			mismatch("EP_INFO", "an eid past max_eps: succeeded", ret);
		if (ret == 0 && (a.state > PGAS_EP_STATE_CLOSED || !a.cookie != !a.region_size ||
				 a.layout.size != a.region_size ||
				 (a.cookie && a.state != PGAS_EP_STATE_LIVE) ||
				 (a.eid < j->nranks && a.owner != a.eid) || a.owner >= j->nranks))
			mismatch("EP_INFO", "an inconsistent answer", (long)a.state);
		/* One of this world's own endpoints, live here: so in the kernel. */
		for (i = 0; i < NF; i++) {
			struct filerec *o = w->f[i].fd >= 0 ? &w->file[w->f[i].fid] : NULL;

			if (o && o->role == R_EP && o->job == fr->job && o->eid == a.eid &&
			    !o->elsewhere)
				other = o;
		}
		if (other && (ret || a.state != PGAS_EP_STATE_LIVE ||
			      (other->rings == S_LIVE && a.cookie != other->rcookie)))
			mismatch("EP_INFO", "a live endpoint of this process: not live, or another "
				 "cookie", ret ? ret : (long)a.state);
	}
	wunlock(w);
}

static void op_badcmd(struct world *w)
{
	static const unsigned int cmds[] = { PGAS_IOC_JOB_CREATE, PGAS_IOC_JOB_JOIN,
					     PGAS_IOC_RINGS_CREATE, PGAS_IOC_REG,
					     PGAS_IOC_DEREG, PGAS_IOC_WAKE, PGAS_IOC_EP_INFO };
	const int ncmds = (int)(sizeof(cmds) / sizeof(cmds[0]));
	int s, fd = pick_fd(w, &s), i;
	unsigned int cmd, t;
	char arg[64];
	long ret;

	for (i = 0; i < (int)sizeof(arg); i++)
		arg[i] = (char)rnext(RNG(w));
	switch (rnd(RNG(w), 4)) {
	case 0:	/* a real command with another direction or size */
		cmd = cmds[rnd(RNG(w), (u64)ncmds)];
		cmd ^= chance(RNG(w), 50) ? (1u + (unsigned int)rnd(RNG(w), 3)) << _IOC_DIRSHIFT :
					   (1u + (unsigned int)rnd(RNG(w), 255)) << _IOC_SIZESHIFT;
		break;
	case 1:	/* our magic, another number */
		cmd = _IOC((unsigned int)rnd(RNG(w), 4), PGAS_IOC_MAGIC, 6 + rnd(RNG(w), 250),
			   rnd(RNG(w), 64));
		break;
	case 2:
		cmd = _IOC((unsigned int)rnd(RNG(w), 4), PGAS_IOC_MAGIC, 0, rnd(RNG(w), 64));
		break;
	default:	/* anything outside the VFS's own types (T, f, X, 0x94, 0) */
		do {
			cmd = (unsigned int)rnext(RNG(w));
			t = _IOC_TYPE(cmd);
		} while (t == 'T' || t == 'f' || t == 'X' || t == 0x94 || t == 0 ||
			 t == PGAS_IOC_MAGIC);
		break;
	}
	for (i = 0; i < ncmds; i++)	/* every real command is someone else's op */
		if (cmd == cmds[i])
			return;
	op_begin("ioctl(fd%d, %#x, random bytes)", fd, cmd);
	ret = op_end(sys_ret(ioctl(fd, cmd, chance(RNG(w), 80) ? arg : NULL)));
	if (s >= 0 && ret != -ENOTTY)
		check_errno(w, "wrong ioctl command", ret ? ret : -9999, E_BADCMD);
}

/* A valid command with random bytes (its size field random too). */
static void op_garbage(struct world *w)
{
	static const unsigned int cmds[] = { PGAS_IOC_JOB_CREATE, PGAS_IOC_JOB_JOIN,
					     PGAS_IOC_RINGS_CREATE, PGAS_IOC_REG,
					     PGAS_IOC_DEREG, PGAS_IOC_WAKE, PGAS_IOC_EP_INFO };
	static const int *const sets[] = { E_CREATE, E_JOIN, E_RINGS, E_REG, E_DEREG, E_WAKE,
					   E_EPINFO };
	static const char *const names[] = { "JOB_CREATE", "JOB_JOIN", "RINGS_CREATE", "REG",
					     "DEREG", "WAKE", "EP_INFO" };
	int s, fd = pick_fd(w, &s), c = (int)rnd(RNG(w), 7), i;
	char arg[128];
	long ret;

	for (i = 0; i < (int)sizeof(arg); i++)
		arg[i] = (char)rnext(RNG(w));
	if (chance(RNG(w), 50))
		*(unsigned int *)arg = (unsigned int)rnd(RNG(w), 128);
	op_begin("%s(fd%d, random bytes, size %u)", names[c], fd, *(unsigned int *)arg);
	ret = op_end(do_ioctl(fd, cmds[c], arg, sizeof(arg), pick_place(RNG(w))));
	check_errno(w, names[c], ret, sets[c]);
	/* Success is possible (e.g. a lucky DEREG): the model no longer knows. */
	if (ret == 0 && s >= 0)
		w->file[w->f[s].fid].elsewhere = 1;
}

/* ---- processes: fork, exec, kill, SCM_RIGHTS ------------------------------------ */

static void kid_add(struct world *w, pid_t pid)
{
	if (w->nkids < NKID)
		w->kids[w->nkids++] = pid;
	else
		kill(pid, SIGKILL);	/* never lose a child */
}

static void reap(struct world *w, int k, int sig)
{
	int status;
	pid_t pid = w->kids[k];

	if (sig)
		kill(pid, sig);
	op_begin("waitpid(%d%s)", (int)pid, sig ? ", after SIGKILL" : "");
	op_end(sys_ret(waitpid(pid, &status, 0)));
	w->kids[k] = w->kids[--w->nkids];
}

static void mark_all_elsewhere(struct world *w)
{
	int i;

	for (i = 0; i < NF; i++)
		if (w->f[i].fd >= 0)
			w->file[w->f[i].fid].elsewhere = 1;
}

static void run_ops(struct world *w, int nops, int depth);

/* A child that inherited every fd: a few ops of its own, then it exits or waits to be killed. */
static void op_fork(struct world *w)
{
	u64 cs = rnext(RNG(w));
	int how = (int)rnd(RNG(w), 4);
	pid_t pid;

	if (w->nkids >= NKID)
		return;
	op_begin("fork(child seed %#llx, %s)", cs,
		 how == 0 ? "exits 0" : how == 1 ? "exits 1" : how == 2 ? "waits for kill" : "execs");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char tag[32];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		snprintf(tag, sizeof(tag), "c%d", (int)getpid());
		forget_slot();
		claim_slot(strdup(tag));
		w->rr.s = cs;
		w->foreign = 1;
		w->model = 0;
		w->nkids = 0;
		memset(w->m, 0, sizeof(w->m));	/* VM_DONTCOPY: no pgas mapping came along */
		if (how == 3) {
			char ms[16];

			snprintf(ms, sizeof(ms), "%u", (unsigned int)rnd(RNG(w), 300));
			op_begin("execve(%s --hold %s)", self_exe, ms);
			release_slot();
			execl(self_exe, self_exe, "--hold", ms, (char *)NULL);
			_exit(127);
		}
		run_ops(w, 5 + (int)rnd(RNG(w), 20), 1);
		if (how == 2) {
			release_slot();
			for (;;)
				pause();
		}
		release_slot();
		_exit(how);
	}
	op_end(sys_ret(pid));
	if (pid < 0) {
		check_errno(w, "fork", -errno, E_FORK);
		return;
	}
	mark_all_elsewhere(w);
	kid_add(w, pid);
}

static void op_kill(struct world *w)
{
	int k, status;

	if (!w->nkids)
		return;
	k = (int)rnd(RNG(w), w->nkids);
	if (chance(RNG(w), 80)) {
		reap(w, k, SIGKILL);
	} else if (waitpid(w->kids[k], &status, WNOHANG) == w->kids[k]) {
		op_begin("waitpid(%d): it had exited", (int)w->kids[k]);
		op_end(status);
		w->kids[k] = w->kids[--w->nkids];
	}
}

/*
 * SCM_RIGHTS: a holder process gets a copy of one of our fds and keeps it
 * for a while, using it; or the fd is left in flight in a socket that is
 * then closed (the kernel drops it with the socket).
 */
static void op_pass(struct world *w)
{
	int s, fd = pick_fd(w, &s), sv[2], keep = chance(RNG(w), 60);
	char cbuf[CMSG_SPACE(sizeof(int))], byte = 'x';
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	pid_t pid = -1;
	long ret;

	if (s < 0 || w->nkids >= NKID)
		return;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		check_errno(w, "socketpair", -errno, E_SOCK);
		return;
	}
	if (keep) {
		u64 cs = rnext(RNG(w));

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			char tag[32];
			int i, got = -1;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			snprintf(tag, sizeof(tag), "h%d", (int)getpid());
			forget_slot();
			claim_slot(strdup(tag));
			/* Only the passed fd: close what fork gave us. */
			for (i = 0; i < NF; i++)
				if (w->f[i].fd >= 0)
					close(w->f[i].fd);
			close(sv[0]);
			memset(cbuf, 0, sizeof(cbuf));
			if (recvmsg(sv[1], &mh, 0) == 1 && (cm = CMSG_FIRSTHDR(&mh)) &&
			    cm->cmsg_type == SCM_RIGHTS)
				memcpy(&got, CMSG_DATA(cm), sizeof(int));
			for (i = 0; i < NF; i++)
				w->f[i].fd = -1;
			w->f[0].fd = got;
			w->rr.s = cs;
			w->foreign = 1;
			w->model = 0;
			w->nkids = 0;
			memset(w->m, 0, sizeof(w->m));
			if (got >= 0)
				run_ops(w, 3 + (int)rnd(RNG(w), 10), 1);
			sleep_ms((unsigned int)rnd(RNG(w), 200));
			release_slot();
			_exit(0);
		}
		if (pid < 0) {
			close(sv[0]);
			close(sv[1]);
			return;
		}
		kid_add(w, pid);
	}
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	op_begin("sendmsg(SCM_RIGHTS fd%d to %s)", fd, keep ? "a holder" : "nobody: dropped in flight");
	ret = op_end(sys_ret(sendmsg(sv[0], &mh, MSG_NOSIGNAL)));
	check_errno(w, "sendmsg(SCM_RIGHTS)", ret, E_SOCK);
	mark_all_elsewhere(w);	/* the holder's fork copied every fd, for a moment */
	close(sv[0]);
	close(sv[1]);
}

/* ---- an episode ------------------------------------------------------------------ */

struct opdef {
	void (*fn)(struct world *w);
	int weight;
	int top;	/* only at depth 0 (not in children) */
};

static const struct opdef ops[] = {
	{ op_open, 8, 0 }, { op_close, 4, 0 }, { op_dup, 1, 0 }, { op_create, 6, 0 },
	{ op_join, 8, 0 }, { op_rings, 8, 0 }, { op_reg, 14, 0 }, { op_dereg, 8, 0 },
	{ op_mmap, 12, 0 }, { op_munmap, 5, 0 }, { op_mremap, 2, 0 }, { op_mprotect, 2, 0 },
	{ op_madvise, 1, 0 }, { op_touch, 6, 0 }, { op_badcmd, 2, 0 }, { op_garbage, 3, 0 },
	{ op_wake, 2, 0 }, { op_poll, 2, 0 }, { op_ep_info, 4, 0 },
	{ op_fork, 1, 1 }, { op_kill, 1, 1 }, { op_pass, 1, 1 },
};

static void run_ops(struct world *w, int nops, int depth)
{
	int total = 0, i, x;

	for (i = 0; i < (int)(sizeof(ops) / sizeof(ops[0])); i++)
		total += ops[i].weight;
	while (nops-- > 0 && now_ns() < w->deadline) {
		x = (int)rnd(RNG(w), (u64)total);
		for (i = 0; x >= ops[i].weight; i++)
			x -= ops[i].weight;
		if (ops[i].top && depth)
			continue;
		ops[i].fn(w);
	}
}

/* Everything back: children killed and reaped, mappings gone, fds closed. */
static void teardown(struct world *w)
{

	int status;

	while (w->nkids)
		reap(w, w->nkids - 1, SIGKILL);
	/* Grandchildren (members' helpers) come to us: we are their subreaper. */
	op_begin("waitpid(any orphan)");
	while (waitpid(-1, &status, 0) > 0 || errno == EINTR)
		;
	op_end(0);
	for (int i = 0; i < NMAP; i++)
		if (w->m[i].live) {
			munmap(w->m[i].addr, w->m[i].len);
			w->m[i].live = 0;
		}
	for (int i = 0; i < NF; i++)
		if (w->f[i].fd >= 0) {
			op_begin("close(fd%d) at the end", w->f[i].fd);
			op_end(sys_ret(close(w->f[i].fd)));
			w->f[i].fd = -1;
		}
}

/* A launcher, a job, endpoints: the start most episodes share. */
static void setup_job(struct world *w, int neps)
{
	int i;

	op_open(w);
	w->f[0].ro = 0;
	{
		struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = 1 + (unsigned int)neps };
		long ret;

		if (w->f[0].fd < 0)
			return;
		/* Room for a few extra endpoints, usually. */
		c.max_eps = chance(RNG(w), 70) ? c.nranks + 1 + (unsigned int)rnd(RNG(w), 4) : 0;
		op_begin("JOB_CREATE(fd%d, nranks %u, max_eps %u)", w->f[0].fd, c.nranks, c.max_eps);
		ret = op_end(sys_ret(ioctl(w->f[0].fd, PGAS_IOC_JOB_CREATE, &c)));
		check_errno(w, "JOB_CREATE", ret, E_CREATE);
		if (ret)
			return;
		w->j[0] = (struct jobrec){ 1, c.job_id, c.nranks, c.key,
					   c.max_eps ? c.max_eps : c.nranks, 0, 0 };
		w->njobs = 1;
		w->file[w->f[0].fid].role = R_LAUNCHER;
	}
	for (i = 1; i <= neps && i < NF; i++) {
		struct pgas_ioc_job_join a = { .size = sizeof(a), .job_id = w->j[0].id,
					       .key = w->j[0].key, .vpid = (unsigned int)i - 1 };
		struct pgas_ioc_rings g = { .size = sizeof(g), .mbox_slots = 64,
					    .notify_entries = 64, .bounce_bufs = 2,
					    .bounce_size = 256 };
		struct filerec *fr;
		long ret;

		w->f[i].fd = -1;
		op_open(w);
		if (w->f[i].fd < 0)
			continue;
		fr = file_of(w, i);
		op_begin("JOB_JOIN(fd%d, vpid %u)", w->f[i].fd, a.vpid);
		ret = op_end(sys_ret(ioctl(w->f[i].fd, PGAS_IOC_JOB_JOIN, &a)));
		check_errno(w, "JOB_JOIN", ret, E_JOIN);
		if (ret)
			continue;
		fr->role = R_EP;
		fr->job = 0;
		fr->vpid = (int)a.vpid;
		fr->eid = a.vpid;
		w->j[0].joined |= 1ULL << a.vpid;
		op_begin("RINGS_CREATE(fd%d)", w->f[i].fd);
		ret = op_end(sys_ret(ioctl(w->f[i].fd, PGAS_IOC_RINGS_CREATE, &g)));
		check_errno(w, "RINGS_CREATE", ret, E_RINGS);
		if (ret)
			continue;
		fr->rings = S_LIVE;
		fr->rcookie = g.cookie;
		fr->rsize = g.region_size;
	}
	/* Extra endpoints of the ranks joined, with rings, in the slots left. */
	for (; i < NF && w->j[0].joined && chance(RNG(w), 60); i++) {
		struct pgas_ioc_job_join a = { .size = sizeof(a), .flags = PGAS_JOIN_EXTRA,
					       .job_id = w->j[0].id, .key = w->j[0].key };
		struct pgas_ioc_rings g = { .size = sizeof(g), .mbox_slots = 16,
					    .notify_entries = 16, .bounce_bufs = 1,
					    .bounce_size = 64 };
		struct filerec *fr;
		long ret;

		do
			a.vpid = (unsigned int)rnd(RNG(w), (u64)neps);
		while (!(w->j[0].joined & (1ULL << a.vpid)));
		w->f[i].fd = -1;
		op_open(w);
		if (w->f[i].fd < 0)
			continue;
		fr = file_of(w, i);
		op_begin("JOB_JOIN(fd%d, extra of vpid %u)", w->f[i].fd, a.vpid);
		ret = op_end(sys_ret(ioctl(w->f[i].fd, PGAS_IOC_JOB_JOIN, &a)));
		check_errno(w, "JOB_JOIN", ret, E_JOIN);
		if (!ret && (a.eid < w->j[0].nranks || a.eid >= w->j[0].max_eps ||
			     (w->j[0].last_eid && a.eid <= w->j[0].last_eid)))
			mismatch("JOB_JOIN", "an extra's eid out of order", (long)a.eid);
		if (ret)
			continue;
		fr->role = R_EP;
		fr->job = 0;
		fr->vpid = (int)a.vpid;
		fr->extra = 1;
		fr->eid = a.eid;
		w->j[0].last_eid = a.eid;
		atomic_fetch_add(&sh->extras, 1);
		op_begin("RINGS_CREATE(fd%d) of extra %u", w->f[i].fd, a.eid);
		ret = op_end(sys_ret(ioctl(w->f[i].fd, PGAS_IOC_RINGS_CREATE, &g)));
		check_errno(w, "RINGS_CREATE", ret, E_RINGS);
		if (!ret && g.kern_cookie)
			mismatch("RINGS_CREATE", "an extra endpoint got a kernel page", ret);
		if (ret)
			continue;
		fr->rings = S_LIVE;
		fr->rcookie = g.cookie;
		fr->rsize = g.region_size;
	}
}

static void episode_seq(struct world *w)
{
	if (chance(RNG(w), 70))
		setup_job(w, 1 + (int)rnd(RNG(w), 3));
	run_ops(w, 50 + (int)rnd(RNG(w), 250), 0);
}

/* ---- race: threads on one fd ---------------------------------------------------------- */

struct racer {
	struct world *w;
	int kind;
	u64 seed;
	atomic_int *stop;
};

static void *race_thread(void *p)
{
	struct racer *rc = p;
	struct world *w = rc->w;
	struct rng mine = { rc->seed };
	char tag[8];

	snprintf(tag, sizeof(tag), "t%d", rc->kind);
	claim_slot(tag);
	tl_rng = &mine;	/* the ops draw from this thread's own stream */
	while (!atomic_load(rc->stop) && now_ns() < w->deadline) {
		switch (rc->kind) {
		case 0:	/* REG/DEREG */
			if (rnd(&mine, 3))
				op_reg(w);
			else
				op_dereg(w);
			break;
		case 1:	/* mappings */
			switch (rnd(&mine, 6)) {
			case 0:
			case 1:
			case 2:
				op_mmap(w);
				break;
			case 3:
				op_munmap(w);
				break;
			case 4:
				op_mremap(w);
				break;
			default:
				op_mprotect(w);
				break;
			}
			break;
		default:	/* other ioctls, faulting arguments, touching, now and then a close */
			switch (rnd(&mine, 8)) {
			case 0:
				op_join(w);
				break;
			case 1:
				op_rings(w);
				break;
			case 2:
				op_garbage(w);
				break;
			case 3:
			case 4:
				op_touch(w);
				break;
			case 5:
				if (!rnd(&mine, 16)) {
					op_close(w);
					op_open(w);
				}
				break;
			default:
				op_create(w);
				break;
			}
			break;
		}
	}
	tl_rng = NULL;
	if (argpg) {
		munmap(argpg, 2 * PG);
		munmap(argpg + 3 * PG, PG);
	}
	release_slot();
	return NULL;
}

/*
 * Each racer has its own stream of choices (reproducible per seed); which
 * op meets which in the kernel is up to the scheduler, as in any race.
 */
static void episode_race(struct world *w)
{
	atomic_int stop = 0;
	struct racer rc[3];
	pthread_t t[3];
	u64 until;
	int i;

	setup_job(w, 1 + (int)rnd(RNG(w), 2));
	/* Warm up: registrations and mappings to race over. */
	for (i = 0; i < 4; i++) {
		op_reg(w);
		op_mmap(w);
	}
	w->race = 1;
	w->model = 0;
	until = now_ns() + (300 + rnd(RNG(w), 1200)) * 1000000ULL;
	for (i = 0; i < 3; i++) {
		rc[i] = (struct racer){ w, i, rnext(RNG(w)), &stop };
		pthread_create(&t[i], NULL, race_thread, &rc[i]);
	}
	while (now_ns() < until && now_ns() < w->deadline)
		sleep_ms(20);
	atomic_store(&stop, 1);
	for (i = 0; i < 3; i++) {
		op_begin("pthread_join(racer %d)", i);
		op_end(pthread_join(t[i], NULL));
	}
	w->race = 0;
}

/* ---- members: a job of processes that die at random moments ----------------------------- */

/*
 * A member's helper (forked without exec, so another mm): through the
 * member's fd it maps peers' segments and rings and reads and writes them
 * while members die around it, for ms; then it exits 0.  Whether the
 * module lets it map at all (defect 6's fix may refuse), nothing it does
 * may hang or kill it.
 */
static void helper_main(struct world *w, int fd, unsigned int nranks, unsigned int ms)
{
	struct member_board *bd = &sh->board;
	u64 end = now_ns() + (u64)ms * 1000000ULL;
	char tag[32];
	long ret;

	snprintf(tag, sizeof(tag), "h%d", (int)getpid());
	claim_slot(strdup(tag));
	memset(w->m, 0, sizeof(w->m));
	w->foreign = 1;
	w->model = 0;
	while (now_ns() < end) {
		int p = (int)rnd(RNG(w), nranks), rings = chance(RNG(w), 50), sig = 0, i;
		u64 c = rings ? atomic_load(&bd->rings[p]) : atomic_load(&bd->reg[p]);
		u64 sz = rings ? atomic_load(&bd->rsize[p]) : atomic_load(&bd->rlen[p]);
		volatile char *m;

		if (!c || !sz) {
			sleep_ms(5);
			continue;
		}
		op_begin("helper mmap(fd%d, vpid %d's %s %#llx, %#llx) + touch", fd, p,
			 rings ? "rings" : "segment", c, sz);
		m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)c);
		ret = m == MAP_FAILED ? -errno : 0;
		for (i = 0; !ret && !sig && i < 2000; i++)
			sig = touch(m + (rnext(RNG(w)) % sz), (int)(i & 1), (char)i);
		op_end(ret ? ret : sig);
		check_errno(w, "helper mmap", ret, E_MMAP);
		if (m != MAP_FAILED)
			munmap((void *)m, sz);
		sleep_ms((unsigned int)rnd(RNG(w), 20));
	}
	release_slot();
	_exit(0);
}

static void member_main(struct world *w, int vpid, struct jobrec job, u64 ms)
{
	struct pgas_ioc_job_join a = { .size = sizeof(a), .job_id = job.id, .key = job.key,
				       .vpid = (unsigned int)vpid };
	struct pgas_ioc_rings g;
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE };
	struct member_board *bd = &sh->board;
	u64 end = now_ns() + ms * 1000000ULL;
	struct filerec *fr;
	int fd, i;
	long ret;

	w->deadline = end < w->deadline ? end : w->deadline;
	for (i = 0; i < NF; i++)	/* only what the member opens itself */
		if (w->f[i].fd >= 0) {
			close(w->f[i].fd);
			w->f[i].fd = -1;
		}
	w->nfile = 0;
	memset(w->g, 0, sizeof(w->g));
	memset(w->m, 0, sizeof(w->m));
	op_open(w);
	fd = w->f[0].fd;
	if (fd < 0)
		return;
	fr = file_of(w, 0);
	op_begin("member JOB_JOIN(fd%d, job %u, vpid %d)", fd, job.id, vpid);
	ret = op_end(sys_ret(ioctl(fd, PGAS_IOC_JOB_JOIN, &a)));
	check_errno(w, "JOB_JOIN", ret, E_JOIN);
	if (ret)
		return;
	fr->role = R_EP;
	fr->job = 0;
	w->j[0] = job;
	w->njobs = 1;
	atomic_store(&bd->joined[vpid], (int)getpid());
	pick_geometry(RNG(w), &g, job.nranks);
	if (!rings_valid(&g) || chance(RNG(w), 50))
		g = (struct pgas_ioc_rings){ .size = sizeof(g), .mbox_slots = 16,
					     .notify_entries = 16, .bounce_bufs = 1,
					     .bounce_size = 64 };
	op_begin("member RINGS_CREATE(fd%d)", fd);
	ret = op_end(sys_ret(ioctl(fd, PGAS_IOC_RINGS_CREATE, &g)));
	check_errno(w, "RINGS_CREATE", ret, E_RINGS);
	if (!ret) {
		fr->rings = S_LIVE;
		fr->rcookie = g.cookie;
		fr->rsize = g.region_size;
		atomic_store(&bd->rsize[vpid], g.region_size);
		atomic_store(&bd->rings[vpid], g.cookie);
	}
	reg.addr = (uintptr_t)buf[B_ANON].addr;
	reg.len = PG * (1 + rnd(RNG(w), 8));
	op_begin("member REG(fd%d, anon, %#llx)", fd, reg.len);
	ret = op_end(sys_ret(ioctl(fd, PGAS_IOC_REG, &reg)));
	check_errno(w, "REG", ret, E_REG);
	if (!ret) {
		w->g[0] = (struct regrec){ S_LIVE, 0, reg.handle, reg.cookie, reg.len, 1 };
		atomic_store(&bd->rlen[vpid], reg.len);
		atomic_store(&bd->reg[vpid], reg.cookie);
	}
	/* Extra endpoints of its rank, with rings; they die with it. */
	for (i = 0; i < 2 && chance(RNG(w), 50); i++) {
		struct pgas_ioc_job_join x = { .size = sizeof(x), .flags = PGAS_JOIN_EXTRA,
					       .job_id = job.id, .key = job.key,
					       .vpid = (unsigned int)vpid };
		struct pgas_ioc_rings xg = { .size = sizeof(xg), .mbox_slots = 16,
					     .notify_entries = 16, .bounce_bufs = 1,
					     .bounce_size = 64 };
		int xfd;

		op_begin("member open + JOB_JOIN(extra of vpid %d) + RINGS_CREATE", vpid);
		xfd = open(DEV, O_RDWR | O_CLOEXEC);
		ret = xfd < 0 ? -errno : sys_ret(ioctl(xfd, PGAS_IOC_JOB_JOIN, &x));
		if (!ret) {
			atomic_fetch_add(&sh->extras, 1);
			atomic_store(&bd->extra[vpid][i], x.eid);
			ret = sys_ret(ioctl(xfd, PGAS_IOC_RINGS_CREATE, &xg));
		}
		op_end(ret);
		check_errno(w, "member extra", ret, E_JOIN);
	}
	w->model = 0;
	while (now_ns() < w->deadline) {
		int p = (int)rnd(RNG(w), (u64)job.nranks);
		u64 c, sz;
		void *m;

		switch (rnd(RNG(w), 8)) {
		case 0:
		case 1:	/* map a peer's rings or segment */
			c = chance(RNG(w), 50) ? atomic_load(&bd->rings[p]) : atomic_load(&bd->reg[p]);
			sz = c == atomic_load(&bd->rings[p]) ? atomic_load(&bd->rsize[p]) :
							      atomic_load(&bd->rlen[p]);
			if (!c || !sz)
				break;
			op_begin("member mmap(fd%d, vpid %d's cookie %#llx, %#llx)", fd, p, c, sz);
			m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)c);
			ret = op_end(m == MAP_FAILED ? -errno : 0);
			check_errno(w, "member mmap", ret, E_MMAP);
			if (m != MAP_FAILED) {
				i = map_slot_free(w);
				if (i < 0) {
					munmap(m, sz);
					break;
				}
				w->m[i] = (struct maprec){ 1, m, sz, 1, 1, c, 0 };
			}
			break;
		case 2:
			op_touch(w);
			break;
		case 3:
			op_munmap(w);
			break;
		case 4:
			op_reg(w);
			break;
		case 5:
			op_dereg(w);
			break;
		case 6:	/* a helper that keeps the endpoint's fd (defect 6's setup) */
			if (w->nkids < NKID && chance(RNG(w), 30)) {
				pid_t pid;

				op_begin("member fork(helper keeps fd%d)", fd);
				atomic_store(&bd->helper[vpid], 1);
				pid = fork();
				if (pid == 0) {
					/*
					 * No PDEATHSIG: it outlives a killed member for
					 * a moment (the runner is its subreaper).
					 */
					forget_slot();
					helper_main(w, fd, job.nranks,
						    200 + (unsigned int)rnd(RNG(w), 1800));
				}
				op_end(sys_ret(pid));
				if (pid > 0)
					kid_add(w, pid);
			}
			break;
		default:
			sleep_ms((unsigned int)rnd(RNG(w), 10));
			break;
		}
	}
}

/* Reaps the child pid (after sig, if any); returns its wait status. */
static int reap_pid(struct world *w, pid_t pid, int sig)
{
	int k, status = 0;

	for (k = 0; k < w->nkids; k++)
		if (w->kids[k] == pid)
			break;
	if (k == w->nkids)
		return -1;
	if (sig)
		kill(pid, sig);
	op_begin("waitpid(%d%s)", (int)pid, sig ? ", after SIGKILL" : "");
	op_end(sys_ret(waitpid(pid, &status, 0)));
	w->kids[k] = w->kids[--w->nkids];
	return status;
}

/*
 * The observer's kernel page (ABI 2): the peer-gone event for vpid, or -1.
 * Returns its died field (1: died, 0: left).
 */
static int peer_gone_seen(const struct pgas_kern_page *kp, unsigned int vpid)
{
	u64 i, t = __atomic_load_n(&kp->gone_tail, __ATOMIC_ACQUIRE);

	for (i = t > PGAS_GONE_EVENTS ? t - PGAS_GONE_EVENTS : 0; i < t; i++)
		if (kp->gone[i % PGAS_GONE_EVENTS].vpid == vpid)
			return (int)kp->gone[i % PGAS_GONE_EVENTS].died;
	return -1;
}

/*
 * A job of n members and an observer endpoint (vpid n) in the runner.  The
 * launcher kills members at random moments, mid-join included; members map
 * each other, scribble, register, fork helpers that keep their fd, and exit
 * 0 or 1.  Afterwards the observer's ring must say, for every member that
 * had joined, that it is gone, and how: died (SIGKILL, exit 1) or left
 * (exit 0).  CASE(6): before defect 6's fix, when a helper forked
 * without exec held the fd, the death was reported late, as a clean
 * departure, from the helper's exit.
 */
static void episode_members(struct world *w)
{
	unsigned int n = 2 + (unsigned int)rnd(RNG(w), MAXM - 2), i;
	struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = n + 1,
					 .max_eps = n + 1 + 2 * MAXM };
	struct pgas_ioc_job_join oj = { .size = sizeof(oj) };
	struct pgas_ioc_rings og = { .size = sizeof(og), .mbox_slots = 16, .notify_entries = 64,
				     .bounce_bufs = 1, .bounce_size = 64 };
	u64 until = now_ns() + (300 + rnd(RNG(w), 1500)) * 1000000ULL;
	struct { pid_t pid; int vpid, status, dup; } mem[MAXM + 1];
	char *region = MAP_FAILED;
	const struct pgas_kern_page *kpage = MAP_FAILED;
	int nm = 0, ofd, k;
	long ret;

	memset(&sh->board, 0, sizeof(sh->board));
	op_open(w);
	if (w->f[0].fd < 0)
		return;
	op_begin("JOB_CREATE(fd%d, nranks %u) for %u members and an observer", w->f[0].fd,
		 n + 1, n);
	ret = op_end(sys_ret(ioctl(w->f[0].fd, PGAS_IOC_JOB_CREATE, &c)));
	check_errno(w, "JOB_CREATE", ret, E_CREATE);
	if (ret)
		return;
	w->j[0] = (struct jobrec){ 1, c.job_id, n + 1, c.key, c.max_eps, 0, 0 };
	w->njobs = 1;
	/*
	 * The observer: vpid n, its rings mapped read-only.  Opened O_RDWR: a
	 * MAP_SHARED mapping of an O_RDONLY file loses VM_SHARED, and the
	 * module refuses it with EINVAL.
	 */
	op_begin("open(%s) for the observer", DEV);
	ofd = (int)op_end(sys_ret(open(DEV, O_RDWR | O_CLOEXEC)));
	check_errno(w, "open", ofd, E_OPEN);
	if (ofd >= 0) {
		w->f[1].fd = ofd;
		w->f[1].fid = w->nfile++;
	}
	if (ofd >= 0) {
		oj.job_id = c.job_id;
		oj.key = c.key;
		oj.vpid = n;
		op_begin("observer JOB_JOIN(fd%d, vpid %u) + RINGS_CREATE + mmap", ofd, n);
		ret = sys_ret(ioctl(ofd, PGAS_IOC_JOB_JOIN, &oj));
		if (!ret)
			ret = sys_ret(ioctl(ofd, PGAS_IOC_RINGS_CREATE, &og));
		if (!ret) {
			region = mmap(NULL, og.region_size, PROT_READ, MAP_SHARED, ofd,
				      (off_t)og.cookie);
			ret = region == MAP_FAILED ? -errno : 0;
		}
		if (!ret) {
			kpage = mmap(NULL, PG, PROT_READ, MAP_SHARED, ofd, (off_t)og.kern_cookie);
			ret = kpage == MAP_FAILED ? -errno : 0;
		}
		op_end(ret);
		if (ret)
			fail("observer", "observer endpoint: %s", strerrorname_np((int)-ret));
	}
	for (i = 0; i < n + (chance(RNG(w), 20) ? 1 : 0) && w->nkids < NKID; i++) {
		u64 cs = rnext(RNG(w)), ms = 50 + rnd(RNG(w), 2000);
		unsigned int vpid = i < n ? i : (unsigned int)rnd(RNG(w), n);	/* one duplicate */
		pid_t pid;

		fflush(stdout);
		op_begin("fork(member vpid %u, seed %#llx)", vpid, cs);
		pid = fork();
		if (pid == 0) {
			char tag[32];
			int code;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			snprintf(tag, sizeof(tag), "m%u", vpid);
			forget_slot();
			claim_slot(strdup(tag));
			w->rr.s = cs;
			w->nkids = 0;
			member_main(w, (int)vpid, w->j[0], ms);
			code = (int)rnd(RNG(w), 2);
			release_slot();
			_exit(code);
		}
		op_end(sys_ret(pid));
		if (pid > 0) {
			kid_add(w, pid);
			mem[nm].pid = pid;
			mem[nm].vpid = (int)vpid;
			mem[nm].status = -1;
			mem[nm].dup = i >= n;
			if (i >= n)
				for (k = 0; k < nm; k++)
					if (mem[k].vpid == (int)vpid)
						mem[k].dup = 1;
			nm++;
		}
	}
	/* The launcher kills members at random moments, mid-join included. */
	while (now_ns() < until && now_ns() < w->deadline) {
		sleep_ms((unsigned int)rnd(RNG(w), 60));
		if (chance(RNG(w), 30)) {
			k = (int)rnd(RNG(w), (u64)nm);
			if (mem[k].status == -1)
				mem[k].status = reap_pid(w, mem[k].pid, SIGKILL);
		} else if (chance(RNG(w), 5) && w->f[0].fd >= 0) {
			op_begin("close(launcher fd%d) while members run", w->f[0].fd);
			op_end(sys_ret(close(w->f[0].fd)));
			w->f[0].fd = -1;
		}
	}
	for (k = 0; k < nm; k++)
		if (mem[k].status == -1)
			mem[k].status = reap_pid(w, mem[k].pid, chance(RNG(w), 50) ? SIGKILL : 0);
	if (region == MAP_FAILED || kpage == MAP_FAILED) {
		if (region != MAP_FAILED)
			munmap(region, og.region_size);
		return;
	}
	/* Every member that had joined is reported gone, promptly, and how. */
	for (k = 0; k < nm; k++) {
		int want, got = -1, helper = atomic_load(&sh->board.helper[mem[k].vpid]);
		u64 t_end = now_ns() + 5000000000ULL;	/* slow debug kernels */
		char key[128];

		if (mem[k].dup || atomic_load(&sh->board.joined[mem[k].vpid]) != mem[k].pid ||
		    mem[k].status == -1)
			continue;
		if (helper && !CASE(6))
			continue;
		want = WIFSIGNALED(mem[k].status) || WEXITSTATUS(mem[k].status) != 0;
		op_begin("observer: PEER_GONE for vpid %d (%s %d)?", mem[k].vpid,
			 WIFSIGNALED(mem[k].status) ? "signal" : "exit",
			 WIFSIGNALED(mem[k].status) ? WTERMSIG(mem[k].status) :
			 WEXITSTATUS(mem[k].status));
		while ((got = peer_gone_seen(kpage, (unsigned int)mem[k].vpid)) < 0 &&
		       now_ns() < t_end)
			sleep_ms(20);
		op_end(got);
		snprintf(key, sizeof(key), "peer gone %d %d", want, got);
		if (got != want)
			fail(key, "member vpid %d %s %d%s: the observer's ring says %s, want %s "
			     "within 5 s%s", mem[k].vpid,
			     WIFSIGNALED(mem[k].status) ? "killed by signal" : "exited with",
			     WIFSIGNALED(mem[k].status) ? WTERMSIG(mem[k].status) :
			     WEXITSTATUS(mem[k].status),
			     helper ? " while a forked helper held its fd" : "",
			     got < 0 ? "nothing" : got ? "died" : "left", want ? "died" : "left",
			     helper ? " (defect 6)" : "");
		/* Its extras are gone with it: each one closed event. */
		for (int x = 0; x < 2; x++) {
			unsigned int eid = atomic_load(&sh->board.extra[mem[k].vpid][x]);

			if (!eid)
				continue;
			op_begin("observer: closed event for extra %u of vpid %d?", eid, mem[k].vpid);
			while ((got = peer_gone_seen(kpage, eid)) < 0 && now_ns() < t_end)
				sleep_ms(20);
			op_end(got);
			snprintf(key, sizeof(key), "extra gone %d", got);
			if (got == PGAS_GONE_CLOSED)
				atomic_fetch_add(&sh->extra_events, 1);
			else
				fail(key, "member vpid %d's extra endpoint %u: the observer's page says %d, want %u (closed) within 5 s",
				     mem[k].vpid, eid, got, PGAS_GONE_CLOSED);
		}
	}
	munmap(region, og.region_size);
	munmap((void *)kpage, PG);
}

/* ---- memlock: an unprivileged user under RLIMIT_MEMLOCK ------------------------------- */

#define LOCK_PAGES 8

/*
 * As uid 65534 with RLIMIT_MEMLOCK of LOCK_PAGES pages: a process U holds
 * an endpoint; short-lived children register through U's fd and exit.
 * Pins must stay within the limit of the processes still alive (U alone):
 * before defect 2's fix, pins charged to a registering mm that then died
 * grew without bound (CASE(2)).  Every REG is also checked against the
 * limit itself.
 */
static void memlock_user(struct world *w)
{
	struct rlimit rl = { LOCK_PAGES * PG, LOCK_PAGES * PG };
	struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = 1 };
	struct pgas_ioc_job_join j = { .size = sizeof(j) };
	int lfd = open(DEV, O_RDWR | O_CLOEXEC), fd = open(DEV, O_RDWR | O_CLOEXEC);
	int rounds = 2 + (int)rnd(RNG(w), 4), r, status;
	long long base = 0, now = 0;
	long ret;

	if (lfd < 0 || fd < 0 || setrlimit(RLIMIT_MEMLOCK, &rl) || setgid(65534) || setuid(65534))
		_exit(3);
	read_num(SYSDIR "/pinned_pages", &base);
	op_begin("uid 65534: JOB_CREATE + JOB_JOIN");
	ret = sys_ret(ioctl(lfd, PGAS_IOC_JOB_CREATE, &c));
	if (!ret) {
		j.job_id = c.job_id;
		j.key = c.key;
		ret = sys_ret(ioctl(fd, PGAS_IOC_JOB_JOIN, &j));
	}
	op_end(ret);
	check_errno(w, "JOB_CREATE/JOIN as uid 65534", ret, E_JOIN);
	if (ret)
		_exit(0);
	for (r = 0; r < rounds; r++) {
		u64 pages = 1 + rnd(RNG(w), LOCK_PAGES + 4);
		pid_t pid;

		op_begin("uid 65534: child %d registers %llu pages through the holder's fd", r,
			 pages);
		pid = fork();
		if (pid == 0) {
			struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE,
						    .addr = (uintptr_t)buf[B_ANON].addr,
						    .len = pages * PG };

			forget_slot();
			ret = sys_ret(ioctl(fd, PGAS_IOC_REG, &reg));
			if (ret && !in_set((int)-ret, E_REG) && !in_set((int)-ret, E_FOREIGN))
				fail("memlock errno", "REG as uid 65534: unexpected errno %s",
				     strerrorname_np((int)-ret));
			if (!ret && pages > LOCK_PAGES)
				fail("memlock over", "REG of %llu pages with RLIMIT_MEMLOCK of %d "
				     "pages succeeded", pages, LOCK_PAGES);
			_exit(0);
		}
		op_end(sys_ret(pid));
		if (pid < 0)
			break;
		op_begin("uid 65534: waitpid(%d)", (int)pid);
		op_end(sys_ret(waitpid(pid, &status, 0)));
		read_num(SYSDIR "/pinned_pages", &now);
		if (now - base > LOCK_PAGES && CASE(2))
			fail("memlock escape", "uid 65534 with RLIMIT_MEMLOCK of %d pages and one "
			     "live process has %lld pages pinned after %d registering children "
			     "exited (defect 2)", LOCK_PAGES, now - base, r + 1);
	}
	_exit(0);
}

static void episode_memlock(struct world *w)
{
	u64 cs = rnext(RNG(w));
	pid_t pid;

	fflush(stdout);
	op_begin("fork(memlock user, seed %#llx)", cs);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		forget_slot();
		claim_slot("u");
		w->rr.s = cs;
		w->nkids = 0;
		memlock_user(w);
	}
	op_end(sys_ret(pid));
	if (pid > 0)
		kid_add(w, pid);
	if (pid > 0)
		reap_pid(w, pid, 0);
}

/* ---- the runner: episodes and their checks ---------------------------------------------- */

static struct bufrec mkbuf(void *addr, size_t len, const char *name, int readable, int writable,
			    int file_shared, size_t hole)
{
	struct bufrec b = { .addr = addr == MAP_FAILED ? NULL : addr, .len = len, .name = name,
			    .readable = readable, .writable = writable,
			    .file_shared = file_shared, .hole = hole };

	return b;
}

static void setup_buffers(void)
{
	int mfd, ffd = -1;
	char path[256];

	buf[B_ANON] = mkbuf(mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 16 * PG, "anon", 1, 1, 0, 0);
	memset(buf[B_ANON].addr, 1, 16 * PG);
	buf[B_ANON_UNTOUCHED] = mkbuf(mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 16 * PG, "anon-untouched", 1, 1, 0, 0);
	buf[B_SHARED] = mkbuf(mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0), 8 * PG, "anon-shared", 1, 1, 0, 0);
	mfd = memfd_create("pgas_fuzz", MFD_CLOEXEC);
	if (mfd >= 0 && !ftruncate(mfd, 8 * PG))
		buf[B_MEMFD] = mkbuf(mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE,
						MAP_SHARED, mfd, 0), 8 * PG, "memfd", 1, 1, 0, 0);
	if (mfd >= 0)
		close(mfd);
	/* A page-cache file that is not shmem: ramfs (defect 10). */
	mkdir(WORKDIR, 0700);
	mkdir(WORKDIR "/ramfs", 0700);
	ramfs_ok = !mount("pgas_fuzz", WORKDIR "/ramfs", "ramfs", 0, NULL);
	snprintf(path, sizeof(path), "%s/file", ramfs_ok ? WORKDIR "/ramfs" : WORKDIR);
	ffd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (ffd >= 0 && !ftruncate(ffd, 8 * PG)) {
		buf[B_FILE_SHARED] = mkbuf(mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE,
						      MAP_SHARED, ffd, 0), 8 * PG, "file-shared", 1, 1, ramfs_ok, 0);
		buf[B_FILE_PRIVATE] = mkbuf(mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE,
						       MAP_PRIVATE, ffd, 0), 8 * PG, "file-private", 1, 1, 0, 0);
		buf[B_FILE_PRIVATE].file_private = ramfs_ok;
		buf[B_FILE_RO] = mkbuf(mmap(NULL, 8 * PG, PROT_READ, MAP_SHARED, ffd, 0), 8 * PG, "file-shared-ro", 1, 0, ramfs_ok, 0);
		if (buf[B_FILE_SHARED].addr)
			memset(buf[B_FILE_SHARED].addr, 2, 8 * PG);
	}
	if (ffd >= 0)
		close(ffd);
	buf[B_RDONLY] = mkbuf(mmap(NULL, 8 * PG, PROT_READ,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 8 * PG, "rdonly", 1, 0, 0, 0);
	buf[B_NONE] = mkbuf(mmap(NULL, 4 * PG, PROT_NONE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 4 * PG, "prot-none", 0, 0, 0, 0);
	buf[B_HOLE] = mkbuf(mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 8 * PG, "holed", 1, 1, 0, 3 * PG);
	munmap(buf[B_HOLE].addr + 3 * PG, PG);
	{
		char *t = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		char *a = (char *)(((uintptr_t)t + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));

		madvise(a, 2 << 20, MADV_HUGEPAGE);
		memset(a, 3, 2 << 20);
		buf[B_THP] = mkbuf(a, 2 << 20, "thp", 1, 1, 0, 0);
	}
	for (int i = 0; i < B_NBUF; i++)
		if (buf[i].addr == MAP_FAILED)
			buf[i].addr = NULL;
}

static void cleanup_buffers(void)
{
	char path[256];
	int i;

	for (i = 0; i < B_NBUF; i++)
		if (buf[i].addr && (i == B_FILE_SHARED || i == B_FILE_PRIVATE || i == B_FILE_RO))
			munmap(buf[i].addr, buf[i].len);
	snprintf(path, sizeof(path), "%s/file", ramfs_ok ? WORKDIR "/ramfs" : WORKDIR);
	unlink(path);
	if (ramfs_ok)
		umount2(WORKDIR "/ramfs", MNT_DETACH);
	rmdir(WORKDIR "/ramfs");
	rmdir(WORKDIR);
}

struct stats {
	int episodes[4];
	int counter_fail, kmsg_fail;
};

static const char *const kind_name[] = { "seq", "race", "members", "memlock" };

/* Waits (bounded) for the gauges to come back; deferred releases take a moment. */
static int counters_back(const struct counters *base, char *msg, size_t len)
{
	struct counters c;
	int i;

	for (i = 0; i < 50; i++) {
		read_counters(&c);
		diff_counters(base, &c, msg, len);
		if (!msg[0])
			return 1;
		sleep_ms(100);
	}
	return 0;
}

static void run_episode(int e, u64 deadline, struct stats *st, const struct counters *base)
{
	struct world *w = malloc(sizeof(*w));
	u64 es = mix(seed, (u64)e);
	char msg[1024], key[64];
	int kind;

	atomic_store(&sh->episode, e);
	atomic_store(&sh->episode_seed, es);
	world_init(w, es, e);
	w->deadline = deadline;
	kind = (int)rnd(RNG(w), 20);
	kind = kind < 9 ? 0 : kind < 15 ? 1 : kind < 19 ? 2 : 3;
	st->episodes[kind]++;
	op_begin("episode %d: %s, seed %#llx", e, kind_name[kind], es);
	op_end(0);
	/* One line each: if the kernel panics, the console names the episode. */
	if (!verbose)
		out("# episode %d: %s\n", e, kind_name[kind]);
	if (kind == 0)
		episode_seq(w);
	else if (kind == 1)
		episode_race(w);
	else if (kind == 2)
		episode_members(w);
	else
		episode_memlock(w);
	teardown(w);
	if (!counters_back(base, msg, sizeof(msg))) {
		snprintf(key, sizeof(key), "counters %.50s", msg);
		fail(key, "after episode %d (%s) every child reaped and fd closed, but: %s", e,
		     kind_name[kind], msg);
		st->counter_fail++;
	}
	if (kmsg_scan()) {
		fail("kmsg", "kernel log: WARNING/BUG/KASAN/lockdep report in episode %d (%s)", e,
		     kind_name[kind]);
		st->kmsg_fail++;
	}
	free(w);
}

static int runner(u64 deadline)
{
	struct counters base;
	struct stats st = { { 0 }, 0, 0 };
	char msg[1024];
	int e, i;

	claim_slot("r");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	catch_faults();
	signal(SIGPIPE, SIG_IGN);
	setup_buffers();
	read_counters(&base);
	print_lock();
	out("# baseline:");
	for (i = 0; i < base.n; i++)
		out(" %s=%lld%s", base.name[i], base.v[i], base.gauge[i] ? "" : "(cumulative)");
	out("\n# file-backed buffer on %s\n", ramfs_ok ? "ramfs" : "tmpfs (no ramfs)");
	print_unlock();
	if (only_episode >= 0) {
		run_episode((int)only_episode, deadline, &st, &base);
		e = 1;
	} else {
		for (e = 0; now_ns() < deadline; e++)
			run_episode(e, deadline, &st, &base);
	}
	cleanup_buffers();
	if (!st.counter_fail)
		ok("after each of %d episodes (%d seq, %d race, %d members, %d memlock) every "
		   "sysfs gauge, pinned memory and VmLck came back", e, st.episodes[0],
		   st.episodes[1], st.episodes[2], st.episodes[3]);
	out("# %d extra endpoints joined, %d of their deaths seen as closed events, %d EP_INFO answers\n",
	    atomic_load(&sh->extras), atomic_load(&sh->extra_events), atomic_load(&sh->ep_infos));
	if (!st.kmsg_fail)
		ok("no WARNING, BUG, KASAN or lockdep report in the kernel log%s",
		   kmsg_fd < 0 ? " (no /dev/kmsg: not checked)" : "");
	if (!counters_back(&base, msg, sizeof(msg)))
		fail("final counters", "at the end: %s", msg);
	else
		ok("at the end every gauge is back at its baseline");
	release_slot();
	return 0;
}

/* ---- the supervisor: watchdog, reports ------------------------------------------------- */

/* A slot's task is gone, or a zombie: its op is not in flight any more. */
static int task_alive(int tid)
{
	char path[64], line[256];
	int alive = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "State:", 6)) {
			alive = !strchr(line, 'Z') && !strchr(line, 'X');
			break;
		}
	fclose(f);
	return alive;
}

static void dump_stacks(void)
{
	char path[64], line[512];
	int i, tid;
	FILE *f;

	for (i = 0; i < NSLOT; i++) {
		tid = atomic_load(&sh->slots[i].tid);
		if (!tid || !task_alive(tid))
			continue;
		out("# task %d: %s (in flight %s)\n", tid, sh->slots[i].desc,
		    atomic_load(&sh->slots[i].start) ? "yes" : "no");
		snprintf(path, sizeof(path), "/proc/%d/status", tid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "State:", 6))
				out("#   %s", line);
		if (f)
			fclose(f);
		snprintf(path, sizeof(path), "/proc/%d/stack", tid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			out("#   %s", line);
		if (f)
			fclose(f);
	}
}

static int supervise(pid_t pid, u64 deadline)
{
	u64 limit = (u64)hang_seconds * 1000000000ULL, grace = deadline + 60000000000ULL;
	int status, i, tid;

	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		sleep_ms(100);
		for (i = 0; i < NSLOT; i++) {
			u64 t0 = atomic_load(&sh->slots[i].start);

			tid = atomic_load(&sh->slots[i].tid);
			if (!tid || !t0)
				continue;
			if (!task_alive(tid)) {
				atomic_store(&sh->slots[i].start, 0);
				atomic_store(&sh->slots[i].tid, 0);
				continue;
			}
			if (now_ns() - t0 > limit)
				goto hung;
		}
		if (now_ns() > grace) {
			i = -1;
			goto hung;
		}
	}
	if (WIFSIGNALED(status)) {
		fail("runner died", "the runner died of signal %d", WTERMSIG(status));
		return 1;
	}
	return WEXITSTATUS(status);
hung:
	{
		char key[128];

		snprintf(key, sizeof(key), "hang");
		if (i >= 0)
			fail(key, "operation stuck for more than %d s (a deadlock?): task %d: %s",
			     hang_seconds, tid, sh->slots[i].desc);
		else
			fail(key, "the run did not end 60 s after its time was up");
		print_lock();
		dump_stacks();
		print_unlock();
		kmsg_scan();
		/* Whatever can still die, dies; tasks in D state stay. */
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		sleep_ms(500);
		waitpid(pid, &status, WNOHANG);
		return 1;
	}
}

/* After exec: the fds we were given stay open a while; then we exit. */
static int hold_main(int argc, char **argv)
{
	int fd;

	sleep_ms(argc > 2 ? (unsigned int)atoi(argv[2]) : 100);
	for (fd = 3; fd < 64; fd++) {	/* an inherited endpoint used from a new image */
		struct pgas_ioc_rings g = { .size = sizeof(g) };

		(void)ioctl(fd, PGAS_IOC_RINGS_CREATE, &g);
	}
	return 0;
}

static void parse_defects(const char *s)
{
	char *end;
	long n;

	if (!s)
		return;
	defects_on = 0;
	if (!strcmp(s, "all")) {
		defects_on = ~0u;
		return;
	}
	while (*s) {
		n = strtol(s, &end, 10);
		if (end == s)
			break;
		if (n >= 0 && n < 32)
			defects_on |= 1u << n;
		s = *end ? end + 1 : end;
	}
}

int main(int argc, char **argv)
{
	const char *v;
	u64 deadline;
	pid_t pid;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--hold"))
		return hold_main(argc, argv);
	setvbuf(stdout, NULL, _IONBF, 0);
	t_start = now_ns();
	v = argc > 1 ? argv[1] : getenv("PGAS_FUZZ_SEED");
	if (v && *v) {
		seed = strtoull(v, NULL, 0);
	} else {
		int fd = open("/dev/urandom", O_RDONLY);

		if (fd < 0 || read(fd, &seed, sizeof(seed)) != sizeof(seed))
			seed = now_ns();
		if (fd >= 0)
			close(fd);
		seed %= 1000000000ULL;	/* short enough to type */
	}
	v = argc > 2 ? argv[2] : getenv("PGAS_FUZZ_SECONDS");
	if (v && *v)
		run_seconds = atoi(v);
	if ((v = getenv("PGAS_FUZZ_EPISODE")) && *v)
		only_episode = atol(v);
	if ((v = getenv("PGAS_FUZZ_HANG_SECONDS")) && *v)
		hang_seconds = atoi(v);
	verbose = (v = getenv("PGAS_FUZZ_VERBOSE")) && *v && *v != '0';
	/* Every defect's cases run now that main has their fixes. */
	parse_defects(getenv("PGAS_FUZZ_DEFECTS") ? getenv("PGAS_FUZZ_DEFECTS") : "all");
	out("pgas_fuzz: seed %llu\n", seed);
	out("TAP version 13\n");
	out("# %d s, hang limit %d s%s, cases of defects on: %#x (PGAS_FUZZ_DEFECTS)\n",
	    run_seconds, hang_seconds, only_episode >= 0 ? ", one episode" : "", defects_on);
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0)
		snprintf(self_exe, sizeof(self_exe), "%s", argv[0]);
	if (access(DEV, R_OK | W_OK)) {
		out("Bail out! %s: %s\n", DEV, strerror(errno));
		return 1;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		out("Bail out! mmap: %s\n", strerror(errno));
		return 1;
	}
	/* Shared by runner and supervisor: each reads what the other has not. */
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	deadline = now_ns() + (u64)run_seconds * 1000000000ULL;
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(runner(deadline));
	}
	rc = supervise(pid, deadline);
	if (!atomic_load(&sh->nseen))
		ok("%llu operations, none stuck over %d s, every errno expected, every "
		   "prediction held", (unsigned long long)atomic_load(&sh->ops), hang_seconds);
	else
		out("# %d failures (%d distinct) with seed %llu\n", atomic_load(&sh->failures),
		    atomic_load(&sh->nseen), seed);
	out("1..%d\n", atomic_load(&sh->tapno));
	return rc || atomic_load(&sh->nseen) ? 1 : 0;
}
