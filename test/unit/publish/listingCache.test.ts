/**
 * The publisher's listing cache against a real SQLite database: it must always equal every
 * published summary SiteRepo reads in one query, whatever changed since its last use —
 * including changes made behind its back and a change log pruned past it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SiteRepo, SUMMARY_COLUMN_NAMES, SUMMARY_PAGE_SQL } from '../../../src/db/siteRepo.js';
import type { BlogWithDomain } from '../../../src/db/blogsRepo.js';
import { ListingCache } from '../../../src/publish/listingCache.js';
import { collectTags } from '../../../src/publish/render/archive.js';
import { titleCountsOf } from '../../../src/publish/render/renderContext.js';
import { startTestApp, type TestApp } from '../../support/testApp.js';

describe('ListingCache', () => {
  let t: TestApp;
  let blog: BlogWithDomain;
  let site: SiteRepo;

  beforeEach(async () => {
    t = await startTestApp({ jobHandler: async () => {} });
    const created = await t.request('POST', '/v1/blogs', { body: { slug: 'cache', name: 'Cache' } });
    blog = t.folio.repos.blogs.findById(created.body.id)!;
    site = new SiteRepo(t.folio.db);
  });
  afterEach(async () => {
    await t.close();
  });

  async function publish(title: string, tags: string[]): Promise<string> {
    t.clock.advance(60_000);
    return (await t.folio.posts.create(blog, { title, contentMd: 'Body.', tags, status: 'published' })).slug;
  }

  async function expectCurrent(cache: ListingCache): Promise<void> {
    const listing = await (await cache.get(blog.id));
    const truth = site.publishedSummariesAfter(blog.id, null, 1_000_000);
    expect(listing.posts).toEqual(truth);
    expect(listing.titleCounts).toEqual(titleCountsOf(truth));
    expect(listing.tagGroups()).toEqual(collectTags(truth));
    for (const group of collectTags(truth)) expect(listing.tagged(group.segment)).toEqual(group.posts);
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
    site.pruneChanges(site.latestChange()); // keeps only the newest entry
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
    const truth = site.publishedSummariesAfter(blog.id, null, 1_000_000);
    expect(listing.posts).toEqual(truth);
    expect(listing.posts.map((p) => p.slug)).toContain(slugs[0]);
    expect(listing.posts.map((p) => p.slug)).not.toContain(slugs[5]);
    expect(listing.tagGroups()).toEqual(collectTags(truth));
    expect(listing.titleCountsBefore).toBeNull();
  });

  it("SiteRepo.htmlBytes gives each post's stored HTML length in bytes, in the order asked, 0 for one gone", async () => {
    t.clock.advance(60_000);
    const big = await t.folio.posts.create(blog, { title: 'Big', contentMd: '한국어 '.repeat(2000), status: 'published' });
    const small = await t.folio.posts.create(blog, { title: 'Small', contentMd: 'Tiny.', status: 'published' });
    const html = (id: string) => Buffer.byteLength((t.folio.db.prepare('SELECT content_html FROM posts WHERE id = ?').get(id) as { content_html: string }).content_html);
    expect(site.htmlBytes([small.id, 'gone', big.id])).toEqual([html(small.id), 0, html(big.id)]);
    expect(html(big.id)).toBeGreaterThan(2000 * 10);
  });

  it('reads its pages from the summary index, which holds every column a summary needs', () => {
    // A summary column missing from the index (migration 013 added text_counts) sends every
    // summary to the table row, behind its Markdown and HTML overflow pages: the first publish
    // after a restart read 10,000 of them. content_md is read only for rows without counts.
    const plan = t.folio.db.prepare(`EXPLAIN QUERY PLAN ${SUMMARY_PAGE_SQL}`).all(blog.id, '', '', 10) as { detail: string }[];
    expect(plan.map((row) => row.detail)).toEqual(['SEARCH posts USING INDEX posts_published_summary (blog_id=? AND status=? AND (published_at,id)>(?,?))']);
    const indexed = (t.folio.db.prepare("SELECT name FROM pragma_index_info('posts_published_summary')").all() as { name: string }[]).map((row) => row.name);
    for (const column of SUMMARY_COLUMN_NAMES.filter((name) => name !== 'content_md')) expect(indexed).toContain(column);
  });
});
