import { descendants, parseXml } from '../shared/xml.js';
import { lineParser, py, pySub, type StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * The harness's C and C++ parsers (swebench 5.x harness/log_parsers/c.py): redis and valkey's tcl
 * runner, jq, micropython's run-tests, googletest, and doctest's XML reporter. Each reads the
 * stripped lines of the log; a later line for the same name wins.
 */

const REDIS = py('^\\[(ok|err|skip|ignore)\\]:\\s(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$');
/** A failure's name carries "in <file>"; the harness cuts it (one word after the last " in "). */
const REDIS_FILE = py('\\s+in\\s+\\S+$');
const REDIS_STATUS: Readonly<Record<string, TestStatus>> = { ok: 'PASSED', err: 'FAILED', skip: 'SKIPPED', ignore: 'SKIPPED' };

export const parseLogRedis = lineParser(REDIS, (m) => {
  const status = REDIS_STATUS[m[1]!]!;
  return [status === 'FAILED' ? pySub(REDIS_FILE, '', m[2]!) : m[2]!, status];
});

export const parseLogJq = lineParser(py('^\\s*(PASS|FAIL):\\s(.+)$'), (m) => [m[2]!, m[1] === 'PASS' ? 'PASSED' : 'FAILED']);

const MICROPYTHON_STATUS: Readonly<Record<string, TestStatus>> = { pass: 'PASSED', FAIL: 'FAILED', skip: 'SKIPPED' };
export const parseLogMicropythonTest = lineParser(py('^(pass|FAIL|skip)\\s+(.+)$'), (m) => [m[2]!, MICROPYTHON_STATUS[m[1]!]!]);

/** The greedy head makes the last bracket on a line the status, and the name runs to the last " (". */
export const parseLogGoogletest = lineParser(py('^.*\\[\\s*(OK|FAILED)\\s*\\]\\s(.*)\\s\\(.*\\)$'), (m) => [
  m[2]!,
  m[1] === 'OK' ? 'PASSED' : 'FAILED',
]);

/**
 * doctest run with `-s -r=xml`: the text from the first `<doctest` to the first `</doctest>` after
 * it is parsed as XML; each SubCase (nested ones too, a test case without subcases not at all) is
 * "<case> > <subcase>", passed when every Expression under it succeeded. Without the closing tag
 * the harness slices log[start:9] (find's -1 plus the tag's length), which fails to parse.
 */
export function parseLogDoctest(log: string): StatusMap {
  const map: StatusMap = new Map();
  const start = log.indexOf('<doctest');
  if (start < 0) return map;
  const close = log.indexOf('</doctest>', start);
  const end = close + '</doctest>'.length;
  const root = parseXml(sliceLikePython(log, start, end));
  for (const testCase of descendants(root, 'TestCase')) {
    for (const subCase of descendants(testCase, 'SubCase')) {
      const name = `${testCase.attributes.get('name') ?? 'None'} > ${subCase.attributes.get('name') ?? 'None'}`;
      const passed = descendants(subCase, 'Expression').every((e) => e.attributes.get('success') === 'true');
      map.set(name, passed ? 'PASSED' : 'FAILED');
    }
  }
  return map;
}

/** Python's s[start:end] (an end before the start is empty). */
function sliceLikePython(s: string, start: number, end: number): string {
  return end <= start ? '' : s.slice(start, end);
}
