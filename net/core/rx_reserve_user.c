// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve's user-facing side: the per-device counters for ethtool -S
 * and the ethtool netlink view, /proc/net/rx_reserve, the net.core
 * sysctls and the rx_reserve= boot parameter.
 */

#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/mm.h>
#include <linux/proc_fs.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/sysctl.h>
#include <kunit/visibility.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "rx_reserve_priv.h"

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
	"rx_reserve_queue_alloc",
	"rx_reserve_priority",
};

/* Per-queue counters, rx<N>_rxr_<name>: &enum rxr_dev_stat's order. */
static const char * const rxr_q_stat_names[RXR_STAT_NUM] = {
	[RXR_STAT_STEERED]		= "steered",
	[RXR_STAT_LENT]			= "lent",
	[RXR_STAT_LENT_DELIVERED]	= "lent_delivered",
	[RXR_STAT_RECYCLED]		= "recycled",
	[RXR_STAT_DROPPED]		= "dropped",
	[RXR_STAT_ALLOC_FAIL]		= "alloc_fail",
	[RXR_STAT_POOL_UP]		= "pool_up",
	[RXR_STAT_POOL_UP_OTHER]	= "pool_up_other",
	[RXR_STAT_COPIED]		= "copied",
	[RXR_STAT_QUEUE_ALLOC]		= "queue_alloc",
	[RXR_STAT_PRIORITY]		= "priority",
};

/**
 * rxr_dev_read_queue() - read the counters of one RX queue
 * @rdev: the device's state
 * @rxq: the queue
 * @v: where to add them, &enum rxr_dev_stat's order
 */
VISIBLE_IF_KUNIT void rxr_dev_read_queue(struct rxr_dev *rdev,
					 unsigned int rxq,
					 u64 v[RXR_STAT_NUM])
{
	const struct rxr_dev_pcpu_stats *s;
	u64 c[RXR_STAT_NUM];
	unsigned int start;
	int cpu, i;

	if (rxq >= rdev->nq)
		return;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(rdev->stats, cpu);
		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < RXR_STAT_NUM; i++)
				c[i] = u64_stats_read(&s->stat[rxq *
							       RXR_STAT_NUM +
							       i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < RXR_STAT_NUM; i++)
			v[i] += c[i];
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxr_dev_read_queue);

/* Read @rdev's gauges and counters into @info, the device's counters as
 * the sum of its queues', and the first @nqv queues' counters into @qv as
 * well: one read of each queue, so that the totals are the sum of the
 * queues shown.
 */
