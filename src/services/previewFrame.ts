/**
 * The editor's live preview frame (issue #30): the blog's theme around an empty post, which the
 * frame's script fills with POST /v1/preview's HTML. It is the preview link's page
 * (renderPreviewPage.ts) without a stored post, and without the owner's header, footer and ad
 * HTML: the frame shows how the post reads, and those would only add code that may run.
 */
import type { AccountsRepo } from '../db/accountsRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import { NotFoundError } from '../domain/errors.js';
import { emptyCounts, type Language } from '../domain/language.js';
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

  /**
   * The frame's page for one of the account's blogs; any other blog id is not found. `lang`: the
   * language of the post shown, which the published page takes from the post's words; the
   * theme's labels and date format follow it (the frame asks for the other one when it changes).
   */
  async page(accountId: string, blogId: string, assets: PreviewFrameAssets, lang: Language = 'en'): Promise<string | Buffer> {
    const { blogs, accounts, urls, theme, clock, socialCards } = this.deps;
    const blog = await blogs.findOwned(accountId, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    const themed = createRenderContext({ theme, blog: toSiteBlog(blog, await planOf(accounts, blog), urls, socialCards) });
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
      // The counts the page takes its language from: one Korean word for a Korean post.
      textCounts: { ...emptyCounts(), hangulWords: lang === 'ko' ? 1 : 0 },
    };
    return renderPreviewPage(ctx, empty, assets.assetsBase, { script: assets.script });
  }
}
