#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [all|build|tools|kunit|selftests|upstream|debug]: the `make test`
# and `make test-debug` driver.
#
# Phases (all, in this order):
#   build      the three kernels, the guest image and the bench tools (make all)
#   tools      unit tests of the project's userspace tools
#   kunit      the KUnit suites built into the patched kernel, in a guest
#   selftests  the project's kselftests in guests with each NIC model
#   upstream   upstream 6.12 kselftests and KUnit suites on the patched and
#              the vanilla kernel: a regression is a test that passes on
#              vanilla and not on patched
#   debug      (make test-debug) kunit, selftests and upstream's kselftests
#              on the debug kernel; any splat fails
#
# Prints TAP (one line per test), a "# phase" timing line per phase, and ends
# with "N passed, N failed, N skipped".  Exits non-zero on any failure.  A
# test that cannot run is a skip, with the reason; a guest that panics or
# times out is a failure, with the tail of its console, and so is a splat
# (WARNING, BUG, KASAN, lockdep, ...) on any guest's console.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export BUILD=${BUILD:-$top/build}
what=${1:-all}

results=$BUILD/results/test-$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"
passed=0 failed=0 skipped=0 n=0
run_start=$(date +%s)

# tap pass|fail|skip NAME [NOTE]
tap()
{
	n=$((n + 1))
	case "$1" in
	pass) passed=$((passed + 1)); echo "ok $n $2${3:+ # $3}" ;;
	skip) skipped=$((skipped + 1)); echo "ok $n $2 # SKIP ${3:-}" ;;
	*) failed=$((failed + 1)); echo "not ok $n $2${3:+ # $3}" ;;
	esac
}

phase_start() { phase=$1 phase_t0=$(date +%s) phase_p=$passed phase_f=$failed phase_s=$skipped; }
phase_end()
{
	printf '# phase %-10s %4ds  (%d passed, %d failed, %d skipped)\n' \
		"$phase" $(($(date +%s) - phase_t0)) $((passed - phase_p)) \
		$((failed - phase_f)) $((skipped - phase_s))
}

# tap_from PREFIX FILE: report the "result<TAB>name<TAB>note" lines of FILE.
tap_from()
{
	local res name note

	while IFS=$'\t' read -r res name note; do
		tap "$res" "$1$name" "$note"
	done < "$2"
}

# guest NAME ARGS...: boot a guest with tests/bench/qemu-run.sh, logs in
# $results/NAME.  On a crash or timeout, the bench prints the console's tail.
guest()
{
	local name=$1
	shift
	tests/bench/qemu-run.sh --out "$results/$name" "$@" 2>&1 |
		sed 's/^/# /'
	return "${PIPESTATUS[0]}"
}

# guest_tap PREFIX NAME RC: report a guest's TAP output; a guest that did not
# finish is one more failure.
guest_tap()
{
	local prefix=$1 name=$2 rc=$3 out=$results/$2

	python3 tests/lib/ktap.py tap "$out/output.txt" > "$out/results" 2>/dev/null
	tap_from "$prefix" "$out/results"
	# What failed, in CI's log too: the failed checks of the guest's tests.
	grep -q '^fail' "$out/results" 2>/dev/null &&
		grep -E '^# (running |FAIL)' "$out/output.txt" |
		grep -B1 'FAIL' | grep -v '^--$' | head -n 30
	case "$rc" in
	0) ;;
	124) tap fail "${prefix}guest" "timed out" ;;
	126) tap fail "${prefix}guest" "died: see $out/console.log" ;;
	*) [ -s "$out/results" ] || tap fail "${prefix}guest" "exit $rc" ;;
	esac
}

# splat_check PREFIX DIR...: one TAP line per guest whose logs are in DIR:
# no splat (tests/lib/splats.py: WARNING, BUG, KASAN, lockdep, ...) on its
# console, but for mainline's known ones, which are printed.  Any other
# splat fails, on every kernel.
splat_check()
{
	local prefix=$1 d
	shift

	for d in "$@"; do
		d=${d%/}
		[ -f "$d/console.log" ] || continue
		if python3 tests/lib/splats.py "$d/console.log" > "$d/splats"; then
			grep ': known splat ' "$d/splats" | sed 's/^/# /'
			tap pass "${prefix}no splat on ${d##*/}'s console"
		else
			sed 's/^/# /' "$d/splats"
			tap fail "${prefix}no splat on ${d##*/}'s console" \
				"$(grep -c ': splat ' "$d/splats") splat(s)"
		fi
	done
}

