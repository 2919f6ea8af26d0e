#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Races and lifecycle events on netdevsim under a priority flow that is
# receiving a continuous stream (rxr_sock serve, which never ends on its
# own, into rxr_sock recv) while the receiving port is in emergency mode
# (debugfs fail_refill: every refill fails).  Each event is repeated
# RXR_RACE_ITER times (3), the flow alternately in a hardware slot (odd
# iterations, slots 4: the reserve queue) and in software (even
# iterations, slots 0: pages lent to the regular queues):
#
#   remove   del_device of the receiving port under the flow
#   link     link down and up
#   rings    ethtool -G (netdevsim only stores the sizes)
#   channels ethtool -L combined 2, then 4 (allowed with the core's
#            filters in place, patch 0005), RPS on: the reserve queue
#            must stay among the real RX queues
#   flag     the rx-reserve private flag off and on
#   xdp      a driver-mode XDP program attached and detached: netdevsim
#            accepts it (its rings run no program), rx-reserve goes on
#   close    the receiver killed mid-stream
#   route    the routes between the namespaces moved to a second linked
#            pair of ports and back: the flow follows its route
#   netns    ip netns del of the receiving namespace, then its last
#            process killed
#
# After each event the state is a defined one: the flow is registered and
# bytes keep arriving (64 KiB within 10 s), or it is unregistered and
# still counted, or gone with its socket; a stream that survives ends
# intact (every byte, in order, to the FIN); no WARN, BUG or Oops in
# dmesg.  At the end of each iteration the global line of
# /proc/net/rx_reserve is back to where the test started: flows, pool
# pages, every page of the pools free.  One PASS or FAIL line per event
# sums up the iterations (RXR_RACE_EVENTS picks events).  At the end, no
# priority frame may have been dropped at a socket's backlog (TcpExt
# TCPBacklogDrop over all the streams).
#
# The set-up makes the runs alike: neighbour entries are permanent (in
# emergency mode a port drops the ARP replies it has no buffer for, a
# documented limit); the receiver's TCP window (a route metric) is
# smaller than a ring, so that no frame is dropped and no page of the
# flow's pool waits in the socket's out-of-order queue when its device
# goes (TCP's receive autotuning is off in the receiving namespace: it
# would raise the window clamp past the route's, and a priority socket is
# autotuned outside emergency mode); the sender sends everything on its
# last TX queue (XPS), so that
# netdevsim's RSS (queue = TX queue % queues) puts a flow in software on
# the receiver's last queue; and the receiving namespace has
# net.ipv4.tcp_orphan_retries=1, so that a socket closed towards a peer it
# cannot reach any more goes, with its flow, in a few seconds rather than
# after about two minutes of probes.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

ITER=${RXR_RACE_ITER:-3}
EVENTS=${RXR_RACE_EVENTS:-remove link rings channels flag xdp close route netns}
PORT=5000
BIG=$((1 << 50))	# bytes the server sends: it never finishes
MIN_BYTES=65536		# "bytes keep arriving": this many within 10 s
WINDOW=32768		# the receiver's TCP window: fewer frames in flight
			# than ring slots, so none is dropped (and none is
			# kept out of order in the socket)
OUT=/tmp/rxr_races.recv
WARN_RE='WARNING:|BUG:|Oops|general protection|refcount_t:|kernel BUG'
WARN_RE+='|list_(add|del) corruption|UBSAN:|KASAN:|blocked for more than'
nsim_require
rxr_require_cmd nsenter pgrep dmesg taskset ping

