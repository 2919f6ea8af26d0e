// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve's RX datapath: the pages a driver posts on its reserve queue
 * and lends to its regular queues, the classifier, the one verdict on
 * every received buffer (rxr_rx_verdict()) and the last look at an skb
 * before it goes up, and emergency mode with the monitor that drives it.
 *
 * Everything a driver calls here runs in any context (NAPI, BH disabled,
 * or process context with the queue's NAPI disabled) and reads the
 * registry under RCU; it takes rxr_lock only on a device's transition
 * into emergency mode.  It allocates only to copy a frame out of a pool
 * page that is not its flow's (GFP_ATOMIC), and a failed copy drops that
 * frame, counted: never the owner's; an sk_buff for the owner's frame
 * comes from a reserve of heads when the slab has none (rxr_build_skb()).
 * A frame in no pool page, on no
 * reserve queue and on no device in emergency mode costs no
 * classification.  The monitor, at the end, is a work item.
 */

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rhashtable.h>
#include <linux/skbuff.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#include <kunit/visibility.h>
#include <net/bonding.h>
#include <net/hotdata.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "rx_reserve_priv.h"
#include <trace/events/rx_reserve.h>

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

/* Where events of the reserve queue count: queue 0 on a device without
 * one.
 */
static unsigned int rxr_reserve_rxq(const struct rxr_dev *rdev)
{
	return max(rdev->caps.reserve_queue, 0);
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
	struct rxr_flow_set *set;
	struct page *page = NULL;
	struct rxr_dev *rdev;
	struct rxr_pool *pool;
	unsigned int start;

	rcu_read_lock();
	rdev = rxr_dev_on_rcu(dev);
	if (rdev) {
		set = rdev->caps.hw_slots ? &rdev->hw : &rdev->sw;
		start = atomic_inc_return(&rdev->hand);
		page = rxr_set_take(set, start, false, 0, &pool);
		/* The pools' pages are up the stack, in their sockets:
		 * while memory is fine, a page of its own keeps the queue
		 * taking the flows' frames, so that their window need not
		 * fit the pools.
		 */
		if (!page && READ_ONCE(set->n) && !READ_ONCE(rdev->emergency)) {
			page = alloc_page(GFP_ATOMIC | __GFP_NOWARN |
					  __GFP_NOMEMALLOC);
			if (page)
				rxr_dev_count(dev, rxr_reserve_rxq(rdev),
					      RXR_STAT_QUEUE_ALLOC, 1);
		}
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
	rdev = rxr_dev_on_rcu(dev);
	if (rdev) {
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
	rdev = rxr_dev_on_rcu(dev);
	if (rdev) {
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
		rxr_dev_count(dev, rxq, RXR_STAT_LENT, 1);
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
 * Counts copies, recycles, and priority frames on the reserve queue
 * (steered), so that every driver counts them alike.
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
	rb->rxq = rxq;
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
	if (flow)
		rxr_dev_count(dev, rxq, RXR_STAT_PRIORITY, 1);
	/* Steered: a priority frame that the device put on the reserve
	 * queue, whatever buffer it found there and wherever it goes next.
	 */
	if (flow && reserve)
		rxr_dev_count(dev, rxq, RXR_STAT_STEERED, 1);
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
		rxr_dev_count(dev, rxq, RXR_STAT_COPIED, 1);
	else if (v == RXR_RECYCLE)
		rxr_dev_count(dev, rxq, RXR_STAT_RECYCLED, 1);
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
 * takes it, and counts it: %RXR_STAT_POOL_UP, and %RXR_STAT_LENT_DELIVERED
 * when its first buffer is a page lent to a regular queue.  A frame that
 * carries another flow's pool page is counted and refused: the driver
 * drops it, with rxr_rx_drop().
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
		rxr_dev_count(dev, rb->rxq, RXR_STAT_POOL_UP_OTHER, 1);
		return false;
	}
	if (pool) {
		skb->pfmemalloc = true;
		rxr_dev_count(dev, rb->rxq, RXR_STAT_POOL_UP, 1);
		if (rb->pool && !rb->shared)
			rxr_dev_count(dev, rb->rxq, RXR_STAT_LENT_DELIVERED, 1);
	}
	return true;
}
EXPORT_SYMBOL_GPL(rxr_rx_up);

/**
 * rxr_rx_drop() - a judged frame that the driver drops
 * @dev: the device
 * @rb: rxr_rx_verdict()'s view of its first buffer
 *
 * For a frame rxr_rx_verdict() passed or copied up that goes nowhere: no
 * memory for its copy or its skb, no replacement for its buffer, or
 * rxr_rx_up() refused it.  Its buffer is reposted in place or goes back to
 * its pool, as the verdict said.  Counts a priority frame as dropped
 * (%RXR_STAT_DROPPED), any other as recycled (%RXR_STAT_RECYCLED), on the
 * queue of @rb.
 *
 * Context: NAPI, or BH disabled.
 */
void rxr_rx_drop(struct net_device *dev, const struct rxr_rx_buf *rb)
{
	rxr_dev_count(dev, rb->rxq, rb->flow ? RXR_STAT_DROPPED :
		      RXR_STAT_RECYCLED, 1);
}
EXPORT_SYMBOL_GPL(rxr_rx_drop);

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
		rxr_dev_count(dev, rxq, RXR_STAT_POOL_UP, 1);
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
		rxr_dev_count(dev, rxq, RXR_STAT_COPIED, 1);
	else
		rxr_dev_count(dev, rxq, flow ? RXR_STAT_DROPPED :
			      RXR_STAT_RECYCLED, 1);
	return copy;
}
EXPORT_SYMBOL_GPL(rxr_rx_skb);

/**
 * __rxr_napi_alloc_skb() - rxr_napi_alloc_skb() while priority flows exist
 * @napi: the NAPI context of the queue the frame arrived on
 * @rxq: that queue's index
 * @len: bytes of data the copy needs
 *
 * On a device whose priority flows all have pools, the head comes from the
 * slab with %__GFP_NOMEMALLOC, which also wins over the %__GFP_MEMALLOC that
 * __alloc_skb() adds for an RX skb; napi_alloc_skb()'s per-CPU fragment
 * caches are shared by every device and may hold a page of the pfmemalloc
 * reserve, so they are not used.  Elsewhere, napi_alloc_skb().
 *
 * Context: NAPI.
 * Return: the skb, or NULL, counted in rx_reserve_alloc_fail.
 */
struct sk_buff *__rxr_napi_alloc_skb(struct napi_struct *napi,
				     unsigned int rxq, unsigned int len)
{
	struct net_device *dev = napi->dev;
	struct sk_buff *skb;

	if (!rxr_dev_pools_cover(dev)) {
		skb = napi_alloc_skb(napi, len);
	} else {
		skb = __alloc_skb(len + NET_SKB_PAD + NET_IP_ALIGN,
				  GFP_ATOMIC | __GFP_NOWARN | __GFP_NOMEMALLOC,
				  SKB_ALLOC_RX | SKB_ALLOC_NAPI, NUMA_NO_NODE);
		if (skb) {
			skb_reserve(skb, NET_SKB_PAD + NET_IP_ALIGN);
			skb->dev = dev;
		}
	}
	if (unlikely(!skb))
		rxr_rx_alloc_failed(dev, rxq);
	return skb;
}
EXPORT_SYMBOL_GPL(__rxr_napi_alloc_skb);

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
 * rxr_dev_count() - count an rx-reserve event
 * @dev: the device
 * @rxq: the RX queue it happened on
 * @stat: the event
 * @n: how many
 *
 * The core counts every event, where it decides or sees it: a driver
 * reports what happens in its code through rxr_rx_up(), rxr_rx_drop()
 * and rxr_rx_alloc_failed(), and cannot count the core's events itself.
 *
 * Context: any context.
 */
void rxr_dev_count(struct net_device *dev, unsigned int rxq,
		   enum rxr_dev_stat stat, u32 n)
{
	struct rxr_dev_pcpu_stats *s;
	struct rxr_dev *rdev;
	unsigned long flags;

	if (WARN_ON_ONCE(stat >= RXR_STAT_NUM))
		return;
	rcu_read_lock();
	rdev = rcu_dereference(dev->rx_reserve);
	if (rdev) {
		rxq = min(rxq, rdev->nq - 1);
		s = get_cpu_ptr(rdev->stats);
		flags = u64_stats_update_begin_irqsave(&s->syncp);
		u64_stats_add(&s->stat[rxq * RXR_STAT_NUM + stat], n);
		u64_stats_update_end_irqrestore(&s->syncp, flags);
		put_cpu_ptr(rdev->stats);
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_IF_KUNIT(rxr_dev_count);

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
void rxr_emergency_set(struct rxr_dev *rdev, bool on, unsigned long now,
		       const char *reason)
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
	/* Its sockets' receive buffers follow: rxr_sk_fit_rcvbuf(). */
	if (rdev->nflows)
		queue_work(system_wq, &rxr_rcvbuf_work);
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
 * @rxq: the RX queue it was for
 *
 * Counts the failure and puts @dev in emergency mode at once.
 *
 * Context: any context.
 */
void rxr_rx_alloc_failed(struct net_device *dev, unsigned int rxq)
{
	struct rxr_dev *rdev;

	rxr_dev_count(dev, rxq, RXR_STAT_ALLOC_FAIL, 1);
	rcu_read_lock();
	rdev = rxr_dev_on_rcu(dev);
	if (rdev) {
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

/*
 * sk_buff heads for priority frames.  A frame in a pool page needs an
 * sk_buff to go up, and the slab may have none under memory pressure:
 * rxr_build_skb() then takes one kept here.  The heads are allocated from
 * the skbuff cache while priority flows exist, by a work item after each
 * take and by the monitor, and freed once no flow is left; a head that
 * went up is freed by the stack like any other.
 */
static DEFINE_SPINLOCK(rxr_heads_lock);
static struct sk_buff *rxr_heads[RXR_HEADS];
static unsigned int rxr_nheads;
atomic64_t rxr_heads_used;
EXPORT_SYMBOL_IF_KUNIT(rxr_heads_used);
atomic64_t rxr_heads_missed;

/**
 * rxr_heads_sync() - fill the reserve of heads, or empty it
 * @want: priority flows exist
 *
 * Allocates with GFP_NOIO: the caller may run while reclaim waits on the
 * very flows these heads serve.  A failed allocation leaves the reserve
 * short until the next call.  Process context.
 *
 * Return: heads in the reserve.
 */
unsigned int rxr_heads_sync(bool want)
{
	struct sk_buff *skb;
	unsigned int n;

	for (;;) {
		skb = NULL;
		spin_lock_irq(&rxr_heads_lock);
		if (!want && rxr_nheads)
			skb = rxr_heads[--rxr_nheads];
		n = rxr_nheads;
		spin_unlock_irq(&rxr_heads_lock);
		if (skb) {
			kmem_cache_free(net_hotdata.skbuff_cache, skb);
			continue;
		}
		if (!want || n >= RXR_HEADS)
			return n;
		skb = kmem_cache_alloc(net_hotdata.skbuff_cache,
				       GFP_NOIO | __GFP_NORETRY | __GFP_NOWARN);
		if (!skb)
			return n;
		spin_lock_irq(&rxr_heads_lock);
		if (rxr_nheads < RXR_HEADS) {
			rxr_heads[rxr_nheads++] = skb;
			skb = NULL;
		}
		spin_unlock_irq(&rxr_heads_lock);
		if (skb)
			kmem_cache_free(net_hotdata.skbuff_cache, skb);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxr_heads_sync);

/* Heads in the reserve now. */
unsigned int rxr_heads_level(void)
{
	return READ_ONCE(rxr_nheads);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_heads_level);

static void rxr_heads_fn(struct work_struct *work)
{
	rxr_heads_sync(READ_ONCE(rxr_nflows));
}

static DECLARE_WORK(rxr_heads_work, rxr_heads_fn);

/* A head from the reserve around @data, or NULL when it is empty. */
VISIBLE_IF_KUNIT struct sk_buff *rxr_head_take(void *data,
					       unsigned int frag_size)
{
	struct sk_buff *skb = NULL;
	unsigned long flags;

	spin_lock_irqsave(&rxr_heads_lock, flags);
	if (rxr_nheads)
		skb = rxr_heads[--rxr_nheads];
	spin_unlock_irqrestore(&rxr_heads_lock, flags);
	if (!skb) {
		atomic64_inc(&rxr_heads_missed);
		return NULL;
	}
	atomic64_inc(&rxr_heads_used);
	queue_work(system_wq, &rxr_heads_work);
	/* build_skb_around() wants it cleared, as __build_skb() does. */
	memset(skb, 0, offsetof(struct sk_buff, tail));
	return build_skb_around(skb, data, frag_size);
}
EXPORT_SYMBOL_IF_KUNIT(rxr_head_take);

/**
 * rxr_build_skb() - an skb around a received buffer, in NAPI
 * @rb: the verdict's view of the buffer (rxr_rx_verdict())
 * @data: the buffer, as for napi_build_skb()
 * @frag_size: its size
 *
 * napi_build_skb(); when the slab has no sk_buff for it and the frame is
 * its flow's own in a pool page (%RXR_PASS_POOL), one from rx-reserve's
 * reserve of heads, so that a priority frame is not dropped for want of
 * one while the reserve lasts.  Counted in heads_used, and heads_missed
 * when the reserve is empty too.  Allocates nothing that can wait.
 *
 * Context: NAPI (softirq).
 * Return: the skb, or NULL.
 */
struct sk_buff *rxr_build_skb(const struct rxr_rx_buf *rb, void *data,
			      unsigned int frag_size)
{
	struct sk_buff *skb = napi_build_skb(data, frag_size);

	if (likely(skb) || !rb->flow || !rb->pool)
		return skb;
	return rxr_head_take(data, frag_size);
}
EXPORT_SYMBOL_GPL(rxr_build_skb);

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

void rxr_monitor_fn(struct work_struct *work)
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
	rxr_heads_sync(READ_ONCE(rxr_nflows));
	if (again)
		queue_delayed_work(system_wq, &rxr_monitor_work,
				   RXR_MONITOR_PERIOD);
}

