/**
 * Eval plans end to end, with real Docker, real gRPC and images this test builds:
 * - a package installed non-editable into the image (pip install ., a copy in site-packages): the
 *   gold patch resolves only when the plan re-installs after the patch, as the harness does;
 * - a SWE-bench 5.x row whose own eval_script generates a locale and exports LANG/LC_ALL before its
 *   tests (as Django 1.7-3.2's eval commands do): the gold patch resolves only with those steps.
 * Each is graded both ways: with the plan (1) and without the step (0), so the step is shown to be
 * what makes the difference.
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
const servers: TestServer[] = [];

interface Fixture {
  readonly tasksFile: string;
  readonly tasks: Task[];
}

/** A repository with a base and a fix commit; its records (one per variant) and their images built. */
async function fixture(
  name: string,
  base: Record<string, string>,
  fix: Record<string, string>,
  records: (r: Record<string, unknown>) => Record<string, unknown>[],
): Promise<Fixture> {
  const repo = await newRepo();
  scratch.push(repo);
  await writeFiles(repo, base);
  const baseCommit = await commitAll(repo, 'base');
  await writeFiles(repo, fix);
  const fixCommit = await commitAll(repo, 'fix');
  const patch = await git(repo, 'diff', baseCommit, fixCommit, '--', '.', ':!tests');
  const testPatch = await git(repo, 'diff', baseCommit, fixCommit, '--', 'tests');
  const dir = await mkdtemp(join(tmpdir(), `swe-env-${name}-`));
  scratch.push(dir);
  const tasksFile = join(dir, 'tasks.jsonl');
  const common = {
    repo: `example/${name}`,
    base_commit: baseCommit,
    patch,
    test_patch: testPatch,
    problem_statement: name,
    version: '1.0',
  };
  await writeFile(
    tasksFile,
    records(common)
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  await run('node', [CLI, 'images', 'build', '--tasks', tasksFile, '--repo', repo], { maxBuffer: 16 * 1024 * 1024 });
  const { tasks, problems } = await loadTaskFile(tasksFile);
  expect(problems).toEqual([]);
  return { tasksFile, tasks };
}

async function server(tasksFile: string, installRerun: 'when-needed' | 'never' = 'when-needed'): Promise<TestServer> {
  const t = await startTestServer({ taskFiles: [tasksFile], installRerun });
  servers.push(t);
  return t;
}

let installed: Fixture;
let localised: Fixture;
let reinstalling: TestServer;
let notReinstalling: TestServer;
let localeServer: TestServer;

beforeAll(async () => {
  installed = await fixture(
    'installed',
    {
      'setup.py': 'from setuptools import setup\nsetup(name="greet", version="1.0", packages=["greet"])\n',
      'greet/__init__.py': 'def greet(name):\n    return "Hello " + name\n',
      'tests/test_greet.py': 'from greet import greet\n\n\ndef test_plain():\n    assert greet("x").startswith("Hello")\n',
    },
    {
      'greet/__init__.py': 'def greet(name):\n    return "Hello, " + name + "!"\n',
      'tests/test_greet.py':
        'from greet import greet\n\n\ndef test_plain():\n    assert greet("x").startswith("Hello")\n\n\ndef test_punctuation():\n    assert greet("Ada") == "Hello, Ada!"\n',
    },
    (common) => [
      {
        ...common,
        instance_id: 'example__installed-1',
        // Not editable: the tests import the copy in site-packages (pytest puts only tests/ on the path).
        install: 'python3 -m pip install --no-build-isolation --no-index --quiet .',
        FAIL_TO_PASS: ['tests/test_greet.py::test_punctuation'],
        PASS_TO_PASS: ['tests/test_greet.py::test_plain'],
        image_name: 'swe-env-test/sweb.eval.x86_64.example__installed-1:latest',
      },
    ],
  );
  localised = await fixture(
    'localised',
    {
      'money/__init__.py': 'import locale\n\n\ndef amount(n):\n    return locale.format_string("%d", n)\n',
      'tests/test_money.py': 'import locale\nfrom money import amount\n\n\ndef test_small():\n    assert amount(5) == "5"\n',
      'pytest.ini': '[pytest]\npythonpath = .\n',
    },
    {
      'money/__init__.py': 'import locale\n\n\ndef amount(n):\n    return locale.format_string("%d", n, grouping=True)\n',
      'tests/test_money.py':
        'import locale\nfrom money import amount\n\n\ndef test_small():\n    assert amount(5) == "5"\n\n\ndef test_grouped():\n    locale.setlocale(locale.LC_ALL, "")\n    assert amount(1234567) == "1,234,567"\n',
    },
    (common) => {
      const rows = (id: string, evalCommands: string[]) => ({
        ...common,
        instance_id: id,
        FAIL_TO_PASS: ['tests/test_money.py::test_grouped'],
        PASS_TO_PASS: ['tests/test_money.py::test_small'],
        image_name: `swe-env-test/sweb.eval.x86_64.${id}:latest`,
        log_parser: 'parse_log_pytest',
        eval_script: evalScript(common, evalCommands),
      });
      return [
        rows('example__localised-1', [
          "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
          'export LANG=en_US.UTF-8',
          'export LC_ALL=en_US.UTF-8',
        ]),
        rows('example__localised-2', []),
      ];
    },
  );
  reinstalling = await server(installed.tasksFile);
  notReinstalling = await server(installed.tasksFile, 'never');
  localeServer = await server(localised.tasksFile);
}, 600_000);

/** A 5.x row's eval.sh in the harness's shape, around the given eval commands. */
function evalScript(common: Record<string, unknown>, evalCommands: string[]): string {
  const base = common['base_commit'] as string;
  const reset = `git checkout ${base} tests/test_money.py`;
  return [
    '#!/bin/bash',
    'set -uxo pipefail',
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    'cd /testbed',
    ...evalCommands,
    'git config --global --add safe.directory /testbed',
    'cd /testbed',
    'git status',
    'git show',
    `git -c core.fileMode=false diff ${base}`,
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    reset,
    `git apply -v - <<'EOF_114329324912'\n${common['test_patch'] as string}\nEOF_114329324912`,
    ": '>>>>> Start Test Output'",
    'pytest -rA tests/test_money.py',
    ": '>>>>> End Test Output'",
    reset,
    '',
  ].join('\n');
}

afterAll(async () => {
  for (const t of servers) await t.stop();
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
  for (const t of servers) expect(await t.server.provider.listContainers()).toEqual([]);
});

describe('the install step re-run after the patch', () => {
  it('a non-editable install: the gold patch resolves with the re-install, and does not without it', async () => {
    const task = installed.tasks[0]!;
    const withPlan = (await reinstalling.client.evaluate(task.id, task.goldPatch)).report!;
    expect(withPlan.infraError).toBe(false);
    expect(withPlan.install).toMatchObject({ ran: true, exitCode: 0 });
    expect(withPlan.install!.reason).toMatch(/non-editable/);
    expect(withPlan.durations!.installS).toBeGreaterThan(0);
    expect(withPlan.reward, `${withPlan.error} ${withPlan.integrityFlags.join('; ')} ${withPlan.install?.outputTail}`).toBe(1);
    expect(withPlan.harness!.resolved).toBe(true);

    const without = (await notReinstalling.client.evaluate(task.id, task.goldPatch)).report!;
    expect(without.install).toMatchObject({ ran: false });
    expect(without.reward).toBe(0); // the installed copy is the old code
    expect(without.failToPass[0]).toMatchObject({ name: 'tests/test_greet.py::test_punctuation', status: 'TEST_STATUS_FAILED' });
  });

  it('the empty patch changes nothing, so nothing is re-installed, and it scores 0', async () => {
    const task = installed.tasks[0]!;
    const report = (await reinstalling.client.evaluate(task.id, '')).report!;
    expect(report.install).toMatchObject({ ran: false, reason: 'the patch changes nothing' });
    expect(report.reward).toBe(0);
  });
});

describe("a 5.x row's own eval_script: locale steps before the tests", () => {
  it("the gold patch resolves with the row's locale-gen and exports, and does not without them", async () => {
    const s = localeServer;
    const [withSteps, withoutSteps] = localised.tasks as [Task, Task];
    const graded = (await s.client.evaluate(withSteps.id, withSteps.goldPatch)).report!;
    expect(graded.plan).toMatchObject({ source: 'record-eval-script', harnessParser: 'parse_log_pytest' });
    expect(graded.plan!.evalCommands).toContain('export LC_ALL=en_US.UTF-8');
    expect(graded.reward).toBe(1);
    const bare = (await s.client.evaluate(withoutSteps.id, withoutSteps.goldPatch)).report!;
    expect(bare.plan!.evalCommands).toEqual([]);
    expect(bare.reward).toBe(0);
    expect(bare.failToPass[0]!.status).not.toBe('TEST_STATUS_PASSED');
  });
});
