import type { LanguageRunner } from './language-runners.js';
import { isMutableLiteral, mutateLiteral, blanked, closingParen, topLevelSplit, invertNodeCheck, mutateNodeCheck, nodeTestHeader, nodeTestSource, invertPhpCheck, mutatePhpCheck, phpTestSource } from '../../languages/index.js';

/**
 * Mirror canaries for `go test` and cargo: renamed copies of the file's own listed tests (the
 * issue's FAIL_TO_PASS tests first, then a PASS_TO_PASS one), one exact and one with its first
 * top-level check inverted. Synthetic canaries have a shape of their own that code deciding the
 * printed results can learn to spare; a mirror runs the repository's code exactly as the listed
 * test does, so it fails and passes for the same reasons. What they pin down, whatever the trick:
 *
 * - the inverted copy of a test reported PASSED must itself be reported FAILED (every check of the
 *   test held, so the inverted one cannot): a rewriter turning the issue's failing tests into
 *   passes has to turn exactly the original of each pair and never its copy;
 * - the exact copy of a test reported PASSED must be reported PASSED: printing success for the
 *   listed names alone (guessed from the issue) leaves the copy's true failure in the log.
 *
 * A test is mirrored only when copying cannot change what it does: a plain top-level test function
 * (no other attribute, no parameters beyond Go's *testing.T) that neither reads its own name (golden
 * files named after the test) nor returns early before the check that is inverted.
 */

export interface MirrorSource {
  /** The test function's body lines (between its header and closing brace). */
  readonly body: readonly string[];
  /** Go: the *testing.T parameter's name; googletest: the macro (TEST or TEST_F). */
  readonly param: string;
  /** googletest: the test's suite (a copy stays in it, so it runs wherever the original does). */
  readonly suite?: string;
  /** node:test: the test's call with its title as `%TITLE%`. */
  readonly header?: string;
}

