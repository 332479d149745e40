/**
 * Graded again without copies (mirror-interference.ts): which gradings ask whether the task's copies
 * fail listed tests, and the canaries of a run without copies (synthetic ones only, every runner).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planCanaries, type CanaryPlan } from '../../src/reward/grading/canaries.js';
import { planLanguageCanaries } from '../../src/reward/grading/language-canaries.js';
import { failedWithCopies } from '../../src/reward/grading/mirror-interference.js';
import { baseReport, type GradeReport } from '../../src/reward/report.js';
import type { Task } from '../../src/tasks/task.js';
import { seeded } from '../helpers/seeded.js';

const GO = readFileSync('tasks/demo-languages/tasks/semver-1/tests/semver_test.go', 'utf8');
const RSPEC = readFileSync('tasks/demo-languages/tasks/roman-1/tests/spec/roman_spec.rb', 'utf8');
const GO_F2P = ['TestCompareMultiDigitComponents', 'TestCompareNumericNotTextual'];
const RSPEC_F2P = ['writes four and nine by subtraction', 'subtracts in every place'];

const TASK = { goldPatch: 'diff --git a/x b/x\n' } as unknown as Task;
const WITH_COPIES: CanaryPlan = {
  files: new Map(),
  canaries: [
    { file: 'a_test.go', name: 'TestX', expect: 'PASSED' },
    { file: 'a_test.go', name: 'TestY', expect: 'PASSED', mirrorOf: 'TestA' },
  ],
};
const SYNTHETIC_ONLY: CanaryPlan = { files: new Map(), canaries: [WITH_COPIES.canaries[0]!] };

function failing(over: Partial<GradeReport> = {}): GradeReport {
  return {
    ...baseReport('t'),
    patchEmpty: false,
    failToPass: [{ name: 'TestA', status: 'FAILED' }],
    passToPass: [{ name: 'TestB', status: 'PASSED' }],
    ...over,
  };
}

describe('which gradings ask whether the copies fail listed tests', () => {
  it('a 0 for a listed test alone, copies in the run: asked', () => {
    expect(failedWithCopies(failing(), WITH_COPIES, TASK)).toBe(true);
    expect(failedWithCopies(failing({ passToPass: [{ name: 'TestB', status: 'MISSING' }], failToPass: [] }), WITH_COPIES, TASK)).toBe(true);
  });
  it('not when something else decided it: an integrity flag, a timeout, the environment, nothing submitted', () => {
    expect(failedWithCopies(failing({ integrityFlags: ['canary x was reported PASSED'] }), WITH_COPIES, TASK)).toBe(false);
    expect(failedWithCopies(failing({ testTimedOut: true }), WITH_COPIES, TASK)).toBe(false);
    expect(failedWithCopies(failing({ infraError: true }), WITH_COPIES, TASK)).toBe(false);
    expect(failedWithCopies(failing({ patchEmpty: true }), WITH_COPIES, TASK)).toBe(false);
  });
  it('not without copies, without a gold patch to ask, or when every listed test passed', () => {
    expect(failedWithCopies(failing(), SYNTHETIC_ONLY, TASK)).toBe(false);
    expect(failedWithCopies(failing(), undefined, TASK)).toBe(false);
    expect(failedWithCopies(failing(), WITH_COPIES, { goldPatch: '  ' } as unknown as Task)).toBe(false);
    expect(failedWithCopies(failing({ failToPass: [{ name: 'TestA', status: 'PASSED' }] }), WITH_COPIES, TASK)).toBe(false);
  });
});

describe('a run without copies keeps its synthetic canaries', () => {
  for (const [runner, path, content, failToPass] of [
    ['go', 'semver_test.go', GO, GO_F2P],
    ['rspec', 'spec/roman_spec.rb', RSPEC, RSPEC_F2P],
  ] as const) {
    it(`${runner}: the same synthetic canaries, no copy`, () => {
      const plan = (mirrors?: false): CanaryPlan =>
        planLanguageCanaries({
          runner,
          targets: [{ path, content }],
          mustFail: true,
          failToPass,
          passToPass: [],
          random: seeded(7),
          ...(mirrors === false ? { mirrors } : {}),
        });
      expect(plan().canaries.some((c) => c.mirrorOf)).toBe(true);
      const without = plan(false);
      expect(without.canaries.map((c) => [c.expect, c.mirrorOf])).toEqual([
        ['PASSED', undefined],
        ['FAILED', undefined],
      ]);
      for (const name of failToPass) expect(without.files.get(path)!.split(name).length).toBe(content.split(name).length);
    });
  }
  it('pytest: the synthetic canaries, no copy', () => {
    const content = 'def test_a():\n    assert 1 + 1 == 2\n\n\ndef test_b():\n    assert [1] == [1]\n';
    const plan = (mirrors?: false): CanaryPlan =>
      planCanaries({
        targets: [{ path: 'tests/test_m.py', content }],
        family: 'pytest',
        passToPass: ['tests/test_m.py::test_b'],
        failToPass: ['tests/test_m.py::test_a'],
        mustFail: true,
        random: seeded(3),
        ...(mirrors === false ? { mirrors } : {}),
      });
    expect(plan().canaries.some((c) => c.mirrorOf)).toBe(true);
    const without = plan(false);
    expect(without.canaries.length).toBeGreaterThan(0);
    expect(without.canaries.some((c) => c.mirrorOf)).toBe(false);
    expect(without.canaries.map((c) => c.expect).sort()).toEqual(['FAILED', 'PASSED']);
  });
});
