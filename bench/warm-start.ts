/**
 * Warm starts: Reset p50/p95 cold against warm (one at a time), then a GRPO-style burst of 16
 * Resets of one task at once, with and without a Prewarm of 16 beforehand (time until all 16 are
 * ready), in the same run against the same server.
 * Usage: node dist/bench/warm-start.js [--resets 12] [--burst 16]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { arg, describe, printRow, runMain } from './stats.js';

async function main(): Promise<void> {
  const resets = arg('resets', 12);
  const burst = arg('burst', 16);
  const server = await startServer(
    compileConfig({
      port: 0,
      serverId: `bench-warm-${randomUUID().slice(0, 8)}`,
      taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')],
      maxEpisodes: burst + 4,
      maxWarm: burst,
      limits: { memoryBytes: 256 * 1024 ** 2 },
    }),
    { logger: pino({ level: 'warn' }) },
  );
  const client = new SweEnvClient(server.address);
  const taskId = 'swe-env-demo__minicalc-1';
  const warmCount = async (): Promise<number> => (await client.getServerInfo()).warmSandboxes;
  const waitWarm = async (n: number): Promise<void> => {
    const until = Date.now() + 120_000;
    while ((await warmCount()) < n) {
      if (Date.now() > until) throw new Error(`fewer than ${n} sandboxes warmed within 2 minutes`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  try {
    // Warm-up of code paths and the image cache.
    for (let i = 0; i < 2; i++) await client.close((await client.reset({ taskId })).episodeId);

    const cold: number[] = [];
    for (let i = 0; i < resets; i++) {
      const started = performance.now();
      const r = await client.reset({ taskId });
      cold.push(performance.now() - started);
      await client.close(r.episodeId);
    }
    const warm: number[] = [];
    for (let i = 0; i < resets; i++) {
      await client.prewarm(taskId, 1);
      await waitWarm(1);
      const started = performance.now();
      const r = await client.reset({ taskId });
      warm.push(performance.now() - started);
      await client.close(r.episodeId);
      await client.prewarm(taskId, 0); // no replacement: the next round warms its own
    }
    const c = describe('Reset, cold', cold);
    const w = describe('Reset, warm (a prewarmed sandbox taken)', warm);
    printRow(c);
    printRow(w);
    process.stdout.write(`warm/cold: p50 ${(w.p50 / c.p50).toFixed(3)}x, p95 ${(w.p95 / c.p95).toFixed(3)}x\n`);

    const burstOf = async (): Promise<number> => {
      const started = performance.now();
      const started16 = await Promise.all(Array.from({ length: burst }, () => client.reset({ taskId }, { timeoutS: 600 })));
      const ms = performance.now() - started;
      await Promise.all(started16.map((r) => client.close(r.episodeId)));
      return ms;
    };
    // Let the pool drain of leftovers from the rounds above.
    await server.registry.warm.sweep(Date.now() + 3_600_000);
    const without = await burstOf();
    await client.prewarm(taskId, burst);
    const warmingStarted = performance.now();
    await waitWarm(burst);
    const warming = performance.now() - warmingStarted;
    const withPrewarm = await burstOf();
    await client.prewarm(taskId, 0);
    process.stdout.write(
      `burst of ${burst} Resets of one task: ${without.toFixed(0)} ms until all ready cold; ${withPrewarm.toFixed(0)} ms from prewarmed sandboxes (${(withPrewarm / without).toFixed(3)}x; the prewarm itself took ${warming.toFixed(0)} ms, ahead of time)\n`,
    );
  } finally {
    client.dispose();
    await server.shutdown();
  }
}

runMain(main);
