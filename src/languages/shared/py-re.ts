import type { TestStatus } from './test-status.js';

/**
 * Python's `re` and `str` rules, for ports of the harness's parsers (swebench 5.x
 * harness/log_parsers/*.py). The harness's patterns are its contract, so each port keeps the
 * pattern as Python reads it and `py()` translates it: JavaScript's `\s`, `\d`, `\w`, `\b`, `.`, `^`
 * and `$` differ from Python's on non-ASCII text, `\r` and line ends, and the parsers read any log
 * a test run prints, so a difference there would be a different status map.
 */
export type StatusMap = Map<string, TestStatus>;

/** Python's whitespace (str.isspace and `\s` of a str pattern): JavaScript's lacks \x1c-\x1f and \x85, adds \ufeff. */
const WS = ' \\t\\n\\r\\v\\f\\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WORD = '\\p{L}\\p{N}_';
const ESCAPES: Readonly<Record<string, string>> = { s: `[${WS}]`, S: `[^${WS}]`, d: '\\p{Nd}', w: `[${WORD}]` };
const IN_CLASS: Readonly<Record<string, string>> = { s: WS, d: '\\p{Nd}', w: WORD };
/** Escapes JavaScript's `u` mode allows (a class also `\-`); any other escaped punctuation is the character itself. */
const SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
const CLASS_SYNTAX = new Set([...SYNTAX, '-']);
const KEPT = new Set('ntrfvx0123456789pPu'.split(''));

export interface PyFlags {
  readonly multiline?: boolean;
  readonly dotall?: boolean;
}

/** A Python pattern as a JavaScript RegExp with the same matches (the subset the parsers use). */
export function py(pattern: string, flags: PyFlags = {}, global = false): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[++i]!;
      out += escape(next);
    } else if (c === '[') {
      const end = classEnd(pattern, i);
      out += charClass(pattern.slice(i + 1, end));
      i = end;
    } else if (c === '.') out += flags.dotall ? '[\\s\\S]' : '[^\\n]';
    else if (c === '^') out += flags.multiline ? '(?:(?<![\\s\\S])|(?<=\\n))' : '(?<![\\s\\S])';
    // Python's `$` is the end or before a final "\n" (MULTILINE: before any "\n"); never before "\r".
    else if (c === '$') out += flags.multiline ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))';
    else out += c;
  }
  return new RegExp(out, global ? 'gu' : 'u');
}

