/**
 * What the grading's integrity evidence costs: an Evaluate of the gold patch (fresh container, task
 * steps and inventory, apply and sweep, canaries, the boot's monitor and recorder, the channel read
 * back through the engine) against the bare minimum in the same run: a fresh container from the
 * same image that applies the patch and runs the same test command, nothing else. Then the same
 * pair for a task with an install re-run (the agent-driven step, the process sweep through PID 1
 * and the closed-world check against the bare install and tests).
 * With `--previous <dir>` (a built checkout of an earlier swe-env, e.g. the commit before issue 17:
 * `git worktree add /tmp/prev <commit> && cd /tmp/prev && ln -s <this>/node_modules && npm run build`)
 * the same Evaluate runs on that version's server too, interleaved in the same run: the ratio the
 * issue asks for (this grading against the previous one).
 * Usage: node dist/bench/grading-evidence.js [--rounds 8] [--previous <dir>]
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { evalPlan } from '../src/reward/eval-plan/plan.js';
import { startServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import type { Task } from '../src/tasks/task.js';
import { arg, describe, printRow, runMain, textArg } from './stats.js';

type Running = Awaited<ReturnType<typeof startServer>>;

/** A server of the checkout in `dir` (its own built modules), on the same engine and images. */
async function startPrevious(dir: string, taskFile: string): Promise<Running> {
  const app = (await import(join(dir, 'dist/src/server/app.js'))) as { startServer: typeof startServer };
  const config = (await import(join(dir, 'dist/src/server/config.js'))) as { compileConfig: typeof compileConfig };
  return app.startServer(
    config.compileConfig({ port: 0, serverId: `bench-previous-${randomUUID().slice(0, 8)}`, taskFiles: [taskFile], testTimeoutS: 120 }),
    {
      logger: pino({ level: 'warn' }),
    },
  );
}

const TASK = 'swe-env-demo__intervals-1';
const SETUP_PY =
  'diff --git a/setup.py b/setup.py\nnew file mode 100644\n--- /dev/null\n+++ b/setup.py\n@@ -0,0 +1,2 @@\n+from setuptools import setup\n+setup(name="intervals", version="0.1", packages=["intervals"])\n';

