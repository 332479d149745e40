/**
 * `swe-env images build` fills a repository's git submodules offline, from the same folder of
 * repositories as the task's own (owner+name and the other layouts), at the commits the base tree
 * pins, nested ones too (a relative URL is a sibling under the superproject's owner); a submodule
 * with no local repository is left empty and named in the output with what to do. The image holds
 * no host path, and its work tree is clean (the agent's diff starts empty).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliOutput as cli } from '../helpers/task-fixture.js';
import { submoduleOwnerName } from '../../src/tasks/repo-submodules.js';
import { BASE_IMAGE } from '../helpers/docker.js';
import { commitAll, git, writeFiles } from '../helpers/git-repo.js';

const run = promisify(execFile);
const IMAGE = `swe-env-test/sweb.eval.x86_64.example__super-${process.pid}:latest`;
let folder = '';
let tasksFile = '';

/** A repository in the folder under `owner+name`. */
async function repoIn(ownerName: string): Promise<string> {
  const dir = join(folder, ownerName.replace('/', '+'));
  await run('mkdir', ['-p', dir]);
  await git(dir, 'init', '-q');
  return dir;
}

/** Pins `commit` of a repository at `path`, as `git submodule add` records it, with this URL (staged). */
async function pinSubmodule(dir: string, name: string, path: string, url: string, commit: string): Promise<void> {
  await git(dir, 'config', '-f', '.gitmodules', `submodule.${name}.path`, path);
  await git(dir, 'config', '-f', '.gitmodules', `submodule.${name}.url`, url);
  await git(dir, 'update-index', '--add', '--cacheinfo', `160000,${commit},${path}`);
  await git(dir, 'add', '.gitmodules');
}

/** Commits what is staged (not `add -A`: the gitlinks have no directory to add). */
async function commitStaged(dir: string, message: string): Promise<string> {
  await git(dir, 'commit', '-q', '-m', message);
  return (await git(dir, 'rev-parse', 'HEAD')).trim();
}

async function inImage(script: string): Promise<string> {
  const { stdout } = await run('docker', ['run', '--rm', '--network', 'none', IMAGE, 'bash', '-c', script]);
  return stdout.trim();
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'swe-env-submodules-'));
  const deep = await repoIn('example/deep');
  await writeFiles(deep, { 'deep.txt': 'deep v1\n' });
  const deepV1 = await commitAll(deep, 'deep v1');
  const lib = await repoIn('example/lib');
  await writeFiles(lib, { 'lib.txt': 'lib v1\n' });
  await git(lib, 'add', 'lib.txt');
  await pinSubmodule(lib, 'deep', 'deep', '../deep.git', deepV1);
  const libV1 = await commitStaged(lib, 'lib v1');
  // A later commit the superproject does not pin: the image must hold v1.
  await writeFiles(lib, { 'lib.txt': 'lib v2\n' });
  await git(lib, 'add', 'lib.txt');
  await commitStaged(lib, 'lib v2');
  const sup = await repoIn('example/super');
  await writeFiles(sup, { 'README.md': 'super\n' });
  await git(sup, 'add', 'README.md');
  await pinSubmodule(sup, 'lib', 'third_party/lib', 'https://github.com/example/lib.git', libV1);
  await pinSubmodule(sup, 'gone', 'vendor/gone', 'git@github.com:other/gone.git', deepV1);
  // A repository that is there but lacks the pinned commit (lib's, not deep's).
  await pinSubmodule(sup, 'stale', 'vendor/stale', 'https://github.com/example/deep', libV1);
  const base = await commitStaged(sup, 'base');
  tasksFile = join(folder, 'tasks.jsonl');
  await writeFile(
    tasksFile,
    `${JSON.stringify({
      repo: 'example/super',
      instance_id: 'example__super-1',
      base_commit: base,
      version: '1.0',
      patch: 'diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-super\n+super!\n',
      test_patch:
        'diff --git a/tests/test_x.py b/tests/test_x.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_x.py\n@@ -0,0 +1,2 @@\n+def test_x():\n+    assert open("README.md").read() == "super!\\n"\n',
      problem_statement: 'README',
      FAIL_TO_PASS: ['tests/test_x.py::test_x'],
      PASS_TO_PASS: [],
      image_name: IMAGE,
      install: 'true',
    })}\n`,
  );
}, 120_000);

afterAll(async () => {
  await run('docker', ['rmi', '-f', IMAGE]).catch(() => undefined);
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('submodule URLs as owner/name', () => {
  it('reads https, scp-like and ssh URLs, and relative ones against the superproject', () => {
    expect(submoduleOwnerName('https://github.com/example/lib.git', 'a/b')).toBe('example/lib');
    expect(submoduleOwnerName('git@github.com:other/gone.git', 'a/b')).toBe('other/gone');
    expect(submoduleOwnerName('ssh://git@gitlab.example/x/y/', 'a/b')).toBe('x/y');
    expect(submoduleOwnerName('../deep.git', 'example/lib')).toBe('example/deep');
    expect(submoduleOwnerName('./sub', 'example/lib')).toBe('lib/sub');
  });
});

describe('images build with submodules', () => {
  it('fills them from the folder at the pinned commits, nested too, and names the ones it cannot', async () => {
    const built = await cli('images', 'build', '--tasks', tasksFile, '--repo', folder, '--base', BASE_IMAGE, '--force');
    expect(built.code, built.out).toBe(0);
    expect(built.out).toMatch(/submodule vendor\/gone left empty \(git@github\.com:other\/gone\.git\): no git repository for other\/gone/);
    expect(built.out).toMatch(
      /submodule vendor\/stale left empty \(https:\/\/github\.com\/example\/deep\): commit [0-9a-f]{12} not taken from /,
    );
    expect(built.out).not.toMatch(/submodule third_party\/lib/);
    expect(await inImage('cat /testbed/third_party/lib/lib.txt /testbed/third_party/lib/deep/deep.txt')).toBe('lib v1\ndeep v1');
    expect(await inImage('cd /testbed && git status --porcelain | wc -l')).toBe('0');
    // Two checked out at the pinned commits (no `+`), the two it could not fill not initialised (`-`).
    expect(await inImage('cd /testbed && git submodule status --recursive | cut -c1 | tr " " "="')).toBe('=\n=\n-\n-');
  });

  it('keeps the URLs .gitmodules names and no path of the host', async () => {
    expect(await inImage('git -C /testbed/third_party/lib remote get-url origin')).toBe('https://github.com/example/lib.git');
    const configs = await inImage(
      'cat /testbed/.git/config /testbed/.git/modules/lib/config /testbed/.git/modules/lib/modules/deep/config',
    );
    expect(configs).not.toContain(folder);
    // The one whose commit was missing left no partial clone (and no host path) behind.
    expect(await inImage('ls /testbed/.git/modules; grep -rl swe-env-submodules /testbed/.git || true')).toBe('lib');
  });
});
