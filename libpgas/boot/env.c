// SPDX-License-Identifier: MIT
/*
 * env.c - the single table of environment variables.
 *
 * Every knob of libpgas is one row here: name, scope, default, bounds and
 * what it does.  PGAS_VERBOSEENV=1 prints the table with the values in force.
 *
 * The scope says who decides a variable's value in a job of several ranks.
 * A variable that shapes memory the ranks share (ring geometry, the library
 * area behind each segment) or what a sender encodes and a receiver decodes
 * (packet sizes, collective algorithms and checks) must be the same on every
 * rank: pgas_init compares them over the launcher before any conduit is set
 * up (pgas__config_agree) and fails on every rank, naming the variable, the
 * ranks and their values, where they differ.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "boot.h"
#include "bootstrap.h"	/* the variables pgasrun sets for its ranks */
#include "conduit.h"	/* the conduit kinds PGAS_CONDUIT picks from */

struct pgas_config pgas__cfg = { .error_mode = PGAS_ERRMODE_PRINT };
bool pgas__cfg_loaded;

enum var_kind { VAR_UINT, VAR_SIZE, VAR_ENUM, VAR_PATH, VAR_STR };

enum var_scope {
	ENV_UNSET,	/* a row without a scope is a bug of this table */
	ENV_LOCAL,	/* each rank its own: how it waits, reports, sizes its segment */
	ENV_AGREE,	/* layout or protocol: the same on every rank, checked at pgas_init */
	ENV_AGREE_KMOD,	/* the same, where the job runs over pgas.ko (else unused) */
	ENV_RANK0,	/* rank 0's value is shared with every rank; the others' are unused */
};

struct env_var {
	const char *name;
	enum var_scope scope;
	enum var_kind kind;
	const char *dflt;
	unsigned long long min, max;
	const char *const *choices;	/* VAR_ENUM: NULL-terminated */
	size_t offset;			/* into struct pgas_config */
	const char *help;
};

static const char *const wait_modes[] = { "auto", "spin", "yield", "block", NULL };
static const char *const error_modes[] = { "print", "quiet", "abort", NULL };
/* PGAS_CONDUIT's: auto, then the names conduit/conduits.c registers. */
#define MAX_CHOICES 8
static const char *conduits[MAX_CHOICES + 1] = { "auto", NULL };
static const char *const unknown_modes[] = { "warn", "ignore", "fail", NULL };
static const char *const map_modes[] = { "auto", "none", NULL };
static const char *const ofi_am_modes[] = { "auto", "fabric", NULL };
static const char *const hier_modes[] = { "auto", "flat", NULL };
static const char *const ofi_rma_modes[] = { "fabric", "am", "bounce", "dc", "flush", NULL };
static const char *const ofi_atomic_modes[] = { "fabric", "am", NULL };

