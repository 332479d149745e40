/**
 * Issue 20 end to end, with real Docker, real gRPC and images this test builds: a SWE-bench 5.x row
 * whose own eval_script has steps between its test patch and its start marker (an export the tests
 * read, and a copy of a file the test patch creates, so the step can only have worked after it).
 * The gold patch resolves with the steps (1); the same row without them scores 0, so the kept steps
 * are what makes the difference.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { commitAll, git, newRepo, writeFiles } from '../helpers/git-repo.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const scratch: string[] = [];
const images: string[] = [];
let server: TestServer | undefined;
let tasks: Task[] = [];

const STEPS = ['export STYLE=loud', 'cp tests/test_style.py /tmp/test_style.copy'];

/** A 5.x row's eval.sh in the harness's shape, with the given steps after its test patch. */
function evalScript(base: string, testPatch: string, afterTestPatch: readonly string[]): string {
  const reset = `git checkout ${base} `;
  return [
    '#!/bin/bash',
    'set -uxo pipefail',
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    'cd /testbed',
    'git config --global --add safe.directory /testbed',
    'cd /testbed',
    'git status',
    'git show',
    `git -c core.fileMode=false diff ${base}`,
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    reset,
    `git apply -v - <<'EOF_114329324912'\n${testPatch}\nEOF_114329324912`,
    ...afterTestPatch,
    ": '>>>>> Start Test Output'",
    'pytest -rA tests/test_style.py',
    ": '>>>>> End Test Output'",
    reset,
    '',
  ].join('\n');
}

beforeAll(async () => {
  const repo = await newRepo();
  scratch.push(repo);
  await writeFiles(repo, {
    'style/__init__.py': 'def shout(s):\n    return s\n',
    'style/build.py': "# the package's build step\n",
    'pytest.ini': '[pytest]\npythonpath = .\n',
  });
  const baseCommit = await commitAll(repo, 'base');
  await writeFiles(repo, {
    'style/__init__.py': 'import os\n\n\ndef shout(s):\n    return s.upper() if os.environ.get("STYLE") == "loud" else s\n',
    // New in the test patch: only a step after it can copy it.
    'tests/test_style.py':
      'import os\nfrom style import shout\n\n\ndef test_loud():\n    assert os.path.exists("/tmp/test_style.copy")\n    assert shout("a") == "A"\n',
  });
  const fixCommit = await commitAll(repo, 'fix');
  const patch = await git(repo, 'diff', baseCommit, fixCommit, '--', '.', ':!tests');
  const testPatch = await git(repo, 'diff', baseCommit, fixCommit, '--', 'tests');
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-after-patch-'));
  scratch.push(dir);
  const tasksFile = join(dir, 'tasks.jsonl');
  const row = (id: string, steps: readonly string[]) => {
    const image = `swe-env-test/sweb.eval.x86_64.${id}:latest`;
    images.push(image);
    return {
      repo: 'example/after-patch',
      instance_id: id,
      base_commit: baseCommit,
      patch,
      test_patch: testPatch,
      problem_statement: 'loud',
      version: '1.0',
      FAIL_TO_PASS: ['tests/test_style.py::test_loud'],
      PASS_TO_PASS: [],
      image_name: image,
      log_parser: 'parse_log_pytest',
      eval_script: evalScript(baseCommit, testPatch, steps),
    };
  };
  const rows = [
    row('example__after-patch-1', STEPS),
    row('example__after-patch-2', []),
    // A build step that runs the package's own code (the patch's, once graded).
    row('example__after-patch-3', [...STEPS, 'python3 style/build.py']),
    // A step that itself rewrites a hidden test file (a generated or normalised test): the gold
    // patch's run changes it alike, so it is no sign of the patch's doing.
    row('example__after-patch-4', [...STEPS, "printf '\\n# normalised by the build\\n' >> tests/test_style.py"]),
  ];
  await writeFile(tasksFile, rows.map((r) => JSON.stringify(r)).join('\n'));
  await run('node', [CLI, 'images', 'build', '--tasks', tasksFile, '--repo', repo], { maxBuffer: 16 * 1024 * 1024 });
  const loaded = await loadTaskFile(tasksFile);
  expect(loaded.problems).toEqual([]);
  tasks = loaded.tasks;
  server = await startTestServer({ taskFiles: [tasksFile] });
}, 600_000);

afterAll(async () => {
  try {
    if (server) {
      await server.stop();
      expect(await server.server.provider.listContainers()).toEqual([]);
    }
  } finally {
    await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
    for (const image of images) await run('docker', ['rmi', '-f', image]).catch(() => undefined);
  }
});

describe("a 5.x row's steps between the test patch and the start marker", () => {
  it('run at grading time, after the test patch: the gold patch resolves with them and not without', async () => {
    const [withSteps, withoutSteps] = tasks as [Task, Task];
    const graded = (await server!.client.evaluate(withSteps.id, withSteps.goldPatch)).report!;
    expect(graded.plan).toMatchObject({ source: 'record-eval-script', afterTestPatch: STEPS, notes: [] });
    expect(graded.afterTestPatch).toMatchObject({ ran: true, exitCode: 0 });
    expect(graded.reward, `${graded.error} ${graded.logTail}`).toBe(1);
    expect(graded.harness!.resolved).toBe(true);

    const bare = (await server!.client.evaluate(withoutSteps.id, withoutSteps.goldPatch)).report!;
    expect(bare.plan!.afterTestPatch).toEqual([]);
    expect(bare.reward).toBe(0);
    expect(bare.failToPass[0]!.status).not.toBe('TEST_STATUS_PASSED');
  });
});

describe('hidden tests rewritten by the steps after the test patch', () => {
  /** The gold fix, plus a build script that rewrites the hidden test into one that always passes. */
  const rewriting = (gold: string): string =>
    `${gold}diff --git a/style/build.py b/style/build.py\n--- a/style/build.py\n+++ b/style/build.py\n@@ -1 +1,2 @@\n # the package's build step\n+open("tests/test_style.py", "w").write("def test_loud():\\n    pass\\n")\n`;
  /** No fix at all: only the rewriting build script. */
  const rewritingOnly = rewriting('');

  it("no fix, a build script of the patch empties the hidden test: 0, the model's (it earned 1 before the test files were taken)", async () => {
    const task = tasks.find((t) => t.id === 'example__after-patch-3')!;
    const report = (await server!.client.evaluate(task.id, rewritingOnly)).report!;
    expect(report.infraError, report.error).toBe(false);
    expect(report.reward, `${report.error} ${report.logTail}`).toBe(0);
    expect(report.error).toMatch(
      /steps after the test patch changed hidden test files the gold patch's run leaves as they are: tests\/test_style\.py/,
    );
    const gold = (await server!.client.evaluate(task.id, task.goldPatch)).report!;
    expect(gold.reward, `${gold.error} ${gold.logTail}`).toBe(1);
  });

  it('a step that itself rewrites the hidden test (the gold run does too): gold 1, the empty patch 0', async () => {
    const task = tasks.find((t) => t.id === 'example__after-patch-4')!;
    const gold = (await server!.client.evaluate(task.id, task.goldPatch)).report!;
    expect(gold.reward, `${gold.error} ${gold.logTail}`).toBe(1);
    expect(gold.integrityFlags).toEqual([]);
    const empty = (await server!.client.evaluate(task.id, '')).report!;
    expect(empty.infraError, empty.error).toBe(false);
    expect(empty.reward).toBe(0);
    expect(empty.failToPass[0]!.status).toBe('TEST_STATUS_FAILED');
  });
});
