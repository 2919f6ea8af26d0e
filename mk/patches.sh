#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# patches.sh: write the upstream-style series, build/series/*.patch, against
# pristine 6.12: one commit per line of patches/series, holding that patch's
# changes and the overlay files the line names, plus a cover letter from
# patches/cover-letter.  Commits are made on branch "upstream" of build/linux
# with a private index, so build/linux's work tree is not touched.

set -eu
: "${BUILD:?}"
top=$PWD
out=$BUILD/series
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_DIR=$BUILD/patched/linux/.git GIT_INDEX_FILE=$tmp/index

die() { echo "patches: $*" >&2; exit 1; }

git ls-files -co --exclude-standard -- drivers net include tools Documentation \
	':(exclude)tools/ethtool' |
	sort -u > "$tmp/overlay"
: > "$tmp/claimed"

git read-tree base
parent=$(git rev-parse base^{commit})
count=0
while read -r patch globs; do
	[ -f "patches/$patch" ] || die "patches/series names $patch, which is missing"
	git mailinfo "$tmp/msg" "$tmp/diff" < "patches/$patch" > "$tmp/info"
	if [ -s "$tmp/diff" ]; then
		git apply --cached "$tmp/diff" ||
			die "$patch does not apply to base"
	fi
	for g in $globs; do
		matched=0
		while read -r f; do
			# shellcheck disable=SC2254
			case "$f" in $g) ;; *) continue ;; esac
			matched=1
			grep -qxF "$f" "$tmp/claimed" &&
				die "$f is claimed by two patches of the series"
			echo "$f" >> "$tmp/claimed"
			mode=100644
			[ -x "$f" ] && mode=100755
			git update-index --add --cacheinfo \
				"$mode,$(git hash-object -w "$f"),$f"
		done < "$tmp/overlay"
		[ "$matched" = 1 ] || die "$patch: '$g' matches no overlay file"
	done
	subject=$(sed -n 's/^Subject: //p' "$tmp/info")
	author=$(sed -n 's/^Author: //p' "$tmp/info")
	email=$(sed -n 's/^Email: //p' "$tmp/info")
	date=$(sed -n 's/^Date: //p' "$tmp/info")
	{ echo "$subject"; echo; cat "$tmp/msg"; } > "$tmp/commit-msg"
	parent=$(GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email \
		 GIT_AUTHOR_DATE=$date GIT_COMMITTER_NAME=$author \
		 GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date \
		 git commit-tree "$(git write-tree)" -p "$parent" \
		 -F "$tmp/commit-msg")
	count=$((count + 1))
done < <(sed -e 's/#.*//' patches/series | awk 'NF')

unclaimed=$(sort "$tmp/claimed" | comm -23 "$tmp/overlay" -)
[ -z "$unclaimed" ] || die "overlay files in no patch of patches/series:" \
	"$(echo "$unclaimed" | head -5 | xargs)"
git update-ref refs/heads/upstream "$parent"

rm -rf "$out"
git -c user.name="$author" -c user.email="$email" \
	format-patch -q --cover-letter --base=base -o "$out" base..upstream
cover=$(ls "$out"/0000-*.patch)
subject=$(head -n 1 patches/cover-letter)
python3 - "$cover" "$subject" "$top/patches/cover-letter" <<'PY'
import sys
path, subject, blurb_file = sys.argv[1:]
blurb = open(blurb_file).read().split('\n', 2)[2].rstrip('\n')
text = open(path).read()
text = text.replace('*** SUBJECT HERE ***', subject)
text = text.replace('*** BLURB HERE ***', blurb)
open(path, 'w').write(text)
PY
echo "patches: $count patches and a cover letter in $out"
