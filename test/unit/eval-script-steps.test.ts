import { describe, expect, it } from 'vitest';
import { evalPlan } from '../../src/reward/eval-plan/plan.js';
import { harnessEvalScript } from '../../src/reward/eval-plan/render.js';
import { testScriptOf } from '../../src/reward/grader.js';
import type { Task } from '../../src/tasks/task.js';

/**
 * Issue 20: a SWE-bench 5.x row's eval_script with steps between its test patch and its start
 * marker (two Verified astropy rows pin `pytest<7.2` and export SETUPTOOLS_USE_DISTUTILS there).
 * The row below is the harness's Python shape (swebench 4.1 make_eval_script_list_py for astropy
 * 5.0, joined as TestSpec.eval_script does) with those two steps where the rows have them. Every step
 * must reach the plan, in order, and a line the plan does not run must be in its notes.
 */
const BASE = '0123456789abcdef0123456789abcdef01234567';
const TEST_PATCH = [
  'diff --git a/astropy/io/tests/test_a.py b/astropy/io/tests/test_a.py',
  'index 1111111..2222222 100644',
  '--- a/astropy/io/tests/test_a.py',
  '+++ b/astropy/io/tests/test_a.py',
  '@@ -1 +1,2 @@',
  ' def test_a(): pass',
  '+def test_b(): pass',
  '',
].join('\n');

function astropyScript(afterTestPatch: readonly string[], afterEnd: readonly string[] = []): string {
  const reset = `git checkout ${BASE} astropy/io/tests/test_a.py`;
  const lines = [
    '#!/bin/bash',
    'set -uxo pipefail',
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    'cd /testbed',
    'git config --global --add safe.directory /testbed',
    'cd /testbed',
    'git status',
    'git show',
    `git -c core.fileMode=false diff ${BASE}`,
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    'python -m pip install -e .[test] --verbose',
    reset,
    `git apply -v - <<'EOF_114329324912'\n${TEST_PATCH}\nEOF_114329324912`,
    ...afterTestPatch,
    ": '>>>>> Start Test Output'",
    'pytest -rA astropy/io/tests/test_a.py',
    ": '>>>>> End Test Output'",
    ...afterEnd,
    reset,
  ];
  return `${lines.join('\n')}\n`;
}

const task = (evalScript: string): Task => ({
  id: 'astropy__astropy-13033',
  dataset: 'd',
  repo: 'astropy/astropy',
  baseCommit: BASE,
  version: '4.3',
  problemStatement: '',
  hintsText: '',
  createdAt: '',
  environmentSetupCommit: BASE,
  goldPatch: '',
  testPatch: TEST_PATCH,
  failToPass: ['astropy/io/tests/test_a.py::test_b'],
  passToPass: [],
  image: 'i',
  workdir: '/testbed',
  evalScript,
  logParser: 'parse_log_pytest_v2',
});

const STEPS = ["pip install 'pytest<7.2'", 'export SETUPTOOLS_USE_DISTUTILS=stdlib'];

describe('a 5.x eval_script with steps between the test patch and the start marker', () => {
  it('keeps every step, in order, where the harness runs it', () => {
    const t = task(astropyScript(STEPS));
    const plan = evalPlan(t);
    expect(plan.source).toBe('record-eval-script');
    expect(plan.afterTestPatch).toEqual(STEPS);
    expect(plan.beforeTestPatch).toEqual([]);
    expect(plan.testCommand).toBe('pytest -rA astropy/io/tests/test_a.py');
    expect(plan.notes).toEqual([]);
    // The plan written out is the row's script again, byte for byte.
    expect(harnessEvalScript(plan, t)).toBe(t.evalScript);
  });

  it("carries the steps' exports into the test process, after the eval commands'", () => {
    const script = testScriptOf(evalPlan(task(astropyScript(STEPS))));
    expect(script.split('\n')).toEqual(['export SETUPTOOLS_USE_DISTUTILS=stdlib', 'pytest -rA astropy/io/tests/test_a.py']);
  });

  it("reads the 5.x exit-code capture as the grader's own, and reports any other line after the end marker", () => {
    const withCapture = astropyScript([], []).replace(
      ": '>>>>> End Test Output'\n",
      'SWEBENCH_TEST_EXIT_CODE=$?\n: \'>>>>> End Test Output\'\necho ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"\n',
    );
    expect(evalPlan(task(withCapture)).notes).toEqual([]);
    const plan = evalPlan(task(astropyScript([], ['python -c "print(1)"'])));
    expect(plan.notes).toEqual([`dropped: after the end marker, not run (it cannot change the tests' results): python -c "print(1)"`]);
  });

  it("runs the steps between the reset and the test patch before it (the harness's image assets)", () => {
    const script = astropyScript([]).replace(
      `\ngit apply -v`,
      '\nmkdir -p docs/img\ncurl -o docs/img/a.png https://example.com/a.png\ngit apply -v',
    );
    const t = task(script);
    const plan = evalPlan(t);
    expect(plan.beforeTestPatch).toEqual(['mkdir -p docs/img', 'curl -o docs/img/a.png https://example.com/a.png']);
    expect(harnessEvalScript(plan, t)).toBe(script);
  });
});
