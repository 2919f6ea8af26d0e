// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve for ixgbe.
 *
 * On 82599 and later parts, rx-reserve adds one RX queue behind the RSS
 * (and FCoE) queues: the reserve queue.  It is an ordinary ixgbe ring,
 * with a place on a q_vector, its IVAR entry and its statistics, but it
 * holds only pages of the priority flows' pools: ixgbe_rxr_fill() posts
 * them and ixgbe_rxr_clean_rx_irq() receives them, in place of the
 * driver's own page-flipping path.  Its SRRCTL.DROP_EN is always set, so
 * a frame for it when it is empty is dropped and never blocks the packet
 * buffer the RSS queues share.
 *
 * Each priority flow is steered there by a Flow Director perfect filter,
 * inserted by the core through set_rxnfc() and the driver's own
 * ixgbe_add_ethtool_fdir_entry(), in a range of locations at the top of
 * the filter table that the core keeps for itself.  ixgbe_rxr_check_rule()
 * refuses a filter, and the core keeps the flow in software, when perfect
 * filters are off (turning them on resets the adapter: rx-reserve never
 * does it), for IPv6 (ixgbe has no IPv6 perfect filters), when the
 * administrator's rules use another field mask (a port has one), or when
 * the reserve queue has no buffer.  Each reason is counted and logged
 * once.
 *
 * On the RSS queues, a failed page allocation borrows a pool page
 * (ixgbe_rxr_lend()), which only its owner flow keeps; in emergency mode
 * the buffer of every other frame is posted again in place, pfmemalloc or
 * not, so no ring runs dry.
 */

#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/rx_reserve.h>

#include "ixgbe.h"
#include "ixgbe_txrx_common.h"
#include "ixgbe_rxr.h"

/* The most pool pages the reserve queue holds at a time. */
#define IXGBE_RXR_POSTED	64
/* Perfect-filter locations offered to the core, at most. */
#define IXGBE_RXR_SLOTS		64
/* Where a frame starts in a pool page. */
#define IXGBE_RXR_HEADROOM	(NET_SKB_PAD + NET_IP_ALIGN)
#define IXGBE_RXR_FILL_INTERVAL	(HZ / 20)

/*
 * The reserve queue's ring events; the core counts rx-reserve's
 * (priority, steered, lent, copied, recycled, dropped) per queue, and
 * rx_queue_<N>_packets counts each queue's frames.  passed: frames of no
 * priority flow passed up in a page of the driver's own; errors: frames
 * the device flagged, dropped with their buffer reposted; empty: polls
 * that left the queue with no buffer while a filter pointed at it.
 */
enum {
	IXGBE_RXR_RES_PASSED,
	IXGBE_RXR_RES_ERRORS,
	IXGBE_RXR_RES_EMPTY,
	IXGBE_RXR_STAT_NUM,
};

static const char ixgbe_rxr_stat_names[IXGBE_RXR_STAT_NUM][ETH_GSTRING_LEN] = {
	"rxr_reserveq_passed",
	"rxr_reserveq_errors",
	"rxr_reserveq_empty",
};

static const char
ixgbe_rxr_refusal_names[IXGBE_RXR_REFUSAL_NUM][ETH_GSTRING_LEN] = {
	"rx_reserve_fdir_ntuple_off",
	"rx_reserve_fdir_ipv6",
	"rx_reserve_fdir_mask",
	"rx_reserve_fdir_duplicate",
	"rx_reserve_fdir_location",
	"rx_reserve_fdir_no_queue",
	"rx_reserve_fdir_ring_empty",
};

static const char * const ixgbe_rxr_refusal_text[IXGBE_RXR_REFUSAL_NUM] = {
	"perfect filters are off (ntuple off); turning them on resets the adapter, so rx-reserve does not",
	"ixgbe has no IPv6 perfect filters",
	"the administrator's ntuple rules use another field mask, and a port has one",
	"an administrator's ntuple rule matches the same flow",
	"an administrator's ntuple rule holds a location of rx-reserve's range",
	"there is no reserve queue",
	"the reserve queue has no buffer",
};

static const char ixgbe_rxr_gauge_names[][ETH_GSTRING_LEN] = {
	"rx_reserve_queues",
	"rx_reserve_queue_index",
	"rx_reserve_fdir_slots",
	"rx_reserve_fdir_rules",
	"rx_reserve_posted",
};

struct ixgbe_rxr_pcpu {
	struct u64_stats_sync syncp;
	u64_stats_t stat[IXGBE_RXR_STAT_NUM];
};

/**
 * struct ixgbe_rxr - rx-reserve's state for one adapter
 * @adapter: the adapter
 * @pcpu: per-CPU counters, bumped from NAPI
 * @fill_work: polls the reserve queue, while a filter names it and it is
 *	short of buffers, so that pages back in the pools are posted
 * @rules: the locations of the core's range that hold a filter
 * @enabled: the rx-reserve private flag
 * @started: attached to the core
 * @queue: the reserve queue in the queue layout, or -1
 * @reserve_q: the reserve queue the core was given, or -1; read by the
 *	datapath
 * @slots: perfect-filter locations offered to the core
 * @slot_base: the first of them
 * @logged: refusals already logged, a bit per &enum ixgbe_rxr_refusal
 * @refused: filters refused, per reason; under RTNL
 * @no_queue_logged: the reason for running without a reserve queue was
 *	logged
 * @discarding: the reserve queue drops the rest of a frame that spans
 *	buffers; under its NAPI
 */
struct ixgbe_rxr {
	struct ixgbe_adapter *adapter;
	struct ixgbe_rxr_pcpu __percpu *pcpu;
	struct delayed_work fill_work;
	DECLARE_BITMAP(rules, IXGBE_RXR_SLOTS);
	bool enabled;
	bool started;
	int queue;
	int reserve_q;
	unsigned int slots;
	u32 slot_base;
	unsigned long logged;
	u64 refused[IXGBE_RXR_REFUSAL_NUM];
	bool no_queue_logged;
	bool discarding;
};

static void ixgbe_rxr_count(struct ixgbe_rxr *r, int stat, u64 n)
{
	struct ixgbe_rxr_pcpu *s = get_cpu_ptr(r->pcpu);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&s->syncp);
	u64_stats_add(&s->stat[stat], n);
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(r->pcpu);
}

/* Decisions that touch no register */

