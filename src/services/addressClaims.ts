/** The addresses a post claims: its slug and its aliases, and the old addresses of other posts they take over. */
import type { BlogWithDomain } from '../domain/blog.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { Post } from '../domain/post.js';
import { BadRequestError, ConflictError } from '../domain/errors.js';
import { slugOfAlias } from './aliases.js';
import { checkSlugNotReserved } from './postChecks.js';
import { firstFreeSlug, slugify } from './slugs.js';

/** A renamed-slug redirect another post held, dropped because this post took its address. */
export interface TakenRedirect {
  /** The post the redirect led to. */
  postId: string;
  slug: string;
}

/**
 * Drops the renamed-slug redirect at `slug`, which the post `selfId` (null: a post being
 * created) now takes as its slug or alias. Returns the redirect when another post held it: its
 * object in the store must go too (postDeps.recordRedirectsTaken), even when the post taking the
 * address is a draft that renders nothing there.
 */
export async function takeRedirect(posts: PostsRepo, blog: BlogWithDomain, slug: string, selfId: string | null): Promise<TakenRedirect | null> {
  const postId = await posts.removeRedirect(blog.id, slug);
  return postId === null || postId === selfId ? null : { postId, slug };
}

/**
 * Gives the post these aliases (normalised): 400 for its own address, 409 for a path another
 * post holds as its slug or alias. A path held only as another post's renamed-slug redirect is
 * taken over, as a slug would take it; returns the redirects taken. Inside the post write's
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

/**
 * An explicit slug must be free (409) and not reserved (400); a generated one takes the first
 * free `-2`, `-3`, … A slug held only as another post's old address is taken over (`taken`:
 * the redirect it drops, at most one). Inside the write transaction (`posts` bound to it).
 */
export async function claimSlug(
  posts: PostsRepo,
  blog: BlogWithDomain,
  explicit: string | undefined,
  title: string,
  selfId: string | null,
): Promise<{ slug: string; taken: TakenRedirect[] }> {
  const aliasFree = async (slug: string): Promise<boolean> => {
    const holder = await posts.aliasHolder(blog.id, `/${slug}/`);
    return holder === null || holder === selfId;
  };
  let slug: string;
  if (explicit !== undefined) {
    checkSlugNotReserved(explicit);
    const holder = await posts.findBySlug(blog.id, explicit);
    const free = (!holder || holder.id === selfId) && (await aliasFree(explicit));
    if (!free) throw new ConflictError(`a post with slug "${explicit}" or the alias "/${explicit}/" already exists in this blog`);
    slug = explicit;
  } else {
    // One query for every `base-N` instead of one per candidate: a blog with many posts of
    // the same title made each create probe thousands of slugs.
    const base = slugify(title);
    const taken = await posts.slugsStartingWith(blog.id, base);
    // firstFreeSlug's test is synchronous: the candidate it gives is checked for an alias here,
    // and one another post holds as an alias is skipped on the next pass.
    const aliased = new Set<string>();
    for (;;) {
      slug = firstFreeSlug(base, (candidate) => {
        const holder = taken.get(candidate);
        return (holder === undefined || holder === selfId) && !aliased.has(candidate);
      });
      if (await aliasFree(slug)) break;
      aliased.add(slug);
    }
  }
  const taken = await takeRedirect(posts, blog, slug, selfId);
  return { slug, taken: taken ? [taken] : [] };
}
