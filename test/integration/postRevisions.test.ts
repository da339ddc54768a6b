/**
 * A post's revisions over real HTTP (docs/api-behaviour.md#revisions): which changes write one,
 * how edits coalesce (the test clock moves by hand), what is kept, and restoring one.
 */
import { get } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import {
  ISO_MS,
  buildAccount,
  buildBlog,
  buildPost,
  createKey,
  expectError,
  expectFieldError,
  postPath,
  sortedKeys,
  type BuiltBlog,
} from '../support/factories.js';

const MINUTE = 60_000;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

interface Listed {
  id: string;
  created_at: string;
  title: string;
  content_length: number;
}

async function revisionsOf(blog: BuiltBlog, slug: string, key?: string): Promise<Listed[]> {
  const res = await blog.actor.request('GET', postPath(slug, '/revisions?per_page=100'), { blogId: blog.id, ...(key ? { key } : {}) });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function revision(blog: BuiltBlog, slug: string, id: string): Promise<{ id: string; created_at: string; title: string; content_md: string }> {
  const res = await blog.actor.request('GET', postPath(slug, `/revisions/${id}`), { blogId: blog.id });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function put(blog: BuiltBlog, slug: string, body: Record<string, unknown>, key?: string): Promise<void> {
  const res = await blog.actor.request('PUT', postPath(slug), { blogId: blog.id, body, ...(key ? { key } : {}) });
  expect(res.status, res.text).toBe(200);
}

/** The published page of a post, asked for with its blog's Host (fetch cannot set Host). */
function sitePage(address: string): Promise<{ status: number; text: string }> {
  const server = new URL(t.baseUrl);
  const url = new URL(address);
  return new Promise((resolve, reject) => {
    get({ hostname: server.hostname, port: server.port, path: url.pathname, headers: { host: url.host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    }).on('error', reject);
  });
}

const revisionRows = async (postId: string): Promise<number> =>
  (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM post_revisions WHERE post_id = ?', [postId]))!.n;

describe('which changes write a revision', () => {
  it('keeps one on create and on each change of title or content, none for tags, newest first', async () => {
    const blog = await buildBlog(t);
    const created = await buildPost(blog, { title: 'First', content: '한글 본문', slug: 'history' });
    const [first] = await revisionsOf(blog, 'history');
    expect(sortedKeys(first)).toEqual(['content_length', 'created_at', 'id', 'title']);
    expect(first).toMatchObject({ title: 'First', content_length: Buffer.byteLength('한글 본문'), created_at: created.created_at });
    expect(first!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    t.clock.advance(10 * MINUTE);
    await put(blog, 'history', { title: 'Second' });
    t.clock.advance(10 * MINUTE);
    await put(blog, 'history', { content: 'Third text' });
    t.clock.advance(10 * MINUTE);
    await put(blog, 'history', { tags: ['only', 'tags'], meta: { description: 'Not the text either' } });
    t.clock.advance(10 * MINUTE);
    await put(blog, 'history', { title: 'Second' }); // the same title: nothing changed

    const list = await revisionsOf(blog, 'history');
    expect(list.map((r) => [r.title, r.content_length])).toEqual([
      ['Second', 10],
      ['Second', Buffer.byteLength('한글 본문')],
      ['First', Buffer.byteLength('한글 본문')],
    ]);
    for (const r of list) expect(r.created_at).toMatch(ISO_MS);
    expect(list.map((r) => r.created_at)).toEqual([...list.map((r) => r.created_at)].sort().reverse());
    expect(await revision(blog, 'history', list[0]!.id)).toEqual({
      id: list[0]!.id,
      created_at: list[0]!.created_at,
      title: 'Second',
      content_md: 'Third text',
    });
    expect((await revision(blog, 'history', list[2]!.id)).content_md).toBe('한글 본문');
  });

  it('lists a page at a time with the pagination object, and refuses bad paging with a 400', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'paged', content: 'v0' });
    for (let i = 1; i <= 4; i++) {
      t.clock.advance(10 * MINUTE);
      await put(blog, 'paged', { content: `v${i}` });
    }
    const page = await blog.actor.request('GET', postPath('paged', '/revisions?page=2&per_page=2'), { blogId: blog.id });
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ page: 2, per_page: 2, total: 5, total_pages: 3 });
    expect(page.body.data.map((r: Listed) => r.content_length)).toEqual([2, 2]);
    expect((await blog.actor.request('GET', postPath('paged', '/revisions'), { blogId: blog.id })).body.pagination.per_page).toBe(20);
    expectFieldError(await blog.actor.request('GET', postPath('paged', '/revisions?per_page=101'), { blogId: blog.id }), 'per_page');
    expectFieldError(await blog.actor.request('GET', postPath('paged', '/revisions?page=0'), { blogId: blog.id }), 'page');
    expectError(await blog.actor.request('GET', postPath('paged', '/revisions?sort=title'), { blogId: blog.id }), 400, 'bad_request');
  });

  it('starts the history of a post written before revisions existed with its text until then', async () => {
    const blog = await buildBlog(t);
    const created = await buildPost(blog, { slug: 'legacy', title: 'Old title', content: 'Old text' });
    await t.folio.sql.run('DELETE FROM post_revisions WHERE post_id = ?', [created.id]);
    expect(await revisionsOf(blog, 'legacy')).toEqual([]);
    t.clock.advance(MINUTE);
    await put(blog, 'legacy', { content: 'New text' });
    const list = await revisionsOf(blog, 'legacy');
    expect(list.map((r) => [r.title, r.content_length, r.created_at])).toEqual([
      ['Old title', 8, t.clock.now().toISOString()],
      ['Old title', 8, created.created_at],
    ]);
    expect((await revision(blog, 'legacy', list[1]!.id)).content_md).toBe('Old text');
  });

  it('deletes the revisions with their post', async () => {
    const blog = await buildBlog(t);
    const created = await buildPost(blog, { slug: 'doomed' });
    t.clock.advance(10 * MINUTE);
    await put(blog, 'doomed', { content: 'changed' });
    expect(await revisionRows(created.id)).toBe(2);
    expect((await blog.actor.request('DELETE', postPath('doomed'), { blogId: blog.id })).status).toBe(200);
    expect(await revisionRows(created.id)).toBe(0);
    await buildPost(blog, { slug: 'doomed' });
    expect(await revisionsOf(blog, 'doomed')).toHaveLength(1);
  });
});

