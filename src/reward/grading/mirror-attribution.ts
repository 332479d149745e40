import { messageOf } from '../../common/errors.js';
import type { Task } from '../../tasks/task.js';
import { isLanguageRunner, type TestStatus } from '../../languages/index.js';
import { checkCanaries, type CanaryPlan, type RunnerFamily } from './canaries.js';
import type { Evidence } from './evidence.js';
import { flag, severityOf, type Flag } from '../findings.js';
import { runResults } from './language-results.js';
import { runReference, type ReferenceRunInput } from './reference-run.js';

/**
 * A mirror canary is a copy of a listed test, and a copy behaves like its original only when the
 * test's outcome depends on nothing but its own code: state shared between tests, a cache, a
 * counter or the order of tests can make an honest run's copy disagree with its original. Such a
 * flag must not score a correct fix 0. So when a run's only integrity flags are mirror flags and
 * every listed test passed (the flags alone stand between it and reward 1), the same canaries are
 * run in a reference the submission cannot reach: a fresh container from the pristine image with
 * the task's gold patch. A mirror that disagrees there too is no witness on this task: its flag is
 * dropped, with an audit note. One that agrees there stands: the submission's code made it differ.
 *
 * A synthetic canary of a runner beyond Python is judged the same way: it joins a listed test's
 * group or file (RSpec: its example group, with the group's hooks), and a hook demanding something
 * of every example (`before { expect(X).to receive(:y) }`) fails it under any fix. A synthetic
 * canary the gold patch's run flags too is no witness either.
 */

export interface MirrorReferenceInput extends ReferenceRunInput {
  readonly canaryPlan: CanaryPlan | undefined;
  readonly family: RunnerFamily;
}

/** The flags that make the reward 0. */
function integrity(evidence: Evidence): Flag[] {
  return evidence.flags.filter((f) => severityOf(f.kind) === 'integrity');
}

const isMirrorFlag = (f: Flag): boolean => f.kind === 'mirror-disagrees' && f.canary !== undefined;

/** A flag the gold patch's reference can set aside: a mirror's, or (beyond Python) a synthetic canary's. */
const excusable =
  (family: RunnerFamily | undefined) =>
  (f: Flag): boolean =>
    isMirrorFlag(f) || (family !== undefined && isLanguageRunner(family) && f.kind === 'canary-wrong' && f.canary !== undefined);

/** Whether the flags are worth a reference run: all of them canary flags it can set aside, and every listed test passed. */
export function onlyMirrorFlags(evidence: Evidence, task: Task, family?: RunnerFamily): boolean {
  const flags = integrity(evidence);
  if (flags.length === 0 || !flags.every(excusable(family))) return false;
  return [...task.failToPass, ...task.passToPass].every((name) => evidence.logResults.get(name) === 'PASSED');
}

function onlyMirrorFlagsOfAFailingRun(evidence: Evidence, task: Task): boolean {
  const flags = integrity(evidence);
  if (flags.length === 0 || !flags.every(isMirrorFlag)) return false;
  return [...task.failToPass, ...task.passToPass].some((name) => evidence.logResults.get(name) !== 'PASSED');
}

/** The evidence with the mirror flags the gold patch raises too taken out (and said in the audit flags). */
export async function excuseMirrorFlags(evidence: Evidence, input: MirrorReferenceInput, signal?: AbortSignal): Promise<Evidence> {
  if (onlyMirrorFlagsOfAFailingRun(evidence, input.task)) {
    // A listed test failed: the reward is 0 whatever the copies did, so they are reported, not
    // counted (an empty patch on a task whose tests share state raises them, as any patch does).
    return {
      ...evidence,
      flags: evidence.flags.map((f) =>
        isMirrorFlag(f) ? flag('mirror-unjudged', `mirror canaries: not judged, a listed test failed (${f.line})`, f.canary) : f,
      ),
    };
  }
  if (!input.canaryPlan || !onlyMirrorFlags(evidence, input.task, input.family) || input.task.goldPatch.trim() === '') return evidence;
  let reference: ReadonlySet<string>;
  try {
    reference = await goldMirrorFlags(input, input.canaryPlan, signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    return {
      ...evidence,
      flags: [
        ...evidence.flags,
        flag('mirror-reference-failed', `mirror canaries: the gold patch's reference run failed (${messageOf(error)}); the flags stand`),
      ],
    };
  }
  const excused = (f: Flag): boolean => excusable(input.family)(f) && reference.has(f.canary!);
  if (!evidence.flags.some(excused)) return evidence;
  return {
    ...evidence,
    flags: evidence.flags.map((f) =>
      excused(f)
        ? flag('mirror-excused', `mirror canaries: not counted, the gold patch's run disagrees the same way (${f.line})`, f.canary)
        : f,
    ),
  };
}

/** The canaries the gold patch's run flags (those it can set aside), the same canary files written. */
async function goldMirrorFlags(input: MirrorReferenceInput, plan: CanaryPlan, signal?: AbortSignal): Promise<ReadonlySet<string>> {
  const gold = await runReference(input, { patch: input.task.goldPatch, canaryPlan: plan }, signal);
  if (!gold.applied) throw new Error(`the gold patch does not apply: ${gold.why}`);
  if (gold.scratch.testTimedOut) throw new Error('the reference run timed out');
  const { run } = gold;
  const results: Map<string, TestStatus> = runResults(input.plan.harnessParser, input.parser, run.log, input.task, run.reported);
  const flags = checkCanaries(plan.canaries, results, input.family, 'printed log').flags;
  return new Set(flags.filter(excusable(input.family)).map((f) => f.canary!));
}
