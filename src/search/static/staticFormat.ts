/**
 * The static search index a blog's `/search/` page reads in the browser (issue 11, item 3):
 * plain JSON files beside the pages, so search works from a bucket behind a CDN with no server
 * and no key. A query loads `meta.json`, one term chunk per query word and the document
 * fragments of the results it shows; nothing else.
 *
 * ```
 * <blog>/search/meta.json          chunk count, live posts, dead ordinals       (public)
 * <blog>/search/t/<n>.json         postings of the terms hashing to chunk n     (public)
 * <blog>/search/x/<n>.json         the same for posts published since the last merge (public)
 * <blog>/search/d/<n>.json         title, path, date, tags, description of 32 posts (public)
 * <blog>/_search/static-state.json post id of each ordinal, for the writer only (never served)
 * ```
 *
 * The browser script (templates/search/client.js) repeats `chunkOf` and reads these shapes:
 * change them together, and bump STATIC_FORMAT_VERSION.
 */

import { OrdinalIds } from './ordinalIds.js';

export const STATIC_FORMAT = 'folio-static-search';
export const STATIC_FORMAT_VERSION = 1;

/** Posts per document fragment: a page of ten results touches at most ten small files. */
export const FRAGMENT_SIZE = 8;

/**
 * Recent posts are indexed in a small delta (DELTA_CHUNKS files) instead of the term chunks, so
 * a publish rewrites a few kilobytes rather than most chunks (a long post has hundreds of
 * distinct terms, which hash to nearly every chunk). Past DELTA_MAX posts the delta is merged
 * into the term chunks: one rewrite of the chunks per DELTA_MAX publishes.
 */
export const DELTA_CHUNKS = 16;
export const DELTA_MAX = 64;

/** The public file the browser reads first. */
export interface StaticMeta {
  format: typeof STATIC_FORMAT;
  version: number;
  /** Number of term chunks, a power of two. */
  chunks: number;
  fragment: number;
  /** Number of delta chunks to read besides the term chunk (0: no delta). */
  delta: number;
  /** Live posts (BM25's N). */
  docs: number;
  /** Ordinals of removed or superseded posts still named in chunks not rewritten since. */
  dead: number[];
  /** New on every write, as in the state it was written with: a writer knows its state is current. */
  revision?: string;
}

/** One post in a fragment: `[title, path, publishedAt, tags, description]`. */
export type FragmentEntry = [string, string, string, string[], string];

/** A chunk: term → postings as `[ordinal gap, weighted tf, ordinal gap, weighted tf, …]`. */
export type ChunkFile = Record<string, number[]>;

/** A fragment: ordinal → entry. */
export type FragmentFile = Record<string, FragmentEntry>;

/** The writer's own state: what it needs to supersede or remove a post. */
export interface StaticState {
  version: number;
  chunks: number;
  /** The next ordinal to hand out; ordinals are never reused until a compaction. */
  next: number;
  /** Live posts when the layout (chunk count) was last chosen. */
  laidOutFor: number;
  /** The post id of every ordinal handed out, blanked once it is dead (ordinalIds.ts). */
  ids: OrdinalIds;
  /** The ordinals whose post was removed or superseded since the last layout, each once. */
  dead: number[];
  /** Ordinals indexed in the delta chunks, not yet merged into the term chunks. */
  delta: number[];
  /** The revision of the meta.json written with it (absent in states written before revisions). */
  revision?: string;
}

/**
 * The state as stored: `idColumn` is every ordinal's post id, joined by "\n". States of earlier
 * releases held `byOrdinal` (an array, null for the dead) or, before that, `ids` (id → ordinal).
 */
interface StoredState extends Omit<StaticState, 'ids'> {
  idColumn: string;
}

/** The ordinal of the post's live entry, or -1. */
export function ordinalOfId(state: StaticState, id: string): number {
  const ordinal = state.ids.lastOrdinalOf(id);
  return ordinal >= 0 && !state.dead.includes(ordinal) ? ordinal : -1;
}

/** Posts with a live entry. */
export function liveCount(state: StaticState): number {
  return state.next - state.dead.length;
}

