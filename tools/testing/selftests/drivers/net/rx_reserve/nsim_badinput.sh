#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input to rx-reserve's interfaces gets its defined error and changes
# nothing, on netdevsim with a priority flow in a filter slot:
#   - SO_RX_RESERVE (rxr_sock badopt): option lengths, values, pointers,
#     short getsockopt() buffers, socket types, TCP states, a listener, a
#     caller without CAP_NET_ADMIN; the flows and pool pages of
#     /proc/net/rx_reserve come back to where they were;
#   - the sysctls net.core.rx_reserve_*: out of range, overflowing and
#     non-numeric values, an unprivileged writer, another namespace: EINVAL
#     (EACCES, ENOENT) and the value unchanged;
#   - ethtool netlink RX_RESERVE_GET/SET (hand-built by rxr_sock ethnl, and
#     the patched ethtool where it can say it): malformed, unknown and
#     missing attributes, out-of-range values, unknown devices, no
#     CAP_NET_ADMIN: the exact errno and extack message, no notification,
#     the device's state unchanged;
#   - ethtool -N at rx-reserve's ntuple locations: EBUSY and a kernel
#     message naming the range, the core's and the administrator's rules
#     unchanged.
# No WARN or BUG in the kernel log along the way.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

MON=/tmp/rxr_bad.mon
SYS=/proc/sys/net/core
nsim_require
rxr_require_cmd setpriv
if ! ethtool --help 2>&1 | grep -q -- --show-rx-reserve; then
	echo "SKIP: ethtool without --show-rx-reserve (tools/ethtool patch)"
	exit "$ksft_skip"
fi

declare -A SYS0

