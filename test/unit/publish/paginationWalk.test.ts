/**
 * Issue 11, item 2: a reader who starts at the home page (or a tag's page) and follows "older
 * posts" sees every post exactly once, newest to oldest, whatever the blog's size; this was not
 * so while the home page showed the newest 10 and linked the archive page holding the 11th,
 * which repeated up to 19 posts already on the home page.
 */
import { describe, expect, it } from 'vitest';
import { renderSite } from '../../../src/publish/pages/fullRender.js';
import { MONTH_LIST_ALL_MAX, MONTH_PAGE_SIZE } from '../../../src/publish/render/renderIndexPages.js';
import type { SiteObject } from '../../../src/storage/siteStore.js';
import { scanHtml } from './htmlScan.js';
import { buildBlog, defaultTheme, numberedPosts } from './siteFixtures.js';

function pages(count: number): Map<string, string> {
  const posts = numberedPosts(count).map((post) => ({ ...post, tags: ['all'] }));
  const objects: SiteObject[] = renderSite({ theme: defaultTheme(), blog: buildBlog(), posts, redirects: [] });
  return new Map(objects.map((o) => [o.key, String(o.body)]));
}

/** The post links of a list page, in order, and its "older" link. */
function read(html: string): { posts: string[]; older: string | null } {
  const tags = scanHtml(html).tags;
  const posts = tags.filter((t) => t.name === 'a' && /^\/post-\d+$/.test(t.attrs.get('href') ?? '')).map((t) => t.attrs.get('href')!);
  const older = tags.find((t) => t.name === 'a' && t.attrs.get('class') === 'pager-older')?.attrs.get('href') ?? null;
  return { posts, older };
}

/** Follows "older" links from `start` to the end, collecting the posts listed on the way. */
function walk(site: Map<string, string>, start: string): string[] {
  const seen: string[] = [];
  let key: string | null = start;
  for (let hops = 0; key !== null; hops++) {
    expect(hops).toBeLessThan(200);
    const html = site.get(key);
    expect(html, key).toBeDefined();
    const page = read(html!);
    seen.push(...page.posts);
    key = page.older === null ? null : `notes${page.older.replace(/\/$/, '')}/index.html`;
  }
  return seen;
}

describe('following "older posts"', () => {
  it.each([1, 10, 11, 19, 20, 21, 30, 31, 1000])('from the home page and a tag page of a %i-post blog shows every post once, newest first', (count) => {
    const site = pages(count);
    const newestFirst = Array.from({ length: count }, (_, i) => `/post-${count - i}`);
    expect(walk(site, 'notes/index.html')).toEqual(newestFirst);
    expect(walk(site, 'notes/tags/all/index.html')).toEqual(newestFirst);
    // The home page shows at least 10 posts when there are that many, at most 29.
    expect(read(site.get('notes/index.html')!).posts.length).toBeLessThanOrEqual(29);
    expect(read(site.get('notes/index.html')!).posts.length).toBeGreaterThanOrEqual(Math.min(count, 10));
  });
});

describe('following "older posts" through a month of many posts', () => {
  it.each([200, 201, 250, 299, 300, 301, 1000])('from the page of a month of %i posts shows every post of it once, newest first', (count) => {
    // Ten minutes apart from 1 January 2025: all in January up to 4,464 posts.
    const posts = numberedPosts(count).map((post, i) => ({ ...post, publishedAt: new Date(Date.UTC(2025, 0, 1) + i * 600_000).toISOString() }));
    const site = new Map(renderSite({ theme: defaultTheme(), blog: buildBlog(), posts, redirects: [] }).map((o) => [o.key, String(o.body)]));
    const newestFirst = Array.from({ length: count }, (_, i) => `/post-${count - i}`);
    expect(walk(site, 'notes/archive/2025/01/index.html')).toEqual(newestFirst);
    const shown = read(site.get('notes/archive/2025/01/index.html')!).posts.length;
    expect(shown).toBeLessThanOrEqual(count > MONTH_LIST_ALL_MAX ? 2 * MONTH_PAGE_SIZE - 1 : count);
    expect(shown).toBeGreaterThanOrEqual(Math.min(count, MONTH_PAGE_SIZE));
  });
});
