/**
 * DESIGN.md section 7: concurrent live episodes on the light demo image, and the server's memory
 * per live episode. Opens N episodes (each runs one command), measures the server's RSS growth,
 * steps all of them at once, closes them, and checks no container is left.
 * Usage: node --expose-gc dist/bench/concurrency.js [--episodes 200] [--in-flight 16]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { arg, describe, printRow, runMain } from './stats.js';

function rssMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
}

async function pool<T>(n: number, limit: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

async function main(): Promise<void> {
  const episodes = arg('episodes', 200);
  const inFlight = arg('in-flight', 16);
  const server = await startServer(
    compileConfig({
      port: 0,
      serverId: `bench-conc-${randomUUID().slice(0, 8)}`,
      taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')],
      maxEpisodes: episodes + 16,
      limits: { memoryBytes: 256 * 1024 * 1024 },
    }),
    { logger: pino({ level: 'warn' }) },
  );
  const client = new SweEnvClient(server.address);
  const tasks = server.tasks.list();
  try {
    // Warm-up: code paths and channel.
    for (let i = 0; i < 3; i++) {
      const r = await client.reset({ taskId: tasks[0]!.id });
      await client.bash(r.episodeId, 0, 'true');
      await client.close(r.episodeId);
    }
    const before = rssMiB();
    const started = Date.now();
    const resetTimes: number[] = [];
    const ids = await pool(episodes, inFlight, async (i) => {
      const t0 = Date.now();
      const r = await client.reset({ taskId: tasks[i % tasks.length]!.id }, { timeoutS: 600 });
      resetTimes.push(Date.now() - t0);
      const s = await client.bash(r.episodeId, 0, 'echo ok');
      if (s.observation !== 'ok\n') throw new Error(`episode ${i}: ${s.observation}`);
      return r.episodeId;
    });
    const openS = (Date.now() - started) / 1000;
    const live = server.registry.liveCount;
    const after = rssMiB();
    const stepTimes: number[] = [];
    await Promise.all(
      ids.map(async (id) => {
        const t0 = process.hrtime.bigint();
        await client.bash(id, 1, 'true');
        stepTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }),
    );
    process.stdout.write(`live episodes: ${live} (opened in ${openS.toFixed(1)} s, ${inFlight} resets in flight)\n`);
    printRow(describe(`Reset under load (${inFlight} in flight)`, resetTimes));
    printRow(describe(`bash step, all ${live} episodes at once`, stepTimes));
    process.stdout.write(
      `server RSS: ${before.toFixed(1)} MiB -> ${after.toFixed(1)} MiB, ${((after - before) / live).toFixed(3)} MiB per live episode (aim < 1)\n`,
    );
    await pool(ids.length, inFlight, (i) => client.close(ids[i]!));
    const left = await server.provider.listContainers();
    process.stdout.write(`containers left after Close: ${left.length}\n`);
  } finally {
    client.dispose();
    await server.shutdown();
  }
}

runMain(main);
