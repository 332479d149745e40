/**
 * `swe-env eval` re-runs the plan's install only when needed unless told `--install-rerun always`
 * (the harness's exact steps), through the real CLI on an image this test builds: an editable
 * install and a gold patch that changes only source, so `when-needed` skips the re-install that
 * `always` runs.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTaskFixture, cli, type TaskFixture } from '../helpers/task-fixture.js';

const scratch: string[] = [];
let editable: TaskFixture;

beforeAll(async () => {
  editable = await buildTaskFixture(
    'editable',
    {
      base: {
        'setup.py': 'from setuptools import setup\nsetup(name="shout", version="1.0", packages=["shout"])\n',
        'shout/__init__.py': 'def shout(text):\n    return text\n',
        'tests/test_shout.py': 'from shout import shout\n\n\ndef test_empty():\n    assert shout("") == ""\n',
      },
      fix: {
        'shout/__init__.py': 'def shout(text):\n    return text.upper()\n',
        'tests/test_shout.py':
          'from shout import shout\n\n\ndef test_empty():\n    assert shout("") == ""\n\n\ndef test_upper():\n    assert shout("hi") == "HI"\n',
      },
    },
    (common) => [
      {
        ...common,
        instance_id: 'example__editable-1',
        install: 'python3 -m pip install --no-build-isolation --no-index --quiet -e .',
        FAIL_TO_PASS: ['tests/test_shout.py::test_upper'],
        PASS_TO_PASS: ['tests/test_shout.py::test_empty'],
        image_name: 'swe-env-test/sweb.eval.x86_64.example__editable-1:latest',
      },
    ],
    scratch,
  );
}, 600_000);

afterAll(async () => {
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
});

/** The install part of the swe-env report inside the instance's report.json. */
async function installOf(out: string, runId: string, instance: string): Promise<{ ran: boolean; reason: string }> {
  const file = join(out, 'logs', 'run_evaluation', runId, 'gold', instance, 'report.json');
  const body = JSON.parse(await readFile(file, 'utf8')) as Record<
    string,
    { resolved: boolean; swe_env: { install: { ran: boolean; reason: string } } }
  >;
  const entry = body[instance]!;
  expect(entry.resolved).toBe(true);
  return entry.swe_env.install;
}

describe('eval --install-rerun', () => {
  it("--help names when-needed as the default and keeps always for the harness's exact steps", async () => {
    const help = await cli('eval', '--help');
    expect(help.code).toBe(0);
    const entry = help.stdout.split(/\n(?=\s+--)/).find((e) => e.trimStart().startsWith('--install-rerun '));
    expect(entry).toMatch(/default: "when-needed"/);
    expect(entry).toMatch(/always/);
  });

  it('by default an editable install is not re-run for a source-only patch; --install-rerun always re-runs it', async () => {
    const task = editable.tasks[0]!;
    const out = await mkdtemp(join(tmpdir(), 'swe-env-eval-install-'));
    scratch.push(out);
    const byDefault = await cli('eval', '--tasks', editable.tasksFile, '--predictions', 'gold', '--out', out, '--run-id', 'default');
    expect(byDefault.code, byDefault.stderr).toBe(0);
    const skipped = await installOf(out, 'default', task.id);
    expect(skipped.ran).toBe(false);
    expect(skipped.reason).toMatch(/editable install already runs the patched code/);

    const always = await cli(
      'eval',
      '--tasks',
      editable.tasksFile,
      '--predictions',
      'gold',
      '--out',
      out,
      '--run-id',
      'always',
      '--install-rerun',
      'always',
    );
    expect(always.code, always.stderr).toBe(0);
    const ran = await installOf(out, 'always', task.id);
    expect(ran.ran).toBe(true);
    expect(ran.reason).toMatch(/--install-rerun always/);
  });
});
