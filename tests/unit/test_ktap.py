# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tests/lib/ktap.py, the guest log parser."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))
import ktap  # noqa: E402

KUNIT_LOG = """\
[    0.500000] Run /init as init process
[    1.000000] KTAP version 1
[    1.000001] 1..2
[    1.000002]     KTAP version 1
[    1.000003]     # Subtest: net_core
[    1.000004]     # module: net_test
[    1.000005]     1..3
[    1.000006]     ok 1 case_one
[    1.000007] e1000e: some unrelated driver message
[    1.000008]         KTAP version 1
[    1.000009]         # Subtest: case_param
[    1.000010]         ok 1 first
[    1.000011]         not ok 2 second
[    1.000012]     not ok 2 case_param
[    1.000013]     ok 3 case_skipped # SKIP needs hardware
[    1.000014] # net_core: pass:1 fail:1 skip:1 total:3
[    1.000015] not ok 1 net_core
[    1.000016]     KTAP version 1
[    1.000017]     # Subtest: addr_lists
[    1.000018]     1..1
[    1.000019]     ok 1 test_add
[    1.000020] ok 2 addr_lists
"""


def lines(text):
    return text.splitlines(keepends=True)


class KunitTest(unittest.TestCase):
    def test_cases_are_reported_per_suite(self):
        results, planned = ktap.parse_kunit(lines(KUNIT_LOG))
        self.assertTrue(planned)
        got = [(r.result, r.name) for r in results]
        self.assertEqual(got, [('pass', 'net_core.case_one'),
                               ('fail', 'net_core.case_param'),
                               ('skip', 'net_core.case_skipped'),
                               ('pass', 'addr_lists.test_add')])

    def test_skip_reason_is_kept(self):
        results, _ = ktap.parse_kunit(lines(KUNIT_LOG))
        self.assertEqual(results[2].note, 'needs hardware')

    def test_guest_dying_mid_suite_fails(self):
        cut = KUNIT_LOG[:KUNIT_LOG.index('[    1.000016]')]
        results, planned = ktap.parse_kunit(lines(cut))
        self.assertTrue(planned)
        self.assertEqual(results[-1].result, 'fail')
        self.assertIn('guest stopped', results[-1].note)
        self.assertEqual(len(results), 4)

    def test_no_kunit_output(self):
        results, planned = ktap.parse_kunit(lines('[ 0.1] booting\n'))
        self.assertFalse(planned)
        self.assertEqual(results, [])

    def test_suite_without_cases_reports_the_suite(self):
        log = '[ 1.0] KTAP version 1\n[ 1.0] 1..1\n' \
              '[ 1.1] not ok 1 broken_suite # suite init failed\n'
        results, _ = ktap.parse_kunit(lines(log))
        self.assertEqual([(r.result, r.name) for r in results],
                         [('fail', 'broken_suite')])


class TapTest(unittest.TestCase):
    def test_results_and_directives(self):
        log = ('TAP version 13\n1..4\n# running a\nok 1 a\n'
               'not ok 2 b # exit=1\nok 3 c # SKIP no NIC\n'
               '# ok 9 not a result\nnot ok 4 d # TIMEOUT 30s\n')
        results, planned = ktap.parse_tap(lines(log))
        self.assertTrue(planned)
        self.assertEqual([(r.result, r.name, r.note) for r in results],
                         [('pass', 'a', ''), ('fail', 'b', 'exit=1'),
                          ('skip', 'c', 'no NIC'),
                          ('fail', 'd', 'TIMEOUT 30s')])

    def test_missing_results_fail(self):
        results, _ = ktap.parse_tap(lines('TAP version 13\n1..3\nok 1 a\n'))
        self.assertEqual([r.result for r in results], ['pass', 'fail', 'fail'])

    def test_carriage_returns_from_the_serial_port(self):
        results, _ = ktap.parse_tap(lines('1..1\r\nok 1 a\r\n'))
        self.assertEqual(results[0].line(), 'pass\ta\t')

    def test_skipped_plan(self):
        results, planned = ktap.parse_tap(lines('1..0 # SKIP no kernel\n'))
        self.assertTrue(planned)
        self.assertEqual([(r.result, r.name, r.note) for r in results],
                         [('skip', 'all', 'no kernel')])

    def test_no_plan(self):
        results, planned = ktap.parse_tap(lines('garbage\n'))
        self.assertFalse(planned)


if __name__ == '__main__':
    unittest.main()
