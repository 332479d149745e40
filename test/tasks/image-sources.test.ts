/**
 * `swe-env images build` and `validate` as a dataset builder meets them, with real Docker: a source
 * that is only a snapshot (shallow, one branch), a folder of repositories named owner__name, an
 * instance filter, a missing base commit named with its repository, a src/ layout made importable
 * without an install step, and a `validate` hint when the tests cannot import the package.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliOutput as cli } from '../helpers/task-fixture.js';
import { commitAll, git, newRepo, writeFiles } from '../helpers/git-repo.js';

const run = promisify(execFile);
const scratch: string[] = [];
const images: string[] = [];

let folder: string;
let tasksFile: string;
let base: string;

/** A src/ layout package with a bug; `fixed` adds the fix and its test. */
const FILES = {
  'src/shout/__init__.py': 'def shout(s):\n    return s.upper()\n',
  'tests/test_shout.py': 'from shout import shout\n\n\ndef test_upper():\n    assert shout("a").startswith("A")\n',
};

beforeAll(async () => {
  const origin = await newRepo();
  scratch.push(origin);
  await writeFiles(origin, FILES);
  base = await commitAll(origin, 'base');
  await writeFiles(origin, {
    'src/shout/__init__.py': 'def shout(s):\n    return s.upper() + "!"\n',
    'tests/test_shout.py': `${FILES['tests/test_shout.py']}\n\ndef test_bang():\n    assert shout("a") == "A!"\n`,
  });
  const fix = await commitAll(origin, 'fix');
  await git(origin, 'checkout', '-q', '-b', 'unrelated', base);
  await writeFiles(origin, { 'NOTES.md': 'another branch\n' });
  await commitAll(origin, 'unrelated branch');
  const patch = await git(origin, 'diff', base, fix, '--', 'src');
  const testPatch = await git(origin, 'diff', base, fix, '--', 'tests');
  // The builder's copy: a shallow clone of the base commit's branch only, in owner__name.
  folder = await mkdtemp(join(tmpdir(), 'swe-env-repos-'));
  scratch.push(folder);
  await run('git', [
    'clone',
    '-q',
    '--depth',
    '1',
    '--single-branch',
    '--branch',
    'unrelated',
    `file://${origin}`,
    join(folder, 'example__shout'),
  ]);
  await git(join(folder, 'example__shout'), 'fetch', '-q', '--depth', '1', 'origin', base);
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-shout-'));
  scratch.push(dir);
  tasksFile = join(dir, 'tasks.jsonl');
  const record = (id: string, over: Record<string, unknown> = {}) => ({
    repo: 'example/shout',
    instance_id: id,
    base_commit: base,
    patch,
    test_patch: testPatch,
    problem_statement: 'shout() should end with "!"',
    version: '1.0',
    FAIL_TO_PASS: ['tests/test_shout.py::test_bang'],
    PASS_TO_PASS: ['tests/test_shout.py::test_upper'],
    image_name: `swe-env-test/sweb.eval.x86_64.${id}:latest`,
    ...over,
  });
  await writeFile(
    tasksFile,
    [
      record('example__shout-1'),
      // An install that hides the src/ layout from the default: the tests cannot import shout.
      record('example__shout-2', { install: 'true' }),
      record('example__shout-3', { base_commit: '0123456789abcdef0123456789abcdef01234567' }),
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  images.push('swe-env-test/sweb.eval.x86_64.example__shout-1:latest', 'swe-env-test/sweb.eval.x86_64.example__shout-2:latest');
}, 300_000);

afterAll(async () => {
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
});

describe('images build from what a dataset builder has', () => {
  it('builds from a shallow single-branch snapshot found as owner__name, only the filtered tasks, with their build times', async () => {
    const built = await cli(
      'images',
      'build',
      '--tasks',
      tasksFile,
      '--repo',
      folder,
      '--instance',
      'example__shout-1',
      '--instance',
      'example__shout-2',
      '--force',
    );
    expect(built.code, built.out).toBe(0);
    expect(built.out).toMatch(/built +[\d.]+s +swe-env-test\/sweb\.eval\.x86_64\.example__shout-1:latest/);
    expect(built.out).toMatch(/built +[\d.]+s +swe-env-test\/sweb\.eval\.x86_64\.example__shout-2:latest/);
    expect(built.out).not.toContain('example__shout-3');
    // Nothing but base_commit's history is in the image.
    const { stdout } = await run('docker', [
      'run',
      '--rm',
      '--network',
      'none',
      images[0]!,
      'git',
      '-C',
      '/testbed',
      'log',
      '--all',
      '--format=%s',
    ]);
    expect(stdout.trim().split('\n')).not.toContain('fix');
    expect(stdout).not.toContain('unrelated branch');
  });

  it('names the missing base commit and the repository it looked in', async () => {
    const built = await cli('images', 'build', '--tasks', tasksFile, '--repo', folder, '--instance', 'example__shout-3');
    expect(built.code).not.toBe(0);
    expect(built.out).toContain('base_commit 0123456789abcdef0123456789abcdef01234567 is not in the repository');
    expect(built.out).toContain(join(folder, 'example__shout'));
  });

  it('a src/ layout with no install step is importable: validate passes; hidden by an install, validate says why every test is missing', async () => {
    const validated = await cli('validate', '--tasks', tasksFile, '--concurrency', '1', '--test-timeout', '120');
    expect(validated.out).toMatch(/example__shout-1 +yes/);
    expect(validated.out).toMatch(/example__shout-2 +NO/);
    expect(validated.out).toMatch(
      /example__shout-2: [\s\S]*hint: every listed test is missing and the log shows "ModuleNotFoundError: No module named 'shout'"/,
    );
  });
});

afterAll(async () => {
  await run('docker', ['rmi', '-f', ...images]).catch(() => undefined);
});
