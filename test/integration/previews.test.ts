/**
 * The editor's live preview and preview links (docs/dashboard.md#preview-links-and-live-preview)
 * over real HTTP against the real app, a real SQLite file and the folder store: the preview's
 * HTML is the published page's content region byte for byte; links open the post's current text
 * without a key, with no-store/noindex headers and no view beacon, and stop at expiry (the test
 * clock), on revocation and with the post or the account; nobody reaches another account's post.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { captureLog, type CapturedLog } from '../support/capturedLog.js';
import { actorFor, buildAccount, createKey, expectError, expectFieldError } from '../support/factories.js';
import { image } from '../support/images.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const HOST = 'previews.localhost:3000';

let t: TestApp;
let log: CapturedLog;
let blogId: string;
let photoUrl: string;
beforeAll(async () => {
  log = captureLog('info');
  t = await startTestApp({ env: { FOLIO_PUBLIC_SCHEME: 'http' }, publicUrls: 'server', logger: log.logger });
  blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'previews', name: 'Previews' } })).body.id;
  const upload = await t.request('POST', '/v1/media', { blogId, raw: await image('png', 64, 48), headers: { 'content-type': 'image/png' } });
  expect(upload.status, upload.text).toBe(201);
  photoUrl = upload.body.url;
  await t.folio.idle();
});
afterAll(async () => t.close());

/** The published post page's content region: what the post view prints between its div's lines. */
function contentRegion(page: string): string {
  const open = '<div class="post-content">\n';
  const start = page.indexOf(open);
  const end = page.indexOf('\n  </div>\n', start);
  expect(start).toBeGreaterThan(0);
  return page.slice(start + open.length, end);
}

/** A key of the test's account bound to the blog, with only these scopes. */
const keyWith = async (scopes: string[]): Promise<string> =>
  (await createKey(actorFor(t, t.key, t.accountId, 'enterprise'), blogId, { name: scopes.join(' '), scopes })).key;

const preview = (content_md: unknown, options: { key?: string; blog?: string } = {}) =>
  t.request('POST', '/v1/preview', { blogId: options.blog ?? blogId, body: { content_md }, ...(options.key ? { key: options.key } : {}) });

async function createPost(title: string, content: string, status = 'draft'): Promise<string> {
  const res = await t.request('POST', '/v1/posts', { blogId, body: { title, content, status } });
  expect(res.status, res.text).toBe(201);
  return res.body.slug;
}

/** The preview page of a link's URL, fetched from the app by its path (the URL names the public API base). */
const open = (url: string, headers: Record<string, string> = {}) => fetch(`${t.baseUrl}${new URL(url).pathname}`, { headers });

