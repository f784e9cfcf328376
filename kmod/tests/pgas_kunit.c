// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_kunit.c - KUnit suites for pgas.ko's internals.
 *
 * The job, endpoint, obj, ring and registration code is compiled into
 * this module as it is; what pgas_nic.c and pgas_netlink.c would provide
 * (NIC release, netlink events) is replaced by the test doubles below,
 * which also count calls.  (pgas_ep_death.c is not: the UML kernel has no
 * CONFIG_MMU_NOTIFIER, and the tests register no notifier.)
 */
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/mman.h>

#include "../pgas_job.c"
#include "../pgas_ep.c"
#include "../pgas_obj.c"
#include "../pgas_ring.c"
#include "../pgas_reg.c"

static int nr_ep_dead, nr_job_dead, nr_nic_freed;

static void test_nic_free(struct kref *kref)
{
	struct pgas_nic *nic = container_of(kref, struct pgas_nic, kref);

	xa_destroy(&nic->jobs);
	mtree_destroy(&nic->objs);
	iput(nic->inode);
	kfree(nic);
	nr_nic_freed++;
}

void pgas_nic_put(struct pgas_nic *nic)
{
	kref_put(&nic->kref, test_nic_free);
}

/* pgas_file.c's: the suites fault no mapping in. */
struct pgas_ep *pgas_file_ep(struct file *file)
{
	return NULL;
}

void pgas_event_ep_dead(struct pgas_ep *ep)
{
	nr_ep_dead++;
}

void pgas_event_job_dead(struct pgas_job *job)
{
	nr_job_dead++;
}

static struct pgas_nic *test_nic(void)
{
	struct pgas_nic *nic = kzalloc(sizeof(*nic), GFP_KERNEL);

	if (!nic)
		return NULL;
	/* Revocation unmaps through it (pgas_lifetimes mounts its fs). */
	nic->inode = pgas_mapping_inode();
	if (IS_ERR(nic->inode)) {
		kfree(nic);
		return NULL;
	}
	kref_init(&nic->kref);
	xa_init_flags(&nic->jobs, XA_FLAGS_ALLOC1);
	mt_init(&nic->objs);
	nic->cookie_space = PGAS_COOKIE_SPACE;
	return nic;
}

/* A job of nranks on a fresh test NIC; the caller puts job->nic at the end. */
static struct pgas_job *test_job(struct kunit *test, u32 nranks)
{
	struct pgas_nic *nic = test_nic();
	struct pgas_job *job;

	KUNIT_ASSERT_NOT_NULL(test, nic);
	job = pgas_job_create(nic, nranks, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(job));
	return job;
}

static struct pgas_ep *test_join(struct kunit *test, struct pgas_job *job, u32 vpid)
{
	struct pgas_ep *ep = pgas_ep_join(job, vpid);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ep));
	return ep;
}

static struct pgas_ioc_rings good_geometry(void)
{
	struct pgas_ioc_rings g = {
		.size = sizeof(g), .mbox_slots = 64, .notify_entries = 16,
		.bounce_bufs = 2, .bounce_size = 1024,
	};

	return g;
}

/* ---- ring index math ------------------------------------------------------------ */

static void lap_numbers_wrap_without_aliasing(struct kunit *test)
{
	u64 entries = 16, t;
	u32 prev, lap;

	/* The first lap is 1, so a zeroed (never written) entry never matches. */
	KUNIT_EXPECT_EQ(test, PGAS_NOTIFY_LAP(PGAS_NOTIFY_STATUS((0 >> 4) + 1, 0, 1)), 1U);
	/* Where the 16-bit lap wraps to 0, it still differs from the previous lap. */
	t = 0xffffULL * entries;
	lap = PGAS_NOTIFY_LAP(PGAS_NOTIFY_STATUS((t >> ilog2(entries)) + 1, 0, 1));
	prev = PGAS_NOTIFY_LAP(PGAS_NOTIFY_STATUS(((t - entries) >> ilog2(entries)) + 1, 0, 1));
	KUNIT_EXPECT_EQ(test, lap, 0U);
	KUNIT_EXPECT_NE(test, lap, prev);
}

