// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_job.c - jobs (protection domains).
 *
 * A job is created by a launcher's file with a fresh random key and the
 * creator's euid; it is found by id in nic->jobs and freed with its last
 * reference.  Joining takes the key (compared in constant time), the same
 * euid or CAP_SYS_ADMIN, and a vpid the job's IDA has not handed out
 * (pgas_ep_join() in pgas_ep.c), or, for an extra endpoint, the mm of that
 * vpid's live endpoint and room below max_eps (pgas_ep_join_extra()).
 * job->lock guards the job's endpoint table, eps (keyed by eid: pgas.h),
 * and next_eid; a NIC's deletion departs every endpoint of its jobs.
 */
#include <linux/cred.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "pgas.h"

/* max_eps: every endpoint the job may have, extras included (0: nranks). */
struct pgas_job *pgas_job_create(struct pgas_nic *nic, u32 nranks, u32 max_eps)
{
	struct pgas_job *job;
	int ret;

	if (nranks == 0 || nranks > PGAS_MAX_ENDPOINTS)
		return ERR_PTR(-EINVAL);
	if (!max_eps)
		max_eps = nranks;
	if (max_eps < nranks || max_eps > PGAS_MAX_ENDPOINTS)
		return ERR_PTR(-EINVAL);
	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return ERR_PTR(-ENOMEM);
	kref_init(&job->kref);
	kref_get(&nic->kref);
	job->nic = nic;
	job->nranks = nranks;
	job->max_eps = max_eps;
	job->next_eid = nranks;
	job->uid = current_euid();
	ida_init(&job->vpids);
	mutex_init(&job->lock);
	xa_init(&job->eps);
	get_random_bytes(&job->key, sizeof(job->key));
	/*
	 * Cyclic: an id is not handed out again until the 31-bit space wraps,
	 * so events and dumps that name a job are never about a newer one.
	 */
	ret = xa_alloc_cyclic(&nic->jobs, &job->id, job, xa_limit_31b, &nic->next_job_id,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		pgas_job_put(job);
		return ERR_PTR(ret);
	}
	atomic_inc(&nic->nr_jobs);
	/* Pairs with pgas_nic_revoke_jobs(): it sees this job or we see dead. */
	smp_mb();
	if (READ_ONCE(nic->dead)) {
		pgas_job_put(job);
		return ERR_PTR(-ENODEV);
	}
	return job;
}

static void pgas_job_free(struct kref *kref)
{
	struct pgas_job *job = container_of(kref, struct pgas_job, kref);
	struct pgas_nic *nic = job->nic;

	if (job->id) {
		xa_erase(&nic->jobs, job->id);
		atomic_dec(&nic->nr_jobs);
		pgas_event_job_dead(job);
	}
	ida_destroy(&job->vpids);
	xa_destroy(&job->eps);	/* closed ones' marks: every endpoint has gone */
	kfree_rcu(job, rcu);
	pgas_nic_put(nic);
}

void pgas_job_put(struct pgas_job *job)
{
	kref_put(&job->kref, pgas_job_free);
}

struct pgas_job *pgas_job_get_by_id(struct pgas_nic *nic, u32 id)
{
	struct pgas_job *job;

	rcu_read_lock();
	job = xa_load(&nic->jobs, id);
	if (job && !kref_get_unless_zero(&job->kref))
		job = NULL;
	rcu_read_unlock();
	return job;
}

/* One word compared as a whole: no early exit that timing could reveal. */
bool pgas_key_equal(u64 a, u64 b)
{
	return !(READ_ONCE(a) ^ READ_ONCE(b));
}

/* Departs every endpoint of job, extras too, as dead (its NIC is being deleted). */
static void job_revoke(struct pgas_job *job)
{
	struct pgas_ep *ep, *e;
	unsigned long eid;
	void *entry;

	/* Every rank's kernel page says so before any endpoint departs. */
	mutex_lock(&job->lock);
	xa_for_each_range(&job->eps, eid, entry, 0, job->nranks - 1) {
		e = pgas_live_ep(entry);
		if (e)
			pgas_mark_revoked(e);
	}
	mutex_unlock(&job->lock);
	for (;;) {
		ep = NULL;
		mutex_lock(&job->lock);
		xa_for_each(&job->eps, eid, entry) {
			e = pgas_live_ep(entry);
			if (e && !test_and_set_bit(PGAS_EP_GONE, &e->flags)) {
				ep = e;
				break;
			}
		}
		mutex_unlock(&job->lock);
		if (!ep)
			return;
		/* Claimed: whoever else departs it waits for us, so it lives. */
		pgas_ep_depart_claimed(ep, true);
	}
}

/*
 * The NIC is being deleted (its device is already gone): no job or
 * endpoint is made on it from now on, and every endpoint of its jobs is
 * departed as dead, its mappings revoked and its pins released, so that
 * nothing keeps running on a NIC that no longer exists.  Their files stay
 * open and refuse everything with -ENODEV; launchers keep their jobs
 * until they close them.  No pgas lock may be held by the caller.
 */
void pgas_nic_revoke_jobs(struct pgas_nic *nic)
{
	struct pgas_job *job;
	unsigned long id = 0;

	WRITE_ONCE(nic->dead, 1);
	smp_mb();	/* pairs with pgas_job_create() */
	while (xa_find(&nic->jobs, &id, ULONG_MAX, XA_PRESENT)) {
		job = pgas_job_get_by_id(nic, id);
		if (job) {
			job_revoke(job);
			pgas_job_put(job);
		}
		if (id == ULONG_MAX)
			break;
		id++;
	}
}
