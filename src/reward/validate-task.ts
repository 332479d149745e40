import { pythonMinor, suiteForPython } from '../tasks/debian-suites.js';
import { harnessInstallFor } from '../tasks/harness-install.js';
import type { Task } from '../tasks/task.js';
import type { Grader } from './grader.js';
import type { GradeReport } from './report.js';
import { ENVIRONMENT_SKIP_PREFIX } from './grading/environment-skips.js';
import { RUN_FAILURE_PREFIX } from './run-failure.js';

export interface ValidationRow {
  readonly taskId: string;
  readonly ok: boolean;
  readonly problems: string[];
  readonly gold: GradeReport;
  readonly empty: GradeReport;
  /** Each run's whole test log (kept by `validate --logs`). */
  readonly logs: { readonly gold: string; readonly empty: string };
}

/** A sound task: the gold patch scores 1 and the empty patch 0, with no infrastructure error. */
export async function validateTask(grader: Grader, task: Task, signal?: AbortSignal): Promise<ValidationRow> {
  const logs = { gold: '', empty: '' };
  const gold = await grader.grade(task, Buffer.from(task.goldPatch, 'utf8'), {
    ...(signal ? { signal } : {}),
    onTestLog: (log) => (logs.gold = log),
  });
  const empty = await grader.grade(task, Buffer.alloc(0), { ...(signal ? { signal } : {}), onTestLog: (log) => (logs.empty = log) });
  if (signal?.aborted) throw new Error('validation was interrupted');
  const problems: string[] = [];
  if (gold.error.startsWith(ENVIRONMENT_SKIP_PREFIX)) problems.push(`gold: the task's image lacks what its tests need: ${gold.error}`);
  else if (gold.infraError) problems.push(`gold: infrastructure error: ${gold.error}`);
  else if (gold.error.startsWith(RUN_FAILURE_PREFIX)) {
    // With the gold patch nothing but the task can be at fault: its image or its test command.
    problems.push(`gold: the task's image or test command is at fault: ${gold.error}`);
  } else if (gold.reward !== 1) {
    const failing = [...gold.failToPass, ...gold.passToPass].filter((t) => t.status !== 'PASSED').map((t) => `${t.name} ${t.status}`);
    problems.push(
      `gold scores ${gold.reward}${gold.error ? ` (${gold.error.split('\n')[0]})` : ''}${failing.length ? `: ${failing.slice(0, 5).join(', ')}` : ''}`,
    );
  }
  const hint = importHint(gold);
  if (hint) problems.push(hint);
  if (empty.infraError) problems.push(`empty: infrastructure error: ${empty.error}`);
  else if (empty.reward !== 0) problems.push('the empty patch scores 1: the FAIL_TO_PASS tests already pass');
  if (problems.length > 0) {
    const cause = likelyCause(gold, logs.gold || gold.logTail, harnessInstallFor(task.repo, task.version)?.python);
    if (cause) problems.push(`likely cause: ${cause}`);
  }
  return { taskId: task.id, ok: problems.length === 0, problems, gold, empty, logs };
}

/**
 * What a gold run that went wrong most likely lacked, read from its error and log: the reasons a
 * real row fails here that are no fault of its patch. A hint for the dataset builder, never a verdict.
 */
const CAUSES: ReadonlyArray<{ readonly test: RegExp; readonly cause: string }> = [
  { test: /the test log cannot be read by /, cause: "the row's log parser cannot read its own run (see the error above)" },
  {
    test: /No url found for submodule|fatal: no submodule mapping|does not contain a CMakeLists\.txt|please run `?git submodule update/i,
    cause:
      'a git submodule the build or the tests need is not in the image: build the image from a repository whose submodules are initialised',
  },
  {
    test: /getaddrinfo (?:EAI_AGAIN|ENOTFOUND)|Temporary failure in name resolution|Name or service not known|Could not resolve host|couldn't (?:resolve|open socket)|nodename nor servname/i,
    cause:
      'a test resolves a host name: the grading container has no network, so a test that needs the internet cannot pass here (localhost and its own name do resolve)',
  },
  {
    test: /Network is unreachable|ENETUNREACH|Failed to establish a new connection|urlopen error|ConnectTimeout|connect ETIMEDOUT/i,
    cause: 'a test connects to another host: the grading container has no network, so a test that needs the internet cannot pass here',
  },
];

export function likelyCause(gold: GradeReport, log: string, harnessPython?: string): string | undefined {
  const text = `${gold.error}\n${log}`;
  return CAUSES.find((c) => c.test.test(text))?.cause ?? pythonCause(text, harnessPython);
}

/**
 * The run's Python (read off the paths its tracebacks and warnings print) is not the one the
 * harness ran the row on: code and tests of that time may not run on it (Sphinx 4.1 imports a name
 * Python 3.10.1 removed; typing's reprs changed in 3.10).
 */
function pythonCause(text: string, harnessPython: string | undefined): string | undefined {
  if (harnessPython === undefined) return undefined;
  const wanted = pythonMinor(harnessPython);
  const seen = new Set([...text.matchAll(/\/lib\/python(3\.\d+)\//g)].map((m) => m[1]!));
  if (seen.size === 0 || seen.has(wanted)) return undefined;
  const suite = suiteForPython(wanted);
  return `the harness runs this row on Python ${wanted} and this image's tests ran on Python ${[...seen].join(', ')}: build the image on a base with ${wanted}${suite ? ` (\`images base --suite ${suite}\`, then images build --base with it)` : ''}`;
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
  // A problem may carry the run's own output over several lines: each is indented under its task.
  const indented = (text: string): string => text.replace(/\n/g, '\n      ');
  const problems =
    failing.length === 0
      ? ['all tasks are sound']
      : ['tasks that fail:', ...failing.map((r) => `  ${r.taskId}: ${indented(r.problems.join('; '))}`)];
  return [header, ...lines, '', ...problems].join('\n');
}
