import { py, pyLines, pyMatch, pyStrip, type StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * swesmith 0.0.9's parser for Go (swesmith/profiles/golang.py). Looser than the harness's
 * parse_log_gotest: it matches at a line's start only, so a Go package's `FAIL\tpkg 0.1s` line and
 * a subtest's name up to the first space count.
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
