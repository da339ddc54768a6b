/**
 * Whole-blog work: the `site` job (theme, name, plan, domain, URLs, upgrade, import), the CLI's
 * `folio site rebuild` and `verify`. Load the blog's listing, render and write every object a
 * chunk at a time (stages/fullSite.ts), write the routing entry, purge all of the blog at the
 * edge, run again the post jobs recorded meanwhile, then rebuild the search indexes when asked
 * (the blog's publishes let in throughout).
 */
import type { AccountsRepo } from '../../db/accountsRepo.js';
import type { BlogsRepo } from '../../db/blogsRepo.js';
import { IMPORTED, SEARCH_TEXT_CHANGED, URLS_CHANGED, type JobsRepo, type PublishJob } from '../../db/jobsRepo.js';
import type { MediaRepo } from '../../db/mediaRepo.js';
import type { SiteStore } from '../../storage/siteStore.js';
import type { CdnSync } from '../stages/cdnSync.js';
import type { DomainEntries } from '../stages/domainEntries.js';
import type { FullSite, VerifyReport } from '../stages/fullSite.js';
import { planOf } from '../stages/loadSite.js';
import type { SearchIndexes } from '../stages/searchIndexes.js';
import { verifyMedia } from '../stages/verifyMedia.js';
import type { WriteResult } from '../stages/writeSite.js';
import { MAX_BATCH, type BesideOutcome } from '../jobs/jobRunner.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import { whileWaiting } from '../../lib/whileWaiting.js';

export interface RebuildOptions {
  /** Uploads even objects whose hash matches what was last written. */
  force?: boolean;
  /** Rebuilds both search indexes too (from the HTML: the index reads no Markdown source). */
  withSearch?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Hostnames the blog no longer has, whose copies at the edge go too. */
  formerHostnames?: string[];
  /** Let in between two chunks of the render (stages/fullSite.ts, FullSiteOptions). */
  between?: () => Promise<readonly string[]>;
}

export interface SiteRebuildDeps {
  blogs: Pick<BlogsRepo, 'findById'>;
  accounts: Pick<AccountsRepo, 'findById'>;
  /** The post jobs recorded while a full render ran. */
  jobs: Pick<JobsRepo, 'latestId' | 'postJobsSince'>;
  fullSite: Pick<FullSite, 'write' | 'verify'>;
  domains: Pick<DomainEntries, 'write' | 'release'>;
  purge: CdnSync;
  indexes: Pick<SearchIndexes, 'ensureStatic'>;
  /** The blog's uploaded images, whose objects `verify` checks in the store. */
  media: Pick<MediaRepo, 'allOfBlog'>;
  store: Pick<SiteStore, 'getRange'>;
  /** Runs post jobs of one blog as one batch (pipelines/publishPostChange.ts). */
  runPostJobs: (jobs: readonly PublishJob[]) => Promise<void>;
  /**
   * Runs the blog's post jobs waiting behind the `site` job, between two chunks of its render
   * (jobs/jobRunner.ts runBeside); without it they wait for the job to end.
   */
  runBeside?: (running: PublishJob) => Promise<BesideOutcome>;
  /** Rebuilds both search indexes (pipelines/reindexBlog.ts). */
  reindex: (blog: BlogWithDomain) => Promise<number>;
  /** Records a `site_cards` job for the cards the render left to draw (pipelines/drawSiteCards.ts). */
  queueCards: (blog: BlogWithDomain) => Promise<void>;
}

export class SiteRebuild {
  constructor(private readonly deps: SiteRebuildDeps) {}

