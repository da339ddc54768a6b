/**
 * A layout of the static index: every live post with an ordinal from 0, the term chunks and the
 * fragments that hold them. A rebuild lays out posts afresh, a compaction the live posts it reads
 * back from the stored files (staticIndexWriter.ts writes both and commits them).
 */
import { TimeSlice } from '../../lib/timeSlice.js';
import type { SegmentData } from '../segmentData.js';
import type { ListedDocument } from '../searchTypes.js';
import type { FragmentEdits } from './fragmentEdits.js';
import { OrdinalIds } from './ordinalIds.js';
import { serialiseChunk, type PostingList } from './postingLists.js';
import {
  chunkCountFor,
  chunkKey,
  chunkOf,
  decodePostings,
  deltaChunksOf,
  deltaKey,
  FRAGMENT_SIZE,
  fragmentKey,
  LENGTH_BLOCK,
  lengthKey,
  POSTING_STRIDE,
  type ChunkFile,
  type FragmentEntry,
  type FragmentFile,
  type LengthFile,
  type StaticState,
} from './staticFormat.js';

/** How long a layout is worked on before the event loop gets a turn. */
const SLICE_MS = 10;

/** A post as the layout holds it: its ordinal, id and fragment entry. */
export interface LaidOutDoc {
  ordinal: number;
  id: string;
  entry: FragmentEntry;
}

/**
 * What the browser shows of a post in its results, and what it orders equal scores by (date,
 * slug); `length` is the post's field-weighted length, which the writer takes off the total when
 * the post goes.
 */
export function entryOf(doc: ListedDocument, length: number): FragmentEntry {
  let path: string;
  try {
    path = new URL(doc.url).pathname;
  } catch {
    path = `/${encodeURIComponent(doc.slug)}/`;
  }
  return [doc.title, path, doc.publishedAt, [...doc.tags], doc.metaDescription, doc.slug, length];
}

