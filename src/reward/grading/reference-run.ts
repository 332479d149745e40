import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import type { LogParserName } from '../../languages/index.js';
import type { EvalPlan } from '../eval-plan/plan.js';
import { baseReport, type GradeReport } from '../report.js';
import { applyStage } from './apply-stage.js';
import { taskSteps } from './agent-steps.js';
import type { CanaryPlan } from './canaries.js';
import { testRunStage, type TestRunResult } from './test-run.js';

/** What a reference run needs: the task, its plan and parser, the limits, and a fresh container of the pristine image. */
export interface ReferenceRunInput {
  readonly task: Task;
  readonly plan: EvalPlan;
  readonly parser: LogParserName;
  readonly testTimeoutS: number;
  readonly logLimitBytes: number;
  readonly openControl: () => Promise<Sandbox>;
}

export type ReferenceRun =
  | { readonly applied: true; readonly run: TestRunResult; readonly scratch: GradeReport }
  | { readonly applied: false; readonly why: string };

/**
 * The test command in a control the submission cannot reach: a fresh container from the pristine
 * image, at base_commit with the task's steps and the test patch, and `patch` applied (the gold
 * patch) or nothing (an empty patch). `canaryPlan` runs the same canaries as the submission's run;
 * `mirrors: false` plans canaries without copies of listed tests.
 * The control is removed before this returns; `applied: false` when the patch does not apply.
 */
export async function runReference(
  input: ReferenceRunInput,
  change: { readonly patch?: string; readonly canaryPlan?: CanaryPlan; readonly mirrors?: false },
  signal?: AbortSignal,
): Promise<ReferenceRun> {
  const control = await input.openControl();
  try {
    const patchEmpty = change.patch === undefined;
    // A report of its own; a fresh one reads as the empty patch's, so one with a patch says it has one.
    const scratch = { ...baseReport(input.task.id), patchEmpty };
    const steps = await taskSteps(
      control,
      input.task,
      input.plan,
      scratch,
      { timeoutS: input.testTimeoutS, installRerun: 'never' },
      signal,
    );
    if (change.patch !== undefined) {
      const changed = await applyStage(control, input.task, Buffer.from(change.patch), scratch, signal);
      if (changed === undefined) return { applied: false, why: scratch.error ?? '' };
    }
    const run = await testRunStage(
      control,
      {
        ...input,
        agentFiles: [],
        plugins: steps.plugins,
        patchEmpty,
        reference: true,
        ...(change.canaryPlan ? { canaryPlan: change.canaryPlan } : {}),
        ...(change.mirrors === false ? { mirrors: false } : {}),
      },
      scratch,
      signal,
    );
    return { applied: true, run, scratch };
  } finally {
    await control.remove().catch(() => undefined);
  }
}
