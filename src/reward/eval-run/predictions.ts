import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from '../../common/errors.js';
import type { Task } from '../../tasks/task.js';
import { closestIds } from '../../tasks/did-you-mean.js';

export interface Prediction {
  readonly instanceId: string;
  /** null when the record has model_patch: null (the harness's patch_is_None). */
  readonly modelPatch: string | null;
  readonly model: string;
}

/** `--predictions gold`: each task's own gold patch, as the harness does it. */
export const GOLD = 'gold';

export function goldPredictions(tasks: readonly Task[]): Prediction[] {
  return tasks.map((t) => ({ instanceId: t.id, modelPatch: t.goldPatch, model: 'gold' }));
}

/**
 * SWE-bench predictions: a JSON list, a JSON object keyed by instance id, or JSONL. Every mistake
 * is refused with the file, the line (JSONL) or index, and what to write instead: a record graded
 * without its patch (a misspelt key) would be an unresolved the model never earned.
 */
export async function loadPredictions(file: string): Promise<Prediction[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InvalidArgumentError(
      `--predictions ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error)}`,
    );
  }
  const records = parseRecords(file, text);
  if (records.length === 0) throw new InvalidArgumentError(`--predictions ${file}: no predictions in the file`);
  const predictions = records.map(({ value, where }) => toPrediction(file, where, value));
  refuseDuplicates(
    file,
    predictions,
    records.map((r) => r.where),
  );
  return predictions;
}

function parseRecords(file: string, text: string): Array<{ value: unknown; where: string }> {
  const trimmed = text.trimStart();
  let whole: unknown;
  try {
    whole = JSON.parse(trimmed);
  } catch (error) {
    // A list or one object that does not parse is broken JSON; anything else is read as JSONL.
    if (trimmed.startsWith('[')) throw new InvalidArgumentError(`--predictions ${file}: not valid JSON (${(error as Error).message})`);
    return jsonLines(file, text);
  }
  if (Array.isArray(whole)) return (whole as unknown[]).map((value, i) => ({ value, where: `item ${i}` }));
  if (typeof whole === 'object' && whole !== null && !('instance_id' in whole)) {
    // SWE-agent's {instance_id: prediction} file.
    return Object.entries(whole as Record<string, unknown>).map(([key, value]) => ({ value, where: `key ${key}` }));
  }
  return [{ value: whole, where: trimmed.trimEnd().includes('\n') ? 'the record' : 'line 1' }];
}

function jsonLines(file: string, text: string): Array<{ value: unknown; where: string }> {
  const out: Array<{ value: unknown; where: string }> = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push({ value: JSON.parse(line), where: `line ${i + 1}` });
    } catch (error) {
      throw new InvalidArgumentError(
        `--predictions ${file}:${i + 1}: not valid JSON (${(error as Error).message}); each line must be one JSON object`,
      );
    }
  });
  return out;
}

function toPrediction(file: string, where: string, value: unknown): Prediction {
  const at = `--predictions ${file} (${where})`;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidArgumentError(`${at}: a prediction must be a JSON object`);
  const r = value as Record<string, unknown>;
  if (typeof r['instance_id'] !== 'string' || r['instance_id'] === '') throw new InvalidArgumentError(`${at}: no instance_id`);
  if (!('model_patch' in r)) {
    const near = Object.keys(r).filter((k) => /patch|diff/i.test(k));
    throw new InvalidArgumentError(
      `${at}: ${r['instance_id']} has no model_patch${near.length ? ` (found ${near.join(', ')})` : ''}; SWE-bench predictions carry the patch in model_patch (use null or "" for no patch)`,
    );
  }
  const patch = r['model_patch'];
  if (patch !== null && typeof patch !== 'string')
    throw new InvalidArgumentError(`${at}: model_patch of ${r['instance_id']} must be a string or null`);
  const model = r['model_name_or_path'];
  if (model !== undefined && typeof model !== 'string') throw new InvalidArgumentError(`${at}: model_name_or_path must be a string`);
  return { instanceId: r['instance_id'], modelPatch: patch, model: model || 'unknown-model' };
}

function refuseDuplicates(file: string, predictions: readonly Prediction[], wheres: readonly string[]): void {
  const seen = new Map<string, string>();
  predictions.forEach((p, i) => {
    const earlier = seen.get(p.instanceId);
    if (earlier !== undefined) {
      throw new InvalidArgumentError(
        `--predictions ${file}: ${p.instanceId} is predicted twice (${earlier} and ${wheres[i]}); keep one prediction per instance`,
      );
    }
    seen.set(p.instanceId, wheres[i]!);
  });
}

/** Predictions for instances the task files lack: refused with the nearest ids, as the harness refuses them. */
export function refuseUnknown(predictions: readonly Prediction[], tasks: ReadonlyMap<string, Task>): void {
  const unknown = predictions.filter((p) => !tasks.has(p.instanceId)).map((p) => p.instanceId);
  if (unknown.length === 0) return;
  const hints = unknown.slice(0, 5).map((id) => {
    const near = closestIds(id, [...tasks.keys()]);
    return near.length ? `${id} (did you mean ${near.join(' or ')}?)` : id;
  });
  throw new InvalidArgumentError(
    `${unknown.length} prediction${unknown.length === 1 ? ' is' : 's are'} for instances not in the task files: ${hints.join(', ')}${unknown.length > 5 ? ', ...' : ''}; give the task file that holds them with --tasks, or remove those predictions`,
  );
}
