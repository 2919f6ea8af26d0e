#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tearing netdevsim down under registered priority flows leaks nothing:
# unlinking the ports, deleting the device (its rings held reserve-queue
# and lent pages) and deleting the namespace all return every pool page,
# and the counters go back to zero once the sockets close.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

nsim_require

cleanup()
{
	[ -n "${DFS_B:-}" ] && echo 0 > "$DFS_B/fail_refill" 2> /dev/null
	hold_stop_all
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	nsim_pair_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pages_back() { [ "$(proc_global pool_free)" = "$(proc_global pool_pages)" ]; }
flows_are() { [ "$(proc_global flows)" = "$1" ]; }
pages_are() { [ "$(proc_global pool_pages)" = "$1" ]; }

F0=$(proc_global flows)
P0=$(proc_global pool_pages)

# flows_up: a hardware and a software flow on DEV_B, with reserve-queue
# pages and, refill failing, lent pages posted in DEV_B's rings.
flows_up()
{
	echo 1 > "$DFS_B/slots"
	ip netns exec "$NS_A" "$RXR_SOCK" serve 5000 0 > /dev/null &
	SRV=$!
	slowwait 5 ip netns exec "$NS_A" sh -c "netstat -ltn | grep -q ':5000 '"
	local f

	for f in f1 f2; do
		hold_start "$f" ip netns exec "$NS_B" \
			"$RXR_SOCK" connect 198.51.100.1 5000
	done
	poll 50 stat_b_is rx_reserve_flows_hw 1
	echo 1 > "$DFS_B/fail_refill"
	ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 1 -q 198.51.100.2 > /dev/null
	check_eq "flows registered" $((F0 + 2)) "$(proc_global flows)"
	check_ge "pool pages out in the rings" 1 \
		$(($(proc_global pool_pages) - $(proc_global pool_free)))
	check_ge "pages lent" 1 "$(stat_b rx_reserve_lent)"
}

# 1. Unlink, then delete the device under the flows.
nsim_pair 4 || exit "$ksft_fail"
# All of DEV_A's traffic on one RX queue of DEV_B: the ping below lands
# where the software flow's pool lends (on the queue of its frames).
xps_last "$NS_A" "$DEV_A"
flows_up
exec {fd}< "/run/netns/$NS_B"
check_ok "unlink" sh -c "echo $fd:$IDX_B > $NSIM_BUS/unlink_device"
exec {fd}<&-
check_eq "flows stay registered after unlink" 1 \
	"$(stat_b rx_reserve_flows_hw)"
echo "$ID_B" > "$NSIM_BUS/del_device"
check_ok "device state gone" \
	poll 30 sh -c "! ip netns exec $NS_B grep -q '^dev ' $RXR_PROC"
check_ok "every pool page back in its pool" poll 30 pages_back
hold_stop_all
kill "$SRV" 2> /dev/null
check_ok "flows gone with their sockets" poll 50 flows_are "$F0"
check_ok "pool pages freed" poll 50 pages_are "$P0"
nsim_pair_cleanup

# 2. Delete the namespace under the flows.
nsim_pair 4 || exit "$ksft_fail"
# All of DEV_A's traffic on one RX queue of DEV_B: the ping below lands
# where the software flow's pool lends (on the queue of its frames).
xps_last "$NS_A" "$DEV_A"
flows_up
ip netns del "$NS_B"
hold_stop_all
kill "$SRV" 2> /dev/null
check_ok "flows gone with the namespace" poll 50 flows_are "$F0"
check_ok "pool pages freed after namespace exit" poll 50 pages_are "$P0"
check_ok "device back in the initial namespace" \
	poll 50 test -d "/sys/bus/netdevsim/devices/netdevsim$ID_B/net/$DEV_B"
dev=$(ls "/sys/bus/netdevsim/devices/netdevsim$ID_B/net/" 2> /dev/null)
if [ -n "$dev" ]; then
	for c in flows_hw flows_sw pool_pages pool_free; do
		check_eq "rx_reserve_$c back to zero" 0 \
			"$(ethtool -S "$dev" |
			   awk -v k="rx_reserve_$c:" '$1 == k { print $2 }')"
	done
fi

exit "$RET"
