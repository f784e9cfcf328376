// SPDX-License-Identifier: MIT
/*
 * coll_tune.c - which algorithm a collective uses.
 *
 * Every algorithm declares the operation it implements and its parameter
 * space (tree geometries, radix, put/get, pipeline segment).  A choice per
 * (team, operation, size class) is computed when the team is made, so a
 * call looks its algorithm up with one table access.  In order of
 * precedence a choice comes from pgas_coll_force(), from PGAS_COLL_<OP>,
 * from the tuning file that pgas-tune wrote (PGAS_COLL_TUNING; rank 0
 * reads it into its scratch and the others copy it from there), or from
 * the default model below.  PGAS_COLL_VERBOSE=1 prints each choice and
 * its source the first time a team uses it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include "coll.h"

#define G(x) (1u << (x))
#define X_PUT G(XFER_PUT)
#define X_GET G(XFER_GET)
#define TREES (G(GEOM_FLAT) | G(GEOM_KNOMIAL) | G(GEOM_KARY))
#define RANGES (G(GEOM_FLAT) | G(GEOM_KNOMIAL))	/* contiguous subtrees */

struct alg_decl {
	uint8_t kind, alg;
	const char *name;
	uint8_t geoms, xfers;
	bool radix, seg;
};

static const struct alg_decl decls[] = {
	{ PGAS_COLL_BARRIER, ALG_DISSEM, "dissem", 0, 0, true, false },
	{ PGAS_COLL_BROADCAST, ALG_TREE, "tree", TREES, X_PUT | X_GET, true, true },
	{ PGAS_COLL_SCATTER, ALG_TREE, "tree", RANGES, X_PUT | X_GET, true, false },
	{ PGAS_COLL_GATHER, ALG_TREE, "tree", RANGES, X_PUT | X_GET, true, false },
	{ PGAS_COLL_GATHER_ALL, ALG_FLAT, "flat", 0, X_PUT | X_GET, false, false },
	{ PGAS_COLL_GATHER_ALL, ALG_BRUCK, "bruck", 0, X_GET, true, false },
	{ PGAS_COLL_EXCHANGE, ALG_FLAT, "flat", 0, X_PUT | X_GET, false, false },
	{ PGAS_COLL_EXCHANGE, ALG_BRUCK, "bruck", 0, X_GET, true, false },
	/* Non-commutative reductions always take the flat, rank-ordered path. */
	{ PGAS_COLL_REDUCE, ALG_TREE, "tree", TREES, X_GET, true, true },
	{ PGAS_COLL_REDUCE_ALL, ALG_FLAT, "flat", 0, X_GET, false, false },
	{ PGAS_COLL_REDUCE_ALL, ALG_TREE, "tree", TREES, X_PUT | X_GET, true, true },
	{ PGAS_COLL_SCAN, ALG_FLAT, "flat", 0, X_GET, false, false },
	{ PGAS_COLL_SCAN, ALG_CHAIN, "chain", 0, X_GET, false, true },
	/* The reference algorithms (coll_ref.c): what a team with a member it
	 * cannot map runs; "ref" forces them anywhere (not swept by the tuner). */
	{ PGAS_COLL_BARRIER, ALG_REF, "ref", 0, 0, false, false },
	{ PGAS_COLL_BROADCAST, ALG_REF, "ref", 0, 0, false, false },
	{ PGAS_COLL_SCATTER, ALG_REF, "ref", 0, 0, false, false },
	{ PGAS_COLL_GATHER, ALG_REF, "ref", 0, 0, false, false },
	{ PGAS_COLL_GATHER_ALL, ALG_REF, "ref", 0, 0, false, false },
	{ PGAS_COLL_EXCHANGE, ALG_REF, "ref", 0, 0, false, false },
	{ PGAS_COLL_REDUCE, ALG_REF, "ref", 0, 0, false, false },
	{ PGAS_COLL_REDUCE_ALL, ALG_REF, "ref", 0, 0, false, false },
	{ PGAS_COLL_SCAN, ALG_REF, "ref", 0, 0, false, false },
	/* Their hierarchical forms, for a team across hosts (coll_ref.c; a
	 * team within one host runs "ref" for them).  Scan has none. */
	{ PGAS_COLL_BARRIER, ALG_HIER, "hier", 0, 0, false, false },
	{ PGAS_COLL_BROADCAST, ALG_HIER, "hier", 0, 0, false, false },
	{ PGAS_COLL_SCATTER, ALG_HIER, "hier", 0, 0, false, false },
	{ PGAS_COLL_GATHER, ALG_HIER, "hier", 0, 0, false, false },
	{ PGAS_COLL_GATHER_ALL, ALG_HIER, "hier", 0, 0, false, false },
	{ PGAS_COLL_EXCHANGE, ALG_HIER, "hier", 0, 0, false, false },
	{ PGAS_COLL_REDUCE, ALG_HIER, "hier", 0, 0, false, false },
	{ PGAS_COLL_REDUCE_ALL, ALG_HIER, "hier", 0, 0, false, false },
};
#define NDECLS (sizeof(decls) / sizeof(decls[0]))

