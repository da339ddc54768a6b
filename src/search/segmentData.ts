/**
 * A segment's content as plain data: the document table and, per term, the documents holding
 * it with their field-weighted term frequency. Built here, merged by concatenation, serialised
 * by segmentCodec.ts, queried through lunr or the postings (ranking.ts). Immutable once built.
 */
import { runSteps, runStepsCooperatively } from '../lib/steps.js';
import { INDEX_FIELDS, type IndexFieldName } from './lunrSetup.js';
import type { ListedDocument, SearchDocument } from './searchTypes.js';
import { termOf, tokenize } from './tokenize.js';

/** Term frequencies are stored in 16 bits; BM25 saturates long before this. */
export const MAX_TERM_FREQUENCY = 0xffff;

export interface DocTable {
  ids: string[];
  slugs: string[];
  titles: string[];
  descriptions: string[];
  tags: string[][];
  createdAt: string[];
  publishedAt: string[];
  urls: string[];
  /** Field-weighted number of surface tokens: the document length of BM25. */
  lengths: Uint32Array;
}

export interface SegmentData {
  docs: DocTable;
  /** Sorted by UTF-16 code units (what lunr's TokenSet requires). */
  terms: string[];
  /** Postings of terms[i] are at [offsets[i], offsets[i + 1]). */
  offsets: Uint32Array;
  /** Document ordinals, ascending within a term. */
  postingDocs: Uint32Array;
  postingTfs: Uint16Array;
}

/** The buffers of a segment, which a worker thread can hand over instead of copying. */
export function segmentTransferList(data: SegmentData): ArrayBuffer[] {
  return [data.offsets.buffer, data.postingDocs.buffer, data.postingTfs.buffer, data.docs.lengths.buffer].filter(
    (b): b is ArrayBuffer => b instanceof ArrayBuffer,
  );
}

export function emptyDocTable(): DocTable {
  return { ids: [], slugs: [], titles: [], descriptions: [], tags: [], createdAt: [], publishedAt: [], urls: [], lengths: new Uint32Array(0) };
}

/** The text of each field of a post, as the index weighs it (lunrSetup.ts, INDEX_FIELDS). */
function fieldTexts(doc: SearchDocument): Record<IndexFieldName, readonly string[]> {
  return { title: [doc.title], tags: doc.tags, description: [doc.metaDescription], body: [doc.body], code: [doc.code] };
}

/**
 * Indexes documents (in the given order) into one segment: per term, the documents holding it
 * with their field-weighted frequency, and per document its weighted length.
 *
 * The counting is done here, directly: lunr's `Builder#add` counted the same numbers (tests
 * compare both, test/unit/search/segmentCounts.test.ts) but also built an inverted index with
 * match metadata and per-field tables that we discarded, which made it and its garbage three
 * quarters of a reindex. Terms are the tokenizer's output reduced by `termOf`, exactly what a
 * query goes through.
 */
export function buildSegmentData(docs: readonly SearchDocument[]): SegmentData {
  const termIds = new Map<string, number>();
  const termList: string[] = [];
  const byTerm: number[][] = [];
  const lengths = new Uint32Array(docs.length);
  // Per document: term id → weighted frequency, reused (cleared) for every document.
  const tf = new Map<number, number>();
  let postings = 0;
  docs.forEach((doc, ordinal) => {
    tf.clear();
    let length = 0;
    const texts = fieldTexts(doc);
    for (const { name, weight } of INDEX_FIELDS) {
      for (const text of texts[name]) {
        for (const token of tokenize(text)) {
          const term = termOf(token);
          let id = termIds.get(term);
          if (id === undefined) {
            id = termList.length;
            termIds.set(term, id);
            termList.push(term);
            byTerm.push([]);
          }
          tf.set(id, (tf.get(id) ?? 0) + weight);
          length += weight;
        }
      }
    }
    lengths[ordinal] = length;
    for (const [id, count] of tf) byTerm[id]!.push(ordinal, Math.min(count, MAX_TERM_FREQUENCY));
    postings += tf.size;
  });

  const order = termList.map((_, id) => id).sort((a, b) => (termList[a]! < termList[b]! ? -1 : termList[a]! > termList[b]! ? 1 : 0));
  const terms = order.map((id) => termList[id]!);
  const offsets = new Uint32Array(terms.length + 1);
  const postingDocs = new Uint32Array(postings);
  const postingTfs = new Uint16Array(postings);
  let at = 0;
  order.forEach((id, i) => {
    offsets[i] = at;
    const list = byTerm[id]!;
    for (let j = 0; j < list.length; j += 2) {
      postingDocs[at] = list[j]!;
      postingTfs[at] = list[j + 1]!;
      at++;
    }
  });
  offsets[terms.length] = at;

  return {
    docs: {
      ids: docs.map((d) => d.id),
      slugs: docs.map((d) => d.slug),
      titles: docs.map((d) => d.title),
      descriptions: docs.map((d) => d.metaDescription),
      tags: docs.map((d) => [...d.tags]),
      createdAt: docs.map((d) => d.createdAt),
      publishedAt: docs.map((d) => d.publishedAt),
      urls: docs.map((d) => d.url),
      lengths,
    },
    terms,
    offsets,
    postingDocs,
    postingTfs,
  };
}

/** What the segments list of their posts, in their order: the posts without their text. */
export function listedDocsOf(segments: readonly SegmentData[]): ListedDocument[] {
  const listed: ListedDocument[] = [];
  for (const { docs } of segments)
    for (let i = 0; i < docs.ids.length; i++)
      listed.push({
        id: docs.ids[i]!,
        slug: docs.slugs[i]!,
        title: docs.titles[i]!,
        metaDescription: docs.descriptions[i]!,
        tags: docs.tags[i]!,
        createdAt: docs.createdAt[i]!,
        publishedAt: docs.publishedAt[i]!,
        url: docs.urls[i]!,
      });
  return listed;
}