#define CFG(field) offsetof(struct pgas_config, field)
static const struct env_var vars[] = {
	/* First, so that a failure to load the rest is reported as asked. */
	{ "PGAS_ERROR_MODE", ENV_LOCAL, VAR_ENUM, "print", 0, 0, error_modes, CFG(error_mode),
	  "on a failed call: print the message, stay quiet, or abort" },
	/* Compared as resolved (auto = ofi, kmod or shm): a job cannot mix conduits. */
	{ "PGAS_CONDUIT", ENV_AGREE, VAR_ENUM, "auto", 0, 0, conduits, CFG(conduit),
	  "conduit (pgasrun --version lists those built): auto = ofi if the launcher reports "
	  "more than one host, else kmod if PGAS_DEVICE is usable, else shm" },
	{ "PGAS_DEVICE", ENV_AGREE_KMOD, VAR_PATH, "/dev/pgas0", 0, 0, NULL, CFG(device),
	  "pgas.ko device node of the kmod conduit" },
	/* none: every other rank is reached the way a conduit without
	 * mappings (libfabric) reaches it, so that the remote paths run in
	 * every test on one host.  A job cannot mix the two. */
	{ "PGAS_MAP_PEERS", ENV_AGREE, VAR_ENUM, "auto", 0, 0, map_modes, CFG(map_peers),
	  "auto = load/store into every peer the conduit maps; none = reach every other rank "
	  "through the paths of a peer that is not mapped" },
	/* fabric: the ofi conduit's AM transport tested on one host while the
	 * rest stays mapped (docs/ofi.md). */
	{ "PGAS_OFI_AM", ENV_AGREE, VAR_ENUM, "auto", 0, 0, ofi_am_modes, CFG(ofi_am),
	  "ofi conduit: AM over the fabric to the ranks not mapped (auto), or to every other "
	  "rank (fabric)" },
	/* Local: each rank judges its own peers (docs/ofi.md, "Failure"). */
	{ "PGAS_OFI_TIMEOUT", ENV_LOCAL, VAR_UINT, "30", 0, 86400, NULL, CFG(ofi_timeout),
	  "ofi conduit: seconds a remote peer may stay silent while this rank polls (pinged "
	  "after half of it) before it is declared gone; 0 = never" },
	/* Local: each rank sleeps as it likes (0: the comparison, docs/ofi.md). */
	{ "PGAS_OFI_WAIT_FD", ENV_LOCAL, VAR_UINT, "1", 0, 1, NULL, CFG(ofi_wait_fd),
	  "ofi conduit, PGAS_WAIT_MODE=block: sleep on the completion queue's wait fd and an "
	  "eventfd (1), or nap on the doorbell (0)" },
	/* Both ends of each step must run the same algorithm: agreed.  flat:
	 * the comparison (tests, measurements) with the hierarchy's. */
	{ "PGAS_HIER", ENV_AGREE, VAR_ENUM, "auto", 0, 0, hier_modes, CFG(hier),
	  "job across hosts: barrier and collectives by host (a leader per host over the "
	  "fabric, shared memory inside) where the model prefers it (auto), or flat over all "
	  "ranks (flat)" },
	/* A test of a job across hosts on one host: host_of(r) = r * N / nranks
	 * (bootstrap.c), so that ranks of another pseudo-host are not mapped and
	 * the ofi conduit reaches them over the fabric, as on a cluster.  An
	 * environment variable rather than a pgasrun option: mpirun-free tests
	 * of every launcher path (and oshrun) take it unchanged.  Ignored under
	 * PMIx, whose hosts are real. */
	{ "PGAS_FAKE_HOSTS", ENV_AGREE, VAR_UINT, "0", 0, PGAS_MAX_ENDPOINTS, NULL, CFG(fake_hosts),
	  "test: a pgasrun job's ranks on N pseudo-hosts of consecutive ranks (0 = off); "
	  "needs PGAS_CONDUIT=ofi for N > 1" },
	/* am: the reference protocol (the measurement's baseline); bounce:
	 * local buffers through registered copies as under FI_MR_LOCAL, so
	 * that path runs where no provider here asks for it. */
	{ "PGAS_OFI_RMA", ENV_LOCAL, VAR_ENUM, "fabric", 0, 0, ofi_rma_modes, CFG(ofi_rma),
	  "ofi conduit: RMA to ranks reached over the fabric by fi_write/fi_read (fabric), by "
	  "AM (am), by fi_write/fi_read through registered bounce buffers (bounce), or with "
	  "delivery completion on each write instead of a read behind them (dc), or with every "
	  "write delivered by a read behind it, a lone one too (flush, tests)" },
	/* Local: how many of a process's endpoints get a fabric endpoint of
	 * their own is its own business (docs/ofi.md, "Fabric endpoints"). */
	{ "PGAS_OFI_EPS", ENV_LOCAL, VAR_UINT, "16", 0, 4096, NULL, CFG(ofi_eps),
	  "ofi conduit: endpoints beyond the primary (pgas_ep_create) that get a fabric "
	  "endpoint and completion queue of their own; those created beyond it share the "
	  "primary's (0 = all share it)" },
	/* Agreed: every rank must make the same domains fabric ones, or a
	 * word would see NIC and CPU atomics at once (docs/ofi.md). */
	{ "PGAS_OFI_ATOMIC", ENV_AGREE, VAR_ENUM, "fabric", 0, 0, ofi_atomic_modes,
	  CFG(ofi_atomic),
	  "ofi conduit, some rank not mapped: atomic domains whose type and operations the "
	  "provider has do every operation by fi_atomic, the own rank's too (fabric), or all "
	  "domains use AM to unmapped ranks and CPU atomics on mapped ones (am)" },
	/* Local, but block on any rank makes every rank ring doorbells
	 * (pgas__config_agree tells pgas_init). */
	{ "PGAS_WAIT_MODE", ENV_LOCAL, VAR_ENUM, "auto", 0, 0, wait_modes, CFG(wait_mode),
	  "how waits idle: auto = spin if ranks <= cpus, else spin-then-yield" },
	/* 0: chosen by wait.c (pgas__wait_setup, pgas__wait_fabric). */
	{ "PGAS_SPIN_LIMIT", ENV_LOCAL, VAR_UINT, "0", 0, 100000000, NULL, CFG(spin_limit),
	  "polls before a yield/block wait gives the cpu away; 0 = auto: 2000, or 20 where "
	  "ranks outnumber cpus (auto wait mode) or a fabric's progress runs in every poll" },
	{ "PGAS_MBOX_SLOTS", ENV_AGREE, VAR_UINT, "256", 16, 32768, NULL, CFG(mbox_slots),
	  "64-byte slots per mailbox ring (power of two)" },
	{ "PGAS_NOTIFY_ENTRIES", ENV_AGREE, VAR_UINT, "1024", 16, 1u << 20, NULL,
	  CFG(notify_entries),
	  "entries of the notification ring (power of two)" },
	{ "PGAS_MAX_MEDIUM", ENV_AGREE, VAR_UINT, "8192", 512, 1u << 20, NULL, CFG(max_medium),
	  "largest AM Medium payload in bytes" },
	/* Measured (docs/libpgas.md): bounce buffers beat multi-slot packets in
	 * round trip and rate for every Medium larger than one slot. */
	{ "PGAS_AM_PACKET_MAX", ENV_AGREE, VAR_UINT, "56", 56, PGAS_STATUS_MAX_LEN, NULL,
	  CFG(packet_max),
	  "largest AM body sent as VELO packets; larger Medium payloads use a bounce buffer" },
	{ "PGAS_BOUNCE_BUFS", ENV_AGREE, VAR_UINT, "8", 1, 64, NULL, CFG(bounce_bufs),
	  "bounce buffers per source rank and channel" },
	/* Every rank's slab (shm) and the job's endpoint table (pgas.ko) are
	 * sized by it; eids are below nranks * PGAS_EP_MAX. */
	{ "PGAS_EP_MAX", ENV_AGREE, VAR_UINT, "16", 1, 256, NULL, CFG(ep_max),
	  "endpoints a rank may create over its life, its primary included (pgas_ep_create)" },
	{ "PGAS_SEGMENT_SIZE", ENV_LOCAL, VAR_SIZE, "64M", 4096, 1ull << 40, NULL,
	  CFG(segment_size),
	  "segment bytes when pgas_attach is given 0 (suffix K, M, G)" },
	/* Statistics and tracing (core/stats.c, docs/stats.md). */
	{ "PGAS_STATS", ENV_LOCAL, VAR_UINT, "0", 0, 1, NULL, CFG(stats),
	  "1 = at its end each rank prints the counts and bytes of what it did (inline calls "
	  "only in a program built with -DPGAS_INSTRUMENT)" },
	{ "PGAS_STATS_FILE", ENV_LOCAL, VAR_STR, "", 0, 0, NULL, CFG(stats_file),
	  "PGAS_STATS's file, %r the rank; empty = standard error" },
	{ "PGAS_TRACE", ENV_LOCAL, VAR_UINT, "0", 0, 31, NULL, CFG(trace),
	  "events each rank writes as they happen, a mask: 1 put/get, 2 atomics, 4 AM, "
	  "8 waits, 16 barriers and collectives" },
	{ "PGAS_TRACE_FILE", ENV_LOCAL, VAR_STR, "pgas-trace.%r", 0, 0, NULL, CFG(trace_file),
	  "PGAS_TRACE's file, %r the rank" },
	{ "PGAS_VERBOSEENV", ENV_LOCAL, VAR_UINT, "0", 0, 2, NULL, CFG(verbose_env),
	  "1 = rank 0 prints this table at init; 2 = with the unset forcing knobs" },
	{ "PGAS_UNKNOWN_ENV", ENV_LOCAL, VAR_ENUM, "warn", 0, 0, unknown_modes, CFG(unknown_env),
	  "a PGAS_* variable not in this table: rank 0 warns (naming the closest), ignore, or fail pgas_init" },
	/* Collectives (docs/libpgas.md, "Collectives").  Sizes here size the
	 * library area behind every segment: they must agree. */
	{ "PGAS_COLL_STAGE", ENV_AGREE, VAR_SIZE, "1M", 4096, 1ull << 30, NULL, CFG(coll_stage),
	  "staging bytes of the job's team; local-mode calls move larger data in chunks" },
	{ "PGAS_COLL_POOL", ENV_AGREE, VAR_SIZE, "16M", 0, 1ull << 36, NULL, CFG(coll_pool),
	  "bytes behind every segment for the other teams' regions (a team takes one on each member)" },
	{ "PGAS_COLL_TEAM_STAGE", ENV_AGREE, VAR_SIZE, "32K", 4096, 1ull << 30, NULL,
	  CFG(coll_team_stage),
	  "staging bytes of every team but the job's (taken from PGAS_COLL_POOL)" },
	{ "PGAS_COLL_TUNING", ENV_RANK0, VAR_STR, "", 0, 0, NULL, CFG(coll_tuning),
	  "tuning file written by pgas-tune (read by rank 0, shared); empty = model" },
	{ "PGAS_COLL_VERBOSE", ENV_LOCAL, VAR_UINT, "0", 0, 1, NULL, CFG(coll_verbose),
	  "1 = print each team's algorithm choice per operation and size class, and why" },
	{ "PGAS_COLL_DEBUG", ENV_AGREE, VAR_UINT, "0", 0, 1, NULL, CFG(coll_debug),
	  "1 = check that members pass the same sizes, roots, ops and flags" },
	{ "PGAS_COLL_UNMAPPED", ENV_AGREE, VAR_UINT, "0", 0, 1, NULL, CFG(coll_unmapped),
	  "1 = the collectives and teams touch no peer's memory, as with PGAS_MAP_PEERS=none "
	  "(reference algorithms): a test of those paths on mapped peers" },
	/* Every member of a team must run the same algorithm. */
#define FORCE(k, name) { "PGAS_COLL_" name, ENV_AGREE, VAR_STR, "", 0, 0, NULL,	\
	  CFG(coll_force[k]),							\
	  "force an algorithm for " name ": alg[:geometry][:rRADIX][:put|get][:sSEGMENT]" }
	FORCE(PGAS_COLL_BARRIER, "BARRIER"), FORCE(PGAS_COLL_BROADCAST, "BROADCAST"),
	FORCE(PGAS_COLL_SCATTER, "SCATTER"), FORCE(PGAS_COLL_GATHER, "GATHER"),
	FORCE(PGAS_COLL_GATHER_ALL, "GATHER_ALL"), FORCE(PGAS_COLL_EXCHANGE, "EXCHANGE"),
	FORCE(PGAS_COLL_REDUCE, "REDUCE"), FORCE(PGAS_COLL_REDUCE_ALL, "REDUCE_ALL"),
	FORCE(PGAS_COLL_SCAN, "SCAN"),
