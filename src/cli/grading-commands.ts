import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createLogger } from '../common/logger.js';
import { Semaphore } from '../common/semaphore.js';
import { Grader } from '../reward/grader.js';
import type { InstallRerun } from '../reward/eval-plan/install-policy.js';
import { GRADING_NETWORK_HELP, type GradingNetwork } from '../reward/grading/grader-options.js';
import { validateTask, validationTable, type ValidationRow } from '../reward/validate-task.js';
import { runEvaluation } from '../reward/eval-run/eval-run.js';
import { GOLD, goldPredictions, loadPredictions, refuseUnknown } from '../reward/eval-run/predictions.js';
import type { RewardRule } from '../reward/report.js';
import { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { compileConfig } from '../server/config.js';
import { makeDemoDataset } from '../tasks/demo/make-dataset.js';
import { makeLanguageDemoDataset } from '../tasks/demo/language-demo.js';
import { Interrupt } from './interrupt.js';
import {
  DEFAULT_BASE_IMAGE,
  DEMO_DIR,
  DEMO_TASKS,
  LANGUAGE_DEMO_DIR,
  LANGUAGE_DEMO_TASKS,
  collect,
  loadAll,
  number,
  selectInstances,
} from './options.js';
import { offlineGrader } from './offline-grader.js';
import { mapPool, Progress } from './progress.js';

interface EvalOptions {
  tasks: string[];
  predictions: string;
  instance?: string[];
  out: string;
  runId: string;
  rerun?: boolean;
  concurrency: number;
  testTimeout: number;
  imageTemplate?: string;
  rewardRule: RewardRule;
  installRerun: InstallRerun;
  gradingNetwork: GradingNetwork;
}

export function registerGradingCommands(program: Command): void {
  program
    .command('eval')
    .description(
      "grade SWE-bench predictions the harness's way: its per-instance logs and run report; a re-run with the same --run-id skips what it graded",
    )
    .requiredOption('--tasks <file>', 'task file, repeatable', collect)
    .requiredOption(
      '--predictions <file>',
      `predictions (instance_id, model_patch, model_name_or_path): JSON or JSONL, or '${GOLD}' for each task's gold patch`,
    )
    .option('--instance <id>', 'only this instance (repeatable; a trailing * matches a prefix)', collect)
    .option('--out <dir>', 'writes DIR/MODEL.RUN_ID.json and DIR/logs/run_evaluation/RUN_ID/MODEL/INSTANCE/', 'evaluation_results')
    .option('--run-id <id>', 'names this run: a re-run with the same id resumes it', 'swe-env')
    .option('--rerun', 'grade again instances this run id graded before')
    .option('--concurrency <n>', 'gradings at once', number, 2)
    .option('--test-timeout <s>', 'limit on each test run', number, 1800)
    .option('--image-template <t>', 'image name per task')
    .option('--reward-rule <rule>', 'whose verdict decides resolved: harness (comparable with official results) or swe-env', 'harness')
    .option(
      '--install-rerun <when>',
      "re-run the plan's install after the patch: when-needed (when the patch touches what the install reads, or the install holds a copy of the code), always (the harness's way, for exact reproduction), never",
      'when-needed',
    )
    .option('--grading-network <mode>', GRADING_NETWORK_HELP, 'offline')
    .action(async (o: EvalOptions) => {
      const tasks = selectInstances(await loadAll(o.tasks, o.imageTemplate), o.instance);
      const byId = new Map(tasks.map((t) => [t.id, t]));
      const all = o.predictions === GOLD ? goldPredictions(tasks) : await loadPredictions(o.predictions);
      // An instance filter narrows the run; without one, a prediction for no task is a mistake.
      if (!o.instance?.length) refuseUnknown(all, byId);
      const predictions = all.filter((p) => byId.has(p.instanceId));
      const { grader, provider } = offlineGrader(o.concurrency, o.testTimeout, {
        rewardRule: o.rewardRule,
        installRerun: o.installRerun,
        gradingNetwork: o.gradingNetwork,
      });
      await provider.removeExpired(); // what an earlier, killed CLI run left behind
      const interrupt = new Interrupt(
        'cancelling the gradings that run, removing their containers and writing the report of what finished',
      );
      const progress = new Progress(predictions.length, 'graded');
      try {
        const run = await runEvaluation({
          grader,
          tasks,
          predictions,
          out: o.out,
          runId: o.runId,
          concurrency: o.concurrency,
          rerun: o.rerun === true,
          signal: interrupt.signal,
          onSkipped: (n) => {
            process.stderr.write(
              `${n} instance${n === 1 ? '' : 's'} already graded in run ${o.runId}: skipped (--rerun grades them again)\n`,
            );
            for (let i = 0; i < n; i++) progress.tick('');
          },
          onInstance: (p, r) =>
            progress.tick(`${p.instanceId} ${r.kind === 'graded' ? (r.resolved ? 'resolved' : 'unresolved') : 'error'}`),
        });
        progress.end();
        const r = run.report;
        process.stdout.write(
          `${run.interrupted ? 'interrupted: ' : ''}resolved ${String(r['resolved_instances'])}, unresolved ${String(r['unresolved_instances'])}, empty patches ${String(r['empty_patch_instances'])}, errors ${String(r['error_instances'])}` +
            `${run.interrupted ? `, not graded yet ${run.notRun}` : ''} of ${predictions.length} predictions; report: ${run.reportFile}\n`,
        );
        if (run.interrupted) {
          process.stdout.write(`run the same command again to grade the rest (run id ${o.runId})\n`);
          process.exitCode = interrupt.exitCode;
        } else if ((r['error_instances'] as number) > 0) process.exitCode = 1;
      } finally {
        interrupt.dispose();
        await provider.removeServerContainers();
      }
    });

  program
    .command('validate')
    .description('check every task: the gold patch must score 1 and the empty patch 0')
    .requiredOption('--tasks <file>', 'task file, repeatable', collect)
    .option('--instance <id>', 'only this task (repeatable; a trailing * matches a prefix)', collect)
    .option('--concurrency <n>', 'tasks at once', number, 2)
    .option('--test-timeout <s>', 'limit on each test run', number, 1800)
    .option('--image-template <t>', 'image name per task')
    .option('--logs <dir>', "keep each task's gold and empty runs: DIR/TASK/{gold,empty}.log and .report.json")
    .action(
      async (o: {
        tasks: string[];
        instance?: string[];
        concurrency: number;
        testTimeout: number;
        imageTemplate?: string;
        logs?: string;
      }) => {
        const tasks = selectInstances(await loadAll(o.tasks, o.imageTemplate), o.instance);
        const { grader, provider } = offlineGrader(o.concurrency, o.testTimeout);
        await provider.removeExpired();
        const interrupt = new Interrupt('cancelling the gradings that run and removing their containers');
        const progress = new Progress(tasks.length, 'validated');
        try {
          const rows = await mapPool(tasks, o.concurrency, async (task) => {
            if (interrupt.signal.aborted) return undefined;
            const row = await validateTask(grader, task, interrupt.signal).catch((error: unknown) => {
              if (interrupt.signal.aborted) return undefined;
              throw error;
            });
            if (row && o.logs) await keepValidationLogs(o.logs, row);
            if (row) progress.tick(`${task.id} ${row.ok ? 'ok' : 'FAILS'}`);
            return row;
          });
          const done = rows.filter((r) => r !== undefined);
          process.stdout.write(`${validationTable(done)}\n`);
          if (done.some((r) => !r.ok))
            process.stdout.write(
              o.logs
                ? `both runs' logs and reports of every task: ${o.logs}/TASK/\n`
                : "run again with --logs DIR to keep both runs' whole logs and reports\n",
            );
          if (interrupt.interrupted) {
            process.stdout.write(`interrupted: ${done.length} of ${tasks.length} tasks validated\n`);
            process.exitCode = interrupt.exitCode;
          } else if (done.some((r) => !r.ok)) process.exitCode = 1;
        } finally {
          interrupt.dispose();
          await provider.removeServerContainers();
        }
      },
    );

  program
    .command('make-demo-dataset')
    .description('(developers) regenerate tasks/demo/tasks.jsonl from tasks/demo sources')
    .option('--base <image>', 'base image', DEFAULT_BASE_IMAGE)
    .option('--languages', 'regenerate tasks/demo-languages/tasks.jsonl (the tasks beyond Python) instead')
    .action(async (o: { base: string; languages?: boolean }) => {
      const logger = createLogger();
      const provider = new DockerSandboxProvider('make-demo-dataset');
      // The demo's tests need no network: graded with none (no route to set up).
      const network = o.languages ? { gradingNetwork: 'none' as const } : {};
      const grader = new Grader(
        provider,
        new Semaphore(2),
        { limits: compileConfig().limits, testTimeoutS: 300, logLimitBytes: 4 * 1024 * 1024, maxGradings: 2, ...network },
        logger,
      );
      const n = o.languages
        ? await makeLanguageDemoDataset({ dir: LANGUAGE_DEMO_DIR, baseImage: o.base, provider, grader, logger })
        : await makeDemoDataset({ demoDir: DEMO_DIR, outFile: DEMO_TASKS, baseImage: o.base, provider, grader, logger });
      process.stdout.write(`wrote ${n} tasks to ${o.languages ? LANGUAGE_DEMO_TASKS : DEMO_TASKS}\n`);
    });
}

/** A validated task's two runs, whole logs and reports, where a dataset builder can read them. */
async function keepValidationLogs(dir: string, row: ValidationRow): Promise<void> {
  const into = join(dir, row.taskId.replace(/[^\w.-]+/g, '_'));
  await mkdir(into, { recursive: true });
  await Promise.all([
    writeFile(join(into, 'gold.log'), row.logs.gold),
    writeFile(join(into, 'empty.log'), row.logs.empty),
    writeFile(join(into, 'gold.report.json'), `${JSON.stringify(row.gold, null, 2)}\n`),
    writeFile(join(into, 'empty.report.json'), `${JSON.stringify(row.empty, null, 2)}\n`),
  ]);
}
