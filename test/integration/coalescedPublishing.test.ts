/**
 * Coalesced publishing with the real app, a real SQLite file and the folder store: post jobs of
 * one blog queued behind a running one run as one batch (docs/publishing.md#coalesced-publishing).
 * A store whose first write waits on a gate holds the blog's pipeline busy while a burst commits,
 * so the burst is folded whatever the machine's speed.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/domain/errors.js';
import type { PutOptions } from '../../src/storage/siteStore.js';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { visit } from '../../bench/harness/visit.js';
import { FaultyStore } from '../support/faultyStore.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { testTempDir } from '../support/tempDir.js';

/** A folder store that counts writes per key, can hold writes behind a gate, and refuses the keys in `refuse`. */
class GatedStore extends FaultyStore {
  readonly putsOf = new Map<string, number>();
  readonly refuse = new Set<string>();
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;

  /** Holds every write from now until `release`. */
  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open?.();
    this.gate = null;
  }

  override async put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    await this.gate;
    if (this.refuse.has(key)) throw new StorageError('store unavailable (simulated crash)');
    this.putsOf.set(key, (this.putsOf.get(key) ?? 0) + 1);
    return super.put(key, body, options);
  }
}

interface Setup {
  t: TestApp;
  store: GatedStore;
  blog: { id: string; slug: string };
}

