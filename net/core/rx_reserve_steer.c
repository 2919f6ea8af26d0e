// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve's steering: the exact-match ntuple rules of priority flows,
 * the filter slots a device offers and the work that keeps them in step
 * with the flows, and the ntuple locations the core keeps for itself.
 * Process context, under RTNL, except where a function says otherwise.
 */

#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <kunit/visibility.h>
#include <net/ipv6.h>
#include <net/tcp_states.h>

#include "rx_reserve_priv.h"
#include <trace/events/rx_reserve.h>

/* Steering slots */

/**
 * rxr_tuple_to_fs() - the exact-match ntuple rule of a flow
 * @t: the flow, as received
 * @fs: filled with a TCP over IPv4 or IPv6 rule matching all four fields;
 *	its location and ring_cookie are the caller's
 *
 * The rule the core asks a driver's set_rxnfc() to insert.
 */
void rxr_tuple_to_fs(const struct rxr_tuple *t,
		     struct ethtool_rx_flow_spec *fs)
{
	if (t->family == AF_INET) {
		fs->flow_type = TCP_V4_FLOW;
		fs->h_u.tcp_ip4_spec.ip4src = t->saddr.s6_addr32[3];
		fs->h_u.tcp_ip4_spec.ip4dst = t->daddr.s6_addr32[3];
		fs->h_u.tcp_ip4_spec.psrc = t->sport;
		fs->h_u.tcp_ip4_spec.pdst = t->dport;
		fs->m_u.tcp_ip4_spec.ip4src = htonl(0xffffffff);
		fs->m_u.tcp_ip4_spec.ip4dst = htonl(0xffffffff);
		fs->m_u.tcp_ip4_spec.psrc = htons(0xffff);
		fs->m_u.tcp_ip4_spec.pdst = htons(0xffff);
	} else {
		fs->flow_type = TCP_V6_FLOW;
		memcpy(fs->h_u.tcp_ip6_spec.ip6src, &t->saddr, 16);
		memcpy(fs->h_u.tcp_ip6_spec.ip6dst, &t->daddr, 16);
		fs->h_u.tcp_ip6_spec.psrc = t->sport;
		fs->h_u.tcp_ip6_spec.pdst = t->dport;
		memset(fs->m_u.tcp_ip6_spec.ip6src, 0xff, 16);
		memset(fs->m_u.tcp_ip6_spec.ip6dst, 0xff, 16);
		fs->m_u.tcp_ip6_spec.psrc = htons(0xffff);
		fs->m_u.tcp_ip6_spec.pdst = htons(0xffff);
	}
}
EXPORT_SYMBOL_GPL(rxr_tuple_to_fs);

/**
 * rxr_tuple_from_fs() - the flow of an exact-match ntuple rule
 * @fs: a rule, as rxr_tuple_to_fs() makes them
 * @t: filled with the flow
 *
 * For a driver that keeps the core's rules in a form of its own.
 *
 * Return: 0, or -EINVAL for a rule that is not TCP over IPv4 or IPv6
 * with all four fields matched exactly.
 */
