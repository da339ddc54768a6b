import type { JobsRepo } from '../../db/jobsRepo.js';
import type { BlogsService } from '../../services/blogs.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import { presentBlog, presentBlogCreated, presentBlogListEntry, presentBlogUpdated } from '../presenters/blog.js';
import { presentPublishing } from '../presenters/publishing.js';
import type { RouteDef } from '../routeDef.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import { etagOf, ifMatch, sendWithEtag } from '../etag.js';
import { authOf } from '../state.js';
import {
  blogListSchema,
  blogCreatedSchema,
  blogUpdatedSchema,
  blogSchema,
  createBlogBody,
  publishingSchema,
  updateBlogBody,
  type CreateBlogBody,
  type UpdateBlogBody,
} from './blogs.schema.js';
import { deletedSchema } from './schemaParts.js';

interface Deps {
  blogs: BlogsService;
  jobs: JobsRepo;
  urls: SiteUrls;
}

export function blogRoutes({ blogs, jobs, urls }: Deps): RouteDef[] {
  // The blog as GET /blogs/:id shows it: what its ETag is made from.
  const asRead = (blog: BlogWithDomain) => presentBlog(blog, urls);
  return [
    {
      method: 'POST',
      path: '/blogs',
      operationId: 'createBlog',
      summary: 'Create a blog',
      description:
        'A new blog of the account, served at `https://<slug>.<service domain>/` once a post is published. The number of blogs is limited by the plan (403 with `required_plan`); a slug in use is 409.',
      tag: 'blogs',
      scope: 'blogs:write',
      body: createBlogBody,
      status: 201,
      response: blogCreatedSchema,
      handler: async (ctx) => {
        const body = ctx.state.body as CreateBlogBody;
        const blog = await blogs.create(authOf(ctx), body);
        ctx.status = 201;
        ctx.body = presentBlogCreated(blog, urls);
      },
    },
    {
      method: 'GET',
      path: '/blogs',
      operationId: 'listBlogs',
      summary: "List the account's blogs, most recent first",
      description: "Every blog of the key's account, with its address and custom domain.",
      tag: 'blogs',
      scope: 'blogs:read',
      status: 200,
      response: blogListSchema,
      handler: async (ctx) => {
        ctx.body = { data: (await blogs.list(authOf(ctx))).map(presentBlogListEntry) };
      },
    },
    {
      method: 'GET',
      path: '/blogs/:id',
      operationId: 'getBlog',
      summary: 'Get one blog with its theme configuration',
      description: 'The blog with its description, custom domain and theme configuration. Answers with an ETag for If-Match.',
      etag: 'read',
      tag: 'blogs',
      scope: 'blogs:read',
      status: 200,
      response: blogSchema,
      handler: async (ctx) => {
        sendWithEtag(ctx, presentBlog(await blogs.get(authOf(ctx), ctx.params.id ?? ''), urls));
      },
    },
    {
      method: 'PUT',
      path: '/blogs/:id',
      operationId: 'updateBlog',
      summary: 'Update name, description, theme_config (theme keys are plan-gated) or discoverable',
      description:
        'Changes only the fields sent; every published page is rendered again with the new name or theme. `discoverable` opts the blog in or out of the public discovery across blogs (`GET /v1/discover`): an opt-out hides its posts from the next request, an opt-in lists them once they are indexed (a background job). `theme_config` is merged into the current one (a key set to null is removed); setting a key needs the plan that includes it (403 with `required_plan`). With If-Match, a blog changed since you read it is 412.',
      etag: 'write',
      tag: 'blogs',
      scope: 'blogs:write',
      body: updateBlogBody,
      status: 200,
      response: blogUpdatedSchema,
      handler: async (ctx) => {
        const body = ctx.state.body as UpdateBlogBody;
        const blog = await blogs.update(
          authOf(ctx),
          ctx.params.id ?? '',
          {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(body.theme_config !== undefined ? { themeConfig: body.theme_config } : {}),
            ...(body.discoverable !== undefined ? { discoverable: body.discoverable } : {}),
          },
          ifMatch(ctx, (blog) => etagOf(asRead(blog))),
        );
        ctx.body = presentBlogUpdated(blog);
        ctx.set('ETag', etagOf(asRead(blog)));
      },
    },
    {
      method: 'DELETE',
      path: '/blogs/:id',
      operationId: 'deleteBlog',
      summary: 'Delete a blog, its posts, keys and domain, and its published site',
      description: 'Removes the blog with all its posts, media, keys, webhooks and custom domain, and its published site. Cannot be undone.',
      etag: 'write',
      tag: 'blogs',
      scope: 'blogs:write',
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await blogs.delete(
          authOf(ctx),
          ctx.params.id ?? '',
          ifMatch(ctx, (blog) => etagOf(asRead(blog))),
        );
        ctx.body = { deleted: true };
      },
    },
    {
      method: 'GET',
      path: '/blogs/:id/publishing',
      operationId: 'getPublishingStatus',
      summary: 'Publish jobs of the blog that are not done yet, with their last error',
      description: 'Publish jobs still waiting or failed, with their attempts and last error: what to look at when a page does not appear.',
      tag: 'blogs',
      scope: 'blogs:read',
      status: 200,
      response: publishingSchema,
      handler: async (ctx) => {
        const blog = await blogs.get(authOf(ctx), ctx.params.id ?? '');
        ctx.body = presentPublishing(await jobs.listOpenForBlog(blog.id));
      },
    },
  ];
}
