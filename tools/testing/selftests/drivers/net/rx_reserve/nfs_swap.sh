#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Swap over NFS through the NIC: swapon of a file on an NFSv4.2 mount over
# TCP makes the client's transport socket a memalloc socket
# (sk_set_memalloc(), through xs_swapper()), so it must become a priority
# flow on the NIC with its pool; then a memory load in a cgroup smaller
# than it swaps out to that file and reads every page back intact.  The
# server is the kernel's nfsd, in a network namespace of this guest on its
# second NIC (the bench's host runs no NFS server), reached through the
# bench's bridge: every byte crosses both NICs.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

NS=rxr-nfsd-$$
SADDR=192.0.2.4
EXP=/tmp/rxr_nfs_export
MNT=/tmp/rxr_nfs_mnt
CG=/sys/fs/cgroup/rxr_nfs_swap
SWAP_MIB=64
LOAD_MIB=48
CG_MIB=16

rxr_require_nic2
rxr_require_cmd nsenter mount.nfs4 rpc.nfsd rpc.mountd exportfs mkswap \
	swapon swapoff memload
for fs in nfs4 nfsd; do
	if ! grep -qw "$fs" /proc/filesystems; then
		echo "SKIP: kernel without $fs (CONFIG_NFS_V4, CONFIG_NFSD_V4)"
		exit "$ksft_skip"
	fi
done
if [ ! -w /sys/fs/cgroup/cgroup.subtree_control ]; then
	echo "SKIP: no cgroup v2 at /sys/fs/cgroup"
	exit "$ksft_skip"
fi

# srv CMD...: CMD in the server's network namespace (and this mount
# namespace: its nfsd filesystem is the namespace's).
srv() { nsenter --net="/run/netns/$NS" "$@"; }

