// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve's registry: priority flows and the devices they are
 * registered with, the sockets that own them, their pools, the drivers'
 * attachment and the device notifier.  The steering slots are in
 * rx_reserve_steer.c, the RX datapath and emergency mode in
 * rx_reserve_rx.c, counters, /proc and sysctls in rx_reserve_user.c.
 * See Documentation/networking/rx-reserve.rst.
 */

#include <linux/ethtool.h>
#include <linux/if_macvlan.h>
#include <linux/if_vlan.h>
#include <linux/rhashtable.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/rtnetlink.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <net/bonding.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "rx_reserve_priv.h"

#define CREATE_TRACE_POINTS
#include <trace/events/rx_reserve.h>

DEFINE_STATIC_KEY_FALSE(rxr_flows_key);
EXPORT_SYMBOL_GPL(rxr_flows_key);

/* What rxr_lock protects: rx_reserve_priv.h. */
DEFINE_SPINLOCK(rxr_lock);
LIST_HEAD(rxr_flow_list);
LIST_HEAD(rxr_dev_list);
unsigned int rxr_nflows;

/*
 * The classifier: every registered flow of every device, keyed by device
 * and tuple, so a lookup costs the same with 1 flow or 10,000.
 */
struct rhashtable rxr_flow_ht;
const struct rhashtable_params rxr_flow_ht_params = {
	.key_len		= sizeof(struct rxr_flow_key),
	.key_offset		= offsetof(struct rxr_flow, key),
	.head_offset		= offsetof(struct rxr_flow, hnode),
	.automatic_shrinking	= true,
};

/* Global counters, shown in /proc/net/rx_reserve. */
atomic_t rxr_pages_total;
atomic64_t rxr_nopool_cap;
atomic64_t rxr_nopool_enomem;
atomic64_t rxr_nodev;
atomic64_t rxr_nohash;
atomic64_t rxr_nolower;
atomic64_t rxr_rcvbuf_holds;

/* rx_reserve=off on the command line: no device attaches, no flow exists. */
bool rxr_off __ro_after_init;

/* The sysctls' values: rxr_sysctl[] in rx_reserve_user.c. */
int rxr_enabled __read_mostly = 1;
int rxr_pool_pages __read_mostly = 256;
int rxr_max_pages __read_mostly = 16384;
int rxr_fallback __read_mostly = RXR_FALLBACK_WEIGHTED;
int rxr_emergency_hold_ms __read_mostly = 1000;

static atomic_t rxr_key_pending;
static void rxr_key_work_fn(struct work_struct *work);
static DECLARE_WORK(rxr_key_work, rxr_key_work_fn);

DECLARE_DELAYED_WORK(rxr_monitor_work, rxr_monitor_fn);

/* Pools are allocated by this work, and retried by the monitor. */
static void rxr_pool_work_fn(struct work_struct *work);
DECLARE_WORK(rxr_pool_work, rxr_pool_work_fn);
unsigned long rxr_pool_retry_at;

/* Sockets' receive buffers follow emergency mode: rxr_sk_fit_rcvbuf(). */
static void rxr_rcvbuf_work_fn(struct work_struct *work);
DECLARE_WORK(rxr_rcvbuf_work, rxr_rcvbuf_work_fn);

static void rxr_key_work_fn(struct work_struct *work)
{
	while (atomic_dec_if_positive(&rxr_key_pending) >= 0)
		static_branch_dec(&rxr_flows_key);
}

struct rxr_dev *rxr_dev_deref(const struct net_device *dev)
{
	return rcu_dereference_check(dev->rx_reserve,
				     lockdep_is_held(&rxr_lock) ||
				     lockdep_rtnl_is_held());
}

/* Flow sets: arrays a driver's RX path reads under RCU. */

void rxr_set_add(struct rxr_flow_set *set, struct rxr_flow *flow)
{
	flow->set_idx = -1;
	if (!flow->pool || set->n >= RXR_DEV_MAX_FLOWS)
		return;
	WRITE_ONCE(set->flow[set->n], flow);
	flow->set_idx = set->n;
	WRITE_ONCE(set->n, set->n + 1);
}

void rxr_set_del(struct rxr_flow_set *set, struct rxr_flow *flow)
{
	int last;

	if (flow->set_idx < 0)
		return;
	last = set->n - 1;
	if (flow->set_idx != last) {
		WRITE_ONCE(set->flow[flow->set_idx], set->flow[last]);
		set->flow[flow->set_idx]->set_idx = flow->set_idx;
	}
	WRITE_ONCE(set->flow[last], NULL);
	WRITE_ONCE(set->n, last);
	flow->set_idx = -1;
}

/* Devices */

static void rxr_dev_free_rcu(struct rcu_head *head)
{
	struct rxr_dev *rdev = container_of(head, struct rxr_dev, rcu);

	free_percpu(rdev->stats);
	kfree(rdev->slot_owner);
	bitmap_free(rdev->slot_installed);
	kfree(rdev);
}

void rxr_dev_put(struct rxr_dev *rdev)
{
	if (refcount_dec_and_test(&rdev->refcnt))
		call_rcu(&rdev->rcu, rxr_dev_free_rcu);
}

static void rxr_dev_ntf_work(struct work_struct *work);

static struct rxr_dev *rxr_dev_alloc(struct net_device *dev, gfp_t gfp)
{
	struct rxr_dev *rdev;
	size_t size;
	int cpu;

	rdev = kzalloc(sizeof(*rdev), gfp);
	if (!rdev)
		return NULL;
	rdev->nq = clamp(dev->num_rx_queues, 1U, RXR_MAX_QUEUES);
	size = struct_size_t(struct rxr_dev_pcpu_stats, stat,
			     rdev->nq * RXR_STAT_NUM);
	rdev->stats = __alloc_percpu_gfp(size,
					 __alignof__(struct rxr_dev_pcpu_stats),
					 gfp);
	if (!rdev->stats) {
		kfree(rdev);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(rdev->stats, cpu)->syncp);
	rdev->dev = dev;
	refcount_set(&rdev->refcnt, 1);
	INIT_LIST_HEAD(&rdev->flows);
	rdev->caps.reserve_queue = -1;
	rdev->enabled = true;
	mutex_init(&rdev->slot_mutex);
	INIT_WORK(&rdev->sync_work, rxr_dev_sync_work);
	INIT_WORK(&rdev->ntf_work, rxr_dev_ntf_work);
	return rdev;
}

/*
 * The state of @dev, created from @prealloc or with GFP_ATOMIC if it has
 * none.  NULL for a device that is unregistering.  rxr_lock held.
 */
static struct rxr_dev *rxr_dev_get_locked(struct net_device *dev,
					  struct rxr_dev **prealloc)
{
	struct rxr_dev *rdev = rxr_dev_deref(dev);

