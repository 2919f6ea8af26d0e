#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A priority TCP connection (SO_RX_RESERVE) receives from the bench's peer
# through virtio-net while the peer floods the same NIC (UDP to a closed
# and an open, unread port, a TCP bulk stream into a plain socket) and
# fail_page_alloc fails atomic page allocations.  With several queue pairs
# and RSS, the flow's RSS bucket points at the reserve queue; with one
# pair, the flow gets the software fallback.  All its data arrives, the
# counters show where its packets came through, and the flood takes no
# reserve buffer.
#
# The flood rate is calibrated first, as the control cell of the bench
# does: the highest of RXR_FLOOD_RATES (packets/s) at which the same
# transfer, with no memory pressure, takes at most twice its time without
# the flood.  Last, the transfer runs under an unpaced flood and its
# throughput is reported, with no bar.
#
# RXR_FLOOD_UNPACED_ONLY=1 runs only that last measurement, with an
# ordinary socket where the kernel has no rx-reserve, so that vanilla and
# patched kernels can be compared in one run.
#
# Needs tests/bench/flood-peer.sh on the peer (RXR_FLOOD_PEER set).

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

BYTES=$RXR_XFER_BYTES
RATES=${RXR_FLOOD_RATES:-50000 25000 12500 6250}
UNPACED_ONLY=${RXR_FLOOD_UNPACED_ONLY:-0}
PIDS=""

rxr_require_nic
rxr_require_cmd ethtool timeout awk
rxr_require_driver virtio_net
if [ "$UNPACED_ONLY" = 1 ] && [ ! -r "$RXR_PROC" ]; then
	PRIO=-n
	if [ ! -x "$RXR_SOCK" ]; then
		echo "SKIP: $RXR_SOCK not built"
		exit "$ksft_skip"
	fi
else
	PRIO=""
	rxr_require_reserve
fi

trap flood_cleanup EXIT
trap 'exit 130' INT TERM

flood_sinks

NQ=$(ethtool -l "$NIC" | awk '$1 == "Combined:" { v = $2 } END { print v }')
echo "# $NIC: $NQ queue pairs in use, RXR_QUEUES=${RXR_QUEUES:-?}"

t0=$(tap_stats)
transfer 60
t1=$(tap_stats)
check_eq "transfer without flood: bytes" "$BYTES" "$XFER_BYTES"
BASE_MS=$XFER_MS
echo "# no flood: $BYTES bytes in $BASE_MS ms"

# Which tap queue did the host's tun deliver the flow on?  A priority flow
# in a bucket transmits on the reserve queue pair, and tun steers a flow
# to the queue it last came from.
if [ -n "$t0" ] && [ -n "$t1" ] && [ "$UNPACED_ONLY" != 1 ]; then
	RQ=$((NQ - 1))
	all=$(tap_delta "$t0" "$t1" all)
	onq=$(tap_delta "$t0" "$t1" "q$RQ")
	echo "# RESULT tun: priority transfer, $onq of $all tap packets on" \
	     "tap queue $RQ"
	if [ "$NQ" -gt 1 ]; then
		check_ge "priority frames tun sent on tap queue $RQ (%)" \
			90 $((onq * 100 / (all > 0 ? all : 1)))
	fi
	t0=$(tap_stats)
	PRIO=-n transfer 60
	t1=$(tap_stats)
	echo "# RESULT tun: ordinary transfer, per tap queue:" \
	     "$(for ((q = 0; q < NQ; q++)); do
		printf 'q%d=%s ' "$q" "$(tap_delta "$t0" "$t1" "q$q")"; done)"
fi

