#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A UDP flood arrives on netdevsim's linked port while its refill fails
# (debugfs fail_refill).  Two priority flows, one in a hardware slot (the
# reserve queue) and one in software (lent pages on the regular queues),
# still transfer all their data; no ring slot is ever left unposted; not
# one reserve page carries a non-priority frame up, no pfmemalloc skb
# reaches another socket, and none is dropped at a socket's backlog.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

BYTES=${RXR_FLOOD_BYTES:-4194304}
SECONDS_FLOOD=${RXR_FLOOD_SECONDS:-6}
nsim_require

cleanup()
{
	[ -n "${DFS_B:-}" ] && echo 0 > "$DFS_B/fail_refill" 2> /dev/null
	hold_stop_all
	kill ${PIDS:-} 2> /dev/null
	nsim_pair_cleanup
	rm -f /tmp/rxr_flood.*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# tcpext NAME: a TcpExt counter of the receiving namespace.
tcpext()
{
	ip netns exec "$NS_B" awk -v n="$1" '
		/^TcpExt:/ { if (!h) { split($0, k); h = 1 } else split($0, v) }
		END { for (i in k) if (k[i] == n) print v[i] }' \
		/proc/net/netstat
}

nsim_pair 4 || exit "$ksft_fail"
echo 1 > "$DFS_B/slots"
ip netns exec "$NS_A" "$RXR_SOCK" serve 5000 "$BYTES" > /dev/null &
PIDS=$!
slowwait 5 ip netns exec "$NS_A" sh -c "netstat -ltn | grep -q ':5000 '"
hold_start sink ip netns exec "$NS_B" "$RXR_SOCK" udpsink 9000

pkts0=$(stat_b rx_packets)
rec0=$(stat_b rx_reserve_recycled)
drop0=$(tcpext PFMemallocDrop)
backlog0=$(tcpext TCPBacklogDrop)

echo 1 > "$DFS_B/fail_refill"
ip netns exec "$NS_A" "$RXR_SOCK" flood 198.51.100.2 9000 \
	"$SECONDS_FLOOD" 1000 > /tmp/rxr_flood.sent &
FLOOD=$!
PIDS="$PIDS $FLOOD"
sleep 1
# Both flows connect and register before either reads: the first takes
# the one slot, the second stays in software while the first lives.
for f in 1 2; do
	hold_start "f$f" ip netns exec "$NS_B" timeout 90 "$RXR_SOCK" recv -g \
		198.51.100.1 5000 || exit "$ksft_fail"
done
both_registered()
{
	hw=$(stat_b rx_reserve_flows_hw)
	sw=$(stat_b rx_reserve_flows_sw)
	[ "$hw $sw" = "1 1" ]
}
poll 20 both_registered
check_eq "flows during the flood: hardware, software" "1 1" "$hw $sw"
# Open both gates at once, then wait for both.
for f in 1 2; do
	fd=${RXR_HOLD_FD[f$f]}
	exec {fd}>&-
	unset "RXR_HOLD_FD[f$f]"
done
for f in 1 2; do
	timeout 90 tail --pid="${RXR_HOLD_PID[f$f]}" -f /dev/null
	cp "/tmp/rxr_hold.f$f.out" "/tmp/rxr_flood.f$f"
	hold_stop "f$f"
done
wait "$FLOOD"
echo 0 > "$DFS_B/fail_refill"

for f in 1 2; do
	sed -n "s/^\(flow[a-z_]*\): /# flow $f, \1: /p" "/tmp/rxr_flood.f$f"
done
# Flow 1 at its end, flow 2 at its start: once flow 1 is gone, flow 2 may
# take the slot.
slot1=$(sed -n 's/^flow: //p' /tmp/rxr_flood.f1 | kv slot)
slot2=$(sed -n 's/^flow_start: //p' /tmp/rxr_flood.f2 | kv slot)
check_ge "flow 1 in the hardware slot" 0 "${slot1:--2}"
check_eq "flow 2 in software" -1 "${slot2:-none}"
for f in 1 2; do
	check_eq "flow $f received all its data" \
		"bytes $BYTES pattern ok" "$(tail -n 1 "/tmp/rxr_flood.f$f")"
done
sent=$(awk '{ print $2 }' /tmp/rxr_flood.sent)
delivered=$(($(stat_b rx_packets) - pkts0))
recycled=$(($(stat_b rx_reserve_recycled) - rec0))
check_ge "flood packets sent" 1000 "$sent"
check_ge "refills failed" 1 "$(stat_b rx_refill_failed)"
check_ge "emergency mode switched on" 1 "$(stat_b rx_reserve_emergency)"
check_ge "flood frames recycled in place" 1 "$recycled"
check_eq "ring slots left unposted" 0 "$(stat_b rx_unposted)"
check_eq "pool pages that went up with another flow's frame" 0 \
	"$(stat_b rx_reserve_pool_up_other)"
check_eq "pfmemalloc skbs dropped at other sockets" "$drop0" \
	"$(tcpext PFMemallocDrop)"
# A lent page's skb is tagged pfmemalloc: the priority socket takes it
# from the backlog too (sk_add_backlog()), not only in sk_filter.
check_eq "frames dropped at a socket's backlog" "$backlog0" \
	"$(tcpext TCPBacklogDrop)"
check_ge "frames through the reserve queue" 100 \
	"$(stat_b rx_reserve_steered)"
check_ge "pages lent to regular queues" 1 "$(stat_b rx_reserve_lent)"
echo "# flood: sent $sent, frames delivered $delivered," \
	"recycled in place $recycled," \
	"reserve queue $(stat_b rx_reserve_steered)," \
	"lent $(stat_b rx_reserve_lent)," \
	"lent delivered $(stat_b rx_reserve_lent_delivered)," \
	"priority dropped $(stat_b rx_reserve_dropped)," \
	"no buffer $(stat_b rx_no_buffer)," \
	"pool pages up with another flow's frame" \
	"$(stat_b rx_reserve_pool_up_other)"

exit "$RET"
