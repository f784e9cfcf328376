// SPDX-License-Identifier: MIT
/* bootstrap.c - both ends of the pgasrun relay protocol (see bootstrap.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "boot.h"
#include "bootstrap.h"
#include "bootpmix.h"
#include "pgas.h"

/* How long a send waits for receivers to take descriptors (ETOOMANYREFS). */
#define BOOT_REFS_WAIT_MS 60000

int pgas_boot_send_batch(int sock, const struct pgas_boot_msg *const *m, const int *fds,
			 unsigned n)
{
	union {		/* aligned for struct cmsghdr */
		char buf[CMSG_SPACE(PGAS_BOOT_BATCH * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov[PGAS_BOOT_BATCH];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = n };
	unsigned nfd = 0;
	ssize_t n_sent;

	if (!n || n > PGAS_BOOT_BATCH)
		return -EINVAL;
	memset(&cbuf, 0, sizeof(cbuf));
	for (unsigned i = 0; i < n; i++) {
		iov[i].iov_base = (void *)m[i];
		iov[i].iov_len = sizeof(*m[i]);
		if (fds[i] >= 0)
			memcpy(cbuf.buf + CMSG_LEN(0) + nfd++ * sizeof(int), &fds[i], sizeof(int));
	}
	if (nfd) {
		struct cmsghdr *cm;

		mh.msg_control = cbuf.buf;
		mh.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfd * sizeof(int));
	}
	for (unsigned waited_ms = 0;;) {
		n_sent = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n_sent >= 0)
			break;
		if (errno == EINTR)
			continue;
		/*
		 * Descriptors sent and not yet received count per user against
		 * the sender's RLIMIT_NOFILE (root is exempt): a relay to many
		 * ranks, or a rank's own send while it runs, meets the limit
		 * until receivers read.  They all are reading (an all-gather's
		 * ranks wait in it), so it clears: wait, within a bound.
		 */
		if (errno != ETOOMANYREFS || waited_ms >= BOOT_REFS_WAIT_MS)
			return -errno;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		waited_ms++;
	}
	return n_sent == (ssize_t)(n * sizeof(**m)) ? 0 : -EPROTO;
}

int pgas_boot_send(int sock, const struct pgas_boot_msg *m, int fd)
{
	return pgas_boot_send_batch(sock, &m, &fd, 1);
}

static bool known_magic(uint32_t magic)
{
	return magic == PGAS_BOOT_MAGIC || magic == PGAS_BOOT_LEAVING ||
	       magic == PGAS_BOOT_FINI || magic == PGAS_BOOT_PEER_DIED ||
	       magic == PGAS_BOOT_GLOBAL_EXIT;
}

