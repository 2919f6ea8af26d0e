#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-run.sh: boot a test kernel in QEMU (TCG), run a command in the guest,
# collect its output, enforce a timeout, and clean up everything it made.
#
# Usage: qemu-run.sh [options] [--] [COMMAND...]
#   --kernel K        patched | vanilla | debug | modules | a bzImage's path
#                     (patched); modules: the NIC drivers as modules, in an
#                     archive appended to the image (make modules)
#   --nic N           none | e1000e | virtio | virtio-mq         (none)
#                     none: no NIC but the netdevsim devices the guest makes
#   --nic2 N          e1000e | virtio | virtio-mq: a second NIC (virtio-mq
#                     with --queues and --rss as the first); both taps then
#                     join one bridge, which holds the peer's
#                     addresses (a bond's slaves reach the peer
#                     through either)                            (none)
#   --queues N        queue pairs of virtio-mq                   (4)
#   --rss on|off|software
#                     virtio-mq RSS in QEMU (rss=on)             (on)
#                     software: rss=on with QEMU 10 run as an
#                     unprivileged user (65534), whose eBPF program
#                     cannot load (kernel.unprivileged_bpf_disabled):
#                     QEMU's software RSS, as on hosts whose QEMU has
#                     no CAP_BPF or predates 8.0 (QEMU 7.2 here)
#   --qemu 10|7.2     QEMU 10 from bookworm-backports (make deps),
#                     whose virtio-net RSS runs in the host's tun (eBPF),
#                     or the system's QEMU 7.2, whose RSS falls back to
#                     software in QEMU (RXR_QEMU, or 10)
#   --smp N --mem MB  guest size                                 (2, 256)
#   --timeout S       wall-clock limit for the whole guest       (300)
#   --append ARGS     extra kernel command line (repeatable)
#   --peer CMD        run CMD (sh -c) inside the bench namespace, in the
#                     background, for the guest to talk to; repeatable
#   --file SRC[:DST]  put SRC into the guest at /rxr/DST; repeatable
#   --script FILE     run FILE in the guest instead of COMMAND
#   --out DIR         keep logs there (default: a new dir under build/runs)
#   --trace PATTERN   enable QEMU's trace events matching PATTERN, in
#                     DIR/qemu-trace.log (repeatable), e.g. e1000e_rx_*
#   --verbose         stream the guest's output while it runs
#   --version         print the QEMU's version line and exit
#
# With QEMU 10, virtio-mq with --rss on must get eBPF RSS: QEMU's steering
# program loaded and attached to the tap (its trace events, in
# DIR/qemu-trace.log).  A guest whose RSS fell back to QEMU's software RSS
# is a bench error, not a silent downgrade; DIR/rss says which it got
# (ebpf, software, or none when the guest never enabled RSS).
#
# The guest's NIC is cabled to a tap inside a network namespace that this
# script creates (and QEMU runs in), addressed from the documentation ranges:
# the peer side is 192.0.2.1/24 and 2001:db8::1/64, the guest 192.0.2.2 and
# 2001:db8::2.  Nothing else is reachable from the guest.
#
# Exit code: the guest command's, or 124 on timeout, 125 on a bench error,
# 126 when the guest died (panic, crash) before the command finished.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}

kernel=patched nic=none nic2=none queues=4 rss=on smp=2 mem=256 limit=300
qemu=${RXR_QEMU:-10}
append="" script="" out="" verbose="" want_version=""
peers=() files=() traces=()

usage() { awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"; exit 125; }
die() { echo "qemu-run: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift ;;
	--nic) nic=$2; shift ;;
	--nic2) nic2=$2; shift ;;
	--queues) queues=$2; shift ;;
	--rss) rss=$2; shift ;;
	--qemu) qemu=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--timeout) limit=$2; shift ;;
	--append) append="${append:+$append }$2"; shift ;;
	--peer) peers+=("$2"); shift ;;
	--trace) traces+=("$2"); shift ;;
	--file) files+=("$2"); shift ;;
	--script) script=$2; shift ;;
	--out) out=$2; shift ;;
	--verbose) verbose=1 ;;
	--version) want_version=1 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) die "unknown option $1 (--help lists them)" ;;
	*) break ;;
	esac
	shift
done

