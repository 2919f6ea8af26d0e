#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: `make demo`.  The bench's most telling cell on QEMU 10, vanilla
# 6.12 and then patched: a 256 MiB guest swapping on NBD through a
# 4-queue-pair virtio-net with eBPF RSS while the peer floods the NIC
# unpaced, the overwhelming flood.  The load may take 4 minutes
# (DEMO_LIMIT, seconds).  Shows the load's progress while it runs, then the
# comparison and the patched guest's ethtool -S and --show-rx-reserve
# view.  DEMO_NIC and DEMO_FLOOD (none, carried, unpaced) pick another
# cell.

top=$(cd "$(dirname "$0")/.." && pwd)
exec "$top/tests/bench/bench.sh" --demo
