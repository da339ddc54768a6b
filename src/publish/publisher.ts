/**
 * Carries out publish jobs: load from the database → pure render → write through the SiteStore.
 * Every job renders the database's current state for the objects it touches, so running a job
 * twice, late, or after a crash gives the same store (decisions.md "Publishing").
 */
import type { AccountsRepo } from '../db/accountsRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { BlogWithDomain } from '../domain/blog.js';
import { IMPORTED, SEARCH_TEXT_CHANGED, URLS_CHANGED, type JobPayload, type JobsRepo, type PublishJob } from '../db/jobsRepo.js';
import type { ObjectHashesRepo } from '../db/objectHashesRepo.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import { verifyMedia } from './verifyMedia.js';
import type { SiteRepo } from '../db/siteRepo.js';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Logger } from '../lib/logger.js';
import type { Plan } from '../domain/plans.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import type { SiteObject, SiteStore } from '../storage/siteStore.js';
import { FEED_SIZE, indexOfPost, positionOf } from './render/archive.js';
import type { CachePolicy } from '../domain/cacheHeaders.js';
import type { CdnPurger } from '../cdn/cdnPurger.js';
import { CdnSync } from './cdnSync.js';
import { DomainEntries } from './domainEntries.js';
import type { StaticSearchIndex } from './staticSearchSync.js';
import { SearchUpkeep } from './searchUpkeep.js';
import type { SearchIndexUpdater } from '../search/ports.js';
import { FEED_ITEM_MAX_HTML_BYTES } from './render/feeds.js';
import { toSiteBlog, toSitePost } from './loadSite.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import { listedByNextPost, renderPostChange, type PostChangeOutput } from './postChange.js';
import { ListingCache, type SnapshotStore } from './listing/listingCache.js';
import { blogLanguage, createRenderContext } from './render/renderContext.js';
import type { Theme } from './render/renderTheme.js';
import type { SitePost } from '../domain/siteTypes.js';
import { recordedHashes, writeSite, type WriteResult } from './writeSite.js';
import { FullSite, type VerifyReport } from './fullSite.js';
import { tagCollator } from './render/renderIndexPages.js';
import { RenderSlots } from './renderSlots.js';

export type { VerifyReport };

/** renderChange's answer when a change turned the blog's language. */
const LANGUAGE_TIPPED = Symbol('language tipped');

export interface PublisherDeps {
  blogs: BlogsRepo;
  /** The post jobs a full render re-runs when they were recorded while it ran (`rebuild`). */
  jobs: Pick<JobsRepo, 'latestId' | 'postJobsSince'>;
  /** Read at every render: which theme keys reach the pages depends on the owner's current plan. */
  accounts: Pick<AccountsRepo, 'findById'>;
  site: SiteRepo;
  hashes: ObjectHashesRepo;
  store: SiteStore;
  urls: SiteUrls;
  theme: Theme;
  search: SearchIndexUpdater;
  /** Plain text of stored HTML for the index, off the event loop for large posts. */
  content: Pick<ContentRenderer, 'searchText'>;
  logger: Logger;
  /** Cache-Control of rendered pages (long at the edge when a CDN purger is configured). */
  cache: CachePolicy;
  /** Tells the CDN what a job changed (a no-op with FOLIO_CDN=none). */
  cdn: CdnPurger;
  /** The index the `/search/` page reads in the browser. */
  staticSearch: StaticSearchIndex;
  /** The blog's uploaded images, whose objects `verify` checks. */
  media: Pick<MediaRepo, 'allOfBlog'>;
  /** Saved listings (migration 014): a blog's first publish after a restart then reads a few rows, not all. */
  listingSnapshots?: SnapshotStore;
}

export class Publisher {
  /** Published posts per blog, kept current from the change log so a publish does not re-read them all. */
  private readonly listings: ListingCache;

  private readonly edge: CdnSync;

  private readonly domains: DomainEntries;

  /** Both search indexes of each blog. */
  private readonly search: SearchUpkeep;

  private readonly fullSite: FullSite;

  /** Blogs that ran a post job in this process (their warm-up skips its dry run). */
  private readonly publishedSinceStart = new Set<string>();

  /** Whole-blog work at once (full renders and reindexes): each already keeps both cores of a small VM busy. */
  private readonly slots = new RenderSlots(2);

  constructor(private readonly deps: PublisherDeps) {
    this.listings = new ListingCache(deps.site, deps.listingSnapshots ? { snapshots: deps.listingSnapshots } : {});
    this.fullSite = new FullSite(deps, this.listings, this.slots);
    this.edge = new CdnSync(deps.cdn, deps.urls);
    this.domains = new DomainEntries(deps.store, deps.blogs);
    this.search = new SearchUpkeep(deps, this.edge);
  }

