// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_reg.c - registrations: user memory an endpoint pinned
 * (FOLL_LONGTERM) for its peers to map.
 *
 * A registration is charged against RLIMIT_MEMLOCK and shown in the
 * registering mm's pinned_vm; only memory without writeback is pinned.
 * REG and DEREG run with no pgas lock held (pinning takes mmap_lock), and
 * ep->regs, the handle table, uses its xarray's lock only.
 */
#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/magic.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "pgas.h"

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
	pgas_obj_uncharge(obj);
	/* The page array and the mm: not kept for a mapping of the revoked obj. */
	pgas_obj_free_backing(obj);
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
void pgas_reg_release(struct pgas_ep *ep, struct pgas_obj *obj)
{
	pgas_obj_revoke(obj);
	reg_unpin(obj, obj->npages);
	reg_count(ep, obj, -1);
	pgas_obj_put(obj);
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

	/* The huge zero page is neither anonymous nor a file's: refused below. */
	if (is_zero_page(page))
		return false;	/* see reg_gup_flags() */
	if (folio_test_anon(folio) || folio_test_hugetlb(folio))
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

/*
 * The pin's flags for [addr, *end), which it shortens to the VMA at addr.
 * No registration pins the zero page (4 KiB or huge): a write of the
 * process's own would replace it there and peers would read zeros for
 * ever, and before 6.5 every pin of it is a reference on one page shared
 * by the whole machine.  So a read-only one pins a private readable
 * mapping as ib_umem did up to 6.1 (FOLL_WRITE, and FOLL_FORCE where the
 * mapping is read-only: a COW into private pages, which the process then
 * maps too, so what peers read is what it reads, private file mappings
 * included).  Shared mappings have no zero page; hugetlb has none either
 * and refuses FOLL_FORCE writes; without VM_READ GUP refuses (EFAULT), as
 * it does a hole.  A zero page that a racing remap slips in is refused by
 * reg_page_ok().
 */
static unsigned int reg_gup_flags(bool writable, unsigned long addr, unsigned long *end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned int gup = FOLL_LONGTERM;

	if (writable)
		return gup | FOLL_WRITE;
	mmap_read_lock(mm);
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start <= addr) {
		*end = min(*end, vma->vm_end);
		if (is_cow_mapping(vma->vm_flags) && (vma->vm_flags & VM_READ) &&
		    !is_vm_hugetlb_page(vma))
			gup |= vma->vm_flags & VM_WRITE ? FOLL_WRITE : FOLL_WRITE | FOLL_FORCE;
	}
	mmap_read_unlock(mm);
	return gup;
}

int pgas_reg(struct pgas_ep *ep, struct pgas_ioc_reg *arg)
{
	struct pgas_nic *nic = ep->job->nic;
	unsigned long npages, pinned = 0;
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
	obj = pgas_obj_alloc(ep->job, PGAS_OBJ_REG, npages);
	if (!obj)
		return -ENOMEM;
	obj->writable = arg->flags & PGAS_REG_WRITE;
	/* The limit first: nothing is allocated for a request over it. */
	ret = pgas_obj_charge(obj);
	if (ret)
		goto put;
	mmgrab(current->mm);
	obj->mm = current->mm;
	atomic64_add(npages, &obj->mm->pinned_vm);
	/* A handle, reserved (DEREG sees none there) until the obj is stored. */
	ret = xa_alloc(&ep->regs, &handle, NULL, XA_LIMIT(1, PGAS_MAX_REGS), GFP_KERNEL_ACCOUNT);
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
		unsigned long addr = arg->addr + (pinned << PAGE_SHIFT);
		unsigned long end = addr + (min(npages - pinned, 4096UL) << PAGE_SHIFT);
		unsigned int gup = reg_gup_flags(obj->writable, addr, &end);
		int chunk = (end - addr) >> PAGE_SHIFT;

		ret = pin_user_pages_fast(addr, chunk, gup, obj->pages + pinned);
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
	ret = pgas_obj_publish(nic, obj);
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
		pgas_reg_release(ep, obj);
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
	pgas_obj_put(obj);
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
	pgas_reg_release(ep, obj);
	return 0;
}
