import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { modelDir } from './instance-logs.js';
import type { Prediction } from './predictions.js';

/** How one instance of the run ended. */
export type InstanceResult =
  | { readonly kind: 'graded'; readonly resolved: boolean }
  /** Not graded: the environment failed (infra) or the grading could not run; the reason says which. */
  | { readonly kind: 'error'; readonly reason: string; readonly infra: boolean }
  /** Not graded yet: the run was interrupted first. */
  | { readonly kind: 'not-run' };

/**
 * The run report in swebench 5.0.2's make_run_report shape (schema_version 2), file
 * OUT/MODEL.RUN_ID.json. As the harness counts: an instance without a prediction is incomplete;
 * an empty patch is only an empty-patch id (not graded, neither completed nor unresolved); a
 * graded one is completed and resolved or unresolved; one with no report is an error. swe-env adds
 * instances an interrupted run did not reach to incomplete_ids, and puts environment failures in
 * infra_failure_ids with their reasons (they stay error ids, as the harness keeps its own).
 */
export function runReport(
  datasetIds: readonly string[],
  predictions: ReadonlyMap<string, Prediction>,
  results: ReadonlyMap<string, InstanceResult>,
): Record<string, unknown> {
  const ids = {
    completed: [] as string[],
    incomplete: [] as string[],
    empty: [] as string[],
    resolved: [] as string[],
    unresolved: [] as string[],
    infra: [] as string[],
    error: [] as string[],
  };
  const reasons: Record<string, string> = {};
  for (const id of datasetIds) {
    const prediction = predictions.get(id);
    if (!prediction) {
      ids.incomplete.push(id);
      continue;
    }
    if (isEmptyPatch(prediction)) {
      ids.empty.push(id);
      continue;
    }
    const result = results.get(id) ?? { kind: 'not-run' };
    if (result.kind === 'graded') {
      ids.completed.push(id);
      (result.resolved ? ids.resolved : ids.unresolved).push(id);
    } else if (result.kind === 'error') {
      ids.error.push(id);
      reasons[id] = result.reason;
      if (result.infra) ids.infra.push(id);
    } else {
      ids.incomplete.push(id);
    }
  }
  const sorted = (list: string[]) => [...list].sort();
  return {
    total_instances: datasetIds.length,
    submitted_instances: predictions.size,
    completed_instances: ids.completed.length,
    resolved_instances: ids.resolved.length,
    unresolved_instances: ids.unresolved.length,
    infra_failure_instances: ids.infra.length,
    ambiguous_failure_instances: 0,
    empty_patch_instances: ids.empty.length,
    error_instances: ids.error.length,
    completed_ids: sorted(ids.completed),
    incomplete_ids: sorted(ids.incomplete),
    empty_patch_ids: sorted(ids.empty),
    submitted_ids: sorted([...predictions.keys()]),
    resolved_ids: sorted(ids.resolved),
    unresolved_ids: sorted(ids.unresolved),
    infra_failure_ids: sorted(ids.infra),
    ambiguous_failure_ids: [],
    failure_reasons: Object.fromEntries(Object.entries(reasons).sort(([a], [b]) => a.localeCompare(b))),
    error_ids: sorted(ids.error),
    schema_version: 2,
  };
}

export function isEmptyPatch(prediction: Prediction): boolean {
  return prediction.modelPatch === null || prediction.modelPatch === '';
}

export async function writeRunReport(out: string, runId: string, model: string, report: Record<string, unknown>): Promise<string> {
  await mkdir(out, { recursive: true });
  const file = join(out, `${modelDir(model)}.${runId}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 4)}\n`);
  return file;
}
