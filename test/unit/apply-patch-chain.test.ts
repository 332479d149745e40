import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { APPLY_PATCH_SCRIPT, bashArgv } from '../../src/reward/scripts.js';

const run = promisify(execFile);

/**
 * The harness's patch chain (swebench 5.x): git apply, --3way, --reject, patch --forward --fuzz=5,
 * the tree put back between attempts, and a tree left fully patched accepted. Run here on a real
 * git repository with the machine's git and patch, as the grader runs it in the container.
 */
/** Every repository a test made, with its patch file beside it: removed after the file's tests. */
const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.flatMap((dir) => [rm(dir, { recursive: true, force: true }), rm(`${dir}.patch`, { force: true })]));
});

async function repo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-apply-'));
  made.push(dir);
  const git = (...args: string[]) => run('git', ['-C', dir, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args]);
  await git('init', '-q');
  for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text);
  await git('add', '-A');
  await git('commit', '-qm', 'base');
  return dir;
}

async function diffOf(dir: string, path: string, text: string): Promise<string> {
  const before = await readFile(join(dir, path), 'utf8');
  await writeFile(join(dir, path), text);
  const { stdout } = await run('git', ['-C', dir, 'diff']);
  await writeFile(join(dir, path), before);
  return stdout;
}

async function apply(dir: string, patch: string): Promise<number> {
  await writeFile(join(dir, '..', `${dir.split('/').at(-1)}.patch`), patch);
  const [bash, ...args] = bashArgv(APPLY_PATCH_SCRIPT, 'swe-env-apply', [dir, join(dir, '..', `${dir.split('/').at(-1)}.patch`)]);
  try {
    await run(bash!, args);
    return 0;
  } catch (error) {
    return (error as { code: number }).code;
  }
}

const lines = (n: number, change: (i: number) => string = String) => Array.from({ length: n }, (_, i) => change(i + 1)).join('\n') + '\n';

describe('apply-patch.sh, the harness chain', () => {
  it('a clean patch: git apply', async () => {
    const dir = await repo({ 'a.py': lines(20) });
    const patch = await diffOf(
      dir,
      'a.py',
      lines(20, (i) => (i === 10 ? 'ten' : String(i))),
    );
    expect(await apply(dir, patch)).toBe(10);
    expect(await readFile(join(dir, 'a.py'), 'utf8')).toContain('ten\n');
  });

  it('context that moved on since the patch was made, the pre-image in the object store: git apply --3way', async () => {
    const dir = await repo({ 'a.py': lines(20) });
    const patch = await diffOf(
      dir,
      'a.py',
      lines(20, (i) => (i === 10 ? 'ten' : String(i))),
    );
    // The tree (committed) changes the lines around the hunk, so plain context no longer matches.
    await writeFile(
      join(dir, 'a.py'),
      lines(20, (i) => (i === 8 || i === 12 ? `changed ${i}` : String(i))),
    );
    await run('git', ['-C', dir, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qam', 'moved on']);
    expect(await apply(dir, patch)).toBe(12);
    const text = await readFile(join(dir, 'a.py'), 'utf8');
    expect(text).toContain('ten\n');
    expect(text).toContain('changed 8\n');
  });

  it('a patch that matches nothing: refused, and the tree is left as it was', async () => {
    const dir = await repo({ 'a.py': lines(20) });
    const patch = 'diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n-x\n-y\n-z\n+p\n+q\n+r\n';
    expect(await apply(dir, patch)).toBe(1);
    expect(await readFile(join(dir, 'a.py'), 'utf8')).toBe(lines(20));
    const { stdout } = await run('git', ['-C', dir, 'status', '--porcelain']);
    expect(stdout).toBe('');
  });

  it('a patch already in the tree: accepted (git apply --3way finds nothing left to do)', async () => {
    const dir = await repo({ 'a.py': lines(20) });
    const patch = await diffOf(
      dir,
      'a.py',
      lines(20, (i) => (i === 10 ? 'ten' : String(i))),
    );
    await writeFile(
      join(dir, 'a.py'),
      lines(20, (i) => (i === 10 ? 'ten' : String(i))),
    );
    await run('git', ['-C', dir, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qam', 'has it']);
    expect(await apply(dir, patch)).toBe(12);
    expect(await readFile(join(dir, 'a.py'), 'utf8')).toBe(lines(20, (i) => (i === 10 ? 'ten' : String(i))));
  });

  it('a patch git refuses and patch --fuzz=5 takes (one line of context off): patch', async () => {
    const dir = await repo({ 'a.py': lines(20) });
    const patch = 'diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -8,5 +8,5 @@\n 8\n nine\n-10\n+ten\n 11\n 12\n';
    expect(await apply(dir, patch)).toBe(11);
    expect(await readFile(join(dir, 'a.py'), 'utf8')).toBe(lines(20, (i) => (i === 10 ? 'ten' : String(i))));
  });

  it('patch writing inside .git, then failing: exit 15 and no git after it (a commondir there would run its config’s filter)', async () => {
    const dir = await repo({ 'a.py': lines(20) });
    const file = (path: string, ...text: string[]): string =>
      `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${text.length} @@\n${text.map((t) => `+${t}\n`).join('')}`;
    const patch = [
      'diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-not in a.py\n+x\n',
      file('.git/commondir', '../evil'),
      file('evil/objects/k', 'k'),
      file('evil/refs/k', 'k'),
      file('evil/config', '[core]', '\trepositoryformatversion = 0', '[filter "x"]', '\tclean = sh -c "touch filter-ran; cat"'),
      file('.gitattributes', 'b.txt filter=x'),
      file('b.txt', 'b'),
    ].join('');
    expect(await apply(dir, patch)).toBe(15);
    await expect(readFile(join(dir, 'filter-ran'))).rejects.toThrow(/ENOENT/);
  });
});
