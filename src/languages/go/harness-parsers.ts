import { lineParser, py } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * The harness's Go parser (swebench 5.x harness/log_parsers/go.py): `go test -v`'s result lines,
 * `--- PASS: TestName (0.00s)`, subtests' indented ones too (the line is stripped). The name runs
 * to the last " (" before the closing parenthesis, so a subtest named "a (b)" is cut there.
 */
const STATUS: Readonly<Record<string, TestStatus>> = { PASS: 'PASSED', FAIL: 'FAILED', SKIP: 'SKIPPED' };

export const parseLogGotest = lineParser(py('^--- (PASS|FAIL|SKIP): (.+) \\((.+)\\)$'), (m) => [m[2]!, STATUS[m[1]!]!]);