  /** Blog ids whose listings are in memory, most recently used first (services/warmUp.ts). */
  recentListings(): string[] {
    return this.listings.recent();
  }

  /** Saves the listings that changed since last time (services/warmUp.ts, every minute and at shutdown). */
  saveListings(now: string): Promise<number> {
    return this.listings.save(now);
  }

  /**
   * Loads what a blog's first publish would otherwise wait for: its listing and the rows its
   * pages list, the state of its static search index, the post ids of its search segments, the
   * theme (compiled on first use), the collator its tag index sorts with. False when the blog is
   * gone. The warm-up after a restart calls it at once: a client that publishes right after a
   * restart leaves no quiet moment to wait for.
   */
  async prepareForPublishing(blogId: string): Promise<boolean> {
    const blog = this.deps.blogs.findById(blogId);
    if (!blog) return false;
    void this.deps.theme.assets;
    // The reads first, all at once: they go on while the listing is restored (synchronous work).
    const read = this.search.warm(blog.slug);
    // Handled here too: a failed read must not be an unhandled rejection while the listing loads.
    read.catch(() => undefined);
    const listing = await this.listings.get(blogId);
    tagCollator(blogLanguage(toSiteBlog(blog, this.planOf(blog), this.deps.urls), listing.titleCounts));
    // The rows its pages list (~600 of a 50,000-post blog), by their places in the summary index.
    listing.prefetch(listedByNextPost(listing.posts, (segment) => listing.tagged(segment)));
    await read;
    return true;
  }

  /**
   * A dry run of the blog's next publish: an edit of its newest post, rendered and thrown away,
   * and its search documents built and encoded, written nowhere, so that the real one finds the
   * code compiled. Skipped once the blog has published
   * since the start (it would only take the event loop from requests); the warm-up runs it in a
   * quiet moment.
   */
  async dryRunPublish(blogId: string): Promise<void> {
    const blog = this.deps.blogs.findById(blogId);
    if (!blog || this.publishedSinceStart.has(blogId)) return;
    // The listing object is kept current in place; renderChange brings it up to date again.
    const listing = await this.listings.get(blogId);
    const newest = listing.posts[listing.posts.length - 1];
    if (!newest) return;
    const change = await this.renderChange(blog, newest.id, { postId: newest.id, wasLive: true });
    if (change !== LANGUAGE_TIPPED && change.live) await this.search.rehearse(blog, change.live);
  }

  /** Resolves once background work started by jobs (static search upkeep) is done. */
  idle(): Promise<void> {
    return this.search.idle();
  }

  /** The JobRunner's handler. */
  readonly handle = async (job: PublishJob): Promise<void> => {
    switch (job.kind) {
      case 'post':
      case 'post_removed':
        return this.publishPostChange(job);
      case 'site':
        return this.publishSite(job);
      case 'site_delete':
        return this.deleteSite(job);
      case 'media_delete':
        // Composed beside this handler (services/mediaRemoval.ts): not publishing.
        throw new Error(`job ${job.id}: media_delete jobs are not the publisher's`);
    }
  };

  /**
   * Re-renders every object of the blog; `force` uploads even objects whose hash matches. The
   * objects are rendered and written a chunk at a time, so memory follows the chunk, not the blog.
   */
  async rebuild(
    blog: BlogWithDomain,
    options: { force?: boolean; withSearch?: boolean; onProgress?: (done: number, total: number) => void; formerHostnames?: string[] } = {},
  ): Promise<WriteResult> {
    const since = this.deps.jobs.latestId();
    const { result, keys } = await this.fullSite.write(blog, this.planOf(blog), options);
    await this.domains.write(blog);
    await this.edge.everything(blog, keys, options.formerHostnames);
    await this.catchUp(blog, since);
    // The pages leave the Markdown out; the index is built from the full rows.
    if (options.withSearch) await this.reindex(blog);
    return result;
  }

  /**
   * Post jobs of the blog recorded while a full render ran, run again now that it is written.
   * Another process (the server, beside `folio site rebuild`) may have run them meanwhile, and the
   * render, planned from the posts as they were when it started, then wrote older feeds, list
   * pages, sitemap chunks and neighbour pages over theirs (a publish during a 10,000-post rebuild
   * left nine objects stale, one archive page missing). A post job renders from the database as it
   * is now, so running it twice is harmless; in the server the blog's jobs wait behind its full
   * render and run next anyway.
   */
  private async catchUp(blog: BlogWithDomain, since: number): Promise<void> {
    for (const job of this.deps.jobs.postJobsSince(blog.id, since)) await this.publishPostChange(job);
  }

