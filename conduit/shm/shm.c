// SPDX-License-Identifier: MIT
/*
 * shm.c - the kmod-free conduit: the rings of pgas_abi.h in shared memory.
 *
 * Every rank creates its ring region and, at attach, its segment as memfds
 * and hands the descriptors to its peers through pgasrun's all-gather; each
 * rank maps all of them.  memfds have no name in any file system, so
 * nothing is left in /dev/shm whatever way a job ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../conduit.h"
#include "pgas.h"
#include "bootstrap.h"

struct shm_priv {
	struct pgas_conduit_maps maps;
};

static int fail_errno(char *msg, size_t msglen, const char *what)
{
	snprintf(msg, msglen, "%s: %s", what, strerror(errno));
	return errno == ENOMEM ? PGAS_ERR_NOMEM : PGAS_ERR_SYS;
}

static int memfd_sized(const char *name, size_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void close_fds(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int shm_open_job(struct pgas_conduit *c, char *msg, size_t msglen)
{
	struct shm_priv *priv;
	struct pgas_conduit_hello mine = { 0 }, *all = NULL;
	int fd = -1, *fds = NULL, rc;
	void *map;

	rc = pgas_boot_join(&c->rank, &c->nranks, msg, msglen);
	if (rc)
		return rc;
	pgas_geometry_layout(&c->geo, c->nranks, &c->layout);

	priv = calloc(1, sizeof(*priv));
	c->eps = calloc(c->nranks, sizeof(*c->eps));
	all = calloc(c->nranks, sizeof(*all));
	fds = calloc(c->nranks, sizeof(*fds));
	c->priv = priv;
	if (!priv || !c->eps || !all || !fds || pgas_conduit_maps_init(&priv->maps, c->nranks)) {
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		rc = PGAS_ERR_NOMEM;
		goto out;
	}

	fd = memfd_sized("pgas-rings", c->layout.size);
	if (fd < 0) {
		rc = fail_errno(msg, msglen, "creating the ring region");
		goto out;
	}
	map = mmap(NULL, c->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		rc = fail_errno(msg, msglen, "mapping the ring region");
		goto out;
	}
	{
		struct pgas_ctrl_page *ctrl = map;

		/* What pgas.ko writes into the control page of a ring region. */
		ctrl->magic = PGAS_ABI_MAGIC;
		ctrl->version = PGAS_ABI_VERSION;
		ctrl->rank = c->rank;
		ctrl->mbox_slots = c->geo.mbox_slots;
		ctrl->notify_entries = c->geo.notify_entries;
		ctrl->bounce_bufs = c->geo.bounce_bufs;
		ctrl->bounce_size = c->geo.bounce_size;
	}
	priv->maps.region[c->rank] = map;

	mine.magic = PGAS_ABI_MAGIC;
	mine.version = PGAS_ABI_VERSION;
	mine.geo = c->geo;
	rc = pgas_boot_allgather(&mine, sizeof(mine), fd, all, fds, msg, msglen);
	if (rc)
		goto out;
	for (unsigned r = 0; r < c->nranks; r++) {
		rc = pgas_conduit_check_hello(&all[r], &mine, r, msg, msglen);
		if (rc)
			goto out;
		if (r == c->rank)
			continue;
		map = mmap(NULL, c->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[r], 0);
		if (map == MAP_FAILED) {
			rc = fail_errno(msg, msglen, "mapping a peer's ring region");
			goto out;
		}
		priv->maps.region[r] = map;
	}
	for (unsigned r = 0; r < c->nranks; r++)
		pgas_conduit_set_region(&c->eps[r], priv->maps.region[r], &c->layout);
	rc = PGAS_OK;
out:
	if (fd >= 0)
		close(fd);
	if (fds)
		close_fds(fds, c->nranks);
	free(fds);
	free(all);
	return rc;
}

static int shm_attach(struct pgas_conduit *c, size_t segsize, char *msg, size_t msglen)
{
	struct shm_priv *priv = c->priv;
	struct pgas_conduit_segment mine = { 0, segsize, 0 }, *all;
	int fd = -1, *fds, rc;
	void *map;

	all = calloc(c->nranks, sizeof(*all));
	fds = calloc(c->nranks, sizeof(*fds));
	if (!all || !fds) {
		free(all);
		free(fds);
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		return PGAS_ERR_NOMEM;
	}
	/* pgas_attach hands over at least a page: no segment is empty. */
	fd = memfd_sized("pgas-segment", segsize);
	if (fd < 0) {
		rc = fail_errno(msg, msglen, "creating the segment");
		goto out;
	}
	map = mmap(NULL, segsize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		rc = fail_errno(msg, msglen, "mapping the segment");
		goto out;
	}
	priv->maps.seg[c->rank] = map;
	priv->maps.seg_len[c->rank] = segsize;
	mine.addr = (uint64_t)(uintptr_t)map;
	rc = pgas_boot_allgather(&mine, sizeof(mine), fd, all, fds, msg, msglen);
	for (unsigned r = 0; !rc && r < c->nranks; r++) {
		if (r != c->rank && fds[r] < 0) {
			snprintf(msg, msglen, "rank %u sent no segment descriptor", r);
			rc = PGAS_ERR_SYS;
			break;
		}
		rc = pgas_conduit_map_segment(c, &priv->maps, r, &all[r], map, fds[r], 0,
					      msg, msglen);
	}
out:
	if (fd >= 0)
		close(fd);
	close_fds(fds, c->nranks);
	free(fds);
	free(all);
	return rc;
}

static void shm_close(struct pgas_conduit *c)
{
	struct shm_priv *priv = c->priv;

	if (priv) {
		pgas_conduit_maps_release(&priv->maps, c->nranks, c->layout.size);
		free(priv);
	}
	free(c->eps);
	c->eps = NULL;
	c->priv = NULL;
	pgas_boot_leave();
}

/* Everywhere: PGAS_CONDUIT=auto's last resort. */
static bool shm_probe(void)
{
	return true;
}

static int shm_wait_fd(const struct pgas_conduit *c)
{
	(void)c;
	return -1;	/* futexes on the doorbell */
}

const struct pgas_conduit_ops pgas_shm_ops = {
	.name = "shm",
	.kind = PGAS_CONDUIT_SHM,
	.probe = shm_probe,
	.open = shm_open_job,
	.attach = shm_attach,
	.close = shm_close,
	.wait_fd = shm_wait_fd,
};
