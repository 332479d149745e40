import type { CanaryText } from '../language.js';

/**
 * cargo canaries: a `#[test] fn` appended to a hidden integration test file under tests/ (a crate of
 * its own whose tests libtest names bare), after a random top-level item of the file.
 */
export const CARGO_CANARY_TEXT: CanaryText = {
  testNamePattern: /fn (\w+)\s*\(/g,
  nameWords: (testName) => testName.split('_'),
  wordShape: /^[A-Za-z][a-z0-9]{2,}$/,
  canaryName: (words, attempt) => (attempt >= 50 ? `${words.join('_')}_${attempt}` : words.join('_')),
  spelled: (name) => name,
  reported: (name) => name,
  canaryBody: (name, _where, values, expected) =>
    [
      '#[test]',
      `fn ${name}() {`,
      `    let values = [${values.join(', ')}];`,
      `    assert_eq!(values.iter().sum::<i64>(), ${expected});`,
      '}',
    ].join('\n'),
  closing: '}',
  suiteOf: () => '',
  where: (_content, suite) => suite,
  placement: {
    startsItem: (next) =>
      /^(#!?\[|(pub(\([^)]*\))? )?(fn|mod|use|impl|struct|enum|const|static|type|trait|macro_rules!|extern|unsafe|async)\b|\/\/|\/\*)/.test(
        next,
      ),
    definitionStart: (line, listed) => line === `fn ${listed}() {`,
  },
};
