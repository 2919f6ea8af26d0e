#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py [--demo] DIR: the table, targets and plots of a bench run.

Reads what tests/bench/bench.sh left in DIR (params, cells/*/cell.info,
cells/*/output.txt) and writes DIR/table.md (printed too), DIR/series/*.csv
(swap progress per cell) and DIR/plot-NIC-STORAGE.png (gnuplot, when
installed).  Every figure comes from the guests' output; nothing is typed.
"""

import os
import re
import shutil
import statistics
import subprocess
import sys

PAGE_MIB = 4096 / 1048576
FLOODS = ["none", "carried", "unpaced"]
NICS = ["virtio-mq", "virtio-mq-norss", "virtio", "e1000e"]
STORAGE = ["nbd", "iscsi"]
CONSOLE = {
    "hung": re.compile(r"blocked for more than"),
    "io_errors": re.compile(r"I/O error|Read-error on swap|Write-error on swap"),
    "oom": re.compile(r"Out of memory: Killed process"),
    "panic": re.compile(r"Kernel panic"),
    "stuck": re.compile(r"Possible stuck request|session recovery timed out|"
                        r"ping timeout"),
}
DRV_FAIL = re.compile(r"(alloc.*fail|fail.*alloc|no_buffer|refill_fail)")
# The flood's datagrams reached the guest's UDP: to the closed port
# (NoPorts) or the open, unread one (InDatagrams, or InErrors and
# RcvbufErrors once its buffer is full).
FLOOD_SEEN = ("net.Udp.NoPorts", "net.Udp.InDatagrams", "net.Udp.InErrors",
              "net.Udp.RcvbufErrors")


def kv_line(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


def num(v, default=None):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


class Cell:
    """One guest's results."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.info = {}
        self.res = {}
        self.delta = {}
        self.series = []        # (t, done MiB, pswpout, pswpin)
        self.proc = []
        self.end = None         # ("DONE"|"HANG"|"LIMIT", seconds)
        self.show = []
        self.tput = []
        self.calib = []
        self.classify = []
        self.done_kv = {}
        self.start = {}
        try:
            with open(os.path.join(path, "cell.info")) as f:
                self.info = kv_line(f.read())
        except OSError:
            pass
        # What RSS QEMU gave a virtio-mq guest (qemu-run.sh): ebpf,
        # software or none; "" where it was not checked.
        try:
            with open(os.path.join(path, "rss")) as f:
                self.rss = f.read().strip()
        except OSError:
            self.rss = ""
        try:
            with open(os.path.join(path, "output.txt"),
                      errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        # Counted from the console, which outlives a guest that died.
        self.console = {"hung": 0, "io_errors": 0, "oom": 0, "panic": 0,
                        "stuck": 0}
        try:
            with open(os.path.join(path, "console.log"),
                      errors="replace") as f:
                for line in f:
                    for k, pat in CONSOLE.items():
                        if pat.search(line):
                            self.console[k] += 1
        except OSError:
            pass
        showing = False
        for line in lines:
            w = line.split()
            if not w:
                continue
            if w[0] == "RESULT":
                d = kv_line(line)
                if "calib_rate" in d:
                    self.calib.append(d)
                elif "tput_run" in d:
                    self.tput.append(d)
                elif line.startswith("RESULT classify"):
                    self.classify.append(d)
                else:
                    self.res.update(d)
            elif w[0] == "START":
                self.start = kv_line(line)
            elif w[0] == "T" and len(w) == 6:
                self.series.append(tuple(float(x) for x in w[1:2]) +
                                   tuple(int(x) for x in w[2:3] + w[4:6]))
            elif w[0] in ("DONE", "HANG", "LIMIT") and len(w) > 1:
                self.end = (w[0], num(w[1]))
                if w[0] == "DONE":
                    self.done_kv = kv_line(line)
            elif w[0] == "DELTA" and len(w) == 3:
                self.delta[w[1]] = num(w[2], 0)
            elif w[0] == "PROC":
                self.proc.append(line[5:])
            elif line.startswith("--- ethtool"):
                showing = True
            if showing and not line.startswith("RXR-EXIT"):
                self.show.append(line)

    # --- derived figures

    def outcome(self):
        load = self.res.get("load")
        if not load and self.end:
            load = {"HANG": "hang", "LIMIT": "limit"}.get(self.end[0])
            if not load:
                load = "done" if not (num(self.done_kv.get("killed"), 0) or
                                      num(self.done_kv.get("corrupt"), 0)) \
                    else "failed"
        if not load:
            if os.path.exists(os.path.join(self.path, "stalled")):
                load = "stalled"
            elif self.info.get("rc") == "124":
                load = "wall-timeout"
            elif self.res.get("error"):
                load = "error:" + self.res["error"]
            else:
                load = "no-result"
        if self.console["panic"]:
            load += "+panic"
        return load

    def killed(self):
        return num(self.done_kv.get("killed"), 0)

    def seconds(self):
        if self.end:
            return self.end[1]
        if self.series:
            return self.series[-1][0]
        return None

    def done_seconds(self):
        if self.outcome() != "done":
            return None
        return self.end[1]

    def swap_base(self):
        """pswpout and pswpin when the load started."""
        if "pswpout" in self.start:
            return int(self.start["pswpout"]), int(self.start["pswpin"])
        return self.series[0][2], self.series[0][3]

    def swapout_mib(self):
        if len(self.series) < 1:
            return None
        return (self.series[-1][2] - self.swap_base()[0]) * PAGE_MIB

    def swapout_rate(self):
        s, mib = self.seconds(), self.swapout_mib()
        if not s or mib is None:
            return None
        return mib / s

    def d(self, key):
        return self.delta.get(key, 0)

    def allocstall(self):
        return sum(v for k, v in self.delta.items()
                   if k.startswith("vm.allocstall_"))

    def softirq_share(self):
        """Percent of the guest's CPU time in softirq, control and load."""
        t = self.d("cpu.total")
        if t <= 0:
            return None
        return 100.0 * self.d("cpu.softirq") / t

    def qemu_main_share(self):
        """Percent of the host's CPU time (all CPUs) that the guest's QEMU
        main thread, the I/O loop that moves every frame between the tap
        and the NIC model, took over the control and the load (the
        peer's stats, flood-peer.sh); None without them."""
        t = self.d("host.host_all")
        if t <= 0:
            return None
        return 100.0 * self.d("host.qemu_main") / t

    def tap_delivered(self):
        """Frames the host's tap handed to QEMU and those it dropped, over
        the control and the load; None without the peer's stats."""
        if not any(k in self.delta for k in ("host.tx", "host.drop")):
            return None
        return self.d("host.tx"), self.d("host.drop")

    def drv_fail(self):
        return sum(v for k, v in self.delta.items()
                   if k.startswith("eth.") and DRV_FAIL.search(k) and
                   "rx_reserve" not in k and "rxr_" not in k)

    def reserve_queue(self):
        for p in self.proc:
            m = re.search(r"\breserve_queue (-?\d+)", p)
            if m:
                return int(m.group(1))
        return -1

    def rxr(self, name):
        return self.d("eth.rx_reserve_" + name)

    def qsum(self, name):
        return sum(v for k, v in self.delta.items()
                   if re.fullmatch(r"eth\.rx\d+_rxr_" + name, k))

    def nonprio_pool_up(self):
        """Frames that went up in a pool page not theirs: the core's
        count at the point where a pool page goes up (pool_up_other),
        netdevsim's (nonprio_up), lent pages of older kernels (lent_other)
        and, on the reserve queue, frames that were neither priority nor
        recycled nor copied up (passed, copied)."""
        if not any(k.startswith("eth.rx_reserve_") for k in self.delta) \
           and not self.proc:
            return None
        n = self.rxr("pool_up_other") + self.qsum("lent_other") + \
            self.rxr("nonprio_up")
        q = self.reserve_queue()
        if q >= 0:
            p = "eth.rx%d_rxr_" % q
            n += max(0, self.d(p + "packets") - self.d(p + "priority") -
                     self.d(p + "recycled") - self.d(p + "passed") -
                     self.d(p + "copied"))
        return n

    def steered(self):
        return self.rxr("steered")

    def problems(self):
        """What keeps a cell from counting toward a target: an error the
        guest reported (cell.sh's error=), no counters (a guest that hung
        or died before its DELTA lines), or a flood that was asked for
        and that the guest's UDP counters do not show arriving."""
        p = []
        if self.res.get("error"):
            p.append("error=" + self.res["error"])
        if not self.delta:
            p.append("no counters")
        elif self.info.get("flood", "none") != "none" and \
                not any(self.d(k) > 0 for k in FLOOD_SEEN):
            p.append("flood not seen")
        return p


def problems_of(cs):
    """The problems of cells, "" when none: " (name: problem, ...)"."""
    p = ["%s: %s" % (c.name, ", ".join(c.problems())) for c in cs
         if c.problems()]
    return " (%s)" % "; ".join(p) if p else ""


def rss_summary(cells):
    """What RSS the virtio-mq guests got, from qemu-run.sh's check."""
    mq = [c for c in cells if c.info.get("nic") == "virtio-mq" or
          c.name.endswith("-virtio-mq")]
    if not mq:
        return "no virtio-mq guest"
    ebpf = sum(c.rss == "ebpf" for c in mq)
    other = ", ".join("%s %s" % (c.name, c.rss or "unchecked")
                      for c in mq if c.rss != "ebpf")
    return "eBPF RSS in %d of %d virtio-mq guests%s" % (
        ebpf, len(mq), " (not: %s)" % other if other else "")


def ctl_ms(c):
    """The control transfer, write plus read, ms; None if either failed."""
    w, r = num(c.res.get("ctl_write_ms")), num(c.res.get("ctl_read_ms"))
    if w is None or r is None or w < 0 or r < 0:
        return None
    return w + r


def attribution(cs, base):
    """Where the time of a flood's cells went, against the same kernel's
    no-flood cells (medians), and which of the four the issue names holds
    it back: PFMemallocDrop (frames dropped at their sockets),
    pgscan_direct_throttle above the no-flood one, the guest's softirq
    share up by 5 points or more (CPU spent on the flood's frames),
    allocstall up by a fifth or more (direct reclaim)."""
    def m(f, cells):
        return med([f(c) for c in cells])

    sq, sq0 = m(Cell.softirq_share, cs), m(Cell.softirq_share, base)
    pfm = m(lambda c: c.d("net.TcpExt.PFMemallocDrop"), cs)
    thr = m(lambda c: c.d("vm.pgscan_direct_throttle"), cs)
    thr0 = m(lambda c: c.d("vm.pgscan_direct_throttle"), base)
    st, st0 = m(Cell.allocstall, cs), m(Cell.allocstall, base)
    held = []
    if pfm:
        held.append("PFMemallocDrop")
    if thr is not None and thr0 is not None and thr > thr0:
        held.append("pgscan_direct_throttle")
    if sq is not None and sq0 is not None and sq - sq0 >= 5:
        held.append("softirq")
    if st is not None and st0 and st >= 1.2 * st0:
        held.append("allocstall")
    text = ("where the time went, flood against no flood: softirq %s %% "
            "against %s %%, PFMemallocDrop %s, throttle %s against %s, "
            "allocstall %s against %s; held back by: %s" % (
                fmt(sq, 1), fmt(sq0, 1), fmt(pfm), fmt(thr), fmt(thr0),
                fmt(st), fmt(st0), ", ".join(held) or
                "none of the four (unattributed)"))
    # The host's side, where the peer's stats reached the cell: QEMU's
    # main thread moves every frame, and a flood's frames cost it the
    # same whatever the guest kernel does with them.
    qm, qm0 = m(Cell.qemu_main_share, cs), m(Cell.qemu_main_share, base)
    tap = [c.tap_delivered() for c in cs if c.tap_delivered()]
    if qm is not None or tap:
        tx = med([t[0] for t in tap])
        drop = med([t[1] for t in tap])
        text += ("; host: QEMU's main thread %s %% of the host's CPU time "
                 "against %s %%, tap %s frames to QEMU, %s dropped" % (
                     fmt(qm, 1), fmt(qm0, 1), fmt(tx), fmt(drop)))
    return text


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fmt(v, digits=0):
    if v is None:
        return "-"
    if digits == 0:
        return "%d" % round(v)
    return "%.*f" % (digits, v)


def load_cells(root):
    cells = []
    cdir = os.path.join(root, "cells")
    for name in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []:
        cells.append(Cell(os.path.join(cdir, name)))
    return cells


def read_params(root):
    p = {}
    try:
        with open(os.path.join(root, "params")) as f:
            for line in f:
                p.update(kv_line(line))
                if line.startswith(("nics=", "storage=", "kernels=",
                                    "floods=", "qemu=")):
                    k, v = line.rstrip("\n").split("=", 1)
                    p[k] = v
                m = re.match(r"carried_(\S+)=(\S+)", line)
                if m:
                    p.setdefault("carried", {})[m.group(1)] = m.group(2)
    except OSError:
        pass
    return p


def groups(cells):
    g = {}
    for c in cells:
        i = c.info
        if "flood" not in i:
            continue
        key = (i["nic"], i["storage"], i["kernel"], i["flood"])
        g.setdefault(key, []).append(c)
    for v in g.values():
        v.sort(key=lambda c: int(c.info.get("run", 0)))
    return g


def outcome_summary(cs):
    counts = {}
    for c in cs:
        counts[c.outcome()] = counts.get(c.outcome(), 0) + 1
    return ", ".join("%d %s" % (n, o) for o, n in sorted(counts.items()))


def table(root, cells, params, out):
    g = groups(cells)
    # A run may be made of several invocations: order what the cells have.
    nics = [n for n in NICS if n in {k[0] for k in g}]
    sts = [n for n in STORAGE if n in {k[1] for k in g}]
    kernels = ["vanilla", "patched"]
    out.append("## Cells (swap on network storage, %s MiB guest, load %s x %s "
               "MiB; %s run(s) per cell)" % (params.get("mem", "?"),
                                             params.get("procs", "?"),
                                             params.get("mib", "?"),
                                             params.get("runs", "?")))
    out.append("")
    out.append("Time: load seconds per run (DONE; `failed@s`: a load process "
               "was killed, by an I/O error on swap or the OOM killer; "
               "`hang@s`: no progress for %s s; `limit@s`; `stalled`: the guest "
               "printed nothing for minutes, livelocked, and was stopped; "
               "`wall-timeout`: it reached its wall-clock limit).  x own: median time over the same kernel's "
               "no-flood median.  Control: pressure-free %s MiB write/read "
               "on the raw device under the cell's flood, median ms (-1: not "
               "done in 60 s).  Swap-out: MiB/s over the load.  Hung (hung-task "
               "warnings), OOM (kills), I/O err (block and swap I/O error "
               "lines): from the console, summed over runs; `+panic`: the "
               "guest panicked (init killed).  Retrans, PFMemallocDrop, "
               "throttle (pgscan_direct_throttle), allocstall, softirq "
               "(the guest's CPU time in softirq, %% of all its CPU time "
               "over the control and the load), drv fail "
               "(driver allocation-failure counters of ethtool -S): medians.  "
               "rx-reserve: lent / recycled / steered / emergency entries, "
               "medians; nonprio: non-priority frames that went up in a "
               "reserve page, summed." % (params.get("hang", "120"), 16))
    out.append("")
    out.append("| NIC | storage | kernel | flood (pps) | outcomes | time (s) "
               "| x own | control w/r (ms) | swap-out MiB/s | hung | OOM | "
               "I/O err | retrans | PFMemallocDrop | throttle | allocstall | "
               "softirq % | drv fail | rx-reserve l/r/s/e | nonprio |")
    out.append("|" + "---|" * 20)
    for nic in nics:
        for st in sts:
            for fl in FLOODS:
                for k in kernels:
                    cs = g.get((nic, st, k, fl))
                    if not cs:
                        continue
                    times = []
                    for c in cs:
                        e = c.end
                        if e and c.done_seconds():
                            times.append("%.0f" % e[1])
                        elif e and e[0] == "DONE":
                            times.append("failed@%.0f" % e[1])
                        elif e:
                            times.append("%s@%.0f" % (e[0].lower(), e[1]))
                        else:
                            times.append(c.outcome())
                    own = None
                    base = g.get((nic, st, k, "none"))
                    mt = med([c.done_seconds() for c in cs])
                    if base and mt and fl != "none" and \
                       all(c.done_seconds() for c in cs):
                        bt = med([c.done_seconds() for c in base])
                        own = mt / bt if bt else None
                    rate = cs[0].info.get("rate", "-")
                    rate = {"-1": "-", "0": "unpaced"}.get(rate, rate)
                    has_rxr = k == "patched"
                    rx = "-"
                    if has_rxr:
                        rx = "%s/%s/%s/%s" % (
                            fmt(med([c.rxr("lent") for c in cs])),
                            fmt(med([c.rxr("recycled") for c in cs])),
                            fmt(med([c.steered() for c in cs])),
                            fmt(med([c.rxr("emergency") for c in cs])))
                    npu = [c.nonprio_pool_up() for c in cs]
                    npu = sum(v for v in npu if v is not None) \
                        if has_rxr else None
                    out.append("| " + " | ".join([
                        nic, st, k, "%s (%s)" % (fl, rate),
                        outcome_summary(cs), ", ".join(times),
                        fmt(own, 2) if own else "-",
                        "%s/%s" % (fmt(med([num(c.res.get("ctl_write_ms"))
                                            for c in cs])),
                                   fmt(med([num(c.res.get("ctl_read_ms"))
                                            for c in cs]))),
                        fmt(med([c.swapout_rate() for c in cs]), 1),
                        fmt(sum(c.console["hung"] for c in cs)),
                        fmt(sum(max(c.d("vm.oom_kill"), c.console["oom"])
                                for c in cs)),
                        fmt(sum(c.console["io_errors"] for c in cs)),
                        fmt(med([c.d("net.Tcp.RetransSegs") for c in cs])),
                        fmt(med([c.d("net.TcpExt.PFMemallocDrop")
                                 for c in cs])),
                        fmt(med([c.d("vm.pgscan_direct_throttle")
                                 for c in cs])),
                        fmt(med([c.allocstall() for c in cs])),
                        fmt(med([c.softirq_share() for c in cs]), 1),
                        fmt(med([c.drv_fail() for c in cs])),
                        rx, fmt(npu)]) + " |")
    out.append("")
    return g


def targets(g, cells, params, out):
    out.append("## Targets")
    out.append("")
    kernels = {k[2] for k in g}
    # 1. carried flood: patched completes every run, within 1.2x.  A NIC
    # whose calibration found no carried rate has no carried cells.
    for nic, r in sorted(params.get("carried", {}).items()):
        if r == "none":
            out.append("- carried flood, %s: no carried rate (vanilla's "
                       "control was over 2x at every rate of the "
                       "calibration), no cells -> NOT MET" % nic)
    for key in sorted(k for k in g if k[2] == "patched" and
                      k[3] == "carried"):
        nic, st = key[0], key[1]
        cs = g[key]
        clean = all(c.outcome() == "done" and not c.console["hung"] and
                    not c.d("vm.oom_kill") and not c.console["oom"] and
                    not c.console["io_errors"] and not c.problems()
                    for c in cs)
        base = g.get((nic, st, "patched", "none"), [])
        bt = med([c.done_seconds() for c in base])
        ratios = ["%.2f" % (c.done_seconds() / bt) for c in cs
                  if c.done_seconds() and bt]
        worst = max([float(r) for r in ratios], default=None)
        van = g.get((nic, st, "vanilla", "carried"), [])
        vbase = med([c.done_seconds() for c in g.get((nic, st, "vanilla",
                                                      "none"), [])])
        vr = ["%.2f" % (c.done_seconds() / vbase) for c in van
              if c.done_seconds() and vbase]
        # With PFMemallocDrop 0 in every run, and direct reclaim throttled
        # no more than without the flood (medians).
        pfm = [c.d("net.TcpExt.PFMemallocDrop") for c in cs]
        thr = med([c.d("vm.pgscan_direct_throttle") for c in cs])
        thr0 = med([c.d("vm.pgscan_direct_throttle") for c in base])
        met = clean and worst is not None and worst <= 1.2 and \
            len(ratios) == len(cs) and not any(pfm) and \
            thr is not None and thr0 is not None and thr <= thr0
        out.append("- carried flood, %s, %s: patched %s, runs x own no-flood "
                   "median %s, PFMemallocDrop %s, throttle %s (no flood %s); "
                   "vanilla %s (%s) -> %s" % (
                       nic, st, "all clean" if clean else
                       "NOT clean (" + outcome_summary(cs) + ")" +
                       problems_of(cs),
                       ", ".join(ratios) or "-",
                       ", ".join("%d" % v for v in pfm) or "-",
                       fmt(thr), fmt(thr0),
                       ", ".join(vr) or "-", outcome_summary(van) or "-",
                       "MET" if met else "NOT MET"))
        if not met and cs and base:
            out.append("  - " + attribution(cs, base))
    # 2. The overwhelming flood (unpaced; e1000e: the rate its tap delivers
    # whole): patched's pressure-free control transfer within 2x of its own
    # no-flood control in every run, and the OOM load done in every run.
    # Every NIC and storage that has unpaced cells, and virtio-mq always.
    want = {(k[0], k[1]) for k in g if k[3] == "unpaced"} | \
        {("virtio-mq", st) for st in {k[1] for k in g} or ["nbd"]}
    for nic, st in sorted(want):
        parts, met = [], True
        for k in ("patched", "vanilla"):
            cs = g.get((nic, st, k, "unpaced"), [])
            base = med([ctl_ms(c) for c in g.get((nic, st, k, "none"), [])
                        if ctl_ms(c)])
            ratios = [ctl_ms(c) / base if ctl_ms(c) and base else None
                      for c in cs]
            done = [c.outcome() == "done" and not c.killed() and
                    not c.console["io_errors"] and not c.problems()
                    for c in cs]
            parts.append("%s control x own no-flood %s, load %s%s" % (
                k, ", ".join("%.2f" % r if r else "-" for r in ratios) or
                "no cells", outcome_summary(cs) or "-", problems_of(cs)))
            if k == "patched":
                met = bool(cs) and all(r is not None and r <= 2.0
                                       for r in ratios) and all(done)
            # On virtio-mq, a guest without eBPF RSS is not the testbed.
            # A guest with no record (stopped before qemu-run.sh looked)
            # is unknown: missing data, NOT MET where it is patched's.
            if nic == "virtio-mq":
                off = sum(c.rss not in ("ebpf", "") for c in cs)
                unknown = sum(c.rss == "" for c in cs)
                if off:
                    met = False
                    parts[-1] += " (RSS not eBPF in %d)" % off
                if unknown:
                    met = met and k != "patched"
                    parts[-1] += " (RSS unknown in %d)" % unknown
        rate = {c.info.get("rate") for c in g.get((nic, st, "patched",
                                                   "unpaced"), [])}
        out.append("- overwhelming flood (%s), %s, %s: %s -> %s" % (
            "unpaced" if rate <= {"0"} else "%s pps" % "/".join(sorted(rate)),
            nic, st, "; ".join(parts), "MET" if met else "NOT MET"))
    # Swap-out throughput under it, patched against vanilla.
    for key in sorted(k for k in g if k[2] == "patched" and
                      k[3] == "unpaced"):
        nic, st = key[0], key[1]
        p = g[key]
        v = g.get((nic, st, "vanilla", "unpaced"), [])
        pr, vr = med([c.swapout_rate() for c in p]), \
            med([c.swapout_rate() for c in v])
        ratio = "x%.2f" % (pr / vr) if pr and vr else \
            ("vanilla 0" if pr and vr == 0 else "-")
        out.append("  - swap-out under it, %s, %s: patched %s MiB/s (%s), "
                   "vanilla %s MiB/s (%s): %s" % (
                       nic, st, fmt(pr, 2), outcome_summary(p), fmt(vr, 2),
                       outcome_summary(v) or "-", ratio))
    # 3. no reserve page used by a non-priority frame, in any patched cell;
    # a run where no cell steered a flow, or a cell without counters, has
    # not shown it.
    steered = [c for c in cells if c.info.get("kernel") == "patched" and
               c.steered() > 0]
    patched = [c for c in cells if c.info.get("kernel") == "patched" and
               c.info.get("flood")]
    if patched:
        n = sum(c.nonprio_pool_up() or 0 for c in patched)
        blind = [c.name for c in patched if c.nonprio_pool_up() is None]
        out.append("- non-priority frames up in a reserve page, patched "
                   "cells (%d, %d with a steered flow, %d steered frames): "
                   "%d%s%s -> %s" % (
                       len(patched), len(steered),
                       sum(c.steered() for c in steered), n,
                       "; no counters from " + ", ".join(blind)
                       if blind else "",
                       "" if steered else "; no cell steered a flow",
                       "MET" if n == 0 and not blind and steered
                       else "NOT MET"))
    # 4. tput: a non-priority stream, patched against vanilla.
    tp, bad, where = {}, {}, {}
    for c in cells:
        if not c.name.startswith("tput-"):
            continue
        key = (c.info.get("nic"), c.info.get("kernel"))
        for t in c.tput:
            b, ms = num(t.get("bytes")), num(t.get("ms"))
            if b and ms and t.get("ok") == "1":
                tp.setdefault(key, []).append(b / ms / 1000)
                # Where each transfer ran (cell.sh's tput_where).
                if "rxq" in t:
                    where.setdefault(key, []).append(
                        "%.1f q%s %s%%" % (b / ms / 1000, t["rxq"],
                                           t.get("softirq_pct", "-")))
            else:
                bad[key] = bad.get(key, 0) + 1
    for nic in sorted({k[0] for k in tp} | {k[0] for k in bad}):
        v, p = med(tp.get((nic, "vanilla"), [])), \
            med(tp.get((nic, "patched"), []))
        if not (v and p):
            out.append("- non-priority TCP stream with a priority flow "
                       "armed, %s: %s -> NOT MET" % (
                           nic, "no complete transfer on %s" % " and ".join(
                               k for k, x in (("patched", p), ("vanilla", v))
                               if not x)))
        else:
            nb = bad.get((nic, "patched"), 0), bad.get((nic, "vanilla"), 0)
            out.append("- non-priority TCP stream with a priority flow "
                       "armed, %s: patched %.1f MB/s, vanilla %.1f MB/s "
                       "(medians of %d and %d complete transfers; %d and %d "
                       "did not complete in 60 s): x%.3f -> %s" % (
                           nic, p, v, len(tp[(nic, "patched")]),
                           len(tp[(nic, "vanilla")]), nb[0], nb[1], p / v,
                           "MET" if p / v >= 0.98 and not nb[0]
                           else "NOT MET"))
        if (nic, "patched") in where or (nic, "vanilla") in where:
            out.append("  - each transfer (MB/s, the RX queue that "
                       "received most, the guest's softirq share): "
                       "patched %s; vanilla %s" % tuple(
                           ", ".join(where.get((nic, k), [])) or "-"
                           for k in ("patched", "vanilla")))
    # 5. classification cost.
    for c in cells:
        if c.name == "classify" and not c.classify:
            out.append("- classification per frame (KUnit "
                       "rxr_test_classify_scale): no result -> NOT flat")
        elif c.classify:
            pts = ["%s flows %s/%s ns" % (d.get("flows"), d.get("hit_ns"),
                                          d.get("miss_ns"))
                   for d in c.classify]
            hits = [num(d.get("hit_ns")) for d in c.classify]
            miss = [num(d.get("miss_ns")) for d in c.classify]
            flat = hits[-1] <= 1.2 * hits[0] + 20 and \
                miss[-1] <= 1.2 * miss[0] + 20
            out.append("- classification per frame, hit/miss (KUnit "
                       "rxr_test_classify_scale): %s -> %s" % (
                           "; ".join(pts), "flat" if flat else "NOT flat"))
    if not kernels:
        out.append("- no cells")
    out.append("")


def calibration(cells, out):
    cal = [c for c in cells if c.name.startswith("calibrate-")]
    if not cal:
        return
    out.append("## Calibration (vanilla, control transfer under each rate)")
    out.append("")
    for c in cal:
        steps = ["%s: %s/%s ms" % ("no flood" if d["calib_rate"] == "-1"
                                   else d["calib_rate"] + " pps",
                                   d.get("ctl_write_ms"),
                                   d.get("ctl_read_ms")) for d in c.calib]
        out.append("- %s: %s; carried rate %s" % (
            c.name[len("calibrate-"):], "; ".join(steps) or "no result",
            c.res.get("carried_rate", "-")))
    out.append("")


def plots(root, g, out):
    sdir = os.path.join(root, "series")
    os.makedirs(sdir, exist_ok=True)
    for cs in g.values():
        for c in cs:
            if not c.series:
                continue
            with open(os.path.join(sdir, c.name + ".csv"), "w") as f:
                f.write("# t_s load_mib swapout_mib swapin_mib\n")
                o0, i0 = c.swap_base()
                for t, done, o, i in c.series:
                    f.write("%.1f %d %.1f %.1f\n" % (
                        t, done, (o - o0) * PAGE_MIB, (i - i0) * PAGE_MIB))
    if not shutil.which("gnuplot"):
        out.append("(no gnuplot: plots not drawn)")
        return
    colour = {"vanilla": "#c0392b", "patched": "#2471a3"}
    dash = {"none": 1, "carried": 2, "unpaced": 3}
    for nic, st in sorted({(k[0], k[1]) for k in g}):
        series = []
        for (n, s, k, fl), cs in sorted(g.items()):
            if (n, s) != (nic, st) or not cs or not cs[0].series:
                continue
            series.append((os.path.join(sdir, cs[0].name + ".csv"),
                           colour.get(k, "black"), dash.get(fl, 1),
                           "%s, flood %s" % (k, fl)))
        if not series:
            continue
        png = os.path.join(root, "plot-%s-%s.png" % (nic, st))
        # Swap-out (the load writing its pages out) above swap-in (the
        # load reading them back, where the storage's RX carries the data
        # and the cells part ways), on the same time axis.
        panels = ""
        for col, what in ((3, "out"), (4, "in")):
            panels += ("set title 'Swap-%s over time, %s, swap on %s "
                       "(run 1)'\nset ylabel 'MiB swapped %s'\n"
                       "plot %s\n" % (
                           what, nic, st, what, ", ".join(
                               "'%s' using 1:%d with lines lw 2 lc rgb '%s' "
                               "dt %d title '%s'" % (f, col, c, d, t)
                               for f, c, d, t in series)))
        script = ("set terminal pngcairo size 900,900\n"
                  "set output '%s'\n"
                  "set multiplot layout 2,1\n"
                  "set xlabel 'seconds since the load started'\n"
                  "set key right center\nset grid\n"
                  "%sunset multiplot\n" % (png, panels))
        try:
            subprocess.run(["gnuplot"], input=script, text=True, check=True,
                           capture_output=True)
        except (subprocess.CalledProcessError, OSError) as e:
            # pngcairo may be missing in gnuplot-nox: fall back to png.
            script = script.replace("pngcairo", "png")
            try:
                subprocess.run(["gnuplot"], input=script, text=True,
                               check=True, capture_output=True)
            except (subprocess.CalledProcessError, OSError):
                out.append("(gnuplot failed for %s: %s)" % (png, e))
                continue
        out.append("- plot: %s" % png)


def demo(root, cells, out):
    g = groups(cells)
    for key, cs in sorted(g.items()):
        c = cs[0]
        e = c.end
        o = c.outcome()
        what = o.upper() if o in ("done", "failed", "hang", "limit") else o
        if e:
            what += " after %.0f s" % e[1]
        bad = ["%d %s" % (n, k) for k, n in (
            ("processes killed", c.killed()),
            ("corrupt", num(c.done_kv.get("corrupt"), 0)),
            ("I/O error lines", c.console["io_errors"]),
            ("OOM kills", c.console["oom"])) if n]
        if bad or c.problems():
            what += " (%s)" % ", ".join(bad + c.problems())
        out.append("%-8s %s, swap on %s, flood %s: %s; control %s/%s ms; "
                   "swapped out %s MiB at %s MiB/s; retrans %s" % (
                       key[2], key[0], key[1], key[3], what,
                       c.res.get("ctl_write_ms", "-"),
                       c.res.get("ctl_read_ms", "-"),
                       fmt(c.swapout_mib()), fmt(c.swapout_rate(), 2),
                       fmt(c.d("net.Tcp.RetransSegs"))))
    pat = [c for c in cells if c.info.get("kernel") == "patched"]
    if pat and pat[0].show:
        out.append("")
        out.append("The patched guest's view at the end:")
        out.extend(pat[0].show)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1 or not os.path.isdir(args[0]):
        sys.stderr.write(__doc__)
        return 2
    root = args[0]
    cells = load_cells(root)
    params = read_params(root)
    out = []
    if "--demo" in argv:
        demo(root, cells, out)
        print("\n".join(out))
        return 0
    out.append("# rx-reserve bench, %s (commit %s)" % (
        params.get("date", "?"), params.get("commit", "?")))
    out.append("")
    out.append("QEMU: %s.  virtio-mq: 4 queue pairs on a 4-queue tap, "
               "rss=on for both kernels; %s.%s" % (
                   params.get("qemu", "?"), rss_summary(cells),
                   "  Flood senders SCHED_IDLE on the host."
                   if params.get("flood_sched") == "idle" else ""))
    out.append("")
    g = table(root, cells, params, out)
    targets(g, cells, params, out)
    calibration(cells, out)
    plots(root, g, out)
    text = "\n".join(out) + "\n"
    with open(os.path.join(root, "table.md"), "w") as f:
        f.write(text)
    print(text, end="")
    print("report: %s" % os.path.join(root, "table.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