cleanup()
{
	local k

	[ -n "${MONPID:-}" ] && kill "$MONPID" 2> /dev/null
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	for k in "${!SYS0[@]}"; do
		echo "${SYS0[$k]}" > "$SYS/$k"
	done
	hold_stop_all
	nsim_pair_cleanup
	rm -f "$MON"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

nsa() { ip netns exec "$NS_A" "$@"; }
nsb() { ip netns exec "$NS_B" "$@"; }
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
splats() { dmesg | grep -cE "WARNING:|BUG:|Oops|Call Trace:"; }
flows_are() { [ "$(proc_global flows)" = "$1" ]; }
pages_are() { [ "$(proc_global pool_pages)" = "$1" ]; }

SPLATS0=$(splats)
nsim_pair 4 || exit "$ksft_fail"
echo 2 > "$DFS_B/slots"
ip netns exec "$NS_A" "$RXR_SOCK" serve 5000 0 > /dev/null &
SRV=$!
slowwait 5 nsa sh -c "netstat -ltn | grep -q ':5000 '"
hold_start f1 ip netns exec "$NS_B" "$RXR_SOCK" connect 198.51.100.1 5000
check_ok "a priority flow in hardware" poll 50 stat_b_is rx_reserve_flows_hw 1
# Two slots at the top of netdevsim's 64 ntuple locations, 62 and 63; the
# flow in slot 0, at 62, steered to queue 3.
LOC0=$(nsb ethtool --show-rx-reserve "$DEV_B" |
       sed -n 's/^Slots: 2, .* at location \([0-9]*\), .*/\1/p')
LOC0=${LOC0:-62}
LOC1=$((LOC0 + 1))

# ---- SO_RX_RESERVE ----

F0=$(proc_global flows)
P0=$(proc_global pool_pages)
# 198.51.100.99 does not answer: a connection there stays in SYN-SENT.
check_ok "SO_RX_RESERVE: every bad input refused, option unchanged" \
	nsb "$RXR_SOCK" badopt 198.51.100.99
check_ok "SO_RX_RESERVE: flows back to $F0" poll 50 flows_are "$F0"
check_ok "SO_RX_RESERVE: pool pages back to $P0" poll 50 pages_are "$P0"
check_eq "SO_RX_RESERVE: the flow in hardware untouched" 1 \
	"$(stat_b rx_reserve_flows_hw)"

# ---- sysctls ----

# sysctl_bad NAME ERRNO VALUE...: writing each VALUE to net.core.NAME fails
# with ERRNO and leaves it as it was.
sysctl_bad()
{
	local name=$1 want=$2 v0 v

	shift 2
	v0=$(cat "$SYS/$name")
	for v in "$@"; do
		check_eq "$name='$v' refused" "errno $want" \
			"$("$RXR_SOCK" write "$SYS/$name" "$v" | head -n 1)"
		check_eq "$name unchanged after '$v'" "$v0" \
			"$(cat "$SYS/$name")"
	done
}

# sysctl_ok NAME VALUE READBACK: VALUE is taken, as READBACK; then the
# value goes back.
sysctl_ok()
{
	local name=$1 v0

	v0=$(cat "$SYS/$name")
	check_eq "$name='$2' taken" "errno 0" \
		"$("$RXR_SOCK" write "$SYS/$name" "$2" | head -n 1)"
	check_eq "$name reads $3" "$3" "$(cat "$SYS/$name")"
	echo "$v0" > "$SYS/$name"
}

for k in rx_reserve_enabled rx_reserve_pool_pages rx_reserve_max_pages \
	 rx_reserve_fallback rx_reserve_emergency_hold_ms; do
	SYS0[$k]=$(cat "$SYS/$k")
done
# Overflow: 2^31, 2^32 + 1 (1 if truncated to an int), 2^63, 2^64; a
# number too long to be read; signs, suffixes, words and nothing at all.
OVER=(2147483648 4294967297 9223372036854775808 18446744073709551616
      123456789012345678901234567890)
JUNK=(abc 12abc +16 0x 1e3 16k -)
# 0 (off) releases every flow: off.sh tries it.
sysctl_bad rx_reserve_enabled EINVAL -1 2 4294967296 4294967297 on \
	"${OVER[@]}" "${JUNK[@]}" ""
sysctl_bad rx_reserve_pool_pages EINVAL -1 -0 -2147483648 "${OVER[@]}" \
	"${JUNK[@]}" "" " "
sysctl_ok rx_reserve_pool_pages 1 1
sysctl_ok rx_reserve_pool_pages 4096 4096
sysctl_ok rx_reserve_pool_pages 0x10 16

# At most half of memory, as totalram_pages() was when rx-reserve started:
# find that bound (a refused write changes nothing, a taken one is undone).
page_kb=$(($(getconf PAGESIZE 2> /dev/null || echo 4096) / 1024))
half=$(awk -v p="$page_kb" '$1 == "MemTotal:" { print int($2 / p / 2) }' \
	/proc/meminfo)
sysctl_bad rx_reserve_max_pages EINVAL $((half + 1)) 4294967296 \
	18446744073709551615 "${OVER[@]}" "${JUNK[@]}" ""
lo=0
hi=$((half + 1))
for ((i = 0; i < 40 && hi - lo > 1; i++)); do
	mid=$(((lo + hi) / 2))
	if "$RXR_SOCK" write "$SYS/rx_reserve_max_pages" "$mid" \
		> /dev/null; then
		lo=$mid
	else
		hi=$mid
	fi
done
echo "${SYS0[rx_reserve_max_pages]}" > "$SYS/rx_reserve_max_pages"
echo "# rx_reserve_max_pages takes at most $lo (MemTotal / 2: $half pages)"
check_ge "rx_reserve_max_pages: the bound is above a quarter of memory" \
	$((half / 2)) "$lo"
sysctl_bad rx_reserve_max_pages EINVAL $((lo + 1))
sysctl_ok rx_reserve_max_pages "$lo" "$lo"

sysctl_bad rx_reserve_fallback EINVAL -1 3 4294967296 4294967297 on \
	"${OVER[@]}" ""
sysctl_ok rx_reserve_fallback 0 0
sysctl_ok rx_reserve_fallback 1 1

sysctl_bad rx_reserve_emergency_hold_ms EINVAL 9 60001 0 -10 4294967306 \
	"${OVER[@]}" 1s ""
sysctl_ok rx_reserve_emergency_hold_ms 10 10
sysctl_ok rx_reserve_emergency_hold_ms 60000 60000
for k in "${!SYS0[@]}"; do
	check_eq "$k: an unprivileged writer refused" "errno EACCES" \
		"$("${NOBODY[@]}" "$RXR_SOCK" write "$SYS/$k" 128 | head -n 1)"
	# The sysctls are global: another namespace has none to write.
	check_eq "$k: absent from another namespace" "errno ENOENT" \
		"$(nsa "$RXR_SOCK" write "$SYS/$k" 128 | head -n 1)"
	check_eq "$k unchanged" "${SYS0[$k]}" "$(cat "$SYS/$k")"
done

# ---- ethtool netlink: RX_RESERVE_GET, RX_RESERVE_SET ----

GET=46
SET=47
# ETHTOOL_A_RX_RESERVE_HEADER, _ENABLED; ETHTOOL_A_HEADER_DEV_INDEX, _NAME,
# _FLAGS.
HDR=1
EN=2
H_IDX=1
H_NAME=2
H_FLAGS=3
HDR_B=("$HDR=nest" "$H_IDX=u32:$IDX_B" end)

# nl WHAT ERRNO EXTACK [-u] CMD TOKEN...: rxr_sock ethnl in NS_B answers
# ERRNO with the extack message EXTACK ("" none, "-" not checked).  The
# answer stays in NL_OUT.
nl()
{
	local what=$1 want=$2 msg=$3

	shift 3
	NL_OUT=$(nsb "$RXR_SOCK" ethnl "$@" 2>&1)
	check_eq "$what: errno" "$want" "$(kv errno <<< "$NL_OUT")"
	[ "$msg" = - ] ||
		check_eq "$what: extack" "$msg" \
			"$(sed -n 's/^extack: //p' <<< "$NL_OUT")"
}

# nl_miss WHAT TYPE CMD TOKEN...: EINVAL, the missing attribute TYPE.
nl_miss()
{
	local what=$1 type=$2

	shift 2
	nl "$what" EINVAL "" "$@"
	check_eq "$what: missing attribute" "$type" \
		"$(kv miss_type <<< "$NL_OUT")"
}

nb_notes() { grep -c "^RX reserve for" "$MON"; }
show_b() { nsb ethtool --show-rx-reserve "$DEV_B"; }

# Valid requests first: what the bad ones must leave as it is.
nl "GET $DEV_B" 0 "" $GET "${HDR_B[@]}"
check_eq "GET $DEV_B: the reply" "reply dev $DEV_B enabled 1" \
	"$(grep '^reply' <<< "$NL_OUT")"
nl "GET dump" 0 "" $GET dump $HDR=nest end
check_ok "GET dump: lists $DEV_B" grep -q "^reply dev $DEV_B " <<< "$NL_OUT"
nl "SET enabled 1, already on" 0 "" $SET "${HDR_B[@]}" $EN=u8:1
STATE0=$(show_b)
RULE0=$(nsb ethtool -n "$DEV_B" rule "$LOC0" 2>&1)
check_ok "the flow's rule at location $LOC0" \
	grep -q "Direct to queue 3" <<< "$RULE0"

ip netns exec "$NS_B" ethtool --monitor --show-rx-reserve > "$MON" 2>&1 &
MONPID=$!
sleep 0.5

# Messages.
nl "GET without attributes" EINVAL "" $GET
check_eq "GET without attributes: missing attribute" $HDR \
	"$(kv miss_type <<< "$NL_OUT")"
nl "a message cut inside its genetlink header" EINVAL "" $GET len=18
nl "genlmsghdr.reserved 1" EINVAL "genlmsghdr.reserved field is not 0" \
	$GET reserved=1 "${HDR_B[@]}"
nl "nlmsg_flags with NLM_F_REPLACE" EINVAL \
	"ambiguous or reserved bits set in nlmsg_flags" \
	$GET flags=0x105 "${HDR_B[@]}"
nl "an unknown command (200)" EOPNOTSUPP "" 200 "${HDR_B[@]}"
nl "SET as a dump" EOPNOTSUPP "" $SET dump "${HDR_B[@]}" $EN=u8:0
nl "3 bytes of garbage after the attributes" EINVAL \
	"bytes leftover after parsing attributes" $GET "${HDR_B[@]}" pad=3
for t in 0 $EN 3 1000; do
	nl "GET with attribute $t" EINVAL "Unknown attribute type" \
		$GET "${HDR_B[@]}" "$t=u8:1"
done

# The header.
nl "an empty header" EINVAL "neither ifindex nor name specified" \
	$GET $HDR=nest end
nl "a header without NLA_F_NESTED" EINVAL "NLA_F_NESTED is missing" \
	$GET $HDR=flatnest $H_IDX=u32:"$IDX_B" end
nl "a header of 2 bytes" ERANGE "Attribute failed policy validation" \
	$GET $HDR+=u16:1
nl "a header with 3 bytes left over" EINVAL \
	"bytes leftover after parsing attributes" \
	$GET $HDR=nest $H_IDX=u32:"$IDX_B" pad=3 end
nl "ifindex as u16" EINVAL "invalid attribute length" \
	$GET $HDR=nest $H_IDX=u16:"$IDX_B" end
nl "ifindex as u64" EINVAL "invalid attribute length" \
	$GET $HDR=nest $H_IDX=u64:"$IDX_B" end
nl "a name without its NUL" EINVAL "Attribute failed policy validation" \
	$GET $HDR=nest $H_NAME=raw:"$DEV_B" end
long=$(printf 'n%.0s' {1..200})
nl "a 200-byte name" EINVAL "Attribute failed policy validation" \
	$GET $HDR=nest $H_NAME=str:"$long" end
nl "a 127-byte name" ENODEV "no device matches name" \
	$GET $HDR=nest $H_NAME=str:"${long:0:127}" end
nl "header flag ETHTOOL_FLAG_STATS" EINVAL "reserved bit set" \
	$GET $HDR=nest $H_IDX=u32:"$IDX_B" $H_FLAGS=u32:4 end
nl "header flags bit 31" EINVAL "reserved bit set" \
	$GET $HDR=nest $H_IDX=u32:"$IDX_B" $H_FLAGS=u32:0x80000000 end
nl "header flags as u8" EINVAL "invalid attribute length" \
	$GET $HDR=nest $H_IDX=u32:"$IDX_B" $H_FLAGS=u8:0 end
nl "header PHY_INDEX" EINVAL "Unknown attribute type" \
	$GET $HDR=nest $H_IDX=u32:"$IDX_B" 4=u32:1 end

# Devices.
nl "ifindex 0" ENODEV "no device matches ifindex" \
	$GET $HDR=nest $H_IDX=u32:0 end
nl "an unknown ifindex" ENODEV "no device matches ifindex" \
	$GET $HDR=nest $H_IDX=u32:2147483647 end
nl "an unknown name" ENODEV "no device matches name" \
	$GET $HDR=nest $H_NAME=str:nosuchdev0 end
nl "an empty name" ENODEV "no device matches name" \
	$GET $HDR=nest $H_NAME=str: end
nl "ifindex and name of different devices" ENODEV \
	"ifindex and name do not match" \
	$GET $HDR=nest $H_IDX=u32:"$IDX_B" $H_NAME=str:lo end
nl "a dump for an unknown ifindex" ENODEV "no device matches ifindex" \
	$GET dump $HDR=nest $H_IDX=u32:2147483647 end
nl "GET lo" EOPNOTSUPP "device has no rx-reserve" \
	$GET $HDR=nest $H_NAME=str:lo end
if nsa ip -o link show | grep -q "^$IDX_B:"; then
	echo "# ifindex $IDX_B exists in $NS_A too: that case not tested"
else
	out=$(nsa "$RXR_SOCK" ethnl $SET "${HDR_B[@]}" $EN=u8:0)
	check_eq "SET $DEV_B's ifindex from another namespace" \
		"errno ENODEV|extack: no device matches ifindex" \
		"$(grep -E '^(errno|extack)' <<< "$out" | paste -sd '|')"
fi

# SET.
nl_miss "SET without _ENABLED" $EN $SET "${HDR_B[@]}"
nl_miss "SET without a header" $HDR $SET $EN=u8:0
for v in 2 255; do
	nl "SET enabled $v" ERANGE "integer out of range" \
		$SET "${HDR_B[@]}" $EN=u8:$v
done
nl "SET enabled as u32" EINVAL "invalid attribute length" \
	$SET "${HDR_B[@]}" $EN=u32:0
nl "SET enabled without payload" EINVAL "invalid attribute length" \
	$SET "${HDR_B[@]}" $EN=empty
nl "SET enabled with NLA_F_NESTED" EINVAL "NLA_F_NESTED not expected" \
	$SET "${HDR_B[@]}" $EN+=u8:0
for t in 3 4 5 6 10 11; do
	nl "SET read-only attribute $t" EINVAL "Unknown attribute type" \
		$SET "${HDR_B[@]}" $EN=u8:0 "$t=u32:0"
done
nl "SET an unknown ifindex" ENODEV "no device matches ifindex" \
	$SET $HDR=nest $H_IDX=u32:2147483647 end $EN=u8:0
nl "SET an unknown name" ENODEV "no device matches name" \
	$SET $HDR=nest $H_NAME=str:nosuchdev0 end $EN=u8:0
nl "SET lo" EOPNOTSUPP "device has no rx-reserve private flag" \
	$SET $HDR=nest $H_NAME=str:lo end $EN=u8:0
nl "SET without CAP_NET_ADMIN" EPERM "" -u $SET "${HDR_B[@]}" $EN=u8:0
nl "SET a bad value without CAP_NET_ADMIN" EPERM "" \
	-u $SET "${HDR_B[@]}" $EN=u8:2
nl "GET without CAP_NET_ADMIN" 0 "" -u $GET "${HDR_B[@]}"

# The patched ethtool: what it can say.
err=$(nsb ethtool --show-rx-reserve nosuchdev0 2>&1)
check_ok "ethtool --show-rx-reserve nosuchdev0: refused, with the reason" \
	grep -q "no device matches name" <<< "$err"
err=$(nsb ethtool --set-rx-reserve nosuchdev0 enabled off 2>&1)
check_ok "ethtool --set-rx-reserve nosuchdev0: refused, with the reason" \
	grep -q "no device matches name" <<< "$err"
for args in "enabled 2" "enabled" "emergency on" "queue 1" ""; do
	# shellcheck disable=SC2086
	check_fail "ethtool --set-rx-reserve $DEV_B $args: refused" \
		nsb ethtool --set-rx-reserve "$DEV_B" $args
done
check_fail "ethtool --show-rx-reserve $DEV_B extra: refused" \
	nsb ethtool --show-rx-reserve "$DEV_B" extra
check_fail "ethtool --set-rx-reserve without CAP_NET_ADMIN: refused" \
	nsb "${NOBODY[@]}" ethtool --set-rx-reserve "$DEV_B" enabled off

# Nothing changed, nothing notified.
sleep 0.5
check_eq "--show-rx-reserve unchanged" "$STATE0" "$(show_b)"
check_eq "the flow's rule unchanged" "$RULE0" \
	"$(nsb ethtool -n "$DEV_B" rule "$LOC0" 2>&1)"
check_eq "the rx-reserve private flag still on" on \
	"$(nsb ethtool --show-priv-flags "$DEV_B" |
	   awk -F: '{ gsub(/ /, "") } $1 == "rx-reserve" { print $2 }')"
