// SPDX-License-Identifier: MIT
/*
 * conduits.c - the conduits libpgas is built with, and the choice between
 * them (PGAS_CONDUIT).  The only file that lists them: a conduit brings its
 * name, its probe, its job creation (job_create) and its build fragment
 * (conduit/NAME/conduit.mk, which defines PGAS_WITH_NAME here when the
 * conduit is built).  PGAS_CONDUIT's choices are "auto" and the names of
 * the conduits below.
 */
#include <stdio.h>
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
