// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve for e1000e.
 *
 * The 82574 has two RX queues and RSS with a 128-entry redirection table
 * (RETA), but no exact-match flow filters; Linux's e1000e uses queue 0
 * alone.  Here queue 1 becomes rx-reserve's reserve queue: it has its own
 * MSI-X vector and NAPI, and holds what rxr_queue_page() gives: pool
 * pages, and pages of its own while memory is fine.  A priority flow is
 * steered there by its RETA bucket: the driver computes the flow's
 * Toeplitz hash with the key it programmed (net/core/rx_reserve_rss.c)
 * and sets bit 7 (queue 1) of that entry.  The buckets are offered to the
 * core as 32 approximate slots.  Frames of other flows that share a
 * bucket are copied up while memory is fine and dropped in emergency
 * mode; their buffers are reposted in place.
 *
 * Queue 0 keeps the driver's own buffers.  When a refill fails it borrows
 * a pool page (wrapped in an skb, so the driver's path handles it as
 * usual), and only the page's owner flow keeps it; in emergency mode every
 * non-priority frame's buffer is reposted in place, so queue 0 never
 * empties.  That matters twice on QEMU's model: a frame for a ring with
 * no descriptors stops reception on every queue.
 *
 * Without an MSI-X vector for queue 1 (MSI or INTx), or with jumbo or
 * packet-split receive, there is no reserve queue: queue 0's fallback
 * runs alone in the first case, and nothing in the second, and dmesg
 * says so once.
 */

#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <linux/unaligned.h>
#include <net/rx_reserve.h>
#include <net/rx_reserve_rss.h>

#include "e1000.h"
#include "rx_reserve.h"

/* The reserve queue's descriptors: a multiple of 8 (RDLEN in 128 bytes).
 * At most RING - 1 are posted, so the pools keep pages to replace
 * buffers with.
 */
#define E1000E_RXR_RING		64
/* Where a frame starts in a pool page, and the bytes it may take: the
 * 2048-byte buffer size of the MTUs served, below skb_shared_info.
 */
#define E1000E_RXR_HEADROOM	(NET_SKB_PAD + NET_IP_ALIGN)
#define E1000E_RXR_BUF_LEN	2048
#define E1000E_RXR_QUEUE	1
#define E1000E_RXR_VECTOR	3
#define E1000E_RXR_RETA_SIZE	128
/* The fields hashed while priority flows are steered: TCP only, so that
 * UDP and everything else stay on queue 0.
 */
#define E1000E_RXR_MRQC		(E1000_MRQC_RSS_FIELD_IPV4_TCP |	\
				 E1000_MRQC_RSS_FIELD_IPV6_TCP_EX |	\
				 E1000_MRQC_RSS_FIELD_IPV6_TCP)
#define E1000E_RXR_MRQC_RSS	1	/* MRQC.MRQE: RSS, two queues */
#define E1000E_RXR_FILL_INTERVAL	(HZ / 20)

/*
 * The rings' events; the core counts rx-reserve's (priority, steered,
 * lent, copied, recycled, dropped), per queue too.  passed: frames of no
 * priority flow that queue 1 passed up in a page of the driver's own;
 * errors: frames the device flagged, dropped with their buffer reposted.
 */
enum {
	E1000E_RXR_Q_PACKETS,
	E1000E_RXR_Q_PASSED,
	E1000E_RXR_Q_ERRORS,
	E1000E_RXR_Q_EMPTY,
	E1000E_RXR_Q_LENT_LOW,
	E1000E_RXR_Q_DRY,
	E1000E_RXR_Q_NUM,
};

static const char e1000e_rxr_q_names[E1000E_RXR_Q_NUM][ETH_GSTRING_LEN] = {
	"packets", "passed", "errors", "empty", "lent_low", "dry",
};

static const char e1000e_rxr_dev_names[][ETH_GSTRING_LEN] = {
	"rx_reserve_rss_buckets",
	"rx_reserve_queues",
};

struct e1000e_rxr_q {
	struct u64_stats_sync syncp;
	u64_stats_t stat[E1000E_RXR_Q_NUM];
};

struct e1000e_rxr_buf {
	struct page *page;
	dma_addr_t dma;
};

/**
 * struct e1000e_rxr - rx-reserve's state for one adapter
 * @adapter: the adapter
 * @napi: the reserve queue's NAPI
 * @desc: its descriptors
 * @desc_dma: their bus address
 * @buf: the pool page behind each descriptor
 * @ntu: next descriptor to post
 * @ntc: next descriptor to clean
 * @discarding: dropping the rest of a frame that spans buffers
 * @irq: queue 1's MSI-X vector is requested
 * @napi_on: @napi is enabled
 * @ring_on: queue 1 is programmed in the device
 * @mode_ok: the legacy receive path is in use (not jumbo, packet split)
 * @started: attached to the core
 * @enabled: the rx-reserve private flag
 * @logged: the reason for running without a reserve queue was logged
 * @cfg_q: the reserve queue the configuration allows, or -1
 * @reserve_q: the reserve queue in use, or -1; read by the datapath
 * @buckets: RETA entries pointed at queue 1
 * @mrqc: MRQC as the driver programmed it, restored without flows
 * @rxcsum: RXCSUM likewise
 * @rss: the slots and the flows in them
 * @key: the RSS key programmed
 * @name: queue 1's interrupt name
 * @fill_work: posts pages that came back to the pools, while a flow is
 *	steered
 * @q: per-queue counters
 */
struct e1000e_rxr {
	struct e1000_adapter *adapter;
	struct napi_struct napi;
	union e1000_rx_desc_extended *desc;
	dma_addr_t desc_dma;
	struct e1000e_rxr_buf buf[E1000E_RXR_RING];
	unsigned int ntu;
	unsigned int ntc;
	bool discarding;
	bool irq;
	bool napi_on;
	bool ring_on;
	bool mode_ok;
	bool started;
	bool enabled;
	bool logged;
	int cfg_q;
	int reserve_q;
	unsigned int buckets;
	u32 mrqc;
	u32 rxcsum;
	struct rxr_rss rss;
	u8 key[RXR_RSS_KEY_SIZE];
	char name[IFNAMSIZ + 5];
	struct delayed_work fill_work;
	struct e1000e_rxr_q q[2];
};

