// SPDX-License-Identifier: MIT
/*
 * pmix.c - the boot layer over PMIx (bootpmix.h).
 *
 * - rank and size: PMIx_Init's proc and PMIX_JOB_SIZE;
 * - the all-gather: each rank PMIx_Puts its blob under a key of the call's
 *   sequence number ("pgas.boot.N": every rank makes the same calls in the
 *   same order), commits, and waits in PMIx_Fence_nb with PMIX_COLLECT_DATA
 *   (the non-blocking fence: the waiter calls the poll hook that a conduit
 *   may set, pgas__pmix_set_poll, rather than block a fabric that needs
 *   progress), then PMIx_Gets every rank's blob (local after the fence);
 * - descriptors (the shm conduit's memfds) travel between the ranks of one
 *   host only, by SCM_RIGHTS through an abstract Unix socket of the job
 *   ("pgas-pmix.<namespace>.<leader>", one per host and network namespace)
 *   that the host's lowest rank in PMIX_LOCAL_PEERS (its leader) serves:
 *   each other local rank sends it its descriptor, the leader sends each
 *   the others'.  A rank of another host gets none (fds[r] = -1);
 * - pgas_global_exit: PMIx_Abort(code) for the whole namespace: the
 *   launcher ends every rank (mpirun reports the code);
 * - exit reporting: FINI is PMIx_Finalize, so that a rank that ends
 *   without it is one the launcher reports as ended without finalizing.
 *
 * libpmix is opened at run time (dlopen of PGAS_PMIX_LIB): no macro of
 * <pmix.h> that calls into the library is used here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>
#include "bootstrap.h"
#include "bootpmix.h"
#include "pgas.h"

#ifndef PGAS_PMIX_LIB
#define PGAS_PMIX_LIB "libpmix.so.2"
#endif

static struct {
	__typeof__(PMIx_Init) *init;
	__typeof__(PMIx_Finalize) *finalize;
	__typeof__(PMIx_Get) *get;
	__typeof__(PMIx_Put) *put;
	__typeof__(PMIx_Commit) *commit;
	__typeof__(PMIx_Fence_nb) *fence_nb;
	__typeof__(PMIx_Abort) *abort;
	__typeof__(PMIx_Error_string) *error_string;
	__typeof__(PMIx_Get_version) *version;
	__typeof__(PMIx_Value_destruct) *value_destruct;
	__typeof__(PMIx_Register_event_handler) *register_event;
} px;

static struct {
	bool up, left, finalized;
	pmix_proc_t me;
	unsigned rank, nranks;
	unsigned *local, nlocal;	/* this host's ranks, ascending; local[0] leads */
	unsigned *host, nhosts;		/* each rank's host, numbered as first seen */
	int lsock;			/* the leader's listening socket, until all came */
	int *conn;			/* leader: one per local rank; else conn[0] */
	bool connected;
	unsigned seq;			/* all-gathers so far */
	char sockname[100];
	void (*poll)(void *);
	void *poll_arg;
} pm = { .lsock = -1 };

static const char *pxerr(pmix_status_t st)
{
	return px.error_string ? px.error_string(st) : "PMIx error";
}

static int fail(char *msg, size_t msglen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *msg, size_t msglen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return rc;
}

