import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TestStatus } from '../languages/index.js';
import type { ListedResult } from './verdict.js';
import { isFindingKind, type Finding } from './findings.js';
import { readWitness, type MadeRecord } from './report-witness.js';

// What a test run's grading channel holds, read back: the records the boot signed, checked value by
// value (recorder-channel.ts says what goes into the container for them).

export interface RecorderEnd {
  readonly exitStatus: number;
  readonly tampered: readonly string[];
  /** Files of hooks that decide whether or how a test runs (runtest_protocol, pyfunc_call, runtest_call). */
  readonly hookPlugins: readonly string[];
  /** Files of hooks that change reports once made (makereport, logreport, report_teststatus). */
  readonly reportHookPlugins: readonly string[];
  /** Files of hooks that change the items before they run (collection_modifyitems). */
  readonly collectionHookPlugins: readonly string[];
  /** Test items whose runtest is not pytest's Function's, with the file that runtest's code is from. */
  readonly runtestReplaced: readonly ReplacedRuntest[];
  /** Files of pytest or pluggy themselves that the patch changes (a task of their own repositories), as the boot found them. */
  readonly runnerChanged: readonly string[];
  /** Files of the pytest or pluggy the run imports that another task's patch changes (a copy in the repository). */
  readonly runnerPatched: readonly string[];
}

export interface ReplacedRuntest {
  readonly nodeid: string;
  readonly file: string;
}

export interface RecorderResult {
  readonly statuses: ReadonlyMap<string, TestStatus>;
  readonly end: RecorderEnd | undefined;
  /** Whether the boot started in the run's first interpreter (the monitor was on). */
  readonly started: boolean;
  /** Lines that failed verification, gaps in the numbering, a missing start or end, conflicting reports. */
  readonly problems: readonly string[];
  /** What the monitor saw the code under test do, as kinds of the findings table. */
  readonly events: readonly Finding[];
  /** Why each skipped test was skipped (nodeid to pytest's reason). */
  readonly skipReasons?: ReadonlyMap<string, string>;
  /** Modules and classes skipped while collecting (nodeid to reason): their tests are never items. */
  readonly collectSkips?: ReadonlyMap<string, string>;
  /** Whether the boot's witness saw the reports made (every report carries the outcome pytest made it with). */
  readonly witnessed?: boolean;
  /**
   * Reports of expected failures (xfail), which a PASS_TO_PASS test may count as passing, of tests
   * whose hidden file does not name xfail in their definition (where a hook's mark could come from).
   */
  readonly expectedFailures?: number;
}

export interface ReportRecord {
  readonly nodeid: string;
  readonly when: string;
  readonly outcome: string;
  readonly wasxfail: boolean;
  readonly reason?: string;
  /**
   * The outcome pytest made the report with, as the boot's witness saw it (boot/swe_env_witness.py):
   * "" for a report pytest did not make from a call of its own, "rebuilt" for one rebuilt from
   * serialized data (a pytest-xdist worker's, a forked child's), "rebuilt-here" for one rebuilt in
   * the process that ran the test's phase itself (a subtest's), "rebuilt-foreign" for one rebuilt with
   * the code under test on the stack; absent on a pytest too old for the witness.
   */
  readonly made?: string;
  /**
   * What the boot had seen when the report was logged, in the process that logged it: the file of
   * the item's own runtest, and the machinery found replaced. A process that never ends (a forked
   * child leaving by `os._exit`) sends no end record; its reports say it themselves.
   */
  readonly runtest?: string;
  readonly machinery?: readonly string[];
  /**
   * A subtest's report (pytest 9's subtests, unittest's subTest, the pytest-subtests plugin): one of
   * several a test's call logs under its nodeid. The harness reads the test's own line, so a
   * subtest's report never decides the test's status (pytest 9 fails the test's own report when a
   * subtests-fixture subtest failed).
   */
  readonly subtest?: boolean;
  /**
   * For a hidden test whose function is not its file's own (a wrapper, a stand-in): whether a frame
   * of the file's code for it returned normally in this call ("returned"), or not ("none"), or
   * could not be heard ("profiler": another profile function was in place). boot/swe_env_proof.py.
   */
  readonly proof?: string;
  /** An expected failure's test whose hidden file names xfail in its definition (the boot's reading, swe_env_xfail.py). */
  readonly xfailDeclared?: boolean;
}

