/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rx-reserve for ixgbe: a reserve RX queue behind the RSS queues, fed by
 * Flow Director perfect filters, and the software fallback on the RSS
 * queues.
 */
#ifndef _IXGBE_RXR_H_
#define _IXGBE_RXR_H_

#include <linux/types.h>
#include <net/rx_reserve.h>

struct ethtool_rx_flow_spec;
struct ethtool_rxnfc;
struct ixgbe_adapter;
struct ixgbe_q_vector;
struct ixgbe_ring;
struct ixgbe_rx_buffer;
struct page;
union ixgbe_adv_rx_desc;
union ixgbe_atr_input;

/**
 * enum ixgbe_rxr_refusal - why a flow stays in software
 * @IXGBE_RXR_NTUPLE_OFF: perfect filters are off (ntuple off, ATR on);
 *	turning them on resets the adapter, which rx-reserve never does
 * @IXGBE_RXR_IPV6: the flow is IPv6: ixgbe has no IPv6 perfect filters
 * @IXGBE_RXR_MASK: the administrator's rules use another field mask, and
 *	all the rules of a port share one
 * @IXGBE_RXR_DUPLICATE: an administrator's rule matches the same flow
 * @IXGBE_RXR_LOCATION: an administrator's rule holds the location, put
 *	there before rx-reserve took the range
 * @IXGBE_RXR_NO_QUEUE: no reserve queue (no MSI-X, MTU, DCB, SR-IOV, XDP)
 * @IXGBE_RXR_RING_EMPTY: the reserve queue holds no buffer to receive into
 * @IXGBE_RXR_REFUSAL_NUM: number of reasons
 */
enum ixgbe_rxr_refusal {
	IXGBE_RXR_NTUPLE_OFF,
	IXGBE_RXR_IPV6,
	IXGBE_RXR_MASK,
	IXGBE_RXR_DUPLICATE,
	IXGBE_RXR_LOCATION,
	IXGBE_RXR_NO_QUEUE,
	IXGBE_RXR_RING_EMPTY,
	IXGBE_RXR_REFUSAL_NUM,
};

/**
 * enum ixgbe_rxr_verdict - what an RSS queue does with a frame
 * @IXGBE_RXR_PASS: up as usual
 * @IXGBE_RXR_OWNER: a lent page's owner: up through rxr_rx_up(), which
 *	marks it pfmemalloc
 * @IXGBE_RXR_RECYCLE: dropped (or copied up by rx-reserve), its buffer
 *	posted again in place
 */
enum ixgbe_rxr_verdict {
	IXGBE_RXR_PASS,
	IXGBE_RXR_OWNER,
	IXGBE_RXR_RECYCLE,
};

/* The pieces that touch no register, for KUnit. */
int ixgbe_rxr_queue_index(u16 rss_i, u16 max_queues, bool perfect,
			  bool enabled);
int ixgbe_rxr_slot_range(u32 pballoc, unsigned int want, u32 *base);
bool ixgbe_rxr_fdir_spec(const struct ethtool_rx_flow_spec *fs,
			 union ixgbe_atr_input *input,
			 union ixgbe_atr_input *mask);
int ixgbe_rxr_fdir_conflict(const union ixgbe_atr_input *cur_mask,
			    bool have_rules, const union ixgbe_atr_input *mask);
bool ixgbe_rxr_mtu_served(unsigned int mtu);

#if IS_ENABLED(CONFIG_RX_RESERVE)

int ixgbe_rxr_create(struct ixgbe_adapter *adapter);
void ixgbe_rxr_destroy(struct ixgbe_adapter *adapter);
void ixgbe_rxr_start(struct ixgbe_adapter *adapter);
void ixgbe_rxr_stop(struct ixgbe_adapter *adapter);

/* Queue layout and ring setup. */
u16 ixgbe_rxr_add_queue(struct ixgbe_adapter *adapter, u16 rss_i);
void ixgbe_rxr_drop_queue(struct ixgbe_adapter *adapter);
bool ixgbe_rxr_is_queue(const struct ixgbe_adapter *adapter, u32 queue);
u16 ixgbe_rxr_rss_queues(const struct ixgbe_adapter *adapter);
bool ixgbe_rxr_relayout(struct ixgbe_adapter *adapter);
void ixgbe_rxr_ring_flags(struct ixgbe_adapter *adapter);
void ixgbe_rxr_fill(struct ixgbe_ring *ring);
void ixgbe_rxr_clean_ring(struct ixgbe_ring *ring);
int ixgbe_rxr_clean_rx_irq(struct ixgbe_q_vector *q_vector,
			   struct ixgbe_ring *ring, int budget);

/* The software fallback on the RSS queues. */
struct page *__ixgbe_rxr_lend(struct ixgbe_ring *ring);
enum ixgbe_rxr_verdict __ixgbe_rxr_rx(struct ixgbe_ring *ring,
				      struct ixgbe_rx_buffer *bi,
				      union ixgbe_adv_rx_desc *desc,
				      const void *data, unsigned int size,
				      struct rxr_rx_buf *rb);

/* Control. */
int ixgbe_rxr_check_rule(struct ixgbe_adapter *adapter,
			 const struct ethtool_rxnfc *cmd);
void ixgbe_rxr_rule_done(struct ixgbe_adapter *adapter,
			 const struct ethtool_rxnfc *cmd, int err);
