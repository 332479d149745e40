import type { Task } from '../../tasks/task.js';
import { harnessParse, isLanguageRun, readsLineByLine, parseTestLog, type LogParserName, type TestStatus } from '../../languages/index.js';
import { messageOf } from '../../common/errors.js';
import { reportedResults, type ReporterRun } from './result-reporter.js';

export { isLanguageRun } from '../../languages/index.js';

/**
 * The run's results as swe-env reads them. A Python runner's log is read swe-env's stricter way
 * (whole ids, summary sections); another runner's by the ported parser the row names, the only
 * reading its log format has (a fail-only row's: the lines of swe-env's own reporter, the failures
 * its parser reads overruling them): what keeps it honest is the evidence around it (canaries, the exit
 * code, the runner's own accounting, see docs/grading-languages.md), not a second reading.
 */
export function runResults(
  harnessParser: string,
  parser: LogParserName,
  log: string,
  task: Task,
  reported?: ReporterRun,
): Map<string, TestStatus> {
  try {
    if (!isLanguageRun(harnessParser)) return parseTestLog(parser, log);
    const own = harnessParse(harnessParser, log, '5', { instanceId: task.id, version: task.version });
    return reported ? reportedResults(reported, log, own) : new Map(own);
  } catch (error) {
    throw new UnreadableLog(`the test log cannot be read by ${isLanguageRun(harnessParser) ? harnessParser : parser}: ${messageOf(error)}`);
  }
}

/**
 * A log the row's parser throws on. The log is what the tested process printed, so this is the
 * submission's outcome (reward 0, this reason), unless the gold patch's log cannot be read either:
 * then the row or its parser is at fault, the environment's failure (see logReadableWithGold).
 */
export class UnreadableLog extends Error {}

/**
 * Listed tests the log reports both passing and failing. The runners report a test once per run,
 * and the harness's parsers keep the last line: code under test that prints a PASS line after its
 * test really failed (a TestMain re-printing results, an exit hook printing libtest lines) would
 * turn the result round. A listed name with both outcomes is a result that cannot be trusted.
 * Each line is read by the row's own parser, alone: whatever shape the parser accepts (stripped of
 * surrounding spaces, a carriage return, any prefix it tolerates) counts here as it counts there, so
 * no spelling of a result line is read by the verdict and missed by this check.
 */
export function contradictedResults(
  harnessParser: string,
  log: string,
  listed: readonly string[],
  task: Pick<Task, 'id' | 'version'>,
): string[] {
  if (!isLanguageRun(harnessParser)) return [];
  if (!readsLineByLine(harnessParser)) return [];
  const wanted = new Set(listed);
  const seen = new Map<string, Set<TestStatus>>();
  const spec = { instanceId: task.id, version: task.version };
  for (const line of log.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: Map<string, TestStatus>;
    try {
      parsed = harnessParse(harnessParser, line, '5', spec);
    } catch {
      // A parser that cannot read a line alone reads a document: a line holds no result of its own.
      return [];
    }
    for (const [name, status] of parsed) {
      if (!wanted.has(name) || status === 'SKIPPED') continue;
      seen.set(name, (seen.get(name) ?? new Set()).add(status === 'PASSED' || status === 'XFAIL' ? 'PASSED' : 'FAILED'));
    }
  }
  return [...seen].filter(([, statuses]) => statuses.size > 1).map(([name]) => name);
}
