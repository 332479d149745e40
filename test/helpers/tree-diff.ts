import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The change that takes a repository's tree (a demo repository's folder) to one with these files
 * (and symlinks), as `git diff` gives it: a scratch copy committed as it is, the files written
 * (executable when they start with `#!`), the diff of the index. The copy is removed.
 */
export function treeDiff(
  repoDir: string,
  files: Readonly<Record<string, string>>,
  symlinks: Readonly<Record<string, string>> = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'swe-env-tree-diff-'));
  try {
    cpSync(repoDir, dir, { recursive: true });
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', '-c', 'core.autocrlf=false', ...args], {
        cwd: dir,
        encoding: 'utf8',
      });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
      if (content.startsWith('#!')) chmodSync(join(dir, path), 0o755);
    }
    for (const [path, target] of Object.entries(symlinks)) symlinkSync(target, join(dir, path));
    git('add', '-A');
    return git('diff', '--cached', '--binary');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
