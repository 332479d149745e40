/**
 * Another value for a literal the way a test spells it: an integer moved by a few, a string with
 * one letter more. A mutated copy of a passing test's equality check must fail (a == b and b != b'
 * leave a != b'), unless equality itself was rewritten: a type of the agent's that equals anything
 * passes the copy too. Only these two shapes: a float, a char or a raw string is left alone.
 */

const INTEGER = /^(-?)(\d{1,12})([uUlLiz]\w*)?$/;
const STRING = /^"((?:[^"\\]|\\.)*)"$/;
/** JavaScript's other string quote (in Go, Rust and C++ a quote is one character, left alone). */
const JS_STRING = /^'((?:[^'\\]|\\.)*)'$/;

/** The literal with another value, or undefined when it is not one of the shapes above. */
export function mutateLiteral(literal: string, random: (n: number) => number, js = false): string | undefined {
  const text = literal.trim();
  if (js) {
    const array = /^\[(.*)\]$/.exec(text);
    if (array) return mutateArray(array[1]!, random);
    const single = JS_STRING.exec(text);
    if (single) return `'${withLetter(single[1]!, random)}'`;
  }
  const integer = INTEGER.exec(text);
  if (integer) {
    const value = Number(`${integer[1]}${integer[2]}`);
    const moved = value + 1 + random(8);
    // A suffix (3usize, 0u) keeps the literal's type; a negative result needs no sign juggling.
    return moved < 0 ? undefined : `${moved}${integer[3] ?? ''}`;
  }
  const string = STRING.exec(text);
  return string ? `"${withLetter(string[1]!, random)}"` : undefined;
}

/**
 * How long the escape sequence at the start of the text is: a letter put inside \u00e9 would change
 * the character or make the literal unreadable (\uz0e9 is a syntax error), failing the copy for a
 * reason of its own.
 */
const ESCAPE = /^\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|[0-7]{1,3}|[\s\S])/;

/** A string literal's content with one more letter, never inside an escape sequence. */
function withLetter(content: string, random: (n: number) => number): string {
  const boundaries: number[] = [0];
  for (let i = 0; i < content.length;) {
    i += content[i] === '\\' ? (ESCAPE.exec(content.slice(i))?.[0].length ?? 1) : 1;
    boundaries.push(Math.min(i, content.length));
  }
  const at = boundaries[random(boundaries.length)]!;
  const letter = 'abcdefghijklmnopqrstuvwxyz'[random(26)]!;
  return `${content.slice(0, at)}${letter}${content.slice(at)}`;
}

/** A JavaScript array literal of plain elements with one element changed (an empty one gets one). */
function mutateArray(inner: string, random: (n: number) => number): string | undefined {
  if (inner.trim() === '') return `[${1 + random(9)}]`;
  const items = inner.split(',');
  if (items.some((item) => !isMutableLiteral(item, true) || item.trim().startsWith('['))) return undefined;
  const at = random(items.length);
  const changed = mutateLiteral(items[at]!, random, true);
  if (changed === undefined) return undefined;
  return `[${items.map((item, k) => (k === at ? `${/^\s*/.exec(item)![0]}${changed}` : item)).join(',')}]`;
}

/** Whether the text is a literal mutateLiteral can change. */
export function isMutableLiteral(text: string, js = false): boolean {
  const t = text.trim();
  if (js && (JS_STRING.test(t) || /^\[[^[\]]*\]$/.test(t)))
    return /^\[/.test(t) ? mutateArray(t.slice(1, -1), () => 0) !== undefined : true;
  return INTEGER.test(t) || STRING.test(t);
}