cleanup()
{
	[ -n "${RECV:-}" ] && kill -9 "$RECV" 2> /dev/null
	srv_stop
	for d in "${DFS_B:-}" "${DFS_B2:-}"; do
		[ -e "$d/fail_refill" ] && echo 0 > "$d/fail_refill"
	done
	[ -n "${HOLD0:-}" ] &&
		sysctl -q -w net.core.rx_reserve_emergency_hold_ms="$HOLD0"
	pair2_cleanup
	nsim_pair_cleanup
	rm -f "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail()
{
	echo "FAIL: $*"
	RET=$ksft_fail
}

# need WHAT CMD...: check_ok that also returns CMD's verdict.
need()
{
	local what=$1

	shift
	if "$@"; then
		echo "PASS: $what"
		return 0
	fi
	fail "$what: $* failed"
	return 1
}

# within SECS CMD...: until CMD succeeds, at most SECS seconds (poll()
# counts tenths, which the guest's slow process start-up stretches).
within()
{
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# a CMD...: CMD in the sending namespace (nsenter: quicker than ip netns
# exec, which also mounts a sysfs).
a() { nsenter --net="/run/netns/$NS_A" "$@"; }

# b CMD...: CMD in the receiving namespace, through its name or, once the
# name is gone, through the receiver's process (B_NET).
b() { nsenter --net="$B_NET" "$@"; }

# bstat DEV NAME: an ethtool -S counter of DEV, in NS_B.
bstat()
{
	b ethtool -S "$1" 2> /dev/null |
		awk -v k="$2:" '$1 == k { print $2 }'
}
# tcpext NAME: a TcpExt counter of NS_B.
tcpext()
{
	# shellcheck disable=SC2016
	b awk -v k="$1" '
		/^TcpExt:/ { if (!h) { split($0, n); h = 1 } else split($0, v) }
		END { for (i in n) if (n[i] == k) print v[i] }' \
		/proc/net/netstat
}

rx_bytes() { bstat "$1" rx_bytes; }
rx_ge() { [ "$(rx_bytes "$1")" -ge "$2" ] 2> /dev/null; }
dev_kv() { b grep "^dev $1 " "$RXR_PROC" | kv "$2"; }
in_emerg() { [ "$(dev_kv "$1" in_emergency)" = 1 ]; }
# no_flows_on DEV: no flow registered on DEV (or no dev line).
no_flows_on()
{
	b grep "^dev $1 " "$RXR_PROC" | awk '{
		for (i = 1; i < NF; i++)
			if ($i == "flows_hw" || $i == "flows_sw")
				n += $(i + 1)
	} END { exit n != 0 }'
}

# The receiver's flow: its /proc line, the device it is on, its slot.
flow_line_b()
{
	# shellcheck disable=SC2016
	b awk -v l="198.51.100.2:$FPORT" '$1 == "flow" && $6 == l' "$RXR_PROC"
}
flow_on() { [ "$(flow_line_b | cut -d' ' -f2)" = "$1" ]; }
flow_gone() { [ -z "$(flow_line_b)" ]; }
flow_slot() { flow_line_b | kv slot; }
flow_in_slot() { [ "$(flow_slot)" -ge 0 ] 2> /dev/null; }
flow_in_sw() { [ "$(flow_slot)" = -1 ]; }

# The global line: flows, pool pages, pages out of their pools.
flows_are() { [ "$(proc_global flows)" = "$1" ]; }
pages_are() { [ "$(proc_global pool_pages)" = "$1" ]; }
pages_out()
{
	awk 'NR == 1 {
		for (i = 1; i < NF; i++)
			v[$i] = $(i + 1)
		print v["pool_pages"] - v["pool_free"]
		exit
	}' "$RXR_PROC"
}
pages_back() { [ "$(pages_out)" = 0 ]; }

flushed_back() { flush_defer; pages_back; }

warn_count() { dmesg | grep -cE "$WARN_RE"; }

# kick DEV: datagrams from NS_A to 198.51.100.2, whose refill fails on a
# regular queue of the port the route leads to; true once DEV is in
# emergency mode.
kick()
{
	a bash -c \
		'for i in 1 2 3; do echo x > /dev/udp/198.51.100.2/9; done' \
		2> /dev/null
	in_emerg "$1"
}

# receiving DEV WHEN: bytes keep arriving on DEV; false if not, with
# DEV's counters.
receiving()
{
	local base

	base=$(rx_bytes "$1")
	if within 10 rx_ge "$1" $((${base:-0} + MIN_BYTES)); then
		echo "PASS: $EV: $2: bytes keep arriving on $1"
		return 0
	fi
	fail "$EV: $2: bytes keep arriving on $1: $(($(rx_bytes "$1") -
	      ${base:-0})) bytes in 10 s"
	echo "#   flow: $(flow_line_b)"
	b ethtool -S "$1" | awk '$2 != 0' | tr -s ' \n' ' ' | fold -w 76 |
		sed 's/^/#   /'
	# Both ends' sockets (/proc/net/tcp: a timer 04 on the sender is
	# the zero-window probe, which a link down backs off), the rings.
	echo "#   receiver: $(tr '\n' ' ' < "$OUT")"
	sed 's/^/#   rings: /' "$DFS_B/rings"
	a grep ':1388 ' /proc/net/tcp6 | sed 's/^/#   A tcp6: /'
	b grep ':1388 ' /proc/net/tcp | sed 's/^/#   B tcp: /'
	echo "#   B: TCPToZeroWindowAdv $(tcpext TCPToZeroWindowAdv)," \
	     "TCPOFOQueue $(tcpext TCPOFOQueue)"
	return 1
}

