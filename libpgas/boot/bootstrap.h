/* SPDX-License-Identifier: MIT */
/*
 * bootstrap.h - the out-of-band exchange between pgasrun and its ranks.
 *
 * pgasrun gives each rank one end of a SOCK_SEQPACKET socketpair (its
 * number in PGAS_BOOT_FD).  The only operation is an all-gather: every rank
 * sends one struct pgas_boot_msg (optionally with one file descriptor as
 * SCM_RIGHTS); once all ranks have sent theirs, pgasrun sends each rank all
 * nranks messages in rank order, each with its descriptor.  An all-gather
 * of empty blobs is a barrier.  pgasrun knows nothing of what the blobs
 * mean: it is a relay.
 */
#ifndef PGAS_BOOTSTRAP_H
#define PGAS_BOOTSTRAP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PGAS_BOOT_MAGIC 0x50424f54u	/* "PBOT" */
#define PGAS_BOOT_MAX_BLOB 240

struct pgas_boot_msg {
	uint32_t magic;
	uint32_t src;		/* sender's rank (filled by pgasrun on relay) */
	uint32_t len;		/* bytes of blob used */
	uint32_t has_fd;	/* PGAS_BOOT_HAS_FD, PGAS_BOOT_TAKES_BATCH */
	unsigned char blob[PGAS_BOOT_MAX_BLOB];
};

/*
 * has_fd's bits.  HAS_FD: a descriptor travels with the message (pgasrun
 * sets it on relay from what it received).  TAKES_BATCH, in a rank's own
 * message: it reads relays of up to PGAS_BOOT_BATCH messages in one
 * sendmsg (their descriptors in order, one per HAS_FD), so that an
 * all-gather of n ranks costs pgasrun n * n / PGAS_BOOT_BATCH system calls,
 * not n * n; a rank of an older libpgas gets one message at a time.
 */
#define PGAS_BOOT_HAS_FD 1u
#define PGAS_BOOT_TAKES_BATCH 2u
#define PGAS_BOOT_BATCH 64

/* Environment that pgasrun sets for every rank. */
#define PGAS_ENV_RANK "PGAS_RANK"
#define PGAS_ENV_NRANKS "PGAS_NRANKS"
#define PGAS_ENV_BOOT_FD "PGAS_BOOT_FD"
#define PGAS_ENV_LAUNCHER "PGAS_LAUNCHER_PID"	/* who may send PGAS_BOOT_EXIT_SIGNAL */
/* Set when the launcher created a pgas.ko job for the ranks. */
#define PGAS_ENV_JOB_ID "PGAS_JOB_ID"
#define PGAS_ENV_JOB_KEY "PGAS_JOB_KEY"	/* hexadecimal */

/* Sends/receives one message with an optional fd (-1 = none). */
int pgas_boot_send(int sock, const struct pgas_boot_msg *m, int fd);
/* Returns 1 on a message, 0 on EOF, -errno on error; *fd = -1 if none. */
int pgas_boot_recv(int sock, struct pgas_boot_msg *m, int *fd);
/*
 * Up to PGAS_BOOT_BATCH messages in one packet: m[i] with fds[i] (-1 =
 * none; HAS_FD must say the same).  recv_batch returns how many it read
 * (at most max), 0 on EOF, -errno on error (-EPROTO: a malformed packet,
 * its descriptors closed); fds[i] = -1 where none.
 */
int pgas_boot_send_batch(int sock, const struct pgas_boot_msg *const *m, const int *fds,
			 unsigned n);
int pgas_boot_recv_batch(int sock, struct pgas_boot_msg *m, unsigned max, int *fds);

/*
 * Raises the soft RLIMIT_NOFILE to want descriptors, as far as the hard
 * limit allows; never lowers it.  An all-gather with descriptors brings
 * one from every rank of the host at once, and pgasrun holds two sockets
 * and a relayed descriptor per rank: under the usual soft limit of 1024 a
 * job of 1024 ranks failed with EMFILE.  pgas_boot_join calls it for its
 * job; pgasrun for itself, and gives its ranks the limit it found.
 */
void pgas_boot_nofile(unsigned long want);

/* Rank side: join from the environment (nranks = 1 without pgasrun). */
int pgas_boot_join(unsigned *rank, unsigned *nranks, char *msg, size_t msglen);
/*
 * All-gather of len bytes and one fd (-1 for none) per rank.  out: nranks *
 * len bytes; fds (may be NULL when no fd is sent): nranks descriptors the
 * caller must close (-1 where a rank sent none).
 */
int pgas_boot_allgather(const void *blob, size_t len, int fd, void *out, int *fds,
			char *msg, size_t msglen);
