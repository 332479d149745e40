/**
 * PASS_TO_PASS tests skipped because the image lacks an optional module are the environment's
 * problem (INFRA_ERROR; validate names the image), decided by a reference run without the
 * submission: the attack tests come first, a submission that makes a PASS_TO_PASS test skip with a
 * missing-module reason must stay the model's 0. Images are built by this test; real engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Grader } from '../../src/reward/grader.js';
import type { Task } from '../../src/tasks/task.js';
import { testProvider } from '../helpers/docker.js';
import { buildTaskFixture, cli, type TaskFixture, fixtureGrader, cleanUpFixture } from '../helpers/task-fixture.js';

const scratch: string[] = [];
const provider = testProvider();
let fixture: TaskFixture;
let grader: Grader;

const TESTS = [
  'import pytest',
  'from calc import add, mul',
  '',
  'try:',
  '    import swe_env_optional_dep',
  '    HAS_DEP = True',
  'except ImportError:',
  '    HAS_DEP = False',
  '',
  '',
  'def test_mul():',
  '    assert mul(3, 4) == 12',
  '',
  '',
  'def test_dump():',
  '    dep = pytest.importorskip("swe_env_optional_dep")',
  '    assert dep.dump(1)',
  '',
  '',
  '@pytest.mark.skipif(not HAS_DEP, reason="swe_env_optional_dep is not installed")',
  'def test_flag():',
  '    assert swe_env_optional_dep.flag()',
  '',
].join('\n');

const BASE = {
  'pytest.ini': '[pytest]\npythonpath = .\n',
  'calc/__init__.py': 'from .ops import add, mul\n',
  'calc/ops.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/test_calc.py': TESTS,
  'tests/test_optional.py': 'import pytest\n\npytest.importorskip("swe_env_optional_dep")\n\n\ndef test_module():\n    assert True\n',
};
const FIX = {
  'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/test_calc.py': `${TESTS}\n\ndef test_add():\n    assert add(2, 3) == 5\n`,
};
const ENV_SKIPPED = ['tests/test_calc.py::test_dump', 'tests/test_calc.py::test_flag', 'tests/test_optional.py::test_module'];

beforeAll(async () => {
  fixture = await buildTaskFixture(
    'optdep',
    { base: BASE, fix: FIX },
    (common) => [
      // Listed as the dataset's own environment (which had the module) saw them: all passing.
      {
        ...common,
        instance_id: 'example__optdep-lacking',
        test_cmd: 'pytest -rA tests',
        FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
        PASS_TO_PASS: ['tests/test_calc.py::test_mul', ...ENV_SKIPPED],
        image_name: 'swe-env-test/sweb.eval.x86_64.example__optdep-lacking:latest',
      },
      {
        ...common,
        instance_id: 'example__optdep-sound',
        test_cmd: 'pytest -rA tests',
        FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
        PASS_TO_PASS: ['tests/test_calc.py::test_mul'],
        image_name: 'swe-env-test/sweb.eval.x86_64.example__optdep-sound:latest',
      },
    ],
    scratch,
  );
  grader = fixtureGrader(provider);
}, 600_000);

afterAll(() => cleanUpFixture(provider, scratch));

function task(id: string): Task {
  return fixture.tasks.find((t) => t.id === `example__optdep-${id}`)!;
}

/** calc/__init__.py rewritten by the submission: mul() skips its caller for a module nobody has. */
const SKIPPING_MUL = [
  'diff --git a/calc/__init__.py b/calc/__init__.py',
  '--- a/calc/__init__.py',
  '+++ b/calc/__init__.py',
  '@@ -1 +1,7 @@',
  '-from .ops import add, mul',
  '+import pytest',
  '+from .ops import add, mul as _mul',
  '+',
  '+',
  '+def mul(a, b):',
  '+    pytest.importorskip("swe_env_nonexistent")',
  '+    return _mul(a, b)',
  '',
].join('\n');

/** The whole package skips on import: every test module importing it is skipped while collecting. */
const SKIPPING_PACKAGE = [
  'diff --git a/calc/__init__.py b/calc/__init__.py',
  '--- a/calc/__init__.py',
  '+++ b/calc/__init__.py',
  '@@ -1 +1,3 @@',
  '+import pytest',
  '+pytest.importorskip("swe_env_nonexistent")',
  ' from .ops import add, mul',
  '',
].join('\n');

describe('the attack: a submission makes PASS_TO_PASS tests skip for a "missing module"', () => {
  it("mul() calling importorskip: test_mul skips in the run, passes without the patch: the model's 0, not INFRA_ERROR", async () => {
    for (const id of ['sound', 'lacking']) {
      const t = task(id);
      const report = await grader.grade(t, Buffer.from(t.goldPatch + SKIPPING_MUL));
      expect(report.passToPass.find((r) => r.name === 'tests/test_calc.py::test_mul')?.status, id).toBe('SKIPPED');
      expect(report.failToPass[0]?.status, id).toBe('PASSED');
      expect(report.infraError, `${id}: ${report.error}`).toBe(false);
      expect(report.reward, id).toBe(0);
      expect(report.error, id).toMatch(/not skipped for a missing module without the patch: tests\/test_calc\.py::test_mul/);
    }
  });

  it("the package skipping on import: every listed test missing, the model's 0", async () => {
    const t = task('lacking');
    const report = await grader.grade(t, Buffer.from(t.goldPatch + SKIPPING_PACKAGE));
    expect(report.failToPass[0]?.status).toBe('MISSING');
    expect(report.infraError).toBe(false);
    expect(report.reward).toBe(0);
  });
});

describe('the image lacks an optional module its PASS_TO_PASS tests need', () => {
  it('the gold patch is INFRA_ERROR naming the tests the image skips, without and with the patch', async () => {
    const t = task('lacking');
    const report = await grader.grade(t, Buffer.from(t.goldPatch));
    expect(report.failToPass[0]?.status).toBe('PASSED');
    expect(report.infraError).toBe(true);
    expect(report.reward).toBe(0);
    expect(report.error).toMatch(
      /^the task's environment cannot run its PASS_TO_PASS tests: skipped for a missing module in this image without the patch too: /,
    );
    for (const name of ENV_SKIPPED) expect(report.error).toContain(name);
    expect(report.error).toMatch(/could not import 'swe_env_optional_dep'/);
    expect(report.error).toContain('swe_env_optional_dep is not installed');
  });

  it("a submission that does not fix the bug is still the model's 0", async () => {
    const t = task('lacking');
    for (const patch of ['', t.goldPatch.replace('return a + b', 'return a + b + 1')]) {
      const report = await grader.grade(t, Buffer.from(patch));
      expect(report.failToPass[0]?.status).toBe('FAILED');
      expect(report.infraError).toBe(false);
      expect(report.reward).toBe(0);
    }
  });

  it('`validate` names the image as lacking what the tests need', async () => {
    const out = await cli('validate', '--tasks', fixture.tasksFile);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/example__optdep-sound +yes/);
    expect(out.stdout).toMatch(
      /example__optdep-lacking: gold: the task's image lacks what its tests need: the task's environment cannot run its PASS_TO_PASS tests/,
    );
  });
});
