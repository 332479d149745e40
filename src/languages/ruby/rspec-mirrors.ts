import { isMutableLiteral, mutateLiteral } from '../shared/literal-mutation.js';
import { closingParen } from '../shared/source-text.js';
import type { CanaryBlock } from '../language.js';

/**
 * RSpec spec files (`rspec --format json` turned into `<description> - <status>` lines by the
 * harness's jq, read by parse_log_rspec_transformed_json). An example swe-env copies, or places a
 * canary beside, is a plain `it '<description>' do` whose `end` closes it at the same indentation,
 * its description given once in the file (the log names an example by its description alone).
 * Whatever goes beside it joins its example group, so it sees the same `let`, `subject` and hooks
 * the listed example passes with, and runs after it in RSpec's defined order. Copies are kept with
 * their text shifted to two spaces (`it`) and four (its body), and shifted back where they go; the
 * copies' checks are `expect(...).to <matcher>` lines at the body's top level (see
 * language-mirrors.ts for what they pin down).
 */

export interface RspecExample {
  /** The body, shifted so that its top level is four spaces in. */
  readonly body: readonly string[];
  /** The example's first line, two spaces in, with its description as `%NAME%`. */
  readonly header: string;
}

interface Located {
  readonly start: number;
  readonly end: number;
  readonly indent: string;
}