	lockdep_assert_held(&rxr_lock);
	if (rdev)
		return rdev->dead ? NULL : rdev;
	if (READ_ONCE(dev->reg_state) != NETREG_REGISTERED ||
	    dev == blackhole_netdev)
		return NULL;
	if (prealloc && *prealloc) {
		rdev = *prealloc;
		*prealloc = NULL;
	} else {
		rdev = rxr_dev_alloc(dev, GFP_ATOMIC);
		if (!rdev)
			return NULL;
	}
	list_add_tail(&rdev->node, &rxr_dev_list);
	rcu_assign_pointer(dev->rx_reserve, rdev);
	return rdev;
}

static BLOCKING_NOTIFIER_HEAD(rxr_notifier);

/**
 * rxr_register_notifier() - hear of rx-reserve's events
 * @nb: the notifier; called in process context with RTNL held, with an
 *	&enum rxr_event and the net_device
 *
 * Return: 0.
 */
int rxr_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&rxr_notifier, nb);
}
EXPORT_SYMBOL_GPL(rxr_register_notifier);

/**
 * rxr_unregister_notifier() - stop hearing of rx-reserve's events
 * @nb: the notifier
 *
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int rxr_unregister_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_unregister(&rxr_notifier, nb);
}
EXPORT_SYMBOL_GPL(rxr_unregister_notifier);

static void rxr_dev_ntf_work(struct work_struct *work)
{
	struct rxr_dev *rdev = container_of(work, struct rxr_dev, ntf_work);

	rtnl_lock();
	if (!rdev->dead)
		blocking_notifier_call_chain(&rxr_notifier, RXR_EVENT_EMERGENCY,
					     rdev->dev);
	rtnl_unlock();
	rxr_dev_put(rdev);
}

/* Tell the notifier chain that emergency mode changed.  Any context. */
void rxr_dev_notify(struct rxr_dev *rdev)
{
	if (rdev->dead)
		return;
	refcount_inc(&rdev->refcnt);
	if (!queue_work(system_wq, &rdev->ntf_work))
		rxr_dev_put(rdev);
}

/* Queue the steering work of a device with slots.  rxr_lock held. */
void rxr_dev_kick(struct rxr_dev *rdev)
{
	if (!rdev->attached || !rdev->caps.hw_slots || rdev->dead)
		return;
	refcount_inc(&rdev->refcnt);
	if (!queue_work(system_wq, &rdev->sync_work))
		rxr_dev_put(rdev);
}

/* Flows */

static void rxr_flow_free_rcu(struct rcu_head *head)
{
	struct rxr_flow *flow = container_of(head, struct rxr_flow, rcu);

	if (flow->pool) {
		/* A leg's reference is on its socket flow's pages. */
		if (!flow->leg)
			atomic_sub(rxr_pool_size(flow->pool),
				   &rxr_pages_total);
		rxr_pool_put(flow->pool);
	}
	kfree(flow);
}

void rxr_flow_put(struct rxr_flow *flow)
{
	if (refcount_dec_and_test(&flow->refcnt))
		call_rcu(&flow->rcu, rxr_flow_free_rcu);
}

/* Take @flow off its device.  rxr_lock held. */
static void __rxr_flow_unbind(struct rxr_flow *flow)
{
	struct rxr_dev *rdev = flow->key.rdev;

	if (!rdev)
		return;
	rhashtable_remove_fast(&rxr_flow_ht, &flow->hnode, rxr_flow_ht_params);
	list_del_init(&flow->dev_node);
	rdev->nflows--;
	if (flow->slot >= 0) {
		rxr_set_del(&rdev->hw, flow);
		rdev->slot_owner[flow->slot] = NULL;
		WRITE_ONCE(flow->slot, -1);
		rdev->reclaim = true;
	} else {
		rxr_set_del(&rdev->sw, flow);
	}
	WRITE_ONCE(flow->key.rdev, NULL);
	rxr_dev_kick(rdev);
	trace_rxr_flow_unregister(rdev->dev, &flow->key.tuple,
				  flow->pool ? rxr_pool_size(flow->pool) : 0);
}

/*
 * A flow is given its pool once it is registered with a device that has
 * rx-reserve, and only then.  rxr_lock held.
 */
bool rxr_flow_wants_pool(const struct rxr_flow *flow)
{
	const struct rxr_dev *rdev = flow->key.rdev;

	return !flow->pool && flow->npages && !flow->released && rdev &&
	       rdev->attached;
}

/*
 * Register @flow with @rdev as @t.  rxr_lock held.  Returns 0, or the
 * classifier table's error (-ENOMEM, -EBUSY while it grows), which leaves
 * the flow unregistered and counted in nohash.
 */
static int __rxr_flow_bind(struct rxr_flow *flow, struct rxr_dev *rdev,
			   const struct rxr_tuple *t)
{
	int err;

	if (flow->key.rdev == rdev && !memcmp(&flow->key.tuple, t, sizeof(*t)))
		return 0;
	__rxr_flow_unbind(flow);
	flow->key.tuple = *t;
	WRITE_ONCE(flow->key.rdev, rdev);
	err = rhashtable_insert_fast(&rxr_flow_ht, &flow->hnode,
				     rxr_flow_ht_params);
	if (err) {
		WRITE_ONCE(flow->key.rdev, NULL);
		atomic64_inc(&rxr_nohash);
		return err;
	}
	flow->hw_failed = false;
	WRITE_ONCE(flow->rxq, -1);
	list_add_tail(&flow->dev_node, &rdev->flows);
	rdev->nflows++;
	rxr_set_add(&rdev->sw, flow);
	rxr_dev_kick(rdev);
	if (rxr_flow_wants_pool(flow))
		queue_work(system_wq, &rxr_pool_work);
	trace_rxr_flow_register(rdev->dev, t,
				flow->pool ? rxr_pool_size(flow->pool) : 0);
	return 0;
}

/* Take @leg off its device and its socket flow, and drop it.  rxr_lock
 * held.
 */
static void rxr_leg_release(struct rxr_flow *leg)
{
	__rxr_flow_unbind(leg);
	list_del_rcu(&leg->leg_node);
	rxr_flow_put(leg);
}

/* Drop every leg of @flow.  rxr_lock held. */
static void rxr_flow_drop_legs(struct rxr_flow *flow)
{
	struct rxr_flow *leg, *tmp;

	list_for_each_entry_safe(leg, tmp, &flow->legs, leg_node)
		rxr_leg_release(leg);
}

static void rxr_flow_init(struct rxr_flow *flow, u8 mark)
{
	INIT_LIST_HEAD(&flow->dev_node);
	INIT_LIST_HEAD(&flow->legs);
	INIT_LIST_HEAD(&flow->leg_node);
	refcount_set(&flow->refcnt, 1);
	WRITE_ONCE(flow->slot, -1);
	flow->set_idx = -1;
	flow->rxq = -1;
	flow->mark = mark;
}