static void status_words_round_trip(struct kunit *test)
{
	u64 s = PGAS_STATUS(0xbeef, 4321, 0x3fff, 16, PGAS_MSG_LONG, 255);

	KUNIT_EXPECT_EQ(test, PGAS_STATUS_LAP(s), 0xbeefU);
	KUNIT_EXPECT_EQ(test, PGAS_STATUS_SRC(s), 4321U);
	KUNIT_EXPECT_EQ(test, PGAS_STATUS_LEN(s), 0x3fffU);
	KUNIT_EXPECT_EQ(test, PGAS_STATUS_NARGS(s), 16U);
	KUNIT_EXPECT_EQ(test, PGAS_STATUS_TYPE(s), (unsigned int)PGAS_MSG_LONG);
	KUNIT_EXPECT_EQ(test, PGAS_STATUS_HANDLER(s), 255U);
	s = PGAS_BARRIER_WORD(0x3fffffff, 3, 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, PGAS_BARRIER_EPOCH(s), 0x3fffffffU);
	KUNIT_EXPECT_EQ(test, PGAS_BARRIER_FLAGS(s), 3U);
	KUNIT_EXPECT_EQ(test, PGAS_BARRIER_ID(s), 0xdeadbeefU);
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(lap_numbers_wrap_without_aliasing),
	KUNIT_CASE(status_words_round_trip),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "pgas_ring",
	.test_cases = ring_cases,
};

/* ---- keys, geometry and bounds ---------------------------------------------------- */

static void keys_compare_exactly(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, pgas_key_equal(0x0123456789abcdefULL, 0x0123456789abcdefULL));
	KUNIT_EXPECT_FALSE(test, pgas_key_equal(0x0123456789abcdefULL, 0x0123456789abcdeeULL));
	KUNIT_EXPECT_FALSE(test, pgas_key_equal(1ULL << 63, 0));
}

static void geometry_is_validated(struct kunit *test)
{
	struct pgas_region_layout l;
	struct pgas_ioc_rings g = good_geometry();

	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 4, &l), 0);
	g.mbox_slots = 100;
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 4, &l), -EINVAL);
	g.mbox_slots = 8;
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 4, &l), -EINVAL);
	g = good_geometry();
	g.bounce_size = 65;
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 4, &l), -EINVAL);
	g = good_geometry();
	g.bounce_bufs = 0;
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 4, &l), -EINVAL);
	g = good_geometry();
	g.flags = 1;
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 4, &l), -EINVAL);
	/* Valid fields but more than PGAS_MAX_RING_BYTES in all. */
	g = good_geometry();
	g.bounce_bufs = 64;
	g.bounce_size = 1U << 20;
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 16, &l), -E2BIG);
	/* The largest of every field: far over 64 MiB, even at one rank. */
	g.mbox_slots = 32768;
	g.notify_entries = 1U << 20;
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 1, &l), -E2BIG);
	/* A job's rings: nranks regions, at most 4 GiB (libpgas's default: 180 ranks). */
	g = good_geometry();
	g.mbox_slots = 256;
	g.notify_entries = 1024;
	g.bounce_bufs = 8;
	g.bounce_size = 8192;
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 180, &l), 0);
	KUNIT_EXPECT_LE(test, l.size * 180, PGAS_MAX_JOB_RING_BYTES);
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, 181, &l), -E2BIG);
	KUNIT_EXPECT_EQ(test, pgas_ring_layout(&g, PGAS_MAX_ENDPOINTS, &l), -E2BIG);
}

static void layout_is_page_aligned_and_disjoint(struct kunit *test)
{
	struct pgas_region_layout l;
	struct pgas_ioc_rings g = good_geometry();

	KUNIT_ASSERT_EQ(test, pgas_ring_layout(&g, 3, &l), 0);
	KUNIT_EXPECT_EQ(test, l.ctrl_off, 0ULL);
	KUNIT_EXPECT_EQ(test, l.mbox_off[0], (u64)PAGE_SIZE);
	KUNIT_EXPECT_GE(test, l.mbox_off[1], l.mbox_off[0] + 64 * PGAS_SLOT_SIZE);
	KUNIT_EXPECT_GE(test, l.notify_off, l.mbox_off[1] + 64 * PGAS_SLOT_SIZE);
	KUNIT_EXPECT_GE(test, l.bounce_off, l.notify_off + 16 * 16);
	KUNIT_EXPECT_EQ(test, l.mbox_off[1] % PAGE_SIZE, 0ULL);
	KUNIT_EXPECT_EQ(test, l.notify_off % PAGE_SIZE, 0ULL);
	KUNIT_EXPECT_EQ(test, l.bounce_off % PAGE_SIZE, 0ULL);
	KUNIT_EXPECT_EQ(test, l.size,
			PAGE_ALIGN(l.bounce_off + 3ULL * PGAS_NCHAN * 2 * (64 + 1024)));
}

static struct kunit_case bounds_cases[] = {
	KUNIT_CASE(keys_compare_exactly),
	KUNIT_CASE(geometry_is_validated),
	KUNIT_CASE(layout_is_page_aligned_and_disjoint),
	{}
};

