import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import {
  buildAccount,
  buildBlog,
  buildPost,
  createKey,
  expectError,
  expectFieldError,
  ISO_MS,
  postPath,
  sortedKeys,
  uniqueSlug,
} from '../support/factories.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /v1/blogs', () => {
  it('answers 201 with exactly id, slug, name, url, discoverable and created_at', async () => {
    const actor = await buildAccount(t);
    const slug = uniqueSlug('create');
    const res = await actor.request('POST', '/v1/blogs', { body: { slug, name: 'My Blog', description: 'About things' } });
    expect(res.status).toBe(201);
    expect(sortedKeys(res.body)).toEqual(['created_at', 'discoverable', 'id', 'name', 'slug', 'url']);
    expect(res.body.id).toMatch(UUID);
    expect(res.body).toMatchObject({ slug, name: 'My Blog', url: `http://${slug}.localhost:3000/` });
    expect(res.body.created_at).toMatch(ISO_MS);
  });

  it('answers 409 when the slug is taken, also by another account', async () => {
    const owner = await buildBlog(t);
    const other = await buildAccount(t);
    expectError(await owner.actor.request('POST', '/v1/blogs', { body: { slug: owner.slug, name: 'Again' } }), 409, 'conflict');
    expectError(await other.request('POST', '/v1/blogs', { body: { slug: owner.slug, name: 'Mine' } }), 409, 'conflict');
  });

  it('answers 400 naming slug and name when they are missing', async () => {
    const res = await (await buildAccount(t)).request('POST', '/v1/blogs', { body: { description: 'x' } });
    expectFieldError(res, 'slug');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain('name');
  });

  for (const slug of ['Upper', 'has space', 'under_score', '-lead', 'trail-', 'dot.ted', 'ünï', '']) {
    it(`answers 400 for the blog slug ${JSON.stringify(slug)}`, async () => {
      expectFieldError(await (await buildAccount(t)).request('POST', '/v1/blogs', { body: { slug, name: 'x' } }), 'slug');
    });
  }

  it('answers 400 for a wrongly typed description and for a blank name', async () => {
    const actor = await buildAccount(t);
    expectFieldError(await actor.request('POST', '/v1/blogs', { body: { slug: uniqueSlug(), name: 'x', description: 5 } }), 'description');
    expectFieldError(await actor.request('POST', '/v1/blogs', { body: { slug: uniqueSlug(), name: ' \t ' } }), 'name');
  });
});

describe('GET /v1/blogs', () => {
  it('lists only the account’s blogs, most recent first, as {data} without pagination', async () => {
    const actor = await buildAccount(t);
    await buildBlog(t); // another account's blog must not show up
    const a = await buildBlog(t, { actor });
    t.clock.advance(1000);
    const b = await buildBlog(t, { actor });
    t.clock.advance(1000);
    const c = await buildBlog(t, { actor, description: 'third' });
    const res = await actor.request('GET', '/v1/blogs');
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(['data']);
    expect(res.body.data.map((blog: { id: string }) => blog.id)).toEqual([c.id, b.id, a.id]);
    for (const blog of res.body.data) {
      expect(sortedKeys(blog)).toEqual(['created_at', 'custom_domain', 'description', 'discoverable', 'id', 'name', 'slug', 'updated_at']);
      expect(blog.custom_domain).toBeNull();
      expect(blog.created_at).toMatch(ISO_MS);
      expect(blog.updated_at).toMatch(ISO_MS);
    }
    expect(res.body.data[0].description).toBe('third');
    expect(res.body.data[1].description).toBe('');
  });

  it('orders blogs created in the same millisecond by creation, newest first', async () => {
    const actor = await buildAccount(t);
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push((await buildBlog(t, { actor })).id);
    const res = await actor.request('GET', '/v1/blogs');
    expect(res.body.data.map((blog: { id: string }) => blog.id)).toEqual(ids.reverse());
  });

  it('answers an empty list for an account without blogs', async () => {
    const res = await (await buildAccount(t)).request('GET', '/v1/blogs');
    expect(res.body).toEqual({ data: [] });
  });
});

