// SPDX-License-Identifier: MIT
/* layout.c - where an endpoint's objects lie in its ring region. */
#include "conduit.h"

#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((size_t)(a) - 1))

void pgas_region_layout(const struct pgas_geometry *geo, unsigned nranks,
			struct pgas_region_layout *out)
{
	size_t off = 0;

	_Static_assert(sizeof(struct pgas_ctrl_page) <= PGAS_PAGE_SIZE,
		       "control page must fit in one page");
	_Static_assert(sizeof(struct pgas_mbox_slot) == PGAS_SLOT_SIZE, "slot size");
	_Static_assert(sizeof(struct pgas_notify_entry) == 16, "notification size");

	out->ctrl_off = off;
	off += PGAS_PAGE_SIZE;
	for (unsigned c = 0; c < PGAS_NCHAN; c++) {
		out->mbox_off[c] = off;
		off = ALIGN_UP(off + (size_t)geo->mbox_slots * PGAS_SLOT_SIZE, PGAS_PAGE_SIZE);
	}
	out->notify_off = off;
	off = ALIGN_UP(off + (size_t)geo->notify_entries * sizeof(struct pgas_notify_entry),
		       PGAS_PAGE_SIZE);
	out->bounce_off = off;
	off += (size_t)nranks * PGAS_NCHAN * geo->bounce_bufs *
	       (PGAS_CACHELINE + (size_t)geo->bounce_size);
	out->size = ALIGN_UP(off, PGAS_PAGE_SIZE);
}
