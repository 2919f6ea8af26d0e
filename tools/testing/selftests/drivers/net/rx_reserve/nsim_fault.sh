#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures injected into rx-reserve's operations on netdevsim:
# failslab and fail_page_alloc at 1, 10, 50 and 100 % (RXR_FI_PROBS), in
#
#   registration  a priority socket made (SO_RX_RESERVE) and connected: its
#                 flow, its pool, its registration with DEV_B (marked once
#                 connected, for fail_page_alloc without the stack filter);
#   steering      the slots knob attaching DEV_B again (rxr_dev_attach),
#                 then the filters of the flows; and a new flow's ntuple
#                 insert failing (netdevsim's fail_insert);
#   lending       DEV_B's refills failing (fail_refill, or fail_page_alloc
#                 itself), pool pages lent to its rings;
#   recycling     lent pages coming back as other frames land in them.
#
# Every try must end in a defined state: the operation worked; or the user
# got the errno the interface defines (ENOMEM); or the flow fell back and a
# counter says so (nopool_enomem, nohash, nodev, slot_fail, recycled).
# Rings never go unposted, a pool never lends more than half of itself,
# every failed refill is reported to the core, and every frame DEV_B's
# rings received is passed up or counted.  A priority flow's data arrives
# in pages lent from its pool, none of its frames dropped at its socket's
# backlog.  Once injection stops: a fresh priority flow moves data, every
# flow and pool page is gone and the kernel log has no splat.
#
# A "# matrix" line sums up each cell.  Registration and steering: tries,
# ok (worked), err (an error to the user: its errno in why=; pre= of them
# before the operation), fallback (no pool, or not registered, counted).
# At 100 %, some registration try must fail in rx-reserve or fall back.
# Lending: tries = failed refills reported to the core, ok = pages lent,
# err = priority frames dropped, fallback = frames recycled in place.
# Recycling: tries = lent pages out in the rings, ok = back in their pool,
# err and fallback as for lending.  lost= is frames DEV_B's rings received
# that were neither passed up nor counted.
#
# The faults are aimed.  With CONFIG_FAULT_INJECTION_STACKTRACE_FILTER (the
# debug kernel) only allocations with rx-reserve's code on the stack fail
# (require-start/-end from /proc/kallsyms).  Without it, registration and
# the slots knob run in a process with make-it-fail (task-filter); the
# registering process first spends a budget ("space") measured on the
# same program stopping at SO_RX_RESERVE's EPERM, so that faults start
# where rx-reserve does.  The NAPI path, in softirq context, gets
# one-second windows with task-filter off, failures bounded by "times"
# and, without the stack filter, atomic allocations only.

source "$(dirname "$(readlink -e "${BASH_SOURCE[0]}")")/rxr_lib.sh"

DBG=/sys/kernel/debug
FAULTS="failslab fail_page_alloc"
PROBS=${RXR_FI_PROBS:-1 10 50 100}
# Tries per cell: fewer on a slow (debug) kernel.
TRIES=${RXR_FI_TRIES:-$((${RXR_KSFT_SLOW:-1} > 1 ? 2 : 4))}
NAPI_TIMES=20000
TMPF=/tmp/rxr_fi
SERVER=198.51.100.1
CLIENT=198.51.100.2
nsim_require
for f in $FAULTS; do
	if [ ! -w "$DBG/$f/probability" ] ||
	   [ ! -w "$DBG/$f/task-filter" ]; then
		echo "SKIP: no $f in debugfs (CONFIG_FAULT_INJECTION_DEBUG_FS)"
		exit "$ksft_skip"
	fi
done
if [ ! -w /proc/self/make-it-fail ]; then
	echo "SKIP: no /proc/self/make-it-fail"
	exit "$ksft_skip"
fi

declare -A FI_SAVED SN G BUDGET
REG_CONNECT=()
MATRIX=()
SRVS=()
LOST_SKB=0
REFILL_FAILED=0
ALLOC_FAIL=0
LOST_SLACK=2
FI_KNOBS="interval times space verbose task-filter ignore-gfp-wait min-order
	  require-start require-end stacktrace-depth"

fi_save()
{
	local f k

	for f in $FAULTS; do
		for k in $FI_KNOBS probability; do
			[ -e "$DBG/$f/$k" ] &&
				FI_SAVED[$f/$k]=$(cat "$DBG/$f/$k")
		done
	done
}

# fi_restore: injection off, every knob as it was.
fi_restore()
{
	local f k

	for f in $FAULTS; do
		echo 0 > "$DBG/$f/probability"
		for k in $FI_KNOBS; do
			[ -n "${FI_SAVED[$f/$k]:-}" ] &&
				echo "${FI_SAVED[$f/$k]}" > "$DBG/$f/$k"
		done
		echo "${FI_SAVED[$f/probability]:-0}" > "$DBG/$f/probability"
	done 2> /dev/null
}

srv_start()
{
	"${IN_A[@]}" "$RXR_SOCK" serve "$1" "$2" > /dev/null &
	SRVS+=("$!")
	slowwait 5 "${IN_A[@]}" sh -c "netstat -ltn | grep -q ':$1 '"
}

