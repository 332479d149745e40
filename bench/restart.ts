/**
 * Restart survival.
 * 1. What the episode records cost a step: `true` steps on a server with a state directory against
 *    one without (the baseline), interleaved, in the same run.
 *    And what the container's command journal alone costs a command in the shell (journal key sent
 *    or not, interleaved on one shell).
 * 2. kill -9 of a server (the CLI, with records) in the middle of N live episodes that step without
 *    pause, restarted at once on the same port: episodes re-adopted, steps lost (answered
 *    INFRA_ERROR because the crash cut them), steps cut by the crash and answered from the
 *    container's command journal (exit code kept, output lost), steps run twice (each step appends
 *    its index to a file in its container; 0 expected), time from the restart until the first Step
 *    answers.
 * Run twice: steps without pause, and with a model turn (~1 s) between steps as in training.
 * Usage: node dist/bench/restart.js [--episodes 32] [--steps 200] [--think-ms 1000]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import type { StepResponse__Output } from '../src/generated/swe_env/v1/StepResponse.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { DockerSandboxProvider } from '../src/sandbox/docker-sandbox.js';
import { ShellSession } from '../src/sandbox/shell-session.js';
import { loadTaskFile } from '../src/tasks/loader.js';
import { arg, describe, printRow, runMain } from './stats.js';

const TASK = 'swe-env-demo__minicalc-1';
const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');

async function stepOverhead(steps: number, stateDir: string): Promise<void> {
  const make = (withState: boolean) =>
    startServer(
      compileConfig({
        port: 0,
        serverId: `bench-journal-${withState ? 'on' : 'off'}-${randomUUID().slice(0, 6)}`,
        taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')],
        limits: { memoryBytes: 256 * 1024 ** 2 },
        ...(withState ? { stateDir } : {}),
      }),
      { logger: pino({ level: 'warn' }) },
    );
  const [on, off] = [await make(true), await make(false)];
  const clients = [new SweEnvClient(on.address), new SweEnvClient(off.address)] as const;
  try {
    const reset = (k: 0 | 1) => clients[k].reset({ taskId: TASK, options: { maxSteps: steps + 10 } });
    const ids = [(await reset(0)).episodeId, (await reset(1)).episodeId];
    const samples: [number[], number[]] = [[], []];
    for (let i = 0; i < steps; i++) {
      for (const k of [0, 1] as const) {
        const started = performance.now();
        await clients[k].bash(ids[k]!, i, 'true');
        if (i >= 5) samples[k].push(performance.now() - started);
      }
    }
    const withRecords = describe('Step `true`, with episode records', samples[0]);
    const without = describe('Step `true`, no records (baseline)', samples[1]);
    printRow(withRecords);
    printRow(without);
    process.stdout.write(
      `records/baseline: p50 ${(withRecords.p50 / without.p50).toFixed(3)}x, p95 ${(withRecords.p95 / without.p95).toFixed(3)}x\n`,
    );
  } finally {
    for (const c of clients) c.dispose();
    await on.shutdown();
    await off.shutdown();
  }
}

async function journalOverhead(steps: number): Promise<void> {
  const provider = new DockerSandboxProvider(`bench-journal-${randomUUID().slice(0, 6)}`);
  const { tasks } = await loadTaskFile(join(packageRoot(), 'tasks/demo/tasks.jsonl'));
  const task = tasks.find((t) => t.id === TASK)!;
  const sandbox = await provider.create({
    image: task.image,
    workdir: task.workdir,
    maxLifetimeS: 600,
    role: 'episode',
    episodeId: 'bench-journal',
    limits: { memoryBytes: 256 * 1024 ** 2, nanoCpus: 1e9, pidsLimit: 256, diskBytes: 0 },
  });
  try {
    const shell = await ShellSession.start(sandbox, task.workdir);
    const on: number[] = [];
    const off: number[] = [];
    for (let i = 0; i < steps; i++) {
      for (const journal of [true, false]) {
        const start = process.hrtime.bigint();
        await shell.run('true', { timeoutMs: 10_000, outputLimitBytes: 65_536, ...(journal ? { journalKey: `step-${i}` } : {}) });
        (journal ? on : off).push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
    await shell.close();
    const a = describe('shell `true`, command journal', on);
    const b = describe('shell `true`, no journal (baseline)', off);
    printRow(a);
    printRow(b);
    process.stdout.write(
      `journal/baseline: p50 ${(a.p50 / b.p50).toFixed(3)}x (+${(a.p50 - b.p50).toFixed(3)} ms), p95 ${(a.p95 / b.p95).toFixed(3)}x\n`,
    );
  } finally {
    await provider.removeServerContainers();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function serve(serverId: string, stateDir: string, port: number, log: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'node',
      [
        CLI,
        'serve',
        '--port',
        String(port),
        '--server-id',
        serverId,
        '--state-dir',
        stateDir,
        '--log-level',
        'warn',
        '--max-episodes',
        '64',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stderr.on('data', (d: Buffer) => log.push(d.toString()));
    child.stdout.once('data', (d: Buffer) => (/listening on/.test(d.toString()) ? resolve(child) : reject(new Error(d.toString()))));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** A Step retried on UNAVAILABLE (the server is down) until it answers: what a trainer's client does. */
