/* SPDX-License-Identifier: MIT */
/*
 * pgas_coll.h - teams and collectives (included by pgas.h).
 *
 * Every collective is called by every member of a team, in the same order
 * on each member, with the same root, sizes, reduction and flags.  With
 * PGAS_COLL_DEBUG=1 the library checks that and fails the call on every
 * member, naming the first rank that differs.
 *
 * Address modes, chosen by the function:
 *  - local  (pgas_broadcast() ...): each rank passes its own buffers, which
 *    may be anywhere in its memory.  Buffers inside the rank's segment are
 *    read and written in place by the peers (their addresses are exchanged
 *    at the start); others are staged through library scratch space in the
 *    segment, in chunks when they are larger than it.
 *  - single (pgas_broadcast_single() ...): every rank passes the addresses
 *    of every member (arrays indexed by team rank, each address as its
 *    owner sees it, inside its owner's segment), so no address discovery
 *    is needed and data can be written before its owner arrives.
 *
 * Synchronisation flags: exactly one PGAS_COLL_IN_* and one PGAS_COLL_OUT_*.
 *  IN_NOSYNC   data may move as soon as the first member enters: a rank's
 *              destination may be written before it calls (single mode).
 *  IN_MYSYNC   a rank's buffers are touched only after that rank entered.
 *  IN_ALLSYNC  no data moves before every member entered.
 *  OUT_NOSYNC  a rank may return once its own destination is complete;
 *              others may still read its source until the last one leaves.
 *  OUT_MYSYNC  a rank returns once nobody will touch its buffers again.
 *  OUT_ALLSYNC no rank returns before every member's data movement is done.
 * Local mode behaves at least as IN_MYSYNC / OUT_MYSYNC, because a rank's
 * buffer addresses are valid only while it is inside the call.
 *
 * Non-blocking forms return a handle; the operation advances inside
 * pgas_coll_try(), pgas_coll_wait(), pgas_poll() and every wait of the
 * library, so computation interleaved with polls overlaps it.  Several
 * collectives may be outstanding; on one team they complete in call order,
 * on disjoint teams they run concurrently.  The buffers of an outstanding
 * collective belong to the library until its handle completes.
 *
 * Aliasing.  Local mode: a rank's source and destination may overlap in any
 * way (in place): the source is read once, at the call, into memory of the
 * call's own, and the call runs as if given that copy.  So reduce,
 * reduce_all and scan with dst == src, gather_all with the rank's
 * contribution already at its block of dst, exchange with dst == src and
 * broadcast / scatter / gather at the root with overlapping buffers all
 * work; a broadcast's root with dst == src exactly takes no copy of its
 * source, and its buffer keeps its bytes (what OpenSHMEM 1.4's broadcast
 * asks of the root).  Single mode: no member's source may overlap its
 * destination (peers read the source where the lists say while others
 * write the destination); the call fails with PGAS_ERR_INVAL on every
 * member.
 *
 * Members that leave.  A collective that needs a member which called
 * pgas_exit(0) before making that call fails with PGAS_ERR_GONE, naming
 * the member; calls the member completed before leaving complete as usual.
 */
#ifndef PGAS_COLL_H
#define PGAS_COLL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- teams --------------------------------------------------------------- */

typedef struct pgas_team *pgas_team_t;

/*
 * Teams.  Every team but the job's takes a region of 192 + 128 x size bytes
 * plus PGAS_COLL_TEAM_STAGE from PGAS_COLL_POOL on each of its members
 * (only there), so the number of live teams is bounded by that memory
 * alone; a split that does not fit fails with PGAS_ERR_NOMEM on every
 * member of the team concerned, naming the member and the variable.
 */

/* The team of every rank of the job (valid after pgas_attach). */
pgas_team_t pgas_team_all(void);
#define PGAS_TEAM_NO_COLOUR (-1)
/*
 * Collective over parent: members with the same colour form a new team,
 * ordered by key (ties by parent rank).  PGAS_TEAM_NO_COLOUR: this rank
 * joins no team and *team is set to NULL.
 */
int pgas_team_split(pgas_team_t parent, int colour, unsigned key, pgas_team_t *team);
/*
 * Collective over team.  Its outstanding collectives are completed first
 * (every member made them before destroying, in the same order); their
 * handles stay valid for one pgas_coll_wait / try, which returns their
 * result.  Afterwards the team is refused by every call (PGAS_ERR_STATE,
 * "was destroyed"); a new team never reuses a destroyed one's handle.
 * Not from a handler; not the job's team.
 */
