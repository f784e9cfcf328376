/* SPDX-License-Identifier: MIT */
/*
 * coll.c - OpenSHMEM collectives.
 *
 * Team collectives (1.5) are libpgas's local-mode collectives on the
 * team's pgas team: broadcast, gather_all (fcollect; collect after a
 * gather of the sizes), exchange (alltoall; alltoalls packs and unpacks
 * around it) and reduce_all for the types libpgas reduces (integers of 1-8
 * bytes, float, double).  long double and the complex types are gathered
 * and combined here, in team-rank order, so that every PE gets the same
 * bits.
 *
 * Active-set collectives (1.4) over every PE in order (PE_start 0, stride 1,
 * PE_size npes: what most programs pass) are the world team's calls above,
 * so libpgas's collectives and their tuner serve them too: barrier, sync,
 * broadcast (its root passes dst == src, which libpgas leaves as it is, as
 * 1.4 asks), collect, fcollect, alltoall(s) and the reductions.  Other
 * active sets cannot use libpgas teams (an active set is not collective
 * over any team that exists), so they run over messages of this layer:
 * every PE has a scratch area at the same offset of every heap (past the
 * allocator's part), with one slot per sending PE and two
 * counters per peer: seq[s], the chunks s has put into our slot for it,
 * and ack[r], the chunks r has taken out of its slot for us.  A chunk is a
 * put-with-signal (data, then seq); the receiver copies it out and signals
 * ack back.  Messages between two PEs therefore arrive in the order they
 * were sent whatever active set they belong to, so collectives on
 * overlapping active sets need no pSync of their own: pSync and pWrk are
 * accepted and never read or written (restored trivially).  The engine
 * sends and receives whatever can move, so no pattern of messages
 * deadlocks on a busy slot, and sleeps in a libpgas wait on the counters.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "shmem_internal.h"

/* ---- team collectives (1.5) ------------------------------------------------- */

#define FLAGS PGAS_COLL_MYSYNC

static void *xmalloc(const char *call, size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		shmem__fatal(call, "out of memory (%zu bytes)", n);
	return p;
}

static void need_buf(const char *call, const void *p, const char *what, size_t n)
{
	if (n && !p)
		shmem__fatal(call, "%s is NULL", what);
}

/* keep_root: 1.4's broadcast, which leaves the root's dest as it was
 * (libpgas's broadcast in place at the root: dst == src). */
static int bcast(const char *call, shmem_team_t team, void *dest, const void *source,
		 size_t nbytes, int root, bool keep_root)
{
	struct shmem__team *t = shmem__team_get(call, team);

	if (!t)
		return -1;
	if (root < 0 || root >= t->n_pes)
		shmem__fatal(call, "PE_root %d out of range (team of %d PEs)", root, t->n_pes);
	if (t->my_pe == root)
		need_buf(call, source, "source", nbytes);
	if (t->my_pe == root && keep_root)
		dest = (void *)source;
	else
		need_buf(call, dest, "dest", nbytes);
	if (!nbytes)
		return 0;	/* every member: the same nbytes, so none calls */
	/* 1.5: libpgas writes the root's dest too. */
	SHMEM__CHECK(call, pgas_broadcast(t->pt, (unsigned)root, dest, source, nbytes, FLAGS));
	return 0;
}

/* fcollect (every member's block to every member) or alltoall (block j
 * of member i to block i of member j): equal blocks, one libpgas call. */
static int equal_blocks(const char *call, shmem_team_t team, void *dest, const void *source,
			size_t nbytes, int exchange)
{
	struct shmem__team *t = shmem__team_get(call, team);

	if (!t)
		return -1;
	need_buf(call, dest, "dest", nbytes);
	need_buf(call, source, "source", nbytes);
	if (nbytes)
		SHMEM__CHECK(call, exchange ? pgas_exchange(t->pt, dest, source, nbytes, FLAGS)
					    : pgas_gather_all(t->pt, dest, source, nbytes, FLAGS));
	return 0;
}

static int fcollect(const char *call, shmem_team_t team, void *dest, const void *source,
		    size_t nbytes)
{
	return equal_blocks(call, team, dest, source, nbytes, 0);
}

/* Sizes may differ between PEs: gather them, then the blocks (padded to
 * the largest when they differ), packed in team-rank order. */
