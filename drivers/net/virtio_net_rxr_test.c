// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of virtio_net's rx-reserve steering: the Toeplitz hash a
 * virtio-net device computes, and the indirection table that points
 * priority flows' buckets at the reserve queue.
 */
#include <kunit/test.h>
#include <linux/ethtool.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/virtio_net.h>
#include <net/ipv6.h>

#include "virtio_net_rxr.h"

/* The key of Microsoft's "Verifying the RSS Hash Calculation". */
static const u8 ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct ms_vec {
	const char *src, *dst;
	u16 sport, dport;
	u32 l3, l4;
};

/* Source is the remote end: the tuple of a received packet. */
static const struct ms_vec ms_v4[] = {
	{ "66.9.149.187", "161.142.100.80", 2794, 1766,
	  0x323e8fc2, 0x51ccc178 },
	{ "199.92.111.2", "65.69.140.83", 14230, 4739,
	  0xd718262a, 0xc626b0ea },
	{ "24.19.198.95", "12.22.207.184", 12898, 38024,
	  0xd2d0a5de, 0x5c2b394a },
	{ "38.27.205.30", "209.142.163.6", 48228, 2217,
	  0x82989176, 0xafc7327f },
	{ "153.39.163.191", "202.188.127.2", 44251, 1303,
	  0x5d1809c5, 0x10e828a2 },
};

static const struct ms_vec ms_v6[] = {
	{ "3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766,
	  0x2cc18cd5, 0x40207d3d },
	{ "3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739,
	  0x0f0c461c, 0xdde51bbf },
	{ "3ffe:1900:4545:3:200:f8ff:fe21:67cf",
	  "fe80::200:f8ff:fe21:67cf", 44251, 38024,
	  0x4b61e985, 0x02d1feef },
};

static void tuple_v4(struct kunit *test, const struct ms_vec *v,
		     struct rxr_tuple *t)
{
	__be32 s, d;

	memset(t, 0, sizeof(*t));
	KUNIT_ASSERT_EQ(test, in4_pton(v->src, -1, (u8 *)&s, -1, NULL), 1);
	KUNIT_ASSERT_EQ(test, in4_pton(v->dst, -1, (u8 *)&d, -1, NULL), 1);
	t->family = AF_INET;
	ipv6_addr_set_v4mapped(s, &t->saddr);
	ipv6_addr_set_v4mapped(d, &t->daddr);
	t->sport = htons(v->sport);
	t->dport = htons(v->dport);
}

static void tuple_v6(struct kunit *test, const struct ms_vec *v,
		     struct rxr_tuple *t)
{
	memset(t, 0, sizeof(*t));
	KUNIT_ASSERT_EQ(test, in6_pton(v->src, -1, t->saddr.s6_addr, -1,
				       NULL), 1);
	KUNIT_ASSERT_EQ(test, in6_pton(v->dst, -1, t->daddr.s6_addr, -1,
				       NULL), 1);
	t->family = AF_INET6;
	t->sport = htons(v->sport);
	t->dport = htons(v->dport);
}

/* The hash matches Microsoft's verification vectors, IPv4 and IPv6, with
 * and without the ports.
 */
static void vnet_rxr_test_toeplitz(struct kunit *test)
{
	const u32 v4 = VIRTIO_NET_RSS_HASH_TYPE_IPv4;
	const u32 v4tcp = v4 | VIRTIO_NET_RSS_HASH_TYPE_TCPv4;
	const u32 v6 = VIRTIO_NET_RSS_HASH_TYPE_IPv6;
	const u32 v6tcp = VIRTIO_NET_RSS_HASH_TYPE_TCPv6;
	const u32 v6ex = VIRTIO_NET_RSS_HASH_TYPE_TCP_EX;
	struct rxr_tuple t;
	unsigned int i;
	u32 h;

	for (i = 0; i < ARRAY_SIZE(ms_v4); i++) {
		tuple_v4(test, &ms_v4[i], &t);
		KUNIT_EXPECT_TRUE(test, vnet_rxr_flow_hash(ms_key, &t, v4, &h));
		KUNIT_EXPECT_EQ_MSG(test, h, ms_v4[i].l3, "v4 vector %u", i);
		KUNIT_EXPECT_TRUE(test,
				  vnet_rxr_flow_hash(ms_key, &t, v4tcp, &h));
		KUNIT_EXPECT_EQ_MSG(test, h, ms_v4[i].l4, "v4 vector %u", i);
	}
	for (i = 0; i < ARRAY_SIZE(ms_v6); i++) {
		tuple_v6(test, &ms_v6[i], &t);
		KUNIT_EXPECT_TRUE(test, vnet_rxr_flow_hash(ms_key, &t, v6, &h));
		KUNIT_EXPECT_EQ_MSG(test, h, ms_v6[i].l3, "v6 vector %u", i);
		KUNIT_EXPECT_TRUE(test,
				  vnet_rxr_flow_hash(ms_key, &t, v6tcp, &h));
		KUNIT_EXPECT_EQ_MSG(test, h, ms_v6[i].l4, "v6 vector %u", i);
		/* The _EX types hash the same fields without extensions. */
		KUNIT_EXPECT_TRUE(test,
				  vnet_rxr_flow_hash(ms_key, &t, v6ex, &h));
		KUNIT_EXPECT_EQ_MSG(test, h, ms_v6[i].l4, "v6 vector %u", i);
	}
}

