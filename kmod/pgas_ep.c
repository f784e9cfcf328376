// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_ep.c - endpoints: the ranks of a job, and their extra endpoints.
 *
 * An endpoint belongs to the process that joined, not to its file: rings,
 * registrations and mappings hang off it and are torn down when that
 * process's mm is released (exit, a signal, exec: pgas_ep_death.c) or when
 * the file is released, whichever comes first.  It departs once
 * (PGAS_EP_GONE); ep->use holds the departure off while an ioctl runs on
 * it, and peers find it in the job's endpoint table under job->lock.
 *
 * A rank's endpoint (its primary) is eid vpid of the table.  An extra
 * endpoint (PGAS_JOIN_EXTRA) is one more of the process that owns a live
 * primary: same mm, its own file, rings and mmu_notifier, the next eid
 * (monotonic from nranks, never reused, below max_eps), no kernel page and
 * no registrations.  Extras are counted per mm (max_eps_per_mm, over all
 * jobs and NICs) from their join to their file's release (not their
 * departure: a mapping through the file keeps the endpoint and its job).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>

#include "pgas.h"

unsigned int pgas_max_eps_per_mm = 256;
module_param_named(max_eps_per_mm, pgas_max_eps_per_mm, uint, 0644);
MODULE_PARM_DESC(max_eps_per_mm,
		 "extra endpoints (PGAS_JOIN_EXTRA) one process may have open, departed ones included, over all jobs (default 256)");

/* ---- the per-mm count of extra endpoints ------------------------------------- */

/*
 * One entry per mm that has counted extras, in a small global hash: the limit
 * is the process's, whichever jobs and NICs its extras are in.  The mm is
 * only a key (each extra holds it with mmgrab(), so its address is not
 * reused while it is counted).  pgas_mm_extras_lock is innermost.
 */
struct pgas_mm_extras {
	struct hlist_node node;
	const struct mm_struct *mm;
	unsigned int n;
};

static DEFINE_HASHTABLE(pgas_mm_extras, 6);
static DEFINE_SPINLOCK(pgas_mm_extras_lock);

static struct pgas_mm_extras *mm_extras_find(const struct mm_struct *mm)
{
	struct pgas_mm_extras *c;

	hash_for_each_possible(pgas_mm_extras, c, node, (unsigned long)mm)
		if (c->mm == mm)
			return c;
	return NULL;
}

/*
 * Counts one more extra of mm; -EMFILE at max_eps_per_mm.  *spare is a
 * zeroed entry allocated beforehand (no allocation under the spinlock): it
 * is used (and set to NULL) if mm has none yet.
 */
static int mm_extras_charge(const struct mm_struct *mm, struct pgas_mm_extras **spare)
{
	struct pgas_mm_extras *c;
	int ret = 0;

	spin_lock(&pgas_mm_extras_lock);
	c = mm_extras_find(mm);
	if (c && c->n >= READ_ONCE(pgas_max_eps_per_mm)) {
		ret = -EMFILE;
	} else if (c) {
		c->n++;
	} else if (!READ_ONCE(pgas_max_eps_per_mm)) {
		ret = -EMFILE;
	} else if (!*spare) {
		ret = -ENOMEM;
	} else {
		c = *spare;
		*spare = NULL;
		c->mm = mm;
		c->n = 1;
		hash_add(pgas_mm_extras, &c->node, (unsigned long)mm);
	}
	spin_unlock(&pgas_mm_extras_lock);
	return ret;
}

static void mm_extras_uncharge(const struct mm_struct *mm)
{
	struct pgas_mm_extras *c, *gone = NULL;

	spin_lock(&pgas_mm_extras_lock);
	c = mm_extras_find(mm);
	if (!WARN_ON_ONCE(!c) && !--c->n) {
		hash_del(&c->node);
		gone = c;
	}
	spin_unlock(&pgas_mm_extras_lock);
	kfree(gone);
}

/* ---- joining ------------------------------------------------------------------ */

/* A new endpoint of job for the calling process; not in the job's table yet. */
static struct pgas_ep *ep_alloc(struct pgas_job *job, u32 vpid)
{
	struct pgas_ep *ep = kzalloc(sizeof(*ep), GFP_KERNEL_ACCOUNT);

