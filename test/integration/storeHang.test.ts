/**
 * Issue 27 item 21: a hung store hung requests. The S3 client had no timeouts: with s3rver
 * paused (SIGSTOP) every site read, publish, edit, search, upload and delete waited as long as
 * the pause. Now every store call has a deadline, and once one timed out the circuit fails the
 * next ones at once; so while the store is still paused, every request answers (the API's own
 * work normally, what needs the store 503 with Retry-After), an interval backup that could not
 * be written is logged, and once the store resumes the publish jobs catch up.
 *
 * The store stays paused until every request has answered: on the old code they never did and
 * the test timed out. No timing is asserted; the durations are printed for the reader.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3SiteStore } from '../../src/storage/s3SiteStore.js';
import { createTestS3Client, startS3rver, type S3rverHandle } from '../../bench/harness/s3rver.js';
import { visit } from '../../bench/harness/visit.js';
import { captureLog } from '../support/capturedLog.js';
import { buildAccount, type Actor } from '../support/factories.js';
import { image } from '../support/images.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const BUCKET = 'folio-hang';

describe('a hung store (s3rver paused with SIGSTOP)', () => {
  let s3: S3rverHandle;
  let t: TestApp;
  let owner: Actor;
  let blogId: string;
  let otherBlogId: string;
  let mediaId: string;
  let paused = false;
  const log = captureLog('info');

  const pause = (): void => {
    process.kill(s3.pid, 'SIGSTOP');
    paused = true;
  };
  const resume = (): void => {
    process.kill(s3.pid, 'SIGCONT');
    paused = false;
  };

  beforeAll(async () => {
    s3 = await startS3rver({ buckets: [BUCKET] });
    const client = await createTestS3Client(s3.endpoint);
    t = await startTestApp({ store: new S3SiteStore({ client, bucket: BUCKET }), logger: log.logger });
    owner = await buildAccount(t);
    blogId = (await owner.request('POST', '/v1/blogs', { body: { slug: 'hang', name: 'Hang' } })).body.id;
    otherBlogId = (await owner.request('POST', '/v1/blogs', { body: { slug: 'hang-other', name: 'Other' } })).body.id;
    for (const slug of ['first', 'second']) {
      const res = await owner.request('POST', '/v1/posts', {
        blogId,
        body: { title: `The ${slug} post`, slug, content: `About herons and ${slug}.`, status: 'published' },
      });
      expect(res.status, res.text).toBe(201);
    }
    const media = await owner.request('POST', '/v1/media', { blogId, raw: await image('png', 40, 30), headers: { 'content-type': 'image/png' } });
    expect(media.status, media.text).toBe(201);
    mediaId = media.body.id;
    await t.folio.idle();
    expect((await visit(t.baseUrl, 'hang.localhost:3000', '/first')).status).toBe(200);
  });

  afterAll(async () => {
    if (paused) resume();
    await t?.close();
    await s3?.stop();
  });

  it('answers every request while the store is still paused: the API normally, what needs the store 503 with Retry-After', async () => {
    pause();
    const timed = async <T extends { status: number }>(what: string, request: Promise<T>): Promise<{ what: string; ms: number; res: T }> => {
      const started = performance.now();
      const res = await request;
      return { what, ms: Math.round(performance.now() - started), res };
    };
    const answers = await Promise.all([
      timed('site read', visit(t.baseUrl, 'hang.localhost:3000', '/first')),
      timed(
        'publish',
        owner.request('POST', '/v1/posts', {
          blogId,
          body: { title: 'Written during the pause', slug: 'paused', content: 'Egrets and herons.', status: 'published' },
        }),
      ),
      timed('edit', owner.request('PUT', '/v1/posts/first', { blogId, body: { content: 'About herons, edited during the pause.' } })),
      timed('search', owner.request('GET', '/v1/search?q=herons', { blogId: otherBlogId })),
      timed('upload', owner.request('POST', '/v1/media', { blogId, raw: await image('png', 20, 20), headers: { 'content-type': 'image/png' } })),
      timed('media delete', owner.request('DELETE', `/v1/media/${mediaId}`, { blogId })),
    ]);
    // Asked again once the circuit is open: the same answers, without waiting for a deadline.
    const again = await Promise.all([
      timed('site read again', visit(t.baseUrl, 'hang.localhost:3000', '/second')),
      timed('search again', owner.request('GET', '/v1/search?q=egrets', { blogId: otherBlogId })),
      timed('upload again', owner.request('POST', '/v1/media', { blogId, raw: await image('png', 24, 24), headers: { 'content-type': 'image/png' } })),
    ]);
    expect(paused).toBe(true);
    console.log(`answered while s3rver was paused: ${[...answers, ...again].map((a) => `${a.what} ${a.res.status} in ${a.ms} ms`).join(', ')}`);

    const status = (what: string) => [...answers, ...again].find((a) => a.what === what)!.res;
    expect(status('publish').status).toBe(201);
    expect(status('edit').status).toBe(200);
    for (const what of ['site read', 'search', 'upload', 'site read again', 'search again', 'upload again']) {
      const res = status(what) as { status: number; headers: Headers | Record<string, string | string[] | undefined> };
      expect(res.status, what).toBe(503);
      const retryAfter = res.headers instanceof Headers ? res.headers.get('retry-after') : res.headers['retry-after'];
      expect(retryAfter, what).toMatch(/^\d+$/);
    }
    // A delete either went through before the store was needed or is refused: never a hang, never a 500.
    expect([200, 503]).toContain(status('media delete').status);
    expect(log.lines.some((line) => line.includes('the site store stopped answering'))).toBe(true);
  });

  it('an interval backup that cannot reach the paused store is logged as failed', async () => {
    expect(paused).toBe(true);
    await t.folio.backups.scheduled();
    const failed = log.lines.filter((line) => line.includes('backup failed'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/site store did not answer|got no answer within/);
  });

  it('catches up once the store resumes: the pages and the search index match the database', async () => {
    resume();
    // Retries back off on the fake clock; the circuit lets a call through again after a few real seconds.
    for (let round = 0; round < 60 && (await t.folio.repos.jobs.countByStatus('pending')) > 0; round++) {
      t.clock.advance(10 * 60_000);
      await t.folio.tick();
      await t.folio.idle();
      if ((await t.folio.repos.jobs.countByStatus('pending')) > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(await t.folio.repos.jobs.countByStatus('pending')).toBe(0);
    expect((await visit(t.baseUrl, 'hang.localhost:3000', '/paused')).text).toContain('Egrets');
    expect((await visit(t.baseUrl, 'hang.localhost:3000', '/first')).text).toContain('edited during the pause');
    const search = await owner.request('GET', '/v1/search?q=egrets', { blogId });
    expect(search.body.data.map((hit: { slug: string }) => hit.slug)).toEqual(['paused']);
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blogId))!);
    expect({ missing: report.missing, different: report.different, extra: report.extra }).toEqual({ missing: [], different: [], extra: [] });
    expect(log.lines.some((line) => line.includes('the site store answers again'))).toBe(true);
  });
});
