/** The MCP tools of posts and search (toolKit.ts for the parts, tools.ts for the list). */
import type { FolioClient, PostInput, PostUpdate } from '../client/folioClient.js';
import { publicSchema } from '../http/openapi/publicSchema.js';
import { createPostBody, listPostsQuery, scheduleBody, updatePostBody } from '../http/routes/posts.schema.js';
import { listRevisionsQuery } from '../http/routes/postRevisions.schema.js';
import { previewLinkBody } from '../http/routes/previews.schema.js';
import { searchQuery } from '../http/routes/search.schema.js';
import {
  annotations,
  blogIdArg,
  blogOf,
  idempotencyKeyArg,
  idsOnly,
  ifMatchArg,
  input,
  str,
  withEtag,
  without,
  writeOf,
  type FolioTool,
  type ToolAnnotations,
} from './toolKit.js';

const postSlug = { type: 'string', minLength: 1, maxLength: 100, description: 'The slug of the post (list_posts gives them)' } as const;
const revisionIdArg = { type: 'string', minLength: 1, maxLength: 100, description: 'The revision (list_revisions gives the ids)' } as const;

/** A tool that names one post and sends nothing else. */
function postTool(
  name: string,
  description: string,
  notes: ToolAnnotations,
  run: (client: FolioClient, slug: string, blogId: string | undefined) => Promise<unknown>,
): FolioTool {
  return {
    name,
    description,
    inputSchema: idsOnly({ blog_id: blogIdArg, slug: postSlug }, ['slug']),
    annotations: notes,
    run: (client, args) => run(client, str(args, 'slug'), blogOf(args)),
  };
}

