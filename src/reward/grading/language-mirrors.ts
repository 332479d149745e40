import type { LanguageRunner } from './language-runners.js';

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
  return ['#[test]', `fn ${name}() {`];
}

/**
 * The body with its first top-level check inverted: Go's first `if COND {` whose block fails the
 * test becomes `if !(COND) {`; cargo's first single-line `assert_eq!`/`assert_ne!`/`assert!`
 * statement is turned into its opposite. Undefined when there is none, or when something before it
 * could leave the test early (then a passing test need not have reached the check).
 */
export function invertedBody(runner: LanguageRunner, source: MirrorSource): string[] | undefined {
  const body = [...source.body];
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    const inverted = runner === 'go' ? invertGoIf(body, i, source.param) : runner === 'gtest' ? invertGtestCheck(line, body) : invertRustAssert(line);
    if (inverted === undefined) {
      if (leavesEarly(runner, line, source.param)) return undefined;
      continue;
    }
    body[i] = inverted;
    return body;
  }
  return undefined;
}

function leavesEarly(runner: LanguageRunner, line: string, param: string): boolean {
  if (/\breturn\b|\bgoto\b|\bbreak\b|\bpanic\b|os\.Exit|process::exit|\bthrow\b|GTEST_SKIP|\b(std::)?(exit|abort|_Exit|longjmp)\(/.test(line)) return true;
  return runner === 'go' && new RegExp(`\\b${param}\\.(Skip|SkipNow|Skipf)\\(`).test(line);
}

function invertGoIf(body: string[], i: number, param: string): string | undefined {
  const m = /^\tif (.+) \{$/.exec(body[i]!);
  if (!m) return undefined;
  const close = body.findIndex((l, j) => j > i && /^\t\S/.test(l));
  // The block must end on its own line (no else) and fail the test.
  if (close < 0 || body[close] !== '\t}') return undefined;
  const block = body.slice(i + 1, close).join('\n');
  if (!new RegExp(`\\b${param}\\.(Fatal|Fatalf|Error|Errorf|Fail|FailNow)\\(`).test(block)) return undefined;
  const parts = topLevelSplit(m[1]!, ';');
  if (parts === undefined || parts.length > 2) return undefined;
  const cond = parts.at(-1)!.trim();
  const init = parts.length === 2 ? `${parts[0]!.trim()}; ` : '';
  return `\tif ${init}!(${cond}) {`;
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

/** The index of the parenthesis closing the one open before the text starts; undefined when it does not close. */
function closingParen(text: string): number | undefined {
  for (let end = text.indexOf(')'); end >= 0; end = text.indexOf(')', end + 1)) {
    const parts = topLevelSplit(text.slice(0, end), ',');
    if (parts !== undefined) return end;
  }
  return undefined;
}

/** The text split at the separator where it is outside brackets, strings and runes; undefined when unbalanced. */
function topLevelSplit(text: string, separator: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote !== '`') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === '`') quote = c;
    else if (c === "'" && /^'(\\.|[^'\\])'/.test(text.slice(i))) quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) return undefined;
  }
  if (depth !== 0 || quote) return undefined;
  parts.push(text.slice(start));
  return parts;
}
