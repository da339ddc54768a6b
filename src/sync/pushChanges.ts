/** What push sends: how a file's post differs from the blog's, and the request bodies that make them agree. */
import type { Post, PostUpdate } from '../client/folioClient.js';
import type { PostBodyInput } from '../http/routes/posts.schema.js';
import { normalizeAlias } from '../services/aliases.js';
import type { PostFile } from './frontMatter.js';

/** A file's post as push wants it on the blog: the front matter and the slug it gets. */
export type Desired = PostFile & { slug: string };

/** What differs between the post and the file: the update to send (status aside). */
export function changesOf(remote: Desired, local: Desired): PostUpdate {
  const changes: PostUpdate = {};
  if (remote.title !== local.title) changes.title = local.title;
  if (remote.content !== local.content) changes.content = local.content;
  if (JSON.stringify(remote.tags) !== JSON.stringify(local.tags)) changes.tags = local.tags;
  const meta: NonNullable<PostUpdate['meta']> = {};
  // No description in the file: the API's own (generated) one stays.
  if (local.description !== undefined && remote.description !== local.description) meta.description = local.description;
  if ((remote.ogImage ?? null) !== (local.ogImage ?? null)) meta.og_image = local.ogImage ?? null;
  if (Object.keys(meta).length > 0) changes.meta = meta;
  // No aliases or date in the file: the post's own stay.
  if (local.aliases !== undefined && JSON.stringify(normalizedAliases(local.aliases)) !== JSON.stringify(remote.aliases ?? [])) changes.aliases = local.aliases;
  if (local.publishedAt !== undefined && local.status === 'published' && remote.publishedAt !== local.publishedAt) changes.published_at = local.publishedAt;
  return changes;
}

/** The aliases as the API will store them; one it would refuse stays as written (and differs). */
export function normalizedAliases(aliases: readonly string[]): string[] {
  const paths: string[] = [];
  for (const alias of aliases) {
    const checked = normalizeAlias(alias);
    const path = 'path' in checked ? checked.path : alias;
    if (!paths.includes(path)) paths.push(path);
  }
  return paths;
}

/** Whether the post's status (and time) is what the file asks for. */
export function statusMatches(remote: Post, local: Desired): boolean {
  if (local.status !== 'scheduled') return remote.status === local.status;
  if (remote.status === 'scheduled') return remote.scheduled_at === local.scheduledAt;
  // Its time came: the scheduler published it, as the file asked.
  return remote.status === 'published' && Date.parse(local.scheduledAt ?? '') <= Date.now();
}

/** The body of the post's creation. */
export function createBody(local: Desired): PostBodyInput & { title: string; content: string } {
  const meta = {
    ...(local.description !== undefined ? { description: local.description } : {}),
    ...(local.ogImage !== undefined ? { og_image: local.ogImage } : {}),
  };
  const published = local.status === 'published';
  return {
    title: local.title,
    content: local.content,
    slug: local.slug,
    tags: local.tags,
    status: published ? 'published' : 'draft',
    ...(Object.keys(meta).length > 0 ? { meta } : {}),
    ...(published && local.publishedAt !== undefined ? { published_at: local.publishedAt } : {}),
    ...(local.aliases !== undefined && local.aliases.length > 0 ? { aliases: local.aliases } : {}),
  };
}

/**
 * The body of the post's update: the changes, and the move to published when it carries the
 * date (the publish operation has no body, so the first publication date travels with the PUT).
 */
export function updateBody(current: Post, changes: PostUpdate): PostUpdate {
  if (changes.published_at !== undefined && current.status !== 'published') return { ...changes, status: 'published' };
  return changes;
}
