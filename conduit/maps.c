// SPDX-License-Identifier: MIT
/* maps.c - the per-rank mappings both conduits keep. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "conduit.h"
#include "pgas.h"

void *pgas_conduit_map_aligned(size_t len, int flags, int fd)
{
	const uintptr_t a = PGAS_SEGMENT_ALIGN;
	char *res, *at;
	size_t head;

	if (len > SIZE_MAX - a)
		return MAP_FAILED;
	res = mmap(NULL, len + a, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return MAP_FAILED;
	at = (char *)(((uintptr_t)res + a - 1) & ~(a - 1));
	if (mmap(at, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0) == MAP_FAILED) {
		int e = errno;

		munmap(res, len + a);
		errno = e;
		return MAP_FAILED;
	}
	head = (size_t)(at - res);
	if (head)
		munmap(res, head);
	if (a - head)
		munmap(at + len, a - head);
	return at;
}

int pgas_conduit_maps_init(struct pgas_conduit_maps *m, unsigned nranks)
{
	m->region = calloc(nranks, sizeof(*m->region));
	m->seg = calloc(nranks, sizeof(*m->seg));
	m->seg_len = calloc(nranks, sizeof(*m->seg_len));
	m->xreg = calloc(nranks, sizeof(*m->xreg));
	m->xreg_len = calloc(nranks, sizeof(*m->xreg_len));
	return m->region && m->seg && m->seg_len && m->xreg && m->xreg_len ? 0 : -1;
}

static bool inside(const void *p, const void *base, size_t len)
{
	return base && (const char *)p >= (const char *)base &&
	       (const char *)p < (const char *)base + len;
}

void pgas_conduit_maps_release(struct pgas_conduit_maps *m, unsigned nranks, size_t region_len)
{
	for (unsigned r = 0; r < nranks; r++) {
		if (m->region && m->region[r] &&
		    !inside(m->region[r], m->host_rings, m->host_rings_len))
			munmap(m->region[r], region_len);
		if (m->seg && m->seg[r] && !inside(m->seg[r], m->host_segs, m->host_segs_len))
			munmap(m->seg[r], m->seg_len[r]);
		if (m->xreg && m->xreg[r])
			munmap(m->xreg[r], m->xreg_len[r]);
	}
	free(m->xreg);
	free(m->xreg_len);
	m->xreg = NULL;
	m->xreg_len = NULL;
	free(m->region);
	free(m->seg);
	free(m->seg_len);
	m->region = m->seg = NULL;
	m->seg_len = NULL;
	if (m->host_rings)
		munmap(m->host_rings, m->host_rings_len);
	if (m->host_segs)
		munmap(m->host_segs, m->host_segs_len);
	m->host_rings = m->host_segs = NULL;
}

int pgas_conduit_map_segment(struct pgas_conduit *c, struct pgas_conduit_maps *m, unsigned r,
			     const struct pgas_conduit_segment *s, void *mine, int fd, off_t off,
			     char *msg, size_t msglen)
{
	struct pgas_conduit_ep *ep = &c->eps[r];

	ep->seg_remote = s->addr;
	ep->seg_size = s->size;
	if (r == c->rank) {
		ep->seg = mine;
		return PGAS_OK;
	}
	ep->seg = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (ep->seg == MAP_FAILED) {
		ep->seg = NULL;
		snprintf(msg, msglen, "mapping rank %u's segment: %s", r, strerror(errno));
		return errno == ENOMEM ? PGAS_ERR_NOMEM : PGAS_ERR_SYS;
	}
	m->seg[r] = ep->seg;
	m->seg_len[r] = s->size;
	return PGAS_OK;
}

int pgas_conduit_map_regions(struct pgas_conduit *c, struct pgas_conduit_maps *m,
			     const struct pgas_conduit_segment *all, const int *fds, int fd,
			     void *mine, struct pgas_conduit_region *out, char *msg,
			     size_t msglen)
{
	for (unsigned r = 0; r < c->nranks; r++)
		if (all[r].addr == PGAS_CONDUIT_REGION_FAILED) {
			if (r != c->rank)
				snprintf(msg, msglen, "rank %u could not register its region", r);
			return PGAS_ERR_SYS;
		}
	for (unsigned r = 0; r < c->nranks; r++) {
		void *p;

		out[r].remote = all[r].addr;
		out[r].size = all[r].size;
		if (!all[r].size)
			continue;
		if (r == c->rank) {
			out[r].local = mine;
			continue;
		}
		p = mmap(NULL, all[r].size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fds ? fds[r] : fd, fds ? 0 : (off_t)all[r].cookie);
		if (p == MAP_FAILED) {
			snprintf(msg, msglen, "mapping rank %u's region: %s", r, strerror(errno));
			return errno == ENOMEM ? PGAS_ERR_NOMEM : PGAS_ERR_SYS;
		}
		m->xreg[r] = p;
		m->xreg_len[r] = all[r].size;
		out[r].local = p;
	}
	return PGAS_OK;
}
