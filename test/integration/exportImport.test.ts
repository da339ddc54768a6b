import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { image } from '../support/images.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, countRows, createKey, expectError, postPath, type BuiltBlog } from '../support/factories.js';

let source: TestApp;
let blog: BuiltBlog;
let exported: { text: string; body: any; headers: Headers };
const work = mkdtempSync(join(tmpdir(), 'folio-export-'));

beforeAll(async () => {
  source = await startTestApp();
  blog = await buildBlog(source, { slug: `moved-${Date.now()}`, name: 'Moving house', description: 'A blog that moves' });
  expect(
    (await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { footerHtml: '<p>Moved from elsewhere</p>' }, discoverable: true } }))
      .status,
  ).toBe(200);
  await buildBlog(source, { actor: blog.actor, slug: `empty-${Date.now()}`, name: 'Empty' });
  const media = (
    await source.request('POST', '/v1/media', {
      key: blog.actor.key,
      blogId: blog.id,
      raw: await image('png', 64, 48),
      headers: { 'content-type': 'image/png' },
    })
  ).body;
  await buildPost(blog, { title: 'Draft idea', slug: 'draft-idea', content: 'Not yet.' });
  await buildPost(blog, {
    title: 'Node.js 서버 성능 측정하는 법',
    content: '## 측정\n\n서버에서 `wrk`로 측정한다.',
    tags: ['성능', 'node'],
    status: 'published',
  });
  await buildPost(blog, {
    title: 'With picture',
    slug: 'with-picture',
    content: `![x](${media.url})`,
    status: 'published',
    meta: { description: 'Chosen words.', og_image: media.id },
  });
  await buildPost(blog, { title: 'Later', slug: 'later' });
  source.clock.advance(1000);
  expect(
    (
      await blog.actor.request('POST', postPath('later', '/schedule'), {
        blogId: blog.id,
        body: { scheduled_at: new Date(source.clock.now().getTime() + 7 * 86_400_000).toISOString() },
      })
    ).status,
  ).toBe(200);
  const res = await fetch(`${source.baseUrl}/v1/account/export`, { headers: { authorization: `Bearer ${blog.actor.key}` } });
  const text = await res.text();
  exported = { text, body: JSON.parse(text), headers: res.headers };
});
afterAll(async () => {
  await source.close();
  rmSync(work, { recursive: true, force: true });
});

describe('GET /v1/account/export', () => {
  it('returns every blog of the account with posts as written, tags, theme and media list', () => {
    expect(exported.headers.get('content-type')).toContain('application/json');
    expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="folio-export-\d{4}-\d{2}-\d{2}\.json"$/);
    const doc = exported.body;
    expect(doc).toMatchObject({ format: 'folio-export', version: 1 });
    expect(doc.blogs.map((b: { name: string }) => b.name).sort()).toEqual(['Empty', 'Moving house']);
    const moving = doc.blogs.find((b: { name: string }) => b.name === 'Moving house');
    expect(moving.theme_config).toEqual({ footerHtml: '<p>Moved from elsewhere</p>' });
    expect(moving.discoverable).toBe(true);
    expect(moving.posts.map((p: { status: string }) => p.status)).toEqual(['draft', 'published', 'published', 'scheduled']);
    const korean = moving.posts[1];
    expect(korean).toMatchObject({
      title: 'Node.js 서버 성능 측정하는 법',
      content: '## 측정\n\n서버에서 `wrk`로 측정한다.',
      tags: ['성능', 'node'],
      meta: { description: null, og_image: null },
    });
    expect(moving.posts[2].meta).toEqual({ description: 'Chosen words.', og_image: expect.stringMatching(/\/media\/[0-9a-f]{20}-64x48\.png$/) });
    expect(moving.posts[3].scheduled_at).toMatch(/Z$/);
    expect(moving.media).toHaveLength(1);
    expect(moving.media[0]).toMatchObject({ width: 64, height: 48, content_type: 'image/png' });
  });

  it('needs an account key with posts:read and blogs:read', async () => {
    const bound = await createKey(blog.actor, blog.id, {});
    expectError(await source.request('GET', '/v1/account/export', { key: bound.key }), 403, 'forbidden');
    const keys = await blog.actor.request('POST', '/v1/account/api-keys', { body: { name: 'blogs only', scopes: ['blogs:read'] } });
    expectError(await source.request('GET', '/v1/account/export', { key: keys.body.key }), 403, 'forbidden');
    expectError(await source.request('GET', '/v1/account/export', { key: null }), 401, 'unauthorized');
  });
});

