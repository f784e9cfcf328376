/* SPDX-License-Identifier: MIT */
/*
 * coll.h - what the collective files share: teams, scratch layout, the
 * state of one collective operation, and the coroutine macros its
 * algorithms are written with.  Not installed.
 *
 * Scratch.  pgas_attach adds a library area behind every rank's segment
 * (the user sees only his part): the rank's state page, the tuning table
 * (used at rank 0 only), the job team's region (PGAS_COLL_STAGE of stage)
 * and a pool (PGAS_COLL_POOL bytes) from which every other team of which
 * the rank is a member gets a region (PGAS_COLL_TEAM_STAGE of stage) when
 * it is made; the region goes back to the pool when the team is destroyed.
 * Each member allocates from its own pool and the split tells the others
 * where.  A region is:
 *   header line   published addresses of the current local-mode call,
 *                 and how far its owner got when it left the job
 *   debug lines   two descriptors (call parity) for PGAS_COLL_DEBUG
 *   sig[size]     one line per source team rank: count of its signals
 *   ack[size]     one line per source team rank: count of its acks
 *   stage         staging and temporary blocks; eager slots at its end
 *
 * Reuse.  Nothing of a region's earlier user may be taken for the new
 * team's: its owner clears the header, counters and eager stamps before
 * the split's closing barrier, after which alone the new team's members
 * write into it; and a destroyed team's members neither write nor owe
 * anything (pgas_team_destroy completes its calls and collects its acks).
 *
 * Signals.  Every counter has one writer (the source rank), which stores
 * its running total with release; the owner waits until the counter
 * reaches the total it expects, with acquire.  Members run a team's calls
 * in the same order with the same algorithm, so both sides count alike
 * and counters never need resetting: "the k-th signal from p" is simply
 * "sig[p] >= k".  sig flows with the data (ready / arrived), ack against
 * it (clear to send / done reading).
 */
#ifndef PGAS_COLL_INTERNAL_H
#define PGAS_COLL_INTERNAL_H

#include "internal.h"
#include "layer.h"

#define PGAS__COLL_NBUCKETS 26		/* size classes: 0, 1, 2-3, ... >= 16 MiB */

/* ALG_REF: the reference algorithms (coll_ref.c), for every operation;
 * ALG_HIER: their hierarchical form for a team across hosts (from ALG_REF
 * on, an algorithm moves data by the library's AM only). */
enum pgas__alg { ALG_TREE, ALG_FLAT, ALG_BRUCK, ALG_CHAIN, ALG_DISSEM, ALG_REF, ALG_HIER,
		 ALG_NALGS };
enum pgas__geom { GEOM_NONE, GEOM_FLAT, GEOM_KNOMIAL, GEOM_KARY, GEOM_NGEOMS };
enum pgas__xfer { XFER_NONE, XFER_PUT, XFER_GET };

struct pgas__coll_hdr {
	uint64_t src_off, src_stride;	/* from the segment's local base */
	uint64_t dst_off, dst_stride;
	uint64_t left;			/* 0, or 1 + the calls done when it left */
	uint64_t pad[3];
};

struct pgas__coll_desc {		/* what PGAS_COLL_DEBUG compares */
	uint64_t seq;
	uint32_t kind, root, flags, type, op, single;
	uint64_t nbytes;
	pgas_coll_choice_t choice;
	uint64_t pad;
};

struct pgas__coll_line {
	uint64_t v;
	uint64_t pad[7];
};

struct pgas_team {
	uint32_t magic;
	unsigned size, rank;
	uint64_t pool_off;		/* my region in my pool (not the job's team) */
	size_t region_len;
	size_t stage_len;		/* stage bytes of every member's region */
	size_t eager_slot;		/* bytes per eager slot (0: none) */
	unsigned *members;		/* team rank -> job rank */
	int *job_to_team;		/* job rank -> team rank or -1 */
	/* Counters of signals and acks, per team rank; ack_cache holds the
	 * last ack counts read, so owed acks are those where it < ack_seen. */
	uint64_t *sig_sent, *sig_seen, *ack_sent, *ack_seen, *ack_cache;
	char **area;			/* my mapping of each member's slot */
	/* Reference algorithms (coll_ref.c): ref when a member is not mapped
	 * (every call then takes them); ref_key[i] names the team in team
	 * rank i's messages (0: the job's team, else 1 + its pool offset). */
	bool ref;
	uint64_t *ref_key;
	/* Its hosts (ref teams whose members span hosts, pgas__host_leader):
	 * hgroups groups of members mapped to each other, numbered in the
	 * order of their lowest team rank, hlead[g] that rank (the leader);
	 * hgroup[i]: team rank i's group.  hgroups 1 (NULLs): no hierarchy. */
	unsigned hgroups;
	unsigned *hgroup, *hlead;
	unsigned *kids;			/* children in the current call's tree */
	uint64_t tree_key;		/* root and shape kids was built for */
	unsigned nkids;
	int parent;
	uint64_t *eager_snap;		/* [slot][member]: acks a slot's reuse needs */
	uint64_t seq;			/* calls started */
	struct pgas__coll_op *head, *tail;	/* calls not complete, in order */
	struct pgas__coll_op *free_ops;		/* completed and released */
	struct pgas__coll_op *all_ops;		/* every op allocated (all_next) */
	unsigned handles;			/* ops handed out, not yet released */
	struct pgas_team *next_active;
	struct pgas_team *next_live;		/* teams of this rank (team.c) */
	bool active;
	bool light;			/* a light call (coll_light.c) runs: seq is not done */
	pgas_coll_choice_t choice[PGAS_COLL_NKINDS][PGAS__COLL_NBUCKETS];
	uint8_t why[PGAS_COLL_NKINDS][PGAS__COLL_NBUCKETS];	/* enum choice_source */
	uint32_t told[PGAS_COLL_NKINDS];	/* buckets verbose mode printed */
};