function escape(c: string): string {
  if (c === 'b') return `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
  const mapped = ESCAPES[c];
  if (mapped !== undefined) return mapped;
  if (SYNTAX.has(c) || KEPT.has(c)) return `\\${c}`;
  return c;
}

function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++; // a leading "]" is literal in Python
  for (; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  throw new Error(`unterminated class in ${pattern}`);
}

/** A class body: `\s`, `\d`, `\w` inline; a `\S` inside becomes an alternation (a class cannot hold a negated one). */
function charClass(body: string): string {
  const negated = body.startsWith('^');
  let items = '';
  let nonSpace = false;
  for (let i = negated ? 1 : 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      items += c === '[' || c === '/' ? `\\${c}` : c;
      continue;
    }
    const next = body[++i]!;
    if (next === 'S') nonSpace = true;
    else items += IN_CLASS[next] ?? (CLASS_SYNTAX.has(next) || KEPT.has(next) ? `\\${next}` : next);
  }
  if (!nonSpace) return `[${negated ? '^' : ''}${items}]`;
  const listed = items === '' ? '[]' : `[${items}]`;
  return negated ? `(?:(?!${listed})[${WS}])` : `(?:${listed}|[^${WS}])`;
}

/** re.match: anchored at the start, not at the end. */
export function pyMatch(re: RegExp, s: string): RegExpExecArray | null {
  const sticky = new RegExp(re.source, re.flags.replace('g', '') + 'y');
  return sticky.exec(s);
}

export function pySearch(re: RegExp, s: string): RegExpExecArray | null {
  return new RegExp(re.source, re.flags.replace('g', '')).exec(s);
}

/** re.findall: the one group's text per match ('' when it did not take part), or every group's. */
export function pyFindall(re: RegExp, s: string): Array<string | string[]> {
  const groups = new RegExp(`${re.source}|`, 'u').exec('')!.length - 1;
  return [...s.matchAll(new RegExp(re.source, 'gu'))].map((m) => {
    if (groups === 0) return m[0];
    const values = m.slice(1).map((g) => g ?? '');
    return groups === 1 ? values[0]! : values;
  });
}

/** re.findall of a one-group pattern. */
export function pyFindallOne(re: RegExp, s: string): string[] {
  return pyFindall(re, s).map((x) => (typeof x === 'string' ? x : x[0]!));
}

/** re.sub with a literal replacement. */
export function pySub(re: RegExp, replacement: string, s: string): string {
  return s.replace(new RegExp(re.source, 'gu'), () => replacement);
}

/** re.split of a pattern without groups. */
export function pySplit(re: RegExp, s: string): string[] {
  const parts: string[] = [];
  let at = 0;
  for (const m of s.matchAll(new RegExp(re.source, 'gu'))) {
    parts.push(s.slice(at, m.index));
    at = m.index + m[0].length;
  }
  parts.push(s.slice(at));
  return parts;
}

const STRIP_START = new RegExp(`^[${WS}]+`, 'u');
const STRIP_END = new RegExp(`[${WS}]+$`, 'u');

export const pyLstrip = (s: string): string => s.replace(STRIP_START, '');
export const pyRstrip = (s: string): string => s.replace(STRIP_END, '');
export const pyStrip = (s: string): string => pyRstrip(pyLstrip(s));

/** `len(line) - len(line.lstrip())`: Python's whitespace is all in the BMP, so UTF-16 lengths agree. */
export const indentOf = (line: string): number => line.length - pyLstrip(line).length;

/** Python's s.split(sep, 1)[1], which raises when sep is absent. */
export function afterFirst(s: string, sep: string): string {
  const at = s.indexOf(sep);
  if (at < 0) throw new Error(`IndexError: ${JSON.stringify(sep)} not in the line`);
  return s.slice(at + sep.length);
}

/** Python's s.split(sep, 1)[-1]: after the first sep, or all of s. */
export const afterFirstOrAll = (s: string, sep: string): string => (s.includes(sep) ? s.slice(s.indexOf(sep) + sep.length) : s);

/** Python's s.rsplit(sep, 1)[0]: before the last sep, or all of s. */
export const beforeLastOrAll = (s: string, sep: string): string => (s.includes(sep) ? s.slice(0, s.lastIndexOf(sep)) : s);

/** The log's lines as Python's log.split("\n") gives them ("\r" kept). */
export const pyLines = (log: string): string[] => log.split('\n');

/** swebench.utils.ansi_escape. */
const ANSI = py('\\x1B(?:[@-Z\\\\-_]|\\[[0-?]*[ -/]*[@-~])');
export const ansiEscape = (text: string): string => pySub(ANSI, '', text);

/** What a parser reads besides the log: the instance's id and version (the harness's TestSpec). */
export interface HarnessSpec {
  readonly instanceId?: string;
  readonly version?: string;
}

export type LanguageParser = (log: string, spec: HarnessSpec) => StatusMap;

/** test_spec.instance_id, which the harness reads unchecked (AttributeError without one). */
export function instanceIdOf(spec: HarnessSpec): string {
  if (spec.instanceId === undefined) throw new Error('AttributeError: the parser needs the instance id');
  return spec.instanceId;
}

export function versionOf(spec: HarnessSpec): string {
  if (spec.version === undefined) throw new Error('AttributeError: the parser needs the version');
  return spec.version;
}

/** A parser reading `pattern` on each stripped line: `status(groups)` names the test and its status, or nothing. */
export function lineParser(pattern: RegExp, status: (m: RegExpExecArray) => [string, TestStatus] | undefined): (log: string) => StatusMap {
  return (log) => {
    const map: StatusMap = new Map();
    for (const line of pyLines(log)) {
      const m = pyMatch(pattern, pyStrip(line));
      const entry = m ? status(m) : undefined;
      if (entry) map.set(entry[0], entry[1]);
    }
    return map;
  };
}
