import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { pino } from 'pino';
import { packageRoot } from '../../src/common/paths.js';
import { Semaphore } from '../../src/common/semaphore.js';
import { Grader } from '../../src/reward/grader.js';
import type { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { commitAll, git, newRepo, writeFiles } from './git-repo.js';

const run = promisify(execFile);
export const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The real `swe-env` command (the built CLI); a non-zero exit is a result, not a throw. */
export async function cli(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run('node', [CLI, ...args], { maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The CLI's stdout and stderr as one text, with its exit code. */
export async function cliOutput(...args: string[]): Promise<{ out: string; code: number }> {
  const result = await cli(...args);
  return { out: result.stdout + result.stderr, code: result.code };
}

export interface TaskFixture {
  readonly tasksFile: string;
  readonly tasks: Task[];
}

/**
 * A repository with a base and a fix commit (the fix's tests/ is the test patch, the rest the gold
 * patch), its records and their images built with `swe-env images build`. Every directory made is
 * pushed onto `scratch` for the caller's afterAll to remove.
 */
export async function buildTaskFixture(
  name: string,
  files: { base: Record<string, string>; fix: Record<string, string> },
  records: (common: Record<string, unknown>) => Record<string, unknown>[],
  scratch: string[],
): Promise<TaskFixture> {
  const repo = await newRepo();
  scratch.push(repo);
  await writeFiles(repo, files.base);
  const baseCommit = await commitAll(repo, 'base');
  await writeFiles(repo, files.fix);
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
  const built = await cli('images', 'build', '--tasks', tasksFile, '--repo', repo);
  expect(built.code, built.stderr + built.stdout).toBe(0);
  const { tasks, problems } = await loadTaskFile(tasksFile);
  expect(problems).toEqual([]);
  return { tasksFile, tasks };
}

/** The grader the fixture tests use: a small pool, a two-minute test limit, no disk quota. */
export function fixtureGrader(provider: DockerSandboxProvider): Grader {
  return new Grader(
    provider,
    new Semaphore(2),
    {
      limits: { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 512, diskBytes: 0 },
      testTimeoutS: 120,
      logLimitBytes: 1 << 20,
      maxGradings: 2,
    },
    pino({ level: 'silent' }),
  );
}

/** After a fixture test file: its containers and temporary folders removed, and none left. */
export async function cleanUpFixture(provider: DockerSandboxProvider, scratch: readonly string[]): Promise<void> {
  await provider.removeServerContainers();
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
  expect(await provider.listContainers()).toEqual([]);
}
