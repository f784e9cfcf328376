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

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary point, from a monotonic clock (as other
 * implementations' shmemx_wtime, which their tests and benchmarks use). */
double shmemx_wtime(void);

#ifdef __cplusplus
}
#endif

#endif /* SHMEMX_H */
