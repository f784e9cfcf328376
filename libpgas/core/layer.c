// SPDX-License-Identifier: MIT
/*
 * layer.c - the core's side of the layers (layer.h): the library area
 * behind every rank's segment, and the calls of their hooks.
 *
 * The library area of a rank: its rank-state page (core), then each
 * layer's part in the order of pgas__layers[], page aligned.
 */
#include "internal.h"
#include "layer.h"

#define STATE_AREA ((size_t)4096)	/* struct pgas__rank_state */

static size_t part_bytes(const struct pgas__layer *l, unsigned nranks)
{
	return PGAS__ALIGN_UP(l->area_bytes(nranks), 4096);
}

size_t pgas__layers_area_bytes(unsigned nranks)
{
	size_t n = STATE_AREA;

	for (const struct pgas__layer *const *l = pgas__layers; *l; l++)
		n += part_bytes(*l, nranks);
	return n;
}

struct pgas__rank_state *pgas__rank_state(unsigned r)
{
	const struct pgas__peer *p = &pgas__g.peers[r];

	return (struct pgas__rank_state *)(p->seg_remote + p->seg_delta + p->seg_size);
}

char *pgas__layer_area(const struct pgas__layer *l, unsigned r)
{
	char *a = (char *)pgas__rank_state(r) + STATE_AREA;

	for (const struct pgas__layer *const *i = pgas__layers; *i != l; i++)
		a += part_bytes(*i, pgas__g.nranks);
	return a;
}

int pgas__layers_attach(int phase, char *msg, size_t len)
{
	int rc = PGAS_OK;

	for (const struct pgas__layer *const *l = pgas__layers; *l && !rc; l++)
		rc = (*l)->attach(phase, msg, len);
	return rc;
}

int pgas__layers_progress(void)
{
	int n = 0;

	for (const struct pgas__layer *const *l = pgas__layers; *l; l++)
		if ((pgas__pending() & ~PGAS__PENDING_BARRIER) & (*l)->pending_bit)
			n += (*l)->progress();
	return n;
}

void pgas__layers_leave(void)
{
	for (const struct pgas__layer *const *l = pgas__layers; *l; l++)
		(*l)->leave();
}

void pgas__layers_report(FILE *f)
{
	for (const struct pgas__layer *const *l = pgas__layers; *l; l++)
		if ((*l)->report)
			(*l)->report(f);
}
