/**
 * The social cards (cards/cardSpec.ts): one per post without an og_image, beside its page
 * (`<slug>/card-<hash>.png`), and one for the blog at its root. A card's key hashes what it
 * shows, so a retitled, retagged or redated post, or a renamed or recoloured blog, gets a new
 * card under a new URL, and the old one goes: a post's change removes the post's other cards,
 * a full render every card it did not name (stages/fullSite.ts staleKeys).
 */
import { blogCard, postCard, type CardDrawing } from '../cards/cardSpec.js';
import type { SiteBlog } from '../../domain/siteTypes.js';
import type { DrawnPages } from './pageType.js';

export const postCards: DrawnPages = {
  name: 'post cards',
  // Newest first: the order a big blog's missing cards are drawn in (stages/fullSite.ts).
  *all(site) {
    for (let i = site.posts.length - 1; i >= 0; i--) {
      const card = postCard(site.ctx.blog, site.posts[i]!);
      if (card) yield card;
    }
  },
  affectedBy: (site, change) => {
    const card = change.post ? postCard(site.ctx.blog, change.post) : null;
    // Every other card recorded under the post's slug or its previous one is stale.
    const remove = (change.storedCards ?? []).filter((key) => key !== card?.key);
    return { draw: card ? [card] : [], remove };
  },
};

/**
 * The blog's card. Nothing a post changes is drawn on it, so a post's change only names it,
 * which draws it once when missing; a new name or description comes with a full render.
 */
export const blogCards: DrawnPages = {
  name: 'blog card',
  all: (site) => drawnBlogCard(site.ctx.blog),
  affectedBy: (site) => ({ draw: drawnBlogCard(site.ctx.blog), remove: [] }),
};

function drawnBlogCard(blog: SiteBlog): CardDrawing[] {
  const card = blogCard(blog);
  return card ? [card] : [];
}
