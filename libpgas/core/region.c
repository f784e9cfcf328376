// SPDX-License-Identifier: MIT
/*
 * region.c - a second segment per rank (pgas_segment_register): memory the
 * process already has, such as a program's .data and .bss, that peers
 * reach with the owner's addresses as they reach the segment.
 *
 * The inline translation (pgas_fast.h, pgas__ep_map) tries the segment and
 * only on a miss the region, from the primary's peer entries (reg_*), so
 * the segment's path costs what it did.  The entries are written once,
 * collectively, before any rank returns from the registration, and only
 * read afterwards.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"
#include "conduit.h"

static bool registered;

/* Do [a, a+n) and [b, b+m) meet? */
static bool overlap(uintptr_t a, size_t n, uintptr_t b, size_t m)
{
	return a < b + m && b < a + n;
}

int pgas_segment_register(void *addr, size_t len)
{
	static const char call[] = "pgas_segment_register";
	struct pgas_conduit *c = &pgas__job.conduit;
	const struct pgas_conduit_ep *own;
	struct pgas_conduit_region *out;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char msg[256];
	int rc = pgas__check_attached(call);

	if (rc)
		return rc;
	if (registered)
		return pgas__err(PGAS_ERR_STATE, call,
				 "called twice (one region per rank: PGAS_MAX_REGIONS %d)",
				 PGAS_MAX_REGIONS);
	if (!c->ops->region)
		return pgas__err(PGAS_ERR_STATE, call, "the %s conduit cannot register memory",
				 c->ops->name);
	if (!addr && len)
		return pgas__err(PGAS_ERR_INVAL, call, "addr is NULL, len %zu", len);
	if (len >> 12 > UINT32_MAX)
		return pgas__err(PGAS_ERR_SIZE, call, "len %zu over the 16 TiB limit", len);
	if (addr && !len)
		return pgas__err(PGAS_ERR_INVAL, call, "len is 0 for addr %p (NULL, 0: none)",
				 addr);
	if ((uintptr_t)addr % page || len % page)
		return pgas__err(PGAS_ERR_INVAL, call,
				 "addr %p or len %zu is not a multiple of the page size %zu",
				 addr, len, page);
	if ((uintptr_t)addr + len < (uintptr_t)addr)
		return pgas__err(PGAS_ERR_INVAL, call, "[%p, +%zu) wraps", addr, len);
	own = &c->eps[c->rank];
	if (len && overlap((uintptr_t)addr, len, (uintptr_t)own->seg_remote, own->seg_size))
		return pgas__err(PGAS_ERR_INVAL, call,
				 "[%p, +%zu) overlaps this rank's segment [%p, +%zu)", addr, len,
				 (void *)(uintptr_t)own->seg_remote, own->seg_size);
	out = calloc(c->nranks, sizeof(*out));
	if (!out)
		return pgas__err(PGAS_ERR_NOMEM, call, "no memory for %u ranks", c->nranks);
	/* Collective from here: a failure anywhere fails every rank. */
	rc = c->ops->region(c, addr, len, out, msg, sizeof(msg));
	registered = true;	/* once per job, even failed: the conduit's part ran */
	if (rc) {
		free(out);
		return pgas__err(rc, call, "%s", msg);
	}
	for (unsigned r = 0; r < c->nranks; r++) {
		struct pgas__peer *p = &pgas__g.peers[r];

		/* A rank that is not mapped: the remote path checks it (rma_ref.c). */
		if (out[r].size)
			pgas__ref_region(r, out[r].remote, out[r].size);
		if (!out[r].size || !pgas__rank_mapped(r))
			continue;
		p->reg_remote = (char *)(uintptr_t)out[r].remote;
		p->reg_delta = (intptr_t)out[r].local - (intptr_t)out[r].remote;
		p->reg_4k = (uint32_t)(out[r].size >> 12);
	}
	free(out);
	/* Nobody addresses a peer's region before the peer has it. */
	return pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
}

int pgas_region_info(unsigned rank, pgas_seginfo_t *info)
{
	static const char call[] = "pgas_region_info";
	int rc = pgas__check_rank(call, rank);

	if (rc)
		return rc;
	if (!info)
		return pgas__err(PGAS_ERR_INVAL, call, "info is NULL");
	/* Every rank's, mapped here or not (rma_ref.c keeps them). */
	char *seg, *reg;
	size_t seg_size, reg_size;

	pgas__ref_bounds(rank, &seg, &seg_size, &reg, &reg_size);
	info->addr = reg_size ? reg : NULL;
	info->size = reg_size;
	return PGAS_OK;
}
