/**
 * Hardening issue item 9: run without the server's FOLIO_SERVICE_DOMAIN, `folio site verify`
 * reported almost every object different and `folio site rebuild` rewrote the blog with
 * `localhost:3000` URLs. The server now records the URL settings; the CLI uses the recorded
 * ones, refuses a conflicting explicit value, and a server restart with a new value re-renders
 * every blog.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config/config.js';
import { compose, type Folio } from '../../src/compose/compose.js';
import { databaseFile } from '../../src/compose/adapters.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, type BuiltBlog } from '../support/factories.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { visit } from '../../bench/harness/visit.js';

const dirs: string[] = [];
const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'folio-urls-'));
  dirs.push(dir);
  return dir;
}

/** The server on `dataDir` with `env`, settling the URL settings as main.ts does. */
async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startTestApp({ dataDir, env, publicUrls: 'server' });
  open.push(t);
  return t;
}

async function publishedBlog(t: TestApp, slug: string): Promise<BuiltBlog> {
  const blog = await buildBlog(t, { slug });
  const post = await buildPost(blog, { title: 'Hello there', content: 'Words about *things*.', tags: ['news'] });
  const res = await blog.actor.request('POST', `/v1/posts/${post.slug}/publish`, { blogId: blog.id });
  expect(res.status, res.text).toBe(200);
  await t.folio.idle();
  return blog;
}

const page = (dataDir: string, key: string): string => readFileSync(join(dataDir, 'public', key), 'utf8');

/** The public URL settings (the table also holds what other parts record, such as the warm-up lists). */
function settings(dataDir: string): Record<string, string> {
  const db = new Database(databaseFile({ dataDir }), { readonly: true });
  try {
    const rows = db.prepare<[], { key: string; value: string }>("SELECT key, value FROM settings WHERE key IN ('service_domain', 'public_scheme')").all();
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  } finally {
    db.close();
  }
}

/** A logger whose lines the test can read (pino writes each JSON line to `write`). */
function capturedLogger(): { logger: ReturnType<typeof createLogger>; lines: () => { level: number; msg: string }[] } {
  const out: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void out.push(line) });
  return { logger, lines: () => out.map((l) => JSON.parse(l) as { level: number; msg: string }) };
}

async function composeServer(dataDir: string, env: Record<string, string>, logger: ReturnType<typeof createLogger>): Promise<Folio> {
  const folio = await compose({
    config: loadConfig({ FOLIO_DATA_DIR: dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_SOCIAL_CARDS: 'off', ...env }),
    logger,
    publicUrls: 'server',
  });
  open.push(folio);
  return folio;
}