	if (!ep)
		return NULL;
	kref_get(&job->kref);
	ep->job = job;
	ep->vpid = vpid;
	ep->eid = vpid;
	/* The joining process owns the endpoint (a kthread has no mm: KUnit). */
	ep->mm = current->mm;
	if (ep->mm)
		mmgrab(ep->mm);
	ep->owner = get_task_struct(current);
	init_completion(&ep->departed);
	init_waitqueue_head(&ep->wq);
	init_rwsem(&ep->use);
	init_rwsem(&ep->maps);
	xa_init_flags(&ep->regs, XA_FLAGS_ALLOC1);
	return ep;
}

/* Undoes ep_alloc() for an endpoint that never was in the table. */
static void ep_unalloc(struct pgas_ep *ep)
{
	put_task_struct(ep->owner);
	if (ep->mm)
		mmdrop(ep->mm);
	pgas_job_put(ep->job);
	kfree(ep);
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
	ret = ida_alloc_range(&job->vpids, vpid, vpid, GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		return ERR_PTR(ret == -ENOSPC ? -EBUSY : ret);
	ep = ep_alloc(job, vpid);
	if (!ep) {
		ida_free(&job->vpids, vpid);
		return ERR_PTR(-ENOMEM);
	}
	mutex_lock(&job->lock);
	/* Under job->lock: pgas_nic_revoke_jobs() sees this ep or we see dead. */
	ret = READ_ONCE(job->nic->dead) ? -ENODEV : 0;
	/* Over a closed one's mark, if the rank was here before. */
	if (!ret)
		ret = xa_err(xa_store(&job->eps, vpid, ep, GFP_KERNEL_ACCOUNT));
	mutex_unlock(&job->lock);
	if (ret) {
		ida_free(&job->vpids, vpid);
		ep_unalloc(ep);
		return ERR_PTR(ret);
	}
	atomic_inc(&job->nic->nr_endpoints);
	return ep;
}

/*
 * PGAS_JOIN_EXTRA: one more endpoint for the process that owns rank vpid,
 * which must be the caller's (its mm); the caller has checked the key.
 * Its eid is the job's next.  Errors in the order of pgas_abi.h.
 */
struct pgas_ep *pgas_ep_join_extra(struct pgas_job *job, u32 vpid)
{
	struct pgas_mm_extras *spare;
	struct pgas_ep *ep, *primary;
	int ret;

	if (!uid_eq(current_euid(), job->uid) && !capable(CAP_SYS_ADMIN))
		return ERR_PTR(-EPERM);
	if (vpid >= job->nranks)
		return ERR_PTR(-EINVAL);
	ep = ep_alloc(job, vpid);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->extra = true;
	spare = kzalloc(sizeof(*spare), GFP_KERNEL_ACCOUNT);
	mutex_lock(&job->lock);
	primary = pgas_live_ep(xa_load(&job->eps, vpid));
	if (READ_ONCE(job->nic->dead))
		ret = -ENODEV;
	else if (!primary || primary->mm != ep->mm || test_bit(PGAS_EP_GONE, &primary->flags))
		ret = -EPERM;
	else if (job->next_eid >= job->max_eps)
		ret = -ENOSPC;
	else
		ret = mm_extras_charge(ep->mm, &spare);
	if (!ret) {
		ep->eid = job->next_eid;
		ret = xa_insert(&job->eps, ep->eid, ep, GFP_KERNEL_ACCOUNT);
		if (ret)
			mm_extras_uncharge(ep->mm);
		else
			job->next_eid++;
	}
	mutex_unlock(&job->lock);
	kfree(spare);
	if (ret) {
		ep_unalloc(ep);
		return ERR_PTR(ret);
	}
	atomic_inc(&job->nic->nr_endpoints);
	return ep;
}

/* ---- departure ----------------------------------------------------------------- */

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
 * Takes ep out of the job's table, leaving its mark (EP_INFO: closed, and
 * whose it was).  Under job->lock.  The slot exists, so the store
 * allocates nothing and cannot fail.
 */
static void ep_unpublish(struct pgas_ep *ep)
{
	xa_store(&ep->job->eps, ep->eid, xa_mk_value(ep->vpid), GFP_NOWAIT);
	/* depart_extras_of() may wait for it: the store before the check of waiters. */
	smp_mb();
	wake_up_var(&ep->job->eps);
}

/* Every live endpoint's sleeper must look again (a departure). Under job->lock. */
static void wake_all(struct pgas_job *job)
{
	unsigned long eid;
	void *entry;

	xa_for_each(&job->eps, eid, entry)
		if (pgas_live_ep(entry))
			pgas_ep_wake(entry);
}

/*
 * A rank's endpoint departs: the count on every live rank's kernel page
 * comes before its memory is revoked (see pgas_count_peer_gone()), the
 * event after.  Extras have no kernel page: they learn it from their
 * rank's, and are only woken.
 */
