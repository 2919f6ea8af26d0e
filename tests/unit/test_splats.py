# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tests/lib/splats.py, the debug run's splat finder."""

import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))
import splats  # noqa: E402

CLEAN = """\
[    0.100000] kmemleak: Kernel memory leak detector initialized (mem pool free: 15000)
[    0.200000] kasan: KernelAddressSanitizer initialized
[    0.300000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
[    1.000000] e1000e 0000:00:02.0 eth0: NIC Link is Up
[    2.000000] FAULT_INJECTION: forcing a failure.
rxr: kmemleak report:
rxr: kmemleak report done
"""

DIRTY = """\
[    1.000000] ok
[    2.000000] ==================================================================
[    2.000001] BUG: KASAN: slab-use-after-free in rxr_flow_put+0x12/0x40
[    2.000002] Read of size 4 at addr ffff888003c1e000 by task swapper/0
[    2.000003] Call Trace:
[    2.000004]  <IRQ>
[    2.000005]
[    3.000000] ======================================================
[    3.000001] WARNING: possible circular locking dependency detected
[    3.000002] 6.12.118 #1 Not tainted
[    3.000003] ------------------------------------------------------
[    3.000004] ---[ end trace 0000000000000000 ]---
[    3.000005] net: after the trace
[    4.000000] BUG: sleeping function called from invalid context at mm/slub.c:4119
[    5.000000] ODEBUG: free active (active state 0) object: 00000000 object type: timer_list
rxr: kmemleak report:
unreferenced object 0xffff888004a3c000 (size 64):
  comm "rxr_sock", pid 120, jiffies 4294893000
  backtrace (crc 0):
    rxr_flow_register+0x30/0x200

[    6.000000] page_pool_release_retry() stalled pool shutdown: id 3, 2 inflight 60 sec
"""

# The block layer's lockdep report seen on the debug kernel's virtio-net
# guests (nbd_rw.sh, then iscsi_rw.sh), cut down; FRAME is the last frame
# of the first chain link, for the test that puts rx-reserve's code there.
BLOCK_LOCKDEP = """\
[  129.019930] iscsi_rw.sh (194): drop_caches: 3
[  137.239189]
[  137.239655] ======================================================
[  137.239936] WARNING: possible circular locking dependency detected
[  137.240476] 6.12.118+ #8 Tainted: G             L
[  137.240733] ------------------------------------------------------
[  137.240963] kworker/u9:0/26 is trying to acquire lock:
[  137.241286] ffff8880051aa3e0 ((work_completion)(&(&wb->dwork)->work)){+.+.}-{0:0}, at: __flush_work+0x30b/0x670
[  137.242340]
[  137.242340] but task is already holding lock:
[  137.243015] ffff88800f8d12b0 (&q->q_usage_counter(queue)#3){++++}-{0:0}, at: sd_remove+0x38/0x80
[  137.243553]
[  137.244145] -> #2 (&q->limits_lock){+.+.}-{3:3}:
[  137.249544]        __mutex_lock+0x150/0x13b0
[  137.249853]        __nbd_set_size+0x1c5/0x370
[  137.250050]        FRAME
[  137.257292] -> #0 ((work_completion)(&(&wb->dwork)->work)){+.+.}-{0:0}:
[  137.258289]        bdi_unregister+0x165/0x260
[  137.258536]        del_gendisk+0x4f9/0x560
[  137.268500]
[  137.268500] stack backtrace:
[  137.269636]  <TASK>
[  137.270208]  __flush_work+0x328/0x670
[  137.270482]  bdi_unregister+0x165/0x260
[  137.273819]  </TASK>
[  137.300000] after the report: rxr_sock
"""

BOOT_STALL = """\
[   12.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [swapper/0:1]
[   12.000001] Call Trace:
[   12.000002]  <TASK>
[   12.000003]  acpi_ds_exec_end_op+0x1dc/0x7e0
[   12.000004]  </TASK>
[   30.000000] Run /init as init process
"""