unpaced()
{
	local a b q t v t0 ms c0 c1 e0 e1 per_q cpu

	a=$(tap_stats)
	t0=$(now_ms)
	flood 0 30 || { RET=$ksft_fail; return; }
	sleep 1
	c0=$(grep '^cpu' /proc/stat)
	e0=$(ethtool -S "$NIC")
	transfer 25
	e1=$(ethtool -S "$NIC")
	c1=$(grep '^cpu' /proc/stat)
	# The flood is still on: the answer may take a few retransmits.
	b=$(tap_stats 20)
	ms=$(($(now_ms) - t0))
	# Where the flood went, from its start to the transfer's end: what
	# tun handed to QEMU per tap queue and what it dropped; how busy
	# QEMU's threads and the peer's processes were (% of one host CPU;
	# QEMU's main thread moves every queue's frames), how long QEMU's
	# threads waited for a host CPU, and the host as a whole (% of all
	# its CPUs).  Then the guest's CPUs during the
	# transfer, all together and each.
	per_q="" cpu=""
	for ((q = 0; q < NQ; q++)); do
		per_q+="q$q=$(tap_delta "$a" "$b" "q$q") "
	done
	for t in qemu_main qemu_vcpu qemu_other peer; do
		v=$(tap_delta "$a" "$b" "$t")
		cpu+="${t}_pct=$((v * 1000 / (ms > 0 ? ms : 1))) "
	done
	# How long they waited, runnable, for a host CPU (% of the time).
	for t in qemu_main_wait qemu_vcpu_wait; do
		v=$(tap_delta "$a" "$b" "$t")
		cpu+="${t}_pct=$((v * 100 / (ms > 0 ? ms : 1))) "
	done
	v=$(tap_delta "$a" "$b" host_all)
	for t in host_busy host_softirq; do
		cpu+="${t}_pct=$(($(tap_delta "$a" "$b" "$t") * 100 /
				  (v > 0 ? v : 1))) "
	done
	[ -n "$a" ] && [ -n "$b" ] &&
		echo "# RESULT unpaced_tap ms=$ms" \
		     "tx=$(tap_delta "$a" "$b" tx)" \
		     "drop=$(tap_delta "$a" "$b" drop) $per_q$cpu"
	echo "# RESULT unpaced_guest_cpu $(printf '%s\n%s\n' "$c0" "$c1" |
		awk '{
		# cpuN user nice system idle iowait irq softirq steal
		if (!($1 in seen)) {
			seen[$1] = 1; names[++n] = $1
			for (i = 2; i <= 9; i++) b[$1, i] = $i
			next
		}
		t = 0
		for (i = 2; i <= 9; i++) {
			d[i] = $i - b[$1, i]; t += d[i]
		}
		t = t > 0 ? t : 1
		out[$1] = sprintf("user=%d%% system=%d%% idle=%d%% " \
			"irq=%d%% softirq=%d%%",
			100 * (d[2] + d[3]) / t, 100 * d[4] / t,
			100 * d[5] / t, 100 * d[7] / t, 100 * d[8] / t)
		if ($1 != "cpu")
			sub(/user=/, $1 ":user=", out[$1])
		}
		END {
			s = out["cpu"]
			for (i = 2; i <= n; i++)
				s = s " " out[names[i]]
			print s
		}')"
	# The guest's per-queue receive counters during the transfer (6.12's
	# virtio-net counts packets per queue only in netlink qstats; patched
	# counts them as rxN_rxr_packets; rxN_drops there are its
	# rxN_rxr_recycled and rxN_rxr_dropped).
	echo "# RESULT unpaced_guest_queues $(printf '%s\n%s\n' "$e0" "$e1" |
		awk '$1 ~ /^rx[0-9]+_(drops|kicks):$/ ||
		     $1 ~ /^rx[0-9]+_rxr_(packets|recycled|dropped|empty):$/ {
			k = substr($1, 1, length($1) - 1)
			if (!(k in b)) { b[k] = $2; next }
			printf "%s=%d ", k, $2 - b[k] }')"
	echo "# unpaced: rxr_sock said: $(tr '\n' ' ' < "$XFER_OUT")"
	echo "# unpaced: $XFER_BYTES of $BYTES bytes in $XFER_MS ms" \
	     "($((XFER_BYTES / (XFER_MS > 0 ? XFER_MS : 1))) bytes/ms;" \
	     "no flood $BASE_MS ms)"
	echo "# RESULT unpaced_ms=$XFER_MS unpaced_bytes=$XFER_BYTES" \
	     "base_ms=$BASE_MS prio=${PRIO:-yes} bytes=$BYTES"
	flood_wait
	# No bar for the time; what arrived must be the pattern.
	[ "$XFER_BYTES" -eq 0 ] || check_eq "unpaced: data intact" 1 "$XFER_OK"
}

if [ "$UNPACED_ONLY" = 1 ]; then
	unpaced
	exit "$RET"
fi


# Calibrate: the highest rate the guest carries without memory pressure.
# shellcheck disable=SC2086
calibrate "$BASE_MS" $RATES

