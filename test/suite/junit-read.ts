// A small reader for the JUnit XML we write (elements, double-quoted attributes, text, the five
// predefined entities and character references), enough to look at it as a JUnit consumer does.
// The XSD validation proves well-formedness; this gives the tests a tree.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e.startsWith('#x') || e.startsWith('#X')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return ENTITY[e] ?? all;
  });
}

export function readJunit(xml: string): XmlElement {
  const token = /<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack = [root];
  for (const m of xml.matchAll(token)) {
    const top = stack[stack.length - 1]!;
    if (m[1]) {
      if (top.name !== m[1]) throw new Error(`</${m[1]}> closes <${top.name}>`);
      stack.pop();
    } else if (m[2]) {
      const attributes = Object.fromEntries([...(m[3] ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1]!, decode(a[2]!)]));
      const element: XmlElement = { name: m[2], attributes, children: [], text: '' };
      top.children.push(element);
      if (!m[4]) stack.push(element);
    } else if (m[5]) {
      top.text += decode(m[5]);
    }
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  const [document] = root.children;
  if (!document) throw new Error('no root element');
  return document;
}
