import type { CanaryText, MirrorText } from '../language.js';
import { invertNodeCheck, mutateNodeCheck, nodeTestHeader, nodeTestSource, nodeTestTitles } from './node-test-mirrors.js';

/**
 * node:test canaries: a `test(...)` (or `it`, as the file declares its tests) after the file's last
 * line (a test may run as soon as it is declared, before a `const` below it). node:test runs a
 * process per file: the file ran when one of its listed tests (`- title`) reported.
 */
export const TAP_CANARY_TEXT: CanaryText = {
  testNamePattern: /^(?:test|it)\(\s*['"`]([^'"`]+)['"`]/gm,
  nameWords: (testName) => testName.split(/\s+/),
  wordShape: /^[A-Za-z][a-z0-9]{2,}$/,
  canaryName: (words, attempt) => (attempt >= 50 ? `${words.join(' ')} ${attempt}` : words.join(' ')),
  spelled: (name) => name,
  reported: (name) => name,
  // No assert module of its own: the file may name node:assert anything.
  canaryBody: (name, where, values, expected) =>
    [
      `${where}(${JSON.stringify(name)}, () => {`,
      `  const values = [${values.join(', ')}];`,
      '  let total = 0;',
      '  for (const value of values) total += value;',
      `  if (total !== ${expected}) throw new Error(\`total = \${total}, want ${expected}\`);`,
      '});',
    ].join('\n'),
  closing: '});',
  fileSiblings: (content, listed) => {
    const titles = new Set(nodeTestTitles(content));
    return listed.filter((n) => n.startsWith('- ') && titles.has(n.slice(2)));
  },
  suiteOf: () => '',
  where: (content) => /^(test|it)\(/m.exec(content)![1]!,
};

export const TAP_MIRRORS: MirrorText = {
  listedShape: /^- \S/,
  mirrorSource: (content, name) => {
    const test = name.startsWith('- ') ? nodeTestSource(content, name.slice(2)) : undefined;
    return test && { body: test.body, param: '', header: test.header };
  },
  mirrorHeader: (name, source) => [nodeTestHeader({ body: source.body, header: source.header! }, name)],
  invertCheck: (body, i) => invertNodeCheck(body[i]!, body),
  mutateCheck: (body, i, _source, random) => mutateNodeCheck(body[i]!, body, random),
};
