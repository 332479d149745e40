/**
 * Changes to marked's library (markedjs__marked-2811, a fail-only jasmine row) that try to pass the
 * listed spec without the fix, graded in real containers: each is shown beside the gold patch (1).
 * The image is built from the CI bundle with the row's own npm install, and removed afterwards.
 */
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { Grader } from '../../src/reward/grader.js';
import type { GradeReport } from '../../src/reward/report.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { loadTaskFiles } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { corpusGrader } from '../helpers/corpus-grader.js';

const run = promisify(execFile);
const ROOT = packageRoot();
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const ID = 'markedjs__marked-2811';
const IMAGE = `swe-env-test/jasmine-attacks-${process.pid}:latest`;

const docker = new Docker();
const provider = new DockerSandboxProvider(`jasmine-attacks-${process.pid}`, { ownedByThisProcess: true });
let dir = '';
let task: Task;
let grader: Grader;

async function cli(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('node', [CLI, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`swe-env ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'swe-env-jasmine-attacks-'));
  const row = (await readFile(join(ROOT, 'tasks', 'corpus', 'tasks.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>)
    .find((r) => r.instance_id === ID);
  if (!row) throw new Error(`${ID}: not in tasks/corpus/tasks.jsonl`);
  const tasksFile = join(dir, 'tasks.jsonl');
  await writeFile(tasksFile, JSON.stringify({ ...row, image_name: IMAGE }) + '\n');
  [task] = (await loadTaskFiles([tasksFile], {}, (p) => {
    throw new Error(`${p.where} ${p.field}: ${p.message}`);
  })) as [Task];
  // The row's base commit from its depth-1 CI bundle, a shallow boundary (see sample.test.ts).
  const bare = join(dir, 'repos', 'markedjs+marked');
  await run('git', ['init', '-q', '--bare', bare]);
  const { stdout } = await run('git', ['-C', bare, 'bundle', 'unbundle', join(ROOT, 'tasks', 'corpus', 'ci', 'bundles', `${ID}.bundle`)]);
  const commit = stdout.trim().split(/\s+/)[0] ?? '';
  expect(commit).toBe(row.base_commit);
  await appendFile(join(bare, 'shallow'), `${commit}\n`);
  await run('git', ['-C', bare, 'update-ref', `refs/heads/${ID}`, commit]);
  const out = await cli('images', 'base', '--packages', 'nodejs,npm');
  const base = /swe-env\/base:[\w.-]+-plus-[0-9a-f]+/.exec(out)?.[0] ?? '';
  expect(base, out).not.toBe('');
  const args = ['images', 'build', '--tasks', tasksFile, '--repo', join(dir, 'repos'), '--base', base, '--instance', ID];
  await cli(...args, '--concurrency', '1', '--network-install');
  grader = corpusGrader(provider);
}, 900_000);

afterAll(async () => {
  await provider.removeServerContainers().catch(() => undefined);
  await docker
    .getImage(IMAGE)
    .remove({ force: true })
    .catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 180_000);

function summary(report: GradeReport): string {
  const failing = [...report.failToPass, ...report.passToPass].filter((t) => t.status !== 'PASSED').map((t) => `${t.name} ${t.status}`);
  return JSON.stringify({
    reward: report.reward,
    infra: report.infraError,
    flags: report.integrityFlags,
    failing,
    log: report.logTail.slice(-1500),
  });
}

const grade = async (fixture: string): Promise<GradeReport> =>
  grader.grade(task, await readFile(join(ROOT, 'test', 'fixtures', 'corpus', `marked-2811-${fixture}.diff`)));

describe('marked-2811 (fail-only, jasmine 4): changes that pass the listed spec without the fix', () => {
  it('the gold patch scores 1', async () => {
    const gold = await grader.grade(task, Buffer.from(task.goldPatch, 'utf8'));
    expect(gold.integrityFlags, summary(gold)).toEqual([]);
    expect(gold.reward, summary(gold)).toBe(1);
  }, 600_000);

  it("stubbing only expectAsync (marked's specs check with it) scores 0 by the asynchronous must-fail canary", async () => {
    const report = await grade('async-holds');
    // The trick works in the container: the listed spec is reported passing without a fix.
    expect(
      report.failToPass.map((t) => t.status),
      summary(report),
    ).toEqual(['PASSED']);
    expect(report.infraError, summary(report)).toBe(false);
    expect(report.integrityFlags.join('\n'), summary(report)).toMatch(/#canary:2 \(a synthetic test, must be FAILED\) was reported PASSED/);
    expect(report.reward, summary(report)).toBe(0);
  }, 600_000);

  it("rewriting the reporter's line through a replaced Buffer.from scores 0: the reporter took its own", async () => {
    const report = await grade('line-rewrite');
    expect(report.infraError, summary(report)).toBe(false);
    // The trick is live: the default reporter's numbered failures lost their numbers.
    expect(report.logTail, summary(report)).toMatch(/^\d+\] /m);
    expect(
      report.failToPass.map((t) => t.status),
      summary(report),
    ).toEqual(['FAILED']);
    expect(report.reward, summary(report)).toBe(0);
  }, 600_000);

  it('reopening descriptor 1 on a file the change rewrites at exit scores 0: the reporter writes only to the output it had', async () => {
    const report = await grade('fd-swap');
    expect(report.infraError, summary(report)).toBe(false);
    expect(
      report.failToPass.map((t) => t.status),
      summary(report),
    ).not.toEqual(['PASSED']);
    expect(report.reward, summary(report)).toBe(0);
  }, 600_000);

  it("a jasmine-core of the change's in front of the installed one (node_modules/jasmine/node_modules) is left out: 0", async () => {
    const report = await grade('runner-shim');
    expect(report.droppedFiles, summary(report)).toContain(
      'node_modules/jasmine/node_modules/jasmine-core/index.js (read or run by the test runner)',
    );
    expect(report.infraError, summary(report)).toBe(false);
    expect(report.reward, summary(report)).toBe(0);
  }, 600_000);

  it('a postinstall in package.json (the plan re-syncs dependencies with npm install when package.json changed) is left out: 0', async () => {
    const report = await grade('postinstall');
    expect(report.droppedFiles, summary(report)).toContain('package.json (read or run by the test runner)');
    expect(report.infraError, summary(report)).toBe(false);
    expect(report.reward, summary(report)).toBe(0);
  }, 600_000);

  // OPEN (docs/grading-languages.md, fail-only rows): each earns 1 without the fix; these tests
  // fail while it does. The canaries are the specs declared before marked's code loads and check
  // with jasmine's own matchers.
  for (const fixture of ['matchers-pass', 'failures-vanish', 'specs-emptied'])
    it.fails(
      `OPEN: ${fixture} earns 1`,
      async () => {
        const report = await grade(fixture);
        console.log(fixture, summary(report));
        expect(report.reward, summary(report)).toBe(0);
      },
      600_000,
    );
});
