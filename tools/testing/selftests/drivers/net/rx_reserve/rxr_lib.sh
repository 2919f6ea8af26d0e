#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the rx_reserve selftests.  They run in a guest of the
# rx-reserve QEMU bench, whose peer side is described by the environment
# (RXR_NIC, RXR_QUEUES, RXR_PEER4, RXR_PEER6, RXR_NBD_PORT), or on a machine
# that sets the same variables.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/../../../net/lib.sh"

RET=0

# rxr_require_cmd CMD...: skip the test unless every CMD is available.
rxr_require_cmd()
{
	local c

	for c in "$@"; do
		if ! command -v "$c" > /dev/null; then
			echo "SKIP: $c not available"
			exit "$ksft_skip"
		fi
	done
}

# rxr_nic: the bench's NIC, the first device with a PCI parent.
rxr_nic()
{
	local d

	for d in /sys/class/net/*; do
		case "$(readlink -f "$d/device" 2>/dev/null)" in
		*/pci*) ;;
		*) continue ;;
		esac
		basename "$d"
		return 0
	done
	return 1
}

# rxr_nics: the guest's NICs with a PCI parent, in name order, one a line.
rxr_nics()
{
	local d

	for d in /sys/class/net/*; do
		case "$(readlink -f "$d/device" 2>/dev/null)" in
		*/pci*) basename "$d" ;;
		esac
	done
}

# rxr_require_nic: set NIC, or skip when the bench gave this guest none.
rxr_require_nic()
{
	if [ "${RXR_NIC:-none}" = none ] || ! NIC=$(rxr_nic); then
		echo "SKIP: no NIC cabled to a peer (RXR_NIC=${RXR_NIC:-unset})"
		exit "$ksft_skip"
	fi
}

# rxr_require_nic2: skip unless the bench gave this guest a second NIC
# (qemu-run.sh --nic2); set N1 and N2, its two NICs in name order (the
# first carries the bench's addresses), and NIC to N1.
rxr_require_nic2()
{
	rxr_require_nic
	if [ "${RXR_NIC2:-none}" = none ]; then
		echo "SKIP: no second NIC (qemu-run.sh --nic2)"
		exit "$ksft_skip"
	fi
	if ! rxr_nic2_wait; then
		echo "FAIL: two NICs expected, found $(rxr_nics | xargs)"
		exit "$ksft_fail"
	fi
}

# rxr_two_nics: this namespace has two NICs; sets N1, N2 and NIC (N1).
rxr_two_nics()
{
	local nics

	mapfile -t nics <<< "$(rxr_nics)"
	[ "${#nics[@]}" -ge 2 ] || return 1
	N1=${nics[0]} N2=${nics[1]} NIC=${nics[0]}
}

# rxr_nic2_wait: rxr_two_nics within 10 s.  A NIC that an earlier test
# moved into a namespace comes back when that namespace is gone, which
# the kernel completes after "ip netns del" returned.
rxr_nic2_wait() { poll 100 rxr_two_nics; }

# rxr_nic2_ns NS ADDR WHAT: move the second NIC (N2) into a new namespace
# NS with ADDR, for a peer this guest runs itself behind the bench's
# bridge; check that WHAT answers there.  The caller deletes NS.
rxr_nic2_ns()
{
	ip netns add "$1" || return 1
	ip link set "$N2" netns "$1" &&
		ip -n "$1" link set lo up &&
		ip -n "$1" link set "$N2" up &&
		ip -n "$1" addr add "$2/$RXR_PREFIX4" dev "$N2" || return 1
	check_ok "$3 answers" poll 100 rxr_pings "$2"
}

# rxr_pings ADDR: ADDR answers a ping within a second.
rxr_pings()
{
	ping -c 1 -W 1 -q "$1" > /dev/null 2>&1
}

# check_eq WHAT EXPECTED ACTUAL: log a check, remember a failure.
check_eq()
{
	if [ "$2" = "$3" ]; then
		printf 'PASS: %s (%s)\n' "$1" "$3"
	else
		printf 'FAIL: %s: expected %s, got %s\n' "$1" "$2" "$3"
		RET=$ksft_fail
	fi
}

