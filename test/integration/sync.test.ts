/**
 * `folio push` and `folio pull` (issue 14): the real command (bin/folio.js, a subprocess)
 * against a real running Folio over HTTP, on a folder of 50 English and Korean posts. Writes
 * are counted from the server's own request metrics (POST, PUT and DELETE answered under /v1).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostFile } from '../../src/sync/frontMatter.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));
let t: TestApp;
let blog: { id: string; slug: string };
const dirs: string[] = [];

beforeAll(async () => {
  expect(existsSync(fileURLToPath(new URL('../../dist/src/cliMain.js', import.meta.url))), 'run `npx tsc -p .` first').toBe(true);
  t = await startTestApp();
  blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'synced', name: 'Synced' } })).body;
});
afterAll(async () => {
  await t.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'folio-sync-'));
  dirs.push(dir);
  return dir;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function folio(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, FOLIO_API_URL: t.baseUrl, FOLIO_API_KEY: t.key } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** POST, PUT and DELETE requests the API answered so far, from GET /metrics. */
async function writesSoFar(): Promise<number> {
  const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(/^folio_http_requests_total\{([^}]*)\} (\d+)/gm)) {
    if (/method="(POST|PUT|DELETE)"/.test(m[1]!) && /route="\/v1\//.test(m[1]!)) n += Number(m[2]);
  }
  return n;
}

async function blogPosts(): Promise<{ slug: string; status: string; title: string; tags: string[] }[]> {
  return (await t.request('GET', '/v1/posts?per_page=100&sort=created_at&order=asc', { blogId: blog.id })).body.data;
}

/** 50 posts: every other one Korean, every fifth a draft, two with a local image. */
async function writeFolder(dir: string): Promise<void> {
  mkdirSync(join(dir, 'images'));
  await sharp({ create: { width: 64, height: 48, channels: 3, background: '#804020' } })
    .png()
    .toFile(join(dir, 'images', 'chart.png'));
  for (let i = 0; i < 50; i++) {
    const korean = i % 2 === 1;
    const title = korean ? `서버 운영 일지 ${i}` : `Running a server, part ${i}`;
    const body = korean ? `블로그를 옮긴 지 ${i}일째. 서버를 점검했다.` : `Notes on day ${i} of running the blog's server.`;
    const image = i < 2 ? '\n\n![A chart](images/chart.png)\n' : '';
    const status = i % 5 === 4 ? 'draft: true' : 'status: published';
    writeFileSync(
      join(dir, `post-${String(i).padStart(2, '0')}.md`),
      `---\ntitle: "${title}"\nslug: post-${i}\ntags: [${korean ? '운영' : 'ops'}, notes]\n${status}\n---\n# ${title}\n\n${body}${image}`,
    );
  }
}

