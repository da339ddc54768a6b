/**
 * Defects an operator QA pass found around the recorded site store (after issue 27): commands
 * that ran beside a live server or on the wrong store, a store recorded without the images, a
 * verify that did not look inside image objects, and a re-render after a restore that left the
 * stylesheet out. Real processes (the bundled server, the `folio` command), real SQLite (a real
 * PostgreSQL on the PostgreSQL pass), s3rver.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { createTestBucket } from '../../bench/harness/s3rver.js';
import { visit } from '../../bench/harness/visit.js';
import { openDataSql, withDataSql } from '../support/dataSql.js';
import { freshDatabaseEnv } from '../support/freshDatabase.js';
import { image } from '../support/images.js';
import { MAIN_JS, spawnServer, type SpawnedServer } from '../support/spawnedServer.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The `folio` command run to its end in its own process; Node's own warnings are left on (the SDK's is one). */
function folio(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FOLIO_RATE_LIMITS: 'off', FOLIO_SOCIAL_CARDS: 'off', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await probe();
    if (value) return value;
    if (i > 400) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function api(server: SpawnedServer, key: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body instanceof Buffer ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: body instanceof Buffer ? new Uint8Array(body) : JSON.stringify(body) }),
    });
    const json = await res.json();
    expect(res.status, JSON.stringify(json)).toBeLessThan(300);
    return json;
  };
}