# flowing: the stream still arrives on DEV_B (quietly).
flowing()
{
	local base

	base=$(rx_bytes "$DEV_B")
	within 5 rx_ge "$DEV_B" $((${base:-0} + MIN_BYTES))
}

# emergency DEV WHEN: DEV is (back) in emergency mode; if not, DEV's
# counters, its /proc line and the rings, to tell where the datagrams went.
emergency()
{
	check_ok "$EV: $2: $1 in emergency mode" within 10 kick "$1" &&
		return 0
	b ethtool -S "$1" | awk '$2 != 0' | tr -s ' \n' ' ' | fold -w 76 |
		sed 's/^/#   /'
	b grep "^dev $1 " "$RXR_PROC" | sed 's/^/#   proc: /'
	sed 's/^/#   rings: /' "$DFS_B/rings"
	return 1
}

# mac NS DEV: DEV's address.
mac() { ip -n "$1" -br link show "$2" | awk '{ print $3 }'; }

# path_fix: permanent neighbour entries between DEV_A and DEV_B, and
# between DEV_A2 and DEV_B2 if they exist (admin down flushes them);
# NS_B's route to NS_A, through DEV_B, with a TCP window of WINDOW.
path_fix()
{
	ip -n "$NS_A" neigh replace 198.51.100.2 dev "$DEV_A" \
		lladdr "$MAC_B" nud permanent
	ip -n "$NS_B" neigh replace 198.51.100.1 dev "$DEV_B" \
		lladdr "$MAC_A" nud permanent
	ip -n "$NS_B" route replace 198.51.100.1/32 dev "$DEV_B" \
		window "$WINDOW"
	[ -n "${ID_B2:-}" ] || return 0
	ip -n "$NS_A" neigh replace 198.51.100.2 dev "$DEV_A2" \
		lladdr "$MAC_B2" nud permanent
	ip -n "$NS_B" neigh replace 198.51.100.1 dev "$DEV_B2" \
		lladdr "$MAC_A2" nud permanent
}


pair_up()
{
	if ! nsim_pair 4; then
		fail "$EV: netdevsim pair"
		return 1
	fi
	B_NET=/run/netns/$NS_B
	MAC_A=$(mac "$NS_A" "$DEV_A")
	MAC_B=$(mac "$NS_B" "$DEV_B")
	path_fix
	xps_last "$NS_A" "$DEV_A"
	b sysctl -q -w net.ipv4.tcp_orphan_retries=1
	# Autotuning raises the window clamp past the route's window.
	b sysctl -q -w net.ipv4.tcp_moderate_rcvbuf=0
}

# nsim_named ID NS NAME: a one-port, four-queue netdevsim device, named
# NAME (its own name may be taken in NS) and moved into NS.
nsim_named()
{
	local dev

	echo "$1 1 4" > "$NSIM_BUS/new_device" || return 1
	dev=$(slowwait 5 ls "$NSIM_BUS/devices/netdevsim$1/net/") || return 1
	ip link set "$dev" name "$3" && ip link set "$3" netns "$2"
}

# pair2_up: a second linked pair, DEV_A2 in NS_A and DEV_B2 in NS_B,
# without addresses, for the route event.
pair2_up()
{
	ID_A2=$((ID_A + 1024))
	ID_B2=$((ID_A + 1536))
	DEV_A2=rxra2 DEV_B2=rxrb2
	nsim_named "$ID_A2" "$NS_A" "$DEV_A2" &&
		nsim_named "$ID_B2" "$NS_B" "$DEV_B2" || return 1
	DFS_B2=/sys/kernel/debug/netdevsim/netdevsim$ID_B2/ports/0/rx_reserve
	ip -n "$NS_A" link set "$DEV_A2" up
	ip -n "$NS_B" link set "$DEV_B2" up
	nsim_link "$NS_A" "$DEV_A2" "$NS_B" "$DEV_B2" || return 1
	MAC_A2=$(mac "$NS_A" "$DEV_A2")
	MAC_B2=$(mac "$NS_B" "$DEV_B2")
	path_fix
	xps_last "$NS_A" "$DEV_A2"
}

pair2_cleanup()
{
	local id

	for id in ${ID_A2:-} ${ID_B2:-}; do
		[ -e "$NSIM_BUS/devices/netdevsim$id" ] &&
			echo "$id" > "$NSIM_BUS/del_device"
	done
	ID_A2="" ID_B2="" DFS_B2=""
}

