/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rx_reserve

#if !defined(_TRACE_RX_RESERVE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_RX_RESERVE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <net/rx_reserve.h>

DECLARE_EVENT_CLASS(rxr_flow_class,
		    TP_PROTO(const struct net_device *dev,
			     const struct rxr_tuple *t,
			     unsigned int pool_pages),
		    TP_ARGS(dev, t, pool_pages),
		    TP_STRUCT__entry(__field(int, ifindex)
				     __field(u16, family)
				     __array(u8, saddr, 16)
				     __array(u8, daddr, 16)
				     __field(u16, sport)
				     __field(u16, dport)
				     __field(unsigned int, pool_pages)),
		    TP_fast_assign(__entry->ifindex = dev->ifindex;
				   __entry->family = t->family;
				   memcpy(__entry->saddr, &t->saddr, 16);
				   memcpy(__entry->daddr, &t->daddr, 16);
				   __entry->sport = ntohs(t->sport);
				   __entry->dport = ntohs(t->dport);
				   __entry->pool_pages = pool_pages;),
		    TP_printk("ifindex=%d family=%u remote=%pI6c:%u local=%pI6c:%u pool=%u",
			      __entry->ifindex, __entry->family,
			      __entry->saddr, __entry->sport,
			      __entry->daddr, __entry->dport,
			      __entry->pool_pages)
);

DEFINE_EVENT(rxr_flow_class, rxr_flow_register,
	     TP_PROTO(const struct net_device *dev, const struct rxr_tuple *t,
		      unsigned int pool_pages),
	     TP_ARGS(dev, t, pool_pages)
);

DEFINE_EVENT(rxr_flow_class, rxr_flow_unregister,
	     TP_PROTO(const struct net_device *dev, const struct rxr_tuple *t,
		      unsigned int pool_pages),
	     TP_ARGS(dev, t, pool_pages)
);

TRACE_EVENT(rxr_slot,
	    TP_PROTO(const struct net_device *dev, u32 location, bool insert,
		     int err),
	    TP_ARGS(dev, location, insert, err),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u32, location)
			     __field(bool, insert)
			     __field(int, err)),
	    TP_fast_assign(__entry->ifindex = dev->ifindex;
			   __entry->location = location;
			   __entry->insert = insert;
			   __entry->err = err;),
	    TP_printk("ifindex=%d location=%u %s err=%d", __entry->ifindex,
		      __entry->location,
		      __entry->insert ? "insert" : "delete", __entry->err)
);

TRACE_EVENT(rxr_emergency,
	    TP_PROTO(const struct net_device *dev, bool on,
		     const char *reason),
	    TP_ARGS(dev, on, reason),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(bool, on)
			     __string(reason, reason)),
	    TP_fast_assign(__entry->ifindex = dev->ifindex;
			   __entry->on = on;
			   __assign_str(reason);),
	    TP_printk("ifindex=%d emergency=%s reason=%s", __entry->ifindex,
		      __entry->on ? "on" : "off", __get_str(reason))
);

TRACE_EVENT(rxr_lend,
	    TP_PROTO(const struct net_device *dev, unsigned int pool_free),
	    TP_ARGS(dev, pool_free),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(unsigned int, pool_free)),
	    TP_fast_assign(__entry->ifindex = dev->ifindex;
			   __entry->pool_free = pool_free;),
	    TP_printk("ifindex=%d pool_free=%u", __entry->ifindex,
		      __entry->pool_free)
);

#endif /* _TRACE_RX_RESERVE_H */

#include <trace/define_trace.h>