static void e1000e_rxr_count(struct e1000e_rxr *r, unsigned int q, int stat,
			     u64 n)
{
	u64_stats_update_begin(&r->q[q].syncp);
	u64_stats_add(&r->q[q].stat[stat], n);
	u64_stats_update_end(&r->q[q].syncp);
}

static unsigned int e1000e_rxr_unused(const struct e1000e_rxr *r)
{
	return E1000E_RXR_RING - 1 -
	       (r->ntu + E1000E_RXR_RING - r->ntc) % E1000E_RXR_RING;
}

static struct device *e1000e_rxr_dmadev(const struct e1000e_rxr *r)
{
	return &r->adapter->pdev->dev;
}

static void e1000e_rxr_fill_work(struct work_struct *work)
{
	struct e1000e_rxr *r = container_of(to_delayed_work(work),
					    struct e1000e_rxr, fill_work);

	/* Only while a flow is steered: no timer runs without one. */
	if (READ_ONCE(r->reserve_q) < 0 || !READ_ONCE(r->buckets))
		return;
	napi_schedule(&r->napi);
	schedule_delayed_work(&r->fill_work, E1000E_RXR_FILL_INTERVAL);
}

/* Put @page, mapped at @dma, behind the next free descriptor. */
static void e1000e_rxr_post(struct e1000e_rxr *r, struct page *page,
			    dma_addr_t dma)
{
	union e1000_rx_desc_extended *d = &r->desc[r->ntu];

	r->buf[r->ntu].page = page;
	r->buf[r->ntu].dma = dma;
	d->read.buffer_addr = cpu_to_le64(dma);
	d->read.reserved = 0;
	r->ntu = (r->ntu + 1) % E1000E_RXR_RING;
}

static void e1000e_rxr_kick(struct e1000e_rxr *r)
{
	/* Descriptors before the tail: the device may fetch them. */
	wmb();
	writel(r->ntu, r->adapter->hw.hw_addr + E1000_RDT(E1000E_RXR_QUEUE));
}

/* Post rxr_queue_page()'s pages on queue 1 until it is full or there are
 * none: atomic allocations at most, never a wait.  Context: the queue's
 * NAPI, or NAPI disabled.
 */
static unsigned int e1000e_rxr_fill(struct e1000e_rxr *r)
{
	struct device *dev = e1000e_rxr_dmadev(r);
	unsigned int n = 0;
	struct page *page;
	dma_addr_t dma;

	while (e1000e_rxr_unused(r)) {
		page = rxr_queue_page(r->adapter->netdev);
		if (!page)
			break;
		dma = dma_map_page(dev, page, E1000E_RXR_HEADROOM,
				   E1000E_RXR_BUF_LEN, DMA_FROM_DEVICE);
		if (dma_mapping_error(dev, dma)) {
			put_page(page);
			break;
		}
		e1000e_rxr_post(r, page, dma);
		n++;
	}
	if (n)
		e1000e_rxr_kick(r);
	if (r->ntu == r->ntc && r->buckets)
		e1000e_rxr_count(r, E1000E_RXR_QUEUE, E1000E_RXR_Q_EMPTY, 1);
	return n;
}

/* Unmap and give back every page on queue 1.  Context: NAPI disabled. */
static void e1000e_rxr_clean(struct e1000e_rxr *r)
{
	struct e1000e_rxr_buf *b;
	unsigned int i;

	for (i = 0; i < E1000E_RXR_RING; i++) {
		b = &r->buf[i];
		if (!b->page)
			continue;
		dma_unmap_page(e1000e_rxr_dmadev(r), b->dma,
			       E1000E_RXR_BUF_LEN, DMA_FROM_DEVICE);
		put_page(b->page);
		b->page = NULL;
	}
	memset(r->desc, 0, E1000E_RXR_RING * sizeof(*r->desc));
	r->ntu = 0;
	r->ntc = 0;
	r->discarding = false;
}

static void e1000e_rxr_napi_off(struct e1000e_rxr *r)
{
	if (r->napi_on) {
		napi_disable(&r->napi);
		r->napi_on = false;
	}
}

static void e1000e_rxr_napi_on(struct e1000e_rxr *r)
{
	if (!r->napi_on) {
		napi_enable(&r->napi);
		r->napi_on = true;
	}
}

/* RSS */

/**
 * e1000e_rxr_reta() - the redirection table for a set of buckets
 * @reta: the 32 RETA registers, written
 * @map: the buckets of queue 1, %E1000E_RXR_RETA_SIZE bits
 *
 * Entry n is byte n % 4 of register n / 4; its bit 7 names queue 1.
 */
static void e1000e_rxr_reta(u32 *reta, const unsigned long *map)
{
	unsigned int i;

	for (i = 0; i < E1000E_RXR_RETA_SIZE / 4; i++)
		reta[i] = 0;
	for_each_set_bit(i, map, E1000E_RXR_RETA_SIZE)
		reta[i / 4] |= 0x80U << (8 * (i % 4));
}

static u32 e1000e_rxr_types(void)
{
	return RXR_RSS_TCPV4 | RXR_RSS_TCPV6;
}

/* Point the flows' buckets at queue 1, or give the device the driver's
 * own RSS setup back when there are none.  Queue 1 must hold buffers
 * before an entry names it.  Context: RTNL, or the device being set up.
 */