# set_slots NS DEV DFS N: give DEV N slots.  The rings (the reserve queue
# among them) are laid out at open, so the knob is written while the port
# is down.
set_slots()
{
	[ "$(cat "$3/slots")" = "$4" ] && return 0
	ip -n "$1" link set "$2" down
	echo "$4" > "$3/slots"
	ip -n "$1" link set "$2" up
	path_fix
}

# place I: the flow's placement in iteration I, and the slots for it.
place()
{
	if (($1 % 2)); then
		PLACE=hw SLOTS=4
	else
		PLACE=sw SLOTS=0
	fi
}

srv_stop()
{
	local kids

	[ -n "${SRV:-}" ] || return 0
	kids=$(pgrep -P "$SRV")
	# shellcheck disable=SC2086
	kill $kids "$SRV" 2> /dev/null
	wait "$SRV" 2> /dev/null
	SRV=""
}
listening() { a netstat -ltn | grep -q ":$PORT "; }
srv_idle() { ! pgrep -P "$SRV" > /dev/null; }
recv_done() { ! kill -0 "$RECV" 2> /dev/null; }

# backlog_note: add the stream's TcpExt TCPBacklogDrop to BL_DROPS.
backlog_note()
{
	local v

	[ -n "${BL_BASE:-}" ] || return 0
	v=$(tcpext TCPBacklogDrop 2> /dev/null)
	[ -n "$v" ] && BL_DROPS=$((BL_DROPS + v - BL_BASE)) &&
		BL_STREAMS=$((BL_STREAMS + 1))
	BL_BASE=""
}

recv_kill()
{
	[ -n "${RECV:-}" ] || return 0
	backlog_note
	kill -9 "$RECV" 2> /dev/null
	wait "$RECV" 2> /dev/null
	RECV=""
}

# stream_start: a server in NS_A, the priority receiver in NS_B, the flow
# registered on DEV_B as PLACE says and receiving; then DEV_B's refill
# fails and DEV_B goes into emergency mode.
stream_start()
{
	echo 0 > "$DFS_B/fail_refill"
	# Let the rings refill (a link up while refill failed leaves them
	# empty).
	kick "$DEV_B"
	# nsenter execs rxr_sock: $! is the process to kill (a function
	# in the background would be a subshell).
	nsenter --net="/run/netns/$NS_A" "$RXR_SOCK" serve "$PORT" "$BIG" \
		> /dev/null 2>&1 &
	SRV=$!
	if ! within 10 listening; then
		fail "$EV: the server did not listen"
		return 1
	fi
	rm -f "$OUT"
	nsenter --net="$B_NET" "$RXR_SOCK" recv 198.51.100.1 "$PORT" \
		> "$OUT" 2>&1 &
	RECV=$!
	if ! within 10 grep -q '^port ' "$OUT"; then
		fail "$EV: the receiver did not connect: $(cat "$OUT")"
		return 1
	fi
	FPORT=$(awk '$1 == "port" { print $2 }' "$OUT")
	BL_BASE=$(tcpext TCPBacklogDrop)
	check_ok "$EV: flow registered on $DEV_B" within 10 flow_on "$DEV_B"
	if [ "$PLACE" = hw ]; then
		check_ok "$EV: flow in a hardware slot" within 10 flow_in_slot
	else
		check_eq "$EV: flow in software" -1 "$(flow_slot)"
	fi
	receiving "$DEV_B" "before the event" || return
	echo 1 > "$DFS_B/fail_refill"
	emergency "$DEV_B" "before the event"
	[ "$RET" = 0 ]
}

# stream_end: stop the server (its queued data and FIN still go out) and
# check that the receiver got the stream intact to its end.
stream_end()
{
	local rc

	if [ "$RET" != 0 ]; then
		echo "# $EV: the stream is not ended after a failure"
		return
	fi
	backlog_note
	srv_stop
	if ! within 30 recv_done; then
		fail "$EV: the stream's end did not reach the receiver"
		return
	fi
	wait "$RECV"
	rc=$?
	RECV=""
	check_eq "$EV: receiver exit" 0 "$rc"
	check_ok "$EV: stream intact to its end ($(sed -n 2p "$OUT"))" \
		grep -q "pattern ok" "$OUT"
}

# dev_clean DEV: the driver's invariants on DEV, and no flow left on it.
dev_clean()
{
	check_eq "$EV: $1 ring slots left unposted" 0 \
		"$(bstat "$1" rx_unposted)"
	check_eq "$EV: $1 pool pages up with another flow's frame" 0 \
		"$(bstat "$1" rx_reserve_pool_up_other)"
	check_ok "$EV: no flow left on $1" within 10 no_flows_on "$1"
}

