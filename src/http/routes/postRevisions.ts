import { actorOf } from '../../services/authContext.js';
import type { PostRevisionsService } from '../../services/postRevisions.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import { presentPagination } from '../presenters/pagination.js';
import { presentPostUpdated } from '../presenters/post.js';
import { presentRevision, presentRevisionSummary } from '../presenters/postRevision.js';
import type { RouteDef } from '../routeDef.js';
import { etagOfPost, ifMatch } from '../etag.js';
import { authOf, blogOf, type AppContext } from '../state.js';
import { postSummarySchema } from './posts.schema.js';
import { listRevisionsQuery, revisionListSchema, revisionSchema, type ListRevisionsQuery } from './postRevisions.schema.js';

interface Deps {
  revisions: PostRevisionsService;
  urls: SiteUrls;
}

/** A post's history (docs/api-behaviour.md#revisions): the dashboard's History button sits on these. */
export function postRevisionRoutes({ revisions, urls }: Deps): RouteDef[] {
  const slugOf = (ctx: AppContext): string => ctx.params.slug ?? '';
  const revisionIdOf = (ctx: AppContext): string => ctx.params.revisionId ?? '';
  return [
    {
      method: 'GET',
      path: '/posts/:slug/revisions',
      operationId: 'listPostRevisions',
      summary: "List a post's revisions (newest first)",
      description:
        "Every change of the post's title or Markdown keeps a revision; edits by one key within five minutes of a revision's first change are coalesced into it. Listed newest first without their Markdown (`content_length` gives its size), a page at a time (`page`, `per_page` up to 100).",
      tag: 'posts',
      scope: 'posts:read',
      blogScoped: true,
      query: listRevisionsQuery,
      status: 200,
      response: revisionListSchema,
      handler: async (ctx) => {
        const q = ctx.state.query as ListRevisionsQuery;
        const { revisions: page, total } = await revisions.list(blogOf(ctx), slugOf(ctx), { page: q.page, perPage: q.per_page });
        ctx.body = { data: page.map(presentRevisionSummary), pagination: presentPagination(q.page, q.per_page, total) };
      },
    },
    {
      method: 'GET',
      path: '/posts/:slug/revisions/:revisionId',
      operationId: 'getPostRevision',
      summary: 'Get one revision of a post',
      description: "The revision's title and Markdown. A revision of another post, or one no longer kept, is 404.",
      tag: 'posts',
      scope: 'posts:read',
      blogScoped: true,
      status: 200,
      response: revisionSchema,
      handler: async (ctx) => {
        const blog = blogOf(ctx);
        ctx.body = presentRevision(await revisions.get(blog, slugOf(ctx), revisionIdOf(ctx)), urls.origin(blog));
      },
    },
    {
      method: 'POST',
      path: '/posts/:slug/revisions/:revisionId/restore',
      operationId: 'restorePostRevision',
      summary: "Restore a revision's title and Markdown",
      description:
        "Sets the post's title and content to the revision's, exactly as `PUT` with those two fields would (same checks; a published post's page is rendered again before the answer), and answers as `PUT` does, with the new ETag. The restore is itself a new revision. With If-Match, a post changed since you read it is 412 and nothing changes. Takes no request body.",
      etag: 'write',
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      status: 200,
      response: postSummarySchema,
      handler: async (ctx) => {
        const origin = urls.origin(blogOf(ctx));
        const tagOf = (post: { id: string; revision?: number }) => etagOfPost(post, origin);
        const post = await revisions.restore(blogOf(ctx), slugOf(ctx), revisionIdOf(ctx), actorOf(authOf(ctx)), ifMatch(ctx, tagOf));
        ctx.body = presentPostUpdated(post);
        ctx.set('ETag', tagOf(post));
      },
    },
  ];
}
