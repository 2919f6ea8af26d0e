// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve steering by RSS buckets.
 *
 * A device without exact-match flow filters but with an RSS indirection
 * table (virtio-net, the 82574) steers a priority flow to its reserve queue
 * by pointing the flow's bucket there.  The driver computes the bucket as
 * the device does: the Toeplitz hash of the flow's addresses and ports
 * with the key it programmed, masked to the table size.  The buckets are
 * offered to the core as ntuple slots, which the core fills through the
 * driver's set_rxnfc; these helpers keep the slots and name the buckets.
 */

#include <linux/bitmap.h>
#include <linux/ethtool.h>
#include <linux/export.h>
#include <linux/in.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <net/rx_reserve_rss.h>

/**
 * rxr_toeplitz() - the Toeplitz hash of Microsoft's RSS specification
 * @key: the RSS key
 * @key_size: bytes at @key, at least @len + 4
 * @in: the input bytes, in network order
 * @len: bytes at @in
 *
 * Return: the 32-bit hash, or 0 if @key is too short.
 */
u32 rxr_toeplitz(const u8 *key, unsigned int key_size, const u8 *in,
		 unsigned int len)
{
	u32 v, hash = 0;
	unsigned int i, b;

	if (len + 4 > key_size)
		return 0;
	v = get_unaligned_be32(key);
	for (i = 0; i < len; i++) {
		for (b = 0; b < 8; b++) {
			if (in[i] & (0x80 >> b))
				hash ^= v;
			v <<= 1;
			if (key[i + 4] & (0x80 >> b))
				v |= 1;
		}
	}
	return hash;
}
EXPORT_SYMBOL_GPL(rxr_toeplitz);

/**
 * rxr_rss_flow_hash() - the RSS hash a device computes for a TCP flow
 * @key: the RSS key, %RXR_RSS_KEY_SIZE bytes
 * @t: the flow as received
 * @types: the %RXR_RSS_* fields the device hashes
 * @hash: set to the hash
 *
 * The input is the source address, the destination address, then the
 * source and destination ports when @types hashes TCP of the family.
 *
 * Return: false if @types hashes no field of the flow's packets.
 */
bool rxr_rss_flow_hash(const u8 *key, const struct rxr_tuple *t, u32 types,
		       u32 *hash)
{
	unsigned int alen, len;
	u8 in[36];
	bool ports;

	if (t->family == AF_INET) {
		ports = types & RXR_RSS_TCPV4;
		if (!ports && !(types & RXR_RSS_IPV4))
			return false;
		alen = 4;
		memcpy(in, &t->saddr.s6_addr32[3], 4);
		memcpy(in + 4, &t->daddr.s6_addr32[3], 4);
	} else {
		ports = types & RXR_RSS_TCPV6;
		if (!ports && !(types & RXR_RSS_IPV6))
			return false;
		alen = 16;
		memcpy(in, &t->saddr, 16);
		memcpy(in + 16, &t->daddr, 16);
	}
	len = 2 * alen;
	if (ports) {
		memcpy(in + len, &t->sport, 2);
		memcpy(in + len + 2, &t->dport, 2);
		len += 4;
	}
	*hash = rxr_toeplitz(key, RXR_RSS_KEY_SIZE, in, len);
	return true;
}
EXPORT_SYMBOL_GPL(rxr_rss_flow_hash);

/**
 * rxr_rss_init() - offer a quarter of a table's buckets as slots
 * @rss: the slots, emptied
 * @table_size: entries in the device's indirection table, a power of two,
 *	or 0 for a device that cannot steer (no slots)
 * @ring: the reserve queue
 *
 * A quarter, at most %RXR_RSS_MAX_SLOTS: each priority flow takes its
 * bucket's share of everything else the device receives, so the slots
 * stay a small part of the table.
 */
void rxr_rss_init(struct rxr_rss *rss, unsigned int table_size, u32 ring)
{
	memset(rss, 0, sizeof(*rss));
	rss->ring = ring;
	if (table_size >= 4 && is_power_of_2(table_size))
		rss->nslots = min(RXR_RSS_MAX_SLOTS, table_size / 4);
}
EXPORT_SYMBOL_GPL(rxr_rss_init);

