/* SPDX-License-Identifier: MIT */
/*
 * boot.h - the boot layer: the one table of environment variables and its
 * agreement between ranks (env.c), error reports (error.c), and the
 * launcher's relay (bootstrap.h).  The core, the conduits and pgasrun use
 * it; it uses none of them.
 */
#ifndef PGAS_BOOT_H
#define PGAS_BOOT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "pgas.h"
#include "bootstrap.h"

#define PGAS__ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((size_t)(a) - 1))

/* ---- configuration (env.c): the one table of environment variables ------ */

enum pgas_wait_mode {
	PGAS_WAIT_AUTO,		/* spin if ranks <= cpus, else spin-then-block */
	PGAS_WAIT_SPIN,
	PGAS_WAIT_YIELD,	/* spin, then sched_yield between polls */
	PGAS_WAIT_BLOCK,	/* spin, then sleep on the doorbell futex */
};

enum pgas_error_mode {
	PGAS_ERRMODE_PRINT,
	PGAS_ERRMODE_QUIET,
	PGAS_ERRMODE_ABORT,
};

/* PGAS_UNKNOWN_ENV: what a PGAS_* variable that libpgas does not know gets. */
enum pgas_unknown_env {
	PGAS_UNKNOWN_WARN,
	PGAS_UNKNOWN_IGNORE,
	PGAS_UNKNOWN_FAIL,
};

/* PGAS_MAP_PEERS: which peers the core loads and stores into. */
enum pgas_map_peers {
	PGAS_MAP_AUTO,		/* every peer the conduit mapped */
	PGAS_MAP_NONE,		/* none but this rank: the remote paths, on one host */
};

#define PGAS__CFG_STR 128

struct pgas_config {
	unsigned mbox_slots;
	unsigned notify_entries;
	unsigned max_medium;
	unsigned packet_max;	/* Medium bodies above this use a bounce buffer */
	unsigned bounce_bufs;
	unsigned ep_max;	/* endpoints per rank over its life, primary included */
	size_t segment_size;	/* used when attach gets 0 */
	int wait_mode;		/* enum pgas_wait_mode, as configured */
	unsigned spin_limit;
	int error_mode;
	int unknown_env;	/* enum pgas_unknown_env */
	int verbose_env;
	int conduit;		/* PGAS_CONDUIT's choice: 0 auto, else a conduit (conduits.c) */
	char device[PGAS__CFG_STR];	/* pgas.ko device node */
	int map_peers;		/* enum pgas_map_peers */
	int ofi_am;		/* PGAS_OFI_AM: 0 auto (unmapped ranks), 1 fabric (every other) */
	unsigned ofi_timeout;	/* PGAS_OFI_TIMEOUT: seconds of silence before a peer is gone */
	unsigned ofi_wait_fd;	/* PGAS_OFI_WAIT_FD: block mode sleeps on the CQ's fd (1) */
	int hier;		/* PGAS_HIER: 0 auto (by host where useful), 1 flat */
	unsigned fake_hosts;	/* PGAS_FAKE_HOSTS: pseudo-hosts of a pgasrun job (test knob) */
	int ofi_rma;		/* PGAS_OFI_RMA: 0 fabric, 1 am, 2 bounce, 3 dc, 4 flush (docs/ofi.md) */
	int ofi_atomic;		/* PGAS_OFI_ATOMIC: 0 fabric, 1 am (docs/ofi.md) */
	unsigned ofi_eps;	/* PGAS_OFI_EPS: fabric endpoints of extra endpoints (docs/ofi.md) */
	size_t coll_stage;
	size_t coll_pool;
	size_t coll_team_stage;
	char coll_tuning[PGAS__CFG_STR];
	unsigned coll_verbose;
	unsigned coll_debug;
	unsigned coll_unmapped;	/* PGAS_COLL_UNMAPPED: coll maps no peer (test knob) */
	char coll_force[PGAS_COLL_NKINDS][PGAS__CFG_STR];
	unsigned stats;		/* PGAS_STATS */
	char stats_file[PGAS__CFG_STR];
	unsigned trace;		/* PGAS_TRACE: a mask (core/stats.c) */
	char trace_file[PGAS__CFG_STR];
};

extern struct pgas_config pgas__cfg;
extern bool pgas__cfg_loaded;
/* Reads the environment; on a bad value fills msg and returns an error. */
int pgas__config_load(char *msg, size_t msglen);
void pgas__config_print(FILE *f);
/* The table itself, for people: plain text, or man(7) roff (libpgas(7)'s
 * ENVIRONMENT, pgasrun --env=roff). */
void pgas__config_doc(FILE *f, bool roff);
/*
 * The choices of a VAR_ENUM variable that another layer names: "auto" and
 * the conduits built in, for PGAS_CONDUIT (conduit/conduits.c, before
 * main).  NULL-terminated, at most 8; the array must live on.
 */
void pgas__config_choices(const char *name, const char *const *choices);
/*
 * The PGAS_* variables of the environment that are not libpgas's (none of
 * the table's, none that pgasrun sets for its ranks, none of the project's
 * tests' and tools' prefixes): with warn, a warning on stderr for each,
 * naming the closest known name; msg gets the first's text.  Returns how
 * many there are.
 */
unsigned pgas__config_unknown(bool warn, char *msg, size_t msglen);
/*
 * pgas_init, before any conduit is set up: every rank sends the launcher a
 * digest of its variables that must agree (the table's scope) and compares
 * every rank's; where they differ, every rank fails alike, msg naming each
 * variable, rank 0's value and the first other rank's, and leaves the
 * bootstrap.  conduit: the one this rank would use.  *sleepers: some rank
 * may sleep in its waits, so every rank must ring doorbells.
 */
int pgas__config_agree(int conduit, bool *sleepers, char *msg, size_t msglen);

/* ---- errors (error.c) ---------------------------------------------------- */

/* Records and reports "call: message"; returns err. */
int pgas__err(int err, const char *call, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), cold));
/* An error nobody can be told about through a return value: ends the job. */
void pgas__fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn, cold));
/* Reports "warning: MESSAGE" on stderr (the rank's prefix, one write). */
void pgas__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
/* This process's rank in the job, for the prefix of every report; -1: none yet. */
void pgas__err_set_rank(int rank);

#endif /* PGAS_BOOT_H */
