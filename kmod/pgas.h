/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * pgas.h - internals of pgas.ko, the software-loopback PGAS NIC.
 *
 * Objects and lifetimes (each holds a reference on the one to its right):
 *
 *   mapping (VMA) -> obj -> job -> nic
 *   endpoint      -> job
 *   open file     -> nic, and its job (creator) or endpoint (member)
 *
 * A nic is a misc device /dev/pgasN.  A job is a protection domain created
 * by a launcher's file; endpoints join it with its key.  An obj is a thing
 * that can be mapped: an endpoint's ring region (kernel memory, every
 * member writes it), its kernel page (what pgas.ko writes for it: mapped
 * read-only) or a registration (pinned user memory).  Revoking an obj
 * (deregistration, or its owner's death) unmaps it from every mapping
 * (unmap_mapping_range on the NIC's private address_space) before its
 * memory is unpinned or freed, which is then at once: the obj itself, a
 * small stub, lives until its last mapping is gone, and a revoked mapping
 * maps the obj's throwaway page.  A departed endpoint maps nothing: its
 * file's mappings are revoked too (of a live obj, they map the endpoint's
 * own throwaway page).
 *
 * Files, one per object, each with the locks and lifetime rules of its
 * object (docs/pgas-kmod.md, "Files"):
 *
 *   pgas_main.c       module load and unload; pgas_wq
 *   pgas_nic.c        nic: pgas_nics and pgas_nics_lock, the misc device,
 *                     sysfs counters, deletion
 *   pgas_file.c       open file: its role and pgas_file.lock, the ioctls,
 *                     ->open, ->release, ->mmap, ->poll
 *   pgas_job.c        job: creation, lookup, key; job->lock and the
 *                     endpoint table (eps, next_eid); a deleted NIC's
 *                     revocation of its jobs
 *   pgas_ep.c         endpoint: join (ranks and extras), ep->use,
 *                     departure (PGAS_EP_GONE), its objs' release, sleep
 *                     and wake-up, EP_INFO; the per-mm count of extras
 *   pgas_ep_death.c   endpoint: its owner's death (the mmu_notifier, work
 *                     on pgas_wq) and its final free
 *   pgas_obj.c        obj: cookies, the NICs' inodes (address_spaces),
 *                     mappings and faults, obj->vma_lock and revocation,
 *                     the throwaway page, the memlock charge
 *   pgas_ring.c       ring regions (geometry, RINGS_CREATE) and kernel
 *                     pages (peer-gone counts and events)
 *   pgas_reg.c        registrations: pinning, page checks, REG and DEREG
 *   pgas_netlink.c    the generic netlink family: NIC_NEW/DEL, dumps, events
 *
 * Lock order (outer first):
 *
 *   pgas_nics_lock           global list of NICs (load, unload, netlink)
 *   ep->use                  rwsem: ioctls on an endpoint (read) vs its
 *                            departure, which takes and drops it (write)
 *                            with nothing held; may be held around mmap_lock
 *   pgas_file.lock           one open file's role claim and RINGS_CREATE
 *   job->lock                the job's endpoint table (eps, next_eid)
 *   pgas_mm_extras_lock      spinlock: the per-mm counts of extra
 *                            endpoints; taken under job->lock, nothing
 *                            under it
 *
 *   mm->mmap_lock            (the mm core holds it around ->mmap/open/close
 *                            and faults; pinning (GUP) takes it; the
 *                            memlock charge is an atomic, lock-free)
 *   ep->maps                 rwsem: read by ->mmap and ->fault through the
 *                            endpoint's file; write: its departure sets
 *                            unmapped under it, with nothing held, then
 *                            zaps the file's mappings under its mm's
 *                            mmap_lock (read), no pgas lock held
 *   obj->vma_lock            the obj's revoked flag and throwaway page; held
 *                            by ->fault around the pfn lookup and insertion
 *
 * No pgas lock above the blank line is ever held while mmap_lock is taken,
 * and none of them is taken under mmap_lock: ioctls copy their argument in
 * before they lock and out after they unlocked, and pin, account and revoke
 * with no pgas lock held; ->mmap finds the file's endpoint with an acquire
 * load (it is published once, with a release store) instead of a lock.
 * obj->vma_lock is taken alone or under mmap_lock, never the other way,
 * and nothing is taken under it but the page-table lock of an insertion.
 * Revocation takes no mmap_lock: it sets revoked under obj->vma_lock, drops
 * it, then unmap_mapping_range() takes i_mmap_rwsem and page-table locks.
 * (One revocation runs under pgas_file.lock: RINGS_CREATE's error path
 * drops a kernel page it had published.  That is in order: neither
 * obj->vma_lock nor i_mmap_rwsem is ever held when pgas_file.lock is
 * taken.)
 * JOB_JOIN registers the endpoint's mmu_notifier (mmap_lock for writing)
 * with no pgas lock held.  Its ->release runs in exit_mmap inside the
 * notifiers' SRCU read section, where a nested mmput() of a peer's mm
 * would synchronize_srcu() on itself: it only queues the departure on
 * pgas_wq, which runs it like a file release does.
 * A rank's departure departs its extras first, and waits, with no lock
 * held, for one that another task is departing to leave job->eps (a
 * departure takes only job->lock to do so, after the ioctls on that
 * extra, none of which waits for a departure).
 *
 * The xarrays (nic->jobs, ep->regs) and the maple tree nic->objs use their
 * internal locks only, innermost; lookups take a reference with
 * kref_get_unless_zero() under rcu_read_lock() (nic->objs: under its
 * spinlock; an obj is erased from it when revoked, before its last put).
 * job->eps is an xarray too, but every access to it (loads, stores,
 * walks) is under job->lock (but for that wait's load, which compares an
 * entry with a pointer it never follows), which
 * makes its entries' lifetimes simple: an endpoint is in it from its join
 * until its departure, both under job->lock, so whoever holds the lock and
 * finds it there may use it (its objs: ep->rings and ep->kern change under
 * job->lock too).
 */
