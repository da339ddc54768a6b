/**
 * `folio search reindex` and `folio site rebuild` beside a running server: two processes on one
 * data dir, here two composed apps (the server, and the CLI's compose) on the same SQLite file
 * and folder store. A post the server published while a reindex ran was answered 200 and found,
 * then lost from both indexes when the reindex put in the ones it had built from the posts read
 * before; a publish during a full render left the feeds, sitemaps, list pages and a neighbour's
 * page as the render had planned them before it. The CLI's store holds one write until the
 * server's changes are done, so they fall inside the CLI's work every time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { manifestKey } from '../../src/search/manifest.js';
import { idBlockKey, idBlockPrefix, stateKey } from '../../src/search/static/staticFormat.js';
import { createSiteStore } from '../../src/compose/adapters.js';
import { loadConfig } from '../../src/config/config.js';
import type { PutOptions, SiteStore, StoredObject } from '../../src/storage/siteStore.js';
import { buildBlog, buildPost } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/** A real folder store whose first write of a key `held` picks waits until `open()`; `reached` resolves when it starts waiting. */
class GatedStore implements SiteStore {
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));
  private arrived!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.arrived = resolve));

  private holding = true;

  constructor(
    private readonly inner: SiteStore,
    private readonly held: (key: string) => boolean,
  ) {}

  open(): void {
    this.opened();
  }

  async put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    if (this.holding && this.held(key)) {
      this.holding = false;
      this.arrived();
      await this.gate;
    }
    return this.inner.put(key, body, options);
  }

  get(key: string): Promise<StoredObject | null> {
    return this.inner.get(key);
  }

  getBody(key: string): Promise<Buffer | null> {
    return this.inner.getBody(key);
  }

  getRange(key: string, start: number, end: number): Promise<Buffer | null> {
    return this.inner.getRange(key, start, end);
  }

  size(key: string): Promise<number | null> {
    return this.inner.size(key);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  deleteMany(keys: string[]): Promise<void> {
    return this.inner.deleteMany(keys);
  }

  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }
}

/** The folder store of a data dir as compose() makes it (its cache policy included). */
const storeOf = (dataDir: string): SiteStore => createSiteStore(loadConfig({ FOLIO_DATA_DIR: dataDir }));

const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.close();
});

describe('the CLI’s whole-blog work while another process publishes', () => {
  it('keeps the posts published, edited and taken down meanwhile as they are now, in both indexes', async () => {
    const server = await startTestApp();
    apps.push(server);
    const blog = await buildBlog(server, { slug: 'beside' });
    await buildPost(blog, { title: 'Already here', slug: 'already-here', content: 'Steady words.', status: 'published' });
    const leaving = await buildPost(blog, { title: 'Leaving soon', slug: 'leaving-soon', content: 'The word ocelotgone is here.', status: 'published' });
    const edited = await buildPost(blog, { title: 'Edited later', slug: 'edited-later', content: 'The word tapirbefore is here.', status: 'published' });
    await server.folio.idle();

    const store = new GatedStore(storeOf(server.dataDir), (key) => key === manifestKey('beside'));
    const cli = await startTestApp({ dataDir: server.dataDir, store, env: server.cliEnv });
    apps.push(cli);
    const reindexing = cli.folio.publisher.reindex((await cli.folio.repos.blogs.findBySlug('beside'))!);
    await store.reached;

    // Meanwhile, through the server: a new post, an edit, a post taken down.
    const added = await buildPost(blog, {
      title: 'Published meanwhile',
      slug: 'published-meanwhile',
      content: 'The word quokkaflux appears only here.',
      status: 'published',
    });
    expect(
      (await blog.actor.request('PUT', `/v1/posts/${edited.slug}`, { blogId: blog.id, body: { content: 'The word tapirafter is here now.' } })).status,
    ).toBe(200);
    expect((await blog.actor.request('POST', `/v1/posts/${leaving.slug}/unpublish`, { blogId: blog.id })).status).toBe(200);
    await server.folio.idle();
    const found = async (app: TestApp, q: string) =>
      ((await app.request('GET', `/v1/search?q=${q}`, { key: blog.actor.key, blogId: blog.id })).body.data as { slug: string }[]).map((hit) => hit.slug);
    expect(await found(server, 'quokkaflux')).toEqual(['published-meanwhile']);

    store.open();
    expect(await reindexing).toBe(3);

    // A third process reads both indexes from the store as they are now.
    const reader = await startTestApp({ dataDir: server.dataDir, env: server.cliEnv });
    apps.push(reader);
    expect(await found(reader, 'quokkaflux')).toEqual(['published-meanwhile']);
    expect(await found(reader, 'tapirafter')).toEqual(['edited-later']);
    expect(await found(reader, 'tapirbefore')).toEqual([]);
    expect(await found(reader, 'ocelotgone')).toEqual([]);
    const stored = storeOf(server.dataDir);
    const state = JSON.parse((await stored.get(stateKey('beside')))!.body.toString('utf8')) as { idBlocks: string[]; dead: number[] };
    const blocks = await Promise.all(state.idBlocks.map(async (tag, block) => (await stored.get(idBlockKey('beside', block, tag)))!.body.toString('utf8')));
    const idColumn = blocks.join('\n');
    const live = idColumn.split('\n').filter((_, ordinal) => !state.dead.includes(ordinal));
    expect(live).toContain(added.id);
    expect(live).not.toContain(leaving.id);
    // A post that left the site is not named in the state at all (it may sit in a public bucket),
    // and no block the writes replaced is left behind.
    expect(idColumn).not.toContain(leaving.id);
    expect(await stored.list(idBlockPrefix('beside'))).toHaveLength(state.idBlocks.length);
  });

  it('a full render leaves the site as the database says, with the posts published and taken down meanwhile', async () => {
    const server = await startTestApp();
    apps.push(server);
    const blog = await buildBlog(server, { slug: 'rebuilt' });
    for (let i = 1; i <= 12; i++)
      await buildPost(blog, { title: `Post ${i}`, slug: `post-${i}`, content: `Text ${i}.`, status: 'published', tags: ['series'] });
    const leaving = await buildPost(blog, { title: 'Leaving soon', slug: 'leaving-soon', content: 'Gone soon.', status: 'published', tags: ['series'] });
    await server.folio.idle();

    // Held at the render's first write: it has planned the site from the posts as they are now.
    const store = new GatedStore(storeOf(server.dataDir), (key) => key.startsWith('rebuilt/'));
    const cli = await startTestApp({ dataDir: server.dataDir, store, env: server.cliEnv });
    apps.push(cli);
    const cliBlog = (await cli.folio.repos.blogs.findBySlug('rebuilt'))!;
    const rebuilding = cli.folio.publisher.rebuild(cliBlog, { force: true });
    await store.reached;
    await buildPost(blog, { title: 'Published meanwhile', slug: 'published-meanwhile', content: 'New.', status: 'published', tags: ['series'] });
    expect((await blog.actor.request('POST', `/v1/posts/${leaving.slug}/unpublish`, { blogId: blog.id })).status).toBe(200);
    await server.folio.idle();
    store.open();
    await rebuilding;

    const report = await cli.folio.publisher.verify(cliBlog);
    expect({ missing: report.missing, different: report.different, extra: report.extra }).toEqual({ missing: [], different: [], extra: [] });
    const home = await storeOf(server.dataDir).get('rebuilt/index.html');
    expect(home!.body.toString('utf8')).toContain('Published meanwhile');
    expect(home!.body.toString('utf8')).not.toContain('Leaving soon');
  });
});