const waitFor = async (done: () => boolean | Promise<boolean>): Promise<void> => {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('coalesced publishing', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    while (apps.length) await apps.pop()!.close();
  });

  async function setUp(slug: string): Promise<Setup> {
    const dataDir = testTempDir('folio-coalesce-');
    const store = new GatedStore(new FsSiteStore({ root: join(dataDir, 'public') }));
    const t = await startTestApp({ dataDir, store });
    apps.push(t);
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug, name: 'Burst' } })).body;
    // The first post is published alone, so the blog's pages all exist before the burst.
    await t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Before the burst', content: 'First.', status: 'published' } });
    await t.folio.idle();
    return { t, store, blog };
  }

  const pendingPostJobs = (s: Setup): Promise<number> => s.t.folio.repos.jobs.countPendingPostJobs(s.blog.id);

  it('a burst of creates over HTTP: every post is live, listed, in the feeds, the sitemap and search, and the shared pages are written fewer times than posts', async () => {
    const s = await setUp('burst');
    const { t, store, blog } = s;
    const N = 12;
    store.putsOf.clear();
    store.hold();
    const answers = Array.from({ length: N }, (_, i) =>
      t.request('POST', '/v1/posts', {
        blogId: blog.id,
        body: { title: `Burst post ${i}`, content: `Word quokka${i} and the shared word wombat.`, tags: ['burst'], status: 'published' },
      }),
    );
    // Every change is committed while the first one's job waits on the store.
    await waitFor(async () => (await pendingPostJobs(s)) === N);
    store.release();
    const created = await Promise.all(answers);
    for (const res of created) expect(res.status).toBe(201);
    const slugs = created.map((res) => res.body.slug as string);

    for (const slug of slugs) {
      const page = await visit(t.baseUrl, 'burst.localhost:3000', `/${slug}`);
      expect(page.status, slug).toBe(200);
    }
    const home = (await visit(t.baseUrl, 'burst.localhost:3000', '/')).text;
    const rss = (await visit(t.baseUrl, 'burst.localhost:3000', '/rss.xml')).text;
    const feed = (await visit(t.baseUrl, 'burst.localhost:3000', '/feed.json')).text;
    const sitemap = (await visit(t.baseUrl, 'burst.localhost:3000', '/sitemap-posts-1.xml')).text;
    const tag = (await visit(t.baseUrl, 'burst.localhost:3000', '/tags/burst')).text;
    for (const slug of slugs) {
      for (const [name, body] of Object.entries({ home, rss, feed, sitemap, tag })) expect(body, `${slug} in ${name}`).toContain(`/${slug}`);
    }
    for (let i = 0; i < N; i++) {
      const hits = await t.request('GET', `/v1/search?q=quokka${i}`, { blogId: blog.id });
      expect(hits.body.data.map((hit: { slug: string }) => hit.slug)).toEqual([slugs[i]]);
    }
    expect((await t.request('GET', '/v1/search?q=wombat&per_page=50', { blogId: blog.id })).body.pagination.total).toBe(N);

    // The first job ran alone; the other N - 1 waited behind it and ran as one batch.
    for (const key of ['index.html', 'rss.xml', 'feed.json', 'sitemap-posts-1.xml', 'llms.txt', 'tags/burst/index.html']) {
      expect(store.putsOf.get(`burst/${key}`), key).toBeLessThanOrEqual(2);
    }
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blog.id))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
    expect((await t.request('GET', `/v1/blogs/${blog.id}/publishing`)).body).toEqual({ pending: 0, failed: 0, jobs: [] });
  });

  it('answers in the order the changes committed, each once its own post is live', async () => {
    const s = await setUp('ordered');
    const { t, store, blog } = s;
    const row = (await t.folio.repos.blogs.findById(blog.id))!;
    const N = 10;
    store.hold();
    const answered: { title: string; live: boolean }[] = [];
    const creates: Promise<unknown>[] = [];
    for (let i = 0; i < N; i++) {
      const title = `Ordered post ${i}`;
      // Each change commits before the next starts, so commit order is creation order.
      const pending = t.folio.posts.create(row, { title, contentMd: `Body ${i}.`, status: 'published' });
      creates.push(
        pending.then((post) => {
          // Read at once, in the answer's own turn (the repository's read would answer a turn later).
          answered.push({ title, live: recorded(t, blog.id, `ordered/${post.slug}/index.html`) });
        }),
      );
      await waitFor(async () => (await pendingPostJobs(s)) === i + 1);
    }
    store.release();
    await Promise.all(creates);
    expect(answered).toEqual(Array.from({ length: N }, (_, i) => ({ title: `Ordered post ${i}`, live: true })));
  });

  it('a batch the store fails part way leaves all its jobs pending, tried once each; a later runDue finishes them', async () => {
    const s = await setUp('crashy');
    const { t, store, blog } = s;
    const N = 8;
    store.hold();
    const answers = Array.from({ length: N }, (_, i) =>
      t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: `Crash post ${i}`, content: `Body ${i}.`, status: 'published' } }),
    );
    await waitFor(async () => (await pendingPostJobs(s)) === N);
    // The newest post's Markdown twin, which only its own change renders: the batch's, not the first job's.
    const jobs = await t.folio.repos.jobs.listOpenForBlog(blog.id);
    const newest = (await t.folio.repos.posts.findById(jobs[jobs.length - 1]!.payload.postId!))!;
    store.refuse.add(`crashy/${newest.slug}.md`);
    store.release();
    const created = await Promise.all(answers);
    // The API answers as the database says.
    for (const res of created) expect(res.body.status).toBe('published');

    const status = (await t.request('GET', `/v1/blogs/${blog.id}/publishing`)).body;
    expect(status.pending).toBe(N - 1);
    // One attempt each: the members' own turns do not run the failed batch again.
    for (const job of status.jobs) expect(job).toMatchObject({ kind: 'post', attempts: 1 });
    expect(status.jobs[0].last_error).toContain('simulated crash');

    store.refuse.clear();
    store.putsOf.clear();
    t.clock.advance(10_000);
    expect(await t.folio.runner.runDue()).toBe(N - 1);
    expect((await t.request('GET', `/v1/blogs/${blog.id}/publishing`)).body).toEqual({ pending: 0, failed: 0, jobs: [] });
    // runDue started every due job; the first ran them all as one batch.
    expect(store.putsOf.get('crashy/index.html') ?? 0).toBeLessThanOrEqual(1);
    for (const res of created) expect((await visit(t.baseUrl, 'crashy.localhost:3000', `/${res.body.slug}`)).status).toBe(200);
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blog.id))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
  });

  it('a site job between post jobs keeps its place: the posts before it and after it run apart, in order', async () => {
    const s = await setUp('mixed');
    const { t, store, blog } = s;
    const first = t.handledJobs.length;
    store.hold();
    const held = t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Held', content: 'Held.', status: 'published' } });
    await waitFor(async () => (await pendingPostJobs(s)) === 1);
    const before = t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Before the rename', content: 'A.', status: 'published' } });
    await waitFor(async () => (await pendingPostJobs(s)) === 2);
    const renamed = t.request('PUT', `/v1/blogs/${blog.id}`, { body: { name: 'Renamed burst' } });
    await waitFor(async () => (await t.folio.repos.jobs.listOpenForBlog(blog.id)).some((job) => job.kind === 'site'));
    const after = t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'After the rename', content: 'B.', status: 'published' } });
    await waitFor(async () => (await pendingPostJobs(s)) === 3);
    store.release();
    for (const res of await Promise.all([held, before, renamed, after])) expect(res.status).toBeLessThan(300);
    await t.folio.idle();

    const ran: string[] = [];
    for (const job of t.handledJobs.slice(first)) ran.push(job.kind === 'site' ? 'site' : (await t.folio.repos.posts.findById(job.payload.postId!))!.title);
    expect(ran).toEqual(['Held', 'Before the rename', 'site', 'After the rename']);
    const home = (await visit(t.baseUrl, 'mixed.localhost:3000', '/')).text;
    expect(home).toContain('Renamed burst');
    expect(home).toContain('After the rename');
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blog.id))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
  });
});

/** Whether a hash is recorded for the object, read synchronously from the process's connection. */
function recorded(t: TestApp, blogId: string, key: string): boolean {
  return t.folio.db.prepare('SELECT 1 FROM object_hashes WHERE blog_id = ? AND key = ?').get(blogId, key) !== undefined;
}
