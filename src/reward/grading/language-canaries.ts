import { randomInt } from 'node:crypto';
import type { Canary, CanaryPlan } from './canaries.js';
import { invertedBody, mirrorHeader, mirrorSource, mutatedBody } from './language-mirrors.js';
import type { LanguageRunner } from './language-runners.js';
import { nodeTestTitles, phpTitles, testdoxTitle } from '../../languages/index.js';

/**
 * Canaries for the runners beyond Python whose test files swe-env can add a test to safely: `go
 * test` (a `func TestX(t *testing.T)` appended to a hidden `_test.go` file, same package, same
 * imports) and cargo (a `#[test] fn` appended to a hidden integration test file under tests/, a
 * crate of its own whose tests libtest names bare). As for pytest, a must-pass one and (when the
 * run does not stop at the first failure) a must-fail one per file, named from the file's own test
 * names, written after every agent-driven step. What they catch is code under test that decides
 * the printed results wholesale: an init() or TestMain that prints PASS lines and exits 0, a
 * replaced test binary, a runner told to run nothing but printing success. Beside them, mirrors of
 * the file's own listed tests (language-mirrors.ts) catch code that spares the synthetic ones by shape.
 */

export { canaryFile, commandRunsAll, languageRunner, stopsEarly, type LanguageRunner } from './language-runners.js';

const FALLBACK_WORDS = ['value', 'result', 'default', 'empty', 'single', 'order', 'repeat', 'boundary', 'mixed', 'nested', 'basic', 'input'];

