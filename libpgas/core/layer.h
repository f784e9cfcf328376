/* SPDX-License-Identifier: MIT */
/*
 * layer.h - how a layer above the core (the collectives today, an
 * OpenSHMEM layer later) plugs into it, as UCX's
 * uct_worker_progress_register does: the core calls its hooks and never
 * names it.  libpgas/layers.c is the one file that lists the layers.
 *
 * Progress flows one way.  A layer with work in flight sets its bit in
 * pgas__g.pending (pgas__set_pending), the one word the inline poll tests
 * with send_block; the core's slow paths then call the
 * progress hook of every layer whose bit is set.  Hooks are function
 * pointers, off the fast path.
 */
#ifndef PGAS_LAYER_H
#define PGAS_LAYER_H

#include <stddef.h>

struct pgas__layer {
	const char *name;
	unsigned pending_bit;	/* its bit of pgas__g.pending (below PGAS__PENDING_BARRIER) */
	/* Bytes of its part of every rank's library area (behind the segment). */
	size_t (*area_bytes)(unsigned nranks);
	/* phase 0: before pgas_attach's barrier; phase 1: after it. */
	int (*attach)(int phase, char *msg, size_t len);
	/* Advances its work in flight; returns how many calls completed. */
	int (*progress)(void);
	/* pgas_exit(0), before the rank announces that it leaves: record how
	 * far it went and abandon what is outstanding (peers waiting for it
	 * then fail with PGAS_ERR_GONE instead of hanging). */
	void (*leave)(void);
	/* PGAS_STATS: its counters' lines, at the rank's end (NULL: none). */
	void (*report)(FILE *f);
};

/* layers.c: every layer, in area order, NULL-terminated. */
extern const struct pgas__layer *const pgas__layers[];

/* layer.c */
size_t pgas__layers_area_bytes(unsigned nranks);	/* rank state + every layer */
char *pgas__layer_area(const struct pgas__layer *l, unsigned job_rank);
int pgas__layers_attach(int phase, char *msg, size_t len);
int pgas__layers_progress(void);
void pgas__layers_leave(void);
void pgas__layers_report(FILE *f);

#endif /* PGAS_LAYER_H */