enum choice_source { FROM_MODEL, FROM_FILE, FROM_ENV, FROM_CALL };

/* One collective call. */
struct pgas__coll_op {
	struct pgas_team *team;		/* NULL once the team was destroyed */
	struct pgas__coll_op *next;
	struct pgas__coll_op *all_next;	/* team->all_ops */
	void *src_copy;			/* in-place call: source taken at the start */
	const char *call;
	int kind;			/* enum pgas_coll_kind */
	int rc;
	bool done, single;
	unsigned flags, root;
	size_t nbytes;			/* per block (bytes) */
	size_t elem;			/* element size: chunks keep it whole */
	pgas_type_t type;
	pgas_op_t rop;
	bool commutative;
	pgas_coll_choice_t ch;
	uint64_t seq;
	/* User's buffers: local mode (mine) or lists (single). */
	char *usrc, *udst;
	const void *const *lsrc;
	void *const *ldst;
	unsigned src_blocks, dst_blocks;	/* blocks of the largest role */
	unsigned my_sb, my_db;			/* blocks of mine (this rank's role) */
	/* Chunking over the blocks' bytes. */
	size_t chunk, off, c;		/* chunk size, its offset, its length */
	bool dst_staged;		/* copied out of the stage at chunk end */
	bool root_keeps;		/* a broadcast's root in place (dst == src):
					 * its buffer is never written */
	bool eager;			/* source copied into an eager slot */
	char *src_eff, *dst_eff;	/* my effective buffers this chunk */
	size_t src_stride, dst_stride;
	char *temp;			/* my temporary blocks in stage */
	/* Tree of this call (relative ranks). */
	int parent;
	unsigned nkids;
	unsigned *kids;
	/* Coroutine state. */
	int pc, pc_sub, pc_bar;
	unsigned bdist, bd;		/* barrier loop */
	unsigned i, d, s, nseg, dist;
	unsigned bcast_from_dst;	/* broadcast phase reads root's dst */
	unsigned red_root;
	size_t seg;
	/* Reference algorithms: bytes of the message being sent that went,
	 * the message being consumed. */
	size_t ref_at;
	struct pgas__coll_ref_msg *ref_msg;
	/* A rendezvous block being read (coll_ref.c): its get's handle, and
	 * the temporary a reduction reads into. */
	bool rdv_busy;
	pgas_handle_t rdv_h;
	char *rdv_tmp;
	unsigned char *rdv_sent;	/* per team rank: my card went (NULL: none) */
	/* Hierarchical ones: a leader's contributions of the members (by team
	 * rank), the result it hands down; the group being served. */
	char *hall, *hres;
	unsigned hg;
};

/* ---- coroutines ------------------------------------------------------------ */

/*
 * An algorithm is a function that returns 1 when done and 0 when it must
 * wait; CO_WAIT saves where it was, so the next call resumes there.  Loop
 * variables live in the op.  (The protothread pattern: GASNet's collectives
 * advance as polled state machines in the same way.)
 */
#define CO_BEGIN(pc) switch (pc) { case 0:
#define CO_WAIT(pc, cond)						\
	do {								\
		(pc) = __LINE__;					\
		__attribute__((fallthrough));				\
	case __LINE__:							\
		if (!(cond))						\
			return 0;					\
	} while (0)
#define CO_END(pc) } (pc) = -1; return 1

/* ---- shared between coll*.c ------------------------------------------- */

extern struct pgas_team pgas__team_all;

