import type { MirrorSource, MirrorText } from '../language.js';
import { isMutableLiteral, mutateLiteral } from '../shared/literal-mutation.js';
import { blanked, topLevelSplit } from '../shared/source-text.js';
import { bracedBody } from '../shared/test-copies.js';

/**
 * Go's mirrors: a plain `func TestX(t *testing.T)` copied; its first top-level `if COND {` whose
 * block fails the test becomes `if !(COND) {`, or has the literal of a `!=` term changed.
 */
export const GO_MIRRORS: MirrorText = {
  listedShape: /^\w+$/,
  mirrorSource,
  mirrorHeader: (name, source) => [`func ${name}(${source.param} *testing.T) {`],
  invertCheck: (body, i, source) => invertGoIf(body, i, source.param),
  mutateCheck: (body, i, source, random) => mutateGoIf(body, i, source.param, random),
  leavesEarly: (line, param) => new RegExp(`\\b${param}\\.(Skip|SkipNow|Skipf)\\(`).test(line),
};

function mirrorSource(content: string, name: string): MirrorSource | undefined {
  const lines = content.split('\n');
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const index = lines.findIndex((l) => new RegExp(`^func ${escaped}\\((\\w+) \\*testing\\.T\\) \\{\\s*$`).test(l));
  const param = index >= 0 ? new RegExp(`^func ${escaped}\\((\\w+) `).exec(lines[index]!)![1]! : '';
  // A doc comment is fine; a build constraint or directive right above is not the test's alone.
  if (index > 0 && /^\/\/go:/.test(lines[index - 1]!)) return undefined;
  return bracedBody(lines, index, param, (line) => line.includes(`${param}.Name()`));
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

function invertGoIf(body: readonly string[], i: number, param: string): string | undefined {
  const found = goFailingIf(body, i, param);
  return found && `\tif ${found.init}!(${found.cond}) {`;
}

/**
 * In a failing if's condition made of `||` terms (a passing test had each false), a term
 * `EXPR != LITERAL` (or reversed) with nothing else at its top level gets another literal: the
 * value equalled the old one, so the term is true and the copy fails.
 */
function mutateGoIf(body: readonly string[], i: number, param: string, random: (n: number) => number): string | undefined {
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
    const mutated = isMutableLiteral(right)
      ? `${left.trimEnd()} != ${mutateLiteral(right, random)}`
      : isMutableLiteral(left)
        ? `${mutateLiteral(left, random)} != ${right.trimStart()}`
        : undefined;
    if (mutated === undefined || mutated.includes('undefined')) continue;
    const kept = disjuncts.map((t, k) => (k === d ? ` ${mutated.trim()} ` : t));
    return `\tif ${found.init}${kept.join('||').trim()} {`;
  }
  return undefined;
}
