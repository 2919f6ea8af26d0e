#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh: build the guest image, build/initramfs.cpio.gz.
#
# busybox-static provides the shell and core tools.  iproute2, nbd-client,
# nbd-server (stacked.sh's peer inside the guest), open-iscsi, nvme-cli and
# bash come from the host's Debian packages with the shared libraries they
# need; ethtool is Debian's 6.1 with the project's patch (mk/ethtool.sh),
# which adds --show-rx-reserve.  The project's kselftests and
# a selection of upstream ones are laid out under /kselftest as in
# tools/testing/selftests, and the project's test programs are built here.
# The bench appends a second, per-run archive with the script to run.

set -eu
: "${BUILD:?}"
top=$PWD
tree=$BUILD/patched/linux
stage=$BUILD/initramfs
out=$BUILD/initramfs.cpio.gz
sft=$tree/tools/testing/selftests
PATH=$PATH:/usr/sbin:/sbin

# Host programs for the guest, with the Debian package each comes from.
progs="bash ip jq nbd-client nbd-server iscsiadm iscsid nvme"
ethtool_bin=$BUILD/ethtool/bin/ethtool
[ -x "$ethtool_bin" ] || { echo "initramfs: run make ethtool first" >&2; exit 1; }
# The bench's memory load, for the soak test (nsim_soak.sh).
memload_bin=$BUILD/bin/memload
nfs_root=$BUILD/nfs/root
[ -x "$nfs_root/sbin/mount.nfs" ] ||
	{ echo "initramfs: run make nfs first" >&2; exit 1; }
[ -x "$memload_bin" ] || { echo "initramfs: build $memload_bin first" >&2; exit 1; }

# Upstream kselftests run as a regression guard (tests/upstream.list),
# plus the library files they and the project's tests source.
ksft_files="net/lib.sh kselftest/ktap_helpers.sh
	    drivers/net/netdevsim/ethtool-common.sh"

