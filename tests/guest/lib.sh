#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shared by the guest's /init and the scripts the bench runs in the guest.
# The bench exports, through /rxr/env:
#   RXR_NIC     none | e1000e | virtio | virtio-mq
#   RXR_QUEUES  queue pairs the device offers
#   RXR_ADDR4 RXR_PEER4 RXR_ADDR6 RXR_PEER6   guest and peer addresses
#   RXR_PREFIX4 RXR_PREFIX6

# rxr_nic: the name of the bench's NIC (the first non-loopback device with a
# PCI parent), or nothing when the guest has none.
rxr_nic()
{
	local d
	for d in /sys/class/net/*; do
		[ -e "$d/device" ] || continue
		case "$(readlink -f "$d/device")" in
		*/pci*) basename "$d"; return 0 ;;
		esac
	done
	return 1
}

# rxr_coldplug: on a kernel with modules (the modules kernel, whose modules
# the bench appends to the image), load the driver of every device present,
# by its modalias, as udev does at boot.
rxr_coldplug()
{
	local a
	[ -r /proc/modules ] || return 0
	for a in /sys/bus/*/devices/*/modalias; do
		[ -r "$a" ] || continue
		modprobe -q "$(cat "$a")" 2>/dev/null
	done
	echo "rxr: modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
}

rxr_nic_setup()
{
	local dev i
	rxr_coldplug
	[ "${RXR_NIC:-none}" = none ] && return 0
	for i in $(seq 50); do
		dev=$(rxr_nic) && break
		sleep 0.1
	done
	[ -n "$dev" ] || { echo "no NIC found for RXR_NIC=$RXR_NIC"; return 1; }
	ip link set "$dev" up
	ip addr add "$RXR_ADDR4/$RXR_PREFIX4" dev "$dev"
	ip -6 addr add "$RXR_ADDR6/$RXR_PREFIX6" dev "$dev" nodad
	# Carrier comes up asynchronously on e1000e.
	for i in $(seq 100); do
		[ "$(cat "/sys/class/net/$dev/carrier" 2>/dev/null)" = 1 ] &&
			return 0
		sleep 0.1
	done
	echo "$dev: no carrier"
	return 1
}
