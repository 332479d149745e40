import { isMutableLiteral, mutateLiteral } from '../shared/literal-mutation.js';
import { closingParen, topLevelSplit } from '../shared/source-text.js';

/**
 * node:test files (`node --test`, read by parse_log_tap): where a test is, and its first top-level
 * `assert.*` check inverted or with its expected literal changed (see language-mirrors.ts for what
 * the copies pin down). A test is `test('title', () => {` (or `it`, async, `function ()`) at the
 * file's top level, closed by `});` in the first column.
 */

export interface NodeTest {
  readonly body: readonly string[];
  /** The test's call with its title as `%TITLE%`: the copy's header. */
  readonly header: string;
}

const OPPOSITE: Readonly<Record<string, string>> = {
  deepStrictEqual: 'notDeepStrictEqual',
  notDeepStrictEqual: 'deepStrictEqual',
  strictEqual: 'notStrictEqual',
  notStrictEqual: 'strictEqual',
  deepEqual: 'notDeepEqual',
  notDeepEqual: 'deepEqual',
  equal: 'notEqual',
  notEqual: 'equal',
};

/** The file's own titles (what the TAP lines name). */
export function nodeTestTitles(content: string): string[] {
  return [...content.matchAll(/^(?:test|it)\(\s*(['"`])((?:(?!\1)[^\\]|\\.)*)\1\s*,/gm)].map((m) => m[2]!);
}

export function nodeTestSource(content: string, title: string): NodeTest | undefined {
  const lines = content.split('\n');
  let header = '';
  const index = lines.findIndex((line) => {
    const m = /^((?:test|it)\(\s*)(['"`])((?:(?!\2)[^\\]|\\.)*)\2(\s*,\s*(?:async\s+)?(?:\(\s*\)\s*=>|function\s*\(\s*\))\s*\{\s*)$/.exec(
      line,
    );
    if (!m || m[3] !== title) return false;
    header = `${m[1]}%TITLE%${m[4]}`;
    return true;
  });
  if (index < 0) return undefined;
  const end = lines.findIndex((l, i) => i > index && /^\}\);?\s*$/.test(l));
  const body = lines.slice(index + 1, end < 0 ? index + 1 : end);
  // A test that reads its own name (t.name) behaves differently under another one.
  if (end < 0 || body.length === 0 || body.some((l) => /\bt\.name\b|\.fullName\b/.test(l))) return undefined;
  return { body, header };
}

/** The copy's header under another title. */
export function nodeTestHeader(source: NodeTest, title: string): string {
  return source.header.replace('%TITLE%', JSON.stringify(title));
}

/** A check at the body's own indentation: `assert.x(args);` (or `assert(args);`), its parts. */
function topCheck(
  line: string,
  body: readonly string[],
): { indent: string; object: string; method: string; args: string[]; rest: string } | undefined {
  const indent = /^(\s+)/.exec(body.find((l) => l.trim() !== '') ?? '')?.[1];
  const m = /^(\s+)(\w+)(?:\.(\w+))?\((.*);\s*$/.exec(line);
  if (!indent || !m || m[1] !== indent) return undefined;
  const close = closingParen(m[4]!, true);
  if (close === undefined) return undefined;
  const args = topLevelSplit(m[4]!.slice(0, close), ',', true);
  if (args === undefined || m[4]!.slice(close + 1).trim() !== '') return undefined;
  return { indent, object: m[2]!, method: m[3] ?? '', args, rest: m[4]!.slice(close) };
}

/** `assert.deepStrictEqual(a, b)` made `assert.notDeepStrictEqual(a, b)` and so on; `assert.ok(x)` made `assert.ok(!(x))`. */
export function invertNodeCheck(line: string, body: readonly string[]): string | undefined {
  const check = topCheck(line, body);
  if (!check || !/^assert/.test(check.object)) return undefined;
  const opposite = OPPOSITE[check.method];
  if (opposite) return `${check.indent}${check.object}.${opposite}(${check.args.join(',')}${check.rest};`;
  if ((check.method === 'ok' || check.method === '') && check.args.length >= 1) {
    const call = check.method ? `${check.object}.ok` : check.object;
    return `${check.indent}${call}(${[`!(${check.args[0]!.trim()})`, ...check.args.slice(1)].join(',')}${check.rest};`;
  }
  return undefined;
}

/** An equality check whose expected side is a literal (a number, a string, an array of them) gets another one. */
export function mutateNodeCheck(line: string, body: readonly string[], random: (n: number) => number): string | undefined {
  const check = topCheck(line, body);
  if (
    !check ||
    !/^assert/.test(check.object) ||
    !/^(deepStrictEqual|strictEqual|deepEqual|equal)$/.test(check.method) ||
    check.args.length < 2
  )
    return undefined;
  const index = isMutableLiteral(check.args[1]!, true) ? 1 : isMutableLiteral(check.args[0]!, true) ? 0 : -1;
  if (index < 0) return undefined;
  const changed = mutateLiteral(check.args[index]!, random, true);
  if (changed === undefined) return undefined;
  const args = check.args.map((a, k) => (k === index ? `${/^\s*/.exec(a)![0]}${changed}` : a));
  return `${check.indent}${check.object}.${check.method}(${args.join(',')}${check.rest};`;
}
