// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_net's rx-reserve helper.
 *
 * virtio-net has no exact-match filters, so the reserve queue is reached
 * through RSS: the indirection-table bucket of each priority flow points
 * at the last queue pair in use, which is posted with what the core's
 * rxr_queue_page() gives: pages of the flows' rx-reserve pools, and, while
 * memory is fine and those are all up the stack, pages of its own, which
 * the driver receives as its own buffers.  The buckets are the "filter
 * slots" the core sees; a bucket may hold other flows as well.
 *
 * The regular queues get the software fallback: when an atomic refill
 * fails, a pool page is lent instead of leaving the ring short.
 *
 * What happens to each frame is rxr_rx_verdict()'s decision, which
 * vnet_rxr_rx() carries out: a frame in pool pages goes up in them if it
 * is their flow's, is copied up if memory allows, or is dropped with its
 * buffers reposted in place (emergency mode), so that no ring runs dry and
 * nothing waits for the driver's refill work, which may sleep in reclaim.
 */
#include <linux/ethtool.h>
#include <linux/etherdevice.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <kunit/visibility.h>
#include <linux/virtio.h>
#include <linux/virtio_net.h>
#include <net/rx_reserve.h>
#include <net/rx_reserve_rss.h>

#include "virtio_net_rxr.h"

/* Most RSS buckets the core may use as slots. */

/* Most buffers posted on the reserve queue: the rest of the pools' pages
 * replace buffers before their frames go up, and sit in socket queues.
 */
/* The largest indirection table steered (virtio_net's own limit). */
#define VNET_RXR_TABLE_MAX	128

#define VNET_RXR_RING_MAX	64

/* The private flags: RXR_PRIV_FLAG, and whether priority flows transmit
 * on the reserve queue pair.
 */
#define VNET_RXR_PRIV_FLAG_TX	"rx-reserve-tx"
#define VNET_RXR_FLAG_ON	BIT(0)
#define VNET_RXR_FLAG_TX	BIT(1)
#define VNET_RXR_PRIV_FLAGS	2

/* How often the reserve queue is polled to take back its pool pages. */
#define VNET_RXR_FILL_INTERVAL	(HZ / 20)

/* The ring's events; the core counts rx-reserve's, per queue too. */
enum {
	VNET_RXR_Q_PACKETS,
	VNET_RXR_Q_EMPTY,
	VNET_RXR_Q_NUM,
};

static const char vnet_rxr_q_names[VNET_RXR_Q_NUM][ETH_GSTRING_LEN] = {
	"packets", "empty",
};

static const char vnet_rxr_dev_names[][ETH_GSTRING_LEN] = {
	"rx_reserve_rss_buckets",
	"rx_reserve_refused",
};

/**
 * struct vnet_rxr_q - one RX queue's view
 * @syncp: guards @stat
 * @stat: per-queue counters, written from the queue's NAPI
 * @reposted: buffers were reposted since the last kick
 */
struct vnet_rxr_q {
	struct u64_stats_sync syncp;
	u64_stats_t stat[VNET_RXR_Q_NUM];
	bool reposted;
};

/**
 * struct vnet_rxr - the helper's state for one device
 * @dev: the device
 * @ops: the driver's callbacks
 * @cfg: how the device runs, from the last vnet_rxr_start()
 * @reserve_q: the reserve queue in use, or -1; read by the datapath
 * @cfg_q: the reserve queue the configuration allows, or -1
 * @started: attached to the core
 * @enabled: the private flag
 * @tx_steer: priority flows transmit on the reserve queue pair
 * @refused_logged: the refused buffer mode was logged
 * @applied: @saved holds the table vnet_rxr_rss_apply() changed
 * @rss: the RSS buckets offered to the core, and the flows in them
 * @buckets: buckets pointed at the reserve queue by the last commit
 * @refused: fallback requests refused for an unsupported buffer mode
 * @saved: the administrator's indirection table during a commit
 * @fill_work: polls the reserve queue, so that pool pages that came back
 *	are posted even when the queue received nothing
 * @max_nq: entries in @q
 * @q: per-queue state
 */
struct vnet_rxr {
	struct net_device *dev;
	const struct vnet_rxr_ops *ops;
	struct vnet_rxr_cfg cfg;
	int reserve_q;
	int cfg_q;
	bool started;
	bool enabled;
	bool tx_steer;
	bool refused_logged;
	bool applied;
	unsigned int buckets;
	atomic64_t refused;
	struct rxr_rss rss;
	__le16 *saved;
	struct delayed_work fill_work;
	unsigned int max_nq;
	struct vnet_rxr_q q[] __counted_by(max_nq);
};

static void vnet_rxr_count(struct vnet_rxr *r, unsigned int q, int stat,
			   u64 n)
{
	struct vnet_rxr_q *vq = &r->q[q];

	u64_stats_update_begin(&vq->syncp);
	u64_stats_add(&vq->stat[stat], n);
	u64_stats_update_end(&vq->syncp);
}

