#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The administrator's controls on an e1000e (82574) with rx-reserve, while
# a priority flow stays connected:
#   - the rx-reserve private flag, off and on again: the flow leaves its
#     RETA bucket (software fallback) and comes back, and moves data
#     either way;
#   - ntuple rules: the 82574 has no flow filters of its own, so a rule
#     the administrator inserts is refused, inside rx-reserve's locations
#     and outside them, and leaves the flows' rules alone;
#   - a jumbo MTU: jumbo receive is not served (no reserve queue, no
#     fallback), dmesg says so once, and MTU 1500 brings queue 1 back;
#   - a ring resize (ethtool -G): the flow keeps its bucket.
# Without queue 1 (MSI or INTx), only the private flag checks run.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

rxr_require_nic
rxr_require_reserve
rxr_require_cmd ethtool timeout awk
rxr_require_driver e1000e

MTU0=$(cat "/sys/class/net/$NIC/mtu")
RING0=$(ethtool -g "$NIC" | awk '$1 == "RX:" { v = $2 } END { print v }')

cleanup()
{
	ethtool --set-priv-flags "$NIC" rx-reserve on 2> /dev/null
	ip link set dev "$NIC" mtu "$MTU0" 2> /dev/null
	ethtool -G "$NIC" rx "$RING0" 2> /dev/null
	rxr_wait_link
	hold_stop_all
	rm -f "$XFER_OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# xfer: one priority transfer from the peer; succeeds if all of it
# arrived.
xfer()
{
	transfer 60
	[ "$XFER_BYTES" = "$RXR_XFER_BYTES" ] && [ "$XFER_OK" = 1 ]
}

# steered_xfer: a priority transfer whose frames came through queue 1.
steered_xfer()
{
	local s0

	s0=$(estat rx1_rxr_steered)
	xfer && [ $(($(estat rx1_rxr_steered) - s0)) -ge 1000 ]
}

nrules() { ethtool -n "$NIC" | awk '/^Total/ { print $2 }'; }

# refused ARGS...: ethtool -N ARGS fails.  ethtool 6.1 exits 0 when the
# kernel refuses a rule ("rmgr: Cannot insert RX class rule"), so its
# message tells.
refused()
{
	local out rc

	out=$(ethtool -N "$NIC" "$@" 2>&1)
	rc=$?
	echo "# ethtool -N $*: exit $rc: $out"
	[ "$rc" != 0 ] || grep -q "Cannot" <<< "$out"
}

QUEUES=$(estat rx_reserve_queues)
dev=$(grep "^dev $NIC " "$RXR_PROC")
if [ "$QUEUES" = 2 ]; then
	want="1 32 approx"
else
	want="-1 0 exact"
fi
got="$(kv reserve_queue <<< "$dev") $(kv slots <<< "$dev")"
check_eq "/proc: reserve queue, slots and their kind" "$want" \
	"$got $(kv slot_kind <<< "$dev")"
hold_start flow "$RXR_SOCK" connect "$RXR_PEER4" "$RXR_DATA_PORT"
RXR_FLOW_PORT=$HOLD_PORT
check_ok "held priority flow registered" poll 50 flow_in any
check_eq "private flag rx-reserve on by default" on "$(priv_flag rx-reserve)"

if [ "$QUEUES" = 2 ]; then
	check_ok "flow in a RETA bucket" poll 50 flow_in hw
	check_ok "ethtool -n lists it on queue 1" \
		sh -c "ethtool -n $NIC | grep -q 'Direct to queue 1'"
	check_eq "ethtool -n: two RX rings" 2 \
		"$(ethtool -n "$NIC" | awk '/RX rings available/ { print $1 }')"
	check_ge "RETA buckets on queue 1" 1 "$(estat rx_reserve_rss_buckets)"
fi

# The private flag, off and on, with the flow connected.
check_ok "private flag off" ethtool --set-priv-flags "$NIC" rx-reserve off
check_ok "flow left its bucket" poll 50 flow_in sw
check_eq "no rule with the flag off" 0 "$(nrules)"
check_eq "no bucket with the flag off" 0 "$(estat rx_reserve_rss_buckets)"
s0=$(estat rx1_rxr_packets)
check_ok "a priority transfer with the flag off" xfer
check_eq "nothing on queue 1 with the flag off" "$s0" \
	"$(estat rx1_rxr_packets)"
check_ok "private flag on again" ethtool --set-priv-flags "$NIC" rx-reserve on
if [ "$QUEUES" != 2 ]; then
	check_ok "a priority transfer with the flag on" xfer
	exit "$RET"
fi
check_ok "flow back in its bucket" poll 50 flow_in hw
check_ok "a priority transfer through queue 1" steered_xfer

# The administrator's ntuple rules: refused, the flows' rule stays.
check_ok "a rule in rx-reserve's locations refused" \
	refused flow-type tcp4 src-ip 192.0.2.1 action 0 loc 3
check_ok "a rule outside them refused (no flow filters)" \
	refused flow-type tcp4 src-ip 192.0.2.1 action 0 loc 100
check_ok "deleting the flow's rule refused" \
	refused delete "$(flow_line | kv slot)"
check_eq "the flow's rule stays" 1 "$(nrules)"

# Jumbo receive is not served; MTU 1500 brings queue 1 back.  QEMU's
# 82574 takes jumbo frames.
if check_ok "MTU 4000" ip link set dev "$NIC" mtu 4000; then
	rxr_wait_link
	check_eq "jumbo MTU: rx-reserve serves no queue" 0 \
		"$(estat rx_reserve_queues)"
	check_ok "jumbo MTU: flow in software" poll 50 flow_in sw
	check_ok "dmesg says jumbo receive is not served" \
		dmesg_has 'jumbo and packet-split receive are not served'
	check_ok "a priority transfer at MTU 4000" xfer
	check_ok "MTU back" ip link set dev "$NIC" mtu "$MTU0"
	rxr_wait_link
	check_eq "MTU $MTU0: queue 1 back" 2 "$(estat rx_reserve_queues)"
	check_ok "MTU $MTU0: flow back in its bucket" poll 50 flow_in hw
	check_ok "a priority transfer through queue 1 again" steered_xfer
fi

# A ring resize brings the adapter down and up: the bucket stays.
if check_ok "ethtool -G rx 512" ethtool -G "$NIC" rx 512; then
	rxr_wait_link
	check_ok "after ethtool -G: flow in its bucket" poll 50 flow_in hw
	check_ok "after ethtool -G: a transfer through queue 1" steered_xfer
	check_ok "ethtool -G rx $RING0" ethtool -G "$NIC" rx "$RING0"
	rxr_wait_link
fi
exit "$RET"
