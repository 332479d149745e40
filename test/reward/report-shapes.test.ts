import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { said } from '../helpers/exploit-grading.js';
import { startTextkitVariant, type TextkitVariant } from '../helpers/textkit-variant.js';

/**
 * The honest side of the boot's witness (src/reward/scripts/boot/swe_env_witness.py): hidden tests
 * whose reports pytest itself turns into other outcomes than their calls gave, and a repository
 * conftest that does so as plugins do. A report logged passing that pytest made failing is the
 * integrity flag outcome-not-made; none of these may raise it. The task's own listed tests are
 * textkit-2's; the shapes run beside them in the same pytest process (their file is in the test
 * patch, so the test command runs it).
 */
const TASK_ID = 'swe-env-demo__textkit-2';
const DEMO = join(packageRoot(), 'tasks', 'demo');
const INIT = readFileSync(join(DEMO, 'repos', 'textkit', 'textkit', '__init__.py'), 'utf8');
const goldWrap = readFileSync(join(DEMO, 'tasks', 'textkit-2', 'fix', 'textkit', 'wrap.py'), 'utf8');

const SHAPES = `import unittest

import pytest


@pytest.mark.xfail(reason="known")
def test_expected_failure():
    assert 1 == 2


@pytest.mark.xfail(reason="fixed since")
def test_unexpected_pass():
    assert 1 == 1


@pytest.mark.xfail(strict=True, reason="strict")
def test_strict_expected_failure():
    assert 1 == 2


@pytest.mark.xfail(run=False, reason="not run")
def test_expected_failure_not_run():
    raise RuntimeError("never run")


@pytest.mark.xfail(raises=ZeroDivisionError)
def test_expected_failure_of_a_kind():
    1 / 0


def test_imperative_xfail():
    pytest.xfail("found at run time")


def test_imperative_skip():
    pytest.skip("not here")


@pytest.mark.skipif(True, reason="never here")
def test_skipped_by_mark():
    assert False


def test_unittest_skip_from_a_function():
    raise unittest.SkipTest("a nose-era skip")


@pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.xfail(reason="two"))])
def test_parameters(x):
    assert x == 1


def test_known_flaky():
    # Turned into an expected failure by the conftest's hook, as a plugin of known failures does.
    assert 1 == 2


class TestOld(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(1, 1)

    @unittest.expectedFailure
    def test_expected(self):
        self.assertEqual(1, 2)

    @unittest.skip("old")
    def test_skipped(self):
        pass

    def test_skip_test_raised(self):
        raise unittest.SkipTest("at run time")
`;

const CONFTEST = `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if item.name == "test_known_flaky" and report.when == "call" and report.failed:
        report.outcome = "skipped"
        report.wasxfail = "known flaky"


def pytest_collection_modifyitems(items):
    for item in items:
        if item.name == "test_known_flaky":
            item.add_marker(pytest.mark.slow)
`;

let variant: TextkitVariant;

beforeAll(async () => {
  variant = await startTextkitVariant({
    taskId: TASK_ID,
    name: 'report-shapes',
    files: { 'textkit/__init__.py': `${INIT}\n# report shapes\n` },
    message: 'textkit: report shapes',
    goldFiles: { 'textkit/wrap.py': goldWrap },
    record: (record, diff) => ({
      ...record,
      test_patch: `${record['test_patch']!}${diff({ 'tests/test_shapes.py': SHAPES, 'tests/conftest.py': CONFTEST })}`,
    }),
  });
}, 300_000);

afterAll(async () => {
  await variant?.stop();
});

const grade = async (change: string) => (await variant.server.client.evaluate(TASK_ID, change)).report!;

describe("reports pytest turns into other outcomes than their calls gave (the witness's honest side)", () => {
  it('the gold fix beside xfail, xpass, skips, unittest shapes and a conftest that marks a known failure: 1, no integrity flag', async () => {
    const report = await grade(variant.patch({ 'textkit/wrap.py': goldWrap }));
    expect(report.infraError, said(report)).toBe(false);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.reward, said(report)).toBe(1);
    // The shapes ran: pytest's own summary names them.
    expect(report.logTail, said(report)).toMatch(/XFAIL tests\/test_shapes\.py::test_known_flaky/);
    expect(report.logTail, said(report)).toMatch(/XPASS tests\/test_shapes\.py::test_unexpected_pass/);
  }, 300_000);

  it('the empty patch: 0, no integrity flag', async () => {
    const report = await grade('');
    expect(report.infraError, said(report)).toBe(false);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.reward, said(report)).toBe(0);
  }, 300_000);
});