static int load(char *msg, size_t msglen)
{
	void *h = dlopen(PGAS_PMIX_LIB, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		h = dlopen("libpmix.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return fail(msg, msglen, PGAS_ERR_SYS, "started by a PMIx launcher, but libpmix "
			    "cannot be opened: %s", dlerror());
#define SYM(field, name)							\
	do {									\
		*(void **)&px.field = dlsym(h, name);				\
		if (!px.field)							\
			return fail(msg, msglen, PGAS_ERR_SYS,			\
				    "libpmix (%s) has no %s", PGAS_PMIX_LIB, name);	\
	} while (0)
	SYM(init, "PMIx_Init");
	SYM(finalize, "PMIx_Finalize");
	SYM(get, "PMIx_Get");
	SYM(put, "PMIx_Put");
	SYM(commit, "PMIx_Commit");
	SYM(fence_nb, "PMIx_Fence_nb");
	SYM(abort, "PMIx_Abort");
	SYM(error_string, "PMIx_Error_string");
	SYM(version, "PMIx_Get_version");
	SYM(value_destruct, "PMIx_Value_destruct");
	/* Optional: without it, no peer's death is reported (pgas__pmix_on_died). */
	*(void **)&px.register_event = dlsym(h, "PMIx_Register_event_handler");
#undef SYM
	return PGAS_OK;
}

static void value_free(pmix_value_t *v)
{
	if (v) {
		px.value_destruct(v);
		free(v);
	}
}

/* A job-level value of this namespace (rank wildcard), or this rank's. */
static pmix_status_t get_value(bool job, const char *key, pmix_value_t **v)
{
	pmix_proc_t p = pm.me;

	if (job)
		p.rank = PMIX_RANK_WILDCARD;
	*v = NULL;
	return px.get(&p, key, NULL, 0, v);
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* PMIX_LOCAL_PEERS: "0,2,5" */
static int local_peers(char *msg, size_t msglen)
{
	pmix_value_t *v;
	pmix_status_t st = get_value(true, PMIX_LOCAL_PEERS, &v);
	const char *s;
	bool found = false;

	if (st != PMIX_SUCCESS || !v || v->type != PMIX_STRING || !v->data.string) {
		value_free(v);
		return fail(msg, msglen, PGAS_ERR_SYS, "PMIx_Get(%s): %s", PMIX_LOCAL_PEERS,
			    st != PMIX_SUCCESS ? pxerr(st) : "not a string");
	}
	pm.local = calloc(pm.nranks, sizeof(*pm.local));
	if (!pm.local) {
		value_free(v);
		return fail(msg, msglen, PGAS_ERR_NOMEM, "out of memory for %u ranks", pm.nranks);
	}
	for (s = v->data.string; *s;) {
		char *end;
		unsigned long r;

		errno = 0;
		r = strtoul(s, &end, 10);
		if (errno || end == s || r >= pm.nranks || pm.nlocal == pm.nranks ||
		    (*end && *end != ',')) {
			int rc = fail(msg, msglen, PGAS_ERR_SYS, "PMIx %s \"%.100s\" is not a list "
				      "of ranks below %u", PMIX_LOCAL_PEERS, v->data.string,
				      pm.nranks);

			value_free(v);
			return rc;
		}
		pm.local[pm.nlocal++] = (unsigned)r;
		found |= r == pm.rank;
		s = *end ? end + 1 : end;
	}
	if (!found) {
		int rc = fail(msg, msglen, PGAS_ERR_SYS, "PMIx %s \"%.100s\" does not name this "
			      "rank (%u)", PMIX_LOCAL_PEERS, v->data.string, pm.rank);

		value_free(v);
		return rc;
	}
	value_free(v);
	qsort(pm.local, pm.nlocal, sizeof(*pm.local), cmp_unsigned);
	return PGAS_OK;
}

/*
 * Every rank's host: PMIX_HOSTNAME of each rank (Open MPI 4.1's mpirun has
 * no PMIX_NODEID for another host's ranks), numbered in the order of the
 * ranks; this host's ranks are PMIX_LOCAL_PEERS's, whatever names say.  A
 * rank whose host is not known gets a host of its own: never mapped.
 */
static int hosts(char *msg, size_t msglen)
{
	char **names = calloc(pm.nranks, sizeof(*names));
	unsigned mine = 0;
	int rc = PGAS_OK;

	pm.host = calloc(pm.nranks, sizeof(*pm.host));
	if (!names || !pm.host) {
		free(names);
		return fail(msg, msglen, PGAS_ERR_NOMEM, "out of memory for %u ranks", pm.nranks);
	}
	for (unsigned r = 0; r < pm.nranks; r++) {
		pmix_proc_t p = pm.me;
		pmix_value_t *v = NULL;
		pmix_status_t st;
		const char *name = NULL;
		unsigned h;

		if (r != pm.local[0] && bsearch(&r, pm.local, pm.nlocal, sizeof(r), cmp_unsigned)) {
			pm.host[r] = pm.host[pm.local[0]];
			continue;
		}
		p.rank = r;
		st = px.get(&p, PMIX_HOSTNAME, NULL, 0, &v);
		if (st == PMIX_SUCCESS && v && v->type == PMIX_STRING && v->data.string)
			name = v->data.string;
		for (h = 0; h < pm.nhosts; h++)
			if (name && names[h] && !strcmp(names[h], name))
				break;
		if (h == pm.nhosts) {
			names[h] = name ? strdup(name) : NULL;
			pm.nhosts++;
		}
		pm.host[r] = h;
		value_free(v);
	}
	/* The local ranks all take their leader's number (set above when the
	 * leader came first; a later leader: set them now). */
	mine = pm.host[pm.local[0]];
	for (unsigned i = 0; i < pm.nlocal; i++)
		pm.host[pm.local[i]] = mine;
	/* Another host of the same name (containers): not this one. */
	for (unsigned r = 0, other = UINT32_MAX; r < pm.nranks; r++)
		if (pm.host[r] == mine &&
		    !bsearch(&r, pm.local, pm.nlocal, sizeof(r), cmp_unsigned)) {
			if (other == UINT32_MAX)
				other = pm.nhosts++;
			pm.host[r] = other;
		}
	for (unsigned h = 0; h < pm.nhosts; h++)
		free(names[h]);
	free(names);
	return rc;
}

unsigned pgas__pmix_host_of(unsigned r)
{
	return pm.host && r < pm.nranks ? pm.host[r] : 0;
}

unsigned pgas__pmix_nhosts(void)
{
	return pm.host ? pm.nhosts : 1;
}

static void sock_addr(struct sockaddr_un *a, socklen_t *alen)
{
	size_t n = strlen(pm.sockname);

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, pm.sockname, n);	/* abstract: sun_path[0] = 0 */
	*alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int start(char *msg, size_t msglen)
{
	pmix_status_t st;
	pmix_value_t *v;
	int rc = load(msg, msglen);

	if (rc)
		return rc;
	st = px.init(&pm.me, NULL, 0);
	if (st != PMIX_SUCCESS)
		return fail(msg, msglen, PGAS_ERR_SYS, "PMIx_Init: %s (PMIX_NAMESPACE=%s)",
			    pxerr(st), getenv("PMIX_NAMESPACE"));
	pm.up = true;
	pm.rank = pm.me.rank;
	st = get_value(true, PMIX_JOB_SIZE, &v);
	if (st != PMIX_SUCCESS || !v || v->type != PMIX_UINT32) {
		value_free(v);
		return fail(msg, msglen, PGAS_ERR_SYS, "PMIx_Get(%s): %s", PMIX_JOB_SIZE,
			    st != PMIX_SUCCESS ? pxerr(st) : "not a uint32");
	}
	pm.nranks = v->data.uint32;
	value_free(v);
	if (pm.nranks == 0 || pm.nranks > PGAS_MAX_ENDPOINTS || pm.rank >= pm.nranks)
		return fail(msg, msglen, PGAS_ERR_INVAL, "PMIx job of %u ranks, this one %u "
			    "(a job has 1 to %u ranks)", pm.nranks, pm.rank, PGAS_MAX_ENDPOINTS);
	rc = local_peers(msg, msglen);
	if (!rc)
		rc = hosts(msg, msglen);
	if (rc)
		return rc;
	pm.conn = calloc(pm.nlocal, sizeof(*pm.conn));
	if (!pm.conn)
		return fail(msg, msglen, PGAS_ERR_NOMEM, "out of memory for %u ranks", pm.nlocal);
	for (unsigned i = 0; i < pm.nlocal; i++)
		pm.conn[i] = -1;
	snprintf(pm.sockname, sizeof(pm.sockname), "pgas-pmix.%.60s.%u", pm.me.nspace,
		 pm.local[0]);
	/* The leader listens before its first fence: a local rank connects
	 * only after a fence, so it finds the socket there. */
	if (pm.nlocal > 1 && pm.rank == pm.local[0]) {
		struct sockaddr_un a;
		socklen_t alen;

		sock_addr(&a, &alen);
		pm.lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (pm.lsock < 0 || bind(pm.lsock, (struct sockaddr *)&a, alen) < 0 ||
		    listen(pm.lsock, (int)pm.nlocal) < 0)
			return fail(msg, msglen, PGAS_ERR_SYS, "the host's boot socket @%s: %s",
				    pm.sockname, strerror(errno));
	}
	return PGAS_OK;
}

int pgas__pmix_join(unsigned *rank, unsigned *nranks, char *msg, size_t msglen)
{
	if (pm.left)
		return fail(msg, msglen, PGAS_ERR_STATE, "this rank left the PMIx boot "
			    "(finalized, or a pgas_init that failed)");
	if (!pm.up) {
		int rc = start(msg, msglen);

		if (rc) {
			pgas__pmix_leave();
			return rc;
		}
	}
	*rank = pm.rank;
	*nranks = pm.nranks;
	return PGAS_OK;
}

/* ---- a peer's death, as the launcher reports it (docs/ofi.md, "Failure") ---- */

static void (*died_fn)(unsigned rank, const char *why);

/* The affected process of an event: PMIX_EVENT_AFFECTED_PROC(S), else its source. */
static void died_report(pmix_status_t st, const pmix_proc_t *p)
{
	char why[96];

	if (!p || strncmp(p->nspace, pm.me.nspace, PMIX_MAX_NSLEN) || p->rank >= pm.nranks ||
	    p->rank == pm.rank)
		return;
	snprintf(why, sizeof(why), "the PMIx launcher reports its process ended (%s)",
		 pxerr(st));
	died_fn(p->rank, why);
}

static void died_event(size_t id, pmix_status_t st, const pmix_proc_t *source,
		       pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
		       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	bool named = false;

	(void)id;
	(void)results;
	(void)nresults;
	for (size_t i = 0; died_fn && i < ninfo; i++) {
		if (!strncmp(info[i].key, PMIX_EVENT_AFFECTED_PROC, PMIX_MAX_KEYLEN) &&
		    info[i].value.type == PMIX_PROC) {
			died_report(st, info[i].value.data.proc);
			named = true;
		} else if (!strncmp(info[i].key, PMIX_EVENT_AFFECTED_PROCS, PMIX_MAX_KEYLEN) &&
			   info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray &&
			   info[i].value.data.darray->type == PMIX_PROC) {
			const pmix_proc_t *procs = info[i].value.data.darray->array;

			for (size_t k = 0; k < info[i].value.data.darray->size; k++)
				died_report(st, &procs[k]);
			named = true;
		}
	}
	if (died_fn && !named)
		died_report(st, source);
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void died_registered(pmix_status_t st, size_t id, void *arg)
{
	(void)st;
	(void)id;
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

void pgas__pmix_on_died(void (*fn)(unsigned rank, const char *why))
{
	/* What a PMIx launcher may send for a process that ended.  Open MPI
	 * 4.1.4's mpirun (--enable-recovery keeps the others running) sends
	 * none that arrives: its own notification fails (PMIX ERROR:
	 * BAD-PARAM in pmix_event_notification.c), so there the ofi
	 * conduit's liveness names the rank (docs/ofi.md, "Failure"). */
	pmix_status_t codes[] = { PMIX_ERR_PROC_ABORTED, PMIX_ERR_PROC_ABORTING,
				  PMIX_PROC_TERMINATED, PMIX_ERR_PROC_TERM_WO_SYNC,
				  PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_PROC_ABORTED_BY_SIG };
	static int done;

	if (!pm.up || pm.finalized || !px.register_event || died_fn)
		return;
	died_fn = fn;
	px.register_event(codes, sizeof(codes) / sizeof(codes[0]), NULL, 0, died_event,
			  died_registered, &done);
}

void pgas__pmix_set_poll(void (*poll)(void *), void *arg)
{
	pm.poll = poll;
	pm.poll_arg = arg;
}

/* One step of a wait: the conduit's progress if it asked, else a pause. */
static void wait_step(unsigned *spins)
{
	if (pm.poll)
		pm.poll(pm.poll_arg);
	if (++*spins < 1000) {
		sched_yield();
	} else {
		struct timespec ts = { 0, 50000 };

		nanosleep(&ts, NULL);
	}
}

struct fence_wait {
	atomic_int done;
	pmix_status_t status;
};

/* In PMIx's progress thread. */
static void fence_done(pmix_status_t status, void *arg)
{
	struct fence_wait *f = arg;

	f->status = status;
	atomic_store_explicit(&f->done, 1, memory_order_release);
}

static int fence(char *msg, size_t msglen)
{
	struct fence_wait f = { 0, PMIX_SUCCESS };
	pmix_info_t info;
	pmix_status_t st;
	unsigned spins = 0;

	memset(&info, 0, sizeof(info));
	snprintf(info.key, sizeof(info.key), "%s", PMIX_COLLECT_DATA);
	info.value.type = PMIX_BOOL;
	info.value.data.flag = true;
	st = px.fence_nb(NULL, 0, &info, 1, fence_done, &f);
	if (st == PMIX_OPERATION_SUCCEEDED)
		return PGAS_OK;
	if (st != PMIX_SUCCESS)
		return fail(msg, msglen, PGAS_ERR_SYS, "PMIx_Fence_nb: %s", pxerr(st));
	while (!atomic_load_explicit(&f.done, memory_order_acquire))
		wait_step(&spins);
	if (f.status != PMIX_SUCCESS)
		return fail(msg, msglen, PGAS_ERR_SYS, "PMIx fence: %s", pxerr(f.status));
	return PGAS_OK;
}

/* What each rank puts: the blob behind this. */
struct pmix_card {
	uint32_t magic;
	uint32_t len;
	uint32_t fdx;		/* takes part in the descriptor exchange */
	uint32_t has_fd;
};

/* Waits for sock to be readable, calling the poll hook. */
static void wait_readable(int sock)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int n;

	/* An error other than EINTR: the recv that follows reports it. */
	while ((n = poll(&p, 1, pm.poll ? 0 : 100)) == 0 || (n < 0 && errno == EINTR))
		if (pm.poll)
			pm.poll(pm.poll_arg);
}

static int recv_one(int sock, struct pgas_boot_msg *m, int *fd, const char *from, char *msg,
		    size_t msglen)
{
	int rc;

	wait_readable(sock);
	rc = pgas_boot_recv(sock, m, fd);
	if (rc <= 0)
		return fail(msg, msglen, PGAS_ERR_SYS, "the host's boot socket (%s): %s", from,
			    rc == 0 ? "closed (a rank of this host ended?)" : strerror(-rc));
	return PGAS_OK;
}

static int local_index(unsigned rank)
{
	for (unsigned i = 0; i < pm.nlocal; i++)
		if (pm.local[i] == rank)
			return (int)i;
	return -1;
}

/* The leader accepts every other local rank once; each says its rank. */
static int leader_accept(char *msg, size_t msglen)
{
	for (unsigned got = 1; got < pm.nlocal; got++) {
		struct pgas_boot_msg m;
		struct ucred cred;
		socklen_t clen = sizeof(cred);
		int s, rfd, i, rc;

		wait_readable(pm.lsock);
		s = accept4(pm.lsock, NULL, NULL, SOCK_CLOEXEC);
		if (s < 0)
			return fail(msg, msglen, PGAS_ERR_SYS, "accept on the host's boot socket: %s",
				    strerror(errno));
		if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
		    cred.uid != getuid()) {
			close(s);
			got--;	/* another user's process: not one of ours */
			continue;
		}
		rc = recv_one(s, &m, &rfd, "hello", msg, msglen);
		if (rfd >= 0)
			close(rfd);
		i = rc ? -1 : local_index(m.src);
		if (rc || m.magic != PGAS_BOOT_MAGIC || i <= 0 || pm.conn[i] >= 0) {
			close(s);
			return rc ? rc : fail(msg, msglen, PGAS_ERR_SYS,
					      "the host's boot socket: a hello from rank %u, "
					      "not a rank of this host that is still to come", m.src);
		}
		pm.conn[i] = s;
	}
	close(pm.lsock);	/* frees the name */
	pm.lsock = -1;
	return PGAS_OK;
}

static int member_connect(char *msg, size_t msglen)
{
	struct pgas_boot_msg m;
	struct sockaddr_un a;
	socklen_t alen;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), rc;

	sock_addr(&a, &alen);
	if (s < 0 || connect(s, (struct sockaddr *)&a, alen) < 0) {
		rc = fail(msg, msglen, PGAS_ERR_SYS, "connecting to the host's boot socket @%s "
			  "(rank %u's): %s", pm.sockname, pm.local[0], strerror(errno));
		if (s >= 0)
			close(s);
		return rc;
	}
	memset(&m, 0, sizeof(m));
	m.magic = PGAS_BOOT_MAGIC;
	m.src = pm.rank;
	rc = pgas_boot_send(s, &m, -1);
	if (rc < 0) {
		close(s);
		return fail(msg, msglen, PGAS_ERR_SYS, "the host's boot socket: %s", strerror(-rc));
	}
	pm.conn[0] = s;
	return PGAS_OK;
}

static int send_fd(int sock, unsigned src, int fd, char *msg, size_t msglen)
{
	struct pgas_boot_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.magic = PGAS_BOOT_MAGIC;
	m.src = src;
	m.has_fd = 1;
	rc = pgas_boot_send(sock, &m, fd);
	return rc < 0 ? fail(msg, msglen, PGAS_ERR_SYS, "the host's boot socket: %s",
			     strerror(-rc)) : PGAS_OK;
}

/*
 * The descriptors of this host's ranks: has[i] says which local rank sent
 * one (the same for every local rank: from the fence), got[r] gets them.
 */
static int exchange_fds(int fd, const bool *has, int *got, char *msg, size_t msglen)
{
	int rc = PGAS_OK;

	if (!pm.connected) {
		rc = pm.rank == pm.local[0] ? leader_accept(msg, msglen) : member_connect(msg, msglen);
		if (rc)
			return rc;
		pm.connected = true;
	}
	if (pm.rank == pm.local[0]) {
		/* Collect each local rank's, then send each the others'. */
		for (unsigned i = 1; !rc && i < pm.nlocal; i++) {
			struct pgas_boot_msg m;
			int rfd;

			if (!has[i])
				continue;
			rc = recv_one(pm.conn[i], &m, &rfd, "a local rank's descriptor", msg, msglen);
			if (!rc && (m.src != pm.local[i] || rfd < 0))
				rc = fail(msg, msglen, PGAS_ERR_SYS, "the host's boot socket: rank "
					  "%u sent %s for rank %u", pm.local[i],
					  rfd < 0 ? "no descriptor" : "a descriptor", m.src);
			if (rc && rfd >= 0)
				close(rfd);
			if (!rc)
				got[pm.local[i]] = rfd;
		}
		for (unsigned i = 1; !rc && i < pm.nlocal; i++)
			for (unsigned j = 0; !rc && j < pm.nlocal; j++)
				if (j != i && has[j])
					rc = send_fd(pm.conn[i], pm.local[j],
						     j == 0 ? fd : got[pm.local[j]], msg, msglen);
		return rc;
	}
	if (has[local_index(pm.rank)])
		rc = send_fd(pm.conn[0], pm.rank, fd, msg, msglen);
	for (unsigned j = 0; !rc && j < pm.nlocal; j++) {
		struct pgas_boot_msg m;
		int rfd, i;

		if (pm.local[j] == pm.rank || !has[j])
			continue;
		rc = recv_one(pm.conn[0], &m, &rfd, "the host leader's descriptors", msg, msglen);
		i = rc ? -1 : local_index(m.src);
		if (!rc && (i < 0 || !has[i] || got[m.src] >= 0 || rfd < 0 || m.src == pm.rank))
			rc = fail(msg, msglen, PGAS_ERR_SYS, "the host's boot socket: a descriptor "
				  "for rank %u out of turn", m.src);
		if (rc && rfd >= 0)
			close(rfd);
		if (!rc)
			got[m.src] = rfd;
	}
	return rc;
}

int pgas__pmix_allgather(const void *blob, size_t len, int fd, void *out, int *fds,
			 char *msg, size_t msglen)
{
	unsigned char buf[sizeof(struct pmix_card) + PGAS_BOOT_MAX_BLOB];
	struct pmix_card card = { PGAS_BOOT_MAGIC, (uint32_t)len, fds || fd >= 0, fd >= 0 };
	char key[32];
	pmix_value_t val, *v;
	pmix_status_t st;
	bool *has = NULL, any = false;
	int *got = NULL, rc;

	if (!pm.up || pm.left)
		return fail(msg, msglen, PGAS_ERR_STATE, "the PMIx boot is not joined");
	memcpy(buf, &card, sizeof(card));
	memcpy(buf + sizeof(card), blob, len);
	snprintf(key, sizeof(key), "pgas.boot.%u", pm.seq++);
	memset(&val, 0, sizeof(val));
	val.type = PMIX_BYTE_OBJECT;
	val.data.bo.bytes = (char *)buf;
	val.data.bo.size = sizeof(card) + len;
	st = px.put(PMIX_GLOBAL, key, &val);
	if (st == PMIX_SUCCESS)
		st = px.commit();
	if (st != PMIX_SUCCESS)
		return fail(msg, msglen, PGAS_ERR_SYS, "PMIx_Put/Commit(%s): %s", key, pxerr(st));
	rc = fence(msg, msglen);
	if (rc)
		return rc;
	has = calloc(pm.nlocal, sizeof(*has));
	got = malloc(pm.nranks * sizeof(*got));
	if (!has || !got) {
		rc = fail(msg, msglen, PGAS_ERR_NOMEM, "out of memory for %u ranks", pm.nranks);
		goto out;
	}
	for (unsigned r = 0; r < pm.nranks; r++)
		got[r] = -1;
	for (unsigned r = 0; r < pm.nranks; r++) {
		pmix_proc_t p = pm.me;
		struct pmix_card c;
		int i = local_index(r);

		p.rank = r;
		v = NULL;
		st = px.get(&p, key, NULL, 0, &v);
		if (st != PMIX_SUCCESS || !v || v->type != PMIX_BYTE_OBJECT ||
		    v->data.bo.size < sizeof(c)) {
			value_free(v);
			rc = fail(msg, msglen, PGAS_ERR_SYS, "PMIx_Get(rank %u, %s): %s", r, key,
				  st != PMIX_SUCCESS ? pxerr(st) : "not a boot card");
			goto out;
		}
		memcpy(&c, v->data.bo.bytes, sizeof(c));
		if (c.magic != PGAS_BOOT_MAGIC || c.len != len ||
		    v->data.bo.size != sizeof(c) + len || (i >= 0 && c.fdx != card.fdx)) {
			value_free(v);
			rc = fail(msg, msglen, PGAS_ERR_INVAL, "bootstrap exchange %s: rank %u sent "
				  "%u bytes%s, expected %zu (ranks disagree)", key, r, c.len,
				  c.fdx != card.fdx ? " and a descriptor exchange" : "", len);
			goto out;
		}
		memcpy((char *)out + (size_t)r * len, v->data.bo.bytes + sizeof(c), len);
		value_free(v);
		if (i >= 0) {
			has[i] = c.has_fd != 0;
			any |= c.has_fd != 0;
		}
	}
	if (card.fdx && any && pm.nlocal > 1) {
		rc = exchange_fds(fd, has, got, msg, msglen);
		if (rc)
			goto out;
	}
	if (fds) {
		int self = -1;

		if (fd >= 0 && (self = dup(fd)) < 0) {
			rc = fail(msg, msglen, PGAS_ERR_SYS, "bootstrap exchange: %s", strerror(errno));
			goto out;
		}
		for (unsigned r = 0; r < pm.nranks; r++)
			fds[r] = r == pm.rank ? self : got[r];
		free(got);
		got = NULL;	/* the caller's now */
	}
	rc = PGAS_OK;
out:
	for (unsigned r = 0; got && r < pm.nranks; r++)	/* fds NULL, or a failure */
		if (got[r] >= 0)
			close(got[r]);
	free(got);
	free(has);
	return rc;
}

bool pgas__pmix_host_leader(void)
{
	return pm.local && pm.rank == pm.local[0];
}

/*
 * The leader's blob and descriptor to every other rank of its host, over
 * the host's boot socket (connected on the first use).  Every rank of the
 * job fences first, whatever its host (a collective must make the same
 * PMIx calls on every rank): after it, every leader listens.
 */
int pgas__pmix_host_share(const void *blob, size_t len, int fd, void *out, int *outfd,
			  char *msg, size_t msglen)
{
	struct pgas_boot_msg m;
	int rc = PGAS_OK;

	*outfd = -1;
	if (!pm.up || pm.left)
		return fail(msg, msglen, PGAS_ERR_STATE, "the PMIx boot is not joined");
	{
		unsigned char none = 0, *all = malloc(pm.nranks);

		rc = all ? pgas__pmix_allgather(&none, 1, -1, all, NULL, msg, msglen)
			 : fail(msg, msglen, PGAS_ERR_NOMEM, "out of memory for %u ranks", pm.nranks);
		free(all);
		if (rc)
			return rc;
	}
	if (pm.nlocal > 1 && !pm.connected) {
		rc = pm.rank == pm.local[0] ? leader_accept(msg, msglen) : member_connect(msg, msglen);
		if (rc)
			return rc;
		pm.connected = true;
	}
	if (pm.rank == pm.local[0]) {
		memset(&m, 0, sizeof(m));
		m.magic = PGAS_BOOT_MAGIC;
		m.src = pm.rank;
		m.len = (uint32_t)len;
		m.has_fd = fd >= 0;
		memcpy(m.blob, blob, len);
		for (unsigned i = 1; !rc && i < pm.nlocal; i++) {
			int n = pgas_boot_send(pm.conn[i], &m, fd);

			if (n < 0)
				rc = fail(msg, msglen, PGAS_ERR_SYS, "the host's boot socket (to rank "
					  "%u): %s", pm.local[i], strerror(-n));
		}
		if (rc)
			return rc;
		memcpy(out, blob, len);
		if (fd >= 0 && (*outfd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
			return fail(msg, msglen, PGAS_ERR_SYS, "dup of the shared descriptor: %s",
				    strerror(errno));
		return PGAS_OK;
	}
	rc = recv_one(pm.conn[0], &m, outfd, "the host leader's share", msg, msglen);
	if (!rc && (m.magic != PGAS_BOOT_MAGIC || m.src != pm.local[0] || m.len != len ||
		    (m.has_fd != 0) != (*outfd >= 0)))
		rc = fail(msg, msglen, PGAS_ERR_SYS, "the host's boot socket: a share of %u bytes "
			  "from rank %u, expected %zu from rank %u", m.len, m.src, len, pm.local[0]);
	if (rc) {
		if (*outfd >= 0)
			close(*outfd);
		*outfd = -1;
		return rc;
	}
	memcpy(out, m.blob, len);
	return PGAS_OK;
}

void pgas__pmix_leave(void)
{
	if (pm.lsock >= 0)
		close(pm.lsock);
	pm.lsock = -1;
	for (unsigned i = 0; pm.conn && i < pm.nlocal; i++)
		if (pm.conn[i] >= 0)
			close(pm.conn[i]);
	free(pm.conn);
	pm.conn = NULL;
	free(pm.host);
	pm.host = NULL;
	if (pm.up && !pm.finalized)
		px.finalize(NULL, 0);
	pm.finalized = true;
	pm.left = true;
}

void pgas__pmix_tell(uint32_t what, int code)
{
	if (!pm.up || pm.finalized)
		return;
	if (what == PGAS_BOOT_FINI) {
		/* The launcher counts a rank that ends without it as failed. */
		px.finalize(NULL, 0);
		pm.finalized = true;
	} else if (what == PGAS_BOOT_GLOBAL_EXIT) {
		char why[80];

		snprintf(why, sizeof(why), "pgas_global_exit(%d) on rank %u", code, pm.rank);
		/* NULL procs: every rank of this namespace; the launcher ends them. */
		px.abort(code, why, NULL, 0);
	}
	/* LEAVING, PEER_DIED: pgasrun's words; the launcher reports exits itself. */
}

void pgas__pmix_describe(char *out, size_t len)
{
	const char *v = pm.up ? px.version() : "", *paren = strstr(v, " (");

	if (!pm.up || !pm.local)
		snprintf(out, len, "pmix (not joined)");
	else
		snprintf(out, len, "pmix (%.*s, namespace %s, rank %u of %u, %u on this host, "
			 "leader %u)", paren ? (int)(paren - v) : (int)strlen(v), v, pm.me.nspace,
			 pm.rank, pm.nranks, pm.nlocal, pm.local[0]);
}
