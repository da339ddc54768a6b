/**
 * Issue 27 item 26: on a full disk every write answered 500 (the database stayed intact). Now a
 * write answers 507 insufficient_storage with {error, message} naming the cause, the server logs
 * it once (and once more when space is back), reads go on, nothing is half-written, and the same
 * writes succeed once there is room again. The disk fills for real inside SQLite: `PRAGMA
 * max_page_count` on the server's own write connection caps the file at its current size, so a
 * write that needs a new page fails with SQLITE_FULL exactly as on a full file system. The
 * pragma goes through the query seam's `run`, which runs every statement on that connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from '../support/capturedLog.js';
import { buildBlog, buildPost, expectError, type BuiltBlog } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

let t: TestApp;
let blog: BuiltBlog;
const log = captureLog('info');

/** Text big enough that storing it needs new database pages. */
const big = (word: string): string => `${word} `.repeat(30_000);

beforeAll(async () => {
  t = await startTestApp({ logger: log.logger });
  blog = await buildBlog(t, { slug: 'full-disk' });
  await buildPost(blog, { title: 'Before', slug: 'before', content: 'Written while there was room.' });
});
afterAll(async () => t.close());

const counts = () =>
  t.folio.db.prepare<[], { posts: number; blogs: number }>('SELECT (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM blogs) AS blogs').get()!;
const logged = (pattern: RegExp) => log.lines.filter((line) => pattern.test(line));
/**
 * Caps the file on the connection the server writes on (`max_page_count` is a setting of one
 * connection, and the client reads on `t.folio.db`): the seam runs `run` on its write connection.
 */
const capPages = async (pages: number): Promise<void> => {
  await t.folio.sql.run(`PRAGMA max_page_count = ${pages}`);
};

describe('a full disk', () => {
  it('answers 507 insufficient_storage to writes, logs it once, keeps reads and the database intact', async () => {
    const before = counts();
    const pages = t.folio.db.pragma('page_count', { simple: true }) as number;
    await capPages(pages);
    try {
      const writes = [
        await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Too big', content: big('heron') } }),
        await blog.actor.request('PUT', '/v1/posts/before', { blogId: blog.id, body: { content: big('egret') } }),
        await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Also too big', content: big('stork') } }),
        await blog.actor.request('POST', '/v1/blogs', { body: { slug: 'no-room', name: 'No room', description: big('x').slice(0, 400) } }),
      ];
      const statuses = writes.map((res) => res.status);
      // A small write may still fit in a page that has room; none may be a 500.
      expect(statuses.filter((status) => status >= 500 && status !== 507)).toEqual([]);
      const full = writes.filter((res) => res.status === 507);
      expect(full.length).toBeGreaterThanOrEqual(3);
      for (const res of full) {
        expectError(res, 507, 'insufficient_storage');
        expect(res.body.message).toMatch(/out of disk space.*nothing was written/);
      }
      // Reads go on.
      const read = await blog.actor.request('GET', '/v1/posts/before', { blogId: blog.id });
      expect(read.status, read.text).toBe(200);
      expect(read.body.content_md).toBe('Written while there was room.');
      expect((await blog.actor.request('GET', '/v1/posts', { blogId: blog.id })).status).toBe(200);
      // Logged once, not once per request.
      expect(logged(/the disk is full/)).toHaveLength(1);
      expect(logged(/unhandled error/)).toEqual([]);
    } finally {
      await capPages(4294967294);
    }
    expect(t.folio.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(counts().posts).toBeLessThanOrEqual(before.posts + 1);
  });

  it('recovers when space returns: the same writes succeed, and the log says so once', async () => {
    const created = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Room again', content: big('heron') } });
    expect(created.status, created.text).toBe(201);
    const updated = await blog.actor.request('PUT', '/v1/posts/before', { blogId: blog.id, body: { content: big('egret') } });
    expect(updated.status, updated.text).toBe(200);
    expect(logged(/disk space is back/)).toHaveLength(1);
  });
});
