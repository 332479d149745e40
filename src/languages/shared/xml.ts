/**
 * Just enough of xml.etree.ElementTree for the harness's doctest parser: elements, attributes
 * (entities decoded), text skipped, comments, processing instructions and CDATA passed over. Where
 * expat refuses a document (mismatched or unclosed tags, an unknown entity, a duplicate attribute,
 * `<` in an attribute, anything after the root) this throws too, because the harness's parser then
 * raises instead of returning a map.
 */
export interface XmlElement {
  readonly tag: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: XmlElement[];
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.\u00b7\u00c0-\uffff]*/y;
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

class XmlError extends Error {
  constructor(message: string, at: number) {
    super(`ParseError: ${message} at offset ${at}`);
  }
}

function decode(text: string, at: number): string {
  return text.replace(/&([^;&]*);|&/g, (whole, ref: string | undefined) => {
    if (ref === undefined) throw new XmlError('not well-formed (invalid token)', at);
    const named = ENTITIES[ref];
    if (named !== undefined) return named;
    const code = /^#x([0-9a-fA-F]+)$/.exec(ref) ?? /^#([0-9]+)$/.exec(ref);
    if (!code) throw new XmlError(`undefined entity &${ref};`, at);
    return String.fromCodePoint(parseInt(code[1]!, ref.startsWith('#x') ? 16 : 10));
  });
}

class Reader {
  at = 0;
  constructor(readonly text: string) {}

  fail(message: string): never {
    throw new XmlError(message, this.at);
  }

  skip(until: string): void {
    const end = this.text.indexOf(until, this.at);
    if (end < 0) this.fail('unclosed token');
    this.at = end + until.length;
  }

  space(): void {
    while (/[ \t\r\n]/.test(this.text[this.at] ?? '')) this.at++;
  }

  name(): string {
    NAME.lastIndex = this.at;
    const m = NAME.exec(this.text);
    if (!m) this.fail('not well-formed (invalid token)');
    this.at += m[0].length;
    return m[0];
  }

  /** The markup that is not an element: comments, CDATA, processing instructions, a doctype. */
  other(): boolean {
    const rest = this.text.startsWith.bind(this.text);
    if (rest('<!--', this.at)) this.skip('-->');
    else if (rest('<![CDATA[', this.at)) this.skip(']]>');
    else if (rest('<?', this.at)) this.skip('?>');
    else if (rest('<!', this.at)) this.skip('>');
    else return false;
    return true;
  }

  attributes(): Map<string, string> {
    const attributes = new Map<string, string>();
    for (;;) {
      const before = this.at;
      this.space();
      const c = this.text[this.at];
      if (c === '>' || c === '/' || c === undefined) return attributes;
      if (this.at === before) this.fail('not well-formed (invalid token)');
      const name = this.name();
      this.space();
      if (this.text[this.at++] !== '=') this.fail('not well-formed (invalid token)');
      this.space();
      const quote = this.text[this.at++];
      if (quote !== '"' && quote !== "'") this.fail('not well-formed (invalid token)');
      const end = this.text.indexOf(quote, this.at);
      if (end < 0) this.fail('unclosed token');
      const raw = this.text.slice(this.at, end);
      if (raw.includes('<')) this.fail('not well-formed (invalid token)');
      if (attributes.has(name)) this.fail('duplicate attribute');
      // Attribute-value normalisation: each whitespace character is a space.
      attributes.set(name, decode(raw, this.at).replace(/[\t\n\r]/g, ' '));
      this.at = end + 1;
    }
  }

  element(): XmlElement {
    this.at++; // "<"
    const tag = this.name();
    const element: XmlElement = { tag, attributes: this.attributes(), children: [] };
    if (this.text.startsWith('/>', this.at)) {
      this.at += 2;
      return element;
    }
    if (this.text[this.at++] !== '>') this.fail('not well-formed (invalid token)');
    for (;;) {
      const lt = this.text.indexOf('<', this.at);
      if (lt < 0) this.fail('no element found');
      decode(this.text.slice(this.at, lt), this.at); // text is dropped, but its entities must be valid
      this.at = lt;
      if (this.text.startsWith('</', this.at)) {
        this.at += 2;
        if (this.name() !== tag) this.fail('mismatched tag');
        this.space();
        if (this.text[this.at++] !== '>') this.fail('not well-formed (invalid token)');
        return element;
      }
      if (!this.other()) element.children.push(this.element());
    }
  }
}

/** ET.fromstring: the root element. */
export function parseXml(text: string): XmlElement {
  const reader = new Reader(text);
  const prolog = (): void => {
    for (;;) {
      reader.space();
      if (!reader.other()) return;
    }
  };
  prolog();
  if (reader.text[reader.at] !== '<') reader.fail(reader.at >= text.length ? 'no element found' : 'syntax error');
  const root = reader.element();
  prolog();
  if (reader.at < text.length) reader.fail('junk after document element');
  return root;
}

/** element.findall(".//tag"): every descendant so named, in document order. */
export function descendants(element: XmlElement, tag: string): XmlElement[] {
  return element.children.flatMap((child) => [...(child.tag === tag ? [child] : []), ...descendants(child, tag)]);
}