static struct kunit_suite bounds_suite = {
	.name = "pgas_bounds",
	.test_cases = bounds_cases,
};

/* ---- jobs, endpoints, rings: lifetimes ------------------------------------------- */

static void job_lives_while_referenced(struct kunit *test)
{
	struct pgas_nic *nic = test_nic();
	struct pgas_job *job, *job2, *found;
	int freed = nr_nic_freed, dead = nr_job_dead;
	u32 id;

	KUNIT_ASSERT_NOT_NULL(test, nic);
	KUNIT_EXPECT_TRUE(test, IS_ERR(pgas_job_create(nic, 0, 0)));
	KUNIT_EXPECT_TRUE(test, IS_ERR(pgas_job_create(nic, PGAS_MAX_ENDPOINTS + 1, 0)));
	job = pgas_job_create(nic, 3, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(job));
	job2 = pgas_job_create(nic, 1, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(job2));
	KUNIT_EXPECT_NE(test, job->id, job2->id);
	KUNIT_EXPECT_NE(test, job->key, job2->key);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_jobs), 2);
	id = job->id;
	found = pgas_job_get_by_id(nic, id);
	KUNIT_EXPECT_PTR_EQ(test, found, job);
	pgas_job_put(found);
	pgas_job_put(job);
	KUNIT_EXPECT_NULL(test, pgas_job_get_by_id(nic, id));
	KUNIT_EXPECT_EQ(test, nr_job_dead, dead + 1);
	pgas_job_put(job2);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_jobs), 0);
	pgas_nic_put(nic);	/* the last jobs held it too */
	KUNIT_EXPECT_EQ(test, nr_nic_freed, freed + 1);
}

static void vpids_are_unique_and_reusable(struct kunit *test)
{
	struct pgas_job *job = test_job(test, 2);
	struct pgas_nic *nic = job->nic;
	struct pgas_ep *a, *b;
	int dead = nr_ep_dead;

	a = test_join(test, job, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_ep_join(job, 1)), -EBUSY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_ep_join(job, 2)), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_endpoints), 1);
	pgas_ep_leave(a);
	KUNIT_EXPECT_EQ(test, nr_ep_dead, dead + 1);
	b = test_join(test, job, 1);
	/* The endpoint keeps the job alive after its creator lets go. */
	pgas_job_put(job);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_jobs), 1);
	pgas_ep_leave(b);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_jobs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_endpoints), 0);
	pgas_nic_put(nic);
}

static void rings_are_created_once_and_freed(struct kunit *test)
{
	struct pgas_ioc_rings g = good_geometry(), g2 = good_geometry();
	struct pgas_job *job = test_job(test, 2);
	struct pgas_nic *nic = job->nic;
	struct pgas_ep *a = test_join(test, job, 0), *b = test_join(test, job, 1);
	struct pgas_ctrl_page *ctrl;

	KUNIT_ASSERT_EQ(test, pgas_rings_create(a, &g), 0);
	KUNIT_EXPECT_EQ(test, pgas_rings_create(a, &g), -EEXIST);
	KUNIT_ASSERT_EQ(test, pgas_rings_create(b, &g2), 0);
	ctrl = a->rings->vaddr;
	KUNIT_EXPECT_EQ(test, ctrl->magic, PGAS_ABI_MAGIC);
	KUNIT_EXPECT_EQ(test, ctrl->rank, 0U);
	KUNIT_EXPECT_EQ(test, ctrl->mbox_slots, 64U);
	/* Cookies: page offsets at random, never overlapping, a guard page after each. */
	KUNIT_EXPECT_EQ(test, g.cookie % PAGE_SIZE, 0ULL);
	KUNIT_EXPECT_TRUE(test, g2.cookie >= g.cookie + (a->rings->npages + 1) * PAGE_SIZE ||
			  g.cookie >= g2.cookie + (b->rings->npages + 1) * PAGE_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, mtree_load(&nic->objs, g.cookie >> PAGE_SHIFT), a->rings);
	KUNIT_EXPECT_PTR_EQ(test, mtree_load(&nic->objs, (g.cookie >> PAGE_SHIFT) +
					      a->rings->npages), a->rings);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->ring_bytes), (s64)(2 * g.region_size));
	pgas_ep_leave(a);
	KUNIT_EXPECT_NULL(test, mtree_load(&nic->objs, g.cookie >> PAGE_SHIFT));
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->ring_bytes), (s64)g.region_size);
	pgas_ep_leave(b);
	pgas_job_put(job);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->ring_bytes), 0LL);
	pgas_nic_put(nic);
}

