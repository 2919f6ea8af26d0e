#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ethtool.sh [check]: build Debian's ethtool 6.1 with the project's patches
# (tools/ethtool/*.patch, applied in order) into $BUILD/ethtool/bin/ethtool,
# the ethtool of the guest image.  The source comes from Debian's archive
# with apt-get source, through a deb-src list of the build's own, so the
# host's apt configuration stays as it is.  "check" runs ethtool's own test
# suite (make check) on the patched tree.

set -eu
: "${BUILD:?}"
# The one place the ethtool source version is pinned.
ETHTOOL_DEB_VERSION=1:6.1-1
top=$PWD
dir=$BUILD/ethtool
src=$dir/src
bin=$dir/bin/ethtool
apt=$dir/apt

die() { echo "ethtool: $*" >&2; exit 1; }
# shellcheck source=mk/apt-own.sh
. "$(dirname "$0")/apt-own.sh"

stamp=$( (echo "$ETHTOOL_DEB_VERSION"; cat "$0" tools/ethtool/*.patch) |
	 sha256sum | cut -d' ' -f1)
if [ "${1:-}" != check ] && [ -x "$bin" ] &&
   [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "ethtool: up to date, $bin"
	exit 0
fi

# The source package, once.
ver=${ETHTOOL_DEB_VERSION#*:}
dsc=$dir/dl/ethtool_$ver.dsc
if [ ! -f "$dsc" ]; then
	mkdir -p "$dir/dl"
	apt_own "$apt" "deb-src http://deb.debian.org/debian bookworm main"
	echo "ethtool: apt-get source ethtool=$ETHTOOL_DEB_VERSION" >&2
	apt-get -q "${apt_opts[@]}" update > "$dir/apt.log" 2>&1 ||
		die "apt-get update failed: $(tail -3 "$dir/apt.log")"
	(cd "$dir/dl" && apt-get -q "${apt_opts[@]}" source --download-only \
		"ethtool=$ETHTOOL_DEB_VERSION") >> "$dir/apt.log" 2>&1 ||
		die "apt-get source failed: $(tail -3 "$dir/apt.log")"
fi

if [ "${1:-}" != check ] || [ ! -f "$src/Makefile" ]; then
	rm -rf "$src"
	dpkg-source -q -x "$dsc" "$src" > "$dir/build.log" 2>&1 ||
		die "dpkg-source failed: $(tail -3 "$dir/build.log")"
	for p in "$top"/tools/ethtool/*.patch; do
		patch -d "$src" -p1 -s < "$p" >> "$dir/build.log" 2>&1 ||
			die "$(basename "$p") does not apply: $(tail -3 "$dir/build.log")"
	done
	# As debian/rules does: the patch changes Makefile.am.
	(cd "$src" && ./autogen.sh && ./configure -q --sbindir=/sbin &&
	 make -j"$(nproc)" -s) >> "$dir/build.log" 2>&1 ||
		die "build failed: $(tail -5 "$dir/build.log")"
	mkdir -p "$dir/bin"
	cp "$src/ethtool" "$bin"
	echo "$stamp" > "$dir/stamp"
	echo "ethtool: built $bin ($("$bin" --version))"
fi

if [ "${1:-}" = check ]; then
	make -C "$src" -s check > "$dir/check.log" 2>&1 ||
		die "make check failed: $(grep -E '^(FAIL|ERROR)' "$dir/check.log" | head -5)"
	grep -E '^# (TOTAL|PASS|FAIL|ERROR)' "$dir/check.log"
fi
