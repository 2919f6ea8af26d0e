// SPDX-License-Identifier: GPL-2.0
/*
 * netdevsim as rx-reserve's reference device.
 *
 * A real NIC for this feature: each RX queue has a ring of buffers posted
 * ahead of time, from its page_pool or, for the reserve queue (the last
 * one), from rx-reserve's pools.  The "hardware" side (the peer's
 * transmit) segments TSO frames, fills in checksums, looks the frame up in
 * an exact-match ntuple table, and copies it into the next posted buffer of
 * the queue it picked, as DMA would; with no posted buffer the frame is
 * dropped and counted.  The driver side (NAPI) classifies, refills and
 * passes frames up through rx-reserve's driver API, software fallback
 * included, and never leaves a ring slot unposted: when it cannot get a
 * replacement buffer, it drops the frame and reposts its buffer in place.
 * The exception is a page lent to a regular ring that no longer fits it
 * (its flow took a slot or arrives elsewhere): it goes back to its pool,
 * and the slot waits for the next refill.
 *
 * debugfs, in the port's directory, rx_reserve/:
 *   slots        exact-match filters given to rx-reserve (0-32, default 4)
 *   fail_insert  make ntuple inserts fail with -EIO
 *   fail_refill  make page_pool refills fail (fail_page_alloc also works)
 *   rings        per RX ring: buffers posted, of them lent, completed
 */

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/busy_poll.h>
#include <net/checksum.h>
#include <net/gso.h>
#include <net/ip.h>
#include <net/page_pool/helpers.h>
#include <net/rx_reserve.h>

#include "netdevsim.h"

#define NSIM_RXR_RING		64
#define NSIM_RXR_HEADROOM	(NET_SKB_PAD + NET_IP_ALIGN)
#define NSIM_RXR_MAX_FRAME	(PAGE_SIZE - NSIM_RXR_HEADROOM - \
				 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))
#define NSIM_NTUPLE_SIZE	64
#define NSIM_RXR_MAX_SLOTS	32
#define NSIM_RXR_DEF_SLOTS	4

/**
 * struct nsim_rxr_buf - one ring slot
 * @page: the posted page
 * @tag: the rx-reserve pool the page was lent from, or NULL
 * @pp: @page is from the queue's page_pool (else from rx-reserve)
 * @len: bytes the "hardware" wrote
 */
struct nsim_rxr_buf {
	struct page *page;
	struct rxr_pool *tag;
	bool pp;
	u32 len;
};

/*
 * Slots [done, head) are completed and the driver's, [head, tail) are
 * posted and the hardware's, the rest are free.  Free-running counters.
 */
struct nsim_rxr_ring {
	spinlock_t lock;	/* protects the counters and slot contents */
	unsigned int head;
	unsigned int tail;
	unsigned int done;
	bool reserve;
	struct nsim_rxr_buf buf[NSIM_RXR_RING];
};

enum {
	NSIM_RXR_RX_PACKETS,
	NSIM_RXR_RX_BYTES,
	NSIM_RXR_RX_NO_BUFFER,
	NSIM_RXR_RX_RESERVE_NO_BUFFER,
	NSIM_RXR_RX_OVERSIZE,
	NSIM_RXR_RX_NTUPLE_STEERED,
	NSIM_RXR_RX_NTUPLE_DROP,
	NSIM_RXR_RX_REFILL_FAILED,
	NSIM_RXR_RX_UNPOSTED,
	NSIM_RXR_RX_SKB_FAILED,
	NSIM_RXR_RX_LENT_RETURNED,
	NSIM_RXR_RX_LENT_SWEPT,
	NSIM_RXR_RX_RESERVE_SWEPT,
	NSIM_RXR_NSTATS,
};

static const char nsim_rxr_stat_names[][ETH_GSTRING_LEN] = {
	"rx_packets",
	"rx_bytes",
	"rx_no_buffer",
	"rx_reserve_queue_no_buffer",
	"rx_oversize",
	"rx_ntuple_steered",
	"rx_ntuple_drop",
	"rx_refill_failed",
	"rx_unposted",
	"rx_skb_failed",
	"rx_lent_returned",
	"rx_lent_swept",
	"rx_reserve_swept",
};

struct nsim_ntuple {
	bool used;
	struct ethtool_rx_flow_spec fs;
};

struct nsim_rxr_rings {
	unsigned int n;
	struct nsim_rxr_ring *ring[] __counted_by(n);
};

/**
 * struct nsim_rxr - a port's model state
 * @rings: the ring of each RX queue, RCU; NULL while the device is down
 * @reserve_queue: the reserve queue while attached, or -1
 * @attached: attached to rx-reserve
 * @priv_on: the rx-reserve private flag
 * @slots: filters given to rx-reserve (debugfs)
 * @fail_insert: make ntuple inserts fail (debugfs)
 * @fail_refill: make page_pool refills fail (debugfs)
 * @tbl_lock: protects @tbl against the "hardware" lookup
 * @tbl: the ntuple table
 * @stats: the driver's counters
 * @sweep_at: jiffies from which a failed refill may sweep the rings again
 * @ddir: debugfs directory
 */
struct nsim_rxr {
	struct nsim_rxr_rings __rcu *rings;
	int reserve_queue;
	bool attached;
	bool priv_on;
	u32 slots;
	bool fail_insert;
	bool fail_refill;
	spinlock_t tbl_lock;	/* see above */
	struct nsim_ntuple tbl[NSIM_NTUPLE_SIZE];
	atomic64_t stats[NSIM_RXR_NSTATS];
	unsigned long sweep_at;
	struct dentry *ddir;
};

static void nsim_rxr_count(struct nsim_rxr *rxr, int stat, u64 n)
{
	atomic64_add(n, &rxr->stats[stat]);
}

/* The "hardware": frame parsing and the ntuple table */

struct nsim_rxr_pkt {
	u32 flow_type;
	__be32 src[4];
	__be32 dst[4];
	__be16 sport;
	__be16 dport;
};

static bool nsim_rxr_parse(const u8 *data, unsigned int len,
			   struct nsim_rxr_pkt *p)
{
	unsigned int off = ETH_HLEN;
	__be16 proto;
	u8 l4;

