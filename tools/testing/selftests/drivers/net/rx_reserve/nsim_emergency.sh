#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Emergency mode on netdevsim: it switches on when refill fails (debugfs
# fail_refill), the ring stays posted (frames are dropped and their
# buffers reposted in place), and it switches off by itself once refill
# works again for net.core.rx_reserve_emergency_hold_ms (1 s here; a
# 3-second UDP flood makes a failure at every frame).  The counters and
# the rx_reserve:rxr_emergency tracepoint show both transitions.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

TRACE=/sys/kernel/tracing
FPA=/sys/kernel/debug/fail_page_alloc
nsim_require

cleanup()
{
	[ -n "${FLOOD:-}" ] && kill "$FLOOD" 2> /dev/null
	[ -n "${DFS_B:-}" ] && echo 0 > "$DFS_B/fail_refill" 2> /dev/null
	[ -n "${HOLD0:-}" ] &&
		sysctl -q -w net.core.rx_reserve_emergency_hold_ms="$HOLD0"
	[ -e "$TRACE/events/rx_reserve/rxr_emergency/enable" ] &&
		echo 0 > "$TRACE/events/rx_reserve/rxr_emergency/enable"
	if [ -n "${FPA_SET:-}" ]; then
		echo 0 > "$FPA/probability"
		echo 1 > "$FPA/min-order"
		echo 1 > "$FPA/times"
	fi
	hold_stop_all
	nsim_pair_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_emergency()
{
	[ "$(ip netns exec "$NS_B" grep "^dev $DEV_B " "$RXR_PROC" |
	     kv in_emergency)" = 1 ]
}
not_in_emergency() { ! in_emergency; }

HOLD0=$(sysctl -n net.core.rx_reserve_emergency_hold_ms)
sysctl -q -w net.core.rx_reserve_emergency_hold_ms=1000
nsim_pair 2 || exit "$ksft_fail"
tracing=0
if [ -w "$TRACE/events/rx_reserve/rxr_emergency/enable" ]; then
	echo > "$TRACE/trace"
	echo 1 > "$TRACE/events/rx_reserve/rxr_emergency/enable"
	tracing=1
fi

check_ok "ping before" ip netns exec "$NS_A" ping -c 2 -W 2 -q 198.51.100.2
check_eq "not in emergency mode" 0 "$(stat_b rx_reserve_emergency)"

echo 1 > "$DFS_B/fail_refill"
ip netns exec "$NS_A" "$RXR_SOCK" flood 198.51.100.2 9 3 100 > /dev/null &
FLOOD=$!
check_ok "emergency mode on" poll 30 in_emergency
wait "$FLOOD"
# Refills work again at once: on a slow kernel, the checks below can take
# longer than the hold time, and a stray frame after that (IPv6 neighbour
# discovery, say) would fail its refill and start a second activation.
echo 0 > "$DFS_B/fail_refill"
check_eq "one activation" 1 "$(stat_b rx_reserve_emergency)"
check_ge "failed allocations counted" 1 "$(stat_b rx_reserve_alloc_fail)"
check_ge "frames dropped, buffers reposted in place" 1 \
	"$(stat_b rx_reserve_recycled)"
check_eq "ring slots left unposted" 0 "$(stat_b rx_unposted)"

check_ok "emergency mode off by itself" poll 50 not_in_emergency
check_eq "still one activation" 1 "$(stat_b rx_reserve_emergency)"
check_ge "time in emergency mode (ms)" 1000 \
	"$(stat_b rx_reserve_emergency_ms)"
check_ok "ping after" ip netns exec "$NS_A" ping -c 2 -W 2 -q 198.51.100.2
check_eq "ring slots left unposted" 0 "$(stat_b rx_unposted)"

if [ -w "$FPA/probability" ]; then
	hold_start sink ip netns exec "$NS_B" "$RXR_SOCK" udpsink 9000
	f0=$(stat_b rx_refill_failed)
	e0=$(stat_b rx_reserve_emergency)
	FPA_SET=1
	echo 0 > "$FPA/min-order"
	echo 0 > "$FPA/verbose"
	echo 1 > "$FPA/interval"
	echo -1 > "$FPA/times"
	echo 20 > "$FPA/probability"
	ip netns exec "$NS_A" "$RXR_SOCK" flood 198.51.100.2 9000 2 1000 \
		> /dev/null
	echo 0 > "$FPA/probability"
	check_ge "fail_page_alloc: refills failed" 1 \
		$(($(stat_b rx_refill_failed) - f0))
	check_ge "fail_page_alloc: emergency mode on" 1 \
		$(($(stat_b rx_reserve_emergency) - e0))
	check_eq "fail_page_alloc: ring slots left unposted" 0 \
		"$(stat_b rx_unposted)"
	check_ok "fail_page_alloc: emergency mode off by itself" \
		poll 50 not_in_emergency
	hold_stop sink
else
	echo "# no fail_page_alloc in debugfs: that injection not tested"
fi

if [ "$tracing" = 1 ]; then
	grep -o 'emergency=.*' "$TRACE/trace" | sed 's/^/# transition: /'
	check_ok "tracepoint: on" grep -q "emergency=on reason=alloc-fail" \
		"$TRACE/trace"
	check_ok "tracepoint: off" grep -q "emergency=off reason=recovered" \
		"$TRACE/trace"
else
	echo "# no rx_reserve tracepoints in tracefs: transitions not traced"
fi

exit "$RET"