check_eq "no notification" 0 "$(nb_notes)"
# The monitor hears a real change: the check above means something.
nl "SET enabled 0" 0 "" $SET "${HDR_B[@]}" $EN=u8:0
check_ok "off: notified" poll 50 sh -c "grep -q '^Enabled: off' $MON"
nl "SET enabled 1" 0 "" $SET "${HDR_B[@]}" $EN=u8:1
check_ok "on: the flow back in hardware" \
	poll 50 stat_b_is rx_reserve_flows_hw 1
kill "$MONPID" 2> /dev/null
MONPID=

# ---- ethtool -N at rx-reserve's locations ----

# rule LOC: ethtool -n's view of the rule at LOC, or its error.
rule() { nsb ethtool -n "$DEV_B" rule "$1" 2>&1; }
nrules() { nsb ethtool -n "$DEV_B" | grep -o 'Total [0-9]* rules'; }
ntuple() { nsb ethtool -N "$DEV_B" "$@" 2>&1; }
range_msgs()
{
	dmesg | grep -c "rx-reserve: ntuple locations $LOC0-$LOC1 are reserved"
}

check_ok "the flow's rule back at location $LOC0" \
	poll 50 sh -c "ip netns exec $NS_B ethtool -n $DEV_B rule $LOC0 |
		       grep -q 'Direct to queue 3'"