int pgas_team_destroy(pgas_team_t team);
unsigned pgas_team_rank(pgas_team_t team);
unsigned pgas_team_size(pgas_team_t team);
/* Rank translation, both ways; PGAS_ERR_RANK for a non-member. */
int pgas_team_to_job(pgas_team_t team, unsigned team_rank, unsigned *job_rank);
int pgas_team_from_job(pgas_team_t team, unsigned job_rank, unsigned *team_rank);

/* ---- flags, types, reductions ------------------------------------------- */

#define PGAS_COLL_IN_NOSYNC	0x01u
#define PGAS_COLL_IN_MYSYNC	0x02u
#define PGAS_COLL_IN_ALLSYNC	0x04u
#define PGAS_COLL_OUT_NOSYNC	0x10u
#define PGAS_COLL_OUT_MYSYNC	0x20u
#define PGAS_COLL_OUT_ALLSYNC	0x40u
#define PGAS_COLL_MYSYNC	(PGAS_COLL_IN_MYSYNC | PGAS_COLL_OUT_MYSYNC)
#define PGAS_COLL_ALLSYNC	(PGAS_COLL_IN_ALLSYNC | PGAS_COLL_OUT_ALLSYNC)
#define PGAS_COLL_NOSYNC	(PGAS_COLL_IN_NOSYNC | PGAS_COLL_OUT_NOSYNC)

typedef enum {
	PGAS_INT8, PGAS_UINT8, PGAS_INT16, PGAS_UINT16,
	PGAS_INT32, PGAS_UINT32, PGAS_INT64, PGAS_UINT64,
	PGAS_FLOAT, PGAS_DOUBLE,
	PGAS_TYPE_USER,		/* elements of a user operation's size */
	PGAS__NTYPES
} pgas_type_t;

/* and, or, xor: integer types only. */
typedef enum {
	PGAS_OP_SUM, PGAS_OP_PROD, PGAS_OP_MIN, PGAS_OP_MAX,
	PGAS_OP_AND, PGAS_OP_OR, PGAS_OP_XOR,
	PGAS__NBUILTIN_OPS
} pgas_builtin_op_t;
typedef int pgas_op_t;		/* a pgas_builtin_op_t or from pgas_op_create() */

/*
 * User reduction: inout[i] = inout[i] (op) in[i] for count elements, where
 * inout holds the combination of lower team ranks than in.  Non-commutative
 * operations are combined in team-rank order.
 */
typedef void (*pgas_reduce_fn)(void *inout, const void *in, size_t count, void *ctx);
#define PGAS_OP_COMMUTATIVE 1u
int pgas_op_create(pgas_op_t *op, pgas_reduce_fn fn, size_t elem_size, unsigned flags,
		   void *ctx);

/* ---- handles ------------------------------------------------------------- */

typedef struct pgas__coll_op *pgas_coll_handle_t;

/* Completes (and releases) the handle, or PGAS_ERR_NOT_READY without blocking. */
int pgas_coll_try(pgas_coll_handle_t handle);
int pgas_coll_wait(pgas_coll_handle_t handle);
int pgas_coll_wait_all(pgas_coll_handle_t *handles, size_t count);

/* ---- collectives, local address mode -------------------------------------- */
/* src is read at root only (broadcast, scatter); dst written at root only
 * (gather, reduce).  Block operations move nbytes per rank; root's scatter
 * source, gather destination and every exchange / gather_all buffer hold
 * team-size blocks in team-rank order. */

int pgas_team_barrier(pgas_team_t team);
int pgas_team_barrier_nb(pgas_coll_handle_t *h, pgas_team_t team);

#define PGAS__COLL_DECL(name, ...)					\
	int pgas_##name(__VA_ARGS__);					\
	int pgas_##name##_nb(pgas_coll_handle_t *h, __VA_ARGS__)

PGAS__COLL_DECL(broadcast, pgas_team_t team, unsigned root, void *dst, const void *src,
		size_t nbytes, unsigned flags);
PGAS__COLL_DECL(scatter, pgas_team_t team, unsigned root, void *dst, const void *src,
		size_t nbytes, unsigned flags);