static void peer_death_is_notified_on_the_kernel_page(struct kunit *test)
{
	struct pgas_ioc_rings g = good_geometry();
	struct pgas_job *job = test_job(test, 2);
	struct pgas_nic *nic = job->nic;
	struct pgas_ep *a = test_join(test, job, 0), *b = test_join(test, job, 1);
	struct pgas_notify_entry *ring;
	struct pgas_kern_page *kp;
	int i;

	KUNIT_ASSERT_EQ(test, pgas_rings_create(a, &g), 0);
	KUNIT_ASSERT_NOT_NULL(test, a->kern);
	KUNIT_EXPECT_FALSE(test, a->kern->writable);
	KUNIT_EXPECT_NE(test, g.kern_cookie, g.cookie);
	kp = a->kern->vaddr;
	KUNIT_EXPECT_EQ(test, kp->magic, PGAS_ABI_MAGIC);
	KUNIT_EXPECT_EQ(test, kp->version, PGAS_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, kp->nranks, 2U);
	KUNIT_EXPECT_EQ(test, kp->mbox_slots, g.mbox_slots);
	ring = a->rings->vaddr + a->layout.notify_off;
	pgas_ep_leave(b);	/* b leaves cleanly (not exiting): a is told, not alarmed */
	KUNIT_EXPECT_EQ(test, kp->peers_gone, 0U);
	KUNIT_EXPECT_EQ(test, kp->peers_left, 1U);
	KUNIT_EXPECT_EQ(test, kp->gone_tail, 1ULL);
	KUNIT_EXPECT_EQ(test, kp->gone[0].vpid, 1U);
	KUNIT_EXPECT_EQ(test, kp->gone[0].died, 0U);
	/* Nothing in the ring peers write: an entry there would be forgeable. */
	KUNIT_EXPECT_EQ(test, ring[0].status, 0ULL);
	/* More events than the page holds: the oldest are overwritten, counts stay. */
	mutex_lock(&job->lock);
	for (i = 0; i < PGAS_GONE_EVENTS + 20; i++) {
		pgas_count_peer_gone(a, true);
		pgas_notify_peer_gone(a, 1, true);
	}
	mutex_unlock(&job->lock);
	KUNIT_EXPECT_EQ(test, kp->peers_gone, (u32)PGAS_GONE_EVENTS + 20);
	KUNIT_EXPECT_EQ(test, kp->gone_tail, (u64)PGAS_GONE_EVENTS + 21);
	KUNIT_EXPECT_EQ(test, kp->gone[0].died, 1U);
	KUNIT_EXPECT_EQ(test, ring[0].status, 0ULL);
	pgas_ep_leave(a);
	pgas_job_put(job);
	pgas_nic_put(nic);
}

static void registration_arguments_are_checked(struct kunit *test)
{
	struct pgas_ioc_reg r = { .size = sizeof(r), .addr = 0x10000, .len = PAGE_SIZE };
	struct pgas_job *job = test_job(test, 1);
	struct pgas_nic *nic = job->nic;
	struct pgas_ep *ep = test_join(test, job, 0);

	r.addr = 0x10001;
	KUNIT_EXPECT_EQ(test, pgas_reg(ep, &r), -EINVAL);
	r.addr = 0x10000;
	r.len = 0;
	KUNIT_EXPECT_EQ(test, pgas_reg(ep, &r), -EINVAL);
	r.len = PAGE_SIZE + 1;
	KUNIT_EXPECT_EQ(test, pgas_reg(ep, &r), -EINVAL);
	r.len = PAGE_SIZE;
	r.flags = 2;
	KUNIT_EXPECT_EQ(test, pgas_reg(ep, &r), -EINVAL);
	r.flags = 0;
	r.addr = ~0ULL & PAGE_MASK;
	KUNIT_EXPECT_EQ(test, pgas_reg(ep, &r), -EINVAL);	/* wraps */
	KUNIT_EXPECT_EQ(test, pgas_dereg(ep, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, pgas_dereg(ep, 1ULL << 33), -EINVAL);
	KUNIT_EXPECT_EQ(test, pgas_dereg(ep, 7), -ENOENT);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->pinned_pages), 0LL);
	pgas_ep_leave(ep);
	pgas_job_put(job);
	pgas_nic_put(nic);
}

/*
 * Extra endpoints: eids in order from nranks, never reused, up to
 * max_eps (-ENOSPC); only for the mm of a live rank (-EPERM); at most
 * max_eps_per_mm live (-EMFILE); rings without a kernel page, counted in
 * the job's ring bytes; EP_INFO; a departure is a "closed" event on the
 * ranks' kernel pages that counts no rank.
 */