static int collect(const char *call, shmem_team_t team, void *dest, const void *source,
		   size_t nbytes)
{
	struct shmem__team *t = shmem__team_get(call, team);
	uint64_t mine = nbytes, *all, max = 0;
	int n, same = 1;

	if (!t)
		return -1;
	n = t->n_pes;
	need_buf(call, source, "source", nbytes);
	all = xmalloc(call, (size_t)n * sizeof(*all));
	SHMEM__CHECK(call, pgas_gather_all(t->pt, all, &mine, sizeof(mine), FLAGS));
	for (int i = 0; i < n; i++) {
		max = all[i] > max ? all[i] : max;
		same &= all[i] == all[0];
	}
	if (max && same) {
		need_buf(call, dest, "dest", max);
		SHMEM__CHECK(call, pgas_gather_all(t->pt, dest, source, nbytes, FLAGS));
	} else if (max) {
		char *pad = xmalloc(call, max), *tmp = xmalloc(call, (size_t)n * max);
		size_t off = 0;

		need_buf(call, dest, "dest", max);
		if (nbytes)
			memcpy(pad, source, nbytes);
		memset(pad + nbytes, 0, max - nbytes);
		SHMEM__CHECK(call, pgas_gather_all(t->pt, tmp, pad, max, FLAGS));
		for (int i = 0; i < n; i++) {
			memcpy((char *)dest + off, tmp + (size_t)i * max, all[i]);
			off += all[i];
		}
		free(tmp);
		free(pad);
	}
	free(all);
	return 0;
}

static int alltoall(const char *call, shmem_team_t team, void *dest, const void *source,
		    size_t nbytes)
{
	return equal_blocks(call, team, dest, source, nbytes, 1);
}

static void check_strides(const char *call, ptrdiff_t dst, ptrdiff_t sst)
{
	if (dst < 1 || sst < 1)
		shmem__fatal(call, "strides dst %td and sst %td must be >= 1", dst, sst);
}

/* Element k of the block for team PE j is source[(j * nelems + k) * sst];
 * the one from team PE i lands at dest[(i * nelems + k) * dst]. */
static int alltoalls(const char *call, shmem_team_t team, void *dest, const void *source,
		     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t es)
{
	struct shmem__team *t = shmem__team_get(call, team);
	size_t tot;
	char *pk, *un;

	if (!t)
		return -1;
	check_strides(call, dst, sst);
	if (!nelems)
		return 0;
	need_buf(call, dest, "dest", nelems);
	need_buf(call, source, "source", nelems);
	if (dst == 1 && sst == 1) {
		SHMEM__CHECK(call, pgas_exchange(t->pt, dest, source, nelems * es, FLAGS));
		return 0;
	}
	tot = (size_t)t->n_pes * nelems;
	pk = xmalloc(call, tot * es);
	un = xmalloc(call, tot * es);
	for (size_t e = 0; e < tot; e++)
		memcpy(pk + e * es, (const char *)source + e * (size_t)sst * es, es);
	SHMEM__CHECK(call, pgas_exchange(t->pt, un, pk, nelems * es, FLAGS));
	for (size_t e = 0; e < tot; e++)
		memcpy((char *)dest + e * (size_t)dst * es, un + e * es, es);
	free(un);
	free(pk);
	return 0;
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
		       int PE_root)
{
	return bcast("shmem_broadcastmem", team, dest, source, nelems, PE_root, false);
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return collect("shmem_collectmem", team, dest, source, nelems);
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return fcollect("shmem_fcollectmem", team, dest, source, nelems);
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return alltoall("shmem_alltoallmem", team, dest, source, nelems);
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
		       ptrdiff_t sst, size_t nelems)
{
	return alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}

