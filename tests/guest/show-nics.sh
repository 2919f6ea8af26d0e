#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# show-nics.sh: what `make demo` shows in the guest: the kernel, then each
# NIC through ethtool (driver, channels, rings, statistics).

echo "== guest: Linux $(uname -r), $(nproc) CPUs, NIC model $RXR_NIC"
for d in /sys/class/net/*; do
	dev=$(basename "$d")
	[ "$dev" = lo ] && continue
	echo
	echo "== $dev: $(cat "$d/address"), $(ls -d "$d"/queues/rx-* | wc -l) RX queues"
	ip -brief addr show dev "$dev"
	echo "-- ethtool -i $dev"
	ethtool -i "$dev" | grep -E '^(driver|version|bus-info):'
	echo "-- ethtool -l $dev"
	ethtool -l "$dev" 2>&1 | sed -n '/Current/,$p'
	echo "-- ethtool -g $dev"
	ethtool -g "$dev" 2>&1 | sed -n '/Current/,$p' | grep -E 'Current|RX:|TX:'
	echo "-- ethtool -S $dev (non-zero)"
	ethtool -S "$dev" 2>&1 | awk -F: 'NR > 1 && $2 + 0 != 0' | head -n 12
done
if [ -n "${RXR_PEER4:-}" ]; then
	echo
	echo "-- ping the bench's peer $RXR_PEER4"
	ping -q -c 3 -i 0.2 "$RXR_PEER4" | tail -n 2
fi