static void extras_get_eids_in_order(struct kunit *test)
{
	struct pgas_ioc_rings g = good_geometry(), ge = good_geometry();
	struct pgas_ioc_ep_info info = { .size = sizeof(info) };
	struct pgas_nic *nic = test_nic();
	unsigned int limit = pgas_max_eps_per_mm;
	struct pgas_ep *a, *x, *y;
	struct pgas_kern_page *kp;
	struct pgas_job *job;

	KUNIT_ASSERT_NOT_NULL(test, nic);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_job_create(nic, 2, 1)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_job_create(nic, 2, PGAS_MAX_ENDPOINTS + 1)), -EINVAL);
	job = pgas_job_create(nic, 2, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(job));
	KUNIT_EXPECT_EQ(test, job->max_eps, 4U);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_ep_join_extra(job, 0)), -EPERM);	/* no rank 0 */
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_ep_join_extra(job, 2)), -EINVAL);
	a = test_join(test, job, 0);
	KUNIT_EXPECT_EQ(test, a->eid, 0U);
	KUNIT_EXPECT_FALSE(test, a->extra);
	x = pgas_ep_join_extra(job, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(x));
	KUNIT_EXPECT_EQ(test, x->eid, 2U);
	KUNIT_EXPECT_EQ(test, x->vpid, 0U);
	KUNIT_EXPECT_TRUE(test, x->extra);
	pgas_max_eps_per_mm = 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_ep_join_extra(job, 0)), -EMFILE);
	pgas_max_eps_per_mm = limit;
	y = pgas_ep_join_extra(job, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(y));
	KUNIT_EXPECT_EQ(test, y->eid, 3U);	/* the refused join took no eid */
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_ep_join_extra(job, 0)), -ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_endpoints), 3);

	KUNIT_ASSERT_EQ(test, pgas_rings_create(a, &g), 0);
	KUNIT_ASSERT_EQ(test, pgas_rings_create(x, &ge), 0);
	KUNIT_EXPECT_NULL(test, x->kern);
	KUNIT_EXPECT_EQ(test, ge.kern_cookie, 0ULL);
	KUNIT_EXPECT_EQ(test, ((struct pgas_ctrl_page *)x->rings->vaddr)->rank, 2U);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->ring_bytes),
			(s64)(g.region_size + ge.region_size));

	info.eid = 2;
	KUNIT_EXPECT_EQ(test, pgas_ep_info(a, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, PGAS_EP_STATE_LIVE);
	KUNIT_EXPECT_EQ(test, info.owner, 0U);
	KUNIT_EXPECT_EQ(test, info.cookie, ge.cookie);
	KUNIT_EXPECT_EQ(test, info.region_size, ge.region_size);
	KUNIT_EXPECT_EQ(test, info.layout.notify_off, ge.layout.notify_off);
	info.eid = 1;
	KUNIT_EXPECT_EQ(test, pgas_ep_info(x, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, PGAS_EP_STATE_NONE);
	KUNIT_EXPECT_EQ(test, info.owner, 1U);
	info.eid = 3;
	KUNIT_EXPECT_EQ(test, pgas_ep_info(a, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, PGAS_EP_STATE_LIVE);
	KUNIT_EXPECT_EQ(test, info.cookie, 0ULL);	/* no rings yet */
	info.eid = 4;
	KUNIT_EXPECT_EQ(test, pgas_ep_info(a, &info), -ENOENT);
	KUNIT_EXPECT_EQ(test, pgas_wake_eid(a, 2), 0);
	KUNIT_EXPECT_EQ(test, pgas_wake_eid(a, 3), -ENOENT);	/* no rings */
	KUNIT_EXPECT_EQ(test, pgas_wake_eid(a, 4), -EINVAL);

	kp = a->kern->vaddr;
	pgas_ep_leave(x);
	KUNIT_EXPECT_EQ(test, kp->gone_tail, 1ULL);
	KUNIT_EXPECT_EQ(test, kp->gone[0].vpid, 2U);
	KUNIT_EXPECT_EQ(test, kp->gone[0].died, PGAS_GONE_CLOSED);
	KUNIT_EXPECT_EQ(test, kp->eps_closed, 1U);
	KUNIT_EXPECT_EQ(test, kp->peers_gone, 0U);
	KUNIT_EXPECT_EQ(test, kp->peers_left, 0U);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->ring_bytes), (s64)g.region_size);
	info.eid = 2;
	KUNIT_EXPECT_EQ(test, pgas_ep_info(a, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, PGAS_EP_STATE_CLOSED);
	KUNIT_EXPECT_EQ(test, info.owner, 0U);
	KUNIT_EXPECT_EQ(test, info.cookie, 0ULL);
	KUNIT_EXPECT_EQ(test, pgas_wake_eid(a, 2), -ENOENT);
	/* Its eid is not handed out again. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(pgas_ep_join_extra(job, 0)), -ENOSPC);
	pgas_ep_leave(y);
	KUNIT_EXPECT_EQ(test, kp->eps_closed, 2U);
	pgas_ep_leave(a);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->ring_bytes), 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_endpoints), 0);
	pgas_job_put(job);
	pgas_nic_put(nic);
}

/*
 * A rank's departure departs its extras first (they would otherwise
 * outlive it, and be shown live as the rank's once another process
 * joined it): each gets its closed event before the rank's, and once the
 * rank is gone none is left in the table.  Also: a region that would take
 * the job's rings over 4 GiB is refused before anything is counted.
 */
static void extras_depart_with_their_rank(struct kunit *test)
{
	struct pgas_ioc_rings g = good_geometry(), gx = good_geometry();
	struct pgas_ioc_ep_info info = { .size = sizeof(info) };
	struct pgas_nic *nic = test_nic();
	struct pgas_ep *a, *b, *x, *y;
	const struct mm_struct *test_mm_key;
	struct pgas_kern_page *kp;
	struct pgas_job *job;
	s64 rb;

	KUNIT_ASSERT_NOT_NULL(test, nic);
	job = pgas_job_create(nic, 2, 5);
	KUNIT_ASSERT_FALSE(test, IS_ERR(job));
	a = test_join(test, job, 0);
	b = test_join(test, job, 1);
	KUNIT_ASSERT_EQ(test, pgas_rings_create(b, &g), 0);
	kp = b->kern->vaddr;
	x = pgas_ep_join_extra(job, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(x));
	y = pgas_ep_join_extra(job, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(y));
	KUNIT_ASSERT_EQ(test, pgas_rings_create(x, &gx), 0);
	test_mm_key = x->mm;

	rb = atomic64_read(&job->ring_bytes);
	atomic64_set(&job->ring_bytes, PGAS_MAX_JOB_RING_BYTES - PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pgas_rings_create(y, &gx), -E2BIG);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->ring_bytes),
			(s64)(PGAS_MAX_JOB_RING_BYTES - PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, y->rings);
	atomic64_set(&job->ring_bytes, rb);

	pgas_ep_leave(a);
	KUNIT_EXPECT_TRUE(test, test_bit(PGAS_EP_GONE, &x->flags));
	KUNIT_EXPECT_TRUE(test, test_bit(PGAS_EP_GONE, &y->flags));
	KUNIT_EXPECT_NULL(test, x->rings);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_endpoints), 1);
	/* Departed, but their files are open: still counted against the process. */
	KUNIT_EXPECT_NOT_NULL(test, mm_extras_find(x->mm));
	info.eid = x->eid;
	KUNIT_EXPECT_EQ(test, pgas_ep_info(b, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, PGAS_EP_STATE_CLOSED);
	KUNIT_EXPECT_EQ(test, pgas_wake_eid(b, x->eid), -ENOENT);
	/* The rank's vpid is free again: its new endpoint has no extras. */
	a = test_join(test, job, 0);
	info.eid = y->eid;
	KUNIT_EXPECT_EQ(test, pgas_ep_info(b, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, PGAS_EP_STATE_CLOSED);
	/* Two closed events, then the rank's: {2, 2}, {3, 2}, {0, 0}. */
	KUNIT_EXPECT_EQ(test, kp->gone_tail, 3ULL);
	KUNIT_EXPECT_EQ(test, kp->eps_closed, 2U);
	KUNIT_EXPECT_EQ(test, kp->peers_left, 1U);
	KUNIT_EXPECT_EQ(test, kp->gone[0].vpid, 2U);
	KUNIT_EXPECT_EQ(test, kp->gone[0].died, PGAS_GONE_CLOSED);
	KUNIT_EXPECT_EQ(test, kp->gone[1].vpid, 3U);
	KUNIT_EXPECT_EQ(test, kp->gone[1].died, PGAS_GONE_CLOSED);
	KUNIT_EXPECT_EQ(test, kp->gone[2].vpid, 0U);
	KUNIT_EXPECT_EQ(test, kp->gone[2].died, 0U);
	/* Their files' release finds them departed, and uncounts them. */
	pgas_ep_leave(x);
	KUNIT_EXPECT_NOT_NULL(test, mm_extras_find(test_mm_key));
	pgas_ep_leave(y);
	KUNIT_EXPECT_NULL(test, mm_extras_find(test_mm_key));
	KUNIT_EXPECT_EQ(test, kp->gone_tail, 3ULL);
	pgas_ep_leave(a);
	pgas_ep_leave(b);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->ring_bytes), 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_endpoints), 0);
	pgas_job_put(job);
	pgas_nic_put(nic);
}

