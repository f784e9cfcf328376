// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_main.c - pgas.ko: software-loopback PGAS NICs as misc devices.
 *
 * Each NIC is /dev/pgasN.  An open file takes one role: the launcher's
 * (PGAS_IOC_JOB_CREATE: it holds the job while open) or an endpoint's
 * (PGAS_IOC_JOB_JOIN).  An endpoint belongs to the process that joined:
 * rings, registrations and mappings hang off it and are torn down when that
 * process's mm is released (exit, a signal, exec: an mmu_notifier sees it
 * even if a child kept the fd) or when the file is released, whichever
 * comes first.  Only tasks of the joining mm may use it (-EACCES).  See
 * pgas.h for lifetimes and the lock order.
 *
 * This file loads and unloads the module: the mappings' filesystem,
 * pgas_wq, the NICs made at load (nics=) and the netlink family.  pgas.h
 * lists which file owns which object and lock.
 */
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include "pgas.h"

static unsigned int nics = 1;
module_param(nics, uint, 0444);
MODULE_PARM_DESC(nics, "software-loopback NICs created at load (0-16, default 1)");

/* Departures queued by ->release, and frees queued by ->free_notifier. */
struct workqueue_struct *pgas_wq;

static int __init pgas_init(void)
{
	unsigned int i;
	int ret;

	BUILD_BUG_ON(sizeof(struct pgas_ctrl_page) > PGAS_MIN_PAGE_SIZE);
	BUILD_BUG_ON(sizeof(struct pgas_mbox_slot) != PGAS_SLOT_SIZE);
	BUILD_BUG_ON(sizeof(struct pgas_notify_entry) != 16);
	if (nics > PGAS_MAX_NICS)
		return -EINVAL;
	ret = pgas_obj_init();
	if (ret)
		return ret;
	pgas_wq = alloc_workqueue("pgas", 0, 0);
	if (!pgas_wq) {
		pgas_obj_exit();
		return -ENOMEM;
	}
	for (i = 0; i < nics; i++) {
		ret = pgas_nic_create();
		if (ret < 0)
			goto fail;
	}
	ret = pgas_netlink_init();
	if (ret)
		goto fail;
	return 0;
fail:
	pgas_destroy_all();
	destroy_workqueue(pgas_wq);
	pgas_obj_exit();
	return ret;
}

static void __exit pgas_exit(void)
{
	pgas_netlink_exit();
	pgas_destroy_all();
	/* Every pgas_mn_free() has run, and every work it queued. */
	mmu_notifier_synchronize();
	destroy_workqueue(pgas_wq);
	pgas_obj_exit();	/* no file is open: every NIC is freed */
}

module_init(pgas_init);
module_exit(pgas_exit);
MODULE_DESCRIPTION("Software-loopback PGAS NIC: VELO mailboxes, RMA notifications, registered segments");
MODULE_AUTHOR("libpgas developers");
MODULE_LICENSE("Dual MIT/GPL");
