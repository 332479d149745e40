import { beforeLastOrAll, py, pyLines, pyMatch, pyStrip, type StatusMap } from '../parsers/py-re.js';
import type { TestStatus } from '../../test-status.js';
import { pySplitlines, pyWords } from './py-more.js';

/**
 * swesmith 0.0.9's parsers for Go, Rust, C# and PHP (swesmith/profiles/golang.py, rust.py,
 * csharp.py, php.py). Looser than the harness's parse_log_gotest and parse_log_cargo: they match at
 * a line's start only, so a Go package's `FAIL\tpkg 0.1s` line and a subtest's name up to the first
 * space count, and cargo's result lines are found anywhere in a line.
 */

const GO_RESULTS: ReadonlyArray<[RegExp, TestStatus]> = [
  [py('--- PASS: (\\S+)'), 'PASSED'],
  [py('--- FAIL: (\\S+)'), 'FAILED'],
  [py('FAIL:?\\s?(.+?)\\s'), 'FAILED'],
  [py('--- SKIP: (\\S+)'), 'SKIPPED'],
];

/** GoProfile's: the first pattern matching the start of the stripped line names a test. */
export function parseSmithGo(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    for (const [re, status] of GO_RESULTS) {
      const m = pyMatch(re, line);
      if (!m) continue;
      map.set(m[1]!, status);
      break;
    }
  }
  return map;
}

/** RustProfile's: a line (less a leading `test `) holding `... ok` or `... FAILED`, named by what comes before its last ` ... `. */
export function parseSmithCargo(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pySplitlines(log)) {
    const line = raw.startsWith('test ') ? raw.slice('test '.length) : raw;
    const status: TestStatus | undefined = line.includes('... ok') ? 'PASSED' : line.includes('... FAILED') ? 'FAILED' : undefined;
    if (status) map.set(pyStrip(beforeLastOrAll(line, ' ... ')), status);
  }
  return map;
}

const DOTNET_PREFIXES: ReadonlyArray<[string, TestStatus]> = [
  ['Passed', 'PASSED'],
  ['Failed', 'FAILED'],
  ['Skipped', 'SKIPPED'],
];

/**
 * VirtualClient's (dotnet test): a stripped line starting with Passed/Failed/Skipped names its
 * second word. A line of one word (`Passed!` of the summary) raises in the package, so here too.
 */
export function parseSmithDotnet(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    const prefix = DOTNET_PREFIXES.find(([p]) => line.startsWith(p));
    if (!prefix) continue;
    const name = pyWords(line)[1];
    if (name === undefined) throw new Error('IndexError: list index out of range');
    map.set(name, prefix[1]);
  }
  return map;
}

const TESTDOX: ReadonlyArray<[RegExp, TestStatus]> = [
  [py('^\\s*✔\\s*(.+)$'), 'PASSED'],
  [py('^\\s*✘\\s*(.+)$'), 'FAILED'],
  [py('^\\s*↩\\s*(.+)$'), 'SKIPPED'],
];

/** dbal's PHPUnit --testdox: the marked line's text is the name (no suite prefix, unlike the harness's). */
export function parseSmithPhpunitTestdox(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of pyLines(log)) {
    for (const [re, status] of TESTDOX) {
      const m = pyMatch(re, line);
      if (!m) continue;
      map.set(pyStrip(m[1]!), status);
      break;
    }
  }
  return map;
}
