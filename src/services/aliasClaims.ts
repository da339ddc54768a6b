import type { BlogWithDomain } from '../domain/blog.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { Post } from '../domain/post.js';
import { BadRequestError, ConflictError } from '../domain/errors.js';
import { slugOfAlias } from './aliases.js';

/**
 * Gives the post these aliases (normalised): 400 for its own address, 409 for a path another
 * post holds as its slug or alias. A path held only as another post's renamed-slug redirect is
 * taken over, as a slug would take it. Inside the post write's transaction (`posts` bound to it).
 */
export async function claimAliases(posts: PostsRepo, blog: BlogWithDomain, post: Post, paths: readonly string[], now: string): Promise<void> {
  for (const [i, path] of paths.entries()) {
    const slug = slugOfAlias(path);
    if (slug === post.slug) {
      throw new BadRequestError(`alias "${path}" is the post's own address`, { details: [{ field: `aliases[${i}]`, message: "is the post's own address" }] });
    }
    const holder = await posts.aliasHolder(blog.id, path);
    const slugHolder = slug === null ? null : await posts.versionBySlug(blog.id, slug);
    if ((holder !== null && holder !== post.id) || (slugHolder && slugHolder.id !== post.id)) {
      throw new ConflictError(`the path "${path}" is already used by another post of this blog`, {
        details: [{ field: `aliases[${i}]`, message: 'is used by another post' }],
      });
    }
    if (slug !== null) await posts.removeRedirect(blog.id, slug);
  }
  await posts.setAliases(blog.id, post.id, paths, now);
}
