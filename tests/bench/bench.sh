#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--demo]: `make bench` and `make demo`.  Swap on network block
# storage under OOM and flood, vanilla 6.12 against patched, in QEMU guests.
#
# One guest boot per cell.  A cell is a NIC, a storage protocol, a kernel and
# a flood: the guest swaps on NBD or iSCSI to the peer while memload writes
# and re-reads about 3x its RAM, and the peer floods the NIC with UDP to
# closed and unread ports plus a TCP bulk stream into an unread socket.  Every
# cell first times a pressure-free transfer on the raw device under its flood
# (the control).  Floods: none; carried (the highest paced rate at which the
# control transfer stays within 2x of its no-flood time on vanilla, found per
# NIC at the start of the run); unpaced (on e1000e, whose one tap queue cuts
# an unpaced flood before any queue: the highest rate the tap delivers
# whole, found at the start of the run).  Besides the cells:
#   - tput: a non-priority TCP stream with the storage flow armed and no
#     memory pressure, vanilla against patched;
#   - classify: KUnit's rxr_test_classify_scale, the per-frame cost of
#     classification from 1 to 10,000 priority flows.
#
# Knobs (environment, or make variables of the same name):
#   BENCH_NICS      virtio-mq virtio e1000e
#   BENCH_STORAGE   nbd iscsi
#   BENCH_KERNELS   vanilla patched
#   BENCH_FLOODS    none carried unpaced
#   BENCH_RUNS      3          runs of every cell
#   BENCH_RATES     100000 70000 50000 35000 20000 10000 (calibration, pps)
#   BENCH_MEM       256        guest RAM (MiB); memload writes 4 x 192 MiB
#   BENCH_PROCS BENCH_MIB      memload's processes and MiB each (4, 192)
#   BENCH_SMP       2          vCPUs
#   BENCH_HANG      120        seconds without swap or load progress = hang
#   BENCH_LIMIT     480        seconds the load may take
#   BENCH_TPUT      3          runs of the tput pair per NIC (0: none)
#   BENCH_STALL     240        seconds a guest may print nothing before
#                              it is stopped (a guest livelocked by a flood)
#   BENCH_CARRIED   "NIC=RATE ..."  carried rates to use instead of
#                              calibrating (e.g. to add cells to a run)
#   BENCH_DELIVER_RATES  200000 150000 100000 70000 50000 35000 20000
#                   e1000e's unpaced rate: the first of unpaced and these
#                   that the host's tap delivers whole (<= 1 % dropped)
#   BENCH_DELIVERED "e1000e=RATE"  that rate, instead of calibrating it
#   BENCH_CLASSIFY  1          run the classify guest (0: not)
#   BENCH_QEMU      10         QEMU: 10 (bookworm-backports) or 7.2
#   BENCH_FLOOD_SCHED  other   the flood senders' scheduling on the host:
#                   other, or idle (SCHED_IDLE: they take only CPU time
#                   that QEMU and the storage peer leave; RESULTS.md)
#   BENCH_OUT       build/results/bench-<date>
#
# virtio-mq is virtio-net with 4 queue pairs on a 4-queue tap with QEMU's
# RSS (rss=on) for both kernels: QEMU 10's eBPF RSS in the host's tun
# (qemu-run.sh fails a guest whose RSS fell back to QEMU's software RSS).
# virtio-mq-norss (not in the default list) is the same NIC without QEMU's
# RSS for both kernels: the patched kernel then has no reserve queue and
# runs its fallback alone.  BENCH_QEMU=7.2 runs every guest on the
# system's QEMU 7.2 instead, whose software RSS parks tap queues.
#
# Output: the table (table.md), the raw logs of every guest, a CSV of swap
# progress per cell and a PNG plot per NIC and storage (swap-out and
# swap-in over time, vanilla against patched), all under BENCH_OUT.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
export BUILD=${BUILD:-$top/build}

demo=""
[ "${1:-}" = --demo ] && demo=1