/**
 * ixgbe_rxr_queue_index() - where the reserve queue goes in the layout
 * @rss_i: RX queues before it (RSS and FCoE queues)
 * @max_queues: RX queues the adapter and its netdev may have
 * @perfect: perfect filters are on (ntuple): without them nothing can
 *	steer to the queue, and an adapter nobody asked for filters keeps
 *	the layout it always had
 * @enabled: the rx-reserve private flag
 *
 * Return: the reserve queue's index, right behind the other queues, or
 * -1 when there is none.
 */
int ixgbe_rxr_queue_index(u16 rss_i, u16 max_queues, bool perfect,
			  bool enabled)
{
	if (!enabled || !perfect || !rss_i || rss_i >= max_queues)
		return -1;
	return rss_i;
}

/**
 * ixgbe_rxr_slot_range() - the perfect-filter locations rx-reserve takes
 * @pballoc: the adapter's fdir_pballoc
 * @want: locations asked for
 * @base: the first location, written
 *
 * The filter table holds (1024 << @pballoc) - 2 locations; rx-reserve
 * takes the last ones, at most half of them, so the administrator keeps
 * the low locations that ethtool's examples use.
 *
 * Return: the number of locations, 0 for a bad @pballoc.
 */
int ixgbe_rxr_slot_range(u32 pballoc, unsigned int want, u32 *base)
{
	u32 cap;

	*base = 0;
	if (pballoc < IXGBE_FDIR_PBALLOC_64K ||
	    pballoc > IXGBE_FDIR_PBALLOC_256K)
		return 0;
	cap = (1024 << pballoc) - 2;
	want = min(want, cap / 2);
	*base = cap - want;
	return want;
}

/**
 * ixgbe_rxr_fdir_spec() - the perfect filter and mask of a flow's rule
 * @fs: an exact TCP over IPv4 rule, as rxr_tuple_to_fs() makes them
 * @input: the filter, written as ixgbe_add_ethtool_fdir_entry() builds it
 * @mask: its field mask, likewise
 *
 * Return: false for any other rule.
 */
bool ixgbe_rxr_fdir_spec(const struct ethtool_rx_flow_spec *fs,
			 union ixgbe_atr_input *input,
			 union ixgbe_atr_input *mask)
{
	const struct ethtool_tcpip4_spec *h = &fs->h_u.tcp_ip4_spec;
	const struct ethtool_tcpip4_spec *m = &fs->m_u.tcp_ip4_spec;

	memset(input, 0, sizeof(*input));
	memset(mask, 0, sizeof(*mask));
	if (fs->flow_type != TCP_V4_FLOW)
		return false;
	input->formatted.flow_type = IXGBE_ATR_FLOW_TYPE_TCPV4;
	input->formatted.src_ip[0] = h->ip4src;
	input->formatted.dst_ip[0] = h->ip4dst;
	input->formatted.src_port = h->psrc;
	input->formatted.dst_port = h->pdst;
	mask->formatted.flow_type = IXGBE_ATR_L4TYPE_IPV6_MASK |
				    IXGBE_ATR_L4TYPE_MASK;
	mask->formatted.src_ip[0] = m->ip4src;
	mask->formatted.dst_ip[0] = m->ip4dst;
	mask->formatted.src_port = m->psrc;
	mask->formatted.dst_port = m->pdst;
	return true;
}

/**
 * ixgbe_rxr_fdir_conflict() - whether a rule's mask fits the port's
 * @cur_mask: the mask the port's rules use
 * @have_rules: the port has rules (the mask is only set by the first)
 * @mask: the new rule's mask
 *
 * Return: 0, or %IXGBE_RXR_MASK when the port's rules use another mask.
 */
int ixgbe_rxr_fdir_conflict(const union ixgbe_atr_input *cur_mask,
			    bool have_rules, const union ixgbe_atr_input *mask)
{
	if (have_rules && memcmp(cur_mask, mask, sizeof(*mask)))
		return IXGBE_RXR_MASK;
	return 0;
}

/**
 * ixgbe_rxr_mtu_served() - whether the reserve queue can take a frame
 * @mtu: the netdev's MTU
 *
 * A frame, VLAN tag and FCS included, must fit one 3 KiB buffer of a pool
 * page, behind the headroom and before skb_shared_info.
 *
 * Return: true if frames of @mtu fit.
 */
bool ixgbe_rxr_mtu_served(unsigned int mtu)
{
	return mtu + ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN <= IXGBE_RXBUFFER_3K &&
	       IXGBE_RXR_HEADROOM + IXGBE_RXBUFFER_3K +
	       SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) <= PAGE_SIZE;
}

/* The reserve queue */

static unsigned int ixgbe_rxr_buf_len(const struct ixgbe_ring *ring)
{
	return test_bit(__IXGBE_RX_3K_BUFFER, &ring->state) ?
	       IXGBE_RXBUFFER_3K : IXGBE_RXBUFFER_2K;
}

static unsigned int ixgbe_rxr_posted(const struct ixgbe_ring *ring)
{
	return (ring->next_to_use + ring->count - ring->next_to_clean) %
	       ring->count;
}

static unsigned int ixgbe_rxr_max_posted(const struct ixgbe_ring *ring)
{
	return min_t(unsigned int, ring->count - 1, IXGBE_RXR_POSTED);
}

/* Put @page, mapped at @dma, behind the next free descriptor. */
static void ixgbe_rxr_post(struct ixgbe_ring *ring, struct page *page,
			   dma_addr_t dma)
{
	u16 i = ring->next_to_use;
	union ixgbe_adv_rx_desc *desc = IXGBE_RX_DESC(ring, i);
	struct ixgbe_rx_buffer *bi = &ring->rx_buffer_info[i];

	bi->page = page;
	bi->dma = dma;
	desc->read.pkt_addr = cpu_to_le64(dma);
	/* Clears the status and length of the last write-back. */
	desc->read.hdr_addr = 0;
	i++;
	ring->next_to_use = i < ring->count ? i : 0;
	ring->next_to_alloc = ring->next_to_use;
}

static void ixgbe_rxr_kick(struct ixgbe_ring *ring)
{
	/* Descriptors before the tail: the device may fetch them. */
	wmb();
	writel(ring->next_to_use, ring->tail);
}

static bool ixgbe_rxr_serving(const struct ixgbe_ring *ring)
{
	struct ixgbe_rxr *r = ring->q_vector->adapter->rxr;

	return r && READ_ONCE(r->reserve_q) == ring->queue_index;
}

/* Post rxr_queue_page()'s pages until the ring holds IXGBE_RXR_POSTED or
 * there are none: atomic allocations at most, never a wait.  Context: the
 * ring's NAPI, or NAPI disabled.
 */
