/**
 * Ctrl-C in `swe-env collect`, through the real CLI and a real signal: finished samples are
 * written (trajectories and predictions), running ones are closed on the server and left for the
 * next run, which says it resumes. Also: the default run id is per output directory, and a task id
 * the server does not serve is refused up front with the nearest ids (not retried as infra).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { startScriptedModel } from '../../src/trajectories/collect/scripted-model.js';
import { DEMO_TASKS, startTestServer, type TestServer } from '../helpers/server.js';

const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const QUICK = 'swe-env-demo__minicalc-1';
const STALLED = 'swe-env-demo__textkit-2';
const { tasks } = await loadTaskFile(DEMO_TASKS);
const stalledStatement = tasks
  .find((t) => t.id === STALLED)!
  .problemStatement.trim()
  .slice(0, 200);

let server: TestServer;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
let stalling: Server;
let stallingUrl: string;
let stalledAsked = 0;
/** Called when the stalled sample asks its model: a condition waiting on both sides looks again. */
let onStalledAsked = (): void => {};
const work = mkdtempSync(join(tmpdir(), 'swe-env-collect-int-'));

beforeAll(async () => {
  server = await startTestServer({ maxGradings: 2 });
  model = await startScriptedModel(tasks, new Set([QUICK]));
  // The scripted model, except that it never answers for STALLED: a slow LLM mid-sample.
  stalling = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (body.includes(JSON.stringify(stalledStatement).slice(1, -1).slice(0, 80))) {
        stalledAsked += 1;
        onStalledAsked();
        return; // held open until the client gives up
      }
      void fetch(`${model.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text());
        },
      );
    });
  });
  const port = await new Promise<number>((resolve) =>
    stalling.listen(0, '127.0.0.1', () => resolve((stalling.address() as { port: number }).port)),
  );
  stallingUrl = `http://127.0.0.1:${port}/v1`;
});

afterAll(async () => {
  stalling?.closeAllConnections();
  await new Promise((r) => stalling?.close(r));
  await server?.stop();
  await model?.close();
  rmSync(work, { recursive: true, force: true });
});

function collectCli(
  args: string[],
  onStderr?: (text: string, signal: (s: NodeJS.Signals) => void) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('node', [CLI, 'collect', '--server', server.server.address, '--model', 'scripted', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    onStderr?.(stderr, (signal) => child.kill(signal));
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

async function until(what: string, check: () => boolean, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('collect and Ctrl-C', () => {
  it('writes the finished samples, closes the running ones, and the re-run resumes what is left', async () => {
    const out = join(work, 'run');
    let sent = false;
    let stderrSoFar = '';
    let interrupt = (_: NodeJS.Signals): void => {};
    // Once the quick sample is done and the stalled one waits for its model: Ctrl-C. Whichever
    // comes last (the progress line or the model's request) checks.
    const interruptWhenReady = (): void => {
      if (!sent && /1\/2 samples/.test(stderrSoFar) && stalledAsked > 0) {
        sent = true;
        interrupt('SIGINT');
      }
    };
    onStalledAsked = interruptWhenReady;
    const first = await collectCli(
      ['--endpoint', stallingUrl, '--task', QUICK, '--task', STALLED, '--out', out, '--concurrency', '2'],
      (err, signal) => {
        stderrSoFar = err;
        interrupt = signal;
        interruptWhenReady();
      },
    );
    expect(sent, first.stderr).toBe(true);
    expect(first.code, first.stderr).toBe(130);
    expect(first.stdout).toMatch(/collect \(interrupted\): 2 samples: 1 resolved, 0 unresolved, .*1 left for the next run/);
    expect(first.stdout).toMatch(/run the same command again to go on/);
    const predictions = readFileSync(join(out, 'predictions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { instance_id: string });
    expect(predictions.map((p) => p.instance_id)).toEqual([QUICK]);
    // The stalled sample's episode was closed, not left open on the server.
    await until('the server to have no live episode', () => server.server.registry.liveCount === 0, 30_000);

    const again = await collectCli(['--endpoint', model.url, '--task', QUICK, '--task', STALLED, '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming run collect-[0-9a-f]{10} in .*: 1 of 2 samples done before, 1 to go/);
    expect(again.stdout).toMatch(/2 samples: 0 resolved, 1 unresolved, .*1 done before/);
  });

  it('gives each output directory its own run (no episode id clash on one server), and refuses an unknown task id with the nearest ones', async () => {
    const a = await collectCli(['--endpoint', model.url, '--task', QUICK, '--out', join(work, 'a')]);
    const b = await collectCli(['--endpoint', model.url, '--task', QUICK, '--out', join(work, 'b')]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/1 samples: 1 resolved/);
    expect(b.stderr).not.toMatch(/FAILED_PRECONDITION/);

    const typo = await collectCli(['--endpoint', model.url, '--task', 'swe-env-demo__minicalc-11', '--out', join(work, 'typo')]);
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toMatch(/--task swe-env-demo__minicalc-11: the server has no such task \(did you mean swe-env-demo__minicalc-1/);
    expect(typo.stderr).not.toMatch(/Reset of/);
  });
});
