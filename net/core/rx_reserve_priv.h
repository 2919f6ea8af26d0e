/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rx-reserve internals, shared by net/core/rx_reserve.c,
 * rx_reserve_steer.c, rx_reserve_rx.c, rx_reserve_user.c and the KUnit
 * suite.
 */
#ifndef _NET_CORE_RX_RESERVE_PRIV_H
#define _NET_CORE_RX_RESERVE_PRIV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/rhashtable-types.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/rx_reserve.h>

#define RXR_DEV_MAX_SLOTS	1024
#define RXR_DEV_MAX_FLOWS	64
/* Devices one flow is registered with: the slaves of a bond that all
 * receive (802.3ad, balance-xor, balance-rr, balance-alb, broadcast).
 */
#define RXR_FLOW_MAX_DEVS	8

enum rxr_fallback_policy {
	RXR_FALLBACK_RANDOM,
	RXR_FALLBACK_WEIGHTED,
};

/**
 * struct rxr_flow_key - what the classifier looks a flow up by
 * @rdev: the device the flow is registered with, or NULL
 * @tuple: the flow as received, valid while @rdev is set
 */
struct rxr_flow_key {
	struct rxr_dev *rdev;
	struct rxr_tuple tuple;
};

/**
 * struct rxr_flow - a priority flow
 * @node: entry in the global flow list, under rxr_lock
 * @hnode: entry in the classifier's table, keyed by @key, RCU
 * @dev_node: entry in the device's flow list, under rxr_lock
 * @legs: the flow's legs, under rxr_lock: where several devices receive a
 *	socket's frames (the slaves of a bond in a mode where every slave
 *	receives), the socket's flow is registered with the first and a leg
 *	with each of the others
 * @leg_node: a leg's entry in its socket flow's @legs, under rxr_lock
 * @rcu: frees the flow after the readers of the hash
 * @refcnt: the socket's reference, and the steering work's while it runs
 * @sk: the socket; no reference, cleared when the socket is destroyed
 * @pool: the flow's pool; NULL until the flow is registered with a device
 *	that has rx-reserve, and while it cannot be allocated.  Set once,
 *	under rxr_lock, and never cleared before the flow is freed
 * @key: the device the flow is registered with (or NULL) and the flow as
 *	received there: the classifier's key
 * @slot: the hardware filter slot the flow is in, or -1
 * @set_idx: index in the device's hw set (with a slot) or sw set, or -1
 * @npages: the pages its pool is to have
 * @hw_failed: its filter insert failed; retried when a slot frees up
 * @released: its socket let go of it: no pool is allocated for it now
 * @nopool_counted: a failed pool allocation was counted; retries are not
 * @hits: packets the classifier matched recently, decayed by the monitor
 * @rxq: the regular RX queue its packets last arrived on, -1 until one does
 *	after it was registered, left its slot or its device detached: where
 *	its pool lends
 * @mark: %RXR_MARK_MEMALLOC and %RXR_MARK_SOCKOPT
 * @ino: the socket's inode number, as in /proc/net/tcp
 * @leg: a leg: the registration of a socket's flow with one more device.
 *	It has no socket and no pool of its own: it holds a reference on
 *	its socket flow's pool, and owns that pool's pages as the flow does
 * @rcvbuf_held: rxr_sk_fit_rcvbuf() holds the socket's receive buffer, for
 *	emergency mode; under the socket's lock
 * @rcvbuf_val: the buffer it held it at
 */
struct rxr_flow {
	struct list_head node;
	struct rhash_head hnode;
	struct list_head dev_node;
	struct list_head legs;
	struct list_head leg_node;
	struct rcu_head rcu;
	refcount_t refcnt;
	struct sock *sk;
	struct rxr_pool *pool;
	struct rxr_flow_key key;
	int slot;
	int set_idx;
	unsigned int npages;
	bool hw_failed;
	bool released;
	bool nopool_counted;
	atomic_t hits;
	int rxq;
	u8 mark;
	unsigned long ino;
	bool leg;
	bool rcvbuf_held;
	int rcvbuf_val;
};

/* RX queues counted apart; queues past the last are counted with it. */
#define RXR_MAX_QUEUES	256U

/* A CPU's counters of one device: @stat[q * RXR_STAT_NUM + event]. */
struct rxr_dev_pcpu_stats {
	struct u64_stats_sync syncp;
	u64_stats_t stat[];
};

/**
 * struct rxr_flow_set - flows a device picks pool pages from
 * @n: number of flows in @flow
 * @flow: the flows; read under RCU with READ_ONCE(), an entry may be NULL
 */
