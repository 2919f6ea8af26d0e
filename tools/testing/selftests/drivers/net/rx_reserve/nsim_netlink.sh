#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rx-reserve's ethtool netlink view on netdevsim (ETHTOOL_MSG_RX_RESERVE_*),
# through the patched ethtool of the guest image:
#   - ethtool --show-rx-reserve, human and --json, matches the state the
#     test made: one slot, two priority flows (one in the slot, one in
#     software), their ports, inodes (/proc/net/tcp), pools and the
#     counters of ethtool -S; a dump ("*") lists the device and no other;
#   - --set-rx-reserve DEV enabled off|on moves the flows out of and back
#     into hardware, and is notified;
#   - ethtool --monitor --show-rx-reserve shows emergency mode going on
#     (refill failures) and off again;
#   - unprivileged and bad requests fail with clear messages.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

MON=/tmp/rxr_nl.mon
nsim_require
rxr_require_cmd jq setpriv
if ! ethtool --help 2>&1 | grep -q -- --show-rx-reserve; then
	echo "SKIP: ethtool without --show-rx-reserve (tools/ethtool patch)"
	exit "$ksft_skip"
fi

cleanup()
{
	[ -n "${MONPID:-}" ] && kill "$MONPID" 2> /dev/null
	[ -n "${FLOOD:-}" ] && kill "$FLOOD" 2> /dev/null
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	[ -n "${DFS_B:-}" ] && echo 0 > "$DFS_B/fail_refill" 2> /dev/null
	[ -n "${HOLD0:-}" ] &&
		sysctl -q -w net.core.rx_reserve_emergency_hold_ms="$HOLD0"
	hold_stop_all
	nsim_pair_cleanup
	rm -f "$MON" /tmp/rxr_nl.*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

nsb() { ip netns exec "$NS_B" "$@"; }
show() { nsb ethtool --show-rx-reserve "$DEV_B"; }
json() { nsb ethtool --json --show-rx-reserve "$DEV_B"; }
jqv() { json | jq -r "$1"; }
# inode PORT: the inode of NS_B's TCP socket on local port PORT.
inode()
{
	nsb awk -v p="$(printf '%04X' "$1")" \
		'split($2, a, ":") && a[2] == p { print $10; exit }' \
		/proc/net/tcp
}
mon_has() { grep -q "$1" "$MON"; }

HOLD0=$(sysctl -n net.core.rx_reserve_emergency_hold_ms)
sysctl -q -w net.core.rx_reserve_emergency_hold_ms=1000
nsim_pair 4 || exit "$ksft_fail"
echo 1 > "$DFS_B/slots"

ip netns exec "$NS_A" "$RXR_SOCK" serve 5000 1048576 > /dev/null &
SRV=$!
slowwait 5 ip netns exec "$NS_A" sh -c "netstat -ltn | grep -q ':5000 '"
hold_start f1 ip netns exec "$NS_B" "$RXR_SOCK" connect 198.51.100.1 5000
P1=$HOLD_PORT
hold_start f2 ip netns exec "$NS_B" "$RXR_SOCK" connect 198.51.100.1 5000
P2=$HOLD_PORT
check_ok "one flow in hardware" poll 50 stat_b_is rx_reserve_flows_hw 1
check_ok "one flow in software" poll 50 stat_b_is rx_reserve_flows_sw 1

# Human output.
out=$(show)
sed 's/^/# /' <<< "$out"
check_eq "header" "RX reserve for $DEV_B:" "$(head -n 1 <<< "$out")"
check_ok "enabled" grep -qx "Enabled: on" <<< "$out"
check_ok "not in emergency mode" grep -qx "Emergency mode: off" <<< "$out"
check_ok "reserve queue 3" grep -qx "Reserve queue: 3" <<< "$out"
check_ok "one exact slot at location 63, used" \
	grep -qx "Slots: 1, 1 used, at location 63, exact" <<< "$out"
check_eq "two flows" 2 "$(grep -c '^	flow ' <<< "$out")"
check_eq "one in hardware, slot 0" 1 "$(grep -c ' hardware slot 0 ' <<< "$out")"
check_eq "one in software" 1 "$(grep -c ' software ' <<< "$out")"
line="local 198.51.100.2:$P1 remote 198.51.100.1:5000 inode $(inode "$P1") "
check_ok "flow f1's line" grep -q "$line" <<< "$out"

# JSON.
js=$(json)
sed 's/^/# /' <<< "$js"
check_eq "json: one device" 1 "$(jq length <<< "$js")"
check_eq "json: ifname" "$DEV_B" "$(jq -r '.[0].ifname' <<< "$js")"
check_eq "json: enabled" true "$(jq -r ".[0].enabled" <<< "$js")"
check_eq "json: reserve queue" 3 "$(jq -r '.[0].reserve_queue' <<< "$js")"
q='.[0] | "\(.slots) \(.slots_used) \(.slot_base) \(.slot_kind)"'
check_eq "json: slots" "1 1 63 exact" "$(jq -r "$q" <<< "$js")"
check_eq "json: two flows" 2 "$(jq '.[0].flows | length' <<< "$js")"
for p in "$P1" "$P2"; do
	f=$(jq -c ".[0].flows[] | select(.local_port == $p)" <<< "$js")
	q='"\(.family) \(.local) \(.remote) \(.remote_port)"'
	check_eq "json: flow $p tuple" "4 198.51.100.2 198.51.100.1 5000" \
		"$(jq -r "$q" <<< "$f")"
	check_eq "json: flow $p inode" "$(inode "$p")" \
		"$(jq -r .inode <<< "$f")"
	q='"\(.pool_pages) \(.pool_free + .pool_inflight == .pool_pages)"'
	check_eq "json: flow $p pool" "256 true" "$(jq -r "$q" <<< "$f")"
	check_eq "json: flow $p mark" '["sockopt"]' "$(jq -c .mark <<< "$f")"
done
hw_port=$(nsb awk '$1 == "flow" && $10 >= 0 {
	n = split($6, a, ":"); print a[n]; exit }' "$RXR_PROC")
q='.[0].flows[] | select(.placement == "hardware") | .local_port'
check_eq "json: the hardware flow is /proc's slot 0" "$hw_port" \
	"$(jq -r "$q" <<< "$js")"
for k in flows_hw flows_sw pool_pages slot_fail emergency; do
	check_eq "json: stats.$k is ethtool -S rx_reserve_$k" \
		"$(stat_b "rx_reserve_$k")" "$(jq -r ".[0].stats.$k" <<< "$js")"
done
# Each RX queue's counters, in order; summed, the device's.
check_eq "json: queues 0 to 3" "[0,1,2,3]" \
	"$(jq -c '[.[0].queues[].index]' <<< "$js")"
for k in steered lent recycled alloc_fail pool_up copied priority; do
	check_eq "json: queues[].$k adds up to stats.$k" \
		"$(jq -r ".[0].stats.$k" <<< "$js")" \
		"$(jq -r "[.[0].queues[].$k] | add" <<< "$js")"
done
check_eq "human: a line per RX queue" 4 \
	"$(grep -c '^	rx[0-3]: steered [0-9]* lent ' <<< "$out")"

# A dump lists the device, and not lo.
out=$(nsb ethtool --show-rx-reserve '*')
check_ok "dump lists $DEV_B" grep -q "^RX reserve for $DEV_B:" <<< "$out"
check_fail "dump leaves lo out" grep -q "^RX reserve for lo:" <<< "$out"

# Errors.
err=$(nsb ethtool --show-rx-reserve lo 2>&1)
check_ok "lo: refused, with the reason" \
	grep -q "device has no rx-reserve" <<< "$err"
check_fail "a bad value is refused" \
	nsb ethtool --set-rx-reserve "$DEV_B" enabled maybe
err=$(nsb ethtool --set-rx-reserve lo enabled off 2>&1)
check_ok "lo has no private flag: refused, with the reason" \
	grep -q "no rx-reserve private flag" <<< "$err"
err=$(nsb setpriv --reuid=65534 --regid=65534 --clear-groups \
	ethtool --set-rx-reserve "$DEV_B" enabled off 2>&1)
check_ok "unprivileged set: refused" grep -qi "not permitted" <<< "$err"
check_eq "unprivileged set changed nothing" true "$(jqv '.[0].enabled')"
check_ok "unprivileged show works" nsb setpriv --reuid=65534 \
	--regid=65534 --clear-groups ethtool --show-rx-reserve "$DEV_B"

# Notifications: set, then emergency on and off.
nsb ethtool --monitor --show-rx-reserve > "$MON" 2>&1 &
MONPID=$!
sleep 0.5
check_ok "set enabled off" nsb ethtool --set-rx-reserve "$DEV_B" enabled off
check_ok "off: no flow in hardware" poll 50 stat_b_is rx_reserve_flows_hw 0
check_eq "off: both flows in software" 2 \
	"$(jqv '[.[0].flows[] | select(.placement == "software")] | length')"
check_eq "off: the private flag follows" off \
	"$(nsb ethtool --show-priv-flags "$DEV_B" |
	   awk -F: '{ gsub(/ /, "") } $1 == "rx-reserve" { print $2 }')"
check_ok "off: notified" poll 50 mon_has "^Enabled: off"
check_ok "set enabled on" nsb ethtool --set-rx-reserve "$DEV_B" enabled on
check_ok "on: one flow back in hardware" \
	poll 50 stat_b_is rx_reserve_flows_hw 1

echo 1 > "$DFS_B/fail_refill"
ip netns exec "$NS_A" "$RXR_SOCK" flood 198.51.100.2 9 3 100 > /dev/null &
FLOOD=$!
check_ok "emergency mode on: notified" poll 100 mon_has "^Emergency mode: on"
wait "$FLOOD"
FLOOD=
echo 0 > "$DFS_B/fail_refill"
check_ok "emergency mode off: notified" \
	poll 100 sh -c "sed -n '/^Emergency mode: on/,\$p' $MON |
			grep -q '^Emergency mode: off'"
sed 's/^/# monitor: /' "$MON" | grep -E "RX reserve|Enabled|Emergency"

exit "$RET"
