/**
 * Issue 27 item A3: moving an install to S3 silently took every blog offline. A data dir
 * restarted with FOLIO_STORAGE=s3 answered 404 for every page with nothing in the log, and
 * `folio site rebuild --all` without the S3 variables quietly rebuilt into the local folder.
 * Now the server records the store it publishes to; a server or command whose environment names
 * another store refuses with one line naming `folio site migrate-store`, and the README's
 * procedure (stop, migrate-store, start with the S3 settings) brings every page and image back,
 * served from the bucket. Real processes throughout: the bundled server, the `folio` command and
 * s3rver.
 */
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverHandle, createTestS3Client } from '../../bench/harness/s3rver.js';
import { visit } from '../../bench/harness/visit.js';
import { withDataSql } from '../support/dataSql.js';
import { freshDatabaseEnv } from '../support/freshDatabase.js';
import { image } from '../support/images.js';
import { FOLIO_BIN as BIN, MAIN_JS, runToEnd, spawnServer, type SpawnedServer } from '../support/spawnedServer.js';

const BUCKET = 'folio-moved';

async function stop(server: SpawnedServer): Promise<void> {
  server.child.kill('SIGTERM');
  const { code } = await server.exited;
  expect(code).toBe(0);
}

describe('moving a folder-store install to S3 (item A3)', () => {
  let s3: S3rverHandle;
  let dataDir: string;
  let s3Env: Record<string, string>;
  let base: Record<string, string>;
  const pages: { host: string; path: string }[] = [];
  const servers: SpawnedServer[] = [];
  let apiKey = '';

  beforeAll(async () => {
    expect(existsSync(MAIN_JS), 'run `npx tsc -p . && npm run bundle` first').toBe(true);
    s3 = await startS3rver({ buckets: [BUCKET] });
    dataDir = mkdtempSync(join(tmpdir(), 'folio-move-'));
    // The data dir, and on the PostgreSQL pass a database of its own: every server and command below shares both.
    base = {
      FOLIO_DATA_DIR: dataDir,
      ...(await freshDatabaseEnv()),
      FOLIO_SERVICE_DOMAIN: 'blogs.test',
      FOLIO_PUBLIC_SCHEME: 'http',
      FOLIO_RATE_LIMITS: 'off',
      FOLIO_SOCIAL_CARDS: 'off',
    };
    s3Env = { FOLIO_STORAGE: 's3', FOLIO_S3_BUCKET: BUCKET, FOLIO_S3_ENDPOINT: s3.endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
  });

  afterAll(async () => {
    for (const server of servers) await server.cleanup();
    await s3?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes two blogs with posts and an image on the folder store', async () => {
    // Stopped by hand, not by cleanup() (which removes the data dir). A data dir passed in is taken for a restart, so the banner is read here.
    const server = await spawnServer(base);
    apiKey = /API key: (\S+)/.exec((await server.waitForLine((line) => line.text.includes('API key: '), 5_000)).text)![1]!;
    const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body instanceof Buffer ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: body instanceof Buffer ? body : JSON.stringify(body) }),
      });
      const json = await res.json();
      expect(res.status, JSON.stringify(json)).toBeLessThan(300);
      return json;
    };
    for (const slug of ['heron', 'egret']) {
      const blog = await api('POST', '/v1/blogs', { slug, name: `The ${slug}` });
      const media = await api('POST', '/v1/media', await image('png', 64, 48), { 'content-type': 'image/png', 'x-blog-id': blog.id });
      for (const n of [1, 2]) {
        const post = await api(
          'POST',
          '/v1/posts',
          { title: `${slug} post ${n}`, content: `Words about ${slug}s.\n\n![a bird](${media.url})`, status: 'published', tags: ['birds'] },
          { 'x-blog-id': blog.id },
        );
        pages.push({ host: `${slug}.blogs.test`, path: new URL(post.url).pathname });
      }
      const host = `${slug}.blogs.test`;
      pages.push(
        { host, path: '/' },
        { host, path: '/rss.xml' },
        { host, path: '/tags/birds/' },
        { host, path: '/sitemap.xml' },
        { host, path: new URL(media.url).pathname },
      );
    }
    // Publishing runs in the background: wait until every page answers.
    for (const page of pages) {
      for (let i = 0; ; i++) {
        const res = await visit(server.baseUrl, page.host, page.path);
        if (res.status === 200) break;
        if (i > 200) throw new Error(`${page.host}${page.path} answers ${res.status}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    await stop(server);
  });

  it('a restart with FOLIO_STORAGE=s3 refuses with one line naming the migration, instead of serving 404', async () => {
    const refused = await runToEnd([MAIN_JS], { ...base, ...s3Env, PORT: '0' });
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^folio: this data dir publishes to the folder store .*\/public \(recorded in the database\), but FOLIO_STORAGE=s3 names S3 bucket "folio-moved" at http:\/\/127\.0\.0\.1:\d+.*folio site migrate-store/,
    );
    expect(refused.stdout).toContain('"level":60');
    expect(refused.stdout).not.toContain('folio listening');
  });

  it('the documented move: migrate-store with the S3 settings, then start with them; every page and image answers 200 from the bucket', async () => {
    const migrated = await runToEnd([BIN, 'site', 'migrate-store'], { ...base, ...s3Env });
    expect(migrated.stderr.split('\n').filter((l) => l && !l.startsWith('copying ['))).toEqual([]);
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(
      /^Copied \d+ objects \([\d.]+ MB\) from the folder store .* to S3 bucket "folio-moved" at http:\/\/127\.0\.0\.1:\d+ in [\d.]+ s\.\n/,
    );

    // The folder store moved away: whatever answers now comes from the bucket.
    renameSync(join(dataDir, 'public'), join(dataDir, 'public.old'));
    const server = await spawnServer({ ...base, ...s3Env });
    servers.push(server);
    for (const page of pages) {
      const res = await visit(server.baseUrl, page.host, page.path);
      expect(res.status, `${page.host}${page.path}`).toBe(200);
    }
    const client = await createTestS3Client(s3.endpoint);
    const { GetObjectCommand } = await import('@aws-sdk/client-s3');
    const home = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'heron/index.html' }));
    expect(await home.Body!.transformToString()).toContain('heron post 2');

    // Publishing goes on into the bucket after the move.
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const blogs = (await (await fetch(`${server.baseUrl}/v1/blogs`, { headers: auth })).json()) as { data: { id: string; slug: string }[] };
    const heron = blogs.data.find((blog) => blog.slug === 'heron')!;
    const created = await fetch(`${server.baseUrl}/v1/posts`, {
      method: 'POST',
      headers: { ...auth, 'x-blog-id': heron.id },
      body: JSON.stringify({ title: 'After the move', content: 'In the bucket.', status: 'published' }),
    });
    expect(created.status).toBe(201);
    for (let i = 0; ; i++) {
      const res = await visit(server.baseUrl, 'heron.blogs.test', '/after-the-move');
      if (res.status === 200) break;
      if (i > 200) throw new Error(`the new post answers ${res.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(existsSync(join(dataDir, 'public'))).toBe(false);
    await stop(server);
  });

  it('`folio site rebuild --all` without the S3 variables refuses and writes nothing into the folder', async () => {
    const rebuild = await runToEnd([BIN, 'site', 'rebuild', '--all'], base);
    expect(rebuild.code).toBe(2);
    expect(rebuild.stderr).toMatch(
      /^folio: this data dir publishes to S3 bucket "folio-moved" at http:\/\/127\.0\.0\.1:\d+ \(recorded by the server\), but this command's environment names the folder store .*folio site migrate-store[^\n]*\n$/,
    );
    expect(existsSync(join(dataDir, 'public'))).toBe(false);

    // With the server's settings it runs, into the bucket.
    const withS3 = await runToEnd([BIN, 'site', 'rebuild', '--all'], { ...base, ...s3Env });
    expect(withS3.code, withS3.stderr).toBe(0);
    expect(withS3.stdout).toMatch(/^Rebuilt 2 blogs/);
    expect(existsSync(join(dataDir, 'public'))).toBe(false);
  });

  it('a data dir of an earlier release (no store recorded) started with FOLIO_STORAGE=s3 while its pages are in the folder is refused too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-move-old-'));
    try {
      const data = { FOLIO_DATA_DIR: dir, ...(await freshDatabaseEnv()) };
      const first = await spawnServer({ ...base, ...data });
      const key = /API key: (\S+)/.exec((await first.waitForLine((line) => line.text.includes('API key: '), 5_000)).text)![1]!;
      const res = await fetch(`${first.baseUrl}/v1/blogs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: 'old', name: 'Old' }),
      });
      expect(res.status).toBe(201);
      for (let i = 0; (await visit(first.baseUrl, 'old.blogs.test', '/')).status !== 200; i++) {
        if (i > 200) throw new Error('the new blog never answered');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      first.child.kill('SIGTERM');
      await first.exited;
      await withDataSql(data, (sql) => sql.run("DELETE FROM settings WHERE key = 'site_store'"));
      const refused = await runToEnd([MAIN_JS], { ...base, ...s3Env, ...data, PORT: '0' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^folio: this data dir publishes to the folder store .* \(its pages are there\).*folio site migrate-store[^\n]*\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
