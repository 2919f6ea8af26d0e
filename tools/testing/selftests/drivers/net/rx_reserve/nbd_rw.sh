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
}
trap cleanup EXIT

EXPORT=${RXR_NBD_EXPORT:-rxr}
if ! nbd-client "$RXR_PEER4" "$RXR_NBD_PORT" "$DEV" -N "$EXPORT"; then
	echo "FAIL: nbd-client could not connect to $RXR_PEER4:$RXR_NBD_PORT"
	exit "$ksft_fail"
fi
rxr_check_kernel_flow "nbd socket" "$RXR_PEER4:$RXR_NBD_PORT"
blk_rw_check "$DEV" "$MIB"

exit "$RET"
