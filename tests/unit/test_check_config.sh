#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of mk/check-config.sh: a dropped or changed option fails the
# build loudly; patched-only options must be absent from vanilla.

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

t()	# t NAME EXPECTED_RC EXPECTED_OUTPUT_REGEX KIND [LATER...]
{
	local out rc name=$1 want=$2 re=$3 kind=$4

	shift 4
	n=$((n + 1))
	out=$("$top/mk/check-config.sh" "$tmp/frag" "$tmp/config" "$tmp/src" \
		"$kind" "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want" ] && echo "$out" | grep -qE -- "$re"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name # rc=$rc output: $(echo "$out" | head -2 | xargs)"
	fi
}

mkdir -p "$tmp/src/net"
printf 'config FOO\n\tbool\nconfig BAR\n\ttristate\n' > "$tmp/src/net/Kconfig"
cat > "$tmp/frag" <<'F'
CONFIG_FOO=y
CONFIG_BAR=y
# CONFIG_BAZ is not set
# --- patched only
CONFIG_RX_NEW=y
F

echo "TAP version 13"
echo "1..8"
printf 'CONFIG_FOO=y\nCONFIG_BAR=y\nCONFIG_RX_NEW=y\n' > "$tmp/config"
t "all present (patched)" 0 "all 4 options" patched
printf 'CONFIG_FOO=y\nCONFIG_BAR=y\n' > "$tmp/config"
t "patched-only absent from vanilla" 0 "all 4 options" vanilla
t "patched-only missing from patched" 1 "CONFIG_RX_NEW=y.*gave 'nothing'" patched
printf 'CONFIG_FOO=y\nCONFIG_BAR=m\nCONFIG_RX_NEW=y\n' > "$tmp/config"
t "changed value" 1 "asked for 'CONFIG_BAR=y', Kconfig gave 'CONFIG_BAR=m'" patched
# A later fragment (the modules kernel's) sets BAR again: its check, not
# this one's; an option it does not set is still checked.
printf 'CONFIG_BAR=m\n' > "$tmp/later"
t "option set again by a later fragment" 0 "all 3 options" patched "$tmp/later"
printf 'CONFIG_FOO=m\nCONFIG_BAR=m\nCONFIG_RX_NEW=y\n' > "$tmp/config"
t "later fragment leaves others checked" 1 "asked for 'CONFIG_FOO=y'" patched \
	"$tmp/later"
printf 'CONFIG_FOO=y\nCONFIG_BAR=y\nCONFIG_BAZ=y\nCONFIG_RX_NEW=y\n' > "$tmp/config"
t "option asked off but on" 1 "asked for '# CONFIG_BAZ is not set'" patched
printf 'config RX_NEW\n\tbool\n' >> "$tmp/src/net/Kconfig"
printf 'CONFIG_FOO=y\nCONFIG_BAR=y\n' > "$tmp/config"
t "patched-only defined by vanilla" 1 "RX_NEW is patched-only" vanilla
