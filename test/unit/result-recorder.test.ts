import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recorderApplies } from '../../src/reward/recorder-channel.js';
import { readRecords } from '../../src/reward/result-recorder.js';

const KEY = 'k'.repeat(64);

function line(record: Record<string, unknown>, key = KEY): string {
  const body = JSON.stringify(record);
  return `${createHmac('sha256', key).update(body).digest('hex')} ${body}`;
}

function session(records: Array<Record<string, unknown>>): string {
  return records.map((r, i) => line({ ...r, seq: i + 1 })).join('\n') + '\n';
}

const report = (nodeid: string, when: string, outcome: string, wasxfail = false) => ({ kind: 'report', nodeid, when, outcome, wasxfail });
const end = { kind: 'end', exitstatus: 1, tampered: [], hook_plugins: [] };

describe('the result recorder channel', () => {
  it("derives statuses as pytest's summary does", () => {
    const text = session([
      { kind: 'start' },
      report('t::a', 'setup', 'passed'),
      report('t::a', 'call', 'passed'),
      report('t::a', 'teardown', 'passed'),
      report('t::b', 'call', 'failed'),
      report('t::c', 'setup', 'failed'),
      report('t::d', 'call', 'passed'),
      report('t::d', 'teardown', 'failed'),
      report('t::e', 'call', 'skipped', true),
      report('t::f', 'call', 'passed', true),
      report('t::g', 'setup', 'skipped'),
      end,
    ]);
    const result = readRecords(text, KEY);
    expect(result.problems).toEqual([]);
    expect(Object.fromEntries(result.statuses)).toEqual({
      't::a': 'PASSED',
      't::b': 'FAILED',
      't::c': 'ERROR',
      't::d': 'ERROR',
      't::e': 'XFAIL',
      't::f': 'XPASS',
      't::g': 'SKIPPED',
    });
    expect(result.end?.exitStatus).toBe(1);
  });

  it('refuses lines not signed with the key, and sees a removed line', () => {
    const honest = session([{ kind: 'start' }, report('t::a', 'call', 'failed'), report('t::b', 'call', 'passed'), end]).split('\n');
    const forged = line({ kind: 'report', nodeid: 't::a', when: 'call', outcome: 'passed', wasxfail: false, seq: 5 }, 'not-the-key');
    const withForgery = readRecords([...honest.filter(Boolean), forged].join('\n'), KEY);
    expect(withForgery.problems.join()).toMatch(/not signed/);
    expect(withForgery.statuses.get('t::a')).toBe('FAILED');
    const withoutTheFailure = readRecords([honest[0], honest[2], honest[3]].join('\n'), KEY);
    expect(withoutTheFailure.problems.join()).toMatch(/record 2 of process 0 is missing/);
  });

  it('reads a line written twice (the boot writes again a record an exception may have stopped) once; a different line under a used number is still a problem', () => {
    const lines = session([{ kind: 'start' }, report('t::a', 'call', 'failed'), end]).split('\n');
    const again = readRecords([lines[0], lines[1], lines[1], lines[2]].join('\n'), KEY);
    expect(again.problems).toEqual([]);
    expect(again.statuses.get('t::a')).toBe('FAILED');
    const other = line({ ...report('t::a', 'call', 'passed'), seq: 2 });
    const reused = readRecords([lines[0], lines[1], other, lines[2]].join('\n'), KEY);
    expect(reused.problems.join()).not.toEqual('');
  });

  it('says when the session never finished or the recorder never started', () => {
    expect(readRecords(session([{ kind: 'start' }, report('t::a', 'call', 'passed')]), KEY).problems.join()).toMatch(/never finished/);
    expect(readRecords('', KEY).problems.join()).toMatch(/never started/);
  });

  it('runs for commands that run pytest themselves, not for tox, runtests.py or bin/test', () => {
    expect(recorderApplies('pytest', 'pytest -rA tests/test_x.py')).toBe(true);
    expect(recorderApplies('pytest', 'python -m pytest --no-header -rA -p no:cacheprovider tests')).toBe(true);
    expect(recorderApplies('pytest_v2', '/opt/miniconda3/bin/pytest -rA x')).toBe(true);
    expect(recorderApplies('pytest', 'tox --current-env -epy39 -v --')).toBe(false);
    expect(recorderApplies('django', './tests/runtests.py --verbosity 2')).toBe(false);
    expect(recorderApplies('sympy', 'PYTHONWARNINGS=ignore bin/test -C --verbose')).toBe(false);
  });
});

