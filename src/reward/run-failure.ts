import type { ListedResult } from './verdict.js';

/**
 * Why a test run never got to the listed tests, in the run's own words: the command not found, the
 * traceback of a conftest.py that cannot import, the collection error. The recorder's view of the
 * same run ("never started", "never finished") says only that something went wrong before pytest
 * reported, so it stays secondary detail. Who is to blame is not decided here: the run is the
 * patch's (a submission that breaks what conftest.py imports is the model's 0) or the task's (the
 * gold patch in `validate`), as for any other failing run.
 */

export const RUN_FAILURE_PREFIX = 'the tests did not run';

const MAX_LINES = 14;
const MAX_CHARS = 2000;

export interface RunFailureInput {
  readonly log: string;
  readonly exitCode: number;
  readonly timedOut: boolean;
  readonly listed: readonly ListedResult[];
  /** The grading channel's problems (the recorder never started, the session never finished, the monitor never started). */
  readonly channelProblems: readonly string[];
}

/** The explanation when the run ended before any listed test ran, else undefined. */
export function runFailure(input: RunFailureInput): string | undefined {
  if (input.exitCode === 0 || input.timedOut) return undefined;
  const noneRan = input.listed.length > 0 && input.listed.every((t) => t.status === 'MISSING');
  // Only pytest's channel knows whether the run got to its end: a runner of another language never
  // loads the recorder, and its monitor's absence says nothing about whether the tests ran.
  const endedEarly = input.channelProblems.some((p) => /recorder never started|session never finished/.test(p));
  if (!noneRan && !endedEarly) return undefined;
  const excerpt = errorExcerpt(input.log);
  // Quoted as the run's own output: the code under test can print anything, an "engine error" too.
  return `${RUN_FAILURE_PREFIX}: the test command exited with ${input.exitCode} before ${noneRan ? 'any listed test ran' : 'pytest finished'}; its output says:\n${excerpt || '(the run printed nothing)'}`;
}

/** The lines of the log that say what went wrong, most specific shape first. */
export function errorExcerpt(log: string): string {
  const lines = log.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const picked = conftestError(lines) ?? collectionError(lines) ?? traceback(lines) ?? oneLiner(lines) ?? lastLines(lines);
  return capped(picked);
}

function indexOf(lines: readonly string[], pattern: RegExp, from = 0): number {
  for (let i = from; i < lines.length; i++) if (pattern.test(lines[i]!)) return i;
  return -1;
}

/** pytest's "ImportError while loading conftest" block, up to the next blank or section line. */
function conftestError(lines: readonly string[]): string[] | undefined {
  const start = indexOf(lines, /^ImportError while loading conftest|^_pytest\.config\.ConftestImportFailure|ConftestImportFailure:/);
  if (start < 0) return undefined;
  const end = indexOf(lines, /^\s*$|^={3,}/, start + 1);
  return lines.slice(start, end < 0 ? undefined : end);
}

/**
 * The first "ERROR collecting" section: its header, its first line, and the frame and exception
 * lines at its end (pytest's own frames in between say nothing about the task).
 */
function collectionError(lines: readonly string[]): string[] | undefined {
  const start = indexOf(lines, /^_+ ERROR collecting .+ _+$/);
  if (start < 0) return undefined;
  const next = indexOf(lines, /^_{3,} |^={3,}/, start + 1);
  const body = lines.slice(start + 1, next < 0 ? undefined : next);
  const firstE = body.findIndex((l) => l.startsWith('E '));
  if (firstE < 0) return [lines[start]!, ...body.slice(0, MAX_LINES - 1)];
  const head = firstE > 3 ? [body[0]!, '...', ...body.slice(firstE - 2, firstE)] : body.slice(0, firstE);
  return [lines[start]!, ...head, ...body.slice(firstE).filter((l) => l.startsWith('E '))];
}

/** A Python traceback up to its exception line, its middle cut when long. */
function traceback(lines: readonly string[]): string[] | undefined {
  const start = indexOf(lines, /^Traceback \(most recent call last\):/);
  if (start < 0) return undefined;
  let end = indexOf(lines, /^\S/, start + 1);
  if (end < 0) end = lines.length - 1;
  const block = lines.slice(start, end + 1);
  return block.length <= MAX_LINES ? block : [block[0]!, '  ...', ...block.slice(-(MAX_LINES - 2))];
}

/** A shell's or a runner's one-line refusal: command not found, no such file, usage errors. */
function oneLiner(lines: readonly string[]): string[] | undefined {
  const at = indexOf(lines, /command not found|No such file or directory|No module named|: not found$|^(ERROR|error|usage):|: error: /);
  return at < 0 ? undefined : lines.slice(at, at + 3).filter((l) => l.trim() !== '');
}

function lastLines(lines: readonly string[]): string[] {
  return lines.filter((l) => l.trim() !== '').slice(-MAX_LINES);
}

function capped(lines: readonly string[]): string {
  const text = lines
    .slice(0, MAX_LINES + 4)
    .join('\n')
    .trimEnd();
  return text.length <= MAX_CHARS ? text : `${text.slice(0, MAX_CHARS)}...`;
}
