/**
 * The editor's live preview frame (issue #30): the blog's theme around an empty post, which the
 * frame's script fills with POST /v1/preview's HTML. It is the preview link's page
 * (renderPreviewPage.ts) without a stored post, and without the owner's header, footer and ad
 * HTML: the frame shows how the post reads, and those would only add code that may run.
 */
import type { AccountsRepo } from '../db/accountsRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import { NotFoundError } from '../domain/errors.js';
import type { SitePost } from '../domain/siteTypes.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import type { Clock } from '../lib/clock.js';
import { createRenderContext } from '../publish/render/renderContext.js';
import { renderPreviewPage } from '../publish/render/renderPreviewPage.js';
import type { Theme } from '../publish/render/renderTheme.js';
import { planOf, toSiteBlog } from '../publish/stages/loadSite.js';

export interface PreviewFrameDeps {
  blogs: BlogsRepo;
  accounts: AccountsRepo;
  urls: SiteUrls;
  theme: Theme;
  clock: Clock;
  socialCards: boolean;
}

/** Where the page finds the theme's assets and the frame's script. */
export interface PreviewFrameAssets {
  assetsBase: string;
  script: string;
}

export class PreviewFrame {
  constructor(private readonly deps: PreviewFrameDeps) {}

  /** The frame's page for one of the account's blogs; any other blog id is not found. */
  page(accountId: string, blogId: string, assets: PreviewFrameAssets): string | Buffer {
    const { blogs, accounts, urls, theme, clock, socialCards } = this.deps;
    const blog = blogs.findOwned(accountId, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    const themed = createRenderContext({ theme, blog: toSiteBlog(blog, planOf(accounts, blog), urls, socialCards) });
    const ctx = { ...themed, headerHtml: '', footerHtml: '', adCode: '' };
    const now = clock.now().toISOString();
    const empty: SitePost = {
      id: '',
      slug: '',
      title: '',
      contentHtml: '',
      contentMd: '',
      metaDescription: '',
      ogImageUrl: null,
      tags: [],
      publishedAt: now,
      createdAt: now,
      updatedAt: now,
    };
    return renderPreviewPage(ctx, empty, assets.assetsBase, { script: assets.script });
  }
}
