import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TestStatus } from './test-status.js';
import type { ListedResult } from './verdict.js';

/**
 * The result recorder (scripts/swe_env_recorder.py): a pytest plugin loaded from outside the
 * repository that writes every test report as a signed, numbered JSON line to a file outside the
 * repository. The grader trusts these records over the printed log, and cross-checks the two.
 */
export const RECORDER_SOURCE = readFileSync(new URL('./scripts/swe_env_recorder.py', import.meta.url), 'utf8');

export interface RecorderChannel {
  readonly key: string;
  /** Where the plugin, its key and its output live in the grading container (never in the repo). */
  readonly dir: string;
  readonly keyFile: string;
  readonly outFile: string;
  /** The environment the test command runs with. */
  readonly env: Readonly<Record<string, string>>;
}

export function newRecorderChannel(gradingDir: string): RecorderChannel {
  const key = randomBytes(32).toString('hex');
  const dir = `${gradingDir}/recorder`;
  const keyFile = `${dir}/key-${randomBytes(6).toString('hex')}`;
  const outFile = `${gradingDir}/results-${randomBytes(6).toString('hex')}.jsonl`;
  return {
    key,
    dir,
    keyFile,
    outFile,
    env: {
      SWE_ENV_RECORDER_DIR: dir,
      SWE_ENV_RECORDER_KEY_FILE: keyFile,
      SWE_ENV_RECORDER_OUT: outFile,
    },
  };
}

/**
 * Whether the recorder can run for a test command: the command runs pytest itself (tox, Django's
 * runtests and sympy's bin/test do not, and a plugin cannot reach into them).
 */
export function recorderApplies(parser: string, testCommand: string): boolean {
  if (!parser.startsWith('pytest')) return false;
  return /^\s*(?:(?:\S*\/)?uv\s+run\s+)?(?:(?:\S*\/)?python[\d.]*\s+-m\s+pytest|(?:\S*\/)?(?:py\.test|pytest))(?:\s|$)/.test(withoutActivation(testCommand));
}

/** SWE-smith's commands start by activating the conda env: `source .../activate; conda activate testbed; pytest ...`. */
function withoutActivation(command: string): string {
  let rest = command;
  for (;;) {
    const next = rest.replace(/^\s*(?:source\s+\S+|\.\s+\S+|conda\s+activate\s+\S+)\s*(?:;|&&)/, '');
    if (next === rest) return rest;
    rest = next;
  }
}

export interface RecorderEnd {
  readonly exitStatus: number;
  readonly tampered: readonly string[];
  readonly hookPlugins: readonly string[];
}

export interface RecorderResult {
  readonly statuses: ReadonlyMap<string, TestStatus>;
  readonly end: RecorderEnd | undefined;
  /** Lines that failed verification, gaps in the numbering, a missing start or end. */
  readonly problems: readonly string[];
}

interface ReportRecord {
  readonly kind: 'report';
  readonly nodeid: string;
  readonly when: string;
  readonly outcome: string;
  readonly wasxfail: boolean;
}

/** Verifies and reads the recorder's output. */
export function readRecords(text: string, key: string): RecorderResult {
  const problems: string[] = [];
  const reports: ReportRecord[] = [];
  let end: RecorderEnd | undefined;
  let expected = 1;
  let started = false;
  for (const [index, line] of text.split('\n').entries()) {
    if (line === '') continue;
    const space = line.indexOf(' ');
    const mac = line.slice(0, space);
    const body = line.slice(space + 1);
    if (space < 0 || !macMatches(key, body, mac)) {
      problems.push(`record ${index + 1} is not signed by the recorder`);
      continue;
    }
    const record = JSON.parse(body) as Record<string, unknown>;
    if (record['seq'] !== expected) problems.push(`record ${expected} is missing (found ${String(record['seq'])})`);
    expected = Number(record['seq']) + 1;
    if (record['kind'] === 'start') started = true;
    else if (record['kind'] === 'report') reports.push(record as unknown as ReportRecord);
    else if (record['kind'] === 'end') {
      end = {
        exitStatus: Number(record['exitstatus']),
        tampered: (record['tampered'] as string[] | undefined) ?? [],
        hookPlugins: (record['hook_plugins'] as string[] | undefined) ?? [],
      };
    }
  }
  if (!started) problems.push('the recorder never started (pytest did not load it)');
  if (started && !end) problems.push('the session never finished: the process ended before pytest did');
  return { statuses: statusesFromReports(reports), end, problems };
}

function macMatches(key: string, body: string, mac: string): boolean {
  const expected = createHmac('sha256', key).update(body, 'utf8').digest();
  const given = Buffer.from(mac, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A test's status as pytest's `-rA` summary states it, from its setup, call and teardown reports. */
export function statusesFromReports(reports: readonly ReportRecord[]): Map<string, TestStatus> {
  const statuses = new Map<string, TestStatus>();
  for (const r of reports) {
    const current = statuses.get(r.nodeid);
    let status: TestStatus | undefined;
    if (r.when === 'call') {
      if (r.outcome === 'passed') status = r.wasxfail ? 'XPASS' : 'PASSED';
      else if (r.outcome === 'failed') status = 'FAILED';
      else status = r.wasxfail ? 'XFAIL' : 'SKIPPED';
    } else if (r.outcome === 'failed') {
      status = 'ERROR'; // a failing setup or teardown
    } else if (r.outcome === 'skipped' && r.when === 'setup') {
      status = r.wasxfail ? 'XFAIL' : 'SKIPPED';
    }
    if (!status) continue;
    // An error in teardown outweighs a passing call; nothing outweighs an error.
    if (current === 'ERROR') continue;
    statuses.set(r.nodeid, status);
  }
  return statuses;
}

/** Where the recorder's verdict and the printed log's disagree on a listed test. */
export function disagreements(fromRecorder: readonly ListedResult[], fromLog: readonly ListedResult[]): string[] {
  const out: string[] = [];
  for (const [i, recorded] of fromRecorder.entries()) {
    const logged = fromLog[i];
    if (logged && logged.status !== recorded.status) {
      out.push(`${recorded.name}: ${logged.status} in the printed log, ${recorded.status} in the recorder`);
    }
  }
  return out;
}
