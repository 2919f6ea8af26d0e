/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rx-reserve: RX buffers reserved for priority flows, the sockets that
 * network block storage (NBD, iSCSI, NVMe/TCP, swap over NFS) receives on
 * while the machine is out of memory.
 */
#ifndef _NET_RX_RESERVE_H
#define _NET_RX_RESERVE_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/gfp_types.h>
#include <linux/in6.h>
#include <linux/jump_label.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/rx_reserve_pool.h>

struct ethtool_rx_flow_spec;
struct ethtool_rxnfc;
struct net_device;
struct notifier_block;
struct page;
struct rxr_dev;
struct rxr_flow;
struct sk_buff;
struct sock;

/**
 * DOC: rx-reserve priority flows
 *
 * A priority flow is a TCP socket that the kernel marked with
 * sk_set_memalloc() (NBD, iSCSI, NVMe/TCP, swap over NFS), or that a
 * CAP_NET_ADMIN process marked with the SO_RX_RESERVE socket option.  The
 * flow gets its pool when it is marked, and registers with the device its
 * route uses once it has a route and a local port: when it connects, and
 * again whenever the route changes.  It leaves the device on close, on
 * device unregister and on namespace exit, and gives its pool up when the
 * socket is destroyed or unmarked.
 *
 * On a device that a driver attached with rxr_dev_attach(), the core puts
 * each flow in one of the device's exact-match filter slots, steering it
 * to the reserve queue, or, when the slots are used up, an insert fails
 * or the device has none, in software: the driver may then lend the
 * flow's pool pages to its regular queues when its own allocation fails
 * (rxr_lend_page()).
 */

/**
 * struct rxr_tuple - a flow as received: remote to local
 * @saddr: remote address; IPv4 as v4-mapped IPv6
 * @daddr: local address; IPv4 as v4-mapped IPv6
 * @sport: remote port
 * @dport: local port
 * @family: %AF_INET or %AF_INET6
 * @pad: zero
 */
struct rxr_tuple {
	struct in6_addr saddr;
	struct in6_addr daddr;
	__be16 sport;
	__be16 dport;
	u16 family;
	u16 pad;
};

/**
 * struct rxr_dev_ops - callbacks the core drives
 * @reclaim: give back the pool pages posted on the reserve queue @rxq
 *	(a flow whose pool they come from left the queue), for instance by
 *	resetting the queue, and post it again; a driver that can take
 *	posted buffers back one at a time need not offer it.  Process
 *	context, RTNL held.
 */
struct rxr_dev_ops {
	void (*reclaim)(struct net_device *dev, unsigned int rxq);
};

/**
 * struct rxr_dev_caps - what a driver gives the core
 * @reserve_queue: RX queue dedicated to priority flows and posted only
 *	with rxr_queue_page() pages, or -1 for none
 * @hw_slots: exact-match ntuple filters the core may use, 0 for none
 * @slot_base: first ntuple location of the core's range; the core uses
 *	locations @slot_base to @slot_base + @hw_slots - 1 and the
 *	administrator may not
 * @approx_slots: a slot steers the flow's RSS bucket rather than the flow
 *	alone: other flows that hash to the bucket reach the reserve queue
 *	too (struct rxr_rss)
 * @ring_stall: an empty regular RX ring stalls the device's other queues
 *	too, as in QEMU's virtio-net and 82574 models: a regular queue that
 *	runs low borrows from steered flows' pools as well (rxr_lend_page())
 * @ops: the driver's callbacks, or NULL; they outlive the attachment
 */
struct rxr_dev_caps {
	int reserve_queue;
	unsigned int hw_slots;
	unsigned int slot_base;
	bool approx_slots;
	bool ring_stall;
	const struct rxr_dev_ops *ops;
};