export function oldestFirst(a: ListedDocument, b: ListedDocument): number {
  return a.publishedAt < b.publishedAt ? -1 : a.publishedAt > b.publishedAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Whether the segments, one after another, hold exactly `docs` in their order. */
export function inOrder(segments: readonly SegmentData[], docs: readonly ListedDocument[]): boolean {
  let at = 0;
  for (const segment of segments) {
    for (const id of segment.docs.ids) if (docs[at++]?.id !== id) return false;
  }
  return at === docs.length;
}

/** The post id of each laid-out ordinal (they run from 0 without gaps). */
export function idsOf(docs: readonly { ordinal: number; id: string }[]): OrdinalIds {
  const ids = new Array<string>(docs.length);
  for (const doc of docs) ids[doc.ordinal] = doc.id;
  return OrdinalIds.of(ids);
}

/** The sorted posts with ordinals 0, 1, …, a time slice at a time; `segments` hold them in that order. */
export async function laidOutDocs(sorted: readonly ListedDocument[], segments: readonly SegmentData[]): Promise<LaidOutDoc[]> {
  const laidOut: LaidOutDoc[] = [];
  const slice = new TimeSlice(SLICE_MS);
  let ordinal = 0;
  for (const segment of segments) {
    for (const length of segment.docs.lengths) {
      laidOut.push({ ordinal, id: sorted[ordinal]!.id, entry: entryOf(sorted[ordinal]!, length) });
      ordinal++;
      if (slice.over) await slice.next();
    }
  }
  return laidOut;
}

/** Sum of the posts' lengths (meta.json's `length`). */
export function totalLength(docs: readonly LaidOutDoc[]): number {
  let total = 0;
  for (const doc of docs) total += doc.entry[6];
  return total;
}

/**
 * The live posts of a stored index, renumbered from 0 in their order, with their postings read
 * back from the term chunks and the delta: what a compaction lays out again.
 */
export async function liveLayout(
  blogSlug: string,
  state: StaticState,
  fragments: FragmentEdits,
  readChunk: (key: string) => Promise<ChunkFile | null>,
): Promise<{ docs: LaidOutDoc[]; terms: Iterable<[string, PostingList]>; postings: number }> {
  const liveOrdinals = new Map<number, string>();
  const dead = new Set(state.dead);
  for (let ordinal = 0; ordinal < state.next; ordinal++) if (!dead.has(ordinal)) liveOrdinals.set(ordinal, state.ids.at(ordinal));
  const docs: LaidOutDoc[] = [];
  for (let f = 0; f * FRAGMENT_SIZE < state.next; f++) {
    const file = await fragments.of(f * FRAGMENT_SIZE);
    for (const [ordinal, entry] of Object.entries(file)) {
      const id = liveOrdinals.get(Number(ordinal));
      if (id !== undefined) docs.push({ ordinal: Number(ordinal), id, entry });
    }
  }
  docs.sort((a, b) => a.ordinal - b.ordinal);
  const renumber = new Map(docs.map((d, i) => [d.ordinal, i]));
  const terms = new Map<string, number[]>();
  let postings = 0;
  const files = [
    ...Array.from({ length: state.chunks }, (_, chunk) => chunkKey(blogSlug, chunk)),
    // The delta after the chunks: its ordinals are the newest, so each term's list stays sorted.
    ...Array.from({ length: state.delta.length > 0 ? deltaChunksOf(state) : 0 }, (_, chunk) => deltaKey(blogSlug, chunk)),
  ];
  for (const key of files) {
    const file = await readChunk(key);
    for (const [term, gaps] of Object.entries(file ?? {})) {
      const list = decodePostings(gaps);
      const kept: number[] = [];
      for (let i = 0; i < list.length; i += POSTING_STRIDE) {
        const ordinal = renumber.get(list[i]!);
        if (ordinal !== undefined) kept.push(ordinal, list[i + 1]!);
      }
      if (kept.length > 0) {
        terms.set(term, [...(terms.get(term) ?? []), ...kept]);
        postings += kept.length / POSTING_STRIDE;
      }
    }
  }
  return { docs: docs.map((d, i) => ({ ...d, ordinal: i })), terms: terms.entries(), postings };
}

/**
 * The files of a layout: its chunk count (by the postings), the keys it writes, and the files
 * themselves, serialised as the caller's puts take them.
 */
export async function layoutFiles(
  blogSlug: string,
  docs: readonly LaidOutDoc[],
  terms: Iterable<[string, PostingList]>,
  postings: number,
): Promise<{ chunks: number; keys: string[]; objects: Iterable<{ key: string; body: string }> }> {
  const chunks = chunkCountFor(postings);
  const files = Array.from({ length: chunks }, (): Record<string, PostingList> => ({}));
  // Hundreds of thousands of terms at 50,000 posts: the event loop gets turns in between.
  const slice = new TimeSlice(SLICE_MS);
  for (const [term, list] of terms) {
    files[chunkOf(term, chunks)]![term] = list;
    if (slice.over) await slice.next();
  }
  const fragmentCount = Math.ceil(docs.length / FRAGMENT_SIZE);
  const blockCount = Math.ceil(docs.length / LENGTH_BLOCK);
  const keys = [
    ...Array.from({ length: chunks }, (_, chunk) => chunkKey(blogSlug, chunk)),
    ...Array.from({ length: fragmentCount }, (_, f) => fragmentKey(blogSlug, f)),
    ...Array.from({ length: blockCount }, (_, block) => lengthKey(blogSlug, block)),
  ];
  function* objects(): Generator<{ key: string; body: string }> {
    for (let chunk = 0; chunk < chunks; chunk++) yield { key: chunkKey(blogSlug, chunk), body: serialiseChunk(files[chunk]!) };
    for (let f = 0; f < fragmentCount; f++) {
      const file: FragmentFile = {};
      for (const doc of docs.slice(f * FRAGMENT_SIZE, (f + 1) * FRAGMENT_SIZE)) file[doc.ordinal] = doc.entry;
      yield { key: fragmentKey(blogSlug, f), body: JSON.stringify(file) };
    }
    // Ordinals run from 0 without gaps: block b holds docs b × LENGTH_BLOCK onwards, in order.
    for (let block = 0; block < blockCount; block++) {
      const lengths: LengthFile = docs.slice(block * LENGTH_BLOCK, (block + 1) * LENGTH_BLOCK).map((doc) => doc.entry[6]);
      yield { key: lengthKey(blogSlug, block), body: JSON.stringify(lengths) };
    }
  }
  return { chunks, keys, objects: objects() };
}
