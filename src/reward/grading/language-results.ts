import type { Task } from '../../tasks/task.js';
import { isSmithLanguageParser } from '../eval-plan/swe-smith-parsers/index.js';
import { harnessParse } from '../harness/log-parsers.js';
import { isLanguageParser } from '../harness/parsers/index.js';
import { parseTestLog, type LogParserName } from '../log-parsers/index.js';
import type { TestStatus } from '../test-status.js';

/** Whether the plan's parser is a runner's beyond Python (5.x's registry, SWE-smith's other profiles). */
export function isLanguageRun(harnessParser: string): boolean {
  return isLanguageParser(harnessParser) || isSmithLanguageParser(harnessParser);
}

/**
 * The run's results as swe-env reads them. A Python runner's log is read swe-env's stricter way
 * (whole ids, summary sections); another runner's by the ported parser the row names, the only
 * reading its log format has: what keeps it honest is the evidence around it (canaries, the exit
 * code, the runner's own accounting, see docs/grading-languages.md), not a second reading.
 */
export function runResults(harnessParser: string, parser: LogParserName, log: string, task: Task): Map<string, TestStatus> {
  if (!isLanguageRun(harnessParser)) return parseTestLog(parser, log);
  return new Map(harnessParse(harnessParser, log, '5', { instanceId: task.id, version: task.version }));
}

/** A result line of `go test -v` (subtests indented) and of libtest, as the harness's parsers read them. */
const RESULT_LINES: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => [string, string]]> = [
  [/^\s*--- (PASS|FAIL|SKIP): (.+) \(.+\)$/, (m) => [m[2]!, m[1]!]],
  [/^test\s+(\S+)\s+\.\.\.\s+(ok|FAILED|ignored)$/, (m) => [m[1]!, m[2] === 'ok' ? 'PASS' : m[2] === 'FAILED' ? 'FAIL' : 'SKIP']],
];

/**
 * Listed tests the log reports both passing and failing. The runners report a test once per run,
 * and the harness's parsers keep the last line: code under test that prints a PASS line after its
 * test really failed (a TestMain re-printing results, a function printing libtest lines) would
 * turn the result round. A listed name with both outcomes is a result that cannot be trusted.
 */
export function contradictedResults(harnessParser: string, log: string, listed: readonly string[]): string[] {
  if (!isLanguageRun(harnessParser)) return [];
  const wanted = new Set(listed);
  const seen = new Map<string, Set<string>>();
  for (const raw of log.split('\n')) {
    const line = raw.replace(/\r$/, '');
    for (const [pattern, read] of RESULT_LINES) {
      const m = pattern.exec(line);
      if (!m) continue;
      const [name, status] = read(m);
      if (!wanted.has(name) || status === 'SKIP') continue;
      seen.set(name, (seen.get(name) ?? new Set()).add(status));
    }
  }
  return [...seen].filter(([, statuses]) => statuses.size > 1).map(([name]) => name);
}
