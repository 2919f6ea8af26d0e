#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu.sh: unpack QEMU 10 from bookworm-backports into
# $BUILD/qemu/root, beside the system's QEMU 7.2, for the bench and the
# tests.  Its virtio-net does RSS in the host kernel's tun, through QEMU's
# eBPF steering program (QEMU 7.2's cannot load under libbpf 1.x and falls
# back to RSS in userspace, which parks whole tap queues).
#
# The packages come through a sources list of the build's own, so the
# host's apt configuration and its QEMU stay as they are; the shared
# libraries QEMU 10 needs are those of bookworm's qemu-system-x86, which
# mk/deps.sh installs.  The versions are pinned in the Makefile
# (QEMU_DEB_VERSION, SEABIOS_DEB_VERSION); tests/bench/qemu-run.sh runs
# $BUILD/qemu/root/usr/bin/qemu-system-x86_64.

set -eu
: "${BUILD:?}" "${QEMU_DEB_VERSION:?}" "${SEABIOS_DEB_VERSION:?}"
dir=$BUILD/qemu
root=$dir/root
bin=$root/usr/bin/qemu-system-x86_64
apt=$dir/apt
pkgs="qemu-system-x86=$QEMU_DEB_VERSION qemu-system-common=$QEMU_DEB_VERSION
      qemu-system-data=$QEMU_DEB_VERSION seabios=$SEABIOS_DEB_VERSION"

die() { echo "qemu: $*" >&2; exit 1; }
# shellcheck source=mk/apt-own.sh
. "$(dirname "$0")/apt-own.sh"

stamp=$(echo "$pkgs" | sha256sum | cut -d' ' -f1)
if [ -x "$bin" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

mkdir -p "$dir/dl"
apt_own "$apt" "deb http://deb.debian.org/debian bookworm-backports main"
echo "qemu: downloading QEMU $QEMU_DEB_VERSION from bookworm-backports"
apt-get -q "${apt_opts[@]}" update > "$dir/apt.log" 2>&1 ||
	die "apt-get update failed: $(tail -3 "$dir/apt.log")"
rm -f "$dir"/dl/*.deb
# shellcheck disable=SC2086
(cd "$dir/dl" && apt-get -q "${apt_opts[@]}" download $pkgs) \
	>> "$dir/apt.log" 2>&1 ||
	die "apt-get download failed: $(tail -3 "$dir/apt.log")"

rm -rf "$root" "$root.tmp"
mkdir -p "$root.tmp"
for d in "$dir"/dl/*.deb; do
	dpkg-deb -x "$d" "$root.tmp" || die "cannot unpack $d"
done
mv "$root.tmp" "$root"

# The same libraries as bookworm's QEMU 7.2: none may be missing.
missing=$(ldd "$bin" | awk '/not found/ { print $1 }' | xargs)
[ -z "$missing" ] || die "$bin needs $missing (is qemu-system-x86 installed?)"
got=$("$bin" --version | head -n 1)
case "$got" in
*"(Debian $QEMU_DEB_VERSION)"*|*"(Debian ${QEMU_DEB_VERSION#*:})"*) ;;
*) die "unpacked $got, not $QEMU_DEB_VERSION" ;;
esac
echo "$stamp" > "$dir/stamp"
echo "qemu: $got in $root"
