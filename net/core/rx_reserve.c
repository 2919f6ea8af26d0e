// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve: priority flows, their registration with the device their
 * route uses, exact-match steering slots, the software fallback and
 * emergency mode.  See Documentation/networking/rx-reserve.rst.
 */

#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_macvlan.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rhashtable.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/notifier.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/vmstat.h>
#include <kunit/visibility.h>
#include <net/bonding.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "rx_reserve_priv.h"

#define CREATE_TRACE_POINTS
#include <trace/events/rx_reserve.h>

DEFINE_STATIC_KEY_FALSE(rxr_flows_key);
EXPORT_SYMBOL_GPL(rxr_flows_key);

/*
 * rxr_lock protects the flow and device lists, each flow's registration
 * (rdev, tuple, slot, set index), each device's sets, hash chains (for
 * writers) and slot owners, and sk->sk_rx_reserve.
 */
static DEFINE_SPINLOCK(rxr_lock);
static LIST_HEAD(rxr_flow_list);
static LIST_HEAD(rxr_dev_list);
static unsigned int rxr_nflows;

/*
 * The classifier: every registered flow of every device, keyed by device
 * and tuple, so a lookup costs the same with 1 flow or 10,000.
 */
static struct rhashtable rxr_flow_ht;
static const struct rhashtable_params rxr_flow_ht_params = {
	.key_len		= sizeof(struct rxr_flow_key),
	.key_offset		= offsetof(struct rxr_flow, key),
	.head_offset		= offsetof(struct rxr_flow, hnode),
	.automatic_shrinking	= true,
};

/* Global counters, shown in /proc/net/rx_reserve. */
static atomic_t rxr_pages_total;
static atomic64_t rxr_nopool_cap;
static atomic64_t rxr_nopool_enomem;
static atomic64_t rxr_nodev;
static atomic64_t rxr_nohash;
static atomic64_t rxr_nolower;

/* rx_reserve=off on the command line: no device attaches, no flow exists. */
static bool rxr_off __ro_after_init;

/* Sysctls, see rxr_sysctl[]. */
static int rxr_enabled __read_mostly = 1;
static int rxr_pool_pages __read_mostly = 256;
static int rxr_max_pages __read_mostly = 16384;
static int rxr_fallback __read_mostly = RXR_FALLBACK_WEIGHTED;
static int rxr_emergency_hold_ms __read_mostly = 1000;

static atomic_t rxr_key_pending;
static void rxr_key_work_fn(struct work_struct *work);
static DECLARE_WORK(rxr_key_work, rxr_key_work_fn);

#define RXR_MONITOR_PERIOD	(HZ / 10)
static void rxr_monitor_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rxr_monitor_work, rxr_monitor_fn);

/* Pools are allocated by this work, and retried by the monitor. */
#define RXR_POOL_RETRY		HZ
static void rxr_pool_work_fn(struct work_struct *work);
static DECLARE_WORK(rxr_pool_work, rxr_pool_work_fn);
static unsigned long rxr_pool_retry_at;

static void rxr_key_work_fn(struct work_struct *work)
{
	while (atomic_dec_if_positive(&rxr_key_pending) >= 0)
		static_branch_dec(&rxr_flows_key);
}

static struct rxr_dev *rxr_dev_deref(const struct net_device *dev)
{
	return rcu_dereference_check(dev->rx_reserve,
				     lockdep_is_held(&rxr_lock) ||
				     lockdep_rtnl_is_held());
}

/* Flow sets: arrays a driver's RX path reads under RCU. */

static void rxr_set_add(struct rxr_flow_set *set, struct rxr_flow *flow)
{
	flow->set_idx = -1;
	if (!flow->pool || set->n >= RXR_DEV_MAX_FLOWS)
		return;
	WRITE_ONCE(set->flow[set->n], flow);
	flow->set_idx = set->n;
	WRITE_ONCE(set->n, set->n + 1);
}

static void rxr_set_del(struct rxr_flow_set *set, struct rxr_flow *flow)
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

static void rxr_dev_put(struct rxr_dev *rdev)
{
	if (refcount_dec_and_test(&rdev->refcnt))
		call_rcu(&rdev->rcu, rxr_dev_free_rcu);
}

static void rxr_dev_sync_work(struct work_struct *work);
static void rxr_dev_ntf_work(struct work_struct *work);
static void rxr_emergency_set(struct rxr_dev *rdev, bool on,
			      unsigned long now, const char *reason);

static struct rxr_dev *rxr_dev_alloc(struct net_device *dev, gfp_t gfp)
{
	struct rxr_dev *rdev;
	int cpu;

	rdev = kzalloc(sizeof(*rdev), gfp);
	if (!rdev)
		return NULL;
	rdev->stats = alloc_percpu_gfp(struct rxr_dev_pcpu_stats, gfp);
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
static void rxr_dev_notify(struct rxr_dev *rdev)
{
	if (rdev->dead)
		return;
	refcount_inc(&rdev->refcnt);
	if (!queue_work(system_wq, &rdev->ntf_work))
		rxr_dev_put(rdev);
}

/* Queue the steering work of a device with slots.  rxr_lock held. */
static void rxr_dev_kick(struct rxr_dev *rdev)
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

static void rxr_flow_put(struct rxr_flow *flow)
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
static bool rxr_flow_wants_pool(const struct rxr_flow *flow)
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

/* TCP offers the peer a window of what the receive buffer may hold: keep
 * it to half the flow's pool, or the frames the window lets in find no
 * pool page on the reserve queue and are dropped.  The other half covers
 * the buffers posted on the reserve queue.
 */
static void rxr_sk_fit_rcvbuf(struct sock *sk, const struct rxr_pool *pool)
{
	u64 lim = (u64)rxr_pool_size(pool) * PAGE_SIZE / 2;

	WRITE_ONCE(sk->sk_rcvbuf, clamp_t(u64, lim, SOCK_MIN_RCVBUF, INT_MAX));
	sk->sk_userlocks |= SOCK_RCVBUF_LOCK;
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
				rxr_sk_fit_rcvbuf(sk, next->pool);
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
	if (READ_ONCE(flow->pool))
		rxr_sk_fit_rcvbuf(sk, flow->pool);
	return 0;
}

static void rxr_sk_unmark(struct sock *sk, u8 mark)
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
	if (flow)
		rxr_flow_release(flow);
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
VISIBLE_IF_KUNIT void rxr_dev_sync(struct rxr_dev *rdev)
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

static void rxr_dev_sync_work(struct work_struct *work)
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
static void rxr_dev_range(struct net_device *dev, u32 *base, u32 *n)
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
	struct rxr_dev *rdev;
	bool on;

	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	on = rdev && rdev->attached && READ_ONCE(rdev->enabled);
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
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev)
		on = rdev->attached && READ_ONCE(rdev->enabled) &&
		     READ_ONCE(rdev->nflows);
	rcu_read_unlock();
	return on;
}
EXPORT_SYMBOL_GPL(rxr_dev_active);

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

/* Whether @flow's pool lends to regular queue @rxq: the one its packets
 * arrive on, or any until one has arrived.
 */
