import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { environmentSkip, isMissingModuleReason, skipCandidates } from '../../src/reward/grading/environment-skips.js';
import { baseReport, type GradeReport } from '../../src/reward/report.js';
import { disagreements, readRecords } from '../../src/reward/result-recorder.js';
import type { ListedStatus } from '../../src/languages/index.js';

const KEY = 'k'.repeat(64);

function session(records: Array<Record<string, unknown>>): string {
  return `${records
    .map((r, i) => {
      const body = JSON.stringify({ ...r, seq: i + 1 });
      return `${createHmac('sha256', KEY).update(body).digest('hex')} ${body}`;
    })
    .join('\n')}\n`;
}

function graded(f2p: ListedStatus[], p2p: ListedStatus[], change: Partial<GradeReport> = {}): GradeReport {
  return {
    ...baseReport('t'),
    failToPass: f2p.map((status, i) => ({ name: `t.py::f${i}`, status })),
    passToPass: p2p.map((status, i) => ({ name: `t.py::p${i}`, status })),
    ...change,
  };
}

describe('missing-module skip reasons', () => {
  it.each([
    "Skipped: could not import 'yaml': No module named 'yaml'",
    'No module named scipy',
    'scipy is not installed',
    'requires scipy',
    'needs the optional package matplotlib',
    'ImportError: cannot import name x',
    'optional dependency pandas is missing',
    'h5py is not available',
  ])('%s is one', (reason) => expect(isMissingModuleReason(reason)).toBe(true));

  it.each(['', 'flaky on CI', 'requires python3.9', 'requires network', 'Skipped: not implemented yet', 'only on windows'])(
    '%s is not',
    (reason) => expect(isMissingModuleReason(reason)).toBe(false),
  );
});

describe('which runs look at the reference', () => {
  it('only a trusted, in-time run whose FAIL_TO_PASS all passed and whose only misses are skipped or missing PASS_TO_PASS tests', () => {
    expect(skipCandidates(graded(['PASSED'], ['PASSED', 'SKIPPED', 'MISSING']))).toEqual(['t.py::p1', 't.py::p2']);
    expect(skipCandidates(graded(['PASSED'], ['PASSED']))).toEqual([]);
    expect(skipCandidates(graded(['FAILED'], ['SKIPPED']))).toEqual([]);
    expect(skipCandidates(graded(['PASSED'], ['SKIPPED', 'FAILED']))).toEqual([]);
    expect(skipCandidates(graded(['PASSED'], ['SKIPPED'], { integrityFlags: ['monitor: x'] }))).toEqual([]);
    expect(skipCandidates(graded(['PASSED'], ['SKIPPED'], { testTimedOut: true }))).toEqual([]);
    expect(skipCandidates(graded(['PASSED'], ['SKIPPED'], { resolved: true }))).toEqual([]);
  });
});

describe('what the reference run shows', () => {
  const reference = readRecords(
    session([
      { kind: 'start' },
      {
        kind: 'report',
        nodeid: 't.py::dep',
        when: 'setup',
        outcome: 'skipped',
        wasxfail: false,
        reason: "Skipped: could not import 'yaml': No module named 'yaml'",
      },
      { kind: 'report', nodeid: 't.py::flaky', when: 'setup', outcome: 'skipped', wasxfail: false, reason: 'Skipped: flaky' },
      { kind: 'report', nodeid: 't.py::ok', when: 'call', outcome: 'passed', wasxfail: false },
      { kind: 'collect_skip', nodeid: 'opt.py', reason: "Skipped: could not import 'h5py': No module named 'h5py'" },
      { kind: 'collect_skip', nodeid: 'other.py', reason: 'Skipped: slow' },
      { kind: 'end', exitstatus: 0, tampered: [], hook_plugins: [] },
    ]),
    KEY,
  );

  it('a test skipped for a missing module, or inside a module skipped for one while collecting', () => {
    expect(environmentSkip(reference, 't.py::dep')).toMatch(/could not import 'yaml'/);
    expect(environmentSkip(reference, 'opt.py::test_a')).toMatch(/h5py/);
    expect(environmentSkip(reference, 'opt.py::TestX::test_b')).toMatch(/h5py/);
  });

  it('not a test that passes, is skipped for another reason, or is simply missing', () => {
    expect(environmentSkip(reference, 't.py::ok')).toBeUndefined();
    expect(environmentSkip(reference, 't.py::flaky')).toBeUndefined();
    expect(environmentSkip(reference, 'other.py::test_c')).toBeUndefined();
    expect(environmentSkip(reference, 'gone.py::test_d')).toBeUndefined();
  });

  it("a name cut at a space is the image's skip only when every id it stands for is", () => {
    const cut = readRecords(
      session([
        { kind: 'start' },
        {
          kind: 'report',
          nodeid: 't.py::p[a b]',
          when: 'setup',
          outcome: 'skipped',
          wasxfail: false,
          reason: "Skipped: could not import 'yaml': No module named 'yaml'",
        },
        { kind: 'report', nodeid: 't.py::p[a c]', when: 'call', outcome: 'passed', wasxfail: false },
        {
          kind: 'report',
          nodeid: 't.py::q[x y]',
          when: 'setup',
          outcome: 'skipped',
          wasxfail: false,
          reason: "Skipped: could not import 'yaml': No module named 'yaml'",
        },
        {
          kind: 'report',
          nodeid: 't.py::q[x z]',
          when: 'setup',
          outcome: 'skipped',
          wasxfail: false,
          reason: "Skipped: could not import 'yaml': No module named 'yaml'",
        },
        { kind: 'end', exitstatus: 0, tampered: [], hook_plugins: [] },
      ]),
      KEY,
    );
    // p[a c] runs without the patch: a submission that skips it must not hide behind p[a b].
    expect(environmentSkip(cut, 't.py::p[a')).toBeUndefined();
    expect(environmentSkip(cut, 't.py::q[x')).toMatch(/yaml/);
  });
});

describe('the log and the recorder on a skipped test', () => {
  it('a skip the -rA summary cannot name is no disagreement; any other difference is', () => {
    expect(disagreements([{ name: 'a', status: 'SKIPPED' }], [{ name: 'a', status: 'MISSING' }])).toEqual([]);
    expect(disagreements([{ name: 'a', status: 'PASSED' }], [{ name: 'a', status: 'MISSING' }])).toHaveLength(1);
    expect(disagreements([{ name: 'a', status: 'SKIPPED' }], [{ name: 'a', status: 'PASSED' }])).toHaveLength(1);
  });
});