#define COLL_DEF(T, N)									\
int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,	\
			  int PE_root)							\
{											\
	return bcast("shmem_" #N "_broadcast", team, dest, source, nelems * sizeof(T),	\
		     PE_root, false);							\
}											\
int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)	\
{											\
	return collect("shmem_" #N "_collect", team, dest, source, nelems * sizeof(T));	\
}											\
int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)	\
{											\
	return fcollect("shmem_" #N "_fcollect", team, dest, source, nelems * sizeof(T));\
}											\
int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)	\
{											\
	return alltoall("shmem_" #N "_alltoall", team, dest, source, nelems * sizeof(T));\
}											\
int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,	\
			  ptrdiff_t sst, size_t nelems)					\
{											\
	return alltoalls("shmem_" #N "_alltoalls", team, dest, source, dst, sst, nelems,	\
			 sizeof(T));							\
}
SHMEM__RMA_TYPES(COLL_DEF)
#undef COLL_DEF

/* ---- reductions --------------------------------------------------------------- */

/* How libpgas can reduce a type: as a signed / unsigned integer, a float,
 * or not at all (long double, complex: combined here). */
enum { K_INT, K_UINT, K_FLT, K_OTHER };
#define KIND(T)										\
	_Generic((T)0, char: (CHAR_MIN < 0 ? K_INT : K_UINT), signed char: K_INT,	\
		 short: K_INT, int: K_INT, long: K_INT, long long: K_INT,		\
		 unsigned char: K_UINT, unsigned short: K_UINT, unsigned int: K_UINT,	\
		 unsigned long: K_UINT, unsigned long long: K_UINT, float: K_FLT,	\
		 double: K_FLT, default: K_OTHER)

typedef void comb_fn(void *acc, const void *in, size_t n);

static int pgas_type(size_t es, int kind)
{
	if (kind == K_FLT)
		return es == 4 ? PGAS_FLOAT : es == 8 ? PGAS_DOUBLE : -1;
	if (kind == K_OTHER)
		return -1;
	switch (es) {
	case 1: return kind == K_INT ? PGAS_INT8 : PGAS_UINT8;
	case 2: return kind == K_INT ? PGAS_INT16 : PGAS_UINT16;
	case 4: return kind == K_INT ? PGAS_INT32 : PGAS_UINT32;
	case 8: return kind == K_INT ? PGAS_INT64 : PGAS_UINT64;
	default: return -1;
	}
}

static int reduce(const char *call, shmem_team_t team, void *dest, const void *source,
		  size_t count, size_t es, int kind, pgas_op_t op, comb_fn *comb)
{
	struct shmem__team *t = shmem__team_get(call, team);
	int pt = pgas_type(es, kind);

	if (!t)
		return -1;
	need_buf(call, dest, "dest", count);
	need_buf(call, source, "source", count);
	if (!count)
		return 0;
	if (pt >= 0) {
		SHMEM__CHECK(call, pgas_reduce_all(t->pt, dest, source, count, (pgas_type_t)pt,
						   op, FLAGS));
		return 0;
	}
	size_t nb = count * es;
	char *tmp = xmalloc(call, (size_t)t->n_pes * nb);

	SHMEM__CHECK(call, pgas_gather_all(t->pt, tmp, source, nb, FLAGS));
	for (int i = 1; i < t->n_pes; i++)
		comb(tmp, tmp + (size_t)i * nb, count);
	memcpy(dest, tmp, nb);
	free(tmp);
	return 0;
}

#define OPX_and(x, y) ((x) & (y))
#define OPX_or(x, y) ((x) | (y))
#define OPX_xor(x, y) ((x) ^ (y))
#define OPX_max(x, y) ((x) > (y) ? (x) : (y))
#define OPX_min(x, y) ((x) < (y) ? (x) : (y))
#define OPX_sum(x, y) ((x) + (y))
#define OPX_prod(x, y) ((x) * (y))
#define PGOP_and PGAS_OP_AND
#define PGOP_or PGAS_OP_OR
#define PGOP_xor PGAS_OP_XOR
#define PGOP_max PGAS_OP_MAX
#define PGOP_min PGAS_OP_MIN
#define PGOP_sum PGAS_OP_SUM
#define PGOP_prod PGAS_OP_PROD

/* acc[i] = acc[i] op in[i]: lower ranks' combination on the left. */
#define COMB_DEF(PFX, T, N, OP)								\
static void PFX##_##N##_##OP(void *acc_, const void *in_, size_t n)			\
{											\
	T *acc = acc_;									\
	const T *in = in_;								\
											\
	for (size_t i = 0; i < n; i++) {						\
		T x = acc[i], y = in[i];						\
											\
		acc[i] = (T)OPX_##OP(x, y);						\
	}										\
}