# no_leak: the global state is back to where the test started.
no_leak()
{
	check_ok "$EV: flows back to $F0" within 10 flows_are "$F0"
	check_ok "$EV: pool pages back to $P0" within 10 pages_are "$P0"
	check_ok "$EV: every page of the pools free" within 10 pages_back
}

# held_by_socket: the pool pages still out are all held by the receiving
# socket: at least a page of its receive memory (SO_MEMINFO's rmem_alloc,
# which counts the out-of-order queue; a pool page's skb has a truesize
# of a page or more) for each.
held_by_socket()
{
	local n out rmem

	n=$(grep -c '^rmem ' "$OUT")
	kill -USR1 "$RECV"
	within 5 test "$(grep -c '^rmem ' "$OUT")" -gt "$n"
	rmem=$(awk '$1 == "rmem" { v = $2 } END { print v }' "$OUT")
	out=$(pages_out)
	if [ -n "$rmem" ] && [ $((out * 4096)) -le "$rmem" ]; then
		echo "PASS: $EV: the $out pool pages out are the socket's" \
		     "(rmem $rmem; TCPOFOQueue $(tcpext TCPOFOQueue))"
	else
		fail "$EV: every ring page back in the flow's pool:" \
		     "$out pages out, the socket holds ${rmem:-?} bytes;" \
		     "TCPOFOQueue $(tcpext TCPOFOQueue), TCPBacklogDrop" \
		     "$(tcpext TCPBacklogDrop)"
		b grep -v ' 0A ' /proc/net/tcp | sed 's/^/#   /'
	fi
}

# --- the events ---
#
# remove, close and netns end the flow: each iteration makes one and
# ends it (remove and netns on a new pair).  The others are rounds on a
# live stream, one stream per placement: each round is the event and the
# checks after it.

ev_remove()
{
	local diag

	pair_up || return
	set_slots "$NS_B" "$DEV_B" "$DFS_B" "$SLOTS"
	if stream_start; then
		emergency "$DEV_B" "at the removal"
		diag="before: $(b ethtool -S "$DEV_B" |
			awk '$2 != 0 && $1 ~ /no_buffer|dropped|oversize/' |
			tr -s ' \n' ' ') TCPOFOQueue $(tcpext TCPOFOQueue)"
		echo "$ID_B" > "$NSIM_BUS/del_device"
		check_ok "$EV: device gone" within 10 \
			test ! -e "$NSIM_BUS/devices/netdevsim$ID_B"
		check_ok "$EV: flow unregistered with its device" \
			within 10 flow_gone
		check_eq "$EV: flow still counted" $((F0 + 1)) \
			"$(proc_global flows)"
		check_ok "$EV: receiver still running" kill -0 "$RECV"
		# Frames received by one CPU and freed by another wait on
		# the first one's skb defer list for its next RX softirq
		# (up to sysctl net.core.skb_defer_max / 2 of them).
		echo "# $EV: $(pages_out) pool pages out after the removal;" \
		     "RX on every CPU frees the skbs deferred to it; $diag"
		if within 10 flushed_back; then
			echo "PASS: $EV: every ring page back in its pool"
		else
			# Segments after a hole (a frame dropped for want of
			# a pool page) wait in the out-of-order queue, on pool
			# pages, charged to the socket until it closes: every
			# page still out must be one the socket holds.
			held_by_socket
		fi
	fi
	recv_kill
	srv_stop
	no_leak
	nsim_pair_cleanup
}

ev_close()
{
	set_slots "$NS_B" "$DEV_B" "$DFS_B" "$SLOTS"
	if stream_start; then
		emergency "$DEV_B" "at the close"
		recv_kill
		check_ok "$EV: flow unregistered" within 10 flow_gone
		check_ok "$EV: flow gone with its socket" \
			within 10 flows_are "$F0"
		# Not a check: closed with a FIN (nothing left unread), the
		# socket leaves a FIN-WAIT-2 timewait socket and no flow,
		# and the sender's next segments, no longer a priority
		# flow's, are dropped in emergency mode: the RST that would
		# end the sender's side never goes out.
		if within 2 srv_idle; then
			echo "# $EV: the sender saw the connection end"
		else
			echo "# $EV: the sender's side is still open:" \
			     "$(a cat /proc/net/tcp6 |
				awk '$4 == "08"' | wc -l) CLOSE-WAIT" \
			     "in NS_A, $(b cat /proc/net/tcp |
				awk '$4 == "05"' | wc -l) FIN-WAIT-2 in NS_B"
		fi
	fi
	recv_kill
	srv_stop
	dev_clean "$DEV_B"
	no_leak
}

