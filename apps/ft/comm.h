/* SPDX-License-Identifier: MIT */
/*
 * What FT asks of a communication library: one file per library
 * (comm_pgas.c, comm_shmem.c, comm_mpi.c) behind these calls, the rest of
 * the program shared (docs/apps.md).  Offsets are byte offsets into the
 * symmetric area every rank allocated with comm_init.  Any failure ends
 * the job with a message naming the call.
 */
#ifndef FT_COMM_H
#define FT_COMM_H

#include <stddef.h>

/* Starts the library; *area: this rank's symmetric area of area_bytes. */
void comm_init(int *argc, char ***argv);
void *comm_area(size_t area_bytes);
unsigned comm_rank(void);
unsigned comm_size(void);
extern const char comm_name[];	/* "libpgas", "OpenSHMEM (libpgas)", "MPI" */

/*
 * Non-blocking transfer of n bytes from src to rank's area at off.  src
 * stays untouched until comm_complete.  One-sided libraries put; MPI sends,
 * matched to the comm_expect its target posted for it, in the same order.
 */
void comm_put(unsigned rank, size_t off, const void *src, size_t n);
/* MPI: posts the receive of the next comm_put from rank (into off).
 * One-sided libraries: nothing. */
void comm_expect(unsigned rank, size_t off, size_t n);
/* Every comm_put of this rank is done, and every one made to it has
 * arrived (quiet and barrier; MPI: wait for all requests). */
void comm_complete(void);

/* All-to-all of block bytes per rank between two areas' offsets. */
void comm_exchange(size_t dst_off, size_t src_off, size_t block);
/* In place over every rank: sum, or max, of n doubles. */
void comm_sum(double *v, unsigned n);
void comm_max(double *v, unsigned n);
void comm_barrier(void);
/* Ends the job; rc is this rank's exit status. */
void comm_finish(int rc) __attribute__((noreturn));
void comm_fail(const char *call, const char *what) __attribute__((noreturn));

#endif
