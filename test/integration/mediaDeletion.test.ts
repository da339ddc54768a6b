/**
 * Deleting an image while the store is down (issue #27 item 27): the API answers at once, and the
 * image's objects are removed by a durable job once the store is back — also after a restart in
 * between. Before, the request tried once, logged the failure and the files stayed public.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { FaultyStore } from '../support/faultyStore.js';
import { image } from '../support/images.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';

const apps: TestApp[] = [];
const dirs: string[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The app on data of the test's own (freshDataEnv), its folder store behind a switch. */
async function start(env: Record<string, string>): Promise<{ t: TestApp; store: FaultyStore }> {
  const dataDir = env.FOLIO_DATA_DIR!;
  const store = new FaultyStore(new FsSiteStore({ root: join(dataDir, 'public') }));
  const t = await startTestApp({ dataDir, store, env });
  apps.push(t);
  return { t, store };
}

/** Runs due jobs until none is pending, moving the clock past every backoff. */
async function drainJobs(t: TestApp): Promise<void> {
  for (let round = 0; round < 20 && (await t.folio.repos.jobs.countByStatus('pending')) > 0; round++) {
    t.clock.advance(10 * 60_000);
    await t.folio.tick();
    await t.folio.idle();
  }
}

async function uploadImage(t: TestApp, blogId: string, width: number): Promise<{ id: string; url: string }> {
  const res = await t.request('POST', '/v1/media', { blogId, raw: await image('png', width, 300), headers: { 'content-type': 'image/png' } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('deleting an image while the store is down', () => {
  it('answers 200, and removes every object of the image once the store is back, across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-media-delete-'));
    dirs.push(dataDir);
    const env = await freshDataEnv(dataDir);
    let { t, store } = await start(env);
    const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'gallery', name: 'Gallery' } })).body.id;
    const doomed = await uploadImage(t, blogId, 1000);
    const kept = await uploadImage(t, blogId, 700);
    const keptKeys = (await store.list('gallery/media/')).filter((key) => key.includes(new URL(kept.url).pathname.split('/').pop()!.split('-')[0]!));
    const doomedKeys = (await store.list('gallery/media/')).filter((key) => !keptKeys.includes(key));
    expect(doomedKeys.length).toBeGreaterThan(5);
    const path = new URL(doomed.url).pathname;
    expect((await visit(t.baseUrl, 'gallery.localhost:3000', path)).status).toBe(200);

    store.down = true;
    const deleted = await t.request('DELETE', `/v1/media/${doomed.id}`, { blogId });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await t.request('GET', `/v1/media/${doomed.id}`, { blogId })).status).toBe(404);
    // The removal is recorded and waits, visible in the blog's publishing status.
    const publishing = await t.request('GET', `/v1/blogs/${blogId}/publishing`);
    expect(publishing.body.jobs).toEqual([expect.objectContaining({ kind: 'media_delete', status: 'failed', attempts: 1 })]);

    // The server restarts while the store is still down; the job survives in the database.
    await t.close();
    apps.length = 0;
    ({ t, store } = await start(env));
    store.down = true;
    await drainJobs(t);
    expect(await t.folio.repos.jobs.countByStatus('pending')).toBe(1);

    store.down = false;
    await drainJobs(t);
    expect(await t.folio.repos.jobs.countByStatus('pending')).toBe(0);
    const left = await store.list('gallery/media/');
    expect(left.filter((key) => doomedKeys.includes(key))).toEqual([]);
    // The other image is untouched.
    expect(left).toEqual(keptKeys);
    expect((await visit(t.baseUrl, 'gallery.localhost:3000', path)).status).toBe(404);
    expect((await visit(t.baseUrl, 'gallery.localhost:3000', new URL(kept.url).pathname)).status).toBe(200);
  });

  it('does not take the objects of the same bytes uploaded again before the removal ran', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-media-reupload-'));
    dirs.push(dataDir);
    const { t, store } = await start(await freshDataEnv(dataDir));
    const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'again', name: 'Again' } })).body.id;
    const bytes = await image('png', 900, 300);
    const first = await t.request('POST', '/v1/media', { blogId, raw: bytes, headers: { 'content-type': 'image/png' } });
    expect(first.status).toBe(201);
    const keys = await store.list('again/media/');

    store.down = true;
    expect((await t.request('DELETE', `/v1/media/${first.body.id}`, { blogId })).status).toBe(200);
    store.down = false;
    // The store is back before the job's retry: the author uploads the same image again.
    const second = await t.request('POST', '/v1/media', { blogId, raw: bytes, headers: { 'content-type': 'image/png' } });
    expect(second.status, second.text).toBe(201);
    expect(second.body.url).toBe(first.body.url);
    await drainJobs(t);
    expect(await t.folio.repos.jobs.countByStatus('pending')).toBe(0);
    expect(await store.list('again/media/')).toEqual(keys);
    expect((await visit(t.baseUrl, 'again.localhost:3000', new URL(second.body.url).pathname)).status).toBe(200);
  });
});
