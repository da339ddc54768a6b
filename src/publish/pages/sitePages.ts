/**
 * The objects of a blog that no post changes: the theme's assets, the search page, the 404 page
 * and robots.txt. A post's change writes them all the same; the store's hashes make that a
 * no-op unless they were lost.
 */
import { siteAssets, type ThemeAsset } from '../render/assets.js';
import { renderRobots } from '../render/feeds.js';
import { renderNotFoundPage } from '../render/renderNotFoundPage.js';
import { renderSearchPage } from '../render/renderSearchPage.js';
import { onePage, type PageType } from './pageType.js';

/** Theme assets, written first so a page never goes out before its stylesheet. */
export const assets: PageType<ThemeAsset> = {
  name: 'assets',
  all: (site) => site.ctx.theme.assets,
  affectedBy: (site) => ({ render: site.ctx.theme.assets, remove: [] }),
  render: (site, asset) => siteAssets(site.ctx.blog.slug, [asset])[0]!,
  pageId: (asset) => asset.fileName,
};

export const searchPage = onePage('search page', (site) => renderSearchPage(site.ctx));

export const notFoundPage = onePage('404 page', (site) => renderNotFoundPage(site.ctx));

export const robotsTxt = onePage('robots.txt', (site) => renderRobots(site.ctx));