static bool rxr_flow_lends_to(const struct rxr_flow *flow, unsigned int rxq)
{
	int home = READ_ONCE(flow->rxq);

	return home < 0 || home == (int)rxq;
}

/* A page from the pools of @set, from @start on; with @lend, lent within
 * each pool's lending limit, for regular queue @rxq, or for any if -1.
 */
static struct page *rxr_set_take(struct rxr_flow_set *set, unsigned int start,
				 bool lend, int rxq, struct rxr_pool **pool)
{
	unsigned int i, n = READ_ONCE(set->n);
	struct rxr_flow *flow;
	struct page *page;

	for (i = 0; i < n; i++) {
		flow = READ_ONCE(set->flow[(start + i) % n]);
		if (!flow || !flow->pool ||
		    (lend && rxq >= 0 && !rxr_flow_lends_to(flow, rxq)))
			continue;
		page = lend ? rxr_pool_lend(flow->pool) :
			      rxr_pool_take(flow->pool);
		if (page) {
			*pool = flow->pool;
			return page;
		}
	}
	return NULL;
}

/**
 * rxr_queue_page() - a page to post on the reserve queue
 * @dev: the device
 *
 * Takes a page from the pools of the flows steered to the reserve queue,
 * in turn; on a device without filter slots, from the pools of all its
 * flows.  Allocates nothing.  The caller gives the page back with
 * put_page(), directly or by freeing the skb that carries it.
 *
 * Context: any context.
 * Return: a page, or NULL when those pools are empty.
 */
struct page *rxr_queue_page(struct net_device *dev)
{
	struct page *page = NULL;
	struct rxr_dev *rdev;
	struct rxr_pool *pool;
	unsigned int start;

	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev && rdev->attached && READ_ONCE(rdev->enabled)) {
		start = atomic_inc_return(&rdev->hand);
		if (rdev->caps.hw_slots)
			page = rxr_set_take(&rdev->hw, start, false, 0, &pool);
		else
			page = rxr_set_take(&rdev->sw, start, false, 0, &pool);
	}
	rcu_read_unlock();
	return page;
}
EXPORT_SYMBOL_GPL(rxr_queue_page);

/**
 * rxr_queue_page_fits() - whether a reserve queue page still belongs there
 * @dev: the device
 * @page: a page from rxr_queue_page(), posted on the reserve queue
 *
 * A page posted on the reserve queue belongs to the pool of a flow that
 * was steered there.  Once that flow has left the queue (its socket
 * closed, its slot taken back, rx-reserve disabled on @dev), the page only
 * holds memory: its pool may be gone, with every other page of it back in
 * the page allocator.  A driver that can take a posted buffer back gives
 * it back with put_page(), when a filter to the reserve queue is deleted,
 * and reposts what rxr_queue_page() finds instead.  The check compares
 * pool addresses: a page of a pool freed since then may pass for a page of
 * a new pool at the same address, and is then used once more, and freed
 * when its frame is.
 *
 * Context: any context.
 * Return: true if @page is from the pool of a flow rxr_queue_page() takes
 * from on @dev.
 */
