import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { BACKUP_PREFIX } from '../../src/backup/backupKeys.js';
import { S3SiteStore } from '../../src/storage/s3SiteStore.js';
import { runCliCaptured, type CliRun } from '../support/runCliCaptured.js';
import { createTestBucket } from '../../bench/harness/s3rver.js';
import { withDataSql } from '../support/dataSql.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';
import { image } from '../support/images.js';

/**
 * Backups and restore (README "Backups and restore"), on real SQLite files (on the PostgreSQL
 * pass a real PostgreSQL, a backup being an SQLite file there too), with the real app writing
 * through HTTP while the snapshot runs, and a server started on the restored data. A restore goes
 * into a new data dir and, on the PostgreSQL pass, an empty database of its own (freshDataEnv).
 */

/** Runs one `folio …` command in this process with this environment, capturing its output. */
const folio = (env: Record<string, string>, ...args: string[]): Promise<CliRun> => runCliCaptured(args, { FOLIO_RATE_LIMITS: 'off', ...env });

const apps: TestApp[] = [];
const dirs: string[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  while (apps.length) await apps.pop()!.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp dir of the test's own, removed after it. */
const freshDir = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `folio-${name}-`));
  dirs.push(dir);
  return dir;
};

interface Written {
  slug: string;
  content: string;
}

/**
 * Creates posts through the API one after another until stopped: what a busy author does while
 * the operator backs up. Records each post once the API answered (it is then committed) and the
 * slowest answer.
 */
