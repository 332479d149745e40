import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The demo dataset's sources under tasks/demo/: repos/<repo>/ holds each repository at its base
 * commit; tasks/<repo>-<n>/ holds task.json (issue text), fix/ (files after the gold fix) and
 * tests/ (test files after the test change). Patches are computed with git, never hand-written.
 */
export const DEMO_ORG = 'swe-env-demo';
export const DEMO_VERSION = '0.1';

/** Fixed identity and dates make the base commit's SHA the same on every machine. */
export const DETERMINISTIC_GIT_ENV: Readonly<Record<string, string>> = Object.freeze({
  GIT_AUTHOR_NAME: 'swe-env demo',
  GIT_AUTHOR_EMAIL: 'demo@swe-env.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'swe-env demo',
  GIT_COMMITTER_EMAIL: 'demo@swe-env.invalid',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
});

export const BASE_COMMIT_MESSAGE = 'Base revision for the swe-env demo tasks';

export interface SourceFile {
  readonly path: string;
  readonly content: Buffer;
}

export async function listFiles(dir: string): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  const walk = async (current: string): Promise<void> => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.name === '__pycache__' || entry.name === '.pytest_cache') continue;
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) out.push({ path: relative(dir, full), content: await readFile(full) });
    }
  };
  await walk(dir);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

export function hashFiles(files: readonly SourceFile[], extra = ''): string {
  const hash = createHash('sha256').update(extra);
  for (const file of files) hash.update(file.path).update('\0').update(file.content).update('\0');
  return hash.digest('hex');
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'init.defaultBranch=main', '-c', 'core.autocrlf=false', ...args], {
    cwd,
    env: { ...process.env, ...DETERMINISTIC_GIT_ENV },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export interface DemoTaskSource {
  readonly name: string;
  readonly repoName: string;
  readonly problemStatement: string;
  readonly hintsText: string;
  readonly createdAt: string;
  readonly goldPatch: string;
  readonly testPatch: string;
}

export interface DemoRepoSource {
  readonly name: string;
  readonly files: SourceFile[];
  readonly baseCommit: string;
  readonly tasks: DemoTaskSource[];
}

/** Reads repos and tasks and computes base commits and patches with git in a scratch directory. */
export async function readDemoSources(demoDir: string): Promise<DemoRepoSource[]> {
  const repoNames = (await readdir(join(demoDir, 'repos'))).sort();
  const taskNames = (await readdir(join(demoDir, 'tasks'))).sort();
  const repos: DemoRepoSource[] = [];
  for (const repoName of repoNames) {
    const scratch = await mkdtemp(join(tmpdir(), `swe-env-demo-${repoName}-`));
    try {
      await cp(join(demoDir, 'repos', repoName), scratch, { recursive: true });
      await git(scratch, ['init', '-q']);
      await git(scratch, ['add', '-A']);
      await git(scratch, ['commit', '-q', '-m', BASE_COMMIT_MESSAGE]);
      const baseCommit = (await git(scratch, ['rev-parse', 'HEAD'])).trim();
      const tasks: DemoTaskSource[] = [];
      for (const name of taskNames.filter((t) => t.startsWith(`${repoName}-`))) {
        const taskDir = join(demoDir, 'tasks', name);
        const meta = JSON.parse(await readFile(join(taskDir, 'task.json'), 'utf8')) as Record<string, string>;
        const goldPatch = await overlayDiff(scratch, join(taskDir, 'fix'));
        const testPatch = await overlayDiff(scratch, join(taskDir, 'tests'));
        tasks.push({
          name,
          repoName,
          problemStatement: meta['problem_statement'] ?? '',
          hintsText: meta['hints_text'] ?? '',
          createdAt: meta['created_at'] ?? '',
          goldPatch,
          testPatch,
        });
      }
      repos.push({ name: repoName, files: await listFiles(join(demoDir, 'repos', repoName)), baseCommit, tasks });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  return repos;
}

/** The diff that copying `overlay` over the repository makes; the repository is reset after. */
async function overlayDiff(repo: string, overlay: string): Promise<string> {
  if (!(await stat(overlay).catch(() => undefined))) return '';
  await cp(overlay, repo, { recursive: true });
  await git(repo, ['add', '-A']);
  const diff = await git(repo, ['diff', '--cached', '--binary', '--no-color', 'HEAD']);
  await git(repo, ['reset', '-q', '--hard', 'HEAD']);
  await git(repo, ['clean', '-fdq']);
  return diff;
}