static const char *const geom_names[] = { "", "flat", "knomial", "kary" };
static const char *const kind_names[] = {
	"barrier", "broadcast", "scatter", "gather", "gather_all", "exchange",
	"reduce", "reduce_all", "scan",
};
static const char *const source_names[] = { "default model", "tuning file",
					    "environment", "pgas_coll_force" };
/* Parameter values the tuner sweeps. */
static const unsigned radices[] = { 2, 3, 4, 8 };
static const uint32_t segs[] = { 8192, 65536, 1u << 20 };

const char *pgas_coll_kind_name(enum pgas_coll_kind kind)
{
	return (unsigned)kind < PGAS_COLL_NKINDS ? kind_names[kind] : "?";
}

/* size class: 0 for 0 bytes, else 1 + floor(log2(n)), capped */
unsigned pgas__size_bucket(size_t n)
{
	unsigned b = n ? 64 - (unsigned)__builtin_clzll((unsigned long long)n) : 0;

	return b < PGAS__COLL_NBUCKETS ? b : PGAS__COLL_NBUCKETS - 1;
}

static size_t bucket_low(unsigned b)
{
	return b ? (size_t)1 << (b - 1) : 0;
}

/* ---- specs ------------------------------------------------------------------------ */

void pgas__choice_format(const pgas_coll_choice_t *ch, char *buf, size_t len)
{
	const struct alg_decl *d = NULL;
	int at;

	for (size_t i = 0; i < NDECLS && !d; i++)
		if (decls[i].alg == ch->alg)
			d = &decls[i];
	at = snprintf(buf, len, "%s", d ? d->name : "?");
	if (ch->geom && at >= 0 && (size_t)at < len)
		at += snprintf(buf + at, len - (size_t)at, ":%s", geom_names[ch->geom]);
	if (ch->radix && at >= 0 && (size_t)at < len)
		at += snprintf(buf + at, len - (size_t)at, ":r%u", ch->radix);
	if (ch->xfer && at >= 0 && (size_t)at < len)
		at += snprintf(buf + at, len - (size_t)at, ":%s", ch->xfer == XFER_PUT ? "put" : "get");
	if (ch->seg && at >= 0 && (size_t)at < len)
		snprintf(buf + at, len - (size_t)at, ":s%u", ch->seg);
}