function startWriter(t: TestApp, blogId: string): { written: Written[]; slowestMs: () => number; stop: () => Promise<void> } {
  const written: Written[] = [];
  let slowest = 0;
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const content = `Post number ${i}.\n\n${'Words written during a backup. '.repeat(20 + (i % 50))}`;
      const started = performance.now();
      const res = await t.request('POST', '/v1/posts', { blogId, body: { title: `Written ${i}`, content, status: i % 3 === 0 ? 'draft' : 'published' } });
      slowest = Math.max(slowest, performance.now() - started);
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
      written.push({ slug: res.body.slug, content });
    }
  })();
  return {
    written,
    slowestMs: () => slowest,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** A server on the restored data: `env` is the restore's (freshDataEnv: its data dir, and database on PostgreSQL). */
async function expectRestoredServer(env: Record<string, string>, key: string, blogId: string, committed: Written[]): Promise<TestApp> {
  const restored = await startTestApp({ dataDir: env.FOLIO_DATA_DIR, env });
  apps.push(restored);
  for (const post of committed) {
    const res = await restored.request('GET', `/v1/posts/${post.slug}`, { key, blogId });
    expect(res.status, post.slug).toBe(200);
    expect(res.body.content_md).toBe(post.content);
  }
  return restored;
}

describe('folio backup and folio restore', () => {
  it('backs up a server that keeps writing, and a server on the restored dir has every post committed before the backup and every key', async () => {
    const t = await startTestApp();
    apps.push(t);
    const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'busy', name: 'Busy' } })).body.id;
    const blogKey = (await t.request('POST', `/v1/blogs/${blogId}/api-keys`, { body: { name: 'ci' } })).body.key as string;
    expect(blogKey).toMatch(/^pk_/);
    const writer = startWriter(t, blogId);
    while (writer.written.length < 30) await new Promise((resolve) => setTimeout(resolve, 10));

    const committedBefore = writer.written.slice();
    const file = join(freshDir('backup-file'), 'folio.db.gz');
    const run = await folio(t.cliEnv, 'backup', file);
    const during = writer.written.length - committedBefore.length;
    // Keep writing a little after the snapshot, then stop.
    while (writer.written.length < committedBefore.length + during + 5) await new Promise((resolve) => setTimeout(resolve, 10));
    await writer.stop();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Backed up .* \(gzip of [\d.]+ [kM]B\)/);
    // The writer never waited on the backup for long (generous: this VM is shared).
    expect(writer.slowestMs()).toBeLessThan(2_000);

    const target = await freshDataEnv(freshDir('restored'));
    const restore = await folio(target, 'restore', file);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/Restored .*: \d+ accounts, 1 blogs, \d+ posts/);
    expect(restore.stdout).toContain('folio site rebuild --all');

    // One snapshot: at least every post committed before it started, at most every post written.
    const restoredPosts = Number(/(\d+) posts/.exec(restore.stdout)![1]);
    expect(restoredPosts).toBeGreaterThanOrEqual(committedBefore.length);
    expect(restoredPosts).toBeLessThanOrEqual(writer.written.length);
    const restored = await expectRestoredServer(target, t.key, blogId, committedBefore);
    // Posts the writer made while the snapshot ran are whole when present.
    for (const post of writer.written.slice(committedBefore.length)) {
      const res = await restored.request('GET', `/v1/posts/${post.slug}`, { key: t.key, blogId });
      if (res.status === 200) expect(res.body.content_md).toBe(post.content);
      else expect(res.status).toBe(404);
    }
    // The blog-bound key authenticates on the restored server; a made-up one does not.
    const withBlogKey = await restored.request('GET', '/v1/posts', { key: blogKey, blogId });
    expect(withBlogKey.status, withBlogKey.text).toBe(200);
    expect((await restored.request('GET', '/v1/posts', { key: `${blogKey.slice(0, -2)}xx`, blogId })).status).toBe(401);
  }, 60_000);

  it('the server’s scheduled backup goes to the store under _backups/, keeps FOLIO_BACKUP_KEEP, and restores from its key', async () => {
    const { client, bucket } = await createTestBucket(inject('s3Endpoint'));
    const store = new S3SiteStore({ client, bucket });
    const s3Env = {
      FOLIO_STORAGE: 's3',
      FOLIO_S3_BUCKET: bucket,
      FOLIO_S3_ENDPOINT: inject('s3Endpoint'),
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const t = await startTestApp({ store, env: { ...s3Env, FOLIO_BACKUP_KEEP: '2' } });
    apps.push(t);
    const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'stored', name: 'Stored' } })).body.id;
    const uploaded = await t.request('POST', '/v1/media', { blogId, raw: await image('png', 500, 300), headers: { 'content-type': 'image/png' } });
    expect(uploaded.status, uploaded.text).toBe(201);
    const imageObjects = (await store.list('stored/media/')).length;
    const writer = startWriter(t, blogId);
    while (writer.written.length < 10) await new Promise((resolve) => setTimeout(resolve, 10));
    const committedBefore = writer.written.slice();
    const first = await t.folio.backups.toStore();
    await writer.stop();
    expect(first.key).toMatch(/^_backups\/folio-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z\.db\.gz$/);
    const object = await store.get(first.key);
    expect(object?.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(object?.cacheControl).toBe('private, no-store');
    // The images stay in the bucket, beside the backups: recorded, not copied.
    expect(first.media).toMatchObject({ copiedToBackup: false, objects: imageObjects, copied: 0, store: `s3://${bucket}` });

    t.clock.advance(60_000);
    const second = await t.folio.backups.toStore();
    t.clock.advance(60_000);
    const third = await t.folio.backups.toStore();
    expect(third.removed).toEqual([first.key]);
    expect((await store.list(BACKUP_PREFIX)).sort()).toEqual([second.key, third.key]);
    // Never served: no blog's address reaches _backups/.
    expect((await visit(t.baseUrl, 'stored.localhost:3000', `/${third.key}`)).status).toBe(404);
    expect((await visit(t.baseUrl, 'stored.localhost:3000', `/../${third.key}`)).status).toBe(404);

    // The VM is gone: a new data dir, the same bucket. The SDK reads credentials from the process environment.
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'S3RVER');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'S3RVER');
    // What is there, where, when, how large: newest first.
    const listed = await folio({ ...s3Env, ...(await freshDataEnv(freshDir('lister'))) }, 'backup', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toBe(`2 backups in s3://${bucket}, newest first (restore one with: folio restore <key>):`);
    for (const [i, result] of [third, second].entries()) {
      const at = /folio-(.*)\.db\.gz$/.exec(result.key)![1]!.replace(/T(\d{2})-(\d{2})-(\d{2})/, 'T$1:$2:$3');
      expect(lines[i + 1]).toBe(
        `${result.key}  ${at}  ${(result.bytes < 1e6 ? `${(result.bytes / 1e3).toFixed(1)} kB` : `${(result.bytes / 1e6).toFixed(1)} MB`).padStart(10)}`,
      );
    }
    const asJson = await folio({ ...s3Env, ...(await freshDataEnv(freshDir('lister'))) }, 'backup', 'list', '--json');
    expect(JSON.parse(asJson.stdout)).toEqual({
      store: `s3://${bucket}`,
      backups: [third, second].map((r) => ({ key: r.key, taken_at: expect.stringMatching(/^\d{4}-.*Z$/), bytes: r.bytes })),
    });

    const target = await freshDataEnv(freshDir('restored-from-store'));
    const restore = await folio({ ...s3Env, ...target }, 'restore', third.key);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stderr).toContain(
      `images are not in this backup (the backup left them in s3://${bucket}); checked that s3://${bucket} has all ${imageObjects} objects`,
    );
    await expectRestoredServer(target, t.key, blogId, committedBefore);
    const missing = await folio({ ...s3Env, ...(await freshDataEnv(freshDir('nothing'))) }, 'restore', '_backups/folio-2000-01-01T00-00-00.000Z.db.gz');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^folio: no backup _backups\/folio-2000.* in the site store/);
  }, 60_000);

  it('restore refuses a data dir (on PostgreSQL a database) that is not empty, and files that are not Folio backups', async () => {
    const t = await startTestApp();
    apps.push(t);
    const file = join(freshDir('backup'), 'plain.db');
    expect((await folio(t.cliEnv, 'backup', file)).code).toBe(0);
    // A directory that is not there: named, not SQLite's "unable to open database" about a hidden partial file.
    const nowhere = await folio(t.cliEnv, 'backup', '/no/such/dir/x.db');
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toBe('folio: directory /no/such/dir does not exist\n');
    // A second backup never overwrites the first.
    const again = await folio(t.cliEnv, 'backup', file);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists/);

    // Different by design: on SQLite the database is the data dir's file, so a data dir with one is
    // refused; on PostgreSQL the database must hold no Folio rows. Each is left as it was.
    const postgres = t.cliEnv.FOLIO_DATABASE_URL !== undefined;
    const rows = (): Promise<number[]> =>
      withDataSql(t.cliEnv, (sql) =>
        Promise.all(
          ['accounts', 'api_keys', 'blogs'].map(async (table) => Number((await sql.get<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`))!.n)),
        ),
      );
    const before = postgres ? await rows() : readFileSync(join(t.dataDir, 'folio.db'));
    const refused = await folio(t.cliEnv, 'restore', file);
    expect(refused.code).toBe(2);
    if (postgres) {
      expect(refused.stderr).toMatch(/^folio: the target database already holds Folio data \(its \w+ table has rows\).*\(restore into a new database\)\n$/);
      expect(await rows()).toEqual(before);
    } else {
      expect(refused.stderr).toMatch(/^folio: .* is not empty \(.*folio\.db.*\); restore only into an empty data dir/);
      expect(readFileSync(join(t.dataDir, 'folio.db')).equals(before as Buffer)).toBe(true);
    }

    const junk = join(freshDir('junk'), 'junk.db');
    writeFileSync(junk, 'not a database at all');
    const truncated = join(freshDir('junk'), 'cut.db.gz');
    const whole = gzipSync(readFileSync(file));
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
    const foreign = join(freshDir('junk'), 'other.db');
    const Database = (await import('better-sqlite3')).default;
    const other = new Database(foreign);
    other.exec('CREATE TABLE notes (x TEXT)');
    other.close();
    for (const [path, why] of [
      [junk, /not a Folio backup/],
      [truncated, /not a complete gzip file/],
      [foreign, /not a Folio database/],
    ] as const) {
      const target = await freshDataEnv(freshDir('target'));
      const run = await folio(target, 'restore', path);
      expect(run.code, path).toBe(2);
      expect(run.stderr).toMatch(why);
      expect(existsSync(join(target.FOLIO_DATA_DIR!, 'folio.db'))).toBe(false);
      // On PostgreSQL the restore's database is as empty as it was (it may have Folio's tables now, no rows).
      if (postgres) expect(await withDataSql(target, (sql) => sql.get('SELECT id FROM accounts LIMIT 1'))).toBeUndefined();
    }
  });

  it('site rebuild --all re-creates every blog’s pages and search index from the database', async () => {
    const t = await startTestApp();
    apps.push(t);
    for (const slug of ['one', 'two']) {
      const blogId = (await t.request('POST', '/v1/blogs', { body: { slug, name: slug } })).body.id;
      await t.request('POST', '/v1/posts', { blogId, body: { title: `Hello from ${slug}`, content: 'x', status: 'published' } });
    }
    await t.folio.idle();
    // The store is lost (a restore onto a new VM with the folder store).
    rmSync(join(t.dataDir, 'public'), { recursive: true, force: true });
    mkdirSync(join(t.dataDir, 'public'));
    expect((await t.folio.store.list('one/')).length).toBe(0);

    const run = await folio(t.cliEnv, 'site', 'rebuild', '--all');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Rebuilt 2 blogs: \d+ objects written/);
    for (const slug of ['one', 'two']) {
      const blog = (await t.folio.repos.blogs.findBySlug(slug))!;
      expect(await t.folio.publisher.verify(blog)).toMatchObject({ missing: [], different: [], extra: [] });
      expect((await visit(t.baseUrl, `${slug}.localhost:3000`, `/hello-from-${slug}`)).status).toBe(200);
      expect((await t.folio.store.list(`${slug}/_search/`)).length).toBeGreaterThan(0);
    }
  });
});

/** Every page of the blog in the store, as the path a reader asks for (`a/b/index.html` → `/a/b/`). */
async function pagesOf(t: TestApp, slug: string): Promise<string[]> {
  const keys = (await t.folio.store.list(`${slug}/`)).filter((key) => key.endsWith('index.html'));
  return keys.map((key) => encodeURI(`/${key.slice(slug.length + 1, -'index.html'.length)}`));
}

/** The `/media/…` paths a page names (src, srcset, og:image), whatever host they are written with. */
const mediaPathsIn = (html: string): string[] => [...new Set([...html.matchAll(/\/media\/[0-9a-f]{20}-[0-9x]+(?:-[0-9a-z]+)?\.[a-z]+/g)].map((m) => m[0]))];

describe('a backup holds the uploaded images', () => {
  it('backup → restore into a new data dir → rebuild: every page and every image it names answers 200; verify notices a lost image', async () => {
    const t = await startTestApp();
    apps.push(t);
    const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'photos', name: 'Photos' } })).body.id;
    const uploads = [];
    for (const [format, width, height] of [
      ['png', 2000, 1000],
      ['jpeg', 800, 600],
      ['webp', 300, 200],
    ] as const) {
      const res = await t.request('POST', '/v1/media', { blogId, raw: await image(format, width, height), headers: { 'content-type': `image/${format}` } });
      expect(res.status, res.text).toBe(201);
      uploads.push(res.body as { url: string });
    }
    for (const [i, upload] of uploads.entries()) {
      const content = `A picture.\n\n![photo ${i}](${upload.url})\n\nThe end.`;
      const res = await t.request('POST', '/v1/posts', {
        blogId,
        body: { title: `Photo ${i}`, content, tags: ['photos'], status: 'published', meta: { og_image: upload.url } },
      });
      expect(res.status, res.text).toBe(201);
    }
    await t.folio.idle();
    const mediaKeys = await t.folio.store.list('photos/media/');
    expect(mediaKeys.length).toBeGreaterThan(20);

    const file = join(freshDir('backup-media'), 'folio.db.gz');
    const backup = await folio(t.cliEnv, 'backup', file);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`Images: ${mediaKeys.length} objects`);

    // A new machine: an empty data dir, the folder store in it.
    const target = await freshDataEnv(freshDir('restored-media'));
    const restore = await folio(target, 'restore', file);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toContain(`Images: ${mediaKeys.length} objects put into folder ${join(target.FOLIO_DATA_DIR!, 'public')}`);
    const restored = await startTestApp({ dataDir: target.FOLIO_DATA_DIR, env: target });
    apps.push(restored);
    const rebuild = await folio(target, 'site', 'rebuild', '--all');
    expect(rebuild.code, rebuild.stderr).toBe(0);

    const pages = await pagesOf(restored, 'photos');
    expect(pages).toEqual(expect.arrayContaining(['/', '/photo-0/', '/photo-1/', '/photo-2/', '/tags/photos/']));
    const named = new Set<string>();
    for (const path of [...pages, '/rss.xml']) {
      const page = await visit(restored.baseUrl, 'photos.localhost:3000', path);
      expect(page.status, path).toBe(200);
      for (const media of mediaPathsIn(page.text)) named.add(media);
    }
    // Each post's <picture> names its variants, its og:image the crop: originals too (the feed).
    expect(named.size).toBeGreaterThan(uploads.length * 3);
    for (const upload of uploads) named.add(new URL(upload.url).pathname);
    for (const path of named) {
      const res = await visit(restored.baseUrl, 'photos.localhost:3000', path);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type'], path).toMatch(/^image\//);
    }
    expect((await restored.folio.store.list('photos/media/')).sort()).toEqual(mediaKeys.sort());

    const clean = await folio(target, 'site', 'verify', 'photos');
    expect(clean.code, clean.stdout).toBe(0);
    expect(clean.stdout).toContain('the store matches the database');

    // One image's variant is lost from the store: verify names it.
    const lost = mediaKeys.find((key) => key.endsWith('-480.webp'))!;
    await restored.folio.store.delete(lost);
    const dirty = await folio(target, 'site', 'verify', 'photos');
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toContain(`missing    ${lost}`);
    expect(dirty.stdout).toMatch(/1 of the missing objects are uploaded images/);
  }, 120_000);

  it('a backup without the images says so, and restore checks the store for them', async () => {
    const t = await startTestApp();
    apps.push(t);
    const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'bare', name: 'Bare' } })).body.id;
    const res = await t.request('POST', '/v1/media', { blogId, raw: await image('png', 400, 300), headers: { 'content-type': 'image/png' } });
    expect(res.status, res.text).toBe(201);
    const objects = (await t.folio.store.list('bare/media/')).length;

    const file = join(freshDir('backup-bare'), 'folio.db');
    const backup = await folio(t.cliEnv, 'backup', file, '--no-media');
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toMatch(/images NOT in this backup/);

    // Restored where the images are not: the database is there, the missing images are named, exit 1.
    const target = await freshDataEnv(freshDir('restored-bare'));
    const restore = await folio(target, 'restore', file);
    expect(restore.code).toBe(1);
    // The database is restored: SQLite's file in the data dir, or the rows in PostgreSQL's.
    if (target.FOLIO_DATABASE_URL === undefined) expect(existsSync(join(target.FOLIO_DATA_DIR!, 'folio.db'))).toBe(true);
    expect(await withDataSql(target, (sql) => sql.get('SELECT slug FROM blogs'))).toEqual({ slug: 'bare' });
    expect(restore.stderr).toMatch(/images are not in this backup \(the backup left them in folder .*\)/);
    expect(restore.stderr).toContain(`${objects} of ${objects} image objects it names are missing`);
    // The check's line says what it found: not "has all" before naming every object missing.
    expect(restore.stderr).toContain(`checked folder ${join(target.FOLIO_DATA_DIR!, 'public')} for the ${objects} objects the database names`);
    expect(restore.stderr).not.toContain('has all');
    expect(restore.stderr).toMatch(/bare\/media\/[0-9a-f]{20}-400x300\.png/);

    // Restored beside a store that has them (the same folder store copied over): no complaint.
    const beside = freshDir('restored-beside');
    const { cpSync } = await import('node:fs');
    cpSync(join(t.dataDir, 'public'), join(beside, 'public'), { recursive: true });
    const again = await folio(await freshDataEnv(beside), 'restore', file);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`checked that folder ${join(beside, 'public')} has all ${objects} objects`);
  }, 60_000);
});

describe('FOLIO_BACKUP_INTERVAL and FOLIO_BACKUP_KEEP', () => {
  it('accepts durations that divide an hour or a day, and cron expressions; rejects the rest with the variable named', () => {
    const base = { FOLIO_DATA_DIR: '/tmp/x' };
    expect(loadConfig(base).backupSchedule).toBeNull();
    expect(loadConfig({ ...base, FOLIO_BACKUP_INTERVAL: '1h' }).backupSchedule).toEqual({ cron: '0 0 */1 * * *', label: '1h' });
    expect(loadConfig({ ...base, FOLIO_BACKUP_INTERVAL: '15m' }).backupSchedule?.cron).toBe('0 */15 * * * *');
    expect(loadConfig({ ...base, FOLIO_BACKUP_INTERVAL: '1d' }).backupSchedule?.cron).toBe('0 0 0 * * *');
    expect(loadConfig({ ...base, FOLIO_BACKUP_INTERVAL: '30 3 * * *' }).backupSchedule?.cron).toBe('0 30 3 * * *');
    expect(loadConfig({ ...base, FOLIO_BACKUP_KEEP: '5' }).backupKeep).toBe(5);
    expect(loadConfig(base).backupKeep).toBe(24);
    for (const bad of ['90m', '5h', '2d', 'hourly', '1 h x', '0']) {
      expect(() => loadConfig({ ...base, FOLIO_BACKUP_INTERVAL: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, FOLIO_BACKUP_INTERVAL: bad }), bad).toThrow(/FOLIO_BACKUP_INTERVAL/);
    }
    expect(() => loadConfig({ ...base, FOLIO_BACKUP_KEEP: '0' })).toThrow(/FOLIO_BACKUP_KEEP/);
  });
});
