/**
 * Which objects one post's change touches, and their new content: a pure function of data the
 * publisher loaded. Each page type of the catalogue (pages/catalogue.ts) names the pages the
 * change affects and renders them as a full render does; the cost follows the change (the post,
 * its neighbours, one or two archive pages per list, the feeds), not the size of the blog.
 */
import type { SiteObject } from '../storage/siteStore.js';
import { tagSegment } from './render/renderPaths.js';
import type { SitePostSummary } from '../domain/siteTypes.js';
import type { CardDrawing } from './cards/cardSpec.js';
import { catalogue, drawn } from './pages/catalogue.js';
import { viewOfChange, type PostChangeInput, type PostChangeOutput, type SiteView } from './pages/siteView.js';

export type { PostChangeInput, PostChangeOutput };

export function renderPostChange(input: PostChangeInput): PostChangeOutput {
  return renderPostChanges(viewOfChange(input), [input]);
}

/**
 * A batch of one blog's changes, each loaded against the same state `site`: the union of the
 * pages they affect, each rendered once from that state (so a burst renders the home page, the
 * feeds and the sitemaps once, not once per post). Every page a change names exists in that
 * state, so a key one change renders is never deleted for another.
 */
export function renderPostChanges(site: SiteView, inputs: readonly PostChangeInput[]): PostChangeOutput {
  const objects: SiteObject[] = [];
  const removed = new Set<string>();
  for (const type of catalogue) {
    const pages = new Map<string, unknown>();
    for (const input of inputs) {
      const { render, remove } = type.affectedBy(site, input);
      for (const page of render) pages.set(type.pageId ? type.pageId(page) : String(page), page);
      for (const key of remove) removed.add(key);
    }
    for (const page of pages.values()) objects.push(type.render(site, page));
  }
  const drawings = new Map<string, CardDrawing>();
  for (const type of drawn) {
    for (const input of inputs) {
      const { draw, remove } = type.affectedBy(site, input);
      for (const card of draw) drawings.set(card.key, card);
      for (const key of remove) removed.add(key);
    }
  }
  const kept = new Set([...objects.map((object) => object.key), ...drawings.keys()]);
  return { objects, deletions: [...removed].filter((key) => !kept.has(key)), drawings: [...drawings.values()] };
}

/**
 * What the pages of the blog's next publish list when it adds a post, the usual case: the newest
 * posts, the runs the page types name (the newest month, the last sitemap chunk), and the newest
 * posts of the newest post's tags. The warm-up after a restart reads their rows ahead of that
 * publish (Listing.prefetch).
 */
export function listedByNextPost(
  summaries: readonly SitePostSummary[],
  tagged: (segment: string) => readonly SitePostSummary[],
): (readonly SitePostSummary[])[] {
  const newest = summaries[summaries.length - 1];
  if (!newest) return [];
  let newestCount = 0;
  let tagCount = 0;
  const runs: (readonly SitePostSummary[])[] = [];
  for (const type of catalogue) {
    const listed = type.listedByNextPost?.(summaries);
    if (!listed) continue;
    newestCount = Math.max(newestCount, listed.newest ?? 0);
    tagCount = Math.max(tagCount, listed.newestOfEachTag ?? 0);
    runs.push(...(listed.lists ?? []));
  }
  // slice(-0) would be the whole list.
  const lists = [...(newestCount > 0 ? [summaries.slice(-newestCount)] : []), ...runs];
  if (tagCount > 0) for (const tag of newest.tags) lists.push(tagged(tagSegment(tag)).slice(-tagCount));
  return lists;
}