#undef FORCE
};
#undef CFG

static int parse(const struct env_var *v, const char *s, unsigned long long *out)
{
	char *end;

	if (v->kind == VAR_PATH || v->kind == VAR_STR)	/* stored by store() */
		return strlen(s) < PGAS__CFG_STR && (*s == '/' || v->kind == VAR_STR) ? 0 : -1;
	if (v->kind == VAR_ENUM) {
		for (unsigned i = 0; v->choices[i]; i++)
			if (!strcmp(s, v->choices[i])) {
				*out = i;
				return 0;
			}
		return -1;
	}
	if (*s == '-')
		return -1;
	/* Decimal, or hexadecimal after 0x: a leading 0 is not octal (0100
	 * meant 64, which nobody writing it means). */
	errno = 0;
	*out = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno || end == s)
		return -1;
	if (v->kind == VAR_SIZE && *end) {
		unsigned shift = *end == 'K' || *end == 'k' ? 10 :
				 *end == 'M' || *end == 'm' ? 20 :
				 *end == 'G' || *end == 'g' ? 30 : 0;

		if (!shift || end[1] || *out > (~0ull >> shift))
			return -1;
		*out <<= shift;
		end++;
	}
	if (*end || *out < v->min || *out > v->max)
		return -1;
	return 0;
}

