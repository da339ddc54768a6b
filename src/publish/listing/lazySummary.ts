/**
 * A listed post restored from a listing snapshot. Its id, dates, tags and title counts are read
 * from the decoded snapshot when asked for (no string or array per post is made by the restore:
 * see TextColumn); the rest of its summary (slug, title, description, reading time) is read from
 * the database the first time a page needs it. A publish renders a few hundred posts of a
 * 50,000-post blog (its neighbours, one or two archive pages, the newest posts, a sitemap chunk),
 * so the first publish after a restart reads those, not every row.
 */
import type { TextCounts } from '../../domain/language.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import type { DecodedListing } from './listingSnapshot.js';

/** Reads the summaries of posts not read yet, usually a run of them at once (BlogListing). */
export interface SummaryFiller {
  fill(post: LazySummary): void;
}

export class LazySummary implements SitePostSummary {
  #loaded: SitePostSummary | null = null;
  readonly #saved: DecodedListing;
  readonly #filler: SummaryFiller;

  /** Post `index` of the saved listing. */
  constructor(
    saved: DecodedListing,
    readonly index: number,
    filler: SummaryFiller,
  ) {
    this.#saved = saved;
    this.#filler = filler;
  }

  get id(): string {
    return this.#saved.ids.at(this.index);
  }

  get publishedAt(): string {
    return this.#saved.publishedAt.at(this.index);
  }

  get updatedAt(): string {
    return this.#saved.updatedAt.at(this.index);
  }

  /** A new array on every call: the few callers (tag pages, removals) read it once. */
  get tags(): string[] {
    const { words, starts, tags } = this.#saved;
    const w = starts[this.index]!;
    const count = words[w]!;
    const names: string[] = new Array(count);
    for (let t = 0; t < count; t++) names[t] = tags[words[w + 1 + t]!]!;
    return names;
  }

  /** countText of the title, kept so that a change can take it off the blog's totals. */
  get titleCounts(): TextCounts {
    const { words, starts } = this.#saved;
    const at = starts[this.index]! + 1 + words[starts[this.index]!]!;
    return { hangulWords: words[at]!, latinWords: words[at + 1]!, hangulChars: words[at + 2]!, otherWords: words[at + 3]! };
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