static unsigned int ixgbe_rxr_refill(struct ixgbe_ring *ring)
{
	unsigned int len = ixgbe_rxr_buf_len(ring), n = 0;
	struct page *page;
	dma_addr_t dma;

	if (!ixgbe_rxr_serving(ring))
		return 0;
	while (ixgbe_rxr_posted(ring) < ixgbe_rxr_max_posted(ring)) {
		page = rxr_queue_page(ring->netdev);
		if (!page)
			break;
		dma = dma_map_page(ring->dev, page, IXGBE_RXR_HEADROOM, len,
				   DMA_FROM_DEVICE);
		if (dma_mapping_error(ring->dev, dma)) {
			put_page(page);
			break;
		}
		ixgbe_rxr_post(ring, page, dma);
		n++;
	}
	return n;
}

/**
 * ixgbe_rxr_fill() - post the reserve queue once it is configured
 * @ring: the reserve queue, enabled in the device, its NAPI not running
 *
 * Called where ixgbe_configure_rx_ring() posts the driver's buffers on
 * other queues.
 */
void ixgbe_rxr_fill(struct ixgbe_ring *ring)
{
	struct ixgbe_rxr *r = ring->q_vector->adapter->rxr;

	if (ixgbe_rxr_refill(ring))
		ixgbe_rxr_kick(ring);
	if (r && !bitmap_empty(r->rules, IXGBE_RXR_SLOTS))
		mod_delayed_work(system_wq, &r->fill_work,
				 IXGBE_RXR_FILL_INTERVAL);
}

/**
 * ixgbe_rxr_clean_ring() - give back every page of the reserve queue
 * @ring: the reserve queue, stopped
 *
 * Called where ixgbe_clean_rx_ring() frees the driver's buffers.
 */
void ixgbe_rxr_clean_ring(struct ixgbe_ring *ring)
{
	struct ixgbe_rxr *r = ring->q_vector->adapter->rxr;
	unsigned int len = ixgbe_rxr_buf_len(ring);
	struct ixgbe_rx_buffer *bi;
	u16 i;

	if (r)
		r->discarding = false;
	if (!ring->rx_buffer_info)
		return;
	for (i = 0; i < ring->count; i++) {
		bi = &ring->rx_buffer_info[i];
		if (!bi->page)
			continue;
		dma_unmap_page(ring->dev, bi->dma, len, DMA_FROM_DEVICE);
		put_page(bi->page);
		bi->page = NULL;
	}
}

/* Post a received buffer again, in place. */
static void ixgbe_rxr_repost(struct ixgbe_ring *ring, struct page *page,
			     dma_addr_t dma)
{
	dma_sync_single_for_device(ring->dev, dma, ixgbe_rxr_buf_len(ring),
				   DMA_FROM_DEVICE);
	ixgbe_rxr_post(ring, page, dma);
}

/* A buffer rx-reserve keeps: posted again in place, or, a page that no
 * longer belongs on the queue (@release), given back to its pool; the
 * refill posts what the pools have instead.
 */
static void ixgbe_rxr_keep(struct ixgbe_ring *ring, struct page *page,
			   dma_addr_t dma, bool release)
{
	if (!release) {
		ixgbe_rxr_repost(ring, page, dma);
		return;
	}
	dma_unmap_page(ring->dev, dma, ixgbe_rxr_buf_len(ring),
		       DMA_FROM_DEVICE);
	put_page(page);
}

static void ixgbe_rxr_receive(struct ixgbe_q_vector *q_vector,
			      struct ixgbe_ring *ring,
			      union ixgbe_adv_rx_desc *desc,
			      struct sk_buff *skb)
{
	if (ixgbe_cleanup_headers(ring, desc, skb))
		return;
	ixgbe_process_skb_fields(ring, desc, skb);
	ixgbe_rx_skb(q_vector, skb);
}

/* %RXR_PASS_POOL: a replacement is posted first, if the pools have one;
 * a priority frame is not dropped for want of it, the refill posts pages
 * again as they come back.
 */
static void ixgbe_rxr_up(struct ixgbe_rxr *r, struct ixgbe_q_vector *q_vector,
			 struct ixgbe_ring *ring, union ixgbe_adv_rx_desc *desc,
			 struct page *page, dma_addr_t dma, unsigned int size,
			 const struct rxr_rx_buf *rb)
{
	unsigned int len = ixgbe_rxr_buf_len(ring);
	struct sk_buff *skb;
	struct page *repl;
	dma_addr_t rdma;

	repl = rxr_queue_page(ring->netdev);
	if (repl) {
		rdma = dma_map_page(ring->dev, repl, IXGBE_RXR_HEADROOM, len,
				    DMA_FROM_DEVICE);
		if (dma_mapping_error(ring->dev, rdma))
			put_page(repl);
		else
			ixgbe_rxr_post(ring, repl, rdma);
	}
	dma_unmap_page(ring->dev, dma, len, DMA_FROM_DEVICE);
	skb = rxr_build_skb(rb, page_address(page), PAGE_SIZE);
	if (!skb) {
		/* The page is back with its pool. */
		put_page(page);
		rxr_rx_drop(ring->netdev, rb);
		return;
	}
	skb_reserve(skb, IXGBE_RXR_HEADROOM);
	__skb_put(skb, size);
	/* The flow's own reserve, pfmemalloc: past the socket's limits. */
	if (!rxr_rx_up(ring->netdev, skb, rb)) {
		dev_kfree_skb_any(skb);
		rxr_rx_drop(ring->netdev, rb);
		return;
	}
	if (!rb->flow)
		ixgbe_rxr_count(r, IXGBE_RXR_RES_PASSED, 1);
	ixgbe_rxr_receive(q_vector, ring, desc, skb);
}

/* %RXR_COPY: a copy goes up, the page stays on the queue. */
static void ixgbe_rxr_copy(struct ixgbe_rxr *r, struct ixgbe_q_vector *q_vector,
			   struct ixgbe_ring *ring,
			   union ixgbe_adv_rx_desc *desc, struct page *page,
			   dma_addr_t dma, unsigned int size,
			   const struct rxr_rx_buf *rb)
{
	struct sk_buff *skb;

	skb = rxr_napi_alloc_skb(&q_vector->napi, ring->queue_index, size);
	if (skb)
		skb_put_data(skb, page_address(page) + IXGBE_RXR_HEADROOM,
			     size);
	ixgbe_rxr_keep(ring, page, dma, rb->release);
	if (!skb) {
		rxr_rx_drop(ring->netdev, rb);
		return;
	}
	ixgbe_rxr_receive(q_vector, ring, desc, skb);
}

