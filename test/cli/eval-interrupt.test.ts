/**
 * Ctrl-C in `swe-env eval`, through the real CLI and real signals: what finished is written, what
 * runs is cancelled and its containers removed; a CLI killed outright leaves containers naming it
 * as their owner, which the next CLI run and any server's sweep remove.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { LABEL_OWNER } from '../../src/sandbox/labels.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { startTestServer } from '../helpers/server.js';

const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const DEMO_TASKS = join(packageRoot(), 'tasks', 'demo', 'tasks.jsonl');
const docker = new Docker();
const children: ChildProcess[] = [];
const scratch: string[] = [];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const c of children) await removeOwned(c.pid!);
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

/** minicalc-3's gold patch with a first line that sleeps at import: its grading runs until cancelled. */
async function predictions(dir: string): Promise<{ file: string; quick: string; slow: string }> {
  const { tasks } = await loadTaskFile(DEMO_TASKS);
  const slow = tasks.find((t) => t.id === 'swe-env-demo__minicalc-3')!;
  const quick = tasks.find((t) => t.id === 'swe-env-demo__textkit-2')!;
  expect(slow.goldPatch).toContain('@@ -1,4 +1,4 @@\n');
  const sleeping = slow.goldPatch.replace('@@ -1,4 +1,4 @@\n', '@@ -1,4 +1,5 @@\n+import time; time.sleep(900)\n');
  const file = join(dir, 'preds.jsonl');
  await writeFile(
    file,
    [
      { instance_id: quick.id, model_patch: quick.goldPatch, model_name_or_path: 'm' },
      { instance_id: slow.id, model_patch: sleeping, model_name_or_path: 'm' },
    ]
      .map((p) => JSON.stringify(p))
      .join('\n'),
  );
  return { file, quick: quick.id, slow: slow.id };
}

function evalCli(args: string[]): {
  child: ChildProcess;
  output: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
} {
  const child = spawn('node', [CLI, 'eval', '--tasks', DEMO_TASKS, '--concurrency', '2', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const output = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, output };
}

/** Containers whose owner label names this pid on this host. */
async function owned(pid: number): Promise<Docker.ContainerInfo[]> {
  const all = await docker.listContainers({ all: true, filters: { label: [LABEL_OWNER] } });
  return all.filter((c) => c.Labels[LABEL_OWNER]?.startsWith(`${hostname()}/${pid}/`));
}

async function removeOwned(pid: number): Promise<void> {
  for (const c of await owned(pid))
    await docker
      .getContainer(c.Id)
      .remove({ force: true })
      .catch(() => undefined);
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('eval and Ctrl-C', () => {
  it('Ctrl-C cancels the running grading, removes its containers, writes the finished one and says how to go on; the re-run resumes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-eval-int-'));
    scratch.push(dir);
    const { file, quick, slow } = await predictions(dir);
    const out = join(dir, 'out');
    const { child, output } = evalCli(['--predictions', file, '--out', out, '--run-id', 'r']);
    const quickReport = join(out, 'logs', 'run_evaluation', 'r', 'm', quick, 'report.json');
    await until('the quick grading to finish', () => existsSync(quickReport));
    await until('the slow grading to run its tests', async () =>
      (await docker.listContainers({ filters: { label: [LABEL_OWNER] } })).some((c) =>
        c.Labels[LABEL_OWNER]?.startsWith(`${hostname()}/${child.pid}/`),
      ),
    );
    child.kill('SIGINT');
    const result = await output;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/interrupted: cancelling the gradings/);
    expect(result.stdout).toMatch(/interrupted: resolved 1, .*not graded yet 1 of 2 predictions/);
    expect(result.stdout).toMatch(/run the same command again to grade the rest/);
    const report = JSON.parse(await readFile(join(out, 'm.r.json'), 'utf8')) as Record<string, unknown>;
    expect(report).toMatchObject({ resolved_ids: [quick], completed_ids: [quick], error_ids: [] });
    expect(report['incomplete_ids']).toContain(slow);
    // Nothing of the cancelled grading is a verdict: no report.json, so a re-run grades it.
    expect(existsSync(join(out, 'logs', 'run_evaluation', 'r', 'm', slow, 'report.json'))).toBe(false);
    expect(await owned(child.pid!)).toEqual([]);
  });

  it("a CLI killed outright leaves containers owned by its dead process: the next CLI run removes them, and so does a server's sweep", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-eval-kill-'));
    scratch.push(dir);
    const { file, quick, slow } = await predictions(dir);
    for (const reclaimer of ['cli', 'server'] as const) {
      const first = evalCli(['--predictions', file, '--instance', slow, '--out', join(dir, reclaimer)]);
      await until('the slow grading to start', async () => (await owned(first.child.pid!)).some((c) => c.State === 'running'));
      first.child.kill('SIGKILL');
      await first.output;
      expect((await owned(first.child.pid!)).length).toBeGreaterThan(0);
      if (reclaimer === 'cli') {
        const next = evalCli(['--predictions', file, '--instance', quick, '--out', join(dir, 'next')]);
        const done = await next.output;
        expect(done.code, done.stderr).toBe(0);
      } else {
        const server = await startTestServer({ sweepIntervalS: 1 });
        try {
          await until('a server sweep to remove them', async () => (await owned(first.child.pid!)).length === 0, 60_000);
        } finally {
          await server.stop();
        }
      }
      await until('the containers to be gone', async () => (await owned(first.child.pid!)).length === 0, 30_000);
    }
  });
});
