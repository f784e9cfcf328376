// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_mem.c - what endpoints map: ring regions and registered memory.
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
 * of raising SIGBUS.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/log2.h>
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
static int obj_charge(struct pgas_obj *obj)
{
	struct user_struct *user = current_user();
	unsigned long limit, cur, new;

	if (capable(CAP_IPC_LOCK))
		return 0;
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	cur = atomic_long_read(&user->locked_vm);
	do {
		new = cur + obj->npages;
		if (new < cur || new > limit)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
	obj->user = get_uid(user);
	return 0;
}

static void obj_uncharge(struct pgas_obj *obj)
{
	if (!obj->user)
		return;
	atomic_long_sub(obj->npages, &obj->user->locked_vm);
	free_uid(obj->user);
	obj->user = NULL;
}

static struct vfsmount *pgas_mnt;

int pgas_mem_init(void)
{
	pgas_mnt = kern_mount(&pgas_fs_type);
	return PTR_ERR_OR_ZERO(pgas_mnt);
}

/* After every NIC, and so every inode, is gone. */
void pgas_mem_exit(void)
{
	kern_unmount(pgas_mnt);
}

/* A NIC's private inode (iput() it when the NIC is freed). */
struct inode *pgas_mapping_inode(void)
{
	return alloc_anon_inode(pgas_mnt->mnt_sb);
}

/* ---- objs -------------------------------------------------------------------- */

static struct pgas_obj *obj_alloc(struct pgas_job *job, enum pgas_obj_kind kind,
				  unsigned long npages)
{
	struct pgas_obj *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

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

static void obj_free(struct kref *kref)
{
	struct pgas_obj *obj = container_of(kref, struct pgas_obj, kref);
	struct pgas_job *job = obj->job;

	if (obj->kind == PGAS_OBJ_RINGS) {
		vfree(obj->vaddr);
		if (obj->counted)
			atomic64_sub(obj->npages << PAGE_SHIFT, &job->nic->ring_bytes);
		obj_uncharge(obj);
	}
	if (obj->kind == PGAS_OBJ_KERN)
		vfree(obj->vaddr);
	kvfree(obj->pages);
	if (obj->dummy)
		__free_page(obj->dummy);
	if (obj->mm)
		mmdrop(obj->mm);
	mutex_destroy(&obj->vma_lock);
	kfree_rcu(obj, rcu);
	pgas_job_put(job);
}

static void obj_put(struct pgas_obj *obj)
{
	kref_put(&obj->kref, obj_free);
}

/* Gives obj a cookie no other obj of the NIC has had or will have. */
static int obj_publish(struct pgas_nic *nic, struct pgas_obj *obj)
{
	/* A guard page between objects; offsets must fit in a loff_t. */
	u64 end = atomic64_add_return(obj->npages + 1, &nic->next_cookie);

	if (end >= (1ULL << (63 - PAGE_SHIFT)))
		return -ENOSPC;
	obj->cookie = end - obj->npages - 1;
	return xa_insert(&nic->objs, obj->cookie, obj, GFP_KERNEL);
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
static void obj_revoke(struct pgas_obj *obj)
{
	struct pgas_nic *nic = obj->job->nic;

	mutex_lock(&obj->vma_lock);
	obj->revoked = true;
	mutex_unlock(&obj->vma_lock);
	xa_erase(&nic->objs, obj->cookie);
	unmap_mapping_range(nic->inode->i_mapping, (loff_t)obj->cookie << PAGE_SHIFT,
			    (loff_t)obj->npages << PAGE_SHIFT, 1);
}

/* ---- mappings ---------------------------------------------------------------- */

/* A split or moved copy of a mapping: it holds the obj too. */
static void pgas_vm_open(struct vm_area_struct *vma)
{
	struct pgas_obj *obj = vma->vm_private_data;

	kref_get(&obj->kref);
	atomic64_inc(&obj->job->nic->nr_mmaps);
}

/* After the mm core unmapped the VMA's pages. */
static void pgas_vm_close(struct vm_area_struct *vma)
{
	struct pgas_obj *obj = vma->vm_private_data;

	atomic64_dec(&obj->job->nic->nr_mmaps);
	obj_put(obj);
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
 * obj->vma_lock (see obj_revoke()).  A revoked obj's mappings get its
 * throwaway page, zeroed and writable where the mapping is: a peer touching
 * the memory of a rank that just left must not die of it.  The page is the
 * obj's own, so only mappers of this obj (one job) ever see what is
 * written to it.
 */
static vm_fault_t pgas_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct pgas_obj *obj = vma->vm_private_data;
	unsigned long idx = vmf->pgoff - obj->cookie, addr = vmf->address;
	unsigned long n, last;
	vm_fault_t ret;

	if (vmf->pgoff < obj->cookie || idx >= obj->npages)
		return VM_FAULT_SIGBUS;
	mutex_lock(&obj->vma_lock);
	if (obj->revoked) {
		if (!obj->dummy)
			obj->dummy = alloc_page(GFP_KERNEL | __GFP_ZERO | __GFP_ACCOUNT);
		ret = obj->dummy ? vmf_insert_pfn(vma, addr, page_to_pfn(obj->dummy)) :
				   VM_FAULT_OOM;
		mutex_unlock(&obj->vma_lock);
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
	return ret;
}

static const struct vm_operations_struct pgas_vm_ops = {
	.open = pgas_vm_open,
	.close = pgas_vm_close,
	.fault = pgas_vm_fault,
};

int pgas_mmap(struct pgas_ep *ep, struct vm_area_struct *vma)
{
	struct pgas_nic *nic = ep->job->nic;
	struct pgas_obj *obj;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	rcu_read_lock();
	obj = xa_load(&nic->objs, vma->vm_pgoff);
	if (obj && !kref_get_unless_zero(&obj->kref))
		obj = NULL;
	rcu_read_unlock();
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
	if (!obj->writable)
		pgas_vm_flags_clear(vma, VM_MAYWRITE);
	pgas_vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = obj;	/* the reference is the mapping's now */
	vma->vm_ops = &pgas_vm_ops;
	atomic64_inc(&nic->nr_mmaps);
	return 0;
put:
	obj_put(obj);
	return ret;
}

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
	obj = obj_alloc(ep->job, PGAS_OBJ_KERN, 1);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->vaddr = __vmalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!obj->vaddr) {
		obj_put(obj);
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
	ret = obj_publish(ep->job->nic, obj);
	if (ret) {
		obj_put(obj);
		return ERR_PTR(ret);
	}
	return obj;
}

static void kern_page_release(struct pgas_obj *obj)
{
	obj_revoke(obj);
	obj_put(obj);
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

int pgas_rings_create(struct pgas_ep *ep, struct pgas_ioc_rings *arg)
{
	struct pgas_nic *nic = ep->job->nic;
	struct pgas_region_layout layout;
	struct pgas_ctrl_page *ctrl;
	struct pgas_obj *obj, *kern;
	int ret;

	ret = pgas_ring_layout(arg, ep->job->nranks, &layout);
	if (ret)
		return ret;
	if (ep->rings)
		return -EEXIST;
	obj = obj_alloc(ep->job, PGAS_OBJ_RINGS, layout.size >> PAGE_SHIFT);
	if (!obj)
		return -ENOMEM;
	obj->writable = true;
	ret = obj_charge(obj);
	if (ret) {
		obj_put(obj);
		return ret;
	}
	/*
	 * Charged to the caller's memory cgroup, and allowed to fail rather
	 * than OOM-kill.  Not vmalloc_user(): that cannot be accounted on 6.1
	 * (__vmalloc_node_range() is not exported); pgas_vm_fault() maps it by
	 * pfn, so it needs no VM_USERMAP.  Zeroed: it is mapped to users.
	 */
	obj->vaddr = __vmalloc(layout.size, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN |
			       __GFP_RETRY_MAYFAIL);
	if (!obj->vaddr) {
		obj_put(obj);
		return -ENOMEM;
	}
	ctrl = obj->vaddr;
	ctrl->magic = PGAS_ABI_MAGIC;
	ctrl->version = PGAS_ABI_VERSION;
	ctrl->rank = ep->vpid;
	ctrl->mbox_slots = arg->mbox_slots;
	ctrl->notify_entries = arg->notify_entries;
	ctrl->bounce_bufs = arg->bounce_bufs;
	ctrl->bounce_size = arg->bounce_size;
	kern = kern_page_create(ep, arg);
	if (IS_ERR(kern)) {
		obj_put(obj);
		return PTR_ERR(kern);
	}
	ret = obj_publish(nic, obj);
	if (ret) {
		kern_page_release(kern);
		obj_put(obj);
		return ret;
	}
	/* Counted once nothing can fail; obj_free() uncounts only then. */
	atomic64_add(layout.size, &nic->ring_bytes);
	obj->counted = true;
	ep->layout = layout;
	ep->notify_entries = arg->notify_entries;
	/* Published last: peer-gone notifications read ep->kern under job->lock. */
	mutex_lock(&ep->job->lock);
	ep->rings = obj;
	ep->kern = kern;
	mutex_unlock(&ep->job->lock);
	arg->region_size = layout.size;
	arg->cookie = obj->cookie << PAGE_SHIFT;
	arg->kern_cookie = kern->cookie << PAGE_SHIFT;
	return 0;
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
	if (died)
		WRITE_ONCE(kp->peers_gone, kp->peers_gone + 1);
	else
		WRITE_ONCE(kp->peers_left, kp->peers_left + 1);
}

void pgas_notify_peer_gone(struct pgas_ep *to, u32 vpid, bool died)
{
	struct pgas_kern_page *kp;
	struct pgas_gone_event *e;
	u64 t;

	atomic64_inc(&to->job->nic->nr_peer_gone);
	if (!to->kern)
		return;
	kp = to->kern->vaddr;
	t = kp->gone_tail;
	e = &kp->gone[t % PGAS_GONE_EVENTS];
	WRITE_ONCE(e->vpid, vpid);
	WRITE_ONCE(e->died, died);
	/* Release: the event before the tail that the owner acquires. */
	smp_store_release(&kp->gone_tail, t + 1);
}

/* ---- registrations ---------------------------------------------------------- */

/*
 * A registration's life: its handle is reserved in ep->regs, the range is
 * accounted and pinned, the obj is published (mappable by cookie), and
 * only then counted and stored under its handle.  Every step before the
 * counting can fail and is undone in reverse; nothing after it can.
 */
static void reg_unpin(struct pgas_obj *obj, unsigned long pinned)
{
	if (pinned)
		unpin_user_pages_dirty_lock(obj->pages, pinned, obj->writable && obj->counted);
	/* The mm_struct lives (mmgrab) even when its process has gone. */
	atomic64_sub(obj->npages, &obj->mm->pinned_vm);
	obj_uncharge(obj);
}

/* Counted in the endpoint's and the NIC's counters: the last step of REG. */
static void reg_count(struct pgas_ep *ep, struct pgas_obj *obj, int sign)
{
	atomic64_add(sign * (s64)obj->npages, &ep->job->nic->pinned_pages);
	atomic64_add(sign * (s64)obj->npages, &ep->pinned_pages);
	atomic_add(sign, &ep->nr_regs);
	obj->counted = sign > 0;
}

/* Takes a counted registration out of service: revoke, uncount, unpin. */
static void reg_release(struct pgas_ep *ep, struct pgas_obj *obj)
{
	obj_revoke(obj);
	reg_unpin(obj, obj->npages);
	reg_count(ep, obj, -1);
	obj_put(obj);
}

/*
 * Long-term pins are safe only on memory that has no writeback: anonymous
 * pages, shmem (memfd, tmpfs, MAP_SHARED | MAP_ANONYMOUS, SysV shm) and
 * hugetlb.  A page-cache page of any other file would be written by peers
 * behind the filesystem's back (no dirty tracking; truncation leaves the
 * pin on an orphan).  The pinned pages themselves are checked, so no
 * remapping between a check and the pin can slip a file page in.
 */
static bool reg_page_ok(struct page *page)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping;
	bool ok;

	if (folio_test_anon(folio) || folio_test_hugetlb(folio) || is_zero_page(page))
		return true;
	/* Inodes are freed after an RCU grace period; a truncated page has none. */
	rcu_read_lock();
	mapping = READ_ONCE(folio->mapping);
	ok = mapping && mapping->host && mapping->host->i_sb->s_magic == TMPFS_MAGIC;
	rcu_read_unlock();
	return ok;
}

static bool reg_file_ok(struct file *file)
{
	return file_inode(file)->i_sb->s_magic == TMPFS_MAGIC;
}

/*
 * The same rule on the VMAs, before anything is pinned: a shared mapping
 * of a file other than shmem or hugetlbfs is refused here, with the same
 * errno on every kernel (since 6.5 GUP refuses a writable one that needs
 * writeback itself, with EFAULT).  Private file mappings are left to the
 * page check: their written pages are anonymous copies.  The page check
 * stays the authority; this one takes mmap_lock only to read the VMAs.
 */
static int reg_check_vmas(unsigned long start, unsigned long end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int ret = 0;

	mmap_read_lock(mm);
	while (start < end) {
		vma = find_vma(mm, start);
		if (!vma || vma->vm_start >= end)
			break;		/* a hole: GUP says EFAULT */
		if ((vma->vm_flags & VM_SHARED) && vma->vm_file && !is_vm_hugetlb_page(vma) &&
		    !(vma->vm_flags & (VM_IO | VM_PFNMAP)) && !reg_file_ok(vma->vm_file)) {
			ret = -EOPNOTSUPP;
			break;
		}
		start = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return ret;
}

int pgas_reg(struct pgas_ep *ep, struct pgas_ioc_reg *arg)
{
	struct pgas_nic *nic = ep->job->nic;
	unsigned long npages, pinned = 0;
	unsigned int gup = FOLL_LONGTERM;
	struct pgas_obj *obj;
	void *old;
	u32 handle;
	int ret;

	if (arg->flags & ~PGAS_REG_WRITE)
		return -EINVAL;
	if (!arg->len || !PAGE_ALIGNED(arg->addr) || !PAGE_ALIGNED(arg->len) ||
	    arg->len > PGAS_MAX_REG_BYTES || arg->addr + arg->len < arg->addr)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(arg->addr), arg->len))
		return -EFAULT;
	npages = arg->len >> PAGE_SHIFT;
	/* More than the machine has can never be pinned: no allocation for it. */
	if (npages > totalram_pages())
		return -ENOMEM;
	ret = reg_check_vmas(arg->addr, arg->addr + arg->len);
	if (ret)
		return ret;
	obj = obj_alloc(ep->job, PGAS_OBJ_REG, npages);
	if (!obj)
		return -ENOMEM;
	obj->writable = arg->flags & PGAS_REG_WRITE;
	if (obj->writable)
		gup |= FOLL_WRITE;
	/* The limit first: nothing is allocated for a request over it. */
	ret = obj_charge(obj);
	if (ret)
		goto put;
	mmgrab(current->mm);
	obj->mm = current->mm;
	atomic64_add(npages, &obj->mm->pinned_vm);
	/* A handle, reserved (DEREG sees none there) until the obj is stored. */
	ret = xa_alloc(&ep->regs, &handle, NULL, XA_LIMIT(1, PGAS_MAX_REGS), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;	/* every handle taken */
		goto unaccount;
	}
	/* Up to 2 GiB for 1 TiB: may fail, quietly, and is charged to the caller. */
	obj->pages = kvcalloc(npages, sizeof(*obj->pages),
			      GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!obj->pages) {
		ret = -ENOMEM;
		goto unreserve;
	}
	while (pinned < npages) {
		int chunk = min_t(unsigned long, npages - pinned, 4096);

		ret = pin_user_pages_fast(arg->addr + (pinned << PAGE_SHIFT), chunk, gup,
					  obj->pages + pinned);
		if (ret <= 0) {
			ret = ret ? ret : -EFAULT;
			goto unpin;
		}
		chunk = ret;
		for (pinned += chunk; chunk; chunk--) {
			if (!reg_page_ok(obj->pages[pinned - chunk])) {
				ret = -EOPNOTSUPP;
				goto unpin;
			}
		}
	}
	ret = obj_publish(nic, obj);
	if (ret)
		goto unpin;
	/* Nothing below fails: count, then let DEREG find it. */
	reg_count(ep, obj, 1);
	arg->handle = handle;
	arg->cookie = obj->cookie << PAGE_SHIFT;
	/* Into the reserved entry: needs no memory.  Checked all the same. */
	old = xa_store(&ep->regs, handle, obj, GFP_KERNEL);
	if (xa_is_err(old)) {
		xa_release(&ep->regs, handle);
		reg_release(ep, obj);
		return xa_err(old);
	}
	return 0;

unpin:
	reg_unpin(obj, pinned);
	xa_release(&ep->regs, handle);
	goto put;
unreserve:
	xa_release(&ep->regs, handle);
unaccount:
	reg_unpin(obj, 0);
put:
	obj_put(obj);
	return ret;
}

int pgas_dereg(struct pgas_ep *ep, u64 handle)
{
	struct pgas_obj *obj;

	if (!handle || handle > U32_MAX)
		return -EINVAL;
	/* A handle a REG in flight has reserved reads as NULL: left alone. */
	xa_lock(&ep->regs);
	obj = xa_load(&ep->regs, handle);
	if (obj)
		__xa_erase(&ep->regs, handle);
	xa_unlock(&ep->regs);
	if (!obj)
		return -ENOENT;
	reg_release(ep, obj);
	return 0;
}

void pgas_ep_release_objs(struct pgas_ep *ep)
{
	struct pgas_obj *obj;
	unsigned long handle;

	xa_for_each(&ep->regs, handle, obj) {
		xa_erase(&ep->regs, handle);
		reg_release(ep, obj);
	}
	if (ep->rings) {
		obj_revoke(ep->rings);
		obj_put(ep->rings);
		ep->rings = NULL;
	}
	if (ep->kern) {
		kern_page_release(ep->kern);
		ep->kern = NULL;
	}
}
