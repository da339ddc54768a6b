/** The blog side of `folio push` / `folio pull`: every post of the blog, and a post as file fields. */
import type { FolioClient, Post, PostSummary } from '../client/folioClient.js';
import type { PostFile } from './frontMatter.js';

const PAGE = 100;

/** Every post of the blog (drafts, scheduled and published), oldest first, a page of 100 at a time. */
export async function listAllPosts(client: FolioClient, blogId: string): Promise<PostSummary[]> {
  const posts: PostSummary[] = [];
  for (let page = 1; ; page++) {
    const answer = await client.listPosts({ page, per_page: PAGE, sort: 'created_at', order: 'asc' }, blogId);
    posts.push(...answer.data);
    if (page >= answer.pagination.total_pages) return posts;
  }
}

/** A post as the fields of its file. */
export function toPostFile(post: Post): PostFile & { slug: string } {
  return {
    title: post.title,
    slug: post.slug,
    tags: post.tags,
    description: post.meta_description,
    ogImage: post.og_image_url ?? undefined,
    status: post.status,
    scheduledAt: post.scheduled_at ?? undefined,
    ...(post.status === 'published' && post.published_at ? { publishedAt: post.published_at } : {}),
    ...(post.aliases && post.aliases.length > 0 ? { aliases: post.aliases } : {}),
    content: post.content_md,
  };
}