  /** Rebuilds only the blog's search indexes (the API's and the static one) from the database; returns how many posts they hold. */
  async reindex(blog: BlogWithDomain): Promise<number> {
    // A slot like a full render's: after an upgrade that changed the indexed text, every blog's
    // site job reindexes once its render is done, and each holds its posts' text meanwhile.
    return this.slots.run(() => this.search.reindex(blog));
  }

  /** Whole-blog work running and waiting for a slot. */
  wholeBlogWork(): { running: number; waiting: number } {
    return this.slots.stats();
  }

  /**
   * Compares the store with what the database says the blog should be: the rendered objects,
   * and every object of every uploaded image (verifyMedia.ts; `missingMedia`, also in `missing`:
   * no render can make them again, only an upload or a restore).
   */
  async verify(blog: BlogWithDomain): Promise<VerifyReport> {
    const report = await this.fullSite.verify(blog, this.planOf(blog));
    const media = await verifyMedia(this.deps.store, blog.slug, this.deps.media.allOfBlog(blog.id));
    return {
      ...report,
      checked: report.checked + media.keys.length,
      missing: [...report.missing, ...media.missing],
      different: [...report.different, ...media.different],
      missingMedia: media.missing,
    };
  }

  private async publishPostChange(job: PublishJob): Promise<void> {
    const blog = this.deps.blogs.findById(job.blogId);
    if (!blog) return; // deleted since: its site_delete job removes everything
    const postId = job.payload.postId;
    if (!postId) throw new Error(`job ${job.id} has no postId`);
    this.publishedSinceStart.add(blog.id);
    if (job.payload.wasLive && job.payload.previousPublishedAt) {
      // A live post given another date (published_at) moves in every list, month and feed: the
      // whole blog is rendered again, which also deletes the objects the change left stale.
      const live = this.livePost(postId);
      if (live && live.publishedAt !== job.payload.previousPublishedAt) {
        await this.rebuild(blog);
        await this.updateSearch(blog, postId, job.attempts, live);
        return;
      }
    }
    const change = await this.renderChange(blog, postId, job.payload);
    if (change === LANGUAGE_TIPPED) {
      // The titles tipped the blog's language: every page's <html lang> and labels change.
      await this.rebuild(blog);
      await this.updateSearch(blog, postId, job.attempts);
      return;
    }
    const { objects, deletions, live } = change;
    const written = await writeSite(this.deps.store, this.deps.hashes, blog.id, objects, deletions);
    await this.edge.changed(blog, { attempt: job.attempts, changedKeys: written.changedKeys, allKeys: [...objects.map((o) => o.key), ...deletions] });
    await this.updateSearch(blog, postId, job.attempts, live);
  }

  /**
   * What a post's change writes: the database's current state of the objects it touches, or
   * LANGUAGE_TIPPED when the change turned the blog's language (then everything is re-rendered).
   */
  private async renderChange(blog: BlogWithDomain, postId: string, payload: JobPayload): Promise<(PostChangeOutput & { live: SitePost | null }) | typeof LANGUAGE_TIPPED> {
    const { site, urls, theme } = this.deps;
    const listing = await this.listings.get(blog.id);
    const summaries = listing.posts;
    const siteBlog = toSiteBlog(blog, this.planOf(blog), urls);
    if (listing.titleCountsBefore && blogLanguage(siteBlog, listing.titleCountsBefore) !== blogLanguage(siteBlog, listing.titleCounts)) return LANGUAGE_TIPPED;
    const row = site.post(postId);
    const live = row && row.status === 'published' ? toSitePost(row) : null;
    // Rows of 1 MB posts carry up to 7 MB of HTML and take tens of milliseconds to read; the
    // event loop gets a turn after each, so no run of this job holds it for long.
    await yieldToLoop();
    const neighbours = new Map<string, SitePost>();
    const addNeighbour = async (neighbour: { id: string } | undefined): Promise<void> => {
      const full = neighbour ? site.post(neighbour.id) : null;
      if (full && full.status === 'published') neighbours.set(full.id, toSitePost(full));
      await yieldToLoop();
    };
    if (live) {
      // By its place (a binary search); the walk only if the listing's copy has another date.
      const placed = indexOfPost(summaries, live);
      const index = placed >= 0 ? placed : summaries.findIndex((p) => p.id === live.id);
      for (const neighbour of [summaries[index - 1], summaries[index + 1]]) await addNeighbour(neighbour);
    } else if (payload.previousPublishedAt) {
      // The posts on either side of the gap lose their link to the removed post.
      const after = positionOf(summaries, { id: postId, publishedAt: payload.previousPublishedAt });
      const around = after >= summaries.length ? [summaries[summaries.length - 1]] : [summaries[after - 1], summaries[after]];
      for (const neighbour of around) await addNeighbour(neighbour);
    }
    const newest = site.newestPublished(blog.id, FEED_SIZE, FEED_ITEM_MAX_HTML_BYTES).map(toSitePost);
    const ctx = createRenderContext({ theme, blog: siteBlog, titleCounts: listing.titleCounts, cache: this.deps.cache });
    const redirects = live ? site.redirectsOfPost(live.id) : [];
    const output = renderPostChange({
      ctx,
      summaries,
      tagged: (segment) => listing.tagged(segment),
      tagGroups: () => listing.tagGroups(),
      post: live,
      neighbours,
      newest,
      previousSlug: payload.previousSlug ?? (live ? undefined : row?.slug),
      previousTags: [...(payload.previousTags ?? []), ...(row && !live ? row.tags : [])],
      wasLive: payload.wasLive,
      previousPublishedAt: payload.previousPublishedAt,
      postId,
      redirectsToPost: redirects,
      // A post that left the site takes its old addresses with it.
      removedRedirects: [...(payload.removedRedirects ?? []), ...(live ? [] : site.redirectsOfPost(postId))],
    });
    return { ...output, live };
  }