static void enum_refusal(const struct env_var *v, const char *s, char *msg, size_t msglen)
{
	size_t at = (size_t)snprintf(msg, msglen, "%s=%s: expected one of ", v->name, s);

	for (unsigned i = 0; v->choices[i] && at < msglen; i++)
		at += (size_t)snprintf(msg + at, msglen - at, "%s%s", i ? "|" : "", v->choices[i]);
}

void pgas__config_choices(const char *name, const char *const *choices)
{
	unsigned i = 0;

	if (strcmp(name, "PGAS_CONDUIT"))
		abort();	/* the one enum whose choices come from elsewhere */
	for (; choices[i] && i < MAX_CHOICES; i++)
		conduits[i] = choices[i];
	conduits[i] = NULL;
}

static void store(const struct env_var *v, const char *s, unsigned long long val)
{
	char *field = (char *)&pgas__cfg + v->offset;

	if (v->kind == VAR_PATH || v->kind == VAR_STR)
		snprintf(field, PGAS__CFG_STR, "%s", s);
	else if (v->kind == VAR_SIZE)
		*(size_t *)field = (size_t)val;
	else if (v->kind == VAR_ENUM)
		*(int *)field = (int)val;
	else
		*(unsigned *)field = (unsigned)val;
}

static int is_pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

