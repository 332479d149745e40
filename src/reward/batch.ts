import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '../tasks/task.js';
import type { Grader } from './grader.js';
import type { GradeReport } from './report.js';

export interface Prediction {
  readonly instanceId: string;
  readonly modelPatch: string | null;
  readonly model: string;
}

/** SWE-bench predictions: a JSON list, a JSON object keyed by instance id, or JSONL. */
export async function loadPredictions(file: string): Promise<Prediction[]> {
  const text = await readFile(file, 'utf8');
  const trimmed = text.trimStart();
  let records: unknown[];
  if (trimmed.startsWith('[')) records = JSON.parse(trimmed) as unknown[];
  else if (trimmed.startsWith('{') && !trimmed.includes('\n{')) {
    const parsed = JSON.parse(trimmed) as Record<string, unknown>;
    records = 'instance_id' in parsed ? [parsed] : Object.values(parsed);
  } else records = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as unknown);
  return records.map((value, i) => {
    const r = value as Record<string, unknown>;
    if (typeof r['instance_id'] !== 'string') throw new Error(`${file}: prediction ${i} has no instance_id`);
    const patch = r['model_patch'];
    return {
      instanceId: r['instance_id'],
      modelPatch: typeof patch === 'string' ? patch : null,
      model: typeof r['model_name_or_path'] === 'string' ? r['model_name_or_path'] : 'unknown-model',
    };
  });
}

/** One instance's report in the SWE-bench harness's shape (report.json). */
export function harnessReport(prediction: Prediction, report: GradeReport): Record<string, unknown> {
  const split = (list: GradeReport['failToPass']) => ({
    success: list.filter((t) => t.status === 'PASSED').map((t) => t.name),
    failure: list.filter((t) => t.status !== 'PASSED').map((t) => t.name),
  });
  return {
    [prediction.instanceId]: {
      patch_is_None: prediction.modelPatch === null,
      patch_exists: prediction.modelPatch !== null && prediction.modelPatch.trim() !== '',
      patch_successfully_applied: report.patchApplied,
      resolved: report.resolved,
      tests_status: { FAIL_TO_PASS: split(report.failToPass), PASS_TO_PASS: split(report.passToPass), FAIL_TO_FAIL: { success: [], failure: [] }, PASS_TO_FAIL: { success: [], failure: [] } },
      swe_env: report,
    },
  };
}

export interface EvalSummary {
  readonly total_instances: number;
  readonly submitted_instances: number;
  readonly completed_instances: number;
  readonly resolved_instances: number;
  readonly unresolved_instances: number;
  readonly empty_patch_instances: number;
  readonly error_instances: number;
  readonly completed_ids: string[];
  readonly resolved_ids: string[];
  readonly unresolved_ids: string[];
  readonly empty_patch_ids: string[];
  readonly error_ids: string[];
  readonly schema_version: number;
}

export interface EvalOutcome {
  readonly prediction: Prediction;
  readonly report?: GradeReport;
  /** Why the instance could not be graded (unknown task, infrastructure). */
  readonly error?: string;
}

/** Grades one prediction; an unknown instance or an infrastructure failure is an error id, not a 0. */
export async function evaluatePrediction(grader: Grader, tasks: ReadonlyMap<string, Task>, prediction: Prediction): Promise<EvalOutcome> {
  const task = tasks.get(prediction.instanceId);
  if (!task) return { prediction, error: `no task ${prediction.instanceId} in the task files` };
  const report = await grader.grade(task, Buffer.from(prediction.modelPatch ?? '', 'utf8'));
  if (report.infraError) return { prediction, report, error: report.error };
  return { prediction, report };
}

