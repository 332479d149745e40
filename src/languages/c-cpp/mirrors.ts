import type { MirrorSource, MirrorText } from '../language.js';
import { isMutableLiteral } from '../shared/literal-mutation.js';
import { closingParen, topLevelSplit } from '../shared/source-text.js';
import { bracedBody, mutateEqualityMacro } from '../shared/test-copies.js';

/**
 * googletest's mirrors: a `TEST`/`TEST_F` copied in its suite; its first check at the body's own
 * indentation inverted (`EXPECT_EQ(a, b)` made `EXPECT_FALSE((a) == (b))`), or the literal of an
 * `EXPECT_EQ`/`*_STREQ` changed.
 */
export const GTEST_MIRRORS: MirrorText = {
  listedShape: /^\w+\.\w+$/,
  mirrorSource,
  mirrorHeader: (name, source) => [`${source.param}(${source.suite!}, ${name}) {`],
  invertCheck: (body, i) => invertGtestCheck(body[i]!, body),
  mutateCheck: (body, i, _source, random) =>
    mutateEqualityMacro(
      body[i]!,
      {
        indent: /^(\s+)/.exec(body.find((l) => l.trim() !== '') ?? '')?.[1],
        pattern: /^(\s+)((?:EXPECT|ASSERT)_(?:EQ|STREQ))\((.*);\s*$/,
        bang: '',
        // C++'s 0 may be a null pointer constant: another number would not compile against a pointer.
        usable: (arg) => isMutableLiteral(arg) && !/^0[uUlL]*$/.test(arg.trim()),
      },
      random,
    ),
};

function mirrorSource(content: string, name: string): MirrorSource | undefined {
  const lines = content.split('\n');
  const [suite, test] = name.split('.');
  if (!suite || !test) return undefined;
  const index = lines.findIndex((l) => new RegExp(`^(TEST|TEST_F)\\(\\s*${suite}\\s*,\\s*${test}\\s*\\)\\s*\\{\\s*$`).test(l));
  const source = bracedBody(lines, index, '', (line) => /current_test_info|test_info_|\b__LINE__\b|RecordProperty/.test(line));
  return source && { body: source.body, param: /^(TEST_F|TEST)/.exec(lines[index]!)![1]!, suite };
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

/** The first check at the body's own indentation, inverted (a message streamed after it kept). */
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