static void depart_primary(struct pgas_ep *ep, bool died)
{
	struct pgas_job *job = ep->job;
	struct pgas_ep *p;
	unsigned long eid;
	void *entry;

	mutex_lock(&job->lock);
	ep_unpublish(ep);
	xa_for_each_range(&job->eps, eid, entry, 0, job->nranks - 1) {
		p = pgas_live_ep(entry);
		if (p)
			pgas_count_peer_gone(p, died);
	}
	mutex_unlock(&job->lock);

	pgas_ep_release_objs(ep);

	mutex_lock(&job->lock);
	xa_for_each_range(&job->eps, eid, entry, 0, job->nranks - 1) {
		p = pgas_live_ep(entry);
		if (p)
			pgas_notify_peer_gone(p, ep->eid, died);
	}
	wake_all(job);	/* a sleeper must see it */
	mutex_unlock(&job->lock);
}

/*
 * An extra endpoint departs, however it goes: its rings are revoked, then
 * every live rank's kernel page gets the event {eid, PGAS_GONE_CLOSED}
 * (eps_closed, never peers_gone or peers_left: those count ranks, and a
 * rank's one-word check must not fire for a thread's endpoint).
 */
static void depart_extra(struct pgas_ep *ep)
{
	struct pgas_job *job = ep->job;
	struct pgas_ep *p;
	unsigned long eid;
	void *entry;

	mutex_lock(&job->lock);
	ep_unpublish(ep);
	mutex_unlock(&job->lock);

	pgas_ep_release_objs(ep);

	mutex_lock(&job->lock);
	xa_for_each_range(&job->eps, eid, entry, 0, job->nranks - 1) {
		p = pgas_live_ep(entry);
		if (p)
			pgas_notify_peer_gone(p, ep->eid, PGAS_GONE_CLOSED);
	}
	wake_all(job);
	mutex_unlock(&job->lock);
}

/*
 * A rank's endpoint is departing (PGAS_EP_GONE is set, so no new extra
 * can join for it): its extras depart first, however it goes.  Without
 * it they would outlive their rank, blind to departures (their rank's
 * kernel page speaks for them) and, once another process joined the rank,
 * shown by EP_INFO as live endpoints of that process.  One that another
 * task is already departing is waited for until it is out of the table:
 * only its entry is looked at (eids are never reused, so a pointer there
 * is that endpoint), never the endpoint, which its departer may free as
 * soon as it is done.  On return none of the rank's extras is in the
 * table (EP_INFO: closed), so none is left once its vpid can be joined
 * again; the closed events of those this departure took precede the
 * rank's own.
 */
static void depart_extras_of(struct pgas_ep *ep)
{
	struct pgas_job *job = ep->job;
	unsigned long eid = job->nranks;
	struct pgas_ep *x;
	void *entry;
	bool mine;

	/* One walk: no extra of ep joins from now on, and eids only grow. */
	for (;; eid++) {
		x = NULL;
		mutex_lock(&job->lock);
		xa_for_each_start(&job->eps, eid, entry, eid) {
			x = pgas_live_ep(entry);
			if (x && x->vpid == ep->vpid && x->mm == ep->mm)
				break;
			x = NULL;
		}
		mine = x && !test_and_set_bit(PGAS_EP_GONE, &x->flags);
		mutex_unlock(&job->lock);
		if (!x)
			return;
		if (mine)	/* claimed: whoever else departs it waits for us */
			pgas_ep_depart_claimed(x, false);
		else		/* x may be freed once out: only its entry is read */
			wait_var_event(&job->eps, xa_load(&job->eps, eid) != x);
	}
}

/*
 * A departed endpoint maps nothing: ->mmap refuses its file (-ENODEV,
 * from PGAS_EP_GONE on), and its file's mappings, which may outlive it
 * (an extra's, when its rank departs first; any, when the NIC is
 * deleted), are revoked: of an obj that is not, they map the endpoint's
 * throwaway page from now on (pgas_vm_fault()).  unmapped is set under
 * ep->maps, which every fault through the file holds around its
 * insertion, so what one mapped before is zapped after.  The zap is of
 * the file's own mappings only (pgas_obj_zap_ep(): no one else's is
 * touched, or a user could make every job on the NIC fault its pages in
 * again, once a departure), and only where it is needed: the file has
 * mappings.  Normal closes never need it: a mapping holds its file, so a
 * file is released with none.
 */
