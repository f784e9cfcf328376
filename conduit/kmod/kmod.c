// SPDX-License-Identifier: MIT
/*
 * kmod.c - the conduit over pgas.ko (/dev/pgasN).
 *
 * The launcher creates the job (job_create) and hands its id and key to
 * the ranks in the environment (under a PMIx launcher, which knows nothing
 * of pgas.ko, each host's leader rank does, and its host's ranks get the
 * id, the key and the job's file through the boot's host socket:
 * pgas_conduit_host_job; every one of them holds the file, so the job
 * lives until the last of them ends); each rank joins with its rank as vpid,
 * creates its ring region, registers its segment, and maps every peer's
 * region and segment by the cookies exchanged through the bootstrap relay.
 * After that the fast path runs on the mappings exactly as over shm.
 * Sleeping (PGAS_WAIT_MODE=block) uses the endpoint's fd: poll() to sleep,
 * PGAS_IOC_WAKE to wake a peer (libpgas/core/wait.c).
 *
 * Extra endpoints (pgas_ep_create): the job has room for nranks *
 * PGAS_EP_MAX endpoints (max_eps).  Each of this rank's extras is a file of
 * its own, joined with PGAS_JOIN_EXTRA (the kernel hands out the eid) with
 * a ring region of the primary's geometry; peers find a region with
 * PGAS_IOC_EP_INFO and map it by its cookie through their primary's file
 * (any file of the job's endpoints in the mapping process will do).  A
 * thread that sleeps on an extra poll()s the extra's file; PGAS_IOC_WAKE
 * names an extra by its eid (its control page's 'rank') on any endpoint's
 * file of the job, the primary's included.  Closing an extra's file
 * departs it: pgas.ko revokes its region and writes {eid,
 * PGAS_GONE_CLOSED} on every rank's kernel page, which ep_closed reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../conduit.h"
#include "boot.h"

struct kmod_priv {
	int fd;			/* this rank's endpoint */
	void *kern;		/* its kernel page, mapped read-only, or NULL */
	int job_fd;		/* the job's file: a one-rank job's own, a PMIx host's shared, or -1 */
	struct pgas_conduit_maps maps;	/* my segment is my own memory */
	uint32_t job_id;	/* what extras join with */
	uint64_t key;
	unsigned extras;	/* eids this rank took (JOB_JOIN, PGAS_JOIN_EXTRA) */
	/* ep_closed: extras known closed, a bit per eid, from the kernel page's events */
	_Atomic uint64_t *closed;	/* [max_eids / 64 rounded up] */
	_Atomic uint64_t ev_head;	/* its events read so far */
};

static int sys_fail(char *msg, size_t msglen, const char *what)
{
	snprintf(msg, msglen, "%s: %s", what, strerror(errno));
	return errno == ENOMEM ? PGAS_ERR_NOMEM : PGAS_ERR_SYS;
}

extern const struct pgas_conduit_ops pgas_kmod_ops;

static int open_device(char *msg, size_t msglen)
{
	int fd = open(pgas__cfg.device, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		sys_fail(msg, msglen, pgas__cfg.device);
	return fd;
}

/* auto: a job made by pgasrun for pgas.ko, or no launcher and a device. */
static bool kmod_probe(void)
{
	if (getenv(PGAS_ENV_JOB_ID))
		return true;
	return !getenv(PGAS_ENV_BOOT_FD) && access(pgas__cfg.device, R_OK | W_OK) == 0;
}

/* Endpoints of a job for nranks: PGAS_EP_MAX per rank, within pgas.ko's limit. */
static unsigned job_max_eps(unsigned nranks)
{
	uint64_t n = (uint64_t)nranks * (pgas__cfg.ep_max ? pgas__cfg.ep_max : 1);

	return n > PGAS_MAX_ENDPOINTS ? PGAS_MAX_ENDPOINTS : (unsigned)n;
}

/*
 * Creates a job (room for nranks * PGAS_EP_MAX endpoints): its id, its key
 * (for the ranks) and the file that holds it (*fd).
 */
static int kmod_job(unsigned nranks, uint32_t *job_id, uint64_t *key, int *fd,
		    char *msg, size_t msglen)
{
	struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = nranks };
	int rc;

	c.max_eps = job_max_eps(nranks);
	*fd = open_device(msg, msglen);
	if (*fd < 0)
		return PGAS_ERR_SYS;
	rc = ioctl(*fd, PGAS_IOC_JOB_CREATE, &c);
	if (rc < 0 && errno == E2BIG) {	/* a pgas.ko without extras: a job without them */
		c.size = PGAS_IOC_JOB_CREATE_SIZE_VER0;
		c.max_eps = 0;
		rc = ioctl(*fd, PGAS_IOC_JOB_CREATE, &c);
	}
	if (rc < 0) {
		rc = sys_fail(msg, msglen, "PGAS_IOC_JOB_CREATE");
		close(*fd);
		*fd = -1;
		return rc;
	}
	*job_id = c.job_id;
	*key = c.key;
	return PGAS_OK;
}

