// SPDX-License-Identifier: GPL-2.0-only
/*
 * RX_RESERVE_GET, RX_RESERVE_SET and RX_RESERVE_NTF: the reserved RX
 * buffers of a device's priority flows (Documentation/networking/
 * rx-reserve.rst), as a structured view: the private flag and emergency
 * mode, the reserve queue, the filter slots, each flow and its pool, and
 * the counters ethtool -S shows.  An emergency transition is notified on
 * the monitor group.
 */

#include <linux/ethtool_netlink.h>
#include <linux/notifier.h>
#include <linux/rtnetlink.h>
#include <net/rx_reserve.h>

#include "netlink.h"
#include "common.h"

struct rx_reserve_req_info {
	struct ethnl_req_info		base;
};

struct rx_reserve_reply_data {
	struct ethnl_reply_data		base;
	struct rxr_dev_state		st;
};

#define RX_RESERVE_REPDATA(__reply_base) \
	container_of(__reply_base, struct rx_reserve_reply_data, base)

const struct nla_policy ethnl_rx_reserve_get_policy[] = {
	[ETHTOOL_A_RX_RESERVE_HEADER]		=
		NLA_POLICY_NESTED(ethnl_header_policy),
};

/* A request for one device, as opposed to a dump or a notification. */
static bool rx_reserve_doit(const struct genl_info *info)
{
	return info && info->nlhdr && !(info->nlhdr->nlmsg_flags & NLM_F_DUMP);
}

static int rx_reserve_prepare_data(const struct ethnl_req_info *req_base,
				   struct ethnl_reply_data *reply_base,
				   const struct genl_info *info)
{
	struct rx_reserve_reply_data *data = RX_RESERVE_REPDATA(reply_base);
	int ret;

	ret = rxr_dev_read_state(reply_base->dev, &data->st);
	if (ret == -EOPNOTSUPP && rx_reserve_doit(info))
		GENL_SET_ERR_MSG(info, "device has no rx-reserve");
	return ret;
}

static void rx_reserve_cleanup_data(struct ethnl_reply_data *reply_base)
{
	struct rx_reserve_reply_data *data = RX_RESERVE_REPDATA(reply_base);

	rxr_dev_free_state(&data->st);
}

static int rx_reserve_flow_size(void)
{
	return nla_total_size(0) +			/* _FLOWS_FLOW */
	       nla_total_size(sizeof(u16)) +		/* _FLOW_FAMILY */
	       2 * nla_total_size(sizeof(struct in6_addr)) + /* _SRC, _DST */
	       2 * nla_total_size(sizeof(__be16)) +	/* _SPORT, _DPORT */
	       nla_total_size_64bit(sizeof(u64)) +	/* _FLOW_INODE */
	       nla_total_size(sizeof(u8)) +		/* _FLOW_HW */
	       /* _SLOT, _MARK, _POOL_PAGES, _POOL_FREE, _POOL_INFLIGHT */
	       5 * nla_total_size(sizeof(u32));
}

/* An RX queue's counters: &enum rxr_dev_stat to their attributes. */
static const u16 rx_reserve_rxq_attr[RXR_STAT_NUM] = {
	[RXR_STAT_STEERED]		= ETHTOOL_A_RX_RESERVE_STAT_STEERED,
	[RXR_STAT_LENT]			= ETHTOOL_A_RX_RESERVE_STAT_LENT,
	[RXR_STAT_LENT_DELIVERED]	=
		ETHTOOL_A_RX_RESERVE_STAT_LENT_DELIVERED,
	[RXR_STAT_RECYCLED]		= ETHTOOL_A_RX_RESERVE_STAT_RECYCLED,
	[RXR_STAT_DROPPED]		= ETHTOOL_A_RX_RESERVE_STAT_DROPPED,
	[RXR_STAT_ALLOC_FAIL]		= ETHTOOL_A_RX_RESERVE_STAT_ALLOC_FAIL,
	[RXR_STAT_POOL_UP]		= ETHTOOL_A_RX_RESERVE_STAT_POOL_UP,
	[RXR_STAT_POOL_UP_OTHER]	=
		ETHTOOL_A_RX_RESERVE_STAT_POOL_UP_OTHER,
	[RXR_STAT_COPIED]		= ETHTOOL_A_RX_RESERVE_STAT_COPIED,
	[RXR_STAT_QUEUE_ALLOC]		= ETHTOOL_A_RX_RESERVE_STAT_QUEUE_ALLOC,
	[RXR_STAT_PRIORITY]		= ETHTOOL_A_RX_RESERVE_STAT_PRIORITY,
};