describe('coalescing', () => {
  it('keeps one revision per five minutes of continuous editing by one key', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'autosaved', content: 'draft 0' });
    const opened = (await revisionsOf(blog, 'autosaved'))[0]!;
    // Autosaves every minute for twelve minutes: windows opened at 0, 5 and 10 minutes.
    for (let minute = 1; minute <= 12; minute++) {
      t.clock.advance(MINUTE);
      await put(blog, 'autosaved', { content: `draft ${minute}` });
      if (minute === 4) {
        const [still] = await revisionsOf(blog, 'autosaved');
        expect(still).toEqual({ ...opened, created_at: t.clock.now().toISOString(), content_length: 7 });
        expect((await revision(blog, 'autosaved', opened.id)).content_md).toBe('draft 4');
      }
    }
    const list = await revisionsOf(blog, 'autosaved');
    expect(list).toHaveLength(3);
    expect(list[2]!.id).toBe(opened.id);
    expect(await Promise.all(list.map(async (r) => (await revision(blog, 'autosaved', r.id)).content_md))).toEqual(['draft 12', 'draft 9', 'draft 4']);
  });

  it('never coalesces the edits of another key', async () => {
    const blog = await buildBlog(t);
    const other = await createKey(blog.actor, blog.id, { name: 'second editor' });
    await buildPost(blog, { slug: 'two-keys', content: 'one' });
    t.clock.advance(MINUTE);
    await put(blog, 'two-keys', { content: 'two' }, other.key);
    t.clock.advance(MINUTE);
    await put(blog, 'two-keys', { content: 'three' }, other.key);
    t.clock.advance(MINUTE);
    await put(blog, 'two-keys', { content: 'four' });
    const texts = await Promise.all((await revisionsOf(blog, 'two-keys')).map(async (r) => (await revision(blog, 'two-keys', r.id)).content_md));
    expect(texts).toEqual(['four', 'three', 'one']);
  });

  it('never coalesces across a publish: the text a post went live with is kept', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'goes-live', content: 'as published' });
    t.clock.advance(MINUTE);
    expect((await blog.actor.request('POST', postPath('goes-live', '/publish'), { blogId: blog.id })).status).toBe(200);
    t.clock.advance(MINUTE);
    await put(blog, 'goes-live', { content: 'edited after' });
    t.clock.advance(MINUTE);
    // Published by the same PUT that changes the text: that text is kept too.
    await blog.actor.request('POST', postPath('goes-live', '/unpublish'), { blogId: blog.id });
    await put(blog, 'goes-live', { content: 'republished text', status: 'published' });
    t.clock.advance(MINUTE);
    await put(blog, 'goes-live', { content: 'after the second publish' });
    const texts = await Promise.all((await revisionsOf(blog, 'goes-live')).map(async (r) => (await revision(blog, 'goes-live', r.id)).content_md));
    expect(texts).toEqual(['after the second publish', 'republished text', 'edited after', 'as published']);
  });

  it('never coalesces into the text a scheduled post went live with', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'on-time', content: 'as scheduled' });
    const at = new Date(t.clock.now().getTime() + MINUTE).toISOString();
    expect((await blog.actor.request('POST', postPath('on-time', '/schedule'), { blogId: blog.id, body: { scheduled_at: at } })).status).toBe(200);
    t.clock.advance(MINUTE);
    await t.folio.tick();
    expect((await blog.actor.request('GET', postPath('on-time'), { blogId: blog.id })).body.status).toBe('published');
    t.clock.advance(MINUTE);
    await put(blog, 'on-time', { content: 'edited once live' });
    const texts = await Promise.all((await revisionsOf(blog, 'on-time')).map(async (r) => (await revision(blog, 'on-time', r.id)).content_md));
    expect(texts).toEqual(['edited once live', 'as scheduled']);
  });

  it('never coalesces across a restore, nor into one', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'restored-twice', content: 'original' });
    t.clock.advance(10 * MINUTE);
    await put(blog, 'restored-twice', { content: 'rewritten' });
    const original = (await revisionsOf(blog, 'restored-twice'))[1]!;
    t.clock.advance(MINUTE);
    expect((await blog.actor.request('POST', postPath('restored-twice', `/revisions/${original.id}/restore`), { blogId: blog.id })).status).toBe(200);
    t.clock.advance(MINUTE);
    await put(blog, 'restored-twice', { content: 'edited after the restore' });
    const texts = await Promise.all((await revisionsOf(blog, 'restored-twice')).map(async (r) => (await revision(blog, 'restored-twice', r.id)).content_md));
    expect(texts).toEqual(['edited after the restore', 'original', 'rewritten', 'original']);
  });
});