ev_netns()
{
	local dev

	pair_up || return
	set_slots "$NS_B" "$DEV_B" "$DFS_B" "$SLOTS"
	if stream_start; then
		emergency "$DEV_B" "at ip netns del"
		B_NET=/proc/$RECV/ns/net
		check_ok "$EV: ip netns del" ip netns del "$NS_B"
		# The receiver's socket keeps the namespace, and the flow.
		check_ok "$EV: netns deleted: flow still on $DEV_B" \
			flow_on "$DEV_B"
		receiving "$DEV_B" "netns deleted"
		recv_kill
		check_ok "$EV: namespace gone: $DEV_B back in the initial one" \
			within 20 test -d \
			"$NSIM_BUS/devices/netdevsim$ID_B/net/$DEV_B"
		dev=$(ls "$NSIM_BUS/devices/netdevsim$ID_B/net/" 2> /dev/null)
		if [ -n "$dev" ]; then
			check_eq "$EV: $dev flows after the namespace" "0 0" \
				"$(ethtool -S "$dev" | awk '
				   $1 == "rx_reserve_flows_hw:" { h = $2 }
				   $1 == "rx_reserve_flows_sw:" { s = $2 }
				   END { print h + 0, s + 0 }')"
		fi
	fi
	recv_kill
	srv_stop
	no_leak
	nsim_pair_cleanup
}

round_link()
{
	emergency "$DEV_B" "at link down"
	b ip link set "$DEV_B" down
	check_eq "$EV: link down: detached, out of emergency mode" "0 0" \
		"$(dev_kv "$DEV_B" attached) $(dev_kv "$DEV_B" in_emergency)"
	check_eq "$EV: link down: flow still counted" $((F0 + 1)) \
		"$(proc_global flows)"
	b ip link set "$DEV_B" up
	path_fix
	check_eq "$EV: link up: attached" 1 "$(dev_kv "$DEV_B" attached)"
	need "$EV: link up: flow on $DEV_B" within 10 flow_on "$DEV_B" ||
		return
	[ "$PLACE" = hw ] &&
		check_ok "$EV: link up: flow back in a slot" \
			within 10 flow_in_slot
	emergency "$DEV_B" "link up"
	receiving "$DEV_B" "link up" || return
}

# netdevsim only stores the sizes: the rings stay as they are.
round_rings()
{
	local n=$((128 << (I % 4)))

	emergency "$DEV_B" "at ethtool -G rx $n"
	check_ok "$EV: ethtool -G rx $n tx $n" \
		b ethtool -G "$DEV_B" rx "$n" tx "$n"
	check_eq "$EV: rx ring size" "$n" \
		"$(b ethtool -g "$DEV_B" |
		   awk '$1 == "RX:" { v = $2 } END { print v }')"
	check_ok "$EV: rings $n: flow on $DEV_B" flow_on "$DEV_B"
	receiving "$DEV_B" "rings $n" || return
}

# rps_cpus CPUS: DEV_B's rx-0 RPS map.  With RPS on, the stack checks each
# frame's RX queue against the real number of queues (get_rps_cpu()).
rps_cpus()
{
	ip netns exec "$NS_B" sh -c \
		"echo $1 > /sys/class/net/$DEV_B/queues/rx-0/rps_cpus"
}
pre_channels() { rps_cpus "$(printf '%x' $(((1 << $(nproc)) - 1)))"; }

# Patch 0005 lets ethtool -L shrink a device whose filters steer to its
# reserve queue, "which the driver picks again when its queues change".
round_channels()
{
	local n q

	for n in 2 4; do
		emergency "$DEV_B" "at ethtool -L combined $n"
		check_ok "$EV: ethtool -L combined $n" \
			b ethtool -L "$DEV_B" combined "$n"
		check_ok "$EV: channels $n: flow on $DEV_B" \
			within 10 flow_on "$DEV_B"
		if [ "$PLACE" = hw ]; then
			check_ok "$EV: channels $n: flow in a slot" \
				within 10 flow_in_slot
			q=$(dev_kv "$DEV_B" reserve_queue)
			check_ok "$EV: channels $n: reserve queue $q of $n" \
				test "${q:-0}" -lt "$n"
		fi
		receiving "$DEV_B" "channels $n" || return
	done
}
post_channels()
{
	b ethtool -L "$DEV_B" combined 4 2> /dev/null
	rps_cpus 0
}