int pgas__config_load(char *msg, size_t msglen)
{
	pgas__cfg_loaded = true;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const struct env_var *v = &vars[i];
		const char *s = getenv(v->name);
		unsigned long long val;

		if (parse(v, v->dflt, &val) || v->scope == ENV_UNSET)
			abort();	/* a bad default or no scope is a bug of this table */
		if (s && parse(v, s, &val)) {
			if (v->kind == VAR_PATH)
				snprintf(msg, msglen, "%s=%s: expected an absolute path under %d bytes",
					 v->name, s, PGAS__CFG_STR);
			else if (v->kind == VAR_STR)
				snprintf(msg, msglen, "%s: longer than %d bytes", v->name,
					 PGAS__CFG_STR - 1);
			else if (v->kind == VAR_ENUM)
				enum_refusal(v, s, msg, msglen);
			else
				snprintf(msg, msglen, "%s=%s: expected a number from %llu to %llu",
					 v->name, s, v->min, v->max);
			return PGAS_ERR_INVAL;
		}
		store(v, s ? s : v->dflt, val);
	}
	if (!is_pow2(pgas__cfg.mbox_slots) || !is_pow2(pgas__cfg.notify_entries)) {
		snprintf(msg, msglen, "PGAS_MBOX_SLOTS=%u / PGAS_NOTIFY_ENTRIES=%u: must be powers of two",
			 pgas__cfg.mbox_slots, pgas__cfg.notify_entries);
		return PGAS_ERR_INVAL;
	}
	/* A packet message may take at most half a ring; the default yields. */
	if (pgas__cfg.packet_max > pgas__cfg.mbox_slots / 2 * PGAS_SLOT_PAYLOAD &&
	    !getenv("PGAS_AM_PACKET_MAX"))
		pgas__cfg.packet_max = pgas__cfg.mbox_slots / 2 * PGAS_SLOT_PAYLOAD;
	if (pgas__cfg.packet_max > pgas__cfg.mbox_slots / 2 * PGAS_SLOT_PAYLOAD) {
		snprintf(msg, msglen,
			 "PGAS_AM_PACKET_MAX=%u: at most %u with PGAS_MBOX_SLOTS=%u (half a ring)",
			 pgas__cfg.packet_max, pgas__cfg.mbox_slots / 2 * PGAS_SLOT_PAYLOAD,
			 pgas__cfg.mbox_slots);
		return PGAS_ERR_INVAL;
	}
	return PGAS_OK;
}

/* ---- PGAS_* variables that are none of the table's ------------------------- */

extern char **environ;

/* What pgasrun sets for each rank (bootstrap.h): not knobs, but expected. */
static const char *const launcher_vars[] = {
	PGAS_ENV_RANK, PGAS_ENV_NRANKS, PGAS_ENV_BOOT_FD, PGAS_ENV_LAUNCHER, PGAS_ENV_JOB_ID,
	PGAS_ENV_JOB_KEY, NULL,
};

/*
 * Prefixes that the project's own tests, benchmarks and scripts use for
 * their variables (docs/libpgas.md, "Environment"); never libpgas's.
 * SHMEM_* and SMA_* are the OpenSHMEM layer's and no concern here.
 */
static const char *const other_prefixes[] = {
	"PGAS_TEST_",		/* the check scripts and the tests (ranks, time limits) */
	"PGAS_BENCH_",		/* bench/ */
	"PGAS_FUZZ_",		/* the fuzzer */
	"PGAS_MODEL_",		/* teams_model */
	"PGAS_LIFECYCLE_",	/* scripts/check-lifecycle.sh */
	"PGAS_KUNIT_", "PGAS_DEBUGVM_", "PGAS_KSRC",	/* the kernel tiers' scripts */
	NULL,
};