phase_build()
{
	phase_start build
	if make -s all > "$results/build.log" 2>&1; then
		echo "# qemu: $(tests/bench/qemu-run.sh --version 2>&1)"
		tap pass "build: patched, vanilla and modules kernels, guest image, bench tools"
	else
		tail -n 40 "$results/build.log" | sed 's/^/# /'
		tap fail "build: patched, vanilla and modules kernels, guest image, bench tools" \
			"see $results/build.log"
		phase_end
		return 1
	fi
	phase_end
}

# unit_py FILE: one TAP line per test of a Python unittest file.  A run
# that failed with no failed test line to show for it (an error in a
# fixture, a line that does not parse) is one more failure.
unit_py()
{
	local t=$1 rc log tapf

	log=$results/$(basename "$t").log tapf=$results/$(basename "$t").tap
	python3 -m unittest -v "$t" > "$log" 2>&1
	rc=$?
	sed -n 's/^test_[a-z0-9_]* (\([^)]*\)) \.\.\. \(.*\)$/\2\t\1/p' "$log" |
	while IFS=$'\t' read -r res name; do
		case "$res" in
		ok) echo "pass	$name	" ;;
		skipped*) echo "skip	$name	${res#skipped }" ;;
		*) echo "fail	$name	$res" ;;
		esac
	done > "$tapf"
	tap_from "tools: " "$tapf"
	if [ "$rc" -ne 0 ] && ! grep -q '^fail' "$tapf"; then
		grep -E '^(ERROR|FAIL):' "$log" | head -n 5 | sed 's/^/# /'
		tap fail "tools: $t" "exit $rc; see $log"
	fi
}

phase_tools()
{
	local t rc b

	phase_start tools
	for t in tests/unit/test_*.py; do
		unit_py "$t"
	done
	for t in tests/unit/test_*.c; do
		[ -e "$t" ] || continue
		b=$results/$(basename "$t" .c)
		if ! gcc -O2 -Wall -Wextra -Werror -o "$b" "$t" > "$b.log" 2>&1; then
			sed 's/^/# /' "$b.log"
			tap fail "tools: $(basename "$t" .c): build" "see $b.log"
			continue
		fi
		"$b" > "$b.out" 2>&1
		rc=$?
		python3 tests/lib/ktap.py tap "$b.out" > "$b.tap"
		tap_from "tools: $(basename "$t" .c): " "$b.tap"
		[ "$rc" -eq 0 ] || tap fail "tools: $t" "exit $rc"
	done
	for t in tests/unit/test_*.sh; do
		[ -e "$t" ] || continue
		bash "$t" > "$results/$(basename "$t").log" 2>&1
		rc=$?
		python3 tests/lib/ktap.py tap "$results/$(basename "$t").log" \
			> "$results/$(basename "$t").tap"
		tap_from "tools: $(basename "$t" .sh): " "$results/$(basename "$t").tap"
		[ "$rc" -eq 0 ] || tap fail "tools: $t" "exit $rc"
	done
	# ethtool's own test suite, on the patched ethtool of the guest image.
	if mk/ethtool.sh check > "$results/ethtool-check.log" 2>&1; then
		tap pass "tools: ethtool 6.1 make check, with tools/ethtool patches" \
			"$(grep -E '^# PASS' "$results/ethtool-check.log" | tr -s ' ')"
	else
		tail -n 10 "$results/ethtool-check.log" | sed 's/^/# /'
		tap fail "tools: ethtool 6.1 make check, with tools/ethtool patches" \
			"see $results/ethtool-check.log"
	fi
	phase_end
}

kunit_boot()
{
	local kind=$1 rc

	guest "kunit-$kind" --kernel "$kind" --nic none --timeout 600 \
		--append "kunit.enable=1" -- true
	rc=$?
	python3 tests/lib/ktap.py kunit "$results/kunit-$kind/console.log" \
		> "$results/kunit-$kind/results" 2>/dev/null
	return "$rc"
}

