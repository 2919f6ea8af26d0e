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
#     "qemu_main=N qemu_vcpu=N qemu_other=N", the CPU ticks of the QEMU
#     in this namespace: its main thread (the I/O loop that moves every
#     virtio-net queue's frames), its vCPU threads and the rest.
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

def qemu_cpu():
    """CPU ticks (utime + stime) of the QEMU in this network namespace,
    per thread: " qemu_main=N qemu_vcpu=N qemu_other=N".  The main thread
    is QEMU's I/O loop, which moves every virtio-net queue's frames
    (vhost=off); the vCPU threads are named "CPU n/TCG"."""
    me = os.stat("/proc/self/ns/net").st_ino
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat("/proc/%s/ns/net" % pid).st_ino != me:
                continue
            with open("/proc/%s/comm" % pid) as f:
                if not f.read().startswith("qemu-system"):
                    continue
            t = {"main": 0, "vcpu": 0, "other": 0}
            for tid in os.listdir("/proc/%s/task" % pid):
                with open("/proc/%s/task/%s/stat" % (pid, tid)) as f:
                    st = f.read()
                name = st[st.index("(") + 1:st.rindex(")")]
                v = st[st.rindex(")") + 2:].split()
                ticks = int(v[11]) + int(v[12])
                k = "main" if tid == pid else \
                    "vcpu" if name.endswith("/TCG") else "other"
                t[k] += ticks
            return "".join(" qemu_%s=%d" % kv for kv in t.items())
        except (OSError, ValueError, IndexError):
            continue
    return ""


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
    line += qemu_cpu()
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

end=$((SECONDS + 3600))
while [ "$SECONDS" -lt "$end" ]; do
	if ! request; then
		sleep 0.2
		continue
	fi
	pace=()
	[ "$rate" -gt 0 ] && pace=(-r "$rate")
	echo "flood-peer: request rate=$rate seconds=$secs"
	"$bin/flood" -d "$guest" -p 9,5001 "${pace[@]}" -t "$secs" -n 8 \
		-s 64:1400 &
	udp=$!
	"$bin/flood" -T -d "$guest" -p 5002 -t "$secs" &
	tcp=$!
	pids+=("$udp" "$tcp")
	wait "$udp" "$tcp"
done