# srv_stop_all: the servers and the children serving their connections.
srv_stop_all()
{
	local p

	for p in "${SRVS[@]}"; do
		# shellcheck disable=SC2046
		kill $(ps -o pid= --ppid "$p") "$p" 2> /dev/null
	done
	SRVS=()
}

try_stop()
{
	[ -n "${TRY_FD:-}" ] && exec {TRY_FD}>&-
	TRY_FD=""
	if [ -n "${TRY_PID:-}" ]; then
		timeout 10 tail --pid="$TRY_PID" -f /dev/null ||
			kill "$TRY_PID" 2> /dev/null
		wait "$TRY_PID" 2> /dev/null
	fi
	TRY_PID=""
}

print_matrix()
{
	local l

	[ "${#MATRIX[@]}" -gt 0 ] || return 0
	echo "# fault injection matrix (targeting: $TARGETING):"
	for l in "${MATRIX[@]}"; do
		echo "# matrix $l"
	done
}

cleanup()
{
	fi_restore
	if [ -n "${DFS_B:-}" ]; then
		echo 0 > "$DFS_B/fail_refill"
		echo 0 > "$DFS_B/fail_insert"
	fi 2> /dev/null
	[ -n "${HOLD0:-}" ] &&
		sysctl -q -w net.core.rx_reserve_emergency_hold_ms="$HOLD0"
	try_stop
	hold_stop_all
	srv_stop_all
	nsim_pair_cleanup
	rm -f "$TMPF".*
	print_matrix
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# glob: the global line of /proc/net/rx_reserve, into G.
glob()
{
	local -a l
	local i

	read -ra l < "$RXR_PROC"
	G=()
	for ((i = 0; i + 1 < ${#l[@]}; i += 2)); do
		G[${l[i]}]=${l[i + 1]}
	done
}

# snap NAME: DEV_B's ethtool counters, the frames DEV_A handed to DEV_B's
# rings and the global /proc line, as SN[NAME:counter]; SN[NAME:out] is
# the pool pages out of their pools.
snap()
{
	local k v

	while read -r k v; do
		SN[$1:${k%:}]=$v
	done <<< "$("${IN_B[@]}" ethtool -S "$DEV_B")"
	SN[$1:a_tx]=$(a_tx)
	glob
	for k in "${!G[@]}"; do
		SN[$1:g_$k]=${G[$k]}
	done
	SN[$1:out]=$((G[pool_pages] - G[pool_free]))
}

# dl KEY [FROM TO]: how much KEY grew from snapshot S0 to S1 (or FROM to TO).
dl()
{
	echo $((${SN[${3:-S1}:$1]:-0} - ${SN[${2:-S0}:$1]:-0}))
}

# lost FROM TO: frames DEV_A handed to DEV_B's rings that DEV_B neither
# passed up nor counted as recycled or dropped; below 0, frames counted
# twice.  A lent page that goes back with a frame (rx_lent_returned) is a
# page event: its frame is counted by its verdict.  DEV_A counts its
# frames in a plain u64 that transmits on two queues at once can race on,
# so a window with one sender can be off by one or two (LOST_SLACK), either
# way.
lost()
{
	local f=$1 t=$2

	echo $(($(dl a_tx "$f" "$t") - $(dl rx_packets "$f" "$t") -
		$(dl rx_reserve_recycled "$f" "$t") -
		$(dl rx_reserve_dropped "$f" "$t")))
}

# lost_ok FROM TO: lost FROM TO within LOST_SLACK of 0.
lost_ok()
{
	local l

	l=$(lost "$1" "$2")
	[ "${l#-}" -le "$LOST_SLACK" ]
}

# settled: DEV_B's counters stopped moving since the last call (DEV_A's
# stopped with the floods, which are over).
settled()
{
	local s

	s="$("${IN_B[@]}" ethtool -S "$DEV_B" | awk '
		$1 ~ /^(rx_packets|rx_reserve_recycled|rx_reserve_dropped):$/ {
			v += $2 } END { print v + 0 }')"
	[ "$s" = "${LAST_SUM:-}" ] && return 0
	LAST_SUM=$s
	return 1
}

settle() { LAST_SUM=""; poll 50 settled; }

# sb NAME: an ethtool -S counter of DEV_B.
sb()
{
	"${IN_B[@]}" ethtool -S "$DEV_B" |
		awk -v k="$1:" '$1 == k { print $2 }'
}
sb_is() { [ "$(sb "$1")" = "$2" ]; }
sb_ge() { [ "$(sb "$1")" -ge "$2" ]; }

# a_tx: the frames DEV_A transmitted.
a_tx()
{
	# shellcheck disable=SC2016
	"${IN_A[@]}" awk -v d="$DEV_A:" '$1 == d { print $11 }' /proc/net/dev
}

dev_b_line() { "${IN_B[@]}" grep "^dev $DEV_B " "$RXR_PROC"; }
in_emergency() { [ "$(dev_b_line | kv in_emergency)" = 1 ]; }
not_in_emergency() { ! in_emergency; }
flows_are() { glob; [ "${G[flows]}" = "$1" ]; }
pages_are() { glob; [ "${G[pool_pages]}" = "$1" ]; }
pages_back() { glob; [ "${G[pool_free]}" = "${G[pool_pages]}" ]; }

# backlog_drops: TcpExt TCPBacklogDrop in NS_B.
backlog_drops()
{
	# shellcheck disable=SC2016
	"${IN_B[@]}" awk '$1 == "TcpExt:" {
		if (!n) { for (i = 2; i <= NF; i++) k[i] = $i; n = 1; next }
		for (i = 2; i <= NF; i++) if (k[i] == "TCPBacklogDrop") print $i
	}' /proc/net/netstat
}

matrix() { MATRIX+=("$*"); }

# took WHAT: how long WHAT took, since the last call.
took()
{
	echo "# $1: $((SECONDS - ${T_LAST:-0})) s"
	T_LAST=$SECONDS
}

# --- Aiming -------------------------------------------------------------

# Without the stack filter, a process failing every allocation would also
# fail its page faults' page tables, which the fault handler retries
# forever: a few failures per try, the first ones past the budget.
STACK=""
TASK_TIMES=8
TARGETING="task filter, space budget, times $TASK_TIMES;"
TARGETING+=" NAPI: task filter off, atomic only"
if [ -e "$DBG/failslab/require-start" ] &&
   [ -e "$DBG/fail_page_alloc/require-start" ]; then
	# The registry and steering, two objects linked one after the
	# other.
	RANGE_CORE=$(text_range __rxr_sk_update rxr_sk_memalloc \
		rxr_sk_setsockopt rxr_dev_attach rxr_dev_detach \
		rxr_tuple_to_fs rxr_dev_sync rxr_dev_sync_work \
		rxr_ethtool_check_rxnfc)
	RANGE_NSIM=$(text_range nsim_rxr_xmit nsim_rxr_poll nsim_rxr_open \
		nsim_rxr_stop)
	case "$RANGE_CORE $RANGE_NSIM" in
	0x[1-9a-f]*" "0x*" "0x[1-9a-f]*" "0x*)
		STACK=1
		TASK_TIMES=-1
		TARGETING="stack filter"
		echo "# stack filter: rx_reserve*.c $RANGE_CORE," \
		     "netdevsim rx_reserve.c $RANGE_NSIM"
		;;
	*)
		echo "# stack filter present, but rx-reserve's text not found" \
		     "in /proc/kallsyms (core '$RANGE_CORE'," \
		     "netdevsim '$RANGE_NSIM'): task filter instead"
		;;
	esac
else
	echo "# no CONFIG_FAULT_INJECTION_STACKTRACE_FILTER: task filter" \
	     "and budgets"
fi
RANGE=""

# fi_arm FAULT PERCENT task|napi [SPACE]: make FAULT fail PERCENT of the
# allocations of processes with make-it-fail (task), or of any context
# (napi, at most NAPI_TIMES failures), past SPACE, with RANGE on the stack
# when the stack filter is there.
fi_arm()
{
	local d=$DBG/$1

	echo 0 > "$d/probability"
	echo 0 > "$d/verbose"
	echo 1 > "$d/interval"
	echo "${4:-0}" > "$d/space"
	if [ "$3" = task ]; then
		echo Y > "$d/task-filter"
		echo N > "$d/ignore-gfp-wait"
		echo "$TASK_TIMES" > "$d/times"
	else
		echo N > "$d/task-filter"
		# Without the stack filter, sleeping allocations (the test's
		# own processes) are spared.
		if [ -n "$STACK" ]; then
			echo N > "$d/ignore-gfp-wait"
		else
			echo Y > "$d/ignore-gfp-wait"
		fi
		echo "$NAPI_TIMES" > "$d/times"
	fi
	[ "$1" = fail_page_alloc ] && echo 0 > "$d/min-order"
	if [ -n "$STACK" ]; then
		echo 32 > "$d/stacktrace-depth"
		echo "${RANGE#* }" > "$d/require-end"
		echo "${RANGE% *}" > "$d/require-start"
	fi
	echo "$2" > "$d/probability"
}

fi_disarm() { echo 0 > "$DBG/$1/probability"; }

fi_save
D0=$(dmesg | wc -l)
POOL=$(sysctl -n net.core.rx_reserve_pool_pages)
HOLD0=$(sysctl -n net.core.rx_reserve_emergency_hold_ms)
glob
F0=${G[flows]}
P0=${G[pool_pages]}

nsim_pair 4 || exit "$ksft_fail"
# IN_A, IN_B: run a program in NS_A's or NS_B's network namespace.
# nsenter enters it alone; ip netns exec also mounts a sysfs, which is
# most of the cost of each call on a debug kernel.
if command -v nsenter > /dev/null; then
	IN_A=(nsenter "--net=/run/netns/$NS_A")
	IN_B=(nsenter "--net=/run/netns/$NS_B")
else
	IN_A=(ip netns exec "$NS_A")
	IN_B=(ip netns exec "$NS_B")
fi
srv_start 5000 0
took setup

# --- 1. Registration ----------------------------------------------------

# reg_start [PREFIX...]: a priority connect from NS_B in a process that
# sets make-it-fail first, its stdin on a fifo (TRY_FD) that ends it.
reg_start()
{
	local fd

	rm -f "$TMPF.fifo"
	mkfifo "$TMPF.fifo"
	(
		for fd in "${RXR_HOLD_FD[@]}"; do
			eval "exec $fd>&-"
		done
		# shellcheck disable=SC2016
		exec "${IN_B[@]}" "$@" bash -c \
			'echo 1 > /proc/self/make-it-fail && exec "$0" "$@"' \
			"$RXR_SOCK" connect "${REG_CONNECT[@]}" "$SERVER" 5000
	) < "$TMPF.fifo" > "$TMPF.out" 2> "$TMPF.err" &
	TRY_PID=$!
	exec {TRY_FD}> "$TMPF.fifo"
}

# reg_budget FAULT: what the registering process spends of FAULT's space
# before SO_RX_RESERVE, measured without CAP_NET_ADMIN, where the option
# fails with EPERM before rx-reserve allocates: the most of three runs.
reg_budget()
{
	local i used max=0 big=1000000000

	for i in 1 2 3; do
		fi_arm "$1" 100 task "$big"
		reg_start setpriv --inh-caps=-net_admin \
			--bounding-set=-net_admin --
		try_stop
		used=$((big - $(cat "$DBG/$1/space")))
		fi_disarm "$1"
		if ! grep -q "SO_RX_RESERVE: Operation not permitted" \
		     "$TMPF.err"; then
			echo "# $1 budget run $i: $(head -c 200 "$TMPF.err")"
			continue
		fi
		echo "# $1: $used spent before SO_RX_RESERVE (run $i)"
		[ "$used" -gt "$max" ] && max=$used
	done
	# Page tables vary with the layout of the address space, and a
	# page fault whose page table fails is retried until it does not:
	# a margin, harmless before a pool of 256 pages.
	[ "$1" = fail_page_alloc ] && max=$((max + 8))
	echo "$max" > "$TMPF.budget"
}

# reg_try FAULT PERCENT SPACE: one registration; sets OUTCOME (ok, err,
# fallback or bad) and WHY.
reg_try()
{
	local port="" line pool i msg nopool0 unreg0

	OUTCOME=bad WHY=""
	glob
	nopool0=${G[nopool_enomem]}
	unreg0=$((G[nohash] + G[nodev]))
	fi_arm "$1" "$2" task "$3"
	reg_start
	for ((i = 0; i < 150; i++)); do
		port=$(awk '$1 == "port" { print $2 }' "$TMPF.out")
		[ -n "$port" ] && break
		kill -0 "$TRY_PID" 2> /dev/null || break
		sleep 0.1
	done
	fi_disarm "$1"

	if [ -n "$port" ]; then
		# shellcheck disable=SC2016
		line=$("${IN_B[@]}" awk -v l="$CLIENT:$port" \
			'$1 == "flow" && $6 == l' "$RXR_PROC")
		pool=$(kv pool <<< "$line")
		glob
		msg=$(head -n 1 "$TMPF.err")
		if [ "${G[flows]}" = "$F0" ] && [ -n "$msg" ] &&
		   ! kill -0 "$TRY_PID" 2> /dev/null; then
			# The connection failed after it started: the
			# socket, and its flow, are gone with an error.
			OUTCOME=err WHY="after connect: ${msg##*: }"
		elif [ "${G[flows]}" != $((F0 + 1)) ]; then
			WHY="connected, but $((G[flows] - F0)) flows"
		elif [ -z "$line" ]; then
			if [ $((G[nohash] + G[nodev])) -gt "$unreg0" ]; then
				OUTCOME=fallback WHY="not on $DEV_B, counted"
			else
				WHY="connected, not on $DEV_B, not counted"
			fi
		elif [ "$pool" = "$POOL" ] &&
		     [ "${G[nopool_enomem]}" -gt "$nopool0" ]; then
			# Refused, counted, and allocated by the retry
			# (once a second) since.
			OUTCOME=fallback WHY="nopool_enomem, pool retried"
		elif [ "$pool" = "$POOL" ]; then
			OUTCOME=ok
		elif [ "$pool" = 0 ] &&
		     [ "${G[nopool_enomem]}" -gt "$nopool0" ]; then
			OUTCOME=fallback WHY="no pool, nopool_enomem"
		else
			WHY="pool $pool, nopool_enomem $nopool0"
			WHY+=" -> ${G[nopool_enomem]}"
		fi
	elif kill -0 "$TRY_PID" 2> /dev/null; then
		WHY="connect still blocked after 15 s"
	else
		msg=$(head -n 1 "$TMPF.err")
		case "$msg" in
		*"SO_RX_RESERVE: Cannot allocate memory")
			OUTCOME=err WHY=ENOMEM ;;
		*"SO_RX_RESERVE: "*)
			WHY="SO_RX_RESERVE failed with ${msg##*: }" ;;
		*"connect: "*)
			OUTCOME=err WHY="connect: ${msg##*: }" ;;
		*)
			OUTCOME=err WHY="pre: ${msg:-exit without a message}" ;;
		esac
	fi
	try_stop
	if ! poll 100 flows_are "$F0"; then
		OUTCOME=bad WHY="$WHY; flow left: ${G[flows]} flows, not $F0"
	elif ! poll 50 pages_are "$P0"; then
		OUTCOME=bad WHY="$WHY; ${G[pool_pages]} pool pages, not $P0"
	fi
}

