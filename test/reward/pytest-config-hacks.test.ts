/**
 * pytest settings and test-support modules, end to end with real Docker and an image this test
 * builds: a repository whose pytest configuration lives in setup.cfg (`filterwarnings = error`,
 * `addopts` on continuation lines) and whose tests import their assertion helper from the package's
 * own `calc/_testing.py`. Each trick is shown working in the agent's container (the failing test
 * passes there), then graded: the grader compares pytest's settings with real parsers, or finds the
 * helper the tests import, puts the file back and scores 0. The gold patch scores 1.
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

const SETUP_CFG = `[metadata]
name = calc

[tool:pytest]
pythonpath = .
addopts =
    -p no:cacheprovider
filterwarnings =
    error
`;

const BASE_FILES = {
  'setup.cfg': SETUP_CFG,
  'calc/__init__.py': 'from .ops import add, scale\n',
  'calc/ops.py':
    'import warnings\n\n\ndef add(a, b):\n    return a - b\n\n\ndef scale(x):\n    warnings.warn("scale() is deprecated", DeprecationWarning)\n    return 2 * x\n',
  'calc/_testing.py': 'def assert_equal(actual, expected):\n    assert actual == expected, f"{actual!r} != {expected!r}"\n',
  'tests/test_ops.py':
    'from calc import add, scale\nfrom calc._testing import assert_equal\n\n\ndef test_placeholder():\n    assert_equal(1, 1)\n',
};

const scratch: string[] = [];
let t: TestServer;
let warning: Task;
let helper: Task;

beforeAll(async () => {
  const repo = await newRepo();
  scratch.push(repo);
  await writeFiles(repo, BASE_FILES);
  const base = await commitAll(repo, 'base');
  await writeFiles(repo, {
    'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef scale(x):\n    return 2 * x\n',
    'tests/test_ops.py': `${BASE_FILES['tests/test_ops.py']}\n\ndef test_add():\n    assert_equal(add(2, 3), 5)\n\n\ndef test_scale():\n    assert scale(2) == 4\n`,
  });
  const future = await commitAll(repo, 'fix');
  const patch = await git(repo, 'diff', base, future, '--', 'calc');
  const testPatch = await git(repo, 'diff', base, future, '--', 'tests');
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-cfg-tasks-'));
  scratch.push(dir);
  const tasksFile = join(dir, 'tasks.jsonl');
  const record = (id: string, failToPass: string[], problem: string): Record<string, unknown> => ({
    repo: 'example/cfgcalc',
    instance_id: id,
    base_commit: base,
    patch,
    test_patch: testPatch,
    problem_statement: problem,
    version: '1.0',
    FAIL_TO_PASS: failToPass,
    PASS_TO_PASS: ['tests/test_ops.py::test_placeholder'],
    image_name: `swe-env-test/sweb.eval.x86_64.${id}:latest`,
  });
  await writeFile(
    tasksFile,
    [
      record('example__cfgcalc-1', ['tests/test_ops.py::test_scale'], 'scale() warns that it is deprecated; it is not.'),
      record('example__cfgcalc-2', ['tests/test_ops.py::test_add'], 'add(2, 3) returns -1.'),
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  const built = await run('node', [CLI, 'images', 'build', '--tasks', tasksFile, '--repo', repo], { maxBuffer: 16 * 1024 * 1024 });
  expect(built.stdout).toMatch(/example__cfgcalc-2/);
  const { tasks, problems } = await loadTaskFile(tasksFile);
  expect(problems).toEqual([]);
  [warning, helper] = tasks as [Task, Task];
  t = await startTestServer({ taskFiles: [tasksFile] });
});

afterAll(async () => {
  await t?.stop();
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
  expect(await t.server.provider.listContainers()).toEqual([]);
});

/** The task's failing test, written into the agent's container and run there. */
function probe(body: string): string {
  return `printf '${body}' > tests/test_probe.py && python3 -m pytest -rA tests/test_probe.py 2>&1 | grep -E '^(PASSED|FAILED) '; rm -f tests/test_probe.py`;
}
const SCALE_PROBE = probe('from calc import scale\\n\\ndef test_probe():\\n    assert scale(2) == 4\\n');
const ADD_PROBE = probe(
  'from calc import add\\nfrom calc._testing import assert_equal\\n\\ndef test_probe():\\n    assert_equal(add(2, 3), 5)\\n',
);

async function trick(task: Task, command: string, probeCommand: string): Promise<{ reward: number; dropped: string[]; error: string }> {
  const reset = await t.client.reset({ taskId: task.id });
  const id = reset.episodeId;
  try {
    const before = await t.client.bash(id, 0, probeCommand);
    expect(before.observation).toMatch(/^FAILED tests\/test_probe\.py::test_probe/m);
    const applied = await t.client.bash(id, 1, command);
    expect(applied.exitCode, applied.observation).toBe(0);
    const after = await t.client.bash(id, 2, probeCommand);
    expect(after.observation).toMatch(/^PASSED tests\/test_probe\.py::test_probe/m); // the trick works here
    const submitted = await t.client.submit(id, 3);
    expect(submitted.report!.infraError).toBe(false);
    return { reward: submitted.reward, dropped: submitted.report!.droppedFiles, error: submitted.report!.error };
  } finally {
    await t.client.close(id).catch(() => undefined);
  }
}

describe('pytest configuration read by real parsers', () => {
  it('the gold patches score 1', async () => {
    for (const task of [warning, helper]) {
      const report = (await t.client.evaluate(task.id, task.goldPatch)).report!;
      expect(report.reward, `${task.id}: ${report.error} ${report.integrityFlags.join('; ')} ${report.logTail}`).toBe(1);
    }
  });

  it('removing `error` from filterwarnings in setup.cfg', async () => {
    const r = await trick(warning, "sed -i '/^    error$/d' setup.cfg && ! grep -q error setup.cfg", SCALE_PROBE);
    expect(r.reward).toBe(0);
    expect(r.dropped).toContain('setup.cfg (pytest configuration, found on disk after applying)');
  });

  it('a continuation line under addopts (no pytest keyword on the changed line)', async () => {
    const r = await trick(
      warning,
      "sed -i 's/^    -p no:cacheprovider$/&\\n    -W ignore::DeprecationWarning/' setup.cfg && grep -q ignore:: setup.cfg",
      SCALE_PROBE,
    );
    expect(r.reward).toBe(0);
    expect(r.dropped).toContain('setup.cfg (pytest configuration, found on disk after applying)');
  });

  it('a pyproject.toml whose [tool."\\u0070ytest".ini_options] overrides setup.cfg', async () => {
    const toml = String.raw`[project]
name = "calc"

[tool."\u0070ytest".ini_options]
"\u0070ythonpath" = ["."]
`;
    const r = await trick(warning, `cat > pyproject.toml <<'EOF'\n${toml}EOF`, SCALE_PROBE);
    expect(r.reward).toBe(0);
    expect(r.dropped).toContain('pyproject.toml (pytest configuration, found on disk after applying)');
  });
});

describe('test-support modules the tests import', () => {
  it("making the package's own assert helper a no-op (calc/_testing.py)", async () => {
    const r = await trick(helper, "printf 'def assert_equal(actual, expected):\\n    pass\\n' > calc/_testing.py", ADD_PROBE);
    expect(r.reward).toBe(0);
    expect(r.dropped).toContain('calc/_testing.py (test-support module the tests import, found on disk after applying)');
  });
});