int pgas_boot_recv_batch(int sock, struct pgas_boot_msg *m, unsigned max, int *fds)
{
	union {
		char buf[CMSG_SPACE(PGAS_BOOT_BATCH * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { .iov_base = m, .iov_len = max * sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	int got[PGAS_BOOT_BATCH];
	unsigned ngot = 0, count, want = 0, next = 0;
	struct cmsghdr *cm;
	ssize_t n;
	bool bad;

	if (!max || max > PGAS_BOOT_BATCH)
		return -EINVAL;
	for (unsigned i = 0; i < max; i++)
		fds[i] = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int) &&
		     ngot < PGAS_BOOT_BATCH; i++)
			memcpy(&got[ngot++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
	}
	if (n == 0) {	/* the end; an empty packet's descriptors are dropped */
		for (unsigned i = 0; i < ngot; i++)
			close(got[i]);
		return 0;
	}
	count = (unsigned)((size_t)n / sizeof(*m));
	bad = (size_t)n % sizeof(*m) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
	for (unsigned i = 0; !bad && i < count; i++) {
		bad = !known_magic(m[i].magic) || m[i].len > PGAS_BOOT_MAX_BLOB;
		want += m[i].has_fd & PGAS_BOOT_HAS_FD;
	}
	/* One message: its descriptor, whatever its flags say (a rank's own
	 * message to pgasrun).  Several: one per HAS_FD, in order. */
	if (!bad && count == 1 && ngot <= 1) {
		fds[0] = ngot ? got[0] : -1;
		return 1;
	}
	if (!bad && count > 1 && ngot == want) {
		for (unsigned i = 0; i < count; i++)
			if (m[i].has_fd & PGAS_BOOT_HAS_FD)
				fds[i] = got[next++];
		return (int)count;
	}
	for (unsigned i = 0; i < ngot; i++)
		close(got[i]);
	/* Descriptors the kernel could not install: out of RLIMIT_NOFILE. */
	return !((size_t)n % sizeof(*m)) && (mh.msg_flags & MSG_CTRUNC) ? -EMFILE : -EPROTO;
}

int pgas_boot_recv(int sock, struct pgas_boot_msg *m, int *fd)
{
	return pgas_boot_recv_batch(sock, m, 1, fd);
}

static int boot_sock = -1;
static unsigned boot_rank, boot_nranks = 1;
static bool boot_pmix;	/* a PMIx launcher's job (pmix.c) */

static int env_uint(const char *name, unsigned long max, unsigned long *out)
{
	const char *s = getenv(name);
	char *end;

	if (!s)
		return 0;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || end == s || *end || *out > max)
		return -1;
	return 1;
}

/*
 * A launcher that started several tasks without PMIx: srun without
 * --mpi=pmix (Slurm's MpiDefault=none), srun --mpi=pmi2, MPICH's mpiexec.
 * Each task would run as a job of one rank and end with 0 (seen: srun
 * -N 2 -n 2 ran two singleton jobs).  Names the variables and the fix.
 * A batch script (SLURM_PROCID, no SLURM_STEP_NUM_TASKS) or a one-task
 * step is one rank: not refused.
 */
static bool foreign_launcher(char *msg, size_t msglen)
{
	unsigned long n, r;

	if (env_uint("SLURM_STEP_NUM_TASKS", ~0ul, &n) == 1 && n > 1) {
		const char *id = getenv("SLURM_PROCID");

		snprintf(msg, msglen, "srun started this process as task %s of %lu without PMIx "
			 "(SLURM_PROCID, SLURM_STEP_NUM_TASKS; no PMIX_RANK): run srun --mpi=pmix "
			 "(or set MpiDefault=pmix in slurm.conf); PMIx support %s",
			 id ? id : "(unset)", n, PGAS__PMIX_BUILT);
		return true;
	}
	if (env_uint("PMI_SIZE", ~0ul, &n) == 1 && n > 1) {
		int have = env_uint("PMI_RANK", ~0ul, &r) == 1;

		snprintf(msg, msglen, "a PMI-1/PMI-2 launcher (srun --mpi=pmi2, MPICH's mpiexec) "
			 "started this process as rank %s of %lu (PMI_RANK, PMI_SIZE; no PMIX_RANK): "
			 "libpgas boots over PMIx (srun --mpi=pmix, Open MPI's mpirun) or pgasrun; "
			 "PMIx support %s", have ? getenv("PMI_RANK") : "(unset)", n, PGAS__PMIX_BUILT);
		return true;
	}
	return false;
}

void pgas_boot_nofile(unsigned long want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
	/* Above fs.nr_open (2^20 by default) the kernel refuses: that much then. */
	if (setrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur > (1ul << 20)) {
		rl.rlim_cur = 1ul << 20;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* What a rank of n needs beyond its program's own descriptors. */
static void join_nofile(unsigned n)
{
	if (n > 1)
		pgas_boot_nofile((unsigned long)n + 1024);
}

int pgas_boot_join(unsigned *rank, unsigned *nranks, char *msg, size_t msglen)
{
	unsigned long r, n, fd;
	int have_r = env_uint(PGAS_ENV_RANK, PGAS_MAX_ENDPOINTS - 1, &r);
	int have_n = env_uint(PGAS_ENV_NRANKS, PGAS_MAX_ENDPOINTS, &n);
	int have_fd = env_uint(PGAS_ENV_BOOT_FD, 1u << 30, &fd);

	if (!have_r && !have_n && !have_fd && pgas__pmix_launched()) {
		int rc = pgas__pmix_join(rank, nranks, msg, msglen);

		if (rc == PGAS_OK) {
			boot_pmix = true;
			boot_rank = *rank;
			boot_nranks = *nranks;
			join_nofile(*nranks);
		}
		return rc;
	}
	if (!have_r && !have_n && !have_fd) {	/* started without pgasrun */
		if (foreign_launcher(msg, msglen))
			return PGAS_ERR_INVAL;
		boot_rank = *rank = 0;
		boot_nranks = *nranks = 1;
		return PGAS_OK;
	}
	if (have_r != 1 || have_n != 1 || have_fd != 1 || n == 0 || r >= n) {
		snprintf(msg, msglen,
			 "bad launcher environment %s=%s %s=%s %s=%s (start the job with pgasrun)",
			 PGAS_ENV_RANK, getenv(PGAS_ENV_RANK) ? getenv(PGAS_ENV_RANK) : "(unset)",
			 PGAS_ENV_NRANKS, getenv(PGAS_ENV_NRANKS) ? getenv(PGAS_ENV_NRANKS) : "(unset)",
			 PGAS_ENV_BOOT_FD, getenv(PGAS_ENV_BOOT_FD) ? getenv(PGAS_ENV_BOOT_FD) : "(unset)");
		return PGAS_ERR_INVAL;
	}
	boot_sock = (int)fd;
	boot_rank = *rank = (unsigned)r;
	boot_nranks = *nranks = (unsigned)n;
	join_nofile(boot_nranks);
	/* The descriptor must not leak into programs this rank executes. */
	if (fcntl(boot_sock, F_SETFD, FD_CLOEXEC) < 0) {
		snprintf(msg, msglen, "bootstrap socket %d: %s", boot_sock, strerror(errno));
		return PGAS_ERR_SYS;
	}
	return PGAS_OK;
}

/* Where a relay's packets land: 16 KiB, off the caller's stack. */
static struct pgas_boot_msg *batch_buf(void)
{
	static struct pgas_boot_msg *buf;

	if (!buf)
		buf = malloc(PGAS_BOOT_BATCH * sizeof(*buf));
	return buf;
}

int pgas_boot_allgather(const void *blob, size_t len, int fd, void *out, int *fds,
			char *msg, size_t msglen)
{
	struct pgas_boot_msg m;
	unsigned got = 0;
	int rc;

	if (len > PGAS_BOOT_MAX_BLOB) {
		snprintf(msg, msglen, "bootstrap blob of %zu bytes (max %d)", len, PGAS_BOOT_MAX_BLOB);
		return PGAS_ERR_SIZE;
	}
	if (fds)
		for (unsigned i = 0; i < boot_nranks; i++)
			fds[i] = -1;
	if (boot_pmix)
		return pgas__pmix_allgather(blob, len, fd, out, fds, msg, msglen);
	if (boot_sock < 0) {		/* one-rank job */
		memcpy(out, blob, len);
		if (fds && fd >= 0 && (fds[0] = dup(fd)) < 0)
			goto sys;
		return PGAS_OK;
	}
	memset(&m, 0, sizeof(m));
	m.magic = PGAS_BOOT_MAGIC;
	m.src = boot_rank;
	m.len = (uint32_t)len;
	m.has_fd = (fd >= 0 ? PGAS_BOOT_HAS_FD : 0) | PGAS_BOOT_TAKES_BATCH;
	memcpy(m.blob, blob, len);
	rc = pgas_boot_send(boot_sock, &m, fd);
	if (rc < 0) {
		errno = -rc;
		goto sys;
	}
	while (got < boot_nranks) {
		struct pgas_boot_msg *in = batch_buf();
		int rfds[PGAS_BOOT_BATCH];
		bool bad = false;

		if (!in) {
			snprintf(msg, msglen, "out of memory for the bootstrap exchange");
			return PGAS_ERR_NOMEM;
		}
		rc = pgas_boot_recv_batch(boot_sock, in, PGAS_BOOT_BATCH, rfds);
		if (rc <= 0) {
			snprintf(msg, msglen, "bootstrap exchange with pgasrun: %s",
				 rc == 0 ? "launcher closed the connection" : strerror(-rc));
			return PGAS_ERR_SYS;
		}
		for (int i = 0; i < rc; i++) {
			const struct pgas_boot_msg *e = &in[i];

			if (!bad && (e->magic != PGAS_BOOT_MAGIC || e->src >= boot_nranks ||
				     e->len != len)) {
				snprintf(msg, msglen,
					 "bootstrap exchange: rank %u sent %u bytes, expected %zu (ranks disagree)",
					 e->src, e->len, len);
				bad = true;
			}
			if (bad || !fds || fds[e->src] >= 0) {
				if (rfds[i] >= 0)
					close(rfds[i]);
			} else {
				fds[e->src] = rfds[i];
			}
			if (!bad)
				memcpy((char *)out + (size_t)e->src * len, e->blob, len);
		}
		if (bad)
			return PGAS_ERR_INVAL;
		got += (unsigned)rc;
	}
	return PGAS_OK;
sys:
	snprintf(msg, msglen, "bootstrap exchange: %s", strerror(errno));
	return PGAS_ERR_SYS;
}

void pgas_boot_leave(void)
{
	if (boot_pmix)
		pgas__pmix_leave();
	if (boot_sock >= 0)
		close(boot_sock);
	boot_sock = -1;
}

static void tell(uint32_t what, int code)
{
	struct pgas_boot_msg m;
	ssize_t n;

	if (boot_pmix)
		pgas__pmix_tell(what, code);
	if (boot_sock < 0)
		return;
	memset(&m, 0, sizeof(m));
	m.magic = what;
	m.src = boot_rank;
	if (what == PGAS_BOOT_GLOBAL_EXIT) {
		m.len = 1;
		m.blob[0] = (unsigned char)code;
	}
	do
		n = write(boot_sock, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
}

bool pgas_boot_fini;

void pgas_boot_tell(uint32_t what)
{
	if (what == PGAS_BOOT_FINI)
		pgas_boot_fini = true;
	tell(what, 0);
}

void pgas_boot_tell_exit(int code)
{
	tell(PGAS_BOOT_GLOBAL_EXIT, code);
}

void pgas_boot_set_poll(void (*poll)(void *), void *arg)
{
	pgas__pmix_set_poll(poll, arg);
}

void pgas_boot_on_peer_died(void (*fn)(unsigned rank, const char *why))
{
	if (boot_pmix)
		pgas__pmix_on_died(fn);
}

void pgas_boot_describe(char *out, size_t len)
{
	char how[200];

	if (boot_pmix)
		pgas__pmix_describe(how, sizeof(how));
	else
		snprintf(how, sizeof(how), "%s", boot_sock >= 0 ? "pgasrun" :
			 pgas__pmix_launched() ? "PMIx launcher, not joined" : "none (one rank)");
	snprintf(out, len, "%s; PMIx support %s", how, PGAS__PMIX_BUILT);
}

/* PGAS_FAKE_HOSTS's pseudo-hosts (env.c), at most one per rank; 1: none. */
static unsigned fake_hosts(void)
{
	unsigned n = pgas__cfg.fake_hosts;

	return n > boot_nranks ? boot_nranks : n ? n : 1;
}

unsigned pgas_boot_host_of(unsigned rank)
{
	if (boot_pmix)
		return pgas__pmix_host_of(rank);
	/* Consecutive ranks, the hosts' sizes differing by one at most. */
	return (unsigned)((uint64_t)rank * fake_hosts() / boot_nranks);
}

unsigned pgas_boot_nhosts(void)
{
	return boot_pmix ? pgas__pmix_nhosts() : fake_hosts();
}

bool pgas_boot_same_host(unsigned rank)
{
	return pgas_boot_host_of(rank) == pgas_boot_host_of(boot_rank);
}

bool pgas_boot_host_jobs(void)
{
	return boot_pmix;
}

/* The lowest rank of this rank's host. */
static unsigned host_leader_rank(void)
{
	unsigned r = 0;

	while (r < boot_rank && !pgas_boot_same_host(r))
		r++;
	return r;
}

bool pgas_boot_host_leader(void)
{
	return boot_pmix ? pgas__pmix_host_leader() : host_leader_rank() == boot_rank;
}

int pgas_boot_host_share(const void *blob, size_t len, int fd, void *out, int *outfd,
			 char *msg, size_t msglen)
{
	unsigned lead = host_leader_rank();
	unsigned char *all;
	int *fds, rc;

	*outfd = -1;
	if (len > PGAS_BOOT_MAX_BLOB) {
		snprintf(msg, msglen, "bootstrap blob of %zu bytes (max %d)", len, PGAS_BOOT_MAX_BLOB);
		return PGAS_ERR_SIZE;
	}
	if (boot_pmix)
		return pgas__pmix_host_share(blob, len, fd, out, outfd, msg, msglen);
	/* pgasrun's relay: an all-gather in which the leaders' entries count. */
	all = calloc(boot_nranks, len ? len : 1);
	fds = malloc(boot_nranks * sizeof(*fds));
	if (!all || !fds) {
		free(all);
		free(fds);
		snprintf(msg, msglen, "out of memory for %u ranks", boot_nranks);
		return PGAS_ERR_NOMEM;
	}
	{
		unsigned char none[PGAS_BOOT_MAX_BLOB] = { 0 };
		bool me = lead == boot_rank;

		rc = pgas_boot_allgather(me ? blob : none, len, me ? fd : -1, all, fds, msg,
					 msglen);
	}
	if (!rc) {
		memcpy(out, all + (size_t)lead * len, len);
		*outfd = fds[lead];
		fds[lead] = -1;
	}
	for (unsigned r = 0; r < boot_nranks; r++)
		if (fds[r] >= 0)
			close(fds[r]);
	free(all);
	free(fds);
	return rc;
}
