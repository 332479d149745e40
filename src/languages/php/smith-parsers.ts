import { py, pyLines, pyMatch, pyStrip, type StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/** swesmith 0.0.9's parser for PHP (swesmith/profiles/php.py). */

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
