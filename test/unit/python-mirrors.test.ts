import { describe, expect, it } from 'vitest';
import { planCanaries } from '../../src/reward/grading/canaries.js';
import { mutatedBody, placeAfterOriginals, topLevelStarts } from '../../src/reward/grading/python-mirrors.js';
import { seeded } from '../helpers/seeded.js';

const FILE = 'tests/test_wrap.py';
const CONTENT = `import pytest
from textkit.wrap import wrap


def test_empty_text():
    assert wrap("", 10) == []


def test_width_must_be_positive():
    with pytest.raises(ValueError):
        wrap("abc", 0)


def test_short_text_is_one_line():
    assert wrap("hello world", 20) == ["hello world"]


def test_last_line_is_kept():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_long_word_gets_its_own_line():
    assert wrap("a supercalifragilistic b", 5) == ["a", "supercalifragilistic", "b"], "one word, one line"


DOC = """
def test_inside_a_string():
    pass
"""
`;
const FAIL_TO_PASS = ['test_short_text_is_one_line', 'test_last_line_is_kept', 'test_long_word_gets_its_own_line'].map(
  (n) => `${FILE}::${n}`,
);
const PASS_TO_PASS = ['test_empty_text', 'test_width_must_be_positive'].map((n) => `${FILE}::${n}`);
const constant = () => 0;