static void vnet_rxr_fill_work(struct work_struct *work)
{
	struct vnet_rxr *r = container_of(to_delayed_work(work),
					  struct vnet_rxr, fill_work);
	int q = READ_ONCE(r->reserve_q);

	if (q < 0)
		return;
	if (rxr_active())
		r->ops->schedule(r->dev, q);
	/* Also retries what the device parked on this queue, flows or not. */
	r->ops->kick(r->dev, q);
	schedule_delayed_work(&r->fill_work, VNET_RXR_FILL_INTERVAL);
}

/**
 * vnet_rxr_create() - set up the helper for a device
 * @dev: the device, not yet registered
 * @max_nq: queue pairs the device has
 * @ops: the driver's callbacks
 *
 * Context: process context.
 * Return: the helper, or NULL after rx_reserve=off or without memory (the
 * device then runs without rx-reserve).
 */
struct vnet_rxr *vnet_rxr_create(struct net_device *dev, unsigned int max_nq,
				 const struct vnet_rxr_ops *ops)
{
	struct vnet_rxr *r;
	unsigned int i;

	if (!rxr_available())
		return NULL;
	r = kzalloc(struct_size(r, q, max_nq), GFP_KERNEL);
	if (!r)
		return NULL;
	r->max_nq = max_nq;
	r->dev = dev;
	r->ops = ops;
	r->reserve_q = -1;
	r->cfg_q = -1;
	r->enabled = true;
	r->tx_steer = true;
	for (i = 0; i < max_nq; i++)
		u64_stats_init(&r->q[i].syncp);
	INIT_DELAYED_WORK(&r->fill_work, vnet_rxr_fill_work);
	return r;
}
EXPORT_SYMBOL_GPL(vnet_rxr_create);

/**
 * vnet_rxr_destroy() - free the helper
 * @r: the helper, stopped, or NULL
 */
void vnet_rxr_destroy(struct vnet_rxr *r)
{
	if (!r)
		return;
	WARN_ON_ONCE(r->started);
	cancel_delayed_work_sync(&r->fill_work);
	kfree(r->saved);
	kfree(r);
}
EXPORT_SYMBOL_GPL(vnet_rxr_destroy);

static void vnet_rxr_refuse(struct vnet_rxr *r)
{
	atomic64_inc(&r->refused);
	if (!r->refused_logged) {
		r->refused_logged = true;
		netdev_info(r->dev,
			    "rx-reserve: receive buffers of this mode (big packets, XDP or premapped) are not served: no reserve queue and no fallback\n");
	}
}

/**
 * vnet_rxr_start() - attach the device to rx-reserve
 * @r: the helper, or NULL
 * @cfg: how the device runs; copied
 *
 * Picks the reserve queue: the last queue pair in use, when the device
 * steers by RSS and has more than one pair.  Without one, the device gets
 * the software fallback alone, with no slots.  Called again after a
 * change of the queue count, it re-attaches; the flows stay.
 *
 * Context: process context, RTNL held.
 * Return: 0 or the core's error.
 */
int vnet_rxr_start(struct vnet_rxr *r, const struct vnet_rxr_cfg *cfg)
{
	struct rxr_dev_caps caps = { .reserve_queue = -1 };
	int err;

	ASSERT_RTNL();
	if (!r)
		return 0;
	if (r->started)
		vnet_rxr_stop(r);
	r->cfg = *cfg;
	if (cfg->rss && !r->saved && cfg->indir_size)
		r->saved = kcalloc(cfg->indir_size, sizeof(*r->saved),
				   GFP_KERNEL);
	if (!cfg->mode_ok) {
		vnet_rxr_refuse(r);
	} else if (cfg->rss && r->saved && cfg->nq >= 2 &&
		   is_power_of_2(cfg->indir_size) && cfg->indir_size >= 4 &&
		   cfg->indir_size <= VNET_RXR_TABLE_MAX &&
		   cfg->key_size >= 40) {
		caps.reserve_queue = cfg->nq - 1;
		rxr_rss_init(&r->rss, cfg->indir_size, caps.reserve_queue);
		caps.hw_slots = r->rss.nslots;
		caps.approx_slots = true;
		caps.ring_stall = true;
		caps.ops = cfg->dev_ops;
	}
	if (caps.reserve_queue < 0)
		rxr_rss_init(&r->rss, 0, 0);
	err = rxr_dev_attach(r->dev, &caps);
	if (err)
		return err;
	r->cfg_q = caps.reserve_queue;
	r->started = true;
	if (!r->enabled)
		rxr_dev_set_enabled(r->dev, false);
	WRITE_ONCE(r->reserve_q, r->enabled ? r->cfg_q : -1);
	if (r->reserve_q >= 0)
		schedule_delayed_work(&r->fill_work, 0);
	if (r->cfg_q >= 0)
		netdev_info(r->dev,
			    "rx-reserve: RX queue %d is the reserve queue, %u RSS buckets for priority flows\n",
			    r->cfg_q, r->rss.nslots);
	return 0;
}
EXPORT_SYMBOL_GPL(vnet_rxr_start);

/**
 * vnet_rxr_stop() - detach the device from rx-reserve
 * @r: the helper, or NULL
 *
 * Context: process context, RTNL held.
 */
