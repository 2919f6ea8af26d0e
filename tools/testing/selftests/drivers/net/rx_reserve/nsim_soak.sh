#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: RXR_SOAK_CYCLES (20) out-of-memory cycles on netdevsim, each with a
# priority transfer and a UDP flood running through it.  A cycle runs
# memload (the bench's load) past the guest's memory with no swap, so
# that the OOM killer ends it; the free-page watermark puts the device in
# emergency mode on its own meanwhile (at least once over the run: the
# monitor samples every 100 ms).  After every cycle, once emergency
# mode is off again:
#   - the priority transfer delivered every byte, intact;
#   - the pool pages, global and the device's, are where they started, to
#     the page, and so are the flows and the ring's unposted slots (how
#     many of the held flow's pages sit in the reserve ring, pool_free,
#     moves with the traffic: it is printed);
#   - with page_owner (the debug kernel boots with page_owner=on), the
#     pages the page allocator counts for rx-reserve's pools (stacks
#     through rxr_pool_create()) are where they started, to the page: an
#     independent count of the pool pages above;
# At the end, once every flow closed, the pool pages are back to where
# they were before the first flow, and so are, with page_owner, the pages
# the page allocator counts for the pools: to the page.
#   - free memory is printed; it must come back within RXR_SOAK_SLACK
#     pages (4096) of where it started: page and slab caches, and the
#     netdevsim page_pools' caches (up to 384 pages per queue, 4 queues,
#     empty at the start), move it by up to 3000 pages here, so it is not
#     held to the page; and from cycle 2 on (cycle 1 fills the caches),
#     free memory must not trend down: the least-squares slope of free
#     memory over the cycles must be above -LEAK_SLOPE pages a cycle
#     (200).  With at least 10 cycles; the noise here (about 1000 pages
#     a cycle) puts the slope's own noise near 40 pages a cycle over 20
#     cycles, so a leak of 200 pages (800 KiB) a cycle shows.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

CYCLES=${RXR_SOAK_CYCLES:-20}
SLACK=${RXR_SOAK_SLACK:-4096}
LEAK_SLOPE=200
XFER=$((4 << 20))
PORT=5001
PORT0=5000
OWNER=/sys/kernel/debug/page_owner_stacks/show_stacks

nsim_require
rxr_require_cmd memload timeout taskset ping

