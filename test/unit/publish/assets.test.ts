import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashedFileName, siteAssets } from '../../../src/publish/render/assets.js';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { CACHE_CONTROL_ASSET } from '../../../src/domain/cacheHeaders.js';
import { renderHomePage } from '../../../src/publish/render/renderListPages.js';
import { loadTheme } from '../../../src/publish/render/renderTheme.js';
import { buildBlog, defaultTheme, templatesDir } from './siteFixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'folio-theme-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('theme assets', () => {
  it('names a file after the first 8 hex digits of its SHA-256', () => {
    expect(hashedFileName('site.css', 'body{}')).toMatch(/^site\.[0-9a-f]{8}\.css$/);
    expect(hashedFileName('site.css', 'body{}')).toBe(hashedFileName('site.css', Buffer.from('body{}')));
    expect(hashedFileName('fonts/inter.woff2', 'x')).toMatch(/^fonts\/inter\.[0-9a-f]{8}\.woff2$/);
  });

  it('publishes the stylesheet under a hashed name that changes when the CSS changes', () => {
    const copy = join(tmp, 'templates');
    cpSync(templatesDir, copy, { recursive: true });
    const original = loadTheme(copy);
    writeFileSync(join(copy, 'assets', 'site.css'), `${readFileSync(join(copy, 'assets', 'site.css'), 'utf8')}\n.extra { color: red; }\n`);
    const changed = loadTheme(copy);
    expect(original.stylesheet).toMatch(/^site\.[0-9a-f]{8}\.css$/);
    expect(changed.stylesheet).not.toBe(original.stylesheet);
    // The same CSS always gets the same name.
    expect(loadTheme(templatesDir).stylesheet).toBe(defaultTheme().stylesheet);

    const ctx = createRenderContext({ theme: changed, blog: buildBlog() });
    expect(String(renderHomePage(ctx, [], 0).body)).toContain(`<link rel="stylesheet" href="/assets/${changed.stylesheet}">`);
    expect(siteAssets(ctx.blog.slug, ctx.theme.assets)).toEqual([
      { key: `notes/assets/${changed.stylesheet}`, body: expect.any(Buffer), contentType: 'text/css; charset=utf-8', cacheControl: CACHE_CONTROL_ASSET },
      {
        key: `notes/assets/${changed.searchScript}`,
        body: expect.any(Buffer),
        contentType: 'text/javascript; charset=utf-8',
        cacheControl: CACHE_CONTROL_ASSET,
      },
    ]);
    // The search script did not change with the CSS, so neither did its name.
    expect(changed.searchScript).toBe(original.searchScript);
    expect(original.searchScript).toMatch(/^search\.[0-9a-f]{8}\.js$/);
  });

  it('refuses a theme without its views', () => {
    const broken = join(tmp, 'broken');
    cpSync(templatesDir, broken, { recursive: true });
    rmSync(join(broken, 'post.eta'));
    expect(() => loadTheme(broken)).toThrow(/post\.eta/);
  });
});

describe('default stylesheet', () => {
  const css = readFileSync(join(templatesDir, 'assets', 'site.css'), 'utf8');

  it.each([
    ['dark mode', /@media \(prefers-color-scheme: dark\)/],
    ['a Korean font fallback', /"Apple SD Gothic Neo"[^;]*"Malgun Gothic"/],
    ['a reading measure', /--measure: 68ch/],
    ['code blocks that scroll inside themselves', /pre \{[^}]*overflow-x: auto/],
    ['long words that wrap', /overflow-wrap: anywhere/],
    ['images that fit the column', /img,[\s\S]*?max-width: 100%/],
    ['visible focus', /:focus-visible \{[^}]*outline: 3px solid/],
    ['a skip link', /\.skip-link:focus/],
    ['highlight.js colours for both schemes', /\.hljs-keyword[\s\S]*prefers-color-scheme: dark[\s\S]*\.hljs-keyword/],
  ])('has %s', (_what, pattern) => {
    expect(css).toMatch(pattern);
  });
});