/* The launcher's side (pgasrun): the job, and its id and key for the ranks. */
static int kmod_job_create(unsigned nranks, struct pgas_conduit_job *job, char *msg,
			   size_t msglen)
{
	uint32_t id;
	uint64_t key;
	int rc = kmod_job(nranks, &id, &key, &job->fd, msg, msglen);

	if (rc)
		return rc;
	snprintf(job->env[0], sizeof(job->env[0]), "%s=%u", PGAS_ENV_JOB_ID, id);
	snprintf(job->env[1], sizeof(job->env[1]), "%s=%llx", PGAS_ENV_JOB_KEY,
		 (unsigned long long)key);
	snprintf(job->what, sizeof(job->what), "pgas.ko job %u", id);
	return PGAS_OK;
}

/* The job's id and key: from job's variables, or (NULL) the environment. */
static int env_job(const struct pgas_conduit_job *job, __u32 *id, __u64 *key)
{
	const char *s = job ? pgas_conduit_job_env(job, PGAS_ENV_JOB_ID) : getenv(PGAS_ENV_JOB_ID);
	const char *k = job ? pgas_conduit_job_env(job, PGAS_ENV_JOB_KEY) : getenv(PGAS_ENV_JOB_KEY);
	char *end;

	if (!s || !k)
		return 0;
	errno = 0;
	*id = (uint32_t)strtoul(s, &end, 10);
	if (errno || *end)
		return -1;
	*key = strtoull(k, &end, 16);
	return errno || *end ? -1 : 1;
}

/*
 * The layout RINGS_CREATE returned: in order, page aligned and inside the
 * region, each part at least as large as the geometry needs.
 */
static bool layout_sane(const struct pgas_region_layout *l, uint64_t size,
			const struct pgas_geometry *geo, unsigned nranks)
{
	uint64_t ps = pgas_page_size(), end = ps;	/* the control page */
	unsigned ch;

	if (l->size != size || l->ctrl_off || size % ps)
		return false;
	for (ch = 0; ch < PGAS_NCHAN; ch++) {
		if (l->mbox_off[ch] % ps || l->mbox_off[ch] < end)
			return false;
		end = l->mbox_off[ch] + (uint64_t)geo->mbox_slots * PGAS_SLOT_SIZE;
	}
	if (l->notify_off % ps || l->notify_off < end)
		return false;
	end = l->notify_off + (uint64_t)geo->notify_entries * sizeof(struct pgas_notify_entry);
	if (l->bounce_off % ps || l->bounce_off < end)
		return false;
	end = l->bounce_off + (uint64_t)nranks * PGAS_NCHAN * geo->bounce_bufs *
			      (PGAS_CACHELINE + (uint64_t)geo->bounce_size);
	return end <= size;
}

/* PGAS_IOC_WAKE of eid: -1 and EINVAL iff eid >= the job's max_eps. */
static bool eid_in_job(int fd, unsigned eid)
{
	struct pgas_ioc_wake w = { .size = sizeof(w), .vpid = eid };

	return ioctl(fd, PGAS_IOC_WAKE, &w) == 0 || errno != EINVAL;
}

/*
 * The job's max_eps (c->max_eids), which no ioctl reports: what
 * kmod_job asks for, unless the launcher made the job with less (a
 * 24-byte JOB_CREATE: nranks), which WAKE tells: EINVAL for an eid at or
 * over max_eps, else ENOENT for one not issued (none above the ranks is
 * yet: no rank has attached, so none has an extra).  Only eids >= nranks
 * are asked about: nothing is woken.
 */
