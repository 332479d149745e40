import type { CanaryText } from '../language.js';
import { camel } from '../shared/test-copies.js';

/**
 * googletest canaries: a `TEST(Suite, Name)` in a listed test's suite (a selection by suite keeps it
 * in the run), after the file's last line (C++ needs a name declared before its use).
 */
export const GTEST_CANARY_TEXT: CanaryText = {
  testNamePattern: /^TEST(?:_F)?\(\s*\w+\s*,\s*(\w+)\s*\)/gm,
  nameWords: (testName) => testName.split(/(?=[A-Z])|_/),
  wordShape: /^[A-Za-z][a-z0-9]{2,}$/,
  canaryName: (words, attempt) => (attempt >= 50 ? `${camel(words)}${attempt}` : camel(words)),
  spelled: (name) => name,
  reported: (name) => name,
  // Plain C++98 with no include of its own: it compiles under whatever flags the file does.
  canaryBody: (name, where, values, expected) =>
    [
      `TEST(${where}, ${name}) {`,
      `    const int values[] = {${values.join(', ')}};`,
      '    int total = 0;',
      `    for (int i = 0; i < ${values.length}; ++i) total += values[i];`,
      `    EXPECT_EQ(total, ${expected});`,
      '}',
    ].join('\n'),
  closing: '}',
  // Which sources a googletest binary holds is the build's: canaries go only where a listed test (Suite.Name) is defined.
  fileSiblings: (content, listed) =>
    listed.filter((n) => {
      const [suite, test] = n.split('.');
      return (
        suite !== undefined &&
        test !== undefined &&
        /^\w+$/.test(suite) &&
        /^\w+$/.test(test) &&
        new RegExp(`^TEST(_F)?\\(\\s*${suite}\\s*,\\s*${test}\\s*\\)`, 'm').test(content)
      );
    }),
  suiteOf: (siblings, random) => siblings[random(siblings.length)]!.split('.')[0]!,
  where: (_content, suite) => suite,
};