round_flag()
{
	emergency "$DEV_B" "at flag off"
	check_ok "$EV: private flag off" \
		b ethtool --set-priv-flags "$DEV_B" rx-reserve off
	check_eq "$EV: flag off: disabled, out of emergency mode" "0 0" \
		"$(dev_kv "$DEV_B" enabled) $(dev_kv "$DEV_B" in_emergency)"
	check_ok "$EV: flag off: flow still on $DEV_B" flow_on "$DEV_B"
	check_ok "$EV: flag off: flow in software" within 10 flow_in_sw
	check_ok "$EV: private flag on" \
		b ethtool --set-priv-flags "$DEV_B" rx-reserve on
	check_eq "$EV: flag on: enabled" 1 "$(dev_kv "$DEV_B" enabled)"
	[ "$PLACE" = hw ] &&
		check_ok "$EV: flag on: flow back in a slot" \
			within 10 flow_in_slot
	emergency "$DEV_B" "flag on"
	receiving "$DEV_B" "flag on" || return
}
post_flag() { b ethtool --set-priv-flags "$DEV_B" rx-reserve on 2> /dev/null; }

xdp_shown() { b ip link show "$1" | grep -q xdp; }

# Nothing in Documentation/networking/rx-reserve.rst makes netdevsim
# refuse XDP (virtio-net does): its rings run no program.
round_xdp()
{
	local out

	emergency "$DEV_B" "at XDP attach"
	out=$(b "$RXR_SOCK" xdp "$DEV_B" on 2>&1)
	check_eq "$EV: XDP attach (netdevsim accepts driver mode)" \
		"xdp: attached" "$out"
	check_ok "$EV: XDP program on $DEV_B" xdp_shown "$DEV_B"
	check_ok "$EV: XDP on: flow on $DEV_B" flow_on "$DEV_B"
	[ "$PLACE" = hw ] &&
		check_ok "$EV: XDP on: flow in a slot" flow_in_slot
	receiving "$DEV_B" "XDP on" || return
	emergency "$DEV_B" "XDP on"
	out=$(b "$RXR_SOCK" xdp "$DEV_B" off 2>&1)
	check_eq "$EV: XDP detach" "xdp: detached" "$out"
	receiving "$DEV_B" "XDP off" || return
}
post_xdp() { b "$RXR_SOCK" xdp "$DEV_B" off > /dev/null 2>&1; }

# DEV_B2 is up with its rings posted, then its refill fails too.
pre_route()
{
	echo 0 > "$DFS_B2/fail_refill"
	set_slots "$NS_B" "$DEV_B2" "$DFS_B2" "$SLOTS"
	echo 1 > "$DFS_B2/fail_refill"
}

# NS_B's route moves first: the flow moves with its next ACK for the data
# still coming through DEV_B, and is on DEV_B2 when the data comes there.
round_route()
{
	emergency "$DEV_B" "at the route change"
	ip -n "$NS_B" route replace 198.51.100.1/32 dev "$DEV_B2" \
		window "$WINDOW"
	need "$EV: route to $DEV_B2: flow follows it" \
		within 10 flow_on "$DEV_B2" || return
	check_ok "$EV: route to $DEV_B2: no flow left on $DEV_B" \
		no_flows_on "$DEV_B"
	ip -n "$NS_A" route replace 198.51.100.2/32 dev "$DEV_A2"
	[ "$PLACE" = hw ] &&
		check_ok "$EV: route to $DEV_B2: flow in a slot" \
			within 10 flow_in_slot
	emergency "$DEV_B2" "route to $DEV_B2"
	receiving "$DEV_B2" "route to $DEV_B2" || return
	ip -n "$NS_B" route replace 198.51.100.1/32 dev "$DEV_B" \
		window "$WINDOW"
	need "$EV: route back: flow back on $DEV_B" \
		within 10 flow_on "$DEV_B" || return
	check_ok "$EV: route back: no flow left on $DEV_B2" \
		no_flows_on "$DEV_B2"
	ip -n "$NS_A" route del 198.51.100.2/32 dev "$DEV_A2"
	[ "$PLACE" = hw ] &&
		check_ok "$EV: route back: flow in a slot" \
			within 10 flow_in_slot
	emergency "$DEV_B" "route back"
	receiving "$DEV_B" "route back" || return
}

post_route()
{
	ip -n "$NS_A" route del 198.51.100.2/32 2> /dev/null
	path_fix
	dev_clean "$DEV_B2"
}

# --- the runner ---

ALL_RET=0
declare -A BAD

# warn_check: no new WARN/BUG/Oops line in dmesg.
warn_check()
{
	local warn

	warn=$(warn_count)
	[ "$warn" = "$WARN0" ] && return 0
	fail "$EV: the kernel logged $((warn - WARN0)) WARN/BUG/Oops lines"
	dmesg | grep -E "$WARN_RE" | tail -n 5 | sed 's/^/# /'
	WARN0=$warn
}

