#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [--update-only]: install the Debian packages the build, the guest
# image and the bench need, when any is missing.  Runs apt-get update at most
# once per build/ directory.

set -eu
: "${BUILD:=build}"

# Host build tools, the QEMU bench, and what goes into the guest image.
pkgs="build-essential ccache bc bison flex libelf-dev libssl-dev cpio kmod rsync
      xz-utils git perl python3 python3-ply python3-git codespell gzip
      qemu-system-x86 iproute2 nbd-server tgt
      busybox-static bash ethtool jq nbd-client open-iscsi nvme-cli
      dpkg-dev patch autoconf automake pkg-config libmnl-dev gnuplot-nox
      libwrap0 libtirpc-common"

apt_update()
{
	[ -f "$BUILD/.apt-updated" ] && return 0
	echo "deps: apt-get update"
	mkdir -p "$BUILD"
	apt-get update -q >/dev/null
	touch "$BUILD/.apt-updated"
}

if [ "${1:-}" = --update-only ]; then
	apt_update
	exit 0
fi

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
apt_update
echo "deps: installing$missing"
# Services these packages ship (tgt, iscsid, nbd-server) are started by the
# bench itself, inside its namespaces; keep the installer from starting them.
policy=/usr/sbin/policy-rc.d
own_policy=
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' > "$policy"
	chmod +x "$policy"
	own_policy=1
fi
trap '[ -n "$own_policy" ] && rm -f "$policy"' EXIT
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	$missing >/dev/null