describe('folio push and folio pull', () => {
  const dir = folder();

  it('pushes a folder of 50 posts into an empty blog, with a progress bar and a summary; images uploaded once', async () => {
    await writeFolder(dir);
    const run = await folio('push', dir, '--blog', 'synced');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/50 created, 0 updated, 0 deleted, 1 images uploaded, 0 unchanged, 0 failed/);
    expect(run.stderr).toMatch(/pushing to synced \[#+\] 100% \(50\/50\)/);
    const posts = await blogPosts();
    expect(posts).toHaveLength(50);
    expect(
      posts
        .filter((p) => p.status === 'draft')
        .map((p) => p.slug)
        .sort(),
    ).toEqual(['post-14', 'post-19', 'post-24', 'post-29', 'post-34', 'post-39', 'post-4', 'post-44', 'post-49', 'post-9'].sort());
    const first = (await t.request('GET', '/v1/posts/post-0', { blogId: blog.id })).body;
    expect(first.content_md).toMatch(/!\[A chart\]\(http[^)]+\/media\/[^)]+\)/);
    expect((await t.request('GET', '/v1/search?q=블로그', { blogId: blog.id })).body.pagination.total).toBe(20);
  });

  it('sends no writes on a second push, and says "no changes"', async () => {
    const before = await writesSoFar();
    const run = await folio('push', dir, '--blog', blog.id);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^no changes/m);
    expect(await writesSoFar()).toBe(before);
  });

  it('plans without writing in a dry run, then applies the plan; a renamed file is the same post', async () => {
    const file = join(dir, 'post-02.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('status: published', 'draft: true').replace('Notes on day 2', 'Edited notes on day 2'));
    renameSync(join(dir, 'post-05.md'), join(dir, 'renamed-five.md'));
    const before = await writesSoFar();
    const dry = await folio('push', dir, '--blog', 'synced', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would update post-02.md (post-2: published → draft)');
    expect(dry.stdout).toMatch(/0 would be created, 1 would be updated/);
    expect(dry.stdout).toContain('dry run: nothing was sent');
    expect(await writesSoFar()).toBe(before);
    expect((await t.request('GET', '/v1/posts/post-2', { blogId: blog.id })).body.status).toBe('published');

    const run = await folio('push', dir, '--blog', 'synced', '--verbose');
    expect(run.stdout).toContain('update post-02.md (post-2: published → draft)');
    expect(run.stdout).toMatch(/0 created, 1 updated/);
    const post = (await t.request('GET', '/v1/posts/post-2', { blogId: blog.id })).body;
    expect(post.status).toBe('draft');
    expect(post.content_md).toContain('Edited notes on day 2');
  });

  it('deletes posts whose files are gone only with --delete-missing', async () => {
    rmSync(join(dir, 'post-48.md'));
    rmSync(join(dir, 'post-47.md'));
    const kept = await folio('push', dir, '--blog', 'synced');
    expect(kept.stdout).toMatch(/^no changes \(/m);
    expect(kept.stdout).toContain('2 posts of the blog have no file (kept; --delete-missing deletes them): post-47, post-48');
    expect(await blogPosts()).toHaveLength(50);
    const run = await folio('push', dir, '--blog', 'synced', '--delete-missing');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/0 created, 0 updated, 2 deleted/);
    expect((await blogPosts()).map((p) => p.slug)).not.toContain('post-47');
  });

  it('names the file and line of a front matter mistake, pushes the other files, and exits 1', async () => {
    writeFileSync(join(dir, 'broken.md'), '---\ntitle: Broken\ntags: [a, b\nstatus: published\n---\nBody');
    writeFileSync(join(dir, 'fresh.md'), '---\ntitle: Fresh post\n---\nNew.');
    writeFileSync(join(dir, 'typo.md'), '---\ntitle: Typo\nstatsu: published\n---\nBody');
    const run = await folio('push', dir, '--blog', 'synced');
    expect(run.code).toBe(1);
    // The YAML parser notices the unclosed list on the next line, and says so there.
    expect(run.stderr).toMatch(/^folio: broken\.md: line 4: Flow sequence .* end with a \]/m);
    expect(run.stderr).toContain('folio: typo.md: line 3: unknown field "statsu"');
    expect(run.stdout).toMatch(/1 created, 0 updated, 0 deleted, 0 images uploaded, 48 unchanged, 2 failed/);
    expect((await t.request('GET', '/v1/posts/fresh', { blogId: blog.id })).body.status).toBe('published');
    rmSync(join(dir, 'broken.md'));
    rmSync(join(dir, 'typo.md'));
  });

  it('pulls the blog back into the same format, so that pull → push is a no-op', async () => {
    const copy = folder();
    const run = await folio('pull', copy, '--blog', 'synced');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/pulled 49 posts of synced/);
    const files = readdirSync(copy).filter((f) => f.endsWith('.md'));
    expect(files).toHaveLength(49);
    const korean = parsePostFile('post-1.md', readFileSync(join(copy, 'post-1.md'), 'utf8'));
    expect(korean).toMatchObject({ title: '서버 운영 일지 1', slug: 'post-1', tags: ['운영', 'notes'], status: 'published' });
    expect(parsePostFile('post-2.md', readFileSync(join(copy, 'post-2.md'), 'utf8')).status).toBe('draft');

    const before = await writesSoFar();
    const again = await folio('push', copy, '--blog', 'synced');
    expect(again.stdout).toMatch(/^no changes/m);
    expect(await writesSoFar()).toBe(before);
    // Also without the state file (a fresh clone of the folder): posts are read and compared.
    rmSync(join(copy, '.folio-sync.json'));
    const fresh = await folio('push', copy, '--blog', 'synced');
    expect(fresh.stdout).toMatch(/^no changes/m);
    expect(await writesSoFar()).toBe(before);
  });
});

describe('front matter errors name the file and the line', () => {
  it.each([
    ['---\ntitle: A\ntags: [a, b\n---\nx', 3],
    ['---\ntitle: A\nstatus: later\n---\nx', 3],
    ['---\ntitle: A\nslug: a\nscheduled_at: tomorrow\nstatus: scheduled\n---\nx', 4],
    ['---\nslug: a\n---\nx', 2],
    ['no front matter', 1],
  ])('%j → line %i', (text, line) => {
    expect(() => parsePostFile('p.md', text)).toThrow(new RegExp(`^p\\.md:${line}: `));
  });

  it.each([
    ['categories: [a]', 'unknown field "categories": use tags (known:'],
    ['lang: ko', 'unknown field "lang": Folio tells a post\'s language from its text; remove it (known:'],
    ['toString: x', 'unknown field "toString" (known:'],
    [
      'lastmod: 2016-05-07\nlang: en\nlayout: post',
      'unknown field "lastmod": Folio records when a post changes; remove it; unknown field "lang": Folio tells a post\'s language from its text; remove it (known:',
    ],
  ])('a field another generator writes, %j, says what to use instead', (field, message) => {
    expect(() => parsePostFile('p.md', `---\ntitle: A\n${field}\n---\nx`)).toThrow(`p.md:3: ${message}`);
  });
});