/** The store the data of `env` (its data dir, and its database on PostgreSQL) records. */
const recordedStore = (env: Record<string, string>): Promise<{ kind: string; bucket?: string }> =>
  withDataSql(env, async (sql) => JSON.parse((await sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'site_store'"))!.value));

/** A pid no process has: a child that already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('the recorded store guards commands and a running server', () => {
  const dirs: string[] = [];
  const servers: SpawnedServer[] = [];
  let dataDir: string;
  const settings = { FOLIO_SERVICE_DOMAIN: 'blogs.test', FOLIO_PUBLIC_SCHEME: 'http', FOLIO_RATE_LIMITS: 'off', FOLIO_SOCIAL_CARDS: 'off' };
  /** The data dir, its database on the PostgreSQL pass, and the settings. */
  let base: Record<string, string>;
  let s3Env: Record<string, string>;
  let bucket: string;
  let key = '';
  let blogId = '';
  let imageObjects = 0;

  beforeAll(async () => {
    expect(existsSync(MAIN_JS), 'run `npx tsc -p . && npm run bundle` first').toBe(true);
    dataDir = mkdtempSync(join(tmpdir(), 'folio-guards-'));
    dirs.push(dataDir);
    base = { FOLIO_DATA_DIR: dataDir, ...(await freshDatabaseEnv()), ...settings };
    bucket = (await createTestBucket(inject('s3Endpoint'))).bucket;
    s3Env = {
      FOLIO_STORAGE: 's3',
      FOLIO_S3_BUCKET: bucket,
      FOLIO_S3_ENDPOINT: inject('s3Endpoint'),
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    };
  });

  afterAll(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('D1: migrate-store refuses while a server runs on the data dir; a server whose store was moved under it publishes and uploads nothing into the old one', async () => {
    const server = await spawnServer(base);
    servers.push(server);
    key = /API key: (\S+)/.exec((await server.waitForLine((line) => line.text.includes('API key: '), 5_000)).text)![1]!;
    const call = api(server, key);
    blogId = (await call('POST', '/v1/blogs', { slug: 'wren', name: 'Wren' })).id;
    const media = await call('POST', '/v1/media', await image('png', 640, 400), { 'content-type': 'image/png', 'x-blog-id': blogId });
    await call('POST', '/v1/posts', { title: 'First', content: `![a wren](${media.url})`, status: 'published' }, { 'x-blog-id': blogId });
    await until('the post page', async () => (await visit(server.baseUrl, 'wren.blogs.test', '/first/')).status === 200);
    imageObjects = readdirSync(join(dataDir, 'public', 'wren', 'media')).filter((name) => !name.startsWith('.')).length;

    const refused = await folio(['site', 'migrate-store'], { ...base, ...s3Env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `folio: a Folio server (pid ${server.child.pid}) is running on ${dataDir}; stop the server first, then run site migrate-store again\n`,
    );
    expect(await recordedStore(base)).toEqual({ kind: 'fs' });

    // The store moved anyway (a migrate-store of an earlier release): the server notices on its tick.
    const { sql, close } = await openDataSql(base);
    onTestFinished(close);
    await sql.run("UPDATE settings SET value = ? WHERE key = 'site_store'", [
      JSON.stringify({ kind: 's3', bucket, endpoint: inject('s3Endpoint'), region: 'us-east-1', forcePathStyle: true }),
    ]);
    const moved = await until('the error line', async () =>
      server.lines.find((line) => line.json?.level === 50 && String(line.json.msg).includes('this server publishes to the folder store')),
    );
    expect(String(moved.json!.msg)).toMatch(
      /^this data dir now publishes to S3 bucket ".*" at http:\/\/.*, but this server publishes to the folder store .*: it publishes nothing/,
    );
    await call('POST', '/v1/posts', { title: 'After the move', content: 'Lost?', status: 'published' }, { 'x-blog-id': blogId });
    const failed = await until(
      'the failed job',
      async () =>
        await sql.get<{ status: string; last_error: string }>(
          'SELECT status, last_error FROM publish_jobs WHERE last_error IS NOT NULL ORDER BY id DESC LIMIT 1',
        ),
    );
    expect(failed.status).toBe('pending');
    expect(failed.last_error).toMatch(/this data dir now publishes to S3 bucket/);
    expect(existsSync(join(dataDir, 'public', 'wren', 'after-the-move'))).toBe(false);
    // An upload is refused too: its objects would land in the old store, named by a row.
    const mediaRows = (await sql.get<{ n: number }>('SELECT count(*) AS n FROM media'))!.n;
    const upload = await fetch(`${server.baseUrl}/v1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png', 'x-blog-id': blogId },
      body: new Uint8Array(await image('png', 320, 200)),
    });
    const refusedUpload = (await upload.json()) as { error: string; message: string };
    expect(upload.status, JSON.stringify(refusedUpload)).toBe(503);
    expect(upload.headers.get('retry-after')).toBe('60');
    expect(refusedUpload.error).toBe('service_unavailable');
    expect(refusedUpload.message).toMatch(/^the image was not stored: this data dir now publishes to S3 bucket/);
    expect((await sql.get<{ n: number }>('SELECT count(*) AS n FROM media'))!.n).toBe(mediaRows);
    expect(readdirSync(join(dataDir, 'public', 'wren', 'media')).filter((name) => !name.startsWith('.'))).toHaveLength(imageObjects);
    // Logged once, not at every tick.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(server.lines.filter((line) => line.json?.level === 50 && String(line.json.msg).includes('this server publishes to the folder store'))).toHaveLength(
      1,
    );
    await sql.run("UPDATE settings SET value = ? WHERE key = 'site_store'", [JSON.stringify({ kind: 'fs' })]);
    await close();

    // A clean stop removes the pid file; one a killed server left (a dead pid) blocks nothing.
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    expect(existsSync(join(dataDir, 'server.pid'))).toBe(false);
    writeFileSync(join(dataDir, 'server.pid'), `${await deadPid()}\n`);
    const migrated = await folio(['site', 'migrate-store'], { ...base, ...s3Env });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(await recordedStore(base)).toMatchObject({ kind: 's3', bucket });
  }, 90_000);

  it('D2: backup and backup list refuse an environment that names another store than the recorded one', async () => {
    const file = join(dataDir, '..', `${bucket}.db`);
    const backup = await folio(['backup', file], base);
    expect(backup.code).toBe(2);
    expect(backup.stderr).toMatch(
      /^folio: this data dir publishes to S3 bucket ".*" at http:\/\/\S+ \(recorded by the server\), but this command's environment names the folder store .*folio site migrate-store[^\n]*\n$/,
    );
    expect(existsSync(file)).toBe(false);
    const list = await folio(['backup', 'list'], base);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/^folio: this data dir publishes to S3 bucket .*\n$/);
    expect(list.stdout).toBe('');

    // With the recorded store's settings it lists; on Node 20 without the SDK's eight-line warning above.
    const listed = await folio(['backup', 'list'], { ...base, ...s3Env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^No backups under _backups\//);
    expect(listed.stderr).toBe('');
  }, 60_000);

  it('D3: migrate-store --no-copy to a store without the images records it, names the missing ones and exits 1', async () => {
    const empty = (await createTestBucket(inject('s3Endpoint'))).bucket;
    const run = await folio(['site', 'migrate-store', '--no-copy'], { ...base, ...s3Env, FOLIO_S3_BUCKET: empty });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(`now publishes to S3 bucket "${empty}"`);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^folio: S3 bucket "${empty}" .* is recorded, but ${imageObjects} of the ${imageObjects} image objects the database names are missing from it; .*wren/media/[0-9a-f]{20}-640x400\\.png`,
      ),
    );
    expect(await recordedStore(base)).toMatchObject({ kind: 's3', bucket: empty });
  }, 60_000);
});

describe('site verify looks inside image objects, and says what it found', () => {
  let server: SpawnedServer;
  afterAll(async () => server?.cleanup());

  it('D4/D7: an overwritten og image is "different", an empty variant too, a deleted one "missing", counted apart', async () => {
    server = await spawnServer({ FOLIO_SERVICE_DOMAIN: 'blogs.test', FOLIO_RATE_LIMITS: 'off', ...(await freshDatabaseEnv()) });
    const call = api(server, server.apiKey);
    const blogId = (await call('POST', '/v1/blogs', { slug: 'kite', name: 'Kite' })).id;
    const media = await call('POST', '/v1/media', await image('jpeg', 900, 600), { 'content-type': 'image/jpeg', 'x-blog-id': blogId });
    await call('POST', '/v1/posts', { title: 'Sky', content: `![kite](${media.url})`, status: 'published' }, { 'x-blog-id': blogId });
    await until('the post page', async () => (await visit(server.baseUrl, 'kite.blogs.test', '/sky/')).status === 200);
    const env = { ...server.cliEnv, FOLIO_SERVICE_DOMAIN: 'blogs.test' };
    const clean = await folio(['site', 'verify', 'kite'], env);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);

    const folder = join(server.dataDir, 'public', 'kite', 'media');
    const names = readdirSync(folder).filter((name) => !name.startsWith('.'));
    const og = names.find((name) => name.endsWith('-og.jpg'))!;
    const webp = names.find((name) => name.endsWith('-480.webp'))!;
    const avif = names.find((name) => name.endsWith('-480.avif'))!;
    writeFileSync(join(folder, og), '<html>not an image</html>');
    writeFileSync(join(folder, webp), '');
    rmSync(join(folder, avif));
    const dirty = await folio(['site', 'verify', 'kite'], env);
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toMatch(/^Checked \d+ objects of kite: 1 missing, 2 different, 0 extra\.\n/);
    expect(dirty.stdout).toContain(`missing    kite/media/${avif}\n`);
    expect(dirty.stdout).toContain(`different  kite/media/${og}\n`);
    expect(dirty.stdout).toContain(`different  kite/media/${webp}\n`);
  }, 90_000);
});

describe('a restore started with a new public domain', () => {
  const dirs: string[] = [];
  const servers: SpawnedServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.cleanup();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('D6: the urls_changed re-render writes the stylesheet and the search script too, not only the pages', async () => {
    const source = await spawnServer({
      FOLIO_SERVICE_DOMAIN: 'old.test',
      FOLIO_PUBLIC_SCHEME: 'http',
      FOLIO_RATE_LIMITS: 'off',
      ...(await freshDatabaseEnv()),
    });
    servers.push(source);
    const call = api(source, source.apiKey);
    const blogId = (await call('POST', '/v1/blogs', { slug: 'tern', name: 'Tern' })).id;
    await call('POST', '/v1/posts', { title: 'Shore', content: 'Terns on the shore.', status: 'published' }, { 'x-blog-id': blogId });
    await until('the post page', async () => (await visit(source.baseUrl, 'tern.old.test', '/shore/')).status === 200);
    source.child.kill('SIGTERM');
    await source.exited;

    const file = join(mkdtempSync(join(tmpdir(), 'folio-d6-backup-')), 'folio.db.gz');
    dirs.push(join(file, '..'));
    const backup = await folio(['backup', file], source.cliEnv);
    expect(backup.code, backup.stderr).toBe(0);
    const target = mkdtempSync(join(tmpdir(), 'folio-d6-restored-'));
    dirs.push(target);
    // On the PostgreSQL pass the restore goes into an empty database of its own.
    const targetEnv = { FOLIO_DATA_DIR: target, ...(await freshDatabaseEnv()) };
    const restore = await folio(['restore', file], targetEnv);
    expect(restore.code, restore.stderr).toBe(0);

    const restored = await spawnServer({ ...targetEnv, FOLIO_SERVICE_DOMAIN: 'new.test', FOLIO_PUBLIC_SCHEME: 'http', FOLIO_RATE_LIMITS: 'off' });
    servers.push(restored);
    const home = await until('the re-rendered home page', async () => {
      const page = await visit(restored.baseUrl, 'tern.new.test', '/');
      return page.status === 200 && page.text.includes('tern.new.test') ? page : null;
    });
    const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(home.text)![1]!;
    expect((await visit(restored.baseUrl, 'tern.new.test', new URL(stylesheet, 'http://tern.new.test/').pathname)).status, stylesheet).toBe(200);
    const search = await until('the search page', async () => {
      const page = await visit(restored.baseUrl, 'tern.new.test', '/search/');
      return page.status === 200 ? page : null;
    });
    const script = /<script src="([^"]+)"/.exec(search.text)![1]!;
    expect((await visit(restored.baseUrl, 'tern.new.test', new URL(script, 'http://tern.new.test/').pathname)).status, script).toBe(200);
    // The API's search index is written too, as `site rebuild --all` writes it.
    const found = await until('the search index', async () => {
      const res = await fetch(`${restored.baseUrl}/v1/search?q=terns`, { headers: { authorization: `Bearer ${source.apiKey}`, 'x-blog-id': blogId } });
      const body = (await res.json()) as { data?: unknown[] };
      return res.status === 200 && (body.data?.length ?? 0) > 0 ? body : null;
    });
    expect(found.data).toHaveLength(1);
  }, 120_000);
});