case "$nic" in none|e1000e|virtio|virtio-mq) ;; *) die "bad --nic $nic" ;; esac
case "$nic2" in none|e1000e|virtio|virtio-mq) ;; *) die "bad --nic2 $nic2" ;; esac
[ "$nic2" != none ] && [ "$nic" = none ] && die "--nic2 wants a --nic"
case "$rss" in on|off|software) ;; *) die "bad --rss $rss" ;; esac
for v in queues smp mem limit; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--$v wants a positive number"
done
[ "$nic" = virtio-mq ] && [ "$queues" -lt 2 ] && die "virtio-mq wants --queues >= 2"
qemu_opts=()
case "$qemu" in
10)
	qroot=$BUILD/qemu/root
	qemu_bin=$qroot/usr/bin/qemu-system-x86_64
	[ -x "$qemu_bin" ] || die "no QEMU 10 in $qroot (run make deps)"
	qemu_opts=(-L "$qroot/usr/share/qemu" -L "$qroot/usr/share/seabios"
		   -L /usr/lib/ipxe/qemu)
	;;
7.2)
	qemu_bin=/usr/bin/qemu-system-x86_64
	[ -x "$qemu_bin" ] || die "no $qemu_bin (run make deps)"
	;;
*) die "bad --qemu $qemu (10 or 7.2)" ;;
esac
# --rss software: QEMU 10 as an unprivileged user, who cannot load eBPF.
unpriv="" as_user=()
if [ "$rss" = software ] && [ "$qemu" = 10 ] && [ "$nic" = virtio-mq ]; then
	unpriv=65534
	as_user=(setpriv --reuid="$unpriv" --regid="$unpriv" --clear-groups)
fi
if [ -n "$want_version" ]; then
	"$qemu_bin" --version | head -n 1
	exit 0
fi

case "$kernel" in
patched|vanilla|debug|modules)
	image=$BUILD/$kernel/out/arch/x86/boot/bzImage ;;
*) image=$kernel ;;
esac
[ -r "$image" ] ||
	die "no kernel image $image (run make kernels, make debug or make modules)"
initrd=$BUILD/initramfs.cpio.gz
[ -r "$initrd" ] || die "no $initrd (run make initramfs)"
modules=
if [ "$kernel" = modules ]; then
	modules=$BUILD/modules/modules.cpio.gz
	[ -r "$modules" ] || die "no $modules (run make modules)"
fi
[ -n "$script" ] && [ ! -r "$script" ] && die "no script $script"

