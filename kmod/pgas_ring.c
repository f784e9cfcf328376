// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_ring.c - ring regions and kernel pages: what PGAS_IOC_RINGS_CREATE
 * makes for an endpoint.
 *
 * A ring region is vmalloc memory laid out by pgas_region_layout(), charged
 * against RLIMIT_MEMLOCK and to the caller's memory cgroup, and written by
 * every endpoint of the job.  The kernel page next to it (a rank's
 * endpoint's only: extras have none) is written only by pgas.ko (peer-gone
 * counts and events, under job->lock) and mapped read-only.  Both are
 * published on the endpoint under job->lock and released when it departs
 * (pgas_ep_release_objs()).  A job's regions are summed in
 * job->ring_bytes from their creation to their free.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "pgas.h"

/* ---- kernel pages ----------------------------------------------------------- */

/*
 * An endpoint's kernel page (struct pgas_kern_page): what pgas.ko writes
 * for it, mapped read-only by every endpoint of the job.  Peers can write
 * anything into a ring region, so nothing the owner must trust lives there.
 */
static struct pgas_obj *kern_page_create(struct pgas_ep *ep, const struct pgas_ioc_rings *arg)
{
	struct pgas_kern_page *kp;
	struct pgas_obj *obj;
	int ret;

	BUILD_BUG_ON(sizeof(struct pgas_kern_page) > PGAS_MIN_PAGE_SIZE);
	obj = pgas_obj_alloc(ep->job, PGAS_OBJ_KERN, 1);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->vaddr = __vmalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	/* What its mappings show once it is revoked (pgas_obj_revoke()). */
	obj->dummy = alloc_page(GFP_KERNEL_ACCOUNT);
	if (!obj->vaddr || !obj->dummy) {
		pgas_obj_put(obj);
		return ERR_PTR(-ENOMEM);
	}
	kp = obj->vaddr;
	kp->magic = PGAS_ABI_MAGIC;
	kp->version = PGAS_ABI_VERSION;
	kp->rank = ep->vpid;
	kp->nranks = ep->job->nranks;
	kp->mbox_slots = arg->mbox_slots;
	kp->notify_entries = arg->notify_entries;
	kp->bounce_bufs = arg->bounce_bufs;
	kp->bounce_size = arg->bounce_size;
	ret = pgas_obj_publish(ep->job->nic, obj);
	if (ret) {
		pgas_obj_put(obj);
		return ERR_PTR(ret);
	}
	return obj;
}

void pgas_kern_page_release(struct pgas_obj *obj)
{
	pgas_obj_revoke(obj);
	pgas_obj_put(obj);
}

/* ---- ring regions --------------------------------------------------------- */

int pgas_ring_layout(const struct pgas_ioc_rings *g, u32 nranks,
		     struct pgas_region_layout *out)
{
	if (g->flags || !is_power_of_2(g->mbox_slots) || g->mbox_slots < 16 ||
	    g->mbox_slots > 32768 || !is_power_of_2(g->notify_entries) ||
	    g->notify_entries < 16 || g->notify_entries > (1U << 20) ||
	    g->bounce_bufs < 1 || g->bounce_bufs > 64 || g->bounce_size < PGAS_CACHELINE ||
	    g->bounce_size > (1U << 20) || g->bounce_size % PGAS_CACHELINE)
		return -EINVAL;
	pgas_region_layout(g->mbox_slots, g->notify_entries, g->bounce_bufs, g->bounce_size,
			   nranks, out);
	if (out->size > PGAS_MAX_RING_BYTES || out->size * nranks > PGAS_MAX_JOB_RING_BYTES)
		return -E2BIG;
	return 0;
}

/*
 * Counts size bytes of rings in job, extras' included: -E2BIG if its
 * regions would be over 4 GiB.  Exact under concurrent creations (a
 * compare-and-swap, no lock); undone by job_ring_unreserve(), or by the
 * region's free once it is counted.
 */
static int job_ring_reserve(struct pgas_job *job, u64 size)
{
	s64 cur = atomic64_read(&job->ring_bytes);

	do {
		if ((u64)cur + size > PGAS_MAX_JOB_RING_BYTES)
			return -E2BIG;
	} while (!atomic64_try_cmpxchg(&job->ring_bytes, &cur, cur + size));
	return 0;
}

static void job_ring_unreserve(struct pgas_job *job, u64 size)
{
	atomic64_sub(size, &job->ring_bytes);
}

