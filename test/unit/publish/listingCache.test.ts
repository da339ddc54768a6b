/**
 * The publisher's listing cache against a real SQLite database: it must always equal every
 * published summary SiteRepo reads in one query, whatever changed since its last use —
 * including changes made behind its back and a change log pruned past it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SiteRepo, SUMMARY_AT_SQL, SUMMARY_COLUMN_NAMES, SUMMARY_PAGE_SQL } from '../../../src/db/siteRepo.js';
import { SqliteSummaryReader } from '../../../src/db/summaryReader.js';
import type { SummaryReader } from '../../../src/publish/listing/blogListing.js';
import type { BlogWithDomain } from '../../../src/domain/blog.js';
import { ListingCache, type ListingSource, type SnapshotStore } from '../../../src/publish/listing/listingCache.js';
import { plainSummary } from '../../../src/publish/listing/lazySummary.js';
import { decodeListing, encodeListing, titleCountsOfPost } from '../../../src/publish/listing/listingSnapshot.js';
import type { TextColumn } from '../../../src/lib/textColumn.js';
import { ListingSnapshotsRepo } from '../../../src/db/listingSnapshotsRepo.js';
import { collectTags } from '../../../src/publish/render/archive.js';
import { listedByNextPost } from '../../../src/publish/postChange.js';
import { titleCountsOf } from '../../../src/publish/render/renderContext.js';
import { startTestApp, type TestApp } from '../../support/testApp.js';
import type { SitePostSummary } from '../../../src/domain/siteTypes.js';

describe('ListingCache', () => {
  let t: TestApp;
  let blog: BlogWithDomain;
  let site: SiteRepo;
  /** What a restored listing reads its posts from (SQLite only). */
  let lazy: SqliteSummaryReader;

  beforeEach(async () => {
    t = await startTestApp({ jobHandler: async () => {} });
    const created = await t.request('POST', '/v1/blogs', { body: { slug: 'cache', name: 'Cache' } });
    blog = (await t.folio.repos.blogs.findById(created.body.id))!;
    site = new SiteRepo(t.folio.sql);
    lazy = new SqliteSummaryReader(t.folio.db);
  });
  afterEach(async () => {
    await t.close();
  });

  async function publish(title: string, tags: string[]): Promise<string> {
    t.clock.advance(60_000);
    return (await t.folio.posts.create(blog, { title, contentMd: 'Body.', tags, status: 'published' })).slug;
  }

  const plain = (posts: readonly SitePostSummary[]) => posts.map(plainSummary);

  async function expectCurrent(cache: ListingCache): Promise<void> {
    const listing = await cache.get(blog.id);
    const truth = await site.publishedSummariesAfter(blog.id, null, 1_000_000);
    expect(plain(listing.posts)).toEqual(truth);
    expect(listing.titleCounts).toEqual(titleCountsOf(truth));
    expect(listing.tagGroups().map((group) => ({ ...group, posts: plain(group.posts) }))).toEqual(collectTags(truth));
    for (const group of collectTags(truth)) expect(plain(listing.tagged(group.segment))).toEqual(group.posts);
  }

  it('follows publishes, edits, unpublishes and deletes made after it loaded', async () => {
    const cache = new ListingCache(site);
    const a = await publish('Alpha', ['one', 'Two']);
    const b = await publish('Beta', ['two']);
    await expectCurrent(cache);
    await publish('Gamma', ['three']);
    t.clock.advance(60_000);
    await t.folio.posts.update(blog, a, { title: '알파', tags: ['three'] });
    await expectCurrent(cache);
    await t.folio.transitions.unpublish(blog, b);
    await expectCurrent(cache);
    await t.folio.posts.delete(blog, a);
    await expectCurrent(cache);
    expect((await cache.get(blog.id)).tagged('two')).toEqual([]);
  });

  it('reports the title counts from before the changes it replayed', async () => {
    const cache = new ListingCache(site);
    await publish('English words here', []);
    const first = await cache.get(blog.id);
    expect(first.titleCountsBefore).toBeNull();
    const before = { ...first.titleCounts };
    await publish('한국어 제목 입니다 정말', []);
    const second = await cache.get(blog.id);
    expect(second.titleCountsBefore).toEqual(before);
    expect(second.titleCounts.hangulWords).toBe(4);
  });

  it('reloads when the change log was pruned past its position', async () => {
    const cache = new ListingCache(site, { keepChanges: 0 });
    const first = await publish('First', []);
    await expectCurrent(cache);
    t.clock.advance(60_000);
    await t.folio.posts.update(blog, first, { title: 'First, renamed' });
    await publish('Second', []);
    await site.pruneChanges(await site.latestChange()); // keeps only the newest entry
    await expectCurrent(cache);
  });

  it('loads a page of rows at a time, and settles posts that moved or went while the pages were read', async () => {
    const slugs: string[] = [];
    for (let i = 0; i < 7; i++) slugs.push(await publish(`Post ${i}`, [i % 2 === 0 ? 'even' : 'odd']));
    const loading = new ListingCache(site, { loadPage: 2 }).get(blog.id);
    // The first page was read in get(); the others are read after turns of the event loop, so
    // these changes land between pages: a post already read is published again (it moves to
    // the end, where it is read a second time) and one not yet read is deleted.
    t.clock.advance(60_000);
    await t.folio.transitions.unpublish(blog, slugs[0]!);
    await t.folio.transitions.publish(blog, slugs[0]!);
    await t.folio.posts.delete(blog, slugs[5]!);
    const listing = await loading;
    const truth = await site.publishedSummariesAfter(blog.id, null, 1_000_000);
    expect(listing.posts).toEqual(truth);
    expect(listing.posts.map((p) => p.slug)).toContain(slugs[0]);
    expect(listing.posts.map((p) => p.slug)).not.toContain(slugs[5]);
    expect(listing.tagGroups()).toEqual(collectTags(truth));
    expect(listing.titleCountsBefore).toBeNull();
  });

  it("SiteRepo.bodyBytes gives each post's stored HTML and Markdown length in bytes, in the order asked, 0 for one gone", async () => {
    t.clock.advance(60_000);
    const big = await t.folio.posts.create(blog, { title: 'Big', contentMd: '한국어 '.repeat(2000), status: 'published' });
    const small = await t.folio.posts.create(blog, { title: 'Small', contentMd: 'Tiny.', status: 'published' });
    const bytes = (id: string) => {
      const row = t.folio.db.prepare('SELECT content_html, content_md FROM posts WHERE id = ?').get(id) as { content_html: string; content_md: string };
      return Buffer.byteLength(row.content_html) + Buffer.byteLength(row.content_md);
    };
    expect(await site.bodyBytes([small.id, 'gone', big.id])).toEqual([bytes(small.id), 0, bytes(big.id)]);
    expect(bytes(big.id)).toBeGreaterThan(2000 * 10 * 2);
  });

  it('reads the Markdown source only where a twin is rendered: the post itself and the full render, not neighbours or the search index', async () => {
    t.clock.advance(60_000);
    const source = 'Source of the *twin*.';
    const post = await t.folio.posts.create(blog, { title: 'Sourced', contentMd: source, status: 'published' });
    expect((await site.postWithSource(post.id))?.contentMd).toBe(source);
    // A full render reads both bodies as their stored bytes, for the worker that renders them.
    const [encoded] = await site.publishedEncodedByIds([post.id]);
    expect(Buffer.from(encoded!.contentMd).toString('utf8')).toBe(source);
    expect(Buffer.from(encoded!.contentHtml).toString('utf8')).toBe((await site.postWithSource(post.id))!.contentHtml);
    // A neighbour's page and the search index work from the HTML and the stored counts.
    const page = (await site.post(post.id))!;
    expect(page.contentMd).toBe('');
    expect(page.contentHtml).toBe((await site.postWithSource(post.id))!.contentHtml);
    expect((await site.publishedByIds([post.id])).map((p) => p.contentMd)).toEqual(['']);
    // A row written before the counts were stored (migration 005) still brings its text to count.
    t.folio.db.prepare('UPDATE posts SET text_counts = NULL WHERE id = ?').run(post.id);
    expect((await site.post(post.id))?.contentMd).toBe(source);
    expect((await site.publishedByIds([post.id])).map((p) => p.contentMd)).toEqual([source]);
  });

  it('reads its pages from the summary index, which holds every column a summary needs', () => {
    // A summary column missing from the index (migration 013 added text_counts) sends every
    // summary to the table row, behind its Markdown and HTML overflow pages: the first publish
    // after a restart read 10,000 of them. content_md is read only for rows without counts.
    const plan = t.folio.db.prepare(`EXPLAIN QUERY PLAN ${SUMMARY_PAGE_SQL}`).all(blog.id, '', '', 10) as { detail: string }[];
    expect(plan.map((row) => row.detail)).toEqual(['SEARCH posts USING INDEX posts_published_summary (blog_id=? AND status=? AND (published_at,id)>(?,?))']);
    // Posts read by their places (a prefetch): one seek in the same index each, no table row.
    const seeks = t.folio.db.prepare(`EXPLAIN QUERY PLAN ${SUMMARY_AT_SQL}`).all('[]', blog.id) as { detail: string }[];
    expect(seeks.map((row) => row.detail)).toEqual([
      'SCAN j VIRTUAL TABLE INDEX 1:',
      'SEARCH p USING INDEX posts_published_summary (blog_id=? AND status=? AND published_at=? AND id=?)',
    ]);
    const indexed = (t.folio.db.prepare("SELECT name FROM pragma_index_info('posts_published_summary')").all() as { name: string }[]).map((row) => row.name);
    for (const column of SUMMARY_COLUMN_NAMES.filter((name) => name !== 'content_md')) expect(indexed).toContain(column);
  });

  describe('saved snapshots (migration 014)', () => {
    /** SiteRepo and the restored posts' reader, counting the summary rows read through them. */
    function counting(): { source: ListingSource; reader: SummaryReader; rows: () => number } {
      let rows = 0;
      const count = <T>(result: T[]): T[] => {
        rows += result.length;
        return result;
      };
      const source: ListingSource = {
        publishedSummariesAfter: async (blogId, after, limit) => count(await site.publishedSummariesAfter(blogId, after, limit)),
        publishedSummary: async (postId) => count([await site.publishedSummary(postId)])[0] ?? null,
        latestChange: () => site.latestChange(),
        oldestChange: () => site.oldestChange(),
        changesSince: (blogId, seq) => site.changesSince(blogId, seq),
        pruneChanges: (seq) => site.pruneChanges(seq),
      };
      const reader: SummaryReader = {
        publishedSummariesFrom: (blogId, from, limit) => count(lazy.publishedSummariesFrom(blogId, from, limit)),
        publishedSummariesAt: (blogId, posts) => count(lazy.publishedSummariesAt(blogId, posts)),
        summaryOfAnyStatus: (postId) => count([lazy.summaryOfAnyStatus(postId)])[0] ?? null,
      };
      return { source, reader, rows: () => rows };
    }

    it('restores a saved listing, replays what changed since, and equals the rows', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      const a = await publish('Alpha', ['one', 'Two', 'two']);
      const b = await publish('Beta', ['two', '한국어']);
      await publish('Gamma', []);
      const first = new ListingCache(site, { snapshots, lazy });
      await first.get(blog.id);
      expect(await first.save('2026-01-01T00:00:00.000Z')).toBe(1);
      expect(await first.save('2026-01-01T00:00:00.000Z')).toBe(0); // unchanged since

      // Changes made while no cache was running, as across a restart.
      await publish('Delta', ['three']);
      t.clock.advance(60_000);
      await t.folio.posts.update(blog, a, { title: '알파 제목', tags: ['three'] });
      await t.folio.transitions.unpublish(blog, b);
      const restarted = new ListingCache(site, { snapshots, lazy });
      await expectCurrent(restarted);
      await t.folio.posts.delete(blog, a);
      await expectCurrent(restarted);
      expect(await restarted.save('2026-01-01T00:00:00.000Z')).toBe(1);
      await expectCurrent(new ListingCache(site, { snapshots, lazy }));
    });

    it('reads the rows of the posts a page shows, not every row', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      for (let i = 0; i < 600; i++) {
        t.clock.advance(60_000);
        await t.folio.posts.create(blog, { title: `Post ${i}`, contentMd: 'Body.', tags: [`t${i % 5}`], status: 'published' });
      }
      const saving = new ListingCache(site, { snapshots, lazy });
      await saving.get(blog.id);
      await saving.save('2026-01-01T00:00:00.000Z');
      await publish('After the restart', ['t1']);

      const { source, reader, rows } = counting();
      const listing = await new ListingCache(source, { snapshots, lazy: reader }).get(blog.id);
      expect(listing.posts).toHaveLength(601);
      expect(rows()).toBe(1); // the post the log names
      // What a publish's pages show: the newest posts, the newest of a tag, neighbours.
      const newest = listing.posts.slice(-29).map((post) => post.title);
      expect(newest[28]).toBe('After the restart');
      expect(
        listing
          .tagged('t1')
          .slice(-20)
          .map((post) => post.slug),
      ).toHaveLength(20);
      expect(rows()).toBeLessThan(200);
      expect(listing.posts[300]!.title).toBe('Post 300');
      expect(rows()).toBeLessThan(400);
      // The counts and tags come from the snapshot, without reading the rows.
      expect(listing.titleCounts).toEqual(titleCountsOf(await site.publishedSummariesAfter(blog.id, null, 1_000_000)));
    });

    it('reads each row of a long page about once, whichever way the page lists its posts', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      for (let i = 0; i < 600; i++) {
        t.clock.advance(60_000);
        await t.folio.posts.create(blog, { title: `Post ${i}`, contentMd: 'Body.', tags: [], status: 'published' });
      }
      const saving = new ListingCache(site, { snapshots, lazy });
      await saving.get(blog.id);
      await saving.save('2026-01-01T00:00:00.000Z');

      const { source, reader, rows } = counting();
      const listing = await new ListingCache(source, { snapshots, lazy: reader }).get(blog.id);
      // Newest first, as a month page lists them: 300 posts.
      const newestFirst = listing.posts.slice(100, 400).reverse();
      expect(newestFirst.map((post) => post.title)).toEqual(Array.from({ length: 300 }, (_, i) => `Post ${399 - i}`));
      expect(rows()).toBeLessThanOrEqual(300 + 128);
      // Oldest first, as a sitemap chunk lists them: 150 more.
      const before = rows();
      expect(listing.posts.slice(420, 570).map((post) => post.slug)).toHaveLength(150);
      expect(listing.posts[569]!.title).toBe('Post 569');
      expect(rows() - before).toBeLessThanOrEqual(150 + 128);
    });

    it("reads ahead the rows of what the next publish's pages list, and only those", async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      for (let i = 0; i < 1100; i++) {
        t.clock.advance(86_400_000); // a post a day: ~30 a month
        await t.folio.posts.create(blog, { title: `Post ${i}`, contentMd: 'Body.', tags: [`t${i % 7}`], status: 'published' });
      }
      const saving = new ListingCache(site, { snapshots, lazy });
      await saving.get(blog.id);
      await saving.save('2026-01-01T00:00:00.000Z');

      const { source, reader, rows } = counting();
      const listing = await new ListingCache(source, { snapshots, lazy: reader }).get(blog.id);
      const lists = listedByNextPost(listing.posts, (segment) => listing.tagged(segment));
      // The newest posts, the newest month, the last sitemap chunk (posts 1001-1100), the tag's newest.
      expect(lists.map((list) => list.length)).toEqual([100, expect.any(Number), 100, 40]);
      const listed = new Set(lists.flat());
      listing.prefetch(lists);
      // Only what the pages list is read: not one row more, however scattered the tag's posts.
      expect(rows()).toBe(listed.size);
      const before = rows();
      for (const post of listed) expect(post.title).toMatch(/^Post \d+$/);
      expect(rows()).toBe(before);
      expect(lists[3]!.map((post) => post.title)).toEqual(Array.from({ length: 40 }, (_, i) => `Post ${1099 - 7 * (39 - i)}`));
    });

    it('without a reader that answers synchronously (PostgreSQL), reads the rows instead of restoring', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      for (let i = 0; i < 5; i++) await publish(`Post ${i}`, []);
      const saving = new ListingCache(site, { snapshots });
      await saving.get(blog.id);
      expect(await saving.save('2026-01-01T00:00:00.000Z')).toBe(1);
      const { source, rows } = counting();
      const listing = await new ListingCache(source, { snapshots }).get(blog.id);
      expect(rows()).toBe(5);
      expect(listing.posts.map((post) => post.title)).toEqual(['Post 0', 'Post 1', 'Post 2', 'Post 3', 'Post 4']);
    });

    it('brings one blog up to date one use at a time when uses overlap', async () => {
      const cache = new ListingCache(site);
      await publish('First', ['a']);
      await cache.get(blog.id);
      await publish('Second', ['a']);
      await publish('Third', ['b']);
      const [one, two] = await Promise.all([cache.get(blog.id), cache.get(blog.id)]);
      expect(one).toBe(two);
      await expectCurrent(cache);
      expect(one.posts.map((post) => post.title)).toEqual(['First', 'Second', 'Third']);
    });

    it('reports the title counts as saved, so a language tipped by a change since is seen', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      await publish('English words here', []);
      const saving = new ListingCache(site, { snapshots, lazy });
      const saved = { ...(await saving.get(blog.id)).titleCounts };
      await saving.save('2026-01-01T00:00:00.000Z');
      await publish('한국어 제목 입니다 정말', []);
      const listing = await new ListingCache(site, { snapshots, lazy }).get(blog.id);
      expect(listing.titleCountsBefore).toEqual(saved);
      expect(listing.titleCounts.hangulWords).toBe(4);
    });

    it('reads the rows instead when the log no longer reaches back to the snapshot, or the bytes are not a snapshot', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      const first = await publish('First', []);
      const saving = new ListingCache(site, { snapshots, lazy });
      await saving.get(blog.id);
      await saving.save('2026-01-01T00:00:00.000Z');
      t.clock.advance(60_000);
      await t.folio.posts.update(blog, first, { title: 'First, renamed' });
      await publish('Second', []);
      await site.pruneChanges(await site.latestChange()); // the rename is no longer in the log
      await expectCurrent(new ListingCache(site, { snapshots, lazy }));

      await snapshots.put(blog.id, (await site.latestChange()) + 1, Buffer.from('not a snapshot'), '2026-01-01T00:00:00.000Z');
      await expectCurrent(new ListingCache(site, { snapshots, lazy }));
    });

    it('saves again a listing that did not change once the log has moved far past its snapshot', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      await publish('Only', []);
      const cache = new ListingCache(site, { snapshots, lazy, keepChanges: 4 });
      await cache.get(blog.id);
      expect(await cache.save('2026-01-01T00:00:00.000Z')).toBe(1);
      const savedAt = (await snapshots.get(blog.id))!.seq;
      // Another blog's posts move the log on.
      const other = (await t.folio.repos.blogs.findById((await t.request('POST', '/v1/blogs', { body: { slug: 'other', name: 'Other' } })).body.id))!;
      for (let i = 0; i < 3; i++) await t.folio.posts.create(other, { title: `Other ${i}`, contentMd: 'x', status: 'published' });
      await cache.get(blog.id);
      expect(await cache.save('2026-01-01T00:00:00.000Z')).toBe(1);
      expect((await snapshots.get(blog.id))!.seq).toBeGreaterThan(savedAt);
    });

    it('keeps a listing due when its snapshot cannot be written, and saves it next time', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      await publish('Only', []);
      let refuse = true;
      const flaky: SnapshotStore = {
        get: (blogId) => snapshots.get(blogId),
        delete: (blogId) => snapshots.delete(blogId),
        put: async (...args) => {
          if (refuse) throw new Error('SQLITE_BUSY: database is locked');
          await snapshots.put(...args);
        },
      };
      const cache = new ListingCache(site, { snapshots: flaky, lazy });
      await cache.get(blog.id);
      expect(await cache.save('2026-01-01T00:00:00.000Z')).toBe(0);
      expect(await snapshots.get(blog.id)).toBeNull();
      refuse = false;
      expect(await cache.save('2026-01-01T00:00:00.000Z')).toBe(1);
      expect(await snapshots.get(blog.id)).not.toBeNull();
    });

    it('keeps a listing due when it changes while its snapshot is written, and the snapshot is of the posts before the change', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      await publish('First', ['one']);
      let hold = true;
      let release: () => void = () => {};
      let started: () => void = () => {};
      const writing = new Promise<void>((resolve) => (started = resolve));
      const slow: SnapshotStore = {
        get: (blogId) => snapshots.get(blogId),
        delete: (blogId) => snapshots.delete(blogId),
        put: async (...args) => {
          if (hold) {
            started();
            await new Promise<void>((resolve) => (release = resolve));
          }
          await snapshots.put(...args);
        },
      };
      const cache = new ListingCache(site, { snapshots: slow, lazy });
      await cache.get(blog.id);
      const saving = cache.save('2026-01-01T00:00:00.000Z');
      await writing;
      await publish('Second', ['two']);
      expect((await cache.get(blog.id)).posts).toHaveLength(2);
      release();
      expect(await saving).toBe(1);
      const firstSnapshot = (await decodeListing((await snapshots.get(blog.id))!.data))!;
      expect(firstSnapshot.ids.length).toBe(1);

      hold = false;
      expect(await cache.save('2026-01-01T00:00:00.000Z')).toBe(1);
      expect((await decodeListing((await snapshots.get(blog.id))!.data))!.ids.length).toBe(2);
      await expectCurrent(new ListingCache(site, { snapshots, lazy }));
    });

    it('is set aside for whole-blog work: its snapshot saved, let go, then restored by its next use without reading every row', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      for (let i = 0; i < 30; i++) await publish(`Post ${i}`, ['tag']);
      const { source, reader, rows } = counting();
      const cache = new ListingCache(source, { snapshots, lazy: reader });
      await cache.get(blog.id);
      expect(cache.recent()).toEqual([blog.id]);
      const read = rows();
      expect(read).toBeGreaterThanOrEqual(30); // no snapshot yet: every row

      await cache.setAside(blog.id, '2026-01-01T00:00:00.000Z');
      expect(cache.recent()).toEqual([]);
      expect(await snapshots.get(blog.id)).not.toBeNull();
      await cache.setAside(blog.id, '2026-01-01T00:00:00.000Z'); // not held: nothing to do

      await publish('After', []);
      const listing = await cache.get(blog.id);
      expect(listing.posts).toHaveLength(31);
      expect(rows() - read).toBeLessThan(30);
      await expectCurrent(cache);
    });

    it('is deleted with its blog, and never saved for a blog that is gone', async () => {
      const snapshots = new ListingSnapshotsRepo(t.folio.sql);
      await publish('Only', []);
      const cache = new ListingCache(site, { snapshots, lazy });
      await cache.get(blog.id);
      await cache.save('2026-01-01T00:00:00.000Z');
      expect(await snapshots.get(blog.id)).not.toBeNull();
      await cache.forget(blog.id);
      expect(await snapshots.get(blog.id)).toBeNull();
      await snapshots.put('no-such-blog', 1, Buffer.from('x'), '2026-01-01T00:00:00.000Z');
      expect(await snapshots.get('no-such-blog')).toBeNull();
    });

    it('encodes ids, dates, tags and title counts, and decodes them as they were', async () => {
      const posts: SitePostSummary[] = [
        {
          id: 'a',
          slug: 'a',
          title: 'Hello world',
          metaDescription: '',
          ogImageUrl: null,
          tags: ['Two', 'two', '한국어'],
          publishedAt: '2026-01-01T00:00:00.000Z',
          createdAt: '',
          updatedAt: '2026-02-01T00:00:00.000Z',
        },
        {
          id: 'b',
          slug: 'b',
          title: '안녕 세계',
          metaDescription: '',
          ogImageUrl: null,
          tags: [],
          publishedAt: '2026-01-02T00:00:00.000Z',
          createdAt: '',
          updatedAt: '2026-02-02T00:00:00.000Z',
        },
        {
          id: 'c',
          slug: 'c',
          title: 'Again',
          metaDescription: '',
          ogImageUrl: null,
          tags: ['Two', 'two', '한국어'],
          publishedAt: '2026-01-03T00:00:00.000Z',
          createdAt: '',
          updatedAt: '2026-02-03T00:00:00.000Z',
        },
      ];
      const total = titleCountsOf(posts);
      const decoded = (await decodeListing(await encodeListing(posts, total, titleCountsOfPost)))!;
      expect(decoded.titleCounts).toEqual(total);
      const values = (column: TextColumn): string[] => Array.from({ length: column.length }, (_, i) => column.at(i));
      expect(values(decoded.ids)).toEqual(['a', 'b', 'c']);
      expect(values(decoded.publishedAt)).toEqual(posts.map((post) => post.publishedAt));
      expect(values(decoded.updatedAt)).toEqual(posts.map((post) => post.updatedAt));
      const restored = posts.map((_, i) => {
        const w = decoded.starts[i]!;
        const count = decoded.words[w]!;
        const tags = Array.from(decoded.words.subarray(w + 1, w + 1 + count), (index) => decoded.tags[index]);
        const [hangulWords, latinWords, hangulChars, otherWords] = decoded.words.subarray(w + 1 + count, w + 5 + count);
        return { tags, titleCounts: { hangulWords, latinWords, hangulChars, otherWords } };
      });
      expect(restored).toEqual(posts.map((post) => ({ tags: post.tags, titleCounts: titleCountsOfPost(post) })));
      expect((await decodeListing(await encodeListing([], total, titleCountsOfPost)))!.ids.length).toBe(0);
      expect(await decodeListing(Buffer.alloc(0))).toBeNull();
      const bytes = await encodeListing(posts, total, titleCountsOfPost);
      expect(await decodeListing(bytes.subarray(0, bytes.length - 4))).toBeNull();
      expect(await decodeListing(bytes.subarray(0, 40))).toBeNull();
    });

    it('encodes a listing of many slices (it yields between them) as one whole', async () => {
      const posts: SitePostSummary[] = Array.from({ length: 10_001 }, (_, i) => ({
        id: `id-${i}`,
        slug: `post-${i}`,
        title: i % 3 === 0 ? `제목 ${i}` : `Title ${i}`,
        metaDescription: '',
        ogImageUrl: null,
        tags: i % 5 === 0 ? [] : [`tag-${i % 97}`, `태그-${i % 7}`],
        publishedAt: new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString(),
        createdAt: '',
        updatedAt: new Date(Date.UTC(2021, 0, 1) + i * 1_000).toISOString(),
      }));
      const decoded = (await decodeListing(await encodeListing(posts, titleCountsOf(posts), titleCountsOfPost)))!;
      const values = (column: TextColumn): string[] => Array.from({ length: column.length }, (_, i) => column.at(i));
      expect(values(decoded.ids)).toEqual(posts.map((post) => post.id));
      expect(values(decoded.publishedAt)).toEqual(posts.map((post) => post.publishedAt));
      expect(values(decoded.updatedAt)).toEqual(posts.map((post) => post.updatedAt));
      const tagsOf = (i: number): string[] => {
        const w = decoded.starts[i]!;
        return Array.from(decoded.words.subarray(w + 1, w + 1 + decoded.words[w]!), (index) => decoded.tags[index]!);
      };
      expect(posts.map((_, i) => tagsOf(i))).toEqual(posts.map((post) => post.tags));
    });
  });
});
