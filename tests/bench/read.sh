#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# read.sh: `make bench-read`.  What a storage socket's pool costs where
# there is no memory pressure and no flood: marking a socket locks its
# receive buffer at half its pool (512 KiB), which turns TCP's receive
# autotuning off for it.  Each guest reads READ_MIB MiB from the raw NBD
# device, then from the raw iSCSI disk, with O_DIRECT; vanilla, patched,
# and patched booted with rx_reserve=off, in the same QEMU configuration,
# interleaved run by run.
#
# Knobs (environment, or make variables of the same name):
#   READ_NICS     virtio-mq e1000e
#   READ_RUNS     3      guests per kernel and NIC
#   READ_MIB      256    MiB read from each device per guest
#   READ_TARGET   1.10   patched's read time at most this times vanilla's
#   READ_POOL     (none) also patched with net.core.rx_reserve_pool_pages
#                        set to this before the storage connects: the
#                        socket's receive buffer is half its pool
#   READ_OUT      build/results/read-<date>
#
# Prints, and writes to READ_OUT/table.md, the median read time of each
# cell and the ratios patched / vanilla and patched / patched-off, with
# MET or NOT MET against READ_TARGET for each NIC and storage; a cell
# without a complete run is NOT MET.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
export BUILD=${BUILD:-$top/build}

NICS=${READ_NICS:-virtio-mq e1000e}
RUNS=${READ_RUNS:-3}
MIB=${READ_MIB:-256}
TARGET=${READ_TARGET:-1.10}
OUT=${READ_OUT:-$BUILD/results/read-$(date -u +%Y%m%d-%H%M%S)}
POOL=${READ_POOL:-}
if [ -n "$POOL" ] && ! [[ $POOL =~ ^[0-9]+$ ]]; then
	echo "read: READ_POOL wants a number of pages, not '$POOL'" >&2
	exit 2
fi
KERNELS="vanilla patched patched-off${POOL:+ patched-pool}"
mkdir -p "$OUT"

nic_args()
{
	case "$1" in
	virtio-mq) echo "--nic virtio-mq --queues 4 --rss on" ;;
	*) echo "--nic $1" ;;
	esac
}

echo "read: results in $OUT"
{
	echo "commit=$(git rev-parse --short HEAD 2> /dev/null)"
	echo "qemu=$(tests/bench/qemu-run.sh --version)"
	echo "date=$(date -u +%FT%TZ)"
	echo "nics=$NICS runs=$RUNS mib=$MIB target=$TARGET pool=${POOL:-default}"
} > "$OUT/params"

for run in $(seq "$RUNS"); do
	for nic in $NICS; do
		for k in $KERNELS; do
			name=$k-$nic-r$run
			kern=${k%-off}
			kern=${kern%-pool}
			append=()
			pre=
			[ "$k" = patched-off ] && append=(--append rx_reserve=off)
			[ "$k" = patched-pool ] &&
				pre="sysctl -q -w net.core.rx_reserve_pool_pages=$POOL;"
			# shellcheck disable=SC2046
			tests/bench/qemu-run.sh --out "$OUT/$name" --kernel "$kern" \
				$(nic_args "$nic") "${append[@]}" --mem 512 \
				--file "$top/tests/bench/guest/cell.sh:cell.sh" \
				--peer "$top/tests/bench/nbd-peer.sh 128 10809" \
				--peer "$top/tests/bench/iscsi-peer.sh 128" \
				--timeout 900 -- \
				"$pre CELL_MODE=read CELL_READ_MIB=$MIB CELL_STORAGE=nbd /rxr/cell.sh; CELL_MODE=read CELL_READ_MIB=$MIB CELL_STORAGE=iscsi /rxr/cell.sh" \
				> "$OUT/$name.log" 2>&1
			grep -ho 'RESULT read .*' "$OUT/$name/output.txt" 2> /dev/null |
				sed "s/^/nic=$nic kernel=$k run=$run /" >> "$OUT/reads"
			echo "read: $name: $(grep -c "nic=$nic kernel=$k run=$run .*ok=1" "$OUT/reads") of 2 reads"
		done
	done
done

python3 - "$OUT" "$TARGET" "$NICS" "$POOL" <<'PY'
import os, re, statistics, sys
out, target, nics, pool = (sys.argv[1], float(sys.argv[2]), sys.argv[3].split(),
                           sys.argv[4])
cells = {}
reads = out + "/reads"
lines = open(reads).readlines() if os.path.exists(reads) else []
for line in lines:
    kv = dict(re.findall(r"(\w+)=(\S+)", line))
    if kv.get("ok") != "1":
        continue
    cells.setdefault((kv["nic"], kv["storage"], kv["kernel"]), []).append(int(kv["ms"]))
kernels = ["vanilla", "patched", "patched-off"] + (["patched-pool"] if pool else [])
extra_h = (" patched, pool %s pages ms | pool %s / off |" % (pool, pool)) if pool else ""
rows = ["| NIC | storage | vanilla ms | patched ms | patched, rx_reserve=off ms |%s patched / vanilla | patched / off | target |" % extra_h,
        "|---|---|---|---|---|%s---|---|---|" % ("---|---|" if pool else "")]
verdicts = []
for nic in nics:
    for st in ("nbd", "iscsi"):
        med = {}
        for k in kernels:
            v = cells.get((nic, st, k))
            med[k] = statistics.median(v) if v else None
        def fmt(k):
            v = cells.get((nic, st, k))
            return "%d (n=%d)" % (med[k], len(v)) if v else "missing"
        if med["vanilla"] and med["patched"]:
            r = med["patched"] / med["vanilla"]
            rv = "%.2fx" % r
            ok = r <= target
        else:
            rv, ok = "n/a", False
        ro = ("%.2fx" % (med["patched"] / med["patched-off"])
              if med["patched"] and med["patched-off"] else "n/a")
        extra = ""
        if pool:
            rp = ("%.2fx" % (med["patched-pool"] / med["patched-off"])
                  if med["patched-pool"] and med["patched-off"] else "n/a")
            extra = " %s | %s |" % (fmt("patched-pool"), rp)
        verdict = "MET" if ok else "NOT MET"
        verdicts.append(verdict)
        rows.append("| %s | %s | %s | %s | %s |%s %s | %s | %s (<= %.2fx) |" % (
            nic, st, fmt("vanilla"), fmt("patched"), fmt("patched-off"),
            extra, rv, ro, verdict, target))
text = "\n".join(rows) + "\n"
open(out + "/table.md", "w").write(text)
print(text)
print("read: %d of %d targets MET" % (verdicts.count("MET"), len(verdicts)))
PY
