import { lineParser, py, pyLines, pyMatch, pySearch, pyStrip, type StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';
import { pyInt } from '../shared/py-more.js';

/**
 * swesmith 0.0.9's JavaScript and TypeScript parsers (swesmith/profiles/javascript.py, and the
 * few profiles of javascript.py and typescript.py with their own). Not the harness's functions of
 * the same names: swesmith's jest keeps a name's trailing space, its vitest reads test files (`✓
 * file (3 tests)`) rather than tests, its mocha also takes numbered failures, and karma and
 * jasmine only count. The runners that print no names get made-up ones (`karma_unit_test_1`...),
 * which is what the package's FAIL_TO_PASS lists hold.
 */

const JEST_STATUS: Readonly<Record<string, TestStatus>> = { '✓': 'PASSED', '✕': 'FAILED', '○': 'SKIPPED' };
export const parseSmithJest = lineParser(py('^\\s*(✓|✕|○)\\s(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$'), (m) => [m[2]!, JEST_STATUS[m[1]!]!]);

const MOCHA = py('^\\s*([✓✔]|✖|-)\\s(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$');
const MOCHA_NUMBERED = py('^\\s*\\d+\\)\\s+(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$');
const MOCHA_STATUS: Readonly<Record<string, TestStatus>> = { '✓': 'PASSED', '✔': 'PASSED', '✖': 'FAILED', '-': 'SKIPPED' };

/** Mocha's spec reporter: a mark and the title, or a numbered failure (`1) title`). */
export function parseSmithMocha(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    const m = pyMatch(MOCHA, line);
    if (m) map.set(m[2]!, MOCHA_STATUS[m[1]!]!);
    else {
      const failed = pyMatch(MOCHA_NUMBERED, line);
      if (failed) map.set(failed[1]!, 'FAILED');
    }
  }
  return map;
}

const PASSING = py('(\\d+)\\s+passing');
const FAILING = py('(\\d+)\\s+failing');

/** bit's and TypeScript's: mocha's reading, or when it finds no test, made-up names for mocha's totals. */
export function parseSmithMochaCounts(log: string): StatusMap {
  const map = parseSmithMocha(log);
  if (map.size > 0) return map;
  const count = (re: RegExp): number => {
    const m = pySearch(re, log);
    return m ? pyInt(m[1]!) : 0;
  };
  for (let i = 0; i < count(PASSING); i++) map.set(`test_${i}`, 'PASSED');
  for (let i = 0; i < count(FAILING); i++) map.set(`test_failed_${i}`, 'FAILED');
  return map;
}

/** Tried in order, the first that matches wins; a file line's counts in parentheses are cut off. */
const VITEST: ReadonlyArray<[RegExp, TestStatus]> = [
  [py('^✓\\s+(.+?)(?:\\s+\\([\\.\\d]+ms\\))?$'), 'PASSED'],
  [py('^❯\\s+(.+?)(?:\\s+\\(.*?\\))?$'), 'FAILED'],
  [py('^✗\\s+(.+?)(?:\\s+\\([\\.\\d]+ms\\))?$'), 'FAILED'],
  [py('^○\\s+(.+?)(?:\\s+\\([\\.\\d]+ms\\))?$'), 'SKIPPED'],
  [py('^✓\\s+(.+?)$'), 'PASSED'],
  [py('^✗\\s+(.+?)$'), 'FAILED'],
  [py('^○\\s+(.+?)$'), 'SKIPPED'],
];

export function parseSmithVitest(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    for (const [re, status] of VITEST) {
      const m = pyMatch(re, line);
      if (!m) continue;
      let name = pyStrip(m[1]!);
      if (name.includes('(')) name = pyStrip(name.split('(')[0]!);
      map.set(name, status);
      break;
    }
  }
  return map;
}

const KARMA_SUCCESS = py('Executed\\s+(\\d+)\\s+of\\s+\\d+\\s+SUCCESS');
const KARMA_FAILED = py('Executed\\s+\\d+\\s+of\\s+\\d+\\s+\\((\\d+)\\s+FAILED\\)');
const KARMA_SKIPPED = py('Executed\\s+\\d+\\s+of\\s+(\\d+)\\s+\\((\\d+)\\s+skipped\\)');