/* Levenshtein distance of a and b (each cut at 63 characters). */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t sa = strlen(a), sb = strlen(b);
	unsigned row[64], la = sa > 63 ? 63 : (unsigned)sa, lb = sb > 63 ? 63 : (unsigned)sb;

	for (unsigned j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

static bool known_var(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strlen(vars[i].name) == len && !strncmp(vars[i].name, name, len))
			return true;
	for (unsigned i = 0; launcher_vars[i]; i++)
		if (strlen(launcher_vars[i]) == len && !strncmp(launcher_vars[i], name, len))
			return true;
	for (unsigned i = 0; other_prefixes[i]; i++)
		if (!strncmp(name, other_prefixes[i], strlen(other_prefixes[i])))
			return true;
	return false;
}

/* The table's name closest to name (PGAS_ and the rest), or NULL where
 * none is near: the rest's distance must be under half its length. */
static const char *closest_var(const char *name)
{
	const char *best = NULL;
	unsigned best_d = ((unsigned)strlen(name + 5) + 1) / 2;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		unsigned d = edit_distance(name + 5, vars[i].name + 5);

		if (d < best_d) {
			best_d = d;
			best = vars[i].name;
		}
	}
	return best;
}

unsigned pgas__config_unknown(bool warn, char *msg, size_t msglen)
{
	unsigned count = 0;

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '='), *near;
		char name[64];

		if (strncmp(*e, "PGAS_", 5) || !eq || known_var(*e, (size_t)(eq - *e)))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
		near = closest_var(name);
		if (!count++)
			snprintf(msg, msglen, "%s is not a libpgas variable%s%s%s", name,
				 near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
		if (warn)
			pgas__warn("%s is not a libpgas variable: ignored%s%s%s "
				   "(PGAS_VERBOSEENV=1 lists them; PGAS_UNKNOWN_ENV=ignore or fail)",
				   name, near ? "; did you mean " : "", near ? near : "",
				   near ? "?" : "");
	}
	return count;
}

/* A variable's value in force, as text. */
static void value_text(const struct env_var *v, char *out, size_t len)
{
	const char *field = (const char *)&pgas__cfg + v->offset;

	if (v->kind == VAR_PATH || v->kind == VAR_STR)
		snprintf(out, len, "%s", field);
	else if (v->kind == VAR_ENUM)
		snprintf(out, len, "%s", v->choices[*(const int *)field]);
	else if (v->kind == VAR_SIZE)
		snprintf(out, len, "%zu", *(const size_t *)field);
	else
		snprintf(out, len, "%u", *(const unsigned *)field);
}

void pgas__config_print(FILE *f)
{
	static const char *const scopes[] = {
		[ENV_LOCAL] = "local", [ENV_AGREE] = "agree", [ENV_AGREE_KMOD] = "agree-kmod",
		[ENV_RANK0] = "rank0",
	};

	fprintf(f, "libpgas %d.%d configuration (variable scope = value  [default] description;\n"
		"  scope: local to each rank, must agree on every rank, or rank 0's for all):\n",
		PGAS_VERSION_MAJOR, PGAS_VERSION_MINOR);
	{
		char boot[320];

		pgas_boot_describe(boot, sizeof(boot));
		fprintf(f, "  boot: %s\n", boot);
	}
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const struct env_var *v = &vars[i];
		const char *set = getenv(v->name) ? " (set)" : "";
		char val[PGAS__CFG_STR];

		value_text(v, val, sizeof(val));
		if (v->kind == VAR_STR && !*val && !*set && pgas__cfg.verbose_env < 2)
			continue;	/* unset forcing knobs: listed in the docs */
		fprintf(f, "  %-20s %-10s = %-8s [%s]%s %s\n", v->name, scopes[v->scope], val,
			v->dflt, set, v->help);
	}
}