struct depart_arg {
	struct pgas_ep *ep;
	struct completion done;
};

static int depart_fn(void *p)
{
	struct depart_arg *d = p;

	pgas_ep_depart(d->ep);
	kthread_complete_and_exit(&d->done, 0);
}

/*
 * A rank departs while another task is departing one of its extras (it
 * claimed it and has not taken it out of the table yet): the rank's
 * departure waits for that, with nothing held, and ends once it is out.
 */
static void extras_departing_elsewhere_are_waited_for(struct kunit *test)
{
	struct pgas_nic *nic = test_nic();
	struct depart_arg d;
	struct task_struct *t;
	struct pgas_ep *a, *x;
	struct pgas_job *job;

	KUNIT_ASSERT_NOT_NULL(test, nic);
	job = pgas_job_create(nic, 1, 2);
	KUNIT_ASSERT_FALSE(test, IS_ERR(job));
	a = test_join(test, job, 0);
	x = pgas_ep_join_extra(job, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(x));
	/* "Another task" claims x, as pgas_ep_depart() does, and pauses. */
	KUNIT_ASSERT_FALSE(test, test_and_set_bit(PGAS_EP_GONE, &x->flags));
	d.ep = a;
	init_completion(&d.done);
	t = kthread_run(depart_fn, &d, "pgas_kunit_depart");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&d.done, msecs_to_jiffies(300)), 0UL);
	mutex_lock(&job->lock);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&job->eps, 0), (void *)a);	/* still waiting */
	mutex_unlock(&job->lock);
	pgas_ep_depart_claimed(x, false);	/* it goes on: x leaves the table */
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&d.done, msecs_to_jiffies(10000)), 0UL);
	mutex_lock(&job->lock);
	KUNIT_EXPECT_TRUE(test, xa_is_value(xa_load(&job->eps, 0)));
	KUNIT_EXPECT_TRUE(test, xa_is_value(xa_load(&job->eps, 1)));
	mutex_unlock(&job->lock);
	KUNIT_EXPECT_EQ(test, atomic_read(&nic->nr_endpoints), 0);
	pgas_ep_leave(x);
	pgas_ep_leave(a);
	pgas_job_put(job);
	pgas_nic_put(nic);
}

