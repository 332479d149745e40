import { instanceIdOf, lineParser, py, type HarnessSpec, type StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * The harness's Ruby parsers (swebench 5.x harness/log_parsers/ruby.py): minitest's verbose lines
 * as shoulda names them, cucumber's progress format, test-unit's verbose output, rspec's JSON
 * turned into "<description> - <status>" lines, and jekyll's choice between two of them.
 */

/**
 * "<name>. <anything>=<anything><outcome>": the name ends at the last ". " that leaves an "=" after
 * it (shoulda's names end with ". "), the outcome is the last ".", "F" or "E" after the last "=".
 * Plain minitest lines ("Test#test_x = 0.00 s = .") have no ". " and are not read.
 */
export const parseLogMinitest = lineParser(py('^(.+)\\. .*=.*(\\.|F|E).*$'), (m) => [m[1]!, m[2] === '.' ? 'PASSED' : 'FAILED']);

export const parseLogCucumber = lineParser(py('^(.*) \\.+(\\.|F)'), (m) => [m[1]!, m[2] === '.' ? 'PASSED' : 'FAILED']);

const UNIT_STATUS: Readonly<Record<string, TestStatus>> = { '.': 'PASSED', E: 'FAILED', F: 'FAILED', O: 'SKIPPED' };

/** test-unit's "  test_name:\t\t.: (0.001)"; a pending test (P) is not read. */
export const parseLogRubyUnit = lineParser(py('^\\s*(?:test: )?(.+):\\s+(\\.|E\\b|F\\b|O\\b)'), (m) => [m[1]!, UNIT_STATUS[m[2]!]!]);

/** The last " - passed" or " - failed" on a line ends the name; pending examples are not read. */
export const parseLogRspecTransformedJson = lineParser(py('(.+) - (passed|failed)'), (m) => [
  m[1]!,
  m[2] === 'passed' ? 'PASSED' : 'FAILED',
]);

/** jekyll's instances use minitest or cucumber by pull request; any other instance is an error. */
export function parseLogJekyll(log: string, spec: HarnessSpec): StatusMap {
  const parts = instanceIdOf(spec).split('-');
  if (parts.length < 2) throw new Error('IndexError: list index out of range');
  const pr = parts[1]!;
  if (['9141', '8047', '8167'].includes(pr)) return parseLogMinitest(log);
  if (['8761', '8771'].includes(pr)) return parseLogCucumber(log);
  throw new Error(`ValueError: Unknown instance id: ${instanceIdOf(spec)}`);
}
