/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio_net's rx-reserve helper: a reserve virtqueue fed from rx-reserve
 * pools, RSS-bucket steering of priority flows, and the software fallback
 * on the regular queues.
 */
#ifndef _VIRTIO_NET_RXR_H
#define _VIRTIO_NET_RXR_H

#include <linux/netdevice.h>
#include <net/rx_reserve.h>

struct ethtool_rxnfc;
struct napi_struct;
struct netlink_ext_ack;
struct virtqueue;
struct vnet_rxr;

/**
 * struct vnet_rxr_ops - what virtio_net does for the helper
 * @rss_commit: send the RSS configuration to the device again; it calls
 *	vnet_rxr_rss_apply() and vnet_rxr_rss_restore() around the command.
 *	RTNL held.
 * @repost_len: the length a receive buffer was posted with, from its
 *	context
 * @kick: notify the device that RX queue @q has buffers
 * @refill: fill RX queue @q with the driver's own buffers now; RTNL held
 * @schedule: schedule the NAPI of RX queue @q; process context
 */
struct vnet_rxr_ops {
	void (*rss_commit)(struct net_device *dev);
	unsigned int (*repost_len)(struct net_device *dev, void *ctx);
	void (*kick)(struct net_device *dev, unsigned int q);
	void (*refill)(struct net_device *dev, unsigned int q);
	void (*schedule)(struct net_device *dev, unsigned int q);
};

/**
 * struct vnet_rxr_cfg - how the device runs now
 * @nq: queue pairs in use
 * @rss: the device steers by an RSS indirection table
 * @key: the RSS key the driver programmed, @key_size bytes; it stays at
 *	this address
 * @key_size: bytes at @key
 * @indir_size: entries in the indirection table, a power of two
 * @hdr_len: virtio-net header length
 * @buf_offset: where a page's receive buffer starts in the page
 * @buf_len: length the buffer is posted with
 * @buf_ctx: context the buffer is posted with
 * @mergeable: mergeable receive buffers (the header counts buffers)
 * @mode_ok: the buffer mode takes whole pages (mergeable or small
 *	buffers, not premapped); otherwise rx-reserve refuses the device
 * @little_endian: byte order of the virtio-net header
 * @dev_ops: the driver's callbacks for the core (&struct rxr_dev_ops)
 */
struct vnet_rxr_cfg {
	unsigned int nq;
	bool rss;
	const u8 *key;
	unsigned int key_size;
	unsigned int indir_size;
	unsigned int hdr_len;
	unsigned int buf_offset;
	unsigned int buf_len;
	void *buf_ctx;
	bool mergeable;
	bool mode_ok;
	bool little_endian;
	const struct rxr_dev_ops *dev_ops;
};

#if IS_ENABLED(CONFIG_RX_RESERVE)

struct vnet_rxr *vnet_rxr_create(struct net_device *dev, unsigned int max_nq,
				 const struct vnet_rxr_ops *ops);
void vnet_rxr_destroy(struct vnet_rxr *r);
int vnet_rxr_start(struct vnet_rxr *r, const struct vnet_rxr_cfg *cfg);
void vnet_rxr_stop(struct vnet_rxr *r);
int vnet_rxr_reserve_queue(const struct vnet_rxr *r);

void vnet_rxr_rss_apply(struct vnet_rxr *r, __le16 *table, u32 hash_types);
void vnet_rxr_rss_restore(struct vnet_rxr *r, __le16 *table);
int vnet_rxr_set_rxnfc(struct vnet_rxr *r, const struct ethtool_rxnfc *info);
int vnet_rxr_get_rxnfc(struct vnet_rxr *r, struct ethtool_rxnfc *info,
		       u32 *rule_locs);

bool vnet_rxr_fill(struct vnet_rxr *r, struct virtqueue *vq, unsigned int q);
int vnet_rxr_lend(struct vnet_rxr *r, struct virtqueue *vq, unsigned int q);
bool vnet_rxr_rx(struct vnet_rxr *r, struct virtqueue *vq,
		 struct napi_struct *napi, unsigned int q, void *buf,
		 unsigned int len, void *ctx, unsigned int *bytes);
