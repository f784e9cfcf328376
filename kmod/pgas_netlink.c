// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pgas_netlink.c - the generic netlink control plane (family "pgas").
 *
 * NIC_NEW / NIC_DEL create and destroy loopback NICs (CAP_NET_ADMIN);
 * NIC_GET, JOB_GET and EP_GET dump NICs, jobs and endpoints with their
 * counters; the "events" group reports endpoint and job deaths.  Dumps walk
 * pgas_nics under pgas_nics_lock and take job->lock for a job's endpoints
 * (the order of pgas.h); a dump that fills its message resumes from the
 * cursor kept in cb->args[].  JOB_GET and EP_GET show a user only the jobs
 * it created unless it is privileged; the events group is for CAP_SYS_ADMIN;
 * every command is validated strictly (no resv_start_op opt-out).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <net/genetlink.h>

#include "pgas.h"

static struct genl_family pgas_genl_family;

enum { PGAS_MCGRP_EVENTS_IDX };

static const struct genl_multicast_group pgas_mcgrps[] = {
	/* Events name every user's jobs: privileged listeners only. */
	[PGAS_MCGRP_EVENTS_IDX] = { .name = PGAS_GENL_MCGRP_EVENTS,
#ifdef GENL_MCAST_CAP_SYS_ADMIN
				    .flags = GENL_MCAST_CAP_SYS_ADMIN,
#endif
	},
};

static const struct nla_policy pgas_policy[PGAS_ATTR_MAX + 1] = {
	[PGAS_ATTR_NIC_ID] = { .type = NLA_U32 },
};

static int nic_new(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int id;

	id = pgas_nic_create();
	if (id < 0)
		return id;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &pgas_genl_family, 0, PGAS_CMD_NIC_NEW);
	if (!hdr || nla_put_u32(msg, PGAS_ATTR_NIC_ID, id)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int nic_del(struct sk_buff *skb, struct genl_info *info)
{
	if (!info->attrs[PGAS_ATTR_NIC_ID])
		return -EINVAL;
	return pgas_nic_destroy_id(nla_get_u32(info->attrs[PGAS_ATTR_NIC_ID]));
}

static void *put_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &pgas_genl_family, NLM_F_MULTI, cmd);
}

