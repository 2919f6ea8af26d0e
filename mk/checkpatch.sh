#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh: run the kernel's checkpatch.pl --strict over the series that
# `make patches` wrote, as netdev's CI does (80 columns, codespell), and
# fail on any error, warning or check.

set -u
: "${BUILD:?}"
# checkpatch's helpers (spdxcheck.py, codespell) use Debian's python3 modules.
export PATH=/usr/bin:$PATH
tree=$BUILD/patched/linux
dict=$(/usr/bin/python3 -c 'import codespell_lib, os; print(os.path.join(os.path.dirname(codespell_lib.__file__), "data", "dictionary.txt"))' 2>/dev/null)
spell=()
[ -r "$dict" ] && spell=(--codespell --codespellfile "$dict")

bad=0 n=0
for p in "$BUILD"/series/0*.patch; do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	if out=$(cd "$tree" && scripts/checkpatch.pl --strict --terse \
			--max-line-length=80 --show-types "${spell[@]}" "$p" 2>&1); then
		echo "checkpatch: ok   $(basename "$p")"
	else
		echo "checkpatch: FAIL $(basename "$p")"
		echo "$out" | sed 's/^/  /'
		bad=$((bad + 1))
	fi
done
[ "$n" -gt 0 ] || { echo "checkpatch: no patches in $BUILD/series" >&2; exit 1; }

# kernel-doc over every C file and header of the overlay: Return: lines and
# every parameter documented.
src=$(git ls-files -co --exclude-standard -- drivers net include | grep -E '\.[ch]$')
if [ -n "$src" ]; then
	# shellcheck disable=SC2086
	if out=$("$tree/scripts/kernel-doc" -none -Wall $src 2>&1) && [ -z "$out" ]; then
		echo "kernel-doc: ok   $(echo "$src" | wc -l) files"
	else
		echo "kernel-doc: FAIL"
		echo "$out" | sed 's/^/  /'
		bad=$((bad + 1))
	fi
fi
echo "checkpatch: $n patches, $bad with errors or warnings"
[ "$bad" -eq 0 ]
