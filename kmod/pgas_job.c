// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_job.c - jobs (protection domains) and their endpoints.
 *
 * A job is created by a launcher's file with a fresh random key and the
 * creator's euid; it is found by id in nic->jobs and freed with its last
 * reference.  Joining takes the key (compared in constant time), the same
 * euid or CAP_SYS_ADMIN, and a vpid the job's IDA has not handed out.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "pgas.h"

struct pgas_job *pgas_job_create(struct pgas_nic *nic, u32 nranks)
{
	struct pgas_job *job;
	int ret;

	if (nranks == 0 || nranks > PGAS_MAX_ENDPOINTS)
		return ERR_PTR(-EINVAL);
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return ERR_PTR(-ENOMEM);
	job->eps = kvcalloc(nranks, sizeof(*job->eps), GFP_KERNEL);
	if (!job->eps) {
		kfree(job);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&job->kref);
	kref_get(&nic->kref);
	job->nic = nic;
	job->nranks = nranks;
	job->uid = current_euid();
	ida_init(&job->vpids);
	mutex_init(&job->lock);
	get_random_bytes(&job->key, sizeof(job->key));
	ret = xa_alloc(&nic->jobs, &job->id, job, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		pgas_job_put(job);
		return ERR_PTR(ret);
	}
	atomic_inc(&nic->nr_jobs);
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
	kvfree(job->eps);
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

/* Takes vpid in job; the caller has checked the key. */
struct pgas_ep *pgas_ep_join(struct pgas_job *job, u32 vpid)
{
	struct pgas_ep *ep;
	int ret;

	if (!uid_eq(current_euid(), job->uid) && !capable(CAP_SYS_ADMIN))
		return ERR_PTR(-EPERM);
	if (vpid >= job->nranks)
		return ERR_PTR(-EINVAL);
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ret = ida_alloc_range(&job->vpids, vpid, vpid, GFP_KERNEL);
	if (ret < 0) {
		kfree(ep);
		return ERR_PTR(ret == -ENOSPC ? -EBUSY : ret);
	}
	kref_get(&job->kref);
	ep->job = job;
	ep->vpid = vpid;
	xa_init_flags(&ep->regs, XA_FLAGS_ALLOC1);
	mutex_lock(&job->lock);
	job->eps[vpid] = ep;
	mutex_unlock(&job->lock);
	atomic_inc(&job->nic->nr_endpoints);
	return ep;
}

/*
 * The endpoint's file was released (its process exited, was killed, or
 * closed it): take it out of the job, revoke and free its objects, and
 * tell every peer.
 */
void pgas_ep_leave(struct pgas_ep *ep)
{
	struct pgas_job *job = ep->job;
	/* Released by do_exit() after a signal or a non-zero exit status? */
	bool died = (current->flags & PF_EXITING) && current->exit_code;
	u32 i;

	mutex_lock(&job->lock);
	job->eps[ep->vpid] = NULL;
	mutex_unlock(&job->lock);

	pgas_ep_release_objs(ep);

	mutex_lock(&job->lock);
	for (i = 0; i < job->nranks; i++)
		if (job->eps[i])
			pgas_notify_peer_gone(job->eps[i], ep->vpid, died);
	mutex_unlock(&job->lock);

	pgas_event_ep_dead(ep);
	ida_free(&job->vpids, ep->vpid);
	atomic_dec(&job->nic->nr_endpoints);
	xa_destroy(&ep->regs);
	kfree(ep);
	pgas_job_put(job);
}