bool rxr_queue_page_fits(struct net_device *dev, const struct page *page)
{
	const struct rxr_pool *pool = rxr_page_pool(page);
	struct rxr_flow_set *set;
	struct rxr_flow *flow;
	struct rxr_dev *rdev;
	bool fits = false;
	unsigned int i, n;

	if (!pool)
		return false;
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev && rdev->attached && READ_ONCE(rdev->enabled)) {
		set = rdev->caps.hw_slots ? &rdev->hw : &rdev->sw;
		n = READ_ONCE(set->n);
		for (i = 0; i < n; i++) {
			flow = READ_ONCE(set->flow[i]);
			if (flow && flow->pool == pool) {
				fits = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return fits;
}
EXPORT_SYMBOL_GPL(rxr_queue_page_fits);

/**
 * rxr_parse() - the TCP flow of a received frame
 * @data: the frame, from its Ethernet header
 * @len: bytes at @data
 * @t: filled with the flow
 *
 * Reads an Ethernet header, one VLAN tag, an IPv4 header (not a fragment)
 * or an IPv6 header directly followed by TCP, and the TCP ports.
 *
 * Return: true if the frame is TCP and @t was filled.
 */
bool rxr_parse(const void *data, unsigned int len, struct rxr_tuple *t)
{
	const struct ethhdr *eth = data;
	unsigned int off = ETH_HLEN;
	__be16 proto, ports[2];

	if (len < ETH_HLEN)
		return false;
	proto = eth->h_proto;
	if (proto == htons(ETH_P_8021Q) || proto == htons(ETH_P_8021AD)) {
		const struct vlan_hdr *vh = data + off;

		if (len < off + VLAN_HLEN)
			return false;
		proto = vh->h_vlan_encapsulated_proto;
		off += VLAN_HLEN;
	}

	memset(t, 0, sizeof(*t));
	if (proto == htons(ETH_P_IP)) {
		const struct iphdr *iph = data + off;
		__be32 addr;

		if (len < off + sizeof(*iph) || iph->version != 4 ||
		    iph->ihl < 5 || iph->protocol != IPPROTO_TCP ||
		    ip_is_fragment(iph))
			return false;
		off += iph->ihl * 4;
		memcpy(&addr, &iph->saddr, sizeof(addr));
		ipv6_addr_set_v4mapped(addr, &t->saddr);
		memcpy(&addr, &iph->daddr, sizeof(addr));
		ipv6_addr_set_v4mapped(addr, &t->daddr);
		t->family = AF_INET;
	} else if (proto == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6 = data + off;

		if (len < off + sizeof(*ip6) || ip6->version != 6 ||
		    ip6->nexthdr != IPPROTO_TCP)
			return false;
		off += sizeof(*ip6);
		memcpy(&t->saddr, &ip6->saddr, sizeof(t->saddr));
		memcpy(&t->daddr, &ip6->daddr, sizeof(t->daddr));
		t->family = AF_INET6;
	} else {
		return false;
	}
	if (len < off + sizeof(ports))
		return false;
	memcpy(ports, data + off, sizeof(ports));
	t->sport = ports[0];
	t->dport = ports[1];
	return true;
}
EXPORT_SYMBOL_GPL(rxr_parse);

/* rxr_classify() on a device's state.  RCU read side. */
static struct rxr_flow *__rxr_classify(struct rxr_dev *rdev, int rxq,
				       const void *data, unsigned int len)
{
	struct rxr_flow *flow;
	struct rxr_flow_key key;

	key.rdev = rdev;
	if (!rxr_parse(data, len, &key.tuple))
		return NULL;
	flow = rhashtable_lookup(&rxr_flow_ht, &key, rxr_flow_ht_params);
	if (flow) {
		atomic_inc(&flow->hits);
		if (rxq >= 0 && rxq != rdev->caps.reserve_queue &&
		    READ_ONCE(flow->slot) < 0 && READ_ONCE(flow->rxq) != rxq)
			WRITE_ONCE(flow->rxq, rxq);
	}
	return flow;
}

/**
 * rxr_classify() - the priority flow a received frame belongs to
 * @dev: the device it arrived on
 * @rxq: the RX queue it arrived on, or -1 if the driver cannot tell
 * @data: the frame, from its Ethernet header
 * @len: bytes at @data: the headers are enough
 *
 * Meant for the driver's RX path, before any skb is built: one hash
 * lookup of @dev and the frame's 5-tuple among the registered flows.  A
 * flow in software learns its regular queue from its frames: its pool
 * lends to that queue only (rxr_lend_page()).
 *
 * Context: RCU read side, or BH disabled (a NAPI poll): the flow stays
 * valid until it ends, since flows are freed after an RCU grace period.
 * Return: the flow, or NULL for a frame of no priority flow.
 */
struct rxr_flow *rxr_classify(const struct net_device *dev, int rxq,
			      const void *data, unsigned int len)
{
	struct rxr_flow *flow = NULL;
	struct rxr_dev *rdev;

	/* A NAPI poll holds no rcu_read_lock(): take it for lockdep's sake,
	 * the caller's BH-disabled section keeps the flow alive after.
	 */
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev)
		flow = __rxr_classify(rdev, rxq, data, len);
	rcu_read_unlock();
	return flow;
}
EXPORT_SYMBOL_GPL(rxr_classify);

static unsigned int rxr_pick(struct rxr_flow_set *set, int policy)
{
	unsigned int i, n = READ_ONCE(set->n);
	u32 total = 0, r;
	struct rxr_flow *flow;

	if (policy == RXR_FALLBACK_RANDOM)
		return get_random_u32_below(n);

	/* Weight each flow by the packets it received lately, plus one. */
	for (i = 0; i < n; i++) {
		flow = READ_ONCE(set->flow[i]);
		if (flow)
			total += min(atomic_read(&flow->hits), 1 << 20) + 1;
	}
	if (!total)
		return 0;
	r = get_random_u32_below(total);
	for (i = 0; i < n; i++) {
		flow = READ_ONCE(set->flow[i]);
		if (!flow)
			continue;
		total = min(atomic_read(&flow->hits), 1 << 20) + 1;
		if (r < total)
			return i;
		r -= total;
	}
	return 0;
}

/**
 * rxr_lend_page() - lend a regular RX queue a page of a priority pool
 * @dev: the device whose own allocation failed
 * @rxq: the regular RX queue the page is for
 * @posted: buffers the queue has posted now
 *
 * Arcangeli's fallback: picks one of @dev's flows that are not in a
 * hardware slot (net.core.rx_reserve_fallback says how) and takes a page of
 * its pool; if that pool is empty, already lends half of its pages
 * (rxr_pool_lend()), or its flow's frames arrive on another queue
 * (rxr_classify() learns which), tries the others in turn: a page lent
 * to a queue its flow never reaches would only be recycled in place.
 * When none lends, the device's rings stall when empty (@ring_stall in
 * &struct rxr_dev_caps) and the queue has fewer than %RXR_LEND_LOW
 * buffers posted, a steered flow's pool lends, within the same limit: a
 * queue that runs dry stalls QEMU's NIC models, the reserve queue with it.
 * rxr_rx_verdict() decides what the frame that lands in the page does,
 * and ends the loan when the page leaves the ring; a driver that frees a
 * lent buffer without a frame calls rxr_page_unlend().  Allocates
 * nothing.
 *
 * Context: any context.
 * Return: a page, or NULL.
 */
struct page *rxr_lend_page(struct net_device *dev, unsigned int rxq,
			   unsigned int posted)
{
	struct rxr_pool *pool = NULL;
	struct page *page = NULL;
	struct rxr_dev *rdev;
	unsigned int n;

	if (!rxr_active())
		return NULL;
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev && rdev->attached && READ_ONCE(rdev->enabled)) {
		n = READ_ONCE(rdev->sw.n);
		if (n)
			page = rxr_set_take(&rdev->sw,
					    rxr_pick(&rdev->sw,
						     READ_ONCE(rxr_fallback)),
					    true, rxq, &pool);
		if (!page && rdev->caps.ring_stall && posted < RXR_LEND_LOW &&
		    (int)rxq != rdev->caps.reserve_queue)
			page = rxr_set_take(&rdev->hw,
					    atomic_inc_return(&rdev->hand),
					    true, -1, &pool);
	}
	if (page) {
		rxr_dev_count(dev, RXR_STAT_LENT, 1);
		if (trace_rxr_lend_enabled())
			trace_rxr_lend(dev, rxr_pool_free_pages(pool));
	}
	rcu_read_unlock();
	return page;
}
EXPORT_SYMBOL_GPL(rxr_lend_page);

/**
 * rxr_flow_owns() - whether a lent page's frame belongs to its owner
 * @flow: what rxr_classify() said of the frame
 * @tag: the pool rxr_lend_page() lent the page from
 *
 * Only the owner's frames are passed up: a pool bounds what its own flow
 * holds, so one busy priority flow cannot drain another's reserve.
 *
 * Return: true if @flow owns @tag.
 */
bool rxr_flow_owns(const struct rxr_flow *flow, const struct rxr_pool *tag)
{
	return flow && tag && flow->pool == tag;
}
EXPORT_SYMBOL_GPL(rxr_flow_owns);

/* Whether @flow takes its pages on @rdev's reserve queue: steered there,
 * or any flow on a device without filter slots (rxr_queue_page()).
 */
static bool rxr_flow_on_reserve(const struct rxr_dev *rdev,
				const struct rxr_flow *flow)
{
	return !rdev->caps.hw_slots || READ_ONCE(flow->slot) >= 0;
}

/* Whether pool page @tag still belongs in RX queue @rxq of @rdev: on the
 * reserve queue, a page of a flow rxr_queue_page() takes from; on a
 * regular queue, a page of a software flow that lends to @rxq, or of a
 * steered flow on a device whose rings stall when empty.  RCU read side.
 */
static bool rxr_buf_fits(struct rxr_dev *rdev, unsigned int rxq,
			 const struct rxr_pool *tag)
{
	bool reserve = (int)rxq == rdev->caps.reserve_queue;
	struct rxr_flow *flow;
	unsigned int i, n;

	if (!rdev->attached || !READ_ONCE(rdev->enabled))
		return false;
	n = READ_ONCE(rdev->hw.n);
	for (i = 0; i < n; i++) {
		flow = READ_ONCE(rdev->hw.flow[i]);
		if (flow && flow->pool == tag)
			return reserve || rdev->caps.ring_stall;
	}
	n = READ_ONCE(rdev->sw.n);
	for (i = 0; i < n; i++) {
		flow = READ_ONCE(rdev->sw.flow[i]);
		if (flow && flow->pool == tag)
			return reserve ? !rdev->caps.hw_slots :
					 rxr_flow_lends_to(flow, rxq);
	}
	return false;
}

/**
 * rxr_lent_fits() - whether a lent page still belongs on its queue
 * @dev: the device
 * @rxq: the regular RX queue whose ring holds the page
 * @tag: the pool rxr_lend_page() lent the page from
 *
 * Once a lent page's flow has left @dev (a route change), or turned out to
 * arrive on another queue, the page only holds back that flow's lending:
 * the driver gives it back (rxr_page_unlend() and put_page()) and posts
 * what a refill finds instead, if anything.  A steered flow's pool lends
 * to any regular queue that runs low (rxr_lend_page()): its pages fit
 * there on a device whose rings stall when empty.
 *
 * Context: RCU read side, or BH disabled (a NAPI poll).
 * Return: true if @tag's flow is a software flow of @dev that lends to
 * @rxq, or, on such a device, a flow steered to its reserve queue.
 */