if [ -z "$out" ]; then
	mkdir -p "$BUILD/runs"
	out=$(mktemp -d "$BUILD/runs/$(date +%Y%m%d-%H%M%S)-XXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/{console,output,qemu,qemu-trace}.log "$out/rss"

# rss_record: what RSS the guest got, into $out/rss: "ebpf" (the steering
# program attached to the tap), "software" (QEMU's fallback) or "none" (the
# guest never enabled RSS).  QEMU attaches prog-fd -1 to detach, at realize
# and at reset.  Also on a guest stopped early (a bench's stall watch), so
# that its cell says what it ran on.
rss_record()
{
	local got

	if grep -q 'fallback to software RSS' "$out/qemu.log" 2>/dev/null; then
		got=software
	elif grep -Eq 'virtio_net_rss_attach_ebpf .*prog-fd=[0-9]+' \
		"$out/qemu-trace.log" 2>/dev/null; then
		got=ebpf
	else
		got=none
	fi
	echo "$got" > "$out/rss"
}

ns="" qemu_pid="" tail_pid="" rss_check=""
cleanup()
{
	local p
	trap - EXIT INT TERM HUP
	[ -n "$rss_check" ] && [ ! -e "$out/rss" ] && rss_record
	[ -n "$tail_pid" ] && kill "$tail_pid" 2>/dev/null
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
	if [ -n "$ns" ]; then
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$p" 2>/dev/null
		done
		for p in $(seq 20); do
			[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
			sleep 0.1
		done
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$p" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	fi
	rm -rf "$out/rootfs" "$out/run.cpio.gz" "$out/initrd" "$out"/*.img
}
trap cleanup EXIT
trap 'echo "qemu-run: interrupted" >&2; exit 130' INT TERM HUP

# The per-run archive: /rxr/env, /rxr/run.sh and --file's, appended to the
# base image (the kernel unpacks concatenated archives in order).
mkdir -p "$out/rootfs/rxr"
nq=1
case "$nic" in virtio-mq) nq=$queues ;; esac
cat > "$out/rootfs/rxr/env" <<ENV
RXR_NIC=$nic
RXR_NIC2=$nic2
RXR_QUEUES=$nq
RXR_ADDR4=192.0.2.2
RXR_PEER4=192.0.2.1
RXR_PREFIX4=24
RXR_ADDR6=2001:db8::2
RXR_PEER6=2001:db8::1
RXR_PREFIX6=64
export RXR_NIC RXR_NIC2 RXR_QUEUES RXR_ADDR4 RXR_PEER4 RXR_PREFIX4 RXR_ADDR6 RXR_PEER6 RXR_PREFIX6
ENV
if [ -n "$script" ]; then
	cp "$script" "$out/rootfs/rxr/run.sh"
elif [ $# -gt 0 ]; then
	{ echo '#!/bin/sh'; echo '. /rxr/env'; printf '%s\n' "$*"; } \
		> "$out/rootfs/rxr/run.sh"
else
	{ echo '#!/bin/sh'; echo 'echo "guest up: $(uname -r)"'; } \
		> "$out/rootfs/rxr/run.sh"
fi
chmod +x "$out/rootfs/rxr/run.sh"
for f in "${files[@]}"; do
	src=${f%%:*} dst=${f#*:}
	[ "$dst" = "$f" ] && dst=$(basename "$src")
	[ -e "$src" ] || die "no file $src"
	mkdir -p "$out/rootfs/rxr/$(dirname "$dst")"
	cp -r "$src" "$out/rootfs/rxr/$dst"
done
(cd "$out/rootfs" && find . | cpio -o -H newc --owner=0:0 --quiet | gzip -1) \
	> "$out/run.cpio.gz"
cat "$initrd" ${modules:+"$modules"} "$out/run.cpio.gz" > "$out/initrd"

# A bench killed with SIGKILL cannot delete its namespace: delete those whose
# bench (the number in the name) is gone, so they do not pile up.
reap_stale()
{
	local n pid

	for n in $(ip netns list 2>/dev/null | grep -o '^rxr-bench-[0-9]*'); do
		pid=${n#rxr-bench-}
		grep -qs qemu-run "/proc/$pid/cmdline" && continue
		ip netns del "$n" 2>/dev/null &&
			echo "qemu-run: deleted stale namespace $n" >&2
	done
}

netargs=()
if [ "$nic" != none ]; then
	reap_stale
	ns=rxr-bench-$$
	ip netns add "$ns" || die "cannot create namespace $ns"
	mq=""
	[ "$nic" = virtio-mq ] && mq=multi_queue
	ip -n "$ns" link set lo up
	# shellcheck disable=SC2086
	ip -n "$ns" tuntap add dev rxrtap0 mode tap $mq ${unpriv:+user $unpriv} ||
		die "cannot create tap"
	peer_dev=rxrtap0
	if [ "$nic2" != none ]; then
		mq2=""
		[ "$nic2" = virtio-mq ] && mq2=multi_queue
		# shellcheck disable=SC2086
		ip -n "$ns" tuntap add dev rxrtap1 mode tap $mq2 \
			${unpriv:+user $unpriv} || die "cannot create tap"
		ip -n "$ns" link add rxrbr0 type bridge ||
			die "cannot create bridge"
		ip -n "$ns" link set rxrtap0 master rxrbr0
		ip -n "$ns" link set rxrtap1 master rxrbr0
		ip -n "$ns" link set rxrtap1 up
		ip -n "$ns" link set rxrbr0 up
		peer_dev=rxrbr0
	fi
	ip -n "$ns" addr add 192.0.2.1/24 dev $peer_dev
	ip -n "$ns" -6 addr add 2001:db8::1/64 dev $peer_dev nodad
	ip -n "$ns" link set rxrtap0 up
	tap="tap,id=n0,ifname=rxrtap0,script=no,downscript=no,vhost=off"
	mac=52:54:00:12:34:56
	case "$nic" in
	e1000e) netargs=(-netdev "$tap" -device "e1000e,netdev=n0,mac=$mac") ;;
	virtio) netargs=(-netdev "$tap"
			 -device "virtio-net-pci,netdev=n0,mac=$mac") ;;
	virtio-mq) netargs=(-netdev "$tap,queues=$queues"
			    -device "virtio-net-pci,netdev=n0,mac=$mac,mq=on,rss=${rss/software/on},vectors=$((2 * queues + 2))") ;;
	esac
	tap="tap,id=n1,ifname=rxrtap1,script=no,downscript=no,vhost=off"
	mac=52:54:00:12:34:57
	case "$nic2" in
	e1000e) netargs+=(-netdev "$tap" -device "e1000e,netdev=n1,mac=$mac") ;;
	virtio) netargs+=(-netdev "$tap"
			  -device "virtio-net-pci,netdev=n1,mac=$mac") ;;
	virtio-mq) netargs+=(-netdev "$tap,queues=$queues"
			     -device "virtio-net-pci,netdev=n1,mac=$mac,mq=on,rss=${rss/software/on},vectors=$((2 * queues + 2))") ;;
	esac
	i=0
	for p in "${peers[@]}"; do
		i=$((i + 1))
		(cd "$out" && exec ip netns exec "$ns" sh -c "$p") \
			> "$out/peer-$i.log" 2>&1 &
	done
fi
exec_ns=()
[ -n "$ns" ] && exec_ns=(ip netns exec "$ns")

touch "$out/output.log"
# The unprivileged QEMU writes its serial ports and trace log there.
[ -n "$unpriv" ] && chown "$unpriv:$unpriv" "$out" "$out/output.log"
if [ -n "$verbose" ]; then
	tail -n +1 -f "$out/output.log" | sed -u 's/\r$//' &
	tail_pid=$!
fi

start=$(date +%s.%N)
# eBPF RSS: QEMU's trace events say whether its steering program loaded
# and was attached to the tap, or RSS fell back to QEMU's software RSS.
rss_check=""
if [ "$nic" = virtio-mq ] && [ "$rss" != off ] && [ "$qemu" = 10 ]; then
	rss_check=1
	qemu_opts+=(-trace "enable=ebpf_rss_*" -trace "enable=virtio_net_rss_*"
		    -D "$out/qemu-trace.log")
fi

for t in "${traces[@]}"; do
	qemu_opts+=(-trace "enable=$t")
done
[ ${#traces[@]} -gt 0 ] && [ -z "$rss_check" ] &&
	qemu_opts+=(-D "$out/qemu-trace.log")

"${exec_ns[@]}" timeout -k 5 "$limit" "${as_user[@]}" "$qemu_bin" "${qemu_opts[@]}" \
	-name rxr,debug-threads=on -accel tcg -cpu max -smp "$smp" -m "$mem" \
	-nodefaults -display none -no-reboot \
	-kernel "$image" -initrd "$out/initrd" \
	-append "console=ttyS0 panic=-1 oops=panic rdinit=/init $append" \
	-serial "file:$out/console.log" -serial "file:$out/output.log" \
	"${netargs[@]}" > "$out/qemu.log" 2>&1 &
qemu_pid=$!
wait "$qemu_pid"
qrc=$?
qemu_pid=""
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
[ -n "$tail_pid" ] && { sleep 0.2; kill "$tail_pid" 2>/dev/null; tail_pid=""; }

tr -d '\r' < "$out/output.log" > "$out/output.txt"
printf '%s %.1f\n' "$kernel $nic" "$elapsed" > "$out/elapsed"
rc=$(sed -n 's/^RXR-EXIT \([0-9]*\)$/\1/p' "$out/output.txt" | tail -n 1)

# What RSS the guest got.
if [ -n "$rss_check" ]; then
	rss_record
	if [ "$(cat "$out/rss")" = software ] && [ "$rss" = on ]; then
		echo "qemu-run: QEMU's eBPF RSS did not load: the guest ran on" \
		     "QEMU's software RSS ($out/qemu.log)" >&2
		[ -n "$rc" ] && rc=125
	fi
fi
if [ -z "$rc" ]; then
	if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		echo "qemu-run: guest timed out after ${limit}s ($out)" >&2
		rc=124
	else
		echo "qemu-run: guest died before its command finished" \
		     "(qemu exit $qrc; $out)" >&2
		rc=126
	fi
	echo "qemu-run: last lines of the console:" >&2
	tr -d '\r' < "$out/console.log" | tail -n 30 | sed 's/^/  | /' >&2
	[ -s "$out/qemu.log" ] && sed 's/^/  qemu: /' "$out/qemu.log" >&2
fi
exit "$rc"
