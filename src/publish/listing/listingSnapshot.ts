/**
 * The bytes of a saved listing (migration 014): what a blog's listing needs to place posts and
 * count them without reading them — ids, dates, tags and each title's word counts — in a form
 * that decodes with nothing allocated per post (three long strings, one typed array), far faster
 * than reading the same posts' rows.
 *
 *   u32 header length | header JSON (padded to 4 bytes) | u32 words
 *   header: { v, n, titleCounts, tags: distinct tags, ids, at, updated: each "\n"-joined }
 *   words, per post, oldest first: tag count, tag indexes…, hangulWords, latinWords, hangulChars, otherWords
 *
 * Bump FORMAT when this layout changes, or when countText (src/domain/language.ts) counts titles
 * differently: a snapshot of another format is ignored and the listing read from the rows.
 */
import { countText, emptyCounts, type TextCounts } from '../../domain/language.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import { TextColumn } from '../../lib/textColumn.js';

const FORMAT = 2;

/**
 * A saved listing, checked but not turned into objects or strings per post: post i's words start
 * at `starts[i]` (tag count, tag indexes into `tags`, then its four title counts).
 */
export interface DecodedListing {
  ids: TextColumn;
  publishedAt: TextColumn;
  updatedAt: TextColumn;
  tags: string[];
  words: Uint32Array;
  starts: Uint32Array;
  titleCounts: TextCounts;
}

interface Header {
  v: number;
  n: number;
  titleCounts: TextCounts;
  tags: string[];
  ids: string;
  at: string;
  /** updatedAt: the sitemap's lastmod of every tag page is the latest of its newest posts'. */
  updated: string;
}

/** Title counts of a listed post: kept by a restored one, counted for one read from its row. */
export type CountsOf = (post: SitePostSummary) => TextCounts;

export function encodeListing(posts: readonly SitePostSummary[], titleCounts: TextCounts, countsOf: CountsOf): Buffer {
  const tagIndex = new Map<string, number>();
  const words: number[] = [];
  for (const post of posts) {
    words.push(post.tags.length);
    for (const tag of post.tags) {
      let index = tagIndex.get(tag);
      if (index === undefined) tagIndex.set(tag, (index = tagIndex.size));
      words.push(index);
    }
    const counts = countsOf(post);
    words.push(counts.hangulWords, counts.latinWords, counts.hangulChars, counts.otherWords);
  }
  const header: Header = {
    v: FORMAT,
    n: posts.length,
    titleCounts,
    tags: [...tagIndex.keys()],
    ids: posts.map((post) => post.id).join('\n'),
    at: posts.map((post) => post.publishedAt).join('\n'),
    updated: posts.map((post) => post.updatedAt).join('\n'),
  };
  const json = Buffer.from(JSON.stringify(header));
  const padded = Math.ceil(json.length / 4) * 4;
  // Not Buffer.alloc(…, 0x20): filling the whole buffer only to overwrite it costs more than the copy.
  const out = Buffer.allocUnsafeSlow(4 + padded + words.length * 4);
  out.writeUInt32LE(json.length, 0);
  json.copy(out, 4);
  out.fill(0x20, 4 + json.length, 4 + padded);
  new Uint32Array(out.buffer, out.byteOffset + 4 + padded, words.length).set(words);
  return out;
}

/** The saved listing, or null when the bytes are of another format or do not add up. */
export function decodeListing(data: Uint8Array): DecodedListing | null {
  try {
    const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const length = view.readUInt32LE(0);
    const header = JSON.parse(view.toString('utf8', 4, 4 + length)) as Header;
    if (header.v !== FORMAT) return null;
    const n = header.n;
    const ids = TextColumn.of(header.ids, n);
    const at = TextColumn.of(header.at, n);
    const updated = TextColumn.of(header.updated, n);
    if (!ids || !at || !updated) return null;
    const start = 4 + Math.ceil(length / 4) * 4;
    // Copied out: the bytes SQLite hands over need not be aligned for a Uint32Array view.
    const words = new Uint32Array(view.buffer.slice(view.byteOffset + start, view.byteOffset + view.byteLength));
    const starts = new Uint32Array(n);
    const tagCount = header.tags.length;
    let w = 0;
    for (let i = 0; i < n; i++) {
      starts[i] = w;
      const count = words[w++]!;
      for (let t = 0; t < count; t++) if (words[w + t]! >= tagCount) return null;
      w += count + 4;
      if (w > words.length) return null;
    }
    if (w !== words.length) return null;
    return { ids, publishedAt: at, updatedAt: updated, tags: header.tags, words, starts, titleCounts: { ...emptyCounts(), ...header.titleCounts } };
  } catch {
    return null;
  }
}

/** countText of one title on its own. */
export function titleCountsOfPost(post: Pick<SitePostSummary, 'title'>): TextCounts {
  return countText(post.title, emptyCounts());
}
