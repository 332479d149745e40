import { createHash } from 'node:crypto';
import type { Task } from '../../tasks/task.js';
import type { TestStatus } from '../../languages/index.js';
import type { GradeReport } from '../report.js';
import type { CanaryPlan } from './canaries.js';
import { runResults } from './language-results.js';
import { runReference, type ReferenceRunInput } from './reference-run.js';

/**
 * A mirror copy runs a listed test's code once more in the same run, and a listed test whose
 * outcome depends on what other tests left behind (a constant the tests before it filled, a
 * counter) sees the copies' leftovers too: the copies can make it fail under any fix, the gold
 * patch's included, and a failing listed test is no flag the gold patch's reference sets aside
 * (mirror-attribution.ts). A correct fix would score 0 on every such task.
 *
 * So when a grading is 0 for its listed tests alone (no integrity flag) and copies ran, the task is
 * asked once whether its copies do that: the gold patch's run with the same canaries, in a control
 * the submission cannot reach. Listed tests it fails that the gold patch's run without copies passes
 * (the row was validated on that one) are the copies' doing. Then the submission is graded again
 * without copies (the synthetic canaries stay), and that grading stands. The answer is the task's
 * (where copies go is the placement rules', not chance), kept for later gradings of it; the
 * submission cannot reach it, so a failure of its own cannot buy a run without copies on a task
 * where they are sound.
 */

/** Whether a finished grading is worth asking about: 0 for listed tests alone, with copies in its run. */
export function failedWithCopies(report: GradeReport, plan: CanaryPlan | undefined, task: Task): boolean {
  if (!plan?.canaries.some((c) => c.mirrorOf !== undefined)) return false;
  if (report.resolved || report.infraError || report.patchEmpty || report.testTimedOut) return false;
  if (report.integrityFlags.length > 0 || task.goldPatch.trim() === '') return false;
  return [...report.failToPass, ...report.passToPass].some((t) => t.status !== 'PASSED');
}

/** Listed tests the gold patch's run fails with a task's copies and passes without them. */
export type Interference = readonly string[];

const KEPT = 4096;

/** Each task's answer, asked once per grader (concurrent gradings of a task share one reference). */
export class InterferenceCache {
  private readonly answers = new Map<string, Promise<Interference>>();

  async of(input: ReferenceRunInput, plan: CanaryPlan, signal?: AbortSignal): Promise<Interference> {
    const key = taskKey(input.task);
    for (;;) {
      let answer = this.answers.get(key);
      if (!answer) {
        answer = interference(input, plan, signal);
        this.answers.set(key, answer);
        if (this.answers.size > KEPT) this.answers.delete(this.answers.keys().next().value!);
        // A failed reference is asked again by the next grading, not remembered.
        answer.catch(() => {
          if (this.answers.get(key) === answer) this.answers.delete(key);
        });
      }
      try {
        return await answer;
      } catch (error) {
        // Another grading's cancellation ended the shared reference: this one asks again.
        if (signal?.aborted || !(error instanceof ReferenceCancelled)) throw error;
      }
    }
  }
}

class ReferenceCancelled extends Error {}

function taskKey(task: Task): string {
  return createHash('sha256')
    .update(task.id)
    .update('\0')
    .update(task.image)
    .update('\0')
    .update(task.testPatch)
    .update('\0')
    .update(task.goldPatch)
    .digest('hex');
}

async function interference(input: ReferenceRunInput, plan: CanaryPlan, signal?: AbortSignal): Promise<Interference> {
  const withCopies = await goldFailing(input, { canaryPlan: plan }, signal);
  if (withCopies.length === 0) return [];
  const without = new Set(await goldFailing(input, { mirrors: false }, signal));
  return withCopies.filter((name) => !without.has(name));
}

/** The listed tests the gold patch's reference run does not pass. */
async function goldFailing(
  input: ReferenceRunInput,
  canaries: { readonly canaryPlan?: CanaryPlan; readonly mirrors?: false },
  signal?: AbortSignal,
): Promise<string[]> {
  let gold;
  try {
    gold = await runReference(input, { patch: input.task.goldPatch, ...canaries }, signal);
  } catch (error) {
    throw signal?.aborted ? new ReferenceCancelled('the reference run was cancelled', { cause: error }) : error;
  }
  if (!gold.applied) throw new Error(`the gold patch does not apply: ${gold.why}`);
  if (gold.scratch.testTimedOut) throw new Error('the reference run timed out');
  const results: Map<string, TestStatus> = runResults(input.plan.harnessParser, input.parser, gold.run.log, input.task, gold.run.reported);
  return [...input.task.failToPass, ...input.task.passToPass].filter((name) => results.get(name) !== 'PASSED');
}
