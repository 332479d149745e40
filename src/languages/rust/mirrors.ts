import type { MirrorSource, MirrorText } from '../language.js';
import { isMutableLiteral } from '../shared/literal-mutation.js';
import { topLevelSplit } from '../shared/source-text.js';
import { bracedBody, mutateEqualityMacro } from '../shared/test-copies.js';

/**
 * cargo's mirrors: a plain `#[test] fn name()` (no other attribute) copied; its first single-line
 * `assert_eq!`/`assert_ne!`/`assert!` statement turned into its opposite, or the literal of an
 * `assert_eq!` changed.
 */
export const CARGO_MIRRORS: MirrorText = {
  listedShape: /^\w+$/,
  mirrorSource,
  mirrorHeader: (name) => ['#[test]', `fn ${name}() {`],
  invertCheck: (body, i) => invertRustAssert(body[i]!),
  mutateCheck: (body, i, _source, random) =>
    mutateEqualityMacro(
      body[i]!,
      { indent: '    ', pattern: /^( {4})(assert_eq)!\((.*);\s*$/, bang: '!', usable: (arg) => isMutableLiteral(arg) },
      random,
    ),
};

function mirrorSource(content: string, name: string): MirrorSource | undefined {
  const lines = content.split('\n');
  const index = lines.findIndex(
    (l, i) => l === `fn ${name}() {` && lines[i - 1]?.trim() === '#[test]' && !/^\s*#/.test(lines[i - 2] ?? ''),
  );
  // A test's thread is named after it (std::thread::current().name()); module_path!/line! differ in a copy too.
  return bracedBody(lines, index, '', (line) => /thread::current\(\)|\bline!|\bcolumn!|function_name/.test(line));
}

function invertRustAssert(line: string): string | undefined {
  const m = /^ {4}(assert_eq|assert_ne|assert)!\((.*)\);\s*$/.exec(line);
  if (!m) return undefined;
  const args = topLevelSplit(m[2]!, ',');
  if (args === undefined || args.length === 0) return undefined;
  if (m[1] === 'assert_eq') return `    assert_ne!(${m[2]});`;
  if (m[1] === 'assert_ne') return `    assert_eq!(${m[2]});`;
  return `    assert!(${[`!(${args[0]!.trim()})`, ...args.slice(1)].join(',')});`;
}
