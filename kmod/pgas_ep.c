// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_ep.c - endpoints: the ranks of a job.
 *
 * An endpoint belongs to the process that joined, not to its file: rings,
 * registrations and mappings hang off it and are torn down when that
 * process's mm is released (exit, a signal, exec: pgas_ep_death.c) or when
 * the file is released, whichever comes first.  It departs once
 * (PGAS_EP_GONE); ep->use holds the departure off while an ioctl runs on
 * it, and peers find it in the job's endpoint table under job->lock.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "pgas.h"

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
	/* The joining process owns the endpoint (a kthread has no mm: KUnit). */
	ep->mm = current->mm;
	if (ep->mm)
		mmgrab(ep->mm);
	ep->owner = get_task_struct(current);
	init_completion(&ep->departed);
	init_waitqueue_head(&ep->wq);
	init_rwsem(&ep->use);
	xa_init_flags(&ep->regs, XA_FLAGS_ALLOC1);
	mutex_lock(&job->lock);
	/* Under job->lock: pgas_nic_revoke_jobs() sees this ep or we see dead. */
	if (READ_ONCE(job->nic->dead)) {
		mutex_unlock(&job->lock);
		ida_free(&job->vpids, vpid);
		put_task_struct(ep->owner);
		if (ep->mm)
			mmdrop(ep->mm);
		pgas_job_put(job);
		kfree(ep);
		return ERR_PTR(-ENODEV);
	}
	job->eps[vpid] = ep;
	mutex_unlock(&job->lock);
	atomic_inc(&job->nic->nr_endpoints);
	return ep;
}

/*
 * Did the endpoint's owner die?  A fatal signal or an exit status other
 * than 0 (the group's, or the joining thread's own SYS_exit).  Read from
 * the owner's task, not current: the mm or the file may be released by
 * another task (a child that kept the fd, a /proc reader's mmput()).
 * exec is a departure: it sets no group exit.
 */
static bool owner_died(struct pgas_ep *ep)
{
	struct task_struct *t = ep->owner;
	struct signal_struct *sig = t->signal;

	if ((READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT) && READ_ONCE(sig->group_exit_code))
		return true;
	return (READ_ONCE(t->flags) & PF_EXITING) && READ_ONCE(t->exit_code);
}

void pgas_ep_release_objs(struct pgas_ep *ep)
{
	struct pgas_obj *obj;
	unsigned long handle;

	xa_for_each(&ep->regs, handle, obj) {
		xa_erase(&ep->regs, handle);
		pgas_reg_release(ep, obj);
	}
	if (ep->rings) {
		pgas_obj_revoke(ep->rings);
		pgas_obj_put(ep->rings);
		ep->rings = NULL;
	}
	if (ep->kern) {
		pgas_kern_page_release(ep->kern);
		ep->kern = NULL;
	}
}

/*
 * The endpoint's process exited, was killed or exec'd (its mm is being
 * released), or its file was released: take it out of the job, revoke and
 * free its objects, and tell every peer.  Runs once; a second caller waits
 * for the first to finish.  Takes no lock around mmput(), so a release
 * that another mm's ->release runs nested inside this one is safe.
 */
void pgas_ep_depart_claimed(struct pgas_ep *ep, bool died)
{
	struct pgas_job *job = ep->job;
	u32 i;

	/* Ioctls that started before PGAS_EP_GONE was set finish first. */
	down_write(&ep->use);
	up_write(&ep->use);

	/* Counted before the revocation: see pgas_count_peer_gone(). */
	mutex_lock(&job->lock);
	job->eps[ep->vpid] = NULL;
	for (i = 0; i < job->nranks; i++)
		if (job->eps[i])
			pgas_count_peer_gone(job->eps[i], died);
	mutex_unlock(&job->lock);

	pgas_ep_release_objs(ep);

	mutex_lock(&job->lock);
	for (i = 0; i < job->nranks; i++)
		if (job->eps[i]) {
			pgas_notify_peer_gone(job->eps[i], ep->vpid, died);
			pgas_ep_wake(job->eps[i]);	/* a sleeper must see it */
		}
	mutex_unlock(&job->lock);

	pgas_event_ep_dead(ep);
	ida_free(&job->vpids, ep->vpid);
	atomic_dec(&job->nic->nr_endpoints);
	complete_all(&ep->departed);
}

