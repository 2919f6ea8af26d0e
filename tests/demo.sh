#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: `make demo`.  Boots the patched kernel in QEMU, once with a
# 4-queue-pair virtio-net on a multiqueue tap and once with an e1000e, and
# shows each NIC through ethtool.  Later parts of the project grow this into
# the OOM-and-flood comparison of patched and vanilla.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export BUILD=${BUILD:-$top/build}
rc=0

for nic in virtio-mq e1000e; do
	echo "######## patched 6.12, NIC $nic"
	tests/bench/qemu-run.sh --kernel patched --nic "$nic" --queues 4 \
		--timeout 120 --verbose -- /rxr/show-nics.sh || rc=1
	echo
done
exit "$rc"