/** A report record, checked value by value (a signed record still holds what the tested process made). */
function readReport(record: Record<string, unknown>): ReportRecord | undefined {
  const { nodeid, when, outcome, wasxfail, reason, made, subtest } = record;
  const runtest = record['boot_runtest'];
  const machinery = record['boot_tampered'] === undefined ? undefined : stringList(record['boot_tampered']);
  if (typeof nodeid !== 'string' || typeof when !== 'string' || typeof outcome !== 'string' || typeof wasxfail !== 'boolean')
    return undefined;
  if (reason !== undefined && typeof reason !== 'string') return undefined;
  if (made !== undefined && typeof made !== 'string') return undefined;
  if (subtest !== undefined && typeof subtest !== 'boolean') return undefined;
  const proof = record['proof'];
  if (proof !== undefined && typeof proof !== 'string') return undefined;
  const xfailDeclared = record['xfail_declared'];
  if (xfailDeclared !== undefined && typeof xfailDeclared !== 'boolean') return undefined;
  if ((runtest !== undefined && typeof runtest !== 'string') || (record['boot_tampered'] !== undefined && !machinery)) return undefined;
  return {
    nodeid,
    when,
    outcome,
    wasxfail,
    ...(reason !== undefined ? { reason } : {}),
    ...(made !== undefined ? { made } : {}),
    ...(subtest === true ? { subtest } : {}),
    ...(xfailDeclared === true ? { xfailDeclared } : {}),
    ...(proof !== undefined ? { proof } : {}),
    ...(runtest !== undefined ? { runtest } : {}),
    ...(machinery ? { machinery } : {}),
  };
}

/** The end record with what each report said the boot had seen in the process that logged it. */
function withReportsSeen(end: RecorderEnd, reports: readonly ReportRecord[]): RecorderEnd {
  const tampered = new Set(end.tampered);
  const replaced = new Map(end.runtestReplaced.map((r) => [`${r.nodeid}\u0000${r.file}`, r]));
  for (const r of reports) {
    for (const name of r.machinery ?? []) tampered.add(name);
    if (r.runtest !== undefined) replaced.set(`${r.nodeid}\u0000${r.runtest}`, { nodeid: r.nodeid, file: r.runtest });
  }
  return { ...end, tampered: [...tampered], runtestReplaced: [...replaced.values()] };
}

