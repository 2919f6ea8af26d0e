#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Network block storage works through the bench's NIC: write random data to
# an NBD export of the peer, drop the page cache, read it back and compare.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

MIB=${NBD_TEST_MIB:-8}
DEV=/dev/nbd0

rxr_require_nic
rxr_require_cmd nbd-client sha256sum blockdev
if [ -z "${RXR_NBD_PORT:-}" ]; then
	echo "SKIP: no NBD server on the peer (RXR_NBD_PORT unset)"
	exit "$ksft_skip"
fi

cleanup()
{
	nbd-client -d "$DEV" > /dev/null 2>&1
	rm -f /tmp/nbd_rw.out /tmp/nbd_rw.in
}
trap cleanup EXIT

EXPORT=${RXR_NBD_EXPORT:-rxr}
if ! nbd-client "$RXR_PEER4" "$RXR_NBD_PORT" "$DEV" -N "$EXPORT"; then
	echo "FAIL: nbd-client could not connect to $RXR_PEER4:$RXR_NBD_PORT"
	exit "$ksft_fail"
fi
size=$(blockdev --getsize64 "$DEV")
check_ge "export size" $((MIB << 20)) "$size"

head -c $((MIB << 20)) /dev/urandom > /tmp/nbd_rw.out
want=$(sha256sum < /tmp/nbd_rw.out | cut -d' ' -f1)
dd if=/tmp/nbd_rw.out of="$DEV" bs=1M conv=fsync 2> /dev/null
check_eq "write of $MIB MiB" 0 $?

blockdev --flushbufs "$DEV"
echo 3 > /proc/sys/vm/drop_caches
rx0=$(link_stat "$NIC" rx bytes)
dd if="$DEV" of=/tmp/nbd_rw.in bs=1M count="$MIB" 2> /dev/null
check_eq "read back of $MIB MiB" "$want" \
	"$(sha256sum < /tmp/nbd_rw.in | cut -d' ' -f1)"
check_ge "$NIC rx bytes during the read" $((MIB << 20)) \
	$(($(link_stat "$NIC" rx bytes) - rx0))

exit "$RET"
