/**
 * A small HTML tokenizer for the escaping tests: it reads tags and attributes the way a
 * browser does (quoted values, raw-text script/style elements, comments), so a test can ask
 * "which elements and attributes does this page really contain?" instead of grepping text.
 */

export interface ScannedTag {
  name: string;
  closing: boolean;
  attrs: Map<string, string>;
}

export interface ScannedHtml {
  tags: ScannedTag[];
  /** Text of each script or style element, in order. */
  rawText: { name: 'script' | 'style'; text: string }[];
}

const TAG_OPEN = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/y;
const ATTR = /[\s/]*([^\s/>=][^\s/>=]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/y;

export function scanHtml(html: string): ScannedHtml {
  const tags: ScannedTag[] = [];
  const rawText: ScannedHtml['rawText'] = [];
  const lower = html.toLowerCase();
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    TAG_OPEN.lastIndex = lt;
    const open = TAG_OPEN.exec(html);
    if (!open) {
      i = lt + 1;
      continue;
    }
    const tag: ScannedTag = { name: open[2]!.toLowerCase(), closing: open[1] === '/', attrs: new Map() };
    let j = TAG_OPEN.lastIndex;
    for (;;) {
      while (j < html.length && /[\s/]/.test(html[j]!)) j += 1;
      if (j >= html.length || html[j] === '>') break;
      ATTR.lastIndex = j;
      const attr = ATTR.exec(html);
      if (!attr) break;
      tag.attrs.set(attr[1]!.toLowerCase(), attr[2] ?? attr[3] ?? attr[4] ?? '');
      j = ATTR.lastIndex;
    }
    i = j + 1;
    tags.push(tag);
    if (!tag.closing && (tag.name === 'script' || tag.name === 'style')) {
      const end = lower.indexOf(`</${tag.name}`, i);
      rawText.push({ name: tag.name, text: html.slice(i, end < 0 ? html.length : end) });
      i = end < 0 ? html.length : end;
    }
  }
  return { tags, rawText };
}

/** The XML text with every CDATA section removed, and the sections' joined contents. */
export function splitCdata(xml: string): { markup: string; sections: string[] } {
  const sections: string[] = [];
  const markup = xml.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, text: string) => {
    sections.push(text);
    return '';
  });
  return { markup, sections };
}
