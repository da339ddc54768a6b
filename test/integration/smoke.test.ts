import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('creates a blog and a post and publishes it', async () => {
    const blog = await t.request('POST', '/v1/blogs', { body: { slug: 'smoke', name: 'Smoke' } });
    expect(blog.status).toBe(201);
    const post = await t.request('POST', '/v1/posts', {
      blogId: blog.body.id,
      body: { title: '안녕 세상', content: '# Hi\n\nHello <script>alert(1)</script> world.' },
    });
    expect(post.status).toBe(201);
    expect(post.body.slug).toBe('안녕-세상');
    const got = await t.request('GET', `/v1/posts/${encodeURIComponent(post.body.slug)}`, { blogId: blog.body.id });
    expect(got.status).toBe(200);
    expect(got.body.content_html).not.toContain('<script');
    const pub = await t.request('POST', `/v1/posts/${encodeURIComponent(post.body.slug)}/publish`, { blogId: blog.body.id });
    expect(pub.status).toBe(200);
    // The blog's site at creation, then the post's publish.
    expect(t.handledJobs.map((job) => job.kind)).toEqual(['site', 'post']);
  });
});
