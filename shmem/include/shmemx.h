/* SPDX-License-Identifier: MIT */
/*
 * shmemx.h - extensions of this OpenSHMEM beyond the 1.5 specification.
 *
 * Programs written for other implementations often include <shmemx.h>
 * beside <shmem.h> without using an extension; they build here too.  The
 * names below are ours (docs/shmem.md, "Extensions").
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

/* Set when a program can test for this implementation's extensions. */
#define SHMEMX_LIBPGAS 1

#endif /* SHMEMX_H */
