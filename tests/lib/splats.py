#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""splats.py CONSOLE...: find kernel splats in guest consoles.

A splat is anything a debug kernel prints when it caught a bug: a KASAN
report, a lockdep or RCU warning, a "BUG:" or "WARNING:" line, a sleep in
atomic context, a debugobjects or list-debug report, an Oops, a kmemleak
report, or page_pool's stalled shutdown (pages never returned).  Each one is
printed with the lines that follow it, up to its end-of-trace marker, a
blank line or the next splat (40 lines at most).

A few splats are mainline's, not rx-reserve's, and are listed in KNOWN with
what shows it: each must match its own patterns over its whole report, and
no rx-reserve function may appear in that report.  Those that only count
before /init never apply to a KUnit boot (kunit.enable=1 on the command
line), which runs rx-reserve's suites before /init.  They are printed as
"known splat", with the reason, and do not count.  Exit 0 when there is no
other splat, 1 when there is one, 2 on a usage error or an unreadable
console.
"""

import re
import sys

SPLAT = re.compile(
    r"(BUG: |WARNING: |Oops|general protection fault|Kernel panic"
    r"|UBSAN:|ODEBUG:|list_(add|del) corruption"
    r"|unreferenced object 0x|kmemleak: (\d+ new suspected|.*disabled)"
    r"|possible (circular|recursive) locking|inconsistent lock state"
    r"|suspicious RCU usage|sleeping function called from invalid context"
    r"|scheduling while atomic|stalled pool shutdown"
    r"|rcu: INFO: .*detected stalls)")
# The console's timestamp, "[   12.345678] ".
STAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
END = re.compile(r"---\[ end trace|^\s*$")
MAX_LINES = 40

# rx-reserve's own code: a report that names any of it is never "known".
OURS = re.compile(r"rxr_|rx_reserve|nsim_rxr|vnet_rxr|e1000e_rxr|ixgbe_rxr")
INIT = re.compile(r"Run /init as init process")
# A KUnit boot runs rx-reserve's suites before /init: nothing there is
# known to be mainline's alone.
KUNIT = re.compile(r"Kernel command line:.*\bkunit\.enable=1\b")
# How far a report may run, for matching: to its last backtrace's end.
REPORT_LINES = 400

# (name, head, patterns the whole report must contain, only before init,
# why it is not ours)
KNOWN = [
    ("block-freeze-lockdep",
     re.compile(r"possible circular locking dependency"),
     [r"is trying to acquire lock:",
      r"\(work_completion\)\(&\(&wb->dwork\)->work\)",
      r"but task is already holding lock:",
      r"q_usage_counter\(queue\).*at: sd_remove",
      r"__nbd_set_size", r"bdi_unregister"],
     False,
     "6.12.y's lockdep maps of block queue freezing (q_usage_counter): "
     "a cycle across two disks' queues, nbd's (limits_lock taken inside a "
     "freeze) and the iSCSI disk's (writeback flushed at removal), whose "
     "locks share lock classes; block, nbd and SCSI frames only"),
    ("boot-stall",
     re.compile(r"soft lockup|rcu: INFO: .*detected stalls"),
     [r"\bacpi_\w+\+0x|\b(stop_machine|multi_cpu_stop)\w*\+0x"], True,
     "a vCPU stalled over 20 s before /init ran, before any test (ACPI, "
     "stop_machine): the debug kernel under TCG"),
]


def splats(lines):
    """Yield each splat as a list of lines, timestamps removed."""
    i = 0
    while i < len(lines):
        line = STAMP.sub("", lines[i].rstrip("\r\n"))
        if not SPLAT.search(line):
            i += 1
            continue
        block = [line]
        i += 1
        while i < len(lines) and len(block) < MAX_LINES:
            nxt = STAMP.sub("", lines[i].rstrip("\r\n"))
            # kmemleak's report is blocks separated by blank lines; the
            # next splat, or the guest init's own lines, end one too.
            if (END.search(nxt) and not nxt.startswith("---[ end trace")) \
                    or SPLAT.search(nxt) or nxt.startswith("rxr: "):
                break
            block.append(nxt)
            i += 1
            if nxt.startswith("---[ end trace"):
                break
        yield block


def report(lines, start):
    """The whole report that starts at lines[start], timestamps removed:
    up to its end-of-trace marker, the end of the backtrace that follows
    "stack backtrace:" (lockdep) or of the first one, or the next splat."""
    out = []
    lockdep = False
    for i in range(start, min(len(lines), start + REPORT_LINES)):
        line = STAMP.sub("", lines[i].rstrip("\r\n"))
        if i > start and SPLAT.search(line):
            break
        out.append(line)
        if line.startswith("stack backtrace:"):
            lockdep = True
        if line.startswith("---[ end trace"):
            break
        if line.strip() == "</TASK>" and \
                (lockdep or "possible circular" not in out[0]):
            break
    return out


def known(lines, start, init, kunit=False):
    """The KNOWN entry the splat at lines[start] is, or None.  init: the
    index of /init's line, or None; kunit: a KUnit boot, where no
    before-init entry applies."""
    text = report(lines, start)
    if any(OURS.search(line) for line in text):
        return None
    joined = "\n".join(text)
    for entry in KNOWN:
        name, head, needs, before_init, why = entry
        if not head.search(text[0]):
            continue
        if before_init and (kunit or init is None or start > init):
            continue
        if all(re.search(n, joined) for n in needs):
            return entry
    return None


def heads(lines):
    """Yield the index of each splat's first line in lines."""
    for i, line in enumerate(lines):
        if SPLAT.search(STAMP.sub("", line.rstrip("\r\n"))):
            yield i


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    found = 0
    for path in argv[1:]:
        try:
            with open(path, errors="replace") as f:
                lines = f.readlines()
        except OSError as e:
            print(f"splats: {e}", file=sys.stderr)
            return 2
        init = next((i for i, line in enumerate(lines)
                     if INIT.search(line)), None)
        kunit = any(KUNIT.search(line) for line in lines[:200])
        for start, block in zip(heads(lines), splats(lines)):
            entry = known(lines, start, init, kunit)
            if entry:
                print(f"{path}: known splat ({entry[0]}): {entry[4]}:")
            else:
                found += 1
                print(f"{path}: splat {found}:")
            for line in block:
                print(f"  {line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