/**
 * ixgbe_rxr_clean_rx_irq() - receive on the reserve queue
 * @q_vector: the queue's vector
 * @ring: the reserve queue
 * @budget: frames at most
 *
 * Called by ixgbe_poll() in place of ixgbe_clean_rx_irq().  Frames that
 * span buffers (the MTU grew past what attach allowed) or carry errors
 * are dropped and their buffers posted again; so are frames of other
 * flows in emergency mode.  A priority frame goes up only when a
 * replacement page is posted, so the queue never shrinks.
 *
 * Return: the frames cleaned.
 */
int ixgbe_rxr_clean_rx_irq(struct ixgbe_q_vector *q_vector,
			   struct ixgbe_ring *ring, int budget)
{
	struct ixgbe_rxr *r = q_vector->adapter->rxr;
	unsigned int len = ixgbe_rxr_buf_len(ring);
	unsigned int bytes = 0, size;
	union ixgbe_adv_rx_desc *desc;
	u16 ntu = ring->next_to_use;
	struct ixgbe_rx_buffer *bi;
	struct rxr_rx_buf rb;
	enum rxr_verdict v;
	struct page *page;
	int done = 0;
	dma_addr_t dma;
	bool bad;

	if (!r)
		return 0;
	while (done < budget && ring->next_to_clean != ring->next_to_use) {
		desc = IXGBE_RX_DESC(ring, ring->next_to_clean);
		if (!ixgbe_test_staterr(desc, IXGBE_RXD_STAT_DD))
			break;
		dma_rmb();
		size = le16_to_cpu(desc->wb.upper.length);
		bi = &ring->rx_buffer_info[ring->next_to_clean];
		page = bi->page;
		dma = bi->dma;
		bi->page = NULL;
		ring->next_to_clean++;
		if (ring->next_to_clean == ring->count)
			ring->next_to_clean = 0;
		done++;
		bytes += size;
		dma_sync_single_for_cpu(ring->dev, dma, len, DMA_FROM_DEVICE);

		bad = !(ring->netdev->features & NETIF_F_RXALL) &&
		      ixgbe_test_staterr(desc,
					 IXGBE_RXDADV_ERR_FRAME_ERR_MASK);
		if (!ixgbe_test_staterr(desc, IXGBE_RXD_STAT_EOP) ||
		    r->discarding || bad || size > len || !size) {
			r->discarding = !ixgbe_test_staterr(desc,
							    IXGBE_RXD_STAT_EOP);
			ixgbe_rxr_repost(ring, page, dma);
			ixgbe_rxr_count(r, IXGBE_RXR_RES_ERRORS, 1);
			continue;
		}

		v = rxr_rx_verdict(ring->netdev, ring->queue_index, page,
				   page_address(page) + IXGBE_RXR_HEADROOM,
				   size, &rb);
		switch (v) {
		case RXR_PASS:
			/* A page of its own, posted while the pools were
			 * short (rxr_queue_page()), goes up like a pool page.
			 */
		case RXR_PASS_POOL:
			ixgbe_rxr_up(r, q_vector, ring, desc, page, dma, size,
				     &rb);
			break;
		case RXR_RECYCLE:
			ixgbe_rxr_keep(ring, page, dma, rb.release);
			break;
		default:
			ixgbe_rxr_copy(r, q_vector, ring, desc, page, dma,
				       size, &rb);
			break;
		}
	}
	ixgbe_rxr_refill(ring);
	if (ring->next_to_use != ntu)
		ixgbe_rxr_kick(ring);
	if (!ixgbe_rxr_posted(ring) && ixgbe_rxr_serving(ring) &&
	    !bitmap_empty(r->rules, IXGBE_RXR_SLOTS))
		ixgbe_rxr_count(r, IXGBE_RXR_RES_EMPTY, 1);
	ixgbe_update_rx_ring_stats(ring, q_vector, done, bytes);
	return done;
}

static struct ixgbe_ring *ixgbe_rxr_ring_of(struct ixgbe_rxr *r)
{
	int q = READ_ONCE(r->reserve_q);

	if (q < 0 || q >= READ_ONCE(r->adapter->num_rx_queues))
		return NULL;
	return READ_ONCE(r->adapter->rx_ring[q]);
}

static void ixgbe_rxr_fill_work(struct work_struct *work)
{
	struct ixgbe_rxr *r = container_of(to_delayed_work(work),
					   struct ixgbe_rxr, fill_work);
	struct ixgbe_q_vector *q_vector;
	struct ixgbe_ring *ring;

	/* Only while a filter names the queue: no timer runs without one.
	 * q_vectors and their rings are freed after an RCU grace period, and
	 * a disabled NAPI ignores napi_schedule().
	 */
	if (bitmap_empty(r->rules, IXGBE_RXR_SLOTS))
		return;
	rcu_read_lock();
	ring = ixgbe_rxr_ring_of(r);
	q_vector = ring ? READ_ONCE(ring->q_vector) : NULL;
	/* Short of buffers, or a frame waiting (an interrupt lost). */
	if (q_vector && ring_is_rxr(ring) &&
	    !test_bit(__IXGBE_DOWN, &r->adapter->state) &&
	    (ixgbe_rxr_posted(ring) < ixgbe_rxr_max_posted(ring) ||
	     ixgbe_test_staterr(IXGBE_RX_DESC(ring, ring->next_to_clean),
				IXGBE_RXD_STAT_DD))) {
		local_bh_disable();
		napi_schedule(&q_vector->napi);
		local_bh_enable();
	}
	rcu_read_unlock();
	/* Across resets too, for as long as a filter names the queue. */
	schedule_delayed_work(&r->fill_work, IXGBE_RXR_FILL_INTERVAL);
}

/* Queue layout */

/* The reserve queue of the current layout, or -1.  Only the plain RSS
 * layout (ixgbe_set_rss_queues()) has one, as its last queue.
 */
static int ixgbe_rxr_queue(const struct ixgbe_adapter *adapter)
{
	const struct ixgbe_rxr *r = adapter->rxr;

	if (!r || r->queue < 0 ||
	    r->queue != adapter->num_rx_queues - 1 ||
	    adapter->flags & (IXGBE_FLAG_DCB_ENABLED |
			      IXGBE_FLAG_SRIOV_ENABLED |
			      IXGBE_FLAG_VMDQ_ENABLED))
		return -1;
	return r->queue;
}

