/**
 * A server at rest lets go of what only use needs (issue 31, item 3: memory at rest): after
 * FOLIO_REST_AFTER without a request, the search indexes, the publishing listings and the idle
 * worker threads are gone from memory, what was in use stays recorded for the next start, and
 * the next query and publish answer as before, loading what they need again.
 */
import { SqliteClient } from '../../src/db/sql/sqliteClient.js';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SettingsRepo } from '../../src/db/settingsRepo.js';
import { createLogger } from '../../src/lib/logger.js';
import { collectGarbage } from '../../src/runtime/collectGarbage.js';
import { RequestActivity } from '../../src/warmup/idleSteps.js';
import { Rest } from '../../src/warmup/rest.js';
import { compiledScript } from '../../src/workers/compiledScript.js';
import { image } from '../support/images.js';
import { staticSearch } from '../support/staticSearchIndex.js';

/** npm test builds the workers first; without them the codec runs in place and no thread starts. */
const imageThreadBuilt = compiledScript('media/imageWorker') !== null;
import { buildBlog, buildPost } from '../support/factories.js';
import { startTestApp } from '../support/testApp.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('a server at rest', () => {
  it('drops its indexes, listings and idle workers after the quiet time, keeps them recorded, and answers the next query and publish as before', async () => {
    const app = await startTestApp();
    // The server's own arrangement: a RequestActivity on the HTTP server that serves the app.
    const server: Server = createServer(app.folio.listener);
    const activity = new RequestActivity(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const blog = await buildBlog(app);
      await buildPost(blog, { title: 'Resting words', content: 'Words to find again.', status: 'published' });
      await app.folio.idle();
      const search = async (q: string): Promise<number> => {
        const res = await fetch(`${base}/v1/search?q=${q}`, { headers: { authorization: `Bearer ${blog.actor.key}`, 'x-blog-id': blog.id } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { pagination: { total: number } }).pagination.total;
      };
      expect(await search('words')).toBe(1);
      app.folio.heavy.prestart();
      // sharp loads on the image thread, never on this one; the thread starts with an upload.
      const upload = async (height: number) =>
        fetch(`${base}/v1/media`, {
          method: 'POST',
          headers: { authorization: `Bearer ${blog.actor.key}`, 'x-blog-id': blog.id, 'content-type': 'image/png' },
          body: new Uint8Array(await image('png', 64, height)),
        });
      expect(app.folio.media.imageThreadRunning).toBe(false);
      expect((await upload(48)).status).toBe(201);
      expect(app.folio.media.imageThreadRunning).toBe(imageThreadBuilt);
      expect(app.folio.searchCacheStats().blogs).toEqual([blog.slug]);
      expect(app.folio.publisher.recentListings()).toEqual([blog.id]);

      // Whether SQLite's write connection is open; PostgreSQL's pool closes idle connections by
      // itself (postgresClient.ts), so on that pass there is nothing of the database's to watch.
      const sqlite = app.folio.sql instanceof SqliteClient ? app.folio.sql : null;
      const expectWriteConnection = (open: boolean) => {
        if (sqlite) expect(sqlite.writing).toBe(open);
      };
      // The checkpointer's thread (db/checkpointer.ts) turns SQLite's own checkpoints off while it
      // runs: 0 pages while it runs, SQLite's 1000 while it rests.
      const checkpointerRuns = compiledScript('db/checkpointWorker') !== null && sqlite !== null;
      const expectCheckpointer = (running: boolean) => {
        if (checkpointerRuns) expect(app.folio.db.pragma('wal_autocheckpoint', { simple: true })).toBe(running ? 0 : 1000);
      };
      // What the rest let go of, as its log line says.
      const rested: { listings?: number; indexStates?: number }[] = [];
      const restLog = createLogger('info', {
        write: (line: string) => {
          const entry = JSON.parse(line) as { msg: string; listings?: number; indexStates?: number };
          if (entry.msg.startsWith('at rest')) rested.push(entry);
        },
      });
      const rest = new Rest({
        activity,
        afterMs: 200,
        warmUp: app.folio.warmUp,
        threads: [app.folio.heavy, app.folio.media],
        database: { rest: () => app.folio.restDatabase() },
        counting: app.folio.analytics,
        collect: collectGarbage,
        logger: restLog,
      });
      // A request in flight (its body not sent yet): nothing is let go, however long it lasts.
      const open = connect((server.address() as AddressInfo).port, '127.0.0.1');
      open.write(`POST /v1/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{`);
      while (activity.quiet().forMs > 0) await sleep(10);
      await sleep(250);
      expect(await rest.check()).toBe(false);
      expect(app.folio.searchCacheStats().blogs).toEqual([blog.slug]);
      open.destroy();
      while (activity.quiet().forMs === 0) await sleep(10);

      await sleep(250);
      // The publish recorded its objects' hashes through the seam's write connection.
      expectWriteConnection(true);
      expectCheckpointer(true);
      expect(await rest.check()).toBe(true);
      expectCheckpointer(false);
      expect(app.folio.searchCacheStats()).toEqual({ bytes: 0, blogs: [] });
      expectWriteConnection(false);
      expect(app.folio.publisher.recentListings()).toEqual([]);
      // The static index's state (it names every post) went with the listing.
      expect(rested).toMatchObject([{ listings: 1, indexStates: 1 }]);
      expect(app.folio.publisher.releaseIndexStates()).toBe(0);
      expect(app.folio.heavy.stats().workers).toBe(0);
      expect(app.folio.media.imageThreadRunning).toBe(false);
      // What was in use stays recorded: the next start warms the same blog.
      const settings = new SettingsRepo(app.folio.sql);
      expect(JSON.parse((await settings.get('search_recent_blogs'))!)).toEqual([blog.slug]);
      expect(JSON.parse((await settings.get('listing_recent_blogs'))!)).toEqual([blog.id]);
      await app.folio.warmUp.remember();
      expect(JSON.parse((await settings.get('search_recent_blogs'))!)).toEqual([blog.slug]);
      // Rested, and no request since: the next check does nothing.
      expect(await rest.check()).toBe(false);

      // The next query loads the index again; the next publish restores the listing.
      expect(await search('words')).toBe(1);
      expect(app.folio.searchCacheStats().blogs).toEqual([blog.slug]);
      await buildPost(blog, { title: 'Second', content: 'More words after the rest.', status: 'published' });
      await app.folio.idle();
      expect(app.folio.publisher.recentListings()).toEqual([blog.id]);
      expectWriteConnection(true);
      expectCheckpointer(true);
      expect(await search('words')).toBe(2);
      // Both index writes read their state again from the store: the reader's index has both posts.
      expect((await staticSearch(app.folio.store, blog.slug, 'words', 0, 10)).total).toBe(2);
      const home = await app.folio.store.get(`${blog.slug}/index.html`);
      expect(home?.body.toString()).toContain('Second');
      expect(home?.body.toString()).toContain('Resting words');
      // The next upload starts the image thread again.
      expect((await upload(49)).status).toBe(201);
      expect(app.folio.media.imageThreadRunning).toBe(imageThreadBuilt);

      // A request since the rest: after the quiet time it rests again.
      await sleep(250);
      expect(await rest.check()).toBe(true);
      expect(app.folio.searchCacheStats().blogs).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    }
  });
});