void pgas_boot_leave(void);

/*
 * Rank side, one-way notices (no reply; no effect without pgasrun): a
 * message of one of these magics and no blob.  LEAVING: pgas_exit(0) has
 * begun (pgasrun names the rank if the job fails while it drains).  FINI:
 * the rank finalized and will exit with 0; an exit with 0 of a rank that
 * joined (sent any message) without it is a failure.  PEER_DIED: the rank
 * is about to end (pgas__fatal) because pgas.ko reported a peer's death,
 * so its own failure is a consequence: pgasrun waits a moment for the dead
 * peer's exit status and names that one.  write(2) only, so that a rank
 * under a seccomp filter that allows write can still leave.
 */
#define PGAS_BOOT_LEAVING 0x504c4556u	/* "PLEV" */
#define PGAS_BOOT_FINI 0x5046494eu	/* "PFIN" */
/* Told PGAS_BOOT_FINI: the job's exit protocol completed (ofi's goodbye). */
extern bool pgas_boot_fini;
#define PGAS_BOOT_PEER_DIED 0x50444544u	/* "PDED" */
void pgas_boot_tell(uint32_t what);

/*
 * pgas_global_exit(code): the rank tells pgasrun GLOBAL_EXIT with the code
 * in blob[0] and _exits with it; pgasrun queues PGAS_BOOT_EXIT_SIGNAL with
 * PGAS_BOOT_EXIT_VALUE(code) to every other rank, whose handler (installed
 * by pgas_init) _exits with the code, and ends with it itself.
 */
#define PGAS_BOOT_GLOBAL_EXIT 0x50474558u	/* "PGEX" */
#define PGAS_BOOT_EXIT_SIGNAL (SIGRTMIN + 4)
#define PGAS_BOOT_EXIT_VALUE(code) (0x7e0000 | ((code) & 0xff))
#define PGAS_BOOT_EXIT_IS(value) (((value) & ~0xff) == 0x7e0000)
void pgas_boot_tell_exit(int code);

/*
 * Launchers other than pgasrun: a PMIx launcher's job boots over PMIx
 * (pmix.c, bootpmix.h) through these same functions.  set_poll: a function
 * that the boot layer calls while it waits (PMIx's fences), for a conduit
 * whose fabric needs progress meanwhile (pgasrun's relay ignores it).
 * describe: which boot this rank uses, one line (PGAS_VERBOSEENV).
 */
void pgas_boot_set_poll(void (*poll)(void *), void *arg);
/*
 * fn(rank, why) when the launcher reports that rank's process ended (PMIx
 * events; pgasrun ends the job itself): called from the launcher
 * library's thread, at most once per report.
 */
void pgas_boot_on_peer_died(void (*fn)(unsigned rank, const char *why));
void pgas_boot_describe(char *out, size_t len);
/*
 * Where the ranks run, after pgas_boot_join: host_of numbers each rank's
 * host 0..nhosts-1 (in the order of the ranks; every rank of a pgasrun job
 * is on host 0, or with PGAS_FAKE_HOSTS=N on pseudo-host r * N / nranks,
 * a test of a job across hosts on one); same_host(r): r is on this rank's host (PMIx's
 * PMIX_LOCAL_PEERS), so a descriptor of r's can come through the
 * all-gather (fds[r] >= 0) and its memory can be mapped.
 */
unsigned pgas_boot_host_of(unsigned rank);
unsigned pgas_boot_nhosts(void);
bool pgas_boot_same_host(unsigned rank);

/*
 * A conduit's job (conduit.h, job_create) where the launcher makes none:
 * pgasrun runs job_create itself and hands the ranks the result in their
 * environment; a PMIx launcher knows nothing of it, so each host's leader
 * (host_leader: the lowest rank of its host, PMIX_LOCAL_PEERS's first)
 * makes it and shares it with the ranks of its host (host_jobs: this boot
 * is such a one).  host_share is collective over every rank of the job:
 * each host's leader gives len bytes (at most PGAS_BOOT_MAX_BLOB) and fd
 * (-1: none); every rank of its host, the leader included, gets the bytes
 * in out and a descriptor of its own in *outfd (-1 if none), to close.
 * Under PMIx they go through the host's boot socket only (processes of
 * the job's user on this host, SO_PEERCRED), never into the launcher's
 * key-value store: a job's key may travel.
 */
bool pgas_boot_host_jobs(void);
bool pgas_boot_host_leader(void);
int pgas_boot_host_share(const void *blob, size_t len, int fd, void *out, int *outfd,
			 char *msg, size_t msglen);

#endif /* PGAS_BOOTSTRAP_H */
