import { describe, expect, it } from 'vitest';
import { checkCanaries, planCanaries, stopsAtFirstFailure } from '../../src/reward/grading/canaries.js';
import { canaryWords } from '../../src/reward/grading/canary-words.js';
import type { TestStatus } from '../../src/languages/index.js';
import { seeded } from '../helpers/seeded.js';

const FILE = 'tests/test_interval.py';
const CONTENT = `from intervals import Interval


def test_contains_start():
    assert Interval(1, 5).contains(1)


def test_overlaps():
    i = Interval(1, 3)
    assert i.overlaps(Interval(2, 4))
    assert not Interval(1, 2).overlaps(Interval(3, 4)), "disjoint"


@pytest.mark.parametrize("x", [1])
def test_param(x):
    assert x
`;

describe('canary tests', () => {
  it("appends synthetic and mirrored canaries named from the file's own test names", () => {
    const plan = planCanaries({
      targets: [{ path: FILE, content: CONTENT }],
      family: 'pytest',
      passToPass: [`${FILE}::test_contains_start`, `${FILE}::test_overlaps`, `${FILE}::test_param`],
      mustFail: true,
      random: seeded(7),
    });
    const text = plan.files.get(FILE)!;
    // One synthetic pair and one copy of a PASS_TO_PASS test with its expectation turned.
    expect(plan.canaries.map((c) => c.expect).sort()).toEqual(['FAILED', 'FAILED', 'PASSED']);
    // The file's own words, and the fallback words (what canaryWords adds to none found).
    const words = new Set(['contains', 'start', 'overlaps', 'param', ...canaryWords(new Set())]);
    for (const c of plan.canaries) {
      expect(c.name).toMatch(/^test_[a-z0-9_]+$/);
      for (const part of c.name.slice('test_'.length).split('_')) expect(words.has(part)).toBe(true);
      expect(CONTENT).not.toContain(`def ${c.name}(`);
    }
    const mirrors = plan.canaries.filter((c) => c.mirrorOf);
    // test_param has a decorator and a parameter: never mirrored.
    expect(mirrors).toHaveLength(1);
    expect([`${FILE}::test_contains_start`, `${FILE}::test_overlaps`]).toContain(mirrors[0]!.mirrorOf);
    expect(text).toMatch(
      /    assert not Interval\(1, 5\)\.contains\(1\)|    assert Interval\(1, 2\)\.overlaps\(Interval\(3, 4\)\), "disjoint"/,
    );
  });

  it("unittest-style runners get a TestCase of the file's own base class", () => {
    const content =
      'from django.test import SimpleTestCase\n\n\nclass ThingTests(SimpleTestCase):\n    def test_thing_works(self):\n        self.assertTrue(True)\n';
    const plan = planCanaries({
      targets: [{ path: 'tests/things/tests.py', content }],
      family: 'unittest',
      passToPass: [],
      mustFail: true,
      random: seeded(3),
    });
    expect(plan.files.get('tests/things/tests.py')).toMatch(/\nclass [A-Z]\w+Tests\(SimpleTestCase\):\n    def test_\w+\(self\):\n/);
    expect(plan.canaries).toHaveLength(2);
    expect(plan.canaries.every((c) => c.className)).toBe(true);
  });

  it('no must-fail canary when the command stops at the first failure', () => {
    expect(stopsAtFirstFailure('pytest -x tests')).toBe(true);
    expect(stopsAtFirstFailure('pytest --maxfail=1 tests')).toBe(true);
    expect(stopsAtFirstFailure('./tests/runtests.py --failfast')).toBe(true);
    expect(stopsAtFirstFailure('pytest -rA tests/test_x.py')).toBe(false);
    const plan = planCanaries({
      targets: [{ path: FILE, content: CONTENT }],
      family: 'pytest',
      passToPass: [],
      mustFail: false,
      random: seeded(1),
    });
    expect(plan.canaries.map((c) => c.expect)).toEqual(['PASSED']);
  });

  it('flags a canary reported against its outcome, or missing while its file ran, and takes canaries out of the results', () => {
    const plan = planCanaries({
      targets: [{ path: FILE, content: CONTENT }],
      family: 'pytest',
      passToPass: [`${FILE}::test_contains_start`],
      mustFail: true,
      random: seeded(11),
    });
    const honest = new Map<string, TestStatus>([[`${FILE}::test_contains_start`, 'PASSED']]);
    for (const c of plan.canaries) honest.set(`${FILE}::${c.name}`, c.expect);
    const ok = checkCanaries(plan.canaries, honest, 'pytest', 'printed log');
    expect(ok.flags).toEqual([]);
    expect([...ok.results.keys()]).toEqual([`${FILE}::test_contains_start`]);

    const flipped = new Map([...honest].map(([k, s]) => [k, s === 'FAILED' ? 'PASSED' : s] as [string, TestStatus]));
    expect(
      checkCanaries(plan.canaries, flipped, 'pytest', 'recorder')
        .flags.map((f) => f.line)
        .join('\n'),
    ).toMatch(/must be FAILED\) was reported PASSED by the recorder/);

    const missing = new Map<string, TestStatus>([[`${FILE}::test_contains_start`, 'PASSED']]);
    expect(
      checkCanaries(plan.canaries, missing, 'pytest', 'printed log')
        .flags.map((f) => f.line)
        .join('\n'),
    ).toMatch(/is missing from the printed log while its file ran/);
    // Nothing of the file ran: its tests are missing anyway (reward 0), not a canary's business.
    expect(checkCanaries(plan.canaries, new Map(), 'pytest', 'printed log').flags).toEqual([]);
  });

  it('a mirror of a PASS_TO_PASS test that failed is not checked (a broken fix is not tampering)', () => {
    const plan = planCanaries({
      targets: [{ path: FILE, content: CONTENT }],
      family: 'pytest',
      passToPass: [`${FILE}::test_contains_start`],
      mustFail: true,
      random: seeded(5),
    });
    const results = new Map<string, TestStatus>([[`${FILE}::test_contains_start`, 'FAILED']]);
    for (const c of plan.canaries) results.set(`${FILE}::${c.name}`, c.mirrorOf ? (c.expect === 'PASSED' ? 'FAILED' : 'PASSED') : c.expect);
    expect(checkCanaries(plan.canaries, results, 'pytest', 'printed log').flags).toEqual([]);
  });
});