  /** The owning account's plan as the database holds it now (a blog cannot outlive its account). */
  private planOf(blog: BlogWithDomain): Plan {
    const account = this.deps.accounts.findById(blog.accountId);
    if (!account) throw new Error(`blog ${blog.id} has no account ${blog.accountId}`);
    return account.plan;
  }

  private async updateSearch(blog: BlogWithDomain, postId: string, attempt: number, live = this.livePost(postId)): Promise<void> {
    await this.search.postChanged(blog, postId, attempt, live);
  }

  private livePost(postId: string): SitePost | null {
    const row = this.deps.site.post(postId);
    return row && row.status === 'published' ? toSitePost(row) : null;
  }

  private async publishSite(job: PublishJob): Promise<void> {
    const blog = this.deps.blogs.findById(job.blogId);
    if (!blog) return;
    const old = job.payload.hostname;
    const formerHost = old && !(blog.customDomain === old && blog.domainActive) ? old : null;
    // A removed domain's copies at the edge go too: its routing entry is removed below.
    // After an upgrade that changed what the index takes of a post, both indexes are rebuilt.
    // So does an imported blog's first render.
    // A changed public domain is what `folio site rebuild --all` does: every object written, not
    // only those whose hash changed. After a restore into a new store the recorded hashes name
    // assets (stylesheet, search script) the store lacks, and they stayed 404.
    const full = job.payload.reason === URLS_CHANGED;
    const withSearch = full || job.payload.reason === SEARCH_TEXT_CHANGED || job.payload.reason === IMPORTED;
    await this.rebuild(blog, { ...(formerHost ? { formerHostnames: [formerHost] } : {}), withSearch, force: full });
    await this.search.ensureStatic(blog);
    if (formerHost) await this.domains.release(formerHost, blog.slug);
  }

  /**
   * Removes a deleted blog's site and search index, then frees its slug (BlogsService.delete
   * reserved it): only then may a new blog take the slug, so it can never inherit anything.
   */
  private async deleteSite(job: PublishJob): Promise<void> {
    const { store, hashes, blogs, search, logger } = this.deps;
    if (job.payload.hostname) await this.domains.release(job.payload.hostname, job.blogSlug);
    this.listings.forget(job.blogId);
    // Only blogs deleted before slugs were reserved can have a successor already; its objects
    // are not ours to delete.
    const successor = blogs.findBySlug(job.blogSlug);
    if (successor && successor.id !== job.blogId) {
      logger.warn({ blog: job.blogSlug }, 'slug reused before the old site was deleted; leaving objects to the new blog');
      hashes.clear(job.blogId);
      blogs.releaseSlug(job.blogSlug, job.blogId);
      return;
    }
    const prefix = `${job.blogSlug}/`;
    await search.drop(job.blogSlug);
    const listed = await store.list(prefix);
    // What the edge may still hold: the objects listed now and, on a retry after they were
    // deleted, every object the blog was known to have (its hashes stay until the purge is done).
    const known = [...new Set([...listed, ...(await recordedHashes(hashes, job.blogId)).keys()])];
    await store.deleteMany(listed);
    // A writer that was still busy (a command-line rebuild) may have added objects meanwhile:
    // the slug stays reserved and the job is retried until the prefix stays empty.
    const left = await store.list(prefix);
    if (left.length > 0) throw new Error(`${left.length} objects appeared under ${prefix} while the blog was being deleted; retrying`);
    // Readers of the edge stop seeing it before a new blog may take the slug.
    await this.edge.everything({ slug: job.blogSlug }, known, job.payload.hostname ? [job.payload.hostname] : []);
    hashes.clear(job.blogId);
    blogs.releaseSlug(job.blogSlug, job.blogId);
  }
}
