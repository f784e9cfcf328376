// SPDX-License-Identifier: MIT
/*
 * shm.c - the kmod-free conduit: the rings of pgas_abi.h in shared memory.
 *
 * The ranks' ring regions and, at attach, their segments live in two
 * memfds per host, made by the host's leader (its lowest rank) and handed
 * to the others (pgas_boot_host_share): each rank maps each once, every
 * rank's part at its place in rank order.  A memfd per rank, mapped by
 * every rank, cost n * n mappings: at 1024 ranks most of the seconds of a
 * job's start and end went to making and tearing them down.  memfds have
 * no name in any file system, so nothing is left in /dev/shm whatever way
 * a job ends.
 *
 * A rank's ring memfd is a slab of PGAS_EP_MAX regions: slot 0 is its
 * primary's, the others its later endpoints' (pgas_ep_create), so every
 * peer has mapped every endpoint the rank will ever make and a late one is
 * reachable without a system call.  The memfd is sparse: a slot costs
 * memory once touched.  Slot s of rank r is eid nranks + r * (K - 1) +
 * s - 1; a slot's control page says whether it lives (magic) or was
 * closed (SLOT_CLOSED), and slots are not reused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "../conduit.h"
#include "pgas.h"
#include "bootstrap.h"
#include "boot.h"

struct shm_priv {
	struct pgas_conduit_maps maps;
	unsigned slots;		/* K = PGAS_EP_MAX: regions per slab */
	size_t slab;		/* K * layout.size */
	unsigned next_slot;	/* my next unused slot (1..K-1) */
	int reg_fd;		/* my registered region's memfd (-1: none) */
	void *reg_addr;
	size_t reg_len;
};

#define SLOT_CLOSED 0xdead0000u	/* ctrl->magic of a closed slot */

/*
 * Set by a conduit that reaches the ranks of other hosts itself (ofi)
 * before it calls pgas_shm_ops.open: shm then maps the ranks of this host
 * only (a rank elsewhere has no memfd to give: its entries stay empty and
 * its segment unmapped, for the caller to fill).  Otherwise shm refuses a
 * job that spans hosts, naming the conduit that can run it.
 */
bool pgas_shm_host_only;

/* Whether shm maps rank r: this host's ranks. */
static bool shm_here(const struct pgas_conduit *c, unsigned r)
{
	return r == c->rank || pgas_boot_same_host(r);
}

static int fail_errno(char *msg, size_t msglen, const char *what)
{
	snprintf(msg, msglen, "%s: %s", what, strerror(errno));
	return errno == ENOMEM ? PGAS_ERR_NOMEM : PGAS_ERR_SYS;
}