# check_ok WHAT CMD...: log whether CMD succeeds, remember a failure;
# returns CMD's success.
check_ok()
{
	local what=$1

	shift
	if "$@"; then
		printf 'PASS: %s\n' "$what"
	else
		printf 'FAIL: %s: %s failed\n' "$what" "$*"
		RET=$ksft_fail
		return 1
	fi
}

# check_fail WHAT CMD...: log whether CMD fails, remember a success.
check_fail()
{
	local what=$1

	shift
	if "$@" 2> /dev/null; then
		printf 'FAIL: %s: %s succeeded\n' "$what" "$*"
		RET=$ksft_fail
	else
		printf 'PASS: %s\n' "$what"
	fi
}

# check_ge WHAT MIN ACTUAL
check_ge()
{
	if [ "$3" -ge "$2" ] 2>/dev/null; then
		printf 'PASS: %s (%s >= %s)\n' "$1" "$3" "$2"
	else
		printf 'FAIL: %s: expected at least %s, got %s\n' "$1" "$2" "$3"
		RET=$ksft_fail
	fi
}

# link_stat DEV rx|tx bytes|packets [NS]: a device's counter.
link_stat()
{
	local f=/sys/class/net/$1/statistics/$2_$3

	if [ -n "${4:-}" ]; then
		ip netns exec "$4" cat "$f"
	else
		cat "$f"
	fi
}

# blk_rw_check DEV MIB: write MIB MiB of random data to block device DEV,
# drop the page cache, read it back through $NIC and compare.  The read's
# bytes are counted on $NIC's rx, or by BLK_RX_STAT ("DEV rx|tx bytes
# [NS]": the sending end, for a device that counts no rx).
blk_rw_check()
{
	local dev=$1 mib=$2 want rx0 rx

	check_ge "$dev size" $((mib << 20)) "$(blockdev --getsize64 "$dev")"
	head -c $((mib << 20)) /dev/urandom > /tmp/rxr_blk.out
	want=$(sha256sum < /tmp/rxr_blk.out | cut -d' ' -f1)
	check_ok "write of $mib MiB to $dev" \
		dd if=/tmp/rxr_blk.out of="$dev" bs=1M conv=fsync status=none

	blockdev --flushbufs "$dev"
	echo 3 > /proc/sys/vm/drop_caches
	# shellcheck disable=SC2206 # words: DEV rx|tx bytes [NS]
	rx=(${BLK_RX_STAT:-$NIC rx bytes})
	rx0=$(link_stat "${rx[@]}")
	dd if="$dev" of=/tmp/rxr_blk.in bs=1M count="$mib" status=none
	check_eq "read back of $mib MiB from $dev" "$want" \
		"$(sha256sum < /tmp/rxr_blk.in | cut -d' ' -f1)"
	check_ge "${rx[0]} ${rx[1]} bytes during the read" $((mib << 20)) \
		$(($(link_stat "${rx[@]}") - rx0))
	rm -f /tmp/rxr_blk.out /tmp/rxr_blk.in
}

# iscsi_disk: the block device of the iSCSI session's LUN, once it
# appeared.
iscsi_disk()
{
	local b

	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] && basename "$b" && return 0
	done
	return 1
}

# iscsid_start: iscsid in the background (ISCSID, for the caller's
# cleanup to kill), once it answers.
iscsid_start()
{
	mkdir -p /etc/iscsi/nodes /etc/iscsi/send_targets /run/lock/iscsi
	# A session of its own: iscsid signals its whole process group on
	# exit.
	setsid iscsid -f > /tmp/iscsid.log 2>&1 &
	ISCSID=$!
	# iscsiadm exits 21 (no sessions) once iscsid answers.
	slowwait 10 sh -c \
		'iscsiadm -m session > /dev/null 2>&1; [ $? -eq 21 ]'
}