static struct kunit_case lifetime_cases[] = {
	KUNIT_CASE(job_lives_while_referenced),
	KUNIT_CASE(vpids_are_unique_and_reusable),
	KUNIT_CASE(rings_are_created_once_and_freed),
	KUNIT_CASE(peer_death_is_notified_on_the_kernel_page),
	KUNIT_CASE(registration_arguments_are_checked),
	KUNIT_CASE(extras_get_eids_in_order),
	KUNIT_CASE(extras_depart_with_their_rank),
	KUNIT_CASE(extras_departing_elsewhere_are_waited_for),
	{}
};

static int lifetime_suite_init(struct kunit_suite *suite)
{
	return pgas_obj_init();
}

static void lifetime_suite_exit(struct kunit_suite *suite)
{
	pgas_obj_exit();
}

static struct kunit_suite lifetime_suite = {
	.name = "pgas_lifetimes",
	.suite_init = lifetime_suite_init,
	.suite_exit = lifetime_suite_exit,
	.test_cases = lifetime_cases,
};

/* ---- accounting: error paths leave every counter as it was ----------------------- */

/*
 * The test cases run in a kernel thread; registrations need user memory.
 * suite_init runs in insmod's context: its mm lends the tests an address
 * space (kthread_use_mm), in which they map and register anonymous memory.
 */
static struct mm_struct *test_mm;

static int accounting_init(struct kunit_suite *suite)
{
	test_mm = current->mm;
	if (test_mm)
		mmget(test_mm);
	return 0;
}

static void accounting_exit(struct kunit_suite *suite)
{
	if (test_mm)
		mmput(test_mm);
	test_mm = NULL;
}

static unsigned long test_user_map(struct kunit *test, unsigned long len)
{
	unsigned long addr;

	if (!test_mm)
		kunit_skip(test, "no user address space to borrow");
	kthread_use_mm(test_mm);
	addr = vm_mmap(NULL, 0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr)) {
		kthread_unuse_mm(test_mm);
		KUNIT_FAIL(test, "vm_mmap: %ld", (long)addr);
		return 0;
	}
	return addr;
}