int ixgbe_rxr_sset_count(struct ixgbe_adapter *adapter);
void ixgbe_rxr_get_strings(struct ixgbe_adapter *adapter, u8 **p);
void ixgbe_rxr_get_stats(struct ixgbe_adapter *adapter, u64 *data);
bool ixgbe_rxr_get_priv_flag(struct ixgbe_adapter *adapter);
int ixgbe_rxr_set_priv_flag(struct ixgbe_adapter *adapter, bool on);

/**
 * ixgbe_rxr_lend() - a pool page for an RSS queue whose allocation failed
 * @ring: the RSS queue
 *
 * Costs a static branch while no priority flow exists.
 *
 * Return: a page to post as the driver's own, or NULL.
 */
static inline struct page *ixgbe_rxr_lend(struct ixgbe_ring *ring)
{
	return rxr_active() ? __ixgbe_rxr_lend(ring) : NULL;
}

/**
 * ixgbe_rxr_unlend() - a page leaves an RSS queue
 * @page: the page
 *
 * A lent page counts against its pool's lending limit until it leaves
 * the ring, flows or no flows: rxr_page_unlend(), one bit test for the
 * driver's own pages.
 */
static inline void ixgbe_rxr_unlend(struct page *page)
{
	rxr_page_unlend(page);
}

/**
 * ixgbe_rxr_rx() - look at a frame an RSS queue received
 * @ring: the RSS queue
 * @bi: the frame's first buffer
 * @desc: its descriptor
 * @data: the frame
 * @size: its length in that buffer
 * @rb: filled with the verdict's view of @bi when it returns
 *	%IXGBE_RXR_OWNER, for rxr_rx_up()
 *
 * Costs a static branch while no priority flow exists.
 *
 * Return: the verdict.
 */
static inline enum ixgbe_rxr_verdict ixgbe_rxr_rx(struct ixgbe_ring *ring,
						  struct ixgbe_rx_buffer *bi,
						  union ixgbe_adv_rx_desc *desc,
						  const void *data,
						  unsigned int size,
						  struct rxr_rx_buf *rb)
{
	if (!rxr_active())
		return IXGBE_RXR_PASS;
	return __ixgbe_rxr_rx(ring, bi, desc, data, size, rb);
}

#else /* CONFIG_RX_RESERVE */

static inline int ixgbe_rxr_create(struct ixgbe_adapter *adapter)
{
	return 0;
}

static inline void ixgbe_rxr_destroy(struct ixgbe_adapter *adapter) { }
static inline void ixgbe_rxr_start(struct ixgbe_adapter *adapter) { }
static inline void ixgbe_rxr_stop(struct ixgbe_adapter *adapter) { }

static inline u16 ixgbe_rxr_add_queue(struct ixgbe_adapter *adapter,
				      u16 rss_i)
{
	return 0;
}

static inline void ixgbe_rxr_drop_queue(struct ixgbe_adapter *adapter) { }

static inline bool ixgbe_rxr_is_queue(const struct ixgbe_adapter *adapter,
				      u32 queue)
{
	return false;
}

static inline u16 ixgbe_rxr_rss_queues(const struct ixgbe_adapter *adapter)
{
	return adapter->num_rx_queues;
}

static inline bool ixgbe_rxr_relayout(struct ixgbe_adapter *adapter)
{
	return false;
}

static inline void ixgbe_rxr_ring_flags(struct ixgbe_adapter *adapter) { }

static inline void ixgbe_rxr_fill(struct ixgbe_ring *ring) { }
static inline void ixgbe_rxr_clean_ring(struct ixgbe_ring *ring) { }

static inline int ixgbe_rxr_clean_rx_irq(struct ixgbe_q_vector *q_vector,
					 struct ixgbe_ring *ring, int budget)
{
	return 0;
}

static inline struct page *ixgbe_rxr_lend(struct ixgbe_ring *ring)
{
	return NULL;
}

static inline void ixgbe_rxr_unlend(struct page *page) { }

static inline enum ixgbe_rxr_verdict ixgbe_rxr_rx(struct ixgbe_ring *ring,
						  struct ixgbe_rx_buffer *bi,
						  union ixgbe_adv_rx_desc *desc,
						  const void *data,
						  unsigned int size,
						  struct rxr_rx_buf *rb)
{
	return IXGBE_RXR_PASS;
}

static inline int ixgbe_rxr_check_rule(struct ixgbe_adapter *adapter,
				       const struct ethtool_rxnfc *cmd)
{
	return 0;
}

static inline void ixgbe_rxr_rule_done(struct ixgbe_adapter *adapter,
				       const struct ethtool_rxnfc *cmd,
				       int err) { }

static inline int ixgbe_rxr_sset_count(struct ixgbe_adapter *adapter)
{
	return 0;
}

static inline void ixgbe_rxr_get_strings(struct ixgbe_adapter *adapter,
					 u8 **p) { }
static inline void ixgbe_rxr_get_stats(struct ixgbe_adapter *adapter,
				       u64 *data) { }

static inline bool ixgbe_rxr_get_priv_flag(struct ixgbe_adapter *adapter)
{
	return false;
}

static inline int ixgbe_rxr_set_priv_flag(struct ixgbe_adapter *adapter,
					  bool on)
{
	return on ? -EOPNOTSUPP : 0;
}

#endif /* CONFIG_RX_RESERVE */

#endif /* _IXGBE_RXR_H_ */
