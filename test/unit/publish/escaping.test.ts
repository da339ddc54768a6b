/**
 * Every author-controlled field carries hostile text; no page or feed may let it out of its
 * context. HTML is checked with a tokenizer (htmlScan.ts), so escaped text inside attribute
 * values is not mistaken for markup and real markup is not missed.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/content/markdown.js';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { renderSite } from '../../../src/publish/pages/fullRender.js';
import type { SitePost } from '../../../src/domain/siteTypes.js';
import type { SiteObject } from '../../../src/storage/siteStore.js';
import { scanHtml, splitCdata } from './htmlScan.js';
import { buildBlog, buildPost, defaultTheme } from './siteFixtures.js';

const SCRIPT = '<script>alert(1)</script>';
const ATTR_BREAK = '"><img src=x onerror=alert(1)>';
const CLOSE_SCRIPT = '</script>';
const CDATA_END = ']]>';
const HOSTILE = `${SCRIPT} ${ATTR_BREAK} ${CLOSE_SCRIPT} ${CDATA_END} & 'q'`;

const hostileMarkdown = [
  `# ${HOSTILE}`,
  '',
  `Text with ${CDATA_END} and ${SCRIPT} and [x](javascript:alert(1)) and <img src=x onerror="alert(1)">.`,
  '',
  '<a href="javascript:alert(1)">link</a> <svg onload=alert(1)></svg> <iframe src="https://evil.example"></iframe>',
  '',
  '```html',
  `${CLOSE_SCRIPT}${SCRIPT}${CDATA_END}`,
  '```',
].join('\n');

function hostilePost(index: number, overrides: Partial<SitePost> = {}): SitePost {
  return buildPost({
    id: `post_${index}`,
    slug: index === 1 ? `x${ATTR_BREAK}` : `post-${index}`,
    title: `${HOSTILE} #${index}`,
    contentMd: hostileMarkdown,
    metaDescription: HOSTILE,
    ogImageUrl: index === 1 ? `https://img.example.com/a.png?q=${ATTR_BREAK}` : 'javascript:alert(1)',
    tags: [SCRIPT, ATTR_BREAK, CDATA_END, `& ${CLOSE_SCRIPT}`],
    publishedAt: `2026-01-0${index}T00:00:00.000Z`,
    updatedAt: `2026-01-0${index}T00:00:00.000Z`,
    ...overrides,
  });
}

const blog = buildBlog({
  name: `${HOSTILE} blog`,
  description: `${HOSTILE} description`,
  themeConfig: {
    customCss: `body{color:red}</style>${SCRIPT}<style>`,
    cssUrl: `https://cdn.example.com/x.css?${ATTR_BREAK}`,
  },
});
// Sanitised HTML never holds a literal `]]>` (text and attributes escape `>`), but the feed
// must not depend on that: the second post's HTML carries one.
const posts = [hostilePost(1), hostilePost(2, { contentHtml: `${renderMarkdown(hostileMarkdown)}<p>a]]>b</p>` })];
const isSearchPage = (key: string) => key === 'notes/search/index.html';
const isPostPage = (key: string) => posts.some((post) => key === `notes/${post.slug}/index.html`);
const objects = renderSite({
  theme: defaultTheme(),
  blog,
  posts,
  redirects: [{ from: `old${ATTR_BREAK}`, to: posts[0]!.slug }],
});

const htmlObjects = objects.filter((o) => o.contentType.startsWith('text/html'));
const text = (o: SiteObject) => String(o.body);

describe('hostile author input', () => {
  it('renders a full set of pages to check', () => {
    expect(htmlObjects.length).toBeGreaterThan(8);
  });

  it.each(htmlObjects.map((o) => [o.key, o] as const))('%s has no injected element or attribute', (_key, object) => {
    const html = text(object);
    const { tags, rawText } = scanHtml(html);
    expect(html).not.toMatch(/<script>alert/i);
    expect(html).not.toMatch(/<img src=x/i);
    for (const tag of tags) {
      for (const name of tag.attrs.keys()) expect(name, `<${tag.name} ${name}>`).not.toMatch(/^on/);
      for (const attr of ['href', 'src', 'content']) {
        expect(tag.attrs.get(attr) ?? '', `<${tag.name} ${attr}>`).not.toMatch(/^\s*javascript:/i);
      }
      // The search page's own form is the one form of the site.
      if (tag.name === 'form' && isSearchPage(object.key)) expect(tag.closing || tag.attrs.get('id') === 'search-form').toBe(true);
      else expect(['svg', 'iframe', 'form', 'object', 'embed', 'base']).not.toContain(tag.name);
    }
    // The only scripts are JSON-LD blocks, each one whole, valid JSON without a `<`, and on the
    // search page the theme's own search script, loaded from its hashed asset name.
    const scripts = tags.filter((tag) => tag.name === 'script' && !tag.closing);
    for (const script of scripts) {
      if (script.attrs.has('src') && isSearchPage(object.key)) expect(script.attrs.get('src')).toMatch(/^\/assets\/search\.[0-9a-f]{8}\.js$/);
      else expect(script.attrs.get('type')).toBe('application/ld+json');
    }
    // (The search script is loaded from its file: its element is empty.)
    for (const block of rawText.filter((raw) => raw.name === 'script' && !(isSearchPage(object.key) && raw.text === ''))) {
      expect(block.text).not.toContain('<');
      expect(() => JSON.parse(block.text)).not.toThrow();
    }
    expect(scripts.length).toBe(
      isPostPage(object.key) ? 2 : /^notes\/(index\.html$|page\/|tags\/[^/]+\/|archive\/\d|search\/index\.html$)/.test(object.key) ? 1 : 0,
    );
    // The owner's CSS stays one style element: its `</style` cannot end it early.
    const styles = rawText.filter((raw) => raw.name === 'style');
    if (!object.redirectTo) expect(styles).toHaveLength(1);
    for (const style of styles) expect(style.text).toBe('body{color:red}\\3c /style>\\3c script>alert(1)\\3c /script>\\3c style>');
  });

  it('shows hostile titles as text', () => {
    const page = text(objects.find((o) => o.key === 'notes/post-2/index.html')!);
    expect(page).toContain('<h1 class="post-title">&lt;script&gt;alert(1)&lt;/script&gt; &quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt;');
    const ld = scanHtml(page).rawText.find((raw) => raw.name === 'script')!;
    expect((JSON.parse(ld.text) as { headline: string }).headline).toBe(`${HOSTILE} #2`);
  });

  it('drops og:image and stylesheet URLs that are not http(s), and escapes the rest', () => {
    const second = scanHtml(text(objects.find((o) => o.key === 'notes/post-2/index.html')!));
    // The page's drawn card stands in for the dropped URL.
    const ogImages = second.tags.filter((tag) => tag.attrs.get('property') === 'og:image').map((tag) => tag.attrs.get('content'));
    expect(ogImages).toEqual([expect.stringMatching(/^https:\/\/[^/]+\/post-2\/card-[0-9a-f]{12}\.png$/)]);
    const first = scanHtml(text(objects.find((o) => o.key === `notes/${posts[0]!.slug}/index.html`)!));
    const image = first.tags.find((tag) => tag.attrs.get('property') === 'og:image')!.attrs.get('content')!;
    expect(image).toBe('https://img.example.com/a.png?q=%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E');
    const sheets = first.tags.filter((tag) => tag.name === 'link' && tag.attrs.get('rel') === 'stylesheet');
    expect(sheets.map((tag) => tag.attrs.get('href'))).toEqual([
      expect.stringMatching(/^\/assets\/site\.[0-9a-f]{8}\.css$/),
      'https://cdn.example.com/x.css?%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E',
    ]);
    const unsafe = createRenderContext({ theme: defaultTheme(), blog: buildBlog({ themeConfig: { cssUrl: 'javascript:alert(1)' } }) });
    expect(unsafe.stylesheets).toHaveLength(1);
  });

  it('percent-encodes hostile slugs and tags in links, and keeps store keys free of path tricks', () => {
    for (const object of objects) {
      expect(object.key.startsWith('notes/')).toBe(true);
      expect(object.key.split('/')).not.toContain('..');
      const tag = /^notes\/tags\/([^/]+)\//.exec(object.key)?.[1];
      if (tag !== undefined) expect(tag).toMatch(/^[\p{L}\p{M}\p{N}_-]+$/u);
    }
    const page = text(objects.find((o) => o.key === 'notes/post-2/index.html')!);
    expect(page).toContain('href="/tags/scriptalert1script"');
    expect(page).toContain('href="/tags/img-srcx-onerroralert1"');
    expect(page).toMatch(/href="\/tags\/tag-[0-9a-f]{8}"/);
    const redirect = objects.find((o) => o.redirectTo)!;
    expect(redirect.redirectTo).toBe('/x%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E');
  });

  it('keeps rss.xml and the sitemaps well-formed: author text only as escaped text or inside CDATA', () => {
    for (const name of ['rss.xml', 'sitemap.xml', 'sitemap-pages.xml', 'sitemap-posts-1.xml']) {
      const { markup, sections } = splitCdata(text(objects.find((o) => o.key === `notes/${name}`)!));
      const elements = [...markup.matchAll(/<\/?([a-zA-Z:]+)/g)].map((m) => m[1]);
      const allowed = [
        'rss',
        'channel',
        'title',
        'link',
        'description',
        'language',
        'lastBuildDate',
        'generator',
        'atom:link',
        'item',
        'guid',
        'pubDate',
        'category',
        'content:encoded',
        'urlset',
        'url',
        'loc',
        'lastmod',
        'sitemapindex',
        'sitemap',
      ];
      for (const element of elements) expect(allowed).toContain(element);
      expect(markup).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
      if (name === 'rss.xml') {
        // CDATA split around `]]>`: joined back, the sections are exactly the post HTML.
        expect(sections).toHaveLength(posts.length + 1);
        expect(sections.join('')).toBe(
          posts
            .slice()
            .reverse()
            .map((post) => post.contentHtml)
            .join(''),
        );
      }
    }
  });

  it('keeps feed.json valid JSON with the exact author strings', () => {
    const feed = JSON.parse(text(objects.find((o) => o.key === 'notes/feed.json')!)) as {
      title: string;
      items: { title: string; summary: string; tags: string[]; image?: string }[];
    };
    expect(feed.title).toBe(blog.name);
    expect(feed.items.map((item) => item.title)).toEqual([`${HOSTILE} #2`, `${HOSTILE} #1`]);
    expect(feed.items[0]!.summary).toBe(HOSTILE);
    expect(feed.items[0]!.image).toBeUndefined();
    expect(feed.items[0]!.tags).toEqual(posts[1]!.tags);
  });

  it('keeps llms.txt one line per post with escaped link labels', () => {
    const llms = objects.find((o) => o.key === 'notes/llms.txt')!;
    expect(llms.contentType).toBe('text/plain; charset=utf-8');
    const lines = text(llms)
      .split('\n')
      .filter((line) => line.startsWith('- ['));
    expect(lines).toHaveLength(2 + 2); // two posts, then the sitemap and the feed
    for (const line of lines.slice(0, 2)) expect(line).toMatch(/^- \[[^\]]*(\\\][^\]]*)*\]\(https:\/\/notes\.example\.com\/[^\s()]+\): /);
  });

  it('sanitised post HTML went through the allowlist before it reached the page', () => {
    const html = renderMarkdown(hostileMarkdown);
    expect(html).not.toMatch(/<script|onerror|href="javascript:|<svg|<iframe/i);
  });
});