cleanup()
{
	[ -n "${LOAD:-}" ] && kill "$LOAD" 2> /dev/null
	swapoff "$MNT/swap" 2> /dev/null
	umount -f "$MNT" 2> /dev/null
	[ -d "$CG" ] && rmdir "$CG" 2> /dev/null
	if [ -e "/run/netns/$NS" ]; then
		if [ -n "${MOUNTD:-}" ]; then
			kill "$MOUNTD" 2> /dev/null
			wait "$MOUNTD" 2> /dev/null
		fi
		srv rpc.nfsd 0 2> /dev/null
		srv exportfs -ua 2> /dev/null
		mountpoint -q /proc/fs/nfsd && umount /proc/fs/nfsd
		ip netns del "$NS"
	fi
	: > /etc/exports
	rm -rf "$EXP" "$MNT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The server, on the second NIC in its own namespace: NFSv4 only, so no
# rpcbind; grace and lease at their minimum, so that the first OPEN is
# not refused for 90 s.
rxr_nic2_ns "$NS" "$SADDR" "the server's namespace"

mkdir -p "$EXP" "$MNT" /proc/fs/nfsd /var/lib/nfs
OPTS=rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0
echo "$EXP $RXR_ADDR4/32($OPTS)" > /etc/exports
srv mount -t nfsd none /proc/fs/nfsd &&
	srv exportfs -ra &&
	srv rpc.nfsd -N 3 -U --grace-time 10 --lease-time 10 4
check_eq "nfsd started in $NS" 0 "$?"
# Not through srv: $! must be rpc.mountd itself (nsenter execs it), not
# a subshell whose kill would leave it running in $NS, holding the
# namespace, and the second NIC in it, after "ip netns del".
nsenter --net="/run/netns/$NS" rpc.mountd -N 3 -u -F \
	> /tmp/rxr_mountd.log 2>&1 &
MOUNTD=$!
listening() { srv netstat -ltn | grep -q ':2049 '; }
check_ok "nfsd listens on $SADDR:2049" poll 100 listening

# No point going on without the mount: the swap file would be local.
mounted() { mount.nfs4 "$SADDR:/" "$MNT" -o vers=4.2,proto=tcp,hard; }
if ! check_ok "NFSv4.2 mount of $SADDR:/" mounted ||
   ! check_ok "$MNT is an NFS mount" mountpoint -q "$MNT"; then
	sed 's/^/# mountd: /' /tmp/rxr_mountd.log
	exit "$RET"
fi
grep " $MNT " /proc/mounts | sed 's/^/# /'
# The first OPEN may meet the grace period still (10 s).
opened()
{
	dd if=/dev/zero of="$MNT/swap" bs=1M count=1 status=none 2> /dev/null
}
poll 200 opened
check_ok "swap file of $SWAP_MIB MiB written over NFS" \
	dd if=/dev/zero of="$MNT/swap" bs=1M count="$SWAP_MIB" conv=fsync \
	status=none
chmod 600 "$MNT/swap"
check_ok "mkswap on the NFS file" mkswap "$MNT/swap" > /dev/null
check_ok "swapon of the NFS file" swapon "$MNT/swap" || exit "$RET"
sed 's/^/# /' /proc/swaps

memalloc_flow()
{
	awk -v d="$NIC" -v r="$SADDR:2049" '$1 == "flow" && $2 == d &&
		$8 == r && $NF == "memalloc" && $12 + 0 > 0' "$RXR_PROC"
}
has_flow() { [ -n "$(memalloc_flow)" ]; }
if [ -r "$RXR_PROC" ]; then
	check_ok "the NFS socket is a priority flow on $NIC with its pool" \
		poll 100 has_flow
	memalloc_flow | sed 's/^/# /'
else
	echo "# no $RXR_PROC (kernel without rx-reserve)"
fi

# The load: LOAD_MIB MiB written and read back in a cgroup of CG_MIB MiB,
# so that most of it goes to the NFS swap file and comes back from it.
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2> /dev/null
mkdir "$CG"
echo $((CG_MIB << 20)) > "$CG/memory.max"
out0=$(vm pswpout) in0=$(vm pswpin) rx0=$(link_stat "$NIC" rx bytes)
tx0=$(link_stat "$NIC" tx bytes)
sh -c "echo \$\$ > $CG/cgroup.procs &&
	exec memload -p 1 -m $LOAD_MIB -P 2 -i 1000 -H 60 -T 300" \
	> /tmp/rxr_nfs_load.log 2>&1 &
LOAD=$!
timeout 330 tail --pid="$LOAD" -f /dev/null
wait "$LOAD"
rc=$?
LOAD=
tail -n 2 /tmp/rxr_nfs_load.log | sed 's/^/# memload: /'
check_eq "memload through the NFS swap: every page read back intact" 0 "$rc"
check_ok "memload DONE, nothing corrupt or killed" \
	grep -q '^DONE .* ok=1 corrupt=0 killed=0' /tmp/rxr_nfs_load.log
out=$(($(vm pswpout) - out0)) in=$(($(vm pswpin) - in0))
echo "# swapped out $((out / 256)) MiB, in $((in / 256)) MiB;" \
	"$NIC tx $((($(link_stat "$NIC" tx bytes) - tx0) >> 20)) MiB," \
	"rx $((($(link_stat "$NIC" rx bytes) - rx0) >> 20)) MiB"
check_ge "pages swapped out to NFS (MiB)" $(((LOAD_MIB - CG_MIB) / 2)) \
	$((out / 256))
check_ge "pages swapped in from NFS (MiB)" $(((LOAD_MIB - CG_MIB) / 2)) \
	$((in / 256))
floor=$(((LOAD_MIB - CG_MIB) / 2 << 20))
[ $((in * 4096)) -gt "$floor" ] && floor=$((in * 4096))
check_ge "$NIC rx bytes: the swapped-in pages came through it" \
	"$floor" $(($(link_stat "$NIC" rx bytes) - rx0))
if [ -r "$RXR_PROC" ]; then
	check_ok "the NFS flow still on $NIC after the load" has_flow
fi

# Torn down, the server's namespace goes, and the second NIC comes back
# for the tests after this one.
cleanup
check_ok "$N2 back in this namespace after the teardown" rxr_nic2_wait

exit "$RET"
