#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# w1.sh: build each C file of the overlay alone with W=1 in the patched
# tree, and fail on any warning.  Only those objects are rebuilt with W=1,
# so the kernel's other objects keep their flags.

set -u
: "${BUILD:?}"
src=$BUILD/patched/linux
out=$BUILD/patched/out
objs=$(git ls-files -co --exclude-standard -- drivers net include |
       sed -n 's/\.c$/.o/p')
[ -n "$objs" ] || { echo "w1: no C files in the overlay"; exit 0; }
cc=gcc
command -v ccache > /dev/null && cc="ccache gcc"
# shellcheck disable=SC2086
log=$(make -C "$src" O="$out" CC="$cc" W=1 -j"$(nproc)" $objs 2>&1)
rc=$?
warn=$(echo "$log" | grep -E 'warning:|error:')
echo "$log" | grep -E 'warning:|error:|CC ' | sed 's/^/w1: /'
if [ "$rc" -ne 0 ] || [ -n "$warn" ]; then
	echo "w1: FAIL: $(echo "$objs" | wc -w) objects, warnings or errors above"
	exit 1
fi
echo "w1: $(echo "$objs" | wc -w) objects build with W=1 and no warning"
