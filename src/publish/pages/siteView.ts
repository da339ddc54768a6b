/**
 * What the page types read: the blog as a full render plans it (SitePlan) or as a post's change
 * finds it (PostChangeInput), both seen through one SiteView, so a page renders from the same
 * data whichever render asks for it.
 */
import { collectTags, type TagGroup } from '../render/archive.js';
import type { RenderContext } from '../render/renderContext.js';
import type { SitePost, SitePostSummary } from '../../domain/siteTypes.js';
import type { SiteObject } from '../../storage/siteStore.js';
import type { CardDrawing } from '../cards/cardSpec.js';

export interface SiteRedirect {
  /** The old slug, or an alias path (starting with `/`). */
  from: string;
  /** The post's current slug. */
  to: string;
}

/**
 * What every page of a full render works from. The post pages aside, every object needs only
 * the posts' summaries, and the feeds the newest few bodies: a full render of a big blog holds
 * these and renders the post pages a chunk at a time (renderSiteInChunks.ts).
 */
export interface SitePlan {
  ctx: RenderContext;
  /** Every published post, oldest first. */
  posts: readonly SitePostSummary[];
  /** The newest FEED_SIZE posts with their bodies, newest first. */
  newest: readonly SitePost[];
  redirects: readonly SiteRedirect[];
  /** collectTags(posts), when the planner has made them already (in slices, for a big blog). */
  tagGroups?: TagGroup<SitePostSummary>[];
}

export interface PostChangeInput {
  ctx: RenderContext;
  /** Every published post of the blog, oldest first. */
  summaries: readonly SitePostSummary[];
  /** The published posts of one tag segment, oldest first. */
  tagged: (segment: string) => readonly SitePostSummary[];
  /** Every tag of the published posts, as collectTags gives them. */
  tagGroups: () => TagGroup<SitePostSummary>[];
  /** The post as it is now when it is live, else null. */
  post: SitePost | null;
  /** Full posts for the live neighbours of `post` (by id). */
  neighbours: ReadonlyMap<string, SitePost>;
  /** The newest FEED_SIZE posts with bodies, newest first. */
  newest: readonly SitePost[];
  /** Slug the post had before, if it changed or the post left the site. */
  previousSlug?: string | undefined;
  previousTags?: readonly string[] | undefined;
  /** True when a live post's tags changed in this change: `previousTags` then holds the tags it had. */
  tagsChanged?: boolean | undefined;
  /** True when the post was live before (an edit in place); false for a first publication. */
  wasLive?: boolean | undefined;
  /** published_at of a post that left the site, to find the page it leaves. */
  previousPublishedAt?: string | undefined;
  postId: string;
  /** Old slugs and alias paths (starting with `/`) of the post that redirect to its current slug. */
  redirectsToPost: readonly string[];
  /** Old addresses of a deleted post whose objects must go. */
  removedRedirects?: readonly string[] | undefined;
  /** Keys of the cards recorded under the post's slug and its previous slug (pages/cards.ts). */
  storedCards?: readonly string[] | undefined;
  /**
   * The blog's changes the store may not show yet, this one included (its pending post jobs;
   * 1 when absent): a batch, or changes committed while it ran, move numbered lists by more
   * than one post (listChange.ts pagesFor).
   */
  unpublishedChanges?: number | undefined;
}

export interface PostChangeOutput {
  objects: SiteObject[];
  deletions: string[];
  /** Cards the change names, drawn by the pipeline where the store lacks them. */
  drawings: CardDrawing[];
}

/** The blog as every page type renders from it. */
export interface SiteView {
  readonly ctx: RenderContext;
  /** Every published post, oldest first. */
  readonly posts: readonly SitePostSummary[];
  /** The newest FEED_SIZE posts with their bodies, newest first. */
  readonly newest: readonly SitePost[];
  /** The published posts of one tag segment, oldest first. */
  tagged(segment: string): readonly SitePostSummary[];
  /** Every tag of the published posts, ordered by segment (collectTags). */
  tagGroups(): readonly TagGroup<SitePostSummary>[];
}

/** The view of a full render, which also knows every old address of the blog. */
export interface WholeSite extends SiteView {
  readonly redirects: readonly SiteRedirect[];
}

/** Asked for once at most: a blog's tags are grouped once per render. */
function once<T>(make: () => T): () => T {
  let value: { made: T } | null = null;
  return () => (value ??= { made: make() }).made;
}

export function viewOfPlan(plan: SitePlan): WholeSite {
  const tagGroups = once(() => plan.tagGroups ?? collectTags(plan.posts));
  const bySegment = once(() => new Map(tagGroups().map((group) => [group.segment, group.posts])));
  return {
    ctx: plan.ctx,
    posts: plan.posts,
    newest: plan.newest,
    redirects: plan.redirects,
    tagged: (segment) => bySegment().get(segment) ?? [],
    tagGroups,
  };
}

export function viewOfChange(input: PostChangeInput): SiteView {
  return {
    ctx: input.ctx,
    posts: input.summaries,
    newest: input.newest,
    tagged: (segment) => input.tagged(segment),
    tagGroups: once(() => input.tagGroups()),
  };
}