int pgas__choice_parse(int kind, unsigned n, const char *spec, pgas_coll_choice_t *ch,
		       char *msg, size_t len)
{
	char tmp[PGAS__CFG_STR], *save = NULL, *tok;
	const struct alg_decl *d = NULL;

	(void)n;
	if (strlen(spec) >= sizeof(tmp)) {
		snprintf(msg, len, "spec too long");
		return PGAS_ERR_INVAL;
	}
	strcpy(tmp, spec);
	tok = strtok_r(tmp, ":", &save);
	for (size_t i = 0; tok && i < NDECLS; i++)
		if (decls[i].kind == kind && !strcmp(decls[i].name, tok))
			d = &decls[i];
	if (!d) {
		snprintf(msg, len, "'%s': no algorithm '%s' for %s", spec, tok ? tok : "",
			 kind_names[kind]);
		return PGAS_ERR_INVAL;
	}
	*ch = (pgas_coll_choice_t){ .alg = d->alg };
	if (d->geoms)
		ch->geom = d->geoms & G(GEOM_KNOMIAL) ? GEOM_KNOMIAL : GEOM_FLAT;
	if (d->xfers)
		ch->xfer = d->xfers & X_GET ? XFER_GET : XFER_PUT;
	if (d->seg)
		ch->seg = 65536;
	while ((tok = strtok_r(NULL, ":", &save))) {
		char *end;
		unsigned long long v;
		unsigned g;

		for (g = 1; g < GEOM_NGEOMS && strcmp(tok, geom_names[g]); g++)
			;
		if (g < GEOM_NGEOMS && d->geoms & G(g)) {
			ch->geom = (uint8_t)g;
			continue;
		}
		if ((!strcmp(tok, "put") && d->xfers & X_PUT) ||
		    (!strcmp(tok, "get") && d->xfers & X_GET)) {
			ch->xfer = tok[0] == 'p' ? XFER_PUT : XFER_GET;
			continue;
		}
		errno = 0;
		v = (tok[0] == 'r' || tok[0] == 's') ? strtoull(tok + 1, &end, 10) : 0;
		if ((tok[0] == 'r' || tok[0] == 's') && !errno && end != tok + 1) {
			if (*end == 'K' || *end == 'k')
				v <<= 10, end++;
			else if (*end == 'M' || *end == 'm')
				v <<= 20, end++;
		}
		if (tok[0] == 'r' && d->radix && !errno && end != tok + 1 && !*end && v >= 2 &&
		    v <= 64) {
			ch->radix = (uint8_t)v;
			continue;
		}
		if (tok[0] == 's' && d->seg && !errno && end != tok + 1 && !*end && v >= 64 &&
		    v <= (64u << 20)) {
			ch->seg = (uint32_t)v;
			continue;
		}
		snprintf(msg, len, "'%s': '%s' is not a geometry, put/get, rRADIX (2-64) or "
			 "sSEGMENT (64-64M) that %s:%s takes", spec, tok, kind_names[kind], d->name);
		return PGAS_ERR_INVAL;
	}
	if (d->radix && ch->geom != GEOM_FLAT && !ch->radix)
		ch->radix = 2;
	if (ch->geom == GEOM_FLAT)
		ch->radix = 0;
	return PGAS_OK;
}

unsigned pgas_coll_candidates(enum pgas_coll_kind kind, unsigned nranks, char specs[][48],
			      unsigned max)
{
	unsigned count = 0;

	for (size_t i = 0; i < NDECLS; i++) {
		const struct alg_decl *d = &decls[i];

		if (d->kind != (uint8_t)kind || d->alg >= ALG_REF)
			continue;
		for (unsigned g = 0; g < GEOM_NGEOMS; g++) {
			if (d->geoms ? !(d->geoms & G(g)) : g != GEOM_NONE)
				continue;
			for (unsigned r = 0; r < 4; r++) {
				unsigned radix = radices[r];
				bool use_radix = d->radix && g != GEOM_FLAT;
				unsigned top = g ? nranks - 1 : nranks;	/* trees: < n */

				if (!use_radix && r)
					break;
				if (use_radix && r && radix > top)
					break;
				for (unsigned x = XFER_PUT; x <= XFER_GET; x++) {
					if (!(d->xfers & G(x)) && !(d->xfers == 0 && x == XFER_PUT))
						continue;
					for (unsigned s = 0; s < 3; s++) {
						pgas_coll_choice_t ch = {
							.alg = d->alg, .geom = (uint8_t)g,
							.radix = (uint8_t)(use_radix ? radix : 0),
							.xfer = (uint8_t)(d->xfers ? x : 0),
							.seg = d->seg ? segs[s] : 0 };

						if (!d->seg && s)
							break;
						if (count < max)
							pgas__choice_format(&ch, specs[count], 48);
						count++;
					}
				}
			}
		}
	}
	return count;
}