bool rxr_lent_fits(struct net_device *dev, unsigned int rxq,
		   const struct rxr_pool *tag)
{
	struct rxr_dev *rdev;
	bool fits = false;

	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev && (int)rxq != rdev->caps.reserve_queue)
		fits = rxr_buf_fits(rdev, rxq, tag);
	rcu_read_unlock();
	return fits;
}
EXPORT_SYMBOL_GPL(rxr_lent_fits);

/**
 * rxr_rx_verdict() - what a driver does with a received buffer
 * @dev: the device
 * @rxq: the RX queue the buffer was posted on
 * @page: the head page of the frame's first buffer, or NULL for a buffer
 *	that is not in a page of its own (a kmalloc()ed skb head)
 * @data: the frame, from its Ethernet header
 * @len: bytes at @data: the headers are enough
 * @rb: filled with what the verdict saw, for rxr_rx_up()
 *
 * The one place rx-reserve's RX policy lives (the table in rx-reserve.rst):
 *
 * - A buffer of the driver's own, on a regular queue, on a device out of
 *   emergency mode: %RXR_PASS, with no classification.
 * - A pool page carries its owner's frame up (%RXR_PASS_POOL): on a
 *   regular queue, the flow whose pool lent it; on the reserve queue,
 *   any flow the queue takes its pages for.  Any other frame in a pool
 *   page is copied up (%RXR_COPY), a non-priority frame only out of
 *   emergency mode (%RXR_RECYCLE in it): a pool page never goes up with
 *   another flow's frame.
 * - In emergency mode, on a device that carries priority flows, a
 *   non-priority frame is dropped and its buffer reposted in place
 *   (%RXR_RECYCLE); a device without flows never drops a frame here.
 *
 * A pool page that no longer belongs in its ring (its flow left, took a
 * slot or moved queue, rx-reserve went off), and a page lent to a regular
 * queue once the device is out of emergency mode, is marked
 * @rb->release: it goes back to its pool and the driver refills the
 * slot with its own allocation, which lends again if that fails.
 * Counts copies and recycles.
 *
 * Context: NAPI, or BH disabled.
 * Return: the verdict.
 */
enum rxr_verdict rxr_rx_verdict(struct net_device *dev, unsigned int rxq,
				struct page *page, const void *data,
				unsigned int len, struct rxr_rx_buf *rb)
{
	const struct rxr_pool *tag = page ? rxr_page_pool(page) : NULL;
	enum rxr_verdict v = RXR_PASS;
	struct rxr_flow *flow;
	struct rxr_dev *rdev;
	bool reserve, emerg;

	rb->flow = NULL;
	rb->pool = tag;
	rb->release = false;
	rb->shared = false;
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (!rdev) {
		/* A pool page left in a ring goes back once. */
		if (tag) {
			rb->release = true;
			v = RXR_COPY;
		}
		goto out;
	}
	reserve = (int)rxq == rdev->caps.reserve_queue &&
		  READ_ONCE(rdev->enabled);
	emerg = READ_ONCE(rdev->emergency) && READ_ONCE(rdev->nflows);
	if (!tag && !reserve && !emerg)
		goto out;
	flow = __rxr_classify(rdev, rxq, data, len);
	rb->flow = flow;
	if (tag) {
		rb->shared = reserve;
		if (flow && (flow->pool == tag ||
			     (reserve && rxr_flow_on_reserve(rdev, flow)))) {
			v = RXR_PASS_POOL;
			goto out;
		}
		v = flow || !emerg ? RXR_COPY : RXR_RECYCLE;
		/* A lent page goes back once memory is fine again. */
		rb->release = (!reserve && !emerg) ||
			      !rxr_buf_fits(rdev, rxq, tag);
	} else if (!flow && emerg) {
		v = RXR_RECYCLE;
	}
	if (v == RXR_COPY)
		rxr_dev_count(dev, RXR_STAT_COPIED, 1);
	else if (v == RXR_RECYCLE)
		rxr_dev_count(dev, RXR_STAT_RECYCLED, 1);
out:
	/* A lent page that goes up or back leaves its ring: the loan ends. */
	if (tag && (v == RXR_PASS_POOL || rb->release))
		rxr_page_unlend(page);
	rcu_read_unlock();
	return v;
}
EXPORT_SYMBOL_GPL(rxr_rx_verdict);

/**
 * rxr_rx_up() - the last look at an skb that rx-reserve judged
 * @dev: the device
 * @skb: the frame, built by the driver, about to go up
 * @rb: rxr_rx_verdict()'s view of its first buffer
 *
 * Every pool page in @skb (its head and its fragments: a frame may span
 * buffers) must be its flow's, or, on the reserve queue, of a pool the
 * queue takes pages from for a priority flow.  Marks an skb that carries
 * pool pages pfmemalloc, so that only a memalloc socket or the owner
 * takes it, and counts it.  A frame that carries another flow's pool page
 * is counted and refused: the driver drops it.
 *
 * Context: NAPI, or BH disabled.
 * Return: true if the driver passes @skb up; false: it frees it.
 */
bool rxr_rx_up(struct net_device *dev, struct sk_buff *skb,
	       const struct rxr_rx_buf *rb)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);
	bool pool = false, other = false;
	const struct rxr_pool *tag;
	struct page *page;
	unsigned int i;

	for (i = 0; i <= shinfo->nr_frags; i++) {
		if (i < shinfo->nr_frags)
			page = compound_head(skb_frag_page(&shinfo->frags[i]));
		else if (skb->head_frag)
			page = virt_to_head_page(skb->head);
		else
			break;
		tag = rxr_page_pool(page);
		if (!tag)
			continue;
		pool = true;
		if (!rb->flow || (tag != rb->flow->pool && !rb->shared))
			other = true;
	}
	if (other) {
		rxr_dev_count(dev, RXR_STAT_POOL_UP_OTHER, 1);
		return false;
	}
	if (pool) {
		skb->pfmemalloc = true;
		rxr_dev_count(dev, RXR_STAT_POOL_UP, 1);
	}
	return true;
}
EXPORT_SYMBOL_GPL(rxr_rx_up);

/* Enough of a frame for the classifier: Ethernet, a VLAN tag, IPv4 with
 * options or IPv6, and the TCP ports.
 */
#define RXR_SKB_HDR_LEN	128

/* Whether @skb or an skb on its frag_list holds a pool page other than
 * @flow's: sets *@pool if it holds any.  Ends the loan of the pages it
 * looks at.
 */
static bool rxr_skb_other(struct sk_buff *skb, const struct rxr_flow *flow,
			  bool *pool)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);
	const struct rxr_pool *tag;
	struct sk_buff *frag;
	struct page *page;
	unsigned int i;

	for (i = 0; i < shinfo->nr_frags; i++) {
		/* A fragment may sit in a tail page of a driver's
		 * compound page, whose private field is the folio's.
		 */
		page = compound_head(skb_frag_page(&shinfo->frags[i]));
		tag = rxr_page_pool(page);
		if (!tag)
			continue;
		/* Up or back, it left its ring. */
		rxr_page_unlend(page);
		*pool = true;
		if (!flow || tag != flow->pool)
			return true;
	}
	skb_walk_frags(skb, frag)
		if (rxr_skb_other(frag, flow, pool))
			return true;
	return false;
}