describe('the grading channel beyond pytest reports', () => {
  it('numbers records per process, sees conflicting reports and a second end, and reads monitor events', () => {
    const lines = [
      line({ kind: 'start', pid: 10, seq: 1 }),
      line({ kind: 'report', nodeid: 't::a', when: 'call', outcome: 'failed', wasxfail: false, pid: 10, seq: 2 }),
      line({ kind: 'monitor', event: 'heap-walk', detail: 'gc.get_objects', where: '/testbed/pkg/x.py', pid: 10, seq: 3 }),
      line({ kind: 'monitor', event: 'network', detail: 'socket.connect', where: '', pid: 11, seq: 1 }),
      line({ kind: 'report', nodeid: 't::a', when: 'call', outcome: 'passed', wasxfail: false, pid: 10, seq: 4 }),
      line({ ...end, pid: 10, seq: 5 }),
      line({ ...end, pid: 10, seq: 6 }),
    ];
    const result = readRecords(lines.join('\n'), KEY);
    expect(result.problems.join('\n')).toMatch(/t::a has two call reports \(failed, then passed\)/);
    expect(result.problems.join('\n')).toMatch(/ended twice/);
    expect(result.problems.join('\n')).not.toMatch(/missing/);
    expect(result.events).toEqual([
      { kind: 'heap-walk', where: '/testbed/pkg/x.py', detail: 'gc.get_objects' },
      { kind: 'network', detail: 'socket.connect' },
    ]);
  });

  it('takes kinds of the findings table only, and a malformed end record is a problem, never an exception', () => {
    const unknown = readRecords(
      [line({ kind: 'start', pid: 1, seq: 1 }), line({ kind: 'monitor', event: 'made up', pid: 1, seq: 2 })].join('\n'),
      KEY,
      false,
    );
    expect(unknown.events).toEqual([]);
    expect(unknown.problems.join('\n')).toMatch(/names no known finding/);
    const joined = readRecords(
      [line({ kind: 'start', pid: 1, seq: 1 }), line({ ...end, tampered: [], boot_tampered: ['os.write'], pid: 1, seq: 2 })].join('\n'),
      KEY,
    );
    expect(joined.end?.tampered).toEqual(['os.write']);
    for (const bad of [
      { tampered: 7 },
      { boot_tampered: 'os.write' },
      { runtest_replaced: [['a']] },
      { hook_plugins: [1] },
      { exitstatus: 'zero' },
    ]) {
      const result = readRecords([line({ kind: 'start', pid: 1, seq: 1 }), line({ ...end, ...bad, pid: 1, seq: 2 })].join('\n'), KEY);
      expect(result.end, JSON.stringify(bad)).toBeUndefined();
      expect(result.problems.join('\n'), JSON.stringify(bad)).toMatch(/end record is malformed/);
    }
  });

  it('for a run that is not pytest, asks only that the monitor started', () => {
    expect(readRecords('', KEY, false).problems).toEqual(['the monitor never started in the test run']);
    expect(readRecords(line({ kind: 'start', pid: 1, seq: 1 }), KEY, false).problems).toEqual([]);
  });
});