#define PGAS__REGION_CTL(size) PGAS__ALIGN_UP(192 + (size_t)128 * (size), 64)
/* Bytes of a team region for size members and stage bytes of stage. */
static inline size_t pgas__region_bytes(unsigned size, size_t stage)
{
	return PGAS__REGION_CTL(size) + PGAS__ALIGN_UP(stage, 64);
}

static inline struct pgas__coll_hdr *coll_hdr(struct pgas_team *t, unsigned r)
{
	return (struct pgas__coll_hdr *)t->area[r];
}

static inline struct pgas__coll_desc *coll_desc(struct pgas_team *t, unsigned r, uint64_t seq)
{
	return (struct pgas__coll_desc *)(t->area[r] + 64 + 64 * (seq & 1));
}

static inline uint64_t *coll_sig(struct pgas_team *t, unsigned owner, unsigned src)
{
	return &((struct pgas__coll_line *)(t->area[owner] + 192))[src].v;
}

static inline uint64_t *coll_ack(struct pgas_team *t, unsigned owner, unsigned src)
{
	return &((struct pgas__coll_line *)(t->area[owner] + 192))[t->size + src].v;
}

static inline char *coll_stage(struct pgas_team *t, unsigned r)
{
	return t->area[r] + PGAS__REGION_CTL(t->size);
}

/*
 * Eager slots: small local-mode calls whose peers only read sources copy
 * the source into the next of PGAS__EAGER_SLOTS slots at the end of the
 * stage and return without waiting for the readers; a slot is reused only
 * once the acks of the call that last used it are in.
 */
#define PGAS__EAGER_SLOTS 16u
#define PGAS__EAGER_MAX 2048u	/* measured: above it the extra copy costs more */
/* The offset of call seq's slot in every member's region. */
static inline size_t pgas__eager_off(const struct pgas_team *t, uint64_t seq)
{
	return PGAS__REGION_CTL(t->size) + t->stage_len / 64 * 64 -
	       t->eager_slot * (1 + seq % PGAS__EAGER_SLOTS);
}

static inline char *coll_eager(struct pgas_team *t, unsigned r, uint64_t seq)
{
	return t->area[r] + pgas__eager_off(t, seq);
}

/*
 * A slot starts with its stamp (the seq of the call that filled it) and the
 * data follows, so a small payload shares the stamp's line.  The stamp sits
 * at the same place whatever the size: behind it there may be any bytes of
 * an earlier, larger payload, which must never pass for a stamp.
 */
static inline uint64_t *pgas__eager_stamp(const struct pgas__coll_op *op, unsigned r)
{
	return (uint64_t *)coll_eager(op->team, r, op->seq);
}

static inline char *pgas__eager_data(const struct pgas__coll_op *op, unsigned r)
{
	return coll_eager(op->team, r, op->seq) + sizeof(uint64_t);
}

/*
 * Do the collectives load and store in job rank r's memory?  Where the core
 * maps it (pgas__rank_mapped), unless PGAS_COLL_UNMAPPED=1 makes them treat
 * every peer as unmapped (the test of the reference paths on one host).
 */
static inline bool pgas__coll_mapped(unsigned r)
{
	return pgas__rank_mapped(r) && (!pgas__cfg.coll_unmapped || r == pgas__g.rank);
}

/* Local mapping of the start of job rank r's segment. */
static inline char *seg_base(unsigned job_rank)
{
	const struct pgas__peer *p = &pgas__g.peers[job_rank];

	return p->seg_remote + p->seg_delta;
}

/* Adds n to my running total for team rank to and publishes it in slot. */
static inline void pgas__coll_signal(struct pgas_team *t, unsigned to, uint64_t *sent,
				     uint64_t *slot, uint64_t n)
{
	*sent += n;
	atomic_store_explicit((_Atomic uint64_t *)slot, *sent, memory_order_release);
	if (PGAS__UNLIKELY(pgas__g.wake))
		pgas__ring_doorbell(pgas__g.peers[t->members[to]].ctrl);
}

/* coll_alg.c: runs op's algorithm for the current chunk; 1 = done. */
int pgas__coll_run(struct pgas__coll_op *op);
/* Temporary bytes per rank op's algorithm needs for a chunk of c bytes. */
size_t pgas__coll_temp_need(int kind, const pgas_coll_choice_t *ch, unsigned n, size_t c);
void pgas__tree_build(struct pgas__coll_op *op, unsigned root);
int pgas__co_barrier(struct pgas__coll_op *op, int *pc);

/* coll_ref.c: the reference algorithms, over the library's AM (no load or
 * store in a peer's memory).  Tags: phase << 24 | index within it. */
enum { REF_T_DATA = 1, REF_T_DEBUG, REF_T_BAR_DEBUG, REF_T_BAR_IN, REF_T_BAR_OUT, REF_T_BAR,
       REF_T_LEFT, REF_T_UP, REF_T_X, REF_T_DOWN, REF_T_RDV, REF_T_RDONE };