/*
 * Register a leg of @flow with @rdev as @t.  rxr_lock held, so GFP_ATOMIC:
 * a leg that cannot be allocated or hashed is counted in nolower, and the
 * frames that arrive on @rdev go the regular way until the next update.
 */
static void rxr_leg_add(struct rxr_flow *flow, struct rxr_dev *rdev,
			const struct rxr_tuple *t)
{
	struct rxr_flow *leg;

	leg = kzalloc(sizeof(*leg), GFP_ATOMIC | __GFP_NOWARN);
	if (!leg) {
		atomic64_inc(&rxr_nolower);
		return;
	}
	rxr_flow_init(leg, flow->mark);
	leg->leg = true;
	leg->ino = flow->ino;
	if (flow->pool)
		leg->pool = rxr_pool_get(flow->pool);
	list_add_tail_rcu(&leg->leg_node, &flow->legs);
	if (__rxr_flow_bind(leg, rdev, t)) {
		atomic64_inc(&rxr_nolower);
		rxr_leg_release(leg);
	}
}

/*
 * Register @flow with the @n devices of @rdevs as @t: with the one it is
 * on if that is one of them, else with the first, and a leg with each of
 * the others.  Legs on devices not in @rdevs go.  rxr_lock held.  Returns
 * __rxr_flow_bind()'s error for the flow itself.
 */
static int __rxr_flow_bind_devs(struct rxr_flow *flow,
				struct rxr_dev **rdevs, unsigned int n,
				const struct rxr_tuple *t)
{
	bool done[RXR_FLOW_MAX_DEVS] = {};
	struct rxr_flow *leg, *tmp;
	unsigned int i, home = 0;
	int err;

	for (i = 0; i < n; i++)
		if (rdevs[i] == flow->key.rdev)
			home = i;
	if (n)
		done[home] = true;
	list_for_each_entry_safe(leg, tmp, &flow->legs, leg_node) {
		for (i = 0; i < n; i++)
			if (!done[i] && rdevs[i] == leg->key.rdev)
				break;
		if (i == n) {
			rxr_leg_release(leg);
			continue;
		}
		done[i] = true;
		if (__rxr_flow_bind(leg, rdevs[i], t)) {
			atomic64_inc(&rxr_nolower);
			rxr_leg_release(leg);
		}
	}
	if (!n) {
		__rxr_flow_unbind(flow);
		return 0;
	}
	err = __rxr_flow_bind(flow, rdevs[home], t);
	for (i = 0; i < n; i++)
		if (!done[i])
			rxr_leg_add(flow, rdevs[i], t);
	return err;
}

/**
 * rxr_flow_create() - allocate a flow
 * @mark: why it is a priority flow
 * @npages: pages of its pool
 *
 * The flow's pool is allocated by rxr_flow_fill_pool() once the flow is
 * registered with a device that has rx-reserve: a flow over a device that
 * cannot use a pool holds none.
 *
 * Context: process context.
 * Return: the flow, or NULL if it could not be allocated.
 */
VISIBLE_IF_KUNIT
struct rxr_flow *rxr_flow_create(u8 mark, unsigned int npages)
{
	struct rxr_flow *flow;
	bool first;

	flow = kzalloc(sizeof(*flow), GFP_KERNEL);
	if (!flow)
		return NULL;
	rxr_flow_init(flow, mark);
	flow->npages = npages;

	static_branch_inc(&rxr_flows_key);
	spin_lock_bh(&rxr_lock);
	list_add_tail(&flow->node, &rxr_flow_list);
	first = !rxr_nflows++;
	spin_unlock_bh(&rxr_lock);
	if (first)
		mod_delayed_work(system_wq, &rxr_monitor_work,
				 RXR_MONITOR_PERIOD);
	return flow;
}
EXPORT_SYMBOL_IF_KUNIT(rxr_flow_create);

/**
 * rxr_flow_release() - unregister a flow and drop the socket's reference
 * @flow: the flow
 *
 * The pool goes when the last reference does, after an RCU grace period;
 * pages still in flight then are freed by their last user.
 *
 * Context: any context.
 */
VISIBLE_IF_KUNIT void rxr_flow_release(struct rxr_flow *flow)
{
	spin_lock_bh(&rxr_lock);
	rxr_flow_drop_legs(flow);
	__rxr_flow_unbind(flow);
	list_del(&flow->node);
	rxr_nflows--;
	flow->sk = NULL;
	flow->released = true;
	spin_unlock_bh(&rxr_lock);

	atomic_inc(&rxr_key_pending);
	schedule_work(&rxr_key_work);
	rxr_flow_put(flow);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_flow_release);

/**
 * rxr_next_sk_flow() - walk the priority sockets one at a time
 * @prev: the flow the walk is at, or NULL to start; its reference is put
 * @skp: set to the next flow's socket, with a reference
 *
 * For walks that lock each socket, and so cannot hold rxr_lock across the
 * list: the walk goes on from @prev, or from the list's head if @prev was
 * released meanwhile (the flows before it may then be seen again).
 *
 * Context: process context.
 * Return: the next flow that has a socket, with a reference, or NULL.
 */
struct rxr_flow *rxr_next_sk_flow(struct rxr_flow *prev, struct sock **skp)
{
	struct rxr_flow *flow = NULL;

	*skp = NULL;
	spin_lock_bh(&rxr_lock);
	if (prev && !prev->released)
		flow = prev;
	flow = list_prepare_entry(flow, &rxr_flow_list, node);
	list_for_each_entry_continue(flow, &rxr_flow_list, node) {
		if (flow->sk && refcount_inc_not_zero(&flow->sk->sk_refcnt)) {
			refcount_inc(&flow->refcnt);
			*skp = flow->sk;
			break;
		}
	}
	spin_unlock_bh(&rxr_lock);
	if (prev)
		rxr_flow_put(prev);
	return *skp ? flow : NULL;
}

/**
 * rxr_flow_bind_devs() - register a flow with the devices that receive it
 * @flow: a socket's flow
 * @devs: the devices
 * @n: number of @devs, at most %RXR_FLOW_MAX_DEVS
 * @t: the flow as received on them
 *
 * The flow stays on the device it is on if that is one of @devs, else it
 * goes to the first; a leg of it is registered with each of the others.
 *
 * Return: 0, -ENODEV if a device is going away or its state could not be
 * allocated (the flow is then on none), or -ENOMEM or -EBUSY if the
 * classifier's table could not take the flow.
 */
