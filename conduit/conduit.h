/* SPDX-License-Identifier: MIT */
/*
 * conduit.h - the boundary between libpgas and a device.
 *
 * A conduit sets up, for every rank of the job, the rings of pgas_abi.h
 * and the segment, mapped into this process.  Only setup lives behind this
 * boundary; the fast path reads the mapped memory directly.
 */
#ifndef PGAS_CONDUIT_H
#define PGAS_CONDUIT_H

#include <stddef.h>
#include <stdint.h>
#include "../uapi/pgas_abi.h"

enum pgas_conduit_kind {
	PGAS_CONDUIT_AUTO,	/* kmod if /dev/pgas exists, else shm */
	PGAS_CONDUIT_SHM,
	PGAS_CONDUIT_KMOD,
};

/* Sizes every rank of a job must agree on (they come from the env table). */
struct pgas_geometry {
	uint32_t mbox_slots;
	uint32_t notify_entries;
	uint32_t bounce_bufs;
	uint32_t bounce_size;
};

/* One rank's resources as mapped in this process. */
struct pgas_conduit_ep {
	struct pgas_ctrl_page *ctrl;
	struct pgas_mbox_slot *mbox[PGAS_NCHAN];
	struct pgas_notify_entry *notify;
	unsigned char *bounce;
	unsigned char *seg;	/* local mapping of the segment */
	uint64_t seg_remote;	/* its address in the owner's process */
	size_t seg_size;
};

struct pgas_conduit {
	int kind;		/* enum pgas_conduit_kind actually used */
	unsigned rank;
	unsigned nranks;
	struct pgas_geometry geo;
	struct pgas_region_layout layout;
	struct pgas_conduit_ep *eps;	/* [nranks] */
	void *priv;
};

/* The layout of pgas_abi.h for a geometry. */
static inline void pgas_geometry_layout(const struct pgas_geometry *geo, unsigned nranks,
					struct pgas_region_layout *out)
{
	pgas_region_layout(geo->mbox_slots, geo->notify_entries, geo->bounce_bufs,
			   geo->bounce_size, nranks, out);
}

/* Bounce buffer of 'src' on channel 'chan', index i, inside an area. */
static inline unsigned char *pgas_bounce_buf(unsigned char *area,
					     const struct pgas_geometry *geo,
					     unsigned src, unsigned chan,
					     unsigned i)
{
	size_t one = PGAS_CACHELINE + (size_t)geo->bounce_size;

	return area + ((size_t)(src * PGAS_NCHAN + chan) * geo->bounce_bufs + i) * one;
}

/*
 * Both return 0 or a negative PGAS_ERR_* with msg filled.
 *  open:   joins the job, maps every rank's ring region (c->eps[].ctrl etc).
 *  attach: creates this rank's segment of segsize bytes and maps every
 *          rank's (c->eps[].seg etc); collective.
 *  close:  unmaps everything.
 */
int pgas_shm_open(struct pgas_conduit *c, char *msg, size_t msglen);
int pgas_shm_attach(struct pgas_conduit *c, size_t segsize, char *msg, size_t msglen);
void pgas_shm_close(struct pgas_conduit *c);

#endif /* PGAS_CONDUIT_H */
