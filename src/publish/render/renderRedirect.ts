/**
 * The object left at a renamed post's old address, or at one of its aliases. Stores and the site server answer it with a
 * 301 to `redirectTo`; the body is a fallback for hosts that serve it as a page.
 */
import type { SiteObject } from '../../storage/siteStore.js';
import type { RenderContext } from './renderContext.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { labelsFor } from './renderLabels.js';
import { absoluteUrl, postPath, redirectKey } from './renderPaths.js';

/** `from` is an old slug, or an alias path (starting with `/`). */
export function renderRedirect(ctx: RenderContext, from: string, newSlug: string): SiteObject {
  const labels = labelsFor(ctx.lang);
  // Percent-encoded, so the Location header and S3 redirect metadata stay ASCII.
  const target = postPath(newSlug);
  const html = ctx.theme.render('redirect', {
    lang: ctx.lang,
    labels,
    title: `${labels.movedTitle} · ${ctx.blog.name}`,
    href: target,
    canonical: absoluteUrl(ctx.baseUrl, target),
  });
  return {
    key: redirectKey(ctx.blog.slug, from),
    body: html,
    contentType: CONTENT_TYPES.html,
    cacheControl: ctx.cache.page,
    redirectTo: target,
  };
}
