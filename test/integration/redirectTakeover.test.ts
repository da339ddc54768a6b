/**
 * A renamed post's old address redirects to it until another post takes that address as its
 * slug or alias. The redirect is then dropped from the database, and its object must leave the
 * store too, even when the post taking the address is a draft that renders nothing there: the
 * store stays what a rebuild of the database makes (`verify` clean).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit as visitHost } from '../../bench/harness/visit.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('an old address another post takes', () => {
  let t: TestApp;
  let blogId: string;
  const visit = (path: string) => visitHost(t.baseUrl, 'moves.localhost:3000', path);
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await t.request(method, path, { blogId, ...(body === undefined ? {} : { body }) });
    expect(res.status, res.text).toBeLessThan(300);
    return res;
  };
  const verify = async () => t.folio.publisher.verify((await t.folio.repos.blogs.findById(blogId))!);
  const CLEAN = { missing: [], different: [], extra: [] };

  beforeAll(async () => {
    t = await startTestApp();
    blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'moves', name: 'Moves' } })).body.id;
  });
  afterAll(async () => t.close());

  it("as a draft's slug: the redirect leaves the store, and the draft published later is served there", async () => {
    await send('POST', '/v1/posts', { title: 'Old name', content: 'One.', status: 'published' });
    await send('PUT', '/v1/posts/old-name', { slug: 'new-name' });
    expect((await visit('/old-name')).status).toBe(301);

    await send('POST', '/v1/posts', { title: 'Someone else', slug: 'old-name', content: 'Two.' });
    await t.folio.idle();
    expect((await visit('/old-name')).status).toBe(404);
    expect(await verify()).toMatchObject(CLEAN);

    await send('POST', '/v1/posts/old-name/publish');
    const page = await visit('/old-name');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Someone else');
    expect((await visit('/new-name')).status).toBe(200);
    expect(await verify()).toMatchObject(CLEAN);
  });

  it("as a draft renamed to it, or a draft's alias", async () => {
    await send('POST', '/v1/posts', { title: 'First home', content: 'Three.', status: 'published' });
    await send('PUT', '/v1/posts/first-home', { slug: 'second-home' });
    await send('POST', '/v1/posts', { title: 'Where from', content: 'Four.', status: 'published' });
    await send('PUT', '/v1/posts/where-from', { slug: 'where-to' });
    expect((await visit('/first-home')).status).toBe(301);
    expect((await visit('/where-from')).status).toBe(301);

    await send('POST', '/v1/posts', { title: 'A draft', content: 'Five.' });
    await send('PUT', '/v1/posts/a-draft', { slug: 'first-home' });
    await send('POST', '/v1/posts', { title: 'Another draft', content: 'Six.', aliases: ['/where-from/'] });
    await t.folio.idle();
    expect((await visit('/first-home')).status).toBe(404);
    expect((await visit('/where-from')).status).toBe(404);
    expect((await visit('/second-home')).status).toBe(200);
    expect(await verify()).toMatchObject(CLEAN);
  });

  it('a published post taking the address is served there at once', async () => {
    await send('POST', '/v1/posts', { title: 'Spot', content: 'Seven.', status: 'published' });
    await send('PUT', '/v1/posts/spot', { slug: 'spot-moved' });
    await send('POST', '/v1/posts', { title: 'New spot', slug: 'spot', content: 'Eight.', status: 'published' });
    const page = await visit('/spot');
    expect(page.status).toBe(200);
    expect(page.text).toContain('New spot');
    expect(await verify()).toMatchObject(CLEAN);
  });
});