static int memfd_sized(const char *name, size_t size)
{
	struct rlimit fsize;
	int fd;

	/* Over RLIMIT_FSIZE, ftruncate raises SIGXFSZ, which ends the process
	 * without a word: refuse first (a host's memfd holds all its ranks). */
	if (!getrlimit(RLIMIT_FSIZE, &fsize) && fsize.rlim_cur != RLIM_INFINITY &&
	    size > fsize.rlim_cur) {
		errno = EFBIG;
		return -1;
	}
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
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

/* Each rank's place among the ranks this conduit maps, in rank order (~0u:
 * another host's), and how many those are. */
static unsigned *host_places(const struct pgas_conduit *c, unsigned *count)
{
	unsigned *at = malloc(c->nranks * sizeof(*at)), k = 0;

	if (!at)
		return NULL;
	for (unsigned r = 0; r < c->nranks; r++)
		at[r] = shm_here(c, r) ? k++ : ~0u;
	*count = k;
	return at;
}

/* The host's leader: its lowest rank (pgas_boot_host_leader's). */
static unsigned first_here(const unsigned *places, unsigned nranks)
{
	unsigned r = 0;

	while (r < nranks && places[r] != 0)
		r++;
	return r;
}

/*
 * A memfd of size bytes for this host's ranks: its leader makes it, every
 * rank of the host gets a descriptor of it in *fd (collective over the
 * job).  A leader that cannot make it shares none, and the others of its
 * host fail with it, naming it.
 */
static int host_memfd(const char *name, const char *what, uint64_t size, unsigned leader,
		      int *fd, char *msg, size_t msglen)
{
	uint64_t made = 0, got = 0;
	int mine = -1, rc = PGAS_OK, brc;
	char spare[64];

	*fd = -1;
	if (pgas_boot_host_leader()) {
		if (size > (uint64_t)INT64_MAX)
			errno = EFBIG;
		mine = size > (uint64_t)INT64_MAX ? -1 : memfd_sized(name, (size_t)size);
		/* Its size is every rank's layout: a process of the job that
		 * shrank it would SIGBUS the host's ranks. */
		if (mine >= 0 && fcntl(mine, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0) {
			close(mine);
			mine = -1;
		}
		if (mine < 0) {
			char how[96];

			snprintf(how, sizeof(how), "creating %s (%llu bytes)", what,
				 (unsigned long long)size);
			rc = fail_errno(msg, msglen, how);
		} else {
			made = size;
		}
	}
	brc = pgas_boot_host_share(&made, sizeof(made), mine, &got, fd, rc ? spare : msg,
				   rc ? sizeof(spare) : msglen);
	if (mine >= 0)
		close(mine);
	if (!rc && !brc && (*fd < 0 || got != size)) {
		snprintf(msg, msglen, "the host's leader (rank %u) could not create %s "
			 "(%llu bytes; its own message says why)", leader, what,
			 (unsigned long long)size);
		brc = PGAS_ERR_SYS;
	}
	if ((rc || brc) && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return rc ? rc : brc;
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
	unsigned *places = NULL, nhere = 0;
	uint64_t total;
	int fd = -1, rc;
	void *map;

	rc = pgas_boot_join(&c->rank, &c->nranks, msg, msglen);
	if (rc)
		return rc;
	pgas_geometry_layout(&c->geo, c->nranks, &c->layout);

	if ((uint64_t)c->nranks * pgas__cfg.ep_max > PGAS_MAX_ENDPOINTS) {
		snprintf(msg, msglen, "%u ranks x PGAS_EP_MAX %u endpoints exceed the %u endpoints of a job",
			 c->nranks, pgas__cfg.ep_max, PGAS_MAX_ENDPOINTS);
		return PGAS_ERR_INVAL;
	}
	for (unsigned r = 0; !pgas_shm_host_only && r < c->nranks; r++)
		if (!shm_here(c, r)) {
			/* Every rank of the job finds one: all refuse, before any exchange. */
			snprintf(msg, msglen, "rank %u runs on another host (host %u, this rank %u "
				 "on host %u): shared memory cannot reach it; a job across hosts "
				 "needs PGAS_CONDUIT=ofi", r, pgas_boot_host_of(r), c->rank,
				 pgas_boot_host_of(c->rank));
			return PGAS_ERR_INVAL;
		}
	priv = calloc(1, sizeof(*priv));
	c->eps = calloc(c->nranks, sizeof(*c->eps));
	all = calloc(c->nranks, sizeof(*all));
	places = host_places(c, &nhere);
	c->priv = priv;
	if (priv)
		priv->reg_fd = -1;
	if (!priv || !c->eps || !all || !places ||
	    pgas_conduit_maps_init(&priv->maps, c->nranks)) {
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		rc = PGAS_ERR_NOMEM;
		goto out;
	}

	priv->slots = pgas__cfg.ep_max;
	priv->slab = (size_t)priv->slots * c->layout.size;
	priv->next_slot = 1;
	c->max_eids = c->nranks * priv->slots;
	if (__builtin_mul_overflow((uint64_t)nhere, (uint64_t)priv->slab, &total) ||
	    total > SIZE_MAX)
		total = UINT64_MAX;	/* the leader refuses it, the others with it */
	rc = host_memfd("pgas-rings", "the host's ring regions", total, first_here(places, c->nranks),
			&fd, msg, msglen);
	if (rc)
		goto out;
	map = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		rc = fail_errno(msg, msglen, "mapping the host's ring regions");
		goto out;
	}
	priv->maps.host_rings = map;
	priv->maps.host_rings_len = (size_t)total;
	for (unsigned r = 0; r < c->nranks; r++)
		if (places[r] != ~0u)
			priv->maps.region[r] = (unsigned char *)map + (size_t)places[r] * priv->slab;
	pgas_conduit_init_ctrl(c, priv->maps.region[c->rank], c->rank);

	/* Also the moment every rank's control page is written: a peer reads
	 * mine only after this exchange. */
	mine.magic = PGAS_ABI_MAGIC;
	mine.version = PGAS_ABI_VERSION;
	mine.geo = c->geo;
	rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
	for (unsigned r = 0; !rc && r < c->nranks; r++)
		rc = pgas_conduit_check_hello(&all[r], &mine, r, msg, msglen);
	if (rc)
		goto out;
	for (unsigned r = 0; r < c->nranks; r++)
		if (priv->maps.region[r])	/* another host's: left to the caller */
			pgas_conduit_set_region(&c->eps[r], priv->maps.region[r], &c->layout);
	rc = PGAS_OK;
out:
	if (fd >= 0)
		close(fd);
	free(places);
	free(all);
	return rc;
}

static int shm_attach(struct pgas_conduit *c, size_t segsize, char *msg, size_t msglen)
{
	struct shm_priv *priv = c->priv;
	struct pgas_conduit_segment mine = { 0, segsize, 0 }, *all;
	unsigned *places, nhere;
	uint64_t *off, total = 0;
	int fd = -1, rc;
	void *map;

	all = calloc(c->nranks, sizeof(*all));
	off = calloc(c->nranks, sizeof(*off));
	places = host_places(c, &nhere);
	if (!all || !off || !places) {
		rc = PGAS_ERR_NOMEM;
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		goto out;
	}
	/* 1. Every rank's size; the host's segments in rank order, each at an
	 *    offset aligned to PGAS_SEGMENT_ALIGN (so is the mapping: an offset
	 *    aligned that much is aligned in every rank, as shmem_align wants). */
	rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
	if (rc)
		goto out;
	for (unsigned r = 0; r < c->nranks; r++) {
		uint64_t len = (all[r].size + PGAS_SEGMENT_ALIGN - 1) & ~(uint64_t)(PGAS_SEGMENT_ALIGN - 1);

		if (places[r] == ~0u)
			continue;
		off[r] = total;
		if (all[r].size > (1ull << 48) || total + len > (1ull << 48))
			total = UINT64_MAX;	/* the leader refuses it, the others with it */
		if (total != UINT64_MAX)
			total += len;
	}
	/* 2. One memfd for them, from the host's leader; mapped once. */
	rc = host_memfd("pgas-segments", "the host's segments", total,
			first_here(places, c->nranks), &fd, msg, msglen);
	if (rc)
		goto out;
	map = pgas_conduit_map_aligned((size_t)total, MAP_SHARED, fd);
	if (map == MAP_FAILED) {
		rc = fail_errno(msg, msglen, "mapping the host's segments");
		goto out;
	}
	priv->maps.host_segs = map;
	priv->maps.host_segs_len = (size_t)total;
	/* 3. Where each rank's segment is in its own process (translation). */
	mine.addr = (uint64_t)(uintptr_t)((unsigned char *)map + off[c->rank]);
	rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
	for (unsigned r = 0; !rc && r < c->nranks; r++) {
		struct pgas_conduit_ep *ep = &c->eps[r];

		ep->seg_remote = all[r].addr;
		ep->seg_size = all[r].size;
		ep->seg = NULL;		/* another host's: known by address and size */
		if (places[r] == ~0u)
			continue;
		ep->seg = (unsigned char *)map + off[r];
		priv->maps.seg[r] = ep->seg;
		priv->maps.seg_len[r] = all[r].size;
	}
out:
	if (fd >= 0)
		close(fd);
	free(places);
	free(off);
	free(all);
	return rc;
}

/*
 * Whether a 4 KiB block is all zeros.  Not instrumented: it reads the
 * globals' redzones.  Reading an untouched .bss page maps the zero page:
 * nothing is allocated for it.
 */
__attribute__((no_sanitize_address))
static bool zero_block(const void *p)
{
	const volatile uint64_t *w = p;

	for (size_t i = 0; i < 4096 / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

/*
 * Private pages cannot be shared as they are: copies them into fd and maps
 * fd over them, at the same address.  The copy is the kernel's (a raw
 * pwrite: no sanitizer interceptor reads the globals' redzones), and
 * nothing between it and the mmap writes memory that the range may hold
 * (in a static program, libc's own data is in .data and .bss).
 */
static int replace_pages(int fd, void *addr, size_t len, char *msg, size_t msglen)
{
	/* ENOMEM where part of it is not mapped (it must be readable and
	 * writable: the caller's word; the copy is mapped read-write). */
	if (msync(addr, len, MS_ASYNC) < 0)
		return fail_errno(msg, msglen, "the region is not all mapped");
	/* Runs of non-zero 4 KiB blocks only: the memfd is sparse, zeros
	 * elsewhere, so that a large .bss costs no memory until written. */
	for (size_t at = 0; at < len;) {
		size_t end;

		if (zero_block((char *)addr + at)) {
			at += 4096;
			continue;
		}
		for (end = at + 4096; end < len && !zero_block((char *)addr + end); end += 4096)
			;
		while (at < end) {
			long n = syscall(SYS_pwrite64, fd, (char *)addr + at, end - at, (off_t)at);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return fail_errno(msg, msglen, "copying the region (is all of it "
						  "mapped and readable?)");
			at += (size_t)n;
		}
	}
	if (mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
		return fail_errno(msg, msglen, "mapping the region's copy over it");
	return PGAS_OK;
}

static int shm_region(struct pgas_conduit *c, void *addr, size_t len,
		      struct pgas_conduit_region *out, char *msg, size_t msglen)
{
	struct shm_priv *priv = c->priv;
	struct pgas_conduit_segment mine = { (uint64_t)(uintptr_t)addr, len, 0 }, *all;
	int fd = -1, *fds, rc = PGAS_OK, brc;

	all = calloc(c->nranks, sizeof(*all));
	fds = calloc(c->nranks, sizeof(*fds));
	if (!all || !fds) {
		snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
		free(all);
		free(fds);
		return PGAS_ERR_NOMEM;
	}
	for (unsigned r = 0; r < c->nranks; r++)
		fds[r] = -1;
	if (len) {
		fd = memfd_sized("pgas-region", len);
		rc = fd < 0 ? fail_errno(msg, msglen, "creating the region's memfd")
			    : replace_pages(fd, addr, len, msg, msglen);
		if (rc)
			mine.addr = PGAS_CONDUIT_REGION_FAILED;
	}
	{
		char spare[64];	/* the first failure's message is the one kept */

		brc = pgas_boot_allgather(&mine, sizeof(mine), rc ? -1 : fd, all, fds,
					  rc ? spare : msg, rc ? sizeof(spare) : msglen);
	}
	if (!rc)
		rc = brc;
	for (unsigned r = 0; !rc && r < c->nranks; r++)
		if (shm_here(c, r) && r != c->rank && all[r].size &&
		    all[r].addr != PGAS_CONDUIT_REGION_FAILED && fds[r] < 0) {
			snprintf(msg, msglen, "rank %u sent no region descriptor", r);
			rc = PGAS_ERR_SYS;
		}
	if (!rc) {
		/* Another host's region is not mapped: its size is hidden from
		 * the mapping and given back in out[] (local NULL). */
		struct pgas_conduit_segment *theirs = NULL;

		for (unsigned r = 0; r < c->nranks; r++)
			if (!shm_here(c, r) && all[r].addr != PGAS_CONDUIT_REGION_FAILED) {
				if (!theirs && !(theirs = calloc(c->nranks, sizeof(*theirs)))) {
					snprintf(msg, msglen, "out of memory for %u ranks", c->nranks);
					rc = PGAS_ERR_NOMEM;
					break;
				}
				theirs[r] = all[r];
				all[r].size = 0;
			}
		if (!rc)
			rc = pgas_conduit_map_regions(c, &priv->maps, all, fds, -1, addr, out,
						      msg, msglen);
		for (unsigned r = 0; theirs && r < c->nranks; r++)
			if (theirs[r].size) {
				out[r].remote = theirs[r].addr;
				out[r].size = theirs[r].size;
				out[r].local = NULL;
			}
		free(theirs);
	}
	if (!rc && fd >= 0) {	/* kept for a forked child (shm_forked) */
		priv->reg_fd = fd;
		priv->reg_addr = addr;
		priv->reg_len = len;
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	close_fds(fds, c->nranks);
	free(fds);
	free(all);
	return rc;
}

/*
 * In a forked child, first: the registered region (the program's data, for
 * OpenSHMEM, with libpgas's and libc's own state in a static program) is
 * the parent's memfd mapped shared, so every write of the child would land
 * in the parent.  Mapping the same memfd privately over it gives the child
 * copy-on-write pages of what is there, in one call, before anything of
 * the child writes (pages it does not write still show the parent's later
 * stores: the child should exec or exit).
 */
static void shm_forked(struct pgas_conduit *c)
{
	struct shm_priv *priv = c->priv;
	static const char why[] = "pgas: a forked child could not make the rank's registered "
				  "region private; it exits rather than write into its parent\n";

	if (!priv || priv->reg_fd < 0)
		return;
	if (mmap(priv->reg_addr, priv->reg_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
		 priv->reg_fd, 0) == MAP_FAILED) {
		if (write(2, why, sizeof(why) - 1) < 0) {
			/* nothing more to say */
		}
		_exit(127);
	}
}

static void shm_close(struct pgas_conduit *c)
{
	struct shm_priv *priv = c->priv;

	if (priv) {
		if (priv->reg_fd >= 0)
			close(priv->reg_fd);
		pgas_conduit_maps_release(&priv->maps, c->nranks, priv->slab);
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

/* The region of slot s of rank r's slab, as mapped here. */
static unsigned char *slot_base(struct pgas_conduit *c, unsigned r, unsigned s)
{
	struct shm_priv *priv = c->priv;

	return (unsigned char *)priv->maps.region[r] + (size_t)s * c->layout.size;
}

static int shm_ep_open(struct pgas_conduit *c, struct pgas_conduit_xep *x, char *msg,
		       size_t msglen)
{
	struct shm_priv *priv = c->priv;
	unsigned s = priv->next_slot;

	if (s >= priv->slots) {
		snprintf(msg, msglen, "this rank has used its %u endpoint slots (PGAS_EP_MAX)",
			 priv->slots);
		return PGAS_ERR_RESOURCE;
	}
	priv->next_slot++;
	x->eid = c->nranks + c->rank * (priv->slots - 1) + s - 1;
	x->owner = c->rank;
	x->map = NULL;
	x->fd = -1;
	pgas_conduit_set_region(&x->ring, slot_base(c, c->rank, s), &c->layout);
	pgas_conduit_init_ctrl(c, x->ring.ctrl, x->eid);
	return PGAS_OK;
}

static void shm_ep_close(struct pgas_conduit *c, struct pgas_conduit_xep *x)
{
	unsigned char *base = (unsigned char *)x->ring.ctrl;

	__atomic_store_n(&x->ring.ctrl->magic, SLOT_CLOSED, __ATOMIC_RELEASE);
	/* Its memory goes back; the control page stays to say it is closed
	 * (a late sender writes into fresh zero pages that nobody reads). */
	madvise(base + c->layout.mbox_off[0], c->layout.size - c->layout.mbox_off[0],
		MADV_REMOVE);
}

static int shm_ep_resolve(struct pgas_conduit *c, unsigned eid, struct pgas_conduit_xep *x,
			  char *msg, size_t msglen)
{
	struct shm_priv *priv = c->priv;
	unsigned k = priv->slots - 1, r, s;
	uint32_t magic;

	if (eid < c->nranks || eid >= c->max_eids || !k) {
		snprintf(msg, msglen, "endpoint %u out of range", eid);
		return PGAS_ERR_NOT_READY;
	}
	r = (eid - c->nranks) / k;
	s = (eid - c->nranks) % k + 1;
	if (!priv->maps.region[r]) {	/* another host's (ofi): not mapped here */
		snprintf(msg, msglen, "endpoint %u belongs to rank %u, not mapped here", eid, r);
		return PGAS_ERR_NOT_READY;
	}
	pgas_conduit_set_region(&x->ring, slot_base(c, r, s), &c->layout);
	magic = __atomic_load_n(&x->ring.ctrl->magic, __ATOMIC_ACQUIRE);
	if (magic == SLOT_CLOSED)
		return PGAS_ERR_GONE;
	if (magic != PGAS_ABI_MAGIC || x->ring.ctrl->rank != eid) {
		snprintf(msg, msglen, "endpoint %u is not created (yet)", eid);
		return PGAS_ERR_NOT_READY;
	}
	x->eid = eid;
	x->owner = r;
	x->map = NULL;
	x->fd = -1;
	return PGAS_OK;
}

static bool shm_ep_closed(struct pgas_conduit *c, const struct pgas_conduit_xep *x)
{
	(void)c;
	return __atomic_load_n(&x->ring.ctrl->magic, __ATOMIC_ACQUIRE) == SLOT_CLOSED;
}

static void shm_ep_unmap(struct pgas_conduit *c, struct pgas_conduit_xep *x)
{
	(void)c;
	(void)x;	/* the slab stays mapped until close */
}

const struct pgas_conduit_ops pgas_shm_ops = {
	.name = "shm",
	.probe = shm_probe,
	.open = shm_open_job,
	.attach = shm_attach,
	.close = shm_close,
	.region = shm_region,
	.forked = shm_forked,
	.wait_fd = shm_wait_fd,
	.ep_open = shm_ep_open,
	.ep_close = shm_ep_close,
	.ep_resolve = shm_ep_resolve,
	.ep_closed = shm_ep_closed,
	.ep_unmap = shm_ep_unmap,
};
