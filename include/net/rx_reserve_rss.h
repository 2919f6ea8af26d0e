/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rx-reserve steering by RSS buckets, for devices that have an RSS
 * indirection table but no exact-match flow filters.
 */
#ifndef _NET_RX_RESERVE_RSS_H
#define _NET_RX_RESERVE_RSS_H

#include <linux/bits.h>
#include <linux/types.h>
#include <net/rx_reserve.h>

struct ethtool_rxnfc;

/* The most buckets a device offers as slots: the core's slot limit. */
#define RXR_RSS_MAX_SLOTS	32
/* Bytes of a Toeplitz RSS key. */
#define RXR_RSS_KEY_SIZE	40

/* The fields a device hashes, in the device's own terms translated. */
#define RXR_RSS_IPV4		BIT(0)	/* IPv4 addresses */
#define RXR_RSS_TCPV4		BIT(1)	/* IPv4 addresses and TCP ports */
#define RXR_RSS_IPV6		BIT(2)	/* IPv6 addresses */
#define RXR_RSS_TCPV6		BIT(3)	/* IPv6 addresses and TCP ports */

/**
 * struct rxr_rss_rule - a priority flow in a slot
 * @used: the slot holds a flow
 * @t: the flow as received
 */
struct rxr_rss_rule {
	bool used;
	struct rxr_tuple t;
};

/**
 * struct rxr_rss - the slots a device offers as RSS buckets
 * @nslots: slots offered to the core, at most %RXR_RSS_MAX_SLOTS
 * @ring: the reserve queue, the only queue a rule may name
 * @rule: the core's flows, by location
 *
 * A slot is approximate: the flow's bucket of the indirection table points
 * at the reserve queue, so other flows that hash to that bucket arrive
 * there too, and the driver's classifier sorts them out.
 */
struct rxr_rss {
	unsigned int nslots;
	u32 ring;
	struct rxr_rss_rule rule[RXR_RSS_MAX_SLOTS];
};

#if IS_ENABLED(CONFIG_RX_RESERVE)

u32 rxr_toeplitz(const u8 *key, unsigned int key_size, const u8 *in,
		 unsigned int len);
bool rxr_rss_flow_hash(const u8 *key, const struct rxr_tuple *t, u32 types,
		       u32 *hash);
void rxr_rss_init(struct rxr_rss *rss, unsigned int table_size, u32 ring);
int rxr_rss_set_rule(struct rxr_rss *rss, const struct ethtool_rxnfc *info);
int rxr_rss_get_rule(const struct rxr_rss *rss, struct ethtool_rxnfc *info,
		     u32 *rule_locs);
unsigned int rxr_rss_buckets(const struct rxr_rss *rss, const u8 *key,
			     u32 types, unsigned int n, unsigned long *map);

#endif /* CONFIG_RX_RESERVE */

#endif /* _NET_RX_RESERVE_RSS_H */
