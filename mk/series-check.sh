#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh: build the series one patch at a time, as netdev's CI does.
# Each commit of branch "upstream" (written by make patches: one commit per
# patch of build/series, on pristine 6.12) is checked out in turn in
# build/step/linux and built there (allnoconfig plus config/rx-reserve.config,
# as mk/kernel.sh does; bzImage) into build/step/out, incrementally; then the
# C files the patch adds or changes are rebuilt with W=1.  Fails at the first
# patch whose tree does not build, or that leaves a W=1 warning in a file it
# touches.  SERIES_FIRST and SERIES_LAST (1-based) pick a range of patches.
#
# Not part of make test: each step rebuilds what its patch touches, and a
# patch that changes a widely included header rebuilds most of the kernel.

set -u
: "${BUILD:?}"
top=$PWD
repo=$BUILD/patched/linux
dir=$BUILD/step
src=$dir/linux
out=$dir/out
first=${SERIES_FIRST:-1}
last=${SERIES_LAST:-1000}

die() { echo "series-check: $*" >&2; exit 1; }

mapfile -t commits < <(git -C "$repo" rev-list --reverse base..upstream)
[ "${#commits[@]}" -gt 0 ] || die "no series (run make patches)"
[[ $first =~ ^[0-9]+$ && $last =~ ^[0-9]+$ && $first -ge 1 ]] ||
	die "SERIES_FIRST and SERIES_LAST want numbers from 1"

# shellcheck source=mk/ccache.sh
source "$(dirname "$0")/ccache.sh"
kmake() { make -C "$src" O="$out" CC="$cc" -j"$(nproc)" "$@"; }

if [ ! -e "$src/.git" ]; then
	mkdir -p "$dir"
	git -C "$repo" worktree add -q --detach "$src" base ||
		die "cannot add the worktree $src"
fi
mkdir -p "$out"
out=$(readlink -f "$out")

n=0 failed=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	if [ "$n" -lt "$first" ] || [ "$n" -gt "$last" ]; then
		continue
	fi
	subject=$(git -C "$repo" log -1 --format=%s "$c")
	git -C "$src" checkout -q --detach "$c" || die "cannot check out $c"
	log=$dir/$(printf '%02d' "$n").log
	t0=$(date +%s)
	if ! { (cd "$src" && scripts/kconfig/merge_config.sh -n -O "$out" \
			"$top/config/rx-reserve.config") &&
	       kmake olddefconfig && kmake bzImage; } > "$log" 2>&1; then
		grep -E 'error:|Error [0-9]' "$log" | head -n 20 |
			sed 's/^/series-check:   /'
		echo "series-check: FAIL $n/${#commits[@]} $subject: does not build (see $log)"
		failed=1
		break
	fi
	# shellcheck disable=SC2207 # file names without spaces
	objs=($(git -C "$src" diff --name-only --diff-filter=AM "$c^" "$c" -- \
		'*.c' ':(exclude)tools' ':(exclude)scripts' |
		sed 's/\.c$/.o/'))
	warn=""
	if [ "${#objs[@]}" -gt 0 ]; then
		touch "${objs[@]/#/$src/}" 2> /dev/null
		kmake W=1 "${objs[@]}" > "$log.w1" 2>&1 ||
			warn="W=1 build failed"
		w=$(grep -E '(warning|error):' "$log.w1" | grep -F -f \
			<(printf '%s\n' "${objs[@]/%.o/.c}"))
		[ -n "$w" ] && warn=$w
	fi
	if [ -n "$warn" ]; then
		echo "$warn" | head -n 20 | sed 's/^/series-check:   /'
		echo "series-check: FAIL $n/${#commits[@]} $subject: W=1 warnings in the files it touches (see $log.w1)"
		failed=1
		break
	fi
	echo "series-check: ok $n/${#commits[@]} $subject ($(($(date +%s) - t0)) s, ${#objs[@]} C files with W=1)"
done
exit "$failed"
