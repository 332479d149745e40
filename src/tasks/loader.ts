import { access, readFile } from 'node:fs/promises';
import { InvalidArgumentError } from '../common/errors.js';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { isHarnessParser, resultReporterFor } from '../languages/index.js';
import { reverseDiff } from './reverse-diff.js';
import { basename } from 'node:path';
import { DEFAULT_IMAGE_TEMPLATE, imageName } from './image-name.js';
import type { Task } from './task.js';

export interface RecordProblem {
  readonly file: string;
  /** 1-based line for JSONL, or the 0-based index in a JSON array prefixed with '#'. */
  readonly where: string;
  readonly field: string;
  readonly message: string;
}

export interface LoadResult {
  readonly tasks: Task[];
  readonly problems: RecordProblem[];
}

export type RecordFormat = 'auto' | 'swe-bench' | 'swe-smith';

export interface LoadOptions {
  readonly imageTemplate?: string;
  /** auto: a record without test_patch is SWE-smith's (its patch introduces the bug). */
  readonly format?: RecordFormat;
  readonly dataset?: string;
  readonly workdir?: string;
}

/**
 * Loads SWE-bench, SWE-Gym or SWE-smith records from a JSON array, JSONL or parquet file (the
 * Hugging Face exports). Bad records are reported with file, place and field; the good ones load.
 */
export async function loadTaskFile(file: string, options: LoadOptions = {}): Promise<LoadResult> {
  const dataset = options.dataset ?? basename(file).replace(/\.(jsonl?|json|parquet)$/i, '');
  await access(file).catch(() => {
    throw new InvalidArgumentError(`task file ${file} does not exist (given with --tasks); the demo tasks are in tasks/demo/tasks.jsonl`);
  });
  const entries = /\.parquet$/i.test(file) ? await parquetEntries(file) : parseEntries(await readFile(file, 'utf8'), file);
  const tasks: Task[] = [];
  const problems: RecordProblem[] = [...entries.problems];
  const seen = new Set<string>();
  for (const { where, value } of entries.records) {
    const result = normaliseRecord(value, { ...options, dataset });
    if ('problem' in result) {
      problems.push({ file, where, ...result.problem });
      continue;
    }
    if (seen.has(result.task.id)) {
      problems.push({ file, where, field: 'instance_id', message: `duplicate instance_id ${result.task.id}` });
      continue;
    }
    seen.add(result.task.id);
    tasks.push(result.task);
  }
  return { tasks, problems };
}

/** Loads several task files in order; each bad record goes to `onProblem`, the good ones load. */
export async function loadTaskFiles(
  files: readonly string[],
  options: LoadOptions,
  onProblem: (problem: RecordProblem) => void,
): Promise<Task[]> {
  const tasks: Task[] = [];
  for (const file of files) {
    const loaded = await loadTaskFile(file, options);
    loaded.problems.forEach(onProblem);
    tasks.push(...loaded.tasks);
  }
  return tasks;
}

async function parquetEntries(file: string): Promise<{ records: Array<{ where: string; value: unknown }>; problems: RecordProblem[] }> {
  try {
    const rows = await parquetReadObjects({ file: await asyncBufferFromFile(file) });
    return { records: rows.map((value, i) => ({ where: `row ${i}`, value: jsonSafe(value) })), problems: [] };
  } catch (error) {
    return { records: [], problems: [{ file, where: 'file', field: '', message: `not a readable parquet file: ${String(error)}` }] };
  }
}

/** Parquet gives BigInt for int64 columns and arrays for list columns: make them JSON-like. */
function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  return value;
}