	if (len < ETH_HLEN)
		return false;
	proto = ((const struct ethhdr *)data)->h_proto;
	if (proto == htons(ETH_P_8021Q)) {
		const struct vlan_hdr *vh = (const void *)(data + off);

		if (len < off + VLAN_HLEN)
			return false;
		proto = vh->h_vlan_encapsulated_proto;
		off += VLAN_HLEN;
	}
	memset(p, 0, sizeof(*p));
	if (proto == htons(ETH_P_IP)) {
		const struct iphdr *iph = (const void *)(data + off);

		if (len < off + sizeof(*iph) || iph->ihl < 5 ||
		    ip_is_fragment(iph))
			return false;
		l4 = iph->protocol;
		memcpy(&p->src[0], &iph->saddr, 4);
		memcpy(&p->dst[0], &iph->daddr, 4);
		off += iph->ihl * 4;
		p->flow_type = l4 == IPPROTO_TCP ? TCP_V4_FLOW : UDP_V4_FLOW;
	} else if (proto == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6 = (const void *)(data + off);

		if (len < off + sizeof(*ip6))
			return false;
		l4 = ip6->nexthdr;
		memcpy(p->src, &ip6->saddr, 16);
		memcpy(p->dst, &ip6->daddr, 16);
		off += sizeof(*ip6);
		p->flow_type = l4 == IPPROTO_TCP ? TCP_V6_FLOW : UDP_V6_FLOW;
	} else {
		return false;
	}
	if ((l4 != IPPROTO_TCP && l4 != IPPROTO_UDP) || len < off + 4)
		return false;
	memcpy(&p->sport, data + off, 2);
	memcpy(&p->dport, data + off + 2, 2);
	return true;
}

static bool nsim_rxr_match32(__be32 h, __be32 m, __be32 v)
{
	return !((h ^ v) & m);
}

static bool nsim_rxr_match16(__be16 h, __be16 m, __be16 v)
{
	return !((h ^ v) & m);
}

static bool nsim_rxr_rule_matches(const struct ethtool_rx_flow_spec *fs,
				  const struct nsim_rxr_pkt *p)
{
	int i;

	if ((fs->flow_type & ~FLOW_EXT) != p->flow_type)
		return false;
	switch (p->flow_type) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW: {
		const struct ethtool_tcpip4_spec *h = &fs->h_u.tcp_ip4_spec;
		const struct ethtool_tcpip4_spec *m = &fs->m_u.tcp_ip4_spec;

		return nsim_rxr_match32(h->ip4src, m->ip4src, p->src[0]) &&
		       nsim_rxr_match32(h->ip4dst, m->ip4dst, p->dst[0]) &&
		       nsim_rxr_match16(h->psrc, m->psrc, p->sport) &&
		       nsim_rxr_match16(h->pdst, m->pdst, p->dport);
	}
	default:
		for (i = 0; i < 4; i++)
			if (!nsim_rxr_match32(fs->h_u.tcp_ip6_spec.ip6src[i],
					      fs->m_u.tcp_ip6_spec.ip6src[i],
					      p->src[i]) ||
			    !nsim_rxr_match32(fs->h_u.tcp_ip6_spec.ip6dst[i],
					      fs->m_u.tcp_ip6_spec.ip6dst[i],
					      p->dst[i]))
				return false;
		return nsim_rxr_match16(fs->h_u.tcp_ip6_spec.psrc,
					fs->m_u.tcp_ip6_spec.psrc, p->sport) &&
		       nsim_rxr_match16(fs->h_u.tcp_ip6_spec.pdst,
					fs->m_u.tcp_ip6_spec.pdst, p->dport);
	}
}

/* The queue the table steers a frame to, -1 for none, -2 to drop. */
static int nsim_rxr_lookup(struct nsim_rxr *rxr, const u8 *data,
			   unsigned int len)
{
	struct nsim_rxr_pkt p;
	int i, q = -1;

	if (!nsim_rxr_parse(data, len, &p))
		return -1;
	spin_lock(&rxr->tbl_lock);
	for (i = 0; i < NSIM_NTUPLE_SIZE; i++) {
		if (!rxr->tbl[i].used ||
		    !nsim_rxr_rule_matches(&rxr->tbl[i].fs, &p))
			continue;
		q = rxr->tbl[i].fs.ring_cookie == RX_CLS_FLOW_DISC ? -2 :
		    (int)ethtool_get_flow_spec_ring(rxr->tbl[i].fs.ring_cookie);
		break;
	}
	spin_unlock(&rxr->tbl_lock);
	return q;
}

/* "DMA" one frame into the next posted buffer of @ring. */
static int nsim_rxr_dma(struct nsim_rxr *rxr, struct nsim_rxr_ring *ring,
			struct sk_buff *skb)
{
	struct nsim_rxr_buf *b;
	u8 *va;
	int off;

	spin_lock(&ring->lock);
	if (ring->head == ring->tail) {
		spin_unlock(&ring->lock);
		nsim_rxr_count(rxr, ring->reserve ?
			       NSIM_RXR_RX_RESERVE_NO_BUFFER :
			       NSIM_RXR_RX_NO_BUFFER, 1);
		return NET_RX_DROP;
	}
	b = &ring->buf[ring->head % NSIM_RXR_RING];
	va = page_address(b->page) + NSIM_RXR_HEADROOM;
	skb_copy_bits(skb, 0, va, skb->len);
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		/* The checksum offload a real NIC does on transmit. */
		off = skb_checksum_start_offset(skb);
		*(__sum16 *)(va + off + skb->csum_offset) =
			csum_fold(csum_partial(va + off, skb->len - off, 0));
	}
	b->len = skb->len;
	ring->head++;
	spin_unlock(&ring->lock);
	return NET_RX_SUCCESS;
}