describe('Python mirror canaries', () => {
  it('change the expected value of the last top-level assertion, nothing else', () => {
    expect(mutatedBody(['    assert f(2) == 4'], constant)).toEqual(['    assert f(2) == 5']);
    expect(mutatedBody(['    x = g()', '    assert x.name == "abc"  # the name'], constant)).toEqual([
      '    x = g()',
      '    assert x.name == "aabc"',
    ]);
    expect(mutatedBody(["    assert 'ab' == h()"], constant)).toEqual(["    assert 'aab' == h()"]);
    expect(mutatedBody(['    assert wrap("a b", 1) == ["a", "b"], "one, two"'], constant)).toEqual([
      '    assert wrap("a b", 1) == ["aa", "b"], "one, two"',
    ]);
    // No literal to change: the truth turns.
    expect(mutatedBody(['    assert Interval(1, 5).contains(5)'], constant)).toEqual(['    assert not Interval(1, 5).contains(5)']);
    expect(mutatedBody(['    assert not i.overlaps(j)'], constant)).toEqual(['    assert i.overlaps(j)']);
    expect(mutatedBody(['    assert a == b'], constant)).toEqual(['    assert not a == b']);
    expect(mutatedBody(['    assert a or b'], constant)).toEqual(['    assert not (a or b)']);
    // A comparison the literal does not decide alone: its truth turns instead.
    expect(mutatedBody(['    assert f() == 3 or g()'], constant)).toEqual(['    assert not (f() == 3 or g())']);
    expect(mutatedBody(['    assert 1 < f() == 3'], constant)).toEqual(['    assert not 1 < f() == 3']);
  });

  it('leave alone a test whose last statement is not an assertion, or that returns first, or spans lines', () => {
    expect(mutatedBody(['    assert f()', '    with pytest.raises(ValueError):', '        g()'], constant)).toBeUndefined();
    expect(mutatedBody(['    if x:', '        return', '    assert f()'], constant)).toEqual([
      '    if x:',
      '        return',
      '    assert not f()',
    ]);
    expect(mutatedBody(['    return', '    assert f()'], constant)).toBeUndefined();
    expect(mutatedBody(['    assert f(', '        2) == 4'], constant)).toBeUndefined();
  });

  it('go at the end of the file, never inside a long string or between a decorator and its function', () => {
    const lines = CONTENT.split('\n');
    const starts = topLevelStarts(lines);
    expect(starts.map((i) => lines[i]?.slice(0, 30))).not.toContain('def test_inside_a_string():');
    const text = placeAfterOriginals(
      '@fixture\ndef a():\n    pass\n\n\ndef b():\n    pass\n',
      [{ text: 'def c():\n    pass\n', after: 'a' }],
      constant,
    );
    expect(text).toBe('@fixture\ndef a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n');
    expect(placeAfterOriginals('def a():\n    pass\n', [{ text: 'def c():\n    pass\n', after: 'a' }], constant)).toBe(
      'def a():\n    pass\n\n\ndef c():\n    pass\n',
    );
  });

  it('never go between a decorator spanning lines and what it decorates (sphinx-10466: a test lost its marker)', () => {
    const content = `import pytest


def test_plain():
    assert f() == 1


@pytest.mark.sphinx(
    'gettext', srcdir='gettext',
    confoverrides={'gettext_compact': False})
def test_marked(app):
    assert app


@pytest.mark.skipif(
    True, reason='never')
def test_skipped_plain():
    assert g() == 2
`;
    const lines = content.split('\n');
    const starts = topLevelStarts(lines);
    expect(starts.map((i) => lines[i] ?? '<end>')).toEqual(['def test_plain():', '@pytest.mark.sphinx(', '@pytest.mark.skipif(', '<end>']);
    for (let seed = 1; seed <= 30; seed++) {
      const plan = planCanaries({
        targets: [{ path: 'tests/test_m.py', content }],
        family: 'pytest',
        passToPass: [],
        failToPass: ['tests/test_m.py::test_plain', 'tests/test_m.py::test_skipped_plain'],
        mustFail: true,
        random: seeded(seed),
      });
      const text = plan.files.get('tests/test_m.py')!;
      expect(text).toContain("    confoverrides={'gettext_compact': False})\ndef test_marked(app):");
      expect(text).toContain("    True, reason='never')\ndef test_skipped_plain():");
      // A function under a decorator is not copied: its copy would run without it.
      expect(plan.canaries.map((c) => c.mirrorOf).filter(Boolean)).toEqual(['tests/test_m.py::test_plain']);
    }
  });

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`copy FAIL_TO_PASS tests with another expected value, no exact copy beside them (seed ${seed})`, () => {
      const plan = planCanaries({
        targets: [{ path: FILE, content: CONTENT }],
        family: 'pytest',
        passToPass: PASS_TO_PASS,
        failToPass: FAIL_TO_PASS,
        mustFail: true,
        random: seeded(seed),
      });
      const text = plan.files.get(FILE)!;
      const mirrors = plan.canaries.filter((c) => c.mirrorOf);
      expect(mirrors.filter((c) => FAIL_TO_PASS.includes(c.mirrorOf!))).toHaveLength(2);
      expect(mirrors.filter((c) => PASS_TO_PASS.includes(c.mirrorOf!))).toHaveLength(1);
      expect(mirrors.every((c) => c.expect === 'FAILED')).toBe(true);
      const lines = text.split('\n');
      for (const mirror of mirrors) {
        const original = mirror.mirrorOf!.slice(FILE.length + 2);
        const at = lines.indexOf(`def ${mirror.name}():`);
        expect(at).toBeGreaterThan(lines.indexOf(`def ${original}():`));
        const originalBody = lines[lines.indexOf(`def ${original}():`) + 1]!;
        const copyBody = lines[at + 1]!;
        expect(copyBody).not.toBe(originalBody);
        // The same call, another expectation.
        expect(copyBody.slice(0, copyBody.indexOf('=='))).toBe(originalBody.slice(0, originalBody.indexOf('==')));
      }
      // Every line of the original file is still there, in order, and the long string is untouched.
      let next = 0;
      for (const line of lines) if (line === CONTENT.split('\n').filter((l) => l.trim() !== '')[next]) next++;
      expect(next).toBe(CONTENT.split('\n').filter((l) => l.trim() !== '').length);
      expect(text).toContain('DOC = """\ndef test_inside_a_string():\n    pass\n"""');
      expect(text).not.toMatch(/\n\n\n\n/);
    });
  }

  it('copies run after every test of their file; synthetic canaries, which run no code of the repository, go anywhere', () => {
    let syntheticEarly = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const plan = planCanaries({
        targets: [{ path: FILE, content: CONTENT }],
        family: 'pytest',
        passToPass: PASS_TO_PASS,
        failToPass: FAIL_TO_PASS,
        mustFail: true,
        random: seeded(seed),
      });
      const text = plan.files.get(FILE)!;
      const lastTest = text.indexOf('def test_long_word_gets_its_own_line(');
      for (const c of plan.canaries.filter((k) => k.mirrorOf)) expect(text.indexOf(`def ${c.name}(`)).toBeGreaterThan(lastTest);
      if (plan.canaries.some((c) => !c.mirrorOf && text.indexOf(`def ${c.name}(`) < lastTest)) syntheticEarly++;
    }
    expect(syntheticEarly).toBeGreaterThan(0);
  });
});

