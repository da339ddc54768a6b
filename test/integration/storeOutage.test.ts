/**
 * The API must not depend on the store being up (hardening issue, item 6). The test stops its
 * own s3rver for the outage and starts it again on the same port and data folder. During the
 * outage: the API answers normally (changes are recorded, their jobs wait), search answers from
 * the index already in memory, the site server answers 503 with Retry-After — and no route
 * answers 500. After it, the retried jobs bring store and index in line with the database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3SiteStore } from '../../src/storage/s3SiteStore.js';
import { buildAccount, expectError, type Actor } from '../support/factories.js';
import { createTestS3Client, startS3rver, type S3rverHandle } from '../../bench/harness/s3rver.js';
import { startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';

const BUCKET = 'folio-outage';

describe('a store outage (s3rver stopped and restarted)', () => {
  let s3: S3rverHandle;
  let s3Dir: string;
  let port: number;
  let t: TestApp;
  let owner: Actor;
  let blogId: string;
  let spareBlogId: string;
  const answers: { what: string; res: { status: number } }[] = [];

  const record = <T extends { status: number }>(what: string, res: T): T => {
    answers.push({ what, res });
    return res;
  };

  beforeAll(async () => {
    s3Dir = mkdtempSync(join(tmpdir(), 'folio-outage-s3-'));
    s3 = await startS3rver({ directory: s3Dir, buckets: [BUCKET] });
    port = Number(new URL(s3.endpoint).port);
    // One attempt per call: the SDK's retries would only make the outage slower to notice.
    const client = await createTestS3Client(s3.endpoint, { maxAttempts: 1 });
    t = await startTestApp({ store: new S3SiteStore({ client, bucket: BUCKET }) });
    owner = await buildAccount(t);
    blogId = (await owner.request('POST', '/v1/blogs', { body: { slug: 'outage', name: 'Outage' } })).body.id;
    spareBlogId = (await owner.request('POST', '/v1/blogs', { body: { slug: 'outage-spare', name: 'Spare' } })).body.id;
    for (const slug of ['first', 'second', 'doomed']) {
      const res = await owner.request('POST', '/v1/posts', {
        blogId,
        body: { title: `The ${slug} post`, slug, content: `About herons and ${slug}.`, status: 'published' },
      });
      expect(res.status, res.text).toBe(201);
    }
    // The blog's index is loaded into memory by a first search, as on any running server.
    expect((await owner.request('GET', '/v1/search?q=herons', { blogId })).body.pagination.total).toBe(3);
  });

  afterAll(async () => {
    await t?.close();
    await s3?.stop();
    rmSync(s3Dir, { recursive: true, force: true });
  });

  it('keeps the API answering while the store is down, and never answers 500', async () => {
    // The setup's background writes (search indexes) land first. s3rver writes an object's body
    // and its metadata file one after the other, so one killed between the two answers 500 for
    // that key after the restart until it is written again, and the jobs that read it never
    // converge; S3's puts are atomic, so that is the stand-in's failure, not an outage's.
    await t.folio.idle();
    await s3.stop();

    const created = record(
      'create published post',
      await owner.request('POST', '/v1/posts', {
        blogId,
        body: { title: 'Written in the dark', slug: 'dark', content: 'Egrets and herons.', status: 'published' },
      }),
    );
    expect(created.status, JSON.stringify(created)).toBe(201);
    expect(record('edit post', await owner.request('PUT', '/v1/posts/first', { blogId, body: { content: 'About herons, edited.' } })).status).toBe(200);
    expect(record('unpublish post', await owner.request('POST', '/v1/posts/second/unpublish', { blogId })).status).toBe(200);
    expect(record('delete post', await owner.request('DELETE', '/v1/posts/doomed', { blogId })).status).toBe(200);
    expect(record('list posts', await owner.request('GET', '/v1/posts', { blogId })).status).toBe(200);
    expect(record('get post', await owner.request('GET', '/v1/posts/dark', { blogId })).status).toBe(200);
    expect(record('create blog', await owner.request('POST', '/v1/blogs', { body: { slug: 'outage-new', name: 'New' } })).status).toBe(201);
    expect(record('rename blog', await owner.request('PUT', `/v1/blogs/${blogId}`, { body: { name: 'Outage, renamed' } })).status).toBe(200);
    expect(record('delete blog', await owner.request('DELETE', `/v1/blogs/${spareBlogId}`)).status).toBe(200);
    expect(record('healthz', await t.request('GET', '/healthz')).status).toBe(200);
    expect(record('openapi', await t.request('GET', '/v1/openapi.json')).status).toBe(200);

    // A proxy in front sends the API its own host name: once looked up in the store.
    const proxied = record('API under a foreign host', await owner.request('GET', '/v1/posts', { blogId, headers: { host: 'api.example.com' } }));
    expect(proxied.status).toBe(200);

    const publishing = record('publishing status', await owner.request('GET', `/v1/blogs/${blogId}/publishing`));
    expect(publishing.status).toBe(200);
    expect(JSON.stringify(publishing.body)).toMatch(/unavailable|ECONNREFUSED|failed/i);

    // Search answers from the loaded index: the changes it could not store are not in it yet.
    const search = record('search (loaded index)', await owner.request('GET', '/v1/search?q=herons', { blogId }));
    expect(search.status).toBe(200);
    expect(search.body.data.map((hit: { slug: string }) => hit.slug).sort()).toEqual(['doomed', 'first', 'second']);

    // A blog whose index was never loaded cannot be searched until the store is back.
    const other = await buildAccount(t);
    const otherBlog = (await other.request('POST', '/v1/blogs', { body: { slug: 'outage-other', name: 'Other' } })).body.id;
    const unloaded: TestResponse = record('search (never loaded)', await other.request('GET', '/v1/search?q=herons', { blogId: otherBlog }));
    expectError(unloaded, 503, 'service_unavailable');
    expect(unloaded.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(unloaded.body.retry_after).toBeGreaterThan(0);

    for (const path of ['/', '/first', '/rss.xml', '/nope']) {
      const page = await visit(t.baseUrl, 'outage.localhost:3000', path);
      answers.push({ what: `site ${path}`, res: page });
      expect(page.status, path).toBe(503);
      expect(page.headers['retry-after']).toMatch(/^\d+$/);
    }

    expect(answers.filter((a) => a.res.status >= 500 && a.res.status !== 503)).toEqual([]);
  });

  it('converges once the store is back: pages, feeds and index match the database', async () => {
    s3 = await startS3rver({ directory: s3Dir, port });
    // The jobs back off while the store is down; let their retry times pass. On a loaded machine
    // the restarted s3rver may miss a call's deadline, which opens the store circuit for a few
    // seconds of real time: the rounds go on until it has let a call through again.
    const giveUpAt = performance.now() + 30_000;
    while ((await t.folio.repos.jobs.countByStatus('pending')) > 0 && performance.now() < giveUpAt) {
      t.clock.advance(10 * 60_000);
      await t.folio.tick();
      await t.folio.idle();
      if ((await t.folio.repos.jobs.countByStatus('pending')) > 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Named, with their errors, should one be left: the assertion then says why.
    const left = await t.folio.repos.jobs.listDue('9999-12-31T00:00:00.000Z', 100);
    expect(left.map((job) => ({ kind: job.kind, blog: job.blogSlug, attempts: job.attempts, error: job.lastError, runAfter: job.runAfter }))).toEqual([]);

    expect((await visit(t.baseUrl, 'outage.localhost:3000', '/dark')).text).toContain('Egrets');
    expect((await visit(t.baseUrl, 'outage.localhost:3000', '/first')).text).toContain('edited');
    expect((await visit(t.baseUrl, 'outage.localhost:3000', '/second')).status).toBe(404);
    expect((await visit(t.baseUrl, 'outage.localhost:3000', '/doomed')).status).toBe(404);
    expect((await visit(t.baseUrl, 'outage.localhost:3000', '/')).text).toContain('Outage, renamed');
    const search = await owner.request('GET', '/v1/search?q=herons', { blogId });
    expect(search.body.data.map((hit: { slug: string }) => hit.slug).sort()).toEqual(['dark', 'first']);
    const blog = (await t.folio.repos.blogs.findById(blogId))!;
    const report = await t.folio.publisher.verify(blog);
    expect({ missing: report.missing, different: report.different, extra: report.extra }).toEqual({ missing: [], different: [], extra: [] });
    // The deleted blog's site is gone and its slug free again.
    const again = await owner.request('POST', '/v1/blogs', { body: { slug: 'outage-spare', name: 'Spare again' } });
    expect(again.status, again.text).toBe(201);
  });
});