int rxr_tuple_from_fs(const struct ethtool_rx_flow_spec *fs,
		      struct rxr_tuple *t)
{
	memset(t, 0, sizeof(*t));
	switch (fs->flow_type) {
	case TCP_V4_FLOW:
		if (fs->m_u.tcp_ip4_spec.ip4src != htonl(0xffffffff) ||
		    fs->m_u.tcp_ip4_spec.ip4dst != htonl(0xffffffff) ||
		    fs->m_u.tcp_ip4_spec.psrc != htons(0xffff) ||
		    fs->m_u.tcp_ip4_spec.pdst != htons(0xffff))
			return -EINVAL;
		t->family = AF_INET;
		ipv6_addr_set_v4mapped(fs->h_u.tcp_ip4_spec.ip4src, &t->saddr);
		ipv6_addr_set_v4mapped(fs->h_u.tcp_ip4_spec.ip4dst, &t->daddr);
		t->sport = fs->h_u.tcp_ip4_spec.psrc;
		t->dport = fs->h_u.tcp_ip4_spec.pdst;
		return 0;
	case TCP_V6_FLOW:
		if (memchr_inv(fs->m_u.tcp_ip6_spec.ip6src, 0xff, 16) ||
		    memchr_inv(fs->m_u.tcp_ip6_spec.ip6dst, 0xff, 16) ||
		    fs->m_u.tcp_ip6_spec.psrc != htons(0xffff) ||
		    fs->m_u.tcp_ip6_spec.pdst != htons(0xffff))
			return -EINVAL;
		t->family = AF_INET6;
		memcpy(&t->saddr, fs->h_u.tcp_ip6_spec.ip6src, 16);
		memcpy(&t->daddr, fs->h_u.tcp_ip6_spec.ip6dst, 16);
		t->sport = fs->h_u.tcp_ip6_spec.psrc;
		t->dport = fs->h_u.tcp_ip6_spec.pdst;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_GPL(rxr_tuple_from_fs);

static int rxr_rule_insert(struct net_device *dev, const struct rxr_tuple *t,
			   u32 location, u32 queue)
{
	struct ethtool_rxnfc nfc = { .cmd = ETHTOOL_SRXCLSRLINS };

	rxr_tuple_to_fs(t, &nfc.fs);
	nfc.fs.location = location;
	nfc.fs.ring_cookie = queue;
	return dev->ethtool_ops->set_rxnfc(dev, &nfc);
}

static int rxr_rule_delete(struct net_device *dev, u32 location)
{
	struct ethtool_rxnfc nfc = { .cmd = ETHTOOL_SRXCLSRLDEL };

	nfc.fs.location = location;
	return dev->ethtool_ops->set_rxnfc(dev, &nfc);
}

/* Move @flow into slot @slot (or out of its slot if -1).  rxr_lock held. */
static void rxr_flow_set_slot(struct rxr_dev *rdev, struct rxr_flow *flow,
			      int slot)
{
	if (flow->slot >= 0) {
		rxr_set_del(&rdev->hw, flow);
		rdev->slot_owner[flow->slot] = NULL;
		rdev->reclaim = true;
	} else {
		rxr_set_del(&rdev->sw, flow);
	}
	WRITE_ONCE(flow->slot, slot);
	if (slot >= 0) {
		rdev->slot_owner[slot] = flow;
		rxr_set_add(&rdev->hw, flow);
	} else {
		/* RSS picks its queue now: learn it again. */
		WRITE_ONCE(flow->rxq, -1);
		rxr_set_add(&rdev->sw, flow);
	}
}

enum rxr_sync_op { RXR_SYNC_NONE, RXR_SYNC_DEL, RXR_SYNC_INS, RXR_SYNC_OUT };

/* Decide the next step of the steering work.  rxr_lock held. */
static enum rxr_sync_op rxr_sync_next(struct rxr_dev *rdev, int *slotp,
				      struct rxr_flow **flowp)
{
	unsigned int n = rdev->caps.hw_slots;
	bool want = rdev->attached && rdev->enabled;
	struct rxr_flow *flow;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!want && rdev->slot_owner[i]) {
			rxr_flow_set_slot(rdev, rdev->slot_owner[i], -1);
			return RXR_SYNC_OUT;
		}
		if (test_bit(i, rdev->slot_installed) && !rdev->slot_owner[i]) {
			*slotp = i;
			return RXR_SYNC_DEL;
		}
	}
	if (!want)
		return RXR_SYNC_NONE;

	list_for_each_entry(flow, &rdev->flows, dev_node) {
		/* The reserve queue has no buffer for a flow without a pool:
		 * it stays on the regular queues until it has one.
		 */
		if (flow->slot >= 0 || flow->hw_failed || !flow->pool)
			continue;
		for (i = 0; i < n; i++) {
			if (rdev->slot_owner[i] ||
			    test_bit(i, rdev->slot_installed))
				continue;
			rxr_flow_set_slot(rdev, flow, i);
			refcount_inc(&flow->refcnt);
			*slotp = i;
			*flowp = flow;
			return RXR_SYNC_INS;
		}
		break;
	}
	return RXR_SYNC_NONE;
}

/**
 * rxr_dev_sync() - install and remove a device's filters
 * @rdev: the device's state
 *
 * Deletes the filters of flows that left, puts flows without a slot into
 * free slots, and, when the device is disabled, takes every flow out of
 * hardware.  A failed insert leaves the flow in software until a slot
 * frees up.
 *
 * Context: process context, RTNL held.
 */