cleanup()
{
	[ -n "${FLOOD:-}" ] && kill "$FLOOD" 2> /dev/null
	[ -n "${RECV:-}" ] && kill "$RECV" 2> /dev/null
	[ -n "${SRV:-}" ] && kill "$SRV" 2> /dev/null
	[ -n "${SRV0:-}" ] && kill "$SRV0" 2> /dev/null
	[ -n "${HOLD0:-}" ] &&
		sysctl -q -w net.core.rx_reserve_emergency_hold_ms="$HOLD0"
	hold_stop_all
	nsim_pair_cleanup
	rm -f /tmp/rxr_soak.*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[[ $CYCLES =~ ^[1-9][0-9]*$ ]] || { echo "bad RXR_SOAK_CYCLES"; exit 1; }

# The test and its helpers outlive every OOM kill; memload's workers
# (oom_score_adj 1000, set before they fork) are the ones to go.
echo -1000 > /proc/self/oom_score_adj

in_emergency()
{
	[ "$(ip netns exec "$NS_B" grep "^dev $DEV_B " "$RXR_PROC" |
	     kv in_emergency)" = 1 ]
}
not_in_emergency() { ! in_emergency; }

free_pages() { awk '$1 == "nr_free_pages" { print $2 }' /proc/vmstat; }

# rxr_owned: pages of rx-reserve's pools in use now, as page_owner counts
# them per allocation stack: stacks through rxr_pool_create() that are not
# a slab's (the pool's page array is slab memory, which other objects
# share); "-" without page_owner.  show_stacks is read with cat: page_owner
# files fail reads too small for a record with ENOMEM, as awk's are.
rxr_owned()
{
	local n

	[ -r "$OWNER" ] || { echo -; return; }
	n=$(set -o pipefail
	    cat "$OWNER" 2> /dev/null | awk '
		/rxr_pool_create/ { p = 1 }
		/slab/ { s = 1 }
		/^nr_base_pages:/ { if (p && !s) pages += $2; p = 0; s = 0 }
		END { print pages + 0 }') || n=
	echo "${n:--}"
}

# state: the figures that must come back after every cycle.
state()
{
	printf 'flows=%s pool_pages=%s dev_pool=%s unposted=%s' \
		"$(proc_global flows)" "$(proc_global pool_pages)" \
		"$(stat_b rx_reserve_pool_pages)" "$(stat_b rx_unposted)"
}

in_ring() { echo $(($(proc_global pool_pages) - $(proc_global pool_free))); }
flows_are() { [ "$(proc_global flows)" = "$1" ]; }
pages_are() { [ "$(proc_global pool_pages)" = "$1" ] &&
	      [ "$(proc_global pool_free)" = "$1" ]; }
# The receiver's CPU may have deferred freeing its last skbs, pool pages
# in them, to the CPU that received them (flush_defer).
owned_is() { flush_defer; [ "$(rxr_owned)" = "$1" ]; }

# free_steady: free memory moved by less than 64 pages since the last call
# (the OOM killer's victims and their page tables go back a while after
# they exit, and per-CPU lists drain).
free_steady()
{
	local f

	f=$(free_pages)
	[ -n "${LAST_FREE:-}" ] && [ $((f - LAST_FREE)) -lt 64 ] &&
		[ $((LAST_FREE - f)) -lt 64 ] && return 0
	LAST_FREE=$f
	sleep 0.3
	return 1
}

settle()
{
	poll 100 not_in_emergency
	flush_defer
	echo 3 > /proc/sys/vm/drop_caches
	# Without CONFIG_COMPACTION there is nothing to compact.
	[ -w /proc/sys/vm/compact_memory ] &&
		echo 1 > /proc/sys/vm/compact_memory
	LAST_FREE=""
	poll 20 free_steady
}

HOLD0=$(sysctl -n net.core.rx_reserve_emergency_hold_ms)
sysctl -q -w net.core.rx_reserve_emergency_hold_ms=500
nsim_pair 2 || exit "$ksft_fail"
FLOWS_INIT=$(proc_global flows)
PAGES_INIT=$(proc_global pool_pages)
OWNED_INIT=$(rxr_owned)

# A priority flow that stays registered through every cycle (its server
# sends nothing, so that no data sits unread in its pool's pages), and a
# transfer per cycle on a flow of its own.
ip netns exec "$NS_A" "$RXR_SOCK" serve "$PORT0" 0 > /dev/null &
SRV0=$!
ip netns exec "$NS_A" "$RXR_SOCK" serve "$PORT" "$XFER" > /dev/null &
SRV=$!
check_ok "servers up" slowwait 5 ip netns exec "$NS_A" \
	sh -c "netstat -ltn | grep -q ':$PORT ' &&
	       netstat -ltn | grep -q ':$PORT0 '"
hold_start held ip netns exec "$NS_B" "$RXR_SOCK" connect 198.51.100.1 "$PORT0"
check_ok "held flow in hardware" poll 50 stat_b_is rx_reserve_flows_hw 1

# Size the load: twice the memory there is, in two workers.
total_mib=$(awk '$1 == "MemTotal:" { print int($2 / 1024) }' /proc/meminfo)
mib=$total_mib

settle
S0=$(state)
O0=$(rxr_owned)
F0=$(free_pages)
E0=$(stat_b rx_reserve_emergency)
echo "# start: $S0 rxr_owned=$O0 in_ring=$(in_ring) free=$F0" \
     "(load 2 x $mib MiB)"
echo "# cycle  seconds  killed  emerg  bytes  free_delta  rxr_owned " \
     " in_ring  state"

bad=0
: > /tmp/rxr_soak.free
for ((c = 1; c <= CYCLES; c++)); do
	t0=$(date +%s)
	e0=$(stat_b rx_reserve_emergency)
	ip netns exec "$NS_B" timeout 120 "$RXR_SOCK" recv 198.51.100.1 \
		"$PORT" > /tmp/rxr_soak.recv &
	RECV=$!
	ip netns exec "$NS_A" "$RXR_SOCK" flood 198.51.100.2 9 600 1000 \
		> /dev/null &
	FLOOD=$!
	sh -c 'echo 1000 > /proc/self/oom_score_adj
	       exec memload -p 2 -m '"$mib"' -P 1 -H 60 -T 120' \
		> /tmp/rxr_soak.load 2>&1
	kill "$FLOOD" 2> /dev/null
	wait "$FLOOD" 2> /dev/null
	FLOOD=
	timeout 120 tail --pid="$RECV" -f /dev/null
	wait "$RECV" 2> /dev/null
	RECV=
	settle
	killed=$(sed -n 's/^DONE .*killed=\([0-9]*\).*/\1/p' /tmp/rxr_soak.load)
	got=$(awk '$1 == "bytes" { print $2, $4 }' /tmp/rxr_soak.recv)
	s=$(state)
	# Pool pages go back to the page allocator an RCU grace period
	# after their flow closes.
	[ "$O0" != - ] && poll 30 owned_is "$O0"
	o=$(rxr_owned)
	f=$(free_pages)
	if [ $((F0 - f)) -gt "$SLACK" ]; then
		# A victim's memory can come back after free memory looked
		# steady for a while: look once more before calling it lost.
		sleep 2
		settle
		f=$(free_pages)
	fi
	printf '# %5d  %7d  %6s  %5d  %5s  %10d  %9s  %7s  %s\n' "$c" \
		$(($(date +%s) - t0)) "${killed:--}" \
		$(($(stat_b rx_reserve_emergency) - e0)) \
		"$([ "$got" = "$XFER ok" ] && echo ok || echo "${got:-none}")" \
		$((f - F0)) "$o" "$(in_ring)" "$s"
	ok=1
	[ -n "$killed" ] && [ "$killed" -ge 1 ] || ok=0
	[ "$got" = "$XFER ok" ] || ok=0
	[ "$s" = "$S0" ] || ok=0
	[ "$o" = "$O0" ] || ok=0
	[ $((F0 - f)) -le "$SLACK" ] || ok=0
	[ "$c" -ge 2 ] && echo "$c $((f - F0))" >> /tmp/rxr_soak.free
	if [ "$ok" = 0 ]; then
		bad=$((bad + 1))
		sed 's/^/#   load: /' /tmp/rxr_soak.load | tail -n 3
	fi
done

check_eq "cycles: memory ran out, transfer intact, state came back" \
	"$CYCLES" $((CYCLES - bad))
# Pages a cycle, rounded towards minus infinity.
slope=$(awk '{ n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
	     END { d = n * sxx - sx * sx
		   if (n < 9 || d == 0) { print "-"; exit }
		   s = (n * sxy - sx * sy) / d
		   if (s < 0 && s != int(s)) s = int(s) - 1
		   printf "%d\n", s }' /tmp/rxr_soak.free)
if [ "$slope" != - ]; then
	echo "# free memory over cycles 2-$CYCLES: $slope pages a cycle"
	check_ge "free memory does not trend down (pages a cycle)" \
		$((-LEAK_SLOPE)) "$slope"
else
	echo "# $CYCLES cycles: too few for a free memory trend"
fi
# The monitor samples the watermark every 100 ms: a short OOM burst may
# fall between two looks, so not every cycle has to show one.
check_ge "emergency mode switched on by itself" 1 \
	$(($(stat_b rx_reserve_emergency) - E0))
check_ok "emergency mode off at the end" poll 50 not_in_emergency
check_eq "held flow still registered in hardware" 1 \
	"$(stat_b rx_reserve_flows_hw)"
hold_stop_all
kill "$SRV" "$SRV0" 2> /dev/null
SRV= SRV0=
check_ok "flows back to $FLOWS_INIT" poll 50 flows_are "$FLOWS_INIT"
check_ok "pool pages back to $PAGES_INIT, all free" \
	poll 50 pages_are "$PAGES_INIT"
if [ "$OWNED_INIT" = - ]; then
	echo "# no page_owner count (boot with page_owner=on for one)"
else
	check_ok "rx-reserve's own pages back to $OWNED_INIT (page_owner)" \
		poll 50 owned_is "$OWNED_INIT"
	echo "# page_owner: rx-reserve's pages $OWNED_INIT before," \
	     "$(rxr_owned) after"
fi

exit "$RET"