reg_cell()
{
	local t ok=0 err=0 fb=0 bad=0 pre=0 why whys=" "

	for ((t = 0; t < TRIES; t++)); do
		reg_try "$1" "$2" "$3"
		case "$OUTCOME" in
		ok) ok=$((ok + 1)) ;;
		fallback) fb=$((fb + 1)) ;;
		err)
			err=$((err + 1))
			[ "${WHY#pre}" != "$WHY" ] && pre=$((pre + 1))
			;;
		*)
			bad=$((bad + 1))
			echo "# registration $1 $2% try $t: $WHY"
			;;
		esac
		why=${WHY%%;*}
		why=${why// /_}
		[ -n "$why" ] && [ "${whys/ $why /}" = "$whys" ] &&
			whys="$whys$why "
	done
	check_eq "registration $1 $2%: every try ended in a defined state" \
		0 "$bad"
	# Without the stack filter, the budget is measured, and a try whose
	# process spent more before SO_RX_RESERVE may have had its few
	# failures in a page fault: only the stack filter makes sure.
	if [ "$2" = 100 ] && [ -n "$STACK" ]; then
		check_eq "registration $1 100%: no try escaped the faults" \
			0 "$ok"
	fi
	# At 100 %, a fault reaches rx-reserve: a try fails in it, or falls
	# back, and says so (an error before SO_RX_RESERVE does not count).
	if [ "$2" = 100 ]; then
		check_ge "registration $1 100%: failures rx-reserve handled" \
			1 $((err - pre + fb))
	fi
	whys=${whys# }
	whys=${whys% }
	matrix "op=registration fault=$1 p=$2 tries=$TRIES ok=$ok err=$err" \
	       "fallback=$fb bad=$bad pre=$pre${whys:+ why=$whys}"
}

# reg_connect FAULT: how the registering process marks its socket.  A
# socket marked before connect() gets its pool from a work item once its
# route is known, where the task filter does not reach: without the stack
# filter, fail_page_alloc's registrations mark the socket once connected,
# as the kernel's storage clients do, and the pool is allocated in the
# process (SO_RX_RESERVE).
reg_connect()
{
	REG_CONNECT=()
	[ -z "$STACK" ] && [ "$1" = fail_page_alloc ] && REG_CONNECT=(-a)
	return 0
}

RANGE=$RANGE_CORE
if [ -z "$STACK" ]; then
	if command -v setpriv > /dev/null; then
		for f in $FAULTS; do
			reg_connect "$f"
			reg_budget "$f"
			BUDGET[$f]=$(cat "$TMPF.budget")
		done
	else
		echo "# no setpriv: no budgets, faults from the process's start"
	fi
fi
for f in $FAULTS; do
	reg_connect "$f"
	for p in $PROBS; do
		reg_cell "$f" "$p" "${BUDGET[$f]:-0}"
	done
done
REG_CONNECT=()

took registration

# --- 2. Steering --------------------------------------------------------

# steer_state HW: DEV_B attached, HW of the 3 flows in slots.
steer_state()
{
	local line

	line=$(dev_b_line)
	STATE="$(kv attached <<< "$line") $(kv flows_hw <<< "$line")"
	STATE="$STATE $(kv flows_sw <<< "$line")"
	[ "$STATE" = "1 $1 $((3 - $1))" ]
}

# steer_rules N: N rules in DEV_B's ntuple table.
steer_rules()
{
	local rules

	rules=$("${IN_B[@]}" ethtool -n "$DEV_B" |
		grep -o 'Total [0-9]* rules')
	STATE="$STATE, ${rules:-no rule count}"
	[ "$rules" = "Total $1 rules" ]
}

# steer_in HW: until DEV_B is in steer_state HW, with one rule per flow
# in a slot (the rules follow the slots, from a work item).
steer_both() { steer_state "$1" && steer_rules "$1"; }
steer_in() { poll 100 steer_both "$1"; }

# steer_detached: DEV_B detached, the 3 flows in software, no rule left.
steer_detached()
{
	local line

	line=$(dev_b_line)
	STATE="$(kv attached <<< "$line") $(kv flows_hw <<< "$line")"
	STATE="$STATE $(kv flows_sw <<< "$line")"
	[ "$STATE" = "0 0 3" ] && steer_rules 0
}

# slots_write VAL: VAL to DEV_B's slots knob from a process that opened it
# and set make-it-fail; WERR gets the error.
slots_write()
{
	WERR=$( (exec {w}> "$DFS_B/slots" &&
		 echo 1 > /proc/self/make-it-fail &&
		 echo "$1" >&"$w") 2>&1)
}

# q3_check: DEV_B, detached by a failed attach, has no reserve queue any
# more: its last RX queue, the reserve queue until then, must take frames
# like the others.  8 UDP datagrams steered there by an ntuple rule.
q3_check()
{
	local up0 i

	"${IN_B[@]}" ethtool -N "$DEV_B" flow-type udp4 \
		dst-port 9003 action 3 loc 0
	up0=$(sb rx_packets)
	for ((i = 0; i < 8; i++)); do
		"${IN_A[@]}" bash -c "echo x > /dev/udp/$CLIENT/9003"
	done
	poll 20 sb_ge rx_packets $((up0 + 8))
	check_ge "steering: detached by ENOMEM, RX queue 3 takes frames" \
		8 $(($(sb rx_packets) - up0))
	if [ $(($(sb rx_packets) - up0)) -lt 8 ]; then
		echo "# $("${IN_B[@]}" ethtool -S "$DEV_B" |
			grep -E -e ' (rx_packets|rx_reserve_recycled):' \
				-e ' rx_reserve_queue_no_buffer:' |
			tr -s ' \n' ' ')"
	fi
	"${IN_B[@]}" ethtool -N "$DEV_B" delete 0
}

