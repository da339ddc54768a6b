import { actorOf } from '../../services/authContext.js';
import { BadRequestError } from '../../domain/errors.js';
import type { PostsService } from '../../services/posts.js';
import type { MediaService } from '../../services/media.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import { MEDIA_ID } from './media.schema.js';
import { MEDIA_REF, toMediaRefs } from '../../media/mediaRefs.js';
import { originalName, imageOf } from '../../media/mediaNames.js';
import type { PostTransitions } from '../../services/postTransitions.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import { presentPagination } from '../presenters/pagination.js';
import { presentPost, presentPostCreated, presentPostPublished, presentPostScheduled, presentPostSummary, presentPostUpdated } from '../presenters/post.js';
import type { RouteDef } from '../routeDef.js';
import { etagOfPost, ifMatch, sendJson } from '../etag.js';
import { AnswerCache } from '../answerCache.js';
import { authOf, blogOf, type AppContext } from '../state.js';
import {
  createPostBody,
  listPostsQuery,
  postCreatedSchema,
  postListSchema,
  postPublishedSchema,
  postScheduledSchema,
  postSchema,
  postSummarySchema,
  scheduleBody,
  updatePostBody,
  type ListPostsQuery,
  type PostBodyInput,
  type ScheduleBody,
} from './posts.schema.js';
import { deletedSchema } from './schemaParts.js';
import { requireTimestamp } from '../../services/timestamps.js';

interface Deps {
  posts: PostsService;
  media: MediaService;
  transitions: PostTransitions;
  urls: SiteUrls;
}

/**
 * og_image may name an image of the blog's media by id. Either way the blog's own media are
 * stored without the host (mediaRefs.ts), so a new domain does not break them.
 */
async function ogImageOf(media: MediaService, urls: SiteUrls, blog: BlogWithDomain, value: string | null): Promise<string | null> {
  if (value === null) return value;
  if (!MEDIA_ID.test(value)) return toMediaRefs(value, urls.origins(blog));
  const found = await media.find(blog, value);
  if (!found)
    throw new BadRequestError(`meta.og_image names media "${value}", which this blog does not have`, {
      details: [{ field: 'meta.og_image', message: 'no such media in this blog' }],
    });
  return `${MEDIA_REF}${originalName(imageOf(found))}`;
}

async function postInput(body: PostBodyInput, ogImage: (value: string | null) => Promise<string | null>, contentOf: (markdown: string) => string) {
  return {
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.content !== undefined ? { contentMd: contentOf(body.content) } : {}),
    ...(body.slug !== undefined ? { slug: body.slug } : {}),
    ...(body.tags !== undefined ? { tags: body.tags } : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
    ...(body.meta?.description !== undefined ? { metaDescription: body.meta.description } : {}),
    ...(body.meta?.og_image !== undefined ? { ogImageUrl: await ogImage(body.meta.og_image) } : {}),
    ...(body.published_at !== undefined ? { publishedAt: requireTimestamp('published_at', body.published_at) } : {}),
    ...(body.aliases !== undefined ? { aliases: body.aliases } : {}),
  };
}