struct rxr_flow_set {
	unsigned int n;
	struct rxr_flow *flow[RXR_DEV_MAX_FLOWS];
};

/**
 * struct rxr_dev - rx-reserve state of one net_device
 * @dev: the device; the state lives until it unregisters
 * @node: entry in the global device list, under rxr_lock
 * @rcu: frees the state after its readers
 * @refcnt: the device's reference, and the steering work's while queued
 * @flows: registered flows, under rxr_lock
 * @nflows: number of @flows
 * @hw: flows in a hardware slot, whose pools post the reserve queue
 * @sw: flows in software, whose pools may be lent
 * @hand: round robin over @hw for rxr_queue_page()
 * @caps: what the driver gave in rxr_dev_attach()
 * @resv_base: first ntuple location of the last @caps; kept after a detach
 * @resv_n: number of those locations, kept reserved while the driver has
 *	the device back (link down), so that no administrator's rule sits
 *	there when it attaches again
 * @attached: a driver attached the device
 * @enabled: the rx-reserve private flag
 * @dead: the device is unregistering
 * @emergency: in emergency mode
 * @reclaim: a flow left the reserve queue: the steering work asks the
 *	driver to give back the pages it posted there (&rxr_dev_ops)
 * @emergency_since: jiffies when emergency mode started
 * @last_fail: jiffies of the last failed RX allocation
 * @emergency_count: emergency activations
 * @emergency_ms: milliseconds spent in emergency mode, ended periods
 * @slot_fail: filter inserts that failed
 * @slot_mutex: serialises the steering work's calls into the driver
 * @slot_owner: the flow of each slot, under rxr_lock
 * @slot_installed: slots with a filter in the device, under @slot_mutex
 * @sync_work: installs and removes filters
 * @ntf_work: tells rx-reserve's notifier chain of an emergency transition
 * @stats: the device's counters, per CPU and per RX queue (rxr_dev_count())
 * @nq: RX queues @stats counts: the device's num_rx_queues, at most
 *	%RXR_MAX_QUEUES
 */
struct rxr_dev {
	struct net_device *dev;
	struct list_head node;
	struct rcu_head rcu;
	refcount_t refcnt;
	struct list_head flows;
	unsigned int nflows;
	struct rxr_flow_set hw;
	struct rxr_flow_set sw;
	atomic_t hand;
	struct rxr_dev_caps caps;
	u32 resv_base;
	u32 resv_n;
	bool attached;
	bool enabled;
	bool dead;
	bool emergency;
	bool reclaim;
	unsigned long emergency_since;
	unsigned long last_fail;
	u64 emergency_count;
	u64 emergency_ms;
	u64 slot_fail;
	struct mutex slot_mutex; /* see @slot_mutex above */
	struct rxr_flow **slot_owner;
	unsigned long *slot_installed;
	struct work_struct sync_work;
	struct work_struct ntf_work;
	struct rxr_dev_pcpu_stats __percpu *stats;
	unsigned int nq;
};

/*
 * The state of @dev if a driver attached it and rx-reserve is on there
 * (its private flag), else NULL.  RCU read side.
 */
static inline struct rxr_dev *rxr_dev_on_rcu(const struct net_device *dev)
{
	struct rxr_dev *rdev = rcu_dereference(dev->rx_reserve);

	return rdev && rdev->attached && READ_ONCE(rdev->enabled) ? rdev : NULL;
}

/**
 * struct rxr_dev_info - a snapshot of a device's gauges and counters
 * @flows_hw: flows in a hardware slot
 * @flows_sw: flows in software
 * @flows_nopool: flows without a pool, on mainline's shared reserve
 * @pool_pages: pages of the pools of the device's flows
 * @pool_free: free pages of those pools
 * @stat: the counters of &enum rxr_dev_stat, summed over the queues
 * @slot_fail: filter inserts that failed
 * @emergency: emergency activations
 * @emergency_ms: milliseconds spent in emergency mode
 */
struct rxr_dev_info {
	u64 flows_hw;
	u64 flows_sw;
	u64 flows_nopool;
	u64 pool_pages;
	u64 pool_free;
	u64 stat[RXR_STAT_NUM];
	u64 slot_fail;
	u64 emergency;
	u64 emergency_ms;
};

/* Shared by rx_reserve.c (the registry), rx_reserve_steer.c,
 * rx_reserve_rx.c and rx_reserve_user.c.
 *
 * rxr_lock protects the flow and device lists, each flow's registration
 * (rdev, tuple, slot, set index, legs), each device's sets, hash chains
 * (for writers) and slot owners, and sk->sk_rx_reserve.
 */