/* ---- the default model -------------------------------------------------------------- */

/*
 * Measured with pgas-tune on this project's 2-core machine (docs/libpgas.md):
 * on one host every transfer is one memcpy, so flat shapes win while a
 * root's own copies are few.  Up to PGAS__EAGER_MAX bytes, flat get shapes
 * go through eager slots and return without waiting for their readers;
 * between that and 64 KiB a put (the writer knows where) saves a round
 * trip; large all-reductions and scans on more than 2 ranks spread the
 * combining (reduce then broadcast; a pipelined chain).
 */
static pgas_coll_choice_t model(int kind, unsigned n, size_t nbytes)
{
	const pgas_coll_choice_t flat_get = { ALG_TREE, GEOM_FLAT, 0, XFER_GET, 1u << 20 };
	const pgas_coll_choice_t flat_put = { ALG_TREE, GEOM_FLAT, 0, XFER_PUT, 1u << 20 };
	bool eager = nbytes <= PGAS__EAGER_MAX / 2, mid = !eager && nbytes < 65536;

	switch (kind) {
	case PGAS_COLL_BARRIER:
		return (pgas_coll_choice_t){ ALG_DISSEM, 0, 2, 0, 0 };
	case PGAS_COLL_BROADCAST:
		if (n > 4 && !eager && !mid)
			return (pgas_coll_choice_t){ ALG_TREE, GEOM_KNOMIAL, 2, XFER_GET, 1u << 20 };
		return mid ? flat_put : flat_get;
	case PGAS_COLL_SCATTER:
	case PGAS_COLL_GATHER:
		return (pgas_coll_choice_t){ ALG_TREE, GEOM_FLAT, 0, XFER_GET, 0 };
	case PGAS_COLL_GATHER_ALL:
	case PGAS_COLL_EXCHANGE:
		return (pgas_coll_choice_t){ ALG_FLAT, 0, 0,
					     (mid || (kind == PGAS_COLL_GATHER_ALL && !eager)) ?
					     XFER_PUT : XFER_GET, 0 };
	case PGAS_COLL_REDUCE:
		if (n > 4 && !eager)
			return (pgas_coll_choice_t){ ALG_TREE, GEOM_KNOMIAL, 2, XFER_GET, 65536 };
		return flat_get;
	case PGAS_COLL_REDUCE_ALL:
		if (n <= 2 || eager)
			return (pgas_coll_choice_t){ ALG_FLAT, 0, 0, XFER_GET, 0 };
		return flat_put;
	case PGAS_COLL_SCAN:
		if (n <= 2 || eager)
			return (pgas_coll_choice_t){ ALG_FLAT, 0, 0, XFER_GET, 0 };
		return (pgas_coll_choice_t){ ALG_CHAIN, 0, 0, XFER_GET, 1u << 20 };
	}
	return flat_get;
}

/*
 * The host level: a team with members on other hosts runs the AM-only
 * algorithms, flat ("ref") or hierarchical ("hier", coll_ref.c).  The
 * model prices the busiest rank's critical path of each in messages and
 * bytes: a message to another host costs X_LAT us and X_BYTE us per byte
 * (the fabric), one inside the host L_LAT and L_BYTE (a shared-memory
 * ring); sends and receives of one rank are serial.  n members, G groups
 * (hosts), g members in the largest, B bytes per block:
 *   flat                       hierarchical
 *   barrier  log2(n) X          log2(G) X + g L (gather and release)
 *   bcast    (n-g) X(B) + g L(B)  L(B) + (G-1) X(B) + g L(B)
 *   scatter  like bcast          L(nB) + (G-1) X(gB) + g L(B)
 *   gather/reduce: mirror of scatter / bcast (the root receives)
 *   allgather/allreduce/fcollect: 2 (n-g) X(B) + 2 g L(B)
 *            g L(B) + 2 (G-1) X(gB) + g L(nB or B)
 *   exchange 2 (n-g) X(B) + 2 g L(B)
 *            g L(nB) + 2 (G-1) X(g g B) + g L(nB)
 * X(b) = X_LAT + b X_BYTE, L(b) likewise.  Measured on loopback (tcp
 * provider, docs/libpgas.md "Across hosts"): a fabric message ~15 us, a
 * ring message ~1 us; the per-byte costs are a 1 GB/s fabric and a
 * 5 GB/s copy.  So the hierarchy wins while messages dominate (small
 * blocks, several ranks per host) and flat only where the hierarchy's
 * extra copy through the leader outweighs the messages it saves.
 */
