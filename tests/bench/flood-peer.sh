#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# flood-peer.sh [BYTES] [DATA_PORT] [CTL_PORT] [STATS_PORT]: the peer of the
# guests' flood tests, run by qemu-run.sh --peer inside the bench namespace.
#
#   - serves BYTES (default 16 MiB) of rxr_sock's pattern on
#     192.0.2.1:DATA_PORT (default 7100) to every connection;
#   - floods the guest on request: whenever the guest listens on
#     192.0.2.2:CTL_PORT (default 7101) and answers "RATE SECONDS", it
#     sends for SECONDS, all at once: UDP from 8 sockets, 64 to 1400 bytes,
#     to port 9 (closed) and 5001 (open, not read), RATE packets/s in all
#     (0: unpaced), and one TCP bulk stream into port 5002 (a plain
#     socket that the guest does not read);
#   - answers each connection to 192.0.2.1:STATS_PORT (default 7102) with
#     the tap's per-queue transmit packet counts, "q0=N q1=N ...": the
#     queues tun delivered to the guest on; then "tx=N drop=N", the
#     packets tun handed to QEMU and those it dropped, all queues; then
#     "qemu_main=N qemu_vcpu=N qemu_other=N peer=N", the CPU ticks of the
#     QEMU in this namespace (its main thread, the I/O loop that moves
#     every virtio-net queue's frames; its vCPU threads; the rest) and of
#     the peer's own processes (the flood's senders, the data server);
#     "qemu_main_wait=MS qemu_vcpu_wait=MS", how long QEMU's main and vCPU
#     threads waited runnable for a host CPU (schedstat);
#     last "host_busy=N host_softirq=N host_all=N", the host's CPU ticks
#     from /proc/stat, all CPUs together.
#
# RXR_PEER_FLOOD_SCHED=idle runs the flood's senders as SCHED_IDLE, so
# that they take only the host CPU time nothing else wants: on these
# 2-core hosts the "wire" shares its cores with the guest, and this
# separates the cost of sending the flood from the cost of receiving it.
#
# It prints one "flood: ..." line per stream and request.  qemu-run.sh kills
# it when the guest is done; it also gives up by itself after an hour.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD:-$top/build}/bin
bytes=${1:-16777216}
data_port=${2:-7100}
ctl_port=${3:-7101}
stats_port=${4:-7102}
guest=192.0.2.2
pids=()

cleanup() { kill "${pids[@]}" 2> /dev/null; wait 2> /dev/null; }
trap cleanup EXIT
trap 'exit 130' INT TERM

for t in rxr_sock flood; do
	[ -x "$bin/$t" ] || { echo "flood-peer: no $bin/$t (make host-tools)"; exit 1; }
done
"$bin/rxr_sock" serve "$data_port" "$bytes" &
pids+=($!)

# The tap's per-queue transmit counters (the guest's receive side, one tap
# queue per queue pair), one "qN=PACKETS ..." line per connection to
# 192.0.2.1:STATS_PORT: which tap queue tun gave a flow.
python3 - "$stats_port" <<'PY' &
import os, re, socket, subprocess, sys

def ticks(pid, tid):
    """One thread's name, its utime + stime in ticks, and the time it
    spent runnable, waiting for a CPU, in ms (schedstat)."""
    with open("/proc/%s/task/%s/stat" % (pid, tid)) as f:
        st = f.read()
    with open("/proc/%s/task/%s/schedstat" % (pid, tid)) as f:
        wait = int(f.read().split()[1]) // 1000000
    v = st[st.rindex(")") + 2:].split()
    return (st[st.index("(") + 1:st.rindex(")")], int(v[11]) + int(v[12]),
            wait)