describe('folio import', () => {
  it('round-trips: the export of the imported account is the export it came from, and the site is published', async () => {
    const file = join(work, 'export.json');
    writeFileSync(file, exported.text);
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-import-'));
    const env = await freshDataEnv(dataDir);
    const account = JSON.parse((await runCliCaptured(['account', 'create', '--plan', 'enterprise', '--json'], env)).stdout) as {
      account_id: string;
      api_key: string;
    };
    const run = await runCliCaptured(['import', file, '--account', account.account_id], env);
    expect(run.stderr.split('\n').filter((l) => l && !l.startsWith('importing') && !l.startsWith('publishing'))).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Imported 2 blogs and 4 posts');
    expect(run.stdout).toContain('1 images stay at their old URLs');

    const target = await startTestApp({ dataDir, env });
    try {
      const again = JSON.parse(await (await fetch(`${target.baseUrl}/v1/account/export`, { headers: { authorization: `Bearer ${account.api_key}` } })).text());
      const strip = (doc: any) => ({
        ...doc,
        exported_at: null,
        blogs: doc.blogs.map((b: any) => ({ ...b, media: [] })).sort((a: any, b: any) => a.slug.localeCompare(b.slug)),
      });
      expect(strip(again)).toEqual(strip(exported.body));
      // Each imported post starts its history with the title and text it was imported with.
      const histories = await target.folio.sql.all(
        `SELECT (SELECT COUNT(*) FROM post_revisions r WHERE r.post_id = p.id) AS kept,
                (SELECT COUNT(*) FROM post_revisions r WHERE r.post_id = p.id AND r.title = p.title AND r.content_md = p.content_md) AS same
           FROM posts p`,
      );
      expect(histories).toEqual(Array.from({ length: 4 }, () => ({ kept: 1, same: 1 })));
      // The published posts are live on the new Folio; the draft is not.
      const host = `${blog.slug}.localhost:3000`;
      expect((await visit(target.baseUrl, host, '/with-picture')).status).toBe(200);
      expect((await visit(target.baseUrl, host, `/${encodeURIComponent('node-js-서버-성능-측정하는-법')}`)).text).toContain('서버에서');
      expect((await visit(target.baseUrl, host, '/draft-idea')).status).toBe(404);
      // The blog stays listed by discovery, its published posts indexed by the import's render.
      const discovered = await target.request('GET', `/v1/discover?q=${encodeURIComponent('서버를 측정')}`, { key: null });
      expect(discovered.body.data.map((hit: { blog: { slug: string } }) => hit.blog.slug)).toEqual([blog.slug]);
    } finally {
      await target.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('writes nothing when a blog slug is taken, or the file is not an export, and says why', async () => {
    const file = join(work, 'export.json');
    writeFileSync(file, exported.text);
    const env = source.cliEnv;
    const blogsBefore = await countRows(source, 'blogs');
    const taken = await runCliCaptured(['import', file, '--account', blog.actor.accountId], env);
    expect(taken.code).toBe(1);
    expect(taken.stdout).toContain('Imported 0 blogs and 0 posts');
    expect(taken.stdout).toContain('Nothing was imported.');
    expect(taken.stderr).toMatch(
      /folio: not imported: blog "moved-\d+": this account already has a blog with this slug \(imported before\?\); none of its 4 posts were imported/,
    );
    const broken = join(work, 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...exported.body, blogs: [{ ...exported.body.blogs[0], posts: [{ title: 'no slug' }] }] }));
    const malformed = await runCliCaptured(['import', broken, '--account', blog.actor.accountId], env);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('not a Folio export: /blogs/0/posts/0');
    expect(await countRows(source, 'blogs')).toBe(blogsBefore);
  });
});

describe('folio import checks what the API checks, reports what it left out, and renders what it imported', () => {
  /** The exported document with one blog of these posts, under a fresh slug. */
  function documentWith(slug: string, posts: Record<string, unknown>[]): string {
    const base = exported.body.blogs.find((b: { name: string }) => b.name === 'Moving house');
    const post = {
      title: 'A post',
      content: 'Words.',
      tags: [],
      status: 'published',
      meta: { description: null, og_image: null },
      published_at: '2025-01-02T03:04:05.000Z',
      scheduled_at: null,
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-01T00:00:00.000Z',
    };
    return JSON.stringify({ ...exported.body, blogs: [{ ...base, slug, custom_domain: null, media: [], posts: posts.map((p) => ({ ...post, ...p })) }] });
  }

  it('refuses a reserved slug, too many tags, impossible and future dates, post by post, and imports and publishes the rest', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-import-'));
    const env = await freshDataEnv(dataDir);
    const account = JSON.parse((await runCliCaptured(['account', 'create', '--plan', 'enterprise', '--json'], env)).stdout) as { account_id: string };
    const file = join(work, 'checked.json');
    writeFileSync(
      file,
      documentWith('checked', [
        { slug: 'kept', title: 'Kept' },
        { slug: 'moved', title: 'Moved', aliases: ['/2019/05/moved'] },
        { slug: 'page', title: 'Would replace the archive pages' },
        { slug: 'tagged', tags: Array.from({ length: 1005 }, (_, i) => `tag-${i}`) },
        { slug: 'feb-30', published_at: '2025-02-30T10:00:00.000Z' },
        { slug: 'from-the-future', published_at: '2099-01-01T00:00:00.000Z' },
        { slug: 'bad-alias', aliases: ['/tags/x/'] },
        { slug: 'Not A Slug' },
      ]),
    );
    const run = await runCliCaptured(['import', file, '--account', account.account_id], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Imported 1 blogs and 2 posts');
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('folio: not imported: '));
    expect(lines).toEqual([
      'folio: not imported: blog "checked", post "page": slug "page" is reserved for the site\'s own pages',
      'folio: not imported: blog "checked", post "tagged": invalid request body: tags must have at most 10 entries',
      'folio: not imported: blog "checked", post "feb-30": published_at is not an ISO 8601 time with a zone: "2025-02-30T10:00:00.000Z"',
      'folio: not imported: blog "checked", post "from-the-future": published_at must not be in the future; to publish later, use POST /posts/:slug/schedule with scheduled_at',
      'folio: not imported: blog "checked", post "bad-alias": invalid request body: aliases[0] is one of the site\'s own paths (/tags…)',
      'folio: not imported: blog "checked", post "Not A Slug": invalid request body: slug must be lower-case letters or digits in words joined by single hyphens',
    ]);
    const target = await startTestApp({ dataDir, env });
    try {
      const host = 'checked.localhost:3000';
      expect((await visit(target.baseUrl, host, '/kept')).status).toBe(200);
      expect((await visit(target.baseUrl, host, '/moved')).status).toBe(200);
      const old = await visit(target.baseUrl, host, '/2019/05/moved/');
      expect(old.status).toBe(301);
      expect(old.headers.location).toBe('/moved');
      // The reserved slug did not replace the blog's archive pages.
      expect((await visit(target.baseUrl, host, '/page/1')).text).toContain('Kept');
      const report = await target.folio.publisher.verify((await target.folio.repos.blogs.findBySlug('checked'))!);
      expect(report).toMatchObject({ missing: [], different: [], extra: [] });
    } finally {
      await target.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a blog written but not rendered is said so, and a re-run renders it and names what it did not import again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-import-'));
    const env = await freshDataEnv(dataDir);
    const account = JSON.parse((await runCliCaptured(['account', 'create', '--plan', 'enterprise', '--json'], env)).stdout) as { account_id: string };
    const file = join(work, 'blocked.json');
    writeFileSync(file, documentWith('blocked', [{ slug: 'live', title: 'Live post' }]));
    // The store cannot write the blog's folder: a file stands where it would go.
    mkdirSync(join(dataDir, 'public'), { recursive: true });
    writeFileSync(join(dataDir, 'public', 'blocked'), 'in the way');
    const first = await runCliCaptured(['import', file, '--account', account.account_id], env);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain('Imported 1 blogs and 1 posts');
    expect(first.stderr).toMatch(
      /folio: blog "blocked" was imported but its pages are not written yet \(.+\); the server retries, or run: folio site rebuild blocked/,
    );

    rmSync(join(dataDir, 'public', 'blocked'));
    const again = await runCliCaptured(['import', file, '--account', account.account_id], env);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('Imported 0 blogs and 0 posts');
    expect(again.stdout).toContain('Rendered 1 blog an earlier import wrote: blocked');
    expect(again.stderr).toContain(
      'folio: not imported: blog "blocked": this account already has a blog with this slug (imported before?); none of its 1 posts were imported',
    );
    const target = await startTestApp({ dataDir, env });
    try {
      expect((await visit(target.baseUrl, 'blocked.localhost:3000', '/live')).status).toBe(200);
    } finally {
      await target.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
