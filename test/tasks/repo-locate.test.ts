/**
 * Where `images build --repo` finds a task's repository, with real git repositories in the
 * layouts dataset builders have: owner__name, owner+name, owner/name, name, bare mirrors
 * (name.git, owner__name.git), one repository given directly, and a clear error otherwise.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryFor } from '../../src/tasks/repo-locate.js';
import { commitAll, newRepo, writeFiles } from '../helpers/git-repo.js';

const run = promisify(execFile);
const scratch: string[] = [];
let origin: string;

async function folderWith(...layouts: Array<{ path: string; bare?: boolean }>): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'swe-env-layout-'));
  scratch.push(folder);
  for (const layout of layouts) {
    await mkdir(join(folder, layout.path, '..'), { recursive: true });
    await run('git', ['clone', '-q', ...(layout.bare ? ['--bare'] : []), origin, join(folder, layout.path)]);
  }
  return folder;
}

beforeAll(async () => {
  origin = await newRepo();
  scratch.push(origin);
  // A package folder named like the project: inside a work tree, but not a repository's top.
  await writeFiles(origin, { 'shout/__init__.py': 'x = 1\n' });
  await commitAll(origin, 'base');
});

afterAll(async () => {
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
});

describe('repositoryFor', () => {
  it.each([
    ['owner__name', { path: 'example__shout' }],
    ['owner+name', { path: 'example+shout' }],
    ['owner/name (nested folders)', { path: 'example/shout' }],
    ['plain name', { path: 'shout' }],
    ['bare name.git', { path: 'shout.git', bare: true }],
    ['bare owner__name.git', { path: 'example__shout.git', bare: true }],
  ])('finds a folder of repositories named %s', async (_layout, layout) => {
    const folder = await folderWith(layout);
    expect(await repositoryFor(folder, 'example/shout')).toBe(join(folder, layout.path));
  });

  it("maps SWE-smith's swesmith/owner__name.sha to the same folders", async () => {
    const folder = await folderWith({ path: 'example+shout' });
    expect(await repositoryFor(folder, 'swesmith/example__shout.1a2b3c4d')).toBe(join(folder, 'example+shout'));
  });

  it('prefers owner__name to a plain name another owner could share', async () => {
    const folder = await folderWith({ path: 'shout' }, { path: 'example__shout' });
    expect(await repositoryFor(folder, 'example/shout')).toBe(join(folder, 'example__shout'));
  });

  it('takes one repository given directly, and not its package folder named like the project', async () => {
    expect(await repositoryFor(origin, 'example/shout')).toBe(origin);
    const bare = await folderWith({ path: 'only.git', bare: true });
    expect(await repositoryFor(join(bare, 'only.git'), 'example/shout')).toBe(join(bare, 'only.git'));
  });

  it('names every folder it tried when none is a repository', async () => {
    const folder = await folderWith({ path: 'other__project' });
    await mkdir(join(folder, 'example__shout'));
    const error = await repositoryFor(folder, 'example/shout').catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`no git repository for example/shout in ${folder}`);
    for (const name of [
      'example__shout',
      'example__shout.git',
      'example+shout',
      'example+shout.git',
      'example/shout',
      'example/shout.git',
      'shout',
      'shout.git',
    ]) {
      expect((error as Error).message).toContain(name);
    }
  });
});
