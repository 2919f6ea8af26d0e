#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The administrator's ntuple rules and rx-reserve's on netdevsim: they
# coexist and both steer; an insert or delete at one of the core's
# locations is refused with a message naming the range; a failed insert
# (debugfs fail_insert) leaves the flow in software and is counted; the
# rx-reserve private flag takes the core's rules out and puts them back.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

nsim_require

cleanup()
{
	hold_stop_all
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	[ -n "${SRV6:-}" ] && kill "$SRV6" 2> /dev/null
	nsim_pair_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rules_b() { ip netns exec "$NS_B" ethtool -n "$DEV_B"; }
nrules_b() { rules_b | grep -o 'Total [0-9]* rules'; }
eth_b() { ip netns exec "$NS_B" ethtool "$@" 2>&1; }

nsim_pair 4 || exit "$ksft_fail"
ip netns exec "$NS_A" "$RXR_SOCK" serve 5000 0 > /dev/null &
SRV=$!
ip netns exec "$NS_B" "$RXR_SOCK" serve 6000 262144 > /dev/null &
SRV6=$!
slowwait 5 ip netns exec "$NS_A" sh -c "netstat -ltn | grep -q ':5000 '"
slowwait 5 ip netns exec "$NS_B" sh -c "netstat -ltn | grep -q ':6000 '"

# The administrator's rule, at location 0, steers to queue 1.
eth_b -N "$DEV_B" flow-type tcp4 dst-port 6000 action 1 loc 0
check_ok "administrator rule at location 0" \
	grep -q '^Filter: 0$' <<< "$(rules_b)"
s0=$(stat_b rx_ntuple_steered)
out=$(ip netns exec "$NS_A" timeout 30 "$RXR_SOCK" recv -n 198.51.100.2 6000)
check_eq "data through the administrator's rule" "bytes 262144 pattern ok" \
	"$(tail -n 1 <<< "$out")"
check_ge "frames steered by the administrator's rule" 5 \
	$(($(stat_b rx_ntuple_steered) - s0))

# A priority flow gets one of the core's locations (60-63) beside it.
hold_start f1 ip netns exec "$NS_B" "$RXR_SOCK" connect 198.51.100.1 5000
check_ok "flow in hardware" poll 50 stat_b_is rx_reserve_flows_hw 1
check_eq "both rules listed" "Total 2 rules" "$(nrules_b)"
core_loc=$(rules_b | awk '$1 == "Filter:" && $2 >= 60 { print $2 }')
check_ok "the core's rule in its range (at ${core_loc:-none})" \
	test -n "$core_loc"

# The administrator cannot touch the core's locations.
dmesg -c > /dev/null
eth_b -N "$DEV_B" flow-type tcp4 dst-port 7000 action 1 loc 61 > /dev/null
check_eq "insert at location 61 refused" "Total 2 rules" "$(nrules_b)"
eth_b -N "$DEV_B" delete "${core_loc:-63}" > /dev/null
check_ok "delete of the core's rule refused" \
	grep -q "^Filter: ${core_loc:-63}\$" <<< "$(rules_b)"
check_ok "the refusal names the range" \
	grep -q "ntuple locations 60-63 are reserved for priority flows" \
	<<< "$(dmesg)"
eth_b -N "$DEV_B" flow-type tcp4 dst-port 7000 action 1 loc 59 > /dev/null
check_ok "insert just below the range accepted" \
	grep -q '^Filter: 59$' <<< "$(rules_b)"
eth_b -N "$DEV_B" delete 59 > /dev/null

# A failed insert: the flow stays in software, and is promoted once
# inserts work again (here when the private flag comes back on).
hold_stop f1
check_ok "flow closed" poll 50 stat_b_is rx_reserve_flows_hw 0
echo 1 > "$DFS_B/fail_insert"
hold_start f2 ip netns exec "$NS_B" "$RXR_SOCK" connect 198.51.100.1 5000
check_ok "failed insert counted" poll 50 stat_b_is rx_reserve_slot_fail 1
check_eq "flow served in software" 1 "$(stat_b rx_reserve_flows_sw)"
check_eq "only the administrator's rule" "Total 1 rules" "$(nrules_b)"
echo 0 > "$DFS_B/fail_insert"

eth_b --set-priv-flags "$DEV_B" rx-reserve off
check_eq "private flag off" "rx-reserve: off" \
	"$(eth_b --show-priv-flags "$DEV_B" | grep rx-reserve)"
eth_b --set-priv-flags "$DEV_B" rx-reserve on
check_ok "flow promoted after the flag comes back" \
	poll 50 stat_b_is rx_reserve_flows_hw 1
check_eq "two rules again" "Total 2 rules" "$(nrules_b)"
eth_b --set-priv-flags "$DEV_B" rx-reserve off
check_eq "flag off: the core's rule is gone" "Total 1 rules" "$(nrules_b)"
check_eq "flag off: the flow is in software" 1 \
	"$(stat_b rx_reserve_flows_sw)"
eth_b --set-priv-flags "$DEV_B" rx-reserve on
check_ok "administrator's rule untouched throughout" \
	grep -q '^Filter: 0$' <<< "$(rules_b)"

exit "$RET"