/** Verifies and reads the channel. `pytest`: reports and an end are expected from the recorder. */
export function readRecords(text: string, key: string, pytest = true): RecorderResult {
  const problems: string[] = [];
  const reports: ReportRecord[] = [];
  const madeRecords: MadeRecord[] = [];
  const events: Finding[] = [];
  let end: RecorderEnd | undefined;
  const nextSeq = new Map<number, number>();
  let started = false;
  let firstPid: number | undefined;
  const seenReports = new Map<string, string>();
  const skipReasons = new Map<string, string>();
  const collectSkips = new Map<string, string>();
  // The boot writes a record again when an exception may have stopped its first writing (a signal
  // handler's): the same signed line twice is one record.
  const seenLines = new Set<string>();
  for (const [index, line] of text.split('\n').entries()) {
    if (line === '' || seenLines.has(line)) continue;
    seenLines.add(line);
    const space = line.indexOf(' ');
    const mac = line.slice(0, space);
    const body = line.slice(space + 1);
    if (space < 0 || !macMatches(key, body, mac)) {
      problems.push(`record ${index + 1} of the grading channel is not signed by the monitor`);
      continue;
    }
    const record = parseRecord(body);
    if (!record) {
      problems.push(`record ${index + 1} of the grading channel is signed but not a record`);
      continue;
    }
    const pid = Number(record['pid'] ?? 0);
    const seq = Number(record['seq']);
    const expected = nextSeq.get(pid);
    if (expected !== undefined && seq !== expected) problems.push(`record ${expected} of process ${pid} is missing (found ${seq})`);
    nextSeq.set(pid, seq + 1);
    firstPid ??= pid;
    const kind = record['kind'];
    if (kind === 'start') started = true;
    else if (kind === 'report') {
      const r = readReport(record);
      if (!r) {
        problems.push(
          `record ${index + 1} of the grading channel is a malformed report: something handed the recorder values of the wrong type`,
        );
        continue;
      }
      reports.push(r);
      // Subtests share their test's nodeid and phase, each with an outcome of its own.
      if (r.subtest === true) continue;
      const slot = `${r.nodeid}\0${r.when}`;
      const previous = seenReports.get(slot);
      // pytest-rerunfailures reports each failed try as "rerun" before the try that counts.
      if (previous !== undefined && previous !== r.outcome && previous !== 'rerun')
        problems.push(`${r.nodeid} has two ${r.when} reports (${previous}, then ${r.outcome}): something reported for pytest`);
      seenReports.set(slot, r.outcome);
      if (r.outcome === 'skipped' && typeof r.reason === 'string' && r.reason !== '') skipReasons.set(r.nodeid, r.reason);
    } else if (kind === 'made') {
      const { nodeid, when, outcome } = record;
      if (typeof nodeid === 'string' && typeof when === 'string' && typeof outcome === 'string')
        madeRecords.push({ nodeid, when, outcome });
      else
        problems.push(
          `record ${index + 1} of the grading channel is a malformed made record: something handed the boot values of the wrong type`,
        );
    } else if (kind === 'collect_skip') {
      collectSkips.set(asText(record['nodeid']), asText(record['reason']));
    } else if (kind === 'end') {
      if (end) problems.push('the recorder ended twice: something called its session end');
      const read = readEnd(record);
      if (read) end = read;
      else problems.push("the recorder's end record is malformed: something handed it values of the wrong type");
    } else if (kind === 'test_code') {
      const verdict = record['ok'];
      const kind =
        verdict === 'ok'
          ? undefined
          : verdict === 'wrapped'
            ? 'test-wrapped-by-patch'
            : verdict === 'unverified'
              ? 'unverified-test-code'
              : verdict === 'swapped'
                ? 'test-code-swapped'
                : 'foreign-test-code';
      if (kind) events.push({ kind, detail: asText(record['nodeid']) });
    } else if (kind === 'monitor') {
      const event = record['event'];
      if (!isFindingKind(event)) {
        problems.push(`record ${index + 1} of the grading channel names no known finding`);
        continue;
      }
      events.push({
        kind: event,
        ...(asText(record['where']) ? { where: asText(record['where']) } : {}),
        ...(typeof record['path'] === 'string' ? { path: record['path'] } : {}),
        ...(typeof record['detail'] === 'string' ? { detail: record['detail'] } : {}),
      });
    }
  }
  const witness = readWitness(reports, madeRecords);
  events.push(...witness.findings);
  if (!started) problems.push(pytest ? 'the recorder never started (pytest did not load it)' : 'the monitor never started in the test run');
  if (pytest && started && !end) problems.push('the session never finished: the process ended before pytest did');
  const expectedFailures = reports.filter(
    (r) => r.outcome === 'skipped' && r.wasxfail && r.subtest !== true && r.xfailDeclared !== true,
  ).length;
  return {
    statuses: statusesFromReports(witness.counted),
    end: end ? withReportsSeen(end, reports) : undefined,
    started,
    problems,
    events,
    skipReasons,
    collectSkips,
    witnessed: witness.witnessed,
    expectedFailures,
  };
}

