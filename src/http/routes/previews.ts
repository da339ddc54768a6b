/** The editor's live preview and preview links (issue #30; docs/dashboard.md#preview-links-and-live-preview). */
import type { LivePreview } from '../../services/livePreview.js';
import { PREVIEW_LINK_SECONDS } from '../../domain/previewLinks.js';
import type { PreviewLinks } from '../../services/previewLinks.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import type { RouteDef } from '../routeDef.js';
import { blogOf } from '../state.js';
import { previewBody, previewLinkBody, previewLinkSchema, previewSchema, type PreviewBody, type PreviewLinkBody } from './previews.schema.js';

interface Deps {
  live: LivePreview;
  links: PreviewLinks;
  urls: SiteUrls;
  /** The preview page of a token, as readers reach it (http/previewPages.ts serves it). */
  pageUrl: (token: string) => string;
}

export function previewRoutes({ live, links, urls, pageUrl }: Deps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/preview',
      operationId: 'previewContent',
      summary: "Render Markdown as the blog's post page would (the editor's live preview)",
      description:
        "Nothing is stored. `html` is byte for byte what the content region of the published post page will hold for this Markdown in this blog: the same renderer, sanitiser, highlighter and rewriting of the blog's media URLs (root-relative; resolve them against `base_url`). Content limits are those of a post: 1 MB of Markdown, 3 MB of HTML.",
      tag: 'posts',
      scope: 'posts:read',
      blogScoped: true,
      body: previewBody,
      status: 200,
      response: previewSchema,
      handler: async (ctx) => {
        const { content_md } = ctx.state.body as PreviewBody;
        const blog = blogOf(ctx);
        ctx.body = { html: await live.html(blog, content_md), base_url: urls.origin(blog) };
      },
    },
    {
      method: 'POST',
      path: '/posts/:slug/preview-link',
      operationId: 'createPreviewLink',
      summary: 'Make a secret link that shows the post as it is now, draft or not',
      description:
        "Whoever has `url` sees the post's current text with the blog's theme, without signing in, until `expires_at` (`expires_in` seconds: 60 to 30 days, default 7 days) or until the post's links are revoked or the post is deleted. The page is on the API host (never on the blog or its CDN), is not indexed and is not counted in analytics. The URL is shown only in this answer.",
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      body: previewLinkBody,
      status: 201,
      response: previewLinkSchema,
      secret: { field: 'url', resource: 'preview link' },
      handler: async (ctx) => {
        const { expires_in = PREVIEW_LINK_SECONDS.default } = ctx.state.body as PreviewLinkBody;
        const { token, expiresAt } = await links.create(blogOf(ctx), ctx.params.slug ?? '', expires_in);
        ctx.body = { url: pageUrl(token), expires_at: expiresAt };
      },
    },
    {
      method: 'DELETE',
      path: '/posts/:slug/preview-link',
      operationId: 'revokePreviewLinks',
      summary: 'Revoke every preview link of the post',
      description: 'Every link made for the post stops working at once (404). Revoking a post that has none is not an error. Takes no request body.',
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      status: 204,
      handler: async (ctx) => {
        await links.revokeAll(blogOf(ctx), ctx.params.slug ?? '');
      },
    },
  ];
}
