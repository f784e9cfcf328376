/* SPDX-License-Identifier: MIT */
/*
 * pgas_layout.h - the ring region layout of pgas_abi.h, for user space.
 *
 * Every object of a ring region is aligned to the page size of the running
 * kernel (4, 16 or 64 KiB), not to a size fixed in the ABI; pgas.ko lays
 * the region out the same way at its PAGE_SIZE (kmod/pgas.h) and reports
 * it from PGAS_IOC_RINGS_CREATE.
 */
#ifndef PGAS_LAYOUT_H
#define PGAS_LAYOUT_H

#include <stdint.h>
#include <unistd.h>
#include "pgas_abi.h"

static inline unsigned long long pgas_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (unsigned long long)ps : PGAS_MIN_PAGE_SIZE;
}

static inline unsigned long long pgas_align_page(unsigned long long x, unsigned long long ps)
{
	return (x + ps - 1) & ~(ps - 1);
}

/* The layout at page size ps. */
static inline void pgas_region_layout_ps(unsigned long long ps, __u32 mbox_slots,
					 __u32 notify_entries, __u32 bounce_bufs,
					 __u32 bounce_size, __u32 nranks,
					 struct pgas_region_layout *l)
{
	unsigned long long off = ps;	/* the control page */
	unsigned int c;

	l->ctrl_off = 0;
	for (c = 0; c < PGAS_NCHAN; c++) {
		l->mbox_off[c] = off;
		off = pgas_align_page(off + (unsigned long long)mbox_slots * PGAS_SLOT_SIZE, ps);
	}
	l->notify_off = off;
	off = pgas_align_page(off + (unsigned long long)notify_entries *
			      sizeof(struct pgas_notify_entry), ps);
	l->bounce_off = off;
	off += (unsigned long long)nranks * PGAS_NCHAN * bounce_bufs *
	       (PGAS_CACHELINE + (unsigned long long)bounce_size);
	l->size = pgas_align_page(off, ps);
}

/* The layout at the running kernel's page size. */
static inline void pgas_region_layout(__u32 mbox_slots, __u32 notify_entries,
				      __u32 bounce_bufs, __u32 bounce_size, __u32 nranks,
				      struct pgas_region_layout *l)
{
	pgas_region_layout_ps(pgas_page_size(), mbox_slots, notify_entries, bounce_bufs,
			      bounce_size, nranks, l);
}

#endif /* PGAS_LAYOUT_H */
