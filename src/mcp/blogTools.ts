/** The MCP tools of blogs and their custom domains (toolKit.ts for the parts, tools.ts for the list). */
import type { BlogInput, BlogUpdate } from '../client/folioClient.js';
import { createBlogBody, updateBlogBody } from '../http/routes/blogs.schema.js';
import { registerDomainBody } from '../http/routes/domains.js';
import {
  annotations,
  blogPathArg,
  blogPathOf,
  idempotencyKeyArg,
  idsOnly,
  ifMatchArg,
  input,
  str,
  withEtag,
  without,
  writeOf,
  type FolioTool,
} from './toolKit.js';

export const BLOG_TOOLS: readonly FolioTool[] = [
  {
    name: 'list_blogs',
    description:
      "Lists the account's blogs: id, slug, name, description, custom domain, whether listed by discovery. Start here: the other tools take a blog's id as blog_id.",
    inputSchema: idsOnly({}),
    annotations: annotations('List blogs', 'read'),
    run: (client) => client.listBlogs(),
  },
  {
    name: 'get_blog',
    description: 'Returns one blog with its address, custom domain and theme configuration, and its etag (pass it as if_match to update_blog or delete_blog).',
    inputSchema: idsOnly({ blog_id: blogPathArg }),
    annotations: annotations('Read a blog', 'read'),
    run: async (client, args) => withEtag(await client.getBlogVersion(blogPathOf(client, args))),
  },
  {
    name: 'create_blog',
    description: 'Creates a blog, served at https://<slug>.<service domain>/ once a post is published. The number of blogs depends on the plan.',
    inputSchema: input(createBlogBody, { idempotency_key: idempotencyKeyArg }),
    annotations: annotations('Create a blog', 'write'),
    run: (client, args) => client.createBlog(without(args, 'idempotency_key') as BlogInput, writeOf(args)),
  },
  {
    name: 'update_blog',
    description:
      "Changes a blog's name, description, theme_config (merged into the current one; null removes a key) or discoverable (opts in or out of the public discovery across blogs, GET /v1/discover); a new name, description or theme renders every published page again.",
    inputSchema: input(updateBlogBody, { blog_id: blogPathArg, if_match: ifMatchArg }),
    annotations: annotations('Edit a blog', 'destructive', true),
    run: (client, args) => client.updateBlog(blogPathOf(client, args), without(args, 'blog_id', 'if_match') as BlogUpdate, writeOf(args)),
  },
  {
    name: 'delete_blog',
    description: 'Deletes a blog with all its posts, media, keys, webhooks and domain, and takes its site down. Cannot be undone.',
    inputSchema: idsOnly({ blog_id: { ...blogPathArg, description: 'The blog to delete (list_blogs gives the ids)' }, if_match: ifMatchArg }, ['blog_id']),
    annotations: annotations('Delete a blog', 'destructive'),
    run: (client, args) => client.deleteBlog(str(args, 'blog_id'), writeOf(args)),
  },
  {
    name: 'get_publishing_status',
    description: "Lists the blog's publish jobs that are waiting or failed, with their last error: what to look at when a page does not appear.",
    inputSchema: idsOnly({ blog_id: blogPathArg }),
    annotations: annotations('Publishing status', 'read'),
    run: (client, args) => client.getPublishingStatus(blogPathOf(client, args)),
  },
  {
    name: 'register_domain',
    description:
      'Serves the blog on your own hostname: answers the CNAME and TXT records to create; the domain becomes active once get_domain (or the periodic check) sees them. Needs the Starter plan or higher.',
    inputSchema: input(registerDomainBody, { blog_id: blogPathArg, idempotency_key: idempotencyKeyArg }),
    annotations: annotations('Register a custom domain', 'write'),
    run: (client, args) => client.registerDomain(blogPathOf(client, args), str(args, 'hostname'), writeOf(args)),
  },
  {
    name: 'get_domain',
    description: "Returns the blog's custom domain and its status; while pending, checks DNS again and says what is missing.",
    inputSchema: idsOnly({ blog_id: blogPathArg }),
    annotations: annotations('Custom domain status', 'read'),
    run: (client, args) => client.getDomain(blogPathOf(client, args)),
  },
  {
    name: 'remove_domain',
    description: 'Removes the custom domain; the blog is served at its service address again.',
    inputSchema: idsOnly({ blog_id: blogPathArg }),
    annotations: annotations('Remove the custom domain', 'destructive'),
    run: (client, args) => client.removeDomain(blogPathOf(client, args)),
  },
];
