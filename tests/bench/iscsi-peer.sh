#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iscsi-peer.sh [MIB]: serve a sparse MIB MiB file (default 64) as LUN 1 of
# target iqn.2026-12.org.example.rx-reserve:disk on 192.0.2.1:3260 with tgt,
# in the foreground, open to any initiator on the bench's network.  Meant for
# qemu-run.sh --peer, which runs it inside the bench namespace with the run's
# log directory as its working directory and removes the image afterwards.
# Each run uses its own tgtd management port, so runs can overlap.

set -eu
mib=${1:-64}
iqn=iqn.2026-12.org.example.rx-reserve:disk
img=$PWD/iscsi-export.img
port=$((5000 + $$ % 20000))

rm -f "$img"
truncate -s "${mib}M" "$img"
tgtd -f -C "$port" --iscsi portal=192.0.2.1:3260 &
tgtd=$!
trap 'kill $tgtd 2>/dev/null' EXIT

tgt() { tgtadm -C "$port" --lld iscsi "$@"; }
for i in $(seq 50); do
	tgt --op show --mode sys > /dev/null 2>&1 && break
	sleep 0.1
done
tgt --op new --mode target --tid 1 -T "$iqn"
tgt --op new --mode logicalunit --tid 1 --lun 1 -b "$img"
tgt --op bind --mode target --tid 1 -I 192.0.2.0/24
echo "iscsi-peer: $iqn on 192.0.2.1:3260, LUN 1 ${mib} MiB (tgtd port $port)"
wait "$tgtd"
