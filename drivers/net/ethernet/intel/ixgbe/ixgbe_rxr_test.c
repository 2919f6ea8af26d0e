// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of ixgbe's rx-reserve decisions that touch no register: the
 * reserve queue's place, the perfect-filter locations, a flow's filter and
 * mask, and whether the port's mask lets it in.  QEMU has no ixgbe model:
 * what touches the device is covered by the hardware test plan in
 * Documentation/networking/rx-reserve.rst.
 */
#include <kunit/test.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <net/ipv6.h>
#include <net/rx_reserve.h>

#include "ixgbe.h"
#include "ixgbe_rxr.h"

/* The rule the core asks for: 192.0.2.1:@sport (the target) to
 * 198.51.100.7:@dport (us).
 */
static void ixgbe_rxr_test_rule(struct ethtool_rx_flow_spec *fs, u16 sport,
				u16 dport)
{
	struct rxr_tuple t = { .family = AF_INET };

	ipv6_addr_set_v4mapped(htonl(0xc0000201), &t.saddr);
	ipv6_addr_set_v4mapped(htonl(0xc6336407), &t.daddr);
	t.sport = htons(sport);
	t.dport = htons(dport);
	memset(fs, 0, sizeof(*fs));
	rxr_tuple_to_fs(&t, fs);
}

static void ixgbe_rxr_test_queue_index(struct kunit *test)
{
	/* Right behind the RSS (and FCoE) queues. */
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_queue_index(16, MAX_RX_QUEUES, true,
						    true), 16);
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_queue_index(1, MAX_RX_QUEUES, true,
						    true), 1);
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_queue_index(63, MAX_RX_QUEUES, true,
						    true), 63);
	/* No room left in the rx_ring array and the netdev's queues. */
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_queue_index(64, MAX_RX_QUEUES, true,
						    true), -1);
	/* Flag off, perfect filters off (ntuple off), no queues laid out. */
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_queue_index(8, MAX_RX_QUEUES, true,
						    false), -1);
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_queue_index(8, MAX_RX_QUEUES, false,
						    true), -1);
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_queue_index(0, MAX_RX_QUEUES, true,
						    true), -1);
}

static void ixgbe_rxr_test_slots(struct kunit *test)
{
	u32 base, pballoc;
	int n;

	/* The default, 64 KiB: 2046 locations, the core takes the last 64. */
	n = ixgbe_rxr_slot_range(IXGBE_FDIR_PBALLOC_64K, 64, &base);
	KUNIT_EXPECT_EQ(test, n, 64);
	KUNIT_EXPECT_EQ(test, base, 2046 - 64);

	for (pballoc = IXGBE_FDIR_PBALLOC_64K;
	     pballoc <= IXGBE_FDIR_PBALLOC_256K; pballoc++) {
		u32 cap = (1024 << pballoc) - 2;

		n = ixgbe_rxr_slot_range(pballoc, 64, &base);
		KUNIT_EXPECT_EQ(test, n, 64);
		/* Every location is below what ixgbe accepts. */
		KUNIT_EXPECT_EQ(test, base + n, cap);
		/* Never more than half the table. */
		n = ixgbe_rxr_slot_range(pballoc, 100000, &base);
		KUNIT_EXPECT_EQ(test, n, cap / 2);
		KUNIT_EXPECT_EQ(test, base + n, cap);
	}
	/* No Flow Director memory: no locations. */
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_slot_range(IXGBE_FDIR_PBALLOC_NONE,
						   64, &base), 0);
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_slot_range(4, 64, &base), 0);
}

static void ixgbe_rxr_test_spec(struct kunit *test)
{
	union ixgbe_atr_input input, mask, input2, mask2;
	struct ethtool_rx_flow_spec fs;

	ixgbe_rxr_test_rule(&fs, 3260, 40000);
	KUNIT_ASSERT_TRUE(test, ixgbe_rxr_fdir_spec(&fs, &input, &mask));
	/* As received: the target is the source. */
	KUNIT_EXPECT_EQ(test, input.formatted.flow_type,
			IXGBE_ATR_FLOW_TYPE_TCPV4);
	KUNIT_EXPECT_EQ(test, input.formatted.src_ip[0], htonl(0xc0000201));
	KUNIT_EXPECT_EQ(test, input.formatted.dst_ip[0], htonl(0xc6336407));
	KUNIT_EXPECT_EQ(test, input.formatted.src_port, htons(3260));
	KUNIT_EXPECT_EQ(test, input.formatted.dst_port, htons(40000));
	KUNIT_EXPECT_EQ(test, input.formatted.vlan_id, 0);
	KUNIT_EXPECT_EQ(test, input.formatted.vm_pool, 0);
	KUNIT_EXPECT_EQ(test, input.formatted.bkt_hash, 0);
	/* An exact 4-tuple, L4 type compared, nothing else. */
	KUNIT_EXPECT_EQ(test, mask.formatted.flow_type,
			IXGBE_ATR_L4TYPE_IPV6_MASK | IXGBE_ATR_L4TYPE_MASK);
	KUNIT_EXPECT_EQ(test, mask.formatted.src_ip[0], htonl(0xffffffff));
	KUNIT_EXPECT_EQ(test, mask.formatted.dst_ip[0], htonl(0xffffffff));
	KUNIT_EXPECT_EQ(test, mask.formatted.src_port, htons(0xffff));
	KUNIT_EXPECT_EQ(test, mask.formatted.dst_port, htons(0xffff));
	KUNIT_EXPECT_EQ(test, mask.formatted.vlan_id, 0);
	KUNIT_EXPECT_EQ(test, mask.formatted.vm_pool, 0);
	KUNIT_EXPECT_EQ(test, mask.formatted.flex_bytes, 0);
	KUNIT_EXPECT_EQ(test, mask.formatted.src_ip[1], 0);
	KUNIT_EXPECT_EQ(test, mask.formatted.dst_ip[1], 0);

	/* Every flow has the same mask, so they all fit one port. */
	ixgbe_rxr_test_rule(&fs, 10809, 40001);
	KUNIT_ASSERT_TRUE(test, ixgbe_rxr_fdir_spec(&fs, &input2, &mask2));
	KUNIT_EXPECT_EQ(test, memcmp(&mask, &mask2, sizeof(mask)), 0);
	KUNIT_EXPECT_NE(test, memcmp(&input, &input2, sizeof(input)), 0);

	/* The bucket hash ixgbe computes differs with the ports. */
	ixgbe_atr_compute_perfect_hash_82599(&input, &mask);
	ixgbe_atr_compute_perfect_hash_82599(&input2, &mask2);
	KUNIT_EXPECT_NE(test, input.formatted.bkt_hash,
			input2.formatted.bkt_hash);
	/* The full mask leaves the fields as they are. */
	KUNIT_EXPECT_EQ(test, input.formatted.src_port, htons(3260));
	KUNIT_EXPECT_EQ(test, input.formatted.src_ip[0], htonl(0xc0000201));
}

