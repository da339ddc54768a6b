/**
 * Issue 27 item A2: changing FOLIO_SERVICE_DOMAIN broke every image of every post. Posts stored
 * the upload URLs with the old host in their Markdown and og_image, the re-render after the
 * change kept drawing them from there, and the old host answers nothing. The server is
 * restarted on the same data dir with a new domain (as an operator does), the re-render runs,
 * and every image URL of every page must answer 200 on the new host and none name the old one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { visit } from '../../bench/harness/visit.js';
import { databaseFile } from '../../src/compose/adapters.js';
import { image } from '../support/images.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';

const OLD = 'old-folio.test';
const NEW = 'new-folio.test:8443';

const dirs: string[] = [];
const open: TestApp[] = [];
afterEach(async () => {
  for (const app of open.splice(0)) await app.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An app on the data of `data` (freshDataEnv): its data dir, and on the PostgreSQL pass its database. */
async function startServer(data: Record<string, string>, domain: string): Promise<TestApp> {
  const app = await startTestApp({
    dataDir: data.FOLIO_DATA_DIR!,
    env: { ...data, FOLIO_SERVICE_DOMAIN: domain, FOLIO_PUBLIC_SCHEME: 'http' },
    publicUrls: 'server',
  });
  open.push(app);
  return app;
}

async function stop(app: TestApp): Promise<void> {
  open.splice(open.indexOf(app), 1);
  await app.close();
}

interface Blog {
  id: string;
  slug: string;
  key: string;
}

interface Uploaded {
  id: string;
  url: string;
}