void pgas_ep_depart(struct pgas_ep *ep)
{
	if (test_and_set_bit(PGAS_EP_GONE, &ep->flags)) {
		wait_for_completion(&ep->departed);
		return;
	}
	pgas_ep_depart_claimed(ep, owner_died(ep));
}

/*
 * The owner's mm is gone (pgas.ko's workqueue, after the mmu_notifier's
 * ->release).  If it is dying, peers are told once it is dead: once the
 * joining thread has passed exit_notify (waiting 1-2 s at most), so that
 * its parent (a launcher such as pgasrun) hears of the death before the
 * peers, which end themselves when they read it, and blames the rank that
 * was killed, not the first survivor to exit.
 */
void pgas_ep_depart_dying(struct pgas_ep *ep)
{
	int ms;

	for (ms = 0; ms < 1000 && owner_died(ep) && !READ_ONCE(ep->owner->exit_state); ms++)
		usleep_range(1000, 2000);
	pgas_ep_depart(ep);
}

/*
 * An ioctl's hold on ep: false once it is departing (the caller returns
 * -ENODEV).  Departure waits for the holds taken before it began.
 */
bool pgas_ep_use(struct pgas_ep *ep)
{
	down_read(&ep->use);
	if (test_bit(PGAS_EP_GONE, &ep->flags)) {
		up_read(&ep->use);
		return false;
	}
	return true;
}

void pgas_ep_unuse(struct pgas_ep *ep)
{
	up_read(&ep->use);
}

/*
 * After pgas_ep_depart(): drops what ep holds but its owner, which a
 * queued departure may still be reading; pgas_ep_kfree() drops that.
 */
void pgas_ep_put_refs(struct pgas_ep *ep)
{
	xa_destroy(&ep->regs);
	if (ep->mm)
		mmdrop(ep->mm);
	pgas_job_put(ep->job);
}

/*
 * Sleep and wake-up (pgas_abi.h, "Doorbell"): the owner poll()s its file,
 * which is readable while its control page's 'sleeping' is 0; a wake
 * clears it and wakes the pollers, under the wait queue's lock so that a
 * poller either sees 0 or is on the queue when it is woken.  Called under
 * job->lock, which keeps ep->rings stable.
 */
void pgas_ep_wake(struct pgas_ep *ep)
{
	struct pgas_ctrl_page *ctrl;
	unsigned long flags;

	if (!ep->rings)
		return;
	ctrl = ep->rings->vaddr;
	spin_lock_irqsave(&ep->wq.lock, flags);
	WRITE_ONCE(ctrl->sleeping, 0);
	wake_up_locked_poll(&ep->wq, EPOLLIN | EPOLLRDNORM);
	spin_unlock_irqrestore(&ep->wq.lock, flags);
}

/* PGAS_IOC_WAKE: from's job's endpoint vpid, if it is there. */
int pgas_wake_vpid(struct pgas_ep *from, u32 vpid)
{
	struct pgas_job *job = from->job;
	int ret = -ENOENT;

	if (vpid >= job->nranks)
		return -EINVAL;
	mutex_lock(&job->lock);
	if (job->eps[vpid] && job->eps[vpid]->rings) {
		pgas_ep_wake(job->eps[vpid]);
		ret = 0;
	}
	mutex_unlock(&job->lock);
	return ret;
}

/* ->poll's mask once the caller is on ep->wq. */
__poll_t pgas_ep_poll(struct pgas_ep *ep)
{
	struct pgas_ctrl_page *ctrl;
	__poll_t mask = EPOLLERR;

	mutex_lock(&ep->job->lock);
	if (ep->rings && !test_bit(PGAS_EP_GONE, &ep->flags)) {
		ctrl = ep->rings->vaddr;
		mask = READ_ONCE(ctrl->sleeping) ? 0 : EPOLLIN | EPOLLRDNORM;
	}
	mutex_unlock(&ep->job->lock);
	return mask;
}

/* The last of ep, once no departure work can run on it. */
void pgas_ep_kfree(struct pgas_ep *ep)
{
	put_task_struct(ep->owner);
	kfree(ep);
}

/* Departs, and frees an endpoint no mmu_notifier was registered for. */
void pgas_ep_leave(struct pgas_ep *ep)
{
	pgas_ep_depart(ep);
	pgas_ep_put_refs(ep);
	pgas_ep_kfree(ep);
}