/**
 * enum rxr_dev_stat - rx-reserve's events, counted per RX queue
 * @RXR_STAT_STEERED: priority packets received on the reserve queue,
 *	counted by rxr_rx_verdict(): a driver does not count it
 * @RXR_STAT_LENT: pool pages lent to a regular queue (rxr_lend_page())
 * @RXR_STAT_LENT_DELIVERED: lent pages that carried their owner's packet
 *	up (rxr_rx_up())
 * @RXR_STAT_RECYCLED: non-priority packets dropped: the verdict's
 *	%RXR_RECYCLE, or rxr_rx_drop()
 * @RXR_STAT_DROPPED: priority packets dropped for want of a buffer or of
 *	memory (rxr_rx_drop())
 * @RXR_STAT_ALLOC_FAIL: driver RX allocations that failed
 * @RXR_STAT_POOL_UP: frames that went up in a pool page of their own flow
 *	(rxr_rx_up())
 * @RXR_STAT_POOL_UP_OTHER: frames that reached rxr_rx_up() in a pool page
 *	of another flow, and were dropped there; 0 unless a driver skipped
 *	rxr_rx_verdict()
 * @RXR_STAT_COPIED: frames the verdict copied up (%RXR_COPY); a copy
 *	that finds no memory counts %RXR_STAT_DROPPED or
 *	%RXR_STAT_RECYCLED too
 * @RXR_STAT_QUEUE_ALLOC: pages of its own that rxr_queue_page() gave the
 *	reserve queue while its pools were empty and memory was fine
 * @RXR_STAT_PRIORITY: frames of a priority flow that rxr_rx_verdict()
 *	classified: every frame on the reserve queue, frames in pool pages
 *	and frames on a device in emergency mode
 * @RXR_STAT_NUM: number of counters
 *
 * The core counts each event on the RX queue it happened on, and shows
 * the counters per queue (``rx<N>_rxr_<event>`` in ethtool -S, the queue
 * nests of the netlink view) and summed over the queues.  A driver counts
 * only what the core cannot see: its ring events.
 */
enum rxr_dev_stat {
	RXR_STAT_STEERED,
	RXR_STAT_LENT,
	RXR_STAT_LENT_DELIVERED,
	RXR_STAT_RECYCLED,
	RXR_STAT_DROPPED,
	RXR_STAT_ALLOC_FAIL,
	RXR_STAT_POOL_UP,
	RXR_STAT_POOL_UP_OTHER,
	RXR_STAT_COPIED,
	RXR_STAT_QUEUE_ALLOC,
	RXR_STAT_PRIORITY,
	RXR_STAT_NUM,
};

/* Below this many buffers posted on a regular RX queue, a steered flow's
 * pool lends too (rxr_lend_page()).
 */
#define RXR_LEND_LOW	32

/* Name of the ethtool private flag that switches rx-reserve on a device. */
#define RXR_PRIV_FLAG	"rx-reserve"

/* Counters of rxr_ethtool_get_stats() and struct rxr_dev_state. */
#define RXR_ETHTOOL_NSTATS	19

/**
 * struct rxr_flow_state - a priority flow, as rxr_dev_read_state() saw it
 * @tuple: the flow as received
 * @ino: its socket's inode number (0: none)
 * @slot: its filter slot, or -1 in software
 * @mark: %RXR_MARK_MEMALLOC and %RXR_MARK_SOCKOPT
 * @pool_pages: pages of its pool (0: no pool)
 * @pool_free: of those, pages free in the pool
 */
struct rxr_flow_state {
	struct rxr_tuple tuple;
	u64 ino;
	int slot;
	u8 mark;
	u32 pool_pages;
	u32 pool_free;
};

/* Why a flow is a priority flow (struct rxr_flow_state.mark). */
#define RXR_MARK_MEMALLOC	BIT(0)	/* sk_set_memalloc() */
#define RXR_MARK_SOCKOPT	BIT(1)	/* SO_RX_RESERVE */

/**
 * struct rxr_dev_state - a device's rx-reserve, for netlink
 * @enabled: the private flag
 * @emergency: in emergency mode
 * @reserve_queue: the reserve queue, or -1
 * @slots: filter slots the driver offered
 * @slot_base: the first slot's ntuple location
 * @approx_slots: a slot steers an RSS bucket, not the flow alone
 * @stat: rxr_ethtool_get_stats()'s counters, in its order
 * @nflows: entries of @flows
 * @flows: the device's flows; free with rxr_dev_free_state()
 * @nq: entries of @qstat: the device's RX queues
 * @qstat: each RX queue's counters, &enum rxr_dev_stat's order; free
 *	with rxr_dev_free_state()
 */
struct rxr_dev_state {
	bool enabled;
	bool emergency;
	int reserve_queue;
	u32 slots;
	u32 slot_base;
	bool approx_slots;
	u64 stat[RXR_ETHTOOL_NSTATS];
	unsigned int nflows;
	struct rxr_flow_state *flows;
	unsigned int nq;
	u64 (*qstat)[RXR_STAT_NUM];
};

/**
 * enum rxr_verdict - what a driver does with a received buffer
 * @RXR_PASS: pass the frame up in its buffer, as the driver's own
 * @RXR_PASS_POOL: pass the frame up in its pool page: its own flow's;
 *	rxr_rx_up() marks the skb pfmemalloc
 * @RXR_COPY: copy the frame into a buffer of the driver's own and pass
 *	the copy up; the pool page stays in the ring (reposted in place)
 * @RXR_RECYCLE: drop the frame and repost its buffer in place
 *
 * rxr_rx_verdict() decides; the table in rx-reserve.rst gives every case.
 */
