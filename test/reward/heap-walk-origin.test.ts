import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { said } from '../helpers/exploit-grading.js';
import { startTextkitVariant, type TextkitVariant } from '../helpers/textkit-variant.js';

/**
 * Who may walk the heap in a grading container (gc.get_objects, gc.get_referrers): code of a module
 * the import system ran from a source file of the image's (older than the container's start, which
 * the boot reads from the container's PID 1) or of the hidden tests (the grader's). A module the
 * patch's install wrote into the interpreter's site directory walked it for the package, and
 * earned 1 (test/cheats/grading-inputs' S20); this is the honest side of that line, on an image
 * whose repository has a leak-check helper and hidden tests that check for leaks three ways.
 */
const TASK_ID = 'swe-env-demo__textkit-2';
const DEMO = join(packageRoot(), 'tasks', 'demo');
const goldWrap = readFileSync(join(DEMO, 'tasks', 'textkit-2', 'fix', 'textkit', 'wrap.py'), 'utf8');
const hiddenTests = readFileSync(join(DEMO, 'tasks', 'textkit-2', 'tests', 'tests', 'test_wrap.py'), 'utf8');

/** The repository's own leak check, committed in the image. */
const REPOSITORY_HELPER = `import gc


def live(kind):
    """How many objects of this type are alive: textkit's own leak check for its tests."""
    return sum(1 for o in gc.get_objects() if type(o) is kind)
`;

/** A helper module the test patch adds beside the hidden tests. */
const TEST_HELPER = `import gc


def holders(obj):
    """What refers to obj, the frames of the call aside."""
    return [r for r in gc.get_referrers(obj) if type(r).__name__ != "frame"]
`;

/** The hidden tests, each listed test checking for leaks: through the repository, a test helper, itself. */
const LEAK_CHECKED_TESTS = hiddenTests
  .replace('import pytest\n', 'import gc\n\nimport pytest\nfrom heap_helper import holders\n\nfrom textkit.leaks import live\n')
  .replace(
    'def test_short_text_is_one_line():\n',
    'class _Text(str):\n    pass\n\n\ndef test_short_text_is_one_line():\n    wrap(_Text("hello world"), 20)\n    assert live(_Text) == 0\n',
  )
  .replace(
    'def test_last_line_is_kept():\n',
    'def test_last_line_is_kept():\n    words = ["kept"]\n    wrap(" ".join(words), 10)\n    assert all(r is not words for r in holders(words))\n',
  )
  .replace(
    'def test_long_word_gets_its_own_line():\n',
    'def test_long_word_gets_its_own_line():\n    assert any(type(o) is list for o in gc.get_objects())\n',
  );

let variant: TextkitVariant | undefined;

beforeAll(async () => {
  variant = await startTextkitVariant({
    taskId: TASK_ID,
    name: 'heap-walk-origin',
    files: { 'textkit/leaks.py': REPOSITORY_HELPER },
    message: 'textkit: a leak check for its tests',
    goldFiles: { 'textkit/wrap.py': goldWrap },
    record: (record, diff) => ({
      ...record,
      test_patch: diff({ 'tests/test_wrap.py': LEAK_CHECKED_TESTS, 'tests/heap_helper.py': TEST_HELPER }),
    }),
  });
}, 300_000);

afterAll(() => variant?.stop());

describe('heap walks by the image and the hidden tests in a grading container', () => {
  it("the gold fix scores 1: the repository's helper, the test patch's helper and a hidden test walk the heap, none refused", async () => {
    expect(LEAK_CHECKED_TESTS).toContain('assert live(_Text) == 0');
    expect(LEAK_CHECKED_TESTS).toContain('assert all(r is not words for r in holders(words))');
    expect(LEAK_CHECKED_TESTS).toContain('for o in gc.get_objects())');
    const v = variant!;
    const report = (await v.server.client.evaluate(TASK_ID, v.patch({ 'textkit/wrap.py': goldWrap }))).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(
      report.findings.map((f) => f.kind),
      said(report),
    ).not.toContain('walk-by-unsourced-code');
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.reward, said(report)).toBe(1);
  }, 300_000);

  it('the empty patch scores 0 with no finding of a walk (the control)', async () => {
    const report = (await variant!.server.client.evaluate(TASK_ID, '')).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(
      report.findings.map((f) => f.kind),
      said(report),
    ).not.toContain('walk-by-unsourced-code');
    expect(report.reward, said(report)).toBe(0);
  }, 300_000);
});