# steer_try FAULT PERCENT VAL: sets OUTCOME and WHY.  An ENOMEM leaves
# DEV_B either detached (the attach failed; its rings posted again with no
# reserve queue) or as it was (the new rings could not be allocated; the
# knob reads its old value).
steer_try()
{
	local want=$(($3 < 3 ? $3 : 3)) rc=0 old had

	OUTCOME=bad WHY=""
	old=$(cat "$DFS_B/slots")
	had=$((old < 3 ? old : 3))
	fi_arm "$1" "$2" task
	slots_write "$3" || rc=$?
	fi_disarm "$1"
	if [ "$rc" = 0 ]; then
		if steer_in "$want"; then
			OUTCOME=ok
		else
			WHY="written, then attached/hw/sw, rules: $STATE"
		fi
		return
	fi
	case "$WERR" in
	*"Cannot allocate memory"*)
		OUTCOME=err WHY=ENOMEM:detached,flows_in_sw
		if [ "$(cat "$DFS_B/slots")" = "$old" ] && steer_in "$had"
		then
			WHY="ENOMEM:unchanged"
		elif ! poll 50 steer_detached; then
			OUTCOME=bad
			WHY="ENOMEM, then attached/hw/sw, rules: $STATE"
		elif [ -z "${Q3_DONE:-}" ]; then
			Q3_DONE=1
			q3_check
		fi
		[ "$WHY" = ENOMEM:unchanged ] && return
		# The link going down and up attaches DEV_B again.
		ip -n "$NS_B" link set "$DEV_B" down
		ip -n "$NS_B" link set "$DEV_B" up
		if ! steer_in "$want"; then
			OUTCOME=bad
			WHY="$WHY; after down/up attached/hw/sw, rules: $STATE"
		fi
		;;
	*)
		WHY="write failed: $WERR"
		;;
	esac
}