static int nsim_rxr_xmit_one(struct netdevsim *peer,
			     struct nsim_rxr_rings *rings, struct sk_buff *skb,
			     unsigned int txq)
{
	struct nsim_rxr *rxr = peer->rxr;
	struct nsim_rxr_ring *ring;
	/* Old rings after a failed ethtool -L may outnumber the queues. */
	unsigned int nq = min(rings->n, peer->netdev->real_num_rx_queues);
	int q, ret;
	u8 hdr[128];

	if (skb->len > NSIM_RXR_MAX_FRAME) {
		nsim_rxr_count(rxr, NSIM_RXR_RX_OVERSIZE, 1);
		return NET_RX_DROP;
	}
	q = nsim_rxr_lookup(rxr, skb_header_pointer(skb, 0,
						    min(skb->len, sizeof(hdr)),
						    hdr),
			    min(skb->len, sizeof(hdr)));
	if (q == -2) {
		nsim_rxr_count(rxr, NSIM_RXR_RX_NTUPLE_DROP, 1);
		return NET_RX_DROP;
	}
	if (q >= 0 && q < nq) {
		nsim_rxr_count(rxr, NSIM_RXR_RX_NTUPLE_STEERED, 1);
	} else {
		/* RSS never spreads to the reserve queue. */
		if (READ_ONCE(rxr->reserve_queue) >= 0 && nq > 1)
			nq--;
		q = txq % nq;
	}
	ring = rings->ring[q];
	ret = nsim_rxr_dma(rxr, ring, skb);
	napi_schedule(&peer->rq[q].napi);
	return ret;
}

/**
 * nsim_rxr_xmit() - the peer's NIC receives a frame
 * @peer: the receiving port
 * @skb: the frame; consumed unless -ENODEV is returned
 * @txq: the sender's queue, which picks the RX queue of unsteered frames
 *
 * Context: the sender's transmit path, RCU read side, BH disabled.
 * A GSO frame is segmented as a NIC's TSO would; segments that find no
 * buffer are counted by the peer (rx_no_buffer), and the frame counts as
 * transmitted if any segment was received, since the sender's TCP will only
 * retransmit the lost ones.
 *
 * Return: NET_RX_SUCCESS if the frame (or a segment of it) found a buffer,
 * NET_RX_DROP if not (also when the peer has no rings: down, or being
 * reset), -ENODEV (@skb not consumed) if the peer has no rx-reserve part.
 */
int nsim_rxr_xmit(struct netdevsim *peer, struct sk_buff *skb,
		  unsigned int txq)
{
	struct sk_buff *segs, *next;
	struct nsim_rxr_rings *rings;
	int ret;

	if (!peer->rxr)
		return -ENODEV;
	/* None while the port is down, or while ethtool -L posts them
	 * again: the frame is lost, as on a NIC being reset.  (netdevsim's
	 * own path would queue it on a queue that may be gone by then.)
	 */
	rings = rcu_dereference(peer->rxr->rings);
	if (!rings) {
		dev_kfree_skb_any(skb);
		return NET_RX_DROP;
	}
	if (!skb_is_gso(skb)) {
		ret = nsim_rxr_xmit_one(peer, rings, skb, txq);
		dev_kfree_skb_any(skb);
		return ret;
	}
	/* The segmentation offload a real NIC does on transmit. */
	segs = skb_gso_segment(skb, NETIF_F_SG | NETIF_F_HW_CSUM);
	dev_kfree_skb_any(skb);
	if (IS_ERR_OR_NULL(segs))
		return NET_RX_DROP;
	ret = NET_RX_DROP;
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		if (nsim_rxr_xmit_one(peer, rings, skb, txq) == NET_RX_SUCCESS)
			ret = NET_RX_SUCCESS;
		dev_kfree_skb_any(skb);
	}
	return ret;
}

/* The driver: buffers */

static struct page *nsim_rxr_alloc(struct netdevsim *ns, struct nsim_rq *rq)
{
	struct page *page = NULL;

	if (!READ_ONCE(ns->rxr->fail_refill))
		page = page_pool_alloc_pages(rq->page_pool,
					     rxr_rx_gfp(ns->netdev, GFP_ATOMIC |
							__GFP_NOWARN));
	if (!page) {
		nsim_rxr_count(ns->rxr, NSIM_RXR_RX_REFILL_FAILED, 1);
		rxr_rx_alloc_failed(ns->netdev, rq - ns->rq);
	}
	return page;
}

/* A buffer for an empty slot of @ring; false if there is none. */
static bool nsim_rxr_get_buf(struct netdevsim *ns, struct nsim_rq *rq,
			     struct nsim_rxr_ring *ring,
			     struct nsim_rxr_buf *b)
{
	memset(b, 0, sizeof(*b));
	if (ring->reserve) {
		b->page = rxr_queue_page(ns->netdev);
		return b->page;
	}
	b->page = nsim_rxr_alloc(ns, rq);
	if (b->page) {
		b->pp = true;
		return true;
	}
	b->page = rxr_lend_page(ns->netdev, rq - ns->rq,
				ring->tail - ring->head);
	if (b->page)
		b->tag = (struct rxr_pool *)rxr_page_pool(b->page);
	return b->page;
}

static void nsim_rxr_put_buf(struct nsim_rq *rq, struct nsim_rxr_buf *b)
{
	if (b->pp) {
		page_pool_put_full_page(rq->page_pool, b->page, false);
	} else {
		/* A lent page leaves its ring: its loan ends. */
		rxr_page_unlend(b->page);
		put_page(b->page);
	}
	b->page = NULL;
	b->tag = NULL;
}

/* Pass the frame in @b up the stack; the page goes with it.  A pool page
 * goes up only past rxr_rx_up() (@rb: the verdict's view), which marks it
 * pfmemalloc: only priority sockets may have it.
 */
static void nsim_rxr_up(struct netdevsim *ns, struct nsim_rq *rq,
			struct nsim_rxr_buf *b, const struct rxr_rx_buf *rb)
{
	struct net_device *dev = ns->netdev;
	struct sk_buff *skb;

	skb = rxr_build_skb(rb, page_address(b->page), PAGE_SIZE);
	if (!skb) {
		/* The frame is lost, its buffer freed: the slot has its
		 * replacement already.
		 */
		nsim_rxr_count(ns->rxr, NSIM_RXR_RX_SKB_FAILED, 1);
		rxr_rx_drop(dev, rb);
		nsim_rxr_put_buf(rq, b);
		return;
	}
	skb_reserve(skb, NSIM_RXR_HEADROOM);
	skb_put(skb, b->len);
	b->tag = NULL;
	b->page = NULL;
	if (b->pp) {
		skb_mark_for_recycle(skb);
	} else if (!rxr_rx_up(dev, skb, rb)) {
		rxr_rx_drop(dev, rb);
		dev_kfree_skb_any(skb);
		return;
	}
	skb->protocol = eth_type_trans(skb, dev);
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_record_rx_queue(skb, rq - ns->rq);
	skb_mark_napi_id(skb, &rq->napi);
	nsim_rxr_count(ns->rxr, NSIM_RXR_RX_PACKETS, 1);
	nsim_rxr_count(ns->rxr, NSIM_RXR_RX_BYTES, skb->len + ETH_HLEN);
	netif_receive_skb(skb);
}