RULE0=$(rule "$LOC0")
check_ok "an administrator's rule at location 10" \
	nsb ethtool -N "$DEV_B" flow-type tcp4 dst-port 7010 action 1 loc 10
check_ok "an administrator's rule at location 61" \
	nsb ethtool -N "$DEV_B" flow-type tcp4 dst-port 7061 action 2 loc 61
R10=$(rule 10)
R61=$(rule 61)
check_eq "three rules" "Total 3 rules" "$(nrules)"
m0=$(range_msgs)
sf0=$(stat_b rx_reserve_slot_fail)

for loc in $LOC0 $LOC1; do
	out=$(ntuple flow-type tcp4 dst-port 7000 action 1 loc "$loc")
	check_ok "insert at location $loc: EBUSY" \
		grep -q "Cannot insert.*Device or resource busy" <<< "$out"
	out=$(ntuple delete "$loc")
	check_ok "delete at location $loc: EBUSY" \
		grep -q "Cannot delete.*Device or resource busy" <<< "$out"
done
check_eq "the kernel log names the range, once a refusal" $((m0 + 4)) \
	"$(range_msgs)"
check_eq "the flow's rule unchanged" "$RULE0" "$(rule "$LOC0")"
check_fail "location $LOC1 still empty" \
	sh -c "ip netns exec $NS_B ethtool -n $DEV_B rule $LOC1 > /dev/null"
