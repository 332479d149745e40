/**
 * Marker scanning under adversarial output, on a real server and real Docker: one episode prints
 * N MB (default 1024), first as plain output, then as the end marker's known prefix repeated on
 * every line (a partial match everywhere, the shape that made scanning quadratic); meanwhile another episode runs
 * `true` steps. Prints the other episode's step p50/p95 and the server's CPU seconds for each
 * run, with ratios to the plain run measured in the same process.
 * Usage: node dist/bench/marker-scan.js [--mb 1024] [--steps 200]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { arg, describe, printRow, runMain } from './stats.js';

interface Run {
  readonly name: string;
  readonly steps: ReturnType<typeof describe>;
  readonly cpuS: number;
  readonly wallS: number;
}

async function main(): Promise<void> {
  const mb = arg('mb', 1024);
  const steps = arg('steps', 200);
  const taskId = 'swe-env-demo__textkit-1';
  const server = await startServer(
    compileConfig({
      port: 0,
      serverId: `bench-scan-${randomUUID().slice(0, 8)}`,
      taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')],
    }),
    { logger: pino({ level: 'warn' }) },
  );
  const client = new SweEnvClient(server.address);
  const options = { maxSteps: 10_000, commandTimeoutS: 600, episodeTimeoutS: 3600 };
  const noisy = await client.reset({ taskId, options });
  const quiet = await client.reset({ taskId, options });
  let noisyStep = 0;
  let quietStep = 0;
  const quietSteps = async (): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < steps; i++) {
      const start = process.hrtime.bigint();
      await client.bash(quiet.episodeId, quietStep++, 'true');
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return times;
  };
  const flood = async (name: string, command: string): Promise<Run> => {
    const cpu = process.cpuUsage();
    const start = Date.now();
    const printing = client.bash(noisy.episodeId, noisyStep++, command, { timeoutS: 900 });
    const times = await quietSteps();
    const result = await printing;
    if (result.exitCode !== 0) throw new Error(`${name}: exit ${result.exitCode}: ${result.observation.slice(-500)}`);
    const used = process.cpuUsage(cpu);
    return {
      name,
      steps: describe(`${name}: other episode's true step`, times),
      cpuS: (used.user + used.system) / 1e6,
      wallS: (Date.now() - start) / 1000,
    };
  };
  try {
    process.stdout.write(`marker scanning under ${mb} MB of output (${new Date().toISOString()})\n\n`);
    for (let i = 0; i < 20; i++) await client.bash(quiet.episodeId, quietStep++, 'true'); // warm-up
    const idle = describe('idle: other episode true step', await quietSteps());
    printRow(idle);
    const body = `head -c ${mb}M /dev/zero | tr '\\0' a`;
    const plain = await flood('plain', body);
    // The end nonce is out of the command's reach, so the worst it can print is the marker's known
    // prefix over and over: a partial match on every line.
    const adversarial = await flood('adversarial', `yes "$(printf '\\036SWE_ENV_END:')" | head -c ${mb}M`);
    for (const run of [plain, adversarial]) {
      printRow(run.steps);
      process.stdout.write(
        `  server CPU ${run.cpuS.toFixed(2)} s over ${run.wallS.toFixed(1)} s wall (${(mb / run.cpuS) | 0} MB per CPU second)\n`,
      );
    }
    process.stdout.write(
      `\nadversarial / plain: other episode's step p50 ${(adversarial.steps.p50 / plain.steps.p50).toFixed(2)}x, p95 ${(adversarial.steps.p95 / plain.steps.p95).toFixed(2)}x, server CPU ${(adversarial.cpuS / plain.cpuS).toFixed(2)}x\n`,
    );
    process.stdout.write(`plain / idle: other episode's step p50 ${(plain.steps.p50 / idle.p50).toFixed(2)}x\n`);
  } finally {
    await client.close(noisy.episodeId).catch(() => undefined);
    await client.close(quiet.episodeId).catch(() => undefined);
    client.dispose();
    await server.shutdown();
  }
}

runMain(main);