/* @b stays in its slot (@out), or, a pool page that no longer belongs in
 * @ring (@release), goes back to its pool and the slot takes what a
 * refill finds.  Returns nsim_rxr_rx_one()'s value.
 */
static bool nsim_rxr_keep(struct netdevsim *ns, struct nsim_rq *rq,
			  struct nsim_rxr_ring *ring, struct nsim_rxr_buf *b,
			  struct nsim_rxr_buf *out, bool release)
{
	if (!release) {
		*out = *b;
		return false;
	}
	nsim_rxr_count(ns->rxr, ring->reserve ? NSIM_RXR_RX_RESERVE_SWEPT :
			NSIM_RXR_RX_LENT_RETURNED, 1);
	nsim_rxr_put_buf(rq, b);
	return !nsim_rxr_get_buf(ns, rq, ring, out);
}

/*
 * Carry out rx-reserve's verdict on the completed buffer @b: pass its
 * frame up and put a replacement in @out, copy it up, or drop it, @b
 * itself going to @out (recycle in place).  @out is left empty only if
 * the slot cannot be posted at all: a pool page went back, or up, with
 * nothing to replace it (return true then: the slot waits for the next
 * refill).
 */
static bool nsim_rxr_rx_one(struct netdevsim *ns, struct nsim_rq *rq,
			    struct nsim_rxr_ring *ring,
			    struct nsim_rxr_buf *b, struct nsim_rxr_buf *out)
{
	struct net_device *dev = ns->netdev;
	unsigned int q = rq - ns->rq;
	struct nsim_rxr_buf nb;
	struct rxr_rx_buf rb;
	enum rxr_verdict v;

	v = rxr_rx_verdict(dev, q, b->page,
			   page_address(b->page) + NSIM_RXR_HEADROOM, b->len,
			   &rb);
	switch (v) {
	case RXR_RECYCLE:
		return nsim_rxr_keep(ns, rq, ring, b, out, rb.release);
	case RXR_COPY:
		/* A page of the queue's own pool takes the copy up. */
		memset(&nb, 0, sizeof(nb));
		nb.page = nsim_rxr_alloc(ns, rq);
		if (nb.page) {
			nb.pp = true;
			nb.len = b->len;
			memcpy(page_address(nb.page) + NSIM_RXR_HEADROOM,
			       page_address(b->page) + NSIM_RXR_HEADROOM,
			       b->len);
			nsim_rxr_up(ns, rq, &nb, &rb);
		} else {
			rxr_rx_drop(dev, &rb);
		}
		return nsim_rxr_keep(ns, rq, ring, b, out, rb.release);
	case RXR_PASS_POOL:
		if (!ring->reserve) {
			/* The owner's frame in a lent page: up, and the
			 * page's lending ends with it; the slot takes what a
			 * refill finds, maybe a page the pool can lend again.
			 */
			nsim_rxr_up(ns, rq, b, &rb);
			return !nsim_rxr_get_buf(ns, rq, ring, out);
		}
		if (!nsim_rxr_get_buf(ns, rq, ring, &nb)) {
			/* The pools are empty: their pages are up the
			 * stack, maybe in a socket's out-of-order queue
			 * waiting for this very frame.  Dropping it could
			 * keep them there for good; it goes up, and the
			 * slot waits for a pool page (the fill at the end
			 * of each poll).
			 */
			nsim_rxr_up(ns, rq, b, &rb);
			return true;
		}
		nsim_rxr_up(ns, rq, b, &rb);
		*out = nb;
		return false;
	default:
		break;
	}
	/* RXR_PASS: a page of the queue's own pool, or of the reserve queue
	 * when it was posted before rx-reserve took the queue.
	 */
	if (!nsim_rxr_get_buf(ns, rq, ring, &nb)) {
		/* No replacement: keep the ring full, drop the frame. */
		rxr_rx_drop(dev, &rb);
		*out = *b;
		return false;
	}
	nsim_rxr_up(ns, rq, b, &rb);
	*out = nb;
	return false;
}

static void nsim_rxr_post(struct nsim_rxr_ring *ring, struct nsim_rxr_buf *b)
{
	ring->buf[ring->tail % NSIM_RXR_RING] = *b;
	ring->tail++;
}

/*
 * Give back to their pools the lent pages posted in the regular rings of
 * @rings that no longer fit their queue (rxr_lent_fits(): the flow took a
 * slot, left the port, or turned out to arrive on another queue).  A frame
 * landing in such a page would return it too, but none of its flow's will
 * any more, and the flow needs the page: for its slot's ring, or to be
 * lent to its own queue.  Likewise the reserve ring's pages of flows no
 * longer steered there (rxr_queue_page_fits()): their pools may be gone,
 * and no frame of theirs will come to free them.  The buffers kept move
 * down in their ring, in order; the slots freed wait for the next refill.
 * BH disabled.
 */
static void nsim_rxr_sweep(struct netdevsim *ns, struct nsim_rxr_rings *rings)
{
	struct net_device *dev = ns->netdev;
	unsigned int q, i, j, lent = 0, rsv = 0;
	struct nsim_rxr_ring *ring;
	struct nsim_rxr_buf *b;
	bool gone;

	for (q = 0; q < rings->n; q++) {
		ring = rings->ring[q];
		spin_lock(&ring->lock);
		for (i = ring->head, j = ring->head; i != ring->tail; i++) {
			b = &ring->buf[i % NSIM_RXR_RING];
			if (ring->reserve)
				gone = !rxr_queue_page_fits(dev, b->page);
			else
				gone = b->tag && !rxr_lent_fits(dev, q, b->tag);
			if (gone) {
				nsim_rxr_put_buf(&ns->rq[q], b);
				if (ring->reserve)
					rsv++;
				else
					lent++;
				continue;
			}
			if (i != j)
				ring->buf[j % NSIM_RXR_RING] = *b;
			j++;
		}
		ring->tail = j;
		spin_unlock(&ring->lock);
	}
	if (lent)
		nsim_rxr_count(ns->rxr, NSIM_RXR_RX_LENT_SWEPT, lent);
	if (rsv)
		nsim_rxr_count(ns->rxr, NSIM_RXR_RX_RESERVE_SWEPT, rsv);
}

