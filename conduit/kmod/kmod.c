// SPDX-License-Identifier: MIT
/*
 * kmod.c - the conduit over pgas.ko (/dev/pgasN).
 *
 * The launcher creates the job (pgas_kmod_job) and hands its id and key to
 * the ranks in the environment; each rank joins with its rank as vpid,
 * creates its ring region, registers its segment, and maps every peer's
 * region and segment by the cookies exchanged through the bootstrap relay.
 * After that the fast path runs on the mappings exactly as over shm.
 * Sleeping (PGAS_WAIT_MODE=block) uses the endpoint's fd: poll() to sleep,
 * PGAS_IOC_WAKE to wake a peer (libpgas/core/wait.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
	int job_fd;		/* a one-rank job's own launcher file, or -1 */
	struct pgas_conduit_maps maps;	/* my segment is my own memory */
};

static int sys_fail(char *msg, size_t msglen, const char *what)
{
	snprintf(msg, msglen, "%s: %s", what, strerror(errno));
	return errno == ENOMEM ? PGAS_ERR_NOMEM : PGAS_ERR_SYS;
}

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

int pgas_kmod_job(unsigned nranks, uint32_t *job_id, uint64_t *key, int *fd,
		  char *msg, size_t msglen)
{
	struct pgas_ioc_job_create c = { .size = sizeof(c), .nranks = nranks };
	int rc;

	*fd = -1;
	rc = pgas__config_load(msg, msglen);
	if (rc)
		return rc;
	if (pgas__cfg.conduit == PGAS_CONDUIT_SHM ||
	    (pgas__cfg.conduit == PGAS_CONDUIT_AUTO && access(pgas__cfg.device, R_OK | W_OK)))
		return PGAS_OK;
	*fd = open_device(msg, msglen);
	if (*fd < 0)
		return PGAS_ERR_SYS;
	if (ioctl(*fd, PGAS_IOC_JOB_CREATE, &c) < 0) {
		rc = sys_fail(msg, msglen, "PGAS_IOC_JOB_CREATE");
		close(*fd);
		*fd = -1;
		return rc;
	}
	*job_id = c.job_id;
	*key = c.key;
	return PGAS_OK;
}

static int env_job(__u32 *id, __u64 *key)
{
	const char *s = getenv(PGAS_ENV_JOB_ID), *k = getenv(PGAS_ENV_JOB_KEY);
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

	have = env_job(&j.job_id, &j.key);
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
		rc = pgas_kmod_job(1, &j.job_id, &key, &priv->job_fd, msg, msglen);
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
	seg = mmap(NULL, segsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
		free(priv);
	}
	free(c->eps);
	c->eps = NULL;
	c->kern = NULL;
	c->priv = NULL;
	pgas_boot_leave();
}

const struct pgas_conduit_ops pgas_kmod_ops = {
	.name = "kmod",
	.kind = PGAS_CONDUIT_KMOD,
	.probe = kmod_probe,
	.open = kmod_open,
	.attach = kmod_attach,
	.close = kmod_close,
	.wait_fd = kmod_wait_fd,
};
