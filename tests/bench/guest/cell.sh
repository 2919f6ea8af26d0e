#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cell.sh: one cell of `make bench`, run in the guest by tests/bench/bench.sh
# (qemu-run.sh puts it at /rxr/cell.sh and memload at /rxr/memload).  The
# peer side runs flood-peer.sh and nbd-peer.sh or iscsi-peer.sh.
#
# Environment:
#   CELL_MODE     oom | calibrate | deliver | tput | read       (oom)
#   CELL_STORAGE  nbd | iscsi                                   (nbd)
#   CELL_RATE     flood rate in packets/s, 0 unpaced, -1 none   (-1)
#   CELL_RATES    calibrate, deliver: the rates to try, highest first
#   CELL_PROCS CELL_MIB   oom: memload's processes and MiB each (4, 192)
#   CELL_HANG     oom: seconds without progress that make a hang (120)
#   CELL_LIMIT    oom: seconds the load may take in all         (480)
#   CELL_CTL_MIB  the control transfer, MiB                     (16)
#   CELL_READ_MIB read: MiB read from the raw device            (256)
#
# Prints "RESULT key=value ..." lines, memload's "T ..." progress lines and,
# at the end, the NIC's ethtool view.  bench.sh reads them; nothing here
# judges a result.

source /kselftest/drivers/net/rx_reserve/rxr_lib.sh

MODE=${CELL_MODE:-oom}
STORAGE=${CELL_STORAGE:-nbd}
RATE=${CELL_RATE:--1}
PROCS=${CELL_PROCS:-4}
MIB=${CELL_MIB:-192}
HANG=${CELL_HANG:-120}
LIMIT=${CELL_LIMIT:-480}
CTL_MIB=${CELL_CTL_MIB:-16}
IQN=iqn.2026-12.org.example.rx-reserve:disk
DEV=""
ISCSID=""
S0=/tmp/cell.before
S1=/tmp/cell.after

say() { echo "RESULT $*"; }

cleanup()
{
	hold_stop_all 2> /dev/null
	rm -f /tmp/cell.ctl
}
trap cleanup EXIT

NIC=$(rxr_nic) || { say error=no_nic; exit 1; }

storage_up()
{
	local d

	case "$STORAGE" in
	nbd)
		DEV=/dev/nbd0
		nbd-client "$RXR_PEER4" 10809 "$DEV" -N rxr > /tmp/nbd.log 2>&1 ||
			{ cat /tmp/nbd.log; return 1; }
		;;
	iscsi)
		mkdir -p /etc/iscsi/nodes /etc/iscsi/send_targets /run/lock/iscsi
		setsid iscsid -f > /tmp/iscsid.log 2>&1 &
		ISCSID=$!
		slowwait 10 sh -c 'iscsiadm -m session > /dev/null 2>&1; [ $? -eq 21 ]'
		iscsiadm -m discovery -t sendtargets -p "$RXR_PEER4" > /dev/null &&
			iscsiadm -m node -T "$IQN" -p "$RXR_PEER4" --login > /dev/null ||
			{ cat /tmp/iscsid.log; return 1; }
		d=$(slowwait 20 iscsi_disk) || return 1
		DEV=/dev/$d
		;;
	*)
		echo "cell: bad CELL_STORAGE $STORAGE"
		return 1
		;;
	esac
	# The storage socket is a priority flow on a patched kernel.
	if [ -r /proc/net/rx_reserve ]; then
		say flows="$(proc_global flows)"
	fi
}

# snapshot FILE: the counters the cell reports, as "name value" lines.
snapshot()
{
	{
		awk '{ print "vm." $1, $2 }' /proc/vmstat
		# The guest's CPU time (USER_HZ ticks, all CPUs): softirq is
		# where its RX path, and a flood's frames, run.
		awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i
			print "cpu.softirq", $8; print "cpu.total", t }' \
			/proc/stat
		# Interrupts per source, all CPUs: each RX queue's vector
		# (virtio0-input.N, eth0-rx-N).
		awk '$1 ~ /^[0-9]+:$/ { n = 0
			for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i
			print "irq." $NF, n }' /proc/interrupts
		awk 'NR % 2 == 1 { split($0, k) } NR % 2 == 0 {
			for (i = 2; i <= NF; i++) print "net." k[1] k[i], $i }' \
			/proc/net/netstat /proc/net/snmp | sed 's/: */./'
		timeout 10 ethtool -S "$NIC" 2> /dev/null |
			awk -F: 'NF == 2 { gsub(/ /, "", $1); gsub(/ /, "", $2);
				print "eth." $1, $2 }'
		# The host's side, from the peer (flood-peer.sh): frames its
		# tap handed to QEMU and dropped, per tap queue and in all, and
		# the CPU ticks of QEMU's threads, of the peer and of the host.
		tap_stats 5 | tr ' ' '\n' |
			awk -F= 'NF == 2 && $2 ~ /^[0-9]+$/ { print "host." $1, $2 }'
	} > "$1" 2> /dev/null
}

