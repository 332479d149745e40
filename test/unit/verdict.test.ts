import { describe, expect, it } from 'vitest';
import type { TestStatus } from '../../src/languages/index.js';
import { decideVerdict } from '../../src/reward/verdict.js';

const map = (entries: Record<string, TestStatus>) => new Map(Object.entries(entries));

describe('decideVerdict', () => {
  it('resolves when every F2P and P2P test passed', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED', b: 'PASSED' }), failToPass: ['a'], passToPass: ['b'], exitCode: 0 });
    expect(v).toMatchObject({ resolved: true, resolution: 'FULL' });
  });

  it('does not count XFAIL or SKIPPED as a passing FAIL_TO_PASS test', () => {
    for (const status of ['XFAIL', 'SKIPPED', 'XPASS'] as const) {
      const v = decideVerdict({ results: map({ a: status }), failToPass: ['a'], passToPass: [], exitCode: 0 });
      expect(v.resolved).toBe(false);
    }
  });

  it('fails a listed test missing from the log', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED' }), failToPass: ['a'], passToPass: ['gone'], exitCode: 0 });
    expect(v.resolved).toBe(false);
    expect(v.passToPass[0]).toEqual({ name: 'gone', status: 'MISSING' });
  });

  it('is PARTIAL when some F2P pass and all P2P pass', () => {
    const v = decideVerdict({
      results: map({ a: 'PASSED', b: 'FAILED', c: 'PASSED' }),
      failToPass: ['a', 'b'],
      passToPass: ['c'],
      exitCode: 1,
    });
    expect(v.resolution).toBe('PARTIAL');
    expect(v.resolved).toBe(false);
  });

  it('rejects a log that says all passed from a run that exited non-zero', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED' }), failToPass: ['a'], passToPass: [], exitCode: 1 });
    expect(v.resolved).toBe(false);
    expect(v.rejection).toMatch(/not trusted/);
  });

  it('accepts a non-zero exit when tests outside the lists failed', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED', other: 'FAILED' }), failToPass: ['a'], passToPass: [], exitCode: 1 });
    expect(v.resolved).toBe(true);
  });
});

describe('names the datasets list as the harness parsed them', () => {
  it('a name cut at a space stands for every id it is a cut of: two PASSED and one XFAIL maintain a PASS_TO_PASS test', () => {
    const results = map({ 't.py::p[a b]': 'PASSED', 't.py::p[a c]': 'PASSED', 't.py::p[a d]': 'XFAIL', 't.py::fixed': 'PASSED' });
    const v = decideVerdict({ results, failToPass: ['t.py::fixed'], passToPass: ['t.py::p[a'], exitCode: 0 });
    expect(v.resolved).toBe(true);
    // As a FAIL_TO_PASS test the XFAIL among them does not pass.
    expect(decideVerdict({ results, failToPass: ['t.py::p[a'], passToPass: [], exitCode: 0 }).resolved).toBe(false);
  });

  it("`[100%]` and an inner pytest's names, missing from the run's own results, are read the harness's way and reported", () => {
    const results = map({ 'tests/test_plugin.py::test_runs_inner': 'PASSED' });
    const harnessMap = map({ '[100%]': 'PASSED', 'test_inner.py::test_one': 'PASSED', 'tests/test_plugin.py::test_runs_inner': 'PASSED' });
    const lists = { failToPass: ['tests/test_plugin.py::test_runs_inner'], passToPass: ['[100%]', 'test_inner.py::test_one'], exitCode: 0 };
    expect(decideVerdict({ results, ...lists }).resolved).toBe(false);
    const v = decideVerdict({ results, ...lists, harnessMap });
    expect(v.resolved).toBe(true);
    expect(v.harnessRead).toEqual(['[100%]', 'test_inner.py::test_one']);
    // A real test of the run keeps its own status whatever the harness's reading says.
    const failing = decideVerdict({ results: map({ 'tests/test_plugin.py::test_runs_inner': 'FAILED' }), ...lists, harnessMap });
    expect(failing.resolved).toBe(false);
    // Files of this repository named by them do not change that: `[100%]` and test_inner.py are no file here.
    expect(decideVerdict({ results, ...lists, harnessMap, repositoryFiles: new Set(['tests/test_plugin.py']) }).resolved).toBe(true);
  });

  it('a listed test of a file of this repository, missing from the run, takes nothing from lines the log printed', () => {
    // What a submission's code can do: keep a test from running and print a PASSED line for it.
    const results = map({ 'tests/test_a.py::test_other': 'PASSED' });
    const harnessMap = map({ 'tests/test_a.py::test_fixed': 'PASSED', 'tests/test_a.py::test_other': 'PASSED' });
    const lists = { failToPass: ['tests/test_a.py::test_fixed'], passToPass: ['tests/test_a.py::test_other'], exitCode: 0, harnessMap };
    const v = decideVerdict({ results, ...lists, repositoryFiles: new Set(['tests/test_a.py']) });
    expect(v.resolved).toBe(false);
    expect(v.failToPass).toEqual([{ name: 'tests/test_a.py::test_fixed', status: 'MISSING' }]);
    expect(v.harnessRead).toEqual([]);
  });
});
