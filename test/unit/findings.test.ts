import { describe, expect, it } from 'vitest';
import { GRADER_FINDING_KINDS, auditLines, flag, integrityLines, isFindingKind, severityOf } from '../../src/reward/findings.js';
import { onlyMirrorFlags } from '../../src/reward/grading/mirror-attribution.js';
import type { Evidence } from '../../src/reward/grading/evidence.js';
import type { Task } from '../../src/tasks/task.js';

const task = { failToPass: ['t.py::test_a'], passToPass: [] } as unknown as Task;
const evidence = (flags: Evidence['flags']): Evidence => ({
  logResults: new Map([['t.py::test_a', 'PASSED']]),
  recorded: undefined,
  flags,
  canaryFailed: false,
});
const MIRROR_LINE = 'canary t.py::test_a_m (a copy of t.py::test_a, must be PASSED) was reported FAILED by the printed log';

describe('findings as data', () => {
  it('a finding counts by its kind’s row: integrity lines and audit lines apart, each once', () => {
    const flags = [
      flag('mirror-disagrees', MIRROR_LINE, 't.py::test_a_m'),
      flag('mirror-disagrees', MIRROR_LINE, 't.py::test_a_m'),
      flag('mirror-excused', 'mirror canaries: not counted (x)'),
      flag('network', 'network: connect 10.0.0.1'),
    ];
    expect(integrityLines(flags)).toEqual([MIRROR_LINE]);
    expect(auditLines(flags)).toEqual(['mirror canaries: not counted (x)', 'network: connect 10.0.0.1']);
  });

  it('a mirror flag is known by its kind and canary, not by how its line reads', () => {
    expect(onlyMirrorFlags(evidence([flag('mirror-disagrees', MIRROR_LINE, 't.py::test_a_m')]), task)).toBe(true);
    // The same words from the records' own check (a test id can read like anything) are no mirror flag.
    expect(onlyMirrorFlags(evidence([flag('records-broken', MIRROR_LINE)]), task)).toBe(false);
  });

  it("a synthetic canary's flag is worth the gold patch's reference beyond Python only", () => {
    const synthetic = [
      flag('canary-wrong', 'canary spec/a_spec.rb::x y (a synthetic test, must be PASSED) was reported FAILED', 'spec/a_spec.rb::x y'),
    ];
    expect(onlyMirrorFlags(evidence(synthetic), task, 'rspec')).toBe(true);
    expect(onlyMirrorFlags(evidence(synthetic), task, 'pytest')).toBe(false);
    expect(onlyMirrorFlags(evidence(synthetic), task)).toBe(false);
  });

  it('the grader’s kinds are never a monitor event’s', () => {
    for (const kind of Object.keys(GRADER_FINDING_KINDS) as Array<keyof typeof GRADER_FINDING_KINDS>) {
      expect(isFindingKind(kind), kind).toBe(false);
      expect(['integrity', 'audit']).toContain(severityOf(kind));
    }
  });
});
