/* SPDX-License-Identifier: MIT */
/*
 * bootpmix.h - the boot layer over PMIx (pmix.c): the same operations as
 * pgasrun's relay (bootstrap.h), for ranks that a PMIx launcher started
 * (mpirun of Open MPI, prterun, srun --mpi=pmix): PMIX_RANK and
 * PMIX_NAMESPACE in the environment, none of pgasrun's variables.
 *
 * bootstrap.c's functions call these when pgas_boot_join found such a
 * launcher.  Built where `pkg-config --exists pmix` (the Makefile defines
 * PGAS_HAVE_PMIX); libpmix itself is opened at run time (dlopen), so that
 * programs link as before and a libpgas with PMIx runs where libpmix is
 * not installed.  Without PGAS_HAVE_PMIX, a rank started by a PMIx
 * launcher fails pgas_init with a message that says so (rather than run as
 * one of N separate one-rank jobs).
 */
#ifndef PGAS_BOOTPMIX_H
#define PGAS_BOOTPMIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "pgas.h"

/* Whether a PMIx launcher started this process (its variables are set). */
static inline bool pgas__pmix_launched(void)
{
	return getenv("PMIX_RANK") && getenv("PMIX_NAMESPACE");
}

#ifdef PGAS_HAVE_PMIX
int pgas__pmix_join(unsigned *rank, unsigned *nranks, char *msg, size_t msglen);
int pgas__pmix_allgather(const void *blob, size_t len, int fd, void *out, int *fds,
			 char *msg, size_t msglen);
void pgas__pmix_leave(void);
void pgas__pmix_tell(uint32_t what, int code);
void pgas__pmix_set_poll(void (*poll)(void *), void *arg);
void pgas__pmix_on_died(void (*fn)(unsigned rank, const char *why));
unsigned pgas__pmix_host_of(unsigned rank);
unsigned pgas__pmix_nhosts(void);
bool pgas__pmix_host_leader(void);
int pgas__pmix_host_share(const void *blob, size_t len, int fd, void *out, int *outfd,
			  char *msg, size_t msglen);
/* One line: "pmix (PMIx 4.2.2, namespace N, rank R of N, L on this host)". */
void pgas__pmix_describe(char *out, size_t len);
#define PGAS__PMIX_BUILT "built (libpmix opened at run time)"
#else
static inline int pgas__pmix_join(unsigned *rank, unsigned *nranks, char *msg, size_t msglen)
{
	(void)rank;
	(void)nranks;
	snprintf(msg, msglen, "started by a PMIx launcher (PMIX_NAMESPACE=%s PMIX_RANK=%s), but "
		 "this libpgas was built without PMIx (install libpmix-dev and rebuild, or "
		 "start the job with pgasrun)", getenv("PMIX_NAMESPACE"), getenv("PMIX_RANK"));
	return PGAS_ERR_INVAL;
}
static inline int pgas__pmix_allgather(const void *blob, size_t len, int fd, void *out,
				       int *fds, char *msg, size_t msglen)
{
	(void)blob, (void)len, (void)fd, (void)out, (void)fds;
	snprintf(msg, msglen, "no PMIx in this build");
	return PGAS_ERR_STATE;
}
static inline void pgas__pmix_leave(void) {}
static inline void pgas__pmix_tell(uint32_t what, int code) { (void)what, (void)code; }
static inline void pgas__pmix_set_poll(void (*poll)(void *), void *arg) { (void)poll, (void)arg; }
static inline void pgas__pmix_on_died(void (*fn)(unsigned rank, const char *why)) { (void)fn; }
static inline void pgas__pmix_describe(char *out, size_t len) { snprintf(out, len, "none"); }
static inline unsigned pgas__pmix_host_of(unsigned rank) { (void)rank; return 0; }
static inline unsigned pgas__pmix_nhosts(void) { return 1; }
static inline bool pgas__pmix_host_leader(void) { return true; }
static inline int pgas__pmix_host_share(const void *blob, size_t len, int fd, void *out,
					int *outfd, char *msg, size_t msglen)
{
	(void)blob, (void)len, (void)fd, (void)out, (void)outfd;
	snprintf(msg, msglen, "no PMIx in this build");
	return PGAS_ERR_STATE;
}
#define PGAS__PMIX_BUILT "not built (no pkg-config pmix at build time)"
#endif

#endif /* PGAS_BOOTPMIX_H */