#define RED_DEF(T, N, OP)								\
COMB_DEF(comb, T, N, OP)								\
int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)\
{											\
	return reduce("shmem_" #N "_" #OP "_reduce", team, dest, source, nreduce,	\
		      sizeof(T), KIND(T), PGOP_##OP, comb_##N##_##OP);			\
}
#define RED_AND(T, N) RED_DEF(T, N, and)
#define RED_OR(T, N) RED_DEF(T, N, or)
#define RED_XOR(T, N) RED_DEF(T, N, xor)
#define RED_MAX(T, N) RED_DEF(T, N, max)
#define RED_MIN(T, N) RED_DEF(T, N, min)
#define RED_SUM(T, N) RED_DEF(T, N, sum)
#define RED_PROD(T, N) RED_DEF(T, N, prod)
SHMEM__REDUCE_BIT_TYPES(RED_AND)
SHMEM__REDUCE_BIT_TYPES(RED_OR)
SHMEM__REDUCE_BIT_TYPES(RED_XOR)
SHMEM__REDUCE_CMP_TYPES(RED_MAX)
SHMEM__REDUCE_CMP_TYPES(RED_MIN)
SHMEM__REDUCE_ARITH_TYPES(RED_SUM)
SHMEM__REDUCE_ARITH_TYPES(RED_PROD)

/* ---- active-set messages (1.4) ------------------------------------------------ */

/*
 * Scratch of PE p (at coll_off in its heap): seq[npes], ack[npes], then a
 * slot of `chunk` bytes per sending PE.  sent[r] / rcvd[s] (private)
 * count the chunks this PE sent to r / took from s.
 */
static size_t chunk, hdr;
static uint64_t *sent, *rcvd, *vals;
static int *status;

size_t shmem__coll_scratch(int npes)
{
	size_t c = ((size_t)1 << 20) / (size_t)(npes > 0 ? npes : 1);

	c = c > 32768 ? 32768 : c < 1024 ? 1024 : c;
	chunk = c & ~(size_t)63;
	hdr = ((size_t)npes * 16 + 63) & ~(size_t)63;
	/* Whole pages: a segment asked for SHMEM_SYMMETRIC_SIZE + this leaves
	 * the allocator exactly the heap it had without it (the heap test
	 * relies on its size). */
	return (hdr + (size_t)npes * chunk + 4095) & ~(size_t)4095;
}

void shmem__coll_init(void)
{
	int n = shmem__s.npes;

	/* Sized at init from pgas_nranks() before pgas_attach: must agree. */
	if (hdr < (size_t)n * 16 || shmem__s.coll_len < hdr + (size_t)n * chunk)
		shmem__fatal("shmem_init", "collectives' scratch sized for fewer than %d PEs", n);
	memset(shmem__s.base + shmem__s.coll_off, 0, shmem__s.coll_len);
	sent = calloc((size_t)n, sizeof(*sent));
	rcvd = calloc((size_t)n, sizeof(*rcvd));
	vals = calloc(2 * (size_t)n, sizeof(*vals));
	status = calloc(2 * (size_t)n, sizeof(*status));
	if (!sent || !rcvd || !vals || !status)
		shmem__fatal("shmem_init", "out of memory");
}

/* One message: to / from world PE pe, len bytes (0: one empty chunk). */
struct msg {
	int pe;
	char *buf;
	size_t len, done;
	int started, fin;
};

static inline char *scratch(int pe)
{
	return shmem__s.bases[pe] + shmem__s.coll_off;
}

static int try_send(const char *call, struct msg *m)
{
	uint64_t *ack = (uint64_t *)(shmem__s.base + shmem__s.coll_off) + shmem__s.npes;
	uint64_t k = sent[m->pe];
	size_t c = m->len - m->done < chunk ? m->len - m->done : chunk;
	char *r = scratch(m->pe);

	if (__atomic_load_n(&ack[m->pe], __ATOMIC_ACQUIRE) < k)
		return 0;	/* our slot there still holds the last chunk */
	SHMEM__CHECK(call, pgas_put_with_signal((unsigned)m->pe,
						r + hdr + (size_t)shmem__s.me * chunk,
						c ? m->buf + m->done : NULL, c,
						(uint64_t *)r + shmem__s.me, k + 1, PGAS_SIGNAL_SET));
	sent[m->pe] = k + 1;
	m->done += c;
	m->started = 1;
	m->fin = m->done == m->len;
	return 1;
}

static int try_recv(const char *call, struct msg *m)
{
	char *l = shmem__s.base + shmem__s.coll_off;
	uint64_t k = rcvd[m->pe];
	size_t c = m->len - m->done < chunk ? m->len - m->done : chunk;
	uint64_t *rack;

	if (__atomic_load_n((uint64_t *)l + m->pe, __ATOMIC_ACQUIRE) <= k)
		return 0;
	if (c)		/* (a sync's empty message has no buffer) */
		memcpy(m->buf + m->done, l + hdr + (size_t)m->pe * chunk, c);
	rcvd[m->pe] = k + 1;
	rack = (uint64_t *)scratch(m->pe) + shmem__s.npes + shmem__s.me;
	SHMEM__CHECK(call, pgas_put_with_signal((unsigned)m->pe, rack, NULL, 0, rack, k + 1,
						PGAS_SIGNAL_SET));
	m->done += c;
	m->started = 1;
	m->fin = m->done == m->len;
	return 1;
}

/*
 * Moves every message of s[0..ns) and r[0..nr) (at most one each way per
 * peer), whatever can move first; sleeps in a libpgas wait on the
 * counters when nothing can.
 */
static void run(const char *call, struct msg *s, int ns, struct msg *r, int nr)
{
	int n = shmem__s.npes, left = ns + nr;
	uint64_t *words = (uint64_t *)(shmem__s.base + shmem__s.coll_off);
	size_t idx;

	for (int i = 0; i < ns; i++)
		s[i].done = 0, s[i].started = s[i].fin = 0;
	for (int i = 0; i < nr; i++)
		r[i].done = 0, r[i].started = r[i].fin = 0;
	while (left) {
		int moved = 0;

		for (int i = 0; i < ns; i++)
			while (!s[i].fin && try_send(call, &s[i])) {
				moved = 1;
				left -= s[i].fin;
			}
		for (int i = 0; i < nr; i++)
			while (!r[i].fin && try_recv(call, &r[i])) {
				moved = 1;
				left -= r[i].fin;
			}
		if (moved || !left)
			continue;
		for (int i = 0; i < 2 * n; i++)
			status[i] = 1;
		for (int i = 0; i < ns; i++)
			if (!s[i].fin) {	/* ack[pe] > sent - 1 */
				status[n + s[i].pe] = 0;
				vals[n + s[i].pe] = sent[s[i].pe] - 1;
			}
		for (int i = 0; i < nr; i++)
			if (!r[i].fin) {	/* seq[pe] > rcvd */
				status[r[i].pe] = 0;
				vals[r[i].pe] = rcvd[r[i].pe];
			}
		SHMEM__CHECK(call, pgas_wait_until_any_vector_u64(words, 2 * (size_t)n, status,
								  PGAS_CMP_GT, vals, &idx));
	}
}

/* An active set: PE_start + i * step, i < size; idx: this PE's i. */
struct aset {
	int start, step, size, idx;
};

static void aset_get(const char *call, int start, int log, int size, const long *pSync,
		     struct aset *a)
{
	int n;

	shmem__need_init(call);
	n = shmem__s.npes;
	if (start < 0 || start >= n || log < 0 || log > 30 || size < 1 ||
	    (long long)start + ((long long)(size - 1) << log) >= n)
		shmem__fatal(call, "active set PE_start %d, logPE_stride %d, PE_size %d does not "
			     "fit %d PEs", start, log, size, n);
	if (!pSync)
		shmem__fatal(call, "pSync is NULL");
	a->start = start;
	a->step = 1 << log;
	a->size = size;
	if (shmem__s.me < start || (shmem__s.me - start) % a->step ||
	    (shmem__s.me - start) / a->step >= size)
		shmem__fatal(call, "PE %d is not in the active set (PE_start %d, logPE_stride %d, "
			     "PE_size %d)", shmem__s.me, start, log, size);
	a->idx = (shmem__s.me - start) / a->step;
}

static inline int aset_pe(const struct aset *a, int i)
{
	return a->start + i * a->step;
}

/* Every PE in order: the world team (its calls above serve the active set). */
static inline bool aset_world(const struct aset *a)
{
	return a->start == 0 && a->size == shmem__s.npes && (a->step == 1 || a->size == 1);
}

/* Dissemination: round k sends to idx + 2^k and hears from idx - 2^k. */
static void as_sync(const char *call, const struct aset *a)
{
	for (int d = 1; d < a->size; d <<= 1) {
		struct msg s = { .pe = aset_pe(a, (a->idx + d) % a->size) };
		struct msg r = { .pe = aset_pe(a, (a->idx - d + a->size) % a->size) };

		run(call, &s, 1, &r, 1);
	}
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
	struct aset a;

	aset_get("shmem_barrier", PE_start, logPE_stride, PE_size, pSync, &a);
	SHMEM__CHECK("shmem_barrier", pgas_quiet());
	if (aset_world(&a))
		SHMEM__CHECK("shmem_barrier", pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS));
	else
		as_sync("shmem_barrier", &a);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
	struct aset a;

	aset_get("shmem_sync", PE_start, logPE_stride, PE_size, pSync, &a);
	if (aset_world(&a))
		SHMEM__CHECK("shmem_sync", pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS));
	else
		as_sync("shmem_sync", &a);
}

