#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iSCSI works through the bench's NIC: log in to the peer's target, write
# random data to its LUN, drop the page cache, read it back and compare.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

MIB=${ISCSI_TEST_MIB:-8}
IQN=${RXR_ISCSI_IQN:-}
ISCSID=

rxr_require_nic
rxr_require_cmd iscsiadm iscsid setsid sha256sum blockdev
if [ -z "$IQN" ]; then
	echo "SKIP: no iSCSI target on the peer (RXR_ISCSI_IQN unset)"
	exit "$ksft_skip"
fi

cleanup()
{
	iscsiadm -m node -T "$IQN" -p "$RXR_PEER4" --logout > /dev/null 2>&1
	[ -n "$ISCSID" ] && kill "$ISCSID" 2> /dev/null
}
trap cleanup EXIT

iscsid_start

check_ok "discovery of $IQN" sh -c \
	"iscsiadm -m discovery -t sendtargets -p $RXR_PEER4 | grep -q '$IQN'"
if ! iscsiadm -m node -T "$IQN" -p "$RXR_PEER4" --login; then
	echo "FAIL: login to $IQN on $RXR_PEER4"
	cat /tmp/iscsid.log
	exit "$ksft_fail"
fi
if ! DISK=$(slowwait 20 iscsi_disk); then
	echo "FAIL: no disk appeared for $IQN"
	exit "$ksft_fail"
fi
rxr_check_kernel_flow "iSCSI socket" "$RXR_PEER4:3260"
blk_rw_check "/dev/$DISK" "$MIB"

exit "$RET"
