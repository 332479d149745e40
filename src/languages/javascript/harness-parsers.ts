import {
  indentOf,
  instanceIdOf,
  lineParser,
  py,
  pyLines,
  pyMatch,
  pySearch,
  pySplit,
  pyStrip,
  pySub,
  afterFirst,
  type HarnessSpec,
  type StatusMap,
} from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * The harness's parsers for JavaScript's test runners (swebench 5.x harness/log_parsers/
 * javascript.py): jest, jest's JSON through the harness's jq transform, vitest, karma with the
 * mocha reporter, TAP, mocha's spec reporter as highlight.js and lighthouse print it, and the
 * per-repository readings built on them. The repositories' own formats are in javascript-repos.ts.
 */

const JEST_STATUS: Readonly<Record<string, TestStatus>> = { '✓': 'PASSED', '✕': 'FAILED', '○': 'SKIPPED' };

/** `jest --verbose`: the test's own title only, so same-named tests of two describe blocks collide. */
export const parseLogJest = lineParser(py('^\\s*(✓|✕|○)\\s(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$'), (m) => [
  pyStrip(m[2]!),
  JEST_STATUS[m[1]!]!,
]);

export const parseLogJestJson = lineParser(py('^\\[(PASSED|FAILED)\\]\\s(.+)$'), (m) => [m[2]!, m[1] as TestStatus]);

const VITEST_STATUS: Readonly<Record<string, TestStatus>> = { '✓': 'PASSED', '×': 'FAILED', '↓': 'SKIPPED' };

/** `--reporter=verbose`; a trailing number is taken for a duration ("✓ adds 2" is "adds"). */
export const parseLogVitest = lineParser(py('^\\s*(✓|×|↓)\\s(.+?)(?:\\s(\\d+\\s*m?s?|\\[skipped\\]))?$'), (m) => [
  m[2]!,
  VITEST_STATUS[m[1]!]!,
]);

export const parseLogTap = lineParser(py('^(ok|not ok) (\\d+) (.+)$'), (m) => [m[3]!, m[1] === 'ok' ? 'PASSED' : 'FAILED']);

const KARMA_LINE = py('^(\\s*)?([✔✖])?\\s(.*)$');

/**
 * karma-mocha-reporter, from "Starting browser" to "SUMMARY:". An indented line without a mark
 * opens a suite when deeper than the last one and closes one (only one) when shallower; the depth
 * is the indent less the one space the pattern keeps for itself. Closing more suites than were
 * opened is the harness's IndexError.
 */
export function parseLogKarma(log: string): StatusMap {
  const map: StatusMap = new Map();
  let indent = -1;
  const suite: string[] = [];
  let started = false;
  for (const line of pyLines(log)) {
    if (line.startsWith('SUMMARY:')) return map;
    if (line.includes('Starting browser')) {
      started = true;
      continue;
    }
    const m = started ? pyMatch(KARMA_LINE, line) : null;
    if (!m) continue;
    const [spaces, mark, name] = [m[1] ?? '', m[2], m[3]!];
    if (spaces !== '' && mark === undefined) {
      if (spaces.length > indent) {
        indent = spaces.length;
        suite.push(name);
      } else if (spaces.length < indent) {
        indent = spaces.length;
        if (suite.pop() === undefined) throw new Error('IndexError: pop from empty list');
        continue;
      }
    }
    if (mark !== undefined) map.set([...suite, name].join(' > '), mark === '✔' ? 'PASSED' : 'FAILED');
  }
  return map;
}

/** immutable-js's instances use jest or jest's JSON by pull request; any other is an error. */
export function parseLogImmutableJs(log: string, spec: HarnessSpec): StatusMap {
  const pr = instanceIdOf(spec).split('-').at(-1)!;
  if (pr === '2006') return parseLogJest(log);
  if (pr === '2005') return parseLogJestJson(log);
  throw new Error(`ValueError: Unknown instance id: ${instanceIdOf(spec)}`);
}

const TIMING = py('\\(\\d+ms\\)');