static void e1000e_rxr_rss_write(struct e1000e_rxr *r)
{
	DECLARE_BITMAP(map, E1000E_RXR_RETA_SIZE);
	struct e1000_hw *hw = &r->adapter->hw;
	u32 reta[E1000E_RXR_RETA_SIZE / 4];
	unsigned int i, n = 0;

	if (r->ring_on && READ_ONCE(r->reserve_q) >= 0 && r->ntu != r->ntc)
		n = rxr_rss_buckets(&r->rss, r->key, e1000e_rxr_types(),
				    E1000E_RXR_RETA_SIZE, map);
	if (!n) {
		/* Queue 0 first, then the hash setup of e1000e_configure. */
		for (i = 0; i < ARRAY_SIZE(reta); i++)
			ew32(RETA(i), 0);
		ew32(MRQC, r->mrqc);
		ew32(RXCSUM, r->rxcsum);
		WRITE_ONCE(r->buckets, 0);
		return;
	}
	for (i = 0; i < RXR_RSS_KEY_SIZE / 4; i++)
		ew32(RSSRK(i), get_unaligned_le32(&r->key[4 * i]));
	ew32(RXCSUM, r->rxcsum | E1000_RXCSUM_PCSD);
	e1000e_rxr_reta(reta, map);
	for (i = 0; i < ARRAY_SIZE(reta); i++)
		ew32(RETA(i), reta[i]);
	ew32(MRQC, E1000E_RXR_MRQC | E1000E_RXR_MRQC_RSS);
	e1e_flush();
	WRITE_ONCE(r->buckets, n);
	/* Posts the pages that come back while queue 1 receives nothing. */
	schedule_delayed_work(&r->fill_work, E1000E_RXR_FILL_INTERVAL);
}

/* Program queue 1, post what the pools give, and point the flows'
 * buckets at it.  Context: process context, queue 1's NAPI disabled.
 */
static void e1000e_rxr_ring_up(struct e1000e_rxr *r)
{
	struct e1000_hw *hw = &r->adapter->hw;

	ew32(RDBAL(E1000E_RXR_QUEUE), lower_32_bits(r->desc_dma));
	ew32(RDBAH(E1000E_RXR_QUEUE), upper_32_bits(r->desc_dma));
	ew32(RDLEN(E1000E_RXR_QUEUE), E1000E_RXR_RING * sizeof(*r->desc));
	ew32(RDH(E1000E_RXR_QUEUE), 0);
	ew32(RDT(E1000E_RXR_QUEUE), 0);
	r->ring_on = true;
	if (READ_ONCE(r->reserve_q) >= 0)
		e1000e_rxr_fill(r);
	e1000e_rxr_rss_write(r);
}

/* Lifecycle */

static int e1000e_rxr_poll(struct napi_struct *napi, int budget);

/**
 * e1000e_rxr_create() - set up rx-reserve for an adapter
 * @adapter: the adapter, its netdev not yet registered
 *
 * Context: process context.
 * Return: 0, also when the adapter runs without rx-reserve (rx_reserve=off,
 * or no memory for the reserve queue's descriptors); never fails the probe.
 */
int e1000e_rxr_create(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r;

	if (!rxr_available())
		return 0;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return 0;
	r->desc = dma_alloc_coherent(&adapter->pdev->dev,
				     E1000E_RXR_RING * sizeof(*r->desc),
				     &r->desc_dma, GFP_KERNEL);
	if (!r->desc) {
		kfree(r);
		return 0;
	}
	r->adapter = adapter;
	r->enabled = true;
	r->cfg_q = -1;
	r->reserve_q = -1;
	u64_stats_init(&r->q[0].syncp);
	u64_stats_init(&r->q[1].syncp);
	netdev_rss_key_fill(r->key, sizeof(r->key));
	INIT_DELAYED_WORK(&r->fill_work, e1000e_rxr_fill_work);
	netif_napi_add(adapter->netdev, &r->napi, e1000e_rxr_poll);
	adapter->rxr = r;
	return 0;
}

/**
 * e1000e_rxr_destroy() - free rx-reserve's state
 * @adapter: the adapter, closed
 */
void e1000e_rxr_destroy(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;

	if (!r)
		return;
	WARN_ON_ONCE(r->started);
	cancel_delayed_work_sync(&r->fill_work);
	e1000e_rxr_napi_off(r);
	netif_napi_del(&r->napi);
	e1000e_rxr_clean(r);
	dma_free_coherent(&adapter->pdev->dev,
			  E1000E_RXR_RING * sizeof(*r->desc), r->desc,
			  r->desc_dma);
	adapter->rxr = NULL;
	kfree(r);
}

static void e1000e_rxr_log(struct e1000e_rxr *r)
{
	struct net_device *netdev = r->adapter->netdev;

	if (r->cfg_q >= 0) {
		netdev_info(netdev,
			    "rx-reserve: RX queue 1 is the reserve queue, %u RETA buckets for priority flows\n",
			    r->rss.nslots);
		return;
	}
	if (r->logged)
		return;
	r->logged = true;
	if (!r->mode_ok)
		netdev_info(netdev,
			    "rx-reserve: jumbo and packet-split receive are not served: no reserve queue and no fallback\n");
	else
		netdev_info(netdev,
			    "rx-reserve: no MSI-X vector for RX queue 1: software fallback on queue 0 only\n");
}

static void e1000e_rxr_reclaim(struct net_device *netdev, unsigned int rxq);

static const struct rxr_dev_ops e1000e_rxr_dev_ops = {
	.reclaim = e1000e_rxr_reclaim,
};

/**
 * e1000e_rxr_start() - attach the adapter to rx-reserve
 * @adapter: the adapter, open
 *
 * Queue 1 becomes the reserve queue when it has its MSI-X vector and the
 * legacy receive path is in use; otherwise queue 0's fallback runs alone.
 * Called again after an MTU change, it re-attaches; the flows stay.
 *
 * Context: process context, RTNL held.
 * Return: 0 or the core's error.
 */
