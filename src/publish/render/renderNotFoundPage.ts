/** `<blog>/404.html`, served for every missing path of the blog. */
import type { SiteObject } from '../../storage/siteStore.js';
import type { RenderContext } from './renderContext.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { labelsFor } from './renderLabels.js';
import { renderHtmlPage } from './renderLayout.js';
import { SITE_FILES, fileKey, homePath } from './renderPaths.js';

export function renderNotFoundPage(ctx: RenderContext): SiteObject {
  const labels = labelsFor(ctx.lang);
  // No canonical URL: the page answers at whatever address was missing, and must not be indexed.
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${labels.notFoundTitle} · ${ctx.blog.name}`,
      description: labels.notFoundText,
      path: null,
      ogType: 'website',
      robots: 'noindex',
    },
    '404',
    { homeHref: homePath },
  );
  return { key: fileKey(ctx.blog.slug, SITE_FILES.notFound), body: html, contentType: CONTENT_TYPES.html, cacheControl: ctx.cache.page };
}
