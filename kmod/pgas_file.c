// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_file.c - an open /dev/pgasN: its role, its ioctls and its file
 * operations.
 *
 * An open file takes one role: the launcher's (PGAS_IOC_JOB_CREATE: it
 * holds the job while open) or an endpoint's (PGAS_IOC_JOB_JOIN: a rank's,
 * or with PGAS_JOIN_EXTRA one more of the process that owns a rank).  It holds
 * its NIC, and its job or endpoint, until it is released.  pgas_file.lock
 * serialises the role claim and RINGS_CREATE and is never held around user
 * memory; the endpoint is published once and read without it (pgas.h's
 * lock order).
 */
#include <linux/fs.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "pgas.h"

/*
 * An open file's role is taken once: JOB_CREATE sets job, JOB_JOIN
 * publishes ep with smp_store_release() once the endpoint is complete, and
 * neither changes again until the file is released.  ->mmap, RINGS_CREATE,
 * REG and DEREG load ep with smp_load_acquire() and no lock.
 */
struct pgas_file {
	struct pgas_nic *nic;
	struct mutex lock;		/* claiming, RINGS_CREATE; never around user memory */
	bool claiming;			/* a JOB_CREATE/JOIN is in flight; under lock */
	struct pgas_job *job;		/* created through this file */
	struct pgas_ep *ep;		/* joined through this file */
};

/* ---- ioctls ------------------------------------------------------------------ */

/*
 * Copies a size-prefixed struct in: any size from min_size up to ksize is
 * accepted (shorter ones zero-extended), a longer one only if it is at most
 * a page and its extra bytes are zero (else -E2BIG, before any is read).
 */
static int copy_in(void *karg, size_t ksize, size_t min_size, void __user *uarg, u32 *usize)
{
	u32 size;
	int ret;

	if (get_user(size, (u32 __user *)uarg))
		return -EFAULT;
	if (size < min_size)
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(karg, ksize, uarg, size);
	if (ret)
		return ret;
	*usize = size;
	return 0;
}

