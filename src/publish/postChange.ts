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
import { viewOfChange, type PostChangeInput, type PostChangeOutput } from './pages/siteView.js';

export type { PostChangeInput, PostChangeOutput };

export function renderPostChange(input: PostChangeInput): PostChangeOutput {
  const site = viewOfChange(input);
  const objects: SiteObject[] = [];
  const deletions: string[] = [];
  for (const type of catalogue) {
    const { render, remove } = type.affectedBy(site, input);
    for (const page of render) objects.push(type.render(site, page));
    deletions.push(...remove);
  }
  const drawings: CardDrawing[] = [];
  for (const type of drawn) {
    const { draw, remove } = type.affectedBy(site, input);
    drawings.push(...draw);
    deletions.push(...remove);
  }
  return { objects, deletions, drawings };
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