int pgas_rings_create(struct pgas_ep *ep, struct pgas_ioc_rings *arg)
{
	struct pgas_job *job = ep->job;
	struct pgas_nic *nic = job->nic;
	struct pgas_region_layout layout;
	struct pgas_obj *obj, *kern = NULL;
	struct pgas_ctrl_page *ctrl;
	int ret;

	ret = pgas_ring_layout(arg, job->nranks, &layout);
	if (ret)
		return ret;
	if (ep->rings)
		return -EEXIST;
	ret = job_ring_reserve(job, layout.size);
	if (ret)
		return ret;
	ret = -ENOMEM;
	obj = pgas_obj_alloc(job, PGAS_OBJ_RINGS, layout.size >> PAGE_SHIFT);
	if (!obj)
		goto unreserve;
	obj->writable = true;
	ret = pgas_obj_charge(obj);
	if (ret)
		goto put;
	/*
	 * Charged to the caller's memory cgroup, and allowed to fail rather
	 * than OOM-kill.  Not vmalloc_user(): that cannot be accounted on 6.1
	 * (__vmalloc_node_range() is not exported); pgas_vm_fault() maps it by
	 * pfn, so it needs no VM_USERMAP.  Zeroed: it is mapped to users.
	 */
	obj->vaddr = __vmalloc(layout.size, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN |
			       __GFP_RETRY_MAYFAIL);
	ret = -ENOMEM;
	if (!obj->vaddr)
		goto put;
	ctrl = obj->vaddr;
	ctrl->magic = PGAS_ABI_MAGIC;
	ctrl->version = PGAS_ABI_VERSION;
	ctrl->rank = ep->eid;
	ctrl->mbox_slots = arg->mbox_slots;
	ctrl->notify_entries = arg->notify_entries;
	ctrl->bounce_bufs = arg->bounce_bufs;
	ctrl->bounce_size = arg->bounce_size;
	/* An extra's departures and its rank's are on its rank's kernel page. */
	if (!ep->extra) {
		kern = kern_page_create(ep, arg);
		if (IS_ERR(kern)) {
			ret = PTR_ERR(kern);
			goto put;
		}
	}
	ret = pgas_obj_publish(nic, obj);
	if (ret) {
		if (kern)
			pgas_kern_page_release(kern);
		goto put;
	}
	/* Counted once nothing can fail; obj_free() uncounts only then. */
	atomic64_add(layout.size, &nic->ring_bytes);
	obj->counted = true;
	ep->layout = layout;
	ep->notify_entries = arg->notify_entries;
	/*
	 * Published last: peer-gone notifications read ep->kern, and WAKE
	 * and EP_INFO ep->rings and ep->layout, under job->lock.
	 */
	mutex_lock(&job->lock);
	ep->rings = obj;
	ep->kern = kern;
	mutex_unlock(&job->lock);
	arg->region_size = layout.size;
	arg->layout = layout;
	arg->cookie = obj->cookie << PAGE_SHIFT;
	arg->kern_cookie = kern ? kern->cookie << PAGE_SHIFT : 0;
	return 0;
put:
	pgas_obj_put(obj);	/* not counted: leaves job->ring_bytes to us */
unreserve:
	job_ring_unreserve(job, layout.size);
	return ret;
}

/*
 * A departure reaches a peer's kernel page in two steps, both under
 * to->job->lock (which orders the kernel's writes to one page): the count
 * before the endpoint's memory is revoked, the event after.  So a peer
 * whose copy read the throwaway page that revocation leaves sees the count
 * when it looks next (pgas_abi.h), and waits for the event to learn who.
 * died: by a signal or a non-zero exit.  Only the kernel page is written:
 * an entry in the peer-writable notification ring could be forged.
 */
void pgas_count_peer_gone(struct pgas_ep *to, bool died)
{
	struct pgas_kern_page *kp;

	if (!to->kern)
		return;
	kp = to->kern->vaddr;
	if (kp->peers_gone == PGAS_KERN_REVOKED)
		return;		/* taken away: stays so */
	if (died)
		WRITE_ONCE(kp->peers_gone, kp->peers_gone + 1);
	else
		WRITE_ONCE(kp->peers_left, kp->peers_left + 1);
}

/*
 * pgas.ko takes ep away from its living owner (its NIC is being deleted):
 * say so on its kernel page before any of the job departs, so that the
 * owner reads why rather than a peer's death (pgas_abi.h,
 * PGAS_KERN_REVOKED).  Under ep->job->lock.  Extras have no kernel page:
 * their threads read their rank's.
 */
void pgas_mark_revoked(struct pgas_ep *ep)
{
	if (!ep->kern)
		return;
	WRITE_ONCE(((struct pgas_kern_page *)ep->kern->vaddr)->peers_gone, PGAS_KERN_REVOKED);
	pgas_ep_wake(ep);
}

/*
 * died: 0 or 1 for a rank (counted before), PGAS_GONE_CLOSED for an extra
 * endpoint, counted here in eps_closed, which no peer's check of the rank
 * counts reads (pgas_abi.h).
 */
void pgas_notify_peer_gone(struct pgas_ep *to, u32 eid, u32 died)
{
	struct pgas_kern_page *kp;
	struct pgas_gone_event *e;
	u64 t;

	atomic64_inc(&to->job->nic->nr_peer_gone);
	atomic64_inc(&to->job->nr_peer_gone);
	if (!to->kern)
		return;
	kp = to->kern->vaddr;
	if (died == PGAS_GONE_CLOSED)
		WRITE_ONCE(kp->eps_closed, kp->eps_closed + 1);
	t = kp->gone_tail;
	e = &kp->gone[t % PGAS_GONE_EVENTS];
	WRITE_ONCE(e->vpid, eid);
	WRITE_ONCE(e->died, died);
	/* Release: the event before the tail that the owner acquires. */
	smp_store_release(&kp->gone_tail, t + 1);
}
