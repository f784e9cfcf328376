// SPDX-License-Identifier: MIT
/*
 * conduits.c - the conduits libpgas is built with, and the choice between
 * them (PGAS_CONDUIT).  The only file that lists them.
 */
#include "boot.h"
#include "conduit.h"

/* In the order PGAS_CONDUIT=auto tries them: the first that probes wins. */
static const struct pgas_conduit_ops *const conduits[] = {
	&pgas_kmod_ops,
	&pgas_shm_ops,
	NULL,
};

const struct pgas_conduit_ops *pgas_conduit_choose(void)
{
	const struct pgas_conduit_ops *const *o;

	for (o = conduits; *o; o++)
		if (pgas__cfg.conduit == PGAS_CONDUIT_AUTO ? (*o)->probe()
							   : pgas__cfg.conduit == (*o)->kind)
			return *o;
	return &pgas_shm_ops;	/* auto: shm probes everywhere */
}
