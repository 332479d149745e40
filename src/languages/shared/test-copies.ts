import type { MirrorSource } from '../language.js';
import { mutateLiteral } from './literal-mutation.js';
import { closingParen, topLevelSplit } from './source-text.js';

/** Canary names and test copies, as several runners write them alike. */

/** Words joined in camel case (`value`, `order` -> `ValueOrder`). */
export function camel(words: readonly string[]): string {
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * The body of the test whose header is line `index`, up to the first `}` in the first column: not
 * when there is none, when it is empty, or when a line reads the test's own name (a copy's differs).
 */
export function bracedBody(
  lines: readonly string[],
  index: number,
  param: string,
  readsOwnName: (line: string) => boolean,
): MirrorSource | undefined {
  if (index < 0) return undefined;
  const end = lines.findIndex((l, i) => i > index && l === '}');
  if (end < 0) return undefined;
  const body = lines.slice(index + 1, end);
  if (body.length === 0 || body.some(readsOwnName)) return undefined;
  return { body, param };
}

/**
 * An equality macro at the body's top level with one side a literal (cargo's `assert_eq!(a, b)`,
 * googletest's `EXPECT_EQ`/`ASSERT_EQ`/`*_STREQ`), that literal changed: `indent` is the body's,
 * `pattern` gives the indent, the macro and its arguments, `bang` follows the macro's name.
 */
export function mutateEqualityMacro(
  line: string,
  shape: { indent: string | undefined; pattern: RegExp; bang: string; usable: (arg: string) => boolean },
  random: (n: number) => number,
): string | undefined {
  const m = shape.pattern.exec(line);
  if (!shape.indent || !m || m[1] !== shape.indent) return undefined;
  const close = closingParen(m[3]!);
  if (close === undefined) return undefined;
  const args = topLevelSplit(m[3]!.slice(0, close), ',');
  if (args === undefined || args.length < 2) return undefined;
  const index = shape.usable(args[1]!) ? 1 : shape.usable(args[0]!) ? 0 : -1;
  if (index < 0) return undefined;
  const changed = mutateLiteral(args[index]!, random);
  if (changed === undefined) return undefined;
  const kept = args.map((a, k) => (k === index ? `${/^\s*/.exec(a)![0]}${changed}` : a));
  return `${shape.indent}${m[2]}${shape.bang}(${kept.join(',')}${m[3]!.slice(close)};`;
}