steer_cell()
{
	local t ok=0 err=0 bad=0 val why errs=""

	for ((t = 0; t < TRIES; t++)); do
		val=$((t % 2 ? 4 : 2))
		steer_try "$1" "$2" "$val"
		case "$OUTCOME" in
		ok) ok=$((ok + 1)) ;;
		err)
			err=$((err + 1))
			[[ "$errs" == *"$WHY"* ]] || errs="$errs,$WHY"
			;;
		*)
			bad=$((bad + 1))
			echo "# steering $1 $2% try $t (slots $val): $WHY"
			;;
		esac
	done
	check_eq "steering $1 $2%: every try ended in a defined state" \
		0 "$bad"
	why=""
	[ "$err" -gt 0 ] && why=" why=${errs#,}"
	matrix "op=steering fault=$1 p=$2 tries=$TRIES ok=$ok err=$err" \
	       "fallback=0 bad=$bad$why"
}

RANGE=$RANGE_CORE
for i in 1 2 3; do
	hold_start "s$i" "${IN_B[@]}" "$RXR_SOCK" connect "$SERVER" 5000
done
check_ok "steering: 3 flows in slots" steer_in 3
for f in $FAULTS; do
	for p in $PROBS; do
		steer_cell "$f" "$p"
	done
done
# Both values tried end with 4 slots: 3 flows in them, 1 free.
echo 4 > "$DFS_B/slots"
check_ok "steering: 3 flows in slots after the faults" steer_in 3