extern spinlock_t rxr_lock;
extern struct list_head rxr_flow_list;
extern struct list_head rxr_dev_list;
extern unsigned int rxr_nflows;
extern struct rhashtable rxr_flow_ht;
extern const struct rhashtable_params rxr_flow_ht_params;

/* Global counters, shown in /proc/net/rx_reserve. */
extern atomic_t rxr_pages_total;
extern atomic64_t rxr_nopool_cap;
extern atomic64_t rxr_nopool_enomem;
extern atomic64_t rxr_nodev;
extern atomic64_t rxr_nohash;
extern atomic64_t rxr_nolower;
extern atomic64_t rxr_rcvbuf_holds;
extern atomic64_t rxr_heads_used;
extern atomic64_t rxr_heads_missed;

/* sk_buff heads kept for priority frames (rxr_build_skb()). */
#define RXR_HEADS		64

/* rx_reserve=off on the command line: no device attaches, no flow. */
extern bool rxr_off;

/* The sysctls' values, see rx_reserve_user.c. */
extern int rxr_enabled;
extern int rxr_pool_pages;
extern int rxr_max_pages;
extern int rxr_fallback;
extern int rxr_emergency_hold_ms;

#define RXR_MONITOR_PERIOD	(HZ / 10)
#define RXR_POOL_RETRY		HZ
extern struct delayed_work rxr_monitor_work;
extern struct work_struct rxr_pool_work;
extern struct work_struct rxr_rcvbuf_work;
extern unsigned long rxr_pool_retry_at;

/* rx_reserve.c */
struct rxr_dev *rxr_dev_deref(const struct net_device *dev);
void rxr_set_add(struct rxr_flow_set *set, struct rxr_flow *flow);
void rxr_set_del(struct rxr_flow_set *set, struct rxr_flow *flow);
void rxr_dev_put(struct rxr_dev *rdev);
void rxr_flow_put(struct rxr_flow *flow);
void rxr_dev_kick(struct rxr_dev *rdev);
void rxr_dev_notify(struct rxr_dev *rdev);
bool rxr_flow_wants_pool(const struct rxr_flow *flow);
void rxr_sk_unmark(struct sock *sk, u8 mark);
struct rxr_flow *rxr_next_sk_flow(struct rxr_flow *prev, struct sock **skp);

/* rx_reserve_steer.c */
void rxr_dev_sync(struct rxr_dev *rdev);
void rxr_dev_sync_work(struct work_struct *work);
void rxr_dev_range(struct net_device *dev, u32 *base, u32 *n);

/* rx_reserve_rx.c */
void rxr_dev_count(struct net_device *dev, unsigned int rxq,
		   enum rxr_dev_stat stat, u32 n);
void rxr_emergency_set(struct rxr_dev *rdev, bool on, unsigned long now,
		       const char *reason);
void rxr_monitor_fn(struct work_struct *work);
unsigned int rxr_heads_sync(bool want);
unsigned int rxr_heads_level(void);

/* rx_reserve_user.c */
int rxr_user_init(void);

#if IS_ENABLED(CONFIG_KUNIT)
struct rxr_flow *rxr_flow_create(u8 mark, unsigned int npages);
void rxr_flow_release(struct rxr_flow *flow);
int rxr_flow_fill_pool(struct rxr_flow *flow);
int rxr_flow_bind(struct rxr_flow *flow, struct net_device *dev,
		  const struct rxr_tuple *t);
int rxr_flow_bind_devs(struct rxr_flow *flow, struct net_device **devs,
		       unsigned int n, const struct rxr_tuple *t);
void rxr_flow_unbind(struct rxr_flow *flow);
struct rxr_dev *rxr_dev_get_state(const struct net_device *dev);
void rxr_dev_get_info(struct rxr_dev *rdev, struct rxr_dev_info *info);
void rxr_dev_read_queue(struct rxr_dev *rdev, unsigned int rxq,
			u64 v[RXR_STAT_NUM]);
struct rxr_flow *rxr_sk_flow(const struct sock *sk);
unsigned int rxr_nr_flows(void);
bool rxr_emergency_next(bool on, unsigned long quiet_ms,
			unsigned long hold_ms, unsigned long free,
			unsigned long min);
void rxr_dev_emergency_tick(struct rxr_dev *rdev, unsigned long now,
			    unsigned long free, unsigned long min);
void rxr_set_fallback_policy(int policy);
void rxr_decay_hits(struct rxr_dev *rdev);
void rxr_sk_fit_rcvbuf(struct sock *sk, struct rxr_flow *flow);
struct sk_buff *rxr_head_take(void *data, unsigned int frag_size);
#endif

#endif /* _NET_CORE_RX_RESERVE_PRIV_H */