# The same flooded transfer with priority flows transmitting where the
# stack puts them (private flag rx-reserve-tx off), for comparison only.
if [ "$NQ" -gt 1 ] &&
   ethtool --set-priv-flags "$NIC" rx-reserve-tx off 2> /dev/null; then
	flood "$RATE" 8 && sleep 1 && transfer 60
	ethtool --set-priv-flags "$NIC" rx-reserve-tx on
	flood_wait
	echo "# RESULT rx-reserve-tx off: $XFER_BYTES bytes in $XFER_MS ms" \
	     "at $RATE pps (on: $CAL_MS ms)"
fi

# The priority transfer under the carried flood, with one atomic page
# allocation in five failing from just before it until the flood ends.
declare -A before
STATS="steered lent lent_delivered recycled copied dropped alloc_fail emergency"
STATS="$STATS pool_up pool_up_other"
QSTATS="packets priority steered recycled copied lent dropped empty"
for s in $STATS; do before[$s]=$(estat "rx_reserve_$s"); done
for s in $QSTATS; do before[q$s]=$(qsum "$s"); done
RQ=$((NQ - 1))
for s in packets priority recycled copied dropped steered; do
	before[r$s]=$(estat "rx${RQ}_rxr_$s")
done
rx0=$(link_stat "$NIC" rx packets)

flood "$RATE" 12 || exit "$ksft_fail"
fpa_on 20 && FPA_ON=1
transfer 90 &
XPID=$!
PIDS="$PIDS $XPID"
# The flow as the core placed it, and the driver's rules, while it lives.
# With several queue pairs, wait for it to reach its bucket.
if [ "$NQ" -gt 1 ]; then
	sample_flow "$XPID" hw
else
	sample_flow "$XPID"
fi
wait "$XPID"
# transfer ran in a subshell: read its result again.
transfer_result
# A short transfer may end before the sampler sees it: take its own view.
FLOW=${FLOW:-$XFER_FLOW}
# Refills keep failing under the flood until it ends.
flood_wait
fpa_off

echo "# flow: $FLOW"
check_eq "flooded transfer: bytes" "$BYTES" "${XFER_BYTES:-0}"
check_eq "flooded transfer: pattern" 1 "$XFER_OK"
check_ge "flood packets received" 1000 \
	$(($(link_stat "$NIC" rx packets) - rx0))

declare -A d
for s in $STATS; do d[$s]=$(($(estat "rx_reserve_$s") - before[$s])); done
for s in $QSTATS; do d[q$s]=$(($(qsum "$s") - before[q$s])); done
for s in packets priority recycled copied dropped steered; do
	d[r$s]=$(($(estat "rx${RQ}_rxr_$s") - before[r$s]))
done
echo "# rx_reserve deltas:" \
     "$(for s in $STATS; do printf '%s=%s ' "$s" "${d[$s]}"; done)"
echo "# per-queue sums:" \
     "$(for s in $QSTATS; do printf '%s=%s ' "$s" "${d[q$s]}"; done)"
ethtool -S "$NIC" | grep -E '_rxr_|rx_reserve_' | sed 's/^ */# /'

if [ "$NQ" -gt 1 ]; then
	check_sampled "$RQ"
	check_ge "priority packets steered to the reserve queue" 1 \
		"${d[rsteered]}"
	echo "# RESULT reserve_queue=$RQ steered=${d[rsteered]}" \
	     "priority_elsewhere=$((d[qpriority] - d[rpriority]))"
	# Every other frame that reached the reserve queue was copied up
	# (a copy whose page allocation failed counts dropped too, its
	# buffers reposted) or recycled: none went up in a pool page.
	nonprio=$((d[rpackets] - d[rpriority]))
	check_ge "reserve queue: non-prio frames copied/recycled" \
		"$nonprio" $((d[rrecycled] + d[rcopied]))
	check_ge "reserve queue: non-prio frames >= copied + recycled" \
		$((d[rrecycled] + d[rcopied])) "$nonprio"
else
	slot=$(kv slot <<< "$FLOW")
	check_eq "flow in software (no slot)" -1 "${slot:-x}"
	echo "# RESULT software fallback: lent=${d[lent]}" \
	     "lent_delivered=${d[lent_delivered]} recycled=${d[recycled]}"
fi
if [ -n "${FPA_ON:-}" ]; then
	check_ge "injected allocation failures seen" 1 "${d[alloc_fail]}"
	check_ge "emergency mode entered" 1 "${d[emergency]}"
fi
check_eq "pool pages that went up with another flow's frame" 0 \
	"${d[pool_up_other]}"
check_ok "emergency mode off by itself" \
	poll 100 sh -c "grep '^dev $NIC ' $RXR_PROC | grep -q 'in_emergency 0'"

unpaced
exit "$RET"