  /** The `site` job. */
  async run(job: PublishJob): Promise<void> {
    const { blogs, indexes, purge, domains } = this.deps;
    const blog = await blogs.findById(job.blogId);
    if (!blog) return;
    const old = job.payload.hostname;
    const formerHost = old && !(blog.customDomain === old && blog.domainActive) ? old : null;
    // A removed domain's copies at the edge go too: its routing entry is removed below.
    // A changed public domain writes every object, not only those whose hash changed: after a
    // restore into a new store the recorded hashes name assets the store lacks.
    // Both indexes are rebuilt after an upgrade that changed what the index takes of a post,
    // after a changed public domain, and at an imported blog's first render.
    const full = job.payload.reason === URLS_CHANGED;
    const withSearch = full || job.payload.reason === SEARCH_TEXT_CHANGED || job.payload.reason === IMPORTED;
    await this.rebuild(blog, { ...(formerHost ? { formerHostnames: [formerHost] } : {}), withSearch, force: full, between: this.beside(job) });
    const changedKeys = await indexes.ensureStatic(blog);
    await purge.changed(blog, { attempt: 0, changedKeys, allKeys: changedKeys });
    if (formerHost) await domains.release(formerHost, blog.slug);
  }

  /** Re-renders every object of the blog, a chunk at a time, so memory follows the chunk, not the blog. */
  async rebuild(blog: BlogWithDomain, options: RebuildOptions = {}): Promise<WriteResult> {
    const { jobs, accounts, fullSite, domains, purge } = this.deps;
    const since = await jobs.latestId();
    // load, render, write
    const { result, keys, cardsLeft } = await fullSite.write(blog, await planOf(accounts, blog), options);
    if (cardsLeft > 0) await this.deps.queueCards(blog);
    await domains.write(blog);
    // purge
    await purge.everything(blog, keys, options.formerHostnames);
    await this.catchUp(blog, since);
    // index
    if (options.withSearch) await this.reindex(blog, options.between);
    return result;
  }

  /**
   * The reindex lets the blog's publishes in as the render does (about 26 s at 50,000 posts):
   * their pages are written and answered at once, their search entries wait for the new indexes
   * (stages/searchIndexes.ts holds them).
   */
  private async reindex(blog: BlogWithDomain, between: RebuildOptions['between']): Promise<void> {
    const reindexed = this.deps.reindex(blog);
    if (between) {
      await whileWaiting(reindexed, async () => {
        await between();
      });
    }
    await reindexed;
  }

  /**
   * The blog's publishes do not wait for its full render (about 40 s at 50,000 posts after an
   * upgrade): between two chunks, the post jobs waiting behind the `site` job run as one batch
   * and their requests are answered. The render then leaves the keys they wrote alone (chunks
   * rendered ahead hold older pages of their posts), and catchUp renders them once more after
   * the render, whose list pages and neighbours were planned before them. Once a batch fails or
   * must wait for its turn (it would render the whole blog), the rest of the render lets none in.
   */
  private beside(job: PublishJob): () => Promise<readonly string[]> {
    let open = this.deps.runBeside !== undefined;
    return async () => {
      if (!open) return [];
      const outcome = await this.deps.runBeside!(job);
      if (outcome.ran) return outcome.keys;
      open = outcome.again;
      return [];
    };
  }

  /**
   * Compares the store with what the database says the blog should be: the rendered objects,
   * and every object of every uploaded image (`missingMedia`, also in `missing`: no render can
   * make them again, only an upload or a restore).
   */
  async verify(blog: BlogWithDomain): Promise<VerifyReport> {
    const report = await this.deps.fullSite.verify(blog, await planOf(this.deps.accounts, blog));
    const media = await verifyMedia(this.deps.store, blog.slug, await this.deps.media.allOfBlog(blog.id));
    return {
      ...report,
      checked: report.checked + media.keys.length,
      missing: [...report.missing, ...media.missing],
      different: [...report.different, ...media.different],
      missingMedia: media.missing,
    };
  }

  /**
   * Post jobs of the blog recorded while a full render ran, run again now that it is written.
   * They may have run meanwhile, beside the render (`beside`) or in another process (the
   * server, beside `folio site rebuild`), and the render, planned from the posts as they were
   * when it started, wrote the list pages and neighbours it planned, without them. A post job
   * renders from the database as it is now, so running it twice is harmless.
   */
  private async catchUp(blog: BlogWithDomain, since: number): Promise<void> {
    const jobs = await this.deps.jobs.postJobsSince(blog.id, since);
    // In batches of as many as the runner folds: the pages they share render once.
    for (let start = 0; start < jobs.length; start += MAX_BATCH) await this.deps.runPostJobs(jobs.slice(start, start + MAX_BATCH));
  }
}
