/**
 * Honest test suites the grader once scored 0 for what they are, not for what the patch did (issue
 * 28's measured false alarms on real rows): hidden tests written as unittest.TestCase classes run by
 * pytest (pytest's own unittest items run their own runtest: astroid's rows), and tests that start
 * pytest again in a subprocess (the recorder, once named in PYTEST_ADDOPTS, could not be imported
 * there). Gold 1, empty 0, no integrity flag. Images built from a git repository; real engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grader } from '../../src/reward/grader.js';
import type { Task } from '../../src/tasks/task.js';
import { testProvider } from '../helpers/docker.js';
import { buildTaskFixture, cleanUpFixture, fixtureGrader, type TaskFixture } from '../helpers/task-fixture.js';

const scratch: string[] = [];
const provider = testProvider();
let fixture: TaskFixture;
let grader: Grader;

const BASE = {
  'pytest.ini': '[pytest]\npythonpath = .\n',
  'calc/__init__.py': 'from .ops import add, mul\n',
  'calc/ops.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/__init__.py': '',
  'tests/inner_check.py': 'def test_inner():\n    assert 1 + 1 == 2\n',
  'tests/test_calc.py': 'import unittest\n\nfrom calc import mul\n\n\nclass CalcTest(unittest.TestCase):\n    def test_mul(self):\n        self.assertEqual(mul(3, 4), 12)\n',
};
const FIX = {
  'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/test_calc.py': `${BASE['tests/test_calc.py']}\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n\nclass NestedTest(unittest.TestCase):\n    def test_pytest_in_a_subprocess(self):\n        import subprocess, sys\n        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/inner_check.py"], capture_output=True, text=True)\n        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)\n`.replace('from calc import mul', 'from calc import add, mul'),
};

beforeAll(async () => {
  fixture = await buildTaskFixture('honestrun', { base: BASE, fix: FIX }, (common) => [
    {
      ...common,
      instance_id: 'example__honestrun-1',
      FAIL_TO_PASS: ['tests/test_calc.py::CalcTest::test_add'],
      PASS_TO_PASS: ['tests/test_calc.py::CalcTest::test_mul', 'tests/test_calc.py::NestedTest::test_pytest_in_a_subprocess'],
      image_name: 'swe-env-test/sweb.eval.x86_64.example__honestrun-1:latest',
    },
  ], scratch);
  grader = fixtureGrader(provider);
}, 600_000);

afterAll(() => cleanUpFixture(provider, scratch));

const task = (): Task => fixture.tasks[0]!;

describe('honest test suites', () => {
  it('unittest classes under pytest, and pytest run again by a test: gold 1 with no integrity flag', async () => {
    const report = await grader.grade(task(), Buffer.from(task().goldPatch));
    expect(report.integrityFlags, report.error + report.logTail).toEqual([]);
    expect(report.infraError, report.error).toBe(false);
    expect(report.reward, report.error + report.logTail).toBe(1);
    expect(report.passToPass.map((r) => r.status)).toEqual(['PASSED', 'PASSED']);
  });

  it('the empty patch: 0, the listed test failing, no integrity flag', async () => {
    const report = await grader.grade(task(), Buffer.from(''));
    expect(report.integrityFlags, report.error).toEqual([]);
    expect(report.infraError, report.error).toBe(false);
    expect(report.reward).toBe(0);
    expect(report.failToPass.map((r) => r.status)).toEqual(['FAILED']);
  });
});