int e1000e_rxr_start(struct e1000_adapter *adapter)
{
	struct rxr_dev_caps caps = { .reserve_queue = -1 };
	struct e1000e_rxr *r = adapter->rxr;
	int err;

	ASSERT_RTNL();
	if (!r)
		return 0;
	if (r->started)
		e1000e_rxr_stop(adapter);
	rxr_rss_init(&r->rss, 0, 0);
	if (r->irq && r->mode_ok) {
		rxr_rss_init(&r->rss, E1000E_RXR_RETA_SIZE, E1000E_RXR_QUEUE);
		caps.reserve_queue = E1000E_RXR_QUEUE;
		caps.hw_slots = r->rss.nslots;
		caps.approx_slots = true;
		caps.ring_stall = true;
		caps.ops = &e1000e_rxr_dev_ops;
	}
	err = rxr_dev_attach(adapter->netdev, &caps);
	if (err) {
		netdev_warn(adapter->netdev,
			    "rx-reserve: not attached: error %d\n", err);
		rxr_rss_init(&r->rss, 0, 0);
		return err;
	}
	r->cfg_q = caps.reserve_queue;
	r->started = true;
	if (!r->enabled)
		rxr_dev_set_enabled(adapter->netdev, false);
	WRITE_ONCE(r->reserve_q, r->enabled ? r->cfg_q : -1);
	if (r->cfg_q >= 0 && !r->ring_on &&
	    !test_bit(__E1000_DOWN, &adapter->state)) {
		e1000e_rxr_napi_off(r);
		e1000e_rxr_ring_up(r);
		e1000e_rxr_napi_on(r);
	}
	e1000e_rxr_log(r);
	return 0;
}

/* Stop using queue 1: RSS back to queue 0, then its pages back to the
 * pools.  Context: RTNL held, process context.
 */
static void e1000e_rxr_quiesce(struct e1000e_rxr *r)
{
	bool napi_was_on = r->napi_on;

	WRITE_ONCE(r->reserve_q, -1);
	cancel_delayed_work_sync(&r->fill_work);
	if (!r->ring_on)
		return;
	e1000e_rxr_rss_write(r);
	e1000e_rxr_napi_off(r);
	e1000e_rxr_clean(r);
	writel(0, r->adapter->hw.hw_addr + E1000_RDH(E1000E_RXR_QUEUE));
	writel(0, r->adapter->hw.hw_addr + E1000_RDT(E1000E_RXR_QUEUE));
	if (napi_was_on)
		e1000e_rxr_napi_on(r);
}

/* The core's request for queue 1's pages back, after a flow left it:
 * queue 1 is emptied with its buckets pointed back at queue 0 for the
 * moment, and posted again from the pools of the flows still there.
 * Context: process context, RTNL held.
 */
static void e1000e_rxr_reclaim(struct net_device *netdev, unsigned int rxq)
{
	struct e1000_adapter *adapter = netdev_priv(netdev);
	struct e1000e_rxr *r = adapter->rxr;
	bool napi_was_on;

	ASSERT_RTNL();
	if (!r || !r->started || rxq != E1000E_RXR_QUEUE || !r->ring_on ||
	    READ_ONCE(r->reserve_q) < 0)
		return;
	e1000e_rxr_quiesce(r);
	WRITE_ONCE(r->reserve_q, r->cfg_q);
	napi_was_on = r->napi_on;
	if (napi_was_on)
		e1000e_rxr_napi_off(r);
	e1000e_rxr_fill(r);
	e1000e_rxr_rss_write(r);
	if (napi_was_on)
		e1000e_rxr_napi_on(r);
}

/**
 * e1000e_rxr_stop() - detach the adapter from rx-reserve
 * @adapter: the adapter
 *
 * Context: process context, RTNL held.
 */
void e1000e_rxr_stop(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;

	ASSERT_RTNL();
	if (!r || !r->started)
		return;
	r->started = false;
	rxr_rss_init(&r->rss, 0, 0);
	e1000e_rxr_quiesce(r);
	r->cfg_q = -1;
	rxr_dev_detach(adapter->netdev);
}

/* Interrupts */

static irqreturn_t e1000e_rxr_intr(int irq, void *data)
{
	struct e1000e_rxr *r = data;

	napi_schedule(&r->napi);
	return IRQ_HANDLED;
}

/**
 * e1000e_rxr_request_irq() - request queue 1's MSI-X vector
 * @adapter: the adapter, with MSI-X vectors enabled
 *
 * Without the vector (fewer vectors granted, or the request failing), the
 * adapter runs without a reserve queue.
 */
void e1000e_rxr_request_irq(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;
	int err;

	if (!r || !adapter->msix_entries ||
	    adapter->num_vectors <= E1000E_RXR_VECTOR)
		return;
	snprintf(r->name, sizeof(r->name), "%.14s-rx-1",
		 adapter->netdev->name);
	err = request_irq(adapter->msix_entries[E1000E_RXR_VECTOR].vector,
			  e1000e_rxr_intr, 0, r->name, r);
	if (err)
		netdev_warn(adapter->netdev,
			    "rx-reserve: RX queue 1 interrupt: error %d\n",
			    err);
	r->irq = !err;
}

/**
 * e1000e_rxr_free_irq() - free queue 1's MSI-X vector
 * @adapter: the adapter
 */
void e1000e_rxr_free_irq(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;

	if (!r || !r->irq)
		return;
	free_irq(adapter->msix_entries[E1000E_RXR_VECTOR].vector, r);
	r->irq = false;
}

/**
 * e1000e_rxr_configure_msix() - route queue 1's cause to its vector
 * @adapter: the adapter
 *
 * Adds queue 1's cause to the auto-cleared causes and sets its vector's
 * throttling like queue 0's.
 *
 * Return: the IVAR bits of queue 1, or 0.
 */
u32 e1000e_rxr_configure_msix(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;
	struct e1000_hw *hw = &adapter->hw;
	u32 itr = adapter->rx_ring->itr_val;

	if (!r || !r->irq)
		return 0;
	adapter->eiac_mask |= E1000_IMS_RXQ1;
	writel(itr ? 1000000000 / (itr * 256) : 1,
	       hw->hw_addr + E1000_EITR_82574(E1000E_RXR_VECTOR));
	return (E1000_IVAR_INT_ALLOC_VALID | E1000E_RXR_VECTOR) << 4;
}

/**
 * e1000e_rxr_configure() - program queue 1 and RSS
 * @adapter: the adapter, receives disabled
 *
 * Called where the driver programs queue 0.  Queue 1 gets its ring and as
 * many pool pages as the pools give, then RETA points the flows' buckets
 * at it.  On open, queue 1's vector is requested later:
 * e1000e_rxr_start() programs it then.
 *
 * Context: process context, the adapter being brought up.
 */