/* One message to every other member (s) and from every other (r), the
 * buffers filled by the caller; returns both arrays (size - 1 each). */
static void as_lists(const char *call, const struct aset *a, struct msg **s, struct msg **r)
{
	int m = a->size - 1, k = 0;

	*s = xmalloc(call, (size_t)(m ? m : 1) * sizeof(**s));
	*r = xmalloc(call, (size_t)(m ? m : 1) * sizeof(**r));
	for (int i = 0; i < a->size; i++) {
		if (i == a->idx)
			continue;
		memset(&(*s)[k], 0, sizeof((*s)[k]));
		memset(&(*r)[k], 0, sizeof((*r)[k]));
		(*s)[k].pe = (*r)[k].pe = aset_pe(a, i);
		k++;
	}
}

/* Index in the active set of the k-th other member. */
static inline int other(const struct aset *a, int k)
{
	return k < a->idx ? k : k + 1;
}

/* 1.4: the root's dest is left alone. */
static void as_bcast(const char *call, void *dest, const void *source, size_t nbytes, int root,
		     int start, int log, int size, long *pSync)
{
	struct aset a;
	struct msg *s, *r;

	aset_get(call, start, log, size, pSync, &a);
	if (aset_world(&a)) {
		bcast(call, SHMEM_TEAM_WORLD, dest, source, nbytes, root, true);
		return;
	}
	if (root < 0 || root >= size)
		shmem__fatal(call, "PE_root %d out of range (active set of %d PEs)", root, size);
	need_buf(call, a.idx == root ? source : dest, a.idx == root ? "source" : "dest", nbytes);
	as_lists(call, &a, &s, &r);
	if (a.idx == root) {
		for (int k = 0; k < size - 1; k++)
			s[k].buf = (char *)source, s[k].len = nbytes;
		run(call, s, size - 1, NULL, 0);
	} else {
		struct msg m = { .pe = aset_pe(&a, root), .buf = dest, .len = nbytes };

		run(call, NULL, 0, &m, 1);
	}
	free(s);
	free(r);
}

