// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_obj.c - objs, what endpoints map: ring regions and kernel pages
 * (pgas_ring.c) and registered memory (pgas_reg.c).
 *
 * Ring regions are vmalloc memory laid out by pgas_region_layout().
 * Registrations pin user memory (FOLL_LONGTERM); both are charged against
 * RLIMIT_MEMLOCK.  Both are mapped into the job's processes as PFN
 * mappings (VM_PFNMAP | VM_IO: anonymous pages cannot be inserted as
 * pages, and nobody may pin them again through a peer's mapping), filled
 * page by page by the fault handler.  A PFN mapping holds no page
 * reference, so an obj is revoked (unmap_mapping_range() over its cookie
 * range in the NIC's own address_space) before the memory behind it is
 * unpinned or freed; a later fault maps the obj's throwaway page instead
 * of raising SIGBUS.  obj->vma_lock guards the revoked flag and the
 * throwaway page.  The memory behind a revoked obj is freed at once; the
 * obj itself, a small accounted stub, lives until its last mapping is
 * gone.  A mapping made through an endpoint that has departed since is
 * revoked as a whole (ep->maps, ep->unmapped: pgas_ep.c).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "pgas.h"
#include "pgas_compat.h"

/* ---- the mappings' address_space ------------------------------------------ */

/*
 * Each NIC has an inode of its own on this internal pseudo filesystem, and
 * every file of the NIC maps through its address_space (->open sets
 * f_mapping): cookies are unique per NIC, so unmap_mapping_range() over an
 * obj's cookie range reaches every mapping of it and nothing else, under
 * the mm core's own locks (i_mmap_rwsem and the page-table locks), with no
 * mmap_lock and no list of VMAs of ours.  No .owner: the mount lives from
 * load to unload and must not pin the module.
 */
#define PGAS_FS_MAGIC	0x50474153	/* "PGAS" */

static int pgas_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, PGAS_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type pgas_fs_type = {
	.name = "pgas_mappings",
	.init_fs_context = pgas_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

/* ---- accounting --------------------------------------------------------------- */

/*
 * Pinned pages and ring regions are charged to the user who asked for them
 * (user->locked_vm, against the caller's RLIMIT_MEMLOCK, as io_uring does)
 * unless the caller has CAP_IPC_LOCK, and uncharged when the pages are
 * unpinned or the region is freed: whichever process holds the file then,
 * and however long after the one that registered has gone, the user's
 * total stays under the limit.  (Charging the registering mm, as this
 * module once did, let a user pin without bound: the charge died with the
 * mm while the pins lived on with the file.)
 */
int pgas_obj_charge(struct pgas_obj *obj)
{
	struct user_struct *user = current_user();
	unsigned long limit, new;
	long cur;		/* atomic_long_t's type, for try_cmpxchg */

	if (capable(CAP_IPC_LOCK))
		return 0;
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	cur = atomic_long_read(&user->locked_vm);
	do {
		new = cur + obj->npages;
		if (new < (unsigned long)cur || new > limit)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
	obj->user = get_uid(user);
	return 0;
}

void pgas_obj_uncharge(struct pgas_obj *obj)
{
	if (!obj->user)
		return;
	atomic_long_sub(obj->npages, &obj->user->locked_vm);
	free_uid(obj->user);
	obj->user = NULL;
}

static struct vfsmount *pgas_mnt;

int pgas_obj_init(void)
{
	pgas_mnt = kern_mount(&pgas_fs_type);
	return PTR_ERR_OR_ZERO(pgas_mnt);
}

/* After every NIC, and so every inode, is gone. */
void pgas_obj_exit(void)
{
	kern_unmount(pgas_mnt);
}

/* A NIC's private inode (iput() it when the NIC is freed). */
struct inode *pgas_mapping_inode(void)
{
	return alloc_anon_inode(pgas_mnt->mnt_sb);
}

/* ---- objs -------------------------------------------------------------------- */

struct pgas_obj *pgas_obj_alloc(struct pgas_job *job, enum pgas_obj_kind kind,
				unsigned long npages)
{
	/* Accounted: a revoked obj lives on, as a stub, while it is mapped. */
	struct pgas_obj *obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);

	if (!obj)
		return NULL;
	kref_init(&obj->kref);
	kref_get(&job->kref);
	obj->job = job;
	obj->kind = kind;
	obj->npages = npages;
	mutex_init(&obj->vma_lock);
	return obj;
}

/*
 * Frees the memory behind obj, and what it holds for it: a ring region's
 * or kernel page's vmalloc memory (and a region's count and memlock
 * charge), a registration's page array and mm (its pins are undone
 * before: pgas_reg.c).  Once obj is revoked (no PTE maps that memory any
 * more), or when it is put unpublished; again, it does nothing.  What is
 * left of a revoked obj that is still mapped is the obj itself, a small
 * accounted stub, and its throwaway page: DEREG and departures give the
 * rest back at once, however long a peer keeps a page of it mapped.
 */
void pgas_obj_free_backing(struct pgas_obj *obj)
{
	struct pgas_job *job = obj->job;

	if (obj->kind == PGAS_OBJ_RINGS && obj->counted) {
		atomic64_sub(obj->npages << PAGE_SHIFT, &job->nic->ring_bytes);
		atomic64_sub(obj->npages << PAGE_SHIFT, &job->ring_bytes);
		obj->counted = false;
	}
	pgas_obj_uncharge(obj);
	vfree(obj->vaddr);
	obj->vaddr = NULL;
	kvfree(obj->pages);
	obj->pages = NULL;
	if (obj->mm)
		mmdrop(obj->mm);
	obj->mm = NULL;
}

static void obj_free(struct kref *kref)
{
	struct pgas_obj *obj = container_of(kref, struct pgas_obj, kref);
	struct pgas_job *job = obj->job;

	pgas_obj_free_backing(obj);
	if (obj->dummy)
		__free_page(obj->dummy);
	mutex_destroy(&obj->vma_lock);
	kfree_rcu(obj, rcu);
	pgas_job_put(job);
}

void pgas_obj_put(struct pgas_obj *obj)
{
	kref_put(&obj->kref, obj_free);
}

/*
 * Gives obj a cookie at random in the NIC's cookie space (nic->objs holds
 * its pages and a guard page after them, never another obj's): knowing
 * one cookie tells nothing of the next (pgas_mmap() refuses another job's
 * objs all the same).  -ENOSPC if no free range is found (a few tries).
 */
int pgas_obj_publish(struct pgas_nic *nic, struct pgas_obj *obj)
{
	u64 span = obj->npages + 1, space = READ_ONCE(nic->cookie_space);
	int tries, ret = -EEXIST;

	/* Cookie 0 is never valid: it means "none" in the ABI. */
	if (space <= span + 1)
		return -ENOSPC;
	for (tries = 0; tries < 8 && ret == -EEXIST; tries++) {
		obj->cookie = 1 + get_random_u64() % (space - span - 1);
		ret = mtree_insert_range(&nic->objs, obj->cookie, obj->cookie + obj->npages, obj,
					 GFP_KERNEL_ACCOUNT);
	}
	return ret == -EEXIST ? -ENOSPC : ret;
}

/*
 * Takes obj's range out of nic->objs.  Not mtree_erase(): storing NULL may
 * need a node (neighbouring gaps merge), and where it cannot get one the
 * erase leaves the entry in the tree without a word, and ->mmap would then
 * find an obj that is freed.  So the store must succeed: __GFP_NOFAIL
 * (fault injection spares it), and a retry for what it still refuses.
 */
static void objs_erase(struct pgas_nic *nic, struct pgas_obj *obj)
{
	while (mtree_store_range(&nic->objs, obj->cookie, obj->cookie + obj->npages, NULL,
				 GFP_KERNEL | __GFP_NOFAIL) == -ENOMEM)
		cond_resched();
}

/*
 * A throwaway page, allocated on first use into *slot (zeroed, charged to
 * the faulting task's memory cgroup), freed by the slot's owner; NULL
 * without memory.
 */
static struct page *throwaway_page(struct page **slot)
{
	struct page *page = READ_ONCE(*slot), *old;

	if (page)
		return page;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO | __GFP_ACCOUNT);
	if (!page)
		return NULL;
	old = cmpxchg(slot, NULL, page);
	if (old) {
		__free_page(page);
		page = old;
	}
	return page;
}

/*
 * What a revoked kernel page shows (pgas_abi.h, PGAS_KERN_REVOKED): its
 * last contents, and a count that tells its owner every peer is out of
 * reach.  Nothing writes the page any more (its endpoint left the job
 * first).  The copy's page came with the kernel page (pgas_ring.c), charged
 * to its creator: a departure may run in a kworker, which charges no one.
 * Kept only where the kernel page is mapped.  Under obj->vma_lock.
 */
static void kern_page_revoked(struct pgas_obj *obj, bool mapped)
{
	struct pgas_kern_page *kp;

	if (!obj->dummy)
		return;
	if (!mapped) {
		__free_page(obj->dummy);
		obj->dummy = NULL;
		return;
	}
	kp = page_address(obj->dummy);
	memcpy(kp, obj->vaddr, PAGE_SIZE);
	WRITE_ONCE(kp->peers_gone, PGAS_KERN_REVOKED);
}

/*
 * Takes every page of obj away from every mapping of it and refuses new
 * mappings; on return no PTE maps its memory, which may then be unpinned
 * or freed.  revoked is set under the lock the fault handler inserts
 * under, before the unmap: a fault that raced ahead inserted its pfn
 * before and is unmapped now, a later one maps the throwaway page.  Takes
 * no mmap_lock, so it cannot race munmap's page-table teardown: the unmap
 * walks the address_space's VMA tree under i_mmap_rwsem, which munmap
 * leaves before it frees page tables.
 */
void pgas_obj_revoke(struct pgas_obj *obj)
{
	struct pgas_nic *nic = obj->job->nic;

	mutex_lock(&obj->vma_lock);
	/*
	 * The copy only for a kernel page that is mapped: the caller holds
	 * one reference, each mapping one, and a ->mmap that found obj holds
	 * one from before its check of revoked (under this lock) on.
	 */
	if (obj->kind == PGAS_OBJ_KERN && !obj->revoked)
		kern_page_revoked(obj, kref_read(&obj->kref) > 1);
	obj->revoked = true;
	mutex_unlock(&obj->vma_lock);
	objs_erase(nic, obj);
	unmap_mapping_range(nic->inode->i_mapping, (loff_t)obj->cookie << PAGE_SHIFT,
			    (loff_t)obj->npages << PAGE_SHIFT, 1);
	/* A registration's memory is freed once it is unpinned (pgas_reg.c). */
	if (obj->kind != PGAS_OBJ_REG)
		pgas_obj_free_backing(obj);
}

/* ---- mappings ---------------------------------------------------------------- */

/* A split or moved copy of a mapping: it holds the obj too. */
static void pgas_vm_open(struct vm_area_struct *vma)
{
	struct pgas_obj *obj = vma->vm_private_data;

	kref_get(&obj->kref);
	atomic_inc(&pgas_file_ep(vma->vm_file)->nr_vmas);
	atomic64_inc(&obj->job->nic->nr_mmaps);
	atomic64_inc(&obj->job->nr_mmaps);
}

/* After the mm core unmapped the VMA's pages. */
static void pgas_vm_close(struct vm_area_struct *vma)
{
	struct pgas_obj *obj = vma->vm_private_data;

	atomic64_dec(&obj->job->nic->nr_mmaps);
	atomic64_dec(&obj->job->nr_mmaps);
	atomic_dec(&pgas_file_ep(vma->vm_file)->nr_vmas);
	pgas_obj_put(obj);
}

/* The pfn behind page idx of an obj that is not revoked. */
static unsigned long obj_pfn(struct pgas_obj *obj, unsigned long idx)
{
	if (obj->kind != PGAS_OBJ_REG)
		return vmalloc_to_pfn(obj->vaddr + (idx << PAGE_SHIFT));
	return page_to_pfn(obj->pages[idx]);
}

/* Pages mapped per fault: the one asked for and those after it. */
#define PGAS_FAULT_AROUND	16

/*
 * Every page of a mapping is mapped by this handler, on first touch (a
 * PFN mapping filled in ->mmap could not be revoked: the VMA is not in the
 * address_space's tree yet).  The pfn is looked up, and inserted, under
 * obj->vma_lock (see pgas_obj_revoke()).  A revoked obj's mappings get its
 * throwaway page, zeroed and writable where the mapping is: a peer touching
 * the memory of a rank that just left must not die of it.  The page is the
 * obj's own, so only mappers of this obj (one job) ever see what is
 * written to it.
 */
static vm_fault_t insert_throwaway(struct vm_fault *vmf, struct page **slot)
{
	struct page *page = throwaway_page(slot);

	return page ? vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(page)) : VM_FAULT_OOM;
}

static vm_fault_t pgas_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct pgas_obj *obj = vma->vm_private_data;
	struct pgas_ep *ep = pgas_file_ep(vma->vm_file);
	unsigned long idx = vmf->pgoff - obj->cookie, addr = vmf->address;
	unsigned long n, last;
	vm_fault_t ret;

	if (vmf->pgoff < obj->cookie || idx >= obj->npages)
		return VM_FAULT_SIGBUS;
	down_read(&ep->maps);
	mutex_lock(&obj->vma_lock);
	/*
	 * A mapping through a departed endpoint's file (ep_unmap() in
	 * pgas_ep.c) is revoked as a whole: a revoked obj's throwaway page
	 * as for everyone, but of a live obj only the endpoint's own, which
	 * no one but its process (the owner of the file's mappings) sees.
	 */
	if (obj->revoked || ep->unmapped) {
		ret = insert_throwaway(vmf, obj->revoked ? &obj->dummy : &ep->dummy);
		mutex_unlock(&obj->vma_lock);
		up_read(&ep->maps);
		return ret;
	}
	ret = vmf_insert_pfn(vma, addr, obj_pfn(obj, idx));
	/* Setup touches a mapping page by page: map a few ahead, best effort. */
	last = min3(obj->npages - idx, (vma->vm_end - addr) >> PAGE_SHIFT,
		    (unsigned long)PGAS_FAULT_AROUND);
	for (n = 1; ret == VM_FAULT_NOPAGE && n < last; n++)
		if (vmf_insert_pfn(vma, addr + (n << PAGE_SHIFT), obj_pfn(obj, idx + n)) !=
		    VM_FAULT_NOPAGE)
			break;
	mutex_unlock(&obj->vma_lock);
	up_read(&ep->maps);
	return ret;
}

