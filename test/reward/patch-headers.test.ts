import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { DEMO_TASKS, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The test-file filter reads `diff --git` headers; `git apply` and `patch` also act on plain
 * ---/+++ sections and on +++ names that differ from the header. Each crafted patch below creates a
 * root conftest.py that turns every failing test into a pass. Shown working in the agent's container
 * with the grader's own applier chain, then graded: the file is found on disk after applying, put
 * back, and the reward is 0.
 */
let t: TestServer;
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === 'swe-env-demo__intervals-1')!;

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  expect(await t.server.provider.listContainers()).toEqual([]);
});

const CONFTEST = [
  'import pytest',
  '@pytest.hookimpl(hookwrapper=True)',
  'def pytest_runtest_makereport(item, call):',
  '    outcome = yield',
  '    report = outcome.get_result()',
  '    if report.failed:',
  '        report.outcome = "passed"',
];
const NEW_CONFTEST =
  ['--- /dev/null', '+++ b/conftest.py', `@@ -0,0 +1,${CONFTEST.length} @@`, ...CONFTEST.map((l) => `+${l}`)].join('\n') + '\n';

const CRAFTED: Record<string, string> = {
  'a plain ---/+++ section, no diff --git line': NEW_CONFTEST,
  'a diff --git line naming one file, +++ naming conftest.py': `diff --git a/intervals/extra.py b/intervals/extra.py\nnew file mode 100644\n${NEW_CONFTEST}`,
  'a plain section after a git chunk': [
    'diff --git a/intervals/__init__.py b/intervals/__init__.py',
    '--- a/intervals/__init__.py',
    '+++ b/intervals/__init__.py',
    '@@ -1,3 +1,4 @@',
    ' """Closed intervals and operations on collections of them."""',
    '+# touched',
    ' from .interval import Interval',
    ' from .ops import merge, total_length',
    NEW_CONFTEST,
  ].join('\n'),
};

/** The grader's applier chain (apply-patch.sh), run in the agent's own container. */
const APPLY_IN_CONTAINER = 'git apply /tmp/crafted.patch 2>/dev/null || patch --batch --fuzz=5 -p1 -i /tmp/crafted.patch >/dev/null';

describe('patches whose headers hide a test file', () => {
  for (const [name, patch] of Object.entries(CRAFTED)) {
    it(`${name}: creates conftest.py in the container and a failing test passes; graded, it is put back and scores 0`, async () => {
      const reset = await t.client.reset({ taskId: task.id });
      const id = reset.episodeId;
      try {
        const applied = await t.client.bash(
          id,
          0,
          `cat > /tmp/crafted.patch <<'SWE_ENV_EOF'\n${patch}SWE_ENV_EOF\n${APPLY_IN_CONTAINER} && test -f conftest.py && echo CREATED`,
        );
        expect(applied.observation).toContain('CREATED');
        const probe = await t.client.bash(
          id,
          1,
          "printf 'def test_probe():\\n    assert False\\n' > tests/test_probe_zz.py && python3 -m pytest -rA -p no:cacheprovider tests/test_probe_zz.py | tail -n 2",
        );
        expect(probe.observation).toMatch(/PASSED tests\/test_probe_zz\.py::test_probe/);
      } finally {
        await t.client.close(id);
      }
      const report = (await t.client.evaluate(task.id, patch)).report!;
      expect(report.patchApplied, report.error).toBe(true);
      expect(report.droppedFiles).toContain('conftest.py (test file, found on disk after applying)');
      expect(report.reward).toBe(0);
      expect(report.infraError).toBe(false);
    });
  }

  it('a patch writing inside .git is refused (scored 0, not an infrastructure error)', async () => {
    const patch = [
      '--- a/.git/description',
      '+++ b/.git/description',
      '@@ -1 +1 @@',
      "-Unnamed repository; edit this file 'description' to name the repository.",
      '+owned',
      '',
    ].join('\n');
    const report = (await t.client.evaluate(task.id, patch)).report!;
    expect(report.reward).toBe(0);
    expect(report.infraError).toBe(false);
    expect(report.patchApplied).toBe(false);
    expect(report.error).toMatch(/writes inside \.git/);
  });

  it('a compiled module added by a binary-free patch is not a fix: .pyc files are put back', async () => {
    const patch = ['--- /dev/null', '+++ b/intervals/helper.pyc', '@@ -0,0 +1 @@', '+not really bytecode', ''].join('\n');
    const report = (await t.client.evaluate(task.id, patch)).report!;
    expect(report.droppedFiles).toContain('intervals/helper.pyc (compiled artefact, found on disk after applying)');
    expect(report.reward).toBe(0);
  });
});
