/** The home page: the newest posts, as whole archive pages (archive.ts newestListing). */
import { HOME_LIST_MAX } from '../render/archive.js';
import { renderHomePage } from '../render/renderListPages.js';
import { onePage } from './pageType.js';

export const homePage = onePage('home page', (site) => renderHomePage(site.ctx, site.posts.slice(-HOME_LIST_MAX).reverse(), site.posts.length), {
  newest: HOME_LIST_MAX,
});