/**
 * ixgbe_rxr_add_queue() - make room for the reserve queue
 * @adapter: the adapter, its RSS queues counted
 * @rss_i: the RX queues ixgbe_set_rss_queues() found
 *
 * Return: 1 if the reserve queue comes behind them, else 0.
 */
u16 ixgbe_rxr_add_queue(struct ixgbe_adapter *adapter, u16 rss_i)
{
	struct ixgbe_rxr *r = adapter->rxr;

	if (!r)
		return 0;
	/* MSI-X is known only later; ixgbe_rxr_drop_queue() undoes this. */
	r->queue = ixgbe_rxr_queue_index(rss_i, MAX_RX_QUEUES,
					 adapter->flags &
					 IXGBE_FLAG_FDIR_PERFECT_CAPABLE,
					 r->enabled && !adapter->xdp_prog);
	return r->queue >= 0;
}

/**
 * ixgbe_rxr_drop_queue() - no reserve queue without MSI-X
 * @adapter: the adapter, falling back to MSI or INTx
 *
 * There, only queue 0's interrupt is mapped: the RSS queues' fallback
 * runs alone.
 */
void ixgbe_rxr_drop_queue(struct ixgbe_adapter *adapter)
{
	if (ixgbe_rxr_queue(adapter) < 0)
		return;
	adapter->num_rx_queues--;
	adapter->rxr->queue = -1;
}

/**
 * ixgbe_rxr_is_queue() - whether a queue is the reserve queue
 * @adapter: the adapter
 * @queue: an RX queue index
 *
 * Return: true for the reserve queue, which takes rx-reserve's filters
 * only.
 */
bool ixgbe_rxr_is_queue(const struct ixgbe_adapter *adapter, u32 queue)
{
	int q = ixgbe_rxr_queue(adapter);

	return q >= 0 && queue == q;
}

/**
 * ixgbe_rxr_rss_queues() - the RX queues RSS and the administrator use
 * @adapter: the adapter
 *
 * Return: the RX queues, the reserve queue left out.
 */
u16 ixgbe_rxr_rss_queues(const struct ixgbe_adapter *adapter)
{
	return adapter->num_rx_queues - (ixgbe_rxr_queue(adapter) >= 0);
}

/**
 * ixgbe_rxr_relayout() - whether a change needs the queues laid out again
 * @adapter: the adapter
 *
 * The reserve queue comes with perfect filters and the private flag, in
 * the plain RSS layout.
 *
 * Return: true if the reserve queue should come or go.
 */
bool ixgbe_rxr_relayout(struct ixgbe_adapter *adapter)
{
	struct ixgbe_rxr *r = adapter->rxr;
	bool want;

	if (!r || adapter->flags & (IXGBE_FLAG_DCB_ENABLED |
				    IXGBE_FLAG_SRIOV_ENABLED |
				    IXGBE_FLAG_VMDQ_ENABLED) ||
	    !(adapter->flags & IXGBE_FLAG_MSIX_ENABLED) || adapter->xdp_prog)
		return false;
	want = r->enabled &&
	       adapter->flags & IXGBE_FLAG_FDIR_PERFECT_CAPABLE;
	return want != (ixgbe_rxr_queue(adapter) >= 0);
}

/**
 * ixgbe_rxr_ring_flags() - set the reserve queue's ring up
 * @adapter: the adapter, its rings' buffer flags just set
 *
 * One buffer per frame (no RSC, no page halves), of 2 KiB, or 3 KiB when
 * the MTU needs it, in a pool page.  Marks the ring so that ixgbe_poll(),
 * ixgbe_configure_rx_ring() and ixgbe_clean_rx_ring() hand it to
 * rx-reserve.
 */
void ixgbe_rxr_ring_flags(struct ixgbe_adapter *adapter)
{
	int i, q = ixgbe_rxr_queue(adapter);
	struct ixgbe_ring *ring;

	for (i = 0; i < adapter->num_rx_queues; i++) {
		ring = adapter->rx_ring[i];
		if (i != q) {
			clear_bit(__IXGBE_RX_RESERVE, &ring->state);
			continue;
		}
		set_bit(__IXGBE_RX_RESERVE, &ring->state);
		clear_ring_rsc_enabled(ring);
		clear_bit(__IXGBE_RX_BUILD_SKB_ENABLED, &ring->state);
		clear_bit(__IXGBE_RX_FCOE, &ring->state);
		if (adapter->netdev->mtu + ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN >
		    IXGBE_RXBUFFER_2K)
			set_bit(__IXGBE_RX_3K_BUFFER, &ring->state);
		else
			clear_bit(__IXGBE_RX_3K_BUFFER, &ring->state);
	}
}

/* The RSS queues: the software fallback */

/**
 * __ixgbe_rxr_lend() - a pool page for an RSS queue
 * @ring: the RSS queue, whose page allocation just failed
 *
 * The page is posted as the driver's own, with its pagecnt_bias; the
 * pool's reference keeps ixgbe from flipping it once a frame went up in
 * it, so it serves one frame per half at most.  It holds a reference on
 * its pool until it leaves the ring (ixgbe_rxr_unlend()).  Only order-0
 * rings borrow.
 *
 * Context: the ring's NAPI, or process context with it stopped.
 * Return: the page, or NULL.
 */
struct page *__ixgbe_rxr_lend(struct ixgbe_ring *ring)
{
	struct ixgbe_rxr *r = ring->q_vector->adapter->rxr;

	if (!r || !r->started || ring_is_rxr(ring) ||
	    test_bit(__IXGBE_RX_FCOE, &ring->state))
		return NULL;
	rxr_rx_alloc_failed(ring->netdev, ring->queue_index);
	if (ixgbe_rx_pg_order(ring))
		return NULL;
	return rxr_lend_page(ring->netdev, ring->queue_index,
			     ring->count - ixgbe_desc_unused(ring));
}

/* %RXR_COPY on an RSS queue: a copy goes up, the page stays with the
 * ring.
 */
static void ixgbe_rxr_copy_up(struct ixgbe_ring *ring,
			      union ixgbe_adv_rx_desc *desc, const void *data,
			      unsigned int size, const struct rxr_rx_buf *rb)
{
	struct ixgbe_q_vector *q_vector = ring->q_vector;
	struct sk_buff *skb;

	skb = rxr_napi_alloc_skb(&q_vector->napi, ring->queue_index, size);
	if (!skb) {
		rxr_rx_drop(ring->netdev, rb);
		return;
	}
	skb_put_data(skb, data, size);
	ixgbe_rxr_receive(q_vector, ring, desc, skb);
}

