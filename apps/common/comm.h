/* SPDX-License-Identifier: MIT */
/*
 * What the applications (apps/, docs/apps.md) ask of a communication
 * library: one file per library (comm_pgas.c, comm_shmem.c, comm_mpi.c)
 * behind these calls, the rest of each program shared.  Offsets are byte
 * offsets into the symmetric area every rank allocated with comm_area, the
 * same size on every rank.  Any failure ends the job with a message naming
 * the program and the call.
 */
#ifndef APPS_COMM_H
#define APPS_COMM_H

#include <stddef.h>
#include <stdint.h>

/* The application's name for messages (each program defines it). */
extern const char comm_program[];

/* Starts the library; then this rank's symmetric area of area_bytes. */
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

/*
 * A put of n bytes from src to rank's area at off, after which the 64-bit
 * word at sig_off in rank's area grows by one; src may be reused on
 * return.  MPI: a send matched to a comm_expect, the word unused.
 */
void comm_put_signal(unsigned rank, size_t off, const void *src, size_t n, size_t sig_off);
/* Until each of the n words at sig_offs in my area is at least value.  MPI:
 * until every send and posted receive of this rank is complete. */
void comm_wait_signals(const size_t *sig_offs, unsigned n, uint64_t value);

/* All-to-all of block bytes per rank between two areas' offsets. */
void comm_exchange(size_t dst_off, size_t src_off, size_t block);
/* In place over every rank: sum, or max, of n doubles. */
void comm_sum(double *v, unsigned n);
void comm_max(double *v, unsigned n);
void comm_sum_u64(uint64_t *v, unsigned n);
void comm_barrier(void);
/* Ends the job, called by every rank: rc is its exit status. */
void comm_finish(int rc) __attribute__((noreturn));
void comm_fail(const char *call, const char *what) __attribute__((noreturn));

#endif