#ifndef PGAS_KMOD_H
#define PGAS_KMOD_H

#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/miscdevice.h>
#include <linux/mm_types.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/idr.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "../uapi/pgas_abi.h"

#define PGAS_MAX_NICS		16
#define PGAS_MAX_REG_BYTES	BIT_ULL(40)
/*
 * Ring regions (docs/pgas-kmod.md, "Limits"): one endpoint's at most 64 MiB,
 * and a job's at most 4 GiB, checked twice: as nranks times one region
 * (every rank of a job uses the same geometry: a job whose ranks cannot
 * all have it fails at the first) and as the sum of the regions the job
 * has (job->ring_bytes, extras' included).  The bounce area grows with
 * nranks, so a job's rings grow with nranks^2: libpgas's default geometry
 * (256 slots, 1024 notifications, 8 bounce buffers of 8 KiB) fits up to
 * 180 ranks.
 */
#define PGAS_MAX_RING_BYTES	BIT_ULL(26)
#define PGAS_MAX_JOB_RING_BYTES	BIT_ULL(32)
#define PGAS_MAX_REGS		65536	/* registrations of one endpoint */
/*
 * Cookies (in pages) are drawn below this: a 32-bit process reaches page
 * offsets below 2^32 only (mmap2), and 32 random bits are plenty to guess.
 */
#define PGAS_COOKIE_SPACE	BIT_ULL(32)

struct pgas_nic {
	struct kref kref;
	int id;
	char name[16];
	struct miscdevice misc;
	bool registered;
	struct list_head node;		/* in pgas_nics, under pgas_nics_lock */
	struct xarray jobs;		/* job id -> job */
	u32 next_job_id;		/* xa_alloc_cyclic() cursor, in jobs' lock */
	u8 dead;			/* 1: deleted, no job or ep is made (u8: sparse) */
	struct maple_tree objs;		/* cookie range (page offsets) -> obj */
	struct inode *inode;		/* its address_space holds every mapping */
	u64 cookie_space;		/* in pages: cookies are drawn below it */
	atomic_t nr_endpoints;
	atomic_t nr_jobs;
	atomic64_t pinned_pages;
	atomic64_t ring_bytes;
	atomic64_t nr_mmaps;		/* live mappings (VMAs) */
	atomic64_t nr_peer_gone;
};

/*
 * A job's endpoint table, eps, is keyed by eid: ranks' (primary) endpoints
 * at eid = vpid, 0..nranks-1, extras from nranks up in the order they
 * joined (next_eid), never reused, below max_eps.  An entry is a live
 * endpoint, or a closed one's mark, xa_mk_value(its owner's vpid), which
 * stays (for EP_INFO) until the slot is joined again (ranks only).  Under
 * lock, always (pgas.h's lock order).
 */
struct pgas_job {
	struct kref kref;
	struct rcu_head rcu;		/* lookups run under rcu_read_lock() */
	struct pgas_nic *nic;
	u32 id;
	u32 nranks;
	u32 max_eps;			/* eids 0..max_eps-1; nranks: no extras */
	u64 key;
	kuid_t uid;
	struct ida vpids;
	struct mutex lock;		/* protects eps, next_eid */
	struct xarray eps;		/* eid -> ep, or a closed one's mark */
	u32 next_eid;			/* the next extra's, from nranks */
	atomic64_t ring_bytes;		/* its regions' (RINGS_CREATE to their free) */
	atomic64_t nr_mmaps;		/* live mappings (VMAs) of its objects */
	atomic64_t nr_peer_gone;	/* departures told to its endpoints */
};

