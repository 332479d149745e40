import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { evalPlan } from '../../src/reward/eval-plan/plan.js';
import { SWE_GYM_PARSERS, SWE_GYM_SPECS } from '../../src/reward/eval-plan/swe-gym-specs.js';
import type { Task } from '../../src/tasks/task.js';

/**
 * SWE-Gym's fork is not on PyPI, so its facts (SWE-Gym/SWE-Bench-Fork @ 242429c,
 * swebench/harness/constants.py, test_spec.py make_test_command, log_parsers.py) are a table under
 * test: its digest is pinned (any edit fails here and must be re-read from the fork), and what the
 * issue names is checked by behaviour.
 */
const task = (over: Partial<Task>): Task => ({
  id: 'x',
  dataset: 'd',
  repo: 'r/r',
  baseCommit: 'b',
  version: '1',
  problemStatement: '',
  hintsText: '',
  createdAt: '',
  environmentSetupCommit: '',
  goldPatch: '',
  testPatch: 'diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/tests/test_a.py\n+++ b/tests/test_a.py\n',
  failToPass: ['t'],
  passToPass: [],
  image: 'i',
  workdir: '/testbed',
  ...over,
});

describe("SWE-Gym's facts", () => {
  it('are the table read from the fork (digest pinned)', () => {
    const digest = createHash('sha256')
      .update(JSON.stringify([SWE_GYM_SPECS, SWE_GYM_PARSERS]))
      .digest('hex')
      .slice(0, 16);
    expect(Object.keys(SWE_GYM_SPECS)).toHaveLength(11);
    expect(Object.values(SWE_GYM_SPECS).flatMap((groups) => groups.flatMap((g) => g.versions))).toHaveLength(416);
    expect(digest).toBe('2e69443be95915ab');
  });

  it('run -n0 for moto, conan, dask (with --color=no), modin and bokeh', () => {
    expect(evalPlan(task({ repo: 'getmoto/moto', version: '5.0' })).testCommand).toBe('pytest -n0 -rA tests/test_a.py');
    expect(evalPlan(task({ repo: 'conan-io/conan', version: '2.0' })).testCommand).toBe('pytest -n0 -rA tests/test_a.py');
    expect(evalPlan(task({ repo: 'dask/dask', version: '2024.1' })).testCommand).toBe('pytest -n0 -rA  --color=no tests/test_a.py');
    expect(evalPlan(task({ repo: 'modin-project/modin', version: '0.30' })).testCommand).toBe('pytest -n0 -rA tests/test_a.py');
    expect(evalPlan(task({ repo: 'bokeh/bokeh', version: '3.4' })).testCommand).toBe('pytest -rA -n0 tests/test_a.py');
  });

  it("build mypy's -k from the test patch's [case X] names, with -n0 up to mypy 1.6", () => {
    const testPatch = 'diff --git a/test-data/unit/check-a.test b/test-data/unit/check-a.test\n+[case testOne]\n+[case testTwo]\n';
    expect(
      evalPlan(
        task({
          repo: 'python/mypy',
          version: '1.6',
          testPatch,
          failToPass: ['mypy/test/testcheck.py::TypeCheckSuite::check-a.test::testOther'],
        }),
      ).testCommand,
    ).toBe('pytest -n0 -rA -k "testOne or testTwo"');
    expect(evalPlan(task({ repo: 'python/mypy', version: '1.7', testPatch })).testCommand).toBe('pytest -rA -k "testOne or testTwo"');
  });

  it("export conan's PYTHONPATH before its tests, and lower-cased repository names match", () => {
    const plan = evalPlan(task({ repo: 'Conan-IO/Conan', version: '1.50' }));
    expect(plan.source).toBe('swe-gym');
    expect(plan.evalCommands).toEqual(['export PYTHONPATH=${PYTHONPATH:-}:$(pwd)']);
    expect(evalPlan(task({ repo: 'pydantic/pydantic', version: '2.7' })).harnessParser).toBe('parse_log_pytest_pydantic');
  });
});
