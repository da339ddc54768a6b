/**
 * The sitemaps (render/sitemap.ts): the index and the pages' sitemap, which every change
 * rewrites, and the posts' chunks, numbered from the oldest post so a new post touches the last.
 */
import { HOME_PAGE_SIZE, type TagGroup } from '../render/archive.js';
import type { RenderContext } from '../render/renderContext.js';
import {
  SITEMAP_CHUNK_SIZE,
  fileKeyOfSitemapChunk,
  renderSitemapChunk,
  renderSitemapIndex,
  renderSitemapPages,
  sitemapChunkCount,
  sitemapChunkSlice,
} from '../render/sitemap.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import type { SiteObject } from '../../storage/siteStore.js';
import { locate, numberedPages, pagesFor } from './listChange.js';
import type { PageType } from './pageType.js';
import { viewOfPlan } from './siteView.js';

/** `sitemap.xml`, `sitemap-pages.xml`, or the number of a posts' chunk. */
export type SitemapPage = 'index' | 'pages' | number;

export const sitemaps: PageType<SitemapPage> = {
  name: 'sitemaps',
  all: (site) => ['index', 'pages', ...Array.from({ length: sitemapChunkCount(site.posts.length) }, (_, i) => i + 1)],
  affectedBy: (site, change) => {
    const { posts, ctx } = site;
    const chunks = numberedPages(pagesFor(locate(posts, change), posts.length, SITEMAP_CHUNK_SIZE), sitemapChunkCount(posts.length), (chunk) =>
      fileKeyOfSitemapChunk(ctx.blog.slug, chunk),
    );
    return { render: ['index', 'pages', ...chunks.render], remove: chunks.remove };
  },
  render: (site, page) => {
    if (page === 'index') return renderSitemapIndex(site.ctx, site.posts.length);
    if (page === 'pages') return renderSitemapPages(site.ctx, site.posts.slice(-HOME_PAGE_SIZE).reverse(), site.tagGroups());
    return renderSitemapChunk(site.ctx, page, sitemapChunkSlice(site.posts, page));
  },
  listedByNextPost: (posts) => ({ lists: [sitemapChunkSlice(posts, sitemapChunkCount(posts.length))] }),
};

/**
 * Every sitemap of a blog, each rendered when its function is called: `oldestFirst` is all its
 * published posts, `tags` its tag groups.
 */
export function sitemapRenders(ctx: RenderContext, oldestFirst: readonly SitePostSummary[], tags: readonly TagGroup<SitePostSummary>[]): (() => SiteObject)[] {
  const site = { ...viewOfPlan({ ctx, posts: oldestFirst, newest: [], redirects: [] }), tagGroups: () => tags };
  return sitemaps.all(site).map((page) => () => sitemaps.render(site, page));
}