#define PGAS__REF_TAG(phase, i) ((uint32_t)(phase) << 24 | (uint32_t)(i))
struct pgas__coll_ref_msg {
	struct pgas__coll_ref_msg *next;
	uint64_t key, seq;
	uint32_t src, tag;		/* src: job rank */
	uint64_t len, got;
	_Alignas(16) char data[];
};
void pgas__coll_ref_init(void);	/* attach phase 0: registers the handler */
/* Sends len bytes of buf to team rank to, tagged; resumable (op->ref_at):
 * true once all of it went, or it failed (op->rc set). */
bool pgas__coll_ref_send(struct pgas__coll_op *op, unsigned to, uint32_t tag, const void *buf,
		    size_t len);
/* The complete message tag of op's call from team rank from, or NULL. */
struct pgas__coll_ref_msg *pgas__coll_ref_take(struct pgas__coll_op *op, unsigned from, uint32_t tag);
int pgas__coll_ref_barrier(struct pgas__coll_op *op, int *pc, unsigned phase);
int pgas__coll_ref_run(struct pgas__coll_op *op);	/* op's operation; 1 = done */
/* Their hierarchical forms (ALG_HIER; t->hgroups > 1). */
int pgas__coll_hier_barrier(struct pgas__coll_op *op, int *pc, unsigned phase);
int pgas__coll_hier_run(struct pgas__coll_op *op);
void pgas__coll_hier_free(struct pgas__coll_op *op);
/* team.c: t's hosts (hgroups, hgroup, hlead) from pgas__host_leader. */
int pgas__team_hosts(struct pgas_team *t);
/* pgas_exit: tells t's unmapped members how many calls I completed. */
void pgas__coll_ref_leave(struct pgas_team *t, uint64_t left);
uint64_t pgas__coll_ref_left(struct pgas_team *t, unsigned i);	/* what i told, or 0 */

/* coll_light.c: runs a small blocking call straight through (coll.c decides
 * which): the engine's eager protocol without its queue and coroutine. */
int pgas__coll_light(struct pgas__coll_op *op);

/* coll_reduce.c */
/* out = a (op) b for count elements; out may be a. */
void pgas__reduce(void *out, const void *a, const void *b, size_t count, pgas_type_t type,
		  pgas_op_t op);
size_t pgas__type_size(pgas_type_t type, pgas_op_t op);
int pgas__op_check(const char *call, pgas_type_t type, pgas_op_t op, bool *commutative);

/* coll_tune.c */
void pgas__tune_load(void *area, size_t len);	/* rank 0, before attach's barrier */
int pgas__tune_share(const void *area, char *msg, size_t len);	/* every rank, after */
void pgas__tune_team(struct pgas_team *t);
int pgas__choice_parse(int kind, unsigned n, const char *spec, pgas_coll_choice_t *ch,
		       char *msg, size_t len);
void pgas__choice_format(const pgas_coll_choice_t *ch, char *buf, size_t len);
/* Picks op->ch for the call (table, then fallbacks the call needs). */
void pgas__choose(struct pgas__coll_op *op);
/* PGAS_STATS, PGAS_TRACE: a collective that runs alg; the report's lines. */
void pgas__ev_coll(unsigned kind, unsigned alg);
void pgas__coll_report(FILE *f);
unsigned pgas__size_bucket(size_t nbytes);

/* coll.c */
char *pgas__coll_area(unsigned job_rank);

/* The collectives as a layer of the core (core/layer.h; listed in layers.c). */
extern const struct pgas__layer pgas__coll_layer;
#define PGAS__PENDING_COLL 1u	/* its bit of pgas__g.pending */
/* Advances collectives in flight; returns how many completed. */
int pgas__coll_progress(void);
char *pgas__coll_job_region(unsigned job_rank);	/* the job team's */
char *pgas__coll_pool(unsigned job_rank);
size_t pgas__eager_slot_bytes(size_t stage);
bool pgas__acks_collected(struct pgas_team *t);
void pgas__team_activate(struct pgas_team *t);
/* Runs t's calls to completion (each ends done, with its rc). */
void pgas__team_complete(struct pgas_team *t);
void pgas__coll_op_free_all(struct pgas_team *t);
/* PGAS_ERR_GONE naming the member of t that left before call seq, or 0. */
int pgas__team_gone(struct pgas_team *t, const char *call, uint64_t seq);

/* team.c */
int pgas__team_setup_all(char *msg, size_t len);
int pgas__team_check(const char *call, struct pgas_team *t);
/* Clears my region of t before anyone signals in it (see Reuse above). */
void pgas__team_region_clear(struct pgas_team *t);
extern struct pgas_team *pgas__live_teams;

#endif /* PGAS_COLL_INTERNAL_H */
