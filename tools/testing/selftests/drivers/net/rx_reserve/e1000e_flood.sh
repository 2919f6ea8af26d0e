#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A priority TCP connection (SO_RX_RESERVE) receives from the bench's peer
# through e1000e while the peer floods the same NIC (UDP to a closed and
# an open, unread port, a TCP bulk stream into a plain socket) and
# fail_page_alloc fails one page allocation in five.  With RX queue 1's
# MSI-X vector, the flow's RETA bucket points at queue 1, the reserve
# queue; without it (e1000e.IntMode=1, MSI), queue 0's software fallback
# serves alone.  Either way all the data arrives, queue 0 never runs dry,
# and in emergency mode the flood takes no reserve buffer; with queue 1,
# the flow's frames came through it.  Last, with queue 1, every atomic
# page allocation fails until queue 0 is down to its last buffers: it
# takes a steered flow's page instead of running dry, and a transfer
# steered to queue 1 comes through meanwhile.
#
# The flood rate is calibrated first, as the bench's control cell does:
# the highest of RXR_FLOOD_RATES (packets/s) at which the same transfer,
# with no memory pressure, takes at most twice its time without the flood.
#
# Needs tests/bench/flood-peer.sh on the peer (RXR_FLOOD_PEER set).

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

RATES=${RXR_FLOOD_RATES:-25000 12500 6250 3125}
PIDS=""

rxr_require_nic
rxr_require_cmd ethtool timeout awk
rxr_require_driver e1000e
rxr_require_reserve

trap flood_cleanup EXIT
trap 'exit 130' INT TERM

check_ok "link up" rxr_wait_link
QUEUES=$(estat rx_reserve_queues)
echo "# $NIC: rx-reserve serves $QUEUES RX queue(s)"
if [ "$QUEUES" = 2 ]; then
	check_ok "dmesg names the reserve queue" \
		dmesg_has 'rx-reserve: RX queue 1 is the reserve queue'
else
	check_eq "without queue 1's vector: fallback alone" 1 "$QUEUES"
	check_ok "dmesg says so" \
		dmesg_has 'rx-reserve: no MSI-X vector for RX queue 1'
	check_eq "dmesg says so once" 1 \
		"$(dmesg | grep -c 'rx-reserve: no MSI-X vector')"
fi
grep "$NIC" /proc/interrupts | sed 's/^ */# /'

flood_sinks

transfer 60
check_eq "transfer without flood: bytes" "$RXR_XFER_BYTES" \
	"$XFER_BYTES"
BASE_MS=$XFER_MS
echo "# no flood: $XFER_BYTES bytes in $BASE_MS ms"

# shellcheck disable=SC2086
calibrate "$BASE_MS" $RATES

# The priority transfer under the carried flood, with one page allocation
# in five failing from just before it until the flood ends.
declare -A before d
STATS="steered lent lent_delivered recycled copied dropped alloc_fail"
STATS="$STATS emergency pool_up pool_up_other"
QSTATS="packets priority steered passed copied recycled lent dropped empty"
QSTATS="$QSTATS lent_low dry errors"
snap()
{
	local s q

	for s in $STATS; do before[$s]=$(estat "rx_reserve_$s"); done
	for q in 0 1; do
		for s in $QSTATS; do
			before[$q$s]=$(estat "rx${q}_rxr_$s")
		done
	done
}
delta()
{
	local s q

	for s in $STATS; do d[$s]=$(($(estat "rx_reserve_$s") - before[$s]))
	done
	for q in 0 1; do
		for s in $QSTATS; do
			d[$q$s]=$(($(estat "rx${q}_rxr_$s") - before[$q$s]))
		done
	done
}

snap
rx0=$(link_stat "$NIC" rx packets)
flood "$RATE" 12 || exit "$ksft_fail"
fpa_on 20 && FPA_ON=1
t0=$(now_ms)
transfer 90 &
XPID=$!
PIDS="$PIDS $XPID"
# The flow as the core placed it, and the driver's rule, while it lives.
if [ "$QUEUES" = 2 ]; then
	sample_flow "$XPID" hw
else
	sample_flow "$XPID"
fi
wait "$XPID"
XFER_MS=$(($(now_ms) - t0))
transfer_result
# A short transfer may end before the sampler sees it: take its own view.
FLOW=${FLOW:-$XFER_FLOW}
flood_wait
fpa_off
delta

echo "# flow: $FLOW"
echo "# RESULT flooded transfer: $XFER_BYTES bytes in $XFER_MS ms at" \
     "$RATE pps${FPA_ON:+, 1 page allocation in 5 failing}" \
     "(no flood: $BASE_MS ms)"
check_eq "flooded transfer: bytes" "$RXR_XFER_BYTES" "$XFER_BYTES"
check_eq "flooded transfer: pattern" 1 "$XFER_OK"
check_ge "flood packets received" 1000 \
	$(($(link_stat "$NIC" rx packets) - rx0))
echo "# rx_reserve deltas:" \
     "$(for s in $STATS; do printf '%s=%s ' "$s" "${d[$s]}"; done)"
for q in 0 1; do
	echo "# queue $q deltas:" \
	     "$(for s in $QSTATS; do printf '%s=%s ' "$s" "${d[$q$s]}"; done)"
done
ethtool -S "$NIC" | grep -E '_rxr_|rx_reserve_' | sed 's/^ */# /'