check_eq "the flow still in hardware" 1 "$(stat_b rx_reserve_flows_hw)"
out=$(ntuple flow-type tcp4 dst-port 7000 action 1 loc 64)
check_ok "insert past the table (64): EINVAL" \
	grep -q "Invalid argument" <<< "$out"
out=$(ntuple flow-type tcp4 dst-port 7000 action 9 loc 20)
check_ok "insert to a queue the device lacks: EINVAL" \
	grep -q "Invalid argument" <<< "$out"
check_eq "rule 10 unchanged" "$R10" "$(rule 10)"
check_eq "rule 61 unchanged" "$R61" "$(rule 61)"
check_eq "still three rules" "Total 3 rules" "$(nrules)"
check_eq "no slot insert failed" "$sf0" "$(stat_b rx_reserve_slot_fail)"

# Without a location ethtool picks the highest free one, 63 here: the
# insert must not land in, or fail on, rx-reserve's range.
out=$(ntuple flow-type tcp4 dst-port 7099 action 1)
loc=$(sed -n 's/^Added rule with ID //p' <<< "$out")
check_eq "insert without a location: taken" "Added rule with ID N" \
	"$([ -n "$loc" ] && echo "Added rule with ID N" || echo "$out")"
if [ -n "$loc" ]; then
	check_ok "insert without a location: outside $LOC0-$LOC1" \
		test "$loc" -lt "$LOC0" -o "$loc" -gt "$LOC1"
	nsb ethtool -N "$DEV_B" delete "$loc" 2> /dev/null
