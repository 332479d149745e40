import { py, pyLines, pyMatch, type StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * The harness's PHP parser (swebench 5.x harness/log_parsers/php.py): PHPUnit's `--testdox`
 * output. A suite header is PHPUnit 10's "Name (Fully\Qualified\Class)"; the tests under it are
 * "<suite> > <test>". PHPUnit 9 prints the header without the class, so its tests are read as
 * "None > <test>" (the harness's suite is still Python's None). Lines are read as printed, not
 * stripped, so a "\r" at the end keeps a header from being one.
 */
const SUITE = py('^(\\w.+) \\(.+\\)$');
const TEST = py('^\\s*([✔✘↩])\\s*(.*)$');
const STATUS: Readonly<Record<string, TestStatus>> = { '✔': 'PASSED', '✘': 'FAILED', '↩': 'SKIPPED' };

export function parseLogPhpunit(log: string): StatusMap {
  const map: StatusMap = new Map();
  let suite = 'None';
  for (const line of pyLines(log)) {
    const header = pyMatch(SUITE, line);
    if (header) {
      suite = header[1]!;
      continue;
    }
    const test = pyMatch(TEST, line);
    if (test) map.set(`${suite} > ${test[2]!}`, STATUS[test[1]!]!);
  }
  return map;
}
