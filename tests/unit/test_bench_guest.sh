#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the QEMU bench's contract with real guests: the guest command's
# exit code comes back, a panic and a timeout are failures with the console's
# tail, and the bench's namespace, tap, QEMU and peers are gone afterwards,
# also when the bench is interrupted.  Skips when no kernel is built.

top=$(cd "$(dirname "$0")/../.." && pwd)
export BUILD=${BUILD:-$top/build}
run=$top/tests/bench/qemu-run.sh
tmp=$(mktemp -d)
stale=""
trap 'rm -rf "$tmp"; [ -n "$stale" ] && ip netns del "$stale" 2>/dev/null' EXIT
n=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); echo "not ok $n $1 # $2"; }
check() { if [ "$2" ]; then ok "$1"; else nok "$1" "$3"; fi; }

# bench_ns: the bench namespaces there are now.
bench_ns() { ip netns list 2>/dev/null | grep -o '^rxr-bench-[0-9]*' | sort; }

# leftovers: namespaces, QEMU processes or peers these benches left behind.
# A namespace that was there before the tests started is not theirs, nor
# is one whose bench is still running: a bench run beside these tests.
leftovers()
{
	local ns

	for ns in $(bench_ns | comm -13 "$tmp/ns-before" -); do
		kill -0 "${ns#rxr-bench-}" 2>/dev/null || echo "$ns"
	done
	pgrep -f "qemu-system-x86_64.*$tmp" | head -1
	pgrep -f 'sleep 4242' | head -1
}

echo "TAP version 13"
if [ ! -r "$BUILD/patched/out/arch/x86/boot/bzImage" ] ||
   [ ! -r "$BUILD/initramfs.cpio.gz" ]; then
	echo "1..0 # SKIP no patched kernel or guest image (make all)"
	exit 0
fi
echo "1..9"
bench_ns > "$tmp/ns-before"

"$run" --out "$tmp/rc" -- 'exit 3' > /dev/null 2>&1
check "the guest command's exit code comes back" "$([ $? -eq 3 ] && echo y)" \
	"got $?"

"$run" --out "$tmp/out" -- 'echo hello from the guest; uname -r' \
	> /dev/null 2>&1
check "the guest's output is collected" \
	"$(grep -qx 'hello from the guest' "$tmp/out/output.txt" && echo y)" \
	"output: $(head -c 200 "$tmp/out/output.txt")"

out=$("$run" --out "$tmp/panic" -- 'echo c > /proc/sysrq-trigger' 2>&1)
rc=$?
check "a panic is a failure (126)" "$([ $rc -eq 126 ] && echo y)" "got $rc"
check "a panic prints the console's tail" \
	"$(echo "$out" | grep -q 'Kernel panic' && echo y)" "$(echo "$out" | tail -3)"

# The namespace of a bench that died without cleaning up (SIGKILL): its
# number is a process that is gone.
true &
stale=rxr-bench-$!
wait
ip netns add "$stale" 2>/dev/null || stale=""

start=$(date +%s)
out=$("$run" --nic e1000e --out "$tmp/timeout" --timeout 20 \
	--peer 'sleep 4242' -- 'sleep 600' 2>&1)
rc=$?
took=$(($(date +%s) - start))
check "a timeout is a failure (124) within the limit" \
	"$([ $rc -eq 124 ] && [ $took -lt 40 ] && echo y)" "rc $rc after ${took}s"
check "nothing is left after a timeout" "$([ -z "$(leftovers)" ] && echo y)" \
	"$(leftovers | xargs)"
if [ -z "$stale" ]; then
	n=$((n + 1))
	echo "ok $n a dead bench's namespace is deleted # SKIP cannot create one"
else
	check "a dead bench's namespace is deleted" \
		"$(ip netns list | grep -q "^$stale\b" || echo y)" "$stale is there"
	ip netns del "$stale" 2>/dev/null
fi

# Job control, so that the background bench does not start with SIGINT
# ignored, as a non-interactive shell's background jobs do.  A signal
# ignored when this script started stays ignored in everything it runs
# (this script itself run in the background of a non-interactive shell):
# then the bench is stopped with SIGTERM, which it handles the same way.
sig=INT
ign=$(awk '$1 == "SigIgn:" { print $2 }' /proc/$$/status)
if [ $(((16#${ign:-0} >> 1) & 1)) = 1 ]; then
	echo "# SIGINT is ignored here: the bench is stopped with SIGTERM"
	sig=TERM
fi
set -m
"$run" --nic virtio-mq --out "$tmp/int" --timeout 120 --peer 'sleep 4242' \
	-- 'sleep 600' > /dev/null 2>&1 &
pid=$!
set +m
for i in $(seq 100); do
	pgrep -f "qemu-system-x86_64.*$tmp/int" > /dev/null && break
	sleep 0.1
done
kill -"$sig" "$pid"
wait "$pid"
rc=$?
check "an interrupted bench exits 130" "$([ $rc -eq 130 ] && echo y)" \
	"got $rc after SIG$sig"
for i in $(seq 50); do
	[ -z "$(leftovers)" ] && break
	sleep 0.1
done
check "nothing is left after an interrupt" \
	"$([ -z "$(leftovers)" ] && echo y)" "$(leftovers | xargs)"