describe('Python mirror canaries of methods', () => {
  const METHODS = `import unittest
from textkit.wrap import wrap


class WrapTests(unittest.TestCase):
    def setUp(self):
        self.width = 10

    def test_short(self):
        self.assertEqual(wrap("hello world", 20), ["hello world"])

    def test_empty(self):
        self.assertTrue(wrap("", self.width) == [])

    @unittest.skip("later")
    def test_skipped(self):
        self.assertEqual(1, 1)


class TestPlain:
    def test_kept(self):
        assert wrap("a b", 1) == ["a", "b"]
`;
  it("change a unittest check's expected value, or turn the check", () => {
    expect(mutatedBody(['        self.assertEqual(f(2), 4)'], constant)).toEqual(['        self.assertEqual(f(2), 5)']);
    expect(mutatedBody(['        self.assertEqual("ab", g(), "msg")'], constant)).toEqual(['        self.assertEqual("aab", g(), "msg")']);
    expect(mutatedBody(['        self.assertEqual(a, b)'], constant)).toEqual(['        self.assertNotEqual(a, b)']);
    expect(mutatedBody(['        self.assertTrue(x.ok())'], constant)).toEqual(['        self.assertFalse(x.ok())']);
    expect(mutatedBody(['        self.assertIn(1, xs)'], constant)).toEqual(['        self.assertNotIn(1, xs)']);
    expect(mutatedBody(['        self.assertRaises(ValueError, f)'], constant)).toBeUndefined();
  });

  for (const seed of [1, 2, 3, 4, 5]) {
    it(`copies go in the original's class, after it, keyed as the runner reports them (seed ${seed})`, () => {
      const path = 'tests/test_methods.py';
      const pytest = planCanaries({
        targets: [{ path, content: METHODS }],
        family: 'pytest',
        passToPass: [`${path}::WrapTests::test_empty`, `${path}::WrapTests::test_skipped`],
        failToPass: [`${path}::WrapTests::test_short`, `${path}::TestPlain::test_kept`],
        mustFail: true,
        random: seeded(seed),
      });
      const text = pytest.files.get(path)!;
      const mirrors = pytest.canaries.filter((c) => c.mirrorOf);
      expect(mirrors.map((c) => c.mirrorOf).sort()).toEqual([
        `${path}::TestPlain::test_kept`,
        `${path}::WrapTests::test_empty`,
        `${path}::WrapTests::test_short`,
      ]);
      for (const mirror of mirrors) {
        const [className, name] = mirror.name.split('::');
        expect(mirror.mirrorOf!.startsWith(`${path}::${className}::`)).toBe(true);
        const at = text.indexOf(`    def ${name}(self):`);
        expect(at).toBeGreaterThan(text.indexOf(`    def ${mirror.mirrorOf!.split('::')[2]}(self):`));
        // Inside the same class: the nearest class line above it is the original's.
        const classes = [...text.slice(0, at).matchAll(/^class (\w+)/gm)];
        expect(classes.at(-1)![1]).toBe(className);
      }
      expect(text).toContain('    @unittest.skip("later")\n    def test_skipped(self):');

      const django = planCanaries({
        targets: [{ path, content: METHODS }],
        family: 'unittest',
        passToPass: ['test_empty (test_methods.WrapTests)'],
        failToPass: ['test_short (test_methods.WrapTests.test_short)'],
        mustFail: true,
        random: seeded(seed),
      });
      const copies = django.canaries.filter((c) => c.mirrorOf);
      expect(copies.map((c) => c.className)).toEqual(['WrapTests', 'WrapTests']);
      expect(django.files.get(path)).toMatch(/\nclass [A-Z]\w+Tests\(unittest\.TestCase\):\n/);
    });
  }
});