void e1000e_rxr_configure(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;
	struct e1000_hw *hw = &adapter->hw;

	if (!r)
		return;
	r->mode_ok = !adapter->rx_ps_pages &&
		     adapter->netdev->mtu <= ETH_FRAME_LEN + ETH_FCS_LEN &&
		     adapter->rx_buffer_len <= E1000E_RXR_BUF_LEN;
	r->mrqc = er32(MRQC);
	r->rxcsum = er32(RXCSUM);
	e1000e_rxr_napi_off(r);
	e1000e_rxr_clean(r);
	r->ring_on = false;
	ew32(RDLEN(E1000E_RXR_QUEUE), 0);
	if (r->irq && r->mode_ok)
		e1000e_rxr_ring_up(r);
	e1000e_rxr_napi_on(r);
}

/**
 * e1000e_rxr_down() - the adapter goes down
 * @adapter: the adapter, interrupts disabled
 *
 * Queue 1's pages go back to the pools; e1000e_rxr_configure() posts
 * again.
 */
void e1000e_rxr_down(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;

	if (!r)
		return;
	e1000e_rxr_napi_off(r);
	e1000e_rxr_clean(r);
	r->ring_on = false;
	e1000e_rxr_napi_on(r);
}

/* The reserve queue's datapath */

/* Post a received buffer again, in place. */
static void e1000e_rxr_repost(struct e1000e_rxr *r, struct e1000e_rxr_buf *b)
{
	dma_sync_single_for_device(e1000e_rxr_dmadev(r), b->dma,
				   E1000E_RXR_BUF_LEN, DMA_FROM_DEVICE);
	e1000e_rxr_post(r, b->page, b->dma);
}

/* A buffer rx-reserve keeps: reposted in place, or, a page that no longer
 * belongs on the queue (@release), given back to its pool; the next fill
 * posts what the pools have instead.
 */
static void e1000e_rxr_keep(struct e1000e_rxr *r, struct e1000e_rxr_buf *b,
			    bool release)
{
	if (!release) {
		e1000e_rxr_repost(r, b);
		return;
	}
	dma_unmap_page(e1000e_rxr_dmadev(r), b->dma, E1000E_RXR_BUF_LEN,
		       DMA_FROM_DEVICE);
	put_page(b->page);
}

static void e1000e_rxr_receive(struct e1000e_rxr *r, struct sk_buff *skb,
			       u32 staterr, __le16 vlan)
{
	struct e1000_adapter *adapter = r->adapter;

	e1000e_rx_checksum(adapter, staterr, skb);
	skb_record_rx_queue(skb, E1000E_RXR_QUEUE);
	skb->protocol = eth_type_trans(skb, adapter->netdev);
	if (staterr & E1000_RXD_STAT_VP)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       le16_to_cpu(vlan));
	napi_gro_receive(&r->napi, skb);
}

/* %RXR_PASS_POOL: a replacement is posted first, if the pools have one:
 * a priority frame is not dropped for want of it, the fill posts pages
 * again as they come back.
 */
static void e1000e_rxr_up(struct e1000e_rxr *r, struct e1000e_rxr_buf *b,
			  unsigned int len, u32 staterr, __le16 vlan,
			  const struct rxr_rx_buf *rb)
{
	struct net_device *netdev = r->adapter->netdev;
	struct device *dev = e1000e_rxr_dmadev(r);
	struct sk_buff *skb;
	struct page *repl;
	dma_addr_t dma;

	repl = rxr_queue_page(netdev);
	if (repl) {
		dma = dma_map_page(dev, repl, E1000E_RXR_HEADROOM,
				   E1000E_RXR_BUF_LEN, DMA_FROM_DEVICE);
		if (dma_mapping_error(dev, dma))
			put_page(repl);
		else
			e1000e_rxr_post(r, repl, dma);
	}
	dma_unmap_page(dev, b->dma, E1000E_RXR_BUF_LEN, DMA_FROM_DEVICE);
	skb = rxr_build_skb(rb, page_address(b->page), PAGE_SIZE);
	if (!skb) {
		/* The page is back with its pool. */
		put_page(b->page);
		rxr_rx_drop(netdev, rb);
		return;
	}
	skb_reserve(skb, E1000E_RXR_HEADROOM);
	skb_put(skb, len);
	if (!rxr_rx_up(netdev, skb, rb)) {
		dev_kfree_skb_any(skb);
		rxr_rx_drop(netdev, rb);
		return;
	}
	if (!rb->flow)
		e1000e_rxr_count(r, E1000E_RXR_QUEUE, E1000E_RXR_Q_PASSED, 1);
	e1000e_rxr_receive(r, skb, staterr, vlan);
}

/* %RXR_COPY: a copy goes up, the buffer stays. */
static void e1000e_rxr_copy(struct e1000e_rxr *r, struct e1000e_rxr_buf *b,
			    unsigned int len, u32 staterr, __le16 vlan,
			    const struct rxr_rx_buf *rb)
{
	struct sk_buff *skb;

	skb = rxr_napi_alloc_skb(&r->napi, E1000E_RXR_QUEUE, len);
	if (skb)
		skb_put_data(skb, page_address(b->page) + E1000E_RXR_HEADROOM,
			     len);
	e1000e_rxr_keep(r, b, rb->release);
	if (!skb) {
		rxr_rx_drop(r->adapter->netdev, rb);
		return;
	}
	e1000e_rxr_receive(r, skb, staterr, vlan);
}

