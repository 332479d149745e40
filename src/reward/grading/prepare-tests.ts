import type { Sandbox } from '../../sandbox/sandbox.js';
import { diffFiles } from '../diff-files.js';
import { PREPARE_TESTS_SCRIPT, bashArgv } from '../scripts.js';
import { GRADING_DIR } from './apply-stage.js';
import { ModelFault, watchingPause } from './container-watch.js';
import type { Task } from '../../tasks/task.js';
import type { EvalPlan } from '../eval-plan/plan.js';

/**
 * The test files restored from base_commit and the test patch applied (with the row's steps before
 * it). A test patch that does not apply is judged by control: on the pristine repository it
 * applies, so the patch's tree is the cause (the model's 0); there too, the task's (INFRA_ERROR).
 */
export interface PrepareTestsInput {
  readonly task: Task;
  readonly plan: EvalPlan;
  readonly patchEmpty: boolean;
  readonly openControl: () => Promise<Sandbox>;
}

export async function prepareTests(sandbox: Sandbox, input: PrepareTestsInput, signal?: AbortSignal): Promise<void> {
  const { task } = input;
  const testFiles = diffFiles(task.testPatch);
  const files = [
    { path: `${GRADING_DIR}/test.patch`, content: task.testPatch },
    {
      path: `${GRADING_DIR}/modified.list`,
      content: testFiles
        .filter((f) => !f.isNew)
        .map((f) => `${f.oldPath}\0`)
        .join(''),
    },
    {
      path: `${GRADING_DIR}/new.list`,
      content: testFiles
        .filter((f) => f.isNew)
        .map((f) => `${f.path}\0`)
        .join(''),
    },
  ];
  const prepare = async (box: Sandbox, watched?: AbortSignal): ReturnType<Sandbox['exec']> => {
    await box.putFiles(files);
    return box.exec(
      bashArgv(PREPARE_TESTS_SCRIPT, 'swe-env-prepare', [
        task.workdir,
        task.baseCommit,
        `${GRADING_DIR}/test.patch`,
        `${GRADING_DIR}/modified.list`,
        `${GRADING_DIR}/new.list`,
        input.plan.beforeTestPatch.join('\n'),
      ]),
      { timeoutMs: 120_000, outputLimitBytes: 64 * 1024, ...(watched ? { signal: watched } : {}) },
    );
  };
  const prepared = await watchingPause(sandbox, signal, (watched) => prepare(sandbox, watched));
  if (signal?.aborted) throw new Error('grading was cancelled');
  if (!prepared.timedOut && prepared.exitCode === 0) return;
  const why = `the task's test patch does not apply (exit ${prepared.exitCode}): ${prepared.output.toString('utf8').slice(-2000)}`;
  if (input.patchEmpty) throw new Error(why);
  // Attributed by control: on the pristine repository it applies, so the patch's tree is the cause.
  const control = await input.openControl();
  try {
    const pristine = await prepare(control);
    if (pristine.timedOut || pristine.exitCode !== 0) throw new Error(`${why} (on the pristine repository too)`);
  } finally {
    await control.remove().catch(() => undefined);
  }
  throw new ModelFault(
    `the task's test patch does not apply on top of the patch's changes (it does on the pristine repository): ${prepared.output.toString('utf8').slice(-1500)}`,
  );
}