void vnet_rxr_stop(struct vnet_rxr *r)
{
	ASSERT_RTNL();
	if (!r || !r->started)
		return;
	WRITE_ONCE(r->reserve_q, -1);
	r->cfg_q = -1;
	r->started = false;
	cancel_delayed_work_sync(&r->fill_work);
	rxr_dev_detach(r->dev);
	rxr_rss_init(&r->rss, 0, 0);
}
EXPORT_SYMBOL_GPL(vnet_rxr_stop);

/**
 * vnet_rxr_reserve_queue() - the reserve queue in use
 * @r: the helper, or NULL
 *
 * Return: the queue index, or -1.
 */
int vnet_rxr_reserve_queue(const struct vnet_rxr *r)
{
	return r ? READ_ONCE(r->reserve_q) : -1;
}
EXPORT_SYMBOL_GPL(vnet_rxr_reserve_queue);

/* Steering: RSS buckets */

/* The virtio hash types in rx-reserve's terms. */
static u32 vnet_rxr_rss_types(u32 types)
{
	u32 t = 0;

	if (types & VIRTIO_NET_RSS_HASH_TYPE_IPv4)
		t |= RXR_RSS_IPV4;
	if (types & VIRTIO_NET_RSS_HASH_TYPE_TCPv4)
		t |= RXR_RSS_TCPV4;
	if (types & (VIRTIO_NET_RSS_HASH_TYPE_IPv6 |
		     VIRTIO_NET_RSS_HASH_TYPE_IP_EX))
		t |= RXR_RSS_IPV6;
	if (types & (VIRTIO_NET_RSS_HASH_TYPE_TCPv6 |
		     VIRTIO_NET_RSS_HASH_TYPE_TCP_EX))
		t |= RXR_RSS_TCPV6;
	return t;
}

/**
 * vnet_rxr_steer_table() - point priority flows' buckets at the reserve queue
 * @table: an indirection table, changed in place
 * @n: its entries, a power of two, at most %VNET_RXR_TABLE_MAX
 * @rq: the reserve queue, the last one in use
 * @key: the RSS key, 40 bytes
 * @rss: the flows in slots
 * @types: the VIRTIO_NET_RSS_HASH_TYPE_* bits in force
 *
 * Buckets that @table points at @rq or beyond are spread over the regular
 * queues, 0 to @rq - 1, as ethtool's default table spreads them; then the
 * bucket of each flow points at @rq.
 *
 * Return: the number of buckets pointed at @rq.
 */
VISIBLE_IF_KUNIT unsigned int
vnet_rxr_steer_table(__le16 *table, unsigned int n, int rq, const u8 *key,
		     const struct rxr_rss *rss, u32 types)
{
	DECLARE_BITMAP(map, VNET_RXR_TABLE_MAX);
	unsigned int i, buckets;

	if (n > VNET_RXR_TABLE_MAX || !is_power_of_2(n))
		return 0;
	for (i = 0; i < n; i++)
		if (le16_to_cpu(table[i]) >= rq)
			table[i] = cpu_to_le16(ethtool_rxfh_indir_default(i,
									  rq));
	buckets = rxr_rss_buckets(rss, key, vnet_rxr_rss_types(types), n, map);
	for_each_set_bit(i, map, n)
		table[i] = cpu_to_le16(rq);
	return buckets;
}
EXPORT_SYMBOL_IF_KUNIT(vnet_rxr_steer_table);

/**
 * vnet_rxr_rss_apply() - the indirection table the device gets
 * @r: the helper, or NULL
 * @table: the administrator's table (or the default), changed in place
 *	until vnet_rxr_rss_restore()
 * @hash_types: the hash types the device is told to use
 *
 * While a reserve queue is in use, buckets that @table points at it are
 * spread over the regular queues, and the bucket of each priority flow
 * points at it.
 *
 * Context: RTNL held.
 */
void vnet_rxr_rss_apply(struct vnet_rxr *r, __le16 *table, u32 hash_types)
{
	int rq;

	ASSERT_RTNL();
	if (!r)
		return;
	rq = READ_ONCE(r->reserve_q);
	if (rq < 0 || !r->saved) {
		r->buckets = 0;
		return;
	}
	memcpy(r->saved, table, r->cfg.indir_size * sizeof(*table));
	r->applied = true;
	r->buckets = vnet_rxr_steer_table(table, r->cfg.indir_size, rq,
					  r->cfg.key, &r->rss, hash_types);
}
EXPORT_SYMBOL_GPL(vnet_rxr_rss_apply);

/**
 * vnet_rxr_rss_restore() - give the administrator's table back
 * @r: the helper, or NULL
 * @table: the table vnet_rxr_rss_apply() changed
 *
 * Context: RTNL held.
 */
void vnet_rxr_rss_restore(struct vnet_rxr *r, __le16 *table)
{
	ASSERT_RTNL();
	if (!r || !r->applied)
		return;
	memcpy(table, r->saved, r->cfg.indir_size * sizeof(*table));
	r->applied = false;
}
EXPORT_SYMBOL_GPL(vnet_rxr_rss_restore);