NICS=${BENCH_NICS:-virtio-mq virtio e1000e}
STORAGE=${BENCH_STORAGE:-nbd iscsi}
KERNELS=${BENCH_KERNELS:-vanilla patched}
FLOODS=${BENCH_FLOODS:-none carried unpaced}
RUNS=${BENCH_RUNS:-3}
RATES=${BENCH_RATES:-100000 70000 50000 35000 20000 10000}
DELIVER_RATES=${BENCH_DELIVER_RATES:-200000 150000 100000 70000 50000 35000 20000}
MEM=${BENCH_MEM:-256}
PROCS=${BENCH_PROCS:-4}
MIB=${BENCH_MIB:-192}
SMP=${BENCH_SMP:-2}
HANG=${BENCH_HANG:-120}
LIMIT=${BENCH_LIMIT:-480}
TPUT=${BENCH_TPUT:-3}
STALL=${BENCH_STALL:-240}
CLASSIFY=${BENCH_CLASSIFY:-1}
QEMU=${BENCH_QEMU:-10}
FLOOD_SCHED=${BENCH_FLOOD_SCHED:-other}
if [ -n "$demo" ]; then
	NICS=${DEMO_NIC:-virtio-mq} STORAGE=nbd KERNELS="vanilla patched"
	FLOODS=${DEMO_FLOOD:-unpaced} RUNS=1 TPUT=0
	# Vanilla does not finish under the unpaced flood: stop its load at
	# 4 minutes, so that the demo takes about 8.
	LIMIT=${DEMO_LIMIT:-240}
fi
OUT=${BENCH_OUT:-$BUILD/results/$([ -n "$demo" ] && echo demo || echo bench)-$(date +%Y%m%d-%H%M%S)}

die() { echo "bench: $*" >&2; exit 2; }

for v in RUNS MEM PROCS MIB SMP HANG LIMIT TPUT STALL CLASSIFY; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "BENCH_$v wants a number, not '${!v}'"
done
[ "$RUNS" -ge 1 ] || die "BENCH_RUNS wants at least 1"
case "$QEMU" in 10|7.2) ;; *) die "BENCH_QEMU wants 10 or 7.2, not '$QEMU'" ;; esac
export RXR_QEMU=$QEMU
case "$FLOOD_SCHED" in
other|idle) ;;
*) die "BENCH_FLOOD_SCHED wants other or idle, not '$FLOOD_SCHED'" ;;
esac
# tests/bench/flood-peer.sh reads it.
export RXR_PEER_FLOOD_SCHED=$FLOOD_SCHED
for n in $NICS; do
	case "$n" in virtio-mq|virtio-mq-norss|virtio|e1000e) ;;
	*) die "bad NIC $n" ;; esac
done
for s in $STORAGE; do
	case "$s" in nbd|iscsi) ;; *) die "bad storage $s" ;; esac
done
for k in $KERNELS; do
	case "$k" in vanilla|patched) ;; *) die "bad kernel $k" ;; esac
done
for f in $FLOODS; do
	case "$f" in none|carried|unpaced) ;; *) die "bad flood $f" ;; esac
done
for r in $RATES $DELIVER_RATES; do
	[[ $r =~ ^[1-9][0-9]*$ ]] || die "bad rate $r in BENCH_RATES"
done
declare -A CARRIED GIVEN_DELIVERED
for c in ${BENCH_DELIVERED:-}; do
	[[ $c =~ ^(e1000e)=([0-9]+)$ ]] ||
		die "bad BENCH_DELIVERED entry $c (e1000e=RATE, 0 unpaced)"
	GIVEN_DELIVERED[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done
for c in ${BENCH_CARRIED:-}; do
	[[ $c =~ ^(virtio-mq|virtio-mq-norss|virtio|e1000e)=([1-9][0-9]*)$ ]] ||
		die "bad BENCH_CARRIED entry $c (NIC=RATE)"
	CARRIED[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done
for f in "$BUILD/bin/memload" "$BUILD/bin/flood" "$BUILD/bin/rxr_sock" \
	 "$BUILD/initramfs.cpio.gz"; do
	[ -e "$f" ] || die "no $f (run make all)"
done
for k in $KERNELS; do
	[ -e "$BUILD/$k/out/arch/x86/boot/bzImage" ] ||
		die "no $k kernel (run make kernels)"
done

mkdir -p "$OUT/cells"
bench_t0=$(date +%s)
guest_pid=""
on_exit()
{
	[ -n "$guest_pid" ] && kill "$guest_pid" 2> /dev/null && wait "$guest_pid"
}
trap on_exit EXIT
trap 'echo; echo "bench: interrupted; partial results in $OUT" >&2; exit 130' \
	INT TERM HUP

# A cell's guest must end even when everything in it hangs: the boot,
# storage setup and control, the load's own limit, then the report.
wall=$((LIMIT + 300))

# nic_args NIC KERNEL: qemu-run.sh's options for that NIC.
nic_args()
{
	case "$1" in
	virtio-mq) echo "--nic virtio-mq --queues 4 --rss on" ;;
	virtio-mq-norss) echo "--nic virtio-mq --queues 4 --rss off" ;;
	*) echo "--nic $1" ;;
	esac
}

