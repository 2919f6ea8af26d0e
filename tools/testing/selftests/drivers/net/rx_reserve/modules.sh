#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The NIC's driver as a module, as distributions ship it: loaded, then
# unloaded (rmmod) and loaded again (modprobe) while the kernel socket of
# an NBD connection is a priority flow on its device.  When the module
# goes, the flow falls back: it stays, on no device, and every pool page
# the device's rings held comes home.  When it is back, the connection's
# next request registers the flow with the new device, its pool intact,
# and what was written before, across and after the reload reads back.
# Twice: with the connection idle, then with a write in flight across the
# reload.  With no NIC (the netdevsim guest), the same over a linked
# netdevsim pair, the NBD server in a namespace behind the peer port.
# Only on a kernel whose driver is a module (the modules kernel).

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

MIB=${NBD_TEST_MIB:-4}
FLY_MIB=32
DEV=/dev/nbd0

rxr_require_cmd nbd-client modprobe rmmod lsmod sha256sum blockdev taskset \
	ping
if [ ! -r /proc/modules ]; then
	echo "SKIP: kernel without modules (CONFIG_MODULES)"
	exit "$ksft_skip"
fi
if [ ! -r "$RXR_PROC" ]; then
	echo "SKIP: $RXR_PROC missing: kernel without CONFIG_RX_RESERVE"
	exit "$ksft_skip"
fi