/**
 * vnet_rxr_set_rxnfc() - the core puts a flow in a bucket or takes it out
 * @r: the helper, or NULL
 * @info: %ETHTOOL_SRXCLSRLINS of an exact TCP 5-tuple to the reserve
 *	queue, or %ETHTOOL_SRXCLSRLDEL, at a location below the slots
 *	offered
 *
 * The ethtool core keeps the administrator out of these locations, and
 * the device has no other filters, so only the rx-reserve core gets here
 * with a location it may use.
 *
 * Context: RTNL held.
 * Return: 0; -EOPNOTSUPP without a reserve queue; -EINVAL for a bad rule
 * or location; -ENOENT to delete an empty location.
 */
int vnet_rxr_set_rxnfc(struct vnet_rxr *r, const struct ethtool_rxnfc *info)
{
	int err;

	ASSERT_RTNL();
	if (!r || !r->started || r->cfg_q < 0)
		return -EOPNOTSUPP;
	err = rxr_rss_set_rule(&r->rss, info);
	if (err)
		return err;
	/* Post the flow's pool pages before RSS sends it there. */
	if (info->cmd == ETHTOOL_SRXCLSRLINS)
		r->ops->refill(r->dev, r->cfg_q);
	r->ops->rss_commit(r->dev);
	return 0;
}
EXPORT_SYMBOL_GPL(vnet_rxr_set_rxnfc);

/**
 * vnet_rxr_get_rxnfc() - list the priority flows' buckets as rules
 * @r: the helper, or NULL
 * @info: %ETHTOOL_GRXCLSRLCNT, %ETHTOOL_GRXCLSRULE or %ETHTOOL_GRXCLSRLALL
 * @rule_locs: locations, for %ETHTOOL_GRXCLSRLALL
 *
 * Context: RTNL held.
 * Return: 0, -ENOENT for an empty location, -EMSGSIZE if @rule_locs is
 * short, -EOPNOTSUPP for other commands.
 */
int vnet_rxr_get_rxnfc(struct vnet_rxr *r, struct ethtool_rxnfc *info,
		       u32 *rule_locs)
{
	ASSERT_RTNL();
	return rxr_rss_get_rule(r ? &r->rss : NULL, info, rule_locs);
}
EXPORT_SYMBOL_GPL(vnet_rxr_get_rxnfc);

/* The datapath */

static int vnet_rxr_post(struct vnet_rxr *r, struct virtqueue *vq,
			 struct page *page)
{
	void *buf = page_address(page) + r->cfg.buf_offset;
	struct scatterlist sg;

	sg_init_one(&sg, buf, r->cfg.buf_len);
	return virtqueue_add_inbuf_ctx(vq, &sg, 1, buf, r->cfg.buf_ctx,
				       GFP_ATOMIC);
}

/* Post @buf again, as it was posted. */
static void vnet_rxr_repost(struct vnet_rxr *r, struct virtqueue *vq,
			    unsigned int q, void *buf, void *ctx)
{
	struct scatterlist sg;

	sg_init_one(&sg, buf, r->ops->repost_len(r->dev, ctx));
	if (virtqueue_add_inbuf_ctx(vq, &sg, 1, buf, ctx, GFP_ATOMIC)) {
		rxr_page_unlend(virt_to_head_page(buf));
		put_page(virt_to_head_page(buf));
	} else {
		r->q[q].reposted = true;
	}
}

static unsigned int vnet_rxr_num_bufs(const struct vnet_rxr *r,
				      const void *buf)
{
	const struct virtio_net_hdr_mrg_rxbuf *hdr = buf;

	if (!r->cfg.mergeable)
		return 1;
	return __virtio16_to_cpu(r->cfg.little_endian, hdr->num_buffers);
}

/* Post up to @n pages of the reserve queue's pools; how many were. */
static unsigned int vnet_rxr_post_pool(struct vnet_rxr *r,
				       struct virtqueue *vq, unsigned int n)
{
	struct page *page;
	unsigned int i;

	for (i = 0; i < n; i++) {
		page = rxr_queue_page(r->dev);
		if (!page)
			break;
		if (vnet_rxr_post(r, vq, page)) {
			put_page(page);
			break;
		}
	}
	return i;
}

/**
 * vnet_rxr_fill() - post rxr_queue_page()'s pages on the reserve queue
 * @r: the helper
 * @vq: the reserve queue's virtqueue
 * @q: its index
 *
 * Posts at most %VNET_RXR_RING_MAX buffers, so that the pools keep pages
 * to replace buffers with.  Allocates atomically at most (rxr_queue_page()
 * while memory is fine): a ring without pages stays short until pages
 * come back, and never waits on the driver's refill work.
 *
 * Context: NAPI, or process context with the queue's NAPI disabled.
 * Return: true: the caller has nothing to retry.
 */
