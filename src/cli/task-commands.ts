import type { Command } from 'commander';
import { InvalidArgumentError } from '../common/errors.js';
import { evalPlan } from '../reward/eval-plan/plan.js';
import { harnessEvalScript } from '../reward/eval-plan/render.js';
import { didYouMean } from '../tasks/did-you-mean.js';
import { loadTaskFile } from '../tasks/loader.js';
import { DEMO_TASKS, collect, loadAll } from './options.js';

export function registerTaskCommands(program: Command): void {
  program
    .command('tasks')
    .description('list the tasks of task files')
    .option('--tasks <file>', 'task file, repeatable', collect)
    .action(async (o: { tasks?: string[] }) => {
      for (const file of o.tasks ?? [DEMO_TASKS]) {
        const { tasks, problems } = await loadTaskFile(file);
        for (const t of tasks)
          process.stdout.write(`${t.id}\t${t.repo}\t${t.failToPass.length} F2P\t${t.passToPass.length} P2P\t${t.image}\n`);
        for (const p of problems) process.stderr.write(`${p.file} ${p.where} ${p.field}: ${p.message}\n`);
      }
    });

  program
    .command('plan <taskId>')
    .description("print a task's eval plan: where its facts come from, and the harness's eval.sh it amounts to")
    .option('--tasks <file>', 'task file, repeatable', collect)
    .action(async (taskId: string, o: { tasks?: string[] }) => {
      const tasks = await loadAll(o.tasks ?? [DEMO_TASKS]);
      const task = tasks.find((t) => t.id === taskId);
      if (!task)
        throw new InvalidArgumentError(
          `no task ${taskId} in ${(o.tasks ?? [DEMO_TASKS]).join(', ')}${didYouMean(
            taskId,
            tasks.map((t) => t.id),
          )}`,
        );
      const plan = evalPlan(task);
      process.stdout.write(`# source: ${plan.source}; harness parser: ${plan.harnessParser}\n`);
      for (const note of plan.notes) process.stdout.write(`# note: ${note}\n`);
      process.stdout.write(harnessEvalScript(plan, task));
    });
}
