#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two netdevsim ports in two namespaces, linked through netdevsim's bus,
# carry a TCP stream: every byte arrives, and the counters agree.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

MIB=4
PORT=5201

rxr_require_cmd nc sha256sum
if [ ! -w "$NSIM_BUS/new_device" ] ||
   [ ! -w "$NSIM_BUS/link_device" ]; then
	echo "SKIP: netdevsim with link_device is not available"
	exit "$ksft_skip"
fi

cleanup()
{
	nsim_pair_cleanup
	rm -f /tmp/nsim_link.out /tmp/nsim_link.in
}
trap cleanup EXIT

nsim_pair 1 || exit "$ksft_fail"

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