cleanup()
{
	[ -n "${DD:-}" ] && kill "$DD" 2> /dev/null
	nbd-client -d "$DEV" > /dev/null 2>&1
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	# Leave the guest with its NIC for the tests that follow.
	if [ -n "${MOD:-}" ] && ! mod_loaded; then
		modprobe "$MOD" && dev_back
	fi
	if [ -n "${ID_A:-}" ]; then
		nsim_del
		cleanup_all_ns
	fi
	rm -f /tmp/rxr_mod.img /tmp/rxr_mod.conf /tmp/rxr_mod.out \
		/tmp/rxr_mod.in
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mod_loaded() { grep -q "^$MOD " /proc/modules; }
mod_gone() { ! mod_loaded; }

# nsim_devs: DEV_A (198.51.100.1, in NS_A) and DEV_B (198.51.100.2, in this
# namespace), netdevsim devices ID_A and ID_B with 2 queues, linked.
nsim_devs()
{
	echo "$ID_A 1 2" > "$NSIM_BUS/new_device" || return 1
	DEV_A=$(slowwait 5 ls "$NSIM_BUS/devices/netdevsim$ID_A/net/") ||
		return 1
	ip link set "$DEV_A" netns "$NS_A" || return 1
	echo "$ID_B 1 2" > "$NSIM_BUS/new_device" || return 1
	DEV_B=$(slowwait 5 ls "$NSIM_BUS/devices/netdevsim$ID_B/net/") ||
		return 1
	ip -n "$NS_A" addr add 198.51.100.1/24 dev "$DEV_A"
	ip -n "$NS_A" link set "$DEV_A" up
	ip addr add 198.51.100.2/24 dev "$DEV_B"
	ip link set "$DEV_B" up
	nsim_link "$NS_A" "$DEV_A" "" "$DEV_B" || return 1
	NIC=$DEV_B
	# netdevsim counts no rx: what DEV_B received, DEV_A sent.
	BLK_RX_STAT="$DEV_A tx bytes $NS_A"
	ping -c 1 -W 5 -q 198.51.100.1 > /dev/null
}

nsim_del()
{
	local id

	for id in $ID_A $ID_B; do
		[ -e "$NSIM_BUS/devices/netdevsim$id" ] &&
			echo "$id" > "$NSIM_BUS/del_device"
	done
}

# dev_back: the device is set up again after modprobe, as at boot.
dev_back()
{
	if [ -n "${ID_A:-}" ]; then
		nsim_devs
		return
	fi
	poll 100 rxr_nic > /dev/null || return 1
	NIC=$(rxr_nic)
	ip link set "$NIC" up
	ip addr add "$RXR_ADDR4/$RXR_PREFIX4" dev "$NIC"
	ip -6 addr add "$RXR_ADDR6/$RXR_PREFIX6" dev "$NIC" nodad
	rxr_wait_link
}

# flow_lines [DEV]: the NBD flow's lines in $RXR_PROC, on DEV or any.
flow_lines()
{
	awk -v d="${1:-}" -v r="$SERVER:$PORT" \
		'$1 == "flow" && (d == "" || $2 == d) && $8 == r' "$RXR_PROC"
}
flow_on() { [ -n "$(flow_lines "$1")" ]; }
no_flow() { [ -z "$(flow_lines)" ]; }

pages_are() { [ "$(proc_global pool_pages)" = "$1" ]; }

# reload WHAT: rmmod with the flow registered, check it fell back and
# its pages came home, modprobe, and set the device up again.
reload()
{
	local what=$1 f

	f=$(proc_global flows)
	check_ok "$what: rmmod $MOD with the flow on $NIC" rmmod "$MOD"
	check_ok "$what: $MOD unloaded" poll 100 mod_gone
	check_eq "$what: the flow stays, on no device" "$f" \
		"$(proc_global flows)"
	check_ok "$what: the flow is on no device" no_flow
	check_ok "$what: every pool page home after rmmod" poll 50 pages_home
	echo "# $what: after rmmod: $(head -n 1 "$RXR_PROC")"
	check_ok "$what: modprobe $MOD" modprobe "$MOD"
	check_ok "$what: the device is back" dev_back
	lsmod | grep "^$MOD " | sed 's/^/# lsmod: /'
}

if [ "${RXR_NIC:-none}" != none ]; then
	rxr_require_nic
	if [ -z "${RXR_NBD_PORT:-}" ]; then
		echo "SKIP: no NBD server on the peer (RXR_NBD_PORT unset)"
		exit "$ksft_skip"
	fi
	MOD=$(readlink -f "/sys/class/net/$NIC/device/driver/module")
	MOD=${MOD##*/}
	SERVER=$RXR_PEER4 PORT=$RXR_NBD_PORT EXPORT=${RXR_NBD_EXPORT:-rxr}
else
	MOD=netdevsim
	rxr_require_cmd nbd-server
	nsim_load
fi
if [ -z "$MOD" ] || ! mod_loaded; then
	echo "SKIP: the driver (${MOD:-none}) is not a loaded module"
	MOD=
	exit "$ksft_skip"
fi
check_ok "lsmod lists $MOD" sh -c "lsmod | grep -q '^$MOD '"
lsmod | sed 's/^/# lsmod: /'

if [ "$MOD" = netdevsim ]; then
	ID_A=$((RANDOM % 512 + 1))
	ID_B=$((ID_A + 512))
	setup_ns NS_A || exit "$ksft_fail"
	nsim_devs || { echo "FAIL: netdevsim pair"; exit "$ksft_fail"; }
	truncate -s $((FLY_MIB * 2))M /tmp/rxr_mod.img
	cat > /tmp/rxr_mod.conf <<-CONF
	[generic]
		listenaddr = 198.51.100.1
		port = 10811
		allowlist = true
	[mod]
		exportname = /tmp/rxr_mod.img
	CONF
	ip netns exec "$NS_A" nbd-server -C /tmp/rxr_mod.conf -d \
		> /dev/null 2>&1 &
	SRV=$!
	slowwait 10 sh -c \
		"ip netns exec $NS_A netstat -ltn | grep -q ':10811 '"
	SERVER=198.51.100.1 PORT=10811 EXPORT=mod
fi

P0=$(proc_global pool_pages)
if ! nbd-client "$SERVER" "$PORT" "$DEV" -N "$EXPORT"; then
	echo "FAIL: nbd-client could not connect to $SERVER:$PORT"
	exit "$ksft_fail"
fi
check_ok "NBD flow on $NIC" poll 50 flow_on "$NIC"
NPAGES=$(flow_lines "$NIC" | kv pool)
check_ge "NBD flow pool pages" 1 "${NPAGES:-0}"
blk_rw_check "$DEV" "$MIB"
echo "# before rmmod: $(head -n 1 "$RXR_PROC")"
flow_lines "$NIC" | sed 's/^/# /'
# A pool page goes up with a priority frame and its slot takes another
# one, or the queue's own page while the pool is short: a read that drained
# the pool can end with none posted.  Small reads, the pool full, post some.
posted()
{
	dd if="$DEV" of=/dev/null bs=64k count=4 iflag=direct status=none
	[ $(($(proc_global pool_pages) - $(proc_global pool_free))) -ge 1 ]
}
poll 30 posted
check_ge "pool pages posted on $NIC's rings" 1 \
	$(($(proc_global pool_pages) - $(proc_global pool_free)))

# 1: the connection idle across the reload.
reload idle
blk_rw_check "$DEV" "$MIB"
check_ok "idle: the flow is back on $NIC" poll 50 flow_on "$NIC"
check_eq "idle: its pool intact" "$NPAGES" "$(flow_lines "$NIC" | kv pool)"
flow_lines "$NIC" | sed 's/^/# /'

# 2: a write in flight across the reload.
head -c $((FLY_MIB << 20)) /dev/urandom > /tmp/rxr_mod.out
want=$(sha256sum < /tmp/rxr_mod.out | cut -d' ' -f1)
tx0=$(link_stat "$NIC" tx bytes)
# 16 KiB direct writes, one at a time: the write lasts seconds, not the
# fraction of one that rmmod could miss.
dd if=/tmp/rxr_mod.out of="$DEV" bs=16k oflag=direct status=none &
DD=$!
tx_past() { [ $(($(link_stat "$NIC" tx bytes) - tx0)) -ge $((1 << 20)) ]; }
poll 100 tx_past
check_ok "in flight: the write is under way" kill -0 "$DD"
echo "# in flight: $((($(link_stat "$NIC" tx bytes) - tx0) >> 10)) KiB of" \
	"$FLY_MIB MiB sent at rmmod"
reload "in flight"
finished() { ! kill -0 "$DD" 2> /dev/null; }
check_ok "in flight: the write completes" poll 900 finished
check_ok "in flight: dd succeeded" wait "$DD"
DD=
blockdev --flushbufs "$DEV"
echo 3 > /proc/sys/vm/drop_caches
dd if="$DEV" of=/tmp/rxr_mod.in bs=1M count="$FLY_MIB" status=none
check_eq "in flight: $FLY_MIB MiB read back" "$want" \
	"$(sha256sum < /tmp/rxr_mod.in | cut -d' ' -f1)"
check_ok "in flight: the flow is back on $NIC" poll 50 flow_on "$NIC"
check_eq "in flight: its pool intact" "$NPAGES" \
	"$(flow_lines "$NIC" | kv pool)"
flow_lines "$NIC" | sed 's/^/# /'

nbd-client -d "$DEV" > /dev/null 2>&1
check_ok "pool pages given back on disconnect" poll 100 pages_are "$P0"
check_ok "every pool page home at the end" poll 50 pages_home
echo "# at the end: $(head -n 1 "$RXR_PROC")"

exit "$RET"