/**
 * rxr_rx_skb() - the verdict on an skb a driver built itself
 * @dev: the device
 * @rxq: the RX queue it arrived on
 * @skb: a frame whose first buffer rxr_rx_verdict() passed (%RXR_PASS),
 *	built the driver's way, from its Ethernet header on
 *
 * A frame that spans buffers may have landed in a page lent to the ring
 * after its first buffer.  Such a frame goes up in the pool pages only if
 * it is their flow's (marked pfmemalloc); another frame is copied up out
 * of emergency mode and dropped in it, as rxr_rx_verdict() decides for a
 * first buffer.  A frame without pool pages, nearly all of them, costs a
 * look at the page of each fragment and no classification.
 *
 * Context: NAPI, while rxr_active().
 * Return: @skb, its copy (@skb freed), or NULL (@skb freed: dropped).
 */
struct sk_buff *rxr_rx_skb(struct net_device *dev, unsigned int rxq,
			   struct sk_buff *skb)
{
	u8 hdr[RXR_SKB_HDR_LEN];
	struct rxr_flow *flow = NULL;
	struct sk_buff *copy = NULL;
	bool pool = false, emerg;
	struct rxr_dev *rdev;
	const void *data;
	unsigned int len;

	if (!rxr_skb_other(skb, NULL, &pool))
		return skb;
	/* The headers may be in a fragment: virtio-net's page_to_skb()
	 * leaves only the Ethernet header in the head of a large frame.
	 */
	len = min_t(unsigned int, skb->len, sizeof(hdr));
	data = skb_header_pointer(skb, 0, len, hdr);
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev && data)
		flow = __rxr_classify(rdev, rxq, data, len);
	pool = false;
	if (!rxr_skb_other(skb, flow, &pool)) {
		skb->pfmemalloc = true;
		rxr_dev_count(dev, RXR_STAT_POOL_UP, 1);
		rcu_read_unlock();
		return skb;
	}
	emerg = rdev && READ_ONCE(rdev->emergency) && READ_ONCE(rdev->nflows);
	rcu_read_unlock();
	if (flow || !emerg)
		copy = skb_copy(skb, GFP_ATOMIC | __GFP_NOWARN);
	/* The pool pages go back with @skb. */
	kfree_skb(skb);
	if (copy)
		rxr_dev_count(dev, RXR_STAT_COPIED, 1);
	else
		rxr_dev_count(dev, flow ? RXR_STAT_DROPPED :
			      RXR_STAT_RECYCLED, 1);
	return copy;
}
EXPORT_SYMBOL_GPL(rxr_rx_skb);

/**
 * rxr_sk_tx_queue() - the TX queue for a priority socket's packets
 * @dev: the device a packet leaves on
 * @sk: the packet's socket, full
 *
 * A backend that steers a flow by the queue it last came from (the
 * host's tun, for instance) then delivers the flow's replies on the
 * reserve queue's pair too.
 *
 * Context: RCU read side (the transmit path).
 * Return: the reserve queue of @dev if @sk is a priority flow steered to
 * it in hardware, else -1.
 */
int rxr_sk_tx_queue(const struct net_device *dev, const struct sock *sk)
{
	struct rxr_flow *flow = READ_ONCE(sk->sk_rx_reserve);
	struct rxr_flow *leg;
	struct rxr_dev *rdev;

	if (!flow)
		return -1;
	rdev = READ_ONCE(flow->key.rdev);
	/* Under a bond whose slaves all receive, @dev may be a leg's. */
	if (rdev && rdev->dev != dev) {
		rdev = NULL;
		list_for_each_entry_rcu(leg, &flow->legs, leg_node) {
			rdev = READ_ONCE(leg->key.rdev);
			if (rdev && rdev->dev == dev) {
				flow = leg;
				break;
			}
			rdev = NULL;
		}
	}
	if (!rdev || READ_ONCE(flow->slot) < 0 || !READ_ONCE(rdev->enabled))
		return -1;
	return rdev->caps.reserve_queue;
}
EXPORT_SYMBOL_GPL(rxr_sk_tx_queue);

/**
 * rxr_dev_count() - count driver events
 * @dev: the device
 * @stat: the event
 * @n: how many
 *
 * Context: any context.
 */
