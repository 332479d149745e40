/**
 * Another value for a literal the way a test spells it: an integer moved by a few, a string with
 * one letter more. A mutated copy of a passing test's equality check must fail (a == b and b != b'
 * leave a != b'), unless equality itself was rewritten: a type of the agent's that equals anything
 * passes the copy too. Only these two shapes: a float, a char or a raw string is left alone.
 */

const INTEGER = /^(-?)(\d{1,12})([uUlLiz]\w*)?$/;
const STRING = /^"((?:[^"\\]|\\.)*)"$/;

/** The literal with another value, or undefined when it is not one of the shapes above. */
export function mutateLiteral(literal: string, random: (n: number) => number): string | undefined {
  const text = literal.trim();
  const integer = INTEGER.exec(text);
  if (integer) {
    const value = Number(`${integer[1]}${integer[2]}`);
    const moved = value + 1 + random(8);
    // A suffix (3usize, 0u) keeps the literal's type; a negative result needs no sign juggling.
    return moved < 0 ? undefined : `${moved}${integer[3] ?? ''}`;
  }
  const string = STRING.exec(text);
  if (!string) return undefined;
  const content = string[1]!;
  // Boundaries between characters, never inside an escape sequence.
  const boundaries: number[] = [0];
  for (let i = 0; i < content.length; ) {
    i += content[i] === '\\' ? 2 : 1;
    boundaries.push(Math.min(i, content.length));
  }
  const at = boundaries[random(boundaries.length)]!;
  const letter = 'abcdefghijklmnopqrstuvwxyz'[random(26)]!;
  return `"${content.slice(0, at)}${letter}${content.slice(at)}"`;
}

/** Whether the text is a literal mutateLiteral can change. */
export function isMutableLiteral(text: string): boolean {
  const t = text.trim();
  return INTEGER.test(t) || STRING.test(t);
}
