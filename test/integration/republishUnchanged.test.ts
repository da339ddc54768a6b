/**
 * Publishing a post that is already published and unchanged writes nothing: no job, no render,
 * no object, no webhook delivery, and the answer is the post with its first `published_at`.
 * While the blog has an unfinished job (a store that failed), the re-publish still records one,
 * so its answer keeps meaning "the page is live".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { FaultyStore } from '../support/faultyStore.js';
import { buildBlog, buildPost, postPath, type BuiltBlog } from '../support/factories.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';
import { storeFiles } from '../support/storeFiles.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';

let t: TestApp;
let blog: BuiltBlog;
let receiver: Receiver;
let store: FaultyStore;
beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'folio-republish-'));
  store = new FaultyStore(new FsSiteStore({ root: join(dataDir, 'public') }));
  t = await startTestApp({ dataDir, store, env: { ...(await freshDataEnv(dataDir)), FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
  blog = await buildBlog(t);
  receiver = await startReceiver();
  const hook = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, { body: { url: receiver.url, events: ['post.published', 'post.updated'] } });
  expect(hook.status, hook.text).toBe(201);
  receiver.setSecret(hook.body.secret);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
  rmSync(t.dataDir, { recursive: true, force: true });
});

/** Every file of the blog's folder: modification time and bytes' hash. */
function blogFiles(): Map<string, string> {
  return storeFiles(join(t.dataDir, 'public', blog.slug));
}

const count = async (table: 'publish_jobs' | 'webhook_deliveries'): Promise<number> =>
  (await t.folio.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
const publish = (slug: string) => blog.actor.request('POST', postPath(slug, '/publish'), { blogId: blog.id });

describe('POST /v1/posts/:slug/publish of a published, unchanged post', () => {
  it('answers 200 with the same published_at and records no job, renders nothing, writes nothing and sends no webhook', async () => {
    const post = await buildPost(blog, { title: 'Steady', slug: 'steady', status: 'published', tags: ['a'] });
    await buildPost(blog, { title: 'Next', slug: 'next', status: 'published' });
    await t.folio.idle();
    const first = (await blog.actor.request('GET', postPath('steady'), { blogId: blog.id })).body.published_at;
    const files = blogFiles();
    const jobs = await count('publish_jobs');
    const deliveries = await count('webhook_deliveries');
    const handled = t.handledJobs.length;
    const puts = store.puts;
    t.clock.advance(60_000);
    const res = await publish('steady');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: post.id, slug: 'steady', status: 'published', published_at: first, url: post.url });
    await t.folio.idle();
    expect(await count('publish_jobs')).toBe(jobs);
    expect(t.handledJobs.length).toBe(handled);
    expect(store.puts).toBe(puts);
    expect(blogFiles()).toEqual(files);
    expect(await count('webhook_deliveries')).toBe(deliveries);
    expect(receiver.received.map((event) => event.type)).toEqual(['post.published', 'post.published']);
  });

  it('still publishes through a job while the blog has an unfinished one, so the answer means the page is live', async () => {
    await buildPost(blog, { title: 'Retry me', slug: 'retry-me', status: 'published' });
    await t.folio.idle();
    // The store is down for the next edit: its job stays pending for a retry.
    store.down = true;
    try {
      const edit = await blog.actor.request('PUT', postPath('retry-me'), { blogId: blog.id, body: { title: 'Retried' } });
      expect(edit.status, edit.text).toBe(200);
    } finally {
      store.down = false;
    }
    expect(await t.folio.repos.jobs.listOpenForBlog(blog.id)).toHaveLength(1);
    const jobs = await count('publish_jobs');
    const res = await publish('retry-me');
    expect(res.status, res.text).toBe(200);
    expect(await count('publish_jobs')).toBe(jobs + 1);
    // The re-publish's job rendered the post as the database has it: the page says the new title.
    expect(readFileSync(join(t.dataDir, 'public', blog.slug, 'retry-me', 'index.html'), 'utf8')).toContain('Retried');
  });
});
