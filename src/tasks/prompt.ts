import { evalPlan } from '../reward/eval-plan/plan.js';
import { taskLanguage } from './language-families.js';
import type { Task } from './task.js';

/** The first observation of an episode: the issue and how to work on it. */
export function renderPrompt(task: Task): string {
  return [
    ...issueLines(task),
    '',
    'You have two tools:',
    '- bash: runs a shell command in the repository; the working directory and exported variables persist between calls, there is no network and commands cannot read input.',
    '- submit_solution: ends the episode and grades your changes with hidden tests.',
    '',
    'Make the smallest change that fixes the issue; do not modify the existing tests. Call submit_solution when you are done.',
  ].join('\n');
}

/** Where the model works and the issue it resolves: how every prompt of a task begins. */
export function issueLines(task: Task): string[] {
  return [
    `You are working in the ${promptLanguage(task)} repository ${task.repo}, checked out at ${task.workdir} (commit ${task.baseCommit.slice(0, 12)}).`,
    '',
    'Resolve the following issue by editing the source code:',
    '',
    '<issue>',
    task.problemStatement.trim(),
    '</issue>',
  ];
}

/** The task's language, as the prompt and the tool schemas tell the model. */
export function promptLanguage(task: Task): string {
  return taskLanguage(planParser(task));
}

/** The task's parser as its grading plan chooses it (the row's log_parser, a profile's, the harness's map). */
function planParser(task: Task): string | undefined {
  try {
    return evalPlan(task).harnessParser;
  } catch {
    return task.logParser;
  }
}
