import { messageOf } from '../../common/errors.js';
import type { Task } from '../../tasks/task.js';
import type { Grader } from '../grader.js';
import { instanceDir, readGraded, writeInputs, writeOutcome } from './instance-logs.js';
import { isEmptyPatch, runReport, writeRunReport, type InstanceResult } from './run-report.js';
import type { Prediction } from './predictions.js';

export interface EvalRunInput {
  readonly grader: Grader;
  /** The run's dataset: the task files' tasks, after any instance filter. */
  readonly tasks: readonly Task[];
  /** Predictions for tasks of the dataset only (refuseUnknown has checked them). */
  readonly predictions: readonly Prediction[];
  readonly out: string;
  readonly runId: string;
  readonly concurrency: number;
  /** Grade again what this run id graded before (default: skip it, as the harness does). */
  readonly rerun: boolean;
  /** Ctrl-C: no new grading starts, running ones are cancelled, and the report covers what finished. */
  readonly signal: AbortSignal;
  readonly onSkipped?: (count: number) => void;
  readonly onInstance?: (prediction: Prediction, result: InstanceResult) => void;
}

export interface EvalRunResult {
  readonly reportFile: string;
  readonly report: Record<string, unknown>;
  readonly results: ReadonlyMap<string, InstanceResult>;
  /** Graded by an earlier run of this run id and not again. */
  readonly skipped: number;
  /** Predictions left ungraded by an interruption. */
  readonly notRun: number;
  readonly interrupted: boolean;
}

/** Grades a predictions file the SWE-bench harness's way, writing its per-instance logs and run report. */
export async function runEvaluation(input: EvalRunInput): Promise<EvalRunResult> {
  const byId = new Map(input.tasks.map((t) => [t.id, t]));
  const results = new Map<string, InstanceResult>();
  const todo: Prediction[] = [];
  for (const p of input.predictions) {
    if (isEmptyPatch(p)) continue; // the harness does not grade an empty patch
    const earlier = input.rerun ? undefined : await readGraded(instanceDir(input.out, input.runId, p), p.instanceId);
    if (earlier) results.set(p.instanceId, { kind: 'graded', resolved: earlier.resolved });
    else todo.push(p);
  }
  const skipped = results.size;
  if (skipped > 0) input.onSkipped?.(skipped);

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length && !input.signal.aborted) {
      const prediction = todo[next++]!;
      const result = await gradeOne(input, byId.get(prediction.instanceId)!, prediction);
      if (result.kind === 'not-run') continue;
      results.set(prediction.instanceId, result);
      input.onInstance?.(prediction, result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, todo.length)) }, worker));

  const predictions = new Map(input.predictions.map((p) => [p.instanceId, p]));
  const report = runReport(
    input.tasks.map((t) => t.id),
    predictions,
    results,
  );
  const model = input.predictions[0]?.model ?? 'unknown-model';
  const reportFile = await writeRunReport(input.out, input.runId, model, report);
  return {
    reportFile,
    report,
    results,
    skipped,
    notRun: todo.filter((p) => !results.has(p.instanceId)).length,
    interrupted: input.signal.aborted,
  };
}

async function gradeOne(input: EvalRunInput, task: Task, prediction: Prediction): Promise<InstanceResult> {
  const dir = instanceDir(input.out, input.runId, prediction);
  await writeInputs(dir, task, prediction);
  let testLog: string | undefined;
  try {
    const report = await input.grader.grade(task, Buffer.from(prediction.modelPatch ?? '', 'utf8'), {
      signal: input.signal,
      onTestLog: (log) => (testLog = log),
    });
    // A grading cut by Ctrl-C is no verdict: nothing is written, a re-run grades it.
    if (input.signal.aborted) return { kind: 'not-run' };
    const error = report.infraError ? report.error : undefined;
    await writeOutcome(dir, prediction, {
      report,
      ...(error !== undefined ? { error } : {}),
      ...(testLog !== undefined ? { testLog } : {}),
    });
    return error !== undefined ? { kind: 'error', reason: error, infra: true } : { kind: 'graded', resolved: report.resolved };
  } catch (error) {
    if (input.signal.aborted) return { kind: 'not-run' };
    const reason = messageOf(error);
    await writeOutcome(dir, prediction, { error: reason });
    return { kind: 'error', reason, infra: false };
  }
}