void rxr_dev_count(struct net_device *dev, enum rxr_dev_stat stat, u32 n)
{
	struct rxr_dev_pcpu_stats *s;
	struct rxr_dev *rdev;
	unsigned long flags;

	if (WARN_ON_ONCE(stat >= RXR_STAT_NUM))
		return;
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev) {
		s = get_cpu_ptr(rdev->stats);
		flags = u64_stats_update_begin_irqsave(&s->syncp);
		u64_stats_add(&s->stat[stat], n);
		u64_stats_update_end_irqrestore(&s->syncp, flags);
		put_cpu_ptr(rdev->stats);
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(rxr_dev_count);

/* Emergency mode */

/**
 * rxr_emergency_next() - emergency mode's next state
 * @on: in emergency mode now
 * @quiet_ms: milliseconds since the last failed RX allocation
 * @hold_ms: net.core.rx_reserve_emergency_hold_ms
 * @free: free pages
 * @min: sum of the zones' min watermarks
 *
 * On below the min watermark (a failed allocation turns it on at once);
 * off only once allocations have succeeded for @hold_ms and free memory
 * is back above the low watermark (min + min / 4).
 *
 * Return: the next state.
 */
VISIBLE_IF_KUNIT bool rxr_emergency_next(bool on, unsigned long quiet_ms,
					 unsigned long hold_ms,
					 unsigned long free, unsigned long min)
{
	if (!on)
		return free < min;
	return quiet_ms < hold_ms || free < min + min / 4;
}
EXPORT_SYMBOL_IF_KUNIT(rxr_emergency_next);

/* rxr_lock held. */
static void rxr_emergency_set(struct rxr_dev *rdev, bool on,
			      unsigned long now, const char *reason)
{
	if (rdev->emergency == on)
		return;
	WRITE_ONCE(rdev->emergency, on);
	if (on) {
		rdev->emergency_since = now;
		rdev->emergency_count++;
	} else {
		rdev->emergency_ms += jiffies_to_msecs(now -
						       rdev->emergency_since);
	}
	trace_rxr_emergency(rdev->dev, on, reason);
	rxr_dev_notify(rdev);
}

/* The monitor's look at one device.  rxr_lock held. */
static void __rxr_dev_emergency_tick(struct rxr_dev *rdev, unsigned long now,
				     unsigned long free, unsigned long min)
{
	unsigned long quiet;
	bool next;

	if (!rdev->attached || !rdev->enabled)
		return;
	quiet = jiffies_to_msecs(now - READ_ONCE(rdev->last_fail));
	/* The watermark puts a device in emergency mode only while it
	 * carries priority flows; its own failed allocations always do.
	 */
	next = rxr_emergency_next(rdev->emergency, quiet,
				  READ_ONCE(rxr_emergency_hold_ms),
				  rdev->nflows ? free : ULONG_MAX, min);
	rxr_emergency_set(rdev, next, now,
			  next ? "watermark" : "recovered");
}

/**
 * rxr_dev_emergency_tick() - the monitor's look at one device
 * @rdev: the device's state
 * @now: jiffies
 * @free: free pages
 * @min: sum of the zones' min watermarks
 */
VISIBLE_IF_KUNIT void rxr_dev_emergency_tick(struct rxr_dev *rdev,
					     unsigned long now,
					     unsigned long free,
					     unsigned long min)
{
	spin_lock_bh(&rxr_lock);
	__rxr_dev_emergency_tick(rdev, now, free, min);
	spin_unlock_bh(&rxr_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_dev_emergency_tick);

/**
 * rxr_rx_alloc_failed() - a driver's RX allocation failed
 * @dev: the device
 *
 * Counts the failure and puts @dev in emergency mode at once.
 *
 * Context: any context.
 */
void rxr_rx_alloc_failed(struct net_device *dev)
{
	struct rxr_dev *rdev;

	rxr_dev_count(dev, RXR_STAT_ALLOC_FAIL, 1);
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev && rdev->attached && READ_ONCE(rdev->enabled)) {
		WRITE_ONCE(rdev->last_fail, jiffies);
		if (!READ_ONCE(rdev->emergency)) {
			spin_lock_bh(&rxr_lock);
			if (!rdev->dead)
				rxr_emergency_set(rdev, true, jiffies,
						  "alloc-fail");
			spin_unlock_bh(&rxr_lock);
			/* A no-op if pending: failures must not starve it. */
			queue_delayed_work(system_wq, &rxr_monitor_work,
					   RXR_MONITOR_PERIOD);
		}
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(rxr_rx_alloc_failed);

/* Halve the recent-packet counts of a device's flows.  rxr_lock held. */
static void __rxr_decay_hits(struct rxr_dev *rdev)
{
	struct rxr_flow *flow;

	list_for_each_entry(flow, &rdev->flows, dev_node)
		atomic_set(&flow->hits, atomic_read(&flow->hits) / 2);
}

/**
 * rxr_decay_hits() - halve the recent-packet counts of a device's flows
 * @rdev: the device's state
 */
VISIBLE_IF_KUNIT void rxr_decay_hits(struct rxr_dev *rdev)
{
	spin_lock_bh(&rxr_lock);
	__rxr_decay_hits(rdev);
	spin_unlock_bh(&rxr_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_decay_hits);

static unsigned long rxr_min_wmark(void)
{
	unsigned long min = 0;
	struct zone *zone;

	for_each_populated_zone(zone)
		min += min_wmark_pages(zone);
	return min;
}

static void rxr_monitor_fn(struct work_struct *work)
{
	unsigned long free = global_zone_page_state(NR_FREE_PAGES);
	unsigned long min = rxr_min_wmark();
	struct rxr_flow *flow;
	struct rxr_dev *rdev;
	bool pools = false;
	bool again;

	spin_lock_bh(&rxr_lock);
	again = rxr_nflows;
	list_for_each_entry(rdev, &rxr_dev_list, node) {
		__rxr_dev_emergency_tick(rdev, jiffies, free, min);
		__rxr_decay_hits(rdev);
		again |= rdev->emergency;
	}
	if (time_after_eq(jiffies, READ_ONCE(rxr_pool_retry_at))) {
		list_for_each_entry(flow, &rxr_flow_list, node) {
			pools = rxr_flow_wants_pool(flow);
			if (pools)
				break;
		}
	}
	spin_unlock_bh(&rxr_lock);
	if (pools)
		queue_work(system_wq, &rxr_pool_work);
	if (again)
		queue_delayed_work(system_wq, &rxr_monitor_work,
				   RXR_MONITOR_PERIOD);
}

/* Counters */

static const char rxr_stat_names[][ETH_GSTRING_LEN] = {
	"rx_reserve_flows_hw",
	"rx_reserve_flows_sw",
	"rx_reserve_flows_nopool",
	"rx_reserve_pool_pages",
	"rx_reserve_pool_free",
	"rx_reserve_steered",
	"rx_reserve_lent",
	"rx_reserve_lent_delivered",
	"rx_reserve_recycled",
	"rx_reserve_dropped",
	"rx_reserve_alloc_fail",
	"rx_reserve_slot_fail",
	"rx_reserve_emergency",
	"rx_reserve_emergency_ms",
	"rx_reserve_pool_up",
	"rx_reserve_pool_up_other",
	"rx_reserve_copied",
};

/**
 * rxr_dev_get_info() - read a device's gauges and counters
 * @rdev: the device's state
 * @info: where to write them
 */
VISIBLE_IF_KUNIT void rxr_dev_get_info(struct rxr_dev *rdev,
				       struct rxr_dev_info *info)
{
	const struct rxr_dev_pcpu_stats *s;
	struct rxr_flow *flow;
	u64 v[RXR_STAT_NUM];
	unsigned int start;
	int cpu, i;

	memset(info, 0, sizeof(*info));
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(rdev->stats, cpu);
		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < RXR_STAT_NUM; i++)
				v[i] = u64_stats_read(&s->stat[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < RXR_STAT_NUM; i++)
			info->stat[i] += v[i];
	}

	spin_lock_bh(&rxr_lock);
	list_for_each_entry(flow, &rdev->flows, dev_node) {
		if (flow->slot >= 0)
			info->flows_hw++;
		else
			info->flows_sw++;
		if (!flow->pool) {
			info->flows_nopool++;
			continue;
		}
		info->pool_pages += rxr_pool_size(flow->pool);
		info->pool_free += rxr_pool_free_pages(flow->pool);
	}
	info->slot_fail = rdev->slot_fail;
	info->emergency = rdev->emergency_count;
	info->emergency_ms = rdev->emergency_ms;
	if (rdev->emergency)
		info->emergency_ms += jiffies_to_msecs(jiffies -
						       rdev->emergency_since);
	spin_unlock_bh(&rxr_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_dev_get_info);

static void rxr_info_to_array(const struct rxr_dev_info *info, u64 *v)
{
	*v++ = info->flows_hw;
	*v++ = info->flows_sw;
	*v++ = info->flows_nopool;
	*v++ = info->pool_pages;
	*v++ = info->pool_free;
	*v++ = info->stat[RXR_STAT_STEERED];
	*v++ = info->stat[RXR_STAT_LENT];
	*v++ = info->stat[RXR_STAT_LENT_DELIVERED];
	*v++ = info->stat[RXR_STAT_RECYCLED];
	*v++ = info->stat[RXR_STAT_DROPPED];
	*v++ = info->stat[RXR_STAT_ALLOC_FAIL];
	*v++ = info->slot_fail;
	*v++ = info->emergency;
	*v++ = info->emergency_ms;
	*v++ = info->stat[RXR_STAT_POOL_UP];
	*v++ = info->stat[RXR_STAT_POOL_UP_OTHER];
	*v = info->stat[RXR_STAT_COPIED];
}

/**
 * rxr_dev_get_state() - the rx-reserve state of a device
 * @dev: the device
 *
 * Return: the state, or NULL; valid under RTNL or RCU.
 */
VISIBLE_IF_KUNIT struct rxr_dev *rxr_dev_get_state(const struct net_device *dev)
{
	return rcu_dereference_check(dev->rx_reserve,
				     lockdep_rtnl_is_held() ||
				     rcu_read_lock_held());
}
EXPORT_SYMBOL_IF_KUNIT(rxr_dev_get_state);

/**
 * rxr_ethtool_sset_count() - number of rx-reserve counters for ethtool -S
 * @dev: the device
 *
 * Return: the number of ``rx_reserve_`` counters, the same for every
 * device.
 */
int rxr_ethtool_sset_count(const struct net_device *dev)
{
	return ARRAY_SIZE(rxr_stat_names);
}
EXPORT_SYMBOL_GPL(rxr_ethtool_sset_count);

/**
 * rxr_ethtool_get_strings() - names of the rx-reserve counters
 * @dev: the device
 * @data: the driver's string cursor, advanced past the names
 */
void rxr_ethtool_get_strings(const struct net_device *dev, u8 **data)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rxr_stat_names); i++)
		ethtool_puts(data, rxr_stat_names[i]);
}
EXPORT_SYMBOL_GPL(rxr_ethtool_get_strings);

/**
 * rxr_ethtool_get_stats() - values of the rx-reserve counters
 * @dev: the device
 * @data: the driver's value cursor, advanced past the values
 *
 * Context: any context but hard IRQ; RTNL may be held.
 */
void rxr_ethtool_get_stats(const struct net_device *dev, u64 **data)
{
	struct rxr_dev_info info = {};
	struct rxr_dev *rdev;

	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev)
		rxr_dev_get_info(rdev, &info);
	rcu_read_unlock();
	rxr_info_to_array(&info, *data);
	*data += ARRAY_SIZE(rxr_stat_names);
}
EXPORT_SYMBOL_GPL(rxr_ethtool_get_stats);

