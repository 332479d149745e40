import type { Sandbox } from '../../sandbox/sandbox.js';
import { diffFiles } from '../diff-files.js';
import { baseReport, type GradeReport } from '../report.js';
import { afterTestPatchStage } from './after-test-patch.js';
import { applyStage, readRepoFiles } from './apply-stage.js';
import { taskSteps } from './agent-steps.js';
import { ModelFault } from './container-watch.js';
import { prepareTests, type PrepareTestsInput } from './prepare-tests.js';

/**
 * The hidden test files as the test patch left them, taken before a 5.x row's steps after the test
 * patch run (a build step runs the patch's own code, which could rewrite the tests, and the
 * canaries would then be planned from its text). After the steps, any that differ are judged by
 * control: the same steps with the gold patch, in a fresh container the submission cannot reach.
 * If they leave those files exactly as the submission's run did, the steps themselves rewrite them
 * (a generated test, a normalised file) and the run goes on; otherwise the patch's code changed the
 * hidden tests: the model's 0.
 */
export interface HiddenTestsInput extends PrepareTestsInput {
  readonly testTimeoutS: number;
}

export type HiddenTexts = ReadonlyMap<string, string | undefined>;

export function hiddenTestPaths(testPatch: string): string[] {
  return diffFiles(testPatch)
    .filter((f) => !f.isDeleted)
    .map((f) => f.path);
}

export async function readHiddenTests(sandbox: Sandbox, workdir: string, paths: readonly string[]): Promise<HiddenTexts> {
  const read = await readRepoFiles(sandbox, workdir, paths);
  return new Map(paths.map((p) => [p, read.get(p)?.work]));
}

/** Throws the model's fault when the steps after the test patch changed hidden tests and the gold patch's run does not change them alike. */
export async function judgeHiddenTestChanges(
  sandbox: Sandbox,
  input: HiddenTestsInput,
  applied: HiddenTexts,
  signal?: AbortSignal,
): Promise<void> {
  const paths = [...applied.keys()];
  const now = await readHiddenTests(sandbox, input.task.workdir, paths);
  const changed = paths.filter((p) => now.get(p) !== applied.get(p));
  if (changed.length === 0) return;
  const gold = await goldAfterSteps(input, changed, signal);
  const differs = changed.filter((p) => gold.get(p) !== now.get(p));
  if (differs.length === 0) return;
  throw new ModelFault(
    `the steps after the test patch changed hidden test files the gold patch's run leaves as they are: ${differs.slice(0, 5).join(', ')}`,
  );
}

async function goldAfterSteps(input: HiddenTestsInput, paths: readonly string[], signal?: AbortSignal): Promise<HiddenTexts> {
  if (input.task.goldPatch.trim() === '')
    throw new Error('the steps after the test patch changed hidden test files, and the task has no gold patch to compare with');
  const control = await input.openControl();
  try {
    const scratch: GradeReport = { ...baseReport(input.task.id), patchEmpty: false };
    await taskSteps(control, input.task, input.plan, scratch, { timeoutS: input.testTimeoutS, installRerun: 'never' }, signal);
    const changed = await applyStage(control, input.task, Buffer.from(input.task.goldPatch), scratch, signal);
    if (changed === undefined) throw new Error(`the gold patch does not apply: ${scratch.error ?? ''}`);
    await prepareTests(control, { ...input, patchEmpty: false }, signal);
    await afterTestPatchStage(control, { task: input.task, plan: input.plan, timeoutS: input.testTimeoutS }, scratch, signal);
    return await readHiddenTests(control, input.task.workdir, paths);
  } finally {
    await control.remove().catch(() => undefined);
  }
}
