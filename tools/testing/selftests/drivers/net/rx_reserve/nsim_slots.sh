#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rx-reserve's steering slots on netdevsim's emulated ntuple table: with N
# slots and N + k priority flows, N are in hardware (one rule each, at the
# core's locations, steering to the reserve queue) and k in software;
# closing a hardware flow promotes a software one; closing all removes the
# rules.  A priority flow in a slot receives its data through the reserve
# queue.  The receiver's TCP window (a route metric) is smaller than a
# ring, so that a host too busy to run the reserve queue's NAPI in time
# cannot overrun it: every reserve queue overrun is then rx-reserve's.
# Last, a flow that gets its slot back after a link down/up with refills
# failing gets back the pages its pool lent to the regular rings meanwhile
# (netdevsim's sweep, rx_lent_swept), and once it closes, the pages of its
# pool posted on the reserve queue go back too (rx_reserve_swept): its pool
# is freed, so they would be nobody's.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

N=2
K=2
nsim_require

cleanup()
{
	hold_stop_all
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	nsim_pair_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

nsim_pair 4 || exit "$ksft_fail"
ip -n "$NS_B" route replace 198.51.100.1/32 dev "$DEV_B" window 32768
echo "$N" > "$DFS_B/slots"
check_eq "slots knob" "$N" "$(cat "$DFS_B/slots")"
check_fail "slots knob refuses 33" sh -c "echo 33 > $DFS_B/slots"

ip netns exec "$NS_A" "$RXR_SOCK" serve 5000 1048576 > /dev/null &
SRV=$!
slowwait 5 ip netns exec "$NS_A" sh -c "netstat -ltn | grep -q ':5000 '"

# One flow in a slot first: its data comes through the reserve queue.
s0=$(stat_b rx_reserve_steered)
out=$(ip netns exec "$NS_B" timeout 60 "$RXR_SOCK" recv 198.51.100.1 5000)
check_eq "hardware flow data" "bytes 1048576 pattern ok" \
	"$(tail -n 1 <<< "$out")"
check_ge "frames steered to the reserve queue" 500 \
	$(($(stat_b rx_reserve_steered) - s0))
check_eq "no reserve queue overrun" 0 "$(stat_b rx_reserve_queue_no_buffer)"

for ((i = 1; i <= N + K; i++)); do
	hold_start "f$i" ip netns exec "$NS_B" \
		"$RXR_SOCK" connect 198.51.100.1 5000
done
check_ok "$N flows in hardware" poll 50 stat_b_is rx_reserve_flows_hw "$N"
check_eq "$K flows in software" "$K" "$(stat_b rx_reserve_flows_sw)"
rules=$(ip netns exec "$NS_B" ethtool -n "$DEV_B")
check_eq "rules in the table" "Total $N rules" \
	"$(grep -o 'Total [0-9]* rules' <<< "$rules")"
for ((l = 64 - N; l < 64; l++)); do
	check_ok "rule at location $l" grep -q "^Filter: $l\$" <<< "$rules"
done
check_eq "rules steer to the reserve queue" "$N" \
	"$(grep -c 'Action: Direct to queue 3' <<< "$rules")"
check_eq "pool pages of the flows" $(((N + K) * 256)) \
	"$(stat_b rx_reserve_pool_pages)"

# Close a hardware flow: a software one takes its slot.
hw_port=$(ip netns exec "$NS_B" awk '$1 == "flow" && $10 >= 0 {
	n = split($6, a, ":"); print a[n]; exit }' "$RXR_PROC")
victim=
for ((i = 1; i <= N + K; i++)); do
	[ "$(awk '$1 == "port" { print $2 }' "/tmp/rxr_hold.f$i.out")" = \
	  "$hw_port" ] && victim=f$i
done
check_ok "found a hardware flow to close" test -n "$victim"
[ -n "$victim" ] && hold_stop "$victim"
check_ok "promoted: $((K - 1)) left in software" \
	poll 50 stat_b_is rx_reserve_flows_sw $((K - 1))
check_eq "still $N in hardware" "$N" "$(stat_b rx_reserve_flows_hw)"
check_eq "still $N rules" "Total $N rules" \
	"$(ip netns exec "$NS_B" ethtool -n "$DEV_B" |
	   grep -o 'Total [0-9]* rules')"

hold_stop_all
check_ok "no flow left" poll 50 stat_b_is rx_reserve_flows_hw 0
check_eq "no rule left" "Total 0 rules" \
	"$(ip netns exec "$NS_B" ethtool -n "$DEV_B" |
	   grep -o 'Total [0-9]* rules')"
check_eq "no slot insert failed" 0 "$(stat_b rx_reserve_slot_fail)"

# A flow that takes a slot gets back what its pool lent to the regular
# rings while it was in software.  At link up with refills failing, the
# rings are posted before the steering work gives the held flow its slot
# again, so they borrow from its pool, to any queue (its queue is not
# known yet); when the filter then points at the reserve queue, netdevsim
# sweeps those pages back (rx_lent_swept) and posts the reserve ring with
# them.  Without the sweep they would stay parked where no frame of the
# flow lands any more.
rings_lent() { awk '$4 == 0 { n += $8 } END { print n + 0 }' "$DFS_B/rings"; }
rings_lent_is() { [ "$(rings_lent)" = "$1" ]; }
reserve_posted() { awk '$4 == 1 { print $6 }' "$DFS_B/rings"; }
reserve_swept_is() { [ $(($(stat_b rx_reserve_swept) - r0)) = "$1" ]; }

hold_start s0 ip netns exec "$NS_B" "$RXR_SOCK" connect 198.51.100.1 5000
check_ok "sweep: the flow in a slot" poll 50 stat_b_is rx_reserve_flows_hw 1
echo 1 > "$DFS_B/fail_refill"
l0=$(stat_b rx_reserve_lent)
w0=$(stat_b rx_lent_swept)
ip -n "$NS_B" link set "$DEV_B" down
ip -n "$NS_B" link set "$DEV_B" up
lent=$(($(stat_b rx_reserve_lent) - l0))
check_ge "sweep: pool pages lent to the rings at link up" 1 "$lent"
check_ok "sweep: the flow back in its slot" \
	poll 50 stat_b_is rx_reserve_flows_hw 1
check_ok "sweep: no lent page left in a regular ring" poll 50 rings_lent_is 0
check_ge "sweep: lent pages swept back" 1 \
	$(($(stat_b rx_lent_swept) - w0))
check_eq "sweep: reserve ring posted in full" 64 "$(reserve_posted)"
echo "# sweep: lent $lent, swept $(($(stat_b rx_lent_swept) - w0))"
sed 's/^/#   rings: /' "$DFS_B/rings"
echo 0 > "$DFS_B/fail_refill"
r0=$(stat_b rx_reserve_swept)
hold_stop s0
check_ok "sweep: flow gone" poll 50 stat_b_is rx_reserve_flows_hw 0
check_ok "sweep: its 64 pages on the reserve queue given back" \
	poll 50 reserve_swept_is 64
check_eq "sweep: reserve ring empty with no flow in a slot" 0 \
	"$(reserve_posted)"

exit "$RET"