static_assert(ARRAY_SIZE(rxr_stat_names) == RXR_ETHTOOL_NSTATS);

/* Copy @rdev's flows to @fs, at most @max.  rxr_lock held. */
static unsigned int rxr_dev_flows(struct rxr_dev *rdev,
				  struct rxr_flow_state *fs, unsigned int max)
{
	struct rxr_flow *flow;
	unsigned int n = 0;

	list_for_each_entry(flow, &rdev->flows, dev_node) {
		if (n == max)
			break;
		fs[n].tuple = flow->key.tuple;
		fs[n].ino = flow->ino;
		fs[n].slot = flow->slot;
		fs[n].mark = flow->mark;
		if (flow->pool) {
			fs[n].pool_pages = rxr_pool_size(flow->pool);
			fs[n].pool_free = rxr_pool_free_pages(flow->pool);
		}
		n++;
	}
	return n;
}

/**
 * rxr_dev_read_state() - a device's rx-reserve, flows included
 * @dev: the device
 * @st: filled; rxr_dev_free_state() frees what it holds
 *
 * For the ethtool netlink view.  The flows are those registered when the
 * copy is made.
 *
 * Context: process context, RTNL held.
 * Return: 0; -EOPNOTSUPP if no driver attached @dev; -ENOMEM.
 */
