/**
 * A listed post restored from a listing snapshot: its id, dates and tags are known, the rest of
 * its summary (slug, title, description, dates, reading time) is read from the database the
 * first time a page needs it. A publish renders a few hundred posts of a 50,000-post blog (its
 * neighbours, one or two archive pages, the newest posts, a sitemap chunk), so the first publish
 * after a restart reads those, not every row.
 */
import type { TextCounts } from '../../content/language.js';
import type { SitePostSummary } from '../render/siteTypes.js';

/** Reads the summaries of posts not read yet, usually a run of them at once (BlogListing). */
export interface SummaryFiller {
  fill(post: LazySummary): void;
}

export class LazySummary implements SitePostSummary {
  #loaded: SitePostSummary | null = null;
  readonly #filler: SummaryFiller;
  readonly #counts: Uint32Array;
  readonly #at: number;

  /**
   * `tags` may be shared with other posts of the same tags (read only, like every summary's);
   * the title's counts are four words of `counts` from `at` (one array for the whole listing).
   */
  constructor(
    readonly id: string,
    readonly publishedAt: string,
    readonly updatedAt: string,
    readonly tags: string[],
    counts: Uint32Array,
    at: number,
    filler: SummaryFiller,
  ) {
    this.#filler = filler;
    this.#counts = counts;
    this.#at = at;
  }

  /** countText of the title, kept so that a change can take it off the blog's totals. */
  get titleCounts(): TextCounts {
    const counts = this.#counts;
    const at = this.#at;
    return { hangulWords: counts[at]!, latinWords: counts[at + 1]!, hangulChars: counts[at + 2]!, otherWords: counts[at + 3]! };
  }

  get loaded(): boolean {
    return this.#loaded !== null;
  }

  /** Sets the rest of the summary (the first one given wins: a page is rendered from one read). */
  provide(summary: SitePostSummary): void {
    this.#loaded ??= summary;
  }

  private get rest(): SitePostSummary {
    if (!this.#loaded) this.#filler.fill(this);
    return this.#loaded!;
  }

  get slug(): string {
    return this.rest.slug;
  }

  get title(): string {
    return this.rest.title;
  }

  get metaDescription(): string {
    return this.rest.metaDescription;
  }

  get ogImageUrl(): string | null {
    return this.rest.ogImageUrl;
  }

  get createdAt(): string {
    return this.rest.createdAt;
  }

  get readingMinutes(): number | undefined {
    return this.rest.readingMinutes;
  }
}

/** A plain copy of a summary, lazy or not: what crosses to a worker thread or a test's toEqual. */
export function plainSummary(post: SitePostSummary): SitePostSummary {
  const plain: SitePostSummary = {
    id: post.id,
    slug: post.slug,
    title: post.title,
    metaDescription: post.metaDescription,
    ogImageUrl: post.ogImageUrl,
    tags: post.tags,
    publishedAt: post.publishedAt,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
  };
  if (post.readingMinutes !== undefined) plain.readingMinutes = post.readingMinutes;
  return plain;
}
