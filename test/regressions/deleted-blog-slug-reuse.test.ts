/**
 * Regression (hardening issue, items 2 and 3): a deleted blog's pages and search index went to
 * the next owner of its slug. BlogsService.delete freed the slug at once, and the site-delete
 * job, seeing a newer blog on that slug, left every object in place and skipped dropping the
 * index: B's subdomain served A's pages and B's key searched A's posts. And a deleted blog was
 * still served until that job had emptied the store.
 *
 * Now the slug stays reserved until the job has removed the site, and the site server asks the
 * database which blogs exist. Run against the folder store and against S3 (s3rver), under the
 * race of the report (a rename's whole-site job, then delete, then a new blog at once) and
 * under a store outage during the delete.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { CACHE_CONTROL_PAGE } from '../../src/domain/cacheHeaders.js';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { S3SiteStore } from '../../src/storage/s3SiteStore.js';
import type { SiteStore } from '../../src/storage/siteStore.js';
import { buildAccount, expectError, type Actor } from '../support/factories.js';
import { FaultyStore } from '../support/faultyStore.js';
import { createTestBucket } from '../../bench/harness/s3rver.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';

const POSTS = 30;
const MARKER = 'zebrafinch';

interface Setup {
  t: TestApp;
  store: FaultyStore;
  dataDir: string;
}

const stores: Record<string, (dataDir: string) => Promise<SiteStore>> = {
  folder: async (dataDir) => new FsSiteStore({ root: join(dataDir, 'public'), plainCacheControl: CACHE_CONTROL_PAGE }),
  s3: async () => {
    const { client, bucket } = await createTestBucket(inject('s3Endpoint'));
    return new S3SiteStore({ client, bucket });
  },
};

let current: Setup | null = null;

async function setup(kind: string): Promise<Setup> {
  const dataDir = mkdtempSync(join(tmpdir(), 'folio-slug-reuse-'));
  const store = new FaultyStore(await stores[kind]!(dataDir));
  const t = await startTestApp({ dataDir, store });
  current = { t, store, dataDir };
  return current;
}

afterEach(async () => {
  if (!current) return;
  await current.t.close();
  rmSync(current.dataDir, { recursive: true, force: true });
  current = null;
});

async function createBlog(actor: Actor, slug: string): Promise<{ id: string }> {
  const res = await actor.request('POST', '/v1/blogs', { body: { slug, name: `Blog ${slug}` } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function publishPosts(actor: Actor, blogId: string, count: number, word: string): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const res = await actor.request('POST', '/v1/posts', {
      blogId,
      body: { title: `Post ${i}`, slug: `post-${i}`, content: `${word === MARKER ? 'Post number' : 'Entry'} ${i} mentions ${word}.`, status: 'published' },
    });
    expect(res.status, res.text).toBe(201);
  }
}

/** Everything B can reach of slug `slug`: nothing of A's may be among it. */
async function expectNothingOfA(t: TestApp, store: SiteStore, slug: string, b: Actor, blogB: string): Promise<void> {
  const host = `${slug}.localhost:3000`;
  for (const path of ['/', '/post-1', `/post-${POSTS}`, '/rss.xml', '/feed.json', '/sitemap.xml', '/tags/']) {
    const page = await visit(t.baseUrl, host, path);
    expect(page.text, `${path} on B's host`).not.toContain(MARKER);
    expect(page.text).not.toContain('Post number');
  }
  const search = await b.request('GET', `/v1/search?q=${MARKER}`, { blogId: blogB });
  expect(search.status, search.text).toBe(200);
  expect(search.body.pagination.total).toBe(0);
  for (const key of await store.list(`${slug}/`)) {
    const object = await store.get(key);
    expect(object?.body.toString('utf8') ?? '', key).not.toContain(MARKER);
  }
}

