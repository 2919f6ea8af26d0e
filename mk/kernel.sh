#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel.sh KIND [make args...]: configure and build one test kernel.
#
#   KIND=patched  source build/patched/linux, objects build/patched/out
#   KIND=vanilla  source build/vanilla/linux, objects build/vanilla/out
#   KIND=debug    source build/patched/linux, objects build/debug/out, with
#                 config/debug.config (KASAN, lockdep, kmemleak, ...) on top
#   KIND=modules  source build/patched/linux, objects build/modules/out, with
#                 config/modules.config (the NIC drivers as modules) on top;
#                 the modules are installed in build/modules/root and packed
#                 in build/modules/modules.cpio.gz, which qemu-run.sh appends
#                 to the guest image
#
# The two trees have the same shape, and ccache's base_dir is build/, so the
# vanilla and the patched kernel share ccache entries for every file the
# patches do not change: the second kernel builds in a fraction of the time.
#
# Both are allnoconfig plus config/rx-reserve.config.  The .config is only
# replaced when the merged result changed, so a rebuild stays incremental.

set -eu
: "${BUILD:?}"
kind=$1; shift
frags=("$PWD/config/rx-reserve.config")
case "$kind" in
patched|vanilla) src=$BUILD/$kind/linux ;;
debug) src=$BUILD/patched/linux; frags+=("$PWD/config/debug.config") ;;
modules) src=$BUILD/patched/linux; frags+=("$PWD/config/modules.config") ;;
*) echo "kernel: unknown kind '$kind'" >&2; exit 1 ;;
esac
out=$BUILD/$kind/out
tmp=$BUILD/$kind/config.tmp
mkdir -p "$out"
out=$(readlink -f "$out")

# shellcheck source=mk/ccache.sh
source "$(dirname "$0")/ccache.sh"
kmake() { make -C "$src" O="$out" CC="$cc" -j"$(nproc)" "$@"; }

rm -rf "$tmp"
mkdir -p "$tmp"
tmp=$(readlink -f "$tmp")
(cd "$src" && scripts/kconfig/merge_config.sh -n -O "$tmp" "${frags[@]}") \
	> "$tmp.log" 2>&1 || { cat "$tmp.log" >&2; exit 1; }
make -s -C "$src" O="$tmp" olddefconfig >> "$tmp.log" 2>&1
ckind=patched
[ "$kind" = vanilla ] && ckind=vanilla
for i in "${!frags[@]}"; do
	mk/check-config.sh "${frags[$i]}" "$tmp/.config" "$src" "$ckind" \
		"${frags[@]:$((i + 1))}"
done
if ! cmp -s "$tmp/.config" "$out/.config"; then
	cp "$tmp/.config" "$out/.config"
	echo "kernel: $kind: new .config"
fi
rm -rf "$tmp" "$tmp.log"

echo "kernel: building $kind ($(make -s -C "$src" kernelversion)) in $out"
kmake -s olddefconfig
kmake -s bzImage "$@"
ls -l "$out/arch/x86/boot/bzImage"
[ "$kind" = modules ] || exit 0

# The modules, as /lib/modules/RELEASE of an archive that the guest image
# is followed by (the kernel unpacks concatenated archives in order).
kmake -s modules "$@"
root=$BUILD/modules/root
rm -rf "$root" "$root.cpio.gz.tmp"
kmake -s INSTALL_MOD_PATH="$root" modules_install > /dev/null
rm -f "$root"/lib/modules/*/build
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet |
	gzip -1) > "$root.cpio.gz.tmp"
mv "$root.cpio.gz.tmp" "$BUILD/modules/modules.cpio.gz"
echo "kernel: modules: $(find "$root" -name '*.ko' | wc -l) modules in" \
	"$BUILD/modules/modules.cpio.gz"