class SplatsTest(unittest.TestCase):
    def blocks(self, text):
        return list(splats.splats(text.splitlines(keepends=True)))

    def test_clean_console(self):
        self.assertEqual(self.blocks(CLEAN), [])

    def test_each_kind_found_once(self):
        b = self.blocks(DIRTY)
        heads = [x[0] for x in b]
        self.assertEqual(len(b), 6, heads)
        self.assertTrue(heads[0].startswith("BUG: KASAN"))
        self.assertTrue(heads[1].startswith("WARNING: possible circular"))
        self.assertTrue(heads[2].startswith("BUG: sleeping function"))
        self.assertTrue(heads[3].startswith("ODEBUG: free active"))
        self.assertTrue(heads[4].startswith("unreferenced object"))
        self.assertIn("stalled pool shutdown", heads[5])

    def test_block_ends_at_trace_end(self):
        b = self.blocks(DIRTY)
        self.assertEqual(b[1][-1], "---[ end trace 0000000000000000 ]---")
        self.assertNotIn("net: after the trace", b[1])
        # The KASAN report runs to its blank line, timestamps removed.
        self.assertEqual(b[0][-1], " <IRQ>")
        self.assertIn("    rxr_flow_register+0x30/0x200", b[4])

    def test_block_bounded(self):
        text = "WARNING: CPU: 0\n" + "x\n" * 100
        b = self.blocks(text)
        self.assertEqual(len(b), 1)
        self.assertEqual(len(b[0]), splats.MAX_LINES)

    def run_main(self, text):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "console.log")
            with open(path, "w") as f:
                f.write(text)
            out = io.StringIO()
            with redirect_stdout(out):
                rc = splats.main(["splats", path])
            return rc, out.getvalue()

    def test_known_block_lockdep(self):
        rc, out = self.run_main(
            BLOCK_LOCKDEP.replace("FRAME", "nbd_start_device+0x518/0x650"))
        self.assertEqual(rc, 0, out)
        self.assertIn("known splat (block-freeze-lockdep)", out)
        self.assertNotIn(": splat ", out)

    def test_known_never_with_our_code(self):
        # rx-reserve's code anywhere in the report makes it ours, but a
        # line after the report does not.
        rc, out = self.run_main(
            BLOCK_LOCKDEP.replace("FRAME", "rxr_pool_create+0x20/0x200"))
        self.assertEqual(rc, 1, out)
        self.assertIn(": splat 1:", out)

    def test_known_needs_every_pattern(self):
        rc, out = self.run_main(
            BLOCK_LOCKDEP.replace("FRAME", "x").replace("sd_remove",
                                                        "sd_probe"))
        self.assertEqual(rc, 1, out)

    def test_boot_stall_only_before_init(self):
        rc, out = self.run_main(BOOT_STALL)
        self.assertEqual(rc, 0, out)
        self.assertIn("known splat (boot-stall)", out)
        late = BOOT_STALL.replace("[   30.000000] Run /init as init process\n",
                                  "")
        rc, out = self.run_main("[    3.000000] Run /init as init process\n"
                                + late)
        self.assertEqual(rc, 1, out)
        # A console without /init's line (a guest that never got there)
        # counts it too.
        rc, out = self.run_main(late)
        self.assertEqual(rc, 1, out)

    def test_boot_stall_needs_its_frames(self):
        # A stall elsewhere than ACPI or stop_machine is not the known one.
        rc, out = self.run_main(BOOT_STALL.replace(
            "acpi_ds_exec_end_op+0x1dc/0x7e0", "virtnet_probe+0x10/0x900"))
        self.assertEqual(rc, 1, out)
        rc, out = self.run_main(BOOT_STALL.replace(
            "acpi_ds_exec_end_op+0x1dc/0x7e0", "multi_cpu_stop+0x10/0x90"))
        self.assertEqual(rc, 0, out)

    def test_boot_stall_never_on_kunit(self):
        # A KUnit boot runs rx-reserve's suites before /init.
        rc, out = self.run_main(
            "[    0.000000] Kernel command line: console=ttyS0 "
            "kunit.enable=1 page_owner=on\n" + BOOT_STALL)
        self.assertEqual(rc, 1, out)
        self.assertIn(": splat 1:", out)

    def test_main_exit_codes(self):
        with tempfile.TemporaryDirectory() as d:
            clean = os.path.join(d, "clean.log")
            dirty = os.path.join(d, "dirty.log")
            with open(clean, "w") as f:
                f.write(CLEAN)
            with open(dirty, "w") as f:
                f.write(DIRTY)
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(splats.main(["splats", clean]), 0)
                self.assertEqual(splats.main(["splats", clean, dirty]), 1)
            self.assertIn("dirty.log: splat 6:", out.getvalue())
            r = subprocess.run([sys.executable, splats.__file__,
                                os.path.join(d, "missing.log")],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertIn("splats:", r.stderr)


if __name__ == "__main__":
    unittest.main()