async function upload(t: TestApp, blog: Blog, bytes: Buffer, contentType: string): Promise<Uploaded> {
  const res = await t.request('POST', '/v1/media', { key: blog.key, blogId: blog.id, raw: bytes, headers: { 'content-type': contentType } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A blog with three published posts naming its images in every way an author can. */
async function authoredBlog(t: TestApp, slug: string): Promise<{ blog: Blog; photo: Uploaded; chart: Uploaded; posts: string[] }> {
  const { accountId: _account, key } = await t.createAccount('enterprise');
  const created = await t.request('POST', '/v1/blogs', { key, body: { slug, name: `Blog ${slug}` } });
  expect(created.status, created.text).toBe(201);
  const blog = { id: created.body.id, slug, key };
  const photo = await upload(t, blog, await image('jpeg', 1800, 1200), 'image/jpeg');
  const chart = await upload(t, blog, await image('png', 640, 400), 'image/png');
  const posts: { title: string; content: string; meta?: Record<string, unknown> }[] = [
    // og_image by URL; the image inline and as a link.
    { title: 'By URL', content: `A photo:\n\n![The photo](${photo.url} "Taken at dawn")\n\n[Full size](${photo.url})`, meta: { og_image: photo.url } },
    // og_image by media id; two images.
    { title: 'By id', content: `![Chart](${chart.url})\n\nand\n\n![Photo](${photo.url})`, meta: { og_image: chart.id } },
    // A variant URL pasted from the upload answer, and no og_image.
    { title: 'A variant', content: `<img src="${photo.url.replace('.jpg', '-480.jpg')}" alt="Small">` },
  ];
  const slugs: string[] = [];
  for (const post of posts) {
    const res = await t.request('POST', '/v1/posts', { key, blogId: blog.id, body: { ...post, status: 'published' } });
    expect(res.status, res.text).toBe(201);
    slugs.push(res.body.slug);
  }
  await t.folio.idle();
  return { blog, photo, chart, posts: slugs };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every URL or path naming an image in the blog's pages, feeds and sitemaps. */
function mediaUrlsInSite(dataDir: string, blog: Blog): { file: string; url: string }[] {
  const root = join(dataDir, 'public', blog.slug);
  const found: { file: string; url: string }[] = [];
  for (const path of filesUnder(root)) {
    if (!/\.(html|xml|json)$/.test(path) || path.includes(`${join(root, '_search')}`)) continue;
    const text = readFileSync(path, 'utf8').replaceAll('\\/', '/');
    for (const match of text.matchAll(/(?:https?:\/\/[^\s"'<>()\\]+)?\/media\/[0-9a-f]{20}-[^\s"'<>()\\,&]+/g)) {
      found.push({ file: relative(root, path), url: match[0] });
    }
  }
  return found;
}

async function expectEveryImageServed(t: TestApp, dataDir: string, blog: Blog, host: string, oldHost: string): Promise<void> {
  const urls = mediaUrlsInSite(dataDir, blog);
  // Posts, home, archive, feeds: the three posts name the images many times over.
  expect(urls.length).toBeGreaterThan(20);
  const files = new Set(urls.map((u) => u.file));
  for (const file of ['by-url/index.html', 'by-id/index.html', 'a-variant/index.html', 'index.html', 'rss.xml', 'feed.json'])
    expect([...files]).toContain(file);
  for (const { file, url } of urls) expect(url, file).not.toContain(oldHost);
  for (const url of new Set(urls.map((u) => u.url))) {
    const absolute = new URL(url, `http://${host}/`);
    expect(absolute.host, url).toBe(host);
    const res = await visit(t.baseUrl, host, absolute.pathname, { method: 'HEAD' });
    expect(res.status, url).toBe(200);
  }
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'folio-media-domain-'));
  dirs.push(dir);
  return dir;
}

describe('changing FOLIO_SERVICE_DOMAIN keeps every image of every post', () => {
  it('after the restart and re-render every image in every page answers 200 on the new host, and the API names the new host', async () => {
    const dataDir = tempDir();
    const data = await freshDataEnv(dataDir);
    const first = await startServer(data, OLD);
    const { blog, photo, chart } = await authoredBlog(first, 'pictures');
    await expectEveryImageServed(first, dataDir, blog, `pictures.${OLD}`, NEW);
    const before = await first.request('GET', '/v1/posts/by-url', { key: blog.key, blogId: blog.id });
    const oldTag = before.headers.get('etag')!;
    await stop(first);

    const second = await startServer(data, NEW);
    await second.folio.tick();
    await second.folio.idle();
    expect(await second.folio.repos.jobs.countByStatus('pending')).toBe(0);
    await expectEveryImageServed(second, dataDir, blog, `pictures.${NEW}`, OLD);

    // The API answers what the author sent, on the blog's current host.
    const newPhoto = photo.url.replace(`pictures.${OLD}`, `pictures.${NEW}`);
    const newChart = chart.url.replace(`pictures.${OLD}`, `pictures.${NEW}`);
    // Another answer, so another tag: an If-Match naming the copy with the old host is stale.
    const byUrl = await second.request('GET', '/v1/posts/by-url', { key: blog.key, blogId: blog.id });
    expect(byUrl.status).toBe(200);
    expect(byUrl.headers.get('etag')).not.toBe(oldTag);
    const stale = await second.request('PUT', '/v1/posts/by-url', {
      key: blog.key,
      blogId: blog.id,
      headers: { 'if-match': oldTag },
      body: { title: 'By URL' },
    });
    expect(stale.status).toBe(412);
    const fresh = await second.request('PUT', '/v1/posts/by-url', {
      key: blog.key,
      blogId: blog.id,
      headers: { 'if-match': byUrl.headers.get('etag')! },
      body: { title: 'By URL' },
    });
    expect(fresh.status, fresh.text).toBe(200);
    expect(byUrl.body.content_md).toBe(`A photo:\n\n![The photo](${newPhoto} "Taken at dawn")\n\n[Full size](${newPhoto})`);
    expect(byUrl.body.og_image_url).toBe(newPhoto);
    expect(byUrl.body.content_html).toContain(`src="${newPhoto.replace('.jpg', '-1600.jpg')}"`);
    expect(byUrl.body.content_html).toContain(`href="${newPhoto}"`);
    expect(byUrl.body.content_html).not.toContain(OLD);
    expect((await second.request('GET', '/v1/posts/by-url', { key: blog.key, blogId: blog.id })).body.content_md).toBe(byUrl.body.content_md);
    const byId = await second.request('GET', '/v1/posts/by-id', { key: blog.key, blogId: blog.id });
    expect(byId.body.og_image_url).toBe(newChart);
    expect(byId.body.content_md).toBe(`![Chart](${newChart})\n\nand\n\n![Photo](${newPhoto})`);

    // The images stay protected from deletion while live posts name them.
    const del = await second.request('DELETE', `/v1/media/${photo.id}`, { key: blog.key, blogId: blog.id });
    expect(del.status).toBe(409);

    // And the export names them on the new host too.
    const exported = await second.request('GET', '/v1/account/export', { key: blog.key });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.text).not.toContain(OLD);
    expect(exported.text).toContain(newPhoto);
  });

  it('a data dir written before the fix (absolute URLs stored) is migrated: the domain change keeps its images too', async () => {
    const dataDir = tempDir();
    // SQLite's in both passes: data from before the fix is SQLite's, and the case rewinds its migration 017 (PostgreSQL's schema starts at 024).
    const data = { FOLIO_DATA_DIR: dataDir };
    const first = await startServer(data, OLD);
    const { blog, photo, posts } = await authoredBlog(first, 'legacy');
    await stop(first);

    // What the earlier build stored: the host in the Markdown, the og_image and the HTML, and
    // no record of the media-reference migration.
    const db = new Database(databaseFile({ dataDir }));
    const origin = `http://legacy.${OLD}`;
    db.prepare(
      `UPDATE posts SET content_md = replace(content_md, 'folio-media:', @media), content_html = replace(content_html, '"/media/', '"' || @media),
       og_image_url = replace(og_image_url, 'folio-media:', @media)`,
    ).run({ media: `${origin}/media/` });
    db.prepare(`UPDATE posts SET content_html = replace(content_html, ', /media/', ', ' || @media)`).run({ media: `${origin}/media/` });
    const legacy = db
      .prepare<[], { content_md: string; content_html: string; og_image_url: string | null }>('SELECT content_md, content_html, og_image_url FROM posts')
      .all();
    expect(legacy.every((row) => !row.content_md.includes('folio-media:') && !row.content_html.includes('"/media/'))).toBe(true);
    expect(legacy.some((row) => row.og_image_url === photo.url)).toBe(true);
    db.prepare('DELETE FROM schema_migrations WHERE name = ?').run('017_media_refs.sql');
    db.close();

    const second = await startServer(data, NEW);
    await second.folio.tick();
    await second.folio.idle();
    await expectEveryImageServed(second, dataDir, blog, `legacy.${NEW}`, OLD);
    for (const slug of posts) {
      const res = await second.request('GET', `/v1/posts/${slug}`, { key: blog.key, blogId: blog.id });
      expect(res.text).not.toContain(OLD);
      expect(res.text).toContain(`legacy.${NEW}/media/`);
    }
  });
});