# Rebuild only when an input changed.
inputs()
{
	cat "$0" "$top"/tests/guest/* "$top/tests/upstream.list"
	tar -C "$sft" -cf - --sort=name --mtime=@0 drivers/net/rx_reserve \
		$ksft_files $(sed 's/#.*//' "$top/tests/upstream.list")
	dpkg-query -W busybox-static bash ethtool iproute2 jq nbd-client \
		nbd-server open-iscsi nvme-cli coreutils libc6
	cat "$BUILD/patched/out/include/generated/uapi/linux/version.h"
	cat "$ethtool_bin" "$memload_bin" "$BUILD/nfs/stamp"
}
stamp=$(inputs 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "initramfs: up to date, $out"
	exit 0
fi

rm -rf "$stage"
mkdir -p "$stage"/usr/{bin,sbin,lib,lib64} \
	"$stage"/{etc,proc,sys,dev,tmp,run,root,mnt,kselftest}
cd "$stage"
# Merged /usr, as on the host, so that host paths resolve the same way.
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$d"
done

# copy_libs BIN: the shared libraries BIN needs, at their host paths.
copy_libs()
{
	local lib dst
	for lib in $(ldd "$1" 2>/dev/null |
		     awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }'); do
		dst=usr/${lib#/usr/}
		dst=${dst#/}
		[ -e "$dst" ] && continue
		mkdir -p "$(dirname "$dst")"
		cp -L "$lib" "$dst"
	done
}

# GNU tools the kselftests expect (readlink -e, sort -V, sed -E, ...).
gnu_pkgs="coreutils grep sed procps util-linux"
# shellcheck disable=SC2086
progs="$progs $(dpkg -L $gnu_pkgs | grep -E '^/(usr/)?s?bin/[^/[]+$' |
	grep -v -e '/su$' -e '/login$' -e '/sulogin$' | sort -u)"

# The host programs, under the name scripts call them by.
for p in $progs; do
	case "$p" in
	/*) bin=$p; p=$(basename "$p") ;;
	*) bin=$(command -v "$p") ||
		{ echo "initramfs: $p not found" >&2; exit 1; } ;;
	esac
	[ -e "$bin" ] || continue
	real=$(readlink -f "$bin")
	dst=usr/${real#/usr/}
	dst=${dst#/}
	cp -L "$real" "$dst"
	copy_libs "$real"
	[ "$(basename "$dst")" = "$p" ] || ln -sf "/$dst" "usr/bin/$p"
done

# The patched ethtool, where Debian's would be.
cp "$ethtool_bin" usr/sbin/ethtool
copy_libs "$ethtool_bin"
cp "$memload_bin" usr/bin/memload

# bookworm's NFS tools (mk/nfs.sh), for nfs_swap.sh: the client's
# mount.nfs, and what starts the kernel's nfsd and serves its exports.
for p in sbin/mount.nfs usr/sbin/rpc.nfsd usr/sbin/rpc.mountd \
	 usr/sbin/exportfs; do
	cp "$nfs_root/$p" usr/sbin/
	copy_libs "$nfs_root/$p"
done
ln -s mount.nfs usr/sbin/mount.nfs4
mkdir -p var/lib/nfs
: > etc/exports
# Service and protocol names, as the tools look them up (netbase).
cp /etc/netconfig /etc/services /etc/protocols etc/

# busybox for everything else (never shadowing a real program).  Debian's
# busybox-static shell prefers its own applets to programs on PATH, so the
# shell is bash.
ln -s bash usr/bin/sh
cp /bin/busybox usr/bin/busybox
for a in $(usr/bin/busybox --list); do
	[ -e "usr/bin/$a" ] || [ -e "usr/sbin/$a" ] || ln -s busybox "usr/bin/$a"
done

cat > etc/passwd <<'PW'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
cat > etc/group <<'GR'
root:x:0:
nogroup:x:65534:
GR
echo rxr-guest > etc/hostname
mkdir -p etc/iscsi
echo "InitiatorName=iqn.2026-12.org.example.rx-reserve:guest" \
	> etc/iscsi/initiatorname.iscsi
cp /etc/iscsi/iscsid.conf etc/iscsi/

# The guest side of the bench.
cp "$top/tests/guest/init" init
chmod +x init
mkdir -p rxr
cp "$top"/tests/guest/*.sh rxr/

# kselftests: the project's own, then upstream files.
for f in $ksft_files; do
	mkdir -p "kselftest/$(dirname "$f")"
	cp "$sft/$f" "kselftest/$f"
done
mkdir -p kselftest/drivers/net
cp -r "$sft/drivers/net/rx_reserve" kselftest/drivers/net/
while read -r t _; do
	case "$t" in ''|'#'*) continue ;; esac
	mkdir -p "kselftest/$(dirname "$t")"
	cp "$sft/$t" "kselftest/$t"
done < "$top/tests/upstream.list"

# C test programs: the project's own (tools/testing/selftests/.../rx_reserve)
# and upstream ones named in tests/upstream.list, built against the kernel's
# uapi headers.
make -s -C "$tree" O="$BUILD/patched/out" headers >/dev/null
hdr=$BUILD/patched/out/usr/include
build_c()
{
	local src=$1 dst=$2
	gcc -O2 -Wall -isystem "$hdr" -I "$sft" -o "$dst" "$src" -lpthread
}
for c in "$sft"/drivers/net/rx_reserve/*.c; do
	[ -e "$c" ] || continue
	build_c "$c" "kselftest/drivers/net/rx_reserve/$(basename "$c" .c)"
done
while read -r t _; do
	case "$t" in *.c) ;; *) continue ;; esac
	build_c "$sft/$t" "kselftest/${t%.c}"
	rm -f "kselftest/$t"
done < "$top/tests/upstream.list"
for b in $(find kselftest -type f -perm -u+x ! -name '*.sh'); do
	copy_libs "$b"
done

find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
echo "$stamp" > "$out.stamp"
echo "initramfs: $(du -h "$out" | cut -f1) $out"
