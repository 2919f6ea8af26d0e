# SPDX-License-Identifier: GPL-2.0
"""Tests of `make bench`'s own parts: memload (the guests' load), report.py
(the generated table and targets) and bench.sh's input checks."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
MEMLOAD = os.path.join(BUILD, "bin", "memload")
REPORT = os.path.join(TOP, "tests", "bench", "report.py")
BENCH = os.path.join(TOP, "tests", "bench", "bench.sh")


def children(pid, n):
    """The pids of pid's children, once there are n of them (5 s at most)."""
    kids = []
    for _ in range(50):
        kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                              text=True).stdout.split()
        if len(kids) >= n:
            break
        time.sleep(0.1)
    return [int(k) for k in kids]


@unittest.skipUnless(os.access(MEMLOAD, os.X_OK), "no build/bin/memload")
class Memload(unittest.TestCase):
    def run_ml(self, *args, timeout=60):
        return subprocess.run([MEMLOAD] + list(args), capture_output=True,
                              text=True, timeout=timeout)

    def test_done_and_progress(self):
        r = self.run_ml("-p", "3", "-m", "8", "-i", "50")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^START procs=3 mib=8 passes=2 "
                         r"total_mib=48 pswpout=\d+ pswpin=\d+$")
        t = [l.split() for l in lines if l.startswith("T ")]
        self.assertTrue(t, r.stdout)
        self.assertTrue(all(len(w) == 6 for w in t))
        # All 3 x 8 MiB written and read back: 48 MiB done of 48.
        self.assertEqual(t[-1][2:4], ["48", "48"])
        self.assertRegex(lines[-1], r"^DONE [0-9.]+ ok=3 corrupt=0 killed=0$")

    def test_usage_errors(self):
        for args in (["-p", "0", "-m", "1"], ["-p", "1", "-m", "x"],
                     ["-p", "65", "-m", "1"], ["-p", "1"],
                     ["-p", "1", "-m", "1", "extra"], ["-q"]):
            r = self.run_ml(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("usage:", r.stderr, args)

    def signal_children(self, sig, procs, *args):
        """Run an endless memload, send its children sig, return
        (exit code, output)."""
        p = subprocess.Popen([MEMLOAD, "-p", str(procs), "-m", "4", "-P",
                              "100000000", "-i", "100"] + list(args),
                             stdout=subprocess.PIPE, text=True)
        try:
            self.assertTrue(p.stdout.readline().startswith("START"))
            kids = children(p.pid, procs)
            self.assertEqual(len(kids), procs)
            for k in kids:
                os.kill(k, sig)
            out, _ = p.communicate(timeout=30)
        finally:
            p.kill()
            p.wait()
        return p.returncode, out

    def test_hang(self):
        # A process that stops making progress, with no swap moving: a hang.
        rc, out = self.signal_children(signal.SIGSTOP, 1, "-H", "2")
        self.assertEqual(rc, 3)
        self.assertRegex(out.splitlines()[-1],
                         r"^HANG [0-9.]+ no progress for 2 s$")

    def test_limit(self):
        r = self.run_ml("-p", "1", "-m", "4", "-P", "100000000", "-i", "100",
                        "-T", "1")
        self.assertEqual(r.returncode, 4)
        self.assertRegex(r.stdout.splitlines()[-1], r"^LIMIT [0-9.]+ ")

    def test_killed(self):
        # A load process killed by a signal (as by the OOM killer) counts.
        rc, out = self.signal_children(signal.SIGKILL, 2, "-T", "5")
        self.assertEqual(rc, 1)
        self.assertRegex(out.splitlines()[-1], r"ok=0 corrupt=0 killed=2$")


def cell(root, name, info, secs, end="DONE", extra="", console="",
         swap_pages=25600, rss="ebpf", counters=True):
    """A bench cell; with counters, the guest's DELTA lines show the flood
    arriving (UDP to the closed port) and a patched guest's /proc line."""
    if counters:
        extra = "DELTA net.Udp.NoPorts 1000\n" + extra
        if "kernel=patched" in info and "PROC " not in extra:
            extra += "\nPROC dev eth0 attached 1 reserve_queue 4 slots 32"
    d = os.path.join(root, "cells", name)
    os.makedirs(d)
    with open(os.path.join(d, "cell.info"), "w") as f:
        f.write(info + "\n")
    if rss:
        with open(os.path.join(d, "rss"), "w") as f:
            f.write(rss + "\n")
    lines = ["RESULT ctl_write_ms=500 ctl_read_ms=250 rate=-1",
             "START procs=4 mib=192 passes=2 total_mib=1536 pswpout=0 "
             "pswpin=0"]
    for i in range(1, int(secs) + 1):
        lines.append("T %d.0 %d 1536 %d 0" % (i, min(1536, i * 10),
                                               swap_pages * i // int(secs)))
    if end == "DONE":
        lines.append("DONE %.1f ok=4 corrupt=0 killed=0" % secs)
        lines.append("RESULT load=done")
    elif end == "FAILED":
        lines.append("DONE %.1f ok=1 corrupt=0 killed=3" % secs)
    else:
        lines.append("%s %.1f no progress for 120 s" % (end, secs))
        lines.append("RESULT load=%s" % end.lower())
    lines += extra.splitlines()
    with open(os.path.join(d, "output.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(d, "console.log"), "w") as f:
        f.write(console)


class Report(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        with open(os.path.join(self.root, "params"), "w") as f:
            f.write("nics=virtio-mq\nstorage=nbd iscsi\n"
                    "kernels=vanilla patched\nfloods=none carried unpaced\n"
                    "runs=1\nmem=256 smp=2 procs=4 mib=192 hang=120\n"
                    "qemu=QEMU emulator version 10.0.2 (Debian x)\n")
        base = "nic=virtio-mq storage=%s kernel=%s flood=%s rate=%s run=1"
        cell(self.root, "vanilla-none", base % ("nbd", "vanilla", "none",
                                                "-1"), 100)
        cell(self.root, "vanilla-carried", base % ("nbd", "vanilla",
                                                   "carried", "50000"), 200,
             extra="DELTA net.Tcp.RetransSegs 7\n"
                   "DELTA vm.pgscan_direct_throttle 137\n"
                   "DELTA cpu.softirq 150\n"
                   "DELTA cpu.total 400")
        cell(self.root, "patched-none", base % ("nbd", "patched", "none",
                                                "-1"), 50)
        cell(self.root, "patched-carried", base % ("nbd", "patched",
                                                   "carried", "50000"), 55,
             extra="DELTA eth.rx_reserve_steered 900\n"
                   "DELTA eth.rx_reserve_recycled 5000\n"
                   "DELTA eth.rx4_rxr_packets 6000\n"
                   "DELTA eth.rx4_rxr_priority 1000\n"
                   "DELTA eth.rx4_rxr_recycled 5000\n"
                   "PROC dev eth0 attached 1 reserve_queue 4 slots 32")
        cell(self.root, "vanilla-unpaced", base % ("nbd", "vanilla",
                                                   "unpaced", "0"), 150,
             end="HANG", swap_pages=2560)
        cell(self.root, "patched-unpaced", base % ("nbd", "patched",
                                                   "unpaced", "0"), 100,
             swap_pages=25600)
        cell(self.root, "vanilla-iscsi", base % ("iscsi", "vanilla", "none",
                                                 "-1"), 139, end="FAILED",
             console="[ 1.0] Read-error on swap-device (8:0:1)\n"
                     "[ 1.1] I/O error, dev sda, sector 8\n"
                     "[ 1.2] Kernel panic - not syncing: Attempted to kill "
                     "init!\n")
        # iSCSI: patched's control under the flood 2.13x its no-flood one.
        cell(self.root, "patched-iscsi-none", base % ("iscsi", "patched",
                                                      "none", "-1"), 50)
        cell(self.root, "patched-iscsi-unpaced",
             base % ("iscsi", "patched", "unpaced", "0"), 60,
             extra="RESULT ctl_write_ms=1200 ctl_read_ms=400 rate=0")
        for k, ms in (("vanilla", 1000), ("patched", 1010)):
            d = os.path.join(self.root, "cells", "tput-%s" % k)
            os.makedirs(d)
            with open(os.path.join(d, "cell.info"), "w") as f:
                f.write("nic=virtio-mq kernel=%s run=1 rc=0\n" % k)
            with open(os.path.join(d, "rss"), "w") as f:
                f.write("ebpf\n")
            with open(os.path.join(d, "output.txt"), "w") as f:
                for i in range(3):
                    f.write("RESULT tput_run=%d bytes=67108864 ms=%d ok=1\n"
                            % (i + 1, ms))
        r = subprocess.run([sys.executable, REPORT, self.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.root, "table.md")) as f:
            self.text = f.read()
        self.rows = {tuple(c.strip() for c in l.split("|")[1:5]): l
                     for l in self.text.splitlines()
                     if l.startswith("| virtio-mq")}

    def tearDown(self):
        self.tmp.cleanup()

    def test_times_against_own_no_flood(self):
        row = self.rows[("virtio-mq", "nbd", "vanilla", "carried (50000)")]
        self.assertIn("| 1 done | 200 | 2.00 |", row)
        row = self.rows[("virtio-mq", "nbd", "patched", "carried (50000)")]
        self.assertIn("| 1 done | 55 | 1.10 |", row)

    def test_softirq_share(self):
        # 150 of 400 ticks; a cell without the counters shows "-".
        row = self.rows[("virtio-mq", "nbd", "vanilla", "carried (50000)")]
        self.assertIn("| 137 | 0 | 37.5 |", row)
        row = self.rows[("virtio-mq", "nbd", "vanilla", "none (-)")]
        self.assertIn("| 0 | 0 | - |", row)

    def test_targets(self):
        self.assertRegex(self.text, r"carried flood, virtio-mq, nbd: patched "
                         r"all clean, runs x own no-flood median 1.10, "
                         r"PFMemallocDrop 0, throttle 0 \(no flood 0\); "
                         r"vanilla 2.00 .* -> MET\n- ")
        # 100 MiB in 100 s against 10 MiB in 150 s.
        self.assertRegex(self.text, r"swap-out under it, virtio-mq, nbd: "
                         r"patched 1.00 MiB/s \(1 done\), vanilla 0.07 MiB/s "
                         r"\(1 hang\): x15.00")
        # The overwhelming flood: patched's control within 2x of its own
        # no-flood control and its load done; iSCSI has no unpaced cell,
        # and missing data is NOT MET, never a line that disappears.
        self.assertRegex(self.text, r"overwhelming flood \(unpaced\), "
                         r"virtio-mq, nbd: patched control x own no-flood "
                         r"1.00, load 1 done; vanilla control x own "
                         r"no-flood 1.00, load 1 hang -> MET")
        self.assertRegex(self.text, r"overwhelming flood \(unpaced\), "
                         r"virtio-mq, iscsi: patched control x own no-flood "
                         r"2.13, load 1 done; vanilla control x own no-flood "
                         r"no cells, load - -> NOT MET")

    def report(self):
        r = subprocess.run([sys.executable, REPORT, self.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def replace_cell(self, name, info, secs, **kw):
        shutil.rmtree(os.path.join(self.root, "cells", name))
        cell(self.root, name, info, secs, **kw)

    CARRIED = "nic=virtio-mq storage=nbd kernel=patched flood=carried " \
        "rate=50000 run=1"
    UNPACED = "nic=virtio-mq storage=nbd kernel=patched flood=unpaced " \
        "rate=0 run=1"

    def test_not_met_carried_ratio(self):
        # 1.3x its no-flood time: over the carried target's 1.2x.
        self.replace_cell("patched-carried", self.CARRIED, 65)
        self.assertRegex(self.report(), r"carried flood, virtio-mq, nbd: "
                         r"patched all clean, runs x own no-flood median "
                         r"1.30, .* -> NOT MET")

    def test_not_met_carried_pfmemalloc(self):
        # In time, but frames went to mainline's reserve and were dropped.
        self.replace_cell("patched-carried", self.CARRIED, 55,
                          extra="DELTA net.TcpExt.PFMemallocDrop 4")
        self.assertRegex(self.report(), r"carried flood, virtio-mq, nbd: "
                         r"patched all clean, runs x own no-flood median "
                         r"1.10, PFMemallocDrop 4, .* -> NOT MET\n  - where "
                         r"the time went, .*PFMemallocDrop 4, .*held back "
                         r"by: PFMemallocDrop\n")

    def test_not_met_carried_throttle(self):
        # In time, but direct reclaim throttled more than without flood.
        self.replace_cell("patched-carried", self.CARRIED, 55,
                          extra="DELTA vm.pgscan_direct_throttle 12")
        self.assertRegex(self.report(), r"carried flood, virtio-mq, nbd: "
                         r"patched all clean, runs x own no-flood median "
                         r"1.10, PFMemallocDrop 0, throttle 12 \(no flood "
                         r"0\);.* -> NOT MET\n  - .*held back by: "
                         r"pgscan_direct_throttle\n")

    def test_not_met_carried_softirq(self):
        # 1.3x, with the guest's softirq share 10 -> 30 %: CPU.
        self.replace_cell("patched-none", "nic=virtio-mq storage=nbd "
                          "kernel=patched flood=none rate=-1 run=1", 50,
                          extra="DELTA cpu.softirq 10\nDELTA cpu.total 100\n"
                                "DELTA vm.allocstall_normal 100")
        self.replace_cell("patched-carried", self.CARRIED, 65,
                          extra="DELTA cpu.softirq 30\nDELTA cpu.total 100\n"
                                "DELTA vm.allocstall_normal 110")
        self.assertRegex(self.report(), r"median 1.30, .* -> NOT MET\n  - "
                         r"where the time went, flood against no flood: "
                         r"softirq 30.0 % against 10.0 %, PFMemallocDrop 0, "
                         r"throttle 0 against 0, allocstall 110 against 100; "
                         r"held back by: softirq\n")

    def test_attribution_host(self):
        # The peer's stats: QEMU's main thread 40 % of the host against
        # 10 %, and what the tap handed to QEMU and dropped.
        self.replace_cell("patched-none", "nic=virtio-mq storage=nbd "
                          "kernel=patched flood=none rate=-1 run=1", 50,
                          extra="DELTA host.qemu_main 100\n"
                                "DELTA host.host_all 1000\n"
                                "DELTA host.tx 5000")
        self.replace_cell("patched-carried", self.CARRIED, 65,
                          extra="DELTA host.qemu_main 800\n"
                                "DELTA host.host_all 2000\n"
                                "DELTA host.tx 900000\nDELTA host.drop 70")
        self.assertRegex(self.report(), r"median 1.30, .* -> NOT MET\n  - "
                         r"where the time went, .*; held back by: none of "
                         r"the four \(unattributed\); host: QEMU's main "
                         r"thread 40.0 % of the host's CPU time against "
                         r"10.0 %, tap 900000 frames to QEMU, 70 dropped\n")

    def test_tput_where(self):
        # cell.sh's rxq= and softirq_pct= per transfer, listed per kernel.
        d = os.path.join(self.root, "cells", "tput-patched", "output.txt")
        with open(d, "w") as f:
            for i, q in ((1, 0), (2, 2), (3, 1)):
                f.write("RESULT tput_run=%d bytes=67108864 ms=1000 ok=1 "
                        "rxq=%d softirq_pct=%d.0\n" % (i, q, 10 * i))
        self.assertRegex(self.report(), r"x1.000 -> MET\n  - each transfer "
                         r"\(MB/s, the RX queue that received most, the "
                         r"guest's softirq share\): patched 67.1 q0 10.0%, "
                         r"67.1 q2 20.0%, 67.1 q1 30.0%; vanilla -\n")

    def test_not_met_carried_hang(self):
        self.replace_cell("patched-carried", self.CARRIED, 150, end="HANG")
        self.assertRegex(self.report(), r"carried flood, virtio-mq, nbd: "
                         r"patched NOT clean \(1 hang\).* -> NOT MET")

    def test_not_met_flood_error(self):
        # cell.sh's error=flood: the flood never started.
        self.replace_cell("patched-carried", self.CARRIED, 55,
                          extra="RESULT error=flood")
        self.assertRegex(self.report(), r"carried flood, virtio-mq, nbd: "
                         r"patched NOT clean \(1 done\) \(patched-carried: "
                         r"error=flood\).* -> NOT MET")
        self.replace_cell("patched-unpaced", self.UNPACED, 100,
                          extra="RESULT error=flood")
        self.assertRegex(self.report(), r"overwhelming flood \(unpaced\), "
                         r"virtio-mq, nbd: patched .*\(patched-unpaced: "
                         r"error=flood\).* -> NOT MET")

    def test_not_met_flood_not_seen(self):
        # Counters, but no datagram of the flood reached the guest's UDP.
        self.replace_cell("patched-unpaced", self.UNPACED, 100,
                          counters=False,
                          extra="DELTA net.Tcp.InSegs 5000\n"
                                "PROC dev eth0 attached 1 reserve_queue 4")
        self.assertRegex(self.report(), r"virtio-mq, nbd: patched .*"
                         r"\(patched-unpaced: flood not seen\).* -> NOT MET")

    def test_not_met_without_counters(self):
        # A cell with no counters at all: nothing shows the flood or the
        # reserve pages.
        self.replace_cell("patched-unpaced", self.UNPACED, 100,
                          counters=False)
        out = self.report()
        self.assertRegex(out, r"virtio-mq, nbd: patched .*\(patched-unpaced: "
                         r"no counters\).* -> NOT MET")
        self.assertRegex(out, r"non-priority frames up in a reserve page, .*"
                         r"no counters from patched-unpaced -> NOT MET")

    def test_not_met_nonprio_frame(self):
        # One non-priority frame went up in a lent page.
        self.replace_cell("patched-unpaced", self.UNPACED, 100,
                          extra="DELTA eth.rx0_rxr_lent_other 1")
        self.assertRegex(self.report(), r"non-priority frames up in a "
                         r"reserve page, .*: 1 -> NOT MET")

    def test_not_met_pool_up_other(self):
        # The core counted a pool page that went up with another's frame.
        self.replace_cell("patched-unpaced", self.UNPACED, 100,
                          extra="DELTA eth.rx_reserve_pool_up_other 2")
        self.assertRegex(self.report(), r"non-priority frames up in a "
                         r"reserve page, .*: 2 -> NOT MET")

    def test_not_met_no_steered_flow(self):
        self.replace_cell("patched-carried", self.CARRIED, 55)
        self.assertRegex(self.report(), r"non-priority frames up in a "
                         r"reserve page, patched cells \(5, 0 with a steered "
                         r"flow, 0 steered frames\): 0; no cell steered a "
                         r"flow -> NOT MET")

    def write_tput(self, kernel, ms):
        d = os.path.join(self.root, "cells", "tput-%s" % kernel)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        with open(os.path.join(d, "cell.info"), "w") as f:
            f.write("nic=virtio-mq kernel=%s run=1 rc=0\n" % kernel)
        with open(os.path.join(d, "output.txt"), "w") as f:
            for i in range(3):
                f.write("RESULT tput_run=%d bytes=67108864 ms=%s ok=%d\n"
                        % (i + 1, ms, 1 if ms else 0))

    def test_not_met_tput(self):
        # 0.9x of vanilla's throughput.
        self.write_tput("patched", 1111)
        self.assertRegex(self.report(), r"non-priority TCP stream .*"
                         r"x0.900 -> NOT MET")
        # No complete transfer on patched: missing data.
        self.write_tput("patched", 0)
        self.assertRegex(self.report(), r"non-priority TCP stream with a "
                         r"priority flow armed, virtio-mq: no complete "
                         r"transfer on patched -> NOT MET")

    def test_not_met_classify_failed(self):
        d = os.path.join(self.root, "cells", "classify")
        os.makedirs(d)
        with open(os.path.join(d, "output.txt"), "w") as f:
            f.write("")
        self.assertIn("rxr_test_classify_scale): no result -> NOT flat",
                      self.report())

    def test_not_met_calibration_failed(self):
        with open(os.path.join(self.root, "params"), "a") as f:
            f.write("carried_virtio=none\ncarried_virtio-mq=50000\n")
        self.assertIn("- carried flood, virtio: no carried rate (vanilla's "
                      "control was over 2x at every rate of the "
                      "calibration), no cells -> NOT MET", self.report())

    def test_demo_outcome(self):
        # The demo says what became of the load, not memload's last word:
        # a load whose processes were killed is FAILED.
        shutil.rmtree(os.path.join(self.root, "cells"))
        base = "nic=virtio-mq storage=nbd kernel=%s flood=unpaced rate=0 " \
            "run=1"
        cell(self.root, "patched-unpaced", base % "patched", 100)
        cell(self.root, "vanilla-unpaced", base % "vanilla", 139,
             end="FAILED",
             console="[ 1.0] Read-error on swap-device (43:0:8)\n")
        r = subprocess.run([sys.executable, REPORT, "--demo", self.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"patched  virtio-mq, swap on nbd, flood "
                         r"unpaced: DONE after 100 s; ")
        self.assertRegex(r.stdout, r"vanilla  virtio-mq, swap on nbd, flood "
                         r"unpaced: FAILED after 139 s \(3 processes killed, "
                         r"1 I/O error lines\); ")

    def test_rss_summary(self):
        self.assertIn("QEMU: QEMU emulator version 10.0.2 (Debian x).  "
                      "virtio-mq: 4 queue pairs on a 4-queue tap, rss=on "
                      "for both kernels; eBPF RSS in 11 of 11 "
                      "virtio-mq guests.", self.text)

    def test_flood_sched(self):
        self.assertNotIn("SCHED_IDLE", self.text)
        with open(os.path.join(self.root, "params"), "a") as f:
            f.write("flood_sched=idle\n")
        r = subprocess.run([sys.executable, REPORT, self.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("virtio-mq guests.  Flood senders SCHED_IDLE on the "
                      "host.", r.stdout)

    def test_overwhelming_on_software_rss(self):
        # A patched guest that got QEMU's software RSS: not the testbed.
        shutil.rmtree(os.path.join(self.root, "cells"))
        base = "nic=virtio-mq storage=nbd kernel=patched flood=%s " \
            "rate=%s run=1"
        cell(self.root, "patched-none", base % ("none", "-1"), 50)
        cell(self.root, "patched-unpaced", base % ("unpaced", "0"), 50,
             rss="software")
        r = subprocess.run([sys.executable, REPORT, self.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("eBPF RSS in 1 of 2 virtio-mq guests (not: "
                      "patched-unpaced software)", r.stdout)
        self.assertRegex(r.stdout, r"virtio-mq, nbd: patched control x own "
                         r"no-flood 1.00, load 1 done \(RSS not eBPF in "
                         r"1\);.* -> NOT MET")

    def test_overwhelming_rss_unknown(self):
        # A guest stopped before qemu-run.sh recorded its RSS: unknown.
        # Vanilla's does not decide patched's verdict; patched's does.
        shutil.rmtree(os.path.join(self.root, "cells"))
        base = "nic=virtio-mq storage=nbd kernel=%s flood=%s rate=%s run=1"
        for k in ("patched", "vanilla"):
            cell(self.root, k + "-none", base % (k, "none", "-1"), 50)
        cell(self.root, "patched-unpaced", base % ("patched", "unpaced", "0"),
             50)
        cell(self.root, "vanilla-unpaced", base % ("vanilla", "unpaced", "0"),
             50, end="HANG", rss="")
        r = subprocess.run([sys.executable, REPORT, self.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"virtio-mq, nbd: patched control x own "
                         r"no-flood 1.00, load 1 done; vanilla .*\(RSS "
                         r"unknown in 1\) -> MET")
        with open(os.path.join(self.root, "cells", "patched-unpaced",
                               "rss"), "w") as f:
            f.write("")
        r = subprocess.run([sys.executable, REPORT, self.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"virtio-mq, nbd: patched control x own "
                         r"no-flood 1.00, load 1 done \(RSS unknown in "
                         r"1\);.* -> NOT MET")

    def test_overwhelming_without_cells(self):
        # Only no-flood cells: the target still prints, NOT MET.
        shutil.rmtree(os.path.join(self.root, "cells"))
        cell(self.root, "patched-none", "nic=virtio-mq storage=nbd "
             "kernel=patched flood=none rate=-1 run=1", 50)
        r = subprocess.run([sys.executable, REPORT, self.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"overwhelming flood \(unpaced\), "
                         r"virtio-mq, nbd: patched control x own no-flood "
                         r"no cells, load -; .* -> NOT MET")
        self.assertRegex(self.text, r"reserve page, patched cells \(5, 1 "
                         r"with a steered flow, 900 steered frames\): 0 -> "
                         r"MET")
        self.assertRegex(self.text, r"x0.990 -> MET")

    def test_failed_cell_from_console(self):
        row = self.rows[("virtio-mq", "iscsi", "vanilla", "none (-)")]
        self.assertIn("| 1 failed+panic | failed@139 |", row)
        # hung, OOM, I/O error lines
        self.assertIn("| 0 | 0 | 2 |", row)

    def test_plot_series(self):
        with open(os.path.join(self.root, "series",
                               "patched-carried.csv")) as f:
            rows = [l.split() for l in f if not l.startswith("#")]
        self.assertEqual(len(rows), 55)
        # From the load's start (START's pswpout=0): 25600 pages, 100 MiB.
        self.assertEqual(rows[-1][2], "100.0")


class BenchArgs(unittest.TestCase):
    def bench(self, **env):
        e = dict(os.environ, BUILD=BUILD, **env)
        return subprocess.run(["bash", BENCH], capture_output=True, text=True,
                              env=e, timeout=60)

    def test_bad_knobs(self):
        for env, msg in (({"BENCH_NICS": "rtl8139"}, "bad NIC rtl8139"),
                         ({"BENCH_STORAGE": "nfs"}, "bad storage nfs"),
                         ({"BENCH_FLOODS": "heavy"}, "bad flood heavy"),
                         ({"BENCH_KERNELS": "6.1"}, "bad kernel 6.1"),
                         ({"BENCH_RUNS": "x"}, "BENCH_RUNS wants a number"),
                         ({"BENCH_RUNS": "0"}, "at least 1"),
                         ({"BENCH_RATES": "fast"}, "bad rate fast"),
                         ({"BENCH_FLOOD_SCHED": "fifo"},
                          "BENCH_FLOOD_SCHED wants other or idle")):
            r = self.bench(**env)
            self.assertEqual(r.returncode, 2, env)
            self.assertIn(msg, r.stderr, env)


if __name__ == "__main__":
    unittest.main()
