#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nfs.sh: unpack bookworm's nfs-common and nfs-kernel-server into
# $BUILD/nfs/root, for the guest image: mount.nfs, and rpc.nfsd,
# rpc.mountd and exportfs, which start the kernel's nfsd that nfs_swap.sh
# swaps to.  They are unpacked, not installed, so that the host runs no
# NFS service; the libraries they need are the host's (mk/deps.sh).  The
# version is pinned in the Makefile (NFS_UTILS_DEB_VERSION).

set -eu
: "${BUILD:?}" "${NFS_UTILS_DEB_VERSION:?}"
dir=$BUILD/nfs
root=$dir/root
pkgs="nfs-common=$NFS_UTILS_DEB_VERSION nfs-kernel-server=$NFS_UTILS_DEB_VERSION"
progs="sbin/mount.nfs usr/sbin/rpc.nfsd usr/sbin/rpc.mountd usr/sbin/exportfs"

die() { echo "nfs: $*" >&2; exit 1; }

stamp=$(echo "$pkgs" | sha256sum | cut -d' ' -f1)
if [ -x "$root/sbin/mount.nfs" ] &&
   [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

rm -rf "$dir/dl" "$root" "$root.tmp"
mkdir -p "$dir/dl" "$root.tmp"
echo "nfs: downloading nfs-utils $NFS_UTILS_DEB_VERSION"
# shellcheck disable=SC2086
(cd "$dir/dl" && apt-get -q download $pkgs) > "$dir/apt.log" 2>&1 ||
	die "apt-get download failed: $(tail -3 "$dir/apt.log")"
for d in "$dir"/dl/*.deb; do
	dpkg-deb -x "$d" "$root.tmp" || die "cannot unpack $d"
done
for p in $progs; do
	[ -x "$root.tmp/$p" ] || die "no $p in the packages"
	missing=$(ldd "$root.tmp/$p" | awk '/not found/ { print $1 }' | xargs)
	[ -z "$missing" ] || die "$p needs $missing (run make deps)"
done
mv "$root.tmp" "$root"
echo "$stamp" > "$dir/stamp"
echo "nfs: $progs in $root"
