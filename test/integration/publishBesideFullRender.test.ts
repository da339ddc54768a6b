/**
 * A blog's publishes do not wait for its full render (the `site` job after an upgrade, a theme
 * or a name change): between two chunks of the render, the post jobs waiting behind it run and
 * their requests are answered (jobs/jobRunner.ts runBeside, pipelines/rebuildSite.ts). The
 * blog here has 1,200 posts, so its render is several chunks of posts long, and every render
 * writes every page again, as after an upgrade that changed the renderer (no recorded hash
 * matches). While it runs, a post of a chunk rendered ahead is unpublished and new posts are
 * published one after another: some must be answered while the site job is still running, the
 * unpublished page must never come back, and once everything is done the store must be what
 * the database says (`verify` clean). They also pass a second whole-blog render queued behind the
 * first (a name change), and get in during the search indexes' rebuild that follows a render
 * when the indexed text changed (their search entries wait for the new indexes). A batch that
 * fails beside the render, or that would render the whole blog itself (a new date), waits for its
 * own turn instead, and so does what follows it.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENDERER_CHANGED, SEARCH_TEXT_CHANGED } from '../../src/db/jobsRepo.js';
import { postKey } from '../../src/publish/render/renderPaths.js';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { FaultyStore } from '../support/faultyStore.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { seedBlog } from '../support/seedBlog.js';
import { staticSearch } from '../support/staticSearchIndex.js';
import { visit as visitHost } from '../../bench/harness/visit.js';

const SEEDED = 1200;
/** Publishes sent one after another while the render runs, at most. */
const MAX_PUBLISHES = 200;

