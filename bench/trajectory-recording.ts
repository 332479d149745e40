/**
 * What recording trajectories costs a step: bash steps on a server that records every episode's
 * trajectory against one that records none (the baseline), interleaved in the same run, for a
 * `true` step and for one printing 32 KB (a full observation, the largest line a step writes).
 * Usage: node dist/bench/trajectory-recording.js [--steps 300]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { arg, describe, printRow, runMain } from './stats.js';

const TASK = 'swe-env-demo__minicalc-1';

async function main(): Promise<void> {
  const steps = arg('steps', 300);
  const dir = mkdtempSync(join(tmpdir(), 'swe-env-bench-trajectories-'));
  const make = (record: boolean) =>
    startServer(
      compileConfig({
        port: 0,
        serverId: `bench-traj-${record ? 'on' : 'off'}-${randomUUID().slice(0, 6)}`,
        taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')],
        limits: { memoryBytes: 256 * 1024 ** 2 },
        ...(record ? { trajectoryDir: dir } : {}),
      }),
      { logger: pino({ level: 'warn' }) },
    );
  const servers = [await make(true), await make(false)] as const;
  const clients = servers.map((s) => new SweEnvClient(s.address));
  try {
    for (const [label, command] of [
      ['`true`', 'true'],
      ['32 KB of output', 'head -c 32768 /dev/zero | tr "\\0" a'],
    ] as const) {
      const ids = await Promise.all(
        clients.map(async (c) => (await c.reset({ taskId: TASK, options: { maxSteps: steps + 10 } })).episodeId),
      );
      const samples: [number[], number[]] = [[], []];
      const assistant = { content: 'I will run the command and look at its output.', reasoning: 'r'.repeat(2000), model: 'bench' };
      for (let i = 0; i < steps; i++) {
        for (const k of [0, 1] as const) {
          const started = performance.now();
          await clients[k]!.step(ids[k]!, i, { name: 'bash', arguments: { command } }, undefined, assistant);
          if (i >= 5) samples[k].push(performance.now() - started);
        }
      }
      const on = describe(`Step ${label}, recording`, samples[0]);
      const off = describe(`Step ${label}, not recording (baseline)`, samples[1]);
      printRow(on);
      printRow(off);
      process.stdout.write(
        `recording/baseline (${label}): p50 ${(on.p50 / off.p50).toFixed(3)}x (+${(on.p50 - off.p50).toFixed(2)} ms), p95 ${(on.p95 / off.p95).toFixed(3)}x\n`,
      );
      await Promise.all(clients.map((c, k) => c.close(ids[k]!)));
    }
  } finally {
    for (const c of clients) c.dispose();
    for (const s of servers) await s.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