/** The state as it is stored (JSON.stringify of it). */
export function storedState(state: StaticState): StoredState {
  const { ids, ...rest } = state;
  return { ...rest, idColumn: ids.joined() };
}

/**
 * A stored state as this release keeps it in memory; null when it is not a state of this format
 * (the index is then rebuilt). The forms earlier releases stored are taken over: a dead ordinal's
 * id is not in them, and an empty one stands in for it (it never matches a post).
 */
export function stateFromStored(value: unknown, formatVersion: number): StaticState | null {
  const stored = value as (Partial<StoredState> & { byOrdinal?: unknown; ids?: unknown }) | null;
  if (!stored || stored.version !== formatVersion || typeof stored.next !== 'number' || !Array.isArray(stored.dead)) return null;
  const { idColumn, byOrdinal: _byOrdinal, ids: _ids, ...rest } = stored;
  let ids: OrdinalIds | null = null;
  if (typeof idColumn === 'string') ids = OrdinalIds.parse(idColumn, stored.next);
  else if (Array.isArray(stored.byOrdinal)) ids = OrdinalIds.of((stored.byOrdinal as (string | null)[]).map((id) => id ?? ''));
  else if (stored.ids && typeof stored.ids === 'object') {
    const byOrdinal = new Array<string>(stored.next).fill('');
    for (const [id, ordinal] of Object.entries(stored.ids as Record<string, number>)) byOrdinal[ordinal] = id;
    ids = OrdinalIds.of(byOrdinal);
  }
  if (!ids || ids.length !== stored.next) return null;
  return { ...(rest as Omit<StaticState, 'ids'>), ids };
}

export const metaKey = (blog: string): string => `${blog}/search/meta.json`;
export const chunkKey = (blog: string, chunk: number): string => `${blog}/search/t/${chunk}.json`;
export const fragmentKey = (blog: string, fragment: number): string => `${blog}/search/d/${fragment}.json`;
export const deltaKey = (blog: string, chunk: number): string => `${blog}/search/x/${chunk}.json`;
export const stateKey = (blog: string): string => `${blog}/_search/static-state.json`;
/** Prefixes of the files a layout change may leave behind. */
export const dataPrefixes = (blog: string): string[] => [`${blog}/search/t/`, `${blog}/search/d/`, `${blog}/search/x/`];

/** FNV-1a over UTF-16 code units, masked to the chunk count (client.js has the same). */
export function chunkOf(term: string, chunks: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193) >>> 0;
  return hash & (chunks - 1);
}

/** Postings bytes a chunk should hold, compressed, so a query word costs about this much. */
const CHUNK_TARGET_GZIP_BYTES = 8 * 1024;
/** What a posting costs in a gzipped chunk (gap and tf as decimal text), measured on the corpus. */
const GZIP_BYTES_PER_POSTING = 2.5;
const MIN_CHUNKS = 8;
const MAX_CHUNKS = 4096;

/** The chunk count for this many postings: a power of two near the target chunk size. */
export function chunkCountFor(postings: number): number {
  let chunks = MIN_CHUNKS;
  while (chunks < MAX_CHUNKS && (postings * GZIP_BYTES_PER_POSTING) / chunks > CHUNK_TARGET_GZIP_BYTES) chunks *= 2;
  return chunks;
}

/** `[ord, tf, ord, tf…]` with absolute ordinals → the stored gap form, and back. */
export function encodePostings(absolute: readonly number[]): number[] {
  const out = new Array<number>(absolute.length);
  let previous = 0;
  for (let i = 0; i < absolute.length; i += 2) {
    out[i] = absolute[i]! - previous;
    out[i + 1] = absolute[i + 1]!;
    previous = absolute[i]!;
  }
  return out;
}

export function decodePostings(gaps: readonly number[]): number[] {
  const out = new Array<number>(gaps.length);
  let ordinal = 0;
  for (let i = 0; i < gaps.length; i += 2) {
    ordinal += gaps[i]!;
    out[i] = ordinal;
    out[i + 1] = gaps[i + 1]!;
  }
  return out;
}
