#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The administrator's controls on a virtio-net device with rx-reserve:
#   - the rx-reserve private flag, off and on again while a priority flow
#     stays connected: the flow leaves its RSS bucket and comes back, and
#     moves data either way;
#   - ethtool -X: a table that names the reserve queue is accepted, and
#     ordinary traffic still stays off the reserve queue;
#   - ethtool -L: accepted while flows are in buckets (the ethtool core
#     leaves rx-reserve's rules out of its check: the driver picks the
#     reserve queue again); one queue pair leaves no reserve queue (the
#     flow goes to software), two bring it back;
#   - XDP: refused while rx-reserve is on, with a message; accepted with
#     the flag off; the flag cannot be turned on under XDP.
# With one queue pair (no reserve queue), only the flag and XDP checks run.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

BYTES=$RXR_XFER_BYTES
DATA_PORT=$RXR_DATA_PORT

rxr_require_nic
rxr_require_reserve
rxr_require_cmd ethtool timeout awk
rxr_require_driver virtio_net

NQ0=$(ethtool -l "$NIC" | awk '$1 == "Combined:" { v = $2 } END { print v }')

cleanup()
{
	"$RXR_SOCK" xdp "$NIC" off > /dev/null 2>&1
	ethtool --set-priv-flags "$NIC" rx-reserve on 2> /dev/null
	ethtool -X "$NIC" default 2> /dev/null
	ethtool -L "$NIC" combined "$NQ0" 2> /dev/null
	hold_stop_all
	rm -f /tmp/rxr_vadmin.*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# xfer [-n]: one transfer from the peer; succeeds if all of it arrived.
xfer()
{
	# shellcheck disable=SC2068
	timeout 60 "$RXR_SOCK" recv $@ "$RXR_PEER4" "$DATA_PORT" \
		> /tmp/rxr_vadmin.out
	grep -q "^bytes $BYTES pattern ok" /tmp/rxr_vadmin.out
}

# A priority flow that stays connected through all of it: the peer sends
# its data, and the connection is held open until the end.
hold_start flow "$RXR_SOCK" connect "$RXR_PEER4" "$DATA_PORT"
RXR_FLOW_PORT=$HOLD_PORT
check_ok "held priority flow registered" poll 50 flow_in any

check_eq "private flag rx-reserve on by default" on "$(priv_flag rx-reserve)"
check_eq "private flag rx-reserve-tx on by default" on \
	"$(priv_flag rx-reserve-tx)"

if [ "$NQ0" -gt 1 ]; then
	check_ok "flow in an RSS bucket" poll 50 flow_in hw
	RQ=$((NQ0 - 1))
	check_ok "ethtool -n lists it on queue $RQ" \
		sh -c "ethtool -n $NIC | grep -q 'Direct to queue $RQ'"
fi

# The private flag, off and on, with the flow connected.
check_ok "private flag off" ethtool --set-priv-flags "$NIC" rx-reserve off
check_ok "flow left its bucket" poll 50 flow_in sw
check_eq "no rule with the flag off" 0 \
	"$(ethtool -n "$NIC" | awk '/^Total/ { print $2 }')"
check_eq "buckets with the flag off" 0 "$(estat rx_reserve_rss_buckets)"
check_ok "a priority transfer with the flag off" xfer
check_ok "private flag on again" ethtool --set-priv-flags "$NIC" rx-reserve on
if [ "$NQ0" -gt 1 ]; then
	check_ok "flow back in its bucket" poll 50 flow_in hw
fi
check_ok "a priority transfer with the flag on" xfer

# XDP and rx-reserve exclude each other.
out=$("$RXR_SOCK" xdp "$NIC" on)
check_ok "XDP refused while rx-reserve is on" \
	sh -c "echo '$out' | grep -q 'Device or resource busy: .*rx-reserve'"
echo "# $out"
ethtool --set-priv-flags "$NIC" rx-reserve off
out=$("$RXR_SOCK" xdp "$NIC" on)
check_eq "XDP attaches with rx-reserve off" "xdp: attached" "$out"
if [ "$out" = "xdp: attached" ]; then
	check_fail "private flag on refused under XDP" \
		ethtool --set-priv-flags "$NIC" rx-reserve on
	# Attaching XDP adds queue pairs for XDP_TX, and the driver commits
	# RSS over them before it posts their buffers: QEMU's software RSS
	# (QEMU before 8.0, or without CAP_BPF) may then park frames for
	# good, on vanilla too.  The bench's QEMU steers in tun (eBPF RSS).
	check_ok "an ordinary transfer under XDP" xfer -n
	check_ok "XDP detached" "$RXR_SOCK" xdp "$NIC" off
fi
check_ok "private flag on after XDP" \
	ethtool --set-priv-flags "$NIC" rx-reserve on

if [ "$NQ0" -le 1 ]; then
	exit "$RET"
fi

# ethtool -X: every bucket to the reserve queue, ordinary data still
# stays off it (the entries are spread over the regular queues).
r0=$(($(estat "rx${RQ}_rxr_recycled") + $(estat "rx${RQ}_rxr_copied")))
check_ok "ethtool -X naming the reserve queue" \
	ethtool -X "$NIC" weight $(for ((q = 0; q < NQ0; q++)); do
		[ "$q" = "$RQ" ] && printf '1 ' || printf '0 '; done)
check_ok "an ordinary transfer" xfer -n
n=$(($(estat "rx${RQ}_rxr_recycled") + $(estat "rx${RQ}_rxr_copied") - r0))
check_eq "ordinary frames that reached the reserve queue" 0 "$n"
if [ "$n" -ne 0 ]; then
	# Which connection, and the priority flows it may share a bucket with.
	echo "# rxr_sock: $(tr '\n' ' ' < /tmp/rxr_vadmin.out)"
	sed 's/^/# /' "$RXR_PROC"
fi
check_ok "flow still in its bucket" poll 50 flow_in hw
check_ok "a priority transfer" xfer
check_ok "ethtool -X default" ethtool -X "$NIC" default

# ethtool -L: the flows' rules name the reserve queue, but the ethtool core
# leaves rx-reserve's rules out of its channel check, since the driver picks
# the reserve queue again and the core inserts them there.  One queue pair
# leaves no reserve queue: the flow goes to software.  Back to NQ0, it
# returns to a bucket.
check_ok "ethtool -L combined 1 with a flow in a bucket" \
	ethtool -L "$NIC" combined 1
check_ok "flow in software with one queue pair" poll 50 flow_in sw
check_ok "a priority transfer on one queue pair" xfer
check_ok "ethtool -L combined $NQ0" ethtool -L "$NIC" combined "$NQ0"
check_ok "flow back in a bucket" poll 50 flow_in hw
check_ok "a priority transfer after the change" xfer

exit "$RET"