enum rxr_verdict {
	RXR_PASS,
	RXR_PASS_POOL,
	RXR_COPY,
	RXR_RECYCLE,
};

/**
 * struct rxr_rx_buf - a received buffer, as rxr_rx_verdict() saw it
 * @flow: the frame's priority flow, or NULL (not classified, or none)
 * @pool: the pool of the buffer's page, or NULL for the driver's own
 * @release: a pool page that no longer belongs in its ring: after
 *	%RXR_COPY or %RXR_RECYCLE, the driver gives it back with put_page()
 *	instead of reposting it, and refills the slot as usual
 * @shared: the buffer is on the reserve queue, whose pool pages serve
 *	every flow steered there
 * @rxq: the RX queue it was posted on, where rxr_rx_up() counts it
 */
struct rxr_rx_buf {
	struct rxr_flow *flow;
	const struct rxr_pool *pool;
	bool release;
	bool shared;
	unsigned int rxq;
};

/* Events of rxr_register_notifier()'s chain; the data is the net_device. */
enum rxr_event {
	RXR_EVENT_EMERGENCY,	/* emergency mode went on or off */
};

#if IS_ENABLED(CONFIG_RX_RESERVE)

DECLARE_STATIC_KEY_FALSE(rxr_flows_key);

/* Hooks called by the socket layer. */
void __rxr_sk_update(struct sock *sk);
void __rxr_sk_listen(struct sock *sk);
void rxr_sk_memalloc(struct sock *sk, bool on);
void rxr_sk_destruct(struct sock *sk);
void rxr_sk_clone(struct sock *newsk);
int rxr_sk_setsockopt(struct sock *sk, bool on);
int rxr_ethtool_check_rxnfc(struct net_device *dev, u32 cmd,
			    const struct ethtool_rxnfc *info);
bool rxr_ethtool_core_rule(struct net_device *dev, u32 location);

/* Driver API. */
bool rxr_available(void);
int rxr_dev_attach(struct net_device *dev, const struct rxr_dev_caps *caps);
void rxr_dev_detach(struct net_device *dev);
int rxr_dev_set_enabled(struct net_device *dev, bool on);
bool rxr_dev_enabled(const struct net_device *dev);
bool rxr_dev_active(const struct net_device *dev);
bool rxr_dev_pools_cover(const struct net_device *dev);
bool rxr_dev_emergency(const struct net_device *dev);
struct page *rxr_queue_page(struct net_device *dev);
bool rxr_queue_page_fits(struct net_device *dev, const struct page *page);
struct rxr_flow *rxr_classify(const struct net_device *dev, int rxq,
			      const void *data, unsigned int len);
bool rxr_parse(const void *data, unsigned int len, struct rxr_tuple *t);
struct page *rxr_lend_page(struct net_device *dev, unsigned int rxq,
			   unsigned int posted);
bool rxr_flow_owns(const struct rxr_flow *flow, const struct rxr_pool *tag);
bool rxr_lent_fits(struct net_device *dev, unsigned int rxq,
		   const struct rxr_pool *tag);
int rxr_sk_tx_queue(const struct net_device *dev, const struct sock *sk);
void rxr_tuple_to_fs(const struct rxr_tuple *t,
		     struct ethtool_rx_flow_spec *fs);
int rxr_tuple_from_fs(const struct ethtool_rx_flow_spec *fs,
		      struct rxr_tuple *t);
void rxr_rx_alloc_failed(struct net_device *dev, unsigned int rxq);
enum rxr_verdict rxr_rx_verdict(struct net_device *dev, unsigned int rxq,
				struct page *page, const void *data,
				unsigned int len, struct rxr_rx_buf *rb);
bool rxr_rx_up(struct net_device *dev, struct sk_buff *skb,
	       const struct rxr_rx_buf *rb);
void rxr_rx_drop(struct net_device *dev, const struct rxr_rx_buf *rb);
struct sk_buff *rxr_build_skb(const struct rxr_rx_buf *rb, void *data,
			      unsigned int frag_size);
struct sk_buff *rxr_rx_skb(struct net_device *dev, unsigned int rxq,
			   struct sk_buff *skb);
struct sk_buff *__rxr_napi_alloc_skb(struct napi_struct *napi,
				     unsigned int rxq, unsigned int len);
