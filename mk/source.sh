#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# source.sh: install Debian's linux-source-6.12 and unpack it into build/.
#
#   build/vanilla/linux/   pristine tree: the vanilla kernel's source
#   build/vanilla/version  the linux-source-6.12 package version unpacked
#   build/patched/linux/   git repo of the same tree, tag "base"; make tree
#                          applies patches/ as commits on branch rx-reserve
#                          and lays the overlay over it
#
# The pinned package version comes from the Makefile (LINUX_DEB_VERSION).
# Another version is used when it is what the machine has; mk/tree.sh then
# fails with both versions named if the series does not apply to it.

set -eu
: "${LINUX_DEB_VERSION:?}" "${BUILD:?}"
pkg=linux-source-6.12
tarball=/usr/src/$pkg.tar.xz

installed_version()
{
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$pkg" 2>/dev/null |
		awk '$1 == "ii" { print $2 }'
}

if [ ! -r "$tarball" ] || [ -z "$(installed_version)" ]; then
	echo "source: installing $pkg=$LINUX_DEB_VERSION"
	mk/deps.sh --update-only
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "$pkg=$LINUX_DEB_VERSION" >/dev/null; then
		echo "source: $pkg=$LINUX_DEB_VERSION is not available," \
		     "installing the archive's candidate" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "$pkg" >/dev/null
	fi
fi

have=$(installed_version)
if [ "$have" != "$LINUX_DEB_VERSION" ]; then
	echo "source: WARNING: pinned $pkg $LINUX_DEB_VERSION, using $have"
fi

src=$BUILD/vanilla/linux
if [ "$(cat "$BUILD/vanilla/version" 2>/dev/null)" != "$have" ]; then
	echo "source: unpacking $tarball ($pkg $have) into $src"
	rm -rf "$src" "$src.tmp" "$BUILD/vanilla/version"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
	echo "$have" > "$BUILD/vanilla/version"
fi

git_q() { git -C "$BUILD/patched/linux" -c user.name=rx-reserve \
	-c user.email=rx-reserve@localhost "$@"; }

if [ "$(git_q tag -l base -n1 2>/dev/null | awk '{ print $2 }')" != "$have" ]; then
	echo "source: making $BUILD/patched/linux, a git tree of $pkg $have (tag base)"
	rm -rf "$BUILD/patched/linux" "$BUILD/patched/linux.tmp"
	mkdir -p "$BUILD/patched/linux.tmp"
	tar -xJf "$tarball" -C "$BUILD/patched/linux.tmp" --strip-components=1
	mv "$BUILD/patched/linux.tmp" "$BUILD/patched/linux"
	git_q init -q -b rx-reserve
	# Debian's .gitignore ignores the whole top level: add by force.
	git_q add -A -f
	git_q commit -q -m "Linux $(make -s -C "$BUILD/patched/linux" kernelversion) ($pkg $have)"
	git_q tag -a -m "$have" base
fi
echo "source: $pkg $have (pinned $LINUX_DEB_VERSION)"
