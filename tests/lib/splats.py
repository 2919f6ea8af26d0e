#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""splats.py CONSOLE...: find kernel splats in guest consoles.

A splat is anything a debug kernel prints when it caught a bug: a KASAN
report, a lockdep or RCU warning, a "BUG:" or "WARNING:" line, a sleep in
atomic context, a debugobjects or list-debug report, an Oops, a kmemleak
report, or page_pool's stalled shutdown (pages never returned).  Each one is
printed with the lines that follow it, up to its end-of-trace marker, a
blank line or the next splat (40 lines at most).  Exit 0 when there is none, 1 when there is one, 2 on a
usage error or an unreadable console.
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
        for block in splats(lines):
            found += 1
            print(f"{path}: splat {found}:")
            for line in block:
                print(f"  {line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