export interface SegmentPart {
  data: SegmentData;
  /** Ordinals to leave out (deleted or superseded documents); null keeps all. */
  drop: Uint8Array | null;
}

/** A merge input not decoded yet: an opened version 3 segment's bytes, decoded where the merge runs. */
export interface StoredPart {
  stored: { key: string; raw: Uint8Array; postings: number };
  drop: Uint8Array | null;
}

export type MergeInput = SegmentPart | StoredPart;

/** Postings a merge input holds (what decides whether a merge runs in place). */
export const postingsOf = (part: MergeInput): number => ('stored' in part ? part.stored.postings : part.data.postingDocs.length);

export interface ConcatResult {
  data: SegmentData;
  /** Per part: old ordinal → new ordinal, or -1 for a dropped document. */
  ordinalMaps: Int32Array[];
}

/**
 * Joins segments into one, dropping the flagged documents. Documents keep their relative
 * order (part by part), so each term's postings stay sorted by a plain append: no re-indexing
 * and no text is needed, which is what makes merges and head rewrites cheap.
 */
export function concatSegments(parts: readonly SegmentPart[]): ConcatResult {
  return runSteps(concatSteps(parts));
}

/**
 * concatSegments on the event loop of the server, in slices: joining the pieces of a large
 * rebuild in one go would hold every other request that long.
 */
export function concatSegmentsCooperatively(parts: readonly SegmentPart[]): Promise<ConcatResult> {
  return runStepsCooperatively(concatSteps(parts));
}

/**
 * buildSegmentData of `docs` a piece of `pieceDocs` at a time, joined: the same segment, with
 * the term maps of each piece dying young (cheaper for the garbage collector than one big build).
 */
export function buildInPieces(docs: readonly SearchDocument[], pieceDocs: number): SegmentData {
  if (docs.length <= pieceDocs) return buildSegmentData(docs);
  const parts: SegmentPart[] = [];
  for (let i = 0; i < docs.length; i += pieceDocs) parts.push({ data: buildSegmentData(docs.slice(i, i + pieceDocs)), drop: null });
  return concatSegments(parts).data;
}

/**
 * Work between pauses (a `yield`, where its driver may check the time), counted in documents
 * copied, parts looked at and postings copied: a term costs one look per part.
 */
const CONCAT_STEP = 32_768;

function* concatSteps(parts: readonly SegmentPart[]): Generator<void, ConcatResult> {
  let work = 0;
  const docs = emptyDocTable();
  const lengths: number[] = [];
  const ordinalMaps: Int32Array[] = [];
  for (const { data, drop } of parts) {
    const map = new Int32Array(data.docs.ids.length).fill(-1);
    for (let i = 0; i < map.length; i++) {
      if (drop?.[i]) continue;
      map[i] = docs.ids.length;
      const d = data.docs;
      docs.ids.push(d.ids[i]!);
      docs.slugs.push(d.slugs[i]!);
      docs.titles.push(d.titles[i]!);
      docs.descriptions.push(d.descriptions[i]!);
      docs.tags.push(d.tags[i]!);
      docs.createdAt.push(d.createdAt[i]!);
      docs.publishedAt.push(d.publishedAt[i]!);
      docs.urls.push(d.urls[i]!);
      lengths.push(d.lengths[i]!);
      if (++work >= CONCAT_STEP) {
        work = 0;
        yield;
      }
    }
    ordinalMaps.push(map);
  }
  docs.lengths = Uint32Array.from(lengths);

  let capacity = 0;
  for (const { data } of parts) capacity += data.postingDocs.length;
  const postingDocs = new Uint32Array(capacity);
  const postingTfs = new Uint16Array(capacity);
  const terms: string[] = [];
  const offsets: number[] = [];
  const cursors = parts.map(() => 0);
  let at = 0;

  // k-way merge of the sorted term lists; k is small (a merge takes a handful of segments, a
  // rebuild's join tens of runs).
  for (;;) {
    let next: string | undefined;
    parts.forEach(({ data }, p) => {
      const term = data.terms[cursors[p]!];
      if (term !== undefined && (next === undefined || term < next)) next = term;
    });
    if (next === undefined) break;
    work += parts.length;
    if (work >= CONCAT_STEP) {
      work = 0;
      yield;
    }
    const start = at;
    parts.forEach(({ data }, p) => {
      const t = cursors[p]!;
      if (data.terms[t] !== next) return;
      cursors[p] = t + 1;
      const map = ordinalMaps[p]!;
      for (let j = data.offsets[t]!; j < data.offsets[t + 1]!; j++) {
        const ordinal = map[data.postingDocs[j]!]!;
        if (ordinal < 0) continue;
        postingDocs[at] = ordinal;
        postingTfs[at] = data.postingTfs[j]!;
        at++;
      }
    });
    work += at - start;
    // A term whose every document was dropped disappears with them.
    if (at > start) {
      terms.push(next);
      offsets.push(start);
    }
  }
  offsets.push(at);

  return {
    data: {
      docs,
      terms,
      offsets: Uint32Array.from(offsets),
      // Trimmed only when documents were dropped: a rebuild's joins drop none, and a copy of a
      // large segment's postings would sit beside the original until the next collection.
      postingDocs: at === capacity ? postingDocs : postingDocs.slice(0, at),
      postingTfs: at === capacity ? postingTfs : postingTfs.slice(0, at),
    },
    ordinalMaps,
  };
}
