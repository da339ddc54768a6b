import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { ObjectHashesRepo } from '../../src/db/objectHashesRepo.js';
import { FaultyStore } from '../support/faultyStore.js';
import { FakeClock } from '../support/fakeClock.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';
import { testTempDir } from '../support/tempDir.js';

describe('publishing when the store fails', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    while (apps.length) await apps.pop()!.close();
  });

  it('answers as the database says while the store is down, retries with backoff, and converges when it is back', async () => {
    const dataDir = testTempDir('folio-fault-');
    const store = new FaultyStore(new FsSiteStore({ root: join(dataDir, 'public') }));
    const t = await startTestApp({ dataDir, env: await freshDataEnv(dataDir), store });
    apps.push(t);
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'outage', name: 'Outage' } })).body;

    store.down = true;
    const created = await t.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'Written during an outage', content: 'Still saved.', status: 'published' },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('published');
    expect((await t.request('GET', `/v1/posts/${created.body.slug}`, { blogId: blog.id })).body.status).toBe('published');

    const status = await t.request('GET', `/v1/blogs/${blog.id}/publishing`);
    expect(status.body.pending).toBe(1);
    expect(status.body.failed).toBe(1);
    expect(status.body.jobs[0]).toMatchObject({ kind: 'post', status: 'failed', attempts: 1 });
    expect(status.body.jobs[0].last_error).toContain('simulated outage');

    // Before the backoff has passed, the retry tick leaves it alone.
    expect(await t.folio.runner.runDue()).toBe(0);
    t.clock.advance(2_000);
    expect(await t.folio.runner.runDue()).toBe(1);
    expect((await t.request('GET', `/v1/blogs/${blog.id}/publishing`)).body.jobs[0].attempts).toBe(2);

    store.down = false;
    t.clock.advance(10_000);
    await t.folio.runner.runDue();
    expect((await t.request('GET', `/v1/blogs/${blog.id}/publishing`)).body).toEqual({ pending: 0, failed: 0, jobs: [] });
    const page = await visit(t.baseUrl, 'outage.localhost:3000', `/${created.body.slug}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Written during an outage');
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blog.id))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
  });

  it('a full rebuild that fails part way (it renders and writes a chunk at a time) keeps what was written, and the next one writes only the rest', async () => {
    const dataDir = testTempDir('folio-rebuild-fault-');
    const faulty = new FaultyStore(new FsSiteStore({ root: join(dataDir, 'public') }));
    // Seeded without rendering, so the rebuilds below are the only writers.
    const t = await startTestApp({ dataDir, env: await freshDataEnv(dataDir), store: faulty, jobHandler: async () => {} });
    apps.push(t);
    const created = (await t.request('POST', '/v1/blogs', { body: { slug: 'chunky', name: 'Chunky' } })).body;
    const row = (await t.folio.repos.blogs.findById(created.id))!;
    for (let i = 0; i < 450; i += 1) {
      t.clock.advance(60_000);
      await t.folio.posts.create(row, { title: `Chunk post ${i}`, contentMd: `Body ${i}.`, tags: [`tag-${i % 5}`], status: 'published' });
    }
    const hashes = new ObjectHashesRepo(t.folio.sql);

    // Puts fail from the 301st on; the store still flushes what it accepted.
    faulty.failAfterPuts = 300;
    faulty.putsOnly = true;
    await expect(t.folio.publisher.rebuild(row)).rejects.toThrow(/simulated crash/);
    const kept = (await hashes.all(row.id)).size;
    // Every accepted write is recorded once flushed; more than one chunk of 200 post pages got through.
    expect(kept).toBe(300);

    faulty.failAfterPuts = null;
    faulty.puts = 0;
    const result = await t.folio.publisher.rebuild(row);
    expect(result.written + result.unchanged).toBe((await hashes.all(row.id)).size);
    expect(result.unchanged).toBe(kept);
    expect(result.written + result.unchanged).toBeGreaterThan(450);
    const report = await t.folio.publisher.verify(row);
    expect({ missing: report.missing, different: report.different, extra: report.extra }).toEqual({ missing: [], different: [], extra: [] });
    expect(report.checked).toBe(result.written + result.unchanged);
  });

  it('more full renders and reindexes at once than there are slots all finish, each blog in step', async () => {
    const t = await startTestApp({ jobHandler: async () => {} });
    apps.push(t);
    const rows = [];
    for (const slug of ['one', 'two', 'three']) {
      const created = (await t.request('POST', '/v1/blogs', { body: { slug, name: slug } })).body;
      const row = (await t.folio.repos.blogs.findById(created.id))!;
      for (let i = 0; i < 120; i += 1) {
        t.clock.advance(60_000);
        await t.folio.posts.create(row, { title: `${slug} ${i}`, contentMd: `Body ${i}.`, status: 'published' });
      }
      rows.push(row);
    }
    const results = await Promise.all(rows.map((row) => t.folio.publisher.rebuild(row)));
    for (const [i, row] of rows.entries()) {
      expect(results[i]!.written).toBeGreaterThan(120);
      const report = await t.folio.publisher.verify(row);
      expect({ missing: report.missing, different: report.different, extra: report.extra }).toEqual({ missing: [], different: [], extra: [] });
    }

    // Reindexes hold every post's text while they run: they take the same slots.
    const reindexing = rows.map((row) => t.folio.publisher.reindex(row));
    expect(t.folio.publisher.wholeBlogWork()).toEqual({ running: 2, waiting: 1 });
    expect(await Promise.all(reindexing)).toEqual([120, 120, 120]);
    expect(t.folio.publisher.wholeBlogWork()).toEqual({ running: 0, waiting: 0 });
    for (const row of rows) {
      const found = await t.request('GET', `/v1/search?q=${row.slug}`, { blogId: row.id });
      expect(found.body.pagination.total, row.slug).toBe(120);
    }
  });

  it('a process that dies half way through a job converges after restart', async () => {
    const dataDir = testTempDir('folio-crash-');
    const env = await freshDataEnv(dataDir);
    const clock = new FakeClock();
    const faulty = new FaultyStore(new FsSiteStore({ root: join(dataDir, 'public') }));
    const first = await startTestApp({ dataDir, env, store: faulty, clock });
    apps.push(first);
    const blog = (await first.request('POST', '/v1/blogs', { body: { slug: 'crashy', name: 'Crashy' } })).body;
    for (const title of ['One', 'Two', 'Three']) {
      await first.request('POST', '/v1/posts', { blogId: blog.id, body: { title, content: `${title} body.`, status: 'published' } });
    }
    // The next job gets three objects into the store, then the "process" is gone.
    faulty.failAfterPuts = faulty.puts + 3;
    await first.request('PUT', '/v1/posts/two', { blogId: blog.id, body: { title: 'Two, renamed', slug: 'two-renamed' } });
    await apps.pop()!.close();

    const second = await startTestApp({ dataDir, env, clock });
    apps.push(second);
    clock.advance(5_000);
    await second.folio.tick();
    const report = await second.folio.publisher.verify((await second.folio.repos.blogs.findById(blog.id))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
    expect((await visit(second.baseUrl, 'crashy.localhost:3000', '/two')).status).toBe(301);
    expect((await visit(second.baseUrl, 'crashy.localhost:3000', '/two-renamed')).text).toContain('Two, renamed');
  });
});
