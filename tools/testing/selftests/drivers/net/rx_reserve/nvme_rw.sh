#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe/TCP through the NIC: the kernel's NVMe/TCP host marks each of its
# queue sockets with sk_set_memalloc() before it connects, so each must
# become a priority flow on the NIC with its pool, and a write and
# read-back through it must arrive intact.  The target is the kernel's
# nvmet-tcp, in a network namespace of this guest on its second NIC (the
# bench's host has no NVMe target), reached through the bench's bridge:
# every byte crosses both NICs.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

NS=rxr-nvmet-$$
NQN=nqn.2026-12.org.example.rx-reserve:nvme-rw
HOSTID=5a1f6c2e-7b3d-4e8a-9c10-2f6d8e4b7a91
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$HOSTID
CFS=/sys/kernel/config/nvmet
TADDR=192.0.2.3
MIB=8

rxr_require_nic2
rxr_require_cmd nvme nsenter truncate
mountpoint -q /sys/kernel/config ||
	mount -t configfs none /sys/kernel/config 2> /dev/null
if [ ! -d "$CFS" ]; then
	echo "SKIP: no nvmet in configfs (CONFIG_NVME_TARGET)"
	exit "$ksft_skip"
fi

S=$CFS/subsystems/$NQN
P=$CFS/ports/1

cleanup()
{
	nvme disconnect -n "$NQN" > /dev/null 2>&1
	rm -f "$P/subsystems/$NQN" 2> /dev/null
	[ -d "$P" ] && rmdir "$P" 2> /dev/null
	[ -e "$S/namespaces/1/enable" ] && echo 0 > "$S/namespaces/1/enable"
	[ -d "$S/namespaces/1" ] && rmdir "$S/namespaces/1" 2> /dev/null
	[ -d "$S" ] && rmdir "$S" 2> /dev/null
	ip netns del "$NS" 2> /dev/null
	rm -f /tmp/rxr_nvmet.img
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The target, on the second NIC in its own namespace.
rxr_nic2_ns "$NS" "$TADDR" "the target's namespace"

truncate -s 64M /tmp/rxr_nvmet.img
mkdir "$S" &&
	echo 1 > "$S/attr_allow_any_host" &&
	mkdir "$S/namespaces/1" &&
	echo /tmp/rxr_nvmet.img > "$S/namespaces/1/device_path" &&
	echo 1 > "$S/namespaces/1/buffered_io" &&
	echo 1 > "$S/namespaces/1/enable" &&
	mkdir "$P" &&
	echo tcp > "$P/addr_trtype" &&
	echo ipv4 > "$P/addr_adrfam" &&
	echo "$TADDR" > "$P/addr_traddr" &&
	echo 4420 > "$P/addr_trsvcid" &&
	# The port listens in the namespace of whoever enables it.
	nsenter --net="/run/netns/$NS" ln -s "$S" "$P/subsystems/$NQN"
check_eq "nvmet-tcp target set up in $NS" 0 "$?"

if ! nvme connect -t tcp -a "$TADDR" -s 4420 -n "$NQN" \
	--hostnqn="$HOSTNQN" --hostid="$HOSTID" > /tmp/rxr_nvme.log 2>&1; then
	echo "FAIL: nvme connect: $(head -n 3 /tmp/rxr_nvme.log | xargs)"
	exit "$ksft_fail"
fi
dev_of()
{
	local c

	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2> /dev/null)" = "$NQN" ] || continue
		for n in "$c"/nvme*n1 /sys/block/"$(basename "$c")"n1; do
			[ -e "$n" ] && { basename "$n"; return 0; }
		done
	done
	return 1
}
has_dev() { dev_of > /dev/null; }
check_ok "NVMe/TCP namespace appeared" poll 100 has_dev
DEV=/dev/$(dev_of)

# One socket per queue: the admin queue and one I/O queue per CPU.
memalloc_flows()
{
	awk -v d="$NIC" -v r="$TADDR:4420" '$1 == "flow" && $2 == d &&
		$8 == r && $NF == "memalloc" && $12 + 0 > 0' "$RXR_PROC" |
		wc -l
}
nq=$(($(nproc) + 1))
flows_with_pools() { [ "$(memalloc_flows)" -ge "$nq" ]; }
check_ok "$nq NVMe/TCP queue sockets are priority flows on $NIC with pools" \
	poll 100 flows_with_pools
echo "# $(awk -v r="$TADDR:4420" '$1 == "flow" && $8 == r' "$RXR_PROC" |
	  head -n 3 | tr '\n' ';')"
blk_rw_check "$DEV" "$MIB"

exit "$RET"