static int e1000e_rxr_clean_rx(struct e1000e_rxr *r, int budget)
{
	struct e1000_adapter *adapter = r->adapter;
	struct device *dev = e1000e_rxr_dmadev(r);
	union e1000_rx_desc_extended *d;
	struct e1000e_rxr_buf b;
	struct rxr_rx_buf rb;
	enum rxr_verdict v;
	unsigned int len;
	int done = 0;
	u32 staterr;
	__le16 vlan;

	while (done < budget && r->ntc != r->ntu) {
		d = &r->desc[r->ntc];
		staterr = le32_to_cpu(d->wb.upper.status_error);
		if (!(staterr & E1000_RXD_STAT_DD))
			break;
		dma_rmb();
		len = le16_to_cpu(d->wb.upper.length);
		vlan = d->wb.upper.vlan;
		b = r->buf[r->ntc];
		r->buf[r->ntc].page = NULL;
		r->ntc = (r->ntc + 1) % E1000E_RXR_RING;
		done++;
		dma_sync_single_for_cpu(dev, b.dma, E1000E_RXR_BUF_LEN,
					DMA_FROM_DEVICE);
		e1000e_rxr_count(r, E1000E_RXR_QUEUE, E1000E_RXR_Q_PACKETS, 1);

		if (!(staterr & E1000_RXD_STAT_EOP))
			r->discarding = true;
		if (r->discarding ||
		    ((staterr & E1000_RXDEXT_ERR_FRAME_ERR_MASK) &&
		     !(adapter->netdev->features & NETIF_F_RXALL))) {
			if (staterr & E1000_RXD_STAT_EOP)
				r->discarding = false;
			e1000e_rxr_repost(r, &b);
			e1000e_rxr_count(r, E1000E_RXR_QUEUE,
					 E1000E_RXR_Q_ERRORS, 1);
			continue;
		}
		if (!(adapter->flags2 & FLAG2_CRC_STRIPPING))
			len -= min(len, ETH_FCS_LEN);
		if (len > E1000E_RXR_BUF_LEN) {
			e1000e_rxr_repost(r, &b);
			e1000e_rxr_count(r, E1000E_RXR_QUEUE,
					 E1000E_RXR_Q_ERRORS, 1);
			continue;
		}

		v = rxr_rx_verdict(adapter->netdev, E1000E_RXR_QUEUE, b.page,
				   page_address(b.page) + E1000E_RXR_HEADROOM,
				   len, &rb);
		switch (v) {
		case RXR_PASS:
			/* A page of its own, posted while the pools were
			 * short (rxr_queue_page()), goes up like a pool page.
			 */
		case RXR_PASS_POOL:
			e1000e_rxr_up(r, &b, len, staterr, vlan, &rb);
			break;
		case RXR_RECYCLE:
			e1000e_rxr_keep(r, &b, rb.release);
			break;
		default:
			e1000e_rxr_copy(r, &b, len, staterr, vlan, &rb);
			break;
		}
	}
	return done;
}

static int e1000e_rxr_poll(struct napi_struct *napi, int budget)
{
	struct e1000e_rxr *r = container_of(napi, struct e1000e_rxr, napi);
	struct e1000_adapter *adapter = r->adapter;
	struct e1000_hw *hw = &adapter->hw;
	unsigned int ntu;
	int done = 0;

	if (r->ring_on) {
		ntu = r->ntu;
		done = e1000e_rxr_clean_rx(r, budget);
		if (READ_ONCE(r->reserve_q) >= 0)
			e1000e_rxr_fill(r);
		if (r->ntu != ntu)
			e1000e_rxr_kick(r);
	}
	if (done == budget)
		return budget;
	if (napi_complete_done(napi, done) && r->irq &&
	    !test_bit(__E1000_DOWN, &adapter->state))
		ew32(IMS, E1000_IMS_RXQ1);
	return done;
}

/* Queue 0: the software fallback */

/*
 * Buffers of queue 0 the device owns: from its head to the tail the driver
 * last wrote (MMIO reads: only when a refill fails).  next_to_clean would
 * not do: a refill in the middle of a poll runs before it moves.
 */
static unsigned int e1000e_rxr_q0_owned(struct e1000_ring *ring)
{
	unsigned int head = readl(ring->head), tail = readl(ring->tail);

	if (head >= ring->count || tail >= ring->count)
		return 0;
	return (tail + ring->count - head) % ring->count;
}

/**
 * e1000e_rxr_lend() - an RX buffer for queue 0 from a priority pool
 * @adapter: the adapter, whose own allocation just failed
 *
 * The pool page is wrapped in an skb laid out as the driver's own, so the
 * driver posts, unmaps and recycles it as usual; e1000e_rxr_rx() carries
 * out the core's verdict on the frame that lands in it.
 *
 * A refill stops at the first buffer it cannot get, and the buffers
 * recycled behind that slot in emergency mode wait for it: with every
 * allocation failing, queue 0 drains, and an empty queue 0 stops
 * reception on both queues of QEMU's model, the reserve queue's included.
 * The core lends a steered flow's page too while the device owns fewer
 * than %RXR_LEND_LOW buffers of queue 0 (its head and tail registers,
 * read only when an allocation failed), which lets the recycled buffers
 * behind it go back to the device; ``rx0_rxr_lent_low`` counts the pages
 * lent then, ``rx0_rxr_dry`` the refills that found the device with no
 * buffer and nothing to lend.
 *
 * Context: queue 0's NAPI, or process context with it stopped.
 * Return: the skb, or NULL.
 */
struct sk_buff *e1000e_rxr_lend(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;
	struct sk_buff *skb;
	unsigned int owned;
	struct page *page;

	if (!r || !r->started)
		return NULL;
	rxr_rx_alloc_failed(adapter->netdev, 0);
	if (!r->mode_ok)
		return NULL;
	owned = e1000e_rxr_q0_owned(adapter->rx_ring);
	page = rxr_lend_page(adapter->netdev, 0, owned);
	if (!page) {
		if (!owned)
			e1000e_rxr_count(r, 0, E1000E_RXR_Q_DRY, 1);
		return NULL;
	}
	skb = build_skb(page_address(page), PAGE_SIZE);
	if (!skb) {
		rxr_page_unlend(page);
		put_page(page);
		return NULL;
	}
	skb_reserve(skb, E1000E_RXR_HEADROOM);
	skb->dev = adapter->netdev;
	if (owned < RXR_LEND_LOW)
		e1000e_rxr_count(r, 0, E1000E_RXR_Q_LENT_LOW, 1);
	return skb;
}