const NAME_PATTERN: Readonly<Record<LanguageRunner, RegExp>> = {
  go: /func Test(\w+)\s*\(/g,
  cargo: /fn (\w+)\s*\(/g,
  gtest: /^TEST(?:_F)?\(\s*\w+\s*,\s*(\w+)\s*\)/gm,
  tap: /^(?:test|it)\(\s*['"`]([^'"`]+)['"`]/gm,
  phpunit: /public function test(\w+)\(/g,
};

function words(runner: LanguageRunner, content: string): string[] {
  const found = new Set<string>();
  for (const m of content.matchAll(NAME_PATTERN[runner])) {
    const parts = runner === 'cargo' ? m[1]!.split('_') : runner === 'tap' ? m[1]!.split(/\s+/) : m[1]!.split(/(?=[A-Z])|_/);
    // testdox titles only plain words: a digit in a PHPUnit canary's name would be spelled otherwise.
    for (const w of parts) if ((runner === 'phpunit' ? /^[A-Za-z][a-z]{2,}$/ : /^[A-Za-z][a-z0-9]{2,}$/).test(w)) found.add(w.toLowerCase());
  }
  return found.size >= 4 ? [...found] : [...found, ...FALLBACK_WORDS];
}

function name(runner: LanguageRunner, content: string, vocabulary: readonly string[], taken: Set<string>, random: (n: number) => number): string {
  for (let attempt = 0; ; attempt++) {
    const parts = Array.from({ length: 2 + random(2) }, () => vocabulary[random(vocabulary.length)]!);
    const camel = parts.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
    const base = runner === 'go' ? `Test${camel}` : runner === 'gtest' || runner === 'phpunit' ? camel : parts.join(runner === 'tap' ? ' ' : '_');
    const suffix = runner === 'phpunit' ? 'Z'.repeat(Math.max(0, attempt - 49)) : `${runner === 'cargo' ? '_' : runner === 'tap' ? ' ' : ''}${attempt}`;
    const candidate = attempt >= 50 ? `${base}${suffix}` : base;
    // PHPUnit: the method is test<Name>, and a name is taken when that method is.
    const spelled = runner === 'phpunit' ? `test${candidate}` : candidate;
    if (!taken.has(candidate) && !new RegExp(`\\b${spelled}\\b`).test(content)) {
      taken.add(candidate);
      return candidate;
    }
  }
}

/** A test that sums a few numbers and checks the sum, right or wrong as asked. */
/** `where`: googletest's suite, node:test's test function (test or it). */
function body(runner: LanguageRunner, testName: string, where: string, holds: boolean, random: (n: number) => number): string {
  const values = Array.from({ length: 3 + random(3) }, () => 1 + random(40));
  const sum = values.reduce((a, b) => a + b, 0);
  const expected = holds ? sum : sum + 1 + random(5);
  if (runner === 'go') {
    return [
      `func ${testName}(t *testing.T) {`,
      `\tvalues := []int{${values.join(', ')}}`,
      '\ttotal := 0',
      '\tfor _, v := range values {',
      '\t\ttotal += v',
      '\t}',
      `\tif total != ${expected} {`,
      `\t\tt.Fatalf("total = %d, want ${expected}", total)`,
      '\t}',
      '}',
    ].join('\n');
  }
  if (runner === 'phpunit') {
    return [
      `    public function test${testName}(): void`,
      '    {',
      `        $values = [${values.join(', ')}];`,
      `        $this->assertSame(${expected}, array_sum($values));`,
      '    }',
    ].join('\n');
  }
  if (runner === 'tap') {
    // No assert module of its own: the file may name node:assert anything.
    return [
      `${where}(${JSON.stringify(testName)}, () => {`,
      `  const values = [${values.join(', ')}];`,
      '  let total = 0;',
      '  for (const value of values) total += value;',
      `  if (total !== ${expected}) throw new Error(\`total = \${total}, want ${expected}\`);`,
      '});',
    ].join('\n');
  }
  if (runner === 'gtest') {
    // Plain C++98 with no include of its own: it compiles under whatever flags the file does.
    return [
      `TEST(${where}, ${testName}) {`,
      `    const int values[] = {${values.join(', ')}};`,
      '    int total = 0;',
      `    for (int i = 0; i < ${values.length}; ++i) total += values[i];`,
      `    EXPECT_EQ(total, ${expected});`,
      '}',
    ].join('\n');
  }
  return ['#[test]', `fn ${testName}() {`, `    let values = [${values.join(', ')}];`, `    assert_eq!(values.iter().sum::<i64>(), ${expected});`, '}'].join('\n');
}

/** A copy's closing line. */
const CLOSING: Readonly<Record<LanguageRunner, string>> = { go: '}', cargo: '}', gtest: '}', tap: '});', phpunit: '    }' };

/** The name the runner's log gives a canary: PHPUnit's testdox title for test<Name>, the name itself elsewhere. */
function reported(runner: LanguageRunner, testName: string): string {
  return runner === 'phpunit' ? testdoxTitle(`test${testName}`)! : testName;
}

/** PHPUnit: the row's listed tests (`Suite > Title`) whose title one of the file's methods gives. */
function listedPhp(content: string, listed: readonly string[]): string[] {
  const titles = new Set(phpTitles(content));
  return listed.filter((n) => n.includes(' > ') && titles.has(n.slice(n.indexOf(' > ') + 3)));
}

/** node:test: the row's listed tests (`- title`, as parse_log_tap names them) whose title the file defines. */
function listedTitles(content: string, listed: readonly string[]): string[] {
  const titles = new Set(nodeTestTitles(content));
  return listed.filter((n) => n.startsWith('- ') && titles.has(n.slice(2)));
}

/** googletest: the row's listed tests (Suite.Name) defined in the file; canaries go only where there is one. */
function listedIn(content: string, listed: readonly string[]): string[] {
  return listed.filter((n) => {
    const [suite, test] = n.split('.');
    return suite !== undefined && test !== undefined && /^\w+$/.test(suite) && /^\w+$/.test(test) && new RegExp(`^TEST(_F)?\\(\\s*${suite}\\s*,\\s*${test}\\s*\\)`, 'm').test(content);
  });
}

/** At most this many of a file's FAIL_TO_PASS tests are mirrored (each gives up to three canaries). */
const MIRRORED_FAIL_TO_PASS = 4;

/** Canaries for each target file, placed among its tests (see placeBlocks). */
export function planLanguageCanaries(input: {
  runner: LanguageRunner;
  targets: ReadonlyArray<{ readonly path: string; readonly content: string }>;
  mustFail: boolean;
  /** The row's listed tests: the file's own ones among them are mirrored. */
  failToPass?: readonly string[];
  passToPass?: readonly string[];
  /** Names a canary must not take beyond the file's own (Go: the functions of the package's other files). */
  reserved?: ReadonlySet<string>;
  random?: (n: number) => number;
}): CanaryPlan {
  const random = input.random ?? ((n: number) => randomInt(n));
  const files = new Map<string, string>();
  const canaries: Canary[] = [];
  const listed = [...(input.failToPass ?? []), ...(input.passToPass ?? [])];
  for (const target of input.targets) {
    const vocabulary = words(input.runner, target.content);
    const taken = new Set<string>(input.reserved ?? []);
    const blocks: Block[] = [];
    const siblings = fileSiblings(input.runner, target.content, listed);
    if (siblings !== undefined && siblings.length === 0) continue;
    const suite = suiteOf(input.runner, siblings ?? [], random);
    const where = input.runner === 'tap' ? /^(test|it)\(/m.exec(target.content)![1]! : suite;
    const siblingFields = siblings ? { siblings } : {};
    for (const expect of input.mustFail ? (['PASSED', 'FAILED'] as const) : (['PASSED'] as const)) {
      const testName = name(input.runner, target.content, vocabulary, taken, random);
      canaries.push({ file: target.path, name: reported(input.runner, testName), expect, ...(suite ? { className: suite } : {}), ...siblingFields });
      blocks.push({ text: body(input.runner, testName, where, expect === 'PASSED', random) });
    }
    for (const original of mirrored(input.runner, target.content, input.failToPass ?? [], input.passToPass ?? [], random)) {
      const source = mirrorSource(input.runner, target.content, original)!;
      const copies: Array<{ expect: 'PASSED' | 'FAILED'; lines: readonly string[] | undefined }> = [
        { expect: 'PASSED', lines: source.body },
        { expect: 'FAILED', lines: input.mustFail ? invertedBody(input.runner, source) : undefined },
        { expect: 'FAILED', lines: input.mustFail ? mutatedBody(input.runner, source, random) : undefined },
      ];
      for (const copy of copies) {
        if (!copy.lines) continue;
        const testName = name(input.runner, target.content, vocabulary, taken, random);
        canaries.push({ file: target.path, name: reported(input.runner, testName), expect: copy.expect, mirrorOf: original, ...(source.suite ? { className: source.suite } : {}), ...siblingFields });
        blocks.push({ text: [...mirrorHeader(input.runner, testName, source), ...copy.lines, CLOSING[input.runner]].join('\n'), after: original });
      }
    }
    shuffle(blocks, random);
    files.set(target.path, placeBlocks(input.runner, target.content, blocks, random));
  }
  return { files, canaries };
}

/**
 * The row's listed tests a file defines, for the runners whose canaries count as missing only when
 * those reported (which sources a googletest binary holds is the build's; node:test runs a process
 * per file; PHPUnit a class): undefined for the others, where any other result means the file ran.
 */
function fileSiblings(runner: LanguageRunner, content: string, listed: readonly string[]): string[] | undefined {
  if (runner === 'gtest') return listedIn(content, listed);
  if (runner === 'tap') return listedTitles(content, listed);
  if (runner === 'phpunit') return listedPhp(content, listed);
  return undefined;
}

/** The suite a canary joins: a listed test's (googletest: a selection by suite keeps it in the run; PHPUnit: testdox's prefix). */
function suiteOf(runner: LanguageRunner, siblings: readonly string[], random: (n: number) => number): string {
  if (runner === 'gtest') return siblings[random(siblings.length)]!.split('.')[0]!;
  if (runner === 'phpunit') return siblings[0]!.slice(0, siblings[0]!.indexOf(' > '));
  return '';
}

/** A canary's text, and for a mirror the listed test it copies (it must run after that one). */
interface Block {
  readonly text: string;
  readonly after?: string;
}

/**
 * The file with the canaries in it. Go and Rust do not care where a function is defined, so each
 * canary goes after a random top-level item of the file (a `}` in the first column): appended in a
 * block, they would tell themselves from the originals by position alone. A copy goes after its
 * original, which so runs first, as without canaries (go test runs a file's tests in order: a copy
 * ahead of it could use up state it needs). C++ needs a name declared before its use (a fixture, a
 * helper), and a node:test test may run as soon as it is declared (before a `const` below it), so
 * there they follow the file's last line.
 */
function placeBlocks(runner: LanguageRunner, content: string, blocks: readonly Block[], random: (n: number) => number): string {
  const lines = content.replace(/\s*$/, '').split('\n');
  const ends = runner === 'gtest' || runner === 'tap' ? [] : lines.flatMap((line, i) => (line === '}' && startsItem(runner, lines.slice(i + 1).find((l) => l.trim() !== '')) ? [i] : []));
  const after = new Map<number, string[]>();
  for (const block of blocks) {
    const from = block.after === undefined ? -1 : definitionEnd(runner, lines, block.after);
    const allowed = ends.filter((i) => i >= from);
    const at = allowed.length > 0 ? allowed[random(allowed.length)]! : lines.length - 1;
    after.set(at, [...(after.get(at) ?? []), block.text]);
  }
  if (runner === 'phpunit') {
    // Members of the file's one TestCase class: before its closing brace.
    const close = lines.lastIndexOf('}');
    return `${[...lines.slice(0, close), ...blocks.flatMap((b) => ['', b.text]), ...lines.slice(close)].join('\n')}\n`;
  }
  const out: string[] = [];
  lines.forEach((line, i) => {
    out.push(line);
    for (const block of after.get(i) ?? []) out.push('', block);
  });
  return `${out.join('\n')}\n`;
}

/** The line closing a listed test's function (Go, Rust), or the file's end when it is not found. */
function definitionEnd(runner: LanguageRunner, lines: readonly string[], listed: string): number {
  const start = lines.findIndex((l) => (runner === 'go' ? l.startsWith(`func ${listed}(`) : l === `fn ${listed}() {`));
  const end = start < 0 ? -1 : lines.findIndex((l, i) => i > start && l === '}');
  return end < 0 ? lines.length - 1 : end;
}

/**
 * Whether the line after a first-column `}` starts a top-level item (or the file ends): then the
 * brace closed one. A `}` that opens a line of a multi-line raw string (golden JSON in a Go
 * backquote string) is followed by more of the string, and nothing may go there.
 */
function startsItem(runner: LanguageRunner, next: string | undefined): boolean {
  if (next === undefined) return true;
  if (runner === 'go') return /^(func |type |var |const |\/\/|\/\*)/.test(next);
  return /^(#!?\[|(pub(\([^)]*\))? )?(fn|mod|use|impl|struct|enum|const|static|type|trait|macro_rules!|extern|unsafe|async)\b|\/\/|\/\*)/.test(next);
}

/** The file's listed tests to mirror: its FAIL_TO_PASS ones (up to a few) and one PASS_TO_PASS one. */
function mirrored(runner: LanguageRunner, content: string, failToPass: readonly string[], passToPass: readonly string[], random: (n: number) => number): string[] {
  const shape = runner === 'gtest' ? /^\w+\.\w+$/ : runner === 'tap' ? /^- \S/ : runner === 'phpunit' ? / > \S/ : /^\w+$/;
  const usable = (names: readonly string[]): string[] => [...new Set(names)].filter((n) => shape.test(n) && mirrorSource(runner, content, n) !== undefined);
  const issue = usable(failToPass);
  shuffle(issue, random);
  const kept = usable(passToPass);
  return [...issue.slice(0, MIRRORED_FAIL_TO_PASS), ...(kept.length > 0 ? [kept[random(kept.length)]!] : [])];
}

function shuffle<T>(items: T[], random: (n: number) => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
