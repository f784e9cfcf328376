// SPDX-License-Identifier: MIT
/*
 * layers.c - the layers above the core (layer.h), in the order of their
 * parts of the library area.  The only file that names one.
 */
#include "coll.h"
#include "layer.h"

const struct pgas__layer *const pgas__layers[] = {
	&pgas__coll_layer,
	NULL,
};
