#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rx-reserve's ethtool netlink view on virtio-net, through the patched
# ethtool of the guest image: a priority flow held to the bench's peer is
# shown in its RSS bucket (an approximate slot of the reserve queue) with
# several queue pairs, and in software with one pair or with rx-reserve
# turned off by ethtool --set-rx-reserve; human and --json output agree
# with /proc/net/rx_reserve and ethtool -S.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

rxr_require_nic
rxr_require_reserve
rxr_require_cmd ethtool jq awk
rxr_require_driver virtio_net
if ! ethtool --help 2>&1 | grep -q -- --show-rx-reserve; then
	echo "SKIP: ethtool without --show-rx-reserve (tools/ethtool patch)"
	exit "$ksft_skip"
fi

NQ0=$(ethtool -l "$NIC" | awk '$1 == "Combined:" { v = $2 } END { print v }')

cleanup()
{
	ethtool --set-rx-reserve "$NIC" enabled on 2> /dev/null
	hold_stop_all
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# check_view hw|sw: the human and JSON views of the held flow.
check_view()
{
	local want=$1 out js f slot place peer="$RXR_PEER4:$RXR_DATA_PORT"

	out=$(ethtool --show-rx-reserve "$NIC")
	js=$(ethtool --json --show-rx-reserve "$NIC")
	sed 's/^/# /' <<< "$out"
	sed 's/^/# /' <<< "$js"
	f=$(jq -c ".[0].flows[] | select(.local_port == $PORT)" <<< "$js")
	check_ok "$want: the flow is listed" test -n "$f"
	slot=$(flow_line | kv slot)
	place=$(jq -r .placement <<< "$f")
	if [ "$want" = hw ]; then
		check_eq "$want: placement" hardware "$place"
		check_eq "$want: slot as in /proc" "$slot" \
			"$(jq -r .slot <<< "$f")"
		check_eq "$want: reserve queue" $((NQ0 - 1)) \
			"$(jq -r '.[0].reserve_queue' <<< "$js")"
		check_eq "$want: RSS buckets are approximate slots" approx \
			"$(jq -r '.[0].slot_kind' <<< "$js")"
		check_ok "$want: human line" grep -q \
			"remote $peer .* hardware slot $slot " \
			<<< "$out"
	else
		check_eq "$want: placement" software "$place"
		check_eq "$want: slot in /proc" -1 "$slot"
		check_ok "$want: human line" grep -q \
			"remote $peer .* software " <<< "$out"
	fi
	check_eq "$want: remote" "$RXR_PEER4 $RXR_DATA_PORT" \
		"$(jq -r '"\(.remote) \(.remote_port)"' <<< "$f")"
	check_eq "$want: pool pages as in /proc" "$(flow_line | kv pool)" \
		"$(jq -r .pool_pages <<< "$f")"
	# A lingering flow of an earlier test may go between two reads:
	# compare reads taken back to back, until they agree.
	poll 20 flows_hw_agree
	check_eq "$want: flows_hw is ethtool -S's" "${FLOWS_HW#* }" \
		"${FLOWS_HW% *}"
	# And what both say: the held flow in a slot, or no flow in one.
	if [ "$want" = hw ]; then
		check_ge "$want: flows in slots (flows_hw)" 1 "${FLOWS_HW% *}"
	else
		check_eq "$want: flows in slots (flows_hw)" 0 "${FLOWS_HW% *}"
	fi
}

# flows_hw_agree: flows_hw from netlink and from ethtool -S, read back to
# back (FLOWS_HW), agree.
flows_hw_agree()
{
	local nl

	nl=$(ethtool --json --show-rx-reserve "$NIC" |
		jq -r '.[0].stats.flows_hw')
	FLOWS_HW="$nl $(estat rx_reserve_flows_hw)"
	[ "${FLOWS_HW#* }" = "$nl" ]
}

hold_start flow "$RXR_SOCK" connect "$RXR_PEER4" "$RXR_DATA_PORT"
RXR_FLOW_PORT=$HOLD_PORT
PORT=$HOLD_PORT
check_ok "held priority flow registered" poll 50 flow_in any

if [ "$NQ0" -gt 1 ]; then
	check_ok "flow in an RSS bucket" poll 50 flow_in hw
	check_view hw
fi
check_ok "rx-reserve off" ethtool --set-rx-reserve "$NIC" enabled off
check_ok "flow in software" poll 50 flow_in sw
check_eq "enabled: false" false \
	"$(ethtool --json --show-rx-reserve "$NIC" | jq -r '.[0].enabled')"
check_view sw
check_ok "rx-reserve on" ethtool --set-rx-reserve "$NIC" enabled on
if [ "$NQ0" -gt 1 ]; then
	check_ok "flow back in its bucket" poll 50 flow_in hw
fi

exit "$RET"
