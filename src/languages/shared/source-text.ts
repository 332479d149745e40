/** Reading test source one line at a time: brackets, strings and runes, without a parser. */

/** The text with what is inside brackets and string literals blanked out (its top level alone). */
export function blanked(text: string): string {
  let out = '';
  let depth = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote !== '`') i++;
      else if (c === quote) quote = '';
      out += ' ';
      continue;
    }
    if (c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    out += depth > 0 || c === '"' || c === '`' || ')]}'.includes(c) ? ' ' : c;
  }
  return out;
}

/** The index of the parenthesis closing the one open before the text starts; undefined when it does not close. */
export function closingParen(text: string, jsStrings = false): number | undefined {
  for (let end = text.indexOf(')'); end >= 0; end = text.indexOf(')', end + 1)) {
    const parts = topLevelSplit(text.slice(0, end), ',', jsStrings);
    if (parts !== undefined) return end;
  }
  return undefined;
}

/** The text split at the separator where it is outside brackets, strings and runes; undefined when unbalanced. */
export function topLevelSplit(text: string, separator: string, jsStrings = false): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote !== '`') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === '`') quote = c;
    // A quote is a string in JavaScript, a rune (one character) in Go, Rust and C++.
    else if (c === "'" && (jsStrings || /^'(\\.|[^'\\])'/.test(text.slice(i)))) quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) return undefined;
  }
  if (depth !== 0 || quote) return undefined;
  parts.push(text.slice(start));
  return parts;
}
