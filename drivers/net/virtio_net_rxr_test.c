// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of virtio_net's rx-reserve steering: the indirection table
 * that points priority flows' buckets at the reserve queue.  The hash
 * itself is tested with the core (rx_reserve_rss).
 */
#include <kunit/test.h>
#include <linux/ethtool.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/virtio_net.h>
#include <net/ipv6.h>
#include <net/rx_reserve_rss.h>

#include "virtio_net_rxr.h"

#define TBL 128

static u8 key[RXR_RSS_KEY_SIZE];

static int vnet_rxr_test_init(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = i * 37 + 11;
	return 0;
}

/* A flow from 192.0.2.1:@sport to 192.0.2.2:@dport in slot @loc. */
static void flow(struct rxr_rss *rss, unsigned int loc, u16 sport,
		 u16 dport)
{
	struct rxr_tuple *t = &rss->rule[loc].t;

	memset(t, 0, sizeof(*t));
	t->family = AF_INET;
	ipv6_addr_set_v4mapped(htonl(0xc0000201), &t->saddr);
	ipv6_addr_set_v4mapped(htonl(0xc0000202), &t->daddr);
	t->sport = htons(sport);
	t->dport = htons(dport);
	rss->rule[loc].used = true;
}

static unsigned int bucket(struct kunit *test, const struct rxr_rss *rss,
			   unsigned int loc)
{
	u32 h = 0;

	KUNIT_EXPECT_TRUE(test, rxr_rss_flow_hash(key, &rss->rule[loc].t,
						  RXR_RSS_TCPV4, &h));
	return h & (TBL - 1);
}

/* The default table over 4 queues with queue 3 reserved: entries that
 * named queue 3 spread over 0-2, the flows' buckets name 3, and two flows
 * in one bucket count once.
 */
static void vnet_rxr_test_table(struct kunit *test)
{
	u32 types = VIRTIO_NET_RSS_HASH_TYPE_IPv4 |
		    VIRTIO_NET_RSS_HASH_TYPE_TCPv4;
	unsigned int i, b0, b1, n3 = 0, p;
	struct rxr_rss rss;
	__le16 table[TBL];

	rxr_rss_init(&rss, TBL, 3);
	for (i = 0; i < TBL; i++)
		table[i] = cpu_to_le16(ethtool_rxfh_indir_default(i, 4));
	flow(&rss, 0, 10809, 1766);
	flow(&rss, 2, 14230, 4739);
	b0 = bucket(test, &rss, 0);
	b1 = bucket(test, &rss, 2);

	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, key, &rss,
						   types),
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
	rxr_rss_init(&rss, TBL, 3);
	flow(&rss, 0, 10809, 1766);
	for (p = 1; p < 65536; p++) {
		flow(&rss, 1, 10809, p);
		if (bucket(test, &rss, 1) == b0 && p != 1766)
			break;
	}
	KUNIT_ASSERT_LT(test, p, 65536);
	for (i = 0; i < TBL; i++)
		table[i] = cpu_to_le16(i % 3);
	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, key, &rss,
						   types), 1);
	/* Applied to its own result, it gives the same table. */
	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, key, &rss,
						   types), 1);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(table[b0]), 3);
	/* A table the helper does not steer. */
	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, 96, 3, key, &rss,
						   types), 0);
}

/* The administrator's table is kept where it does not name the reserve
 * queue.
 */
static void vnet_rxr_test_admin_table(struct kunit *test)
{
	u32 types = VIRTIO_NET_RSS_HASH_TYPE_TCPv4;
	struct rxr_rss rss;
	__le16 table[TBL];
	unsigned int i, b;

	rxr_rss_init(&rss, TBL, 3);
	flow(&rss, 5, 48228, 2217);
	b = bucket(test, &rss, 5);
	/* All traffic to queue 1, but every 8th bucket to the reserve. */
	for (i = 0; i < TBL; i++)
		table[i] = cpu_to_le16(i % 8 ? 1 : 3);
	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, key, &rss,
						   types), 1);
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

/* The virtio hash types name the fields the core hashes: with IPv6 types
 * only, an IPv4 flow has no bucket and the table is only spread.
 */
static void vnet_rxr_test_types(struct kunit *test)
{
	u32 types = VIRTIO_NET_RSS_HASH_TYPE_IPv6 |
		    VIRTIO_NET_RSS_HASH_TYPE_TCP_EX;
	struct rxr_rss rss;
	__le16 table[TBL];
	unsigned int i;

	rxr_rss_init(&rss, TBL, 3);
	flow(&rss, 0, 10809, 1766);
	for (i = 0; i < TBL; i++)
		table[i] = cpu_to_le16(ethtool_rxfh_indir_default(i, 4));
	KUNIT_EXPECT_EQ(test, vnet_rxr_steer_table(table, TBL, 3, key, &rss,
						   types), 0);
	for (i = 0; i < TBL; i++)
		KUNIT_EXPECT_LT(test, le16_to_cpu(table[i]), 3);
}

static struct kunit_case vnet_rxr_test_cases[] = {
	KUNIT_CASE(vnet_rxr_test_table),
	KUNIT_CASE(vnet_rxr_test_admin_table),
	KUNIT_CASE(vnet_rxr_test_types),
	{}
};

static struct kunit_suite vnet_rxr_test_suite = {
	.name = "virtio_net_rx_reserve",
	.init = vnet_rxr_test_init,
	.test_cases = vnet_rxr_test_cases,
};

kunit_test_suite(vnet_rxr_test_suite);

MODULE_DESCRIPTION("KUnit tests of virtio_net's rx-reserve steering");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