#define X_LAT 15.0
#define X_BYTE (1.0 / 1000)
#define L_LAT 1.0
#define L_BYTE (1.0 / 5000)

static double xc(double b) { return X_LAT + b * X_BYTE; }
static double lc(double b) { return L_LAT + b * L_BYTE; }

static pgas_coll_choice_t model_hosts(int kind, const struct pgas_team *t, size_t nbytes)
{
	double n = t->size, G = t->hgroups, g = 0, B = (double)nbytes, flat, hier;
	unsigned lg = 0, lG = 0;

	for (unsigned h = 0; h < t->hgroups; h++) {
		unsigned c = 0;

		for (unsigned i = 0; i < t->size; i++)
			c += t->hgroup[i] == h;
		g = c > g ? c : g;
	}
	while ((1u << lg) < t->size)
		lg++;
	while ((1u << lG) < t->hgroups)
		lG++;
	switch (kind) {
	case PGAS_COLL_BARRIER:
		flat = lg * X_LAT;
		hier = lG * X_LAT + 2 * g * L_LAT;
		break;
	case PGAS_COLL_BROADCAST:
	case PGAS_COLL_REDUCE:
		flat = (n - g) * xc(B) + g * lc(B);
		hier = lc(B) + (G - 1) * xc(kind == PGAS_COLL_REDUCE ? g * B : B) + g * lc(B);
		break;
	case PGAS_COLL_SCATTER:
	case PGAS_COLL_GATHER:
		flat = (n - g) * xc(B) + g * lc(B);
		hier = lc(n * B) + (G - 1) * xc(g * B) + g * lc(B);
		break;
	case PGAS_COLL_GATHER_ALL:
	case PGAS_COLL_REDUCE_ALL:
		flat = 2 * (n - g) * xc(B) + 2 * g * lc(B);
		hier = g * lc(B) + 2 * (G - 1) * xc(g * B) +
		       g * lc(kind == PGAS_COLL_GATHER_ALL ? n * B : B);
		break;
	case PGAS_COLL_EXCHANGE:
		flat = 2 * (n - g) * xc(B) + 2 * g * lc(B);
		hier = g * lc(n * B) + 2 * (G - 1) * xc(g * g * B) + g * lc(n * B);
		break;
	default:	/* scan: flat only */
		flat = 0;
		hier = 1;
		break;
	}
	return (pgas_coll_choice_t){ .alg = hier < flat ? ALG_HIER : ALG_REF };
}

/* ---- the tuning file and forcing ------------------------------------------------------- */

struct tune_entry {
	uint8_t kind, pad;
	uint16_t nranks;
	uint32_t pad2;
	uint64_t min_bytes;
	pgas_coll_choice_t choice;
};

struct tune_area {
	uint32_t status;	/* 0 no file, 1 loaded, 2 error */
	uint32_t count;
	char msg[248];
	struct tune_entry entries[];
};

static struct tune_entry *entries;
static unsigned nentries;
static bool forced[PGAS_COLL_NKINDS];
static pgas_coll_choice_t forced_choice[PGAS_COLL_NKINDS];

