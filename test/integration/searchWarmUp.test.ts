/**
 * The search indexes in use before a restart are in memory again soon after it, without a query
 * (issue 12, item 2): the server records the cache's blogs at close and loads them after the
 * next start, most recently used first, within the cache budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/database.js';
import { SettingsRepo } from '../../src/db/settingsRepo.js';
import { createLogger } from '../../src/logger.js';
import { SearchIndexCache } from '../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../src/search/searchIndexWriter.js';
import { SearchWarmUp } from '../../src/services/searchWarmUp.js';
import { buildBlog, buildPost } from '../support/factories.js';
import { FakeClock } from '../support/fakeClock.js';
import { MemorySiteStore } from '../support/memorySiteStore.js';
import { startTestApp } from '../support/testApp.js';
import { searchDoc } from '../unit/search/docFactory.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('search warm-up after a restart', () => {
  it('loads the indexes the previous process had in memory, most recently used first, before any query', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-warm-'));
    dirs.push(dataDir);
    const first = await startTestApp({ dataDir });
    const blogs = [await buildBlog(first), await buildBlog(first)];
    for (const blog of blogs) await buildPost(blog, { title: `Post of ${blog.slug}`, content: 'Words to find.', status: 'published' });
    await first.folio.tick();
    await first.folio.runner.idle();
    // Searched in this order: the second blog is the most recently used.
    for (const blog of blogs) expect((await blog.actor.request('GET', '/v1/search?q=words', { blogId: blog.id })).body.pagination.total).toBe(1);
    await first.close();

    const second = await startTestApp({ dataDir });
    try {
      expect(second.folio.searchCacheStats().blogs).toEqual([]);
      expect(await second.folio.searchWarmUp.warm()).toEqual([blogs[1]!.slug, blogs[0]!.slug]);
      expect(second.folio.searchCacheStats().blogs.sort()).toEqual(blogs.map((b) => b.slug).sort());
    } finally {
      await second.close();
    }
  });

  it('stops at four fifths of the cache budget, and skips blogs whose index is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-warm-db-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'folio.db'));
    migrate(db);
    const store = new MemorySiteStore();
    const writer = new SearchIndexWriter(store, { workers: 0 });
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    for (const blog of ['a', 'b', 'c']) await writer.rebuild(blog, [searchDoc({ id: `${blog}1`, body: text })]);
    const probe = new SearchIndexCache(store);
    await probe.snapshot('a');
    const oneBlog = probe.stats().bytes;

    // Room for two blogs and a half: the third would pass four fifths of it.
    const cache = new SearchIndexCache(store, { maxBytes: Math.floor(oneBlog * 2.5) });
    const settings = new SettingsRepo(db);
    settings.set('search_recent_blogs', JSON.stringify(['gone', 'c', 'b', 'a']), '2026-01-01T00:00:00.000Z');
    const warmUp = new SearchWarmUp({ settings, cache, clock: new FakeClock(), logger: createLogger('silent') });
    expect(await warmUp.warm()).toEqual(['c', 'b']);
    expect(cache.stats().blogs).toEqual(['c', 'b']);
    db.close();
  });
});