async function main(): Promise<void> {
  const rounds = arg('rounds', 8);
  const scratch = await mkdtemp(join(tmpdir(), 'swe-env-bench-evidence-'));
  const demo = join(packageRoot(), 'tasks/demo/tasks.jsonl');
  const record = (await readFile(demo, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((r) => r['instance_id'] === TASK)!;
  const installTasks = join(scratch, 'install.jsonl');
  await writeFile(installTasks, `${JSON.stringify({ ...record, install: 'python3 setup.py develop' })}\n`);
  // The same grading with every step an engine exec (no exec channel): what the channel saves.
  const start = (file: string, gradingExecChannel: boolean): Promise<Running> =>
    startServer(
      compileConfig({
        port: 0,
        serverId: `bench-evidence-${randomUUID().slice(0, 8)}`,
        taskFiles: [file],
        testTimeoutS: 120,
        gradingExecChannel,
      }),
      { logger: pino({ level: 'warn' }) },
    );
  const servers = await Promise.all([start(demo, true), start(installTasks, true)]);
  const unchannelled = await Promise.all([start(demo, false), start(installTasks, false)]);
  const previousDir = textArg('previous');
  const previous = previousDir ? await Promise.all([demo, installTasks].map((file) => startPrevious(previousDir, file))) : [];
  servers.push(...previous);
  const clients = servers.map((s) => new SweEnvClient(s.address));
  const unchannelledClients = unchannelled.map((s) => new SweEnvClient(s.address));
  try {
    for (const [i, withInstall] of [false, true].entries()) {
      const server = servers[i]!;
      const client = clients[i]!;
      const task: Task = server.tasks.get(TASK);
      const patch = withInstall ? task.goldPatch + SETUP_PY : task.goldPatch;
      const plan = evalPlan(task);
      const bareScript = [
        'set -e',
        'git apply /tmp/gold.patch',
        ...(withInstall ? ['python3 setup.py develop >/dev/null 2>&1'] : []),
        `${plan.testCommand} >/dev/null 2>&1 || true`,
      ].join('\n');
      const bare = async (): Promise<number> => {
        const started = performance.now();
        const sandbox = await server.provider.create({
          image: task.image,
          workdir: task.workdir,
          maxLifetimeS: 600,
          role: 'grader',
          episodeId: `bench-${randomUUID()}`,
          limits: server.config.limits,
        });
        try {
          await sandbox.putFiles([{ path: '/tmp/gold.patch', content: patch }]);
          const run = await sandbox.exec(['bash', '-c', bareScript], { timeoutMs: 300_000 });
          if (run.exitCode !== 0) throw new Error(`the bare run failed: ${run.output.toString('utf8').slice(-500)}`);
        } finally {
          await sandbox.remove();
        }
        return performance.now() - started;
      };
      const graded = async (on = client): Promise<{ ms: number; testRunS: number }> => {
        const started = performance.now();
        const report = (await on.evaluate(TASK, patch)).report!;
        if (report.reward !== 1) throw new Error(`the gold patch scored ${report.reward}: ${report.error}`);
        return { ms: performance.now() - started, testRunS: report.durations?.testRunS ?? 0 };
      };
      const previousClient = previous.length > 0 ? clients[2 + i] : undefined;
      await bare();
      await graded();
      if (previousClient) await graded(previousClient);
      const bareMs: number[] = [];
      const gradedMs: number[] = [];
      const previousMs: number[] = [];
      const unchannelledMs: number[] = [];
      const testRun: number[] = [];
      await graded(unchannelledClients[i]);
      for (let r = 0; r < rounds; r++) {
        bareMs.push(await bare());
        if (previousClient) previousMs.push((await graded(previousClient)).ms);
        unchannelledMs.push((await graded(unchannelledClients[i])).ms);
        const g = await graded();
        gradedMs.push(g.ms);
        testRun.push(g.testRunS * 1000);
      }
      const label = withInstall ? 'gold + setup.py, install re-run' : 'gold patch';
      const b = describe(`${label}: bare (container, apply, ${withInstall ? 'install, ' : ''}tests)`, bareMs);
      const g = describe(`${label}: Evaluate with the evidence`, gradedMs);
      const t = describe(`${label}: its test run (monitor and recorder on)`, testRun);
      const u = describe(`${label}: Evaluate, every step an engine exec (no exec channel)`, unchannelledMs);
      printRow(b);
      printRow(g);
      printRow(u);
      printRow(t);
      process.stdout.write(
        `${label}: Evaluate/bare p50 ${(g.p50 / b.p50).toFixed(3)}x, p95 ${(g.p95 / b.p95).toFixed(3)}x; beyond the bare run ${((g.p50 - b.p50) / 1000).toFixed(2)} s p50; without the exec channel ${(u.p50 / b.p50).toFixed(3)}x p50\n`,
      );
      if (previousMs.length > 0) {
        const p = describe(`${label}: Evaluate on the previous version (${previousDir})`, previousMs);
        printRow(p);
        process.stdout.write(
          `${label}: Evaluate now/previous p50 ${(g.p50 / p.p50).toFixed(3)}x, p95 ${(g.p95 / p.p95).toFixed(3)}x; ${((g.p50 - p.p50) / 1000).toFixed(2)} s more p50\n`,
        );
      }
    }
  } finally {
    for (const c of [...clients, ...unchannelledClients]) c.dispose();
    await Promise.all([...servers, ...unchannelled].map((s) => s.shutdown()));
    await rm(scratch, { recursive: true, force: true });
  }
}

runMain(main);
