import { beforeAll, describe, expect, it } from 'vitest';
import type { MatchExecutor } from '../../../src/search/ranking.js';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import { JUDGMENTS } from '../../fixtures/search/relevanceJudgments.js';
import { RELEVANCE_POSTS } from '../../fixtures/search/relevancePosts.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';

const BLOG = 'relevance';

interface Figures {
  precision: number;
  recall: number;
  misses: string[];
}

/** Micro-averaged over every (query, post) pair of the suite. */
async function measure(cache: SearchIndexCache): Promise<Figures> {
  let retrieved = 0;
  let relevant = 0;
  let correct = 0;
  const misses: string[] = [];
  for (const { q, relevant: expected } of JUDGMENTS) {
    const { hits, total } = await cache.search(BLOG, q, { page: 1, perPage: 50 });
    expect(total).toBe(hits.length);
    const got = new Set(hits.map((h) => h.slug));
    const want = new Set(expected);
    retrieved += got.size;
    relevant += want.size;
    for (const slug of got) if (want.has(slug)) correct++;
    const extra = [...got].filter((s) => !want.has(s));
    const missing = [...want].filter((s) => !got.has(s));
    if (extra.length + missing.length > 0) misses.push(`${q}: extra ${JSON.stringify(extra)} missing ${JSON.stringify(missing)}`);
  }
  return { precision: retrieved === 0 ? 1 : correct / retrieved, recall: relevant === 0 ? 1 : correct / relevant, misses };
}

describe('relevance over hand-judged Korean and English posts', () => {
  const caches = {} as Record<MatchExecutor, SearchIndexCache>;

  beforeAll(async () => {
    expect(RELEVANCE_POSTS.length).toBeGreaterThanOrEqual(30);
    expect(JUDGMENTS.length).toBeGreaterThanOrEqual(40);
    const store = new MemorySiteStore();
    // A small head makes the posts spread over several segments, as in a long-lived blog.
    const writer = new SearchIndexWriter(store, { headMaxDocs: 4, workers: 0 });
    await writer.rebuild(BLOG, RELEVANCE_POSTS.slice(0, 20));
    for (const post of RELEVANCE_POSTS.slice(20)) await writer.upsert(BLOG, [post]);
    await writer.idle();
    caches.lunr = new SearchIndexCache(store, { executor: 'lunr' });
    caches.postings = new SearchIndexCache(store, { executor: 'postings' });
  });

  it.each(['lunr', 'postings'] as const)('precision and recall are both at least 0.99 (%s)', async (executor) => {
    const figures = await measure(caches[executor]);
    console.info(
      `relevance (${executor}): ${JUDGMENTS.length} queries over ${RELEVANCE_POSTS.length} posts, precision ${figures.precision.toFixed(3)}, recall ${figures.recall.toFixed(3)}`,
    );
    expect(figures.misses, figures.misses.join('\n')).toEqual([]);
    expect(figures.precision).toBeGreaterThanOrEqual(0.99);
    expect(figures.recall).toBeGreaterThanOrEqual(0.99);
  });

  it('ranks a post whose title holds the word above one that mentions it once', async () => {
    const { hits } = await caches.lunr.search(BLOG, '서버', { page: 1, perPage: 10 });
    expect(hits[0]!.slug).toBe('k-server-cost');
  });
});