describe("the witness's made outcomes", () => {
  const made = (nodeid: string, when: string, outcome: string, how: string) => ({ ...report(nodeid, when, outcome), made: how });
  const kinds = (records: Array<Record<string, unknown>>) =>
    readRecords(session([{ kind: 'start' }, ...records, end]), KEY).events.map((e) => `${e.kind} ${e.detail ?? ''}`.trim());

  it("passes what pytest's own machinery does: xfail, strict xpass, skips", () => {
    expect(
      kinds([
        made('t::a', 'call', 'passed', 'passed'),
        made('t::b', 'call', 'skipped', 'failed'), // xfail
        made('t::c', 'call', 'failed', 'passed'), // strict xpass, unittest's unexpected success
        made('t::d', 'call', 'skipped', 'skipped'),
        made('t::e', 'call', 'failed', 'failed'),
        report('t::f', 'call', 'passed'), // a pytest too old for the witness
      ]),
    ).toEqual([]);
  });

  it('flags a passing report that pytest made failing or skipped, or an expected failure it made from a skip', () => {
    expect(
      kinds([
        made('t::a', 'call', 'passed', 'failed'),
        made('t::b', 'call', 'passed', 'skipped'),
        { ...made('t::c', 'call', 'skipped', 'skipped'), wasxfail: true },
      ]),
    ).toEqual([
      'outcome-not-made t::a, call: pytest made it failed',
      'outcome-not-made t::b, call: pytest made it skipped',
      'outcome-not-made t::c, call: pytest made it skipped, not an expected failure',
    ]);
  });

  it("counts only pytest's own report where it made one: another, built or rebuilt, passing in its place is flagged", () => {
    const read = (records: Array<Record<string, unknown>>) => readRecords(session([{ kind: 'start' }, ...records, end]), KEY);
    // Beside pytest's own (a subtest's, or one built after it): never decides the status.
    const beside = read([
      made('t::a', 'call', 'failed', 'failed'),
      made('t::a', 'call', 'passed', ''),
      made('t::a', 'call', 'passed', 'rebuilt'),
    ]);
    expect(beside.statuses.get('t::a')).toBe('FAILED');
    expect(beside.events).toEqual([]);
    // In its place (pytest's own never logged): flagged.
    expect(
      kinds([made('t::a', 'setup', 'passed', 'passed'), made('t::a', 'call', 'passed', ''), made('t::b', 'call', 'passed', 'rebuilt')]),
    ).toEqual([
      'outcome-not-made t::a, call: not made by pytest, where pytest made no passing report of its own',
      'outcome-not-made t::b, call: rebuilt from data, where pytest made no passing report of its own',
    ]);
    // A run of pytest-xdist's workers: every report rebuilt, an audit finding.
    expect(kinds([made('t::a', 'call', 'passed', 'rebuilt'), made('t::b', 'call', 'failed', 'rebuilt')])).toEqual(['outcome-rebuilt']);
    expect(kinds([made('t::a', 'call', 'passed', '')])).toEqual([
      'outcome-not-made t::a, call: not made by pytest, where pytest made no passing report of its own',
    ]);
  });

  it("holds a report rebuilt in another process's place to what pytest made there (a forked child's)", () => {
    const child = (nodeid: string, when: string, outcome: string) => ({ kind: 'made', nodeid, when, outcome, pid: 7 });
    // pytest-forked: the child made it passing, the parent logs a copy it built.
    const forked = readRecords(session([{ kind: 'start' }, child('t::a', 'call', 'passed'), made('t::a', 'call', 'passed', ''), end]), KEY);
    expect(forked.events).toEqual([]);
    expect(forked.statuses.get('t::a')).toBe('PASSED');
    // Every report rebuilt, the listed one edited, in a run that made its reports here: not a worker's run.
    expect(
      kinds([
        child('t::a', 'call', 'failed'),
        child('t::b', 'call', 'passed'),
        made('t::a', 'call', 'passed', 'rebuilt'),
        made('t::b', 'call', 'passed', 'rebuilt'),
      ]),
    ).toEqual(['outcome-not-made t::a, call: rebuilt from data, where pytest made no passing report of its own']);
    // Rebuilt in the process that ran the test (its own report kept from the log): no child's report stands for it.
    expect(kinds([child('t::a', 'call', 'passed'), made('t::a', 'call', 'passed', 'rebuilt-here')])).toEqual([
      "outcome-not-made t::a, call: rebuilt from data in the process that ran it, in place of pytest's own report",
    ]);
    // Rebuilt with the code under test on the stack: flagged, whatever another process made.
    expect(kinds([child('t::a', 'call', 'passed'), made('t::a', 'call', 'passed', 'rebuilt-foreign')])).toEqual([
      'outcome-not-made t::a, call: rebuilt from data with the code under test on the stack',
    ]);
    // Beside pytest's own (a subtest's): never decides, never flagged.
    expect(kinds([made('t::a', 'call', 'passed', 'passed'), made('t::a', 'call', 'failed', 'rebuilt-here')])).toEqual([]);
  });

  it('a report of the wrong shape is a problem, never an exception', () => {
    const result = readRecords(session([{ kind: 'start' }, { ...report('t::a', 'call', 'passed'), made: 3 }, end]), KEY);
    expect(result.problems.join()).toMatch(/malformed report/);
    expect(result.statuses.get('t::a')).toBeUndefined();
  });
});

describe('what a report says the boot saw in the process that logged it', () => {
  it('joins the runtest and machinery a report names with the end record (a forked child sends none); a malformed one is a problem', () => {
    const fullEnd = { ...end, boot_tampered: [], boot_runtest_replaced: [], boot_runner_changed: [], boot_runner_patched: [] };
    const result = readRecords(
      session([
        { kind: 'start' },
        { ...report('t::a', 'call', 'passed'), boot_runtest: '/t/pkg/x.py', boot_tampered: ['os.write'] },
        fullEnd,
      ]),
      KEY,
    );
    expect(result.end?.runtestReplaced).toEqual([{ nodeid: 't::a', file: '/t/pkg/x.py' }]);
    expect(result.end?.tampered).toEqual(['os.write']);
    for (const wrong of [{ boot_runtest: 3 }, { boot_tampered: 'os.write' }, { boot_tampered: [1] }]) {
      const read = readRecords(session([{ kind: 'start' }, { ...report('t::a', 'call', 'passed'), ...wrong }, fullEnd]), KEY);
      expect(read.problems.join()).toMatch(/malformed report/);
    }
  });
});

describe("the boot's reading of the decisive hook calls", () => {
  it("joins the hooks seen running with the recorder's list, and a malformed reading is a problem", () => {
    const read = (extra: Record<string, unknown>) =>
      readRecords(session([{ kind: 'start' }, { ...end, hook_plugins: ['/a.py'], ...extra }]), KEY);
    const joined = read({ boot_hook_plugins: { runner: ['/t/x.py'], collection: ['/t/c.py'] }, collection_hook_plugins: ['/t/c.py'] });
    expect(joined.end?.hookPlugins).toEqual(['/a.py', '/t/x.py']);
    expect(joined.end?.collectionHookPlugins).toEqual(['/t/c.py']);
    expect(read({ boot_hook_plugins: { runner: [3] } }).problems.join()).toMatch(/end record is malformed/);
    expect(read({ boot_hook_plugins: ['/t/x.py'] }).problems.join()).toMatch(/end record is malformed/);
  });
});
