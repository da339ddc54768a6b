/**
 * Golden files for every page type and feed, in test/fixtures/golden/. They are reviewed
 * fixtures, not blind snapshots: after an intended change, regenerate them with
 * `UPDATE_GOLDEN=1 npx vitest run test/unit/publish/golden.test.ts`, then read the diff.
 * The stylesheet's content hash is written as `site.{hash}.css`, so that restyling the theme
 * does not rewrite every golden file (assets.test.ts covers the hash itself).
 */
import { monthOf, renderArchiveIndexPage, renderMonthPage, renderTagIndexPage } from '../../../src/publish/render/renderIndexPages.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { archivePageCount, archivePageSlice, collectTags } from '../../../src/publish/render/archive.js';
import { renderJsonFeed, renderLlmsTxt, renderRobots, renderRss } from '../../../src/publish/render/feeds.js';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { renderArchivePage, renderHomePage, renderTagArchivePage, renderTagPage } from '../../../src/publish/render/renderListPages.js';
import { renderNotFoundPage } from '../../../src/publish/render/renderNotFoundPage.js';
import { renderPostPage } from '../../../src/publish/render/renderPostPage.js';
import { renderRedirect } from '../../../src/publish/render/renderRedirect.js';
import { renderSearchPage } from '../../../src/publish/render/renderSearchPage.js';
import { sitemapRenders } from '../../../src/publish/pages/sitemap.js';
import type { SiteObject } from '../../../src/storage/siteStore.js';
import { buildBlog, cachingPost, defaultTheme, fixturePosts, helloPost, koreanPost, numberedPosts } from './siteFixtures.js';

const goldenDir = fileURLToPath(new URL('../../fixtures/golden/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function expectGolden(name: string, object: SiteObject): void {
  const actual = String(object.body).replace(/site\.[0-9a-f]{8}\.css/g, 'site.{hash}.css');
  const file = join(goldenDir, name);
  if (update || !existsSync(file)) {
    if (!update) throw new Error(`golden file ${name} is missing; run with UPDATE_GOLDEN=1 and review it`);
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(file, actual);
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

const theme = defaultTheme();
const blog = buildBlog();
const ctx = createRenderContext({ theme, blog, posts: fixturePosts });
const newestFirst = [...fixturePosts].reverse();

describe('golden pages', () => {
  it('home page', () => {
    expectGolden('home.html', renderHomePage(ctx, newestFirst, fixturePosts.length));
  });

  it('archive page with newer and older links (45 posts, page 2 of 3)', () => {
    const posts = numberedPosts(45);
    const bigCtx = createRenderContext({ theme, blog, posts });
    expectGolden('archive-page-2.html', renderArchivePage(bigCtx, 2, archivePageSlice(posts, 2), archivePageCount(posts.length)));
  });

  it('English post page with code, table, lists, image and both neighbours', () => {
    expectGolden('post-en.html', renderPostPage(ctx, cachingPost, { older: helloPost, newer: koreanPost }));
  });

  it('Korean post page', () => {
    expectGolden('post-ko.html', renderPostPage(ctx, koreanPost, { older: cachingPost }));
  });

  it('post page with every theme field set by the blog owner', () => {
    const themed = createRenderContext({
      theme,
      blog: buildBlog({
        themeConfig: {
          customCss: ':root { --accent: #8a1c7c; }',
          cssUrl: 'https://cdn.example.com/brand.css',
          headerHtml: '<div class="owner-banner">Spring sale: 20% off the book</div>',
          footerHtml: '<p class="owner-footer">© 2026 Field Notes</p>',
          adCode: '<div class="ad-slot">Sponsored by Example Hosting</div>',
        },
      }),
      posts: fixturePosts,
    });
    expectGolden('post-themed.html', renderPostPage(themed, helloPost, { newer: cachingPost }));
  });

  it('tag page', () => {
    const tagged = fixturePosts.filter((post) => post.tags.includes('Static Sites'));
    expectGolden('tag.html', renderTagPage(ctx, 'Static Sites', tagged, tagged.length));
  });

  it('tag archive page (Korean tag)', () => {
    expectGolden('tag-archive-page-1.html', renderTagArchivePage(ctx, '블로그', 1, [koreanPost], 1));
  });

  it('search page (/search/)', () => {
    expectGolden('search.html', renderSearchPage(ctx));
  });

  it('tag index (/tags/)', () => {
    expectGolden('tag-index.html', renderTagIndexPage(ctx, collectTags(fixturePosts)));
  });

  it('archive index (/archive/) over two years', () => {
    const posts = numberedPosts(400);
    expectGolden('archive-index.html', renderArchiveIndexPage(createRenderContext({ theme, blog, posts }), posts));
  });

  it('month page', () => {
    const koCtx = createRenderContext({ theme, blog, posts: [koreanPost] });
    expectGolden('archive-month.html', renderMonthPage(koCtx, monthOf(koreanPost.publishedAt), [koreanPost]));
  });

  it('404 page', () => {
    expectGolden('404.html', renderNotFoundPage(ctx));
  });

  it('redirect object', () => {
    expectGolden('redirect.html', renderRedirect(ctx, 'edge-caching', cachingPost.slug));
  });
});

describe('golden feeds and files', () => {
  it('rss.xml', () => expectGolden('rss.xml', renderRss(ctx, fixturePosts)));
  it('feed.json', () => expectGolden('feed.json', renderJsonFeed(ctx, fixturePosts)));
  it('sitemap.xml, sitemap-pages.xml and sitemap-posts-1.xml', () => {
    const [index, pages, posts, ...more] = sitemapRenders(ctx, fixturePosts, collectTags(fixturePosts)).map((render) => render());
    expect(more).toEqual([]);
    expectGolden('sitemap.xml', index!);
    expectGolden('sitemap-pages.xml', pages!);
    expectGolden('sitemap-posts-1.xml', posts!);
  });
  it('robots.txt', () => expectGolden('robots.txt', renderRobots(ctx)));
  it('llms.txt', () => expectGolden('llms.txt', renderLlmsTxt(ctx, newestFirst, fixturePosts.length)));
});