static int copy_out(void __user *uarg, const void *karg, size_t ksize, u32 usize)
{
	return copy_to_user(uarg, karg, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

/*
 * Takes the file's one role (launcher or endpoint) for a JOB_CREATE or
 * JOB_JOIN in flight; -EBUSY if it has one or another is being taken.
 */
static int claim_role(struct pgas_file *pf)
{
	int ret = 0;

	mutex_lock(&pf->lock);
	if (pf->claiming || pf->job || pf->ep)
		ret = -EBUSY;
	else
		pf->claiming = true;
	mutex_unlock(&pf->lock);
	return ret;
}

static void unclaim_role(struct pgas_file *pf)
{
	mutex_lock(&pf->lock);
	pf->claiming = false;
	mutex_unlock(&pf->lock);
}

/* The endpoint joined through this file, or NULL. */
static struct pgas_ep *file_ep(struct pgas_file *pf)
{
	/* Acquire: pairs with the release in ioc_job_join(). */
	return smp_load_acquire(&pf->ep);
}

/*
 * The endpoint a mapping of file was made through (pgas_obj.c): published
 * before ->mmap could succeed, and alive while the mapping holds file.
 */
struct pgas_ep *pgas_file_ep(struct file *file)
{
	return file_ep(file->private_data);
}

/*
 * The file's endpoint for a task of mm: -EBADFD if the file has not
 * joined, -EACCES if mm is not the joining process's (a child that
 * inherited the fd, a process it was passed to).  The owner's mm is
 * mmgrab()ed, so its address is never another mm's while ep lives.
 */
static struct pgas_ep *owned_ep(struct pgas_file *pf, struct mm_struct *mm)
{
	struct pgas_ep *ep = file_ep(pf);

	if (!ep)
		return ERR_PTR(-EBADFD);
	if (ep->mm != mm)
		return ERR_PTR(-EACCES);
	return ep;
}

/*
 * The handlers copy their argument in before they take any lock, and out
 * after they dropped it: a fault on user memory takes mmap_lock, which no
 * pgas lock may be held around (pgas.h).
 */
static int ioc_job_create(struct pgas_file *pf, void __user *uarg)
{
	struct pgas_ioc_job_create a;
	struct pgas_job *job;
	u32 usize;
	int ret;

	/* A 24-byte caller has no max_eps: zero-extended, it means nranks. */
	ret = copy_in(&a, sizeof(a), PGAS_IOC_JOB_CREATE_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.flags || a.pad)
		return -EINVAL;
	ret = claim_role(pf);
	if (ret)
		return ret;
	job = pgas_job_create(pf->nic, a.nranks, a.max_eps);
	if (IS_ERR(job)) {
		unclaim_role(pf);
		return PTR_ERR(job);
	}
	a.job_id = job->id;
	a.key = job->key;
	ret = copy_out(uarg, &a, sizeof(a), usize);
	if (ret) {
		pgas_job_put(job);
		unclaim_role(pf);
		return ret;
	}
	mutex_lock(&pf->lock);
	pf->job = job;
	pf->claiming = false;
	mutex_unlock(&pf->lock);
	return 0;
}

static int ioc_job_join(struct pgas_file *pf, void __user *uarg)
{
	struct pgas_ioc_job_join a;
	struct pgas_job *job;
	struct pgas_ep *ep;
	u32 usize;
	int ret;

	/* A 32-byte caller has no eid: it can join a rank, not an extra. */
	ret = copy_in(&a, sizeof(a), PGAS_IOC_JOB_JOIN_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if ((a.flags & ~PGAS_JOIN_EXTRA) || a.pad || a.pad1)
		return -EINVAL;
	if ((a.flags & PGAS_JOIN_EXTRA) && usize < PGAS_IOC_JOB_JOIN_SIZE_VER1)
		return -EINVAL;
	ret = claim_role(pf);
	if (ret)
		return ret;
	job = pgas_job_get_by_id(pf->nic, a.job_id);
	if (!job) {
		ret = -ENOENT;
		goto unclaim;
	}
	if (!pgas_key_equal(a.key, job->key)) {
		pgas_job_put(job);
		ret = -EACCES;
		goto unclaim;
	}
	if (a.flags & PGAS_JOIN_EXTRA)
		ep = pgas_ep_join_extra(job, a.vpid);
	else
		ep = pgas_ep_join(job, a.vpid);
	a.nranks = job->nranks;
	pgas_job_put(job);
	if (IS_ERR(ep)) {
		ret = PTR_ERR(ep);
		goto unclaim;
	}
	/* Takes mmap_lock for writing: no pgas lock is held here. */
	INIT_WORK(&ep->depart_work, pgas_ep_depart_work);
	INIT_WORK(&ep->free_work, pgas_ep_free_work);
	ep->mn.ops = &pgas_mn_ops;
	ret = mmu_notifier_register(&ep->mn, current->mm);
	if (ret) {
		ep->mn.ops = NULL;
		pgas_ep_leave(ep);
		goto unclaim;
	}
	a.eid = ep->eid;
	ret = copy_out(uarg, &a, sizeof(a), usize);
	if (ret) {
		pgas_ep_free(ep);
		goto unclaim;
	}
	mutex_lock(&pf->lock);
	/* Release: ->mmap, REG and DEREG see a complete endpoint. */
	smp_store_release(&pf->ep, ep);
	pf->claiming = false;
	mutex_unlock(&pf->lock);
	return 0;
unclaim:
	unclaim_role(pf);
	return ret;
}

/*
 * The caller's own endpoint, in use (pgas_ep_unuse() after), or an ERR_PTR.
 * primary: the call is the process's rank's, which an extra endpoint
 * cannot make (-EOPNOTSUPP).
 */
static struct pgas_ep *use_own_ep(struct pgas_file *pf, bool primary)
{
	struct pgas_ep *ep = owned_ep(pf, current->mm);

	if (IS_ERR(ep))
		return ep;
	if (primary && ep->extra)
		return ERR_PTR(-EOPNOTSUPP);
	if (!pgas_ep_use(ep))
		return ERR_PTR(-ENODEV);
	return ep;
}

static int ioc_rings(struct pgas_file *pf, void __user *uarg)
{
	struct pgas_ioc_rings a;
	struct pgas_ep *ep;
	u32 usize;
	int ret;

	/* ABI 1's struct had no kern_cookie: still accepted, told less. */
	ret = copy_in(&a, sizeof(a), PGAS_IOC_RINGS_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.pad)
		return -EINVAL;
	ep = use_own_ep(pf, false);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	/* Serialises the check for existing rings with their creation. */
	mutex_lock(&pf->lock);
	ret = pgas_rings_create(ep, &a);
	mutex_unlock(&pf->lock);
	pgas_ep_unuse(ep);
	if (ret)
		return ret;
	a.page_size = PAGE_SIZE;	/* the layout's (ABI 3); older callers are not told */
	/* The rings stay until the file is released, even if this fails. */
	return copy_out(uarg, &a, sizeof(a), usize);
}

static int ioc_reg(struct pgas_file *pf, void __user *uarg)
{
	struct pgas_ioc_reg a;
	struct pgas_ep *ep;
	u32 usize;
	int ret;

	ret = copy_in(&a, sizeof(a), sizeof(a), uarg, &usize);
	if (ret)
		return ret;
	/* The process's registrations are its rank's, for all its endpoints. */
	ep = use_own_ep(pf, true);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	/* No pgas lock: accounting and pinning take mmap_lock themselves. */
	ret = pgas_reg(ep, &a);
	if (!ret) {
		ret = copy_out(uarg, &a, sizeof(a), usize);
		if (ret)
			pgas_dereg(ep, a.handle);
	}
	pgas_ep_unuse(ep);
	return ret;
}

static int ioc_dereg(struct pgas_file *pf, void __user *uarg)
{
	struct pgas_ioc_dereg a;
	struct pgas_ep *ep;
	u32 usize;
	int ret;

	ret = copy_in(&a, sizeof(a), sizeof(a), uarg, &usize);
	if (ret)
		return ret;
	if (a.flags)
		return -EINVAL;
	ep = use_own_ep(pf, true);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	/* No pgas lock: revocation unmaps under the mm core's locks. */
	ret = pgas_dereg(ep, a.handle);
	pgas_ep_unuse(ep);
	return ret;
}

static int ioc_wake(struct pgas_file *pf, void __user *uarg)
{
	struct pgas_ioc_wake a;
	struct pgas_ep *ep;
	u32 usize;
	int ret;

	ret = copy_in(&a, sizeof(a), sizeof(a), uarg, &usize);
	if (ret)
		return ret;
	if (a.flags || a.pad)
		return -EINVAL;
	ep = use_own_ep(pf, false);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	ret = pgas_wake_eid(ep, a.vpid);
	pgas_ep_unuse(ep);
	return ret;
}

static int ioc_ep_info(struct pgas_file *pf, void __user *uarg)
{
	struct pgas_ioc_ep_info a;
	struct pgas_ep *ep;
	u32 usize;
	int ret;

	ret = copy_in(&a, sizeof(a), sizeof(a), uarg, &usize);
	if (ret)
		return ret;
	if (a.flags || a.pad)
		return -EINVAL;
	ep = use_own_ep(pf, false);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	ret = pgas_ep_info(ep, &a);
	pgas_ep_unuse(ep);
	return ret ? ret : copy_out(uarg, &a, sizeof(a), usize);
}

static long pgas_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pgas_file *pf = file->private_data;
	void __user *uarg = (void __user *)arg;

	/*
	 * The whole command: direction, type, number and size.  The size in
	 * cmd is the first version's for good; the struct's own size field
	 * says which version the caller has.
	 */
	switch (cmd) {
	case PGAS_IOC_JOB_CREATE:
		return ioc_job_create(pf, uarg);
	case PGAS_IOC_JOB_JOIN:
		return ioc_job_join(pf, uarg);
	case PGAS_IOC_RINGS_CREATE:
		return ioc_rings(pf, uarg);
	case PGAS_IOC_REG:
		return ioc_reg(pf, uarg);
	case PGAS_IOC_DEREG:
		return ioc_dereg(pf, uarg);
	case PGAS_IOC_WAKE:
		return ioc_wake(pf, uarg);
	case PGAS_IOC_EP_INFO:
		return ioc_ep_info(pf, uarg);
	default:
		return -ENOTTY;
	}
}

/* ---- file operations --------------------------------------------------------- */

static int pgas_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;	/* set by misc_open() */
	struct pgas_nic *nic = container_of(misc, struct pgas_nic, misc);
	struct pgas_file *pf;

	pf = kzalloc(sizeof(*pf), GFP_KERNEL_ACCOUNT);
	if (!pf)
		return -ENOMEM;
	kref_get(&nic->kref);
	pf->nic = nic;
	mutex_init(&pf->lock);
	file->private_data = pf;
	/* Mappings go into the NIC's own address_space: see pgas_obj_revoke(). */
	file->f_mapping = nic->inode->i_mapping;
	return 0;
}

static int pgas_release(struct inode *inode, struct file *file)
{
	struct pgas_file *pf = file->private_data;

	if (pf->ep)
		pgas_ep_free(pf->ep);
	if (pf->job)
		pgas_job_put(pf->job);
	pgas_nic_put(pf->nic);
	mutex_destroy(&pf->lock);
	kfree(pf);
	return 0;
}

static int pgas_mmap_file(struct file *file, struct vm_area_struct *vma)
{
	struct pgas_file *pf = file->private_data;
	struct pgas_ep *ep = owned_ep(pf, vma->vm_mm);

	/*
	 * Under mmap_lock, so no pgas_file.lock: the ioctls take mmap_lock
	 * (faults, accounting, pinning) and must never wait for
	 * a lock held here.  The endpoint, published once, lives until the
	 * file is released, which this mmap's file reference holds off.  A
	 * departed one (an extra whose rank left, or on a deleted NIC) maps
	 * nothing: -ENODEV (pgas_mmap()).
	 */
	return IS_ERR(ep) ? PTR_ERR(ep) : pgas_mmap(ep, vma);
}

/*
 * The owner sleeps here (pgas_abi.h, "Doorbell"): readable while its
 * control page's 'sleeping' is 0.  EPOLLERR for a file that has not
 * joined, an endpoint without rings or departed, or a task of another mm.
 */
static __poll_t pgas_poll(struct file *file, poll_table *wait)
{
	struct pgas_file *pf = file->private_data;
	struct pgas_ep *ep = owned_ep(pf, current->mm);

	if (IS_ERR(ep))
		return EPOLLERR;
	poll_wait(file, &ep->wq, wait);
	return pgas_ep_poll(ep);
}

const struct file_operations pgas_fops = {
	.owner = THIS_MODULE,
	.open = pgas_open,
	.release = pgas_release,
	.unlocked_ioctl = pgas_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pgas_mmap_file,
	.poll = pgas_poll,
	.llseek = noop_llseek,
};