/* Whether a refill that found nothing may sweep the rings: every 10 ms. */
static bool nsim_rxr_sweep_due(struct nsim_rxr *rxr)
{
	unsigned long now = jiffies;

	if (time_before(now, READ_ONCE(rxr->sweep_at)))
		return false;
	WRITE_ONCE(rxr->sweep_at, now + max(msecs_to_jiffies(10), 1UL));
	return true;
}

/**
 * nsim_rxr_poll() - NAPI: process completed buffers and refill
 * @rq: the queue
 * @budget: NAPI budget
 *
 * Return: frames processed.
 */
int nsim_rxr_poll(struct nsim_rq *rq, int budget)
{
	struct netdevsim *ns = netdev_priv(rq->napi.dev);
	struct nsim_rxr_rings *rings;
	struct nsim_rxr_buf b, out;
	struct nsim_rxr_ring *ring;
	bool returned, swept = false;
	int n = 0;

	/* NAPI runs only while the rings exist: stop disables it first. */
	rings = ns->rxr ? rcu_dereference_protected(ns->rxr->rings, true) :
		NULL;
	if (!rings || rq - ns->rq >= rings->n)
		return 0;
	ring = rings->ring[rq - ns->rq];

	while (n < budget) {
		spin_lock(&ring->lock);
		if (ring->done == ring->head) {
			spin_unlock(&ring->lock);
			break;
		}
		b = ring->buf[ring->done % NSIM_RXR_RING];
		spin_unlock(&ring->lock);

		memset(&out, 0, sizeof(out));
		returned = nsim_rxr_rx_one(ns, rq, ring, &b, &out);

		spin_lock(&ring->lock);
		ring->done++;
		if (out.page)
			nsim_rxr_post(ring, &out);
		else if (!returned)
			nsim_rxr_count(ns->rxr, NSIM_RXR_RX_UNPOSTED, 1);
		spin_unlock(&ring->lock);
		n++;
	}

	/* Fill empty slots: the reserve queue's as pools refill.  When
	 * nothing is found, lent pages parked where they no longer fit may
	 * be what is missing: sweep them back and try again, once.
	 */
	while (ring->tail - ring->done < NSIM_RXR_RING) {
		if (!nsim_rxr_get_buf(ns, rq, ring, &out)) {
			if (swept || !nsim_rxr_sweep_due(ns->rxr))
				break;
			nsim_rxr_sweep(ns, rings);
			swept = true;
			continue;
		}
		spin_lock(&ring->lock);
		nsim_rxr_post(ring, &out);
		spin_unlock(&ring->lock);
	}
	return n;
}

/* Bring-up and teardown */

static void nsim_rxr_rings_free(struct netdevsim *ns,
				struct nsim_rxr_rings *rings)
{
	struct nsim_rxr_ring *ring;
	struct nsim_rxr_buf *b;
	unsigned int q;

	for (q = 0; q < rings->n; q++) {
		ring = rings->ring[q];
		if (!ring)
			continue;
		for (; ring->done != ring->tail; ring->done++) {
			b = &ring->buf[ring->done % NSIM_RXR_RING];
			nsim_rxr_put_buf(&ns->rq[q], b);
		}
		kfree(ring);
	}
	kfree(rings);
}

static int nsim_rxr_attach(struct netdevsim *ns, unsigned int nq)
{
	struct nsim_rxr *rxr = ns->rxr;
	struct rxr_dev_caps caps = { .reserve_queue = -1 };
	int err;

	/* The last queue is reserved when there are two and filters. */
	if (nq > 1 && rxr->slots) {
		caps.reserve_queue = nq - 1;
		caps.hw_slots = rxr->slots;
		caps.slot_base = NSIM_NTUPLE_SIZE - rxr->slots;
	}
	err = rxr_dev_attach(ns->netdev, &caps);
	if (err)
		return err;
	WRITE_ONCE(rxr->reserve_queue, caps.reserve_queue);
	rxr->attached = true;
	if (!rxr->priv_on)
		rxr_dev_set_enabled(ns->netdev, false);
	return 0;
}

static void nsim_rxr_detach(struct netdevsim *ns)
{
	if (!ns->rxr->attached)
		return;
	rxr_dev_detach(ns->netdev);
	ns->rxr->attached = false;
	WRITE_ONCE(ns->rxr->reserve_queue, -1);
}

/* Rings for the queues in use, nothing posted yet. */
static struct nsim_rxr_rings *nsim_rxr_rings_alloc(struct netdevsim *ns)
{
	unsigned int q, nq = ns->netdev->real_num_rx_queues;
	struct nsim_rxr_rings *rings;

	rings = kzalloc(struct_size(rings, ring, nq), GFP_KERNEL);
	if (!rings)
		return NULL;
	rings->n = nq;
	for (q = 0; q < nq; q++) {
		rings->ring[q] = kzalloc(sizeof(*rings->ring[q]), GFP_KERNEL);
		if (!rings->ring[q]) {
			nsim_rxr_rings_free(ns, rings);
			return NULL;
		}
		spin_lock_init(&rings->ring[q]->lock);
	}
	return rings;
}

/*
 * Post @rings for the reserve queue now in force, a slot of each ring in
 * turn, and publish them.  In turn, because when refills fail the pages
 * lent to the rings are limited: filled one after the other, the first
 * rings would take them all, and a priority flow that arrives on a later
 * one would find no buffer there, and never teach its pool which queue to
 * lend to (rxr_classify()).
 */
static void nsim_rxr_rings_post(struct netdevsim *ns,
				struct nsim_rxr_rings *rings)
{
	struct nsim_rxr *rxr = ns->rxr;
	struct nsim_rxr_ring *ring;
	struct nsim_rxr_buf b;
	unsigned int q;
	bool more;

