/**
 * Answers a query from a snapshot: every query word must match (AND), documents are ranked by
 * BM25 computed from GLOBAL statistics, then newest publishedAt, then slug and id.
 *
 * lunr's own scores come from per-index idf and average length, so two segments' scores could
 * not be compared. Each segment instead stores, per term and document, the field-weighted term
 * frequency, and per document its weighted length; N, the average length and every document
 * frequency are summed over the live documents of all segments at query time. A document's
 * score is therefore the same number whatever segment it sits in, and results, totals and
 * order equal those of one index over the same live documents (docs/search.md, "Scoring").
 */
import { idfOf, lengthNormOf, termScoreOf, termWeightOf } from './bm25.js';
import { matchAll, WEIGHT_UNIT, type TermPosting } from './lunrSetup.js';
import type { IndexSnapshot } from './indexSnapshot.js';
import type { SegmentView } from './loadedSegment.js';
import type { SearchHit, SearchPage, SearchResult } from './searchTypes.js';
import { queryTerms } from './tokenize.js';
import { TopHits } from './topHits.js';

/**
 * How the documents containing every word are found in a segment: by intersecting the stored
 * postings directly (the default), or through lunr's `Index#query` with one REQUIRED clause
 * per word (the reference). Both give the same documents; ranking.test.ts checks it.
 */
export type MatchExecutor = 'lunr' | 'postings';

/** Live documents holding terms[t]; without deletions the count is known without decoding the posting. */
function liveCount(view: SegmentView, t: number): number {
  if (!view.deleted) return view.segment.postingLength(t);
  const { docs } = view.segment.posting(t);
  let n = 0;
  for (let j = 0; j < docs.length; j++) if (!view.deleted[docs[j]!]) n++;
  return n;
}

function checkPage({ page, perPage }: SearchPage): void {
  if (!Number.isInteger(page) || page < 1) throw new RangeError(`page must be a positive integer, got ${page}`);
  if (!Number.isInteger(perPage) || perPage < 1) throw new RangeError(`perPage must be a positive integer, got ${perPage}`);
}

export function runSearch(snapshot: IndexSnapshot, q: string, page: SearchPage, executor: MatchExecutor): SearchResult {
  checkPage(page);
  const terms = queryTerms(q);
  const n = snapshot.liveDocs;
  if (terms.length === 0 || n === 0) return { hits: [], total: 0 };
  const views = snapshot.views;

  const termIds = views.map((view) => terms.map((term) => view.segment.termIndex(term)));
  const idf = terms.map((_, k) => {
    let df = 0;
    views.forEach((view, v) => {
      const t = termIds[v]![k]!;
      if (t >= 0) df += liveCount(view, t);
    });
    return df === 0 ? Number.NaN : idfOf(n, df);
  });
  if (idf.some((x) => Number.isNaN(x))) return { hits: [], total: 0 };

  const scorer = new Scorer(idf, snapshot.totalLength / n);
  const start = (page.page - 1) * page.perPage;
  const top = new TopHits(views, start + page.perPage);
  views.forEach((view, v) => {
    const ids = termIds[v]!;
    if (ids.some((t) => t < 0)) return;
    if (executor === 'postings') intersect(view, v, ids, scorer, top);
    else for (const d of lunrMatches(view, ids, terms)) top.offer(scorer.score(view, ids, d), v, d);
  });
  if (start >= top.total) return { hits: [], total: top.total };
  return {
    hits: top
      .best()
      .slice(start)
      .map(({ view, ordinal }) => hitOf(views[view]!, ordinal)),
    total: top.total,
  };
}

/** BM25 of one document, from the stored field-weighted frequencies (docs/search.md, "Scoring"). */
class Scorer {
  private readonly weights: number[];
  /** Term frequencies of the document being scored, in query-term order. */
  readonly tfs: Float64Array;

  constructor(
    idf: readonly number[],
    private readonly averageLength: number,
  ) {
    this.weights = idf.map(termWeightOf);
    this.tfs = new Float64Array(idf.length);
  }

  /** Scores from `tfs` (stored units), filled by the caller. */
  fromTfs(lengthOfDoc: number): number {
    const norm = lengthNormOf(lengthOfDoc, this.averageLength);
    let score = 0;
    // Added in query-term order for every document, so a document's score is the same number
    // whichever segment holds it (and in the browser, static/staticQuery.ts).
    for (let k = 0; k < this.weights.length; k++) score += termScoreOf(this.weights[k]!, this.tfs[k]! / WEIGHT_UNIT, norm);
    return score;
  }

