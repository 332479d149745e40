/**
 * What the grading's evidence costs on a real task of the corpus (tasks/corpus/): a grading of the
 * gold patch by swe-env's own Grader (as `swe-env validate` and the corpus runner grade it: task
 * steps, apply and sweep, canaries, the boot's monitor, recorder and witness, the channel read
 * back) against the bare minimum in the same run, interleaved: a fresh container from the same
 * image that runs the plan's own commands (its exports, the gold patch, the test patch and the steps
 * around it, the test command), nothing else. No install re-run on either side: the grader re-runs it
 * only for a patch that changes a build input, which no corpus row's gold patch does (an editable
 * install's would need the network besides).
 * The row's image must exist: `scripts/corpus/run.sh --repos DIR --instance ID --keep-images`.
 * Usage: node dist/bench/corpus-grading.js --instance ID [--tasks tasks/corpus/tasks.jsonl] [--rounds 6]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { offlineGrader } from '../src/cli/offline-grader.js';
import { packageRoot } from '../src/common/paths.js';
import { evalPlan } from '../src/reward/eval-plan/plan.js';
import { compileConfig } from '../src/server/config.js';
import { loadTaskFiles } from '../src/tasks/loader.js';
import { arg, describe, printRow, runMain, textArg } from './stats.js';

async function main(): Promise<void> {
  const rounds = arg('rounds', 6);
  const instance = textArg('instance');
  if (!instance) throw new Error('--instance ID: the corpus row to measure (its image built with --keep-images)');
  const file = textArg('tasks') ?? join(packageRoot(), 'tasks/corpus/tasks.jsonl');
  const task = (await loadTaskFiles([file], {}, () => undefined)).find((t) => t.id === instance);
  if (!task) throw new Error(`${instance} is not a row of ${file}`);
  const plan = evalPlan(task);
  // As `swe-env validate` grades: the defaults, one grading at a time.
  const { grader, provider } = offlineGrader(1, 600);
  const limits = compileConfig({}).limits;
  const bareScript = [
    ...plan.evalCommands,
    'set -e',
    'git apply /tmp/gold.patch',
    ...plan.beforeTestPatch,
    'git apply /tmp/test.patch',
    ...plan.afterTestPatch,
    'set +e',
    `${plan.testCommand} >/dev/null 2>&1`,
    'exit 0',
  ].join('\n');
  const bare = async (): Promise<number> => {
    const started = performance.now();
    const sandbox = await provider.create({
      image: task.image,
      workdir: task.workdir,
      maxLifetimeS: 1200,
      role: 'grader',
      episodeId: `bench-${randomUUID()}`,
      limits,
    });
    try {
      await sandbox.putFiles([
        { path: '/tmp/gold.patch', content: task.goldPatch },
        { path: '/tmp/test.patch', content: task.testPatch },
      ]);
      const run = await sandbox.exec(['bash', '-c', bareScript], { timeoutMs: 900_000 });
      if (run.exitCode !== 0) throw new Error(`the bare run failed: ${run.output.toString('utf8').slice(-500)}`);
    } finally {
      await sandbox.remove();
    }
    return performance.now() - started;
  };
  const graded = async (): Promise<{ ms: number; testRunS: number }> => {
    const started = performance.now();
    const report = await grader.grade(task, Buffer.from(task.goldPatch, 'utf8'));
    if (report.reward !== 1) throw new Error(`the gold patch scored ${report.reward}: ${report.error ?? ''}`);
    return { ms: performance.now() - started, testRunS: report.durations?.testRunS ?? 0 };
  };
  try {
    // One of each first: images and page caches warm for both.
    await bare();
    await graded();
    const bareMs: number[] = [];
    const gradedMs: number[] = [];
    const testRun: number[] = [];
    for (let r = 0; r < rounds; r++) {
      bareMs.push(await bare());
      const g = await graded();
      gradedMs.push(g.ms);
      testRun.push(g.testRunS * 1000);
    }
    const b = describe(`${instance}: bare (container, gold, test patch, tests)`, bareMs);
    const g = describe(`${instance}: graded with the evidence`, gradedMs);
    const t = describe(`${instance}: its test run (boot on)`, testRun);
    printRow(b);
    printRow(g);
    printRow(t);
    process.stdout.write(
      `${instance}: graded/bare p50 ${(g.p50 / b.p50).toFixed(3)}x, p95 ${(g.p95 / b.p95).toFixed(3)}x; beyond the bare run ${((g.p50 - b.p50) / 1000).toFixed(2)} s p50\n`,
    );
  } finally {
    await provider.removeServerContainers();
  }
}

runMain(main);
