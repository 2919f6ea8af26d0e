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

# rxr_require_nic: set NIC, or skip when the bench gave this guest none.
rxr_require_nic()
{
	if [ "${RXR_NIC:-none}" = none ] || ! NIC=$(rxr_nic); then
		echo "SKIP: no NIC cabled to a peer (RXR_NIC=${RXR_NIC:-unset})"
		exit "$ksft_skip"
	fi
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

# check_ok WHAT CMD...: log whether CMD succeeds, remember a failure.
check_ok()
{
	local what=$1

	shift
	if "$@"; then
		printf 'PASS: %s\n' "$what"
	else
		printf 'FAIL: %s: %s failed\n' "$what" "$*"
		RET=$ksft_fail
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
# drop the page cache, read it back through $NIC and compare.
blk_rw_check()
{
	local dev=$1 mib=$2 want rx0

	check_ge "$dev size" $((mib << 20)) "$(blockdev --getsize64 "$dev")"
	head -c $((mib << 20)) /dev/urandom > /tmp/rxr_blk.out
	want=$(sha256sum < /tmp/rxr_blk.out | cut -d' ' -f1)
	check_ok "write of $mib MiB to $dev" \
		dd if=/tmp/rxr_blk.out of="$dev" bs=1M conv=fsync status=none

	blockdev --flushbufs "$dev"
	echo 3 > /proc/sys/vm/drop_caches
	rx0=$(link_stat "$NIC" rx bytes)
	dd if="$dev" of=/tmp/rxr_blk.in bs=1M count="$mib" status=none
	check_eq "read back of $mib MiB from $dev" "$want" \
		"$(sha256sum < /tmp/rxr_blk.in | cut -d' ' -f1)"
	check_ge "$NIC rx bytes during the read" $((mib << 20)) \
		$(($(link_stat "$NIC" rx bytes) - rx0))
	rm -f /tmp/rxr_blk.out /tmp/rxr_blk.in
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
