/**
 * The static search index a blog's `/search/` page reads in the browser (docs/search.md):
 * plain JSON files beside the pages, so search works from a bucket behind a CDN with no server
 * and no key. A query loads `meta.json`, one term chunk per query word, the lengths files of the
 * posts that match and the document fragments of the results it shows; nothing else.
 *
 * ```
 * <blog>/search/meta.json          chunk count, live posts, dead ordinals       (public)
 * <blog>/search/t/<n>.json         postings of the terms hashing to chunk n     (public)
 * <blog>/search/x/<n>.json         the same for posts published since the last merge (public)
 * <blog>/search/l/<n>.json         the lengths of 1,024 ordinals, for BM25        (public)
 * <blog>/search/d/<n>.json         title, path, date, tags, description of 8 posts (public)
 * <blog>/_search/static-state.json ordinals, dead and delta lists, for the writer only (never served)
 * <blog>/_search/ids/<n>-<tag>.txt post id of 4,096 ordinals, for the writer only (never served)
 * ```
 *
 * The browser reads these files through staticQuery.ts, which defines the public shapes and is
 * compiled into the page's script: a change of them bumps STATIC_FORMAT_VERSION there.
 */

import { OrdinalIds } from './ordinalIds.js';
import { POSTING_STRIDE, type FragmentEntry, type LengthFile } from './staticQuery.js';

export {
  chunkOf,
  LENGTH_BLOCK,
  POSTING_STRIDE,
  STATIC_FORMAT,
  STATIC_FORMAT_VERSION,
  type ChunkFile,
  type FragmentEntry,
  type LengthFile,
  type StaticMeta,
} from './staticQuery.js';

/** Posts per document fragment: a page of ten results touches at most ten small files. */
export const FRAGMENT_SIZE = 8;

/**
 * Recent posts are indexed in a small delta (DELTA_CHUNKS files) instead of the term chunks, so
 * a publish rewrites a few kilobytes rather than most chunks (a long post has hundreds of
 * distinct terms, which hash to nearly every chunk). Past deltaMax posts the delta is merged
 * into the term chunks: one rewrite of the chunks per deltaMax publishes.
 */
export const DELTA_CHUNKS = 16;
export const DELTA_MAX = 64;
/** The most posts a delta holds, in an index of 1,024 chunks and more. */
export const DELTA_MAX_BIG = 256;

/**
 * Posts the delta holds before it is merged: DELTA_MAX, more in a big index, whose merge rewrites
 * more chunks (a quarter of the chunk count), so a merge costs each publish about the same at
 * 10,000 posts as at 1,000; at most DELTA_MAX_BIG.
 */
export function deltaMax(chunks: number): number {
  return Math.min(DELTA_MAX_BIG, Math.max(DELTA_MAX, Math.floor(chunks / 4)));
}

/** Whether the delta holds more posts than deltaMax: a merge is due. */
export function deltaFull(state: Pick<StaticState, 'delta' | 'chunks'>): boolean {
  return state.delta.length > deltaMax(state.chunks);
}

/**
 * The files of a new delta: DELTA_CHUNKS per DELTA_MAX posts it may hold, so each stays about
 * the size of a term chunk (a query word reads one of each): 16 to 64.
 */
export function deltaChunksFor(chunks: number): number {
  return DELTA_CHUNKS * Math.ceil(deltaMax(chunks) / DELTA_MAX);
}

/** The current delta's file count (DELTA_CHUNKS in a state written before it varied). */
export function deltaChunksOf(state: Pick<StaticState, 'deltaChunks'>): number {
  return state.deltaChunks ?? DELTA_CHUNKS;
}

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
  /** The delta's file count, chosen when it starts (deltaChunksFor); absent in states written before it varied: DELTA_CHUNKS. */
  deltaChunks?: number;
  /** Sum of the live posts' field-weighted lengths (meta.json's `length`). */
  length: number;
  /** The revision of the meta.json written with it (absent in states written before revisions). */
  revision?: string;
  /**
   * The delta chunks as this process last wrote them, decoded; memory only, never stored. Every
   * publish rewrites all of them, and reading and decoding them again cost as much as the rest
   * of the index step. Valid exactly as long as the state is (its revision is meta.json's).
   */
  deltaFiles?: Map<string, Record<string, number[]>>;
  /**
   * The lengths files this process last wrote (the newest one or two: new ordinals go at the
   * end); memory only, as `deltaFiles`, so a publish to a bucket does not read one back first.
   */
  lengthFiles?: Map<string, LengthFile>;
}