describe('publishing while the blog is rendered in full', () => {
  let t: TestApp;
  let key: string;
  let blogId: string;
  let blogSlug: string;
  const slugs: string[] = [];
  let dataDir = '';
  let store: FaultyStore;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'folio-beside-'));
    const env = await freshDataEnv(dataDir);
    // Seeded through the services without rendering, then rendered once in full.
    const seed = await seedBlog(dataDir, env, { slug: 'wide', name: 'Wide blog' }, SEEDED, (i) => [`group-${i % 5}`]);
    ({ key, blogId, blogSlug } = seed);
    slugs.push(...seed.slugs);
    store = new FaultyStore(new FsSiteStore({ root: join(dataDir, 'public') }));
    t = await startTestApp({ dataDir, env, clock: seed.clock, store });
    await t.folio.publisher.rebuild((await t.folio.repos.blogs.findById(blogId))!);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, blogId, ...(body === undefined ? {} : { body }) });
  const visit = (path: string) => visitHost(t.baseUrl, `${blogSlug}.localhost:3000`, path);

  /**
   * Starts the job an upgrade records for the blog (publish/reRenderAfterUpgrade.ts), with every
   * page to be written again, and returns once its first chunk of posts is written: the chunks
   * after it are then being rendered ahead, from the posts as they were.
   */
  async function startFullRender(reason = RENDERER_CHANGED): Promise<() => Promise<boolean>> {
    // A render still running would record the hashes cleared here again.
    await t.folio.idle();
    await t.folio.sql.run('DELETE FROM object_hashes WHERE blog_id = ?', [blogId]);
    const siteJob = await t.folio.repos.jobs.insert({
      blogId,
      blogSlug,
      kind: 'site',
      payload: { reason },
      now: t.clock.now().toISOString(),
    });
    const started = Date.now();
    t.folio.runner.runInBackground([siteJob]);
    // Posts render oldest first: the oldest post's page is in the first chunk.
    const oldest = join(dataDir, 'public', postKey(blogSlug, slugs[0]!));
    while (statSync(oldest).mtimeMs < started) await sleep(1);
    return async () => (await t.folio.repos.jobs.findById(siteJob))?.status === 'pending';
  }

  async function expectInStep(): Promise<void> {
    await t.folio.idle();
    expect(await t.folio.repos.jobs.listOpenForBlog(blogId)).toEqual([]);
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blogId))!);
    expect({ missing: report.missing, different: report.different, extra: report.extra }).toEqual({ missing: [], different: [], extra: [] });
  }

  it('answers publishes between chunks of the render, never brings back a page taken down meanwhile, and ends as the database says', async () => {
    const siteRunning = await startFullRender();
    // A post of the fourth chunk of 200: rendered ahead, written after the unpublish answers.
    const victim = slugs[700]!;
    const gone = postKey(blogSlug, victim);
    const unpublished = await api('POST', `/v1/posts/${victim}/unpublish`);
    expect(unpublished.status, unpublished.text).toBe(200);
    let answeredWhileRunning = (await siteRunning()) ? 1 : 0;
    expect(await t.folio.store.get(gone)).toBeNull();
    let cameBack = false;
    const watching = (async () => {
      while (await siteRunning()) {
        if (await t.folio.store.get(gone)) cameBack = true;
        await sleep(1);
      }
    })();

    const published: string[] = [];
    while ((await siteRunning()) && published.length < MAX_PUBLISHES) {
      const res = await api('POST', '/v1/posts', { title: `Fresh ${published.length}`, content: 'Written during the render.', status: 'published' });
      expect(res.status, res.text).toBe(201);
      published.push(res.body.slug);
      // Answered only once its page is live, render or not.
      expect(await t.folio.store.get(postKey(blogSlug, res.body.slug)), res.body.slug).not.toBeNull();
      if (await siteRunning()) answeredWhileRunning += 1;
    }
    await watching;

    // Without running them beside the render, every request waits for the whole job.
    expect(answeredWhileRunning).toBeGreaterThan(0);
    expect(cameBack).toBe(false);
    await expectInStep();
    expect((await visit('/')).text).toContain(`Fresh ${published.length - 1}`);
    expect((await visit(`/${victim}/`)).status).toBe(404);
  }, 120_000);

  it('answers a publish beside the render when another whole-blog render is queued between them', async () => {
    const siteRunning = await startFullRender();
    // A name change records a second `site` job, queued behind the running one.
    const renamed = await api('PUT', `/v1/blogs/${blogId}`, { name: 'Wide blog, renamed' });
    expect(renamed.status, renamed.text).toBe(200);
    const pending = (await t.folio.repos.jobs.listOpenForBlog(blogId)).filter((open) => open.kind === 'site');
    expect(pending).toHaveLength(2);
    const res = await api('POST', '/v1/posts', { title: 'Past the rename', content: 'Does not wait for the first render.', status: 'published' });
    expect(res.status, res.text).toBe(201);
    // Without passing the queued site job, the publish waits for the whole first render.
    expect(await siteRunning()).toBe(true);
    expect(await t.folio.store.get(postKey(blogSlug, res.body.slug))).not.toBeNull();
    expect((await visit(`/${res.body.slug}/`)).text).toContain('Wide blog, renamed');
    await expectInStep();
    expect((await visit('/')).text).toContain('Wide blog, renamed');
    expect((await visit('/')).text).toContain('Past the rename');
  }, 120_000);

  it('answers publishes while the search indexes are rebuilt after the render, and indexes them once the new ones are in place', async () => {
    // The reindex that follows the render writes the API index's new segments: held in the store
    // until a publish is answered, so the reindex is surely running when it comes in.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached = () => {};
    const reindexing = new Promise<void>((resolve) => {
      reached = resolve;
    });
    store.holdPut = (key) => {
      if (!key.includes('/_search/seg-')) return null;
      reached();
      return released;
    };
    let slug = '';
    try {
      const siteRunning = await startFullRender(SEARCH_TEXT_CHANGED);
      await reindexing;
      const answered = api('POST', '/v1/posts', { title: 'Beside the reindex', content: 'A zebracorn walked in.', status: 'published' });
      // Without letting publishes in during the reindex, the request waits for the held job.
      const res = await Promise.race([answered, sleep(30_000).then(() => null)]);
      if (!res) throw new Error('the publish waited for the reindex');
      expect(res.status, res.text).toBe(201);
      slug = res.body.slug;
      expect(await siteRunning()).toBe(true);
      expect(await t.folio.store.get(postKey(blogSlug, slug))).not.toBeNull();
      // Edited before the indexes are in place: they must take the edit, not the first version.
      const edited = await api('PUT', `/v1/posts/${slug}`, { content: 'A quokka walked in.' });
      expect(edited.status, edited.text).toBe(200);
      expect(await siteRunning()).toBe(true);
    } finally {
      store.holdPut = null;
      release();
    }
    await expectInStep();
    // Its search entries were held while the indexes were rebuilt, then added to the new ones.
    const slugsFor = async (q: string) => (await api('GET', `/v1/search?q=${q}`)).body.data.map((hit: { slug: string }) => hit.slug);
    expect(await slugsFor('quokka')).toEqual([slug]);
    expect(await slugsFor('zebracorn')).toEqual([]);
    expect((await staticSearch(t.folio.store, blogSlug, 'quokka', 0, 10)).slugs).toEqual([slug]);
    expect((await staticSearch(t.folio.store, blogSlug, 'zebracorn', 0, 10)).slugs).toEqual([]);
  }, 120_000);

  it('leaves a batch that failed beside the render to its retry, and lets nothing else in until the render is done', async () => {
    const siteRunning = await startFullRender();
    store.failPut = (key) => key.includes('/refused-once/');
    try {
      const refused = await api('POST', '/v1/posts', { title: 'Refused once', content: 'The store said no.', status: 'published' });
      expect(refused.status, refused.text).toBe(201);
      // Answered once its batch failed, as a publish whose job fails is: the render still runs.
      expect(await siteRunning()).toBe(true);
      const [job] = (await t.folio.repos.jobs.listOpenForBlog(blogId)).filter((open) => open.payload.postId === refused.body.id);
      expect(job).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringContaining('refused') });
      store.failPut = null;
      const next = await api('POST', '/v1/posts', { title: 'After the refusal', content: 'Waits for the render.', status: 'published' });
      expect(next.status, next.text).toBe(201);
      expect(await siteRunning()).toBe(false);
      expect(await t.folio.store.get(postKey(blogSlug, next.body.slug))).not.toBeNull();
    } finally {
      store.failPut = null;
    }
    await t.folio.idle();
    // The failed one is retried once its backoff has passed.
    t.clock.advance(10 * 60_000);
    await t.folio.runner.runDue();
    await expectInStep();
    expect((await visit('/refused-once/')).status).toBe(200);
  }, 120_000);

  it('leaves a new date, which renders the whole blog, to its own turn after the render', async () => {
    const siteRunning = await startFullRender();
    const moved = slugs[1000]!;
    const redated = await api('PUT', `/v1/posts/${moved}`, { published_at: '2001-02-03T04:05:06.000Z' });
    expect(redated.status, redated.text).toBe(200);
    expect(await siteRunning()).toBe(false);
    await expectInStep();
    expect((await visit('/archive/')).text).toContain('2001');
  }, 120_000);
});
