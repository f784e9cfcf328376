// SPDX-License-Identifier: MIT
/*
 * env.c - the single table of environment variables.
 *
 * Every knob of libpgas is one row here: name, default, bounds and what it
 * does.  PGAS_VERBOSEENV=1 prints the table with the values in force.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct pgas_config pgas__cfg = { .error_mode = PGAS_ERRMODE_PRINT };
bool pgas__cfg_loaded;

enum var_kind { VAR_UINT, VAR_SIZE, VAR_ENUM, VAR_PATH, VAR_STR };

struct env_var {
	const char *name;
	enum var_kind kind;
	const char *dflt;
	unsigned long long min, max;
	const char *const *choices;	/* VAR_ENUM: NULL-terminated */
	size_t offset;			/* into struct pgas_config */
	const char *help;
};

static const char *const wait_modes[] = { "auto", "spin", "yield", "block", NULL };
static const char *const error_modes[] = { "print", "quiet", "abort", NULL };
static const char *const conduits[] = { "auto", "shm", "kmod", NULL };

#define CFG(field) offsetof(struct pgas_config, field)
static const struct env_var vars[] = {
	/* First, so that a failure to load the rest is reported as asked. */
	{ "PGAS_ERROR_MODE", VAR_ENUM, "print", 0, 0, error_modes, CFG(error_mode),
	  "on a failed call: print the message, stay quiet, or abort" },
	{ "PGAS_CONDUIT", VAR_ENUM, "auto", 0, 0, conduits, CFG(conduit),
	  "device: kmod if PGAS_DEVICE is usable, else shm" },
	{ "PGAS_DEVICE", VAR_PATH, "/dev/pgas0", 0, 0, NULL, CFG(device),
	  "pgas.ko device node of the kmod conduit" },
	{ "PGAS_WAIT_MODE", VAR_ENUM, "auto", 0, 0, wait_modes, CFG(wait_mode),
	  "how waits idle: auto = spin if ranks <= cpus, else spin-then-block" },
	{ "PGAS_SPIN_LIMIT", VAR_UINT, "2000", 1, 100000000, NULL, CFG(spin_limit),
	  "polls before a yield/block wait gives the cpu away" },
	{ "PGAS_MBOX_SLOTS", VAR_UINT, "256", 16, 32768, NULL, CFG(mbox_slots),
	  "64-byte slots per mailbox ring (power of two)" },
	{ "PGAS_NOTIFY_ENTRIES", VAR_UINT, "1024", 16, 1u << 20, NULL, CFG(notify_entries),
	  "entries of the notification ring (power of two)" },
	{ "PGAS_MAX_MEDIUM", VAR_UINT, "8192", 512, 1u << 20, NULL, CFG(max_medium),
	  "largest AM Medium payload in bytes" },
	/* Measured (docs/libpgas.md): bounce buffers beat multi-slot packets in
	 * round trip and rate for every Medium larger than one slot. */
	{ "PGAS_AM_PACKET_MAX", VAR_UINT, "56", 56, PGAS_STATUS_MAX_LEN, NULL, CFG(packet_max),
	  "largest AM body sent as VELO packets; larger Medium payloads use a bounce buffer" },
	{ "PGAS_BOUNCE_BUFS", VAR_UINT, "8", 1, 64, NULL, CFG(bounce_bufs),
	  "bounce buffers per source rank and channel" },
	{ "PGAS_SEGMENT_SIZE", VAR_SIZE, "64M", 4096, 1ull << 40, NULL, CFG(segment_size),
	  "segment bytes when pgas_attach is given 0 (suffix K, M, G)" },
	{ "PGAS_VERBOSEENV", VAR_UINT, "0", 0, 1, NULL, CFG(verbose_env),
	  "1 = rank 0 prints this table at init" },
	/* Collectives (docs/libpgas.md, "Collectives"). */
	{ "PGAS_COLL_STAGE", VAR_SIZE, "1M", 4096, 1ull << 30, NULL, CFG(coll_stage),
	  "staging bytes of the job's team; local-mode calls move larger data in chunks" },
	{ "PGAS_COLL_POOL", VAR_SIZE, "16M", 0, 1ull << 36, NULL, CFG(coll_pool),
	  "bytes behind every segment for the other teams' regions (a team takes one on each member)" },
	{ "PGAS_COLL_TEAM_STAGE", VAR_SIZE, "32K", 4096, 1ull << 30, NULL, CFG(coll_team_stage),
	  "staging bytes of every team but the job's (taken from PGAS_COLL_POOL)" },
	{ "PGAS_COLL_TUNING", VAR_STR, "", 0, 0, NULL, CFG(coll_tuning),
	  "tuning file written by pgas-tune (read by rank 0, shared); empty = model" },
	{ "PGAS_COLL_VERBOSE", VAR_UINT, "0", 0, 1, NULL, CFG(coll_verbose),
	  "1 = print each team's algorithm choice per operation and size class, and why" },
	{ "PGAS_COLL_DEBUG", VAR_UINT, "0", 0, 1, NULL, CFG(coll_debug),
	  "1 = check that members pass the same sizes, roots, ops and flags" },
#define FORCE(k, name) { "PGAS_COLL_" name, VAR_STR, "", 0, 0, NULL, CFG(coll_force[k]), \
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
	errno = 0;
	*out = strtoull(s, &end, 0);
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

		if (parse(v, v->dflt, &val))
			abort();	/* a bad default is a bug of this table */
		if (s && parse(v, s, &val)) {
			if (v->kind == VAR_PATH)
				snprintf(msg, msglen, "%s=%s: expected an absolute path under %d bytes",
					 v->name, s, PGAS__CFG_STR);
			else if (v->kind == VAR_STR)
				snprintf(msg, msglen, "%s: longer than %d bytes", v->name,
					 PGAS__CFG_STR - 1);
			else if (v->kind == VAR_ENUM)
				snprintf(msg, msglen, "%s=%s: expected one of %s|%s|%s%s%s",
					 v->name, s, v->choices[0], v->choices[1], v->choices[2],
					 v->choices[3] ? "|" : "", v->choices[3] ? v->choices[3] : "");
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

void pgas__config_print(FILE *f)
{
	fprintf(f, "libpgas %d.%d configuration (variable = value  [default] description):\n",
		PGAS_VERSION_MAJOR, PGAS_VERSION_MINOR);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const struct env_var *v = &vars[i];
		const char *field = (const char *)&pgas__cfg + v->offset;
		const char *set = getenv(v->name) ? " (set)" : "";

		if (v->kind == VAR_STR && !*field && !*set)
			continue;	/* unset forcing knobs: listed in the docs */
		if (v->kind == VAR_PATH || v->kind == VAR_STR)
			fprintf(f, "  %-20s = %-8s [%s]%s %s\n", v->name, field, v->dflt, set,
				v->help);
		else if (v->kind == VAR_ENUM)
			fprintf(f, "  %-20s = %-8s [%s]%s %s\n", v->name,
				v->choices[*(const int *)field], v->dflt, set, v->help);
		else if (v->kind == VAR_SIZE)
			fprintf(f, "  %-20s = %-8zu [%s]%s %s\n", v->name,
				*(const size_t *)field, v->dflt, set, v->help);
		else
			fprintf(f, "  %-20s = %-8u [%s]%s %s\n", v->name,
				*(const unsigned *)field, v->dflt, set, v->help);
	}
}

void pgas_print_config(void *file)
{
	pgas__config_print(file ? file : stdout);
}