VISIBLE_IF_KUNIT int rxr_flow_bind_devs(struct rxr_flow *flow,
					struct net_device **devs,
					unsigned int n,
					const struct rxr_tuple *t)
{
	struct rxr_dev *rdevs[RXR_FLOW_MAX_DEVS];
	unsigned int i;
	int err;

	if (n > RXR_FLOW_MAX_DEVS)
		return -EINVAL;
	spin_lock_bh(&rxr_lock);
	for (i = 0; i < n; i++) {
		rdevs[i] = rxr_dev_get_locked(devs[i], NULL);
		if (!rdevs[i])
			break;
	}
	if (i < n) {
		__rxr_flow_bind_devs(flow, rdevs, 0, t);
		atomic64_inc(&rxr_nodev);
		err = -ENODEV;
	} else {
		err = __rxr_flow_bind_devs(flow, rdevs, n, t);
	}
	spin_unlock_bh(&rxr_lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rxr_flow_bind_devs);

/**
 * rxr_flow_bind() - register a flow with a device
 * @flow: the flow
 * @dev: the device
 * @t: the flow as received on @dev
 *
 * Return: as rxr_flow_bind_devs().
 */
VISIBLE_IF_KUNIT int rxr_flow_bind(struct rxr_flow *flow,
				   struct net_device *dev,
				   const struct rxr_tuple *t)
{
	return rxr_flow_bind_devs(flow, &dev, 1, t);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_flow_bind);

/**
 * rxr_flow_unbind() - take a flow off its devices
 * @flow: the flow
 */
VISIBLE_IF_KUNIT void rxr_flow_unbind(struct rxr_flow *flow)
{
	spin_lock_bh(&rxr_lock);
	rxr_flow_drop_legs(flow);
	__rxr_flow_unbind(flow);
	spin_unlock_bh(&rxr_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_flow_unbind);

/* Sockets */

static bool rxr_sk_tuple(const struct sock *sk, struct rxr_tuple *t)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(t, 0, sizeof(*t));
	if (!inet->inet_sport || !inet->inet_dport)
		return false;
	t->sport = inet->inet_dport;
	t->dport = inet->inet_sport;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
		t->saddr = sk->sk_v6_daddr;
		t->daddr = sk->sk_v6_rcv_saddr;
		t->family = AF_INET6;
		return true;
	}
#endif
	ipv6_addr_set_v4mapped(inet->inet_daddr, &t->saddr);
	ipv6_addr_set_v4mapped(inet->inet_saddr, &t->daddr);
	t->family = AF_INET;
	return true;
}

/* VLANs, macvlans and bonds stack at most this deep under a route. */
#define RXR_LOWER_DEPTH	8

/*
 * The device that receives what is routed over @dev: a VLAN's or a
 * macvlan's lower device, the active slave of a bond in active-backup or
 * balance-tlb mode (which receive on it alone), down to the NIC; @dev
 * itself when it is none of these.  NULL for a bond without an active
 * slave, and for a bond in a mode where every slave receives: that bond
 * is then returned in @bondp, if given.  RCU read side.
 */
static struct net_device *rxr_rx_dev(struct net_device *dev,
				     struct net_device **bondp)
{
	struct bonding *bond;
	struct slave *slave;
	int depth;

	for (depth = 0; dev && depth < RXR_LOWER_DEPTH; depth++) {
		if (is_vlan_dev(dev)) {
			dev = vlan_dev_real_dev(dev);
		} else if (netif_is_macvlan(dev)) {
			dev = macvlan_dev_real_dev(dev);
		} else if (netif_is_bond_master(dev)) {
			bond = netdev_priv(dev);
			if (BOND_MODE(bond) != BOND_MODE_ACTIVEBACKUP &&
			    BOND_MODE(bond) != BOND_MODE_TLB) {
				if (bondp)
					*bondp = dev;
				return NULL;
			}
			slave = rcu_dereference(bond->curr_active_slave);
			dev = slave ? slave->dev : NULL;
		} else {
			return dev;
		}
	}
	return NULL;
}

/*
 * The devices that receive what is routed over @dev, at most
 * %RXR_FLOW_MAX_DEVS of them in @devs: rxr_rx_dev()'s, or, under a bond
 * whose slaves all receive (802.3ad, balance-xor, balance-rr, balance-alb,
 * broadcast), each slave's, up or not, so that a frame the partner sends
 * on any link finds the flow there.  Returns how many.  RCU read side.
 */
static unsigned int rxr_rx_devs(struct net_device *dev,
				struct net_device **devs)
{
	struct net_device *bond = NULL, *lower;
	struct list_head *iter;
	struct slave *slave;
	unsigned int i, n = 0;

	dev = rxr_rx_dev(dev, &bond);
	if (dev) {
		devs[n++] = dev;
		return n;
	}
	if (!bond)
		return 0;
	bond_for_each_slave_rcu((struct bonding *)netdev_priv(bond), slave,
				iter) {
		/* A bond under a bond is one device, or none. */
		lower = rxr_rx_dev(slave->dev, NULL);
		if (!lower)
			continue;
		for (i = 0; i < n && devs[i] != lower; i++)
			;
		if (i < n)
			continue;
		if (n == RXR_FLOW_MAX_DEVS) {
			atomic64_inc(&rxr_nolower);
			break;
		}
		devs[n++] = lower;
	}
	return n;
}

#define RXR_TCPF_LIVE	(TCPF_SYN_SENT | TCPF_SYN_RECV | TCPF_ESTABLISHED | \
			 TCPF_FIN_WAIT1 | TCPF_FIN_WAIT2 | TCPF_CLOSE_WAIT | \
			 TCPF_LAST_ACK | TCPF_CLOSING)

/**
 * __rxr_sk_update() - register a priority socket with its route's devices
 * @sk: the socket
 *
 * Registers a connecting or connected priority socket with the devices
 * that receive its current route's frames (through VLANs, macvlans, an
 * active-backup or balance-tlb bond's active slave, and every slave of a
 * bond in the other modes), moving it when they changed, and unregisters
 * it when it has none or is closed.  Called through rxr_sk_update().
 *
 * Context: any context.
 */