static void as_fcollect(const char *call, void *dest, const void *source, size_t nbytes,
			int start, int log, int size, long *pSync)
{
	struct aset a;
	struct msg *s, *r;

	aset_get(call, start, log, size, pSync, &a);
	if (aset_world(&a)) {
		fcollect(call, SHMEM_TEAM_WORLD, dest, source, nbytes);
		return;
	}
	need_buf(call, dest, "dest", nbytes);
	need_buf(call, source, "source", nbytes);
	if (nbytes)
		memmove((char *)dest + (size_t)a.idx * nbytes, source, nbytes);
	as_lists(call, &a, &s, &r);
	for (int k = 0; k < size - 1; k++) {
		s[k].buf = (char *)dest + (size_t)a.idx * nbytes;
		s[k].len = r[k].len = nbytes;
		r[k].buf = (char *)dest + (size_t)other(&a, k) * nbytes;
	}
	run(call, s, size - 1, r, size - 1);
	free(s);
	free(r);
}

/* The sizes first (8 bytes each way), then the blocks at their offsets. */
static void as_collect(const char *call, void *dest, const void *source, size_t nbytes,
		       int start, int log, int size, long *pSync)
{
	struct aset a;
	struct msg *s, *r;
	uint64_t mine = nbytes, *all;
	size_t off = 0, at = 0;

	aset_get(call, start, log, size, pSync, &a);
	if (aset_world(&a)) {
		collect(call, SHMEM_TEAM_WORLD, dest, source, nbytes);
		return;
	}
	need_buf(call, source, "source", nbytes);
	all = xmalloc(call, (size_t)size * sizeof(*all));
	all[a.idx] = mine;
	as_lists(call, &a, &s, &r);
	for (int k = 0; k < size - 1; k++) {
		s[k].buf = (char *)&mine;
		r[k].buf = (char *)&all[other(&a, k)];
		s[k].len = r[k].len = sizeof(mine);
	}
	run(call, s, size - 1, r, size - 1);
	for (int i = 0; i < size; i++) {
		if (i == a.idx)
			at = off;
		off += all[i];
	}
	need_buf(call, dest, "dest", off);
	if (nbytes)
		memmove((char *)dest + at, source, nbytes);
	for (int k = 0; k < size - 1; k++) {
		int i = other(&a, k);
		size_t o = 0;

		for (int j = 0; j < i; j++)
			o += all[j];
		s[k].buf = (char *)dest + at;
		s[k].len = nbytes;
		r[k].buf = (char *)dest + o;
		r[k].len = all[i];
	}
	run(call, s, size - 1, r, size - 1);
	free(all);
	free(s);
	free(r);
}