static int rx_reserve_rxq_size(void)
{
	return nla_total_size(0) +			/* _RXQS_RXQ */
	       nla_total_size(sizeof(u32)) +		/* _RXQ_INDEX */
	       nla_total_size(0) +			/* _RXQ_STATS */
	       RXR_STAT_NUM * nla_total_size_64bit(sizeof(u64));
}

static int rx_reserve_reply_size(const struct ethnl_req_info *req_base,
				 const struct ethnl_reply_data *reply_base)
{
	const struct rx_reserve_reply_data *data =
		RX_RESERVE_REPDATA(reply_base);

	/* _ENABLED, _EMERGENCY; _QUEUE, _SLOTS, _SLOTS_USED, _SLOT_* */
	return 2 * nla_total_size(sizeof(u8)) +
	       5 * nla_total_size(sizeof(u32)) +
	       nla_total_size(0) +			/* _FLOWS */
	       data->st.nflows * rx_reserve_flow_size() +
	       nla_total_size(0) +			/* _STATS */
	       RXR_ETHTOOL_NSTATS * nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(0) +			/* _RXQS */
	       data->st.nq * rx_reserve_rxq_size();
}

static int rx_reserve_put_flow(struct sk_buff *skb,
			       const struct rxr_flow_state *f)
{
	const struct rxr_tuple *t = &f->tuple;
	struct nlattr *nest;
	u32 mark = 0;
	int alen;

	if (f->mark & RXR_MARK_MEMALLOC)
		mark |= ETHTOOL_RX_RESERVE_MARK_MEMALLOC;
	if (f->mark & RXR_MARK_SOCKOPT)
		mark |= ETHTOOL_RX_RESERVE_MARK_SOCKOPT;
	/* IPv4 as 4 bytes, not v4-mapped. */
	alen = t->family == AF_INET ? 4 : 16;

	nest = nla_nest_start(skb, ETHTOOL_A_RX_RESERVE_FLOWS_FLOW);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u16(skb, ETHTOOL_A_RX_RESERVE_FLOW_FAMILY, t->family) ||
	    nla_put(skb, ETHTOOL_A_RX_RESERVE_FLOW_SRC, alen,
		    &t->saddr.s6_addr[16 - alen]) ||
	    nla_put(skb, ETHTOOL_A_RX_RESERVE_FLOW_DST, alen,
		    &t->daddr.s6_addr[16 - alen]) ||
	    nla_put_be16(skb, ETHTOOL_A_RX_RESERVE_FLOW_SPORT, t->sport) ||
	    nla_put_be16(skb, ETHTOOL_A_RX_RESERVE_FLOW_DPORT, t->dport) ||
	    nla_put_u64_64bit(skb, ETHTOOL_A_RX_RESERVE_FLOW_INODE, f->ino,
			      ETHTOOL_A_RX_RESERVE_FLOW_PAD) ||
	    nla_put_u8(skb, ETHTOOL_A_RX_RESERVE_FLOW_HW, f->slot >= 0) ||
	    (f->slot >= 0 &&
	     nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_FLOW_SLOT, f->slot)) ||
	    nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_FLOW_MARK, mark) ||
	    nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_FLOW_POOL_PAGES,
			f->pool_pages) ||
	    nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_FLOW_POOL_FREE,
			f->pool_free) ||
	    nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_FLOW_POOL_INFLIGHT,
			f->pool_pages - f->pool_free)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int rx_reserve_put_rxq(struct sk_buff *skb, unsigned int q,
			      const u64 *stat)
{
	struct nlattr *rxq, *nest;
	unsigned int i;

	rxq = nla_nest_start(skb, ETHTOOL_A_RX_RESERVE_RXQS_RXQ);
	if (!rxq)
		return -EMSGSIZE;
	if (nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_RXQ_INDEX, q))
		goto err_cancel;
	nest = nla_nest_start(skb, ETHTOOL_A_RX_RESERVE_RXQ_STATS);
	if (!nest)
		goto err_cancel;
	for (i = 0; i < RXR_STAT_NUM; i++)
		if (nla_put_u64_64bit(skb, rx_reserve_rxq_attr[i], stat[i],
				      ETHTOOL_A_RX_RESERVE_STAT_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	nla_nest_end(skb, rxq);
	return 0;

err_cancel:
	nla_nest_cancel(skb, rxq);
	return -EMSGSIZE;
}

static int rx_reserve_fill_reply(struct sk_buff *skb,
				 const struct ethnl_req_info *req_base,
				 const struct ethnl_reply_data *reply_base)
{
	const struct rx_reserve_reply_data *data =
		RX_RESERVE_REPDATA(reply_base);
	const struct rxr_dev_state *st = &data->st;
	struct nlattr *nest;
	unsigned int i, used = 0;

	for (i = 0; i < st->nflows; i++)
		used += st->flows[i].slot >= 0;
	if (nla_put_u8(skb, ETHTOOL_A_RX_RESERVE_ENABLED, st->enabled) ||
	    nla_put_u8(skb, ETHTOOL_A_RX_RESERVE_EMERGENCY, st->emergency) ||
	    (st->reserve_queue >= 0 &&
	     nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_QUEUE, st->reserve_queue)) ||
	    nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_SLOTS, st->slots) ||
	    nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_SLOTS_USED, used) ||
	    nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_SLOT_BASE, st->slot_base) ||
	    nla_put_u32(skb, ETHTOOL_A_RX_RESERVE_SLOT_KIND,
			st->approx_slots ? ETHTOOL_RX_RESERVE_SLOT_APPROX :
					   ETHTOOL_RX_RESERVE_SLOT_EXACT))
		return -EMSGSIZE;

	nest = nla_nest_start(skb, ETHTOOL_A_RX_RESERVE_FLOWS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < st->nflows; i++)
		if (rx_reserve_put_flow(skb, &st->flows[i]))
			goto err_cancel;
	nla_nest_end(skb, nest);

	nest = nla_nest_start(skb, ETHTOOL_A_RX_RESERVE_STATS);
	if (!nest)
		return -EMSGSIZE;
	/* _STAT_FLOWS_HW onwards follow rxr_ethtool_get_stats()'s order. */
	for (i = 0; i < RXR_ETHTOOL_NSTATS; i++)
		if (nla_put_u64_64bit(skb,
				      ETHTOOL_A_RX_RESERVE_STAT_FLOWS_HW + i,
				      st->stat[i],
				      ETHTOOL_A_RX_RESERVE_STAT_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);

	nest = nla_nest_start(skb, ETHTOOL_A_RX_RESERVE_RXQS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < st->nq; i++)
		if (rx_reserve_put_rxq(skb, i, st->qstat[i]))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static_assert(ETHTOOL_A_RX_RESERVE_STAT_MAX - ETHTOOL_A_RX_RESERVE_STAT_PAD ==
	      RXR_ETHTOOL_NSTATS);

/* RX_RESERVE_SET */

const struct nla_policy ethnl_rx_reserve_set_policy[] = {
	[ETHTOOL_A_RX_RESERVE_HEADER]		=
		NLA_POLICY_NESTED(ethnl_header_policy),
	[ETHTOOL_A_RX_RESERVE_ENABLED]		= NLA_POLICY_MAX(NLA_U8, 1),
};

static int ethnl_set_rx_reserve_validate(struct ethnl_req_info *req_info,
					 struct genl_info *info)
{
	const struct ethtool_ops *ops = req_info->dev->ethtool_ops;

	if (GENL_REQ_ATTR_CHECK(info, ETHTOOL_A_RX_RESERVE_ENABLED))
		return -EINVAL;
	if (!ops->get_priv_flags || !ops->set_priv_flags ||
	    !ops->get_sset_count || !ops->get_strings) {
		GENL_SET_ERR_MSG(info, "device has no rx-reserve private flag");
		return -EOPNOTSUPP;
	}
	return 1;
}

/* The bit of the rx-reserve private flag, or a negative error. */
static int rx_reserve_priv_bit(struct net_device *dev)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	int n, i, bit = -EOPNOTSUPP;
	u8 *names;

	n = ops->get_sset_count(dev, ETH_SS_PRIV_FLAGS);
	if (n <= 0)
		return -EOPNOTSUPP;
	n = min(n, 32);
	names = kcalloc(n, ETH_GSTRING_LEN, GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	ops->get_strings(dev, ETH_SS_PRIV_FLAGS, names);
	for (i = 0; i < n; i++) {
		if (!strncmp(names + i * ETH_GSTRING_LEN, RXR_PRIV_FLAG,
			     ETH_GSTRING_LEN)) {
			bit = i;
			break;
		}
	}
	kfree(names);
	return bit;
}

static int ethnl_set_rx_reserve(struct ethnl_req_info *req_info,
				struct genl_info *info)
{
	const struct nlattr *attr = info->attrs[ETHTOOL_A_RX_RESERVE_ENABLED];
	const struct ethtool_ops *ops = req_info->dev->ethtool_ops;
	struct net_device *dev = req_info->dev;
	u32 flags, want;
	int bit, ret;

	bit = rx_reserve_priv_bit(dev);
	if (bit < 0) {
		if (bit == -EOPNOTSUPP)
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "no rx-reserve private flag");
		return bit;
	}
	flags = ops->get_priv_flags(dev);
	want = flags & ~BIT(bit);
	if (nla_get_u8(attr))
		want |= BIT(bit);
	if (want == flags)
		return 0;
	ret = ops->set_priv_flags(dev, want);
	if (ret < 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "the driver refused rx-reserve's flag");
		return ret;
	}
	ethtool_notify(dev, ETHTOOL_MSG_PRIVFLAGS_NTF, NULL);
	return 1;
}