function parseEntries(text: string, file: string): { records: Array<{ where: string; value: unknown }>; problems: RecordProblem[] } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let array: unknown;
    try {
      array = JSON.parse(trimmed);
    } catch (error) {
      return { records: [], problems: [{ file, where: 'file', field: '', message: `not valid JSON: ${String(error)}` }] };
    }
    return { records: (array as unknown[]).map((value, i) => ({ where: `#${i}`, value })), problems: [] };
  }
  const records: Array<{ where: string; value: unknown }> = [];
  const problems: RecordProblem[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      records.push({ where: `line ${i + 1}`, value: JSON.parse(line) });
    } catch (error) {
      problems.push({ file, where: `line ${i + 1}`, field: '', message: `not valid JSON: ${String(error)}` });
    }
  });
  return { records, problems };
}

type Normalised = { task: Task } | { problem: { field: string; message: string } };
type Problem = { problem: { field: string; message: string } };

/**
 * Why a `fail_only` row is left out. Its parser reports failures only (jasmine's and karma's
 * numbered failures for SWE-bench Multimodal's marked, Chart.js, p5.js), so the harness counts a
 * listed test absent from the log as passed once the suite seems to have run (check_fail_only).
 * Absence is what an agent produces by skipping a test or ending the run early, so swe-env takes a
 * listed test as passed only on a line saying it passed. Where it can attach a reporter of its own
 * to the row's runner (jasmine: Language.resultReporters) the row is graded that way; elsewhere
 * every patch would score 0, a correct fix included: served, it would train zeros silently; left
 * out, it is said.
 */
export const FAIL_ONLY_REFUSED =
  'fail_only: its log parser reports failures only, and swe-env counts a listed test as passed only on a line saying it passed; it has a reporter of its own for jasmine runs only, and this row runs another, so every patch would score 0 (the harness counts a test absent from the log as passed, which an agent gets by skipping it); the row is left out';

const TEST_OUTPUT = /: '>>>>> Start Test Output'\n([\s\S]*?)\n: '>>>>> End Test Output'/;

/** Whether swe-env can grade a fail-only row: a reporter of its own attaches to the row's test command. */
function failOnlyGradable(logParser: string | undefined, testCmd: string | undefined, evalScript: string | undefined): boolean {
  const command = testCmd ?? TEST_OUTPUT.exec(evalScript ?? '')?.[1];
  return logParser !== undefined && command !== undefined && resultReporterFor(logParser, command) !== undefined;
}

function missingString(r: Record<string, unknown>, fields: readonly string[]): Problem | undefined {
  const field = fields.find((f) => typeof r[f] !== 'string' || r[f].trim() === '');
  return field === undefined ? undefined : { problem: { field, message: 'missing or not a non-empty string' } };
}