/**
 * e1000e_rxr_rx() - rx-reserve's verdict on a frame queue 0 received
 * @adapter: the adapter
 * @skb: the frame's buffer, data not yet put
 * @len: the frame's length
 * @keep: set when the driver keeps @skb in the ring, reposted in place
 *
 * Carries out rxr_rx_verdict(): the driver receives the frame in @skb
 * (%RXR_PASS, %RXR_PASS_POOL: marked pfmemalloc), a copy of it
 * (%RXR_COPY) or nothing (%RXR_RECYCLE).  A pool page that no longer
 * belongs on the queue is freed here, and @keep is false for it.
 *
 * Context: queue 0's NAPI, while rxr_active().
 * Return: the skb the driver receives, data not yet put, or NULL.
 */
struct sk_buff *e1000e_rxr_rx(struct e1000_adapter *adapter,
			      struct sk_buff *skb, unsigned int len,
			      bool *keep)
{
	struct net_device *netdev = adapter->netdev;
	struct e1000e_rxr *r = adapter->rxr;
	struct sk_buff *copy = NULL;
	struct rxr_rx_buf rb;
	enum rxr_verdict v;

	*keep = false;
	if (!r || !r->started || !r->mode_ok)
		return skb;
	e1000e_rxr_count(r, 0, E1000E_RXR_Q_PACKETS, 1);
	v = rxr_rx_verdict(netdev, 0, skb->head_frag ?
			   virt_to_head_page(skb->head) : NULL, skb->data,
			   len, &rb);
	switch (v) {
	case RXR_PASS:
		return skb;
	case RXR_PASS_POOL:
		if (rxr_rx_up(netdev, skb, &rb))
			return skb;
		rxr_rx_drop(netdev, &rb);
		break;
	case RXR_COPY:
		copy = rxr_napi_alloc_skb(&adapter->napi, 0, len);
		if (copy)
			skb_copy_to_linear_data(copy, skb->data, len);
		else
			rxr_rx_drop(netdev, &rb);
		break;
	default:
		break;
	}
	if (rb.release)
		dev_kfree_skb_any(skb);
	else
		*keep = true;
	return copy;
}

/**
 * e1000e_rxr_ring_empty() - queue 0 may have been left with no buffer
 * @adapter: the adapter
 *
 * The driver's view (next_to_use caught up with next_to_clean) is only a
 * hint: in the middle of a poll next_to_clean has not moved yet, and the
 * refill may have filled the whole ring.  The device's head and tail tell.
 *
 * Context: queue 0's refill, at its end (e1000_alloc_rx_buffers()).
 */
void e1000e_rxr_ring_empty(struct e1000_adapter *adapter)
{
	if (adapter->rxr && !e1000e_rxr_q0_owned(adapter->rx_ring))
		e1000e_rxr_count(adapter->rxr, 0, E1000E_RXR_Q_EMPTY, 1);
}

/* ethtool */

/**
 * e1000e_rxr_get_rxnfc() - the reserve queue's rules
 * @adapter: the adapter
 * @info: %ETHTOOL_GRXRINGS, or a classification rule query
 * @rule_locs: locations, for %ETHTOOL_GRXCLSRLALL
 *
 * Context: RTNL held.
 * Return: 0 or a negative error; -EOPNOTSUPP for other commands.
 */
int e1000e_rxr_get_rxnfc(struct e1000_adapter *adapter,
			 struct ethtool_rxnfc *info, u32 *rule_locs)
{
	struct e1000e_rxr *r = adapter->rxr;

	if (!r)
		return -EOPNOTSUPP;
	if (info->cmd == ETHTOOL_GRXRINGS) {
		info->data = r->cfg_q >= 0 ? 2 : 1;
		return 0;
	}
	return rxr_rss_get_rule(&r->rss, info, rule_locs);
}

/**
 * e1000e_rxr_set_rxnfc() - the core puts a flow in a bucket or takes it out
 * @adapter: the adapter
 * @info: %ETHTOOL_SRXCLSRLINS of an exact TCP 5-tuple to queue 1, or
 *	%ETHTOOL_SRXCLSRLDEL, at a location below the slots offered
 *
 * The 82574 has no other flow filters, and the ethtool core keeps the
 * administrator out of these locations.  A flow goes in only when queue 1
 * holds buffers: a frame RSS sends to an empty ring stops the device's
 * reception on both queues.
 *
 * Context: RTNL held.
 * Return: 0; -EOPNOTSUPP without a reserve queue; -EINVAL for a bad rule
 * or location; -ENOENT to delete an empty location; -ENOBUFS if queue 1
 * has no buffer to receive the flow.
 */
int e1000e_rxr_set_rxnfc(struct e1000_adapter *adapter,
			 const struct ethtool_rxnfc *info)
{
	struct e1000e_rxr *r = adapter->rxr;
	int err;

	ASSERT_RTNL();
	if (!r || !r->started || r->cfg_q < 0)
		return -EOPNOTSUPP;
	if (info->cmd == ETHTOOL_SRXCLSRLINS && r->ring_on &&
	    READ_ONCE(r->reserve_q) >= 0) {
		e1000e_rxr_napi_off(r);
		e1000e_rxr_fill(r);
		e1000e_rxr_napi_on(r);
		if (r->ntu == r->ntc)
			return -ENOBUFS;
	}
	err = rxr_rss_set_rule(&r->rss, info);
	if (err)
		return err;
	if (r->ring_on)
		e1000e_rxr_rss_write(r);
	return 0;
}

/**
 * e1000e_rxr_rxfh_key_size() - bytes of the RSS key ethtool -x shows
 * @adapter: the adapter
 *
 * Return: the key's size while queue 1 is rx-reserve's, else 0.
 */
u32 e1000e_rxr_rxfh_key_size(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;

	return r && r->started && r->cfg_q >= 0 ? RXR_RSS_KEY_SIZE : 0;
}

/**
 * e1000e_rxr_rxfh_indir_size() - entries of the RETA ethtool -x shows
 * @adapter: the adapter
 *
 * Return: the RETA's size while queue 1 is rx-reserve's, else 0.
 */
