import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { S3SiteStore } from '../../src/storage/s3SiteStore.js';
import { createTestBucket } from '../../bench/harness/s3rver.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';

describe('publishing into an S3-compatible store (s3rver on loopback)', () => {
  let t: TestApp;
  let store: S3SiteStore;
  let blogId: string;

  beforeAll(async () => {
    const { client, bucket } = await createTestBucket(inject('s3Endpoint'));
    store = new S3SiteStore({ client, bucket });
    t = await startTestApp({ store });
    blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 's3blog', name: 'S3 blog' } })).body.id;
  });
  afterAll(async () => t.close());

  it('publish puts the pages in the bucket with content types and cache headers, and the site server reads them back', async () => {
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'In the bucket', content: 'Stored in S3.', status: 'published' } });
    const object = await store.get('s3blog/in-the-bucket/index.html');
    expect(object?.contentType).toBe('text/html; charset=utf-8');
    expect(object?.cacheControl).toMatch(/s-maxage/);
    const css = (await store.list('s3blog/assets/'))[0]!;
    expect((await store.get(css))?.cacheControl).toBe('public, max-age=31536000, immutable');
    const page = await visit(t.baseUrl, 's3blog.localhost:3000', '/in-the-bucket');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Stored in S3.');
  });

  it('a renamed slug is an S3 website redirect with an HTML fallback', async () => {
    await t.request('PUT', '/v1/posts/in-the-bucket', { blogId, body: { slug: 'moved' } });
    const redirect = await store.get('s3blog/in-the-bucket/index.html');
    expect(redirect?.redirectTo).toBe('/moved');
    expect(redirect?.body.toString()).toContain('/moved');
    const res = await visit(t.baseUrl, 's3blog.localhost:3000', '/in-the-bucket');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/moved');
  });

  it('deleting the blog empties its prefix in the bucket', async () => {
    await t.request('DELETE', `/v1/blogs/${blogId}`);
    await t.folio.idle();
    expect(await store.list('s3blog/')).toEqual([]);
  });
});