phase_kunit()
{
	local rc

	phase_start kunit
	kunit_boot patched
	rc=$?
	tap_from "kunit: " "$results/kunit-patched/results"
	[ -s "$results/kunit-patched/results" ] ||
		tap fail "kunit: patched kernel" "no KUnit output"
	[ "$rc" -eq 0 ] || tap fail "kunit: guest" "exit $rc"
	splat_check "kunit: " "$results/kunit-patched"
	phase_end
}

# The project's kselftests, per NIC model: NIC[:LABEL] [bench options] --
# tests.  conformance.sh, rx-reserve's guarantees through the core's
# counters, runs unchanged in every one of them.  virtio-mq has 4 queue pairs on a multiqueue tap with RSS (the
# guest uses 2, one per vCPU, the last one as rx-reserve's reserve queue);
# virtio has one pair (software fallback alone).  e1000e uses RX queue 1
# as the reserve queue; e1000e:msi runs it on MSI (e1000e.IntMode=1),
# where queue 1 has no vector: the fallback alone.  virtio-mq:off boots
# with rx_reserve=off: no driver sets anything up for rx-reserve.  The
# :2nic guests have a second NIC of the same model on one bridge with the
# first: bonds and VLANs, and an NVMe/TCP target and an NFS server (swap
# over NFS) on the second NIC.
selftest_guests=(
	"none -- nsim_link.sh flows.sh unpriv.sh off.sh nsim_slots.sh nsim_admin.sh nsim_flood.sh nsim_emergency.sh nsim_teardown.sh nsim_netlink.sh nsim_badinput.sh nsim_fault.sh nsim_soak.sh nsim_races.sh conformance.sh"
	"virtio-mq --queues 4 --rss on -- nic_basic.sh nbd_rw.sh iscsi_rw.sh virtio_admin.sh virtio_flood.sh virtio_netlink.sh conformance.sh"
	"virtio -- nic_basic.sh nbd_rw.sh iscsi_rw.sh virtio_admin.sh virtio_flood.sh virtio_netlink.sh conformance.sh"
	"e1000e -- nic_basic.sh nbd_rw.sh iscsi_rw.sh e1000e_admin.sh e1000e_flood.sh conformance.sh"
	"e1000e:msi --append e1000e.IntMode=1 -- e1000e_admin.sh e1000e_flood.sh conformance.sh"
	"virtio-mq:off --queues 4 --rss on --append rx_reserve=off -- off.sh"
	"virtio-mq:2nic --queues 4 --rss on --nic2 virtio-mq -- stacked.sh conformance.sh nvme_rw.sh nfs_swap.sh"
	"e1000e:2nic --nic2 e1000e -- stacked.sh conformance.sh nvme_rw.sh nfs_swap.sh"
)

# The modules kernel (config/modules.config): the same patched source with
# the NIC drivers as modules, loaded from the image at boot by their
# modaliases.  modules.sh unloads and reloads the guest's driver with a
# priority flow on its device; the tests after it run on the reloaded one.
modules_guests=(
	"none -- modules.sh flows.sh conformance.sh"
	"virtio-mq --queues 4 --rss on -- modules.sh iscsi_rw.sh conformance.sh"
	"e1000e -- modules.sh iscsi_rw.sh conformance.sh"
)

iscsi_iqn=iqn.2026-12.org.example.rx-reserve:disk