describe.each(Object.keys(stores))("a deleted blog's slug, %s store", (kind) => {
  it('the site answers 404 for every path as soon as DELETE answers, before its objects are removed', async () => {
    const { t, store } = await setup(kind);
    const a = await buildAccount(t);
    const slug = `gone-${kind}`;
    const blog = await createBlog(a, slug);
    await publishPosts(a, blog.id, 3, MARKER);
    expect((await visit(t.baseUrl, `${slug}.localhost:3000`, '/post-1')).status).toBe(200);

    // The store is down, so the objects certainly stay in it for now.
    store.down = true;
    const deleted = await a.request('DELETE', `/v1/blogs/${blog.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await store.get(`${slug}/post-1/index.html`))?.body.toString('utf8')).toContain(MARKER);
    for (const path of ['/', '/post-1', '/post-2/', '/rss.xml', '/sitemap.xml', '/404', '/assets/x.css']) {
      const page = await visit(t.baseUrl, `${slug}.localhost:3000`, path);
      expect(page.status, path).toBe(404);
      expect(page.text).not.toContain(MARKER);
    }
  });

  it('a new blog cannot take the slug until the old site and index are gone, even across a store outage', async () => {
    const { t, store } = await setup(kind);
    const a = await buildAccount(t);
    const b = await buildAccount(t);
    const slug = `taken-${kind}`;
    const blogA = await createBlog(a, slug);
    await publishPosts(a, blogA.id, 5, MARKER);

    store.down = true;
    expect((await a.request('DELETE', `/v1/blogs/${blogA.id}`)).status).toBe(200);
    await t.folio.idle();
    // The deletion job failed against the store: the slug is still reserved.
    const refused = await b.request('POST', '/v1/blogs', { body: { slug, name: 'B' } });
    expectError(refused, 409, 'conflict');
    expect(refused.body.message).toMatch(/still being removed/);

    store.down = false;
    t.clock.advance(10 * 60_000);
    await t.folio.tick();
    await t.folio.idle();
    expect(await store.list(`${slug}/`)).toEqual([]);
    const blogB = await createBlog(b, slug);
    await expectNothingOfA(t, store, slug, b, blogB.id);
  });

  it('holds under the reported race: rename (whole-site job), delete, and a new blog on the slug at once', async () => {
    const { t, store } = await setup(kind);
    const a = await buildAccount(t);
    const b = await buildAccount(t);
    const slug = `race-${kind}`;
    const blogA = await createBlog(a, slug);
    await publishPosts(a, blogA.id, POSTS, MARKER);
    const search = await a.request('GET', `/v1/search?q=${MARKER}`, { blogId: blogA.id });
    expect(search.body.pagination.total).toBe(POSTS);

    expect((await a.request('PUT', `/v1/blogs/${blogA.id}`, { body: { name: 'Renamed' } })).status).toBe(200);
    expect((await a.request('DELETE', `/v1/blogs/${blogA.id}`)).status).toBe(200);
    // B tries at once and keeps trying: every answer is a 409 until the old site is gone.
    let blogB: { id: string } | null = null;
    for (let attempt = 0; attempt < 400 && !blogB; attempt++) {
      const res = await b.request('POST', '/v1/blogs', { body: { slug, name: 'B' } });
      if (res.status === 201) blogB = res.body;
      else {
        expectError(res, 409, 'conflict');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    expect(blogB, 'B never got the slug').not.toBeNull();
    await expectNothingOfA(t, store, slug, b, blogB!.id);

    // B's own site and search hold B's post only.
    await publishPosts(b, blogB!.id, 1, 'kestrel');
    await t.folio.idle();
    const page = await visit(t.baseUrl, `${slug}.localhost:3000`, '/post-1');
    expect(page.status).toBe(200);
    expect(page.text).toContain('kestrel');
    expect(page.text).not.toContain(MARKER);
    const own = await b.request('GET', '/v1/search?q=post', { blogId: blogB!.id });
    expect(own.body.pagination.total).toBe(1);
    await expectNothingOfA(t, store, slug, b, blogB!.id);
  });
});