describe('retention', () => {
  it('keeps the newest 50 of 55 changes', async () => {
    const blog = await buildBlog(t);
    t.clock.set('2026-04-01T00:00:00.000Z');
    await buildPost(blog, { slug: 'busy', content: 'change 0' });
    for (let i = 1; i < 55; i++) {
      t.clock.advance(6 * MINUTE);
      await put(blog, 'busy', { content: `change ${i}` });
    }
    const list = await revisionsOf(blog, 'busy');
    expect(list).toHaveLength(50);
    expect((await revision(blog, 'busy', list[0]!.id)).content_md).toBe('change 54');
    expect((await revision(blog, 'busy', list[49]!.id)).content_md).toBe('change 5');
  });

  it('of older revisions keeps the last of each day, on the 30 most recent such days', async () => {
    const blog = await buildBlog(t);
    t.clock.set('2026-05-01T10:00:00.000Z');
    await buildPost(blog, { slug: 'daily', content: 'day 0 a' });
    t.clock.advance(10 * MINUTE);
    await put(blog, 'daily', { content: 'day 0 b' });
    // 34 more days with two revisions each, then 50 revisions on one day.
    for (let day = 1; day <= 34; day++) {
      t.clock.set(new Date(Date.parse('2026-05-01T10:00:00.000Z') + day * 24 * 60 * MINUTE));
      await put(blog, 'daily', { content: `day ${day} a` });
      t.clock.advance(10 * MINUTE);
      await put(blog, 'daily', { content: `day ${day} b` });
    }
    t.clock.set('2026-06-20T00:00:00.000Z');
    for (let i = 0; i < 50; i++) {
      t.clock.advance(6 * MINUTE);
      await put(blog, 'daily', { content: `busy ${i}` });
    }
    const list = await revisionsOf(blog, 'daily');
    expect(list).toHaveLength(80);
    const older = await Promise.all(list.slice(50).map(async (r) => (await revision(blog, 'daily', r.id)).content_md));
    expect(older).toEqual(Array.from({ length: 30 }, (_, i) => `day ${34 - i} b`));
  });
});

