/**
 * When the test command cannot even start or collect (a wrong command, pytest missing from the
 * image, a conftest.py that cannot import, a test file that does not compile), `validate` and the
 * grade report show the run's own error (the traceback, "command not found", the collection error),
 * the recorder's message kept as secondary detail. Attribution: with the gold patch the task is at
 * fault (validate names it); a submission whose code breaks what conftest.py imports is the
 * model's 0, never INFRA_ERROR. Images are built by this test from a git repository; real engine.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Grader } from '../../src/reward/grader.js';
import type { Task } from '../../src/tasks/task.js';
import { testProvider } from '../helpers/docker.js';
import { buildTaskFixture, cli, type TaskFixture, fixtureGrader, cleanUpFixture } from '../helpers/task-fixture.js';

const scratch: string[] = [];
const provider = testProvider();
let fixture: TaskFixture;
let grader: Grader;

/** A test-patch addition: a new file with these lines. */
function newFile(path: string, lines: string[]): string {
  return [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    '',
  ].join('\n');
}

const BASE = {
  'pytest.ini': '[pytest]\npythonpath = .\n',
  'conftest.py': 'import calc\n',
  'calc/__init__.py': 'from .ops import add, mul\n',
  'calc/ops.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/test_calc.py': 'from calc import add, mul\n\n\ndef test_mul():\n    assert mul(3, 4) == 12\n',
};
const FIX = {
  'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/test_calc.py': `${BASE['tests/test_calc.py']}\n\ndef test_add():\n    assert add(2, 3) == 5\n`,
};
const PYTEST_FILES =
  '/usr/lib/python3/dist-packages/pytest /usr/lib/python3/dist-packages/_pytest /usr/bin/pytest /usr/bin/pytest-3 /usr/bin/py.test';

function record(common: Record<string, unknown>, id: string, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    ...common,
    instance_id: `example__runerr-${id}`,
    FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
    PASS_TO_PASS: ['tests/test_calc.py::test_mul'],
    image_name: `swe-env-test/sweb.eval.x86_64.example__runerr-${id}:latest`,
    ...extra,
  };
}

beforeAll(async () => {
  fixture = await buildTaskFixture(
    'runerr',
    { base: BASE, fix: FIX },
    (common) => {
      const testPatch = common['test_patch'] as string;
      return [
        record(common, 'sound', {}),
        record(common, 'typo', { test_cmd: 'pytset -rA tests/test_calc.py' }),
        record(common, 'nopytest', { install: `rm -rf ${PYTEST_FILES}` }),
        record(common, 'conftest', { test_patch: testPatch + newFile('tests/conftest.py', ['import swe_env_absent_helper']) }),
        record(common, 'syntax', {
          test_patch: testPatch + newFile('tests/test_broken.py', ['def broken(:', '    pass']),
          test_cmd: 'pytest -rA tests',
        }),
      ];
    },
    scratch,
  );
  grader = fixtureGrader(provider);
}, 600_000);

afterAll(() => cleanUpFixture(provider, scratch));

function task(id: string): Task {
  return fixture.tasks.find((t) => t.id === `example__runerr-${id}`)!;
}

const GOLD_CASES: Array<{ id: string; shows: RegExp; recorder?: RegExp }> = [
  { id: 'typo', shows: /pytset: command not found/ },
  { id: 'nopytest', shows: /pytest: command not found/, recorder: /recorder never started/ },
  {
    id: 'conftest',
    shows: /ImportError while loading conftest[^\n]*\n[^]*ModuleNotFoundError: No module named 'swe_env_absent_helper'/,
    recorder: /session never finished/,
  },
  { id: 'syntax', shows: /ERROR collecting tests\/test_broken\.py[^]*SyntaxError: invalid syntax/ },
];

describe('a test command that cannot start or collect', () => {
  it.each(GOLD_CASES)(
    "$id: the gold patch's report shows the run's own error first, the recorder's as detail",
    async ({ id, shows, recorder }) => {
      const t = task(id);
      const report = await grader.grade(t, Buffer.from(t.goldPatch));
      expect(report.infraError).toBe(false);
      expect(report.reward).toBe(0);
      const [first, ...rest] = report.error.split('\n');
      expect(first).toMatch(/^the tests did not run: the test command exited with \d+ before any listed test ran; its output says:$/);
      expect(rest.join('\n')).toMatch(shows);
      if (recorder) expect(rest.at(-1)).toMatch(recorder);
    },
  );

  it('`validate` names the task as at fault and prints the error under it', async () => {
    const logs = await mkdtemp(join(tmpdir(), 'swe-env-validate-logs-'));
    scratch.push(logs);
    const out = await cli('validate', '--tasks', fixture.tasksFile, '--logs', logs);
    expect(out.code).toBe(1);
    // Both runs of every task kept, whole, with their reports.
    expect(await readFile(join(logs, 'example__runerr-typo', 'gold.log'), 'utf8')).toMatch(/pytset: command not found/);
    expect(JSON.parse(await readFile(join(logs, 'example__runerr-sound', 'empty.report.json'), 'utf8'))).toMatchObject({ reward: 0 });
    expect(out.stdout).toMatch(/both runs' logs and reports of every task: /);
    expect(out.stdout).toMatch(/example__runerr-sound +yes/);
    for (const { id, shows } of GOLD_CASES) {
      const section = out.stdout.split(/\n  (?=example__runerr-)/).find((s) => s.startsWith(`example__runerr-${id}:`));
      expect(section, id).toMatch(/gold: the task's image or test command is at fault: the tests did not run/);
      expect(section, id).toMatch(shows);
    }
    expect(out.stdout).not.toMatch(/gold scores 0 \(the test results are not trusted/);
  });

  it("a submission whose code breaks what conftest.py imports is the model's 0 with the traceback, not INFRA_ERROR", async () => {
    const t = task('sound');
    const broken = [
      'diff --git a/calc/__init__.py b/calc/__init__.py',
      '--- a/calc/__init__.py',
      '+++ b/calc/__init__.py',
      '@@ -1 +1,2 @@',
      '+import swe_env_agent_typo',
      ' from .ops import add, mul',
      '',
    ].join('\n');
    const report = await grader.grade(t, Buffer.from(t.goldPatch + broken));
    expect(report.patchApplied).toBe(true);
    expect(report.infraError).toBe(false);
    expect(report.reward).toBe(0);
    expect(report.error).toMatch(/^the tests did not run/);
    expect(report.error).toMatch(/ImportError while loading conftest '\/testbed\/conftest\.py'[^]*No module named 'swe_env_agent_typo'/);
    // The same task's gold patch alone still scores 1: the failure is the submission's.
    expect((await grader.grade(t, Buffer.from(t.goldPatch))).reward).toBe(1);
  });
});
