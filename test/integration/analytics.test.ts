/**
 * Reader analytics over real HTTP (docs/analytics.md): pages and their beacons on a blog's host,
 * a flush into the real SQLite file, and the API's answers; plans, scopes, other accounts,
 * deletion and retention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, createKey, expectError, expectPlanError, postPath, type BuiltBlog } from '../support/factories.js';
import { visit } from '../../bench/harness/visit.js';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { loadConfig } from '../../src/config/config.js';
import { openConfiguredDatabase } from '../../src/compose/database.js';
import { CHROME_UA, FIREFOX_UA, GOOGLEBOT_UA, beaconOf, loadPage } from '../support/readerVisits.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const hostOf = (blog: BuiltBlog): string => `${blog.slug}.localhost:3000`;

async function publishedBlog(plan: 'starter' | 'free' | 'enterprise' = 'starter') {
  const blog = await buildBlog(t, { plan });
  await buildPost(blog, { title: 'First', slug: 'first', status: 'published' });
  await buildPost(blog, { title: '둘째 글', slug: '둘째-글', status: 'published' });
  await buildPost(blog, { title: 'Draft', slug: 'draft' });
  await t.folio.idle();
  return blog;
}

async function overview(blog: BuiltBlog) {
  const res = await blog.actor.request('GET', '/v1/analytics/overview', { blogId: blog.id });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function postStats(blog: BuiltBlog, slug: string) {
  const res = await blog.actor.request('GET', `/v1/analytics/posts/${encodeURIComponent(slug)}`, { blogId: blog.id });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('counting page loads', () => {
  it('counts each reader load of a post page and the home page once, and the API answers after a flush', async () => {
    const blog = await publishedBlog();
    const host = hostOf(blog);
    const first = await loadPage(t.baseUrl, host, '/first');
    expect(first.beacon?.status).toBe(200);
    expect(first.beacon?.headers['content-type']).toBe('image/gif');
    expect(first.beacon?.headers['cache-control']).toBe('no-store');
    expect(first.beacon?.headers['set-cookie']).toBeUndefined();
    expect(first.page.headers['set-cookie']).toBeUndefined();
    await loadPage(t.baseUrl, host, '/first');
    await loadPage(t.baseUrl, host, '/first', { userAgent: FIREFOX_UA });
    await loadPage(t.baseUrl, host, `/${encodeURIComponent('둘째-글')}`);
    await loadPage(t.baseUrl, host, '/');
    // Not views: a crawler, HEAD, a prefetch, a prerender.
    await loadPage(t.baseUrl, host, '/first', { userAgent: GOOGLEBOT_UA });
    await loadPage(t.baseUrl, host, '/first', { method: 'HEAD' });
    await loadPage(t.baseUrl, host, '/first', { headers: { 'sec-purpose': 'prefetch' } });
    await loadPage(t.baseUrl, host, '/first', { headers: { 'sec-purpose': 'prefetch;prerender' } });
    await loadPage(t.baseUrl, host, '/first', { headers: { purpose: 'prefetch' } });
    // Nothing is visible before the flush: no view wrote SQLite.
    expect((await overview(blog)).total_views_30d).toBe(0);
    await t.folio.analytics.flush();

    const stats = await postStats(blog, 'first');
    expect(Object.keys(stats).sort()).toEqual(['daily_views', 'referrers', 'slug', 'views_30d', 'views_7d', 'visitors_30d', 'visitors_7d']);
    expect(stats).toMatchObject({ slug: 'first', views_7d: 3, views_30d: 3, visitors_7d: 2, visitors_30d: 2, referrers: [] });
    expect(stats.daily_views).toHaveLength(30);
    expect(stats.daily_views.at(-1)).toEqual({ date: '2026-03-24', views: 3 });
    expect(stats.daily_views[0]).toEqual({ date: '2026-02-23', views: 0 });

    const all = await overview(blog);
    expect(all).toMatchObject({ total_views_7d: 5, total_views_30d: 5, visitors_7d: 2, visitors_30d: 2 });
    expect(all.top_posts).toEqual([
      { slug: 'first', title: 'First', views: 3 },
      { slug: '둘째-글', title: '둘째 글', views: 1 },
    ]);
    expect(all.daily_views).toHaveLength(30);
    expect(all.daily_views.at(-1)).toEqual({ date: '2026-03-24', views: 5 });
    expect(all.daily_views.slice(0, 29).every((d: { views: number }) => d.views === 0)).toBe(true);
    expect((await postStats(blog, '둘째-글')).views_30d).toBe(1);
    // A draft has no page; a post that does not exist is 404.
    expect((await postStats(blog, 'draft')).views_30d).toBe(0);
    expectError(await blog.actor.request('GET', '/v1/analytics/posts/nope', { blogId: blog.id }), 404, 'not_found');
  });

  it('only the pages that name the beacon count: listing pages other than home have none', async () => {
    const blog = await publishedBlog();
    const archive = await visit(t.baseUrl, hostOf(blog), '/archive/');
    expect(archive.status).toBe(200);
    expect(beaconOf(archive.text)).toBeNull();
    expect(beaconOf((await visit(t.baseUrl, hostOf(blog), '/first')).text)).toBe('/_folio/view.gif?p=first');
    expect(beaconOf((await visit(t.baseUrl, hostOf(blog), '/')).text)).toBe('/_folio/view.gif');
  });

  it('ignores beacons for drafts, unknown slugs, other hosts’ pages and malformed queries, and still answers the image', async () => {
    const blog = await publishedBlog();
    const host = hostOf(blog);
    const headers = { 'user-agent': CHROME_UA, referer: `http://${host}/x` };
    for (const target of [
      '/_folio/view.gif?p=draft',
      '/_folio/view.gif?p=nope',
      '/_folio/view.gif?p=first&p=first',
      '/_folio/view.gif?p=first&x=1',
      `/_folio/view.gif?p=${'a'.repeat(300)}`,
      '/_folio/view.gif?p=%ZZ',
      '/_folio/view.gif?p=',
    ]) {
      const res = await visit(t.baseUrl, host, target, { headers });
      expect(res.status, target).toBe(200);
      expect(res.headers['content-type']).toBe('image/gif');
    }
    // Embedded in another site's page: not a reader of this blog.
    await visit(t.baseUrl, host, '/_folio/view.gif?p=first', { headers: { 'user-agent': CHROME_UA, referer: 'https://evil.example/' } });
    await t.folio.analytics.flush();
    expect((await overview(blog)).total_views_30d).toBe(0);
    // A POST to the beacon is the site's 405.
    expect((await visit(t.baseUrl, host, '/_folio/view.gif', { method: 'POST' })).status).toBe(405);
  });

  it('keeps referrer hosts only: an external Referer of the page Folio served, or the page address’s utm_source', async () => {
    const blog = await publishedBlog();
    const host = hostOf(blog);
    await loadPage(t.baseUrl, host, '/first', { referer: 'https://news.ycombinator.com/item?id=42' });
    await loadPage(t.baseUrl, host, '/first', { referer: 'https://www.google.com/search?q=private+words', userAgent: FIREFOX_UA });
    await loadPage(t.baseUrl, host, '/first?utm_source=Newsletter&utm_medium=email');
    await loadPage(t.baseUrl, host, '/?ref=mastodon.social');
    // A click inside the blog is not a referrer.
    await loadPage(t.baseUrl, host, '/first', { referer: `http://${host}/` });
    await t.folio.analytics.flush();
    const stats = await postStats(blog, 'first');
    expect(stats.referrers).toEqual([
      { host: 'google.com', views: 1 },
      { host: 'news.ycombinator.com', views: 1 },
      { host: 'newsletter', views: 1 },
    ]);
    expect((await overview(blog)).referrers).toEqual([
      { host: 'google.com', views: 1 },
      { host: 'mastodon.social', views: 1 },
      { host: 'news.ycombinator.com', views: 1 },
      { host: 'newsletter', views: 1 },
    ]);
    const stored = await t.folio.sql.all<{ host: string }>('SELECT host FROM analytics_blog_referrers UNION ALL SELECT host FROM analytics_post_referrers');
    for (const { host: h } of stored) expect(h).not.toMatch(/[/?=]|private|item/);
  });
});

describe('who may read the counts', () => {
  it('needs the Starter plan: free is 403 with required_plan', async () => {
    const blog = await publishedBlog('free');
    expectPlanError(await blog.actor.request('GET', '/v1/analytics/overview', { blogId: blog.id }), 'starter');
    expectPlanError(await blog.actor.request('GET', '/v1/analytics/posts/first', { blogId: blog.id }), 'starter');
  });

  it('needs analytics:read (or analytics:*, or *)', async () => {
    const blog = await publishedBlog();
    const narrow = await createKey(blog.actor, blog.id, { scopes: ['posts:read'] });
    expectError(await t.request('GET', '/v1/analytics/overview', { key: narrow.key }), 403, 'forbidden');
    for (const scopes of [['analytics:read'], ['analytics:*'], ['*']]) {
      const key = await createKey(blog.actor, blog.id, { scopes });
      const res = await t.request('GET', '/v1/analytics/overview', { key: key.key });
      expect(res.status, `${scopes[0]}: ${res.text}`).toBe(200);
    }
  });

  it('never shows one account another account’s blog, and counts stay with their blog', async () => {
    const mine = await publishedBlog();
    const theirs = await publishedBlog();
    await loadPage(t.baseUrl, hostOf(theirs), '/first');
    await t.folio.analytics.flush();
    expectError(await mine.actor.request('GET', '/v1/analytics/overview', { blogId: theirs.id }), 404, 'not_found');
    expectError(await mine.actor.request('GET', '/v1/analytics/posts/first', { blogId: theirs.id }), 404, 'not_found');
    expect((await overview(mine)).total_views_30d).toBe(0);
    expect((await overview(theirs)).total_views_30d).toBe(1);
  });
});

describe('deletion and retention', () => {
  const rows = async (table: string, column: string, id: string): Promise<number> =>
    (await t.folio.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, [id]))!.n;

  it('deleting a post deletes its counts, and counts still in memory are dropped at the flush', async () => {
    const blog = await publishedBlog();
    const post = (await blog.actor.request('GET', postPath('first'), { blogId: blog.id })).body;
    await loadPage(t.baseUrl, hostOf(blog), '/first?utm_source=x');
    await t.folio.analytics.flush();
    expect(await rows('analytics_post_days', 'post_id', post.id)).toBe(1);
    expect(await rows('analytics_post_referrers', 'post_id', post.id)).toBe(1);
    await loadPage(t.baseUrl, hostOf(blog), '/first');
    expect((await blog.actor.request('DELETE', postPath('first'), { blogId: blog.id })).status).toBe(200);
    await t.folio.analytics.flush();
    expect(await rows('analytics_post_days', 'post_id', post.id)).toBe(0);
    expect(await rows('analytics_post_referrers', 'post_id', post.id)).toBe(0);
  });

  it('deleting a blog or the account deletes their counts', async () => {
    const blog = await publishedBlog();
    await loadPage(t.baseUrl, hostOf(blog), '/first');
    await t.folio.analytics.flush();
    expect(await rows('analytics_blog_days', 'blog_id', blog.id)).toBe(1);
    expect(await rows('analytics_post_days', 'blog_id', blog.id)).toBe(1);
    expect((await blog.actor.request('DELETE', `/v1/blogs/${blog.id}`)).status).toBe(200);
    expect(await rows('analytics_blog_days', 'blog_id', blog.id)).toBe(0);
    expect(await rows('analytics_post_days', 'blog_id', blog.id)).toBe(0);

    const other = await publishedBlog();
    await loadPage(t.baseUrl, hostOf(other), '/');
    await t.folio.analytics.flush();
    expect(await rows('analytics_blog_days', 'blog_id', other.id)).toBe(1);
    const res = await other.actor.request('DELETE', '/v1/account', { body: { confirm: other.actor.accountId } });
    expect(res.status, res.text).toBe(200);
    expect(await rows('analytics_blog_days', 'blog_id', other.id)).toBe(0);
  });
});

describe('hostile hits and shutdown', () => {
  it('a flood of beacons for slugs that are no published post creates no in-memory rows', async () => {
    const blog = await publishedBlog();
    const host = hostOf(blog);
    const before = await t.folio.analytics.pending();
    for (let i = 0; i < 300; i++) {
      const res = await visit(t.baseUrl, host, `/_folio/view.gif?p=nope-${i}-${'x'.repeat(i % 50)}`, {
        headers: { 'user-agent': `${CHROME_UA} ${i}`, 'x-forwarded-for': `10.0.${i >> 8}.${i & 255}` },
      });
      expect(res.status).toBe(200);
    }
    expect(await t.folio.analytics.pending()).toEqual(before);
    // The control: one reader's load of a real post does add rows (its post's and the blog's).
    await loadPage(t.baseUrl, host, '/first');
    expect((await t.folio.analytics.pending()).rows).toBeGreaterThan(before.rows);
  });

  it('writes what is still in memory when the server closes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-analytics-close-'));
    const env = await freshDataEnv(dataDir);
    const app = await startTestApp({ dataDir, env });
    try {
      const blog = await buildBlog(app, { plan: 'starter' });
      await buildPost(blog, { title: 'First', slug: 'first', status: 'published' });
      await app.folio.idle();
      await loadPage(app.baseUrl, hostOf(blog), '/first');
      await app.close();
      const db = await openConfiguredDatabase(loadConfig(env));
      try {
        expect(await db.sql.get('SELECT views FROM analytics_blog_days WHERE blog_id = ?', [blog.id])).toEqual({ views: 1 });
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('retention', () => {
  it('deletes days older than FOLIO_ANALYTICS_RETENTION_DAYS at the first flush of a day', async () => {
    const app = await startTestApp({ env: { FOLIO_ANALYTICS_RETENTION_DAYS: '3' } });
    try {
      const blog = await buildBlog(app, { plan: 'starter' });
      await buildPost(blog, { title: 'First', slug: 'first', status: 'published' });
      await app.folio.idle();
      await loadPage(app.baseUrl, hostOf(blog), '/first');
      await app.folio.analytics.flush();
      const days = async () => (await app.folio.sql.all<{ day: string }>('SELECT day FROM analytics_blog_days WHERE blog_id = ?', [blog.id])).map((r) => r.day);
      expect(await days()).toEqual(['2026-03-24']);
      app.clock.advance(2 * 86_400_000);
      await app.folio.analytics.flush();
      expect(await days()).toEqual(['2026-03-24']);
      app.clock.advance(86_400_000);
      await app.folio.analytics.flush();
      expect(await days()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('client addresses', () => {
  async function visitorsWith(env: Record<string, string>): Promise<number> {
    const app = await startTestApp({ env });
    try {
      const blog = await buildBlog(app, { plan: 'starter' });
      await buildPost(blog, { title: 'First', slug: 'first', status: 'published' });
      await app.folio.idle();
      for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.2']) {
        await loadPage(app.baseUrl, hostOf(blog), '/first', { headers: { 'x-forwarded-for': `203.0.113.50, ${address}` } });
      }
      await app.folio.analytics.flush();
      const res = await app.request('GET', '/v1/analytics/overview', { key: blog.actor.key, blogId: blog.id });
      expect(res.body.total_views_30d).toBe(3);
      return res.body.visitors_30d;
    } finally {
      await app.close();
    }
  }

  it('believes X-Forwarded-For only behind a trusted proxy (FOLIO_TRUST_PROXY), and then only the entry that proxy wrote', async () => {
    expect(await visitorsWith({})).toBe(1);
    expect(await visitorsWith({ FOLIO_TRUST_PROXY: 'on' })).toBe(2);
    // Two proxies: the client-supplied left entry is the same for all three loads.
    expect(await visitorsWith({ FOLIO_TRUST_PROXY: '2' })).toBe(1);
  });

  it('writes no address, hash or user agent anywhere in the database', async () => {
    const blog = await publishedBlog();
    await loadPage(t.baseUrl, hostOf(blog), '/first', { headers: { 'x-forwarded-for': '192.0.2.77' } });
    await t.folio.analytics.flush();
    const tables = (
      await t.folio.sql.all<{ name: string }>(
        t.folio.sql.dialect === 'sqlite'
          ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'analytics_%'"
          : "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'analytics_%'",
      )
    ).map((r) => r.name);
    expect(tables.length).toBeGreaterThan(0);
    for (const table of tables) {
      const dump = JSON.stringify(await t.folio.sql.all(`SELECT * FROM ${table}`));
      expect(dump).not.toContain('127.0.0.1');
      expect(dump).not.toContain('192.0.2.77');
      expect(dump).not.toContain('Chrome');
    }
  });
});