int rxr_ethtool_sset_count(const struct net_device *dev);
void rxr_ethtool_get_strings(const struct net_device *dev, u8 **data);
void rxr_ethtool_get_stats(const struct net_device *dev, u64 **data);
int rxr_dev_read_state(struct net_device *dev, struct rxr_dev_state *st);
void rxr_dev_free_state(struct rxr_dev_state *st);
int rxr_register_notifier(struct notifier_block *nb);
int rxr_unregister_notifier(struct notifier_block *nb);

/**
 * rxr_active() - whether any priority flow exists
 *
 * A static branch: with no priority flow on the system, this is all the
 * RX fast path pays.
 *
 * Return: true while at least one priority flow exists.
 */
static inline bool rxr_active(void)
{
	return static_branch_unlikely(&rxr_flows_key);
}

#else /* CONFIG_RX_RESERVE */

static inline bool rxr_available(void)
{
	return false;
}

static inline bool rxr_active(void)
{
	return false;
}

static inline void __rxr_sk_update(struct sock *sk) { }
static inline void __rxr_sk_listen(struct sock *sk) { }
static inline void rxr_sk_memalloc(struct sock *sk, bool on) { }
static inline void rxr_sk_destruct(struct sock *sk) { }
static inline void rxr_sk_clone(struct sock *newsk) { }

static inline int rxr_sk_setsockopt(struct sock *sk, bool on)
{
	return -ENOPROTOOPT;
}

static inline int rxr_ethtool_check_rxnfc(struct net_device *dev, u32 cmd,
					  const struct ethtool_rxnfc *info)
{
	return 0;
}

static inline bool rxr_ethtool_core_rule(struct net_device *dev,
					 u32 location)
{
	return false;
}

static inline int rxr_dev_attach(struct net_device *dev,
				 const struct rxr_dev_caps *caps)
{
	return 0;
}

static inline void rxr_dev_detach(struct net_device *dev) { }

static inline int rxr_dev_set_enabled(struct net_device *dev, bool on)
{
	return on ? -EOPNOTSUPP : 0;
}

static inline bool rxr_dev_enabled(const struct net_device *dev)
{
	return false;
}

static inline bool rxr_dev_active(const struct net_device *dev)
{
	return false;
}

static inline bool rxr_dev_pools_cover(const struct net_device *dev)
{
	return false;
}

static inline bool rxr_dev_emergency(const struct net_device *dev)
{
	return false;
}

static inline struct page *rxr_queue_page(struct net_device *dev)
{
	return NULL;
}

static inline bool rxr_queue_page_fits(struct net_device *dev,
				       const struct page *page)
{
	return false;
}

static inline struct rxr_flow *rxr_classify(const struct net_device *dev,
					    int rxq, const void *data,
					    unsigned int len)
{
	return NULL;
}

static inline bool rxr_parse(const void *data, unsigned int len,
			     struct rxr_tuple *t)
{
	return false;
}

static inline struct page *rxr_lend_page(struct net_device *dev,
					 unsigned int rxq,
					 unsigned int posted)
{
	return NULL;
}

static inline bool rxr_flow_owns(const struct rxr_flow *flow,
				 const struct rxr_pool *tag)
{
	return false;
}

static inline bool rxr_lent_fits(struct net_device *dev, unsigned int rxq,
				 const struct rxr_pool *tag)
{
	return false;
}

static inline int rxr_sk_tx_queue(const struct net_device *dev,
				  const struct sock *sk)
{
	return -1;
}

static inline void rxr_tuple_to_fs(const struct rxr_tuple *t,
				   struct ethtool_rx_flow_spec *fs) { }

static inline int rxr_tuple_from_fs(const struct ethtool_rx_flow_spec *fs,
				    struct rxr_tuple *t)
{
	return -EOPNOTSUPP;
}

static inline void rxr_rx_alloc_failed(struct net_device *dev,
				       unsigned int rxq) { }

static inline enum rxr_verdict rxr_rx_verdict(struct net_device *dev,
					      unsigned int rxq,
					      struct page *page,
					      const void *data,
					      unsigned int len,
					      struct rxr_rx_buf *rb)
{
	rb->flow = NULL;
	rb->pool = NULL;
	rb->release = false;
	rb->shared = false;
	return RXR_PASS;
}

static inline bool rxr_rx_up(struct net_device *dev, struct sk_buff *skb,
			     const struct rxr_rx_buf *rb)
{
	return true;
}

static inline void rxr_rx_drop(struct net_device *dev,
			       const struct rxr_rx_buf *rb) { }

