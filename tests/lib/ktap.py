#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read test results out of guest logs for tests/run.sh.

    ktap.py kunit CONSOLE_LOG   KUnit cases from a kernel console log
    ktap.py tap OUTPUT_LOG      top-level results of a TAP stream

Each result is printed as one line, "RESULT<TAB>NAME<TAB>NOTE", where RESULT
is pass, fail or skip.  A plan ("1..N") with fewer results than announced
adds one fail line per missing result, so a guest that died mid-run never
reads as a pass.  Exit code 0 when the log held a plan, 1 otherwise.
"""

import re
import sys

_TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
_RESULT = re.compile(r'^(ok|not ok) (\d+)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
_PLAN = re.compile(r'^1\.\.(\d+)(?:\s*#\s*(SKIP.*))?')
_SUBTEST = re.compile(r'^# Subtest: (\S+)')


class Result:
    """One test's outcome."""

    def __init__(self, name, ok, directive):
        self.name = name
        directive = (directive or '').strip()
        if directive.upper().startswith('SKIP'):
            self.result = 'skip'
            self.note = directive[4:].strip() or 'skipped'
        else:
            self.result = 'pass' if ok else 'fail'
            self.note = directive

    def line(self):
        return f'{self.result}\t{self.name}\t{self.note}'


def _split_indent(line):
    stripped = line.lstrip(' ')
    return (len(line) - len(stripped)) // 4, stripped


def _result(text):
    m = _RESULT.match(text)
    if not m:
        return None
    return m.group(1) == 'ok', int(m.group(2)), m.group(3), m.group(4)


def parse_kunit(lines):
    """KUnit cases as "suite.case" results, from console lines."""
    results, suite, cases, plan, seen = [], None, [], None, 0
    for raw in lines:
        line = _TIMESTAMP.sub('', raw.rstrip('\r\n'))
        depth, text = _split_indent(line)
        if depth == 0:
            m = _PLAN.match(text)
            if m and plan is None:
                plan = int(m.group(1))
                continue
            r = _result(text)
            if r is None or plan is None:
                continue
            ok, _, name, directive = r
            seen += 1
            if cases:
                results.extend(cases)
            else:
                results.append(Result(name, ok, directive))
            suite, cases = None, []
        elif depth == 1:
            m = _SUBTEST.match(text)
            if m:
                suite, cases = m.group(1), []
                continue
            r = _result(text)
            if r and suite:
                ok, _, name, directive = r
                cases.append(Result(f'{suite}.{name}', ok, directive))
    if plan is None:
        return results, False
    if suite and cases:
        results.extend(cases)
    for i in range(seen, plan):
        results.append(Result(f'suite {i + 1} of {plan}', False,
                              'no result: the guest stopped first'))
    return results, True


def parse_tap(lines):
    """Top-level TAP results, from a TAP stream."""
    results, plan = [], None
    for raw in lines:
        line = raw.rstrip('\r\n')
        if plan is None:
            m = _PLAN.match(line)
            if m:
                plan = int(m.group(1))
                if plan == 0 and m.group(2):
                    results.append(Result('all', True, m.group(2)))
                continue
        r = _result(line)
        if r:
            ok, _, name, directive = r
            results.append(Result(name, ok, directive))
    if plan is None:
        return results, False
    for i in range(len(results), plan):
        results.append(Result(f'test {i + 1} of {plan}', False,
                              'no result: the guest stopped first'))
    return results, True


def main(argv):
    if len(argv) != 3 or argv[1] not in ('kunit', 'tap'):
        sys.stderr.write(__doc__)
        return 2
    with open(argv[2], encoding='utf-8', errors='replace') as f:
        lines = f.readlines()
    parse = parse_kunit if argv[1] == 'kunit' else parse_tap
    results, planned = parse(lines)
    for r in results:
        print(r.line())
    return 0 if planned else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
