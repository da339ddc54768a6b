/**
 * How a query is answered from the static index, in the browser: the `/search/` page's script
 * is this file's compiled text after the tokenizer and bm25.ts (publish/render/searchScript.ts),
 * and templates/search/client.js only fetches files and draws cards. Tests run the same code in
 * Node against the API's search.
 *
 * The ranking is the API's (ranking.ts), number for number: BM25 with the posts' field-weighted
 * lengths, N, the average length and every document frequency taken over the live posts of the
 * term chunks and the delta together, terms added up in query order; then newest publishedAt,
 * then slug. A post's score does not depend on which file holds its postings.
 *
 * Only type imports and the files before it in the page's script may be used here: the script is
 * made by dropping import lines and `export` keywords.
 */
import { idfOf, lengthNormOf, termScoreOf, termWeightOf } from '../bm25.js';

export const STATIC_FORMAT = 'folio-static-search';
/**
 * 2: postings carry the post's length, fragments its slug and length, meta.json the total length.
 * 3: the lengths move out of the postings into files of their own (l/<n>.json): each post's
 * length was repeated in every posting of it, and made up more than half of a chunk's bytes.
 */
export const STATIC_FORMAT_VERSION = 3;

/** Numbers per posting in a chunk: ordinal gap, weighted tf (occurrences). */
export const POSTING_STRIDE = 2;

/** Ordinals per lengths file: `l/<n>.json` holds the lengths of ordinals n × LENGTH_BLOCK onwards. */
export const LENGTH_BLOCK = 1024;

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
  /** Sum of the live posts' field-weighted lengths (N times BM25's average length). */
  length: number;
  /** Ordinals of removed or superseded posts still named in chunks not rewritten since. */
  dead: number[];
  /** New on every write, as in the state it was written with: a writer knows its state is current. */
  revision?: string;
}

/** A chunk: term → postings as `[ordinal gap, tf, ordinal gap, tf, …]`. */
export type ChunkFile = Record<string, number[]>;

/**
 * A lengths file: the field-weighted length (half-units) of each ordinal of its block, in order
 * (a dead ordinal's may be anything; nothing reads it).
 */
export type LengthFile = number[];

/** The lengths file of an ordinal, relative to `/search/`. */
export function lengthPathOf(ordinal: number): string {
  return `l/${Math.floor(ordinal / LENGTH_BLOCK)}.json`;
}

/** One post in a fragment: `[title, path, publishedAt, tags, description, slug, length]`. */
export type FragmentEntry = [string, string, string, string[], string, string, number];

/** FNV-1a over UTF-16 code units, masked to the chunk count: the file a term's postings are in. */
export function chunkOf(term: string, chunks: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193) >>> 0;
  return hash & (chunks - 1);
}

/** Whether meta.json is of the format this code reads. */
export function readableMeta(meta: unknown): meta is StaticMeta {
  const m = meta as Partial<StaticMeta> | null;
  return !!m && m.format === STATIC_FORMAT && m.version === STATIC_FORMAT_VERSION;
}

/** The files holding a term's postings, relative to `/search/`: its term chunk, and its delta chunk if there is a delta. */
export function chunkPathsOf(meta: StaticMeta, term: string): string[] {
  const paths = [`t/${chunkOf(term, meta.chunks)}.json`];
  if (meta.delta > 0) paths.push(`x/${chunkOf(term, meta.delta)}.json`);
  return paths;
}

/** A term's live postings, ordinals ascending, as parallel arrays. */
export interface TermPostings {
  ords: number[];
  tfs: number[];
}

/**
 * A term's live postings from its files (chunkPathsOf, null for a missing one): the term
 * chunk's, then the delta's, the dead left out. Sorted again should a writer ever break the
 * order (the delta's ordinals are the newest).
 */
export function livePostings(files: readonly (ChunkFile | null)[], term: string, dead: ReadonlySet<number>): TermPostings {
  let ords: number[] = [];
  let tfs: number[] = [];
  let sorted = true;
  for (const file of files) {
    const gaps = file ? file[term] : undefined;
    if (!gaps) continue;
    let ordinal = 0;
    for (let i = 0; i < gaps.length; i += POSTING_STRIDE) {
      ordinal += gaps[i]!;
      if (dead.has(ordinal)) continue;
      if (ords.length > 0 && ordinal <= ords[ords.length - 1]!) sorted = false;
      ords.push(ordinal);
      tfs.push(gaps[i + 1]!);
    }
  }
  if (!sorted) {
    const order = ords.map((_, i) => i).sort((a, b) => ords[a]! - ords[b]!);
    ords = order.map((i) => ords[i]!);
    tfs = order.map((i) => tfs[i]!);
  }
  return { ords, tfs };
}

/** The posts holding every term, ordinals ascending, with their scores. */
export interface StaticMatches {
  ords: number[];
  scores: number[];
}

/** Reads a lengths file (`lengthPathOf`), null for a missing one. */
export type LengthsOf = (path: string) => Promise<LengthFile | null>;

/**
 * The posts holding every term and their BM25 scores, as ranking.ts computes them: `lists` are
 * the live postings of the query's terms in query order, and the sum runs in that order. The
 * lengths files read are those of the matching posts only.
 */