/** Karma's progress lines: the largest count of each kind seen, as made-up names. */
export function parseSmithKarma(log: string): StatusMap {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const line of pyLines(log)) {
    const s = pySearch(KARMA_SUCCESS, line);
    if (s) passed = Math.max(passed, pyInt(s[1]!));
    const f = pySearch(KARMA_FAILED, line);
    if (f) failed = Math.max(failed, pyInt(f[1]!));
    const k = pySearch(KARMA_SKIPPED, line);
    if (k) skipped = Math.max(skipped, pyInt(k[2]!));
  }
  const map: StatusMap = new Map();
  for (let i = 1; i <= passed; i++) map.set(`karma_unit_test_${i}`, 'PASSED');
  for (let i = 1; i <= failed; i++) map.set(`karma_unit_test_failed_${i}`, 'FAILED');
  for (let i = 1; i <= skipped; i++) map.set(`karma_unit_test_skipped_${i}`, 'SKIPPED');
  return map;
}

const JASMINE = py('(\\d+)\\s+specs?,\\s+(\\d+)\\s+failures?(?:,\\s+(\\d+)\\s+pending\\s+specs?)?');

/** Jasmine's first `N specs, F failures[, P pending specs]` line, as made-up names. */
export function parseSmithJasmine(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of pyLines(log)) {
    const m = pySearch(JASMINE, line);
    if (!m) continue;
    const failures = pyInt(m[2]!);
    const pending = m[3] !== undefined ? pyInt(m[3]) : 0;
    const passed = pyInt(m[1]!) - failures - pending;
    for (let i = 1; i <= passed; i++) map.set(`jasmine_spec_${i}`, 'PASSED');
    for (let i = 1; i <= failures; i++) map.set(`jasmine_spec_failed_${i}`, 'FAILED');
    for (let i = 1; i <= pending; i++) map.set(`jasmine_spec_pending_${i}`, 'SKIPPED');
    break;
  }
  return map;
}

/** jQuery's profile calls a parse_log_qunit the package never defines: every log raises. */
export function parseSmithQunit(): StatusMap {
  throw new Error("NameError: name 'parse_log_qunit' is not defined");
}

const REACT_PDF: ReadonlyArray<[RegExp, TestStatus]> = [
  [py('^\\s*✓\\s(.*)\\s\\d+ms'), 'PASSED'],
  [py('^\\s*✗\\s(.*)\\s\\d+ms'), 'FAILED'],
  [py('^\\s*✖\\s(.*)'), 'FAILED'],
  [py('^\\s*✓\\s(.*)'), 'PASSED'],
];

/** react-pdf's: vitest's verbose marks on the unstripped line, the first pattern that matches. */
export function parseSmithReactPdf(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of pyLines(log)) {
    for (const [re, status] of REACT_PDF) {
      const m = pyMatch(re, line);
      if (!m) continue;
      map.set(pyStrip(m[1]!), status);
      break;
    }
  }
  return map;
}

const MARKED_FAIL = py('^\\s*✖\\s(.*?)\\s\\([\\.\\d]+ms\\)');
const MARKED_PASS = py('^\\s*✔\\s(.*?)\\s\\([\\.\\d]+ms\\)');

/** marked's: node's test runner, `✔ name (1.2ms)`, on the unstripped line. */
export function parseSmithMarked(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of pyLines(log)) {
    const failed = pyMatch(MARKED_FAIL, line);
    const passed = failed ? undefined : pyMatch(MARKED_PASS, line);
    if (failed) map.set(pyStrip(failed[1]!), 'FAILED');
    else if (passed) map.set(pyStrip(passed[1]!), 'PASSED');
  }
  return map;
}

const TURBO_TASK = py('^\\s*(\\S+?:test\\S*)\\s*:');
const TURBO_SUMMARY = py('Tasks:\\s+(\\d+)\\s+successful,\\s+(\\d+)\\s+total');

/**
 * drizzle-orm's: turbo's `pkg:test: ...` prefixes name tasks (passed unless a line of the task says
 * ERROR); without any, made-up names for turbo's `Tasks: N successful, M total`.
 */
export function parseSmithTurbo(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of pyLines(log)) {
    const task = pyMatch(TURBO_TASK, line);
    if (task && !map.has(task[1]!)) map.set(task[1]!, 'PASSED');
    if (line.includes('ERROR') && line.includes(':')) {
      const head = pyStrip(line.split(':')[0]!);
      if (head !== '' && head.toLowerCase().includes('test')) map.set(head, 'FAILED');
    }
  }
  const summary = pySearch(TURBO_SUMMARY, log);
  if (summary && map.size === 0) {
    const successful = pyInt(summary[1]!);
    const failed = pyInt(summary[2]!) - successful;
    for (let i = 0; i < successful; i++) map.set(`turbo_task_${i}`, 'PASSED');
    for (let i = 0; i < failed; i++) map.set(`turbo_task_failed_${i}`, 'FAILED');
  }
  return map;
}
