/**
 * Engines and runtimes in one run: Reset, a `true` step, a 32 KB step and a gold grading
 * (Evaluate of the task's gold patch) on Docker/runc (the baseline), Podman rootful/runc, Podman
 * rootless and Docker/runsc (gVisor), each through a real server and gRPC client, rounds
 * alternating between the engines so load drifts hit them alike. An engine that cannot serve here
 * is reported with its reason, never measured as zero.
 * Usage: node dist/bench/engines.js [--rounds 8]   (after scripts/setup.sh; starts Podman's services)
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer, type RunningServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { loadTaskFile } from '../src/tasks/loader.js';
import { arg, describe, printRow, runMain } from './stats.js';

const TASKS = join(packageRoot(), 'tasks/demo/tasks.jsonl');
const TASK_ID = 'swe-env-demo__minicalc-1';
const MEASURES = ['Reset', 'step `true`', 'step printing 32 KB', 'gold grading (Evaluate)'] as const;

interface Engine {
  readonly name: string;
  readonly socket?: string;
  readonly ociRuntime?: string;
  server?: RunningServer;
  client?: SweEnvClient;
  refused?: string;
  readonly samples: Map<string, number[]>;
}

function podmanSocket(mode: 'rootful' | 'rootless'): string {
  const image = execFileSync('docker', ['images', '--format', '{{.Repository}}:{{.Tag}}', 'sweb.eval.x86_64.swe-env-demo__minicalc-1'])
    .toString()
    .trim();
  const out = execFileSync('bash', [join(packageRoot(), 'scripts', 'podman-engine.sh'), mode, 'swe-env/base:latest', image]);
  return out.toString().trim().split('\n').at(-1)!;
}

async function start(engine: Engine): Promise<void> {
  engine.server = await startServer(
    compileConfig({
      port: 0,
      serverId: `bench-engines-${randomUUID().slice(0, 8)}`,
      taskFiles: [TASKS],
      limits: { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 512 },
      ...(engine.socket ? { dockerSocket: engine.socket } : {}),
      ...(engine.ociRuntime ? { ociRuntime: engine.ociRuntime } : {}),
    }),
    { logger: pino({ level: 'fatal' }) },
  );
  engine.client = new SweEnvClient(engine.server.address);
}

async function timed<T>(samples: number[] | undefined, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  samples?.push(performance.now() - started);
  return result;
}

/** One round on one engine: an episode with its two steps, then a gold grading. Undefined samples: warm-up. */
async function round(engine: Engine, goldPatch: string, record: boolean): Promise<void> {
  const client = engine.client!;
  const s = (name: string): number[] | undefined => (record ? engine.samples.get(name) : undefined);
  const reset = await timed(s('Reset'), () => client.reset({ taskId: TASK_ID }));
  try {
    const one = await timed(s('step `true`'), () => client.bash(reset.episodeId, 0, 'true'));
    if (one.observation === undefined) throw new Error(`${engine.name}: the step answered nothing`);
    await timed(s('step printing 32 KB'), () => client.bash(reset.episodeId, 1, 'head -c 32768 /dev/zero | tr "\\0" a'));
  } finally {
    await client.close(reset.episodeId);
  }
  const graded = await timed(s('gold grading (Evaluate)'), () => client.evaluate(TASK_ID, goldPatch));
  if (graded.report?.reward !== 1)
    throw new Error(`${engine.name}: the gold patch scored ${graded.report?.reward} (${graded.report?.error ?? ''})`);
}

async function main(): Promise<void> {
  const rounds = arg('rounds', 8);
  const task = (await loadTaskFile(TASKS)).tasks.find((t) => t.id === TASK_ID);
  if (!task) throw new Error(`${TASK_ID} is not in ${TASKS}`);
  const samples = (): Map<string, number[]> => new Map(MEASURES.map((m) => [m, []]));
  const engines: Engine[] = [
    { name: 'Docker/runc', samples: samples() },
    { name: 'Podman rootful/runc', socket: podmanSocket('rootful'), samples: samples() },
    { name: 'Podman rootless/runc', socket: podmanSocket('rootless'), samples: samples() },
    { name: 'Docker/runsc (gVisor)', ociRuntime: 'runsc', samples: samples() },
  ];
  try {
    for (const engine of engines) {
      await start(engine);
      // The first round warms caches; an engine that cannot run it is reported, not measured.
      await round(engine, task.goldPatch, false).catch((error: unknown) => (engine.refused = String(error).split('\n')[0]));
    }
    const live = engines.filter((e) => e.refused === undefined);
    for (let i = 0; i < rounds; i++) for (const engine of live) await round(engine, task.goldPatch, true);
    const base = engines[0]!;
    for (const measure of MEASURES) {
      const baseline = describe(`${measure}, ${base.name}`, base.samples.get(measure)!);
      for (const engine of engines) {
        if (engine.refused !== undefined) {
          process.stdout.write(`${`${measure}, ${engine.name}`.padEnd(44)} cannot serve here: ${engine.refused}\n`);
          continue;
        }
        const row = describe(`${measure}, ${engine.name}`, engine.samples.get(measure)!);
        printRow(row);
        if (engine !== base)
          process.stdout.write(
            `${''.padEnd(44)} vs ${base.name}: p50 ${(row.p50 / baseline.p50).toFixed(2)}x, p95 ${(row.p95 / baseline.p95).toFixed(2)}x\n`,
          );
      }
    }
  } finally {
    for (const engine of engines) {
      engine.client?.dispose();
      await engine.server?.shutdown();
    }
  }
}

runMain(main);
