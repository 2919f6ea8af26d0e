#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two netdevsim ports in two namespaces, linked through netdevsim's bus,
# carry a TCP stream: every byte arrives, and the counters agree.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

NSIM_BUS=/sys/bus/netdevsim
MIB=4
PORT=5201
ID_A=$((RANDOM % 512 + 1))
ID_B=$((ID_A + 512))

rxr_require_cmd nc sha256sum
if [ ! -w "$NSIM_BUS/new_device" ] || [ ! -w "$NSIM_BUS/link_device" ]; then
	echo "SKIP: netdevsim with link_device is not available"
	exit "$ksft_skip"
fi

cleanup()
{
	local id

	for id in "$ID_A" "$ID_B"; do
		[ -e "$NSIM_BUS/devices/netdevsim$id" ] &&
			echo "$id" > "$NSIM_BUS/del_device"
	done
	cleanup_all_ns
	rm -f /tmp/nsim_link.out /tmp/nsim_link.in
}
trap cleanup EXIT

# nsim_create ID NS: make a one-port netdevsim device, move it into NS,
# print its name.
nsim_create()
{
	local dev

	echo "$1 1" > "$NSIM_BUS/new_device" || return 1
	dev=$(slowwait 5 ls "$NSIM_BUS/devices/netdevsim$1/net/") || return 1
	ip link set "$dev" netns "$2" || return 1
	echo "$dev"
}

setup_ns NS_A NS_B || exit "$ksft_skip"
DEV_A=$(nsim_create "$ID_A" "$NS_A") || exit "$ksft_fail"
DEV_B=$(nsim_create "$ID_B" "$NS_B") || exit "$ksft_fail"
ip -n "$NS_A" addr add 198.51.100.1/24 dev "$DEV_A"
ip -n "$NS_B" addr add 198.51.100.2/24 dev "$DEV_B"
ip -n "$NS_A" link set "$DEV_A" up
ip -n "$NS_B" link set "$DEV_B" up

exec {fd_a}< "/run/netns/$NS_A"
exec {fd_b}< "/run/netns/$NS_B"
idx_a=$(ip -n "$NS_A" -o link show "$DEV_A" | cut -d: -f1)
idx_b=$(ip -n "$NS_B" -o link show "$DEV_B" | cut -d: -f1)
if ! echo "$fd_a:$idx_a $fd_b:$idx_b" > "$NSIM_BUS/link_device"; then
	echo "FAIL: linking $DEV_A and $DEV_B"
	exit "$ksft_fail"
fi
exec {fd_a}<&- {fd_b}<&-

head -c $((MIB << 20)) /dev/urandom > /tmp/nsim_link.out
want=$(sha256sum < /tmp/nsim_link.out | cut -d' ' -f1)
tx0=$(link_stat "$DEV_A" tx bytes "$NS_A")

ip netns exec "$NS_B" timeout 60 nc -l -p "$PORT" > /tmp/nsim_link.in &
srv=$!
slowwait 5 ip netns exec "$NS_B" sh -c "netstat -ltn | grep -q ':$PORT '"
ip netns exec "$NS_A" timeout 60 bash -c \
	"cat /tmp/nsim_link.out > /dev/tcp/198.51.100.2/$PORT"
check_eq "sender exit" 0 $?
wait "$srv"
check_eq "receiver exit" 0 $?

check_eq "bytes received" $((MIB << 20)) "$(wc -c < /tmp/nsim_link.in)"
check_eq "data received" "$want" \
	"$(sha256sum < /tmp/nsim_link.in | cut -d' ' -f1)"
# netdevsim counts what it forwards on the sending port.
check_ge "$DEV_A tx bytes" $((MIB << 20)) \
	$(($(link_stat "$DEV_A" tx bytes "$NS_A") - tx0))

exit "$RET"
