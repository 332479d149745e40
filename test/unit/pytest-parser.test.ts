import { describe, expect, it } from 'vitest';
import { parsePytestLog } from '../../src/languages/index.js';

const LOG = `============================= test session starts ==============================
platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0
rootdir: /testbed, configfile: pytest.ini
collected 6 items

tests/test_a.py ..F.sx                                                   [100%]

=================================== FAILURES ===================================
___________________________________ test_bad ___________________________________
    def test_bad():
        print("PASSED tests/test_a.py::test_bad")
>       assert 1 == 2
E       assert 1 == 2
----------------------------- Captured stdout call -----------------------------
PASSED tests/test_a.py::test_bad
==================================== PASSES ====================================
=========================== short test summary info ============================
PASSED tests/test_a.py::test_one
PASSED tests/test_a.py::test_param[a b-1]
PASSED tests/test_a.py::test_param[x - y]
SKIPPED [1] tests/test_a.py:20: no reason
XFAIL tests/test_a.py::test_xf - reason: known
FAILED tests/test_a.py::test_bad - assert 1 == 2
ERROR tests/test_b.py::test_setup - RuntimeError: boom
========= 1 failed, 3 passed, 1 skipped, 1 xfailed, 1 error in 0.05s ==========
PASSED tests/test_a.py::test_printed_after_summary
`;

describe('parsePytestLog', () => {
  const results = parsePytestLog(LOG);

  it('reads the short test summary', () => {
    expect(results.get('tests/test_a.py::test_one')).toBe('PASSED');
    expect(results.get('tests/test_a.py::test_xf')).toBe('XFAIL');
    expect(results.get('tests/test_b.py::test_setup')).toBe('ERROR');
  });

  it('keeps parametrised ids with spaces and " - " inside brackets whole', () => {
    expect(results.get('tests/test_a.py::test_param[a b-1]')).toBe('PASSED');
    expect(results.get('tests/test_a.py::test_param[x - y]')).toBe('PASSED');
  });

  it('does not take PASSED lines a test printed, before or after the summary', () => {
    expect(results.get('tests/test_a.py::test_bad')).toBe('FAILED');
    expect(results.has('tests/test_a.py::test_printed_after_summary')).toBe(false);
  });

  it('ignores SKIPPED lines that name no test', () => {
    expect([...results.keys()].some((k) => k.startsWith('['))).toBe(false);
    expect(results.size).toBe(6);
  });

  it('strips colour codes', () => {
    const coloured = '\x1b[1m=== short test summary info ===\x1b[0m\n\x1b[32mPASSED\x1b[0m tests/t.py::test_c\n=== 1 passed in 0.01s ===\n';
    expect(parsePytestLog(coloured).get('tests/t.py::test_c')).toBe('PASSED');
  });

  it('falls back to verbose lines when the run was killed before the summary', () => {
    const killed = 'tests/t.py::test_a PASSED                                  [ 50%]\ntests/t.py::test_b FAILED [100%]\n';
    const r = parsePytestLog(killed);
    expect(r.get('tests/t.py::test_a')).toBe('PASSED');
    expect(r.get('tests/t.py::test_b')).toBe('FAILED');
  });
});