export function postRoutes({ posts, transitions, urls, media }: Deps): RouteDef[] {
  const slugOf = (ctx: AppContext): string => ctx.params.slug ?? '';
  const ogImage = (ctx: AppContext) => (value: string | null) => ogImageOf(media, urls, blogOf(ctx), value);
  const tagOf = (ctx: AppContext) => (post: { id: string; revision?: number }) => etagOfPost(post, urls.origin(blogOf(ctx)));
  const contentOf = (ctx: AppContext) => (markdown: string) => toMediaRefs(markdown, urls.origins(blogOf(ctx)));
  // Serialised post answers by row version (answerCache.ts): one per app.
  const answers = new AnswerCache();
  return [
    {
      method: 'POST',
      path: '/posts',
      operationId: 'createPost',
      summary: 'Create a post',
      description:
        "Writes a post from Markdown into the blog: a draft unless `status` is `published`, which renders its page before answering. The slug is made from the title when not given (Hangul and other scripts kept); a slug the blog already uses is 409. `meta.og_image` may name an image of the blog's media by id.",
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      body: createPostBody,
      status: 201,
      response: postCreatedSchema,
      handler: async (ctx) => {
        const body = ctx.state.body as PostBodyInput & { title: string; content: string };
        const { metaDescription, ...rest } = await postInput(body, ogImage(ctx), contentOf(ctx));
        const post = await posts.create(blogOf(ctx), {
          ...rest,
          title: body.title,
          contentMd: contentOf(ctx)(body.content),
          source: { keyId: actorOf(authOf(ctx)) },
          // On creation, a null description means the same as none: generate one.
          ...(typeof metaDescription === 'string' ? { metaDescription } : {}),
        });
        ctx.status = 201;
        ctx.body = presentPostCreated(post, blogOf(ctx), urls);
      },
    },
    {
      method: 'GET',
      path: '/posts',
      operationId: 'listPosts',
      summary: 'List posts',
      description:
        'Drafts, published and scheduled posts of the blog without their content, filtered by `status` or `tag`, sorted by `sort` and `order`, a page at a time (`page`, `per_page` up to 100).',
      tag: 'posts',
      scope: 'posts:read',
      blogScoped: true,
      query: listPostsQuery,
      status: 200,
      response: postListSchema,
      handler: async (ctx) => {
        const q = ctx.state.query as ListPostsQuery;
        const { posts: page, total } = await posts.list(blogOf(ctx), {
          ...(q.status ? { status: q.status } : {}),
          ...(q.tag !== undefined ? { tag: q.tag } : {}),
          page: q.page,
          perPage: q.per_page,
          sort: q.sort,
          order: q.order,
        });
        ctx.body = { data: page.map(presentPostSummary), pagination: presentPagination(q.page, q.per_page, total) };
      },
    },
    {
      method: 'GET',
      path: '/posts/:slug',
      operationId: 'getPost',
      summary: 'Get a post',
      description:
        'The whole post: Markdown source, rendered HTML, tags, status and dates. Answers with an ETag: send it back as If-Match to update or delete only the version you read.',
      etag: 'read',
      tag: 'posts',
      scope: 'posts:read',
      blogScoped: true,
      status: 200,
      response: postSchema,
      handler: async (ctx) => {
        const blog = blogOf(ctx);
        const slug = slugOf(ctx);
        // The answer names media on the blog's current origin (a custom domain changes it), and
        // so does its tag, which keys the answer cache.
        const origin = urls.origin(blog);
        const version = await posts.version(blog, slug);
        const versionTag = etagOfPost(version, origin);
        const cached = answers.get(versionTag);
        if (cached !== undefined) return sendJson(ctx, cached, versionTag);
        const post = await posts.get(blog, slug);
        // Changed between the two reads: the answer names what was read.
        const etag = post.id === version.id && post.revision === version.revision ? versionTag : etagOfPost(post, origin);
        const json = JSON.stringify(presentPost(post, origin, await posts.aliasesOf(post)));
        answers.set(etag, json);
        sendJson(ctx, json, etag);
      },
    },
    {
      method: 'PUT',
      path: '/posts/:slug',
      operationId: 'updatePost',
      summary: 'Update a post (only the fields present change)',
      description:
        "Changes only the fields sent. A published post's page is rendered again before the answer; changing its slug leaves a redirect from the old address. With If-Match, a post changed since you read it is 412 and nothing changes.",
      etag: 'write',
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      body: updatePostBody,
      status: 200,
      response: postSummarySchema,
      handler: async (ctx) => {
        const post = await posts.update(
          blogOf(ctx),
          slugOf(ctx),
          // The key of the request: its edits coalesce into one revision (services/revisionRecord.ts).
          { ...(await postInput(ctx.state.body as PostBodyInput, ogImage(ctx), contentOf(ctx))), source: { keyId: actorOf(authOf(ctx)) } },
          ifMatch(ctx, tagOf(ctx)),
        );
        ctx.body = presentPostUpdated(post);
        ctx.set('ETag', tagOf(ctx)(post));
      },
    },
    {
      method: 'DELETE',
      path: '/posts/:slug',
      operationId: 'deletePost',
      summary: 'Delete a post',
      description:
        "Removes the post for good, with its page and its entries in the blog's lists, feeds and search. With If-Match, a post changed since you read it is 412.",
      etag: 'write',
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await posts.delete(blogOf(ctx), slugOf(ctx), ifMatch(ctx, tagOf(ctx)));
        ctx.body = { deleted: true };
      },
    },
    {
      method: 'POST',
      path: '/posts/:slug/publish',
      operationId: 'publishPost',
      summary: 'Publish a post (draft or scheduled → published; idempotent when published)',
      description:
        "Puts a draft or scheduled post on the blog now; the answer comes once its page is written, with the page's URL. Publishing a published post changes nothing. Takes no request body.",
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      status: 200,
      response: postPublishedSchema,
      handler: async (ctx) => {
        const post = await transitions.publish(blogOf(ctx), slugOf(ctx));
        ctx.body = presentPostPublished(post, blogOf(ctx), urls);
      },
    },
    {
      method: 'POST',
      path: '/posts/:slug/schedule',
      operationId: 'schedulePost',
      summary: 'Schedule a post for later publication (Creator plan or higher)',
      description:
        'Publishes the post at `scheduled_at` (ISO 8601 with a time zone, in the future); until then it stays off the blog. Needs the Creator plan or higher (403 with `required_plan` otherwise).',
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      body: scheduleBody,
      status: 200,
      response: postScheduledSchema,
      handler: async (ctx) => {
        const { scheduled_at } = ctx.state.body as ScheduleBody;
        const post = await transitions.schedule(authOf(ctx).account, blogOf(ctx), slugOf(ctx), requireTimestamp('scheduled_at', scheduled_at));
        ctx.body = presentPostScheduled(post);
      },
    },
    {
      method: 'POST',
      path: '/posts/:slug/unpublish',
      operationId: 'unpublishPost',
      summary: 'Move a published or scheduled post back to draft',
      description:
        'Takes a published or scheduled post off the blog (its page, lists, feeds and search entries) and keeps it as a draft. Takes no request body.',
      tag: 'posts',
      scope: 'posts:write',
      blogScoped: true,
      status: 200,
      response: postSummarySchema,
      handler: async (ctx) => {
        const post = await transitions.unpublish(blogOf(ctx), slugOf(ctx));
        ctx.body = presentPostUpdated(post);
      },
    },
  ];
}
