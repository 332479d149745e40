/**
 * End to end with real Docker for real-format datasets: task images built with `swe-env images
 * build` from a git repository this test creates (a SWE-bench record and a SWE-smith record), graded
 * through the server, `validate` and `eval`; and the reward hacks that must score 0.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { commitAll, git, newRepo, writeFiles } from '../helpers/git-repo.js';
import { applyPatchCommand, startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');

const BASE_FILES = {
  'pytest.ini': '[pytest]\npythonpath = .\n',
  'calc/__init__.py': 'from .ops import add, mul\n',
  'calc/ops.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/test_ops.py': 'from calc import add, mul\n\n\ndef test_mul():\n    assert mul(3, 4) == 12\n',
};

let repo: string;
let base: string;
let future: string;
let tasksFile: string;
let swebench: Task;
let smith: Task;
let t: TestServer;

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run('node', [CLI, ...args], { maxBuffer: 16 * 1024 * 1024 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} is missing: run npm run build (npm test does)`).toBe(true);
  repo = await newRepo();
  scratch.push(repo);
  await writeFiles(repo, BASE_FILES);
  base = await commitAll(repo, 'base: add() is wrong');
  await writeFiles(repo, {
    'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n',
    'tests/test_ops.py': `${BASE_FILES['tests/test_ops.py']}\n\ndef test_add():\n    assert add(2, 3) == 5\n`,
  });
  future = await commitAll(repo, 'fix add() (the answer an agent must not find)');
  await git(repo, 'tag', 'v1.1');
  await git(repo, 'branch', 'feature');
  const patch = await git(repo, 'diff', base, future, '--', 'calc');
  const testPatch = await git(repo, 'diff', base, future, '--', 'tests');
  const bug =
    'diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -3,4 +3,4 @@ def add(a, b):\n \n \n def mul(a, b):\n-    return a * b\n+    return a * b + 1\n';
  const tasksDir = await mkdtemp(join(tmpdir(), 'swe-env-tasks-'));
  scratch.push(tasksDir);
  tasksFile = join(tasksDir, 'tasks.jsonl');
  await writeFile(
    tasksFile,
    [
      {
        repo: 'example/calc',
        instance_id: 'example__calc-1',
        base_commit: base,
        patch,
        test_patch: testPatch,
        problem_statement: 'add(2, 3) returns -1; it should return 5.',
        version: '1.0',
        FAIL_TO_PASS: '["tests/test_ops.py::test_add"]',
        PASS_TO_PASS: '["tests/test_ops.py::test_mul"]',
        image_name: 'swe-env-test/sweb.eval.x86_64.example__calc-1:latest',
      },
      {
        repo: `swesmith/example__calc.${future.slice(0, 8)}`,
        instance_id: 'example__calc.smith_1',
        patch: bug,
        problem_statement: 'mul(3, 4) is 13.',
        FAIL_TO_PASS: ['tests/test_ops.py::test_mul'],
        PASS_TO_PASS: ['tests/test_ops.py::test_add'],
        image_name: 'swe-env-test/smith.example__calc.smith_1:latest',
      },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  const built = await cli('images', 'build', '--tasks', tasksFile, '--repo', repo);
  expect(built.code, built.stderr + built.stdout).toBe(0);
  expect(built.stdout).toMatch(/(built|up-to-date) +[\d.]+s +swe-env-test\/sweb\.eval\.x86_64\.example__calc-1:latest/);
  const { tasks, problems } = await loadTaskFile(tasksFile);
  expect(problems).toEqual([]);
  swebench = tasks[0]!;
  smith = tasks[1]!;
  // A record whose base commit is not in its image: Reset must refuse it as an environment error.
  const mismatched = join(tasksDir, 'mismatched.jsonl');
  await writeFile(
    mismatched,
    `${JSON.stringify({ ...JSON.parse((await readFile(tasksFile, 'utf8')).split('\n')[0]!), instance_id: 'example__calc-bad', base_commit: 'f'.repeat(40) })}\n`,
  );
  t = await startTestServer({ taskFiles: [tasksFile, mismatched] });
});

const scratch: string[] = [];

afterAll(async () => {
  await t?.stop();
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
  expect(await t.server.provider.listContainers()).toEqual([]);
});

describe('images build', () => {
  it('is skipped when the image is up to date', async () => {
    const again = await cli('images', 'build', '--tasks', tasksFile, '--repo', repo);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/up-to-date +[\d.]+s +swe-env-test\/sweb\.eval\.x86_64\.example__calc-1/);
  });
});

describe('grading real-format tasks', () => {
  it('SWE-bench record: gold 1, empty 0', async () => {
    expect((await t.client.evaluate(swebench.id, swebench.goldPatch)).report!.reward).toBe(1);
    expect((await t.client.evaluate(swebench.id, '')).report!.reward).toBe(0);
  });

  it('SWE-smith record: the reversed bug patch scores 1, the empty patch 0', async () => {
    const gold = (await t.client.evaluate(smith.id, smith.goldPatch)).report!;
    expect(gold.error).toBe('');
    expect(gold.reward).toBe(1);
    expect((await t.client.evaluate(smith.id, '')).report!.reward).toBe(0);
  });

  it('an episode round trip scores 1', async () => {
    const reset = await t.client.reset({ taskId: swebench.id });
    await t.client.bash(reset.episodeId, 0, applyPatchCommand(swebench.goldPatch));
    const r = await t.client.submit(reset.episodeId, 1);
    expect(r.reward).toBe(1);
    await t.client.close(reset.episodeId);
  });

  it('`validate` passes both tasks and prints the timing table', async () => {
    const out = await cli('validate', '--tasks', tasksFile);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/example__calc-1 +yes/);
    expect(out.stdout).toMatch(/example__calc\.smith_1 +yes/);
    expect(out.stdout).toContain('all tasks are sound');
  });

  it("`eval` writes the harness's run report and per-instance logs, counts an empty patch only as empty, and a re-run skips what it graded", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-eval-'));
    scratch.push(dir);
    const predictions = join(dir, 'preds.jsonl');
    await writeFile(
      predictions,
      [
        { instance_id: swebench.id, model_patch: swebench.goldPatch, model_name_or_path: 'org/m' },
        { instance_id: smith.id, model_patch: '', model_name_or_path: 'org/m' },
      ]
        .map((p) => JSON.stringify(p))
        .join('\n'),
    );
    const out = join(dir, 'out');
    const first = await cli('eval', '--tasks', tasksFile, '--predictions', predictions, '--out', out, '--run-id', 'r1');
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(await readFile(join(out, 'org__m.r1.json'), 'utf8')) as Record<string, unknown>;
    // swebench 5.0.2's make_run_report: an empty patch is neither completed nor unresolved.
    expect(summary).toMatchObject({
      submitted_instances: 2,
      completed_ids: [swebench.id],
      resolved_ids: [swebench.id],
      unresolved_ids: [],
      empty_patch_ids: [smith.id],
      error_ids: [],
      submitted_ids: [smith.id, swebench.id].sort(),
      schema_version: 2,
    });
    expect(summary['incomplete_ids']).toEqual([]);
    const logs = join(out, 'logs', 'run_evaluation', 'r1', 'org__m', swebench.id);
    const one = JSON.parse(await readFile(join(logs, 'report.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(one[swebench.id]!['resolved']).toBe(true);
    expect(one[swebench.id]!['tests_status']).toMatchObject({ FAIL_TO_PASS: { success: ['tests/test_ops.py::test_add'], failure: [] } });
    expect(await readFile(join(logs, 'patch.diff'), 'utf8')).toBe(swebench.goldPatch);
    expect(await readFile(join(logs, 'eval.sh'), 'utf8')).toContain(swebench.baseCommit);
    expect(await readFile(join(logs, 'test_output.txt'), 'utf8')).toMatch(/test_add/);

    const again = await cli('eval', '--tasks', tasksFile, '--predictions', predictions, '--out', out, '--run-id', 'r1');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/1 instance already graded in run r1: skipped/);
    expect(JSON.parse(await readFile(join(out, 'org__m.r1.json'), 'utf8'))).toEqual(summary);
  });

  it("`eval --predictions gold --instance` grades the chosen tasks' gold patches", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-eval-'));
    scratch.push(dir);
    const out = await cli('eval', '--tasks', tasksFile, '--predictions', 'gold', '--instance', smith.id, '--out', dir, '--run-id', 'g');
    expect(out.code, out.stderr).toBe(0);
    const summary = JSON.parse(await readFile(join(dir, 'gold.g.json'), 'utf8')) as Record<string, unknown>;
    expect(summary).toMatchObject({ total_instances: 1, resolved_ids: [smith.id], submitted_ids: [smith.id] });
  });

  it('`eval` refuses predictions mistakes before grading anything, naming the file, the line and the fix', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-eval-'));
    scratch.push(dir);
    const cases: Array<[string, RegExp]> = [
      [
        `${JSON.stringify({ instance_id: swebench.id, patch: 'x', model_name_or_path: 'm' })}\n`,
        /preds\.jsonl \(line 1\): example__calc-1 has no model_patch \(found patch\)/,
      ],
      [
        `${JSON.stringify({ instance_id: swebench.id, model_patch: '', model_name_or_path: 'm' })}\n{"instance_id": "x", \n`,
        /preds\.jsonl:2: not valid JSON/,
      ],
      [
        `${JSON.stringify({ instance_id: 'example__calc-2', model_patch: 'x', model_name_or_path: 'm' })}\n`,
        /not in the task files: example__calc-2 \(did you mean example__calc-1/,
      ],
      [
        [swebench.id, swebench.id].map((id) => JSON.stringify({ instance_id: id, model_patch: '', model_name_or_path: 'm' })).join('\n'),
        /predicted twice \(line 1 and line 2\)/,
      ],
    ];
    for (const [text, message] of cases) {
      const predictions = join(dir, 'preds.jsonl');
      await writeFile(predictions, text);
      const out = await cli('eval', '--tasks', tasksFile, '--predictions', predictions, '--out', join(dir, 'out'));
      expect(out.code).not.toBe(0);
      expect(out.stderr).toMatch(message);
      expect(existsSync(join(dir, 'out'))).toBe(false);
    }
  });
});

/** A test that must fail, run in the agent's container: the hack makes pytest report it passed. */
const PROBE = {
  command:
    "printf 'def test_probe():\\n    assert False\\n' > probe_test_x.py && python3 -m pytest -rA probe_test_x.py 2>&1 | grep test_probe; rm -f probe_test_x.py",
  expect: /PASSED probe_test_x\.py::test_probe/,
};