# deltas: "DELTA name value" for every counter that moved, after - before.
deltas()
{
	awk 'NR == FNR { b[$1] = $2; next }
	     ($2 - b[$1]) != 0 { print "DELTA", $1, $2 - b[$1] }' "$S0" "$S1"
}

# tput_where: "rxq=N softirq_pct=P" for the span between $S0 and $S1: the
# RX queue whose interrupt fired most (virtio-net's inputN, e1000e's
# rx-N; "-" when none fired) and the guest's CPU time in softirq, percent
# of all its CPU time.
tput_where()
{
	awk 'NR == FNR { b[$1] = $2; next }
	     { d = $2 - b[$1] }
	     $1 ~ /^irq\..*(input\.|rx-)[0-9]+$/ && d > best {
		best = d; bq = $1; sub(/.*[^0-9]/, "", bq) }
	     $1 == "cpu.softirq" { s = d }
	     $1 == "cpu.total" { t = d }
	     END {
		printf("rxq=%s softirq_pct=%.1f", (bq == "" ? "-" : bq),
		       (t > 0 ? 100 * s / t : -1)) }' "$S0" "$S1"
}

# dmesg_count REGEX
dmesg_count() { dmesg | grep -cE "$1"; }

# control: CTL_MIB MiB written to and read from the raw device with
# O_DIRECT, no memory pressure: sets CTL_W and CTL_R (ms, or -1 when it did
# not finish in 60 s).
control()
{
	local t0

	[ -f /tmp/cell.ctl ] ||
		head -c $((CTL_MIB << 20)) /dev/urandom > /tmp/cell.ctl
	t0=$(now_ms)
	if timeout 60 dd if=/tmp/cell.ctl of="$DEV" bs=1M oflag=direct \
	   status=none; then
		CTL_W=$(($(now_ms) - t0))
	else
		CTL_W=-1
	fi
	t0=$(now_ms)
	if timeout 60 dd if="$DEV" of=/dev/null bs=1M count="$CTL_MIB" \
	   iflag=direct status=none; then
		CTL_R=$(($(now_ms) - t0))
	else
		CTL_R=-1
	fi
}

# flood_on RATE SECONDS: the peer floods the guest (nothing for RATE -1).
flood_on()
{
	[ "$1" -lt 0 ] && return 0
	if [ -z "${RXR_HOLD_PID[udp]:-}" ]; then
		flood_sinks || return 1
	fi
	flood "$1" "$2"
}

show()
{
	echo "--- ethtool -S $NIC"
	timeout 10 ethtool -S "$NIC" | grep -E 'rx_reserve|rxr|alloc|no_buf|drop' |
		grep -vE ': 0$' | head -n 80
	if [ -r /proc/net/rx_reserve ]; then
		echo "--- ethtool --show-rx-reserve $NIC"
		timeout 10 ethtool --show-rx-reserve "$NIC"
	fi
}

report_after()
{
	snapshot "$S1"
	deltas
	say hung_tasks="$(dmesg_count 'blocked for more than')" \
	    oom_msgs="$(dmesg_count 'Out of memory: Killed')" \
	    io_errors="$(dmesg_count 'I/O error|Write-error on swap|Read-error on swap|critical medium error')" \
	    nbd_stuck="$(dmesg_count 'Possible stuck request|nbd.*timed out|connection.*timed out')"
	[ -r /proc/net/rx_reserve ] && head -n 2 /proc/net/rx_reserve |
		sed 's/^/PROC /'
	show
}

storage_up || { say error=storage_setup; exit 1; }
say storage="$STORAGE" dev="$DEV" nic="$NIC" kernel="$(uname -r)"

