#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The off switch.  At run time (net.core.rx_reserve_enabled=0), every flow
# lets go of its pool, SO_RX_RESERVE is refused with ENOPROTOOPT, and 1
# turns it back on.  Booted with rx_reserve=off: the sysctl reads 0 and
# cannot be set to 1, no flow can be made, and no driver attaches (no
# device in /proc/net/rx_reserve has rx-reserve, no driver logs a reserve
# queue; a QEMU NIC has no rx-reserve private flag or counters, and a
# transfer goes through).

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

SOCK=$RXR_SOCK
PROC=$RXR_PROC
SYSCTL=net.core.rx_reserve_enabled

rxr_require_reserve
rxr_require_cmd ip ethtool

cleanup()
{
	hold_stop_all
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	[ -n "${ID_A:-}" ] && nsim_pair_cleanup
	[ -n "${ON0:-}" ] && sysctl -q -w "$SYSCTL=$ON0"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

flows_are() { [ "$(proc_global flows)" = "$1" ]; }
pages_are() { [ "$(proc_global pool_pages)" = "$1" ]; }
markn() { unshare -n sh -c "ip link set lo up && $SOCK markn $1"; }

if grep -qw 'rx_reserve=off' /proc/cmdline; then
	check_eq "$SYSCTL reads 0 after rx_reserve=off" 0 "$(sysctl -n $SYSCTL)"
	check_eq "$SYSCTL=1 refused after rx_reserve=off" "errno EINVAL" \
		"$("$SOCK" write /proc/sys/net/core/rx_reserve_enabled 1 |
		   head -n 1)"
	check_eq "SO_RX_RESERVE refused" \
		"marked 0 refused 2 errno ENOPROTOOPT" "$(markn 2)"
	check_eq "no flow" 0 "$(proc_global flows)"
	check_ok "the kernel says it is off" \
		grep -q 'rx-reserve: off' <<< "$(dmesg)"
	check_eq "no device attached" "" \
		"$(awk '$1 == "dev" && / attached 1 /' "$PROC")"
	check_eq "no driver carved a reserve queue" "" \
		"$(dmesg | grep -i 'rx-reserve: RX queue')"
	if [ "${RXR_NIC:-none}" != none ]; then
		NIC=$(rxr_nic)
		check_eq "no rx-reserve private flag on $NIC" "" \
			"$(ethtool --show-priv-flags "$NIC" 2> /dev/null |
			   grep -i 'rx-reserve')"
		check_eq "no rx-reserve counters on $NIC" 0 \
			"$(ethtool -S "$NIC" | grep -c 'rx_reserve\|rxr_')"
		out=$(timeout 60 "$SOCK" recv -n "$RXR_PEER4" "$RXR_DATA_PORT" |
		      tail -n 1)
		check_ok "a transfer over $NIC ($out)" \
			grep -q "pattern ok" <<< "$out"
	fi
	exit "$RET"
fi

nsim_require
ON0=$(sysctl -n $SYSCTL)
check_eq "$SYSCTL is 1 by default" 1 "$ON0"
NPAGES=$(sysctl -n net.core.rx_reserve_pool_pages)
F0=$(proc_global flows)
P0=$(proc_global pool_pages)

nsim_pair 2 || exit "$ksft_fail"
ip netns exec "$NS_A" "$SOCK" serve 5000 0 > /dev/null &
SRV=$!
slowwait 5 ip netns exec "$NS_A" sh -c "netstat -ltn | grep -q ':5000 '"
hold_start st ip netns exec "$NS_B" "$SOCK" connect 198.51.100.1 5000 ||
	exit "$ksft_fail"
check_ok "a flow with its pool" poll 50 pages_are $((P0 + NPAGES))
check_eq "flows" $((F0 + 1)) "$(proc_global flows)"

sysctl -q -w $SYSCTL=0
check_eq "off: the flow let go" "$F0" "$(proc_global flows)"
check_ok "off: its pool pages given back" poll 50 pages_are "$P0"
check_eq "off: SO_RX_RESERVE refused" \
	"marked 0 refused 2 errno ENOPROTOOPT" "$(markn 2)"
check_eq "off: no flow made" "$F0" "$(proc_global flows)"
hold_stop st

sysctl -q -w $SYSCTL=1
check_eq "on again: SO_RX_RESERVE taken" "marked 2 refused 0 errno 0" \
	"$(markn 2)"
check_ok "on again: those flows gone with their sockets" \
	poll 100 flows_are "$F0"
hold_start st ip netns exec "$NS_B" "$SOCK" connect 198.51.100.1 5000 ||
	exit "$ksft_fail"
check_ok "on again: a new flow has its pool" \
	poll 50 pages_are $((P0 + NPAGES))
hold_stop st
check_ok "pool pages given back" poll 50 pages_are "$P0"

exit "$RET"
