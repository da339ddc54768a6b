/**
 * The bytes of a saved listing (migration 014): what a blog's listing needs to place posts and
 * count them without reading them — ids, dates, tags and each title's word counts — in a form
 * that decodes with nothing allocated per post (three long strings, one typed array), far faster
 * than reading the same posts' rows.
 *
 *   u32 header length | header JSON | ids | at | updated | padding to 4 bytes | u32 words
 *   header: { v, n, titleCounts, tags: distinct tags, bytes: the byte lengths of ids, at, updated }
 *   ids, at, updated: UTF-8, each post's value, oldest first, "\n"-joined
 *   words, per post, oldest first: tag count, tag indexes…, hangulWords, latinWords, hangulChars, otherWords
 *
 * The columns are raw bytes rather than strings inside the JSON so that they can be encoded a
 * slice of posts at a time (encodeListing yields between slices) and decoded without JSON.parse
 * scanning them. The whole is stored deflated (raw, level 1, on libuv's threads): a third of
 * the bytes, and SQLite writes the row on the event loop (a 12 MB row at 100,000 posts took
 * 60–80 ms, once a minute while the blog is being published to).
 *
 * Bump FORMAT when this layout changes, or when countText (src/domain/language.ts) counts titles
 * differently: a snapshot of another format is ignored and the listing read from the rows.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { countText, emptyCounts, type TextCounts } from '../../domain/language.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import { TextColumn } from '../../lib/textColumn.js';

const FORMAT = 3;

/** Posts encoded per turn of the event loop: a few milliseconds (all 100,000 at once held it 150–250 ms). */
const ENCODE_SLICE = 4096;

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
  /** The byte lengths of the ids, at and updated columns (updatedAt: the sitemap's lastmod of every tag page is the latest of its newest posts'). */
  bytes: number[];
}

/** Title counts of a listed post: kept by a restored one, counted for one read from its row. */
export type CountsOf = (post: SitePostSummary) => TextCounts;

/**
 * The bytes of a listing, encoded a slice of posts per turn of the event loop: the server saves a
 * changed listing every minute, and a large blog's in one go held every request meanwhile.
 * `posts` must not change while this runs (the caller hands over a copy).
 */
export async function encodeListing(posts: readonly SitePostSummary[], titleCounts: TextCounts, countsOf: CountsOf): Promise<Buffer> {
  const tagIndex = new Map<string, number>();
  const fields = [(post: SitePostSummary) => post.id, (post: SitePostSummary) => post.publishedAt, (post: SitePostSummary) => post.updatedAt];
  const columns = fields.map((field) => ({ field, parts: [] as Buffer[] }));
  const words: Uint32Array[] = [];
  for (let from = 0; from < posts.length; from += ENCODE_SLICE) {
    if (from > 0) await yieldToLoop();
    const slice = posts.slice(from, from + ENCODE_SLICE);
    words.push(sliceWords(slice, tagIndex, countsOf));
    const separator = from > 0 ? '\n' : '';
    for (const column of columns) column.parts.push(Buffer.from(separator + slice.map(column.field).join('\n')));
  }
  const bytes = columns.map(({ parts }) => parts.reduce((sum, part) => sum + part.length, 0));
  const header: Header = { v: FORMAT, n: posts.length, titleCounts, tags: [...tagIndex.keys()], bytes };
  const json = Buffer.from(JSON.stringify(header));
  const wordsAt = Math.ceil((4 + json.length + bytes.reduce((sum, size) => sum + size, 0)) / 4) * 4;
  // Not Buffer.alloc: filling the whole buffer only to overwrite it costs more than the copies.
  const out = Buffer.allocUnsafeSlow(wordsAt + words.reduce((sum, part) => sum + part.byteLength, 0));
  out.writeUInt32LE(json.length, 0);
  let at = 4 + json.copy(out, 4);
  for (const part of columns.flatMap(({ parts }) => parts)) at += part.copy(out, at);
  out.fill(0x20, at, wordsAt);
  at = wordsAt;
  for (const part of words) at += Buffer.from(part.buffer, part.byteOffset, part.byteLength).copy(out, at);
  return deflate(out, { level: 1 });
}

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** The words of a slice of posts (see the layout above); `tagIndex` numbers the tags across slices. */
function sliceWords(posts: readonly SitePostSummary[], tagIndex: Map<string, number>, countsOf: CountsOf): Uint32Array {
  let size = 0;
  for (const post of posts) size += 5 + post.tags.length;
  const words = new Uint32Array(size);
  let w = 0;
  for (const post of posts) {
    words[w++] = post.tags.length;
    for (const tag of post.tags) {
      let index = tagIndex.get(tag);
      if (index === undefined) tagIndex.set(tag, (index = tagIndex.size));
      words[w++] = index;
    }
    const counts = countsOf(post);
    words[w++] = counts.hangulWords;
    words[w++] = counts.latinWords;
    words[w++] = counts.hangulChars;
    words[w++] = counts.otherWords;
  }
  return words;
}

/** The saved listing, or null when the bytes are of another format or do not add up. */
export async function decodeListing(data: Uint8Array): Promise<DecodedListing | null> {
  let view: Buffer;
  try {
    view = await inflate(data);
  } catch {
    return null;
  }
  return parseListing(view);
}

function parseListing(view: Buffer): DecodedListing | null {
  try {
    const length = view.readUInt32LE(0);
    const header = JSON.parse(view.toString('utf8', 4, 4 + length)) as Header;
    if (header.v !== FORMAT) return null;
    const n = header.n;
    let at = 4 + length;
    const [ids, publishedAt, updatedAt] = header.bytes.map((size) => {
      if (at + size > view.length) return null;
      const column = TextColumn.of(view.toString('utf8', at, at + size), n);
      at += size;
      return column;
    });
    if (!ids || !publishedAt || !updatedAt) return null;
    const start = Math.ceil(at / 4) * 4;
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
    return { ids, publishedAt, updatedAt, tags: header.tags, words, starts, titleCounts: { ...emptyCounts(), ...header.titleCounts } };
  } catch {
    return null;
  }
}

/** countText of one title on its own. */
export function titleCountsOfPost(post: Pick<SitePostSummary, 'title'>): TextCounts {
  return countText(post.title, emptyCounts());
}