void __rxr_sk_update(struct sock *sk)
{
	struct rxr_dev *rdevs[RXR_FLOW_MAX_DEVS];
	struct net_device *devs[RXR_FLOW_MAX_DEVS];
	unsigned int i, n = 0, nr = 0;
	struct rxr_flow *flow;
	struct dst_entry *dst;
	bool routed = false;
	struct rxr_tuple t;

	if (!sock_flag(sk, SOCK_RX_RESERVE))
		return;

	rcu_read_lock();
	if (((1 << READ_ONCE(sk->sk_state)) & RXR_TCPF_LIVE) &&
	    rxr_sk_tuple(sk, &t)) {
		dst = rcu_dereference(sk->sk_dst_cache);
		routed = dst;
		if (dst)
			n = rxr_rx_devs(READ_ONCE(dst->dev), devs);
	}

	spin_lock_bh(&rxr_lock);
	flow = sk->sk_rx_reserve;
	if (flow) {
		for (i = 0; i < n; i++) {
			rdevs[nr] = rxr_dev_get_locked(devs[i], NULL);
			if (rdevs[nr])
				nr++;
		}
		__rxr_flow_bind_devs(flow, rdevs, nr, &t);
		if (routed && (!n || nr < n))
			atomic64_inc(&rxr_nodev);
	}
	spin_unlock_bh(&rxr_lock);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(__rxr_sk_update);

/* Whether a device that receives @flow is in emergency mode.  rxr_lock
 * held.
 */
static bool rxr_flow_in_emergency(const struct rxr_flow *flow)
{
	const struct rxr_flow *leg;

	if (flow->key.rdev && flow->key.rdev->emergency)
		return true;
	list_for_each_entry(leg, &flow->legs, leg_node)
		if (leg->key.rdev && leg->key.rdev->emergency)
			return true;
	return false;
}

/* End rxr_sk_fit_rcvbuf()'s hold: autotuning grows the buffer again.  A
 * buffer set with SO_RCVBUF meanwhile stays as set.  Socket locked.
 */
static void rxr_sk_unhold_rcvbuf(struct sock *sk, struct rxr_flow *flow)
{
	if (!flow->rcvbuf_held)
		return;
	flow->rcvbuf_held = false;
	if (READ_ONCE(sk->sk_rcvbuf) == flow->rcvbuf_val)
		sk->sk_userlocks &= ~SOCK_RCVBUF_LOCK;
}

/**
 * rxr_sk_fit_rcvbuf() - fit a priority socket's receive buffer to memory
 * @sk: the socket, locked (or, being marked, the kernel's own socket that
 *	sk_set_memalloc()'s callers mark without the lock)
 * @flow: its flow
 *
 * TCP offers the peer a window of what the receive buffer may hold.  While
 * memory is fine, the reserve queue takes pages of its own where the pool's
 * are up the stack (rxr_queue_page()), and TCP's autotuning is left alone.
 * While a device that receives @flow is in emergency mode, only pool pages
 * receive it: the buffer is set to half the pool and locked, as %SO_RCVBUF
 * does, so that the window fits the pool (the other half covers the
 * buffers posted on the reserve queue) and the socket's backlog has the
 * room of a window's frames in pool pages.  The hold ends with
 * emergency mode, and with the flow.  A receive buffer the user set is left
 * alone.  rxr_rcvbuf_work follows the devices' transitions.
 *
 * Context: process context.
 */
VISIBLE_IF_KUNIT void rxr_sk_fit_rcvbuf(struct sock *sk, struct rxr_flow *flow)
{
	u64 half = 0;
	bool hold;
	int lim;

	spin_lock_bh(&rxr_lock);
	hold = flow->pool && !flow->released && rxr_flow_in_emergency(flow);
	if (hold)
		half = (u64)rxr_pool_size(flow->pool) * PAGE_SIZE / 2;
	spin_unlock_bh(&rxr_lock);
	lim = clamp_t(u64, half, SOCK_MIN_RCVBUF, INT_MAX);

	if (hold == flow->rcvbuf_held)
		return;
	if (!hold) {
		rxr_sk_unhold_rcvbuf(sk, flow);
		return;
	}
	if (sk->sk_userlocks & SOCK_RCVBUF_LOCK)
		return;
	WRITE_ONCE(sk->sk_rcvbuf, lim);
	sk->sk_userlocks |= SOCK_RCVBUF_LOCK;
	flow->rcvbuf_held = true;
	flow->rcvbuf_val = READ_ONCE(sk->sk_rcvbuf);
	atomic64_inc(&rxr_rcvbuf_holds);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_sk_fit_rcvbuf);

/* A device entered or left emergency mode: fit its sockets' buffers. */
static void rxr_rcvbuf_work_fn(struct work_struct *work)
{
	struct rxr_flow *flow;
	struct sock *sk;

	for (flow = rxr_next_sk_flow(NULL, &sk); flow;
	     flow = rxr_next_sk_flow(flow, &sk)) {
		lock_sock(sk);
		if (READ_ONCE(sk->sk_rx_reserve) == flow)
			rxr_sk_fit_rcvbuf(sk, flow);
		release_sock(sk);
		sock_put(sk);
		cond_resched();
	}
}

/*
 * Allocate @flow's pool and give it to the flow.  With @skp, the flow's
 * socket is returned there with a reference, for the caller to fit its
 * receive buffer to the pool.
 */
static int __rxr_flow_fill_pool(struct rxr_flow *flow, struct sock **skp)
{
	unsigned int npages = READ_ONCE(flow->npages);
	struct rxr_pool *pool = NULL;
	struct rxr_flow *leg;
	struct rxr_dev *rdev;
	unsigned int noio;
	int err = 0;

	if (READ_ONCE(flow->pool) || !npages)
		return 0;
	if (atomic_add_return(npages, &rxr_pages_total) >
	    READ_ONCE(rxr_max_pages)) {
		err = -ENOSPC;
	} else {
		/* The flow may carry the very writeback that reclaim is
		 * waiting for: reclaim from here must not start I/O.
		 */
		noio = memalloc_noio_save();
		pool = rxr_pool_create(npages, NUMA_NO_NODE);
		memalloc_noio_restore(noio);
		if (IS_ERR(pool)) {
			err = PTR_ERR(pool);
			pool = NULL;
		}
	}

	spin_lock_bh(&rxr_lock);
	if (err) {
		if (!flow->nopool_counted)
			atomic64_inc(err == -ENOSPC ? &rxr_nopool_cap :
				     &rxr_nopool_enomem);
		flow->nopool_counted = true;
	} else if (!flow->pool && !flow->released) {
		/* The pool is whole before a reader can see it. */
		smp_store_release(&flow->pool, pool);
		rdev = flow->key.rdev;
		if (rdev && flow->set_idx < 0)
			rxr_set_add(flow->slot >= 0 ? &rdev->hw : &rdev->sw,
				    flow);
		/* Now it may take a filter slot. */
		if (rdev)
			rxr_dev_kick(rdev);
		/* And its legs, without one until now, on their devices. */
		list_for_each_entry(leg, &flow->legs, leg_node) {
			/* Whole before a reader can see it there too. */
			smp_store_release(&leg->pool, rxr_pool_get(pool));
			rdev = leg->key.rdev;
			if (!rdev)
				continue;
			if (leg->set_idx < 0)
				rxr_set_add(&rdev->sw, leg);
			rxr_dev_kick(rdev);
		}
		pool = NULL;
		if (skp && flow->sk &&
		    refcount_inc_not_zero(&flow->sk->sk_refcnt))
			*skp = flow->sk;
	} else {
		err = -EEXIST;
	}
	spin_unlock_bh(&rxr_lock);

	if (err) {
		atomic_sub(npages, &rxr_pages_total);
		if (pool)
			rxr_pool_put(pool);
	}
	return err == -EEXIST ? 0 : err;
}

/**
 * rxr_flow_fill_pool() - allocate a flow's pool
 * @flow: the flow
 *
 * Allocates the pool without I/O from reclaim.  A pool refused by the
 * global cap (-ENOSPC) or by the page allocator (-ENOMEM) is counted once
 * and retried every second while the flow is on a device with rx-reserve;
 * until then mainline's shared pfmemalloc reserve serves the flow.
 *
 * Context: process context.
 * Return: 0 if the flow has its pool or needs none, -ENOSPC or -ENOMEM.
 */
VISIBLE_IF_KUNIT int rxr_flow_fill_pool(struct rxr_flow *flow)
{
	return __rxr_flow_fill_pool(flow, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_flow_fill_pool);

static void rxr_pool_work_fn(struct work_struct *work)
{
	struct rxr_flow *flow, *next;
	struct sock *sk;
	int err;

	for (;;) {
		next = NULL;
		spin_lock_bh(&rxr_lock);
		list_for_each_entry(flow, &rxr_flow_list, node) {
			if (rxr_flow_wants_pool(flow)) {
				refcount_inc(&flow->refcnt);
				next = flow;
				break;
			}
		}
		spin_unlock_bh(&rxr_lock);
		if (!next)
			return;

		sk = NULL;
		err = __rxr_flow_fill_pool(next, &sk);
		if (sk) {
			lock_sock(sk);
			if (READ_ONCE(sk->sk_rx_reserve) == next)
				rxr_sk_fit_rcvbuf(sk, next);
			release_sock(sk);
			sock_put(sk);
		}
		rxr_flow_put(next);
		if (err) {
			/* The monitor tries again. */
			WRITE_ONCE(rxr_pool_retry_at, jiffies + RXR_POOL_RETRY);
			return;
		}
		cond_resched();
	}
}

/* A socket flow's marks, shown with its legs too.  rxr_lock held. */
static void rxr_flow_set_mark(struct rxr_flow *flow, u8 mark)
{
	struct rxr_flow *leg;

	flow->mark = mark;
	list_for_each_entry(leg, &flow->legs, leg_node)
		leg->mark = mark;
}

static int rxr_sk_mark(struct sock *sk, u8 mark)
{
	struct rxr_flow *flow;
	bool want;

	if (!READ_ONCE(rxr_enabled))
		return -ENOPROTOOPT;
	spin_lock_bh(&rxr_lock);
	flow = sk->sk_rx_reserve;
	if (flow)
		rxr_flow_set_mark(flow, flow->mark | mark);
	spin_unlock_bh(&rxr_lock);
	if (flow)
		return 0;

	flow = rxr_flow_create(mark, READ_ONCE(rxr_pool_pages));
	if (!flow)
		return -ENOMEM;
	flow->ino = sock_i_ino(sk);

	spin_lock_bh(&rxr_lock);
	/* Turned off meanwhile: rxr_release_all() may have swept already. */
	if (!READ_ONCE(rxr_enabled)) {
		spin_unlock_bh(&rxr_lock);
		rxr_flow_release(flow);
		return -ENOPROTOOPT;
	}
	if (sk->sk_rx_reserve) {
		rxr_flow_set_mark(sk->sk_rx_reserve,
				  sk->sk_rx_reserve->mark | mark);
		spin_unlock_bh(&rxr_lock);
		rxr_flow_release(flow);
		return 0;
	}
	flow->sk = sk;
	sk->sk_rx_reserve = flow;
	sock_set_flag(sk, SOCK_RX_RESERVE);
	spin_unlock_bh(&rxr_lock);

	/* A connected socket on a device with rx-reserve gets its pool now,
	 * in the caller's context; any other when it gets there.
	 */
	__rxr_sk_update(sk);
	spin_lock_bh(&rxr_lock);
	want = rxr_flow_wants_pool(flow);
	spin_unlock_bh(&rxr_lock);
	if (want)
		rxr_flow_fill_pool(flow);
	rxr_sk_fit_rcvbuf(sk, flow);
	return 0;
}

void rxr_sk_unmark(struct sock *sk, u8 mark)
{
	struct rxr_flow *flow;

	spin_lock_bh(&rxr_lock);
	flow = sk->sk_rx_reserve;
	if (flow) {
		rxr_flow_set_mark(flow, flow->mark & ~mark);
		if (flow->mark) {
			flow = NULL;
		} else {
			sk->sk_rx_reserve = NULL;
			sock_reset_flag(sk, SOCK_RX_RESERVE);
		}
	}
	spin_unlock_bh(&rxr_lock);
	if (flow) {
		rxr_sk_unhold_rcvbuf(sk, flow);
		rxr_flow_release(flow);
	}
}

/**
 * __rxr_sk_listen() - a socket started to listen
 * @sk: the socket
 *
 * A listener is no priority flow (SO_RX_RESERVE refuses one with -EINVAL):
 * a priority socket that starts listening loses its marks and its pool,
 * and getsockopt() reads 0.  The sockets it accepts are ordinary ones.
 * Called through rxr_sk_listen().
 *
 * Context: process context, socket locked.
 */
void __rxr_sk_listen(struct sock *sk)
{
	if (sock_flag(sk, SOCK_RX_RESERVE))
		rxr_sk_unmark(sk, RXR_MARK_SOCKOPT | RXR_MARK_MEMALLOC);
}
EXPORT_SYMBOL_GPL(__rxr_sk_listen);

/**
 * rxr_sk_memalloc() - follow sk_set_memalloc() and sk_clear_memalloc()
 * @sk: the socket
 * @on: whether %SOCK_MEMALLOC was set or cleared
 *
 * Every TCP socket the kernel marks for the pfmemalloc reserve becomes a
 * priority flow, while net.core.rx_reserve_enabled is 1.  If its flow
 * cannot be allocated, the socket still has mainline's shared reserve.
 *
 * Context: process context; allocates without I/O.
 */
void rxr_sk_memalloc(struct sock *sk, bool on)
{
	unsigned int noio;
	int err;

	if (sk->sk_type != SOCK_STREAM || sk->sk_protocol != IPPROTO_TCP)
		return;
	if (on) {
		/* The caller sets up the socket that reclaim writes through:
		 * nothing allocated for it may wait on I/O.
		 */
		noio = memalloc_noio_save();
		err = rxr_sk_mark(sk, RXR_MARK_MEMALLOC);
		memalloc_noio_restore(noio);
		if (err == -ENOMEM)
			atomic64_inc(&rxr_nopool_enomem);
	} else {
		rxr_sk_unmark(sk, RXR_MARK_MEMALLOC);
	}
}
EXPORT_SYMBOL_GPL(rxr_sk_memalloc);

/**
 * rxr_sk_setsockopt() - SO_RX_RESERVE
 * @sk: the socket
 * @on: make it a priority flow, or stop
 *
 * Context: process context, socket locked.
 * The pools are a global resource: only CAP_NET_ADMIN in the initial user
 * namespace may draw on them.  A user namespace's root, which anyone can
 * become with unshare(), is refused.
 *
 * Return: 0; -EOPNOTSUPP for a socket that is not TCP over IPv4 or IPv6;
 * -EPERM without CAP_NET_ADMIN in the initial user namespace; -EINVAL on a
 * listening socket; -ENOPROTOOPT while net.core.rx_reserve_enabled is 0;
 * -ENOMEM.
 */
int rxr_sk_setsockopt(struct sock *sk, bool on)
{
	if (sk->sk_type != SOCK_STREAM || sk->sk_protocol != IPPROTO_TCP ||
	    (sk->sk_family != AF_INET && sk->sk_family != AF_INET6))
		return -EOPNOTSUPP;
	if (!sockopt_capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!on) {
		rxr_sk_unmark(sk, RXR_MARK_SOCKOPT);
		return 0;
	}
	if (sk->sk_state == TCP_LISTEN)
		return -EINVAL;
	return rxr_sk_mark(sk, RXR_MARK_SOCKOPT);
}
EXPORT_SYMBOL_GPL(rxr_sk_setsockopt);

/**
 * rxr_sk_destruct() - a priority socket is being destroyed
 * @sk: the socket
 *
 * Context: any context.
 */
void rxr_sk_destruct(struct sock *sk)
{
	rxr_sk_unmark(sk, RXR_MARK_MEMALLOC | RXR_MARK_SOCKOPT);
}
EXPORT_SYMBOL_GPL(rxr_sk_destruct);

/**
 * rxr_sk_clone() - a priority socket was cloned
 * @newsk: the clone, which does not share the flow
 *
 * A listening socket cannot be a priority flow, and children of other
 * sockets must not share their parent's flow.
 */
void rxr_sk_clone(struct sock *newsk)
{
	newsk->sk_rx_reserve = NULL;
	sock_reset_flag(newsk, SOCK_RX_RESERVE);
}
EXPORT_SYMBOL_GPL(rxr_sk_clone);

/**
 * rxr_sk_flow() - the flow of a socket
 * @sk: the socket
 *
 * Return: the flow, or NULL.
 */
VISIBLE_IF_KUNIT struct rxr_flow *rxr_sk_flow(const struct sock *sk)
{
	return READ_ONCE(sk->sk_rx_reserve);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_sk_flow);

/**
 * rxr_nr_flows() - number of priority flows
 *
 * Return: the number of flows that exist.
 */
VISIBLE_IF_KUNIT unsigned int rxr_nr_flows(void)
{
	return READ_ONCE(rxr_nflows);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_nr_flows);

/* Driver API */

/**
 * rxr_available() - whether rx-reserve runs on this system
 *
 * A driver sets up nothing for rx-reserve (no reserve queue, no state)
 * where this is false: the kernel was booted with rx_reserve=off.
 *
 * Return: false after rx_reserve=off.
 */
bool rxr_available(void)
{
	return !rxr_off;
}
EXPORT_SYMBOL_GPL(rxr_available);

/**
 * rxr_dev_attach() - a driver offers a device to rx-reserve
 * @dev: the device, registered
 * @caps: its reserve queue and filter slots; copied
 *
 * From now on, the core steers priority flows registered with @dev into
 * its filter slots, if it has any, and the driver may use the rest of
 * the driver API.  The private flag starts on.
 *
 * Context: process context, RTNL held.
 * Return: 0; -EINVAL for a bad @caps or an unregistered @dev; -EOPNOTSUPP
 * for slots on a device without ntuple filters, or after rx_reserve=off;
 * -EBUSY if already attached; -ENOMEM.
 */
int rxr_dev_attach(struct net_device *dev, const struct rxr_dev_caps *caps)
{
	struct rxr_flow **owner = NULL;
	unsigned long *installed = NULL;
	struct rxr_dev *rdev, *new;
	int err = 0;

	ASSERT_RTNL();
	if (rxr_off)
		return -EOPNOTSUPP;
	if (caps->reserve_queue < -1 ||
	    caps->reserve_queue >= (int)dev->num_rx_queues ||
	    caps->hw_slots > RXR_DEV_MAX_SLOTS ||
	    (caps->hw_slots && caps->reserve_queue < 0) ||
	    caps->slot_base > U32_MAX - RXR_DEV_MAX_SLOTS)
		return -EINVAL;
	if (caps->hw_slots && !dev->ethtool_ops->set_rxnfc)
		return -EOPNOTSUPP;

	new = rxr_dev_alloc(dev, GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	if (caps->hw_slots) {
		owner = kcalloc(caps->hw_slots, sizeof(*owner), GFP_KERNEL);
		installed = bitmap_zalloc(caps->hw_slots, GFP_KERNEL);
		if (!owner || !installed) {
			err = -ENOMEM;
			goto out;
		}
	}

	spin_lock_bh(&rxr_lock);
	rdev = rxr_dev_get_locked(dev, &new);
	if (!rdev) {
		err = -EINVAL;
	} else if (rdev->attached) {
		err = -EBUSY;
	} else {
		rdev->caps = *caps;
		WRITE_ONCE(rdev->resv_base, caps->slot_base);
		WRITE_ONCE(rdev->resv_n, caps->hw_slots);
		swap(rdev->slot_owner, owner);
		swap(rdev->slot_installed, installed);
		rdev->enabled = true;
		rdev->attached = true;
		rxr_dev_kick(rdev);
		if (rdev->nflows)
			queue_work(system_wq, &rxr_pool_work);
	}
	spin_unlock_bh(&rxr_lock);
out:
	kfree(owner);
	bitmap_free(installed);
	if (new)
		rxr_dev_free_rcu(&new->rcu);
	return err;
}
EXPORT_SYMBOL_GPL(rxr_dev_attach);

/**
 * rxr_dev_detach() - a driver takes a device back
 * @dev: the device
 *
 * Removes the core's filters from the device and stops lending.  Flows stay
 * registered, in software.
 *
 * Context: process context, RTNL held.
 */
void rxr_dev_detach(struct net_device *dev)
{
	struct rxr_flow *flow;
	struct rxr_dev *rdev;

	ASSERT_RTNL();
	rdev = rxr_dev_deref(dev);
	if (!rdev || !rdev->attached)
		return;
	spin_lock_bh(&rxr_lock);
	rdev->enabled = false;
	spin_unlock_bh(&rxr_lock);
	rxr_dev_sync(rdev);
	spin_lock_bh(&rxr_lock);
	rxr_emergency_set(rdev, false, jiffies, "disabled");
	rdev->attached = false;
	memset(&rdev->caps, 0, sizeof(rdev->caps));
	rdev->caps.reserve_queue = -1;
	/* The queues may change before the next attach. */
	list_for_each_entry(flow, &rdev->flows, dev_node)
		WRITE_ONCE(flow->rxq, -1);
	spin_unlock_bh(&rxr_lock);
}
EXPORT_SYMBOL_GPL(rxr_dev_detach);

/**
 * rxr_dev_set_enabled() - the rx-reserve private flag
 * @dev: the device
 * @on: switch rx-reserve on or off on @dev
 *
 * Off takes the device's flows out of hardware, stops lending and leaves
 * emergency mode; on puts them back.  Returns when the filters are in
 * place.
 *
 * Context: process context, RTNL held.
 * Return: 0, or -EOPNOTSUPP if no driver attached @dev.
 */
int rxr_dev_set_enabled(struct net_device *dev, bool on)
{
	struct rxr_flow *flow;
	struct rxr_dev *rdev;

	ASSERT_RTNL();
	rdev = rxr_dev_deref(dev);
	if (!rdev || !rdev->attached)
		return on ? -EOPNOTSUPP : 0;
	spin_lock_bh(&rxr_lock);
	rdev->enabled = on;
	if (!on)
		rxr_emergency_set(rdev, false, jiffies, "disabled");
	list_for_each_entry(flow, &rdev->flows, dev_node)
		flow->hw_failed = false;
	spin_unlock_bh(&rxr_lock);
	rxr_dev_sync(rdev);
	return 0;
}
EXPORT_SYMBOL_GPL(rxr_dev_set_enabled);

/**
 * rxr_dev_enabled() - the rx-reserve private flag of a device
 * @dev: the device
 *
 * Return: true if a driver attached @dev and the flag is on.
 */
bool rxr_dev_enabled(const struct net_device *dev)
{
	bool on;

	rcu_read_lock();
	on = rxr_dev_on_rcu(dev);
	rcu_read_unlock();
	return on;
}
EXPORT_SYMBOL_GPL(rxr_dev_enabled);

/**
 * rxr_dev_active() - whether a driver has priority flows to serve
 * @dev: the device
 *
 * Context: any context.
 * Return: true if @dev is attached and enabled and has priority flows.
 */
bool rxr_dev_active(const struct net_device *dev)
{
	struct rxr_dev *rdev;
	bool on = false;

	if (!rxr_active())
		return false;
	rcu_read_lock();
	rdev = rxr_dev_on_rcu(dev);
	on = rdev && READ_ONCE(rdev->nflows);
	rcu_read_unlock();
	return on;
}
EXPORT_SYMBOL_GPL(rxr_dev_active);

/**
 * rxr_dev_pools_cover() - whether a device's pools are its reserve
 * @dev: the device, or NULL
 *
 * True while @dev is attached and enabled, has priority flows, and every
 * one of them has a pool that serves it there (in a filter slot or in
 * software).  A flow without a pool still relies on mainline's pfmemalloc
 * reserve, and so does the device then.  rxr_rx_gfp() reads it.
 *
 * Context: any context.
 * Return: true if @dev's regular RX buffers can do without the
 * pfmemalloc reserve.
 */
bool rxr_dev_pools_cover(const struct net_device *dev)
{
	struct rxr_dev *rdev;
	unsigned int n;
	bool on = false;

	if (!dev)
		return false;
	rcu_read_lock();
	rdev = rxr_dev_on_rcu(dev);
	if (rdev) {
		n = READ_ONCE(rdev->nflows);
		on = n && READ_ONCE(rdev->hw.n) + READ_ONCE(rdev->sw.n) == n;
	}
	rcu_read_unlock();
	return on;
}
EXPORT_SYMBOL_GPL(rxr_dev_pools_cover);

/**
 * rxr_dev_emergency() - whether a device is in emergency mode
 * @dev: the device
 *
 * In emergency mode a driver never leaves an RX ring empty: when it cannot
 * allocate, it reposts the buffer of a non-priority packet in place and
 * drops the packet.
 *
 * Context: any context.
 * Return: true in emergency mode.
 */
bool rxr_dev_emergency(const struct net_device *dev)
{
	struct rxr_dev *rdev;
	bool on = false;

	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev)
		on = READ_ONCE(rdev->emergency);
	rcu_read_unlock();
	return on;
}
EXPORT_SYMBOL_GPL(rxr_dev_emergency);

/* Device unregister, which also runs when a namespace goes away. */

/*
 * Register every priority socket again with the device that receives its
 * route.  Process context; allocates nothing.
 */
static void rxr_resync_flows(void)
{
	struct rxr_flow *flow;
	struct sock *sk;

	for (flow = rxr_next_sk_flow(NULL, &sk); flow;
	     flow = rxr_next_sk_flow(flow, &sk)) {
		__rxr_sk_update(sk);
		sock_put(sk);
	}
}

static int rxr_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct rxr_flow *flow, *tmp;
	struct rxr_dev *rdev;

	/* A bond's active slave changed, or a device joined or left an
	 * upper device: the flows' receiving devices may have moved.
	 */
	if (event == NETDEV_BONDING_FAILOVER || event == NETDEV_CHANGEUPPER) {
		rxr_resync_flows();
		return NOTIFY_DONE;
	}
	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;

	spin_lock_bh(&rxr_lock);
	rdev = rxr_dev_deref(dev);
	if (!rdev) {
		spin_unlock_bh(&rxr_lock);
		return NOTIFY_DONE;
	}
	list_for_each_entry_safe(flow, tmp, &rdev->flows, dev_node)
		__rxr_flow_unbind(flow);
	if (dev->reg_state == NETREG_REGISTERED) {
		/*
		 * Moving to another namespace: the flows were the old one's,
		 * the driver's attachment stays.
		 */
		spin_unlock_bh(&rxr_lock);
		return NOTIFY_OK;
	}
	rxr_emergency_set(rdev, false, jiffies, "unregister");
	rdev->dead = true;
	rdev->attached = false;
	list_del(&rdev->node);
	RCU_INIT_POINTER(dev->rx_reserve, NULL);
	spin_unlock_bh(&rxr_lock);
	rxr_dev_put(rdev);
	return NOTIFY_OK;
}

static struct notifier_block rxr_netdev_nb = {
	.notifier_call = rxr_netdev_event,
};

static int __init rxr_init(void)
{
	int err;

	if (rxr_off)
		pr_info("rx-reserve: off (rx_reserve=off)\n");
	BUILD_BUG_ON(sizeof(struct rxr_flow_key) !=
		     sizeof(struct rxr_dev *) + sizeof(struct rxr_tuple));
	err = rhashtable_init(&rxr_flow_ht, &rxr_flow_ht_params);
	if (err)
		return err;
	err = register_netdevice_notifier(&rxr_netdev_nb);
	if (err)
		goto err_ht;
	err = rxr_user_init();
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	unregister_netdevice_notifier(&rxr_netdev_nb);
err_ht:
	rhashtable_destroy(&rxr_flow_ht);
	return err;
}
device_initcall(rxr_init);