int rxr_dev_read_state(struct net_device *dev, struct rxr_dev_state *st)
{
	struct rxr_dev_info info;
	struct rxr_dev *rdev;
	unsigned int n;

	ASSERT_RTNL();
	memset(st, 0, sizeof(*st));
	rdev = rxr_dev_deref(dev);
	if (!rdev || !rdev->attached)
		return -EOPNOTSUPP;
	/* Flows come and go under rxr_lock: room for a few more. */
	n = READ_ONCE(rdev->nflows) + 8;
	st->flows = kvcalloc(n, sizeof(*st->flows), GFP_KERNEL);
	if (!st->flows)
		return -ENOMEM;

	rxr_dev_get_info(rdev, &info);
	rxr_info_to_array(&info, st->stat);
	spin_lock_bh(&rxr_lock);
	st->nflows = rxr_dev_flows(rdev, st->flows, n);
	st->enabled = rdev->enabled;
	st->emergency = rdev->emergency;
	st->reserve_queue = rdev->caps.reserve_queue;
	st->slots = rdev->caps.hw_slots;
	st->slot_base = rdev->caps.slot_base;
	st->approx_slots = rdev->caps.approx_slots;
	spin_unlock_bh(&rxr_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(rxr_dev_read_state);

/**
 * rxr_dev_free_state() - free what rxr_dev_read_state() allocated
 * @st: the state
 */
void rxr_dev_free_state(struct rxr_dev_state *st)
{
	kvfree(st->flows);
	st->flows = NULL;
	st->nflows = 0;
}
EXPORT_SYMBOL_GPL(rxr_dev_free_state);

/* /proc/net/rx_reserve */

static void rxr_proc_flow(struct seq_file *seq, const struct net_device *dev,
			  const struct rxr_flow *flow)
{
	const struct rxr_tuple *t = &flow->key.tuple;
	static const char * const marks[] = {
		"none", "memalloc", "sockopt", "memalloc,sockopt",
	};

	if (t->family == AF_INET)
		seq_printf(seq, "flow %s family 4 local %pI4:%u remote %pI4:%u",
			   dev->name, &t->daddr.s6_addr32[3], ntohs(t->dport),
			   &t->saddr.s6_addr32[3], ntohs(t->sport));
	else
		seq_printf(seq,
			   "flow %s family 6 local [%pI6c]:%u remote [%pI6c]:%u",
			   dev->name, &t->daddr, ntohs(t->dport), &t->saddr,
			   ntohs(t->sport));
	seq_printf(seq, " slot %d pool %u free %u lent %u mark %s\n",
		   flow->slot, flow->pool ? rxr_pool_size(flow->pool) : 0,
		   flow->pool ? rxr_pool_free_pages(flow->pool) : 0,
		   flow->pool ? rxr_pool_lent(flow->pool) : 0,
		   marks[flow->mark & 3]);
}

static int rxr_proc_show(struct seq_file *seq, void *v)
{
	struct net *net = seq->private;
	struct rxr_dev_info info;
	struct net_device *dev;
	struct rxr_flow *flow;
	struct rxr_dev *rdev;
	u64 val[ARRAY_SIZE(rxr_stat_names)];
	u64 pool_free = 0;
	unsigned int i;

	spin_lock_bh(&rxr_lock);
	list_for_each_entry(flow, &rxr_flow_list, node)
		if (flow->pool)
			pool_free += rxr_pool_free_pages(flow->pool);
	spin_unlock_bh(&rxr_lock);
	seq_printf(seq,
		   "flows %u pool_pages %d pool_free %llu pages_out %u max_pages %d nopool_cap %lld nopool_enomem %lld nodev %lld nohash %lld nolower %lld active %d\n",
		   READ_ONCE(rxr_nflows), atomic_read(&rxr_pages_total),
		   pool_free, rxr_pool_pages_out(), READ_ONCE(rxr_max_pages),
		   atomic64_read(&rxr_nopool_cap),
		   atomic64_read(&rxr_nopool_enomem),
		   atomic64_read(&rxr_nodev), atomic64_read(&rxr_nohash),
		   atomic64_read(&rxr_nolower),
		   rxr_active());

	rtnl_lock();
	for_each_netdev(net, dev) {
		rdev = rtnl_dereference(dev->rx_reserve);
		if (!rdev)
			continue;
		rxr_dev_get_info(rdev, &info);
		rxr_info_to_array(&info, val);
		seq_printf(seq, "dev %s attached %d enabled %d in_emergency %d",
			   dev->name, rdev->attached, rdev->enabled,
			   rdev->emergency);
		seq_printf(seq, " reserve_queue %d slots %u slot_kind %s",
			   rdev->caps.reserve_queue, rdev->caps.hw_slots,
			   rdev->caps.approx_slots ? "approx" : "exact");
		for (i = 0; i < ARRAY_SIZE(rxr_stat_names); i++)
			seq_printf(seq, " %s %llu",
				   rxr_stat_names[i] + strlen("rx_reserve_"),
				   val[i]);
		seq_putc(seq, '\n');

		spin_lock_bh(&rxr_lock);
		list_for_each_entry(flow, &rdev->flows, dev_node)
			rxr_proc_flow(seq, dev, flow);
		spin_unlock_bh(&rxr_lock);
	}
	rtnl_unlock();
	return 0;
}

static int __net_init rxr_net_init(struct net *net)
{
	if (!proc_create_net_single("rx_reserve", 0444, net->proc_net,
				    rxr_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit rxr_net_exit(struct net *net)
{
	remove_proc_entry("rx_reserve", net->proc_net);
}

static struct pernet_operations rxr_net_ops = {
	.init = rxr_net_init,
	.exit = rxr_net_exit,
};

/* Device unregister, which also runs when a namespace goes away. */

/*
 * Register every priority socket again with the device that receives its
 * route.  Process context; allocates nothing.
 */
static void rxr_resync_flows(void)
{
	struct rxr_flow *flow;
	unsigned int i, j, n;
	struct sock *sk;

	spin_lock_bh(&rxr_lock);
	n = rxr_nflows;
	spin_unlock_bh(&rxr_lock);
	for (i = 0; i < n; i++) {
		sk = NULL;
		j = 0;
		spin_lock_bh(&rxr_lock);
		list_for_each_entry(flow, &rxr_flow_list, node) {
			if (j++ != i)
				continue;
			if (flow->sk &&
			    refcount_inc_not_zero(&flow->sk->sk_refcnt))
				sk = flow->sk;
			break;
		}
		spin_unlock_bh(&rxr_lock);
		if (!sk)
			continue;
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

/* Sysctls */

/* Every flow lets go of its pool: its socket is left as if never marked. */
static void rxr_release_all(void)
{
	struct rxr_flow *flow;
	unsigned int i, n;
	struct sock *sk;

	spin_lock_bh(&rxr_lock);
	n = rxr_nflows;
	spin_unlock_bh(&rxr_lock);
	for (i = 0; i < n; i++) {
		sk = NULL;
		spin_lock_bh(&rxr_lock);
		list_for_each_entry(flow, &rxr_flow_list, node) {
			if (flow->sk &&
			    refcount_inc_not_zero(&flow->sk->sk_refcnt)) {
				sk = flow->sk;
				break;
			}
		}
		spin_unlock_bh(&rxr_lock);
		if (!sk)
			break;
		lock_sock(sk);
		rxr_sk_unmark(sk, RXR_MARK_MEMALLOC | RXR_MARK_SOCKOPT);
		release_sock(sk);
		sock_put(sk);
	}
}

static int rxr_enabled_handler(const struct ctl_table *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	int err;

	err = proc_dointvec_minmax(table, write, buffer, lenp, ppos);
	if (!err && write && !READ_ONCE(rxr_enabled))
		rxr_release_all();
	return err;
}

static int rxr_one = 1;
static int rxr_enabled_max = 1;
static int rxr_pool_max = RXR_POOL_MAX_PAGES;
static int rxr_max_pages_max;
static int rxr_fallback_max = RXR_FALLBACK_WEIGHTED;
static int rxr_hold_min = 10;
static int rxr_hold_max = 60000;

static struct ctl_table rxr_sysctl[] = {
	{
		.procname	= "rx_reserve_enabled",
		.data		= &rxr_enabled,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= rxr_enabled_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &rxr_enabled_max,
	},
	{
		.procname	= "rx_reserve_pool_pages",
		.data		= &rxr_pool_pages,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rxr_one,
		.extra2		= &rxr_pool_max,
	},
	{
		.procname	= "rx_reserve_max_pages",
		.data		= &rxr_max_pages,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &rxr_max_pages_max,
	},
	{
		.procname	= "rx_reserve_fallback",
		.data		= &rxr_fallback,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &rxr_fallback_max,
	},
	{
		.procname	= "rx_reserve_emergency_hold_ms",
		.data		= &rxr_emergency_hold_ms,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rxr_hold_min,
		.extra2		= &rxr_hold_max,
	},
};

/**
 * rxr_set_fallback_policy() - set net.core.rx_reserve_fallback
 * @policy: &enum rxr_fallback_policy
 */
VISIBLE_IF_KUNIT void rxr_set_fallback_policy(int policy)
{
	WRITE_ONCE(rxr_fallback, policy);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_set_fallback_policy);

static int __init rxr_setup(char *str)
{
	bool on;

	if (kstrtobool(str, &on))
		return 0;
	rxr_off = !on;
	return 1;
}
__setup("rx_reserve=", rxr_setup);

static int __init rxr_init(void)
{
	int err;

	if (rxr_off) {
		/* Off until the next boot: the sysctl cannot turn it on. */
		rxr_enabled = 0;
		rxr_enabled_max = 0;
		pr_info("rx-reserve: off (rx_reserve=off)\n");
	}

	BUILD_BUG_ON(sizeof(struct rxr_flow_key) !=
		     sizeof(struct rxr_dev *) + sizeof(struct rxr_tuple));
	err = rhashtable_init(&rxr_flow_ht, &rxr_flow_ht_params);
	if (err)
		return err;
	/* At most half of memory may be reserved. */
	rxr_max_pages_max = min_t(unsigned long, totalram_pages() / 2,
				  INT_MAX);
	rxr_max_pages = min(rxr_max_pages, rxr_max_pages_max);

	err = register_pernet_subsys(&rxr_net_ops);
	if (err)
		goto err_ht;
	err = register_netdevice_notifier(&rxr_netdev_nb);
	if (err)
		goto err_pernet;
	if (!register_net_sysctl_sz(&init_net, "net/core", rxr_sysctl,
				    ARRAY_SIZE(rxr_sysctl))) {
		err = -ENOMEM;
		goto err_notifier;
	}
	return 0;

err_notifier:
	unregister_netdevice_notifier(&rxr_netdev_nb);
err_pernet:
	unregister_pernet_subsys(&rxr_net_ops);
err_ht:
	rhashtable_destroy(&rxr_flow_ht);
	return err;
}
device_initcall(rxr_init);