describe('restore', () => {
  it('writes the revision back as PUT would, as a new revision, and the published page follows', async () => {
    const blog = await buildBlog(t);
    const { url } = await buildPost(blog, { slug: 'live', title: 'The first words', content: 'The **first** version.', status: 'published', tags: ['kept'] });
    t.clock.advance(10 * MINUTE);
    await put(blog, 'live', { title: 'Other words', content: 'A rewrite nobody liked.' });
    expect((await sitePage(url)).text).toContain('A rewrite nobody liked.');
    const [, first] = await revisionsOf(blog, 'live');
    expect(first!.title).toBe('The first words');
    const read = await blog.actor.request('GET', postPath('live'), { blogId: blog.id });

    t.clock.advance(MINUTE);
    const restored = await blog.actor.request('POST', postPath('live', `/revisions/${first!.id}/restore`), {
      blogId: blog.id,
      headers: { 'if-match': read.headers.get('etag')! },
    });
    expect(restored.status, restored.text).toBe(200);
    expect(sortedKeys(restored.body)).toEqual(
      sortedKeys((await blog.actor.request('PUT', postPath('live'), { blogId: blog.id, body: { tags: ['kept'] } })).body),
    );
    expect(restored.body).toMatchObject({
      title: 'The first words',
      slug: 'live',
      status: 'published',
      tags: ['kept'],
      updated_at: t.clock.now().toISOString(),
    });
    expect(restored.body.meta_description).toBe('The first version.');
    const after = await blog.actor.request('GET', postPath('live'), { blogId: blog.id });
    expect(after.body.content_md).toBe('The **first** version.');

    const list = await revisionsOf(blog, 'live');
    expect(list).toHaveLength(3);
    expect(list[0]).toMatchObject({ title: 'The first words', created_at: t.clock.now().toISOString() });
    expect(list[0]!.id).not.toBe(first!.id);
    const page = await sitePage(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<strong>first</strong> version.');
    expect(page.text).not.toContain('A rewrite nobody liked.');
  });

  it('answers with the new ETag, and a stale If-Match is 412 with nothing written', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'guarded', content: 'one' });
    const stale = (await blog.actor.request('GET', postPath('guarded'), { blogId: blog.id })).headers.get('etag')!;
    t.clock.advance(10 * MINUTE);
    await put(blog, 'guarded', { content: 'two' });
    const [, first] = await revisionsOf(blog, 'guarded');
    const refused = await blog.actor.request('POST', postPath('guarded', `/revisions/${first!.id}/restore`), {
      blogId: blog.id,
      headers: { 'if-match': stale },
    });
    expectError(refused, 412, 'precondition_failed');
    expect(await revisionsOf(blog, 'guarded')).toHaveLength(2);
    expect((await blog.actor.request('GET', postPath('guarded'), { blogId: blog.id })).body.content_md).toBe('two');

    const done = await blog.actor.request('POST', postPath('guarded', `/revisions/${first!.id}/restore`), { blogId: blog.id, headers: { 'if-match': '*' } });
    expect(done.status).toBe(200);
    expect(done.headers.get('etag')).toBe((await blog.actor.request('GET', postPath('guarded'), { blogId: blog.id })).headers.get('etag'));
  });
});