/**
 * __ixgbe_rxr_rx() - rx-reserve's verdict on a frame an RSS queue received
 * @ring: the RSS queue
 * @bi: the frame's first buffer
 * @desc: its descriptor
 * @data: the frame, in its buffer
 * @size: its length in that buffer
 * @rb: filled with the verdict's view of @bi, for rxr_rx_up()
 *
 * Carries out rxr_rx_verdict(): a lent page's owner goes up through
 * rxr_rx_up() (%IXGBE_RXR_OWNER), a frame to copy is copied up here and,
 * like a dropped one, leaves its buffer posted again in place.  Frames
 * that span buffers (jumbo, RSC) and FCoE rings are left alone.
 *
 * Context: the ring's NAPI.
 * Return: what the driver does with the frame.
 */
enum ixgbe_rxr_verdict __ixgbe_rxr_rx(struct ixgbe_ring *ring,
				      struct ixgbe_rx_buffer *bi,
				      union ixgbe_adv_rx_desc *desc,
				      const void *data, unsigned int size,
				      struct rxr_rx_buf *rb)
{
	struct ixgbe_rxr *r = ring->q_vector->adapter->rxr;
	enum rxr_verdict v;

	if (!r || !r->started ||
	    !ixgbe_test_staterr(desc, IXGBE_RXD_STAT_EOP) ||
	    (desc->wb.lower.lo_dword.data &
	     cpu_to_le32(IXGBE_RXDADV_RSCCNT_MASK)) ||
	    test_bit(__IXGBE_RX_FCOE, &ring->state))
		return IXGBE_RXR_PASS;
	v = rxr_rx_verdict(ring->netdev, ring->queue_index, bi->page, data,
			   size, rb);
	if (v == RXR_PASS)
		return IXGBE_RXR_PASS;
	switch (v) {
	case RXR_PASS_POOL:
		return IXGBE_RXR_OWNER;
	case RXR_COPY:
		ixgbe_rxr_copy_up(ring, desc, data, size, rb);
		break;
	default:
		break;
	}
	return IXGBE_RXR_RECYCLE;
}

/* Lifecycle */

/**
 * ixgbe_rxr_create() - set up rx-reserve for an adapter
 * @adapter: the adapter, before its queues are laid out
 *
 * Only 82599 and later parts have Flow Director perfect filters; the
 * 82598 runs without rx-reserve, as every adapter does after rx_reserve=off.
 *
 * Context: process context.
 * Return: 0, also when the adapter runs without rx-reserve; never fails
 * the probe.
 */
int ixgbe_rxr_create(struct ixgbe_adapter *adapter)
{
	struct ixgbe_rxr *r;
	int cpu;

	if (adapter->hw.mac.type == ixgbe_mac_82598EB || !rxr_available())
		return 0;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return 0;
	r->pcpu = alloc_percpu(struct ixgbe_rxr_pcpu);
	if (!r->pcpu) {
		kfree(r);
		return 0;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(r->pcpu, cpu)->syncp);
	r->adapter = adapter;
	r->enabled = true;
	r->queue = -1;
	r->reserve_q = -1;
	INIT_DELAYED_WORK(&r->fill_work, ixgbe_rxr_fill_work);
	adapter->rxr = r;
	return 0;
}

/**
 * ixgbe_rxr_destroy() - free rx-reserve's state
 * @adapter: the adapter, closed, its queues freed
 */
void ixgbe_rxr_destroy(struct ixgbe_adapter *adapter)
{
	struct ixgbe_rxr *r = adapter->rxr;

	if (!r)
		return;
	WARN_ON_ONCE(r->started);
	cancel_delayed_work_sync(&r->fill_work);
	adapter->rxr = NULL;
	free_percpu(r->pcpu);
	kfree(r);
}

static int ixgbe_rxr_refuse(struct ixgbe_rxr *r, enum ixgbe_rxr_refusal why,
			    int err)
{
	r->refused[why]++;
	if (!test_and_set_bit(why, &r->logged))
		netdev_info(r->adapter->netdev,
			    "rx-reserve: priority flows stay in software: %s\n",
			    ixgbe_rxr_refusal_text[why]);
	return err;
}

static void ixgbe_rxr_log_start(struct ixgbe_rxr *r, bool mtu_ok)
{
	struct net_device *netdev = r->adapter->netdev;

	if (r->reserve_q >= 0) {
		netdev_info(netdev,
			    "rx-reserve: RX queue %d is the reserve queue, perfect-filter locations %u-%u for priority flows\n",
			    r->reserve_q, r->slot_base,
			    r->slot_base + r->slots - 1);
		return;
	}
	if (!r->enabled)
		return;
	if (!(r->adapter->flags & IXGBE_FLAG_FDIR_PERFECT_CAPABLE)) {
		/* Counted at each attach, logged once. */
		ixgbe_rxr_refuse(r, IXGBE_RXR_NTUPLE_OFF, 0);
		return;
	}
	if (r->no_queue_logged)
		return;
	r->no_queue_logged = true;
	if (!mtu_ok)
		netdev_info(netdev,
			    "rx-reserve: MTU %u frames do not fit one reserve buffer: software fallback on the RSS queues only\n",
			    netdev->mtu);
	else
		netdev_info(netdev,
			    "rx-reserve: no reserve queue (it needs MSI-X, and no DCB, SR-IOV, macvlan offload or XDP program): software fallback on the RSS queues only\n");
}

/**
 * ixgbe_rxr_start() - attach the adapter to rx-reserve
 * @adapter: the adapter, up
 *
 * With a reserve queue, the core gets it and the perfect-filter locations
 * of ixgbe_rxr_slot_range(); without one, only the RSS queues' fallback.
 * Does nothing if attached: a change that alters what the adapter offers
 * (MTU, perfect filters) stops it first.  The flows stay registered.
 *
 * Context: process context, RTNL held.
 */
