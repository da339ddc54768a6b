/**
 * The static search index follows a publish's answer (src/publish/stages/staticSearchQueue.ts):
 * a durable mark is set while a blog's static writes are queued, so a process stopped before
 * they landed leaves an index the next process does not trust: the blog's next change lays it
 * out afresh from the database, which holds every change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticIndexWriter } from '../../src/search/static/staticIndexWriter.js';
import { queryTerms } from '../../src/search/tokenize.js';
import { matchingPaths, readStaticIndex } from '../support/staticSearchIndex.js';
import { withDataSql } from '../support/dataSql.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';

describe('the static search index after a stop with its writes still queued', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'folio-static-queue-'));
  /** The data dir's data: on the PostgreSQL pass with a database of its own. */
  let env: Record<string, string>;
  beforeAll(async () => {
    env = await freshDataEnv(dataDir);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const found = async (t: TestApp, q: string) => matchingPaths(await readStaticIndex(t.folio.store, 'marks'), queryTerms(q));
  /** The blog's mark, read by a connection of the test's own (as another process would). */
  const readMark = (data: Record<string, string>, blogId: string): Promise<string | undefined> =>
    withDataSql(data, async (sql) => (await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [`static_search_behind:${blogId}`]))?.value);
  const mark = (blogId: string): Promise<string | undefined> => readMark(env, blogId);
  /** As a stop between a publish's answer and its static write leaves it: the mark still set. */
  const setMark = (data: Record<string, string>, blogId: string): Promise<unknown> =>
    withDataSql(data, (sql) => sql.run("UPDATE settings SET value = '1' WHERE key = ?", [`static_search_behind:${blogId}`]));

  it('clears the mark once the writes land, and lays the index out afresh when a stop left it set', async () => {
    const first = await startTestApp({ dataDir, env });
    const blogId = (await first.request('POST', '/v1/blogs', { body: { slug: 'marks', name: 'Marks' } })).body.id as string;
    await first.request('POST', '/v1/posts', { blogId, body: { title: 'Lanterns', slug: 'lanterns', content: 'paper lanterns', status: 'published' } });
    const kites = await first.request('POST', '/v1/posts', { blogId, body: { title: 'Kites', slug: 'kites', content: 'paper kites', status: 'published' } });
    await first.folio.idle();
    expect(await mark(blogId)).toBe('0');
    expect(await found(first, 'paper')).toEqual(['/kites', '/lanterns']);
    // As a stop between a publish's answer and its static write: the index lacks a live post
    // and the mark is still set.
    await new StaticIndexWriter(first.folio.store, { cacheControl: 'no-cache' }).remove('marks', [kites.body.id as string]);
    const key = first.key;
    await first.close();
    await setMark(env, blogId);

    const second = await startTestApp({ dataDir, env });
    try {
      expect(await found(second, 'kites')).toEqual([]);
      const boats = await second.request('POST', '/v1/posts', {
        blogId,
        key,
        body: { title: 'Boats', slug: 'boats', content: 'paper boats', status: 'published' },
      });
      expect(boats.status).toBe(201);
      await second.folio.idle();
      expect(await found(second, 'paper')).toEqual(['/boats', '/kites', '/lanterns']);
      expect(await mark(blogId)).toBe('0');
      const incremental = await readStaticIndex(second.folio.store, 'marks');
      await second.folio.publisher.reindex((await second.folio.repos.blogs.findById(blogId))!);
      expect(await readStaticIndex(second.folio.store, 'marks')).toEqual(incremental);
    } finally {
      await second.close();
    }
  });
  it('lays out at start, without waiting for a change, an index a stop left behind (as main.ts does)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-static-resume-'));
    try {
      const dirEnv = await freshDataEnv(dir);
      const first = await startTestApp({ dataDir: dir, env: dirEnv });
      const blogId = (await first.request('POST', '/v1/blogs', { body: { slug: 'resumed', name: 'Resumed' } })).body.id as string;
      const kites = await first.request('POST', '/v1/posts', { blogId, body: { title: 'Kites', slug: 'kites', content: 'paper kites', status: 'published' } });
      await first.folio.idle();
      await new StaticIndexWriter(first.folio.store, { cacheControl: 'no-cache' }).remove('resumed', [kites.body.id as string]);
      await first.close();
      await setMark(dirEnv, blogId);

      const second = await startTestApp({ dataDir: dir, env: dirEnv });
      try {
        const paths = async () => matchingPaths(await readStaticIndex(second.folio.store, 'resumed'), queryTerms('kites'));
        expect(await paths()).toEqual([]);
        expect(await second.folio.publisher.resumeStaticSearch()).toBe(1);
        await second.folio.idle();
        expect(await paths()).toEqual(['/kites']);
        expect(await readMark(dirEnv, blogId)).toBe('0');
        // Nothing left behind now: the next start lays out nothing.
        expect(await second.folio.publisher.resumeStaticSearch()).toBe(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
