import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, type SignedIn } from '../support/dashboardSession.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/**
 * GET /dashboard/blogs/:blogId/preview-frame (docs/dashboard.md#the-live-preview): the blog's
 * theme around an empty post, for the editor's Preview region. A session of the blog's account
 * only; its own headers and CSP; the owner's header, footer and ad HTML left out.
 */
let t: TestApp;
let session: SignedIn;
let blogId: string;
const framePath = (id: string) => `/dashboard/blogs/${id}/preview-frame`;

beforeAll(async () => {
  t = await startTestApp();
  session = await signIn(t);
  const blog = await t.request('POST', '/v1/blogs', { body: { slug: 'framed', name: '액자 블로그' } });
  expect(blog.status, blog.text).toBe(201);
  blogId = blog.body.id;
  const themed = await t.request('PUT', `/v1/blogs/${blogId}`, {
    body: {
      theme_config: {
        customCss: 'body { --frame-test: 7px; }',
        headerHtml: '<div id="owner-header">Owner header</div>',
        footerHtml: '<div id="owner-footer">Owner footer</div>',
        adCode: '<div id="owner-ad">Ad</div>',
      },
    },
  });
  expect(themed.status, themed.text).toBe(200);
});
afterAll(async () => t?.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${t.baseUrl}${path}`, { redirect: 'manual', headers: { accept: 'text/html', ...headers } });

describe('the live preview frame', () => {
  it("answers the owner's session with the theme around an empty post, private and unindexed, under its own CSP", async () => {
    const res = await get(framePath(blogId), { cookie: session.cookie });
    const page = await res.text();
    expect(res.status, page).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('x-robots-tag')).toMatch(/^noindex\b/);

    const script = /<script src="(\/dashboard\/assets\/previewFrame-[A-Za-z0-9_-]+\.js)" defer><\/script>/.exec(page)?.[1];
    expect(script, page.slice(0, 3000)).toBeDefined();
    const policy = new Map(
      (res.headers.get('content-security-policy') ?? '').split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
    );
    expect(policy.get('default-src')).toBe("'none'");
    // Only the frame's own script, by its full URL (on the public origin and on the host the
    // request was sent to): not 'self', not inline.
    const scriptSources = policy.get('script-src')?.split(' ') ?? [];
    expect(scriptSources).toContain(`${t.baseUrl}${script}`);
    for (const source of scriptSources) expect(source).toMatch(new RegExp(`^https?://[^/]+${script}$`));
    expect(policy.get('style-src')?.split(' ')).toEqual(expect.arrayContaining(["'self'", "'unsafe-inline'"]));
    expect(policy.get('img-src')).toBe('* data:');
    expect(policy.get('frame-ancestors')).toBe("'self'");
    expect(policy.get('base-uri')).toBe("'none'");
    expect(policy.get('form-action')).toBe("'none'");
    expect(policy.get('sandbox')).toBe('allow-scripts allow-popups allow-popups-to-escape-sandbox');

    // The theme: its stylesheet where preview links take it, the owner's custom CSS, the post
    // template's article with an empty title and an empty content element.
    expect(page).toMatch(/<link rel="stylesheet" href="\/preview\/assets\/site\.[0-9a-f]{8}\.css">/);
    expect(page).toContain('<style>body { --frame-test: 7px; }</style>');
    expect(page).toMatch(/<h1 class="post-title"><\/h1>/);
    expect(page).toMatch(/<div class="post-content">\s*<\/div>/);
    expect(page).toContain('액자 블로그');
    expect(page).toContain('<meta name="robots" content="noindex, nofollow">');
    // The owner's HTML is for the published site; the frame shows how the post reads.
    for (const id of ['owner-header', 'owner-footer', 'owner-ad']) expect(page).not.toContain(id);
    // No inline script: the only <script> elements are the frame's and JSON-LD data.
    const scripts = page.match(/<script[^>]*>/g) ?? [];
    expect(scripts.filter((tag) => !tag.includes('type="application/ld+json"'))).toEqual([`<script src="${script}" defer>`]);

    // Its script is one self-contained file: the policy lets no other file load.
    const js = await (await fetch(`${t.baseUrl}${script}`)).text();
    expect(js).toContain('folio-preview-ready');
    expect(js).not.toMatch(/\bimport\s*[{*"'`(]|\bexport\s*\{/);
  });

  it("renders the theme's labels and dates in the post's language: English unless asked for Korean", async () => {
    const page = async (query: string) => {
      const res = await get(`${framePath(blogId)}${query}`, { cookie: session.cookie });
      expect(res.status).toBe(200);
      return res.text();
    };
    const english = await page('');
    expect(english).toMatch(/<html lang="en"/);
    expect(english).toMatch(/<time datetime="[^"]+">[A-Z][a-z]+ \d{1,2}, \d{4}<\/time>/);
    const korean = await page('?lang=ko');
    expect(korean).toMatch(/<html lang="ko"/);
    expect(korean).toMatch(/<time datetime="[^"]+">\d{4}년 \d{1,2}월 \d{1,2}일<\/time>/);
    expect(korean).toContain('>보관함<');
    // Anything else is the English page, never an error or an echo of the value.
    for (const hostile of ['?lang=fr', '?lang=%3Cscript%3E', '?lang=ko&lang=ko', '?lang[]=ko']) {
      const other = await page(hostile);
      expect(other).toMatch(/<html lang="en"/);
      expect(other).not.toContain('<script>');
    }
  });

  it("answers another account's blog, an unknown one and a hostile id with the API's not-found body", async () => {
    const other = await t.createAccount('creator');
    const theirs = await t.request('POST', '/v1/blogs', { key: other.key, body: { slug: 'not-yours', name: 'Not yours' } });
    expect(theirs.status).toBe(201);
    for (const id of [theirs.body.id as string, 'blog_nope', '%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'x'.repeat(5000)]) {
      const res = await get(framePath(id), { cookie: session.cookie });
      expect(res.status, id).toBe(404);
      const body = (await res.json()) as { error: string; message: string };
      expect(body).toEqual({ error: 'not_found', message: 'blog not found' });
      // Shown in the editor's frame rather than refused there (the editor says why it could not start).
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    }
  });

  it('sends a browser without a session to sign in, as every dashboard page does; an API key is no session', async () => {
    const page = await get(`/dashboard/blogs/${blogId}/settings`);
    expect(page.status).toBe(303);
    const tries: Record<string, string>[] = [{}, { authorization: `Bearer ${t.key}` }, { cookie: 'folio_session=not-a-session' }];
    for (const headers of tries) {
      const res = await get(framePath(blogId), headers);
      expect(res.status).toBe(page.status);
      expect(res.headers.get('location')).toBe(page.headers.get('location'));
    }
  });

  it('is framed by the editor, sandboxed, and the editor may frame this host only', async () => {
    const res = await get(`/dashboard/blogs/${blogId}/new-post`, { cookie: session.cookie });
    const page = await res.text();
    expect(res.status).toBe(200);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("frame-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(page).toContain(
      `<iframe id="preview-frame" class="preview-frame" title="Preview of the post in the blog's theme" src="${framePath(blogId)}" sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"></iframe>`,
    );
    expect(page).not.toContain('preview-body');
  });
});
