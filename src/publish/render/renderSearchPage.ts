/**
 * `<blog>/search/index.html`: the form and the script that answers it in the browser from the
 * static index (src/search/static). Without JavaScript the form still shows, and the page says
 * why nothing happens and where to browse instead. The page does not depend on the posts.
 */
import type { SiteObject } from '../../storage/siteStore.js';
import type { RenderContext } from './renderContext.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { labelsFor } from './renderLabels.js';
import { renderHtmlPage } from './renderLayout.js';
import { archiveIndexPath, assetPath, searchKey, searchPath, tagIndexPath } from './renderPaths.js';

export function renderSearchPage(ctx: RenderContext): SiteObject {
  const labels = labelsFor(ctx.lang);
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${labels.search} · ${ctx.blog.name}`,
      description: labels.searchDescription(ctx.blog.name),
      path: searchPath,
      ogType: 'website',
      current: 'search',
    },
    'search',
    { heading: labels.search, action: searchPath, script: assetPath(ctx.theme.searchScript), tagsHref: tagIndexPath, archiveHref: archiveIndexPath },
  );
  return { key: searchKey(ctx.blog.slug), body: html, contentType: CONTENT_TYPES.html, cacheControl: ctx.cache.page };
}