# kv KEY: the value after KEY in the "key value ..." lines of stdin.
kv()
{
	awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# rxr_check_kernel_flow WHAT REMOTE: a kernel socket to REMOTE (ADDR:PORT)
# is a priority flow on $NIC, marked by sk_set_memalloc(), with its pool.
rxr_check_kernel_flow()
{
	local line

	if [ ! -r /proc/net/rx_reserve ]; then
		echo "# $1: no /proc/net/rx_reserve (kernel without rx-reserve)"
		return 0
	fi
	line=$(awk -v d="$NIC" -v r="$2" \
		'$1 == "flow" && $2 == d && $8 == r && $NF == "memalloc"' \
		/proc/net/rx_reserve | head -n 1)
	check_ok "$1 is a priority flow on $NIC" test -n "$line"
	[ -n "$line" ] || return 0
	check_ge "$1 flow pool pages" 1 "$(kv pool <<< "$line")"
}

# --- netdevsim pairs ---

NSIM_BUS=/sys/bus/netdevsim
RXR_SOCK=$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_sock
RXR_PROC=/proc/net/rx_reserve

# rxr_require_reserve: skip unless the kernel has rx-reserve and rxr_sock
# is built.
rxr_require_reserve()
{
	if [ ! -r "$RXR_PROC" ]; then
		echo "SKIP: $RXR_PROC missing: kernel without CONFIG_RX_RESERVE"
		exit "$ksft_skip"
	fi
	if [ ! -x "$RXR_SOCK" ]; then
		echo "SKIP: $RXR_SOCK not built"
		exit "$ksft_skip"
	fi
}

# nsim_load: load netdevsim where it is a module not loaded yet.
nsim_load()
{
	[ -d "$NSIM_BUS" ] || modprobe -q netdevsim 2> /dev/null
}

# nsim_require: skip unless netdevsim, rx-reserve and rxr_sock are here.
nsim_require()
{
	nsim_load
	if [ ! -w "$NSIM_BUS/new_device" ] ||
	   [ ! -w "$NSIM_BUS/link_device" ]; then
		echo "SKIP: netdevsim with link_device is not available"
		exit "$ksft_skip"
	fi
	rxr_require_reserve
	rxr_require_cmd ethtool ip
}

# nsim_new ID QUEUES NS: a one-port netdevsim device with QUEUES queues,
# moved into NS; prints its name.
nsim_new()
{
	local dev

	echo "$1 1 $2" > "$NSIM_BUS/new_device" || return 1
	dev=$(slowwait 5 ls "$NSIM_BUS/devices/netdevsim$1/net/") || return 1
	ip link set "$dev" netns "$3" || return 1
	echo "$dev"
}

# nsim_link NS_A DEV_A NS_B DEV_B: link two netdevsim ports; an empty
# NS is this namespace.
nsim_link()
{
	local fd_a fd_b idx_a idx_b rc
	local ns_a=/proc/self/ns/net ns_b=/proc/self/ns/net

	[ -n "$1" ] && ns_a=/run/netns/$1
	[ -n "$3" ] && ns_b=/run/netns/$3
	idx_a=$(ip ${1:+-n "$1"} -o link show "$2" | cut -d: -f1)
	idx_b=$(ip ${3:+-n "$3"} -o link show "$4" | cut -d: -f1)
	exec {fd_a}< "$ns_a"
	exec {fd_b}< "$ns_b"
	echo "$fd_a:$idx_a $fd_b:$idx_b" > "$NSIM_BUS/link_device"
	rc=$?
	exec {fd_a}<&- {fd_b}<&-
	return "$rc"
}

# nsim_pair QUEUES [second]: two linked netdevsim ports with QUEUES queues each,
# DEV_A (198.51.100.1) in NS_A and DEV_B (198.51.100.2) in NS_B.  Sets
# ID_A, ID_B, IDX_B (DEV_B's ifindex) and DFS_B, the rx_reserve debugfs
# directory of DEV_B.  With "second", after the first: a second pair, DEV_C
# (198.51.101.1) in NS_C and DEV_D (198.51.101.2) in NS_D, and ID_C,
# ID_D, IDX_D, DFS_D.
nsim_pair()
{
	local a=A b=B net=198.51.100 base=0

	if [ "${2:-}" = second ]; then
		a=C b=D net=198.51.101 base=$((ID_A + 1024))
	else
		ID_A=$((RANDOM % 512 + 1))
		base=$ID_A
	fi
	local -n id_a=ID_$a id_b=ID_$b ns_a=NS_$a ns_b=NS_$b
	local -n dev_a=DEV_$a dev_b=DEV_$b dfs_b=DFS_$b idx_b=IDX_$b

	id_a=$base
	id_b=$((base + 512))
	setup_ns "NS_$a" "NS_$b" || return 1
	dev_a=$(nsim_new "$id_a" "$1" "$ns_a") || return 1
	dev_b=$(nsim_new "$id_b" "$1" "$ns_b") || return 1
	dfs_b=/sys/kernel/debug/netdevsim/netdevsim$id_b/ports/0/rx_reserve
	ip -n "$ns_a" addr add "$net.1/24" dev "$dev_a"
	ip -n "$ns_b" addr add "$net.2/24" dev "$dev_b"
	ip -n "$ns_a" link set "$dev_a" up
	ip -n "$ns_b" link set "$dev_b" up
	idx_b=$(ip -n "$ns_b" -o link show "$dev_b" | cut -d: -f1)
	nsim_link "$ns_a" "$dev_a" "$ns_b" "$dev_b" || return 1
	# Resolve the neighbours now: a test that makes refill fail drops
	# every non-priority frame, ARP replies included.
	ip netns exec "$ns_a" ping -c 1 -W 5 -q "$net.2" > /dev/null &&
		ip netns exec "$ns_b" ping -c 1 -W 5 -q "$net.1" > /dev/null
}

# nsim_pair_cleanup: delete the devices of both pairs and the namespaces.
nsim_pair_cleanup()
{
	local id

	for id in ${ID_A:-} ${ID_B:-} ${ID_C:-} ${ID_D:-}; do
		[ -e "$NSIM_BUS/devices/netdevsim$id" ] &&
			echo "$id" > "$NSIM_BUS/del_device"
	done
	cleanup_all_ns
}

# stat_b NAME: an ethtool -S counter of DEV_B.
stat_b()
{
	ip netns exec "$NS_B" ethtool -S "$DEV_B" |
		awk -v k="$1:" '$1 == k { print $2 }'
}

# stat_b_is NAME VALUE: for poll.
stat_b_is() { [ "$(stat_b "$1")" = "$2" ]; }

# proc_global KEY: a value of the first line of /proc/net/rx_reserve.
proc_global() { head -n 1 "$RXR_PROC" | kv "$1"; }

# poll TENTHS CMD...: until CMD succeeds, at most TENTHS tenths of a second.
poll()
{
	local n=$1 i

	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

# Held processes: each runs with stdin on a fifo this shell keeps open,
# so that closing the fifo ends it.
declare -A RXR_HOLD_PID RXR_HOLD_FD

# hold_start NAME CMD...: start CMD; wait for its "port N" line (HOLD_PORT).
hold_start()
{
	local name=$1 fifo=/tmp/rxr_hold.$1 i fd

	shift
	rm -f "$fifo" "$fifo.out"
	mkfifo "$fifo"
	# The child must not keep the other holds' fifos open.
	(
		for fd in "${RXR_HOLD_FD[@]}"; do
			eval "exec $fd>&-"
		done
		exec "$@"
	) < "$fifo" > "$fifo.out" &
	RXR_HOLD_PID[$name]=$!
	exec {fd}> "$fifo"
	RXR_HOLD_FD[$name]=$fd
	for ((i = 0; i < 100; i++)); do
		HOLD_PORT=$(awk '$1 == "port" { print $2 }' "$fifo.out")
		[ -n "$HOLD_PORT" ] && return 0
		kill -0 "${RXR_HOLD_PID[$name]}" 2> /dev/null || break
		sleep 0.1
	done
	echo "FAIL: $* did not start"
	RET=$ksft_fail
	return 1
}

# hold_stop NAME: close its fifo and wait for it.
hold_stop()
{
	local fd=${RXR_HOLD_FD[$1]:-} pid=${RXR_HOLD_PID[$1]:-}

	[ -n "$fd" ] && exec {fd}>&-
	[ -n "$pid" ] && timeout 10 tail --pid="$pid" -f /dev/null
	unset "RXR_HOLD_FD[$1]" "RXR_HOLD_PID[$1]"
	rm -f "/tmp/rxr_hold.$1" "/tmp/rxr_hold.$1.out"
}

# hold_stop_all
hold_stop_all()
{
	local name

	for name in "${!RXR_HOLD_PID[@]}"; do
		hold_stop "$name"
	done
}

# --- Driver tests against the bench's flood peer (tests/bench/flood-peer.sh)

RXR_DATA_PORT=7100	# the peer serves RXR_FLOOD_BYTES of pattern here
RXR_CTL_PORT=7101	# "RATE SECONDS": the peer floods the guest
RXR_STATS_PORT=7102	# the peer's tap: "q0=N ... tx=N drop=N"
RXR_FPA=/sys/kernel/debug/fail_page_alloc
RXR_FSLAB=/sys/kernel/debug/failslab

# text_range NAME...: "0xSTART 0xEND", the kernel text from the first of
# the named functions (those /proc/kallsyms has) to the symbol after the
# last, for fault injection's stack filter (require-start, require-end).
# Addresses are hex strings of one width: they compare as strings.
text_range()
{
	local re first last next syms

	syms=$(awk '$2 == "t" || $2 == "T"' /proc/kallsyms)
	re=$(IFS='|'; echo "$*")
	read -r first last <<< "$(awk -v re="^($re)\$" '$3 ~ re {
		if (f == "" || $1 < f) f = $1; if ($1 > l) l = $1 }
		END { print f, l }' <<< "$syms")"
	[ -n "$last" ] || return 1
	next=$(awk -v a="$last" '$1 > a && (n == "" || $1 < n) { n = $1 }
		END { print n }' <<< "$syms")
	[ -n "$next" ] || return 1
	# Sanity: one object file's worth of text, not half the kernel.
	[ $((16#$next - 16#$first)) -gt 0 ] &&
		[ $((16#$next - 16#$first)) -lt $((1 << 20)) ] || return 1
	echo "0x$first 0x$next"
}
RXR_XFER_BYTES=${RXR_FLOOD_BYTES:-16777216}

# rxr_require_driver DRIVER: skip unless $NIC is driven by DRIVER and the
# bench gave a flood peer, and, on the debug kernel (lockdep: /proc/lockdep),
# too slow under TCG for e1000e's MSI self test, unless $NIC has a link:
# e1000e then falls back to INTx, which QEMU's machine routes nowhere for it
# ("no GSI"), and it never sees one.  On any other kernel a failed MSI self
# test is a failure: the tests go on and find no link.
rxr_require_driver()
{
	if [ -z "${RXR_FLOOD_PEER:-}" ]; then
		echo "SKIP: no flood peer (RXR_FLOOD_PEER unset)"
		exit "$ksft_skip"
	fi
	if [ "$(ethtool -i "$NIC" | awk '$1 == "driver:" { print $2 }')" != \
	     "$1" ]; then
		echo "SKIP: $NIC is not $1"
		exit "$ksft_skip"
	fi
	if [ "$1" = e1000e ] && [ -e /proc/lockdep ] &&
	   [ "$(cat "/sys/class/net/$NIC/carrier" 2> /dev/null)" != 1 ] &&
	   dmesg | grep -q "$NIC: MSI interrupt test failed"; then
		echo "SKIP: $NIC failed its MSI self test and has no link" \
		     "on legacy interrupts"
		exit "$ksft_skip"
	fi
}

# estat NAME: an ethtool -S counter of $NIC, 0 if absent.
estat()
{
	ethtool -S "$NIC" |
		awk -v k="$1:" '$1 == k { v = $2 } END { print v + 0 }'
}

# qsum STAT: a per-queue rx-reserve counter (rxN_rxr_STAT) summed over the
# queues.
qsum()
{
	ethtool -S "$NIC" | awk -v s="_rxr_$1:" '
		$1 ~ /^rx[0-9]+_rxr_/ &&
		substr($1, length($1) - length(s) + 1) == s { v += $2 }
		END { print v + 0 }'
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# tap_stats [SECONDS]: the peer's tap toward the guest,
# "q0=N q1=N ... tx=N drop=N":
# packets per tap queue, all packets tun handed to QEMU, and those it
# dropped (tests/bench/flood-peer.sh); then CPU figures.  Empty when the
# peer does not answer within SECONDS (default 5).
tap_stats()
{
	local peer=/dev/tcp/$RXR_PEER4/$RXR_STATS_PORT

	timeout "${1:-5}" bash -c "exec 3<>$peer && cat <&3" 2> /dev/null
}

# tap_delta BEFORE AFTER KEY: how much KEY (q0, q1, ..., tx, drop) grew
# between two tap_stats lines; KEY "all": every tap queue.
tap_delta()
{
	awk -v a="$1" -v b="$2" -v q="$3" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) {
			split(x[i], u, "="); split(y[i], v, "=")
			if ((q == "all" && u[1] ~ /^q[0-9]+$/) || u[1] == q)
				d += v[2] - u[2]
		}
		print d + 0 }'
}

# flood RATE SECONDS: ask the peer for a flood (RATE 0: unpaced) and wait
# until it arrives.  Sets FLOOD_END.
flood()
{
	FLOOD_RX0=$(link_stat "$NIC" rx packets)
	if ! timeout 10 "$RXR_SOCK" say "$RXR_CTL_PORT" "$1 $2"; then
		echo "# the peer did not take the flood request"
		return 1
	fi
	FLOOD_END=$(($(date +%s) + $2))
	poll 50 flood_arrived || { echo "# no flood arrived"; return 1; }
}

flood_arrived()
{
	[ $(($(link_stat "$NIC" rx packets) - FLOOD_RX0)) -ge 500 ]
}

# flood_wait: until the last flood is over, plus a second to drain.
flood_wait()
{
	local left=$((FLOOD_END - $(date +%s) + 1))

	[ "$left" -gt 0 ] && sleep "$left"
	return 0
}

# flood_sinks: the open UDP port and the TCP bulk stream's socket of the
# flood, never read.
flood_sinks()
{
	hold_start udp "$RXR_SOCK" udpsink 5001
	hold_start tcp "$RXR_SOCK" tcpsink 5002
	poll 50 sh -c "netstat -ltn | grep -q ':5002 '"
}

# transfer LIMIT: receive the peer's data once, as a priority flow unless
# PRIO=-n; sets XFER_MS, XFER_BYTES and XFER_OK (the pattern checked).
# The output stays in $XFER_OUT.
XFER_OUT=/tmp/rxr_transfer.out
transfer()
{
	local t0

	t0=$(now_ms)
	# shellcheck disable=SC2086
	timeout "$1" "$RXR_SOCK" recv ${PRIO:-} "$RXR_PEER4" \
		"$RXR_DATA_PORT" > "$XFER_OUT"
	XFER_MS=$(($(now_ms) - t0))
	transfer_result
}

# transfer_result: XFER_BYTES, XFER_OK and XFER_FLOW (the flow's /proc
# line as rxr_sock read it while the socket lived) from $XFER_OUT, for a
# transfer that ran in the background.
transfer_result()
{
	XFER_FLOW=$(sed -n 's/^flow: //p' "$XFER_OUT")
	XFER_BYTES=$(kv bytes < "$XFER_OUT")
	XFER_BYTES=${XFER_BYTES:-0}
	grep -q "pattern ok" "$XFER_OUT" && XFER_OK=1 || XFER_OK=0
}

# calibrate BASE_MS RATE...: the highest RATE (packets/s, highest first)
# at which the transfer, with no memory pressure, takes at most twice
# BASE_MS, as the bench's control cell does; sets RATE and CAL_MS, or
# the lowest rate if none is carried.
calibrate()
{
	local base=$1 r

	shift
	RATE=""
	for r in "$@"; do
		flood "$r" 8 || break
		sleep 1
		transfer 60
		flood_wait
		echo "# rate $r pps: $XFER_BYTES bytes in $XFER_MS ms" \
		     "($((XFER_MS * 100 / (base > 0 ? base : 1)))% of no flood)"
		if [ "$XFER_BYTES" = "$RXR_XFER_BYTES" ] &&
		   [ "$XFER_MS" -le $((2 * base)) ]; then
			RATE=$r
			CAL_MS=$XFER_MS
			break
		fi
	done
	if [ -z "$RATE" ]; then
		RATE=${*: -1}
		CAL_MS=$XFER_MS
		echo "# no rate carried within 2x; going on with $RATE pps"
	fi
	echo "# RESULT carried_rate=$RATE"
}

# fpa_on PERCENT: fail that share of page allocations of any order, until
# fpa_off; false without fail_page_alloc.
fpa_on()
{
	if [ ! -w "$RXR_FPA/probability" ]; then
		echo "# no fail_page_alloc in debugfs:" \
		     "allocation failures not injected"
		return 1
	fi
	echo 0 > "$RXR_FPA/min-order"
	echo 1 > "$RXR_FPA/interval"
	echo -1 > "$RXR_FPA/times"
	echo 0 > "$RXR_FPA/verbose"
	echo "$1" > "$RXR_FPA/probability"
}

# fi_rx_arm RANGE: fail_page_alloc and failslab fail every allocation,
# in any context, whose stack holds RANGE ("0xSTART 0xEND", text_range).
fi_rx_arm()
{
	local d

	for d in "$RXR_FPA" "$RXR_FSLAB"; do
		echo 0 > "$d/probability"
		echo 0 > "$d/verbose"
		echo 1 > "$d/interval"
		echo 0 > "$d/space"
		echo -1 > "$d/times"
		echo N > "$d/task-filter"
		echo N > "$d/ignore-gfp-wait"
		echo 32 > "$d/stacktrace-depth"
		echo "${1#* }" > "$d/require-end"
		echo "${1% *}" > "$d/require-start"
	done
	echo 0 > "$RXR_FPA/min-order"
	echo 100 > "$RXR_FSLAB/probability"
	echo 100 > "$RXR_FPA/probability"
}

# fi_rx_disarm: fi_rx_arm undone, the stack filter back to its defaults.
fi_rx_disarm()
{
	local d

	for d in "$RXR_FPA" "$RXR_FSLAB"; do
		[ -w "$d/require-start" ] || continue
		echo 0 > "$d/probability"
		echo 0 > "$d/require-start"
		echo 0xffffffffffffffff > "$d/require-end"
		echo Y > "$d/ignore-gfp-wait"
	done
	return 0
}

fpa_off()
{
	[ -w "$RXR_FPA/probability" ] && echo 0 > "$RXR_FPA/probability"
	return 0
}

# flush_defer: loopback traffic on every CPU, whose RX softirq frees the
# skbs that other CPUs deferred to it (skb_attempt_defer_free()): an idle
# CPU can hold them, and the pool pages in them, for good.  Needs taskset
# and ping.
flush_defer()
{
	local c

	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" ping -c 1 -W 1 127.0.0.1 > /dev/null 2>&1
	done
}

# pages_home [PREFIX...]: every page of every pool is free in its pool and
# no page of a released pool is out, in /proc/net/rx_reserve's first line
# read through PREFIX (ip netns exec NS, say), once the skbs that CPUs
# deferred to each other are freed.  Sets PAGES_POOL, PAGES_FREE and
# PAGES_OUT, "absent" for a key the line lacks.
pages_home()
{
	local l

	flush_defer
	l=$("$@" head -n 1 "$RXR_PROC")
	PAGES_POOL=$(kv pool_pages <<< "$l")
	PAGES_FREE=$(kv pool_free <<< "$l")
	PAGES_OUT=$(kv pages_out <<< "$l")
	: "${PAGES_POOL:=absent}" "${PAGES_FREE:=absent}" "${PAGES_OUT:=absent}"
	[ "$PAGES_FREE" = "$PAGES_POOL" ] && [ "$PAGES_OUT" = 0 ]
}

# xps_last NS DEV: DEV sends on its last TX queue from every CPU.
xps_last()
{
	ip netns exec "$1" sh -c "
		q=\$(ls -d /sys/class/net/$2/queues/tx-* | sort -V | tail -n 1)
		printf '%x' $(((1 << $(nproc)) - 1)) > \$q/xps_cpus"
}

# flow_line: the /proc line of the priority flow from the data port; with
# RXR_FLOW_PORT set (a held flow's local port), that flow's only: an
# earlier test's flow to the same port may linger (an orphan keeps its
# flow until TCP gives up).
flow_line()
{
	local l="[^ ]*"

	[ -n "${RXR_FLOW_PORT:-}" ] && l="$RXR_ADDR4:$RXR_FLOW_PORT"
	grep "^flow $NIC family 4 local $l remote $RXR_PEER4:$RXR_DATA_PORT " \
		"$RXR_PROC"
}

# flow_in hw|sw|any: the priority flow from the data port is registered,
# in a device slot (hw), in software (sw) or either way (any).
flow_in()
{
	local slot

	slot=$(flow_line | kv slot)
	[ -n "$slot" ] || return 1
	if [ "$1" = any ]; then
		return 0
	elif [ "$1" = sw ]; then
		[ "$slot" = -1 ]
	else
		[ "$slot" != -1 ]
	fi
}

# priv_flag NAME: on or off.
priv_flag()
{
	ethtool --show-priv-flags "$NIC" |
		awk -F: -v f="$1" '{ gsub(/ /, "") } $1 == f { print $2 }'
}

# rxr_wait_link: until $NIC has carrier again (10 s at most) and the peer
# answers a ping (another 10 s): a driver that resets the adapter takes
# the link down, and address resolution started meanwhile fails the next
# connect() with EHOSTUNREACH.
rxr_wait_link()
{
	poll 100 grep -qx 1 "/sys/class/net/$NIC/carrier" || return 1
	command -v ping > /dev/null || return 0
	poll 10 ping -c 1 -W 1 "$RXR_PEER4" > /dev/null
}

# dmesg_has PATTERN: the kernel log has a line matching PATTERN.
dmesg_has()
{
	dmesg | grep -q "$1"
}

# sample_flow PID [hw]: while PID (a transfer) runs, sample the data
# port's flow line (FLOW), ethtool -n (RULES) and the most buckets seen in
# use (BUCKETS); with hw, until the flow has a slot, its rule is in and a
# bucket names the reserve queue.
sample_flow()
{
	local i line b

	FLOW="" RULES="" BUCKETS=0
	for ((i = 0; i < 2000; i++)); do
		line=$(flow_line)
		if [ -n "$line" ]; then
			FLOW=$line
			RULES=$(ethtool -n "$NIC" 2> /dev/null)
			b=$(estat rx_reserve_rss_buckets)
			[ "$b" -gt "$BUCKETS" ] && BUCKETS=$b
			[ "${2:-}" != hw ] && return 0
			[ "$(kv slot <<< "$FLOW")" != -1 ] &&
				grep -q "Direct to queue" <<< "$RULES" &&
				[ "$BUCKETS" -ge 1 ] && return 0
		fi
		kill -0 "$1" 2> /dev/null || return 0
		sleep 0.005
	done
}

# flood_cleanup: what a flood test leaves behind, on every exit.
flood_cleanup()
{
	fpa_off
	hold_stop_all
	# shellcheck disable=SC2086
	kill ${PIDS:-} 2> /dev/null
	rm -f "$XFER_OUT"
}

# below N MAX: N is a number from 0 to MAX - 1.
below()
{
	[[ $1 =~ ^[0-9]+$ ]] && [[ $2 =~ ^[0-9]+$ ]] && [ "$1" -lt "$2" ]
}

# check_sampled QUEUE: the slot and rule that sample_flow() saw point at
# the reserve queue QUEUE, when it saw them.  A short transfer may end
# before /proc and ethtool -n (slow under a flood) show them, since the
# core installs them from a work item; the frames counted on QUEUE are
# then the proof, and the *_admin.sh tests check both on a held flow.
check_sampled()
{
	local slot slots

	slot=$(kv slot <<< "$FLOW")
	if [ "${slot:--1}" != -1 ]; then
		slots=$(grep "^dev $NIC " "$RXR_PROC" | kv slots)
		check_ok "flow in one of the ${slots:-?} slots (slot $slot)" \
			below "$slot" "${slots:-0}"
	else
		echo "# the flow's slot was not sampled while it lived"
	fi
	if grep -q "Direct to queue" <<< "$RULES"; then
		check_ok "its rule points at the reserve queue $1" \
			grep -q "Direct to queue $1" <<< "$RULES"
	else
		echo "# the flow's rule was not sampled while it lived"
	fi
}