static void rxr_dev_read_info(struct rxr_dev *rdev, struct rxr_dev_info *info,
			      u64 *qv, unsigned int nqv)
{
	struct rxr_flow *flow;
	u64 c[RXR_STAT_NUM];
	unsigned int q, i;

	memset(info, 0, sizeof(*info));
	for (q = 0; q < rdev->nq; q++) {
		memset(c, 0, sizeof(c));
		rxr_dev_read_queue(rdev, q, c);
		for (i = 0; i < RXR_STAT_NUM; i++)
			info->stat[i] += c[i];
		if (q < nqv)
			memcpy(qv + q * RXR_STAT_NUM, c, sizeof(c));
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

/**
 * rxr_dev_get_info() - read a device's gauges and counters
 * @rdev: the device's state
 * @info: where to write them
 */
VISIBLE_IF_KUNIT void rxr_dev_get_info(struct rxr_dev *rdev,
				       struct rxr_dev_info *info)
{
	rxr_dev_read_info(rdev, info, NULL, 0);
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
	*v++ = info->stat[RXR_STAT_COPIED];
	*v++ = info->stat[RXR_STAT_QUEUE_ALLOC];
	*v = info->stat[RXR_STAT_PRIORITY];
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

/* The queues ethtool -S shows: the real ones, RTNL held. */
static unsigned int rxr_ethtool_nq(const struct net_device *dev)
{
	return min(dev->real_num_rx_queues, RXR_MAX_QUEUES);
}

/**
 * rxr_ethtool_sset_count() - number of rx-reserve counters for ethtool -S
 * @dev: the device
 *
 * Context: RTNL held, as for the driver's get_sset_count().
 * Return: the number of ``rx_reserve_`` counters, the same for every
 * device, and of per-queue ``rx<N>_rxr_`` counters, for each of the
 * device's RX queues.
 */
int rxr_ethtool_sset_count(const struct net_device *dev)
{
	return ARRAY_SIZE(rxr_stat_names) + rxr_ethtool_nq(dev) * RXR_STAT_NUM;
}
EXPORT_SYMBOL_GPL(rxr_ethtool_sset_count);

/**
 * rxr_ethtool_get_strings() - names of the rx-reserve counters
 * @dev: the device
 * @data: the driver's string cursor, advanced past the names
 *
 * Context: RTNL held.
 */
void rxr_ethtool_get_strings(const struct net_device *dev, u8 **data)
{
	unsigned int i, q;

	for (i = 0; i < ARRAY_SIZE(rxr_stat_names); i++)
		ethtool_puts(data, rxr_stat_names[i]);
	for (q = 0; q < rxr_ethtool_nq(dev); q++)
		for (i = 0; i < RXR_STAT_NUM; i++)
			ethtool_sprintf(data, "rx%u_rxr_%s", q,
					rxr_q_stat_names[i]);
}
EXPORT_SYMBOL_GPL(rxr_ethtool_get_strings);

/**
 * rxr_ethtool_get_stats() - values of the rx-reserve counters
 * @dev: the device
 * @data: the driver's value cursor, advanced past the values
 *
 * Context: RTNL held; any context but hard IRQ.
 */
void rxr_ethtool_get_stats(const struct net_device *dev, u64 **data)
{
	u64 *v = *data + ARRAY_SIZE(rxr_stat_names);
	unsigned int nq = rxr_ethtool_nq(dev);
	struct rxr_dev_info info = {};
	struct rxr_dev *rdev;

	memset(v, 0, nq * RXR_STAT_NUM * sizeof(*v));
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev)
		rxr_dev_read_info(rdev, &info, v, nq);
	rcu_read_unlock();
	rxr_info_to_array(&info, *data);
	*data = v + nq * RXR_STAT_NUM;
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
	st->nq = min(dev->real_num_rx_queues, rdev->nq);
	st->qstat = kvcalloc(st->nq, sizeof(*st->qstat), GFP_KERNEL);
	if (!st->flows || !st->qstat) {
		rxr_dev_free_state(st);
		return -ENOMEM;
	}

	rxr_dev_read_info(rdev, &info, (u64 *)st->qstat, st->nq);
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
	kvfree(st->qstat);
	st->qstat = NULL;
	st->nq = 0;
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
		   "flows %u pool_pages %d pool_free %llu pages_out %u max_pages %d nopool_cap %lld nopool_enomem %lld nodev %lld nohash %lld nolower %lld rcvbuf_holds %lld heads %u heads_used %lld heads_missed %lld active %d\n",
		   READ_ONCE(rxr_nflows), atomic_read(&rxr_pages_total),
		   pool_free, rxr_pool_pages_out(), READ_ONCE(rxr_max_pages),
		   atomic64_read(&rxr_nopool_cap),
		   atomic64_read(&rxr_nopool_enomem),
		   atomic64_read(&rxr_nodev), atomic64_read(&rxr_nohash),
		   atomic64_read(&rxr_nolower),
		   atomic64_read(&rxr_rcvbuf_holds), rxr_heads_level(),
		   atomic64_read(&rxr_heads_used),
		   atomic64_read(&rxr_heads_missed), rxr_active());

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

/* Sysctls */

/* Every flow lets go of its pool: its socket is left as if never marked. */
static void rxr_release_all(void)
{
	struct rxr_flow *flow;
	struct sock *sk;

	for (flow = rxr_next_sk_flow(NULL, &sk); flow;
	     flow = rxr_next_sk_flow(flow, &sk)) {
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

/**
 * rxr_user_init() - the sysctls and /proc/net/rx_reserve
 *
 * Context: boot, from rxr_init().
 * Return: 0 or a negative errno, with nothing left registered.
 */
int __init rxr_user_init(void)
{
	int err;

	if (rxr_off) {
		/* Off until the next boot: the sysctl cannot turn it on. */
		rxr_enabled = 0;
		rxr_enabled_max = 0;
	}
	/* At most half of memory may be reserved. */
	rxr_max_pages_max = min_t(unsigned long, totalram_pages() / 2,
				  INT_MAX);
	rxr_max_pages = min(rxr_max_pages, rxr_max_pages_max);

	err = register_pernet_subsys(&rxr_net_ops);
	if (err)
		return err;
	if (!register_net_sysctl_sz(&init_net, "net/core", rxr_sysctl,
				    ARRAY_SIZE(rxr_sysctl))) {
		unregister_pernet_subsys(&rxr_net_ops);
		return -ENOMEM;
	}
	return 0;
}
