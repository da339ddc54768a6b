import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, postPath } from '../support/factories.js';
import { loadConfig } from '../../src/config/config.js';
import { openConfiguredDatabase } from '../../src/compose/database.js';
import { PostsRepo } from '../../src/db/postsRepo.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('ETag and If-Match on posts', () => {
  it('GET gives an ETag that changes when the post does, and PUT answers the new one', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'Draft', slug: 'draft' });
    const read = await blog.actor.request('GET', postPath('draft'), { blogId: blog.id });
    const etag = read.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect((await blog.actor.request('GET', postPath('draft'), { blogId: blog.id })).headers.get('etag')).toBe(etag);
    const put = await blog.actor.request('PUT', postPath('draft'), { blogId: blog.id, headers: { 'if-match': etag! }, body: { title: 'Draft 2' } });
    expect(put.status).toBe(200);
    const after = await blog.actor.request('GET', postPath('draft'), { blogId: blog.id });
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(put.headers.get('etag')).toBe(after.headers.get('etag'));
  });

  it('answers what the row holds now, also after another process (the CLI) changed it behind the server', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'Before', slug: 'elsewhere', content: 'Old text.' });
    const first = await blog.actor.request('GET', postPath('elsewhere'), { blogId: blog.id });
    expect((await blog.actor.request('GET', postPath('elsewhere'), { blogId: blog.id })).body).toEqual(first.body);
    // Another connection to the same database, as the `folio` CLI opens it.
    const other = await openConfiguredDatabase(loadConfig(t.cliEnv));
    try {
      const repo = new PostsRepo(other.sql);
      const post = (await repo.findBySlug(blog.id, 'elsewhere'))!;
      await repo.update({ ...post, title: 'After', contentMd: 'New text.', contentHtml: '<p>New text.</p>' });
    } finally {
      await other.close();
    }
    const after = await blog.actor.request('GET', postPath('elsewhere'), { blogId: blog.id });
    expect(after.body).toMatchObject({ title: 'After', content_md: 'New text.', content_html: '<p>New text.</p>' });
    expect(after.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('refuses a PUT or DELETE with a stale If-Match with 412, writing nothing', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'Shared', slug: 'shared', content: 'v1' });
    const stale = (await blog.actor.request('GET', postPath('shared'), { blogId: blog.id })).headers.get('etag')!;
    expect((await blog.actor.request('PUT', postPath('shared'), { blogId: blog.id, body: { content: 'v2 by another editor' } })).status).toBe(200);
    const lost = await blog.actor.request('PUT', postPath('shared'), { blogId: blog.id, headers: { 'if-match': stale }, body: { content: 'v2 by me' } });
    expectError(lost, 412, 'precondition_failed');
    expectError(await blog.actor.request('DELETE', postPath('shared'), { blogId: blog.id, headers: { 'if-match': stale } }), 412, 'precondition_failed');
    const now = await blog.actor.request('GET', postPath('shared'), { blogId: blog.id });
    expect(now.body.content_md).toBe('v2 by another editor');
    // Several tags, one of them current; `*`; no header at all: all as today.
    expect(
      (
        await blog.actor.request('PUT', postPath('shared'), {
          blogId: blog.id,
          headers: { 'if-match': `${stale}, ${now.headers.get('etag')}` },
          body: { tags: ['a'] },
        })
      ).status,
    ).toBe(200);
    expect((await blog.actor.request('PUT', postPath('shared'), { blogId: blog.id, headers: { 'if-match': '*' }, body: { tags: ['b'] } })).status).toBe(200);
    expect((await blog.actor.request('DELETE', postPath('shared'), { blogId: blog.id })).status).toBe(200);
  });

  it('lets exactly one of two editors with the same ETag win a race', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'Race', slug: 'race', content: 'start' });
    for (let round = 0; round < 5; round++) {
      const etag = (await blog.actor.request('GET', postPath('race'), { blogId: blog.id })).headers.get('etag')!;
      const edits = await Promise.all(
        ['editor A', 'editor B', 'editor C'].map((who) =>
          blog.actor.request('PUT', postPath('race'), { blogId: blog.id, headers: { 'if-match': etag }, body: { content: `${who}, round ${round}` } }),
        ),
      );
      const winners = edits.filter((e) => e.status === 200);
      expect(winners).toHaveLength(1);
      for (const loser of edits.filter((e) => e.status !== 200)) expectError(loser, 412, 'precondition_failed');
      const final = await blog.actor.request('GET', postPath('race'), { blogId: blog.id });
      expect(final.body.content_md).toMatch(new RegExp(`round ${round}$`));
    }
  });
});

describe('ETag and If-Match on blogs', () => {
  it('GET /blogs/:id has an ETag; a stale If-Match on PUT or DELETE is 412 and the blog is unchanged', async () => {
    const blog = await buildBlog(t, { name: 'Before' });
    const read = await blog.actor.request('GET', `/v1/blogs/${blog.id}`);
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const renamed = await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { headers: { 'if-match': etag }, body: { name: 'After' } });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get('etag')).toBe((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).headers.get('etag'));
    expectError(await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { headers: { 'if-match': etag }, body: { name: 'Lost' } }), 412, 'precondition_failed');
    expectError(await blog.actor.request('DELETE', `/v1/blogs/${blog.id}`, { headers: { 'if-match': etag } }), 412, 'precondition_failed');
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).body.name).toBe('After');
  });

  it('lets one of two concurrent renames with the same ETag win', async () => {
    const blog = await buildBlog(t, { name: 'Start' });
    const etag = (await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).headers.get('etag')!;
    const edits = await Promise.all(
      ['One', 'Two'].map((name) => blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { headers: { 'if-match': etag }, body: { name } })),
    );
    expect(edits.map((e) => e.status).sort()).toEqual([200, 412]);
  });
});