/* The live endpoint an entry of job->eps is, or NULL (a closed one's mark). */
static inline struct pgas_ep *pgas_live_ep(void *entry)
{
	return xa_is_value(entry) ? NULL : entry;
}

/*
 * An endpoint belongs to the process that joined, not to its file: it
 * departs (once: PGAS_EP_GONE) when that process's mm is released (an
 * mmu_notifier's ->release: exit, SIGKILL, exec) or when the file is
 * released, whichever comes first; only tasks of that mm may use it.
 */
struct pgas_ep {
	struct pgas_job *job;		/* reference held */
	u32 vpid;			/* its rank; an extra's: its owner's */
	u32 eid;			/* its key in job->eps: == vpid for a rank */
	bool extra;			/* PGAS_JOIN_EXTRA: no kernel page, no REG */
	struct mm_struct *mm;		/* mmgrab()ed: the joining process's */
	struct task_struct *owner;	/* the joining task: its exit status */
	struct mmu_notifier mn;		/* on mm (ops NULL until registered) */
	unsigned long flags;		/* PGAS_EP_GONE */
	struct completion departed;	/* pgas_ep_depart() has finished */
	struct rw_semaphore use;	/* read: an ioctl on it; write: departing */
	struct rw_semaphore maps;	/* read: ->mmap, a fault through its file */
	bool unmapped;			/* departed: its file maps nothing; under maps */
	struct page *dummy;		/* what its file's mappings map then */
	atomic_t nr_vmas;		/* mappings through its file */
	wait_queue_head_t wq;		/* the owner poll()s here to sleep */
	struct work_struct depart_work;	/* queued by the mm's ->release */
	struct work_struct free_work;	/* queued by ->free_notifier */
	struct pgas_obj *rings;		/* NULL until PGAS_IOC_RINGS_CREATE */
	struct pgas_obj *kern;		/* its kernel page, with rings; ranks only */
	struct pgas_region_layout layout;	/* of rings */
	u32 notify_entries;
	struct xarray regs;		/* handle -> obj (registrations) */
	atomic_t nr_regs;
	atomic64_t pinned_pages;
};

enum pgas_obj_kind {
	PGAS_OBJ_RINGS,
	PGAS_OBJ_REG,
	PGAS_OBJ_KERN,			/* an endpoint's kernel page: read-only */
};

struct pgas_obj {
	struct kref kref;
	struct rcu_head rcu;
	enum pgas_obj_kind kind;
	struct pgas_job *job;		/* who may map it */
	u64 cookie;			/* page offset */
	unsigned long npages;
	bool writable;
	bool counted;			/* in the NIC's (and endpoint's) counters */
	struct user_struct *user;	/* charged npages of locked_vm, or NULL */
	struct mutex vma_lock;		/* protects revoked, dummy; see pgas_vm_fault() */
	bool revoked;			/* under vma_lock */
	struct page *dummy;		/* what revoked mappings map; under vma_lock */
	/* PGAS_OBJ_RINGS, PGAS_OBJ_KERN */
	void *vaddr;
	/* PGAS_OBJ_REG */
	struct page **pages;
	struct mm_struct *mm;		/* mmgrab()ed: its pinned_vm shows the pins */
};

#define PGAS_EP_GONE		0	/* bit in ep->flags: departure begun */

/*
 * The ring region layout of pgas_abi.h at the kernel's page size (user
 * space has the same computation at sysconf(_SC_PAGESIZE) in
 * libpgas/pgas_layout.h).
 */
static inline void pgas_region_layout(u32 mbox_slots, u32 notify_entries, u32 bounce_bufs,
				      u32 bounce_size, u32 nranks,
				      struct pgas_region_layout *l)
{
	u64 off = PAGE_SIZE;	/* the control page */
	unsigned int c;

	l->ctrl_off = 0;
	for (c = 0; c < PGAS_NCHAN; c++) {
		l->mbox_off[c] = off;
		off = PAGE_ALIGN(off + (u64)mbox_slots * PGAS_SLOT_SIZE);
	}
	l->notify_off = off;
	off = PAGE_ALIGN(off + (u64)notify_entries * sizeof(struct pgas_notify_entry));
	l->bounce_off = off;
	off += (u64)nranks * PGAS_NCHAN * bounce_bufs * (PGAS_CACHELINE + (u64)bounce_size);
	l->size = PAGE_ALIGN(off);
}