case "$MODE" in
calibrate)
	control
	say calib_rate=-1 ctl_write_ms="$CTL_W" ctl_read_ms="$CTL_R"
	base=$((CTL_W + CTL_R))
	carried=""
	for r in ${CELL_RATES:-100000 70000 50000 35000 20000 10000}; do
		flood_on "$r" 20 || break
		control
		flood_wait
		say calib_rate="$r" ctl_write_ms="$CTL_W" ctl_read_ms="$CTL_R"
		if [ "$CTL_W" -ge 0 ] && [ "$CTL_R" -ge 0 ] &&
		   [ $((CTL_W + CTL_R)) -le $((2 * base)) ]; then
			carried=$r
			break
		fi
	done
	say carried_rate="${carried:-none}" base_ms="$base"
	;;
deliver)
	# The flood rate the host's tap delivers whole: the first of
	# CELL_RATES (highest first, 0 unpaced) at which tun drops at most
	# 1 % of what it is given for the guest.  Above it, the flood is cut
	# at the tap, before any queue, for every flow alike; at it, the
	# guest is the bottleneck.
	delivered=""
	for r in ${CELL_RATES:-0 200000 150000 100000 70000 50000 35000 20000}; do
		a=$(tap_stats)
		rx0=$(link_stat "$NIC" rx packets)
		flood_on "$r" 10 || { say error=flood; break; }
		flood_wait
		b=$(tap_stats)
		rx1=$(link_stat "$NIC" rx packets)
		if [ -z "$a" ] || [ -z "$b" ]; then
			say error=tap_stats
			break
		fi
		tx=$(tap_delta "$a" "$b" tx)
		drop=$(tap_delta "$a" "$b" drop)
		say deliver_rate="$r" tap_tx="$tx" tap_drop="$drop" \
		    guest_rx=$((rx1 - rx0)) seconds=10
		if [ $((drop * 100)) -le $((tx + drop)) ]; then
			delivered=$r
			break
		fi
	done
	say delivered_rate="${delivered:-none}"
	;;
read)
	# CELL_READ_MIB MiB read from the raw device with O_DIRECT, the
	# device over again as often as it takes: no pressure, no flood.
	want=${CELL_READ_MIB:-256}
	dmib=$(($(blockdev --getsize64 "$DEV") >> 20))
	[ "$dmib" -gt 0 ] || { say error=no_size; exit 1; }
	t0=$(now_ms)
	ok=1
	for ((done = 0; done < want; done += n)); do
		n=$((want - done < dmib ? want - done : dmib))
		if ! timeout 120 dd if="$DEV" of=/dev/null bs=1M count="$n" \
		     iflag=direct status=none; then
			ok=0
			break
		fi
	done
	say read storage="$STORAGE" mib="$want" ms=$(($(now_ms) - t0)) \
	    ok="$ok"
	;;
tput)
	# A non-priority TCP stream with the storage flow armed, no pressure.
	for i in 1 2 3; do
		snapshot "$S0"
		PRIO=-n transfer 60
		snapshot "$S1"
		say tput_run="$i" bytes="$XFER_BYTES" ms="$XFER_MS" \
		    ok="$XFER_OK" $(tput_where)
	done
	;;
oom)
	snapshot "$S0"
	# The control under a flood of its own, then one for the load: the
	# peer takes a request once the last flood is over.
	flood_on "$RATE" 15 || say error=flood
	control
	say ctl_write_ms="$CTL_W" ctl_read_ms="$CTL_R" rate="$RATE"
	if [ "$RATE" -ge 0 ]; then
		flood_wait
		flood_on "$RATE" 600 || say error=flood
	fi
	if ! timeout 60 mkswap "$DEV" > /dev/null ||
	   ! timeout 60 swapon "$DEV"; then
		say load=swap_setup_failed seconds=0
		report_after
		exit 1
	fi
	say swap_on=1
	rxr_dump=()
	[ -r /proc/net/rx_reserve ] && rxr_dump=(-R /proc/net/rx_reserve)
	/rxr/memload -p "$PROCS" -m "$MIB" -H "$HANG" -T "$LIMIT" -S -B 60 \
		"${rxr_dump[@]}"
	rc=$?
	case "$rc" in
	0) say load=done ;;
	1) say load=failed ;;
	3) say load=hang ;;
	4) say load=limit ;;
	*) say load=error rc="$rc" ;;
	esac
	report_after
	;;
*)
	say error=bad_mode
	exit 1
	;;
esac
exit 0
