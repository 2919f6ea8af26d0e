#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The pools are global: only CAP_NET_ADMIN in the initial user namespace
# may make a priority flow.  An unprivileged user who makes a user and a
# network namespace of its own (unshare -Urn, root in there) is refused
# SO_RX_RESERVE on 64 connected sockets, and the storage flow on
# netdevsim keeps its whole pool; root in the initial namespace is not
# refused (the control).

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

SOCK=$RXR_SOCK
PROC=$RXR_PROC

nsim_require
rxr_require_cmd unshare setpriv
if ! unshare -Urn true 2> /dev/null; then
	echo "SKIP: no user namespaces (CONFIG_USER_NS)"
	exit "$ksft_skip"
fi

cleanup()
{
	hold_stop_all
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	nsim_pair_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

NPAGES=$(sysctl -n net.core.rx_reserve_pool_pages)

# flow_b PORT: the line of DEV_B's flow from local port PORT.
flow_b()
{
	ip netns exec "$NS_B" awk -v d="$DEV_B" -v p=":$1" '
		$1 == "flow" && $2 == d &&
		substr($6, length($6) - length(p) + 1) == p' "$PROC"
}
pool_b_is() { [ "$(flow_b "$1" | kv pool)" = "$2" ]; }

nsim_pair 2 || exit "$ksft_fail"
ip netns exec "$NS_A" "$SOCK" serve 5000 0 > /dev/null &
SRV=$!
slowwait 5 ip netns exec "$NS_A" sh -c "netstat -ltn | grep -q ':5000 '"

# The storage socket: a priority flow on DEV_B with its pool.
hold_start st ip netns exec "$NS_B" "$SOCK" connect 198.51.100.1 5000 ||
	exit "$ksft_fail"
PORT=$HOLD_PORT
check_ok "storage flow on $DEV_B has its pool" \
	poll 50 pool_b_is "$PORT" "$NPAGES"
F0=$(proc_global flows)
P0=$(proc_global pool_pages)

flows_are() { [ "$(proc_global flows)" = "$1" ]; }
pages_are() { [ "$(proc_global pool_pages)" = "$1" ]; }

# The control: root in the initial user namespace, in a network namespace
# of its own, is not refused.
check_eq "root in the initial user namespace marks" \
	"marked 4 refused 0 errno 0" \
	"$(unshare -n sh -c "ip link set lo up && $SOCK markn 4")"
check_ok "the control's flows gone" poll 100 flows_are "$F0"

# markn 64 by root of a user namespace of its own: as root, and as nobody.
in_userns()
{
	setpriv "$@" unshare -Urn sh -c "ip link set lo up && $SOCK markn 64"
}
check_eq "root of its own user namespace refused" \
	"marked 0 refused 64 errno EPERM" "$(in_userns --reuid=0)"
check_eq "nobody, root of its own user namespace, refused" \
	"marked 0 refused 64 errno EPERM" \
	"$(in_userns --reuid=65534 --regid=65534 --clear-groups)"
check_eq "nobody in the initial namespaces refused" \
	"marked 0 refused 4 errno EPERM" \
	"$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SOCK" markn 4)"

check_eq "no flow made by the refused users" "$F0" "$(proc_global flows)"
check_ok "pool pages as before" pages_are "$P0"
line=$(flow_b "$PORT")
check_eq "storage flow's pool intact" "$NPAGES" "$(kv pool <<< "$line")"
hold_stop st

exit "$RET"