# peer_args STORAGE: the peers a cell's guest talks to.
peer_args()
{
	local mib=$((PROCS * MIB * 2 + 256))

	PEERS=(--peer "$top/tests/bench/flood-peer.sh 67108864")
	case "$1" in
	nbd) PEERS+=(--peer "$top/tests/bench/nbd-peer.sh $mib") ;;
	iscsi) PEERS+=(--peer "$top/tests/bench/iscsi-peer.sh $mib") ;;
	esac
}

# watch DIR: stop the guest when it printed nothing for STALL seconds: a
# flood can livelock a TCG guest so that not even its timeouts run.
watch()
{
	local last=-1 size quiet=0

	while kill -0 "$guest_pid" 2> /dev/null; do
		sleep 5
		size=$(stat -c %s "$1/output.log" 2> /dev/null || echo 0)
		if [ "$size" = "$last" ]; then
			quiet=$((quiet + 5))
		else
			quiet=0 last=$size
		fi
		if [ "$quiet" -ge "$STALL" ]; then
			echo "stalled: no output for $STALL s" > "$1/stalled"
			kill "$guest_pid" 2> /dev/null
			return
		fi
	done
}

# progress DIR LABEL: one status line, rewritten, while the guest runs.
progress()
{
	local t

	while kill -0 "$guest_pid" 2> /dev/null; do
		t=$(tr -d '\r' 2> /dev/null < "$1/output.log" |
			awk '$1 == "T" { l = $0 } $1 == "RESULT" && $2 ~ /^ctl_write/ { c = $0 }
			     END { if (l != "") { split(l, a, " ");
				printf "%6.0f s  load %5d/%d MiB  swapped out %5d MiB",
					a[2], a[3], a[4], a[5] * 4 / 1024 }
			     else if (c != "") print "control done, swap starting"
			     else print "booting, storage, control transfer" }')
		printf '\r  %-8s %-70s' "$2" "$t"
		sleep 2
	done
	echo
}

# guest NAME ARGS...: one guest, logs in $OUT/cells/NAME; returns its exit.
guest()
{
	local name=$1 dir=$OUT/cells/$1 rc

	shift
	mkdir -p "$dir"
	tests/bench/qemu-run.sh --out "$dir" --smp "$SMP" --mem "$MEM" \
		--file "$BUILD/bin/memload:memload" \
		--file "$top/tests/bench/guest/cell.sh:cell.sh" "$@" \
		> "$dir/bench.log" 2>&1 &
	guest_pid=$!
	watch "$dir" &
	watch_pid=$!
	if [ -n "$demo" ]; then
		progress "$dir" "${name%%-*}"
	fi
	wait "$guest_pid"
	rc=$?
	guest_pid=""
	kill "$watch_pid" 2> /dev/null
	wait "$watch_pid" 2> /dev/null
	# A guest stopped by watch() left its output unconverted.
	[ -e "$dir/output.txt" ] || tr -d '\r' < "$dir/output.log" \
		> "$dir/output.txt" 2> /dev/null
	echo "$rc" > "$dir/rc"
	return "$rc"
}

# result DIR KEY: the last value of KEY in the guest's RESULT lines.
result()
{
	grep -ho "RESULT .*\b$2=[^ ]*" "$1/output.txt" 2> /dev/null |
		sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" | tail -n 1
}

elapsed() { echo $(($(date +%s) - $1)); }

echo "bench: results in $OUT"
echo "bench: NICs [$NICS] storage [$STORAGE] kernels [$KERNELS]" \
     "floods [$FLOODS], $RUNS run(s) per cell, ${MEM} MiB guests with $SMP vCPUs," \
     "load $PROCS x $MIB MiB"
{
	echo "nics=$NICS"
	echo "storage=$STORAGE"
	echo "kernels=$KERNELS"
	echo "floods=$FLOODS"
	echo "runs=$RUNS"
	echo "mem=$MEM smp=$SMP procs=$PROCS mib=$MIB hang=$HANG limit=$LIMIT"
	echo "commit=$(git -C "$top" rev-parse --short HEAD 2> /dev/null)"
	echo "qemu=$(tests/bench/qemu-run.sh --qemu "$QEMU" --version)"
	echo "flood_sched=$FLOOD_SCHED"
	echo "date=$(date -u +%FT%TZ)"
} >> "$OUT/params"

# rate_guest MODE NIC RATES KEY: a vanilla guest that runs cell.sh's MODE over
# RATES (calibrate, deliver) on NIC; sets r to its RESULT KEY.
rate_guest()
{
	peer_args nbd
	# shellcheck disable=SC2046
	guest "$1-$2" --kernel vanilla $(nic_args "$2" vanilla) \
		--timeout 600 "${PEERS[@]}" -- \
		"CELL_MODE=$1 CELL_STORAGE=nbd CELL_RATES='$3' /rxr/cell.sh"
	r=$(result "$OUT/cells/$1-$2" "$4")
}

# --- Calibration: the carried rate per NIC, on vanilla ---------------------
if [[ " $FLOODS " == *" carried "* ]]; then
	for nic in $NICS; do
		if [ -n "${CARRIED[$nic]:-}" ]; then
			echo "bench: $nic: carried rate ${CARRIED[$nic]} pps (BENCH_CARRIED)"
			echo "carried_$nic=${CARRIED[$nic]} (given)" >> "$OUT/params"
			continue
		fi
		t0=$(date +%s)
		rate_guest calibrate "$nic" "$RATES" carried_rate
		if ! [[ $r =~ ^[0-9]+$ ]]; then
			# An error, not a rate: the carried cells would flood
			# at a rate vanilla does not carry.
			echo "bench: $nic: calibration failed, no rate of" \
			     "BENCH_RATES carried within 2x (got '${r:-nothing}';" \
			     "$OUT/cells/calibrate-$nic): no carried cells on $nic," \
			     "its carried target reads NOT MET"
			r=none
		else
			echo "bench: $nic: carried rate $r pps ($(elapsed "$t0") s)"
		fi
		CARRIED[$nic]=$r
		echo "carried_$nic=$r" >> "$OUT/params"
	done
fi

# --- Delivered rate: e1000e's overwhelming flood, on vanilla -----------------
# e1000e has one tap queue: an unpaced flood is cut at the host's tap, before
# any queue, for every flow alike.  Its unpaced cells flood at the highest
# rate the tap delivers whole instead (at most 1 % dropped by tun), so that
# the guest, not the tap, is the bottleneck.
declare -A DELIVERED
if [[ " $FLOODS " == *" unpaced "* ]]; then
	for nic in $NICS; do
		[ "$nic" = e1000e ] || continue
		if [ -n "${GIVEN_DELIVERED[$nic]:-}" ]; then
			r=${GIVEN_DELIVERED[$nic]}
			echo "delivered_$nic=$r (given)" >> "$OUT/params"
		else
			t0=$(date +%s)
			rate_guest deliver "$nic" "0 $DELIVER_RATES" delivered_rate
			[[ $r =~ ^[0-9]+$ ]] ||
				die "$nic: no rate delivered whole by the tap (got '${r:-nothing}'; $OUT/cells/deliver-$nic)"
			echo "delivered_$nic=$r" >> "$OUT/params"
			echo "bench: $nic: the tap delivers ${r/#0/unpaced} pps whole ($(elapsed "$t0") s)"
		fi
		DELIVERED[$nic]=$r
	done
fi

# --- The cells ----------------------------------------------------------------
# no_rate FLOOD NIC: FLOOD is carried and NIC's calibration found no rate.
no_rate() { [ "$1" = carried ] && [ "${CARRIED[$2]:-}" = none ]; }

ncells=0
for run in $(seq "$RUNS"); do
	for nic in $NICS; do
		for st in $STORAGE; do
			for fl in $FLOODS; do
				no_rate "$fl" "$nic" && continue
				for k in $KERNELS; do
					ncells=$((ncells + 1))
				done
			done
		done
	done
done
i=0
for run in $(seq "$RUNS"); do
	for nic in $NICS; do
		for st in $STORAGE; do
			for fl in $FLOODS; do
				no_rate "$fl" "$nic" && continue
				case "$fl" in
				none) rate=-1 ;;
				carried) rate=${CARRIED[$nic]} ;;
				unpaced) rate=${DELIVERED[$nic]:-0} ;;
				esac
				# Kernels alternate within each cell pair.
				for k in $KERNELS; do
					i=$((i + 1))
					name=$k-$nic-$st-$fl-r$run
					t0=$(date +%s)
					peer_args "$st"
					[ -n "$demo" ] && echo "bench: $k 6.12, $nic, swap on $st, flood $fl"
					# shellcheck disable=SC2046
					guest "$name" --kernel "$k" $(nic_args "$nic" "$k") \
						--timeout "$wall" "${PEERS[@]}" -- \
						"CELL_MODE=oom CELL_STORAGE=$st CELL_RATE=$rate CELL_PROCS=$PROCS CELL_MIB=$MIB CELL_HANG=$HANG CELL_LIMIT=$LIMIT /rxr/cell.sh"
					rc=$?
					printf 'nic=%s storage=%s kernel=%s flood=%s rate=%s run=%s rc=%s\n' \
						"$nic" "$st" "$k" "$fl" "$rate" "$run" "$rc" \
						> "$OUT/cells/$name/cell.info"
					d=$OUT/cells/$name
					printf 'bench: [%d/%d] %-40s load=%s %ss, control %s/%s ms (%s s)\n' \
						"$i" "$ncells" "$name" "$(result "$d" load)" \
						"$(grep -ho '^\(DONE\|HANG\|LIMIT\) [0-9.]*' "$d/output.txt" 2> /dev/null | awk '{ print $2 }')" \
						"$(result "$d" ctl_write_ms)" "$(result "$d" ctl_read_ms)" \
						"$(elapsed "$t0")"
				done
			done
		done
	done