static unsigned job_eids(int fd, unsigned nranks)
{
	unsigned lo = nranks, hi = job_max_eps(nranks);	/* lo eids there, hi at most */

	if (hi <= lo || eid_in_job(fd, hi - 1))
		return hi > lo ? hi : lo;
	while (hi - lo > 1) {	/* eid lo - 1 is in, hi - 1 is not */
		unsigned mid = lo + (hi - lo) / 2;

		if (eid_in_job(fd, mid - 1))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int kmod_open(struct pgas_conduit *c, char *msg, size_t msglen)
{
	struct pgas_ioc_job_join j = { .size = sizeof(j) };
	struct pgas_ioc_rings r = { .size = sizeof(r) };
	struct pgas_conduit_hello mine = { 0 }, *all = NULL;
	struct kmod_priv *priv;
	int rc, have;

	rc = pgas_boot_join(&c->rank, &c->nranks, msg, msglen);
	if (rc)
		return rc;
	pgas_geometry_layout(&c->geo, c->nranks, &c->layout);
	priv = calloc(1, sizeof(*priv));
	c->eps = calloc(c->nranks, sizeof(*c->eps));
	all = calloc(c->nranks, sizeof(*all));
	c->priv = priv;
	if (priv)
		priv->fd = priv->job_fd = -1;
	if (!priv || !c->eps || !all || pgas_conduit_maps_init(&priv->maps, c->nranks)) {
		free(all);
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		return PGAS_ERR_NOMEM;
	}

	/* pgas.ko maps this host's ranks only: the others would fail their mmap. */
	for (unsigned r = 0; r < c->nranks; r++)
		if (!pgas_boot_same_host(r)) {
			free(all);
			snprintf(msg, msglen, "rank %u runs on another host (%u; this one %u): "
				 "pgas.ko cannot reach it; a job across hosts needs "
				 "PGAS_CONDUIT=ofi", r, pgas_boot_host_of(r),
				 pgas_boot_host_of(c->rank));
			return PGAS_ERR_INVAL;
		}
	have = env_job(NULL, &j.job_id, &j.key);
	if (!have && c->nranks > 1 && pgas_boot_host_jobs()) {
		/* A PMIx launcher: the host's leader makes the job, every rank holds it. */
		struct pgas_conduit_job job;

		rc = pgas_conduit_host_job(&pgas_kmod_ops, c->nranks, &job, msg, msglen);
		if (rc) {
			free(all);
			return rc;
		}
		priv->job_fd = job.fd;
		have = env_job(&job, &j.job_id, &j.key);
		if (!have)
			have = -1;
	}
	if (have < 0) {
		free(all);
		snprintf(msg, msglen, "bad %s/%s from the launcher", PGAS_ENV_JOB_ID, PGAS_ENV_JOB_KEY);
		return PGAS_ERR_INVAL;
	}
	if (!have) {		/* no launcher: a one-rank job of our own */
		uint64_t key;

		if (c->nranks != 1) {
			free(all);
			snprintf(msg, msglen, "pgasrun made no pgas.ko job (is %s there for it?)",
				 pgas__cfg.device);
			return PGAS_ERR_INVAL;
		}
		rc = kmod_job(1, &j.job_id, &key, &priv->job_fd, msg, msglen);
		j.key = key;
		if (!rc && priv->job_fd < 0) {
			snprintf(msg, msglen, "%s is not usable", pgas__cfg.device);
			rc = PGAS_ERR_SYS;
		}
		if (rc) {
			free(all);
			return rc;
		}
	}
	priv->fd = open_device(msg, msglen);
	if (priv->fd < 0) {
		free(all);
		return PGAS_ERR_SYS;
	}
	j.vpid = c->rank;
	if (ioctl(priv->fd, PGAS_IOC_JOB_JOIN, &j) < 0) {
		free(all);
		return sys_fail(msg, msglen, "PGAS_IOC_JOB_JOIN");
	}
	priv->job_id = j.job_id;
	priv->key = j.key;
	c->max_eids = job_eids(priv->fd, c->nranks);
	priv->closed = calloc((c->max_eids + 63) / 64, sizeof(*priv->closed));
	if (!priv->closed) {
		free(all);
		snprintf(msg, msglen, "out of memory for %u endpoints", c->max_eids);
		return PGAS_ERR_NOMEM;
	}
	r.mbox_slots = c->geo.mbox_slots;
	r.notify_entries = c->geo.notify_entries;
	r.bounce_bufs = c->geo.bounce_bufs;
	r.bounce_size = c->geo.bounce_size;
	if (ioctl(priv->fd, PGAS_IOC_RINGS_CREATE, &r) < 0) {
		free(all);
		return sys_fail(msg, msglen, "PGAS_IOC_RINGS_CREATE");
	}
	if (r.page_size && r.page_size != pgas_page_size()) {
		free(all);
		snprintf(msg, msglen, "pgas.ko lays rings out in %u-byte pages, libpgas in %llu",
			 r.page_size, pgas_page_size());
		return PGAS_ERR_INVAL;
	}
	/* pgas.ko says where everything is (an older one only how big: then ours must match). */
	if (r.layout.size ? !layout_sane(&r.layout, r.region_size, &c->geo, c->nranks) : r.region_size != c->layout.size) {
		free(all);
		snprintf(msg, msglen, "pgas.ko's ring region is %" PRIu64 " bytes%s, libpgas expects %" PRIu64,
			 (uint64_t)r.region_size, r.layout.size ? " with a layout out of bounds" : "",
			 (uint64_t)c->layout.size);
		return PGAS_ERR_INVAL;
	}
	if (r.layout.size)
		c->layout = r.layout;
	/* What pgas.ko writes for this rank (peers' deaths) is on a page peers cannot write. */
	if (!r.kern_cookie) {
		free(all);
		snprintf(msg, msglen, "%s runs an older pgas.ko (ABI 1; libpgas needs ABI %u)",
			 pgas__cfg.device, PGAS_ABI_VERSION);
		return PGAS_ERR_INVAL;
	}
	priv->kern = mmap(NULL, PGAS_MIN_PAGE_SIZE, PROT_READ, MAP_SHARED, priv->fd,
			  (off_t)r.kern_cookie);
	if (priv->kern == MAP_FAILED) {
		priv->kern = NULL;
		free(all);
		return sys_fail(msg, msglen, "mapping the kernel page");
	}
	c->kern = priv->kern;
	if (c->kern->magic != PGAS_ABI_MAGIC || c->kern->version != PGAS_ABI_VERSION ||
	    c->kern->rank != c->rank) {
		free(all);
		snprintf(msg, msglen, "pgas.ko's kernel page says ABI %08x v%u rank %u, libpgas has %08x v%u rank %u",
			 c->kern->magic, c->kern->version, c->kern->rank, PGAS_ABI_MAGIC,
			 PGAS_ABI_VERSION, c->rank);
		return PGAS_ERR_INVAL;
	}
	mine.magic = PGAS_ABI_MAGIC;
	mine.version = PGAS_ABI_VERSION;
	mine.geo = c->geo;
	mine.cookie = r.cookie;
	mine.size = r.region_size;
	rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
	for (unsigned p = 0; !rc && p < c->nranks; p++) {
		void *map;

		rc = pgas_conduit_check_hello(&all[p], &mine, p, msg, msglen) ? PGAS_ERR_INVAL : 0;
		if (rc)
			break;
		map = mmap(NULL, c->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, priv->fd,
			   (off_t)all[p].cookie);
		if (map == MAP_FAILED) {
			rc = sys_fail(msg, msglen, "mapping a ring region");
			break;
		}
		priv->maps.region[p] = map;
		pgas_conduit_set_region(&c->eps[p], map, &c->layout);
	}
	free(all);
	return rc;
}

static int kmod_attach(struct pgas_conduit *c, size_t segsize, char *msg, size_t msglen)
{
	struct kmod_priv *priv = c->priv;
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE };
	struct pgas_conduit_segment mine = { 0, segsize, 0 }, *all;
	int rc = PGAS_OK;
	void *seg;

	all = calloc(c->nranks, sizeof(*all));
	if (!all) {
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		return PGAS_ERR_NOMEM;
	}
	/* My segment is my own memory, pinned and registered for the peers. */
	seg = pgas_conduit_map_aligned(segsize, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (seg == MAP_FAILED) {
		free(all);
		return sys_fail(msg, msglen, "allocating the segment");
	}
	priv->maps.seg[c->rank] = seg;
	priv->maps.seg_len[c->rank] = segsize;
	reg.addr = (uint64_t)(uintptr_t)seg;
	reg.len = segsize;
	if (ioctl(priv->fd, PGAS_IOC_REG, &reg) < 0) {
		free(all);
		return sys_fail(msg, msglen, errno == ENOMEM ?
				"registering the segment (RLIMIT_MEMLOCK too low?)" :
				"registering the segment");
	}
	mine.addr = reg.addr;
	mine.cookie = reg.cookie;
	rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
	for (unsigned p = 0; !rc && p < c->nranks; p++)
		rc = pgas_conduit_map_segment(c, &priv->maps, p, &all[p], seg, priv->fd,
					      (off_t)all[p].cookie, msg, msglen);
	free(all);
	return rc;
}

/*
 * The region is the process's own memory, pinned and registered as the
 * segment is; peers map it by its cookie.  pgas.ko accepts private file
 * pages (.data) because PGAS_REG_WRITE writes them: they become anonymous
 * copies first (pgas_abi.h, PGAS_IOC_REG).
 */
static int kmod_region(struct pgas_conduit *c, void *addr, size_t len,
		       struct pgas_conduit_region *out, char *msg, size_t msglen)
{
	struct kmod_priv *priv = c->priv;
	struct pgas_ioc_reg reg = { .size = sizeof(reg), .flags = PGAS_REG_WRITE };
	struct pgas_conduit_segment mine = { (uint64_t)(uintptr_t)addr, len, 0 }, *all;
	int rc = PGAS_OK;

	all = calloc(c->nranks, sizeof(*all));
	if (!all) {
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		return PGAS_ERR_NOMEM;
	}
	if (len) {
		reg.addr = mine.addr;
		reg.len = len;
		if (ioctl(priv->fd, PGAS_IOC_REG, &reg) < 0) {
			rc = sys_fail(msg, msglen, errno == ENOMEM ?
				      "registering the region (RLIMIT_MEMLOCK too low?)" :
				      "registering the region");
			mine.addr = PGAS_CONDUIT_REGION_FAILED;
		}
		mine.cookie = reg.cookie;
	}
	{
		char spare[64];
		int brc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL,
					      rc ? spare : msg, rc ? sizeof(spare) : msglen);

		if (!rc)
			rc = brc;
	}
	if (!rc)
		rc = pgas_conduit_map_regions(c, &priv->maps, all, NULL, priv->fd, addr, out,
					      msg, msglen);
	free(all);
	return rc;
}

static int kmod_wait_fd(const struct pgas_conduit *c)
{
	const struct kmod_priv *priv = c->priv;

	return priv ? priv->fd : -1;
}

static void kmod_close(struct pgas_conduit *c)
{
	struct kmod_priv *priv = c->priv;

	if (priv) {
		pgas_conduit_maps_release(&priv->maps, c->nranks, c->layout.size);
		if (priv->kern)
			munmap(priv->kern, PGAS_MIN_PAGE_SIZE);
		/* Closing the endpoint deregisters and revokes what is left. */
		if (priv->fd >= 0)
			close(priv->fd);
		if (priv->job_fd >= 0)
			close(priv->job_fd);
		free(priv->closed);
		free(priv);
	}
	free(c->eps);
	c->eps = NULL;
	c->kern = NULL;
	c->priv = NULL;
	pgas_boot_leave();
}

/* ---- extra endpoints ------------------------------------------------------------ */

/* Whether RINGS_CREATE or EP_INFO's region is the one c->layout describes. */
static bool same_region(const struct pgas_conduit *c, uint64_t size,
			const struct pgas_region_layout *l)
{
	return size == c->layout.size && (!l->size || !memcmp(l, &c->layout, sizeof(*l)));
}

static void mark_closed(struct kmod_priv *priv, unsigned max_eids, unsigned eid)
{
	if (eid < max_eids)
		atomic_fetch_or_explicit(&priv->closed[eid / 64], 1ull << (eid % 64),
					 memory_order_relaxed);
}

static bool known_closed(struct kmod_priv *priv, unsigned max_eids, unsigned eid)
{
	return eid < max_eids &&
	       atomic_load_explicit(&priv->closed[eid / 64], memory_order_relaxed) &
	       (1ull << (eid % 64));
}

static int kmod_ep_open(struct pgas_conduit *c, struct pgas_conduit_xep *x, char *msg,
			size_t msglen)
{
	struct kmod_priv *priv = c->priv;
	struct pgas_ioc_job_join j = {
		.size = sizeof(j), .flags = PGAS_JOIN_EXTRA, .job_id = priv->job_id,
		.vpid = c->rank, .key = priv->key,
	};
	struct pgas_ioc_rings r = {
		.size = sizeof(r), .mbox_slots = c->geo.mbox_slots,
		.notify_entries = c->geo.notify_entries, .bounce_bufs = c->geo.bounce_bufs,
		.bounce_size = c->geo.bounce_size,
	};
	void *map;
	int fd, rc;

	/* Each rank has PGAS_EP_MAX - 1 eids of the job's: the kernel's are first come. */
	if (priv->extras + 1 >= pgas__cfg.ep_max) {
		snprintf(msg, msglen, "rank %u has created its %u endpoints (PGAS_EP_MAX %u)",
			 c->rank, pgas__cfg.ep_max, pgas__cfg.ep_max);
		return PGAS_ERR_RESOURCE;
	}
	if (c->nranks + priv->extras >= c->max_eids) {
		snprintf(msg, msglen, "the job has no endpoint left (its launcher made room for %u)",
			 c->max_eids);
		return PGAS_ERR_RESOURCE;
	}
	fd = open_device(msg, msglen);
	if (fd < 0)
		return errno == ENOMEM ? PGAS_ERR_NOMEM : PGAS_ERR_SYS;
	if (ioctl(fd, PGAS_IOC_JOB_JOIN, &j) < 0) {
		if (errno == ENOSPC) {
			snprintf(msg, msglen, "the job has no endpoint left (its %u are taken)",
				 c->max_eids);
			rc = PGAS_ERR_RESOURCE;
		} else if (errno == EMFILE) {
			snprintf(msg, msglen, "this process has as many endpoints as pgas.ko lets it "
				 "have (its max_eps_per_mm)");
			rc = PGAS_ERR_RESOURCE;
		} else {
			rc = sys_fail(msg, msglen, "PGAS_IOC_JOB_JOIN of an endpoint");
		}
		close(fd);
		return rc;
	}
	priv->extras++;		/* its eid is taken, whatever happens next */
	if (ioctl(fd, PGAS_IOC_RINGS_CREATE, &r) < 0) {
		if (errno == E2BIG) {	/* the primary's region fitted: the job's 4 GiB are full */
			snprintf(msg, msglen, "the job's ring regions are at pgas.ko's limit (4 GiB): "
				 "no room for endpoint %u's", j.eid);
			close(fd);
			return PGAS_ERR_RESOURCE;
		}
		rc = sys_fail(msg, msglen, errno == ENOMEM ?
			      "PGAS_IOC_RINGS_CREATE of an endpoint (RLIMIT_MEMLOCK too low?)" :
			      "PGAS_IOC_RINGS_CREATE of an endpoint");
		close(fd);
		return rc;
	}
	if (!same_region(c, r.region_size, &r.layout)) {
		snprintf(msg, msglen, "pgas.ko made endpoint %u a %" PRIu64 "-byte ring region "
			 "unlike its rank's (%" PRIu64 " bytes)", j.eid, (uint64_t)r.region_size,
			 (uint64_t)c->layout.size);
		close(fd);
		return PGAS_ERR_INVAL;
	}
	map = mmap(NULL, c->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)r.cookie);
	if (map == MAP_FAILED) {
		rc = sys_fail(msg, msglen, "mapping an endpoint's ring region");
		close(fd);
		return rc;
	}
	x->eid = j.eid;
	x->owner = c->rank;
	memset(&x->ring, 0, sizeof(x->ring));
	pgas_conduit_set_region(&x->ring, map, &c->layout);
	x->map = map;
	x->fd = fd;
	return PGAS_OK;
}

