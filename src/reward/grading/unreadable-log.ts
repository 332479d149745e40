import { ModelFault } from './container-watch.js';
import { runResults, UnreadableLog } from './language-results.js';
import { runReference, type ReferenceRunInput } from './reference-run.js';

/**
 * A log the row's parser throws on is judged by control: the gold patch's run, in a fresh
 * container from the pristine image (the submission cannot reach it), read by the same parser.
 * Readable there: the submission's code printed what the parser cannot read, the model's 0 with the
 * parser's reason. Unreadable there too (or the row has no gold patch): the row or its parser is
 * at fault, never the model, so the grading is the environment's failure and the sample is masked.
 */
export async function judgeUnreadableLog(error: UnreadableLog, input: ReferenceRunInput, signal?: AbortSignal): Promise<never> {
  if (input.task.goldPatch.trim() === '') throw new Error(`${error.message} (and the task has no gold patch to check the parser against)`);
  const gold = await runReference(input, { patch: input.task.goldPatch }, signal);
  if (!gold.applied) throw new Error(`${error.message} (and the gold patch does not apply: ${gold.why})`);
  const { run } = gold;
  const goldReadable = isReadable(() => runResults(input.plan.harnessParser, input.parser, run.log, input.task, run.reported));
  if (goldReadable) throw new ModelFault(`${error.message} (the gold patch's log reads)`);
  throw new Error(`${error.message}, and so does the gold patch's: the task's parser cannot read its own runs`);
}

function isReadable(read: () => unknown): boolean {
  try {
    read();
    return true;
  } catch (error) {
    if (error instanceof UnreadableLog) return false;
    throw error;
  }
}
