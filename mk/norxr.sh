#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# norxr.sh: the four drivers with rx-reserve hooks (e1000e, ixgbe,
# virtio_net, netdevsim) and the core's callers, built as modules from the
# patched source with CONFIG_RX_RESERVE off, as a distribution that does
# not enable it builds them; fails on any warning or error.  The objects
# go to build/norxr/out; only those directories are built (after make
# prepare).

set -u
: "${BUILD:?}"
top=$PWD
src=$BUILD/patched/linux
out=$BUILD/norxr/out
frag=$BUILD/norxr/norxr.config

# shellcheck source=mk/ccache.sh
source "$(dirname "$0")/ccache.sh"
kmake() { make -C "$src" O="$out" CC="$cc" -j"$(nproc)" "$@"; }

mkdir -p "$out"
out=$(readlink -f "$out")
printf '%s\n' "# CONFIG_RX_RESERVE is not set" > "$frag"
(cd "$src" && scripts/kconfig/merge_config.sh -n -O "$out" \
	"$top/config/rx-reserve.config" "$top/config/modules.config" \
	"$frag") > "$BUILD/norxr/config.log" 2>&1 ||
	{ cat "$BUILD/norxr/config.log"; exit 1; }
kmake -s olddefconfig
if grep -q '^CONFIG_RX_RESERVE=y' "$out/.config"; then
	echo "norxr: CONFIG_RX_RESERVE still set"
	exit 1
fi
dirs="drivers/net/ethernet/intel/e1000e/ drivers/net/ethernet/intel/ixgbe/
      drivers/net/netdevsim/ net/core/ net/ipv4/ net/ethtool/"
# shellcheck disable=SC2086
log=$(kmake -s prepare 2>&1 && kmake $dirs drivers/net/virtio_net.o 2>&1)
rc=$?
warn=$(echo "$log" | grep -E 'warning:|error:')
if [ "$rc" -ne 0 ] || [ -n "$warn" ]; then
	echo "$log" | grep -E 'warning:|error:|Error' | head -n 30 | sed 's/^/norxr: /'
	echo "norxr: FAIL: the drivers do not build cleanly without CONFIG_RX_RESERVE"
	exit 1
fi
echo "norxr: e1000e, ixgbe, virtio_net and netdevsim build without" \
	"CONFIG_RX_RESERVE, as modules, with no warning"
