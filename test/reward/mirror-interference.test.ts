/**
 * A task whose mirror copies change what a listed test sees (pytest): a list the issue's tests
 * append to, read whole by a listed test of a later file. The copies, at the end of the writers'
 * file, append again, so the reader fails under any fix, the gold patch's included. Graded
 * through a real server's Evaluate: the gold patch scores 1 (graded again without copies once the
 * task's gold reference showed the copies fail the reader), a change that fixes nothing 0 both ways,
 * and on textkit-2 itself, whose copies fail nothing, the same change is graded once with them.
 * RSpec's twin is in test/cheats/rspec-canaries/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GradeReport__Output } from '../../src/generated/swe_env/v1/GradeReport.js';
import { packageRoot } from '../../src/common/paths.js';
import { said } from '../helpers/exploit-grading.js';
import { treeDiff } from '../helpers/tree-diff.js';
import { gradedOnce, rowsServer } from '../helpers/rows-server.js';

const DEMO = join(packageRoot(), 'tasks', 'demo');
const BASE = 'swe-env-demo__textkit-2';
const SHARED = 'swe-env-demo__textkit-202';

/**
 * textkit-2's hidden tests with a list every wrap of the tests is counted in (a helper
 * module of the tests), read whole by a listed test of a later file: a copy goes at the end of its
 * own file, so the writers' copies run before the reader.
 */
const SHARED_TESTS: Readonly<Record<string, string>> = {
  'tests/wrap_log.py': `# Every wrap of the tests, by its number of lines, in the order made.
WRAPPED = []
`,
  'tests/test_wrap.py': `import pytest

from textkit import wrap
from wrap_log import WRAPPED


def wrapped(text, width):
    lines = wrap(text, width)
    WRAPPED.append(len(lines))
    return lines


def test_empty_text():
    assert wrap("", 10) == []


def test_width_must_be_positive():
    with pytest.raises(ValueError):
        wrap("abc", 0)


def test_short_text_is_one_line():
    assert wrapped("hello world", 20) == ["hello world"]


def test_last_line_is_kept():
    assert wrapped("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]
`,
  'tests/test_wrap_count.py': `from wrap_log import WRAPPED


def test_every_wrap_counted_once():
    assert WRAPPED == [1, 3]
`,
};

const FILE = 'tests/test_wrap.py';
const F2P = [
  `${FILE}::test_short_text_is_one_line`,
  `${FILE}::test_last_line_is_kept`,
  'tests/test_wrap_count.py::test_every_wrap_counted_once',
];
const P2P = [`${FILE}::test_empty_text`, `${FILE}::test_width_must_be_positive`];
/** The synthetic canaries of a run without copies: one that must pass and one that must fail in each test file. */
const SYNTHETIC = 4;

function demoRow(id: string): Record<string, string> {
  const row = readFileSync(join(DEMO, 'tasks.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>)
    .find((r) => r['instance_id'] === id);
  if (!row) throw new Error(`no demo row ${id}`);
  return row;
}

/** A change that fixes nothing: a comment added to wrap.py. */
function unfixedPatch(): string {
  const original = readFileSync(join(DEMO, 'repos', 'textkit', 'textkit', 'wrap.py'), 'utf8');
  return treeDiff(join(DEMO, 'repos', 'textkit'), { 'textkit/wrap.py': `${original}\n# The last line is still to keep.\n` });
}

const server = rowsServer(
  async () => {
    const base = demoRow(BASE);
    goldPatch = base['patch']!;
    const shared = {
      ...base,
      instance_id: SHARED,
      image_name: `sweb.eval.x86_64.${BASE}:latest`,
      test_patch: treeDiff(join(DEMO, 'repos', 'textkit'), SHARED_TESTS),
      FAIL_TO_PASS: JSON.stringify(F2P),
      PASS_TO_PASS: JSON.stringify(P2P),
    };
    return [base, shared];
  },
  { testTimeoutS: 60, gradingNetwork: 'none' },
  300_000,
);
let goldPatch = '';
const grade = gradedOnce(server);
const gold = (): Promise<GradeReport__Output> => grade(SHARED, goldPatch, 'gold');
const unfixed = (task: string): Promise<GradeReport__Output> => grade(task, unfixedPatch(), `unfixed ${task}`);
const kinds = (report: GradeReport__Output): string[] => report.findings.map((f) => f.kind);

beforeAll(() => {
  // All at once (the server runs them side by side); the gold patch and the unfixing change on the
  // shared task ask the task's reference together.
  void gold();
  void unfixed(SHARED);
  void unfixed(BASE);
});

describe('pytest: a list the listed tests fill, read whole by a later listed test', () => {
  // Scored 0 until a task whose copies fail listed tests under the gold patch too was graded again
  // without copies: the copies of the writers append to the list before the reader reads it.
  it('the gold patch scores 1: its run with copies failed the reader, the gold reference too, and it was graded again without them', async () => {
    const report = await gold();
    expect(report.infraError, said(report)).toBe(false);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.reward, said(report)).toBe(1);
    expect(kinds(report), said(report)).toContain('mirrors-interfere');
    expect(report.auditFlags.join('\n'), said(report)).toMatch(
      /the gold patch's run fails tests\/test_wrap_count\.py::test_every_wrap_counted_once with this task's copies and passes it without them/,
    );
    // The second grading keeps its synthetic canaries, and no copy.
    expect(report.canaries, said(report)).toBe(SYNTHETIC);
  }, 600_000);

  it("a change that fixes nothing scores 0 graded again without copies: the issue's tests fail there too", async () => {
    const report = await unfixed(SHARED);
    expect(report.infraError, said(report)).toBe(false);
    expect(kinds(report), said(report)).toContain('mirrors-interfere');
    expect(report.failToPass.find((t) => t.name.endsWith('test_last_line_is_kept'))?.status, said(report)).toBe('TEST_STATUS_FAILED');
    expect(report.canaries, said(report)).toBe(SYNTHETIC);
    expect(report.reward, said(report)).toBe(0);
  }, 600_000);

  it('on textkit-2, whose copies fail nothing under the gold patch, the same change is graded once, with its copies', async () => {
    const report = await unfixed(BASE);
    expect(report.infraError, said(report)).toBe(false);
    expect(report.failToPass.find((t) => t.name.endsWith('test_last_line_is_kept'))?.status, said(report)).toBe('TEST_STATUS_FAILED');
    expect(kinds(report), said(report)).not.toContain('mirrors-interfere');
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    expect(report.reward, said(report)).toBe(0);
  }, 600_000);
});