bool vnet_rxr_fill(struct vnet_rxr *r, struct virtqueue *vq, unsigned int q)
{
	unsigned int size = virtqueue_get_vring_size(vq), i;
	bool was_empty = vq->num_free == size;

	if (vq->num_free && size - vq->num_free < VNET_RXR_RING_MAX)
		vnet_rxr_post_pool(r, vq, min(vq->num_free, VNET_RXR_RING_MAX -
					      (size - vq->num_free)));
	if (vq->num_free == size) {
		if (rxr_active())
			vnet_rxr_count(r, q, VNET_RXR_Q_EMPTY, 1);
	} else if (was_empty) {
		/* Frames parked on other queues for want of ours: retry. */
		for (i = 0; i < r->cfg.nq && i < r->max_nq; i++)
			if (i != q)
				r->ops->kick(r->dev, i);
	}
	return true;
}
EXPORT_SYMBOL_GPL(vnet_rxr_fill);

/**
 * vnet_rxr_lend() - post a lent pool page where the driver's refill failed
 * @r: the helper, or NULL
 * @vq: a regular queue's virtqueue
 * @q: its index
 *
 * Counts the failed allocation, which starts emergency mode, and posts a
 * page the core lends (rxr_lend_page(): a software flow's, or, as @vq
 * runs low, a steered flow's).  An empty queue makes the device hold the
 * frame it has for it, and with it every frame behind on the same host
 * queue, the reserve queue's included.
 *
 * Context: NAPI, or process context with the queue's NAPI disabled.
 * Return: 0 if a page was posted, else -ENOMEM.
 */
