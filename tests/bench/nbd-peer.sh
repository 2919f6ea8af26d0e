#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nbd-peer.sh [MIB] [PORT]: serve a sparse MIB MiB file (default 64) as NBD
# export "rxr" on 192.0.2.1:PORT (default 10809), in the foreground.  Meant
# for qemu-run.sh --peer, which runs it inside the bench namespace with the
# run's log directory as its working directory; qemu-run.sh removes the
# image when the run ends.

set -eu
mib=${1:-64}
port=${2:-10809}
img=$PWD/nbd-export.img

rm -f "$img"
truncate -s "${mib}M" "$img"
cat > nbd-server.conf <<CONF
[generic]
	listenaddr = 192.0.2.1
	port = $port
	allowlist = true
[rxr]
	exportname = $img
	flush = true
CONF
exec nbd-server -C "$PWD/nbd-server.conf" -d