fi

# The private flag off: the core's rule goes, the range stays reserved.
nsb ethtool --set-priv-flags "$DEV_B" rx-reserve off
check_ok "flag off: the flow out of hardware" \
	poll 50 stat_b_is rx_reserve_flows_hw 0
out=$(ntuple flow-type tcp4 dst-port 7000 action 1 loc "$LOC0")
check_ok "flag off: insert at location $LOC0 still EBUSY" \
	grep -q "Device or resource busy" <<< "$out"
nsb ethtool --set-priv-flags "$DEV_B" rx-reserve on
check_ok "flag on: the flow back in hardware" \
	poll 50 stat_b_is rx_reserve_flows_hw 1
check_eq "flag on: its rule back" "$RULE0" "$(rule "$LOC0")"

# Down, the driver detaches, and the range stays reserved: an
# administrator's rule put there would be overwritten by the core's once
# the device is up again (and lost when the flow leaves).
nsb ip link set "$DEV_B" down
check_ok "down: the core's rule gone" \
	sh -c "! ip netns exec $NS_B ethtool -n $DEV_B rule $LOC0 \
		> /dev/null 2>&1"
# (ethtool 6.1 exits 0 on some refused inserts: its output tells.)
out=$(ntuple flow-type tcp4 dst-port 7062 action 1 loc "$LOC0")
if grep -q "^Added rule" <<< "$out"; then
	echo "# down: an administrator's rule taken at location $LOC0"
	RADM=$(rule "$LOC0")
	nsb ip link set "$DEV_B" up
	poll 50 stat_b_is rx_reserve_flows_hw 1
	check_eq "up: the administrator's rule at $LOC0 not overwritten" \
		"$RADM" "$(rule "$LOC0")"
else
	check_ok "down: insert at location $LOC0 refused with EBUSY" \
		grep -q "Device or resource busy" <<< "$out"
	nsb ip link set "$DEV_B" up
fi
check_eq "rule 10 unchanged at the end" "$R10" "$(rule 10)"
check_eq "rule 61 unchanged at the end" "$R61" "$(rule 61)"

hold_stop_all
check_ok "the flow gone" poll 50 stat_b_is rx_reserve_flows_hw 0
# With it went the core's rule at location $LOC0, or the administrator's.
rule "$LOC0" | sed "s/^/# location $LOC0 at the end: /"
check_eq "no WARN or BUG in the kernel log" "$SPLATS0" "$(splats)"

exit "$RET"
