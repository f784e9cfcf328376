// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_ep_death.c - an endpoint's owner's death, seen by an mmu_notifier
 * on the joining mm, and the endpoint's final free.
 *
 * The notifier's ->release queues the departure on pgas_wq (it runs inside
 * exit_mmap's SRCU read section: pgas.h), ->free_notifier queues the free.
 * A file of its own: the KUnit tier compiles pgas_ep.c into a UML kernel
 * without CONFIG_MMU_NOTIFIER.
 */
#include <linux/mmu_notifier.h>
#include <linux/workqueue.h>

#include "pgas.h"

#ifndef CONFIG_MMU_NOTIFIER
#error "pgas.ko needs CONFIG_MMU_NOTIFIER: it watches its endpoints' processes die"
#endif

/* ---- the owner's death: an mmu_notifier on the joining mm --------------- */

/*
 * The owner's mm is being torn down (exit, a fatal signal, exec).  This
 * runs inside exit_mmap's SRCU read section: departing here could drop the
 * last reference to a peer's mm (revocation's mmput()), whose exit_mmap
 * would then wait for this very section.  So the departure is queued.
 */
static void pgas_mn_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	queue_work(pgas_wq, &container_of(mn, struct pgas_ep, mn)->depart_work);
}

void pgas_ep_depart_work(struct work_struct *work)
{
	pgas_ep_depart_dying(container_of(work, struct pgas_ep, depart_work));
}

/*
 * ->release queued depart_work (if it did) inside the SRCU read section
 * that ended before ->free_notifier ran, so flushing it here is enough.
 */
void pgas_ep_free_work(struct work_struct *work)
{
	struct pgas_ep *ep = container_of(work, struct pgas_ep, free_work);

	flush_work(&ep->depart_work);
	pgas_ep_kfree(ep);
}

/* After mmu_notifier_put() and an SRCU grace period: no ->release runs. */
static void pgas_mn_free(struct mmu_notifier *mn)
{
	queue_work(pgas_wq, &container_of(mn, struct pgas_ep, mn)->free_work);
}

const struct mmu_notifier_ops pgas_mn_ops = {
	.release = pgas_mn_release,
	.free_notifier = pgas_mn_free,
};

/* Departs if it has not, and frees ep once no ->release can run. */
void pgas_ep_free(struct pgas_ep *ep)
{
	pgas_ep_depart(ep);
	pgas_ep_put_refs(ep);
	if (ep->mn.ops)
		mmu_notifier_put(&ep->mn);	/* frees it: pgas_mn_free() */
	else
		pgas_ep_kfree(ep);
}