/* Block j of source (element k at (j * nelems + k) * sst) goes to member
 * j, whose dest gets it at ((idx * nelems + k) * dst); contiguous: 1, 1. */
static void as_alltoalls(const char *call, void *dest, const void *source, ptrdiff_t dst,
			 ptrdiff_t sst, size_t nelems, size_t es, int start, int log, int size,
			 long *pSync)
{
	struct aset a;
	struct msg *s, *r;
	size_t nb = nelems * es;
	char *pk, *un;

	aset_get(call, start, log, size, pSync, &a);
	if (aset_world(&a)) {
		alltoalls(call, SHMEM_TEAM_WORLD, dest, source, dst, sst, nelems, es);
		return;
	}
	check_strides(call, dst, sst);
	need_buf(call, dest, "dest", nb);
	need_buf(call, source, "source", nb);
	as_lists(call, &a, &s, &r);
	if (dst == 1 && sst == 1) {	/* contiguous: straight from source into dest */
		pk = (char *)source;
		un = dest;
	} else {
		pk = xmalloc(call, (size_t)size * nb);
		un = xmalloc(call, (size_t)size * nb);
		for (size_t e = 0; e < (size_t)size * nelems; e++)
			memcpy(pk + e * es, (const char *)source + e * (size_t)sst * es, es);
	}
	if (nb)
		memmove(un + (size_t)a.idx * nb, pk + (size_t)a.idx * nb, nb);
	for (int k = 0; k < size - 1; k++) {
		int i = other(&a, k);

		s[k].buf = pk + (size_t)i * nb;
		r[k].buf = un + (size_t)i * nb;
		s[k].len = r[k].len = nb;
	}
	run(call, s, size - 1, r, size - 1);
	if (un != dest) {
		for (size_t e = 0; e < (size_t)size * nelems; e++)
			memcpy((char *)dest + e * (size_t)dst * es, un + e * es, es);
		free(pk);
		free(un);
	}
	free(s);
	free(r);
}

