#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The uapi numbers rx-reserve takes (SO_RX_RESERVE, the ethtool netlink
# messages) are placeholders until a merge assigns them, and the kernel's
# uapi headers, as the patched kernel installs them, are the one place
# that defines them.  The copies that cannot include those headers must
# agree with them: the ethtool patch's uapi copy (tools/ethtool) and the
# fallback define of rxr_sock.c, built against the host's headers.

top=$(cd "$(dirname "$0")/../.." && pwd)
inc=${BUILD:-$top/build}/patched/out/usr/include
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..5"
if [ ! -r "$inc/linux/ethtool_netlink.h" ] ||
   ! grep -q ETHTOOL_MSG_RX_RESERVE_GET "$inc/linux/ethtool_netlink.h"; then
	for i in 1 2 3 4 5; do
		echo "ok $i uapi ids # SKIP no patched kernel headers in $inc"
	done
	exit 0
fi

# The kernel's numbers.
cat > "$tmp/ids.c" <<'C'
#include <stdio.h>
#include <sys/socket.h>
#include <linux/ethtool_netlink.h>
int main(void)
{
	printf("SO_RX_RESERVE %d\n", SO_RX_RESERVE);
	printf("ETHTOOL_MSG_RX_RESERVE_GET %d\n", ETHTOOL_MSG_RX_RESERVE_GET);
	printf("ETHTOOL_MSG_RX_RESERVE_SET %d\n", ETHTOOL_MSG_RX_RESERVE_SET);
	printf("ETHTOOL_MSG_RX_RESERVE_GET_REPLY %d\n",
	       ETHTOOL_MSG_RX_RESERVE_GET_REPLY);
	printf("ETHTOOL_MSG_RX_RESERVE_NTF %d\n", ETHTOOL_MSG_RX_RESERVE_NTF);
	return 0;
}
C
if ! gcc -idirafter /usr/include -I "$inc" -o "$tmp/ids" "$tmp/ids.c" \
	> "$tmp/cc.log" 2>&1; then
	for i in 1 2 3 4 5; do
		echo "not ok $i uapi ids # $(head -n 1 "$tmp/cc.log")"
	done
	exit 1
fi
"$tmp/ids" > "$tmp/kernel"
kernel() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/kernel"; }

n=0
t()	# t NAME EXPECTED ACTUAL
{
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n $1 ($3)"
	else
		echo "not ok $n $1 # the kernel says $2, the copy $3"
	fi
}

patch=$top/tools/ethtool/0001-netlink-add-show-rx-reserve-and-set-rx-reserve.patch
# The ethtool copy gives GET and GET_REPLY explicit values; SET and NTF
# follow them.
copy() { sed -n "s/^+\t$1 = \([0-9]*\),$/\1/p" "$patch"; }
get=$(copy ETHTOOL_MSG_RX_RESERVE_GET)
reply=$(copy ETHTOOL_MSG_RX_RESERVE_GET_REPLY)
t "ethtool copy: ETHTOOL_MSG_RX_RESERVE_GET" \
	"$(kernel ETHTOOL_MSG_RX_RESERVE_GET)" "$get"
t "ethtool copy: ETHTOOL_MSG_RX_RESERVE_SET follows it" \
	"$(kernel ETHTOOL_MSG_RX_RESERVE_SET)" "$((${get:-0} + 1))"
t "ethtool copy: ETHTOOL_MSG_RX_RESERVE_GET_REPLY" \
	"$(kernel ETHTOOL_MSG_RX_RESERVE_GET_REPLY)" "$reply"
t "ethtool copy: ETHTOOL_MSG_RX_RESERVE_NTF follows it" \
	"$(kernel ETHTOOL_MSG_RX_RESERVE_NTF)" "$((${reply:-0} + 1))"
t "rxr_sock.c: SO_RX_RESERVE" "$(kernel SO_RX_RESERVE)" \
	"$(sed -n 's/^#define SO_RX_RESERVE \([0-9]*\)$/\1/p' \
		"$top/tools/testing/selftests/drivers/net/rx_reserve/rxr_sock.c")"
