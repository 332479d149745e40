/**
 * Benchmarks of DESIGN.md section 7, on a real server and real Docker:
 * - bash step overhead (`true` through gRPC) against a `docker exec` per command on the same
 *   container, measured in the same run;
 * - Reset to first observation and Close.
 * Usage: node dist/bench/run-all.js [--steps 300] [--resets 20]
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { arg, describe, printRow, runMain } from './stats.js';

const run = promisify(execFile);

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return [Number(process.hrtime.bigint() - start) / 1e6, value];
}

async function main(): Promise<void> {
  const steps = arg('steps', 300);
  const resets = arg('resets', 20);
  const taskId = 'swe-env-demo__textkit-1';
  const server = await startServer(
    compileConfig({ port: 0, serverId: `bench-${randomUUID().slice(0, 8)}`, taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')] }),
    { logger: pino({ level: 'warn' }) },
  );
  const client = new SweEnvClient(server.address);
  try {
    process.stdout.write(`swe-env benchmarks (${new Date().toISOString()}), task ${taskId}\n\n`);

    // Step overhead.
    const reset = await client.reset({ taskId, options: { maxSteps: steps + 100 } });
    const episode = await server.registry.get(reset.episodeId);
    for (let i = 0; i < 20; i++) await client.bash(reset.episodeId, i, 'true'); // warm-up
    const stepTimes: number[] = [];
    for (let i = 20; i < 20 + steps; i++) {
      const [ms, r] = await timed(() => client.bash(reset.episodeId, i, 'true'));
      if (r.exitCode !== 0) throw new Error(`step ${i} failed: ${r.observation}`);
      stepTimes.push(ms);
    }
    const execTimes: number[] = [];
    const execSteps = Math.min(steps, 200);
    for (let i = 0; i < execSteps; i++) {
      const [ms] = await timed(() => run('docker', ['exec', episode.containerId, 'true']));
      execTimes.push(ms);
    }
    await client.close(reset.episodeId);
    const stepRow = describe('bash `true` step through gRPC', stepTimes);
    const execRow = describe('baseline: `docker exec <ctr> true` (CLI)', execTimes);
    printRow(stepRow);
    printRow(execRow);
    process.stdout.write(`ratio docker-exec / step (p50): ${(execRow.p50 / stepRow.p50).toFixed(1)}x   aim: step p50 <= 5 ms\n\n`);

    // Reset and Close.
    const resetTimes: number[] = [];
    const closeTimes: number[] = [];
    for (let i = 0; i < resets; i++) {
      const [resetMs, r] = await timed(() => client.reset({ taskId }));
      resetTimes.push(resetMs);
      const [closeMs] = await timed(() => client.close(r.episodeId));
      closeTimes.push(closeMs);
    }
    printRow(describe('Reset to first observation (image present)', resetTimes));
    printRow(describe('Close (container removed)', closeTimes));
    process.stdout.write('aim: reset p50 <= 150 ms (no warm pool yet)\n\n');

    // Grading overhead: Evaluate of the gold patch, against the test run's own duration.
    const task = server.tasks.get(taskId);
    const totals: number[] = [];
    const overheads: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [ms, r] = await timed(() => client.evaluate(taskId, task.goldPatch));
      if (r.report?.reward !== 1) throw new Error(`gold patch did not score 1: ${r.report?.error}`);
      totals.push(ms);
      overheads.push(ms - (r.report.durations?.testRunS ?? 0) * 1000);
    }
    printRow(describe('Evaluate (gold patch), total', totals));
    printRow(describe('grading overhead beyond the test run', overheads));
    process.stdout.write('aim: grading overhead <= 1500 ms\n');
  } finally {
    client.dispose();
    await server.shutdown();
  }
}

runMain(main);
