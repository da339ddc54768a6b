/**
 * What the database copy suites (databaseCopy*.test.ts, postgresBackups.test.ts) share: a SQLite
 * data dir filled through the real app's API, and every copied table's rows read in one
 * comparable form.
 */
import { expect } from 'vitest';
import { image } from '../support/images.js';
import { signIn } from '../support/dashboardSession.js';
import { buildBlog, buildPost, createKey, postPath } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import type { SqlReader } from '../../src/db/sql/sqlClient.js';

export interface FilledDataDir {
  dataDir: string;
  /** The account key the app made. */
  key: string;
  /** A blog-bound key made through the API. */
  blogKey: string;
  blog: { id: string; slug: string };
  /** Published posts: slug and a word only that post's text has. */
  published: { slug: string; url: string; word: string }[];
  draftSlug: string;
}

/**
 * Accounts, two blogs (one discoverable), published posts edited into revisions, a draft with
 * tags, an image, a blog key, a webhook with its deliveries, a dashboard session: made through
 * the API of a real app on SQLite in `dataDir`, which is closed afterwards.
 */
export async function fillDataDir(dataDir: string, env: Record<string, string> = {}): Promise<FilledDataDir> {
  // Deliveries to a closed loopback port fail at once: rows in webhook_deliveries and attempts.
  const app = await startTestApp({ dataDir, env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true', ...env } });
  try {
    return await fill(app, dataDir);
  } finally {
    await app.close();
  }
}

async function fill(app: TestApp, dataDir: string): Promise<FilledDataDir> {
  const blog = await buildBlog(app, { slug: 'heron', name: 'Heron' });
  const other = await buildBlog(app, { slug: 'plover', plan: 'starter' });
  expect((await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { discoverable: true } })).status).toBe(200);
  const hook = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, { body: { url: 'http://127.0.0.1:9/hook', events: ['post.published'] } });
  expect(hook.status, hook.text).toBe(201);
  const png = await image('png', 40, 30);
  const media = await app.request('POST', '/v1/media', { key: blog.actor.key, blogId: blog.id, raw: png, headers: { 'content-type': 'image/png' } });
  expect(media.status, media.text).toBe(201);
  const published: FilledDataDir['published'] = [];
  const words = ['marshland', 'estuary', '갯벌'];
  for (const [i, word] of words.entries()) {
    const post = await buildPost(blog, {
      title: `Post ${i}`,
      content: `About the ${word}.\n\n![bird](${media.body.url})`,
      status: 'published',
      tags: ['birds', `t${i}`],
    });
    published.push({ slug: post.slug, url: post.url, word });
  }
  // Revisions: an edit of a published post seals its text into post_revisions.
  expect((await blog.actor.request('PUT', postPath(published[0]!.slug), { blogId: blog.id, body: { content: `Edited: about the ${words[0]}.` } })).status).toBe(
    200,
  );
  const draft = await buildPost(blog, { title: 'Draft', content: 'Not yet.', tags: ['later'], slug: 'not-yet' });
  // A renamed slug (post_redirects), old addresses (post_aliases), a retried create (idempotency_keys).
  const renamed = await blog.actor.request('PUT', postPath(published[1]!.slug), { blogId: blog.id, body: { slug: 'estuary-notes' } });
  expect(renamed.status, renamed.text).toBe(200);
  const before = published[1]!;
  published[1] = { ...before, slug: 'estuary-notes', url: `${before.url.slice(0, -before.slug.length)}estuary-notes` };
  await buildPost(blog, { title: 'Moved', content: 'Moved house.', status: 'published', aliases: ['/2019/05/moved-house'] });
  const once = await blog.actor.request('POST', '/v1/posts', {
    blogId: blog.id,
    headers: { 'idempotency-key': 'retry-1' },
    body: { title: 'Once', content: 'Only once.' },
  });
  expect(once.status, once.text).toBe(201);
  await buildPost(other, { title: 'Elsewhere', content: 'A post of the other blog.', status: 'published' });
  const blogKey = await createKey(blog.actor, blog.id, { name: 'CI key' });
  await signIn(app, blog.actor.accountId);
  await app.folio.idle();
  return { dataDir, key: blog.actor.key, blogKey: blogKey.key, blog: { id: blog.id, slug: blog.slug }, published, draftSlug: draft.slug };
}

/** The rows of `table`, each as JSON of its `columns` (blobs as hex), sorted: the same on either database. */
export async function tableRows(db: SqlReader, table: string, columns: readonly string[], where = ''): Promise<string[]> {
  const rows = await db.all<Record<string, unknown>>(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${table}"${where ? ` WHERE ${where}` : ''}`);
  return rows
    .map((row) => JSON.stringify(columns.map((c) => (Buffer.isBuffer(row[c]) ? `hex:${(row[c] as Buffer).toString('hex')}` : (row[c] ?? null)))))
    .sort();
}
