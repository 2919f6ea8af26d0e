// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of rx-reserve's RSS-bucket steering: the Toeplitz hash
 * against Microsoft's verification vectors, the slots as ntuple rules, and
 * the buckets of the flows in them.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/ethtool.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <net/ipv6.h>
#include <net/rx_reserve_rss.h>

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

/* One vector: the address-only and the address-and-port hashes. */
static void check_vec(struct kunit *test, const struct rxr_tuple *t,
		      const struct ms_vec *v, u32 l3, u32 l4,
		      const char *what)
{
	u32 h = 0;

	KUNIT_EXPECT_TRUE(test, rxr_rss_flow_hash(ms_key, t, l3, &h));
	KUNIT_EXPECT_EQ_MSG(test, h, v->l3, "%s %s", what, v->src);
	KUNIT_EXPECT_TRUE(test, rxr_rss_flow_hash(ms_key, t, l4, &h));
	KUNIT_EXPECT_EQ_MSG(test, h, v->l4, "%s %s", what, v->src);
}

/* The hash matches Microsoft's verification vectors, IPv4 and IPv6, with
 * and without the ports.
 */
static void rxr_rss_test_toeplitz(struct kunit *test)
{
	struct rxr_tuple t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ms_v4); i++) {
		tuple_v4(test, &ms_v4[i], &t);
		check_vec(test, &t, &ms_v4[i], RXR_RSS_IPV4,
			  RXR_RSS_IPV4 | RXR_RSS_TCPV4, "v4");
	}
	for (i = 0; i < ARRAY_SIZE(ms_v6); i++) {
		tuple_v6(test, &ms_v6[i], &t);
		check_vec(test, &t, &ms_v6[i], RXR_RSS_IPV6, RXR_RSS_TCPV6,
			  "v6");
	}
}

/* Hash types that leave TCP unhashed: no bucket can be named. */
static void rxr_rss_test_types(struct kunit *test)
{
	struct rxr_tuple t;
	u32 h;

	tuple_v4(test, &ms_v4[0], &t);
	KUNIT_EXPECT_FALSE(test, rxr_rss_flow_hash(ms_key, &t, RXR_RSS_IPV6 |
						   RXR_RSS_TCPV6, &h));
	tuple_v6(test, &ms_v6[0], &t);
	KUNIT_EXPECT_FALSE(test, rxr_rss_flow_hash(ms_key, &t, RXR_RSS_IPV4 |
						   RXR_RSS_TCPV4, &h));
	/* A key too short for the input. */
	KUNIT_EXPECT_EQ(test, rxr_toeplitz(ms_key, 8, (const u8 *)"12345", 5),
			0);
}

static void rule_ins(struct ethtool_rxnfc *info, const struct rxr_tuple *t,
		     u32 loc, u64 ring)
{
	memset(info, 0, sizeof(*info));
	info->cmd = ETHTOOL_SRXCLSRLINS;
	rxr_tuple_to_fs(t, &info->fs);
	info->fs.location = loc;
	info->fs.ring_cookie = ring;
}

/* Slots: a quarter of the table, at most 32; rules in and out, with the
 * errors the core relies on; listing gives the tuples back.
 */
