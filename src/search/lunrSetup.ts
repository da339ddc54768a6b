/**
 * Everything that touches lunr, in one place, so its globals and its query syntax are handled once.
 *
 * - Index time: the fields and their weights. Terms are counted in segmentData.ts, the same
 *   numbers a `lunr.Builder` with empty pipelines counts (a test compares them).
 * - Query time: `lunr.Index#query` with one REQUIRED clause per query term, never
 *   `Index#search(string)`, so lunr's query parser never sees user text. Terms come from
 *   `queryTerms`, which applies the same tokenizer and stem function as indexing.
 *
 * @types/lunr 2.3.7 lags lunr 2.3.9 (it calls `fieldVectors` `documentVectors`, declares
 * `TokenSet.fromArray` as an instance method and omits the Builder's term counts), so the few
 * internals we read go through the small typed views below.
 */
import { createRequire } from 'node:module';
import type lunrModule from 'lunr';
import type * as lunr from 'lunr';

type Lunr = typeof lunrModule;

// Required on the first query of the lunr executor, the reference: the default executor never
// touches lunr, so a server does not load it at start-up.
const requireModule = createRequire(import.meta.url);
let loaded: Lunr | undefined;
const lunrApi = (): Lunr => (loaded ??= requireModule('lunr') as Lunr);

/**
 * Fields of a post and how much one occurrence counts in the score (title words weigh most), in
 * units of WEIGHT_UNIT: a word of a code block counts half a word of prose, so a code word is
 * findable (`select`, `curl`) without outranking posts that write about it.
 */
export const INDEX_FIELDS = [
  { name: 'title', weight: 6 },
  { name: 'tags', weight: 4 },
  { name: 'description', weight: 2 },
  { name: 'body', weight: 2 },
  { name: 'code', weight: 1 },
] as const;

/** Stored term frequencies and lengths count in these parts of a prose occurrence. */
export const WEIGHT_UNIT = 2;

export type IndexFieldName = (typeof INDEX_FIELDS)[number]['name'];

/**
 * The single field of the query-time index: the segment stores field-weighted counts. One
 * letter, because lunr builds a `<field>/<ref>` string for every matching document.
 */
export const QUERY_FIELD = 't';

const NO_METADATA = Object.freeze({});

/** A posting as lunr's Index reads it: `{ _index, [field]: { [docRef]: metadata } }`. */
type LunrPosting = Record<string, number | Record<number, object>>;

interface IndexAttributes {
  invertedIndex: Record<string, LunrPosting>;
  fieldVectors: Record<string, lunr.Vector>;
  tokenSet: lunr.TokenSet;
  fields: string[];
  pipeline: lunr.Pipeline;
}

interface TokenSetStatics {
  fromArray(sorted: readonly string[]): lunr.TokenSet;
}

let emptyVector: lunr.Vector | undefined;

/**
 * Every field vector is the empty vector: lunr's similarity is discarded (ranking is the global
 * BM25 of ranking.ts). One shared object whose every key reads as the empty vector, so no
 * per-query or per-segment table of document refs is needed.
 */
const EMPTY_FIELD_VECTORS = new Proxy<Record<string, lunr.Vector>>(Object.create(null) as Record<string, lunr.Vector>, {
  get: () => (emptyVector ??= new (lunrApi().Vector)([])),
});

/**
 * Stands in for lunr.MatchData during `matchAll`. lunr's Index#query builds one MatchData (three
 * dictionary-mode objects) per matching document to report where terms matched; we store no
 * match metadata and read none (ranking.ts scores from the postings), yet building it would be
 * most of the cost of a query on a common word.
 * Index#query looks `lunr.MatchData` up when it runs (lunr 2.3.9, pinned), and the query is
 * synchronous, so swapping it for the duration of our own query touches nothing else.
 */
function NoMatchData(): void {}
NoMatchData.prototype.add = function add(): void {};
NoMatchData.prototype.combine = function combine(): void {};

/**
 * Stands in for lunr.FieldRef during `matchAll`, for the same reason. lunr keys its per-query
 * tables by `<field>/<docRef>` strings, concatenated per matching document and parsed back
 * later; our assembled index has the one field QUERY_FIELD, so the document ref alone names
 * the field ref (a bijection), and the strings lunr already holds (from `Object.keys` of the
 * posting) serve as keys without building new ones. Our field vectors answer every key with
 * the empty vector, so no other table is keyed by these strings. About a third less per
 * matching document on a three-word query.
 */
