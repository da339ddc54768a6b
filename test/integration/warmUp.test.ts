/**
 * The search indexes and listings in use before a restart are in memory again soon after it,
 * without a query or a publish (issue 12, item 2): the server records them at close and loads
 * them after the next start, most recently used first, within the caches' budgets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/database.js';
import { SettingsRepo } from '../../src/db/settingsRepo.js';
import { SqliteClient } from '../../src/db/sql/sqliteClient.js';
import { createLogger } from '../../src/lib/logger.js';
import { SearchIndexCache } from '../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../src/search/searchIndexWriter.js';
import { WarmUp } from '../../src/warmup/warmUp.js';
import { buildBlog, buildPost } from '../support/factories.js';
import { FakeClock } from '../support/fakeClock.js';
import { MemorySiteStore } from '../support/memorySiteStore.js';
import { startTestApp } from '../support/testApp.js';
import { searchDoc } from '../unit/search/docFactory.js';

const dirs: string[] = [];

/** Every file of the site store under the data dir, with its modification time. */
async function filesOf(dataDir: string): Promise<string[]> {
  const root = join(dataDir, 'public');
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = await Promise.all(
    entries.filter((e) => e.isFile()).map(async (e) => `${join(e.parentPath, e.name)} ${(await stat(join(e.parentPath, e.name))).mtimeMs}`),
  );
  return files.sort();
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('warm-up after a restart', () => {
  it('loads the indexes and listings the previous process had in memory, most recently used first, before any query or publish', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-warm-'));
    dirs.push(dataDir);
    const first = await startTestApp({ dataDir });
    const blogs = [await buildBlog(first), await buildBlog(first)];
    for (const blog of blogs) await buildPost(blog, { title: `Post of ${blog.slug}`, content: 'Words to find.', status: 'published' });
    await first.folio.tick();
    await first.folio.idle();
    // Searched in this order: the second blog is the most recently used.
    for (const blog of blogs) expect((await blog.actor.request('GET', '/v1/search?q=words', { blogId: blog.id })).body.pagination.total).toBe(1);
    await first.close();

    const second = await startTestApp({ dataDir });
    try {
      expect(second.folio.searchCacheStats().blogs).toEqual([]);
      expect(second.folio.publisher.recentListings()).toEqual([]);
      const filesBefore = await filesOf(dataDir);
      expect(await second.folio.warmUp.warm()).toEqual({ search: [blogs[1]!.slug, blogs[0]!.slug], listings: [blogs[1]!.id, blogs[0]!.id] });
      // Its dry run of a publish renders and writes nothing.
      expect(await filesOf(dataDir)).toEqual(filesBefore);
      expect(second.folio.searchCacheStats().blogs).toEqual([blogs[0]!.slug, blogs[1]!.slug]);
      expect(second.folio.publisher.recentListings()).toEqual([blogs[1]!.id, blogs[0]!.id]);
    } finally {
      await second.close();
    }
  });

  it('loads the most recent blogs that fit, never evicting, skipping vanished indexes, and keeps the old order', async () => {
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

    // Room for two blogs and a half: a third does not fit.
    const cache = new SearchIndexCache(store, { maxBytes: Math.floor(oneBlog * 2.5) });
    const sql = new SqliteClient(db);
    const settings = new SettingsRepo(sql);
    await settings.set('search_recent_blogs', JSON.stringify(['gone', 'c', 'b', 'a']), '2026-01-01T00:00:00.000Z');
    // No listings are remembered here; the publisher's part is covered above.
    const listings = {
      recentListings: () => [],
      prepareForPublishing: async () => false,
      dryRunPublish: async () => {},
      saveListings: async () => 0,
      releaseListings: () => 0,
      releaseIndexStates: () => 0,
    };
    const warmUp = new WarmUp({ settings, cache, listings, clock: new FakeClock(), logger: createLogger('silent') });
    expect((await warmUp.warm()).search).toEqual(['c', 'b']);
    // Least recently used first, as before the restart: 'c' is the most recent.
    expect(cache.stats().blogs).toEqual(['b', 'c']);
    await sql.close();
    db.close();
  });

  it("prepares the remembered blogs' first publishes at once, then waits for quiet moments for their dry runs and the search indexes", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-warm-order-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'folio.db'));
    migrate(db);
    const sql = new SqliteClient(db);
    const settings = new SettingsRepo(sql);
    await settings.set('search_recent_blogs', JSON.stringify(['s1', 's2']), '2026-01-01T00:00:00.000Z');
    await settings.set('listing_recent_blogs', JSON.stringify(['b1', 'b2', 'gone']), '2026-01-01T00:00:00.000Z');
    const steps: string[] = [];
    const cache = {
      maxBytes: 1_000_000,
      stats: () => ({ bytes: 0, blogs: [] }),
      warm: async (blog: string) => {
        steps.push(`search ${blog}`);
        return true;
      },
      release: () => 0,
    };
    const listings = {
      recentListings: () => [],
      prepareForPublishing: async (blogId: string) => {
        steps.push(`prepare ${blogId}`);
        return blogId !== 'gone';
      },
      dryRunPublish: async (blogId: string) => void steps.push(`dry run ${blogId}`),
      saveListings: async () => 0,
      releaseListings: () => 0,
      releaseIndexStates: () => 0,
    };
    const warmUp = new WarmUp({ settings, cache, listings, clock: new FakeClock(), logger: createLogger('silent') });
    const result = await warmUp.warm({ whenQuiet: async () => void steps.push('quiet') });
    expect(result).toEqual({ search: ['s1', 's2'], listings: ['b1', 'b2'] });
    expect(steps).toEqual([
      'prepare gone',
      'prepare b2',
      'prepare b1',
      'quiet',
      'dry run b2',
      'quiet',
      'dry run b1',
      'quiet',
      'search s1',
      'quiet',
      'search s2',
    ]);
    await sql.close();
    db.close();
  });
});
