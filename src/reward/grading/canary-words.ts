/**
 * Words a canary's name falls back on when the file's own test names give fewer than four: names
 * made only of the file's words would repeat, and a name no test nearby could have would stand out.
 */
const FALLBACK_WORDS = [
  'value',
  'result',
  'default',
  'empty',
  'single',
  'order',
  'repeat',
  'boundary',
  'mixed',
  'nested',
  'basic',
  'invalid',
  'case',
  'input',
  'output',
];

/** The words found in a file's test names, with the fallback words when they are fewer than four. */
export function canaryWords(found: ReadonlySet<string>): string[] {
  return found.size >= 4 ? [...found] : [...found, ...FALLBACK_WORDS];
}