# A new flow's insert fails: it stays in software, counted in slot_fail.
fi_ok=0 fi_bad=0
for ((t = 0; t < TRIES; t++)); do
	sf0=$(sb rx_reserve_slot_fail)
	echo 1 > "$DFS_B/fail_insert"
	hold_start s4 "${IN_B[@]}" "$RXR_SOCK" connect "$SERVER" 5000
	if poll 100 sb_is rx_reserve_slot_fail $((sf0 + 1)) &&
	   [ "$(dev_b_line | kv flows_sw)" = 1 ] &&
	   [ "$(dev_b_line | kv flows_hw)" = 3 ]; then
		fi_ok=$((fi_ok + 1))
	else
		fi_bad=$((fi_bad + 1))
		echo "# fail_insert try $t: slot_fail $sf0 ->" \
		     "$(sb rx_reserve_slot_fail), $(dev_b_line)"
	fi
	echo 0 > "$DFS_B/fail_insert"
	[ "$t" = $((TRIES - 1)) ] && break
	hold_stop s4
	poll 50 sb_is rx_reserve_flows_sw 0
done
check_eq "steering fail_insert: flows left in software, counted" \
	0 "$fi_bad"
matrix "op=steering fault=fail_insert p=100 tries=$TRIES ok=0 err=0" \
       "fallback=$fi_ok bad=$fi_bad why=slot_fail_flow_in_sw"