# selftest_guests_run KERNEL PREFIX [SLOW [APPEND [CYCLES]]]: every guest
# of selftest_guests (modules_guests on the modules kernel) on KERNEL, its
# results prefixed with PREFIX; SLOW
# multiplies the time limits, APPEND goes on each kernel command line,
# CYCLES is nsim_soak.sh's number of OOM cycles (20).
selftest_guests_run()
{
	local kernel=$1 prefix=$2 slow=${3:-1} extra=${4:-} cycles=${5:-20}
	local g nic label opts tests t list rc peer name
	local -n guests=selftest_guests

	[ "$kernel" = modules ] && local -n guests=modules_guests
	for g in "${guests[@]}"; do
		label=${g%% *}
		nic=${label%%:*}
		opts=${g#"$label"}; opts=${opts%% -- *}
		tests=${g#* -- }
		list=""
		for t in $tests; do
			list="$list drivers/net/rx_reserve/$t"
		done
		peer=()
		[ "$nic" != none ] && peer=(
			--peer "$top/tests/bench/nbd-peer.sh 64 10809"
			--peer "$top/tests/bench/iscsi-peer.sh 64"
			--peer "$top/tests/bench/flood-peer.sh")
		name=selftests-$label
		[ "$kernel" = patched ] || name=$kernel-$name
		# shellcheck disable=SC2086
		guest "$name" --kernel "$kernel" --nic "$nic" $opts \
			${extra:+--append "$extra"} "${peer[@]}" \
			--timeout $((1200 * slow)) -- \
			"RXR_KSFT_SLOW=$slow RXR_SOAK_CYCLES=$cycles RXR_NBD_PORT=10809 RXR_ISCSI_IQN=$iscsi_iqn RXR_FLOOD_PEER=1 /rxr/ksft.sh$list"
		rc=$?
		guest_tap "${prefix}selftests[$label]: " "$name" "$rc"
	done
}

phase_selftests()
{
	phase_start selftests
	selftest_guests_run patched ""
	selftest_guests_run modules "modules: "
	unpaced_compare
	rss_check "selftests: "
	splat_check "selftests: " "$results"/selftests-*/ "$results"/unpaced-*/ \
		"$results"/modules-selftests-*/
	phase_end
}

# rss_check PREFIX: every guest of this run on virtio-mq with QEMU's RSS
# got eBPF RSS, steering in the host's tun (qemu-run.sh's DIR/rss).
rss_check()
{
	local f guests=0 bad=""

	for f in "$results"/*/rss; do
		[ -e "$f" ] || continue
		guests=$((guests + 1))
		[ "$(cat "$f")" = ebpf ] ||
			bad="$bad $(basename "$(dirname "$f")")=$(cat "$f")"
	done
	if [ "$guests" -eq 0 ]; then
		tap fail "${1}qemu: eBPF RSS on the virtio-mq guests" \
			"no virtio-mq guest with QEMU's RSS ran"
	elif [ -n "$bad" ]; then
		tap fail "${1}qemu: eBPF RSS on the virtio-mq guests" \
			"not eBPF RSS:$bad"
	else
		tap pass "${1}qemu: eBPF RSS on the virtio-mq guests" \
			"$guests guests, $(tests/bench/qemu-run.sh --version)"
	fi
}

# The priority transfer of virtio_flood.sh under an unpaced flood, in one
# run: vanilla (an ordinary socket) beside patched, both on 4 queue pairs
# with the same QEMU options (rss=on, QEMU 10's eBPF RSS in the host's
# tun).  Patched's figures come from the selftests-virtio-mq guest above.
# Each transfer is reported with its ratio to its own no-flood time; the
# bar (within 2x, every run) is make bench's.
unpaced_compare()
{
	local rc v p

	p=$(unpaced_result selftests-virtio-mq)
	unpaced_guest unpaced-vanilla vanilla
	rc=$?
	v=$(unpaced_result unpaced-vanilla)
	if [ "$rc" -ne 0 ] || [ -z "$p" ] || [ -z "$v" ]; then
		tap fail "selftests: unpaced flood, vanilla vs patched" \
			"no figures (vanilla guest exit $rc, vanilla ${v:+a}${v:-no} result, patched ${p:+a}${p:-no} result)"
		return
	fi
	tap pass "selftests: unpaced flood, priority transfer, vanilla vs patched" \
		"vanilla $(unpaced_fig "$v"); patched $(unpaced_fig "$p" "$v")"
	# The figures are the test; the headline target is a verdict beside
	# them, as make bench prints it (RESULTS.md).
	echo "# unpaced: target, patched's whole transfer within 2x of its" \
	     "no-flood time: $(unpaced_verdict "$p")"
}

# unpaced_verdict RESULT: MET when all the bytes arrived within twice the
# same guest's no-flood time, NOT MET otherwise (missing figures too).
unpaced_verdict()
{
	awk -v r="$1" 'BEGIN {
		n = split(r, kv, /[ =]/)
		for (i = 1; i < n; i++) f[kv[i]] = kv[i + 1]
		ok = f["unpaced_bytes"] > 0 && f["unpaced_bytes"] == f["bytes"] &&
		     f["base_ms"] > 0 && f["unpaced_ms"] <= 2 * f["base_ms"]
		x = f["base_ms"] > 0 ? f["unpaced_ms"] / f["base_ms"] : 0
		printf "%s (x%.2f)", (ok ? "MET" : "NOT MET"), x }'
}

# unpaced_guest NAME KERNEL: virtio_flood.sh's unpaced transfer alone, on 4
# queue pairs with QEMU's RSS, as the selftests-virtio-mq guest runs.
unpaced_guest()
{
	guest "$1" --kernel "$2" --nic virtio-mq --queues 4 --rss on \
		--peer "$top/tests/bench/flood-peer.sh" --timeout 300 -- \
		"RXR_FLOOD_PEER=1 RXR_FLOOD_UNPACED_ONLY=1 /rxr/ksft.sh drivers/net/rx_reserve/virtio_flood.sh"
}

# unpaced_result GUEST: its "RESULT unpaced_ms=..." line, if any.
unpaced_result()
{
	grep -ho 'RESULT unpaced_ms=.*' "$results/$1/output.txt" \
		2> /dev/null | tail -1
}

# unpaced_fig RESULT [VANILLA]: "B bytes in M ms", its ratio to the same
# guest's no-flood time, and the throughput against VANILLA's.
unpaced_fig()
{
	awk -v r="$1" -v v="${2:-}" 'function get(s, k,   m) {
		if (match(s, k "=[0-9]+")) return substr(s, RSTART + length(k) + 1, RLENGTH - length(k) - 1) + 0
		return 0 }
	BEGIN {
		b = get(r, "unpaced_bytes"); m = get(r, "unpaced_ms")
		base = get(r, "base_ms")
		printf "%d bytes in %d ms", b, m
		if (base > 0) printf " (x%.2f its no-flood %d ms)", m / base, base
		if (v == "") exit
		vb = get(v, "unpaced_bytes"); vm = get(v, "unpaced_ms")
		x = vb / (vm ? vm : 1); y = b / (m ? m : 1)
		if (x > 0) printf " (x%.2f of vanilla)", y / x
		else if (y > 0) printf " (vanilla moved nothing)"
	}'
}

phase_upstream()
{
	local list k rc

	phase_start upstream
	list=$(sed -e 's/#.*//' -e 's/\.c$//' tests/upstream.list | xargs)
	for k in patched vanilla; do
		# shellcheck disable=SC2086
		guest "upstream-$k" --kernel "$k" --nic none --timeout 900 -- \
			"/rxr/ksft.sh $list"
		rc=$?
		python3 tests/lib/ktap.py tap "$results/upstream-$k/output.txt" \
			> "$results/upstream-$k/results" 2>/dev/null
		[ "$rc" -eq 0 ] || tap fail "upstream: $k guest" "exit $rc"
	done
	kunit_boot vanilla || tap fail "upstream: vanilla KUnit guest" "failed"
	# Regression guard: compare each upstream result with vanilla's.
	compare "kselftest " "$results/upstream-patched/results" \
		"$results/upstream-vanilla/results"
	compare "kunit " "$results/kunit-patched/results" \
		"$results/kunit-vanilla/results" vanilla-only
	splat_check "upstream: " "$results"/upstream-*/ "$results/kunit-vanilla"
	phase_end
}

# compare PREFIX PATCHED VANILLA [vanilla-only]: one result per test; with
# vanilla-only, only tests vanilla has (the project's own suites are not
# upstream's).  A test that fails on patched fails, with vanilla's result
# beside it, unless tests/upstream.xfail lists it with its reason and it
# fails on vanilla too: then it is a skip (xfail).  One that skips on
# patched skips, unless it passes on vanilla.
compare()
{
	local prefix=$1 p=$2 v=$3 mode=${4:-} res name note vres why

	[ -f "$p" ] || : > "$p"
	[ -f "$v" ] || : > "$v"
	while IFS=$'\t' read -r res name note; do
		vres=$(awk -F'\t' -v n="$name" '$2 == n { print $1; exit }' "$v")
		if [ -z "$vres" ]; then
			[ "$mode" = vanilla-only ] && continue
			vres=missing
		fi
		why=$(xfail_reason "$name")
		if [ "$res" = pass ]; then
			tap pass "upstream: $prefix$name" \
				"patched pass, vanilla $vres${why:+; listed in tests/upstream.xfail: remove it}"
		elif [ "$vres" = pass ]; then
			tap fail "upstream: $prefix$name" "REGRESSION: patched $res, vanilla pass"
		elif [ "$res" = skip ]; then
			tap skip "upstream: $prefix$name" \
				"patched skip, vanilla $vres${note:+: $note}"
		elif [ -n "$why" ]; then
			tap skip "upstream: $prefix$name" "xfail: patched $res, vanilla $vres: $why"
		else
			tap fail "upstream: $prefix$name" \
				"patched $res, vanilla $vres too${note:+: $note}; not in tests/upstream.xfail"
		fi
	done < "$p"
	# A test vanilla ran that the patched kernel never reported is lost.
	while IFS=$'\t' read -r vres name note; do
		grep -q "	$name	" "$p" ||
			tap fail "upstream: $prefix$name" "vanilla $vres, patched gave no result"
	done < "$v"
}

# xfail_reason NAME: why tests/upstream.xfail expects NAME to fail; empty
# when it does not list it.
xfail_reason()
{
	awk -F'\t' -v n="$1" '!/^#/ && $1 == n { print $2; exit }' \
		tests/upstream.xfail 2> /dev/null
}

# The debug kernel (config/debug.config: KASAN, lockdep, kmemleak,
# debugobjects, ...) runs every KUnit suite, the project's kselftests on
# each NIC model and the upstream kselftests.  Its guests are several
# times slower: their limits are multiplied by debug_slow.  Any splat on
# a debug guest's console fails the phase, and is printed, but for the
# few that tests/lib/splats.py shows to be mainline's (KNOWN there): those
# are printed as known and do not fail it.
debug_slow=4
debug_append="page_owner=on"
# The soak's OOM cycles take 4 times as long there: 5 of them, with
# page_owner counting rx-reserve's pages, against 20 on the other kernel.
debug_soak_cycles=5

phase_debug()
{
	local list rc d

	phase_start debug
	if make -s debug initramfs host-tools > "$results/debug-build.log" 2>&1; then
		tap pass "debug: build of the debug kernel"
	else
		tail -n 40 "$results/debug-build.log" | sed 's/^/# /'
		tap fail "debug: build of the debug kernel" \
			"see $results/debug-build.log"
		phase_end
		return 1
	fi
	guest debug-kunit --kernel debug --nic none \
		--timeout $((600 * debug_slow)) \
		--append "kunit.enable=1 $debug_append" -- true
	rc=$?
	python3 tests/lib/ktap.py kunit "$results/debug-kunit/console.log" \
		> "$results/debug-kunit/results" 2>/dev/null
	tap_from "debug: kunit: " "$results/debug-kunit/results"
	[ -s "$results/debug-kunit/results" ] ||
		tap fail "debug: kunit" "no KUnit output"
	[ "$rc" -eq 0 ] || tap fail "debug: kunit guest" "exit $rc"

	selftest_guests_run debug "debug: " "$debug_slow" "$debug_append" \
		"$debug_soak_cycles"
	rss_check "debug: "

	list=$(sed -e 's/#.*//' -e 's/\.c$//' tests/upstream.list | xargs)
	# shellcheck disable=SC2086
	guest debug-upstream --kernel debug --nic none \
		--timeout $((900 * debug_slow)) --append "$debug_append" -- \
		"RXR_KSFT_SLOW=$debug_slow /rxr/ksft.sh $list"
	guest_tap "debug: upstream: " debug-upstream $?

	splat_check "debug: " "$results"/debug-*/
	phase_end
}

echo "TAP version 13"
case "$what" in
all)
	if phase_build; then
		phase_tools
		phase_kunit
		phase_selftests
		phase_upstream
	fi ;;
build) phase_build ;;
tools) phase_tools ;;
kunit) phase_kunit ;;
selftests) phase_selftests ;;
upstream) phase_kunit > /dev/null; passed=0 failed=0 skipped=0 n=0; phase_upstream ;;
debug) phase_debug ;;
*) echo "run.sh: unknown phase '$what'" >&2; exit 2 ;;
esac
echo "1..$n"
printf '# total %ds, logs in %s\n' $(($(date +%s) - run_start)) "$results"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$n" -gt 0 ]