static void ep_unmap(struct pgas_ep *ep)
{
	down_write(&ep->maps);
	ep->unmapped = true;
	up_write(&ep->maps);
	if (atomic_read(&ep->nr_vmas) && ep->mm)
		pgas_obj_zap_ep(ep);
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

	/* Ioctls that started before PGAS_EP_GONE was set finish first. */
	down_write(&ep->use);
	up_write(&ep->use);

	if (ep->extra) {
		depart_extra(ep);
	} else {
		depart_extras_of(ep);
		depart_primary(ep, died);
	}
	/* After its own objs' revocation: its kernel page's copy is what it maps. */
	ep_unmap(ep);

	pgas_event_ep_dead(ep);
	if (!ep->extra)
		ida_free(&job->vpids, ep->vpid);
	atomic_dec(&job->nic->nr_endpoints);
	/*
	 * Its own pollers last: wake_all() walked the table it had left.  An
	 * extra's file outlives its rank's, so a thread may sleep on it while
	 * another closes the rank.  PGAS_EP_GONE is set: they see EPOLLHUP.
	 */
	wake_up_poll(&ep->wq, EPOLLERR | EPOLLHUP);
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
	/*
	 * An extra counts against max_eps_per_mm until here, not only until
	 * its departure: a mapping through its file keeps the file, the
	 * endpoint and its job, and must not let a process keep more.
	 */
	if (ep->extra)
		mm_extras_uncharge(ep->mm);
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

/* PGAS_IOC_WAKE: from's job's endpoint eid (a rank or an extra), if it is there. */
int pgas_wake_eid(struct pgas_ep *from, u32 eid)
{
	struct pgas_job *job = from->job;
	struct pgas_ep *ep;
	int ret = -ENOENT;

	if (eid >= job->max_eps)
		return -EINVAL;
	mutex_lock(&job->lock);
	ep = pgas_live_ep(xa_load(&job->eps, eid));
	if (ep && ep->rings) {
		pgas_ep_wake(ep);
		ret = 0;
	}
	mutex_unlock(&job->lock);
	return ret;
}

/*
 * PGAS_IOC_EP_INFO: endpoint eid of from's job as its table has it.  A
 * live endpoint's rings were published under job->lock once complete
 * (pgas_rings_create()), and are read under it here.
 */
int pgas_ep_info(struct pgas_ep *from, struct pgas_ioc_ep_info *arg)
{
	struct pgas_job *job = from->job;
	u32 eid = arg->eid;
	struct pgas_ep *ep;
	void *entry;
	int ret = 0;

	arg->owner = eid;
	arg->state = PGAS_EP_STATE_NONE;
	arg->region_size = 0;
	arg->cookie = 0;
	memset(&arg->layout, 0, sizeof(arg->layout));
	if (eid >= job->max_eps)
		return -ENOENT;
	mutex_lock(&job->lock);
	entry = xa_load(&job->eps, eid);
	ep = pgas_live_ep(entry);
	if (eid >= job->nranks && eid >= job->next_eid) {
		ret = -ENOENT;		/* not handed out yet */
	} else if (ep) {
		arg->owner = ep->vpid;
		arg->state = PGAS_EP_STATE_LIVE;
		if (ep->rings) {
			arg->region_size = ep->layout.size;
			arg->cookie = ep->rings->cookie << PAGE_SHIFT;
			arg->layout = ep->layout;
		}
	} else if (entry) {
		arg->owner = xa_to_value(entry);
		arg->state = PGAS_EP_STATE_CLOSED;
	}
	mutex_unlock(&job->lock);
	return ret;
}

/*
 * ->poll's mask once the caller is on ep->wq: EPOLLERR | EPOLLHUP once
 * departed (its departure wakes the queue), EPOLLERR without rings.
 */
__poll_t pgas_ep_poll(struct pgas_ep *ep)
{
	struct pgas_ctrl_page *ctrl;
	__poll_t mask = EPOLLERR;

	mutex_lock(&ep->job->lock);
	if (test_bit(PGAS_EP_GONE, &ep->flags)) {
		mask |= EPOLLHUP;
	} else if (ep->rings) {
		ctrl = ep->rings->vaddr;
		mask = READ_ONCE(ctrl->sleeping) ? 0 : EPOLLIN | EPOLLRDNORM;
	}
	mutex_unlock(&ep->job->lock);
	return mask;
}

/* The last of ep, once no departure work can run on it. */
void pgas_ep_kfree(struct pgas_ep *ep)
{
	if (ep->dummy)
		__free_page(ep->dummy);
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
