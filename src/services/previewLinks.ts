/**
 * Preview links (issue #30): a secret URL on the API host that shows a post's current text —
 * a draft too — with the blog's theme to whoever holds it, until it expires or is revoked.
 * Only the SHA-256 of a token is stored: 256 random bits need no slow hash, and a copy of the
 * database opens no preview.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AccountsRepo } from '../db/accountsRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { PreviewLinksRepo } from '../db/previewLinksRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { BlogWithDomain } from '../domain/blog.js';
import type { Post } from '../domain/post.js';
import { NotFoundError } from '../domain/errors.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import type { Clock } from '../lib/clock.js';
import type { ThemeAsset } from '../publish/render/assets.js';
import { createRenderContext } from '../publish/render/renderContext.js';
import { renderPreviewPage } from '../publish/render/renderPreviewPage.js';
import type { Theme } from '../publish/render/renderTheme.js';
import { planOf, toSiteBlog, toSitePost } from '../publish/stages/loadSite.js';

/** 32 random bytes in base64url: exactly what a minted token looks like. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface PreviewLinksDeps {
  sql: SqlClient;
  links: PreviewLinksRepo;
  posts: PostsRepo;
  blogs: BlogsRepo;
  accounts: AccountsRepo;
  urls: SiteUrls;
  theme: Theme;
  clock: Clock;
  socialCards: boolean;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export class PreviewLinks {
  constructor(private readonly deps: PreviewLinksDeps) {}

  /** A new link to the post; the token is shown only in this answer. */
  async create(blog: BlogWithDomain, slug: string, expiresInSeconds: number): Promise<{ token: string; expiresAt: string }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + expiresInSeconds * 1000).toISOString();
    await this.deps.sql.transaction(async (tx) => {
      const post = await postOrThrow(this.deps.posts.in(tx), blog, slug);
      const made = await this.deps.links.in(tx).insert({ tokenHash: hashToken(token), postId: post.id, createdAt: now.toISOString(), expiresAt });
      if (!made) throw new NotFoundError(`post "${slug}" not found`);
    });
    return { token, expiresAt };
  }

  /** Every link of the post stops working at once. */
  async revokeAll(blog: BlogWithDomain, slug: string): Promise<void> {
    const post = await postOrThrow(this.deps.posts, blog, slug);
    await this.deps.links.revokeAll(post.id);
  }

  /**
   * The preview page of a live token, or null for anything else (unknown, expired, revoked, the
   * post gone). `assetsBase`: where the theme's assets are served (see asset()).
   */
  async page(token: string, assetsBase: string): Promise<string | Buffer | null> {
    if (!TOKEN.test(token)) return null;
    const { links, posts, blogs, accounts, urls, theme, clock } = this.deps;
    const now = clock.now().toISOString();
    const postId = await links.postOf(hashToken(token), now);
    const post = postId === null ? null : await posts.findById(postId);
    const blog = post ? await blogs.findById(post.blogId) : null;
    if (!post || !blog) return null;
    const ctx = createRenderContext({ theme, blog: toSiteBlog(blog, await planOf(accounts, blog), urls, this.deps.socialCards) });
    // A draft shows the date it would have if published now; a scheduled post, its date.
    return renderPreviewPage(ctx, toSitePost({ ...post, publishedAt: post.publishedAt ?? post.scheduledAt ?? now }), assetsBase);
  }

  /** A theme asset by its hashed file name (`site.<hash>.css`), or undefined. */
  asset(fileName: string): ThemeAsset | undefined {
    return this.deps.theme.assets.find((asset) => asset.fileName === fileName);
  }
}

/** Through `posts` as given: the plain repository, or one bound to a transaction under way. */
async function postOrThrow(posts: PostsRepo, blog: BlogWithDomain, slug: string): Promise<Post> {
  const post = await posts.findBySlug(blog.id, slug);
  if (!post) throw new NotFoundError(`post "${slug}" not found`);
  return post;
}
