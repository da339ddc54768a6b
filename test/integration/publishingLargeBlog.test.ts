/**
 * Incremental publishing in a blog big enough to have two sitemap chunks (over
 * SITEMAP_CHUNK_SIZE posts) and fifty archive pages: after each lifecycle operation the store
 * must hold exactly what a full render of the database gives (`verify` finds nothing), while
 * the publisher answers from its listing cache instead of re-reading the blog. A second server
 * process writing to the same database must not leave the first one's cache stale.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITEMAP_CHUNK_SIZE } from '../../src/publish/render/sitemap.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { seedBlog } from '../support/seedBlog.js';
import { visit as visitHost } from '../../bench/harness/visit.js';

const SEEDED = SITEMAP_CHUNK_SIZE + 30;

function visit(app: TestApp, blog: string, path: string) {
  return visitHost(app.baseUrl, `${blog}.localhost:3000`, path);
}

describe('incremental publishing in a blog of more than one sitemap chunk', () => {
  let t: TestApp;
  let key: string;
  let blogId: string;
  const slugs: string[] = [];

  let dataDir = '';
  /** The data dir's data: on the PostgreSQL pass with a database of its own, which every process here shares. */
  let env: Record<string, string> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'folio-large-'));
    env = await freshDataEnv(dataDir);
    // Seed through the services without rendering, then render once with a full rebuild.
    const seed = await seedBlog(dataDir, env, { slug: 'big', name: 'Big blog' }, SEEDED, (i) => [i % 2 ? 'odd' : 'even', `group-${i % 7}`]);
    ({ key, blogId } = seed);
    slugs.push(...seed.slugs);
    t = await startTestApp({ dataDir, env, clock: seed.clock });
    await t.folio.publisher.rebuild((await t.folio.repos.blogs.findById(blogId))!);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, blogId, ...(body === undefined ? {} : { body }) });

  async function expectInStep(app: TestApp = t): Promise<void> {
    const report = await app.folio.publisher.verify((await app.folio.repos.blogs.findById(blogId))!);
    expect({ missing: report.missing, different: report.different, extra: report.extra }).toEqual({ missing: [], different: [], extra: [] });
  }

  it('starts with a sitemap index of the pages sitemap and two post chunks', async () => {
    const index = await visit(t, 'big', '/sitemap.xml');
    expect(index.text.match(/<sitemap>/g)).toHaveLength(3);
    expect(index.text).toContain('/sitemap-posts-2.xml');
    const second = await visit(t, 'big', '/sitemap-posts-2.xml');
    expect(second.text.match(/<url>/g)).toHaveLength(30 + 2); // 30 posts, archive pages 51 and 52
    await expectInStep();
  });

  it('a new post touches only the newest chunk, and the store stays in step', async () => {
    const first = await t.folio.store.get('big/sitemap-posts-1.xml');
    t.clock.advance(60_000);
    const created = await api('POST', '/v1/posts', { title: 'Fresh post', content: 'New words.', tags: ['odd'], status: 'published' });
    expect(created.status).toBe(201);
    expect((await visit(t, 'big', '/sitemap-posts-2.xml')).text).toContain('/fresh-post');
    expect((await t.folio.store.get('big/sitemap-posts-1.xml'))?.etag).toBe(first?.etag);
    expect((await visit(t, 'big', '/llms.txt')).text).toContain('[Fresh post]');
    await expectInStep();
  });

  it('an edit of an old post (title and tags) stays in step', async () => {
    t.clock.advance(60_000);
    expect((await api('PUT', `/v1/posts/${slugs[3]}`, { title: 'An old post, retitled', tags: ['renamed-tag'] })).status).toBe(200);
    expect((await visit(t, 'big', '/tags/renamed-tag')).text).toContain('An old post, retitled');
    await expectInStep();
  });

  it('unpublishing an old post shifts later archive pages and chunks, and stays in step', async () => {
    t.clock.advance(60_000);
    expect((await api('POST', `/v1/posts/${slugs[10]}/unpublish`)).status).toBe(200);
    expect((await visit(t, 'big', `/${slugs[10]}`)).status).toBe(404);
    await expectInStep();
  });

  it('renaming and deleting posts at a chunk boundary stay in step', async () => {
    t.clock.advance(60_000);
    expect((await api('PUT', `/v1/posts/${slugs[999]}`, { slug: 'moved-at-the-boundary' })).status).toBe(200);
    await expectInStep();
    t.clock.advance(60_000);
    expect((await api('DELETE', `/v1/posts/${slugs[1000]}`)).status).toBe(200);
    await expectInStep();
  });

  it('sees a change another server process made to the same database', async () => {
    const other = await startTestApp({ dataDir: t.dataDir, env, clock: t.clock });
    try {
      t.clock.advance(60_000);
      const elsewhere = await other.request('POST', '/v1/posts', {
        key,
        blogId,
        body: { title: 'Written by the other process', content: 'Hi.', status: 'published' },
      });
      expect(elsewhere.status).toBe(201);
      t.clock.advance(60_000);
      expect((await api('POST', '/v1/posts', { title: 'Written here afterwards', content: 'Hello.', status: 'published' })).status).toBe(201);
      // This process rendered the home page last: it must list the other process's post too.
      const home = (await visit(t, 'big', '/')).text;
      expect(home).toContain('Written here afterwards');
      expect(home).toContain('Written by the other process');
      await expectInStep();
    } finally {
      await other.close();
    }
  });

  it('after a restart, publishes from the listing saved at shutdown and stays in step with a render from the rows', async () => {
    await t.close();
    t = await startTestApp({ dataDir, env, clock: t.clock });
    const snapshot = await t.folio.sql.get<{ seq: number }>('SELECT seq FROM listing_snapshots WHERE blog_id = ?', [blogId]);
    expect(snapshot?.seq).toBeGreaterThan(0);
    t.clock.advance(60_000);
    expect((await api('POST', '/v1/posts', { title: 'First after the restart', content: 'Hi.', tags: ['odd'], status: 'published' })).status).toBe(201);
    t.clock.advance(60_000);
    expect((await api('PUT', `/v1/posts/${slugs[500]}`, { title: 'Retitled after the restart', tags: ['group-3'] })).status).toBe(200);
    t.clock.advance(60_000);
    expect((await api('POST', `/v1/posts/${slugs[20]}/unpublish`)).status).toBe(200);
    expect((await visit(t, 'big', '/')).text).toContain('First after the restart');
    expect((await visit(t, 'big', `/${slugs[500]}`)).text).toContain('Retitled after the restart');
    // Checked by a process that reads every row: no snapshot to restore.
    const fromRows = await startTestApp({ dataDir, env, clock: t.clock });
    try {
      await fromRows.folio.sql.run('DELETE FROM listing_snapshots');
      await expectInStep(fromRows);
    } finally {
      await fromRows.close();
    }
  });
});