void ixgbe_rxr_start(struct ixgbe_adapter *adapter)
{
	struct rxr_dev_caps caps = { .reserve_queue = -1 };
	struct ixgbe_rxr *r = adapter->rxr;
	bool mtu_ok;
	int err, q;

	ASSERT_RTNL();
	if (!r || r->started)
		return;
	mtu_ok = ixgbe_rxr_mtu_served(adapter->netdev->mtu);
	q = ixgbe_rxr_queue(adapter);
	if (q >= 0 && mtu_ok && ring_is_rxr(adapter->rx_ring[q])) {
		r->slots = ixgbe_rxr_slot_range(adapter->fdir_pballoc,
						IXGBE_RXR_SLOTS,
						&r->slot_base);
		caps.reserve_queue = q;
		caps.hw_slots = r->slots;
		caps.slot_base = r->slot_base;
	}
	bitmap_zero(r->rules, IXGBE_RXR_SLOTS);
	err = rxr_dev_attach(adapter->netdev, &caps);
	if (err) {
		netdev_warn(adapter->netdev,
			    "rx-reserve: not attached: error %d\n", err);
		return;
	}
	r->started = true;
	if (!r->enabled)
		rxr_dev_set_enabled(adapter->netdev, false);
	WRITE_ONCE(r->reserve_q, r->enabled ? caps.reserve_queue : -1);
	ixgbe_rxr_log_start(r, mtu_ok);
}

/**
 * ixgbe_rxr_stop() - detach the adapter from rx-reserve
 * @adapter: the adapter
 *
 * The core deletes its filters first; the reserve queue's pages go back
 * when the adapter next goes down.
 *
 * Context: process context, RTNL held.
 */
void ixgbe_rxr_stop(struct ixgbe_adapter *adapter)
{
	struct ixgbe_rxr *r = adapter->rxr;

	ASSERT_RTNL();
	if (!r || !r->started)
		return;
	rxr_dev_detach(adapter->netdev);
	r->started = false;
	WRITE_ONCE(r->reserve_q, -1);
	r->slots = 0;
	bitmap_zero(r->rules, IXGBE_RXR_SLOTS);
	cancel_delayed_work(&r->fill_work);
}

/* Filters */

static bool ixgbe_rxr_location(const struct ixgbe_rxr *r, u32 loc)
{
	return r->started && r->slots && loc >= r->slot_base &&
	       loc - r->slot_base < r->slots;
}

/* Does an administrator's rule hold @loc, or filter this flow elsewhere?
 * fdir_perfect_lock held.
 */
static int ixgbe_rxr_taken(struct ixgbe_adapter *adapter,
			   const union ixgbe_atr_input *input,
			   const union ixgbe_atr_input *mask, u32 loc)
{
	struct ixgbe_fdir_filter *rule;
	union ixgbe_atr_input want = *input;
	union ixgbe_atr_input have;
	int i;

	for (i = 0; i < ARRAY_SIZE(want.dword_stream); i++)
		want.dword_stream[i] &= mask->dword_stream[i];
	want.formatted.bkt_hash = 0;
	hlist_for_each_entry(rule, &adapter->fdir_filter_list, fdir_node) {
		/* The core deletes its own rules before it reuses a slot. */
		if (rule->sw_idx == loc)
			return IXGBE_RXR_LOCATION;
		have = rule->filter;
		have.formatted.bkt_hash = 0;
		if (!memcmp(&have, &want, sizeof(want)))
			return IXGBE_RXR_DUPLICATE;
	}
	return 0;
}

/* Make sure the reserve queue holds buffers before a filter names it. */
static bool ixgbe_rxr_ready(struct ixgbe_rxr *r, struct ixgbe_ring *ring)
{
	struct ixgbe_adapter *adapter = r->adapter;

	if (ixgbe_rxr_posted(ring))
		return true;
	if (test_bit(__IXGBE_DOWN, &adapter->state) || !ring->q_vector)
		return false;
	napi_disable(&ring->q_vector->napi);
	ixgbe_rxr_fill(ring);
	napi_enable(&ring->q_vector->napi);
	/* The vector masks itself when it fires (EIAM), and only a poll
	 * unmasks it: one that fired while NAPI was off needs this poll.
	 */
	local_bh_disable();
	napi_schedule(&ring->q_vector->napi);
	local_bh_enable();
	return ixgbe_rxr_posted(ring);
}

/**
 * ixgbe_rxr_check_rule() - vet an ntuple insert before the driver's code
 * @adapter: the adapter
 * @cmd: %ETHTOOL_SRXCLSRLINS
 *
 * A rule of the core's range must be an exact TCP/IPv4 flow to the
 * reserve queue that the port's perfect filters can take next to the
 * administrator's; a refusal keeps the flow in software and is counted
 * and logged once.  The administrator's rules may not name the reserve
 * queue.
 *
 * Context: RTNL held.
 * Return: 0 to go on with ixgbe_add_ethtool_fdir_entry(); -EINVAL for a
 * rule of the core's range that is not an exact TCP/IPv4 flow;
 * -EOPNOTSUPP, -EBUSY, -EEXIST or -ENOBUFS for a refusal.
 */
int ixgbe_rxr_check_rule(struct ixgbe_adapter *adapter,
			 const struct ethtool_rxnfc *cmd)
{
	const struct ethtool_rx_flow_spec *fs = &cmd->fs;
	union ixgbe_atr_input input, mask;
	struct ixgbe_rxr *r = adapter->rxr;
	struct ixgbe_ring *ring;
	bool have_rules;
	u32 q;
	int why;

	ASSERT_RTNL();
	if (!r)
		return 0;
	q = ethtool_get_flow_spec_ring(fs->ring_cookie);
	if (!ixgbe_rxr_location(r, fs->location)) {
		if (fs->ring_cookie != RX_CLS_FLOW_DISC &&
		    !ethtool_get_flow_spec_ring_vf(fs->ring_cookie) &&
		    ixgbe_rxr_is_queue(adapter, q)) {
			e_err(drv, "RX queue %u is rx-reserve's reserve queue\n",
			      q);
			return -EBUSY;
		}
		return 0;
	}
	if ((fs->flow_type & ~FLOW_EXT) == TCP_V6_FLOW)
		return ixgbe_rxr_refuse(r, IXGBE_RXR_IPV6, -EOPNOTSUPP);
	if (!(adapter->flags & IXGBE_FLAG_FDIR_PERFECT_CAPABLE))
		return ixgbe_rxr_refuse(r, IXGBE_RXR_NTUPLE_OFF, -EOPNOTSUPP);
	ring = ixgbe_rxr_ring_of(r);
	if (!ring || q != ring->queue_index || !ring_is_rxr(ring))
		return ixgbe_rxr_refuse(r, IXGBE_RXR_NO_QUEUE, -EOPNOTSUPP);
	if (!ixgbe_rxr_fdir_spec(fs, &input, &mask))
		return -EINVAL;

	spin_lock(&adapter->fdir_perfect_lock);
	have_rules = !hlist_empty(&adapter->fdir_filter_list);
	why = ixgbe_rxr_fdir_conflict(&adapter->fdir_mask, have_rules, &mask);
	if (!why)
		why = ixgbe_rxr_taken(adapter, &input, &mask, fs->location);
	spin_unlock(&adapter->fdir_perfect_lock);
	if (why == IXGBE_RXR_MASK)
		return ixgbe_rxr_refuse(r, why, -EBUSY);
	if (why)
		return ixgbe_rxr_refuse(r, why, -EEXIST);

	if (!ixgbe_rxr_ready(r, ring))
		return ixgbe_rxr_refuse(r, IXGBE_RXR_RING_EMPTY, -ENOBUFS);
	return 0;
}

