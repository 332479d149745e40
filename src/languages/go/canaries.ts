import type { CanaryText } from '../language.js';
import { camel } from '../shared/test-copies.js';

/**
 * `go test` canaries: a `func TestX(t *testing.T)` appended to a hidden `_test.go` file, same
 * package, same imports, after a random top-level item of the file.
 */
export const GO_CANARY_TEXT: CanaryText = {
  testNamePattern: /func Test(\w+)\s*\(/g,
  nameWords: (testName) => testName.split(/(?=[A-Z])|_/),
  wordShape: /^[A-Za-z][a-z0-9]{2,}$/,
  canaryName: (words, attempt) => (attempt >= 50 ? `Test${camel(words)}${attempt}` : `Test${camel(words)}`),
  spelled: (name) => name,
  reported: (name) => name,
  canaryBody: (name, _where, values, expected) =>
    [
      `func ${name}(t *testing.T) {`,
      `\tvalues := []int{${values.join(', ')}}`,
      '\ttotal := 0',
      '\tfor _, v := range values {',
      '\t\ttotal += v',
      '\t}',
      `\tif total != ${expected} {`,
      `\t\tt.Fatalf("total = %d, want ${expected}", total)`,
      '\t}',
      '}',
    ].join('\n'),
  closing: '}',
  suiteOf: () => '',
  where: (_content, suite) => suite,
  placement: {
    // A `}` opening a line of a multi-line raw string (golden JSON in a backquote string) is followed by more of the string.
    startsItem: (next) => /^(func |type |var |const |\/\/|\/\*)/.test(next),
    definitionStart: (line, listed) => line.startsWith(`func ${listed}(`),
  },
};