int vnet_rxr_lend(struct vnet_rxr *r, struct virtqueue *vq, unsigned int q)
{
	struct page *page;

	if (!r || !r->started)
		return -ENOMEM;
	rxr_rx_alloc_failed(r->dev, q);
	if (!r->cfg.mode_ok) {
		vnet_rxr_refuse(r);
		return -ENOMEM;
	}
	page = rxr_lend_page(r->dev, q,
			     virtqueue_get_vring_size(vq) - vq->num_free);
	if (!page)
		return -ENOMEM;
	if (vnet_rxr_post(r, vq, page)) {
		rxr_page_unlend(page);
		put_page(page);
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(vnet_rxr_lend);

/* A frame's buffers, the first one and the rest of a mergeable frame. */
struct vnet_rxr_frame {
	unsigned int n;
	void *buf[MAX_SKB_FRAGS + 1];
	void *ctx[MAX_SKB_FRAGS + 1];
	unsigned int len[MAX_SKB_FRAGS + 1];
};

/* Take the rest of the frame that starts at @buf off the ring.  False if
 * the header counts more buffers than a frame may have or than the ring
 * gave: @f holds those it has.
 */
static bool vnet_rxr_gather(struct vnet_rxr *r, struct virtqueue *vq,
			    void *buf, unsigned int len, void *ctx,
			    struct vnet_rxr_frame *f)
{
	unsigned int n = vnet_rxr_num_bufs(r, buf);

	f->n = 1;
	f->buf[0] = buf;
	f->ctx[0] = ctx;
	f->len[0] = len;
	if (n < 1 || n > ARRAY_SIZE(f->buf))
		return false;
	while (f->n < n) {
		f->buf[f->n] = virtqueue_get_buf_ctx(vq, &f->len[f->n],
						     &f->ctx[f->n]);
		if (!f->buf[f->n])
			return false;
		f->n++;
	}
	return true;
}

/* Give a frame's buffers back: each is reposted in place, but a pool page
 * that no longer belongs in the ring (@release) goes back to its pool.
 */
static void vnet_rxr_putback(struct vnet_rxr *r, struct virtqueue *vq,
			     unsigned int q, const struct vnet_rxr_frame *f,
			     bool release)
{
	struct page *page;
	unsigned int i;

	for (i = 0; i < f->n; i++) {
		page = virt_to_head_page(f->buf[i]);
		if (release && rxr_page_pool(page))
			put_page(page);
		else
			vnet_rxr_repost(r, vq, q, f->buf[i], f->ctx[i]);
	}
}

/* Build the skb of frame @f, whose buffers are at @va[i] (@va[0] is where
 * the first buffer's page starts), and pass it up through rxr_rx_up().
 * The skb takes the caller's reference on each page.  Return: bytes up.
 */
static unsigned int vnet_rxr_skb_up(struct vnet_rxr *r,
				    struct napi_struct *napi, unsigned int q,
				    const struct vnet_rxr_frame *f,
				    void * const *va,
				    const unsigned int *truesize,
				    const struct rxr_rx_buf *rb)
{
	struct net_device *dev = r->dev;
	struct virtio_net_hdr_mrg_rxbuf *hdr;
	struct sk_buff *skb;
	struct page *page;
	unsigned int i, len;

	skb = rxr_build_skb(rb, va[0], PAGE_SIZE);
	if (!skb) {
		for (i = 0; i < f->n; i++)
			put_page(virt_to_head_page(va[i]));
		rxr_rx_drop(r->dev, rb);
		return 0;
	}
	hdr = va[0] + r->cfg.buf_offset;
	skb_reserve(skb, r->cfg.buf_offset + r->cfg.hdr_len);
	skb_put(skb, f->len[0] - r->cfg.hdr_len);
	for (i = 1; i < f->n; i++) {
		page = virt_to_head_page(va[i]);
		skb_add_rx_frag(skb, i - 1, page, va[i] - page_address(page),
				f->len[i], truesize[i]);
	}
	if (virtio_net_hdr_to_skb(skb, &hdr->hdr, r->cfg.little_endian)) {
		DEV_STATS_INC(dev, rx_frame_errors);
		goto free;
	}
	if (hdr->hdr.flags & VIRTIO_NET_HDR_F_DATA_VALID)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	if (!rxr_rx_up(dev, skb, rb))
		goto free;
	skb_record_rx_queue(skb, q);
	len = skb->len;
	skb->protocol = eth_type_trans(skb, dev);
	napi_gro_receive(napi, skb);
	return len;

free:
	/* The skb owns the pages it holds: freeing it gives them back. */
	dev_kfree_skb_any(skb);
	rxr_rx_drop(r->dev, rb);
	return 0;
}

/* %RXR_PASS_POOL: the frame goes up in its pages.  On the reserve queue,
 * pool pages replace its buffers first, as many as the pools have: a
 * priority frame is not dropped for want of a replacement, the ring is
 * filled again when pages come back (vnet_rxr_fill()).  On a regular
 * queue the driver's refill replaces them.
 */
static unsigned int vnet_rxr_up(struct vnet_rxr *r, struct virtqueue *vq,
				struct napi_struct *napi, unsigned int q,
				const struct vnet_rxr_frame *f,
				const struct rxr_rx_buf *rb)
{
	unsigned int truesize[ARRAY_SIZE(f->buf)], i;
	void *va[ARRAY_SIZE(f->buf)];
	struct page *page;

	for (i = 0; i < f->n; i++) {
		page = virt_to_head_page(f->buf[i]);
		va[i] = i ? f->buf[i] : page_address(page);
		truesize[i] = rxr_page_pool(page) ? PAGE_SIZE :
			      r->ops->repost_len(r->dev, f->ctx[i]);
	}
	if (q == READ_ONCE(r->reserve_q) && vnet_rxr_post_pool(r, vq, f->n))
		r->q[q].reposted = true;
	return vnet_rxr_skb_up(r, napi, q, f, va, truesize, rb);
}

/* %RXR_COPY: the frame goes up in new pages, its buffers stay in the ring.
 * The pages come from the page allocator without its reserve: a copy is
 * made only while memory allows.
 */
static unsigned int vnet_rxr_copy(struct vnet_rxr *r, struct virtqueue *vq,
				  struct napi_struct *napi, unsigned int q,
				  const struct vnet_rxr_frame *f,
				  const struct rxr_rx_buf *rb)
{
	const gfp_t gfp = GFP_ATOMIC | __GFP_NOWARN | __GFP_NOMEMALLOC;
	unsigned int truesize[ARRAY_SIZE(f->buf)], i, off;
	void *va[ARRAY_SIZE(f->buf)];
	struct page *page;

	for (i = 0; i < f->n; i++) {
		off = i ? 0 : r->cfg.buf_offset;
		page = off + f->len[i] <= PAGE_SIZE ? alloc_page(gfp) : NULL;
		if (!page) {
			while (i--)
				put_page(virt_to_head_page(va[i]));
			rxr_rx_alloc_failed(r->dev, q);
			vnet_rxr_putback(r, vq, q, f, rb->release);
			rxr_rx_drop(r->dev, rb);
			return 0;
		}
		va[i] = page_address(page);
		memcpy(va[i] + off, f->buf[i], f->len[i]);
		truesize[i] = PAGE_SIZE;
	}
	vnet_rxr_putback(r, vq, q, f, rb->release);
	return vnet_rxr_skb_up(r, napi, q, f, va, truesize, rb);
}

/**
 * vnet_rxr_rx() - rx-reserve's verdict on a received frame
 * @r: the helper
 * @vq: the queue's virtqueue
 * @napi: the queue's NAPI
 * @q: the queue's index
 * @buf: the frame's first buffer, from its virtio-net header
 * @len: bytes in @buf, at least the header and an Ethernet header
 * @ctx: the buffer's context
 * @bytes: set to the bytes of a frame that went up here, 0 for a frame
 *	dropped or recycled
 *
 * Asks rxr_rx_verdict() and carries it out: a frame in pool pages goes up
 * here, in them or copied, and a recycled frame's buffers are reposted in
 * place.  Only %RXR_PASS leaves the frame to the driver.
 *
 * Context: NAPI, while rxr_active().
 * Return: true if the frame was consumed; false: the driver receives it.
 */
bool vnet_rxr_rx(struct vnet_rxr *r, struct virtqueue *vq,
		 struct napi_struct *napi, unsigned int q, void *buf,
		 unsigned int len, void *ctx, unsigned int *bytes)
{
	unsigned int hlen = r->cfg.hdr_len;
	struct vnet_rxr_frame f;
	struct rxr_rx_buf rb;
	enum rxr_verdict v;

	*bytes = 0;
	if (q >= r->max_nq || !r->started || !r->cfg.mode_ok)
		return false;
	vnet_rxr_count(r, q, VNET_RXR_Q_PACKETS, 1);
	v = rxr_rx_verdict(r->dev, q, virt_to_head_page(buf), buf + hlen,
			   len - hlen, &rb);
	if (v == RXR_PASS)
		return false;
	if (!vnet_rxr_gather(r, vq, buf, len, ctx, &f)) {
		DEV_STATS_INC(r->dev, rx_length_errors);
		vnet_rxr_putback(r, vq, q, &f, rb.release);
		rxr_rx_drop(r->dev, &rb);
		return true;
	}
	switch (v) {
	case RXR_PASS_POOL:
		*bytes = vnet_rxr_up(r, vq, napi, q, &f, &rb);
		break;
	case RXR_COPY:
		*bytes = vnet_rxr_copy(r, vq, napi, q, &f, &rb);
		break;
	default:
		vnet_rxr_putback(r, vq, q, &f, rb.release);
		break;
	}
	return true;
}
EXPORT_SYMBOL_GPL(vnet_rxr_rx);

/**
 * vnet_rxr_poll_done() - end of a receive or refill pass on a queue
 * @r: the helper, or NULL
 * @vq: the queue's virtqueue
 * @q: its index
 * @kick_others: the queue received frames, or its ring ran low (short of
 *	a quarter or more) before this refill
 *
 * Kicks the device for buffers the helper reposted.  A device with
 * software RSS (QEMU) parks a frame it redirects to a queue short of
 * buffers on the queue the frame came from, stops reading that queue's
 * backend, and only retries when the guest kicks the source queue.  A
 * reserve queue receives nothing else that would make it post, so after
 * a regular queue received frames or was refilled from low, the other
 * queues in use are kicked, whether priority flows exist or not: a tap
 * queue stalled that way takes down every flow the host hashes to it, the
 * priority flow's own first.
 *
 * Context: NAPI, or process context with the queue's NAPI disabled.
 */
void vnet_rxr_poll_done(struct vnet_rxr *r, struct virtqueue *vq,
			unsigned int q, bool kick_others)
{
	unsigned int i;
	int rq;

	if (!r || q >= r->max_nq)
		return;
	if (r->q[q].reposted) {
		r->q[q].reposted = false;
		if (virtqueue_kick_prepare(vq))
			virtqueue_notify(vq);
	}
	rq = READ_ONCE(r->reserve_q);
	if (!kick_others || rq < 0)
		return;
	for (i = 0; i < r->cfg.nq && i < r->max_nq; i++)
		if (i != q)
			r->ops->kick(r->dev, i);
}
EXPORT_SYMBOL_GPL(vnet_rxr_poll_done);

/**
 * vnet_rxr_select_queue() - the TX queue of a priority flow's packet
 * @r: the helper, or NULL
 * @skb: the packet
 *
 * A priority flow steered to the reserve queue transmits on the reserve
 * queue pair, so that a backend which steers by the transmit queue (the
 * host's tun) delivers its replies to that pair's queue too.
 *
 * Return: the TX queue, or -1 to let the stack pick.
 */
int vnet_rxr_select_queue(struct vnet_rxr *r, struct sk_buff *skb)
{
	struct sock *sk = skb->sk;
	int q;

	if (!rxr_active() || !r || !READ_ONCE(r->tx_steer) || !sk ||
	    !sk_fullsock(sk))
		return -1;
	q = rxr_sk_tx_queue(r->dev, sk);
	if (q < 0 || q >= r->dev->real_num_tx_queues)
		return -1;
	return q;
}
EXPORT_SYMBOL_GPL(vnet_rxr_select_queue);

/* Control: ethtool */

/**
 * vnet_rxr_sset_count() - rx-reserve's ethtool strings
 * @r: the helper, or NULL
 * @sset: %ETH_SS_STATS or %ETH_SS_PRIV_FLAGS
 * @nq: queue pairs the driver reports
 *
 * Return: how many strings rx-reserve adds to @sset.
 */
int vnet_rxr_sset_count(struct vnet_rxr *r, int sset, unsigned int nq)
{
	if (!r)
		return 0;
	if (sset == ETH_SS_PRIV_FLAGS)
		return VNET_RXR_PRIV_FLAGS;
	if (sset != ETH_SS_STATS)
		return 0;
	return rxr_ethtool_sset_count(r->dev) +
	       ARRAY_SIZE(vnet_rxr_dev_names) +
	       min(nq, r->max_nq) * VNET_RXR_Q_NUM;
}
EXPORT_SYMBOL_GPL(vnet_rxr_sset_count);

/**
 * vnet_rxr_get_strings() - rx-reserve's ethtool strings
 * @r: the helper, or NULL
 * @sset: %ETH_SS_STATS or %ETH_SS_PRIV_FLAGS
 * @nq: queue pairs the driver reports
 * @p: where to write; advanced
 */
void vnet_rxr_get_strings(struct vnet_rxr *r, u32 sset, unsigned int nq,
			  u8 **p)
{
	unsigned int i, j;

	if (!r)
		return;
	if (sset == ETH_SS_PRIV_FLAGS) {
		ethtool_puts(p, RXR_PRIV_FLAG);
		ethtool_puts(p, VNET_RXR_PRIV_FLAG_TX);
		return;
	}
	if (sset != ETH_SS_STATS)
		return;
	rxr_ethtool_get_strings(r->dev, p);
	for (i = 0; i < ARRAY_SIZE(vnet_rxr_dev_names); i++)
		ethtool_puts(p, vnet_rxr_dev_names[i]);
	for (i = 0; i < min(nq, r->max_nq); i++)
		for (j = 0; j < VNET_RXR_Q_NUM; j++)
			ethtool_sprintf(p, "rx%u_rxr_%s", i,
					vnet_rxr_q_names[j]);
}
EXPORT_SYMBOL_GPL(vnet_rxr_get_strings);

/**
 * vnet_rxr_get_stats() - rx-reserve's ethtool counters
 * @r: the helper, or NULL
 * @nq: queue pairs the driver reports
 * @data: where to write; advanced
 */
void vnet_rxr_get_stats(struct vnet_rxr *r, unsigned int nq, u64 **data)
{
	unsigned int i, j, start;
	struct vnet_rxr_q *vq;

	if (!r)
		return;
	rxr_ethtool_get_stats(r->dev, data);
	*(*data)++ = r->buckets;
	*(*data)++ = atomic64_read(&r->refused);
	for (i = 0; i < min(nq, r->max_nq); i++) {
		vq = &r->q[i];
		do {
			start = u64_stats_fetch_begin(&vq->syncp);
			for (j = 0; j < VNET_RXR_Q_NUM; j++)
				(*data)[j] = u64_stats_read(&vq->stat[j]);
		} while (u64_stats_fetch_retry(&vq->syncp, start));
		*data += VNET_RXR_Q_NUM;
	}
}
EXPORT_SYMBOL_GPL(vnet_rxr_get_stats);

/**
 * vnet_rxr_get_priv_flags() - the rx-reserve private flags
 * @r: the helper, or NULL
 *
 * Return: bit 0 set while rx-reserve is on, bit 1 while priority flows
 * transmit on the reserve queue pair.
 */
u32 vnet_rxr_get_priv_flags(struct vnet_rxr *r)
{
	if (!r)
		return 0;
	return (r->enabled ? VNET_RXR_FLAG_ON : 0) |
	       (READ_ONCE(r->tx_steer) ? VNET_RXR_FLAG_TX : 0);
}
EXPORT_SYMBOL_GPL(vnet_rxr_get_priv_flags);

/**
 * vnet_rxr_set_priv_flags() - turn rx-reserve on or off
 * @r: the helper, or NULL
 * @flags: bit 0: on; bit 1: priority flows transmit on the reserve pair
 * @xdp: an XDP program is attached
 *
 * The flows stay registered: off, they lose the reserve queue and the
 * fallback on this device; on again, they get them back.  Turning off
 * fills the reserve queue with the driver's buffers before RSS spreads
 * traffic over it again.
 *
 * Context: process context, RTNL held.
 * Return: 0; -EOPNOTSUPP without the helper; -EBUSY to turn on with XDP.
 */
int vnet_rxr_set_priv_flags(struct vnet_rxr *r, u32 flags, bool xdp)
{
	bool on = flags & VNET_RXR_FLAG_ON;
	int old, err;

	ASSERT_RTNL();
	if (!r)
		return flags ? -EOPNOTSUPP : 0;
	WRITE_ONCE(r->tx_steer, flags & VNET_RXR_FLAG_TX);
	if (on == r->enabled)
		return 0;
	if (on && xdp) {
		netdev_info(r->dev,
			    "rx-reserve: cannot turn on with an XDP program attached\n");
		return -EBUSY;
	}
	r->enabled = on;
	if (!r->started)
		return 0;
	err = rxr_dev_set_enabled(r->dev, on);
	if (err) {
		r->enabled = !on;
		return err;
	}
	old = r->reserve_q;
	WRITE_ONCE(r->reserve_q, on ? r->cfg_q : -1);
	if (old == r->reserve_q)
		return 0;
	if (old >= 0)
		r->ops->refill(r->dev, old);
	else
		schedule_delayed_work(&r->fill_work, 0);
	if (r->cfg.rss)
		r->ops->rss_commit(r->dev);
	return 0;
}
EXPORT_SYMBOL_GPL(vnet_rxr_set_priv_flags);

/**
 * vnet_rxr_check_xdp() - whether an XDP program may be attached
 * @r: the helper, or NULL
 * @extack: for the reason
 *
 * XDP programs see, keep and redirect receive buffers, which a pool
 * page on the reserve queue or lent to a regular queue must not be, so
 * XDP and rx-reserve exclude each other on a device.
 *
 * Return: 0, or -EBUSY while rx-reserve is on.
 */
int vnet_rxr_check_xdp(struct vnet_rxr *r, struct netlink_ext_ack *extack)
{
	if (!r || !r->enabled)
		return 0;
	NL_SET_ERR_MSG_MOD(extack,
			   "rx-reserve is on: turn the rx-reserve private flag off to attach XDP");
	return -EBUSY;
}
EXPORT_SYMBOL_GPL(vnet_rxr_check_xdp);

MODULE_DESCRIPTION("rx-reserve for virtio_net");
MODULE_LICENSE("GPL");