/* Text for roff: a backslash is \e; no line may start with . or '. */
static void roff_text(FILE *f, const char *s)
{
	for (const char *line = s; *s; s++) {
		if (s == line && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\n')
			line = s + 1;
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

void pgas__config_doc(FILE *f, bool roff)
{
	static const char *const scope_text[] = {
		[ENV_LOCAL] = "each rank its own",
		[ENV_AGREE] = "the same on every rank (pgas_init checks it)",
		[ENV_AGREE_KMOD] = "the same on every rank of a job over pgas.ko",
		[ENV_RANK0] = "rank 0's value serves every rank",
	};

	fputs(roff ? ".PP\n" : "", f);
	fputs("Numbers are decimal, or hexadecimal after 0x; sizes may end in K, M or G.\n", f);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const struct env_var *v = &vars[i];
		char range[96] = "";

		if (v->kind == VAR_ENUM) {
			size_t at = 0;

			for (const char *const *c = v->choices; *c && at < sizeof(range); c++)
				at += (size_t)snprintf(range + at, sizeof(range) - at, "%s%s",
						       c == v->choices ? "" : ", ", *c);
		} else if ((v->kind == VAR_UINT || v->kind == VAR_SIZE) && v->max) {
			snprintf(range, sizeof(range), "%llu to %llu%s", v->min, v->max,
				 v->kind == VAR_SIZE ? " bytes (suffix K, M, G)" : "");
		}
		if (!roff) {
			fprintf(f, "%s\n    %s\n    default: %s%s%s; %s\n", v->name, v->help,
				*v->dflt ? v->dflt : "(unset)", *range ? "; values: " : "", range,
				scope_text[v->scope]);
			continue;
		}
		fprintf(f, ".TP\n.B %s\n", v->name);
		roff_text(f, v->help);
		fputs(".\n.br\nDefault: ", f);
		roff_text(f, *v->dflt ? v->dflt : "(unset)");
		if (*range) {
			fputs("; values: ", f);
			roff_text(f, range);
		}
		fputs("; ", f);
		roff_text(f, scope_text[v->scope]);
		fputs(".\n", f);
	}
}

/* ---- agreement between the ranks of a job ---------------------------------- */

/* What every rank sends first: a digest of its values that must agree. */
struct agree_digest {
	uint64_t hash;		/* FNV-1a over "name\0value\0" of each, in table order */
	uint32_t nvars;		/* how many: a different table is a different build */
	uint32_t flags;
};
#define AGREE_SLEEPER 1u	/* this rank may sleep in its waits */
/*
 * flags >> 8: the version of what ranks do in each other's pages beyond
 * the ring ABI (the exit's and the barrier's words in rank 0's state
 * page): builds that differ would wait for words the other never writes.
 * 1: rank 0 alone decides the exit's quiescence (job_idle), leavers keep
 * the least barrier count (left_min_inv) and count themselves in owers
 * when they leave a request unanswered; builds before it send 0.
 */
#define AGREE_PROTOCOL 1u

/* Then, only where digests differ, one exchange per such variable. */
struct agree_value {
	char name[48];
	char value[PGAS__CFG_STR];
};
_Static_assert(sizeof(struct agree_value) <= PGAS_BOOT_MAX_BLOB, "a value fits a boot message");

#define UNUSED "(unused)"

static bool must_agree(const struct env_var *v)
{
	return v->scope == ENV_AGREE || v->scope == ENV_AGREE_KMOD;
}

/* The text a variable is compared by: its value, or as resolved. */
static void agree_text(const struct env_var *v, int conduit, char *out, size_t len)
{
	if (v->offset == offsetof(struct pgas_config, conduit))
		snprintf(out, len, "%s", conduits[conduit]);
	else if (v->scope == ENV_AGREE_KMOD && strcmp(conduits[conduit], "kmod"))
		snprintf(out, len, UNUSED);
	else
		value_text(v, out, len);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	do
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	while (*s++);
	return h;
}

static const char *shown(const char *value)
{
	return *value ? value : "(unset)";
}

/* The values of the variables that differ; msg as pgas__config_agree. */
static int agree_report(unsigned nranks, int conduit, char *msg, size_t msglen)
{
	struct agree_value mine, *all = calloc(nranks, sizeof(*all));
	unsigned ndiff = 0;
	size_t at = 0;
	int rc = PGAS_OK;

	if (!all) {
		snprintf(msg, msglen, "out of memory for %u ranks", nranks);
		return PGAS_ERR_NOMEM;
	}
	*msg = 0;
	/* Every rank holds every rank's values: all find the same differences. */
	for (size_t i = 0; !rc && i < sizeof(vars) / sizeof(vars[0]); i++) {
		const struct env_var *v = &vars[i];
		unsigned r;

		if (!must_agree(v))
			continue;
		memset(&mine, 0, sizeof(mine));
		snprintf(mine.name, sizeof(mine.name), "%s", v->name);
		agree_text(v, conduit, mine.value, sizeof(mine.value));
		rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
		if (rc)
			break;
		for (r = 1; r < nranks; r++)
			if (strncmp(all[r].name, all[0].name, sizeof(mine.name)) ||
			    strncmp(all[r].value, all[0].value, sizeof(mine.value)))
				break;
		/* pgas.ko's device where some rank uses shm: PGAS_CONDUIT says it. */
		if (r == nranks || (v->scope == ENV_AGREE_KMOD &&
				    (!strcmp(all[0].value, UNUSED) || !strcmp(all[r].value, UNUSED))))
			continue;
		if (strncmp(all[r].name, all[0].name, sizeof(mine.name))) {
			snprintf(msg, msglen, "rank 0 and rank %u run different builds of libpgas "
				 "(%.47s vs %.47s in their tables)", r, all[0].name, all[r].name);
			rc = PGAS_ERR_INVAL;
			break;
		}
		if (at < msglen)
			at += (size_t)snprintf(msg + at, msglen - at,
					       "%s%s differs: rank 0 has %.100s, rank %u has %.100s",
					       ndiff ? "; " : "", v->name, shown(all[0].value), r,
					       shown(all[r].value));
		ndiff++;
	}
	if (!rc && ndiff && at < msglen)
		snprintf(msg + at, msglen - at, ": set %s alike for every rank",
			 ndiff > 1 ? "them" : "it");
	free(all);
	return rc ? rc : ndiff ? PGAS_ERR_INVAL : PGAS_OK;
}

int pgas__config_agree(int conduit, bool *sleepers, char *msg, size_t msglen)
{
	struct agree_digest mine = { 0xcbf29ce484222325ull, 0, 0 }, *all;
	unsigned rank, nranks, r;
	int rc;

	*sleepers = false;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		char val[PGAS__CFG_STR];

		if (!must_agree(&vars[i]))
			continue;
		agree_text(&vars[i], conduit, val, sizeof(val));
		mine.hash = fnv1a(fnv1a(mine.hash, vars[i].name), val);
		mine.nvars++;
	}
	/* Only block sleeps (auto resolves to spin or yield: wait.c). */
	if (pgas__cfg.wait_mode == PGAS_WAIT_BLOCK)
		mine.flags |= AGREE_SLEEPER;
	mine.flags |= AGREE_PROTOCOL << 8;
	rc = pgas_boot_join(&rank, &nranks, msg, msglen);
	if (rc)
		return rc;
	all = calloc(nranks, sizeof(*all));
	if (!all) {
		snprintf(msg, msglen, "out of memory for %u ranks", nranks);
		return PGAS_ERR_NOMEM;
	}
	rc = pgas_boot_allgather(&mine, sizeof(mine), -1, all, NULL, msg, msglen);
	for (r = 0; !rc && r < nranks; r++)
		if (all[r].flags & AGREE_SLEEPER)
			*sleepers = true;
	for (r = 1; !rc && r < nranks; r++)
		if (all[r].flags >> 8 != all[0].flags >> 8) {
			snprintf(msg, msglen, "rank 0 and rank %u run different builds of libpgas "
				 "(protocol %u vs %u)", r, all[0].flags >> 8, all[r].flags >> 8);
			rc = PGAS_ERR_INVAL;
		}
	for (r = 1; !rc && r < nranks; r++)
		if (all[r].hash != all[0].hash)
			break;
	if (!rc && r < nranks) {
		if (all[r].nvars != all[0].nvars) {
			snprintf(msg, msglen, "rank 0 and rank %u run different builds of libpgas "
				 "(%u vs %u variables that must agree)", r, all[0].nvars,
				 all[r].nvars);
			rc = PGAS_ERR_INVAL;
		} else {
			rc = agree_report(nranks, conduit, msg, msglen);
		}
	}
	free(all);
	if (rc) {
#ifdef PGAS_BOOT_FINI
		/* Every rank refused alike: nobody waits for this one any more,
		 * and it may end with 0 (pgasrun counts that as a failure without). */
		if (rc == PGAS_ERR_INVAL)
			pgas_boot_tell(PGAS_BOOT_FINI);
#endif
		pgas_boot_leave();
	}
	return rc;
}

void pgas_print_config(void *file)
{
	pgas__config_print(file ? file : stdout);
}