/** highlight.js's "(12ms)" anywhere in a title is removed, then the title stripped. */
function withoutTiming(title: string): string {
  return pyStrip(pySearch(TIMING, title) ? pySub(TIMING, '', title) : title);
}

const MOCHA_SUMMARY = py('\n[ \\t]*\\d+ passing');
const FAILURE_NUMBER = py('^\\d+\\)');

/**
 * highlight.js (mocha's spec reporter), up to the first "N passing": a line indented two spaces or
 * more is the suite (one level only: the harness's deeper branch cannot be reached), a ✓ or ✔ line
 * passes "<suite>.<title>", an "N)" line fails one.
 */
export function parseLogHighlightjs(log: string): StatusMap {
  const map: StatusMap = new Map();
  let suite: string[] = [];
  for (const line of pyLines(pySplit(MOCHA_SUMMARY, log)[0]!)) {
    const stripped = pyStrip(line);
    if (stripped.startsWith('✓') || stripped.startsWith('✔')) {
      const check = stripped.startsWith('✓') ? '✓' : '✔';
      map.set([...suite, withoutTiming(afterFirst(line, check))].join('.'), 'PASSED');
    } else if (pyMatch(FAILURE_NUMBER, stripped)) {
      map.set([...suite, withoutTiming(afterFirst(line, ')'))].join('.'), 'FAILED');
    } else if (line.startsWith('  ')) {
      suite = [stripped];
    }
  }
  return map;
}

const FAILURE_LINE = py('^\\d+\\)\\s(.*)');

/** marked: only failures, "N) title" at the start of a line. */
export function parseLogMarked(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of pyLines(log)) {
    const m = pySearch(FAILURE_LINE, line);
    if (m) map.set(pyStrip(m[1]!), 'FAILED');
  }
  return map;
}

/** A stack of suites by indent, as calypso, next and lighthouse keep it: pop to a shallower indent, push. */
export class SuiteStack {
  private readonly suites: Array<{ name: string; indent: number }> = [];

  enter(line: string): void {
    const indent = indentOf(line);
    while (this.suites.length > 0 && this.suites.at(-1)!.indent >= indent) this.suites.pop();
    this.suites.push({ name: pyStrip(line), indent });
  }

  names(): string[] {
    return this.suites.map((s) => s.name);
  }
}

const CALYPSO_CUT = ' ./node_modules/.bin/jest ';
const MS = py('\\(\\d+ms\\)');

/**
 * wp-calypso: jest's verbose tree after each jest command, up to "Test Suites" or a failure's
 * "  ● " detail, names "<suite - suite> - <title>" (a title outside any suite is "- <title>"). A
 * ✓ or ✕ line that the harness's pattern then fails to match (no indent, or "(Nms)" not at its
 * end) is its AttributeError.
 */
export function parseLogCalypso(log: string): StatusMap {
  const map: StatusMap = new Map();
  const suite = new SuiteStack();
  for (const chunk of log.split(CALYPSO_CUT).slice(1)) {
    for (const line of pyLines(chunk)) {
      if (line.startsWith('Test Suites') || line.startsWith('  ● ')) break;
      const stripped = pyStrip(line);
      const mark = stripped.startsWith('✓') ? '✓' : stripped.startsWith('✕') ? '✕' : undefined;
      if (mark !== undefined) map.set(calypsoName(suite, mark, line), mark === '✓' ? 'PASSED' : 'FAILED');
      else if (indentOf(line) > 0) suite.enter(line);
    }
  }
  return map;
}

function calypsoName(suite: SuiteStack, mark: string, line: string): string {
  const pattern = pySearch(MS, line) ? py(`^\\s+${mark}\\s(.*)\\(\\d+ms\\)$`) : py(`^\\s+${mark}\\s(.*)`);
  const m = pyMatch(pattern, line);
  if (!m) throw new Error("AttributeError: 'NoneType' object has no attribute 'group'");
  return pyStrip([suite.names().join(' - '), m[1]!].join(' - '));
}