void rxr_dev_sync(struct rxr_dev *rdev)
{
	struct net_device *dev = rdev->dev;
	unsigned int iter, base, queue;
	struct rxr_flow *flow = NULL;
	enum rxr_sync_op op;
	struct rxr_tuple t;
	int slot = -1, err;

	ASSERT_RTNL();
	if (rdev->dead || !rdev->caps.hw_slots)
		return;
	mutex_lock(&rdev->slot_mutex);
	base = rdev->caps.slot_base;
	queue = rdev->caps.reserve_queue;
	for (iter = 0; iter < 4 * rdev->caps.hw_slots + 4; iter++) {
		spin_lock_bh(&rxr_lock);
		op = rxr_sync_next(rdev, &slot, &flow);
		if (op == RXR_SYNC_INS)
			t = flow->key.tuple;
		spin_unlock_bh(&rxr_lock);

		if (op == RXR_SYNC_NONE)
			break;
		if (op == RXR_SYNC_OUT)
			continue;
		if (op == RXR_SYNC_DEL) {
			err = rxr_rule_delete(dev, base + slot);
			trace_rxr_slot(dev, base + slot, false, err);
			spin_lock_bh(&rxr_lock);
			clear_bit(slot, rdev->slot_installed);
			/* A slot freed up: retry the flows that failed. */
			list_for_each_entry(flow, &rdev->flows, dev_node)
				flow->hw_failed = false;
			spin_unlock_bh(&rxr_lock);
			continue;
		}

		err = rxr_rule_insert(dev, &t, base + slot, queue);
		trace_rxr_slot(dev, base + slot, true, err);
		spin_lock_bh(&rxr_lock);
		if (err) {
			rdev->slot_fail++;
			if (rdev->slot_owner[slot] == flow) {
				rxr_flow_set_slot(rdev, flow, -1);
				flow->hw_failed = true;
			}
		} else {
			/* If the flow left meanwhile, the next turn deletes. */
			set_bit(slot, rdev->slot_installed);
		}
		spin_unlock_bh(&rxr_lock);
		rxr_flow_put(flow);
	}
	mutex_unlock(&rdev->slot_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_dev_sync);

void rxr_dev_sync_work(struct work_struct *work)
{
	struct rxr_dev *rdev = container_of(work, struct rxr_dev, sync_work);
	bool reclaim;

	rtnl_lock();
	if (rdev->attached) {
		rxr_dev_sync(rdev);
		/* Pages of flows that left the reserve queue go back. */
		spin_lock_bh(&rxr_lock);
		reclaim = rdev->reclaim && !rdev->dead;
		rdev->reclaim = false;
		spin_unlock_bh(&rxr_lock);
		if (reclaim && rdev->caps.ops && rdev->caps.ops->reclaim)
			rdev->caps.ops->reclaim(rdev->dev,
						rdev->caps.reserve_queue);
	}
	rtnl_unlock();
	rxr_dev_put(rdev);
}

/* The core's ntuple range on @dev: *@base, *@n (0: none). */
void rxr_dev_range(struct net_device *dev, u32 *base, u32 *n)
{
	struct rxr_dev *rdev;

	*base = 0;
	*n = 0;
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev) {
		*base = READ_ONCE(rdev->resv_base);
		*n = READ_ONCE(rdev->resv_n);
	}
	rcu_read_unlock();
}

/**
 * rxr_ethtool_core_rule() - whether an ntuple location is rx-reserve's
 * @dev: the device
 * @location: an ntuple location
 *
 * The core's rules steer to a reserve queue that the driver picks again
 * when its queues change, and are inserted again there: the ethtool core
 * leaves them out when it checks that a channel count keeps every rule's
 * queue.
 *
 * Return: true for a location in the range the driver gave the core.
 */
bool rxr_ethtool_core_rule(struct net_device *dev, u32 location)
{
	u32 base, n;

	rxr_dev_range(dev, &base, &n);
	return location >= base && location - base < n;
}
EXPORT_SYMBOL_GPL(rxr_ethtool_core_rule);

/**
 * rxr_ethtool_check_rxnfc() - keep the administrator out of rx-reserve's
 *	ntuple locations
 * @dev: the device
 * @cmd: the ethtool command
 * @info: the rule
 *
 * Called by the ethtool core before it passes an ntuple insert or delete
 * to the driver.  The core's own filters do not come this way.
 *
 * Return: 0, or -EBUSY for a location in rx-reserve's range.
 */
int rxr_ethtool_check_rxnfc(struct net_device *dev, u32 cmd,
			    const struct ethtool_rxnfc *info)
{
	u32 loc = info->fs.location, base, n;

	if (cmd != ETHTOOL_SRXCLSRLINS && cmd != ETHTOOL_SRXCLSRLDEL)
		return 0;
	rxr_dev_range(dev, &base, &n);
	if (loc < base || loc - base >= n)
		return 0;
	netdev_info(dev,
		    "rx-reserve: ntuple locations %u-%u are reserved for priority flows (private flag %s)\n",
		    base, base + n - 1, RXR_PRIV_FLAG);
	return -EBUSY;
}
EXPORT_SYMBOL_GPL(rxr_ethtool_check_rxnfc);