static void test_user_unmap(unsigned long addr, unsigned long len)
{
	vm_munmap(addr, len);
	kthread_unuse_mm(test_mm);
}

/* No room left in the cookie space: the next publish fails. */
static void exhaust_cookies(struct pgas_nic *nic)
{
	nic->cookie_space = 2;
}

static void failed_rings_are_not_counted(struct kunit *test)
{
	struct pgas_ioc_rings g = good_geometry();
	struct pgas_job *job = test_job(test, 3);
	struct pgas_nic *nic = job->nic;
	struct pgas_ep *a = test_join(test, job, 0);
	u64 cookie;

	/* More than the machine has (or than the cap): refused, nothing counted. */
	g.bounce_bufs = 64;
	g.bounce_size = (1U << 20) - PGAS_CACHELINE;
	KUNIT_EXPECT_NE(test, pgas_rings_create(a, &g), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->ring_bytes), 0LL);
	KUNIT_EXPECT_NULL(test, a->rings);
	/* Unpublishable: freed again, nothing counted. */
	g = good_geometry();
	cookie = nic->cookie_space;
	exhaust_cookies(nic);
	KUNIT_EXPECT_EQ(test, pgas_rings_create(a, &g), -ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->ring_bytes), 0LL);
	KUNIT_EXPECT_NULL(test, a->rings);
	nic->cookie_space = cookie;
	KUNIT_EXPECT_EQ(test, pgas_rings_create(a, &g), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->ring_bytes), (s64)g.region_size);
	pgas_ep_leave(a);
	pgas_job_put(job);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->ring_bytes), 0LL);
	pgas_nic_put(nic);
}

static void failed_registrations_are_rolled_back(struct kunit *test)
{
	const unsigned long len = 8 * PAGE_SIZE;
	struct pgas_job *job = test_job(test, 1);
	struct pgas_nic *nic = job->nic;
	struct pgas_ep *ep = test_join(test, job, 0);
	struct pgas_ioc_reg r = { .size = sizeof(r), .flags = PGAS_REG_WRITE, .len = len };
	unsigned long addr = test_user_map(test, len);
	unsigned long locked = test_mm->locked_vm;
	s64 pinned_vm = atomic64_read(&test_mm->pinned_vm);
	u64 cookie = nic->cookie_space;

	r.addr = addr;
	/* Pinned, then unpublishable: every counter and the handle rolled back. */
	exhaust_cookies(nic);
	KUNIT_EXPECT_EQ(test, pgas_reg(ep, &r), -ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->pinned_pages), 0LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ep->pinned_pages), 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ep->nr_regs), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&ep->regs));
	KUNIT_EXPECT_EQ(test, test_mm->locked_vm, locked);
	KUNIT_EXPECT_EQ(test, atomic64_read(&test_mm->pinned_vm), pinned_vm);
	/* Half mapped: the pinned half is unpinned again. */
	nic->cookie_space = cookie;
	r.len = 2 * len;
	KUNIT_EXPECT_EQ(test, pgas_reg(ep, &r), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->pinned_pages), 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ep->nr_regs), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&ep->regs));
	/* And a good one is counted once, and uncounted by DEREG. */
	r.len = len;
	KUNIT_ASSERT_EQ(test, pgas_reg(ep, &r), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->pinned_pages), 8LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ep->pinned_pages), 8LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ep->nr_regs), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&test_mm->pinned_vm), pinned_vm + 8);
	KUNIT_EXPECT_EQ(test, pgas_dereg(ep, r.handle), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nic->pinned_pages), 0LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ep->pinned_pages), 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ep->nr_regs), 0);
	KUNIT_EXPECT_EQ(test, test_mm->locked_vm, locked);
	KUNIT_EXPECT_EQ(test, atomic64_read(&test_mm->pinned_vm), pinned_vm);
	test_user_unmap(addr, len);
	pgas_ep_leave(ep);
	pgas_job_put(job);
	pgas_nic_put(nic);
}

static struct kunit_case accounting_cases[] = {
	KUNIT_CASE(failed_rings_are_not_counted),
	KUNIT_CASE(failed_registrations_are_rolled_back),
	{}
};

static struct kunit_suite accounting_suite = {
	.name = "pgas_accounting",
	.suite_init = accounting_init,
	.suite_exit = accounting_exit,
	.test_cases = accounting_cases,
};

kunit_test_suites(&ring_suite, &bounds_suite, &lifetime_suite, &accounting_suite);

MODULE_DESCRIPTION("KUnit tests of pgas.ko internals");
MODULE_LICENSE("Dual MIT/GPL");