describe('public URL settings are the same for the server and the CLI', () => {
  it('the CLI without the server environment verifies a clean store and rebuilds with the server URLs', async () => {
    const dataDir = tempDir();
    const t = await startServer(dataDir, { FOLIO_SERVICE_DOMAIN: 'blog.test:8080' });
    await publishedBlog(t, 'urls');
    expect(page(dataDir, 'urls/index.html')).toContain('https://urls.blog.test:8080/');

    // The server keeps running: the CLI works beside it on the same data dir, with NO URL env.
    const verify = await runCliCaptured(['site', 'verify', 'urls'], { FOLIO_DATA_DIR: dataDir });
    expect(verify.stderr).toBe('');
    expect(verify.stdout).toMatch(/^Checked \d+ objects of urls: the store matches the database\.\n$/);
    expect(verify.code).toBe(0);

    const rebuild = await runCliCaptured(['site', 'rebuild', 'urls'], { FOLIO_DATA_DIR: dataDir });
    expect(rebuild.code, rebuild.stderr).toBe(0);
    for (const key of ['urls/index.html', 'urls/hello-there/index.html', 'urls/rss.xml', 'urls/sitemap-posts-1.xml']) {
      const bytes = page(dataDir, key);
      expect(bytes).toContain('https://urls.blog.test:8080/');
      expect(bytes).not.toContain('localhost');
    }
    const again = await runCliCaptured(['site', 'verify', 'urls'], { FOLIO_DATA_DIR: dataDir });
    expect(again.code).toBe(0);
  });

  it('the server records the settings on first start without re-rendering anything', async () => {
    const dataDir = tempDir();
    const t = await startServer(dataDir, { FOLIO_SERVICE_DOMAIN: 'blog.test:8080' });
    expect(settings(dataDir)).toEqual({ service_domain: 'blog.test:8080', public_scheme: 'https' });
    expect(await t.folio.repos.jobs.countByStatus('pending')).toBe(0);
  });

  it('a restart with a new explicit domain warns, records it and re-renders every blog with the new URLs', async () => {
    const dataDir = tempDir();
    const first = await startServer(dataDir, { FOLIO_SERVICE_DOMAIN: 'blog.test:8080' });
    const blogs = [await publishedBlog(first, 'one'), await publishedBlog(first, 'two')];
    await first.close();
    open.splice(open.indexOf(first), 1);

    const { logger, lines } = capturedLogger();
    const folio = await composeServer(dataDir, { FOLIO_SERVICE_DOMAIN: 'new.example.org' }, logger);
    expect(folio.config.serviceDomain).toBe('new.example.org');
    expect(folio.config.publicScheme).toBe('https');
    expect(Object.isFrozen(folio.config)).toBe(true);
    const warnings = lines().filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain('FOLIO_SERVICE_DOMAIN blog.test:8080 -> new.example.org');
    expect(settings(dataDir)).toEqual({ service_domain: 'new.example.org', public_scheme: 'https' });
    expect(folio.domains.cnameTarget({ slug: 'one' })).toBe('one.new.example.org');

    const pending = await folio.repos.jobs.listDue(new Date(Date.now() + 60_000).toISOString(), 100);
    expect(pending.map((j) => [j.blogSlug, j.kind, j.payload.reason]).sort()).toEqual([
      ['one', 'site', 'urls_changed'],
      ['two', 'site', 'urls_changed'],
    ]);

    await folio.tick();
    await folio.idle();
    expect(await folio.repos.jobs.countByStatus('pending')).toBe(0);
    for (const blog of blogs) {
      for (const key of [`${blog.slug}/index.html`, `${blog.slug}/hello-there/index.html`, `${blog.slug}/feed.json`]) {
        const bytes = page(dataDir, key);
        expect(bytes).toContain(`https://${blog.slug}.new.example.org/`);
        expect(bytes).not.toContain('blog.test');
      }
    }
    // And the CLI, still without any URL env, agrees with what the server wrote.
    const verify = await runCliCaptured(['site', 'verify', 'one'], { FOLIO_DATA_DIR: dataDir });
    expect(verify.stdout).toContain('the store matches the database');
  });

  it('a restart without the variable keeps the recorded values (a PORT default does not replace them)', async () => {
    const dataDir = tempDir();
    const first = await startServer(dataDir, { FOLIO_SERVICE_DOMAIN: 'blog.test:8080', FOLIO_PUBLIC_SCHEME: 'http' });
    await publishedBlog(first, 'kept');
    await first.close();
    open.splice(open.indexOf(first), 1);

    const { logger, lines } = capturedLogger();
    const folio = await composeServer(dataDir, { PORT: '4000' }, logger);
    expect(folio.config.serviceDomain).toBe('blog.test:8080');
    expect(folio.config.publicScheme).toBe('http');
    expect(lines().filter((l) => l.level >= 40)).toEqual([]);
    expect(lines().some((l) => l.msg.includes('not the default localhost:4000'))).toBe(true);
    expect(await folio.repos.jobs.countByStatus('pending')).toBe(0);
    await folio.close();
    open.splice(open.indexOf(folio), 1);

    // The site server of such a restart matches hosts under the recorded domain, not localhost.
    const t = await startServer(dataDir, { PORT: '4000' });
    const home = await visit(t.baseUrl, 'kept.blog.test:8080', '/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('http://kept.blog.test:8080/');
    expect((await visit(t.baseUrl, 'kept.localhost:4000', '/')).status).not.toBe(200);
  });

  it('a new domain without an explicit scheme takes that domain’s default scheme, not the recorded default', async () => {
    const dataDir = tempDir();
    const first = await startServer(dataDir);
    expect(settings(dataDir)).toEqual({ service_domain: 'localhost:3000', public_scheme: 'http' });
    await first.close();
    open.splice(open.indexOf(first), 1);
    const folio = await composeServer(dataDir, { FOLIO_SERVICE_DOMAIN: 'blogs.example.com' }, createLogger('silent'));
    expect([folio.config.serviceDomain, folio.config.publicScheme]).toEqual(['blogs.example.com', 'https']);
  });

  it('the CLI refuses an explicit value that differs from the recorded one, and changes nothing', async () => {
    const dataDir = tempDir();
    const t = await startServer(dataDir, { FOLIO_SERVICE_DOMAIN: 'blog.test:8080' });
    await publishedBlog(t, 'guard');
    const before = statSync(join(dataDir, 'public', 'guard/index.html')).mtimeMs;
    const html = page(dataDir, 'guard/index.html');

    const domain = await runCliCaptured(['site', 'rebuild', 'guard'], { FOLIO_DATA_DIR: dataDir, FOLIO_SERVICE_DOMAIN: 'other.test' });
    expect(domain.code).toBe(2);
    expect(domain.stdout).toBe('');
    expect(domain.stderr).toMatch(
      /^folio: FOLIO_SERVICE_DOMAIN=other\.test differs from blog\.test:8080 recorded by the server; to change public URLs, restart the server with the new value[^\n]*\n$/,
    );
    expect(page(dataDir, 'guard/index.html')).toBe(html);
    expect(statSync(join(dataDir, 'public', 'guard/index.html')).mtimeMs).toBe(before);

    const scheme = await runCliCaptured(['site', 'verify', 'guard'], { FOLIO_DATA_DIR: dataDir, FOLIO_PUBLIC_SCHEME: 'http' });
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toMatch(/^folio: FOLIO_PUBLIC_SCHEME=http differs from https recorded by the server;[^\n]*\n$/);

    // The same values the server recorded, given explicitly, are no conflict.
    const same = await runCliCaptured(['site', 'verify', 'guard'], {
      FOLIO_DATA_DIR: dataDir,
      FOLIO_SERVICE_DOMAIN: 'BLOG.test:8080',
      FOLIO_PUBLIC_SCHEME: 'https',
    });
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
  });

  it('before any server start the CLI uses the environment and its defaults, and records nothing', async () => {
    const dataDir = tempDir();
    const t = await startTestApp({ dataDir, env: { FOLIO_SERVICE_DOMAIN: 'plain.test' } });
    open.push(t);
    await publishedBlog(t, 'plain');
    const verify = await runCliCaptured(['site', 'verify', 'plain'], { FOLIO_DATA_DIR: dataDir, FOLIO_SERVICE_DOMAIN: 'plain.test' });
    expect(verify.code, verify.stdout).toBe(0);
    expect(settings(dataDir)).toEqual({});
  });
});
