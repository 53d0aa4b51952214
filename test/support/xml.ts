/**
 * A strict XML parser for the tests (no dependency): elements, attributes, text, comments, CDATA
 * and the five predefined entities plus character references. Throws on anything not well-formed
 * (unclosed or mismatched tags, an attribute twice or unquoted, a bare `&` or `<`, text after the
 * root), so `parseXml(svg)` checks an SVG is well-formed and gives its tree to query.
 */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: (XmlElement | string)[];
}

const NAME = /^[A-Za-z_:][A-Za-z0-9_:.-]*/;

function decode(text: string, where: number): string {
  return text.replace(/&([^;]*);|&/g, (whole, ref: string | undefined) => {
    if (ref === undefined) throw new Error(`bare & at ${where}`);
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (named[ref] !== undefined) return named[ref];
    const hex = /^#x([0-9A-Fa-f]+)$/.exec(ref);
    if (hex) return String.fromCodePoint(parseInt(hex[1] as string, 16));
    const dec = /^#([0-9]+)$/.exec(ref);
    if (dec) return String.fromCodePoint(Number(dec[1]));
    throw new Error(`unknown entity &${ref}; at ${where}`);
  });
}

/**
 * Parses `text` as one XML document (an optional `<?xml ...?>` declaration, one root element).
 * @throws {Error} naming the first problem and its offset.
 */
export function parseXml(text: string): XmlElement {
  let at = 0;
  const skipMisc = (): void => {
    for (;;) {
      const ws = /^\s*/.exec(text.slice(at)) as RegExpExecArray;
      at += ws[0].length;
      if (text.startsWith("<!--", at)) {
        const end = text.indexOf("-->", at);
        if (end < 0) throw new Error(`unclosed comment at ${at}`);
        at = end + 3;
      } else if (text.startsWith("<?", at)) {
        const end = text.indexOf("?>", at);
        if (end < 0) throw new Error(`unclosed declaration at ${at}`);
        at = end + 2;
      } else return;
    }
  };
  const element = (): XmlElement => {
    if (text[at] !== "<") throw new Error(`expected < at ${at}`);
    at++;
    const name = NAME.exec(text.slice(at))?.[0];
    if (name === undefined) throw new Error(`bad tag name at ${at}`);
    at += name.length;
    const attributes: Record<string, string> = {};
    for (;;) {
      const ws = (/^\s*/.exec(text.slice(at)) as RegExpExecArray)[0];
      at += ws.length;
      if (text.startsWith("/>", at)) {
        at += 2;
        return { name, attributes, children: [] };
      }
      if (text[at] === ">") {
        at++;
        break;
      }
      if (ws === "") throw new Error(`expected a space before an attribute at ${at}`);
      const attr = NAME.exec(text.slice(at))?.[0];
      if (attr === undefined) throw new Error(`bad attribute name at ${at}`);
      at += attr.length;
      const eq = /^\s*=\s*(["'])/.exec(text.slice(at));
      if (!eq) throw new Error(`attribute ${attr} not quoted at ${at}`);
      at += eq[0].length;
      const end = text.indexOf(eq[1] as string, at);
      if (end < 0) throw new Error(`unclosed attribute ${attr} at ${at}`);
      const raw = text.slice(at, end);
      if (raw.includes("<")) throw new Error(`< in attribute ${attr} at ${at}`);
      if (Object.hasOwn(attributes, attr)) throw new Error(`attribute ${attr} twice at ${at}`);
      attributes[attr] = decode(raw, at);
      at = end + 1;
    }
    const children: (XmlElement | string)[] = [];
    for (;;) {
      if (at >= text.length) throw new Error(`unclosed <${name}>`);
      if (text.startsWith("</", at)) {
        at += 2;
        const close = NAME.exec(text.slice(at))?.[0];
        if (close !== name) throw new Error(`</${close ?? ""}> closes <${name}> at ${at}`);
        at += close.length;
        const end = /^\s*>/.exec(text.slice(at));
        if (!end) throw new Error(`bad closing tag at ${at}`);
        at += end[0].length;
        return { name, attributes, children };
      }
      if (text.startsWith("<!--", at)) {
        const end = text.indexOf("-->", at);
        if (end < 0) throw new Error(`unclosed comment at ${at}`);
        at = end + 3;
      } else if (text.startsWith("<![CDATA[", at)) {
        const end = text.indexOf("]]>", at);
        if (end < 0) throw new Error(`unclosed CDATA at ${at}`);
        children.push(text.slice(at + 9, end));
        at = end + 3;
      } else if (text[at] === "<") children.push(element());
      else {
        const end = text.indexOf("<", at);
        const raw = text.slice(at, end < 0 ? text.length : end);
        children.push(decode(raw, at));
        at += raw.length;
      }
    }
  };
  skipMisc();
  const root = element();
  skipMisc();
  if (at !== text.length) throw new Error(`content after the root element at ${at}`);
  return root;
}

/** Every element of `root`'s tree (root first, document order) that `test` accepts. */
export function findAll(root: XmlElement, test: (element: XmlElement) => boolean): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (element: XmlElement): void => {
    if (test(element)) out.push(element);
    for (const child of element.children) if (typeof child !== "string") walk(child);
  };
  walk(root);
  return out;
}

/** The text inside `element` (its text children and theirs, joined). */
export function textOf(element: XmlElement): string {
  return element.children.map((child) => (typeof child === "string" ? child : textOf(child))).join("");
}
