#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh FRAGMENT DOTCONFIG SRCTREE KIND [LATER...]
#
# Fail loudly when Kconfig dropped or changed an option that FRAGMENT asks for.
# KIND is "patched" or "vanilla".  Options after the "patched only" marker are
# required in the patched kernel and must not exist in vanilla's Kconfig.
# An option that a LATER fragment (merged after FRAGMENT) sets again is left
# to that fragment's check.

set -u
frag=$1 dotconfig=$2 srctree=$3 kind=$4
shift 4
bad=0 n=0 section=common

# overridden SYM: a later fragment sets SYM too.
overridden()
{
	local sym=$1 f

	shift
	for f in "$@"; do
		grep -qE "^($sym=|# $sym is not set)" "$f" && return 0
	done
	return 1
}
later=("$@")

defined_in_tree()
{
	grep -rqsE "^[[:space:]]*(menu)?config[[:space:]]+$1\$" \
		--include='Kconfig*' "$srctree"
}

while IFS= read -r line; do
	case "$line" in
	"# --- patched only"*) section=patched; continue ;;
	CONFIG_*=*)
		sym=${line%%=*}; want=$line ;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }; sym=${sym%% *}; want="" ;;
	*) continue ;;
	esac
	[ "${#later[@]}" -gt 0 ] && overridden "$sym" "${later[@]}" && continue
	n=$((n + 1))
	if [ "$section" = patched ] && [ "$kind" = vanilla ]; then
		if defined_in_tree "${sym#CONFIG_}"; then
			echo "check-config: $sym is patched-only but vanilla defines it" >&2
			bad=$((bad + 1))
		fi
		continue
	fi
	have=$(grep -E "^($sym=|# $sym is not set)" "$dotconfig")
	if [ -z "$want" ]; then
		case "$have" in
		"" | "# $sym is not set") continue ;;
		esac
	elif [ "$have" = "$want" ]; then
		continue
	fi
	echo "check-config: $kind: asked for '${want:-# $sym is not set}'," \
	     "Kconfig gave '${have:-nothing}'" >&2
	bad=$((bad + 1))
done < "$frag"

if [ "$bad" -ne 0 ]; then
	echo "check-config: $kind: $bad of $n options dropped or changed;" \
	     "fix $frag (a missing dependency?)" >&2
	exit 1
fi
echo "check-config: $kind: all $n options of $(basename "$frag") present"
