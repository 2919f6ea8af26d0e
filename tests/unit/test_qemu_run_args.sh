#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of tests/bench/qemu-run.sh's input checks: bad input is refused
# with exit code 125 and a message naming the problem, before anything is
# created.

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BUILD=$tmp
mkdir -p "$tmp/patched/out/arch/x86/boot"
: > "$tmp/patched/out/arch/x86/boot/bzImage"
: > "$tmp/initramfs.cpio.gz"
# A QEMU 10 that must never run: every case here is refused before.
mkdir -p "$tmp/qemu/root/usr/bin"
printf '#!/bin/sh\necho "QEMU emulator version 10 (fake)"\n' \
	> "$tmp/qemu/root/usr/bin/qemu-system-x86_64"
chmod +x "$tmp/qemu/root/usr/bin/qemu-system-x86_64"
n=0

bench_ns() { ip netns list 2>/dev/null | grep -o '^rxr-bench-[0-9]*' | sort; }
ns_before=$(bench_ns)

t()	# t NAME EXPECTED_OUTPUT_REGEX ARGS...
{
	local name=$1 re=$2 out rc

	shift 2
	n=$((n + 1))
	out=$("$top/tests/bench/qemu-run.sh" "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 125 ] && echo "$out" | grep -qE -- "$re"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name # rc=$rc output: $(echo "$out" | head -2 | xargs)"
	fi
}

echo "TAP version 13"
echo "1..13"
t "unknown option" "unknown option --bogus" --bogus
t "unknown NIC model" "bad --nic e1000" --nic e1000
t "unknown second NIC model" "bad --nic2 e1000" --nic virtio --nic2 e1000
t "second NIC without a first" "--nic2 wants a --nic" --nic2 virtio
t "bad rss value" "bad --rss maybe" --rss maybe
t "non-numeric queues" "--queues wants a positive number" --queues x
t "zero memory" "--mem wants a positive number" --mem 0
t "virtio-mq with one queue" "virtio-mq wants --queues >= 2" --nic virtio-mq --queues 1
t "missing kernel image" "no kernel image" --kernel vanilla
t "missing script" "no script /nonexistent" --script /nonexistent
t "bad QEMU" "bad --qemu 9 \\(10 or 7.2\\)" --qemu 9
mv "$tmp/qemu" "$tmp/qemu.away"
t "QEMU 10 not unpacked" "no QEMU 10 in .*\\(run make deps\\)" --qemu 10
mv "$tmp/qemu.away" "$tmp/qemu"
n=$((n + 1))
if [ -z "$(ls "$tmp" | grep -v -e patched -e initramfs -e qemu)" ] &&
   [ "$(bench_ns)" = "$ns_before" ]; then
	echo "ok $n refused input leaves nothing behind"
else
	echo "not ok $n refused input leaves nothing behind # $(ls "$tmp")"
fi
