import { py } from './py-re.js';

/**
 * The few Python rules swesmith's parsers use beyond those of the harness's ports
 * (harness/parsers/py-re.ts): re.IGNORECASE, int() of a `\d+` match, str.isdigit, str.split() and
 * str.splitlines(). Each is what Python does on any text, since the parsers read whatever a test
 * run prints.
 */

/** A Python pattern compiled with re.IGNORECASE (and MULTILINE / DOTALL when asked). */
export function pyI(pattern: string, flags: { multiline?: boolean; dotall?: boolean } = {}, global = false): RegExp {
  const re = py(pattern, flags, global);
  return new RegExp(re.source, `${re.flags}i`);
}

/** Every match of `re` (re.finditer), whatever flags it was made with. */
export function pyFinditer(re: RegExp, s: string): RegExpExecArray[] {
  const flags = re.flags.includes('g') ? re.flags : `${re.flags}g`;
  return [...s.matchAll(new RegExp(re.source, flags))];
}

/** Decimal digits come in runs of ten, 0 to 9 (a Unicode stability guarantee). */
const DECIMAL = /\p{Nd}/u;

function digitValue(c: string): number {
  let cp = c.codePointAt(0)!;
  const start = cp;
  while (DECIMAL.test(String.fromCodePoint(cp - 1))) cp--;
  return (start - cp) % 10;
}

/**
 * int() of a `\d+` match: Python's `\d` takes any decimal digit (Arabic-Indic, fullwidth...) and
 * int() reads them all, where JavaScript's parseInt would stop at the first. Counts become loops in
 * the parsers, so the number must be the same.
 */
export function pyInt(digits: string): number {
  let n = 0;
  for (const c of digits) n = n * 10 + digitValue(c);
  return n;
}

/** str.isdigit: decimal digits and the other digits (superscripts, circled digits...) of Unicode 14. */
const DIGITS =
  /^[\p{Nd}\u00b2\u00b3\u00b9\u1369-\u1371\u19da\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490\u24ea\u24f5-\u24fd\u24ff\u2776-\u277e\u2780-\u2788\u278a-\u2792\u{10a40}-\u{10a43}\u{10e60}-\u{10e68}\u{11052}-\u{1105a}\u{1f100}-\u{1f10a}]+$/u;
export const pyIsDigit = (s: string): boolean => DIGITS.test(s);

/** Python's whitespace (str.split() with no argument, str.strip()). */
const WS = '[ \\t\\n\\r\\v\\f\\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+';

/** str.split() with no argument: runs of whitespace, no empty words. */
export const pyWords = (s: string): string[] => s.split(new RegExp(WS, 'u')).filter((w) => w !== '');

/** str.splitlines(): every Unicode line boundary ("\r\n" as one), no final empty line. */
export function pySplitlines(s: string): string[] {
  const parts = s.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/);
  if (parts.at(-1) === '') parts.pop();
  return parts;
}
