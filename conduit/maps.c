// SPDX-License-Identifier: MIT
/* maps.c - the per-rank mappings both conduits keep. */
#include <stdlib.h>
#include <sys/mman.h>
#include "conduit.h"

int pgas_conduit_maps_init(struct pgas_conduit_maps *m, unsigned nranks)
{
	m->region = calloc(nranks, sizeof(*m->region));
	m->seg = calloc(nranks, sizeof(*m->seg));
	m->seg_len = calloc(nranks, sizeof(*m->seg_len));
	return m->region && m->seg && m->seg_len ? 0 : -1;
}

void pgas_conduit_maps_release(struct pgas_conduit_maps *m, unsigned nranks, size_t region_len)
{
	for (unsigned r = 0; r < nranks; r++) {
		if (m->region && m->region[r])
			munmap(m->region[r], region_len);
		if (m->seg && m->seg[r])
			munmap(m->seg[r], m->seg_len[r]);
	}
	free(m->region);
	free(m->seg);
	free(m->seg_len);
	m->region = m->seg = NULL;
	m->seg_len = NULL;
}