# With inserts working again, the flow whose insert failed gets the next
# slot that frees up.
hold_stop s1
check_ok "steering: the failed flow takes the freed slot" steer_in 3
hold_stop_all
check_ok "steering: flows gone" poll 100 flows_are "$F0"
[ -z "${Q3_DONE:-}" ] &&
	echo "# no slots write failed in the attach itself: queue 3 after" \
	     "a failed attach not checked"

took steering

# --- 3. Lending and 4. recycling ----------------------------------------

# DEV_B without slots, so that flows are in software, its rings laid out
# again without a reserve queue; its frames steered by port: UDP 9000+Q
# and the priority flow's TCP to queue Q (0).
echo 0 > "$DFS_B/slots"
ip -n "$NS_B" link set "$DEV_B" down
ip -n "$NS_B" link set "$DEV_B" up
for q in 0 1 2 3; do
	"${IN_B[@]}" ethtool -N "$DEV_B" flow-type udp4 \
		dst-port $((9000 + q)) action "$q" loc "$q"
done
"${IN_B[@]}" ethtool -N "$DEV_B" flow-type tcp4 src-port 5000 \
	action 0 loc 4
sysctl -q -w net.core.rx_reserve_emergency_hold_ms=200
hold_start prio "${IN_B[@]}" "$RXR_SOCK" connect "$SERVER" 5000
prio_sw() { [ "$(dev_b_line | kv flows_sw)" = 1 ]; }
check_ok "lending: the priority flow in software" poll 100 prio_sw
"${IN_A[@]}" ping -c 1 -W 5 -q "$CLIENT" > /dev/null

# flood_b PORT...: one-second UDP floods from NS_A to each PORT, at once.
flood_b()
{
	local p pids=()

	for p in "$@"; do
		"${IN_A[@]}" "$RXR_SOCK" flood "$CLIENT" "$p" 1 100 \
			> /dev/null &
		pids+=("$!")
	done
	wait "${pids[@]}"
}

# A socket that never reads, so that the frames keep their pages and the
# page_pool must allocate.
sink_restart()
{
	hold_stop sink
	hold_start sink "${IN_B[@]}" "$RXR_SOCK" udpsink 9000
}

# emergency_off: until DEV_B leaves emergency mode; says why not.
emergency_off()
{
	poll 50 not_in_emergency && return 0
	echo "# $DEV_B still in emergency mode: $(grep MemFree /proc/meminfo)"
	return 1
}

lend_cell()
{
	local fails lent rec drop

	[ "$1" = fail_page_alloc ] && sink_restart
	emergency_off
	snap S0
	# failslab: refills fail by netdevsim's knob, skbs by failslab.
	[ "$1" = failslab ] && echo 1 > "$DFS_B/fail_refill"
	fi_arm "$1" "$2" napi
	flood_b 9000
	fi_disarm "$1"
	echo 0 > "$DFS_B/fail_refill"
	settle
	snap S1
	fails=$(dl rx_reserve_alloc_fail)
	lent=$(dl rx_reserve_lent)
	rec=$(dl rx_reserve_recycled)
	drop=$(dl rx_reserve_dropped)
	REFILL_FAILED=$((REFILL_FAILED + $(dl rx_refill_failed)))
	ALLOC_FAIL=$((ALLOC_FAIL + fails))
	# With refills failing, no lent page goes back to its pool with a
	# frame in it: a frame whose skb was not built counts as dropped or
	# recycled (rxr_rx_drop()), so none is lost.
	[ "$1" = failslab ] && LOST_SKB=$((LOST_SKB + $(lost S0 S1)))
	check_eq "lending $1 $2%: no ring slot left unposted" 0 \
		"$(dl rx_unposted)"
	# A pool lends only to the queue its flow's frames arrive on: a few
	# failed refills (page_pool's cache serves most) may all have been
	# on other queues, so borrowing is asserted from 8 on.
	if [ "$fails" -ge 8 ]; then
		check_ge "lending $1 $2%: failed refills borrowed pool pages" \
			1 "$lent"
	fi
	if [ "$fails" -gt 0 ]; then
		check_ge "lending $1 $2%: emergency mode on" 1 \
			"$(dl rx_reserve_emergency)"
	fi
	check_ok "lending $1 $2%: at most half the pool lent (${SN[S1:out]})" \
		test "${SN[S1:out]}" -le $((POOL / 2))
	matrix "op=lending fault=$1 p=$2 tries=$fails ok=$lent err=$drop" \
	       "fallback=$rec refill_failed=$(dl rx_refill_failed)" \
	       "delivered=$(dl rx_reserve_lent_delivered) lost=$(lost S0 S1)"
}

