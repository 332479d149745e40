/**
 * The capture of an agent's change (src/reward/patch-capture.ts), on real containers of the demo
 * task: an empty change (the fixed cost: freeze, list, scratch container, git; the baseline), 1,000
 * new files in one new directory, 1,000 new files each in an existing directory (read with their
 * directory, batch-reads.ts), 20,000 new files (a vendored library), 20,000 new and modified files
 * spread over existing directories; each p50/p95 and its ratio
 * to the empty change measured in the same run. Then the gold submit's overhead beyond grading: a
 * whole episode submit of the gold fix against Evaluate of the same patch (grading alone).
 * Usage: node dist/bench/capture.js [--rounds 5] [--big-rounds 3] [--submits 5]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { captureChange } from '../src/reward/patch-capture.js';
import type { Sandbox } from '../src/sandbox/sandbox.js';
import { startServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { applyPatchCommand } from '../src/trajectories/collect/scripted-model.js';
import { arg, describe, printRow, runMain } from './stats.js';

const SCENARIOS: ReadonlyArray<{ name: string; files: number; script: string }> = [
  { name: 'empty change (baseline)', files: 0, script: 'true' },
  {
    name: '1,000 new files, one new directory',
    files: 1000,
    script: 'mkdir -p vendor && for f in $(seq 1000); do echo "v = $f" > vendor/m$f.py; done',
  },
  {
    name: '1,000 new files in an existing directory',
    files: 1000,
    script: 'for f in $(seq 1000); do echo "v = $f" > textkit/m$f.py; done',
  },
  {
    name: '20,000 new files, 100 new directories',
    files: 20000,
    script: 'for d in $(seq 100); do mkdir -p vendor/lib$d; for f in $(seq 200); do echo "v = $d * $f" > vendor/lib$d/m$f.py; done; done',
  },
  {
    name: '20,000 files in existing directories (19,996 new, 4 modified)',
    files: 20000,
    script:
      'for f in $(seq 12000); do echo "v = $f" > textkit/m$f.py; done; for f in $(seq 7996); do echo "t = $f" > tests/n$f.py; done; for f in textkit/slug.py textkit/wrap.py textkit/truncate.py textkit/__init__.py; do echo "# touched" >> $f; done',
  },
];

async function main(): Promise<void> {
  const rounds = arg('rounds', 5);
  const bigRounds = arg('big-rounds', 3);
  const submits = arg('submits', 5);
  const taskId = 'swe-env-demo__textkit-3';
  const server = await startServer(
    compileConfig({
      port: 0,
      serverId: `bench-capture-${randomUUID().slice(0, 8)}`,
      taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')],
    }),
    { logger: pino({ level: 'warn' }) },
  );
  const client = new SweEnvClient(server.address);
  const task = server.tasks.get(taskId);
  const spec = {
    image: task.image,
    workdir: task.workdir,
    maxLifetimeS: 900,
    role: 'episode' as const,
    episodeId: `bench-capture-${randomUUID().slice(0, 8)}`,
    limits: server.config.limits,
  };
  const openScratch = (): Promise<Sandbox> => server.provider.create({ ...spec, role: 'grader' });
  try {
    process.stdout.write(`swe-env capture benchmark (${new Date().toISOString()}), task ${taskId}\n\n`);
    let baseline = NaN;
    for (const scenario of SCENARIOS) {
      const samples: number[] = [];
      const n = scenario.files > 1000 ? bigRounds : rounds;
      for (let i = 0; i < n + 1; i++) {
        const agent = await server.provider.create(spec);
        try {
          const head = (await agent.exec(['git', 'rev-parse', 'HEAD'])).output.toString('utf8').trim();
          const made = await agent.exec(['bash', '-c', scenario.script], { timeoutMs: 300_000 });
          if (made.exitCode !== 0) throw new Error(`${scenario.name}: making the change failed: ${made.output.toString('utf8')}`);
          const started = performance.now();
          const captured = await captureChange(agent, openScratch, {
            workdir: task.workdir,
            baseCommit: head,
            maxPatchBytes: 32 * 1024 * 1024,
            timeoutMs: 300_000,
          });
          const ms = performance.now() - started;
          if (!captured.ok) throw new Error(`${scenario.name}: the capture failed: ${captured.error}`);
          const diffs = captured.patch.toString('utf8').match(/^diff --git /gm)?.length ?? 0;
          if (diffs !== scenario.files) throw new Error(`${scenario.name}: ${diffs} files in the diff, ${scenario.files} made`);
          if (i > 0) samples.push(ms); // the first round warms the engine's caches
        } finally {
          await agent.remove();
        }
      }
      const row = describe(`capture: ${scenario.name}`, samples);
      printRow(row);
      if (Number.isNaN(baseline)) baseline = row.p50;
      else process.stdout.write(`  ratio to the empty change (p50): ${(row.p50 / baseline).toFixed(1)}x\n`);
    }
    process.stdout.write('aim: 20,000 files captured in < 10 s\n\n');

    // The gold submit's overhead beyond grading: Submit (capture + grading) against Evaluate (grading).
    const submitted: number[] = [];
    const evaluated: number[] = [];
    const captureS: number[] = [];
    for (let i = 0; i < submits + 1; i++) {
      const reset = await client.reset({ taskId });
      const applied = await client.bash(reset.episodeId, 0, applyPatchCommand(task.goldPatch));
      if (applied.exitCode !== 0) throw new Error(`the gold patch did not apply: ${applied.observation}`);
      let started = performance.now();
      const submit = await client.submit(reset.episodeId, 1);
      const submitMs = performance.now() - started;
      if (submit.reward !== 1) throw new Error(`the gold submit did not score 1: ${submit.report?.error}`);
      started = performance.now();
      const evaluate = await client.evaluate(taskId, task.goldPatch);
      const evaluateMs = performance.now() - started;
      if (evaluate.report?.reward !== 1) throw new Error(`the gold Evaluate did not score 1: ${evaluate.report?.error}`);
      if (i === 0) continue;
      submitted.push(submitMs);
      evaluated.push(evaluateMs);
      captureS.push((submit.report?.durations?.captureS ?? 0) * 1000);
    }
    const submitRow = describe('gold Submit (capture + grading)', submitted);
    const evaluateRow = describe('gold Evaluate (grading alone, baseline)', evaluated);
    printRow(submitRow);
    printRow(evaluateRow);
    printRow(describe("gold Submit's capture (report)", captureS));
    process.stdout.write(
      `ratio Submit / Evaluate (p50): ${(submitRow.p50 / evaluateRow.p50).toFixed(2)}x; capture overhead p50 ${(submitRow.p50 - evaluateRow.p50).toFixed(0)} ms\n`,
    );
  } finally {
    client.dispose();
    await server.shutdown();
  }
}

runMain(main);
