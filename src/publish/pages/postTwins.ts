/**
 * Each post's Markdown twin, `/<slug>.md` (render/renderPostTwin.ts). A twin shows the post
 * alone, so only the post's own change re-renders it. A renamed, unpublished or deleted post's
 * old twin is removed, never redirected: the old HTML address redirects to the post's page,
 * whose head names the new twin, and llms.txt lists the twins by their current address.
 */
import { renderPostTwin } from '../render/renderPostTwin.js';
import { twinKey } from '../render/renderPaths.js';
import type { SitePost } from '../../domain/siteTypes.js';
import type { PerPostPages } from './pageType.js';

export const postTwins: PerPostPages<SitePost> = {
  name: 'post twins',
  affectedBy: (site, change) => {
    const { post, previousSlug } = change;
    const gone = previousSlug !== undefined && previousSlug !== post?.slug;
    return { render: post ? [post] : [], remove: gone ? [twinKey(site.ctx.blog.slug, previousSlug)] : [] };
  },
  render: (site, post) => renderPostTwin(site.ctx, post),
  pageId: (post) => post.id,
  renderPost: (ctx, post) => renderPostTwin(ctx, post),
};
