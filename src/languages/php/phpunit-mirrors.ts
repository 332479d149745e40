import { isMutableLiteral, mutateLiteral } from '../shared/literal-mutation.js';
import { closingParen, topLevelSplit } from '../shared/source-text.js';

/**
 * PHPUnit test classes (`phpunit --testdox`, read by parse_log_phpunit as `Suite > Title`): a
 * test is a `public function testWords(): void` method of the file's one TestCase class, its title
 * the method name as testdox prettifies it. The copies' checks are `$this->assert*` calls at the
 * body's top level (see language-mirrors.ts for what they pin down).
 */

export interface PhpTest {
  readonly method: string;
  readonly body: readonly string[];
  /** The method's header with its name as `%NAME%`, and its opening brace line. */
  readonly header: readonly string[];
}

/** testdox's title for a plain camel-case method name (`testKeepsDigits` -> `Keeps digits`); undefined for names it spells otherwise. */
export function testdoxTitle(method: string): string | undefined {
  const m = /^test([A-Z][a-z]*(?:[A-Z][a-z]*)*)$/.exec(method);
  if (!m) return undefined;
  const words = m[1]!.split(/(?=[A-Z])/).map((w) => w.toLowerCase());
  return words.map((w, i) => (i === 0 ? w[0]!.toUpperCase() + w.slice(1) : w)).join(' ');
}

/** Whether the file is one TestCase class whose tests swe-env can add to. */
export function phpunitFile(content: string): boolean {
  return (
    (content.match(/^(final\s+|abstract\s+)*class\s+\w+\s+extends\s+[\w\\]*TestCase\b/gm) ?? []).length === 1 &&
    /^\}\s*$/m.test(content) &&
    /public function test\w*\(/.test(content)
  );
}

/** The file's test methods with a title testdox gives as it is spelled here. */
export function phpTitles(content: string): string[] {
  return [...content.matchAll(/^ {4}public function (test\w+)\(\)(?:: void)?\s*$/gm)].flatMap((m) => testdoxTitle(m[1]!) ?? []);
}

export function phpTestSource(content: string, title: string): PhpTest | undefined {
  const lines = content.split('\n');
  const index = lines.findIndex((l) => {
    const m = /^ {4}public function (test\w+)\(\)(?:: void)?\s*$/.exec(l);
    return m !== null && testdoxTitle(m[1]!) === title;
  });
  if (index < 0 || lines[index + 1] !== '    {') return undefined;
  const end = lines.findIndex((l, i) => i > index + 1 && l === '    }');
  // Another annotation or attribute above it (@dataProvider, #[Depends]) is not the copy's.
  const above = lines[index - 1]?.trim() ?? '';
  if (end < 0 || above.startsWith('#[') || above.endsWith('*/') || above.startsWith('*')) return undefined;
  const body = lines.slice(index + 2, end);
  if (
    body.length === 0 ||
    body.some((l) => /\$this->(getName|name|getTestResultObject|dataName)\(/.test(l) || /__FUNCTION__|__METHOD__|__LINE__/.test(l))
  )
    return undefined;
  const method = /public function (test\w+)\(/.exec(lines[index]!)![1]!;
  return { method, body, header: [lines[index]!.replace(method, '%NAME%'), lines[index + 1]!] };
}

const OPPOSITE: Readonly<Record<string, string>> = {
  assertSame: 'assertNotSame',
  assertNotSame: 'assertSame',
  assertEquals: 'assertNotEquals',
  assertNotEquals: 'assertEquals',
  assertTrue: 'assertFalse',
  assertFalse: 'assertTrue',
  assertNull: 'assertNotNull',
  assertNotNull: 'assertNull',
  assertCount: 'assertNotCount',
  assertNotCount: 'assertCount',
  assertContains: 'assertNotContains',
  assertNotContains: 'assertContains',
};

function topCheck(line: string): { method: string; args: string[]; rest: string } | undefined {
  const m = /^ {8}\$this->(assert\w+)\((.*);\s*$/.exec(line);
  if (!m) return undefined;
  const close = closingParen(m[2]!, true);
  if (close === undefined || m[2]!.slice(close + 1).trim() !== '') return undefined;
  const args = topLevelSplit(m[2]!.slice(0, close), ',', true);
  return args && { method: m[1]!, args, rest: m[2]!.slice(close) };
}

/** `$this->assertSame(a, b)` made `$this->assertNotSame(a, b)`, and so on. */
export function invertPhpCheck(line: string): string | undefined {
  const check = topCheck(line);
  const opposite = check && OPPOSITE[check.method];
  return opposite ? `        $this->${opposite}(${check.args.join(',')}${check.rest};` : undefined;
}

/** `assertSame`/`assertEquals` whose expected value (the first argument) is a literal, with another one. */
export function mutatePhpCheck(line: string, random: (n: number) => number): string | undefined {
  const check = topCheck(line);
  if (!check || !/^assert(Same|Equals)$/.test(check.method) || check.args.length < 2 || !isMutableLiteral(check.args[0]!, true))
    return undefined;
  // A double-quoted PHP string interpolates: a letter next to a `$name` would name another variable.
  if (/^\s*"/.test(check.args[0]!) && check.args[0]!.includes('$')) return undefined;
  const changed = mutateLiteral(check.args[0]!, random, true);
  if (changed === undefined) return undefined;
  return `        $this->${check.method}(${[changed, ...check.args.slice(1)].join(',')}${check.rest};`;
}