#define AS_DEF(S)									\
void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root,	\
			int PE_start, int logPE_stride, int PE_size, long *pSync)	\
{											\
	as_bcast("shmem_broadcast" #S, dest, source, nelems * (S / 8), PE_root, PE_start,\
		 logPE_stride, PE_size, pSync);						\
}											\
void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start,	\
		      int logPE_stride, int PE_size, long *pSync)			\
{											\
	as_collect("shmem_collect" #S, dest, source, nelems * (S / 8), PE_start,	\
		   logPE_stride, PE_size, pSync);					\
}											\
void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start,	\
		       int logPE_stride, int PE_size, long *pSync)			\
{											\
	as_fcollect("shmem_fcollect" #S, dest, source, nelems * (S / 8), PE_start,	\
		    logPE_stride, PE_size, pSync);					\
}											\
void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start,	\
		       int logPE_stride, int PE_size, long *pSync)			\
{											\
	as_alltoalls("shmem_alltoall" #S, dest, source, 1, 1, nelems, S / 8, PE_start,	\
		     logPE_stride, PE_size, pSync);					\
}											\
void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,	\
			size_t nelems, int PE_start, int logPE_stride, int PE_size,	\
			long *pSync)							\
{											\
	as_alltoalls("shmem_alltoalls" #S, dest, source, dst, sst, nelems, S / 8,	\
		     PE_start, logPE_stride, PE_size, pSync);				\
}
AS_DEF(32)
AS_DEF(64)
#undef AS_DEF

/* Every member's source to every other; each combines them all in
 * active-set order (the same bits on every PE), then writes dest (which
 * may be source). */
static void as_reduce(const char *call, void *dest, const void *source, int nreduce,
		      size_t es, int kind, pgas_op_t op, comb_fn *comb, int start, int log,
		      int size, long *pSync)
{
	struct aset a;
	struct msg *s, *r;
	size_t nb;
	char *tmp;

	aset_get(call, start, log, size, pSync, &a);
	if (nreduce < 0)
		shmem__fatal(call, "nreduce %d", nreduce);
	if (aset_world(&a)) {
		reduce(call, SHMEM_TEAM_WORLD, dest, source, (size_t)nreduce, es, kind, op, comb);
		return;
	}
	nb = (size_t)nreduce * es;
	need_buf(call, dest, "dest", nb);
	need_buf(call, source, "source", nb);
	tmp = xmalloc(call, (size_t)size * nb);
	if (nb)
		memcpy(tmp + (size_t)a.idx * nb, source, nb);
	as_lists(call, &a, &s, &r);
	for (int k = 0; k < size - 1; k++) {
		s[k].buf = tmp + (size_t)a.idx * nb;
		r[k].buf = tmp + (size_t)other(&a, k) * nb;
		s[k].len = r[k].len = nb;
	}
	run(call, s, size - 1, r, size - 1);
	for (int i = 1; i < size; i++)
		comb(tmp, tmp + (size_t)i * nb, (size_t)nreduce);
	if (nb)
		memcpy(dest, tmp, nb);
	free(tmp);
	free(s);
	free(r);
}

#define TOALL_DEF(T, N, OP)								\
COMB_DEF(comb14, T, N, OP)								\
void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,	\
			       int logPE_stride, int PE_size, T *pWrk, long *pSync)	\
{											\
	(void)pWrk;									\
	as_reduce("shmem_" #N "_" #OP "_to_all", dest, source, nreduce, sizeof(T),	\
		  KIND(T), PGOP_##OP, comb14_##N##_##OP, PE_start, logPE_stride, PE_size,	\
		  pSync);								\
}
#define TOALL_AND(T, N) TOALL_DEF(T, N, and)
#define TOALL_OR(T, N) TOALL_DEF(T, N, or)
#define TOALL_XOR(T, N) TOALL_DEF(T, N, xor)
#define TOALL_MAX(T, N) TOALL_DEF(T, N, max)
#define TOALL_MIN(T, N) TOALL_DEF(T, N, min)
#define TOALL_SUM(T, N) TOALL_DEF(T, N, sum)
#define TOALL_PROD(T, N) TOALL_DEF(T, N, prod)
SHMEM__TOALL_BIT_TYPES(TOALL_AND)
SHMEM__TOALL_BIT_TYPES(TOALL_OR)
SHMEM__TOALL_BIT_TYPES(TOALL_XOR)
SHMEM__TOALL_CMP_TYPES(TOALL_MAX)
SHMEM__TOALL_CMP_TYPES(TOALL_MIN)
SHMEM__TOALL_ARITH_TYPES(TOALL_SUM)
SHMEM__TOALL_ARITH_TYPES(TOALL_PROD)