async function stepThrough(client: SweEnvClient, id: string, index: number, command: string): Promise<StepResponse__Output> {
  for (;;) {
    try {
      return await client.bash(id, index, command, { timeoutS: 120 });
    } catch (error) {
      if ((error as { code?: number }).code !== 14) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function killInTheMiddle(episodes: number, stateDir: string, thinkMs: number): Promise<void> {
  const serverId = `bench-restart-${randomUUID().slice(0, 8)}`;
  const provider = new DockerSandboxProvider(serverId);
  const port = await freePort();
  const log: string[] = [];
  let server = await serve(serverId, stateDir, port, log);
  const client = new SweEnvClient(`127.0.0.1:${port}`);
  try {
    const ids = await Promise.all(
      Array.from({ length: episodes }, async () => (await client.reset({ taskId: TASK }, { timeoutS: 600 })).episodeId),
    );
    let killedAt = 0;
    let restartedAt = 0;
    let firstAnswerAt = 0;
    let crashed = false;
    const results = await Promise.all(
      ids.map(async (id) => {
        let lost = 0;
        let recovered = 0;
        let index = 0;
        // Step until the crash has happened and 3 more steps ran, or the episode was lost.
        for (let after = 0; after < 3; index++) {
          const out = await stepThrough(client, id, index, `sleep 0.0$((RANDOM % 10)); echo ${index} >> /tmp/steps`);
          if (killedAt > 0 && out.status !== 'STEP_STATUS_INFRA_ERROR' && Date.now() > restartedAt && restartedAt > 0) {
            firstAnswerAt ||= Date.now();
            after += 1;
          }
          if (SweEnvClient.structToObject(out.info)['output_lost'] === true) recovered += 1;
          if (out.status === 'STEP_STATUS_INFRA_ERROR') {
            lost += 1;
            break;
          }
          // The model's turn between two steps (generation time), uniform in 0..2x thinkMs.
          if (thinkMs > 0) await new Promise((r) => setTimeout(r, Math.random() * 2 * thinkMs));
          if (!crashed && index === 10) {
            crashed = true;
            // Half the episodes may be mid-command now: the crash comes with no warning.
            killedAt = Date.now();
            server.kill('SIGKILL');
            await new Promise((r) => server.once('exit', r));
            server = await serve(serverId, stateDir, port, log);
            restartedAt = Date.now();
          }
        }
        if (lost > 0) return { lost, recovered, twice: 0, steps: index };
        const seen = await stepThrough(client, id, index, 'sort -n /tmp/steps | uniq -d | wc -l');
        return { lost, recovered, twice: Number(seen.observation.trim().split('\n')[0]), steps: index };
      }),
    );
    const takeover = log
      .map((l) => l.split('\n'))
      .flat()
      .find((l) => l.includes('took over the episodes'));
    const report = takeover ? (JSON.parse(takeover) as Record<string, number>) : {};
    const lost = results.reduce((n, r) => n + r.lost, 0);
    const twice = results.reduce((n, r) => n + r.twice, 0);
    const recovered = results.reduce((n, r) => n + r.recovered, 0);
    const steps = results.reduce((n, r) => n + r.steps, 0);
    process.stdout.write(
      `kill -9 in the middle of ${episodes} live episodes (${thinkMs > 0 ? `a model turn of ~${thinkMs} ms between steps` : 'stepping without pause'}): re-adopted ${report['adopted'] ?? 0} ` +
        `(of them ${report['resumedSteps'] ?? 0} with a step cut by the crash), lost ${report['lost'] ?? 0}; steps lost ${lost} of ${steps}, ` +
        `cut by the crash and answered from the command journal ${recovered} (output lost), run twice ${twice}; ` +
        `restart took ${restartedAt - killedAt} ms until serving; first Step answered ${firstAnswerAt - killedAt} ms after the kill\n`,
    );
    await Promise.all(ids.map((id) => client.close(id).catch(() => undefined)));
  } finally {
    client.dispose();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await provider.removeServerContainers();
  }
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'swe-env-bench-state-'));
  try {
    await stepOverhead(arg('steps', 200), stateDir);
    await journalOverhead(arg('steps', 200) * 2);
    await killInTheMiddle(arg('episodes', 32), stateDir, 0);
    await killInTheMiddle(arg('episodes', 32), stateDir, arg('think-ms', 1000));
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

runMain(main);