export async function writeEvalReports(outDir: string, runId: string, totalTasks: number, outcomes: readonly EvalOutcome[]): Promise<{ file: string; summary: EvalSummary }> {
  const model = (outcomes[0]?.prediction.model ?? 'unknown-model').replaceAll('/', '__');
  for (const o of outcomes) {
    const dir = join(outDir, model, o.prediction.instanceId);
    await mkdir(dir, { recursive: true });
    const body = o.report ? harnessReport(o.prediction, o.report) : { [o.prediction.instanceId]: { error: o.error } };
    await writeFile(join(dir, 'report.json'), `${JSON.stringify(body, null, 2)}\n`);
  }
  const ids = (pred: (o: EvalOutcome) => boolean) => outcomes.filter(pred).map((o) => o.prediction.instanceId);
  const empty = ids((o) => o.prediction.modelPatch === null || o.prediction.modelPatch.trim() === '');
  const errors = ids((o) => o.error !== undefined);
  const completed = ids((o) => o.error === undefined);
  const resolved = ids((o) => o.error === undefined && o.report?.resolved === true);
  const unresolved = ids((o) => o.error === undefined && o.report?.resolved !== true);
  const summary: EvalSummary = {
    total_instances: totalTasks,
    submitted_instances: outcomes.length,
    completed_instances: completed.length,
    resolved_instances: resolved.length,
    unresolved_instances: unresolved.length,
    empty_patch_instances: empty.length,
    error_instances: errors.length,
    completed_ids: completed,
    resolved_ids: resolved,
    unresolved_ids: unresolved,
    empty_patch_ids: empty,
    error_ids: errors,
    schema_version: 2,
  };
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, `${model}.${runId}.json`);
  await writeFile(file, `${JSON.stringify(summary, null, 2)}\n`);
  return { file, summary };
}

export interface ValidationRow {
  readonly taskId: string;
  readonly ok: boolean;
  readonly problems: string[];
  readonly gold: GradeReport;
  readonly empty: GradeReport;
}

/** A sound task: the gold patch scores 1 and the empty patch 0, with no infrastructure error. */
export async function validateTask(grader: Grader, task: Task): Promise<ValidationRow> {
  const gold = await grader.grade(task, Buffer.from(task.goldPatch, 'utf8'));
  const empty = await grader.grade(task, Buffer.alloc(0));
  const problems: string[] = [];
  if (gold.infraError) problems.push(`gold: infrastructure error: ${gold.error}`);
  else if (gold.reward !== 1) {
    const failing = [...gold.failToPass, ...gold.passToPass].filter((t) => t.status !== 'PASSED').map((t) => `${t.name} ${t.status}`);
    problems.push(`gold scores ${gold.reward}${gold.error ? ` (${gold.error.split('\n')[0]})` : ''}${failing.length ? `: ${failing.slice(0, 5).join(', ')}` : ''}`);
  }
  const hint = importHint(gold);
  if (hint) problems.push(hint);
  if (empty.infraError) problems.push(`empty: infrastructure error: ${empty.error}`);
  else if (empty.reward !== 0) problems.push('the empty patch scores 1: the FAIL_TO_PASS tests already pass');
  return { taskId: task.id, ok: problems.length === 0, problems, gold, empty };
}

/**
 * Every listed test missing and the log showing an import failure: the tests never ran because the
 * package cannot be imported (a src/ layout, a package needing a build), not because of the patch.
 */
export function importHint(report: GradeReport): string | undefined {
  const listed = [...report.failToPass, ...report.passToPass];
  if (listed.length === 0 || !listed.every((t) => t.status === 'MISSING')) return undefined;
  const failure = /(ModuleNotFoundError|ImportError): [^\n]*/.exec(report.logTail)?.[0];
  if (!failure) return undefined;
  return `hint: every listed test is missing and the log shows "${failure}": the tests cannot import the package. Give the record an install step (e.g. "python3 -m pip install --no-build-isolation --no-index -e ."), or images build --install, and rebuild its image`;
}

export function validationTable(rows: readonly ValidationRow[]): string {
  const header = 'task                                      ok   start  patch   tests  total  (gold run, seconds)';
  const lines = rows.map((r) => {
    const d = r.gold.durations;
    const f = (x: number) => x.toFixed(2).padStart(6);
    return `${r.taskId.padEnd(42)}${(r.ok ? 'yes' : 'NO').padEnd(4)}${f(d.containerStartS)} ${f(d.patchS)} ${f(d.testRunS)} ${f(d.totalS)}`;
  });
  const failing = rows.filter((r) => !r.ok);
  const problems = failing.length === 0 ? ['all tasks are sound'] : ['tasks that fail:', ...failing.map((r) => `  ${r.taskId}: ${r.problems.join('; ')}`)];
  return [header, ...lines, '', ...problems].join('\n');
}
