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
});