export const POST_TOOLS: readonly FolioTool[] = [
  {
    name: 'list_posts',
    description: 'Lists posts of a blog (drafts, published and scheduled) without their content, newest first by default, with pagination.',
    inputSchema: input(listPostsQuery, { blog_id: blogIdArg }),
    annotations: annotations('List posts', 'read'),
    run: (client, args) => client.listPosts(without(args, 'blog_id'), blogOf(args)),
  },
  {
    name: 'get_post',
    description:
      'Returns one post in full: Markdown source, rendered HTML, tags, status and dates, and its etag (pass it as if_match to update_post or delete_post to change only this version).',
    inputSchema: idsOnly({ blog_id: blogIdArg, slug: postSlug }, ['slug']),
    annotations: annotations('Read a post', 'read'),
    run: async (client, args) => withEtag(await client.getPostVersion(str(args, 'slug'), blogOf(args))),
  },
  {
    name: 'create_post',
    description:
      'Creates a post from Markdown. A draft unless status is "published"; the slug is made from the title when omitted. Images: upload_media first and use its url in the Markdown.',
    inputSchema: input(createPostBody, { blog_id: blogIdArg, idempotency_key: idempotencyKeyArg }),
    annotations: annotations('Create a post', 'write'),
    run: (client, args) => client.createPost(without(args, 'blog_id', 'idempotency_key') as PostInput, blogOf(args), writeOf(args)),
  },
  {
    name: 'update_post',
    description:
      'Changes a post: only the fields given in `changes` change (title, content, slug, tags, status, meta). A published post is re-published; a changed slug leaves a redirect.',
    inputSchema: input(
      {
        type: 'object',
        additionalProperties: false,
        properties: { changes: { ...(publicSchema(updatePostBody) as object), description: 'The fields to change, at least one' } },
      },
      { blog_id: blogIdArg, slug: postSlug, if_match: ifMatchArg },
      ['slug', 'changes'],
    ),
    annotations: annotations('Edit a post', 'destructive', true),
    bodyArgument: 'changes',
    run: (client, args) => client.updatePost(str(args, 'slug'), args.changes as PostUpdate, blogOf(args), writeOf(args)),
  },
  postTool(
    'publish_post',
    'Publishes a draft or scheduled post now; answers with its public URL once the page is written.',
    annotations('Publish a post', 'write', true),
    (client, slug, blog) => client.publishPost(slug, blog),
  ),
  {
    name: 'schedule_post',
    description: 'Schedules a post to be published at a future time (ISO 8601 with a time zone). Needs the Creator plan or higher.',
    inputSchema: input(scheduleBody, { blog_id: blogIdArg, slug: postSlug }, ['slug']),
    annotations: annotations('Schedule a post', 'write', true),
    run: (client, args) => client.schedulePost(str(args, 'slug'), str(args, 'scheduled_at'), blogOf(args)),
  },
  postTool(
    'unpublish_post',
    'Takes a published or scheduled post off the blog; it stays as a draft.',
    annotations('Unpublish a post', 'destructive'),
    (client, slug, blog) => client.unpublishPost(slug, blog),
  ),
  {
    name: 'delete_post',
    description: 'Deletes a post for good, and its page from the blog.',
    inputSchema: idsOnly({ blog_id: blogIdArg, slug: postSlug, if_match: ifMatchArg }, ['slug']),
    annotations: annotations('Delete a post', 'destructive'),
    run: (client, args) => client.deletePost(str(args, 'slug'), blogOf(args), writeOf(args)),
  },
  {
    name: 'list_revisions',
    description:
      "Lists a post's revisions, newest first, without their text: each change of title or content keeps one (edits within five minutes coalesce); the newest 50 and one a day before them are kept.",
    inputSchema: input(listRevisionsQuery, { blog_id: blogIdArg, slug: postSlug }, ['slug']),
    annotations: annotations('List revisions', 'read'),
    run: (client, args) => client.listPostRevisions(str(args, 'slug'), without(args, 'blog_id', 'slug'), blogOf(args)),
  },
  {
    name: 'get_revision',
    description: 'Returns one revision of a post: its title and Markdown as they were.',
    inputSchema: idsOnly({ blog_id: blogIdArg, slug: postSlug, revision_id: revisionIdArg }, ['slug', 'revision_id']),
    annotations: annotations('Read a revision', 'read'),
    run: (client, args) => client.getPostRevision(str(args, 'slug'), str(args, 'revision_id'), blogOf(args)),
  },
  {
    name: 'restore_revision',
    description:
      "Sets a post's title and content back to a revision's, as update_post would (a published post is re-published); the restore is itself a new revision.",
    inputSchema: idsOnly({ blog_id: blogIdArg, slug: postSlug, revision_id: revisionIdArg, if_match: ifMatchArg }, ['slug', 'revision_id']),
    annotations: annotations('Restore a revision', 'destructive'),
    run: (client, args) => client.restorePostRevision(str(args, 'slug'), str(args, 'revision_id'), blogOf(args), writeOf(args)),
  },
  {
    name: 'create_preview_link',
    description:
      "Makes a secret link that shows the post as it is now (a draft too) with the blog's theme, to anyone who has it, without signing in; it expires after expires_in seconds (60 to 30 days, default 7 days). The url is in this answer only.",
    inputSchema: input(previewLinkBody, { blog_id: blogIdArg, slug: postSlug }, ['slug']),
    annotations: annotations('Make a preview link', 'write'),
    run: (client, args) => client.createPreviewLink(str(args, 'slug'), without(args, 'blog_id', 'slug'), blogOf(args)),
  },
  {
    name: 'search_posts',
    description: 'Searches the published posts of a blog (all words must match; Korean particles are understood).',
    inputSchema: input(searchQuery, { blog_id: blogIdArg }),
    annotations: annotations('Search posts', 'read'),
    run: (client, args) => client.search(str(args, 'q'), without(args, 'blog_id', 'q'), blogOf(args)),
  },
  {
    name: 'get_analytics',
    description:
      "Reader analytics (Starter plan or higher): without slug, the blog's views and daily visitors of the last 7 and 30 days, top posts, daily views and referrers; with slug, the same for one post.",
    inputSchema: idsOnly({ blog_id: blogIdArg, slug: { ...postSlug, description: 'A post, for its own numbers (omit for the whole blog)' } }),
    annotations: annotations('Get analytics', 'read'),
    run: (client, args) => (typeof args.slug === 'string' ? client.postAnalytics(args.slug, blogOf(args)) : client.analyticsOverview(blogOf(args))),
  },
];