	for (q = 0; q < rings->n; q++)
		rings->ring[q]->reserve = q == rxr->reserve_queue;
	local_bh_disable();
	do {
		more = false;
		for (q = 0; q < rings->n; q++) {
			ring = rings->ring[q];
			if (ring->tail == NSIM_RXR_RING ||
			    !nsim_rxr_get_buf(ns, &ns->rq[q], ring, &b))
				continue;
			nsim_rxr_post(ring, &b);
			more = true;
		}
	} while (more);
	local_bh_enable();
	rcu_assign_pointer(rxr->rings, rings);
}

/**
 * nsim_rxr_open() - post the rings and attach to rx-reserve
 * @ns: the port
 *
 * Context: ndo_open, RTNL held; page pools created and NAPI enabled: the
 * peer delivers to the rings, and NAPI polls them, once they are published.
 * Return: 0 or -errno, with nothing left behind.
 */
int nsim_rxr_open(struct netdevsim *ns)
{
	struct nsim_rxr_rings *rings;
	int err;

	if (!ns->rxr)
		return 0;
	rings = nsim_rxr_rings_alloc(ns);
	if (!rings)
		return -ENOMEM;
	err = nsim_rxr_attach(ns, rings->n);
	if (err) {
		nsim_rxr_rings_free(ns, rings);
		return err;
	}
	nsim_rxr_rings_post(ns, rings);
	return 0;
}

/**
 * nsim_rxr_stop() - detach from rx-reserve and free the rings
 * @ns: the port
 *
 * Every posted page goes back where it came from: its page_pool, or its
 * rx-reserve pool.
 *
 * Context: RTNL held, NAPI disabled, page pools not destroyed yet.
 */
void nsim_rxr_stop(struct netdevsim *ns)
{
	struct nsim_rxr *rxr = ns->rxr;
	struct nsim_rxr_rings *rings;

	if (!rxr)
		return;
	rings = rtnl_dereference(rxr->rings);
	if (!rings)
		return;
	nsim_rxr_detach(ns);
	RCU_INIT_POINTER(rxr->rings, NULL);
	synchronize_net();
	nsim_rxr_rings_free(ns, rings);
}

/*
 * Post the rings again for @nq queues (the reserve queue is the last of
 * the queues in use, and only with slots), as a NIC resets its queues, and
 * attach to rx-reserve with what the port has now.  If that attach fails,
 * the rings are posted without a reserve queue, every queue a regular
 * one, and its error is returned.  If the new rings cannot be allocated,
 * nothing changes: -ENOMEM and *@kept.  RTNL held, the port running.
 */
static int nsim_rxr_rebuild(struct netdevsim *ns, unsigned int nq,
			    bool *kept)
{
	struct net_device *dev = ns->netdev;
	unsigned int q, old = dev->real_num_rx_queues;
	struct nsim_rxr_rings *rings;
	int err;

	*kept = true;
	for (q = 0; q < dev->num_rx_queues; q++)
		napi_disable(&ns->rq[q].napi);
	err = netif_set_real_num_queues(dev, nq, nq);
	if (err)
		goto out;
	rings = nsim_rxr_rings_alloc(ns);
	if (!rings) {
		netif_set_real_num_queues(dev, old, old);
		err = -ENOMEM;
		goto out;
	}
	*kept = false;
	nsim_rxr_stop(ns);
	err = nsim_rxr_attach(ns, rings->n);
	nsim_rxr_rings_post(ns, rings);
out:
	for (q = 0; q < dev->num_rx_queues; q++)
		napi_enable(&ns->rq[q].napi);
	return err;
}

/**
 * nsim_rxr_set_channels() - ethtool -L
 * @ns: the port
 * @nq: the new number of queue pairs
 *
 * The reserve queue is the last queue in use: a running port posts its
 * rings again (nsim_rxr_rebuild()).
 *
 * Context: RTNL held.
 * Return: 0, or -errno with the queues as they were, or the -errno of
 * rx-reserve's attach with the new queues in use and the port detached.
 */
int nsim_rxr_set_channels(struct netdevsim *ns, unsigned int nq)
{
	bool kept;

	if (!ns->rxr || !rtnl_dereference(ns->rxr->rings))
		return netif_set_real_num_queues(ns->netdev, nq, nq);
	return nsim_rxr_rebuild(ns, nq, &kept);
}

/*
 * Post the reserve ring from the pools of the flows steered there, before
 * a filter points at it, as a driver posts a queue before it steers
 * traffic to it: refilled from NAPI only, the ring could still be empty
 * when the first frames the filter steers arrive.  RTNL held, NAPI enabled
 * (every caller of set_rxnfc but the rebuild, which has no rings
 * published while its NAPI is off).
 */
static void nsim_rxr_fill_reserve(struct netdevsim *ns)
{
	int q = READ_ONCE(ns->rxr->reserve_queue);
	struct nsim_rxr_rings *rings;
	struct nsim_rxr_ring *ring;
	struct nsim_rxr_buf b;

	rings = rtnl_dereference(ns->rxr->rings);
	if (q < 0 || !rings || q >= rings->n)
		return;
	ring = rings->ring[q];
	napi_disable(&ns->rq[q].napi);
	local_bh_disable();
	/* The flow that takes the slot may have pages lent to the regular
	 * rings from its time in software: the reserve ring wants them.
	 */
	nsim_rxr_sweep(ns, rings);
	while (ring->tail - ring->done < NSIM_RXR_RING &&
	       nsim_rxr_get_buf(ns, &ns->rq[q], ring, &b)) {
		spin_lock(&ring->lock);
		nsim_rxr_post(ring, &b);
		spin_unlock(&ring->lock);
	}
	local_bh_enable();
	napi_enable(&ns->rq[q].napi);
	/* Frames that came meanwhile. */
	napi_schedule(&ns->rq[q].napi);
}

/* ethtool: ntuple */

static int nsim_rxr_get_rule(struct nsim_rxr *rxr, struct ethtool_rxnfc *nfc)
{
	u32 loc = nfc->fs.location;

	if (loc >= NSIM_NTUPLE_SIZE || !rxr->tbl[loc].used)
		return -ENOENT;
	nfc->fs = rxr->tbl[loc].fs;
	return 0;
}