/**
 * rxr_rss_set_rule() - the core puts a flow in a slot or takes it out
 * @rss: the slots, or NULL
 * @info: %ETHTOOL_SRXCLSRLINS of an exact TCP 5-tuple to the reserve
 *	queue, or %ETHTOOL_SRXCLSRLDEL, at a location below the slots
 *
 * The ethtool core keeps administrators out of the slots' locations, so
 * only the rx-reserve core gets here.  The driver then points the
 * table at the buckets (rxr_rss_buckets()) and commits it.
 *
 * Return: 0; -EOPNOTSUPP with no slots or for another command; -EINVAL
 * for a bad rule or location; -ENOENT to delete an empty location.
 */
int rxr_rss_set_rule(struct rxr_rss *rss, const struct ethtool_rxnfc *info)
{
	u32 loc = info->fs.location;
	struct rxr_tuple t;
	int err;

	if (!rss || !rss->nslots)
		return -EOPNOTSUPP;
	if (loc >= rss->nslots)
		return -EINVAL;
	switch (info->cmd) {
	case ETHTOOL_SRXCLSRLDEL:
		if (!rss->rule[loc].used)
			return -ENOENT;
		rss->rule[loc].used = false;
		return 0;
	case ETHTOOL_SRXCLSRLINS:
		if (info->fs.ring_cookie != rss->ring)
			return -EINVAL;
		err = rxr_tuple_from_fs(&info->fs, &t);
		if (err)
			return err;
		rss->rule[loc].t = t;
		rss->rule[loc].used = true;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}
EXPORT_SYMBOL_GPL(rxr_rss_set_rule);

/**
 * rxr_rss_get_rule() - list the flows in slots as ntuple rules
 * @rss: the slots, or NULL for none
 * @info: %ETHTOOL_GRXCLSRLCNT, %ETHTOOL_GRXCLSRULE or %ETHTOOL_GRXCLSRLALL
 * @rule_locs: locations, for %ETHTOOL_GRXCLSRLALL
 *
 * Return: 0, -ENOENT for an empty location, -EMSGSIZE if @rule_locs is
 * short, -EOPNOTSUPP for other commands.
 */
int rxr_rss_get_rule(const struct rxr_rss *rss, struct ethtool_rxnfc *info,
		     u32 *rule_locs)
{
	unsigned int i, n = 0, nslots = rss ? rss->nslots : 0;
	u32 loc;

	switch (info->cmd) {
	case ETHTOOL_GRXCLSRLCNT:
		for (i = 0; i < nslots; i++)
			n += rss->rule[i].used;
		info->rule_cnt = n;
		info->data = nslots;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		loc = info->fs.location;
		if (loc >= nslots || !rss->rule[loc].used)
			return -ENOENT;
		memset(&info->fs, 0, sizeof(info->fs));
		rxr_tuple_to_fs(&rss->rule[loc].t, &info->fs);
		info->fs.location = loc;
		info->fs.ring_cookie = rss->ring;
		return 0;
	case ETHTOOL_GRXCLSRLALL:
		for (i = 0; i < nslots; i++) {
			if (!rss->rule[i].used)
				continue;
			if (n == info->rule_cnt)
				return -EMSGSIZE;
			rule_locs[n++] = i;
		}
		info->rule_cnt = n;
		info->data = nslots;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}
EXPORT_SYMBOL_GPL(rxr_rss_get_rule);

/**
 * rxr_rss_buckets() - the buckets of the flows in slots
 * @rss: the slots, or NULL
 * @key: the RSS key the device uses, %RXR_RSS_KEY_SIZE bytes
 * @types: the %RXR_RSS_* fields the device hashes
 * @n: entries in the indirection table, a power of two
 * @map: a bitmap of @n bits, set to the buckets
 *
 * Flows whose fields @types does not hash have no bucket.
 *
 * Return: the number of buckets, which two flows may share.
 */
unsigned int rxr_rss_buckets(const struct rxr_rss *rss, const u8 *key,
			     u32 types, unsigned int n, unsigned long *map)
{
	unsigned int i;
	u32 hash;

	bitmap_zero(map, n);
	for (i = 0; rss && i < rss->nslots; i++)
		if (rss->rule[i].used &&
		    rxr_rss_flow_hash(key, &rss->rule[i].t, types, &hash))
			__set_bit(hash & (n - 1), map);
	return bitmap_weight(map, n);
}
EXPORT_SYMBOL_GPL(rxr_rss_buckets);
