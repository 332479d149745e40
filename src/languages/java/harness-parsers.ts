import { lineParser, py, pyLines, pyMatch, pyStrip, type StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * The harness's Java parsers (swebench 5.x harness/log_parsers/java.py): Maven (one `mvn test
 * -Dtest=X` per test under `set -x`, its BUILD line the result), Ant's JUnit task, and Gradle with
 * the harness's own test logging.
 */
const MAVEN_TEST = py('^.*-Dtest=(\\S+).*$');
const MAVEN_RESULT = py('^.*BUILD (SUCCESS|FAILURE)$');
const BUILD_STATUS: Readonly<Record<string, TestStatus>> = { SUCCESS: 'PASSED', FAILURE: 'FAILED' };

/**
 * Commands and BUILD lines are paired in order: a result with no command waiting is kept, and the
 * commands still waiting at the end take those kept results first come first served (a trace of
 * commands that ran ahead of their output). The last `-Dtest=` on a line names the test.
 */
export function parseLogMaven(log: string): StatusMap {
  const map: StatusMap = new Map();
  const pending: string[] = [];
  const unmatched: string[] = [];
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    const test = pyMatch(MAVEN_TEST, line);
    if (test) pending.push(test[1]!);
    const result = pyMatch(MAVEN_RESULT, line);
    if (!result) continue;
    const name = pending.shift();
    if (name === undefined) unmatched.push(result[1]!);
    else map.set(name, BUILD_STATUS[result[1]!]!);
  }
  while (pending.length > 0 && unmatched.length > 0) map.set(pending.shift()!, BUILD_STATUS[unmatched.shift()!]!);
  return map;
}

export const parseLogAnt = lineParser(py('^\\s*\\[junit\\]\\s+\\[(PASS|FAIL|ERR)\\]\\s+(.*)$'), (m) => [
  m[2]!,
  m[1] === 'PASS' ? 'PASSED' : 'FAILED',
]);

const GRADLE_FULL = py('^([^>].+)\\s+(PASSED|FAILED)$');
const GRADLE_NAME = py('^([^>]\\S*\\s+>\\s+\\S+)$');
const GRADLE_STATUS = py('^(PASSED|FAILED)$');

/**
 * "Class > method PASSED" on one line, or the name alone and its status on a later line of its
 * own (output interleaved between them); a full line or a new name replaces a waiting one. Skipped
 * tests are not read.
 */
export function parseLogGradleCustom(log: string): StatusMap {
  const map: StatusMap = new Map();
  let waiting: string | undefined;
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    const full = pyMatch(GRADLE_FULL, line);
    if (full) {
      map.set(full[1]!, full[2] as TestStatus);
      waiting = undefined;
      continue;
    }
    const name = pyMatch(GRADLE_NAME, line);
    if (name) {
      waiting = name[1]!;
      continue;
    }
    const status = waiting === undefined ? null : pyMatch(GRADLE_STATUS, line);
    if (waiting !== undefined && status) {
      map.set(waiting, status[1] as TestStatus);
      waiting = undefined;
    }
  }
  return map;
}