void vnet_rxr_poll_done(struct vnet_rxr *r, struct virtqueue *vq,
			unsigned int q, bool kick_others);
int vnet_rxr_select_queue(struct vnet_rxr *r, struct sk_buff *skb);

int vnet_rxr_sset_count(struct vnet_rxr *r, int sset, unsigned int nq);
void vnet_rxr_get_strings(struct vnet_rxr *r, u32 sset, unsigned int nq,
			  u8 **p);
void vnet_rxr_get_stats(struct vnet_rxr *r, unsigned int nq, u64 **data);
u32 vnet_rxr_get_priv_flags(struct vnet_rxr *r);
int vnet_rxr_set_priv_flags(struct vnet_rxr *r, u32 flags, bool xdp);
int vnet_rxr_check_xdp(struct vnet_rxr *r, struct netlink_ext_ack *extack);

#if IS_ENABLED(CONFIG_KUNIT)
struct rxr_rss;
unsigned int vnet_rxr_steer_table(__le16 *table, unsigned int n, int rq,
				  const u8 *key, const struct rxr_rss *rss,
				  u32 types);
#endif

#else /* CONFIG_RX_RESERVE */

static inline struct vnet_rxr *vnet_rxr_create(struct net_device *dev,
					       unsigned int max_nq,
					       const struct vnet_rxr_ops *ops)
{
	return NULL;
}

static inline void vnet_rxr_destroy(struct vnet_rxr *r) { }

static inline int vnet_rxr_start(struct vnet_rxr *r,
				 const struct vnet_rxr_cfg *cfg)
{
	return 0;
}

static inline void vnet_rxr_stop(struct vnet_rxr *r) { }

static inline int vnet_rxr_reserve_queue(const struct vnet_rxr *r)
{
	return -1;
}

static inline void vnet_rxr_rss_apply(struct vnet_rxr *r, __le16 *table,
				      u32 hash_types) { }
static inline void vnet_rxr_rss_restore(struct vnet_rxr *r,
					__le16 *table) { }

static inline int vnet_rxr_set_rxnfc(struct vnet_rxr *r,
				     const struct ethtool_rxnfc *info)
{
	return -EOPNOTSUPP;
}

static inline int vnet_rxr_get_rxnfc(struct vnet_rxr *r,
				     struct ethtool_rxnfc *info,
				     u32 *rule_locs)
{
	return -EOPNOTSUPP;
}

static inline bool vnet_rxr_fill(struct vnet_rxr *r, struct virtqueue *vq,
				 unsigned int q)
{
	return true;
}

static inline int vnet_rxr_lend(struct vnet_rxr *r, struct virtqueue *vq,
				unsigned int q)
{
	return -ENOMEM;
}

static inline bool vnet_rxr_rx(struct vnet_rxr *r, struct virtqueue *vq,
			       struct napi_struct *napi, unsigned int q,
			       void *buf, unsigned int len, void *ctx,
			       unsigned int *bytes)
{
	return false;
}

static inline void vnet_rxr_poll_done(struct vnet_rxr *r,
				      struct virtqueue *vq, unsigned int q,
				      bool kick_others) { }

static inline int vnet_rxr_select_queue(struct vnet_rxr *r,
					struct sk_buff *skb)
{
	return -1;
}

static inline int vnet_rxr_sset_count(struct vnet_rxr *r, int sset,
				      unsigned int nq)
{
	return 0;
}

static inline void vnet_rxr_get_strings(struct vnet_rxr *r, u32 sset,
					unsigned int nq, u8 **p) { }
static inline void vnet_rxr_get_stats(struct vnet_rxr *r, unsigned int nq,
				      u64 **data) { }

static inline u32 vnet_rxr_get_priv_flags(struct vnet_rxr *r)
{
	return 0;
}

static inline int vnet_rxr_set_priv_flags(struct vnet_rxr *r, u32 flags,
					  bool xdp)
{
	return flags ? -EINVAL : 0;
}

static inline int vnet_rxr_check_xdp(struct vnet_rxr *r,
				     struct netlink_ext_ack *extack)
{
	return 0;
}

#endif /* CONFIG_RX_RESERVE */

#endif /* _VIRTIO_NET_RXR_H */