/* Hash types that leave TCP unhashed: no bucket can be named. */
static void vnet_rxr_test_types(struct kunit *test)
{
	const u32 not_v4 = VIRTIO_NET_RSS_HASH_TYPE_IPv6 |
			   VIRTIO_NET_RSS_HASH_TYPE_UDPv4;
	const u32 not_v6 = VIRTIO_NET_RSS_HASH_TYPE_IPv4 |
			   VIRTIO_NET_RSS_HASH_TYPE_TCPv4;
	struct rxr_tuple t;
	u32 h;

	tuple_v4(test, &ms_v4[0], &t);
	KUNIT_EXPECT_FALSE(test, vnet_rxr_flow_hash(ms_key, &t, not_v4, &h));
	tuple_v6(test, &ms_v6[0], &t);
	KUNIT_EXPECT_FALSE(test, vnet_rxr_flow_hash(ms_key, &t, not_v6, &h));
	/* A key too short for the input. */
	KUNIT_EXPECT_EQ(test,
			vnet_rxr_toeplitz(ms_key, 8, (const u8 *)"12345", 5),
			0);
}

#define TBL 128

/* The default table over 4 queues with queue 3 reserved: entries that
 * named queue 3 spread over 0-2, the flows' buckets name 3, and two flows
 * in one bucket count once.
 */
static void vnet_rxr_test_table(struct kunit *test)
{
	struct vnet_rxr_rule rule[4] = {};
	__le16 table[TBL];
	u32 types = VIRTIO_NET_RSS_HASH_TYPE_IPv4 |
		    VIRTIO_NET_RSS_HASH_TYPE_TCPv4;
	unsigned int i, b0, b1, n3 = 0, p;
	u32 h;

	for (i = 0; i < TBL; i++)
		table[i] = cpu_to_le16(ethtool_rxfh_indir_default(i, 4));
	tuple_v4(test, &ms_v4[0], &rule[0].t);
	tuple_v4(test, &ms_v4[1], &rule[2].t);
	rule[0].used = true;
	rule[2].used = true;
	/* Unused slots do not count, whatever they hold. */
	tuple_v4(test, &ms_v4[2], &rule[3].t);

	KUNIT_ASSERT_TRUE(test, vnet_rxr_flow_hash(ms_key, &rule[0].t, types,
						   &h));
	b0 = h & (TBL - 1);
	KUNIT_ASSERT_TRUE(test, vnet_rxr_flow_hash(ms_key, &rule[2].t, types,
						   &h));
	b1 = h & (TBL - 1);

	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, ms_key,
						   rule, 4, types),
			b0 == b1 ? 1 : 2);
	for (i = 0; i < TBL; i++) {
		if (i == b0 || i == b1) {
			KUNIT_EXPECT_EQ(test, le16_to_cpu(table[i]), 3);
			continue;
		}
		KUNIT_EXPECT_LT(test, le16_to_cpu(table[i]), 3);
		n3 += le16_to_cpu(table[i]) == 3;
	}
	KUNIT_EXPECT_EQ(test, n3, 0);

	/* Another flow in the first one's bucket adds no bucket. */
	rule[1] = rule[0];
	for (p = 1; p < 65536; p++) {
		rule[1].t.dport = htons(p);
		KUNIT_ASSERT_TRUE(test, vnet_rxr_flow_hash(ms_key, &rule[1].t,
							   types, &h));
		if ((h & (TBL - 1)) == b0 && p != ms_v4[0].dport)
			break;
	}
	KUNIT_ASSERT_LT(test, p, 65536);
	for (i = 0; i < TBL; i++)
		table[i] = cpu_to_le16(i % 3);
	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, ms_key,
						   rule, 2, types), 1);
	/* Applied to its own result, it gives the same table. */
	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, ms_key,
						   rule, 2, types), 1);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(table[b0]), 3);
}

/* The administrator's table is kept where it does not name the reserve
 * queue.
 */
static void vnet_rxr_test_admin_table(struct kunit *test)
{
	struct vnet_rxr_rule rule = { .used = true };
	u32 types = VIRTIO_NET_RSS_HASH_TYPE_TCPv4;
	__le16 table[TBL];
	unsigned int i, b;
	u32 h;

	tuple_v4(test, &ms_v4[3], &rule.t);
	KUNIT_ASSERT_TRUE(test, vnet_rxr_flow_hash(ms_key, &rule.t, types,
						   &h));
	b = h & (TBL - 1);
	/* All traffic to queue 1, but every 8th bucket to the reserve. */
	for (i = 0; i < TBL; i++)
		table[i] = cpu_to_le16(i % 8 ? 1 : 3);
	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, ms_key,
						   &rule, 1, types), 1);
	for (i = 0; i < TBL; i++) {
		if (i == b)
			KUNIT_EXPECT_EQ(test, le16_to_cpu(table[i]), 3);
		else if (i % 8)
			KUNIT_EXPECT_EQ(test, le16_to_cpu(table[i]), 1);
		else
			KUNIT_EXPECT_EQ(test, le16_to_cpu(table[i]),
					ethtool_rxfh_indir_default(i, 3));
	}
}

static struct kunit_case vnet_rxr_test_cases[] = {
	KUNIT_CASE(vnet_rxr_test_toeplitz),
	KUNIT_CASE(vnet_rxr_test_types),
	KUNIT_CASE(vnet_rxr_test_table),
	KUNIT_CASE(vnet_rxr_test_admin_table),
	{}
};

static struct kunit_suite vnet_rxr_test_suite = {
	.name = "virtio_net_rx_reserve",
	.test_cases = vnet_rxr_test_cases,
};

kunit_test_suite(vnet_rxr_test_suite);

MODULE_DESCRIPTION("KUnit tests of virtio_net's rx-reserve steering");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
