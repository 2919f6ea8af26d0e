#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Priority flows over stacked devices register with the NIC that receives
# their frames, in a guest with two NICs on one bridge of the bench:
#   - NBD over an active-backup bond of both NICs: the flow on the active
#     slave, steered there (its reserve queue's counter moves), a failover
#     (ip link set SLAVE down) moves it to the other slave, and a write and
#     read-back after the failover completes, steered on the new slave;
#   - iSCSI over a bond whose slaves all receive (balance-xor, 802.3ad): the
#     flow on every slave, a leg of it on each but the first, all sharing
#     one pool; the frames steered on the slave the bench's bridge sends
#     them to; with that slave down, the bridge sends them to the other,
#     where they are steered with no registration moving, and a write and
#     read-back completes (balance-xor; 802.3ad without an LACP partner
#     runs one aggregator, so there the frames stay on one slave);
#   - NBD over a VLAN on the first NIC: the flow on the NIC, not on the
#     VLAN device, steered there.  The VLAN's peer is an nbd-server in a
#     network namespace of this guest, on the second NIC (the bench's host
#     has no 802.1Q), reached through the bench's bridge.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

PROC=$RXR_PROC
NS=rxr-vlanpeer-$$
MIB=8

rxr_require_nic2
rxr_require_reserve
rxr_require_cmd nbd-client nbd-server iscsiadm iscsid setsid
if [ -z "${RXR_NBD_PORT:-}" ]; then
	echo "SKIP: no NBD server on the peer (RXR_NBD_PORT unset)"
	exit "$ksft_skip"
fi
if [ -z "${RXR_ISCSI_IQN:-}" ]; then
	echo "SKIP: no iSCSI target on the peer (RXR_ISCSI_IQN unset)"
	exit "$ksft_skip"
fi
IQN=$RXR_ISCSI_IQN


