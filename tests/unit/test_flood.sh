#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bench's traffic generator on loopback, in a namespace of its own: the
# paced rate is kept, every packet is accounted for, TCP bytes arrive.

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
flood=$BUILD/bin/flood
ns=rxr-flood-test-$$
n=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); echo "not ok $n $1 # $2"; }
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<< "$2"; }

echo "TAP version 13"
if [ ! -x "$flood" ]; then
	echo "1..0 # SKIP $flood not built (make host-tools)"
	exit 0
fi
if ! ip netns add "$ns" 2>/dev/null; then
	echo "1..0 # SKIP cannot create a network namespace"
	exit 0
fi
trap 'ip netns pids "$ns" | xargs -r kill 2>/dev/null; ip netns del "$ns"' EXIT
ip -n "$ns" link set lo up
echo "1..4"

# sink PROTO PORT SECONDS: count datagrams (udp) or bytes (tcp) received.
sink()
{
	ip netns exec "$ns" python3 - "$@" <<'PY'
import socket, sys, time
proto, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
kind = socket.SOCK_DGRAM if proto == 'udp' else socket.SOCK_STREAM
s = socket.socket(socket.AF_INET, kind)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(('127.0.0.1', port))
if proto == 'tcp':
    s.listen(1)
print('ready', flush=True)
end, got = time.time() + secs, 0
s.settimeout(0.2)
if proto == 'tcp':
    try:
        s, _ = s.accept()
        s.settimeout(0.2)
    except socket.timeout:
        pass
while time.time() < end:
    try:
        d = s.recv(65536)
    except socket.timeout:
        continue
    if proto == 'tcp' and not d:
        break
    got += 1 if proto == 'udp' else len(d)
print(got)
PY
}

exec {out}< <(sink udp 5001 4)
read -r -u "$out" _
res=$(ip netns exec "$ns" "$flood" -d 127.0.0.1 -p 5001 -r 2000 -t 2 -s 64:512)
read -r -u "$out" got
sent=$(field sent "$res")
pps=$(field pps "$res")
if [ "${pps%.*}" -ge 1800 ] && [ "${pps%.*}" -le 2200 ]; then
	ok "paced at 2000 pps: $pps pps"
else
	nok "paced at 2000 pps" "$res"
fi
if [ "$got" -ge $((sent * 95 / 100)) ] && [ "$got" -le "$sent" ]; then
	ok "the sink received $got of $sent"
else
	nok "the sink received $got of $sent" "$res"
fi

res=$(ip netns exec "$ns" "$flood" -d 127.0.0.1 -p 9 -c 20000 -t 30)
if [ "$(($(field sent "$res") + $(field errors "$res")))" -eq 20000 ]; then
	ok "unpaced, closed port: 20000 packets accounted for ($res)"
else
	nok "unpaced, closed port: 20000 packets accounted for" "$res"
fi

exec {out}< <(sink tcp 5002 4)
read -r -u "$out" _
res=$(ip netns exec "$ns" "$flood" -T -d 127.0.0.1 -p 5002 -t 1)
read -r -u "$out" got
if [ "$(field bytes "$res")" -gt 0 ] && [ "$got" -eq "$(field bytes "$res")" ]; then
	ok "TCP bulk: $got bytes sent and received"
else
	nok "TCP bulk: sent and received bytes agree" "sink $got, $res"
fi