static int nsim_rxr_get_all(struct nsim_rxr *rxr, struct ethtool_rxnfc *nfc,
			    u32 *locs)
{
	unsigned int i, n = 0;

	for (i = 0; i < NSIM_NTUPLE_SIZE; i++) {
		if (!rxr->tbl[i].used)
			continue;
		if (n == nfc->rule_cnt)
			return -EMSGSIZE;
		locs[n++] = i;
	}
	nfc->data = NSIM_NTUPLE_SIZE;
	nfc->rule_cnt = n;
	return 0;
}

/**
 * nsim_get_rxnfc() - ethtool get_rxnfc: rings and the ntuple table
 * @dev: the port
 * @nfc: the command
 * @locs: rule locations, for ETHTOOL_GRXCLSRLALL
 *
 * Return: 0 or -errno.
 */
int nsim_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc,
		   u32 *locs)
{
	struct netdevsim *ns = netdev_priv(dev);
	struct nsim_rxr *rxr = ns->rxr;
	unsigned int i;

	if (!rxr)
		return -EOPNOTSUPP;
	switch (nfc->cmd) {
	case ETHTOOL_GRXRINGS:
		nfc->data = dev->real_num_rx_queues;
		return 0;
	case ETHTOOL_GRXCLSRLCNT:
		nfc->rule_cnt = 0;
		for (i = 0; i < NSIM_NTUPLE_SIZE; i++)
			nfc->rule_cnt += rxr->tbl[i].used;
		/* ethtool -N without "loc" leaves the choice to the driver,
		 * which keeps out of rx-reserve's range.
		 */
		nfc->data = NSIM_NTUPLE_SIZE | RX_CLS_LOC_SPECIAL;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		return nsim_rxr_get_rule(rxr, nfc);
	case ETHTOOL_GRXCLSRLALL:
		return nsim_rxr_get_all(rxr, nfc, locs);
	}
	return -EOPNOTSUPP;
}

static int nsim_rxr_check_spec(struct net_device *dev,
			       const struct ethtool_rx_flow_spec *fs)
{
	u64 ring = ethtool_get_flow_spec_ring(fs->ring_cookie);

	if (fs->location >= NSIM_NTUPLE_SIZE)
		return -EINVAL;
	switch (fs->flow_type & ~FLOW_EXT) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW:
	case TCP_V6_FLOW:
	case UDP_V6_FLOW:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (fs->flow_type & FLOW_EXT ||
	    ethtool_get_flow_spec_ring_vf(fs->ring_cookie))
		return -EOPNOTSUPP;
	if (fs->ring_cookie != RX_CLS_FLOW_DISC &&
	    ring >= dev->real_num_rx_queues)
		return -EINVAL;
	return 0;
}

/* An insert at RX_CLS_LOC_ANY, _FIRST or _LAST: the highest free location
 * (the lowest for _FIRST) outside rx-reserve's range.  RTNL held.
 */
static int nsim_rxr_pick_loc(struct net_device *dev, struct nsim_rxr *rxr,
			     struct ethtool_rx_flow_spec *fs)
{
	bool first = fs->location == RX_CLS_LOC_FIRST;
	unsigned int i, loc;

	if (fs->location != RX_CLS_LOC_ANY && fs->location != RX_CLS_LOC_LAST &&
	    !first)
		return -EINVAL;
	for (i = 0; i < NSIM_NTUPLE_SIZE; i++) {
		loc = first ? i : NSIM_NTUPLE_SIZE - 1 - i;
		if (!rxr->tbl[loc].used && !rxr_ethtool_core_rule(dev, loc)) {
			fs->location = loc;
			return 0;
		}
	}
	return -ENOSPC;
}

/**
 * nsim_set_rxnfc() - ethtool set_rxnfc: insert and delete ntuple rules
 * @dev: the port
 * @nfc: the command
 *
 * Used by administrators (ethtool -N) and by rx-reserve alike.  An insert
 * without a location gets one outside rx-reserve's range.
 *
 * Return: 0 or -errno; -EIO when debugfs fail_insert is set, -ENOSPC when
 * no location is free.
 */
int nsim_set_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc)
{
	struct netdevsim *ns = netdev_priv(dev);
	struct nsim_rxr *rxr = ns->rxr;
	struct ethtool_rx_flow_spec *fs = &nfc->fs;
	struct nsim_rxr_rings *rings;
	int err, q;

	if (!rxr)
		return -EOPNOTSUPP;
	switch (nfc->cmd) {
	case ETHTOOL_SRXCLSRLINS:
		if (fs->location & RX_CLS_LOC_SPECIAL) {
			err = nsim_rxr_pick_loc(dev, rxr, fs);
			if (err)
				return err;
		}
		err = nsim_rxr_check_spec(dev, fs);
		if (err)
			return err;
		if (READ_ONCE(rxr->fail_insert))
			return -EIO;
		if (fs->ring_cookie != RX_CLS_FLOW_DISC &&
		    ethtool_get_flow_spec_ring(fs->ring_cookie) ==
		    READ_ONCE(rxr->reserve_queue))
			nsim_rxr_fill_reserve(ns);
		spin_lock_bh(&rxr->tbl_lock);
		rxr->tbl[fs->location].fs = *fs;
		rxr->tbl[fs->location].used = true;
		spin_unlock_bh(&rxr->tbl_lock);
		return 0;
	case ETHTOOL_SRXCLSRLDEL:
		if (fs->location >= NSIM_NTUPLE_SIZE ||
		    !rxr->tbl[fs->location].used)
			return -ENOENT;
		spin_lock_bh(&rxr->tbl_lock);
		rxr->tbl[fs->location].used = false;
		spin_unlock_bh(&rxr->tbl_lock);
		/* The flow that had this filter has left the reserve queue:
		 * its pages posted there go back (the rings are RTNL's),
		 * and the queue's NAPI fills the slots from the pools of
		 * the flows still steered there (a no-op while NAPI is
		 * disabled, as when the port stops).
		 */
		rings = rtnl_dereference(rxr->rings);
		q = READ_ONCE(rxr->reserve_queue);
		if (rings && q >= 0 && q < rings->n) {
			local_bh_disable();
			nsim_rxr_sweep(ns, rings);
			napi_schedule(&ns->rq[q].napi);
			local_bh_enable();
		}
		return 0;
	}
	return -EOPNOTSUPP;
}

/* ethtool: counters and the private flag */