static int kind_of(const char *name)
{
	for (int k = 0; k < PGAS_COLL_NKINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

void pgas__tune_load(void *mem, size_t len)
{
	struct tune_area *a = mem;
	size_t cap = (len - sizeof(*a)) / sizeof(struct tune_entry);
	const char *path = pgas__cfg.coll_tuning;
	char line[256], kname[32], spec[PGAS__CFG_STR], err[160];
	unsigned lineno = 0, nr;
	unsigned long long min;
	FILE *f;

	a->status = 0;
	a->count = 0;
	if (!*path)
		return;
	f = fopen(path, "r");
	if (!f) {
		snprintf(a->msg, sizeof(a->msg), "PGAS_COLL_TUNING=%.80s: %s", path, strerror(errno));
		a->status = 2;
		return;
	}
	a->status = 1;
	while (fgets(line, sizeof(line), f)) {
		struct tune_entry *e = &a->entries[a->count];
		int k;

		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
			continue;
		if (sscanf(line, "%31s %u %llu %127s", kname, &nr, &min, spec) != 4 ||
		    (k = kind_of(kname)) < 0 || nr == 0 || nr > 65535) {
			snprintf(a->msg, sizeof(a->msg),
				 "PGAS_COLL_TUNING=%.80s line %u: expected 'operation nranks min_bytes "
				 "spec'", path, lineno);
			a->status = 2;
			break;
		}
		if (a->count == cap) {
			snprintf(a->msg, sizeof(a->msg), "PGAS_COLL_TUNING=%.80s: over %zu entries",
				 path, cap);
			a->status = 2;
			break;
		}
		*e = (struct tune_entry){ .kind = (uint8_t)k, .nranks = (uint16_t)nr,
					  .min_bytes = min };
		if (pgas__choice_parse(k, nr, spec, &e->choice, err, sizeof(err))) {
			snprintf(a->msg, sizeof(a->msg), "PGAS_COLL_TUNING=%.80s line %u: %.140s", path,
				 lineno, err);
			a->status = 2;
			break;
		}
		a->count++;
	}
	fclose(f);
}

int pgas__tune_share(const void *mem, char *msg, size_t len)
{
	const struct tune_area *a = mem;
	char err[200];

	if (a->status == 2) {
		snprintf(msg, len, "%s", a->msg);
		return PGAS_ERR_INVAL;
	}
	free(entries);
	entries = NULL;
	nentries = 0;
	if (a->status == 1 && a->count) {
		entries = malloc(a->count * sizeof(*entries));
		if (!entries) {
			snprintf(msg, len, "no memory for %u tuning entries", a->count);
			return PGAS_ERR_NOMEM;
		}
		memcpy(entries, a->entries, a->count * sizeof(*entries));
		nentries = a->count;
	}
	for (int k = 0; k < PGAS_COLL_NKINDS; k++) {
		forced[k] = pgas__cfg.coll_force[k][0] != 0;
		if (forced[k] && pgas__choice_parse(k, pgas__g.nranks, pgas__cfg.coll_force[k],
						    &forced_choice[k], err, sizeof(err))) {
			char up[16];
			unsigned i;

			for (i = 0; kind_names[k][i] && i < sizeof(up) - 1; i++)
				up[i] = (char)toupper((unsigned char)kind_names[k][i]);
			up[i] = 0;
			snprintf(msg, len, "PGAS_COLL_%s: %s", up, err);
			return PGAS_ERR_INVAL;
		}
	}
	return PGAS_OK;
}

/* The file's entry for kind at team size n and size class b, if any. */
static const struct tune_entry *file_entry(int kind, unsigned n, unsigned b)
{
	const struct tune_entry *best = NULL, *lowest = NULL;
	unsigned tuned_n = 0;

	/* The tuned rank count nearest to n (ties: the smaller). */
	for (unsigned i = 0; i < nentries; i++) {
		unsigned m = entries[i].nranks;

		if (entries[i].kind != kind)
			continue;
		if (!tuned_n || (m > n ? m - n : n - m) < (tuned_n > n ? tuned_n - n : n - tuned_n) ||
		    ((m > n ? m - n : n - m) == (tuned_n > n ? tuned_n - n : n - tuned_n) &&
		     m < tuned_n))
			tuned_n = m;
	}
	for (unsigned i = 0; i < nentries; i++) {
		const struct tune_entry *e = &entries[i];

		if (e->kind != kind || e->nranks != tuned_n)
			continue;
		if (!lowest || e->min_bytes < lowest->min_bytes)
			lowest = e;
		if (e->min_bytes <= bucket_low(b) && (!best || e->min_bytes > best->min_bytes))
			best = e;
	}
	return best ? best : lowest;
}

static void tune_kind(struct pgas_team *t, int k)
{
	if (t->ref) {	/* a member it cannot map: the reference algorithms only */
		bool f = forced[k] && forced_choice[k].alg >= ALG_REF;

		for (unsigned b = 0; b < PGAS__COLL_NBUCKETS; b++) {
			/* Across hosts the model picks flat or hierarchical;
			 * PGAS_COLL_<KIND>=ref / hier forces one (hier where the
			 * team spans hosts). */
			t->choice[k][b] = t->hgroups < 2 ? (pgas_coll_choice_t){ .alg = ALG_REF } :
					  f ? forced_choice[k] :
					  model_hosts(k, t, bucket_low(b));
			t->why[k][b] = f && t->hgroups > 1 ? FROM_ENV : FROM_MODEL;
		}
		t->told[k] = 0;
		return;
	}
	for (unsigned b = 0; b < PGAS__COLL_NBUCKETS; b++) {
		const struct tune_entry *e = forced[k] ? NULL : file_entry(k, t->size, b);

		/* "hier" on a team within one host: the mapped model. */
		bool f = forced[k] && forced_choice[k].alg != ALG_HIER;

		if (e && e->choice.alg == ALG_HIER)	/* a file's "hier": not within a host */
			e = NULL;

		t->choice[k][b] = f ? forced_choice[k] :
				  e ? e->choice : model(k, t->size, bucket_low(b));
		t->why[k][b] = f ? FROM_ENV : e ? FROM_FILE : FROM_MODEL;
	}
	t->told[k] = 0;
}

void pgas__tune_team(struct pgas_team *t)
{
	for (int k = 0; k < PGAS_COLL_NKINDS; k++)
		tune_kind(t, k);
}

static const char *alg_name(unsigned alg)
{
	static const char *const names[ALG_NALGS] = {
		[ALG_TREE] = "tree", [ALG_FLAT] = "flat", [ALG_BRUCK] = "bruck",
		[ALG_CHAIN] = "chain", [ALG_DISSEM] = "dissem", [ALG_REF] = "ref",
		[ALG_HIER] = "hier",
	};

	return alg < ALG_NALGS ? names[alg] : "?";
}

/* PGAS_STATS, PGAS_TRACE (core/stats.c): collectives by kind and algorithm. */
static _Atomic uint64_t coll_calls[PGAS_COLL_NKINDS][ALG_NALGS];

void pgas__ev_coll(unsigned kind, unsigned alg)
{
	char name[64];

	if (!pgas__notes_mine() || kind >= PGAS_COLL_NKINDS || alg >= ALG_NALGS)
		return;
	if (pgas__cfg.stats)
		atomic_fetch_add_explicit(&coll_calls[kind][alg], 1, memory_order_relaxed);
	if (pgas__cfg.trace & PGAS__TRACE_COLL) {
		snprintf(name, sizeof(name), "coll.%s.%s", kind_names[kind], alg_name(alg));
		pgas__trace_event(PGAS__TRACE_COLL, name, pgas__g.rank, 0);
	}
}

void pgas__coll_report(FILE *f)
{
	for (unsigned k = 0; k < PGAS_COLL_NKINDS; k++)
		for (unsigned a = 0; a < ALG_NALGS; a++) {
			uint64_t c = atomic_load_explicit(&coll_calls[k][a], memory_order_relaxed);

			if (c)
				fprintf(f, "coll.%s.%s %" PRIu64 " 0\n", kind_names[k],
					alg_name(a), c);
		}
}

void pgas__choose(struct pgas__coll_op *op)
{
	struct pgas_team *t = op->team;
	unsigned b = pgas__size_bucket(op->nbytes);
	char spec[64];

	op->ch = t->choice[op->kind][b];
	/* What runs: a non-commutative reduction takes the rank-ordered flat
	 * path whatever the choice (coll_alg.c). */
	if (PGAS__UNLIKELY(pgas__notes_on))
		pgas__ev_coll(op->kind, !op->commutative && op->ch.alg < ALG_REF &&
			      (op->kind == PGAS_COLL_REDUCE || op->kind == PGAS_COLL_REDUCE_ALL) ?
			      ALG_FLAT : op->ch.alg);
	if (pgas__cfg.coll_verbose && !(t->told[op->kind] & (1u << b))) {
		t->told[op->kind] |= 1u << b;
		if (t->rank == 0) {
			pgas__choice_format(&op->ch, spec, sizeof(spec));
			fprintf(stderr, "pgas coll: team of %u (job rank %u first): %s of %zu B "
				"(class >= %zu B): %s, from the %s%s\n", t->size, t->members[0],
				kind_names[op->kind], op->nbytes, bucket_low(b), spec,
				t->ref && t->hgroups > 1 ?
				(t->why[op->kind][b] == FROM_MODEL ? "host-level model (team across hosts)"
								   : source_names[t->why[op->kind][b]]) :
				t->ref ? "reference algorithms: a member is not mapped" :
				source_names[t->why[op->kind][b]],
				op->commutative ? "" : "; non-commutative: rank-ordered flat path");
		}
	}
}

/* ---- public knobs -------------------------------------------------------------------------- */

static int coll_force(pgas_team_t team, enum pgas_coll_kind kind, const char *spec)
{
	static const char call[] = "pgas_coll_force";
	pgas_coll_choice_t ch;
	char err[200];
	int rc = pgas__team_check(call, team);

	if (rc)
		return rc;
	if ((unsigned)kind >= PGAS_COLL_NKINDS)
		return pgas__err(PGAS_ERR_INVAL, call, "kind %d is not a collective", (int)kind);
	if (!spec) {
		tune_kind(team, kind);
		return PGAS_OK;
	}
	if (pgas__choice_parse(kind, team->size, spec, &ch, err, sizeof(err)))
		return pgas__err(PGAS_ERR_INVAL, call, "%s", err);
	/* A valid spec, but this team runs the reference algorithms only, or
	 * PGAS_COLL_<KIND>=ref forces them (the test knob of these paths). */
	/* A team across hosts: "ref" or "hier" as asked, a mapped algorithm
	 * (which cannot run there) leaves the model's choice. */
	if ((team->ref && team->hgroups > 1 && ch.alg < ALG_REF) ||
	    (!team->ref && ch.alg == ALG_HIER)) {	/* "hier" within one host: the model */
		tune_kind(team, kind);
		return PGAS_OK;
	}
	if (team->ref || (forced[kind] && forced_choice[kind].alg == ALG_REF))
		ch = (pgas_coll_choice_t){ .alg = ch.alg == ALG_HIER && team->hgroups > 1 ? ALG_HIER
											: ALG_REF };
	for (unsigned b = 0; b < PGAS__COLL_NBUCKETS; b++) {
		team->choice[kind][b] = ch;
		team->why[kind][b] = FROM_CALL;
	}
	team->told[kind] = 0;
	return PGAS_OK;
}

int pgas_coll_describe(pgas_team_t team, enum pgas_coll_kind kind, size_t nbytes, char *buf,
		       size_t len)
{
	static const char call[] = "pgas_coll_describe";
	int rc = pgas__team_check(call, team);

	if (rc)
		return rc;
	if ((unsigned)kind >= PGAS_COLL_NKINDS)
		return pgas__err(PGAS_ERR_INVAL, call, "kind %d is not a collective", (int)kind);
	if (!buf || !len)
		return pgas__err(PGAS_ERR_INVAL, call, "buf is NULL or len 0");
	pgas__choice_format(&team->choice[kind][pgas__size_bucket(nbytes)], buf, len);
	return PGAS_OK;
}

int pgas_coll_force(pgas_team_t team, enum pgas_coll_kind kind, const char *spec)
{
	int rc = pgas__mt_enter("pgas_coll_force");	/* calls being started read the choices */

	return rc ? rc : pgas__mt_leave(coll_force(team, kind, spec));
}
