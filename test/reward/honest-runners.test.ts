/**
 * Honest test suites the grader once scored 0 for what they are, not for what the patch did (issue
 * 28's measured false alarms on real rows): hidden tests written as unittest.TestCase classes run by
 * pytest (pytest's own unittest items run their own runtest: astroid's rows), and tests that start
 * pytest again in a subprocess (the recorder, once named in PYTEST_ADDOPTS, could not be imported
 * there). Gold 1, empty 0, no integrity flag. Images built from a git repository; real engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grader } from '../../src/reward/grader.js';
import type { Task } from '../../src/tasks/task.js';
import { testProvider } from '../helpers/docker.js';
import { buildTaskFixture, cleanUpFixture, fixtureGrader, type TaskFixture } from '../helpers/task-fixture.js';

const scratch: string[] = [];
const provider = testProvider();
let fixture: TaskFixture;
let grader: Grader;

const BASE = {
  'pytest.ini': '[pytest]\npythonpath = .\n',
  'calc/__init__.py': 'from .ops import add, mul\n',
  'calc/ops.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/__init__.py': '',
  'tests/inner_check.py': 'def test_inner():\n    assert 1 + 1 == 2\n',
  'calc/log.py': 'SEEN = set()\n\n\ndef first_time(name):\n    new = name not in SEEN\n    SEEN.add(name)\n    return new\n',
  'tests/run_mp.py':
    'import subprocess, sys\nfor path in sys.argv[1:]:\n    ok = subprocess.run([sys.executable, path]).returncode == 0\n    print(("pass " if ok else "FAIL ") + path.split("tests/", 1)[1])\n',
  'tests/mp/mul.py': 'from calc import mul\nassert mul(3, 4) == 12\n',
  'tests/test_calc.py':
    'import unittest\n\nfrom calc import mul\n\n\nclass CalcTest(unittest.TestCase):\n    def test_mul(self):\n        self.assertEqual(mul(3, 4), 12)\n',
};
const WRAPPED_TESTS = `import ast, functools, inspect, textwrap, types

from calc import mul


def impersonate(test):
    @functools.wraps(test)
    def wrapped_test(*args, **kwargs):
        return test(*args, **kwargs)

    wrapped_test.__code__ = wrapped_test.__code__.replace(
        co_filename=test.__code__.co_filename, co_firstlineno=test.__code__.co_firstlineno
    )
    del wrapped_test.__wrapped__
    return wrapped_test


def instrumented(test):
    tree = ast.parse(textwrap.dedent(inspect.getsource(test)))
    fn = tree.body[0]
    fn.decorator_list = []
    fn.body.insert(0, ast.parse("_calls = 1").body[0])
    namespace = {}
    exec(compile(ast.fix_missing_locations(tree), test.__code__.co_filename, "exec"), test.__globals__, namespace)
    return namespace[test.__name__]


def copied(test):
    return types.FunctionType(test.__code__.replace(), test.__globals__, test.__name__)


@impersonate
def test_mul_impersonated():
    assert mul(2, 5) == 10


@instrumented
def test_mul_instrumented():
    assert mul(3, 5) == 15


@copied
def test_mul_copied():
    assert mul(4, 5) == 20
`;

const FIX = {
  'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n',
  // New in the test patch (canaries go only into its files): a PASS_TO_PASS test whose outcome
  // depends on state shared between tests. Its mirror copy (`assert not first_time("a")`, which
  // must fail) sees the state it left and passes, under any fix, the gold patch's too.
  'tests/test_state.py': 'from calc.log import first_time\n\n\ndef test_records_once():\n    assert first_time("a")\n',
  'tests/mp/add.py': 'from calc import add\nassert add(2, 3) == 5\n',
  // Tests run through wrappers that claim the test file's name, as hypothesis's @given does (its
  // wrapper's code under the file's name and line), recompile the test's own source (instrumenting
  // decorators), or copy its code object unchanged: no compilation of the file made what runs.
  'tests/test_wrapped.py': WRAPPED_TESTS,
  'tests/test_calc.py':
    `${BASE['tests/test_calc.py']}\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n\nclass NestedTest(unittest.TestCase):\n    def test_pytest_in_a_subprocess(self):\n        import subprocess, sys\n        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/inner_check.py"], capture_output=True, text=True)\n        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)\n`.replace(
      'from calc import mul',
      'from calc import add, mul',
    ),
};

beforeAll(async () => {
  fixture = await buildTaskFixture(
    'honestrun',
    { base: BASE, fix: FIX },
    (common) => [
      {
        ...common,
        instance_id: 'example__honestrun-1',
        FAIL_TO_PASS: ['tests/test_calc.py::CalcTest::test_add'],
        PASS_TO_PASS: [
          'tests/test_calc.py::CalcTest::test_mul',
          'tests/test_calc.py::NestedTest::test_pytest_in_a_subprocess',
          'tests/test_state.py::test_records_once',
          'tests/test_wrapped.py::test_mul_impersonated',
          'tests/test_wrapped.py::test_mul_instrumented',
          'tests/test_wrapped.py::test_mul_copied',
        ],
        test_cmd: 'pytest -rA tests/test_calc.py tests/test_state.py tests/test_wrapped.py',
        image_name: 'swe-env-test/sweb.eval.x86_64.example__honestrun-1:latest',
      },
      {
        // A MicroPython-shaped run: test scripts run as they are by a runner of the repository's,
        // read by the harness's micropython parser. No canary can run in such a script.
        ...common,
        instance_id: 'example__honestrun-mp',
        FAIL_TO_PASS: ['mp/add.py'],
        PASS_TO_PASS: ['mp/mul.py'],
        test_cmd: 'PYTHONPATH=/testbed python3 tests/run_mp.py tests/mp/add.py tests/mp/mul.py',
        log_parser: 'parse_log_micropython_test',
        image_name: 'swe-env-test/sweb.eval.x86_64.example__honestrun-mp:latest',
      },
    ],
    scratch,
  );
  grader = fixtureGrader(provider);
}, 600_000);

afterAll(() => cleanUpFixture(provider, scratch));

const task = (id = 'example__honestrun-1'): Task => fixture.tasks.find((t) => t.id === id)!;

describe('canaries only where the runner takes them', () => {
  it('a MicroPython-shaped run gets no canary in its scripts: gold 1 with canaries 0, empty 0', async () => {
    const mp = task('example__honestrun-mp');
    const gold = await grader.grade(mp, Buffer.from(mp.goldPatch));
    expect(gold.integrityFlags, gold.error + gold.logTail).toEqual([]);
    expect(gold.reward, gold.error + gold.logTail).toBe(1);
    expect(gold.canaries).toBe(0);
    expect(gold.logTail).toMatch(/^pass mp\/add\.py$/m);
    const empty = await grader.grade(mp, Buffer.from(''));
    expect(empty.infraError, empty.error).toBe(false);
    expect(empty.reward).toBe(0);
    expect(empty.failToPass.map((r) => r.status)).toEqual(['FAILED']);
  });
});

describe('honest test suites', () => {
  it('unittest classes under pytest, pytest run again by a test, a test of shared state, tests run through wrappers: gold 1 with no integrity flag', async () => {
    const report = await grader.grade(task(), Buffer.from(task().goldPatch));
    expect(report.integrityFlags, report.error + report.logTail).toEqual([]);
    expect(report.infraError, report.error).toBe(false);
    expect(report.reward, report.error + report.logTail).toBe(1);
    expect(report.passToPass.map((r) => r.status)).toEqual(['PASSED', 'PASSED', 'PASSED', 'PASSED', 'PASSED', 'PASSED']);
    // What runs for the wrapped tests is no compilation of their file: audit findings, never integrity.
    expect(
      report.findings
        .filter((f) => f.kind === 'unverified-test-code')
        .map((f) => f.line)
        .join('\n'),
      report.auditFlags.join('\n'),
    ).toMatch(/test_mul_impersonated/);
    // The stateful test's mirrors disagreed here as in the gold patch's reference run: set aside.
    expect(report.auditFlags.join('\n')).toMatch(
      /mirror canaries: not counted, the gold patch's run disagrees the same way \(canary tests\/test_state\.py::/,
    );
  });

  it('the empty patch: 0, the listed test failing, no integrity flag', async () => {
    const report = await grader.grade(task(), Buffer.from(''));
    expect(report.integrityFlags, report.error).toEqual([]);
    expect(report.infraError, report.error).toBe(false);
    expect(report.reward).toBe(0);
    expect(report.failToPass.map((r) => r.status)).toEqual(['FAILED']);
  });
});
