/**
 * The MCP server's tools (issue 14): each is one or two calls of the typed API client, so an
 * assistant can do exactly what any API client with the same key can do — the API checks the
 * key's scopes and plan, validates the input and answers errors, which come back to the
 * assistant as tool errors with the API's `error` and `message`.
 *
 * Input schemas are the JSON Schemas the API validates with (src/http/routes/*.schema.ts, as
 * the OpenAPI document publishes them), plus `blog_id` where a post, search or media call needs
 * a blog and the key is not bound to one (default: FOLIO_BLOG_ID).
 */
import type { FolioClient } from '../client/folioClient.js';
import { publicSchema } from '../http/openapi/publicSchema.js';
import { createPostBody, listPostsQuery, scheduleBody, updatePostBody } from '../http/routes/posts.schema.js';
import { searchQuery } from '../http/routes/search.schema.js';

type Json = Record<string, unknown>;

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Every tool acts on this Folio only. */
  openWorldHint: false;
}

export interface FolioTool {
  name: string;
  description: string;
  inputSchema: Json & { type: 'object' };
  annotations: ToolAnnotations;
  run(client: FolioClient, args: Json): Promise<unknown>;
}

const blogId = {
  type: 'string',
  description: 'The blog to act on; needed when the API key is not bound to a blog and FOLIO_BLOG_ID is not set (list_blogs gives the ids)',
} as const;
const postSlug = { type: 'string', minLength: 1, maxLength: 100, description: 'The slug of the post' } as const;

/** An API schema as a tool input, with `extra` properties (identifiers) added. */
function input(schema: object, extra: Json = {}, required: string[] = []): Json & { type: 'object' } {
  const published = publicSchema(schema) as { properties?: Json; required?: string[] };
  return {
    ...published,
    type: 'object',
    properties: { ...extra, ...published.properties },
    required: [...required, ...(published.required ?? [])],
  };
}

function annotations(title: string, kind: 'read' | 'write' | 'destructive', idempotent = kind !== 'write'): ToolAnnotations {
  return { title, readOnlyHint: kind === 'read', destructiveHint: kind === 'destructive', idempotentHint: idempotent, openWorldHint: false };
}

const str = (args: Json, name: string): string => String(args[name]);
const blogOf = (args: Json): string | undefined => (typeof args.blog_id === 'string' ? args.blog_id : undefined);
/** The arguments without the identifiers the tool itself consumes: what the API receives. */
function without(args: Json, ...names: string[]): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(args)) if (!names.includes(key)) out[key] = value;
  return out;
}

/** A tool that names one post and sends nothing else. */
function postTool(name: string, description: string, notes: ToolAnnotations, run: (client: FolioClient, slug: string, blogId: string | undefined) => Promise<unknown>): FolioTool {
  return {
    name,
    description,
    inputSchema: input({ type: 'object', additionalProperties: false, properties: {} }, { blog_id: blogId, slug: postSlug }, ['slug']),
    annotations: notes,
    run: (client, args) => run(client, str(args, 'slug'), blogOf(args)),
  };
}

export const TOOLS: readonly FolioTool[] = [
  {
    name: 'list_blogs',
    description: 'Lists the blogs this API key can reach: id, slug, name, description, custom domain.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: annotations('List blogs', 'read'),
    run: (client) => client.listBlogs(),
  },
  {
    name: 'list_posts',
    description: 'Lists posts of a blog (drafts, published and scheduled), newest first by default, with pagination.',
    inputSchema: input(listPostsQuery, { blog_id: blogId }),
    annotations: annotations('List posts', 'read'),
    run: (client, args) => client.listPosts(without(args, 'blog_id'), blogOf(args)),
  },
  postTool('get_post', 'Returns one post in full: Markdown source, rendered HTML, tags, status and dates.', annotations('Read a post', 'read'), (client, slug, blog) =>
    client.getPost(slug, blog),
  ),
  {
    name: 'create_post',
    description: 'Creates a post from Markdown. A draft unless status is "published"; the slug is made from the title when omitted.',
    inputSchema: input(createPostBody, { blog_id: blogId }),
    annotations: annotations('Create a post', 'write'),
    run: (client, args) => client.createPost(without(args, 'blog_id') as Parameters<FolioClient['createPost']>[0], blogOf(args)),
  },
  {
    name: 'update_post',
    description: 'Changes a post: only the fields given in `changes` change (title, content, slug, tags, status, meta). A published post is re-published.',
    inputSchema: input({ type: 'object', additionalProperties: false, properties: { changes: publicSchema(updatePostBody) } }, { blog_id: blogId, slug: postSlug }, ['slug', 'changes']),
    annotations: annotations('Edit a post', 'destructive', true),
    run: (client, args) => client.updatePost(str(args, 'slug'), args.changes as Parameters<FolioClient['updatePost']>[1], blogOf(args)),
  },
  postTool('publish_post', 'Publishes a draft or scheduled post now; answers with its public URL once the page is written.', annotations('Publish a post', 'write', true), (client, slug, blog) =>
    client.publishPost(slug, blog),
  ),
  {
    name: 'schedule_post',
    description: 'Schedules a post to be published at a future time (ISO 8601 with a time zone). Needs the Creator plan or higher.',
    inputSchema: input(scheduleBody, { blog_id: blogId, slug: postSlug }, ['slug']),
    annotations: annotations('Schedule a post', 'write', true),
    run: (client, args) => client.schedulePost(str(args, 'slug'), str(args, 'scheduled_at'), blogOf(args)),
  },
  postTool('unpublish_post', 'Takes a published or scheduled post off the blog; it stays as a draft.', annotations('Unpublish a post', 'destructive'), (client, slug, blog) =>
    client.unpublishPost(slug, blog),
  ),
  postTool('delete_post', 'Deletes a post for good, and its page from the blog.', annotations('Delete a post', 'destructive'), (client, slug, blog) => client.deletePost(slug, blog)),
  {
    name: 'search_posts',
    description: 'Searches the published posts of a blog (all words must match; Korean particles are understood).',
    inputSchema: input(searchQuery, { blog_id: blogId }),
    annotations: annotations('Search posts', 'read'),
    run: (client, args) => client.search(str(args, 'q'), without(args, 'blog_id', 'q'), blogOf(args)),
  },
  {
    name: 'upload_media',
    description: 'Uploads an image (JPEG, PNG, WebP, AVIF or GIF) to the blog\'s media; answers with its URLs and variants, usable in posts and as meta.og_image.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['data_base64', 'content_type'],
      properties: {
        blog_id: blogId,
        data_base64: { type: 'string', minLength: 1, description: 'The image bytes, base64-encoded' },
        content_type: { enum: ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'] },
      },
    },
    annotations: annotations('Upload an image', 'write'),
    run: (client, args) => client.uploadMedia(Buffer.from(str(args, 'data_base64'), 'base64'), str(args, 'content_type'), blogOf(args)),
  },
];
