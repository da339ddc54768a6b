/**
 * The warm-up's dry run of a publish runs the CPU side of both search indexes' upserts (to have
 * the code compiled for the first real publish after a restart): it must touch no stored object
 * and leave both indexes answering as before.
 */
import { describe, expect, it } from 'vitest';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import { StaticIndexWriter } from '../../../src/search/static/staticIndexWriter.js';
import { RELEVANCE_POSTS } from '../../fixtures/search/relevancePosts.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { readStaticIndex } from '../../support/staticSearchIndex.js';

describe('rehearsing an upsert', () => {
  it('reads and writes nothing, in either index', async () => {
    const store = new MemorySiteStore();
    const api = new SearchIndexWriter(store, { workers: 0 });
    const site = new StaticIndexWriter(store, { cacheControl: 'public, max-age=60' });
    const docs = RELEVANCE_POSTS.slice(0, 5);
    await api.rebuild('blog', docs);
    await site.rebuild('blog', docs);
    const before = { objects: await store.list(''), static: await readStaticIndex(store, 'blog'), hits: await new SearchIndexCache(store).snapshot('blog') };
    const calls = { put: store.calls.put.length, get: store.calls.get.length, delete: store.calls.delete.length };

    const edited = { ...RELEVANCE_POSTS[5]!, title: 'A post that is never published' };
    await api.rehearse([edited]);
    await site.rehearse([edited]);

    expect({ put: store.calls.put.length, get: store.calls.get.length, delete: store.calls.delete.length }).toEqual(calls);
    expect(await store.list('')).toEqual(before.objects);
    expect(await readStaticIndex(store, 'blog')).toEqual(before.static);
    expect((await new SearchIndexCache(store).snapshot('blog'))?.manifest).toEqual(before.hits?.manifest);
    expect(before.hits?.manifest).toBeDefined();
  });
});
