/**
 * Collecting a blog's search documents (a reindex, in the server after an upgrade) makes the
 * text of ordinary-sized posts in place. Entity-dense HTML takes milliseconds a post there: the
 * event loop must get turns while a page of such posts is worked through, not only between pages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SiteRepo } from '../../src/db/siteRepo.js';
import { INLINE_MAX_HTML_CHARS } from '../../src/content/contentRenderer.js';
import { SearchDocuments } from '../../src/publish/stages/searchDocuments.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { withLoopTurns } from '../support/loopTurns.js';

describe('collecting search documents', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    while (apps.length) await apps.pop()!.close();
  });

  it('lets the event loop in while it extracts the text of a page of posts', async () => {
    const t = await startTestApp({ jobHandler: async () => {} });
    apps.push(t);
    const created = (await t.request('POST', '/v1/blogs', { body: { slug: 'dense', name: 'Dense' } })).body;
    const blog = (await t.folio.repos.blogs.findById(created.id))!;
    // `&` renders as `&amp;`: just under the size whose text is still made in place.
    const dense = '&'.repeat(Math.floor(INLINE_MAX_HTML_CHARS / 5) - 100);
    for (let i = 0; i < 150; i += 1) {
      t.clock.advance(60_000);
      await t.folio.posts.create(blog, { title: `Dense ${i}`, contentMd: dense, status: 'published' });
    }
    const documents = new SearchDocuments({ site: new SiteRepo(t.folio.sql), content: t.folio.content, urls: t.folio.urls });

    const { result: docs, turns } = await withLoopTurns(() => documents.all(blog));

    expect(docs).toHaveLength(150);
    expect(docs[0]!.body.length).toBeGreaterThan(1000);
    // All 150 posts fit in one page of rows: without turns inside the page there would be none.
    expect(turns).toBeGreaterThan(2);
  });

  it('for a reindex, lists the published posts oldest first, then reads them by id in that order, leaving out those gone since', async () => {
    const t = await startTestApp({ jobHandler: async () => {} });
    apps.push(t);
    const created = (await t.request('POST', '/v1/blogs', { body: { slug: 'runs', name: 'Runs' } })).body;
    const blog = (await t.folio.repos.blogs.findById(created.id))!;
    const slugs: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      t.clock.advance(60_000);
      slugs.push((await t.folio.posts.create(blog, { title: `Post ${i}`, contentMd: `Words of post ${i}.`, status: 'published' })).slug);
    }
    t.clock.advance(60_000);
    await t.folio.posts.create(blog, { title: 'Draft', contentMd: 'Not published.' });
    const documents = new SearchDocuments({ site: new SiteRepo(t.folio.sql), content: t.folio.content, urls: t.folio.urls });

    const ids = await documents.ids(blog);
    const docs = await documents.ofIds(blog, ids);
    expect(docs.map((doc) => doc.slug)).toEqual(slugs);
    expect(docs).toEqual(await documents.all(blog));

    await t.folio.transitions.unpublish(blog, slugs[2]!);
    const reversed = await documents.ofIds(blog, [...ids].reverse());
    expect(reversed.map((doc) => doc.slug)).toEqual([slugs[4], slugs[3], slugs[1], slugs[0]]);
  });
});