export async function scoreMatches(meta: Pick<StaticMeta, 'docs' | 'length'>, lists: readonly TermPostings[], lengthsOf: LengthsOf): Promise<StaticMatches> {
  if (lists.length === 0 || meta.docs === 0 || lists.some((list) => list.ords.length === 0)) return { ords: [], scores: [] };
  const weights = lists.map((list) => termWeightOf(idfOf(meta.docs, list.ords.length)));
  const averageLength = meta.length / meta.docs;
  // Walk the rarest list; every other one is searched forward in step (its ordinals ascend too).
  let rarest = 0;
  lists.forEach((list, k) => {
    if (list.ords.length < lists[rarest]!.ords.length) rarest = k;
  });
  const at = lists.map(() => 0);
  const ords: number[] = [];
  // The tf of each list at each match, list by list: tfsAt[k][m] for match m.
  const tfsAt: number[][] = lists.map(() => []);
  const base = lists[rarest]!;
  outer: for (let j = 0; j < base.ords.length; j++) {
    const ordinal = base.ords[j]!;
    at[rarest] = j;
    for (let k = 0; k < lists.length; k++) {
      if (k === rarest) continue;
      const other = lists[k]!.ords;
      let p = at[k]!;
      while (p < other.length && other[p]! < ordinal) p++;
      at[k] = p;
      if (p === other.length) break outer;
      if (other[p] !== ordinal) continue outer;
    }
    ords.push(ordinal);
    for (let k = 0; k < lists.length; k++) tfsAt[k]!.push(lists[k]!.tfs[at[k]!]!);
  }
  const files = new Map<string, Promise<LengthFile | null>>();
  for (const ordinal of ords) {
    const path = lengthPathOf(ordinal);
    if (!files.has(path)) files.set(path, lengthsOf(path));
  }
  const loaded = new Map<string, LengthFile | null>();
  await Promise.all([...files].map(async ([path, file]) => loaded.set(path, await file)));
  const scores: number[] = [];
  for (const [m, ordinal] of ords.entries()) {
    const length = loaded.get(lengthPathOf(ordinal))?.[ordinal % LENGTH_BLOCK] ?? averageLength;
    const norm = lengthNormOf(length, averageLength);
    let score = 0;
    for (let k = 0; k < lists.length; k++) score += termScoreOf(weights[k]!, tfsAt[k]![m]!, norm);
    scores.push(score);
  }
  return { ords, scores };
}

/** What the order of equal scores needs of a post: its fragment entry (undefined if it has none). */
export type EntryOf = (ordinal: number) => Promise<FragmentEntry | undefined>;

/** The API's order of equal scores: newest publishedAt, then slug. */
interface TieKey {
  published: number;
  slug: string;
}

function tieKeyOf(entry: FragmentEntry | undefined): TieKey {
  const ms = entry ? Date.parse(entry[2]) : Number.NaN;
  return { published: Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms, slug: entry ? entry[5] : '' };
}

/** Up to this many best matches are picked by insertion; more are sorted whole. */
const PICK_LIMIT = 64;

/**
 * The matches in the API's order, a page at a time. Only what a page needs is ordered: the best
 * `to` scores are picked (plus every match tied with the last of them), and only posts whose
 * score another post shares have their fragment read, for the date and slug that order them.
 */
export class RankedMatches {
  readonly length: number;
  private sorted: number[] | null = null;
  private readonly keys = new Map<number, Promise<TieKey>>();

  constructor(
    private readonly matches: StaticMatches,
    private readonly entryOf: EntryOf,
  ) {
    this.length = matches.ords.length;
  }

  /** Ordinals of the matches ranked from..to-1. */
  async slice(from: number, to: number): Promise<number[]> {
    const best = this.bestByScore(Math.min(to, this.length));
    const ranked = await this.breakTies(best);
    return ranked.slice(from, to).map((i) => this.matches.ords[i]!);
  }

  /** Indices of at least the best `count` matches and every match tied with them, by score, best first. */
  private bestByScore(count: number): number[] {
    const { scores } = this.matches;
    if (count <= 0) return [];
    if (count > PICK_LIMIT || count >= this.length) {
      this.sorted ??= Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]!);
      const threshold = scores[this.sorted[count - 1]!]!;
      let end = count;
      while (end < this.sorted.length && scores[this.sorted[end]!] === threshold) end++;
      return this.sorted.slice(0, end);
    }
    const top: number[] = [];
    for (let i = 0; i < scores.length; i++) {
      if (top.length === count && scores[i]! <= scores[top[count - 1]!]!) continue;
      let p = Math.min(top.length, count - 1);
      while (p > 0 && scores[i]! > scores[top[p - 1]!]!) p--;
      top.splice(p, 0, i);
      if (top.length > count) top.pop();
    }
    const threshold = scores[top[count - 1]!]!;
    const kept = new Set(top);
    for (let i = 0; i < scores.length; i++) if (scores[i] === threshold && !kept.has(i)) top.push(i);
    return top;
  }

  /** `best` (by score, best first) with each run of equal scores ordered by date and slug. */
  private async breakTies(best: number[]): Promise<number[]> {
    const { scores, ords } = this.matches;
    const out = [...best];
    for (let start = 0; start < out.length; ) {
      let end = start + 1;
      while (end < out.length && scores[out[end]!] === scores[out[start]!]) end++;
      if (end - start > 1) {
        const run = out.slice(start, end);
        const keys = await Promise.all(run.map((i) => this.keyOf(ords[i]!)));
        const order = run.map((_, r) => r).sort((a, b) => compareTies(keys[a]!, keys[b]!));
        for (const [n, r] of order.entries()) out[start + n] = run[r]!;
      }
      start = end;
    }
    return out;
  }

  private keyOf(ordinal: number): Promise<TieKey> {
    let key = this.keys.get(ordinal);
    if (!key) this.keys.set(ordinal, (key = this.entryOf(ordinal).then(tieKeyOf)));
    return key;
  }
}

function compareTies(a: TieKey, b: TieKey): number {
  if (a.published !== b.published) return a.published > b.published ? -1 : 1;
  return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
}