check_eq "queue 0 never ran dry" 0 $((d[0empty] + d[0dry]))
# A pool page that went up with another flow's frame is the leak the
# reserve exists to stop: the core's rxr_rx_up() counts it, the same rule
# as virtio_flood.sh's and the bench's (report.py's nonprio column).
check_eq "pool pages that went up with another flow's frame" 0 \
	"${d[pool_up_other]}"
echo "# pages lent on queue 0: ${d[0lent]}"
prio=$((d[0priority] + d[1priority]))
if [ "$QUEUES" = 2 ]; then
	check_sampled 1
	echo "# RETA buckets on queue 1 sampled while it lived: $BUCKETS"
	check_eq "queue 1 never ran dry" 0 "${d[1empty]}"
	check_ge "priority frames steered to queue 1" 1 "${d[1steered]}"
	check_ge "priority frames through queue 1 (%)" 95 \
		$((d[1priority] * 100 / (prio > 0 ? prio : 1)))
	# Another flow's frame on queue 1 is copied up (a copy that found no
	# memory counts dropped too) or recycled: its pool page is reposted
	# either way; or it went up in a page of the driver's own (passed).
	check_eq "queue 1: other frames copied or recycled, none kept a page" \
		$((d[1packets] - d[1priority])) \
		$((d[1passed] + d[1recycled] + d[1copied]))
	echo "# RESULT e1000e reserve queue: steered=${d[1steered]}" \
	     "priority_on_queue0=${d[0priority]} rate=$RATE"
else
	check_eq "flow in software (no slot)" -1 \
		"$(echo "$FLOW" | kv slot)"
	check_eq "nothing on queue 1" 0 "${d[1packets]}"
	[ -n "${FPA_ON:-}" ] && check_ge "pool pages lent to queue 0" 1 \
		"${d[0lent]}"
	echo "# RESULT e1000e fallback only: lent=${d[0lent]}" \
	     "lent_delivered=${d[lent_delivered]}" \
	     "recycled=${d[0recycled]} rate=$RATE"
fi
if [ -n "${FPA_ON:-}" ]; then
	check_ge "injected allocation failures seen" 1 "${d[alloc_fail]}"
	check_ge "emergency mode entered" 1 "${d[emergency]}"
fi
check_ok "emergency mode off by itself" \
	poll 100 sh -c "grep '^dev $NIC ' $RXR_PROC | grep -q 'in_emergency 0'"

# Queue 0 with every refill failing.  A refill stops at the first buffer
# it cannot get, and the buffers recycled in emergency mode behind that
# slot wait for it: queue 0 drains to none posted, and QEMU's 82574 then
# receives on neither queue.  The refill that would leave it empty takes
# a few pages of the steered flows' pools (lent_low), which unblocks
# the recycled buffers behind them.  A gated priority transfer is steered
# to queue 1 first; then every atomic page allocation fails
# (fail_page_alloc ignores the ones that may sleep) under the flood until
# queue 0 got that far, and the gate opens: queue 0 is never empty, and
# the transfer comes through queue 1, all of it.
q0_blocked() { [ $(($(estat rx0_rxr_lent_low) - ls0 +
		     $(estat rx0_rxr_dry) - y0 +
		     $(estat rx0_rxr_empty) - e0)) -ge 1 ]; }
q1_moved() { [ $(($(estat rx1_rxr_priority) - p1)) -ge 1000 ]; }
steered() { [ "$(estat rx_reserve_rss_buckets)" -ge 1 ]; }
if [ "$QUEUES" = 2 ] && [ -w "$RXR_FPA/probability" ]; then
	snap
	flood "$RATE" 30 || exit "$ksft_fail"
	hold_start gated "$RXR_SOCK" recv -g "$RXR_PEER4" "$RXR_DATA_PORT" ||
		exit "$ksft_fail"
	GATED=${RXR_HOLD_PID[gated]}
	check_ok "refills failing: gated flow steered to queue 1" \
		poll 100 steered
	ls0=$(estat rx0_rxr_lent_low)
	e0=$(estat rx0_rxr_empty)
	y0=$(estat rx0_rxr_dry)
	p1=$(estat rx1_rxr_priority)
	fpa_on 100
	check_ok "refills failing: queue 0 drained to the failed slot" \
		poll 100 q0_blocked
	# Open the gate: the transfer reads on, its frames on queue 1.
	fd=${RXR_HOLD_FD[gated]}
	exec {fd}>&-
	unset "RXR_HOLD_FD[gated]"
	check_ok "refills failing: priority frames come through queue 1" \
		poll 100 q1_moved
	fpa_off
	timeout 60 tail --pid="$GATED" -f /dev/null
	XFER_OUT=/tmp/rxr_hold.gated.out transfer_result
	flood_wait
	delta
	echo "# queue 0 deltas, refills failing:" \
	     "$(for s in $QSTATS; do printf '%s=%s ' "$s" "${d[0$s]}"; done)"
	check_eq "refills failing: bytes" "$RXR_XFER_BYTES" "$XFER_BYTES"
	check_eq "refills failing: pattern" 1 "$XFER_OK"
	check_ge "refills failing: steered flows' pages on queue 0" 1 \
		"${d[0lent_low]}"
	check_eq "refills failing: queue 0 never ran dry" 0 \
		$((d[0empty] + d[0dry]))
	hold_stop gated
	check_ok "refills failing: emergency mode off by itself" \
		poll 100 sh -c "grep '^dev $NIC ' $RXR_PROC |
				grep -q 'in_emergency 0'"
elif [ "$QUEUES" = 2 ]; then
	echo "# no fail_page_alloc in debugfs: queue 0 with every refill" \
	     "failing not tested"
fi
exit "$RET"