static const struct vm_operations_struct pgas_vm_ops = {
	.open = pgas_vm_open,
	.close = pgas_vm_close,
	.fault = pgas_vm_fault,
};

/*
 * Zaps what ep's file maps (ep_unmap() in pgas_ep.c; faults from now on
 * map ep's throwaway page).  Every such mapping is in ep->mm: ->mmap
 * refuses other mms, and VM_DONTCOPY keeps them out of a child.  A dying
 * mm (no users) is torn down anyway.  mmput_async(): the last put of an
 * mm must not run exit_mmap here (departures run nested in others').
 * Takes mmap_lock with no pgas lock held (the lock order in pgas.h).
 */
void pgas_obj_zap_ep(struct pgas_ep *ep)
{
	struct mm_struct *mm = ep->mm;	/* mmgrab()ed while ep lives */
	struct vm_area_struct *vma;
	struct vma_iterator vmi;

	if (!mmget_not_zero(mm))
		return;
	mmap_read_lock(mm);
	vma_iter_init(&vmi, mm, 0);
	for_each_vma(vmi, vma)
		if (vma->vm_ops == &pgas_vm_ops && pgas_file_ep(vma->vm_file) == ep)
			zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
	mmap_read_unlock(mm);
	mmput_async(mm);
}

int pgas_mmap(struct pgas_ep *ep, struct vm_area_struct *vma)
{
	struct pgas_nic *nic = ep->job->nic;
	struct pgas_obj *obj;
	int ret;

	/* A departed endpoint maps nothing (checked again below). */
	if (test_bit(PGAS_EP_GONE, &ep->flags))
		return -ENODEV;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/* An obj's first page only; it is erased from objs before it is freed. */
	mtree_lock(&nic->objs);
	obj = mtree_load(&nic->objs, vma->vm_pgoff);
	if (obj && (obj->cookie != vma->vm_pgoff || !kref_get_unless_zero(&obj->kref)))
		obj = NULL;
	mtree_unlock(&nic->objs);
	if (!obj)
		return -EINVAL;
	ret = -EACCES;
	if (obj->job != ep->job)
		goto put;
	if ((vma->vm_flags & VM_WRITE) && !obj->writable)
		goto put;
	ret = -EINVAL;
	if (vma_pages(vma) > obj->npages)
		goto put;
	/*
	 * Refused once revoked; a revocation after this check unmaps what
	 * the faults map, or they map the throwaway page.
	 */
	mutex_lock(&obj->vma_lock);
	ret = obj->revoked ? -ENXIO : 0;
	mutex_unlock(&obj->vma_lock);
	if (ret)
		goto put;
	/*
	 * Counted under ep->maps: a departure after this sees the mapping
	 * (and zaps what its faults map), one before refuses it.
	 */
	down_read(&ep->maps);
	ret = ep->unmapped ? -ENODEV : 0;
	if (!ret)
		atomic_inc(&ep->nr_vmas);
	up_read(&ep->maps);
	if (ret)
		goto put;
	if (!obj->writable)
		pgas_vm_flags_clear(vma, VM_MAYWRITE);
	pgas_vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = obj;	/* the reference is the mapping's now */
	vma->vm_ops = &pgas_vm_ops;
	atomic64_inc(&nic->nr_mmaps);
	atomic64_inc(&obj->job->nr_mmaps);
	return 0;
put:
	pgas_obj_put(obj);
	return ret;
}
