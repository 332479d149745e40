/**
 * `swe-env images build` from the snapshots dataset builders have, through the real CLI and real
 * Docker: shallow clones (tip at base_commit; base_commit a shallow boundary), a blob-less partial
 * clone whose promisor is gone, and the tags setuptools-scm reads (those on base_commit's history
 * only: a tag on a later commit would leak the fix).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliOutput as cli } from '../helpers/task-fixture.js';
import { commitAll, git, newRepo, writeFiles } from '../helpers/git-repo.js';

const run = promisify(execFile);
const scratch: string[] = [];
const image = (id: string): string => `swe-env-test/history.${id}:latest`;
const IDS = ['tagged', 'tip-shallow', 'boundary-shallow', 'partial'] as const;

let origin: string;
let folder: string;
let tasksFile: string;
let base: string;

async function inImage(id: string, ...command: string[]): Promise<string> {
  const { stdout } = await run('docker', ['run', '--rm', '--network', 'none', image(id), ...command]);
  return stdout.trim();
}

async function clone(args: string[], path: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await run('git', ['clone', '-q', ...args, `file://${origin}`, path]);
}

beforeAll(async () => {
  origin = await newRepo();
  scratch.push(origin);
  await writeFiles(origin, { 'calc/__init__.py': 'def add(a, b):\n    return a - b\n' });
  await commitAll(origin, 'first');
  await git(origin, 'tag', '-a', 'v1.2.0', '-m', 'release 1.2.0');
  for (const n of [1, 2, 3]) {
    await writeFiles(origin, { [`notes/${n}.txt`]: `${n}\n` });
    await commitAll(origin, `work ${n}`);
  }
  base = (await git(origin, 'rev-parse', 'HEAD')).trim();
  await git(origin, 'branch', 'at-base', base);
  await writeFiles(origin, {
    'calc/__init__.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  });
  await commitAll(origin, 'fix');
  await git(origin, 'tag', 'v9.9');
  await git(origin, 'config', 'uploadpack.allowFilter', 'true');

  folder = await mkdtemp(join(tmpdir(), 'swe-env-history-'));
  scratch.push(folder);
  // The full repository as a bare mirror named name.git.
  await run('git', ['clone', '-q', '--bare', origin, join(folder, 'tagged.git')]);
  // `git clone --depth 1` whose tip is base_commit, as owner+name.
  await clone(['--depth', '1', '--branch', 'at-base'], join(folder, 'example+tip-shallow'));
  // base_commit is the shallow boundary: the clone has it and the fix on top, nothing older; owner/name.
  await clone(['--depth', '2', '--branch', 'main'], join(folder, 'example', 'boundary-shallow'));
  // A blob-less partial clone checked out at base_commit whose promisor remote is gone (offline).
  await clone(['--filter=blob:none', '--branch', 'at-base'], join(folder, 'example__partial'));
  await git(join(folder, 'example__partial'), 'remote', 'set-url', 'origin', join(folder, 'no-such-remote'));

  tasksFile = join(folder, 'tasks.jsonl');
  const patch = await git(origin, 'diff', base, 'main', '--', 'calc');
  const testPatch = await git(origin, 'diff', base, 'main', '--', 'tests');
  const record = (id: string) => ({
    repo: `example/${id}`,
    instance_id: `example__${id}-1`,
    base_commit: base,
    patch,
    test_patch: testPatch,
    problem_statement: 'add subtracts',
    version: '1.0',
    FAIL_TO_PASS: ['tests/test_add.py::test_add'],
    PASS_TO_PASS: [],
    image_name: image(id),
    // What setuptools-scm sees while the install runs.
    install: 'git describe --tags --always > /root/described-at-install',
  });
  await writeFile(tasksFile, IDS.map((id) => JSON.stringify(record(id))).join('\n'));
}, 120_000);

afterAll(async () => {
  await run('docker', ['rmi', '-f', ...IDS.map(image)]).catch(() => undefined);
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
});

describe("images build from partial and shallow snapshots, with the tags of base_commit's history", () => {
  it('builds every snapshot', async () => {
    const built = await cli('images', 'build', '--tasks', tasksFile, '--repo', folder, '--force', '--concurrency', '2');
    expect(built.code, built.out).toBe(0);
    for (const id of IDS) expect(built.out).toMatch(new RegExp(`built +[\\d.]+s +${image(id).replace(/[.]/g, '\\.')}`));
  }, 600_000);

  it.each(IDS)('%s: /testbed is base_commit, with nothing after it', async (id) => {
    expect(await inImage(id, 'git', '-C', '/testbed', 'rev-parse', 'HEAD~1')).toBe(base);
    const log = await inImage(id, 'git', '-C', '/testbed', 'log', '--all', '--format=%s');
    expect(log.split('\n')).not.toContain('fix');
    expect(await inImage(id, 'cat', '/testbed/calc/__init__.py')).toContain('a - b');
  });

  it("carries the tags on base_commit's history, so git describe (setuptools-scm) answers as in the source; a later tag is absent", async () => {
    const described = (await git(origin, 'describe', '--tags', base)).trim();
    expect(described).toMatch(/^v1\.2\.0-3-g[0-9a-f]+$/);
    expect(await inImage('tagged', 'cat', '/root/described-at-install')).toBe(described);
    expect(await inImage('tagged', 'git', '-C', '/testbed', 'describe', '--tags', base)).toBe(described);
    // HEAD is the image's own final commit on top of base_commit.
    expect(await inImage('tagged', 'git', '-C', '/testbed', 'describe', '--tags')).toMatch(/^v1\.2\.0-4-g[0-9a-f]+$/);
    const tags = (await inImage('tagged', 'git', '-C', '/testbed', 'tag', '--list')).split('\n');
    expect(tags).toContain('v1.2.0');
    expect(tags).not.toContain('v9.9');
  });
});
