/**
 * One kind of page of a blog (the home page, the tag pages, the feeds, …): which pages of it a
 * full render writes, which of them a post's change re-renders or removes, and how one is
 * rendered. The full render and a post's change render each page with the same `render`, from
 * the same view of the blog, so both write the same bytes.
 */
import type { SiteObject } from '../../storage/siteStore.js';
import type { CardDrawing } from '../cards/cardSpec.js';
import type { SitePost, SitePostSummary } from '../../domain/siteTypes.js';
import type { RenderContext } from '../render/renderContext.js';
import type { PostNeighbours } from '../render/renderPostPage.js';
import type { PostChangeInput, SiteView, WholeSite } from './siteView.js';

/** What a post's change does to the pages of one type. */
export interface Affected<Page> {
  render: readonly Page[];
  /** Store keys of pages that no longer exist. */
  remove: readonly string[];
}

/**
 * What the pages of a type list once the next post is added (the usual publish), for the
 * warm-up after a restart to read those rows ahead (postChange.ts listedByNextPost).
 */
export interface NextPostListing {
  /** The blog's newest this many posts. */
  newest?: number;
  /** The newest this many posts of each tag of the newest post. */
  newestOfEachTag?: number;
  /** Other runs of the oldest-first list. */
  lists?: readonly (readonly SitePostSummary[])[];
}

/** A page type as a post's change sees it. */
export interface ChangedPages<Page> {
  readonly name: string;
  affectedBy(site: SiteView, change: PostChangeInput): Affected<Page>;
  render(site: SiteView, page: Page): SiteObject;
  /**
   * Names the page among the type's pages, so a batch of changes renders each page once
   * (postChange.ts renderPostChanges); absent, pages are numbers, strings or null.
   */
  pageId?(page: Page): string;
  /** `posts` is the blog's oldest-first list, which holds a post at least. */
  listedByNextPost?(posts: readonly SitePostSummary[]): NextPostListing;
}

/**
 * A page type of one object per post, rendered from the post's body. A full render reads the
 * bodies a chunk at a time (renderSiteInChunks.ts, on worker threads too) and calls
 * `renderPost` of each such type for every post of the chunk, so these types have no `all`.
 */
export interface PerPostPages<Page> extends ChangedPages<Page> {
  renderPost(ctx: RenderContext, post: SitePost, neighbours: PostNeighbours): SiteObject;
}

/**
 * A page type a full render enumerates from its plan: every type but the post pages, whose
 * bodies a full render reads a chunk at a time (postPages.ts).
 */
export interface PageType<Page> extends ChangedPages<Page> {
  /** Every page of the type, in the order a full render writes them. */
  all(site: WholeSite): readonly Page[];
}

/**
 * A type of pictures drawn off the event loop (the social cards, cards.ts) rather than rendered
 * in a call: both renders name them here, and the pipelines draw the ones the store lacks
 * (stages/drawCards.ts). Their keys are content-addressed, so one that exists is never drawn
 * again.
 */
export interface DrawnPages {
  readonly name: string;
  /** Every picture of the blog, for a full render, one at a time (a caller yields to the event loop between runs of them). */
  all(site: WholeSite): Iterable<CardDrawing>;
  /** What a post's change needs drawn, and the keys of the pictures it made stale. */
  affectedBy(site: SiteView, change: PostChangeInput): { draw: readonly CardDrawing[]; remove: readonly string[] };
}

const THE_PAGE = [null] as const;

/**
 * A type of exactly one page, which every post's change re-renders: its content follows the
 * blog as a whole (the home page, a feed), or nothing a post changes, and then the store's
 * hashes make rewriting it a no-op.
 */
export function onePage(name: string, render: (site: SiteView) => SiteObject, listed?: NextPostListing): PageType<null> {
  return {
    name,
    all: () => THE_PAGE,
    affectedBy: () => ({ render: THE_PAGE, remove: [] }),
    render: (site) => render(site),
    ...(listed ? { listedByNextPost: () => listed } : {}),
  };
}
