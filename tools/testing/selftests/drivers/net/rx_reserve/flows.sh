#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Priority flows made from userspace with SO_RX_RESERVE: the option's
# errors, registration with the device of the route over IPv4 and IPv6,
# no pool for a flow over a device without rx-reserve (lo), registration of
# a connection still in progress, and a flow following its route to
# another device.  On netdevsim: pool pages accounted in
# /proc/net/rx_reserve and given back on close, and a flow over
# net.core.rx_reserve_max_pages served without a pool until the cap lets
# its pool be allocated.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

SOCK=$RXR_SOCK
PROC=$RXR_PROC

rxr_require_reserve
rxr_require_cmd ip

cleanup()
{
	hold_stop_all
	ip link del rxra0 2> /dev/null
	ip link del rxrb0 2> /dev/null
	ip netns del rxr-flows-$$ 2> /dev/null
	[ -n "${MAX:-}" ] && sysctl -q -w net.core.rx_reserve_max_pages="$MAX"
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	[ -n "${ID_A:-}" ] && nsim_pair_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# hold CMD...: run CMD (an rxr_sock that holds a flow) until hold_stop h;
# set PORT to the port it prints.
hold()
{
	hold_start h "$@" && PORT=$HOLD_PORT
}

# global KEY: a value of the first line of $PROC.
global()
{
	head -n 1 "$PROC" | kv "$1"
}

# flow_line DEV FAMILY LOCALPORT: the flow's line of $PROC.
flow_line()
{
	awk -v d="$1" -v f="$2" -v p=":$3" '
		$1 == "flow" && $2 == d && $4 == f &&
		substr($6, length($6) - length(p) + 1) == p' "$PROC"
}

# field LINE KEY
field()
{
	kv "$2" <<< "$1"
}

has_flow() { [ -n "$(flow_line "$@")" ]; }
no_flow() { [ -z "$(flow_line "$@")" ]; }
pages_are() { [ "$(global pool_pages)" = "$1" ]; }

check_ok "SO_RX_RESERVE errors and getsockopt" "$SOCK" errors

NPAGES=$(sysctl -n net.core.rx_reserve_pool_pages)
check_eq "default pool size (net.core.rx_reserve_pool_pages)" 256 "$NPAGES"
for v in 0 4097; do
	check_fail "net.core.rx_reserve_pool_pages=$v refused" \
		sysctl -q -w net.core.rx_reserve_pool_pages=$v
done
check_eq "net.core.rx_reserve_pool_pages unchanged" "$NPAGES" \
	"$(sysctl -n net.core.rx_reserve_pool_pages)"
for s in rx_reserve_fallback=2 rx_reserve_emergency_hold_ms=5 \
	 rx_reserve_max_pages=-1; do
	check_fail "net.core.$s refused" sysctl -q -w "net.core.$s"
done
P0=$(global pool_pages)
F0=$(global flows)

ip link set lo up
for fam in 4 6; do
	addr=127.0.0.1
	[ $fam = 6 ] && addr=::1
	hold "$SOCK" pair "$addr" || continue
	line=$(flow_line lo $fam "$PORT")
	check_ok "IPv$fam flow on lo in $PROC" test -n "$line"
	# lo has no rx-reserve: a pool there would be memory for nothing.
	check_eq "IPv$fam flow over lo holds no pool" 0 "$(field "$line" pool)"
	check_eq "IPv$fam flow marked by the socket option" sockopt \
		"$(field "$line" mark)"
	check_eq "IPv$fam no pool pages taken for lo" "$P0" \
		"$(global pool_pages)"
	check_ge "lo flows in software" 1 \
		"$(field "$(grep '^dev lo ' "$PROC")" flows_sw)"
	hold_stop h
	check_ok "IPv$fam flow gone after close" poll 30 no_flow lo $fam "$PORT"
done

# A connection in progress registers with its route's device, and follows
# the route to another one.  The veth peers have no address, so the SYN is
# never answered and the socket stays in SYN-SENT; a permanent neighbour
# entry lets each SYN leave the host, so that its retransmission re-routes
# (an SYN waiting for ARP is not retransmitted).
ip link add rxra0 type veth peer name rxra1 &&
ip link add rxrb0 type veth peer name rxrb1 || {
	echo "SKIP: no veth"
	exit "$ksft_skip"
}
for d in rxra0 rxra1 rxrb0 rxrb1; do
	ip link set "$d" up
done
ip addr add 198.18.1.1/24 dev rxra0
ip addr add 198.18.2.1/24 dev rxrb0
ip neigh add 198.18.9.9 lladdr 02:00:00:00:00:09 dev rxra0 nud permanent
ip neigh add 198.18.9.9 lladdr 02:00:00:00:00:09 dev rxrb0 nud permanent
ip route add 198.18.9.9/32 dev rxra0
if hold "$SOCK" connect -b 198.18.9.9 3260; then
	check_ok "flow in progress on rxra0" poll 20 has_flow rxra0 4 "$PORT"
	check_eq "rxra0 flows" 1 \
		"$(field "$(grep '^dev rxra0 ' "$PROC")" flows_sw)"
	ip route replace 198.18.9.9/32 dev rxrb0
	check_ok "flow follows the route to rxrb0" \
		poll 50 has_flow rxrb0 4 "$PORT"
	check_ok "flow left rxra0" no_flow rxra0 4 "$PORT"
	hold_stop h
	check_ok "flow gone after close" poll 30 no_flow rxrb0 4 "$PORT"
fi

# Moving the device to another namespace takes the flow off it; deleting
# that namespace destroys the device.
if hold "$SOCK" connect -b 198.18.9.9 3260; then
	check_ok "flow on rxrb0" poll 20 has_flow rxrb0 4 "$PORT"
	ip netns add rxr-flows-$$
	ip link set rxrb0 netns rxr-flows-$$
	check_ok "flow off rxrb0 after its move" no_flow rxrb0 4 "$PORT"
	check_eq "rxrb0 gone from this namespace's view" "" \
		"$(grep '^dev rxrb0 ' "$PROC")"
	check_eq "rxrb0 in the new namespace, without flows" 0 \
		"$(ip netns exec rxr-flows-$$ grep '^dev rxrb0 ' "$PROC" |
		   kv flows_sw)"
	ip netns del rxr-flows-$$
	check_ok "rxrb1 destroyed with the namespace" \
		poll 50 test ! -e /sys/class/net/rxrb1
	hold_stop h
