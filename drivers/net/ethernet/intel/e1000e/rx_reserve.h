/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rx-reserve for e1000e: the 82574's second RX queue as the reserve queue,
 * steered by RETA buckets, and the software fallback on queue 0.
 */
#ifndef _E1000E_RX_RESERVE_H_
#define _E1000E_RX_RESERVE_H_

#include <linux/types.h>
#include <net/rx_reserve.h>

struct e1000_adapter;
struct ethtool_rxfh_param;
struct ethtool_rxnfc;
struct sk_buff;

#if IS_ENABLED(CONFIG_RX_RESERVE)

/* RX queues and MSI-X vectors rx-reserve adds on the 82574: queue 1's. */
#define E1000E_RXR_QUEUES	1
#define E1000E_RXR_VECTORS	1

int e1000e_rxr_create(struct e1000_adapter *adapter);
void e1000e_rxr_destroy(struct e1000_adapter *adapter);
int e1000e_rxr_start(struct e1000_adapter *adapter);
void e1000e_rxr_stop(struct e1000_adapter *adapter);

void e1000e_rxr_request_irq(struct e1000_adapter *adapter);
void e1000e_rxr_free_irq(struct e1000_adapter *adapter);
u32 e1000e_rxr_configure_msix(struct e1000_adapter *adapter);
void e1000e_rxr_configure(struct e1000_adapter *adapter);
void e1000e_rxr_down(struct e1000_adapter *adapter);

struct sk_buff *e1000e_rxr_lend(struct e1000_adapter *adapter);
struct sk_buff *e1000e_rxr_rx(struct e1000_adapter *adapter,
			      struct sk_buff *skb, unsigned int len,
			      bool *keep);
void e1000e_rxr_ring_empty(struct e1000_adapter *adapter);

int e1000e_rxr_get_rxnfc(struct e1000_adapter *adapter,
			 struct ethtool_rxnfc *info, u32 *rule_locs);
int e1000e_rxr_set_rxnfc(struct e1000_adapter *adapter,
			 const struct ethtool_rxnfc *info);
u32 e1000e_rxr_rxfh_key_size(struct e1000_adapter *adapter);
u32 e1000e_rxr_rxfh_indir_size(struct e1000_adapter *adapter);
int e1000e_rxr_get_rxfh(struct e1000_adapter *adapter,
			struct ethtool_rxfh_param *rxfh);
int e1000e_rxr_sset_count(struct e1000_adapter *adapter, int sset);
void e1000e_rxr_get_strings(struct e1000_adapter *adapter, u32 sset,
			    u8 **p);
void e1000e_rxr_get_stats(struct e1000_adapter *adapter, u64 **data);
u32 e1000e_rxr_get_priv_flags(struct e1000_adapter *adapter, u32 bit);
int e1000e_rxr_set_priv_flags(struct e1000_adapter *adapter, u32 flags,
			      u32 bit);

#else /* CONFIG_RX_RESERVE */

#define E1000E_RXR_QUEUES	0
#define E1000E_RXR_VECTORS	0

static inline int e1000e_rxr_create(struct e1000_adapter *adapter)
{
	return 0;
}

static inline void e1000e_rxr_destroy(struct e1000_adapter *adapter) { }

static inline int e1000e_rxr_start(struct e1000_adapter *adapter)
{
	return 0;
}

static inline void e1000e_rxr_stop(struct e1000_adapter *adapter) { }
static inline void e1000e_rxr_request_irq(struct e1000_adapter *adapter) { }
static inline void e1000e_rxr_free_irq(struct e1000_adapter *adapter) { }

static inline u32 e1000e_rxr_configure_msix(struct e1000_adapter *adapter)
{
	return 0;
}

static inline void e1000e_rxr_configure(struct e1000_adapter *adapter) { }
static inline void e1000e_rxr_down(struct e1000_adapter *adapter) { }

static inline struct sk_buff *e1000e_rxr_lend(struct e1000_adapter *adapter)
{
	return NULL;
}

static inline struct sk_buff *e1000e_rxr_rx(struct e1000_adapter *adapter,
					    struct sk_buff *skb,
					    unsigned int len, bool *keep)
{
	*keep = false;
	return skb;
}

static inline void e1000e_rxr_ring_empty(struct e1000_adapter *adapter) { }

static inline int e1000e_rxr_get_rxnfc(struct e1000_adapter *adapter,
				       struct ethtool_rxnfc *info,
				       u32 *rule_locs)
{
	return -EOPNOTSUPP;
}

static inline int e1000e_rxr_set_rxnfc(struct e1000_adapter *adapter,
				       const struct ethtool_rxnfc *info)
{
	return -EOPNOTSUPP;
}

static inline u32 e1000e_rxr_rxfh_key_size(struct e1000_adapter *adapter)
{
	return 0;
}

static inline u32 e1000e_rxr_rxfh_indir_size(struct e1000_adapter *adapter)
{
	return 0;
}

static inline int e1000e_rxr_get_rxfh(struct e1000_adapter *adapter,
				      struct ethtool_rxfh_param *rxfh)
{
	return -EOPNOTSUPP;
}

static inline int e1000e_rxr_sset_count(struct e1000_adapter *adapter,
					int sset)
{
	return 0;
}

static inline void e1000e_rxr_get_strings(struct e1000_adapter *adapter,
					  u32 sset, u8 **p) { }
static inline void e1000e_rxr_get_stats(struct e1000_adapter *adapter,
					u64 **data) { }

static inline u32 e1000e_rxr_get_priv_flags(struct e1000_adapter *adapter,
					    u32 bit)
{
	return 0;
}

static inline int e1000e_rxr_set_priv_flags(struct e1000_adapter *adapter,
					    u32 flags, u32 bit)
{
	return flags & bit ? -EOPNOTSUPP : 0;
}

#endif /* CONFIG_RX_RESERVE */

#endif /* _E1000E_RX_RESERVE_H_ */
