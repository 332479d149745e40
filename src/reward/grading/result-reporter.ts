import { randomBytes, randomInt } from 'node:crypto';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import {
  reporterCanaryKey,
  resultReporterFor,
  type ReporterCanary,
  type ResultReporter,
  type StatusMap,
  type TestStatus,
} from '../../languages/index.js';
import { GRADING_DIR } from './apply-stage.js';
import { canaryWords } from './canary-words.js';
import { REPORTER_CANARY_FILE, type Canary } from './canaries.js';

/** A reporter attached to one test run, with the token its lines carry. */
export interface ReporterRun {
  readonly reporter: ResultReporter;
  readonly token: string;
}

/**
 * A fail-only row's reporter (Language.resultReporters) put outside the repository with its plan
 * file (token, canaries), and the test command that loads it; the command as it is for any other
 * row. The loader takes a fail-only row only when a reporter attaches to its command, so one that
 * does not here is swe-env's fault, not the submission's.
 */
export async function attachReporter(
  sandbox: Sandbox,
  task: Task,
  harnessParser: string,
  testCommand: string,
): Promise<{ testCommand: string; reported?: ReporterRun; canaries: Canary[] }> {
  if (!task.failOnly) return { testCommand, canaries: [] };
  const reporter = resultReporterFor(harnessParser, testCommand);
  if (!reporter)
    throw new Error(`no reporter of swe-env's attaches to this fail-only row's test command (${harnessParser}): ${testCommand}`);
  const dir = `${GRADING_DIR}/reporter-${randomBytes(6).toString('hex')}`;
  const token = randomBytes(16).toString('hex');
  const modulePath = `${dir}/${reporter.moduleFile}`;
  const planFile = `${dir}/plan-${randomBytes(6).toString('hex')}`;
  const declared = reporter.runsDeclared(testCommand) ? planReporterCanaries([...task.failToPass, ...task.passToPass]) : [];
  await sandbox.putFiles([
    { path: modulePath, content: reporter.moduleText(planFile) },
    { path: planFile, content: reporter.planText(token, declared) },
  ]);
  const canaries = declared.map((canary, i): Canary => ({
    file: REPORTER_CANARY_FILE,
    name: reporterCanaryKey(i),
    expect: sum(canary.values) === canary.expected ? 'PASSED' : 'FAILED',
  }));
  return { testCommand: reporter.attach(testCommand, modulePath), reported: { reporter, token }, canaries };
}

/**
 * What the reporter's lines say, overruled by the runner's own failure lines (the row's parser):
 * a test the runner names as failing does not pass whatever else was printed.
 */
export function reportedResults(reported: ReporterRun, log: string, ownFailures: StatusMap): Map<string, TestStatus> {
  const results = reported.reporter.parse(log, reported.token);
  for (const [name, status] of ownFailures) {
    if (status !== 'PASSED' && status !== 'XFAIL') results.set(name, 'FAILED');
  }
  return results;
}

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/**
 * A must-pass and two must-fail tests named like the listed ones: the first word of a listed name
 * as the group, the rest with one word (or number) changed to another of the listed names' words.
 * The second must-fail one checks asynchronously (ReporterCanary.async).
 */
export function planReporterCanaries(listed: readonly string[], random: (n: number) => number = randomInt): ReporterCanary[] {
  const names = listed.length > 0 ? listed : ['spec should pass'];
  const pool = canaryWords(new Set(names.flatMap((n) => n.split(/[\s_]+/)).filter((w) => /^[A-Za-z]{3,}$/.test(w))));
  const taken = new Set(names);
  return [0, 1, 2].map((i) => {
    const { suite, name } = canaryName(names, pool, taken, random);
    taken.add(`${suite} ${name}`);
    const values = [1 + random(98), 1 + random(98), 1 + random(98)];
    const expected = i === 0 ? sum(values) : sum(values) + 1 + random(9);
    return i === 2 ? { suite, name, values, expected, async: true } : { suite, name, values, expected };
  });
}

function canaryName(
  names: readonly string[],
  pool: readonly string[],
  taken: ReadonlySet<string>,
  random: (n: number) => number,
): { suite: string; name: string } {
  for (let attempt = 0; ; attempt++) {
    const words = names[random(names.length)]!.split(' ');
    const suite = words.length > 1 ? words[0]! : 'suite';
    const rest = words.length > 1 ? words.slice(1) : [...words];
    // The words that name the case (an identifier, an example's number) before plain words.
    const where = (shape: RegExp): number[] => rest.flatMap((w, i) => (shape.test(w) ? [i] : []));
    const named = where(/^\w+_\w+$|^\d+$/);
    const changeable = named.length > 0 ? named : where(/^[A-Za-z_]{3,}$/);
    const at = changeable.length > 0 ? changeable[random(changeable.length)]! : rest.length - 1;
    const word = (): string => pool[random(pool.length)]!;
    rest[at] = /^\d+$/.test(rest[at] ?? '') ? String(1 + random(999)) : `${word()}_${word()}`;
    // From attempt 50 on a number makes it new (every combination of few words may be taken).
    if (attempt >= 50) rest.push(String(random(1_000_000)));
    const name = rest.join(' ');
    if (!taken.has(`${suite} ${name}`)) return { suite, name };
  }
}
