import type { Task } from '../../tasks/task.js';
import type { EvalPlan } from './plan.js';
import { isLanguageRun } from '../../languages/index.js';

const HEREDOC = 'EOF_114329324912';

/**
 * The plan written out as the SWE-bench harness's eval.sh for the task, in its exact shape (4.1's
 * make_eval_script_list_py; 5.x rows carry scripts of the same shape): what `swe-env tasks plan`
 * shows, and what the conformance tests compare with the installed harness line for line. The
 * grader runs the same parts with its own checks between them (see grader.ts).
 */
export function harnessEvalScript(plan: EvalPlan, task: Task): string {
  if (isLanguageRun(plan.harnessParser)) return commonEvalScript(plan, task);
  const dir = task.workdir;
  const reset = `git checkout ${task.baseCommit} ${plan.resetFiles.join(' ')}`;
  const lines = [
    '#!/bin/bash',
    'set -uxo pipefail',
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    `cd ${dir}`,
    ...plan.evalCommands,
    `git config --global --add safe.directory ${dir}`,
    `cd ${dir}`,
    'git status',
    'git show',
    `git -c core.fileMode=false diff ${task.baseCommit}`,
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    ...(plan.install ? [plan.install] : []),
    ...testRun(plan, task, 'git apply -v', reset),
  ];
  return `${lines.join('\n')}\n`;
}

/** The script's end, the same in both shapes: reset, test patch, the row's steps, the marked test command, reset. */
function testRun(plan: EvalPlan, task: Task, apply: string, reset: string): string[] {
  return [
    reset,
    ...plan.beforeTestPatch,
    `${apply} - <<'${HEREDOC}'\n${task.testPatch}\n${HEREDOC}`,
    ...plan.afterTestPatch,
    ": '>>>>> Start Test Output'",
    plan.testCommand,
    ": '>>>>> End Test Output'",
    reset,
  ];
}

/**
 * The shape the harness writes for languages beyond Python (make_eval_script_list_common): no
 * conda and no git status / show / diff, the reset an echo when the test patch touches no file,
 * the test patch applied with `--verbose --reject`, the row's build steps after it.
 */
function commonEvalScript(plan: EvalPlan, task: Task): string {
  const dir = task.workdir;
  const reset =
    plan.resetFiles.length > 0 ? `git checkout ${task.baseCommit} ${plan.resetFiles.join(' ')}` : 'echo "No test files to reset"';
  const lines = [
    '#!/bin/bash',
    'set -uxo pipefail',
    `cd ${dir}`,
    ...plan.evalCommands,
    `git config --global --add safe.directory ${dir}`,
    `cd ${dir}`,
    ...(plan.install ? [plan.install] : []),
    ...testRun(plan, task, 'git apply --verbose --reject', reset),
  ];
  return `${lines.join('\n')}\n`;
}