recycle_cell()
{
	local out0 back i

	[ "$1" = fail_page_alloc ] && sink_restart
	emergency_off
	snap S0
	out0=${SN[S0:out]}
	fi_arm "$1" "$2" napi
	flood_b 9000
	fi_disarm "$1"
	settle
	snap S1
	back=$((out0 - ${SN[S1:out]}))
	[ "$back" -lt 0 ] && back=0
	REFILL_FAILED=$((REFILL_FAILED + $(dl rx_refill_failed)))
	ALLOC_FAIL=$((ALLOC_FAIL + $(dl rx_reserve_alloc_fail)))
	check_eq "recycling $1 $2%: no ring slot left unposted" 0 \
		"$(dl rx_unposted)"
	matrix "op=recycling fault=$1 p=$2 tries=$out0 ok=$back" \
	       "err=$(dl rx_reserve_dropped)" \
	       "fallback=$(dl rx_reserve_recycled)" \
	       "lent_again=$(dl rx_reserve_lent)" \
	       "refill_failed=$(dl rx_refill_failed) lost=$(lost S0 S1)"

	# Injection off, frames on every queue: every lent page comes back.
	for ((i = 0; i < 3 && ${SN[S1:out]} > 0; i++)); do
		emergency_off
		flood_b 9000 9001 9002 9003
		settle
		snap S1
	done
	check_eq "recycling $1 $2%: every lent page back in its pool" 0 \
		"${SN[S1:out]}"
	[ "${SN[S1:out]}" != 0 ] &&
		echo "# $("${IN_B[@]}" grep "^flow" "$RXR_PROC")"
}

RANGE=$RANGE_NSIM
for f in $FAULTS; do
	for p in $PROBS; do
		lend_cell "$f" "$p"
		recycle_cell "$f" "$p"
	done
done
check_ok "lending failslab: frames whose skb could not be built counted" \
	test "$LOST_SKB" -le "$LOST_SLACK"
[ "$LOST_SKB" -gt "$LOST_SLACK" ] &&
	echo "# $LOST_SKB frames passed to DEV_B's rings were neither passed" \
	     "up nor counted in the failslab lending windows"

# Without injection: pages lent to ring 0, then frames of another flow
# land in them and take them back to the pool; each such frame must be
# passed up or counted too.
sink_restart
echo 1 > "$DFS_B/fail_refill"
flood_b 9000
echo 0 > "$DFS_B/fail_refill"
settle
emergency_off
snap S0
flood_b 9000
settle
snap S1
back=$((${SN[S0:out]} - ${SN[S1:out]}))
check_ge "recycling: lent pages back in their pool" 1 "$back"
check_ok "recycling: frames in lent pages that went back counted" \
	lost_ok S0 S1
lost_ok S0 S1 ||
	echo "# $back lent pages back, $(lost S0 S1) frames neither" \
	     "passed up nor counted"

# A priority flow's data through pages lent from its pool, its refills
# failing.  Its frames come up marked pfmemalloc, which its socket (not
# SOCK_MEMALLOC) must take from the backlog too, not only in
# sk_filter_trim_cap().
hold_stop_all
srv_start 5001 262144
sink_restart
snap S0
bd0=$(backlog_drops)
echo 1 > "$DFS_B/fail_refill"
out=$("${IN_B[@]}" timeout 60 "$RXR_SOCK" recv "$SERVER" 5001)
echo 0 > "$DFS_B/fail_refill"
snap S1
check_eq "lending: a priority flow's data arrives" \
	"bytes 262144 pattern ok" "$(tail -n 1 <<< "$out")"
check_ge "lending: in pages lent from its pool" 1 \
	"$(dl rx_reserve_lent_delivered)"
check_eq "lending: no frame of it dropped at its socket's backlog" \
	0 $(($(backlog_drops) - bd0))
hold_stop_all
srv_stop_all
check_eq "lending/recycling: every failed refill reported to the core" \
	"$REFILL_FAILED" "$ALLOC_FAIL"
took "lending and recycling"

# --- After the faults ---------------------------------------------------

for q in 0 1 2 3 4; do
	"${IN_B[@]}" ethtool -N "$DEV_B" delete "$q"
done
echo 4 > "$DFS_B/slots"
ip -n "$NS_B" link set "$DEV_B" down
ip -n "$NS_B" link set "$DEV_B" up
check_ok "flows gone" poll 100 flows_are "$F0"
srv_start 5001 1048576
bd0=$(backlog_drops)
s0=$(sb rx_reserve_steered)
out=$("${IN_B[@]}" timeout 60 "$RXR_SOCK" recv "$SERVER" 5001)
check_eq "a fresh priority flow moves data" "bytes 1048576 pattern ok" \
	"$(tail -n 1 <<< "$out")"
echo "# $(($(sb rx_reserve_steered) - s0)) frames through the reserve queue"
check_eq "no frame of it dropped at its socket's backlog" \
	0 $(($(backlog_drops) - bd0))
srv_stop_all
check_ok "no flow left" poll 100 flows_are "$F0"
check_ok "no pool page left" poll 100 pages_are "$P0"
check_ok "pool_free == pool_pages" pages_back
for c in flows_hw flows_sw flows_nopool pool_pages pool_free; do
	check_eq "$DEV_B rx_reserve_$c back to zero" 0 "$(sb "rx_reserve_$c")"
done
check_eq "$DEV_B ring slots left unposted" 0 "$(sb rx_unposted)"
splats=$(dmesg | tail -n +$((D0 + 1)) |
	grep -E -e 'BUG: |WARNING: |Oops|general protection|KASAN|UBSAN' \
		-e 'list_(add|del) corruption|sleeping function' \
		-e 'scheduling while atomic|inconsistent lock' \
		-e 'possible (circular|recursive) locking|suspicious RCU' |
	head -n 5)
check_eq "no splat in the kernel log" "" "$splats"
took "after the faults"

exit "$RET"
