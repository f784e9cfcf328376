/* SPDX-License-Identifier: MIT */
/* internal.h - what the .c files of libpgas share; not installed. */
#ifndef PGAS_INTERNAL_H
#define PGAS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include "pgas.h"
#include "conduit.h"
#include "boot.h"

/* ---- state shared by the .c files ---------------------------------------- */

/* Reasons in pgas__g.send_block. */
#define PGAS__BLOCK_DETACHED	1u
#define PGAS__BLOCK_HANDLER	2u
#define PGAS__BLOCK_HSL		4u

struct pgas_token {
	unsigned src;
	unsigned chan;		/* channel the message arrived on */
	bool replied;
	struct pgas_bounce_hdr *bounce;	/* the Medium's bounce buffer, or NULL */
};

struct pgas__job {
	bool initialised;
	bool attached;
	unsigned hsl_held;	/* handler-safe locks this thread holds */
	unsigned handler_depth;
	struct pgas_conduit conduit;
	/* Reassembly buffers of multi-slot messages, one per channel. */
	unsigned char *body_buf[PGAS_NCHAN];
	/* Barrier state (barrier.c). */
	uint64_t barrier_epoch;		/* barriers notified so far */
	uint32_t barrier_wire;		/* its epoch as flags carry it */
	unsigned barrier_rounds;
	int barrier_phase;	/* 0 idle, 1 notified */
	uint32_t barrier_id;
	unsigned barrier_flags;
	unsigned barrier_round;
	uint32_t barrier_acc_flags;
	uint32_t barrier_acc_id;
	bool barrier_result_ready;
	int barrier_result;
	/* Access region (rma.c). */
	bool in_region;
	/* Notification ring consumer state. */
	uint64_t notify_head;
	uint64_t gone_head;		/* next peer-gone event of the kernel page (kmod) */
	uint64_t gone_seen;		/* events folded into rank_gone (kmod) */
	unsigned char *rank_gone;	/* per rank: 0, or 1 + died, from those events */
	bool gone_lost;			/* events were overwritten unread: rank_gone is partial */
	bool leaving;		/* in pgas_exit(0): announced, draining */
	/* The message a handler runs for, per channel (NULL when none). */
	struct pgas_token *handling[PGAS_NCHAN];
	int wait_mode;		/* resolved: never PGAS_WAIT_AUTO */
	unsigned spin_limit;	/* resolved: shorter when oversubscribed */
};

extern struct pgas__job pgas__job;

/* am.c */
int pgas__am_setup(void);
void pgas__am_teardown(void);
/* Runs up to 'budget' messages of the channels in chan_mask; returns count. */
int pgas__progress(unsigned chan_mask, int budget);
#define PGAS__CHANMASK_ALL ((1u << PGAS_CHAN_REQUEST) | (1u << PGAS_CHAN_REPLY))
#define PGAS__CHANMASK_REPLY (1u << PGAS_CHAN_REPLY)
/* Which channels a thread may poll while it waits in its current state. */
unsigned pgas__wait_chanmask(void);

/* barrier.c: runs the rounds of a notified barrier that have arrived. */
void pgas__barrier_progress(void);
void pgas__barrier_setup(void);	/* once nranks is known */


/*
 * The first page of every rank's library area (behind its segment, mapped
 * by every rank on both conduits): written by its owner only, read by the
 * peers.  Plain libpgas memory: pgas.ko never looks at it.
 */
struct pgas__rank_state {
	uint32_t leaving;	/* set (release) by pgas_exit(0) once it announces:
				 * a PGAS__LEFT_* value */
	uint32_t leavers;	/* rank 0's only: ranks that announced (atomic add) */
	uint64_t barriers;	/* barriers this rank notified before it left */
	uint32_t unanswered;	/* 1 + the rank whose request it left unanswered
				 * (pgas_exit(0) inside that request's handler), or 0 */
	uint32_t barrier_busy;	/* it left in a barrier it notified, still running */
	/* Rank 0's only, the last steps of pgas_exit(0) (init.c): */
	uint32_t fin_done;	/* ranks that saw the job quiescent (atomic add) */
	uint32_t fin_gone;	/* ranks other than 0 that will touch no peer again */
	uint64_t reserved[5];
};
_Static_assert(sizeof(struct pgas__rank_state) <= 4096, "rank state fits its page");
/* Job rank r's state page, as this process maps it (after attach). */
struct pgas__rank_state *pgas__rank_state(unsigned job_rank);

/* How a rank left (struct pgas__rank_state.leaving). */
#define PGAS__LEFT_EXIT		1u	/* pgas_exit(0) */
#define PGAS__LEFT_RETURN	2u	/* exit(0) or return from main */
#define PGAS__LEFT_HANDLER	3u	/* either of them inside a handler */

/* How many ranks announced that they leave (one load: cheap to poll). */
extern uint32_t *pgas__leavers_word;	/* &rank_state(0)->leavers, once attached */
static inline unsigned pgas__leavers(void)
{
	return pgas__leavers_word ? atomic_load_explicit((_Atomic uint32_t *)pgas__leavers_word,
							 memory_order_acquire) : 0;
}

/* Has job rank r announced that it leaves?  Acquire: what it wrote before
 * announcing (e.g. how far it got in each team) is visible after. */
static inline bool pgas__rank_leaving(unsigned r)
{
	return atomic_load_explicit((_Atomic uint32_t *)&pgas__rank_state(r)->leaving,
				    memory_order_acquire) != 0;
}

/* wait.c */
long long pgas__now_ms(void);	/* CLOCK_MONOTONIC */
void pgas__wait_setup(void);

/* init.c: what pgas_exit(0) announced ("pgas_exit", "exit(0)", ...). */
const char *pgas__left_how(unsigned job_rank);
/* am.c: pgas_exit(0) inside a handler: the messages being handled count as
 * handled (their slots and bounce buffers are given back); returns 1 + the
 * rank of an unanswered request among them, or 0. */
unsigned pgas__am_abandon_handlers(void);
/* Is no message in flight in the job?  (am.c tells why it is exact once
 * every rank, or every other rank, has left.) */
bool pgas__am_job_idle(void);

/* Checks that the job is attached; returns an error naming call if not. */
int pgas__check_attached(const char *call);
/* The same, and that rank is a rank of the job. */
int pgas__check_rank(const char *call, unsigned rank);

#endif /* PGAS_INTERNAL_H */
