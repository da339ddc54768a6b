/** Database rows → the plain data the renderer works on. */
import type { AccountsRepo } from '../../db/accountsRepo.js';
import type { SiteRepo } from '../../db/siteRepo.js';
import { allowedTheme, type Plan } from '../../domain/plans.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import type { SiteBlog, SitePost } from '../../domain/siteTypes.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import type { Post } from '../../domain/post.js';

/**
 * `plan` is the owning account's current plan: pages carry only the theme keys it includes, so
 * a downgrade takes paid theme fields off the site while the stored theme_config keeps them.
 */
export function toSiteBlog(blog: BlogWithDomain, plan: Plan, urls: SiteUrls, socialCards = true): SiteBlog {
  return {
    id: blog.id,
    slug: blog.slug,
    name: blog.name,
    description: blog.description,
    baseUrl: urls.origin(blog),
    themeConfig: allowedTheme(plan, blog.themeConfig),
    updatedAt: blog.updatedAt,
    ...(socialCards ? {} : { cards: false as const }),
  };
}

export function toSitePost(post: Post): SitePost {
  if (!post.publishedAt) throw new Error(`post ${post.id} is not published`);
  return {
    id: post.id,
    slug: post.slug,
    title: post.title,
    contentHtml: post.contentHtml,
    contentMd: post.contentMd,
    metaDescription: post.metaDescription,
    ogImageUrl: post.ogImageUrl,
    tags: post.tags,
    publishedAt: post.publishedAt,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
    textCounts: post.textCounts ?? null,
  };
}

/** The post as the site shows it now, or null when it is not published. */
export async function livePost(site: Pick<SiteRepo, 'post'>, postId: string): Promise<SitePost | null> {
  const row = await site.post(postId);
  return row && row.status === 'published' ? toSitePost(row) : null;
}

/**
 * The owning account's plan as the database holds it now: read at every render, since which
 * theme keys reach the pages depends on it. A blog cannot outlive its account.
 */
export async function planOf(accounts: Pick<AccountsRepo, 'findById'>, blog: BlogWithDomain): Promise<Plan> {
  const account = await accounts.findById(blog.accountId);
  if (!account) throw new Error(`blog ${blog.id} has no account ${blog.accountId}`);
  return account.plan;
}

/** The blog's posts changed since `since` (the post_changes log), each as the site shows it now. */
export async function postsChangedSince(
  site: Pick<SiteRepo, 'changesSince' | 'publishedByIds'>,
  blog: BlogWithDomain,
  since: number,
): Promise<{ postId: string; live: SitePost | null }[]> {
  const changed = new Set((await site.changesSince(blog.id, since)).map((change) => change.postId));
  return livePosts(site, blog, [...changed]);
}

/** Each of the blog's posts as the database holds it now: live, or null when not published (or gone). */
export async function livePosts(
  site: Pick<SiteRepo, 'publishedByIds'>,
  blog: BlogWithDomain,
  postIds: readonly string[],
): Promise<{ postId: string; live: SitePost | null }[]> {
  const live = new Map((await site.publishedByIds(postIds)).map((row) => [row.id, row]));
  return postIds.map((postId) => {
    const row = live.get(postId);
    return { postId, live: row && row.blogId === blog.id ? toSitePost(row) : null };
  });
}