static int fill_nic(struct sk_buff *skb, struct netlink_callback *cb, struct pgas_nic *nic)
{
	void *hdr = put_hdr(skb, cb, PGAS_CMD_NIC_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, PGAS_ATTR_NIC_ID, nic->id) ||
	    nla_put_string(skb, PGAS_ATTR_NIC_NAME, nic->name) ||
	    nla_put_u32(skb, PGAS_ATTR_ENDPOINTS, atomic_read(&nic->nr_endpoints)) ||
	    nla_put_u32(skb, PGAS_ATTR_JOBS, atomic_read(&nic->nr_jobs)) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_PINNED_PAGES, atomic64_read(&nic->pinned_pages),
			      PGAS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_RING_BYTES, atomic64_read(&nic->ring_bytes),
			      PGAS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_MMAPS, atomic64_read(&nic->nr_mmaps),
			      PGAS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_PEER_GONE, atomic64_read(&nic->nr_peer_gone),
			      PGAS_ATTR_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* A job's counters: its live endpoints' registrations and pins summed, its own. */
static int fill_job(struct sk_buff *skb, struct netlink_callback *cb, struct pgas_job *job)
{
	void *hdr = put_hdr(skb, cb, PGAS_CMD_JOB_GET);
	unsigned long eid;
	u32 joined = 0, regs = 0;
	u64 pinned = 0;
	struct pgas_ep *ep;
	void *entry;

	if (!hdr)
		return -EMSGSIZE;
	mutex_lock(&job->lock);
	xa_for_each(&job->eps, eid, entry) {	/* live ones: ranks and extras */
		ep = pgas_live_ep(entry);
		if (!ep)
			continue;
		joined++;
		regs += atomic_read(&ep->nr_regs);
		pinned += atomic64_read(&ep->pinned_pages);
	}
	mutex_unlock(&job->lock);
	if (nla_put_u32(skb, PGAS_ATTR_NIC_ID, job->nic->id) ||
	    nla_put_u32(skb, PGAS_ATTR_JOB_ID, job->id) ||
	    nla_put_u32(skb, PGAS_ATTR_NRANKS, job->nranks) ||
	    nla_put_u32(skb, PGAS_ATTR_UID, from_kuid_munged(current_user_ns(), job->uid)) ||
	    nla_put_u32(skb, PGAS_ATTR_ENDPOINTS, joined) ||
	    nla_put_u32(skb, PGAS_ATTR_REGS, regs) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_PINNED_PAGES, pinned, PGAS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_RING_BYTES, atomic64_read(&job->ring_bytes),
			      PGAS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_MMAPS, atomic64_read(&job->nr_mmaps),
			      PGAS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_PEER_GONE, atomic64_read(&job->nr_peer_gone),
			      PGAS_ATTR_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * Called under job->lock.  VPID is the endpoint's number, as EID: a
 * rank's, or an extra's eid; OWNER the rank of its process.
 */
static int fill_ep(struct sk_buff *skb, struct netlink_callback *cb, struct pgas_ep *ep)
{
	void *hdr = put_hdr(skb, cb, PGAS_CMD_EP_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, PGAS_ATTR_NIC_ID, ep->job->nic->id) ||
	    nla_put_u32(skb, PGAS_ATTR_JOB_ID, ep->job->id) ||
	    nla_put_u32(skb, PGAS_ATTR_VPID, ep->eid) ||
	    nla_put_u32(skb, PGAS_ATTR_EID, ep->eid) ||
	    nla_put_u32(skb, PGAS_ATTR_OWNER, ep->vpid) ||
	    nla_put_u32(skb, PGAS_ATTR_REGS, atomic_read(&ep->nr_regs)) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_PINNED_PAGES, atomic64_read(&ep->pinned_pages),
			      PGAS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, PGAS_ATTR_RING_BYTES,
			      ep->rings ? ep->rings->npages << PAGE_SHIFT : 0, PGAS_ATTR_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* The job with the lowest id >= *id, referenced; NULL when there is none. */
static struct pgas_job *next_job(struct pgas_nic *nic, unsigned long *id)
{
	struct pgas_job *job;

	rcu_read_lock();	/* jobs are freed after a grace period */
	for (;;) {
		job = xa_find(&nic->jobs, id, ULONG_MAX, XA_PRESENT);
		if (!job || kref_get_unless_zero(&job->kref))
			break;
		(*id)++;
	}
	rcu_read_unlock();
	return job;
}

/*
 * Whether the dump's requester may see job: its creator's uid is the
 * requester's, or the requester has CAP_SYS_ADMIN (over the socket's
 * namespace, as the socket's opener) or is root in the initial namespace.
 */
static bool may_see(struct netlink_callback *cb, struct pgas_job *job)
{
	kuid_t uid = current_euid();

	return uid_eq(job->uid, uid) || uid_eq(uid, GLOBAL_ROOT_UID) ||
	       netlink_capable(cb->skb, CAP_SYS_ADMIN);
}

/* The NIC with the lowest id >= id, or NULL; under pgas_nics_lock. */
static struct pgas_nic *next_nic(long id)
{
	struct pgas_nic *nic, *best = NULL;

	list_for_each_entry(nic, &pgas_nics, node)
		if (nic->id >= id && (!best || nic->id < best->id))
			best = nic;
	return best;
}

/*
 * One walk for the three dumps, resumable: the cursor names objects by id,
 * not by position, so NICs, jobs and endpoints that come or go between two
 * parts of a dump neither shift nor repeat what the next part sends.
 * cb->args: [0] next NIC id, [1] next job id in it, [2] next eid in the
 * job [3] - 1 (an eid cursor is only used for the job it was taken in).
 * Endpoints are listed by eid: ranks, then extras.
 * Jobs of other users are left out unless the requester is privileged.
 */
static int dump(struct sk_buff *skb, struct netlink_callback *cb, u8 what)
{
	struct pgas_nic *nic;

	mutex_lock(&pgas_nics_lock);
	for (; (nic = next_nic(cb->args[0])); cb->args[0] = nic->id + 1, cb->args[1] = 0) {
		unsigned long id;
		struct pgas_job *job;

		if (what == PGAS_CMD_NIC_GET) {
			if (fill_nic(skb, cb, nic))
				goto full;
			continue;
		}
		for (id = cb->args[1]; (job = next_job(nic, &id)); id++) {
			if (!may_see(cb, job)) {
				/* skipped */
			} else if (what == PGAS_CMD_JOB_GET) {
				if (fill_job(skb, cb, job)) {
					pgas_job_put(job);
					goto full;
				}
			} else {
				unsigned long v = cb->args[3] == (long)id + 1 ? cb->args[2] : 0;
				struct pgas_ep *ep;
				void *entry;

				mutex_lock(&job->lock);
				xa_for_each_start(&job->eps, v, entry, v) {
					ep = pgas_live_ep(entry);
					if (ep && fill_ep(skb, cb, ep)) {
						cb->args[1] = id;
						cb->args[2] = v;
						cb->args[3] = id + 1;
						mutex_unlock(&job->lock);
						pgas_job_put(job);
						goto full;
					}
				}
				mutex_unlock(&job->lock);
			}
			cb->args[1] = id + 1;
			cb->args[3] = 0;
			pgas_job_put(job);
		}
	}
full:
	mutex_unlock(&pgas_nics_lock);
	return skb->len;
}

static int nic_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return dump(skb, cb, PGAS_CMD_NIC_GET);
}

static int job_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return dump(skb, cb, PGAS_CMD_JOB_GET);
}

static int ep_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return dump(skb, cb, PGAS_CMD_EP_GET);
}

static const struct genl_small_ops pgas_ops[] = {
	{ .cmd = PGAS_CMD_NIC_NEW, .doit = nic_new, .flags = GENL_ADMIN_PERM },
	{ .cmd = PGAS_CMD_NIC_DEL, .doit = nic_del, .flags = GENL_ADMIN_PERM },
	{ .cmd = PGAS_CMD_NIC_GET, .dumpit = nic_dump },
	{ .cmd = PGAS_CMD_JOB_GET, .dumpit = job_dump },
	{ .cmd = PGAS_CMD_EP_GET, .dumpit = ep_dump },
};

static struct genl_family pgas_genl_family __ro_after_init = {
	.name = PGAS_GENL_NAME,
	.version = PGAS_GENL_VERSION,
	.maxattr = PGAS_ATTR_MAX,
	.policy = pgas_policy,
	.module = THIS_MODULE,
	.small_ops = pgas_ops,
	.n_small_ops = ARRAY_SIZE(pgas_ops),
	.mcgrps = pgas_mcgrps,
	.n_mcgrps = ARRAY_SIZE(pgas_mcgrps),
};

/* vpid < 0: none (JOB_DEAD); an endpoint's has its eid and owner too. */
static void event(u8 cmd, u32 nic, u32 job, s64 vpid, u32 owner)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&pgas_genl_family, &init_net, PGAS_MCGRP_EVENTS_IDX))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pgas_genl_family, 0, cmd);
	if (!hdr || nla_put_u32(msg, PGAS_ATTR_NIC_ID, nic) ||
	    nla_put_u32(msg, PGAS_ATTR_JOB_ID, job) ||
	    (vpid >= 0 && (nla_put_u32(msg, PGAS_ATTR_VPID, vpid) ||
			   nla_put_u32(msg, PGAS_ATTR_EID, vpid) ||
			   nla_put_u32(msg, PGAS_ATTR_OWNER, owner)))) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&pgas_genl_family, msg, 0, PGAS_MCGRP_EVENTS_IDX, GFP_KERNEL);
}

void pgas_event_ep_dead(struct pgas_ep *ep)
{
	event(PGAS_CMD_EP_DEAD, ep->job->nic->id, ep->job->id, ep->eid, ep->vpid);
}

void pgas_event_job_dead(struct pgas_job *job)
{
	event(PGAS_CMD_JOB_DEAD, job->nic->id, job->id, -1, 0);
}

int pgas_netlink_init(void)
{
	return genl_register_family(&pgas_genl_family);
}

void pgas_netlink_exit(void)
{
	genl_unregister_family(&pgas_genl_family);
}