def cpu():
    """CPU ticks of the processes in this network namespace: the QEMU's
    main thread (its I/O loop, which moves every virtio-net queue's
    frames, vhost=off), its vCPU threads ("CPU n/TCG") and the rest, and
    the peer's own processes (the flood's senders, the data server, this
    script); then the host's, from /proc/stat, all CPUs."""
    me = os.stat("/proc/self/ns/net").st_ino
    t = {"qemu_main": 0, "qemu_vcpu": 0, "qemu_other": 0, "peer": 0,
         "qemu_main_wait": 0, "qemu_vcpu_wait": 0}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat("/proc/%s/ns/net" % pid).st_ino != me:
                continue
            with open("/proc/%s/comm" % pid) as f:
                qemu = f.read().startswith("qemu-system")
            for tid in os.listdir("/proc/%s/task" % pid):
                name, n, wait = ticks(pid, tid)
                k = "peer" if not qemu else "qemu_main" if tid == pid \
                    else "qemu_vcpu" if name.endswith("/TCG") \
                    else "qemu_other"
                t[k] += n
                if k + "_wait" in t:
                    t[k + "_wait"] += wait
        except (OSError, ValueError, IndexError):
            continue
    with open("/proc/stat") as f:
        # cpu user nice system idle iowait irq softirq steal
        v = [int(x) for x in f.readline().split()[1:9]]
    t["host_busy"] = sum(v) - v[3] - v[4]
    t["host_softirq"] = v[6]
    t["host_all"] = sum(v)
    return "".join(" %s=%d" % kv for kv in t.items())


srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("192.0.2.1", int(sys.argv[1])))
srv.listen(4)
while True:
    conn, _ = srv.accept()
    links = subprocess.run(["ip", "-o", "link", "show", "type", "tun"],
                           capture_output=True, text=True).stdout
    taps = re.findall(r"^\d+: ([^:@]+)", links, re.M)
    out = ""
    if taps:
        out = subprocess.run(["tc", "-s", "class", "show", "dev", taps[0]],
                             capture_output=True, text=True).stdout
    pk = re.findall(r"class mq :([0-9a-f]+) root\s*\n\s*Sent \d+ bytes (\d+) pkt",
                    out)
    line = " ".join("q%d=%s" % (int(q, 16) - 1, n) for q, n in pk[:16])
    if taps:
        # What tun handed to QEMU and what it dropped, all queues.
        st = "/sys/class/net/%s/statistics/" % taps[0]
        with open(st + "tx_packets") as f, open(st + "tx_dropped") as g:
            line += " tx=%d drop=%d" % (int(f.read()), int(g.read()))
    line += cpu()
    conn.sendall((line + "\n").encode())
    conn.close()
PY
pids+=($!)

# One request: "RATE SECONDS", both decimal.
request()
{
	local line

	line=$(timeout 3 bash -c \
		"exec 3<>/dev/tcp/$guest/$ctl_port && read -r l <&3 && echo \"\$l\"" \
		2> /dev/null) || return 1
	[[ $line =~ ^([0-9]+)\ ([0-9]+)$ ]] || return 1
	rate=${BASH_REMATCH[1]} secs=${BASH_REMATCH[2]}
	[ "$secs" -ge 1 ] && [ "$secs" -le 600 ]
}

sched=${RXR_PEER_FLOOD_SCHED:-other}
case $sched in
other) run=() ;;
idle) run=(chrt --idle 0) ;;
*) echo "flood-peer: RXR_PEER_FLOOD_SCHED=$sched: not other or idle"; exit 1 ;;
esac

end=$((SECONDS + 3600))
while [ "$SECONDS" -lt "$end" ]; do
	if ! request; then
		sleep 0.2
		continue
	fi
	pace=()
	[ "$rate" -gt 0 ] && pace=(-r "$rate")
	echo "flood-peer: request rate=$rate seconds=$secs sched=$sched"
	"${run[@]}" "$bin/flood" -d "$guest" -p 9,5001 "${pace[@]}" -t "$secs" -n 8 \
		-s 64:1400 &
	udp=$!
	"${run[@]}" "$bin/flood" -T -d "$guest" -p 5002 -t "$secs" &
	tcp=$!
	pids+=("$udp" "$tcp")
	wait "$udp" "$tcp"
done