static void ixgbe_rxr_test_spec_refused(struct kunit *test)
{
	union ixgbe_atr_input input, mask;
	struct ethtool_rx_flow_spec fs;
	struct rxr_tuple t = {
		.family = AF_INET6,
		.saddr = IN6ADDR_LOOPBACK_INIT,
		.daddr = IN6ADDR_LOOPBACK_INIT,
		.sport = htons(4420),
		.dport = htons(50000),
	};

	/* IPv6: ixgbe has no IPv6 perfect filters. */
	memset(&fs, 0, sizeof(fs));
	rxr_tuple_to_fs(&t, &fs);
	KUNIT_EXPECT_FALSE(test, ixgbe_rxr_fdir_spec(&fs, &input, &mask));
	/* Not TCP. */
	ixgbe_rxr_test_rule(&fs, 2049, 800);
	fs.flow_type = UDP_V4_FLOW;
	KUNIT_EXPECT_FALSE(test, ixgbe_rxr_fdir_spec(&fs, &input, &mask));
}

static void ixgbe_rxr_test_mask(struct kunit *test)
{
	union ixgbe_atr_input input, mask, admin;
	struct ethtool_rx_flow_spec fs;

	ixgbe_rxr_test_rule(&fs, 3260, 40000);
	KUNIT_ASSERT_TRUE(test, ixgbe_rxr_fdir_spec(&fs, &input, &mask));

	/* No rule on the port: the first one sets the mask. */
	memset(&admin, 0, sizeof(admin));
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_fdir_conflict(&admin, false, &mask), 0);
	/* The port's rules are rx-reserve's, or an administrator's with the
	 * same exact 4-tuple mask.
	 */
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_fdir_conflict(&mask, true, &mask), 0);
	/* "ethtool -N flow-type tcp4 dst-port 80 action 2": ports only. */
	admin = mask;
	admin.formatted.src_ip[0] = 0;
	admin.formatted.dst_ip[0] = 0;
	admin.formatted.src_port = 0;
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_fdir_conflict(&admin, true, &mask),
			IXGBE_RXR_MASK);
	/* A VLAN in the administrator's mask. */
	admin = mask;
	admin.formatted.vlan_id = htons(0xefff);
	KUNIT_EXPECT_EQ(test, ixgbe_rxr_fdir_conflict(&admin, true, &mask),
			IXGBE_RXR_MASK);
}

static void ixgbe_rxr_test_mtu(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ixgbe_rxr_mtu_served(ETH_DATA_LEN));
	KUNIT_EXPECT_TRUE(test, ixgbe_rxr_mtu_served(ETH_MIN_MTU));
	/* A frame, VLAN tag and FCS included, fits 3 KiB. */
	KUNIT_EXPECT_TRUE(test, ixgbe_rxr_mtu_served(IXGBE_RXBUFFER_3K -
						     ETH_HLEN - VLAN_HLEN -
						     ETH_FCS_LEN));
	KUNIT_EXPECT_FALSE(test, ixgbe_rxr_mtu_served(IXGBE_RXBUFFER_3K -
						      ETH_HLEN - VLAN_HLEN -
						      ETH_FCS_LEN + 1));
	KUNIT_EXPECT_FALSE(test, ixgbe_rxr_mtu_served(9000));
}

static struct kunit_case ixgbe_rxr_test_cases[] = {
	KUNIT_CASE(ixgbe_rxr_test_queue_index),
	KUNIT_CASE(ixgbe_rxr_test_slots),
	KUNIT_CASE(ixgbe_rxr_test_spec),
	KUNIT_CASE(ixgbe_rxr_test_spec_refused),
	KUNIT_CASE(ixgbe_rxr_test_mask),
	KUNIT_CASE(ixgbe_rxr_test_mtu),
	{}
};

static struct kunit_suite ixgbe_rxr_test_suite = {
	.name = "ixgbe_rx_reserve",
	.test_cases = ixgbe_rxr_test_cases,
};

kunit_test_suite(ixgbe_rxr_test_suite);
