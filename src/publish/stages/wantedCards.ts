/**
 * Which social cards the blog's pages name now, read from the database rather than from a
 * render: a card drawn late (pipelines/drawPostCards.ts) asks this after writing, so a rename,
 * retitle or settings change that ran meanwhile cannot leave a card no page names.
 */
import type { AccountsRepo } from '../../db/accountsRepo.js';
import type { BlogsRepo } from '../../db/blogsRepo.js';
import type { SiteRepo } from '../../db/siteRepo.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import { blogCard, postCard } from '../cards/cardSpec.js';
import { planOf, toSiteBlog } from './loadSite.js';

export interface WantedCardsDeps {
  blogs: Pick<BlogsRepo, 'findById'>;
  accounts: Pick<AccountsRepo, 'findById'>;
  site: Pick<SiteRepo, 'publishedSummaryAt'>;
  urls: SiteUrls;
  socialCards: boolean;
}

export class WantedCards {
  constructor(private readonly deps: WantedCardsDeps) {}

  /**
   * Of the card `keys` (the blog's at its root, a post's under its slug), those the blog's pages
   * name as the database stands: none once the blog is gone.
   */
  async of(blogId: string, keys: readonly string[]): Promise<Set<string>> {
    const { blogs, accounts, site, urls, socialCards } = this.deps;
    const wanted = new Set<string>();
    const blog = await blogs.findById(blogId);
    if (!blog) return wanted;
    const siteBlog = toSiteBlog(blog, await planOf(accounts, blog), urls, socialCards);
    const root = `${blog.slug}/`;
    for (const key of keys) {
      if (!key.startsWith(root)) continue;
      const name = key.slice(root.length);
      const slash = name.lastIndexOf('/');
      if (slash < 0) {
        if (blogCard(siteBlog)?.key === key) wanted.add(key);
        continue;
      }
      const post = await site.publishedSummaryAt(blog.id, name.slice(0, slash));
      if (post && postCard(siteBlog, post)?.key === key) wanted.add(key);
    }
    return wanted;
  }
}