fi

# Device unregister takes the flow off the device.
ip route replace 198.18.9.9/32 dev rxra0
if hold "$SOCK" connect -b 198.18.9.9 3260; then
	check_ok "flow on rxra0" poll 20 has_flow rxra0 4 "$PORT"
	ip link del rxra0
	check_eq "rxra0 state gone with the device" "" \
		"$(grep '^dev rxra0 ' "$PROC")"
	check_eq "flow still exists, unregistered" $((F0 + 1)) "$(global flows)"
	hold_stop h
fi
check_ok "pool pages all given back" poll 30 pages_are "$P0"

# A flow on a device with rx-reserve (netdevsim) has its pool, accounted
# globally and given back on close.
nsim_load
if [ ! -w "$NSIM_BUS/new_device" ]; then
	echo "SKIP: no netdevsim: pool accounting not checked"
	[ "$RET" = 0 ] && exit "$ksft_skip"
	exit "$RET"
fi
nsim_pair 2 || exit "$ksft_fail"
ip netns exec "$NS_A" "$SOCK" serve 5000 0 > /dev/null &
SRV=$!
slowwait 5 ip netns exec "$NS_A" sh -c "netstat -ltn | grep -q ':5000 '"

# flow_b PORT: the line of DEV_B's flow from local port PORT.
flow_b()
{
	ip netns exec "$NS_B" awk -v d="$DEV_B" -v p=":$1" '
		$1 == "flow" && $2 == d &&
		substr($6, length($6) - length(p) + 1) == p' "$PROC"
}
pool_b_is() { [ "$(field "$(flow_b "$1")" pool)" = "$2" ]; }
has_flow_b() { [ -n "$(flow_b "$1")" ]; }
nopool_cap_is() { [ "$(global nopool_cap)" = "$1" ]; }
dev_b() { ip netns exec "$NS_B" grep "^dev $DEV_B " "$PROC"; }

if hold_start n ip netns exec "$NS_B" "$SOCK" connect 198.51.100.1 5000; then
	PORT=$HOLD_PORT
	check_ok "flow on $DEV_B has its pool" \
		poll 50 pool_b_is "$PORT" "$NPAGES"
	check_eq "pool pages accounted globally" $((P0 + NPAGES)) \
		"$(global pool_pages)"
	hold_stop n
	check_ok "pool pages given back" poll 30 pages_are "$P0"
fi

# Past net.core.rx_reserve_max_pages a flow gets no pool: it is served by
# mainline's shared reserve, and a counter says so, once.  When the cap
# allows, the pool is allocated after all.
C0=$(global nopool_cap)
MAX=$(sysctl -n net.core.rx_reserve_max_pages)
sysctl -q -w net.core.rx_reserve_max_pages="$P0"
if hold_start n ip netns exec "$NS_B" "$SOCK" connect 198.51.100.1 5000; then
	PORT=$HOLD_PORT
	check_ok "flow over the cap registered" poll 50 has_flow_b "$PORT"
	check_ok "nopool_cap counted" poll 50 nopool_cap_is $((C0 + 1))
	check_eq "flow over the cap has no pool" 0 \
		"$(field "$(flow_b "$PORT")" pool)"
	check_eq "$DEV_B flows without a pool" 1 "$(dev_b | kv flows_nopool)"
	check_eq "no pages held over the cap" "$P0" "$(global pool_pages)"
	# The pool is retried every second: let two retries fail.
	sleep 2.5
	check_eq "retries over the cap counted once" $((C0 + 1)) \
		"$(global nopool_cap)"
	sysctl -q -w net.core.rx_reserve_max_pages="$MAX"
	check_ok "pool allocated once the cap allows" \
		poll 50 pool_b_is "$PORT" "$NPAGES"
	check_eq "$DEV_B flows without a pool after the retry" 0 \
		"$(dev_b | kv flows_nopool)"
	hold_stop n
	check_ok "pool pages given back after the retry" poll 30 pages_are "$P0"
fi
sysctl -q -w net.core.rx_reserve_max_pages="$MAX"

exit "$RET"
