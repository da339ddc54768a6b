/**
 * Markdown twins (docs/publishing.md): every published post is also served at `/<slug>.md` as
 * text/markdown, over real HTTP through the site server from the folder store; the post page's
 * head and llms.txt name it; drafts have none; a rename moves it and unpublish and delete remove
 * it; a re-render after an upgrade writes it for posts published before twins existed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { ObjectHashesRepo } from '../../src/db/objectHashesRepo.js';
import { SettingsRepo } from '../../src/db/settingsRepo.js';
import { image } from '../support/images.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const HOST = 'twins.localhost:3000';
const ORIGIN = `http://${HOST}`;

let t: TestApp;
let blogId: string;
let photoUrl: string;
beforeAll(async () => {
  t = await startTestApp({ env: { FOLIO_PUBLIC_SCHEME: 'http' }, publicUrls: 'server' });
  blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'twins', name: 'Twins' } })).body.id;
  const upload = await t.request('POST', '/v1/media', { blogId, raw: await image('png', 64, 48), headers: { 'content-type': 'image/png' } });
  expect(upload.status, upload.text).toBe(201);
  photoUrl = upload.body.url;
  await t.folio.idle();
});
afterAll(async () => t.close());

const get = (path: string) => visit(t.baseUrl, HOST, path);

async function publish(title: string, content: string, status = 'published'): Promise<string> {
  const res = await t.request('POST', '/v1/posts', { blogId, body: { title, content, status } });
  expect(res.status, res.text).toBe(201);
  return res.body.slug;
}

describe('Markdown twins', () => {
  it('serves a published post as Markdown: heading, canonical URL, source, its own image on the current origin', async () => {
    expect(photoUrl.startsWith(`${ORIGIN}/media/`)).toBe(true);
    const source = `Some *words*.\n\n![A photo](${photoUrl})\n\n- one\n- two`;
    const slug = await publish('Twin one', source);
    // The API's content_md names the image as the twin does.
    expect((await t.request('GET', `/v1/posts/${slug}`, { blogId })).body.content_md).toBe(source);

    const twin = await get(`/${slug}.md`);
    expect(twin.status).toBe(200);
    expect(twin.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(twin.text).toBe(`# Twin one\n\nCanonical: <${ORIGIN}/${slug}>\n\n${source}\n`);
    // Stored with a media reference, never with the host it was sent with.
    const stored = (await t.folio.sql.get<{ content_md: string }>('SELECT content_md FROM posts WHERE slug = ?', [slug]))!;
    expect(stored.content_md).toContain('folio-media:');

    const page = await get(`/${slug}`);
    expect(page.text).toContain(`<link rel="alternate" type="text/markdown" href="${ORIGIN}/${slug}.md">`);
    const llms = await get('/llms.txt');
    expect(llms.text).toContain(`- [Twin one](${ORIGIN}/${slug}.md)`);
  });

  it('never negotiates: the HTML address answers HTML to an agent that asks for Markdown', async () => {
    const page = await visit(t.baseUrl, HOST, '/twin-one', { headers: { accept: 'text/markdown' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('a draft has no twin', async () => {
    const slug = await publish('Only a draft', 'Not yet.', 'draft');
    expect((await get(`/${slug}.md`)).status).toBe(404);
    expect((await get('/llms.txt')).text).not.toContain(`${slug}.md`);
  });

  it('a rename moves the twin: the new address serves it, the old one is gone', async () => {
    const slug = await publish('Moving twin', 'Here.');
    const renamed = await t.request('PUT', `/v1/posts/${slug}`, { blogId, body: { slug: 'moved-twin' } });
    expect(renamed.status, renamed.text).toBe(200);
    const twin = await get('/moved-twin.md');
    expect(twin.status).toBe(200);
    expect(twin.text).toContain(`Canonical: <${ORIGIN}/moved-twin>`);
    expect((await get(`/${slug}.md`)).status).toBe(404);
    // The old HTML address redirects to the page, whose head names the new twin.
    expect((await get(`/${slug}`)).status).toBe(301);
    expect((await get('/llms.txt')).text).toContain(`${ORIGIN}/moved-twin.md`);
  });

  it('unpublishing and deleting remove the twin', async () => {
    const first = await publish('Short lived', 'Gone soon.');
    const second = await publish('Deleted one', 'Gone too.');
    expect((await get(`/${first}.md`)).status).toBe(200);
    expect((await t.request('POST', `/v1/posts/${first}/unpublish`, { blogId })).status).toBe(200);
    expect((await get(`/${first}.md`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/posts/${second}`, { blogId })).status).toBeLessThan(300);
    expect((await get(`/${second}.md`)).status).toBe(404);
    expect((await get('/llms.txt')).text).not.toMatch(/short-lived|deleted-one/);
  });

  it('the re-render after an upgrade writes twins for posts published before them', async () => {
    // The store, and the hashes of what it holds, as a build without twins left them.
    const twins = (await t.folio.store.list('twins/')).filter((key) => key.endsWith('.md'));
    expect(twins.length).toBeGreaterThan(0);
    await t.folio.store.deleteMany(twins);
    await new ObjectHashesRepo(t.folio.sql).deleteMany(blogId, twins);
    expect((await get('/twin-one.md')).status).toBe(404);
    await new SettingsRepo(t.folio.sql).set('render_fingerprint', 'a-build-without-twins', '2026-01-01T00:00:00.000Z');
    expect(await t.folio.reRenderAfterUpgrade()).toBeGreaterThan(0);
    await t.folio.tick();
    await t.folio.idle();
    expect((await get('/twin-one.md')).status).toBe(200);
    expect((await t.folio.store.list('twins/')).filter((key) => key.endsWith('.md')).sort()).toEqual(twins.sort());
  });
});
