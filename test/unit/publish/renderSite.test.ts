import { describe, expect, it } from 'vitest';
import { countPostText } from '../../../src/domain/language.js';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { CACHE_CONTROL_ASSET, CACHE_CONTROL_PAGE } from '../../../src/domain/cacheHeaders.js';
import { renderPostPage } from '../../../src/publish/render/renderPostPage.js';
import { renderSite } from '../../../src/publish/pages/fullRender.js';
import { scanHtml } from './htmlScan.js';
import { buildBlog, cachingPost, defaultTheme, fixturePosts, helloPost, koreanPost, numberedPosts } from './siteFixtures.js';

const theme = defaultTheme();
const blog = buildBlog();
const objects = renderSite({ theme, blog, posts: [koreanPost, helloPost, cachingPost], redirects: [{ from: 'edge-caching', to: cachingPost.slug }] });
const byKey = new Map(objects.map((o) => [o.key, o]));
const html = (key: string) => String(byKey.get(key)!.body);

describe('renderSite', () => {
  it('produces exactly the objects of the blog', () => {
    expect(objects.map((o) => o.key).sort()).toEqual(
      [
        `notes/assets/${theme.stylesheet}`,
        `notes/assets/${theme.searchScript}`,
        'notes/search/index.html',
        'notes/index.html',
        'notes/page/1/index.html',
        'notes/hello-world/index.html',
        'notes/hello-world.md',
        'notes/caching-static-sites/index.html',
        'notes/caching-static-sites.md',
        'notes/정적-사이트-블로그/index.html',
        'notes/정적-사이트-블로그.md',
        'notes/edge-caching/index.html',
        'notes/tags/caching/index.html',
        'notes/tags/caching/page/1/index.html',
        'notes/tags/meta/index.html',
        'notes/tags/meta/page/1/index.html',
        'notes/tags/static-sites/index.html',
        'notes/tags/static-sites/page/1/index.html',
        'notes/tags/블로그/index.html',
        'notes/tags/블로그/page/1/index.html',
        'notes/tags/index.html',
        'notes/archive/index.html',
        'notes/archive/2026/01/index.html',
        'notes/archive/2026/02/index.html',
        'notes/archive/2026/03/index.html',
        'notes/404.html',
        'notes/rss.xml',
        'notes/feed.json',
        'notes/sitemap.xml',
        'notes/sitemap-pages.xml',
        'notes/sitemap-posts-1.xml',
        'notes/robots.txt',
        'notes/llms.txt',
      ].sort(),
    );
    expect(objects[0]!.key).toBe(`notes/assets/${theme.stylesheet}`);
  });

  it('gives every object its content type and cache policy', () => {
    const types: Record<string, string> = {
      css: 'text/css; charset=utf-8',
      js: 'text/javascript; charset=utf-8',
      html: 'text/html; charset=utf-8',
      'rss.xml': 'application/rss+xml; charset=utf-8',
      'feed.json': 'application/feed+json; charset=utf-8',
      xml: 'application/xml; charset=utf-8',
      txt: 'text/plain; charset=utf-8',
      md: 'text/markdown; charset=utf-8',
    };
    for (const object of objects) {
      const name = object.key.split('/').pop()!;
      const kind = types[name] ? name : name.split('.').pop()!;
      expect(object.contentType, object.key).toBe(types[kind]);
      expect(object.cacheControl, object.key).toBe(object.key.includes('/assets/') ? CACHE_CONTROL_ASSET : CACHE_CONTROL_PAGE);
    }
  });

  it('renders the same objects as the single-object functions, so partial publishes agree', () => {
    const ctx = createRenderContext({ theme, blog, posts: fixturePosts });
    const single = renderPostPage(ctx, cachingPost, { older: helloPost, newer: koreanPost });
    expect(byKey.get(single.key)).toEqual(single);
  });

  it('renders the same bytes from stored text counts as from counting the text', () => {
    const counted = fixturePosts.map((post) => ({ ...post, textCounts: countPostText(post) }));
    expect(renderSite({ theme, blog, posts: counted })).toEqual(renderSite({ theme, blog, posts: fixturePosts }));
    // The stored counts are what decide: other counts give another page.
    const swapped = fixturePosts.map((post) => ({ ...post, textCounts: { hangulWords: 1000, latinWords: 0, hangulChars: 50_000, otherWords: 0 } }));
    const page = renderSite({ theme, blog, posts: swapped }).find((o) => o.key === `notes/${helloPost.slug}/index.html`)!;
    expect(String(page.body)).toContain('<html lang="ko"');
  });

  it('gives every page the head a reader, a crawler and a link preview need', () => {
    for (const object of objects.filter((o) => o.contentType.startsWith('text/html') && !o.redirectTo)) {
      const page = String(object.body);
      const { tags, rawText } = scanHtml(page);
      const meta = (attr: string, value: string) => tags.find((t) => t.name === 'meta' && t.attrs.get(attr) === value)?.attrs.get('content');
      expect(page.startsWith('<!doctype html>\n<html lang="'), object.key).toBe(true);
      expect(tags.some((t) => t.name === 'meta' && t.attrs.get('charset') === 'utf-8')).toBe(true);
      expect(meta('name', 'viewport')).toBe('width=device-width, initial-scale=1');
      expect(tags.filter((t) => t.name === 'title' && !t.closing)).toHaveLength(1);
      expect(meta('name', 'description')).toBeTruthy();
      expect(meta('property', 'og:title')).toBeTruthy();
      expect(meta('property', 'og:description')).toBeTruthy();
      expect(meta('name', 'twitter:card')).toMatch(/^summary(_large_image)?$/);
      const canonical = tags.find((t) => t.name === 'link' && t.attrs.get('rel') === 'canonical')?.attrs.get('href');
      if (object.key === 'notes/404.html') expect(meta('name', 'robots')).toBe('noindex');
      else expect(canonical).toMatch(/^https:\/\/notes\.example\.com\//);
      expect(tags.filter((t) => t.name === 'a' && t.attrs.get('class') === 'skip-link')).toHaveLength(1);
      expect(tags.some((t) => t.name === 'main' && t.attrs.get('id') === 'main')).toBe(true);
      // No JavaScript on reading pages: scripts are JSON-LD data (a post, the blog, a list of
      // posts). The search page alone loads a script, from the theme's file.
      const external = tags.filter((t) => t.name === 'script' && !t.closing && t.attrs.has('src')).map((t) => t.attrs.get('src'));
      expect(external, object.key).toEqual(object.key === 'notes/search/index.html' ? [`/assets/${theme.searchScript}`] : []);
      const scripts = rawText.filter((r) => r.name === 'script' && r.text !== '');
      const isPost = fixturePosts.some((p) => object.key === `notes/${p.slug}/index.html`);
      const expected = isPost
        ? ['BlogPosting', 'BreadcrumbList']
        : object.key === 'notes/index.html'
          ? ['Blog']
          : /^notes\/(page\/|tags\/[^/]+\/|archive\/\d)/.test(object.key)
            ? ['CollectionPage']
            : [];
      expect(
        scripts.map((s) => (JSON.parse(s.text) as { '@type': string })['@type']),
        object.key,
      ).toEqual(expected);
    }
  });

  it("names the post's own og:image, else its drawn card, with summary_large_image", () => {
    expect(html('notes/caching-static-sites/index.html')).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(html('notes/caching-static-sites/index.html')).toContain('<meta name="twitter:image" content="https://images.example.com/cdn-flow.png">');
    expect(html('notes/caching-static-sites/index.html')).not.toContain('/card-');
    const page = html('notes/hello-world/index.html');
    expect(page).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(page).toMatch(/<meta property="og:image" content="https:\/\/notes\.example\.com\/hello-world\/card-[0-9a-f]{12}\.png">/);
    expect(page).toContain('<meta property="og:image:width" content="1200">');
    expect(page).toContain('<meta property="og:image:height" content="630">');
    // The cards are drawn by the pipelines (stages/drawCards.ts), never rendered.
    expect([...byKey.keys()].some((key) => key.includes('/card-'))).toBe(false);
  });

  it('sets the page language from its text', () => {
    expect(html('notes/정적-사이트-블로그/index.html')).toMatch(/^<!doctype html>\n<html lang="ko">/);
    expect(html('notes/caching-static-sites/index.html')).toMatch(/^<!doctype html>\n<html lang="en">/);
    const korean = renderSite({ theme, blog: buildBlog({ name: '개발 노트', description: '작은 도구에 관한 글' }), posts: [koreanPost] });
    expect(String(korean.find((o) => o.key === 'notes/index.html')!.body)).toMatch(/<html lang="ko">[\s\S]*최근 글/);
    expect(String(korean.find((o) => o.key === 'notes/rss.xml')!.body)).toContain('<language>ko</language>');
  });

  it('leaves a redirect at an old slug, but never over a live post', () => {
    const redirect = byKey.get('notes/edge-caching/index.html')!;
    expect(redirect.redirectTo).toBe('/caching-static-sites');
    expect(String(redirect.body)).toContain('<meta http-equiv="refresh" content="0; url=/caching-static-sites">');
    expect(String(redirect.body)).toContain('<link rel="canonical" href="https://notes.example.com/caching-static-sites">');
    const taken = renderSite({ theme, blog, posts: fixturePosts, redirects: [{ from: 'hello-world', to: cachingPost.slug }] });
    expect(taken.find((o) => o.key === 'notes/hello-world/index.html')!.redirectTo).toBeUndefined();
    const korean = renderSite({ theme, blog, posts: fixturePosts, redirects: [{ from: 'old', to: koreanPost.slug }] });
    expect(korean.find((o) => o.key === 'notes/old/index.html')!.redirectTo).toBe(
      '/%EC%A0%95%EC%A0%81-%EC%82%AC%EC%9D%B4%ED%8A%B8-%EB%B8%94%EB%A1%9C%EA%B7%B8',
    );
  });

  it('places the owner theme fields: header and footer on every page, the ad after post bodies only', () => {
    const themed = renderSite({
      theme,
      blog: buildBlog({
        themeConfig: { headerHtml: '<div id="hdr">H</div>', footerHtml: '<div id="ftr">F</div>', adCode: '<div id="ad">A</div>', customCss: 'p{margin:0}' },
      }),
      posts: fixturePosts,
    });
    for (const object of themed.filter((o) => o.contentType.startsWith('text/html') && !o.redirectTo)) {
      const page = String(object.body);
      expect(page).toMatch(/<a class="skip-link"[^\n]*\n<div id="hdr">H<\/div>\n<header class="site-header">/);
      expect(page).toMatch(/<\/footer>\n<div id="ftr">F<\/div>\n<\/body>/);
      expect(page).toContain('<style>p{margin:0}</style>');
      const isPost = fixturePosts.some((p) => object.key === `notes/${p.slug}/index.html`);
      expect(page.includes('<div id="ad">A</div>'), object.key).toBe(isPost);
      if (isPost) expect(page.indexOf('<div id="ad">')).toBeGreaterThan(page.indexOf('<div class="post-content">'));
    }
  });

  it('renders an empty blog', () => {
    const empty = renderSite({ theme, blog, posts: [] });
    expect(empty.map((o) => o.key).sort()).toEqual(
      [
        `notes/assets/${theme.stylesheet}`,
        `notes/assets/${theme.searchScript}`,
        'notes/search/index.html',
        'notes/index.html',
        'notes/tags/index.html',
        'notes/archive/index.html',
        'notes/404.html',
        'notes/rss.xml',
        'notes/feed.json',
        'notes/sitemap.xml',
        'notes/sitemap-pages.xml',
        'notes/robots.txt',
        'notes/llms.txt',
      ].sort(),
    );
    expect(String(empty.find((o) => o.key === 'notes/index.html')!.body)).toContain('<p class="empty">No posts yet.</p>');
    expect(String(empty.find((o) => o.key === 'notes/rss.xml')!.body)).toContain('<lastBuildDate>Mon, 05 Jan 2026 09:00:00 GMT</lastBuildDate>');
  });

  it('bounds list pages and feeds on a large blog', () => {
    const posts = numberedPosts(250);
    const big = renderSite({ theme, blog, posts });
    const keys = big.map((o) => o.key);
    expect(keys.filter((k) => /^notes\/page\/\d+\/index\.html$/.test(k))).toHaveLength(13);
    expect(keys.filter((k) => /^notes\/tags\/even\/page\/\d+\/index\.html$/.test(k))).toHaveLength(7);
    const count = (key: string, pattern: RegExp) => String(big.find((o) => o.key === key)!.body).match(pattern)?.length ?? 0;
    expect(count('notes/index.html', /class="post-item"/g)).toBe(10);
    // The tag's last page holds 5 of its 125 posts, so its index shows the last two pages.
    expect(count('notes/tags/even/index.html', /class="post-item"/g)).toBe(25);
    expect(count('notes/rss.xml', /<item>/g)).toBe(20);
    expect(count('notes/sitemap.xml', /<sitemap>/g)).toBe(2);
    // Home, /tags/, /archive/ and the two tags.
    expect(count('notes/sitemap-pages.xml', /<url>/g)).toBe(3 + 2);
    expect(count('notes/sitemap-posts-1.xml', /<url>/g)).toBe(13 + 250);
    // Home shows page 13 (the newest 10) and links the page before it.
    expect(String(big.find((o) => o.key === 'notes/index.html')!.body)).toContain('<a class="pager-older" href="/page/12">');
    expect(String(big.find((o) => o.key === 'notes/tags/even/index.html')!.body)).toContain('href="/tags/even/page/5"');
  });
});