/* pgas_main.c: module load and unload */
extern struct workqueue_struct *pgas_wq;

/* pgas_nic.c: NICs */
extern struct list_head pgas_nics;
extern struct mutex pgas_nics_lock;
int pgas_nic_create(void);
void pgas_nic_put(struct pgas_nic *nic);
int pgas_nic_destroy_id(int id);
void pgas_destroy_all(void);

/* pgas_file.c: open files, their ioctls */
extern const struct file_operations pgas_fops;
struct pgas_ep *pgas_file_ep(struct file *file);

/* pgas_job.c: jobs */
struct pgas_job *pgas_job_create(struct pgas_nic *nic, u32 nranks, u32 max_eps);
struct pgas_job *pgas_job_get_by_id(struct pgas_nic *nic, u32 id);
void pgas_job_put(struct pgas_job *job);
bool pgas_key_equal(u64 a, u64 b);
void pgas_nic_revoke_jobs(struct pgas_nic *nic);

/* pgas_ep.c: endpoints */
extern unsigned int pgas_max_eps_per_mm;
struct pgas_ep *pgas_ep_join(struct pgas_job *job, u32 vpid);
struct pgas_ep *pgas_ep_join_extra(struct pgas_job *job, u32 vpid);
int pgas_ep_info(struct pgas_ep *from, struct pgas_ioc_ep_info *arg);
void pgas_ep_release_objs(struct pgas_ep *ep);
void pgas_ep_depart_claimed(struct pgas_ep *ep, bool died);
void pgas_ep_depart(struct pgas_ep *ep);
void pgas_ep_depart_dying(struct pgas_ep *ep);
bool pgas_ep_use(struct pgas_ep *ep);
void pgas_ep_unuse(struct pgas_ep *ep);
void pgas_ep_put_refs(struct pgas_ep *ep);
void pgas_ep_wake(struct pgas_ep *ep);
int pgas_wake_eid(struct pgas_ep *from, u32 eid);
__poll_t pgas_ep_poll(struct pgas_ep *ep);
void pgas_ep_kfree(struct pgas_ep *ep);
void pgas_ep_leave(struct pgas_ep *ep);

/* pgas_ep_death.c: the owner's death, the endpoint's final free */
void pgas_ep_depart_work(struct work_struct *work);
void pgas_ep_free_work(struct work_struct *work);
extern const struct mmu_notifier_ops pgas_mn_ops;
void pgas_ep_free(struct pgas_ep *ep);

/* pgas_obj.c: objs, their mappings and revocation */
int pgas_obj_charge(struct pgas_obj *obj);
void pgas_obj_uncharge(struct pgas_obj *obj);
int pgas_obj_init(void);
void pgas_obj_exit(void);
struct inode *pgas_mapping_inode(void);
struct pgas_obj *pgas_obj_alloc(struct pgas_job *job, enum pgas_obj_kind kind,
				unsigned long npages);
void pgas_obj_put(struct pgas_obj *obj);
void pgas_obj_free_backing(struct pgas_obj *obj);
int pgas_obj_publish(struct pgas_nic *nic, struct pgas_obj *obj);
void pgas_obj_revoke(struct pgas_obj *obj);
void pgas_obj_zap_ep(struct pgas_ep *ep);
int pgas_mmap(struct pgas_ep *ep, struct vm_area_struct *vma);

/* pgas_ring.c: ring regions and kernel pages */
void pgas_kern_page_release(struct pgas_obj *obj);
int pgas_ring_layout(const struct pgas_ioc_rings *g, u32 nranks,
		     struct pgas_region_layout *out);
int pgas_rings_create(struct pgas_ep *ep, struct pgas_ioc_rings *arg);
void pgas_count_peer_gone(struct pgas_ep *to, bool died);
void pgas_mark_revoked(struct pgas_ep *ep);
void pgas_notify_peer_gone(struct pgas_ep *to, u32 eid, u32 died);

/* pgas_reg.c: registrations */
void pgas_reg_release(struct pgas_ep *ep, struct pgas_obj *obj);
int pgas_reg(struct pgas_ep *ep, struct pgas_ioc_reg *arg);
int pgas_dereg(struct pgas_ep *ep, u64 handle);

/* pgas_netlink.c */
int pgas_netlink_init(void);
void pgas_netlink_exit(void);
void pgas_event_ep_dead(struct pgas_ep *ep);
void pgas_event_job_dead(struct pgas_job *job);

#endif /* PGAS_KMOD_H */