/**
 * The recorder's end record, checked value by value: the recorder runs in the tested process, so
 * a signed record can still hold what the code under test put in its lists. Anything malformed is
 * the model's (undefined here, a problem there), never an exception out of the grader.
 */
function readEnd(record: Record<string, unknown>): RecorderEnd | undefined {
  const exitStatus = record['exitstatus'];
  // The boot's own check (its closure, out of the tested code's reach) joined with the recorder's.
  const recorderTampered = stringList(record['tampered'] ?? []);
  const bootTampered = stringList(record['boot_tampered'] ?? []);
  const tampered = recorderTampered && bootTampered ? [...new Set([...bootTampered, ...recorderTampered])] : undefined;
  // The boot's own reading of the decisive hook calls as they ran (a hook there for one test only
  // is on it), joined with the recorder's list at the session's end.
  const seen = record['boot_hook_plugins'] ?? {};
  const seenRunner =
    typeof seen === 'object' && seen !== null && !Array.isArray(seen)
      ? stringList((seen as Record<string, unknown>)['runner'] ?? [])
      : undefined;
  const seenCollection =
    typeof seen === 'object' && seen !== null && !Array.isArray(seen)
      ? stringList((seen as Record<string, unknown>)['collection'] ?? [])
      : undefined;
  const listedRunner = stringList(record['hook_plugins'] ?? []);
  const listedCollection = stringList(record['collection_hook_plugins'] ?? []);
  const hookPlugins = listedRunner && seenRunner ? [...new Set([...listedRunner, ...seenRunner])] : undefined;
  const collectionHookPlugins = listedCollection && seenCollection ? [...new Set([...listedCollection, ...seenCollection])] : undefined;
  const reportHookPlugins = stringList(record['report_hook_plugins'] ?? []);
  const replaced = record['runtest_replaced'] ?? [];
  const runnerChanged = stringList(record['boot_runner_changed'] ?? []);
  const runnerPatched = stringList(record['boot_runner_patched'] ?? []);
  if (
    !runnerChanged ||
    !runnerPatched ||
    typeof exitStatus !== 'number' ||
    !Number.isInteger(exitStatus) ||
    !tampered ||
    !hookPlugins ||
    !reportHookPlugins ||
    !collectionHookPlugins ||
    !Array.isArray(replaced)
  )
    return undefined;
  // The boot's own reading, as each item's phases ran (an item's runtest set for its run only is
  // gone by the session's end), joined with the recorder's at the end.
  const seenReplaced = record['boot_runtest_replaced'] ?? [];
  if (!Array.isArray(seenReplaced)) return undefined;
  const runtestReplaced: ReplacedRuntest[] = [];
  const taken = new Set<string>();
  const entries: unknown[] = [...(replaced as unknown[]), ...(seenReplaced as unknown[])];
  for (const entry of entries) {
    const pair = stringList(entry);
    if (!pair || pair.length !== 2) return undefined;
    const key = `${pair[0]!}\u0000${pair[1]!}`;
    if (taken.has(key)) continue;
    taken.add(key);
    runtestReplaced.push({ nodeid: pair[0]!, file: pair[1]! });
  }
  return { exitStatus, tampered, hookPlugins, reportHookPlugins, collectionHookPlugins, runtestReplaced, runnerChanged, runnerPatched };
}

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const v of value as unknown[]) {
    if (typeof v !== 'string') return undefined;
    out.push(v);
  }
  return out;
}

/** A record's JSON object, or undefined for anything else (a signed line is still not trusted to parse). */
function parseRecord(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : '';
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
    // pytest's -rA summary names a skipped test by file and line only ("SKIPPED [1] t.py:5: why"),
    // so the log cannot show what the recorder does; a skip never counts as passing either way.
    if (logged?.status === 'MISSING' && recorded.status === 'SKIPPED') continue;
    if (logged && logged.status !== recorded.status) {
      out.push(`${recorded.name}: ${logged.status} in the printed log, ${recorded.status} in the recorder`);
    }
  }
  return out;
}
