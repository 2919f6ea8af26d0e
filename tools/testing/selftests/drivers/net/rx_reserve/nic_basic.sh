#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bench's NIC is the one asked for, offers the queues asked for, and
# carries IPv4 and IPv6 traffic to the peer.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

rxr_require_nic
rxr_require_cmd ethtool ping

case "$RXR_NIC" in
e1000e) want_driver=e1000e ;;
virtio*) want_driver=virtio_net ;;
*) want_driver=unknown ;;
esac
check_eq "$NIC driver" "$want_driver" \
	"$(ethtool -i "$NIC" | awk '/^driver:/ { print $2 }')"
check_eq "$NIC carrier" 1 "$(cat "/sys/class/net/$NIC/carrier")"

# e1000e has no channel ops; virtio-net reports its queue pairs as combined.
if [ "$want_driver" = virtio_net ]; then
	max=$(ethtool -l "$NIC" | awk '/^Combined:/ { print $2; exit }')
	check_eq "$NIC combined channels offered" "${RXR_QUEUES:-1}" "$max"
fi
rxq=$(find "/sys/class/net/$NIC/queues" -maxdepth 1 -name 'rx-*' | wc -l)
check_ge "$NIC RX queues" 1 "$rxq"

rx0=$(link_stat "$NIC" rx packets)
tx0=$(link_stat "$NIC" tx packets)
check_ok "IPv4 ping $RXR_PEER4" ping -q -c 5 -i 0.2 -W 5 "$RXR_PEER4"
check_ok "IPv6 ping $RXR_PEER6" ping -6 -q -c 5 -i 0.2 -W 5 "$RXR_PEER6"
check_ge "$NIC rx packets" $((rx0 + 10)) "$(link_stat "$NIC" rx packets)"
check_ge "$NIC tx packets" $((tx0 + 10)) "$(link_stat "$NIC" tx packets)"

exit "$RET"