  /** Looks the document's frequencies up by binary search (the lunr executor's path). */
  score(view: SegmentView, termIds: readonly number[], d: number): number {
    termIds.forEach((t, k) => {
      const { docs, tfs } = view.segment.posting(t);
      this.tfs[k] = tfs[seek(docs, 0, docs.length, d)]!;
    });
    return this.fromTfs(view.segment.lengths[d]!);
  }
}

/**
 * First position in `docs[from, end)` holding a value ≥ target (postings are ascending), or
 * `end`. Galloping: cost grows with the log of the distance skipped, so walking a long posting
 * in step with a short one costs about the short one's length times a log.
 */
function seek(docs: Uint32Array, from: number, end: number, target: number): number {
  if (from >= end || docs[from]! >= target) return from;
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < end && docs[hi]! < target) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > end) hi = end;
  // docs[lo] < target, and docs[hi] >= target or hi === end.
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The postings executor: the documents of one segment holding every term, found by walking the
 * shortest posting and galloping through the others in step. Cost follows the query's posting
 * lists (the shortest one's length times a log), not the segment's size; nothing is allocated
 * per document. Every match is visited because the answer's `total` counts them all.
 */
function intersect(view: SegmentView, v: number, termIds: readonly number[], scorer: Scorer, top: TopHits): void {
  const segment = view.segment;
  const lengths = segment.lengths;
  const deleted = view.deleted;
  const postings = termIds.map((t) => segment.posting(t));
  const byLength = termIds.map((_, k) => k).sort((a, b) => postings[a]!.docs.length - postings[b]!.docs.length);
  const rarest = postings[byLength[0]!]!;
  const rarestK = byLength[0]!;
  const others = byLength.slice(1);
  const at = new Int32Array(termIds.length);
  const tfs = scorer.tfs;
  outer: for (let j = 0; j < rarest.docs.length; j++) {
    const d = rarest.docs[j]!;
    if (deleted?.[d]) continue;
    tfs[rarestK] = rarest.tfs[j]!;
    for (const k of others) {
      const { docs, tfs: termTfs } = postings[k]!;
      const p = seek(docs, at[k]!, docs.length, d);
      at[k] = p;
      if (p === docs.length) break outer;
      if (docs[p] !== d) continue outer;
      tfs[k] = termTfs[p]!;
    }
    top.offer(scorer.fromTfs(lengths[d]!), v, d);
  }
}

/**
 * The lunr executor's match set for one segment. lunr sees every term as one REQUIRED clause,
 * so a document outside the posting of any one term can never match: the rarest term (fewest
 * live documents in this segment) goes to lunr whole, and every other term's posting is cut
 * down to the documents of the rarest one. That cannot change lunr's answer (the intersection
 * of all postings is inside the rarest one), but lunr's cost, several objects per posting
 * entry, then follows the rarest term instead of the most common one.
 */
function lunrMatches(view: SegmentView, termIds: readonly number[], terms: readonly string[]): number[] {
  const deleted = view.deleted;
  const docCount = view.segment.docCount;
  const live = (t: number, keep: Uint8Array | null): number[] => {
    const out: number[] = [];
    for (const d of view.segment.posting(t).docs) {
      if (!deleted?.[d] && (!keep || keep[d])) out.push(d);
    }
    return out;
  };
  const sizes = termIds.map((t) => liveCount(view, t));
  const rarest = sizes.indexOf(Math.min(...sizes));
  const rarestOrdinals = live(termIds[rarest]!, null);
  const inRarest = new Uint8Array(docCount);
  for (const d of rarestOrdinals) inRarest[d] = 1;
  const postings: TermPosting[] = termIds.map((t, k) => ({
    term: terms[k]!,
    termIndex: t,
    ordinals: k === rarest ? rarestOrdinals : live(t, inRarest),
  }));
  return matchAll(postings, docCount);
}

function hitOf(view: SegmentView, ordinal: number): SearchHit {
  const d = view.segment.doc(ordinal);
  return { slug: d.slug, title: d.title, metaDescription: d.description, tags: [...d.tags], createdAt: d.createdAt, publishedAt: d.publishedAt, url: d.url };
}