u32 e1000e_rxr_rxfh_indir_size(struct e1000_adapter *adapter)
{
	struct e1000e_rxr *r = adapter->rxr;

	return r && r->started && r->cfg_q >= 0 ? E1000E_RXR_RETA_SIZE : 0;
}

/**
 * e1000e_rxr_get_rxfh() - the RSS setup that steers priority flows
 * @adapter: the adapter
 * @rxfh: filled with the key, Toeplitz, and the RETA: queue 1 for the
 *	buckets of the flows steered there, queue 0 for the rest
 *
 * Context: RTNL held.
 * Return: 0, or -EOPNOTSUPP while queue 1 is not rx-reserve's.
 */
int e1000e_rxr_get_rxfh(struct e1000_adapter *adapter,
			struct ethtool_rxfh_param *rxfh)
{
	DECLARE_BITMAP(map, E1000E_RXR_RETA_SIZE);
	struct e1000e_rxr *r = adapter->rxr;
	unsigned int i;

	ASSERT_RTNL();
	if (!r || !r->started || r->cfg_q < 0)
		return -EOPNOTSUPP;
	rxfh->hfunc = ETH_RSS_HASH_TOP;
	if (rxfh->key)
		memcpy(rxfh->key, r->key, RXR_RSS_KEY_SIZE);
	if (!rxfh->indir)
		return 0;
	bitmap_zero(map, E1000E_RXR_RETA_SIZE);
	if (READ_ONCE(r->buckets))
		rxr_rss_buckets(&r->rss, r->key, e1000e_rxr_types(),
				E1000E_RXR_RETA_SIZE, map);
	for (i = 0; i < E1000E_RXR_RETA_SIZE; i++)
		rxfh->indir[i] = test_bit(i, map) ? E1000E_RXR_QUEUE : 0;
	return 0;
}

/**
 * e1000e_rxr_sset_count() - rx-reserve's ethtool strings
 * @adapter: the adapter
 * @sset: a string set
 *
 * Return: the number of %ETH_SS_STATS strings, 0 for other sets.
 */
int e1000e_rxr_sset_count(struct e1000_adapter *adapter, int sset)
{
	if (!adapter->rxr || sset != ETH_SS_STATS)
		return 0;
	return rxr_ethtool_sset_count(adapter->netdev) +
	       ARRAY_SIZE(e1000e_rxr_dev_names) + 2 * E1000E_RXR_Q_NUM;
}

/**
 * e1000e_rxr_get_strings() - the names of rx-reserve's counters
 * @adapter: the adapter
 * @sset: %ETH_SS_STATS; other sets are left alone
 * @p: where to write; advanced
 */
void e1000e_rxr_get_strings(struct e1000_adapter *adapter, u32 sset, u8 **p)
{
	unsigned int i, j;

	if (!adapter->rxr || sset != ETH_SS_STATS)
		return;
	rxr_ethtool_get_strings(adapter->netdev, p);
	for (i = 0; i < ARRAY_SIZE(e1000e_rxr_dev_names); i++)
		ethtool_puts(p, e1000e_rxr_dev_names[i]);
	for (i = 0; i < 2; i++)
		for (j = 0; j < E1000E_RXR_Q_NUM; j++)
			ethtool_sprintf(p, "rx%u_rxr_%s", i,
					e1000e_rxr_q_names[j]);
}

/**
 * e1000e_rxr_get_stats() - rx-reserve's counters
 * @adapter: the adapter
 * @data: where to write; advanced
 */
void e1000e_rxr_get_stats(struct e1000_adapter *adapter, u64 **data)
{
	struct e1000e_rxr *r = adapter->rxr;
	unsigned int i, j, start;

	if (!r)
		return;
	rxr_ethtool_get_stats(adapter->netdev, data);
	*(*data)++ = r->buckets;
	*(*data)++ = !r->started || !r->mode_ok ? 0 : r->cfg_q < 0 ? 1 : 2;
	for (i = 0; i < 2; i++) {
		do {
			start = u64_stats_fetch_begin(&r->q[i].syncp);
			for (j = 0; j < E1000E_RXR_Q_NUM; j++)
				(*data)[j] = u64_stats_read(&r->q[i].stat[j]);
		} while (u64_stats_fetch_retry(&r->q[i].syncp, start));
		*data += E1000E_RXR_Q_NUM;
	}
}

/**
 * e1000e_rxr_get_priv_flags() - the rx-reserve private flag
 * @adapter: the adapter
 * @bit: the flag's bit
 *
 * Return: @bit while rx-reserve is on, else 0.
 */
u32 e1000e_rxr_get_priv_flags(struct e1000_adapter *adapter, u32 bit)
{
	return adapter->rxr && adapter->rxr->enabled ? bit : 0;
}

/**
 * e1000e_rxr_set_priv_flags() - turn rx-reserve on or off
 * @adapter: the adapter
 * @flags: the private flags asked for
 * @bit: the rx-reserve flag's bit in @flags
 *
 * The flows stay registered: off, they lose queue 1 and the fallback on
 * this adapter; on again, they get them back.
 *
 * Context: process context, RTNL held.
 * Return: 0, -EOPNOTSUPP without rx-reserve, or the core's error.
 */
int e1000e_rxr_set_priv_flags(struct e1000_adapter *adapter, u32 flags,
			      u32 bit)
{
	struct e1000e_rxr *r = adapter->rxr;
	bool on = flags & bit;
	int err;

	ASSERT_RTNL();
	if (!r)
		return on ? -EOPNOTSUPP : 0;
	if (on == r->enabled)
		return 0;
	r->enabled = on;
	if (!r->started)
		return 0;
	err = rxr_dev_set_enabled(adapter->netdev, on);
	if (err) {
		r->enabled = !on;
		return err;
	}
	if (!on) {
		e1000e_rxr_quiesce(r);
		return 0;
	}
	/* The core puts the flows back in their slots after this. */
	WRITE_ONCE(r->reserve_q, r->cfg_q);
	return 0;
}
