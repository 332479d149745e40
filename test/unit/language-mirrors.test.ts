/**
 * Mirror canaries for go test and cargo (language-mirrors.ts): which listed tests can be copied,
 * how the copy's check is inverted, and that a rewriter sparing the synthetic canaries by their
 * shape is caught by the mirrors of the very tests it turns into passes. The end-to-end proof (the
 * real toolchains compiling and running them, gold 1, the G3/R6 rewriters 0) is in
 * test/cheats/forged-results/forged-results.test.ts and test/reward/language-demo-e2e.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkCanaries } from '../../src/reward/grading/canaries.js';
import { planLanguageCanaries } from '../../src/reward/grading/language-canaries.js';
import { invertedBody, mirrorSource, mutatedBody } from '../../src/reward/grading/language-mirrors.js';
import { mutateLiteral, type TestStatus } from '../../src/languages/index.js';
import { RSPEC_NO_FAIL_FAST } from '../../src/languages/ruby/rspec-mirrors.js';

const GO = readFileSync('tasks/demo-languages/tasks/semver-1/tests/semver_test.go', 'utf8');
const RUST = readFileSync('tasks/demo-languages/tasks/wordcount-1/tests/tests/counts.rs', 'utf8');
const CPP = readFileSync('tasks/demo-languages/tasks/strutil-1/tests/tests/strutil_test.cpp', 'utf8');
const JS = readFileSync('tasks/demo-languages/tasks/rangejs-1/tests/test/range.test.js', 'utf8');
const PHP = readFileSync('tasks/demo-languages/tasks/slugger-1/tests/tests/SlugTest.php', 'utf8');
const RSPEC = readFileSync('tasks/demo-languages/tasks/roman-1/tests/spec/roman_spec.rb', 'utf8');
let seed = 11;
const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;

describe("mirrors of a file's listed tests", () => {
  it('go: the first top-level failing if is inverted, its init statement kept', () => {
    const source = mirrorSource('go', GO, 'TestCompareMultiDigitComponents')!;
    expect(source.param).toBe('t');
    const inverted = invertedBody('go', source)!;
    expect(inverted[0]).toBe('\tif c, err := Compare("1.10.0", "1.9.0"); !(err != nil || c != 1) {');
    expect(inverted.slice(1)).toEqual(source.body.slice(1));
    expect(invertedBody('go', mirrorSource('go', GO, 'TestParse')!)![1]).toBe('\tif !(err != nil || v != (Version{1, 4, 2})) {');
  });

  it('go: a test that reads its own name, leaves early, or has no failing if alone is not inverted (or not copied)', () => {
    const named =
      'package x\n\nimport "testing"\n\nfunc TestGolden(t *testing.T) {\n\tif load(t.Name()) != "x" {\n\t\tt.Fatal("x")\n\t}\n}\n';
    expect(mirrorSource('go', named, 'TestGolden')).toBeUndefined();
    const early =
      'package x\n\nimport "testing"\n\nfunc TestEarly(t *testing.T) {\n\tif short() {\n\t\treturn\n\t}\n\tif f() != 1 {\n\t\tt.Fatal("x")\n\t}\n}\n';
    expect(invertedBody('go', mirrorSource('go', early, 'TestEarly')!)).toBeUndefined();
    const withElse =
      'package x\n\nimport "testing"\n\nfunc TestElse(t *testing.T) {\n\tif f() != 1 {\n\t\tt.Fatal("x")\n\t} else {\n\t\tg()\n\t}\n}\n';
    expect(invertedBody('go', mirrorSource('go', withElse, 'TestElse')!)).toBeUndefined();
    const logsOnly = 'package x\n\nimport "testing"\n\nfunc TestLog(t *testing.T) {\n\tif f() != 1 {\n\t\tt.Log("x")\n\t}\n}\n';
    expect(invertedBody('go', mirrorSource('go', logsOnly, 'TestLog')!)).toBeUndefined();
    expect(mirrorSource('go', GO, 'TestMissing')).toBeUndefined();
  });

  it('rust: assert_eq/assert_ne swap, assert! negates its condition and keeps its message; other attributes are not copied', () => {
    expect(invertedBody('cargo', mirrorSource('cargo', RUST, 'repeated_spaces_do_not_make_words')!)).toEqual([
      '    assert_ne!(count_words("one  two   three"), 3);',
    ]);
    const more = [
      '#[test]',
      'fn flags() {',
      '    let x = parse("a, b");',
      '    assert!(x.ok(), "parse({}) failed", "a, b");',
      '    assert_ne!(x.len(), 0);',
      '}',
      '',
      '#[test]',
      '#[should_panic]',
      'fn panics() {',
      '    assert_eq!(f(), 1);',
      '}',
      '',
      '#[test]',
      'fn thread_named() {',
      '    assert_eq!(std::thread::current().name(), Some("x"));',
      '}',
      '',
    ].join('\n');
    expect(invertedBody('cargo', mirrorSource('cargo', more, 'flags')!)).toEqual([
      '    let x = parse("a, b");',
      '    assert!(!(x.ok()), "parse({}) failed", "a, b");',
      '    assert_ne!(x.len(), 0);',
    ]);
    expect(mirrorSource('cargo', more, 'panics')).toBeUndefined();
    expect(mirrorSource('cargo', more, 'thread_named')).toBeUndefined();
  });

  it("are planted for the issue's tests and one kept test, exact and inverted, and catch a rewriter that spares the synthetic canaries", () => {
    const failToPass = ['TestCompareMultiDigitComponents', 'TestCompareNumericNotTextual'];
    const passToPass = ['TestCompareEqual', 'TestCompareMajor', 'TestParse', 'TestParseRejectsShortVersion'];
    const plan = planLanguageCanaries({
      runner: 'go',
      targets: [{ path: 'semver_test.go', content: GO }],
      mustFail: true,
      failToPass,
      passToPass,
      random,
    });
    const mirrors = plan.canaries.filter((c) => c.mirrorOf);
    expect(new Set(mirrors.map((c) => c.mirrorOf)).size).toBe(3);
    // Each of the tests: an exact copy, an inverted one and one with its literal changed.
    for (const name of failToPass)
      expect(
        mirrors
          .filter((c) => c.mirrorOf === name)
          .map((c) => c.expect)
          .sort(),
      ).toEqual(['FAILED', 'FAILED', 'PASSED']);
    const text = plan.files.get('semver_test.go')!;
    for (const c of plan.canaries) expect(text).toContain(`func ${c.name}(t *testing.T) {`);

    // The fixed code, run honestly: every listed test passes, each inverted copy fails.
    const honest = new Map<string, TestStatus>([...failToPass, ...passToPass].map((n) => [n, 'PASSED']));
    for (const c of plan.canaries) honest.set(c.name, c.expect);
    expect(checkCanaries(plan.canaries, honest, 'go', 'printed log').flags).toEqual([]);

    // The unfixed code: the tests and their exact copies fail; a rewriter turns every FAILED
    // into PASSED except the synthetic canaries (it knows their shape).
    const unfixed = new Map(honest);
    for (const name of failToPass) unfixed.set(name, 'FAILED');
    for (const c of mirrors.filter((m) => failToPass.includes(m.mirrorOf!)))
      unfixed.set(c.name, c.expect === 'PASSED' ? 'FAILED' : 'PASSED');
    const rewritten = new Map<string, TestStatus>(
      [...unfixed].map(([key, status]) => [key, plan.canaries.some((c) => c.name === key && !c.mirrorOf) ? status : 'PASSED']),
    );
    const flags = checkCanaries(plan.canaries, rewritten, 'go', 'printed log').flags;
    expect(flags.length).toBeGreaterThanOrEqual(2);
    for (const name of failToPass)
      expect(flags.map((f) => f.line).join('\n')).toContain(`a copy of ${name}, must be FAILED) was reported PASSED`);

    // Success printed for the listed names alone: their exact copies still fail.
    const named = new Map(unfixed);
    for (const name of failToPass) named.set(name, 'PASSED');
    expect(
      checkCanaries(plan.canaries, named, 'go', 'printed log')
        .flags.map((f) => f.line)
        .join('\n'),
    ).toMatch(/must be PASSED\) was reported FAILED/);
  });

  it('without a way to fail early, and with no listed test in the file, only the synthetic canaries are planted', () => {
    const plan = planLanguageCanaries({
      runner: 'cargo',
      targets: [{ path: 'tests/counts.rs', content: RUST }],
      mustFail: false,
      failToPass: ['repeated_spaces_do_not_make_words'],
      passToPass: [],
      random,
    });
    expect(plan.canaries.map((c) => [c.expect, c.mirrorOf ?? ''])).toEqual([
      ['PASSED', ''],
      ['PASSED', 'repeated_spaces_do_not_make_words'],
    ]);
    const none = planLanguageCanaries({
      runner: 'cargo',
      targets: [{ path: 'tests/counts.rs', content: RUST }],
      mustFail: true,
      failToPass: ['other::name'],
      passToPass: [],
      random,
    });
    expect(none.canaries.every((c) => !c.mirrorOf)).toBe(true);
  });

  it("go: no canary takes a name the package's other files already use", () => {
    const plan = (reserved?: Set<string>, seed0 = 5): string[] => {
      let state = seed0;
      const seeded = (n: number): number => (state = (state * 1103515245 + 12345) % 2 ** 31) % n;
      return planLanguageCanaries({
        runner: 'go',
        targets: [{ path: 'semver_test.go', content: GO }],
        mustFail: true,
        failToPass: ['TestCompareNumericNotTextual'],
        passToPass: ['TestParse'],
        reserved,
        random: seeded,
      }).canaries.map((c) => c.name);
    };
    const first = plan();
    const again = plan(new Set(first));
    expect(again).toHaveLength(first.length);
    for (const name of again) expect(first).not.toContain(name);
  });

  it('googletest: checks inverted with the operator the original uses, a streamed message kept; copies stay in the suite', () => {
    const source = mirrorSource('gtest', CPP, 'Trim.RemovesTabsAndNewlines')!;
    expect(source).toMatchObject({ param: 'TEST', suite: 'Trim' });
    expect(invertedBody('gtest', source)).toEqual(['    EXPECT_FALSE((strutil::trim("\\thello world\\n")) == ("hello world"));']);
    const more = [
      '#include <gtest/gtest.h>',
      '',
      'TEST_F(Fixture, Streams) {',
      '    auto v = make(")");',
      '    ASSERT_NE(v.size(), 0u) << "size " << v.size();',
      '    EXPECT_TRUE(v.ok());',
      '}',
      '',
      'TEST(Suite, Skips) {',
      '    if (!ready()) {',
      '        GTEST_SKIP();',
      '    }',
      '    EXPECT_EQ(f(), 1);',
      '}',
      '',
      'TEST(Suite, Named) {',
      '    EXPECT_STREQ(::testing::UnitTest::GetInstance()->current_test_info()->name(), "Named");',
      '}',
      '',
      'TEST(Suite, Strings) {',
      '    EXPECT_STREQ(c_str(), "a, b");',
      '}',
      '',
    ].join('\n');
    const fixture = mirrorSource('gtest', more, 'Fixture.Streams')!;
    expect(fixture).toMatchObject({ param: 'TEST_F', suite: 'Fixture' });
    expect(invertedBody('gtest', fixture)![1]).toBe('    ASSERT_FALSE((v.size()) != (0u)) << "size " << v.size();');
    expect(invertedBody('gtest', mirrorSource('gtest', more, 'Suite.Skips')!)).toBeUndefined();
    expect(mirrorSource('gtest', more, 'Suite.Named')).toBeUndefined();
    expect(invertedBody('gtest', mirrorSource('gtest', more, 'Suite.Strings')!)).toEqual(['    EXPECT_STRNE(c_str(), "a, b");']);
  });

  it("googletest: planted only in a file holding a listed test, in a listed suite, missing only when the file's listed tests reported", () => {
    const failToPass = ['Trim.RemovesTabsAndNewlines', 'Trim.WhitespaceOnlyBecomesEmpty'];
    const passToPass = ['Split.KeepsEmptyPieces', 'Trim.EmptyStaysEmpty', 'Trim.RemovesSpaces'];
    const plan = planLanguageCanaries({
      runner: 'gtest',
      targets: [{ path: 'tests/strutil_test.cpp', content: CPP }],
      mustFail: true,
      failToPass,
      passToPass,
      random,
    });
    // 2 synthetic, 3 for each FAIL_TO_PASS test, 2 or 3 for the PASS_TO_PASS one (Split's check has no literal).
    expect(plan.canaries.length).toBeGreaterThanOrEqual(10);
    expect(plan.canaries.length).toBeLessThanOrEqual(11);
    const text = plan.files.get('tests/strutil_test.cpp')!;
    for (const c of plan.canaries) {
      expect(['Trim', 'Split']).toContain(c.className);
      expect(text).toContain(`TEST(${c.className}, ${c.name}) {`);
    }
    const honest = new Map<string, TestStatus>([...failToPass, ...passToPass].map((n) => [n, 'PASSED']));
    for (const c of plan.canaries) honest.set(`${c.className}.${c.name}`, c.expect);
    expect(checkCanaries(plan.canaries, honest, 'gtest', 'printed log').flags).toEqual([]);
    // A forger printing OK for the listed tests only: the canaries are missing while their file ran.
    const listedOnly = new Map<string, TestStatus>([...failToPass, ...passToPass].map((n) => [n, 'PASSED']));
    expect(
      checkCanaries(plan.canaries, listedOnly, 'gtest', 'printed log')
        .flags.map((f) => f.line)
        .join('\n'),
    ).toMatch(/is missing from the printed log while its file ran/);
    // A binary that did not hold the file (none of its listed tests reported): nothing is missing.
    expect(checkCanaries(plan.canaries, new Map([['Other.Test', 'PASSED']]), 'gtest', 'printed log').flags).toEqual([]);
    const elsewhere = planLanguageCanaries({
      runner: 'gtest',
      targets: [{ path: 'tests/other_test.cpp', content: '#include <gtest/gtest.h>\n\nTEST(Other, Thing) {\n    EXPECT_TRUE(true);\n}\n' }],
      mustFail: true,
      failToPass,
      passToPass,
      random,
    });
    expect(elsewhere.canaries).toEqual([]);
    expect(elsewhere.files.size).toBe(0);
  });

  it('mutants: the first top-level equality against a literal gets another value; nothing else is touched', () => {
    const fixed = (n: number): number => n - 1;
    expect(mutateLiteral('3', fixed)).toBe('11');
    expect(mutateLiteral('3usize', () => 0)).toBe('4usize');
    // Boundaries of a\nb: 0, 1, 3, 4 (never between the backslash and its n); the second, letter b.
    expect(mutateLiteral('"a\\nb"', () => 1)).toBe('"ab\\nb"');
    for (let seed0 = 0; seed0 < 50; seed0++) {
      let state = seed0;
      const r = (n: number): number => (state = (state * 1103515245 + 12345) % 2 ** 31) % n;
      const changed = mutateLiteral('"tab\\there"', r)!;
      expect(changed).not.toBe('"tab\\there"');
      // One letter more, and the escape \t still whole.
      expect(changed).toHaveLength('"tab\\there"'.length + 1);
      expect(changed).toMatch(/\\t/);
    }
    // Escapes longer than two characters stay whole too (a letter inside \u2026 changes the character,
    // or, not a hex digit, makes the literal a syntax error): sphinx-9320's gold patch hit that.
    for (const literal of ['"\\u2026 \\x41\\U0001F600"', "'\\N{BULLET}\\012'", "'\\u{1F600}'"]) {
      const escapes = literal.match(/\\(?:u\{[^}]+\}|N\{[^}]+\}|u.{4}|U.{8}|x..|[0-7]{3})/g)!;
      for (let pick = 0; pick < 40; pick++) {
        const changed = mutateLiteral(literal, (n) => pick % n, true)!;
        expect(changed).toHaveLength(literal.length + 1);
        for (const escape of escapes) expect(changed).toContain(escape);
      }
    }
    expect(mutateLiteral('1.5', fixed)).toBeUndefined();
    expect(mutateLiteral("'c'", fixed)).toBeUndefined();
    expect(mutateLiteral('r"raw"', fixed)).toBeUndefined();

    const go = mutatedBody('go', mirrorSource('go', GO, 'TestCompareMultiDigitComponents')!, () => 2)!;
    expect(go[0]).toBe('\tif c, err := Compare("1.10.0", "1.9.0"); err != nil || c != 4 {');
    expect(mutatedBody('go', mirrorSource('go', GO, 'TestParseRejectsShortVersion')!, () => 2)).toBeUndefined();
    const andCond = 'package x\n\nimport "testing"\n\nfunc TestAnd(t *testing.T) {\n\tif a != 1 && b != 2 {\n\t\tt.Fatal("x")\n\t}\n}\n';
    expect(mutatedBody('go', mirrorSource('go', andCond, 'TestAnd')!, () => 2)).toBeUndefined();
    expect(mutatedBody('cargo', mirrorSource('cargo', RUST, 'repeated_spaces_do_not_make_words')!, () => 0)).toEqual([
      '    assert_eq!(count_words("one  two   three"), 4);',
    ]);
    expect(mutatedBody('cargo', mirrorSource('cargo', RUST, 'counts_of_one_line')!, () => 0)).toBeUndefined();
    expect(mutatedBody('gtest', mirrorSource('gtest', CPP, 'Trim.WhitespaceOnlyBecomesEmpty')!, () => 0)).toEqual([
      '    EXPECT_EQ(strutil::trim(" \\t\\r\\n "), "a");',
    ]);
    const pointer = '#include <gtest/gtest.h>\n\nTEST(P, Null) {\n    EXPECT_EQ(find("x"), 0);\n}\n';
    expect(mutatedBody('gtest', mirrorSource('gtest', pointer, 'P.Null')!, () => 0)).toBeUndefined();
  });

  it('go and rust: canaries go after random top-level items, never inside a raw string; c++: after the file', () => {
    const failToPass = ['TestCompareMultiDigitComponents', 'TestCompareNumericNotTextual'];
    let interleaved = false;
    for (let seed0 = 1; seed0 < 20 && !interleaved; seed0++) {
      let state = seed0;
      const r = (n: number): number => (state = (state * 1103515245 + 12345) % 2 ** 31) % n;
      const plan = planLanguageCanaries({
        runner: 'go',
        targets: [{ path: 'semver_test.go', content: GO }],
        mustFail: true,
        failToPass,
        passToPass: ['TestParse'],
        random: r,
      });
      const text = plan.files.get('semver_test.go')!;
      const order = [...text.matchAll(/^func (Test\w+)\(/gm)].map((m) => m[1]!);
      // Every original test still there, in its order; some canary before the last original.
      expect(order.filter((n) => GO.includes(`func ${n}(`))).toEqual([...GO.matchAll(/^func (Test\w+)\(/gm)].map((m) => m[1]!));
      interleaved = order.findIndex((n) => !GO.includes(`func ${n}(`)) < order.indexOf('TestCompareNumericNotTextual');
      // A copy runs after its original (go test runs a file's tests in order).
      for (const c of plan.canaries.filter((m) => m.mirrorOf)) expect(order.indexOf(c.name)).toBeGreaterThan(order.indexOf(c.mirrorOf!));
    }
    expect(interleaved).toBe(true);
    const golden =
      'package x\n\nimport "testing"\n\nconst want = `{\n  "a": 1\n}\n`\n\nfunc TestX(t *testing.T) {\n\tif got() != want {\n\t\tt.Fatal("x")\n\t}\n}\n';
    for (let seed0 = 1; seed0 < 20; seed0++) {
      let state = seed0;
      const r = (n: number): number => (state = (state * 1103515245 + 12345) % 2 ** 31) % n;
      const text = planLanguageCanaries({
        runner: 'go',
        targets: [{ path: 'x_test.go', content: golden }],
        mustFail: true,
        failToPass: ['TestX'],
        passToPass: [],
        random: r,
      }).files.get('x_test.go')!;
      expect(text).toContain('const want = `{\n  "a": 1\n}\n`\n');
    }
    const cpp = planLanguageCanaries({
      runner: 'gtest',
      targets: [{ path: 'tests/strutil_test.cpp', content: CPP }],
      mustFail: true,
      failToPass: ['Trim.RemovesTabsAndNewlines'],
      passToPass: [],
      random,
    });
    expect(cpp.files.get('tests/strutil_test.cpp')!.startsWith(CPP.trimEnd())).toBe(true);
  });

  it('node:test: assert checks inverted and mutated, copies under new titles, planted after the file, missing only when the file reported', () => {
    const source = mirrorSource('tap', JS, '- counts down by one')!;
    expect(source.header).toBe('test(%TITLE%, () => {');
    expect(invertedBody('tap', source)).toEqual(['  assert.notDeepStrictEqual(range(3, 0, -1), [3, 2, 1]);']);
    expect(mutatedBody('tap', source, () => 0)).toEqual(['  assert.deepStrictEqual(range(3, 0, -1), [4, 2, 1]);']);
    expect(mutatedBody('tap', mirrorSource('tap', JS, '- is empty when start equals end')!, () => 2)).toEqual([
      '  assert.deepStrictEqual(range(5, 5), [3]);',
    ]);
    expect(mirrorSource('tap', JS, 'counts down by one')).toBeUndefined();

    const failToPass = ['- counts down with a negative step', '- counts down by one'];
    const passToPass = ['- counts up from start to end, end excluded', '- is empty when start equals end', '- uses the step'];
    const plan = planLanguageCanaries({
      runner: 'tap',
      targets: [{ path: 'test/range.test.js', content: JS }],
      mustFail: true,
      failToPass,
      passToPass,
      random,
    });
    expect(plan.canaries).toHaveLength(11);
    const text = plan.files.get('test/range.test.js')!;
    expect(text.startsWith(JS.trimEnd())).toBe(true);
    for (const c of plan.canaries) expect(text).toContain(`test(${JSON.stringify(c.name)}, () => {`);
    const honest = new Map<string, TestStatus>([...failToPass, ...passToPass].map((n) => [n, 'PASSED']));
    for (const c of plan.canaries) honest.set(`- ${c.name}`, c.expect);
    expect(checkCanaries(plan.canaries, honest, 'tap', 'printed log').flags).toEqual([]);
    // deepStrictEqual replaced by one that accepts anything: every equality holds, the mutants' too.
    const lenient = new Map(honest);
    for (const c of plan.canaries.filter((m) => m.mirrorOf && m.expect === 'FAILED')) {
      const line = text.split('\n')[text.split('\n').indexOf(`test(${JSON.stringify(c.name)}, () => {`) + 1]!;
      if (line.includes('.deepStrictEqual(')) lenient.set(`- ${c.name}`, 'PASSED');
    }
    expect(
      checkCanaries(plan.canaries, lenient, 'tap', 'printed log')
        .flags.map((f) => f.line)
        .join('\n'),
    ).toMatch(/must be FAILED\) was reported PASSED/);
    expect(checkCanaries(plan.canaries, new Map([['- elsewhere', 'PASSED']]), 'tap', 'printed log').flags).toEqual([]);
  });

  it('PHPUnit: $this->assert* checks inverted and mutated, copies named so testdox titles them, inside the class', () => {
    const source = mirrorSource('phpunit', PHP, 'None > Collapses repeated spaces')!;
    expect(source).toMatchObject({ param: 'testCollapsesRepeatedSpaces', suite: 'None' });
    expect(invertedBody('phpunit', source)).toEqual(["        $this->assertNotSame('a-b', Slug::make('a   b'));"]);
    expect(mutatedBody('phpunit', source, () => 0)).toEqual(["        $this->assertSame('aa-b', Slug::make('a   b'));"]);
    expect(mirrorSource('phpunit', PHP, 'None > Keeps digits')).toBeDefined();
    expect(mirrorSource('phpunit', PHP, 'Collapses repeated spaces')).toBeUndefined();

    const failToPass = ['None > Collapses repeated spaces', 'None > Collapses runs of punctuation'];
    const passToPass = ['None > Joins words with a dash', 'None > Keeps digits', 'None > Lowercases words'];
    const plan = planLanguageCanaries({
      runner: 'phpunit',
      targets: [{ path: 'tests/SlugTest.php', content: PHP }],
      mustFail: true,
      failToPass,
      passToPass,
      random,
    });
    expect(plan.canaries).toHaveLength(11);
    const text = plan.files.get('tests/SlugTest.php')!;
    expect(text.trimEnd().endsWith('}')).toBe(true);
    expect(text.match(/^final class/gm)).toHaveLength(1);
    for (const c of plan.canaries) {
      expect(c.className).toBe('None');
      const method = `test${c.name
        .split(' ')
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join('')}`;
      expect(text).toContain(`    public function ${method}(): void\n    {\n`);
    }
    const honest = new Map<string, TestStatus>([...failToPass, ...passToPass].map((n) => [n, 'PASSED']));
    for (const c of plan.canaries) honest.set(`None > ${c.name}`, c.expect);
    expect(checkCanaries(plan.canaries, honest, 'phpunit', 'printed log').flags).toEqual([]);
    // Output rewritten so that every test reads passed: the must-fail canaries too.
    const rewritten = new Map<string, TestStatus>([...honest].map(([k]) => [k, 'PASSED']));
    expect(
      checkCanaries(plan.canaries, rewritten, 'phpunit', 'printed log')
        .flags.map((f) => f.line)
        .join('\n'),
    ).toMatch(/must be FAILED\) was reported PASSED/);
  });

  it('RSpec: expect(...).to checks inverted and eq literals mutated; every canary beside a listed example, in its group, after it', () => {
    const source = mirrorSource('rspec', RSPEC, 'subtracts in every place')!;
    expect(source.header).toBe("  it '%NAME%' do");
    expect(invertedBody('rspec', source)).toEqual([
      "    expect(Roman.numeral(1994)).not_to eq('MCMXCIV')",
      "    expect(Roman.numeral(2449)).to eq('MMCDXLIX')",
    ]);
    expect(mutatedBody('rspec', source, () => 0)![0]).toBe("    expect(Roman.numeral(1994)).to eq('aMCMXCIV')");
    // A block expectation is no check this copies; the example is still copied exactly.
    expect(invertedBody('rspec', mirrorSource('rspec', RSPEC, 'rejects zero')!)).toBeUndefined();
    expect(mirrorSource('rspec', RSPEC, 'no such example')).toBeUndefined();
    // Given twice (the log could not tell them apart), or reading its own example: not copied.
    const twice =
      "RSpec.describe A do\n  it 'works' do\n    expect(1).to eq(1)\n  end\n\n  it 'works' do\n    expect(2).to eq(2)\n  end\nend\n";
    expect(mirrorSource('rspec', twice, 'works')).toBeUndefined();
    const own = "RSpec.describe A do\n  it 'names' do |example|\n    expect(example.description).to eq('names')\n  end\nend\n";
    expect(mirrorSource('rspec', own, 'names')).toBeUndefined();
    // Interpolation: no letter goes into a double-quoted string with `#`.
    const interpolated = `RSpec.describe A do\n  it 'says' do\n    expect(f).to eq("a#{b}")\n  end\nend\n`;
    expect(mutatedBody('rspec', mirrorSource('rspec', interpolated, 'says')!, () => 0)).toBeUndefined();

    const failToPass = ['subtracts in every place', 'writes four and nine by subtraction'];
    const passToPass = ['adds symbols from the largest down', 'rejects zero', 'writes one as I'];
    const plan = planLanguageCanaries({
      runner: 'rspec',
      targets: [{ path: 'spec/roman_spec.rb', content: RSPEC }],
      mustFail: true,
      failToPass,
      passToPass,
      random,
    });
    expect(plan.canaries.length).toBeGreaterThanOrEqual(8);
    const lines = plan.files.get('spec/roman_spec.rb')!.trimEnd().split('\n');
    // The file's group, then the line that keeps a repository's fail_fast from stopping at a must-fail canary.
    expect(lines.at(-1)).toBe(RSPEC_NO_FAIL_FAST);
    expect(lines.filter((l) => /^\S/.test(l) && !l.startsWith('#') && !l.startsWith('require'))).toEqual([
      'RSpec.describe Roman do',
      'end',
      RSPEC_NO_FAIL_FAST,
    ]);
    for (const c of plan.canaries) {
      expect(c.className).toBeUndefined();
      const at = lines.indexOf(`  it '${c.name}' do`);
      expect(at, c.name).toBeGreaterThan(0);
      if (c.mirrorOf) expect(at, c.name).toBeGreaterThan(lines.indexOf(`  it '${c.mirrorOf}' do`));
    }
    const honest = new Map<string, TestStatus>([...failToPass, ...passToPass].map((n) => [n, 'PASSED']));
    for (const c of plan.canaries) honest.set(c.name, c.expect);
    expect(checkCanaries(plan.canaries, honest, 'rspec', 'printed log').flags).toEqual([]);
    const lenient = new Map<string, TestStatus>([...honest].map(([k]) => [k, 'PASSED']));
    expect(
      checkCanaries(plan.canaries, lenient, 'rspec', 'printed log')
        .flags.map((f) => f.line)
        .join('\n'),
    ).toMatch(/must be FAILED\) was reported PASSED/);
  });

  it('RSpec: a nested example is copied into its own context, shifted there; only listed examples anchor canaries', () => {
    const nested = [
      'describe Thing do',
      '  let(:base) { 1 }',
      '',
      "  context 'when nested' do",
      '    let(:extra) { 2 }',
      '',
      "    it 'adds them', :slow do",
      '      text = <<~TEXT',
      '        kept',
      '      TEXT',
      '      expect(base + extra).to eq(3)',
      '    end',
      '  end',
      '',
      "  it 'is not listed' do",
      '    expect(base).to eq(1)',
      '  end',
      'end # describe Thing',
      '',
    ].join('\n');
    const source = mirrorSource('rspec', nested, 'adds them')!;
    expect(source.header).toBe("  it '%NAME%', :slow do");
    expect(source.body).toEqual(['    text = <<~TEXT', '      kept', '    TEXT', '    expect(base + extra).to eq(3)']);
    const plan = planLanguageCanaries({
      runner: 'rspec',
      targets: [{ path: 'spec/thing_spec.rb', content: nested }],
      mustFail: true,
      failToPass: ['adds them'],
      passToPass: [],
      random,
    });
    const lines = plan.files.get('spec/thing_spec.rb')!.trimEnd().split('\n');
    // Everything went inside the context, after the listed example's end and before the context's.
    const contextEnd = lines.indexOf('  end');
    for (const c of plan.canaries) {
      const at = lines.indexOf(`    it '${c.name}'${c.mirrorOf ? ', :slow' : ''} do`);
      expect(at, c.name).toBeGreaterThan(lines.indexOf("    it 'adds them', :slow do"));
      expect(at, c.name).toBeLessThan(contextEnd);
    }
    expect(plan.canaries.filter((c) => c.mirrorOf === 'adds them').map((c) => c.expect)).toEqual(['PASSED', 'FAILED', 'FAILED']);
    expect(lines).toContain('      expect(base + extra).not_to eq(3)');
    // A heredoc that keeps its indentation is not shifted: not copied.
    expect(mirrorSource('rspec', nested.replace('<<~TEXT', '<<-TEXT'), 'adds them')).toBeUndefined();
    // No listed example in the file: nothing planted.
    const none = planLanguageCanaries({
      runner: 'rspec',
      targets: [{ path: 'spec/thing_spec.rb', content: nested }],
      mustFail: true,
      failToPass: ['elsewhere'],
      passToPass: [],
      random,
    });
    expect(none.canaries).toEqual([]);
  });

  it("RSpec: copies go to the end of their original's group (after every example there), synthetic ones right after an anchor", () => {
    const group = [
      "describe 'a list' do",
      '  before(:all) { @written = [] }',
      '',
      "  it 'writes' do",
      '    @written << 1',
      '    expect(@written.last).to eq(1)',
      '  end',
      '',
      "  it 'reads all' do",
      '    expect(@written).to eq([1])',
      '  end',
      'end # a list',
      '__END__',
      'data',
    ].join('\n');
    const plan = planLanguageCanaries({
      runner: 'rspec',
      targets: [{ path: 'spec/list_spec.rb', content: group }],
      mustFail: true,
      failToPass: ['writes'],
      passToPass: [],
      random,
    });
    const lines = plan.files.get('spec/list_spec.rb')!.trimEnd().split('\n');
    for (const c of plan.canaries) {
      const at = lines.indexOf(`  it '${c.name}' do`);
      if (c.mirrorOf) expect(at, c.name).toBeGreaterThan(lines.indexOf("  it 'reads all' do"));
      else expect(lines[at - 2], c.name).toBe('  end');
      expect(at, c.name).toBeLessThan(lines.indexOf('end # a list'));
    }
    // The line keeping fail_fast off goes before the file's data, which stays as it was.
    expect(lines.slice(-4)).toEqual([RSPEC_NO_FAIL_FAST, '', '__END__', 'data']);
    // A line one level out that closes no block (a heredoc's text): the copy stays right after its original.
    const heredoc = group.replace("  it 'reads all' do", "  let(:text) { <<-EOS }\nend text\n  EOS\n\n  it 'reads all' do");
    const beside = planLanguageCanaries({
      runner: 'rspec',
      targets: [{ path: 'spec/list_spec.rb', content: heredoc }],
      mustFail: false,
      failToPass: ['writes'],
      passToPass: [],
      random,
    });
    const out = beside.files.get('spec/list_spec.rb')!.split('\n');
    const copy = beside.canaries.find((c) => c.mirrorOf === 'writes')!;
    expect(out.indexOf(`  it '${copy.name}' do`)).toBeLessThan(out.indexOf('end text'));
  });
});
