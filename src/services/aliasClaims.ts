import type { BlogWithDomain } from '../domain/blog.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { Post } from '../domain/post.js';
import { BadRequestError, ConflictError } from '../domain/errors.js';
import { slugOfAlias } from './aliases.js';

/** A renamed-slug redirect another post held, dropped because this post took its address. */
export interface TakenRedirect {
  /** The post the redirect led to. */
  postId: string;
  slug: string;
}

/**
 * Drops the renamed-slug redirect at `slug`, which the post `selfId` (null: a post being
 * created) now takes as its slug or alias. The redirect of another post is answered: its object
 * in the store must go too (recordRedirectsTaken), even when the post taking the address is a
 * draft that renders nothing there.
 */
export async function takeRedirect(posts: PostsRepo, blog: BlogWithDomain, slug: string, selfId: string | null): Promise<TakenRedirect | null> {
  const postId = await posts.removeRedirect(blog.id, slug);
  return postId === null || postId === selfId ? null : { postId, slug };
}

/**
 * Gives the post these aliases (normalised): 400 for its own address, 409 for a path another
 * post holds as its slug or alias. A path held only as another post's renamed-slug redirect is
 * taken over, as a slug would take it; the redirects taken are answered. Inside the post write's
 * transaction (`posts` bound to it).
 */
export async function claimAliases(posts: PostsRepo, blog: BlogWithDomain, post: Post, paths: readonly string[], now: string): Promise<TakenRedirect[]> {
  const taken: TakenRedirect[] = [];
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
    const redirect = slug === null ? null : await takeRedirect(posts, blog, slug, post.id);
    if (redirect) taken.push(redirect);
  }
  await posts.setAliases(blog.id, post.id, paths, now);
  return taken;
}