function QueryFieldRef(this: { docRef: string; fieldName: string }, docRef: string, fieldName: string): void {
  this.docRef = docRef;
  this.fieldName = fieldName;
}
QueryFieldRef.prototype.toString = function (this: { docRef: string }): string {
  return this.docRef;
};
QueryFieldRef.fromString = function fromString(ref: string): unknown {
  return new (QueryFieldRef as unknown as new (docRef: string, fieldName: string) => unknown)(ref, QUERY_FIELD);
};
QueryFieldRef.joiner = '/';

/** One query term as one segment holds it: the term, its position in the segment's term list, and the ordinals lunr is to see. */
export interface TermPosting {
  term: string;
  termIndex: number;
  /** Ordinals of live documents holding the term (possibly restricted, see ranking.ts), ascending. */
  ordinals: ArrayLike<number>;
}

/**
 * Assembles a lunr.Index over the given terms of one segment, its inverted-index entries made
 * from the stored postings, so no per-posting object outlives the query. Document refs are the
 * segment ordinals as integer keys, which lunr's per-document work handles fastest. The
 * TokenSet holds just these terms: the segment's own sorted term list already answered "which
 * terms exist", and a full TokenSet costs time and memory in proportion to every term.
 */
function assembleIndex(postings: readonly TermPosting[]): lunr.Index {
  const invertedIndex = Object.create(null) as Record<string, LunrPosting>;
  for (const { term, termIndex, ordinals } of postings) {
    const docs: Record<number, object> = {};
    for (let i = 0; i < ordinals.length; i++) docs[ordinals[i]!] = NO_METADATA;
    invertedIndex[term] = { _index: termIndex, [QUERY_FIELD]: docs };
  }
  const sorted = Object.keys(invertedIndex).sort();
  const api = lunrApi();
  const tokenSet = (api.TokenSet as unknown as TokenSetStatics).fromArray(sorted);
  const attributes: IndexAttributes = { invertedIndex, fieldVectors: EMPTY_FIELD_VECTORS, tokenSet, fields: [QUERY_FIELD], pipeline: new api.Pipeline() };
  return new api.Index(attributes as unknown as lunr.Index.Attributes);
}

const SAFE_TERM = /^[\p{L}\p{N}\p{M}]+$/u;

/**
 * Ordinals of the documents holding every term, as lunr's `Index#query` finds them with one
 * REQUIRED clause per term, in ascending order. Terms come from `tokenize`, so they hold
 * letters, digits and marks only; lunr's TokenSet would read a `*` as a wildcard, hence the
 * assertion (a failure is a tokenizer bug, not bad user input). No clause sets an edit
 * distance. `docCount` bounds the ordinals.
 */
export function matchAll(postings: readonly TermPosting[], docCount: number): number[] {
  for (const { term } of postings) if (!SAFE_TERM.test(term)) throw new Error(`search term ${JSON.stringify(term)} is not a tokenizer output`);
  const index = assembleIndex(postings);
  const api = lunrApi();
  const swapped = api as unknown as { MatchData: unknown; FieldRef: unknown };
  const { MatchData: matchData, FieldRef: fieldRef } = swapped;
  swapped.MatchData = NoMatchData;
  swapped.FieldRef = QueryFieldRef;
  let results: lunr.Index.Result[];
  try {
    results = index.query((query) => {
      for (const { term } of postings) {
        query.term(term, {
          fields: [QUERY_FIELD],
          presence: api.Query.presence.REQUIRED,
          wildcard: api.Query.wildcard.NONE,
          usePipeline: false,
        });
      }
    });
  } finally {
    swapped.MatchData = matchData;
    swapped.FieldRef = fieldRef;
  }
  // lunr orders by its (here meaningless) score; a bitmap gives ascending ordinals in O(n).
  const hit = new Uint8Array(docCount);
  for (const r of results) hit[Number(r.ref)] = 1;
  const ordinals: number[] = [];
  for (let d = 0; d < docCount; d++) if (hit[d]) ordinals.push(d);
  return ordinals;
}
