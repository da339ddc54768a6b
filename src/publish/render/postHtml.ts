/**
 * Reader affordances added to a post's sanitised HTML when its page is rendered (not stored, so
 * every post gets them, old ones included, with the next render): ids on headings, so each has
 * an address, and the list a table of contents is made from; keyboard access to code blocks
 * (`tabindex="0"`: they scroll sideways on phones); and the first image loaded at once, as it is
 * usually in the first screen. Each pass is a single linear scan: the sanitiser closes every
 * element it lets through, so every lazy match stops at the nearest closing tag.
 */

export interface Heading {
  level: 2 | 3;
  id: string;
  text: string;
}

/** Ids the layout itself uses: a heading must never take them. */
const LAYOUT_IDS = ['main', 'toc-title'];

/** Headings given ids, counted in document order (h2 to h6). */
export const MAX_HEADING_IDS = 300;

const HEADING = /<h([2-6])((?:\s[^>]*)?)>([\s\S]*?)<\/h\1>/g;
const ID_ATTR = /\sid="([^"]*)"/;

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Plain text of a sanitised HTML fragment, its entities decoded (the template escapes it again). */
function textOf(html: string): string {
  const text = html.replace(/<[^>]*>/g, '').replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
  return text.replace(/\s+/g, ' ').trim();
}

/** Heading text → id: letters and digits of any script (Korean too), lower case, joined by `-`. */
export function headingId(text: string): string {
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return words.join('-').slice(0, 80).replace(/-+$/, '') || 'section';
}

export function enhancePostHtml(html: string): { html: string; headings: Heading[] } {
  const used = new Set(LAYOUT_IDS);
  for (const match of html.matchAll(/\sid="([^"]*)"/g)) used.add(match[1]!);
  // Where each base's numbering goes on, so a thousand headings of the same text stay linear.
  const nextSuffix = new Map<string, number>();
  const unique = (base: string): string => {
    let id = base;
    let n = nextSuffix.get(base) ?? 2;
    while (used.has(id)) id = `${base}-${n++}`;
    nextSuffix.set(base, n);
    used.add(id);
    return id;
  };
  const headings: Heading[] = [];
  // Only the first headings get ids (and make the contents list): past a few hundred a contents
  // list helps nobody, and a megabyte of headings would hold the event loop for most of a second.
  const parts: string[] = [];
  let last = 0;
  let given = 0;
  HEADING.lastIndex = 0;
  for (let match = HEADING.exec(html); match && given < MAX_HEADING_IDS; match = HEADING.exec(html), given++) {
    const [whole, level, attrs = '', inner = ''] = match;
    const own = ID_ATTR.exec(attrs)?.[1];
    const text = textOf(inner);
    const id = own ?? unique(headingId(text));
    if (level === '2' || level === '3') headings.push({ level: level === '2' ? 2 : 3, id, text });
    parts.push(html.slice(last, match.index), own === undefined ? `<h${level} id="${id}"${attrs}>${inner}</h${level}>` : whole);
    last = match.index + whole.length;
  }
  parts.push(html.slice(last));
  let withIds = parts.join('');
  withIds = withIds.replace(/<pre(?![^>]*\stabindex=)/g, '<pre tabindex="0"');
  withIds = withIds.replace(/<img\b[^>]*>/, (tag) => tag.replace(/\sloading="lazy"/, ''));
  return { html: withIds, headings };
}
