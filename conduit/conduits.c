// SPDX-License-Identifier: MIT
/*
 * conduits.c - the conduits libpgas is built with, and the choice between
 * them (PGAS_CONDUIT).  The only file that lists them: a conduit brings its
 * name, its probe, its job creation (job_create) and its build fragment
 * (conduit/NAME/conduit.mk, which defines PGAS_WITH_NAME here when the
 * conduit is built).  PGAS_CONDUIT's choices are "auto" and the names of
 * the conduits below.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include "boot.h"
#include "conduit.h"

extern const struct pgas_conduit_ops pgas_shm_ops;
extern const struct pgas_conduit_ops pgas_kmod_ops;
extern const struct pgas_conduit_ops pgas_ofi_ops;

/*
 * In the order PGAS_CONDUIT=auto tries them: the first that probes wins.
 * ofi first: it probes only for a job across hosts, which neither pgas.ko
 * nor shared memory can serve alone.
 */
static const struct pgas_conduit_ops *const conduits[] = {
#ifdef PGAS_WITH_OFI
	&pgas_ofi_ops,
#endif
#ifdef PGAS_WITH_KMOD
	&pgas_kmod_ops,
#endif
	&pgas_shm_ops,		/* probes everywhere: auto's last resort */
	NULL,
};
#define NCONDUITS (sizeof(conduits) / sizeof(conduits[0]) - 1)

/* The ones a fragment left out, and why (pgasrun --version). */
static const char missing[] = ""
#ifndef PGAS_WITH_KMOD
	"kmod "
#endif
#ifndef PGAS_WITH_OFI
	"ofi (no libfabric found by pkg-config at build time, a static build, or OFI=0) "
#endif
	;

/* PGAS_CONDUIT's choices: auto, then every name above (env.c's enum). */
static const char *names[NCONDUITS + 2] = { "auto" };

__attribute__((constructor)) static void register_names(void)
{
	for (size_t i = 0; i < NCONDUITS; i++)
		names[i + 1] = conduits[i]->name;
	pgas__config_choices("PGAS_CONDUIT", names);
}

const struct pgas_conduit_ops *pgas_conduit_choose(int *kind)
{
	for (size_t i = 0; i < NCONDUITS; i++)
		if (pgas__cfg.conduit == PGAS_CONDUIT_AUTO ? conduits[i]->probe()
							   : pgas__cfg.conduit == (int)i + 1) {
			*kind = (int)i + 1;
			return conduits[i];
		}
	return NULL;
}

int pgas_conduit_job_create(unsigned nranks, struct pgas_conduit_job *job, char *msg,
			    size_t msglen)
{
	const struct pgas_conduit_ops *o;
	int kind, rc;

	memset(job, 0, sizeof(*job));
	job->fd = -1;
	rc = pgas__config_load(msg, msglen);
	if (rc)
		return rc;
	o = pgas_conduit_choose(&kind);
	if (!o) {
		snprintf(msg, msglen, "no conduit of this build is usable here");
		return PGAS_ERR_INVAL;
	}
	return o->job_create ? o->job_create(nranks, job, msg, msglen) : PGAS_OK;
}

/* What a host's leader shares: the job, or why it has none. */
struct host_job {
	int32_t rc;		/* the leader's job_create: 0 or a PGAS_ERR_* */
	uint32_t leader;	/* its rank */
	union {
		struct {
			char env[2][64];
			char what[64];
		} job;
		char why[192];	/* rc != 0: its message */
	} u;
};
_Static_assert(sizeof(struct host_job) <= PGAS_BOOT_MAX_BLOB, "a boot message's blob");

int pgas_conduit_host_job(const struct pgas_conduit_ops *o, unsigned nranks,
			  struct pgas_conduit_job *job, char *msg, size_t msglen)
{
	struct host_job mine, got;
	unsigned rank, n;
	int rc;

	memset(job, 0, sizeof(*job));
	job->fd = -1;
	memset(&mine, 0, sizeof(mine));
	rc = pgas_boot_join(&rank, &n, msg, msglen);
	if (rc)
		return rc;
	if (pgas_boot_host_leader()) {
		struct pgas_conduit_job j;

		memset(&j, 0, sizeof(j));
		j.fd = -1;
		mine.leader = rank;
		mine.rc = o->job_create ? o->job_create(nranks, &j, mine.u.why, sizeof(mine.u.why))
					: PGAS_OK;
		if (!mine.rc) {
			memcpy(mine.u.job.env, j.env, sizeof(j.env));
			memcpy(mine.u.job.what, j.what, sizeof(j.what));
		}
		rc = pgas_boot_host_share(&mine, sizeof(mine), j.fd, &got, &job->fd, msg, msglen);
		/* The shared copy holds the job from here, as every rank's does. */
		if (j.fd >= 0)
			close(j.fd);
	} else {
		rc = pgas_boot_host_share(&mine, sizeof(mine), -1, &got, &job->fd, msg, msglen);
	}
	if (rc)
		return rc;
	if (got.rc) {
		if (job->fd >= 0)
			close(job->fd);
		job->fd = -1;
		got.u.why[sizeof(got.u.why) - 1] = 0;
		snprintf(msg, msglen, "%s (creating the job on rank %u, this host's leader)",
			 got.u.why, got.leader);
		return got.rc;
	}
	memcpy(job->env, got.u.job.env, sizeof(job->env));
	memcpy(job->what, got.u.job.what, sizeof(job->what));
	for (unsigned i = 0; i < 2; i++)
		job->env[i][sizeof(job->env[i]) - 1] = 0;
	job->what[sizeof(job->what) - 1] = 0;
	return PGAS_OK;
}

const char *pgas_conduit_job_env(const struct pgas_conduit_job *job, const char *name)
{
	size_t n = strlen(name);

	for (unsigned i = 0; i < 2; i++)
		if (!strncmp(job->env[i], name, n) && job->env[i][n] == '=')
			return job->env[i] + n + 1;
	return NULL;
}

const char *pgas_conduit_list(void)
{
	static char list[128];

	if (!*list)
		for (size_t i = 0, at = 0; i < NCONDUITS && at < sizeof(list); i++)
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", i ? " " : "",
					       conduits[i]->name);
	return list;
}

const char *pgas_conduit_missing(void)
{
	return missing;
}