function nonEmpty(r: Record<string, unknown>, field: string): string | undefined {
  const value = r[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What SWE-bench and SWE-smith records share: ids, test lists, image, working directory, overrides. */
function commonFields(
  r: Record<string, unknown>,
  options: LoadOptions & { dataset: string },
): Problem | Omit<Task, 'baseCommit' | 'environmentSetupCommit' | 'goldPatch' | 'testPatch'> {
  const failToPass = testList(r['FAIL_TO_PASS']);
  if ('error' in failToPass) return { problem: { field: 'FAIL_TO_PASS', message: failToPass.error } };
  const passToPass = testList(r['PASS_TO_PASS']);
  if ('error' in passToPass) return { problem: { field: 'PASS_TO_PASS', message: passToPass.error } };
  if (failToPass.list.length === 0)
    return { problem: { field: 'FAIL_TO_PASS', message: 'empty: a task needs at least one failing test to fix' } };
  const id = r['instance_id'] as string;
  const repo = r['repo'] as string;
  const rawVersion = r['version'];
  const version = typeof rawVersion === 'string' || typeof rawVersion === 'number' ? String(rawVersion) : '';
  const testCmd = nonEmpty(r, 'test_cmd');
  const install = nonEmpty(r, 'install');
  const evalScript = nonEmpty(r, 'eval_script');
  const logParser = nonEmpty(r, 'log_parser');
  const failOnly = r['eval_type'] === 'fail_only';
  if (failOnly && !failOnlyGradable(logParser, testCmd, evalScript)) return { problem: { field: 'eval_type', message: FAIL_ONLY_REFUSED } };
  if (logParser !== undefined && !isHarnessParser(logParser)) {
    return {
      problem: {
        field: 'log_parser',
        message: `${logParser} is not a log parser swe-env has (the harness's, for every language of 5.x, and swesmith's for its other languages)`,
      },
    };
  }
  return {
    id,
    dataset: options.dataset,
    repo,
    version,
    problemStatement: stringOr(r['problem_statement']),
    hintsText: stringOr(r['hints_text']),
    createdAt: stringOr(r['created_at']),
    failToPass: failToPass.list,
    passToPass: passToPass.list,
    image: nonEmpty(r, 'image_name') ?? imageName(options.imageTemplate ?? DEFAULT_IMAGE_TEMPLATE, { id, repo, version }),
    workdir: nonEmpty(r, 'workdir') ?? options.workdir ?? '/testbed',
    ...(testCmd !== undefined ? { testCmd } : {}),
    ...(install !== undefined ? { install } : {}),
    ...(evalScript !== undefined ? { evalScript } : {}),
    ...(logParser !== undefined ? { logParser } : {}),
    ...(failOnly ? { failOnly: true as const } : {}),
  };
}

function normaliseRecord(value: unknown, options: LoadOptions & { dataset: string }): Normalised {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: { field: '', message: 'a record must be a JSON object' } };
  }
  const r = value as Record<string, unknown>;
  const smith = options.format === 'swe-smith' || ((options.format ?? 'auto') === 'auto' && r['test_patch'] === undefined);
  if (smith) return normaliseSmithRecord(r, options);
  const missing = missingString(r, ['instance_id', 'repo', 'base_commit', 'problem_statement', 'test_patch']);
  if (missing) return missing;
  const common = commonFields(r, options);
  if ('problem' in common) return common;
  const task: Task = {
    ...common,
    baseCommit: r['base_commit'] as string,
    environmentSetupCommit: stringOr(r['environment_setup_commit']),
    goldPatch: stringOr(r['patch']),
    testPatch: r['test_patch'] as string,
  };
  return { task: Object.freeze(task) };
}

/**
 * SWE-smith: `patch` introduces the bug into the repository at the commit named after the dot of
 * `repo` ("swesmith/owner__name.<commit>") or in `base_commit`; the tests are already there.
 */
function normaliseSmithRecord(r: Record<string, unknown>, options: LoadOptions & { dataset: string }): Normalised {
  const missing = missingString(r, ['instance_id', 'repo', 'patch']);
  if (missing) return missing;
  const common = commonFields(r, options);
  if ('problem' in common) return common;
  const baseCommit = nonEmpty(r, 'base_commit') ?? /\.([0-9a-f]{7,40})$/.exec(common.repo)?.[1];
  if (!baseCommit) return { problem: { field: 'base_commit', message: 'missing, and the repo name does not end in .<commit>' } };
  const bugPatch = r['patch'] as string;
  let goldPatch: string;
  try {
    goldPatch = reverseDiff(bugPatch);
  } catch (error) {
    return { problem: { field: 'patch', message: `cannot be reversed into a fix: ${(error as Error).message}` } };
  }
  const task: Task = { ...common, baseCommit, environmentSetupCommit: baseCommit, goldPatch, testPatch: '', bugPatch };
  return { task: Object.freeze(task) };
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** FAIL_TO_PASS / PASS_TO_PASS come as lists or, from Hugging Face exports, as JSON-encoded strings. */
export function testList(value: unknown): { list: string[] } | { error: string } {
  if (value === undefined || value === null) return { list: [] };
  let parsed: unknown = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return { list: [] };
    try {
      parsed = JSON.parse(value);
    } catch {
      return { error: 'a string that is not a JSON-encoded list' };
    }
  }
  if (!Array.isArray(parsed) || !parsed.every((t) => typeof t === 'string')) {
    return { error: 'must be a list of test names (or a JSON string of one)' };
  }
  return { list: parsed };
}