const struct ethnl_request_ops ethnl_rx_reserve_request_ops = {
	.request_cmd		= ETHTOOL_MSG_RX_RESERVE_GET,
	.reply_cmd		= ETHTOOL_MSG_RX_RESERVE_GET_REPLY,
	.hdr_attr		= ETHTOOL_A_RX_RESERVE_HEADER,
	.req_info_size		= sizeof(struct rx_reserve_req_info),
	.reply_data_size	= sizeof(struct rx_reserve_reply_data),

	.prepare_data		= rx_reserve_prepare_data,
	.reply_size		= rx_reserve_reply_size,
	.fill_reply		= rx_reserve_fill_reply,
	.cleanup_data		= rx_reserve_cleanup_data,

	.set_validate		= ethnl_set_rx_reserve_validate,
	.set			= ethnl_set_rx_reserve,
	.set_ntf_cmd		= ETHTOOL_MSG_RX_RESERVE_NTF,
};

/* Emergency transitions, from rx-reserve's notifier chain. */

static int ethnl_rx_reserve_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = ptr;

	if (event == RXR_EVENT_EMERGENCY)
		ethtool_notify(dev, ETHTOOL_MSG_RX_RESERVE_NTF, NULL);
	return NOTIFY_OK;
}

static struct notifier_block ethnl_rx_reserve_nb = {
	.notifier_call = ethnl_rx_reserve_event,
};

static int __init ethnl_rx_reserve_init(void)
{
	return rxr_register_notifier(&ethnl_rx_reserve_nb);
}

subsys_initcall(ethnl_rx_reserve_init);