/**
 * nsim_get_sset_count() - ethtool string set sizes
 * @dev: the port
 * @sset: the string set
 *
 * Return: the size, or -EOPNOTSUPP.
 */
int nsim_get_sset_count(struct net_device *dev, int sset)
{
	struct netdevsim *ns = netdev_priv(dev);

	if (!ns->rxr)
		return -EOPNOTSUPP;
	switch (sset) {
	case ETH_SS_STATS:
		return NSIM_RXR_NSTATS + rxr_ethtool_sset_count(dev);
	case ETH_SS_PRIV_FLAGS:
		return 1;
	}
	return -EOPNOTSUPP;
}

/**
 * nsim_get_strings() - ethtool strings: counters and the private flag
 * @dev: the port
 * @sset: the string set
 * @data: where to write them
 */
void nsim_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int i;

	switch (sset) {
	case ETH_SS_STATS:
		for (i = 0; i < NSIM_RXR_NSTATS; i++)
			ethtool_puts(&data, nsim_rxr_stat_names[i]);
		rxr_ethtool_get_strings(dev, &data);
		break;
	case ETH_SS_PRIV_FLAGS:
		ethtool_puts(&data, RXR_PRIV_FLAG);
		break;
	}
}

/**
 * nsim_get_ethtool_stats() - ethtool -S
 * @dev: the port
 * @stats: unused
 * @data: where to write the counters
 */
void nsim_get_ethtool_stats(struct net_device *dev,
			    struct ethtool_stats *stats, u64 *data)
{
	struct netdevsim *ns = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < NSIM_RXR_NSTATS; i++)
		*data++ = atomic64_read(&ns->rxr->stats[i]);
	rxr_ethtool_get_stats(dev, &data);
}

/**
 * nsim_get_priv_flags() - ethtool private flags
 * @dev: the port
 *
 * Return: bit 0, rx-reserve.
 */
u32 nsim_get_priv_flags(struct net_device *dev)
{
	struct netdevsim *ns = netdev_priv(dev);

	return ns->rxr && ns->rxr->priv_on;
}

/**
 * nsim_set_priv_flags() - ethtool --set-priv-flags
 * @dev: the port
 * @flags: bit 0, rx-reserve
 *
 * Return: 0 or -errno.
 */
int nsim_set_priv_flags(struct net_device *dev, u32 flags)
{
	struct netdevsim *ns = netdev_priv(dev);
	bool on = flags & 1;
	int err = 0;

	if (!ns->rxr)
		return -EOPNOTSUPP;
	if (ns->rxr->attached)
		err = rxr_dev_set_enabled(dev, on);
	if (!err)
		ns->rxr->priv_on = on;
	return err;
}

/* debugfs */

static int nsim_rxr_slots_get(void *data, u64 *val)
{
	struct netdevsim *ns = data;

	*val = ns->rxr->slots;
	return 0;
}

static int nsim_rxr_slots_set(void *data, u64 val)
{
	struct netdevsim *ns = data;
	unsigned int old;
	bool kept;
	int err;

	if (val > NSIM_RXR_MAX_SLOTS)
		return -EINVAL;
	rtnl_lock();
	old = ns->rxr->slots;
	ns->rxr->slots = val;
	if (rtnl_dereference(ns->rxr->rings)) {
		err = nsim_rxr_rebuild(ns, ns->netdev->real_num_rx_queues,
				       &kept);
		if (err && kept)
			ns->rxr->slots = old;
	} else {
		err = 0;
	}
	rtnl_unlock();
	return err;
}

DEFINE_DEBUGFS_ATTRIBUTE(nsim_rxr_slots_fops, nsim_rxr_slots_get,
			 nsim_rxr_slots_set, "%llu\n");

/* rings: a line per RX ring, what is posted on it and whose. */
static int nsim_rxr_rings_show(struct seq_file *seq, void *v)
{
	struct netdevsim *ns = seq->private;
	struct nsim_rxr_rings *rings;
	struct nsim_rxr_ring *ring;
	unsigned int q, i, lent;

	rtnl_lock();
	rings = rtnl_dereference(ns->rxr->rings);
	for (q = 0; rings && q < rings->n; q++) {
		ring = rings->ring[q];
		spin_lock_bh(&ring->lock);
		for (lent = 0, i = ring->head; i != ring->tail; i++)
			lent += !!ring->buf[i % NSIM_RXR_RING].tag;
		seq_printf(seq,
			   "queue %u reserve %d posted %u lent %u completed %u\n",
			   q, ring->reserve, ring->tail - ring->head, lent,
			   ring->head - ring->done);
		spin_unlock_bh(&ring->lock);
	}
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nsim_rxr_rings);

/**
 * nsim_rxr_init() - a PF port's model state and debugfs knobs
 * @ns: the port
 *
 * Return: 0, also after rx_reserve=off (the port then models no rings), or
 * -ENOMEM.
 */
int nsim_rxr_init(struct netdevsim *ns)
{
	struct nsim_rxr *rxr;

	if (!rxr_available())
		return 0;
	rxr = kzalloc(sizeof(*rxr), GFP_KERNEL);
	if (!rxr)
		return -ENOMEM;
	spin_lock_init(&rxr->tbl_lock);
	rxr->reserve_queue = -1;
	rxr->priv_on = true;
	rxr->slots = NSIM_RXR_DEF_SLOTS;
	rxr->ddir = debugfs_create_dir("rx_reserve", ns->nsim_dev_port->ddir);
	debugfs_create_file_unsafe("slots", 0600, rxr->ddir, ns,
				   &nsim_rxr_slots_fops);
	debugfs_create_bool("fail_insert", 0600, rxr->ddir,
			    &rxr->fail_insert);
	debugfs_create_bool("fail_refill", 0600, rxr->ddir,
			    &rxr->fail_refill);
	debugfs_create_file("rings", 0400, rxr->ddir, ns,
			    &nsim_rxr_rings_fops);
	ns->rxr = rxr;
	return 0;
}

/**
 * nsim_rxr_uninit() - free a port's model state
 * @ns: the port, unregistered
 */
void nsim_rxr_uninit(struct netdevsim *ns)
{
	if (!ns->rxr)
		return;
	debugfs_remove_recursive(ns->rxr->ddir);
	kfree(ns->rxr);
	ns->rxr = NULL;
}