describe('GET /v1/blogs/:id', () => {
  it('answers every field of the blog', async () => {
    const blog = await buildBlog(t, { description: 'd' });
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}`);
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual([
      'created_at',
      'custom_domain',
      'description',
      'discoverable',
      'id',
      'name',
      'slug',
      'theme_config',
      'updated_at',
      'url',
    ]);
    expect(res.body).toMatchObject({
      id: blog.id,
      slug: blog.slug,
      description: 'd',
      theme_config: {},
      custom_domain: null,
      discoverable: false,
      url: blog.url,
    });
  });

  it('answers 404 for an unknown id', async () => {
    const blog = await buildBlog(t);
    expectError(await blog.actor.request('GET', '/v1/blogs/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    expectError(await blog.actor.request('GET', '/v1/blogs/not-a-uuid'), 404, 'not_found');
  });
});

describe('PUT /v1/blogs/:id', () => {
  it('answers exactly id, slug, name, description, custom_domain, theme_config, discoverable and updated_at', async () => {
    const blog = await buildBlog(t);
    t.clock.advance(2000);
    const res = await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, {
      body: { name: 'Renamed', description: 'New description', theme_config: { customCss: 'body{color:red}', headerHtml: '<b>hi</b>' } },
    });
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(['custom_domain', 'description', 'discoverable', 'id', 'name', 'slug', 'theme_config', 'updated_at']);
    expect(res.body).toEqual({
      id: blog.id,
      slug: blog.slug,
      name: 'Renamed',
      description: 'New description',
      custom_domain: null,
      theme_config: { customCss: 'body{color:red}', headerHtml: '<b>hi</b>' },
      discoverable: false,
      updated_at: t.clock.now().toISOString(),
    });
  });

  it('changes only the fields sent, merges theme keys and removes a key set to null', async () => {
    const blog = await buildBlog(t, { name: 'Keep', description: 'Keep too' });
    await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { customCss: 'a', adCode: 'b' } } });
    const res = await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { adCode: null, cssUrl: 'https://cdn.example/x.css' } } });
    expect(res.body).toMatchObject({ name: 'Keep', description: 'Keep too', theme_config: { customCss: 'a', cssUrl: 'https://cdn.example/x.css' } });
    expect(sortedKeys(res.body.theme_config)).toEqual(['cssUrl', 'customCss']);
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).body.theme_config).toEqual(res.body.theme_config);
  });

  it('answers 400 for an empty body, an unknown field, an unknown theme key and a non-URL cssUrl', async () => {
    const blog = await buildBlog(t);
    expectError(await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: {} }), 400, 'bad_request');
    expectFieldError(await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { slug: 'new-slug' } }), 'slug');
    expectFieldError(await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { bodyHtml: 'x' } } }), 'theme_config.bodyHtml');
    expectFieldError(
      await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { cssUrl: 'javascript:alert(1)' } } }),
      'theme_config.cssUrl',
    );
    expectFieldError(await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: 'red' } }), 'theme_config');
  });

  it('answers 404 for an unknown id', async () => {
    const blog = await buildBlog(t);
    expectError(await blog.actor.request('PUT', '/v1/blogs/00000000-0000-4000-8000-000000000000', { body: { name: 'x' } }), 404, 'not_found');
  });
});

describe('DELETE /v1/blogs/:id', () => {
  it('answers {deleted: true}; the blog, its posts and its keys are gone and its slug is free once its site is removed', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'x', slug: 'in-deleted-blog' });
    const bound = await createKey(blog.actor, blog.id);
    const res = await blog.actor.request('DELETE', `/v1/blogs/${blog.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expectError(await blog.actor.request('GET', `/v1/blogs/${blog.id}`), 404, 'not_found');
    expectError(await blog.actor.request('GET', postPath('in-deleted-blog'), { blogId: blog.id }), 404, 'not_found');
    expectError(await t.request('GET', '/v1/posts', { key: bound.key }), 401, 'unauthorized');
    expectError(await blog.actor.request('DELETE', `/v1/blogs/${blog.id}`), 404, 'not_found');
    // The slug is reserved until the background job has removed the old site (migration 007).
    await t.folio.idle();
    const again = await buildBlog(t, { actor: blog.actor, slug: blog.slug });
    expect(again.slug).toBe(blog.slug);
  });

  it('gives the blog allowance back to the plan', async () => {
    const blog = await buildBlog(t, { plan: 'free' });
    expectError(await blog.actor.request('POST', '/v1/blogs', { body: { slug: uniqueSlug(), name: 'Second' } }), 403, 'forbidden');
    await blog.actor.request('DELETE', `/v1/blogs/${blog.id}`);
    await buildBlog(t, { actor: blog.actor });
  });
});

describe('GET /v1/blogs/:id/publishing', () => {
  it('answers pending, failed and jobs, empty when every job is done', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'x', status: 'published' });
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/publishing`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ pending: 0, failed: 0, jobs: [] });
  });
});