static void kmod_ep_close(struct pgas_conduit *c, struct pgas_conduit_xep *x)
{
	struct kmod_priv *priv = c->priv;

	/*
	 * Not unmapped: another thread of this process may still send to it
	 * (its sends fail once they see it closed, but a one-slot request may
	 * already be on its way).  Private zero pages replace the rings in
	 * place, so such a write lands nowhere instead of faulting; the
	 * kernel's pages go with the file.
	 */
	if (x->map &&
	    mmap(x->map, c->layout.size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		munmap(x->map, c->layout.size);
	x->map = NULL;
	/* The last reference to its file: the endpoint departs (pgas.ko tells the peers). */
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	mark_closed(priv, c->max_eids, x->eid);
}

static int kmod_ep_resolve(struct pgas_conduit *c, unsigned eid, struct pgas_conduit_xep *x,
			   char *msg, size_t msglen)
{
	struct kmod_priv *priv = c->priv;
	struct pgas_ioc_ep_info info = { .size = sizeof(info), .eid = eid };
	void *map;

	if (eid < c->nranks || eid >= c->max_eids) {
		snprintf(msg, msglen, "endpoint %u is not an extra endpoint of the job (%u..%u)",
			 eid, c->nranks, c->max_eids - 1);
		return PGAS_ERR_INVAL;
	}
	if (ioctl(priv->fd, PGAS_IOC_EP_INFO, &info) < 0) {
		if (errno == ENOENT) {	/* below max_eps: not handed out yet */
			snprintf(msg, msglen, "endpoint %u has not been created", eid);
			return PGAS_ERR_NOT_READY;
		}
		return sys_fail(msg, msglen, "PGAS_IOC_EP_INFO");
	}
	if (info.state == PGAS_EP_STATE_CLOSED) {
		mark_closed(priv, c->max_eids, eid);
		snprintf(msg, msglen, "endpoint %u of rank %u has been destroyed", eid, info.owner);
		return PGAS_ERR_GONE;
	}
	if (info.state != PGAS_EP_STATE_LIVE || !info.cookie) {	/* joined, no rings yet */
		snprintf(msg, msglen, "endpoint %u is not ready", eid);
		return PGAS_ERR_NOT_READY;
	}
	if (info.owner >= c->nranks || !same_region(c, info.region_size, &info.layout)) {
		snprintf(msg, msglen, "pgas.ko says endpoint %u is rank %u's with a %" PRIu64
			 "-byte ring region; libpgas expects %" PRIu64 " bytes of one of %u ranks",
			 eid, info.owner, (uint64_t)info.region_size, (uint64_t)c->layout.size,
			 c->nranks);
		return PGAS_ERR_INVAL;
	}
	/* Any endpoint of the job in this process may map it: the primary's file. */
	map = mmap(NULL, c->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, priv->fd,
		   (off_t)info.cookie);
	if (map == MAP_FAILED) {
		if (errno == ENXIO) {	/* revoked since EP_INFO: it departed */
			mark_closed(priv, c->max_eids, eid);
			snprintf(msg, msglen, "endpoint %u of rank %u has been destroyed", eid,
				 info.owner);
			return PGAS_ERR_GONE;
		}
		return sys_fail(msg, msglen, "mapping an endpoint's ring region");
	}
	x->eid = eid;
	x->owner = info.owner;
	memset(&x->ring, 0, sizeof(x->ring));
	pgas_conduit_set_region(&x->ring, map, &c->layout);
	x->map = map;
	x->fd = -1;
	return PGAS_OK;
}

/* Every issued extra's state from pgas.ko: after closed events were lost. */
static void closed_sweep(struct pgas_conduit *c, struct kmod_priv *priv)
{
	for (unsigned eid = c->nranks; eid < c->max_eids; eid++) {
		struct pgas_ioc_ep_info info = { .size = sizeof(info), .eid = eid };

		if (known_closed(priv, c->max_eids, eid))
			continue;
		if (ioctl(priv->fd, PGAS_IOC_EP_INFO, &info) < 0)
			break;	/* ENOENT: not issued, nor any after it */
		if (info.state == PGAS_EP_STATE_CLOSED)
			mark_closed(priv, c->max_eids, eid);
	}
}

/*
 * Whether x has departed, from this rank's kernel page: pgas.ko writes an
 * event {eid, PGAS_GONE_CLOSED} there once an extra's region is revoked.
 * The events not read yet are read into the closed bitmap (no system
 * call; from any number of threads at once: bits and the head only move
 * forward).  A vpid of nranks or more in an event is always an extra's
 * departure, so a slot that pgas.ko rewrites while it is read still names
 * one.  When more than PGAS_GONE_EVENTS came since the last look, some
 * were overwritten: EP_INFO then asks about every issued eid.
 */
static bool kmod_ep_closed(struct pgas_conduit *c, const struct pgas_conduit_xep *x)
{
	struct kmod_priv *priv = c->priv;
	const struct pgas_kern_page *kp = c->kern;
	uint64_t head, tail, now;

	if (known_closed(priv, c->max_eids, x->eid))
		return true;
	if (!kp)
		return false;
	head = atomic_load_explicit(&priv->ev_head, memory_order_acquire);
	tail = __atomic_load_n(&kp->gone_tail, __ATOMIC_ACQUIRE);
	if (tail != head) {
		if (tail - head <= PGAS_GONE_EVENTS) {
			for (uint64_t i = head; i < tail; i++) {
				unsigned v = __atomic_load_n(&kp->gone[i % PGAS_GONE_EVENTS].vpid,
							     __ATOMIC_RELAXED);

				if (v >= c->nranks)
					mark_closed(priv, c->max_eids, v);
			}
			/* Were the slots read rewritten meanwhile? */
			now = __atomic_load_n(&kp->gone_tail, __ATOMIC_ACQUIRE);
			if (now - head > PGAS_GONE_EVENTS)
				closed_sweep(c, priv);
		} else {
			closed_sweep(c, priv);
		}
		/* Forward only: another thread may have read further. */
		while (head < tail &&
		       !atomic_compare_exchange_weak_explicit(&priv->ev_head, &head, tail,
							      memory_order_acq_rel,
							      memory_order_acquire))
			;
	}
	/* pgas.ko took the job away (its NIC was deleted): every endpoint has gone. */
	if (__atomic_load_n(&kp->peers_gone, __ATOMIC_RELAXED) == PGAS_KERN_REVOKED)
		return true;
	return known_closed(priv, c->max_eids, x->eid);
}

/*
 * Whether rank died, from this rank's kernel page (what check_kern and
 * rma.c read): an event {rank, died 1} among the last PGAS_GONE_EVENTS, or
 * the whole job taken away.  Stateless; cheap while nobody died.
 */
static bool kmod_peer_gone(struct pgas_conduit *c, unsigned rank)
{
	const struct pgas_kern_page *kp = c->kern;
	uint32_t died;
	uint64_t tail;

	if (!kp)
		return false;
	died = __atomic_load_n(&kp->peers_gone, __ATOMIC_ACQUIRE);
	if (!died)
		return false;
	if (died == PGAS_KERN_REVOKED)
		return true;
	tail = __atomic_load_n(&kp->gone_tail, __ATOMIC_ACQUIRE);
	for (uint64_t i = tail > PGAS_GONE_EVENTS ? tail - PGAS_GONE_EVENTS : 0; i < tail; i++)
		if (__atomic_load_n(&kp->gone[i % PGAS_GONE_EVENTS].vpid, __ATOMIC_RELAXED) == rank &&
		    __atomic_load_n(&kp->gone[i % PGAS_GONE_EVENTS].died, __ATOMIC_RELAXED) == 1)
			return true;
	return false;
}

static void kmod_ep_unmap(struct pgas_conduit *c, struct pgas_conduit_xep *x)
{
	if (x->map)
		munmap(x->map, c->layout.size);
	x->map = NULL;
}

const struct pgas_conduit_ops pgas_kmod_ops = {
	.name = "kmod",
	.probe = kmod_probe,
	.open = kmod_open,
	.attach = kmod_attach,
	.close = kmod_close,
	.region = kmod_region,
	.wait_fd = kmod_wait_fd,
	.ep_open = kmod_ep_open,
	.ep_close = kmod_ep_close,
	.ep_resolve = kmod_ep_resolve,
	.ep_closed = kmod_ep_closed,
	.ep_unmap = kmod_ep_unmap,
	.peer_gone = kmod_peer_gone,
	.job_create = kmod_job_create,
};