# iter NAME I FN...: iteration I of event NAME is FN; remembers its
# verdict.
iter()
{
	local name=$1 i=$2 t1=$SECONDS

	shift 2
	place "$i"
	EV="${name}[$i/$ITER,$PLACE]"
	I=$i
	RET=0
	"$@"
	warn_check
	echo "# $EV: $((SECONDS - t1)) s"
	[ "$RET" = 0 ] || BAD[$name.$i]=1
}

# live NAME P: the rounds of event NAME whose iteration's parity is P,
# on one stream.
live()
{
	local name=$1 i first=$2 alive=1 t1=$SECONDS

	[ "$first" -le "$ITER" ] || return 0
	place "$first"
	EV="${name}[stream,$PLACE]"
	RET=0
	set_slots "$NS_B" "$DEV_B" "$DFS_B" "$SLOTS"
	declare -F "pre_$name" > /dev/null && "pre_$name"
	stream_start || alive=0
	for ((i = first; i <= ITER; i += 2)); do
		if [ "$alive" = 1 ]; then
			iter "$name" "$i" "round_$name"
			[ -z "${BAD[$name.$i]:-}" ] || flowing || alive=0
		else
			echo "FAIL: ${name}[$i/$ITER,$PLACE]: not run:" \
			     "no live stream"
			BAD[$name.$i]=1
		fi
	done
	EV="${name}[stream,$PLACE]"
	RET=0
	[ "$alive" = 1 ] && stream_end
	recv_kill
	srv_stop
	declare -F "post_$name" > /dev/null && "post_$name"
	dev_clean "$DEV_B"
	no_leak
	warn_check
	echo "# $EV: $((SECONDS - t1)) s"
	if [ "$RET" != 0 ]; then
		for ((i = first; i <= ITER; i += 2)); do
			BAD[$name.$i]=1
		done
	fi
}

# run NAME: every iteration of event NAME, then one line for it.
run()
{
	local name=$1 i pass="" failed="" t0=$SECONDS

	if declare -F "ev_$name" > /dev/null; then
		for ((i = 1; i <= ITER; i++)); do
			iter "$name" "$i" "ev_$name"
		done
	else
		live "$name" 1
		live "$name" 2
	fi
	for ((i = 1; i <= ITER; i++)); do
		if [ -z "${BAD[$name.$i]:-}" ]; then
			pass="$pass $i"
		else
			failed="$failed $i"
		fi
	done
	if [ -z "$failed" ]; then
		echo "PASS: event $name: iterations$pass ($((SECONDS - t0)) s)"
	else
		echo "FAIL: event $name: iterations$failed failed" \
		     "(passed:${pass:- none}; $((SECONDS - t0)) s)"
		ALL_RET=$ksft_fail
	fi
}
want() { [[ " $EVENTS " == *" $1 "* ]]; }

HOLD0=$(sysctl -n net.core.rx_reserve_emergency_hold_ms)
# Emergency mode lasts 5 s past the last failed refill: a flow in a slot
# makes none (its frames come on the reserve queue), kick() does.
sysctl -q -w net.core.rx_reserve_emergency_hold_ms=5000
F0=$(proc_global flows)
P0=$(proc_global pool_pages)
WARN0=$(warn_count)
BL_DROPS=0 BL_STREAMS=0

want remove && run remove
EV=setup
pair_up || exit "$ksft_fail"
for e in link rings channels flag xdp close; do
	want "$e" && run "$e"
done
if want route; then
	if pair2_up; then
		run route
	else
		echo "FAIL: a second netdevsim pair for the route event"
		ALL_RET=$ksft_fail
	fi
	pair2_cleanup
fi
nsim_pair_cleanup
want netns && run netns

RET=0
EV=end
# sk_add_backlog() takes a pfmemalloc skb (a frame on a pool page) only
# for a SOCK_MEMALLOC socket: one marked with SO_RX_RESERVE alone loses
# its priority frames that arrive while its reader holds the socket.
what="end: priority frames dropped at the socket backlog in"
check_eq "$what $BL_STREAMS streams (TcpExt TCPBacklogDrop)" 0 "$BL_DROPS"
check_ok "end: flows back to $F0" within 10 flows_are "$F0"
check_ok "end: pool pages back to $P0" within 10 pages_are "$P0"
check_ok "end: every page of the pools free" pages_back
[ "$RET" = 0 ] || ALL_RET=$ksft_fail
RET=$ALL_RET
exit "$RET"