/**
 * ixgbe_rxr_rule_done() - note a filter of the core's range in or out
 * @adapter: the adapter
 * @cmd: %ETHTOOL_SRXCLSRLINS or %ETHTOOL_SRXCLSRLDEL
 * @err: its result
 *
 * While a filter names the reserve queue, a work item polls the queue so
 * that pages back in the pools are posted.
 *
 * Context: RTNL held.
 */
void ixgbe_rxr_rule_done(struct ixgbe_adapter *adapter,
			 const struct ethtool_rxnfc *cmd, int err)
{
	struct ixgbe_rxr *r = adapter->rxr;
	u32 slot;

	if (!r || err || !ixgbe_rxr_location(r, cmd->fs.location))
		return;
	slot = cmd->fs.location - r->slot_base;
	if (cmd->cmd == ETHTOOL_SRXCLSRLINS) {
		set_bit(slot, r->rules);
		schedule_delayed_work(&r->fill_work, IXGBE_RXR_FILL_INTERVAL);
	} else {
		clear_bit(slot, r->rules);
	}
}

/* ethtool */

/**
 * ixgbe_rxr_sset_count() - rx-reserve's ethtool statistics
 * @adapter: the adapter
 *
 * Return: their number, 0 without rx-reserve.
 */
int ixgbe_rxr_sset_count(struct ixgbe_adapter *adapter)
{
	if (!adapter->rxr)
		return 0;
	return rxr_ethtool_sset_count(adapter->netdev) +
	       ARRAY_SIZE(ixgbe_rxr_gauge_names) + IXGBE_RXR_REFUSAL_NUM +
	       IXGBE_RXR_STAT_NUM;
}

/**
 * ixgbe_rxr_get_strings() - the names of rx-reserve's statistics
 * @adapter: the adapter
 * @p: where to write; advanced
 */
void ixgbe_rxr_get_strings(struct ixgbe_adapter *adapter, u8 **p)
{
	unsigned int i;

	if (!adapter->rxr)
		return;
	rxr_ethtool_get_strings(adapter->netdev, p);
	for (i = 0; i < ARRAY_SIZE(ixgbe_rxr_gauge_names); i++)
		ethtool_puts(p, ixgbe_rxr_gauge_names[i]);
	for (i = 0; i < IXGBE_RXR_REFUSAL_NUM; i++)
		ethtool_puts(p, ixgbe_rxr_refusal_names[i]);
	for (i = 0; i < IXGBE_RXR_STAT_NUM; i++)
		ethtool_puts(p, ixgbe_rxr_stat_names[i]);
}

/**
 * ixgbe_rxr_get_stats() - rx-reserve's statistics
 * @adapter: the adapter
 * @data: where to write, ixgbe_rxr_sset_count() of them
 *
 * Context: RTNL held.
 */
void ixgbe_rxr_get_stats(struct ixgbe_adapter *adapter, u64 *data)
{
	struct ixgbe_rxr *r = adapter->rxr;
	const struct ixgbe_rxr_pcpu *s;
	u64 v[IXGBE_RXR_STAT_NUM];
	struct ixgbe_ring *ring;
	unsigned int i, start;
	int cpu;

	if (!r)
		return;
	rxr_ethtool_get_stats(adapter->netdev, &data);
	ring = ixgbe_rxr_ring_of(r);
	*data++ = !r->started || !r->enabled ? 0 : r->reserve_q >= 0 ? 2 : 1;
	*data++ = r->reserve_q >= 0 ? r->reserve_q : 0;
	*data++ = r->slots;
	*data++ = bitmap_weight(r->rules, IXGBE_RXR_SLOTS);
	*data++ = ring && ring_is_rxr(ring) ? ixgbe_rxr_posted(ring) : 0;
	for (i = 0; i < IXGBE_RXR_REFUSAL_NUM; i++)
		*data++ = r->refused[i];
	memset(data, 0, IXGBE_RXR_STAT_NUM * sizeof(*data));
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(r->pcpu, cpu);
		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < IXGBE_RXR_STAT_NUM; i++)
				v[i] = u64_stats_read(&s->stat[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < IXGBE_RXR_STAT_NUM; i++)
			data[i] += v[i];
	}
}

/**
 * ixgbe_rxr_get_priv_flag() - the rx-reserve private flag
 * @adapter: the adapter
 *
 * Return: true while rx-reserve is on.
 */
bool ixgbe_rxr_get_priv_flag(struct ixgbe_adapter *adapter)
{
	return adapter->rxr && adapter->rxr->enabled;
}

/**
 * ixgbe_rxr_set_priv_flag() - turn rx-reserve on or off
 * @adapter: the adapter
 * @on: the flag asked for
 *
 * Where the reserve queue comes or goes with the flag, the queues are laid
 * out again, as a channel count change does (ixgbe_setup_tc()); elsewhere
 * the core is told.  The flows stay registered and get their filters back
 * when the flag is on again.
 *
 * Context: process context, RTNL held.
 * Return: 0; -EOPNOTSUPP without rx-reserve (82598); the re-layout's
 * error, the flag unchanged.
 */
int ixgbe_rxr_set_priv_flag(struct ixgbe_adapter *adapter, bool on)
{
	struct net_device *netdev = adapter->netdev;
	struct ixgbe_rxr *r = adapter->rxr;
	int err;

	ASSERT_RTNL();
	if (!r)
		return on ? -EOPNOTSUPP : 0;
	if (on == r->enabled)
		return 0;
	r->enabled = on;
	r->no_queue_logged = false;
	if (!ixgbe_rxr_relayout(adapter)) {
		/* No reserve queue either way: the fallback goes or comes. */
		if (r->started)
			rxr_dev_set_enabled(netdev, on);
		return 0;
	}
	err = ixgbe_setup_tc(netdev, netdev_get_num_tc(netdev));
	if (err) {
		netdev_err(netdev,
			   "rx-reserve: laying out the queues again: error %d\n",
			   err);
		r->enabled = !on;
	}
	return err;
}
