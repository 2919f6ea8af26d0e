#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tree.sh: lay patches/ and the overlay over build/linux, incrementally.
#
# patches/series lists the patches in order, one a line, each followed by the
# overlay files (globs) that `make patches` folds into it.  They are applied
# with git am on branch rx-reserve, from tag base.  A series that did not
# change is not applied again, and overlay files are copied only when their
# content changed, so a rebuild after editing one file recompiles that file.
#
# Overlay: every file the repo has under drivers/ net/ include/ tools/ and
# Documentation/.  Each is a new file; one that exists in the kernel is
# refused, because changes to kernel files are patches.

set -eu
: "${BUILD:?}" "${LINUX_DEB_VERSION:?}"
top=$PWD
tree=$BUILD/patched/linux
gitdir=$tree/.git
have=$(cat "$BUILD/vanilla/version")
overlay_dirs="drivers net include tools Documentation"

die() { echo "tree: $*" >&2; exit 1; }
git_t() { git -C "$tree" -c user.name=rx-reserve \
	-c user.email=rx-reserve@localhost "$@"; }

series_patches() { sed -e 's/#.*//' patches/series | awk 'NF { print $1 }'; }

# --- patches ---------------------------------------------------------------
stamp=$( (cat patches/series; series_patches | sed 's|^|patches/|' |
	  xargs -r cat) | sha256sum | cut -d' ' -f1)
old_stamp=$(cat "$gitdir/rxr-series" 2>/dev/null || true)
old_head=$(cat "$gitdir/rxr-head" 2>/dev/null || true)
head=$(git_t rev-parse HEAD)

# patch_ids: the stable patch-id of each commit on base..HEAD, or of each
# patch of the series (with "series" as $1), one a line, in order.
patch_ids()
{
	local c p

	if [ "${1:-}" = series ]; then
		for p in $(series_patches); do
			git_t patch-id --stable < "patches/$p" | cut -d' ' -f1
		done
	else
		for c in $(git_t rev-list --reverse base..HEAD); do
			git_t show "$c" | git_t patch-id --stable | cut -d' ' -f1
		done
	fi
}

if [ "$head" != "$old_head" ] && [ -n "$old_head" ] &&
   [ "$(patch_ids)" = "$(patch_ids series)" ]; then
	# The tree's commits were exported to patches/ (README, "Turning a
	# change into a patch"): the tree already is what the series makes.
	echo "$stamp" > "$gitdir/rxr-series"
	echo "$head" > "$gitdir/rxr-head"
	old_stamp=$stamp old_head=$head
fi

if [ "$stamp" != "${old_stamp%% *}" ] || [ "$head" != "$old_head" ]; then
	if [ -n "$old_head" ] && [ "$head" != "$old_head" ] &&
	   [ -z "${FORCE:-}" ]; then
		die "$tree has commits that are not in patches/: export them" \
		    "(see README, 'Turning a change into a patch'), or run" \
		    "'make tree FORCE=1' to drop them"
	fi
	if [ -n "$(git_t status --porcelain --untracked-files=no)" ]; then
		die "$tree has uncommitted changes to kernel files:" \
		    "$(git_t status --porcelain --untracked-files=no | head -5)"
	fi
	git_t checkout -q -B rx-reserve base
	n=0
	for p in $(series_patches); do
		[ -f "patches/$p" ] || die "patches/series names $p, which is missing"
		if ! err=$(git_t am -q "$top/patches/$p" 2>&1); then
			echo "$err" | grep -v '^hint:' | head -n 5 >&2
			git_t am --abort >/dev/null 2>&1 || true
			git_t checkout -q -f rx-reserve
			rm -f "$gitdir/rxr-series" "$gitdir/rxr-head"
			die "patches/$p does not apply to linux-source-6.12" \
			    "$have (the series is pinned to $LINUX_DEB_VERSION)"
		fi
		n=$((n + 1))
	done
	echo "$stamp" > "$gitdir/rxr-series"
	git_t rev-parse HEAD > "$gitdir/rxr-head"
	echo "tree: applied $n patches to linux-source-6.12 $have"
fi

# --- overlay ---------------------------------------------------------------
list=$(mktemp)
trap 'rm -f "$list" "$list.old"' EXIT
# shellcheck disable=SC2086
# tools/ethtool holds the patch for Debian's ethtool (mk/ethtool.sh), not
# kernel files.
git ls-files -co --exclude-standard -- $overlay_dirs ':(exclude)tools/ethtool' |
	sort -u > "$list"
if [ -s "$list" ]; then
	clash=$(git_t ls-tree -r --name-only base -- $(cat "$list") | head -5)
	[ -z "$clash" ] || die "these overlay files exist in the kernel; change" \
		"them with a patch instead: $clash"
	for f in $(git_t ls-files -- $(cat "$list")); do
		die "a patch in the series adds $f, which the overlay also has"
	done
fi
touch "$gitdir/rxr-overlay"
comm -13 "$list" "$gitdir/rxr-overlay" > "$list.old"
while read -r f; do
	rm -f "$tree/$f"
done < "$list.old"
changed=$(rsync -rc --out-format='%n' --files-from="$list" ./ "$tree/" |
	  grep -vc '/$' || true)
cp "$list" "$gitdir/rxr-overlay"
echo "tree: overlay $(wc -l < "$list") files, $changed updated," \
     "$(wc -l < "$list.old") removed"
