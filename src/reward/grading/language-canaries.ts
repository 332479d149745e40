import { randomInt } from 'node:crypto';
import type { Canary, CanaryPlan } from './canaries.js';
import { invertedBody, mirrorHeader, mirrorSource, mutatedBody } from './language-mirrors.js';
import { canaryRunner, type CanaryBlock, type LanguageRunner } from '../../languages/index.js';
import { canaryWords } from './canary-words.js';

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

function words(runner: LanguageRunner, content: string): string[] {
  const text = canaryRunner(runner);
  const found = new Set<string>();
  for (const m of content.matchAll(text.testNamePattern)) {
    for (const w of text.nameWords(m[1]!)) if (text.wordShape.test(w)) found.add(w.toLowerCase());
  }
  return canaryWords(found);
}

function name(
  runner: LanguageRunner,
  content: string,
  vocabulary: readonly string[],
  taken: Set<string>,
  random: (n: number) => number,
): string {
  const text = canaryRunner(runner);
  for (let attempt = 0; ; attempt++) {
    const parts = Array.from({ length: 2 + random(2) }, () => vocabulary[random(vocabulary.length)]!);
    const candidate = text.canaryName(parts, attempt);
    if (!taken.has(candidate) && !new RegExp(`\\b${text.spelled(candidate)}\\b`).test(content)) {
      taken.add(candidate);
      return candidate;
    }
  }
}

/** A test that sums a few numbers and checks the sum, right or wrong as asked; `where`: googletest's suite, node:test's test function (test or it). */
function body(runner: LanguageRunner, testName: string, where: string, holds: boolean, random: (n: number) => number): string {
  const values = Array.from({ length: 3 + random(3) }, () => 1 + random(40));
  const sum = values.reduce((a, b) => a + b, 0);
  const expected = holds ? sum : sum + 1 + random(5);
  return canaryRunner(runner).canaryBody(testName, where, values, expected);
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
  /** False: no copies of listed tests, only synthetic canaries (a task where the copies change what listed tests see). */
  mirrors?: boolean;
  random?: (n: number) => number;
}): CanaryPlan {
  const random = input.random ?? ((n: number) => randomInt(n));
  const text = canaryRunner(input.runner);
  const files = new Map<string, string>();
  const canaries: Canary[] = [];
  const listed = [...(input.failToPass ?? []), ...(input.passToPass ?? [])];
  for (const target of input.targets) {
    const vocabulary = words(input.runner, target.content);
    const taken = new Set<string>(input.reserved ?? []);
    const blocks: Block[] = [];
    const siblings = text.fileSiblings?.(target.content, listed);
    if (siblings !== undefined && siblings.length === 0) continue;
    const suite = text.suiteOf(siblings ?? [], random);
    const where = text.where(target.content, suite);
    const siblingFields = siblings ? { siblings } : {};
    for (const expect of input.mustFail ? (['PASSED', 'FAILED'] as const) : (['PASSED'] as const)) {
      const testName = name(input.runner, target.content, vocabulary, taken, random);
      canaries.push({ file: target.path, name: text.reported(testName), expect, ...(suite ? { className: suite } : {}), ...siblingFields });
      blocks.push({ text: body(input.runner, testName, where, expect === 'PASSED', random) });
    }
    const originals =
      input.mirrors === false ? [] : mirrored(input.runner, target.content, input.failToPass ?? [], input.passToPass ?? [], random);
    for (const original of originals) {
      const source = mirrorSource(input.runner, target.content, original)!;
      const copies: Array<{ expect: 'PASSED' | 'FAILED'; lines: readonly string[] | undefined }> = [
        { expect: 'PASSED', lines: source.body },
        { expect: 'FAILED', lines: input.mustFail ? invertedBody(input.runner, source) : undefined },
        { expect: 'FAILED', lines: input.mustFail ? mutatedBody(input.runner, source, random) : undefined },
      ];
      for (const copy of copies) {
        if (!copy.lines) continue;
        const testName = name(input.runner, target.content, vocabulary, taken, random);
        canaries.push({
          file: target.path,
          name: text.reported(testName),
          expect: copy.expect,
          mirrorOf: original,
          ...(source.suite ? { className: source.suite } : {}),
          ...siblingFields,
        });
        blocks.push({ text: [...mirrorHeader(input.runner, testName, source), ...copy.lines, text.closing].join('\n'), after: original });
      }
    }
    shuffle(blocks, random);
    files.set(
      target.path,
      text.place ? text.place(target.content, blocks, siblings ?? [], random) : placeBlocks(input.runner, target.content, blocks, random),
    );
  }
  return { files, canaries };
}

type Block = CanaryBlock;

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
  const placement = canaryRunner(runner).placement;
  const items = typeof placement === 'object' ? placement : undefined;
  const ends = items
    ? lines.flatMap((line, i) =>
        line === '}' &&
        startsItem(
          items.startsItem,
          lines.slice(i + 1).find((l) => l.trim() !== ''),
        )
          ? [i]
          : [],
      )
    : [];
  const after = new Map<number, string[]>();
  for (const block of blocks) {
    const from = block.after === undefined || !items ? -1 : definitionEnd(items.definitionStart, lines, block.after);
    const allowed = ends.filter((i) => i >= from);
    const at = allowed.length > 0 ? allowed[random(allowed.length)]! : lines.length - 1;
    after.set(at, [...(after.get(at) ?? []), block.text]);
  }
  if (placement === 'class') {
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
function definitionEnd(definitionStart: (line: string, listed: string) => boolean, lines: readonly string[], listed: string): number {
  const start = lines.findIndex((l) => definitionStart(l, listed));
  const end = start < 0 ? -1 : lines.findIndex((l, i) => i > start && l === '}');
  return end < 0 ? lines.length - 1 : end;
}

/**
 * Whether the line after a first-column `}` starts a top-level item (or the file ends): then the
 * brace closed one. A `}` that opens a line of a multi-line raw string (golden JSON in a Go
 * backquote string) is followed by more of the string, and nothing may go there.
 */
function startsItem(starts: (next: string) => boolean, next: string | undefined): boolean {
  return next === undefined || starts(next);
}

/** The file's listed tests to mirror: its FAIL_TO_PASS ones (up to a few) and one PASS_TO_PASS one. */
function mirrored(
  runner: LanguageRunner,
  content: string,
  failToPass: readonly string[],
  passToPass: readonly string[],
  random: (n: number) => number,
): string[] {
  const shape = canaryRunner(runner).listedShape;
  const usable = (names: readonly string[]): string[] =>
    [...new Set(names)].filter((n) => shape.test(n) && mirrorSource(runner, content, n) !== undefined);
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