describe('who may see and restore', () => {
  it('needs posts:read to list and read, posts:write to restore', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'scoped' });
    const [only] = await revisionsOf(blog, 'scoped');
    const reader = await createKey(blog.actor, blog.id, { name: 'reader', scopes: ['posts:read'] });
    const writerOnly = await createKey(blog.actor, blog.id, { name: 'writer', scopes: ['posts:write'] });
    expect(await revisionsOf(blog, 'scoped', reader.key)).toHaveLength(1);
    expect((await blog.actor.request('GET', postPath('scoped', `/revisions/${only!.id}`), { key: reader.key })).status).toBe(200);
    expectError(await blog.actor.request('POST', postPath('scoped', `/revisions/${only!.id}/restore`), { key: reader.key }), 403, 'forbidden');
    expectError(await blog.actor.request('GET', postPath('scoped', '/revisions'), { key: writerOnly.key }), 403, 'forbidden');
    expect((await blog.actor.request('POST', postPath('scoped', `/revisions/${only!.id}/restore`), { key: writerOnly.key })).status).toBe(200);
  });

  it("answers 404 for another account's blog, another post's revision, and ids that name nothing", async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'mine', content: 'private words' });
    await buildPost(blog, { slug: 'neighbour' });
    const [mine] = await revisionsOf(blog, 'mine');
    const [neighbours] = await revisionsOf(blog, 'neighbour');
    const stranger = await buildAccount(t);
    const strangerBlog = await buildBlog(t, { actor: stranger });
    await buildPost(strangerBlog, { slug: 'mine' });

    for (const path of ['/revisions', `/revisions/${mine!.id}`]) {
      const res = await stranger.request('GET', postPath('mine', path), { blogId: blog.id });
      expectError(res, 404, 'not_found');
      expect(res.text).not.toContain('private words');
    }
    // The stranger's own post of the same slug does not reach this one's revisions.
    expectError(await stranger.request('GET', postPath('mine', `/revisions/${mine!.id}`), { blogId: strangerBlog.id }), 404, 'not_found');
    expectError(await stranger.request('POST', postPath('mine', `/revisions/${mine!.id}/restore`), { blogId: strangerBlog.id }), 404, 'not_found');
    expectError(await blog.actor.request('GET', postPath('mine', `/revisions/${neighbours!.id}`), { blogId: blog.id }), 404, 'not_found');
    expectError(await blog.actor.request('POST', postPath('mine', `/revisions/${neighbours!.id}/restore`), { blogId: blog.id }), 404, 'not_found');
    for (const id of [randomUUID(), 'not-an-id', '%00', 'x'.repeat(2000)]) {
      expectError(await blog.actor.request('GET', postPath('mine', `/revisions/${id}`), { blogId: blog.id }), 404, 'not_found');
      expectError(await blog.actor.request('POST', postPath('mine', `/revisions/${id}/restore`), { blogId: blog.id }), 404, 'not_found');
    }
    expectError(await blog.actor.request('GET', postPath('missing', '/revisions'), { blogId: blog.id }), 404, 'not_found');
    expect((await blog.actor.request('GET', postPath('mine'), { blogId: blog.id })).body.content_md).toBe('private words');
    expect(await revisionsOf(blog, 'mine')).toHaveLength(1);
  });
});
