/**
 * Answers a query from a snapshot: every query word must match (AND), documents are ranked by
 * BM25 computed from GLOBAL statistics, then newest publishedAt, then slug and id.
 *
 * lunr's own scores come from per-index idf and average length, so two segments' scores could
 * not be compared. Each segment instead stores, per term and document, the field-weighted term
 * frequency, and per document its weighted length; N, the average length and every document
 * frequency are summed over the live documents of all segments at query time. A document's
 * score is therefore the same number whatever segment it sits in, and results, totals and
 * order equal those of one index over the same live documents (README.md, "Scoring").
 */
import { matchAll, type TermPosting } from './lunrSetup.js';
import type { IndexSnapshot } from './indexSnapshot.js';
import type { SegmentView } from './loadedSegment.js';
import type { SearchHit, SearchPage, SearchResult } from './searchTypes.js';
import { queryTerms } from './tokenize.js';

/**
 * How the documents containing every word are found in a segment: through lunr's
 * `Index#query` (the default, one REQUIRED clause per word) or by intersecting the stored
 * postings directly. Both give the same documents; ranking.test.ts checks it.
 */
export type MatchExecutor = 'lunr' | 'postings';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

interface Candidates {
  view: number[];
  ordinal: number[];
  score: number[];
}

function liveCount(view: SegmentView, from: number, to: number): number {
  if (!view.deleted) return to - from;
  const docs = view.segment.data.postingDocs;
  let n = 0;
  for (let j = from; j < to; j++) if (!view.deleted[docs[j]!]) n++;
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
      if (t >= 0) df += liveCount(view, view.segment.data.offsets[t]!, view.segment.data.offsets[t + 1]!);
    });
    return df === 0 ? Number.NaN : Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  if (idf.some((x) => Number.isNaN(x))) return { hits: [], total: 0 };

  const averageLength = snapshot.totalLength / n;
  const found: Candidates = { view: [], ordinal: [], score: [] };
  views.forEach((view, v) => {
    const ids = termIds[v]!;
    if (ids.some((t) => t < 0)) return;
    scoreSegment(view, v, ids, idf, averageLength, terms, executor, found);
  });

  const total = found.view.length;
  const start = (page.page - 1) * page.perPage;
  if (start >= total) return { hits: [], total };
  const order = topK(found, views, Math.min(total, start + page.perPage));
  return { hits: order.slice(start).map((c) => hitOf(views[found.view[c]!]!, found.ordinal[c]!)), total };
}

function scoreSegment(
  view: SegmentView,
  v: number,
  termIds: readonly number[],
  idf: readonly number[],
  averageLength: number,
  terms: readonly string[],
  executor: MatchExecutor,
  found: Candidates,
): void {
  const { offsets, postingDocs, postingTfs, docs } = view.segment.data;
  const lengths = docs.lengths;
  const deleted = view.deleted;
  const scores = new Float64Array(docs.ids.length);
  const counts = new Uint16Array(docs.ids.length);
  // Terms are added in query order for every document, so the floating-point sum is the
  // same whichever segment holds the document.
  termIds.forEach((t, k) => {
    const weight = idf[k]! * (BM25_K1 + 1);
    for (let j = offsets[t]!; j < offsets[t + 1]!; j++) {
      const d = postingDocs[j]!;
      if (deleted?.[d]) continue;
      const tf = postingTfs[j]!;
      scores[d]! += (weight * tf) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * lengths[d]!) / averageLength));
      counts[d]!++;
    }
  });

  const push = (d: number): void => {
    found.view.push(v);
    found.ordinal.push(d);
    found.score.push(scores[d]!);
  };
  if (executor === 'postings') {
    for (let d = 0; d < counts.length; d++) if (counts[d] === termIds.length) push(d);
    return;
  }
  for (const d of lunrMatches(view, termIds, terms)) push(d);
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
  const { offsets, postingDocs } = view.segment.data;
  const deleted = view.deleted;
  const docCount = view.segment.docCount;
  const live = (t: number, keep: Uint8Array | null): number[] => {
    const out: number[] = [];
    for (let j = offsets[t]!; j < offsets[t + 1]!; j++) {
      const d = postingDocs[j]!;
      if (!deleted?.[d] && (!keep || keep[d])) out.push(d);
    }
    return out;
  };
  const sizes = termIds.map((t) => liveCount(view, offsets[t]!, offsets[t + 1]!));
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

/** Indices of the best `k` candidates, best first. */
function topK(found: Candidates, views: readonly SegmentView[], k: number): number[] {
  const better = (a: number, b: number): boolean => {
    const sa = found.score[a]!;
    const sb = found.score[b]!;
    if (sa !== sb) return sa > sb;
    const ra = views[found.view[a]!]!.segment;
    const rb = views[found.view[b]!]!.segment;
    const oa = found.ordinal[a]!;
    const ob = found.ordinal[b]!;
    const pa = ra.publishedMs[oa]!;
    const pb = rb.publishedMs[ob]!;
    if (pa !== pb) return pa > pb;
    const slugA = ra.data.docs.slugs[oa]!;
    const slugB = rb.data.docs.slugs[ob]!;
    if (slugA !== slugB) return slugA < slugB;
    return ra.data.docs.ids[oa]! < rb.data.docs.ids[ob]!;
  };
  const compare = (a: number, b: number): number => (better(a, b) ? -1 : better(b, a) ? 1 : 0);
  const total = found.view.length;
  if (k * 4 >= total) {
    const all = Array.from({ length: total }, (_, i) => i);
    return all.sort(compare).slice(0, k);
  }
  // Bounded heap whose root is the worst kept candidate: O(total log k) for a first page.
  const heap: number[] = [];
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && better(heap[worst]!, heap[l]!)) worst = l;
      if (r < heap.length && better(heap[worst]!, heap[r]!)) worst = r;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  };
  for (let c = 0; c < total; c++) {
    if (heap.length < k) {
      heap.push(c);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!better(heap[parent]!, heap[i]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (better(c, heap[0]!)) {
      heap[0] = c;
      siftDown(0);
    }
  }
  return heap.sort(compare);
}

function hitOf(view: SegmentView, ordinal: number): SearchHit {
  const d = view.segment.data.docs;
  return {
    slug: d.slugs[ordinal]!,
    title: d.titles[ordinal]!,
    metaDescription: d.descriptions[ordinal]!,
    tags: [...d.tags[ordinal]!],
    createdAt: d.createdAt[ordinal]!,
    publishedAt: d.publishedAt[ordinal]!,
    url: d.urls[ordinal]!,
  };
}