async function link(slug: string, body: object = {}): Promise<{ url: string; expires_at: string }> {
  const res = await t.request('POST', `/v1/posts/${slug}/preview-link`, { blogId, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('POST /v1/preview', () => {
  const cases: Record<string, () => string> = {
    'Korean prose, headings, a highlighted code block, the blog image, a table and hostile raw HTML': () =>
      [
        '## 들어가며',
        '',
        '한국어 **본문**과 English *together*. [링크](https://example.com/a?b=1&c=2)',
        '',
        '### 코드',
        '',
        '```ts',
        'const greeting: string = "안녕하세요";',
        'console.log(greeting + " <world>");',
        '```',
        '',
        `![사진](${photoUrl})`,
        '',
        '| 이름 | 값 |',
        '| :--- | ---: |',
        '| 하나 | 1 |',
        '| `둘` | **2** |',
        '',
        '## 끝',
        '',
        '<script>alert("preview")</script><img src="x" onerror="alert(1)"><iframe src="https://evil.example"></iframe>',
        '<a href="javascript:alert(2)">click</a> <span style="color:red" onclick="x()">kept text</span>',
        '',
        '## 들어가며',
      ].join('\n'),
    // Large enough that the post page splices its bytes in (renderPostPage.ts SPLICE_MIN_CHARS).
    'a long post': () =>
      Array.from({ length: 900 }, (_, i) => `### 절 ${i}\n\n문단 ${i}: *emphasis* & \`code\` <b>bold</b> — ${'가나다라 '.repeat(12)}\n`).join('\n'),
  };

  for (const [name, markdown] of Object.entries(cases)) {
    it(`is byte for byte the published page's content region: ${name}`, async () => {
      const md = markdown();
      const res = await preview(md);
      expect(res.status, res.text).toBe(200);
      expect(res.body.base_url).toBe('http://previews.localhost:3000');
      const slug = await createPost(`Equal ${name.slice(0, 20)}`, md, 'published');
      const page = await visit(t.baseUrl, HOST, `/${slug}`);
      expect(page.status).toBe(200);
      expect(contentRegion(page.text)).toBe(res.body.html);
    });
  }

  it('strips what the sanitiser strips and names the blog image root-relative', async () => {
    const { body } = await preview(`# T\n\n![p](${photoUrl})\n\n<script>alert(1)</script><img src=x onerror=alert(1)>`);
    expect(body.html).not.toMatch(/<script|onerror|alert\(1\)<\/script>/);
    expect(body.html).toMatch(/(src|srcset)="\/media\//);
    expect(body.html).not.toContain(new URL(photoUrl).origin);
    expect((await preview('')).body.html).toBe('');
  });

  it('answers bad input with {error, message}: missing, wrong type, over 1 MB, extra fields, no blog', async () => {
    expectFieldError(await t.request('POST', '/v1/preview', { blogId, body: {} }), 'content_md');
    expectFieldError(await preview(42), 'content_md');
    expectFieldError(await preview(['a']), 'content_md');
    expectFieldError(await preview('x'.repeat(1024 * 1024 + 1)), 'content_md');
    expectFieldError(await t.request('POST', '/v1/preview', { blogId, body: { content_md: 'a', title: 'b' } }), 'title');
    const noBlog = await t.request('POST', '/v1/preview', { body: { content_md: 'a' } });
    expect(noBlog.status).toBe(400);
    expect(noBlog.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it('refuses Markdown that renders past 3 MB of HTML as a post would be refused', async () => {
    const res = await preview('&'.repeat(1024 * 1024 - 10));
    expectFieldError(res, 'content_md');
  });

  it('needs posts:read on the blog, and never reaches another account’s blog', async () => {
    const reader = await keyWith(['posts:read']);
    expect((await preview('ok', { key: reader })).status).toBe(200);
    const writer = await keyWith(['media:read']);
    expectError(await preview('ok', { key: writer }), 403, 'forbidden');
    const other = await buildAccount(t);
    expectError(await preview('ok', { key: other.key }), 404, 'not_found');
  });
});

describe('preview links', () => {
  it('shows a draft’s current text with the theme, to anyone holding the URL, with private noindex headers and no beacon', async () => {
    const slug = await createPost('초안 미리보기', 'First words.\n\n```js\nlet a = 1;\n```');
    const created = await t.request('POST', `/v1/posts/${slug}/preview-link`, { blogId, body: {} });
    expect(created.status, created.text).toBe(201);
    const { url, expires_at } = created.body;
    expect(url).toMatch(/\/preview\/[A-Za-z0-9_-]{43}$/);
    expect(expires_at).toBe(new Date(t.clock.now().getTime() + 7 * 86_400_000).toISOString());

    // The author edits the draft: the link shows the new text.
    expect((await t.request('PUT', `/v1/posts/${slug}`, { blogId, body: { content: 'Second **words**.' } })).status).toBe(200);
    const res = await open(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(res.headers.get('set-cookie')).toBeNull();
    // Images from the blog's host are not told the preview's URL.
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('sandbox');
    expect(csp).not.toContain('script-src');
    const html = await res.text();
    expect(html).toContain('<h1 class="post-title">초안 미리보기</h1>');
    expect(html).toContain('<p>Second <strong>words</strong>.</p>');
    expect(html).not.toContain('First words');
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).not.toContain('/_folio/view.gif');
    expect(html).not.toContain('rel="canonical"');
    // The theme's stylesheet is served from the API host, whether or not the blog was published.
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1] ?? '';
    expect(href).toMatch(/^\/preview\/assets\/site\.[0-9a-f]{8}\.css$/);
    const css = await fetch(`${t.baseUrl}${href}`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await css.text()).length).toBeGreaterThan(1000);
    expect((await fetch(`${t.baseUrl}/preview/assets/site.00000000.css`)).status).toBe(404);
    // No view was counted for the blog.
    await t.folio.analytics.flush();
    expect(await t.folio.sql.get('SELECT COUNT(*) AS n FROM analytics_post_days')).toEqual({ n: 0 });
  });

  it('a published post’s page shows its images on the blog’s origin', async () => {
    const slug = await createPost('With photo', `![p](${photoUrl})`, 'published');
    const html = await (await open((await link(slug)).url)).text();
    expect(html).toContain(`="${new URL(photoUrl).origin}/media/`);
    expect(html).not.toMatch(/="\/media\//);
  });

  it('expires: 404 once expires_in has passed (the test clock), and expires_in is bounded', async () => {
    const slug = await createPost('Short lived', 'Soon gone.');
    const { url, expires_at } = await link(slug, { expires_in: 60 });
    expect(Date.parse(expires_at) - t.clock.now().getTime()).toBe(60_000);
    t.clock.advance(59_000);
    expect((await open(url)).status).toBe(200);
    t.clock.advance(1_000);
    const gone = await open(url);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('cache-control')).toBe('private, no-store');
    expect(gone.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await gone.json()).toEqual({ error: 'not_found', message: expect.stringContaining('preview link') });
    const { expires_at: longest } = await link(slug, { expires_in: 30 * 86_400 });
    expect(Date.parse(longest) - t.clock.now().getTime()).toBe(30 * 86_400_000);
    for (const expires_in of [59, 30 * 86_400 + 1, 0, -5, 1.5, '60', null, true]) {
      expectFieldError(await t.request('POST', `/v1/posts/${slug}/preview-link`, { blogId, body: { expires_in } }), 'expires_in');
    }
    expectFieldError(await t.request('POST', `/v1/posts/${slug}/preview-link`, { blogId, body: { expires: 60 } }), 'expires');
  });

  it('DELETE revokes every link of the post (204), and only that post’s', async () => {
    const slug = await createPost('Revoked', 'Text.');
    const keep = await createPost('Kept', 'Text.');
    const [a, b, c] = [await link(slug), await link(slug), await link(keep)];
    const res = await t.request('DELETE', `/v1/posts/${slug}/preview-link`, { blogId });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await open(a.url)).status).toBe(404);
    expect((await open(b.url)).status).toBe(404);
    expect((await open(c.url)).status).toBe(200);
    // Again: nothing left to revoke is still a success.
    expect((await t.request('DELETE', `/v1/posts/${slug}/preview-link`, { blogId })).status).toBe(204);
    expectError(await t.request('DELETE', '/v1/posts/no-such-post/preview-link', { blogId }), 404, 'not_found');
    expectError(await t.request('POST', '/v1/posts/no-such-post/preview-link', { blogId, body: {} }), 404, 'not_found');
  });

  it('stores only a hash of the token, and the access log never names it', async () => {
    const slug = await createPost('Hashed', 'Text.');
    const { url } = await link(slug);
    const token = new URL(url).pathname.split('/').pop() ?? '';
    await open(url);
    const rows = await t.folio.sql.all<{ token_hash: string }>('SELECT token_hash FROM preview_links');
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(log.lines.join('\n')).not.toContain(token);
    expect(log.lines.some((line) => line.includes('"path":"/preview/:token"'))).toBe(true);
  });

  it('a retry with the same Idempotency-Key makes no second link and never shows the URL again (409)', async () => {
    const slug = await createPost('Retried', 'Text.');
    const count = async () => (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM preview_links'))!.n;
    const before = await count();
    const headers = { 'Idempotency-Key': 'preview-once' };
    const first = await t.request('POST', `/v1/posts/${slug}/preview-link`, { blogId, body: {}, headers });
    expect(first.status, first.text).toBe(201);
    const again = await t.request('POST', `/v1/posts/${slug}/preview-link`, { blogId, body: {}, headers });
    expect(again.status).toBe(409);
    expect(again.text).not.toContain(new URL(first.body.url).pathname);
    expect(await count()).toBe(before + 1);
  });

  it('goes with the post, and with the account', async () => {
    const slug = await createPost('Deleted', 'Text.');
    const { url } = await link(slug);
    expect((await t.request('DELETE', `/v1/posts/${slug}`, { blogId })).status).toBe(200);
    expect((await open(url)).status).toBe(404);

    const other = await buildAccount(t);
    const otherBlog = (await other.request('POST', '/v1/blogs', { body: { slug: 'leaving', name: 'Leaving' } })).body.id;
    await other.request('POST', '/v1/posts', { blogId: otherBlog, body: { title: 'Mine', content: 'x' } });
    const made = await other.request('POST', '/v1/posts/mine/preview-link', { blogId: otherBlog, body: {} });
    expect(made.status, made.text).toBe(201);
    const before = (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM preview_links'))!.n;
    expect((await other.request('DELETE', '/v1/account', { body: { confirm: other.accountId } })).status).toBe(200);
    await t.folio.idle();
    expect((await open(made.body.url)).status).toBe(404);
    expect((await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM preview_links'))!.n).toBe(before - 1);
  });

  it('never reaches another account’s post', async () => {
    const other = await buildAccount(t);
    const otherBlog = (await other.request('POST', '/v1/blogs', { body: { slug: 'theirs', name: 'Theirs' } })).body.id;
    await other.request('POST', '/v1/posts', { blogId: otherBlog, body: { title: 'Secret', content: 'x', slug: 'secret' } });
    expectError(await t.request('POST', '/v1/posts/secret/preview-link', { blogId: otherBlog, body: {} }), 404, 'not_found');
    expectError(await t.request('DELETE', '/v1/posts/secret/preview-link', { blogId: otherBlog }), 404, 'not_found');
    // The same slug in the caller's own blog is the caller's post, not theirs.
    expectError(await t.request('POST', '/v1/posts/secret/preview-link', { blogId, body: {} }), 404, 'not_found');
    const readOnly = await keyWith(['posts:read']);
    const slug = await createPost('Scoped', 'x');
    expectError(await t.request('POST', `/v1/posts/${slug}/preview-link`, { blogId, key: readOnly, body: {} }), 403, 'forbidden');
  });

  it('unknown and malformed tokens are the same 404 {error, message}; the page is limited per address', async () => {
    for (const path of ['/preview/abc', `/preview/${'A'.repeat(43)}`, `/preview/${'%00'.repeat(20)}`, `/preview/${'x'.repeat(5000)}`]) {
      const res = await fetch(`${t.baseUrl}${path}`);
      expect(res.status, path).toBe(404);
    }
    t.clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await fetch(`${t.baseUrl}/preview/${'B'.repeat(43)}`)).status);
    expect(statuses.slice(0, 60).every((s) => s === 404)).toBe(true);
    const limited = await fetch(`${t.baseUrl}/preview/${'B'.repeat(43)}`);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: 'rate_limit_exceeded', message: expect.any(String) });
    t.clock.advance(60_000);
  });
});
