import { describe, expect, it } from 'vitest';
import { baseReport } from '../../src/reward/report.js';
import { likelyCause } from '../../src/reward/validate-task.js';

const gold = (error = '') => ({ ...baseReport('t'), error });

describe("validate's likely cause of a gold run that went wrong", () => {
  it('names name resolution, the internet, a submodule and a parser error from real lines', () => {
    expect(likelyCause(gold(), 'Error: getaddrinfo EAI_AGAIN registry.example\n    at GetAddrInfoReqWrap.onlookup')).toMatch(
      /resolves a host name/,
    );
    expect(
      likelyCause(
        gold(),
        'requests.exceptions.ConnectionError: HTTPSConnectionPool: Failed to establish a new connection: [Errno 101] Network is unreachable',
      ),
    ).toMatch(/connects to another host/);
    expect(
      likelyCause(
        gold(),
        'CMake Error at CMakeLists.txt:40 (add_subdirectory):\n  The source directory\n    /testbed/third_party/googletest\n  does not contain a CMakeLists.txt file.',
      ),
    ).toMatch(/git submodule/);
    expect(
      likelyCause(gold('grading failed in the environment: the test log cannot be read by parse_log_doctest: ParseError'), ''),
    ).toMatch(/log parser cannot read/);
    expect(likelyCause(gold('the test results are not trusted'), 'FAILED tests/test_x.py::test_y - assert 1 == 2')).toBeUndefined();
  });

  it("names a Python other than the harness's, read off the run's own paths", () => {
    const log = `  File "/usr/lib/python3.11/types.py"\nImportError: cannot import name 'Union' from 'types' (/usr/lib/python3.11/types.py)`;
    expect(likelyCause(gold('the tests did not run'), log, '3.9')).toBe(
      "the harness runs this row on Python 3.9 and this image's tests ran on Python 3.11: build the image on a base with 3.9 (`images base --suite bullseye`, then images build --base with it)",
    );
    // The same Python, no harness version, or no path that names one: nothing to say.
    expect(likelyCause(gold('x'), log, '3.11')).toBeUndefined();
    expect(likelyCause(gold('x'), log)).toBeUndefined();
    expect(likelyCause(gold('x'), 'AssertionError: assert 1 == 2', '3.9')).toBeUndefined();
    // A version no Debian release here has: the advice without a suite.
    expect(likelyCause(gold('x'), log, '3.10')).toMatch(/on a base with 3\.10$/);
  });
});