cleanup()
{
	nbd-client -d /dev/nbd0 > /dev/null 2>&1
	nbd-client -d /dev/nbd1 > /dev/null 2>&1
	iscsi_logout
	[ -n "${ISCSID:-}" ] && kill "$ISCSID" 2> /dev/null
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	ip link del rxrvl100 2> /dev/null
	ip netns del "$NS" 2> /dev/null
	if [ -e /sys/class/net/rxrbond0 ]; then
		ip link del rxrbond0
		ip link set "$N1" up
		ip link set "$N2" up
		ip addr add "$RXR_ADDR4/$RXR_PREFIX4" dev "$N1" 2> /dev/null
		ip -6 addr add "$RXR_ADDR6/$RXR_PREFIX6" dev "$N1" nodad \
			2> /dev/null
	fi
	rm -f /tmp/rxr_vlan.img /tmp/rxr_nbd.conf
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# flow_on DEV REMOTE: DEV's flow line towards REMOTE (ADDR:PORT).
flow_on()
{
	awk -v d="$1" -v r="$2" '$1 == "flow" && $2 == d && $8 == r' "$PROC"
}
has_flow_on() { [ -n "$(flow_on "$@")" ]; }
# dev_stat DEV KEY: a counter of DEV's line.
dev_stat() { awk -v d="$1" '$1 == "dev" && $2 == d' "$PROC" | kv "$2"; }
active_is()
{
	[ "$(cat /sys/class/net/rxrbond0/bonding/active_slave)" = "$1" ]
}
peer_up() { ping -c 1 -W 1 -q "$1" > /dev/null 2>&1; }

# bond_up MODE [OPTION...]: rxrbond0 of both NICs, with the first NIC's
# address.
bond_up()
{
	local mode=$1 d

	shift
	ip addr flush dev "$N1"
	ip link add rxrbond0 type bond mode "$mode" miimon 100 "$@"
	for d in "$N1" "$N2"; do
		ip link set "$d" down
		ip link set "$d" master rxrbond0
	done
	ip link set rxrbond0 up
	ip addr add "$RXR_ADDR4/$RXR_PREFIX4" dev rxrbond0
}

# bond_down: the bond gone, the first NIC's addresses back.
bond_down()
{
	local d

	ip link del rxrbond0
	for d in "$N1" "$N2"; do
		ip link set "$d" up
	done
	ip addr add "$RXR_ADDR4/$RXR_PREFIX4" dev "$N1"
	ip -6 addr add "$RXR_ADDR6/$RXR_PREFIX6" dev "$N1" nodad
}

# ---- NBD over an active-backup bond ----
REMOTE=$RXR_PEER4:$RXR_NBD_PORT
bond_up active-backup
check_ok "bond reaches the peer" poll 100 peer_up "$RXR_PEER4"
A=$(cat /sys/class/net/rxrbond0/bonding/active_slave)
check_ok "the bond has an active slave ($A)" test -n "$A"
B=$N2
[ "$A" = "$N2" ] && B=$N1

if nbd-client "$RXR_PEER4" "$RXR_NBD_PORT" /dev/nbd0 -N rxr; then
	check_ok "NBD flow on the active slave $A" \
		poll 50 has_flow_on "$A" "$REMOTE"
	check_eq "no flow on the bond itself" "" "$(flow_on rxrbond0 "$REMOTE")"
	s0=$(dev_stat "$A" steered)
	NIC=$A blk_rw_check /dev/nbd0 "$MIB"
	check_ge "frames steered to $A's reserve queue" 1 \
		$(($(dev_stat "$A" steered) - ${s0:-0}))

	ip link set "$A" down
	check_ok "failover to $B" poll 100 active_is "$B"
	check_ok "NBD flow moved to $B" poll 50 has_flow_on "$B" "$REMOTE"
	check_eq "no flow left on $A" "" "$(flow_on "$A" "$REMOTE")"
	s0=$(dev_stat "$B" steered)
	NIC=$B blk_rw_check /dev/nbd0 "$MIB"
	check_ge "frames steered to $B's reserve queue" 1 \
		$(($(dev_stat "$B" steered) - ${s0:-0}))
	nbd-client -d /dev/nbd0 > /dev/null 2>&1
else
	check_fail "nbd-client over the bond" true
fi
bond_down

# ---- iSCSI over a bond whose slaves all receive ----
# (The bench's nbd-server takes one connection; its tgt takes more.)
# steered_sum: frames steered on both slaves.
steered_sum()
{
	echo $(($(dev_stat "$N1" steered) + $(dev_stat "$N2" steered)))
}
# pool_of DEV REMOTE: the pool pages of DEV's flow line towards REMOTE.
pool_of() { flow_on "$1" "$2" | kv pool; }
has_pool_on() { [ "$(pool_of "$@")" -gt 0 ] 2> /dev/null; }
has_speed() { [ "$(cat "/sys/class/net/$1/speed")" -gt 0 ] 2> /dev/null; }
no_flow_to() { ! awk '$1 == "flow"' "$PROC" | grep -q " remote $1 "; }
iscsi_logout()
{
	iscsiadm -m node -T "$IQN" -p "$RXR_PEER4" --logout > /dev/null 2>&1
}

# bond_all_xfer MODE: log in over the bond, the flow on both slaves, a
# write and read-back steered on a slave; for balance-xor, again with
# that slave down.
bond_all_xfer()
{
	local mode=$1 r o s0 r0 nl0 disk

	nl0=$(head -1 "$PROC" | kv nolower)
	if ! iscsiadm -m node -T "$IQN" -p "$RXR_PEER4" --login \
		> /dev/null; then
		check_fail "$mode: iSCSI login over the bond" true
		return
	fi
	if ! disk=$(slowwait 20 iscsi_disk); then
		check_fail "$mode: a disk for $IQN" true
		return
	fi
	check_ok "$mode: iSCSI flow on $N1" poll 50 has_flow_on "$N1" "$REMOTE"
	check_ok "$mode: iSCSI flow on $N2" poll 50 has_flow_on "$N2" "$REMOTE"
	check_eq "$mode: no flow on the bond itself" "" \
		"$(flow_on rxrbond0 "$REMOTE")"
	check_eq "$mode: one socket flow" 1 "$(head -1 "$PROC" | kv flows)"
	check_ok "$mode: a pool on $N1" poll 100 has_pool_on "$N1" "$REMOTE"
	check_eq "$mode: $N2 shares $N1's pool" "$(pool_of "$N1" "$REMOTE")" \
		"$(pool_of "$N2" "$REMOTE")"
	check_eq "$mode: the pool counted once" "$(pool_of "$N1" "$REMOTE")" \
		"$(head -1 "$PROC" | kv pool_pages)"
	check_eq "$mode: no leg refused" "$nl0" \
		"$(head -1 "$PROC" | kv nolower)"

	s0=$(steered_sum)
	r0=$(dev_stat "$N1" steered)
	NIC=rxrbond0 blk_rw_check "/dev/$disk" "$MIB"
	check_ge "$mode: frames steered to a slave's reserve queue" 1 \
		$(($(steered_sum) - s0))
	[ "$mode" = balance-xor ] || return 0

	# The slave the bridge sent them to goes down: the bridge learns
	# the bond's address on the other, which has the flow already.
	r=$N2
	o=$N1
	if [ $(($(dev_stat "$N1" steered) - r0)) -gt 0 ]; then
		r=$N1
		o=$N2
	fi
	ip link set "$r" down
	check_ok "$mode: $r down, the peer still answers" \
		poll 100 peer_up "$RXR_PEER4"
	check_ok "$mode: the flow stays on $o" has_flow_on "$o" "$REMOTE"
	check_ok "$mode: and on $r, down" has_flow_on "$r" "$REMOTE"
	s0=$(dev_stat "$o" steered)
	NIC=rxrbond0 blk_rw_check "/dev/$disk" "$MIB"
	check_ge "$mode: frames steered to $o's reserve queue" 1 \
		$(($(dev_stat "$o" steered) - s0))
	ip link set "$r" up
}

bond_all()
{
	local mode=$1 opts=()

	# With no LACP partner (the bench's bridge drops LACPDUs), each
	# port is an aggregator of its own once its partner timer expires:
	# 3 s at the fast rate.
	# LACP also wants each port's speed and duplex, which virtio-net
	# reports only once told (e1000e has its link's).
	if [ "$mode" = 802.3ad ]; then
		opts=(lacp_rate fast)
		for d in "$N1" "$N2"; do
			has_speed "$d" ||
				ethtool -s "$d" speed 10000 duplex full
		done
	fi
	bond_up "$mode" "${opts[@]}"
	if check_ok "$mode bond reaches the peer" \
		poll 100 peer_up "$RXR_PEER4"; then
		bond_all_xfer "$mode"
	fi
	iscsi_logout
	check_ok "$mode: no flow left after the logout" \
		poll 50 no_flow_to "$REMOTE"
	bond_down
}

REMOTE=$RXR_PEER4:3260
iscsid_start
check_ok "discovery of $IQN" sh -c \
	"iscsiadm -m discovery -t sendtargets -p $RXR_PEER4 | grep -q '$IQN'"
bond_all balance-xor
bond_all 802.3ad

# ---- NBD over a VLAN ----
ip netns add "$NS"
ip link set "$N2" netns "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link set "$N2" up
ip -n "$NS" link add link "$N2" name rxrvl100 type vlan id 100
ip -n "$NS" addr add 198.51.100.1/24 dev rxrvl100
ip -n "$NS" link set rxrvl100 up
ip link add link "$N1" name rxrvl100 type vlan id 100
ip addr add 198.51.100.2/24 dev rxrvl100
ip link set rxrvl100 up
truncate -s 32M /tmp/rxr_vlan.img
cat > /tmp/rxr_nbd.conf <<CONF
[generic]
	listenaddr = 198.51.100.1
	port = 10810
	allowlist = true
[vlan]
	exportname = /tmp/rxr_vlan.img
CONF
ip netns exec "$NS" nbd-server -C /tmp/rxr_nbd.conf -d > /dev/null 2>&1 &
SRV=$!
check_ok "the VLAN peer answers" poll 100 peer_up 198.51.100.1
slowwait 10 sh -c "ip netns exec $NS netstat -ltn | grep -q ':10810 '"
if nbd-client 198.51.100.1 10810 /dev/nbd1 -N vlan; then
	REMOTE=198.51.100.1:10810
	check_ok "NBD flow over the VLAN on $N1" \
		poll 50 has_flow_on "$N1" "$REMOTE"
	check_eq "no flow on the VLAN device" "" "$(flow_on rxrvl100 "$REMOTE")"
	s0=$(dev_stat "$N1" steered)
	NIC=$N1 blk_rw_check /dev/nbd1 "$MIB"
	check_ge "VLAN frames steered to $N1's reserve queue" 1 \
		$(($(dev_stat "$N1" steered) - ${s0:-0}))
	nbd-client -d /dev/nbd1 > /dev/null 2>&1
else
	check_fail "nbd-client over the VLAN" true
fi

exit "$RET"
