// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_nic.c - NICs: the misc devices /dev/pgasN, their sysfs counters,
 * and their deletion.
 *
 * A NIC is made at load (nics=) or by netlink NIC_NEW and listed in
 * pgas_nics under pgas_nics_lock, the outermost pgas lock (pgas.h).  The
 * list, every open file and every job hold a reference; it is freed with
 * the last.  Deleting one takes it out of the list, then, with no pgas lock
 * held, removes its device and revokes its jobs (pgas_nic_revoke_jobs() in
 * pgas_job.c); open files keep it until they are closed.
 */
#include <linux/fs.h>
#include <linux/slab.h>

#include "pgas.h"

LIST_HEAD(pgas_nics);
DEFINE_MUTEX(pgas_nics_lock);	/* protects pgas_nics; outermost (pgas.h) */
static DEFINE_IDA(pgas_nic_ida);

static void pgas_nic_free(struct kref *kref)
{
	struct pgas_nic *nic = container_of(kref, struct pgas_nic, kref);

	xa_destroy(&nic->jobs);
	mtree_destroy(&nic->objs);
	iput(nic->inode);
	ida_free(&pgas_nic_ida, nic->id);
	kfree(nic);
}

void pgas_nic_put(struct pgas_nic *nic)
{
	kref_put(&nic->kref, pgas_nic_free);
}

/* ---- sysfs: /sys/class/misc/pgasN/{endpoints,jobs,...} ------------------------ */

static struct pgas_nic *dev_to_nic(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct pgas_nic, misc);
}

#define PGAS_ATTR(name, expr)							\
static ssize_t name##_show(struct device *dev, struct device_attribute *attr,	\
			   char *buf)						\
{										\
	struct pgas_nic *nic = dev_to_nic(dev);					\
										\
	return sysfs_emit(buf, "%lld\n", (long long)(expr));			\
}										\
static DEVICE_ATTR_RO(name)

PGAS_ATTR(endpoints, atomic_read(&nic->nr_endpoints));
PGAS_ATTR(jobs, atomic_read(&nic->nr_jobs));
PGAS_ATTR(pinned_pages, atomic64_read(&nic->pinned_pages));
PGAS_ATTR(ring_bytes, atomic64_read(&nic->ring_bytes));
PGAS_ATTR(mmaps, atomic64_read(&nic->nr_mmaps));
PGAS_ATTR(peer_gone, atomic64_read(&nic->nr_peer_gone));

static struct attribute *pgas_attrs[] = {
	&dev_attr_endpoints.attr,
	&dev_attr_jobs.attr,
	&dev_attr_pinned_pages.attr,
	&dev_attr_ring_bytes.attr,
	&dev_attr_mmaps.attr,
	&dev_attr_peer_gone.attr,
	NULL,
};
ATTRIBUTE_GROUPS(pgas);

/* ---- NICs ----------------------------------------------------------------------- */

int pgas_nic_create(void)
{
	struct pgas_nic *nic;
	int id, ret;

	id = ida_alloc_max(&pgas_nic_ida, PGAS_MAX_NICS - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	nic = kzalloc(sizeof(*nic), GFP_KERNEL);
	if (!nic) {
		ida_free(&pgas_nic_ida, id);
		return -ENOMEM;
	}
	nic->inode = pgas_mapping_inode();
	if (IS_ERR(nic->inode)) {
		ret = PTR_ERR(nic->inode);
		kfree(nic);
		ida_free(&pgas_nic_ida, id);
		return ret;
	}
	kref_init(&nic->kref);
	nic->id = id;
	snprintf(nic->name, sizeof(nic->name), "pgas%d", id);
	xa_init_flags(&nic->jobs, XA_FLAGS_ALLOC1);
	mt_init(&nic->objs);
	nic->cookie_space = PGAS_COOKIE_SPACE;
	nic->misc.minor = MISC_DYNAMIC_MINOR;
	nic->misc.name = nic->name;
	nic->misc.fops = &pgas_fops;
	nic->misc.groups = pgas_groups;
	nic->misc.mode = 0660;
	ret = misc_register(&nic->misc);
	if (ret) {
		pgas_nic_put(nic);
		return ret;
	}
	mutex_lock(&pgas_nics_lock);
	list_add_tail(&nic->node, &pgas_nics);
	mutex_unlock(&pgas_nics_lock);
	return id;
}

/*
 * Takes a NIC out of the list (under pgas_nics_lock), then, with no pgas
 * lock held: removes its device and revokes its jobs, which takes mappers'
 * mmap_lock.  Open files keep the nic until they are closed.
 */
static void pgas_nic_destroy(struct pgas_nic *nic)
{
	misc_deregister(&nic->misc);
	pgas_nic_revoke_jobs(nic);
	pgas_nic_put(nic);
}

int pgas_nic_destroy_id(int id)
{
	struct pgas_nic *nic, *found = NULL;

	mutex_lock(&pgas_nics_lock);
	list_for_each_entry(nic, &pgas_nics, node)
		if (nic->id == id) {
			list_del(&nic->node);
			found = nic;
			break;
		}
	mutex_unlock(&pgas_nics_lock);
	if (!found)
		return -ENODEV;
	pgas_nic_destroy(found);
	return 0;
}

void pgas_destroy_all(void)
{
	struct pgas_nic *nic;

	for (;;) {
		mutex_lock(&pgas_nics_lock);
		nic = list_first_entry_or_null(&pgas_nics, struct pgas_nic, node);
		if (nic)
			list_del(&nic->node);
		mutex_unlock(&pgas_nics_lock);
		if (!nic)
			return;
		pgas_nic_destroy(nic);
	}
}