static void rxr_rss_test_rules(struct kunit *test)
{
	struct ethtool_rxnfc info;
	struct rxr_tuple t, back;
	struct rxr_rss *rss;
	u32 locs[2];

	/* On the heap: a debug kernel's stack frame would be too large. */
	rss = kunit_kzalloc(test, sizeof(*rss), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rss);

	rxr_rss_init(rss, 128, 1);
	KUNIT_EXPECT_EQ(test, rss->nslots, 32);
	rxr_rss_init(rss, 64, 1);
	KUNIT_EXPECT_EQ(test, rss->nslots, 16);
	rxr_rss_init(rss, 96, 1);
	KUNIT_EXPECT_EQ(test, rss->nslots, 0);
	rule_ins(&info, &t, 0, 1);
	KUNIT_EXPECT_EQ(test, rxr_rss_set_rule(rss, &info), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rxr_rss_set_rule(NULL, &info), -EOPNOTSUPP);

	rxr_rss_init(rss, 128, 1);
	tuple_v4(test, &ms_v4[0], &t);
	rule_ins(&info, &t, 32, 1);
	KUNIT_EXPECT_EQ(test, rxr_rss_set_rule(rss, &info), -EINVAL);
	rule_ins(&info, &t, 3, 0);
	KUNIT_EXPECT_EQ(test, rxr_rss_set_rule(rss, &info), -EINVAL);
	rule_ins(&info, &t, 3, 1);
	KUNIT_EXPECT_EQ(test, rxr_rss_set_rule(rss, &info), 0);
	KUNIT_EXPECT_TRUE(test, rss->rule[3].used);

	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GRXCLSRLCNT;
	KUNIT_EXPECT_EQ(test, rxr_rss_get_rule(rss, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.rule_cnt, 1);
	KUNIT_EXPECT_EQ(test, info.data, 32);
	info.cmd = ETHTOOL_GRXCLSRLALL;
	info.rule_cnt = 2;
	KUNIT_EXPECT_EQ(test, rxr_rss_get_rule(rss, &info, locs), 0);
	KUNIT_EXPECT_EQ(test, info.rule_cnt, 1);
	KUNIT_EXPECT_EQ(test, locs[0], 3);
	info.cmd = ETHTOOL_GRXCLSRLALL;
	info.rule_cnt = 0;
	KUNIT_EXPECT_EQ(test, rxr_rss_get_rule(rss, &info, locs), -EMSGSIZE);
	info.cmd = ETHTOOL_GRXCLSRULE;
	info.fs.location = 3;
	KUNIT_EXPECT_EQ(test, rxr_rss_get_rule(rss, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.fs.ring_cookie, 1);
	KUNIT_ASSERT_EQ(test, rxr_tuple_from_fs(&info.fs, &back), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&back, &t, sizeof(t)), 0);
	info.fs.location = 4;
	KUNIT_EXPECT_EQ(test, rxr_rss_get_rule(rss, &info, NULL), -ENOENT);
	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GRXCLSRLCNT;
	KUNIT_EXPECT_EQ(test, rxr_rss_get_rule(NULL, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.data, 0);

	info.cmd = ETHTOOL_SRXCLSRLDEL;
	info.fs.location = 3;
	KUNIT_EXPECT_EQ(test, rxr_rss_set_rule(rss, &info), 0);
	KUNIT_EXPECT_EQ(test, rxr_rss_set_rule(rss, &info), -ENOENT);
	KUNIT_EXPECT_FALSE(test, rss->rule[3].used);
	info.cmd = ETHTOOL_SRXFH;
	KUNIT_EXPECT_EQ(test, rxr_rss_set_rule(rss, &info), -EOPNOTSUPP);
}

/* Buckets: the flows' hashes masked to the table; shared buckets count
 * once; a flow whose fields are not hashed has none.
 */
static void rxr_rss_test_buckets(struct kunit *test)
{
	DECLARE_BITMAP(map, 128);
	struct ethtool_rxnfc info;
	struct rxr_rss *rss;
	struct rxr_tuple t;
	u32 h0, h1;

	/* On the heap: a debug kernel's stack frame would be too large. */
	rss = kunit_kzalloc(test, sizeof(*rss), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rss);

	rxr_rss_init(rss, 128, 1);
	tuple_v4(test, &ms_v4[0], &t);
	rule_ins(&info, &t, 0, 1);
	KUNIT_ASSERT_EQ(test, rxr_rss_set_rule(rss, &info), 0);
	KUNIT_ASSERT_EQ(test, rxr_rss_set_rule(rss, &info), 0);
	tuple_v6(test, &ms_v6[0], &t);
	rule_ins(&info, &t, 5, 1);
	KUNIT_ASSERT_EQ(test, rxr_rss_set_rule(rss, &info), 0);

	h0 = ms_v4[0].l4 & 127;
	h1 = ms_v6[0].l4 & 127;
	KUNIT_EXPECT_EQ(test, rxr_rss_buckets(rss, ms_key, RXR_RSS_TCPV4 |
					      RXR_RSS_TCPV6, 128, map),
			h0 == h1 ? 1 : 2);
	KUNIT_EXPECT_TRUE(test, test_bit(h0, map));
	KUNIT_EXPECT_TRUE(test, test_bit(h1, map));
	/* IPv4 only: the IPv6 flow has no bucket. */
	KUNIT_EXPECT_EQ(test, rxr_rss_buckets(rss, ms_key, RXR_RSS_TCPV4, 128,
					      map), 1);
	KUNIT_EXPECT_TRUE(test, test_bit(h0, map));
	/* The same flow in a second slot adds no bucket. */
	rss->rule[7] = rss->rule[0];
	KUNIT_EXPECT_EQ(test, rxr_rss_buckets(rss, ms_key, RXR_RSS_TCPV4, 128,
					      map), 1);
	KUNIT_EXPECT_EQ(test, rxr_rss_buckets(NULL, ms_key, RXR_RSS_TCPV4, 128,
					      map), 0);
}

static struct kunit_case rxr_rss_test_cases[] = {
	KUNIT_CASE(rxr_rss_test_toeplitz),
	KUNIT_CASE(rxr_rss_test_types),
	KUNIT_CASE(rxr_rss_test_rules),
	KUNIT_CASE(rxr_rss_test_buckets),
	{}
};

static struct kunit_suite rxr_rss_test_suite = {
	.name = "rx_reserve_rss",
	.test_cases = rxr_rss_test_cases,
};

kunit_test_suite(rxr_rss_test_suite);

MODULE_DESCRIPTION("KUnit tests of rx-reserve's RSS-bucket steering");
MODULE_LICENSE("GPL");