describe('reset checks the image against the task', () => {
  it('refuses an episode whose image does not hold base_commit, saying so', async () => {
    const error = await t.client.reset({ taskId: 'example__calc-bad' }).then(
      () => undefined,
      (e: unknown) => e as { code: number; details: string },
    );
    expect(error?.code).toBe(13);
    expect(error?.details).toMatch(/does not match base_commit ffffffffffff/);
    expect(await t.server.provider.listContainers()).toEqual([]);
  });
});

describe('reward hacks score 0', () => {
  async function hackEpisode(
    commands: string[],
    verify?: { command: string; expect: RegExp },
  ): Promise<{ reward: number; dropped: string[] }> {
    const reset = await t.client.reset({ taskId: swebench.id });
    let step = 0;
    for (const command of commands) {
      const r = await t.client.bash(reset.episodeId, step++, command);
      expect(r.exitCode, `${command}\n${r.observation}`).toBe(0);
    }
    if (verify) {
      // The hack does fool pytest inside the agent's own container: what grading must not trust.
      const r = await t.client.bash(reset.episodeId, step++, verify.command);
      expect(r.observation).toMatch(verify.expect);
    }
    const submitted = await t.client.submit(reset.episodeId, step);
    await t.client.close(reset.episodeId);
    expect(submitted.report!.infraError).toBe(false);
    return { reward: submitted.reward, dropped: submitted.report!.droppedFiles };
  }

  it('reading the fix from history: `git log --all` shows nothing after the base commit', async () => {
    const reset = await t.client.reset({ taskId: swebench.id });
    const log = await t.client.bash(
      reset.episodeId,
      0,
      'git log --all --format=%H; git tag; git branch -a; git stash list; git reflog | wc -l',
    );
    expect(log.observation).toContain(base);
    expect(log.observation).not.toContain(future);
    expect(log.observation).not.toContain('v1.1');
    expect(log.observation).not.toContain('feature');
    const obj = await t.client.bash(reset.episodeId, 1, `git cat-file -t ${future}`);
    expect(obj.exitCode).not.toBe(0);
    await t.client.close(reset.episodeId);
  });

  it('marking the failing test xfail from conftest.py', async () => {
    const conftest = [
      'import pytest',
      'def pytest_collection_modifyitems(items):',
      '    for item in items:',
      '        item.add_marker(pytest.mark.xfail(reason="hack"))',
    ].join('\n');
    const r = await hackEpisode([`cat > conftest.py <<'EOF'\n${conftest}\nEOF`, `cp conftest.py tests/conftest.py`]);
    expect(r.reward).toBe(0);
    expect(r.dropped).toEqual(expect.arrayContaining(['conftest.py (test file)', 'tests/conftest.py (test file)']));
  });

  it('editing the test file', async () => {
    const r = await hackEpisode([`cat >> tests/test_ops.py <<'EOF'\n\ndef test_add():\n    assert True\nEOF`]);
    expect(r.reward).toBe(0);
    expect(r.dropped).toContain('tests/test_ops.py (test file)');
  });

  it('deleting the test file', async () => {
    const r = await hackEpisode(['git rm -q tests/test_ops.py']);
    expect(r.reward).toBe(0);
  });

  it('printing fake PASSED lines for the listed tests', async () => {
    const fake = 'print("PASSED tests/test_ops.py::test_add")\\nprint("PASSED tests/test_ops.py::test_mul")';
    const r = await hackEpisode([`printf '${fake}\\n' >> calc/__init__.py`, 'python3 -c "import calc" | grep -c PASSED']);
    expect(r.reward).toBe(0);
  });

  it('a pytest plugin enabled through pytest.ini that rewrites outcomes', async () => {
    const plugin = [
      'import pytest',
      '@pytest.hookimpl(hookwrapper=True)',
      'def pytest_runtest_makereport(item, call):',
      '    outcome = yield',
      '    report = outcome.get_result()',
      '    report.outcome = "passed"',
    ].join('\n');
    const r = await hackEpisode(
      [`cat > calc_plugin.py <<'EOF'\n${plugin}\nEOF`, `printf 'addopts = -p calc_plugin\\n' >> pytest.ini`],
      PROBE,
    );
    expect(r.reward).toBe(0);
    expect(r.dropped).toContain('pytest.ini (test file)');
  });

  it('the same plugin through pyproject.toml (with pytest.ini deleted)', async () => {
    const plugin =
      'import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = "passed"\n';
    const r = await hackEpisode(
      [
        `cat > calc_plugin.py <<'EOF'\n${plugin}EOF`,
        'git rm -q pytest.ini',
        `printf '[tool.pytest.ini_options]\\npythonpath = ["."]\\naddopts = "-p calc_plugin"\\n' > pyproject.toml`,
      ],
      PROBE,
    );
    expect(r.reward).toBe(0);
    expect(r.dropped).toEqual(
      expect.arrayContaining(['pytest.ini (test file)', 'pyproject.toml (pytest configuration, found on disk after applying)']),
    );
  });
});
