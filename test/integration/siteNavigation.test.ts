import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';

/**
 * Issue 11, item 1: every page links Tags, Archive and the feed; /tags/ lists every tag with
 * its count, /archive/ every month with its count, and month pages their posts. Publishing keeps
 * them in step with the database, as a full rebuild would render them.
 */
describe('navigation and index pages', () => {
  let t: TestApp;
  let blogId: string;
  const page = (path: string) => visit(t.baseUrl, 'nav.localhost:3000', path);

  beforeAll(async () => {
    t = await startTestApp();
    blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'nav', name: 'Nav' } })).body.id;
    t.clock.set(new Date('2026-01-15T10:00:00.000Z'));
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'January one', content: 'x', tags: ['alpha', 'beta'], status: 'published' } });
    t.clock.set(new Date('2026-03-02T10:00:00.000Z'));
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'March one', content: 'y', tags: ['alpha'], status: 'published' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('links Tags, Archive and the feed from every page type', async () => {
    for (const path of ['/', '/january-one', '/tags/', '/archive/', '/archive/2026/01/', '/tags/alpha', '/no-such-page']) {
      const html = (await page(path)).text;
      expect(html, path).toMatch(/<nav class="site-nav"[^>]*>[\s\S]*href="\/tags\/"[\s\S]*href="\/archive\/"[\s\S]*href="\/rss\.xml"/);
    }
    expect((await page('/tags/')).text).toMatch(/href="\/tags\/"\s+aria-current="page"/);
  });

  it('lists every tag with its post count, and every month with its posts', async () => {
    const tags = (await page('/tags/')).text;
    expect(tags).toMatch(/href="\/tags\/alpha">alpha<\/a> <span class="tag-count">2 posts<\/span>/);
    expect(tags).toMatch(/href="\/tags\/beta">beta<\/a> <span class="tag-count">1 post<\/span>/);
    const archive = (await page('/archive/')).text;
    expect(archive).toMatch(/href="\/archive\/2026\/03\/">March<\/a> <span class="archive-count">1 post/);
    expect(archive).toMatch(/href="\/archive\/2026\/01\/">January<\/a>/);
    expect((await page('/archive/2026/03/')).text).toContain('March one');
    expect((await page('/archive/2026/03')).status).toBe(200);
  });

  it('follows publishes, edits and unpublishes, and matches a full rebuild', async () => {
    await t.request('PUT', '/v1/posts/january-one', { blogId, body: { title: 'January, renamed', tags: ['alpha'] } });
    expect((await page('/archive/2026/01/')).text).toContain('January, renamed');
    expect((await page('/tags/')).text).not.toContain('/tags/beta');

    await t.request('POST', '/v1/posts/march-one/unpublish', { blogId });
    expect((await page('/archive/2026/03/')).status).toBe(404);
    expect((await page('/archive/')).text).not.toContain('/archive/2026/03/');
    expect((await page('/tags/')).text).toMatch(/alpha<\/a> <span class="tag-count">1 post/);

    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blogId))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
  });
});