static inline struct sk_buff *rxr_build_skb(const struct rxr_rx_buf *rb,
					    void *data,
					    unsigned int frag_size)
{
	return napi_build_skb(data, frag_size);
}

static inline struct sk_buff *rxr_rx_skb(struct net_device *dev,
					 unsigned int rxq,
					 struct sk_buff *skb)
{
	return skb;
}

static inline struct sk_buff *__rxr_napi_alloc_skb(struct napi_struct *napi,
						   unsigned int rxq,
						   unsigned int len)
{
	return napi_alloc_skb(napi, len);
}

static inline int rxr_ethtool_sset_count(const struct net_device *dev)
{
	return 0;
}

static inline void rxr_ethtool_get_strings(const struct net_device *dev,
					   u8 **data) { }
static inline void rxr_ethtool_get_stats(const struct net_device *dev,
					 u64 **data) { }

static inline int rxr_dev_read_state(struct net_device *dev,
				     struct rxr_dev_state *st)
{
	return -EOPNOTSUPP;
}

static inline void rxr_dev_free_state(struct rxr_dev_state *st) { }

static inline int rxr_register_notifier(struct notifier_block *nb)
{
	return 0;
}

static inline int rxr_unregister_notifier(struct notifier_block *nb)
{
	return 0;
}

#endif /* CONFIG_RX_RESERVE */

/**
 * rxr_sk_update() - tell rx-reserve a socket's route or state changed
 * @sk: the socket
 *
 * Called where TCP sets a socket's route (sk_setup_caps()) and state
 * (tcp_set_state()).  Costs a static branch unless priority flows exist.
 */
static inline void rxr_sk_update(struct sock *sk)
{
	if (rxr_active())
		__rxr_sk_update(sk);
}

/**
 * rxr_rx_gfp() - the GFP flags of a device's own RX buffers
 * @dev: the device the buffer is for, or NULL
 * @gfp: the flags the caller would use
 *
 * While every priority flow on @dev has a pool, those pools are the
 * device's reserve: the buffers its regular queues post, which carry any
 * frame, do not dip into mainline's pfmemalloc reserve, which stays for
 * reclaim and the storage TX path.  Called by __netdev_alloc_skb(), and by
 * drivers for the RX pages they refill their rings with; not for copies
 * made at receive time.  Costs a static branch unless priority flows
 * exist.
 *
 * Context: any context.
 * Return: @gfp, or @gfp without %__GFP_MEMALLOC and with
 * %__GFP_NOMEMALLOC (which also overrides a %__GFP_MEMALLOC added later).
 */
static inline gfp_t rxr_rx_gfp(const struct net_device *dev, gfp_t gfp)
{
	if (rxr_active() && rxr_dev_pools_cover(dev))
		return (gfp & ~__GFP_MEMALLOC) | __GFP_NOMEMALLOC;
	return gfp;
}

/**
 * rxr_napi_alloc_skb() - an skb for a copy a driver makes at receive time
 * @napi: the NAPI context of the queue the frame arrived on
 * @rxq: that queue's index
 * @len: bytes of data the copy needs
 *
 * napi_alloc_skb() for a driver's receive-time copies (a copybreak, the
 * head of a frame whose buffer has no room for skb_shared_info, a copy the
 * verdict asked for), with rxr_rx_gfp()'s rule: while every priority flow
 * on the device has a pool, the copy does not dip into mainline's
 * pfmemalloc reserve, so that a non-priority frame is never pfmemalloc on
 * such a device.  A priority frame's way up does not depend on it: a frame
 * in a pool page goes up with a head rxr_build_skb() keeps.  A failure is
 * reported as rxr_rx_alloc_failed() does.  Costs a static branch unless
 * priority flows exist.
 *
 * Context: NAPI.
 * Return: the skb, with napi_alloc_skb()'s headroom, or NULL.
 */
static inline struct sk_buff *rxr_napi_alloc_skb(struct napi_struct *napi,
						 unsigned int rxq,
						 unsigned int len)
{
	if (rxr_active())
		return __rxr_napi_alloc_skb(napi, rxq, len);
	return napi_alloc_skb(napi, len);
}

/**
 * rxr_sk_listen() - tell rx-reserve a socket started to listen
 * @sk: the socket
 *
 * Called from inet_csk_listen_start().  Costs a static branch unless
 * priority flows exist.
 */
static inline void rxr_sk_listen(struct sock *sk)
{
	if (rxr_active())
		__rxr_sk_listen(sk);
}

#endif /* _NET_RX_RESERVE_H */
