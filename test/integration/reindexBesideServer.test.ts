/**
 * `folio search reindex` beside a running server: two processes on one data dir, here two
 * composed apps (the server, and the CLI's compose) on the same SQLite file and folder store. A
 * post the server publishes while the reindex runs was answered 200 and found, then lost from
 * both indexes when the reindex put in the ones it had built from the posts read before. The
 * CLI's store holds its API index's manifest write until the server's publish is done, so the
 * publish falls inside the reindex every time.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestKey } from '../../src/search/manifest.js';
import { stateKey } from '../../src/search/static/staticFormat.js';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import type { PutOptions, SiteStore, StoredObject } from '../../src/storage/siteStore.js';
import { buildBlog, buildPost } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/** A real folder store whose write of one key waits until `open()`; `reached` resolves when it starts waiting. */
class GatedStore implements SiteStore {
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));
  private arrived!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.arrived = resolve));

  constructor(
    private readonly inner: SiteStore,
    private readonly heldKey: string,
  ) {}

  open(): void {
    this.opened();
  }

  async put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    if (key === this.heldKey) {
      this.arrived();
      await this.gate;
    }
    return this.inner.put(key, body, options);
  }

  get(key: string): Promise<StoredObject | null> {
    return this.inner.get(key);
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

const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.close();
});

describe('a search reindex while another process publishes', () => {
  it('keeps the posts published, edited and taken down meanwhile as they are now, in both indexes', async () => {
    const server = await startTestApp();
    apps.push(server);
    const blog = await buildBlog(server, { slug: 'beside' });
    await buildPost(blog, { title: 'Already here', slug: 'already-here', content: 'Steady words.', status: 'published' });
    const leaving = await buildPost(blog, { title: 'Leaving soon', slug: 'leaving-soon', content: 'The word ocelotgone is here.', status: 'published' });
    const edited = await buildPost(blog, { title: 'Edited later', slug: 'edited-later', content: 'The word tapirbefore is here.', status: 'published' });
    await server.folio.runner.idle();

    const store = new GatedStore(new FsSiteStore({ root: join(server.dataDir, 'public') }), manifestKey('beside'));
    const cli = await startTestApp({ dataDir: server.dataDir, store });
    apps.push(cli);
    const reindexing = cli.folio.publisher.reindex(cli.folio.repos.blogs.findBySlug('beside')!);
    await store.reached;

    // Meanwhile, through the server: a new post, an edit, a post taken down.
    const added = await buildPost(blog, { title: 'Published meanwhile', slug: 'published-meanwhile', content: 'The word quokkaflux appears only here.', status: 'published' });
    expect((await blog.actor.request('PUT', `/v1/posts/${edited.slug}`, { blogId: blog.id, body: { content: 'The word tapirafter is here now.' } })).status).toBe(200);
    expect((await blog.actor.request('POST', `/v1/posts/${leaving.slug}/unpublish`, { blogId: blog.id })).status).toBe(200);
    await server.folio.runner.idle();
    const found = async (app: TestApp, q: string) => ((await app.request('GET', `/v1/search?q=${q}`, { key: blog.actor.key, blogId: blog.id })).body.data as { slug: string }[]).map((hit) => hit.slug);
    expect(await found(server, 'quokkaflux')).toEqual(['published-meanwhile']);

    store.open();
    expect(await reindexing).toBe(3);

    // A third process reads both indexes from the store as they are now.
    const reader = await startTestApp({ dataDir: server.dataDir });
    apps.push(reader);
    expect(await found(reader, 'quokkaflux')).toEqual(['published-meanwhile']);
    expect(await found(reader, 'tapirafter')).toEqual(['edited-later']);
    expect(await found(reader, 'tapirbefore')).toEqual([]);
    expect(await found(reader, 'ocelotgone')).toEqual([]);
    const state = JSON.parse((await new FsSiteStore({ root: join(server.dataDir, 'public') }).get(stateKey('beside')))!.body.toString('utf8')) as { ids: Record<string, number> };
    expect(Object.keys(state.ids)).toContain(added.id);
    expect(Object.keys(state.ids)).not.toContain(leaving.id);
  });
});
