/**
 * The disk watchdog's cost, on a real server and real Docker. N episodes are live; one of them holds
 * F small files in its writable layer (the shape that makes measuring a layer expensive: the engine
 * walks it). Prints the cost of one measurement of a plain sandbox and of the many-files one, then
 * another episode's `true` step p50/p95 and the server's CPU with the watchdog idle and with it
 * measuring every sandbox back to back (a worst case: the server's default is one pass every 5 s),
 * with the ratio between the two measured in the same run.
 * Usage: node dist/bench/disk-watchdog.js [--episodes 8] [--files 20000] [--steps 200]
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
  const episodes = arg('episodes', 8);
  const files = arg('files', 20_000);
  const steps = arg('steps', 200);
  const taskId = 'swe-env-demo__textkit-1';
  const server = await startServer(
    compileConfig({
      port: 0,
      serverId: `bench-disk-${randomUUID().slice(0, 8)}`,
      taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')],
      // The timer stays out of the way; this benchmark drives the passes itself.
      diskCheckIntervalS: 3600,
      limits: { memoryBytes: 512 * 1024 ** 2, diskBytes: 10 * 1024 ** 3 },
    }),
    { logger: pino({ level: 'warn' }) },
  );
  const client = new SweEnvClient(server.address);
  const options = { maxSteps: 10_000, commandTimeoutS: 600 };
  const ids: string[] = [];
  try {
    for (let i = 0; i < episodes; i++) ids.push((await client.reset({ taskId, options })).episodeId);
    const [quiet, heavy] = ids as [string, string];
    const made = await client.bash(heavy, 0, `mkdir -p /tmp/many && cd /tmp/many && seq 1 ${files} | xargs touch && ls | wc -l`, {
      timeoutS: 600,
    });
    process.stdout.write(
      `disk watchdog with ${episodes} live episodes, one holding ${made.observation.trim()} files (${new Date().toISOString()})\n\n`,
    );
    let quietStep = 0;
    for (let i = 0; i < 20; i++) await client.bash(quiet, quietStep++, 'true');

    const docker = server.provider.docker;
    const measure = async (id: string): Promise<number> => {
      const [containerId] = await server.provider.listContainers({ episodeId: id });
      const container = docker.getContainer(containerId!);
      const start = process.hrtime.bigint();
      await container.inspect({ size: true } as Parameters<typeof container.inspect>[0] & object);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const sample = async (id: string, n: number): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push(await measure(id));
      return out;
    };
    printRow(describe('one measurement: plain sandbox', await sample(quiet, 30)));
    printRow(describe(`one measurement: ${files} files`, await sample(heavy, 10)));

    const quietSteps = async (): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < steps; i++) {
        const start = process.hrtime.bigint();
        await client.bash(quiet, quietStep++, 'true');
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return times;
    };
    const phase = async (name: string, watching: boolean): Promise<{ row: ReturnType<typeof describe>; cpuS: number; passes: number }> => {
      const cpu = process.cpuUsage();
      let stop = false;
      let passes = 0;
      const loop = (async () => {
        while (watching && !stop) {
          await server.provider.disk.checkAll();
          passes += 1;
        }
      })();
      const times = await quietSteps();
      stop = true;
      await loop;
      const used = process.cpuUsage(cpu);
      return { row: describe(name, times), cpuS: (used.user + used.system) / 1e6, passes };
    };
    const idle = await phase('watchdog idle: true step', false);
    const busy = await phase('watchdog back to back: true step', true);
    for (const run of [idle, busy]) {
      printRow(run.row);
      process.stdout.write(
        `  server CPU ${run.cpuS.toFixed(2)} s${run.passes ? `, ${run.passes} passes over ${episodes} sandboxes` : ''}\n`,
      );
    }
    const stats = server.provider.disk.stats;
    process.stdout.write(
      `\nmean measurement in the passes: ${(stats.checkMs / Math.max(1, stats.checks)).toFixed(1)} ms over ${stats.checks}\n`,
    );
    process.stdout.write(
      `back to back / idle: step p50 ${(busy.row.p50 / idle.row.p50).toFixed(2)}x, p95 ${(busy.row.p95 / idle.row.p95).toFixed(2)}x, server CPU ${(busy.cpuS / idle.cpuS).toFixed(2)}x\n`,
    );
  } finally {
    await Promise.allSettled(ids.map((id) => client.close(id)));
    client.dispose();
    await server.shutdown();
  }
}

runMain(main);