/**
 * The state as stored: `idBlocks` names the file of each block of ids (idBlockKey) by its tag. A
 * state stored before blocks holds `idColumn` instead: every ordinal's post id, joined by "\n".
 */
interface StoredState extends Omit<StaticState, 'ids'> {
  idBlocks?: string[];
  idColumn?: string;
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

/** The state as it is stored (JSON.stringify of it), once every block of its ids is stored. */
export function storedState(state: StaticState): StoredState {
  const { ids, deltaFiles: _memoryOnly, lengthFiles: _alsoMemoryOnly, ...rest } = state;
  const tags = ids.tags();
  if (tags.some((tag) => tag === null)) throw new Error('the static index state names a block of ids not stored yet');
  return { ...rest, idBlocks: tags as string[] };
}

/** The tags of the id blocks a stored state names; null for a state stored before blocks, or none. */
export function idBlockTagsOf(value: unknown): string[] | null {
  const tags = (value as Partial<StoredState> | null)?.idBlocks;
  return Array.isArray(tags) && tags.every((tag) => typeof tag === 'string') ? tags : null;
}

/**
 * A stored state as this release keeps it in memory, with its id blocks as read (`blocks`, in
 * the order idBlockTagsOf names them); null when it is not a state of this format (the index is
 * then rebuilt: states of format 1 lack the lengths that scores need) or its blocks do not hold
 * its ordinals.
 */
export function stateFromStored(value: unknown, formatVersion: number, blocks: readonly { joined: string; tag: string }[] | null = null): StaticState | null {
  const stored = value as Partial<StoredState> | null;
  if (!stored || stored.version !== formatVersion || typeof stored.next !== 'number' || typeof stored.length !== 'number' || !Array.isArray(stored.dead))
    return null;
  const { idColumn, idBlocks: _named, ...rest } = stored;
  const ids = typeof idColumn === 'string' ? OrdinalIds.parse(idColumn, stored.next) : blocks ? OrdinalIds.fromBlocks(blocks, stored.next) : null;
  if (!ids) return null;
  return { ...(rest as Omit<StaticState, 'ids'>), ids };
}

export const metaKey = (blog: string): string => `${blog}/search/meta.json`;
export const chunkKey = (blog: string, chunk: number): string => `${blog}/search/t/${chunk}.json`;
export const fragmentKey = (blog: string, fragment: number): string => `${blog}/search/d/${fragment}.json`;
export const deltaKey = (blog: string, chunk: number): string => `${blog}/search/x/${chunk}.json`;
export const lengthKey = (blog: string, block: number): string => `${blog}/search/l/${block}.json`;
export const stateKey = (blog: string): string => `${blog}/_search/static-state.json`;
/** Where the state's ids of ordinals block·4,096 on are stored, under the tag of the write that stored them. */
export const idBlockKey = (blog: string, block: number, tag: string): string => `${idBlockPrefix(blog)}${block}-${tag}.txt`;
export const idBlockPrefix = (blog: string): string => `${blog}/_search/ids/`;
/** Prefixes of the files a layout change may leave behind. */
export const dataPrefixes = (blog: string): string[] => [`${blog}/search/t/`, `${blog}/search/d/`, `${blog}/search/x/`, `${blog}/search/l/`];

/** Postings bytes a chunk should hold, compressed, so a query word costs about this much. */
const CHUNK_TARGET_GZIP_BYTES = 8 * 1024;
/** What a posting costs in a gzipped chunk (gap and tf as decimal text), on generated posts. */
const GZIP_BYTES_PER_POSTING = 2.5;
const MIN_CHUNKS = 8;
const MAX_CHUNKS = 4096;

/** The chunk count for this many postings: a power of two near the target chunk size. */
export function chunkCountFor(postings: number): number {
  let chunks = MIN_CHUNKS;
  while (chunks < MAX_CHUNKS && (postings * GZIP_BYTES_PER_POSTING) / chunks > CHUNK_TARGET_GZIP_BYTES) chunks *= 2;
  return chunks;
}

/** `[ord, tf, …]` with absolute ordinals → the stored gap form, and back. */
export function encodePostings(absolute: readonly number[]): number[] {
  const out = [...absolute];
  let previous = 0;
  for (let i = 0; i < absolute.length; i += POSTING_STRIDE) {
    out[i] = absolute[i]! - previous;
    previous = absolute[i]!;
  }
  return out;
}

export function decodePostings(gaps: readonly number[]): number[] {
  const out = [...gaps];
  let ordinal = 0;
  for (let i = 0; i < gaps.length; i += POSTING_STRIDE) {
    ordinal += gaps[i]!;
    out[i] = ordinal;
  }
  return out;
}