const EXAMPLE = /^(\s*)it (['"])([^'"#\\\n]+)\2(,[^\n|]*)? do\s*$/;

/** The descriptions of the file's plain examples, each once per place it is given. */
function descriptions(lines: readonly string[]): string[] {
  return lines.flatMap((l) => EXAMPLE.exec(l)?.[3] ?? []);
}

/** Where the example with this description starts and ends, when it is plain and given once. */
function locate(lines: readonly string[], description: string): Located | undefined {
  if (descriptions(lines).filter((d) => d === description).length !== 1) return undefined;
  const start = lines.findIndex((l) => EXAMPLE.exec(l)?.[3] === description);
  const indent = EXAMPLE.exec(lines[start]!)![1]!;
  const end = lines.findIndex((l, i) => i > start && l === `${indent}end`);
  if (end < 0) return undefined;
  // Every line between is the body's, further in (or blank): else the `end` found is another's.
  if (lines.slice(start + 1, end).some((l) => l.trim() !== '' && !l.startsWith(`${indent}  `))) return undefined;
  return { start, end, indent };
}

/** Whether the file has plain examples swe-env can read. */
export function rspecFile(content: string): boolean {
  return descriptions(content.split('\n')).length > 0;
}

/** The listed examples of the file a canary can go beside (see locate). */
export function rspecAnchors(content: string, listed: readonly string[]): string[] {
  const lines = content.split('\n');
  return listed.filter((name) => locate(lines, name) !== undefined);
}

export function rspecExample(content: string, description: string): RspecExample | undefined {
  const lines = content.split('\n');
  const found = locate(lines, description);
  if (!found) return undefined;
  const body = lines.slice(found.start + 1, found.end);
  // A body that asks for its own example (its description, its line) would tell a copy from it; a
  // heredoc other than `<<~` keeps its indentation, which the shift below would change.
  if (
    body.length === 0 ||
    body.some((l) => /\b(example|RSpec\.current_example|__LINE__|__method__|caller)\b|<<[-A-Z_'"]/.test(l)) ||
    body.every((l) => l.trim() === '')
  )
    return undefined;
  const shift = found.indent.length - 2;
  return {
    body: body.map((l) => (l.trim() === '' ? '' : shifted(l, -shift))),
    header: shifted(lines[found.start]!, -shift).replace(description, '%NAME%'),
  };
}

function shifted(line: string, by: number): string {
  return by >= 0 ? `${' '.repeat(by)}${line}` : line.slice(-by);
}

/**
 * Ends a file with canaries: a run stopped at its first failure (`--fail-fast` in `.rspec`,
 * `config.fail_fast` in a helper, which the command does not show) would stop at a must-fail canary
 * and leave the listed examples after it unreported. `force` sets it as the command line does, over
 * both (a setter would yield to `.rspec`'s option). `force` is rspec-core's own (private) entry for
 * the command line's options: an RSpec without it keeps its configuration, and the file still loads.
 */
export const RSPEC_NO_FAIL_FAST = 'RSpec.configuration.force(fail_fast: false) if RSpec.configuration.respond_to?(:force)';

/**
 * The last line of the block holding the example (its group, or a loop defining it) before the
 * block's own `end` (or `}`) one level out; the example's own `end` when that line is anything else
 * (a heredoc's text, a string's). A copy there runs after every example of its group: state the
 * group's examples share (an array made in `before(:all)`, a class's counter) is left as the listed
 * examples read it, and a copy that disagrees for it is a mirror flag the gold patch's reference
 * sets aside, where a listed example made to fail would be the run's 0 under any fix.
 */
function groupLast(lines: readonly string[], found: Located): number {
  const close = lines.findIndex((l, i) => i > found.end && l.trim() !== '' && !l.startsWith(found.indent));
  if (close < 0 || found.indent.length < 2) return found.end;
  const closer = `${found.indent.slice(2)}`;
  if (!new RegExp(`^${closer}(end|\\})\\s*(#.*)?$`).test(lines[close]!)) return found.end;
  let last = close - 1;
  while (last > found.end && lines[last]!.trim() === '') last--;
  return last;
}

/**
 * The file with each block beside a listed example: a synthetic canary right after a random
 * anchor's `end`, a copy at the end of its original's group (groupLast), each shifted to that
 * example's indentation; then RSPEC_NO_FAIL_FAST, before `__END__` when the file has data.
 */
export function placeRspecBlocks(
  content: string,
  blocks: readonly CanaryBlock[],
  anchors: readonly string[],
  random: (n: number) => number,
): string {
  const lines = content.replace(/\s*$/, '').split('\n');
  const after = new Map<number, string[]>();
  for (const block of blocks) {
    const found = locate(lines, block.after ?? anchors[random(anchors.length)]!)!;
    const at = block.after === undefined ? found.end : groupLast(lines, found);
    const text = block.text
      .split('\n')
      .map((l) => (l.trim() === '' ? '' : shifted(l, found.indent.length - 2)))
      .join('\n');
    after.set(at, [...(after.get(at) ?? []), text]);
  }
  const data = lines.indexOf('__END__');
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (i === data) out.push(RSPEC_NO_FAIL_FAST, '');
    out.push(line);
    for (const text of after.get(i) ?? []) out.push('', text);
  });
  return `${(data < 0 ? [...out, '', RSPEC_NO_FAIL_FAST] : out).join('\n')}\n`;
}

/** `expect(actual).to matcher` at the body's top level: the actual's text and what follows it. */
function topCheck(line: string): { actual: string; negated: boolean; matcher: string } | undefined {
  const m = /^ {4}expect\((.*)$/.exec(line);
  if (!m) return undefined;
  const close = closingParen(m[1]!, true);
  if (close === undefined) return undefined;
  const rest = /^\)\.(to|not_to|to_not) (.+)$/.exec(m[1]!.slice(close));
  return rest ? { actual: m[1]!.slice(0, close), negated: rest[1] !== 'to', matcher: rest[2]! } : undefined;
}

/** `.to` made `.not_to` and back. */
export function invertRspecCheck(line: string): string | undefined {
  const check = topCheck(line);
  return check && `    expect(${check.actual}).${check.negated ? 'to' : 'not_to'} ${check.matcher}`;
}

/** `.to eq(literal)` (or `eql`) with another literal: a plain number, a string, an array of them. */
export function mutateRspecCheck(line: string, random: (n: number) => number): string | undefined {
  const check = topCheck(line);
  const m = check && !check.negated ? /^(eq|eql)\((.*)\)\s*$/.exec(check.matcher) : null;
  if (!check || !m || closingParen(`${m[2]!})`, true) !== m[2]!.length) return undefined;
  // A double-quoted Ruby string interpolates (`#{...}`): a letter added there could break the file.
  if (m[2]!.includes('#') || !isMutableLiteral(m[2]!, true)) return undefined;
  const changed = mutateLiteral(m[2]!, random, true);
  return changed && `    expect(${check.actual}).to ${m[1]}(${changed})`;
}
