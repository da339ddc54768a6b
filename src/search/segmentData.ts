/**
 * A segment's content as plain data: the document table and, per term, the documents holding
 * it with their field-weighted term frequency. Built through lunr (lunrSetup.ts), merged by
 * concatenation, serialised by segmentCodec.ts. Immutable once built.
 */
import { countTerms, INDEX_FIELDS, type TokenizedFields } from './lunrSetup.js';
import type { SearchDocument } from './searchTypes.js';
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

/** A field's text as indexed terms: the tokenizer, then each token's term (queries do the same). */
function terms(text: string): string[] {
  const tokens = tokenize(text);
  for (let i = 0; i < tokens.length; i++) tokens[i] = termOf(tokens[i]!);
  return tokens;
}

function tokenizeFields(doc: SearchDocument): { fields: TokenizedFields; length: number } {
  const fields: TokenizedFields = {
    title: terms(doc.title),
    tags: doc.tags.flatMap(terms),
    description: terms(doc.metaDescription),
    body: terms(doc.body),
  };
  let length = 0;
  for (const field of INDEX_FIELDS) length += field.weight * fields[field.name].length;
  return { fields, length };
}

/** Indexes documents (in the given order) into one segment. */
export function buildSegmentData(docs: readonly SearchDocument[]): SegmentData {
  const tokenized = docs.map(tokenizeFields);
  const { termFrequencies } = countTerms(tokenized.map((t) => t.fields));

  const byTerm = new Map<string, number[]>();
  let postings = 0;
  termFrequencies.forEach((tfs, ordinal) => {
    for (const [term, tf] of tfs) {
      let list = byTerm.get(term);
      if (!list) {
        list = [];
        byTerm.set(term, list);
      }
      list.push(ordinal, Math.min(tf, MAX_TERM_FREQUENCY));
      postings++;
    }
  });

  const terms = [...byTerm.keys()].sort();
  const offsets = new Uint32Array(terms.length + 1);
  const postingDocs = new Uint32Array(postings);
  const postingTfs = new Uint16Array(postings);
  let at = 0;
  terms.forEach((term, i) => {
    offsets[i] = at;
    const list = byTerm.get(term)!;
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
      lengths: Uint32Array.from(tokenized, (t) => t.length),
    },
    terms,
    offsets,
    postingDocs,
    postingTfs,
  };
}

export interface SegmentPart {
  data: SegmentData;
  /** Ordinals to leave out (deleted or superseded documents); null keeps all. */
  drop: Uint8Array | null;
}

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
  const docs = emptyDocTable();
  const lengths: number[] = [];
  const ordinalMaps = parts.map(({ data, drop }) => {
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
    }
    return map;
  });
  docs.lengths = Uint32Array.from(lengths);

  let capacity = 0;
  for (const { data } of parts) capacity += data.postingDocs.length;
  const postingDocs = new Uint32Array(capacity);
  const postingTfs = new Uint16Array(capacity);
  const terms: string[] = [];
  const offsets: number[] = [];
  const cursors = parts.map(() => 0);
  let at = 0;

  // k-way merge of the sorted term lists; k is small (a merge takes a handful of segments).
  for (;;) {
    let next: string | undefined;
    parts.forEach(({ data }, p) => {
      const term = data.terms[cursors[p]!];
      if (term !== undefined && (next === undefined || term < next)) next = term;
    });
    if (next === undefined) break;
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
      postingDocs: postingDocs.slice(0, at),
      postingTfs: postingTfs.slice(0, at),
    },
    ordinalMaps,
  };
}
