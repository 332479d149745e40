import type { CanaryText, MirrorText } from '../language.js';
import { camel } from '../shared/test-copies.js';
import { invertPhpCheck, mutatePhpCheck, phpTestSource, phpTitles, testdoxTitle } from './phpunit-mirrors.js';

/**
 * PHPUnit canaries: `test<Name>` methods of the file's one TestCase class, before its closing brace,
 * reported by testdox as `Suite > Title`. The file ran when one of its listed tests reported.
 */
export const PHPUNIT_CANARY_TEXT: CanaryText = {
  testNamePattern: /public function test(\w+)\(/g,
  nameWords: (testName) => testName.split(/(?=[A-Z])|_/),
  // testdox titles only plain words: a digit in a PHPUnit canary's name would be spelled otherwise.
  wordShape: /^[A-Za-z][a-z]{2,}$/,
  canaryName: (words, attempt) => (attempt >= 50 ? `${camel(words)}${'Z'.repeat(Math.max(0, attempt - 49))}` : camel(words)),
  // The method is test<Name>, and a name is taken when that method is.
  spelled: (name) => `test${name}`,
  reported: (name) => testdoxTitle(`test${name}`)!,
  canaryBody: (name, _where, values, expected) =>
    [
      `    public function test${name}(): void`,
      '    {',
      `        $values = [${values.join(', ')}];`,
      `        $this->assertSame(${expected}, array_sum($values));`,
      '    }',
    ].join('\n'),
  closing: '    }',
  // The row's listed tests (`Suite > Title`) whose title one of the file's methods gives.
  fileSiblings: (content, listed) => {
    const titles = new Set(phpTitles(content));
    return listed.filter((n) => n.includes(' > ') && titles.has(n.slice(n.indexOf(' > ') + 3)));
  },
  suiteOf: (siblings) => siblings[0]!.slice(0, siblings[0]!.indexOf(' > ')),
  where: (_content, suite) => suite,
  placement: 'class',
};

export const PHPUNIT_MIRRORS: MirrorText = {
  listedShape: / > \S/,
  mirrorSource: (content, name) => {
    const separator = name.indexOf(' > ');
    const test = separator > 0 ? phpTestSource(content, name.slice(separator + 3)) : undefined;
    return test && { body: test.body, param: test.method, suite: name.slice(0, separator), header: test.header.join('\n') };
  },
  // PHPUnit runs the methods named test<Name>: a canary's name is the rest.
  mirrorHeader: (name, source) => source.header!.replace('%NAME%', `test${name}`).split('\n'),
  invertCheck: (body, i) => invertPhpCheck(body[i]!),
  mutateCheck: (body, i, _source, random) => mutatePhpCheck(body[i]!, random),
};