PGAS__COLL_DECL(gather, pgas_team_t team, unsigned root, void *dst, const void *src,
		size_t nbytes, unsigned flags);
PGAS__COLL_DECL(gather_all, pgas_team_t team, void *dst, const void *src,
		size_t nbytes, unsigned flags);
PGAS__COLL_DECL(exchange, pgas_team_t team, void *dst, const void *src,
		size_t nbytes, unsigned flags);
PGAS__COLL_DECL(reduce, pgas_team_t team, unsigned root, void *dst, const void *src,
		size_t count, pgas_type_t type, pgas_op_t op, unsigned flags);
PGAS__COLL_DECL(reduce_all, pgas_team_t team, void *dst, const void *src,
		size_t count, pgas_type_t type, pgas_op_t op, unsigned flags);
/* Inclusive prefix: team rank r gets src(0) op ... op src(r). */
PGAS__COLL_DECL(scan, pgas_team_t team, void *dst, const void *src,
		size_t count, pgas_type_t type, pgas_op_t op, unsigned flags);

/* ---- collectives, single address mode ------------------------------------- */
/* Lists have one entry per team rank; every address is in its owner's
 * segment.  A single src / dst is root's. */

PGAS__COLL_DECL(broadcast_single, pgas_team_t team, unsigned root, void *const dst[],
		const void *src, size_t nbytes, unsigned flags);
PGAS__COLL_DECL(scatter_single, pgas_team_t team, unsigned root, void *const dst[],
		const void *src, size_t nbytes, unsigned flags);
PGAS__COLL_DECL(gather_single, pgas_team_t team, unsigned root, void *dst,
		const void *const src[], size_t nbytes, unsigned flags);
PGAS__COLL_DECL(gather_all_single, pgas_team_t team, void *const dst[],
		const void *const src[], size_t nbytes, unsigned flags);
PGAS__COLL_DECL(exchange_single, pgas_team_t team, void *const dst[],
		const void *const src[], size_t nbytes, unsigned flags);
PGAS__COLL_DECL(reduce_single, pgas_team_t team, unsigned root, void *dst,
		const void *const src[], size_t count, pgas_type_t type, pgas_op_t op,
		unsigned flags);
PGAS__COLL_DECL(reduce_all_single, pgas_team_t team, void *const dst[],
		const void *const src[], size_t count, pgas_type_t type, pgas_op_t op,
		unsigned flags);
PGAS__COLL_DECL(scan_single, pgas_team_t team, void *const dst[],
		const void *const src[], size_t count, pgas_type_t type, pgas_op_t op,
		unsigned flags);

/* ---- algorithm selection ------------------------------------------------- */

enum pgas_coll_kind {
	PGAS_COLL_BARRIER, PGAS_COLL_BROADCAST, PGAS_COLL_SCATTER, PGAS_COLL_GATHER,
	PGAS_COLL_GATHER_ALL, PGAS_COLL_EXCHANGE, PGAS_COLL_REDUCE, PGAS_COLL_REDUCE_ALL,
	PGAS_COLL_SCAN,
	PGAS_COLL_NKINDS
};

/*
 * An algorithm and its geometry, as the tuner and PGAS_COLL_<KIND> spell
 * it: "alg[:geometry][:rRADIX][:put|get][:sSEGMENT]", e.g.
 * "tree:knomial:r4:get:s65536", "bruck:r2", "flat:put".
 */
typedef struct {
	uint8_t alg, geom, radix, xfer;
	uint32_t seg;
} pgas_coll_choice_t;

/* Forces the choice for kind on team (NULL spec = back to the tuner). */
int pgas_coll_force(pgas_team_t team, enum pgas_coll_kind kind, const char *spec);
/* The choice for kind and size on team, written as a spec into buf. */
int pgas_coll_describe(pgas_team_t team, enum pgas_coll_kind kind, size_t nbytes,
		       char *buf, size_t len);
/* Every valid spec for kind on a team of nranks (for tuning tools): the
 * first max go to specs; returns how many there are. */
unsigned pgas_coll_candidates(enum pgas_coll_kind kind, unsigned nranks,
			      char specs[][48], unsigned max);
const char *pgas_coll_kind_name(enum pgas_coll_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* PGAS_COLL_H */