done

# --- tput: a non-priority stream with a priority flow armed ------------------
for nic in $NICS; do
	for run in $(seq "$TPUT"); do
		for k in $KERNELS; do
			name=tput-$k-$nic-r$run
			peer_args nbd
			# shellcheck disable=SC2046
			guest "$name" --kernel "$k" $(nic_args "$nic" "$k") \
				--timeout 300 "${PEERS[@]}" -- \
				"CELL_MODE=tput CELL_STORAGE=nbd /rxr/cell.sh"
			printf 'nic=%s kernel=%s run=%s rc=%s\n' "$nic" "$k" "$run" "$?" \
				> "$OUT/cells/$name/cell.info"
		done
	done
	[ "$TPUT" -gt 0 ] && echo "bench: $nic: tput pairs done"
done

# --- classify: KUnit's scale case on the patched kernel ----------------------
if [ -z "$demo" ] && [ "$CLASSIFY" -ne 0 ] &&
   [[ " $KERNELS " == *" patched "* ]]; then
	guest classify --kernel patched --nic none --timeout 300 \
		--append "kunit.enable=1 kunit.filter_glob=rx_reserve.rxr_test_classify_scale" \
		-- true
	grep -a 'RESULT classify' "$OUT/cells/classify/console.log" |
		sed 's/.*RESULT /RESULT /' > "$OUT/cells/classify/output.txt"
fi

echo "bench: all guests done in $(elapsed "$bench_t0") s"
python3 "$top/tests/bench/report.py" ${demo:+--demo} "$OUT"