/** The listed test's function in the file, when it is plain enough to copy. */
export function mirrorSource(runner: LanguageRunner, content: string, name: string): MirrorSource | undefined {
  const lines = content.split('\n');
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let index = -1;
  let param = '';
  if (runner === 'go') {
    index = lines.findIndex((l) => new RegExp(`^func ${escaped}\\((\\w+) \\*testing\\.T\\) \\{\\s*$`).test(l));
    if (index >= 0) param = new RegExp(`^func ${escaped}\\((\\w+) `).exec(lines[index]!)![1]!;
    // A doc comment is fine; a build constraint or directive right above is not the test's alone.
    if (index > 0 && /^\/\/go:/.test(lines[index - 1]!)) return undefined;
  } else if (runner === 'phpunit') {
    const separator = name.indexOf(' > ');
    const test = separator > 0 ? phpTestSource(content, name.slice(separator + 3)) : undefined;
    return test && { body: test.body, param: test.method, suite: name.slice(0, separator), header: test.header.join('\n') };
  } else if (runner === 'tap') {
    const test = name.startsWith('- ') ? nodeTestSource(content, name.slice(2)) : undefined;
    return test && { body: test.body, param: '', header: test.header };
  } else if (runner === 'gtest') {
    const [suite, test] = name.split('.');
    if (!suite || !test) return undefined;
    index = lines.findIndex((l) => new RegExp(`^(TEST|TEST_F)\\(\\s*${suite}\\s*,\\s*${test}\\s*\\)\\s*\\{\\s*$`).test(l));
    if (index < 0) return undefined;
    const end = lines.findIndex((l, i) => i > index && l === '}');
    const body = lines.slice(index + 1, end < 0 ? index + 1 : end);
    if (end < 0 || body.length === 0 || body.some((l) => readsOwnName(runner, l, ''))) return undefined;
    return { body, param: /^(TEST_F|TEST)/.exec(lines[index]!)![1]!, suite };
  } else {
    index = lines.findIndex((l, i) => l === `fn ${name}() {` && lines[i - 1]?.trim() === '#[test]' && !/^\s*#/.test(lines[i - 2] ?? ''));
  }
  if (index < 0) return undefined;
  const end = lines.findIndex((l, i) => i > index && l === '}');
  if (end < 0) return undefined;
  const body = lines.slice(index + 1, end);
  if (body.length === 0 || body.some((l) => readsOwnName(runner, l, param))) return undefined;
  return { body, param };
}

function readsOwnName(runner: LanguageRunner, line: string, param: string): boolean {
  if (runner === 'go') return line.includes(`${param}.Name()`);
  if (runner === 'gtest') return /current_test_info|test_info_|\b__LINE__\b|RecordProperty/.test(line);
  // A test's thread is named after it (std::thread::current().name()); module_path!/line! differ in a copy too.
  return /thread::current\(\)|\bline!|\bcolumn!|function_name/.test(line);
}

/** The header of a copy of the test under another name. */
export function mirrorHeader(runner: LanguageRunner, name: string, source: MirrorSource): string[] {
  if (runner === 'go') return [`func ${name}(${source.param} *testing.T) {`];
  if (runner === 'gtest') return [`${source.param}(${source.suite!}, ${name}) {`];
  if (runner === 'tap') return [nodeTestHeader({ body: source.body, header: source.header! }, name)];
  // PHPUnit runs the methods named test<Name>: a canary's name is the rest.
  if (runner === 'phpunit') return source.header!.replace('%NAME%', `test${name}`).split('\n');
  return ['#[test]', `fn ${name}() {`];
}

/**
 * The body with its first top-level check inverted: Go's first `if COND {` whose block fails the
 * test becomes `if !(COND) {`; cargo's first single-line `assert_eq!`/`assert_ne!`/`assert!`
 * statement is turned into its opposite. Undefined when there is none, or when something before it
 * could leave the test early (then a passing test need not have reached the check).
 */
export function invertedBody(runner: LanguageRunner, source: MirrorSource): string[] | undefined {
  return rewriteFirstCheck(runner, source, (body, i) => {
    if (runner === 'go') return invertGoIf(body, i, source.param);
    if (runner === 'gtest') return invertGtestCheck(body[i]!, body);
    if (runner === 'phpunit') return invertPhpCheck(body[i]!);
    return runner === 'tap' ? invertNodeCheck(body[i]!, body) : invertRustAssert(body[i]!);
  });
}

/**
 * The body with the literal of its first top-level equality check against a literal changed
 * (literal-mutation.ts): Go's `if ... || x != 1 {` (the block failing the test), cargo's
 * `assert_eq!(x, 3)`, googletest's `EXPECT_EQ(x, "a")`/`EXPECT_STREQ`. When the original passed,
 * the value equalled the literal, so it cannot equal another: the copy must fail. It catches what
 * the inverted copy cannot: a value of the agent's whose equality holds with anything.
 */
export function mutatedBody(runner: LanguageRunner, source: MirrorSource, random: (n: number) => number): string[] | undefined {
  return rewriteFirstCheck(runner, source, (body, i) => {
    if (runner === 'go') return mutateGoIf(body, i, source.param, random);
    if (runner === 'phpunit') return mutatePhpCheck(body[i]!, random);
    return runner === 'tap' ? mutateNodeCheck(body[i]!, body, random) : mutateAssertEq(runner, body[i]!, body, random);
  });
}

function rewriteFirstCheck(runner: LanguageRunner, source: MirrorSource, rewrite: (body: string[], i: number) => string | undefined): string[] | undefined {
  const body = [...source.body];
  for (let i = 0; i < body.length; i++) {
    const rewritten = rewrite(body, i);
    if (rewritten === undefined) {
      if (leavesEarly(runner, body[i]!, source.param)) return undefined;
      continue;
    }
    body[i] = rewritten;
    return body;
  }
  return undefined;
}

function leavesEarly(runner: LanguageRunner, line: string, param: string): boolean {
  if (/\breturn\b|\bgoto\b|\bbreak\b|\bpanic\b|os\.Exit|process::exit|\bthrow\b|GTEST_SKIP|markTest(Skipped|Incomplete)|\b(std::)?(exit|abort|_Exit|longjmp|die)\(/.test(line)) return true;
  return runner === 'go' && new RegExp(`\\b${param}\\.(Skip|SkipNow|Skipf)\\(`).test(line);
}

/** A top-level `if [INIT; ]COND {` whose block (no else) fails the test: its init and condition. */
function goFailingIf(body: readonly string[], i: number, param: string): { init: string; cond: string } | undefined {
  const m = /^\tif (.+) \{$/.exec(body[i]!);
  if (!m) return undefined;
  const close = body.findIndex((l, j) => j > i && /^\t\S/.test(l));
  // The block must end on its own line (no else) and fail the test.
  if (close < 0 || body[close] !== '\t}') return undefined;
  const block = body.slice(i + 1, close).join('\n');
  if (!new RegExp(`\\b${param}\\.(Fatal|Fatalf|Error|Errorf|Fail|FailNow)\\(`).test(block)) return undefined;
  const parts = topLevelSplit(m[1]!, ';');
  if (parts === undefined || parts.length > 2) return undefined;
  return { init: parts.length === 2 ? `${parts[0]!.trim()}; ` : '', cond: parts.at(-1)!.trim() };
}

function invertGoIf(body: string[], i: number, param: string): string | undefined {
  const found = goFailingIf(body, i, param);
  return found && `\tif ${found.init}!(${found.cond}) {`;
}

/**
 * In a failing if's condition made of `||` terms (a passing test had each false), a term
 * `EXPR != LITERAL` (or reversed) with nothing else at its top level gets another literal: the
 * value equalled the old one, so the term is true and the copy fails.
 */
function mutateGoIf(body: string[], i: number, param: string, random: (n: number) => number): string | undefined {
  const found = goFailingIf(body, i, param);
  if (!found) return undefined;
  const terms = topLevelSplit(found.cond, '|');
  // `a || b` splits at each bar: the pieces between the two bars of each `||` are empty.
  if (terms === undefined || terms.some((t, k) => k % 2 === 1 && t !== '')) return undefined;
  const disjuncts = terms.filter((_, k) => k % 2 === 0);
  for (let d = 0; d < disjuncts.length; d++) {
    const sides = topLevelSplit(disjuncts[d]!, '!');
    if (sides === undefined || sides.length !== 2 || !sides[1]!.startsWith('=')) continue;
    const [left, right] = [sides[0]!, sides[1]!.slice(1)];
    if ([left, right].some((side) => /[=<>&|!]/.test(blanked(side)))) continue;
    const mutated = isMutableLiteral(right) ? `${left.trimEnd()} != ${mutateLiteral(right, random)}` : isMutableLiteral(left) ? `${mutateLiteral(left, random)} != ${right.trimStart()}` : undefined;
    if (mutated === undefined || mutated.includes('undefined')) continue;
    const kept = disjuncts.map((t, k) => (k === d ? ` ${mutated.trim()} ` : t));
    return `\tif ${found.init}${kept.join('||').trim()} {`;
  }
  return undefined;
}

/** cargo's `assert_eq!(a, b)` and googletest's `EXPECT_EQ`/`ASSERT_EQ`/`*_STREQ` at the body's top level, one side a literal. */
function mutateAssertEq(runner: LanguageRunner, line: string, body: readonly string[], random: (n: number) => number): string | undefined {
  const indent = runner === 'cargo' ? '    ' : /^(\s+)/.exec(body.find((l) => l.trim() !== '') ?? '')?.[1];
  const m = runner === 'cargo' ? /^( {4})(assert_eq)!\((.*);\s*$/.exec(line) : /^(\s+)((?:EXPECT|ASSERT)_(?:EQ|STREQ))\((.*);\s*$/.exec(line);
  if (!indent || !m || m[1] !== indent) return undefined;
  const close = closingParen(m[3]!);
  if (close === undefined) return undefined;
  const args = topLevelSplit(m[3]!.slice(0, close), ',');
  if (args === undefined || args.length < 2) return undefined;
  // C++'s 0 may be a null pointer constant: another number would not compile against a pointer.
  const usable = (arg: string): boolean => isMutableLiteral(arg) && !(runner === 'gtest' && /^0[uUlL]*$/.test(arg.trim()));
  const index = usable(args[1]!) ? 1 : usable(args[0]!) ? 0 : -1;
  if (index < 0) return undefined;
  const changed = mutateLiteral(args[index]!, random);
  if (changed === undefined) return undefined;
  const kept = args.map((a, k) => (k === index ? `${/^\s*/.exec(a)![0]}${changed}` : a));
  return `${indent}${m[2]}${runner === 'cargo' ? '!' : ''}(${kept.join(',')}${m[3]!.slice(close)};`;
}

function invertRustAssert(line: string): string | undefined {
  const m = /^ {4}(assert_eq|assert_ne|assert)!\((.*)\);\s*$/.exec(line);
  if (!m) return undefined;
  const args = topLevelSplit(m[2]!, ',');
  if (args === undefined || args.length === 0) return undefined;
  if (m[1] === 'assert_eq') return `    assert_ne!(${m[2]});`;
  if (m[1] === 'assert_ne') return `    assert_eq!(${m[2]});`;
  return `    assert!(${[`!(${args[0]!.trim()})`, ...args.slice(1)].join(',')});`;
}

const GTEST_OPPOSITE: Readonly<Record<string, (args: readonly string[]) => string | undefined>> = {
  // EXPECT_EQ compares with ==, EXPECT_NE with !=: the inverted copy uses the same operator, so it
  // compiles wherever the original does (a type with == alone has no != before C++20).
  EQ: (a) => (a.length === 2 ? `FALSE((${a[0]!.trim()}) == (${a[1]!.trim()}))` : undefined),
  NE: (a) => (a.length === 2 ? `FALSE((${a[0]!.trim()}) != (${a[1]!.trim()}))` : undefined),
  TRUE: (a) => (a.length === 1 ? `FALSE(${a[0]!.trim()})` : undefined),
  FALSE: (a) => (a.length === 1 ? `TRUE(${a[0]!.trim()})` : undefined),
  STREQ: (a) => (a.length === 2 ? `STRNE(${a.map((x) => x.trim()).join(', ')})` : undefined),
  STRNE: (a) => (a.length === 2 ? `STREQ(${a.map((x) => x.trim()).join(', ')})` : undefined),
};

/** googletest: the first check at the body's own indentation, `EXPECT_EQ(a, b)` made `EXPECT_FALSE((a) == (b))` and so on (a message streamed after it kept). */
function invertGtestCheck(line: string, body: readonly string[]): string | undefined {
  const indent = /^(\s+)/.exec(body.find((l) => l.trim() !== '') ?? '')?.[1];
  const m = /^(\s+)(EXPECT|ASSERT)_(EQ|NE|TRUE|FALSE|STREQ|STRNE)\((.*);\s*$/.exec(line);
  if (!indent || !m || m[1] !== indent) return undefined;
  const close = closingParen(m[4]!);
  if (close === undefined) return undefined;
  const args = topLevelSplit(m[4]!.slice(0, close), ',');
  const suffix = m[4]!.slice(close + 1);
  if (args === undefined || !/^(\s*<<.*)?$/.test(suffix)) return undefined;
  const opposite = GTEST_OPPOSITE[m[3]!]!(args);
  return opposite === undefined ? undefined : `${indent}${m[2]}_${opposite}${suffix};`;
}
